//! `timeline.png`: binding values and state weights over time as line
//! charts, the preset's steps and the animation's events as labelled markers,
//! a seconds axis and a legend.
//!
//! ```text
//! title                                            ┌ legend ┐
//! STEPS      | set speed   | fire jump              │ ■ ...  │
//! BINDINGS   ~~~~~~~~~~~~ (each scaled to its own range, shown in the legend)
//! layer/state ▇▇▇▇▇▆▄▂    (one lane per graph state, slot clip and selector
//!                          clip; bar height = weight 0..1)
//! EVENTS     • footstep  • > walk  • reload start
//! 0s ─────── 1s ─────── 2s
//! ```

use zoa_anim_runtime::preview::{Capture, CaptureEventKind};

use super::raster::{Canvas, GRID, INK, MUTED, PANEL, series_color, text_width};
use super::{SELECTOR_LAYER, num};

/// Width of the timeline image, pixels (the CLI docs promise 1400).
const TIMELINE_WIDTH: i32 = 1400;
const LEFT: i32 = 150;
const LEGEND_W: i32 = 330;
const PLOT_W: i32 = TIMELINE_WIDTH - LEFT - LEGEND_W - 20;
const BIND_H: i32 = 150;
const LANE_H: i32 = 22;
const ROW_H: i32 = 12;

struct Series {
    label: String,
    color: u8,
    values: Vec<Option<f32>>,
}

/// Places labels left to right in the first row where they fit; returns the row per label.
fn stagger(xs: &[(i32, i32)], max_rows: usize) -> Vec<usize> {
    let mut ends: Vec<i32> = Vec::new();
    xs.iter()
        .map(|&(x, w)| match ends.iter().position(|&e| x > e + 6) {
            Some(r) => {
                ends[r] = x + w;
                r
            }
            None if ends.len() < max_rows => {
                ends.push(x + w);
                ends.len() - 1
            }
            None => {
                let r = (0..ends.len()).min_by_key(|&r| ends[r]).unwrap_or(0);
                ends[r] = ends[r].max(x + w);
                r
            }
        })
        .collect()
}

/// Left edge of a marker's label `w` pixels wide: `gap` pixels right of the
/// marker at `x`, or ending `gap` pixels left of it when it would run past the
/// plot's right edge `right` (into the legend).
fn label_left(x: i32, w: i32, gap: i32, right: i32) -> i32 {
    if x + gap + w > right { (x - gap - w).max(LEFT) } else { x + gap }
}

fn event_label(kind: CaptureEventKind, name: &str) -> String {
    match kind {
        CaptureEventKind::Set => format!("set {name}"),
        CaptureEventKind::Trigger => format!("fire {name}"),
        CaptureEventKind::Slot => format!("slot {name}"),
        CaptureEventKind::SlotUnresolved => format!("slot {name} (unresolved)"),
        CaptureEventKind::Tags => format!("tags {name}"),
        CaptureEventKind::Equip => format!("equip {name}"),
        CaptureEventKind::Notify => name.to_owned(),
        CaptureEventKind::StateEntered => format!("> {name}"),
        CaptureEventKind::SlotEnd => format!("end {name}"),
        CaptureEventKind::BindingStart => format!("{name} start"),
        CaptureEventKind::BindingComplete => format!("{name} complete"),
        CaptureEventKind::BindingCancel => format!("{name} cancel"),
        CaptureEventKind::StateExited | CaptureEventKind::TransitionStarted | CaptureEventKind::TransitionFinished => {
            name.to_owned()
        }
    }
}

/// Renders the timeline of `c` as PNG bytes.
pub(crate) fn timeline_png(c: &Capture) -> Vec<u8> {
    let n = c.ticks.len();
    let t_end = c.ticks.last().map_or(0.0, |t| t.time).max(1e-3);
    let x_of = |t: f64| LEFT + ((t / t_end) * f64::from(PLOT_W)).round() as i32;

    // Series: bindings (own range each), then graph states and selector clips (0..1).
    let mut bindings = Vec::new();
    for (k, b) in c.binding_columns.iter().enumerate() {
        let values: Vec<Option<f32>> = (0..n).map(|i| Some(c.tick_bindings(i)[k]).filter(|v| v.is_finite())).collect();
        let lo = values.iter().flatten().fold(0.0f32, |a, &v| a.min(v));
        let hi = values.iter().flatten().fold(1.0f32, |a, &v| a.max(v));
        let label = if values.iter().all(Option::is_none) {
            format!("{} (inert: no rig parameter)", c.name(*b))
        } else {
            format!("{} [{}..{}]", c.name(*b), num(lo), num(hi))
        };
        bindings.push((Series { label, color: series_color(k), values }, lo, hi));
    }
    let mut states = Vec::new();
    for (l, s) in c.state_series() {
        let values = (0..n)
            .map(|i| Some(c.tick_states(i).iter().filter(|r| r.layer == l && r.state == s).map(|r| r.weight).sum()))
            .collect();
        states.push(Series { label: format!("{}/{}", c.name(l), c.name(s)), color: 0, values });
    }
    let mut clips: Vec<_> = Vec::new();
    for r in &c.rows {
        if !clips.contains(&r.clip) {
            clips.push(r.clip);
        }
    }
    for clip in clips {
        let values =
            (0..n).map(|i| Some(c.tick_rows(i).iter().filter(|r| r.clip == clip).map(|r| r.weight).sum())).collect();
        states.push(Series { label: format!("{SELECTOR_LAYER}/{}", c.name(clip)), color: 0, values });
    }
    for (j, s) in states.iter_mut().enumerate() {
        s.color = series_color(bindings.len() + j);
    }

    // Event labels, staggered into rows.
    let steps: Vec<_> = c.events.iter().filter(|e| e.kind.is_step()).collect();
    let anim: Vec<_> = c
        .events
        .iter()
        .filter(|e| {
            matches!(
                e.kind,
                CaptureEventKind::Notify
                    | CaptureEventKind::StateEntered
                    | CaptureEventKind::SlotEnd
                    | CaptureEventKind::BindingStart
                    | CaptureEventKind::BindingComplete
                    | CaptureEventKind::BindingCancel
            )
        })
        .collect();
    let step_labels: Vec<String> = steps.iter().map(|e| event_label(e.kind, c.name(e.name))).collect();
    let anim_labels: Vec<String> = anim.iter().map(|e| event_label(e.kind, c.name(e.name))).collect();
    let right = LEFT + PLOT_W;
    // Where each label's text starts (kept inside the plot); rows are staggered by where they are drawn.
    let step_left: Vec<i32> =
        steps.iter().zip(&step_labels).map(|(e, l)| label_left(x_of(e.time), text_width(l, 1) + 1, 3, right)).collect();
    let anim_left: Vec<i32> =
        anim.iter().zip(&anim_labels).map(|(e, l)| label_left(x_of(e.time), text_width(l, 1), 4, right)).collect();
    let step_rows =
        stagger(&step_left.iter().zip(&step_labels).map(|(x, l)| (x - 3, text_width(l, 1) + 4)).collect::<Vec<_>>(), 8);
    let anim_rows =
        stagger(&anim_left.iter().zip(&anim_labels).map(|(x, l)| (x - 4, text_width(l, 1) + 6)).collect::<Vec<_>>(), 6);
    let step_lane = (step_rows.iter().max().map_or(0, |r| r + 1) as i32) * ROW_H + 8;
    let anim_lane = (anim_rows.iter().max().map_or(0, |r| r + 1) as i32) * ROW_H + 8;

    let top = 56;
    let steps_y = top + 16;
    let bind_y = steps_y + step_lane + 14;
    let state_y = bind_y + BIND_H + 26;
    let state_h = (states.len().max(1) as i32) * LANE_H;
    let anim_y = state_y + state_h + 14;
    let axis_y = anim_y + anim_lane + 4;
    let legend_rows = bindings.len() + states.len() + 10;
    let height = (axis_y + 34).max(top + 20 + legend_rows as i32 * 14);
    let mut cv = Canvas::new(TIMELINE_WIDTH, height, 0);

    // Title.
    cv.text(16, 12, &format!("{}  -  {}", c.preset, c.preset_name), 3, INK);
    cv.text(
        16,
        36,
        &format!("preview at {} hz, {} ticks, {:.2} s", num(c.rate), n, c.ticks.last().map_or(0.0, |t| t.time)),
        2,
        MUTED,
    );

    // Panels.
    cv.rect(LEFT, bind_y, PLOT_W + 1, BIND_H + 1, PANEL);
    for k in 0..=4 {
        cv.rect(LEFT, bind_y + BIND_H * k / 4, PLOT_W + 1, 1, GRID);
    }
    if bindings.iter().all(|(s, _, _)| s.values.iter().all(Option::is_none)) {
        let note = if bindings.is_empty() {
            "the preset sets no binding"
        } else {
            "no binding reaches a rig parameter (the binding profile and the graph disagree)"
        };
        cv.text(LEFT + 12, bind_y + BIND_H / 2 - 5, note, 2, MUTED);
    }
    for (j, s) in states.iter().enumerate() {
        let y = state_y + j as i32 * LANE_H;
        cv.rect(LEFT, y, PLOT_W + 1, LANE_H - 2, PANEL);
        let label: String = s.label.chars().take(34).collect();
        cv.text(LEFT - 6 - text_width(&label, 1), y + LANE_H / 2 - 3, &label, 1, INK);
    }
    cv.text(12, steps_y, "steps", 2, INK);
    cv.text(12, bind_y, "bindings", 2, INK);
    cv.text(12, bind_y + 16, "(own scale)", 1, MUTED);
    cv.text(12, state_y - 16, "weights (bar height 0..1)", 2, INK);
    cv.text(12, anim_y, "events", 2, INK);

    // Time grid and axis.
    let step_s = if t_end > 12.0 {
        2.0
    } else if t_end > 5.0 {
        1.0
    } else {
        0.5
    };
    let mut t = 0.0;
    while t <= t_end + 1e-9 {
        let x = x_of(t);
        cv.rect(x, bind_y, 1, BIND_H, GRID);
        cv.rect(x, state_y, 1, state_h, GRID);
        cv.rect(x, axis_y, 1, 5, INK);
        let label = format!("{}s", num(t as f32));
        cv.text(x - text_width(&label, 2) / 2, axis_y + 9, &label, 2, INK);
        t += step_s;
    }
    cv.rect(LEFT, axis_y, PLOT_W + 1, 1, INK);

    // Step markers: dashed lines through every panel, labels in the steps lane.
    // Lines first, then the labels on a background of their own, so a marker
    // line never runs through a label of an earlier row.
    for (e, row) in steps.iter().zip(&step_rows) {
        cv.dashed_vline(x_of(e.time), steps_y + *row as i32 * ROW_H, axis_y, MUTED);
    }
    for ((label, row), x) in step_labels.iter().zip(&step_rows).zip(&step_left) {
        let y = steps_y + *row as i32 * ROW_H;
        cv.rect(x - 1, y - 2, text_width(label, 1) + 2, ROW_H, 0);
        cv.text(*x, y, label, 1, INK);
    }

    // Lines.
    let plot = |cv: &mut Canvas, s: &Series, y0: i32, h: i32, lo: f32, hi: f32| {
        let mut prev: Option<(i32, i32)> = None;
        for (i, v) in s.values.iter().enumerate() {
            let Some(v) = v else {
                prev = None;
                continue;
            };
            let f = ((v - lo) / (hi - lo).max(1e-6)).clamp(0.0, 1.0);
            let p = (x_of(c.ticks[i].time), y0 + h - (f * h as f32).round() as i32);
            if let Some(q) = prev {
                cv.line(q.0, q.1, p.0, p.1, 2, s.color);
            } else {
                cv.rect(p.0 - 1, p.1 - 1, 2, 2, s.color);
            }
            prev = Some(p);
        }
    };
    for (s, lo, hi) in &bindings {
        plot(&mut cv, s, bind_y, BIND_H, *lo, *hi);
    }
    for (j, s) in states.iter().enumerate() {
        let base = state_y + j as i32 * LANE_H + LANE_H - 3;
        for (i, v) in s.values.iter().enumerate() {
            let Some(w) = v.filter(|w| *w > 0.0) else { continue };
            let x0 = x_of(c.ticks[i].time);
            let x1 = c.ticks.get(i + 1).map_or(x0 + 1, |t| x_of(t.time)).max(x0 + 1);
            let h = ((w.min(1.0) * (LANE_H - 4) as f32).round() as i32).max(1);
            cv.rect(x0, base - h + 1, x1 - x0, h, s.color);
        }
    }

    // Animation events.
    for (((e, label), row), tx) in anim.iter().zip(&anim_labels).zip(&anim_rows).zip(&anim_left) {
        let x = x_of(e.time);
        let y = anim_y + *row as i32 * ROW_H;
        let color = match e.kind {
            CaptureEventKind::Notify => series_color(1),
            CaptureEventKind::StateEntered => series_color(2),
            CaptureEventKind::BindingStart | CaptureEventKind::BindingComplete | CaptureEventKind::BindingCancel => {
                series_color(3)
            }
            _ => series_color(4),
        };
        cv.rect(x, anim_y - 10, 1, 6, color);
        cv.dot(x, y + 2, 2, color);
        cv.text(*tx, y, label, 1, INK);
    }

    // Legend.
    let lx = right + 24;
    let mut ly = top;
    cv.frame(lx - 8, ly - 8, LEGEND_W - 8, height - ly - 4, GRID);
    let mut legend = |cv: &mut Canvas, title: &str, items: &[(&str, u8)]| {
        cv.text(lx, ly, title, 2, INK);
        ly += 16;
        for (label, color) in items {
            cv.rect(lx, ly, 14, 6, *color);
            cv.text(lx + 20, ly, label, 1, INK);
            ly += 14;
        }
        ly += 6;
    };
    let b: Vec<(&str, u8)> = bindings.iter().map(|(s, _, _)| (s.label.as_str(), s.color)).collect();
    legend(&mut cv, "bindings", &b);
    let s: Vec<(&str, u8)> = states.iter().map(|s| (s.label.as_str(), s.color)).collect();
    legend(&mut cv, "state weights", &s);
    legend(
        &mut cv,
        "events",
        &[
            ("- - preset step", MUTED),
            ("clip notify", series_color(1)),
            ("state entered", series_color(2)),
            ("binding start / complete / cancel", series_color(3)),
            ("slot ended", series_color(4)),
        ],
    );
    cv.to_png()
}

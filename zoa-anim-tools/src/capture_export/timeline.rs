//! `timeline.png`: binding values and state weights over time as line
//! charts, the preset's steps, the animation's events and the sound cues as
//! labelled markers, the IK goals' weights and reach errors, a seconds axis
//! and a legend.
//!
//! ```text
//! title                                            ┌ legend ┐
//! STEPS      | set speed   | fire jump              │ ■ ...  │
//! BINDINGS   ~~~~~~~~~~~~ (each scaled to its own range, shown in the legend)
//! layer/state ▇▇▇▇▇▆▄▂    (one lane per graph state, slot clip and selector
//!                          clip; bar height = weight 0..1)
//! CLIP TIME  sync groups' phases and markers, notify windows (`timeline_clips`)
//! EVENTS     • footstep  • > walk  • reload start
//! SOUNDS     • footstep/footstep_concrete_1  • jump: no_match
//! IK goal    ▇▇▇▆▄▂__ (bar height = weight 0..1; red line = reach error)
//! 0s ─────── 1s ─────── 2s
//! ```

use zoa_anim_runtime::character::EventKind;

use crate::preview::{Capture, NameId, Recorded, SoundRecord, StepKind};

use super::raster::{Canvas, GRID, INK, MUTED, PANEL, series_color, text_width};
use super::timeline_clips::{ClipLanes, Plot};
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

fn event_label(kind: Recorded, name: &str) -> String {
    match kind {
        Recorded::Step(StepKind::Set) => format!("set {name}"),
        Recorded::Step(StepKind::Trigger) => format!("fire {name}"),
        Recorded::Step(StepKind::Slot) => format!("slot {name}"),
        Recorded::Step(StepKind::SlotUnresolved) => format!("slot {name} (unresolved)"),
        Recorded::Step(StepKind::ForceState) => format!("force {name}"),
        Recorded::Step(StepKind::ForceStateUnresolved) => format!("force {name} (no such state)"),
        Recorded::Step(StepKind::Tags) => format!("tags {name}"),
        Recorded::Step(StepKind::Equip) => format!("equip {name}"),
        Recorded::Event(EventKind::StateEntered { .. }) => format!("> {name}"),
        Recorded::Event(EventKind::SlotEnded { interrupted: false, .. }) => format!("end {name}"),
        Recorded::Event(EventKind::SlotEnded { .. }) => format!("stop {name}"),
        Recorded::Event(EventKind::Binding { phase, .. }) => format!("{name} {}", phase.tag()),
        Recorded::Event(_) => name.to_owned(),
    }
}

/// The animation events the timeline marks: notifies, states entered, slot
/// ends and binding phases.
fn marked(kind: Recorded) -> bool {
    matches!(
        kind,
        Recorded::Event(
            EventKind::Notify { .. }
                | EventKind::StateEntered { .. }
                | EventKind::SlotEnded { interrupted: false, .. }
                | EventKind::Binding { .. }
        )
    )
}

/// Renders the timeline of `c` as PNG bytes.
pub(crate) fn timeline_png(c: &Capture) -> Vec<u8> {
    let axis = TimeAxis { t_end: c.ticks.last().map_or(0.0, |t| t.time).max(1e-3) };
    let bindings = binding_series(c);
    let states = weight_series(c, bindings.len());
    let ik = ik_series(c, bindings.len() + states.len());
    let steps = Markers::events(c, &axis, |k| k.is_step(), Placement { gap: 3, extra: 1, pad: 4, max_rows: 8 });
    let anim = Markers::events(c, &axis, marked, Placement { gap: 4, extra: 0, pad: 6, max_rows: 6 });
    let sounds = Markers::sounds(c, &axis, Placement { gap: 4, extra: 0, pad: 6, max_rows: 4 });
    let clips = ClipLanes::new(c, bindings.len() + states.len() + ik.len());
    let legend_extra = clips.legend(c);
    let l = Layout::new(
        &steps,
        &anim,
        &sounds,
        [bindings.len(), states.len(), ik.len(), legend_extra.len()],
        clips.height(),
    );
    let mut cv = Canvas::new(TIMELINE_WIDTH, l.height, 0);

    // Title.
    cv.text(16, 12, &format!("{}  -  {}", c.preset, c.preset_name), 3, INK);
    cv.text(
        16,
        36,
        &format!(
            "preview at {} hz, {} ticks, {:.2} s",
            num(c.rate),
            c.ticks.len(),
            c.ticks.last().map_or(0.0, |t| t.time)
        ),
        2,
        MUTED,
    );
    draw_panels(&mut cv, &l, &bindings, &states);
    draw_sound_and_ik_panels(&mut cv, c, &l, &ik);
    draw_time_axis(&mut cv, &l, &axis);

    // Step markers: dashed lines through every panel, labels in the steps lane.
    // Lines first, then the labels on a background of their own, so a marker
    // line never runs through a label of an earlier row.
    for (t, row) in steps.times.iter().zip(&steps.rows) {
        cv.dashed_vline(axis.x(*t), l.steps_y + *row as i32 * ROW_H, l.axis_y, MUTED);
    }
    for ((label, row), x) in steps.labels.iter().zip(&steps.rows).zip(&steps.left) {
        let y = l.steps_y + *row as i32 * ROW_H;
        cv.rect(x - 1, y - 2, text_width(label, 1) + 2, ROW_H, 0);
        cv.text(*x, y, label, 1, INK);
    }

    draw_series(&mut cv, c, &l, &axis, &bindings, &states);
    clips.draw(&mut cv, c, &Plot { left: LEFT, width: PLOT_W, x: &|t| axis.x(t) }, l.clips_y);
    draw_ik(&mut cv, c, &l, &axis, &ik);
    draw_markers(&mut cv, &axis, &anim, l.anim_y);
    draw_markers(&mut cv, &axis, &sounds, l.sound_y);
    draw_legend(&mut cv, &l, (&bindings, &states), &legend_extra, &ik);
    cv.to_png()
}

/// A lane of markers at `y`: a tick above the lane, a dot and the label on its row.
fn draw_markers(cv: &mut Canvas, axis: &TimeAxis, m: &Markers, y: i32) {
    for ((((t, color), label), row), tx) in m.times.iter().zip(&m.colors).zip(&m.labels).zip(&m.rows).zip(&m.left) {
        let x = axis.x(*t);
        let ly = y + *row as i32 * ROW_H;
        cv.rect(x, y - 10, 1, 6, *color);
        if label.is_empty() {
            // Unlabelled (a repeat of the label before): a dot on the tick, clear of the labels' rows.
            cv.dot(x, y - 7, 2, *color);
            continue;
        }
        cv.dot(x, ly + 2, 2, *color);
        cv.text(*tx, ly, label, 1, INK);
    }
}

/// The sounds lane's title (and why it is empty), the IK lanes: background and
/// label per goal, the error scale in the title.
fn draw_sound_and_ik_panels(cv: &mut Canvas, c: &Capture, l: &Layout, ik: &[IkSeries]) {
    cv.text(12, l.sound_y, "sounds", 2, INK);
    if c.sounds.is_empty() {
        let note = match (&c.sound_problem, c.sound_profile) {
            (Some(problem), _) => format!("no sound: {problem}"),
            (None, None) => "no sound profile".to_owned(),
            (None, Some(_)) => "no sound cue".to_owned(),
        };
        cv.text(LEFT + 8, l.sound_y, &note.chars().take(150).collect::<String>(), 1, MUTED);
    }
    let scale = ik_scale(ik);
    cv.text(
        12,
        l.ik_y - 16,
        &format!("ik (bar: weight 0..1; line: reach error 0..{} mm)", num(scale * 1000.0)),
        2,
        INK,
    );
    if ik.is_empty() {
        let note = if c.ground.is_none() { "no IK goal (no ground given)" } else { "no IK goal" };
        cv.text(LEFT + 8, l.ik_y - 14, note, 1, MUTED);
    }
    for (j, s) in ik.iter().enumerate() {
        let y = l.ik_y + j as i32 * LANE_H;
        cv.rect(LEFT, y, PLOT_W + 1, LANE_H - 2, PANEL);
        cv.text(LEFT - 6 - text_width(&s.label, 1), y + LANE_H / 2 - 3, &s.label, 1, INK);
    }
}

/// Each IK goal's weight as bars and its reach error as a line in its lane.
fn draw_ik(cv: &mut Canvas, c: &Capture, l: &Layout, axis: &TimeAxis, ik: &[IkSeries]) {
    let scale = ik_scale(ik);
    for (j, s) in ik.iter().enumerate() {
        let base = l.ik_y + j as i32 * LANE_H + LANE_H - 3;
        let mut prev: Option<(i32, i32)> = None;
        for (i, (w, e)) in s.weights.iter().zip(&s.errors).enumerate() {
            let x0 = axis.x(c.ticks[i].time);
            if let Some(w) = w.filter(|w| *w > 0.0) {
                let x1 = c.ticks.get(i + 1).map_or(x0 + 1, |t| axis.x(t.time)).max(x0 + 1);
                let h = ((w.min(1.0) * (LANE_H - 4) as f32).round() as i32).max(1);
                cv.rect(x0, base - h + 1, x1 - x0, h, s.color);
            }
            let Some(e) = e else {
                prev = None;
                continue;
            };
            let p = (x0, base - ((e / scale).clamp(0.0, 1.0) * (LANE_H - 4) as f32).round() as i32);
            if let Some(q) = prev {
                cv.line(q.0, q.1, p.0, p.1, 1, IK_ERROR);
            }
            prev = Some(p);
        }
    }
}

/// Seconds to plot x: 0 s at the plot's left edge, the capture's end at its right.
struct TimeAxis {
    t_end: f64,
}

impl TimeAxis {
    fn x(&self, t: f64) -> i32 {
        LEFT + ((t / self.t_end) * f64::from(PLOT_W)).round() as i32
    }
}

/// One binding per series, each scaled to its own range (lo, hi): at least 0..1.
fn binding_series(c: &Capture) -> Vec<(Series, f32, f32)> {
    let n = c.ticks.len();
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
    bindings
}

/// The weight (0..1) of each graph state, then of each selector clip; colours
/// continue after the `binding_count` binding series.
fn weight_series(c: &Capture, binding_count: usize) -> Vec<Series> {
    let n = c.ticks.len();
    let mut states = Vec::new();
    for (l, s) in c.state_series() {
        let values = (0..n)
            .map(|i| Some(c.tick_states(i).iter().filter(|r| r.layer == l && r.state == s).map(|r| r.weight).sum()))
            .collect();
        states.push(Series { label: format!("{}/{}", c.name(l), c.name(s)), color: 0, values });
    }
    // One lane per selector row (a chooser's variants may share a clip, and
    // a ranged row plays the same clip as the plain one): the row shows the choice.
    let mut rows: Vec<(u32, NameId)> = Vec::new();
    for r in &c.rows {
        if !rows.contains(&(r.row, r.clip)) {
            rows.push((r.row, r.clip));
        }
    }
    for (row, clip) in rows {
        let values = (0..n)
            .map(|i| Some(c.tick_rows(i).iter().filter(|r| (r.row, r.clip) == (row, clip)).map(|r| r.weight).sum()))
            .collect();
        let which = if row == u32::MAX { "default".to_owned() } else { format!("row {row}") };
        states.push(Series { label: format!("{SELECTOR_LAYER}/{} ({which})", c.name(clip)), color: 0, values });
    }
    for (j, s) in states.iter_mut().enumerate() {
        s.color = series_color(binding_count + j);
    }
    states
}

/// Labelled markers on the time axis (steps, events or sound cues): where
/// each label's text starts (kept inside the plot) and its row (staggered by
/// where it is drawn); an empty label draws the marker alone.
struct Markers {
    times: Vec<f64>,
    colors: Vec<u8>,
    labels: Vec<String>,
    left: Vec<i32>,
    rows: Vec<usize>,
}

/// Placement of a kind of marker's labels: `gap`, the label's distance from
/// its marker; `extra`, pixels added to its width when placing it; `pad`,
/// its width in a row beyond its text; at most `max_rows` rows.
#[derive(Clone, Copy)]
struct Placement {
    gap: i32,
    extra: i32,
    pad: i32,
    max_rows: usize,
}

impl Markers {
    /// The capture's events of the kinds `keep` accepts.
    fn events(c: &Capture, axis: &TimeAxis, keep: impl Fn(Recorded) -> bool, place: Placement) -> Self {
        let items = c
            .events
            .iter()
            .filter(|e| keep(e.kind))
            .map(|e| (e.time, event_color(e.kind), event_label(e.kind, c.name(e.name))))
            .collect();
        Markers::new(items, axis, place)
    }

    /// The capture's sound cues: `entry event/variant file` when a voice
    /// started, else `event: outcome`. A label equal to the last one drawn
    /// and too close to it to be read is left out (the marker stays).
    fn sounds(c: &Capture, axis: &TimeAxis, place: Placement) -> Self {
        let mut last: Option<(i32, String)> = None;
        let items = c
            .sounds
            .iter()
            .map(|s| {
                let label = sound_label(c, s);
                let x = axis.x(s.time);
                let repeat = last.as_ref().is_some_and(|(lx, l)| *l == label && x - lx < text_width(l, 1) + 24);
                if !repeat {
                    last = Some((x, label.clone()));
                }
                (s.time, sound_color(s), if repeat { String::new() } else { label })
            })
            .collect();
        Markers::new(items, axis, place)
    }

    fn new(items: Vec<(f64, u8, String)>, axis: &TimeAxis, p: Placement) -> Self {
        let right = LEFT + PLOT_W;
        let (mut times, mut colors, mut labels) = (Vec::new(), Vec::new(), Vec::new());
        for (t, c, l) in items {
            times.push(t);
            colors.push(c);
            labels.push(l);
        }
        let left: Vec<i32> = times
            .iter()
            .zip(&labels)
            .map(|(t, l)| label_left(axis.x(*t), text_width(l, 1) + p.extra, p.gap, right))
            .collect();
        let placed: Vec<(i32, i32)> = left
            .iter()
            .zip(&labels)
            .filter(|(_, l)| !l.is_empty())
            .map(|(x, l)| (x - p.gap, text_width(l, 1) + p.pad))
            .collect();
        let mut placed_rows = stagger(&placed, p.max_rows).into_iter();
        let rows = labels.iter().map(|l| if l.is_empty() { 0 } else { placed_rows.next().unwrap_or(0) }).collect();
        Markers { times, colors, labels, left, rows }
    }

    /// Height of the lane the labels need.
    fn lane(&self) -> i32 {
        (self.rows.iter().max().map_or(0, |r| r + 1) as i32) * ROW_H + 8
    }
}

/// The colour of an animation event's marker.
fn event_color(kind: Recorded) -> u8 {
    match kind {
        Recorded::Event(EventKind::Notify { .. }) => series_color(1),
        Recorded::Event(EventKind::StateEntered { .. }) => series_color(2),
        Recorded::Event(EventKind::Binding { .. }) => series_color(3),
        _ => series_color(4),
    }
}

/// A sound cue's label (see [`Markers::sounds`]).
fn sound_label(c: &Capture, s: &SoundRecord) -> String {
    match c.sound_entry(s) {
        Some((entry, Some(clip))) => {
            let file = c.name(clip);
            let stem = file.rsplit(['/', '\\']).next().unwrap_or(file);
            let stem = stem.rsplit_once('.').map_or(stem, |(s, _)| s);
            format!("{}/{stem}", c.name(entry.event))
        }
        _ => format!("{}: {}", c.name(s.event), s.outcome.name()),
    }
}

/// Green when a voice started, red when nothing answers the event, orange
/// when a cooldown, throttle or cap refused it.
fn sound_color(s: &SoundRecord) -> u8 {
    match s.outcome.name() {
        "started" => SOUND_STARTED,
        "no_match" | "unknown_emitter" => SOUND_NO_MATCH,
        _ => SOUND_REFUSED,
    }
}

const SOUND_STARTED: u8 = 17;
const SOUND_NO_MATCH: u8 = 8;
const SOUND_REFUSED: u8 = 6;
/// Colour of the reach-error line in the IK lanes.
const IK_ERROR: u8 = INK;

/// One IK goal over time: its weight per tick (`None` when it did not run)
/// and its reach error, metres.
struct IkSeries {
    label: String,
    color: u8,
    weights: Vec<Option<f32>>,
    errors: Vec<Option<f32>>,
}

/// One series per (behaviour, side) that ran, in first-seen order; colours
/// continue after `first_color` series.
fn ik_series(c: &Capture, first_color: usize) -> Vec<IkSeries> {
    let n = c.ticks.len();
    let mut keys = Vec::new();
    for g in &c.ik {
        if !keys.contains(&(g.behaviour, g.side)) {
            keys.push((g.behaviour, g.side));
        }
    }
    keys.iter()
        .enumerate()
        .map(|(k, &(behaviour, side))| {
            let find = |i: usize| c.tick_ik(i).iter().find(|g| g.behaviour == behaviour && g.side == side);
            let label = match side {
                Some(s) => format!("{}.{}", behaviour.name(), s.name()),
                None => behaviour.name().to_owned(),
            };
            IkSeries {
                label,
                color: series_color(first_color + k),
                weights: (0..n).map(|i| find(i).map(|g| g.weight)).collect(),
                errors: (0..n).map(|i| find(i).map(|g| g.error)).collect(),
            }
        })
        .collect()
}

/// The reach error at a lane's full height, metres: the largest error seen,
/// at least 1 cm (so a lane of sub-millimetre errors stays flat).
fn ik_scale(ik: &[IkSeries]) -> f32 {
    ik.iter().flat_map(|s| s.errors.iter().flatten()).fold(0.01f32, |a, &e| a.max(e))
}

/// Vertical positions of the chart's parts and the image height.
struct Layout {
    top: i32,
    steps_y: i32,
    bind_y: i32,
    state_y: i32,
    state_h: i32,
    /// Top of the clip-time lanes (sync groups, windows).
    clips_y: i32,
    anim_y: i32,
    sound_y: i32,
    ik_y: i32,
    axis_y: i32,
    height: i32,
}

impl Layout {
    /// `series`: the binding series, the weight series, the IK lanes and the
    /// clip-time lanes' legend lines; `clips_h`: the clip-time lanes' height.
    fn new(steps: &Markers, anim: &Markers, sounds: &Markers, series: [usize; 4], clips_h: i32) -> Self {
        let [bindings, states, ik, clip_lines] = series;
        let top = 56;
        let steps_y = top + 16;
        let bind_y = steps_y + steps.lane() + 14;
        let state_y = bind_y + BIND_H + 26;
        let state_h = (states.max(1) as i32) * LANE_H;
        let clips_y = state_y + state_h + 14;
        let anim_y = clips_y + clips_h;
        let sound_y = anim_y + anim.lane() + 14;
        let ik_y = sound_y + sounds.lane() + 20;
        let axis_y = ik_y + ik as i32 * LANE_H + 4;
        let legend_rows = bindings + states + ik + clip_lines + 19;
        let height = (axis_y + 34).max(top + 20 + legend_rows as i32 * 14);
        Layout { top, steps_y, bind_y, state_y, state_h, clips_y, anim_y, sound_y, ik_y, axis_y, height }
    }
}

/// The bindings panel with its grid (and a note when no binding has a
/// value), one lane per weight series with its label, and the lane titles.
fn draw_panels(cv: &mut Canvas, l: &Layout, bindings: &[(Series, f32, f32)], states: &[Series]) {
    cv.rect(LEFT, l.bind_y, PLOT_W + 1, BIND_H + 1, PANEL);
    for k in 0..=4 {
        cv.rect(LEFT, l.bind_y + BIND_H * k / 4, PLOT_W + 1, 1, GRID);
    }
    if bindings.iter().all(|(s, _, _)| s.values.iter().all(Option::is_none)) {
        let note = if bindings.is_empty() {
            "the preset sets no binding"
        } else {
            "no binding reaches a rig parameter (the binding profile and the graph disagree)"
        };
        cv.text(LEFT + 12, l.bind_y + BIND_H / 2 - 5, note, 2, MUTED);
    }
    for (j, s) in states.iter().enumerate() {
        let y = l.state_y + j as i32 * LANE_H;
        cv.rect(LEFT, y, PLOT_W + 1, LANE_H - 2, PANEL);
        let label: String = s.label.chars().take(34).collect();
        cv.text(LEFT - 6 - text_width(&label, 1), y + LANE_H / 2 - 3, &label, 1, INK);
    }
    cv.text(12, l.steps_y, "steps", 2, INK);
    cv.text(12, l.bind_y, "bindings", 2, INK);
    cv.text(12, l.bind_y + 16, "(own scale)", 1, MUTED);
    cv.text(12, l.state_y - 16, "weights (bar height 0..1)", 2, INK);
    cv.text(12, l.anim_y, "events", 2, INK);
}

/// The time grid through the panels and the seconds axis (ticks every 0.5,
/// 1 or 2 s by the capture's length).
fn draw_time_axis(cv: &mut Canvas, l: &Layout, axis: &TimeAxis) {
    let step_s = if axis.t_end > 12.0 {
        2.0
    } else if axis.t_end > 5.0 {
        1.0
    } else {
        0.5
    };
    let mut t = 0.0;
    while t <= axis.t_end + 1e-9 {
        let x = axis.x(t);
        cv.rect(x, l.bind_y, 1, BIND_H, GRID);
        cv.rect(x, l.state_y, 1, l.state_h, GRID);
        cv.rect(x, l.axis_y, 1, 5, INK);
        let label = format!("{}s", num(t as f32));
        cv.text(x - text_width(&label, 2) / 2, l.axis_y + 9, &label, 2, INK);
        t += step_s;
    }
    cv.rect(LEFT, l.axis_y, PLOT_W + 1, 1, INK);
}

/// The bindings as lines (each in its own range) and the weights as bars in their lanes.
fn draw_series(
    cv: &mut Canvas,
    c: &Capture,
    l: &Layout,
    axis: &TimeAxis,
    bindings: &[(Series, f32, f32)],
    states: &[Series],
) {
    for (s, lo, hi) in bindings {
        let mut prev: Option<(i32, i32)> = None;
        for (i, v) in s.values.iter().enumerate() {
            let Some(v) = v else {
                prev = None;
                continue;
            };
            let f = ((v - lo) / (hi - lo).max(1e-6)).clamp(0.0, 1.0);
            let p = (axis.x(c.ticks[i].time), l.bind_y + BIND_H - (f * BIND_H as f32).round() as i32);
            if let Some(q) = prev {
                cv.line(q.0, q.1, p.0, p.1, 2, s.color);
            } else {
                cv.rect(p.0 - 1, p.1 - 1, 2, 2, s.color);
            }
            prev = Some(p);
        }
    }
    for (j, s) in states.iter().enumerate() {
        let base = l.state_y + j as i32 * LANE_H + LANE_H - 3;
        for (i, v) in s.values.iter().enumerate() {
            let Some(w) = v.filter(|w| *w > 0.0) else { continue };
            let x0 = axis.x(c.ticks[i].time);
            let x1 = c.ticks.get(i + 1).map_or(x0 + 1, |t| axis.x(t.time)).max(x0 + 1);
            let h = ((w.min(1.0) * (LANE_H - 4) as f32).round() as i32).max(1);
            cv.rect(x0, base - h + 1, x1 - x0, h, s.color);
        }
    }
}

/// The legend right of the plot: bindings, state weights, the clip-time
/// lanes, the event kinds, the sound outcomes and the IK goals.
fn draw_legend(
    cv: &mut Canvas,
    l: &Layout,
    (bindings, states): (&[(Series, f32, f32)], &[Series]),
    clips: &[(String, u8)],
    ik: &[IkSeries],
) {
    let lx = LEFT + PLOT_W + 24;
    let mut ly = l.top;
    cv.frame(lx - 8, ly - 8, LEGEND_W - 8, l.height - ly - 4, GRID);
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
    legend(cv, "bindings", &b);
    let s: Vec<(&str, u8)> = states.iter().map(|s| (s.label.as_str(), s.color)).collect();
    legend(cv, "state weights", &s);
    if !clips.is_empty() {
        let k: Vec<(&str, u8)> = clips.iter().map(|(t, c)| (t.as_str(), *c)).collect();
        legend(cv, "clip time", &k);
    }
    legend(
        cv,
        "events",
        &[
            ("- - preset step", MUTED),
            ("clip notify", series_color(1)),
            ("state entered", series_color(2)),
            ("binding start / complete / cancel", series_color(3)),
            ("slot ended", series_color(4)),
        ],
    );
    legend(
        cv,
        "sounds (entry event / variant file)",
        &[
            ("voice started", SOUND_STARTED),
            ("no entry answers", SOUND_NO_MATCH),
            ("cooldown, throttle or cap", SOUND_REFUSED),
        ],
    );
    let mut goals: Vec<(&str, u8)> = ik.iter().map(|s| (s.label.as_str(), s.color)).collect();
    goals.push(("reach error", IK_ERROR));
    legend(cv, "ik goals", &goals);
}

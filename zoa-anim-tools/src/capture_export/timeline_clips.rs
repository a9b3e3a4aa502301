//! The timeline's clip-time lanes: one per sync group that synced (each
//! member state's phase as a line, thick while it leads, and a tick at the
//! top of the lane where its clip crossed a sync marker — the clip's first
//! marker tall, the others short — so feet put down together line up), and
//! one per notify window name (a bar from each begin to its end, capped dark
//! where the window was cut).
//!
//! ```text
//! sync feet      ▮    ▮          ▮    ▮        markers crossed
//!                 ╱╱   ╱╱  ╱╱   (phase 0..1 per member; thick = leader)
//! window mag_swap      ██████▌   (▌ = cut)
//! ```

use zoa_anim_runtime::character::EventKind;

use crate::preview::{Capture, NameId, Recorded, SyncRecord};

use super::raster::{Canvas, INK, PANEL, series_color, text_width};

/// Where the timeline's plot lies: its left edge and width, pixels, and
/// seconds to x.
pub(super) struct Plot<'a> {
    pub(super) left: i32,
    pub(super) width: i32,
    pub(super) x: &'a dyn Fn(f64) -> i32,
}

/// Height of a sync group's lane, pixels.
const SYNC_H: i32 = 46;
/// Height of a notify window's lane, pixels.
const WINDOW_H: i32 = 16;

/// One window's bar: begin and end time, and whether it was cut.
struct Bar {
    from: f64,
    to: f64,
    cut: bool,
}

/// The lanes of one capture.
pub(super) struct ClipLanes {
    /// Per group: its name and its member states with their colours.
    groups: Vec<(NameId, Vec<(NameId, u8)>)>,
    /// Per window name: its bars.
    windows: Vec<(NameId, Vec<Bar>)>,
}

impl ClipLanes {
    /// The lanes of `c`; colours continue from `first_color`.
    pub(super) fn new(c: &Capture, first_color: usize) -> ClipLanes {
        let mut groups: Vec<(NameId, Vec<(NameId, u8)>)> = Vec::new();
        let mut next = first_color;
        for r in &c.sync {
            let k = groups.iter().position(|g| g.0 == r.group).unwrap_or_else(|| {
                groups.push((r.group, Vec::new()));
                groups.len() - 1
            });
            if !groups[k].1.iter().any(|(s, _)| *s == r.state) {
                groups[k].1.push((r.state, series_color(next)));
                next += 1;
            }
        }
        ClipLanes { groups, windows: window_bars(c) }
    }

    /// Whether there is nothing to draw.
    pub(super) fn is_empty(&self) -> bool {
        self.groups.is_empty() && self.windows.is_empty()
    }

    /// Height of the lanes, pixels (0 when empty).
    pub(super) fn height(&self) -> i32 {
        if self.is_empty() {
            return 0;
        }
        self.groups.len() as i32 * SYNC_H + self.windows.len() as i32 * WINDOW_H + 28
    }

    /// Legend entries: each group member and each window.
    pub(super) fn legend(&self, c: &Capture) -> Vec<(String, u8)> {
        let mut out = Vec::new();
        for (g, members) in &self.groups {
            for (s, color) in members {
                out.push((format!("sync {}: {} (thick: leads)", c.name(*g), c.name(*s)), *color));
            }
        }
        for (k, (w, _)) in self.windows.iter().enumerate() {
            out.push((format!("window {} (dark end: cut)", c.name(*w)), window_color(k)));
        }
        out
    }

    /// Draws the lanes from `top`.
    pub(super) fn draw(&self, cv: &mut Canvas, c: &Capture, plot: &Plot<'_>, top: i32) {
        if self.is_empty() {
            return;
        }
        cv.text(12, top, "clip time", 2, INK);
        let mut y = top + 20;
        for (g, members) in &self.groups {
            cv.rect(plot.left, y, plot.width + 1, SYNC_H - 4, PANEL);
            let label = format!("sync {}", c.name(*g));
            cv.text(plot.left - 6 - text_width(&label, 1), y + SYNC_H / 2 - 6, &label, 1, INK);
            for (state, color) in members {
                let records: Vec<&SyncRecord> = c.sync.iter().filter(|r| r.group == *g && r.state == *state).collect();
                draw_member(cv, c, plot.x, &records, *color, y);
            }
            y += SYNC_H;
        }
        for (k, (w, bars)) in self.windows.iter().enumerate() {
            cv.rect(plot.left, y, plot.width + 1, WINDOW_H - 3, PANEL);
            let label = format!("window {}", c.name(*w));
            cv.text(plot.left - 6 - text_width(&label, 1), y + 2, &label, 1, INK);
            for b in bars {
                let (x0, x1) = ((plot.x)(b.from), (plot.x)(b.to).max((plot.x)(b.from) + 1));
                cv.rect(x0, y + 2, x1 - x0, WINDOW_H - 7, window_color(k));
                if b.cut {
                    cv.rect(x1 - 2, y, 2, WINDOW_H - 3, INK);
                }
            }
            y += WINDOW_H;
        }
    }
}

fn window_color(k: usize) -> u8 {
    series_color(k + 11)
}

/// One member's phase line (thick where it leads) and its marker crossings.
fn draw_member(cv: &mut Canvas, c: &Capture, x: &dyn Fn(f64) -> i32, records: &[&SyncRecord], color: u8, y: i32) {
    let h = SYNC_H - 14;
    let point = |r: &SyncRecord| {
        let x = x(c.ticks[r.tick as usize].time);
        (x, y + 10 + h - (r.phase.clamp(0.0, 1.0) * h as f32).round() as i32)
    };
    for pair in records.windows(2) {
        let (a, b) = (pair[0], pair[1]);
        if b.tick != a.tick + 1 {
            continue;
        }
        let (p, q) = (point(a), point(b));
        if b.phase >= a.phase {
            cv.line(p.0, p.1, q.0, q.1, if b.leader { 3 } else { 1 }, color);
        }
        // Markers of the clip crossed over the tick (its time wrapping at a loop).
        if a.clip != b.clip {
            continue;
        }
        let markers: Vec<_> = c.clip_markers.iter().filter(|m| m.clip == b.clip).collect();
        for (i, m) in markers.iter().enumerate() {
            let crossed = if b.clip_time >= a.clip_time {
                a.clip_time < m.time && m.time <= b.clip_time
            } else {
                a.clip_time < m.time || m.time <= b.clip_time
            };
            if crossed {
                cv.rect(q.0 - 1, y, 3, if i == 0 { 10 } else { 5 }, color);
            }
        }
    }
}

/// Each window name's bars, from the capture's begin and end events (a
/// window still open at the end runs to the end).
fn window_bars(c: &Capture) -> Vec<(NameId, Vec<Bar>)> {
    let end = c.ticks.last().map_or(0.0, |t| t.time);
    let mut lanes: Vec<(NameId, Vec<Bar>)> = Vec::new();
    let mut open: Vec<(EventKind, NameId, f64)> = Vec::new();
    let key = |k: &EventKind| match *k {
        EventKind::NotifyBegin { source, clip, notify } | EventKind::NotifyEnd { source, clip, notify, .. } => {
            Some((source, clip, notify))
        }
        _ => None,
    };
    let push =
        |lanes: &mut Vec<(NameId, Vec<Bar>)>, name: NameId, bar: Bar| match lanes.iter_mut().find(|l| l.0 == name) {
            Some(l) => l.1.push(bar),
            None => lanes.push((name, vec![bar])),
        };
    for e in &c.events {
        let Recorded::Event(kind) = e.kind else { continue };
        match kind {
            EventKind::NotifyBegin { .. } => open.push((kind, e.name, e.time)),
            EventKind::NotifyEnd { interrupted, .. } => {
                if let Some(k) = open.iter().position(|o| key(&o.0) == key(&kind)) {
                    let (_, name, from) = open.remove(k);
                    push(&mut lanes, name, Bar { from, to: e.time, cut: interrupted });
                }
            }
            _ => {}
        }
    }
    for (_, name, from) in open {
        push(&mut lanes, name, Bar { from, to: end, cut: false });
    }
    lanes
}

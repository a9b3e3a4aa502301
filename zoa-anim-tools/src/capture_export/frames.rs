//! `frames.png`: a strip of stick figures of the skeleton at evenly spaced
//! ticks. Model-space joints are centred on the root joint's ground position
//! (so root motion does not walk the figure out of its cell), turned 30°
//! about +Y for a three-quarter view, and projected orthographically; bones
//! are lines from each joint to its parent, left limbs blue, right limbs red.
//! One scale for every cell, so sizes compare across frames.

use crate::preview::Capture;

use super::raster::{Canvas, GRID, INK, MUTED, PANEL, text_width};

/// Width of one frame cell, pixels.
pub(crate) const FRAME_WIDTH: i32 = 200;
/// Height of the image, pixels (title band plus cells).
pub(crate) const FRAME_HEIGHT: i32 = 340;
/// Most frames in the strip.
pub(crate) const MAX_FRAMES: usize = 8;
const TITLE_H: i32 = 34;
const LABEL_H: i32 = 40;

const LEFT_COLOR: u8 = 15;
const RIGHT_COLOR: u8 = 18;

/// Ticks shown: `min(MAX_FRAMES, ticks)` evenly spaced, first and last included.
pub(crate) fn frame_ticks(ticks: usize) -> Vec<usize> {
    let k = ticks.min(MAX_FRAMES);
    match k {
        0 => Vec::new(),
        1 => vec![0],
        _ => (0..k).map(|i| ((i * (ticks - 1)) as f64 / (k - 1) as f64).round() as usize).collect(),
    }
}

/// Renders the stick-figure strip of `c` as PNG bytes.
pub(crate) fn frames_png(c: &Capture) -> Vec<u8> {
    let picks = frame_ticks(c.ticks.len());
    let cells = picks.len().max(1) as i32;
    let mut cv = Canvas::new(cells * FRAME_WIDTH, FRAME_HEIGHT, 0);
    cv.text(10, 10, &format!("{}  -  stick figures, 3/4 view, root-centred", c.preset), 2, INK);
    let joints = c.joint_count();
    if picks.is_empty() || joints == 0 {
        cv.text(10, TITLE_H + 20, "no ticks or no joints to draw", 2, MUTED);
        return cv.to_png();
    }
    let root = c.joint_parents.iter().position(Option::is_none).unwrap_or(0);
    let (s, co) = (30f32.to_radians().sin(), 30f32.to_radians().cos());
    let project = |tick: usize| -> Vec<(f32, f32)> {
        let js = c.tick_joints(tick);
        let r = js[root];
        js.iter().map(|p| ((p[0] - r[0]) * co + (p[2] - r[2]) * s, p[1])).collect()
    };
    let projected: Vec<Vec<(f32, f32)>> = picks.iter().map(|&t| project(t)).collect();
    let (mut x0, mut x1, mut y0, mut y1) = (f32::MAX, f32::MIN, f32::MAX, f32::MIN);
    for p in projected.iter().flatten() {
        x0 = x0.min(p.0);
        x1 = x1.max(p.0);
        y0 = y0.min(p.1);
        y1 = y1.max(p.1);
    }
    let half_w = x0.abs().max(x1.abs()).max(1e-6);
    let span_y = (y1 - y0).max(1e-6);
    let area_h = (FRAME_HEIGHT - TITLE_H - LABEL_H - 20) as f32;
    let scale = ((FRAME_WIDTH as f32 - 30.0) / (2.0 * half_w)).min(area_h / span_y);
    let bottom = FRAME_HEIGHT - LABEL_H - 10;
    let side = |j: usize| {
        let name = c.joint_names.get(j).map(|n| c.name(*n).to_ascii_lowercase()).unwrap_or_default();
        if name.contains("left") {
            LEFT_COLOR
        } else if name.contains("right") {
            RIGHT_COLOR
        } else {
            INK
        }
    };
    for (k, (&tick, pts)) in picks.iter().zip(&projected).enumerate() {
        let ox = k as i32 * FRAME_WIDTH;
        cv.rect(ox + 4, TITLE_H, FRAME_WIDTH - 8, FRAME_HEIGHT - TITLE_H - 4, PANEL);
        let cx = ox + FRAME_WIDTH / 2;
        let to_px = |p: (f32, f32)| (cx + (p.0 * scale).round() as i32, bottom - ((p.1 - y0) * scale).round() as i32);
        // Ground at the lowest point of the strip.
        cv.rect(ox + 14, bottom + 1, FRAME_WIDTH - 28, 1, GRID);
        for j in 0..joints {
            if let Some(p) = c.joint_parents[j] {
                let (a, b) = (to_px(pts[j]), to_px(pts[usize::from(p)]));
                cv.line(a.0, a.1, b.0, b.1, 2, side(j));
            }
        }
        for (j, p) in pts.iter().enumerate() {
            let q = to_px(*p);
            cv.dot(q.0, q.1, if j == root { 3 } else { 1 }, side(j));
        }
        let t = &c.ticks[tick];
        let top_state = c
            .tick_states(tick)
            .iter()
            .filter(|s| s.layer == c.tick_states(tick).first().map_or(s.layer, |f| f.layer))
            .max_by(|a, b| a.weight.total_cmp(&b.weight))
            .map(|s| c.name(s.state).to_owned())
            .unwrap_or_default();
        let label = format!("t {:.2} s  step {}", t.time, t.step);
        cv.text(cx - text_width(&label, 1) / 2, bottom + 10, &label, 1, INK);
        let state: String = top_state.chars().take(30).collect();
        cv.text(cx - text_width(&state, 1) / 2, bottom + 24, &state, 1, MUTED);
    }
    cv.to_png()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_are_evenly_spaced_and_include_both_ends() {
        assert_eq!(frame_ticks(0), Vec::<usize>::new());
        assert_eq!(frame_ticks(1), vec![0]);
        assert_eq!(frame_ticks(3), vec![0, 1, 2]);
        assert_eq!(frame_ticks(15), vec![0, 2, 4, 6, 8, 10, 12, 14]);
        assert_eq!(frame_ticks(100).last(), Some(&99));
    }
}

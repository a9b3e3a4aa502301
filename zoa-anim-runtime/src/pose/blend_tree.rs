//! Blend trees: child weights from parameters, and the shared normalized
//! clock that keeps children of different lengths in step.
//!
//! # Terminology
//! - *1D*: children sorted by threshold; the two neighbours of the parameter
//!   cross-fade linearly, clamped to the first / last child outside the range.
//! - *2D inverse distance*: `wᵢ ∝ 1 / dᵢ^power` of the distance from
//!   `(parameter, parameterY)` to each child; exactly at a child, that child
//!   alone. Simple, but far children always keep some weight. A power other
//!   than 1 is computed as `(d_min / dᵢ)^power` (the nearest child 1, every
//!   term in `[0, 1]`), so a large power neither overflows nor turns the
//!   weights into NaN.
//! - *2D gradient band* (Johansen 2009, Unity's "Freeform Cartesian"):
//!   `hᵢ = max(0, min_{j≠i} 1 − (p − pᵢ)·(pⱼ − pᵢ) / |pⱼ − pᵢ|²)`, normalized;
//!   a child's influence ends at its neighbours, so nothing leaks.
//! - *direct*: explicit weights normalized to sum to 1.
//! - *normalized clock*: one phase in `[0, 1)` for all children; child `i`
//!   samples at `phase · dᵢ`, and the phase advances by `dt / Σ wᵢ·dᵢ`.

use crate::error::RuntimeError;
use crate::pose::math::wrap_time;

pub use zoa_anim_core::graph::Weighting2D;

/// Kind of a blend tree.
#[derive(Debug, Clone, PartialEq)]
pub enum CompiledBlendTreeKind {
    /// Linear between neighbours sorted by threshold.
    OneD,
    /// Two parameters.
    TwoD(Weighting2D),
    /// Explicit weights, normalized.
    Direct,
}

/// A blend tree's weighting rule over its children's positions.
#[derive(Debug, Clone, PartialEq)]
pub struct CompiledBlendTree {
    kind: CompiledBlendTreeKind,
    /// `(threshold, thresholdY)` per child, in child order.
    points: Vec<[f32; 2]>,
    /// 1D: child indices sorted by threshold (stable).
    sorted: Vec<usize>,
    /// Direct: explicit weights per child (>= 0).
    explicit: Vec<f32>,
    /// Gradient band: for each child `i`, the vectors `(pⱼ − pᵢ) / |pⱼ − pᵢ|²`
    /// of its *band neighbours* only (see [`band_neighbours`]), child `i`'s
    /// at `bands[band_start[i]..band_start[i + 1]]`; computed once, so an
    /// update divides nothing and visits a few neighbours per child, not all.
    bands: Vec<[f32; 2]>,
    /// Gradient band: where each child's neighbours start in `bands` (`n + 1` entries).
    band_start: Vec<u32>,
}

/// The most children a tree may have: the budget
/// [`zoa_anim_core::budget::BLEND_TREE_CHILDREN`], shared with `validate`.
fn check_children(n: usize) -> Result<(), RuntimeError> {
    zoa_anim_core::budget::BLEND_TREE_CHILDREN
        .check("a blend tree", n as u64)
        .map_err(|e| RuntimeError::InvalidBlendTree(e.to_string()))
}

/// The band neighbours of child `i` among `points`: the children `j` whose
/// band vector `bⱼ = (pⱼ − pᵢ) / |pⱼ − pᵢ|²` is a vertex of the convex hull of
/// every `bₖ` (k ≠ i). A child's gradient-band weight is
/// `1 − max(0, maxⱼ v·bⱼ)` with `v = p − pᵢ`, and a linear function's maximum
/// over a set of points is reached at a vertex of their hull, so the weight
/// over these neighbours equals the weight over every child (up to rounding
/// in the last bit). The map `e ↦ e / |e|²` is the inversion about `pᵢ`,
/// under which the hull vertices are `pᵢ`'s Delaunay neighbours and a few
/// outer children: about six per child, so evaluation is linear in the
/// children while this set-up is `O(n² log n)` once per tree.
fn band_neighbours(points: &[[f32; 2]], i: usize, scratch: &mut Vec<(f64, f64, [f32; 2])>) -> Vec<[f32; 2]> {
    let pi = points[i];
    scratch.clear();
    for (j, pj) in points.iter().enumerate() {
        if j != i {
            let (ex, ey) = (pj[0] - pi[0], pj[1] - pi[1]);
            let len2 = ex * ex + ey * ey;
            // Distinct points: len2 > 0 unless it underflows (then no band).
            let band = if len2 > 0.0 { [ex / len2, ey / len2] } else { [0.0; 2] };
            scratch.push((f64::from(band[0]), f64::from(band[1]), band));
        }
    }
    if scratch.len() <= 3 {
        return scratch.iter().map(|b| b.2).collect();
    }
    // Andrew's monotone chain in f64, collinear points dropped.
    scratch.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
    let cross = |o: &(f64, f64, [f32; 2]), a: &(f64, f64, [f32; 2]), b: &(f64, f64, [f32; 2])| {
        (a.0 - o.0) * (b.1 - o.1) - (a.1 - o.1) * (b.0 - o.0)
    };
    let mut hull: Vec<usize> = Vec::with_capacity(16);
    let n = scratch.len();
    let turns_right = |hull: &[usize], k: usize| {
        let m = hull.len();
        cross(&scratch[hull[m - 2]], &scratch[hull[m - 1]], &scratch[k]) <= 0.0
    };
    // Lower chain left to right, then the upper chain right to left (never
    // popping into the lower one); the last point repeats the first.
    for k in 0..n {
        while hull.len() >= 2 && turns_right(&hull, k) {
            hull.pop();
        }
        hull.push(k);
    }
    let lower = hull.len() + 1;
    for k in (0..n - 1).rev() {
        while hull.len() >= lower && turns_right(&hull, k) {
            hull.pop();
        }
        hull.push(k);
    }
    hull.pop();
    hull.sort_unstable();
    hull.dedup();
    hull.into_iter().map(|k| scratch[k].2).collect()
}

impl CompiledBlendTree {
    /// A 1D tree over child thresholds (at least 2, finite).
    pub fn one_d(thresholds: &[f32]) -> Result<CompiledBlendTree, RuntimeError> {
        check_children(thresholds.len())?;
        if thresholds.len() < 2 {
            return Err(RuntimeError::InvalidBlendTree(format!(
                "a 1D tree needs 2 children, got {}",
                thresholds.len()
            )));
        }
        if let Some(i) = thresholds.iter().position(|t| !t.is_finite()) {
            return Err(RuntimeError::InvalidBlendTree(format!("child {i} threshold is not finite")));
        }
        let mut sorted: Vec<usize> = (0..thresholds.len()).collect();
        sorted.sort_by(|&a, &b| thresholds[a].total_cmp(&thresholds[b]));
        Ok(CompiledBlendTree {
            kind: CompiledBlendTreeKind::OneD,
            points: thresholds.iter().map(|&t| [t, 0.0]).collect(),
            sorted,
            explicit: Vec::new(),
            bands: Vec::new(),
            band_start: Vec::new(),
        })
    }

    /// A 2D tree over child positions (at least 1, finite, distinct).
    pub fn two_d(points: &[[f32; 2]], weighting: Weighting2D) -> Result<CompiledBlendTree, RuntimeError> {
        if points.is_empty() {
            return Err(RuntimeError::InvalidBlendTree("a 2D tree needs at least one child".into()));
        }
        check_children(points.len())?;
        if let Some(i) = points.iter().position(|p| !p[0].is_finite() || !p[1].is_finite()) {
            return Err(RuntimeError::InvalidBlendTree(format!("child {i} position is not finite")));
        }
        // Two children at one position (−0 is 0): sorted, so neighbours in the order.
        let key = |i: usize| (points[i][0] + 0.0, points[i][1] + 0.0);
        let mut order: Vec<usize> = (0..points.len()).collect();
        order.sort_by(|&a, &b| {
            let (ka, kb) = (key(a), key(b));
            ka.0.total_cmp(&kb.0).then(ka.1.total_cmp(&kb.1)).then(a.cmp(&b))
        });
        if let Some(w) = order.windows(2).find(|w| key(w[0]) == key(w[1])) {
            let (i, j) = (w[0].min(w[1]), w[0].max(w[1]));
            return Err(RuntimeError::InvalidBlendTree(format!("children {i} and {j} share position {:?}", points[i])));
        }
        if let Weighting2D::InverseDistance { power } = weighting
            && !(power > 0.0 && power.is_finite())
        {
            return Err(RuntimeError::InvalidBlendTree(format!("inverse-distance power {power} must be > 0")));
        }
        let mut bands = Vec::new();
        let mut band_start = Vec::new();
        if weighting == Weighting2D::GradientBand {
            let mut scratch = Vec::with_capacity(points.len());
            band_start.reserve(points.len() + 1);
            for i in 0..points.len() {
                band_start.push(bands.len() as u32);
                bands.extend(band_neighbours(points, i, &mut scratch));
            }
            band_start.push(bands.len() as u32);
        }
        Ok(CompiledBlendTree {
            kind: CompiledBlendTreeKind::TwoD(weighting),
            points: points.to_vec(),
            sorted: Vec::new(),
            explicit: Vec::new(),
            bands,
            band_start,
        })
    }

    /// A direct tree with explicit, non-negative weights (at least 1 child).
    pub fn direct(weights: &[f32]) -> Result<CompiledBlendTree, RuntimeError> {
        if weights.is_empty() {
            return Err(RuntimeError::InvalidBlendTree("a direct tree needs at least one child".into()));
        }
        check_children(weights.len())?;
        let mut tree = CompiledBlendTree {
            kind: CompiledBlendTreeKind::Direct,
            points: vec![[0.0; 2]; weights.len()],
            sorted: Vec::new(),
            explicit: vec![0.0; weights.len()],
            bands: Vec::new(),
            band_start: Vec::new(),
        };
        for (i, &w) in weights.iter().enumerate() {
            tree.set_explicit_weight(i, w)?;
        }
        Ok(tree)
    }

    /// Sets a direct tree's explicit weight of child `i` (`>= 0`, finite).
    pub fn set_explicit_weight(&mut self, i: usize, w: f32) -> Result<(), RuntimeError> {
        if !(w >= 0.0 && w.is_finite()) {
            return Err(RuntimeError::InvalidBlendTree(format!("child {i} weight {w} must be finite and >= 0")));
        }
        match self.explicit.get_mut(i) {
            Some(slot) => {
                *slot = w;
                Ok(())
            }
            None => Err(RuntimeError::InvalidBlendTree(format!("no direct child {i}"))),
        }
    }

    /// The tree kind.
    #[must_use]
    pub fn kind(&self) -> &CompiledBlendTreeKind {
        &self.kind
    }
    /// Starts loading the tree's arrays into cache (see [`crate::pose::simd::prefetch`]).
    pub(crate) fn prefetch(&self) {
        crate::pose::simd::prefetch(&self.points, usize::MAX);
        crate::pose::simd::prefetch(&self.sorted, usize::MAX);
        crate::pose::simd::prefetch(&self.bands, usize::MAX);
    }
    /// Number of children.
    #[must_use]
    pub fn child_count(&self) -> usize {
        self.points.len()
    }

    /// Child weights at `(x, y)` into `out` (one per child, summing to 1, or
    /// all 0 for a direct tree whose explicit weights are all 0). `y` is
    /// ignored by 1D and direct trees. Does not allocate.
    ///
    /// # Panics
    /// When `out.len()` differs from [`CompiledBlendTree::child_count`].
    pub fn weights(&self, x: f32, y: f32, out: &mut [f32]) {
        assert_eq!(out.len(), self.points.len(), "one weight per child");
        out.fill(0.0);
        match &self.kind {
            CompiledBlendTreeKind::OneD => {
                let s = &self.sorted;
                let t = |k: usize| self.points[s[k]][0];
                let last = s.len() - 1;
                if x <= t(0) || x.is_nan() {
                    out[s[0]] = 1.0;
                } else if x >= t(last) {
                    out[s[last]] = 1.0;
                } else {
                    // t(k) < x < t(last): find the segment with t(k) <= x < t(k+1).
                    let k = (0..last).rfind(|&k| t(k) <= x).unwrap_or(0);
                    let (a, b) = (t(k), t(k + 1));
                    let f = (x - a) / (b - a);
                    out[s[k]] = 1.0 - f;
                    out[s[k + 1]] = f;
                }
            }
            CompiledBlendTreeKind::TwoD(Weighting2D::InverseDistance { power }) => {
                // Nearest distance first: exactly at a child, that child alone.
                let dist = |p: &[f32; 2]| ((x - p[0]).powi(2) + (y - p[1]).powi(2)).sqrt();
                let (near, d_min) = self
                    .points
                    .iter()
                    .map(dist)
                    .enumerate()
                    .fold((0, f32::INFINITY), |best, (i, d)| if d < best.1 { (i, d) } else { best });
                if d_min <= 1e-6 || !d_min.is_finite() {
                    // At a child, or a NaN / infinite position: the nearest child alone.
                    out[near] = 1.0;
                    return;
                }
                let mut sum = 0.0;
                for (o, p) in out.iter_mut().zip(&self.points) {
                    // Power 1: plain 1/d (d > 1e-6, so at most 1e6). Other powers
                    // relative to the nearest child, every term in [0, 1].
                    let w = if *power == 1.0 { 1.0 / dist(p) } else { (d_min / dist(p)).powf(*power) };
                    *o = w;
                    sum += w;
                }
                // sum > 0: the nearest child's term is positive.
                out.iter_mut().for_each(|w| *w /= sum);
            }
            CompiledBlendTreeKind::TwoD(Weighting2D::GradientBand) => {
                // A NaN / infinite position: the nearest child; exactly at a
                // child: that child alone (the bands would leave ulp-sized
                // weights on its neighbours).
                if !(x.is_finite() && y.is_finite()) || self.points.iter().any(|p| p[0] == x && p[1] == y) {
                    out[nearest(&self.points, x, y)] = 1.0;
                    return;
                }
                let mut sum = 0.0;
                for (i, (o, &pi)) in out.iter_mut().zip(&self.points).enumerate() {
                    let (vx, vy) = (x - pi[0], y - pi[1]);
                    let mut h = 1.0f32;
                    let own = self.band_start[i] as usize..self.band_start[i + 1] as usize;
                    for band in &self.bands[own] {
                        // band = (pⱼ − pᵢ) / |pⱼ − pᵢ|² of a band neighbour j
                        h = h.min(1.0 - (vx * band[0] + vy * band[1]));
                    }
                    let h = h.max(0.0);
                    *o = h;
                    sum += h;
                }
                // The nearest child always has h >= 1/2, so sum > 0 for a finite position.
                if sum > 0.0 {
                    out.iter_mut().for_each(|w| *w /= sum);
                } else {
                    out.fill(0.0);
                    out[nearest(&self.points, x, y)] = 1.0;
                }
            }
            CompiledBlendTreeKind::Direct => {
                let sum: f32 = self.explicit.iter().sum();
                if sum > 0.0 {
                    for (o, w) in out.iter_mut().zip(&self.explicit) {
                        *o = w / sum;
                    }
                }
            }
        }
    }
}

fn nearest(points: &[[f32; 2]], x: f32, y: f32) -> usize {
    let d = |p: &[f32; 2]| (x - p[0]).powi(2) + (y - p[1]).powi(2);
    (0..points.len()).min_by(|&a, &b| d(&points[a]).total_cmp(&d(&points[b]))).unwrap_or(0)
}

/// The shared normalized clock of a blend tree's children.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct SyncClock {
    /// Phase in `[0, 1)` (looping) or `[0, 1]` (one-shot).
    pub phase: f32,
}

impl SyncClock {
    /// Blended cycle length `Σ wᵢ·dᵢ`, seconds.
    pub fn cycle_length(weights: &[f32], durations: impl IntoIterator<Item = f32>) -> f32 {
        weights.iter().zip(durations).map(|(w, d)| w * d).sum()
    }

    /// Advances by `dt` seconds (negative runs backwards) over a cycle of
    /// `cycle_length` seconds; a zero cycle leaves the phase alone.
    pub fn advance(&mut self, dt: f32, cycle_length: f32, looping: bool) {
        if cycle_length > 0.0 && dt.is_finite() {
            let p = self.phase + dt / cycle_length;
            self.phase = if looping { wrap_time(p, 1.0) } else { p.clamp(0.0, 1.0) };
        }
    }

    /// Clip time of a child of length `duration`.
    #[must_use]
    pub fn child_time(&self, duration: f32) -> f32 {
        self.phase * duration
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn w(tree: &CompiledBlendTree, x: f32, y: f32) -> Vec<f32> {
        let mut out = vec![0.0; tree.child_count()];
        tree.weights(x, y, &mut out);
        out
    }

    #[test]
    fn one_d_uses_sorted_neighbours_and_clamps() {
        let t = CompiledBlendTree::one_d(&[4.0, 0.0, 1.0]).unwrap(); // run, idle, walk
        assert_eq!(w(&t, -1.0, 0.0), [0.0, 1.0, 0.0]);
        assert_eq!(w(&t, 0.5, 0.0), [0.0, 0.5, 0.5]);
        assert_eq!(w(&t, 1.0, 0.0), [0.0, 0.0, 1.0]);
        assert_eq!(w(&t, 2.5, 0.0), [0.5, 0.0, 0.5]);
        assert_eq!(w(&t, 9.0, 0.0), [1.0, 0.0, 0.0]);
        assert!(CompiledBlendTree::one_d(&[1.0]).is_err());
    }

    #[test]
    fn two_d_inverse_distance() {
        let t = CompiledBlendTree::two_d(
            &[[0.0, 0.0], [2.0, 0.0], [0.0, 4.0]],
            Weighting2D::InverseDistance { power: 1.0 },
        )
        .unwrap();
        assert_eq!(w(&t, 2.0, 0.0), [0.0, 1.0, 0.0]);
        let got = w(&t, 1.0, 0.0); // distances 1, 1, sqrt(17)
        let inv = [1.0, 1.0, 1.0 / 17f32.sqrt()];
        let s: f32 = inv.iter().sum();
        for i in 0..3 {
            assert!((got[i] - inv[i] / s).abs() < 1e-6);
        }
    }

    #[test]
    fn gradient_band_is_local_and_normalized() {
        let pts = [[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [0.0, -1.0]];
        let t = CompiledBlendTree::two_d(&pts, Weighting2D::GradientBand).unwrap();
        assert_eq!(w(&t, 1.0, 0.0), [0.0, 1.0, 0.0, 0.0, 0.0]);
        let half = w(&t, 0.5, 0.0);
        assert!((half[0] - 0.5).abs() < 1e-6 && (half[1] - 0.5).abs() < 1e-6, "{half:?}");
        assert_eq!(half[2] + half[3] + half[4], 0.0, "no leak to far children");
        let off = w(&t, 0.3, 0.4);
        assert!((off.iter().sum::<f32>() - 1.0).abs() < 1e-6);
        assert!(CompiledBlendTree::two_d(&[[0.0, 0.0], [0.0, 0.0]], Weighting2D::GradientBand).is_err());
    }

    fn assert_close(got: &[f32], want: &[f32], tol: f32) {
        assert_eq!(got.len(), want.len());
        for (g, w) in got.iter().zip(want) {
            assert!((g - w).abs() <= tol, "{got:?} vs {want:?}");
        }
    }

    #[test]
    fn inverse_distance_power_weights_by_one_over_d_to_the_power() {
        let pts = [[0.0, 0.0], [2.0, 0.0], [0.0, 4.0]];
        for power in [0.5f32, 1.0, 2.0, 3.5] {
            let t = CompiledBlendTree::two_d(&pts, Weighting2D::InverseDistance { power }).unwrap();
            // Distances from (1, 0): 1, 1, sqrt(17).
            let inv = [1.0, 1.0, 17f32.sqrt().powf(-power)];
            let s: f32 = inv.iter().sum();
            assert_close(&w(&t, 1.0, 0.0), &inv.map(|v| v / s), 1e-6);
            // Exact at every child.
            for (i, p) in pts.iter().enumerate() {
                let mut one_hot = [0.0; 3];
                one_hot[i] = 1.0;
                assert_eq!(w(&t, p[0], p[1]), one_hot);
            }
        }
        // A larger power favours the nearest child more.
        let near = |power| {
            let t = CompiledBlendTree::two_d(&pts, Weighting2D::InverseDistance { power }).unwrap();
            w(&t, 0.5, 0.0)[0]
        };
        assert!(near(1.0) < near(2.0) && near(2.0) < near(6.0));
        // Bad powers are refused.
        for power in [0.0, -1.0, f32::NAN, f32::INFINITY] {
            assert!(CompiledBlendTree::two_d(&pts, Weighting2D::InverseDistance { power }).is_err(), "{power}");
        }
    }

    #[test]
    fn inverse_distance_with_a_large_power_stays_finite() {
        // 1e-5^-40 overflows f32: the weights are taken relative to the nearest child.
        let t =
            CompiledBlendTree::two_d(&[[0.0, 0.0], [1.0, 0.0]], Weighting2D::InverseDistance { power: 40.0 }).unwrap();
        let got = w(&t, 1e-5, 0.0);
        assert!(got.iter().all(|v| v.is_finite()), "{got:?}");
        assert_eq!(got, [1.0, 0.0]);
        let mid = w(&t, 0.5, 0.0);
        assert_eq!(mid, [0.5, 0.5]);
        // A NaN position: the first child alone, never NaN weights.
        assert_eq!(w(&t, f32::NAN, 0.0), [1.0, 0.0]);
    }

    #[test]
    fn gradient_band_is_linear_between_two_children_and_symmetric_on_a_square() {
        let t = CompiledBlendTree::two_d(&[[0.0, 0.0], [2.0, 0.0]], Weighting2D::GradientBand).unwrap();
        for k in 0..=8 {
            let x = k as f32 * 0.25;
            let f = x / 2.0;
            assert_close(&w(&t, x, 0.0), &[1.0 - f, f], 1e-6);
            // Off the line: the projection onto it decides (bands are perpendicular to the segment).
            assert_close(&w(&t, x, 3.0), &[1.0 - f, f], 1e-6);
        }
        // Beyond an end: that child alone.
        assert_eq!(w(&t, -1.0, 0.0), [1.0, 0.0]);
        assert_eq!(w(&t, 5.0, 0.0), [0.0, 1.0]);
        // Four corners of a square: the centre weights them equally, and
        // mirroring the query mirrors the weights.
        let sq = [[-1.0, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, 1.0]];
        let t = CompiledBlendTree::two_d(&sq, Weighting2D::GradientBand).unwrap();
        assert_close(&w(&t, 0.0, 0.0), &[0.25; 4], 1e-6);
        let a = w(&t, 0.3, -0.6);
        let mirrored = w(&t, -0.3, -0.6); // x → −x swaps corners 0↔1 and 2↔3
        assert_close(&mirrored, &[a[1], a[0], a[3], a[2]], 1e-6);
        for (i, p) in sq.iter().enumerate() {
            let mut one_hot = [0.0; 4];
            one_hot[i] = 1.0;
            assert_eq!(w(&t, p[0], p[1]), one_hot, "exact at child {i}");
        }
    }

    /// The gradient-band weights over every pair, as the definition says.
    fn brute_force_bands(points: &[[f32; 2]], x: f32, y: f32) -> Vec<f32> {
        let mut h: Vec<f32> = points
            .iter()
            .enumerate()
            .map(|(i, pi)| {
                let mut h = 1.0f32;
                for (j, pj) in points.iter().enumerate() {
                    if j != i {
                        let (ex, ey) = (pj[0] - pi[0], pj[1] - pi[1]);
                        let len2 = ex * ex + ey * ey;
                        h = h.min(1.0 - ((x - pi[0]) * ex / len2 + (y - pi[1]) * ey / len2));
                    }
                }
                h.max(0.0)
            })
            .collect();
        let sum: f32 = h.iter().sum();
        h.iter_mut().for_each(|w| *w /= sum);
        h
    }

    #[test]
    fn gradient_bands_over_neighbours_equal_bands_over_every_child() {
        // A jittered grid (no three children collinear by accident) and a ring.
        let mut points = Vec::new();
        for i in 0..12 {
            for j in 0..12 {
                let jitter = ((i * 7 + j * 13) % 11) as f32 * 0.013;
                points.push([i as f32 + jitter, j as f32 - jitter * 0.5]);
            }
        }
        for k in 0..24 {
            let a = k as f32 * std::f32::consts::TAU / 24.0;
            points.push([5.5 + 9.0 * a.cos(), 5.5 + 9.0 * a.sin()]);
        }
        let t = CompiledBlendTree::two_d(&points, Weighting2D::GradientBand).unwrap();
        let mean = t.bands.len() as f32 / points.len() as f32;
        assert!(mean < 12.0, "a few band neighbours per child, not all: {mean}");
        for q in 0..200 {
            let (x, y) = ((q * 37 % 160) as f32 * 0.1 - 2.0, (q * 53 % 170) as f32 * 0.1 - 2.5);
            assert_close(&w(&t, x, y), &brute_force_bands(&points, x, y), 2e-5);
        }
    }

    #[test]
    fn trees_over_the_children_budget_are_refused_at_set_up() {
        let max = zoa_anim_core::budget::BLEND_TREE_CHILDREN.max as usize;
        let points: Vec<[f32; 2]> = (0..=max).map(|i| [i as f32, (i % 7) as f32]).collect();
        let e = CompiledBlendTree::two_d(&points, Weighting2D::GradientBand).unwrap_err().to_string();
        assert!(e.contains("blend_tree.children") && e.contains("4097"), "{e}");
        assert!(CompiledBlendTree::one_d(&vec![0.0; max + 1]).is_err());
        assert!(CompiledBlendTree::direct(&vec![1.0; max + 1]).is_err());
        // At the budget: set up once, then each evaluation visits a few neighbours per child.
        let t = CompiledBlendTree::two_d(&points[..max], Weighting2D::GradientBand).unwrap();
        assert!(t.bands.len() < 16 * max, "{}", t.bands.len());
    }

    fn weighting() -> impl Strategy<Value = Weighting2D> {
        prop_oneof![
            Just(Weighting2D::GradientBand),
            (0.1f32..8.0).prop_map(|power| Weighting2D::InverseDistance { power }),
        ]
    }

    /// 1 to 8 distinct positions on a 0.25 grid in [-4, 4]² (what authored trees look like).
    fn positions() -> impl Strategy<Value = Vec<[f32; 2]>> {
        proptest::collection::btree_set((-16i32..=16, -16i32..=16), 1..=8)
            .prop_map(|s| s.into_iter().map(|(x, y)| [x as f32 * 0.25, y as f32 * 0.25]).collect())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        #[test]
        fn two_d_weights_are_a_partition_of_unity(
            pts in positions(),
            weighting in weighting(),
            x in -10.0f32..10.0,
            y in -10.0f32..10.0,
        ) {
            let t = CompiledBlendTree::two_d(&pts, weighting).unwrap();
            let got = w(&t, x, y);
            prop_assert!(got.iter().all(|v| v.is_finite() && *v >= 0.0 && *v <= 1.0), "{got:?}");
            prop_assert!((got.iter().sum::<f32>() - 1.0).abs() < 1e-5, "{got:?}");
            // Exact at every child's own position.
            for (i, p) in pts.iter().enumerate() {
                let at = w(&t, p[0], p[1]);
                for (j, v) in at.iter().enumerate() {
                    prop_assert_eq!(*v, if i == j { 1.0 } else { 0.0 }, "child {} at {:?}: {:?}", i, p, at);
                }
            }
        }

        #[test]
        fn gradient_band_neighbours_give_the_weights_of_every_pair(
            pts in positions(),
            x in -10.0f32..10.0,
            y in -10.0f32..10.0,
        ) {
            let t = CompiledBlendTree::two_d(&pts, Weighting2D::GradientBand).unwrap();
            if !pts.iter().any(|p| p[0] == x && p[1] == y) {
                let want = brute_force_bands(&pts, x, y);
                let got = w(&t, x, y);
                for (g, v) in got.iter().zip(&want) {
                    prop_assert!((g - v).abs() <= 1e-4, "{got:?} vs {want:?}");
                }
            }
        }

        #[test]
        fn two_d_weights_follow_a_mirrored_layout(
            pts in positions(),
            weighting in weighting(),
            x in -10.0f32..10.0,
            y in -10.0f32..10.0,
        ) {
            // Mirroring the positions and the query in x mirrors nothing else.
            let mirrored: Vec<[f32; 2]> = pts.iter().map(|p| [-p[0], p[1]]).collect();
            let a = w(&CompiledBlendTree::two_d(&pts, weighting).unwrap(), x, y);
            let b = w(&CompiledBlendTree::two_d(&mirrored, weighting).unwrap(), -x, y);
            for (u, v) in a.iter().zip(&b) {
                prop_assert!((u - v).abs() < 1e-5, "{a:?} vs {b:?}");
            }
        }
    }

    #[test]
    fn direct_normalizes() {
        let mut t = CompiledBlendTree::direct(&[1.0, 3.0]).unwrap();
        assert_eq!(w(&t, 0.0, 0.0), [0.25, 0.75]);
        t.set_explicit_weight(1, 0.0).unwrap();
        assert_eq!(w(&t, 0.0, 0.0), [1.0, 0.0]);
        assert!(t.set_explicit_weight(0, -1.0).is_err());
    }

    #[test]
    fn sync_clock_uses_the_blended_cycle() {
        let weights = [0.5, 0.5];
        let l = SyncClock::cycle_length(&weights, [1.0, 0.5]);
        assert_eq!(l, 0.75);
        let mut c = SyncClock::default();
        c.advance(0.375, l, true);
        assert_eq!(c.phase, 0.5);
        assert_eq!(c.child_time(1.0), 0.5);
        assert_eq!(c.child_time(0.5), 0.25);
        c.advance(0.75, l, true);
        assert_eq!(c.phase, 0.5);
        c.advance(-0.75 * 0.75, l, true);
        assert_eq!(c.phase, 0.75);
    }
}

//! Cubic splines: their lane segments, and the samplers of cubic block
//! batches and cubic lane batches (the Hermite basis per lane).

use super::Animation;
use super::cursor::{Segment, SegmentFinder};
use super::lanes::{LaneCursors, LaneSegment, sample_lanes};
use super::sampling::live_lanes;
use crate::pose::Pose;
use crate::pose::simd::{BLOCK, Lanes, Row, dispatch, load, rows_mut, select, store_where};

/// A cubic-spline translation or scale segment: four quads (64 bytes),
/// `[p0.xyz, lo]`, `[p1.xyz, hi]`, `[m0.xyz, hold]`, `[m1.xyz, 0]`, where
/// `m0` is the first key's out-tangent and `m1` the second's in-tangent,
/// each already times the key interval `hi − lo` (the same product the
/// definition makes), and `hold` is 1 in a segment that holds `p0` (the two
/// ends: a spline through one value with zero tangents would round off it).
pub(super) type VecSplineSegment = LaneSegment<4>;
/// A cubic-spline rotation segment: five quads (80 bytes), `p0`, `p1`,
/// `m0`, `m1` as in [`VecSplineSegment`], then `[lo, hi, hold, 0]`.
pub(super) type QuatSplineSegment = LaneSegment<5>;

impl VecSplineSegment {
    pub(super) fn spline(p: [[f32; 4]; 4], lo: f32, hi: f32, hold: bool) -> VecSplineSegment {
        let [p0, p1, m0, m1] = p;
        LaneSegment([
            [p0[0], p0[1], p0[2], lo],
            [p1[0], p1[1], p1[2], hi],
            [m0[0], m0[1], m0[2], f32::from(u8::from(hold))],
            [m1[0], m1[1], m1[2], 0.0],
        ])
    }
}

impl QuatSplineSegment {
    pub(super) fn spline(p: [[f32; 4]; 4], lo: f32, hi: f32, hold: bool) -> QuatSplineSegment {
        let [p0, p1, m0, m1] = p;
        LaneSegment([p0, p1, m0, m1, [lo, hi, f32::from(u8::from(hold)), 0.0]])
    }
}

/// The segments of a cubic-spline track with key `times`, values
/// `value(k)` and tangents `tangent(k, part)` (part 0: in, 2: out), made by
/// `segment([p0, p1, m0, m1], lo, hi, hold)` (see [`VecSplineSegment`]),
/// bounded as [`LaneSegment`]s are.
pub(super) fn spline_segments<S>(
    times: &[f32],
    value: impl Fn(usize) -> [f32; 4],
    tangent: impl Fn(usize, usize) -> [f32; 4],
    segment: impl Fn([[f32; 4]; 4], f32, f32, bool) -> S,
) -> Vec<S> {
    let k = times.len();
    let hold = |i: usize, lo: f32, hi: f32| segment([value(i), value(i), [0.0; 4], [0.0; 4]], lo, hi, true);
    let mut out = Vec::with_capacity(k + 1);
    out.push(hold(0, f32::NEG_INFINITY, times[0]));
    for i in 1..k {
        let (lo, hi) = (times[i - 1], times[i]);
        let dt = hi - lo;
        let (m0, m1) = (tangent(i - 1, 2).map(|v| v * dt), tangent(i, 0).map(|v| v * dt));
        out.push(segment([value(i - 1), value(i), m0, m1], lo, hi, false));
    }
    out.push(hold(k - 1, times[k - 1], f32::INFINITY));
    out
}

/// Lanes `at..` of the cubic spline of a cubic batch's packed keys `keys`
/// (`N` rows per part, see [`Batch::row_start`]) between keys `i` and
/// `i + 1` at parameter `alpha`, `dt` the key interval: key `i`'s
/// out-tangent and key `i + 1`'s in-tangent times `dt`, then
/// [`spline_lanes`].
#[inline(always)]
fn block_spline<V: Lanes, const N: usize>(keys: &[Row], i: usize, at: usize, alpha: f32, dt: f32) -> [V; N] {
    let k = &keys[3 * N * i..];
    let (p0, mut m0) = (load::<V, N>(&k[N..], at), load::<V, N>(&k[2 * N..], at));
    let (mut m1, p1) = (load::<V, N>(&k[3 * N..], at), load::<V, N>(&k[4 * N..], at));
    let dt = V::splat(dt);
    for c in 0..N {
        (m0[c], m1[c]) = (m0[c] * dt, m1[c] * dt);
    }
    spline_lanes(p0, p1, m0, m1, hermite_lanes(V::splat(alpha)))
}

dispatch!(pub(super) fn sample_spline_batches / sample_spline_batches_at => sample_spline_batches_lanes(
    a: &Animation, finder: &mut SegmentFinder<'_>, cursors: &mut [u32], out: &mut Pose, mask: Option<&[f32]>,
));

/// Samples every cubic-spline batch of `a` ([`Animation::splined`]): per
/// batch, the key segment once and its Hermite basis, then the block's
/// lanes together (rotations normalized, as three.js's glTF loader does)
/// and written where the batch has a live track. Before the first key and
/// after the last, a key's value as stored. `cursors` holds one cursor per
/// batch: translations, scales, then rotations.
#[inline(always)]
fn sample_spline_batches_lanes<V: Lanes>(
    a: &Animation,
    finder: &mut SegmentFinder<'_>,
    cursors: &mut [u32],
    out: &mut Pose,
    mask: Option<&[f32]>,
) {
    let (out_t, out_r, out_s) = out.rows_mut();
    let mut cursors = cursors.iter_mut();
    for (p, out) in [(0, &mut *out_t), (2, &mut *out_s)] {
        let set = &a.splined[p];
        for (batch, c) in set.batches.iter().zip(&mut cursors) {
            let lanes = live_lanes(batch.block, batch.lanes, mask);
            if lanes == [0; BLOCK] {
                continue;
            }
            let seg = finder.find(batch.time_start, batch.keys, c);
            let out = rows_mut(out, 3, batch.block as usize);
            let keys = &set.rows[batch.row_start as usize..][..batch.keys as usize * 9];
            for at in (0..BLOCK).step_by(V::LANES) {
                let live = V::bits(&lanes[at..], 1);
                if V::any(live) {
                    let new = match seg {
                        Segment::Key(k) => load::<V, 3>(&keys[9 * k + 3..], at),
                        Segment::Between(i, alpha, dt) => block_spline::<V, 3>(keys, i, at, alpha, dt),
                    };
                    store_where(out, at, live, new, load::<V, 3>(out, at));
                }
            }
        }
    }
    let set = &a.splined[1];
    for (batch, c) in set.batches.iter().zip(&mut cursors) {
        let lanes = live_lanes(batch.block, batch.lanes, mask);
        if lanes == [0; BLOCK] {
            continue;
        }
        let seg = finder.find(batch.time_start, batch.keys, c);
        let out = rows_mut(out_r, 4, batch.block as usize);
        let keys = &set.rows[batch.row_start as usize..][..batch.keys as usize * 12];
        for at in (0..BLOCK).step_by(V::LANES) {
            let live = V::bits(&lanes[at..], 1);
            if V::any(live) {
                let new = match seg {
                    Segment::Key(k) => load::<V, 4>(&keys[12 * k + 4..], at),
                    Segment::Between(i, alpha, dt) => normalize(block_spline::<V, 4>(keys, i, at, alpha, dt)),
                };
                store_where(out, at, live, new, load::<V, 4>(out, at));
            }
        }
    }
}

/// `q / |q|` per lane, with `|q|` summed as glam's four-lane dot product
/// sums it (`(x² + z²) + (y² + w²)`) and each component divided by it, so
/// the same bits as `Quat::normalize`.
#[inline(always)]
fn normalize<V: Lanes>(q: [V; 4]) -> [V; 4] {
    let [x, y, z, w] = q;
    let length = ((x * x + z * z) + (y * y + w * w)).sqrt();
    [x / length, y / length, z / length, w / length]
}

dispatch!(pub(super) fn sample_spline_lane_batches / sample_spline_lane_batches_at => sample_spline_lane_batches_lanes(
    a: &Animation, t: f32, cursors: LaneCursors<'_>, out: &mut Pose, mask: Option<&[f32]>,
));

/// [`crate::pose::math::hermite_basis`] per lane, the same operations in the
/// same order (so the same bits).
#[inline(always)]
fn hermite_lanes<V: Lanes>(p: V) -> [V; 4] {
    let pp = p * p;
    let ppp = pp * p;
    let s2 = V::splat(-2.0) * ppp + V::splat(3.0) * pp;
    let s3 = ppp - pp;
    [V::splat(1.0) - s2, s3 - pp + p, s2, s3]
}

/// `p0·s0 + m0·s1 + p1·s2 + m1·s3` per lane and component, the tangents
/// `m0` (the first key's out-tangent) and `m1` (the second key's
/// in-tangent) already times the key interval: the operations, in this
/// order, of the one-track sampler (three.js's `GLTFCubicSplineInterpolant`),
/// so the same bits.
#[inline(always)]
fn spline_lanes<V: Lanes, const N: usize>(p0: [V; N], p1: [V; N], m0: [V; N], m1: [V; N], s: [V; 4]) -> [V; N] {
    let mut out = p0;
    for (c, o) in out.iter_mut().enumerate() {
        *o = p0[c] * s[0] + m0[c] * s[1] + p1[c] * s[2] + m1[c] * s[3];
    }
    out
}

/// Samples every cubic lane batch of `a` ([`Animation::spline_lane_batched`])
/// as [`sample_lane_batches_lanes`] samples the others: per lane its own
/// segment and parameter, then the Hermite spline of the lanes together
/// (rotations normalized), a segment that holds one key (before the first
/// key, from the last on) giving that key as stored.
#[inline(always)]
fn sample_spline_lane_batches_lanes<V: Lanes>(
    a: &Animation,
    t: f32,
    mut cursors: LaneCursors<'_>,
    out: &mut Pose,
    mask: Option<&[f32]>,
) {
    let (out_t, out_r, out_s) = out.rows_mut();
    let zero = V::splat(0.0);
    for (p, out) in [(0, &mut *out_t), (2, &mut *out_s)] {
        let segments = &a.vec_spline_segments;
        sample_lanes(
            &a.spline_lane_batched[p],
            segments,
            out,
            t,
            &mut cursors,
            mask,
            |[q0, q1, q2, q3]: [[V; 4]; 4], u| {
                let p0 = [q0[0], q0[1], q0[2]];
                let (p1, m0, m1) = ([q1[0], q1[1], q1[2]], [q2[0], q2[1], q2[2]], [q3[0], q3[1], q3[2]]);
                select(q2[3].gt(zero), p0, spline_lanes(p0, p1, m0, m1, hermite_lanes(u)))
            },
        );
    }
    let segments = &a.quat_spline_segments;
    sample_lanes(
        &a.spline_lane_batched[1],
        segments,
        out_r,
        t,
        &mut cursors,
        mask,
        |[p0, p1, m0, m1, bounds]: [[V; 4]; 5], u| {
            select(bounds[2].gt(zero), p0, normalize(spline_lanes(p0, p1, m0, m1, hermite_lanes(u))))
        },
    );
}

//! The additive kernels: three.js's additive accumulation into a delta
//! pose, the delta's application, and one additive input added straight
//! onto the output.

use super::kernels::{lane_flags, lane_weights};
use crate::pose::Pose;
use crate::pose::animation::{ANIMATES_ROTATION, ANIMATES_SCALE, ANIMATES_TRANSLATION};
use crate::pose::simd::{
    BLOCK, Lanes, QuatLanes, Row, UniformT, dispatch, flush_noise, load, quat_mul, rows, rows_mut, select, slerp,
    slerp_uniform, slerp_uniform_from_identity, store_where, vectors,
};

dispatch!(pub(super) fn accumulate_additive / accumulate_additive_at => accumulate_additive_lanes(
    delta: &mut Pose,
    held: &mut [Row],
    pose: &Pose,
    reference: &Pose,
    animated: &[u8],
    weight: f32,
    mask: Option<&[f32]>,
    n: usize,
));
dispatch!(pub(super) fn apply_delta / apply_delta_at => apply_delta_lanes(output: &mut Pose, delta: &Pose, held: &[Row], n: usize));
dispatch!(pub(super) fn add_onto / add_onto_at => add_onto_lanes(
    output: &mut Pose,
    pose: &Pose,
    reference: &Pose,
    animated: &[u8],
    weight: f32,
    mask: Option<&[f32]>,
    n: usize,
));

/// Three.js additive accumulation of one input into `delta` (see the module
/// docs); `reference` holds the inverted reference rotations.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn accumulate_additive_lanes<V: Lanes>(
    delta: &mut Pose,
    held: &mut [Row],
    pose: &Pose,
    reference: &Pose,
    animated: &[u8],
    weight: f32,
    mask: Option<&[f32]>,
    n: usize,
) {
    let (d_t, d_r, d_s) = delta.rows_mut();
    let (in_t, in_r, in_s) = pose.rows();
    let (ref_t, ref_r, ref_s) = reference.rows();
    let (zero, one) = (V::splat(0.0), V::splat(1.0));
    // Without a mask every lane slerps by the same weight: its series
    // factors are computed once.
    let uniform = mask.is_none().then(|| UniformT::new(weight));
    for (b, at) in vectors::<V>(n) {
        let j0 = b * BLOCK + at;
        let bits = &lane_flags(animated, j0);
        let w = lane_weights::<V>(weight, mask, j0);
        let live = w.gt(zero);
        let held_rows = rows_mut(held, 3, b);
        for (p, bit, d, input, reference) in
            [(0, ANIMATES_TRANSLATION, &mut *d_t, in_t, ref_t), (2, ANIMATES_SCALE, &mut *d_s, in_s, ref_s)]
        {
            let active = V::bits(bits, bit) & live;
            if V::any(active) {
                let had = V::load(&held_rows[p], at);
                let d = rows_mut(d, 3, b);
                let old = load::<V, 3>(d, at);
                let step = additive_step(rows(input, 3, b), rows(reference, 3, b), at, w);
                let mut sum = old;
                for (total, s) in sum.iter_mut().zip(step) {
                    *total = *total + s;
                }
                let new = select(had.gt(zero), sum, step);
                store_where(d, at, active, new, old);
                store_where(&mut held_rows[p..=p], at, active, [one], [had]);
            }
        }
        let active = V::bits(bits, ANIMATES_ROTATION) & live;
        if V::any(active) {
            let had = V::load(&held_rows[1], at);
            let d = rows_mut(d_r, 4, b);
            let old = load::<V, 4>(d, at);
            let held = had.gt(zero);
            let acc = V::any(held).then(|| select(held, old, [zero, zero, zero, one]));
            let step = additive_rotation_step(acc, rows(in_r, 4, b), rows(ref_r, 4, b), at, uniform.as_ref(), w);
            store_where(d, at, active, step, old);
            store_where(&mut held_rows[1..2], at, active, [one], [had]);
        }
    }
}

/// One additive input's translation or scale step, `w·(x − ref)`, at lanes
/// `at..` of a block's rows of the input and of the reference.
#[inline(always)]
fn additive_step<V: Lanes>(input: &[Row], reference: &[Row], at: usize, w: V) -> [V; 3] {
    let (x, r) = (load::<V, 3>(input, at), load::<V, 3>(reference, at));
    std::array::from_fn(|c| (x[c] - r[c]) * w)
}

/// One additive input's rotation step, three.js `accumulateAdditive`:
/// `slerp(acc, acc ⊗ (ref⁻¹ ⊗ q), w)` at lanes `at..` of a block's rows of
/// the input (`q`) and of the inverted reference, from the delta held so far
/// (`None`: every lane starts from the identity, where `acc ⊗ x` is `x` up
/// to the sign of a zero component). The reference's noise was flushed when
/// it was prepared; the input's is flushed here (see `flush_noise`).
#[inline(always)]
fn additive_rotation_step<V: Lanes>(
    acc: Option<QuatLanes<V>>,
    input: &[Row],
    inverted_reference: &[Row],
    at: usize,
    uniform: Option<&UniformT>,
    w: V,
) -> QuatLanes<V> {
    let q = quat_mul(load::<V, 4>(inverted_reference, at), flush_noise(load::<V, 4>(input, at)));
    match (acc, uniform) {
        (Some(acc), Some(u)) => slerp_uniform(acc, quat_mul(acc, q), u),
        (Some(acc), None) => slerp(acc, quat_mul(acc, q), w),
        (None, Some(u)) => slerp_uniform_from_identity(q, u),
        (None, None) => {
            let (zero, one) = (V::splat(0.0), V::splat(1.0));
            slerp([zero, zero, zero, one], q, w)
        }
    }
}

/// Applies an accumulated additive delta: `r ⊗ Δr`, `t + Δt`, `s + Δs`.
#[inline(always)]
fn apply_delta_lanes<V: Lanes>(output: &mut Pose, delta: &Pose, held: &[Row], n: usize) {
    let (out_t, out_r, out_s) = output.rows_mut();
    let (d_t, d_r, d_s) = delta.rows();
    let zero = V::splat(0.0);
    for (b, at) in vectors::<V>(n) {
        let held_rows = rows(held, 3, b);
        for (p, out, d) in [(0, &mut *out_t, d_t), (2, &mut *out_s, d_s)] {
            let had = V::load(&held_rows[p], at).gt(zero);
            if V::any(had) {
                let out = rows_mut(out, 3, b);
                let (v, dv) = (load::<V, 3>(out, at), load::<V, 3>(rows(d, 3, b), at));
                let mut sum = v;
                for (c, s) in sum.iter_mut().enumerate() {
                    *s = v[c] + dv[c];
                }
                store_where(out, at, had, sum, v);
            }
        }
        let had = V::load(&held_rows[1], at).gt(zero);
        if V::any(had) {
            let out = rows_mut(out_r, 4, b);
            let v = load::<V, 4>(out, at);
            store_where(out, at, had, quat_mul(v, load::<V, 4>(rows(d_r, 4, b), at)), v);
        }
    }
}

/// One additive input applied straight onto `output`: the same operations,
/// so the same bits, as [`accumulate_additive_lanes`] into a delta that
/// holds nothing followed by [`apply_delta_lanes`], in one pass and without
/// storing the delta.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn add_onto_lanes<V: Lanes>(
    output: &mut Pose,
    pose: &Pose,
    reference: &Pose,
    animated: &[u8],
    weight: f32,
    mask: Option<&[f32]>,
    n: usize,
) {
    let (out_t, out_r, out_s) = output.rows_mut();
    let (in_t, in_r, in_s) = pose.rows();
    let (ref_t, ref_r, ref_s) = reference.rows();
    let zero = V::splat(0.0);
    let uniform = mask.is_none().then(|| UniformT::new(weight));
    for (b, at) in vectors::<V>(n) {
        let j0 = b * BLOCK + at;
        let bits = &lane_flags(animated, j0);
        let w = lane_weights::<V>(weight, mask, j0);
        let live = w.gt(zero);
        for (bit, out, input, reference) in
            [(ANIMATES_TRANSLATION, &mut *out_t, in_t, ref_t), (ANIMATES_SCALE, &mut *out_s, in_s, ref_s)]
        {
            let active = V::bits(bits, bit) & live;
            if V::any(active) {
                let out = rows_mut(out, 3, b);
                let v = load::<V, 3>(out, at);
                let step = additive_step(rows(input, 3, b), rows(reference, 3, b), at, w);
                let mut sum = v;
                for (total, s) in sum.iter_mut().zip(step) {
                    *total = *total + s;
                }
                store_where(out, at, active, sum, v);
            }
        }
        let active = V::bits(bits, ANIMATES_ROTATION) & live;
        if V::any(active) {
            let out = rows_mut(out_r, 4, b);
            let delta = additive_rotation_step(None, rows(in_r, 4, b), rows(ref_r, 4, b), at, uniform.as_ref(), w);
            let v = load::<V, 4>(out, at);
            store_where(out, at, active, quat_mul(v, delta), v);
        }
    }
}

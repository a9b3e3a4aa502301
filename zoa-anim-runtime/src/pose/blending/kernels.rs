//! The override kernels (three.js accumulation, the rest fill, composition
//! over the result below) and the lane helpers every blending kernel shares.

use crate::pose::Pose;
use crate::pose::animation::{ANIMATES_ROTATION, ANIMATES_SCALE, ANIMATES_TRANSLATION};
use crate::pose::simd::{
    BLOCK, Lanes, Row, UniformT, dispatch, lerp, load, rows, rows_mut, select, slerp, slerp_uniform, store,
    store_where, vectors,
};

// Each kernel runs over the vectors (`V::LANES` joints: half a block or a
// whole one) covering the first `n` joints, branch-free within a vector: a
// lane's result is selected from the candidates, so a lane that must not
// change keeps its value bit for bit. Vectors where no lane has work are
// skipped. Each array is sliced once per vector (`rows(..)`), so the loads
// inside index slices of known length.

/// The `V::LANES` entries of `src` from joint `j0`, zero-padded past its end.
#[inline(always)]
fn lane_slice<'a, T: Copy + Default, V: Lanes>(src: &'a [T], j0: usize, pad: &'a mut [T; BLOCK]) -> &'a [T] {
    if j0 + V::LANES <= src.len() {
        &src[j0..j0 + V::LANES]
    } else {
        let have = src.len().saturating_sub(j0);
        pad[..have].copy_from_slice(&src[j0..j0 + have]);
        &pad[..V::LANES]
    }
}

/// The flags of joints `j0..j0 + BLOCK` from `flags`, 0 past its end. Past
/// the end, the bytes come from one load of the last eight, shifted, rather
/// than copied into a buffer and loaded back: a load of bytes just stored
/// one at a time waits for them to reach the cache (a failed store
/// forward), once per kernel call on the last block of most skeletons.
#[inline(always)]
pub(super) fn lane_flags(flags: &[u8], j0: usize) -> [u8; BLOCK] {
    let n = flags.len();
    if let Some(whole) = flags.get(j0..j0 + BLOCK) {
        return whole.try_into().unwrap_or([0; BLOCK]);
    }
    if j0 >= n {
        return [0; BLOCK];
    }
    match flags.get(n.wrapping_sub(BLOCK)..) {
        Some(last) if n >= BLOCK => {
            let word = u64::from_le_bytes(last.try_into().unwrap_or([0; BLOCK]));
            // Lanes `j0..n` are the word's top `n − j0` bytes.
            (word >> (8 * (j0 + BLOCK - n))).to_le_bytes()
        }
        _ => std::array::from_fn(|l| flags.get(j0 + l).copied().unwrap_or(0)),
    }
}

/// Effective input weight per lane: `weight × mask[j]`.
#[inline(always)]
pub(super) fn lane_weights<V: Lanes>(weight: f32, mask: Option<&[f32]>, j0: usize) -> V {
    match mask {
        None => V::splat(weight),
        Some(m) => {
            let mut pad = [0.0; BLOCK];
            V::splat(weight) * V::load_flat(lane_slice::<f32, V>(m, j0, &mut pad))
        }
    }
}

dispatch!(pub(super) fn accumulate / accumulate_at => accumulate_lanes(
    target: &mut Pose,
    weights: &mut [Row],
    pose: &Pose,
    animated: &[u8],
    weight: f32,
    mask: Option<&[f32]>,
    shared: Option<f32>,
    n: usize,
));
dispatch!(pub(super) fn mark_animated / mark_animated_at => mark_animated_lanes(
    weights: &mut [Row],
    animated: &[u8],
    weight: f32,
    n: usize,
));
dispatch!(pub(super) fn rest_fill / rest_fill_at => rest_fill_lanes(output: &mut Pose, rest: &Pose, weights: RestWeights<'_>, n: usize));
dispatch!(pub(super) fn compose_over / compose_over_at => compose_over_lanes(output: &mut Pose, layer: &Pose, weights: &[Row], n: usize));

/// One accumulation step per lane: whether the lane's value is its first
/// (`W == 0`: copied), the interpolation parameter `w / (W + w)` (1 for a
/// first value) and the new `W`.
#[inline(always)]
fn mix_step<V: Lanes>(acc: V, w: V) -> (V::Mask, V, V) {
    let total = acc + w;
    let first = acc.eq(V::splat(0.0));
    (first, V::select(first, V::splat(1.0), w / total), total)
}

/// Three.js accumulation of one input into `target` (see the module docs).
/// `shared`: every `W` in `weights` is 0 or this value and `mask` is `None`,
/// so every lane that mixes has the parameter `weight / (shared + weight)`
/// and the rotation slerps share its series factors.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn accumulate_lanes<V: Lanes>(
    target: &mut Pose,
    weights: &mut [Row],
    pose: &Pose,
    animated: &[u8],
    weight: f32,
    mask: Option<&[f32]>,
    shared: Option<f32>,
    n: usize,
) {
    let (out_t, out_r, out_s) = target.rows_mut();
    let (in_t, in_r, in_s) = pose.rows();
    // The same operation as `mix_step`'s per lane, so the same bits.
    let uniform = shared.filter(|_| mask.is_none()).map(|w| UniformT::new(weight / (w + weight)));
    for (b, at) in vectors::<V>(n) {
        let j0 = b * BLOCK + at;
        let bits = &lane_flags(animated, j0);
        let w = lane_weights::<V>(weight, mask, j0);
        // `w > 0` also drops NaN.
        let live = w.gt(V::splat(0.0));
        let acc_rows = rows_mut(weights, 3, b);
        for (p, bit, out, input) in
            [(0, ANIMATES_TRANSLATION, &mut *out_t, in_t), (2, ANIMATES_SCALE, &mut *out_s, in_s)]
        {
            let active = V::bits(bits, bit) & live;
            if V::any(active) {
                let acc = V::load(&acc_rows[p], at);
                let (first, t, total) = mix_step(acc, w);
                let (out, input) = (rows_mut(out, 3, b), rows(input, 3, b));
                let (v, x) = (load::<V, 3>(out, at), load::<V, 3>(input, at));
                store_where(out, at, active, select(first, x, lerp(v, x, t)), v);
                store_where(&mut acc_rows[p..=p], at, active, [total], [acc]);
            }
        }
        let active = V::bits(bits, ANIMATES_ROTATION) & live;
        if V::any(active) {
            let acc = V::load(&acc_rows[1], at);
            let (first, t, total) = mix_step(acc, w);
            let (out, input) = (rows_mut(out_r, 4, b), rows(in_r, 4, b));
            let (v, x) = (load::<V, 4>(out, at), load::<V, 4>(input, at));
            // A first value is a copy (`slerp` at t = 1); when every active
            // lane's is, no slerp is needed.
            let mixed = if V::all(first | !active) {
                x
            } else if let Some(u) = &uniform {
                select(first, x, slerp_uniform(v, x, u))
            } else {
                slerp(v, x, t)
            };
            store_where(out, at, active, mixed, v);
            store_where(&mut acc_rows[1..2], at, active, [total], [acc]);
        }
    }
}

/// `W = weight` for every property `animated` flags, onto weights that are
/// all 0: what [`accumulate_lanes`] leaves in the weights for a first,
/// unmasked input of `weight > 0`.
#[inline(always)]
fn mark_animated_lanes<V: Lanes>(weights: &mut [Row], animated: &[u8], weight: f32, n: usize) {
    let (w, zero) = (V::splat(weight), V::splat(0.0));
    for (b, at) in vectors::<V>(n) {
        let j0 = b * BLOCK + at;
        let bits = &lane_flags(animated, j0);
        let acc_rows = rows_mut(weights, 3, b);
        for (p, bit) in [(0, ANIMATES_TRANSLATION), (1, ANIMATES_ROTATION), (2, ANIMATES_SCALE)] {
            let active = V::bits(bits, bit);
            if V::any(active) {
                V::select(active, w, zero).store(&mut acc_rows[p], at);
            }
        }
    }
}

/// The accumulated weights `W` a rest fill reads.
#[derive(Debug, Clone, Copy)]
pub(super) enum RestWeights<'a> {
    /// As rows of `W` per joint property (`BlendingContext::weights`).
    Rows(&'a [Row]),
    /// `W = weight` where the flags animate the property, 0 elsewhere: what
    /// [`mark_animated_lanes`] would write, read without writing it.
    Flags(&'a [u8], f32),
}

impl RestWeights<'_> {
    /// `W` of property `p` (0 translation, 1 rotation, 2 scale) of the
    /// vector at joint `at` of block `b`.
    #[inline(always)]
    fn load<V: Lanes>(&self, b: usize, at: usize, p: usize) -> V {
        match *self {
            RestWeights::Rows(weights) => V::load(&rows(weights, 3, b)[p], at),
            RestWeights::Flags(animated, weight) => {
                let bits = &lane_flags(animated, b * BLOCK + at);
                let bit = [ANIMATES_TRANSLATION, ANIMATES_ROTATION, ANIMATES_SCALE][p];
                V::select(V::bits(bits, bit), V::splat(weight), V::splat(0.0))
            }
        }
    }
}

/// Fills the weight left below 1 from `rest`, per joint property (three.js
/// `PropertyMixer.apply`): `W == 0` takes the rest value, `W < 1` blends
/// towards it by `1 − W`.
#[inline(always)]
fn rest_fill_lanes<V: Lanes>(output: &mut Pose, rest: &Pose, weights: RestWeights<'_>, n: usize) {
    let (out_t, out_r, out_s) = output.rows_mut();
    let (rest_t, rest_r, rest_s) = rest.rows();
    let (zero, one) = (V::splat(0.0), V::splat(1.0));
    for (b, at) in vectors::<V>(n) {
        for (p, out, rest) in [(0, &mut *out_t, rest_t), (2, &mut *out_s, rest_s)] {
            let acc = weights.load::<V>(b, at, p);
            let partial = acc.lt(one);
            if V::any(partial) {
                let (out, rest) = (rows_mut(out, 3, b), rows(rest, 3, b));
                let r = load::<V, 3>(rest, at);
                let none = acc.eq(zero);
                if V::all(none) {
                    store(out, at, r);
                    continue;
                }
                let v = load::<V, 3>(out, at);
                let filled = select(partial, lerp(v, r, one - acc), v);
                store(out, at, select(none, r, filled));
            }
        }
        let acc = weights.load::<V>(b, at, 1);
        let partial = acc.lt(one);
        if V::any(partial) {
            let (out, rest) = (rows_mut(out_r, 4, b), rows(rest_r, 4, b));
            let r = load::<V, 4>(rest, at);
            let none = acc.eq(zero);
            if V::all(none) {
                store(out, at, r);
                continue;
            }
            // `W == 0` takes the rest value as it is (three.js `slerpFlat`
            // at 1 copies it); only lanes with `0 < W < 1` need the slerp,
            // and a block whose other lanes are joints no input animates, or
            // the lanes past the last joint, has none.
            let v = load::<V, 4>(out, at);
            let between = partial & !none;
            let filled = if V::any(between) { select(between, slerp(v, r, one - acc), v) } else { v };
            store(out, at, select(none, r, filled));
        }
    }
}

/// `output = blend(output, layer, min(W, 1))` per joint property with `W > 0`.
#[inline(always)]
fn compose_over_lanes<V: Lanes>(output: &mut Pose, layer: &Pose, weights: &[Row], n: usize) {
    let (out_t, out_r, out_s) = output.rows_mut();
    let (lay_t, lay_r, lay_s) = layer.rows();
    let (zero, one) = (V::splat(0.0), V::splat(1.0));
    for (b, at) in vectors::<V>(n) {
        let acc_rows = rows(weights, 3, b);
        for (p, out, layer) in [(0, &mut *out_t, lay_t), (2, &mut *out_s, lay_s)] {
            let acc = V::load(&acc_rows[p], at);
            let some = acc.gt(zero);
            if V::any(some) {
                let (out, layer) = (rows_mut(out, 3, b), rows(layer, 3, b));
                let (v, l) = (load::<V, 3>(out, at), load::<V, 3>(layer, at));
                let blended = select(some, lerp(v, l, acc), v);
                store(out, at, select(acc.ge(one), l, blended));
            }
        }
        let acc = V::load(&acc_rows[1], at);
        let some = acc.gt(zero);
        if V::any(some) {
            let (out, layer) = (rows_mut(out_r, 4, b), rows(lay_r, 4, b));
            let (v, l) = (load::<V, 4>(out, at), load::<V, 4>(layer, at));
            let full = acc.ge(one);
            let blended = if V::all(full | !some) { select(full, l, v) } else { slerp(v, l, acc) };
            store(out, at, select(full, l, select(some, blended, v)));
        }
    }
}

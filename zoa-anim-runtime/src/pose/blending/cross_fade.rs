//! A cross-fade of two whole poses ([`blend_into`]).

use crate::pose::Pose;
use crate::pose::simd::{Lanes, UniformT, dispatch, lerp, load, rows, rows_mut, slerp_uniform, store, vectors};

/// `target = blend(target, source, weight)` for every joint property (lerp,
/// three.js slerp): a cross-fade of two whole poses, e.g. the results of two
/// graphs during a loadout switch. `weight` is clamped to `0..=1` (NaN counts
/// as 0). Allocation-free.
///
/// # Panics
/// When the poses differ in length.
pub fn blend_into(target: &mut Pose, source: &Pose, weight: f32) {
    assert_eq!(target.len(), source.len(), "poses differ in joint count");
    let w = if weight.is_nan() { 0.0 } else { weight.clamp(0.0, 1.0) };
    if w <= 0.0 {
        return;
    }
    cross_fade(target, source, w);
}

dispatch!(fn cross_fade / cross_fade_at => cross_fade_lanes(target: &mut Pose, source: &Pose, weight: f32));

/// `target = blend(target, source, weight)` for every joint property.
#[inline(always)]
fn cross_fade_lanes<V: Lanes>(target: &mut Pose, source: &Pose, weight: f32) {
    let n = target.len();
    let (out_t, out_r, out_s) = target.rows_mut();
    let (src_t, src_r, src_s) = source.rows();
    let w = V::splat(weight);
    let uniform = UniformT::new(weight);
    for (b, at) in vectors::<V>(n) {
        for (out, src) in [(&mut *out_t, src_t), (&mut *out_s, src_s)] {
            let out = rows_mut(out, 3, b);
            let (v, x) = (load::<V, 3>(out, at), load::<V, 3>(rows(src, 3, b), at));
            store(out, at, lerp(v, x, w));
        }
        let out = rows_mut(out_r, 4, b);
        let (v, x) = (load::<V, 4>(out, at), load::<V, 4>(rows(src_r, 4, b), at));
        store(out, at, slerp_uniform(v, x, &uniform));
    }
}

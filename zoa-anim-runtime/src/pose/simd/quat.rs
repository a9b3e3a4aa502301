//! Quaternions per lane: the lane type, the Hamilton product, and flushing
//! exporters' rotation noise.

use super::Lanes;

/// A quaternion per lane, `[x, y, z, w]`.
pub(crate) type QuatLanes<V> = [V; 4];

/// Quaternion components below this magnitude are noise: a unit
/// quaternion's components carry about 6e-8 of precision, and 1e-10 turns a
/// rotation by 2e-10 rad at most.
pub(crate) const ROTATION_NOISE: f32 = 1e-10;

/// `q` with components below [`ROTATION_NOISE`] in magnitude set to zero.
/// Exporters write rotation keys with components such as 3.6e-25 (the shared
/// Fox's clips have 252 below 1e-12); the products of two of them in a
/// quaternion product are subnormal numbers, which cost about a hundred
/// cycles per operation on Intel CPUs (Fox's two-clip blend with an additive
/// layer: 500 ns with them, 290 ns without).
#[inline(always)]
pub(crate) fn flush_noise<L: Lanes>(q: QuatLanes<L>) -> QuatLanes<L> {
    let (noise, zero) = (L::splat(ROTATION_NOISE), L::splat(0.0));
    let mut out = q;
    for (c, o) in out.iter_mut().enumerate() {
        *o = L::select(q[c].abs().lt(noise), zero, q[c]);
    }
    out
}

/// Hamilton product `a ⊗ b` per lane.
#[inline(always)]
pub(crate) fn quat_mul<L: Lanes>(a: QuatLanes<L>, b: QuatLanes<L>) -> QuatLanes<L> {
    let [ax, ay, az, aw] = a;
    let [bx, by, bz, bw] = b;
    [
        aw.mul_add(bx, ax.mul_add(bw, ay.mul_add(bz, -(az * by)))),
        aw.mul_add(by, ay.mul_add(bw, az.mul_add(bx, -(ax * bz)))),
        aw.mul_add(bz, az.mul_add(bw, ax.mul_add(by, -(ay * bx)))),
        aw.mul_add(bw, -(ax.mul_add(bx, ay.mul_add(by, az * bz)))),
    ]
}

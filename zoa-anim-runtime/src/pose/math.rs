//! Scalar kernels shared by the jobs: three.js-exact lerp and slerp, the glTF
//! cubic Hermite, and time wrapping.
//!
//! The slerp follows three.js `Quaternion.slerpFlat`: `t == 0` returns the first
//! operand and `t == 1` the second one bit for bit, equal operands return the
//! first, otherwise the second operand is negated when needed so the blend takes
//! the shortest arc and the result keeps the sign of the first operand. The arc
//! itself is computed with Eberly's polynomial ("A Fast and Accurate Algorithm
//! for Computing SLERP", 2011: no trigonometry) on half arcs, which the unit
//! tests hold to within 1e-6 of an `f64` trigonometric slerp.

use glam::{Quat, Vec3A, Vec4};

/// Terms of Eberly's series (the last one corrected by [`MU`]).
const TERMS: usize = 6;
/// Correction of the last term, fitted for `cos φ ∈ [cos 45°, 1]` (max
/// coefficient error 8.4e-9 in `f64`).
const MU: f32 = 1.1505;
/// Eberly's `u[i] = 1 / ((i+1)(2i+3))`.
const U: [f32; TERMS] =
    [1.0 / (1.0 * 3.0), 1.0 / (2.0 * 5.0), 1.0 / (3.0 * 7.0), 1.0 / (4.0 * 9.0), 1.0 / (5.0 * 11.0), MU / (6.0 * 13.0)];
/// Eberly's `v[i] = (i+1) / (2i+3)`.
const V: [f32; TERMS] = [1.0 / 3.0, 2.0 / 5.0, 3.0 / 7.0, 4.0 / 9.0, 5.0 / 11.0, MU * 6.0 / 13.0];

/// `sin(t·φ) / sin φ` for `t ∈ [0, 1]` and `xm1 = cos φ − 1`, by Eberly's
/// series; accurate for `φ ≤ 45°`. The scalar reference of [`arc_coefficients`].
#[cfg(test)]
fn arc_coefficient(t: f32, xm1: f32) -> f32 {
    let tt = t * t;
    let mut acc = 1.0;
    let mut i = TERMS;
    while i > 0 {
        i -= 1;
        acc = 1.0 + (U[i] * tt - V[i]) * xm1 * acc;
    }
    t * acc
}

/// [`arc_coefficient`] of `t0` and `t1` at once, in two SIMD lanes (the same
/// operations per lane, so the same bits as two scalar calls).
#[inline(always)]
fn arc_coefficients(t0: f32, t1: f32, xm1: f32) -> [f32; 2] {
    let t = Vec4::new(t0, t1, 0.0, 0.0);
    let tt = t * t;
    let mut acc = Vec4::ONE;
    let mut i = TERMS;
    while i > 0 {
        i -= 1;
        acc = Vec4::ONE + (tt * U[i] - Vec4::splat(V[i])) * xm1 * acc;
    }
    let c = t * acc;
    [c.x, c.y]
}

/// Shortest-arc spherical interpolation with three.js `slerpFlat` semantics.
///
/// Inputs are expected to be unit quaternions; the result keeps the sign of `a`.
#[inline]
#[must_use]
pub fn slerp(a: Quat, b: Quat, t: f32) -> Quat {
    if t == 0.0 {
        return a;
    }
    if t == 1.0 {
        return b;
    }
    if a == b {
        return a;
    }
    slerp_unchecked(a, b, t)
}

/// The arc part of [`slerp`] without the endpoint short cuts.
///
/// The series is only accurate for arcs up to 45°, so the arc `θ ≤ 90°`
/// (after the shortest-path flip) is halved: with the midpoint
/// `m = (a + b) / (2 cos φ)`, `φ = θ/2`, the first half of the arc is
/// `slerp(a, m, 2t)` and the second `slerp(m, b, 2t − 1)`.
#[inline(always)]
pub(crate) fn slerp_unchecked(a: Quat, b: Quat, t: f32) -> Quat {
    let va = Vec4::from(a);
    let mut vb = Vec4::from(b);
    let cos = va.dot(vb);
    if cos < 0.0 {
        vb = -vb;
    }
    // 2·cos φ = sqrt(2 + 2 cos θ); the clamp guards keys a hair off unit length.
    let two_cos_half = (2.0 + 2.0 * cos.abs().min(1.0)).sqrt();
    let xm1 = 0.5 * two_cos_half - 1.0;
    let mid = (va + vb) * (1.0 / two_cos_half);
    let (first, second, u) = if t <= 0.5 { (va, mid, 2.0 * t) } else { (mid, vb, 2.0 * t - 1.0) };
    let [c0, c1] = arc_coefficients(1.0 - u, u, xm1);
    Quat::from_vec4(first * c0 + second * c1)
}

/// `a·(1−t) + b·t`, the form three.js uses (exact at `t = 0` and `t = 1`).
#[inline(always)]
#[must_use]
pub fn lerp3(a: Vec3A, b: Vec3A, t: f32) -> Vec3A {
    a * (1.0 - t) + b * t
}

/// glTF 2.0 cubic Hermite basis at `p ∈ [0, 1]`: weights for
/// `(value0, out_tangent0·Δt, value1, in_tangent1·Δt)`.
#[inline(always)]
#[must_use]
pub fn hermite_basis(p: f32) -> [f32; 4] {
    let pp = p * p;
    let ppp = pp * p;
    let s2 = -2.0 * ppp + 3.0 * pp;
    let s3 = ppp - pp;
    let s0 = 1.0 - s2;
    let s1 = s3 - pp + p;
    [s0, s1, s2, s3]
}

/// Clip time for a looping clip: `t − d·floor(t/d)`, so `t = d` samples time 0
/// and negative times wrap backwards. A zero-length clip always samples 0.
/// When `t/d` overflows `f32` (a tiny duration, a long time) the exact
/// remainder is used instead, so a finite `t` always wraps to a finite time.
#[inline]
#[must_use]
pub fn wrap_time(t: f32, duration: f32) -> f32 {
    if duration > 0.0 {
        let loops = (t / duration).floor();
        if loops.is_finite() {
            t - duration * loops
        } else {
            let r = t.rem_euclid(duration);
            if r < duration { r } else { 0.0 }
        }
    } else {
        0.0
    }
}

/// Clip time for a one-shot clip: `t` clamped to `[0, d]`.
#[inline]
#[must_use]
pub fn clamp_time(t: f32, duration: f32) -> f32 {
    t.clamp(0.0, duration.max(0.0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use zoa_test_support::three;

    /// Reference: three.js `slerpFlat` in `f64` with real trigonometry.
    fn slerp_f64(a: Quat, b: Quat, t: f64) -> [f64; 4] {
        three::slerp(three::from_f32(a.to_array()), three::from_f32(b.to_array()), t)
    }

    fn unit_quat() -> impl Strategy<Value = Quat> {
        (-1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0)
            .prop_filter("non-degenerate", |(x, y, z, w)| x * x + y * y + z * z + w * w > 0.01)
            .prop_map(|(x, y, z, w)| Quat::from_xyzw(x, y, z, w).normalize())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4000))]
        #[test]
        fn polynomial_slerp_is_within_1e6_of_exact(a in unit_quat(), b in unit_quat(), t in 0.0f32..=1.0) {
            let got = slerp(a, b, t).to_array();
            let want = slerp_f64(a, b, f64::from(t));
            for i in 0..4 {
                prop_assert!((f64::from(got[i]) - want[i]).abs() < 1e-6, "{got:?} vs {want:?}");
            }
        }

        #[test]
        fn polynomial_slerp_is_accurate_for_nearby_rotations(a in unit_quat(), e in -0.01f32..0.01, t in 0.0f32..=1.0) {
            let b = (a * Quat::from_rotation_y(e)).normalize();
            let got = slerp(a, b, t).to_array();
            let want = slerp_f64(a, b, f64::from(t));
            for i in 0..4 {
                prop_assert!((f64::from(got[i]) - want[i]).abs() < 1e-6);
            }
        }
    }

    #[test]
    fn slerp_endpoints_are_exact_and_shortest_path_keeps_first_sign() {
        let a = Quat::from_rotation_z(0.3);
        let b = -Quat::from_rotation_z(0.9); // same rotation as +, stored negated
        assert_eq!(slerp(a, b, 0.0), a);
        assert_eq!(slerp(a, b, 1.0), b);
        let mid = slerp(a, b, 0.5);
        let want = Quat::from_rotation_z(0.6);
        assert!((Vec4::from(mid) - Vec4::from(want)).abs().max_element() < 1e-6, "{mid:?}");
        // Opposite hemisphere, exactly antipodal-ish pairs stay finite.
        let c = slerp(Quat::IDENTITY, Quat::from_xyzw(0.0, 0.0, 1.0, 0.0), 0.5);
        assert!(c.is_finite() && (c.length() - 1.0).abs() < 1e-5);
    }

    #[test]
    fn two_lane_coefficients_equal_the_scalar_series_bit_for_bit() {
        for k in 0..=100 {
            let t = k as f32 / 100.0;
            for xm1 in [0.0, -0.001, -0.05, -0.2, -0.29289] {
                let [a, b] = arc_coefficients(1.0 - t, t, xm1);
                assert_eq!(a.to_bits(), arc_coefficient(1.0 - t, xm1).to_bits());
                assert_eq!(b.to_bits(), arc_coefficient(t, xm1).to_bits());
            }
        }
    }

    #[test]
    fn time_wrapping_and_clamping() {
        assert_eq!(wrap_time(2.0, 2.0), 0.0);
        assert_eq!(wrap_time(2.5, 2.0), 0.5);
        assert_eq!(wrap_time(-0.5, 2.0), 1.5);
        assert_eq!(wrap_time(-2.0, 2.0), 0.0);
        assert_eq!(wrap_time(3.0, 0.0), 0.0);
        // t/d overflows f32: still a finite time inside the clip.
        for (t, d) in [(100.0, 1e-37), (0.5, 1e-44), (-7.0, 1e-40), (3e38, 1e-30)] {
            let w = wrap_time(t, d);
            assert!(w.is_finite() && (0.0..d).contains(&w), "wrap_time({t}, {d}) = {w}");
        }
        assert_eq!(clamp_time(3.0, 2.0), 2.0);
        assert_eq!(clamp_time(-1.0, 2.0), 0.0);
        assert_eq!(hermite_basis(0.0), [1.0, 0.0, 0.0, 0.0]);
        assert_eq!(hermite_basis(1.0), [0.0, 0.0, 1.0, 0.0]);
    }
}

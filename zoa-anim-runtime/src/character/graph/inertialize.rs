//! Inertialization (Bollo, "Inertialization: High-Performance Animation
//! Transitions in Gears of War", GDC 2018): instead of evaluating both states
//! and cross-fading, only the target is evaluated and the offset between the
//! last output and the target's first pose decays to zero with a quintic that
//! starts with the offset's value and velocity and ends with zero value,
//! velocity and acceleration.
//!
//! The behaviour layer only decides *when* an inertialized transition starts
//! and how long it lasts ([`super::Inertialization`]); the pose stage records
//! the per-channel offset `x0` and velocity `v0` at that moment and calls
//! [`inertialize_quintic`] each frame.

/// The decayed offset `t` seconds into an inertialized blend of `duration`
/// seconds, for a channel whose offset at the start was `x0` moving at `v0`
/// units per second.
///
/// Bollo's rules: the velocity is only kept when it already moves the offset
/// towards zero (otherwise it is taken as 0, so the curve cannot overshoot
/// away from the target); the blend is shortened to `-5·x0 / v0` when that is
/// shorter, so the curve does not overshoot zero; the initial acceleration is
/// `max(0, (−8·v0·t1 − 20·x0) / t1²)` (in the offset's sign). The result is `x0` at
/// `t = 0` and exactly 0 from `t >= t1` on; `duration <= 0` gives 0 (a cut).
/// Pure and allocation-free.
#[must_use]
pub fn inertialize_quintic(x0: f32, v0: f32, t: f32, duration: f32) -> f32 {
    if duration.is_nan() || duration <= 0.0 || !x0.is_finite() || !v0.is_finite() || (x0 == 0.0 && v0 == 0.0) {
        return 0.0;
    }
    // Work with a non-negative offset; flip back at the end.
    let sign = if x0 < 0.0 { -1.0 } else { 1.0 };
    let x0 = x0 * sign;
    let mut v0 = v0 * sign;
    if v0 > 0.0 {
        v0 = 0.0;
    }
    let mut t1 = duration;
    if v0 < 0.0 && x0 > 0.0 {
        t1 = t1.min(-5.0 * x0 / v0);
    }
    if t1.is_nan() || t1 <= 0.0 || t >= t1 {
        return 0.0;
    }
    let t = t.max(0.0);
    let a0 = ((-8.0 * v0 * t1 - 20.0 * x0) / (t1 * t1)).max(0.0);
    let t1_2 = t1 * t1;
    let t1_3 = t1_2 * t1;
    let a = -(a0 * t1_2 + 6.0 * v0 * t1 + 12.0 * x0) / (2.0 * t1_3 * t1_2);
    let b = (3.0 * a0 * t1_2 + 16.0 * v0 * t1 + 30.0 * x0) / (2.0 * t1_3 * t1);
    let c = -(3.0 * a0 * t1_2 + 12.0 * v0 * t1 + 20.0 * x0) / (2.0 * t1_3);
    let x = (((((a * t + b) * t + c) * t + 0.5 * a0) * t + v0) * t) + x0;
    x * sign
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn derivative(f: impl Fn(f32) -> f32, t: f32) -> f32 {
        let h = 1e-3;
        (f(t + h) - f(t - h)) / (2.0 * h)
    }

    #[test]
    fn starts_at_the_offset_and_lands_flat_on_zero() {
        let f = |t| inertialize_quintic(0.5, 0.0, t, 0.4);
        assert_eq!(f(0.0), 0.5);
        assert!(f(0.2) > 0.0 && f(0.2) < 0.5);
        assert!(f(0.399).abs() < 1e-6);
        assert_eq!(f(0.4), 0.0);
        assert_eq!(f(1.0), 0.0);
        // With v0 = 0 Bollo's quintic is the smootherstep 1 − 10τ³ + 15τ⁴ − 6τ⁵.
        for k in 0..=10 {
            let tau = k as f32 / 10.0;
            let expect = 0.5 * (1.0 - 10.0 * tau.powi(3) + 15.0 * tau.powi(4) - 6.0 * tau.powi(5));
            assert!((f(0.4 * tau) - expect).abs() < 1e-5, "tau {tau}");
        }
        assert!(derivative(f, 0.398).abs() < 1e-3, "lands with zero velocity");
    }

    #[test]
    fn keeps_a_velocity_towards_zero_and_drops_one_away() {
        let towards = |t| inertialize_quintic(1.0, -1.0, t, 1.0);
        assert!((derivative(towards, 0.002) + 1.0).abs() < 0.05, "starts with v0");
        let away = |t| inertialize_quintic(1.0, 3.0, t, 1.0);
        assert!(derivative(away, 0.002).abs() < 0.05, "a velocity away from zero is dropped");
        // A fast approach shortens the blend to -5 x0 / v0 = 0.5 s.
        assert_eq!(inertialize_quintic(1.0, -10.0, 0.5, 1.0), 0.0);
        assert_eq!(inertialize_quintic(0.3, 0.0, 0.1, 0.0), 0.0, "zero duration is a cut");
    }

    #[test]
    fn negative_offsets_mirror_positive_ones() {
        for t in [0.0, 0.1, 0.25, 0.3] {
            assert_eq!(inertialize_quintic(-0.7, 0.2, t, 0.3), -inertialize_quintic(0.7, -0.2, t, 0.3));
        }
    }

    proptest! {
        #[test]
        fn never_overshoots(x0 in 0.01f32..10.0, v0 in -20.0f32..20.0, d in 0.05f32..2.0, k in 0.0f32..1.0) {
            let x = inertialize_quintic(x0, v0, k * d, d);
            prop_assert!(x <= x0 * 1.0001 + 1e-5);
            prop_assert!(x >= -x0 * 0.05 - 1e-5, "x {x}");
        }
    }
}

//! The gain curves of the player: distance rolloff, equal-power panning and
//! fade envelopes. Plain functions so tests check them against their formulas.
//!
//! # Distance rolloff
//! With `d` the emitter–listener distance, `r` the reference distance (full
//! gain inside it, [`crate::PlayerConfig::reference_distance`], default 1 m)
//! and `m` the entry's `max_distance`, every curve is 1 for `d <= r` and 0 for
//! `d >= m`; in between:
//!
//! | rolloff       | gain                                   | character                              |
//! |---------------|----------------------------------------|----------------------------------------|
//! | `linear`      | `1 - (d - r) / (m - r)`                | straight line to silence               |
//! | `inverse`     | `(r/d - r/m) / (1 - r/m)`              | physical `r/d`, shifted to reach 0 at m |
//! | `logarithmic` | `1 - ln(d/r) / ln(m/r)`                | equal dB loss per doubling of distance  |
//!
//! When `m <= r` the curve is a step: 1 below `m`, 0 from `m` on.
//!
//! # Panning
//! Our own equal-power panner (rodio 0.23's `Spatial` pans to the wrong ear,
//! rodio issue 884): `pan = dot(normalize(emitter - listener), right)` with
//! `right = normalize(forward × up)`, in `[-1, 1]` (−1 hard left). Then with
//! `θ = (pan + 1) · π/4` the channel gains are `L = cos θ`, `R = sin θ`, so
//! `L² + R² = 1` everywhere and the centre is `√½` on both sides.
//!
//! # Fades
//! Linear in gain: fade-in `t / T`, fade-out `1 - t / T` for `t` in `[0, T]`.

use zoa_anim_core::Rolloff;
use zoa_anim_core::glam::Vec3;

/// Gain in `[0, 1]` at `distance` for `rolloff` (see the module table).
/// Negative distances count as 0; an infinite or NaN distance (an emitter
/// beyond the range of `f32`) is beyond every max distance: silent.
#[must_use]
pub fn distance_gain(rolloff: Rolloff, distance: f32, reference: f32, max_distance: f32) -> f32 {
    if !distance.is_finite() {
        return 0.0;
    }
    let d = distance.max(0.0);
    let r = reference.max(1e-4);
    let m = max_distance;
    if d >= m {
        return 0.0;
    }
    if d <= r {
        return 1.0;
    }
    let g = match rolloff {
        Rolloff::Linear => 1.0 - (d - r) / (m - r),
        Rolloff::Inverse => (r / d - r / m) / (1.0 - r / m),
        Rolloff::Logarithmic => 1.0 - (d / r).ln() / (m / r).ln(),
    };
    g.clamp(0.0, 1.0)
}

/// Equal-power gains `[left, right]` for `pan` in `[-1, 1]` (clamped; NaN = centre).
#[inline]
#[must_use]
pub fn equal_power_pan(pan: f32) -> [f32; 2] {
    let p = if pan.is_nan() { 0.0 } else { pan.clamp(-1.0, 1.0) };
    let theta = (p + 1.0) * std::f32::consts::FRAC_PI_4;
    [theta.cos(), theta.sin()]
}

/// Fade-in gain `t / fade` clamped to `[0, 1]`; 1 when `fade <= 0`.
#[inline]
#[must_use]
pub fn fade_in_gain(t: f32, fade: f32) -> f32 {
    if fade <= 0.0 { 1.0 } else { (t / fade).clamp(0.0, 1.0) }
}

/// Fade-out gain `1 - t / fade` clamped to `[0, 1]`; 0 when `fade <= 0`.
#[inline]
#[must_use]
pub fn fade_out_gain(t: f32, fade: f32) -> f32 {
    if fade <= 0.0 { 0.0 } else { (1.0 - t / fade).clamp(0.0, 1.0) }
}

/// Where the player hears from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Listener {
    /// Position, metres (world space).
    pub position: Vec3,
    /// Facing direction (need not be normalised; default −Z).
    pub forward: Vec3,
    /// Up direction (need not be normalised; default +Y).
    pub up: Vec3,
}

impl Default for Listener {
    fn default() -> Self {
        Listener { position: Vec3::ZERO, forward: Vec3::NEG_Z, up: Vec3::Y }
    }
}

impl Listener {
    /// The listener's right-hand direction, `normalize(forward × up)`; +X for the default.
    #[must_use]
    pub fn right(&self) -> Vec3 {
        self.forward.cross(self.up).normalize_or_zero()
    }

    /// Pan in `[-1, 1]` of a source at `emitter`: the sine of its azimuth
    /// relative to the listener's facing (0 straight ahead, behind, or on top).
    #[must_use]
    pub fn pan_of(&self, emitter: Vec3) -> f32 {
        let to = (emitter - self.position).normalize_or_zero();
        to.dot(self.right()).clamp(-1.0, 1.0)
    }

    /// Distance to `emitter`, metres, computed in `f64` so that far-apart
    /// positions do not overflow to a wrong value; `+inf` when the distance
    /// exceeds `f32::MAX`.
    #[must_use]
    pub fn distance_to(&self, emitter: Vec3) -> f32 {
        let d = (emitter.as_dvec3() - self.position.as_dvec3()).length();
        if d.is_nan() { f32::INFINITY } else { d as f32 }
    }

    /// Whether every component is finite.
    #[must_use]
    pub fn is_finite(&self) -> bool {
        self.position.is_finite() && self.forward.is_finite() && self.up.is_finite()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rolloff_endpoints_and_midpoints() {
        for r in [Rolloff::Linear, Rolloff::Inverse, Rolloff::Logarithmic] {
            assert_eq!(distance_gain(r, 0.5, 1.0, 10.0), 1.0);
            assert_eq!(distance_gain(r, 1.0, 1.0, 10.0), 1.0);
            assert_eq!(distance_gain(r, 10.0, 1.0, 10.0), 0.0);
            assert_eq!(distance_gain(r, 50.0, 1.0, 10.0), 0.0);
            assert_eq!(distance_gain(r, f32::NAN, 1.0, 10.0), 0.0);
            assert_eq!(distance_gain(r, f32::INFINITY, 1.0, 10.0), 0.0);
            assert_eq!(distance_gain(r, 1e20, 1.0, 10.0), 0.0);
            assert_eq!(distance_gain(r, -3.0, 1.0, 10.0), 1.0);
        }
        assert!((distance_gain(Rolloff::Linear, 5.5, 1.0, 10.0) - 0.5).abs() < 1e-6);
        // inverse at d = 2, m = 10: (0.5 - 0.1) / 0.9
        assert!((distance_gain(Rolloff::Inverse, 2.0, 1.0, 10.0) - 0.4 / 0.9).abs() < 1e-6);
        // log at geometric midpoint sqrt(10): 0.5
        assert!((distance_gain(Rolloff::Logarithmic, 10f32.sqrt(), 1.0, 10.0) - 0.5).abs() < 1e-6);
        // step when m <= r
        assert_eq!(distance_gain(Rolloff::Linear, 0.5, 2.0, 1.0), 1.0);
        assert_eq!(distance_gain(Rolloff::Linear, 1.5, 2.0, 1.0), 0.0);
    }

    #[test]
    fn pan_is_equal_power_and_on_the_correct_ear() {
        let l = Listener::default();
        assert!(l.pan_of(Vec3::new(5.0, 0.0, 0.0)) > 0.99, "+X is to the right of a -Z facing listener");
        let [left, right] = equal_power_pan(l.pan_of(Vec3::new(5.0, 0.0, 0.0)));
        assert!(right > 0.99 && left < 0.01);
        let [cl, cr] = equal_power_pan(0.0);
        assert!((cl - std::f32::consts::FRAC_1_SQRT_2).abs() < 1e-6 && (cl - cr).abs() < 1e-6);
        for i in 0..=20 {
            let [a, b] = equal_power_pan(-1.0 + i as f32 / 10.0);
            assert!((a * a + b * b - 1.0).abs() < 1e-5);
        }
        let turned = Listener { forward: Vec3::X, ..Listener::default() };
        assert!(turned.pan_of(Vec3::new(0.0, 0.0, 5.0)) > 0.99, "facing +X, +Z is on the right");
    }

    #[test]
    fn far_emitters_are_far() {
        let l = Listener::default();
        assert_eq!(l.distance_to(Vec3::new(1e20, 0.0, 0.0)), 1e20);
        assert!(l.distance_to(Vec3::new(3e38, 3e38, 0.0)).is_infinite(), "beyond f32: infinite, not NaN or 0");
        let far = Listener { position: Vec3::splat(-3e38), ..Listener::default() };
        assert!(far.distance_to(Vec3::splat(3e38)).is_infinite());
        assert_eq!(distance_gain(Rolloff::Inverse, l.distance_to(Vec3::new(0.0, 0.0, -1e20)), 1.0, 100.0), 0.0);
    }

    #[test]
    fn fades_are_linear() {
        assert_eq!(fade_in_gain(0.25, 1.0), 0.25);
        assert_eq!(fade_out_gain(0.25, 1.0), 0.75);
        assert_eq!(fade_in_gain(3.0, 0.0), 1.0);
        assert_eq!(fade_out_gain(3.0, 0.0), 0.0);
    }
}

//! three.js's animation arithmetic transcribed literally in `f64`, the oracle
//! the runtime's pose kernels and layer composition are tested against:
//! `Quaternion.slerpFlat` ([`slerp`]), `multiplyQuaternionsFlat` ([`mul`]),
//! the linear interpolation of vector properties ([`lerp`]) and one rotation
//! property's `PropertyMixer` ([`Mixer`]: accumulate, accumulate additive,
//! apply over the rest value).
//!
//! Quaternions are `[x, y, z, w]` arrays, as `glam::Quat::to_array` gives them.
//!
//! ```
//! use zoa_test_support::three;
//!
//! let a = three::from_f32([0.0, 0.0, 0.0, 1.0]);
//! let b = three::from_f32([0.0, 0.0, 1.0, 0.0]); // half a turn about z
//! let half = three::slerp(a, b, 0.5);
//! let s = std::f64::consts::FRAC_1_SQRT_2;
//! assert!(half.iter().zip([0.0, 0.0, s, s]).all(|(g, w)| (g - w).abs() < 1e-12));
//! ```

/// A quaternion `[x, y, z, w]` in `f64`.
pub type Q = [f64; 4];

/// The identity rotation.
pub const IDENTITY: Q = [0.0, 0.0, 0.0, 1.0];

/// Widens an `f32` array (a quaternion or a vector) to `f64`.
#[must_use]
pub fn from_f32<const N: usize>(v: [f32; N]) -> [f64; N] {
    v.map(f64::from)
}

/// The four-component dot product (the cosine of the arc between unit
/// quaternions).
#[must_use]
pub fn dot(a: Q, b: Q) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3]
}

/// `Quaternion.slerpFlat`: shortest-arc spherical interpolation that keeps
/// the sign of `a`, exact at `t = 0` and `t = 1` and when `a == b`.
///
/// three.js renormalizes when its sine ratios equal the linear weights
/// (`s == 1 − t`), meant for its small-angle branch (`sin² ≤ ε`, where it
/// falls back to a linear blend); the ratios also round to the linear weights
/// for `t` below about 1e-16, where renormalizing would move only a non-unit
/// input. This transcription renormalizes in the small-angle branch only, so
/// slightly non-unit inputs are compared fairly.
#[must_use]
pub fn slerp(a: Q, b: Q, t: f64) -> Q {
    if t == 0.0 {
        return a;
    }
    if t == 1.0 {
        return b;
    }
    if a == b {
        return a;
    }
    let cos = dot(a, b);
    let dir = if cos >= 0.0 { 1.0 } else { -1.0 };
    let sqr_sin = 1.0 - cos * cos;
    let small_angle = sqr_sin <= f64::EPSILON;
    let (mut s, mut tt) = (1.0 - t, t);
    if !small_angle {
        let sin = sqr_sin.sqrt();
        let len = sin.atan2(cos * dir);
        s = (s * len).sin() / sin;
        tt = (tt * len).sin() / sin;
    }
    let td = tt * dir;
    let r: Q = std::array::from_fn(|i| a[i] * s + b[i] * td);
    if small_angle {
        let f = 1.0 / dot(r, r).sqrt();
        r.map(|x| x * f)
    } else {
        r
    }
}

/// The Hamilton product `a·b` (`b` applied first).
#[must_use]
pub fn mul(a: Q, b: Q) -> Q {
    let [ax, ay, az, aw] = a;
    let [bx, by, bz, bw] = b;
    [
        ax * bw + aw * bx + ay * bz - az * by,
        ay * bw + aw * by + az * bx - ax * bz,
        az * bw + aw * bz + ax * by - ay * bx,
        aw * bw - ax * bx - ay * by - az * bz,
    ]
}

/// The inverse of a (not necessarily unit) quaternion's rotation: the
/// conjugate of its normalized form.
#[must_use]
pub fn inverse(q: Q) -> Q {
    let l = dot(q, q).sqrt();
    [-q[0] / l, -q[1] / l, -q[2] / l, q[3] / l]
}

/// `a·(1−t) + b·t` per component, three.js's vector interpolation.
#[must_use]
pub fn lerp<const N: usize>(a: [f64; N], b: [f64; N], t: f64) -> [f64; N] {
    std::array::from_fn(|i| a[i] * (1.0 - t) + b[i] * t)
}

/// One rotation property's `PropertyMixer`: the accumulated value and its
/// weight `W`, and the additive buffer and its weight.
#[derive(Debug, Clone, Copy)]
pub struct Mixer {
    /// The weighted average accumulated so far.
    pub value: Q,
    /// The accumulated weight `W` (0 until the first input).
    pub weight: f64,
    /// The additive delta accumulated so far.
    pub add: Q,
    /// The accumulated additive weight.
    pub add_weight: f64,
}

impl Default for Mixer {
    fn default() -> Mixer {
        Mixer::new()
    }
}

impl Mixer {
    /// An empty mixer (no value, identity additive buffer).
    #[must_use]
    pub fn new() -> Mixer {
        Mixer { value: [0.0; 4], weight: 0.0, add: IDENTITY, add_weight: 0.0 }
    }

    /// `accumulate`: the first input is taken as is, each later one is
    /// slerped in by `w / W` (a running weighted average, no normalization).
    pub fn accumulate(&mut self, x: Q, w: f64) {
        if self.weight == 0.0 {
            self.value = x;
            self.weight = w;
        } else {
            self.weight += w;
            self.value = slerp(self.value, x, w / self.weight);
        }
    }

    /// `accumulateAdditive`: the delta `x` is applied by `w` on top of the
    /// additive buffer.
    pub fn accumulate_additive(&mut self, x: Q, w: f64) {
        if self.add_weight == 0.0 {
            self.add = IDENTITY;
        }
        self.add = slerp(self.add, mul(self.add, x), w);
        self.add_weight += w;
    }

    /// `apply`: the weight left below 1 is filled from `rest`, then the
    /// additive buffer is applied on top.
    #[must_use]
    pub fn apply(&self, rest: Q) -> Q {
        let mut v = self.value;
        if self.weight < 1.0 {
            v = slerp(v, rest, 1.0 - self.weight);
        }
        if self.add_weight > 0.0 { mul(v, self.add) } else { v }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: Q, b: Q) -> bool {
        a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-12)
    }

    #[test]
    fn slerp_takes_the_shortest_arc_and_keeps_the_sign_of_a() {
        let a = IDENTITY;
        // 3/4 turn about z seen as its opposite-hemisphere twin: the short way is −1/4 turn.
        let (s, c) = (0.75f64 * std::f64::consts::PI).sin_cos();
        let b = [0.0, 0.0, s, c].map(|x| -x);
        let got = slerp(a, b, 0.5);
        let (s, c) = (-0.125f64 * std::f64::consts::PI).sin_cos();
        assert!(close(got, [0.0, 0.0, s, c]), "{got:?}");
        assert_eq!(slerp(a, b, 0.0), a);
        assert_eq!(slerp(a, b, 1.0), b);
    }

    #[test]
    fn mixer_averages_fills_from_rest_and_applies_additive() {
        let quarter = {
            let (s, c) = (0.25f64 * std::f64::consts::PI).sin_cos();
            [0.0, 0.0, s, c]
        };
        let mut m = Mixer::new();
        m.accumulate(quarter, 0.5);
        // Half the weight: the other half comes from the rest (identity).
        assert!(close(m.apply(IDENTITY), slerp(IDENTITY, quarter, 0.5)));
        m.accumulate(IDENTITY, 0.5);
        assert!(close(m.apply(quarter), slerp(quarter, IDENTITY, 0.5)));
        m.accumulate_additive(quarter, 1.0);
        assert!(close(m.apply(quarter), mul(slerp(quarter, IDENTITY, 0.5), quarter)));
        assert!(close(mul(quarter, inverse(quarter)), IDENTITY));
    }
}

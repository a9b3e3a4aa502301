//! Platform-independent `f64` math for the fixture generator.
//!
//! `f64::sin` and friends call the platform's libm, whose last-bit results
//! differ between operating systems and versions. The fixture must be the
//! same bytes everywhere, so the few transcendental functions the generator
//! needs are computed here from IEEE-exact operations only (`+ - * /` and
//! `sqrt`, which IEEE 754 requires to be correctly rounded). Everything is
//! done in `f64` and rounded to `f32` once, at the end.

use std::f64::consts::{FRAC_PI_2, FRAC_PI_4, PI};

/// `π/2` split in a high part with trailing zero bits and a low correction
/// (Cody–Waite), so `x - n·π/2` stays exact for the small `n` used here.
const PIO2_HI: f64 = 1.570_796_326_734_125_6;
const PIO2_LO: f64 = 6.077_100_506_506_192e-11;

/// Sine and cosine of `x` (radians). Accurate to a few ulp for `|x| < 1e4`.
pub fn sin_cos(x: f64) -> (f64, f64) {
    let n = (x / FRAC_PI_2).round();
    let r = (x - n * PIO2_HI) - n * PIO2_LO;
    debug_assert!(r.abs() <= FRAC_PI_4 + 1e-9);
    let r2 = r * r;
    // Taylor series, Horner form; |r| <= π/4 so the first dropped term is < 1e-19.
    let s = r
        * (1.0
            + r2 * (-1.0 / 6.0
                + r2 * (1.0 / 120.0
                    + r2 * (-1.0 / 5040.0
                        + r2 * (1.0 / 362_880.0
                            + r2 * (-1.0 / 39_916_800.0
                                + r2 * (1.0 / 6_227_020_800.0
                                    + r2 * (-1.0 / 1_307_674_368_000.0 + r2 * (1.0 / 355_687_428_096_000.0)))))))));
    let c = 1.0
        + r2 * (-0.5
            + r2 * (1.0 / 24.0
                + r2 * (-1.0 / 720.0
                    + r2 * (1.0 / 40_320.0
                        + r2 * (-1.0 / 3_628_800.0
                            + r2 * (1.0 / 479_001_600.0
                                + r2 * (-1.0 / 87_178_291_200.0 + r2 * (1.0 / 20_922_789_888_000.0))))))));
    match (n as i64).rem_euclid(4) {
        0 => (s, c),
        1 => (c, -s),
        2 => (-s, -c),
        _ => (-c, s),
    }
}

/// Sine of `x` (radians).
pub fn sin(x: f64) -> f64 {
    sin_cos(x).0
}

/// Cosine of `x` (radians).
pub fn cos(x: f64) -> f64 {
    sin_cos(x).1
}

/// Arc tangent of `x`, in `-π/2..=π/2`.
pub fn atan(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    if x.abs() > 1.0 {
        return x.signum() * FRAC_PI_2 - atan(1.0 / x);
    }
    // Two half-angle reductions: atan(x) = 2·atan(x / (1 + sqrt(1 + x²))), leaving |x| <= tan(π/16).
    let mut y = x;
    for _ in 0..2 {
        y /= 1.0 + (1.0 + y * y).sqrt();
    }
    let y2 = y * y;
    let mut sum = 0.0;
    // Series terms (-1)^k y^(2k+1) / (2k+1), summed smallest first; 0.2^27/27 < 1e-20.
    for k in (0..14).rev() {
        let term = 1.0 / (2 * k + 1) as f64;
        sum = if k % 2 == 0 { term } else { -term } + y2 * sum;
    }
    4.0 * y * sum
}

/// Angle of the vector `(x, y)` from the +x axis, in `-π..=π`.
pub fn atan2(y: f64, x: f64) -> f64 {
    if x > 0.0 {
        atan(y / x)
    } else if x < 0.0 {
        if y >= 0.0 { atan(y / x) + PI } else { atan(y / x) - PI }
    } else if y > 0.0 {
        FRAC_PI_2
    } else if y < 0.0 {
        -FRAC_PI_2
    } else {
        0.0
    }
}

/// Arc cosine of `x` clamped to `-1..=1`, in `0..=π`.
pub fn acos(x: f64) -> f64 {
    let x = x.clamp(-1.0, 1.0);
    atan2((1.0 - x * x).sqrt(), x)
}

/// Hermite ease `3s² - 2s³` of `s` clamped to `0..=1`.
pub fn smooth(s: f64) -> f64 {
    let s = s.clamp(0.0, 1.0);
    s * s * (3.0 - 2.0 * s)
}

/// A 3-vector (metres or a direction).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct V3 {
    /// x (character's left is +x).
    pub x: f64,
    /// y (up).
    pub y: f64,
    /// z (character's forward).
    pub z: f64,
}

/// Shorthand constructor.
pub const fn v3(x: f64, y: f64, z: f64) -> V3 {
    V3 { x, y, z }
}

impl V3 {
    /// The zero vector.
    pub const ZERO: V3 = v3(0.0, 0.0, 0.0);

    /// `self + o`.
    pub fn add(self, o: V3) -> V3 {
        v3(self.x + o.x, self.y + o.y, self.z + o.z)
    }
    /// `self - o`.
    pub fn sub(self, o: V3) -> V3 {
        v3(self.x - o.x, self.y - o.y, self.z - o.z)
    }
    /// `self * s`.
    pub fn scale(self, s: f64) -> V3 {
        v3(self.x * s, self.y * s, self.z * s)
    }
    /// Dot product.
    pub fn dot(self, o: V3) -> f64 {
        self.x * o.x + self.y * o.y + self.z * o.z
    }
    /// Cross product.
    pub fn cross(self, o: V3) -> V3 {
        v3(self.y * o.z - self.z * o.y, self.z * o.x - self.x * o.z, self.x * o.y - self.y * o.x)
    }
    /// Euclidean length.
    pub fn length(self) -> f64 {
        self.dot(self).sqrt()
    }
    /// Unit vector in the same direction (`self` must not be zero).
    pub fn normalize(self) -> V3 {
        self.scale(1.0 / self.length())
    }
    /// Linear interpolation.
    pub fn lerp(self, o: V3, t: f64) -> V3 {
        self.add(o.sub(self).scale(t))
    }
    /// Mirror image across the character's sagittal plane (x → -x).
    pub fn mirror(self) -> V3 {
        v3(-self.x, self.y, self.z)
    }
    /// As `f32` components.
    pub fn to_f32(self) -> [f32; 3] {
        [self.x as f32, self.y as f32, self.z as f32]
    }
}

/// A unit quaternion (Hamilton convention, `x y z w` like glTF).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Q {
    /// Vector part x.
    pub x: f64,
    /// Vector part y.
    pub y: f64,
    /// Vector part z.
    pub z: f64,
    /// Scalar part.
    pub w: f64,
}

impl Q {
    /// No rotation.
    pub const IDENTITY: Q = Q { x: 0.0, y: 0.0, z: 0.0, w: 1.0 };

    /// Rotation by `angle` radians about the unit `axis` (right-handed).
    pub fn axis_angle(axis: V3, angle: f64) -> Q {
        let (s, c) = sin_cos(angle * 0.5);
        Q { x: axis.x * s, y: axis.y * s, z: axis.z * s, w: c }
    }
    /// Rotation about +x.
    pub fn rx(angle: f64) -> Q {
        Q::axis_angle(v3(1.0, 0.0, 0.0), angle)
    }
    /// Rotation about +y.
    pub fn ry(angle: f64) -> Q {
        Q::axis_angle(v3(0.0, 1.0, 0.0), angle)
    }
    /// Rotation about +z.
    pub fn rz(angle: f64) -> Q {
        Q::axis_angle(v3(0.0, 0.0, 1.0), angle)
    }
    /// The shortest rotation taking unit `from` onto unit `to`.
    pub fn arc(from: V3, to: V3) -> Q {
        let d = from.dot(to);
        if d < -0.999_999 {
            // Opposite: any axis perpendicular to `from`.
            let axis = if from.x.abs() < 0.9 { v3(1.0, 0.0, 0.0) } else { v3(0.0, 1.0, 0.0) };
            return Q::axis_angle(from.cross(axis).normalize(), PI);
        }
        let c = from.cross(to);
        Q { x: c.x, y: c.y, z: c.z, w: 1.0 + d }.normalize()
    }
    /// `self * o` (apply `o` first, then `self`).
    pub fn mul(self, o: Q) -> Q {
        Q {
            x: self.w * o.x + self.x * o.w + self.y * o.z - self.z * o.y,
            y: self.w * o.y - self.x * o.z + self.y * o.w + self.z * o.x,
            z: self.w * o.z + self.x * o.y - self.y * o.x + self.z * o.w,
            w: self.w * o.w - self.x * o.x - self.y * o.y - self.z * o.z,
        }
    }
    /// Inverse of a unit quaternion.
    pub fn conj(self) -> Q {
        Q { x: -self.x, y: -self.y, z: -self.z, w: self.w }
    }
    /// Rescaled to unit length.
    pub fn normalize(self) -> Q {
        let n = (self.x * self.x + self.y * self.y + self.z * self.z + self.w * self.w).sqrt();
        Q { x: self.x / n, y: self.y / n, z: self.z / n, w: self.w / n }
    }
    /// Rotates `v`.
    pub fn rotate(self, v: V3) -> V3 {
        let u = v3(self.x, self.y, self.z);
        let t = u.cross(v).scale(2.0);
        v.add(t.scale(self.w)).add(u.cross(t))
    }
    /// Mirror image across the sagittal plane: the rotation a mirrored limb makes.
    pub fn mirror(self) -> Q {
        Q { x: self.x, y: -self.y, z: -self.z, w: self.w }
    }
    /// `x y z w` as `f32`, sign chosen so `w >= 0` (one canonical form per rotation).
    pub fn to_f32(self) -> [f32; 4] {
        let s = if self.w < 0.0 { -1.0 } else { 1.0 };
        [(self.x * s) as f32, (self.y * s) as f32, (self.z * s) as f32, (self.w * s) as f32]
    }
}

/// The body-part rotation for `pitch` (forward/down positive: a bone pointing
/// down swings forward, a bone pointing forward tilts up), `yaw` (turn to the
/// character's left positive) and `roll` (left side up positive), applied
/// roll first, then pitch, then yaw.
pub fn euler(pitch: f64, yaw: f64, roll: f64) -> Q {
    Q::ry(yaw).mul(Q::rx(-pitch)).mul(Q::rz(roll))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transcendentals_match_std_closely() {
        let mut x = -12.0;
        while x < 12.0 {
            let (s, c) = sin_cos(x);
            assert!((s - x.sin()).abs() < 4e-16, "sin {x}");
            assert!((c - x.cos()).abs() < 4e-16, "cos {x}");
            assert!((atan(x) - x.atan()).abs() < 1e-15, "atan {x}");
            x += 0.0137;
        }
        for i in 0..=200 {
            let v = -1.0 + i as f64 / 100.0;
            assert!((acos(v) - v.acos()).abs() < 2e-15, "acos {v}");
        }
        for (y, x) in [(1.0, 1.0), (1.0, -1.0), (-1.0, -1.0), (-1.0, 1.0), (0.0, -1.0), (2.0, 0.0), (-2.0, 0.0)] {
            assert!((atan2(y, x) - f64::atan2(y, x)).abs() < 1e-15, "atan2 {y} {x}");
        }
    }

    #[test]
    fn quaternions_rotate_like_the_conventions_say() {
        let close = |a: V3, b: V3| a.sub(b).length() < 1e-12;
        // Positive pitch swings a downward bone forward and tilts a forward bone up.
        assert!(close(euler(FRAC_PI_2, 0.0, 0.0).rotate(v3(0.0, -1.0, 0.0)), v3(0.0, 0.0, 1.0)));
        assert!(close(euler(FRAC_PI_2, 0.0, 0.0).rotate(v3(0.0, 0.0, 1.0)), v3(0.0, 1.0, 0.0)));
        // Positive yaw turns forward toward the character's left (+x); positive roll lifts +x.
        assert!(close(euler(0.0, FRAC_PI_2, 0.0).rotate(v3(0.0, 0.0, 1.0)), v3(1.0, 0.0, 0.0)));
        assert!(close(euler(0.0, 0.0, FRAC_PI_2).rotate(v3(1.0, 0.0, 0.0)), v3(0.0, 1.0, 0.0)));
        // Mirroring a rotation mirrors what it does to mirrored vectors.
        let q = euler(0.3, -0.7, 1.1);
        let v = v3(0.2, -0.5, 0.9);
        assert!(close(q.mirror().rotate(v.mirror()), q.rotate(v).mirror()));
        let a = v3(0.0, -1.0, 0.0);
        let b = v3(0.6, -0.8, 0.0);
        assert!(close(Q::arc(a, b).rotate(a), b));
        assert!(close(Q::arc(a, a.scale(-1.0)).rotate(a), a.scale(-1.0)));
        assert!(close(q.conj().rotate(q.rotate(v)), v));
    }
}

//! Four lanes through `glam`: the four-lane path outside x86-64 (NEON on
//! aarch64), tested everywhere.

use std::ops::{Add, Div, Mul, Neg, Sub};

use super::scalar::transpose4;
use super::{Lanes, Row};

/// Four lanes through `glam::Vec4`: NEON on aarch64, SSE2 on x86, scalar
/// elsewhere. The four-lane path outside x86-64; tested everywhere.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
pub(crate) struct Glam4(pub(super) glam::Vec4);

macro_rules! glam_op {
    ($tr:ident, $f:ident, $op:tt) => {
        impl $tr for Glam4 {
            type Output = Glam4;
            #[inline(always)]
            fn $f(self, o: Glam4) -> Glam4 {
                Glam4(self.0 $op o.0)
            }
        }
    };
}
glam_op!(Add, add, +);
glam_op!(Sub, sub, -);
glam_op!(Mul, mul, *);
glam_op!(Div, div, /);
impl Neg for Glam4 {
    type Output = Glam4;
    #[inline(always)]
    fn neg(self) -> Glam4 {
        Glam4(-self.0)
    }
}

impl Lanes for Glam4 {
    type Mask = glam::BVec4A;
    const LANES: usize = 4;
    #[inline(always)]
    fn transpose<const Q: usize>(records: &[&[[f32; 4]; Q]], field: usize, at: usize) -> [Self; 4] {
        transpose4(records, field, at).map(|c| Glam4(glam::Vec4::from_array(c)))
    }
    #[inline(always)]
    fn splat(x: f32) -> Self {
        Glam4(glam::Vec4::splat(x))
    }
    #[inline(always)]
    fn load(row: &Row, at: usize) -> Self {
        Glam4(glam::Vec4::from_slice(&row.0[at..at + 4]))
    }
    #[inline(always)]
    fn store(self, row: &mut Row, at: usize) {
        self.0.write_to_slice(&mut row.0[at..at + 4]);
    }
    #[inline(always)]
    fn load_flat(src: &[f32]) -> Self {
        Glam4(glam::Vec4::from_slice(src))
    }
    #[inline(always)]
    fn store_flat(self, dst: &mut [f32]) {
        self.0.write_to_slice(dst);
    }
    #[inline(always)]
    fn sqrt(self) -> Self {
        Glam4(glam::Vec4::from_array(self.0.to_array().map(f32::sqrt)))
    }
    #[inline(always)]
    fn min(self, o: Self) -> Self {
        Glam4(glam::Vec4::select(self.0.cmplt(o.0), self.0, o.0))
    }
    #[inline(always)]
    fn abs(self) -> Self {
        Glam4(self.0.abs())
    }
    #[inline(always)]
    fn mul_add(self, b: Self, c: Self) -> Self {
        self * b + c
    }
    #[inline(always)]
    fn flip_sign(self, m: glam::BVec4A) -> Self {
        Glam4(glam::Vec4::select(m, -self.0, self.0))
    }
    #[inline(always)]
    fn lt(self, o: Self) -> glam::BVec4A {
        self.0.cmplt(o.0)
    }
    #[inline(always)]
    fn le(self, o: Self) -> glam::BVec4A {
        self.0.cmple(o.0)
    }
    #[inline(always)]
    fn gt(self, o: Self) -> glam::BVec4A {
        self.0.cmpgt(o.0)
    }
    #[inline(always)]
    fn ge(self, o: Self) -> glam::BVec4A {
        self.0.cmpge(o.0)
    }
    #[inline(always)]
    fn eq(self, o: Self) -> glam::BVec4A {
        self.0.cmpeq(o.0)
    }
    #[inline(always)]
    fn select(m: glam::BVec4A, a: Self, b: Self) -> Self {
        Glam4(glam::Vec4::select(m, a.0, b.0))
    }
    #[inline(always)]
    fn any(m: glam::BVec4A) -> bool {
        m.any()
    }
    #[inline(always)]
    fn all(m: glam::BVec4A) -> bool {
        m.all()
    }
    #[inline(always)]
    fn bits(bytes: &[u8], bit: u8) -> glam::BVec4A {
        glam::BVec4A::new(bytes[0] & bit != 0, bytes[1] & bit != 0, bytes[2] & bit != 0, bytes[3] & bit != 0)
    }
}

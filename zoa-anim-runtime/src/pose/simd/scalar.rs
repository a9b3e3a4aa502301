//! The scalar path: four `f32` lanes computed one after the other, the
//! portable reference every other path agrees with.

use std::ops::{Add, BitAnd, BitOr, Div, Mul, Neg, Not, Sub};

use super::{Lanes, Row};

/// [`Lanes::transpose`] for four lanes, one float at a time.
#[inline(always)]
pub(super) fn transpose4<const Q: usize>(records: &[&[[f32; 4]; Q]], field: usize, at: usize) -> [[f32; 4]; 4] {
    let q = &records[at..at + 4];
    std::array::from_fn(|c| [q[0][field][c], q[1][field][c], q[2][field][c], q[3][field][c]])
}

/// Four lanes computed one at a time: the reference path.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Scalar4(pub(super) [f32; 4]);

/// Per-lane booleans of [`Scalar4`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct ScalarMask([bool; 4]);

macro_rules! lanewise {
    ($ty:ident, $tr:ident, $f:ident, $op:tt) => {
        impl $tr for $ty {
            type Output = $ty;
            #[inline(always)]
            fn $f(self, o: $ty) -> $ty {
                $ty(std::array::from_fn(|i| self.0[i] $op o.0[i]))
            }
        }
    };
}
lanewise!(Scalar4, Add, add, +);
lanewise!(Scalar4, Sub, sub, -);
lanewise!(Scalar4, Mul, mul, *);
lanewise!(Scalar4, Div, div, /);
lanewise!(ScalarMask, BitAnd, bitand, &);
lanewise!(ScalarMask, BitOr, bitor, |);

impl Neg for Scalar4 {
    type Output = Scalar4;
    #[inline(always)]
    fn neg(self) -> Scalar4 {
        Scalar4(self.0.map(|x| -x))
    }
}
impl Not for ScalarMask {
    type Output = ScalarMask;
    #[inline(always)]
    fn not(self) -> ScalarMask {
        ScalarMask(self.0.map(|x| !x))
    }
}

impl Scalar4 {
    #[inline(always)]
    fn cmp(self, o: Scalar4, f: impl Fn(f32, f32) -> bool) -> ScalarMask {
        ScalarMask(std::array::from_fn(|i| f(self.0[i], o.0[i])))
    }
}

impl Lanes for Scalar4 {
    type Mask = ScalarMask;
    const LANES: usize = 4;
    #[inline(always)]
    fn transpose<const Q: usize>(records: &[&[[f32; 4]; Q]], field: usize, at: usize) -> [Self; 4] {
        transpose4(records, field, at).map(Scalar4)
    }
    #[inline(always)]
    fn splat(x: f32) -> Self {
        Scalar4([x; 4])
    }
    #[inline(always)]
    fn load(row: &Row, at: usize) -> Self {
        Scalar4(std::array::from_fn(|i| row.0[at + i]))
    }
    #[inline(always)]
    fn store(self, row: &mut Row, at: usize) {
        row.0[at..at + 4].copy_from_slice(&self.0);
    }
    #[inline(always)]
    fn load_flat(src: &[f32]) -> Self {
        Scalar4([src[0], src[1], src[2], src[3]])
    }
    #[inline(always)]
    fn store_flat(self, dst: &mut [f32]) {
        dst[..4].copy_from_slice(&self.0);
    }
    #[inline(always)]
    fn sqrt(self) -> Self {
        Scalar4(self.0.map(f32::sqrt))
    }
    #[inline(always)]
    fn min(self, o: Self) -> Self {
        // Like `minps`: the second operand when either is NaN.
        Scalar4(std::array::from_fn(|i| if self.0[i] < o.0[i] { self.0[i] } else { o.0[i] }))
    }
    #[inline(always)]
    fn abs(self) -> Self {
        Scalar4(self.0.map(f32::abs))
    }
    #[inline(always)]
    fn mul_add(self, b: Self, c: Self) -> Self {
        self * b + c
    }
    #[inline(always)]
    fn flip_sign(self, m: ScalarMask) -> Self {
        Scalar4(std::array::from_fn(|i| if m.0[i] { -self.0[i] } else { self.0[i] }))
    }
    #[inline(always)]
    fn lt(self, o: Self) -> ScalarMask {
        self.cmp(o, |a, b| a < b)
    }
    #[inline(always)]
    fn le(self, o: Self) -> ScalarMask {
        self.cmp(o, |a, b| a <= b)
    }
    #[inline(always)]
    fn gt(self, o: Self) -> ScalarMask {
        self.cmp(o, |a, b| a > b)
    }
    #[inline(always)]
    fn ge(self, o: Self) -> ScalarMask {
        self.cmp(o, |a, b| a >= b)
    }
    #[inline(always)]
    fn eq(self, o: Self) -> ScalarMask {
        self.cmp(o, |a, b| a == b)
    }
    #[inline(always)]
    fn select(m: ScalarMask, a: Self, b: Self) -> Self {
        Scalar4(std::array::from_fn(|i| if m.0[i] { a.0[i] } else { b.0[i] }))
    }
    #[inline(always)]
    fn any(m: ScalarMask) -> bool {
        m.0.iter().any(|&x| x)
    }
    #[inline(always)]
    fn all(m: ScalarMask) -> bool {
        m.0.iter().all(|&x| x)
    }
    #[inline(always)]
    fn bits(bytes: &[u8], bit: u8) -> ScalarMask {
        ScalarMask(std::array::from_fn(|i| bytes[i] & bit != 0))
    }
}

//! The x86-64 paths: four SSE2 lanes (part of every x86-64 CPU) and eight
//! AVX2 lanes with FMA.

use std::arch::x86_64::*;
use std::ops::{Add, BitAnd, BitOr, Div, Mul, Neg, Not, Sub};

use super::{Lanes, Row};

macro_rules! binop {
    ($ty:ident, $tr:ident, $f:ident, $intr:ident) => {
        impl $tr for $ty {
            type Output = $ty;
            #[inline(always)]
            fn $f(self, o: $ty) -> $ty {
                // SAFETY: the instruction set of this type is enabled
                // wherever its values exist (see the type's docs).
                $ty(unsafe { $intr(self.0, o.0) })
            }
        }
    };
}

/// Four SSE2 lanes (part of every x86-64 CPU).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Sse4(__m128);
/// Per-lane all-ones / all-zeros of [`Sse4`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct Sse4Mask(__m128);

binop!(Sse4, Add, add, _mm_add_ps);
binop!(Sse4, Sub, sub, _mm_sub_ps);
binop!(Sse4, Mul, mul, _mm_mul_ps);
binop!(Sse4, Div, div, _mm_div_ps);
binop!(Sse4Mask, BitAnd, bitand, _mm_and_ps);
binop!(Sse4Mask, BitOr, bitor, _mm_or_ps);

impl Neg for Sse4 {
    type Output = Sse4;
    #[inline(always)]
    fn neg(self) -> Sse4 {
        // SAFETY: SSE2 is part of x86-64.
        Sse4(unsafe { _mm_xor_ps(self.0, _mm_set1_ps(-0.0)) })
    }
}
impl Not for Sse4Mask {
    type Output = Sse4Mask;
    #[inline(always)]
    fn not(self) -> Sse4Mask {
        // SAFETY: SSE2 is part of x86-64.
        Sse4Mask(unsafe { _mm_xor_ps(self.0, _mm_castsi128_ps(_mm_set1_epi32(-1))) })
    }
}

// SAFETY (every `unsafe` block of this impl): SSE2 is part of x86-64;
// loads and stores stay inside the row (`at` is 0 or 4, checked), and
// `transpose` loads whole quads it holds references to.
impl Lanes for Sse4 {
    type Mask = Sse4Mask;
    const LANES: usize = 4;
    #[inline(always)]
    fn transpose<const Q: usize>(records: &[&[[f32; 4]; Q]], field: usize, at: usize) -> [Self; 4] {
        let q = &records[at..at + 4];
        unsafe {
            let (r0, r1) = (_mm_loadu_ps(q[0][field].as_ptr()), _mm_loadu_ps(q[1][field].as_ptr()));
            let (r2, r3) = (_mm_loadu_ps(q[2][field].as_ptr()), _mm_loadu_ps(q[3][field].as_ptr()));
            // x0 x1 y0 y1 / z0 z1 w0 w1, and the same for lanes 2 and 3.
            let (lo01, hi01) = (_mm_unpacklo_ps(r0, r1), _mm_unpackhi_ps(r0, r1));
            let (lo23, hi23) = (_mm_unpacklo_ps(r2, r3), _mm_unpackhi_ps(r2, r3));
            [
                Sse4(_mm_movelh_ps(lo01, lo23)),
                Sse4(_mm_movehl_ps(lo23, lo01)),
                Sse4(_mm_movelh_ps(hi01, hi23)),
                Sse4(_mm_movehl_ps(hi23, hi01)),
            ]
        }
    }
    #[inline(always)]
    fn splat(x: f32) -> Self {
        Sse4(unsafe { _mm_set1_ps(x) })
    }
    #[inline(always)]
    fn load(row: &Row, at: usize) -> Self {
        Sse4(unsafe { _mm_load_ps(row.0[at..at + 4].as_ptr()) })
    }
    #[inline(always)]
    fn store(self, row: &mut Row, at: usize) {
        unsafe { _mm_store_ps(row.0[at..at + 4].as_mut_ptr(), self.0) }
    }
    #[inline(always)]
    fn load_flat(src: &[f32]) -> Self {
        Sse4(unsafe { _mm_loadu_ps(src[..4].as_ptr()) })
    }
    #[inline(always)]
    fn store_flat(self, dst: &mut [f32]) {
        unsafe { _mm_storeu_ps(dst[..4].as_mut_ptr(), self.0) }
    }
    #[inline(always)]
    fn sqrt(self) -> Self {
        Sse4(unsafe { _mm_sqrt_ps(self.0) })
    }
    #[inline(always)]
    fn min(self, o: Self) -> Self {
        Sse4(unsafe { _mm_min_ps(self.0, o.0) })
    }
    #[inline(always)]
    fn abs(self) -> Self {
        Sse4(unsafe { _mm_andnot_ps(_mm_set1_ps(-0.0), self.0) })
    }
    #[inline(always)]
    fn mul_add(self, b: Self, c: Self) -> Self {
        self * b + c
    }
    #[inline(always)]
    fn flip_sign(self, m: Sse4Mask) -> Self {
        Sse4(unsafe { _mm_xor_ps(self.0, _mm_and_ps(m.0, _mm_set1_ps(-0.0))) })
    }
    #[inline(always)]
    fn lt(self, o: Self) -> Sse4Mask {
        Sse4Mask(unsafe { _mm_cmplt_ps(self.0, o.0) })
    }
    #[inline(always)]
    fn le(self, o: Self) -> Sse4Mask {
        Sse4Mask(unsafe { _mm_cmple_ps(self.0, o.0) })
    }
    #[inline(always)]
    fn gt(self, o: Self) -> Sse4Mask {
        Sse4Mask(unsafe { _mm_cmpgt_ps(self.0, o.0) })
    }
    #[inline(always)]
    fn ge(self, o: Self) -> Sse4Mask {
        Sse4Mask(unsafe { _mm_cmpge_ps(self.0, o.0) })
    }
    #[inline(always)]
    fn eq(self, o: Self) -> Sse4Mask {
        Sse4Mask(unsafe { _mm_cmpeq_ps(self.0, o.0) })
    }
    #[inline(always)]
    fn select(m: Sse4Mask, a: Self, b: Self) -> Self {
        Sse4(unsafe { _mm_or_ps(_mm_and_ps(m.0, a.0), _mm_andnot_ps(m.0, b.0)) })
    }
    #[inline(always)]
    fn any(m: Sse4Mask) -> bool {
        unsafe { _mm_movemask_ps(m.0) != 0 }
    }
    #[inline(always)]
    fn all(m: Sse4Mask) -> bool {
        unsafe { _mm_movemask_ps(m.0) == 0b1111 }
    }
    #[inline(always)]
    fn bits(bytes: &[u8], bit: u8) -> Sse4Mask {
        let word = i32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
        unsafe {
            let zero = _mm_setzero_si128();
            let v = _mm_unpacklo_epi16(_mm_unpacklo_epi8(_mm_cvtsi32_si128(word), zero), zero);
            let b = _mm_set1_epi32(i32::from(bit));
            Sse4Mask(_mm_castsi128_ps(_mm_cmpeq_epi32(_mm_and_si128(v, b), b)))
        }
    }
}

/// Eight AVX2 lanes with FMA: a whole block per vector.
///
/// Values of this type exist only inside functions compiled with
/// `#[target_feature(enable = "avx2,fma")]`, which the dispatcher calls
/// after detecting both features.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Avx8(__m256);
/// Per-lane all-ones / all-zeros of [`Avx8`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct Avx8Mask(__m256);

binop!(Avx8, Add, add, _mm256_add_ps);
binop!(Avx8, Sub, sub, _mm256_sub_ps);
binop!(Avx8, Mul, mul, _mm256_mul_ps);
binop!(Avx8, Div, div, _mm256_div_ps);
binop!(Avx8Mask, BitAnd, bitand, _mm256_and_ps);
binop!(Avx8Mask, BitOr, bitor, _mm256_or_ps);

impl Neg for Avx8 {
    type Output = Avx8;
    #[inline(always)]
    fn neg(self) -> Avx8 {
        // SAFETY: see the type's docs.
        Avx8(unsafe { _mm256_xor_ps(self.0, _mm256_set1_ps(-0.0)) })
    }
}
impl Not for Avx8Mask {
    type Output = Avx8Mask;
    #[inline(always)]
    fn not(self) -> Avx8Mask {
        // SAFETY: see the type's docs.
        Avx8Mask(unsafe { _mm256_xor_ps(self.0, _mm256_castsi256_ps(_mm256_set1_epi32(-1))) })
    }
}

// SAFETY (every `unsafe` block of this impl): AVX2 and FMA are enabled
// wherever an `Avx8` exists (see the type's docs); a row is 32-byte
// aligned and holds eight lanes, `load_flat` checks its slice, and
// `transpose` loads whole quads it holds references to.
impl Lanes for Avx8 {
    type Mask = Avx8Mask;
    const LANES: usize = 8;
    #[inline(always)]
    fn transpose<const Q: usize>(records: &[&[[f32; 4]; Q]], field: usize, at: usize) -> [Self; 4] {
        let q = &records[at..at + 8];
        unsafe {
            // Lanes k and k + 4 side by side, then the four-lane
            // transpose in both halves at once.
            // (Macros, not closures: a closure does not inherit the
            // kernel's target features.)
            macro_rules! pair {
                ($k:expr) => {
                    _mm256_insertf128_ps::<1>(
                        _mm256_castps128_ps256(_mm_loadu_ps(q[$k][field].as_ptr())),
                        _mm_loadu_ps(q[$k + 4][field].as_ptr()),
                    )
                };
            }
            macro_rules! half {
                ($op:ident, $a:expr, $b:expr) => {
                    Avx8(_mm256_castpd_ps($op(_mm256_castps_pd($a), _mm256_castps_pd($b))))
                };
            }
            let (r0, r1, r2, r3) = (pair!(0), pair!(1), pair!(2), pair!(3));
            let (lo01, hi01) = (_mm256_unpacklo_ps(r0, r1), _mm256_unpackhi_ps(r0, r1));
            let (lo23, hi23) = (_mm256_unpacklo_ps(r2, r3), _mm256_unpackhi_ps(r2, r3));
            [
                half!(_mm256_unpacklo_pd, lo01, lo23),
                half!(_mm256_unpackhi_pd, lo01, lo23),
                half!(_mm256_unpacklo_pd, hi01, hi23),
                half!(_mm256_unpackhi_pd, hi01, hi23),
            ]
        }
    }
    #[inline(always)]
    fn splat(x: f32) -> Self {
        Avx8(unsafe { _mm256_set1_ps(x) })
    }
    #[inline(always)]
    fn load(row: &Row, _at: usize) -> Self {
        Avx8(unsafe { _mm256_load_ps(row.0.as_ptr()) })
    }
    #[inline(always)]
    fn store(self, row: &mut Row, _at: usize) {
        unsafe { _mm256_store_ps(row.0.as_mut_ptr(), self.0) }
    }
    #[inline(always)]
    fn load_flat(src: &[f32]) -> Self {
        Avx8(unsafe { _mm256_loadu_ps(src[..8].as_ptr()) })
    }
    #[inline(always)]
    fn store_flat(self, dst: &mut [f32]) {
        unsafe { _mm256_storeu_ps(dst[..8].as_mut_ptr(), self.0) }
    }
    #[inline(always)]
    fn sqrt(self) -> Self {
        Avx8(unsafe { _mm256_sqrt_ps(self.0) })
    }
    #[inline(always)]
    fn min(self, o: Self) -> Self {
        Avx8(unsafe { _mm256_min_ps(self.0, o.0) })
    }
    #[inline(always)]
    fn abs(self) -> Self {
        Avx8(unsafe { _mm256_andnot_ps(_mm256_set1_ps(-0.0), self.0) })
    }
    #[inline(always)]
    fn mul_add(self, b: Self, c: Self) -> Self {
        Avx8(unsafe { _mm256_fmadd_ps(self.0, b.0, c.0) })
    }
    #[inline(always)]
    fn flip_sign(self, m: Avx8Mask) -> Self {
        Avx8(unsafe { _mm256_xor_ps(self.0, _mm256_and_ps(m.0, _mm256_set1_ps(-0.0))) })
    }
    #[inline(always)]
    fn lt(self, o: Self) -> Avx8Mask {
        Avx8Mask(unsafe { _mm256_cmp_ps::<_CMP_LT_OQ>(self.0, o.0) })
    }
    #[inline(always)]
    fn le(self, o: Self) -> Avx8Mask {
        Avx8Mask(unsafe { _mm256_cmp_ps::<_CMP_LE_OQ>(self.0, o.0) })
    }
    #[inline(always)]
    fn gt(self, o: Self) -> Avx8Mask {
        Avx8Mask(unsafe { _mm256_cmp_ps::<_CMP_GT_OQ>(self.0, o.0) })
    }
    #[inline(always)]
    fn ge(self, o: Self) -> Avx8Mask {
        Avx8Mask(unsafe { _mm256_cmp_ps::<_CMP_GE_OQ>(self.0, o.0) })
    }
    #[inline(always)]
    fn eq(self, o: Self) -> Avx8Mask {
        Avx8Mask(unsafe { _mm256_cmp_ps::<_CMP_EQ_OQ>(self.0, o.0) })
    }
    #[inline(always)]
    fn select(m: Avx8Mask, a: Self, b: Self) -> Self {
        Avx8(unsafe { _mm256_blendv_ps(b.0, a.0, m.0) })
    }
    #[inline(always)]
    fn any(m: Avx8Mask) -> bool {
        unsafe { _mm256_movemask_ps(m.0) != 0 }
    }
    #[inline(always)]
    fn all(m: Avx8Mask) -> bool {
        unsafe { _mm256_movemask_ps(m.0) == 0xff }
    }
    #[inline(always)]
    fn bits(bytes: &[u8], bit: u8) -> Avx8Mask {
        let word = i64::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7]]);
        unsafe {
            let v = _mm256_cvtepu8_epi32(_mm_cvtsi64_si128(word));
            let b = _mm256_set1_epi32(i32::from(bit));
            Avx8Mask(_mm256_castsi256_ps(_mm256_cmpeq_epi32(_mm256_and_si256(v, b), b)))
        }
    }
}

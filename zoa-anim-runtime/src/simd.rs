//! Lane vectors for the pose kernels, and which ones run.
//!
//! The pose jobs keep joints in structure-of-arrays blocks of eight
//! ([`crate::Pose`]): one row of eight `x`, one of eight `y`, and so on. A
//! kernel is written once, generic over a `Lanes` vector that covers half a
//! block (four lanes) or a whole one (eight lanes), and instantiated for each path:
//!
//! - `scalar`: four `f32` computed one after the other, the portable reference;
//! - `sse2` (x86-64) or `neon` (aarch64, through `glam`), four lanes;
//! - `avx2+fma` (x86-64 with both, detected at run time): eight lanes and fused
//!   multiply-adds.
//!
//! Every path does the same operations in the same order per lane, so the
//! scalar and four-lane paths agree bit for bit; the fused multiply-adds of
//! the eight-lane path round once instead of twice, which moves results by an
//! ulp or so (tests hold every path within 1e-6 of an `f64` reference). One
//! process uses one path, so serial and parallel evaluation stay identical.
//!
//! [`set_simd`] chooses between the scalar path and the best one the CPU has
//! (the default), for comparing them (`zoa-anim bench --simd`).

use std::ops::{Add, BitAnd, BitOr, Div, Mul, Neg, Not, Sub};
use std::sync::atomic::{AtomicU8, Ordering};

/// Which kernels the pose jobs run (process-wide).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Simd {
    /// Portable scalar code, lane by lane: the reference path.
    Scalar,
    /// The widest vector kernels this CPU supports, detected at run time.
    #[default]
    Auto,
}

/// Chooses the kernels every pose job runs from now on. Meant for set-up
/// (benchmarks, comparisons); results may differ between paths by an ulp.
pub fn set_simd(choice: Simd) {
    let level = match choice {
        Simd::Scalar => Level::Scalar,
        Simd::Auto => Level::detect(),
    };
    LEVEL.store(level as u8, Ordering::Relaxed);
}

/// The name of the path the pose jobs run: `scalar`, `sse2`, `avx2+fma`,
/// `neon` or `portable` (four lanes through `glam` on other targets).
#[must_use]
pub fn simd_path() -> &'static str {
    match level() {
        Level::Scalar => "scalar",
        Level::X4 if cfg!(target_arch = "x86_64") => "sse2",
        Level::X4 if cfg!(target_arch = "aarch64") => "neon",
        Level::X4 => "portable",
        Level::X8 => "avx2+fma",
    }
}

/// The kernel paths.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum Level {
    Scalar = 1,
    /// Four lanes: SSE2, NEON, or `glam`'s portable vectors.
    X4 = 2,
    /// Eight lanes with FMA (x86-64 with AVX2 and FMA).
    X8 = 3,
}

static LEVEL: AtomicU8 = AtomicU8::new(0);

impl Level {
    pub(crate) fn detect() -> Level {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma") {
            return Level::X8;
        }
        Level::X4
    }
}

/// The path in effect (detected on first use).
#[inline]
pub(crate) fn level() -> Level {
    match LEVEL.load(Ordering::Relaxed) {
        1 => Level::Scalar,
        2 => Level::X4,
        3 => Level::X8,
        _ => {
            let level = Level::detect();
            LEVEL.store(level as u8, Ordering::Relaxed);
            level
        }
    }
}

/// Asks the CPU to start loading the cache lines of `data` (at most
/// `max_bytes` of it) into cache, without waiting for them: a hint for the
/// buffers of the next character while this one is evaluated. Never faults
/// and changes no result; a no-op off x86-64.
#[inline(always)]
pub(crate) fn prefetch<T>(data: &[T], max_bytes: usize) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        let bytes = std::mem::size_of_val(data).min(max_bytes);
        let base = data.as_ptr().cast::<i8>();
        for offset in (0..bytes).step_by(64) {
            // SAFETY: a prefetch is a hint; it never faults, and the address
            // stays inside `data`.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(base.wrapping_add(offset)) };
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (data, max_bytes);
}

/// Whether a crowd prefetches the next characters' memory while one
/// updates: the instance, the small arrays that lead to its buffers, then
/// the whole per-frame buffers (key cursors, local pose, model matrices).
/// Measured on the crowd benchmark (1000 characters, one thread): on an AMD
/// EPYC (Zen) machine the whole-buffer prefetch took CesiumMan from 3580 to
/// 2990 ns per character-frame. On an Intel Xeon machine, whose L2 streamer
/// already fetches those sequential buffers, the whole-buffer prefetch
/// stalled on its fill buffers and cost 6–14% (Fox 862 → 963 ns); once each
/// instance's buffers sat next to each other, the small-array stages cost
/// 2–4% there as well (Fox 760 → 729 ns without them, and no change at
/// 10,000 characters). So a crowd prefetches on AMD (and Hygon) CPUs only.
/// Only a hint: results are the same either way.
pub(crate) fn crowd_prefetch() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(amd_like_cpu)
}

/// An x86-64 CPU whose vendor is AMD or Hygon (same cache design).
fn amd_like_cpu() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: `cpuid` exists on every x86-64 CPU.
        #[allow(unused_unsafe)]
        let leaf = unsafe { std::arch::x86_64::__cpuid(0) };
        amd_like_vendor(leaf.ebx)
    }
    #[cfg(not(target_arch = "x86_64"))]
    false
}

/// Whether `cpuid` leaf 0's `ebx` (the vendor string's first four bytes)
/// names AMD ("AuthenticAMD") or Hygon ("HygonGenuine").
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
fn amd_like_vendor(ebx: u32) -> bool {
    matches!(&ebx.to_le_bytes(), b"Auth" | b"Hygo")
}

/// Joints per SoA block: every pose array is a list of blocks of rows of
/// eight lanes, which the eight-lane path loads whole and the four-lane paths
/// in halves.
pub(crate) const BLOCK: usize = 8;

/// One component of the eight joints of a block (32-byte aligned, so loads
/// never split a cache line).
#[derive(Debug, Clone, Copy, PartialEq)]
#[repr(C, align(32))]
pub(crate) struct Row(pub(crate) [f32; BLOCK]);

impl Row {
    pub(crate) const fn splat(x: f32) -> Row {
        Row([x; BLOCK])
    }
}

/// Blocks holding `joints` lanes.
pub(crate) fn blocks_for(joints: usize) -> usize {
    joints.div_ceil(BLOCK)
}

/// A vector of four or eight `f32` lanes: half a block or a whole one.
///
/// `mul_add` is the only operation whose rounding differs between paths
/// (fused on the eight-lane path).
pub(crate) trait Lanes:
    Copy + Add<Output = Self> + Sub<Output = Self> + Mul<Output = Self> + Div<Output = Self> + Neg<Output = Self>
{
    /// Per-lane booleans.
    type Mask: Copy + BitAnd<Output = Self::Mask> + BitOr<Output = Self::Mask> + Not<Output = Self::Mask>;
    /// Lanes per vector (4 or 8).
    const LANES: usize;
    fn splat(x: f32) -> Self;
    /// Lanes `at..at + LANES` of a row (`at` is a multiple of `LANES`).
    fn load(row: &Row, at: usize) -> Self;
    /// The inverse of [`Lanes::load`].
    fn store(self, row: &mut Row, at: usize);
    /// `LANES` consecutive floats.
    fn load_flat(src: &[f32]) -> Self;
    /// The inverse of [`Lanes::load_flat`].
    fn store_flat(self, dst: &mut [f32]);
    fn sqrt(self) -> Self;
    fn min(self, other: Self) -> Self;
    fn abs(self) -> Self;
    /// `self × b + c`: fused on the eight-lane path, two roundings elsewhere.
    fn mul_add(self, b: Self, c: Self) -> Self;
    /// Flips the sign of the lanes in `mask`.
    fn flip_sign(self, mask: Self::Mask) -> Self;
    fn lt(self, other: Self) -> Self::Mask;
    fn le(self, other: Self) -> Self::Mask;
    fn gt(self, other: Self) -> Self::Mask;
    fn ge(self, other: Self) -> Self::Mask;
    fn eq(self, other: Self) -> Self::Mask;
    /// `if_true` where `mask`, else `if_false`.
    fn select(mask: Self::Mask, if_true: Self, if_false: Self) -> Self;
    fn any(mask: Self::Mask) -> bool;
    fn all(mask: Self::Mask) -> bool;
    /// Lanes whose byte of `bytes` (`LANES` of them) has `bit` set.
    fn bits(bytes: &[u8], bit: u8) -> Self::Mask;
    /// Quad `field` of records of `Q` four-component quads, one record
    /// per lane (`records[at..at + LANES]`), as four vectors of one
    /// component each: the AoS-to-SoA transpose.
    fn transpose<const Q: usize>(records: &[&[[f32; 4]; Q]], field: usize, at: usize) -> [Self; 4];
}

/// Defines `fn $name(args)`, which runs `$kernel::<V>(args)` with the lanes
/// of the path in effect, and `fn $at(level, args)` for a given path (tests
/// compare the paths with it). The eight-lane instance is compiled with AVX2
/// and FMA enabled, so the `#[inline(always)]` kernel and lane methods inline
/// into it.
macro_rules! dispatch {
    (fn $name:ident / $at:ident => $kernel:ident ( $($arg:ident : $ty:ty),* $(,)? ) $(-> $ret:ty)?) => {
        #[allow(clippy::too_many_arguments)]
        #[inline]
        fn $name($($arg: $ty),*) $(-> $ret)? {
            $at(crate::simd::level(), $($arg),*)
        }

        #[allow(clippy::too_many_arguments)]
        fn $at(level: crate::simd::Level, $($arg: $ty),*) $(-> $ret)? {
            use crate::simd::{Level, Scalar4};
            match level {
                Level::Scalar => $kernel::<Scalar4>($($arg),*),
                #[cfg(target_arch = "x86_64")]
                Level::X4 => $kernel::<crate::simd::Sse4>($($arg),*),
                #[cfg(not(target_arch = "x86_64"))]
                Level::X4 => $kernel::<crate::simd::Glam4>($($arg),*),
                #[cfg(target_arch = "x86_64")]
                Level::X8 => {
                    #[allow(clippy::too_many_arguments)]
                    #[target_feature(enable = "avx2,fma")]
                    unsafe fn x8($($arg: $ty),*) $(-> $ret)? {
                        $kernel::<crate::simd::Avx8>($($arg),*)
                    }
                    // SAFETY: `Level::X8` is only chosen after detecting AVX2 and FMA.
                    unsafe { x8($($arg),*) }
                }
                #[cfg(not(target_arch = "x86_64"))]
                Level::X8 => unreachable!("eight-lane kernels exist on x86-64 only"),
            }
        }
    };
}
pub(crate) use dispatch;

// ---------------------------------------------------------------- scalar

/// [`Lanes::transpose`] for four lanes, one float at a time.
#[inline(always)]
fn transpose4<const Q: usize>(records: &[&[[f32; 4]; Q]], field: usize, at: usize) -> [[f32; 4]; 4] {
    let q = &records[at..at + 4];
    std::array::from_fn(|c| [q[0][field][c], q[1][field][c], q[2][field][c], q[3][field][c]])
}

/// Four lanes computed one at a time: the reference path.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Scalar4([f32; 4]);

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

// ---------------------------------------------------------------- glam (portable four lanes)

/// Four lanes through `glam::Vec4`: NEON on aarch64, SSE2 on x86, scalar
/// elsewhere. The four-lane path outside x86-64; tested everywhere.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
pub(crate) struct Glam4(glam::Vec4);

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

// ---------------------------------------------------------------- x86-64

#[cfg(target_arch = "x86_64")]
pub(crate) use x86::{Avx8, Sse4};

#[cfg(target_arch = "x86_64")]
mod x86 {
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
            let word =
                i64::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7]]);
            unsafe {
                let v = _mm256_cvtepu8_epi32(_mm_cvtsi64_si128(word));
                let b = _mm256_set1_epi32(i32::from(bit));
                Avx8Mask(_mm256_castsi256_ps(_mm256_cmpeq_epi32(_mm256_and_si256(v, b), b)))
            }
        }
    }
}

// ---------------------------------------------------------------- lane math

/// A quaternion per lane, `[x, y, z, w]`.
pub(crate) type QuatLanes<V> = [V; 4];

/// Lanes `at..` of the first `N` rows of a block (a quaternion: `N = 4`, a
/// 3-vector: `N = 3`). Kernels slice each array once per block, so these
/// index a slice of known length and need no bounds checks.
#[inline(always)]
pub(crate) fn load<V: Lanes, const N: usize>(rows: &[Row], at: usize) -> [V; N] {
    // Plain loops, not `std::array::from_fn`, in every lane helper: a closure
    // does not inherit the kernel's target features, and when LLVM leaves one
    // out of line each intrinsic inside it becomes a function call.
    let mut out = [V::splat(0.0); N];
    for (c, o) in out.iter_mut().enumerate() {
        *o = V::load(&rows[c], at);
    }
    out
}
/// The inverse of [`load`].
#[inline(always)]
pub(crate) fn store<V: Lanes, const N: usize>(rows: &mut [Row], at: usize, v: [V; N]) {
    for (c, x) in v.into_iter().enumerate() {
        x.store(&mut rows[c], at);
    }
}

/// Stores `new` where `m` is set and `old` elsewhere. When every lane is
/// set it is a plain store: the blend of a value with the memory it
/// overwrites would otherwise become a masked store, which is slow on some
/// CPUs (AMD Zen).
#[inline(always)]
pub(crate) fn store_where<V: Lanes, const N: usize>(rows: &mut [Row], at: usize, m: V::Mask, new: [V; N], old: [V; N]) {
    if V::all(m) {
        store(rows, at, new);
    } else {
        // The mask goes through `black_box`: LLVM then cannot see that the
        // blend only keeps memory it overwrites, and emits a blend and a
        // plain store instead of a masked store.
        store(rows, at, select(std::hint::black_box(m), new, old));
    }
}

/// `(block, first lane)` of each vector covering `n` joints.
#[inline(always)]
pub(crate) fn vectors<V: Lanes>(n: usize) -> impl Iterator<Item = (usize, usize)> {
    (0..n.div_ceil(V::LANES)).map(|k| (k * V::LANES / BLOCK, k * V::LANES % BLOCK))
}

/// The `k` rows of block `b` in an array of `k` rows per block.
#[inline(always)]
pub(crate) fn rows(array: &[Row], k: usize, b: usize) -> &[Row] {
    &array[k * b..k * b + k]
}
/// [`rows`], mutable.
#[inline(always)]
pub(crate) fn rows_mut(array: &mut [Row], k: usize, b: usize) -> &mut [Row] {
    &mut array[k * b..k * b + k]
}

/// Per lane, `if_true` where `m`, else `if_false`.
#[inline(always)]
pub(crate) fn select<V: Lanes, const N: usize>(m: V::Mask, if_true: [V; N], if_false: [V; N]) -> [V; N] {
    let mut out = if_false;
    for (c, o) in out.iter_mut().enumerate() {
        *o = V::select(m, if_true[c], if_false[c]);
    }
    out
}

/// Terms of Eberly's series (see [`crate::math`]).
const TERMS: usize = 6;
/// Correction of the last term.
const MU: f32 = 1.1505;
/// Eberly's `u[i] = 1 / ((i+1)(2i+3))`.
const U: [f32; TERMS] =
    [1.0 / (1.0 * 3.0), 1.0 / (2.0 * 5.0), 1.0 / (3.0 * 7.0), 1.0 / (4.0 * 9.0), 1.0 / (5.0 * 11.0), MU / (6.0 * 13.0)];
/// Eberly's `v[i] = (i+1) / (2i+3)`.
const V: [f32; TERMS] = [1.0 / 3.0, 2.0 / 5.0, 3.0 / 7.0, 4.0 / 9.0, 5.0 / 11.0, MU * 6.0 / 13.0];

/// `sin(t·φ) / sin φ` per lane for `xm1 = cos φ − 1` (Eberly's series,
/// accurate for `φ ≤ 45°`).
#[inline(always)]
fn arc_coefficient<L: Lanes>(t: L, xm1: L) -> L {
    let tt = t * t;
    let one = L::splat(1.0);
    let mut acc = one;
    let mut i = TERMS;
    while i > 0 {
        i -= 1;
        acc = (tt.mul_add(L::splat(U[i]), L::splat(-V[i])) * xm1).mul_add(acc, one);
    }
    t * acc
}

/// The series for a `t` shared by every lane: the per-term factors
/// `u[i]·t² − v[i]` are computed once per call site.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ArcFactors {
    t: f32,
    k: [f32; TERMS],
}

impl ArcFactors {
    /// Inlined, so that inside the eight-lane kernels `mul_add` is one FMA
    /// instruction rather than a call to the C library's `fmaf`.
    #[inline(always)]
    fn new(t: f32) -> ArcFactors {
        let tt = t * t;
        ArcFactors { t, k: std::array::from_fn(|i| tt.mul_add(U[i], -V[i])) }
    }
    #[inline(always)]
    fn coefficient<L: Lanes>(&self, xm1: L) -> L {
        let one = L::splat(1.0);
        let mut acc = one;
        let mut i = TERMS;
        while i > 0 {
            i -= 1;
            acc = (L::splat(self.k[i]) * xm1).mul_add(acc, one);
        }
        L::splat(self.t) * acc
    }
}

/// `a · b` per lane.
#[inline(always)]
fn dot4<L: Lanes>(a: QuatLanes<L>, b: QuatLanes<L>) -> L {
    a[0].mul_add(b[0], a[2] * b[2]) + a[1].mul_add(b[1], a[3] * b[3])
}

/// The arc set-up of both slerps: whether `b` flips to `a`'s hemisphere,
/// `2 cos φ` and `cos φ − 1` of the half arc `φ`.
#[inline(always)]
fn half_arc<L: Lanes>(a: QuatLanes<L>, b: QuatLanes<L>) -> (L::Mask, L, L) {
    half_arc_of(dot4(a, b))
}

/// [`half_arc`] given the arc's cosine `a · b`.
#[inline(always)]
fn half_arc_of<L: Lanes>(cos: L) -> (L::Mask, L, L) {
    let flip = cos.lt(L::splat(0.0));
    // 2·cos φ = sqrt(2 + 2 cos θ); the clamp guards keys a hair off unit length.
    let two_cos_half = L::splat(2.0).mul_add(cos.abs().min(L::splat(1.0)), L::splat(2.0)).sqrt();
    let xm1 = L::splat(0.5).mul_add(two_cos_half, L::splat(-1.0));
    (flip, two_cos_half, xm1)
}

/// The weights `(α, β)` of `slerp(a, b, t) = α·a + β·b` from the half-arc
/// coefficients. The arc is halved at `m = (a + b') / (2 cos φ)` (`b'` is `b`
/// in `a`'s hemisphere): the first half is `c0·a + c1·m`, the second
/// `c0·m + c1·b'`, both linear in `a` and `b'`. Returns both halves' weights.
#[inline(always)]
fn weights<L: Lanes>(c0: L, c1: L, two_cos_half: L) -> [(L, L); 2] {
    weights_by_inverse(c0, c1, L::splat(1.0) / two_cos_half)
}

/// [`weights`] given `1 / (2 cos φ)`.
#[inline(always)]
fn weights_by_inverse<L: Lanes>(c0: L, c1: L, inv: L) -> [(L, L); 2] {
    let (c0m, c1m) = (c0 * inv, c1 * inv);
    [(c0 + c1m, c1m), (c0m, c0m + c1)]
}

/// What a slerp from `a` to `b` needs that depends on the two quaternions
/// only, per lane, for keys that are slerped between again and again:
/// `b` in `a`'s hemisphere (4 rows), `1 / (2 cos φ)`, `cos φ − 1` of the
/// half arc `φ`, and 1 where `a == b` (else 0). [`slerp_arc`] with these is
/// [`slerp_uniform`] to the bit.
pub(crate) const ARC_ROWS: usize = 7;

/// The time-independent part of a slerp from `a` to `b` (see [`ARC_ROWS`]).
struct PreparedArc<L: Lanes> {
    /// `b` in `a`'s hemisphere.
    b: QuatLanes<L>,
    /// `1 / (2 cos φ)`.
    inv: L,
    /// `cos φ − 1`.
    xm1: L,
    /// Lanes where `a == b`.
    same: L::Mask,
}

impl<L: Lanes> PreparedArc<L> {
    #[inline(always)]
    fn new(a: QuatLanes<L>, b: QuatLanes<L>) -> PreparedArc<L> {
        let (flip, two_cos_half, xm1) = half_arc(a, b);
        let same = a[0].eq(b[0]) & a[1].eq(b[1]) & a[2].eq(b[2]) & a[3].eq(b[3]);
        let mut flipped = b;
        for c in &mut flipped {
            *c = c.flip_sign(flip);
        }
        PreparedArc { b: flipped, inv: L::splat(1.0) / two_cos_half, xm1, same }
    }

    /// The slerp from `a` along this arc at `t` strictly between 0 and 1:
    /// `α·a + β·b'` (`α·a + β·(−b)` is `α·a + (−β)·b`, so the same bits
    /// as flipping `β`); equal operands keep `a`.
    #[inline(always)]
    fn slerp(&self, a: QuatLanes<L>, t: &UniformT) -> QuatLanes<L> {
        let c0 = t.c0.coefficient(self.xm1);
        let c1 = t.c1.coefficient(self.xm1);
        let [first, second] = weights_by_inverse(c0, c1, self.inv);
        let (alpha, beta) = if t.first_half { first } else { second };
        let alpha = L::select(self.same, L::splat(1.0), alpha);
        let beta = L::select(self.same, L::splat(0.0), beta);
        combine(a, self.b, alpha, beta)
    }
}

/// The [`ARC_ROWS`] rows of the arc from `a` to `b` (see [`slerp_arc`]).
#[inline(always)]
pub(crate) fn arc<L: Lanes>(a: QuatLanes<L>, b: QuatLanes<L>) -> [L; ARC_ROWS] {
    let arc = PreparedArc::new(a, b);
    let [bx, by, bz, bw] = arc.b;
    [bx, by, bz, bw, arc.inv, arc.xm1, L::select(arc.same, L::splat(1.0), L::splat(0.0))]
}

/// [`slerp_uniform`] from `a` to `b` with their [`arc`] made beforehand:
/// the same result bit for bit, without the dot product, square root,
/// division and comparisons of the set-up.
#[inline(always)]
pub(crate) fn slerp_arc<L: Lanes>(a: QuatLanes<L>, b: QuatLanes<L>, arc: [L; ARC_ROWS], t: &UniformT) -> QuatLanes<L> {
    if t.t == 0.0 {
        return a;
    }
    if t.t == 1.0 {
        return b;
    }
    let [bx, by, bz, bw, inv, xm1, same] = arc;
    PreparedArc { b: [bx, by, bz, bw], inv, xm1, same: same.gt(L::splat(0.0)) }.slerp(a, t)
}

/// Three.js `slerpFlat` per lane (see [`crate::math::slerp`]): `t == 0`
/// gives `a` and `t == 1` gives `b`, equal operands give `a`, otherwise the
/// shortest arc keeping `a`'s sign, by Eberly's series on half arcs.
#[inline(always)]
pub(crate) fn slerp<L: Lanes>(a: QuatLanes<L>, b: QuatLanes<L>, t: L) -> QuatLanes<L> {
    let (flip, two_cos_half, xm1) = half_arc(a, b);
    let one = L::splat(1.0);
    let first_half = t.le(L::splat(0.5));
    let two_t = t + t;
    let u = L::select(first_half, two_t, two_t - one);
    let c0 = arc_coefficient(one - u, xm1);
    let c1 = arc_coefficient(u, xm1);
    let [(a1, b1), (a2, b2)] = weights(c0, c1, two_cos_half);
    let alpha = L::select(first_half, a1, a2);
    let beta = L::select(first_half, b1, b2).flip_sign(flip);
    // Endpoints: (1, 0) keeps `a`, (0, 1) takes `b` (up to the sign of a
    // zero component: `1·(−0) + 0·b` is `+0` for `b > 0`; sampling at a key
    // selects the key itself).
    let same = a[0].eq(b[0]) & a[1].eq(b[1]) & a[2].eq(b[2]) & a[3].eq(b[3]);
    let (is0, is1) = (t.eq(L::splat(0.0)), t.eq(one));
    let keep_a = is0 | (same & !is1);
    let zero = L::splat(0.0);
    let alpha = L::select(keep_a, one, L::select(is1, zero, alpha));
    let beta = L::select(keep_a, zero, L::select(is1, one, beta));
    combine(a, b, alpha, beta)
}

/// [`slerp`] strictly inside the arc (`0 < t < 1`, a parameter per lane)
/// from `a` to `b`, given `b` moved into `a`'s hemisphere (`b_near`) and the
/// half arc's `1 / (2 cos φ)` and `cos φ − 1` as [`arc`] makes them: the same
/// bits as [`slerp`] for such `t` where `a != b`. The ends and equal
/// operands are the caller's.
#[inline(always)]
pub(crate) fn slerp_prepared<L: Lanes>(a: QuatLanes<L>, b_near: QuatLanes<L>, inv: L, xm1: L, t: L) -> QuatLanes<L> {
    let one = L::splat(1.0);
    let first_half = t.le(L::splat(0.5));
    let two_t = t + t;
    let u = L::select(first_half, two_t, two_t - one);
    let c0 = arc_coefficient(one - u, xm1);
    let c1 = arc_coefficient(u, xm1);
    let [(a1, b1), (a2, b2)] = weights_by_inverse(c0, c1, inv);
    combine(a, b_near, L::select(first_half, a1, a2), L::select(first_half, b1, b2))
}

/// A slerp parameter shared by every lane, with its series factors: what
/// sampling uses, where every track of a segment shares the key interval.
#[derive(Debug, Clone, Copy)]
pub(crate) struct UniformT {
    t: f32,
    first_half: bool,
    c0: ArcFactors,
    c1: ArcFactors,
}

impl UniformT {
    #[inline(always)]
    pub(crate) fn new(t: f32) -> UniformT {
        let first_half = t <= 0.5;
        let two_t = t + t;
        let u = if first_half { two_t } else { two_t - 1.0 };
        UniformT { t, first_half, c0: ArcFactors::new(1.0 - u), c1: ArcFactors::new(u) }
    }
}

/// [`slerp`] with one `t` for every lane.
#[inline(always)]
pub(crate) fn slerp_uniform<L: Lanes>(a: QuatLanes<L>, b: QuatLanes<L>, t: &UniformT) -> QuatLanes<L> {
    if t.t == 0.0 {
        return a;
    }
    if t.t == 1.0 {
        return b;
    }
    PreparedArc::new(a, b).slerp(a, t)
}

/// [`slerp_uniform`] from the identity `(0, 0, 0, 1)` to `b`: the same
/// operations less those the identity makes trivial (`1 · b` is the
/// arc's cosine `b.w`; `0·α + β·b` is `β·b`), so the same result up to the
/// sign of a zero component (the products are rounded before the sums, as
/// the generic form rounds them). What an additive input's first delta is (an
/// additive layer over the base pose starts from no delta).
#[inline(always)]
pub(crate) fn slerp_uniform_from_identity<L: Lanes>(b: QuatLanes<L>, t: &UniformT) -> QuatLanes<L> {
    let (zero, one) = (L::splat(0.0), L::splat(1.0));
    if t.t == 0.0 {
        return [zero, zero, zero, one];
    }
    if t.t == 1.0 {
        return b;
    }
    let (flip, two_cos_half, xm1) = half_arc_of(b[3]);
    let same = b[0].eq(zero) & b[1].eq(zero) & b[2].eq(zero) & b[3].eq(one);
    let c0 = t.c0.coefficient(xm1);
    let c1 = t.c1.coefficient(xm1);
    let [first, second] = weights_by_inverse(c0, c1, one / two_cos_half);
    let (alpha, beta) = if t.first_half { first } else { second };
    let alpha = L::select(same, one, alpha);
    let beta = L::select(same, zero, beta).flip_sign(flip);
    [b[0] * beta, b[1] * beta, b[2] * beta, b[3] * beta + alpha]
}

/// `α·a + β·b` per lane and component.
#[inline(always)]
fn combine<L: Lanes>(a: QuatLanes<L>, b: QuatLanes<L>, alpha: L, beta: L) -> QuatLanes<L> {
    let mut out = a;
    for (c, o) in out.iter_mut().enumerate() {
        *o = a[c].mul_add(alpha, b[c] * beta);
    }
    out
}

/// `a·(1−t) + b·t` per lane and component (three.js's form).
#[inline(always)]
pub(crate) fn lerp<L: Lanes, const N: usize>(a: [L; N], b: [L; N], t: L) -> [L; N] {
    let s = L::splat(1.0) - t;
    let mut out = a;
    for (c, o) in out.iter_mut().enumerate() {
        *o = a[c].mul_add(s, b[c] * t);
    }
    out
}

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

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    #[test]
    fn rotation_noise_flushes_to_zero_and_nothing_else_moves() {
        let lanes = [3.6e-25_f32, -1.5e-20, f32::from_bits(1), 9.9e-11];
        let kept = [1e-10_f32, -2e-9, 0.6, -1.0];
        let q = flush_noise([Scalar4(lanes), Scalar4(kept), Scalar4([0.0; 4]), Scalar4([-0.0, 1.0, 0.5, -0.5])]);
        assert_eq!(q[0].0, [0.0; 4]);
        assert_eq!(q[1].0.map(f32::to_bits), kept.map(f32::to_bits));
        assert_eq!(q[3].0.map(f32::to_bits)[1..], [1.0_f32, 0.5, -0.5].map(f32::to_bits));
    }

    #[test]
    fn crowd_prefetch_is_for_amd_and_hygon_vendors() {
        let word = |v: &[u8; 12]| u32::from_le_bytes([v[0], v[1], v[2], v[3]]);
        assert!(amd_like_vendor(word(b"AuthenticAMD")));
        assert!(amd_like_vendor(word(b"HygonGenuine")));
        assert!(!amd_like_vendor(word(b"GenuineIntel")));
        assert!(!amd_like_vendor(word(b"CentaurHauls")));
        // Detected once: every call agrees.
        assert_eq!(crowd_prefetch(), crowd_prefetch());
        assert_eq!(crowd_prefetch(), amd_like_cpu());
    }

    /// Runs `f` once per path this machine has, with the path's name.
    pub(crate) fn each_path(mut f: impl FnMut(&str, Level)) {
        f("scalar", Level::Scalar);
        f("x4", Level::X4);
        if Level::detect() == Level::X8 {
            f("x8", Level::X8);
        }
    }

    #[test]
    fn blocks_cover_the_joints() {
        assert_eq!(blocks_for(0), 0);
        assert_eq!(blocks_for(1), 1);
        assert_eq!(blocks_for(8), 1);
        assert_eq!(blocks_for(9), 2);
        assert_eq!(blocks_for(55), 7);
    }

    fn rows(q: &[glam::Quat]) -> Vec<Row> {
        (0..4).map(|c| Row(std::array::from_fn(|l| q.get(l).map_or(0.0, |q| q.to_array()[c])))).collect()
    }

    #[test]
    fn lane_slerp_is_within_1e6_of_the_scalar_slerp_and_exact_at_the_ends() {
        let qs = [
            glam::Quat::from_rotation_x(0.3),
            glam::Quat::from_rotation_y(-2.0),
            -glam::Quat::from_rotation_z(1.0),
            glam::Quat::from_xyzw(0.5, 0.5, 0.5, 0.5),
        ];
        let b = [qs[1], qs[2], qs[3], qs[0]];
        for ts in [[0.0, 0.2, 0.5, 0.7], [1.0, 0.0, 0.99, 0.01]] {
            let got: QuatLanes<Scalar4> = slerp(load(&rows(&qs), 0), load(&rows(&b), 0), Scalar4(ts));
            for l in 0..4 {
                let want = crate::math::slerp(qs[l], b[l], ts[l]).to_array();
                for c in 0..4 {
                    assert!((got[c].0[l] - want[c]).abs() < 1e-6, "lane {l} component {c}");
                    if ts[l] == 0.0 || ts[l] == 1.0 {
                        assert_eq!(got[c].0[l], want[c], "endpoints are exact");
                    }
                }
            }
        }
    }

    /// `slerp_arc` with the arc made by `arc` and `slerp_uniform`, per lane
    /// of `a` and `b` (4 rows each), into rows 0..4 and 4..8 of `out`.
    #[inline(always)]
    fn arc_and_uniform_lanes<V: Lanes>(a: &[Row], b: &[Row], t: f32, out: &mut [Row]) {
        let u = UniformT::new(t);
        for at in (0..BLOCK).step_by(V::LANES) {
            let (qa, qb) = (load::<V, 4>(a, at), load::<V, 4>(b, at));
            store(&mut out[..4], at, slerp_arc(qa, qb, arc(qa, qb), &u));
            store(&mut out[4..], at, slerp_uniform(qa, qb, &u));
        }
    }
    dispatch!(fn arc_and_uniform / arc_and_uniform_at => arc_and_uniform_lanes(
        a: &[Row], b: &[Row], t: f32, out: &mut [Row],
    ));

    /// Pairs of quaternions to slerp between, one per lane: near and far
    /// hemispheres, equal operands (also up to the sign of a zero), nearly
    /// equal and nearly opposite ones, subnormal components.
    fn arc_operands() -> ([glam::Quat; 8], [glam::Quat; 8]) {
        let n = |x: f32, y: f32, z: f32, w: f32| glam::Quat::from_xyzw(x, y, z, w);
        let a = [
            glam::Quat::from_rotation_x(0.3),
            glam::Quat::from_rotation_y(-2.0),
            n(0.5, 0.5, 0.5, 0.5),
            n(-0.0, 0.0, 0.0, 1.0),
            glam::Quat::from_rotation_z(1e-4),
            n(0.0, 0.6, 0.0, 0.8001),
            n(1e-40, 0.0, 0.0, 1.0),
            glam::Quat::from_rotation_x(1.0),
        ];
        let b = [
            glam::Quat::from_rotation_z(1.2),
            -glam::Quat::from_rotation_y(1.0),
            n(0.5, 0.5, 0.5, 0.5),
            n(0.0, 0.0, 0.0, 1.0),
            glam::Quat::from_rotation_z(2e-4),
            -n(0.6, 0.0, 0.0, 0.8),
            n(0.0, 1e-40, 0.0, 1.0),
            -glam::Quat::from_rotation_x(1.0 + 3.1),
        ];
        (a, b)
    }

    #[test]
    fn slerp_with_a_prepared_arc_is_the_uniform_slerp_to_the_bit_on_every_path() {
        let _ = arc_and_uniform;
        let (a, b) = arc_operands();
        each_path(|path, level| {
            for t in [0.0, 1.0, 0.25, 0.5, 0.500_000_1, 0.75, 0.999] {
                let mut out = vec![Row::splat(0.0); 8];
                arc_and_uniform_at(level, &rows(&a), &rows(&b), t, &mut out);
                for c in 0..4 {
                    let (got, want) = (out[c].0.map(f32::to_bits), out[4 + c].0.map(f32::to_bits));
                    assert_eq!(got, want, "{path}: t = {t}, component {c}");
                    // The ends are copies, signed zeros kept.
                    let bits = |q: &[glam::Quat; 8]| q.map(|q| q.to_array()[c].to_bits());
                    if t == 0.0 {
                        assert_eq!(got, bits(&a), "{path}: t = 0 gives a");
                    } else if t == 1.0 {
                        assert_eq!(got, bits(&b), "{path}: t = 1 gives b");
                    }
                }
            }
        });
    }

    /// `slerp_uniform_from_identity` to `b` and `slerp_uniform` from the
    /// identity to `b` at `t`, into rows 0..4 and 4..8 of `out`.
    #[inline(always)]
    fn from_identity_lanes<V: Lanes>(b: &[Row], t: f32, out: &mut [Row]) {
        let u = UniformT::new(t);
        let identity = [V::splat(0.0), V::splat(0.0), V::splat(0.0), V::splat(1.0)];
        for at in (0..BLOCK).step_by(V::LANES) {
            let qb = load::<V, 4>(b, at);
            store(&mut out[..4], at, slerp_uniform_from_identity(qb, &u));
            store(&mut out[4..], at, slerp_uniform(identity, qb, &u));
        }
    }
    dispatch!(fn from_identity / from_identity_at => from_identity_lanes(b: &[Row], t: f32, out: &mut [Row]));

    #[test]
    fn a_slerp_from_the_identity_is_the_uniform_slerp_from_it_up_to_the_sign_of_zero_on_every_path() {
        let _ = from_identity;
        let (a, b) = arc_operands();
        // Both sets of operands, the identity and a hair off it among them.
        for b in [
            a,
            b,
            [
                glam::Quat::IDENTITY,
                -glam::Quat::IDENTITY,
                glam::Quat::from_xyzw(-0.0, 0.0, -0.0, 1.0),
                b[3],
                b[4],
                b[5],
                b[6],
                b[7],
            ],
        ] {
            each_path(|path, level| {
                for t in [0.0, 1.0, 0.25, 0.5, 0.500_000_1, 0.75, 0.999] {
                    let mut out = vec![Row::splat(0.0); 8];
                    from_identity_at(level, &rows(&b), t, &mut out);
                    for c in 0..4 {
                        // Equal as numbers: +0 and −0 alike, and bit for bit otherwise.
                        let (got, want) = (out[c].0, out[4 + c].0);
                        for l in 0..BLOCK {
                            let same = got[l].to_bits() == want[l].to_bits() || (got[l] == 0.0 && want[l] == 0.0);
                            assert!(same, "{path}: t = {t}, lane {l}, component {c}: {} vs {}", got[l], want[l]);
                        }
                    }
                }
            });
        }
    }

    /// `slerp_prepared` along the arc `arc` makes, and `slerp`, per lane of
    /// `a` and `b` (4 rows each) at the per-lane parameters `t`, into rows
    /// 0..4 and 4..8 of `out`.
    #[inline(always)]
    fn prepared_and_slerp_lanes<V: Lanes>(a: &[Row], b: &[Row], t: &Row, out: &mut [Row]) {
        for at in (0..BLOCK).step_by(V::LANES) {
            let (qa, qb, t) = (load::<V, 4>(a, at), load::<V, 4>(b, at), V::load(t, at));
            let [bx, by, bz, bw, inv, xm1, _] = arc(qa, qb);
            store(&mut out[..4], at, slerp_prepared(qa, [bx, by, bz, bw], inv, xm1, t));
            store(&mut out[4..], at, slerp(qa, qb, t));
        }
    }
    dispatch!(fn prepared_and_slerp / prepared_and_slerp_at => prepared_and_slerp_lanes(
        a: &[Row], b: &[Row], t: &Row, out: &mut [Row],
    ));

    #[test]
    fn slerp_along_a_prepared_arc_is_the_lane_slerp_to_the_bit_inside_the_arc_on_every_path() {
        let _ = prepared_and_slerp;
        // The operands of `arc_operands`, with the two equal pairs made
        // unequal (equal operands are the caller's).
        let (a, mut b) = arc_operands();
        b[2] = glam::Quat::from_xyzw(0.5, 0.5, 0.5, -0.5);
        b[3] = glam::Quat::from_xyzw(0.0, 0.0, 1e-3, 1.0);
        each_path(|path, level| {
            for ts in
                [[0.25, 0.5, 0.500_000_1, 0.75, 0.999, 1e-7, 0.4, 0.6], [0.01, 0.99, 0.3, 0.7, 0.5, 0.49, 0.51, 0.9]]
            {
                let mut out = vec![Row::splat(0.0); 8];
                prepared_and_slerp_at(level, &rows(&a), &rows(&b), &Row(ts), &mut out);
                for c in 0..4 {
                    let (got, want) = (out[c].0.map(f32::to_bits), out[4 + c].0.map(f32::to_bits));
                    assert_eq!(got, want, "{path}: t = {ts:?}, component {c}");
                }
            }
        });
    }

    #[test]
    fn transpose_turns_records_into_component_rows_on_every_lane_type() {
        let records: Vec<[[f32; 4]; 3]> = (0..BLOCK)
            .map(|l| std::array::from_fn(|f| std::array::from_fn(|c| (100 * f + 10 * l + c) as f32)))
            .collect();
        let refs: Vec<&[[f32; 4]; 3]> = records.iter().collect();
        let want = |field: usize, c: usize, lanes: std::ops::Range<usize>| -> Vec<f32> {
            lanes.map(|l| records[l][field][c]).collect()
        };
        for field in 0..3 {
            for at in [0, 4] {
                let got = Scalar4::transpose(&refs, field, at);
                let glam = Glam4::transpose(&refs, field, at);
                for c in 0..4 {
                    assert_eq!(got[c].0.to_vec(), want(field, c, at..at + 4));
                    assert_eq!(glam[c].0.to_array().to_vec(), want(field, c, at..at + 4));
                }
                #[cfg(target_arch = "x86_64")]
                {
                    for (c, v) in Sse4::transpose(&refs, field, at).into_iter().enumerate() {
                        let mut row = Row::splat(0.0);
                        v.store(&mut row, 0);
                        assert_eq!(row.0[..4].to_vec(), want(field, c, at..at + 4));
                    }
                }
            }
            #[cfg(target_arch = "x86_64")]
            if Level::detect() == Level::X8 {
                #[target_feature(enable = "avx2,fma")]
                fn rows(refs: &[&[[f32; 4]; 3]], field: usize) -> [Row; 4] {
                    let v = Avx8::transpose(refs, field, 0);
                    let mut out = [Row::splat(0.0); 4];
                    for (c, o) in out.iter_mut().enumerate() {
                        v[c].store(o, 0);
                    }
                    out
                }
                // SAFETY: AVX2 and FMA were detected.
                let got = unsafe { rows(&refs, field) };
                for (c, row) in got.iter().enumerate() {
                    assert_eq!(row.0.to_vec(), want(field, c, 0..BLOCK));
                }
            }
        }
    }

    #[test]
    fn byte_bits_become_lane_masks_on_every_path() {
        let bytes = [1u8, 2, 3, 0, 7, 4, 1, 0];
        let want: Vec<bool> = bytes.iter().map(|b| b & 1 != 0).collect();
        let mask = |m: [f32; 4]| m.map(|x| x != 0.0);
        let got = Scalar4::select(Scalar4::bits(&bytes, 1), Scalar4::splat(1.0), Scalar4::splat(0.0));
        assert_eq!(mask(got.0).to_vec(), want[..4]);
        let got = Glam4::select(Glam4::bits(&bytes[4..], 1), Glam4::splat(1.0), Glam4::splat(0.0));
        assert_eq!(mask(got.0.to_array()).to_vec(), want[4..]);
        #[cfg(target_arch = "x86_64")]
        {
            let mut row = Row::splat(0.0);
            Sse4::select(Sse4::bits(&bytes, 1), Sse4::splat(1.0), Sse4::splat(0.0)).store(&mut row, 4);
            assert_eq!(mask([row.0[4], row.0[5], row.0[6], row.0[7]]).to_vec(), want[..4]);
        }
    }
}

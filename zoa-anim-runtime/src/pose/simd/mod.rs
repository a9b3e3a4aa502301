//! Lane vectors for the pose kernels, and which ones run.
//!
//! The pose jobs keep joints in structure-of-arrays blocks of eight
//! ([`crate::pose::Pose`]): one row of eight `x`, one of eight `y`, and so on. A
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
//!
//! The module's files:
//!
//! - `dispatch`: the process-wide [`Simd`] choice, the detected path
//!   (`Level`) and the `dispatch!` macro that instantiates a kernel per path;
//! - `scalar`, `portable` (`glam`) and `x86` (SSE2, AVX2 + FMA): the
//!   `Lanes` implementations;
//! - `rows`: lane vectors in and out of a block's rows;
//! - `slerp` and `quat`: the lane math of the kernels (slerp and lerp, the
//!   Hamilton product, rotation noise);
//! - `cache`: prefetch hints for the crowd.

use std::ops::{Add, BitAnd, BitOr, Div, Mul, Neg, Not, Sub};

mod cache;
mod dispatch;
mod portable;
mod quat;
mod rows;
mod scalar;
mod slerp;
#[cfg(test)]
pub(crate) mod tests;
#[cfg(target_arch = "x86_64")]
mod x86;

pub(crate) use cache::{crowd_prefetch, prefetch, prefetch_room};
pub(crate) use dispatch::{Level, dispatch, level};
pub use dispatch::{Simd, set_simd, simd_path};
// The four-lane path outside x86-64 (the dispatcher names it there); tested everywhere.
#[cfg_attr(target_arch = "x86_64", allow(unused_imports))]
pub(crate) use portable::Glam4;
pub(crate) use quat::{QuatLanes, ROTATION_NOISE, flush_noise, quat_mul};
pub(crate) use rows::{load, rows, rows_mut, select, store, store_where, vectors};
pub(crate) use scalar::Scalar4;
pub(crate) use slerp::{
    ARC_ROWS, UniformT, arc, lerp, slerp, slerp_arc, slerp_prepared, slerp_uniform, slerp_uniform_from_identity,
};
#[cfg(target_arch = "x86_64")]
pub(crate) use x86::{Avx8, Sse4};

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

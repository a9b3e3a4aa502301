//! Lane vectors in and out of a block's rows: loads, stores, masked stores,
//! selects, and the vectors that cover a joint count.

use super::{BLOCK, Lanes, Row};

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

//! Cache hints: prefetching the buffers of the next character, and whether
//! a crowd does (AMD and Hygon CPUs only).

/// Asks the CPU to start loading the cache lines of `data` (at most
/// `max_bytes` of it) into cache, without waiting for them: a hint for the
/// buffers of the next character while this one is evaluated. Never faults
/// and changes no result; a no-op off x86-64.
#[inline(always)]
pub(crate) fn prefetch<T>(data: &[T], max_bytes: usize) {
    prefetch_bytes(data.as_ptr().cast(), std::mem::size_of_val(data).min(max_bytes));
}

/// The cache lines of the `bytes` bytes from `base` (inside one allocation).
#[inline(always)]
fn prefetch_bytes(base: *const i8, bytes: usize) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        for offset in (0..bytes).step_by(64) {
            // SAFETY: a prefetch is a hint; it never faults, and the callers
            // keep the address inside the allocation `base` points into.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(base.wrapping_add(offset)) };
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (base, bytes);
}

/// [`prefetch`] of the first `max_bytes` of `v`'s buffer, whether or not
/// they hold elements yet: a queue or output about to be written.
#[inline(always)]
pub(crate) fn prefetch_room<T>(v: &Vec<T>, max_bytes: usize) {
    prefetch_bytes(v.as_ptr().cast(), (v.capacity() * std::mem::size_of::<T>()).min(max_bytes));
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
/// 10,000 characters). So a crowd of clip players prefetches on AMD (and
/// Hygon) CPUs only; characters, whose frames read much more scattered
/// memory, prefetch on every CPU (`CrowdMember::prefetches`). Only a hint:
/// results are the same either way.
pub(crate) fn crowd_prefetch() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(amd_like_cpu)
}

/// An x86-64 CPU whose vendor is AMD or Hygon (same cache design).
pub(super) fn amd_like_cpu() -> bool {
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
pub(super) fn amd_like_vendor(ebx: u32) -> bool {
    matches!(&ebx.to_le_bytes(), b"Auth" | b"Hygo")
}

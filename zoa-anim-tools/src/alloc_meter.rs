//! Live heap bytes of the `zoa-anim` process, for `bench`'s
//! `bytes_per_character`: the binary installs [`Meter`] as its global
//! allocator, which keeps one running total of the bytes allocated and not
//! yet freed. Two relaxed atomic adds per allocation; the per-frame paths
//! the benchmarks time allocate nothing, so they do not pay it.
//!
//! A program that does not install the meter (the library used elsewhere,
//! unit tests) reads `None` from [`live_bytes`].

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};

static LIVE: AtomicI64 = AtomicI64::new(0);
static INSTALLED: AtomicBool = AtomicBool::new(false);

/// The system allocator, counting live bytes.
#[derive(Debug, Clone, Copy, Default)]
pub struct Meter;

// SAFETY: every call is forwarded to `System` unchanged; the counter is
// bookkeeping only.
unsafe impl GlobalAlloc for Meter {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller upholds `GlobalAlloc::alloc`'s contract.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            count(layout.size() as i64);
        }
        p
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as for `alloc`.
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            count(layout.size() as i64);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from this allocator with `layout`.
        unsafe { System.dealloc(ptr, layout) };
        count(-(layout.size() as i64));
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller upholds `GlobalAlloc::realloc`'s contract.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            count(new_size as i64 - layout.size() as i64);
        }
        p
    }
}

fn count(delta: i64) {
    LIVE.fetch_add(delta, Ordering::Relaxed);
    if !INSTALLED.load(Ordering::Relaxed) {
        INSTALLED.store(true, Ordering::Relaxed);
    }
}

/// Bytes allocated and not yet freed since the process started, when the
/// process runs on [`Meter`].
#[must_use]
pub fn live_bytes() -> Option<i64> {
    INSTALLED.load(Ordering::Relaxed).then(|| LIVE.load(Ordering::Relaxed))
}

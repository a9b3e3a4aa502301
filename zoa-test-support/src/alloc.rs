//! A counting global allocator.
//!
//! Install it in a test binary of its own (so no other test's allocations are
//! counted) and measure the section that must not allocate:
//!
//! ```
//! use zoa_test_support::alloc::{CountingAllocator, allocations_during};
//!
//! #[global_allocator]
//! static GLOBAL: CountingAllocator = CountingAllocator;
//!
//! fn main() {
//!     let mut scratch: Vec<u32> = Vec::with_capacity(64);
//!     // Filling a buffer sized once allocates nothing...
//!     assert_eq!(allocations_during(|| scratch.extend(0..64)), 0);
//!     // ...and the counter does count: growing it allocates.
//!     assert_eq!(allocations_during(|| scratch.push(64)), 1);
//! }
//! ```
//!
//! [`allocations_during`] counts every thread (use it for parallel passes,
//! whose worker threads must not allocate either). [`thread_allocations_during`]
//! counts only the calling thread, so tests of one binary may run in parallel.
//! Allocations, zeroed allocations and reallocations count; frees are
//! counted apart ([`frees_on_this_thread`]), for code that must not free
//! either (an audio callback).

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicIsize, AtomicUsize, Ordering};

/// Forwards to [`System`], counting every allocation and reallocation.
#[derive(Debug, Clone, Copy, Default)]
pub struct CountingAllocator;

static TOTAL: AtomicUsize = AtomicUsize::new(0);
/// Bytes allocated and not yet freed, every thread.
static LIVE: AtomicIsize = AtomicIsize::new(0);

thread_local! {
    // A const-initialised `Cell` has no destructor, so reading it from inside
    // the allocator never allocates (and `try_with` covers thread teardown).
    static THREAD: Cell<usize> = const { Cell::new(0) };
    static THREAD_FREES: Cell<usize> = const { Cell::new(0) };
}

fn note() {
    TOTAL.fetch_add(1, Ordering::Relaxed);
    let _ = THREAD.try_with(|c| c.set(c.get() + 1));
}

// SAFETY: every call is forwarded unchanged to `System`; counting touches only
// an atomic and a destructor-free thread-local, neither of which allocates.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note();
        LIVE.fetch_add(layout.size() as isize, Ordering::Relaxed);
        // SAFETY: same contract as ours.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        let _ = THREAD_FREES.try_with(|c| c.set(c.get() + 1));
        LIVE.fetch_sub(layout.size() as isize, Ordering::Relaxed);
        // SAFETY: same contract as ours; `ptr` came from `System`.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note();
        LIVE.fetch_add(layout.size() as isize, Ordering::Relaxed);
        // SAFETY: same contract as ours.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note();
        LIVE.fetch_add(new_size as isize - layout.size() as isize, Ordering::Relaxed);
        // SAFETY: same contract as ours; `ptr` came from `System`.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

/// Allocations counted so far on every thread (0 when [`CountingAllocator`]
/// is not the global allocator).
#[must_use]
pub fn total() -> usize {
    TOTAL.load(Ordering::Relaxed)
}

/// Bytes allocated and not yet freed, on every thread (a failed
/// reallocation still counts as done). Compare two readings to see whether
/// a loop's memory grows.
#[must_use]
pub fn live_bytes() -> isize {
    LIVE.load(Ordering::Relaxed)
}

/// Allocations counted so far on the calling thread.
#[must_use]
pub fn on_this_thread() -> usize {
    THREAD.with(Cell::get)
}

/// Frees counted so far on the calling thread.
#[must_use]
pub fn frees_on_this_thread() -> usize {
    THREAD_FREES.with(Cell::get)
}

/// Allocations made on any thread while `f` runs.
///
/// Threads `f` joins (rayon, scoped threads) are included; unrelated threads
/// running meanwhile would be too, so keep such a test in a binary of its own.
pub fn allocations_during(f: impl FnOnce()) -> usize {
    let before = total();
    f();
    total() - before
}

/// Allocations made on the calling thread while `f` runs.
pub fn thread_allocations_during(f: impl FnOnce()) -> usize {
    let before = on_this_thread();
    f();
    on_this_thread() - before
}

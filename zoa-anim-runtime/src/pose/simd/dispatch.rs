//! Which kernels run: the process-wide [`Simd`] choice, the path detected
//! on this CPU (`Level`), and the `dispatch!` macro that instantiates a
//! kernel for each path and calls the one in effect.

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

/// Defines `fn $name(args)`, which runs `$kernel::<V>(args)` with the lanes
/// of the path in effect, and `fn $at(level, args)` for a given path (tests
/// compare the paths with it), both with the visibility written before `fn`
/// (none: private). The eight-lane instance is compiled with AVX2
/// and FMA enabled, so the `#[inline(always)]` kernel and lane methods inline
/// into it.
macro_rules! dispatch {
    ($vis:vis fn $name:ident / $at:ident => $kernel:ident ( $($arg:ident : $ty:ty),* $(,)? ) $(-> $ret:ty)?) => {
        #[allow(clippy::too_many_arguments)]
        #[inline]
        $vis fn $name($($arg: $ty),*) $(-> $ret)? {
            $at(crate::pose::simd::level(), $($arg),*)
        }

        #[allow(clippy::too_many_arguments)]
        $vis fn $at(level: crate::pose::simd::Level, $($arg: $ty),*) $(-> $ret)? {
            use crate::pose::simd::{Level, Scalar4};
            match level {
                Level::Scalar => $kernel::<Scalar4>($($arg),*),
                #[cfg(target_arch = "x86_64")]
                Level::X4 => $kernel::<crate::pose::simd::Sse4>($($arg),*),
                #[cfg(not(target_arch = "x86_64"))]
                Level::X4 => $kernel::<crate::pose::simd::Glam4>($($arg),*),
                #[cfg(target_arch = "x86_64")]
                Level::X8 => {
                    #[allow(clippy::too_many_arguments)]
                    #[target_feature(enable = "avx2,fma")]
                    unsafe fn x8($($arg: $ty),*) $(-> $ret)? {
                        $kernel::<crate::pose::simd::Avx8>($($arg),*)
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

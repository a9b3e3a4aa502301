//! Animation graph instances: the behaviour layer that decides *what plays*.
//!
//! One [`GraphDefinition`] (the core's validated [`zoa_anim_core::AnimationGraph`]
//! compiled against a [`ClipTable`]) serves many [`GraphInstance`]s; each keeps
//! its own current state per layer, clocks, parameter values, override slot
//! and event queue. Each frame an instance writes a [`FrameOutput`]: per
//! layer, a few weighted clip contributions the pose engine samples and
//! blends; the behaviour layer never touches a pose.
//!
//! # Terminology
//! - **Normalized clock**: a state's time in cycles, unwrapped (`2.25` = a
//!   quarter into the third loop). It advances by
//!   `dt · instance speed · state speed · warp scale / cycle`, where `cycle` is
//!   the clip's `duration / rate`, or `Σ wᵢ·dᵢ/rateᵢ` for a blend tree whose
//!   children share the clock ([`crate::pose::SyncClock::cycle_length`]).
//! - **Active state**: a state contributing to a layer: the current state
//!   (first) and any states still fading out (at most
//!   [`MAX_ACTIVE_STATES`] in all; when a new cross-fade would exceed that,
//!   the weakest fading state is dropped and the others renormalized).
//! - **Transition under way**: the blend into the current state. While it
//!   runs, only the transitions its [`Interruption`] source allows are tried:
//!   none; those leaving the source ("current") state; those leaving the
//!   target ("next") state.
//! - **Exit time**: a looping state passes exit time `f` on the frame its
//!   clock crosses `k + f` for some whole `k` (once per loop: if the
//!   conditions fail then, the transition waits for the next loop); a one-shot
//!   state passes it from the frame its clock reaches `f` on.
//! - **Warp**: during a cross-fade into a state with
//!   `crossfade.warp`, the outgoing state's time scale ramps `1 → c_out/c_in`
//!   and the incoming one's `c_in/c_out → 1` (`c` = seconds per cycle), so
//!   both advance the same fraction of a cycle per second throughout; the
//!   incoming state is at scale 1 when the blend ends.
//! - **Override slot**: one clip on top of the graph with an envelope
//!   ([`PlayOptions`]); without a graph, the single-clip player.
//! - **Sync group**: states of a layer that keep in step: the heaviest
//!   leads, the others follow its position between shared sync markers, else
//!   its normalized time (`sync`; after the blend weights, before notifies).
//! - **Notify window**: a notify with a duration; its begin and end events
//!   follow each notify source's leading clip, one end per begin (`windows`).
//!
//! ```text
//!  params ──► per layer: advance clocks ─► blend weights ─► sync groups ─► notifies, windows ─┐
//!                         ┌──────────────────────────────────────────────────────────────────────┘
//!                         └► finish blend ─► try transitions ───────────────────────────────────┐
//!                                                                                                ▼
//!  slot: advance ─► envelope ─► notifies, windows, progress ─────────────────────────────► FrameOutput
//!                                                            (events queued per instance) ─► deliver_events
//! ```
//!
//! Per frame: within a layer, the transitions leaving the current state, then
//! those from Any State (never into the current state), are tried in
//! authoring order; the first whose conditions all hold and whose exit time
//! has passed fires and consumes the triggers it tested. At most one
//! transition fires per layer per frame; layers update in index order, so a
//! trigger consumed by layer 0 is no longer set for layer 1 in that frame.

mod clips;
mod definition;
mod inertialize;
mod instance;
mod layer;
mod masks;
mod output;
mod params;
mod root_motion;
mod slot;
mod sync;
mod windows;

pub use clips::{ClipId, ClipInfo, ClipTable};
pub use definition::GraphDefinition;
pub use inertialize::inertialize_quintic;
pub use instance::{ActiveStateView, GraphInstance, TransitionView};
pub use layer::MAX_ACTIVE_STATES;
pub use masks::GraphMasks;
pub(crate) use output::clip_span;
pub use output::{ClipContribution, ContributionSource, FrameOutput, Inertialization, MaskRef, PoseLayer, SLOT_LAYER};
pub use params::{ParamValue, Parameters};
pub use root_motion::{RootMotion, RootMotionContext, RootMotionJob, remove_root_motion};
pub use slot::{PlayOptions, SlotStatus};
pub use sync::SyncMemberView;
pub(crate) use windows::{Lead, WindowState, follow_windows};
pub use zoa_anim_core::graph::Interruption;

use crate::character::events::{EventKind, EventQueue, NotifySource};

/// Which contributors of a layer fire clip notifies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum NotifyPolicy {
    /// Only the contribution with the highest weight in each layer (default), so
    /// a footstep authored in both clips of a cross-fade fires once.
    #[default]
    HighestWeight,
    /// Every contribution with a non-zero weight.
    All,
}

/// Timing of the frame being computed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct FrameClock {
    /// Instance time at the start of the frame, seconds.
    pub t0: f64,
    /// Frame length, seconds (unscaled, `>= 0`).
    pub dt: f32,
    /// Frame length times the instance speed.
    pub scaled: f32,
}

impl FrameClock {
    /// Time at `fraction` (`0..=1`) of the frame.
    pub fn at(&self, fraction: f64) -> f64 {
        self.t0 + f64::from(self.dt) * fraction.clamp(0.0, 1.0)
    }
    /// Time at the end of the frame.
    pub fn end(&self) -> f64 {
        self.t0 + f64::from(self.dt)
    }
}

/// Most loop wraps per frame for which notifies are reported (a very short
/// looping clip at high speed would otherwise flood the queue).
const MAX_WRAPS_PER_FRAME: i64 = 8;

/// Queues the instant notifies of `clip` crossed while its normalized clock
/// moved from `lo` to `hi` (unwrapped cycles). The interval is `(lo, hi]`, or
/// `[lo, hi]` on the first frame after the clip started (`fresh`), so a notify
/// at time 0 fires on entry. Looping clocks report every crossing (one per
/// loop wrap, up to [`MAX_WRAPS_PER_FRAME`]); each at its interpolated time
/// within the frame. Windows are followed on the source's leading clip
/// instead ([`follow_windows`]).
#[allow(clippy::too_many_arguments)]
pub(crate) fn emit_clip_notifies(
    clips: &ClipTable,
    clip: ClipId,
    lo: f64,
    hi: f64,
    looping: bool,
    fresh: bool,
    source: NotifySource,
    frame: FrameClock,
    events: &mut EventQueue,
) {
    let info = clips.get(clip);
    let d = f64::from(info.duration);
    if info.notifies.is_empty() || d <= 0.0 || hi < lo || (hi == lo && !fresh) {
        return;
    }
    let span = hi - lo;
    let frac = |x: f64| if span > 0.0 { (x - lo) / span } else { 0.0 };
    for (n, notify) in info.notifies.iter().enumerate().filter(|(_, n)| !n.is_window()) {
        let nu = f64::from(notify.time) / d;
        if looping {
            // Crossings k + nu in (lo, hi] (or [lo, hi] when fresh).
            let first = if fresh { (lo - nu).ceil() } else { (lo - nu).floor() + 1.0 } as i64;
            let mut k = first.max(0);
            while (k as f64) + nu <= hi && k - first < MAX_WRAPS_PER_FRAME {
                let x = k as f64 + nu;
                events.push(
                    frame.at(frac(x)),
                    EventKind::Notify { source, clip, notify: n as u16 },
                    clips.notify_name(clip, n as u16),
                );
                k += 1;
            }
        } else if (nu > lo || fresh && nu >= lo) && nu <= hi {
            events.push(
                frame.at(frac(nu)),
                EventKind::Notify { source, clip, notify: n as u16 },
                clips.notify_name(clip, n as u16),
            );
        }
    }
}

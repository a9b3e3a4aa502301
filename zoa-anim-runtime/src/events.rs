//! Events out of the behaviour layer: clip notifies, state and transition
//! changes, slot progress.
//!
//! Instances queue events into their own preallocated [`EventQueue`] while
//! they are updated (possibly in parallel: no queue is shared), and the
//! caller delivers them afterwards with [`crate::graph::deliver_all`], in a deterministic
//! order: instance index, then event time, then [`EventKind::rank`], then
//! queue order. The order is therefore identical for serial and parallel
//! updates and any thread count.
//!
//! Delivery maps onto the core's
//! [`AnimationEventReceiver`](zoa_anim_core::contracts::AnimationEventReceiver): notifies go to
//! `on_notify`, a state entered goes to `on_state_changed(from, to)`, slot
//! progress to `on_slot_progress`. Transition started / finished and state
//! exited have no receiver method; they are available from
//! [`crate::graph::GraphInstance::events`] before delivery.

use zoa_anim_core::AnimationSlotId;
use zoa_anim_core::graph::StateIndex;

use crate::animation::ClipId;

/// What happened.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum EventKind {
    /// A transition fired on `layer`.
    TransitionStarted {
        /// Graph layer.
        layer: u16,
        /// Source state.
        from: StateIndex,
        /// Target state.
        to: StateIndex,
        /// Index of the authored transition (into the graph's transitions);
        /// `None` when forced by [`crate::graph::GraphInstance::play_state`].
        transition: Option<u32>,
        /// Whether the transition fired at its exit time (the source state
        /// played out), rather than on its conditions alone or by force.
        exit_time: bool,
    },
    /// A state stopped contributing (its fade-out ended, or it was cut).
    StateExited {
        /// Graph layer.
        layer: u16,
        /// The state.
        state: StateIndex,
    },
    /// A state became the layer's current state (at the start of the transition into it).
    StateEntered {
        /// Graph layer.
        layer: u16,
        /// The state.
        state: StateIndex,
        /// The previous current state.
        from: StateIndex,
    },
    /// A transition ended: its blend completed, or (`interrupted`) another took over.
    TransitionFinished {
        /// Graph layer.
        layer: u16,
        /// Source state.
        from: StateIndex,
        /// Target state.
        to: StateIndex,
        /// Whether another transition or a forced state cut it short.
        interrupted: bool,
    },
    /// Playback crossed a clip notify.
    Notify {
        /// Graph layer (or [`crate::graph::SLOT_LAYER`]).
        layer: u16,
        /// The clip.
        clip: ClipId,
        /// Index into the clip's notifies.
        notify: u16,
    },
    /// Normalized time of a slot being played (1 on its last frame).
    SlotProgress {
        /// The slot.
        slot: AnimationSlotId,
        /// `0..=1`.
        normalized: f32,
    },
}

impl EventKind {
    /// Tie-break among events at the same time: transition started, state
    /// exited, state entered, transition finished, notify, slot progress.
    #[must_use]
    pub const fn rank(&self) -> u8 {
        match self {
            EventKind::TransitionStarted { .. } => 0,
            EventKind::StateExited { .. } => 1,
            EventKind::StateEntered { .. } => 2,
            EventKind::TransitionFinished { .. } => 3,
            EventKind::Notify { .. } => 4,
            EventKind::SlotProgress { .. } => 5,
        }
    }
}

/// One queued event.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AnimEvent {
    /// Instance time the event happened, seconds (unscaled frame time).
    pub time: f64,
    /// What happened.
    pub kind: EventKind,
    /// Position in the queue (last tie-break).
    pub seq: u32,
}

/// A fixed-capacity event queue. Pushing past capacity drops the event and
/// counts it ([`EventQueue::dropped`]) instead of allocating.
#[derive(Debug, Clone, PartialEq)]
pub struct EventQueue {
    events: Vec<AnimEvent>,
    dropped: u32,
    seq: u32,
}

impl EventQueue {
    /// Default capacity: room for a busy frame (several notifies, a transition, slot progress).
    pub const DEFAULT_CAPACITY: usize = 64;

    /// An empty queue holding up to `capacity` events.
    #[must_use]
    pub fn with_capacity(capacity: usize) -> EventQueue {
        EventQueue { events: Vec::with_capacity(capacity), dropped: 0, seq: 0 }
    }

    /// Queues an event; dropped (and counted) when full.
    pub fn push(&mut self, time: f64, kind: EventKind) {
        if self.events.len() == self.events.capacity() {
            self.dropped = self.dropped.saturating_add(1);
            return;
        }
        self.events.push(AnimEvent { time, kind, seq: self.seq });
        self.seq = self.seq.wrapping_add(1);
    }

    /// Sorts into delivery order (time, kind rank, queue order). No allocation.
    pub fn sort(&mut self) {
        self.events.sort_unstable_by(|a, b| {
            a.time.total_cmp(&b.time).then(a.kind.rank().cmp(&b.kind.rank())).then(a.seq.cmp(&b.seq))
        });
    }

    /// The queued events (in queue order until [`EventQueue::sort`]).
    #[must_use]
    pub fn events(&self) -> &[AnimEvent] {
        &self.events
    }

    /// Events dropped since the last [`EventQueue::clear`] because the queue was full.
    #[must_use]
    pub fn dropped(&self) -> u32 {
        self.dropped
    }

    /// Empties the queue, keeping its capacity.
    pub fn clear(&mut self) {
        self.events.clear();
        self.dropped = 0;
        self.seq = 0;
    }
}

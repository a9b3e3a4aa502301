//! A character's events: queued while it is updated (on any thread), sorted
//! and delivered afterwards in (character, time, kind) order.

use zoa_anim_core::graph::StateIndex;
use zoa_anim_core::{AnimationBindingId, AnimationSlotId};

use crate::graph::ClipId;

/// Sub-phase of a gameplay action started by a trigger binding, reported to
/// the core receiver as `on_animation_event(binding, "start" | "complete" | "cancel")`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BindingPhase {
    /// The transition the trigger fired started: the action's state is entered.
    Start,
    /// The action's state was left at its exit time: it played out.
    Complete,
    /// The action's state was left early (another transition, a forced state,
    /// a loadout switch to another graph).
    Cancel,
}

impl BindingPhase {
    /// The event tag: `start`, `complete` or `cancel`.
    #[must_use]
    pub const fn tag(self) -> &'static str {
        match self {
            BindingPhase::Start => "start",
            BindingPhase::Complete => "complete",
            BindingPhase::Cancel => "cancel",
        }
    }
}

/// Which part of the character crossed a clip notify.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NotifySource {
    /// A graph layer.
    Graph {
        /// Layer index.
        layer: u16,
    },
    /// The override slot.
    Slot,
    /// The tag selector's layer.
    Selector,
}

/// What happened.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum CharacterEventKind {
    /// A transition started on a graph layer.
    TransitionStarted {
        /// Graph index in the definition.
        graph: u16,
        /// Layer.
        layer: u16,
        /// Source state.
        from: StateIndex,
        /// Target state.
        to: StateIndex,
    },
    /// A state stopped contributing.
    StateExited {
        /// Graph index in the definition.
        graph: u16,
        /// Layer.
        layer: u16,
        /// The state.
        state: StateIndex,
    },
    /// A state became its layer's current state.
    StateEntered {
        /// Graph index in the definition.
        graph: u16,
        /// Layer.
        layer: u16,
        /// The state.
        state: StateIndex,
        /// The previous current state.
        from: StateIndex,
    },
    /// A transition ended (completed or interrupted).
    TransitionFinished {
        /// Graph index in the definition.
        graph: u16,
        /// Layer.
        layer: u16,
        /// Target state.
        to: StateIndex,
        /// Whether another transition cut it short.
        interrupted: bool,
    },
    /// A sub-phase of an action a trigger binding started.
    Binding {
        /// The binding.
        binding: AnimationBindingId,
        /// Start, complete or cancel.
        phase: BindingPhase,
    },
    /// Playback crossed a clip notify (only the leading clip of a blend reports).
    Notify {
        /// Who played the clip.
        source: NotifySource,
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

impl CharacterEventKind {
    /// Tie-break among events at the same time.
    #[must_use]
    pub const fn rank(&self) -> u8 {
        match self {
            CharacterEventKind::TransitionStarted { .. } => 0,
            CharacterEventKind::StateExited { .. } => 1,
            CharacterEventKind::StateEntered { .. } => 2,
            CharacterEventKind::TransitionFinished { .. } => 3,
            CharacterEventKind::Binding { .. } => 4,
            CharacterEventKind::Notify { .. } => 5,
            CharacterEventKind::SlotProgress { .. } => 6,
        }
    }
}

/// One event of a character.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CharacterEvent {
    /// Character time, seconds (sum of frame lengths since spawn).
    pub time: f64,
    /// What happened.
    pub kind: CharacterEventKind,
    seq: u32,
}

/// A fixed-capacity queue of a character's events (past capacity: dropped
/// and counted, never allocated).
#[derive(Debug, Clone)]
pub(crate) struct CharacterEventQueue {
    events: Vec<CharacterEvent>,
    dropped: u32,
    seq: u32,
}

impl CharacterEventQueue {
    pub(crate) fn with_capacity(capacity: usize) -> CharacterEventQueue {
        CharacterEventQueue { events: Vec::with_capacity(capacity), dropped: 0, seq: 0 }
    }
    pub(crate) fn push(&mut self, time: f64, kind: CharacterEventKind) {
        if self.events.len() == self.events.capacity() {
            self.dropped = self.dropped.saturating_add(1);
            return;
        }
        self.events.push(CharacterEvent { time, kind, seq: self.seq });
        self.seq = self.seq.wrapping_add(1);
    }
    pub(crate) fn sort(&mut self) {
        self.events.sort_unstable_by(|a, b| {
            a.time.total_cmp(&b.time).then(a.kind.rank().cmp(&b.kind.rank())).then(a.seq.cmp(&b.seq))
        });
    }
    pub(crate) fn events(&self) -> &[CharacterEvent] {
        &self.events
    }
    pub(crate) fn dropped(&self) -> u32 {
        self.dropped
    }
    pub(crate) fn take(&mut self) -> Vec<CharacterEvent> {
        std::mem::take(&mut self.events)
    }
    /// Gives the buffer back emptied (keeping its capacity).
    pub(crate) fn restore(&mut self, mut events: Vec<CharacterEvent>) {
        events.clear();
        self.events = events;
        self.dropped = 0;
        self.seq = 0;
    }
}

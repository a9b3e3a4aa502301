//! Events: the one vocabulary of what happened during an update — clip
//! notifies, state and transition changes, override-slot starts and ends,
//! and the sub-phases of actions that trigger bindings started.
//!
//! A graph instance, a tag selector and a character each queue [`Event`]s
//! into their own preallocated [`EventQueue`] while they are updated
//! (possibly in parallel: no queue is shared); the character moves its
//! parts' events into its own queue, and the caller delivers them
//! afterwards in a deterministic order: character index, then event time,
//! then [`EventKind::rank`], then queue order — identical for serial and
//! parallel updates and any thread count. The preview capture records the
//! same [`EventKind`]s.
//!
//! Every event carries its [`Name`] (the notify's, the state's, the slot's),
//! so it prints as words (`0.350 s notify Footstep`) without a lookup; the
//! kind keeps the indices a program matches on.

use std::fmt;

use zoa_anim_core::contracts::AnimationEventReceiver;
use zoa_anim_core::graph::StateIndex;
use zoa_anim_core::{AnimationBindingId, AnimationSlotId, Name};

use crate::pose::animation::ClipId;

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

/// Which part of a character crossed a clip notify.
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

/// What happened. New kinds may be added (`#[non_exhaustive]`): match with a
/// wildcard arm.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub enum EventKind {
    /// A transition started on a graph layer (name: the target state).
    TransitionStarted {
        /// Graph layer.
        layer: u16,
        /// Source state.
        from: StateIndex,
        /// Target state.
        to: StateIndex,
        /// Index of the authored transition (into the graph's transitions);
        /// `None` when forced (`play_state`).
        transition: Option<u32>,
        /// Whether it fired at its exit time (the source state played out),
        /// rather than on its conditions alone or by force.
        exit_time: bool,
    },
    /// A state stopped contributing: its fade-out ended, or it was cut (name: the state).
    StateExited {
        /// Graph layer.
        layer: u16,
        /// The state.
        state: StateIndex,
    },
    /// A state became its layer's current state, at the start of the
    /// transition into it (name: the state).
    StateEntered {
        /// Graph layer.
        layer: u16,
        /// The state.
        state: StateIndex,
        /// The previous current state.
        from: StateIndex,
    },
    /// A transition ended: its blend completed, or (`interrupted`) another
    /// took over (name: the target state).
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
    /// A sub-phase of an action a trigger binding started (name: the phase tag).
    Binding {
        /// The binding.
        binding: AnimationBindingId,
        /// Start, complete or cancel.
        phase: BindingPhase,
    },
    /// Playback crossed a clip notify; of a blend, only the leading clip
    /// reports (name: the notify). Its payload, if any:
    /// [`Character::notify_payload`](crate::Character::notify_payload).
    Notify {
        /// Who played the clip.
        source: NotifySource,
        /// The clip.
        clip: ClipId,
        /// Index into the clip's notifies.
        notify: u16,
    },
    /// A notify window began: the leading clip of `source` crossed the
    /// window's start, or became the leader inside it (name: the notify).
    /// Every begin is followed by one [`EventKind::NotifyEnd`] of the same
    /// `source`, `clip` and `notify`.
    NotifyBegin {
        /// Who played the clip.
        source: NotifySource,
        /// The clip.
        clip: ClipId,
        /// Index into the clip's notifies.
        notify: u16,
    },
    /// A notify window ended: played through its end, or (`interrupted`) its
    /// clip stopped leading its source — a cross-fade moved on, a state or the
    /// slot stopped, the loadout changed graph, the selector and the graph's
    /// base layer swapped lead (name: the notify).
    NotifyEnd {
        /// Who played the clip.
        source: NotifySource,
        /// The clip.
        clip: ClipId,
        /// Index into the clip's notifies.
        notify: u16,
        /// Whether it ended before its end time.
        interrupted: bool,
    },
    /// The override slot started a clip (name: the slot id, else the clip).
    SlotStarted {
        /// The binding profile's slot it plays, when played through one.
        slot: Option<AnimationSlotId>,
        /// The clip.
        clip: ClipId,
    },
    /// The override slot stopped playing its clip: played out (a one-shot
    /// at its end), or `interrupted` (stopped, or replaced by another clip)
    /// (name: the slot id, else the clip).
    SlotEnded {
        /// The binding profile's slot it played, when played through one.
        slot: Option<AnimationSlotId>,
        /// The clip.
        clip: ClipId,
        /// Whether it was stopped or replaced before its end.
        interrupted: bool,
    },
}

impl EventKind {
    /// Tie-break among events at the same time: transition started, state
    /// exited, state entered, transition finished, binding phase, notify
    /// window end, notify, notify window begin, slot started, slot ended (a
    /// window that closes where another opens is out before the other is in).
    #[must_use]
    pub const fn rank(&self) -> u8 {
        match self {
            EventKind::TransitionStarted { .. } => 0,
            EventKind::StateExited { .. } => 1,
            EventKind::StateEntered { .. } => 2,
            EventKind::TransitionFinished { .. } => 3,
            EventKind::Binding { .. } => 4,
            EventKind::NotifyEnd { .. } => 5,
            EventKind::Notify { .. } => 6,
            EventKind::NotifyBegin { .. } => 7,
            EventKind::SlotStarted { .. } => 8,
            EventKind::SlotEnded { .. } => 9,
        }
    }

    /// The clip and notify index of a notify, window begin or window end.
    #[must_use]
    pub const fn notify(&self) -> Option<(ClipId, u16)> {
        match *self {
            EventKind::Notify { clip, notify, .. }
            | EventKind::NotifyBegin { clip, notify, .. }
            | EventKind::NotifyEnd { clip, notify, .. } => Some((clip, notify)),
            _ => None,
        }
    }

    /// Stable snake-case name (the `kind` of the preview capture's JSON and
    /// CSV): `transition_started`, `state_exited`, `state_entered`,
    /// `transition_finished`, `binding_start` / `binding_complete` /
    /// `binding_cancel`, `notify`, `notify_begin`, `notify_end` (played
    /// through) / `notify_cut` (interrupted), `slot_started`, `slot_end`
    /// (played out), `slot_stopped` (interrupted).
    #[must_use]
    pub const fn as_str(&self) -> &'static str {
        match self {
            EventKind::TransitionStarted { .. } => "transition_started",
            EventKind::StateExited { .. } => "state_exited",
            EventKind::StateEntered { .. } => "state_entered",
            EventKind::TransitionFinished { .. } => "transition_finished",
            EventKind::Binding { phase: BindingPhase::Start, .. } => "binding_start",
            EventKind::Binding { phase: BindingPhase::Complete, .. } => "binding_complete",
            EventKind::Binding { phase: BindingPhase::Cancel, .. } => "binding_cancel",
            EventKind::Notify { .. } => "notify",
            EventKind::NotifyBegin { .. } => "notify_begin",
            EventKind::NotifyEnd { interrupted: false, .. } => "notify_end",
            EventKind::NotifyEnd { interrupted: true, .. } => "notify_cut",
            EventKind::SlotStarted { .. } => "slot_started",
            EventKind::SlotEnded { interrupted: false, .. } => "slot_end",
            EventKind::SlotEnded { interrupted: true, .. } => "slot_stopped",
        }
    }
}

/// One event: when, what, and the name of what it concerns.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Event {
    /// Time it happened, seconds: character time for a character's events
    /// (the sum of frame lengths since spawn), instance time for a graph's.
    pub time: f64,
    /// What happened.
    pub kind: EventKind,
    /// The notify's, state's, slot's (or clip's) name, or the binding phase's tag.
    pub name: Name,
}

impl fmt::Display for Event {
    /// `0.350 s notify Footstep`; a binding phase names its binding
    /// (`1.200 s binding_start reload`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.3} s {} ", self.time, self.kind.as_str())?;
        match self.kind {
            EventKind::Binding { binding, .. } => f.write_str(binding.as_str()),
            _ => f.write_str(self.name.as_str()),
        }
    }
}

/// A fixed-capacity event queue. Pushing past capacity drops the event and
/// counts it ([`EventQueue::dropped`]) instead of allocating.
#[derive(Debug, Clone, PartialEq)]
pub struct EventQueue {
    events: Vec<Event>,
    dropped: u32,
}

impl EventQueue {
    /// Prefetching for a crowd: the first cache lines of the queue, which
    /// the next update writes (see [`crate::pose::simd::prefetch`]).
    pub(crate) fn prefetch(&self) {
        crate::pose::simd::prefetch_room(&self.events, 256);
    }
    /// Default capacity of a graph instance's or selector's own queue: room
    /// for a busy frame (several notifies, a transition, slot changes)
    /// several times over, for a game that delivers from them directly.
    pub const DEFAULT_CAPACITY: usize = 32;

    /// Capacity of the graph instances' and the selector's queues inside a
    /// character: they stage only what happens between two updates (gameplay
    /// calls, then one update, which may span several frames under level of
    /// detail), and the character moves it into its own queue
    /// ([`crate::CharacterSettings::event_capacity`]), counting any they
    /// dropped there. The crowd workload ([`crate::character::CrowdWorkload`])
    /// at its busiest, eight frames in one update under level of detail,
    /// stages 7 or 8 in one queue (`character_lod.rs` drops events at 6 and
    /// none at 8); 16 leaves twice that, and at 56 bytes an event saves
    /// 1.8 KB per character over [`Self::DEFAULT_CAPACITY`].
    pub(crate) const STAGING_CAPACITY: usize = 16;

    /// An empty queue holding up to `capacity` events.
    #[must_use]
    pub fn with_capacity(capacity: usize) -> EventQueue {
        EventQueue { events: Vec::with_capacity(capacity), dropped: 0 }
    }

    /// Queues an event; dropped (and counted) when full.
    pub fn push(&mut self, time: f64, kind: EventKind, name: Name) {
        if self.events.len() == self.events.capacity() {
            self.count_dropped();
            return;
        }
        self.events.push(Event { time, kind, name });
    }

    /// Sorts into delivery order (time, kind rank, queue order). No
    /// allocation: an insertion sort, stable, so queue order breaks the
    /// remaining ties without a sequence number in every event. A queue is
    /// short and nearly in order already (each part queues its events in
    /// time order), where insertion sort does about one compare per event.
    pub fn sort(&mut self) {
        let after = |a: &Event, b: &Event| a.time.total_cmp(&b.time).then(a.kind.rank().cmp(&b.kind.rank())).is_gt();
        let v = &mut self.events;
        for i in 1..v.len() {
            let e = v[i];
            let mut j = i;
            while j > 0 && after(&v[j - 1], &e) {
                v[j] = v[j - 1];
                j -= 1;
            }
            v[j] = e;
        }
    }

    /// The queued events (in queue order until [`EventQueue::sort`]).
    #[must_use]
    pub fn events(&self) -> &[Event] {
        &self.events
    }

    /// Events dropped since the last [`EventQueue::clear`] because the queue was full.
    #[must_use]
    pub fn dropped(&self) -> u32 {
        self.dropped
    }

    /// Counts one event dropped for want of room (a full table elsewhere).
    pub(crate) fn count_dropped(&mut self) {
        self.count_dropped_n(1);
    }

    /// Counts `n` events another queue dropped before its events moved here
    /// (a character's graph instance's and selector's).
    pub(crate) fn count_dropped_n(&mut self, n: u32) {
        self.dropped = self.dropped.saturating_add(n);
    }

    /// Empties the queue, keeping its capacity.
    pub fn clear(&mut self) {
        self.events.clear();
        self.dropped = 0;
    }

    /// Takes the events out (to hand them to a receiver that may look at
    /// their owner); give the buffer back with [`EventQueue::restore`].
    pub(crate) fn take(&mut self) -> Vec<Event> {
        std::mem::take(&mut self.events)
    }

    /// Gives the buffer back emptied (keeping its capacity).
    pub(crate) fn restore(&mut self, mut events: Vec<Event>) {
        events.clear();
        self.events = events;
        self.dropped = 0;
    }
}

/// Most notify windows one character keeps open at once (more begins are
/// dropped and counted with the queue's dropped events, never allocated).
pub const MAX_OPEN_WINDOWS: usize = 16;

/// A notify window open on a character: which source plays it, the clip and
/// notify, and its name (see [`crate::Character::in_window`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NotifyWindow {
    /// Who plays the clip.
    pub source: NotifySource,
    /// The clip.
    pub clip: ClipId,
    /// Index into the clip's notifies.
    pub notify: u16,
    /// The notify's name.
    pub name: Name,
}

/// The windows a character has delivered a begin for and no end yet: its
/// events pass through [`WindowTable::pass`], so a window's begin reaches
/// gameplay once and its end once, whatever the parts (graph layers, slot,
/// selector) and the rules between them (which notifies a character
/// delivers) did.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub(crate) struct WindowTable {
    open: [Option<NotifyWindow>; MAX_OPEN_WINDOWS],
}

impl WindowTable {
    /// Queues `kind` (a begin only for a window not open, an end only for an
    /// open one; every other event as is) and updates the table.
    pub(crate) fn pass(&mut self, events: &mut EventQueue, time: f64, kind: EventKind, name: Name) {
        match kind {
            EventKind::NotifyBegin { source, clip, notify } => {
                let window = NotifyWindow { source, clip, notify, name };
                if self.find(source, clip, notify).is_some() {
                    return;
                }
                match self.open.iter_mut().find(|w| w.is_none()) {
                    Some(free) => *free = Some(window),
                    None => {
                        events.count_dropped();
                        return;
                    }
                }
            }
            EventKind::NotifyEnd { source, clip, notify, .. } => match self.find(source, clip, notify) {
                Some(k) => self.open[k] = None,
                None => return,
            },
            _ => {}
        }
        events.push(time, kind, name);
    }

    fn find(&self, source: NotifySource, clip: ClipId, notify: u16) -> Option<usize> {
        self.open.iter().position(|w| w.is_some_and(|w| w.source == source && w.clip == clip && w.notify == notify))
    }

    /// Ends (interrupted, at `time`) every open window whose source `cut` selects.
    pub(crate) fn close(&mut self, events: &mut EventQueue, time: f64, cut: impl Fn(NotifySource) -> bool) {
        for slot in self.open.iter_mut() {
            if let Some(w) = slot.filter(|w| cut(w.source)) {
                let kind = EventKind::NotifyEnd { source: w.source, clip: w.clip, notify: w.notify, interrupted: true };
                events.push(time, kind, w.name);
                *slot = None;
            }
        }
    }

    /// The open windows.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &NotifyWindow> {
        self.open.iter().flatten()
    }
}

/// Hands `event` to the core's receiver contract: a notify to `on_notify`,
/// a state entered to `on_state_changed(from, to)` (`state_name` names the
/// previous state), a slot's start and its played-out end to
/// `on_slot_progress(slot, 0)` and `(slot, 1)`, a binding phase to
/// `on_animation_event(binding, "start" | "complete" | "cancel")`. The other
/// kinds have no receiver method (notify windows among them: read their
/// begin and end as events, or [`crate::Character::in_window`]).
pub fn deliver_to(receiver: &mut dyn AnimationEventReceiver, event: &Event, state_name: impl Fn(StateIndex) -> Name) {
    match event.kind {
        EventKind::Notify { .. } => receiver.on_notify(event.name.as_str()),
        EventKind::StateEntered { from, .. } => {
            receiver.on_state_changed(state_name(from).as_str(), event.name.as_str())
        }
        EventKind::SlotStarted { slot: Some(slot), .. } => receiver.on_slot_progress(slot, 0.0),
        EventKind::SlotEnded { slot: Some(slot), interrupted: false, .. } => receiver.on_slot_progress(slot, 1.0),
        EventKind::Binding { binding, phase } => receiver.on_animation_event(binding, phase.tag()),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_print_their_names_and_sort_by_time_then_kind() {
        let mut q = EventQueue::with_capacity(3);
        let notify = EventKind::Notify { source: NotifySource::Graph { layer: 0 }, clip: ClipId(3), notify: 0 };
        q.push(0.35, notify, Name::new("Footstep"));
        let entered = EventKind::StateEntered { layer: 0, state: StateIndex(1), from: StateIndex(0) };
        q.push(0.35, entered, Name::new("walk"));
        q.push(
            0.1,
            EventKind::Binding { binding: zoa_anim_core::DefaultBindings::RELOAD, phase: BindingPhase::Start },
            Name::from_static("start"),
        );
        q.push(0.0, notify, Name::EMPTY); // full: dropped, counted
        assert_eq!(q.dropped(), 1);
        q.sort();
        let shown: Vec<String> = q.events().iter().map(ToString::to_string).collect();
        assert_eq!(shown, ["0.100 s binding_start reload", "0.350 s state_entered walk", "0.350 s notify Footstep"]);
    }

    proptest::proptest! {
        /// The insertion sort orders as a stable sort on (time, rank) does:
        /// ties keep queue order.
        #[test]
        fn sort_is_the_stable_order_of_time_then_rank(items in proptest::collection::vec((0u8..4, 0u8..3, 0u16..1000), 0..140)) {
            let kind = |k: u8, n: u16| match k {
                0 => EventKind::Notify { source: NotifySource::Slot, clip: ClipId(0), notify: n },
                1 => EventKind::StateExited { layer: n, state: StateIndex(0) },
                _ => EventKind::SlotStarted { slot: None, clip: ClipId(u32::from(n)) },
            };
            let mut q = EventQueue::with_capacity(items.len());
            for &(t, k, n) in &items {
                q.push(f64::from(t) * 0.25, kind(k, n), Name::EMPTY);
            }
            let mut expected = q.events().to_vec();
            expected.sort_by(|a, b| a.time.total_cmp(&b.time).then(a.kind.rank().cmp(&b.kind.rank())));
            q.sort();
            proptest::prop_assert_eq!(q.events(), &expected[..]);
        }
    }
}

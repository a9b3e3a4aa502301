//! Delivering a character's queued events (the receiver contract, the
//! adapter to the core's receiver, [`Character::deliver_events`]), and a
//! character as a [`Crowd`] member.

use zoa_anim_core::contracts::AnimationEventReceiver;

use super::state::Character;
use crate::character::events::{Event, deliver_to};
use crate::error::RuntimeError;
use crate::pose::compose::PoseScratch;
use crate::pose::crowd::{Crowd, CrowdMember};

impl Character {
    /// Sorts the queued events (time, kind, queue order), hands them to
    /// `receiver` as character `index`, and clears the queue. Allocation-free.
    pub fn deliver_events(&mut self, index: usize, receiver: &mut dyn CharacterEventReceiver) {
        let queue = self.event_queue();
        queue.sort();
        let events = queue.take();
        for e in &events {
            receiver.on_character_event(index, self, e);
        }
        self.event_queue().restore(events);
    }
}

impl Character {
    /// Retires the character (its owner replaces it, e.g. on a hot reload of
    /// its definition) so that nothing it started is left hanging: queues,
    /// at its current time, the end of everything in flight — a
    /// `Binding { phase: Cancel }` for every action a trigger binding started
    /// that has not completed, an interrupted `NotifyEnd` for every open
    /// notify window, an interrupted `SlotEnded` for the clip the override
    /// slot plays — then delivers its queued events to `receiver` as
    /// character `index` (as [`Character::deliver_events`] does) and drops it.
    pub fn retire(mut self, index: usize, receiver: &mut dyn CharacterEventReceiver) {
        self.queue_in_flight_ends();
        self.deliver_events(index, receiver);
    }
}

impl CrowdMember for Character {
    fn update_lent(&mut self, dt: f32, lent: Option<&mut PoseScratch>) -> Result<(), RuntimeError> {
        self.update_with(dt, lent)
    }
    fn scratch(&mut self) -> Option<&mut PoseScratch> {
        self.scratch_mut()
    }
    fn prefetch_stage(&self, stage: u8) {
        self.prefetch(stage);
    }
    fn prefetch_own(&self) {
        Character::prefetch_own(self);
    }
    /// On every CPU. A character's frame reads far more scattered memory
    /// than a clip player's (behaviour, layers, stack record, IK and
    /// inertialization state), which the L2 streamer of an Intel CPU does
    /// not see coming: on an Intel Xeon, the fixture humanoid's full
    /// pipeline with prefetching took 0.78–0.84× the time at 10,000
    /// characters and 0.89–0.96× at 1,000 (one thread; 0.75–0.83× at
    /// 10,000 on two), and was within noise at 100.
    fn prefetches() -> bool {
        true
    }
}

impl Crowd<Character> {
    /// Delivers every character's queued events, character by character in
    /// index order, each in time / kind / queue order; clears the queues.
    pub fn deliver_events(&mut self, receiver: &mut dyn CharacterEventReceiver) {
        for (i, c) in self.iter_mut() {
            c.deliver_events(i, receiver);
        }
    }
}

/// Receives the events of characters after evaluation, with who and when.
pub trait CharacterEventReceiver {
    /// One event of `character` (its index in the crowd); `source` answers
    /// questions about its state (tags, surface, what is bound).
    fn on_character_event(&mut self, character: usize, source: &Character, event: &Event);
}

/// Forwards character events to the core's [`AnimationEventReceiver`]
/// (see [`deliver_to`]: notifies, state entries, slot starts and ends,
/// binding sub-phases).
pub struct ToEventReceiver<'r>(pub &'r mut dyn AnimationEventReceiver);

impl std::fmt::Debug for ToEventReceiver<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ToEventReceiver")
    }
}

impl CharacterEventReceiver for ToEventReceiver<'_> {
    fn on_character_event(&mut self, _character: usize, source: &Character, event: &Event) {
        deliver_to(self.0, event, |state| source.state_name(state));
    }
}

//! Delivering a character's queued events: the receiver contract, the
//! adapter to the core's receiver, and [`Character::deliver_events`].

use zoa_anim_core::contracts::AnimationEventReceiver;

use super::events::{CharacterEvent, CharacterEventKind};
use super::state::Character;

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

/// Receives the events of characters after evaluation, with who and when.
pub trait CharacterEventReceiver {
    /// One event of `character` (its index in the crowd); `source` answers
    /// name lookups ([`Character::event_name`]) and state (tags, surface).
    fn on_character_event(&mut self, character: usize, source: &Character, event: &CharacterEvent);
}

/// Forwards character events to the core's [`AnimationEventReceiver`]:
/// notifies to `on_notify`, state entries to `on_state_changed`, slot
/// progress to `on_slot_progress`, binding sub-phases to
/// `on_animation_event(binding, "start" | "complete" | "cancel")`.
pub struct ToEventReceiver<'r>(pub &'r mut dyn AnimationEventReceiver);

impl std::fmt::Debug for ToEventReceiver<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ToEventReceiver")
    }
}

impl CharacterEventReceiver for ToEventReceiver<'_> {
    fn on_character_event(&mut self, _character: usize, source: &Character, event: &CharacterEvent) {
        match event.kind {
            CharacterEventKind::Notify { .. } => {
                if let Some(name) = source.event_name(event) {
                    self.0.on_notify(name);
                }
            }
            CharacterEventKind::StateEntered { graph, state, from, .. } => {
                if let (Some(f), Some(t)) = (source.state_name(graph, from), source.state_name(graph, state)) {
                    self.0.on_state_changed(f, t);
                }
            }
            CharacterEventKind::SlotProgress { slot, normalized } => self.0.on_slot_progress(slot, normalized),
            CharacterEventKind::Binding { binding, phase } => self.0.on_animation_event(binding, phase.tag()),
            CharacterEventKind::TransitionStarted { .. }
            | CharacterEventKind::StateExited { .. }
            | CharacterEventKind::TransitionFinished { .. } => {}
        }
    }
}

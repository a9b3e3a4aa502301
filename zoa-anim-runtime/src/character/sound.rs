//! The bridge from character events to sound: clip notifies (footsteps) and
//! binding sub-phases become sound cues carrying the character's state tags
//! and the surface under its feet (from the ground probe, when the game
//! supplies one that knows surfaces).
//!
//! [`SoundBridge`] is a [`CharacterEventReceiver`]; it hands each cue to a
//! [`SoundCueSink`]. With the `audio` feature, [`AudioOut`] is a sink that
//! triggers `zoa-audio-profile` emitters (one per character index).

use zoa_anim_core::{AnimationBindingId, NotifyPayload, SoundEventId, StateTagSet};

use super::delivery::CharacterEventReceiver;
use super::state::Character;
use crate::character::events::{BindingPhase, Event, EventKind};

/// What to play.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SoundCueKind<'a> {
    /// A clip notify by name (the sink maps names to sound events, e.g. `Footstep` → `footstep`).
    Notify(&'a str),
    /// A sound event.
    Event(SoundEventId),
}

/// One sound to trigger for a character.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SoundCue<'a> {
    /// Character time of the event, seconds.
    pub time: f64,
    /// What.
    pub kind: SoundCueKind<'a>,
    /// The character's state tags (as gameplay last set them).
    pub tags: StateTagSet,
    /// The surface: a notify payload's text field `surface` when it has one
    /// (a ladder clip's `metal`), else the one under the character's lower
    /// foot, when known.
    pub surface: Option<&'a str>,
    /// The notify's payload, for a sink that reads more of it (a volume).
    pub payload: Option<&'a NotifyPayload>,
}

/// Receives sound cues, after evaluation, on one thread.
pub trait SoundCueSink {
    /// A cue of `character` (its index in the crowd).
    fn on_sound_cue(&mut self, character: usize, cue: &SoundCue<'_>);
}

/// Turns character events into sound cues: every notify becomes
/// [`SoundCueKind::Notify`] (with its payload, whose `surface` overrides the
/// probed one); a binding sub-phase becomes the sound event mapped to it
/// with [`SoundBridge::map_binding`], if any. Notify windows are gameplay
/// state, not sounds (a window that should sound has an instant notify at its
/// time, as the fixture's reload does).
#[derive(Debug)]
pub struct SoundBridge<S> {
    sink: S,
    bindings: Vec<(AnimationBindingId, BindingPhase, SoundEventId)>,
}

impl<S: SoundCueSink> SoundBridge<S> {
    /// A bridge into `sink` with no binding mapped.
    pub fn new(sink: S) -> SoundBridge<S> {
        SoundBridge { sink, bindings: Vec::new() }
    }
    /// Plays `event` when `binding` reaches `phase` (set-up time; allocates).
    pub fn map_binding(mut self, binding: AnimationBindingId, phase: BindingPhase, event: SoundEventId) -> Self {
        self.bindings.push((binding, phase, event));
        self
    }
    /// The sink.
    pub fn sink(&self) -> &S {
        &self.sink
    }
    /// The sink, mutable.
    pub fn sink_mut(&mut self) -> &mut S {
        &mut self.sink
    }
    /// Gives the sink back.
    pub fn into_sink(self) -> S {
        self.sink
    }
}

impl<S: SoundCueSink> CharacterEventReceiver for SoundBridge<S> {
    fn on_character_event(&mut self, character: usize, source: &Character, event: &Event) {
        let kind = match event.kind {
            EventKind::Notify { .. } => SoundCueKind::Notify(event.name.as_str()),
            EventKind::Binding { binding, phase } => {
                match self.bindings.iter().find(|(b, p, _)| *b == binding && *p == phase) {
                    Some((_, _, e)) => SoundCueKind::Event(*e),
                    None => return,
                }
            }
            _ => return,
        };
        let payload = source.notify_payload(event);
        let surface = payload.and_then(|p| p.text("surface")).or_else(|| source.surface());
        let cue = SoundCue { time: event.time, kind, tags: source.tags(), surface, payload };
        self.sink.on_sound_cue(character, &cue);
    }
}

/// A sink that triggers `zoa-audio-profile` emitters: character `i` plays on
/// `emitters[i]` (cues of characters without an emitter are dropped).
#[cfg(feature = "audio")]
#[derive(Debug)]
pub struct AudioOut<'a> {
    /// The player.
    pub player: &'a mut zoa_audio_profile::Player,
    /// One emitter per character index.
    pub emitters: &'a [zoa_audio_profile::SoundEmitter],
}

#[cfg(feature = "audio")]
impl AudioOut<'_> {
    /// Triggers `cue` on character `character`'s emitter: the sound event it
    /// played and what the player did with it (resolution, variant, caps).
    /// `None` when the character has no emitter or the notify maps to no
    /// sound event. Allocation-free.
    pub fn play(
        &mut self,
        character: usize,
        cue: &SoundCue<'_>,
    ) -> Option<(SoundEventId, zoa_audio_profile::TriggerOutcome)> {
        let emitter = self.emitters.get(character)?;
        let event = match cue.kind {
            SoundCueKind::Notify(name) => emitter.notifies().event_for(name)?,
            SoundCueKind::Event(event) => event,
        };
        Some((event, emitter.on_event(self.player, event, cue.tags, cue.surface)))
    }
}

#[cfg(feature = "audio")]
impl SoundCueSink for AudioOut<'_> {
    fn on_sound_cue(&mut self, character: usize, cue: &SoundCue<'_>) {
        self.play(character, cue);
    }
}

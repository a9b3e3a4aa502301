//! Animation and sound events as Bevy messages (and animation events as
//! entity events for observers), written after evaluation; definition
//! reloads as messages.

use std::collections::HashSet;
use std::sync::Arc;

use bevy_ecs::prelude::{Entity, EntityEvent, Message, Resource};
use zoa_anim_core::{AnimationBindingId, SoundEventId, StateTagSet};
use zoa_anim_runtime::Character;
use zoa_anim_runtime::character::{
    BindingPhase, CharacterEventReceiver, Event, SoundBridge, SoundCue, SoundCueKind, SoundCueSink,
};

/// One event of a character (transition, state, binding sub-phase, clip
/// notify, slot start or end), written in the plugin's events step
/// ([`ZoaSet::Events`](crate::ZoaSet::Events), in `PostUpdate`). For each
/// entity the messages come in the character's (time, kind) order.
///
/// Read it two ways:
/// - as a **message** (`MessageReader<ZoaAnimationEvent>`): a reader in
///   `PostUpdate` ordered `.after(ZoaSet::Events)` sees a frame's events in
///   the same frame; a reader in `Update` sees them one frame later (the
///   next frame's `Update` runs before its `PostUpdate`);
/// - as an **entity event** on the character's entity, for observers
///   (`commands.entity(e).observe(|ev: On<ZoaAnimationEvent>| …)`, or a
///   global `app.add_observer`), as `bevy_animation` triggers its animation
///   events: triggered in the same events step, right after the messages
///   are written, so observers run in the same frame (when the step's
///   commands are applied).
#[derive(Debug, Clone, PartialEq, Message, EntityEvent)]
pub struct ZoaAnimationEvent {
    /// The entity holding the [`crate::ZoaCharacter`] (the observed entity).
    pub entity: Entity,
    /// The event: character time, kind, and its name (the notify's, the
    /// state's, the slot's, or the binding phase's tag).
    pub event: Event,
}

/// What a sound cue asks to play.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ZoaSoundKind {
    /// A clip notify by name (a game maps names to sounds, e.g. `Footstep`).
    Notify(Arc<str>),
    /// A sound event mapped to a binding sub-phase ([`ZoaSoundBridge::map_binding`]).
    Event(SoundEventId),
}

/// A sound to play for a character, for the game to forward to its audio:
/// every clip notify, and every binding sub-phase mapped to a sound event.
#[derive(Debug, Clone, PartialEq, Message)]
pub struct ZoaSoundCue {
    /// The entity holding the [`crate::ZoaCharacter`].
    pub entity: Entity,
    /// Character time of the event, seconds.
    pub time: f64,
    /// What to play.
    pub kind: ZoaSoundKind,
    /// The character's state tags (as gameplay last set them).
    pub tags: StateTagSet,
    /// The surface under the character's lower foot, when its ground probe knows it.
    pub surface: Option<Arc<str>>,
}

/// Shared copies of the names events carry: a name is allocated the first
/// time it is seen, then every message clones the shared copy.
#[derive(Debug, Default)]
pub(crate) struct Names(HashSet<Arc<str>>);

impl Names {
    pub(crate) fn get(&mut self, name: &str) -> Arc<str> {
        if let Some(n) = self.0.get(name) {
            return Arc::clone(n);
        }
        let n: Arc<str> = Arc::from(name);
        self.0.insert(Arc::clone(&n));
        n
    }
}

#[derive(Debug)]
pub(crate) struct CueBuffer {
    pub(crate) entity: Entity,
    pub(crate) cues: Vec<ZoaSoundCue>,
    pub(crate) names: Names,
}

impl SoundCueSink for CueBuffer {
    fn on_sound_cue(&mut self, _character: usize, cue: &SoundCue<'_>) {
        let kind = match cue.kind {
            SoundCueKind::Notify(name) => ZoaSoundKind::Notify(self.names.get(name)),
            SoundCueKind::Event(e) => ZoaSoundKind::Event(e),
        };
        let surface = cue.surface.map(|s| self.names.get(s));
        self.cues.push(ZoaSoundCue { entity: self.entity, time: cue.time, kind, tags: cue.tags, surface });
    }
}

/// Which binding sub-phases play which sound event (clip notifies always
/// become [`ZoaSoundKind::Notify`] cues).
#[derive(Debug, Resource)]
pub struct ZoaSoundBridge {
    pub(crate) bridge: SoundBridge<CueBuffer>,
}

impl Default for ZoaSoundBridge {
    fn default() -> Self {
        ZoaSoundBridge { bridge: SoundBridge::new(empty_buffer()) }
    }
}

fn empty_buffer() -> CueBuffer {
    CueBuffer { entity: Entity::PLACEHOLDER, cues: Vec::new(), names: Names::default() }
}

impl ZoaSoundBridge {
    /// Plays `event` when `binding` reaches `phase` (set-up time).
    pub fn map_binding(&mut self, binding: AnimationBindingId, phase: BindingPhase, event: SoundEventId) {
        let bridge = std::mem::replace(&mut self.bridge, SoundBridge::new(empty_buffer()));
        self.bridge = bridge.map_binding(binding, phase, event);
    }
}

/// Delivers one character's events: an animation message each, and the
/// sound bridge's cues into its buffer.
pub(crate) struct Deliver<'a, W: FnMut(ZoaAnimationEvent)> {
    pub(crate) entity: Entity,
    pub(crate) write: W,
    pub(crate) bridge: &'a mut SoundBridge<CueBuffer>,
}

impl<W: FnMut(ZoaAnimationEvent)> CharacterEventReceiver for Deliver<'_, W> {
    fn on_character_event(&mut self, character: usize, source: &Character, event: &Event) {
        (self.write)(ZoaAnimationEvent { entity: self.entity, event: *event });
        self.bridge.on_character_event(character, source, event);
    }
}

/// A definition folder was read again (hot reload, or
/// [`ZoaDefinitions::reload`](crate::ZoaDefinitions::reload)): its new
/// definition swapped in, or the edit refused with every diagnostic (the
/// last good definition stays). Written in [`ZoaSet::Input`](crate::ZoaSet::Input).
#[derive(Debug, Clone, PartialEq, Eq, Message)]
pub struct ZoaDefinitionReloaded {
    /// The definition.
    pub id: crate::ZoaDefinitionId,
    /// Its folder.
    pub folder: std::path::PathBuf,
    /// Swapped or kept the last good.
    pub outcome: crate::ReloadOutcome,
    /// Its generation after the reload (unchanged when refused).
    pub generation: u32,
    /// Every problem of a refused edit, rendered `file:line:column: code:
    /// message` (empty when swapped).
    pub diagnostics: Vec<String>,
}

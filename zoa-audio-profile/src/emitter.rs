//! Integration hooks: clip notifies (footsteps) and driver events become
//! sound events on an emitter, carrying the emitter's state tags and the
//! surface under the foot. The runtime decides *when* (notify crossing,
//! driver trigger); this module decides *what* to trigger, allocation-free.

use zoa_anim_core::clip_asset::ClipNotify;
use zoa_anim_core::glam::Vec3;
use zoa_anim_core::{DefaultSoundEvents, SoundEventId, StateTagSet};

use crate::AudioError;
use crate::player::{EmitterId, Player, TriggerOutcome};

/// Notify name → sound event. Names compare ASCII case-insensitively, so a
/// clip's `Footstep` notify finds the `footstep` mapping.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct NotifyMap {
    pairs: Vec<(String, SoundEventId)>,
}

impl NotifyMap {
    /// An empty map.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// The shipped mapping: `footstep`, `footstep_l`, `footstep_r`,
    /// `footstep_left`, `footstep_right` → `footstep`; `land` → `land`;
    /// `jump` → `jump`.
    #[must_use]
    pub fn with_defaults() -> Self {
        let mut m = Self::new();
        for name in ["footstep", "footstep_l", "footstep_r", "footstep_left", "footstep_right"] {
            m.insert(name, DefaultSoundEvents::FOOTSTEP);
        }
        m.insert("land", DefaultSoundEvents::LAND);
        m.insert("jump", DefaultSoundEvents::JUMP);
        m
    }

    /// Maps `notify` to `event`, replacing an earlier mapping of the same name.
    pub fn insert(&mut self, notify: impl Into<String>, event: SoundEventId) {
        let notify = notify.into();
        match self.pairs.iter_mut().find(|(n, _)| n.eq_ignore_ascii_case(&notify)) {
            Some(pair) => pair.1 = event,
            None => self.pairs.push((notify, event)),
        }
    }

    /// Every sound event a notify maps to, in mapping order (repeats included).
    pub fn events(&self) -> impl Iterator<Item = SoundEventId> + '_ {
        self.pairs.iter().map(|(_, e)| *e)
    }

    /// The event `notify` maps to. Allocation-free.
    #[must_use]
    pub fn event_for(&self, notify: &str) -> Option<SoundEventId> {
        self.pairs.iter().find(|(n, _)| n.eq_ignore_ascii_case(notify)).map(|(_, e)| *e)
    }
}

/// A sound-emitting thing (a character, a weapon) registered with a [`Player`].
#[derive(Debug, Clone, PartialEq)]
pub struct SoundEmitter {
    id: EmitterId,
    notifies: NotifyMap,
}

impl SoundEmitter {
    /// Registers an emitter at `position` with the notify mapping `notifies`.
    ///
    /// # Errors
    /// [`AudioError::EmitterPoolFull`]; [`AudioError::NonFinite`] for a NaN
    /// or infinite position.
    pub fn new(player: &mut Player, position: Vec3, notifies: NotifyMap) -> Result<Self, AudioError> {
        Ok(SoundEmitter { id: player.add_emitter(position)?, notifies })
    }

    /// The player-side handle.
    #[must_use]
    pub fn id(&self) -> EmitterId {
        self.id
    }

    /// The notify mapping.
    #[must_use]
    pub fn notifies(&self) -> &NotifyMap {
        &self.notifies
    }

    /// Moves the emitter.
    ///
    /// # Errors
    /// [`AudioError::UnknownEmitter`] if it was removed from the player;
    /// [`AudioError::NonFinite`] for a NaN or infinite position.
    pub fn set_position(&self, player: &mut Player, position: Vec3) -> Result<(), AudioError> {
        player.set_emitter_position(self.id, position)
    }

    /// A clip notify was crossed: triggers the mapped event with the
    /// emitter's `tags` and the `surface` under the foot. `None` when the
    /// notify is not a sound notify (unmapped). Allocation-free.
    pub fn on_notify(
        &self,
        player: &mut Player,
        notify: &str,
        tags: StateTagSet,
        surface: Option<&str>,
    ) -> Option<TriggerOutcome> {
        let event = self.notifies.event_for(notify)?;
        Some(player.trigger(Some(self.id), event, tags, surface))
    }

    /// Every notify a clip crossed this frame (e.g.
    /// `clip.notifies_between(prev_time, time)`), in order: mapped ones
    /// trigger with `tags` and `surface`, the rest are ignored. Returns how
    /// many triggered and how many of those started a voice. Allocation-free.
    pub fn on_clip_notifies<'n>(
        &self,
        player: &mut Player,
        notifies: impl IntoIterator<Item = &'n ClipNotify>,
        tags: StateTagSet,
        surface: Option<&str>,
    ) -> (usize, usize) {
        let (mut triggered, mut started) = (0, 0);
        for n in notifies {
            if let Some(outcome) = self.on_notify(player, &n.name, tags, surface) {
                triggered += 1;
                started += usize::from(matches!(outcome, TriggerOutcome::Started { .. }));
            }
        }
        (triggered, started)
    }

    /// A driver event (fire, reload, hurt) triggers `event` directly.
    pub fn on_event(
        &self,
        player: &mut Player,
        event: SoundEventId,
        tags: StateTagSet,
        surface: Option<&str>,
    ) -> TriggerOutcome {
        player.trigger(Some(self.id), event, tags, surface)
    }

    /// Stops this emitter's voices of `event` (and its sub-events).
    pub fn stop(&self, player: &mut Player, event: SoundEventId) -> usize {
        player.stop_event(Some(self.id), event)
    }
}

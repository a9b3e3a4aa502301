//! Sound profiles: semantic sound events bound to weighted clip variants,
//! narrowed by state tags and surface, with routing and lifecycle fields
//! Resolution lives in
//! `zoa-audio-profile`; this is the validated data.

use crate::inheritance::Inheritable;
use crate::resolver::TaggedRow;
use crate::tags::StateTagSet;
use crate::{AudioBusId, SoundEventId};

/// One playable variant of an entry.
#[derive(Debug, Clone, PartialEq)]
pub struct AudioVariant {
    /// Sound file path, relative to the definition folder.
    pub clip: String,
    /// Relative pick weight (`>= 0`; the entry's total must be `> 0`).
    pub weight: f32,
}

/// How gain falls with distance for spatial entries (see `zoa-audio-profile`
/// for the curves).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Rolloff {
    /// Straight line from full gain at the reference distance to silence at max distance.
    Linear,
    /// Inverse distance (`ref / d`), faded to silence at max distance.
    #[default]
    Inverse,
    /// Logarithmic falloff, faded to silence at max distance.
    Logarithmic,
}

impl Rolloff {
    /// `linear`, `inverse` or `logarithmic`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Rolloff::Linear => "linear",
            Rolloff::Inverse => "inverse",
            Rolloff::Logarithmic => "logarithmic",
        }
    }
    /// Parses the lowercase name.
    #[must_use]
    pub fn from_name(s: &str) -> Option<Self> {
        Some(match s {
            "linear" => Rolloff::Linear,
            "inverse" => Rolloff::Inverse,
            "logarithmic" => Rolloff::Logarithmic,
            _ => return None,
        })
    }
}

/// What happens when an entry's polyphony cap is reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum CapPolicy {
    /// Drop the new voice.
    Reject,
    /// Fade out the oldest voice of the entry and start the new one.
    #[default]
    StealOldest,
    /// Fade out the quietest voice of the entry and start the new one.
    StealQuietest,
}

impl CapPolicy {
    /// `reject`, `steal_oldest` or `steal_quietest`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            CapPolicy::Reject => "reject",
            CapPolicy::StealOldest => "steal_oldest",
            CapPolicy::StealQuietest => "steal_quietest",
        }
    }
    /// Parses the snake_case name.
    #[must_use]
    pub fn from_name(s: &str) -> Option<Self> {
        Some(match s {
            "reject" => CapPolicy::Reject,
            "steal_oldest" => CapPolicy::StealOldest,
            "steal_quietest" => CapPolicy::StealQuietest,
            _ => return None,
        })
    }
}

/// One entry of a sound profile.
#[derive(Debug, Clone, PartialEq)]
pub struct SoundEventEntry {
    /// The semantic event this entry answers.
    pub event: SoundEventId,
    /// Required state tags (empty = any state).
    pub tag_filter: StateTagSet,
    /// Required surface (`grass`, `metal`); `None` matches any surface.
    pub surface: Option<String>,
    /// Weighted variants (at least one, total weight `> 0`).
    pub variants: Vec<AudioVariant>,
    /// Tie-breaker among equally specific entries; higher wins (default 1).
    pub weight: f32,
    /// Mixer bus.
    pub bus: AudioBusId,
    /// Base volume, linear gain `>= 0` (default 1).
    pub volume: f32,
    /// Random volume spread: gain is multiplied by a value in `[1 - v, 1]` (0 ..= 1).
    pub volume_jitter: f32,
    /// Random pitch spread in semitones, `± p` (`>= 0`).
    pub pitch_jitter_semitones: f32,
    /// Positioned in 3D.
    pub spatial: bool,
    /// Distance at which a spatial entry becomes silent, metres (`> 0`).
    pub max_distance: f32,
    /// Distance falloff curve.
    pub rolloff: Rolloff,
    /// Loops until stopped.
    pub looping: bool,
    /// Fade in/out time for loops, seconds (`>= 0`).
    pub fade_time: f32,
    /// Re-triggers inside this window are dropped, seconds (`>= 0`).
    pub cooldown: f32,
    /// Whether the cooldown is shared by all emitters (default: per emitter).
    pub cooldown_global: bool,
    /// At most this many voices of the entry at once (`>= 1`; 0 = unlimited).
    pub polyphony_cap: u32,
    /// What to do when the cap is reached.
    pub cap_policy: CapPolicy,
    /// Voice priority when a bus cap is hit; higher survives.
    pub priority: i32,
    /// Avoid repeating any of the last N variants picked (0 = off).
    pub avoid_repeat: u32,
}

impl SoundEventEntry {
    /// An entry with one variant and the documented defaults.
    pub fn new(event: SoundEventId, clip: impl Into<String>) -> Self {
        SoundEventEntry {
            event,
            tag_filter: StateTagSet::EMPTY,
            surface: None,
            variants: vec![AudioVariant { clip: clip.into(), weight: 1.0 }],
            weight: 1.0,
            bus: AudioBusId::from_static("sfx"),
            volume: 1.0,
            volume_jitter: 0.0,
            pitch_jitter_semitones: 0.0,
            spatial: false,
            max_distance: 50.0,
            rolloff: Rolloff::Inverse,
            looping: false,
            fade_time: 0.0,
            cooldown: 0.0,
            cooldown_global: false,
            polyphony_cap: 0,
            cap_policy: CapPolicy::StealOldest,
            priority: 0,
            avoid_repeat: 0,
        }
    }
}

impl TaggedRow for SoundEventEntry {
    #[inline]
    fn pattern(&self) -> StateTagSet {
        self.tag_filter
    }
    #[inline]
    fn weight(&self) -> f32 {
        self.weight
    }
}

/// Limits shared by every sound event under an id prefix: `weapon.fire`
/// covers `weapon.fire` and everything below it (`weapon.fire.rifle`,
/// `weapon.fire.pistol.silenced`), written `weapon.fire.*` in files. A
/// trigger counts towards every throttle whose prefix covers the event it
/// asked for; it is dropped when any of them is full.
#[derive(Debug, Clone, PartialEq)]
pub struct SoundThrottle {
    /// The covered id prefix.
    pub prefix: SoundEventId,
    /// At most this many live voices started under the prefix (0 = no cap).
    pub max_voices: u32,
    /// At most this many voice starts under the prefix in any one-second
    /// window (0 = no limit).
    pub max_starts_per_second: u32,
    /// At least this many seconds between two starts under the prefix, from
    /// any emitter (`>= 0`; 0 = none).
    pub cooldown: f32,
}

impl SoundThrottle {
    /// A throttle on `prefix` that limits nothing yet.
    #[must_use]
    pub fn new(prefix: SoundEventId) -> Self {
        SoundThrottle { prefix, max_voices: 0, max_starts_per_second: 0, cooldown: 0.0 }
    }
}

/// A sound profile: named sound events, each a list of tagged entries with
/// weighted clip variants.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SoundProfile {
    /// Unique id.
    pub id: String,
    /// Entries in authoring order.
    pub entries: Vec<SoundEventEntry>,
    /// Parent profile id.
    pub parent: Option<String>,
    /// Prefix throttles; a child's throttle replaces its parent's on the same prefix.
    pub throttles: Vec<SoundThrottle>,
}

impl Inheritable for SoundProfile {
    type Row = SoundEventEntry;
    type Key = (SoundEventId, StateTagSet, Option<String>);
    fn id(&self) -> &str {
        &self.id
    }
    fn parent_id(&self) -> Option<&str> {
        self.parent.as_deref()
    }
    fn rows(&self) -> &[SoundEventEntry] {
        &self.entries
    }
    fn row_key(row: &SoundEventEntry) -> Self::Key {
        (row.event, row.tag_filter, row.surface.clone())
    }
}

//! Animation profiles: the tagged clip table and its no-match policy.

use crate::inheritance::Inheritable;
use crate::resolver::TaggedRow;
use crate::tags::{CombatTag, InteractionTag, LocomotionTag, MoodTag, PostureTag, ReactionTag, StateTagSet};

/// One row of a clip table: a required pattern (six masks), the clip, and how
/// to play it.
#[derive(Debug, Clone, PartialEq)]
pub struct TaggedClipEntry {
    /// Required locomotion tags.
    pub locomotion: LocomotionTag,
    /// Required posture tags.
    pub posture: PostureTag,
    /// Required combat tags.
    pub combat: CombatTag,
    /// Required interaction tags.
    pub interaction: InteractionTag,
    /// Required reaction tags.
    pub reaction: ReactionTag,
    /// Required mood tags.
    pub mood: MoodTag,
    /// Clip reference (a clip asset name or `<file stem>_<animation>`).
    pub clip: String,
    /// Tie-breaker among equally specific rows; `>= 0`, default 1.
    pub weight: f32,
    /// Playback speed multiplier; `> 0`, default 1.
    pub speed_multiplier: f32,
    /// Plays once and hands control back to the resolver (land, equip
    /// flourish) instead of looping.
    pub one_shot: bool,
}

impl TaggedClipEntry {
    /// A looping row with weight 1 and speed 1.
    pub fn new(pattern: StateTagSet, clip: impl Into<String>) -> Self {
        TaggedClipEntry {
            locomotion: pattern.locomotion(),
            posture: pattern.posture(),
            combat: pattern.combat(),
            interaction: pattern.interaction(),
            reaction: pattern.reaction(),
            mood: pattern.mood(),
            clip: clip.into(),
            weight: 1.0,
            speed_multiplier: 1.0,
            one_shot: false,
        }
    }

    /// The required pattern as a [`StateTagSet`].
    #[inline]
    pub const fn to_pattern(&self) -> StateTagSet {
        StateTagSet::new(self.locomotion, self.posture, self.combat, self.interaction, self.reaction, self.mood)
    }

    /// Whether any tag is asserted (an untagged row is the universal default).
    pub const fn has_any_tag(&self) -> bool {
        !self.to_pattern().is_empty()
    }
}

impl TaggedRow for TaggedClipEntry {
    #[inline]
    fn pattern(&self) -> StateTagSet {
        self.to_pattern()
    }
    #[inline]
    fn weight(&self) -> f32 {
        self.weight
    }
}

/// What happens when no row resolves, even after the fallback walk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NoMatchPolicy {
    /// Drive the rig with procedural motion (idle breath, head bob).
    Procedural,
    /// Loop the profile's default idle clip.
    DefaultIdle(String),
    /// Hold the previous pose.
    Hold,
}

impl NoMatchPolicy {
    /// `procedural`, `default_idle` or `hold`.
    pub const fn name(&self) -> &'static str {
        match self {
            NoMatchPolicy::Procedural => "procedural",
            NoMatchPolicy::DefaultIdle(_) => "default_idle",
            NoMatchPolicy::Hold => "hold",
        }
    }
}

/// The tagged clip table (the seed's `AnimationProfileDefinition`).
#[derive(Debug, Clone, PartialEq)]
pub struct AnimationProfile {
    /// Unique id.
    pub id: String,
    /// Rows in authoring order.
    pub entries: Vec<TaggedClipEntry>,
    /// Parent profile id, for inheritance.
    pub parent: Option<String>,
    /// Whether procedural motion may drive the rig when nothing resolves.
    pub procedural_fallbacks_allowed: bool,
    /// Last-resort looping clip when nothing resolves.
    pub default_idle_clip: Option<String>,
}

impl AnimationProfile {
    /// The no-match policy: procedural when allowed, else the default idle
    /// clip, else hold the pose.
    pub fn no_match_policy(&self) -> NoMatchPolicy {
        if self.procedural_fallbacks_allowed {
            NoMatchPolicy::Procedural
        } else if let Some(clip) = &self.default_idle_clip {
            NoMatchPolicy::DefaultIdle(clip.clone())
        } else {
            NoMatchPolicy::Hold
        }
    }
}

impl Inheritable for AnimationProfile {
    type Row = TaggedClipEntry;
    type Key = StateTagSet;
    fn id(&self) -> &str {
        &self.id
    }
    fn parent_id(&self) -> Option<&str> {
        self.parent.as_deref()
    }
    fn rows(&self) -> &[TaggedClipEntry] {
        &self.entries
    }
    fn row_key(row: &TaggedClipEntry) -> StateTagSet {
        row.to_pattern()
    }
}

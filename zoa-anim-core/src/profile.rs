//! Animation profiles: the tagged clip table and its no-match policy.

use crate::inheritance::Inheritable;
use crate::resolver::TaggedRow;
use crate::tags::{CombatTag, InteractionTag, LocomotionTag, MoodTag, PostureTag, ReactionTag, StateTagSet};

/// One row of a clip table: a required pattern (six masks), the clip, and how
/// to play it.
///
/// The six masks are stored packed in one [`StateTagSet`] so the resolver
/// reads a row's pattern with a single load; [`TaggedClipEntry::locomotion`]
/// and its siblings give the per-dimension view.
#[derive(Debug, Clone, PartialEq)]
pub struct TaggedClipEntry {
    /// The required tags, all six dimensions.
    pub pattern: StateTagSet,
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
        TaggedClipEntry { pattern, clip: clip.into(), weight: 1.0, speed_multiplier: 1.0, one_shot: false }
    }

    /// The required pattern as a [`StateTagSet`].
    #[inline]
    #[must_use]
    pub const fn to_pattern(&self) -> StateTagSet {
        self.pattern
    }

    /// Whether any tag is asserted (an untagged row is the universal default).
    #[must_use]
    pub const fn has_any_tag(&self) -> bool {
        !self.pattern.is_empty()
    }

    /// Required locomotion tags.
    #[must_use]
    pub const fn locomotion(&self) -> LocomotionTag {
        self.pattern.locomotion()
    }
    /// Required posture tags.
    #[must_use]
    pub const fn posture(&self) -> PostureTag {
        self.pattern.posture()
    }
    /// Required combat tags.
    #[must_use]
    pub const fn combat(&self) -> CombatTag {
        self.pattern.combat()
    }
    /// Required interaction tags.
    #[must_use]
    pub const fn interaction(&self) -> InteractionTag {
        self.pattern.interaction()
    }
    /// Required reaction tags.
    #[must_use]
    pub const fn reaction(&self) -> ReactionTag {
        self.pattern.reaction()
    }
    /// Required mood tags.
    #[must_use]
    pub const fn mood(&self) -> MoodTag {
        self.pattern.mood()
    }
}

impl TaggedRow for TaggedClipEntry {
    #[inline]
    fn pattern(&self) -> StateTagSet {
        self.pattern
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
    #[must_use]
    pub const fn name(&self) -> &'static str {
        match self {
            NoMatchPolicy::Procedural => "procedural",
            NoMatchPolicy::DefaultIdle(_) => "default_idle",
            NoMatchPolicy::Hold => "hold",
        }
    }
}

/// The tagged clip table: rows of (tag pattern, clip, weight) an entity's
/// state resolves against.
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
    #[must_use]
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
        row.pattern
    }
}

//! Animation profiles: the tagged clip table and its no-match policy.

use crate::inheritance::Inheritable;
use crate::resolver::TaggedRow;
use crate::tags::{CombatTag, InteractionTag, LocomotionTag, MoodTag, PostureTag, ReactionTag, StateTagSet};

/// A chooser column of a clip-table row: the row is a candidate only while
/// the value of `parameter` (a float or int binding id, e.g. `speed`,
/// `aim_yaw`; the character's speed for `speed`) lies in `min ..` `max`.
///
/// The range is half open, `min <= value < max`, so adjacent ranges
/// (`0..2`, `2..4`) never overlap; either end may be infinite (open). A value
/// the game never gave is in no range.
#[derive(Debug, Clone, PartialEq)]
pub struct ValueRange {
    /// The binding id whose value is tested.
    pub parameter: String,
    /// Lowest value in the range (`-inf` for none).
    pub min: f32,
    /// First value past the range (`inf` for none); `> min`.
    pub max: f32,
}

impl ValueRange {
    /// Whether `value` lies in the range (never for NaN).
    #[inline]
    #[must_use]
    pub fn contains(&self, value: f32) -> bool {
        self.min <= value && value < self.max
    }
}

impl std::fmt::Display for ValueRange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let end = |v: f32| if v.is_finite() { v.to_string() } else { String::new() };
        write!(f, "{} in {}..{}", self.parameter, end(self.min), end(self.max))
    }
}

/// How a table chooses among its best candidates.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum RowPick {
    /// The highest weight, then the first authored (deterministic).
    #[default]
    Best,
    /// At random among the rows tied on fallback step and specificity, each
    /// with probability proportional to its weight; re-picked each time the
    /// tied group is entered, from the character's seed.
    Random,
}

impl RowPick {
    /// `best` or `random`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            RowPick::Best => "best",
            RowPick::Random => "random",
        }
    }
}

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
    /// Chooser columns: value ranges that must all hold besides the tags
    /// (each one counts 1 in the row's specificity).
    pub ranges: Vec<ValueRange>,
}

impl TaggedClipEntry {
    /// A looping row with weight 1 and speed 1.
    pub fn new(pattern: StateTagSet, clip: impl Into<String>) -> Self {
        TaggedClipEntry {
            pattern,
            clip: clip.into(),
            weight: 1.0,
            speed_multiplier: 1.0,
            one_shot: false,
            ranges: Vec::new(),
        }
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
    /// How the table chooses among its best candidates (default
    /// [`RowPick::Best`]; a child inherits its parent's when it says nothing).
    pub pick: Option<RowPick>,
    /// Cross-fade when a chooser column's value change (not a tag change)
    /// selects another row, seconds (`>= 0`; default 0.2).
    pub range_crossfade: Option<f32>,
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

/// What makes two clip-table rows "the same row" for inheritance and W001:
/// the pattern and the chooser columns (bounds by their bits).
pub type RowKey = (StateTagSet, Vec<(String, u32, u32)>);

impl TaggedClipEntry {
    /// This row's [`RowKey`].
    #[must_use]
    pub fn key(&self) -> RowKey {
        (self.pattern, self.ranges.iter().map(|r| (r.parameter.clone(), r.min.to_bits(), r.max.to_bits())).collect())
    }
}

impl Inheritable for AnimationProfile {
    type Row = TaggedClipEntry;
    type Key = RowKey;
    fn id(&self) -> &str {
        &self.id
    }
    fn parent_id(&self) -> Option<&str> {
        self.parent.as_deref()
    }
    fn rows(&self) -> &[TaggedClipEntry] {
        &self.entries
    }
    fn row_key(row: &TaggedClipEntry) -> RowKey {
        row.key()
    }
    /// A profile that picks at random keeps rows with the same tags and
    /// ranges as variants to pick among.
    fn keeps_variants(&self) -> bool {
        self.pick == Some(RowPick::Random)
    }
}

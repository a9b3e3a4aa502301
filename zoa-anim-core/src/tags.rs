//! State tags: six orthogonal bitmask dimensions describing an entity's condition.
//!
//! An entity can crouch-walk because posture and locomotion are separate axes,
//! and aim a rifle while wounded because combat and mood are separate axes.
//! Each axis is a `u32` bitflags type; a [`StateTagSet`] holds one mask per
//! axis and matching is six AND/compare pairs with no branches.
//!
//! # Text form
//! Used by the CLI and TOML definitions:
//!
//! ```text
//! locomotion=sprint posture=standing combat=armed_rifle|aiming mood=alert
//! ```
//!
//! Whitespace separates dimensions, `|` (or `,` or `+`) separates flags within a
//! dimension. Dimension and flag names are snake_case; `ArmedRifle` style and
//! upper case are accepted on input. The empty string and `any` mean the empty
//! set. [`StateTagSet`]'s `Display` writes the canonical form (dimensions in
//! declaration order, flags in bit order, `any` for the empty set) and parsing it
//! gives back the same set.

use std::fmt;
use std::str::FromStr;

use bitflags::bitflags;

use crate::CoreError;

bitflags! {
    /// How the entity moves. Mutually exclusive in practice, but kept as flags
    /// so a pattern can say "walk or run" by asserting nothing and letting
    /// another dimension decide.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
    pub struct LocomotionTag: u32 {
        /// Not moving.
        const IDLE = 1 << 0;
        /// Walking pace.
        const WALK = 1 << 1;
        /// Jogging / running pace.
        const RUN = 1 << 2;
        /// Full sprint.
        const SPRINT = 1 << 3;
        /// Moving sideways relative to facing.
        const STRAFE = 1 << 4;
        /// Moving backwards relative to facing.
        const BACKWARD = 1 << 5;
        /// Turning in place.
        const TURN = 1 << 6;
        /// Take-off of a jump.
        const JUMP = 1 << 7;
        /// Airborne and descending.
        const FALL = 1 << 8;
        /// Touch-down after a fall.
        const LAND = 1 << 9;
        /// Swimming.
        const SWIM = 1 << 10;
        /// Climbing (ladder, wall).
        const CLIMB = 1 << 11;
        /// Sliding.
        const SLIDE = 1 << 12;
        /// Vaulting or mantling an obstacle.
        const VAULT = 1 << 13;
    }
}

bitflags! {
    /// Body posture, independent of movement.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
    pub struct PostureTag: u32 {
        /// Upright.
        const STANDING = 1 << 0;
        /// Crouched.
        const CROUCHING = 1 << 1;
        /// Lying on the belly.
        const PRONE = 1 << 2;
        /// Seated.
        const SITTING = 1 << 3;
        /// On one or both knees.
        const KNEELING = 1 << 4;
        /// Riding a mount or vehicle.
        const MOUNTED = 1 << 5;
        /// Pressed into cover.
        const IN_COVER = 1 << 6;
    }
}

bitflags! {
    /// What the entity holds and does with it.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
    pub struct CombatTag: u32 {
        /// Empty hands, fists ready.
        const UNARMED = 1 << 0;
        /// Holding a pistol.
        const ARMED_PISTOL = 1 << 1;
        /// Holding a rifle (assault rifle, SMG, carbine).
        const ARMED_RIFLE = 1 << 2;
        /// Holding a shotgun.
        const ARMED_SHOTGUN = 1 << 3;
        /// Holding a melee weapon.
        const ARMED_MELEE = 1 << 4;
        /// Holding a heavy weapon (launcher, LMG).
        const ARMED_HEAVY = 1 << 5;
        /// Aiming down sights / focused aim.
        const AIMING = 1 << 6;
        /// Firing.
        const FIRING = 1 << 7;
        /// Reloading.
        const RELOADING = 1 << 8;
        /// Blocking or parrying.
        const BLOCKING = 1 << 9;
        /// Drawing or holstering a weapon.
        const EQUIPPING = 1 << 10;
        /// Throwing (grenade, item).
        const THROWING = 1 << 11;
    }
}

bitflags! {
    /// Interaction with the world or other characters.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
    pub struct InteractionTag: u32 {
        /// In conversation.
        const TALKING = 1 << 0;
        /// Carrying an object.
        const CARRYING = 1 << 1;
        /// Pushing an object.
        const PUSHING = 1 << 2;
        /// Pulling an object.
        const PULLING = 1 << 3;
        /// Using a device, terminal or lever.
        const USING = 1 << 4;
        /// Opening a door or container.
        const OPENING = 1 << 5;
        /// Picking something up.
        const PICKING_UP = 1 << 6;
        /// Hanging from or holding a ledge.
        const LEDGE = 1 << 7;
    }
}

bitflags! {
    /// Short-lived reactions to what happens to the entity.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
    pub struct ReactionTag: u32 {
        /// A light hit landed.
        const HIT = 1 << 0;
        /// A flinch from a near miss or noise.
        const FLINCH = 1 << 1;
        /// Staggered, balance lost.
        const STAGGERED = 1 << 2;
        /// Knocked to the ground.
        const KNOCKED_DOWN = 1 << 3;
        /// Stunned.
        const STUNNED = 1 << 4;
        /// Dying.
        const DYING = 1 << 5;
        /// Dead.
        const DEAD = 1 << 6;
    }
}

bitflags! {
    /// Long-lived emotional or physical condition.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
    pub struct MoodTag: u32 {
        /// Relaxed.
        const CALM = 1 << 0;
        /// Alert, scanning for threats.
        const ALERT = 1 << 1;
        /// Afraid.
        const AFRAID = 1 << 2;
        /// Angry, aggressive.
        const ANGRY = 1 << 3;
        /// Wounded, limping.
        const WOUNDED = 1 << 4;
        /// Out of breath.
        const EXHAUSTED = 1 << 5;
        /// Sneaking, trying not to be heard.
        const STEALTHY = 1 << 6;
    }
}

/// The six dimensions, in declaration order. The order matters to the text
/// form and to indexing; the fallback relax order is a separate, explicit list
/// (see [`crate::fallback`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum StateDimension {
    /// How the entity moves.
    Locomotion = 0,
    /// Body posture.
    Posture = 1,
    /// Weapon and combat activity.
    Combat = 2,
    /// Interaction with the world.
    Interaction = 3,
    /// Short reactions.
    Reaction = 4,
    /// Long-lived mood or condition.
    Mood = 5,
}

impl StateDimension {
    /// All six, in declaration order.
    pub const ALL: [StateDimension; 6] = [
        StateDimension::Locomotion,
        StateDimension::Posture,
        StateDimension::Combat,
        StateDimension::Interaction,
        StateDimension::Reaction,
        StateDimension::Mood,
    ];

    /// Index into per-dimension arrays (declaration order).
    #[must_use]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The snake_case name used in text forms.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            StateDimension::Locomotion => "locomotion",
            StateDimension::Posture => "posture",
            StateDimension::Combat => "combat",
            StateDimension::Interaction => "interaction",
            StateDimension::Reaction => "reaction",
            StateDimension::Mood => "mood",
        }
    }

    /// Every flag of this dimension as `(snake_case name, bit)`, in bit order.
    pub fn flags(self) -> impl Iterator<Item = (String, u32)> {
        fn names<F: bitflags::Flags<Bits = u32>>() -> Vec<(String, u32)> {
            F::FLAGS.iter().map(|f| (f.name().to_ascii_lowercase(), f.value().bits())).collect()
        }
        let v = match self {
            StateDimension::Locomotion => names::<LocomotionTag>(),
            StateDimension::Posture => names::<PostureTag>(),
            StateDimension::Combat => names::<CombatTag>(),
            StateDimension::Interaction => names::<InteractionTag>(),
            StateDimension::Reaction => names::<ReactionTag>(),
            StateDimension::Mood => names::<MoodTag>(),
        };
        v.into_iter()
    }

    /// All bits this dimension defines.
    #[must_use]
    pub const fn all_bits(self) -> u32 {
        match self {
            StateDimension::Locomotion => LocomotionTag::all().bits(),
            StateDimension::Posture => PostureTag::all().bits(),
            StateDimension::Combat => CombatTag::all().bits(),
            StateDimension::Interaction => InteractionTag::all().bits(),
            StateDimension::Reaction => ReactionTag::all().bits(),
            StateDimension::Mood => MoodTag::all().bits(),
        }
    }

    /// Looks a flag up by name (snake_case, upper case or CamelCase).
    pub fn parse_flag(self, name: &str) -> Result<u32, CoreError> {
        let wanted = normalize_name(name);
        self.flags().find(|(n, _)| *n == wanted).map(|(_, bit)| bit).ok_or_else(|| CoreError::UnknownTag {
            dimension: self.name(),
            name: name.to_owned(),
            valid: self.flags().map(|(n, _)| n).collect::<Vec<_>>().join(", "),
        })
    }
}

impl fmt::Display for StateDimension {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for StateDimension {
    type Err = CoreError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let wanted = normalize_name(s);
        StateDimension::ALL.into_iter().find(|d| d.name() == wanted).ok_or_else(|| CoreError::UnknownDimension {
            name: s.to_owned(),
            valid: StateDimension::ALL.map(|d| d.name()).join(", "),
        })
    }
}

/// `ArmedRifle`, `ARMED_RIFLE`, `armed-rifle` → `armed_rifle`.
fn normalize_name(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 4);
    let mut prev_lower = false;
    for c in s.trim().chars() {
        if c == '-' || c == ' ' {
            out.push('_');
            prev_lower = false;
        } else if c.is_ascii_uppercase() {
            if prev_lower {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
            prev_lower = false;
        } else {
            prev_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
            out.push(c);
        }
    }
    out
}

/// A set of [`StateDimension`]s, as a 6-bit mask (bit i = dimension index i).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct DimensionSet(u8);

impl DimensionSet {
    /// No dimension.
    pub const EMPTY: DimensionSet = DimensionSet(0);
    /// All six dimensions.
    pub const ALL: DimensionSet = DimensionSet(0b11_1111);

    /// Raw 6-bit mask.
    #[must_use]
    pub const fn bits(self) -> u8 {
        self.0
    }
    /// From a raw mask; bits above 5 are dropped.
    #[must_use]
    pub const fn from_bits_truncate(bits: u8) -> Self {
        DimensionSet(bits & 0b11_1111)
    }
    /// Whether `dim` is in the set.
    #[must_use]
    pub const fn contains(self, dim: StateDimension) -> bool {
        self.0 & (1 << dim as u8) != 0
    }
    /// The set with `dim` added.
    #[must_use]
    pub const fn with(self, dim: StateDimension) -> Self {
        DimensionSet(self.0 | (1 << dim as u8))
    }
    /// Whether the set is empty.
    #[must_use]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }
    /// Whether every member of `self` is in `other`.
    #[must_use]
    pub const fn is_subset_of(self, other: DimensionSet) -> bool {
        self.0 & !other.0 == 0
    }
    /// Members in declaration order.
    pub fn iter(self) -> impl Iterator<Item = StateDimension> {
        StateDimension::ALL.into_iter().filter(move |d| self.contains(*d))
    }
}

impl fmt::Display for DimensionSet {
    /// `mood,reaction` style, in declaration order; `none` when empty.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_empty() {
            return f.write_str("none");
        }
        let mut first = true;
        for d in self.iter() {
            if !first {
                f.write_str(",")?;
            }
            f.write_str(d.name())?;
            first = false;
        }
        Ok(())
    }
}

/// Bit offset of each dimension inside the packed `u64` of a [`StateTagSet`],
/// indexed by declaration order. Dimensions are packed in **relax order from
/// the bottom** (Mood lowest, then Reaction, Combat, Interaction, Posture, and
/// Locomotion highest), so the highest failing bit of `pattern & !state` tells
/// the first fallback step at which a row becomes a candidate (see
/// [`crate::resolver`]).
pub const DIMENSION_OFFSETS: [u32; 6] = {
    let mood = 0;
    let reaction = mood + MoodTag::all().bits().count_ones();
    let combat = reaction + ReactionTag::all().bits().count_ones();
    let interaction = combat + CombatTag::all().bits().count_ones();
    let posture = interaction + InteractionTag::all().bits().count_ones();
    let locomotion = posture + PostureTag::all().bits().count_ones();
    [locomotion, posture, combat, interaction, reaction, mood]
};

/// Total packed width; must fit in 64 bits (checked at compile time).
const PACKED_WIDTH: u32 = DIMENSION_OFFSETS[0] + LocomotionTag::all().bits().count_ones();
const _: () = {
    assert!(PACKED_WIDTH <= 64, "state tags no longer fit in a u64");
    // Every flag type must use contiguous bits from bit 0 for the packing to hold.
    let mut d = 0;
    while d < 6 {
        let all = StateDimension::ALL[d].all_bits();
        assert!(all & all.wrapping_add(1) == 0, "a tag type has a gap in its bits");
        d += 1;
    }
};

/// The packed bits of one dimension.
#[must_use]
pub const fn dimension_bits(dim: StateDimension) -> u64 {
    (dim.all_bits() as u64) << DIMENSION_OFFSETS[dim as usize]
}

/// One bitmask per [`StateDimension`]: an entity's active state, or a row's
/// required pattern.
///
/// `Copy`, 8 bytes, value-equal, hashable and allocation-free; all operations
/// are `const`. The six masks are packed into one `u64` (see
/// [`DIMENSION_OFFSETS`]), so matching (`pattern ⊆ state`, six AND/compare
/// pairs done naively) is a single AND-NOT and compare, and specificity is one
/// popcount.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct StateTagSet {
    bits: u64,
}

impl StateTagSet {
    /// The empty set: as a pattern it matches every state.
    pub const EMPTY: StateTagSet = StateTagSet { bits: 0 };

    /// Builds a set from one mask per dimension.
    #[must_use]
    pub const fn new(
        locomotion: LocomotionTag,
        posture: PostureTag,
        combat: CombatTag,
        interaction: InteractionTag,
        reaction: ReactionTag,
        mood: MoodTag,
    ) -> Self {
        StateTagSet::from_masks([
            locomotion.bits(),
            posture.bits(),
            combat.bits(),
            interaction.bits(),
            reaction.bits(),
            mood.bits(),
        ])
    }

    /// Builds a set from raw masks in declaration order. Bits a dimension does
    /// not define are dropped.
    #[must_use]
    pub const fn from_masks(masks: [u32; 6]) -> Self {
        let mut bits = 0u64;
        let mut d = 0;
        while d < 6 {
            bits |= ((masks[d] & StateDimension::ALL[d].all_bits()) as u64) << DIMENSION_OFFSETS[d];
            d += 1;
        }
        StateTagSet { bits }
    }

    /// The packed representation (see [`DIMENSION_OFFSETS`]).
    #[inline]
    #[must_use]
    pub const fn packed(&self) -> u64 {
        self.bits
    }

    /// Rebuilds a set from [`StateTagSet::packed`] bits; bits outside any dimension are dropped.
    #[inline]
    #[must_use]
    pub const fn from_packed(bits: u64) -> Self {
        StateTagSet { bits: bits & ((1u64 << PACKED_WIDTH) - 1) }
    }

    /// Raw masks in declaration order.
    #[inline]
    #[must_use]
    pub const fn masks(&self) -> [u32; 6] {
        let mut out = [0u32; 6];
        let mut d = 0;
        while d < 6 {
            out[d] = self.mask(StateDimension::ALL[d]);
            d += 1;
        }
        out
    }

    /// Raw mask of one dimension.
    #[inline]
    #[must_use]
    pub const fn mask(&self, dim: StateDimension) -> u32 {
        ((self.bits >> DIMENSION_OFFSETS[dim as usize]) as u32) & dim.all_bits()
    }

    /// Locomotion flags.
    #[must_use]
    pub const fn locomotion(&self) -> LocomotionTag {
        LocomotionTag::from_bits_retain(self.mask(StateDimension::Locomotion))
    }
    /// Posture flags.
    #[must_use]
    pub const fn posture(&self) -> PostureTag {
        PostureTag::from_bits_retain(self.mask(StateDimension::Posture))
    }
    /// Combat flags.
    #[must_use]
    pub const fn combat(&self) -> CombatTag {
        CombatTag::from_bits_retain(self.mask(StateDimension::Combat))
    }
    /// Interaction flags.
    #[must_use]
    pub const fn interaction(&self) -> InteractionTag {
        InteractionTag::from_bits_retain(self.mask(StateDimension::Interaction))
    }
    /// Reaction flags.
    #[must_use]
    pub const fn reaction(&self) -> ReactionTag {
        ReactionTag::from_bits_retain(self.mask(StateDimension::Reaction))
    }
    /// Mood flags.
    #[must_use]
    pub const fn mood(&self) -> MoodTag {
        MoodTag::from_bits_retain(self.mask(StateDimension::Mood))
    }

    /// Whether `pattern` matches this state: every bit asserted on the
    /// pattern is also asserted here, dimension-wise.
    #[inline]
    #[must_use]
    pub const fn matches(&self, pattern: &StateTagSet) -> bool {
        pattern.is_subset_of(self)
    }

    /// Whether every bit of `self` is also set in `superset`.
    #[inline]
    #[must_use]
    pub const fn is_subset_of(&self, superset: &StateTagSet) -> bool {
        self.bits & !superset.bits == 0
    }

    /// Count of asserted bits over all dimensions: the primary sort key of
    /// resolution.
    #[inline]
    #[must_use]
    pub const fn specificity(&self) -> u32 {
        self.bits.count_ones()
    }

    /// Whether no bit is set in any dimension.
    #[inline]
    #[must_use]
    pub const fn is_empty(&self) -> bool {
        self.bits == 0
    }

    /// Dimensions with at least one bit set.
    #[must_use]
    pub const fn asserted_dimensions(&self) -> DimensionSet {
        let mut out = 0u8;
        let mut d = 0;
        while d < 6 {
            if self.bits & dimension_bits(StateDimension::ALL[d]) != 0 {
                out |= 1 << d;
            }
            d += 1;
        }
        DimensionSet(out)
    }

    /// Packed bits of every dimension in `dims`.
    #[must_use]
    pub const fn dimensions_mask(dims: DimensionSet) -> u64 {
        let mut mask = 0u64;
        let mut d = 0;
        while d < 6 {
            if dims.0 & (1 << d) != 0 {
                mask |= dimension_bits(StateDimension::ALL[d]);
            }
            d += 1;
        }
        mask
    }

    /// A copy with one dimension cleared.
    #[inline]
    #[must_use]
    pub const fn without(&self, dim: StateDimension) -> Self {
        StateTagSet { bits: self.bits & !dimension_bits(dim) }
    }

    /// A copy with every dimension in `dims` cleared.
    #[inline]
    #[must_use]
    pub const fn without_all(&self, dims: DimensionSet) -> Self {
        StateTagSet { bits: self.bits & !StateTagSet::dimensions_mask(dims) }
    }

    /// A copy keeping only one dimension.
    #[must_use]
    pub const fn restrict_to(&self, dim: StateDimension) -> Self {
        StateTagSet { bits: self.bits & dimension_bits(dim) }
    }

    /// Dimension-wise union.
    #[must_use]
    pub const fn union_with(&self, other: &StateTagSet) -> Self {
        StateTagSet { bits: self.bits | other.bits }
    }

    /// Replaces one dimension's mask (bits the dimension does not define are dropped).
    #[must_use]
    pub const fn with_mask(&self, dim: StateDimension, bits: u32) -> Self {
        let cleared = self.bits & !dimension_bits(dim);
        StateTagSet { bits: cleared | (((bits & dim.all_bits()) as u64) << DIMENSION_OFFSETS[dim as usize]) }
    }

    /// Replaces the locomotion axis.
    #[must_use]
    pub const fn with_locomotion(&self, tags: LocomotionTag) -> Self {
        self.with_mask(StateDimension::Locomotion, tags.bits())
    }
    /// Replaces the posture axis.
    #[must_use]
    pub const fn with_posture(&self, tags: PostureTag) -> Self {
        self.with_mask(StateDimension::Posture, tags.bits())
    }
    /// Replaces the combat axis.
    #[must_use]
    pub const fn with_combat(&self, tags: CombatTag) -> Self {
        self.with_mask(StateDimension::Combat, tags.bits())
    }
    /// Replaces the interaction axis.
    #[must_use]
    pub const fn with_interaction(&self, tags: InteractionTag) -> Self {
        self.with_mask(StateDimension::Interaction, tags.bits())
    }
    /// Replaces the reaction axis.
    #[must_use]
    pub const fn with_reaction(&self, tags: ReactionTag) -> Self {
        self.with_mask(StateDimension::Reaction, tags.bits())
    }
    /// Replaces the mood axis.
    #[must_use]
    pub const fn with_mood(&self, tags: MoodTag) -> Self {
        self.with_mask(StateDimension::Mood, tags.bits())
    }

    /// Dimensions whose masks differ between `self` and `other`.
    #[must_use]
    pub const fn changed_dimensions(&self, other: &StateTagSet) -> DimensionSet {
        StateTagSet { bits: self.bits ^ other.bits }.asserted_dimensions()
    }

    /// Parses the text form (see the module docs).
    pub fn parse(text: &str) -> Result<Self, CoreError> {
        let mut set = StateTagSet::EMPTY;
        let mut seen = DimensionSet::EMPTY;
        let trimmed = text.trim();
        if trimmed.is_empty() || trimmed.eq_ignore_ascii_case("any") {
            return Ok(set);
        }
        for token in trimmed.split_whitespace() {
            let Some((dim_text, flags_text)) = token.split_once('=') else {
                return Err(CoreError::MalformedTags {
                    text: token.to_owned(),
                    reason: "expected `dimension=flag|flag`, e.g. `locomotion=sprint`",
                });
            };
            let dim: StateDimension = dim_text.parse()?;
            if seen.contains(dim) {
                return Err(CoreError::MalformedTags {
                    text: token.to_owned(),
                    reason: "dimension given twice; join its flags with `|` instead",
                });
            }
            seen = seen.with(dim);
            let mut bits = 0;
            for flag in flags_text.split(['|', ',', '+']) {
                if flag.is_empty() {
                    return Err(CoreError::MalformedTags { text: token.to_owned(), reason: "empty flag name" });
                }
                if flag.eq_ignore_ascii_case("none") {
                    continue;
                }
                bits |= dim.parse_flag(flag)?;
            }
            set = set.with_mask(dim, bits);
        }
        Ok(set)
    }

    /// Builds a set from `(dimension, flag names)` lists, the per-dimension
    /// form of TOML definitions.
    pub fn from_flag_names<'a>(
        dims: impl IntoIterator<Item = (StateDimension, &'a [String])>,
    ) -> Result<Self, CoreError> {
        let mut set = StateTagSet::EMPTY;
        for (dim, names) in dims {
            let mut bits = set.mask(dim);
            for name in names {
                bits |= dim.parse_flag(name)?;
            }
            set = set.with_mask(dim, bits);
        }
        Ok(set)
    }

    /// Flag names asserted in one dimension, in bit order.
    #[must_use]
    pub fn flag_names(&self, dim: StateDimension) -> Vec<String> {
        let bits = self.mask(dim);
        dim.flags().filter(|(_, b)| bits & b != 0).map(|(n, _)| n).collect()
    }
}

impl fmt::Display for StateTagSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_empty() {
            return f.write_str("any");
        }
        let mut first = true;
        for dim in StateDimension::ALL {
            if self.mask(dim) == 0 {
                continue;
            }
            if !first {
                f.write_str(" ")?;
            }
            first = false;
            write!(f, "{}=", dim.name())?;
            f.write_str(&self.flag_names(dim).join("|"))?;
        }
        Ok(())
    }
}

impl fmt::Debug for StateTagSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "StateTagSet({self})")
    }
}

impl FromStr for StateTagSet {
    type Err = CoreError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        StateTagSet::parse(s)
    }
}

#[cfg(test)]
mod tests;

//! The crate's one error type, and the problems it carries.

use zoa_anim_core::PlayerProfileType;
use zoa_anim_ik::IkError;

/// Everything that can go wrong while binding data or running a job.
///
/// Jobs report every problem they find at once (`reasons`), so a caller
/// fixing its set-up sees the whole list instead of one failure per run.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum RuntimeError {
    /// A job's inputs do not fit together (sizes, missing buffers, ranges).
    #[error("invalid {job}: {}", reasons.join("; "))]
    InvalidJob {
        /// Which job (`"sampling job"`, `"blending job"`, …).
        job: &'static str,
        /// Every failed check, in a readable sentence each.
        reasons: Vec<String>,
    },
    /// A clip animates the same joint property twice (glTF forbids this).
    #[error("clip `{clip}` animates {property} of joint {joint} more than once")]
    DuplicateTrack {
        /// Clip name.
        clip: String,
        /// Joint index in the bound skeleton.
        joint: usize,
        /// `translation`, `rotation` or `scale`.
        property: &'static str,
    },
    /// Bone-mask or retarget names that the skeleton does not have.
    #[error("skeleton `{skeleton}` has no joint named {}", names.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", "))]
    UnknownJoints {
        /// Skeleton name.
        skeleton: String,
        /// The names that were not found.
        names: Vec<String>,
    },
    /// A blend tree that cannot be evaluated (too few children, bad numbers).
    #[error("invalid blend tree: {0}")]
    InvalidBlendTree(String),
    /// A layer of an instance that cannot be evaluated.
    #[error("layer `{layer}`: {reason}")]
    InvalidLayer {
        /// Layer name.
        layer: String,
        /// What is wrong.
        reason: String,
    },
    /// A character bundle does not compile; every problem, typed.
    #[error("character set-up: {}", .0.iter().map(|p| p.to_string()).collect::<Vec<_>>().join("; "))]
    CharacterSetup(Vec<SetupProblem>),
    /// The operating system refused to start a worker thread.
    #[error("{0}")]
    Threads(String),
}

impl RuntimeError {
    /// Builds [`RuntimeError::InvalidJob`] when `reasons` is not empty.
    pub(crate) fn check(job: &'static str, reasons: Vec<String>) -> Result<(), RuntimeError> {
        if reasons.is_empty() { Ok(()) } else { Err(RuntimeError::InvalidJob { job, reasons }) }
    }
}

/// One problem found while compiling a [`CharacterBundle`](zoa_anim_core::CharacterBundle). Compilation
/// reports every problem at once ([`RuntimeError::CharacterSetup`]).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum SetupProblem {
    /// The skeleton has more joints than the runtime indexes (65535).
    #[error("the skeleton has {0} joints (at most 65535)")]
    TooManyJoints(usize),
    /// A clip cannot be bound to the skeleton.
    #[error("clip `{clip}`: {error}")]
    Clip {
        /// Clip id.
        clip: String,
        /// Why.
        error: RuntimeError,
    },
    /// The clip table is inconsistent (duplicate names, bad rates or notifies).
    #[error("clips: {0}")]
    ClipTable(RuntimeError),
    /// Two graphs share an id.
    #[error("animation graph `{0}` is defined twice")]
    DuplicateGraph(String),
    /// A graph does not compile against the clips or its masks against the skeleton.
    #[error("animation graph `{graph}`: {error}")]
    Graph {
        /// Graph id.
        graph: String,
        /// Why.
        error: RuntimeError,
    },
    /// The player profile set does not compile into a loadout.
    #[error("player profile set `{set}`: {error}")]
    Loadout {
        /// Set id.
        set: String,
        /// Why.
        error: RuntimeError,
    },
    /// The player profile set's default class has no entry.
    #[error("player profile set `{set}`: the default class {class} has no entry")]
    NoDefaultEntry {
        /// Set id.
        set: String,
        /// The default class.
        class: PlayerProfileType,
    },
    /// A class names a graph the bundle does not have.
    #[error("class {class}: animation graph `{graph}` is not in the bundle")]
    UnknownGraph {
        /// The class.
        class: PlayerProfileType,
        /// Graph id.
        graph: String,
    },
    /// A class names a binding profile the bundle does not have.
    #[error("class {class}: binding profile `{profile}` is not in the bundle")]
    UnknownBindingProfile {
        /// The class.
        class: PlayerProfileType,
        /// Profile id.
        profile: String,
    },
    /// Two items are for the same weapon class (a class holds one item).
    #[error("class {class}: equipment `{first}` and `{second}` are both for it (a class holds one item)")]
    ClassHoldsTwoItems {
        /// The class.
        class: PlayerProfileType,
        /// The first item for it.
        first: String,
        /// The second.
        second: String,
    },
    /// A class (or the character) names an animation profile the bundle does not have.
    #[error("{}: animation profile `{profile}` is not in the bundle", class.map_or("the character".to_owned(), |c| format!("class {c}")))]
    UnknownAnimationProfile {
        /// The class (`None`: the bundle's own `animation_profile`).
        class: Option<PlayerProfileType>,
        /// Profile id.
        profile: String,
    },
    /// An animation profile's table does not resolve (inheritance, clips, speeds).
    #[error("animation profile `{profile}`: {error}")]
    AnimationProfile {
        /// Profile id.
        profile: String,
        /// Why.
        error: RuntimeError,
    },
    /// The character's sound profile is not in the bundle.
    #[error("sound profile `{0}` is not in the bundle")]
    UnknownSoundProfile(String),
    /// The rig policy's bone overrides name unknown roles or bones.
    #[error("{0}")]
    RigOverride(IkError),
    /// A setting is out of range.
    #[error("setting `{field}`: {reason}")]
    Setting {
        /// Field of [`CharacterSettings`](crate::CharacterSettings).
        field: &'static str,
        /// What is wrong.
        reason: String,
    },
}

//! The one error type of the core crate.

use thiserror::Error;

/// Everything that can go wrong inside `zoa-anim-core`.
///
/// The core does no IO, so every variant describes bad *data*: an identifier
/// that is not well formed, a tag name that does not exist, a profile that
/// breaks its own rules, an inheritance chain that loops.
#[derive(Debug, Clone, PartialEq, Error)]
#[non_exhaustive]
pub enum CoreError {
    /// An identifier failed validation.
    #[error("invalid {kind} `{text}`: {reason}")]
    InvalidId {
        /// Which identifier type was being parsed (e.g. `SoundEventId`).
        kind: &'static str,
        /// The text as given.
        text: String,
        /// What rule it broke.
        reason: &'static str,
    },
    /// A state-tag text named a dimension that does not exist.
    #[error("unknown state dimension `{name}`; valid dimensions: {valid}")]
    UnknownDimension {
        /// The dimension name as written.
        name: String,
        /// Comma-separated list of valid dimension names.
        valid: String,
    },
    /// A state-tag text named a flag that does not exist in its dimension.
    #[error("unknown {dimension} tag `{name}`; valid {dimension} tags: {valid}")]
    UnknownTag {
        /// The dimension (`locomotion`, `posture`, …).
        dimension: &'static str,
        /// The flag name as written.
        name: String,
        /// Comma-separated list of valid flag names for that dimension.
        valid: String,
    },
    /// A state-tag text is not of the form `dimension=flag|flag …`.
    #[error("malformed state-tag text `{text}`: {reason}")]
    MalformedTags {
        /// The offending fragment.
        text: String,
        /// What was expected.
        reason: &'static str,
    },
    /// A binding profile failed validation; every problem is listed.
    #[error("binding profile `{profile}` is invalid: {}", problems.join("; "))]
    InvalidBindingProfile {
        /// The profile id.
        profile: String,
        /// One line per problem.
        problems: Vec<String>,
    },
    /// An inheritance chain names a parent that does not exist.
    #[error("`{child}` names parent `{parent}`, which does not exist")]
    MissingParent {
        /// The profile naming the parent.
        child: String,
        /// The missing parent id.
        parent: String,
    },
    /// An inheritance chain loops back on itself.
    #[error("inheritance cycle: {}", chain.join(" -> "))]
    InheritanceCycle {
        /// The ids in the order they were visited, ending with the repeat.
        chain: Vec<String>,
    },
    /// An inheritance chain is deeper than [`crate::inheritance::MAX_INHERITANCE_DEPTH`].
    #[error("inheritance chain starting at `{start}` is deeper than {limit} levels")]
    InheritanceTooDeep {
        /// The profile the flatten started from.
        start: String,
        /// The documented depth limit.
        limit: usize,
    },
    /// Skeleton data breaks an invariant (parent cycle, bad parent index, …).
    #[error("invalid skeleton `{skeleton}`: {reason}")]
    InvalidSkeleton {
        /// Skeleton name.
        skeleton: String,
        /// What is wrong.
        reason: String,
    },
    /// Clip data breaks an invariant (non-finite keys, decreasing times, …).
    #[error("invalid clip `{clip}`: {reason}")]
    InvalidClip {
        /// Clip name.
        clip: String,
        /// What is wrong.
        reason: String,
    },
}

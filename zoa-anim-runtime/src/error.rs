//! The crate's one error type.

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
    CharacterSetup(Vec<crate::character::SetupProblem>),
}

impl RuntimeError {
    /// Builds [`RuntimeError::InvalidJob`] when `reasons` is not empty.
    pub(crate) fn check(job: &'static str, reasons: Vec<String>) -> Result<(), RuntimeError> {
        if reasons.is_empty() { Ok(()) } else { Err(RuntimeError::InvalidJob { job, reasons }) }
    }
}

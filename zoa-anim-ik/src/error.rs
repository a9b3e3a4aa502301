//! The one error type of the IK crate.

use thiserror::Error;

/// Everything that can go wrong inside `zoa-anim-ik`.
///
/// Solvers never fail: degenerate input leaves the pose unchanged. Errors
/// describe bad *set-up data*: a bone override that names an unknown role or
/// a bone the skeleton does not have, an item held by a bone the skeleton
/// lacks, or a context built for another skeleton.
#[derive(Debug, Clone, PartialEq, Error)]
#[non_exhaustive]
pub enum IkError {
    /// A `bone_overrides` entry names a role that does not exist.
    #[error("rig policy `{policy}`: unknown role `{role}` in bone_overrides; valid roles: {valid}")]
    UnknownRole {
        /// Rig policy id.
        policy: String,
        /// The role as written.
        role: String,
        /// Comma-separated list of valid role names.
        valid: String,
    },
    /// A `bone_overrides` entry names a bone the skeleton does not have.
    #[error(
        "rig policy `{policy}`: role `{role}` is mapped to bone `{bone}`, which skeleton `{skeleton}` does not have"
    )]
    UnknownBone {
        /// Rig policy id.
        policy: String,
        /// The role being overridden.
        role: String,
        /// The bone name as written.
        bone: String,
        /// Skeleton name.
        skeleton: String,
    },
    /// An equipment's attach role names no bone of the skeleton (not a role,
    /// or bone discovery did not find that bone).
    #[error(
        "equipment `{equipment}`: no bone of skeleton `{skeleton}` plays its attach role `{role}`, so its grips \
         cannot be placed"
    )]
    AttachNotFound {
        /// Equipment id.
        equipment: String,
        /// The attach role as written.
        role: String,
        /// Skeleton name.
        skeleton: String,
    },
    /// A per-instance context was sized for a different skeleton.
    #[error("IK context holds {context} joints but the skeleton has {skeleton}")]
    ContextMismatch {
        /// Joints the context was built for.
        context: usize,
        /// Joints the skeleton has.
        skeleton: usize,
    },
}

//! # zoa-anim-ik
//!
//! IK from a rig policy instead of constraint graphs: find the bones that
//! matter on whatever skeleton shows up ([`roles`]), then run a small fixed
//! set of behaviours on them: foot plant, look-at, hand on weapon and climb
//! hand ([`rig::RigIk`]), plus the chains a policy names bone by bone
//! (tails, spines, tentacles: [`chain`], CCD and FABRIK with per-joint swing
//! and twist limits). Each behaviour
//! is silently skipped when the rig lacks its bones; a door with foot
//! planting enabled is not a bug. The crate also ships the IK pose service
//! that turns equipped items' pose providers into the current
//! [`PoseSnapshot`](zoa_anim_core::contracts::PoseSnapshot) ([`service`]),
//! and the provider an `equipment` definition compiles into ([`equipment`]):
//! grips in the frame of the hand holding the item.
//!
//! **Key design decision:** solvers are ozz-style jobs over borrowed slices:
//! a local pose (`&mut [Transform]`), a caller-owned model-space scratch
//! ([`ModelPose`]) and a few bytes of per-character state, sized once. They
//! allocate nothing and never fail at run time: degenerate input (zero-length
//! bones, collinear joints, a target at the root, NaN) leaves the pose as
//! animated. That makes them safe to call per character inside the
//! runtime's parallel pass; see [`rig`] for the call sequence. The crate
//! consumes core types only and never parses files.
//!
//! ```
//! use zoa_anim_ik::two_bone::{solve_two_bone, TwoBoneSettings};
//! use zoa_anim_core::glam::Vec3;
//! let (hip, knee, ankle) = (Vec3::new(0.0, 1.0, 0.0), Vec3::new(0.0, 0.55, 0.05), Vec3::ZERO);
//! let target = Vec3::new(0.1, 0.2, 0.1);
//! let s = solve_two_bone(hip, knee, ankle, target, &TwoBoneSettings::default()).unwrap();
//! assert!(s.reachable && (s.end - target).length() < 1e-5);
//! ```

#![deny(missing_docs)]
#![warn(clippy::must_use_candidate)]
#![cfg_attr(not(test), warn(clippy::too_many_lines))]

pub mod aim;
pub mod chain;
pub mod equipment;
mod error;
pub mod foot;
pub mod pose;
pub mod rig;
pub mod roles;
pub mod service;
pub mod two_bone;

pub use aim::{LookAtChain, LookAtJob, LookAtState};
pub use chain::{ChainIkJob, ChainProblem, ChainSettings, JointChain, JointLimit};
pub use equipment::CompiledEquipment;
pub use error::IkError;
pub use foot::{FlatGround, FootPlantJob, FootPlantState, GroundHit, GroundProbe, foot_plant_weight};
pub use pose::{ModelPose, ModelTransform};
pub use rig::{
    ChainAvailability, ChainGoal, HandTarget, IkContext, IkGoal, IkInputs, IkReport, LEFT_HAND_GRIP, MAX_IK_GOALS,
    MAX_RIG_CHAINS, RIGHT_HAND_GRIP, RigIk, RigIkSettings, chain_availability, hand_target,
};
pub use roles::{
    ArmBones, BoneRoles, LegBones, LimbTip, PolicyAvailability, PolicyKind, Rejected, Role, Side, TipSource,
};
pub use service::EquipmentPoseService;
pub use two_bone::{TwoBoneChain, TwoBoneIkJob, TwoBoneSettings, solve_two_bone};

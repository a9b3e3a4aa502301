//! Shared fixtures: a Mixamo-named humanoid in glTF axes (+Y up, +Z forward,
//! the character's left is +X), metres.

#![allow(dead_code, unused_imports)]

use zoa_anim_core::contracts::{IkPoseProvider, PoseSnapshot, PoseSpace, PoseTargetData};
use zoa_anim_core::glam::{Quat, Vec3};
use zoa_anim_core::{AnimationSlotId, Skeleton, Transform};
use zoa_anim_ik::LEFT_HAND_GRIP;

pub use zoa_test_support::skeletons::{HUMANOID, humanoid, rest_pose as rest};

/// Builds a skeleton from `(name, parent, translation)` rows (empty name = unnamed).
pub fn skeleton(rows: &[(&str, Option<u16>, [f32; 3])]) -> Skeleton {
    zoa_test_support::skeletons::from_rows("humanoid", rows)
}

/// Model-space positions of a local pose.
pub fn positions(s: &Skeleton, local: &[Transform]) -> Vec<Vec3> {
    let mut m = zoa_anim_ik::ModelPose::new(s.joint_count());
    m.update(s, local);
    m.as_slice().iter().map(|x| x.position).collect()
}

/// Model-space rotations of a local pose.
pub fn rotations(s: &Skeleton, local: &[Transform]) -> Vec<Quat> {
    let mut m = zoa_anim_ik::ModelPose::new(s.joint_count());
    m.update(s, local);
    m.as_slice().iter().map(|x| x.rotation).collect()
}

/// Whether every transform is finite.
pub fn all_finite(local: &[Transform]) -> bool {
    local.iter().all(Transform::is_finite)
}

/// Equipment `rifle`: a full-weight left-hand grip target at `grip` when
/// idle and at `aim` when aiming, no slot poses.
pub struct Rifle {
    /// The grip's model-space position when idle.
    pub grip: Vec3,
    /// The grip's model-space position when aiming.
    pub aim: Vec3,
}

impl Rifle {
    fn pose(at: Vec3) -> PoseSnapshot {
        PoseSnapshot {
            targets: vec![PoseTargetData {
                target: LEFT_HAND_GRIP,
                position: at.to_array(),
                rotation: Some([0.0, 0.0, 0.0, 1.0]),
                weight: 1.0,
                space: PoseSpace::Model,
            }],
            weight: 1.0,
        }
    }
}

impl IkPoseProvider for Rifle {
    fn equipment_id(&self) -> &str {
        "rifle"
    }
    fn idle_pose(&self) -> PoseSnapshot {
        Self::pose(self.grip)
    }
    fn aim_pose(&self) -> PoseSnapshot {
        Self::pose(self.aim)
    }
    fn slot_pose(&self, _slot: AnimationSlotId) -> Option<PoseSnapshot> {
        None
    }
}

//! Shared fixtures: a Mixamo-named humanoid in glTF axes (+Y up, +Z forward,
//! the character's left is +X), metres.

#![allow(dead_code, unused_imports)]

use zoa_anim_core::glam::{Quat, Vec3};
use zoa_anim_core::{Skeleton, Transform};

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

//! Shared fixtures: a Mixamo-named humanoid in glTF axes (+Y up, +Z forward,
//! the character's left is +X), metres.

#![allow(dead_code)]

use zoa_anim_core::glam::{Mat4, Quat, Vec3};
use zoa_anim_core::{Joint, Skeleton, Transform};

/// `(name, parent, translation)` rows of the humanoid.
pub const HUMANOID: &[(&str, Option<u16>, [f32; 3])] = &[
    ("Hips", None, [0.0, 1.0, 0.0]),                 // 0
    ("Spine", Some(0), [0.0, 0.1, 0.0]),             // 1
    ("Spine1", Some(1), [0.0, 0.12, 0.0]),           // 2
    ("Spine2", Some(2), [0.0, 0.12, 0.0]),           // 3
    ("Neck", Some(3), [0.0, 0.15, 0.0]),             // 4
    ("Head", Some(4), [0.0, 0.1, 0.02]),             // 5
    ("LeftUpLeg", Some(0), [0.1, -0.05, 0.0]),       // 6
    ("LeftLeg", Some(6), [0.0, -0.45, 0.01]),        // 7
    ("LeftFoot", Some(7), [0.0, -0.42, -0.01]),      // 8
    ("LeftToeBase", Some(8), [0.0, -0.06, 0.12]),    // 9
    ("RightUpLeg", Some(0), [-0.1, -0.05, 0.0]),     // 10
    ("RightLeg", Some(10), [0.0, -0.45, 0.01]),      // 11
    ("RightFoot", Some(11), [0.0, -0.42, -0.01]),    // 12
    ("RightToeBase", Some(12), [0.0, -0.06, 0.12]),  // 13
    ("LeftShoulder", Some(3), [0.05, 0.1, 0.0]),     // 14
    ("LeftArm", Some(14), [0.12, 0.0, 0.0]),         // 15
    ("LeftForeArm", Some(15), [0.28, 0.0, -0.01]),   // 16
    ("LeftHand", Some(16), [0.25, 0.0, 0.0]),        // 17
    ("RightShoulder", Some(3), [-0.05, 0.1, 0.0]),   // 18
    ("RightArm", Some(18), [-0.12, 0.0, 0.0]),       // 19
    ("RightForeArm", Some(19), [-0.28, 0.0, -0.01]), // 20
    ("RightHand", Some(20), [-0.25, 0.0, 0.0]),      // 21
];

/// Builds a skeleton from `(name, parent, translation)` rows (empty name = unnamed).
pub fn skeleton(rows: &[(&str, Option<u16>, [f32; 3])]) -> Skeleton {
    let joints = rows
        .iter()
        .enumerate()
        .map(|(i, (name, parent, t))| Joint {
            name: (!name.is_empty()).then(|| (*name).to_owned()),
            node: i as u32,
            parent: *parent,
            rest: Transform { translation: Vec3::from_array(*t), ..Transform::IDENTITY },
            inverse_bind: Mat4::IDENTITY,
        })
        .collect();
    Skeleton::new("humanoid", joints).unwrap()
}

pub fn humanoid() -> Skeleton {
    skeleton(HUMANOID)
}

pub fn rest(s: &Skeleton) -> Vec<Transform> {
    s.rest_pose().collect()
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

/// Where the shared third-party assets live, if present.
pub fn assets_dir() -> Option<std::path::PathBuf> {
    let dir = std::env::var_os("ZOA_ASSETS")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| std::path::PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/assets")));
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!("note: shared assets not found at {}; skipping", dir.display());
        None
    }
}

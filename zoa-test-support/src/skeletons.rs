//! Hand-built skeletons: the Mixamo-named humanoid and a builder from rows.

use zoa_anim_core::glam::{Mat4, Vec3};
use zoa_anim_core::{Joint, Skeleton, Transform};

/// One joint: `(name, parent index, rest translation in metres)`; an empty
/// name makes an unnamed joint.
pub type JointRow = (&'static str, Option<u16>, [f32; 3]);

/// `(name, parent, translation)` rows of a Mixamo-named humanoid in glTF axes
/// (+Y up, +Z forward, the character's left is +X), metres, rest rotations
/// identity. Joint `i` is node `i`; the comments give the index.
pub const HUMANOID: &[JointRow] = &[
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

/// A skeleton called `name` from `(name, parent, translation)` rows: joint
/// `i` is node `i`, rest rotation and scale identity, inverse bind identity.
///
/// # Panics
/// When the rows do not form a valid skeleton (a parent after its child).
#[must_use]
pub fn from_rows(name: &str, rows: &[(&str, Option<u16>, [f32; 3])]) -> Skeleton {
    let joints = rows
        .iter()
        .enumerate()
        .map(|(i, (joint, parent, t))| Joint {
            name: (!joint.is_empty()).then(|| (*joint).to_owned()),
            node: u32::try_from(i).expect("fewer than 2^32 joints"),
            parent: *parent,
            rest: Transform { translation: Vec3::from_array(*t), ..Transform::IDENTITY },
            inverse_bind: Mat4::IDENTITY,
        })
        .collect();
    Skeleton::new(name, joints).expect("valid skeleton rows")
}

/// The [`HUMANOID`] skeleton, called `humanoid`.
#[must_use]
pub fn humanoid() -> Skeleton {
    from_rows("humanoid", HUMANOID)
}

/// The skeleton's rest pose as local transforms, one per joint.
#[must_use]
pub fn rest_pose(s: &Skeleton) -> Vec<Transform> {
    s.rest_pose().collect()
}

//! Hand-built skeletons: the Mixamo-named humanoid, the Quaternius armature
//! and builders from rows.

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

/// One joint placed in model space: `(name, parent name or "" for a root,
/// position in metres)`.
pub type PlacedRow<'a> = (&'a str, &'a str, [f32; 3]);

/// A skeleton called `name` from rows placing each joint in model space:
/// joint `i` is node `i`, its rest translation the offset from its parent,
/// rest rotation and scale identity, inverse bind the inverse of its position.
///
/// # Panics
/// When a parent is unknown or comes after its child.
#[must_use]
pub fn from_placed(name: &str, rows: &[PlacedRow<'_>]) -> Skeleton {
    let joints = rows
        .iter()
        .enumerate()
        .map(|(i, (joint, parent, pos))| {
            let p = rows.iter().position(|r| r.0 == *parent);
            assert!(parent.is_empty() || p.is_some_and(|p| p < i), "{joint}: parent {parent} must come first");
            let origin = p.map_or(Vec3::ZERO, |p| Vec3::from_array(rows[p].2));
            Joint {
                name: Some((*joint).to_owned()),
                node: u32::try_from(i).expect("fewer than 2^32 joints"),
                parent: p.map(|p| u16::try_from(p).expect("fewer than 2^16 joints")),
                rest: Transform { translation: Vec3::from_array(*pos) - origin, ..Transform::IDENTITY },
                inverse_bind: Mat4::from_translation(-Vec3::from_array(*pos)),
            }
        })
        .collect();
    Skeleton::new(name, joints).expect("valid skeleton rows")
}

/// The rows, then a copy at −X of every row whose name `right` renames (its
/// parent renamed the same way when `right` renames it).
#[must_use]
pub fn mirrored_by(rows: &[PlacedRow<'_>], right: impl Fn(&str) -> Option<String>) -> Vec<(String, String, [f32; 3])> {
    let mut out: Vec<(String, String, [f32; 3])> =
        rows.iter().map(|(n, p, x)| ((*n).to_owned(), (*p).to_owned(), *x)).collect();
    for (n, p, x) in rows {
        if let Some(r) = right(n) {
            out.push((r, right(p).unwrap_or_else(|| (*p).to_owned()), [-x[0], x[1], x[2]]));
        }
    }
    out
}

/// [`mirrored_by`] for every row whose name contains `left`, replaced by `right`.
#[must_use]
pub fn mirrored(rows: &[PlacedRow<'_>], left: &str, right: &str) -> Vec<(String, String, [f32; 3])> {
    mirrored_by(rows, |n| n.contains(left).then(|| n.replacen(left, right, 1)))
}

/// [`from_placed`] over owned rows (as [`mirrored`] returns them).
#[must_use]
pub fn from_placed_owned(name: &str, rows: &[(String, String, [f32; 3])]) -> Skeleton {
    let refs: Vec<PlacedRow<'_>> = rows.iter().map(|(n, p, x)| (n.as_str(), p.as_str(), *x)).collect();
    from_placed(name, &refs)
}

/// The left half and middle of the Quaternius character armature (Blender
/// game rigs), placed in model space: legs hang from `Body` beside `Hips`;
/// `Foot.L` / `PoleTarget.L` are IK controls under the armature root; the
/// lower legs are leaves.
pub const QUATERNIUS: &[PlacedRow<'static>] = &[
    ("Root", "", [0.0, 0.0, 0.0]),
    ("Body", "Root", [0.0, 0.95, 0.0]),
    ("Hips", "Body", [0.0, 0.97, 0.0]),
    ("Abdomen", "Hips", [0.0, 1.1, 0.0]),
    ("Torso", "Abdomen", [0.0, 1.25, 0.0]),
    ("Neck", "Torso", [0.0, 1.5, 0.0]),
    ("Head", "Neck", [0.0, 1.58, 0.0]),
    ("Shoulder.L", "Torso", [0.06, 1.45, 0.0]),
    ("UpperArm.L", "Shoulder.L", [0.18, 1.45, 0.0]),
    ("LowerArm.L", "UpperArm.L", [0.44, 1.45, 0.0]),
    ("Palm.L", "LowerArm.L", [0.68, 1.45, 0.0]),
    ("Thumb1.L", "Palm.L", [0.72, 1.44, 0.03]),
    ("Thumb2.L", "Thumb1.L", [0.75, 1.44, 0.04]),
    ("Fingers.L", "Palm.L", [0.78, 1.45, 0.0]),
    ("UpperLeg.L", "Body", [0.1, 0.92, 0.0]),
    ("LowerLeg.L", "UpperLeg.L", [0.1, 0.5, 0.0]),
    ("Foot.L", "Root", [0.1, 0.08, 0.0]),
    ("PoleTarget.L", "Root", [0.1, 0.5, 0.6]),
];

/// The whole Quaternius armature ([`QUATERNIUS`] mirrored `.L` → `.R`), called `Armature`.
#[must_use]
pub fn quaternius() -> Skeleton {
    from_placed_owned("Armature", &mirrored(QUATERNIUS, ".L", ".R"))
}

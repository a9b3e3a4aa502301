//! Discovery on hand-built skeletons: Mixamo without a namespace, Unreal
//! with IK and twist bones, 3ds Max Biped, Rigify segments, unnamed legs,
//! and overrides.

use crate::common::skeleton;
use zoa_anim_core::{RigPolicy, Skeleton};
use zoa_anim_ik::roles::describe_missing;
use zoa_anim_ik::{ArmBones, BoneRoles, IkError, LegBones, PolicyKind, Role, Side};

fn named(s: &Skeleton, r: &BoneRoles, role: Role) -> Option<String> {
    r.get(role).map(|j| s.display_name(j as usize).into_owned())
}

#[test]
fn mixamo_without_prefix_is_fully_discovered() {
    let mut j: Vec<(&str, Option<u16>, [f32; 3])> = vec![
        ("Hips", None, [0.0, 1.0, 0.0]),
        ("Spine", Some(0), [0.0, 0.1, 0.0]),
        ("Spine1", Some(1), [0.0, 0.1, 0.0]),
        ("Spine2", Some(2), [0.0, 0.1, 0.0]),
        ("Neck", Some(3), [0.0, 0.15, 0.0]),
        ("Head", Some(4), [0.0, 0.1, 0.0]),
        ("HeadTop_End", Some(5), [0.0, 0.2, 0.0]),
    ];
    for (side, x) in [("Left", 1.0f32), ("Right", -1.0)] {
        let base = j.len() as u16;
        let names: [&'static str; 9] = if side == "Left" {
            [
                "LeftUpLeg",
                "LeftLeg",
                "LeftFoot",
                "LeftToeBase",
                "LeftShoulder",
                "LeftArm",
                "LeftForeArm",
                "LeftHand",
                "LeftHandIndex1",
            ]
        } else {
            [
                "RightUpLeg",
                "RightLeg",
                "RightFoot",
                "RightToeBase",
                "RightShoulder",
                "RightArm",
                "RightForeArm",
                "RightHand",
                "RightHandIndex1",
            ]
        };
        j.push((names[0], Some(0), [0.1 * x, -0.05, 0.0]));
        j.push((names[1], Some(base), [0.0, -0.45, 0.0]));
        j.push((names[2], Some(base + 1), [0.0, -0.45, 0.0]));
        j.push((names[3], Some(base + 2), [0.0, -0.05, 0.12]));
        j.push((names[4], Some(3), [0.05 * x, 0.1, 0.0]));
        j.push((names[5], Some(base + 4), [0.12 * x, 0.0, 0.0]));
        j.push((names[6], Some(base + 5), [0.28 * x, 0.0, 0.0]));
        j.push((names[7], Some(base + 6), [0.25 * x, 0.0, 0.0]));
        j.push((names[8], Some(base + 7), [0.05 * x, 0.0, 0.0]));
    }
    let s = skeleton(&j);
    let r = BoneRoles::discover(&s);
    assert_eq!(named(&s, &r, Role::Hips).as_deref(), Some("Hips"));
    assert_eq!(
        r.spine.iter().map(|&i| s.display_name(i as usize).into_owned()).collect::<Vec<_>>(),
        ["Spine", "Spine1", "Spine2"]
    );
    assert_eq!(named(&s, &r, Role::Head).as_deref(), Some("Head"));
    assert_eq!(named(&s, &r, Role::LeftLowerLeg).as_deref(), Some("LeftLeg"));
    assert_eq!(named(&s, &r, Role::RightToe).as_deref(), Some("RightToeBase"));
    assert_eq!(named(&s, &r, Role::LeftUpperArm).as_deref(), Some("LeftArm"));
    assert_eq!(named(&s, &r, Role::RightShoulder).as_deref(), Some("RightShoulder"));
    assert_eq!(named(&s, &r, Role::RightHand).as_deref(), Some("RightHand"));
    assert!(PolicyKind::ALL.iter().all(|&k| r.is_available(k)));
}

#[test]
fn unreal_mannequin_ignores_ik_and_twist_bones() {
    let s = skeleton(&[
        ("root", None, [0.0; 3]),
        ("pelvis", Some(0), [0.0, 1.0, 0.0]),
        ("spine_01", Some(1), [0.0, 0.1, 0.0]),
        ("neck_01", Some(2), [0.0, 0.5, 0.0]),
        ("head", Some(3), [0.0, 0.1, 0.0]),
        ("thigh_l", Some(1), [0.1, 0.0, 0.0]),
        ("thigh_twist_01_l", Some(5), [0.0, -0.2, 0.0]),
        ("calf_l", Some(5), [0.0, -0.45, 0.0]),
        ("foot_l", Some(7), [0.0, -0.45, 0.0]),
        ("ball_l", Some(8), [0.0, -0.05, 0.1]),
        ("ik_foot_root", Some(0), [0.0; 3]),
        ("ik_foot_l", Some(10), [0.1, 0.1, 0.0]),
    ]);
    let r = BoneRoles::discover(&s);
    assert_eq!(named(&s, &r, Role::Hips).as_deref(), Some("pelvis"));
    assert_eq!(named(&s, &r, Role::LeftUpperLeg).as_deref(), Some("thigh_l"));
    assert_eq!(named(&s, &r, Role::LeftLowerLeg).as_deref(), Some("calf_l"));
    assert_eq!(named(&s, &r, Role::LeftFoot).as_deref(), Some("foot_l"));
    assert_eq!(named(&s, &r, Role::LeftToe).as_deref(), Some("ball_l"));
    assert_eq!(named(&s, &r, Role::Neck).as_deref(), Some("neck_01"));
    assert_eq!(r.spine, [2]);
    assert!(!r.is_available(PolicyKind::FootPlant), "no right leg");
    let a = r.availability(&RigPolicy::default());
    assert_eq!(a[0].missing, [Role::RightUpperLeg, Role::RightLowerLeg, Role::RightFoot]);
    assert!(a[1].available);
    assert_eq!(describe_missing(&a[0]), "foot_plant: missing right_upper_leg, right_lower_leg, right_foot");
}

#[test]
fn max_biped_names_with_spaces_are_discovered() {
    let s = skeleton(&[
        ("Bip01", None, [0.0; 3]),
        ("Bip01 Pelvis", Some(0), [0.0, 1.0, 0.0]),
        ("Bip01 Spine", Some(1), [0.0, 0.1, 0.0]),
        ("Bip01 Neck", Some(2), [0.0, 0.4, 0.0]),
        ("Bip01 Head", Some(3), [0.0, 0.1, 0.0]),
        ("Bip01 L Thigh", Some(1), [0.1, 0.0, 0.0]),
        ("Bip01 L Calf", Some(5), [0.0, -0.45, 0.0]),
        ("Bip01 L Foot", Some(6), [0.0, -0.45, 0.0]),
        ("Bip01 L Toe0", Some(7), [0.0, -0.05, 0.1]),
        ("Bip01 L Clavicle", Some(2), [0.05, 0.35, 0.0]),
        ("Bip01 L UpperArm", Some(9), [0.1, 0.0, 0.0]),
        ("Bip01 L Forearm", Some(10), [0.28, 0.0, 0.0]),
        ("Bip01 L Hand", Some(11), [0.25, 0.0, 0.0]),
        ("Bip01 L Finger0", Some(12), [0.05, 0.0, 0.0]),
    ]);
    let r = BoneRoles::discover(&s);
    assert_eq!(r.hips, Some(1));
    assert_eq!((r.neck, r.head, r.spine.as_slice()), (Some(3), Some(4), &[2u16][..]));
    assert_eq!(r.legs[0], LegBones { upper: Some(5), lower: Some(6), foot: Some(7), toe: Some(8), tip: None });
    assert_eq!(r.arms[0], ArmBones { shoulder: Some(9), upper: Some(10), forearm: Some(11), hand: Some(12) });
}

#[test]
fn rigify_segments_do_not_shift_slots() {
    let s = skeleton(&[
        ("DEF-spine", None, [0.0, 1.0, 0.0]),
        ("DEF-thigh.L", Some(0), [0.1, 0.0, 0.0]),
        ("DEF-thigh.L.001", Some(1), [0.0, -0.2, 0.0]),
        ("DEF-shin.L", Some(2), [0.0, -0.2, 0.0]),
        ("DEF-foot.L", Some(3), [0.0, -0.4, 0.0]),
        ("DEF-toe.L", Some(4), [0.0, -0.05, 0.1]),
    ]);
    let r = BoneRoles::discover(&s);
    assert_eq!(r.legs[0], LegBones { upper: Some(1), lower: Some(3), foot: Some(4), toe: Some(5), tip: None });
}

#[test]
fn unnamed_legs_are_found_by_structure() {
    let s = skeleton(&[
        ("", None, [0.0, 1.0, 0.0]),
        ("", Some(0), [0.0, 0.3, 0.0]),
        ("", Some(0), [-0.1, 0.0, 0.0]),
        ("", Some(2), [0.0, -0.45, 0.0]),
        ("", Some(3), [0.0, -0.45, 0.0]),
        ("", Some(0), [0.1, 0.0, 0.0]),
        ("", Some(5), [0.0, -0.45, 0.0]),
        ("", Some(6), [0.0, -0.45, 0.0]),
    ]);
    let r = BoneRoles::discover(&s);
    assert_eq!(r.hips, Some(0));
    assert_eq!(
        r.legs[Side::Left.index()],
        LegBones { upper: Some(5), lower: Some(6), foot: Some(7), toe: None, tip: None }
    );
    assert_eq!(
        r.legs[Side::Right.index()],
        LegBones { upper: Some(2), lower: Some(3), foot: Some(4), toe: None, tip: None }
    );
}

#[test]
fn overrides_win_and_bad_ones_are_all_reported() {
    let s = skeleton(&[("a", None, [0.0; 3]), ("b", Some(0), [0.0; 3]), ("c", Some(1), [0.0; 3])]);
    let policy = RigPolicy {
        id: "door".into(),
        bone_overrides: vec![
            ("head".into(), "c".into()),
            ("spine".into(), "a, b".into()),
            ("tail".into(), "a".into()),
            ("left_foot".into(), "nope".into()),
        ],
        ..RigPolicy::default()
    };
    let (r, problems) = BoneRoles::discover_with_overrides(&s, &policy);
    assert_eq!(r.head, Some(2));
    assert_eq!(r.spine, [0, 1]);
    assert_eq!(problems.len(), 2);
    assert!(matches!(&problems[0], IkError::UnknownRole { role, .. } if role == "tail"));
    assert!(matches!(&problems[1], IkError::UnknownBone { bone, .. } if bone == "nope"));
}

/// Exclusive discovery (for retargeting): a bone an override gives one role
/// stops playing the role discovery gave it — naming the neck as the head
/// leaves no neck. Plain discovery with overrides keeps both.
#[test]
fn an_overridden_bone_leaves_its_discovered_role() {
    let s = skeleton(&[
        ("hips", None, [0.0, 1.0, 0.0]),
        ("spine", Some(0), [0.0, 0.2, 0.0]),
        ("neck", Some(1), [0.0, 0.4, 0.0]),
        ("head", Some(2), [0.0, 0.1, 0.0]),
    ]);
    let found = BoneRoles::discover(&s);
    assert_eq!((found.neck, found.head), (Some(2), Some(3)));
    let policy =
        RigPolicy { id: "p".into(), bone_overrides: vec![("head".into(), "neck".into())], ..RigPolicy::default() };
    let (r, problems) = BoneRoles::discover_exclusive(&s, &policy);
    assert!(problems.is_empty());
    assert_eq!((r.neck, r.head), (None, Some(2)));
    let (r, _) = BoneRoles::discover_with_overrides(&s, &policy);
    assert_eq!((r.neck, r.head), (Some(2), Some(2)));
    let policy = RigPolicy {
        id: "p".into(),
        bone_overrides: vec![("spine".into(), "spine, neck".into())],
        ..RigPolicy::default()
    };
    let (r, _) = BoneRoles::discover_exclusive(&s, &policy);
    assert_eq!((r.spine.as_slice(), r.neck, r.head), (&[1, 2][..], None, Some(3)));
}

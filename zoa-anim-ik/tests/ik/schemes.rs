//! Discovery on the naming schemes real rigs use, with their exact bone
//! names and hierarchies (synthetic skeletons: rest rotations are identity,
//! positions are a plausible 1.8 m figure in glTF axes, +Y up, left is +X),
//! plus the structure rules: candidates off the chain are rejected with a
//! reason, and legs without a foot joint end at the lower leg's tip.

use zoa_anim_core::glam::Vec3;
use zoa_anim_core::{RigPolicy, Skeleton, Transform};
use zoa_anim_ik::{BoneRoles, FlatGround, IkInputs, PolicyKind, RigIk, RigIkSettings, Role, Side, TipSource};

use zoa_test_support::skeletons::{self, mirrored, mirrored_by};

use crate::common::positions;

/// Builds a skeleton from `(name, parent name, model-space position)` rows
/// (parents before children); rest rotations are identity.
fn build(rows: &[(String, String, [f32; 3])]) -> Skeleton {
    skeletons::from_placed_owned("scheme", rows)
}

/// The roles as `role -> bone name` (spine joined with commas), for exact comparison.
fn named(s: &Skeleton, r: &BoneRoles) -> Vec<(&'static str, String)> {
    Role::ALL
        .iter()
        .filter_map(|&role| {
            let name = if role == Role::Spine {
                let n: Vec<String> = r.spine.iter().map(|&j| s.display_name(j as usize).into_owned()).collect();
                (!n.is_empty()).then(|| n.join(","))
            } else {
                r.get(role).map(|j| s.display_name(j as usize).into_owned())
            };
            name.map(|n| (role.name(), n))
        })
        .collect()
}

fn expect(s: &Skeleton, r: &BoneRoles, want: &[(&str, &str)]) {
    let got = named(s, r);
    let got: Vec<(&str, &str)> = got.iter().map(|(a, b)| (*a, b.as_str())).collect();
    assert_eq!(got, want);
}

fn all_available(r: &BoneRoles) {
    for k in PolicyKind::ALL {
        assert!(r.is_available(k), "{} unavailable: {:?}", k.name(), r.availability(&RigPolicy::default()));
    }
}

#[test]
fn mixamo_with_namespace_end_bones_and_fingers() {
    let rows = mirrored(
        &[
            ("mixamorig:Hips", "", [0.0, 1.0, 0.0]),
            ("mixamorig:Spine", "mixamorig:Hips", [0.0, 1.1, 0.0]),
            ("mixamorig:Spine1", "mixamorig:Spine", [0.0, 1.22, 0.0]),
            ("mixamorig:Spine2", "mixamorig:Spine1", [0.0, 1.35, 0.0]),
            ("mixamorig:Neck", "mixamorig:Spine2", [0.0, 1.5, 0.0]),
            ("mixamorig:Head", "mixamorig:Neck", [0.0, 1.6, 0.02]),
            ("mixamorig:HeadTop_End", "mixamorig:Head", [0.0, 1.8, 0.02]),
            ("mixamorig:LeftUpLeg", "mixamorig:Hips", [0.1, 0.95, 0.0]),
            ("mixamorig:LeftLeg", "mixamorig:LeftUpLeg", [0.1, 0.5, 0.0]),
            ("mixamorig:LeftFoot", "mixamorig:LeftLeg", [0.1, 0.08, 0.0]),
            ("mixamorig:LeftToeBase", "mixamorig:LeftFoot", [0.1, 0.02, 0.12]),
            ("mixamorig:LeftToe_End", "mixamorig:LeftToeBase", [0.1, 0.02, 0.2]),
            ("mixamorig:LeftShoulder", "mixamorig:Spine2", [0.05, 1.45, 0.0]),
            ("mixamorig:LeftArm", "mixamorig:LeftShoulder", [0.17, 1.45, 0.0]),
            ("mixamorig:LeftForeArm", "mixamorig:LeftArm", [0.45, 1.45, 0.0]),
            ("mixamorig:LeftHand", "mixamorig:LeftForeArm", [0.7, 1.45, 0.0]),
            ("mixamorig:LeftHandThumb1", "mixamorig:LeftHand", [0.73, 1.44, 0.03]),
            ("mixamorig:LeftHandIndex1", "mixamorig:LeftHand", [0.78, 1.45, 0.02]),
            ("mixamorig:LeftHandIndex2", "mixamorig:LeftHandIndex1", [0.81, 1.45, 0.02]),
        ],
        "Left",
        "Right",
    );
    let s = build(&rows);
    let r = BoneRoles::discover(&s);
    expect(
        &s,
        &r,
        &[
            ("hips", "mixamorig:Hips"),
            ("spine", "mixamorig:Spine,mixamorig:Spine1,mixamorig:Spine2"),
            ("neck", "mixamorig:Neck"),
            ("head", "mixamorig:Head"),
            ("left_upper_leg", "mixamorig:LeftUpLeg"),
            ("left_lower_leg", "mixamorig:LeftLeg"),
            ("left_foot", "mixamorig:LeftFoot"),
            ("left_toe", "mixamorig:LeftToeBase"),
            ("right_upper_leg", "mixamorig:RightUpLeg"),
            ("right_lower_leg", "mixamorig:RightLeg"),
            ("right_foot", "mixamorig:RightFoot"),
            ("right_toe", "mixamorig:RightToeBase"),
            ("left_shoulder", "mixamorig:LeftShoulder"),
            ("left_upper_arm", "mixamorig:LeftArm"),
            ("left_forearm", "mixamorig:LeftForeArm"),
            ("left_hand", "mixamorig:LeftHand"),
            ("right_shoulder", "mixamorig:RightShoulder"),
            ("right_upper_arm", "mixamorig:RightArm"),
            ("right_forearm", "mixamorig:RightForeArm"),
            ("right_hand", "mixamorig:RightHand"),
        ],
    );
    all_available(&r);
    assert!(r.rejected.is_empty(), "{:?}", r.rejected);
}

/// Unreal Engine 4 mannequin (`SK_Mannequin`): twist bones beside the limb
/// bones, IK bones under `root`.
#[test]
fn unreal_mannequin_ue4_rejects_its_ik_bones() {
    let rows = mirrored(
        &[
            ("root", "", [0.0, 0.0, 0.0]),
            ("pelvis", "root", [0.0, 1.0, 0.0]),
            ("spine_01", "pelvis", [0.0, 1.1, 0.0]),
            ("spine_02", "spine_01", [0.0, 1.25, 0.0]),
            ("spine_03", "spine_02", [0.0, 1.4, 0.0]),
            ("neck_01", "spine_03", [0.0, 1.55, 0.0]),
            ("head", "neck_01", [0.0, 1.65, 0.0]),
            ("clavicle_l", "spine_03", [0.05, 1.5, 0.0]),
            ("upperarm_l", "clavicle_l", [0.18, 1.48, 0.0]),
            ("upperarm_twist_01_l", "upperarm_l", [0.3, 1.48, 0.0]),
            ("lowerarm_l", "upperarm_l", [0.45, 1.48, 0.0]),
            ("lowerarm_twist_01_l", "lowerarm_l", [0.58, 1.48, 0.0]),
            ("hand_l", "lowerarm_l", [0.7, 1.48, 0.0]),
            ("index_01_l", "hand_l", [0.78, 1.48, 0.02]),
            ("thumb_01_l", "hand_l", [0.73, 1.47, 0.04]),
            ("thigh_l", "pelvis", [0.1, 0.95, 0.0]),
            ("thigh_twist_01_l", "thigh_l", [0.1, 0.75, 0.0]),
            ("calf_l", "thigh_l", [0.1, 0.5, 0.0]),
            ("calf_twist_01_l", "calf_l", [0.1, 0.3, 0.0]),
            ("foot_l", "calf_l", [0.1, 0.08, 0.0]),
            ("ball_l", "foot_l", [0.1, 0.02, 0.12]),
            ("ik_foot_root", "root", [0.0, 0.0, 0.0]),
            ("ik_foot_l", "ik_foot_root", [0.1, 0.08, 0.0]),
            ("ik_hand_root", "root", [0.0, 0.0, 0.0]),
            ("ik_hand_gun", "ik_hand_root", [-0.7, 1.48, 0.0]),
            ("ik_hand_l", "ik_hand_gun", [0.7, 1.48, 0.0]),
        ],
        "_l",
        "_r",
    );
    let s = build(&rows);
    let r = BoneRoles::discover(&s);
    expect(
        &s,
        &r,
        &[
            ("hips", "pelvis"),
            ("spine", "spine_01,spine_02,spine_03"),
            ("neck", "neck_01"),
            ("head", "head"),
            ("left_upper_leg", "thigh_l"),
            ("left_lower_leg", "calf_l"),
            ("left_foot", "foot_l"),
            ("left_toe", "ball_l"),
            ("right_upper_leg", "thigh_r"),
            ("right_lower_leg", "calf_r"),
            ("right_foot", "foot_r"),
            ("right_toe", "ball_r"),
            ("left_shoulder", "clavicle_l"),
            ("left_upper_arm", "upperarm_l"),
            ("left_forearm", "lowerarm_l"),
            ("left_hand", "hand_l"),
            ("right_shoulder", "clavicle_r"),
            ("right_upper_arm", "upperarm_r"),
            ("right_forearm", "lowerarm_r"),
            ("right_hand", "hand_r"),
        ],
    );
    all_available(&r);
    let rejected: Vec<(String, Option<Role>)> =
        r.rejected.iter().map(|x| (s.display_name(x.joint as usize).into_owned(), x.role)).collect();
    for (bone, role) in [
        ("ik_foot_l", Role::LeftFoot),
        ("ik_foot_r", Role::RightFoot),
        ("ik_hand_l", Role::LeftHand),
        ("ik_hand_r", Role::RightHand),
    ] {
        assert!(rejected.contains(&(bone.to_owned(), Some(role))), "{bone} rejected: {rejected:?}");
    }
    let why = &r.rejected.iter().find(|x| s.display_name(x.joint as usize) == "ik_foot_l").unwrap().reason;
    assert!(why.contains("rig control") && why.contains("`ik`"), "{why}");
}

/// Unreal Engine 5 Manny: five spine bones, two neck bones, two twist bones
/// per segment and corrective roots.
#[test]
fn unreal_manny_ue5() {
    let rows = mirrored(
        &[
            ("root", "", [0.0, 0.0, 0.0]),
            ("pelvis", "root", [0.0, 1.0, 0.0]),
            ("spine_01", "pelvis", [0.0, 1.06, 0.0]),
            ("spine_02", "spine_01", [0.0, 1.14, 0.0]),
            ("spine_03", "spine_02", [0.0, 1.24, 0.0]),
            ("spine_04", "spine_03", [0.0, 1.34, 0.0]),
            ("spine_05", "spine_04", [0.0, 1.44, 0.0]),
            ("neck_01", "spine_05", [0.0, 1.55, 0.0]),
            ("neck_02", "neck_01", [0.0, 1.6, 0.0]),
            ("head", "neck_02", [0.0, 1.66, 0.0]),
            ("clavicle_l", "spine_05", [0.05, 1.5, 0.0]),
            ("upperarm_l", "clavicle_l", [0.18, 1.48, 0.0]),
            ("upperarm_twist_01_l", "upperarm_l", [0.25, 1.48, 0.0]),
            ("upperarm_twist_02_l", "upperarm_l", [0.35, 1.48, 0.0]),
            ("upperarm_correctiveRoot_l", "upperarm_l", [0.18, 1.48, 0.0]),
            ("lowerarm_l", "upperarm_l", [0.45, 1.48, 0.0]),
            ("lowerarm_twist_01_l", "lowerarm_l", [0.55, 1.48, 0.0]),
            ("lowerarm_twist_02_l", "lowerarm_l", [0.62, 1.48, 0.0]),
            ("hand_l", "lowerarm_l", [0.7, 1.48, 0.0]),
            ("index_metacarpal_l", "hand_l", [0.74, 1.48, 0.02]),
            ("thigh_l", "pelvis", [0.1, 0.95, 0.0]),
            ("thigh_twist_01_l", "thigh_l", [0.1, 0.8, 0.0]),
            ("thigh_twist_02_l", "thigh_l", [0.1, 0.65, 0.0]),
            ("thigh_correctiveRoot_l", "thigh_l", [0.1, 0.95, 0.0]),
            ("calf_l", "thigh_l", [0.1, 0.5, 0.0]),
            ("calf_twist_01_l", "calf_l", [0.1, 0.35, 0.0]),
            ("calf_twist_02_l", "calf_l", [0.1, 0.2, 0.0]),
            ("foot_l", "calf_l", [0.1, 0.08, 0.0]),
            ("ball_l", "foot_l", [0.1, 0.02, 0.12]),
            ("ik_foot_root", "root", [0.0, 0.0, 0.0]),
            ("ik_foot_l", "ik_foot_root", [0.1, 0.08, 0.0]),
        ],
        "_l",
        "_r",
    );
    let s = build(&rows);
    let r = BoneRoles::discover(&s);
    let got = named(&s, &r);
    let get = |role: &str| got.iter().find(|(r, _)| *r == role).map(|(_, b)| b.as_str());
    assert_eq!(get("spine"), Some("spine_01,spine_02,spine_03,spine_04,spine_05"));
    assert_eq!((get("neck"), get("head")), (Some("neck_01"), Some("head")));
    assert_eq!(get("left_lower_leg"), Some("calf_l"));
    assert_eq!(get("right_forearm"), Some("lowerarm_r"));
    assert_eq!(get("left_hand"), Some("hand_l"));
    all_available(&r);
}

/// Blender Rigify, deform bones only (`DEF-`), as a glTF export with
/// "deform bones only" writes them: every limb segment split in two.
#[test]
fn blender_rigify_deform_bones() {
    let rows = mirrored(
        &[
            ("DEF-spine", "", [0.0, 1.0, 0.0]),
            ("DEF-spine.001", "DEF-spine", [0.0, 1.1, 0.0]),
            ("DEF-spine.002", "DEF-spine.001", [0.0, 1.22, 0.0]),
            ("DEF-spine.003", "DEF-spine.002", [0.0, 1.35, 0.0]),
            ("DEF-spine.004", "DEF-spine.003", [0.0, 1.5, 0.0]),
            ("DEF-spine.005", "DEF-spine.004", [0.0, 1.56, 0.0]),
            ("DEF-spine.006", "DEF-spine.005", [0.0, 1.62, 0.0]),
            ("DEF-pelvis.L", "DEF-spine", [0.02, 1.0, 0.03]),
            ("DEF-thigh.L", "DEF-spine", [0.1, 0.95, 0.0]),
            ("DEF-thigh.L.001", "DEF-thigh.L", [0.1, 0.72, 0.0]),
            ("DEF-shin.L", "DEF-thigh.L.001", [0.1, 0.5, 0.0]),
            ("DEF-shin.L.001", "DEF-shin.L", [0.1, 0.29, 0.0]),
            ("DEF-foot.L", "DEF-shin.L.001", [0.1, 0.08, 0.0]),
            ("DEF-toe.L", "DEF-foot.L", [0.1, 0.02, 0.12]),
            ("DEF-shoulder.L", "DEF-spine.003", [0.03, 1.45, 0.02]),
            ("DEF-upper_arm.L", "DEF-shoulder.L", [0.18, 1.46, 0.0]),
            ("DEF-upper_arm.L.001", "DEF-upper_arm.L", [0.31, 1.46, 0.0]),
            ("DEF-forearm.L", "DEF-upper_arm.L.001", [0.45, 1.46, 0.0]),
            ("DEF-forearm.L.001", "DEF-forearm.L", [0.57, 1.46, 0.0]),
            ("DEF-hand.L", "DEF-forearm.L.001", [0.7, 1.46, 0.0]),
            ("DEF-palm.01.L", "DEF-hand.L", [0.72, 1.46, 0.02]),
            ("DEF-f_index.01.L", "DEF-palm.01.L", [0.78, 1.46, 0.02]),
            ("DEF-breast.L", "DEF-spine.003", [0.1, 1.35, 0.1]),
        ],
        ".L",
        ".R",
    );
    let s = build(&rows);
    let r = BoneRoles::discover(&s);
    expect(
        &s,
        &r,
        &[
            ("hips", "DEF-spine"),
            ("spine", "DEF-spine.001,DEF-spine.002,DEF-spine.003,DEF-spine.004,DEF-spine.005"),
            ("head", "DEF-spine.006"),
            ("left_upper_leg", "DEF-thigh.L"),
            ("left_lower_leg", "DEF-shin.L"),
            ("left_foot", "DEF-foot.L"),
            ("left_toe", "DEF-toe.L"),
            ("right_upper_leg", "DEF-thigh.R"),
            ("right_lower_leg", "DEF-shin.R"),
            ("right_foot", "DEF-foot.R"),
            ("right_toe", "DEF-toe.R"),
            ("left_shoulder", "DEF-shoulder.L"),
            ("left_upper_arm", "DEF-upper_arm.L"),
            ("left_forearm", "DEF-forearm.L"),
            ("left_hand", "DEF-hand.L"),
            ("right_shoulder", "DEF-shoulder.R"),
            ("right_upper_arm", "DEF-upper_arm.R"),
            ("right_forearm", "DEF-forearm.R"),
            ("right_hand", "DEF-hand.R"),
        ],
    );
    all_available(&r);
}

#[test]
fn quaternius_legs_are_found_by_structure_and_its_ik_controls_rejected() {
    let s = skeletons::quaternius();
    let r = BoneRoles::discover(&s);
    expect(
        &s,
        &r,
        &[
            ("hips", "Body"),
            ("spine", "Hips,Abdomen,Torso"),
            ("neck", "Neck"),
            ("head", "Head"),
            ("left_upper_leg", "UpperLeg.L"),
            ("left_lower_leg", "LowerLeg.L"),
            ("right_upper_leg", "UpperLeg.R"),
            ("right_lower_leg", "LowerLeg.R"),
            ("left_shoulder", "Shoulder.L"),
            ("left_upper_arm", "UpperArm.L"),
            ("left_forearm", "LowerArm.L"),
            ("left_hand", "Palm.L"),
            ("right_shoulder", "Shoulder.R"),
            ("right_upper_arm", "UpperArm.R"),
            ("right_forearm", "LowerArm.R"),
            ("right_hand", "Palm.R"),
        ],
    );
    all_available(&r);
    let reason = |bone: &str| {
        r.rejected
            .iter()
            .find(|x| s.display_name(x.joint as usize) == bone)
            .unwrap_or_else(|| panic!("{bone} not rejected: {:?}", r.rejected))
    };
    let foot = reason("Foot.L");
    assert_eq!(foot.role, Some(Role::LeftFoot));
    assert!(foot.reason.contains("not a descendant of the left lower leg `LowerLeg.L`"), "{}", foot.reason);
    assert!(foot.reason.contains("`Root`"), "{}", foot.reason);
    assert!(reason("PoleTarget.R").reason.contains("rig control"));
    let hips = reason("Hips");
    assert_eq!(hips.role, Some(Role::Hips));
    assert!(hips.reason.contains("closest common ancestor `Body`"), "{}", hips.reason);

    // No foot joint: each leg ends at its lower leg's tip, on the ground.
    for side in Side::BOTH {
        let leg = r.legs[side.index()];
        let tip = leg.tip.expect("a tip");
        assert_eq!((Some(tip.joint), tip.source), (leg.lower, TipSource::Estimated));
        assert!((tip.offset - Vec3::new(0.0, -0.5, 0.0)).length() < 1e-5, "{}", tip.offset);
    }
}

#[test]
fn quaternius_feet_plant_at_the_lower_leg_tips() {
    let s = skeletons::quaternius();
    let roles = BoneRoles::discover(&s);
    let settings = RigIkSettings::from_rest(&s, &roles);
    assert!((settings.up - Vec3::Y).length() < 1e-5 && (settings.forward - Vec3::Z).length() < 1e-5);
    let rig = RigIk::new(&s, &RigPolicy::default(), &roles, settings);
    assert!(rig.is_active(PolicyKind::FootPlant));
    let rest: Vec<Transform> = s.rest_pose().collect();
    let mut local = rest.clone();
    let mut ctx = rig.new_context();
    let ground = std::sync::Arc::new(FlatGround { height: 0.1, normal: Vec3::Y });
    rig.apply(&s, &mut local, &mut ctx, &IkInputs { ground: Some(ground), ..IkInputs::default() }, 1.0).unwrap();
    let (p0, p) = (positions(&s, &rest), positions(&s, &local));
    for side in Side::BOTH {
        let lower = roles.legs[side.index()].lower.unwrap() as usize;
        let tip = roles.legs[side.index()].tip.unwrap().offset;
        // Model-space tip: identity rest rotations below the root, so rotation of the shin applies.
        let mut m = zoa_anim_ik::ModelPose::new(s.joint_count());
        m.update(&s, &local);
        let now = m.get(lower).position + m.get(lower).rotation * tip;
        assert!((now.y - 0.1).abs() < 1e-4, "{side:?} tip at {now}");
        assert!(p[lower].y > p0[lower].y, "the knee rises with the foot");
    }
}

/// Daz Genesis 8: bend and twist bones in line (`lThighBend` → `lThighTwist`
/// → `lShin`), `Shldr` for the upper arm, `hip` above `pelvis`.
#[test]
fn daz_genesis_8() {
    let rows = mirrored_by(
        &[
            ("hip", "", [0.0, 1.0, 0.0]),
            ("pelvis", "hip", [0.0, 0.98, 0.0]),
            ("lThighBend", "pelvis", [0.09, 0.93, 0.0]),
            ("lThighTwist", "lThighBend", [0.09, 0.72, 0.0]),
            ("lShin", "lThighTwist", [0.09, 0.5, 0.0]),
            ("lFoot", "lShin", [0.09, 0.08, 0.0]),
            ("lMetatarsals", "lFoot", [0.09, 0.04, 0.06]),
            ("lToe", "lMetatarsals", [0.09, 0.02, 0.13]),
            ("abdomenLower", "hip", [0.0, 1.05, 0.0]),
            ("abdomenUpper", "abdomenLower", [0.0, 1.15, 0.0]),
            ("chestLower", "abdomenUpper", [0.0, 1.27, 0.0]),
            ("chestUpper", "chestLower", [0.0, 1.38, 0.0]),
            ("lPectoral", "chestUpper", [0.09, 1.32, 0.1]),
            ("lCollar", "chestUpper", [0.04, 1.46, 0.0]),
            ("lShldrBend", "lCollar", [0.17, 1.45, 0.0]),
            ("lShldrTwist", "lShldrBend", [0.3, 1.45, 0.0]),
            ("lForearmBend", "lShldrTwist", [0.45, 1.45, 0.0]),
            ("lForearmTwist", "lForearmBend", [0.57, 1.45, 0.0]),
            ("lHand", "lForearmTwist", [0.7, 1.45, 0.0]),
            ("lCarpal1", "lHand", [0.72, 1.45, 0.02]),
            ("lIndex1", "lCarpal1", [0.79, 1.45, 0.02]),
            ("neckLower", "chestUpper", [0.0, 1.5, 0.0]),
            ("neckUpper", "neckLower", [0.0, 1.56, 0.0]),
            ("head", "neckUpper", [0.0, 1.62, 0.0]),
        ],
        // Daz sides are a lowercase prefix: `lShin` → `rShin`.
        |n: &str| {
            let mut c = n.chars();
            (c.next() == Some('l') && c.next().is_some_and(char::is_uppercase)).then(|| format!("r{}", &n[1..]))
        },
    );
    let s = build(&rows);
    let r = BoneRoles::discover(&s);
    expect(
        &s,
        &r,
        &[
            ("hips", "hip"),
            ("spine", "abdomenLower,abdomenUpper,chestLower,chestUpper"),
            ("neck", "neckLower"),
            ("head", "head"),
            ("left_upper_leg", "lThighBend"),
            ("left_lower_leg", "lShin"),
            ("left_foot", "lFoot"),
            ("left_toe", "lToe"),
            ("right_upper_leg", "rThighBend"),
            ("right_lower_leg", "rShin"),
            ("right_foot", "rFoot"),
            ("right_toe", "rToe"),
            ("left_shoulder", "lCollar"),
            ("left_upper_arm", "lShldrBend"),
            ("left_forearm", "lForearmBend"),
            ("left_hand", "lHand"),
            ("right_shoulder", "rCollar"),
            ("right_upper_arm", "rShldrBend"),
            ("right_forearm", "rForearmBend"),
            ("right_hand", "rHand"),
        ],
    );
    all_available(&r);
}

/// Quaternius' Universal Animation Library rig: lowercase Blender names, a
/// wrist above the hand and hand slots for props.
#[test]
fn quaternius_universal_animation_library() {
    let rows = mirrored(
        &[
            ("root", "", [0.0, 0.0, 0.0]),
            ("hips", "root", [0.0, 1.0, 0.0]),
            ("spine", "hips", [0.0, 1.12, 0.0]),
            ("chest", "spine", [0.0, 1.3, 0.0]),
            ("neck", "chest", [0.0, 1.5, 0.0]),
            ("head", "neck", [0.0, 1.58, 0.0]),
            ("upperarm.l", "chest", [0.18, 1.45, 0.0]),
            ("lowerarm.l", "upperarm.l", [0.44, 1.45, 0.0]),
            ("wrist.l", "lowerarm.l", [0.68, 1.45, 0.0]),
            ("hand.l", "wrist.l", [0.72, 1.45, 0.0]),
            ("handslot.l", "hand.l", [0.78, 1.45, 0.0]),
            ("upperleg.l", "hips", [0.1, 0.95, 0.0]),
            ("lowerleg.l", "upperleg.l", [0.1, 0.5, 0.0]),
            ("foot.l", "lowerleg.l", [0.1, 0.08, 0.0]),
            ("toes.l", "foot.l", [0.1, 0.02, 0.12]),
        ],
        ".l",
        ".r",
    );
    let s = build(&rows);
    let r = BoneRoles::discover(&s);
    let got = named(&s, &r);
    let get = |role: &str| got.iter().find(|(r, _)| *r == role).map(|(_, b)| b.as_str());
    assert_eq!(get("left_hand"), Some("wrist.l"), "the wrist is the end of the arm chain");
    assert_eq!((get("left_upper_arm"), get("left_forearm")), (Some("upperarm.l"), Some("lowerarm.l")));
    assert_eq!((get("right_foot"), get("right_toe")), (Some("foot.r"), Some("toes.r")));
    assert_eq!((get("hips"), get("spine")), (Some("hips"), Some("spine,chest")));
    all_available(&r);
}

/// A leaf lower leg with an FBX-style end marker ends exactly there.
#[test]
fn an_end_marker_is_the_tip() {
    let rows = mirrored(
        &[
            ("Hips", "", [0.0, 1.0, 0.0]),
            ("Spine", "Hips", [0.0, 1.2, 0.0]),
            ("Head", "Spine", [0.0, 1.6, 0.0]),
            ("UpperLeg.L", "Hips", [0.1, 0.95, 0.0]),
            ("LowerLeg.L", "UpperLeg.L", [0.1, 0.5, 0.0]),
            ("LowerLeg.L_end", "LowerLeg.L", [0.1, 0.06, 0.01]),
        ],
        ".L",
        ".R",
    );
    let s = build(&rows);
    let r = BoneRoles::discover(&s);
    let tip = r.legs[0].tip.unwrap();
    assert_eq!(tip.source, TipSource::EndJoint(s.find("LowerLeg.L_end").unwrap() as u16));
    assert!((tip.offset - Vec3::new(0.0, -0.44, 0.01)).length() < 1e-6);
    assert!(r.is_available(PolicyKind::FootPlant));
    // An override naming a foot replaces the tip.
    let policy =
        RigPolicy { bone_overrides: vec![("left_foot".into(), "LowerLeg.L_end".into())], ..RigPolicy::default() };
    let (o, problems) = BoneRoles::discover_with_overrides(&s, &policy);
    assert!(problems.is_empty());
    assert_eq!((o.legs[0].foot, o.legs[0].tip), (s.find("LowerLeg.L_end").map(|j| j as u16), None));
    assert!(o.legs[1].tip.is_some());
}

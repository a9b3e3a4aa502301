use zoa_anim_core::RigPolicy;
use zoa_anim_core::contracts::IkPoseService;
use zoa_anim_core::glam::Vec3;
use zoa_anim_ik::{
    BoneRoles, EquipmentPoseService, FlatGround, HandTarget, IkError, IkInputs, PolicyKind, RigIk, RigIkSettings,
};

use crate::common::{Rifle, all_finite, humanoid, positions, rest, skeleton};

fn everything_on() -> RigPolicy {
    RigPolicy { climb_hand: true, ..RigPolicy::default() }
}

#[test]
fn rig_ik_applies_every_policy_together() {
    let s = humanoid();
    let roles = BoneRoles::discover(&s);
    let settings = RigIkSettings::from_rest(&s, &roles);
    assert!(settings.up.abs_diff_eq(Vec3::Y, 1e-3) && settings.forward.abs_diff_eq(Vec3::Z, 1e-3));
    let rig = RigIk::new(&s, &everything_on(), &roles, settings);
    for kind in PolicyKind::ALL {
        assert!(rig.is_active(kind), "{}", kind.name());
    }
    let rest_pos = positions(&s, &rest(&s));
    let grip = rest_pos[17] + Vec3::new(-0.2, -0.1, 0.3);
    let mut service = EquipmentPoseService::new(0.0);
    service.register_provider(Box::new(Rifle { grip, aim: grip }));
    service.tick(0.016);

    let mut ctx = rig.new_context();
    let ground = FlatGround { height: 0.05, normal: Vec3::Y };
    let head = rest_pos[5];
    let mut local = rest(&s);
    let input = IkInputs {
        locomotion_speed: 0.0,
        ground: Some(std::sync::Arc::new(ground)),
        look_target: Some(head + Vec3::new(0.5, 0.0, 1.0)),
        weapon_pose: Some(service.current_pose().clone()),
        ledge_targets: [None, None],
        ..IkInputs::default()
    };
    for _ in 0..30 {
        local = rest(&s);
        rig.apply(&s, &mut local, &mut ctx, &input, 1.0 / 30.0).unwrap();
    }
    assert!(all_finite(&local));
    let p = positions(&s, &local);
    assert!((p[8].y - (rest_pos[8].y + 0.05)).abs() < 1e-3, "left foot planted");
    assert!((p[17] - grip).length() < 1e-3, "off hand on the grip: {} vs {grip}", p[17]);
    assert_eq!(local[19..22], rest(&s)[19..22], "the right arm has no grip target: its joints stay as animated");
    let dir = (head + Vec3::new(0.5, 0.0, 1.0) - p[5]).normalize();
    let forward = crate::common::rotations(&s, &local)[5] * Vec3::Z;
    assert!(forward.angle_between(dir) < 0.05, "head looks at the target");

    // An animation that lets go of the weapon (weight 0) leaves the off hand as animated; half reaches part-way.
    let released = IkInputs { hand_on_weapon_weight: 0.0, ..input.clone() };
    let mut free = rest(&s);
    rig.apply(&s, &mut free, &mut rig.new_context(), &released, 1.0 / 30.0).unwrap();
    assert_eq!(free[15..19], rest(&s)[15..19], "weight 0: the left arm stays as animated");
    let half = IkInputs { hand_on_weapon_weight: 0.5, ..input.clone() };
    let mut part = rest(&s);
    rig.apply(&s, &mut part, &mut rig.new_context(), &half, 1.0 / 30.0).unwrap();
    let reach = (positions(&s, &part)[17] - grip).length();
    assert!(reach > 1e-3 && reach < (rest_pos[17] - grip).length(), "weight 0.5 reaches part-way: {reach}");

    // Climbing: ledge targets for both hands.
    let ledge = [
        Some(HandTarget { position: rest_pos[17] + Vec3::new(-0.2, 0.2, 0.1), rotation: None, weight: 1.0 }),
        Some(HandTarget { position: rest_pos[21] + Vec3::new(0.2, 0.2, 0.1), rotation: None, weight: 1.0 }),
    ];
    let mut local = rest(&s);
    rig.apply(&s, &mut local, &mut ctx, &IkInputs { ledge_targets: ledge, ..IkInputs::default() }, 0.0).unwrap();
    let p = positions(&s, &local);
    assert!((p[17] - ledge[0].unwrap().position).length() < 1e-3);
    assert!((p[21] - ledge[1].unwrap().position).length() < 1e-3);
}

#[test]
fn missing_bones_skip_policies_silently() {
    // A door: a hinge and a panel.
    let door = skeleton(&[("hinge", None, [0.0; 3]), ("panel", Some(0), [0.5, 0.0, 0.0])]);
    let roles = BoneRoles::discover(&door);
    let rig = RigIk::new(&door, &everything_on(), &roles, RigIkSettings::default());
    assert!(PolicyKind::ALL.iter().all(|&k| !rig.is_active(k)));
    let mut local = rest(&door);
    let mut ctx = rig.new_context();
    let ground = std::sync::Arc::new(FlatGround { height: 1.0, normal: Vec3::Y });
    let input = IkInputs { ground: Some(ground), look_target: Some(Vec3::X), ..IkInputs::default() };
    rig.apply(&door, &mut local, &mut ctx, &input, 0.1).unwrap();
    assert_eq!(local, rest(&door));
    let report = roles.availability(&everything_on());
    assert!(report.iter().all(|a| a.enabled && !a.available && !a.missing.is_empty()));

    let mut short = vec![zoa_anim_core::Transform::IDENTITY; 1];
    let err = rig.apply(&door, &mut short, &mut ctx, &input, 0.1).unwrap_err();
    assert!(matches!(err, IkError::ContextMismatch { .. }));
}

#[test]
fn disabled_policies_are_not_run() {
    let s = humanoid();
    let roles = BoneRoles::discover(&s);
    let policy = RigPolicy { foot_plant: false, look_at: false, hand_on_weapon: false, ..RigPolicy::default() };
    let rig = RigIk::new(&s, &policy, &roles, RigIkSettings::default());
    let mut local = rest(&s);
    let mut ctx = rig.new_context();
    let ground = std::sync::Arc::new(FlatGround { height: 0.3, normal: Vec3::Y });
    rig.apply(&s, &mut local, &mut ctx, &IkInputs { ground: Some(ground), ..IkInputs::default() }, 0.0).unwrap();
    assert_eq!(local, rest(&s));
}

#[test]
fn shared_rig_and_per_character_state_cross_threads() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<RigIk>();
    send_sync::<zoa_anim_ik::IkContext>();
    send_sync::<EquipmentPoseService>();
}

/// Model-space matrices of `local` (what a runtime's local-to-model job gives).
fn matrices(s: &zoa_anim_core::Skeleton, local: &[zoa_anim_core::Transform]) -> Vec<zoa_anim_core::glam::Mat4> {
    let mut model = zoa_anim_ik::ModelPose::new(s.joint_count());
    model.update(s, local);
    (0..s.joint_count())
        .map(|j| {
            let m = model.get(j);
            zoa_anim_core::glam::Mat4::from_scale_rotation_translation(m.scale, m.rotation, m.position)
        })
        .collect()
}

#[test]
fn the_report_names_each_goal_with_its_target_weight_and_reach_error() {
    use zoa_anim_ik::Side;
    let s = humanoid();
    let rig = RigIk::for_policy(&s, &everything_on()).0;
    let rest_pos = positions(&s, &rest(&s));
    let grip = rest_pos[17] + Vec3::new(-0.2, -0.1, 0.3);
    let mut service = EquipmentPoseService::new(0.0);
    service.register_provider(Box::new(Rifle { grip, aim: grip }));
    service.tick(0.016);
    let look = rest_pos[5] + Vec3::new(0.5, 0.0, 1.0);
    let mut input = IkInputs {
        locomotion_speed: 0.0,
        ground: Some(std::sync::Arc::new(FlatGround { height: 0.05, normal: Vec3::Y })),
        look_target: Some(look),
        weapon_pose: Some(service.current_pose().clone()),
        ledge_targets: [None, None],
        ..IkInputs::default()
    };
    let mut ctx = rig.new_context();
    let mut local = rest(&s);
    // Nothing applied yet: the feet have no target, so they are not reported.
    assert!(
        rig.report(&ctx, &input, &matrices(&s, &local)).goals().iter().all(|g| g.behaviour != PolicyKind::FootPlant)
    );
    for _ in 0..30 {
        local = rest(&s);
        rig.apply(&s, &mut local, &mut ctx, &input, 1.0 / 30.0).unwrap();
    }
    let report = rig.report(&ctx, &input, &matrices(&s, &local));
    let kinds: Vec<(PolicyKind, Option<Side>)> = report.goals().iter().map(|g| (g.behaviour, g.side)).collect();
    assert_eq!(
        kinds,
        [
            (PolicyKind::FootPlant, Some(Side::Left)),
            (PolicyKind::FootPlant, Some(Side::Right)),
            (PolicyKind::LookAt, None),
            (PolicyKind::HandOnWeapon, Some(Side::Left)),
        ],
        "the right grip has no target in this weapon pose"
    );
    let p = positions(&s, &local);
    for g in report.goals() {
        assert!(g.error.is_finite() && g.error >= 0.0 && g.weight > 0.0, "{g:?}");
    }
    let left_foot = report.goals()[0];
    assert_eq!(left_foot.joint, 8);
    assert!(
        (left_foot.target.y - (rest_pos[8].y + 0.05)).abs() < 1e-4,
        "the foot's target is on the ground: {left_foot:?}"
    );
    assert!(left_foot.error < 1e-3 && (p[8] - left_foot.target).length() - left_foot.error < 1e-5);
    assert_eq!(report.goals()[2].target, look);
    assert!(report.goals()[2].error < 0.05, "30 frames turn the head onto the target: {:?}", report.goals()[2]);
    assert_eq!((report.goals()[3].target, report.goals()[3].joint), (grip, 17));
    assert!(report.goals()[3].error < 1e-3);

    // A ledge out of reach: the hand stops short, and the report says by how much.
    input = IkInputs::default();
    let far = rest_pos[17] + Vec3::new(-3.0, 0.0, 0.0);
    input.ledge_targets[0] = Some(HandTarget { position: far, rotation: None, weight: 0.5 });
    let mut local = rest(&s);
    rig.apply(&s, &mut local, &mut ctx, &input, 0.0).unwrap();
    let report = rig.report(&ctx, &input, &matrices(&s, &local));
    let [hand] = report.goals() else { panic!("one goal: {report:?}") };
    assert_eq!((hand.behaviour, hand.side, hand.weight), (PolicyKind::ClimbHand, Some(Side::Left), 0.5));
    let p = positions(&s, &local);
    assert!((hand.error - (p[17] - far).length()).abs() < 1e-5 && hand.error > 2.0, "{hand:?}");
}

//! The solvers and the per-frame rig pass allocate nothing (a counting global
//! allocator; one test per binary so nothing else allocates meanwhile).

use zoa_anim_core::RigPolicy;
use zoa_anim_core::contracts::IkPoseService;
use zoa_anim_core::glam::Vec3;
use zoa_anim_ik::{
    BoneRoles, EquipmentPoseService, FlatGround, HandTarget, IkInputs, RigIk, RigIkSettings, TwoBoneSettings,
    solve_two_bone,
};

use zoa_test_support::alloc::{self, CountingAllocator};

#[path = "ik/common/mod.rs"]
mod common;

#[global_allocator]
static GLOBAL: CountingAllocator = CountingAllocator;

#[test]
fn solvers_and_the_rig_pass_allocate_nothing() {
    let s = common::humanoid();
    let roles = BoneRoles::discover(&s);
    let rig = RigIk::new(&s, &RigPolicy { climb_hand: true, ..RigPolicy::default() }, &roles, RigIkSettings::default());
    let mut ctx = rig.new_context();
    let rest = common::rest(&s);
    let mut local = rest.clone();
    let ground = FlatGround { height: -0.1, normal: Vec3::new(0.1, 1.0, 0.0) };
    let mut service = EquipmentPoseService::new(0.2);
    service
        .register_provider(Box::new(common::Rifle { grip: Vec3::new(0.3, 1.2, 0.3), aim: Vec3::new(0.3, 1.2, 0.4) }));
    service.set_aiming(true);
    // Warm-up: the service's snapshots grow to their working size.
    for _ in 0..3 {
        service.tick(0.016);
    }

    // A rig whose legs end at the lower legs' tips (no foot joints).
    let mut footless = common::HUMANOID[..8].to_vec();
    footless.push(("RightUpLeg", Some(0), [-0.1, -0.05, 0.0]));
    footless.push(("RightLeg", Some(8), [0.0, -0.45, 0.01]));
    let fs = common::skeleton(&footless);
    let froles = BoneRoles::discover(&fs);
    assert!(froles.legs.iter().all(|l| l.tip.is_some()));
    let frig = RigIk::new(&fs, &RigPolicy::default(), &froles, RigIkSettings::from_rest(&fs, &froles));
    let mut fctx = frig.new_context();
    let frest = common::rest(&fs);
    let mut flocal = frest.clone();

    let ground = std::sync::Arc::new(ground);
    let footless_input = IkInputs { ground: Some(ground.clone()), ..IkInputs::default() };
    let mut input = IkInputs {
        ground: Some(ground),
        look_target: Some(Vec3::new(0.5, 1.6, 2.0)),
        weapon_pose: Some(service.current_pose().clone()),
        ledge_targets: [Some(HandTarget { position: Vec3::new(0.4, 1.8, 0.3), rotation: None, weight: 1.0 }), None],
        ..IkInputs::default()
    };
    let matrices = vec![zoa_anim_core::glam::Mat4::IDENTITY; s.joint_count()];
    let before = alloc::total();
    let mut goals = 0;
    for frame in 0..100 {
        flocal.copy_from_slice(&frest);
        frig.apply(&fs, &mut flocal, &mut fctx, &footless_input, 1.0 / 60.0).unwrap();
        service.tick(0.016);
        local.copy_from_slice(&rest);
        // The inputs are written in place: the weapon pose copied into its sized storage.
        input.locomotion_speed = frame as f32 / 100.0;
        if let Some(pose) = input.weapon_pose.as_mut() {
            let current = service.current_pose();
            zoa_anim_core::contracts::PoseSnapshot::blend_into(current, current, 1.0, pose);
        }
        rig.apply(&s, &mut local, &mut ctx, &input, 1.0 / 60.0).unwrap();
        goals += rig.report(&ctx, &input, &matrices).goals().len();
        let sol = solve_two_bone(Vec3::Y, Vec3::ZERO, Vec3::NEG_Y, Vec3::X, &TwoBoneSettings::default());
        assert!(sol.is_some());
    }
    let after = alloc::total();
    assert_eq!(after - before, 0, "allocations in the per-frame path (the IK report included)");
    assert!(goals > 100, "the report saw the goals: {goals}");
}

//! The solvers and the per-frame rig pass allocate nothing (a counting global
//! allocator; one test per binary so nothing else allocates meanwhile).

use zoa_anim_core::contracts::IkPoseService;
use zoa_anim_core::glam::{Quat, Vec3};
use zoa_anim_core::{RigChain, RigPolicy};
use zoa_anim_ik::{
    BoneRoles, ChainIkJob, ChainSettings, EquipmentPoseService, FlatGround, HandTarget, IkInputs, JointChain,
    JointLimit, ModelPose, RigIk, RigIkSettings, TwoBoneSettings, solve_two_bone,
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
    // Chains: the spine (limited) and the left arm, both given targets, the
    // arm's tip a rotation too; then the chain job on its own.
    let mut spine = RigChain::new("spine", "Spine", "Head");
    spine.swing_limit_degrees = 30.0;
    spine.twist_limit_degrees = 10.0;
    let chains = RigPolicy {
        foot_plant: false,
        chains: vec![spine, RigChain::new("arm", "LeftShoulder", "LeftHand")],
        ..RigPolicy::default()
    };
    let crig = RigIk::new(&s, &chains, &roles, RigIkSettings::default());
    assert_eq!(crig.active_chain_count(), 2);
    let mut cctx = crig.new_context();
    let mut clocal = rest.clone();
    let mut cinput = IkInputs { look_target: Some(Vec3::new(0.5, 1.6, 2.0)), ..IkInputs::default() };
    cinput.chain_targets[0] = Some(HandTarget { position: Vec3::new(0.2, 1.5, 0.2), rotation: None, weight: 1.0 });
    cinput.chain_targets[1] = Some(HandTarget {
        position: Vec3::new(0.5, 1.6, 0.3),
        rotation: Some(Quat::from_rotation_y(0.5)),
        weight: 0.8,
    });
    let tail = JointChain::new(&s, 1, 5).unwrap().with_limit(JointLimit::from_degrees(45.0, 20.0));
    let mut model = ModelPose::new(s.joint_count());
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
        clocal.copy_from_slice(&rest);
        cinput.chain_targets[0].as_mut().unwrap().position.x = frame as f32 * 0.002;
        crig.apply(&s, &mut clocal, &mut cctx, &cinput, 1.0 / 60.0).unwrap();
        clocal.copy_from_slice(&rest);
        model.update(&s, &clocal);
        let job = ChainIkJob {
            chain: &tail,
            target: Vec3::new(0.3, 1.4, 0.1 + frame as f32 * 0.001),
            tip_rotation: Some(Quat::from_rotation_x(0.2)),
            settings: ChainSettings { iterations: 16, tolerance: 0.0, weight: 0.7 },
        };
        assert!(job.run(&s, &mut clocal, &mut model));
        let sol = solve_two_bone(Vec3::Y, Vec3::ZERO, Vec3::NEG_Y, Vec3::X, &TwoBoneSettings::default());
        assert!(sol.is_some());
    }
    let after = alloc::total();
    assert_eq!(after - before, 0, "allocations in the per-frame path (the IK report included)");
    assert!(goals > 100, "the report saw the goals: {goals}");
}

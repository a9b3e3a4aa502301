//! Per-call cost of each solver, and of the per-character pass (two feet plus
//! look-at) the runtime runs after blending. The chain benches solve the
//! fixture humanoid's spine (Spine..Head, 5 joints) and a synthetic
//! 16-joint tail, free and limited, to a fixed target from the rest pose.

use std::hint::black_box;

use zoa_anim_core::glam::{Quat, Vec3};
use zoa_anim_core::{RigPolicy, Transform};
use zoa_anim_ik::foot::PlantLeg;
use zoa_anim_ik::{
    BoneRoles, ChainIkJob, ChainSettings, FlatGround, FootPlantJob, FootPlantState, IkInputs, JointChain, JointLimit,
    LookAtChain, LookAtJob, LookAtState, ModelPose, RigIk, RigIkSettings, TwoBoneChain, TwoBoneIkJob, TwoBoneSettings,
    solve_two_bone,
};
use zoa_test_support::skeletons::humanoid;

fn main() {
    divan::main();
}

#[divan::bench]
fn two_bone_math(b: divan::Bencher<'_, '_>) {
    let s = TwoBoneSettings::default();
    b.bench(|| {
        solve_two_bone(
            black_box(Vec3::new(0.1, 0.95, 0.0)),
            black_box(Vec3::new(0.1, 0.5, 0.01)),
            black_box(Vec3::new(0.1, 0.08, 0.0)),
            black_box(Vec3::new(0.2, 0.3, 0.2)),
            &s,
        )
    });
}

#[divan::bench]
fn two_bone_job(b: divan::Bencher<'_, '_>) {
    let sk = humanoid();
    let rest: Vec<Transform> = sk.rest_pose().collect();
    let mut local = rest.clone();
    let mut model = ModelPose::new(sk.joint_count());
    model.update(&sk, &local);
    let job = TwoBoneIkJob {
        chain: TwoBoneChain::new(&sk, 6, 7, 8).unwrap(),
        target: Vec3::new(0.2, 0.3, 0.2),
        end_rotation: Some(Quat::from_rotation_x(0.1)),
        settings: TwoBoneSettings::default(),
    };
    b.bench_local(|| {
        local[6..9].copy_from_slice(&rest[6..9]);
        model.refresh_path(&sk, &local, 6, 8);
        job.run(&sk, black_box(&mut local), &mut model)
    });
}

#[divan::bench]
fn look_at_job(b: divan::Bencher<'_, '_>) {
    let sk = humanoid();
    let rest: Vec<Transform> = sk.rest_pose().collect();
    let mut local = rest.clone();
    let mut model = ModelPose::new(sk.joint_count());
    let job = LookAtJob {
        chain: LookAtChain::new(&[(3, 0.2), (4, 0.3), (5, 0.5)], Vec3::Z).unwrap(),
        target: Some(Vec3::new(0.5, 1.6, 2.0)),
        fov_half_angle: 70f32.to_radians(),
        max_angular_speed: 6.0,
        dt: 1.0 / 60.0,
        weight: 1.0,
    };
    let mut state = LookAtState::default();
    b.bench_local(|| {
        local[3..6].copy_from_slice(&rest[3..6]);
        model.update(&sk, &local);
        state = LookAtState::default();
        job.run(&sk, black_box(&mut local), &mut model, &mut state)
    });
}

#[divan::bench]
fn foot_plant_job(b: divan::Bencher<'_, '_>) {
    let sk = humanoid();
    let rest: Vec<Transform> = sk.rest_pose().collect();
    let mut local = rest.clone();
    let mut model = ModelPose::new(sk.joint_count());
    let job = FootPlantJob {
        hips: 0,
        legs: [
            PlantLeg { chain: TwoBoneChain::new(&sk, 6, 7, 8).unwrap() },
            PlantLeg { chain: TwoBoneChain::new(&sk, 10, 11, 12).unwrap() },
        ],
        up: Vec3::Y,
        knee_hint: Vec3::Z,
        weight: 1.0,
        max_hips_drop: 0.4,
        hips_smoothing: 0.1,
        dt: 1.0 / 60.0,
    };
    let ground = FlatGround { height: -0.05, normal: Vec3::new(0.1, 1.0, 0.0).normalize() };
    let mut state = FootPlantState::default();
    b.bench_local(|| {
        local.copy_from_slice(&rest);
        model.update(&sk, &local);
        job.run(&sk, black_box(&mut local), &mut model, &ground, &mut state)
    });
}

/// The per-character pass: two feet plus look-at (hands idle), including the
/// model-space updates between stages.
#[divan::bench]
fn rig_two_feet_and_look_at(b: divan::Bencher<'_, '_>) {
    let sk = humanoid();
    let roles = BoneRoles::discover(&sk);
    let policy = RigPolicy { hand_on_weapon: false, ..RigPolicy::default() };
    let rig = RigIk::new(&sk, &policy, &roles, RigIkSettings::from_rest(&sk, &roles));
    let mut ctx = rig.new_context();
    let rest: Vec<Transform> = sk.rest_pose().collect();
    let mut local = rest.clone();
    let ground = FlatGround { height: -0.05, normal: Vec3::new(0.1, 1.0, 0.0).normalize() };
    let input = IkInputs {
        locomotion_speed: 0.1,
        ground: Some(std::sync::Arc::new(ground)),
        look_target: Some(Vec3::new(0.5, 1.6, 2.0)),
        ..IkInputs::default()
    };
    b.bench_local(|| {
        local.copy_from_slice(&rest);
        rig.apply(&sk, black_box(&mut local), &mut ctx, &input, 1.0 / 60.0)
    });
}

/// A 16-joint tail hanging back and down from the origin, 6 cm a bone.
fn tail() -> zoa_anim_core::Skeleton {
    let rows: Vec<(&str, Option<u16>, [f32; 3])> =
        (0..16u16).map(|i| ("", i.checked_sub(1), if i == 0 { [0.0; 3] } else { [0.0, -0.02, -0.06] })).collect();
    zoa_test_support::skeletons::from_rows("tail", &rows)
}

/// One chain solve from the rest pose: `(skeleton, chain, target)`, 10
/// sweeps at most, 1 mm tolerance (the rig policy's defaults).
fn bench_chain(b: divan::Bencher<'_, '_>, sk: &zoa_anim_core::Skeleton, chain: &JointChain, target: Vec3) {
    let rest: Vec<Transform> = sk.rest_pose().collect();
    let mut local = rest.clone();
    let mut model = ModelPose::new(sk.joint_count());
    let job = ChainIkJob { chain, target, tip_rotation: None, settings: ChainSettings::default() };
    b.bench_local(|| {
        local.copy_from_slice(&rest);
        model.update(sk, &local);
        job.run(sk, black_box(&mut local), &mut model)
    });
}

#[divan::bench(args = [false, true])]
fn chain_spine(b: divan::Bencher<'_, '_>, limited: bool) {
    let sk = humanoid();
    let limit = if limited { JointLimit::from_degrees(30.0, 10.0) } else { JointLimit::FREE };
    let chain = JointChain::new(&sk, 1, 5).unwrap().with_limit(limit);
    bench_chain(b, &sk, &chain, Vec3::new(0.2, 1.45, 0.15));
}

#[divan::bench(args = [false, true])]
fn chain_tail_16(b: divan::Bencher<'_, '_>, limited: bool) {
    let sk = tail();
    let limit = if limited { JointLimit::from_degrees(30.0, 10.0) } else { JointLimit::FREE };
    let chain = JointChain::new(&sk, 0, 15).unwrap().with_limit(limit);
    bench_chain(b, &sk, &chain, Vec3::new(0.4, 0.1, -0.6));
}

#[divan::bench]
fn discover_roles(b: divan::Bencher<'_, '_>) {
    let sk = humanoid();
    b.bench(|| BoneRoles::discover(black_box(&sk)));
}

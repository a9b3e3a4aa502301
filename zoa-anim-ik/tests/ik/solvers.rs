use zoa_anim_core::Transform;
use zoa_anim_core::glam::{Quat, Vec3};
use zoa_anim_ik::{
    FlatGround, FootPlantJob, FootPlantState, LookAtChain, LookAtJob, LookAtState, ModelPose, TwoBoneChain,
    TwoBoneIkJob, TwoBoneSettings, foot::PlantLeg,
};

use crate::common::{all_finite, humanoid, positions, rest, rotations};

const HIPS: u16 = 0;
const HEAD: u16 = 5;
const NECK: u16 = 4;
const SPINE2: u16 = 3;
const L_LEG: [u16; 3] = [6, 7, 8];
const R_LEG: [u16; 3] = [10, 11, 12];

fn chain(c: [u16; 3]) -> TwoBoneChain {
    TwoBoneChain::new(&humanoid(), c[0], c[1], c[2]).unwrap()
}

#[test]
fn two_bone_reaches_reachable_targets_exactly_and_keeps_lengths() {
    let s = humanoid();
    let rest_pos = positions(&s, &rest(&s));
    let len = |p: &[Vec3], a: u16, b: u16| (p[a as usize] - p[b as usize]).length();
    for target in [
        Vec3::new(0.1, 0.3, 0.2),
        Vec3::new(0.3, 0.5, -0.2),
        Vec3::new(-0.1, 0.9, 0.5),
        Vec3::new(0.1, 0.2, 0.0),
        Vec3::new(0.25, 0.6, 0.1),
    ] {
        let mut local = rest(&s);
        let mut model = ModelPose::new(s.joint_count());
        model.update(&s, &local);
        let job =
            TwoBoneIkJob { chain: chain(L_LEG), target, end_rotation: None, settings: TwoBoneSettings::default() };
        assert!(job.run(&s, &mut local, &mut model));
        let p = positions(&s, &local);
        assert!((p[8] - target).length() < 1e-4, "ankle {} vs target {target}", p[8]);
        assert!((model.get(8).position - target).length() < 1e-4, "model scratch kept in step along the chain");
        assert!((len(&p, 6, 7) - len(&rest_pos, 6, 7)).abs() < 1e-5);
        assert!((len(&p, 7, 8) - len(&rest_pos, 7, 8)).abs() < 1e-5);
        assert!((len(&p, 8, 9) - len(&rest_pos, 8, 9)).abs() < 1e-5, "the toe rides along rigidly");
        assert!(p[7].z > p[6].z.min(p[8].z) - 1e-3, "the knee keeps bending forward");
        assert_eq!(p[10..], rest_pos[10..], "other limbs untouched");
    }
}

#[test]
fn two_bone_weight_blends_and_end_rotation_applies() {
    let s = humanoid();
    let target = Vec3::new(0.2, 0.4, 0.3);
    let run = |weight: f32, end_rotation: Option<Quat>| {
        let mut local = rest(&s);
        let mut model = ModelPose::new(s.joint_count());
        model.update(&s, &local);
        let job = TwoBoneIkJob {
            chain: chain(L_LEG),
            target,
            end_rotation,
            settings: TwoBoneSettings { weight, ..TwoBoneSettings::default() },
        };
        job.run(&s, &mut local, &mut model);
        local
    };
    let zero = run(0.0, None);
    assert_eq!(zero, rest(&s), "weight 0 leaves the animated pose");
    let half = positions(&s, &run(0.5, None))[8];
    let full = positions(&s, &run(1.0, None))[8];
    let start = positions(&s, &rest(&s))[8];
    assert!((half - start).length() > 1e-3 && (half - full).length() > 1e-3, "half weight lies in between");
    let tilt = Quat::from_rotation_x(0.4);
    let r = rotations(&s, &run(1.0, Some(tilt)))[8];
    assert!(r.angle_between(tilt) < 1e-4);
}

#[test]
fn two_bone_ignores_nan_targets_and_zero_length_bones() {
    let s = humanoid();
    let mut local = rest(&s);
    let mut model = ModelPose::new(s.joint_count());
    model.update(&s, &local);
    let nan = TwoBoneIkJob {
        chain: chain(L_LEG),
        target: Vec3::new(f32::NAN, 0.0, 0.0),
        end_rotation: None,
        settings: TwoBoneSettings::default(),
    };
    assert!(!nan.run(&s, &mut local, &mut model));
    assert_eq!(local, rest(&s));

    // Collapse the shin to zero length: refused, pose unchanged.
    local[7].translation = Vec3::ZERO;
    let before = local.clone();
    model.update(&s, &local);
    let job = TwoBoneIkJob { target: Vec3::new(0.1, 0.3, 0.1), ..nan };
    assert!(!job.run(&s, &mut local, &mut model));
    assert_eq!(local, before);

    // Target exactly at the hip: no NaN.
    let mut local = rest(&s);
    model.update(&s, &local);
    let at_root = TwoBoneIkJob { target: model.get(6).position, ..nan };
    at_root.run(&s, &mut local, &mut model);
    assert!(all_finite(&local));
}

fn look_chain() -> LookAtChain {
    LookAtChain::new(&[(SPINE2, 0.2), (NECK, 0.3), (HEAD, 0.5)], Vec3::Z).unwrap()
}

fn head_forward(local: &[Transform]) -> Vec3 {
    rotations(&humanoid(), local)[HEAD as usize] * Vec3::Z
}

fn look_step(target: Option<Vec3>, dt: f32, speed: f32, state: &mut LookAtState) -> Vec<Transform> {
    let s = humanoid();
    let mut local = rest(&s);
    let mut model = ModelPose::new(s.joint_count());
    model.update(&s, &local);
    let job = LookAtJob {
        chain: look_chain(),
        target,
        fov_half_angle: 60f32.to_radians(),
        max_angular_speed: speed,
        dt,
        weight: 1.0,
    };
    job.run(&s, &mut local, &mut model, state);
    local
}

#[test]
fn look_at_turns_inside_the_cone_and_ignores_targets_outside() {
    let s = humanoid();
    let head = positions(&s, &rest(&s))[HEAD as usize];
    // 40° to the left: inside the 60° cone.
    let inside = head + Vec3::new(40f32.to_radians().sin(), 0.0, 40f32.to_radians().cos()) * 2.0;
    let mut state = LookAtState::default();
    let mut local = rest(&s);
    for _ in 0..60 {
        local = look_step(Some(inside), 1.0 / 30.0, 2.0 * std::f32::consts::PI, &mut state);
    }
    let dir = (inside - positions(&s, &local)[HEAD as usize]).normalize();
    assert!(head_forward(&local).angle_between(dir) < 0.03, "head looks at the target");
    assert!(rotations(&s, &local)[NECK as usize].angle_between(Quat::IDENTITY) > 0.05, "the neck shares the turn");

    // 80° to the left: outside the cone; the head returns to neutral.
    let outside = head + Vec3::new(80f32.to_radians().sin(), 0.0, 80f32.to_radians().cos()) * 2.0;
    for _ in 0..60 {
        local = look_step(Some(outside), 1.0 / 30.0, 2.0 * std::f32::consts::PI, &mut state);
    }
    assert!(state.offset.angle_between(Quat::IDENTITY) < 1e-4);
    assert!(head_forward(&local).angle_between(Vec3::Z) < 1e-4);

    // Straight behind: never turns, whatever the time.
    let mut fresh = LookAtState::default();
    let behind = look_step(Some(head - Vec3::Z * 2.0), 10.0, 100.0, &mut fresh);
    assert_eq!(behind, rest(&s));
}

#[test]
fn look_at_respects_the_maximum_angular_speed() {
    let s = humanoid();
    let head = positions(&s, &rest(&s))[HEAD as usize];
    let target = head + Vec3::new(0.5f32.sin(), 0.0, 0.5f32.cos());
    let mut state = LookAtState::default();
    look_step(Some(target), 0.1, 1.0, &mut state);
    let turned = state.offset.angle_between(Quat::IDENTITY);
    assert!((turned - 0.1).abs() < 1e-4, "0.1 s at 1 rad/s turns 0.1 rad, got {turned}");
    let local = look_step(Some(Vec3::NAN), 0.1, 1.0, &mut state);
    assert!((state.offset.angle_between(Quat::IDENTITY) - turned).abs() < 1e-6, "a NaN target is ignored");
    assert!(all_finite(&local));
}

fn plant(ground: FlatGround, weight: f32, state: &mut FootPlantState) -> Vec<Transform> {
    let s = humanoid();
    let mut local = rest(&s);
    let mut model = ModelPose::new(s.joint_count());
    model.update(&s, &local);
    let job = FootPlantJob {
        hips: HIPS,
        legs: [PlantLeg { chain: chain(L_LEG) }, PlantLeg { chain: chain(R_LEG) }],
        up: Vec3::Y,
        knee_hint: Vec3::Z,
        weight,
        max_hips_drop: 0.5,
        hips_smoothing: 0.0,
        dt: 1.0 / 60.0,
    };
    job.run(&s, &mut local, &mut model, &ground, state);
    local
}

#[test]
fn foot_plant_puts_feet_on_raised_ground_and_aligns_them() {
    let s = humanoid();
    let rest_pos = positions(&s, &rest(&s));
    let raised = FlatGround { height: 0.1, normal: Vec3::Y };
    let local = plant(raised, 1.0, &mut FootPlantState::default());
    let p = positions(&s, &local);
    for foot in [8usize, 12] {
        assert!((p[foot] - (rest_pos[foot] + Vec3::Y * 0.1)).length() < 1e-4, "foot {foot} at {}", p[foot]);
    }
    assert_eq!(p[0], rest_pos[0], "reachable: the hips stay");

    let slope = Quat::from_rotation_x(0.2) * Vec3::Y;
    let local = plant(FlatGround { height: 0.0, normal: slope }, 1.0, &mut FootPlantState::default());
    let r = rotations(&s, &local)[8];
    assert!((r * Vec3::Y).angle_between(slope) < 1e-4, "foot aligned to the ground normal");
}

#[test]
fn foot_plant_lowers_the_hips_when_a_foot_cannot_reach() {
    let s = humanoid();
    let rest_pos = positions(&s, &rest(&s));
    let lowered = FlatGround { height: -0.15, normal: Vec3::Y };
    let local = plant(lowered, 1.0, &mut FootPlantState::default());
    let p = positions(&s, &local);
    assert!(p[0].y < rest_pos[0].y - 0.1, "hips came down: {}", p[0].y);
    for foot in [8usize, 12] {
        assert!((p[foot] - (rest_pos[foot] - Vec3::Y * 0.15)).length() < 2e-3, "foot {foot} at {}", p[foot]);
    }
}

#[test]
fn foot_plant_engagement_follows_the_blend_in_speed() {
    let s = humanoid();
    let rest_pos = positions(&s, &rest(&s));
    let raised = FlatGround { height: 0.1, normal: Vec3::Y };
    let blend_in = 0.5;
    let mut lifts = Vec::new();
    for speed in [0.0, 0.1, 0.25, 0.4, 0.5, 0.8, 1.0] {
        let w = zoa_anim_ik::foot_plant_weight(speed, blend_in);
        let local = plant(raised, w, &mut FootPlantState::default());
        lifts.push(positions(&s, &local)[8].y - rest_pos[8].y);
        if speed >= blend_in {
            assert_eq!(local, rest(&s), "faded out at speed {speed}");
        }
    }
    assert!((lifts[0] - 0.1).abs() < 1e-4, "fully engaged at rest");
    assert!(lifts.windows(2).all(|w| w[1] <= w[0] + 1e-6), "monotone: {lifts:?}");
    assert!(lifts[2] > 0.02 && lifts[2] < 0.08, "half way at half the blend-in speed: {}", lifts[2]);
}

use proptest::prelude::*;
use zoa_anim_core::glam::{Quat, Vec3};
use zoa_anim_ik::{
    FlatGround, FootPlantJob, FootPlantState, HandTarget, LookAtChain, LookAtJob, LookAtState, ModelPose, TwoBoneChain,
    TwoBoneIkJob, TwoBoneSettings, foot::PlantLeg, solve_two_bone,
};

use crate::common::{HUMANOID, all_finite, humanoid, positions, rest, skeleton};

fn coord() -> impl Strategy<Value = f32> {
    prop_oneof![
        8 => -3.0f32..3.0,
        1 => Just(0.0f32),
        1 => prop_oneof![Just(f32::NAN), Just(f32::INFINITY), Just(1e-9f32)],
    ]
}

fn point() -> impl Strategy<Value = Vec3> {
    (coord(), coord(), coord()).prop_map(|(x, y, z)| Vec3::new(x, y, z))
}

/// Chains that are often degenerate: coincident joints, collinear joints, random ones.
fn chain_points() -> impl Strategy<Value = (Vec3, Vec3, Vec3)> {
    prop_oneof![
        (point(), point(), point()),
        (point(), point()).prop_map(|(a, b)| (a, a, b)),
        (point(), point()).prop_map(|(a, b)| (a, b, b)),
        (point(), point(), 0.0f32..3.0).prop_map(|(a, b, t)| (a, b, a + (b - a) * t)),
    ]
}

fn settings() -> impl Strategy<Value = TwoBoneSettings> {
    (proptest::option::of(point()), point(), 0.0f32..0.5, -0.5f32..1.5)
        .prop_map(|(pole, bend_hint, soft, weight)| TwoBoneSettings { pole, bend_hint, soft, weight })
}

fn rotation() -> impl Strategy<Value = Quat> {
    (-3.2f32..3.2, -3.2f32..3.2, -3.2f32..3.2)
        .prop_map(|(x, y, z)| Quat::from_euler(zoa_anim_core::glam::EulerRot::XYZ, x, y, z))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2048, ..ProptestConfig::default() })]

    #[test]
    fn two_bone_math_never_yields_nan_and_keeps_lengths(
        (a, b, c) in chain_points(), target in point(), s in settings()
    ) {
        if let Some(sol) = solve_two_bone(a, b, c, target, &s) {
            prop_assert!(sol.upper_delta.is_finite() && sol.lower_delta.is_finite());
            prop_assert!(sol.middle.is_finite() && sol.end.is_finite());
            let (lab, lbc) = ((b - a).length(), (c - b).length());
            let tol = 1e-5 * (1.0 + lab + lbc + (target - a).length());
            prop_assert!(((sol.middle - a).length() - lab).abs() < tol * 10.0);
            prop_assert!(((sol.end - sol.middle).length() - lbc).abs() < tol * 10.0);
            let b2 = a + sol.upper_delta * (b - a);
            prop_assert!((b2 - sol.middle).length() < 1e-3 * (1.0 + lab));
            if sol.reachable && s.soft == 0.0 && (target - a).length() > 1e-3 {
                let c2 = b2 + sol.lower_delta * (sol.upper_delta * (c - b));
                prop_assert!((c2 - target).length() < 1e-4 * (1.0 + lab + lbc), "{c2} vs {target}");
            }
        }
    }

    #[test]
    fn two_bone_job_on_random_poses_keeps_lengths_and_stays_finite(
        rots in proptest::collection::vec(rotation(), 22), target in point(), s in settings()
    ) {
        let sk = humanoid();
        let mut local = rest(&sk);
        for (t, r) in local.iter_mut().zip(rots) {
            t.rotation = r;
        }
        let before = positions(&sk, &local);
        let mut model = ModelPose::new(sk.joint_count());
        model.update(&sk, &local);
        let chain = TwoBoneChain::new(&sk, 15, 16, 17).unwrap();
        let job = TwoBoneIkJob { chain, target, end_rotation: None, settings: s };
        let changed = job.run(&sk, &mut local, &mut model);
        prop_assert!(all_finite(&local));
        let after = positions(&sk, &local);
        for (x, y) in [(15usize, 16usize), (16, 17)] {
            prop_assert!(((after[x] - after[y]).length() - (before[x] - before[y]).length()).abs() < 1e-5);
        }
        if !target.is_finite() {
            prop_assert!(!changed);
            prop_assert_eq!(before, after);
        }
    }

    #[test]
    fn look_at_and_foot_plant_stay_finite(
        target in proptest::option::of(point()), dt in 0.0f32..1.0, fov in -1.0f32..4.0,
        height in coord(), normal in point(), weight in -0.5f32..1.5
    ) {
        let sk = humanoid();
        let mut local = rest(&sk);
        let mut model = ModelPose::new(sk.joint_count());
        model.update(&sk, &local);
        let chain = LookAtChain::new(&[(3, 0.2), (4, 0.3), (5, 0.5)], Vec3::Z).unwrap();
        let mut state = LookAtState::default();
        let job = LookAtJob { chain, target, fov_half_angle: fov, max_angular_speed: 5.0, dt, weight };
        job.run(&sk, &mut local, &mut model, &mut state);
        prop_assert!(all_finite(&local) && state.offset.is_finite());

        model.update(&sk, &local);
        let legs = [
            PlantLeg { chain: TwoBoneChain::new(&sk, 6, 7, 8).unwrap() },
            PlantLeg { chain: TwoBoneChain::new(&sk, 10, 11, 12).unwrap() },
        ];
        let plant = FootPlantJob {
            hips: 0, legs, up: Vec3::Y, knee_hint: Vec3::Z, weight, max_hips_drop: 0.4, hips_smoothing: 0.1, dt,
        };
        let mut feet = FootPlantState::default();
        plant.run(&sk, &mut local, &mut model, &FlatGround { height, normal }, &mut feet);
        prop_assert!(all_finite(&local) && feet.hips_drop.is_finite());
    }
}

/// Bone offsets that are often degenerate: zero length, tiny, or huge.
fn offset() -> impl Strategy<Value = Option<[f32; 3]>> {
    prop_oneof![
        3 => Just(None),
        1 => Just(Some([0.0; 3])),
        1 => Just(Some([1e-8, 0.0, 0.0])),
        1 => (-2.0f32..2.0, -2.0f32..2.0, -2.0f32..2.0).prop_map(|(x, y, z)| Some([x, y, z])),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn the_rig_pass_stays_finite_on_degenerate_rigs(
        offsets in proptest::collection::vec(offset(), 22),
        rots in proptest::collection::vec(rotation(), 22),
        look in proptest::option::of(point()), grip in point(), ledge in point(),
        height in coord(), normal in point(), speed in -0.5f32..1.5, dt in 0.0f32..0.5,
    ) {
        let rows: Vec<(&str, Option<u16>, [f32; 3])> = HUMANOID
            .iter()
            .zip(&offsets)
            .map(|(&(n, p, t), o)| (n, p, o.unwrap_or(t)))
            .collect();
        let sk = skeleton(&rows);
        let roles = zoa_anim_ik::BoneRoles::discover(&sk);
        let policy = zoa_anim_core::RigPolicy {
            climb_hand: true,
            chains: vec![zoa_anim_core::RigChain::new("spine", "Spine", "Head")],
            ..Default::default()
        };
        let rig = zoa_anim_ik::RigIk::new(&sk, &policy, &roles, zoa_anim_ik::RigIkSettings::from_rest(&sk, &roles));
        let mut ctx = rig.new_context();
        let mut local = rest(&sk);
        for (t, r) in local.iter_mut().zip(rots) {
            t.rotation = r;
        }
        let weapon = zoa_anim_core::contracts::PoseSnapshot {
            targets: vec![zoa_anim_core::contracts::PoseTargetData {
                target: zoa_anim_ik::LEFT_HAND_GRIP,
                position: grip.to_array(),
                rotation: Some([0.0, 0.0, 0.0, 1.0]),
                weight: 1.0,
                space: zoa_anim_core::contracts::PoseSpace::Model,
            }],
            weight: 1.0,
        };
        let ground = std::sync::Arc::new(FlatGround { height, normal });
        let hand = HandTarget { position: ledge, rotation: None, weight: 1.0 };
        let input = zoa_anim_ik::IkInputs {
            locomotion_speed: speed,
            ground: Some(ground),
            look_target: look,
            weapon_pose: Some(weapon),
            ledge_targets: [Some(hand), Some(hand)],
            chain_targets: [Some(HandTarget { position: look.unwrap_or(ledge), ..hand }); zoa_anim_ik::MAX_RIG_CHAINS],
            hand_on_weapon_weight: 1.0,
        };
        for _ in 0..3 {
            rig.apply(&sk, &mut local, &mut ctx, &input, dt).unwrap();
            prop_assert!(all_finite(&local));
        }
    }
}

use proptest::prelude::*;
use zoa_anim_core::glam::{EulerRot, Mat4, Quat, Vec3};
use zoa_anim_core::{RigChain, RigPolicy, Skeleton, Transform};
use zoa_anim_ik::chain::{MAX_CHAIN_JOINTS, swing_twist_angles};
use zoa_anim_ik::{
    BoneRoles, ChainIkJob, ChainProblem, ChainSettings, HandTarget, IkInputs, JointChain, JointLimit, MAX_RIG_CHAINS,
    ModelPose, RigIk, RigIkSettings, chain_availability,
};

use crate::common::{all_finite, humanoid, positions, rest, rotations, skeleton};

/// A chain of `offsets.len() + 1` joints: `Base` at the origin, then one
/// joint per offset (`J1`, `J2`, …), each the previous one's child.
fn rope(offsets: &[Vec3]) -> Skeleton {
    let names: Vec<String> =
        (0..=offsets.len()).map(|i| if i == 0 { "Base".to_owned() } else { format!("J{i}") }).collect();
    let mut rows = vec![(names[0].as_str(), None, [0.0; 3])];
    for (i, o) in offsets.iter().enumerate() {
        rows.push((names[i + 1].as_str(), Some(i as u16), o.to_array()));
    }
    skeleton(&rows)
}

fn whole(s: &Skeleton) -> JointChain {
    JointChain::new(s, 0, s.joint_count() - 1).unwrap()
}

fn solve(
    s: &Skeleton,
    chain: &JointChain,
    pose: &[Transform],
    target: Vec3,
    settings: ChainSettings,
) -> Vec<Transform> {
    solve_with(s, chain, pose, target, None, settings).0
}

fn solve_with(
    s: &Skeleton,
    chain: &JointChain,
    pose: &[Transform],
    target: Vec3,
    tip_rotation: Option<Quat>,
    settings: ChainSettings,
) -> (Vec<Transform>, bool) {
    let mut local = pose.to_vec();
    let mut model = ModelPose::new(s.joint_count());
    model.update(s, &local);
    let changed = ChainIkJob { chain, target, tip_rotation, settings }.run(s, &mut local, &mut model);
    let mut fresh = ModelPose::new(s.joint_count());
    fresh.update(s, &local);
    for &j in chain.joints() {
        let (a, b) = (model.get(j as usize), fresh.get(j as usize));
        assert!(a.position.distance(b.position) < 1e-4, "the job leaves the chain current in the scratch");
    }
    (local, changed)
}

/// Each joint's bone axis in its animated frame, as the module docs define it.
fn axes(chain: &JointChain, animated: &[Transform]) -> Vec<Vec3> {
    let j = chain.joints();
    let mut out: Vec<Vec3> = j.windows(2).map(|w| animated[w[1] as usize].translation.normalize()).collect();
    let last = *out.last().unwrap();
    out.push(animated[chain.tip() as usize].rotation.inverse() * last);
    out
}

fn reach(offsets: &[Vec3]) -> f32 {
    offsets.iter().map(|o| o.length()).sum()
}

/// The largest angle between two poses' local rotations, radians (via the
/// chord, which stays precise for small angles where `acos` does not).
fn max_angle(a: &[Transform], b: &[Transform]) -> f32 {
    let angle = |x: zoa_anim_core::glam::Quat, y: zoa_anim_core::glam::Quat| {
        let chord = (x - y).length().min((x + y).length());
        4.0 * (chord * 0.5).asin()
    };
    a.iter().zip(b).map(|(x, y)| angle(x.rotation, y.rotation)).fold(0.0, f32::max)
}

fn offsets() -> impl Strategy<Value = Vec<Vec3>> {
    let bone = (0.1f32..0.5, -1.0f32..1.0, 0.2f32..1.0, -1.0f32..1.0)
        .prop_map(|(len, x, y, z)| Vec3::new(x, y, z).normalize() * len);
    proptest::collection::vec(bone, 2..=6)
}

/// A moderate local rotation (up to about 0.8 rad per axis).
fn bend() -> impl Strategy<Value = Quat> {
    (-0.8f32..0.8, -0.8f32..0.8, -0.8f32..0.8).prop_map(|(x, y, z)| Quat::from_euler(EulerRot::XYZ, x, y, z))
}

/// A turn well within a 60° swing, 30° twist limit.
fn small_bend() -> impl Strategy<Value = Quat> {
    (-0.3f32..0.3, -0.2f32..0.2, -0.3f32..0.3).prop_map(|(x, y, z)| Quat::from_euler(EulerRot::XYZ, x, y, z))
}

fn posed(s: &Skeleton, bends: &[Quat]) -> Vec<Transform> {
    let mut local = rest(s);
    for (t, r) in local.iter_mut().zip(bends) {
        t.rotation = *r;
    }
    local
}

fn settings(iterations: u32, tolerance: f32) -> ChainSettings {
    ChainSettings { iterations, tolerance, weight: 1.0 }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    /// A target some other pose of the same chain puts the tip on is reached.
    #[test]
    fn reaches_reachable_targets_within_tolerance(
        offs in offsets(), animated in proptest::collection::vec(bend(), 7), other in proptest::collection::vec(bend(), 7),
    ) {
        let s = rope(&offs);
        let chain = whole(&s);
        let tip = chain.tip() as usize;
        let target = positions(&s, &posed(&s, &other))[tip];
        prop_assume!((0.25..0.98).contains(&(target.length() / reach(&offs))));
        let pose = posed(&s, &animated);
        let out = solve(&s, &chain, &pose, target, settings(64, 1e-3));
        let got = positions(&s, &out)[tip];
        prop_assert!(got.distance(target) <= 1e-3 + 1e-5, "{got} vs {target}");
        // Only rotations are written: every bone keeps its length.
        prop_assert!(out.iter().zip(&pose).all(|(a, b)| a.translation == b.translation && a.scale == b.scale));
    }

    /// Limits the free solve stays within change nothing: a limited chain
    /// reaches what a free one reaches, as long as its limits are wide
    /// enough for the solution.
    #[test]
    fn limits_the_solution_stays_within_change_nothing(
        offs in offsets(), animated in proptest::collection::vec(bend(), 7),
        within in proptest::collection::vec(small_bend(), 7),
    ) {
        let s = rope(&offs);
        let limit = JointLimit::from_degrees(60.0, 30.0);
        let (free, limited) = (whole(&s), whole(&s).with_limit(limit));
        let pose = posed(&s, &animated);
        let other: Vec<Quat> = animated.iter().zip(&within).map(|(a, w)| *a * *w).collect();
        let target = positions(&s, &posed(&s, &other))[free.tip() as usize];
        let solved = solve(&s, &free, &pose, target, settings(16, 1e-3));
        let inside = free.joints().iter().zip(axes(&free, &pose)).all(|(&j, axis)| {
            let (sw, tw) = swing_twist_angles(pose[j as usize].rotation.inverse() * solved[j as usize].rotation, axis);
            sw < limit.swing() - 1e-3 && tw.abs() < limit.twist() - 1e-3
        });
        prop_assume!(inside);
        let out = solve(&s, &limited, &pose, target, settings(16, 1e-3));
        prop_assert!(max_angle(&out, &solved) < 1e-4, "{}", max_angle(&out, &solved));
    }

    /// With limits on, no joint ever swings or twists past its limit from
    /// its animated orientation, whatever the target, tip rotation and weight.
    #[test]
    fn never_violates_the_limits(
        offs in offsets(), animated in proptest::collection::vec(bend(), 7),
        target in (-2.0f32..2.0, -2.0f32..2.0, -2.0f32..2.0), tip in proptest::option::of(bend()),
        swing in 0.0f32..90.0, twist in 0.0f32..90.0, weight in 0.0f32..=1.0, iterations in 1u32..20,
    ) {
        let s = rope(&offs);
        let limit = JointLimit::from_degrees(swing, twist);
        let chain = whole(&s).with_limit(limit);
        let pose = posed(&s, &animated);
        let target = Vec3::new(target.0, target.1, target.2);
        let (out, _) = solve_with(&s, &chain, &pose, target, tip, ChainSettings { iterations, tolerance: 0.0, weight });
        prop_assert!(all_finite(&out));
        for (&j, axis) in chain.joints().iter().zip(axes(&chain, &pose)) {
            let j = j as usize;
            let (sw, tw) = swing_twist_angles(pose[j].rotation.inverse() * out[j].rotation, axis);
            prop_assert!(sw <= limit.swing() + 1e-3, "joint {j}: swing {sw} > {}", limit.swing());
            prop_assert!(tw.abs() <= limit.twist() + 1e-3, "joint {j}: twist {tw} > {}", limit.twist());
        }
    }

    /// A small move of the target moves the pose a little, and a ten times
    /// smaller move several times less (a jump would not shrink), with fixed
    /// sweeps and no early stop; targets in front of the chain as animated
    /// (within a radian of its tip's direction from the root), off its
    /// joints. The bound on the size allows for configurations near a
    /// singular one, where a redundant chain's pose is sensitive to the
    /// target; the 1e-3 rad (0.06°) slack for where the solve decides that a
    /// sweep made no headway and stops.
    #[test]
    fn continuous_in_the_target(
        offs in offsets(), animated in proptest::collection::vec(bend(), 7),
        dir in (-1.0f32..1.0, 0.3f32..1.0, -1.0f32..1.0), dist in 0.3f32..0.9,
        nudge in (-1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0), limited in any::<bool>(),
    ) {
        let s = rope(&offs);
        let limit = if limited { JointLimit::from_degrees(40.0, 20.0) } else { JointLimit::FREE };
        let chain = whole(&s).with_limit(limit);
        let pose = posed(&s, &animated);
        let target = Vec3::new(dir.0, dir.1, dir.2).normalize() * dist * reach(&offs);
        let animated_at = positions(&s, &pose);
        prop_assume!(animated_at.iter().all(|p| p.distance(target) > 0.05));
        // In front of the chain as animated: a target behind it is the CCD
        // singularity (the tip must turn half a circle, either way).
        prop_assume!(target.angle_between(animated_at[chain.tip() as usize]) < 1.0);
        let nudge = Vec3::new(nudge.0, nudge.1, nudge.2).clamp_length_max(1.0);
        let a = solve(&s, &chain, &pose, target, settings(8, 0.0));
        let change = |by: f32| max_angle(&a, &solve(&s, &chain, &pose, target + nudge * by, settings(8, 0.0)));
        let (d4, d5) = (change(1e-4), change(1e-5));
        prop_assert!(d4 < 0.1, "a 0.1 mm target move turned a joint by {d4} rad");
        prop_assert!(d5 <= 0.3 * d4 + 1e-3, "a 10 µm move turned a joint by {d5} rad, a 0.1 mm move by {d4}");
    }

    /// Weight 0 leaves the pose bit for bit as animated.
    #[test]
    fn weight_zero_leaves_the_pose_bit_identical(
        offs in offsets(), animated in proptest::collection::vec(bend(), 7),
        target in (-2.0f32..2.0, -2.0f32..2.0, -2.0f32..2.0), tip in proptest::option::of(bend()),
    ) {
        let s = rope(&offs);
        let chain = whole(&s);
        let pose = posed(&s, &animated);
        let target = Vec3::new(target.0, target.1, target.2);
        let (out, changed) =
            solve_with(&s, &chain, &pose, target, tip, ChainSettings { weight: 0.0, ..ChainSettings::default() });
        prop_assert!(!changed);
        let bits = |p: &[Transform]| p.iter().map(|t| t.rotation.to_array().map(f32::to_bits)).collect::<Vec<_>>();
        prop_assert_eq!(bits(&out), bits(&pose));
    }

    /// Out of reach, at full weight, the chain straightens and points at the target.
    #[test]
    fn an_unreachable_target_makes_the_chain_point_at_it(
        offs in offsets(), animated in proptest::collection::vec(bend(), 7),
        dir in (-1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0), beyond in 1.2f32..4.0,
    ) {
        let dir = Vec3::new(dir.0, dir.1, dir.2);
        prop_assume!(dir.length() > 0.2);
        let s = rope(&offs);
        let chain = whole(&s);
        let pose = posed(&s, &animated);
        let target = dir.normalize() * beyond * reach(&offs);
        let out = solve(&s, &chain, &pose, target, settings(64, 1e-3));
        let p = positions(&s, &out);
        let tip = p[chain.tip() as usize];
        let angle = tip.angle_between(target);
        prop_assert!(angle < 1f32.to_radians(), "the tip is {} degrees off the target's direction", angle.to_degrees());
        prop_assert!(tip.length() > 0.995 * reach(&offs), "nearly straight: {} of {}", tip.length(), reach(&offs));
    }
}

#[test]
fn degenerate_input_leaves_the_pose_as_animated() {
    let offs = [Vec3::new(0.0, 0.3, 0.0), Vec3::new(0.0, 0.3, 0.1), Vec3::new(0.1, 0.2, 0.0)];
    let s = rope(&offs);
    let chain = whole(&s);
    let pose = posed(&s, &[Quat::from_rotation_z(0.3), Quat::from_rotation_x(0.2)]);
    for target in [Vec3::NAN, Vec3::new(f32::INFINITY, 0.0, 0.0), Vec3::ZERO, Vec3::splat(1e-8)] {
        let (out, changed) = solve_with(&s, &chain, &pose, target, Some(Quat::IDENTITY), ChainSettings::default());
        assert!(!changed, "{target}");
        assert_eq!(out, pose, "{target}: target non-finite or at the root");
    }
    let zero = rope(&[Vec3::new(0.0, 0.3, 0.0), Vec3::ZERO, Vec3::new(0.1, 0.2, 0.0)]);
    let zpose = rest(&zero);
    let (out, changed) = solve_with(&zero, &whole(&zero), &zpose, Vec3::X, None, ChainSettings::default());
    assert!(!changed && out == zpose, "a zero-length bone");
    let none = ChainSettings { iterations: 0, ..ChainSettings::default() };
    assert!(!solve_with(&s, &chain, &pose, Vec3::X, None, none).1, "no iterations");
    let nan_weight = ChainSettings { weight: f32::NAN, ..ChainSettings::default() };
    assert!(!solve_with(&s, &chain, &pose, Vec3::X, None, nan_weight).1, "NaN weight counts as 0");
}

#[test]
fn the_tip_takes_the_target_rotation_within_its_limit_and_half_weight_goes_half_way() {
    let offs = [Vec3::new(0.0, 0.4, 0.0), Vec3::new(0.0, 0.4, 0.0), Vec3::new(0.0, 0.4, 0.0)];
    let s = rope(&offs);
    let chain = whole(&s);
    let pose = rest(&s);
    let target = Vec3::new(0.5, 0.8, 0.3);
    let wanted = Quat::from_rotation_y(0.7) * Quat::from_rotation_x(0.4);
    let (out, changed) = solve_with(&s, &chain, &pose, target, Some(wanted), settings(32, 1e-4));
    assert!(changed);
    assert!(positions(&s, &out)[3].distance(target) < 1e-4);
    assert!(rotations(&s, &out)[3].angle_between(wanted) < 1e-3, "free tip takes the rotation");

    let tight = chain.with_limit(JointLimit::from_degrees(180.0, 5.0));
    let (out, _) = solve_with(&s, &tight, &pose, target, Some(wanted), settings(32, 1e-4));
    let (_, twist) = swing_twist_angles(out[3].rotation, Vec3::Y);
    assert!(twist.abs() <= 5f32.to_radians() + 1e-4, "the tip's twist is limited: {twist}");

    let full = solve(&s, &chain, &pose, target, settings(32, 1e-4));
    let half = solve(&s, &chain, &pose, target, ChainSettings { weight: 0.5, ..settings(32, 1e-4) });
    for j in 0..3 {
        let (a, h) =
            (pose[j].rotation.angle_between(full[j].rotation), pose[j].rotation.angle_between(half[j].rotation));
        assert!((h - a * 0.5).abs() < 1e-3, "joint {j}: half weight turns half as far ({h} vs {a})");
    }
}

#[test]
fn chain_length_is_budgeted() {
    let long: Vec<Vec3> = vec![Vec3::new(0.0, 0.1, 0.0); MAX_CHAIN_JOINTS];
    let rows: Vec<(String, Option<u16>, [f32; 3])> = std::iter::once(("j0".to_owned(), None, [0.0; 3]))
        .chain(long.iter().enumerate().map(|(i, o)| (format!("j{}", i + 1), Some(i as u16), o.to_array())))
        .collect();
    let rows: Vec<(&str, Option<u16>, [f32; 3])> = rows.iter().map(|(n, p, t)| (n.as_str(), *p, *t)).collect();
    let s = skeleton(&rows);
    assert_eq!(JointChain::new(&s, 1, MAX_CHAIN_JOINTS).unwrap().len(), MAX_CHAIN_JOINTS);
    let e = JointChain::new(&s, 0, MAX_CHAIN_JOINTS).unwrap_err();
    assert_eq!(e, ChainProblem::TooLong { joints: MAX_CHAIN_JOINTS + 1 });
    assert_eq!(e.to_string(), "33 joints from root to tip; the budget `ik.chain_joints` is 32");
}

fn spine_policy() -> RigPolicy {
    let mut spine = RigChain::new("spine", "Spine", "Head");
    spine.iterations = 32;
    spine.tolerance = 1e-4;
    RigPolicy {
        foot_plant: false,
        look_at: false,
        hand_on_weapon: false,
        chains: vec![
            RigChain::new("tail", "Tail1", "Tail5"),
            spine,
            RigChain::new("crossed", "LeftArm", "RightHand"),
            RigChain::new("arm", "LeftShoulder", "LeftHand"),
        ],
        ..RigPolicy::default()
    }
}

#[test]
fn a_rig_policy_chain_moves_the_tip_to_the_target_and_reports_the_rest() {
    let s = humanoid();
    let policy = spine_policy();
    let (rig, _, problems) = RigIk::for_policy(&s, &policy);
    assert!(problems.is_empty());
    assert_eq!(rig.active_chain_count(), 2);
    let report: Vec<(&str, usize, Option<String>)> =
        rig.chains().iter().map(|c| (c.name.as_str(), c.joints, c.problem.as_ref().map(|p| p.to_string()))).collect();
    assert_eq!(
        report,
        [
            ("tail", 0, Some("the skeleton has no bone `Tail1`".to_owned())),
            ("spine", 5, None),
            ("crossed", 0, Some("`RightHand` does not lie below `LeftArm`".to_owned())),
            ("arm", 4, None),
        ]
    );
    assert_eq!(chain_availability(&s, &policy), rig.chains(), "one check for set-up, validate and the CLI");
    assert_eq!((rig.chain_index("spine"), rig.chain_index("arm"), rig.chain_index("nope")), (Some(1), Some(3), None));

    let mut ctx = rig.new_context();
    let animated = rest(&s);
    let mut local = animated.clone();
    let head = Vec3::new(0.15, 1.5, 0.1);
    let mut input = IkInputs::default();
    // A target for a chain that did not compile is ignored.
    input.chain_targets[0] = Some(HandTarget { position: Vec3::ONE, rotation: None, weight: 1.0 });
    rig.apply(&s, &mut local, &mut ctx, &input, 1.0 / 60.0).unwrap();
    assert_eq!(local, animated, "no target for a compiled chain: nothing moves");

    input.chain_targets[1] = Some(HandTarget { position: head, rotation: None, weight: 1.0 });
    rig.apply(&s, &mut local, &mut ctx, &input, 1.0 / 60.0).unwrap();
    let p = positions(&s, &local);
    assert!(p[5].distance(head) < 1e-3, "the head reaches {head}: {}", p[5]);
    assert_eq!(local[0], animated[0], "the chain's root's parent stays");
    assert!(local[6..].iter().zip(&animated[6..]).all(|(a, b)| a == b), "legs and arms are not chain joints");
    assert!(p[17].distance(positions(&s, &animated)[17]) > 0.01, "the arms ride on the spine");
    // The report names the chain that ran, its tip, target and what is left to reach.
    let mut model = zoa_anim_ik::ModelPose::new(s.joint_count());
    model.update(&s, &local);
    let matrices: Vec<_> = (0..s.joint_count())
        .map(|j| {
            let m = model.get(j);
            Mat4::from_scale_rotation_translation(m.scale, m.rotation, m.position)
        })
        .collect();
    let report = rig.report(&ctx, &input, &matrices);
    let goals: Vec<_> = report.chain_goals().collect();
    assert_eq!(goals.len(), 1, "only the compiled chain with a target: {goals:?}");
    let g = goals[0];
    assert_eq!((g.chain, g.joint, g.target, g.weight), (1, 5, head, 1.0));
    assert!((g.error - p[5].distance(head)).abs() < 1e-5 && g.error < 1e-3, "{g:?}");
    assert!(report.goals().is_empty(), "no behaviour of the four ran");

    // The target's weight scales the chain's.
    let mut faded = animated.clone();
    input.chain_targets[1] = Some(HandTarget { position: head, rotation: None, weight: 0.0 });
    rig.apply(&s, &mut faded, &mut ctx, &input, 1.0 / 60.0).unwrap();
    assert_eq!(faded, animated);
}

#[test]
fn chains_past_the_budget_are_compiled_out() {
    let s = humanoid();
    let policy = RigPolicy {
        chains: (0..=MAX_RIG_CHAINS).map(|i| RigChain::new(format!("c{i}"), "Spine", "Head")).collect(),
        ..RigPolicy::default()
    };
    let rig = RigIk::new(&s, &policy, &BoneRoles::discover(&s), RigIkSettings::default());
    assert_eq!(rig.active_chain_count(), MAX_RIG_CHAINS);
    let last = rig.chains().last().unwrap();
    assert_eq!(last.problem, Some(ChainProblem::OverChainBudget));
    assert_eq!(last.problem.as_ref().unwrap().to_string(), "more chains than the budget `ik.chains` of 8");
}

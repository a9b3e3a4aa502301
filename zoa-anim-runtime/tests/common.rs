//! Hand-built skeletons and clips shared by the integration tests.
#![allow(dead_code)]

use zoa_anim_core::glam::{Mat4, Quat, Vec3};
use zoa_anim_core::{Clip, Interpolation, Joint, Skeleton, TrackProperty, Transform};
pub use zoa_test_support::clips::{humanoid_clip, quat_values, track};
pub use zoa_test_support::skeletons::humanoid;

/// root(node 10) ─┬─ spine(11) ── arm(12) ── hand(13)
///                └─ leg(14)
pub fn skeleton() -> Skeleton {
    let j = |name: &str, node: u32, parent: Option<u16>, t: Transform| Joint {
        name: Some(name.into()),
        node,
        parent,
        rest: t,
        inverse_bind: Mat4::IDENTITY,
    };
    let rest = |x: f32, angle: f32| Transform {
        translation: Vec3::new(x, 1.0, 0.0),
        rotation: Quat::from_rotation_x(angle),
        scale: Vec3::ONE,
    };
    Skeleton::new(
        "test",
        vec![
            j("root", 10, None, rest(0.0, 0.1)),
            j("spine", 11, Some(0), rest(0.5, 0.2)),
            j("arm", 12, Some(1), rest(1.0, -0.3)),
            j("hand", 13, Some(2), rest(0.25, 0.4)),
            j("leg", 14, Some(0), rest(-0.5, 0.5)),
        ],
    )
    .unwrap()
}

/// A clip animating every property of every joint of [`skeleton`], with
/// joint- and clip-dependent values (seeded by `k`), linear, keys at 0..=4 s.
pub fn full_clip(name: &str, k: f32) -> Clip {
    let times = [0.0, 1.0, 2.5, 3.0, 4.0];
    let mut tracks = Vec::new();
    for node in 10..15 {
        let f = node as f32 + k;
        let tv: Vec<f32> = times.iter().flat_map(|t| [f * 0.1 + t, (f * t).sin(), k - t]).collect();
        let rv: Vec<Quat> = times
            .iter()
            .map(|t| Quat::from_euler(zoa_anim_core::glam::EulerRot::XYZ, f * 0.3 + t, k * t, 0.2 * f))
            .collect();
        let sv: Vec<f32> = times.iter().flat_map(|t| [1.0 + 0.1 * t, 1.0, 1.0 + 0.05 * f]).collect();
        tracks.push(track(node, TrackProperty::Translation, Interpolation::Linear, &times, &tv));
        tracks.push(track(node, TrackProperty::Rotation, Interpolation::Linear, &times, &quat_values(&rv)));
        tracks.push(track(node, TrackProperty::Scale, Interpolation::Linear, &times, &sv));
    }
    Clip::new(name, tracks).unwrap()
}

pub fn close(a: f32, b: f32, eps: f32) -> bool {
    (a - b).abs() <= eps
}

/// Same rotation up to sign, within `eps` per component.
pub fn quat_close(a: Quat, b: Quat, eps: f32) -> bool {
    let d = a.dot(b).signum();
    (0..4).all(|i| (a.to_array()[i] - d * b.to_array()[i]).abs() <= eps)
}

/// A humanoid instance playing [`humanoid_clip`] (seeded by `k`) with the
/// default rig policy's IK installed and every input set, `k`-dependent:
/// flat ground, a look target, and a weapon pose with a left-hand grip.
pub fn ik_humanoid_instance(k: usize) -> zoa_anim_runtime::pose::ClipPlayer {
    use std::sync::Arc;
    use zoa_anim_core::RigPolicy;
    use zoa_anim_core::contracts::{PoseSnapshot, PoseTargetData};
    use zoa_anim_ik::{FlatGround, LEFT_HAND_GRIP};
    use zoa_anim_runtime::pose::*;

    let s = humanoid();
    let rs = Arc::new(RuntimeSkeleton::new(s.clone()));
    let clip = humanoid_clip(&format!("h{k}"), k as f32 * 0.7);
    let animation = Arc::new(Animation::bind(&clip, &s, BindBy::Node).unwrap());
    let layers = vec![Layer::new(
        "base",
        LayerSource::Clip { motion: BoundMotion::looping(animation), time: k as f32 * 0.1, speed: 1.0 },
    )];
    let policy = RigPolicy { id: "humanoid".into(), ..RigPolicy::default() };
    let (rig, _, problems) = zoa_anim_ik::RigIk::for_policy(rs.skeleton(), &policy);
    let rig = std::sync::Arc::new(rig);
    assert!(problems.is_empty(), "{problems:?}");
    let mut stage = IkStage::new(rig, &rs).unwrap();
    let kf = k as f32;
    let inputs = stage.inputs_mut();
    inputs.locomotion_speed = (k % 4) as f32 * 0.1;
    inputs.ground =
        Some(Arc::new(FlatGround { height: 0.02 * (k % 3) as f32, normal: Vec3::new(0.05 * kf.sin(), 1.0, 0.0) }));
    inputs.look_target = Some(Vec3::new((kf * 0.9).sin(), 1.5, 1.0 + (kf * 0.4).cos()));
    let mut weapon = PoseSnapshot::default();
    weapon.set_target(PoseTargetData {
        target: LEFT_HAND_GRIP,
        position: [0.3, 1.2 + 0.01 * (k % 5) as f32, 0.3],
        rotation: Some(Quat::IDENTITY.to_array()),
        weight: 1.0,
        space: zoa_anim_core::contracts::PoseSpace::Model,
    });
    inputs.weapon_pose = Some(weapon);
    ClipPlayer::new(rs, layers).unwrap().with_ik(stage).unwrap()
}

/// The morphed nodes of [`morph_clip`]: a face (node 20, 3 targets) under
/// the hand joint, and a prop (node 21, 2 targets) below no joint.
pub fn morph_nodes() -> Vec<zoa_anim_core::MorphNode> {
    vec![
        zoa_anim_core::MorphNode {
            node: 20,
            name: Some("face".into()),
            ancestors: vec![13, 12],
            weights: vec![0.1, 0.0, 0.5],
        },
        zoa_anim_core::MorphNode { node: 21, name: Some("prop".into()), ancestors: vec![], weights: vec![0.0, 1.0] },
    ]
}

/// [`full_clip`] with weight tracks on both [`morph_nodes`] (LINEAR on the
/// face, CUBICSPLINE on the prop), seeded by `k`.
pub fn morph_clip(name: &str, k: f32) -> Clip {
    let times = vec![0.0, 1.0, 2.5, 4.0];
    let face: Vec<f32> = times.iter().flat_map(|t| [(t + k).sin().abs(), 0.25 * t, 1.0 - 0.2 * t]).collect();
    let prop: Vec<f32> = times.iter().flat_map(|t| [0.1, k - t, 0.3 * t, 0.5, -0.1, 0.2 * k]).collect();
    let track = |node: u32, targets: usize, interpolation: Interpolation, values: Vec<f32>| zoa_anim_core::MorphTrack {
        node,
        node_name: None,
        targets,
        interpolation,
        times: times.clone(),
        values,
    };
    full_clip(name, k)
        .with_morph_tracks(vec![
            track(20, 3, Interpolation::Linear, face),
            track(21, 2, Interpolation::CubicSpline, prop),
        ])
        .unwrap()
}

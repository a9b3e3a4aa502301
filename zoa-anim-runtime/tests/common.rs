//! Hand-built skeletons and clips shared by the integration tests.
#![allow(dead_code)]

use std::path::PathBuf;

use zoa_anim_core::glam::{Mat4, Quat, Vec3};
use zoa_anim_core::{Clip, Interpolation, Joint, Skeleton, Track, TrackProperty, Transform};

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

pub fn track(node: u32, property: TrackProperty, interpolation: Interpolation, times: &[f32], values: &[f32]) -> Track {
    Track { node, node_name: None, property, interpolation, times: times.to_vec(), values: values.to_vec() }
}

pub fn quat_values(qs: &[Quat]) -> Vec<f32> {
    qs.iter().flat_map(|q| q.to_array()).collect()
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

/// The shared third-party assets folder, or `None` (with a note) when absent.
pub fn assets_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("ZOA_ASSETS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/assets")));
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!("note: shared assets folder {} is absent; skipping", dir.display());
        None
    }
}

pub fn close(a: f32, b: f32, eps: f32) -> bool {
    (a - b).abs() <= eps
}

/// Same rotation up to sign, within `eps` per component.
pub fn quat_close(a: Quat, b: Quat, eps: f32) -> bool {
    let d = a.dot(b).signum();
    (0..4).all(|i| (a.to_array()[i] - d * b.to_array()[i]).abs() <= eps)
}

/// `(name, parent, translation)` rows of a Mixamo-named humanoid in glTF
/// axes (+Y up, +Z forward, the character's left is +X), metres; the IK
/// tests run the rig policy on it.
pub const HUMANOID: &[(&str, Option<u16>, [f32; 3])] = &[
    ("Hips", None, [0.0, 1.0, 0.0]),                 // 0
    ("Spine", Some(0), [0.0, 0.1, 0.0]),             // 1
    ("Spine1", Some(1), [0.0, 0.12, 0.0]),           // 2
    ("Spine2", Some(2), [0.0, 0.12, 0.0]),           // 3
    ("Neck", Some(3), [0.0, 0.15, 0.0]),             // 4
    ("Head", Some(4), [0.0, 0.1, 0.02]),             // 5
    ("LeftUpLeg", Some(0), [0.1, -0.05, 0.0]),       // 6
    ("LeftLeg", Some(6), [0.0, -0.45, 0.01]),        // 7
    ("LeftFoot", Some(7), [0.0, -0.42, -0.01]),      // 8
    ("LeftToeBase", Some(8), [0.0, -0.06, 0.12]),    // 9
    ("RightUpLeg", Some(0), [-0.1, -0.05, 0.0]),     // 10
    ("RightLeg", Some(10), [0.0, -0.45, 0.01]),      // 11
    ("RightFoot", Some(11), [0.0, -0.42, -0.01]),    // 12
    ("RightToeBase", Some(12), [0.0, -0.06, 0.12]),  // 13
    ("LeftShoulder", Some(3), [0.05, 0.1, 0.0]),     // 14
    ("LeftArm", Some(14), [0.12, 0.0, 0.0]),         // 15
    ("LeftForeArm", Some(15), [0.28, 0.0, -0.01]),   // 16
    ("LeftHand", Some(16), [0.25, 0.0, 0.0]),        // 17
    ("RightShoulder", Some(3), [-0.05, 0.1, 0.0]),   // 18
    ("RightArm", Some(18), [-0.12, 0.0, 0.0]),       // 19
    ("RightForeArm", Some(19), [-0.28, 0.0, -0.01]), // 20
    ("RightHand", Some(20), [-0.25, 0.0, 0.0]),      // 21
];

/// The [`HUMANOID`] skeleton (joint i = node i).
pub fn humanoid() -> Skeleton {
    let joints = HUMANOID
        .iter()
        .enumerate()
        .map(|(i, (name, parent, t))| Joint {
            name: Some((*name).to_owned()),
            node: i as u32,
            parent: *parent,
            rest: Transform { translation: Vec3::from_array(*t), ..Transform::IDENTITY },
            inverse_bind: Mat4::IDENTITY,
        })
        .collect();
    Skeleton::new("humanoid", joints).unwrap()
}

/// A looping clip bending the humanoid's knees, hips, spine and arms by
/// amounts seeded by `k` (rotations only, linear, keys at 0..=2 s), so the
/// IK has an animated pose to correct.
pub fn humanoid_clip(name: &str, k: f32) -> Clip {
    let times = [0.0, 0.5, 1.0, 1.5, 2.0];
    let mut tracks = Vec::new();
    for (node, amplitude) in
        [(0u32, 0.1), (1, 0.1), (5, 0.2), (6, 0.5), (7, 0.6), (10, 0.5), (11, 0.6), (15, 0.4), (16, 0.7)]
    {
        let rv: Vec<Quat> =
            times.iter().map(|t| Quat::from_rotation_x(amplitude * (t * 3.0 + k + node as f32).sin())).collect();
        tracks.push(track(node, TrackProperty::Rotation, Interpolation::Linear, &times, &quat_values(&rv)));
    }
    Clip::new(name, tracks).unwrap()
}

/// A humanoid instance playing [`humanoid_clip`] (seeded by `k`) with the
/// default rig policy's IK installed and every input set, `k`-dependent:
/// flat ground, a look target, and a weapon pose with a left-hand grip.
pub fn ik_humanoid_instance(k: usize) -> zoa_anim_runtime::Instance {
    use std::sync::Arc;
    use zoa_anim_core::RigPolicy;
    use zoa_anim_core::contracts::{PoseSnapshot, PoseTargetData};
    use zoa_anim_ik::{FlatGround, LEFT_HAND_GRIP};
    use zoa_anim_runtime::*;

    let s = humanoid();
    let rs = Arc::new(RuntimeSkeleton::new(s.clone()));
    let clip = humanoid_clip(&format!("h{k}"), k as f32 * 0.7);
    let animation = Arc::new(Animation::bind(&clip, &s, BindBy::Node).unwrap());
    let layers = vec![Layer::new(
        "base",
        LayerSource::Clip { motion: Motion::looping(animation), time: k as f32 * 0.1, speed: 1.0 },
    )];
    let policy = RigPolicy { id: "humanoid".into(), ..RigPolicy::default() };
    let (rig, problems) = compile_rig_ik(&rs, &policy);
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
        rotation: Quat::IDENTITY.to_array(),
        weight: 1.0,
    });
    inputs.weapon_pose = Some(weapon);
    Instance::new(rs, layers).unwrap().with_ik(stage).unwrap()
}

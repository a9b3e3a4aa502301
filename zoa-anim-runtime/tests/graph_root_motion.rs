//! Root motion: per-frame root translation and yaw deltas from a graph's frame
//! output (across loop wraps, blended by weight, rest-filled below weight 1),
//! and removal from the pose.

mod graph_common;

use std::sync::Arc;

use graph_common::*;
use zoa_anim_core::glam::{EulerRot, Mat4, Quat, Vec3};
use zoa_anim_core::graph::*;
use zoa_anim_core::{Clip, Interpolation, Joint, Skeleton, Track, TrackProperty, Transform};
use zoa_anim_runtime::character::graph::{
    ClipInfo, ClipTable, GraphDefinition, GraphInstance, RootMotionContext, RootMotionJob, remove_root_motion,
};
use zoa_anim_runtime::{pose::Animation, pose::BindBy, pose::Pose, pose::RuntimeSkeleton};

fn skeleton() -> Skeleton {
    let j = |name: &str, node, parent| Joint {
        name: Some(name.into()),
        node,
        parent,
        rest: Transform { translation: Vec3::new(0.0, 1.0, 0.0), rotation: Quat::IDENTITY, scale: Vec3::ONE },
        inverse_bind: Mat4::IDENTITY,
    };
    Skeleton::new("s", vec![j("root", 0, None), j("spine", 1, Some(0))]).unwrap()
}

fn track(property: TrackProperty, times: &[f32], values: Vec<f32>) -> Track {
    Track { node: 0, node_name: None, property, interpolation: Interpolation::Linear, times: times.to_vec(), values }
}

/// idle: 2 s, root still. walk: 1 s, root x 0 -> 2 m and yaw 0 -> 0.5 rad.
fn animations(s: &Skeleton) -> Vec<Arc<Animation>> {
    let still =
        Clip::new("idle", vec![track(TrackProperty::Translation, &[0.0, 2.0], vec![0.0, 1.0, 0.0, 0.0, 1.0, 0.0])])
            .unwrap();
    let yaw = |a: f32| Quat::from_rotation_y(a).to_array();
    let walk = Clip::new(
        "walk",
        vec![
            track(TrackProperty::Translation, &[0.0, 1.0], vec![0.0, 1.0, 0.0, 2.0, 1.0, 0.0]),
            track(TrackProperty::Rotation, &[0.0, 1.0], [yaw(0.0), yaw(0.5)].concat()),
        ],
    )
    .unwrap();
    [still, walk].iter().map(|c| Arc::new(Animation::bind(c, s, BindBy::Node).unwrap())).collect()
}

struct Rig {
    animations: Vec<Arc<Animation>>,
    rest: Pose,
    ctx: RootMotionContext,
    inst: GraphInstance,
}

fn rig(walk_weight: Option<f32>) -> Rig {
    let s = skeleton();
    let animations = animations(&s);
    let rest = RuntimeSkeleton::new(s).rest().clone();
    let ctx = RootMotionContext::new(&rest, &animations, 0).unwrap();
    let table = Arc::new(ClipTable::new(vec![ClipInfo::new("idle", 2.0), ClipInfo::new("walk", 1.0)]).unwrap());
    let mut walk = state("walk", "walk", true);
    walk.weight = walk_weight;
    let g = graph(
        vec![param("stop", ParameterDefault::Trigger)],
        vec![layer("base", 0)],
        vec![walk, state("idle", "idle", true)],
        vec![GraphTransition { conditions: vec![when(0, ConditionTest::Triggered)], blend: 1.0, ..tr(Some(0), 1) }],
    );
    let inst = GraphInstance::new(Arc::new(GraphDefinition::new(g, table).unwrap()));
    Rig { animations, rest, ctx, inst }
}

impl Rig {
    fn step(&mut self, dt: f32) -> [f32; 4] {
        let mut out = self.inst.new_output();
        self.inst.update(dt, &mut out);
        RootMotionJob { animations: &self.animations, frame: &out, rest: &self.rest, context: &mut self.ctx }
            .run()
            .unwrap()
            .to_array()
    }
}

fn near(a: [f32; 4], b: [f32; 4]) -> bool {
    a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-4)
}

#[test]
fn deltas_per_frame_and_across_loop_wraps() {
    let mut r = rig(None);
    assert!(near(r.step(0.25), [0.5, 0.0, 0.0, 0.125]));
    assert!(near(r.step(0.5), [1.0, 0.0, 0.0, 0.25]));
    // 0.75 -> 2.0: to the end (0.5 m), one full cycle (2 m), then the start of the next (0 m).
    let d = r.step(1.25);
    assert!(near(d, [2.5, 0.0, 0.0, 0.625]), "{d:?}");
}

#[test]
fn deltas_blend_by_weight_with_rest_fill() {
    let mut r = rig(None);
    r.step(0.25);
    r.inst.set_trigger("stop");
    r.step(0.25); // fires; walk still at full weight
    let d = r.step(0.5); // walk weight 0.5 over the frame's end, idle 0.5
    assert!(near(d, [0.5, 0.0, 0.0, 0.125]), "half of walk's 1 m: {d:?}");
    let mut r = rig(Some(0.5));
    let d = r.step(0.25);
    assert!(near(d, [0.25, 0.0, 0.0, 0.0625]), "weight 0.5 below 1: rest fills the rest: {d:?}");
}

#[test]
fn removing_root_motion_keeps_height_pitch_and_roll() {
    let rest = RuntimeSkeleton::new(skeleton()).rest().clone();
    let mut pose = rest.clone();
    pose.set(
        0,
        Transform {
            translation: Vec3::new(3.0, 1.5, 4.0),
            rotation: Quat::from_euler(EulerRot::YXZ, 0.7, 0.2, 0.0),
            scale: Vec3::ONE,
        },
    );
    remove_root_motion(&mut pose, &rest, 0, true);
    let t = pose.get(0);
    assert!((t.translation - Vec3::new(0.0, 1.5, 0.0)).length() < 1e-6);
    let (yaw, pitch, _) = t.rotation.to_euler(EulerRot::YXZ);
    assert!(yaw.abs() < 1e-5 && (pitch - 0.2).abs() < 1e-5, "{yaw} {pitch}");
    remove_root_motion(&mut pose, &rest, 0, false);
    assert!((pose.get(0).translation.y - 1.0).abs() < 1e-6);
}

#[test]
fn contexts_check_their_inputs() {
    let s = skeleton();
    let animations = animations(&s);
    let rest = RuntimeSkeleton::new(s).rest().clone();
    assert!(RootMotionContext::new(&rest, &animations, 7).is_err());
    let _ = clips();
}

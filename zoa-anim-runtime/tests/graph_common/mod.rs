//! Hand-built graphs, clip tables and a recording event receiver shared by the
//! behaviour-layer tests (graph_*, selector_*, driver_*).
#![allow(dead_code)]

use std::sync::Arc;

use zoa_anim_core::contracts::AnimationEventReceiver;
use zoa_anim_core::graph::*;
use zoa_anim_core::{AnimationBindingId, AnimationSlotId};
use zoa_anim_runtime::character::graph::{ClipInfo, ClipTable, FrameOutput, GraphDefinition, GraphInstance};

/// idle 2 s, walk 1 s (L@0.25, R@0.75), run 0.5 s (L@0.1), jump 1 s once,
/// hit 0.5 s once, attack 1 s once (Hit@0.5), aim 1 s.
pub fn clips() -> Arc<ClipTable> {
    Arc::new(
        ClipTable::new(vec![
            ClipInfo::new("idle", 2.0),
            ClipInfo::new("walk", 1.0).with_notify("L", 0.25).with_notify("R", 0.75),
            ClipInfo::new("run", 0.5).with_notify("L", 0.1),
            ClipInfo::new("jump", 1.0).with_loop_hint(false),
            ClipInfo::new("hit", 0.5).with_loop_hint(false),
            ClipInfo::new("attack", 1.0).with_loop_hint(false).with_notify("Hit", 0.5),
            ClipInfo::new("aim", 1.0),
        ])
        .unwrap(),
    )
}

/// A 1D blend tree over parameter `parameter`: walk at 1, run at 4.
pub fn walk_run_tree(parameter: u16) -> BlendTree {
    BlendTree {
        kind: BlendTreeKind::OneD,
        parameter: Some(ParameterIndex(parameter)),
        parameter_y: None,
        weighting: Default::default(),
        children: vec![
            BlendChild { motion: Motion::Clip("walk".into()), threshold: 1.0, threshold_y: None, weight: None },
            BlendChild { motion: Motion::Clip("run".into()), threshold: 4.0, threshold_y: None, weight: None },
        ],
    }
}

/// A 1D tree over `parameter` whose second child is a tree: idle at 0, and
/// at 1 the walk/run tree of [`walk_run_tree`] on the same parameter.
pub fn idle_moving_tree(parameter: u16) -> BlendTree {
    BlendTree {
        kind: BlendTreeKind::OneD,
        parameter: Some(ParameterIndex(parameter)),
        parameter_y: None,
        weighting: Default::default(),
        children: vec![
            BlendChild { motion: Motion::Clip("idle".into()), threshold: 0.0, threshold_y: None, weight: None },
            BlendChild {
                motion: Motion::BlendTree(walk_run_tree(parameter)),
                threshold: 1.0,
                threshold_y: None,
                weight: None,
            },
        ],
    }
}

pub fn state(name: &str, clip: &str, looping: bool) -> GraphState {
    GraphState {
        name: name.into(),
        layer: 0,
        machine: None,
        motion: Motion::Clip(clip.into()),
        looping,
        speed: 1.0,
        crossfade: Crossfade::default(),
        weight: None,
        blend_mode: None,
        bone_mask: None,
        sync_group: None,
    }
}

pub fn layer(name: &str, entry: u16) -> GraphLayer {
    GraphLayer {
        name: name.into(),
        entry: StateIndex(entry),
        weight: 1.0,
        blend_mode: BlendMode::Override,
        bone_mask: None,
    }
}

pub fn param(name: &str, default: ParameterDefault) -> GraphParameter {
    GraphParameter { name: name.into(), default }
}

/// A cut (blend 0) from `from` (`None` = Any State) to `to` with no exit time and no conditions.
pub fn tr(from: Option<u16>, to: u16) -> GraphTransition {
    GraphTransition {
        from: from.map_or(TransitionSource::Any, |s| TransitionSource::State(StateIndex(s))),
        to: StateIndex(to),
        conditions: vec![],
        exit_time: None,
        blend: 0.0,
        interruption: Interruption::None,
        mode: TransitionMode::Crossfade,
    }
}

pub fn when(p: u16, test: ConditionTest) -> Condition {
    Condition { parameter: ParameterIndex(p), test }
}

pub fn graph(
    parameters: Vec<GraphParameter>,
    layers: Vec<GraphLayer>,
    states: Vec<GraphState>,
    transitions: Vec<GraphTransition>,
) -> AnimationGraph {
    AnimationGraph { id: "g".into(), model: "m.glb".into(), parameters, layers, states, transitions }
}

pub fn instance(g: AnimationGraph) -> (GraphInstance, FrameOutput) {
    let def = Arc::new(GraphDefinition::new(g, clips()).unwrap());
    let inst = GraphInstance::new(def);
    let out = inst.new_output();
    (inst, out)
}

/// Runs `n` frames of `dt`.
pub fn run(inst: &mut GraphInstance, out: &mut FrameOutput, dt: f32, n: usize) {
    for _ in 0..n {
        inst.update(dt, out);
    }
}

pub fn current(inst: &GraphInstance) -> String {
    inst.current_state_name(0).unwrap().to_owned()
}

pub fn close(a: f32, b: f32) -> bool {
    (a - b).abs() < 1e-4
}

/// Records every delivered event as text.
#[derive(Debug, Default)]
pub struct Recorder {
    pub log: Vec<String>,
}

impl AnimationEventReceiver for Recorder {
    fn on_animation_event(&mut self, binding: AnimationBindingId, event_tag: &str) {
        self.log.push(format!("event {binding} {event_tag}"));
    }
    fn on_slot_progress(&mut self, slot: AnimationSlotId, normalized_time: f32) {
        self.log.push(format!("slot {slot} {normalized_time:.3}"));
    }
    fn on_notify(&mut self, name: &str) {
        self.log.push(format!("notify {name}"));
    }
    fn on_state_changed(&mut self, from: &str, to: &str) {
        self.log.push(format!("state {from}->{to}"));
    }
}

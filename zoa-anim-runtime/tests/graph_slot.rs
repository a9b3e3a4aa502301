//! The override slot (envelopes, one-shot fade timing, progress) and the
//! single-clip mode (autoplay, play / blend_to / stop).

mod graph_common;

use graph_common::*;
use zoa_anim_core::AnimationSlotId;
use zoa_anim_core::graph::BlendMode;
use zoa_anim_runtime::character::events::EventKind;
use zoa_anim_runtime::character::graph::{ClipId, GraphInstance, PlayOptions, SLOT_LAYER};

const IDLE: ClipId = ClipId(0);
const WALK: ClipId = ClipId(1);
const JUMP: ClipId = ClipId(3);
const ATTACK: ClipId = ClipId(5);

fn one_state_graph() -> (GraphInstance, zoa_anim_runtime::character::graph::FrameOutput) {
    instance(graph(vec![], vec![layer("base", 0)], vec![state("idle", "idle", true)], vec![]))
}

#[test]
fn a_one_shot_override_fades_in_and_lands_on_zero_as_it_ends() {
    let (mut inst, mut out) = one_state_graph();
    assert!(inst.play_override(ATTACK, PlayOptions::once(0.25, 0.5)));
    let expect = [0.5, 1.0, 1.0, 1.0, 0.75, 0.5, 0.25];
    for (k, &e) in expect.iter().enumerate() {
        inst.update(0.125, &mut out);
        let (l, cs) = out.find_layer(SLOT_LAYER).expect("slot layer");
        assert!(close(l.weight, e), "frame {k}: envelope {} vs {e}", l.weight);
        assert!(close(cs[0].weight, e));
        assert_eq!(cs[0].clip, ATTACK);
        assert_eq!(out.layers[0].layer, 0, "the slot composes over the graph");
    }
    inst.update(0.125, &mut out);
    assert!(out.find_layer(SLOT_LAYER).is_none(), "the one-shot ended with its fade");
    assert!(!inst.slot_playing());
    let hits = inst.events().iter().filter(|e| matches!(e.kind, EventKind::Notify { .. })).count();
    assert_eq!(hits, 1, "its notify fired once");
}

#[test]
fn a_looping_override_plays_until_stopped_and_can_fade_out() {
    let (mut inst, mut out) = one_state_graph();
    let opts = PlayOptions { looping: true, blend_in: 0.0, additive: true, ..PlayOptions::default() };
    assert!(inst.play_in_slot(WALK, opts, Some(AnimationSlotId::from_static("fire.auto"))));
    inst.update(0.125, &mut out);
    // Progress is state to read, not an event per frame.
    let status = inst.slot_status().unwrap();
    assert!(close(status.progress, 0.125) && status.name == "fire.auto" && !status.stopping, "{status:?}");
    run(&mut inst, &mut out, 0.125, 19);
    assert!(close(inst.slot_status().unwrap().progress, 0.5), "a looping clip wraps");
    let (l, _) = out.find_layer(SLOT_LAYER).unwrap();
    assert_eq!((l.weight, l.blend_mode), (1.0, BlendMode::Additive));
    inst.stop_with(0.25);
    inst.update(0.125, &mut out);
    assert!(close(out.find_layer(SLOT_LAYER).unwrap().0.weight, 0.5));
    assert!(inst.slot_status().unwrap().stopping);
    inst.update(0.125, &mut out);
    assert!(out.find_layer(SLOT_LAYER).is_none());
    assert!(inst.slot_status().is_none());
    // Events only at the meaningful moments: it started, and it was stopped.
    let slot_events: Vec<String> = inst
        .events()
        .iter()
        .filter(|e| matches!(e.kind, EventKind::SlotStarted { .. } | EventKind::SlotEnded { .. }))
        .map(ToString::to_string)
        .collect();
    assert_eq!(slot_events, ["0.000 s slot_started fire.auto", "2.750 s slot_stopped fire.auto"]);
    assert!(!inst.play_override(ClipId(99), PlayOptions::default()), "unknown clips are refused");
}

#[test]
fn single_clip_mode_autoplays_blends_and_stops() {
    let mut inst = GraphInstance::single_clip(clips(), Some((IDLE, true)));
    let mut out = inst.new_output();
    inst.update(0.5, &mut out);
    let (l, cs) = out.find_layer(SLOT_LAYER).unwrap();
    assert_eq!((l.weight, cs.len(), cs[0].clip, cs[0].time), (1.0, 1, IDLE, 0.5));
    assert!(inst.blend_to(WALK, true, 0.5));
    inst.update(0.125, &mut out);
    assert!(close(out.clip_weight(SLOT_LAYER, WALK), 0.25));
    assert!(close(out.clip_weight(SLOT_LAYER, IDLE), 0.75));
    run(&mut inst, &mut out, 0.125, 3);
    assert_eq!(out.clip_weight(SLOT_LAYER, WALK), 1.0);
    assert_eq!(out.layer_contributions(0).len(), 1);
    // A one-shot holds its last frame in single-clip mode.
    assert!(inst.play(JUMP, false));
    run(&mut inst, &mut out, 0.5, 4);
    let (l, cs) = out.find_layer(SLOT_LAYER).unwrap();
    assert_eq!((l.weight, cs[0].clip, cs[0].time), (1.0, JUMP, 1.0));
    inst.stop();
    inst.update(0.125, &mut out);
    assert!(out.layers.is_empty());
    // Speed scales single-clip playback too.
    let mut inst = GraphInstance::single_clip(clips(), Some((WALK, true)));
    inst.set_speed(0.5);
    inst.update(0.5, &mut out);
    assert_eq!(out.layer_contributions(0)[0].time, 0.25);
}

#[test]
fn play_and_blend_to_drive_the_override_slot_when_a_graph_is_assigned() {
    let (mut inst, mut out) = one_state_graph();
    assert!(inst.blend_to(WALK, true, 0.5));
    inst.update(0.125, &mut out);
    assert!(close(out.find_layer(SLOT_LAYER).unwrap().0.weight, 0.25), "fades in when nothing played");
    assert_eq!(out.clip_weight(0, IDLE), 1.0, "the graph keeps playing underneath");
    inst.stop();
    inst.update(0.125, &mut out);
    assert!(out.find_layer(SLOT_LAYER).is_none());
}

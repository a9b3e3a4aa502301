//! Events: notifies across loop wraps and several per frame, highest-weight
//! vs all contributors during blends, state changes and delivery order.

mod graph_common;

use graph_common::*;
use zoa_anim_core::graph::*;
use zoa_anim_runtime::character::events::EventKind;
use zoa_anim_runtime::character::graph::{ClipId, GraphInstance, NotifyPolicy};

const WALK: ClipId = ClipId(1);
const RUN: ClipId = ClipId(2);

fn walk_only() -> AnimationGraph {
    graph(vec![], vec![layer("base", 0)], vec![state("walk", "walk", true)], vec![])
}

#[test]
fn notifies_fire_across_loop_wraps_several_per_frame_at_their_times() {
    let (mut inst, mut out) = instance(walk_only());
    inst.update(2.5, &mut out);
    let times: Vec<f64> = inst.events().iter().map(|e| e.time).collect();
    let mut sorted = times.clone();
    sorted.sort_by(f64::total_cmp);
    let expect = [0.25, 0.75, 1.25, 1.75, 2.25];
    assert_eq!(sorted.len(), expect.len());
    assert!(sorted.iter().zip(expect).all(|(a, b)| (a - b).abs() < 1e-9), "{sorted:?}");
    let mut rec = Recorder::default();
    inst.deliver_events(&mut rec);
    assert_eq!(rec.log, ["notify L", "notify R", "notify L", "notify R", "notify L"]);
    assert!(inst.events().is_empty(), "delivery clears the queue");
    // Frame boundaries: (0.25, 0.5] has nothing, (0.5, 0.75] has R at its end.
    let (mut inst, mut out) = instance(walk_only());
    inst.update(0.25, &mut out);
    assert_eq!(inst.events().len(), 1, "a notify exactly at the frame end fires in that frame");
    inst.update(0.25, &mut out);
    assert_eq!(inst.events().len(), 1, "and not again in the next");
    inst.update(0.25, &mut out);
    assert_eq!(inst.events().len(), 2);
}

fn walk_to_run(policy: NotifyPolicy) -> GraphInstance {
    let g = graph(
        vec![param("go", ParameterDefault::Trigger)],
        vec![layer("base", 0)],
        vec![state("walk", "walk", true), state("run", "run", true)],
        vec![GraphTransition { conditions: vec![when(0, ConditionTest::Triggered)], blend: 2.0, ..tr(Some(0), 1) }],
    );
    let (inst, _) = instance(g);
    inst.with_notify_policy(policy)
}

fn notify_clips(inst: &GraphInstance) -> Vec<ClipId> {
    inst.events()
        .iter()
        .filter_map(|e| match e.kind {
            EventKind::Notify { clip, .. } => Some(clip),
            _ => None,
        })
        .collect()
}

#[test]
fn during_a_blend_only_the_heaviest_contributor_fires_unless_all_are_asked_for() {
    for policy in [NotifyPolicy::HighestWeight, NotifyPolicy::All] {
        let mut inst = walk_to_run(policy);
        let mut out = inst.new_output();
        inst.set_trigger("go");
        inst.update(0.0, &mut out);
        // 0.5 s in: run 0.25, walk 0.75 — walk dominates.
        inst.update(0.5, &mut out);
        let early = notify_clips(&inst);
        inst.clear_events();
        // 1.5 s in: run dominates.
        inst.update(1.0, &mut out);
        let late = notify_clips(&inst);
        match policy {
            NotifyPolicy::HighestWeight => {
                assert!(early.iter().all(|&c| c == WALK) && !early.is_empty(), "{early:?}");
                assert!(late.iter().all(|&c| c == RUN) && !late.is_empty(), "{late:?}");
            }
            NotifyPolicy::All => {
                assert!(early.contains(&WALK) && early.contains(&RUN), "{early:?}");
            }
        }
    }
}

#[test]
fn state_changes_reach_the_receiver_in_time_then_kind_order() {
    let g = graph(
        vec![param("go", ParameterDefault::Trigger)],
        vec![layer("base", 0)],
        vec![state("walk", "walk", true), state("idle", "idle", true)],
        vec![GraphTransition { conditions: vec![when(0, ConditionTest::Triggered)], ..tr(Some(0), 1) }],
    );
    let (mut inst, mut out) = instance(g);
    inst.set_trigger("go");
    inst.update(0.5, &mut out); // notify L at 0.25, then the cut at 0.5
    let kinds: Vec<&str> = {
        let mut evs = inst.events().to_vec();
        evs.sort_by(|a, b| a.time.total_cmp(&b.time).then(a.kind.rank().cmp(&b.kind.rank())));
        evs.iter().map(|e| e.kind.as_str()).collect()
    };
    assert_eq!(
        kinds,
        ["notify", "transition_started", "state_exited", "state_entered", "transition_finished"],
        "notify at 0.25, then started/exited/entered/finished at 0.5"
    );
    let mut rec = Recorder::default();
    inst.deliver_events(&mut rec);
    assert_eq!(rec.log, ["notify L", "state walk->idle"]);
}

#[test]
fn a_full_queue_drops_and_counts_instead_of_growing() {
    let (inst, mut out) = instance(walk_only());
    let mut inst = inst.with_event_capacity(3);
    inst.update(2.5, &mut out);
    assert_eq!(inst.events().len(), 3);
    assert_eq!(inst.dropped_events(), 2);
}

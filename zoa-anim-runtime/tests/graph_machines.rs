//! Sub-state machines and travel: a state may hold a state machine entered at
//! its own entry; the machine's transitions leave from any state inside it;
//! `travel` walks the shortest chain of transitions with the events of every
//! state it passes (Godot's playback `travel`).

mod graph_common;

use graph_common::*;
use zoa_anim_core::graph::*;
use zoa_anim_runtime::character::graph::{FrameOutput, GraphInstance};

const DT: f32 = 0.05;

fn machine(name: &str, entry: u16) -> GraphState {
    GraphState { motion: Motion::Machine(StateIndex(entry)), ..state(name, "idle", true) }
}

fn inside(mut s: GraphState, machine: u16) -> GraphState {
    s.machine = Some(StateIndex(machine));
    s
}

fn when_trigger(from: Option<u16>, to: u16, p: u16) -> GraphTransition {
    GraphTransition { conditions: vec![when(p, ConditionTest::Triggered)], ..tr(from, to) }
}

/// 0 idle; 1 `air` (machine, entry 2): 2 rise, 3 fall (inside `air`);
/// 4 hit; 5 `combo` (machine inside `air`, entry 6): 6 attack.
/// idle -jump-> air; rise -exit 1-> fall; fall -land-> idle;
/// air -hit-> hit (from any state inside); hit -exit-> idle; any -spin-> combo.
fn air_graph() -> AnimationGraph {
    let mut rise_to_fall = tr(Some(2), 3);
    rise_to_fall.exit_time = Some(1.0);
    let mut hit_back = tr(Some(4), 0);
    hit_back.exit_time = Some(1.0);
    graph(
        vec![
            param("jump", ParameterDefault::Trigger),
            param("land", ParameterDefault::Trigger),
            param("hit", ParameterDefault::Trigger),
            param("spin", ParameterDefault::Trigger),
        ],
        vec![layer("base", 0)],
        vec![
            state("idle", "idle", true),
            machine("air", 2),
            inside(state("rise", "jump", false), 1),
            inside(state("fall", "walk", true), 1),
            state("hit", "hit", false),
            inside(machine("combo", 6), 1),
            inside(state("attack", "attack", false), 5),
        ],
        vec![
            when_trigger(Some(0), 1, 0),
            rise_to_fall,
            when_trigger(Some(3), 0, 1),
            when_trigger(Some(1), 4, 2),
            hit_back,
            when_trigger(None, 5, 3),
        ],
    )
}

/// The queued events as `kind name` words, then cleared.
fn take(inst: &mut GraphInstance) -> Vec<String> {
    let words: Vec<String> = inst
        .events()
        .iter()
        .map(|e| {
            let text = e.to_string();
            text.split_once(" s ").map_or(text.clone(), |(_, rest)| rest.to_owned())
        })
        .filter(|w| w.starts_with("state_") || w.starts_with("transition_"))
        .collect();
    inst.clear_events();
    words
}

fn step(inst: &mut GraphInstance, out: &mut FrameOutput, n: usize) {
    run(inst, out, DT, n);
}

#[test]
fn entering_a_machine_enters_its_entry_with_the_machine_events() {
    let (mut inst, mut out) = instance(air_graph());
    assert!(inst.set_trigger("jump"));
    step(&mut inst, &mut out, 1);
    assert_eq!(current(&inst), "rise", "the machine plays its entry");
    assert!(inst.is_in_state(0, StateIndex(1)) && inst.is_in_state(0, StateIndex(2)));
    assert!(!inst.is_in_state(0, StateIndex(0)));
    let log = take(&mut inst);
    assert_eq!(
        log,
        [
            "transition_started rise",
            "state_entered air",
            "state_entered rise",
            "state_exited idle",
            "transition_finished rise"
        ],
        "{log:?}"
    );
    // Inner transitions run as at the top level.
    step(&mut inst, &mut out, 21);
    assert_eq!(current(&inst), "fall");
}

#[test]
fn a_machine_transition_leaves_from_any_state_inside_it() {
    for (frames, inner) in [(1, "rise"), (25, "fall")] {
        let (mut inst, mut out) = instance(air_graph());
        inst.set_trigger("jump");
        step(&mut inst, &mut out, frames);
        assert_eq!(current(&inst), inner);
        take(&mut inst);
        inst.set_trigger("hit");
        step(&mut inst, &mut out, 1);
        assert_eq!(current(&inst), "hit", "from {inner}");
        let log = take(&mut inst);
        assert!(log.contains(&"state_exited air".to_owned()), "{log:?}");
        assert!(!inst.is_in_state(0, StateIndex(1)));
    }
}

#[test]
fn nested_machines_enter_outermost_first_and_any_state_does_not_re_enter_them() {
    let (mut inst, mut out) = instance(air_graph());
    inst.set_trigger("spin");
    step(&mut inst, &mut out, 1);
    assert_eq!(current(&inst), "attack");
    let log = take(&mut inst);
    let entered: Vec<&String> = log.iter().filter(|l| l.starts_with("state_entered")).collect();
    assert_eq!(entered, ["state_entered air", "state_entered combo", "state_entered attack"]);
    // Inside `combo` already: Any State into it is not taken again.
    inst.set_trigger("spin");
    step(&mut inst, &mut out, 1);
    assert!(take(&mut inst).iter().all(|l| !l.starts_with("transition_started")));
    // `air`'s transition leaves from inside the nested machine too, exiting both.
    inst.set_trigger("hit");
    step(&mut inst, &mut out, 1);
    let log = take(&mut inst);
    let exits: Vec<&String> = log.iter().filter(|l| l.starts_with("state_exited")).collect();
    assert_eq!(exits, ["state_exited combo", "state_exited air", "state_exited attack"], "{log:?}");
}

#[test]
fn travel_takes_the_shortest_chain_with_the_events_of_each_state() {
    let (mut inst, mut out) = instance(air_graph());
    // idle -> air(rise) -> fall: two hops, conditions and exit times ignored.
    assert!(inst.travel_named("fall"));
    assert!(inst.is_travelling(0));
    step(&mut inst, &mut out, 1);
    assert_eq!(current(&inst), "fall");
    assert!(!inst.is_travelling(0));
    let entered: Vec<String> = take(&mut inst).into_iter().filter(|l| l.starts_with("state_entered")).collect();
    assert_eq!(entered, ["state_entered air", "state_entered rise", "state_entered fall"]);
    // Already there: nothing to do.
    assert!(inst.travel_named("fall"));
    assert!(!inst.is_travelling(0));
    // A machine is travelled to its entry; `hit` is reached through `air`'s transition.
    assert!(inst.travel_named("hit"));
    step(&mut inst, &mut out, 1);
    assert_eq!(current(&inst), "hit");
    // No chain leads from `hit` to `combo`'s states but Any State: one hop.
    assert!(inst.travel_named("combo"));
    step(&mut inst, &mut out, 1);
    assert_eq!(current(&inst), "attack");
}

#[test]
fn travel_waits_for_each_blend_and_play_state_cancels_it() {
    let mut g = air_graph();
    for t in &mut g.transitions {
        t.blend = 0.1;
    }
    let (mut inst, mut out) = instance(g);
    assert!(inst.travel_named("fall"));
    step(&mut inst, &mut out, 1);
    assert_eq!(current(&inst), "rise", "first hop under way");
    step(&mut inst, &mut out, 2);
    assert_eq!(current(&inst), "fall", "second hop once the first blend finished");
    assert!(inst.transition(0).is_some());
    // A graph with no chain: `idle` is unreachable from the island below.
    let (mut inst, mut out) = instance(graph(
        vec![],
        vec![layer("base", 0)],
        vec![state("a", "idle", true), state("b", "walk", true)],
        vec![],
    ));
    assert!(!inst.travel_named("b"));
    assert!(!inst.travel_named("nowhere"));
    step(&mut inst, &mut out, 1);
    assert_eq!(current(&inst), "a");
    // play_state during a travel ends it.
    let (mut inst, mut out) = instance(air_graph());
    inst.travel_named("fall");
    inst.play_state_named("hit", Some(0.0));
    assert!(!inst.is_travelling(0));
    step(&mut inst, &mut out, 1);
    assert_eq!(current(&inst), "hit");
}

#[test]
fn a_layer_whose_entry_is_a_machine_starts_in_its_entry() {
    let mut g = air_graph();
    g.layers[0].entry = StateIndex(1);
    let (inst, _) = instance(g);
    assert_eq!(current(&inst), "rise");
}

#[test]
fn malformed_machines_are_set_up_problems() {
    let mut g = air_graph();
    g.states[1].motion = Motion::Machine(StateIndex(4)); // `hit` is not inside `air`
    g.states[3].machine = Some(StateIndex(0)); // `idle` is no machine
    let e = zoa_anim_runtime::character::graph::GraphDefinition::new(g, clips()).unwrap_err().to_string();
    assert!(e.contains("its entry is not one of its own states") && e.contains("is not a sub-state machine"), "{e}");
    let mut g = air_graph();
    g.states[1].machine = Some(StateIndex(5)); // air inside combo inside air
    let e = zoa_anim_runtime::character::graph::GraphDefinition::new(g, clips()).unwrap_err().to_string();
    assert!(e.contains("loop"), "{e}");
}

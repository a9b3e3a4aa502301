//! Graph semantics, case by case: transition order, Any State, triggers, exit
//! time, interruption sources, cross-fade weights, warp, blend-tree clock,
//! instance speed, forced states, inertialization and layers.

mod graph_common;

use graph_common::*;
use zoa_anim_core::graph::*;
use zoa_anim_runtime::character::events::EventKind;
use zoa_anim_runtime::character::graph::{ClipId, ContributionSource, MaskRef, ParamValue};

const IDLE: ClipId = ClipId(0);
const WALK: ClipId = ClipId(1);
const RUN: ClipId = ClipId(2);

#[test]
fn own_transitions_before_any_state_and_the_first_that_holds_wins() {
    let g = graph(
        vec![param("a", ParameterDefault::Bool(true))],
        vec![layer("base", 0)],
        vec![state("idle", "idle", true), state("walk", "walk", true), state("run", "run", true)],
        vec![
            GraphTransition { conditions: vec![when(0, ConditionTest::IsTrue)], ..tr(None, 2) },
            GraphTransition { conditions: vec![when(0, ConditionTest::IsTrue)], ..tr(Some(0), 1) },
            GraphTransition { conditions: vec![when(0, ConditionTest::IsTrue)], ..tr(Some(0), 2) },
        ],
    );
    let (mut inst, mut out) = instance(g);
    assert_eq!(current(&inst), "idle");
    inst.update(0.125, &mut out);
    assert_eq!(current(&inst), "walk", "own transitions come before Any State; authoring order within");
    inst.update(0.125, &mut out);
    assert_eq!(current(&inst), "run", "Any State fires from walk");
    inst.update(0.125, &mut out);
    assert_eq!(current(&inst), "run", "Any State never re-enters the playing state");
}

#[test]
fn any_state_fires_from_anywhere_never_into_itself_and_consumes_its_trigger() {
    let g = graph(
        vec![param("hit", ParameterDefault::Trigger)],
        vec![layer("base", 0)],
        vec![state("idle", "idle", true), state("hit", "hit", false)],
        vec![
            GraphTransition { conditions: vec![when(0, ConditionTest::Triggered)], ..tr(None, 1) },
            GraphTransition { exit_time: Some(1.0), ..tr(Some(1), 0) },
        ],
    );
    let (mut inst, mut out) = instance(g);
    assert!(inst.set_trigger("hit"));
    inst.update(0.125, &mut out);
    assert_eq!(current(&inst), "hit");
    assert_eq!(inst.parameters().values()[0], ParamValue::Trigger(false), "firing consumed the trigger");
    assert!(inst.set_trigger("hit"));
    inst.update(0.125, &mut out);
    assert_eq!(current(&inst), "hit", "Any State does not re-enter the playing state");
    assert_eq!(inst.parameters().values()[0], ParamValue::Trigger(true), "an unused trigger stays set");
    // hit is 0.5 s, one-shot, exit time 1: after 4 frames of 0.125 s it returns to idle...
    run(&mut inst, &mut out, 0.125, 3);
    assert_eq!(current(&inst), "idle");
    // ...where the still-set trigger fires Any State again.
    inst.update(0.125, &mut out);
    assert_eq!(current(&inst), "hit");
    assert_eq!(inst.parameters().values()[0], ParamValue::Trigger(false));
}

#[test]
fn a_trigger_fires_one_transition_only() {
    let g = graph(
        vec![param("jump", ParameterDefault::Trigger)],
        vec![layer("base", 0)],
        vec![state("idle", "idle", true), state("jump", "jump", false), state("again", "idle", true)],
        vec![
            GraphTransition { conditions: vec![when(0, ConditionTest::Triggered)], ..tr(Some(0), 1) },
            GraphTransition { conditions: vec![when(0, ConditionTest::Triggered)], ..tr(Some(1), 2) },
        ],
    );
    let (mut inst, mut out) = instance(g);
    inst.update(0.125, &mut out);
    assert_eq!(current(&inst), "idle", "an unset trigger does not hold");
    inst.set_trigger("jump");
    inst.update(0.125, &mut out);
    assert_eq!(current(&inst), "jump");
    run(&mut inst, &mut out, 0.125, 3);
    assert_eq!(current(&inst), "jump", "the consumed trigger cannot fire the next transition");
    inst.set_trigger("jump");
    inst.update(0.125, &mut out);
    assert_eq!(current(&inst), "again");
}

#[test]
fn exit_time_of_a_looping_state_is_checked_once_per_loop() {
    let g = graph(
        vec![param("go", ParameterDefault::Bool(false))],
        vec![layer("base", 0)],
        vec![state("walk", "walk", true), state("idle", "idle", true)],
        vec![GraphTransition {
            conditions: vec![when(0, ConditionTest::IsTrue)],
            exit_time: Some(0.5),
            ..tr(Some(0), 1)
        }],
    );
    let (mut inst, mut out) = instance(g);
    run(&mut inst, &mut out, 0.125, 5); // clock 0.625: crossed 0.5 with go false
    inst.set_bool("go", true);
    run(&mut inst, &mut out, 0.125, 6); // clock 1.375
    assert_eq!(current(&inst), "walk", "conditions true mid-loop wait for the next crossing");
    inst.update(0.125, &mut out); // clock 1.5: crosses 1 + 0.5
    assert_eq!(current(&inst), "idle");
}

#[test]
fn exit_time_of_a_one_shot_holds_once_reached() {
    let g = graph(
        vec![param("go", ParameterDefault::Bool(false))],
        vec![layer("base", 0)],
        vec![state("jump", "jump", false), state("idle", "idle", true), state("end", "idle", true)],
        vec![GraphTransition {
            conditions: vec![when(0, ConditionTest::IsTrue)],
            exit_time: Some(0.5),
            ..tr(Some(0), 1)
        }],
    );
    let (mut inst, mut out) = instance(g);
    run(&mut inst, &mut out, 0.125, 12); // well past the end (1 s)
    assert_eq!(current(&inst), "jump");
    let v = inst.active_states(0).next().unwrap();
    assert_eq!(v.normalized_time, 1.0, "a one-shot clock clamps at its end");
    inst.set_bool("go", true);
    inst.update(0.125, &mut out);
    assert_eq!(current(&inst), "idle");

    // Unconditional exit time 1: fires exactly when the one-shot ends.
    let g = graph(
        vec![],
        vec![layer("base", 0)],
        vec![state("jump", "jump", false), state("idle", "idle", true)],
        vec![GraphTransition { exit_time: Some(1.0), ..tr(Some(0), 1) }],
    );
    let (mut inst, mut out) = instance(g);
    run(&mut inst, &mut out, 0.125, 7);
    assert_eq!(current(&inst), "jump");
    inst.update(0.125, &mut out);
    assert_eq!(current(&inst), "idle");
}

/// idle -(go_b, 1 s, `source`)-> walk; optional idle -(go_c)-> run and walk -(go_c)-> run.
fn interruption_graph(source: Interruption, from_current: bool, from_next: bool) -> AnimationGraph {
    let mut transitions = vec![GraphTransition {
        conditions: vec![when(0, ConditionTest::IsTrue)],
        blend: 1.0,
        interruption: source,
        ..tr(Some(0), 1)
    }];
    if from_current {
        transitions.push(GraphTransition {
            conditions: vec![when(1, ConditionTest::IsTrue)],
            blend: 0.5,
            ..tr(Some(0), 2)
        });
    }
    if from_next {
        transitions.push(GraphTransition {
            conditions: vec![when(1, ConditionTest::IsTrue)],
            blend: 0.5,
            ..tr(Some(1), 2)
        });
    }
    graph(
        vec![param("go_b", ParameterDefault::Bool(false)), param("go_c", ParameterDefault::Bool(false))],
        vec![layer("base", 0)],
        vec![state("idle", "idle", true), state("walk", "walk", true), state("run", "run", true)],
        transitions,
    )
}

fn start_then_request_c(
    source: Interruption,
    from_current: bool,
    from_next: bool,
) -> zoa_anim_runtime::character::graph::GraphInstance {
    let (mut inst, mut out) = instance(interruption_graph(source, from_current, from_next));
    inst.set_bool("go_b", true);
    inst.update(0.125, &mut out);
    assert_eq!(current(&inst), "walk");
    assert!(inst.transition(0).is_some());
    inst.set_bool("go_c", true);
    inst.update(0.125, &mut out);
    inst
}

#[test]
fn interruption_none_lets_the_blend_finish_first() {
    let (mut inst, mut out) = instance(interruption_graph(Interruption::None, true, true));
    inst.set_bool("go_b", true);
    inst.update(0.125, &mut out);
    inst.set_bool("go_c", true);
    run(&mut inst, &mut out, 0.125, 7); // elapsed 0.875
    assert_eq!(current(&inst), "walk");
    assert!(inst.transition(0).is_some());
    inst.update(0.125, &mut out); // blend ends, then walk -> run is tried
    assert_eq!(current(&inst), "run");
}

#[test]
fn interruption_current_accepts_only_transitions_leaving_the_source() {
    let inst = start_then_request_c(Interruption::Current, true, true);
    assert_eq!(current(&inst), "run", "idle -> run interrupts");
    let states: Vec<_> = inst.active_states(0).map(|a| (a.state.0, a.weight)).collect();
    assert_eq!(states.len(), 3, "run fades in over walk (0.125) and idle (0.875): {states:?}");
    assert!(close(states[1].1, 0.125) && close(states[2].1, 0.875), "{states:?}");
    assert!(inst.events().iter().any(|e| matches!(e.kind, EventKind::TransitionFinished { interrupted: true, .. })));
    let inst = start_then_request_c(Interruption::Current, false, true);
    assert_eq!(current(&inst), "walk", "walk -> run leaves the next state: not allowed");
}

#[test]
fn interruption_next_accepts_only_transitions_leaving_the_target() {
    let inst = start_then_request_c(Interruption::Next, false, true);
    assert_eq!(current(&inst), "run");
    let inst = start_then_request_c(Interruption::Next, true, false);
    assert_eq!(current(&inst), "walk", "idle -> run leaves the source state: not allowed");
}

#[test]
fn crossfade_weights_ramp_linearly_over_the_blend() {
    let g = graph(
        vec![param("go", ParameterDefault::Trigger)],
        vec![layer("base", 0)],
        vec![state("idle", "idle", true), state("walk", "walk", true)],
        vec![GraphTransition { conditions: vec![when(0, ConditionTest::Triggered)], blend: 1.0, ..tr(Some(0), 1) }],
    );
    let (mut inst, mut out) = instance(g);
    inst.set_trigger("go");
    inst.update(0.25, &mut out);
    // The entering state starts at weight 0 (and so is not emitted).
    assert_eq!((out.clip_weight(0, IDLE), out.clip_weight(0, WALK)), (1.0, 0.0));
    for k in 1..4 {
        inst.update(0.25, &mut out);
        let a = k as f32 * 0.25;
        assert!(close(out.clip_weight(0, WALK), a), "frame {k}");
        assert!(close(out.clip_weight(0, IDLE), 1.0 - a), "frame {k}");
    }
    inst.update(0.25, &mut out);
    assert_eq!(out.clip_weight(0, WALK), 1.0);
    assert_eq!(out.layer_contributions(0).len(), 1, "the faded state is gone");
    assert!(inst.transition(0).is_none());
    let kinds: Vec<&str> = inst.events().iter().map(|e| e.kind.as_str()).filter(|&k| k != "notify").collect();
    assert_eq!(
        kinds,
        ["transition_started", "state_entered", "state_exited", "transition_finished"],
        "started, entered, then exited and finished at the end"
    );
}

/// three.js `crossFadeTo(run, d, true)` at mixer time `t0`: each
/// `mixer.update(dt)` adds `dt` to the mixer time first, then every action
/// advances by `dt · timeScale(mixer time)` with the warp interpolated
/// linearly over `[t0, t0 + d]` (`AnimationAction._updateTimeScale`).
#[test]
fn warped_cross_fade_times_match_three_js_step_by_step() {
    let mut run_state = state("run", "run", true);
    run_state.crossfade = Crossfade { duration: 0.0, warp: true };
    let g = graph(
        vec![param("go", ParameterDefault::Trigger)],
        vec![layer("base", 0)],
        vec![state("walk", "walk", true), run_state],
        vec![GraphTransition { conditions: vec![when(0, ConditionTest::Triggered)], blend: 0.8, ..tr(Some(0), 1) }],
    );
    let (mut inst, mut out) = instance(g);
    inst.update(0.3, &mut out);
    inst.set_trigger("go");
    inst.update(0.1, &mut out); // the cross-fade starts at the end of this step
    // three.js oracle, in clip seconds: walk lasts 1 s, run 0.5 s.
    let (d, t0) = (0.8f64, 0.4f64);
    let (mut mixer, mut walk, mut run) = (t0, 0.4f64, 0.0f64);
    let scale = |from: f64, to: f64, t: f64| {
        let a = ((t - t0) / d).clamp(0.0, 1.0);
        from + (to - from) * a
    };
    for dt in [0.05f32, 0.2, 0.1, 0.15, 0.07, 0.13] {
        inst.update(dt, &mut out);
        mixer += f64::from(dt);
        walk += f64::from(dt) * scale(1.0, 1.0 / 0.5, mixer);
        run += f64::from(dt) * scale(0.5 / 1.0, 1.0, mixer);
        let views: Vec<_> = inst.active_states(0).collect();
        assert!((views[0].normalized_time - run / 0.5).abs() < 1e-6, "run at {mixer}: {views:?} vs {run}");
        if mixer < t0 + d {
            assert!((views[1].normalized_time - walk / 1.0).abs() < 1e-6, "walk at {mixer}: {views:?} vs {walk}");
        }
    }
}

#[test]
fn warp_lines_up_cycle_rates_and_restores_the_time_scale() {
    let mut run_state = state("run", "run", true);
    run_state.crossfade = Crossfade { duration: 0.0, warp: true };
    let g = graph(
        vec![param("go", ParameterDefault::Trigger)],
        vec![layer("base", 0)],
        vec![state("walk", "walk", true), run_state],
        vec![GraphTransition { conditions: vec![when(0, ConditionTest::Triggered)], blend: 1.0, ..tr(Some(0), 1) }],
    );
    let (mut inst, mut out) = instance(g);
    inst.set_trigger("go");
    inst.update(0.25, &mut out);
    // walk: 1 s per cycle, run: 0.5 s. Scales: run 0.5 -> 1, walk 1 -> 2.
    let mut prev: Vec<f64> = inst.active_states(0).map(|a| a.normalized_time).collect();
    for k in 0..4 {
        inst.update(0.25, &mut out);
        let views: Vec<_> = inst.active_states(0).collect();
        // three.js evaluates the warp at the mixer time after the step.
        let alpha = (k + 1) as f32 * 0.25;
        if k < 3 {
            assert!(close(views[0].time_scale, 0.5 + 0.5 * alpha), "run scale at frame {k}: {views:?}");
            assert!(close(views[1].time_scale, 1.0 + alpha), "walk scale at frame {k}: {views:?}");
            let d_run = views[0].normalized_time - prev[0];
            let d_walk = views[1].normalized_time - prev[1];
            assert!((d_run - d_walk).abs() < 1e-6, "both advance the same fraction of a cycle: {d_run} vs {d_walk}");
            prev = views.iter().map(|a| a.normalized_time).collect();
        } else {
            assert_eq!(views.len(), 1);
            assert_eq!(views[0].time_scale, 1.0, "restored when the blend ends");
        }
    }
    // Afterwards run advances at its own rate: 0.25 s / 0.5 s.
    let before = inst.active_states(0).next().unwrap().normalized_time;
    inst.update(0.25, &mut out);
    assert!((inst.active_states(0).next().unwrap().normalized_time - before - 0.5).abs() < 1e-6);
}

#[test]
fn blend_tree_children_share_one_normalized_clock() {
    let tree = walk_run_tree(0);
    let mut loco = state("loco", "walk", true);
    loco.motion = Motion::BlendTree(tree);
    let g = graph(vec![param("speed", ParameterDefault::Float(2.5))], vec![layer("base", 0)], vec![loco], vec![]);
    let (mut inst, mut out) = instance(g);
    // Weights 0.5 / 0.5, cycle 0.5·1 + 0.5·0.5 = 0.75 s: 0.375 s is half a cycle.
    inst.update(0.375, &mut out);
    assert!((inst.active_states(0).next().unwrap().normalized_time - 0.5).abs() < 1e-6);
    let cs = out.layer_contributions(0);
    assert_eq!(cs.len(), 2);
    assert_eq!((cs[0].clip, cs[0].time, cs[0].weight), (WALK, 0.5, 0.5));
    assert_eq!((cs[1].clip, cs[1].time, cs[1].weight), (RUN, 0.25, 0.5));
    assert!(matches!(cs[1].source, ContributionSource::State { child: 1, .. }));
    inst.set_float("speed", 4.0);
    inst.update(0.25, &mut out);
    assert_eq!(out.layer_contributions(0).len(), 1, "only run at speed 4");
    assert!((inst.active_states(0).next().unwrap().normalized_time - 1.0).abs() < 1e-6, "0.25 s of a 0.5 s cycle");
}

#[test]
fn instance_speed_scales_clocks_and_blends() {
    let g = graph(
        vec![param("go", ParameterDefault::Trigger)],
        vec![layer("base", 0)],
        vec![state("walk", "walk", true), state("idle", "idle", true)],
        vec![GraphTransition { conditions: vec![when(0, ConditionTest::Triggered)], blend: 1.0, ..tr(Some(0), 1) }],
    );
    let (mut inst, mut out) = instance(g);
    inst.set_speed(2.0);
    inst.update(0.125, &mut out);
    assert_eq!(inst.active_states(0).next().unwrap().normalized_time, 0.25);
    inst.set_trigger("go");
    inst.update(0.125, &mut out);
    inst.update(0.125, &mut out);
    assert!(close(out.clip_weight(0, IDLE), 0.25), "blend advanced 0.25 s of scaled time");
    inst.set_speed(-3.0);
    assert_eq!(inst.speed(), 0.0, "negative speeds clamp to 0");
}

#[test]
fn play_state_interrupts_a_transition_under_way() {
    let (mut inst, mut out) = instance(interruption_graph(Interruption::None, false, false));
    inst.set_bool("go_b", true);
    inst.update(0.125, &mut out);
    assert!(inst.transition(0).is_some());
    inst.clear_events();
    assert!(inst.play_state_named("run", Some(0.0)));
    assert_eq!(current(&inst), "run");
    assert_eq!(inst.active_states(0).count(), 1);
    assert!(inst.transition(0).is_none());
    assert!(matches!(inst.events()[0].kind, EventKind::TransitionFinished { interrupted: true, .. }));
    assert!(!inst.play_state_named("nope", None));
    // None = the state's own crossfade duration (0 here: a cut).
    assert!(inst.play_state_named("idle", None));
    assert_eq!(inst.active_states(0).count(), 1);
}

#[test]
fn inertialization_evaluates_only_the_target_and_exposes_its_timing() {
    let g = graph(
        vec![param("go", ParameterDefault::Trigger)],
        vec![layer("base", 0)],
        vec![state("idle", "idle", true), state("walk", "walk", true)],
        vec![GraphTransition {
            conditions: vec![when(0, ConditionTest::Triggered)],
            blend: 0.5,
            mode: TransitionMode::Inertialize,
            ..tr(Some(0), 1)
        }],
    );
    let (mut inst, mut out) = instance(g);
    inst.set_trigger("go");
    inst.update(0.25, &mut out);
    let (layer, cs) = out.find_layer(0).unwrap();
    assert_eq!(cs.len(), 1);
    assert_eq!((cs[0].clip, cs[0].weight), (WALK, 1.0));
    let i = layer.inertialization.expect("inertialization under way");
    assert_eq!((i.duration, i.elapsed, i.started_at, i.generation), (0.5, 0.0, 0.25, 1));
    inst.update(0.25, &mut out);
    assert_eq!(out.find_layer(0).unwrap().0.inertialization.unwrap().elapsed, 0.25);
    inst.update(0.25, &mut out);
    assert!(out.find_layer(0).unwrap().0.inertialization.is_none());
    assert!(inst.events().iter().any(|e| matches!(e.kind, EventKind::TransitionFinished { interrupted: false, .. })));
}

#[test]
fn layers_carry_weight_blend_mode_and_masks() {
    let mut upper = layer("upper", 1);
    upper.weight = 0.5;
    upper.blend_mode = BlendMode::Additive;
    upper.bone_mask = Some(BoneMask { include: vec!["spine".into()], exclude: vec![] });
    let mut aim = state("aim", "aim", true);
    aim.layer = 1;
    let mut masked = state("masked", "walk", true);
    masked.layer = 1;
    masked.weight = Some(0.3);
    masked.blend_mode = Some(BlendMode::Override);
    masked.bone_mask = Some(BoneMask::default());
    let g = graph(
        vec![param("m", ParameterDefault::Bool(false))],
        vec![layer("base", 0), upper],
        vec![state("idle", "idle", true), aim, masked],
        vec![GraphTransition { conditions: vec![when(0, ConditionTest::IsTrue)], ..tr(Some(1), 2) }],
    );
    let (mut inst, mut out) = instance(g);
    inst.update(0.125, &mut out);
    assert_eq!(out.layers.len(), 2);
    let (l, cs) = out.find_layer(1).unwrap();
    assert_eq!((l.weight, l.blend_mode, l.mask), (0.5, BlendMode::Additive, MaskRef::Layer(1)));
    assert_eq!((cs[0].weight, cs[0].blend_mode, cs[0].mask), (0.5, BlendMode::Additive, MaskRef::Layer(1)));
    inst.set_bool("m", true);
    inst.update(0.125, &mut out);
    let (_, cs) = out.find_layer(1).unwrap();
    assert_eq!(cs[0].weight, 0.3, "the state's own weight replaces the layer's");
    assert_eq!((cs[0].blend_mode, cs[0].mask), (BlendMode::Override, MaskRef::State(StateIndex(2))));
    assert!(inst.set_layer_weight(1, 2.0));
    assert!(!inst.set_layer_weight(5, 1.0));
    inst.update(0.125, &mut out);
    assert_eq!(out.find_layer(1).unwrap().0.weight, 1.0, "clamped");
}

#[test]
fn definitions_report_every_problem() {
    let mut bad = state("bad", "missing", true);
    bad.speed = 0.0;
    let g = graph(
        vec![param("f", ParameterDefault::Float(0.0))],
        vec![layer("base", 0)],
        vec![state("idle", "idle", true), bad],
        vec![GraphTransition { conditions: vec![when(0, ConditionTest::Triggered)], ..tr(Some(0), 1) }, tr(Some(0), 9)],
    );
    let err = zoa_anim_runtime::character::graph::GraphDefinition::new(g, clips()).unwrap_err();
    let zoa_anim_runtime::RuntimeError::InvalidJob { reasons, .. } = err else { panic!() };
    assert_eq!(reasons.len(), 4, "{reasons:#?}");
}

//! Invariants under random input: whatever the sequence of parameter changes,
//! forced states, slot plays and frame lengths, a layer's contributions sum
//! to 1, at most `MAX_ACTIVE_STATES` states blend, sample times stay inside
//! their clips, and every event lies inside the frame that queued it.

mod graph_common;

use graph_common::*;
use proptest::prelude::*;
use zoa_anim_core::graph::*;
use zoa_anim_runtime::character::graph::{MAX_ACTIVE_STATES, PlayOptions};

fn busy() -> AnimationGraph {
    let tree = walk_run_tree(2);
    let mut loco = state("loco", "walk", true);
    loco.motion = Motion::BlendTree(tree);
    loco.crossfade.warp = true;
    let cond = |p, test| vec![when(p, test)];
    graph(
        vec![
            param("go", ParameterDefault::Trigger),
            param("back", ParameterDefault::Bool(false)),
            param("speed", ParameterDefault::Float(2.0)),
        ],
        vec![layer("base", 0)],
        vec![state("idle", "idle", true), loco, state("hit", "hit", false), state("jump", "jump", false)],
        vec![
            GraphTransition {
                conditions: cond(0, ConditionTest::Triggered),
                blend: 0.3,
                interruption: Interruption::Next,
                ..tr(Some(0), 1)
            },
            GraphTransition {
                conditions: cond(1, ConditionTest::IsTrue),
                blend: 0.25,
                interruption: Interruption::Current,
                ..tr(Some(1), 0)
            },
            GraphTransition { conditions: cond(1, ConditionTest::IsTrue), blend: 0.2, ..tr(Some(1), 3) },
            GraphTransition {
                conditions: cond(0, ConditionTest::Triggered),
                blend: 0.15,
                interruption: Interruption::Current,
                ..tr(None, 2)
            },
            GraphTransition { exit_time: Some(0.8), blend: 0.1, ..tr(Some(2), 0) },
            GraphTransition { exit_time: Some(1.0), blend: 0.0, ..tr(Some(3), 1) },
        ],
    )
}

#[derive(Debug, Clone)]
enum Op {
    Trigger,
    Back(bool),
    Speed(f32),
    Force(u16, f32),
    Slot(bool),
    Frame(f32),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        Just(Op::Trigger),
        any::<bool>().prop_map(Op::Back),
        (0.0f32..5.0).prop_map(Op::Speed),
        ((0u16..4), (0.0f32..0.4)).prop_map(|(s, b)| Op::Force(s, b)),
        any::<bool>().prop_map(Op::Slot),
        (0.0f32..0.3).prop_map(Op::Frame),
        (0.0f32..0.3).prop_map(Op::Frame),
        (0.0f32..0.3).prop_map(Op::Frame),
    ]
}

proptest! {
    #[test]
    fn layer_weights_stay_normalized_and_events_stay_in_their_frame(ops in prop::collection::vec(op(), 1..120)) {
        let (mut inst, mut out) = instance(busy());
        let table = clips();
        for op in ops {
            match op {
                Op::Trigger => { inst.set_trigger("go"); }
                Op::Back(b) => { inst.set_bool("back", b); }
                Op::Speed(v) => { inst.set_float("speed", v); }
                Op::Force(s, b) => { inst.play_state(StateIndex(s), Some(b)); }
                Op::Slot(looping) => {
                    let opts = PlayOptions { looping, blend_in: 0.1, blend_out: 0.1, ..PlayOptions::default() };
                    inst.play_override(zoa_anim_runtime::character::graph::ClipId(5), opts);
                }
                Op::Frame(dt) => {
                    inst.clear_events();
                    let t0 = inst.time();
                    inst.update(dt, &mut out);
                    prop_assert_eq!(out.overflow, 0);
                    let base: f32 = out.layer_contributions(0).iter().map(|c| c.weight).sum();
                    prop_assert!((base - 1.0).abs() < 1e-4, "base layer weights sum to {}", base);
                    prop_assert!(inst.active_states(0).count() <= MAX_ACTIVE_STATES);
                    for c in &out.contributions {
                        let d = table.get(c.clip).duration;
                        prop_assert!(c.time >= 0.0 && c.time <= d, "time {} of a {} s clip", c.time, d);
                        prop_assert!(c.prev_time >= 0.0 && c.prev_time <= d);
                        prop_assert!((0.0..=1.0 + 1e-6).contains(&c.weight));
                    }
                    for e in inst.events() {
                        prop_assert!(e.time >= t0 - 1e-9 && e.time <= t0 + f64::from(dt) + 1e-9);
                    }
                }
            }
        }
    }
}

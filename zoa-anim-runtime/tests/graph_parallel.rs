//! Serial and parallel (rayon) updates give identical outputs and identical
//! delivered event order, for any thread count.

mod graph_common;

use std::sync::Arc;

use graph_common::*;
use zoa_anim_core::graph::*;
use zoa_anim_runtime::character::graph::{FrameOutput, GraphDefinition, GraphInstance, PlayOptions};

fn crowd() -> (Vec<GraphInstance>, Vec<FrameOutput>) {
    let g = graph(
        vec![param("go", ParameterDefault::Trigger), param("back", ParameterDefault::Bool(false))],
        vec![layer("base", 0)],
        vec![state("walk", "walk", true), state("run", "run", true), state("hit", "hit", false)],
        vec![
            GraphTransition { conditions: vec![when(0, ConditionTest::Triggered)], blend: 0.3, ..tr(Some(0), 1) },
            GraphTransition { conditions: vec![when(1, ConditionTest::IsTrue)], blend: 0.2, ..tr(Some(1), 0) },
            GraphTransition { conditions: vec![when(0, ConditionTest::Triggered)], ..tr(None, 2) },
            GraphTransition { exit_time: Some(1.0), blend: 0.1, ..tr(Some(2), 0) },
        ],
    );
    let def = Arc::new(GraphDefinition::new(g, clips()).unwrap());
    let instances: Vec<_> = (0..48)
        .map(|i| {
            let mut inst = GraphInstance::new(Arc::clone(&def));
            inst.set_speed(0.5 + (i % 7) as f32 * 0.25);
            inst
        })
        .collect();
    let outputs = instances.iter().map(GraphInstance::new_output).collect();
    (instances, outputs)
}

fn simulate(parallel: bool, threads: usize) -> (Vec<String>, Vec<FrameOutput>) {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
    let (mut instances, mut outputs) = crowd();
    let mut rec = Recorder::default();
    let mut snapshots = Vec::new();
    for frame in 0..240 {
        for (i, inst) in instances.iter_mut().enumerate() {
            if (frame + i) % 37 == 0 {
                inst.set_trigger("go");
            }
            inst.set_bool("back", (frame / 20 + i) % 3 == 0);
            if (frame + 3 * i) % 90 == 0 {
                inst.play_override(zoa_anim_runtime::character::graph::ClipId(5), PlayOptions::once(0.1, 0.2));
            }
        }
        if parallel {
            use rayon::prelude::*;
            pool.install(|| {
                instances.par_iter_mut().zip(outputs.par_iter_mut()).for_each(|(i, o)| i.update(1.0 / 30.0, o))
            });
        } else {
            for (i, o) in instances.iter_mut().zip(outputs.iter_mut()) {
                i.update(1.0 / 30.0, o);
            }
        }
        rec.log.push(format!("-- frame {frame}"));
        for i in instances.iter_mut() {
            i.deliver_events(&mut rec);
        }
        if frame % 40 == 0 {
            snapshots.extend(outputs.iter().cloned());
        }
    }
    (rec.log, snapshots)
}

#[test]
fn parallel_matches_serial_for_any_thread_count() {
    let (serial_log, serial_out) = simulate(false, 1);
    assert!(serial_log.iter().any(|l| l.starts_with("notify")), "the scenario fires notifies");
    assert!(serial_log.iter().any(|l| l.starts_with("state")), "and state changes");
    for threads in [1, 2, 4] {
        let (log, out) = simulate(true, threads);
        assert_eq!(log, serial_log, "{threads} threads");
        assert_eq!(out, serial_out, "{threads} threads");
    }
}

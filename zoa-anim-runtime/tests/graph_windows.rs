//! Notify windows: begin and end events at their times across loop wraps
//! (several per frame included), one end per begin through cross-fades, cuts
//! and the override slot, and instant notifies unchanged beside them.

mod graph_common;

use std::sync::Arc;

use graph_common::*;
use zoa_anim_core::graph::*;
use zoa_anim_runtime::character::events::{Event, EventKind};
use zoa_anim_runtime::character::graph::{
    ClipId, ClipInfo, ClipTable, FrameOutput, GraphDefinition, GraphInstance, PlayOptions,
};

/// swing 1 s looping: `combo` window 0.3..0.6 s, `Whoosh` at 0.3 s; guard
/// 0.5 s looping: `block` window 0.0..0.25 s; strike 1 s once: `hitbox`
/// window 0.2..1.0 s (to its end).
fn clips() -> Arc<ClipTable> {
    Arc::new(
        ClipTable::new(vec![
            ClipInfo::new("swing", 1.0).with_window("combo", 0.3, 0.3).with_notify("Whoosh", 0.3),
            ClipInfo::new("guard", 0.5).with_window("block", 0.0, 0.25),
            ClipInfo::new("strike", 1.0).with_loop_hint(false).with_window("hitbox", 0.2, 0.8),
        ])
        .unwrap(),
    )
}

fn one_state(clip: &str, looping: bool) -> (GraphInstance, FrameOutput) {
    let g = graph(vec![], vec![layer("base", 0)], vec![state(clip, clip, looping)], vec![]);
    let inst = GraphInstance::new(Arc::new(GraphDefinition::new(g, clips()).unwrap()));
    let out = inst.new_output();
    (inst, out)
}

/// `(kind, name, time)` of the window events, in delivery order.
fn windows(events: &[Event]) -> Vec<(&'static str, String, f64)> {
    let mut evs: Vec<&Event> = events.iter().collect();
    evs.sort_by(|a, b| a.time.total_cmp(&b.time).then(a.kind.rank().cmp(&b.kind.rank())));
    evs.into_iter()
        .filter(|e| matches!(e.kind, EventKind::NotifyBegin { .. } | EventKind::NotifyEnd { .. }))
        .map(|e| (e.kind.as_str(), e.name.to_string(), e.time))
        .collect()
}

/// Every window's events alternate begin, end, begin, … per (source, clip, notify).
fn assert_paired(events: &[Event]) {
    let mut open: Vec<(String, ClipId, u16)> = Vec::new();
    let mut evs: Vec<&Event> = events.iter().collect();
    evs.sort_by(|a, b| a.time.total_cmp(&b.time).then(a.kind.rank().cmp(&b.kind.rank())));
    for e in evs {
        match e.kind {
            EventKind::NotifyBegin { source, clip, notify } => {
                let key = (format!("{source:?}"), clip, notify);
                assert!(!open.contains(&key), "{e} begins twice");
                open.push(key);
            }
            EventKind::NotifyEnd { source, clip, notify, .. } => {
                let key = (format!("{source:?}"), clip, notify);
                let at = open.iter().position(|k| *k == key).unwrap_or_else(|| panic!("{e} ends unopened"));
                open.remove(at);
            }
            _ => {}
        }
    }
}

/// Within f32 precision of clip seconds.
fn close_to(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-6
}

#[test]
fn a_window_begins_and_ends_at_its_times_on_every_loop_even_several_per_frame() {
    let (mut inst, mut out) = one_state("swing", true);
    inst.update(2.5, &mut out);
    let got = windows(inst.events());
    let want =
        [(0.3, "notify_begin"), (0.6, "notify_end"), (1.3, "notify_begin"), (1.6, "notify_end"), (2.3, "notify_begin")];
    assert_eq!(got.len(), want.len(), "{got:?}");
    for ((kind, name, t), (wt, wk)) in got.iter().zip(want) {
        assert!(*kind == wk && name == "combo" && close_to(*t, wt), "{got:?}");
    }
    // The instant notify beside it is unchanged: once per loop.
    let whoosh = inst.events().iter().filter(|e| matches!(e.kind, EventKind::Notify { .. })).count();
    assert_eq!(whoosh, 3);
    // Frame by frame the same events come out, once each.
    let (mut inst, mut out) = one_state("swing", true);
    let mut all = Vec::new();
    for _ in 0..150 {
        inst.update(1.0 / 60.0, &mut out);
        all.extend_from_slice(inst.events());
        inst.clear_events();
    }
    let got = windows(&all);
    assert_eq!(got.iter().map(|g| g.0).collect::<Vec<_>>(), want.map(|w| w.1));
    for ((_, _, t), (wt, _)) in got.iter().zip(want) {
        assert!((t - wt).abs() < 1e-6, "{got:?}");
    }
    assert_paired(&all);
}

#[test]
fn a_window_at_the_clips_start_begins_on_entry_and_one_to_its_end_ends_there() {
    let (mut inst, mut out) = one_state("guard", true);
    inst.update(0.01, &mut out);
    assert_eq!(windows(inst.events()), [("notify_begin", "block".to_owned(), 0.0)]);
    let (mut inst, mut out) = one_state("strike", false);
    run(&mut inst, &mut out, 0.1, 12);
    let got = windows(inst.events());
    assert_eq!(got.len(), 2, "{got:?}");
    assert!(close_to(got[0].2, 0.2) && got[1].0 == "notify_end" && close_to(got[1].2, 1.0), "{got:?}");
}

#[test]
fn a_cross_fade_ends_the_old_leaders_window_once_and_begins_the_new_leaders_inside_one() {
    // swing (combo open from 0.3 s) cross-fades to guard over 0.2 s from 0.35 s: guard leads from 0.45 s.
    let go = GraphTransition { conditions: vec![when(0, ConditionTest::Triggered)], blend: 0.2, ..tr(Some(0), 1) };
    let g = graph(
        vec![param("go", ParameterDefault::Trigger)],
        vec![layer("base", 0)],
        vec![state("swing", "swing", true), state("guard", "guard", true)],
        vec![go],
    );
    let mut inst = GraphInstance::new(Arc::new(GraphDefinition::new(g, clips()).unwrap()));
    let mut out = inst.new_output();
    let mut all = Vec::new();
    let mut step = |inst: &mut GraphInstance, n: usize| {
        for _ in 0..n {
            inst.update(0.05, &mut out);
            all.extend_from_slice(inst.events());
            inst.clear_events();
        }
    };
    step(&mut inst, 7);
    inst.set_trigger("go");
    step(&mut inst, 30);
    assert_paired(&all);
    let got = windows(&all);
    let cut: Vec<_> = got.iter().filter(|g| g.0 == "notify_cut").collect();
    assert_eq!(cut.len(), 1, "swing's combo is cut once, when guard takes the lead: {got:?}");
    assert_eq!(cut[0].1, "combo");
    assert!(cut[0].2 > 0.4 && cut[0].2 < 0.6, "{got:?}");
    // Guard entered at 0; it leads from half way through the fade and its clock is then inside `block` or crosses it.
    assert!(got.iter().any(|g| g.0 == "notify_begin" && g.1 == "block"), "{got:?}");
}

#[test]
fn a_cut_and_the_slot_end_their_windows_and_the_slot_follows_its_own() {
    // A state forced away cuts its window.
    let g = graph(
        vec![],
        vec![layer("base", 0)],
        vec![state("strike", "strike", false), state("guard", "guard", true)],
        vec![],
    );
    let mut inst = GraphInstance::new(Arc::new(GraphDefinition::new(g, clips()).unwrap()));
    let mut out = inst.new_output();
    run(&mut inst, &mut out, 0.1, 4); // hitbox open since 0.2 s
    assert!(inst.play_state_named("guard", Some(0.0)));
    run(&mut inst, &mut out, 0.1, 1);
    assert_paired(inst.events());
    let got = windows(inst.events());
    assert_eq!(
        got.iter().map(|g| (g.0, g.1.as_str())).collect::<Vec<_>>(),
        [("notify_begin", "hitbox"), ("notify_cut", "hitbox"), ("notify_begin", "block"),]
    );
    // The override slot: a stop ends what is open; a clip played through ends at its end.
    let (mut inst, mut out) = one_state("guard", true);
    inst.clear_events();
    assert!(inst.play_override(ClipId(2), PlayOptions::once(0.0, 0.0)));
    run(&mut inst, &mut out, 0.1, 4);
    inst.stop();
    run(&mut inst, &mut out, 0.1, 1);
    let slot: Vec<_> = windows(inst.events()).into_iter().filter(|g| g.1 == "hitbox").collect();
    assert_eq!(slot.iter().map(|g| g.0).collect::<Vec<_>>(), ["notify_begin", "notify_cut"]);
    assert_paired(inst.events());
}

//! Sync groups: a cross-fade between clips of different lengths keeps their
//! sync markers together, a joining state starts at the leader's position,
//! the lead passes to the heavier state, clips without markers fall back to
//! normalized time, and notifies are crossed once each.

mod graph_common;

use std::sync::Arc;

use graph_common::*;
use zoa_anim_core::graph::*;
use zoa_anim_runtime::character::events::EventKind;
use zoa_anim_runtime::character::graph::{
    ClipId, ClipInfo, ClipTable, ContributionSource, FrameOutput, GraphDefinition, GraphInstance,
};

const DT: f32 = 1.0 / 60.0;
const WALK: ClipId = ClipId(0);
const RUN: ClipId = ClipId(1);

/// walk 1.0 s with the left foot down at 10 % and the right at 60 %; run
/// 0.7 s with the left foot at 50 % and the right at 86 %: different lengths
/// and different foot timings. `plain_*` are the same clips without markers.
fn clips() -> Arc<ClipTable> {
    Arc::new(
        ClipTable::new(vec![
            ClipInfo::new("walk", 1.0).with_marker("foot_l", 0.1).with_marker("foot_r", 0.6).with_notify("Step", 0.1),
            ClipInfo::new("run", 0.7).with_marker("foot_l", 0.35).with_marker("foot_r", 0.6).with_notify("Step", 0.35),
            ClipInfo::new("plain_walk", 1.0),
            ClipInfo::new("plain_run", 0.7),
        ])
        .unwrap(),
    )
}

/// `walk` → `run` on trigger `go` with a `blend`-second cross-fade, both in
/// sync group `group` (or in none).
fn walk_to_run(walk: &str, run: &str, group: Option<&str>, blend: f32) -> (GraphInstance, FrameOutput) {
    let states = [("walk", walk), ("run", run)]
        .map(|(name, clip)| GraphState { sync_group: group.map(Into::into), ..state(name, clip, true) });
    let go = GraphTransition { conditions: vec![when(0, ConditionTest::Triggered)], blend, ..tr(Some(0), 1) };
    let g = graph(vec![param("go", ParameterDefault::Trigger)], vec![layer("base", 0)], states.to_vec(), vec![go]);
    let inst = GraphInstance::new(Arc::new(GraphDefinition::new(g, clips()).unwrap()));
    let out = inst.new_output();
    (inst, out)
}

/// Clip time of `clip` in the frame's base layer.
fn time_of(out: &FrameOutput, clip: ClipId) -> Option<f32> {
    out.find_layer(0)?.1.iter().find(|c| c.clip == clip).map(|c| c.time)
}

/// Frames (indices) in which each clip's time crossed `at` seconds, over a
/// three-second walk → run cross-fade started after 0.37 s of walking.
fn crossings(group: Option<&str>, walk_at: f32, run_at: f32) -> (Vec<usize>, Vec<usize>) {
    let (mut inst, mut out) = walk_to_run("walk", "run", group, 3.0);
    run(&mut inst, &mut out, DT, 22);
    inst.set_trigger("go");
    let (mut walk, mut run_) = (Vec::new(), Vec::new());
    let mut last = (time_of(&out, WALK), None);
    for frame in 0..180 {
        inst.update(DT, &mut out);
        let now = (time_of(&out, WALK), time_of(&out, RUN));
        for (prev, t, at, hits) in [(last.0, now.0, walk_at, &mut walk), (last.1, now.1, run_at, &mut run_)] {
            if let (Some(p), Some(t)) = (prev, t)
                && (if t >= p { p < at && at <= t } else { p < at || at <= t })
            {
                hits.push(frame);
            }
        }
        last = now;
    }
    (walk, run_)
}

#[test]
fn a_cross_fade_between_clips_of_different_lengths_keeps_the_left_foot_markers_within_one_frame() {
    let (walk, run_) = crossings(Some("feet"), 0.1, 0.35);
    assert!(walk.len() >= 2 && run_.len() >= 2, "both feet went down during the fade: {walk:?} {run_:?}");
    for w in &walk {
        assert!(run_.iter().any(|r| r.abs_diff(*w) <= 1), "walk's foot_l at frame {w}, run's at {run_:?}");
    }
    for r in &run_ {
        assert!(walk.iter().any(|w| w.abs_diff(*r) <= 1), "run's foot_l at frame {r}, walk's at {walk:?}");
    }
    // Without the group the two clips run on their own clocks and drift apart.
    let (walk, run_) = crossings(None, 0.1, 0.35);
    let in_step = walk.iter().filter(|w| run_.iter().any(|r| r.abs_diff(**w) <= 1)).count();
    assert!(in_step < walk.len(), "without a sync group the feet are out of step: {walk:?} {run_:?}");
}

#[test]
fn a_joining_state_starts_at_the_leaders_marker_position_and_the_heavier_state_leads() {
    let (mut inst, mut out) = walk_to_run("walk", "run", Some("feet"), 1.0);
    run(&mut inst, &mut out, DT, 21); // walk at 0.35 s: half way from foot_l (0.1) to foot_r (0.6)
    inst.set_trigger("go");
    inst.update(DT, &mut out); // the transition starts at the end of this frame
    inst.update(DT, &mut out); // run joins
    let (w, r) = (time_of(&out, WALK).unwrap(), time_of(&out, RUN).unwrap());
    let walk_frac = (w - 0.1) / 0.5;
    let run_frac = (r - 0.35) / 0.25;
    assert!((walk_frac - run_frac).abs() < 1e-4, "same fraction between the feet: walk {w} s, run {r} s");
    let leaders = |inst: &GraphInstance| -> Vec<(String, bool)> {
        let def = inst.definition().unwrap().clone();
        inst.sync_members(0).map(|m| (def.graph().states[m.state.index()].name.clone(), m.leader)).collect::<Vec<_>>()
    };
    assert_eq!(leaders(&inst), [("run".to_owned(), false), ("walk".to_owned(), true)]);
    let group: Vec<_> = inst.sync_members(0).map(|m| m.group.as_str()).collect();
    assert_eq!(group, ["feet", "feet"]);
    run(&mut inst, &mut out, DT, 40); // past half way: run is heavier
    assert_eq!(leaders(&inst), [("run".to_owned(), true), ("walk".to_owned(), false)]);
    // Still in step after the lead changed.
    let (w, r) = (time_of(&out, WALK).unwrap(), time_of(&out, RUN).unwrap());
    let frac =
        |t: f32, l: f32, rr: f32, len: f32| if t >= l { (t - l) / (rr - l) } else { (t + len - rr) / (l + len - rr) };
    let (fw, fr) = (frac(w, 0.1, 0.6, 1.0), frac(r, 0.35, 0.6, 0.7));
    assert!((fw - fr).abs() < 1e-3, "walk {w} s ({fw}), run {r} s ({fr})");
}

#[test]
fn without_markers_the_group_falls_back_to_normalized_time() {
    let (mut inst, mut out) = walk_to_run("plain_walk", "plain_run", Some("feet"), 1.0);
    run(&mut inst, &mut out, DT, 22);
    inst.set_trigger("go");
    for _ in 0..50 {
        inst.update(DT, &mut out);
        let cs = out.find_layer(0).unwrap().1;
        let phase = |clip: u32, len: f32| cs.iter().find(|c| c.clip == ClipId(clip)).map(|c| c.time / len);
        if let (Some(a), Some(b)) = (phase(2, 1.0), phase(3, 0.7)) {
            assert!((a - b).abs() < 1e-4, "normalized phases {a} and {b}");
        }
    }
}

#[test]
fn followers_cross_each_notify_once_and_never_run_backwards() {
    let (mut inst, mut out) = walk_to_run("walk", "run", Some("feet"), 1.0);
    let def = inst.definition().unwrap().clone();
    let policy = zoa_anim_runtime::character::graph::NotifyPolicy::All;
    inst = inst.with_notify_policy(policy);
    run(&mut inst, &mut out, DT, 22);
    inst.clear_events();
    inst.set_trigger("go");
    let mut last_total = [None::<f64>; 2];
    for _ in 0..90 {
        inst.update(DT, &mut out);
        for v in inst.active_states(0) {
            let k = v.state.index();
            if let Some(t) = last_total[k] {
                assert!(
                    v.normalized_time >= t,
                    "{} ran backwards: {t} → {}",
                    def.graph().states[k].name,
                    v.normalized_time
                );
            }
            last_total[k] = Some(v.normalized_time);
        }
    }
    // 1.5 s: walk steps (1 s cycle, kept by run's cycle after the fade) and run steps, each once per crossing.
    let steps: Vec<(ClipId, f64)> = inst
        .events()
        .iter()
        .filter_map(|e| match e.kind {
            EventKind::Notify { clip, .. } => Some((clip, e.time)),
            _ => None,
        })
        .collect();
    for clip in [WALK, RUN] {
        let times: Vec<f64> = steps.iter().filter(|s| s.0 == clip).map(|s| s.1).collect();
        assert!(times.windows(2).all(|w| w[1] - w[0] > 0.3), "{clip:?} stepped twice in a row: {times:?}");
    }
    let kinds: Vec<ContributionSource> = out.contributions.iter().map(|c| c.source).collect();
    assert_eq!(kinds.len(), 1, "the fade is over: {kinds:?}");
}

#[test]
fn a_blend_tree_state_follows_by_its_heaviest_childs_markers() {
    // `walk` leads; `tree` (walk/run 1D on `speed`, run heaviest) joins the group.
    let tree = BlendTree {
        kind: BlendTreeKind::OneD,
        parameter: Some(ParameterIndex(1)),
        parameter_y: None,
        weighting: Default::default(),
        children: vec![
            BlendChild { motion: Motion::Clip("plain_walk".into()), threshold: 0.0, threshold_y: None, weight: None },
            BlendChild { motion: Motion::Clip("run".into()), threshold: 1.0, threshold_y: None, weight: None },
        ],
    };
    let states = vec![
        GraphState { sync_group: Some("feet".into()), ..state("walk", "walk", true) },
        GraphState { sync_group: Some("feet".into()), motion: Motion::BlendTree(tree), ..state("tree", "", true) },
    ];
    let go = GraphTransition { conditions: vec![when(0, ConditionTest::Triggered)], blend: 1.0, ..tr(Some(0), 1) };
    let params = vec![param("go", ParameterDefault::Trigger), param("speed", ParameterDefault::Float(0.8))];
    let g = graph(params, vec![layer("base", 0)], states, vec![go]);
    let mut inst = GraphInstance::new(Arc::new(GraphDefinition::new(g, clips()).unwrap()));
    let mut out = inst.new_output();
    run(&mut inst, &mut out, DT, 21);
    inst.set_trigger("go");
    run(&mut inst, &mut out, DT, 2);
    let w = time_of(&out, WALK).unwrap();
    let r = time_of(&out, RUN).unwrap();
    assert!(((w - 0.1) / 0.5 - (r - 0.35) / 0.25).abs() < 1e-4, "walk {w} s, the tree's run {r} s");
    let member = inst.sync_members(0).find(|m| !m.leader).unwrap();
    assert_eq!(member.clip, RUN, "the tree follows by its heaviest child");
}

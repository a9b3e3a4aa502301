//! Tag-driven selector: hold, crossfade, trigger kinds (tag change, event,
//! input threshold with hysteresis), several dimensions at once, one-shot
//! hand-back, the no-match fallback order and the procedural values.

mod graph_common;

use graph_common::*;
use zoa_anim_core::resolver::MatchKind;
use zoa_anim_core::{
    DimensionSet, NoMatchPolicy, RigPolicy, StateDimension, StateGraph, StateTagSet, TaggedClipEntry, TransitionPolicy,
    TransitionTrigger,
};
use zoa_anim_runtime::character::graph::{ClipId, FrameOutput};
use zoa_anim_runtime::character::selector::{SelectorMode, TagSelector, procedural_motion};

const DT: f32 = 0.0625;

fn tags(s: &str) -> StateTagSet {
    s.parse().unwrap()
}

/// Every tagged row asserts locomotion (never relaxed), so fallbacks cannot
/// wander into unrelated rows.
fn rows() -> Vec<TaggedClipEntry> {
    vec![
        TaggedClipEntry::new(StateTagSet::EMPTY, "idle"),
        TaggedClipEntry::new(tags("locomotion=idle"), "idle"),
        TaggedClipEntry::new(tags("locomotion=idle posture=crouching"), "walk"),
        TaggedClipEntry::new(tags("locomotion=idle posture=prone"), "run"),
        TaggedClipEntry::new(tags("locomotion=idle combat=aiming"), "aim"),
        TaggedClipEntry::new(tags("locomotion=run"), "run"),
        TaggedClipEntry { one_shot: true, ..TaggedClipEntry::new(tags("locomotion=land"), "jump") },
    ]
}

fn selector(timing: StateGraph) -> (TagSelector, FrameOutput) {
    let s =
        TagSelector::new(rows(), NoMatchPolicy::Hold, clips(), timing, RigPolicy::default(), tags("locomotion=idle"))
            .unwrap();
    let out = s.new_output();
    (s, out)
}

fn step(s: &mut TagSelector, out: &mut FrameOutput, n: usize) {
    for _ in 0..n {
        s.update(DT, out);
    }
}

#[test]
fn a_change_cross_fades_over_its_dimension_crossfade() {
    let (mut s, mut out) = selector(StateGraph::default());
    assert_eq!(s.mode(), SelectorMode::Row(1));
    assert_eq!(s.resolution().unwrap().kind, MatchKind::Exact);
    s.set_tags(tags("locomotion=idle posture=crouching"));
    s.update(DT, &mut out); // posture: OnTagChange, 0.25 s
    assert_eq!(s.mode(), SelectorMode::Row(2));
    assert!(close(out.clip_weight(0, ClipId(1)), 0.25) && close(out.clip_weight(0, ClipId(0)), 0.75));
    step(&mut s, &mut out, 3);
    assert_eq!(out.clip_weight(0, ClipId(1)), 1.0);
    assert_eq!(out.layer_contributions(0).len(), 1);
}

#[test]
fn min_hold_defers_a_change_until_it_expires() {
    let (mut s, mut out) = selector(StateGraph::default());
    s.set_tags(tags("locomotion=idle posture=crouching"));
    s.update(DT, &mut out); // switched at t = 0.0625
    s.set_tags(tags("locomotion=idle posture=prone"));
    step(&mut s, &mut out, 4); // t = 0.3125: 0.25 s since the switch < 0.3 s hold
    assert_eq!(s.applied_tags(), tags("locomotion=idle posture=crouching"));
    assert_eq!(s.mode(), SelectorMode::Row(2));
    s.update(DT, &mut out); // t = 0.375: hold expired
    assert_eq!(s.applied_tags(), tags("locomotion=idle posture=prone"));
    assert_eq!(s.mode(), SelectorMode::Row(3));
}

#[test]
fn on_event_waits_for_the_event() {
    let (mut s, mut out) = selector(StateGraph::default());
    s.set_tags(tags("locomotion=idle combat=aiming"));
    step(&mut s, &mut out, 10);
    assert_eq!(s.mode(), SelectorMode::Row(1), "combat switches on an event");
    s.send_event(DimensionSet::EMPTY.with(StateDimension::Posture));
    s.update(DT, &mut out);
    assert_eq!(s.mode(), SelectorMode::Row(1), "an event for another dimension does not release it");
    s.send_event(DimensionSet::EMPTY.with(StateDimension::Combat));
    s.update(DT, &mut out);
    assert_eq!(s.mode(), SelectorMode::Row(4));
}

#[test]
fn on_input_threshold_switches_on_a_crossing_with_hysteresis() {
    // One threshold at 0.5 with a 0.1 dead band and no gaits: any crossing releases the change.
    let (s, mut out) = selector(StateGraph::default());
    let mut s = s.with_input_threshold(zoa_anim_runtime::character::selector::InputThreshold {
        threshold: 0.5,
        hysteresis: 0.1,
    });
    s.set_tags(tags("locomotion=run"));
    s.set_input(0.52); // inside the dead band 0.45..0.55
    step(&mut s, &mut out, 4);
    assert_eq!(s.mode(), SelectorMode::Row(1));
    s.set_input(0.6);
    s.update(DT, &mut out);
    assert_eq!(s.mode(), SelectorMode::Row(5));
    s.set_tags(tags("locomotion=idle"));
    s.set_input(0.5); // back into the band: not a crossing
    step(&mut s, &mut out, 4);
    assert_eq!(s.mode(), SelectorMode::Row(5));
    s.set_input(0.4);
    s.update(DT, &mut out);
    assert_eq!(s.mode(), SelectorMode::Row(1));
}

#[test]
fn several_dimensions_use_the_most_restrictive_hold_and_the_longest_crossfade() {
    let (mut s, mut out) = selector(StateGraph::default());
    // posture (hold 0.3, fade 0.25) and mood (hold 0.5, fade 0) together.
    s.set_tags(tags("locomotion=idle posture=crouching mood=alert"));
    s.update(DT, &mut out);
    assert_eq!(s.applied_tags(), tags("locomotion=idle posture=crouching mood=alert"));
    assert_eq!(s.mode(), SelectorMode::Row(2));
    assert!(close(s.current_weight(), 0.25), "the longer crossfade (posture's 0.25 s) applies");
    s.set_tags(tags("locomotion=idle posture=prone mood=calm"));
    step(&mut s, &mut out, 7); // t = 0.5: posture's hold passed, mood's (0.5 s since 0.0625) not
    assert_eq!(s.applied_tags(), tags("locomotion=idle posture=crouching mood=alert"));
    s.update(DT, &mut out); // t = 0.5625
    assert_eq!(s.applied_tags(), tags("locomotion=idle posture=prone mood=calm"));
    assert_eq!(s.mode(), SelectorMode::Row(3));
}

#[test]
fn a_one_shot_row_plays_once_and_hands_control_back() {
    let timing = StateGraph {
        id: "t".into(),
        policies: vec![TransitionPolicy {
            dimension: StateDimension::Locomotion,
            min_hold_seconds: 0.0,
            crossfade_seconds: 0.25,
            trigger: TransitionTrigger::OnTagChange,
        }],
        ..StateGraph::default()
    };
    let (mut s, mut out) = selector(timing);
    s.set_tags(tags("locomotion=land"));
    s.update(DT, &mut out);
    assert_eq!(s.mode(), SelectorMode::Row(6));
    step(&mut s, &mut out, 14); // jump (1 s) at 0.9375
    assert_eq!(s.mode(), SelectorMode::Row(6));
    s.update(DT, &mut out); // reaches its end
    assert_eq!(s.mode(), SelectorMode::Row(0), "back to the resolver's looping answer");
    assert_eq!(s.resolution().unwrap().kind, MatchKind::Default);
    step(&mut s, &mut out, 20);
    assert_eq!(s.mode(), SelectorMode::Row(0), "the one-shot does not replay while the tags stay");
    s.set_tags(tags("locomotion=idle"));
    s.update(DT, &mut out);
    assert_eq!(s.mode(), SelectorMode::Row(1));
    s.set_tags(tags("locomotion=land"));
    s.update(DT, &mut out);
    assert_eq!(s.mode(), SelectorMode::Row(6), "a new change plays it again");
}

/// One row that only a running entity matches (locomotion is never relaxed).
fn tagged_only() -> Vec<TaggedClipEntry> {
    vec![TaggedClipEntry::new(tags("locomotion=run"), "walk")]
}

#[test]
fn no_match_falls_back_to_procedural_then_default_idle_then_hold() {
    let start = tags("posture=prone locomotion=walk");
    let mk = |policy| {
        TagSelector::new(tagged_only(), policy, clips(), StateGraph::default(), RigPolicy::default(), start).unwrap()
    };
    let mut out = FrameOutput::with_capacity(1, 8);

    let mut s = mk(NoMatchPolicy::Procedural);
    assert_eq!(s.mode(), SelectorMode::Procedural);
    s.update(0.5, &mut out);
    assert!(out.layers.is_empty());
    let (m, w) = s.procedural().unwrap();
    assert_eq!(w, 1.0);
    let expect = procedural_motion(&RigPolicy::default(), 0.5, true, 1.8);
    assert_eq!(m, expect, "moving (locomotion=walk): breath and head bob");
    assert!(m.head_bob != 0.0);

    let mut s = mk(NoMatchPolicy::DefaultIdle("idle".into()));
    assert_eq!(s.mode(), SelectorMode::DefaultIdle);
    s.update(0.5, &mut out);
    assert_eq!(out.clip_weight(0, ClipId(0)), 1.0);
    assert!(s.procedural().is_none());

    let mut s = mk(NoMatchPolicy::Hold);
    assert_eq!(s.mode(), SelectorMode::Hold);
    s.update(0.5, &mut out);
    assert!(out.layers.is_empty(), "nothing played before: nothing to hold");

    // Holding a pose that was playing: the clock freezes.
    let timing = StateGraph {
        id: "t".into(),
        policies: vec![TransitionPolicy {
            dimension: StateDimension::Locomotion,
            min_hold_seconds: 0.0,
            crossfade_seconds: 0.0,
            trigger: TransitionTrigger::OnTagChange,
        }],
        ..StateGraph::default()
    };
    let mut s = TagSelector::new(
        tagged_only(),
        NoMatchPolicy::Hold,
        clips(),
        timing,
        RigPolicy::default(),
        tags("locomotion=run"),
    )
    .unwrap();
    s.update(0.25, &mut out);
    s.set_tags(tags("locomotion=walk"));
    s.update(0.25, &mut out);
    assert_eq!(s.mode(), SelectorMode::Hold);
    let t = out.layer_contributions(0)[0].time;
    s.update(0.25, &mut out);
    assert_eq!(out.layer_contributions(0)[0].time, t);
}

#[test]
fn procedural_values_follow_the_rig_policy() {
    let policy =
        RigPolicy { breath_frequency: 0.25, breath_amplitude: 0.02, head_bob_amplitude: 0.03, ..RigPolicy::default() };
    let m = procedural_motion(&policy, 1.0, false, 2.0);
    assert!((m.spine_pitch - 0.02).abs() < 1e-6, "a quarter breath cycle: full amplitude");
    assert_eq!(m.head_bob, 0.0, "no head bob at rest");
    let m = procedural_motion(&policy, 0.125, true, 2.0);
    assert!((m.head_bob - 0.03).abs() < 1e-6, "a quarter step: full bob");
    assert!((m.head_offset().y - 0.03).abs() < 1e-6);
    assert!((m.spine_rotation().to_euler(zoa_anim_core::glam::EulerRot::XYZ).0 - m.spine_pitch).abs() < 1e-6);
}

#[test]
fn unresolved_clips_are_all_reported() {
    let rows =
        vec![TaggedClipEntry::new(StateTagSet::EMPTY, "nope"), TaggedClipEntry::new(tags("posture=prone"), "nah")];
    let err = TagSelector::new(
        rows,
        NoMatchPolicy::DefaultIdle("missing".into()),
        clips(),
        StateGraph::default(),
        RigPolicy::default(),
        StateTagSet::EMPTY,
    )
    .unwrap_err();
    let zoa_anim_runtime::RuntimeError::InvalidJob { reasons, .. } = err else { panic!() };
    assert_eq!(reasons.len(), 3, "{reasons:#?}");
}

#[test]
fn from_profile_flattens_the_inheritance_chain_child_rows_first() {
    use zoa_anim_core::AnimationProfile;
    let base = AnimationProfile {
        id: "base".into(),
        entries: vec![
            TaggedClipEntry::new(StateTagSet::EMPTY, "idle"),
            TaggedClipEntry::new(tags("locomotion=run"), "walk"),
        ],
        parent: None,
        procedural_fallbacks_allowed: false,
        default_idle_clip: None,
        pick: None,
        range_crossfade: None,
    };
    let rifle = AnimationProfile {
        id: "rifle".into(),
        entries: vec![TaggedClipEntry::new(tags("locomotion=run"), "run")],
        parent: Some("base".into()),
        procedural_fallbacks_allowed: false,
        default_idle_clip: Some("idle".into()),
        pick: None,
        range_crossfade: None,
    };
    let lookup = |id: &str| [&base, &rifle].into_iter().find(|p| p.id == id);
    let s = TagSelector::from_profile(
        &rifle,
        lookup,
        clips(),
        StateGraph::default(),
        RigPolicy::default(),
        tags("locomotion=run"),
    )
    .unwrap();
    let names: Vec<_> = s.rows().iter().map(|r| r.clip.as_str()).collect();
    assert_eq!(names, ["run", "idle"], "the child's run row overrides the parent's");
    assert_eq!(s.current_clip(), Some(ClipId(2)));
    let orphan = AnimationProfile { parent: Some("missing".into()), ..rifle.clone() };
    assert!(
        TagSelector::from_profile(&orphan, lookup, clips(), StateGraph::default(), RigPolicy::default(), tags(""))
            .is_err()
    );
}

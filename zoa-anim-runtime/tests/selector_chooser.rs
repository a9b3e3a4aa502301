//! Chooser columns and the random pick of a tag table: rows that also
//! require value ranges of bound parameters (checked after the tags, counted
//! in specificity, re-checked when a value changes), and tables that pick at
//! random among their tied best rows (weighted, re-picked only when the
//! group is entered, from the character's seed).

mod graph_common;

use std::sync::Arc;

use graph_common::*;
use zoa_anim_core::{
    AnimationBindingId, DefaultBindings, NoMatchPolicy, RigPolicy, RowPick, StateGraph, StateTagSet, TaggedClipEntry,
    ValueRange,
};
use zoa_anim_runtime::character::graph::{ClipId, FrameOutput};
use zoa_anim_runtime::character::selector::{SelectorMode, SelectorTable, TagSelector};

const DT: f32 = 0.05;
const WALK: ClipId = ClipId(1);
const RUN: ClipId = ClipId(2);

fn tags(s: &str) -> StateTagSet {
    s.parse().unwrap()
}

fn ranged(pattern: &str, clip: &str, ranges: &[(&str, f32, f32)]) -> TaggedClipEntry {
    TaggedClipEntry {
        ranges: ranges.iter().map(|&(p, min, max)| ValueRange { parameter: p.into(), min, max }).collect(),
        ..TaggedClipEntry::new(tags(pattern), clip)
    }
}

fn selector(rows: Vec<TaggedClipEntry>, pick: RowPick, initial: &str) -> (TagSelector, FrameOutput) {
    let table = SelectorTable::new(rows, NoMatchPolicy::Hold, clips(), StateGraph::default(), RigPolicy::default())
        .unwrap()
        .with_pick(pick, 0.1)
        .unwrap();
    let s = TagSelector::with_table(Arc::new(table), tags(initial));
    let out = s.new_output();
    (s, out)
}

fn aim_yaw() -> AnimationBindingId {
    AnimationBindingId::new("aim_yaw").unwrap()
}

#[test]
fn a_row_in_range_beats_the_plain_row_and_yields_out_of_range() {
    let rows = vec![
        TaggedClipEntry::new(tags("locomotion=walk"), "walk"),
        ranged("locomotion=walk", "run", &[("speed", 2.0, 4.0)]),
    ];
    let (mut s, mut out) = selector(rows, RowPick::Best, "locomotion=walk");
    // No speed yet: in no range, the plain row.
    assert_eq!(s.mode(), SelectorMode::Row(0));
    s.set_value(DefaultBindings::SPEED, 3.0);
    s.update(DT, &mut out);
    assert_eq!(s.mode(), SelectorMode::Row(1), "in range, one more column of specificity");
    assert_eq!(s.resolution().unwrap().specificity, 2);
    // The table's range cross-fade (0.1 s): half way after one 0.05 s frame.
    assert!(close(out.clip_weight(0, RUN), 0.5) && close(out.clip_weight(0, WALK), 0.5));
    s.update(DT, &mut out);
    assert_eq!(out.clip_weight(0, RUN), 1.0);
    // Half open: 4.0 is out of `2..4`.
    s.set_value(DefaultBindings::SPEED, 4.0);
    s.update(DT, &mut out);
    assert_eq!(s.mode(), SelectorMode::Row(0));
    // A value that does not change re-selects nothing.
    s.update(DT, &mut out);
    s.set_value(DefaultBindings::SPEED, 4.0);
    s.update(DT, &mut out);
    assert_eq!(out.clip_weight(0, WALK), 1.0);
}

#[test]
fn columns_hold_at_every_fallback_step_and_several_must_all_hold() {
    let rows = vec![
        TaggedClipEntry::new(tags("locomotion=idle mood=afraid"), "idle"),
        ranged("locomotion=idle mood=calm", "aim", &[("speed", f32::NEG_INFINITY, 1.0), ("aim_yaw", -45.0, 45.0)]),
    ];
    // Mood `alert` fails both rows' moods, so they are reached at fallback step 1 (mood relaxed).
    let (mut s, mut out) = selector(rows, RowPick::Best, "locomotion=idle mood=alert");
    s.set_value(DefaultBindings::SPEED, 0.0);
    s.update(DT, &mut out);
    assert_eq!(s.mode(), SelectorMode::Row(0), "aim_yaw never given: in no range");
    s.set_value(aim_yaw(), 10.0);
    s.update(DT, &mut out);
    assert_eq!(s.mode(), SelectorMode::Row(1));
    let r = s.resolution().unwrap();
    assert_eq!((r.step(), r.specificity), (Some(1), 3), "locomotion + two columns; mood relaxed");
    s.set_value(aim_yaw(), 90.0);
    s.update(DT, &mut out);
    assert_eq!(s.mode(), SelectorMode::Row(0), "one column failing is enough");
    assert!(s.value(aim_yaw()) == 90.0 && s.value(AnimationBindingId::new("lean").unwrap()).is_nan());
}

/// Three idles of weights 1, 2 and 1: each entry into the group picks again,
/// and the picks follow the weights; staying in the group keeps the pick.
#[test]
fn a_random_table_picks_by_weight_on_each_entry_and_keeps_its_pick_meanwhile() {
    let weighted =
        |clip: &str, w: f32| TaggedClipEntry { weight: w, ..TaggedClipEntry::new(tags("locomotion=idle"), clip) };
    let rows = vec![
        weighted("idle", 1.0),
        weighted("aim", 2.0),
        weighted("walk", 1.0),
        TaggedClipEntry::new(tags("locomotion=run"), "run"),
    ];
    let (mut s, mut out) = selector(rows.clone(), RowPick::Random, "locomotion=run");
    s.set_seed(7);
    let mut counts = [0usize; 3];
    for _ in 0..400 {
        s.set_tags(tags("locomotion=idle"));
        step(&mut s, &mut out, 2);
        let SelectorMode::Row(row) = s.mode() else { panic!("{:?}", s.mode()) };
        counts[row as usize] += 1;
        // Another tag change that resolves to the same group keeps the pick.
        s.set_tags(tags("locomotion=idle mood=calm"));
        step(&mut s, &mut out, 2);
        assert_eq!(s.mode(), SelectorMode::Row(row), "staying in the group keeps the pick");
        s.set_tags(tags("locomotion=run"));
        step(&mut s, &mut out, 2);
    }
    // Expected 100 / 200 / 100; binomial spread is about ±10 each.
    assert!(
        (60..140).contains(&counts[0]) && (160..240).contains(&counts[1]) && (60..140).contains(&counts[2]),
        "{counts:?}"
    );
    // The same seed replays the same picks; another seed, other picks.
    let picks = |seed: u64| {
        let (mut s, mut out) = selector(rows.clone(), RowPick::Random, "locomotion=run");
        s.set_seed(seed);
        (0..32)
            .map(|_| {
                s.set_tags(tags("locomotion=idle"));
                step(&mut s, &mut out, 1);
                let clip = s.current_clip();
                s.set_tags(tags("locomotion=run"));
                step(&mut s, &mut out, 1);
                clip
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(picks(3), picks(3));
    assert_ne!(picks(3), picks(4));
}

fn step(s: &mut TagSelector, out: &mut FrameOutput, n: usize) {
    for _ in 0..n {
        s.update(DT, out);
    }
}

//! Property tests of the tag algebra, the fallback walker and the resolver.
//!
//! The single-pass resolver is checked against a literal implementation of
//! the documented rules (try step 0, 1, … 5 with the walker, then the
//! untagged default), so the optimisation can never drift from the spec.

use proptest::prelude::*;
use zoa_anim_core::fallback::{RELAX_STEP_COUNT, relaxed_at, walk};
use zoa_anim_core::resolver::{
    MatchKind, Resolution, in_best_group, pick_in_best_group, resolve_at_step, resolve_best_match,
    resolve_best_match_where,
};
use zoa_anim_core::{StateDimension, StateTagSet};

/// Small masks so that matches are frequent: 3 low bits per dimension.
fn tag_set(density: u32) -> impl Strategy<Value = StateTagSet> {
    proptest::array::uniform6(0u32..8).prop_map(move |m| {
        let mut masks = m;
        for v in &mut masks {
            *v &= (1 << density) - 1;
        }
        StateTagSet::from_masks(masks)
    })
}

fn row() -> impl Strategy<Value = (StateTagSet, f32)> {
    // Patterns are sparse (most dimensions empty) like real tables.
    (tag_set(3), proptest::array::uniform6(proptest::bool::weighted(0.35)), 0u8..4).prop_map(|(set, keep, w)| {
        let mut masks = set.masks();
        for d in 0..6 {
            if !keep[d] {
                masks[d] = 0;
            }
        }
        (StateTagSet::from_masks(masks), w as f32)
    })
}

/// The rules, literally: walk the steps, then the default.
fn reference(rows: &[(StateTagSet, f32)], state: StateTagSet) -> Option<Resolution> {
    for step in 0..=RELAX_STEP_COUNT {
        if let Some(r) = resolve_at_step(rows, state, step) {
            return Some(r);
        }
    }
    let mut best: Option<(usize, f32)> = None;
    for (i, (p, w)) in rows.iter().enumerate() {
        if p.is_empty() && best.is_none_or(|(_, bw)| *w > bw) {
            best = Some((i, *w));
        }
    }
    best.map(|(row, _)| Resolution { row, kind: MatchKind::Default, specificity: 0 })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn empty_pattern_matches_every_state(state in tag_set(5)) {
        prop_assert!(state.matches(&StateTagSet::EMPTY));
    }

    #[test]
    fn specificity_is_additive_over_dimensions(set in tag_set(5)) {
        let sum: u32 = StateDimension::ALL.iter().map(|d| set.restrict_to(*d).specificity()).sum();
        prop_assert_eq!(set.specificity(), sum);
    }

    #[test]
    fn walker_never_clears_locomotion_and_only_shrinks(state in tag_set(5)) {
        let mut previous = state;
        let mut count = 0;
        for step in walk(state) {
            prop_assert_eq!(step.state.locomotion(), state.locomotion());
            prop_assert!(step.state.is_subset_of(&previous));
            prop_assert_eq!(step.relaxed, relaxed_at(step.step));
            previous = step.state;
            count += 1;
        }
        prop_assert_eq!(count, RELAX_STEP_COUNT);
    }

    #[test]
    fn single_pass_equals_literal_walk(rows in proptest::collection::vec(row(), 0..24), state in tag_set(3)) {
        prop_assert_eq!(resolve_best_match(&rows, state), reference(&rows, state));
    }

    #[test]
    fn resolved_pattern_fits_the_state_once_relaxed_dims_are_ignored(
        rows in proptest::collection::vec(row(), 1..24), state in tag_set(3)
    ) {
        if let Some(r) = resolve_best_match(&rows, state) {
            let pattern = rows[r.row].0;
            prop_assert!(pattern.without_all(r.relaxed()).is_subset_of(&state));
            if r.kind == MatchKind::Default {
                prop_assert!(pattern.is_empty());
            }
        }
    }

    #[test]
    fn exact_tagged_match_is_never_passed_over(rows in proptest::collection::vec(row(), 1..24), state in tag_set(3)) {
        let any_exact = rows.iter().any(|(p, _)| !p.is_empty() && state.matches(p));
        let r = resolve_best_match(&rows, state);
        if any_exact {
            prop_assert_eq!(r.map(|r| r.kind), Some(MatchKind::Exact));
        }
    }

    #[test]
    fn unrelated_non_matching_row_does_not_change_the_answer(
        rows in proptest::collection::vec(row(), 0..16), state in tag_set(3), at in 0usize..17, bits in 1u32..8
    ) {
        // A row whose locomotion conflicts with the state can never be a candidate.
        let free = !state.mask(StateDimension::Locomotion) & 0b111;
        prop_assume!(free & bits != 0);
        let intruder = (StateTagSet::EMPTY.with_mask(StateDimension::Locomotion, free & bits), 100.0);
        let at = at.min(rows.len());
        let mut with = rows.clone();
        with.insert(at, intruder);
        let before = resolve_best_match(&rows, state);
        let after = resolve_best_match(&with, state);
        let shifted = before.map(|r| Resolution { row: if r.row >= at { r.row + 1 } else { r.row }, ..r });
        prop_assert_eq!(after, shifted);
    }

    #[test]
    fn text_form_round_trips(set in tag_set(5)) {
        let text = set.to_string();
        prop_assert_eq!(text.parse::<StateTagSet>().unwrap(), set);
    }
}

/// The rules with chooser columns, literally: a row whose columns fail is no
/// candidate at any step; one whose columns hold gains one specificity per
/// column (`columns[i]`: `None` fails, `Some(n)` holds n columns).
fn reference_where(rows: &[(StateTagSet, f32)], columns: &[Option<u32>], state: StateTagSet) -> Option<Resolution> {
    use zoa_anim_core::fallback::relaxed_at;
    for step in 0..=RELAX_STEP_COUNT {
        let relaxed = relaxed_at(step);
        let mut best: Option<(usize, u32, f32)> = None;
        for (i, (p, w)) in rows.iter().enumerate() {
            let Some(extra) = columns[i] else { continue };
            let kept = p.without_all(relaxed);
            if p.is_empty() || !kept.is_subset_of(&state.without_all(relaxed)) {
                continue;
            }
            let spec = kept.specificity() + extra;
            if best.is_none_or(|(_, bs, bw)| spec > bs || (spec == bs && *w > bw)) {
                best = Some((i, spec, *w));
            }
        }
        if let Some((row, specificity, _)) = best {
            let kind = if step == 0 { MatchKind::Exact } else { MatchKind::Fallback { step: step as u8 } };
            return Some(Resolution { row, kind, specificity });
        }
    }
    let mut best: Option<(usize, u32, f32)> = None;
    for (i, (p, w)) in rows.iter().enumerate() {
        if let (true, Some(extra)) = (p.is_empty(), columns[i])
            && best.is_none_or(|(_, bs, bw)| extra > bs || (extra == bs && *w > bw))
        {
            best = Some((i, extra, *w));
        }
    }
    best.map(|(row, specificity, _)| Resolution { row, kind: MatchKind::Default, specificity })
}

fn column() -> impl Strategy<Value = Option<u32>> {
    prop_oneof![3 => Just(Some(0)), 1 => Just(None), 1 => (1u32..3).prop_map(Some)]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn single_pass_with_columns_equals_literal_walk(
        rows in proptest::collection::vec((row(), column()), 0..24),
        state in tag_set(3),
    ) {
        let (rows, columns): (Vec<_>, Vec<_>) = rows.into_iter().unzip();
        let got = resolve_best_match_where(&rows, state, |i| columns[i]);
        prop_assert_eq!(got, reference_where(&rows, &columns, state));
    }

    /// The random pick stays in the tied group, reaches each member with the
    /// share of the weight it has, and picks the best row when every column is 0.
    #[test]
    fn random_pick_is_a_member_of_the_best_group_chosen_by_weight(
        rows in proptest::collection::vec((row(), column()), 1..24),
        state in tag_set(3),
        u in 0.0f32..1.0,
    ) {
        let (rows, columns): (Vec<_>, Vec<_>) = rows.into_iter().unzip();
        let admit = |i: usize| columns[i];
        if let Some(best) = resolve_best_match_where(&rows, state, admit) {
            let picked = pick_in_best_group(&rows, state, admit, best, u);
            prop_assert!(in_best_group(&rows, state, admit, best, picked), "{picked} outside the group of {best:?}");
            let members: Vec<usize> = (0..rows.len()).filter(|&i| in_best_group(&rows, state, admit, best, i)).collect();
            prop_assert!(members.contains(&best.row));
            // Cumulative weight before the pick <= u * total < cumulative after it.
            let total: f32 = members.iter().map(|&i| rows[i].1).sum();
            if total > 0.0 {
                let before: f32 = members.iter().take_while(|&&i| i != picked).map(|&i| rows[i].1).sum();
                prop_assert!(rows[picked].1 > 0.0);
                prop_assert!(before <= u * total + 1e-4 && u * total < before + rows[picked].1 + 1e-4);
            } else {
                prop_assert_eq!(picked, best.row);
            }
        }
    }
}

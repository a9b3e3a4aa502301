//! Most-specific-match resolution over tagged tables, shared by animation
//! clip tables and sound profiles.
//!
//! # Semantics
//! A row carries a required pattern ([`StateTagSet`]) and a weight. If
//! relaxing only cleared bits of the state, fallback would be dead code:
//! matching is `pattern ⊆ state`, so a relaxed state could never match a row
//! the exact state did not. The intent — an entity that is sprinting must fall
//! back to some sprinting clip rather than degenerate into an idle — is given
//! by these rules:
//!
//! 1. At fallback step *k* (see [`crate::fallback`]) the relaxed dimensions are
//!    wildcards on **both** sides: a row is a candidate when its pattern, with
//!    the relaxed dimensions ignored, is a subset of the state. Step 0 is the
//!    exact attempt, where nothing is ignored.
//! 2. Within an attempt, specificity counts only the bits of the dimensions
//!    still compared; ties go to the higher weight, remaining ties to authoring
//!    order (the first row wins).
//! 3. Untagged rows (empty pattern) are the universal default: they are chosen
//!    only when no tagged row is a candidate at any step, so a sprinting entity
//!    reaches a sprint row with a conflicting mood before it reaches the
//!    untagged idle. The result then reports [`MatchKind::Default`], not a step.
//!    Among several untagged rows, weight then authoring order decides.
//!
//! Example: rows `[untagged → idle, {sprint, calm} → sprint_calm]`, state
//! `{sprint, alert}`: step 0 has no tagged candidate; step 1 ignores Mood, so
//! `sprint_calm` wins at step 1.
//!
//! A consequence authors should know: a row tagged *only* in dimensions that
//! fallback relaxes (say `reaction=dying`, no locomotion tag) has nothing left
//! to compare once those dimensions are relaxed, so at that step it is a
//! candidate (specificity 0) for every state and wins ahead of the untagged
//! default — rule 3 reserves the default for states no tagged row reaches at
//! any step. Give such rows a locomotion tag when that is not what you want;
//! `zoa-anim validate` notes them.
//!
//! # Chooser columns
//! A clip-table row may also require value ranges of bound parameters
//! ([`crate::ValueRange`]). [`resolve_best_match_where`] takes them as an
//! `admit` function: checked after the tag match, at every step alike (never
//! relaxed), each one counting 1 in the row's specificity, so `{run} & speed
//! in 4..6` beats `{run}` when the speed is 5 and yields to it at 3. A table
//! may pick at random among the rows tied on step and specificity
//! ([`pick_in_best_group`], weights as probabilities).
//!
//! # Cost
//! [`resolve_best_match`] makes **one pass** over the rows whatever the step
//! it ends at: for each row it computes the set of dimensions that fail the
//! subset test, looks up the first step at which all of them are relaxed, and
//! keeps the best `(step, specificity, weight, order)` seen. This is exactly
//! equivalent to trying step 0, 1, … 5 in turn (a property test checks it
//! against that literal walk) and allocates nothing.

use crate::fallback::{RELAX_STEP_COUNT, relaxed_at};
use crate::tags::{DimensionSet, StateTagSet};

/// A row of a tagged table: a required pattern and a tie-breaking weight.
///
/// Implementations must be cheap (they are called once per row per resolve)
/// and must not allocate.
pub trait TaggedRow {
    /// The tags the state must carry for this row to be a candidate.
    fn pattern(&self) -> StateTagSet;
    /// Tie-breaker among equally specific candidates; higher wins.
    fn weight(&self) -> f32;
}

impl TaggedRow for (StateTagSet, f32) {
    fn pattern(&self) -> StateTagSet {
        self.0
    }
    fn weight(&self) -> f32 {
        self.1
    }
}

impl<T: TaggedRow + ?Sized> TaggedRow for &T {
    fn pattern(&self) -> StateTagSet {
        (**self).pattern()
    }
    fn weight(&self) -> f32 {
        (**self).weight()
    }
}

/// How a resolution was reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MatchKind {
    /// A tagged row matched the active state as is (step 0).
    Exact,
    /// A tagged row matched once the dimensions of fallback `step` (1 ..= 5) were relaxed.
    Fallback {
        /// 1-based fallback step.
        step: u8,
    },
    /// No tagged row matched at any step; an untagged row was taken as the universal default.
    Default,
}

/// The winner of a resolution.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Resolution {
    /// Index of the winning row in the table.
    pub row: usize,
    /// How it was reached.
    pub kind: MatchKind,
    /// Specificity of the winning pattern over the dimensions still compared.
    pub specificity: u32,
}

impl Resolution {
    /// The step number: `Some(0)` exact, `Some(k)` fallback step k, `None` for the default row.
    #[must_use]
    pub const fn step(&self) -> Option<usize> {
        match self.kind {
            MatchKind::Exact => Some(0),
            MatchKind::Fallback { step } => Some(step as usize),
            MatchKind::Default => None,
        }
    }

    /// Dimensions ignored at the step that matched (empty for exact and default).
    #[must_use]
    pub const fn relaxed(&self) -> DimensionSet {
        match self.kind {
            MatchKind::Fallback { step } => relaxed_at(step as usize),
            _ => DimensionSet::EMPTY,
        }
    }

    /// Whether the universal-default (untagged) row was taken.
    #[must_use]
    pub const fn is_default(&self) -> bool {
        matches!(self.kind, MatchKind::Default)
    }
}

/// Step value meaning "never a candidate" (Locomotion fails). Larger than
/// any real step so a single `>` comparison rejects it.
const NEVER: u8 = RELAX_STEP_COUNT as u8 + 2;

/// `pattern & !state` has its highest set bit in the dimension that is relaxed
/// last among the failing ones, because [`StateTagSet`] packs dimensions in
/// relax order from the bottom. So the first step at which a row becomes a
/// candidate is a function of `leading_zeros(pattern & !state)` alone.
const STEP_BY_LEADING_ZEROS: [u8; 65] = {
    let mut table = [0u8; 65];
    let mut lz = 0;
    while lz < 64 {
        let bit = 1u64 << (63 - lz);
        let mut step = NEVER;
        let mut k = 0;
        while k <= RELAX_STEP_COUNT {
            if bit & !StateTagSet::dimensions_mask(relaxed_at(k)) == 0 {
                step = k as u8;
                break;
            }
            k += 1;
        }
        // Bits above the packed width never occur; any value is fine there.
        table[lz] = step;
        lz += 1;
    }
    table[64] = 0; // nothing fails: exact
    table
};

/// Per step, the packed bits still compared (relaxed dimensions cleared).
const KEEP_MASKS: [u64; RELAX_STEP_COUNT + 1] = {
    let mut out = [0u64; RELAX_STEP_COUNT + 1];
    let mut k = 0;
    while k <= RELAX_STEP_COUNT {
        out[k] = !StateTagSet::dimensions_mask(relaxed_at(k));
        k += 1;
    }
    out
};

/// First step at which `pattern` is a candidate for `state` ([`NEVER`] if none).
#[inline(always)]
fn first_step(pattern: u64, state: u64) -> u8 {
    STEP_BY_LEADING_ZEROS[(pattern & !state).leading_zeros() as usize]
}

/// Running best of one resolution: `(step, specificity, weight)` compared
/// lexicographically, earlier rows kept on full ties.
#[derive(Clone, Copy)]
struct Best {
    row: usize,
    step: u8,
    specificity: u32,
    weight: f32,
}

impl Best {
    #[inline(always)]
    fn beats(step: u8, specificity: u32, weight: f32, current: &Option<Best>) -> bool {
        match current {
            None => true,
            Some(b) => {
                step < b.step
                    || (step == b.step
                        && (specificity > b.specificity || (specificity == b.specificity && weight > b.weight)))
            }
        }
    }
}

/// Best match for `state`: exact first, then each fallback step, then the
/// untagged universal default (rules 1–3 in the module docs). `None` when the
/// table has no candidate at all. One pass, no allocation.
pub fn resolve_best_match<R: TaggedRow>(rows: &[R], state: StateTagSet) -> Option<Resolution> {
    resolve_best_match_where(rows, state, |_| Some(0))
}

/// [`resolve_best_match`] with chooser columns: `admit(i)` says whether row
/// `i`'s conditions besides the tags hold (`None`: it is no candidate) and how
/// many there are (`Some(n)`, added to its specificity). Checked only for rows
/// whose tags match, and at every fallback step alike (columns are never
/// relaxed). One pass, no allocation.
#[inline]
pub fn resolve_best_match_where<R: TaggedRow>(
    rows: &[R],
    state: StateTagSet,
    admit: impl Fn(usize) -> Option<u32>,
) -> Option<Resolution> {
    let s = state.packed();
    let mut best: Option<Best> = None;
    // Rows first reachable after step `bound` cannot win. `keep_bound` holds
    // the bits still compared at that step, so the common rejection is one
    // AND-NOT, one AND and a branch; the exact step is computed only for rows
    // that can still win.
    let mut keep_bound = KEEP_MASKS[RELAX_STEP_COUNT];
    let mut default: Option<Best> = None;
    for (i, row) in rows.iter().enumerate() {
        let p = row.pattern().packed();
        if p == 0 {
            let Some(extra) = admit(i) else { continue };
            let weight = row.weight();
            if default.is_none_or(|d| Best::beats(0, extra, weight, &Some(d))) {
                default = Some(Best { row: i, step: 0, specificity: extra, weight });
            }
            continue;
        }
        if p & !s & keep_bound != 0 {
            continue;
        }
        let Some(extra) = admit(i) else { continue };
        let step = first_step(p, s);
        let specificity = (p & KEEP_MASKS[step as usize]).count_ones() + extra;
        let weight = row.weight();
        if Best::beats(step, specificity, weight, &best) {
            best = Some(Best { row: i, step, specificity, weight });
            keep_bound = KEEP_MASKS[step as usize];
        }
    }
    match (best, default) {
        (Some(b), _) => Some(Resolution {
            row: b.row,
            kind: if b.step == 0 { MatchKind::Exact } else { MatchKind::Fallback { step: b.step } },
            specificity: b.specificity,
        }),
        (None, Some(d)) => Some(Resolution { row: d.row, kind: MatchKind::Default, specificity: d.specificity }),
        (None, None) => None,
    }
}

/// For a table that picks at random ([`crate::RowPick::Random`]): `best` (the
/// result of [`resolve_best_match_where`] with the same arguments) and every
/// other row tied with it on step and specificity form a group; `u` in
/// `[0, 1)` picks one of them with probability proportional to its weight
/// (the first when every weight is 0). Whether `row` is in that group is
/// [`in_best_group`]. Two passes, no allocation.
pub fn pick_in_best_group<R: TaggedRow>(
    rows: &[R],
    state: StateTagSet,
    admit: impl Fn(usize) -> Option<u32>,
    best: Resolution,
    u: f32,
) -> usize {
    let mut total = 0.0f64;
    for i in 0..rows.len() {
        if group_member(rows, state, &admit, best, i) {
            total += f64::from(rows[i].weight().max(0.0));
        }
    }
    if total <= 0.0 {
        return best.row;
    }
    let target = f64::from(u.clamp(0.0, 1.0)) * total;
    let mut acc = 0.0f64;
    let mut last = best.row;
    for i in 0..rows.len() {
        if group_member(rows, state, &admit, best, i) {
            let w = f64::from(rows[i].weight().max(0.0));
            if w > 0.0 {
                acc += w;
                last = i;
                if target < acc {
                    return i;
                }
            }
        }
    }
    last
}

/// Whether `row` ties with `best` on fallback step and specificity (see
/// [`pick_in_best_group`]). Allocation-free.
pub fn in_best_group<R: TaggedRow>(
    rows: &[R],
    state: StateTagSet,
    admit: impl Fn(usize) -> Option<u32>,
    best: Resolution,
    row: usize,
) -> bool {
    row < rows.len() && group_member(rows, state, &admit, best, row)
}

fn group_member<R: TaggedRow>(
    rows: &[R],
    state: StateTagSet,
    admit: &impl Fn(usize) -> Option<u32>,
    best: Resolution,
    i: usize,
) -> bool {
    let p = rows[i].pattern().packed();
    let s = state.packed();
    match best.kind {
        MatchKind::Default => p == 0 && admit(i) == Some(best.specificity),
        MatchKind::Exact | MatchKind::Fallback { .. } => {
            let step = best.step().unwrap_or(0);
            if p == 0 || first_step(p, s) as usize != step {
                return false;
            }
            admit(i).is_some_and(|extra| (p & KEEP_MASKS[step]).count_ones() + extra == best.specificity)
        }
    }
}

/// One literal attempt at fallback step `step` (0 = exact): tagged rows whose
/// pattern, with the relaxed dimensions ignored, is a subset of `state`;
/// untagged rows are not candidates here. Allocation-free.
///
/// # Panics
/// Debug-asserts `step <= RELAX_STEP_COUNT`.
pub fn resolve_at_step<R: TaggedRow>(rows: &[R], state: StateTagSet, step: usize) -> Option<Resolution> {
    debug_assert!(step <= RELAX_STEP_COUNT);
    let keep = KEEP_MASKS[step.min(RELAX_STEP_COUNT)];
    let s = state.packed();
    let mut best: Option<Best> = None;
    for (i, row) in rows.iter().enumerate() {
        let p = row.pattern().packed();
        if p == 0 || p & keep & !s != 0 {
            continue;
        }
        let specificity = (p & keep).count_ones();
        if Best::beats(0, specificity, row.weight(), &best) {
            best = Some(Best { row: i, step: 0, specificity, weight: row.weight() });
        }
    }
    best.map(|b| Resolution {
        row: b.row,
        kind: if step == 0 { MatchKind::Exact } else { MatchKind::Fallback { step: step as u8 } },
        specificity: b.specificity,
    })
}

/// A single exact attempt: every row whose pattern the state
/// satisfies is a candidate, **including** untagged rows (specificity 0), so
/// an untagged row wins only when no tagged row matches. An untagged winner is
/// reported as [`MatchKind::Default`]. Allocation-free.
pub fn resolve_at_exact_state<R: TaggedRow>(rows: &[R], state: StateTagSet) -> Option<Resolution> {
    resolve_at_step(rows, state, 0).or_else(|| {
        let mut default: Option<(usize, f32)> = None;
        for (i, row) in rows.iter().enumerate() {
            if row.pattern().is_empty() && default.is_none_or(|(_, w)| row.weight() > w) {
                default = Some((i, row.weight()));
            }
        }
        default.map(|(row, _)| Resolution { row, kind: MatchKind::Default, specificity: 0 })
    })
}

/// One candidate in a [`ResolutionTrace`] attempt.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TraceCandidate {
    /// Row index.
    pub row: usize,
    /// Specificity over the compared dimensions.
    pub specificity: u32,
    /// Row weight.
    pub weight: f32,
}

/// One attempt of a [`ResolutionTrace`].
#[derive(Debug, Clone, PartialEq)]
pub struct TraceAttempt {
    /// 0 = exact, 1 ..= 5 fallback steps.
    pub step: usize,
    /// Dimensions ignored at this step.
    pub relaxed: DimensionSet,
    /// The state as compared (relaxed dimensions cleared).
    pub state: StateTagSet,
    /// Candidates, best first (the first is the winner of this attempt).
    pub candidates: Vec<TraceCandidate>,
}

/// A step-by-step account of a resolution, for tools and error messages.
/// Allocates; not for hot paths.
#[derive(Debug, Clone, PartialEq)]
pub struct ResolutionTrace {
    /// The attempts made, up to and including the one that matched.
    pub attempts: Vec<TraceAttempt>,
    /// Untagged rows, best first (weight, then order).
    pub defaults: Vec<TraceCandidate>,
    /// The final answer (same as [`resolve_best_match`]).
    pub result: Option<Resolution>,
}

/// Explains [`resolve_best_match`]: which steps were tried, who the
/// candidates were at each, and why the winner beat the runner-up.
pub fn trace_resolution<R: TaggedRow>(rows: &[R], state: StateTagSet) -> ResolutionTrace {
    let mut attempts = Vec::new();
    for (step, &keep) in KEEP_MASKS.iter().enumerate() {
        let relaxed = relaxed_at(step);
        let mut candidates: Vec<TraceCandidate> = rows
            .iter()
            .enumerate()
            .filter(|(_, r)| !r.pattern().is_empty())
            .filter(|(_, r)| r.pattern().without_all(relaxed).is_subset_of(&state))
            .map(|(row, r)| TraceCandidate {
                row,
                specificity: (r.pattern().packed() & keep).count_ones(),
                weight: r.weight(),
            })
            .collect();
        candidates.sort_by(|a, b| {
            b.specificity
                .cmp(&a.specificity)
                .then(b.weight.partial_cmp(&a.weight).unwrap_or(std::cmp::Ordering::Equal))
                .then(a.row.cmp(&b.row))
        });
        let found = !candidates.is_empty();
        attempts.push(TraceAttempt { step, relaxed, state: state.without_all(relaxed), candidates });
        if found {
            break;
        }
    }
    let mut defaults: Vec<TraceCandidate> = rows
        .iter()
        .enumerate()
        .filter(|(_, r)| r.pattern().is_empty())
        .map(|(row, r)| TraceCandidate { row, specificity: 0, weight: r.weight() })
        .collect();
    defaults
        .sort_by(|a, b| b.weight.partial_cmp(&a.weight).unwrap_or(std::cmp::Ordering::Equal).then(a.row.cmp(&b.row)));
    ResolutionTrace { attempts, defaults, result: resolve_best_match(rows, state) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(text: &str) -> StateTagSet {
        text.parse().unwrap()
    }

    /// Sprint+alert asked, only sprint+calm authored: relaxing mood (fallback step 1) finds it.
    #[test]
    fn sprint_calm_wins_at_step_one_for_sprint_alert() {
        let rows = [(StateTagSet::EMPTY, 1.0), (t("locomotion=sprint mood=calm"), 1.0)];
        let r = resolve_best_match(&rows, t("locomotion=sprint mood=alert")).unwrap();
        assert_eq!(r.row, 1);
        assert_eq!(r.kind, MatchKind::Fallback { step: 1 });
        assert_eq!(r.specificity, 1);
        assert_eq!(r.relaxed().to_string(), "mood");
    }

    #[test]
    fn specificity_then_weight_then_order() {
        let rows = [
            (t("locomotion=walk"), 5.0),
            (t("locomotion=walk posture=standing"), 1.0),
            (t("locomotion=walk posture=crouching"), 9.0),
            (t("locomotion=walk combat=aiming"), 2.0),
            (t("locomotion=walk combat=aiming"), 2.0),
        ];
        let state = t("locomotion=walk posture=standing combat=aiming");
        let r = resolve_best_match(&rows, state).unwrap();
        assert_eq!((r.row, r.kind, r.specificity), (3, MatchKind::Exact, 2));
    }

    #[test]
    fn untagged_is_last_resort_and_locomotion_is_never_relaxed() {
        let rows = [(StateTagSet::EMPTY, 1.0), (t("locomotion=walk"), 1.0)];
        let r = resolve_best_match(&rows, t("locomotion=sprint")).unwrap();
        assert_eq!((r.row, r.kind, r.step()), (0, MatchKind::Default, None));
        assert!(resolve_best_match(&rows[1..], t("locomotion=sprint")).is_none());
        assert!(resolve_best_match::<(StateTagSet, f32)>(&[], t("locomotion=sprint")).is_none());
    }

    #[test]
    fn exact_state_includes_untagged_rows() {
        let rows = [(StateTagSet::EMPTY, 1.0), (t("locomotion=walk mood=calm"), 1.0)];
        assert_eq!(resolve_at_exact_state(&rows, t("locomotion=walk")).unwrap().kind, MatchKind::Default);
        assert_eq!(resolve_at_exact_state(&rows, t("locomotion=walk mood=calm")).unwrap().row, 1);
        assert_eq!(resolve_at_step(&rows, t("locomotion=walk"), 1).unwrap().row, 1);
    }

    #[test]
    fn trace_names_winner_and_runner_up() {
        let rows = [(t("locomotion=run"), 1.0), (t("locomotion=run mood=calm"), 1.0), (StateTagSet::EMPTY, 1.0)];
        let trace = trace_resolution(&rows, t("locomotion=run mood=calm"));
        assert_eq!(trace.attempts.len(), 1);
        assert_eq!(trace.attempts[0].candidates.iter().map(|c| c.row).collect::<Vec<_>>(), vec![1, 0]);
        assert_eq!(trace.defaults.len(), 1);
        assert_eq!(trace.result.unwrap().row, 1);
    }
}

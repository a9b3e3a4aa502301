//! Coverage report for `zoa-anim validate --coverage`: per animation profile
//! (after inheritance), which states resolve exactly, which only through
//! fallback or the untagged default, which to nothing, and which rows can
//! never win.
//!
//! # The states checked
//!
//! Every state with **at most one flag per dimension** (no flag is one of
//! the choices): the states gameplay sets in practice. A state with several
//! flags in a dimension resolves at least as well as each of its single-flag
//! parts, so this space shows every gap that matters.
//!
//! # Rows with chooser columns
//!
//! A row with value ranges (`ranges = ["speed in 2..4"]`) is a candidate only
//! while its values are in range, which no tag state says; the report counts
//! what the tags alone guarantee, so such rows are left out of it (a state only
//! they reach shows as resolving to what the other rows give).
//!
//! # Rows that can never win
//!
//! Exact, not sampled. A row repeating an earlier row's pattern is dropped
//! by inheritance (the first occurrence is kept), so it never wins. A tagged row is most favoured at the state equal to
//! its own pattern (every other candidate there is a subset, so less
//! specific, unless it has the same pattern), so it can win somewhere iff it
//! wins there. An untagged row can win only where no tagged row matches at
//! any step — the empty state — and only if it is the best default there.

use std::collections::{HashMap, HashSet};

use zoa_anim_core::resolver::{MatchKind, TaggedRow, resolve_best_match};
use zoa_anim_core::{StateDimension, StateTagSet};

use crate::defs::DefinitionSet;

/// How many example states each list keeps (the counts are always complete).
pub const MAX_EXAMPLES: usize = 50;

/// A row of a flattened table that never wins.
#[derive(Debug, Clone, PartialEq)]
pub struct DeadRow {
    /// Id of the profile that authored it.
    pub source: String,
    /// Its index among that profile's own rows.
    pub source_index: usize,
    /// Its pattern, in text form (`any` for the untagged default).
    pub pattern: String,
    /// Its clip.
    pub clip: String,
    /// The row that wins where this one would.
    pub beaten_by: String,
}

/// Coverage of one animation profile.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ProfileCoverage {
    /// Profile id.
    pub profile: String,
    /// States checked (see the module docs).
    pub states_checked: usize,
    /// States an authored row matches as they are.
    pub exact: usize,
    /// States that resolve only after relaxing some dimensions.
    pub fallback_only: usize,
    /// States that resolve only to the untagged default row.
    pub default_only: usize,
    /// States that resolve to nothing.
    pub unresolved: usize,
    /// Up to [`MAX_EXAMPLES`] fallback-only states, in enumeration order.
    pub fallback_examples: Vec<StateTagSet>,
    /// Up to [`MAX_EXAMPLES`] default-only states.
    pub default_examples: Vec<StateTagSet>,
    /// Up to [`MAX_EXAMPLES`] unresolved states.
    pub unresolved_examples: Vec<StateTagSet>,
    /// Rows that can never win.
    pub dead_rows: Vec<DeadRow>,
    /// Why the profile could not be flattened (inheritance cycle, …); the counts are then 0.
    pub error: Option<String>,
}

/// Coverage of every animation profile of a definition set.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CoverageReport {
    /// One entry per animation profile, in file order.
    pub profiles: Vec<ProfileCoverage>,
}

impl CoverageReport {
    /// Whether any profile leaves a state unresolved or has a dead row.
    #[must_use]
    pub fn has_gaps(&self) -> bool {
        self.profiles.iter().any(|p| p.unresolved > 0 || !p.dead_rows.is_empty())
    }

    /// JSON form: `[{"profile", "states_checked", "exact", "fallback_only",
    /// "default_only", "unresolved", "fallback_examples": [state text],
    /// "default_examples", "unresolved_examples", "dead_rows": [{"source",
    /// "index", "pattern", "clip", "beaten_by"}], "error"}]`.
    #[must_use]
    pub fn to_json(&self) -> serde_json::Value {
        let texts = |v: &[StateTagSet]| v.iter().map(ToString::to_string).collect::<Vec<_>>();
        self.profiles
            .iter()
            .map(|p| {
                let dead: Vec<serde_json::Value> = p
                    .dead_rows
                    .iter()
                    .map(|d| {
                        serde_json::json!({"source": d.source, "index": d.source_index, "pattern": d.pattern,
                                           "clip": d.clip, "beaten_by": d.beaten_by})
                    })
                    .collect();
                serde_json::json!({
                    "profile": p.profile,
                    "states_checked": p.states_checked,
                    "exact": p.exact,
                    "fallback_only": p.fallback_only,
                    "default_only": p.default_only,
                    "unresolved": p.unresolved,
                    "fallback_examples": texts(&p.fallback_examples),
                    "default_examples": texts(&p.default_examples),
                    "unresolved_examples": texts(&p.unresolved_examples),
                    "dead_rows": dead,
                    "error": p.error,
                })
            })
            .collect()
    }

    /// Readable summary: counts per profile, a few example states, every dead row.
    #[must_use]
    pub fn to_human(&self) -> String {
        use std::fmt::Write;
        const SHOWN: usize = 5;
        let mut out = String::from("\ncoverage (states with at most one flag per dimension):\n");
        for p in &self.profiles {
            if let Some(e) = &p.error {
                let _ = writeln!(out, "  {}: not checked: {e}", p.profile);
                continue;
            }
            let _ = writeln!(
                out,
                "  {}: {} states: {} exact, {} only by fallback, {} only by the default row, {} to nothing",
                p.profile, p.states_checked, p.exact, p.fallback_only, p.default_only, p.unresolved
            );
            for (label, list, count) in [
                ("to nothing", &p.unresolved_examples, p.unresolved),
                ("only by the default row", &p.default_examples, p.default_only),
                ("only by fallback", &p.fallback_examples, p.fallback_only),
            ] {
                if count > 0 {
                    let shown: Vec<String> = list.iter().take(SHOWN).map(|s| format!("`{s}`")).collect();
                    let more = if count > SHOWN { format!(" and {} more", count - SHOWN) } else { String::new() };
                    let _ = writeln!(out, "    {label}: {}{more}", shown.join(", "));
                }
            }
            for d in &p.dead_rows {
                let _ = writeln!(
                    out,
                    "    row {}[{}] `{}` -> {} can never win (beaten by {})",
                    d.source, d.source_index, d.pattern, d.clip, d.beaten_by
                );
            }
        }
        out
    }
}

/// Per dimension: 0 (no flag) and every single flag bit.
fn choices() -> [Vec<u32>; 6] {
    StateDimension::ALL.map(|d| std::iter::once(0).chain(d.flags().map(|(_, b)| b)).collect())
}

fn describe<R: TaggedRow>(rows: &[zoa_anim_core::inheritance::InheritedRow<R>], i: usize, clip: &str) -> String {
    let r = &rows[i];
    format!("{}[{}] `{}` -> {clip}", r.source, r.source_index, r.row.pattern())
}

/// Builds the coverage report (see the module docs). Pure computation over
/// already-loaded definitions; linear in the rows and in the states checked
/// (an index per fallback step, see [`StepIndex`]), not their product.
#[must_use]
pub fn coverage(set: &DefinitionSet) -> CoverageReport {
    let choices = choices();
    let mut report = CoverageReport::default();
    for loaded in &set.animation_profiles {
        let id = &loaded.value.id;
        let mut pc = ProfileCoverage { profile: id.clone(), ..Default::default() };
        let rows = match set.flattened_profile(id) {
            Some(Ok(rows)) => rows,
            Some(Err(e)) => {
                pc.error = Some(e.to_string());
                report.profiles.push(pc);
                continue;
            }
            None => continue,
        };
        dropped_own_rows(loaded, &rows, &mut pc);
        let rows: Vec<_> = rows.into_iter().filter(|r| r.row.ranges.is_empty()).collect();
        let index = TableIndex::new(&rows, &choices);
        count_states(&index, &choices, &mut pc);
        pc.dead_rows.extend(rows_that_never_win(&rows));
        report.profiles.push(pc);
    }
    report
}

/// The profile's own rows that inheritance dropped: an earlier row has the
/// same pattern (hash lookups, not a scan of the rows per row).
fn dropped_own_rows(
    loaded: &crate::defs::Loaded<zoa_anim_core::AnimationProfile>,
    rows: &[zoa_anim_core::inheritance::InheritedRow<zoa_anim_core::TaggedClipEntry>],
    pc: &mut ProfileCoverage,
) {
    let id = &loaded.value.id;
    let kept_own: HashSet<usize> = rows.iter().filter(|r| r.source == *id).map(|r| r.source_index).collect();
    let mut first_with: HashMap<StateTagSet, usize> = HashMap::with_capacity(rows.len());
    for (k, r) in rows.iter().enumerate() {
        first_with.entry(r.row.pattern).or_insert(k);
    }
    for (j, own) in loaded.value.entries.iter().enumerate() {
        if kept_own.contains(&j) {
            continue;
        }
        let kept = first_with.get(&own.pattern).copied();
        pc.dead_rows.push(DeadRow {
            source: id.clone(),
            source_index: j,
            pattern: own.pattern.to_string(),
            clip: own.clip.clone(),
            beaten_by: kept.map_or_else(|| "nothing".to_owned(), |k| describe(rows, k, &rows[k].row.clip)),
        });
    }
}

/// Rows of the flattened table that never win (module docs). A tagged row
/// whose pattern no other row shares wins at the state equal to its pattern
/// at step 0 (every other candidate there has a strict subset of its bits, so
/// is less specific): only untagged rows and rows sharing a pattern are
/// resolved, so this is linear when inheritance has made the patterns unique.
fn rows_that_never_win(
    rows: &[zoa_anim_core::inheritance::InheritedRow<zoa_anim_core::TaggedClipEntry>],
) -> Vec<DeadRow> {
    let mut count: HashMap<StateTagSet, usize> = HashMap::with_capacity(rows.len());
    for r in rows {
        *count.entry(r.row.pattern).or_default() += 1;
    }
    let mut dead = Vec::new();
    for (i, r) in rows.iter().enumerate() {
        let probe = r.row.pattern;
        if probe != StateTagSet::EMPTY && count[&probe] == 1 {
            continue;
        }
        let winner = resolve_best_match(rows, probe).map(|w| w.row);
        if winner != Some(i) {
            let beaten_by = winner.map_or_else(|| "nothing".to_owned(), |w| describe(rows, w, &rows[w].row.clip));
            dead.push(DeadRow {
                source: r.source.clone(),
                source_index: r.source_index,
                pattern: probe.to_string(),
                clip: r.row.clip.clone(),
                beaten_by,
            });
        }
    }
    dead
}

/// The best candidate of a cell: `(specificity, weight, row)`, ordered as the
/// resolver orders candidates of one step (more specific, then heavier, then
/// the earlier row).
#[derive(Debug, Clone, Copy)]
struct Cand {
    specificity: u32,
    weight: f32,
    row: u32,
}

fn better(a: Option<Cand>, b: Option<Cand>) -> Option<Cand> {
    match (a, b) {
        (Some(x), Some(y)) => {
            // Specificity, then weight, then the earlier row (weights are
            // validated finite, so an incomparable pair falls to row order).
            let by_weight = x.weight.partial_cmp(&y.weight).unwrap_or(std::cmp::Ordering::Equal);
            let x_wins = x.specificity.cmp(&y.specificity).then(by_weight).then(y.row.cmp(&x.row)).is_gt();
            Some(if x_wins { x } else { y })
        }
        (x, None) => x,
        (None, y) => y,
    }
}

/// The resolver's answer for every state with at most one flag per dimension
/// at one fallback step: a table over those states projected onto the
/// dimensions the step still compares, each cell holding the best candidate
/// among the tagged rows that match there.
///
/// A row matches a state on a compared dimension when its part there is empty
/// or that dimension's single flag; it is stored at its own projection and
/// pushed to every state above it by a sum-over-subsets pass (per compared
/// dimension, each cell takes the better of itself and the cell with that
/// dimension empty). Cost: the rows plus the cells times the dimensions.
#[derive(Debug)]
struct StepIndex {
    strides: [usize; 6],
    cells: Vec<Option<Cand>>,
}

impl StepIndex {
    fn new<R: TaggedRow>(rows: &[R], choices: &[Vec<u32>; 6], step: usize) -> StepIndex {
        let relaxed = zoa_anim_core::fallback::relaxed_at(step);
        let compared: [bool; 6] = std::array::from_fn(|d| !relaxed.contains(StateDimension::ALL[d]));
        let mut strides = [0usize; 6];
        let mut len = 1usize;
        for d in 0..6 {
            strides[d] = if compared[d] { len } else { 0 };
            if compared[d] {
                len *= choices[d].len();
            }
        }
        let mut cells: Vec<Option<Cand>> = vec![None; len];
        'rows: for (i, row) in rows.iter().enumerate() {
            let masks = row.pattern().masks();
            if masks == [0; 6] {
                continue; // untagged: the default, not a candidate
            }
            let (mut at, mut specificity) = (0usize, 0u32);
            for d in 0..6 {
                if !compared[d] || masks[d] == 0 {
                    continue;
                }
                // Several flags (or an unknown bit) can never be one state's single flag here.
                let Some(v) = choices[d].iter().position(|&b| b == masks[d]) else { continue 'rows };
                at += v * strides[d];
                specificity += 1;
            }
            let cand = Cand { specificity, weight: row.weight(), row: i as u32 };
            cells[at] = better(cells[at], Some(cand));
        }
        for d in (0..6).filter(|&d| compared[d]) {
            let (stride, radix) = (strides[d], choices[d].len());
            for x in 0..len {
                if (x / stride) % radix != 0 {
                    cells[x] = better(cells[x], cells[x - ((x / stride) % radix) * stride]);
                }
            }
        }
        StepIndex { strides, cells }
    }

    fn best(&self, idx: &[usize; 6]) -> Option<Cand> {
        self.cells[(0..6).map(|d| idx[d] * self.strides[d]).sum::<usize>()]
    }
}

/// The resolver over the states with at most one flag per dimension: one
/// [`StepIndex`] per fallback step and the untagged default.
#[derive(Debug)]
struct TableIndex {
    steps: Vec<StepIndex>,
    has_default: bool,
}

impl TableIndex {
    fn new<R: TaggedRow>(rows: &[R], choices: &[Vec<u32>; 6]) -> TableIndex {
        let steps = (0..=zoa_anim_core::fallback::RELAX_STEP_COUNT).map(|k| StepIndex::new(rows, choices, k)).collect();
        TableIndex { steps, has_default: rows.iter().any(|r| r.pattern() == StateTagSet::EMPTY) }
    }

    /// How the state at odometer position `idx` resolves (as [`resolve_best_match`]).
    fn kind(&self, idx: &[usize; 6]) -> Option<MatchKind> {
        match self.steps.iter().position(|s| s.best(idx).is_some()) {
            Some(0) => Some(MatchKind::Exact),
            Some(k) => Some(MatchKind::Fallback { step: k as u8 }),
            None => self.has_default.then_some(MatchKind::Default),
        }
    }
}

/// Resolves every state of the odometer over the per-dimension `choices`
/// through `index`, counting into `pc` how each resolves (with a few examples).
fn count_states(index: &TableIndex, choices: &[Vec<u32>; 6], pc: &mut ProfileCoverage) {
    let mut idx = [0usize; 6];
    loop {
        let state = || StateTagSet::from_masks(std::array::from_fn(|d| choices[d][idx[d]]));
        pc.states_checked += 1;
        let (count, examples) = match index.kind(&idx) {
            Some(MatchKind::Exact) => (&mut pc.exact, None),
            Some(MatchKind::Fallback { .. }) => (&mut pc.fallback_only, Some(&mut pc.fallback_examples)),
            Some(MatchKind::Default) => (&mut pc.default_only, Some(&mut pc.default_examples)),
            None => (&mut pc.unresolved, Some(&mut pc.unresolved_examples)),
        };
        *count += 1;
        if let Some(list) = examples
            && list.len() < MAX_EXAMPLES
        {
            list.push(state());
        }
        let mut d = 0;
        while d < 6 {
            idx[d] += 1;
            if idx[d] < choices[d].len() {
                break;
            }
            idx[d] = 0;
            d += 1;
        }
        if d == 6 {
            break;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Every combination of one choice per dimension, as choice indices
    /// (dimension 0 fastest), in the order both answers list them.
    fn combinations(choices: &[Vec<u32>; 6]) -> Vec<[usize; 6]> {
        let mut out = Vec::new();
        let mut idx = [0usize; 6];
        loop {
            out.push(idx);
            let mut d = 0;
            while d < 6 {
                idx[d] += 1;
                if idx[d] < choices[d].len() {
                    break;
                }
                idx[d] = 0;
                d += 1;
            }
            if d == 6 {
                return out;
            }
        }
    }

    /// What every state resolves to, by the resolver itself (the quadratic reference).
    fn literal(rows: &[(StateTagSet, f32)], choices: &[Vec<u32>; 6]) -> Vec<Option<MatchKind>> {
        combinations(choices)
            .iter()
            .map(|idx| {
                let state = StateTagSet::from_masks(std::array::from_fn(|d| choices[d][idx[d]]));
                resolve_best_match(rows, state).map(|r| r.kind)
            })
            .collect()
    }

    fn indexed(rows: &[(StateTagSet, f32)], choices: &[Vec<u32>; 6]) -> Vec<Option<MatchKind>> {
        let index = TableIndex::new(rows, choices);
        combinations(choices).iter().map(|idx| index.kind(idx)).collect()
    }

    /// A few flags per dimension (the first three and none) keep the state space small.
    fn small_choices() -> [Vec<u32>; 6] {
        choices().map(|c| c.into_iter().take(3).collect())
    }

    fn row() -> impl Strategy<Value = (StateTagSet, f32)> {
        // Per dimension: nothing, one of the first flags, or two flags at once.
        let part = prop_oneof![Just(0u32), Just(1), Just(2), Just(3), Just(4)];
        (proptest::array::uniform6(part), prop_oneof![Just(1.0f32), Just(2.0), Just(0.5)]).prop_map(|(parts, w)| {
            let c = choices();
            let masks = std::array::from_fn(|d| match parts[d] {
                0 => 0,
                1 => c[d][1],
                2 => c[d][2],
                3 => c[d][1] | c[d][2],
                _ => c[d][3],
            });
            (StateTagSet::from_masks(masks), w)
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]
        #[test]
        fn the_index_resolves_every_state_as_the_resolver_does(
            rows in proptest::collection::vec(row(), 0..24),
        ) {
            let c = small_choices();
            prop_assert_eq!(indexed(&rows, &c), literal(&rows, &c));
        }
    }
}

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
//! # Rows that can never win
//!
//! Exact, not sampled. A row repeating an earlier row's pattern is dropped
//! by inheritance (the first occurrence is kept), so it never wins. A tagged row is most favoured at the state equal to
//! its own pattern (every other candidate there is a subset, so less
//! specific, unless it has the same pattern), so it can win somewhere iff it
//! wins there. An untagged row can win only where no tagged row matches at
//! any step — the empty state — and only if it is the best default there.

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
/// already-loaded definitions.
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
        count_states(&rows, &choices, &mut pc);
        // Own rows that inheritance dropped: an earlier row has the same pattern.
        for (j, own) in loaded.value.entries.iter().enumerate() {
            if rows.iter().any(|r| r.source == *id && r.source_index == j) {
                continue;
            }
            let kept = rows.iter().position(|r| r.row.pattern == own.pattern);
            pc.dead_rows.push(DeadRow {
                source: id.clone(),
                source_index: j,
                pattern: own.pattern.to_string(),
                clip: own.clip.clone(),
                beaten_by: kept.map_or_else(|| "nothing".to_owned(), |k| describe(&rows, k, &rows[k].row.clip)),
            });
        }
        for (i, r) in rows.iter().enumerate() {
            let probe = r.row.pattern;
            let winner = resolve_best_match(&rows, probe).map(|w| w.row);
            if winner != Some(i) {
                let beaten_by = winner.map_or_else(|| "nothing".to_owned(), |w| describe(&rows, w, &rows[w].row.clip));
                pc.dead_rows.push(DeadRow {
                    source: r.source.clone(),
                    source_index: r.source_index,
                    pattern: probe.to_string(),
                    clip: r.row.clip.clone(),
                    beaten_by,
                });
            }
        }
        report.profiles.push(pc);
    }
    report
}

/// Resolves every state of the odometer over the per-dimension `choices`
/// against `rows`, counting into `pc` how each resolves (with a few examples).
fn count_states<R: TaggedRow>(rows: &[R], choices: &[Vec<u32>; 6], pc: &mut ProfileCoverage) {
    let mut idx = [0usize; 6];
    loop {
        let masks: [u32; 6] = std::array::from_fn(|d| choices[d][idx[d]]);
        let state = StateTagSet::from_masks(masks);
        pc.states_checked += 1;
        match resolve_best_match(rows, state).map(|r| r.kind) {
            Some(MatchKind::Exact) => pc.exact += 1,
            Some(MatchKind::Fallback { .. }) => {
                pc.fallback_only += 1;
                if pc.fallback_examples.len() < MAX_EXAMPLES {
                    pc.fallback_examples.push(state);
                }
            }
            Some(MatchKind::Default) => {
                pc.default_only += 1;
                if pc.default_examples.len() < MAX_EXAMPLES {
                    pc.default_examples.push(state);
                }
            }
            None => {
                pc.unresolved += 1;
                if pc.unresolved_examples.len() < MAX_EXAMPLES {
                    pc.unresolved_examples.push(state);
                }
            }
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

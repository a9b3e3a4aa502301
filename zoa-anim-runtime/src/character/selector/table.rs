//! A flattened clip table resolved against a [`ClipTable`]: what every
//! selector of one animation profile reads and never changes.

use std::sync::Arc;

use zoa_anim_core::inheritance::{ancestry, flatten_chain};
use zoa_anim_core::{
    AnimationBindingId, AnimationProfile, NoMatchPolicy, RigPolicy, RowPick, StateGraph, StateTagSet, TaggedClipEntry,
};

use crate::character::graph::{ClipId, ClipTable};
use crate::error::RuntimeError;

/// A flattened clip table resolved against a [`ClipTable`], with the
/// no-match policy, transition timing and procedural settings: everything a
/// [`super::TagSelector`] reads and never changes, built once and shared (`Arc`) by
/// every entity using the profile.
#[derive(Debug, Clone)]
pub struct SelectorTable {
    pub(super) rows: Vec<TaggedClipEntry>,
    pub(super) row_clips: Vec<ClipId>,
    pub(super) looping_rows: Vec<TaggedClipEntry>,
    pub(super) looping_map: Vec<u32>,
    pub(super) clips: Arc<ClipTable>,
    pub(super) no_match: NoMatchPolicy,
    pub(super) default_idle: Option<ClipId>,
    pub(super) rig: RigPolicy,
    pub(super) timing: StateGraph,
    /// Chooser columns of every row, flat: row `i`'s at `ranges[range_start[i]..range_start[i + 1]]`.
    pub(super) ranges: Vec<CompiledRange>,
    pub(super) range_start: Vec<u32>,
    /// How the table chooses among its best candidates.
    pub(super) pick: RowPick,
    /// Cross-fade when a column's value change selects another row, seconds.
    pub(super) range_crossfade: f32,
}

/// A chooser column compiled: the binding whose value is tested and its range.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct CompiledRange {
    pub(super) binding: AnimationBindingId,
    pub(super) min: f32,
    pub(super) max: f32,
}

/// Default [`SelectorTable::range_crossfade`], seconds.
pub const DEFAULT_RANGE_CROSSFADE: f32 = 0.2;

impl SelectorTable {
    /// The table of `profile` flattened with its ancestors (`lookup` finds a
    /// profile by id).
    pub fn from_profile<'a>(
        profile: &'a AnimationProfile,
        lookup: impl Fn(&str) -> Option<&'a AnimationProfile>,
        clips: Arc<ClipTable>,
        timing: StateGraph,
        rig: RigPolicy,
    ) -> Result<SelectorTable, RuntimeError> {
        let chain = ancestry(profile, &lookup)
            .map_err(|e| RuntimeError::InvalidJob { job: "tag selector", reasons: vec![e.to_string()] })?;
        // The nearest profile of the chain that says wins.
        let pick = chain.iter().find_map(|p| p.pick).unwrap_or_default();
        let range_crossfade = chain.iter().find_map(|p| p.range_crossfade).unwrap_or(DEFAULT_RANGE_CROSSFADE);
        let rows = flatten_chain(profile, lookup)
            .map_err(|e| RuntimeError::InvalidJob { job: "tag selector", reasons: vec![e.to_string()] })?
            .into_iter()
            .map(|r| r.row)
            .collect();
        let table = SelectorTable::new(rows, profile.no_match_policy(), clips, timing, rig)?;
        table.with_pick(pick, range_crossfade)
    }

    /// Builder: how the table chooses among its best candidates, and the
    /// cross-fade when a chooser column's value change selects another row
    /// (seconds, finite and `>= 0`).
    pub fn with_pick(mut self, pick: RowPick, range_crossfade: f32) -> Result<SelectorTable, RuntimeError> {
        if !(range_crossfade.is_finite() && range_crossfade >= 0.0) {
            return Err(RuntimeError::InvalidJob {
                job: "tag selector",
                reasons: vec![format!("range cross-fade {range_crossfade} s must be finite and >= 0")],
            });
        }
        self.pick = pick;
        self.range_crossfade = range_crossfade;
        Ok(self)
    }

    /// A table over already flattened rows. Every row's clip and the default
    /// idle clip must resolve in `clips`; every problem is reported at once.
    pub fn new(
        rows: Vec<TaggedClipEntry>,
        no_match: NoMatchPolicy,
        clips: Arc<ClipTable>,
        timing: StateGraph,
        rig: RigPolicy,
    ) -> Result<SelectorTable, RuntimeError> {
        let mut reasons = Vec::new();
        let row_clips = rows
            .iter()
            .enumerate()
            .map(|(i, r)| {
                let max = zoa_anim_core::budget::MAX_SPEED;
                if !(r.speed_multiplier.is_finite() && r.speed_multiplier > 0.0 && r.speed_multiplier <= max) {
                    reasons.push(format!(
                        "row {i}: speed multiplier {} must be > 0 and at most {max}",
                        r.speed_multiplier
                    ));
                }
                clips.index_of(&r.clip).unwrap_or_else(|| {
                    reasons.push(format!("row {i}: clip `{}` does not resolve", r.clip));
                    ClipId(0)
                })
            })
            .collect();
        let default_idle = match &no_match {
            NoMatchPolicy::DefaultIdle(name) => {
                let c = clips.index_of(name);
                if c.is_none() {
                    reasons.push(format!("default idle clip `{name}` does not resolve"));
                }
                c
            }
            _ => None,
        };
        if rows.len() >= SWITCHED_UNTAGGED_ROW as usize {
            reasons.push("too many rows".to_owned());
        }
        let (ranges, range_start) = compile_ranges(&rows, &mut reasons);
        RuntimeError::check("tag selector", reasons)?;
        let (looping_rows, looping_map) =
            rows.iter().enumerate().filter(|(_, r)| !r.one_shot).map(|(i, r)| (r.clone(), i as u32)).unzip();
        Ok(SelectorTable {
            rows,
            row_clips,
            looping_rows,
            looping_map,
            clips,
            no_match,
            default_idle,
            rig,
            timing,
            ranges,
            range_start,
            pick: RowPick::Best,
            range_crossfade: DEFAULT_RANGE_CROSSFADE,
        })
    }

    /// Whether any row has chooser columns (then a column's value change may
    /// select another row).
    #[must_use]
    pub fn has_ranges(&self) -> bool {
        !self.ranges.is_empty()
    }
    /// How the table chooses among its best candidates.
    #[must_use]
    pub fn pick(&self) -> RowPick {
        self.pick
    }
    /// Whether every chooser column of row `row` holds for `value` (which
    /// gives a binding's value, NaN when never given), and how many there are.
    #[inline]
    pub(super) fn admit(&self, row: usize, value: impl Fn(AnimationBindingId) -> f32) -> Option<u32> {
        let (a, b) = (self.range_start[row] as usize, self.range_start[row + 1] as usize);
        let ranges = &self.ranges[a..b];
        ranges
            .iter()
            .all(|r| {
                let v = value(r.binding);
                r.min <= v && v < r.max
            })
            .then_some(ranges.len() as u32)
    }

    /// The flattened rows.
    #[must_use]
    pub fn rows(&self) -> &[TaggedClipEntry] {
        &self.rows
    }
    /// The clip table.
    #[must_use]
    pub fn clips(&self) -> &Arc<ClipTable> {
        &self.clips
    }
    /// Whether `row` (a [`crate::character::graph::ContributionSource::Selector`] row) is a row that
    /// asserts at least one tag: `false` for the untagged universal default
    /// and for [`super::DEFAULT_IDLE_ROW`]. A tagged row says something specific about
    /// the entity; an untagged one is a last resort.
    #[must_use]
    pub fn is_tagged(&self, row: u32) -> bool {
        row == SWITCHED_TAGGED_ROW || self.rows.get(row as usize).is_some_and(|r| r.pattern != StateTagSet::EMPTY)
    }
}

/// Every row's chooser columns, flat, and where each row's start (`rows + 1`
/// entries). A range over a name that is no binding id, or empty, is a reason.
fn compile_ranges(rows: &[TaggedClipEntry], reasons: &mut Vec<String>) -> (Vec<CompiledRange>, Vec<u32>) {
    let mut ranges = Vec::new();
    let mut start = Vec::with_capacity(rows.len() + 1);
    for (i, r) in rows.iter().enumerate() {
        start.push(ranges.len() as u32);
        for range in &r.ranges {
            match AnimationBindingId::new(&range.parameter) {
                Ok(binding) if range.min < range.max => {
                    ranges.push(CompiledRange { binding, min: range.min, max: range.max });
                }
                Ok(_) => reasons.push(format!("row {i}: range `{range}` is empty")),
                Err(e) => reasons.push(format!("row {i}: range `{range}`: {e}")),
            }
        }
    }
    start.push(ranges.len() as u32);
    (ranges, start)
}

/// Row ids of clips still fading out of a replaced table (tagged or not there).
pub(super) const SWITCHED_TAGGED_ROW: u32 = u32::MAX - 1;
pub(super) const SWITCHED_UNTAGGED_ROW: u32 = u32::MAX - 2;

//! A flattened clip table resolved against a [`ClipTable`]: what every
//! selector of one animation profile reads and never changes.

use std::sync::Arc;

use zoa_anim_core::inheritance::flatten_chain;
use zoa_anim_core::{AnimationProfile, NoMatchPolicy, RigPolicy, StateGraph, StateTagSet, TaggedClipEntry};

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
}

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
        let rows = flatten_chain(profile, lookup)
            .map_err(|e| RuntimeError::InvalidJob { job: "tag selector", reasons: vec![e.to_string()] })?
            .into_iter()
            .map(|r| r.row)
            .collect();
        SelectorTable::new(rows, profile.no_match_policy(), clips, timing, rig)
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
        RuntimeError::check("tag selector", reasons)?;
        let (looping_rows, looping_map) =
            rows.iter().enumerate().filter(|(_, r)| !r.one_shot).map(|(i, r)| (r.clone(), i as u32)).unzip();
        Ok(SelectorTable { rows, row_clips, looping_rows, looping_map, clips, no_match, default_idle, rig, timing })
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

/// Row ids of clips still fading out of a replaced table (tagged or not there).
pub(super) const SWITCHED_TAGGED_ROW: u32 = u32::MAX - 1;
pub(super) const SWITCHED_UNTAGGED_ROW: u32 = u32::MAX - 2;

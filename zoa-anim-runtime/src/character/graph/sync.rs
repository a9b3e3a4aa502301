//! Sync groups (Unreal's marker-based sync): the states of one group that
//! contribute to a layer keep in step. The heaviest of them (highest blend
//! weight; the first on a tie) leads and advances on its own clock; every
//! other looping member follows it:
//!
//! - **by sync marker** when the two clips carry markers of the same names
//!   (`foot_l`, `foot_r`): the leader's position is read as "between marker
//!   `a` and marker `b`, fraction `f` of the way" (counting only markers both
//!   clips carry), and the follower is placed at the same fraction between its
//!   own `a` and the `b` after it — of the occurrences, the one nearest where
//!   its own clock would be; a walk and a run of different lengths and
//!   different foot timings put their feet down together;
//! - **by normalized time** otherwise (no markers, or none shared).
//!
//! A state's markers are its clip's; a blend tree's are its heaviest
//! child's (the tree's children share one clock already). A follower that
//! joins (enters) starts at the leader's position instead of at 0; after
//! that it moves by the leader's advance, never backwards, so its notifies
//! and windows are crossed once each. A graph without sync groups skips all
//! of this (one check per layer and frame); a frame allocates nothing.
//!
//! ```text
//!  leader  walk  |foot_l----------foot_r--------------|   position: foot_l → foot_r, 40 %
//!  follower run  |--foot_l------foot_r------|             placed 40 % from its foot_l to its foot_r
//! ```

use zoa_anim_core::Name;
use zoa_anim_core::graph::StateIndex;

use super::MAX_ACTIVE_STATES;
use super::clips::{ClipId, ClipTable, Marker};
use super::definition::GraphDefinition;
use super::layer::{Active, LayerRuntime, child_weights};
use super::params::Parameters;

/// A state of a sync group contributing to a layer after the last frame (see
/// [`super::GraphInstance::sync_members`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SyncMemberView {
    /// The group.
    pub group: Name,
    /// The state.
    pub state: StateIndex,
    /// Whether it leads the group (the others follow it).
    pub leader: bool,
    /// The clip its markers come from (its clip; a blend tree's heaviest child).
    pub clip: ClipId,
    /// That clip's time, clip seconds.
    pub clip_time: f32,
    /// The state's normalized phase, `0..=1`.
    pub phase: f32,
}

/// What the last frame's sync step found about one active state of a group.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct SyncNote {
    /// The active entry's id.
    pub(super) id: u32,
    pub(super) group: u16,
    pub(super) leader: bool,
    pub(super) clip: ClipId,
}

/// The notes of one layer, one per active state of a group.
pub(super) type SyncNotes = [Option<SyncNote>; MAX_ACTIVE_STATES + 1];

/// Moves every follower of every sync group on the layer to its leader's
/// position (after the clocks advanced and the blend weights were set), and
/// notes who leads.
pub(super) fn sync_layer(def: &GraphDefinition, params: &Parameters, scratch: &mut [f32], lr: &mut LayerRuntime) {
    lr.sync = [None; MAX_ACTIVE_STATES + 1];
    if !def.has_sync_groups() {
        return;
    }
    for (k, a) in lr.active.iter().enumerate().take(MAX_ACTIVE_STATES + 1) {
        if let Some(group) = def.sync_group(a.state) {
            let (clip, _) = marker_clip(def, params, scratch, a);
            lr.sync[k] = Some(SyncNote { id: a.id, group, leader: false, clip });
        }
    }
    for f in 0..lr.sync.len() {
        let Some(note) = lr.sync[f] else { continue };
        let Some(lead) = leader(&lr.active, &lr.sync, note.group) else { continue };
        if lead == f {
            lr.sync[f] = Some(SyncNote { leader: true, ..note });
            continue;
        }
        let Some(lead_note) = lr.sync[lead] else { continue };
        if !def.graph().states[lr.active[f].state.index()].looping {
            continue;
        }
        let total = follow(def.clips(), (&lr.active[lead], lead_note.clip), (&lr.active[f], note.clip), def);
        let a = &mut lr.active[f];
        if a.fresh {
            a.prev_total = total;
            a.total = total;
        } else {
            a.total = total.max(a.prev_total);
        }
    }
}

/// The active entry leading `group`: the highest weight, the first on a tie.
fn leader(active: &[Active], notes: &SyncNotes, group: u16) -> Option<usize> {
    let mut best: Option<usize> = None;
    for (k, n) in notes.iter().enumerate() {
        if n.is_some_and(|n| n.group == group) && best.is_none_or(|b| active[k].weight > active[b].weight) {
            best = Some(k);
        }
    }
    best
}

/// The clip whose markers stand for state entry `a` (its clip, or its
/// blend tree's heaviest child) and the state's phase.
fn marker_clip(def: &GraphDefinition, params: &Parameters, scratch: &mut [f32], a: &Active) -> (ClipId, f64) {
    let clips = &def.states[a.state.index()].clips;
    let clip = if clips.len() == 1 {
        clips[0]
    } else {
        let n = child_weights(def, params, a.state, scratch);
        let best = (1..n).fold(0, |b, i| if scratch[i] > scratch[b] { i } else { b });
        clips[best]
    };
    (clip, state_phase(def, a))
}

/// A state entry's phase: its clock's fraction (looping), else clamped to `0..=1`.
pub(super) fn state_phase(def: &GraphDefinition, a: &Active) -> f64 {
    if def.graph().states[a.state.index()].looping { a.total - a.total.floor() } else { a.total.clamp(0.0, 1.0) }
}

/// The follower's new clock (unwrapped cycles) for the leader's position.
fn follow(clips: &ClipTable, lead: (&Active, ClipId), follower: (&Active, ClipId), def: &GraphDefinition) -> f64 {
    let ((l, lclip), (f, fclip)) = (lead, follower);
    let lphase = state_phase(def, l);
    let advance = l.total - l.prev_total;
    let expected = if f.fresh { lphase } else { (f.prev_total + advance).rem_euclid(1.0) };
    let phase = marker_phase(clips, (lclip, lphase), fclip, expected).unwrap_or(lphase);
    if f.fresh {
        phase
    } else {
        let around = f.prev_total + advance;
        phase + (around - phase).round()
    }
}

/// The follower clip's phase at the leader's marker position, or `None`
/// when the clips share no marker name (or one has no length).
fn marker_phase(clips: &ClipTable, lead: (ClipId, f64), fclip: ClipId, expected: f64) -> Option<f64> {
    let (lclip, lphase) = lead;
    let (lm, fm) = (clips.markers(lclip), clips.markers(fclip));
    let (dl, df) = (f64::from(clips.get(lclip).duration), f64::from(clips.get(fclip).duration));
    if lm.is_empty() || fm.is_empty() || dl <= 0.0 || df <= 0.0 {
        return None;
    }
    let in_f = |m: &&Marker| fm.iter().any(|x| x.1 == m.1);
    let in_l = |m: &&Marker| lm.iter().any(|x| x.1 == m.1);
    // The leader's position between the shared markers around it.
    let t = lphase * dl;
    let prev = lm.iter().filter(in_f).rev().find(|m| f64::from(m.0) <= t).map(|m| (f64::from(m.0), m.1));
    let prev = prev.or_else(|| lm.iter().rfind(in_f).map(|m| (f64::from(m.0) - dl, m.1)))?;
    let next = lm.iter().filter(in_f).find(|m| f64::from(m.0) > t).map(|m| (f64::from(m.0), m.1));
    let next = next.or_else(|| lm.iter().find(in_f).map(|m| (f64::from(m.0) + dl, m.1)))?;
    let frac = if next.0 > prev.0 { (t - prev.0) / (next.0 - prev.0) } else { 0.0 };
    // The follower's occurrences of `prev` with the shared marker after each:
    // those followed by `next` first, then the one nearest `expected`.
    let mut best: Option<(bool, f64, f64)> = None;
    for (i, m) in fm.iter().enumerate().filter(|(_, m)| m.1 == prev.1) {
        let after = fm[i + 1..].iter().find(in_l).map(|x| (f64::from(x.0), x.1));
        let Some((tj, idj)) = after.or_else(|| fm.iter().find(in_l).map(|x| (f64::from(x.0) + df, x.1))) else {
            continue;
        };
        let ti = f64::from(m.0);
        let phase = ((ti + frac * (tj - ti)) / df).rem_euclid(1.0);
        let d = (phase - expected).rem_euclid(1.0);
        let candidate = (idj == next.1, d.min(1.0 - d), phase);
        if best.is_none_or(|b| (candidate.0 && !b.0) || (candidate.0 == b.0 && candidate.1 < b.1)) {
            best = Some(candidate);
        }
    }
    best.map(|b| b.2)
}

/// The layer's sync members after the last frame.
pub(super) fn members<'a>(def: &'a GraphDefinition, lr: &'a LayerRuntime) -> impl Iterator<Item = SyncMemberView> + 'a {
    lr.sync.iter().flatten().filter_map(move |n| {
        let a = lr.active.iter().find(|a| a.id == n.id)?;
        let phase = state_phase(def, a);
        let clip_time = (phase * f64::from(def.clips().get(n.clip).duration)) as f32;
        Some(SyncMemberView {
            group: def.sync_group_name(n.group),
            state: a.state,
            leader: n.leader,
            clip: n.clip,
            clip_time,
            phase: phase as f32,
        })
    })
}

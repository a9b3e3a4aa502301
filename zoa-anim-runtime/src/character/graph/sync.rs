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

/// One active state of a group, as the layer hands it over after its clocks
/// advanced and its blend weights were set.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct SyncMember {
    pub(super) id: u32,
    pub(super) group: u16,
    pub(super) weight: f32,
    pub(super) looping: bool,
    /// The clip whose markers stand for it.
    pub(super) clip: ClipId,
    /// Normalized clock, unwrapped cycles, now and at the frame's start.
    pub(super) total: f64,
    pub(super) prev_total: f64,
    /// Entered since the last frame.
    pub(super) fresh: bool,
}

/// The members of one layer, by active index.
pub(super) type SyncMembers = [Option<SyncMember>; MAX_ACTIVE_STATES + 1];

/// A clock's phase: its fraction (looping), else clamped to `0..=1`.
pub(super) fn phase(looping: bool, total: f64) -> f64 {
    if looping { total - total.floor() } else { total.clamp(0.0, 1.0) }
}

/// Notes who leads each group into `notes` and returns, by active index,
/// the new clock of every looping follower (its leader's position).
pub(super) fn follow_leaders(
    clips: &ClipTable,
    members: &SyncMembers,
    notes: &mut SyncNotes,
) -> [Option<f64>; MAX_ACTIVE_STATES + 1] {
    let mut moved = [None; MAX_ACTIVE_STATES + 1];
    for (f, m) in members.iter().enumerate() {
        let Some(m) = m else { continue };
        let lead = leader(members, m.group);
        notes[f] = Some(SyncNote { id: m.id, group: m.group, leader: lead == Some(f), clip: m.clip });
        if let Some(l) = lead.filter(|&l| l != f && m.looping).and_then(|l| members[l]) {
            moved[f] = Some(follow(clips, &l, m));
        }
    }
    moved
}

/// The member leading `group`: the highest weight, the first on a tie.
fn leader(members: &SyncMembers, group: u16) -> Option<usize> {
    let mut best: Option<(usize, f32)> = None;
    for (k, m) in members.iter().enumerate() {
        if let Some(m) = m.filter(|m| m.group == group)
            && best.is_none_or(|(_, w)| m.weight > w)
        {
            best = Some((k, m.weight));
        }
    }
    best.map(|(k, _)| k)
}

/// The follower's new clock (unwrapped cycles) for the leader's position.
fn follow(clips: &ClipTable, l: &SyncMember, f: &SyncMember) -> f64 {
    let lphase = phase(l.looping, l.total);
    let advance = l.total - l.prev_total;
    let expected = if f.fresh { lphase } else { (f.prev_total + advance).rem_euclid(1.0) };
    let at = marker_phase(clips, (l.clip, lphase), f.clip, expected).unwrap_or(lphase);
    if f.fresh {
        at
    } else {
        let around = f.prev_total + advance;
        at + (around - at).round()
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

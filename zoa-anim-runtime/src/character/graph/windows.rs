//! Notify windows on one notify source (a graph layer, the override slot,
//! the tag selector): the windows of the source's *leading* clip (its
//! highest-weight contribution) open and close as its clock crosses their
//! begin and end; when another clip takes the lead (a cross-fade moved on, a
//! state or the slot stopped), the windows still open end, interrupted, and
//! the new leader's windows that its clock is already inside begin.
//!
//! Every [`EventKind::NotifyBegin`] a source queues is followed by exactly
//! one [`EventKind::NotifyEnd`] of the same clip and notify: which windows
//! are open is state (one 64-bit set per source, [`WindowState`]), a begin is
//! queued only for a closed window and an end only for an open one, across
//! loop wraps (every crossing, in clock order, up to the wrap cap) and
//! cross-fades alike. Allocation-free.

use super::clips::{ClipId, ClipTable};
use super::{FrameClock, MAX_WRAPS_PER_FRAME};
use crate::character::events::{EventKind, EventQueue, NotifySource};

/// The windows open on one notify source: its leading clip (and which
/// contribution leads, as an id unique within the source) and the set of
/// that clip's windows open now (bit `k`: its `k`-th window).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct WindowState {
    owner: Option<(u64, ClipId)>,
    open: u64,
}

impl WindowState {
    /// `(clip, notify)` of every open window.
    pub(crate) fn open<'a>(&self, clips: &'a ClipTable) -> impl Iterator<Item = (ClipId, u16)> + 'a {
        let (clip, open) = match self.owner {
            Some((_, clip)) => (clip, self.open),
            None => (ClipId(0), 0),
        };
        clips.windows(clip).iter().enumerate().filter(move |(k, _)| open & (1 << k) != 0).map(move |(_, &n)| (clip, n))
    }
}

/// The leading clip of a source over one frame: its clock moved from `lo`
/// to `hi` (unwrapped cycles), from `lo` included when `fresh`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Lead {
    /// Which contribution leads (unique within the source while it plays;
    /// a lead that is `fresh` counts as new whatever its owner).
    pub owner: u64,
    pub clip: ClipId,
    pub lo: f64,
    pub hi: f64,
    pub looping: bool,
    pub fresh: bool,
}

/// Follows the windows of `source` over one frame led by `lead` (`None`:
/// nothing plays on it).
pub(crate) fn follow_windows(
    clips: &ClipTable,
    lead: Option<Lead>,
    state: &mut WindowState,
    source: NotifySource,
    frame: FrameClock,
    events: &mut EventQueue,
) {
    if !clips.has_windows() {
        return;
    }
    let owner = lead.map(|l| (l.owner, l.clip));
    // A lead that starts this frame is new even under the same owner (a row replayed).
    if state.owner != owner || lead.is_some_and(|l| l.fresh) {
        close_windows(clips, state, source, frame.t0, events);
        state.owner = owner;
        if let Some(l) = lead {
            open_inside(clips, &l, state, source, frame.t0, events);
        }
    }
    if let Some(l) = lead {
        crossings(clips, &l, state, source, frame, events);
    }
}

/// Ends every open window of `source` at `at`, interrupted, and forgets the lead.
pub(crate) fn close_windows(
    clips: &ClipTable,
    state: &mut WindowState,
    source: NotifySource,
    at: f64,
    events: &mut EventQueue,
) {
    for (clip, notify) in state.open(clips) {
        let kind = EventKind::NotifyEnd { source, clip, notify, interrupted: true };
        events.push(at, kind, clips.notify_name(clip, notify));
    }
    *state = WindowState::default();
}

/// `(begin, end)` of `clip`'s window `notify` in cycles, when the clip has a length.
fn span(clips: &ClipTable, clip: ClipId, notify: u16) -> Option<(f64, f64)> {
    let info = clips.get(clip);
    let d = f64::from(info.duration);
    let n = info.notifies.get(usize::from(notify))?;
    (d > 0.0).then(|| (f64::from(n.time) / d, f64::from(n.end()) / d))
}

/// Begins at `at` the windows of a new leader whose clock starts this frame inside them.
fn open_inside(
    clips: &ClipTable,
    l: &Lead,
    state: &mut WindowState,
    source: NotifySource,
    at: f64,
    events: &mut EventQueue,
) {
    let phase = if l.looping { l.lo - l.lo.floor() } else { l.lo.clamp(0.0, 1.0) };
    for (k, &notify) in clips.windows(l.clip).iter().enumerate() {
        if let Some((b, e)) = span(clips, l.clip, notify)
            && b <= phase
            && phase < e
        {
            state.open |= 1 << k;
            events.push(at, EventKind::NotifyBegin { source, clip: l.clip, notify }, clips.notify_name(l.clip, notify));
        }
    }
}

/// Begins and ends the windows the leader's clock crossed in `(lo, hi]`
/// (`[lo, hi]` when fresh), each crossing at its interpolated time.
fn crossings(
    clips: &ClipTable,
    l: &Lead,
    state: &mut WindowState,
    source: NotifySource,
    frame: FrameClock,
    events: &mut EventQueue,
) {
    let (lo, hi) = (l.lo, l.hi);
    if hi < lo || (hi == lo && !l.fresh) {
        return;
    }
    let width = hi - lo;
    let at = |x: f64| frame.at(if width > 0.0 { (x - lo) / width } else { 0.0 });
    let crossed = |x: f64, from_lo: bool| (x > lo || (from_lo && x >= lo)) && x <= hi;
    for (k, &notify) in clips.windows(l.clip).iter().enumerate() {
        let Some((b, e)) = span(clips, l.clip, notify) else { continue };
        let name = clips.notify_name(l.clip, notify);
        // Cycles whose begin or end may lie in the frame, in clock order.
        let (first, last) =
            if l.looping { ((lo - e).floor().max(0.0) as i64, (hi - b).floor() as i64) } else { (0, 0) };
        for c in first..=last.min(first + MAX_WRAPS_PER_FRAME) {
            let c = c as f64;
            if crossed(c + b, l.fresh) && state.open & (1 << k) == 0 {
                state.open |= 1 << k;
                events.push(at(c + b), EventKind::NotifyBegin { source, clip: l.clip, notify }, name);
            }
            if crossed(c + e, false) && state.open & (1 << k) != 0 {
                state.open &= !(1 << k);
                let kind = EventKind::NotifyEnd { source, clip: l.clip, notify, interrupted: false };
                events.push(at(c + e), kind, name);
            }
        }
    }
}

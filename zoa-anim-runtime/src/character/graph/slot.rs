//! The override slot (one clip played over the graph's pose, the last step
//! of a frame's composition) and the single-clip mode (no graph: the slot is
//! the whole animation).
//!
//! With a graph, the slot plays one clip on top of the graph's pose: its
//! weight envelope ramps in over `blend_in`, and a one-shot starts fading out
//! `blend_out` scaled seconds before its end so the envelope lands on zero
//! exactly as the clip ends; a looping clip plays until stopped. `blend_to`
//! while the slot plays cross-fades inside the slot.
//!
//! Without a graph (single-clip mode) the slot *is* the instance's only layer:
//! a one-shot holds its last frame instead of fading away (three.js
//! `clampWhenFinished`), and the default clip autoplays.

use zoa_anim_core::graph::BlendMode;
use zoa_anim_core::{AnimationSlotId, Name};

use super::clips::{ClipId, ClipTable};
use super::output::{ClipContribution, ContributionSource, FrameOutput, MaskRef, SLOT_LAYER, clip_span};
use super::windows::{Lead, WindowState, close_windows, follow_windows};
use super::{FrameClock, NotifyPolicy, emit_clip_notifies};
use crate::character::events::{EventKind, EventQueue, NotifySource};
use crate::character::fade::{Fade, crossfade_weight, ramp};

/// How the slot plays a clip.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PlayOptions {
    /// Loop until stopped (default `true`).
    pub looping: bool,
    /// Speed multiplier on top of the clip's rate and the instance speed (`>= 0`, default 1).
    pub speed: f32,
    /// Envelope fade-in, scaled seconds (`>= 0`, default 0 = instant).
    pub blend_in: f32,
    /// Envelope fade-out, scaled seconds (`>= 0`, default 0); a one-shot times
    /// it to end exactly with the clip.
    pub blend_out: f32,
    /// Blend additively on top of the graph (default override).
    pub additive: bool,
}

impl Default for PlayOptions {
    fn default() -> Self {
        PlayOptions { looping: true, speed: 1.0, blend_in: 0.0, blend_out: 0.0, additive: false }
    }
}

impl PlayOptions {
    /// A one-shot with the given fades (`in`, `out` in seconds).
    #[must_use]
    pub fn once(blend_in: f32, blend_out: f32) -> PlayOptions {
        PlayOptions { looping: false, blend_in, blend_out, ..PlayOptions::default() }
    }
}

/// A slot speed as played: finite, `0 ..= MAX_SPEED` (the limit `validate`
/// applies to a slot's `speed`), so a clip's time never overflows.
fn sanitize(x: f32) -> f32 {
    if x.is_finite() { x.clamp(0.0, zoa_anim_core::budget::MAX_SPEED) } else { 0.0 }
}

#[derive(Debug, Clone, Copy, PartialEq)]
struct SlotClip {
    clip: ClipId,
    /// Clip seconds, unwrapped.
    time: f64,
    prev_time: f64,
    looping: bool,
    speed: f32,
    fresh: bool,
    /// Unique within the slot (notify windows follow the leading clip by it).
    id: u32,
}

/// Playback state of the override slot.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Slot {
    current: Option<SlotClip>,
    previous: Option<SlotClip>,
    xfade: Fade,
    elapsed: f32,
    blend_in: f32,
    blend_out: f32,
    /// `(envelope at stop, fade-out)`.
    stopping: Option<(f32, Fade)>,
    envelope: f32,
    additive: bool,
    slot_id: Option<AnimationSlotId>,
    /// Single-clip mode: one-shots hold their last frame.
    hold_at_end: bool,
    /// Single-clip mode: the held one-shot's end was reported.
    end_reported: bool,
    /// Notify windows open on the slot's leading clip.
    windows: WindowState,
    /// The next clip's id.
    next_id: u32,
}

/// What the override slot plays now, for gameplay to read (the slot's
/// progress is state, not a stream of events: [`EventKind::SlotStarted`] and
/// [`EventKind::SlotEnded`] mark its start and end).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SlotStatus {
    /// The binding profile's slot it plays, when played through one.
    pub slot: Option<AnimationSlotId>,
    /// The clip.
    pub clip: ClipId,
    /// The slot id's text, else the clip's name.
    pub name: Name,
    /// How far through the clip, `0..=1` (a looping clip wraps).
    pub progress: f32,
    /// The slot's weight over the graph, `0..=1`.
    pub envelope: f32,
    /// Whether it is fading out after a stop.
    pub stopping: bool,
}

/// The name slot events carry: the slot id's text, else the clip's name.
fn slot_name(clips: &ClipTable, clip: ClipId, slot: Option<AnimationSlotId>) -> Name {
    slot.map_or_else(|| clips.name(clip), |s| Name::from_static(s.as_str()))
}

impl Slot {
    pub(crate) fn new(hold_at_end: bool) -> Slot {
        Slot {
            current: None,
            previous: None,
            xfade: Fade::default(),
            elapsed: 0.0,
            blend_in: 0.0,
            blend_out: 0.0,
            stopping: None,
            envelope: 0.0,
            additive: false,
            slot_id: None,
            hold_at_end,
            end_reported: false,
            windows: WindowState::default(),
            next_id: 0,
        }
    }

    /// A new clip's id.
    fn take_id(&mut self) -> u32 {
        self.next_id = self.next_id.wrapping_add(1);
        self.next_id
    }

    pub(crate) fn is_playing(&self) -> bool {
        self.current.is_some()
    }

    pub(crate) fn clip(&self) -> Option<ClipId> {
        self.current.map(|c| c.clip)
    }

    pub(crate) fn envelope(&self) -> f32 {
        self.envelope
    }

    pub(crate) fn status(&self, clips: &ClipTable) -> Option<SlotStatus> {
        let cur = self.current?;
        Some(SlotStatus {
            slot: self.slot_id,
            clip: cur.clip,
            name: slot_name(clips, cur.clip, self.slot_id),
            progress: progress(clips, &cur, false),
            envelope: self.envelope,
            stopping: self.stopping.is_some(),
        })
    }

    /// The `SlotEnded { interrupted: true }` (and its name) of what plays now,
    /// when its end was not reported yet (for a character that is retired).
    pub(crate) fn unreported_end(&self, clips: &ClipTable) -> Option<(EventKind, Name)> {
        let cur = self.current.filter(|_| !self.end_reported)?;
        let kind = EventKind::SlotEnded { slot: self.slot_id, clip: cur.clip, interrupted: true };
        Some((kind, slot_name(clips, cur.clip, self.slot_id)))
    }

    /// Queues the end of what plays now (at `now`), when something plays.
    fn report_end(&self, clips: &ClipTable, interrupted: bool, now: f64, events: &mut EventQueue) {
        if let Some(cur) = self.current {
            let kind = EventKind::SlotEnded { slot: self.slot_id, clip: cur.clip, interrupted };
            events.push(now, kind, slot_name(clips, cur.clip, self.slot_id));
        }
    }

    /// Starts `clip` from time 0, replacing whatever plays (a cut inside the
    /// slot); queues the replaced clip's end and this one's start at `now`.
    pub(crate) fn play(
        &mut self,
        clip: ClipId,
        opts: PlayOptions,
        slot_id: Option<AnimationSlotId>,
        clips: &ClipTable,
        now: f64,
        events: &mut EventQueue,
    ) {
        let was_playing = self.current.is_some();
        if !self.end_reported {
            self.report_end(clips, true, now, events);
        }
        events.push(now, EventKind::SlotStarted { slot: slot_id, clip }, slot_name(clips, clip, slot_id));
        self.end_reported = false;
        let id = self.take_id();
        self.current = Some(SlotClip {
            clip,
            time: 0.0,
            prev_time: 0.0,
            looping: opts.looping,
            speed: sanitize(opts.speed),
            fresh: true,
            id,
        });
        self.previous = None;
        self.elapsed = 0.0;
        self.blend_in = sanitize(opts.blend_in);
        self.blend_out = sanitize(opts.blend_out);
        self.stopping = None;
        self.additive = opts.additive;
        self.slot_id = slot_id;
        // Re-playing while already visible keeps the envelope up (no dip).
        let start = if was_playing { self.envelope } else { 0.0 };
        self.envelope = if self.blend_in > 0.0 { start } else { 1.0 };
        if was_playing && self.blend_in > 0.0 {
            self.elapsed = self.envelope * self.blend_in;
        }
    }

    /// Cross-fades to `clip` over `seconds` inside the slot; fades the envelope
    /// in over `seconds` when nothing plays. The clip left behind ends
    /// (interrupted) and `clip` starts, at `now`.
    pub(crate) fn blend_to(
        &mut self,
        clip: ClipId,
        looping: bool,
        seconds: f32,
        clips: &ClipTable,
        now: f64,
        events: &mut EventQueue,
    ) {
        let seconds = sanitize(seconds);
        let Some(cur) = self.current.filter(|_| self.stopping.is_none()) else {
            let opts = PlayOptions { looping, blend_in: seconds, ..PlayOptions::default() };
            self.play(clip, opts, None, clips, now, events);
            return;
        };
        if seconds <= 0.0 {
            let opts = PlayOptions { looping, additive: self.additive, ..PlayOptions::default() };
            self.play(clip, opts, None, clips, now, events);
            return;
        }
        if !self.end_reported {
            self.report_end(clips, true, now, events);
        }
        events.push(now, EventKind::SlotStarted { slot: None, clip }, clips.name(clip));
        self.end_reported = false;
        self.previous = Some(SlotClip { fresh: false, ..cur });
        let id = self.take_id();
        self.current = Some(SlotClip { clip, time: 0.0, prev_time: 0.0, looping, speed: cur.speed, fresh: true, id });
        self.xfade = Fade::new(seconds);
        self.blend_out = 0.0;
        self.slot_id = None;
    }

    /// Fades the envelope to zero over `blend_out` scaled seconds (0 = at
    /// once: the clip ends, interrupted, at `now`).
    pub(crate) fn stop(&mut self, blend_out: f32, clips: &ClipTable, now: f64, events: &mut EventQueue) {
        if self.current.is_none() {
            return;
        }
        let d = sanitize(blend_out);
        if d <= 0.0 {
            if !self.end_reported {
                self.report_end(clips, true, now, events);
            }
            self.clear();
        } else {
            self.stopping = Some((self.envelope, Fade::new(d)));
        }
    }

    fn clear(&mut self) {
        self.end_reported = false;
        self.current = None;
        self.previous = None;
        self.stopping = None;
        self.envelope = 0.0;
        self.slot_id = None;
    }

    fn crossfade_alpha(&self) -> f32 {
        if self.previous.is_some() { self.xfade.alpha() } else { 1.0 }
    }

    /// Advances by `dts` scaled seconds; queues notifies and the slot's end
    /// (a one-shot played out, or a stop's fade-out done); writes the slot
    /// layer into `out` when something plays.
    pub(crate) fn update(
        &mut self,
        clips: &ClipTable,
        frame: FrameClock,
        policy: NotifyPolicy,
        events: &mut EventQueue,
        out: &mut FrameOutput,
    ) {
        let Some(mut cur) = self.current else {
            follow_windows(clips, None, &mut self.windows, NotifySource::Slot, frame, events);
            return;
        };
        let dts = frame.scaled;
        advance_clip(clips, &mut cur, dts);
        let mut prev = self.previous;
        if let Some(p) = prev.as_mut() {
            advance_clip(clips, p, dts);
        }
        self.xfade.advance(dts);
        self.elapsed += dts;
        let alpha = self.crossfade_alpha();
        let lead = emit_notifies(clips, &cur, prev.as_ref(), alpha, policy, frame, events);
        follow_windows(clips, Some(lead), &mut self.windows, NotifySource::Slot, frame, events);
        cur.fresh = false;
        if let Some(p) = prev.as_mut() {
            p.fresh = false;
        }
        let stopped = self.stopping.is_some();
        let (done, finished_once) = self.update_envelope(clips, &cur, dts);
        if (done || finished_once) && !self.end_reported {
            let kind =
                EventKind::SlotEnded { slot: self.slot_id, clip: cur.clip, interrupted: stopped && !finished_once };
            events.push(frame.end(), kind, slot_name(clips, cur.clip, self.slot_id));
            self.end_reported = true;
        }
        if done {
            self.clear();
            close_windows(clips, &mut self.windows, NotifySource::Slot, frame.end(), events);
            return;
        }
        if alpha >= 1.0 {
            prev = None;
        }
        self.current = Some(cur);
        self.previous = prev;
        self.write_layer(clips, &cur, prev.as_ref(), alpha, out);
    }

    /// The envelope after `dts` more seconds: the stop fade while stopping,
    /// else the blend-in ramp capped by the blend-out ramp before the end of
    /// a one-shot clip. Returns (done, `cur` played to its end once).
    fn update_envelope(&mut self, clips: &ClipTable, cur: &SlotClip, dts: f32) -> (bool, bool) {
        let info = clips.get(cur.clip);
        let duration = f64::from(info.duration);
        let finished_once = !cur.looping && cur.time >= duration;
        let done;
        if let Some((start, fade)) = self.stopping.as_mut() {
            fade.advance(dts);
            self.envelope = crossfade_weight(*start, false, fade.alpha());
            done = fade.elapsed() >= fade.duration();
        } else {
            let ramp_in = ramp(self.elapsed, self.blend_in);
            let ramp_out = if !cur.looping && !self.hold_at_end {
                let remaining = (duration - cur.time).max(0.0) as f32 / (cur.speed * info.rate).max(f32::MIN_POSITIVE);
                ramp(remaining, self.blend_out)
            } else {
                1.0
            };
            self.envelope = ramp_in.min(ramp_out);
            done = finished_once && !self.hold_at_end;
        }
        (done, finished_once)
    }

    /// Writes the slot layer: `cur` and, while cross-fading (`alpha` < 1),
    /// `prev`, weighted by the envelope.
    fn write_layer(
        &self,
        clips: &ClipTable,
        cur: &SlotClip,
        prev: Option<&SlotClip>,
        alpha: f32,
        out: &mut FrameOutput,
    ) {
        let mode = if self.additive { BlendMode::Additive } else { BlendMode::Override };
        if !out.begin_layer(SLOT_LAYER, self.envelope, mode, MaskRef::None) {
            return;
        }
        let mut push = |c: &SlotClip, share: f32| {
            let info = clips.get(c.clip);
            let d = f64::from(info.duration);
            let time = if c.looping && d > 0.0 { c.time.rem_euclid(d) } else { c.time.min(d) } as f32;
            let (prev_time, wraps) = if d > 0.0 {
                let (p, _, w) = clip_span(c.prev_time / d, c.time / d, c.looping, info.duration);
                (p, w)
            } else {
                (0.0, 0)
            };
            out.push(ClipContribution {
                clip: c.clip,
                time,
                prev_time,
                wraps,
                weight: share * self.envelope,
                looping: c.looping,
                blend_mode: mode,
                mask: MaskRef::None,
                source: ContributionSource::Slot,
            });
        };
        push(cur, crossfade_weight(0.0, true, alpha));
        if let Some(p) = prev {
            push(p, crossfade_weight(1.0, false, alpha));
        }
    }
}

/// Moves `c` on by `dts` scaled seconds (a one-shot clip stops at its end).
fn advance_clip(clips: &ClipTable, c: &mut SlotClip, dts: f32) {
    let info = clips.get(c.clip);
    c.prev_time = c.time;
    c.time += f64::from(dts * c.speed * info.rate);
    if !c.looping {
        c.time = c.time.min(f64::from(info.duration));
    }
}

/// Queues the notifies of the slot's dominant clip (`prev` while the
/// cross-fade `alpha` is below one half), or of both under `All`; returns
/// the dominant clip as the lead its notify windows follow.
fn emit_notifies(
    clips: &ClipTable,
    cur: &SlotClip,
    prev: Option<&SlotClip>,
    alpha: f32,
    policy: NotifyPolicy,
    frame: FrameClock,
    events: &mut EventQueue,
) -> Lead {
    let emit = |c: &SlotClip, events: &mut EventQueue| {
        let d = f64::from(clips.get(c.clip).duration);
        if d > 0.0 {
            emit_clip_notifies(
                clips,
                c.clip,
                c.prev_time / d,
                c.time / d,
                c.looping,
                c.fresh,
                NotifySource::Slot,
                frame,
                events,
            );
        }
    };
    let dominant = match prev {
        Some(p) if alpha < 0.5 => p,
        _ => cur,
    };
    match (policy, prev) {
        (NotifyPolicy::All, Some(p)) => {
            emit(cur, events);
            emit(p, events);
        }
        _ => emit(dominant, events),
    }
    let d = f64::from(clips.get(dominant.clip).duration).max(f64::MIN_POSITIVE);
    Lead {
        owner: u64::from(dominant.id),
        clip: dominant.clip,
        lo: dominant.prev_time / d,
        hi: dominant.time / d,
        looping: dominant.looping,
        fresh: dominant.fresh,
    }
}

/// Progress of `cur` in `[0, 1]`: looping clips wrap, one-shot clips
/// stop at 1; 1 once `finished` (and for a zero-length clip).
fn progress(clips: &ClipTable, cur: &SlotClip, finished: bool) -> f32 {
    let duration = f64::from(clips.get(cur.clip).duration);
    if finished || duration <= 0.0 {
        1.0
    } else if cur.looping {
        (cur.time / duration).fract() as f32
    } else {
        (cur.time / duration).min(1.0) as f32
    }
}

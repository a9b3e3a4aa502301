//! Tag-driven clip selection: an entity's active [`StateTagSet`]
//! picks a row of a flattened animation profile (exact match, then the
//! fallback walk, then the untagged default), and per-dimension transition
//! policies decide *when* a tag change takes effect and how long it blends.
//!
//! # Timing rule
//! Each update, the dimensions whose requested tags differ from the applied
//! ones are considered:
//! 1. **Trigger, per dimension** ([`StateGraph::resolve_policy`]):
//!    `OnTagChange` is ready at once; `OnEvent` once [`TagSelector::send_event`]
//!    named the dimension after the change was requested; `OnInputThreshold`
//!    once the float input ([`TagSelector::set_input`]) crossed the threshold
//!    (with hysteresis) since then. Dimensions not ready keep waiting.
//! 2. **Hold, most restrictive**: the ready dimensions switch together, and
//!    only when *every* one of them last switched at least its
//!    `min_hold_seconds` ago; otherwise the batch is deferred and re-evaluated
//!    on every update, so it switches on the first update after the last hold
//!    expires.
//! 3. **Crossfade, longest**: when several dimensions switch at once, the
//!    blend is the longest `crossfade_seconds` among them (no dimension's
//!    change is ever cut shorter than its own policy asks); 0 cuts.
//!
//! A switch re-resolves the table against the applied tags. If the winning row
//! is the one already playing, nothing changes. **One-shot** rows play once
//! and then hand control back: the table is resolved again *without* one-shot
//! rows (until the next switch), and playback cross-fades there with the
//! blend that entered the one-shot. With **no match** anywhere the profile's
//! [`NoMatchPolicy`] applies: procedural motion (see [`procedural_motion`]),
//! else the default idle clip, else the current pose is held (clocks frozen).

mod gaits;
mod procedural;
mod table;
mod timing;

use std::sync::Arc;

use zoa_anim_core::contracts::AnimationEventReceiver;
use zoa_anim_core::graph::BlendMode;
use zoa_anim_core::resolver::Resolution;
use zoa_anim_core::{
    AnimationBindingId, AnimationProfile, DimensionSet, LocomotionTag, NoMatchPolicy, RigPolicy, StateGraph,
    StateTagSet, TaggedClipEntry,
};

pub use gaits::{InputThreshold, InputThresholds, MAX_INPUT_THRESHOLDS};
pub use procedural::{ProceduralMotion, procedural_motion};
pub use table::{DEFAULT_RANGE_CROSSFADE, SelectorTable};
use table::{SWITCHED_TAGGED_ROW, SWITCHED_UNTAGGED_ROW};

use crate::character::events::{Event, EventKind, EventQueue, NotifySource};
use crate::character::fade::{Fade, crossfade_weight};
use crate::character::graph::{
    ClipContribution, ClipId, ClipTable, ContributionSource, FrameOutput, Lead, MaskRef, WindowState, follow_windows,
};
use crate::error::RuntimeError;

/// Row id used in [`ContributionSource::Selector`] for the default idle clip.
pub const DEFAULT_IDLE_ROW: u32 = u32::MAX;

/// Layer id the selector writes into a [`FrameOutput`].
pub const SELECTOR_LAYER: u16 = 0;

/// Most clips blending at once in the selector (the current one plus fading ones).
pub const MAX_SELECTOR_CLIPS: usize = 4;

/// Why a requested tag change in one dimension has not taken effect yet
/// (see [`TagSelector::pending`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Pending {
    /// Ready, but a dimension switching with it has not held its value for
    /// its `min_hold_seconds` yet: it takes effect in `seconds_left`.
    Hold {
        /// Seconds until the hold ends.
        seconds_left: f32,
    },
    /// `OnEvent`: waits for a gameplay event naming the dimension (firing or
    /// setting one of its bindings, or `send_tag_event`).
    Event,
    /// `OnInputThreshold` with gaits: waits for the speed to be in the
    /// requested gait's band.
    Speed {
        /// The speed given last, m/s.
        speed: f32,
        /// The gait the speed is in now.
        current: LocomotionTag,
        /// The requested gait's band, m/s (upper `f32::INFINITY` for the fastest).
        needs: (f32, f32),
    },
    /// `OnInputThreshold` without gaits: waits for the input to cross a threshold.
    InputCrossing,
}

/// What the selector plays now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SelectorMode {
    /// A table row.
    Row(u32),
    /// The default idle clip (no row matched).
    DefaultIdle,
    /// Procedural motion (no row matched).
    Procedural,
    /// Holding the last pose (no row matched, nothing else allowed).
    Hold,
}

#[derive(Debug, Clone, Copy, PartialEq)]
struct Playing {
    row: u32,
    clip: ClipId,
    time: f64,
    prev_time: f64,
    speed: f32,
    looping: bool,
    one_shot: bool,
    weight: f32,
    weight0: f32,
    fresh: bool,
}

/// A tag-driven selector for one entity.
#[derive(Debug, Clone)]
pub struct TagSelector {
    table: Arc<SelectorTable>,
    input: InputThresholds,
    step_frequency: f32,
    desired: StateTagSet,
    applied: StateTagSet,
    last_switch: [f64; 6],
    pending_events: DimensionSet,
    input_value: f32,
    input_band: usize,
    input_crossed: bool,
    /// Whether the input was ever given: until it is, `OnInputThreshold`
    /// changes apply as `OnTagChange` ones do (a game that never sets a
    /// speed still sees its locomotion tags take effect).
    input_given: bool,
    time: f64,
    playing: Vec<Playing>,
    fade: Option<Fade>,
    last_fade: f32,
    mode: SelectorMode,
    resolution: Option<Resolution>,
    procedural_weight: f32,
    procedural_fade: f32,
    events: EventQueue,
    /// Values of the bindings chooser columns test, given by the game
    /// ([`TagSelector::set_value`]); at most [`MAX_CHOOSER_VALUES`].
    values: [Option<(AnimationBindingId, f32)>; MAX_CHOOSER_VALUES],
    /// A value changed since the last update.
    values_changed: bool,
    /// State of the random row pick ([`TagSelector::set_seed`]).
    rng: u64,
    /// Notify windows open on the leading clip.
    windows: WindowState,
}

/// Most distinct bindings whose values one selector keeps for chooser columns.
pub const MAX_CHOOSER_VALUES: usize = 16;

impl TagSelector {
    /// Prefetching for a crowd: the rows playing and the event queue (see
    /// [`crate::pose::simd::prefetch`]).
    pub(crate) fn prefetch(&self) {
        crate::pose::simd::prefetch(&self.playing, usize::MAX);
        self.events.prefetch();
    }
    /// A selector over `profile` flattened with its ancestors (`lookup` finds a
    /// profile by id), starting at `initial` tags with a cut.
    pub fn from_profile<'a>(
        profile: &'a AnimationProfile,
        lookup: impl Fn(&str) -> Option<&'a AnimationProfile>,
        clips: Arc<ClipTable>,
        timing: StateGraph,
        rig: RigPolicy,
        initial: StateTagSet,
    ) -> Result<TagSelector, RuntimeError> {
        let table = SelectorTable::from_profile(profile, lookup, clips, timing, rig)?;
        Ok(TagSelector::with_table(Arc::new(table), initial))
    }

    /// A selector over an already flattened table. Every row's clip and the
    /// default idle clip must resolve in `clips`; every problem is reported at once.
    pub fn new(
        rows: Vec<TaggedClipEntry>,
        no_match: NoMatchPolicy,
        clips: Arc<ClipTable>,
        timing: StateGraph,
        rig: RigPolicy,
        initial: StateTagSet,
    ) -> Result<TagSelector, RuntimeError> {
        let table = SelectorTable::new(rows, no_match, clips, timing, rig)?;
        Ok(TagSelector::with_table(Arc::new(table), initial))
    }

    /// A selector over a shared table, starting at `initial` tags with a cut.
    #[must_use]
    pub fn with_table(table: Arc<SelectorTable>, initial: StateTagSet) -> TagSelector {
        let input = InputThresholds::from(&table.timing.gaits);
        let mut s = TagSelector {
            table,
            input,
            step_frequency: 1.8,
            desired: initial,
            applied: initial,
            last_switch: [f64::NEG_INFINITY; 6],
            pending_events: DimensionSet::EMPTY,
            input_value: 0.0,
            input_band: 0,
            input_crossed: false,
            input_given: false,
            time: 0.0,
            playing: Vec::with_capacity(MAX_SELECTOR_CLIPS + 1),
            fade: None,
            last_fade: 0.0,
            mode: SelectorMode::Hold,
            resolution: None,
            procedural_weight: 0.0,
            procedural_fade: 0.0,
            events: EventQueue::with_capacity(EventQueue::DEFAULT_CAPACITY),
            values: [None; MAX_CHOOSER_VALUES],
            values_changed: false,
            rng: 0,
            windows: WindowState::default(),
        };
        s.switch(0.0, false);
        s
    }

    /// The shared table.
    #[must_use]
    pub fn table(&self) -> &Arc<SelectorTable> {
        &self.table
    }

    /// Replaces the table (another class's profile over the same clip table)
    /// and cross-fades to what the applied tags resolve to in it over `fade`
    /// seconds (0 cuts). Allocation-free.
    pub fn set_table(&mut self, table: Arc<SelectorTable>, fade: f32) {
        if Arc::ptr_eq(&self.table, &table) {
            return;
        }
        for p in self.playing.iter_mut() {
            p.row = if self.table.is_tagged(p.row) { SWITCHED_TAGGED_ROW } else { SWITCHED_UNTAGGED_ROW };
        }
        self.table = table;
        self.set_input_thresholds(InputThresholds::from(&self.table.timing.gaits));
        self.switch(fade, false);
    }

    /// Builder: the input threshold of `OnInputThreshold` dimensions.
    #[must_use]
    pub fn with_input_threshold(mut self, input: InputThreshold) -> TagSelector {
        self.set_input_thresholds(input.into());
        self
    }
    /// Builder: several input thresholds (one per gait boundary).
    #[must_use]
    pub fn with_input_thresholds(mut self, input: InputThresholds) -> TagSelector {
        self.set_input_thresholds(input);
        self
    }
    /// Sets the input thresholds (the input's band is recomputed from 0).
    pub fn set_input_thresholds(&mut self, input: InputThresholds) {
        self.input = input;
        self.input_band = input.band(0, self.input_value);
    }
    /// Builder: event queue capacity (events past it between two deliveries
    /// are dropped and counted).
    #[must_use]
    pub fn with_event_capacity(mut self, capacity: usize) -> TagSelector {
        self.events = EventQueue::with_capacity(capacity);
        self
    }

    /// Builder: head-bob cadence of the procedural fallback, Hz (default 1.8).
    #[must_use]
    pub fn with_step_frequency(mut self, hz: f32) -> TagSelector {
        self.step_frequency = hz;
        self
    }

    /// Output buffers big enough for any frame of the selector.
    #[must_use]
    pub fn new_output(&self) -> FrameOutput {
        FrameOutput::with_capacity(1, MAX_SELECTOR_CLIPS + 1)
    }

    /// Requests new active tags; they take effect per the timing rule.
    pub fn set_tags(&mut self, tags: StateTagSet) {
        self.desired = tags;
    }
    /// Tags requested last.
    #[must_use]
    pub fn requested_tags(&self) -> StateTagSet {
        self.desired
    }
    /// Tags in effect.
    #[must_use]
    pub fn applied_tags(&self) -> StateTagSet {
        self.applied
    }
    /// Gameplay event for `OnEvent` dimensions: releases pending changes in `dims`.
    pub fn send_event(&mut self, dims: DimensionSet) {
        self.pending_events = DimensionSet::from_bits_truncate(self.pending_events.bits() | dims.bits());
    }
    /// Feeds the float input of `OnInputThreshold` dimensions.
    pub fn set_input(&mut self, value: f32) {
        if !value.is_finite() {
            return;
        }
        self.input_value = value;
        self.input_given = true;
        let band = self.input.band(self.input_band, value);
        if band != self.input_band {
            self.input_band = band;
            self.input_crossed = true;
        }
    }
    /// The value of a binding chooser columns test (`ranges = ["aim_yaw in
    /// -45..45"]`): a row whose range does not hold is no candidate, and a
    /// change that selects another row cross-fades there on the next update
    /// over the table's range cross-fade. Non-finite values are ignored; past
    /// [`MAX_CHOOSER_VALUES`] distinct bindings new ones are ignored.
    /// Allocation-free.
    pub fn set_value(&mut self, binding: AnimationBindingId, value: f32) {
        if !value.is_finite() {
            return;
        }
        if let Some((_, v)) = self.values.iter_mut().flatten().find(|(b, _)| *b == binding) {
            if v.to_bits() != value.to_bits() {
                *v = value;
                self.values_changed = true;
            }
        } else if let Some(slot) = self.values.iter_mut().find(|v| v.is_none()) {
            *slot = Some((binding, value));
            self.values_changed = true;
        }
    }
    /// The value given last for `binding` (NaN, in no range, when never given).
    #[must_use]
    pub fn value(&self, binding: AnimationBindingId) -> f32 {
        self.values.iter().flatten().find(|(b, _)| *b == binding).map_or(f32::NAN, |(_, v)| *v)
    }
    /// Seeds the random row pick of tables with `pick = "random"`: the same
    /// seed and inputs give the same picks, whatever thread updates the
    /// character. Picks happen only when a tied group is entered.
    pub fn set_seed(&mut self, seed: u64) {
        self.rng = seed;
    }
    /// The next uniform number in `[0, 1)` (splitmix64).
    fn next_random(&mut self) -> f32 {
        self.rng = self.rng.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.rng;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        (z >> 40) as f32 / (1u64 << 24) as f32
    }
    /// The input's band: how many thresholds it is above (with hysteresis).
    #[must_use]
    pub fn input_band(&self) -> usize {
        self.input_band
    }
    /// What plays now.
    #[must_use]
    pub fn mode(&self) -> SelectorMode {
        self.mode
    }
    /// The last resolution (`None` when nothing matched).
    #[must_use]
    pub fn resolution(&self) -> Option<Resolution> {
        self.resolution
    }
    /// The flattened table.
    #[must_use]
    pub fn rows(&self) -> &[TaggedClipEntry] {
        &self.table.rows
    }
    /// Clip of the current row or default idle.
    #[must_use]
    pub fn current_clip(&self) -> Option<ClipId> {
        self.playing.first().map(|p| p.clip)
    }
    /// Weight of the current clip (`0..=1`).
    #[must_use]
    pub fn current_weight(&self) -> f32 {
        self.playing.first().map_or(0.0, |p| p.weight)
    }
    /// Selector time, seconds.
    #[must_use]
    pub fn time(&self) -> f64 {
        self.time
    }
    /// Procedural fallback values and their weight `0..=1` (`None` when not in use).
    #[must_use]
    pub fn procedural(&self) -> Option<(ProceduralMotion, f32)> {
        (self.procedural_weight > 0.0).then(|| {
            let moving = self.applied.locomotion().intersects(
                LocomotionTag::WALK
                    | LocomotionTag::RUN
                    | LocomotionTag::SPRINT
                    | LocomotionTag::STRAFE
                    | LocomotionTag::BACKWARD,
            );
            (procedural_motion(&self.table.rig, self.time as f32, moving, self.step_frequency), self.procedural_weight)
        })
    }
    /// Queued notify events.
    #[must_use]
    pub fn events(&self) -> &[Event] {
        self.events.events()
    }
    /// Forgets queued notifies.
    pub fn clear_events(&mut self) {
        self.events.clear();
    }
    /// Notifies dropped since the last clear because the queue was full.
    #[must_use]
    pub fn dropped_events(&self) -> u32 {
        self.events.dropped()
    }
    /// `(clip, notify)` of the notify windows open on the leading clip.
    pub(crate) fn open_windows(&self) -> impl Iterator<Item = (ClipId, u16)> + '_ {
        self.windows.open(&self.table.clips)
    }
    /// Delivers queued notifies (time order) and clears the queue.
    pub fn deliver_events(&mut self, receiver: &mut dyn AnimationEventReceiver) {
        self.events.sort();
        for e in self.events.events() {
            if let EventKind::Notify { .. } = e.kind {
                receiver.on_notify(e.name.as_str());
            }
        }
        self.events.clear();
    }

    /// Advances by `dt` seconds: applies tag changes per the timing rule,
    /// advances and blends the clips, hands one-shots back, and writes one
    /// layer into `out` (cleared first). Allocation-free with an output from
    /// [`TagSelector::new_output`].
    pub fn update(&mut self, dt: f32, out: &mut FrameOutput) {
        let dt = if dt.is_finite() { dt.max(0.0) } else { 0.0 };
        let frame = crate::character::graph::FrameClock { t0: self.time, dt, scaled: dt };
        self.time += f64::from(dt);
        self.apply_tag_changes();
        if std::mem::take(&mut self.values_changed) && self.table.has_ranges() {
            self.switch(self.table.range_crossfade, false);
        }
        // Advance clocks (frozen while holding).
        if self.mode == SelectorMode::Hold {
            for p in self.playing.iter_mut() {
                p.prev_time = p.time;
            }
        } else {
            for p in self.playing.iter_mut() {
                let info = self.table.clips.get(p.clip);
                p.prev_time = p.time;
                p.time += f64::from(dt * p.speed * info.rate);
                if !p.looping {
                    p.time = p.time.min(f64::from(info.duration));
                }
            }
        }
        // Fade.
        if let Some(fade) = self.fade.as_mut() {
            fade.advance(dt);
            let a = fade.alpha();
            for (k, p) in self.playing.iter_mut().enumerate() {
                p.weight = crossfade_weight(p.weight0, k == 0 && self.mode != SelectorMode::Procedural, a);
            }
            self.procedural_weight = crossfade_weight(self.procedural_fade, self.mode == SelectorMode::Procedural, a);
            if a >= 1.0 {
                self.fade = None;
                let keep = usize::from(self.mode != SelectorMode::Procedural);
                self.playing.truncate(keep);
            }
        }
        // Notifies and notify windows of the dominant clip.
        let mut lead = None;
        if let Some(p) = self.playing.iter().max_by(|a, b| a.weight.total_cmp(&b.weight)).copied() {
            let d = f64::from(self.table.clips.get(p.clip).duration);
            if d > 0.0 && p.weight > 0.0 {
                let (lo, hi) = (p.prev_time / d, p.time / d);
                // A row plays once at a time: the row (and clip) names the lead; a restart is fresh.
                let owner = (u64::from(p.row) << 32) | u64::from(p.clip.0);
                lead = Some(Lead { owner, clip: p.clip, lo, hi, looping: p.looping, fresh: p.fresh });
                crate::character::graph::emit_clip_notifies(
                    &self.table.clips,
                    p.clip,
                    lo,
                    hi,
                    p.looping,
                    p.fresh,
                    NotifySource::Selector,
                    frame,
                    &mut self.events,
                );
            }
        }
        let source = NotifySource::Selector;
        follow_windows(&self.table.clips, lead, &mut self.windows, source, frame, &mut self.events);
        for p in self.playing.iter_mut() {
            p.fresh = false;
        }
        // One-shot hand-back.
        if let Some(p) = self.playing.first()
            && p.one_shot
            && p.time >= f64::from(self.table.clips.get(p.clip).duration)
        {
            self.switch(self.last_fade, true);
        }
        self.write(out);
    }

    fn write(&self, out: &mut FrameOutput) {
        out.clear();
        if self.playing.is_empty() || !out.begin_layer(SELECTOR_LAYER, 1.0, BlendMode::Override, MaskRef::None) {
            return;
        }
        for p in &self.playing {
            if p.weight <= 0.0 {
                continue;
            }
            let d = f64::from(self.table.clips.get(p.clip).duration);
            let time = if p.looping && d > 0.0 { p.time.rem_euclid(d) } else { p.time.min(d) } as f32;
            let (prev_time, wraps) = if d > 0.0 {
                let (pt, _, w) = crate::character::graph::clip_span(p.prev_time / d, p.time / d, p.looping, d as f32);
                (pt, w)
            } else {
                (0.0, 0)
            };
            out.push(ClipContribution {
                clip: p.clip,
                time,
                prev_time,
                wraps,
                weight: p.weight,
                looping: p.looping,
                blend_mode: BlendMode::Override,
                mask: MaskRef::None,
                source: ContributionSource::Selector { row: p.row },
            });
        }
    }
}

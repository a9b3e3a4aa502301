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

use std::sync::Arc;

use zoa_anim_core::contracts::AnimationEventReceiver;
use zoa_anim_core::glam::{Quat, Vec3};
use zoa_anim_core::graph::BlendMode;
use zoa_anim_core::inheritance::flatten_chain;
use zoa_anim_core::resolver::{Resolution, resolve_best_match};
use zoa_anim_core::{
    AnimationProfile, DimensionSet, GaitSpeeds, LocomotionTag, NoMatchPolicy, RigPolicy, StateDimension, StateGraph,
    StateTagSet, TaggedClipEntry, TransitionTrigger,
};

use crate::error::RuntimeError;
use crate::events::{Event, EventKind, EventQueue, NotifySource};
use crate::fade::{Fade, crossfade_weight};
use crate::graph::{ClipContribution, ClipId, ClipTable, ContributionSource, FrameOutput, MaskRef};

/// Row id used in [`ContributionSource::Selector`] for the default idle clip.
pub const DEFAULT_IDLE_ROW: u32 = u32::MAX;

/// Layer id the selector writes into a [`FrameOutput`].
pub const SELECTOR_LAYER: u16 = 0;

/// Most clips blending at once in the selector (the current one plus fading ones).
pub const MAX_SELECTOR_CLIPS: usize = 4;

/// Most thresholds an `OnInputThreshold` input can have.
pub const MAX_INPUT_THRESHOLDS: usize = 8;

/// The `OnInputThreshold` trigger's input test: one threshold between two gaits.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct InputThreshold {
    /// Crossing point of the input (default 0.5, e.g. normalised speed).
    pub threshold: f32,
    /// Width of the dead band around the threshold (`>= 0`, default 0.1): the
    /// input must rise above `threshold + hysteresis/2` or fall below
    /// `threshold − hysteresis/2` to count as a crossing.
    pub hysteresis: f32,
}

impl Default for InputThreshold {
    fn default() -> Self {
        InputThreshold { threshold: 0.5, hysteresis: 0.1 }
    }
}

/// Several thresholds splitting the input into bands (one band per gait:
/// idle | walk | run | sprint). Crossing any threshold, with the hysteresis
/// dead band around each, counts as a crossing, so a locomotion change is
/// released as the input enters the band of each successive gait.
///
/// With gaits ([`InputThresholds::with_gaits`]: the locomotion tag of each
/// band, slowest first), a locomotion change is ready exactly when the input
/// is in the band of the requested gait, so `walk → run → sprint` follows the
/// speed; a requested locomotion with none of the gaits (strafe, jump, …) is
/// ready at once. Without gaits, any crossing since the request releases it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct InputThresholds {
    points: [f32; MAX_INPUT_THRESHOLDS],
    count: usize,
    hysteresis: f32,
    gaits: [LocomotionTag; MAX_INPUT_THRESHOLDS + 1],
    gait_count: usize,
}

impl InputThresholds {
    /// Thresholds (sorted here; non-finite ones dropped; at most
    /// [`MAX_INPUT_THRESHOLDS`] kept) with a dead band of `hysteresis` (`>= 0`)
    /// around each.
    pub fn new(thresholds: &[f32], hysteresis: f32) -> InputThresholds {
        let mut points = [0.0; MAX_INPUT_THRESHOLDS];
        let mut count = 0;
        for &t in thresholds.iter().filter(|t| t.is_finite()).take(MAX_INPUT_THRESHOLDS) {
            points[count] = t;
            count += 1;
        }
        points[..count].sort_by(f32::total_cmp);
        let hysteresis = if hysteresis.is_finite() { hysteresis.max(0.0) } else { 0.0 };
        InputThresholds {
            points,
            count,
            hysteresis,
            gaits: [LocomotionTag::empty(); MAX_INPUT_THRESHOLDS + 1],
            gait_count: 0,
        }
    }
    /// Builder: the locomotion tag of each band, slowest first (at most one
    /// more than the thresholds; extra ones are ignored).
    #[must_use]
    pub fn with_gaits(mut self, gaits: &[LocomotionTag]) -> InputThresholds {
        let n = gaits.len().min(self.count + 1);
        self.gaits[..n].copy_from_slice(&gaits[..n]);
        self.gait_count = n;
        self
    }
    /// The gait of each band.
    #[must_use]
    pub fn gaits(&self) -> &[LocomotionTag] {
        &self.gaits[..self.gait_count]
    }
    /// The band of the first gait `locomotion` names (`None` when it names none).
    #[must_use]
    pub fn gait_band(&self, locomotion: LocomotionTag) -> Option<usize> {
        self.gaits().iter().position(|g| locomotion.intersects(*g))
    }
    /// The thresholds, ascending.
    #[must_use]
    pub fn thresholds(&self) -> &[f32] {
        &self.points[..self.count]
    }
    /// The band `value` is in, starting from band `current`: it moves up past
    /// a threshold only beyond `threshold + hysteresis/2` and down only below
    /// `threshold − hysteresis/2`.
    #[must_use]
    pub fn band(&self, current: usize, value: f32) -> usize {
        let half = self.hysteresis * 0.5;
        let mut band = current.min(self.count);
        while band < self.count && value >= self.points[band] + half {
            band += 1;
        }
        while band > 0 && value <= self.points[band - 1] - half {
            band -= 1;
        }
        band
    }
}

impl From<&GaitSpeeds> for InputThresholds {
    /// The bands of a timing definition's gaits (idle below the first).
    fn from(g: &GaitSpeeds) -> Self {
        let mut points = [0.0; MAX_INPUT_THRESHOLDS];
        let mut gaits = [LocomotionTag::IDLE; MAX_INPUT_THRESHOLDS + 1];
        let mut n = 0;
        for (k, t) in g.thresholds().take(MAX_INPUT_THRESHOLDS).enumerate() {
            points[k] = t;
            n = k + 1;
        }
        for (k, gait) in g.gaits().take(n + 1).enumerate() {
            gaits[k] = gait;
        }
        InputThresholds::new(&points[..n], g.dead_band).with_gaits(&gaits[..=n])
    }
}

impl From<InputThreshold> for InputThresholds {
    fn from(t: InputThreshold) -> Self {
        InputThresholds::new(&[t.threshold], t.hysteresis)
    }
}

impl Default for InputThresholds {
    fn default() -> Self {
        InputThreshold::default().into()
    }
}

/// Procedural fallback values for one moment (a character with no clip for
/// its state still moves: idle breath on the spine root, head bob during
/// locomotion).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ProceduralMotion {
    /// Spine-root pitch, radians: `breath_amplitude · sin(2π · breath_frequency · t)`.
    pub spine_pitch: f32,
    /// Vertical head offset, metres: `head_bob_amplitude · sin(2π · step_frequency · t)`
    /// while moving, 0 at rest.
    pub head_bob: f32,
}

impl ProceduralMotion {
    /// The spine-root rotation to compose onto the pose (about the local X axis).
    #[must_use]
    pub fn spine_rotation(&self) -> Quat {
        Quat::from_rotation_x(self.spine_pitch)
    }
    /// The head translation to add to the pose (along +Y).
    #[must_use]
    pub fn head_offset(&self) -> Vec3 {
        Vec3::new(0.0, self.head_bob, 0.0)
    }
}

/// The procedural fallback at time `t` seconds. Pure: breath follows the rig
/// policy's frequency and amplitude; the head bob uses the policy's amplitude
/// at `step_frequency` Hz (the rig policy has no cadence knob) and only while `moving`.
#[must_use]
pub fn procedural_motion(policy: &RigPolicy, t: f32, moving: bool, step_frequency: f32) -> ProceduralMotion {
    let tau = std::f32::consts::TAU;
    let spine_pitch = policy.breath_amplitude * (tau * policy.breath_frequency * t).sin();
    let head_bob = if moving { policy.head_bob_amplitude * (tau * step_frequency * t).sin() } else { 0.0 };
    ProceduralMotion { spine_pitch, head_bob }
}

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

/// A flattened clip table resolved against a [`ClipTable`], with the
/// no-match policy, transition timing and procedural settings: everything a
/// [`TagSelector`] reads and never changes, built once and shared (`Arc`) by
/// every entity using the profile.
#[derive(Debug, Clone)]
pub struct SelectorTable {
    rows: Vec<TaggedClipEntry>,
    row_clips: Vec<ClipId>,
    looping_rows: Vec<TaggedClipEntry>,
    looping_map: Vec<u32>,
    clips: Arc<ClipTable>,
    no_match: NoMatchPolicy,
    default_idle: Option<ClipId>,
    rig: RigPolicy,
    timing: StateGraph,
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
                if !(r.speed_multiplier.is_finite() && r.speed_multiplier > 0.0) {
                    reasons.push(format!("row {i}: speed multiplier {} must be finite and > 0", r.speed_multiplier));
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
    /// Whether `row` (a [`ContributionSource::Selector`] row) is a row that
    /// asserts at least one tag: `false` for the untagged universal default
    /// and for [`DEFAULT_IDLE_ROW`]. A tagged row says something specific about
    /// the entity; an untagged one is a last resort.
    #[must_use]
    pub fn is_tagged(&self, row: u32) -> bool {
        row == SWITCHED_TAGGED_ROW || self.rows.get(row as usize).is_some_and(|r| r.pattern != StateTagSet::EMPTY)
    }
}

/// Row ids of clips still fading out of a replaced table (tagged or not there).
const SWITCHED_TAGGED_ROW: u32 = u32::MAX - 1;
const SWITCHED_UNTAGGED_ROW: u32 = u32::MAX - 2;

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
}

impl TagSelector {
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
    /// Why the requested change of `dimension` has not taken effect (`None`
    /// when requested and applied tags agree there, or it takes effect on
    /// the next update).
    #[must_use]
    pub fn pending(&self, dimension: StateDimension) -> Option<Pending> {
        if !self.applied.changed_dimensions(&self.desired).contains(dimension) {
            return None;
        }
        let ready = |d: StateDimension| self.ready(d);
        if !ready(dimension) {
            let p = self.table.timing.resolve_policy(dimension);
            return Some(match p.trigger {
                TransitionTrigger::OnEvent => Pending::Event,
                TransitionTrigger::OnInputThreshold => match self.input.gait_band(self.desired.locomotion()) {
                    Some(band) if dimension == StateDimension::Locomotion && self.input.gait_count > 0 => {
                        let t = self.input.thresholds();
                        let lo = if band == 0 { 0.0 } else { t[band - 1] };
                        let hi = t.get(band).copied().unwrap_or(f32::INFINITY);
                        let current = self.input.gaits().get(self.input_band).copied().unwrap_or_default();
                        Pending::Speed { speed: self.input_value, current, needs: (lo, hi) }
                    }
                    _ => Pending::InputCrossing,
                },
                TransitionTrigger::OnTagChange => return None,
            });
        }
        // Ready: held while any dimension switching with it is within its hold.
        let changed = self.applied.changed_dimensions(&self.desired);
        let left = changed
            .iter()
            .filter(|&d| ready(d))
            .map(|d| {
                let hold = f64::from(self.table.timing.resolve_policy(d).min_hold_seconds);
                (hold - (self.time - self.last_switch[d.index()])) as f32
            })
            .fold(0.0f32, f32::max);
        (left > 0.0).then_some(Pending::Hold { seconds_left: left })
    }

    /// Whether the trigger of `d`'s pending change has fired (its hold aside).
    fn ready(&self, d: StateDimension) -> bool {
        match self.table.timing.resolve_policy(d).trigger {
            TransitionTrigger::OnTagChange => true,
            TransitionTrigger::OnInputThreshold if !self.input_given => true,
            TransitionTrigger::OnEvent => self.pending_events.contains(d),
            TransitionTrigger::OnInputThreshold if d == StateDimension::Locomotion && self.input.gait_count > 0 => {
                match self.input.gait_band(self.desired.locomotion()) {
                    Some(band) => self.input_band == band,
                    None => true,
                }
            }
            TransitionTrigger::OnInputThreshold => self.input_crossed,
        }
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
        let frame = crate::graph::FrameClock { t0: self.time, dt, scaled: dt };
        self.time += f64::from(dt);
        self.apply_tag_changes();
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
        // Notifies of the dominant clip.
        if let Some(p) = self.playing.iter().max_by(|a, b| a.weight.total_cmp(&b.weight)).copied() {
            let d = f64::from(self.table.clips.get(p.clip).duration);
            if d > 0.0 && p.weight > 0.0 {
                crate::graph::emit_clip_notifies(
                    &self.table.clips,
                    p.clip,
                    p.prev_time / d,
                    p.time / d,
                    p.looping,
                    p.fresh,
                    NotifySource::Selector,
                    frame,
                    &mut self.events,
                );
            }
        }
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

    fn apply_tag_changes(&mut self) {
        let changed = self.applied.changed_dimensions(&self.desired);
        let mut batch = DimensionSet::EMPTY;
        let mut uses_input = false;
        for d in changed.iter() {
            let p = self.table.timing.resolve_policy(d);
            if self.ready(d) {
                batch = batch.with(d);
                uses_input |= p.trigger == TransitionTrigger::OnInputThreshold;
            }
        }
        if !batch.is_empty() {
            let held = batch.iter().any(|d| {
                let hold = f64::from(self.table.timing.resolve_policy(d).min_hold_seconds);
                self.time - self.last_switch[d.index()] < hold
            });
            if !held {
                let mut fade = 0.0f32;
                for d in batch.iter() {
                    self.applied = self.applied.with_mask(d, self.desired.mask(d));
                    self.last_switch[d.index()] = self.time;
                    fade = fade.max(self.table.timing.resolve_policy(d).crossfade_seconds);
                }
                if uses_input {
                    self.input_crossed = false;
                }
                self.switch(fade, false);
            }
        }
        // Latches only wait for changes that are still pending.
        let pending = self.applied.changed_dimensions(&self.desired);
        self.pending_events = DimensionSet::from_bits_truncate(self.pending_events.bits() & pending.bits());
        let input_pending =
            pending.iter().any(|d| self.table.timing.resolve_policy(d).trigger == TransitionTrigger::OnInputThreshold);
        if !input_pending {
            self.input_crossed = false;
        }
    }

    /// Re-resolves against the applied tags and blends there over `fade` seconds.
    fn switch(&mut self, fade: f32, hand_back: bool) {
        let fade = if fade.is_finite() { fade.max(0.0) } else { 0.0 };
        let resolved = if hand_back {
            resolve_best_match(&self.table.looping_rows, self.applied)
                .map(|r| Resolution { row: self.table.looping_map[r.row] as usize, ..r })
        } else {
            resolve_best_match(&self.table.rows, self.applied)
        };
        self.resolution = resolved;
        let target = match resolved {
            Some(r) => {
                let row = &self.table.rows[r.row];
                Some((r.row as u32, self.table.row_clips[r.row], row.speed_multiplier, !row.one_shot, row.one_shot))
            }
            None => match (&self.table.no_match, self.table.default_idle) {
                (NoMatchPolicy::DefaultIdle(_), Some(c)) => Some((DEFAULT_IDLE_ROW, c, 1.0, true, false)),
                (NoMatchPolicy::Procedural, _) => {
                    self.start_fade(fade);
                    self.procedural_fade = self.procedural_weight;
                    self.mode = SelectorMode::Procedural;
                    if fade <= 0.0 {
                        self.playing.clear();
                        self.procedural_weight = 1.0;
                    }
                    return;
                }
                _ => {
                    self.mode = SelectorMode::Hold;
                    return;
                }
            },
        };
        let Some((row, clip, speed, looping, one_shot)) = target else { return };
        if let Some(cur) = self.playing.first()
            && cur.row == row
            && !hand_back
            && self.mode != SelectorMode::Procedural
        {
            // Same row: keep playing (a finished one-shot re-entered by a new switch restarts).
            if !(cur.one_shot && cur.time >= f64::from(self.table.clips.get(cur.clip).duration)) {
                self.mode = if row == DEFAULT_IDLE_ROW { SelectorMode::DefaultIdle } else { SelectorMode::Row(row) };
                return;
            }
        }
        self.start_fade(fade);
        self.mode = if row == DEFAULT_IDLE_ROW { SelectorMode::DefaultIdle } else { SelectorMode::Row(row) };
        self.procedural_fade = self.procedural_weight;
        if fade <= 0.0 {
            self.procedural_weight = 0.0;
        }
        if one_shot {
            self.last_fade = fade;
        }
        let entry = Playing {
            row,
            clip,
            time: 0.0,
            prev_time: 0.0,
            speed,
            looping,
            one_shot,
            weight: if fade > 0.0 { 0.0 } else { 1.0 },
            weight0: 0.0,
            fresh: true,
        };
        if fade <= 0.0 {
            self.playing.clear();
            self.fade = None;
        } else if self.playing.len() >= MAX_SELECTOR_CLIPS {
            let (k, _) = self
                .playing
                .iter()
                .enumerate()
                .min_by(|a, b| a.1.weight.total_cmp(&b.1.weight))
                .expect("full, so not empty");
            self.playing.remove(k);
            let sum: f32 = self.playing.iter().map(|p| p.weight0).sum();
            for p in self.playing.iter_mut() {
                p.weight0 = if sum > 0.0 { p.weight0 / sum } else { 0.0 };
            }
        }
        self.playing.insert(0, entry);
    }

    /// Freezes current weights as the fade's start and starts a fade of `fade` seconds.
    fn start_fade(&mut self, fade: f32) {
        for p in self.playing.iter_mut() {
            p.weight0 = p.weight;
        }
        self.fade = Some(Fade::new(fade));
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
                let (pt, _, w) = crate::graph::clip_span(p.prev_time / d, p.time / d, p.looping, d as f32);
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

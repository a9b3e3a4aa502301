//! The capture data model: what a preview run recorded, tick by tick.
//!
//! Flat, structure-of-arrays storage so recording a tick only pushes plain
//! values onto vectors reserved for the whole preset: per tick a
//! [`TickRecord`] holds ranges into [`Capture::states`], [`Capture::rows`],
//! [`Capture::events`], [`Capture::contributions`], [`Capture::sounds`] and
//! [`Capture::ik`]; binding values and joint positions are dense
//! `ticks × columns` / `ticks × joints` arrays. Every string is interned once
//! in [`Capture::names`] and referenced by index, so a tick records no string.

use std::ops::Range;

use zoa_anim_core::StateTagSet;
use zoa_anim_ik::{PolicyKind, Side};
use zoa_anim_runtime::character::{BindingPhase, EventKind};
use zoa_audio_profile::TriggerOutcome;

/// Index into [`Capture::names`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NameId(pub u32);

/// What a preset step did (recorded beside the character's events).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StepKind {
    /// A `set` step wrote a binding (name: binding id).
    Set,
    /// A `fire` step fired a trigger binding (name: binding id).
    Trigger,
    /// A `play_slot` step played a slot (name: slot id).
    Slot,
    /// A `play_slot` step named a slot the active binding profile lacks or cannot resolve (name: slot id).
    SlotUnresolved,
    /// A `play_state` step forced a state of the graph in use (name: the state).
    ForceState,
    /// A `play_state` step named a state the graph in use lacks (name: the state).
    ForceStateUnresolved,
    /// A `set_tags` step requested new state tags (name: the tags).
    Tags,
    /// The combat tag switched the loadout class (name: the class used).
    Equip,
}

impl StepKind {
    /// Stable snake-case name (the `kind` of the JSON and CSV exports).
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            StepKind::Set => "set",
            StepKind::Trigger => "trigger",
            StepKind::Slot => "slot",
            StepKind::SlotUnresolved => "slot_unresolved",
            StepKind::ForceState => "force_state",
            StepKind::ForceStateUnresolved => "force_state_unresolved",
            StepKind::Tags => "tags",
            StepKind::Equip => "equip",
        }
    }
}

/// What an [`EventRecord`] reports: a preset step, or a character event
/// recorded as the runtime delivered it (its [`EventKind`] as is; a binding
/// phase is named by its binding id).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Recorded {
    /// A preset step.
    Step(StepKind),
    /// An event of the character.
    Event(EventKind),
}

impl Recorded {
    /// Stable snake-case name (the `kind` of the JSON and CSV exports): the
    /// step's, or [`EventKind::as_str`].
    #[must_use]
    pub const fn as_str(&self) -> &'static str {
        match self {
            Recorded::Step(s) => s.as_str(),
            Recorded::Event(e) => e.as_str(),
        }
    }

    /// Sort key among records at the same time: the steps, then transition
    /// started / finished, state entered / exited, binding start / complete
    /// / cancel, notify (window ends, notifies, window begins, in delivery
    /// order), slot end, slot started, slot stopped.
    #[must_use]
    pub const fn order(&self) -> u8 {
        match self {
            Recorded::Step(s) => *s as u8,
            Recorded::Event(e) => match e {
                EventKind::TransitionStarted { .. } => 6,
                EventKind::TransitionFinished { .. } => 7,
                EventKind::StateEntered { .. } => 8,
                EventKind::StateExited { .. } => 9,
                EventKind::Binding { phase: BindingPhase::Start, .. } => 10,
                EventKind::Binding { phase: BindingPhase::Complete, .. } => 11,
                EventKind::Binding { phase: BindingPhase::Cancel, .. } => 12,
                EventKind::Notify { .. } | EventKind::NotifyBegin { .. } | EventKind::NotifyEnd { .. } => 13,
                EventKind::SlotEnded { interrupted: false, .. } => 14,
                EventKind::SlotStarted { .. } => 15,
                _ => 16,
            },
        }
    }

    /// Whether a preset step (rather than the animation) produced the record.
    #[must_use]
    pub const fn is_step(&self) -> bool {
        matches!(self, Recorded::Step(_))
    }
}

/// One event, in delivery order within its tick.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EventRecord {
    /// What happened.
    pub kind: Recorded,
    /// Who it concerns.
    pub name: NameId,
    /// Preview time it happened, seconds.
    pub time: f64,
}

/// One graph state contributing at the end of a tick.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StateRecord {
    /// Graph layer name ([`super::SLOT_LAYER_NAME`] for the override slot).
    pub layer: NameId,
    /// State name (the clip name for the override slot).
    pub state: NameId,
    /// Weight in its layer (`0..=1`), times the loadout-switch blend while one runs.
    pub weight: f32,
    /// Sample time of the state's (first, or only) clip, clip seconds.
    pub clip_time: f32,
}

/// What decided one input of the pose ([`ContributionRecord::part`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PartRecord {
    /// A graph layer's state (its clip or blend-tree child `child`).
    State {
        /// Graph layer index.
        layer_index: u16,
        /// Layer name.
        layer: NameId,
        /// State name.
        state: NameId,
        /// Child of the state's motion (0 for a clip state).
        child: u16,
    },
    /// The override slot (its layer is named [`super::SLOT_LAYER_NAME`]).
    Slot,
    /// The tag selector's layer: row `row` of the class's flattened table
    /// ([`u32::MAX`] = the default idle clip).
    Selector {
        /// Row index.
        row: u32,
    },
    /// The procedural fallback (breath, head bob): additive, no clip.
    Procedural,
}

/// One input of the pose composed at the end of a tick, as the character's
/// blender used it (`Character::contributions`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ContributionRecord {
    /// From the outgoing graph's stack of a loadout switch (blended by
    /// `1 − TickRecord::switch_alpha` over the current stack's pose).
    pub outgoing: bool,
    /// Its layer in its stack, bottom to top (inputs of one layer accumulate,
    /// layers compose over one another).
    pub stack_layer: u16,
    /// What decided it.
    pub part: PartRecord,
    /// Clip name (`None` for the procedural layer).
    pub clip: Option<NameId>,
    /// Final weight `0..=1`: layer × state × blend-tree child (× the
    /// selector layer's weight, × the slot's envelope), before the mask.
    pub weight: f32,
    /// Sample time, clip seconds.
    pub clip_time: f32,
    /// Additive (against the clip's first frame) rather than override.
    pub additive: bool,
    /// Bone mask id (`layer:<layer>` or `state:<state>`, weights in
    /// [`Capture::masks`]); `None` for every bone.
    pub mask: Option<NameId>,
}

/// One sound cue of a tick: what the character's sound bridge asked for and
/// what the audio player did with it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SoundRecord {
    /// Character time of the cue, seconds.
    pub time: f64,
    /// The sound event id requested.
    pub event: NameId,
    /// The player's answer (resolved entry and variant, or why nothing played).
    pub outcome: TriggerOutcome,
    /// The voice's own gain (the entry's volume × its jitter draw) when a
    /// voice started, else 0.
    pub gain: f32,
}

/// One IK goal of a tick (`zoa_anim_ik::IkGoal`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct IkRecord {
    /// The behaviour.
    pub behaviour: PolicyKind,
    /// The limb (`None` for look-at).
    pub side: Option<Side>,
    /// The joint aiming at the target.
    pub joint: NameId,
    /// Target, model space, metres.
    pub target: [f32; 3],
    /// Weight `0..=1`.
    pub weight: f32,
    /// Distance from the effector to the target after the frame, metres
    /// (look-at: from the target to the gaze ray).
    pub error: f32,
}

/// Names of one entry of the flattened sound table (what a [`SoundRecord`]'s entry index means).
#[derive(Debug, Clone, PartialEq)]
pub struct SoundEntryNames {
    /// The entry's event id.
    pub event: NameId,
    /// The profile that authored it.
    pub profile: NameId,
    /// Its bus.
    pub bus: NameId,
    /// Its variants' sound files (relative to the definition folder).
    pub variants: Vec<NameId>,
}

/// One clip the tag selector plays at the end of a tick.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RowRecord {
    /// Row index in the flattened animation profile ([`u32::MAX`] = default idle clip).
    pub row: u32,
    /// The row's tag pattern (empty for the default idle clip and untagged rows).
    pub pattern: StateTagSet,
    /// Clip name.
    pub clip: NameId,
    /// Blend weight `0..=1`.
    pub weight: f32,
    /// Sample time, clip seconds.
    pub clip_time: f32,
    /// How the current resolution was reached: `0` exact, `k` fallback step `k`,
    /// `-1` untagged default row or no match.
    pub fallback_step: i32,
}

/// One state of a sync group contributing to its layer at the end of a tick
/// (the group syncs when two or more do: [`SyncRecord::leader`] tells who leads).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SyncRecord {
    /// Index into [`Capture::ticks`].
    pub tick: u32,
    /// The group.
    pub group: NameId,
    /// The state.
    pub state: NameId,
    /// Whether it leads the group.
    pub leader: bool,
    /// The clip whose markers it follows by (a blend tree's heaviest child).
    pub clip: NameId,
    /// That clip's time, clip seconds.
    pub clip_time: f32,
    /// The state's normalized phase, `0..=1`.
    pub phase: f32,
}

/// One sync marker of a clip of the character (for drawing marker crossings).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MarkerRecord {
    /// The clip.
    pub clip: NameId,
    /// The marker name.
    pub name: NameId,
    /// Clip seconds.
    pub time: f32,
}

/// One recorded tick (the first is the state at time 0 after the leading steps).
#[derive(Debug, Clone, PartialEq)]
pub struct TickRecord {
    /// Preview time at the end of the tick, seconds.
    pub time: f64,
    /// Index of the step being played (`steps.len()` once the preset ended).
    pub step: u32,
    /// Range into [`Capture::states`].
    pub states: Range<usize>,
    /// Range into [`Capture::rows`].
    pub rows: Range<usize>,
    /// Range into [`Capture::events`].
    pub events: Range<usize>,
    /// Root motion over the tick: translation `x, y, z` (metres, model space)
    /// and yaw (radians about +Y).
    pub root_motion: [f32; 4],
    /// Range into [`Capture::contributions`].
    pub contributions: Range<usize>,
    /// Range into [`Capture::sounds`].
    pub sounds: Range<usize>,
    /// Range into [`Capture::ik`].
    pub ik: Range<usize>,
    /// The tags in effect in the selector (`None` without a tag table).
    pub applied_tags: Option<StateTagSet>,
    /// Loadout switch progress `0..=1` (1 when none blends).
    pub switch_alpha: f32,
    /// An inertialized transition was decaying: the pose is the
    /// contributions' plus a decaying offset.
    pub inertializing: bool,
}

/// Everything one preview run recorded.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Capture {
    /// Preset id.
    pub preset: String,
    /// Preset display name.
    pub preset_name: String,
    /// Tick rate, Hz.
    pub rate: f32,
    /// Interned strings.
    pub names: Vec<String>,
    /// Binding columns: the bindings the preset sets or fires, in first-use order.
    pub binding_columns: Vec<NameId>,
    /// Joint names, in skeleton order.
    pub joint_names: Vec<NameId>,
    /// Parent joint per joint (`None` for roots).
    pub joint_parents: Vec<Option<u16>>,
    /// Ticks in time order.
    pub ticks: Vec<TickRecord>,
    /// Graph states of every tick.
    pub states: Vec<StateRecord>,
    /// Selector clips of every tick.
    pub rows: Vec<RowRecord>,
    /// Events of every tick.
    pub events: Vec<EventRecord>,
    /// Pose inputs of every tick.
    pub contributions: Vec<ContributionRecord>,
    /// Sound cues of every tick.
    pub sounds: Vec<SoundRecord>,
    /// IK goals of every tick.
    pub ik: Vec<IkRecord>,
    /// Every bone mask a contribution can name, with its weight per joint
    /// (skeleton order), in first-seen order of the graphs.
    pub masks: Vec<(NameId, Vec<f32>)>,
    /// The sound profile played (`None`: no sound profile, or it could not be loaded).
    pub sound_profile: Option<NameId>,
    /// Why no sound was played when the folder has a sound profile.
    pub sound_problem: Option<String>,
    /// The flattened sound table's entries (a [`SoundRecord`]'s entry indexes it).
    pub sound_entries: Vec<SoundEntryNames>,
    /// Flat ground height under the character (foot planting), metres; `None`: no ground.
    pub ground: Option<f32>,
    /// `ticks × binding_columns` values (bool 0/1, int as float, trigger 1 while
    /// set); NaN when the active binding profile lacks the binding.
    pub binding_values: Vec<f32>,
    /// `ticks × joints` model-space joint positions, metres.
    pub joint_positions: Vec<[f32; 3]>,
    /// Sync group members of every tick, in tick order ([`Capture::tick_sync`]).
    pub sync: Vec<SyncRecord>,
    /// Every sync marker of every clip of the character.
    pub clip_markers: Vec<MarkerRecord>,
    /// `ticks × joints` local joint transforms (translation `x, y, z`,
    /// rotation quaternion `x, y, z, w`, scale `x, y, z`), recorded only when
    /// [`super::PreviewSetup::record_local`] is set (else empty).
    pub joint_locals: Vec<[f32; 10]>,
}

impl Capture {
    /// The interned string `id`.
    #[must_use]
    pub fn name(&self, id: NameId) -> &str {
        &self.names[id.0 as usize]
    }
    /// Number of joints per recorded pose.
    #[must_use]
    pub fn joint_count(&self) -> usize {
        self.joint_parents.len()
    }
    /// Graph states of tick `i`.
    #[must_use]
    pub fn tick_states(&self, i: usize) -> &[StateRecord] {
        &self.states[self.ticks[i].states.clone()]
    }
    /// Selector clips of tick `i`.
    #[must_use]
    pub fn tick_rows(&self, i: usize) -> &[RowRecord] {
        &self.rows[self.ticks[i].rows.clone()]
    }
    /// Events of tick `i`.
    #[must_use]
    pub fn tick_events(&self, i: usize) -> &[EventRecord] {
        &self.events[self.ticks[i].events.clone()]
    }
    /// Pose inputs of tick `i`.
    #[must_use]
    pub fn tick_contributions(&self, i: usize) -> &[ContributionRecord] {
        &self.contributions[self.ticks[i].contributions.clone()]
    }
    /// Sound cues of tick `i`.
    #[must_use]
    pub fn tick_sounds(&self, i: usize) -> &[SoundRecord] {
        &self.sounds[self.ticks[i].sounds.clone()]
    }
    /// IK goals of tick `i`.
    #[must_use]
    pub fn tick_ik(&self, i: usize) -> &[IkRecord] {
        &self.ik[self.ticks[i].ik.clone()]
    }
    /// The entry and variant a cue played: (entry names, variant file), when it resolved.
    #[must_use]
    pub fn sound_entry(&self, cue: &SoundRecord) -> Option<(&SoundEntryNames, Option<NameId>)> {
        let names = self.sound_entries.get(cue.outcome.entry()?)?;
        Some((names, cue.outcome.variant().and_then(|v| names.variants.get(v).copied())))
    }
    /// Sync group members of tick `i`.
    #[must_use]
    pub fn tick_sync(&self, i: usize) -> &[SyncRecord] {
        let start = self.sync.partition_point(|r| (r.tick as usize) < i);
        let end = self.sync.partition_point(|r| (r.tick as usize) <= i);
        &self.sync[start..end]
    }
    /// Binding values of tick `i`, one per [`Capture::binding_columns`].
    #[must_use]
    pub fn tick_bindings(&self, i: usize) -> &[f32] {
        let n = self.binding_columns.len();
        &self.binding_values[i * n..(i + 1) * n]
    }
    /// Model-space joint positions of tick `i`.
    #[must_use]
    pub fn tick_joints(&self, i: usize) -> &[[f32; 3]] {
        let n = self.joint_count();
        &self.joint_positions[i * n..(i + 1) * n]
    }
    /// Local joint transforms of tick `i` (empty unless recorded).
    #[must_use]
    pub fn tick_locals(&self, i: usize) -> &[[f32; 10]] {
        let n = self.joint_count();
        self.joint_locals.get(i * n..(i + 1) * n).unwrap_or(&[])
    }
    /// Every distinct `(layer, state)` pair that ever contributed, in first-seen order.
    #[must_use]
    pub fn state_series(&self) -> Vec<(NameId, NameId)> {
        let mut out: Vec<(NameId, NameId)> = Vec::new();
        for s in &self.states {
            if !out.contains(&(s.layer, s.state)) {
                out.push((s.layer, s.state));
            }
        }
        out
    }
    /// Interns `s`, returning its id.
    pub(crate) fn intern(&mut self, s: &str) -> NameId {
        match self.names.iter().position(|n| n == s) {
            Some(i) => NameId(i as u32),
            None => {
                self.names.push(s.to_owned());
                NameId((self.names.len() - 1) as u32)
            }
        }
    }
}

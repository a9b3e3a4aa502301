//! The capture data model: what a preview run recorded, tick by tick.
//!
//! Flat, structure-of-arrays storage so recording a tick only pushes plain
//! values onto vectors reserved for the whole preset: per tick a
//! [`TickRecord`] holds ranges into [`Capture::states`], [`Capture::rows`] and
//! [`Capture::events`]; binding values and joint positions are dense
//! `ticks × columns` / `ticks × joints` arrays. Every string is interned once
//! in [`Capture::names`] and referenced by index, so a tick records no string.

use std::ops::Range;

use zoa_anim_runtime::character::{BindingPhase, EventKind};

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

/// One clip the tag selector plays at the end of a tick.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RowRecord {
    /// Row index in the flattened animation profile ([`u32::MAX`] = default idle clip).
    pub row: u32,
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

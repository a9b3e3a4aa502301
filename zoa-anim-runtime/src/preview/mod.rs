//! The preview simulator (seed 000 "Preview Lab"): plays a scripted
//! [`PreviewPreset`] through a driver and a tag selector on a skeleton, ticks
//! at a fixed rate, and records a [`Capture`] of every tick.
//!
//! # Terminology
//! - **Step**: one preset instruction. `set`, `fire`, `play_slot` and
//!   `set_tags` are instantaneous; `wait` lets time pass.
//! - **Tick**: one call of [`PreviewSimulator::tick`] (normally `1 / rate`
//!   seconds); it records one [`TickRecord`]. A wait that ends inside a tick
//!   splits it: the animation advances to the wait's end, the following
//!   instantaneous steps apply at that exact time, and the rest of the tick
//!   follows. Row 0 is the state at time 0 after the leading steps.
//!
//! ```text
//!  steps ─► ProfileSetSwitcher (graph + GraphDriver) ─► FrameOutput ─► PoseStage ─► model-space joints
//!     │                                                      └─────► RootMotionJob ─► root motion
//!     └──► TagSelector (state tags) ─► resolved clip rows
//! ```
//!
//! # Key decisions
//! - **Who drives the pose.** The player profile set's graph (through
//!   [`ProfileSetSwitcher`] and its [`crate::driver::GraphDriver`]) produces
//!   the pose, the root motion and the events; the [`TagSelector`] runs
//!   alongside on the class's animation profile and reports which clip rows
//!   the active tags resolve to (with their fade weights), so both halves of
//!   seed 000 are visible without one clip playing twice.
//! - **Loadout from tags.** A `set_tags` step whose combat dimension names a
//!   weapon (`armed_rifle`, …, or `unarmed`) equips that class in the profile
//!   set (binding profile and graph switch, cross-fading); tags without a
//!   combat tag keep the class. Leading tags (before any wait and any
//!   driver step) choose the starting class without a cross-fade.
//! - **Selector input.** The selector's `OnInputThreshold` input follows the
//!   first float binding the preset sets (normally `speed`), so threshold-timed
//!   dimensions can switch; the preset's leading `tags` (before any wait) are
//!   the selector's starting state, entered with a cut.
//! - **Root motion** comes from the runtime's [`RootMotionJob`] on the
//!   skeleton's first root joint (the hips of a Mixamo rig), summed over the
//!   sub-steps of a tick.
//! - **Determinism.** Everything runs on one thread in a fixed order with no
//!   hashing of floats or time sources, so the same preset and set-up give the
//!   same capture bit for bit.
//! - **No allocation per tick** after [`PreviewSim::try_play`]: the capture's
//!   vectors are reserved for the whole preset (`duration × rate` ticks) and
//!   every string is interned beforehand. Steps (which may load a binding
//!   profile or switch graphs) may allocate.

mod capture;
mod pose_stage;

use std::collections::HashMap;
use std::sync::Arc;

pub use capture::{Capture, CaptureEventKind, EventRecord, NameId, RowRecord, StateRecord, TickRecord};
use zoa_anim_core::bindings::AnimationBindingProfile;
use zoa_anim_core::contracts::{AnimationDriver, DriverProblem, PreviewSimulator, SharedBindingProfile};
use zoa_anim_core::graph::{AnimationGraph, ParameterIndex};
use zoa_anim_core::preview::{BindingValue, PreviewPreset, PreviewStep};
use zoa_anim_core::{
    AnimationBindingId, AnimationProfile, AnimationSlotId, BindingProfile, CombatTag, PlayerProfileSet,
    PlayerProfileType, RigPolicy, Skeleton, StateGraph, StateTagSet,
};

use self::pose_stage::PoseStage;
use crate::animation::Animation;
use crate::driver::GraphDriver;
use crate::error::RuntimeError;
use crate::events::EventKind;
use crate::graph::{
    ClipInfo, ClipTable, ContributionSource, FrameOutput, GraphDefinition, GraphInstance, GraphMasks, ParamValue,
    RootMotionContext, RootMotionJob, SLOT_LAYER,
};
use crate::loadout::ProfileSetSwitcher;
use crate::pose::RuntimeSkeleton;
use crate::selector::TagSelector;

/// Layer name under which the override slot's clips are recorded (state = clip name).
pub const SLOT_LAYER_NAME: &str = "slot";

/// Default tick rate, Hz.
pub const DEFAULT_RATE: f32 = 30.0;

/// Default loadout-switch cross-fade, seconds.
pub const DEFAULT_LOADOUT_CROSSFADE: f32 = 0.25;

/// Most ticks one preset may record (the capture is reserved up front).
pub const MAX_TICKS: usize = 200_000;

/// Waits shorter than this (seconds) count as over, so float round-off in
/// `n × (1 / rate)` never leaves a sliver of a tick.
const WAIT_EPSILON: f64 = 1e-6;

/// Everything a preview needs, as core types (the CLI builds it from a
/// definition folder and a glTF file).
#[derive(Debug, Clone)]
pub struct PreviewSetup {
    /// The model's skeleton.
    pub skeleton: Skeleton,
    /// Playable clips; index = [`crate::graph::ClipId`].
    pub clips: Vec<ClipInfo>,
    /// One animation per clip, same order, bound to `skeleton`.
    pub animations: Vec<Arc<Animation>>,
    /// Loadout classes: binding profile, animation profile and graph per class.
    pub player_set: PlayerProfileSet,
    /// Animation graphs by id (every graph the set names).
    pub graphs: Vec<(String, AnimationGraph)>,
    /// Binding profiles (every profile the set names).
    pub binding_profiles: Vec<BindingProfile>,
    /// Animation profiles (the set's and their ancestors).
    pub animation_profiles: Vec<AnimationProfile>,
    /// Per-dimension selector timing.
    pub state_graph: StateGraph,
    /// Procedural-fallback policy.
    pub rig_policy: RigPolicy,
    /// Tick rate, Hz (`> 0`, at most 1000; default [`DEFAULT_RATE`]).
    pub rate: f32,
    /// Loadout-switch cross-fade, seconds (`>= 0`; default [`DEFAULT_LOADOUT_CROSSFADE`]).
    pub loadout_crossfade: f32,
}

/// Interned names of one graph's layers and states.
#[derive(Debug, Clone)]
struct GraphNames {
    layers: Vec<NameId>,
    states: Vec<NameId>,
}

/// Per-tick accumulation while sub-steps run.
#[derive(Debug, Clone, Copy, Default)]
struct Pending {
    events_start: usize,
    root: [f32; 4],
}

/// The preview simulator: the core's [`PreviewSimulator`] contract over a
/// profile-set switcher, a tag selector and a pose stage.
pub struct PreviewSim {
    setup: PreviewSetup,
    clip_table: Arc<ClipTable>,
    graph_ids: Vec<String>,
    graph_defs: Vec<Arc<GraphDefinition>>,
    graph_masks: Vec<GraphMasks>,
    graph_names: Vec<GraphNames>,
    clip_names: Vec<NameId>,
    slot_layer_name: NameId,
    notify_names: Vec<Vec<NameId>>,
    bindings: HashMap<String, SharedBindingProfile>,
    template: Capture,
    capture: Capture,
    poser: PoseStage,
    root_motion: RootMotionContext,
    switcher: Option<ProfileSetSwitcher>,
    selector: Option<TagSelector>,
    selector_profile: Option<String>,
    frame: FrameOutput,
    selector_frame: FrameOutput,
    preset: Option<PreviewPreset>,
    columns: Vec<(AnimationBindingId, NameId)>,
    column_params: Vec<Option<ParameterIndex>>,
    slot_names: Vec<(AnimationSlotId, NameId)>,
    step_names: Vec<NameId>,
    input_binding: Option<AnimationBindingId>,
    driver_touched: bool,
    current_graph: usize,
    tags: StateTagSet,
    step: usize,
    wait_left: f64,
    time: f64,
    playing: bool,
    paused: bool,
    pending: Pending,
}

impl std::fmt::Debug for PreviewSim {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PreviewSim")
            .field("preset", &self.preset.as_ref().map(|p| p.id.as_str()))
            .field("step", &self.step)
            .field("time", &self.time)
            .field("playing", &self.playing)
            .field("paused", &self.paused)
            .field("ticks", &self.capture.ticks.len())
            .finish_non_exhaustive()
    }
}

fn class_of(tags: StateTagSet) -> Option<PlayerProfileType> {
    let c = tags.combat();
    [
        (CombatTag::ARMED_RIFLE, PlayerProfileType::Rifle),
        (CombatTag::ARMED_PISTOL, PlayerProfileType::Pistol),
        (CombatTag::ARMED_SHOTGUN, PlayerProfileType::Shotgun),
        (CombatTag::ARMED_MELEE, PlayerProfileType::Melee),
        (CombatTag::ARMED_HEAVY, PlayerProfileType::Heavy),
        (CombatTag::UNARMED, PlayerProfileType::Unarmed),
    ]
    .into_iter()
    .find(|(tag, _)| c.contains(*tag))
    .map(|(_, class)| class)
}

impl PreviewSim {
    /// Compiles the set-up; every problem found is reported at once.
    pub fn new(setup: PreviewSetup) -> Result<PreviewSim, RuntimeError> {
        let mut reasons = Vec::new();
        if !(setup.rate.is_finite() && setup.rate > 0.0 && setup.rate <= 1000.0) {
            reasons.push(format!("rate {} Hz must be in (0, 1000]", setup.rate));
        }
        if !(setup.loadout_crossfade.is_finite() && setup.loadout_crossfade >= 0.0) {
            reasons.push(format!("loadout cross-fade {} s must be finite and >= 0", setup.loadout_crossfade));
        }
        if setup.animations.len() != setup.clips.len() {
            reasons.push(format!("{} clips but {} animations", setup.clips.len(), setup.animations.len()));
        }
        if setup.skeleton.joint_count() > usize::from(u16::MAX) {
            reasons.push("the skeleton has more than 65535 joints".to_owned());
        }
        RuntimeError::check("preview set-up", reasons)?;
        let clip_table = Arc::new(ClipTable::new(setup.clips.clone())?);
        let skeleton = RuntimeSkeleton::new(setup.skeleton.clone());
        let mut graph_ids = Vec::new();
        let mut graph_defs = Vec::new();
        let mut graph_masks = Vec::new();
        for (id, g) in &setup.graphs {
            let def = Arc::new(GraphDefinition::new(g.clone(), Arc::clone(&clip_table))?);
            graph_masks.push(GraphMasks::new(&def, &skeleton)?);
            graph_ids.push(id.clone());
            graph_defs.push(def);
        }
        let bindings: HashMap<String, SharedBindingProfile> = setup
            .binding_profiles
            .iter()
            .map(|b| (b.profile_id().to_owned(), Arc::new(b.clone()) as SharedBindingProfile))
            .collect();
        let root = (0..setup.skeleton.joint_count()).find(|&j| setup.skeleton.parent(j).is_none()).unwrap_or(0);
        let poser = PoseStage::new(skeleton, &setup.animations)?;
        let root_motion = RootMotionContext::new(poser.rest(), &setup.animations, root)?;

        let mut template = Capture { rate: setup.rate, ..Capture::default() };
        let graph_names = graph_defs
            .iter()
            .map(|d| GraphNames {
                layers: d.graph().layers.iter().map(|l| template.intern(&l.name)).collect(),
                states: d.graph().states.iter().map(|s| template.intern(&s.name)).collect(),
            })
            .collect();
        let slot_layer_name = template.intern(SLOT_LAYER_NAME);
        let clip_names = clip_table.clips().iter().map(|c| template.intern(&c.name)).collect();
        let notify_names =
            clip_table.clips().iter().map(|c| c.notifies.iter().map(|n| template.intern(&n.name)).collect()).collect();
        let sk = poser.skeleton().skeleton();
        template.joint_names = (0..sk.joint_count())
            .map(|j| {
                let name = sk.joints()[j].name.clone().unwrap_or_else(|| format!("node{}", sk.joints()[j].node));
                template.intern(&name)
            })
            .collect();
        template.joint_parents = (0..sk.joint_count()).map(|j| sk.parent(j).map(|p| p as u16)).collect();

        let mut sim = PreviewSim {
            clip_table,
            graph_ids,
            graph_defs,
            graph_masks,
            graph_names,
            clip_names,
            slot_layer_name,
            notify_names,
            bindings,
            capture: template.clone(),
            template,
            poser,
            root_motion,
            switcher: None,
            selector: None,
            selector_profile: None,
            frame: FrameOutput::default(),
            selector_frame: FrameOutput::default(),
            preset: None,
            columns: Vec::new(),
            column_params: Vec::new(),
            slot_names: Vec::new(),
            step_names: Vec::new(),
            input_binding: None,
            driver_touched: false,
            current_graph: 0,
            tags: StateTagSet::EMPTY,
            step: 0,
            wait_left: 0.0,
            time: 0.0,
            playing: false,
            paused: false,
            pending: Pending::default(),
            setup,
        };
        sim.reset_characters(None)?;
        Ok(sim)
    }

    /// The tick rate, Hz.
    pub fn rate(&self) -> f32 {
        self.setup.rate
    }

    /// Every binding problem of every class of the player set: for each class
    /// entry, its binding profile checked against its graph (or the default
    /// class's graph) with [`AnimationDriver::validate_profile`]. A binding
    /// with a problem is inert in the preview (the driver's documented no-op).
    pub fn binding_problems(&self) -> Vec<(PlayerProfileType, DriverProblem)> {
        let set = &self.setup.player_set;
        let default_graph = set.resolve_profile(set.default_profile).and_then(|e| e.animation_graph.clone());
        let mut out = Vec::new();
        for entry in &set.profiles {
            let graph = entry.animation_graph.clone().or_else(|| default_graph.clone());
            let Some(def) = graph.and_then(|g| self.graph_ids.iter().position(|id| *id == g)) else { continue };
            let Some(profile) = self.bindings.get(&entry.binding_profile) else { continue };
            let mut driver = GraphDriver::new(GraphInstance::new(Arc::clone(&self.graph_defs[def])));
            driver.load_profile(Arc::clone(profile));
            if let Err(problems) = driver.validate_profile() {
                out.extend(problems.into_iter().map(|p| (entry.class, p)));
            }
        }
        out
    }

    /// The binding the selector's `OnInputThreshold` input follows: the
    /// first float binding the preset sets (`None` before [`PreviewSim::try_play`]).
    pub fn input_binding(&self) -> Option<AnimationBindingId> {
        self.input_binding
    }

    /// What was recorded since the last [`PreviewSimulator::play`].
    pub fn capture(&self) -> &Capture {
        &self.capture
    }

    /// Preview time, seconds.
    pub fn time(&self) -> f64 {
        self.time
    }

    /// Model-space joint matrices of the last recorded tick.
    pub fn model_matrices(&self) -> &[zoa_anim_core::glam::Mat4] {
        self.poser.model()
    }

    /// Plays `preset` from its first step to its end at the set-up's rate and
    /// returns the capture (one tick at time 0, then one per `1 / rate`).
    pub fn run(&mut self, preset: &PreviewPreset) -> Result<&Capture, RuntimeError> {
        self.try_play(preset)?;
        let dt = 1.0 / self.setup.rate;
        while self.playing {
            self.try_tick(dt)?;
        }
        Ok(&self.capture)
    }

    /// Fresh switcher and selector on the set's default class.
    /// Fresh switcher (on `class`, else the set's default class) and selector (at the current tags).
    fn reset_characters(&mut self, class: Option<PlayerProfileType>) -> Result<(), RuntimeError> {
        let graphs = self.graph_ids.iter().cloned().zip(self.graph_defs.iter().cloned()).collect();
        let mut set = self.setup.player_set.clone();
        if let Some(c) = class {
            set.default_profile = c;
        }
        let switcher = ProfileSetSwitcher::new(set, graphs, self.bindings.clone(), self.setup.loadout_crossfade)?;
        self.frame = switcher.new_output();
        self.current_graph = self.graph_ids.iter().position(|g| g == switcher.graph_id()).unwrap_or(0);
        let profile = self.setup.player_set.resolve_profile(switcher.class()).and_then(|e| e.animation_profile.clone());
        self.switcher = Some(switcher);
        self.build_selector(profile)?;
        self.root_motion = RootMotionContext::new(self.poser.rest(), &self.setup.animations, self.root_motion.root())?;
        Ok(())
    }

    fn build_selector(&mut self, profile: Option<String>) -> Result<(), RuntimeError> {
        let profiles = &self.setup.animation_profiles;
        self.selector = match profile.as_deref().and_then(|id| profiles.iter().find(|p| p.id == id)) {
            Some(p) => Some(TagSelector::from_profile(
                p,
                |id| profiles.iter().find(|q| q.id == id),
                Arc::clone(&self.clip_table),
                self.setup.state_graph.clone(),
                self.setup.rig_policy.clone(),
                self.tags,
            )?),
            None => None,
        };
        self.selector_frame = self.selector.as_ref().map(TagSelector::new_output).unwrap_or_default();
        self.selector_profile = profile;
        Ok(())
    }

    /// [`PreviewSimulator::play`] with errors reported.
    /// Errors: a wait that is negative or not finite, a preset longer than
    /// [`MAX_TICKS`] ticks at the set-up's rate, or an evaluation failure.
    pub fn try_play(&mut self, preset: &PreviewPreset) -> Result<(), RuntimeError> {
        // The preset's own rules (waits, step/time/binding budgets) live in core.
        let mut reasons = preset.problems();
        let duration = preset.total_seconds();
        let ticks = duration * f64::from(self.setup.rate);
        if ticks.is_nan() || ticks > MAX_TICKS as f64 {
            reasons.push(format!(
                "{duration} s at {} Hz is more than {MAX_TICKS} ticks (lower --rate or shorten the waits)",
                self.setup.rate
            ));
        }
        RuntimeError::check("preview preset", reasons)?;
        self.tags = StateTagSet::EMPTY;
        self.driver_touched = false;
        self.reset_characters(None)?;
        let mut capture = self.template.clone();
        capture.preset = preset.id.clone();
        capture.preset_name = preset.name.clone();
        self.columns.clear();
        self.slot_names.clear();
        self.step_names.clear();
        for step in &preset.steps {
            let name = match step {
                PreviewStep::Set { binding, .. } | PreviewStep::Fire { binding } => {
                    let id = capture.intern(binding.as_str());
                    if !self.columns.iter().any(|(b, _)| b == binding) {
                        self.columns.push((*binding, id));
                    }
                    id
                }
                PreviewStep::PlaySlot { slot } => {
                    let id = capture.intern(slot.as_str());
                    self.slot_names.push((*slot, id));
                    id
                }
                PreviewStep::SetTags { tags } => capture.intern(&tags.to_string()),
                PreviewStep::Wait { .. } => NameId(0),
            };
            self.step_names.push(name);
        }
        self.input_binding = preset.steps.iter().find_map(|s| match s {
            PreviewStep::Set { binding, value: BindingValue::Float(_) } => Some(*binding),
            _ => None,
        });
        for class in PlayerProfileType::ALL {
            capture.intern(class.name());
        }
        capture.binding_columns = self.columns.iter().map(|(_, n)| *n).collect();
        // Reserve for the whole preset so ticks do not allocate.
        let ticks = (duration.max(0.0) * f64::from(self.setup.rate)).ceil() as usize + preset.steps.len() + 2;
        let joints = capture.joint_count();
        capture.ticks.reserve(ticks);
        capture.states.reserve(ticks * 8);
        capture.rows.reserve(ticks * 4);
        capture.events.reserve(ticks * 8 + preset.steps.len());
        capture.binding_values.reserve(ticks * self.columns.len());
        capture.joint_positions.reserve(ticks * joints);
        self.capture = capture;
        self.preset = Some(preset.clone());
        self.refresh_columns();
        self.step = 0;
        self.wait_left = 0.0;
        self.time = 0.0;
        self.playing = true;
        self.paused = false;
        self.pending = Pending::default();
        self.run_instant_steps()?;
        if self.preset.as_ref().is_none_or(|p| self.step >= p.steps.len()) {
            self.playing = false;
        }
        self.advance(0.0)?;
        self.record()
    }

    /// [`PreviewSimulator::tick`] with errors reported.
    pub fn try_tick(&mut self, delta_seconds: f32) -> Result<(), RuntimeError> {
        if !self.playing || self.paused {
            return Ok(());
        }
        let mut left = if delta_seconds.is_finite() { f64::from(delta_seconds.max(0.0)) } else { 0.0 };
        self.pending = Pending { events_start: self.capture.events.len(), root: [0.0; 4] };
        // Advance to the end of the tick or of the current wait, whichever comes first;
        // at a wait's end run the next instantaneous steps. Time never passes the preset's end.
        while self.preset.as_ref().is_some_and(|p| self.step < p.steps.len()) {
            let dt = left.min(self.wait_left);
            if dt > 0.0 {
                self.advance(dt as f32)?;
                left -= dt;
                self.wait_left -= dt;
            }
            if self.wait_left > WAIT_EPSILON {
                break;
            }
            self.wait_left = 0.0;
            self.step += 1;
            self.run_instant_steps()?;
        }
        let finished = self.preset.as_ref().is_none_or(|p| self.step >= p.steps.len());
        if finished {
            self.playing = false;
        }
        self.record()
    }

    /// Applies the steps from `self.step` up to the next wait (which it starts).
    fn run_instant_steps(&mut self) -> Result<(), RuntimeError> {
        let Some(preset) = self.preset.take() else { return Ok(()) };
        let result = self.run_instant_steps_of(&preset);
        self.preset = Some(preset);
        result
    }

    fn run_instant_steps_of(&mut self, preset: &PreviewPreset) -> Result<(), RuntimeError> {
        while let Some(step) = preset.steps.get(self.step) {
            let name = self.step_names[self.step];
            let Some(switcher) = self.switcher.as_mut() else { return Ok(()) };
            let driver = switcher.driver_mut();
            let kind = match step {
                PreviewStep::Wait { seconds } => {
                    self.wait_left = f64::from(seconds.max(0.0));
                    if self.wait_left > WAIT_EPSILON {
                        return Ok(());
                    }
                    self.step += 1;
                    continue;
                }
                PreviewStep::Set { binding, value } => {
                    self.driver_touched = true;
                    match *value {
                        BindingValue::Bool(v) => driver.set_bool(*binding, v),
                        BindingValue::Float(v) => {
                            driver.set_float(*binding, v);
                            if self.input_binding == Some(*binding)
                                && let Some(s) = self.selector.as_mut()
                            {
                                s.set_input(v);
                            }
                        }
                        BindingValue::Int(v) => driver.set_int(*binding, v),
                    }
                    CaptureEventKind::Set
                }
                PreviewStep::Fire { binding } => {
                    self.driver_touched = true;
                    driver.fire_trigger(*binding);
                    CaptureEventKind::Trigger
                }
                PreviewStep::PlaySlot { slot } => {
                    self.driver_touched = true;
                    if driver.play_slot(*slot) { CaptureEventKind::Slot } else { CaptureEventKind::SlotUnresolved }
                }
                PreviewStep::SetTags { tags } => {
                    self.tags = *tags;
                    let leading = self.capture.ticks.is_empty();
                    let class = class_of(*tags).filter(|c| *c != switcher.class());
                    if let Some(class) = class
                        && leading
                        && !self.driver_touched
                    {
                        // Leading tags name the starting loadout: start on it, no cross-fade.
                        self.reset_characters(Some(class))?;
                        let used = self.switcher.as_ref().map_or(class, ProfileSetSwitcher::class);
                        let equip_name = self.capture.intern(used.name());
                        self.capture.events.push(EventRecord {
                            kind: CaptureEventKind::Equip,
                            name: equip_name,
                            time: self.time,
                        });
                        self.refresh_columns();
                    } else if let Some(class) = class {
                        let change = switcher.equip(class);
                        self.current_graph = self.graph_ids.iter().position(|g| g == switcher.graph_id()).unwrap_or(0);
                        self.frame = switcher.new_output();
                        let equip_name = self.capture.intern(change.class.name());
                        self.capture.events.push(EventRecord {
                            kind: CaptureEventKind::Equip,
                            name: equip_name,
                            time: self.time,
                        });
                        if change.animation_profile.is_some() && change.animation_profile != self.selector_profile {
                            self.build_selector(change.animation_profile)?;
                        }
                        self.refresh_columns();
                    }
                    if self.capture.ticks.is_empty() {
                        // Leading tags are the entity's starting state: the selector starts there with a cut.
                        self.build_selector(self.selector_profile.clone())?;
                    } else if let Some(s) = self.selector.as_mut() {
                        s.set_tags(*tags);
                    }
                    CaptureEventKind::Tags
                }
            };
            self.capture.events.push(EventRecord { kind, name, time: self.time });
            self.step += 1;
        }
        Ok(())
    }

    /// Re-maps the binding columns to the parameters of the active profile and graph.
    fn refresh_columns(&mut self) {
        self.column_params.clear();
        let Some(switcher) = self.switcher.as_ref() else { return };
        let driver = switcher.driver();
        for (binding, _) in &self.columns {
            let param = driver
                .active_profile()
                .and_then(|p| p.bindings().iter().find(|b| b.id == *binding).map(|b| b.parameter_name.clone()))
                .and_then(|name| driver.instance().parameter(&name));
            self.column_params.push(param);
        }
    }

    /// Advances the characters by `dt` seconds (0 = evaluate without time passing).
    fn advance(&mut self, dt: f32) -> Result<(), RuntimeError> {
        let Some(switcher) = self.switcher.as_mut() else { return Ok(()) };
        switcher.update(dt, &mut self.frame);
        if let Some(s) = self.selector.as_mut() {
            s.update(dt, &mut self.selector_frame);
        }
        let rm = RootMotionJob {
            animations: &self.setup.animations,
            frame: &self.frame,
            rest: self.poser.rest(),
            context: &mut self.root_motion,
        }
        .run()?;
        for (acc, v) in self.pending.root.iter_mut().zip(rm.to_array()) {
            *acc += v;
        }
        self.time += f64::from(dt);
        // Events of the graph now playing (the outgoing one's are discarded by the switcher).
        let names = &self.graph_names[self.current_graph];
        let instance = self.switcher.as_mut().map(|s| s.driver_mut().instance_mut());
        if let Some(instance) = instance {
            let first = self.capture.events.len();
            for e in instance.events() {
                let state = |s: zoa_anim_core::graph::StateIndex| names.states.get(s.index()).copied();
                let (kind, name) = match e.kind {
                    EventKind::TransitionStarted { to, .. } => (CaptureEventKind::TransitionStarted, state(to)),
                    EventKind::TransitionFinished { to, .. } => (CaptureEventKind::TransitionFinished, state(to)),
                    EventKind::StateEntered { state: s, .. } => (CaptureEventKind::StateEntered, state(s)),
                    EventKind::StateExited { state: s, .. } => (CaptureEventKind::StateExited, state(s)),
                    EventKind::Notify { clip, notify, .. } => (
                        CaptureEventKind::Notify,
                        self.notify_names.get(clip.index()).and_then(|n| n.get(usize::from(notify))).copied(),
                    ),
                    EventKind::SlotProgress { slot, normalized } if normalized >= 1.0 => {
                        (CaptureEventKind::SlotEnd, self.slot_names.iter().find(|(s, _)| *s == slot).map(|(_, n)| *n))
                    }
                    EventKind::SlotProgress { .. } => continue,
                };
                if let Some(name) = name {
                    self.capture.events.push(EventRecord { kind, name, time: e.time });
                }
            }
            instance.clear_events();
            // Delivery order: time, then kind, then name (a total order, so the sort is deterministic).
            self.capture.events[first..].sort_unstable_by(|a, b| {
                a.time.total_cmp(&b.time).then((a.kind as u8).cmp(&(b.kind as u8))).then(a.name.cmp(&b.name))
            });
        }
        if let Some(s) = self.selector.as_mut() {
            s.deliver_events(&mut Discard);
        }
        Ok(())
    }

    /// Appends a tick record for the state now.
    fn record(&mut self) -> Result<(), RuntimeError> {
        let Some(switcher) = self.switcher.as_ref() else { return Ok(()) };
        let cap = &mut self.capture;
        // Steps are recorded in preset order; each advance's animation events are time-sorted.
        let events_start = self.pending.events_start.min(cap.events.len());
        let events = events_start..cap.events.len();

        let states_start = cap.states.len();
        let instance = switcher.driver().instance();
        let alpha = switcher.switch_alpha();
        let names = &self.graph_names[self.current_graph];
        for layer in 0..instance.layer_count() {
            for view in instance.active_states(layer) {
                let clip_time = self
                    .frame
                    .find_layer(layer as u16)
                    .and_then(|(_, cs)| {
                        cs.iter().find(
                            |c| matches!(c.source, ContributionSource::State { state, .. } if state == view.state),
                        )
                    })
                    .map_or(0.0, |c| c.time);
                cap.states.push(StateRecord {
                    layer: names.layers[layer],
                    state: names.states[view.state.index()],
                    weight: view.weight * alpha,
                    clip_time,
                });
            }
        }
        // The override slot, as a layer of its own (its contributions carry the envelope weight).
        if let Some((_, cs)) = self.frame.find_layer(SLOT_LAYER) {
            for c in cs {
                cap.states.push(StateRecord {
                    layer: self.slot_layer_name,
                    state: self.clip_names[c.clip.index()],
                    weight: c.weight,
                    clip_time: c.time,
                });
            }
        }
        let states = states_start..cap.states.len();

        let rows_start = cap.rows.len();
        if let Some(sel) = self.selector.as_ref() {
            let step = sel.resolution().and_then(|r| r.step()).map_or(-1, |s| s as i32);
            for c in &self.selector_frame.contributions {
                if let ContributionSource::Selector { row } = c.source {
                    cap.rows.push(RowRecord {
                        row,
                        clip: self.clip_names[c.clip.index()],
                        weight: c.weight,
                        clip_time: c.time,
                        fallback_step: step,
                    });
                }
            }
        }
        let rows = rows_start..cap.rows.len();

        let params = instance.parameters();
        for p in &self.column_params {
            let v = match p.and_then(|p| params.get(p)) {
                Some(ParamValue::Float(f)) => f,
                Some(ParamValue::Int(i)) => i as f32,
                Some(ParamValue::Bool(b)) | Some(ParamValue::Trigger(b)) => f32::from(u8::from(b)),
                None => f32::NAN,
            };
            cap.binding_values.push(v);
        }

        self.poser.evaluate(&self.setup.animations, &self.frame, &self.graph_masks[self.current_graph])?;
        for m in self.poser.model() {
            cap.joint_positions.push(m.w_axis.truncate().to_array());
        }
        let step = self.step.min(u32::MAX as usize) as u32;
        cap.ticks.push(TickRecord { time: self.time, step, states, rows, events, root_motion: self.pending.root });
        self.pending = Pending { events_start: cap.events.len(), root: [0.0; 4] };
        Ok(())
    }
}

/// Drops selector notifies: the graph already reports the clips' notifies.
struct Discard;

impl zoa_anim_core::contracts::AnimationEventReceiver for Discard {
    fn on_animation_event(&mut self, _binding: AnimationBindingId, _event_tag: &str) {}
    fn on_slot_progress(&mut self, _slot: AnimationSlotId, _normalized_time: f32) {}
}

impl PreviewSimulator for PreviewSim {
    /// Starts `preset`; a set-up error stops playback (use [`PreviewSim::try_play`] to see it).
    fn play(&mut self, preset: &PreviewPreset) {
        if self.try_play(preset).is_err() {
            self.playing = false;
        }
    }
    fn pause(&mut self) {
        self.paused = true;
    }
    fn resume(&mut self) {
        self.paused = false;
    }
    fn stop(&mut self) {
        self.playing = false;
        self.paused = false;
        self.step = 0;
        self.wait_left = 0.0;
        self.time = 0.0;
    }
    /// Advances by `delta_seconds` and records one tick; an evaluation error stops playback.
    fn tick(&mut self, delta_seconds: f32) {
        if self.try_tick(delta_seconds).is_err() {
            self.playing = false;
        }
    }
    fn is_playing(&self) -> bool {
        self.playing && !self.paused
    }
    fn current_step_index(&self) -> usize {
        self.step
    }
}

//! The preview simulator (Preview Lab): plays a scripted [`PreviewPreset`]
//! on one [`Character`], ticks at a fixed rate, and records a [`Capture`] of
//! every tick.
//!
//! The preview is a *client of the public character API*: it uses only what a
//! game can use ([`CharacterDefinition`], [`Character`], its events and
//! readouts), so what it shows is what a game gets — the tag selector's layer
//! over the graph, the override slot, inertialization, IK and the loadout
//! cross-fade all come from [`Character::update`].
//!
//! # Terminology
//! - **Step**: one preset instruction. `set`, `fire`, `play_slot` and
//!   `set_tags` are instantaneous; `wait` lets time pass.
//! - **Tick**: one call of [`PreviewSimulator::tick`] (normally `1 / rate`
//!   seconds); it records one [`TickRecord`]. A wait that ends inside a tick
//!   splits it: the character advances to the wait's end, the following
//!   instantaneous steps apply at that exact time, and the rest of the tick
//!   follows. Row 0 is the state at time 0 after the leading steps.
//!
//! ```text
//!  steps ─► Character (set_tags, fire, set_*, play_slot, equip, entity speed)
//!                │ update(dt)
//!                ├─► graph states, slot, selector rows, binding values ─► Capture
//!                ├─► pose inputs (contributions), IK goals ────────────► Capture
//!                ├─► events (deliver_events; binding start/complete/cancel
//!                │   of fired triggers included) ─────────────────────► Capture
//!                │   └─► SoundBridge ─► AudioOut ─► Player (entry, variant,
//!                │       bus, gain) ─────────────────────────────────► Capture
//!                └─► local pose, model matrices, root motion ──────────► Capture
//! ```
//!
//! # Key decisions
//! - **Steps map onto gameplay calls.** `set` → `set_bool/set_float/set_int`,
//!   `fire` → [`Character::fire`] (which also releases the binding's
//!   event-triggered tag dimensions), `play_slot` → [`Character::play_slot`],
//!   `tags` → [`Character::set_tags`].
//! - **Loadout from tags.** A `tags` step whose combat dimension names a
//!   weapon (`armed_rifle`, …, or `unarmed`) equips that class
//!   ([`Character::equip`], cross-fading); tags without a combat tag keep the
//!   class. Leading tags (before any wait and any binding step) are the
//!   character's starting state: it spawns in that class and state
//!   ([`Character::spawn`], no cross-fade).
//! - **Speed.** A `set` of the `speed` binding is the character's speed
//!   ([`Character::set_speed`]): the gaits of locomotion's
//!   `OnInputThreshold` changes, every class's `speed` binding and IK follow it.
//! - **Ground.** The character stands on flat ground at
//!   [`PreviewSetup::ground`] (default height 0, the model's ground plane), the
//!   ground probe a game on flat ground gives: foot planting runs, and its
//!   targets and reach errors are recorded with the other IK goals.
//! - **Sound** is the game's path ([`sound`]): the runtime's `SoundBridge`
//!   over the folder's sound profile played by a `zoa_audio_profile::Player`,
//!   so each cue records the entry the resolver chose, the variant the player
//!   picked, its bus and gain.
//! - **Root motion** is the character's own ([`CharacterSettings::root_motion`]
//!   on the skeleton's first root joint), summed over the sub-steps of a tick.
//! - **Determinism.** Everything runs on one thread in a fixed order with no
//!   hashing of floats or time sources, so the same preset and set-up give the
//!   same capture bit for bit.
//! - **No allocation per tick** after [`PreviewSim::try_play`]: the capture's
//!   vectors are reserved for the whole preset (`duration × rate` ticks) and
//!   every string is interned beforehand. Steps (which may equip a class) may
//!   allocate.

mod capture;
mod live;
mod record;
pub mod sound;
mod sync;

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

pub use capture::{
    Capture, ContributionRecord, EventRecord, IkRecord, MarkerRecord, NameId, PartRecord, Recorded, RowRecord,
    SoundEntryNames, SoundRecord, StateRecord, StepKind, SyncRecord, TickRecord,
};
pub use live::{LiveLayer, LiveMode, LiveParameter, LiveSim, LiveValue, MAX_ADVANCE};
pub use sound::PreviewSound;
use zoa_anim_assets::character::{CharacterChoice, load_character};
use zoa_anim_assets::defs::DefinitionSet;
use zoa_anim_core::contracts::{AnimationDriver, DriverProblem, PreviewSimulator};
use zoa_anim_core::preview::{BindingValue, PreviewPreset, PreviewStep};
use zoa_anim_core::{
    AnimationBindingId, CharacterBundle, CombatTag, DefaultBindings, Name, PlayerProfileType, StateTagSet,
};
use zoa_anim_ik::FlatGround;

use record::EventSink;
use sound::CueSink;
use zoa_anim_runtime::RuntimeError;
use zoa_anim_runtime::character::SoundBridge;
use zoa_anim_runtime::character::driver::GraphDriver;
use zoa_anim_runtime::character::graph::{GraphInstance, GraphMasks, MAX_ACTIVE_STATES, MaskRef};
use zoa_anim_runtime::character::selector::MAX_SELECTOR_CLIPS;
use zoa_anim_runtime::{Character, CharacterDefinition, CharacterSettings};

/// [`RuntimeError::InvalidJob`] for `job` when `reasons` is not empty.
fn check(job: &'static str, reasons: Vec<String>) -> Result<(), RuntimeError> {
    if reasons.is_empty() { Ok(()) } else { Err(RuntimeError::InvalidJob { job, reasons }) }
}

/// Interns the name of every event `def`'s characters can deliver: every
/// graph's states, every clip and notify, every slot of the binding profiles
/// its loadout uses (binding phases are recorded under their binding's id).
fn event_names(def: &CharacterDefinition, capture: &mut Capture) -> HashMap<Name, NameId> {
    let mut names = HashMap::new();
    let mut add = |name: Name, capture: &mut Capture| {
        names.entry(name).or_insert_with(|| capture.intern(name.as_str()));
    };
    for graph in def.graph_ids().filter_map(|id| def.graph(id)) {
        for s in 0..graph.graph().states.len() {
            add(graph.state_name(zoa_anim_core::graph::StateIndex(s as u16)), capture);
        }
    }
    let clips = def.clips();
    for (c, info) in clips.clips().iter().enumerate() {
        let clip = zoa_anim_runtime::character::graph::ClipId(c as u32);
        add(clips.name(clip), capture);
        for n in 0..info.notifies.len() {
            add(clips.notify_name(clip, n as u16), capture);
        }
    }
    let profiles = def.player_set().into_iter().flat_map(|s| s.profiles.iter().map(|e| e.binding_profile.as_str()));
    for profile in profiles.filter_map(|id| def.binding_profile(id)) {
        for slot in profile.slots() {
            add(Name::from_static(slot.id.as_str()), capture);
        }
    }
    names
}

/// Layer name under which the override slot's clips are recorded (state = clip name).
pub const SLOT_LAYER_NAME: &str = "slot";

/// Default tick rate, Hz.
pub const DEFAULT_RATE: f32 = 30.0;

/// Default ground under the previewed character: flat at height 0 (metres,
/// model space), the plane glTF characters stand on.
pub const DEFAULT_GROUND: Option<f32> = Some(0.0);

/// Default loadout-switch cross-fade, seconds.
pub const DEFAULT_LOADOUT_CROSSFADE: f32 = 0.25;

/// Most ticks one preset may record (the capture is reserved up front): the
/// budget [`zoa_anim_core::budget::PREVIEW_TICKS`].
pub const MAX_TICKS: usize = zoa_anim_core::budget::PREVIEW_TICKS.max as usize;

/// Ticks a preset records at `rate` Hz (what [`PreviewSim::try_play`]
/// reserves): one per `1 / rate` over its waits, plus one per step and two.
#[must_use]
pub fn preset_ticks(preset: &PreviewPreset, rate: f32) -> u64 {
    let ticks = (preset.total_seconds().max(0.0) * f64::from(rate)).ceil();
    // `as` saturates: an infinite or NaN duration is refused by the budget.
    (if ticks.is_nan() { f64::INFINITY } else { ticks } as u64)
        .saturating_add(preset.steps.len() as u64)
        .saturating_add(2)
}

/// Waits shorter than this (seconds) count as over, so float round-off in
/// `n × (1 / rate)` never leaves a sliver of a tick.
const WAIT_EPSILON: f64 = 1e-6;

/// Everything a preview needs: the character (core types; the CLI loads it
/// from a definition folder and its glTF files) and how to play it.
#[derive(Debug, Clone)]
pub struct PreviewSetup {
    /// The character kind.
    pub bundle: CharacterBundle,
    /// Its settings (the preview turns root motion on).
    pub settings: CharacterSettings,
    /// Tick rate, Hz (`> 0`, at most 1000; default [`DEFAULT_RATE`]).
    pub rate: f32,
    /// Record each tick's local joint transforms ([`Capture::joint_locals`]).
    pub record_local: bool,
    /// Flat ground under the character at this height, metres along +Y in
    /// model space (foot planting's ground probe); `None`: no ground, so
    /// foot planting does not run. Default [`DEFAULT_GROUND`].
    pub ground: Option<f32>,
    /// The character's sounds (`None`: no sound profile, or see `sound_problem`).
    pub sound: Option<PreviewSound>,
    /// Why the folder's sound profile does not play (a file missing or over
    /// the sound budget): the preview then records no sound cues and says so.
    pub sound_problem: Option<String>,
}

impl PreviewSetup {
    /// The set-up of a definition folder (`set`, loaded from `dir`): the
    /// character [`load_character`] makes of it, at `rate` Hz, with its
    /// sound profile's files decoded ([`PreviewSound::from_bundle`]; when
    /// they cannot be, the preview plays without sound and
    /// [`PreviewSetup::sound_problem`] says why). Every problem at once; a
    /// folder without a player profile set is one (the preview takes each
    /// class's graph and binding profile from it).
    pub fn from_folder(set: &DefinitionSet, dir: &Path, rate: f32) -> Result<PreviewSetup, Vec<String>> {
        if set.player_profile_sets.is_empty() {
            return Err(vec![
                "the folder has no valid player_profile_set (the preview takes each class's graph and binding \
                 profile from it)"
                    .to_owned(),
            ]);
        }
        let bundle = load_character(set, dir, CharacterChoice::default())
            .map_err(|problems| problems.iter().map(ToString::to_string).collect::<Vec<_>>())?;
        let (sound, sound_problem) = match PreviewSound::from_bundle(&bundle, dir) {
            Ok(sound) => (sound, None),
            Err(problem) => (None, Some(problem)),
        };
        Ok(PreviewSetup { sound, sound_problem, ..PreviewSetup::new(bundle, rate) })
    }

    /// The work of playing `preset` with this set-up, for the budget checks
    /// ([`zoa_anim_core::budget::PreviewWork`]): its ticks, the skeleton's
    /// joints, the graph layers that record states (the two graphs of a
    /// loadout cross-fade, the selector and the slot), the preset's bindings,
    /// the most pose inputs a tick can have ([`most_contributions`]) and the
    /// decoded sound bank.
    #[must_use]
    pub fn work(&self, preset: &PreviewPreset) -> zoa_anim_core::budget::PreviewWork {
        let layers = self.bundle.graphs.iter().map(|g| g.layers.len() as u64).max().unwrap_or(0);
        zoa_anim_core::budget::PreviewWork {
            ticks: preset_ticks(preset, self.rate),
            joints: self.bundle.skeleton.joint_count() as u64,
            layers: 2 * layers + 2,
            bindings: preset.bindings().len() as u64,
            local: self.record_local,
            contributions: most_contributions(&self.bundle),
            sound_samples: self.sound.as_ref().map_or(0, PreviewSound::samples),
        }
    }

    /// `bundle` at `rate` Hz with the default settings, the preview's
    /// loadout cross-fade ([`DEFAULT_LOADOUT_CROSSFADE`]) and ground
    /// ([`DEFAULT_GROUND`]), without sound.
    #[must_use]
    pub fn new(bundle: CharacterBundle, rate: f32) -> PreviewSetup {
        let settings =
            CharacterSettings { loadout_crossfade: DEFAULT_LOADOUT_CROSSFADE, ..CharacterSettings::default() };
        PreviewSetup {
            bundle,
            settings,
            rate,
            record_local: false,
            ground: DEFAULT_GROUND,
            sound: None,
            sound_problem: None,
        }
    }
}

/// Most inputs a character of `bundle` can compose in one tick: per graph
/// layer [`MAX_ACTIVE_STATES`] states, each weighting at most its motion's
/// clips (a 1D blend tree interpolates between the two children bracketing
/// its parameter; the other kinds weight every child; a nested tree counts
/// its own clips the same way; a state holding a machine plays through its
/// inner states, which are counted themselves), plus the slot; twice for the
/// two graphs of a loadout switch; plus the selector's clips and the
/// procedural layer.
#[must_use]
pub fn most_contributions(bundle: &CharacterBundle) -> u64 {
    use zoa_anim_core::graph::{BlendTreeKind, Motion};
    fn weighted(m: &Motion) -> u64 {
        match m {
            Motion::Clip(_) => 1,
            Motion::Machine(_) => 0,
            Motion::BlendTree(t) => {
                let mut counts: Vec<u64> = t.children.iter().map(|c| weighted(&c.motion)).collect();
                if t.kind == BlendTreeKind::OneD {
                    counts.sort_unstable_by(|a, b| b.cmp(a));
                    counts.truncate(2);
                }
                counts.iter().sum()
            }
        }
    }
    let graph = |g: &zoa_anim_core::graph::AnimationGraph| -> u64 {
        let per_layer = (0..g.layers.len()).map(|l| {
            let widest = g.states.iter().filter(|s| s.layer == l).map(|s| weighted(&s.motion)).max().unwrap_or(0);
            MAX_ACTIVE_STATES as u64 * widest
        });
        per_layer.sum::<u64>() + 1
    };
    let widest = bundle.graphs.iter().map(graph).max().unwrap_or(1);
    2 * widest + MAX_SELECTOR_CLIPS as u64 + 2
}

/// Interned names of one graph's layers and states, and of its masks
/// (`layer:<name>`, `state:<name>`; `None` where there is no mask).
#[derive(Debug, Clone)]
struct GraphNames {
    layers: Vec<NameId>,
    states: Vec<NameId>,
    layer_masks: Vec<Option<NameId>>,
    state_masks: Vec<Option<NameId>>,
}

impl GraphNames {
    /// The names of `def`'s graph `graph`, and each of its masks with its
    /// weights per joint added to `capture.masks`.
    fn new(
        def: &CharacterDefinition,
        graph: &zoa_anim_runtime::character::graph::GraphDefinition,
        capture: &mut Capture,
    ) -> Result<GraphNames, RuntimeError> {
        let g = graph.graph();
        let masks = GraphMasks::new(graph, def.skeleton())?;
        let mask = |m: MaskRef, id: String, capture: &mut Capture| {
            let weights = masks.get(m)?;
            let name = capture.intern(&id);
            if !capture.masks.iter().any(|(n, _)| *n == name) {
                capture.masks.push((name, weights.to_vec()));
            }
            Some(name)
        };
        let layer_masks =
            (0..g.layers.len()).map(|l| mask(MaskRef::Layer(l as u16), format!("layer:{}", g.layers[l].name), capture));
        let layer_masks = layer_masks.collect();
        let state_masks = (0..g.states.len())
            .map(|s| {
                let index = zoa_anim_core::graph::StateIndex(s as u16);
                mask(MaskRef::State(index), format!("state:{}", g.states[s].name), capture)
            })
            .collect();
        Ok(GraphNames {
            layers: g.layers.iter().map(|l| capture.intern(&l.name)).collect(),
            states: g.states.iter().map(|s| capture.intern(&s.name)).collect(),
            layer_masks,
            state_masks,
        })
    }
}

/// Per-tick accumulation while sub-steps run.
#[derive(Debug, Clone, Copy, Default)]
struct Pending {
    events_start: usize,
    root: [f32; 4],
}

/// The preview simulator: the core's [`PreviewSimulator`] contract over one
/// [`Character`].
pub struct PreviewSim {
    def: Arc<CharacterDefinition>,
    rate: f32,
    record_local: bool,
    ground: Option<f32>,
    sound: Option<PreviewSound>,
    /// The run's sound bridge (rebuilt by each play).
    bridge: Option<SoundBridge<CueSink>>,
    graph_names: Vec<GraphNames>,
    clip_names: Vec<NameId>,
    slot_layer_name: NameId,
    /// Most pose inputs one tick can record ([`most_contributions`]).
    most_inputs: usize,
    /// The name of every event the character can deliver, interned.
    event_names: HashMap<Name, NameId>,
    template: Capture,
    capture: Capture,
    character: Character,
    preset: Option<PreviewPreset>,
    columns: Vec<(AnimationBindingId, NameId)>,
    step_names: Vec<NameId>,
    driver_touched: bool,
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
        match &setup.bundle.player_set {
            None if setup.bundle.animation_profile.is_none() => {
                reasons.push("the character has neither a player profile set nor an animation profile".to_owned());
            }
            Some(set) => {
                // Nothing would move: the starting class has no graph and no tag table.
                let start = set.resolve_profile(set.default_profile);
                if start.is_some_and(|e| e.animation_graph.is_none() && e.animation_profile.is_none()) {
                    reasons.push(format!(
                        "player profile set `{}`: the default class {} has neither an animation graph nor an \
                         animation profile, so nothing would play",
                        set.id, set.default_profile
                    ));
                }
            }
            None => {}
        }
        check("preview set-up", reasons)?;
        let settings = CharacterSettings { root_motion: true, ..setup.settings };
        let def = CharacterDefinition::new(&setup.bundle, settings)?;

        let mut template = Capture {
            rate: setup.rate,
            ground: setup.ground,
            sound_problem: setup.sound_problem.clone(),
            ..Capture::default()
        };
        let graph_names = def
            .graph_ids()
            .filter_map(|id| def.graph(id))
            .map(|d| GraphNames::new(&def, d, &mut template))
            .collect::<Result<_, _>>()?;
        if let Some(sound) = &setup.sound {
            sound.intern(&mut template);
        }
        let slot_layer_name = template.intern(SLOT_LAYER_NAME);
        let clips = def.clips().clips();
        let clip_names = clips.iter().map(|c| template.intern(&c.name)).collect();
        let mut event_names = event_names(&def, &mut template);
        sync::prepare(&def, &mut template, &mut event_names);
        let sk = def.skeleton().skeleton();
        template.joint_names = (0..sk.joint_count())
            .map(|j| {
                let name = sk.joints()[j].name.clone().unwrap_or_else(|| format!("node{}", sk.joints()[j].node));
                template.intern(&name)
            })
            .collect();
        template.joint_parents = (0..sk.joint_count()).map(|j| sk.parent(j).map(|p| p as u16)).collect();

        Ok(PreviewSim {
            most_inputs: usize::try_from(most_contributions(&setup.bundle)).unwrap_or(usize::MAX),
            character: Character::new(&def)?,
            def,
            rate: setup.rate,
            record_local: setup.record_local,
            ground: setup.ground,
            sound: setup.sound,
            bridge: None,
            graph_names,
            clip_names,
            slot_layer_name,
            event_names,
            capture: template.clone(),
            template,
            preset: None,
            columns: Vec::new(),
            step_names: Vec::new(),
            driver_touched: false,
            step: 0,
            wait_left: 0.0,
            time: 0.0,
            playing: false,
            paused: false,
            pending: Pending::default(),
        })
    }

    /// The tick rate, Hz.
    #[must_use]
    pub fn rate(&self) -> f32 {
        self.rate
    }

    /// The compiled character definition.
    #[must_use]
    pub fn definition(&self) -> &Arc<CharacterDefinition> {
        &self.def
    }

    /// The character being previewed.
    #[must_use]
    pub fn character(&self) -> &Character {
        &self.character
    }

    /// Every binding problem of every class of the player set: for each class
    /// entry, its binding profile checked against its graph (or the default
    /// class's graph) with [`AnimationDriver::validate_profile`]. A binding
    /// with a problem is inert (the driver's documented no-op).
    #[must_use]
    pub fn binding_problems(&self) -> Vec<(PlayerProfileType, DriverProblem)> {
        let Some(set) = self.def.player_set() else { return Vec::new() };
        let default_graph = set.resolve_profile(set.default_profile).and_then(|e| e.animation_graph.clone());
        let mut out = Vec::new();
        for entry in &set.profiles {
            let graph = entry.animation_graph.clone().or_else(|| default_graph.clone());
            let Some(def) = graph.and_then(|g| self.def.graph(&g).cloned()) else { continue };
            let Some(profile) = self.def.binding_profile(&entry.binding_profile) else { continue };
            let mut driver = GraphDriver::new(GraphInstance::new(def));
            driver.load_profile(Arc::clone(profile));
            if let Err(problems) = driver.validate_profile() {
                out.extend(problems.into_iter().map(|p| (entry.class, p)));
            }
        }
        out
    }

    /// What was recorded since the last [`PreviewSimulator::play`].
    #[must_use]
    pub fn capture(&self) -> &Capture {
        &self.capture
    }

    /// Preview time, seconds.
    #[must_use]
    pub fn time(&self) -> f64 {
        self.time
    }

    /// Model-space joint matrices of the last recorded tick.
    #[must_use]
    pub fn model_matrices(&self) -> &[zoa_anim_core::glam::Mat4] {
        self.character.model_matrices()
    }

    /// Plays `preset` from its first step to its end at the set-up's rate and
    /// returns the capture (one tick at time 0, then one per `1 / rate`).
    pub fn run(&mut self, preset: &PreviewPreset) -> Result<&Capture, RuntimeError> {
        let never = std::sync::atomic::AtomicBool::new(false);
        self.run_until_cancelled(preset, &never)?;
        Ok(&self.capture)
    }

    /// [`PreviewSim::run`] that stops between two ticks once `cancelled` is
    /// set (the Workbench sets it when the request's client goes away):
    /// `Ok(None)` then, and what was recorded so far is dropped with the next run.
    pub fn run_until_cancelled(
        &mut self,
        preset: &PreviewPreset,
        cancelled: &std::sync::atomic::AtomicBool,
    ) -> Result<Option<&Capture>, RuntimeError> {
        use std::sync::atomic::Ordering;
        self.try_play(preset)?;
        let dt = 1.0 / self.rate;
        while self.playing {
            if cancelled.load(Ordering::Relaxed) {
                self.playing = false;
                return Ok(None);
            }
            self.try_tick(dt)?;
        }
        Ok(Some(&self.capture))
    }

    /// [`PreviewSimulator::play`] with errors reported.
    /// Errors: a wait that is negative or not finite, a preset longer than
    /// [`MAX_TICKS`] ticks at the set-up's rate, or an evaluation failure.
    pub fn try_play(&mut self, preset: &PreviewPreset) -> Result<(), RuntimeError> {
        // The preset's own rules (waits, step/time/binding budgets) live in core.
        let mut reasons = preset.problems();
        let duration = preset.total_seconds();
        let what = format!("preset `{}` ({duration} s at {} Hz)", preset.id, self.rate);
        if let Err(e) = zoa_anim_core::budget::PREVIEW_TICKS.check(what, preset_ticks(preset, self.rate)) {
            reasons.push(format!("{e} (lower --rate or shorten the waits)"));
        }
        check("preview preset", reasons)?;
        self.driver_touched = false;
        self.character = self.spawn(None, StateTagSet::EMPTY)?;
        let mut capture = self.template.clone();
        self.bridge = match &self.sound {
            Some(sound) => Some(
                CueSink::bridge(sound, &mut capture)
                    .map_err(|e| RuntimeError::InvalidJob { job: "preview sound", reasons: vec![e] })?,
            ),
            None => None,
        };
        capture.preset = preset.id.clone();
        capture.preset_name = preset.name.clone();
        self.columns.clear();
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
                PreviewStep::PlaySlot { slot } => capture.intern(slot.as_str()),
                PreviewStep::PlayState { state, .. } => capture.intern(state),
                PreviewStep::SetTags { tags } => capture.intern(&tags.to_string()),
                PreviewStep::Wait { .. } => NameId(0),
            };
            self.step_names.push(name);
        }
        for class in PlayerProfileType::ALL {
            capture.intern(class.name());
        }
        capture.binding_columns = self.columns.iter().map(|(_, n)| *n).collect();
        // Reserve for the whole preset so ticks do not allocate.
        let ticks = preset_ticks(preset, self.rate) as usize;
        let joints = capture.joint_count();
        capture.ticks.reserve(ticks);
        capture.states.reserve(ticks * 8);
        capture.rows.reserve(ticks * 4);
        capture.sync.reserve(ticks * 4);
        capture.events.reserve(ticks * 8 + preset.steps.len());
        // The most a tick can hold (the budget checked these bounds' bytes).
        capture.contributions.reserve(ticks.saturating_mul(self.most_inputs));
        capture.sounds.reserve(ticks);
        capture.ik.reserve(ticks * zoa_anim_ik::MAX_IK_GOALS);
        capture.binding_values.reserve(ticks * self.columns.len());
        capture.joint_positions.reserve(ticks * joints);
        if self.record_local {
            capture.joint_locals.reserve(ticks * joints);
        }
        self.capture = capture;
        self.preset = Some(preset.clone());
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
            let c = &mut self.character;
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
                        BindingValue::Bool(v) => c.set_bool(*binding, v),
                        BindingValue::Float(v) if *binding == DefaultBindings::SPEED => c.set_speed(v),
                        BindingValue::Float(v) => c.set_float(*binding, v),
                        BindingValue::Int(v) => c.set_int(*binding, v),
                    }
                    Recorded::Step(StepKind::Set)
                }
                PreviewStep::Fire { binding } => {
                    self.driver_touched = true;
                    c.fire(*binding);
                    Recorded::Step(StepKind::Trigger)
                }
                PreviewStep::PlaySlot { slot } => {
                    self.driver_touched = true;
                    if c.play_slot(*slot) {
                        Recorded::Step(StepKind::Slot)
                    } else {
                        Recorded::Step(StepKind::SlotUnresolved)
                    }
                }
                PreviewStep::PlayState { state, blend } => {
                    self.driver_touched = true;
                    if c.play_state(state, *blend) {
                        Recorded::Step(StepKind::ForceState)
                    } else {
                        Recorded::Step(StepKind::ForceStateUnresolved)
                    }
                }
                PreviewStep::SetTags { tags } => {
                    let class = class_of(*tags).filter(|k| Some(*k) != c.class());
                    if self.capture.ticks.is_empty() && !self.driver_touched {
                        // Leading tags are the character's starting state: it spawns there (no fades).
                        let (speed, class) = (c.speed(), class.or(c.class()));
                        *c = Self::spawn_on(&self.def, self.ground, class, *tags)?;
                        c.set_speed(speed);
                    } else {
                        if let Some(class) = class {
                            c.equip(class);
                        }
                        c.set_tags(*tags);
                    }
                    if class.is_some()
                        && let Some(used) = c.class()
                    {
                        let equip_name = self.capture.intern(used.name());
                        self.capture.events.push(EventRecord {
                            kind: Recorded::Step(StepKind::Equip),
                            name: equip_name,
                            time: self.time,
                        });
                    }
                    Recorded::Step(StepKind::Tags)
                }
            };
            self.capture.events.push(EventRecord { kind, name, time: self.time });
            self.step += 1;
        }
        Ok(())
    }

    /// A character of the definition in `class` and `tags`, on the set-up's ground.
    fn spawn(&self, class: Option<PlayerProfileType>, tags: StateTagSet) -> Result<Character, RuntimeError> {
        Self::spawn_on(&self.def, self.ground, class, tags)
    }

    fn spawn_on(
        def: &Arc<CharacterDefinition>,
        ground: Option<f32>,
        class: Option<PlayerProfileType>,
        tags: StateTagSet,
    ) -> Result<Character, RuntimeError> {
        let mut c = Character::spawn(def, class, tags)?;
        if let Some(height) = ground {
            c.set_ground(Some(Arc::new(FlatGround { height, normal: zoa_anim_core::glam::Vec3::Y })));
        }
        Ok(c)
    }

    /// Advances the character by `dt` seconds (0 = evaluate without time passing).
    fn advance(&mut self, dt: f32) -> Result<(), RuntimeError> {
        self.character.update(dt)?;
        if let Some(rm) = self.character.root_motion() {
            for (acc, v) in self.pending.root.iter_mut().zip(rm.to_array()) {
                *acc += v;
            }
        }
        self.time += f64::from(dt);
        let first = self.capture.events.len();
        let events =
            EventSink { events: &mut self.capture.events, names: &self.event_names, binding_names: &self.columns };
        let mut sink = record::Deliver { events, sound: self.bridge.as_mut() };
        self.character.deliver_events(0, &mut sink);
        if let Some(bridge) = &mut self.bridge {
            // The player's clock follows the preview even when nothing sounds.
            bridge.sink_mut().advance_to(self.character.time());
        }
        // Delivery order: time, then kind, then name (a total order, so the sort is deterministic).
        self.capture.events[first..].sort_unstable_by(|a, b| {
            a.time.total_cmp(&b.time).then(a.kind.order().cmp(&b.kind.order())).then(a.name.cmp(&b.name))
        });
        Ok(())
    }
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

//! One character: all of its per-frame state, sized at spawn; the gameplay
//! side and the frame here, what can be read after a frame in `readout`.

mod readout;

use std::sync::Arc;

use glam::Vec3;
use zoa_anim_core::contracts::{AnimationDriver, PoseSnapshot};
use zoa_anim_core::graph::{ConditionTest, ParameterIndex, StateIndex};
use zoa_anim_core::{
    AnimationBindingId, AnimationParameterType, AnimationSlotId, DefaultBindings, DimensionSet, Name,
    PlayerProfileType, StateDimension, StateTagSet,
};
use zoa_anim_ik::{GroundProbe, HandTarget};

use super::definition::CharacterDefinition;
use super::equipment::EquipmentIk;
use super::lod::{LodState, LodStep};
use super::pose_stage::{PoseStage, SelectorLayer, Stack};
use crate::character::driver::GraphDriver;
use crate::character::events::{BindingPhase, EventKind, EventQueue, NotifySource, WindowTable};
use crate::character::graph::{
    ContributionSource, FrameOutput, GraphInstance, RootMotion, RootMotionContext, RootMotionJob,
};
use crate::character::loadout::{Loadout, LoadoutChange};
use crate::character::selector::TagSelector;
use crate::error::RuntimeError;
use crate::pose::compose::PoseScratch;
use crate::pose::ik_stage::IkStage;
use crate::pose::model::{LocalToModelJob, skinning_matrices};
use zoa_anim_ik::IkInputs;

/// Most binding actions watched at once per character (start → complete / cancel).
pub const MAX_BINDING_WATCHES: usize = 8;

/// Most distinct unbound bindings a character remembers for [`Character::explain`].
pub const MAX_UNBOUND_NOTED: usize = 8;

/// The graph side of a character: a loadout switcher, or a driver without a player set.
#[derive(Debug)]
enum Behaviour {
    Loadout(Box<Loadout>),
    Plain(Box<GraphDriver>),
}

impl Behaviour {
    fn driver(&self) -> &GraphDriver {
        match self {
            Behaviour::Loadout(s) => s.driver(),
            Behaviour::Plain(d) => d,
        }
    }
    fn driver_mut(&mut self) -> &mut GraphDriver {
        match self {
            Behaviour::Loadout(s) => s.driver_mut(),
            Behaviour::Plain(d) => d,
        }
    }
    /// Prefetching for a crowd: the boxed loadout or driver (the graph instance inside).
    fn prefetch(&self) {
        match self {
            Behaviour::Loadout(s) => crate::pose::simd::prefetch(std::slice::from_ref(&**s), usize::MAX),
            Behaviour::Plain(d) => crate::pose::simd::prefetch(std::slice::from_ref(&**d), usize::MAX),
        }
    }
    fn previous_instance(&self) -> Option<&GraphInstance> {
        match self {
            Behaviour::Loadout(s) => s.previous_instance(),
            Behaviour::Plain(_) => None,
        }
    }
    fn update(&mut self, dt: f32, current: &mut FrameOutput, previous: &mut FrameOutput) -> f32 {
        match self {
            Behaviour::Loadout(s) => s.update_split(dt, current, previous),
            Behaviour::Plain(d) => {
                d.instance_mut().update(dt, current);
                previous.clear();
                1.0
            }
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum WatchStage {
    /// Fired; waiting for the transition that consumes the trigger.
    Fired,
    /// The action's state plays.
    Playing { layer: u16, state: StateIndex },
}

#[derive(Debug, Clone, Copy, PartialEq)]
struct Watch {
    binding: AnimationBindingId,
    parameter: ParameterIndex,
    stage: WatchStage,
}

/// The tag dimensions whose `OnEvent` changes a binding releases when
/// gameplay fires or sets it: reactions (`hit`, `die`, `dodge`, `is_dead`),
/// combat (`fire`, `reload`, `equip`, `holster`, `melee`, `throw`,
/// `is_aiming`, `is_reloading`), interaction (`interact`), locomotion
/// (`jump`, `land`).
#[must_use]
pub fn tag_event_dimensions(binding: AnimationBindingId) -> DimensionSet {
    use DefaultBindings as B;
    let one = |d| DimensionSet::EMPTY.with(d);
    if [B::HIT, B::DIE, B::DODGE, B::IS_DEAD].contains(&binding) {
        one(StateDimension::Reaction)
    } else if [B::FIRE, B::RELOAD, B::EQUIP, B::HOLSTER, B::MELEE, B::THROW, B::IS_AIMING, B::IS_RELOADING]
        .contains(&binding)
    {
        one(StateDimension::Combat)
    } else if binding == B::INTERACT {
        one(StateDimension::Interaction)
    } else if [B::JUMP, B::LAND].contains(&binding) {
        one(StateDimension::Locomotion)
    } else {
        DimensionSet::EMPTY
    }
}

/// Layers and inputs a pose stack of frames this large can need: a graph's
/// frame (the current or the outgoing one's) and the selector's.
fn stack_room(frame: &FrameOutput, previous: &FrameOutput, selector: &FrameOutput) -> (usize, usize) {
    let layers = frame.layers.capacity().max(previous.layers.capacity()) + 1;
    let contributions =
        frame.contributions.capacity().max(previous.contributions.capacity()) + selector.contributions.capacity();
    (layers, contributions)
}

/// What [`Character::update`] computes past the local pose: each level adds
/// to the one before, and its readout is empty while it is not computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub enum PoseOutput {
    /// The local pose only ([`Character::local_pose`]): for an engine that
    /// propagates its own joint hierarchy (Bevy's transforms).
    Local,
    /// Plus model-space matrices ([`Character::model_matrices`]).
    Model,
    /// Plus skinning matrices ([`Character::skinning_matrices`]), for a
    /// renderer that skins from them. The default.
    #[default]
    Skinning,
}

/// One character: graph instances (through its loadout), tag selector,
/// binding driver, override slot, pose buffers, IK state and event queue,
/// all sized at spawn ([`Character::new`]). Gameplay sets meaning between
/// frames; [`Character::update`] advances and evaluates without allocating;
/// the pose, model-space and skinning matrices and the events are read after.
#[derive(Debug)]
pub struct Character {
    def: Arc<CharacterDefinition>,
    behaviour: Behaviour,
    graph: Option<usize>,
    previous_graph: Option<usize>,
    frame: FrameOutput,
    previous_frame: FrameOutput,
    selector: Option<TagSelector>,
    selector_frame: FrameOutput,
    pose: PoseStage,
    ik: Option<IkStage>,
    /// The held item's grips (when the definition has items and hand on weapon runs).
    equipment: Option<EquipmentIk>,
    root_motion: Option<(RootMotionContext, RootMotion)>,
    events: EventQueue,
    /// Notify windows delivered open.
    windows: WindowTable,
    /// Whether the selector's notifies led the graph's base layer's last frame.
    selector_led: bool,
    watches: [Option<Watch>; MAX_BINDING_WATCHES],
    tags: StateTagSet,
    entity_speed: f32,
    /// Whether gameplay ever gave a speed ([`Character::set_speed`]).
    speed_given: bool,
    /// Bindings gameplay used that the class did not bind (for `explain`), newest first.
    unbound: [Option<AnimationBindingId>; MAX_UNBOUND_NOTED],
    time: f64,
    alpha: f32,
    selector_weight: f32,
    /// What an update computes past the local pose ([`Character::set_output`]).
    output: PoseOutput,
    /// What the last evaluation computed (at least `output`; model space
    /// with an IK stage; `Local` before the first).
    computed: PoseOutput,
    /// Seed of the tag selector's random row picks ([`Character::set_random_seed`]).
    random_seed: u64,
    /// Level of detail: significance, update rate, the poses shown between evaluations.
    lod: LodState,
}

impl Character {
    /// Spawns a character of `def`: the player set's default class (or no
    /// graph without a player set), no tags, every buffer sized.
    pub fn new(def: &Arc<CharacterDefinition>) -> Result<Character, RuntimeError> {
        Self::spawn(def, None, StateTagSet::EMPTY)
    }

    /// Spawns a character already equipped with `class` (when the player set
    /// has an entry for it; else the default class) and already in state
    /// `tags` (the selector starts there with a cut, no hold or cross-fade).
    pub fn spawn(
        def: &Arc<CharacterDefinition>,
        class: Option<PlayerProfileType>,
        tags: StateTagSet,
    ) -> Result<Character, RuntimeError> {
        let settings = &def.settings;
        let behaviour = Self::start_behaviour(def, class)?;
        // The outgoing graph's frame gets its room at the first switch (which
        // allocates anyway: it starts a graph instance).
        let (frame, previous_frame) = match &behaviour {
            Behaviour::Loadout(s) => (s.compiled().graph_output(), FrameOutput::default()),
            Behaviour::Plain(d) => (d.instance().new_output(), FrameOutput::default()),
        };
        let graph = match &behaviour {
            Behaviour::Loadout(s) => s.graph_index(),
            Behaviour::Plain(_) => None,
        };
        let table = match &behaviour {
            Behaviour::Loadout(s) => s.current().and_then(|e| e.tag_table).map(|t| Arc::clone(&def.tables[t].1)),
            Behaviour::Plain(_) => def.own_table.clone(),
        };
        let selector = table.map(|t| Self::new_selector(def, t, tags));
        let selector_frame = selector.as_ref().map(TagSelector::new_output).unwrap_or_default();
        let mut ik = match &def.rig_ik {
            Some(rig) => Some(IkStage::new(Arc::clone(rig), &def.skeleton)?),
            None => None,
        };
        let class = match &behaviour {
            Behaviour::Loadout(s) => Some(s.class()),
            Behaviour::Plain(_) => None,
        };
        let equipment = ik.as_mut().and_then(|ik| EquipmentIk::new(def, class, ik.inputs_mut()));
        let root_motion = if settings.root_motion {
            let ctx = RootMotionContext::new(def.skeleton.rest(), &def.animations, def.root)?;
            Some((ctx, RootMotion::default()))
        } else {
            None
        };
        let (layers, contributions) = stack_room(&frame, &previous_frame, &selector_frame);
        let mut c = Character {
            pose: PoseStage::new(def, layers, contributions),
            behaviour,
            graph,
            previous_graph: None,
            frame,
            previous_frame,
            selector,
            selector_frame,
            ik,
            equipment,
            root_motion,
            events: EventQueue::with_capacity(settings.event_capacity),
            windows: WindowTable::default(),
            selector_led: false,
            watches: [None; MAX_BINDING_WATCHES],
            tags,
            entity_speed: 0.0,
            speed_given: false,
            unbound: [None; MAX_UNBOUND_NOTED],
            time: 0.0,
            alpha: 1.0,
            selector_weight: 0.0,
            output: PoseOutput::Skinning,
            computed: PoseOutput::Local,
            random_seed: 0,
            lod: LodState::default(),
            def: Arc::clone(def),
        };
        if let (Some(e), Some(ik)) = (&mut c.equipment, &mut c.ik) {
            // Spawned holding the item: its grips are in the first pose already.
            e.tick(0.0, false, ik.inputs_mut());
        }
        c.first_pose()?;
        Ok(c)
    }

    /// The loadout in `class` (else its default class), or without a player
    /// set a driver over the override slot alone.
    fn start_behaviour(def: &CharacterDefinition, class: Option<PlayerProfileType>) -> Result<Behaviour, RuntimeError> {
        let settings = &def.settings;
        Ok(match &def.loadout {
            Some(compiled) => {
                let class = class.unwrap_or(compiled.default);
                let clips = Some(Arc::clone(&def.clips));
                let mut s = Loadout::start(Arc::clone(compiled), class, clips, settings.loadout_crossfade)?;
                s.driver_mut().set_slot_blend(settings.slot_blend);
                Behaviour::Loadout(Box::new(s))
            }
            None => {
                let instance = GraphInstance::without_graph(Arc::clone(&def.clips));
                let mut d = GraphDriver::new(instance.with_event_capacity(EventQueue::STAGING_CAPACITY));
                d.set_slot_blend(settings.slot_blend);
                Behaviour::Plain(Box::new(d))
            }
        })
    }

    fn new_selector(
        def: &CharacterDefinition,
        table: Arc<crate::character::selector::SelectorTable>,
        tags: StateTagSet,
    ) -> TagSelector {
        TagSelector::with_table(table, tags)
            .with_step_frequency(def.settings.step_frequency)
            .with_event_capacity(EventQueue::STAGING_CAPACITY)
    }

    // ---- gameplay side -------------------------------------------------

    /// Requests new state tags; each dimension switches per its transition
    /// policy (hold, cross-fade, trigger).
    pub fn set_tags(&mut self, tags: StateTagSet) {
        self.tags = tags;
        if let Some(s) = &mut self.selector {
            s.set_tags(tags);
        }
    }
    /// Releases pending `OnEvent` tag changes of `dimensions` (firing a
    /// trigger binding does this for its dimensions, see [`tag_event_dimensions`]).
    pub fn send_tag_event(&mut self, dimensions: DimensionSet) {
        if let Some(s) = &mut self.selector {
            s.send_event(dimensions);
        }
    }
    /// Fires a trigger binding (no-op when the active profile does not bind
    /// it), releases its tag dimensions, and watches the action it starts for
    /// its start / complete / cancel sub-phases.
    pub fn fire(&mut self, binding: AnimationBindingId) {
        self.send_tag_event(tag_event_dimensions(binding));
        let driver = self.behaviour.driver_mut();
        let Some((parameter, AnimationParameterType::Trigger)) = driver.binding_parameter(binding) else {
            self.note_unbound(binding);
            return;
        };
        driver.fire_trigger(binding);
        let fired = Watch { binding, parameter, stage: WatchStage::Fired };
        if let Some(w) =
            self.watches.iter_mut().find(|w| w.is_some_and(|w| w.binding == binding && w.stage == WatchStage::Fired))
        {
            *w = Some(fired);
        } else if let Some(w) = self.watches.iter_mut().find(|w| w.is_none()) {
            *w = Some(fired);
        }
    }
    /// Sets a bool binding (no-op when unbound).
    pub fn set_bool(&mut self, binding: AnimationBindingId, value: bool) {
        self.send_tag_event(tag_event_dimensions(binding));
        self.note_unbound_as(binding, AnimationParameterType::Bool);
        self.behaviour.driver_mut().set_bool(binding, value);
        if binding == DefaultBindings::IS_AIMING
            && let Some(e) = &mut self.equipment
        {
            // The held item's aim grips follow whether the character aims.
            e.set_aiming(value);
        }
    }
    /// Sets a float binding (no-op when unbound). The tag table's chooser
    /// columns over `binding` (`ranges = ["aim_yaw in -45..45"]`) read it too,
    /// bound or not.
    pub fn set_float(&mut self, binding: AnimationBindingId, value: f32) {
        self.note_unbound_as(binding, AnimationParameterType::Float);
        self.behaviour.driver_mut().set_float(binding, value);
        if let Some(s) = &mut self.selector {
            s.set_value(binding, value);
        }
    }
    /// Sets an int binding (no-op when unbound); chooser columns read it as a float.
    pub fn set_int(&mut self, binding: AnimationBindingId, value: i32) {
        self.note_unbound_as(binding, AnimationParameterType::Int);
        self.behaviour.driver_mut().set_int(binding, value);
        if let Some(s) = &mut self.selector {
            s.set_value(binding, value as f32);
        }
    }
    /// Seeds the random row picks of tag tables with `pick = "random"` (which
    /// idle of several plays): the same seed and inputs give the same picks,
    /// serial or parallel. Give each character of a crowd its own seed.
    pub fn set_random_seed(&mut self, seed: u64) {
        self.random_seed = seed;
        if let Some(s) = &mut self.selector {
            s.set_seed(seed);
        }
    }

    /// Remembers (for [`Character::explain`]) that gameplay used `binding`
    /// while it is not bound as `ty`; the last [`MAX_UNBOUND_NOTED`] distinct ones.
    fn note_unbound_as(&mut self, binding: AnimationBindingId, ty: AnimationParameterType) {
        if self.behaviour.driver().binding_parameter(binding).is_none_or(|(_, t)| t != ty) {
            self.note_unbound(binding);
        }
    }

    fn note_unbound(&mut self, binding: AnimationBindingId) {
        if self.unbound.contains(&Some(binding)) {
            return;
        }
        self.unbound.rotate_right(1);
        self.unbound[0] = Some(binding);
    }

    /// Bindings gameplay used that the class in use did not bind, newest first.
    pub(in crate::character) fn unbound_uses(&self) -> Vec<AnimationBindingId> {
        self.unbound.iter().flatten().copied().collect()
    }

    /// Whether gameplay ever gave a speed.
    pub(in crate::character) fn speed_given(&self) -> bool {
        self.speed_given
    }
    /// Plays a slot of the active binding profile in the override slot
    /// (`false` when the profile has no such slot or its clip does not resolve).
    pub fn play_slot(&mut self, slot: AnimationSlotId) -> bool {
        let played = self.behaviour.driver_mut().play_slot(slot);
        if played && let Some(e) = &mut self.equipment {
            // The held item's grips for the slot (a reload lets the off hand go).
            e.slot_started(slot);
        }
        played
    }
    /// Fades the override slot out over `blend_out` seconds (0 stops at once).
    pub fn stop_slot(&mut self, blend_out: f32) {
        self.behaviour.driver_mut().instance_mut().stop_with(blend_out);
        if let Some(e) = &mut self.equipment {
            e.slot_stopped();
        }
    }
    /// Equips a weapon class: its binding profile, graph (cross-faded over
    /// the definition's loadout cross-fade, each graph with its own masks),
    /// tag table and held item (its grips blend in over the same cross-fade
    /// while the old item's blend out). May allocate (a new graph instance);
    /// frames do not. Without a player set nothing changes.
    pub fn equip(&mut self, class: PlayerProfileType) -> Option<LoadoutChange> {
        let Behaviour::Loadout(s) = &mut self.behaviour else { return None };
        let change = s.equip(class);
        if let (Some(e), Some(ik)) = (&mut self.equipment, &mut self.ik) {
            e.equip(&self.def, change.class, ik.inputs_mut());
        }
        if change.graph_changed {
            if self.previous_frame.contributions.capacity() == 0 {
                // The first switch: room for the outgoing graph's frame and stack.
                self.previous_frame = s.compiled().graph_output();
                let (layers, contributions) = stack_room(&self.frame, &self.previous_frame, &self.selector_frame);
                self.pose.reserve(layers, contributions);
            }
            self.previous_graph = self.graph;
            self.graph = s.graph_index();
            self.pose.inertia.reset_generation();
            // Windows of the old graph and its slot end with them.
            let graph_or_slot = |s| matches!(s, NotifySource::Graph { .. } | NotifySource::Slot);
            self.windows.close(&mut self.events, self.time, graph_or_slot);
            // Actions of the old graph end with it.
            for w in self.watches.iter_mut() {
                if let Some(watch) = w.take()
                    && matches!(watch.stage, WatchStage::Playing { .. })
                {
                    let phase = BindingPhase::Cancel;
                    let kind = EventKind::Binding { binding: watch.binding, phase };
                    self.events.push(self.time, kind, Name::from_static(phase.tag()));
                }
            }
        }
        let table = s.current().and_then(|e| e.tag_table).map(|t| Arc::clone(&self.def.tables[t].1));
        match (table, &mut self.selector) {
            (Some(t), Some(sel)) => sel.set_table(t, self.def.settings.loadout_crossfade),
            (Some(t), None) => {
                let mut sel = Self::new_selector(&self.def, t, self.tags);
                sel.set_seed(self.random_seed);
                if self.speed_given {
                    sel.set_input(self.entity_speed);
                    sel.set_value(DefaultBindings::SPEED, self.entity_speed);
                }
                self.selector_frame = sel.new_output();
                self.selector = Some(sel);
                let (layers, contributions) = stack_room(&self.frame, &self.previous_frame, &self.selector_frame);
                self.pose.reserve(layers, contributions);
            }
            (None, _) => self.selector = None,
        }
        if self.speed_given {
            // The new class's binding profile (and graph) hear the speed too.
            self.behaviour.driver_mut().set_float(DefaultBindings::SPEED, self.entity_speed);
        }
        Some(change)
    }
    /// Back to the unarmed baseline.
    pub fn unequip(&mut self) -> Option<LoadoutChange> {
        self.equip(PlayerProfileType::Unarmed)
    }
    /// The character's speed over the ground, m/s (`>= 0`; not finite is
    /// ignored) — the one way to give speed. It reaches:
    /// - every graph through the binding vocabulary: the active binding
    ///   profile's `speed` binding (each profile binds it to its graph's
    ///   forward-speed parameter; a profile without it does nothing);
    /// - the tag selector's gaits: a locomotion change to a gait takes effect
    ///   once the speed is in that gait's band (the `gaits` of the folder's
    ///   `state_graph`). Until the game first gives a speed, locomotion tag
    ///   changes take effect after their hold like any tag change, so a game
    ///   that only sets tags still sees them;
    /// - IK: foot planting fades out towards [`CharacterSettings::full_speed`](super::CharacterSettings::full_speed).
    pub fn set_speed(&mut self, metres_per_second: f32) {
        if !metres_per_second.is_finite() {
            return;
        }
        self.entity_speed = metres_per_second.max(0.0);
        self.speed_given = true;
        if let Some(s) = &mut self.selector {
            s.set_input(self.entity_speed);
            s.set_value(DefaultBindings::SPEED, self.entity_speed);
        }
        self.behaviour.driver_mut().set_float(DefaultBindings::SPEED, self.entity_speed);
        let normalised = (self.entity_speed / self.def.settings.full_speed).clamp(0.0, 1.0);
        if let Some(ik) = &mut self.ik {
            ik.inputs_mut().locomotion_speed = normalised;
        }
    }
    /// Forces a state of the graph in use by name (Unity's `Play`, the
    /// design's force-state mode): interrupts any transition on its layer and
    /// cross-fades into it over `blend` seconds (`None`: the state's own
    /// cross-fade; 0 cuts). `false` when the graph in use has no such state.
    pub fn play_state(&mut self, state: &str, blend: Option<f32>) -> bool {
        self.behaviour.driver_mut().instance_mut().play_state_named(state, blend)
    }
    /// Travels the graph in use to a state by name (Godot's playback
    /// `travel`): along the shortest chain of transitions from the state its
    /// layer plays, each with its own blend, entering and leaving every state
    /// on the way with their events (a sub-state machine: to its entry).
    /// `false` when the graph in use has no such state or no chain reaches it.
    pub fn travel(&mut self, state: &str) -> bool {
        self.behaviour.driver_mut().instance_mut().travel_named(state)
    }
    /// Playback speed of everything the character plays (`>= 0`, default 1).
    pub fn set_playback_speed(&mut self, speed: f32) {
        self.behaviour.driver_mut().instance_mut().set_speed(speed);
    }
    /// IK inputs (`None` when the rig policy has nothing to do on this skeleton).
    pub fn ik_inputs_mut(&mut self) -> Option<&mut IkInputs> {
        self.ik.as_mut().map(IkStage::inputs_mut)
    }
    /// The ground under the feet (foot planting, and the surface of footstep sounds).
    pub fn set_ground(&mut self, ground: Option<Arc<dyn GroundProbe + Send + Sync>>) {
        if let Some(i) = self.ik_inputs_mut() {
            i.ground = ground;
        }
    }
    /// Look target in model space (`None`: the head returns to neutral).
    pub fn set_look_target(&mut self, target: Option<Vec3>) {
        if let Some(i) = self.ik_inputs_mut() {
            i.look_target = target;
        }
    }
    /// IK pose of the equipped item (hand grips), set by the game: it
    /// replaces the grips of the definition's `equipment` until cleared
    /// with `None`, which hands the hands back to them (or to nothing when
    /// the definition has no items).
    pub fn set_weapon_pose(&mut self, pose: Option<PoseSnapshot>) {
        if let Some(e) = &mut self.equipment {
            e.set_game_pose(pose.is_some());
        }
        if let Some(i) = self.ik_inputs_mut() {
            i.weapon_pose = pose;
        }
    }
    /// Ledge targets for the hands (left, right), model space.
    pub fn set_ledge_targets(&mut self, targets: [Option<HandTarget>; 2]) {
        if let Some(i) = self.ik_inputs_mut() {
            i.ledge_targets = targets;
        }
    }
    /// The tip target of the rig policy's chain number `chain` (its position
    /// in the policy's `chains`; [`Character::chain_index`] finds it by
    /// name), model space; `None` leaves the chain as animated. A chain the
    /// skeleton cannot run, or an index past the policy's chains, is ignored.
    pub fn set_chain_target(&mut self, chain: usize, target: Option<HandTarget>) {
        if let Some(slot) = self.ik_inputs_mut().and_then(|i| i.chain_targets.get_mut(chain)) {
            *slot = target;
        }
    }
    /// The index of the rig policy's chain called `name`, for
    /// [`Character::set_chain_target`] (`None` when the policy declares no
    /// such chain, or no IK behaviour runs on this skeleton).
    #[must_use]
    pub fn chain_index(&self, name: &str) -> Option<usize> {
        self.ik.as_ref().and_then(|ik| ik.rig().chain_index(name))
    }
    /// What [`update`](Self::update) computes past the local pose (default
    /// [`PoseOutput::Skinning`]). An engine that keeps its own joint
    /// hierarchy (Bevy's entities) needs only [`PoseOutput::Local`], which
    /// skips local-to-model, a tenth of a small rig's frame. A character with
    /// an IK stage computes model space anyway: its IK report and
    /// [`surface`](Self::surface) read the final model pose.
    ///
    /// The character holds matrices only for what it computes: lowering the
    /// output frees them (their readouts are empty until the next update),
    /// raising it allocates them (once, here; frames never allocate).
    pub fn set_output(&mut self, output: PoseOutput) {
        self.output = output;
        let computes = self.computes();
        self.pose.size_matrices(computes, self.def.skeleton.joint_count());
        self.computed = self.computed.min(computes);
    }
    /// What an update computes past the local pose: the output asked for,
    /// and model space at least with an IK stage.
    fn computes(&self) -> PoseOutput {
        if self.ik.is_some() { self.output.max(PoseOutput::Model) } else { self.output }
    }
    /// What [`update`](Self::update) computes past the local pose ([`Self::set_output`]).
    #[must_use]
    pub fn output(&self) -> PoseOutput {
        self.output
    }
    /// How much this character matters this frame, `0..=1` (1, the default:
    /// on screen and close; 0: far away or off screen; NaN counts as 0): the
    /// definition's [`LodSettings`](super::LodSettings) make it an update
    /// rate (every frame, every 2nd, 4th, 8th) and switch IK and the
    /// procedural fallback off when it is low. Skipped frames lose no time
    /// and no event (see [`super::lod`]). Set it every frame, before `update`.
    ///
    /// The first significance that lowers the rate allocates the two poses
    /// the character moves between (once; frames never allocate).
    pub fn set_significance(&mut self, significance: f32) {
        self.lod.set_significance(significance);
        self.lod.reserve(&self.def.settings.lod, &self.pose.local);
    }
    /// Overrides the significance's update rate (a [`LodBudget`](super::LodBudget)'s
    /// assignment; rounded up to one of [`LOD_RATES`](super::LOD_RATES));
    /// `None` goes back to the significance's.
    pub fn set_update_rate(&mut self, rate: Option<u8>) {
        self.lod.assign_rate(rate);
        self.lod.reserve(&self.def.settings.lod, &self.pose.local);
    }
    /// Which frame of its period this character is evaluated on: give the
    /// characters of a crowd different phases (their index:
    /// `Crowd::stagger_lod`) so skipped characters' work spreads over frames.
    pub fn set_lod_phase(&mut self, phase: u32) {
        self.lod.set_phase(phase);
    }

    // ---- engine side ---------------------------------------------------

    /// Advances the character by `dt` seconds and evaluates its pose: graph
    /// (and outgoing graph during a loadout switch), selector, events, pose,
    /// inertialization, IK, model space, skinning. Allocation-free (but the
    /// first evaluation of a character outside a crowd allocates its
    /// scratch, see [`crate::pose::Crowd`]).
    pub fn update(&mut self, dt: f32) -> Result<(), RuntimeError> {
        self.update_with(dt, None)
    }

    /// A scratch this character's updates can borrow
    /// ([`CrowdMember::update_lent`](crate::pose::CrowdMember::update_lent)):
    /// what a frame writes before it reads, so one serves, in turn, every
    /// character whose skeleton has as many joints. A [`Crowd`](crate::Crowd)
    /// lends its own; an engine that updates characters itself keeps one per
    /// thread (allocates).
    #[must_use]
    pub fn new_scratch(&self) -> PoseScratch {
        PoseScratch::for_character(self.def.skeleton.rest())
    }
    /// Whether this character's updates can borrow `scratch` (else they use
    /// the character's own, made at its first evaluation).
    #[must_use]
    pub fn can_borrow(&self, scratch: &PoseScratch) -> bool {
        scratch.fits_character(self.def.skeleton.joint_count())
    }

    /// [`update`](Self::update) with another character's scratch (when it fits).
    pub(crate) fn update_with(&mut self, dt: f32, lent: Option<&mut PoseScratch>) -> Result<(), RuntimeError> {
        let dt = if dt.is_finite() { dt.max(0.0) } else { 0.0 };
        let settings = &self.def.settings.lod;
        match self.lod.step(dt, settings) {
            LodStep::Evaluate { dt } => {
                let interpolate = settings.interpolate && self.lod.rate() > 1;
                if interpolate {
                    self.lod.begin(&mut self.pose.local);
                }
                self.advance(dt, lent, interpolate)
            }
            LodStep::Skip { weight } => {
                if self.def.settings.lod.interpolate && self.lod.show(&mut self.pose.local, weight) {
                    self.model_space()?;
                }
                Ok(())
            }
        }
    }

    /// Advances behaviour by `dt` and evaluates the pose; `interpolate`: the
    /// level of detail shows the first step towards it.
    fn advance(&mut self, dt: f32, lent: Option<&mut PoseScratch>, interpolate: bool) -> Result<(), RuntimeError> {
        let graph_t0 = self.behaviour.driver().instance().time();
        let previous_t0 = self.behaviour.previous_instance().map(GraphInstance::time);
        self.alpha = self.behaviour.update(dt, &mut self.frame, &mut self.previous_frame);
        if self.behaviour.previous_instance().is_none() || previous_t0.is_none() {
            self.previous_graph = None;
        }
        let selector_t0 = self.selector.as_ref().map_or(0.0, TagSelector::time);
        if let Some(s) = &mut self.selector {
            s.update(dt, &mut self.selector_frame);
        }
        let layer = selector_layer(self.selector.as_ref(), &self.selector_frame, self.behaviour.driver().instance());
        self.selector_weight = layer.map_or(0.0, |l| {
            let shown: f32 = l
                .frame
                .contributions
                .iter()
                .filter(|c| match c.source {
                    ContributionSource::Selector { row } => !l.tagged_only || l.table.is_tagged(row),
                    _ => false,
                })
                .map(|c| c.weight)
                .sum();
            l.weight * shown.min(1.0)
        });
        self.collect_events(self.time - graph_t0, self.time - selector_t0, self.time + f64::from(dt));
        // A few events a frame: kept in delivery order, so `events()` reads them as delivered.
        self.events.sort();
        self.time += f64::from(dt);
        if let (Some(e), Some(ik)) = (&mut self.equipment, &mut self.ik) {
            let instance = self.behaviour.driver().instance();
            e.tick(dt * instance.speed(), instance.slot_status().is_some(), ik.inputs_mut());
        }
        self.compose_pose(dt, lent)?;
        if interpolate {
            self.lod.end(&mut self.pose.local);
        }
        self.model_space()
    }

    /// Queues, at the character's time, the ends of what is in flight (see
    /// [`Character::retire`]): actions started, open notify windows, the slot's clip.
    pub(in crate::character) fn queue_in_flight_ends(&mut self) {
        let now = self.time;
        for w in self.watches.iter_mut() {
            if let Some(watch) = w.take()
                && matches!(watch.stage, WatchStage::Playing { .. })
            {
                let phase = BindingPhase::Cancel;
                let kind = EventKind::Binding { binding: watch.binding, phase };
                self.events.push(now, kind, Name::from_static(phase.tag()));
            }
        }
        self.windows.close(&mut self.events, now, |_| true);
        if let Some((kind, name)) = self.behaviour.driver().instance().slot_unreported_end() {
            self.events.push(now, kind, name);
        }
    }

    /// Prefetching for a crowd (hints that change nothing, see
    /// [`crate::pose::simd::prefetch`]), in three stages so that no stage
    /// waits on memory the stage before did not ask for: 0 (three members
    /// ahead) the boxes and arrays the character points to, 1 (two ahead)
    /// what those point to, 2 (the next) the buffers the frame works in.
    /// A character whose level of detail skips its next update gets only
    /// what a skipped frame touches: the shown pose, the pose it moves
    /// towards and the model-space matrices (a skipped character's graph,
    /// selector and cursors stay cold, so the crowd's bandwidth goes to the
    /// characters that evaluate).
    pub(crate) fn prefetch(&self, stage: u8) {
        let model = self.computed >= PoseOutput::Model;
        if !self.lod.due(&self.def.settings.lod) {
            if stage == 0 && self.def.settings.lod.interpolate {
                self.pose.prefetch_shown(model);
                self.lod.prefetch();
            }
            return;
        }
        match stage {
            0 => {
                self.behaviour.prefetch();
                if let Some(s) = &self.selector {
                    s.prefetch();
                }
                self.frame.prefetch();
                self.selector_frame.prefetch();
                self.events.prefetch();
                self.pose.prefetch(0, model);
            }
            1 => {
                self.behaviour.driver().instance().prefetch(0);
                self.pose.prefetch(1, model);
            }
            _ => {
                self.behaviour.driver().instance().prefetch(1);
                self.pose.prefetch(2, model);
                if self.lod.target_rate(&self.def.settings.lod) > 1 {
                    self.lod.prefetch();
                }
            }
        }
    }

    /// Prefetching for a crowd, before the stages of [`Character::prefetch`]:
    /// the lines of this value that an update reads. The value is about
    /// 4 KB (the humanoid's), but much of it is often cold: the selector,
    /// IK and equipment parts are empty for a character without them (the
    /// `many_foxes` Fox), and the window, watch and unbound-binding tables
    /// are read only when their events come. Fetching all of it, four
    /// characters ahead, spent a crowd's bandwidth on those lines.
    pub(crate) fn prefetch_own(&self) {
        use crate::pose::simd::prefetch;
        fn line<T>(v: &T) {
            prefetch(std::slice::from_ref(v), 64);
        }
        fn all<T>(v: &T) {
            prefetch(std::slice::from_ref(v), usize::MAX);
        }
        fn present<T>(v: &Option<T>) {
            match v {
                Some(x) => all(x),
                None => line(v),
            }
        }
        line(&self.def);
        line(&self.behaviour);
        line(&self.graph);
        line(&self.previous_graph);
        all(&self.frame);
        all(&self.previous_frame);
        all(&self.selector_frame);
        present(&self.selector);
        all(&self.pose);
        present(&self.ik);
        present(&self.equipment);
        present(&self.root_motion);
        all(&self.events);
        line(&self.windows);
        line(&self.selector_led);
        line(&self.watches);
        line(&self.tags);
        line(&self.entity_speed);
        line(&self.speed_given);
        line(&self.time);
        line(&self.alpha);
        line(&self.selector_weight);
        line(&self.output);
        line(&self.computed);
        all(&self.lod);
    }

    /// The scratch this character lends to the next members of a crowd run.
    pub(crate) fn scratch_mut(&mut self) -> Option<&mut PoseScratch> {
        self.pose.scratch_mut()
    }

    /// The pose at spawn. A crowd lends the scratch of each run's first
    /// character to the others (~17 KB on the humanoid): the one this
    /// evaluation used is dropped, and only the characters that need one
    /// allocate it again, at their first update.
    fn first_pose(&mut self) -> Result<(), RuntimeError> {
        self.evaluate_pose(0.0, None)?;
        self.pose.release_scratch();
        Ok(())
    }

    /// Composes, inertializes and applies IK to the local pose, then model space.
    fn evaluate_pose(&mut self, dt: f32, lent: Option<&mut PoseScratch>) -> Result<(), RuntimeError> {
        self.compose_pose(dt, lent)?;
        self.model_space()
    }

    /// Composes the local pose, then inertialization, IK and root motion.
    fn compose_pose(&mut self, dt: f32, mut lent: Option<&mut PoseScratch>) -> Result<(), RuntimeError> {
        let def = &*self.def;
        let full_detail = self.lod.full_detail(&def.settings.lod);
        let procedural = self.selector.as_ref().and_then(TagSelector::procedural).filter(|_| full_detail);
        let current = Stack {
            frame: &self.frame,
            masks: self.graph.map(|g| &def.graphs[g].masks),
            selector: selector_layer(self.selector.as_ref(), &self.selector_frame, self.behaviour.driver().instance()),
            procedural,
        };
        let previous = match self.behaviour.previous_instance() {
            Some(inst) if self.alpha < 1.0 => Some(Stack {
                frame: &self.previous_frame,
                masks: self.previous_graph.map(|g| &def.graphs[g].masks),
                selector: selector_layer(self.selector.as_ref(), &self.selector_frame, inst),
                procedural,
            }),
            _ => None,
        };
        self.pose.compose(def, &current, previous.as_ref().map(|p| (p, self.alpha)), lent.as_deref_mut())?;
        self.finish_pose(dt, full_detail, lent)
    }

    /// Moves this frame's graph and selector events into the character's
    /// queue (times converted to character time), applying the notify leader
    /// rule between the graph's base layer and the selector's layer (when
    /// the lead moves, at `now`, the loser's open windows end and the
    /// winner's begin), pairing window begins and ends, and advances the
    /// binding watches.
    fn collect_events(&mut self, graph_offset: f64, selector_offset: f64, now: f64) {
        let selector_leads = self.selector.is_some() && self.selector_weight >= 0.5;
        let lead_moved = selector_leads != self.selector_led;
        self.selector_led = selector_leads;
        let base = NotifySource::Graph { layer: 0 };
        if lead_moved {
            let loser = if selector_leads { base } else { NotifySource::Selector };
            self.windows.close(&mut self.events, now, |s| s == loser);
        }
        let instance = self.behaviour.driver_mut().instance_mut();
        let def = instance.definition().cloned();
        for e in instance.events() {
            let time = e.time + graph_offset;
            match e.kind {
                EventKind::TransitionStarted { layer, from, to, transition, exit_time } => {
                    for w in self.watches.iter_mut() {
                        let Some(watch) = w else { continue };
                        match watch.stage {
                            WatchStage::Playing { layer: l, state } if l == layer && state == from => {
                                let phase = if exit_time { BindingPhase::Complete } else { BindingPhase::Cancel };
                                let kind = EventKind::Binding { binding: watch.binding, phase };
                                self.events.push(time, kind, Name::from_static(phase.tag()));
                                *w = None;
                            }
                            WatchStage::Fired => {
                                let consumed = transition
                                    .and_then(|t| def.as_ref()?.graph().transitions.get(t as usize))
                                    .is_some_and(|t| {
                                        t.conditions.iter().any(|c| {
                                            c.parameter == watch.parameter && c.test == ConditionTest::Triggered
                                        })
                                    });
                                if consumed {
                                    let phase = BindingPhase::Start;
                                    let kind = EventKind::Binding { binding: watch.binding, phase };
                                    self.events.push(time, kind, Name::from_static(phase.tag()));
                                    watch.stage = WatchStage::Playing { layer, state: to };
                                }
                            }
                            WatchStage::Playing { .. } => {}
                        }
                    }
                }
                // The selector's layer leads the graph's base layer: the base's notifies yield to it.
                EventKind::Notify { source, .. }
                | EventKind::NotifyBegin { source, .. }
                | EventKind::NotifyEnd { source, .. }
                    if selector_leads && source == base =>
                {
                    continue;
                }
                _ => {}
            }
            self.windows.pass(&mut self.events, time, e.kind, e.name);
        }
        if lead_moved && !selector_leads {
            open_windows(&mut self.windows, &mut self.events, now, base, instance.open_windows(0), &self.def.clips);
        }
        self.events.count_dropped_n(instance.dropped_events());
        instance.clear_events();
        if let Some(s) = &mut self.selector {
            if selector_leads {
                for e in s.events() {
                    if e.kind.notify().is_some() {
                        self.windows.pass(&mut self.events, e.time + selector_offset, e.kind, e.name);
                    }
                }
                if lead_moved {
                    let source = NotifySource::Selector;
                    open_windows(&mut self.windows, &mut self.events, now, source, s.open_windows(), &self.def.clips);
                }
            }
            self.events.count_dropped_n(s.dropped_events());
            s.clear_events();
        }
    }

    fn finish_pose(&mut self, dt: f32, ik_on: bool, lent: Option<&mut PoseScratch>) -> Result<(), RuntimeError> {
        let def = &*self.def;
        let masks = self.graph.map(|g| &def.graphs[g].masks);
        self.pose.inertia.apply(&self.frame, masks, &mut self.pose.local, dt);
        if let Some(ik) = self.ik.as_mut().filter(|_| ik_on) {
            if let (Some(curve), Some([now, _])) = (def.hand_on_weapon_curve, self.pose.curves.as_deref()) {
                ik.inputs_mut().hand_on_weapon_weight = now.value_or(curve, 1.0);
            }
            ik.advance(dt);
            self.pose.apply_ik(def, ik, lent)?;
        }
        if let Some((ctx, motion)) = &mut self.root_motion {
            *motion = RootMotionJob {
                animations: &def.animations,
                frame: &self.frame,
                rest: def.skeleton.rest(),
                context: ctx,
            }
            .run()?;
        }
        Ok(())
    }

    /// Model-space and skinning matrices of the local pose.
    fn model_space(&mut self) -> Result<(), RuntimeError> {
        self.computed = self.computes();
        if self.computed == PoseOutput::Local {
            return Ok(());
        }
        let def = &*self.def;
        LocalToModelJob { skeleton: &def.skeleton, input: &self.pose.local, root: None, output: &mut self.pose.model }
            .run()?;
        if self.computed == PoseOutput::Skinning {
            skinning_matrices(&self.pose.model, def.skeleton.inverse_binds(), &mut self.pose.skin)?;
        }
        Ok(())
    }
}

/// Begins at `now` the windows `open` of `source` that the character has
/// not delivered open (a source that just took the notify lead).
fn open_windows(
    table: &mut WindowTable,
    events: &mut EventQueue,
    now: f64,
    source: NotifySource,
    open: impl Iterator<Item = (crate::character::graph::ClipId, u16)>,
    clips: &crate::character::graph::ClipTable,
) {
    for (clip, notify) in open {
        table.pass(events, now, EventKind::NotifyBegin { source, clip, notify }, clips.notify_name(clip, notify));
    }
}

/// The selector's layer over the base of `instance`'s graph: weighted by the
/// base layer's entry-state weight and showing only tagged rows when there is
/// a graph; the whole selector at weight 1 without one.
fn selector_layer<'a>(
    selector: Option<&'a TagSelector>,
    frame: &'a FrameOutput,
    instance: &GraphInstance,
) -> Option<SelectorLayer<'a>> {
    let s = selector?;
    let (weight, tagged_only) = match instance.definition() {
        None => (1.0, false),
        Some(d) => {
            let entry = d.graph().layers.first().map(|l| l.entry);
            let w: f32 = instance.active_states(0).filter(|a| Some(a.state) == entry).map(|a| a.weight).sum();
            (w.clamp(0.0, 1.0), true)
        }
    };
    Some(SelectorLayer { frame, table: s.table(), weight, tagged_only })
}

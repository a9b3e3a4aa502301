//! The loadout: a character's weapon classes (the authored
//! [`PlayerProfileSet`], compiled once into a [`CompiledLoadout`]) and the
//! per-character [`Loadout`] that switches between them. Equipping a weapon class
//! switches the character to that class's graph and binding profile (falling
//! back to the set's default class), and unequipping returns to the unarmed
//! baseline — cross-fading between the two graphs rather than popping.
//!
//! While the switch blends, the outgoing graph keeps running (its events are
//! discarded so a footstep does not fire twice); its layers follow the new
//! graph's in the frame output with weights scaled by `1 − α`, the new graph's
//! by `α`. Its masks refer to [`Loadout::previous_definition`].
//! An entry without a graph (a tag-driven class) keeps the current graph and
//! only changes the binding profile; its animation profile id is reported in
//! [`LoadoutChange`] for the caller's selector.

use std::collections::HashMap;
use std::sync::Arc;

use zoa_anim_core::contracts::{AnimationDriver, SharedBindingProfile};
use zoa_anim_core::{PlayerProfileSet, PlayerProfileType};

use crate::character::driver::GraphDriver;
use crate::character::events::EventQueue;
use crate::character::fade::Fade;
use crate::character::graph::{ClipContribution, ClipTable, FrameOutput, GraphDefinition, GraphInstance, ParamValue};
use crate::error::RuntimeError;

/// What an equip or unequip did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadoutChange {
    /// Class asked for.
    pub requested: PlayerProfileType,
    /// Class whose entry is used (the set's default when `requested` has none).
    pub class: PlayerProfileType,
    /// Binding profile now loaded.
    pub binding_profile: String,
    /// The class's animation profile (tag-driven selection), if any.
    pub animation_profile: Option<String>,
    /// Whether the graph changed (and a cross-fade started).
    pub graph_changed: bool,
}

/// One class of a [`CompiledLoadout`], its ids resolved to what they name.
#[derive(Clone)]
pub struct LoadoutClass {
    /// The weapon class.
    pub class: PlayerProfileType,
    /// Its graph (index into [`CompiledLoadout::graphs`]); `None` keeps the current graph.
    pub graph: Option<usize>,
    /// Its binding profile.
    pub binding_profile: SharedBindingProfile,
    /// Its animation profile (tag table) id, if any.
    pub animation_profile: Option<String>,
    /// Its tag table, as an index the caller gave at compile time.
    pub tag_table: Option<usize>,
}

impl std::fmt::Debug for LoadoutClass {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LoadoutClass")
            .field("class", &self.class)
            .field("graph", &self.graph)
            .field("binding_profile", &self.binding_profile.profile_id())
            .field("animation_profile", &self.animation_profile)
            .field("tag_table", &self.tag_table)
            .finish()
    }
}

/// A [`PlayerProfileSet`] compiled once: every class's graph, binding
/// profile and tag table resolved, so that spawning and equipping look
/// nothing up by name. Shared (`Arc`) by every character of a definition.
#[derive(Debug, Clone)]
pub struct CompiledLoadout {
    /// The set's id.
    pub id: String,
    /// The default class (its entry is what unknown classes fall back to).
    pub default: PlayerProfileType,
    /// The classes, in the set's order.
    pub classes: Vec<LoadoutClass>,
    /// The graphs the classes name, `(id, graph)`.
    pub graphs: Vec<(String, Arc<GraphDefinition>)>,
    /// Layers and contributions a frame of the largest graph can hold.
    frame: (usize, usize),
}

impl CompiledLoadout {
    /// Compiles `set`: `graphs` are the graphs its classes may name, `binding`
    /// finds a binding profile by id, `table` a tag table index by
    /// animation profile id. Every class's graph and binding profile must
    /// resolve and the default class must have an entry; every problem is
    /// reported at once.
    pub fn compile(
        set: &PlayerProfileSet,
        graphs: Vec<(String, Arc<GraphDefinition>)>,
        binding: impl Fn(&str) -> Option<SharedBindingProfile>,
        table: impl Fn(&str) -> Option<usize>,
    ) -> Result<CompiledLoadout, RuntimeError> {
        let mut reasons = Vec::new();
        let mut classes = Vec::with_capacity(set.profiles.len());
        for e in &set.profiles {
            let profile = binding(&e.binding_profile);
            if profile.is_none() {
                reasons.push(format!("class {}: binding profile `{}` is not loaded", e.class, e.binding_profile));
            }
            let graph = e.animation_graph.as_ref().map(|g| graphs.iter().position(|(id, _)| id == g).ok_or(g));
            if let Some(Err(g)) = &graph {
                reasons.push(format!("class {}: animation graph `{g}` is not loaded", e.class));
            }
            if let Some(profile) = profile {
                classes.push(LoadoutClass {
                    class: e.class,
                    graph: graph.and_then(Result::ok),
                    binding_profile: profile,
                    animation_profile: e.animation_profile.clone(),
                    tag_table: e.animation_profile.as_deref().and_then(&table),
                });
            }
        }
        if set.resolve_profile(set.default_profile).is_none() {
            reasons.push(format!("the default class {} has no entry", set.default_profile));
        }
        RuntimeError::check("profile set", reasons)?;
        let (mut layers, mut contributions) = (0, 0);
        for (_, def) in &graphs {
            let o = GraphInstance::new(Arc::clone(def)).new_output();
            layers = layers.max(o.layers.capacity());
            contributions = contributions.max(o.contributions.capacity());
        }
        let frame = (layers, contributions);
        Ok(CompiledLoadout { id: set.id.clone(), default: set.default_profile, classes, graphs, frame })
    }

    /// The entry `class` uses: its own, else the default class's.
    #[must_use]
    pub fn resolve(&self, class: PlayerProfileType) -> Option<&LoadoutClass> {
        let find = |c| self.classes.iter().find(|e| e.class == c);
        find(class).or_else(|| find(self.default))
    }

    /// Output buffers big enough for the largest graph, twice (for the
    /// switch blend of [`Loadout::update`]).
    #[must_use]
    pub fn new_output(&self) -> FrameOutput {
        FrameOutput::with_capacity(2 * self.frame.0, 2 * self.frame.1)
    }

    /// Output buffers big enough for one frame of any of its graphs (one
    /// side of [`Loadout::update_split`]).
    #[must_use]
    pub fn graph_output(&self) -> FrameOutput {
        FrameOutput::with_capacity(self.frame.0, self.frame.1)
    }
}

/// One character's loadout: the class in use, the driver over its graph,
/// and the outgoing graph while a switch blends.
pub struct Loadout {
    compiled: Arc<CompiledLoadout>,
    driver: GraphDriver,
    graph: Option<usize>,
    class: PlayerProfileType,
    /// The outgoing graph and its frame while a switch blends (boxed: a
    /// character spends most frames without one, and a switch allocates anyway).
    previous: Option<Box<(GraphInstance, FrameOutput)>>,
    fade: Fade,
    crossfade: f32,
}

impl std::fmt::Debug for Loadout {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Loadout")
            .field("set", &self.compiled.id)
            .field("class", &self.class)
            .field("graph_id", &self.graph_id())
            .field("driver", &self.driver)
            .field("switch_alpha", &self.switch_alpha())
            .finish_non_exhaustive()
    }
}

impl Loadout {
    /// Compiles `set` over `graphs` and `bindings` (by id) and starts on its
    /// default class, which must have a graph; every problem is reported at
    /// once. `crossfade` is the switch blend in seconds (`>= 0`). (A
    /// character definition compiles its loadout once and spawns with
    /// [`Loadout::start`].)
    pub fn new(
        set: PlayerProfileSet,
        graphs: HashMap<String, Arc<GraphDefinition>>,
        bindings: HashMap<String, SharedBindingProfile>,
        crossfade: f32,
    ) -> Result<Loadout, RuntimeError> {
        let mut graphs: Vec<(String, Arc<GraphDefinition>)> = graphs.into_iter().collect();
        graphs.sort_by(|a, b| a.0.cmp(&b.0));
        match CompiledLoadout::compile(&set, graphs, |id| bindings.get(id).cloned(), |_| None) {
            Ok(compiled) => Loadout::start(Arc::new(compiled), set.default_profile, None, crossfade),
            Err(RuntimeError::InvalidJob { job, mut reasons }) => {
                // Every problem at once: the ones `start` would find too.
                if set.resolve_profile(set.default_profile).is_some_and(|e| e.animation_graph.is_none()) {
                    reasons.push(format!("the class {} has no entry with a graph", set.default_profile));
                }
                Err(RuntimeError::InvalidJob { job, reasons })
            }
            Err(e) => Err(e),
        }
    }

    /// Starts on `class` (its entry, else the default's). Without `clips`
    /// its entry must have a graph; with them (the table every graph was
    /// compiled against) a class without one starts graphless
    /// ([`GraphInstance::without_graph`]) until a class with a graph is
    /// equipped.
    pub fn start(
        compiled: Arc<CompiledLoadout>,
        class: PlayerProfileType,
        clips: Option<Arc<ClipTable>>,
        crossfade: f32,
    ) -> Result<Loadout, RuntimeError> {
        let mut reasons = Vec::new();
        let entry = compiled.resolve(class);
        if entry.is_none() {
            reasons.push(format!("the default class {} has no entry", compiled.default));
        }
        let graph = entry.and_then(|e| e.graph);
        if graph.is_none() && clips.is_none() && entry.is_some() {
            reasons.push(format!("the class {class} has no entry with a graph"));
        }
        if !(crossfade.is_finite() && crossfade >= 0.0) {
            reasons.push(format!("crossfade {crossfade} must be finite and >= 0"));
        }
        RuntimeError::check("profile set", reasons)?;
        let instance = match (graph.map(|g| &compiled.graphs[g].1), clips) {
            (Some(def), _) => GraphInstance::new(Arc::clone(def)),
            (None, Some(clips)) => GraphInstance::without_graph(clips),
            (None, None) => unreachable!("checked above: a class without a graph needs a clip table"),
        }
        .with_event_capacity(EventQueue::STAGING_CAPACITY);
        let mut driver = GraphDriver::new(instance);
        let class = entry.map_or(class, |e| e.class);
        if let Some(e) = entry {
            driver.load_profile(Arc::clone(&e.binding_profile));
        }
        Ok(Loadout { compiled, driver, graph, class, previous: None, fade: Fade::default(), crossfade })
    }

    /// The class in use.
    #[must_use]
    pub fn class(&self) -> PlayerProfileType {
        self.class
    }
    /// Id of the graph in use (empty while the class has none).
    #[must_use]
    pub fn graph_id(&self) -> &str {
        self.graph.map_or("", |g| self.compiled.graphs[g].0.as_str())
    }
    /// Index of the graph in use among [`CompiledLoadout::graphs`].
    #[must_use]
    pub fn graph_index(&self) -> Option<usize> {
        self.graph
    }
    /// The entry of the class in use.
    #[must_use]
    pub fn current(&self) -> Option<&LoadoutClass> {
        self.compiled.resolve(self.class)
    }
    /// The graph in use (`None` while the class has none).
    #[must_use]
    pub fn graph(&self) -> Option<&Arc<GraphDefinition>> {
        self.driver.instance().definition()
    }
    /// The outgoing graph instance while a switch blends.
    #[must_use]
    pub fn previous_instance(&self) -> Option<&GraphInstance> {
        self.previous.as_deref().map(|(i, _)| i)
    }
    /// The compiled loadout.
    #[must_use]
    pub fn compiled(&self) -> &Arc<CompiledLoadout> {
        &self.compiled
    }
    /// The driver over the current graph instance.
    #[must_use]
    pub fn driver(&self) -> &GraphDriver {
        &self.driver
    }
    /// The driver, to set parameters and play slots.
    pub fn driver_mut(&mut self) -> &mut GraphDriver {
        &mut self.driver
    }
    /// The outgoing graph while a switch blends.
    #[must_use]
    pub fn previous_definition(&self) -> Option<&Arc<GraphDefinition>> {
        self.previous.as_deref().and_then(|(i, _)| i.definition())
    }
    /// Switch blend progress `0..=1` (1 when no switch is blending).
    #[must_use]
    pub fn switch_alpha(&self) -> f32 {
        if self.previous.is_some() { self.fade.alpha() } else { 1.0 }
    }

    /// Output buffers big enough for the largest graph, twice (for the switch blend).
    #[must_use]
    pub fn new_output(&self) -> FrameOutput {
        self.compiled.new_output()
    }

    /// Equips `class`: loads its binding profile and, when its graph differs,
    /// starts the new graph (carrying over same-named float, int and bool
    /// values) and cross-fades from the old one.
    pub fn equip(&mut self, class: PlayerProfileType) -> LoadoutChange {
        let compiled = Arc::clone(&self.compiled);
        let Some(entry) = compiled.resolve(class) else {
            // `start` checked that the default class resolves, so this cannot happen;
            // report "nothing changed" rather than panic.
            return LoadoutChange {
                requested: class,
                class: self.class,
                binding_profile: self.driver.active_profile().map(|p| p.profile_id().to_owned()).unwrap_or_default(),
                animation_profile: None,
                graph_changed: false,
            };
        };
        let mut graph_changed = false;
        if let Some(g) = entry.graph
            && Some(g) != self.graph
        {
            let mut next =
                GraphInstance::new(Arc::clone(&compiled.graphs[g].1)).with_event_capacity(EventQueue::STAGING_CAPACITY);
            next.set_speed(self.driver.instance().speed());
            copy_parameters(self.driver.instance(), &mut next);
            let old = std::mem::replace(self.driver.instance_mut(), next);
            let scratch = old.new_output();
            self.previous = Some(Box::new((old, scratch)));
            self.fade = Fade::new(self.crossfade);
            self.graph = Some(g);
            graph_changed = true;
        }
        // Rebinding also re-maps parameter indices against the (possibly new) graph.
        self.driver.load_profile(Arc::clone(&entry.binding_profile));
        self.class = entry.class;
        LoadoutChange {
            requested: class,
            class: entry.class,
            binding_profile: entry.binding_profile.profile_id().to_owned(),
            animation_profile: entry.animation_profile.clone(),
            graph_changed,
        }
    }

    /// Unequips: back to the unarmed baseline (or the default class).
    pub fn unequip(&mut self) -> LoadoutChange {
        self.equip(PlayerProfileType::Unarmed)
    }

    /// Updates the current graph into `current` and, while a switch blends,
    /// the outgoing one into `previous` (cleared otherwise), each frame at its
    /// own weights; returns the switch blend progress `α` (1 when none): a
    /// pose engine blends the outgoing graph's pose by `1 − α` over the new
    /// one's, each evaluated with its own graph's masks. Allocation-free with
    /// outputs from [`new_output`](Self::new_output).
    pub fn update_split(&mut self, dt: f32, current: &mut FrameOutput, previous: &mut FrameOutput) -> f32 {
        self.driver.instance_mut().update(dt, current);
        previous.clear();
        let Some((prev, _)) = self.previous.as_deref_mut() else { return 1.0 };
        let speed = self.driver.instance().speed();
        self.fade.advance(if dt.is_finite() { dt.max(0.0) } else { 0.0 } * speed);
        let alpha = self.fade.alpha();
        if alpha >= 1.0 {
            self.previous = None;
            return 1.0;
        }
        prev.update(dt, previous);
        prev.clear_events();
        alpha
    }

    /// Updates the current graph (and the outgoing one while the switch
    /// blends) and writes the combined frame into `out`.
    pub fn update(&mut self, dt: f32, out: &mut FrameOutput) {
        let mut scratch = self.previous.as_deref_mut().map(|(_, s)| std::mem::take(s)).unwrap_or_default();
        let alpha = self.update_split(dt, out, &mut scratch);
        let Some((_, kept)) = self.previous.as_deref_mut() else { return };
        *kept = scratch;
        let scratch = &*kept;
        for l in out.layers.iter_mut() {
            l.weight *= alpha;
        }
        for c in out.contributions.iter_mut() {
            c.weight *= alpha;
        }
        for (i, l) in scratch.layers.iter().enumerate() {
            if !out.begin_layer(l.layer, l.weight * (1.0 - alpha), l.blend_mode, l.mask) {
                continue;
            }
            if let Some(last) = out.layers.last_mut() {
                last.inertialization = l.inertialization;
            }
            for c in scratch.layer_contributions(i) {
                out.push(ClipContribution { weight: c.weight * (1.0 - alpha), ..*c });
            }
        }
    }
}

fn copy_parameters(from: &GraphInstance, to: &mut GraphInstance) {
    let (Some(src), Some(dst)) = (from.definition(), to.definition()) else { return };
    let (src, dst) = (Arc::clone(src), Arc::clone(dst));
    for (i, p) in dst.graph().parameters.iter().enumerate() {
        let Some(j) = src.graph().parameter(&p.name) else { continue };
        let idx = zoa_anim_core::graph::ParameterIndex(i as u16);
        match (from.parameters().get(j), to.parameters().get(idx)) {
            (Some(ParamValue::Float(v)), Some(ParamValue::Float(_))) => {
                to.parameters_mut().set_float(idx, v);
            }
            (Some(ParamValue::Int(v)), Some(ParamValue::Int(_))) => {
                to.parameters_mut().set_int(idx, v);
            }
            (Some(ParamValue::Bool(v)), Some(ParamValue::Bool(_))) => {
                to.parameters_mut().set_bool(idx, v);
            }
            _ => {}
        }
    }
}

//! Player animation profile sets: equipping a weapon class
//! switches the character to that class's graph and binding profile (falling
//! back to the set's default class), and unequipping returns to the unarmed
//! baseline — cross-fading between the two graphs rather than popping.
//!
//! While the switch blends, the outgoing graph keeps running (its events are
//! discarded so a footstep does not fire twice); its layers follow the new
//! graph's in the frame output with weights scaled by `1 − α`, the new graph's
//! by `α`. Its masks refer to [`ProfileSetSwitcher::previous_definition`].
//! An entry without a graph (a tag-driven class) keeps the current graph and
//! only changes the binding profile; its animation profile id is reported in
//! [`LoadoutChange`] for the caller's selector.

use std::collections::HashMap;
use std::sync::Arc;

use zoa_anim_core::contracts::{AnimationDriver, SharedBindingProfile};
use zoa_anim_core::{PlayerProfileSet, PlayerProfileType};

use crate::driver::GraphDriver;
use crate::error::RuntimeError;
use crate::fade::Fade;
use crate::graph::{ClipContribution, ClipTable, FrameOutput, GraphDefinition, GraphInstance, ParamValue};

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

/// Switches a character between the classes of a [`PlayerProfileSet`].
pub struct ProfileSetSwitcher {
    set: PlayerProfileSet,
    graphs: HashMap<String, Arc<GraphDefinition>>,
    bindings: HashMap<String, SharedBindingProfile>,
    driver: GraphDriver,
    graph_id: String,
    class: PlayerProfileType,
    previous: Option<(GraphInstance, FrameOutput)>,
    fade: Fade,
    crossfade: f32,
}

impl std::fmt::Debug for ProfileSetSwitcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProfileSetSwitcher")
            .field("set", &self.set.id)
            .field("class", &self.class)
            .field("graph_id", &self.graph_id)
            .field("driver", &self.driver)
            .field("switch_alpha", &self.switch_alpha())
            .finish_non_exhaustive()
    }
}

impl ProfileSetSwitcher {
    /// Starts on the set's default class. Every graph and binding-profile id
    /// the set references must be in `graphs` / `bindings`, and the default
    /// class must have a graph; every problem is reported at once.
    /// `crossfade` is the switch blend in seconds (`>= 0`).
    pub fn new(
        set: PlayerProfileSet,
        graphs: HashMap<String, Arc<GraphDefinition>>,
        bindings: HashMap<String, SharedBindingProfile>,
        crossfade: f32,
    ) -> Result<ProfileSetSwitcher, RuntimeError> {
        Self::build(set, graphs, bindings, None, crossfade)
    }

    /// Like [`new`](Self::new), but the default class may have no graph: the
    /// character then starts without one ([`GraphInstance::without_graph`]
    /// over `clips`, which must be the table every graph was compiled against)
    /// until a class with a graph is equipped.
    pub fn with_clips(
        set: PlayerProfileSet,
        graphs: HashMap<String, Arc<GraphDefinition>>,
        bindings: HashMap<String, SharedBindingProfile>,
        clips: Arc<ClipTable>,
        crossfade: f32,
    ) -> Result<ProfileSetSwitcher, RuntimeError> {
        Self::build(set, graphs, bindings, Some(clips), crossfade)
    }

    fn build(
        set: PlayerProfileSet,
        graphs: HashMap<String, Arc<GraphDefinition>>,
        bindings: HashMap<String, SharedBindingProfile>,
        clips: Option<Arc<ClipTable>>,
        crossfade: f32,
    ) -> Result<ProfileSetSwitcher, RuntimeError> {
        let mut reasons = Vec::new();
        for e in &set.profiles {
            if !bindings.contains_key(&e.binding_profile) {
                reasons.push(format!("class {}: binding profile `{}` is not loaded", e.class, e.binding_profile));
            }
            if let Some(g) = &e.animation_graph
                && !graphs.contains_key(g)
            {
                reasons.push(format!("class {}: animation graph `{g}` is not loaded", e.class));
            }
        }
        let default = set.resolve_profile(set.default_profile);
        if default.is_none() {
            reasons.push(format!("the default class {} has no entry", set.default_profile));
        }
        let graph_id = default.and_then(|e| e.animation_graph.clone());
        if graph_id.is_none() && clips.is_none() && default.is_some() {
            reasons.push(format!("the default class {} has no entry with a graph", set.default_profile));
        }
        if !(crossfade.is_finite() && crossfade >= 0.0) {
            reasons.push(format!("crossfade {crossfade} must be finite and >= 0"));
        }
        RuntimeError::check("profile set", reasons)?;
        let class = set.default_profile;
        let instance = match (graph_id.as_ref().and_then(|g| graphs.get(g)), clips) {
            (Some(def), _) => GraphInstance::new(Arc::clone(def)),
            (None, Some(clips)) => GraphInstance::without_graph(clips),
            (None, None) => unreachable!("checked above: a default class without a graph needs a clip table"),
        };
        let mut driver = GraphDriver::new(instance);
        if let Some(b) = default.and_then(|e| bindings.get(&e.binding_profile)) {
            driver.load_profile(Arc::clone(b));
        }
        Ok(ProfileSetSwitcher {
            set,
            graphs,
            bindings,
            driver,
            graph_id: graph_id.unwrap_or_default(),
            class,
            previous: None,
            fade: Fade::default(),
            crossfade,
        })
    }

    /// The class in use.
    #[must_use]
    pub fn class(&self) -> PlayerProfileType {
        self.class
    }
    /// Id of the graph in use (empty while the class has none).
    #[must_use]
    pub fn graph_id(&self) -> &str {
        &self.graph_id
    }
    /// The graph in use (`None` while the class has none).
    #[must_use]
    pub fn graph(&self) -> Option<&Arc<GraphDefinition>> {
        self.driver.instance().definition()
    }
    /// The outgoing graph instance while a switch blends.
    #[must_use]
    pub fn previous_instance(&self) -> Option<&GraphInstance> {
        self.previous.as_ref().map(|(i, _)| i)
    }
    /// The player profile set.
    #[must_use]
    pub fn set(&self) -> &PlayerProfileSet {
        &self.set
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
        self.previous.as_ref().and_then(|(i, _)| i.definition())
    }
    /// Switch blend progress `0..=1` (1 when no switch is blending).
    #[must_use]
    pub fn switch_alpha(&self) -> f32 {
        if self.previous.is_some() { self.fade.alpha() } else { 1.0 }
    }

    /// Output buffers big enough for the largest graph of the set, twice (for the switch blend).
    #[must_use]
    pub fn new_output(&self) -> FrameOutput {
        let (mut layers, mut contributions) = (0, 0);
        for def in self.graphs.values() {
            let o = GraphInstance::new(Arc::clone(def)).new_output();
            layers = layers.max(o.layers.capacity());
            contributions = contributions.max(o.contributions.capacity());
        }
        FrameOutput::with_capacity(2 * layers, 2 * contributions)
    }

    /// Equips `class`: loads its binding profile and, when its graph differs,
    /// starts the new graph (carrying over same-named float, int and bool
    /// values) and cross-fades from the old one.
    pub fn equip(&mut self, class: PlayerProfileType) -> LoadoutChange {
        let entry = self.set.resolve_profile(class).cloned();
        let Some(entry) = entry else {
            // `new` checked that the default class resolves, so this cannot happen;
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
        if let Some(g) = &entry.animation_graph
            && *g != self.graph_id
            && let Some(def) = self.graphs.get(g)
        {
            let mut next = GraphInstance::new(Arc::clone(def));
            next.set_speed(self.driver.instance().speed());
            copy_parameters(self.driver.instance(), &mut next);
            let old = std::mem::replace(self.driver.instance_mut(), next);
            let scratch = old.new_output();
            self.previous = Some((old, scratch));
            self.fade = Fade::new(self.crossfade);
            self.graph_id = g.clone();
            graph_changed = true;
        }
        if let Some(b) = self.bindings.get(&entry.binding_profile) {
            // Rebinding also re-maps parameter indices against the (possibly new) graph.
            self.driver.load_profile(Arc::clone(b));
        }
        self.class = entry.class;
        LoadoutChange {
            requested: class,
            class: entry.class,
            binding_profile: entry.binding_profile,
            animation_profile: entry.animation_profile,
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
        let Some((prev, _)) = self.previous.as_mut() else { return 1.0 };
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
        let mut scratch = self.previous.as_mut().map(|(_, s)| std::mem::take(s)).unwrap_or_default();
        let alpha = self.update_split(dt, out, &mut scratch);
        let Some((_, kept)) = self.previous.as_mut() else { return };
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

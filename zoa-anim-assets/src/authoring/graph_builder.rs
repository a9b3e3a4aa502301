//! Animation graph builder: the
//! shared plumbing generators sit on — idempotent parameter, layer and state
//! creation, 1D and 2D blend trees, trigger / any-state / exit-time / bool
//! transitions — producing a core [`AnimationGraph`] and its TOML form.
//!
//! **Idempotent** means calling a method again with the same arguments
//! changes nothing and returns the same index: a generator can be re-run
//! over a graph, or two generators can both declare `speed`. Redeclaring a
//! name with a different meaning (a `bool` parameter as `float`, a state on
//! another layer) is an error, not a silent overwrite.
//!
//! [`graph_toml`] writes the graph so that [`crate::defs::load_folder`] reads
//! back exactly the same [`AnimationGraph`] (every field written explicitly).
//! [`locomotion_weapon_graph`] is the generator: locomotion from the default
//! class's slots, weapon actions on an additive layer from the weapon
//! classes' slots.

use zoa_anim_core::graph::{
    AnimationGraph, BlendChild, BlendMode, BlendTree, BlendTreeKind, BoneMask, CompareOp, Condition, ConditionTest,
    Crossfade, GraphLayer, GraphParameter, GraphState, GraphTransition, Interruption, Motion, ParameterDefault,
    ParameterIndex, StateIndex, TransitionMode, TransitionSource, Weighting2D,
};
use zoa_anim_core::{AnimationBindingProfile, PlayerProfileSet, PlayerProfileType};

use crate::AssetError;
use crate::defs::DefinitionSet;

/// Builds an [`AnimationGraph`] step by step (see the module docs).
#[derive(Debug, Clone)]
pub struct GraphBuilder {
    graph: AnimationGraph,
    /// Per layer: whether its entry was set explicitly (else its first state).
    entry_set: Vec<bool>,
}

impl GraphBuilder {
    /// A graph `id` for `model` (path relative to the definition folder) with
    /// the implicit `base` layer.
    #[must_use]
    pub fn new(id: &str, model: &str) -> Self {
        let base = GraphLayer {
            name: "base".into(),
            entry: StateIndex(0),
            weight: 1.0,
            blend_mode: BlendMode::Override,
            bone_mask: None,
        };
        GraphBuilder {
            graph: AnimationGraph {
                id: id.to_owned(),
                model: model.to_owned(),
                parameters: Vec::new(),
                layers: vec![base],
                states: Vec::new(),
                transitions: Vec::new(),
            },
            entry_set: vec![false],
        }
    }

    fn err(&self, reason: String) -> AssetError {
        AssetError::InvalidGraph { graph: self.graph.id.clone(), reason }
    }

    /// Declares a parameter; the same name again with the same type returns
    /// the existing index (its default is kept).
    pub fn parameter(&mut self, name: &str, default: ParameterDefault) -> Result<ParameterIndex, AssetError> {
        if let Some(i) = self.graph.parameter(name) {
            let have = self.graph.parameters[i.index()].default;
            if have.type_name() != default.type_name() {
                return Err(self.err(format!(
                    "parameter `{name}` is a {}, redeclared as a {}",
                    have.type_name(),
                    default.type_name()
                )));
            }
            return Ok(i);
        }
        if self.graph.parameters.len() >= usize::from(u16::MAX) {
            return Err(self.err("too many parameters".into()));
        }
        self.graph.parameters.push(GraphParameter { name: name.to_owned(), default });
        Ok(ParameterIndex((self.graph.parameters.len() - 1) as u16))
    }

    /// Declares a layer above the base layer (or returns the existing one of that name).
    pub fn layer(
        &mut self,
        name: &str,
        weight: f32,
        blend_mode: BlendMode,
        bone_mask: Option<BoneMask>,
    ) -> Result<usize, AssetError> {
        if let Some(i) = self.graph.layer(name) {
            let l = &self.graph.layers[i];
            if i > 0 && (l.weight != weight || l.blend_mode != blend_mode || l.bone_mask != bone_mask) {
                return Err(self.err(format!("layer `{name}` redeclared with other settings")));
            }
            return Ok(i);
        }
        if !(0.0..=1.0).contains(&weight) {
            return Err(self.err(format!("layer `{name}` weight {weight} is outside 0..=1")));
        }
        self.graph.layers.push(GraphLayer {
            name: name.to_owned(),
            entry: StateIndex(0),
            weight,
            blend_mode,
            bone_mask,
        });
        self.entry_set.push(false);
        Ok(self.graph.layers.len() - 1)
    }

    fn state(&mut self, layer: usize, name: &str, motion: Motion, looping: bool) -> Result<StateIndex, AssetError> {
        if layer >= self.graph.layers.len() {
            return Err(self.err(format!("state `{name}`: no layer {layer}")));
        }
        if name == "any" {
            return Err(self.err("`any` is reserved for any-state transitions".into()));
        }
        if let Some(i) = self.graph.state(name) {
            let s = &self.graph.states[i.index()];
            if s.layer != layer || s.motion != motion || s.looping != looping {
                return Err(self.err(format!("state `{name}` redeclared with another layer, motion or loop")));
            }
            return Ok(i);
        }
        if self.graph.states.len() >= usize::from(u16::MAX) {
            return Err(self.err("too many states".into()));
        }
        self.graph.states.push(GraphState {
            name: name.to_owned(),
            layer,
            machine: None,
            motion,
            looping,
            speed: 1.0,
            crossfade: Crossfade { duration: 0.0, warp: false },
            weight: None,
            blend_mode: None,
            bone_mask: None,
            sync_group: None,
        });
        let idx = StateIndex((self.graph.states.len() - 1) as u16);
        if !self.entry_set[layer] && !self.graph.states.iter().take(idx.index()).any(|s| s.layer == layer) {
            self.graph.layers[layer].entry = idx;
        }
        Ok(idx)
    }

    /// A state playing one clip.
    pub fn clip_state(
        &mut self,
        layer: usize,
        name: &str,
        clip: &str,
        looping: bool,
    ) -> Result<StateIndex, AssetError> {
        self.state(layer, name, Motion::Clip(clip.to_owned()), looping)
    }

    fn number_param(&self, name: &str) -> Result<ParameterIndex, AssetError> {
        match self.graph.parameter(name) {
            Some(i) if self.graph.parameters[i.index()].default.is_number() => Ok(i),
            Some(_) => Err(self.err(format!("blend parameter `{name}` is not a float or int"))),
            None => Err(self.err(format!("blend parameter `{name}` is not declared"))),
        }
    }

    /// A looping 1D blend tree over `(clip, threshold)` (≥ 2 children; sorted by threshold).
    pub fn blend_1d(
        &mut self,
        layer: usize,
        name: &str,
        parameter: &str,
        children: &[(&str, f32)],
    ) -> Result<StateIndex, AssetError> {
        if children.len() < 2 {
            return Err(self.err(format!("1D blend `{name}` needs at least two children")));
        }
        let p = self.number_param(parameter)?;
        let mut kids: Vec<BlendChild> = children
            .iter()
            .map(|(c, t)| BlendChild {
                motion: Motion::Clip((*c).to_owned()),
                threshold: *t,
                threshold_y: None,
                weight: None,
            })
            .collect();
        kids.sort_by(|a, b| a.threshold.total_cmp(&b.threshold));
        let tree = BlendTree {
            kind: BlendTreeKind::OneD,
            parameter: Some(p),
            parameter_y: None,
            weighting: Weighting2D::default(),
            children: kids,
        };
        self.state(layer, name, Motion::BlendTree(tree), true)
    }

    /// A looping 2D blend tree over `(clip, x, y)` (≥ 1 child).
    pub fn blend_2d(
        &mut self,
        layer: usize,
        name: &str,
        parameter_x: &str,
        parameter_y: &str,
        children: &[(&str, f32, f32)],
    ) -> Result<StateIndex, AssetError> {
        if children.is_empty() {
            return Err(self.err(format!("2D blend `{name}` needs a child")));
        }
        let px = self.number_param(parameter_x)?;
        let py = self.number_param(parameter_y)?;
        let kids = children
            .iter()
            .map(|(c, x, y)| BlendChild {
                motion: Motion::Clip((*c).to_owned()),
                threshold: *x,
                threshold_y: Some(*y),
                weight: None,
            })
            .collect();
        let tree = BlendTree {
            kind: BlendTreeKind::TwoD,
            parameter: Some(px),
            parameter_y: Some(py),
            weighting: Weighting2D::default(),
            children: kids,
        };
        self.state(layer, name, Motion::BlendTree(tree), true)
    }

    /// Sets a state's entry crossfade.
    pub fn crossfade(&mut self, state: StateIndex, duration: f32, warp: bool) {
        self.graph.states[state.index()].crossfade = Crossfade { duration: duration.max(0.0), warp };
    }

    /// Sets a state's weight multiplier (`0..=1`, clamped).
    pub fn state_weight(&mut self, state: StateIndex, weight: f32) {
        self.graph.states[state.index()].weight = Some(weight.clamp(0.0, 1.0));
    }

    /// Makes `state` its layer's entry.
    pub fn entry(&mut self, state: StateIndex) {
        let layer = self.graph.states[state.index()].layer;
        self.graph.layers[layer].entry = state;
        self.entry_set[layer] = true;
    }

    fn transition(&mut self, t: GraphTransition) -> Result<(), AssetError> {
        let to_layer = self.graph.states[t.to.index()].layer;
        if let TransitionSource::State(from) = t.from
            && self.graph.states[from.index()].layer != to_layer
        {
            return Err(self.err(format!(
                "transition `{}` → `{}` crosses layers",
                self.graph.states[from.index()].name,
                self.graph.states[t.to.index()].name
            )));
        }
        if !self.graph.transitions.contains(&t) {
            self.graph.transitions.push(t);
        }
        Ok(())
    }

    fn base(from: TransitionSource, to: StateIndex, conditions: Vec<Condition>, blend: f32) -> GraphTransition {
        GraphTransition {
            from,
            to,
            conditions,
            exit_time: None,
            blend: blend.max(0.0),
            interruption: Interruption::None,
            mode: TransitionMode::Crossfade,
        }
    }

    /// `from → to` when trigger `trigger` fires (declared as a trigger if new).
    pub fn trigger_transition(
        &mut self,
        from: StateIndex,
        to: StateIndex,
        trigger: &str,
        blend: f32,
    ) -> Result<(), AssetError> {
        let p = self.parameter(trigger, ParameterDefault::Trigger)?;
        let c = Condition { parameter: p, test: ConditionTest::Triggered };
        self.transition(Self::base(TransitionSource::State(from), to, vec![c], blend))
    }

    /// `any → to` (any other state of `to`'s layer) when trigger `trigger` fires.
    pub fn any_state_transition(&mut self, to: StateIndex, trigger: &str, blend: f32) -> Result<(), AssetError> {
        let p = self.parameter(trigger, ParameterDefault::Trigger)?;
        let c = Condition { parameter: p, test: ConditionTest::Triggered };
        self.transition(Self::base(TransitionSource::Any, to, vec![c], blend))
    }

    /// `from → to` once `exit_time` (fraction `0..=1` of the source clip) is reached.
    pub fn exit_time_transition(
        &mut self,
        from: StateIndex,
        to: StateIndex,
        exit_time: f32,
        blend: f32,
    ) -> Result<(), AssetError> {
        let mut t = Self::base(TransitionSource::State(from), to, Vec::new(), blend);
        t.exit_time = Some(exit_time.clamp(0.0, 1.0));
        self.transition(t)
    }

    /// `from → to` when bool `parameter` is `value` (declared `false` if new).
    pub fn bool_transition(
        &mut self,
        from: StateIndex,
        to: StateIndex,
        parameter: &str,
        value: bool,
        blend: f32,
    ) -> Result<(), AssetError> {
        let p = self.parameter(parameter, ParameterDefault::Bool(false))?;
        let test = if value { ConditionTest::IsTrue } else { ConditionTest::IsFalse };
        self.transition(Self::base(TransitionSource::State(from), to, vec![Condition { parameter: p, test }], blend))
    }

    /// `from → to` when float `parameter` compares to `value` (declared `0` if new).
    pub fn float_transition(
        &mut self,
        from: StateIndex,
        to: StateIndex,
        parameter: &str,
        op: CompareOp,
        value: f32,
        blend: f32,
    ) -> Result<(), AssetError> {
        let p = self.parameter(parameter, ParameterDefault::Float(0.0))?;
        let c = Condition { parameter: p, test: ConditionTest::CompareFloat(op, value) };
        self.transition(Self::base(TransitionSource::State(from), to, vec![c], blend))
    }

    /// The graph so far (for inspection).
    #[must_use]
    pub fn graph(&self) -> &AnimationGraph {
        &self.graph
    }

    /// Finishes the graph: every layer needs at least one state.
    pub fn build(self) -> Result<AnimationGraph, AssetError> {
        for (i, l) in self.graph.layers.iter().enumerate() {
            if !self.graph.states.iter().any(|s| s.layer == i) {
                return Err(self.err(format!("layer `{}` has no state", l.name)));
            }
        }
        Ok(self.graph)
    }
}

fn q(s: &str) -> String {
    toml::Value::String(s.to_owned()).to_string()
}

/// The shortest text that round-trips the `f32`, always with a decimal point
/// (so TOML reads a float). Graph numbers are finite (the builder's inputs are).
fn f(x: f32) -> String {
    let s = x.to_string();
    if s.contains(['.', 'e', 'E']) { s } else { format!("{s}.0") }
}

fn mask_toml(m: &BoneMask) -> String {
    let list = |v: &[String]| v.iter().map(|b| q(b)).collect::<Vec<_>>().join(", ");
    let mut parts = Vec::new();
    if !m.include.is_empty() {
        parts.push(format!("include = [{}]", list(&m.include)));
    }
    if !m.exclude.is_empty() {
        parts.push(format!("exclude = [{}]", list(&m.exclude)));
    }
    format!("{{ {} }}", parts.join(", "))
}

/// The TOML text of `graph` (an `animation_graph` definition). `model` is
/// written as given: pass the graph's model path relative to the file the
/// text goes to.
#[must_use]
pub fn graph_toml(graph: &AnimationGraph, model: &str) -> String {
    let mut t = format!(
        "# Written by the ZOA graph builder.\nkind = \"animation_graph\"\nid = {}\nmodel = {}\nentry = {}\n",
        q(&graph.id),
        q(model),
        q(&graph.states[graph.entry().index()].name)
    );
    push_parameters_and_layers(&mut t, graph);
    for s in &graph.states {
        push_state(&mut t, graph, s);
    }
    for tr in &graph.transitions {
        push_transition(&mut t, graph, tr);
    }
    t
}

/// The `[[parameters]]` and (past the base layer) `[[layers]]` tables.
fn push_parameters_and_layers(t: &mut String, graph: &AnimationGraph) {
    for p in &graph.parameters {
        let default = match p.default {
            ParameterDefault::Float(v) => format!("default = {}\n", f(v)),
            ParameterDefault::Int(v) => format!("default = {v}\n"),
            ParameterDefault::Bool(v) => format!("default = {v}\n"),
            ParameterDefault::Trigger => String::new(),
        };
        t.push_str(&format!(
            "\n[[parameters]]\nname = {}\ntype = \"{}\"\n{default}",
            q(&p.name),
            p.default.type_name()
        ));
    }
    for l in graph.layers.iter().skip(1) {
        t.push_str(&format!(
            "\n[[layers]]\nname = {}\nentry = {}\nweight = {}\nblend_mode = \"{}\"\n",
            q(&l.name),
            q(&graph.states[l.entry.index()].name),
            f(l.weight),
            l.blend_mode.name()
        ));
        if let Some(m) = &l.bone_mask {
            t.push_str(&format!("bone_mask = {}\n", mask_toml(m)));
        }
    }
}

/// One `[[states]]` table.
fn push_state(t: &mut String, graph: &AnimationGraph, s: &GraphState) {
    t.push_str(&format!("\n[[states]]\nname = {}\nlayer = {}\n", q(&s.name), q(&graph.layers[s.layer].name)));
    if let Motion::Clip(c) = &s.motion {
        t.push_str(&format!("clip = {}\n", q(c)));
    }
    t.push_str(&format!("loop = {}\nspeed = {}\n", s.looping, f(s.speed)));
    t.push_str(&format!("crossfade = {{ duration = {}, warp = {} }}\n", f(s.crossfade.duration), s.crossfade.warp));
    if let Some(w) = s.weight {
        t.push_str(&format!("weight = {}\n", f(w)));
    }
    if let Some(b) = s.blend_mode {
        t.push_str(&format!("blend_mode = \"{}\"\n", b.name()));
    }
    if let Some(m) = &s.bone_mask {
        t.push_str(&format!("bone_mask = {}\n", mask_toml(m)));
    }
    if let Motion::BlendTree(tree) = &s.motion {
        push_blend_tree(t, graph, tree);
    }
}

/// A state's `[states.blend_tree]` table.
fn push_blend_tree(t: &mut String, graph: &AnimationGraph, tree: &BlendTree) {
    t.push_str("[states.blend_tree]\n");
    for (key, value) in tree_fields(graph, tree) {
        t.push_str(&format!("{key} = {value}\n"));
    }
    t.push_str("children = [\n");
    for c in &tree.children {
        t.push_str(&format!("    {},\n", inline_child(graph, c)));
    }
    t.push_str("]\n");
}

/// A tree's fields but its children, as `(key, TOML value)`.
fn tree_fields(graph: &AnimationGraph, tree: &BlendTree) -> Vec<(&'static str, String)> {
    let pname = |p: ParameterIndex| q(&graph.parameters[p.index()].name);
    let mut out = vec![("type", format!("\"{}\"", tree.kind.name()))];
    out.extend(tree.parameter.map(|p| ("parameter", pname(p))));
    out.extend(tree.parameter_y.map(|p| ("parameter_y", pname(p))));
    if tree.kind == BlendTreeKind::TwoD && tree.weighting != Weighting2D::default() {
        out.push(("weighting", format!("\"{}\"", tree.weighting.name())));
        if let Weighting2D::InverseDistance { power } = tree.weighting {
            out.push(("power", f(power)));
        }
    }
    out
}

/// One child as an inline table (a nested tree inline too).
fn inline_child(graph: &AnimationGraph, c: &BlendChild) -> String {
    let mut parts = vec![match &c.motion {
        Motion::Clip(clip) => format!("clip = {}", q(clip)),
        // The reader never puts a machine in a tree; a generated graph has none.
        Motion::Machine(_) => String::from("clip = \"\""),
        Motion::BlendTree(sub) => {
            let mut fields: Vec<String> =
                tree_fields(graph, sub).into_iter().map(|(k, v)| format!("{k} = {v}")).collect();
            let children: Vec<String> = sub.children.iter().map(|c| inline_child(graph, c)).collect();
            fields.push(format!("children = [{}]", children.join(", ")));
            format!("blend_tree = {{ {} }}", fields.join(", "))
        }
    }];
    parts.push(format!("threshold = {}", f(c.threshold)));
    if let Some(y) = c.threshold_y {
        parts.push(format!("threshold_y = {}", f(y)));
    }
    if let Some(w) = c.weight {
        parts.push(format!("weight = {}", f(w)));
    }
    format!("{{ {} }}", parts.join(", "))
}

/// One `[[transitions]]` table.
fn push_transition(t: &mut String, graph: &AnimationGraph, tr: &GraphTransition) {
    let from = match tr.from {
        TransitionSource::Any => "any".to_owned(),
        TransitionSource::State(s) => graph.states[s.index()].name.clone(),
    };
    t.push_str(&format!("\n[[transitions]]\nfrom = {}\nto = {}\n", q(&from), q(&graph.states[tr.to.index()].name)));
    if !tr.conditions.is_empty() {
        let conds: Vec<String> = tr
            .conditions
            .iter()
            .map(|c| {
                let n = &graph.parameters[c.parameter.index()].name;
                let text = match c.test {
                    ConditionTest::CompareFloat(op, v) => format!("{n} {} {}", op.symbol(), f(v)),
                    ConditionTest::CompareInt(op, v) => format!("{n} {} {v}", op.symbol()),
                    ConditionTest::IsTrue => format!("{n} is true"),
                    ConditionTest::IsFalse => format!("{n} is false"),
                    ConditionTest::Triggered => n.clone(),
                };
                q(&text)
            })
            .collect();
        t.push_str(&format!("conditions = [{}]\n", conds.join(", ")));
    }
    if let Some(e) = tr.exit_time {
        t.push_str(&format!("exit_time = {}\n", f(e)));
    }
    t.push_str(&format!(
        "blend = {}\ninterruption = \"{}\"\nmode = \"{}\"\n",
        f(tr.blend),
        tr.interruption.name(),
        tr.mode.name()
    ));
}

/// Locomotion speeds (m/s) the generated 1D blend places its children at.
pub const LOCOMOTION_THRESHOLDS: [(&str, f32); 4] =
    [("locomotion_idle", 0.0), ("locomotion_walk", 1.5), ("locomotion_run", 4.0), ("locomotion_sprint", 6.5)];

/// Generates a locomotion + weapon graph for the player profile set `set_id`
/// of `defs`.
///
/// - base layer, from the default class's binding profile slots: a 1D
///   `speed` blend over idle / walk / run / sprint (a clip state when only
///   one exists), a crouch state (bool `is_crouching`), jump (trigger
///   `jump`) → fall (exit time) → land (bool `is_grounded`) → locomotion
///   (exit time), death from any state (trigger `die`);
/// - an additive `weapon` layer, from the first weapon class's slots: a
///   rest state (weight 0) and fire / reload / equip / holster states entered
///   by triggers of the same name from any state, leaving by exit time.
///
/// `model` is the graph's model path relative to the definition folder.
pub fn locomotion_weapon_graph(
    defs: &DefinitionSet,
    set_id: &str,
    graph_id: &str,
    model: &str,
) -> Result<AnimationGraph, AssetError> {
    let err = |reason: String| AssetError::InvalidGraph { graph: graph_id.to_owned(), reason };
    // The id is written into the file: one `validate` would refuse is never written.
    if let Err(reason) = zoa_anim_core::ids::check_id_syntax(graph_id) {
        return Err(err(format!("the graph id `{graph_id}` is not a valid id: {reason}")));
    }
    let set: &PlayerProfileSet =
        defs.player_profile_set(set_id).ok_or_else(|| err(format!("no player_profile_set `{set_id}`")))?;
    let default = set
        .resolve_profile(set.default_profile)
        .ok_or_else(|| err(format!("set `{set_id}` has no entry for its default class")))?;
    let slot_clip = |profile: &str, slot: &str| -> Option<String> {
        defs.binding_profile(profile)?.slots().iter().find(|s| s.id.as_str() == slot).map(|s| s.clip_reference.clone())
    };
    let base = |slot: &str| slot_clip(&default.binding_profile, slot);
    let mut b = GraphBuilder::new(graph_id, model);
    b.parameter("speed", ParameterDefault::Float(0.0))?;
    let loco: Vec<(String, f32)> =
        LOCOMOTION_THRESHOLDS.iter().filter_map(|(slot, th)| base(slot).map(|c| (c, *th))).collect();
    let locomotion = match loco.len() {
        0 => return Err(err(format!("binding profile `{}` has no locomotion slot", default.binding_profile))),
        1 => b.clip_state(0, "locomotion", &loco[0].0, true)?,
        _ => {
            let kids: Vec<(&str, f32)> = loco.iter().map(|(c, t)| (c.as_str(), *t)).collect();
            b.blend_1d(0, "locomotion", "speed", &kids)?
        }
    };
    b.crossfade(locomotion, 0.2, true);
    b.entry(locomotion);
    add_crouch(&mut b, &base, locomotion)?;
    add_jump(&mut b, &base, locomotion)?;
    if let Some(death) = base("death") {
        let death = b.clip_state(0, "death", &death, false)?;
        b.any_state_transition(death, "die", 0.2)?;
    }
    // Weapon actions from the first weapon class that has any.
    let weapon = set.profiles.iter().filter(|p| p.class != PlayerProfileType::Unarmed).find_map(|p| {
        let acts: Vec<(&str, String)> = WEAPON_ACTIONS
            .iter()
            .filter_map(|(name, slots)| slots.iter().find_map(|s| slot_clip(&p.binding_profile, s)).map(|c| (*name, c)))
            .collect();
        (!acts.is_empty()).then_some(acts)
    });
    if let Some(acts) = weapon {
        add_weapon_layer(&mut b, &acts)?;
    }
    b.build()
}

/// Weapon actions of the generated weapon layer: (action and trigger name, the slots that may play it).
const WEAPON_ACTIONS: [(&str, &[&str]); 4] = [
    ("fire", &["fire_single", "fire_auto", "fire_burst"]),
    ("reload", &["reload_magazine", "reload_shell", "reload_bolt"]),
    ("equip", &["equip_two_hand", "equip_one_hand"]),
    ("holster", &["holster_two_hand", "holster_one_hand"]),
];

/// A crouch state (a 1D `speed` blend when both crouch slots have clips)
/// entered from and left to `locomotion` by bool `is_crouching`; nothing when
/// `base` (the default class's slot → clip) has no crouch clip.
fn add_crouch(
    b: &mut GraphBuilder,
    base: &impl Fn(&str) -> Option<String>,
    locomotion: StateIndex,
) -> Result<(), AssetError> {
    let crouch_kids: Vec<(String, f32)> = [("locomotion_crouch_idle", 0.0), ("locomotion_crouch_walk", 1.2)]
        .iter()
        .filter_map(|(s, t)| base(s).map(|c| (c, *t)))
        .collect();
    if crouch_kids.is_empty() {
        return Ok(());
    }
    let crouch = if crouch_kids.len() == 1 {
        b.clip_state(0, "crouch", &crouch_kids[0].0, true)?
    } else {
        let kids: Vec<(&str, f32)> = crouch_kids.iter().map(|(c, t)| (c.as_str(), *t)).collect();
        b.blend_1d(0, "crouch", "speed", &kids)?
    };
    b.bool_transition(locomotion, crouch, "is_crouching", true, 0.25)?;
    b.bool_transition(crouch, locomotion, "is_crouching", false, 0.25)
}

/// Jump (trigger `jump` from `locomotion`) → fall (exit time, when there is a
/// fall clip) → land (bool `is_grounded`, when there is a land clip) →
/// `locomotion`; nothing when `base` has no jump clip.
fn add_jump(
    b: &mut GraphBuilder,
    base: &impl Fn(&str) -> Option<String>,
    locomotion: StateIndex,
) -> Result<(), AssetError> {
    let Some(jump) = base("locomotion_jump") else { return Ok(()) };
    b.parameter("is_grounded", ParameterDefault::Bool(true))?;
    let jump = b.clip_state(0, "jump", &jump, false)?;
    b.trigger_transition(locomotion, jump, "jump", 0.1)?;
    let after_jump = match base("locomotion_fall") {
        Some(fall) => {
            let fall = b.clip_state(0, "fall", &fall, true)?;
            b.exit_time_transition(jump, fall, 0.9, 0.1)?;
            fall
        }
        None => jump,
    };
    match base("locomotion_land") {
        Some(land) => {
            let land = b.clip_state(0, "land", &land, false)?;
            b.bool_transition(after_jump, land, "is_grounded", true, 0.05)?;
            b.exit_time_transition(land, locomotion, 0.8, 0.2)?;
        }
        None => b.bool_transition(after_jump, locomotion, "is_grounded", true, 0.2)?,
    }
    Ok(())
}

/// The additive `weapon` layer: a rest state (weight 0, the first action's
/// clip) and one state per action entered by the trigger of its name from
/// any state, leaving by exit time.
fn add_weapon_layer(b: &mut GraphBuilder, acts: &[(&str, String)]) -> Result<(), AssetError> {
    let layer = b.layer("weapon", 1.0, BlendMode::Additive, None)?;
    let rest = b.clip_state(layer, "weapon_rest", &acts[0].1, true)?;
    b.state_weight(rest, 0.0);
    b.entry(rest);
    for (name, clip) in acts {
        let s = b.clip_state(layer, name, clip, false)?;
        b.any_state_transition(s, name, 0.05)?;
        b.exit_time_transition(s, rest, 1.0, 0.1)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builder_calls_are_idempotent() {
        let mut b = GraphBuilder::new("g", "m.glb");
        let p1 = b.parameter("speed", ParameterDefault::Float(0.0)).unwrap();
        let p2 = b.parameter("speed", ParameterDefault::Float(3.0)).unwrap();
        assert_eq!(p1, p2);
        assert!(b.parameter("speed", ParameterDefault::Bool(false)).is_err());
        let idle = b.clip_state(0, "idle", "idle", true).unwrap();
        let loco = b.blend_1d(0, "loco", "speed", &[("walk", 1.5), ("idle", 0.0)]).unwrap();
        assert_eq!(b.blend_1d(0, "loco", "speed", &[("walk", 1.5), ("idle", 0.0)]).unwrap(), loco);
        assert!(b.clip_state(0, "loco", "walk", true).is_err(), "same name, other motion");
        b.trigger_transition(idle, loco, "go", 0.1).unwrap();
        b.trigger_transition(idle, loco, "go", 0.1).unwrap();
        b.any_state_transition(idle, "stop", 0.1).unwrap();
        b.bool_transition(loco, idle, "moving", false, 0.2).unwrap();
        b.exit_time_transition(loco, idle, 0.9, 0.2).unwrap();
        let g = b.build().unwrap();
        assert_eq!(g.transitions.len(), 4);
        assert_eq!(g.entry(), idle, "first base state is the entry");
        let Motion::BlendTree(t) = &g.states[loco.index()].motion else { panic!() };
        assert_eq!(t.children[0].motion, Motion::Clip("idle".into()), "sorted by threshold");
        assert!(GraphBuilder::new("g", "m").blend_1d(0, "x", "nope", &[("a", 0.0), ("b", 1.0)]).is_err());
        let mut empty = GraphBuilder::new("g", "m");
        empty.layer("upper", 1.0, BlendMode::Override, None).unwrap();
        empty.clip_state(0, "a", "a", true).unwrap();
        assert!(empty.build().is_err(), "a layer without states");
    }

    #[test]
    fn floats_print_with_a_decimal_point() {
        assert_eq!(f(1.0), "1.0");
        assert_eq!(f(0.25), "0.25");
        assert_eq!(f(-1.5), "-1.5");
    }
}

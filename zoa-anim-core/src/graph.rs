//! Animation graphs: a parameter-driven state machine over clips and blend
//! trees, with per-state metadata (blend mode, bone mask, cross-fade, blend
//! tree).
//!
//! This is the validated data; evaluation lives in `zoa-anim-runtime`.
//!
//! # Terminology
//! - **Parameter**: a named graph variable (float, int, bool or trigger) with
//!   a default. Instances keep their own values.
//! - **Layer**: a composition layer with its own current state. Layer 0 is the
//!   base layer (always present, named `base`); further layers compose on top
//!   in order, with a weight, a blend mode (override or additive) and an
//!   optional bone mask.
//! - **State**: what a layer plays while it is current: one clip, or a blend
//!   tree (1D, 2D or direct) over several clips; a tree's child may itself be
//!   a tree (at most [`crate::budget::BLEND_TREE_DEPTH`] levels), and a clip's
//!   weight is the product of the child weights on its path.
//! - **Sub-state machine**: a state whose motion is [`Motion::Machine`]: it
//!   holds states of its own (their `machine` is it) and is entered at its
//!   inner entry. Its transitions leave from any state inside it; a layer
//!   always plays a state that plays something (a *leaf*).
//! - **Transition**: an edge from a state (or from **any** state of the target's
//!   layer) to a state, taken when its conditions all hold and its exit time
//!   (if any) has been reached. Transitions are tried in authoring order.
//!
//! ```text
//!   layer "base"   (entry: locomotion)
//!     [any] --jump--> [jump_start] --exit 1.0--> [fall] --is_grounded--> [land] --exit 0.9--> [locomotion]
//!   layer "upper_body" (override, mask: Spine2 subtree, weight 1)
//!     [upper_idle] <--is_aiming is false-- [aim] --fire--> [recoil (additive)]
//! ```
//!
//! Indices (`StateIndex`, `ParameterIndex`, layer `usize`) refer into the
//! graph's own vectors; names are kept for tools and messages.

use std::fmt;

/// Index of a state in [`AnimationGraph::states`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StateIndex(pub u16);

impl StateIndex {
    /// As a `usize` for indexing.
    #[must_use]
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

/// Index of a parameter in [`AnimationGraph::parameters`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ParameterIndex(pub u16);

impl ParameterIndex {
    /// As a `usize` for indexing.
    #[must_use]
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

/// A parameter's kind together with its default value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ParameterDefault {
    /// Float, default value (finite).
    Float(f32),
    /// Int, default value.
    Int(i32),
    /// Bool, default value.
    Bool(bool),
    /// Trigger: starts unset; set by a script, consumed by the first transition it fires.
    Trigger,
}

impl ParameterDefault {
    /// `float`, `int`, `bool` or `trigger`.
    #[must_use]
    pub const fn type_name(&self) -> &'static str {
        match self {
            ParameterDefault::Float(_) => "float",
            ParameterDefault::Int(_) => "int",
            ParameterDefault::Bool(_) => "bool",
            ParameterDefault::Trigger => "trigger",
        }
    }
    /// Whether the parameter is a number (float or int).
    #[must_use]
    pub const fn is_number(&self) -> bool {
        matches!(self, ParameterDefault::Float(_) | ParameterDefault::Int(_))
    }
}

/// One graph parameter.
#[derive(Debug, Clone, PartialEq)]
pub struct GraphParameter {
    /// Name scripts and bindings set it by (unique in the graph).
    pub name: String,
    /// Kind and default.
    pub default: ParameterDefault,
}

/// How a layer or state composes onto the layers below (`blend_mode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum BlendMode {
    /// Replaces the pose below, weighted.
    #[default]
    Override,
    /// Adds its difference from its own first frame to the pose below.
    Additive,
}

impl BlendMode {
    /// `override` or `additive`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            BlendMode::Override => "override",
            BlendMode::Additive => "additive",
        }
    }
    /// Parses the lowercase name.
    #[must_use]
    pub fn from_name(s: &str) -> Option<Self> {
        match s {
            "override" => Some(BlendMode::Override),
            "additive" => Some(BlendMode::Additive),
            _ => None,
        }
    }
}

/// Include/exclude filter over bone subtrees (`bone_mask`).
///
/// A bone is kept when it lies in the subtree of an `include` root (or
/// `include` is empty) and not in the subtree of an `exclude` root.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct BoneMask {
    /// Bone names whose complete descendant subtrees are retained (empty = all).
    pub include: Vec<String>,
    /// Bone names whose complete descendant subtrees are removed.
    pub exclude: Vec<String>,
}

/// Entry blend timing (`crossfade`).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Crossfade {
    /// Seconds to blend from the previous clip into this state on entry (`>= 0`, default 0 = instant).
    pub duration: f32,
    /// Warp time scales across the blend so differing clip lengths line up (default false).
    pub warp: bool,
}

/// Blend tree flavour (`blend_tree.type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BlendTreeKind {
    /// Linear interpolation between the two children bracketing the parameter (≥ 2 children).
    OneD,
    /// Weights by the `(parameter, parameter_y)` position, as [`BlendTree::weighting`] says (≥ 1 child).
    TwoD,
    /// Each child has an explicit weight, normalized to sum to 1 (≥ 1 child).
    Direct,
}

impl BlendTreeKind {
    /// `1D`, `2D` or `direct`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            BlendTreeKind::OneD => "1D",
            BlendTreeKind::TwoD => "2D",
            BlendTreeKind::Direct => "direct",
        }
    }
}

/// How a 2D blend tree weights its children by the parameter position
/// (`blend_tree.weighting`, with `blend_tree.power`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Weighting2D {
    /// Inverse distance: `wᵢ ∝ 1 / dᵢ^power` of the distance `dᵢ` from the
    /// parameter position to child `i`; exactly at a child, that child alone.
    /// Simple, but far children always keep some weight.
    InverseDistance {
        /// Exponent, finite and `> 0` (1 = plain inverse distance; larger
        /// values favour the nearest child more).
        power: f32,
    },
    /// Gradient band interpolation in cartesian space (Johansen 2009; Unity's
    /// "Freeform Cartesian"): `hᵢ = max(0, min_{j≠i} 1 − (p − pᵢ)·(pⱼ − pᵢ) / |pⱼ − pᵢ|²)`,
    /// normalized. A child's influence ends at its neighbours, so nothing leaks
    /// to far children.
    GradientBand,
}

impl Default for Weighting2D {
    /// Inverse distance, power 1 (what a file gets without `weighting`).
    fn default() -> Self {
        Weighting2D::InverseDistance { power: 1.0 }
    }
}

impl Weighting2D {
    /// `inverse_distance` or `gradient_band` (the `weighting` value in files).
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Weighting2D::InverseDistance { .. } => "inverse_distance",
            Weighting2D::GradientBand => "gradient_band",
        }
    }
}

/// One child of a blend tree.
#[derive(Debug, Clone, PartialEq)]
pub struct BlendChild {
    /// What the child plays: a clip, or a nested blend tree (at most
    /// [`crate::budget::BLEND_TREE_DEPTH`] trees deep in all).
    pub motion: Motion,
    /// Position on the primary axis (1D and 2D; 0 for direct trees).
    pub threshold: f32,
    /// Position on the secondary axis (2D only).
    pub threshold_y: Option<f32>,
    /// Explicit weight (direct trees: required, `>= 0`; ignored by 1D/2D).
    pub weight: Option<f32>,
}

/// Several clips blended by live parameters on one shared normalized clock.
#[derive(Debug, Clone, PartialEq)]
pub struct BlendTree {
    /// Flavour.
    pub kind: BlendTreeKind,
    /// Primary axis parameter (a number parameter; `None` only for direct trees).
    pub parameter: Option<ParameterIndex>,
    /// Secondary axis parameter (2D only).
    pub parameter_y: Option<ParameterIndex>,
    /// How a 2D tree weights its children (ignored by 1D and direct trees).
    pub weighting: Weighting2D,
    /// Children; for 1D trees sorted by threshold (stable).
    pub children: Vec<BlendChild>,
}

impl BlendTree {
    /// Children of this tree and of every tree nested in it (what
    /// [`crate::budget::BLEND_TREE_CHILDREN`] limits per state).
    #[must_use]
    pub fn descendant_count(&self) -> usize {
        self.children
            .iter()
            .map(|c| 1 + if let Motion::BlendTree(t) = &c.motion { t.descendant_count() } else { 0 })
            .sum()
    }
}

/// What a state (or a blend-tree child) plays.
#[derive(Debug, Clone, PartialEq)]
pub enum Motion {
    /// A single clip reference.
    Clip(String),
    /// A blend tree, whose children may be blend trees in turn.
    BlendTree(BlendTree),
    /// A sub-state machine (states only, never a blend-tree child): the
    /// state holds the states whose [`GraphState::machine`] it is, and
    /// entering it enters this inner entry state.
    Machine(StateIndex),
}

impl Motion {
    /// Every clip reference the motion plays, depth first in child order
    /// (the order the runtime numbers a state's clips in).
    #[must_use]
    pub fn clips(&self) -> Vec<&str> {
        let mut out = Vec::new();
        self.visit_clips(&mut |c| out.push(c));
        out
    }

    /// Calls `f` with every clip reference, depth first in child order.
    pub fn visit_clips<'a>(&'a self, f: &mut impl FnMut(&'a str)) {
        match self {
            Motion::Clip(c) => f(c),
            Motion::BlendTree(t) => t.children.iter().for_each(|c| c.motion.visit_clips(f)),
            Motion::Machine(_) => {}
        }
    }

    /// Blend trees nested in the motion, counting itself (0 for a clip).
    #[must_use]
    pub fn depth(&self) -> usize {
        match self {
            Motion::Clip(_) | Motion::Machine(_) => 0,
            Motion::BlendTree(t) => 1 + t.children.iter().map(|c| c.motion.depth()).max().unwrap_or(0),
        }
    }
}

/// One state: its motion and how it blends in.
#[derive(Debug, Clone, PartialEq)]
pub struct GraphState {
    /// Name (unique in the graph).
    pub name: String,
    /// Layer index into [`AnimationGraph::layers`] (0 = base).
    pub layer: usize,
    /// The sub-state machine (a state whose motion is [`Motion::Machine`])
    /// this state belongs to; `None` at its layer's top level. The machine's
    /// outgoing transitions leave from every state inside it.
    pub machine: Option<StateIndex>,
    /// What it plays.
    pub motion: Motion,
    /// Loop (default: the clip asset's loop hint, else `true`) vs play once and hold the last frame.
    pub looping: bool,
    /// Playback speed multiplier (`> 0`, default 1).
    pub speed: f32,
    /// Entry blend timing.
    pub crossfade: Crossfade,
    /// Weight multiplier `0 ..= 1`; `None` = the layer's weight.
    pub weight: Option<f32>,
    /// Blend mode; `None` = the layer's.
    pub blend_mode: Option<BlendMode>,
    /// Bone mask applied to every track of this state; `None` = the layer's.
    pub bone_mask: Option<BoneMask>,
    /// Sync group the state joins (`None` = none): among the group's states
    /// contributing to its layer, the one of highest weight leads and the
    /// others follow its position by sync marker (its clip's, or for a blend
    /// tree its heaviest child's), else by normalized time. Only looping
    /// states follow.
    pub sync_group: Option<String>,
}

/// A composition layer with its own current state.
#[derive(Debug, Clone, PartialEq)]
pub struct GraphLayer {
    /// Name (`base` for layer 0).
    pub name: String,
    /// State the layer starts in.
    pub entry: StateIndex,
    /// Layer weight `0 ..= 1` (default 1).
    pub weight: f32,
    /// How the layer composes onto the layers below (default override).
    pub blend_mode: BlendMode,
    /// Bone mask of the layer (default none = every bone).
    pub bone_mask: Option<BoneMask>,
}

/// Numeric comparison operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CompareOp {
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `>`
    Gt,
    /// `<=`
    Le,
    /// `>=`
    Ge,
}

impl CompareOp {
    /// The operator's text.
    #[must_use]
    pub const fn symbol(self) -> &'static str {
        match self {
            CompareOp::Eq => "==",
            CompareOp::Ne => "!=",
            CompareOp::Lt => "<",
            CompareOp::Gt => ">",
            CompareOp::Le => "<=",
            CompareOp::Ge => ">=",
        }
    }
    /// Parses the operator's text.
    #[must_use]
    pub fn from_symbol(s: &str) -> Option<Self> {
        Some(match s {
            "==" => CompareOp::Eq,
            "!=" => CompareOp::Ne,
            "<" => CompareOp::Lt,
            ">" => CompareOp::Gt,
            "<=" => CompareOp::Le,
            ">=" => CompareOp::Ge,
            _ => return None,
        })
    }
    /// Applies the operator.
    #[inline]
    pub fn compare<T: PartialOrd>(self, lhs: T, rhs: T) -> bool {
        match self {
            CompareOp::Eq => lhs == rhs,
            CompareOp::Ne => lhs != rhs,
            CompareOp::Lt => lhs < rhs,
            CompareOp::Gt => lhs > rhs,
            CompareOp::Le => lhs <= rhs,
            CompareOp::Ge => lhs >= rhs,
        }
    }
}

/// What a condition tests about its parameter.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ConditionTest {
    /// Float parameter compared with a constant.
    CompareFloat(CompareOp, f32),
    /// Int parameter compared with a constant.
    CompareInt(CompareOp, i32),
    /// Bool parameter is true.
    IsTrue,
    /// Bool parameter is false.
    IsFalse,
    /// Trigger parameter is set (firing the transition consumes it).
    Triggered,
}

/// One transition condition.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Condition {
    /// The parameter tested.
    pub parameter: ParameterIndex,
    /// The test.
    pub test: ConditionTest,
}

/// Where a transition may start.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TransitionSource {
    /// From whichever state of the target's layer is playing, never into itself.
    Any,
    /// From one state.
    State(StateIndex),
}

/// Which transitions may interrupt a transition under way (Unity's interruption source).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Interruption {
    /// Nothing interrupts it (the default).
    #[default]
    None,
    /// Transitions leaving the current (source) state may interrupt it.
    Current,
    /// Transitions leaving the next (target) state may interrupt it.
    Next,
}

impl Interruption {
    /// `none`, `current` or `next`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Interruption::None => "none",
            Interruption::Current => "current",
            Interruption::Next => "next",
        }
    }
    /// Parses the lowercase name.
    #[must_use]
    pub fn from_name(s: &str) -> Option<Self> {
        Some(match s {
            "none" => Interruption::None,
            "current" => Interruption::Current,
            "next" => Interruption::Next,
            _ => return None,
        })
    }
}

/// How the outgoing pose is blended away.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum TransitionMode {
    /// Evaluate both states and cross-fade (default).
    #[default]
    Crossfade,
    /// Evaluate only the target; decay the offset from the last output (Bollo, GDC 2018).
    Inertialize,
}

impl TransitionMode {
    /// `crossfade` or `inertialize`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            TransitionMode::Crossfade => "crossfade",
            TransitionMode::Inertialize => "inertialize",
        }
    }
    /// Parses the lowercase name.
    #[must_use]
    pub fn from_name(s: &str) -> Option<Self> {
        Some(match s {
            "crossfade" => TransitionMode::Crossfade,
            "inertialize" => TransitionMode::Inertialize,
            _ => return None,
        })
    }
}

/// One transition, in authoring order.
#[derive(Debug, Clone, PartialEq)]
pub struct GraphTransition {
    /// Source.
    pub from: TransitionSource,
    /// Target state (same layer as the source state).
    pub to: StateIndex,
    /// Conditions that must all hold (AND); may be empty.
    pub conditions: Vec<Condition>,
    /// Normalized clip time `0 ..= 1` the source must reach first; `None` = no exit time.
    pub exit_time: Option<f32>,
    /// Blend duration in seconds (`>= 0`, default 0 = cut).
    pub blend: f32,
    /// Which transitions may interrupt this one (default none).
    pub interruption: Interruption,
    /// Cross-fade or inertialize (default cross-fade).
    pub mode: TransitionMode,
}

impl GraphTransition {
    /// Fires the moment its source is entered: neither exit time nor conditions.
    #[must_use]
    pub fn is_unconditional(&self) -> bool {
        self.exit_time.is_none() && self.conditions.is_empty()
    }
}

/// A validated animation graph.
///
/// Invariants (checked by loaders): names unique per list; every index in
/// range; layer 0 exists; a transition stays within one layer; 1D trees have
/// at least two children sorted by threshold; numbers finite and in range.
#[derive(Debug, Clone, PartialEq)]
pub struct AnimationGraph {
    /// Unique id.
    pub id: String,
    /// Skeletal model the graph is for, relative to the definition folder (`/` separated).
    pub model: String,
    /// Parameters.
    pub parameters: Vec<GraphParameter>,
    /// Layers; index 0 is the base layer.
    pub layers: Vec<GraphLayer>,
    /// States in authoring order.
    pub states: Vec<GraphState>,
    /// Transitions in authoring order.
    pub transitions: Vec<GraphTransition>,
}

impl AnimationGraph {
    /// The base layer's entry state.
    #[must_use]
    pub fn entry(&self) -> StateIndex {
        self.layers[0].entry
    }
    /// Looks a state up by name.
    #[must_use]
    pub fn state(&self, name: &str) -> Option<StateIndex> {
        self.states.iter().position(|s| s.name == name).map(|i| StateIndex(i as u16))
    }
    /// Looks a parameter up by name.
    #[must_use]
    pub fn parameter(&self, name: &str) -> Option<ParameterIndex> {
        self.parameters.iter().position(|p| p.name == name).map(|i| ParameterIndex(i as u16))
    }
    /// Looks a layer up by name.
    #[must_use]
    pub fn layer(&self, name: &str) -> Option<usize> {
        self.layers.iter().position(|l| l.name == name)
    }
    /// Transitions that may leave `state`: its own, then those of each
    /// sub-state machine it is inside (innermost first), then those from `any`
    /// into its layer (never into `state` itself nor into a machine it is
    /// inside), each group in authoring order.
    pub fn transitions_from(&self, state: StateIndex) -> impl Iterator<Item = &GraphTransition> {
        self.transition_indices_from(state).map(|i| &self.transitions[i])
    }

    /// [`AnimationGraph::transitions_from`], as indices into
    /// [`AnimationGraph::transitions`].
    pub fn transition_indices_from(&self, state: StateIndex) -> impl Iterator<Item = usize> + '_ {
        let layer = self.states[state.index()].layer;
        let own = std::iter::once(state).chain(self.machines_of(state)).flat_map(move |source| {
            (0..self.transitions.len()).filter(move |&i| self.transitions[i].from == TransitionSource::State(source))
        });
        let any = (0..self.transitions.len()).filter(move |&i| {
            let t = &self.transitions[i];
            t.from == TransitionSource::Any
                && t.to != state
                && self.states[t.to.index()].layer == layer
                && !self.is_within(state, t.to)
        });
        own.chain(any)
    }

    /// The sub-state machines `state` is inside, innermost first (bounded by
    /// the state count, so a malformed cycle ends).
    pub fn machines_of(&self, state: StateIndex) -> impl Iterator<Item = StateIndex> + '_ {
        let mut current = self.states.get(state.index()).and_then(|s| s.machine);
        let mut left = self.states.len();
        std::iter::from_fn(move || {
            let m = current.filter(|_| left > 0)?;
            left -= 1;
            current = self.states.get(m.index()).and_then(|s| s.machine);
            Some(m)
        })
    }

    /// Whether `state` is `machine` or inside it (at any depth).
    #[must_use]
    pub fn is_within(&self, state: StateIndex, machine: StateIndex) -> bool {
        state == machine || self.machines_of(state).any(|m| m == machine)
    }

    /// The playable state entering `state` reaches: itself, or for a
    /// sub-state machine its entry, followed down to a state that plays
    /// something (bounded by the state count).
    #[must_use]
    pub fn leaf_of(&self, state: StateIndex) -> StateIndex {
        let mut s = state;
        for _ in 0..self.states.len() {
            match self.states.get(s.index()).map(|st| &st.motion) {
                Some(Motion::Machine(entry)) => s = *entry,
                _ => break,
            }
        }
        s
    }
}

/// Where a state sits among sub-state machines, as [`reachable_states`]
/// reads it: the machine it is directly inside, and for a sub-state machine
/// its entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Nesting {
    /// The machine state this state is directly inside (`GraphState::machine`).
    pub within: Option<usize>,
    /// For a sub-state machine (`Motion::Machine`), its entry state.
    pub entry: Option<usize>,
}

/// Which of `state_count` states a state machine can ever enter: every
/// state on a path from a layer entry (`entries`) along the `edges` (source
/// state, or `None` for `any`, to target state). An `any` edge reaches its
/// target as soon as the layer runs. With sub-state machines (`nesting`, per
/// state; empty when there are none): entering a machine enters its entry,
/// and a machine's own edges leave from every state inside it (at any
/// depth), not from the machine, which never plays. Out-of-range indices
/// are ignored; a malformed nesting cycle ends.
///
/// The one rule for W003 (`validate`'s unreachable state) and the
/// Workbench's graph canvas, which needs it on graphs that do not validate.
#[must_use]
pub fn reachable_states(
    state_count: usize,
    entries: impl IntoIterator<Item = usize>,
    edges: &[(Option<usize>, usize)],
    nesting: &[Nesting],
) -> Vec<bool> {
    // Edges grouped by source (counting sort), so the walk is O(states + edges).
    let mut start = vec![0usize; state_count + 1];
    for (from, _) in edges {
        if let Some(f) = from.filter(|f| *f < state_count) {
            start[f + 1] += 1;
        }
    }
    for i in 0..state_count {
        start[i + 1] += start[i];
    }
    let mut next = start.clone();
    let mut targets = vec![0usize; start[state_count]];
    for (from, to) in edges {
        if let Some(f) = from.filter(|f| *f < state_count) {
            targets[next[f]] = *to;
            next[f] += 1;
        }
    }
    let nest = |s: usize| nesting.get(s).copied().unwrap_or_default();
    let mut reached = vec![false; state_count];
    // A machine's edges are queued once, by the first state inside it reached.
    let mut machine_edges_queued = vec![false; state_count];
    let mut queue: Vec<usize> = entries.into_iter().collect();
    queue.extend(edges.iter().filter(|(from, _)| from.is_none()).map(|(_, to)| *to));
    while let Some(s) = queue.pop() {
        match reached.get_mut(s) {
            Some(r) if !*r => *r = true,
            _ => continue,
        }
        if let Some(entry) = nest(s).entry {
            queue.push(entry);
            continue;
        }
        queue.extend_from_slice(&targets[start[s]..start[s + 1]]);
        let mut machine = nest(s).within;
        for _ in 0..state_count {
            let Some(m) = machine.filter(|m| *m < state_count) else { break };
            if std::mem::replace(&mut machine_edges_queued[m], true) {
                break; // it and the machines around it were queued already
            }
            queue.extend_from_slice(&targets[start[m]..start[m + 1]]);
            machine = nest(m).within;
        }
    }
    reached
}

impl AnimationGraph {
    /// Which states can ever be entered ([`reachable_states`] over this
    /// graph's entries, transitions and sub-state machines).
    #[must_use]
    pub fn reachable_states(&self) -> Vec<bool> {
        let edges: Vec<(Option<usize>, usize)> = self
            .transitions
            .iter()
            .map(|t| match t.from {
                TransitionSource::Any => (None, t.to.index()),
                TransitionSource::State(f) => (Some(f.index()), t.to.index()),
            })
            .collect();
        let nesting: Vec<Nesting> = self
            .states
            .iter()
            .map(|s| Nesting {
                within: s.machine.map(StateIndex::index),
                entry: match s.motion {
                    Motion::Machine(e) => Some(e.index()),
                    _ => None,
                },
            })
            .collect();
        reachable_states(self.states.len(), self.layers.iter().map(|l| l.entry.index()), &edges, &nesting)
    }
}

impl fmt::Display for Condition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.test {
            ConditionTest::CompareFloat(op, v) => write!(f, "p{} {} {v}", self.parameter.0, op.symbol()),
            ConditionTest::CompareInt(op, v) => write!(f, "p{} {} {v}", self.parameter.0, op.symbol()),
            ConditionTest::IsTrue => write!(f, "p{} is true", self.parameter.0),
            ConditionTest::IsFalse => write!(f, "p{} is false", self.parameter.0),
            ConditionTest::Triggered => write!(f, "p{}", self.parameter.0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(name: &str, layer: usize) -> GraphState {
        GraphState {
            name: name.into(),
            layer,
            machine: None,
            motion: Motion::Clip(name.into()),
            looping: true,
            speed: 1.0,
            crossfade: Crossfade::default(),
            weight: None,
            blend_mode: None,
            bone_mask: None,
            sync_group: None,
        }
    }

    fn transition(from: TransitionSource, to: u16) -> GraphTransition {
        GraphTransition {
            from,
            to: StateIndex(to),
            conditions: vec![],
            exit_time: Some(1.0),
            blend: 0.1,
            interruption: Interruption::None,
            mode: TransitionMode::Crossfade,
        }
    }

    #[test]
    fn transitions_from_lists_own_then_any_in_layer_never_self() {
        let layer = |name: &str, entry| GraphLayer {
            name: name.into(),
            entry: StateIndex(entry),
            weight: 1.0,
            blend_mode: BlendMode::Override,
            bone_mask: None,
        };
        let g = AnimationGraph {
            id: "g".into(),
            model: "m.glb".into(),
            parameters: vec![],
            layers: vec![layer("base", 0), layer("upper", 2)],
            states: vec![state("idle", 0), state("death", 0), state("aim", 1)],
            transitions: vec![
                transition(TransitionSource::Any, 1),
                transition(TransitionSource::State(StateIndex(0)), 1),
                transition(TransitionSource::Any, 2),
            ],
        };
        let from_idle: Vec<_> = g.transitions_from(StateIndex(0)).map(|t| t.to.0).collect();
        assert_eq!(from_idle, vec![1, 1]);
        assert_eq!(g.transitions_from(StateIndex(1)).count(), 0);
        assert_eq!(g.entry(), StateIndex(0));
        assert_eq!(g.state("aim"), Some(StateIndex(2)));
        assert_eq!(g.layer("upper"), Some(1));
        assert!(!g.transitions[0].is_unconditional());
        assert!(CompareOp::from_symbol(">=").unwrap().compare(2.0, 2.0));
        assert!(!CompareOp::Lt.compare(3, 2));
    }

    #[test]
    fn reachable_states_follow_edges_from_entries_and_any() {
        // 0 -> 1 -> 2; any -> 3; 4 -> 0 only (never entered); 9 is out of range.
        let edges = [(Some(0), 1), (Some(1), 2), (None, 3), (Some(4), 0), (Some(2), 9)];
        assert_eq!(reachable_states(5, [0], &edges, &[]), [true, true, true, true, false]);
        assert_eq!(reachable_states(5, [4], &[], &[]), [false, false, false, false, true]);
        assert_eq!(reachable_states(2, [7], &[(Some(1), 1)], &[]), [false, false]);
    }

    #[test]
    fn reachable_states_enter_machines_at_their_entry_and_leave_from_inside() {
        // 0 -> 1 (machine, entry 2; holds 2, 3, 4); 2 -> 3; machine 1 -> 5;
        // 4 is inside but nothing leads to it; 6 only follows 4.
        let nest = |within, entry| Nesting { within, entry };
        let nesting =
            [nest(None, None), nest(None, Some(2)), nest(Some(1), None), nest(Some(1), None), nest(Some(1), None)];
        let edges = [(Some(0), 1), (Some(2), 3), (Some(1), 5), (Some(4), 6)];
        assert_eq!(reachable_states(7, [0], &edges, &nesting), [true, true, true, true, false, true, false]);
        // A machine never plays: without an entry reached, its edges are not taken.
        assert_eq!(reachable_states(7, [5], &edges, &nesting), [false, false, false, false, false, true, false]);
        // A nesting cycle ends.
        let cycle = [nest(Some(1), None), nest(Some(0), None)];
        assert_eq!(reachable_states(2, [0], &[], &cycle), [true, false]);
    }
}

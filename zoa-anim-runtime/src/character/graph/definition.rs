//! A compiled graph definition: the core's validated [`AnimationGraph`] with
//! every clip reference resolved to a [`ClipId`], blend trees turned into the
//! pose engine's [`CompiledBlendTree`] weight functions, and each state's outgoing
//! transitions listed once (own, then Any State, authoring order).
//!
//! One definition is shared (`Arc`) by every instance that uses the graph.

use std::sync::Arc;

use zoa_anim_core::Name;
use zoa_anim_core::contracts::AnimationClipResolver;
use zoa_anim_core::graph::{
    AnimationGraph, BlendTreeKind, ConditionTest, GraphState, GraphTransition, Motion, ParameterDefault,
    ParameterIndex, StateIndex, TransitionSource,
};

use super::clips::{ClipId, ClipTable};
use crate::error::RuntimeError;
use crate::pose::blend_tree::CompiledBlendTree;

/// A state's motion, resolved.
#[derive(Debug, Clone)]
pub(crate) struct CompiledState {
    /// The clips the state plays (its *leaves*), depth first in child order
    /// (one for a clip state).
    pub clips: Vec<ClipId>,
    /// The weight functions of a blend-tree state, nested trees flattened.
    pub tree: Option<CompiledMotion>,
    /// The sync group it joins (an index into the definition's group names).
    pub sync_group: Option<u16>,
}

/// A child slot of a compiled tree node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ChildRef {
    /// Leaf `i`: the state's clip `clips[i]`.
    Leaf(u32),
    /// Tree node `k` of [`CompiledMotion::nodes`].
    Node(u32),
}

/// One blend tree of a state's motion: its weight function, its axes and
/// where its children's slots are.
#[derive(Debug, Clone)]
pub(crate) struct TreeNode {
    pub tree: CompiledBlendTree,
    /// Primary blend parameter.
    pub x: Option<ParameterIndex>,
    /// Secondary blend parameter.
    pub y: Option<ParameterIndex>,
    /// The node's children: `children[first..first + count]`.
    pub first: u32,
    pub count: u32,
}

/// A state's blend tree with its nested trees, flattened once: nodes in
/// breadth-first order (the root first, every node after its parent), each
/// node's children contiguous in one array. The trees yield clip *weights*,
/// not poses: a leaf's weight is the product of the child weights on its path
/// (one pass top-down, no stack), and the layer blends the leaves' clips flat,
/// so the three.js mixer semantics of a layer hold for nested trees exactly as
/// for one tree. A one-level tree's leaf weights are its child weights bit for
/// bit (the root's weight is exactly 1).
#[derive(Debug, Clone)]
pub(crate) struct CompiledMotion {
    pub nodes: Vec<TreeNode>,
    pub children: Vec<ChildRef>,
    /// Most children of one node (the scratch a node's local weights need).
    pub widest: usize,
}

impl CompiledMotion {
    /// Scratch floats [`CompiledMotion::leaf_weights`] needs for `leaves` leaves.
    pub fn scratch_len(&self, leaves: usize) -> usize {
        leaves + self.nodes.len() + self.widest
    }

    /// Leaf weights into `out[..leaves]`, using `out[leaves..]` as scratch
    /// (at least [`CompiledMotion::scratch_len`] long); `number` reads a
    /// parameter. Does not allocate.
    pub fn leaf_weights(&self, leaves: usize, number: impl Fn(ParameterIndex) -> f32, out: &mut [f32]) {
        let (leaf, rest) = out.split_at_mut(leaves);
        let (node_w, local) = rest.split_at_mut(self.nodes.len());
        for (k, node) in self.nodes.iter().enumerate() {
            let w = if k == 0 { 1.0 } else { node_w[k] };
            let n = node.count as usize;
            let x = node.x.map_or(0.0, &number);
            let y = node.y.map_or(0.0, &number);
            node.tree.weights(x, y, &mut local[..n]);
            let first = node.first as usize;
            for (c, &lw) in self.children[first..first + n].iter().zip(&local[..n]) {
                // k == 0: `1.0 * lw` is `lw` exactly, so a one-level tree is unchanged.
                match *c {
                    ChildRef::Leaf(i) => leaf[i as usize] = w * lw,
                    ChildRef::Node(m) => node_w[m as usize] = w * lw,
                }
            }
        }
    }
}

/// An [`AnimationGraph`] compiled against a [`ClipTable`].
#[derive(Debug, Clone)]
pub struct GraphDefinition {
    graph: AnimationGraph,
    clips: Arc<ClipTable>,
    pub(crate) states: Vec<CompiledState>,
    /// Per state: indices into `graph.transitions` that may leave it, own first,
    /// then Any State transitions into its layer except into itself.
    pub(crate) outgoing: Vec<Vec<u32>>,
    max_children: usize,
    /// Floats of scratch a state's weights need (leaves, nested tree nodes, a node's children).
    scratch_len: usize,
    /// Each state's name, interned for the events that carry it.
    state_names: Vec<Name>,
    /// Sync group names, in first-use order.
    sync_groups: Vec<Name>,
}

impl GraphDefinition {
    /// Compiles `graph`, resolving clip references by name in `clips`.
    pub fn new(graph: AnimationGraph, clips: Arc<ClipTable>) -> Result<GraphDefinition, RuntimeError> {
        let table = Arc::clone(&clips);
        let mut resolver: &ClipTable = &table;
        Self::with_resolver(graph, clips, &mut resolver)
    }

    /// Compiles `graph`, resolving every clip reference once through `resolver`
    /// (whose handles must be ids of `clips`). Every problem is reported at once.
    pub fn with_resolver<R: AnimationClipResolver<Handle = ClipId>>(
        graph: AnimationGraph,
        clips: Arc<ClipTable>,
        resolver: &mut R,
    ) -> Result<GraphDefinition, RuntimeError> {
        let mut reasons = Vec::new();
        check_shape(&graph, &mut reasons);
        check_machines(&graph, &mut reasons);
        let mut states: Vec<CompiledState> =
            graph.states.iter().map(|s| compile_state(&graph, s, &clips, resolver, &mut reasons)).collect();
        let sync_groups = compile_sync_groups(&graph, &mut states);
        for (i, t) in graph.transitions.iter().enumerate() {
            check_transition(&graph, i, t, &mut reasons);
        }
        RuntimeError::check("graph definition", reasons)?;
        let outgoing = outgoing_transitions(&graph);
        let max_children = states.iter().map(|s| s.clips.len()).max().unwrap_or(1).max(1);
        let scratch_len = states
            .iter()
            .map(|s| s.tree.as_ref().map_or(s.clips.len(), |t| t.scratch_len(s.clips.len())))
            .max()
            .unwrap_or(1)
            .max(1);
        let state_names = graph.states.iter().map(|s| Name::new(&s.name)).collect();
        Ok(GraphDefinition { graph, clips, states, outgoing, max_children, scratch_len, state_names, sync_groups })
    }

    /// The source graph.
    #[must_use]
    pub fn graph(&self) -> &AnimationGraph {
        &self.graph
    }
    /// The clip table.
    #[must_use]
    pub fn clips(&self) -> &Arc<ClipTable> {
        &self.clips
    }
    /// Most clips any state plays at once (1 for clip-only graphs; a nested
    /// tree's clips count).
    #[must_use]
    pub fn max_children(&self) -> usize {
        self.max_children
    }
    /// Scratch floats an instance keeps for evaluating a state's weights.
    #[must_use]
    pub(crate) fn scratch_len(&self) -> usize {
        self.scratch_len
    }
    /// Clips played by `state`, depth first in child order (a nested tree's
    /// clips in its place).
    #[must_use]
    pub fn state_clips(&self, state: StateIndex) -> &[ClipId] {
        &self.states[state.index()].clips
    }
    /// The interned name of `state` ([`Name::EMPTY`] when out of range).
    #[must_use]
    pub fn state_name(&self, state: StateIndex) -> Name {
        self.state_names.get(state.index()).copied().unwrap_or(Name::EMPTY)
    }
    /// Whether some state joins a sync group.
    #[must_use]
    pub fn has_sync_groups(&self) -> bool {
        !self.sync_groups.is_empty()
    }
    /// The sync group `state` joins (an index for [`GraphDefinition::sync_group_name`]).
    #[must_use]
    pub fn sync_group(&self, state: StateIndex) -> Option<u16> {
        self.states.get(state.index()).and_then(|s| s.sync_group)
    }
    /// The name of sync group `group` ([`Name::EMPTY`] when out of range).
    #[must_use]
    pub fn sync_group_name(&self, group: u16) -> Name {
        self.sync_groups.get(usize::from(group)).copied().unwrap_or(Name::EMPTY)
    }
    /// Transitions that may leave `state` (indices into the graph's transitions).
    #[must_use]
    pub fn outgoing(&self, state: StateIndex) -> &[u32] {
        &self.outgoing[state.index()]
    }
}

/// At least one layer and one state, counts that fit the indices, and each
/// layer's entry state and weight.
fn check_shape(graph: &AnimationGraph, reasons: &mut Vec<String>) {
    let n_states = graph.states.len();
    let n_params = graph.parameters.len();
    if graph.layers.is_empty() {
        reasons.push("the graph has no layer".to_owned());
    }
    if n_states == 0 {
        reasons.push("the graph has no state".to_owned());
    }
    if n_states > u16::MAX as usize || n_params > u16::MAX as usize || graph.layers.len() > u16::MAX as usize - 1 {
        reasons.push("too many states, parameters or layers (at most 65535)".to_owned());
    }
    for (l, layer) in graph.layers.iter().enumerate() {
        match graph.states.get(layer.entry.index()) {
            None => reasons.push(format!("layer `{}`: entry state {} is out of range", layer.name, layer.entry.0)),
            Some(s) if s.layer != l => {
                reasons.push(format!("layer `{}`: entry state `{}` belongs to layer {}", layer.name, s.name, s.layer));
            }
            Some(_) => {}
        }
        if !(0.0..=1.0).contains(&layer.weight) {
            reasons.push(format!("layer `{}`: weight {} is outside 0..=1", layer.name, layer.weight));
        }
    }
}

/// State `s` checked and compiled: its clips resolved (an unresolved one
/// becomes clip 0 and a reason), its blend tree built.
fn compile_state<R: AnimationClipResolver<Handle = ClipId>>(
    graph: &AnimationGraph,
    s: &GraphState,
    clips: &ClipTable,
    resolver: &mut R,
    reasons: &mut Vec<String>,
) -> CompiledState {
    if s.layer >= graph.layers.len() {
        reasons.push(format!("state `{}`: layer {} is out of range", s.name, s.layer));
    }
    // The limit `validate` applies too: what validates plays.
    let max = zoa_anim_core::budget::MAX_SPEED;
    if !(s.speed.is_finite() && s.speed > 0.0 && s.speed <= max) {
        reasons.push(format!("state `{}`: speed {} must be > 0 and at most {max}", s.name, s.speed));
    }
    if !(s.crossfade.duration.is_finite() && s.crossfade.duration >= 0.0) {
        reasons.push(format!("state `{}`: crossfade {} must be finite and >= 0", s.name, s.crossfade.duration));
    }
    let mut resolve = |r: &str, reasons: &mut Vec<String>| match resolver.try_resolve(r) {
        Some(id) if clips.try_get(id).is_some() => id,
        _ => {
            reasons.push(format!("state `{}`: clip `{r}` does not resolve", s.name));
            ClipId(0)
        }
    };
    let t = match &s.motion {
        Motion::Clip(r) => return CompiledState { clips: vec![resolve(r, reasons)], tree: None, sync_group: None },
        // Never played itself: entering it enters its entry (`AnimationGraph::leaf_of`).
        Motion::Machine(_) => return CompiledState { clips: Vec::new(), tree: None, sync_group: None },
        Motion::BlendTree(t) => t,
    };
    let mut motion = CompiledMotion { nodes: Vec::new(), children: Vec::new(), widest: 0 };
    let total = t.descendant_count();
    let budgets = [
        zoa_anim_core::budget::BLEND_TREE_DEPTH.check(format!("state `{}`", s.name), s.motion.depth() as u64),
        zoa_anim_core::budget::BLEND_TREE_CHILDREN.check(format!("state `{}`'s blend trees", s.name), total as u64),
    ];
    if let Some(e) = budgets.into_iter().find_map(Result::err) {
        reasons.push(e.to_string());
        return CompiledState { clips: vec![ClipId(0)], tree: None, sync_group: None };
    }
    // Breadth first, each tree with the depth-first number of its first leaf:
    // a subtree's leaves are contiguous in depth-first order, which is the
    // order of the state's clips (`Motion::clips`).
    let mut queue = std::collections::VecDeque::from([(t, 0u32)]);
    while let Some((tree, base)) = queue.pop_front() {
        let first = motion.children.len() as u32;
        let mut leaf = base;
        for child in &tree.children {
            match &child.motion {
                Motion::Clip(_) => {
                    motion.children.push(ChildRef::Leaf(leaf));
                    leaf += 1;
                }
                Motion::BlendTree(sub) => {
                    let node = (motion.nodes.len() + queue.len() + 1) as u32;
                    motion.children.push(ChildRef::Node(node));
                    queue.push_back((sub, leaf));
                    leaf += child.motion.clips().len() as u32;
                }
                Motion::Machine(_) => {
                    reasons.push(format!("state `{}`: a blend-tree child cannot be a sub-state machine", s.name));
                    motion.children.push(ChildRef::Leaf(leaf));
                }
            }
        }
        motion.widest = motion.widest.max(tree.children.len());
        motion.nodes.push(TreeNode {
            tree: compile_tree(graph, tree, &s.name, reasons)
                .unwrap_or_else(|| CompiledBlendTree::direct(&[1.0]).expect("one weight is a tree")),
            x: tree.parameter,
            y: tree.parameter_y,
            first,
            count: tree.children.len() as u32,
        });
    }
    let clips = s.motion.clips().into_iter().map(|r| resolve(r, reasons)).collect();
    CompiledState { clips, tree: Some(motion), sync_group: None }
}

/// One tree's weight function, its axes checked; `None` (reported) when it does not build.
fn compile_tree(
    graph: &AnimationGraph,
    t: &zoa_anim_core::graph::BlendTree,
    state: &str,
    reasons: &mut Vec<String>,
) -> Option<CompiledBlendTree> {
    let built = match t.kind {
        BlendTreeKind::OneD => CompiledBlendTree::one_d(&t.children.iter().map(|c| c.threshold).collect::<Vec<_>>()),
        BlendTreeKind::TwoD => CompiledBlendTree::two_d(
            &t.children.iter().map(|c| [c.threshold, c.threshold_y.unwrap_or(0.0)]).collect::<Vec<_>>(),
            t.weighting,
        ),
        BlendTreeKind::Direct => {
            CompiledBlendTree::direct(&t.children.iter().map(|c| c.weight.unwrap_or(0.0)).collect::<Vec<_>>())
        }
    };
    let tree = built.map_err(|e| reasons.push(format!("state `{state}`: {e}"))).ok();
    let number_param = |p: Option<ParameterIndex>| match p {
        None => true,
        Some(p) => graph.parameters.get(p.index()).is_some_and(|d| d.default.is_number()),
    };
    if t.kind != BlendTreeKind::Direct && (t.parameter.is_none() || !number_param(t.parameter)) {
        reasons.push(format!("state `{state}`: the blend parameter is missing or not a number"));
    }
    if t.kind == BlendTreeKind::TwoD && (t.parameter_y.is_none() || !number_param(t.parameter_y)) {
        reasons.push(format!("state `{state}`: the second blend parameter is missing or not a number"));
    }
    tree
}

/// Numbers the sync groups in first-use order and notes each state's.
fn compile_sync_groups(graph: &AnimationGraph, states: &mut [CompiledState]) -> Vec<Name> {
    let mut names: Vec<Name> = Vec::new();
    for (s, cs) in graph.states.iter().zip(states.iter_mut()) {
        let Some(group) = s.sync_group.as_deref() else { continue };
        let name = Name::new(group);
        let i = names.iter().position(|n| *n == name).unwrap_or_else(|| {
            names.push(name);
            names.len() - 1
        });
        cs.sync_group = Some(i.min(usize::from(u16::MAX)) as u16);
    }
    names
}

/// Per state, the transitions that may leave it: its own in authored order,
/// then Any State transitions into its layer except into itself.
fn outgoing_transitions(graph: &AnimationGraph) -> Vec<Vec<u32>> {
    (0..graph.states.len())
        .map(|s| graph.transition_indices_from(StateIndex(s as u16)).map(|i| i as u32).collect())
        .collect()
}

/// Sub-state machines: each state's machine is a machine state of its
/// layer, machines do not contain themselves, a machine's entry is inside it,
/// and nesting is at most [`zoa_anim_core::budget::STATE_MACHINE_DEPTH`] deep.
fn check_machines(graph: &AnimationGraph, reasons: &mut Vec<String>) {
    use zoa_anim_core::budget::STATE_MACHINE_DEPTH;
    for (i, s) in graph.states.iter().enumerate() {
        let me = StateIndex(i as u16);
        if let Some(m) = s.machine {
            match graph.states.get(m.index()) {
                Some(ms) if matches!(ms.motion, Motion::Machine(_)) && ms.layer == s.layer => {}
                Some(ms) => reasons.push(format!(
                    "state `{}`: its machine `{}` is not a sub-state machine of layer {}",
                    s.name, ms.name, s.layer
                )),
                None => reasons.push(format!("state `{}`: machine {} is out of range", s.name, m.0)),
            }
        }
        let depth = graph.machines_of(me).count();
        if graph.machines_of(me).any(|m| m == me) || depth >= graph.states.len().max(1) {
            reasons.push(format!("state `{}`: its machines contain one another in a loop", s.name));
        } else if let Err(e) = STATE_MACHINE_DEPTH.check(format!("state `{}`", s.name), depth as u64) {
            reasons.push(e.to_string());
        }
        if let Motion::Machine(entry) = s.motion {
            let inside = graph.states.get(entry.index()).is_some_and(|e| e.machine == Some(me));
            if !inside {
                reasons.push(format!("sub-state machine `{}`: its entry is not one of its own states", s.name));
            }
        }
    }
}

fn check_transition(graph: &AnimationGraph, i: usize, t: &GraphTransition, reasons: &mut Vec<String>) {
    let n = graph.states.len();
    let Some(to) = graph.states.get(t.to.index()) else {
        reasons.push(format!("transition {i}: target state {} is out of range", t.to.0));
        return;
    };
    if let TransitionSource::State(from) = t.from {
        match graph.states.get(from.index()) {
            None => reasons.push(format!("transition {i}: source state {} is out of range (of {n})", from.0)),
            Some(f) if f.layer != to.layer => reasons.push(format!(
                "transition {i}: `{}` (layer {}) -> `{}` (layer {}) crosses layers",
                f.name, f.layer, to.name, to.layer
            )),
            Some(_) => {}
        }
    }
    if let Some(e) = t.exit_time
        && !(e.is_finite() && e >= 0.0)
    {
        reasons.push(format!("transition {i}: exit time {e} must be finite and >= 0"));
    }
    if !(t.blend.is_finite() && t.blend >= 0.0) {
        reasons.push(format!("transition {i}: blend {} must be finite and >= 0", t.blend));
    }
    for c in &t.conditions {
        let Some(p) = graph.parameters.get(c.parameter.index()) else {
            reasons.push(format!("transition {i}: condition parameter {} is out of range", c.parameter.0));
            continue;
        };
        let ok = match c.test {
            ConditionTest::CompareFloat(..) | ConditionTest::CompareInt(..) => p.default.is_number(),
            ConditionTest::IsTrue | ConditionTest::IsFalse => matches!(p.default, ParameterDefault::Bool(_)),
            ConditionTest::Triggered => matches!(p.default, ParameterDefault::Trigger),
        };
        if !ok {
            reasons.push(format!(
                "transition {i}: condition on `{}` does not fit its type {}",
                p.name,
                p.default.type_name()
            ));
        }
    }
}

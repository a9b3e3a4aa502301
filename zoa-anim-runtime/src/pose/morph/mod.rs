//! Morph-target (blend-shape) weights: which nodes of a model have them,
//! how a clip's `weights` tracks are sampled, and how they blend.
//!
//! Morph weights travel beside the joints, through the same frame: a
//! [`MorphSet`] (built once per skeleton from the model's
//! [`zoa_anim_core::MorphNode`]s, kept in the [`crate::pose::RuntimeSkeleton`])
//! lays every morphed node's weights out in one flat array; an
//! [`crate::pose::Animation`] bound with [`crate::pose::Animation::bind_to`]
//! keeps its clip's weight tracks against that layout; and the
//! [`crate::pose::ComposeJob`] that blends a frame's joints blends the weights
//! of the same inputs, with the same weights, into a [`MorphPose`] — when it is
//! given one and the set is not empty. A model without morph targets pays
//! nothing.
//!
//! Semantics are three.js's `morphTargetInfluences`, a number property mixed
//! like a translation: within a layer `W += w; v = lerp(v, x, w/W)`, the
//! default weights fill what is missing below `W = 1`, additive inputs add
//! `w·(x − ref)`; between layers as the joints compose
//! ([`crate::pose::Composition`]). The blend is the pose engine's one blend
//! of numbers ([`crate::pose::scalars`]), a slot per morphed node. A layer's bone mask weighs a node's weights
//! as it weighs the node's nearest joint (itself, or its nearest ancestor
//! that is a joint of the skeleton); a node below no joint is not masked.
//! Sampling is glTF 2.0's: STEP holds a key, LINEAR lerps, CUBICSPLINE is
//! the Hermite spline with tangents scaled by the key interval, times before
//! the first or after the last key hold that key.

mod channels;
#[cfg(test)]
mod tests;

use std::ops::Range;

use zoa_anim_core::{MorphNode, Skeleton};

pub(crate) use channels::MorphChannels;

use crate::pose::scalars::{ScalarLayout, ScalarPose};

/// One morphed node in a [`MorphSet`].
#[derive(Debug, Clone, PartialEq)]
pub struct MorphSlot {
    /// glTF node index.
    pub node: u32,
    /// Node name, when the file gave one.
    pub name: Option<String>,
    /// Its weights in the set's flat array (one per morph target).
    pub range: Range<usize>,
    /// The joint whose mask weight applies to it (see the module docs).
    pub joint: Option<u16>,
}

/// Every morphed node of a model, laid out in one flat weight array, with
/// the default weights. Empty for a model without morph targets.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MorphSet {
    slots: Vec<MorphSlot>,
    defaults: Vec<f32>,
}

impl MorphSet {
    /// The layout of `nodes` (in their order) against `skeleton`, whose
    /// joints give the nodes their mask weight.
    #[must_use]
    pub fn new(nodes: &[MorphNode], skeleton: &Skeleton) -> MorphSet {
        let mut set = MorphSet::default();
        for n in nodes {
            let start = set.defaults.len();
            set.defaults.extend_from_slice(&n.weights);
            let joint = std::iter::once(n.node)
                .chain(n.ancestors.iter().copied())
                .find_map(|node| skeleton.find_node(node))
                .and_then(|j| u16::try_from(j).ok());
            set.slots.push(MorphSlot { node: n.node, name: n.name.clone(), range: start..set.defaults.len(), joint });
        }
        set
    }
    /// Whether the model has no morphed node.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }
    /// The morphed nodes, in the order the set was built.
    #[must_use]
    pub fn slots(&self) -> &[MorphSlot] {
        &self.slots
    }
    /// The slot of glTF node `node`.
    #[must_use]
    pub fn find_node(&self, node: u32) -> Option<usize> {
        self.slots.iter().position(|s| s.node == node)
    }
    /// The slot of the node named `name`.
    #[must_use]
    pub fn find_name(&self, name: &str) -> Option<usize> {
        self.slots.iter().position(|s| s.name.as_deref() == Some(name))
    }
    /// Every slot's default weights, flat.
    #[must_use]
    pub fn defaults(&self) -> &[f32] {
        &self.defaults
    }
    /// Total weights over every slot.
    #[must_use]
    pub fn weight_count(&self) -> usize {
        self.defaults.len()
    }
}

impl ScalarLayout for MorphSet {
    fn slot_count(&self) -> usize {
        self.slots.len()
    }
    fn slot_range(&self, s: usize) -> Range<usize> {
        self.slots[s].range.clone()
    }
    fn slot_joint(&self, s: usize) -> Option<u16> {
        self.slots[s].joint
    }
    fn defaults(&self) -> &[f32] {
        &self.defaults
    }
}

/// The blended morph weights of one character or player, flat in its
/// [`MorphSet`]'s layout, with the state their blend reuses every frame
/// (sized once; blending allocates nothing).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MorphPose(pub(crate) ScalarPose);

impl MorphPose {
    /// The default weights of `set`, with room to blend them.
    #[must_use]
    pub fn new(set: &MorphSet) -> MorphPose {
        MorphPose(ScalarPose::new(set))
    }
    /// Every weight, flat in the set's layout.
    #[must_use]
    pub fn weights(&self) -> &[f32] {
        &self.0.values
    }
    /// The weights of `slot` (one per morph target of its node).
    #[must_use]
    pub fn of(&self, slot: &MorphSlot) -> &[f32] {
        self.0.values.get(slot.range.clone()).unwrap_or_default()
    }
    /// `self = lerp(self, other, t)` weight by weight (a cross-fade toward
    /// `other`, as [`crate::pose::blend_into`] does for joints). Two poses of
    /// different layouts are left as they are.
    pub fn blend_toward(&mut self, other: &MorphPose, t: f32) {
        self.0.blend_toward(&other.0, t);
    }
    /// Whether it is laid out for `set`.
    #[must_use]
    pub fn fits(&self, set: &MorphSet) -> bool {
        self.0.fits(set)
    }
}

//! A graph's bone masks resolved against one skeleton: per layer and per
//! state, the per-joint weights a [`MaskRef`] of the graph's frames names.

use zoa_anim_core::graph::BoneMask;

use super::definition::GraphDefinition;
use super::output::MaskRef;
use crate::error::RuntimeError;
use crate::pose::RuntimeSkeleton;
use crate::pose::bone_weights::BoneWeights;

/// Resolved bone masks of one graph (`None` = every bone).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GraphMasks {
    layers: Vec<Option<BoneWeights>>,
    states: Vec<Option<BoneWeights>>,
}

impl GraphMasks {
    /// Resolves the layer and state masks of `def` against `skeleton`; every
    /// unknown joint name of every mask is reported.
    pub fn new(def: &GraphDefinition, skeleton: &RuntimeSkeleton) -> Result<GraphMasks, RuntimeError> {
        let mut problems = Vec::new();
        let mut resolve = |m: &Option<BoneMask>| -> Option<BoneWeights> {
            let m = m.as_ref()?;
            BoneWeights::from_names(skeleton.skeleton(), &m.include, &m.exclude)
                .map_err(|e| problems.push(e.to_string()))
                .ok()
        };
        let g = def.graph();
        let layers = g.layers.iter().map(|l| resolve(&l.bone_mask)).collect();
        let states = g.states.iter().map(|s| resolve(&s.bone_mask)).collect();
        RuntimeError::check("graph masks", problems)?;
        Ok(GraphMasks { layers, states })
    }

    /// The per-joint weights `m` names (`None` for every bone, or a mask the graph does not have).
    pub fn get(&self, m: MaskRef) -> Option<&[f32]> {
        let mask = match m {
            MaskRef::None => None,
            MaskRef::Layer(l) => self.layers.get(usize::from(l)).and_then(Option::as_ref),
            MaskRef::State(s) => self.states.get(s.index()).and_then(Option::as_ref),
        };
        mask.map(BoneWeights::weights)
    }
}

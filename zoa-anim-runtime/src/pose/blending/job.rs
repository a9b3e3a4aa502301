//! The blending job: layers of inputs all at hand, validated and blended in
//! one call.

use super::input::{Place, check_begin, check_input, check_weight};
use super::{BlendLayer, BlendingContext, Composition};
use crate::error::RuntimeError;
use crate::pose::Pose;

/// Blends layers of weighted inputs over a rest pose in one call (see the
/// module docs for the two compositions). `run` does not allocate.
#[derive(Debug)]
pub struct BlendingJob<'a> {
    /// The skeleton's rest pose (fills weight below 1 of the base layer).
    pub rest: &'a Pose,
    /// Layers bottom to top.
    pub layers: &'a [BlendLayer<'a>],
    /// Layer stack or one three.js mixer.
    pub composition: Composition,
    /// Blending state; capacity at least the joint count.
    pub context: &'a mut BlendingContext,
    /// Output local pose, same joint count as `rest`.
    pub output: &'a mut Pose,
}

impl BlendingJob<'_> {
    /// Every reason this job cannot run.
    pub fn validate(&self) -> Result<(), RuntimeError> {
        let n = self.rest.len();
        let mut reasons = Vec::new();
        check_begin(n, self.output.len(), self.context.capacity(), &mut reasons);
        for (l, layer) in self.layers.iter().enumerate() {
            check_weight(Place::Layer(l), layer.weight, &mut reasons);
            for (i, input) in layer.inputs.iter().enumerate() {
                check_input(Place::LayerInput(l, i), input, layer.mode, n, &mut reasons);
            }
        }
        RuntimeError::check("blending job", reasons)
    }

    /// Validates, then blends.
    pub fn run(self) -> Result<(), RuntimeError> {
        self.validate()?;
        let mut blender = self.context.begin(self.composition, self.rest, self.output)?;
        let mut final_input = None;
        for (l, layer) in self.layers.iter().enumerate() {
            blender.layer(layer.mode, layer.weight);
            let Some((last, inputs)) = layer.inputs.split_last() else { continue };
            for input in inputs {
                blender.add(input)?;
            }
            if l + 1 == self.layers.len() {
                final_input = Some(last);
            } else {
                blender.add_last(last)?;
            }
        }
        match final_input {
            Some(input) => blender.finish_with(input),
            None => {
                blender.finish();
                Ok(())
            }
        }
    }
}

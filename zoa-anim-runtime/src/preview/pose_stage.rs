//! The pose stage of the preview: a [`FrameOutput`] becomes a local pose
//! (sample every contribution, three.js blending over the rest pose, additive
//! layers against each clip's first frame) and then model-space joints.
//!
//! Everything is sized in [`PoseStage::new`]; [`PoseStage::evaluate`] allocates nothing.

use std::sync::Arc;

use glam::Mat4;
use zoa_anim_core::graph::BlendMode;

use crate::animation::{Animation, SamplingContext, SamplingJob};
use crate::blending::{BlendInput, BlendMode as PoseBlendMode, BlendingContext, Composition, ReferencePose};
use crate::error::RuntimeError;
use crate::graph::{FrameOutput, GraphMasks};
use crate::pose::{Pose, RuntimeSkeleton};

/// Caller-owned buffers that turn frames into model-space joints.
#[derive(Debug, Clone)]
pub(crate) struct PoseStage {
    skeleton: RuntimeSkeleton,
    contexts: Vec<SamplingContext>,
    references: Vec<ReferencePose>,
    blending: BlendingContext,
    scratch: Pose,
    local: Pose,
    model: Vec<Mat4>,
}

impl PoseStage {
    /// Buffers for `skeleton` and `animations` (indexed by clip id).
    pub(crate) fn new(skeleton: RuntimeSkeleton, animations: &[Arc<Animation>]) -> Result<PoseStage, RuntimeError> {
        let rest = skeleton.rest().clone();
        let references = animations
            .iter()
            .map(|a| a.sample_to_new(0.0, &rest).map(|p| ReferencePose::from_pose(&p)))
            .collect::<Result<Vec<_>, RuntimeError>>()?;
        let n = skeleton.joint_count();
        Ok(PoseStage {
            contexts: animations.iter().map(|a| SamplingContext::for_animation(a)).collect(),
            references,
            blending: BlendingContext::new(n),
            scratch: rest.clone(),
            local: rest,
            model: vec![Mat4::IDENTITY; n],
            skeleton,
        })
    }

    /// The skeleton.
    pub(crate) fn skeleton(&self) -> &RuntimeSkeleton {
        &self.skeleton
    }

    /// The rest pose.
    pub(crate) fn rest(&self) -> &Pose {
        self.skeleton.rest()
    }

    /// Model-space matrices of the last evaluation.
    pub(crate) fn model(&self) -> &[Mat4] {
        &self.model
    }

    /// Samples and blends `frame` (masks from `masks`), then computes model space.
    pub(crate) fn evaluate(
        &mut self,
        animations: &[Arc<Animation>],
        frame: &FrameOutput,
        masks: &GraphMasks,
    ) -> Result<(), RuntimeError> {
        // One three.js mixer over every contribution (override first, then additive).
        let mut blender = self.blending.begin(Composition::Mixer, self.skeleton.rest(), &mut self.local)?;
        for pass in [BlendMode::Override, BlendMode::Additive] {
            blender.layer(
                if pass == BlendMode::Override { PoseBlendMode::Override } else { PoseBlendMode::Additive },
                1.0,
            );
            for layer in &frame.layers {
                for c in &frame.contributions[layer.contributions.clone()] {
                    if c.blend_mode != pass || c.weight <= 0.0 {
                        continue;
                    }
                    let Some(animation) = animations.get(c.clip.index()) else { continue };
                    SamplingJob {
                        animation,
                        time: c.time,
                        context: &mut self.contexts[c.clip.index()],
                        output: &mut self.scratch,
                    }
                    .run()?;
                    let input = BlendInput {
                        pose: &self.scratch,
                        animated: animation.animated(),
                        weight: c.weight,
                        mask: masks.get(c.mask),
                        reference: Some(&self.references[c.clip.index()]),
                    };
                    blender.add(&input)?;
                }
            }
        }
        blender.finish();
        crate::model::LocalToModelJob {
            skeleton: &self.skeleton,
            input: &self.local,
            root: None,
            output: &mut self.model,
        }
        .run()
    }
}

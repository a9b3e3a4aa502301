//! The clip player: layers of clips or blend trees on their own clocks,
//! composed like a three.js `AnimationMixer` (or stacked Unity-style) — the
//! pose engine's own way to play clips for a caller without graphs or tags
//! (the command line's `pose` and `bench`, an engine that decides what plays
//! itself).
//!
//! A [`ClipPlayer`] owns what one skeleton needs per frame: its layers, a
//! [`PoseStack`] it rewrites from them each frame (times and weights only;
//! its shape is fixed when the player is built), one sampling context per
//! clip input, the local pose and model matrices. The stack goes through the
//! same [`ComposeJob`] a character's frame does, so the player and a
//! character differ only in what decides the stack. What a frame keeps (key
//! cursors, local pose, model matrices) is sized in [`ClipPlayer::new`]; the
//! scratch a frame rewrites ([`PoseScratch`]) is lent by a [`crate::pose::Crowd`]
//! run's first member to the others, or allocated at the first evaluation
//! without a lender. After that, [`ClipPlayer::advance`] and
//! [`ClipPlayer::evaluate`] allocate nothing. Shared read-only data
//! (skeletons, animations, masks) sits behind `Arc`.
//!
//! A player may carry an [`IkStage`]: the rig policy's IK, applied after
//! blending and before local-to-model.

use std::sync::Arc;

use glam::Mat4;

use crate::error::RuntimeError;
use crate::pose::animation::{Animation, SamplingContext};
use crate::pose::blend_tree::{CompiledBlendTree, SyncClock};
use crate::pose::blending::{BlendMode, Composition, ReferencePose, prepare_reference};
use crate::pose::bone_weights::BoneWeights;
use crate::pose::compose::{ComposeJob, NONE, PoseScratch, PoseStack, StackInput, StackSources};
use crate::pose::ik_stage::IkStage;
use crate::pose::math::{clamp_time, wrap_time};
use crate::pose::model::LocalToModelJob;
use crate::pose::morph::MorphPose;
use crate::pose::{Pose, RuntimeSkeleton};

/// A clip and how its time maps to clip time.
#[derive(Debug, Clone)]
pub struct BoundMotion {
    /// The animation, bound to the instance's skeleton.
    pub animation: Arc<Animation>,
    /// Loop (`t − d·floor(t/d)`) or play once (clamp to `[0, d]`). Default: loop.
    pub looping: bool,
}

impl BoundMotion {
    /// A looping motion.
    #[must_use]
    pub fn looping(animation: Arc<Animation>) -> BoundMotion {
        BoundMotion { animation, looping: true }
    }
    /// A one-shot motion.
    #[must_use]
    pub fn once(animation: Arc<Animation>) -> BoundMotion {
        BoundMotion { animation, looping: false }
    }
    /// Clip time of layer time `t`, seconds.
    #[must_use]
    pub fn clip_time(&self, t: f32) -> f32 {
        let d = self.animation.duration();
        if self.looping { wrap_time(t, d) } else { clamp_time(t, d) }
    }
}

/// Reference pose of an additive layer.
#[derive(Debug, Clone)]
pub enum AdditiveReference {
    /// The layer's own clip at this clip time, seconds (three.js default: 0,
    /// i.e. each track's first key).
    Time(f32),
    /// Another animation (bound to the same skeleton) at a clip time; joint
    /// properties it does not animate use the rest pose.
    Clip {
        /// Reference animation.
        animation: Arc<Animation>,
        /// Clip time, seconds.
        time: f32,
    },
}

impl Default for AdditiveReference {
    fn default() -> Self {
        AdditiveReference::Time(0.0)
    }
}

/// What a layer plays.
#[derive(Debug, Clone)]
pub enum LayerSource {
    /// One clip.
    Clip {
        /// The clip.
        motion: BoundMotion,
        /// Layer time in seconds, before looping / clamping.
        time: f32,
        /// Speed multiplier (negative plays backwards); default 1.
        speed: f32,
    },
    /// A blend tree over several clips sharing one normalized clock.
    Tree {
        /// Weighting rule.
        tree: CompiledBlendTree,
        /// One motion per tree child, in child order.
        motions: Vec<BoundMotion>,
        /// Primary parameter.
        x: f32,
        /// Secondary parameter (2D trees).
        y: f32,
        /// Shared clock; loops unless every motion is one-shot.
        clock: SyncClock,
        /// Speed multiplier; default 1.
        speed: f32,
    },
}

impl LayerSource {
    /// A clip source starting at time 0, speed 1.
    #[must_use]
    pub fn clip(motion: BoundMotion) -> LayerSource {
        LayerSource::Clip { motion, time: 0.0, speed: 1.0 }
    }
    fn motions(&self) -> &[BoundMotion] {
        match self {
            LayerSource::Clip { motion, .. } => std::slice::from_ref(motion),
            LayerSource::Tree { motions, .. } => motions,
        }
    }
}

/// One layer of a stack: weight, blend mode, bone mask, source.
#[derive(Debug, Clone)]
pub struct Layer {
    /// Name, for errors.
    pub name: String,
    /// Weight in `0..=1`; default 1.
    pub weight: f32,
    /// Override (default) or additive.
    pub mode: BlendMode,
    /// Optional per-joint mask.
    pub mask: Option<Arc<BoneWeights>>,
    /// Reference of an additive layer (ignored for override).
    pub reference: AdditiveReference,
    /// What plays.
    pub source: LayerSource,
}

impl Layer {
    /// A full-weight override layer.
    pub fn new(name: impl Into<String>, source: LayerSource) -> Layer {
        Layer {
            name: name.into(),
            weight: 1.0,
            mode: BlendMode::Override,
            mask: None,
            reference: AdditiveReference::default(),
            source,
        }
    }
    /// Builder: weight.
    #[must_use]
    pub fn with_weight(mut self, weight: f32) -> Layer {
        self.weight = weight;
        self
    }
    /// Builder: additive against `reference`.
    #[must_use]
    pub fn additive(mut self, reference: AdditiveReference) -> Layer {
        self.mode = BlendMode::Additive;
        self.reference = reference;
        self
    }
    /// Builder: mask.
    #[must_use]
    pub fn with_mask(mut self, mask: Arc<BoneWeights>) -> Layer {
        self.mask = Some(mask);
        self
    }
}

/// Where each stack input of a player comes from: its layer and child.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Input {
    layer: u32,
    child: u32,
}

/// A skeleton, a layer stack and its buffers (see the module docs).
#[derive(Debug, Clone)]
pub struct ClipPlayer {
    skeleton: Arc<RuntimeSkeleton>,
    layers: Vec<Layer>,
    /// One per clip input, in stack order.
    inputs: Vec<Input>,
    /// Each input's animation (kept in step with the layers' motions by
    /// [`ClipPlayer::write_stack`]).
    animations: Vec<Arc<Animation>>,
    /// Additive references, one per input (of an additive layer).
    references: Vec<Option<ReferencePose>>,
    /// Key cursors, one per input.
    contexts: Vec<SamplingContext>,
    /// Each tree layer's child weights (`inputs` order within the layer).
    tree_weights: Vec<f32>,
    stack: PoseStack,
    /// Allocated at the first evaluation without a lender; boxed, like the
    /// IK stage, so that the player itself stays small in a crowd's array.
    scratch: Option<Box<PoseScratch>>,
    composition: Composition,
    local: Pose,
    model: Vec<Mat4>,
    compute_model: bool,
    ik: Option<Box<IkStage>>,
    /// The blended morph weights, when the skeleton has morphed nodes
    /// (boxed: most players have none).
    morphs: Option<Box<MorphPose>>,
}

/// The player's layers, masks and references, as a [`ComposeJob`] reads them.
struct Sources<'a> {
    layers: &'a [Layer],
    animations: &'a [Arc<Animation>],
    references: &'a [Option<ReferencePose>],
}

impl StackSources for Sources<'_> {
    #[inline]
    fn animation(&self, i: u32) -> &Animation {
        &self.animations[i as usize]
    }
    #[inline]
    fn mask(&self, m: u32) -> Option<&[f32]> {
        self.layers.get(m as usize)?.mask.as_deref().map(BoneWeights::weights)
    }
    #[inline]
    fn reference(&self, r: u32) -> Option<&ReferencePose> {
        self.references.get(r as usize)?.as_ref()
    }
}

impl ClipPlayer {
    /// Checks the stack against the skeleton and sizes every buffer.
    pub fn new(skeleton: Arc<RuntimeSkeleton>, layers: Vec<Layer>) -> Result<ClipPlayer, RuntimeError> {
        let n = skeleton.joint_count();
        let mut inputs = Vec::new();
        let mut animations = Vec::new();
        let mut references = Vec::new();
        let mut contexts = Vec::new();
        let mut stack = PoseStack::with_capacity(layers.len(), layers.iter().map(|l| l.source.motions().len()).sum());
        for (l, layer) in layers.iter().enumerate() {
            let bad = |reason: String| RuntimeError::InvalidLayer { layer: layer.name.clone(), reason };
            if !(0.0..=1.0).contains(&layer.weight) {
                return Err(bad(format!("weight {} is outside 0..=1", layer.weight)));
            }
            if let Some(m) = &layer.mask
                && m.weights().len() != n
            {
                return Err(bad(format!("mask has {} weights, skeleton has {n} joints", m.weights().len())));
            }
            if let LayerSource::Tree { tree, motions, .. } = &layer.source
                && tree.child_count() != motions.len()
            {
                return Err(bad(format!("tree has {} children but {} motions", tree.child_count(), motions.len())));
            }
            stack.layer(layer.mode, layer.weight);
            for (c, motion) in layer.source.motions().iter().enumerate() {
                let a = &motion.animation;
                if a.joint_count() != n {
                    return Err(bad(format!(
                        "animation `{}` is bound to {} joints, skeleton has {n}",
                        a.name(),
                        a.joint_count()
                    )));
                }
                let reference = match (layer.mode, &layer.reference) {
                    (BlendMode::Override, _) => None,
                    (BlendMode::Additive, AdditiveReference::Time(t)) => {
                        let make = || Ok(prepare_reference(&a.sample_to_new(*t, skeleton.rest())?));
                        let reference = ReferencePose::from_prepared(a.shared_reference(*t, make)?);
                        Some(with_morphs(reference, a, *t, &skeleton))
                    }
                    (BlendMode::Additive, AdditiveReference::Clip { animation, time }) => {
                        if animation.joint_count() != n {
                            return Err(bad(format!("reference `{}` is bound to another skeleton", animation.name())));
                        }
                        let reference = ReferencePose::from_pose(&animation.sample_to_new(*time, skeleton.rest())?);
                        Some(with_morphs(reference, animation, *time, &skeleton))
                    }
                };
                let i = inputs.len() as u32;
                let has_reference = reference.is_some();
                stack.push(StackInput {
                    animation: i,
                    cursor: i,
                    time: 0.0,
                    weight: 1.0,
                    mask: if layer.mask.is_some() { l as u32 } else { NONE },
                    reference: if has_reference { i } else { NONE },
                });
                inputs.push(Input { layer: l as u32, child: c as u32 });
                animations.push(Arc::clone(a));
                references.push(reference);
                contexts.push(SamplingContext::for_animation(a));
            }
        }
        let morphs = (!skeleton.morphs().is_empty()).then(|| Box::new(MorphPose::new(skeleton.morphs())));
        Ok(ClipPlayer {
            tree_weights: vec![0.0; inputs.len()],
            inputs,
            animations,
            references,
            contexts,
            stack,
            scratch: None,
            composition: Composition::Mixer,
            local: skeleton.rest().clone(),
            model: vec![Mat4::IDENTITY; n],
            skeleton,
            layers,
            compute_model: true,
            ik: None,
            morphs,
        })
    }

    /// How the layers compose (default [`Composition::Mixer`]: the layers are
    /// the actions of one three.js `AnimationMixer`, as `zoa-anim pose --mix`
    /// promises; [`Composition::Layered`] stacks them Unity-style).
    pub fn set_composition(&mut self, composition: Composition) {
        self.composition = composition;
    }
    /// Builder form of [`set_composition`](Self::set_composition).
    #[must_use]
    pub fn with_composition(mut self, composition: Composition) -> ClipPlayer {
        self.composition = composition;
        self
    }
    /// The layer composition.
    #[must_use]
    pub fn composition(&self) -> Composition {
        self.composition
    }

    /// Whether [`ClipPlayer::evaluate`] also computes model-space matrices
    /// (default true).
    pub fn set_compute_model(&mut self, on: bool) {
        self.compute_model = on;
    }
    /// Installs (or with `None` removes) the IK stage run after blending.
    /// Errors when the stage was built for a skeleton of another joint count.
    pub fn set_ik(&mut self, stage: Option<IkStage>) -> Result<(), RuntimeError> {
        if let Some(s) = &stage
            && s.joint_count() != self.skeleton.joint_count()
        {
            return Err(RuntimeError::InvalidJob {
                job: "IK stage",
                reasons: vec![format!(
                    "stage holds {} joints, skeleton has {}",
                    s.joint_count(),
                    self.skeleton.joint_count()
                )],
            });
        }
        self.ik = stage.map(Box::new);
        Ok(())
    }
    /// Builder form of [`set_ik`](Self::set_ik).
    pub fn with_ik(mut self, stage: IkStage) -> Result<ClipPlayer, RuntimeError> {
        self.set_ik(Some(stage))?;
        Ok(self)
    }
    /// The IK stage, if any.
    #[must_use]
    pub fn ik(&self) -> Option<&IkStage> {
        self.ik.as_deref()
    }
    /// The IK stage, to set its per-frame inputs between frames.
    pub fn ik_mut(&mut self) -> Option<&mut IkStage> {
        self.ik.as_deref_mut()
    }
    /// The skeleton.
    #[must_use]
    pub fn skeleton(&self) -> &Arc<RuntimeSkeleton> {
        &self.skeleton
    }
    /// The layers.
    #[must_use]
    pub fn layers(&self) -> &[Layer] {
        &self.layers
    }
    /// The layers, to change weights, times and parameters between frames.
    /// Replacing a motion's animation with one of more tracks, or changing a
    /// tree's child count, makes the next evaluation fail validation.
    pub fn layers_mut(&mut self) -> &mut [Layer] {
        &mut self.layers
    }
    /// Local pose of the last evaluation.
    #[must_use]
    pub fn local_pose(&self) -> &Pose {
        &self.local
    }
    /// Morph weights of the last evaluation, laid out for the skeleton's
    /// [`crate::pose::MorphSet`] (`None` when it has no morphed node).
    #[must_use]
    pub fn morph_pose(&self) -> Option<&MorphPose> {
        self.morphs.as_deref()
    }
    /// Model-space matrices of the last evaluation (when enabled).
    #[must_use]
    pub fn model_matrices(&self) -> &[Mat4] {
        &self.model
    }
    /// The stack the last evaluation composed (what played, with which weights).
    #[must_use]
    pub fn stack(&self) -> &PoseStack {
        &self.stack
    }

    /// Moves every layer's clock by `dt` seconds times its speed, and gives
    /// the IK stage `dt` for its smoothing. Does not allocate.
    #[inline]
    pub fn advance(&mut self, dt: f32) {
        if let Some(ik) = &mut self.ik {
            ik.advance(dt);
        }
        let mut at = 0;
        for layer in &mut self.layers {
            let count = layer.source.motions().len();
            let weights = &mut self.tree_weights[at..at + count];
            at += count;
            match &mut layer.source {
                LayerSource::Clip { time, speed, .. } => *time += dt * *speed,
                LayerSource::Tree { tree, motions, x, y, clock, speed } => {
                    if weights.len() == tree.child_count() {
                        tree.weights(*x, *y, weights);
                    }
                    let cycle = SyncClock::cycle_length(weights, motions.iter().map(|m| m.animation.duration()));
                    let looping = motions.iter().any(|m| m.looping);
                    clock.advance(dt * *speed, cycle, looping);
                }
            }
        }
    }

    /// Samples every layer, blends, applies the IK stage (when installed),
    /// and (when enabled) computes model-space matrices. Allocates nothing
    /// but, at the first call, the player's scratch (see the module docs).
    /// On an error (a layer time that is not finite, a tree whose child count
    /// changed) the local pose is left part-way and the model matrices as
    /// they were.
    pub fn evaluate(&mut self) -> Result<(), RuntimeError> {
        self.evaluate_with(false, None)
    }

    /// Rewrites the stack's times and weights from the layers; the tree
    /// weights are recomputed unless `tree_weights_fresh` ([`advance`](Self::advance)
    /// just computed them). A tree's children that play the same animation
    /// one after another share its clock, so they sample the same pose: the
    /// first carries their summed weight and the others none (accumulating
    /// `x` onto `x` leaves `x`; bit for bit when the tree's inputs are the
    /// first of the blend, at full layer weight and unmasked, otherwise up to
    /// the rounding of the sum). Repeats happen in blend spaces that place
    /// one clip at several points.
    #[inline]
    fn write_stack(&mut self, tree_weights_fresh: bool) -> Result<(), RuntimeError> {
        let mut at = 0usize;
        for (layer, stack_layer) in self.layers.iter().zip(&mut self.stack.layers) {
            stack_layer.weight = layer.weight;
            stack_layer.mode = layer.mode;
            let range = stack_layer.inputs.start as usize..stack_layer.inputs.end as usize;
            let inputs = &mut self.stack.inputs[range.clone()];
            let weights = &mut self.tree_weights[range];
            at += inputs.len();
            match &layer.source {
                LayerSource::Clip { motion, time, .. } => {
                    inputs[0].time = motion.clip_time(*time);
                    inputs[0].weight = 1.0;
                }
                LayerSource::Tree { tree, motions, x, y, clock, .. } => {
                    if tree.child_count() != inputs.len() || motions.len() != inputs.len() {
                        return Err(RuntimeError::InvalidLayer {
                            layer: layer.name.clone(),
                            reason: "the tree's child count changed after the player was built".into(),
                        });
                    }
                    if !tree_weights_fresh {
                        tree.weights(*x, *y, weights);
                    }
                    let mut lead: Option<usize> = None;
                    for (k, (motion, &w)) in motions.iter().zip(weights.iter()).enumerate() {
                        inputs[k].time = clock.child_time(motion.animation.duration());
                        inputs[k].weight = 0.0;
                        if w.is_nan() || w <= 0.0 {
                            continue;
                        }
                        match lead {
                            Some(l) if Arc::ptr_eq(&motions[l].animation, &motion.animation) => inputs[l].weight += w,
                            _ => {
                                inputs[k].weight = w;
                                lead = Some(k);
                            }
                        }
                    }
                }
            }
        }
        debug_assert_eq!(at, self.stack.inputs.len());
        // A motion's animation may have been replaced through `layers_mut`.
        for (input, animation) in self.inputs.iter().zip(&mut self.animations) {
            let now = &self.layers[input.layer as usize].source.motions()[input.child as usize].animation;
            if !Arc::ptr_eq(now, animation) {
                *animation = Arc::clone(now);
            }
        }
        Ok(())
    }

    /// [`evaluate`](Self::evaluate); `tree_weights_fresh` when
    /// [`advance`](Self::advance) has just computed every tree's weights
    /// (nothing could change the parameters in between). `lent`: another
    /// player's scratch to use instead of this one's (when it fits).
    #[inline]
    fn evaluate_with(&mut self, tree_weights_fresh: bool, lent: Option<&mut PoseScratch>) -> Result<(), RuntimeError> {
        self.write_stack(tree_weights_fresh)?;
        let n = self.skeleton.joint_count();
        let scratch = match lent {
            Some(s) if s.fits(n) => s,
            // The skeleton never changes, so a scratch once made fits.
            _ => &mut **self.scratch.get_or_insert_with(|| Box::new(PoseScratch::for_rest(self.skeleton.rest()))),
        };
        let sources = Sources { layers: &self.layers, animations: &self.animations, references: &self.references };
        ComposeJob {
            composition: self.composition,
            skeleton: &self.skeleton,
            stack: &self.stack,
            sources: &sources,
            contexts: &mut self.contexts,
            extra: None,
            scratch,
            output: &mut self.local,
            morphs: self.morphs.as_deref_mut(),
        }
        .run()?;
        if let Some(ik) = &mut self.ik {
            ik.apply(&self.skeleton, &mut self.local, &mut scratch.ik)?;
        }
        if self.compute_model {
            LocalToModelJob { skeleton: &self.skeleton, input: &self.local, root: None, output: &mut self.model }
                .run()?;
        }
        Ok(())
    }

    /// [`advance`](Self::advance) then [`evaluate`](Self::evaluate).
    pub fn update(&mut self, dt: f32) -> Result<(), RuntimeError> {
        self.update_with(dt, None)
    }

    /// [`update`](Self::update) with another player's scratch (when it fits).
    #[inline]
    pub(crate) fn update_with(&mut self, dt: f32, lent: Option<&mut PoseScratch>) -> Result<(), RuntimeError> {
        self.advance(dt);
        // `advance` computed the tree weights and nothing ran since.
        self.evaluate_with(true, lent)
    }

    /// The scratch this player lends to the next members of a crowd run.
    pub(crate) fn scratch_mut(&mut self) -> Option<&mut PoseScratch> {
        self.scratch.as_deref_mut()
    }

    /// Prefetching for a crowd (hints that change nothing, see
    /// [`crate::pose::simd::prefetch`]), in three stages so that no stage waits on
    /// memory the stage before did not ask for: `stage` 0 asks for the
    /// player's arrays, 1 (a player later) for the arrays they point to, 2 (a
    /// player before it updates) for everything the frame keeps per player
    /// (key cursors, local pose, model matrices).
    pub(crate) fn prefetch(&self, stage: u8) {
        match stage {
            0 => {
                crate::pose::simd::prefetch(&self.layers, usize::MAX);
                crate::pose::simd::prefetch(&self.stack.inputs, usize::MAX);
                crate::pose::simd::prefetch(&self.contexts, usize::MAX);
            }
            1 => {
                crate::pose::simd::prefetch(&self.tree_weights, usize::MAX);
                for layer in &self.layers {
                    if let LayerSource::Tree { tree, motions, .. } = &layer.source {
                        tree.prefetch();
                        crate::pose::simd::prefetch(motions, usize::MAX);
                    }
                }
            }
            _ => {
                for context in &self.contexts {
                    context.prefetch(usize::MAX);
                }
                self.local.prefetch(usize::MAX);
                crate::pose::simd::prefetch(&self.model, usize::MAX);
            }
        }
    }
}

/// `reference` with the morph weights of `animation` at `time`, when it animates any.
fn with_morphs(
    reference: ReferencePose,
    animation: &Animation,
    time: f32,
    skeleton: &RuntimeSkeleton,
) -> ReferencePose {
    if animation.animates_morphs() {
        reference.with_morph(animation.sample_morphs_to_new(time, skeleton.morphs()))
    } else {
        reference
    }
}

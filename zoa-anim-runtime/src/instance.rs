//! Characters with layer stacks, and the crowd evaluator.
//!
//! An [`Instance`] owns everything one character needs per frame (sampling
//! contexts, a scratch pose each clip is sampled into before it is blended,
//! blending weights, model matrices). What a frame keeps (key cursors, the
//! local pose, the model matrices) is sized in [`Instance::new`]; the scratch
//! pose and the blending state are rewritten before they are read every
//! frame, so a [`Crowd`] lends the first instance's to the next instances of
//! a run (they stay in cache instead of streaming every character's own
//! copies through memory), and an instance allocates its own scratch only at
//! its first evaluation without a lender. That keeps what consecutive
//! instances keep next to each other in memory (instances built one after
//! another), which the memory system streams faster: at 10,000 humanoids a
//! frame costs a quarter less than with a scratch between every two
//! instances. After that first evaluation, [`Instance::advance`] and
//! [`Instance::evaluate`] allocate nothing. Shared read-only data
//! (skeletons, animations, masks) sits behind `Arc`, so a crowd of thousands
//! stores one copy.
//!
//! An instance may carry an [`IkStage`]: the rig policy's IK, applied after
//! blending and before local-to-model, inside the same per-instance
//! evaluation (so also inside the parallel crowd pass).
//!
//! A [`Crowd`] runs instances serially or with rayon, in runs of 16 whose
//! instances share the first one's scratch. Each run is evaluated start to
//! finish by one thread, the runs are the same serially and in parallel, and
//! there is no cross-instance reduction, so the results are bit-identical for
//! any thread count.

use std::sync::Arc;

use glam::Mat4;
use rayon::prelude::*;

use crate::animation::{Animation, SamplingContext, SamplingJob};
use crate::blend_tree::{CompiledBlendTree, SyncClock};
use crate::blending::{BlendInput, BlendMode, BlendingContext, Composition, ReferencePose, prepare_reference};
use crate::bone_weights::BoneWeights;
use crate::error::RuntimeError;
use crate::ik_stage::IkStage;
use crate::math::{clamp_time, wrap_time};
use crate::model::LocalToModelJob;
use crate::pose::{Pose, RuntimeSkeleton};
use crate::team::Team;

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

#[derive(Debug, Clone)]
struct Slot {
    context: SamplingContext,
    /// Against the layer's own clip, shared by every instance that plays it
    /// against the same time.
    reference: Option<ReferencePose>,
}

/// What a frame writes before it reads: the pose each clip is sampled into
/// (only its animated properties are read back, by the blend) and the
/// blending state.
#[derive(Debug, Clone)]
struct Scratch {
    sampled: Pose,
    blending: BlendingContext,
}

impl Scratch {
    /// A scratch for instances of `rest`'s skeleton.
    fn for_rest(rest: &Pose) -> Scratch {
        Scratch { sampled: rest.clone(), blending: BlendingContext::new(rest.len()) }
    }
    /// Whether this scratch serves an instance of `joints` joints.
    fn fits(&self, joints: usize) -> bool {
        self.sampled.len() == joints && self.blending.capacity() >= joints
    }
}

#[derive(Debug, Clone)]
struct LayerState {
    slots: Vec<Slot>,
    weights: Vec<f32>,
}

/// One character: a skeleton, a layer stack and its buffers.
#[derive(Debug, Clone)]
pub struct Instance {
    skeleton: Arc<RuntimeSkeleton>,
    layers: Vec<Layer>,
    states: Vec<LayerState>,
    /// Allocated at the first evaluation without a lender (see the module
    /// docs); boxed, like the IK stage, so that the instance itself stays
    /// small in a crowd's array.
    scratch: Option<Box<Scratch>>,
    composition: Composition,
    local: Pose,
    model: Vec<Mat4>,
    compute_model: bool,
    ik: Option<Box<IkStage>>,
}

impl Instance {
    /// Checks the stack against the skeleton and sizes every buffer.
    pub fn new(skeleton: Arc<RuntimeSkeleton>, layers: Vec<Layer>) -> Result<Instance, RuntimeError> {
        let n = skeleton.joint_count();
        let mut states = Vec::with_capacity(layers.len());
        for layer in &layers {
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
            let mut slots = Vec::new();
            for motion in layer.source.motions() {
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
                        Some(ReferencePose::from_prepared(a.shared_reference(*t, make)?))
                    }
                    (BlendMode::Additive, AdditiveReference::Clip { animation, time }) => {
                        if animation.joint_count() != n {
                            return Err(bad(format!("reference `{}` is bound to another skeleton", animation.name())));
                        }
                        Some(ReferencePose::from_pose(&animation.sample_to_new(*time, skeleton.rest())?))
                    }
                };
                slots.push(Slot { context: SamplingContext::for_animation(a), reference });
            }
            let weights = vec![0.0; slots.len()];
            states.push(LayerState { slots, weights });
        }
        Ok(Instance {
            scratch: None,
            composition: Composition::Mixer,
            local: skeleton.rest().clone(),
            model: vec![Mat4::IDENTITY; n],
            skeleton,
            layers,
            states,
            compute_model: true,
            ik: None,
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
    pub fn with_composition(mut self, composition: Composition) -> Instance {
        self.composition = composition;
        self
    }
    /// The layer composition.
    #[must_use]
    pub fn composition(&self) -> Composition {
        self.composition
    }

    /// Whether [`Instance::evaluate`] also computes model-space matrices
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
    pub fn with_ik(mut self, stage: IkStage) -> Result<Instance, RuntimeError> {
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
    /// Model-space matrices of the last evaluation (when enabled).
    #[must_use]
    pub fn model_matrices(&self) -> &[Mat4] {
        &self.model
    }

    /// Moves every layer's clock by `dt` seconds times its speed, and gives
    /// the IK stage `dt` for its smoothing. Does not allocate.
    pub fn advance(&mut self, dt: f32) {
        if let Some(ik) = &mut self.ik {
            ik.advance(dt);
        }
        for (layer, state) in self.layers.iter_mut().zip(&mut self.states) {
            match &mut layer.source {
                LayerSource::Clip { time, speed, .. } => *time += dt * *speed,
                LayerSource::Tree { tree, motions, x, y, clock, speed } => {
                    if state.weights.len() == tree.child_count() {
                        tree.weights(*x, *y, &mut state.weights);
                    }
                    let cycle = SyncClock::cycle_length(&state.weights, motions.iter().map(|m| m.animation.duration()));
                    let looping = motions.iter().any(|m| m.looping);
                    clock.advance(dt * *speed, cycle, looping);
                }
            }
        }
    }

    /// Samples every layer, blends, applies the IK stage (when installed),
    /// and (when enabled) computes model-space matrices. Allocates nothing
    /// but, at the first call, the instance's scratch (see the module docs).
    /// On an error (a layer time that is not finite, a tree whose child count
    /// changed) the local pose is left part-way and the model matrices as
    /// they were.
    pub fn evaluate(&mut self) -> Result<(), RuntimeError> {
        self.evaluate_with(false, None)
    }

    /// [`evaluate`](Self::evaluate); `tree_weights_fresh` when
    /// [`advance`](Self::advance) has just computed every tree's weights
    /// (nothing could change the parameters in between). `lent`: another
    /// instance's scratch to use instead of this one's (when it fits).
    fn evaluate_with(&mut self, tree_weights_fresh: bool, lent: Option<&mut Scratch>) -> Result<(), RuntimeError> {
        let n = self.skeleton.joint_count();
        let Scratch { sampled, blending } = match lent {
            Some(s) if s.fits(n) => s,
            // The skeleton never changes, so a scratch once made fits.
            _ => &mut **self.scratch.get_or_insert_with(|| Box::new(Scratch::for_rest(self.skeleton.rest()))),
        };
        // Each clip is sampled into the scratch pose and added to the blend
        // before the next is sampled; a first unmasked input, which the blend
        // would copy, is sampled straight into the local pose instead
        // (`Blender::add_in_place`). Masked layers skip the joints they
        // cannot show, and zero-weight layers and tree children sample nothing.
        // The last layer with weight, when it is an additive clip, is the
        // blend's final input: `Blender::finish_with` applies it straight
        // onto the finished pose.
        let final_layer = self.layers.iter().rposition(|l| l.weight > 0.0);
        let mut final_input = None;
        let mut blender = blending.begin(self.composition, self.skeleton.rest(), &mut self.local)?;
        for (k, (layer, state)) in self.layers.iter().zip(&mut self.states).enumerate() {
            blender.layer(layer.mode, layer.weight);
            if layer.weight <= 0.0 {
                continue;
            }
            let mask = layer.mask.as_deref().map(BoneWeights::weights);
            if Some(k) == final_layer
                && layer.mode == BlendMode::Additive
                && let LayerSource::Clip { motion, time, .. } = &layer.source
            {
                state.weights[0] = 1.0;
                final_input = Some(sample_input(motion, motion.clip_time(*time), &mut state.slots[0], mask, sampled)?);
                break;
            }
            // `last`: the layer's only input (a clip), which closes it.
            let mut add = |motion: &BoundMotion, time: f32, slot: &mut Slot, weight: f32, last: bool| {
                if mask.is_none() {
                    // A first input is sampled straight into the blend's target.
                    let written = blender.add_in_place(motion.animation.animated(), weight, |target| {
                        SamplingJob { animation: &motion.animation, time, context: &mut slot.context, output: target }
                            .run()
                    })?;
                    if written {
                        return Ok(());
                    }
                }
                let input = BlendInput { weight, ..sample_input(motion, time, slot, mask, sampled)? };
                if last { blender.add_last(&input) } else { blender.add(&input) }
            };
            match &layer.source {
                LayerSource::Clip { motion, time, .. } => {
                    state.weights[0] = 1.0;
                    add(motion, motion.clip_time(*time), &mut state.slots[0], 1.0, true)?;
                }
                LayerSource::Tree { tree, motions, x, y, clock, .. } => {
                    if tree.child_count() != state.slots.len() || motions.len() != state.slots.len() {
                        return Err(RuntimeError::InvalidLayer {
                            layer: layer.name.clone(),
                            reason: "the tree's child count changed after the instance was built".into(),
                        });
                    }
                    if !tree_weights_fresh {
                        tree.weights(*x, *y, &mut state.weights);
                    }
                    add_children(motions, &mut state.slots, &state.weights, |motion, slot, weight| {
                        add(motion, clock.child_time(motion.animation.duration()), slot, weight, false)
                    })?;
                }
            }
        }
        match final_input {
            Some(input) => blender.finish_with(&input)?,
            None => blender.finish(),
        }
        if let Some(ik) = &mut self.ik {
            ik.apply(&self.skeleton, &mut self.local)?;
        }
        if self.compute_model {
            LocalToModelJob { skeleton: &self.skeleton, input: &self.local, root: None, output: &mut self.model }
                .run()?;
        }
        Ok(())
    }

    /// Prefetching for a crowd (hints that change nothing, see
    /// [`crate::simd::prefetch`]), in three stages so that no stage waits on
    /// memory the stage before did not ask for: `stage` 0 asks for the
    /// instance's layer arrays, 1 (an instance later) for the arrays they
    /// point to, 2 (an instance before it updates) for everything the frame
    /// keeps per instance (key cursors, local pose, model matrices: a few
    /// KiB now that the scratch is shared; shared references stay in
    /// cache). Only where prefetching pays ([`crate::simd::crowd_prefetch`]).
    fn prefetch(&self, stage: u8) {
        match stage {
            0 => {
                crate::simd::prefetch(&self.states, usize::MAX);
                crate::simd::prefetch(&self.layers, usize::MAX);
            }
            1 => {
                for state in &self.states {
                    crate::simd::prefetch(&state.slots, usize::MAX);
                    crate::simd::prefetch(&state.weights, usize::MAX);
                }
                for layer in &self.layers {
                    if let LayerSource::Tree { tree, motions, .. } = &layer.source {
                        tree.prefetch();
                        crate::simd::prefetch(motions, usize::MAX);
                    }
                }
            }
            _ => {
                for state in &self.states {
                    for slot in &state.slots {
                        slot.context.prefetch(usize::MAX);
                    }
                }
                self.local.prefetch(usize::MAX);
                crate::simd::prefetch(&self.model, usize::MAX);
            }
        }
    }

    /// [`advance`](Self::advance) then [`evaluate`](Self::evaluate).
    pub fn update(&mut self, dt: f32) -> Result<(), RuntimeError> {
        self.update_with(dt, None)
    }

    /// [`update`](Self::update) with another instance's scratch (when it fits).
    fn update_with(&mut self, dt: f32, lent: Option<&mut Scratch>) -> Result<(), RuntimeError> {
        self.advance(dt);
        // `advance` computed the tree weights and nothing ran since.
        self.evaluate_with(true, lent)
    }
}

/// Samples `motion` at `time` into `pose` (only the joints `mask` shows)
/// as a blend input of weight 1 with the slot's additive reference.
fn sample_input<'p>(
    motion: &'p BoundMotion,
    time: f32,
    slot: &'p mut Slot,
    mask: Option<&'p [f32]>,
    pose: &'p mut Pose,
) -> Result<BlendInput<'p>, RuntimeError> {
    let job = SamplingJob { animation: &motion.animation, time, context: &mut slot.context, output: pose };
    match mask {
        Some(m) => job.run_masked(m)?,
        None => job.run()?,
    }
    let animated = motion.animation.animated();
    Ok(BlendInput { pose, animated, weight: 1.0, mask, reference: slot.reference.as_ref() })
}

/// Many instances, evaluated serially or in parallel with identical results.
#[derive(Debug, Clone, Default)]
pub struct Crowd {
    instances: Vec<Instance>,
}

impl Crowd {
    /// A crowd of these instances.
    #[must_use]
    pub fn new(instances: Vec<Instance>) -> Crowd {
        Crowd { instances }
    }
    /// The instances.
    #[must_use]
    pub fn instances(&self) -> &[Instance] {
        &self.instances
    }
    /// The instances, mutable.
    pub fn instances_mut(&mut self) -> &mut [Instance] {
        &mut self.instances
    }
    /// Total joints over all instances.
    #[must_use]
    pub fn joint_count(&self) -> usize {
        self.instances.iter().map(|i| i.skeleton.joint_count()).sum()
    }

    /// Updates every instance on the calling thread. Allocates nothing after
    /// the first frame (which gives each run's first instance its scratch).
    /// Stops at, and returns, the first instance's error.
    pub fn update(&mut self, dt: f32) -> Result<(), RuntimeError> {
        for (c, run) in self.instances.chunks_mut(RUN).enumerate() {
            if let Some((_, e)) = update_run(run, c * RUN, dt, true) {
                return Err(e);
            }
        }
        Ok(())
    }

    /// Updates every instance with rayon on the current thread pool (install
    /// a pool to choose the thread count). Every instance is updated; the error
    /// of the lowest-index failing instance is returned, whatever the
    /// scheduling.
    pub fn update_parallel(&mut self, dt: f32) -> Result<(), RuntimeError> {
        let first = self
            .instances
            .par_chunks_mut(RUN)
            .enumerate()
            .filter_map(|(c, run)| update_run(run, c * RUN, dt, false))
            .min_by_key(|(k, _)| *k);
        match first {
            Some((_, e)) => Err(e),
            None => Ok(()),
        }
    }

    /// Updates every instance on `team`: each member takes a fixed,
    /// contiguous share of the runs (see [`Team`]). Every instance is
    /// updated; the error of the lowest-index failing instance is returned.
    /// Bit-identical to [`update`](Self::update); allocates nothing after
    /// the first frame.
    pub fn update_on(&mut self, team: &mut Team, dt: f32) -> Result<(), RuntimeError> {
        let lowest = team.try_each_share(&mut self.instances, RUN, |start, share| {
            let mut first = None;
            for (c, run) in share.chunks_mut(RUN).enumerate() {
                // Later runs still update; the share's first error is its lowest.
                if let Some(error) = update_run(run, start + c * RUN, dt, false) {
                    first.get_or_insert(error);
                }
            }
            first
        });
        lowest.map_or(Ok(()), |(_, e)| Err(e))
    }
}

/// Adds a tree's children with weight above 0 in order, through `add`.
/// Children share the tree's clock, so a child that plays the same animation
/// as the last one added samples to the same pose: it is added once, with
/// the weights summed. Accumulating `x` onto `x` leaves `x`, and the summed
/// weight is the one accumulation would reach: bit for bit when the tree's
/// inputs are the first of the blend, at full layer weight and unmasked;
/// otherwise up to the rounding of the sum. Repeats happen in blend spaces
/// that place one clip at several points.
fn add_children(
    motions: &[BoundMotion],
    slots: &mut [Slot],
    weights: &[f32],
    mut add: impl FnMut(&BoundMotion, &mut Slot, f32) -> Result<(), RuntimeError>,
) -> Result<(), RuntimeError> {
    let mut pending: Option<(&BoundMotion, &mut Slot, f32)> = None;
    for ((motion, slot), &w) in motions.iter().zip(slots).zip(weights) {
        if w.is_nan() || w <= 0.0 {
            continue;
        }
        match &mut pending {
            Some((last, _, sum)) if Arc::ptr_eq(&last.animation, &motion.animation) => *sum += w,
            _ => {
                if let Some((last, slot, sum)) = pending.replace((motion, slot, w)) {
                    add(last, slot, sum)?;
                }
            }
        }
    }
    match pending {
        Some((last, slot, sum)) => add(last, slot, sum),
        None => Ok(()),
    }
}

/// Instances a crowd worker updates in a row, sharing the first one's
/// scratch (and, where that pays, prefetching the next ones); the serial
/// and parallel passes use the same runs.
const RUN: usize = 16;

/// Updates `run` in order, each instance's buffers prefetched while the one
/// before it updates (where that pays), and every instance after the first
/// using the first's scratch (which stays in cache). Returns the first error with its index in
/// the crowd (`first` is the index of `run[0]`); with `stop`, at that error,
/// else after updating every instance.
fn update_run(run: &mut [Instance], first: usize, dt: f32, stop: bool) -> Option<(usize, RuntimeError)> {
    let mut error = None;
    for k in 0..run.len() {
        prefetch_ahead(run, k);
        let (lender, rest) = run.split_at_mut(k);
        let result = match lender.first_mut() {
            Some(l) => rest[0].update_with(dt, l.scratch.as_deref_mut()),
            None => rest[0].update(dt),
        };
        if let Err(e) = result
            && error.is_none()
        {
            error = Some((first + k, e));
            if stop {
                break;
            }
        }
    }
    error
}

/// The prefetch stages for the instances after `run[k]`.
#[inline]
fn prefetch_ahead(run: &[Instance], k: usize) {
    if !crate::simd::crowd_prefetch() {
        return;
    }
    // The instance itself first: every later stage reads its fields to find
    // the buffers it points to.
    if let Some(next) = run.get(k + 4) {
        crate::simd::prefetch(std::slice::from_ref(next), usize::MAX);
    }
    for (ahead, stage) in [(3, 0), (2, 1)] {
        if let Some(next) = run.get(k + ahead) {
            next.prefetch(stage);
        }
    }
    if let Some(next) = run.get(k + 1) {
        next.prefetch(2);
    }
}

//! The one way weighted clips become a pose: a [`PoseStack`] (layers of
//! weighted clip inputs, written each frame by whatever decides what plays —
//! a character's graphs and tag selector, or a [`crate::pose::ClipPlayer`]'s
//! layers) is sampled and blended into a local pose by [`ComposeJob`].
//!
//! Every character and every clip player goes through this job, so what the
//! command line's `pose` and `bench` measure is what a game runs. It is
//! where the blend's fast paths are taken, for whoever composes:
//! - an unmasked override input that would be copied (the first of the
//!   blend) is sampled straight into the output
//!   ([`crate::pose::Blender::add_in_place`]), instead of into a scratch pose and copied;
//! - a layer's only input closes it ([`crate::pose::Blender::add_last`]): an additive
//!   layer's only clip is added straight onto the result below in one pass;
//! - the final layer, when it is one additive clip, is applied straight onto
//!   the finished pose ([`crate::pose::Blender::finish_with`]);
//! - masked inputs sample only the joints their mask lets through, and
//!   inputs and layers of weight 0 sample nothing.
//!
//! Each of these gives the same bits as the plain path (the blender's
//! contract), so the result is the three.js semantics of the layers as
//! written, whatever path is taken.

use std::ops::Range;

use crate::error::RuntimeError;
use crate::pose::animation::{Animation, SamplingContext, SamplingJob};
use crate::pose::blending::{BlendInput, BlendMode, BlendingContext, Composition, ReferencePose};
use crate::pose::ik_stage::IkScratch;
use crate::pose::morph::{MorphPose, MorphSet};
use crate::pose::scalars::{ScalarBlend, ScalarLayout, ScalarPose, ScalarTracks};
use crate::pose::{Pose, RuntimeSkeleton};

/// No mask, or no additive reference, in a [`StackInput`].
pub const NONE: u32 = u32::MAX;

/// One weighted clip of a [`StackLayer`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StackInput {
    /// The animation ([`StackSources::animation`] index).
    pub animation: u32,
    /// The sampling context that keeps its key cursors (index into the
    /// contexts the job is given).
    pub cursor: u32,
    /// Sample time, clip seconds (already looped or clamped).
    pub time: f32,
    /// Weight, `>= 0`, multiplied by the layer's (0 samples nothing).
    pub weight: f32,
    /// Per-joint mask ([`StackSources::mask`] index), or [`NONE`].
    pub mask: u32,
    /// Additive reference ([`StackSources::reference`] index), or [`NONE`];
    /// needed by inputs of additive layers.
    pub reference: u32,
}

/// One layer of a [`PoseStack`]: its mode, its weight, and either its clip
/// inputs or the job's extra pose ([`ComposeJob::extra`]).
#[derive(Debug, Clone, PartialEq)]
pub struct StackLayer {
    /// Override or additive.
    pub mode: BlendMode,
    /// Layer weight, `>= 0` (0 skips the layer).
    pub weight: f32,
    /// Range of its inputs in [`PoseStack::inputs`].
    pub inputs: Range<u32>,
    /// The layer's one input is the job's extra pose instead (procedural motion).
    pub extra: bool,
}

/// Layers of weighted clip inputs, bottom to top: what one frame plays.
/// Caller-owned and sized once ([`PoseStack::with_capacity`]); writing a
/// frame clears and refills it without allocating while it stays within its
/// capacity.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PoseStack {
    /// Layers, bottom to top.
    pub layers: Vec<StackLayer>,
    /// Every input, grouped by layer.
    pub inputs: Vec<StackInput>,
}

impl PoseStack {
    /// Room for `layers` layers and `inputs` inputs.
    #[must_use]
    pub fn with_capacity(layers: usize, inputs: usize) -> PoseStack {
        PoseStack { layers: Vec::with_capacity(layers), inputs: Vec::with_capacity(inputs) }
    }
    /// Empties it, keeping its capacity.
    pub fn clear(&mut self) {
        self.layers.clear();
        self.inputs.clear();
    }
    /// Opens a layer; inputs pushed until the next layer belong to it.
    pub fn layer(&mut self, mode: BlendMode, weight: f32) {
        let at = self.inputs.len() as u32;
        self.layers.push(StackLayer { mode, weight, inputs: at..at, extra: false });
    }
    /// A layer whose one input is the job's extra pose.
    pub fn extra_layer(&mut self, mode: BlendMode, weight: f32) {
        let at = self.inputs.len() as u32;
        self.layers.push(StackLayer { mode, weight, inputs: at..at, extra: true });
    }
    /// Adds an input to the last layer.
    pub fn push(&mut self, input: StackInput) {
        self.inputs.push(input);
        if let Some(l) = self.layers.last_mut() {
            l.inputs.end = self.inputs.len() as u32;
        }
    }
    /// The inputs of `layer`.
    #[must_use]
    pub fn inputs_of(&self, layer: &StackLayer) -> &[StackInput] {
        &self.inputs[layer.inputs.start as usize..layer.inputs.end as usize]
    }
}

/// What a stack's inputs refer to: the animations, masks and additive
/// references of whoever wrote it (a character definition, a clip player).
pub trait StackSources {
    /// Animation `i` (bound to the job's skeleton).
    fn animation(&self, i: u32) -> &Animation;
    /// Mask `m` as per-joint weights (`None` for [`NONE`] or an unknown mask: every joint).
    fn mask(&self, m: u32) -> Option<&[f32]>;
    /// Additive reference `r` (`None` for [`NONE`]).
    fn reference(&self, r: u32) -> Option<&ReferencePose>;
}

/// What a frame writes before it reads, lent between the characters of a
/// crowd run (see [`crate::pose::Crowd`]): the pose each clip is sampled into
/// (only its animated properties are read back), the blending state, a
/// character's other per-frame poses and its IK buffers. One per run, not
/// one per character: a crowd character holds only what it reads next frame.
#[derive(Debug, Clone)]
pub struct PoseScratch {
    pub(crate) sampled: Pose,
    pub(crate) blending: BlendingContext,
    /// The IK stage's buffers (the solvers' pose layout, model space).
    pub(crate) ik: IkScratch,
    /// A character's procedural pose ([`ExtraPose`]; each frame writes the
    /// joints it animates, the only ones read). Empty in a clip player's.
    pub(crate) extra: Pose,
    /// A character's outgoing graph's pose during a loadout switch (written
    /// whole, then blended under the current graph's). Empty in a clip player's.
    pub(crate) outgoing: Pose,
}

impl PoseScratch {
    /// A scratch for poses of `rest`'s skeleton.
    #[must_use]
    pub fn for_rest(rest: &Pose) -> PoseScratch {
        PoseScratch {
            sampled: rest.clone(),
            blending: BlendingContext::new(rest.len()),
            ik: IkScratch::new(rest.len()),
            extra: Pose::identity(0),
            outgoing: Pose::identity(0),
        }
    }
    /// A scratch for characters of `rest`'s skeleton (with a character's
    /// other per-frame poses).
    #[must_use]
    pub(crate) fn for_character(rest: &Pose) -> PoseScratch {
        PoseScratch { extra: rest.clone(), outgoing: rest.clone(), ..PoseScratch::for_rest(rest) }
    }
    /// Whether it serves skeletons of `joints` joints.
    #[must_use]
    pub fn fits(&self, joints: usize) -> bool {
        self.sampled.len() == joints && self.blending.capacity() >= joints && self.ik.fits(joints)
    }
    /// Whether it serves characters of skeletons of `joints` joints.
    #[must_use]
    pub(crate) fn fits_character(&self, joints: usize) -> bool {
        self.fits(joints) && self.extra.len() == joints && self.outgoing.len() == joints
    }
}

/// The extra pose input of a [`ComposeJob`] (procedural motion): a pose, the
/// properties it animates, its reference when its layer is additive.
#[derive(Debug, Clone, Copy)]
pub struct ExtraPose<'a> {
    /// The pose.
    pub pose: &'a Pose,
    /// `ANIMATES_*` bits per joint.
    pub animated: &'a [u8],
    /// Reference (for an additive layer).
    pub reference: Option<&'a ReferencePose>,
}

/// Samples and blends a [`PoseStack`] into a local pose (see the module docs).
#[derive(Debug)]
pub struct ComposeJob<'a, S: StackSources> {
    /// How layers compose ([`Composition::Layered`] for characters; a clip
    /// player's choice).
    pub composition: Composition,
    /// The skeleton (its rest pose fills what no input animates).
    pub skeleton: &'a RuntimeSkeleton,
    /// The frame.
    pub stack: &'a PoseStack,
    /// What its inputs refer to.
    pub sources: &'a S,
    /// Key cursors, indexed by [`StackInput::cursor`].
    pub contexts: &'a mut [SamplingContext],
    /// The extra pose of [`StackLayer::extra`] layers, if any.
    pub extra: Option<ExtraPose<'a>>,
    /// Scratch.
    pub scratch: &'a mut PoseScratch,
    /// The result.
    pub output: &'a mut Pose,
    /// The blended morph weights, laid out for the skeleton's
    /// [`crate::pose::MorphSet`] (`None`, or an empty set: none are blended).
    pub morphs: Option<&'a mut MorphPose>,
}

impl<S: StackSources> ComposeJob<'_, S> {
    /// Runs the job. Allocates nothing (except an error's message). Errors
    /// (every reason at once) when a size does not fit, a cursor is out of
    /// range or a time is not finite; the output is then left part-way.
    #[inline]
    pub fn run(self) -> Result<(), RuntimeError> {
        let ComposeJob { composition, skeleton, stack, sources, contexts, extra, scratch, output, morphs } = self;
        if let Some(morphs) = morphs {
            blend_morphs(composition, skeleton.morphs(), stack, sources, morphs);
        }
        let PoseScratch { sampled, blending, .. } = scratch;
        let final_layer = stack.layers.iter().rposition(|l| l.weight > 0.0);
        let mut blender = blending.begin(composition, skeleton.rest(), output)?;
        let mut final_input = None;
        for (k, layer) in stack.layers.iter().enumerate() {
            blender.layer(layer.mode, layer.weight);
            if layer.weight <= 0.0 {
                continue;
            }
            if layer.extra {
                if let Some(x) = extra {
                    let input = BlendInput::new(x.pose, x.animated, 1.0);
                    let input = BlendInput { reference: x.reference, ..input };
                    blender.add_last(&input)?;
                }
                continue;
            }
            let inputs = stack.inputs_of(layer);
            if Some(k) == final_layer
                && layer.mode == BlendMode::Additive
                && let [only] = inputs
                && only.weight > 0.0
            {
                let (context, animation, mask) = resolve(contexts, sources, only)?;
                let reference = sources.reference(only.reference);
                let input = sample(animation, only.time, context, mask, reference, sampled)?;
                final_input = Some(BlendInput { weight: only.weight, ..input });
                break;
            }
            let alone = inputs.len() == 1;
            for input in inputs {
                if input.weight.is_nan() || input.weight <= 0.0 {
                    continue;
                }
                let (context, animation, mask) = resolve(contexts, sources, input)?;
                if mask.is_none() {
                    // A first input is sampled straight into the blend's target.
                    let written = blender.add_in_place(animation.animated(), input.weight, |target| {
                        SamplingJob { animation, time: input.time, context: &mut *context, output: target }.run()
                    })?;
                    if written {
                        continue;
                    }
                }
                let reference = sources.reference(input.reference);
                let sampled = sample(animation, input.time, context, mask, reference, sampled)?;
                let blend = BlendInput { weight: input.weight, ..sampled };
                if alone { blender.add_last(&blend) } else { blender.add(&blend) }?;
            }
        }
        match final_input {
            Some(input) => blender.finish_with(&input),
            None => {
                blender.finish();
                Ok(())
            }
        }
    }
}

/// The context, animation and mask of `input`.
#[inline]
fn resolve<'c, 's, S: StackSources>(
    contexts: &'c mut [SamplingContext],
    sources: &'s S,
    input: &StackInput,
) -> Result<(&'c mut SamplingContext, &'s Animation, Option<&'s [f32]>), RuntimeError> {
    let n = contexts.len();
    match contexts.get_mut(input.cursor as usize) {
        Some(context) => Ok((context, sources.animation(input.animation), sources.mask(input.mask))),
        None => Err(cursor_error(input.cursor, n)),
    }
}

#[cold]
fn cursor_error(cursor: u32, n: usize) -> RuntimeError {
    RuntimeError::InvalidJob {
        job: "compose job",
        reasons: vec![format!("input cursor {cursor} is out of range ({n} contexts)")],
    }
}

/// Samples `animation` at `time` into `pose` (only the joints `mask` shows)
/// as a blend input of weight 1 with its mask and reference.
#[inline]
fn sample<'p>(
    animation: &'p Animation,
    time: f32,
    context: &mut SamplingContext,
    mask: Option<&'p [f32]>,
    reference: Option<&'p ReferencePose>,
    pose: &'p mut Pose,
) -> Result<BlendInput<'p>, RuntimeError> {
    let job = SamplingJob { animation, time, context, output: pose };
    match mask {
        Some(m) => job.run_masked(m)?,
        None => job.run()?,
    }
    Ok(BlendInput { pose, animated: animation.animated(), weight: 1.0, mask, reference })
}

/// Blends the morph weights of `stack`'s inputs into `out` (laid out for
/// `set`) with `composition`: the same layers, modes, weights and masks as
/// the joints. Layers of the extra (procedural) pose animate no weights, and
/// an input whose animation has no weight tracks costs one check.
fn blend_morphs<S: StackSources>(
    composition: Composition,
    set: &MorphSet,
    stack: &PoseStack,
    sources: &S,
    out: &mut MorphPose,
) {
    blend_stack(set, composition == Composition::Mixer, stack, &mut out.0, |input, mode| {
        let tracks = sources.animation(input.animation).morphs();
        if tracks.is_empty() {
            return None;
        }
        let reference = match mode {
            BlendMode::Override => None,
            // No reference weights: the input adds nothing to them.
            BlendMode::Additive => Some(sources.reference(input.reference).and_then(ReferencePose::morph)?),
        };
        Some(ScalarInput { tracks, mask: sources.mask(input.mask), reference })
    });
}

/// What one stack input blends: its tracks, its mask, and (in an additive
/// layer) its reference values laid out like the layout's flat array.
pub(crate) struct ScalarInput<'s, T> {
    pub(crate) tracks: &'s T,
    pub(crate) mask: Option<&'s [f32]>,
    pub(crate) reference: Option<&'s [f32]>,
}

/// Blends the numbers of `stack`'s inputs into `out` (laid out for
/// `layout`): the same layers, modes, weights and masks as the joints, as one
/// three.js mixer when `mixer`. `input` gives an input's tracks, mask and
/// reference, or `None` when it blends nothing here (no tracks; in an
/// additive layer, no reference). Layers of the extra (procedural) pose
/// animate no numbers. Allocates nothing.
pub(crate) fn blend_stack<'s, L: ScalarLayout, T: ScalarTracks + 's>(
    layout: &L,
    mixer: bool,
    stack: &PoseStack,
    out: &mut ScalarPose,
    input: impl Fn(&StackInput, BlendMode) -> Option<ScalarInput<'s, T>>,
) {
    let Some(mut blend) = ScalarBlend::begin(layout, out, mixer) else { return };
    for layer in &stack.layers {
        blend.layer(layer.mode);
        let layer_weight = if layer.weight.is_finite() { layer.weight.max(0.0) } else { 0.0 };
        if layer_weight <= 0.0 || layer.extra {
            continue;
        }
        for i in stack.inputs_of(layer) {
            let weight = layer_weight * i.weight;
            if weight.is_nan() || weight <= 0.0 {
                continue;
            }
            if let Some(s) = input(i, layer.mode) {
                blend.add(s.tracks, i.time, weight, s.mask, s.reference);
            }
        }
    }
    blend.finish();
}

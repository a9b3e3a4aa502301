//! The character's pose stage: the frames of the behaviour layer (graph,
//! selector, procedural fallback) become one [`PoseStack`], which the pose
//! engine's [`ComposeJob`] — the same job a clip player runs — samples and
//! blends into the local pose; then inertialization, IK, model space and
//! skinning. Everything is sized at spawn; a frame allocates nothing.
//!
//! Layer order of one graph's stack (bottom to top), composed with
//! [`Composition::Layered`]:
//!
//! ```text
//!  graph layer 0 ─► selector layer ─► procedural (additive) ─► graph layers 1.. ─► override slot
//! ```
//!
//! Within a graph layer the override contributions form one layer and the
//! additive ones (against each clip's first frame) a second one above it.
//! A contribution's weight already carries its layer's, so every stack layer
//! of a graph has weight 1 (the selector and procedural layers carry theirs).
//!
//! Beside each stack input the stage keeps where it came from (a
//! [`PosePart`]) and the mask it was given, so the stacks of the last frame
//! can be read back as [`PoseContribution`]s (`Character::contributions`):
//! what the blender was given, not a second computation of it.

use glam::{Mat4, Quat, Vec3, Vec3A};
use zoa_anim_core::Transform;

use super::definition::CharacterDefinition;
use crate::character::PoseOutput;
use crate::character::graph::{
    ClipContribution, ClipId, ContributionSource, FrameOutput, GraphMasks, MaskRef, PoseLayer, SLOT_LAYER,
    inertialize_quintic,
};
use crate::character::selector::{ProceduralMotion, SelectorTable};
use crate::error::RuntimeError;
use crate::pose::MorphPose;
use crate::pose::Pose;
use crate::pose::PoseMotion;
use crate::pose::animation::{Animation, SamplingContext};
use crate::pose::blending::{BlendMode, Composition, ReferencePose, blend_into};
use crate::pose::compose::{ComposeJob, ExtraPose, NONE, PoseScratch, PoseStack, StackInput, StackSources};
use crate::pose::curves::{CurvePose, blend_curves};
use crate::pose::ik_stage::IkStage;

/// The selector's full-body layer in a stack.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SelectorLayer<'a> {
    pub frame: &'a FrameOutput,
    pub table: &'a SelectorTable,
    /// Layer weight (the graph base layer's entry-state weight, 1 without a graph).
    pub weight: f32,
    /// Leave out rows that assert no tag (with a graph, they yield to it).
    pub tagged_only: bool,
}

/// What one stack is made of.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Stack<'a> {
    pub frame: &'a FrameOutput,
    pub masks: Option<&'a GraphMasks>,
    pub selector: Option<SelectorLayer<'a>>,
    pub procedural: Option<(ProceduralMotion, f32)>,
}

/// What decided one input of a character's pose stack.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PosePart {
    /// Graph layer `layer` ([`SLOT_LAYER`] for the override slot): a
    /// state's clip or blend-tree child, or the slot's clip.
    Graph {
        /// Graph layer index, or [`SLOT_LAYER`].
        layer: u16,
        /// The state and child, or [`ContributionSource::Slot`].
        source: ContributionSource,
    },
    /// The tag selector's full-body layer.
    Selector {
        /// Row index in the selector's flattened table ([`u32::MAX`] for the default idle clip).
        row: u32,
    },
    /// The procedural fallback (breath and head bob): an additive pose on the
    /// spine, chest and head, computed rather than sampled (it has no clip).
    Procedural,
}

/// One input of the pose a character composed in its last update: what the
/// blender was given, read back from the frame's [`PoseStack`] (see
/// [`crate::Character::contributions`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PoseContribution {
    /// Whether it belongs to the outgoing graph's stack of a loadout switch,
    /// whose pose is blended over the current stack's by `1 − switch_alpha`.
    pub outgoing: bool,
    /// Its layer in its stack, bottom to top: the inputs of one stack layer
    /// accumulate (three.js), stack layers compose over one another
    /// ([`crate::pose::Composition::Layered`]).
    pub stack_layer: u16,
    /// What decided it.
    pub part: PosePart,
    /// The clip (`None` for [`PosePart::Procedural`]).
    pub clip: Option<ClipId>,
    /// Sample time, clip seconds (0 for the procedural layer).
    pub time: f32,
    /// The weight the blender accumulates it with, `0..=1`, before the mask:
    /// its stack layer's weight times its own (for a graph: layer weight ×
    /// state weight × blend-tree child weight, with the slot's envelope for
    /// the slot; for the selector: the layer's weight × the row's fade).
    pub weight: f32,
    /// Override or additive (an additive clip adds its difference from its own first frame).
    pub mode: BlendMode,
    /// The bone mask the blender applied ([`MaskRef::None`]: every bone; a
    /// graph layer or state that has no mask is reported as `None`).
    pub mask: MaskRef,
}

/// One stack of a frame, and beside each input where it came from and the mask it was given.
#[derive(Debug, Clone, Default)]
struct StackRecord {
    stack: PoseStack,
    parts: Vec<(PosePart, MaskRef)>,
}

impl StackRecord {
    fn with_capacity(layers: usize, inputs: usize) -> StackRecord {
        StackRecord { stack: PoseStack::with_capacity(layers, inputs), parts: Vec::with_capacity(inputs) }
    }

    fn reserve(&mut self, layers: usize, inputs: usize) {
        let s = &mut self.stack;
        s.layers.reserve(layers.saturating_sub(s.layers.len()));
        s.inputs.reserve(inputs.saturating_sub(s.inputs.len()));
        self.parts.reserve(inputs.saturating_sub(self.parts.len()));
    }

    fn clear(&mut self) {
        self.stack.clear();
        self.parts.clear();
    }

    fn push(&mut self, input: StackInput, part: PosePart, mask: MaskRef) {
        self.stack.push(input);
        self.parts.push((part, mask));
    }

    /// The stack's inputs as contributions (the procedural layer as one of its own).
    fn contributions(&self, outgoing: bool) -> impl Iterator<Item = PoseContribution> + '_ {
        self.stack.layers.iter().enumerate().filter(|(_, l)| l.weight > 0.0).flat_map(move |(k, layer)| {
            let base = PoseContribution {
                outgoing,
                stack_layer: k as u16,
                part: PosePart::Procedural,
                clip: None,
                time: 0.0,
                weight: layer.weight,
                mode: layer.mode,
                mask: MaskRef::None,
            };
            let range = if layer.extra { 0..0 } else { layer.inputs.start as usize..layer.inputs.end as usize };
            let inputs = self.stack.inputs[range.clone()].iter().zip(&self.parts[range]);
            layer.extra.then_some(base).into_iter().chain(inputs.filter(|(i, _)| i.weight > 0.0).map(
                move |(input, &(part, mask))| PoseContribution {
                    part,
                    clip: Some(ClipId(input.animation)),
                    time: input.time,
                    weight: layer.weight * input.weight,
                    mask,
                    ..base
                },
            ))
        })
    }
}

/// Buffers of one character's pose stage.
#[derive(Debug, Clone)]
pub(crate) struct PoseStage {
    /// One per clip of the definition.
    contexts: Vec<SamplingContext>,
    /// Allocated at the first evaluation without a lender (a crowd run's
    /// first character lends its own to the others).
    scratch: Option<Box<PoseScratch>>,
    /// The stacks of the last frame: the current graph's, and the outgoing
    /// graph's during a loadout switch (`outgoing` says whether it was composed).
    stacks: [StackRecord; 2],
    outgoing: bool,
    pub(crate) local: Pose,
    pub(crate) inertia: Inertializer,
    pub(crate) model: Vec<Mat4>,
    pub(crate) skin: Vec<Mat4>,
    /// The blended morph weights (current, and the outgoing loadout's),
    /// when the model has morphed nodes (boxed: most have none).
    pub(crate) morphs: Option<Box<[MorphPose; 2]>>,
    /// The blended float curves (current, and the outgoing loadout's), when
    /// the clips carry any (boxed: most have none).
    pub(crate) curves: Option<Box<[CurvePose; 2]>>,
}

/// A character definition's clips, references and one graph's masks, as a
/// [`ComposeJob`] reads them. Masks are [`MaskRef`]s packed into a `u32`.
struct Sources<'a> {
    def: &'a CharacterDefinition,
    masks: Option<&'a GraphMasks>,
}

/// The scratch a frame uses: `lent` (another character's) when it fits
/// `def`'s skeleton, else the character's own, made the first time.
fn scratch_for<'a>(
    own: &'a mut Option<Box<PoseScratch>>,
    lent: Option<&'a mut PoseScratch>,
    def: &CharacterDefinition,
) -> &'a mut PoseScratch {
    match lent {
        Some(s) if s.fits_character(def.skeleton.joint_count()) => s,
        _ => own.get_or_insert_with(|| Box::new(PoseScratch::for_character(def.skeleton.rest()))),
    }
}

/// A state mask's flag in a packed [`MaskRef`].
const STATE_MASK: u32 = 1 << 31;

fn pack_mask(m: MaskRef) -> u32 {
    match m {
        MaskRef::None => NONE,
        MaskRef::Layer(l) => u32::from(l),
        MaskRef::State(s) => STATE_MASK | u32::from(s.0),
    }
}

impl StackSources for Sources<'_> {
    #[inline]
    fn animation(&self, i: u32) -> &Animation {
        &self.def.animations[i as usize]
    }
    #[inline]
    fn mask(&self, m: u32) -> Option<&[f32]> {
        if m == NONE {
            return None;
        }
        let m = if m & STATE_MASK != 0 {
            MaskRef::State(zoa_anim_core::graph::StateIndex((m & !STATE_MASK) as u16))
        } else {
            MaskRef::Layer(m as u16)
        };
        self.masks?.get(m)
    }
    #[inline]
    fn reference(&self, r: u32) -> Option<&ReferencePose> {
        self.def.references.get(r as usize)
    }
}

impl PoseStage {
    /// Prefetching for a crowd (hints, see [`crate::pose::simd::prefetch`]),
    /// in the stages of [`crate::pose::CrowdMember::prefetch_stage`]: 0 the
    /// arrays the stage points to (the local pose, model matrices when
    /// `model`, the sampling contexts), 1 the last frame's stack record and
    /// inertialization's last outputs, 2 the key cursors of the clips the last frame sampled.
    pub(crate) fn prefetch(&self, stage: u8, model: bool) {
        use crate::pose::simd::prefetch;
        let record = &self.stacks[0];
        match stage {
            0 => {
                self.local.prefetch(usize::MAX);
                prefetch(&self.contexts, usize::MAX);
                if model {
                    prefetch(&self.model, usize::MAX);
                }
            }
            1 => {
                prefetch(&record.stack.layers, usize::MAX);
                prefetch(&record.stack.inputs, usize::MAX);
                prefetch(&record.parts, usize::MAX);
                self.inertia.prefetch();
            }
            _ => {
                for input in &record.stack.inputs {
                    if let Some(context) = self.contexts.get(input.animation as usize) {
                        context.prefetch(usize::MAX);
                    }
                }
            }
        }
    }
    /// Prefetching for a crowd: what a frame the level of detail skips
    /// touches (the shown local pose, and its model-space matrices when `model`).
    pub(crate) fn prefetch_shown(&self, model: bool) {
        self.local.prefetch(usize::MAX);
        if model {
            crate::pose::simd::prefetch(&self.model, usize::MAX);
        }
    }
    /// Buffers for `def`'s characters whose frames hold at most `layers`
    /// layers and `contributions` contributions (graph and selector
    /// together); the outgoing graph's stack is empty until [`Self::reserve`].
    pub(crate) fn new(def: &CharacterDefinition, layers: usize, contributions: usize) -> PoseStage {
        let rest = def.skeleton.rest();
        let n = rest.len();
        PoseStage {
            contexts: def.animations.iter().map(|a| SamplingContext::for_animation(a)).collect(),
            scratch: None,
            // The outgoing graph's stack gets its room at the first loadout switch.
            stacks: [StackRecord::with_capacity(2 * layers + 2, contributions), StackRecord::default()],
            outgoing: false,
            local: rest.clone(),
            inertia: Inertializer::new(rest, def.inertializes),
            model: vec![Mat4::IDENTITY; n],
            skin: vec![Mat4::IDENTITY; n],
            morphs: (!def.skeleton.morphs().is_empty()).then(|| {
                let m = MorphPose::new(def.skeleton.morphs());
                Box::new([m.clone(), m])
            }),
            curves: (!def.clips.curves().is_empty()).then(|| {
                let c = CurvePose::new(def.clips.curves());
                Box::new([c.clone(), c])
            }),
        }
    }

    /// Model-space and skinning matrices for a character that computes
    /// `computes` (none for the local pose only; see `Character::set_output`).
    pub(crate) fn size_matrices(&mut self, computes: PoseOutput, joints: usize) {
        let size = |m: &mut Vec<Mat4>, needed: bool| {
            if !needed {
                *m = Vec::new();
            } else if m.len() != joints {
                *m = vec![Mat4::IDENTITY; joints];
            }
        };
        size(&mut self.model, computes >= PoseOutput::Model);
        size(&mut self.skin, computes == PoseOutput::Skinning);
    }

    /// Makes room, in the current and the outgoing graph's stacks, for frames
    /// of up to `layers` layers and `contributions` contributions (after a
    /// loadout change; may allocate).
    pub(crate) fn reserve(&mut self, layers: usize, contributions: usize) {
        for s in &mut self.stacks {
            s.reserve(2 * layers + 2, contributions);
        }
    }

    /// The inputs of the last frame's stacks (the current graph's, then the
    /// outgoing graph's while a loadout switch blends). Allocation-free.
    pub(crate) fn contributions(&self) -> impl Iterator<Item = PoseContribution> + '_ {
        let outgoing = self.stacks[1].contributions(true).filter(|_| self.outgoing);
        self.stacks[0].contributions(false).chain(outgoing)
    }

    /// Applies `ik` to the local pose with `lent`'s IK buffers (when it
    /// fits), else this character's own scratch's.
    pub(crate) fn apply_ik(
        &mut self,
        def: &CharacterDefinition,
        ik: &mut IkStage,
        lent: Option<&mut PoseScratch>,
    ) -> Result<(), RuntimeError> {
        let PoseStage { scratch, local, .. } = self;
        let scratch = scratch_for(scratch, lent, def);
        ik.apply(&def.skeleton, local, &mut scratch.ik)
    }

    /// Drops this character's own scratch (after the evaluation at spawn: in
    /// a crowd only the first character of each run keeps one, and lends it).
    pub(crate) fn release_scratch(&mut self) {
        self.scratch = None;
    }

    /// The scratch lent to the next characters of a crowd run.
    pub(crate) fn scratch_mut(&mut self) -> Option<&mut PoseScratch> {
        self.scratch.as_deref_mut()
    }

    /// Composes `current` into the local pose and, during a loadout switch,
    /// `previous` (weight `1 − alpha`) over it; `lent`: another character's
    /// scratch to use (when it fits).
    pub(crate) fn compose(
        &mut self,
        def: &CharacterDefinition,
        current: &Stack<'_>,
        previous: Option<(&Stack<'_>, f32)>,
        lent: Option<&mut PoseScratch>,
    ) -> Result<(), RuntimeError> {
        let PoseStage { contexts, scratch, stacks, outgoing: composed_outgoing, local, morphs, curves, .. } = self;
        let [current_stack, outgoing_stack] = stacks;
        let scratch = scratch_for(scratch, lent, def);
        let mut parts = Parts { def, contexts, scratch };
        let (mut morph_now, mut morph_before) = match morphs.as_deref_mut() {
            Some([now, before]) => (Some(now), Some(before)),
            None => (None, None),
        };
        let (mut curves_now, mut curves_before) = match curves.as_deref_mut() {
            Some([now, before]) => (Some(now), Some(before)),
            None => (None, None),
        };
        *composed_outgoing = false;
        parts.compose(current, current_stack, local, morph_now.as_deref_mut())?;
        parts.blend_curves(current_stack, curves_now.as_deref_mut());
        if let Some((outgoing, alpha)) = previous {
            // Lent out of the scratch while the scratch composes into it
            // (an empty pose stands in: no allocation).
            let mut before = std::mem::replace(&mut parts.scratch.outgoing, Pose::identity(0));
            let composed = parts.compose(outgoing, outgoing_stack, &mut before, morph_before.as_deref_mut());
            if composed.is_ok() {
                blend_into(local, &before, 1.0 - alpha);
            }
            parts.scratch.outgoing = before;
            composed?;
            parts.blend_curves(outgoing_stack, curves_before.as_deref_mut());
            *composed_outgoing = true;
            if let (Some(now), Some(before)) = (morph_now, morph_before) {
                now.blend_toward(before, 1.0 - alpha);
            }
            if let (Some(now), Some(before)) = (curves_now, curves_before) {
                now.blend_toward(before, 1.0 - alpha);
            }
        }
        Ok(())
    }
}

/// What composing one stack borrows from a [`PoseStage`].
struct Parts<'a> {
    def: &'a CharacterDefinition,
    contexts: &'a mut [SamplingContext],
    scratch: &'a mut PoseScratch,
}

impl Parts<'_> {
    fn compose(
        &mut self,
        stack: &Stack<'_>,
        record: &mut StackRecord,
        output: &mut Pose,
        morphs: Option<&mut MorphPose>,
    ) -> Result<(), RuntimeError> {
        let def = self.def;
        write_stack(def, stack, record);
        // The procedural pose (written in the run's scratch), lent out of the
        // scratch while the scratch composes.
        let mut procedural = None;
        if let (true, Some((motion, _))) = (def.procedural.any(), stack.procedural) {
            let mut pose = std::mem::replace(&mut self.scratch.extra, Pose::identity(0));
            write_procedural(def, motion, &mut pose);
            procedural = Some(pose);
        }
        let extra = procedural.as_ref().map(|pose| ExtraPose {
            pose,
            animated: &def.procedural_animated,
            reference: Some(&def.procedural_reference),
        });
        let composed = ComposeJob {
            composition: Composition::Layered,
            skeleton: &def.skeleton,
            stack: &record.stack,
            sources: &Sources { def, masks: stack.masks },
            contexts: self.contexts,
            extra,
            scratch: self.scratch,
            output,
            morphs,
        }
        .run();
        if let Some(pose) = procedural {
            self.scratch.extra = pose;
        }
        composed
    }
}

impl Parts<'_> {
    /// Blends the float curves of the stack [`Parts::compose`] wrote last.
    fn blend_curves(&self, record: &StackRecord, out: Option<&mut CurvePose>) {
        if let Some(out) = out {
            let clips = &self.def.clips;
            blend_curves(clips.curves(), &record.stack, clips.curve_tracks(), out);
        }
    }
}

/// Writes `stack`'s layers in stack order (see the module docs).
fn write_stack(def: &CharacterDefinition, stack: &Stack<'_>, out: &mut StackRecord) {
    out.clear();
    let frame = stack.frame;
    let has_base = frame.layers.first().is_some_and(|l| l.layer != SLOT_LAYER);
    if !has_base {
        write_selector(def, stack, out);
    }
    for (i, layer) in frame.layers.iter().enumerate() {
        let cs = &frame.contributions[layer.contributions.clone()];
        for mode in [BlendMode::Override, BlendMode::Additive] {
            if !cs.iter().any(|c| c.blend_mode == mode && c.weight > 0.0) {
                continue;
            }
            out.stack.layer(mode, 1.0);
            for c in cs.iter().filter(|c| c.blend_mode == mode && c.weight > 0.0) {
                // The mask as the blender sees it: a layer or state without one masks nothing.
                let mask = if stack.masks.and_then(|m| m.get(c.mask)).is_some() { c.mask } else { MaskRef::None };
                let part = PosePart::Graph { layer: layer.layer, source: c.source };
                push_contribution(def, c, (part, mask), mode == BlendMode::Additive, out);
            }
        }
        if i == 0 && has_base {
            write_selector(def, stack, out);
        }
    }
}

/// The selector's layer and the procedural fallback's, when they show.
fn write_selector(def: &CharacterDefinition, stack: &Stack<'_>, out: &mut StackRecord) {
    if let Some(sel) = stack.selector.filter(|s| s.weight > 0.0) {
        out.stack.layer(BlendMode::Override, sel.weight);
        for c in &sel.frame.contributions {
            let ContributionSource::Selector { row } = c.source else { continue };
            if c.weight <= 0.0 || (sel.tagged_only && !sel.table.is_tagged(row)) {
                continue;
            }
            push_contribution(def, c, (PosePart::Selector { row }, MaskRef::None), false, out);
        }
    }
    if let Some((_, weight)) = stack.procedural.filter(|(_, w)| *w > 0.0) {
        out.stack.extra_layer(BlendMode::Additive, weight);
    }
}

/// Adds `c` to the open layer of `out`, recording where it came from and its mask.
fn push_contribution(
    def: &CharacterDefinition,
    c: &ClipContribution,
    (part, mask): (PosePart, MaskRef),
    additive: bool,
    out: &mut StackRecord,
) {
    let i = c.clip.index();
    if i >= def.animations.len() {
        return;
    }
    let i = i as u32;
    let input = StackInput {
        animation: i,
        cursor: i,
        time: c.time,
        weight: c.weight,
        mask: pack_mask(mask),
        reference: if additive { i } else { NONE },
    };
    out.push(input, part, mask);
}

/// The procedural fallback's pose: breath pitch on the spine (and chest),
/// head bob on the head; identity elsewhere (its flags animate only those).
fn write_procedural(def: &CharacterDefinition, motion: ProceduralMotion, pose: &mut Pose) {
    let p = def.procedural;
    let (spine_share, chest_share) = if p.chest.is_some() { (0.5, 0.5) } else { (1.0, 0.0) };
    let pitch = |share: f32| Quat::from_rotation_x(motion.spine_pitch * share);
    let mut put = |joint: Option<u16>, t: Transform| {
        if let Some(j) = joint {
            pose.set(usize::from(j), t);
        }
    };
    put(p.spine, Transform { rotation: pitch(spine_share), ..Transform::IDENTITY });
    put(p.chest, Transform { rotation: pitch(chest_share), ..Transform::IDENTITY });
    put(p.head, Transform { translation: motion.head_offset(), ..Transform::IDENTITY });
}

/// Inertialization of the whole local pose (Bollo 2018): when the graph
/// starts an inertialized transition, the offset from the source (the last
/// output, moved on by its last velocity) to the target's first pose is
/// recorded per joint (translation along its direction, rotation about its
/// axis) and decays with [`inertialize_quintic`] over the transition.
///
/// Only the joints the transition's layer reaches are inertialized: a layer
/// with a bone mask reaches the joints its mask or the masks of its
/// contributions weigh above 0 (the target's state mask included); every
/// other joint is left exactly as composed, so an upper-body transition
/// never moves the legs by the extrapolation error of the base layer. (A
/// source state whose own mask reaches further than the layer's and the
/// target's is not followed on the extra joints: they cut.)
#[derive(Debug, Clone)]
pub(crate) struct Inertializer {
    /// Whether the definition has inertialized transitions at all: without,
    /// nothing is kept (no buffers, no per-frame copies).
    on: bool,
    generation: u32,
    duration: f32,
    active: bool,
    /// Per joint: whether the running transition's layer reaches it.
    reach: Vec<bool>,
    t_dir: Vec<Vec3A>,
    t_x0: Vec<f32>,
    t_v0: Vec<f32>,
    r_axis: Vec<Vec3>,
    r_x0: Vec<f32>,
    r_v0: Vec<f32>,
    last: PoseMotion,
    last2: PoseMotion,
    last_dt: f32,
    outputs: u8,
}

impl Inertializer {
    /// Prefetching for a crowd: the last two outputs every frame rewrites,
    /// and the decay state while a transition decays.
    fn prefetch(&self) {
        use crate::pose::simd::prefetch;
        if !self.on {
            return;
        }
        self.last.prefetch();
        self.last2.prefetch();
        if self.active {
            prefetch(&self.reach, usize::MAX);
            prefetch(&self.t_dir, usize::MAX);
            prefetch(&self.t_x0, usize::MAX);
            prefetch(&self.t_v0, usize::MAX);
            prefetch(&self.r_axis, usize::MAX);
            prefetch(&self.r_x0, usize::MAX);
            prefetch(&self.r_v0, usize::MAX);
        }
    }
    /// Room for `rest`'s joints when `on` (the definition inertializes), else none.
    fn new(rest: &Pose, on: bool) -> Inertializer {
        let n = if on { rest.len() } else { 0 };
        let last = if on { PoseMotion::of(rest) } else { PoseMotion::of(&Pose::identity(0)) };
        Inertializer {
            on,
            generation: 0,
            duration: 0.0,
            active: false,
            reach: vec![true; n],
            t_dir: vec![Vec3A::ZERO; n],
            t_x0: vec![0.0; n],
            t_v0: vec![0.0; n],
            r_axis: vec![Vec3::X; n],
            r_x0: vec![0.0; n],
            r_v0: vec![0.0; n],
            last2: last.clone(),
            last,
            last_dt: 0.0,
            outputs: 0,
        }
    }

    /// Forgets the generation seen (a new graph instance counts from 0).
    pub(crate) fn reset_generation(&mut self) {
        self.generation = 0;
        self.active = false;
    }

    /// Whether an inertialized transition is decaying.
    pub(crate) fn is_active(&self) -> bool {
        self.active
    }

    /// Applies the decaying offset to `pose` (the composed pose of `frame`,
    /// whose masks are `masks`) and records it as the last output.
    pub(crate) fn apply(&mut self, frame: &FrameOutput, masks: Option<&GraphMasks>, pose: &mut Pose, dt: f32) {
        if !self.on {
            return;
        }
        let newest =
            frame.layers.iter().filter_map(|l| l.inertialization.map(|i| (l, i))).max_by_key(|(_, i)| i.generation);
        match newest {
            Some((layer, i)) if i.generation != self.generation => {
                self.generation = i.generation;
                self.duration = i.duration;
                self.active = self.outputs > 0;
                if self.active {
                    self.set_reach(frame, layer, masks);
                    self.record(pose);
                }
            }
            Some(_) => {}
            None => self.active = false,
        }
        if self.active
            && let Some((_, i)) = newest
        {
            let t = i.elapsed;
            for j in 0..pose.len() {
                if !self.reach[j] {
                    continue;
                }
                let x = inertialize_quintic(self.t_x0[j], self.t_v0[j], t, self.duration);
                if x != 0.0 {
                    pose.set_translation(j, pose.translation(j) + self.t_dir[j] * x);
                }
                let a = inertialize_quintic(self.r_x0[j], self.r_v0[j], t, self.duration);
                if a != 0.0 {
                    pose.set_rotation(j, (Quat::from_axis_angle(self.r_axis[j], a) * pose.rotation(j)).normalize());
                }
            }
        }
        // The older output's buffer takes the new one: one copy, not two.
        std::mem::swap(&mut self.last2, &mut self.last);
        self.last.copy_from(pose);
        self.last_dt = dt;
        self.outputs = self.outputs.saturating_add(1);
    }

    /// The joints `layer` of `frame` reaches: every joint for a layer without
    /// a mask (or without the graph's masks), else the union of its mask and
    /// its contributions' masks.
    fn set_reach(&mut self, frame: &FrameOutput, layer: &PoseLayer, masks: Option<&GraphMasks>) {
        let weights = |m: MaskRef| masks.and_then(|g| g.get(m));
        let Some(own) = weights(layer.mask) else {
            self.reach.fill(true);
            return;
        };
        for (r, &w) in self.reach.iter_mut().zip(own) {
            *r = w > 0.0;
        }
        for c in &frame.contributions[layer.contributions.clone()] {
            match weights(c.mask) {
                Some(w) => {
                    for (r, &w) in self.reach.iter_mut().zip(w) {
                        *r |= w > 0.0;
                    }
                }
                None => {
                    self.reach.fill(true);
                    return;
                }
            }
        }
    }

    /// Records per-joint offsets from the extrapolated source to `target`.
    fn record(&mut self, target: &Pose) {
        let moving = self.outputs >= 2 && self.last_dt > 0.0;
        let inv_dt = if moving { 1.0 / self.last_dt } else { 0.0 };
        for j in 0..target.len() {
            // Translation: offset along its direction, velocity projected on it.
            let (l, l2) = (self.last.translation(j), self.last2.translation(j));
            let v = if moving { (l - l2) * inv_dt } else { Vec3A::ZERO };
            let source = l + v * self.last_dt;
            let d = source - target.translation(j);
            let len = d.length();
            let dir = if len > 1e-9 { d / len } else { Vec3A::ZERO };
            self.t_dir[j] = dir;
            self.t_x0[j] = len;
            self.t_v0[j] = v.dot(dir);
            // Rotation: offset q with source = q ⊗ target, about its axis.
            let (q, q2) = (self.last.rotation(j), self.last2.rotation(j));
            let step = if moving { (q * q2.inverse()).normalize() } else { Quat::IDENTITY };
            let source = (step * q).normalize();
            let mut off = (source * target.rotation(j).inverse()).normalize();
            if off.w < 0.0 {
                off = -off;
            }
            let (axis, angle) = off.to_axis_angle();
            let axis = if axis.is_finite() && angle > 1e-7 { axis } else { Vec3::X };
            self.r_axis[j] = axis;
            self.r_x0[j] = if angle > 1e-7 { angle } else { 0.0 };
            let mut step = step;
            if step.w < 0.0 {
                step = -step;
            }
            let (s_axis, s_angle) = step.to_axis_angle();
            let omega =
                if moving && s_angle > 1e-7 && s_axis.is_finite() { s_axis * s_angle * inv_dt } else { Vec3::ZERO };
            self.r_v0[j] = omega.dot(axis);
        }
    }
}

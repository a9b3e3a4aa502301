//! The character's pose stage: frames of the behaviour layer become one
//! local pose through the blending job, then inertialization, IK, model
//! space and skinning. Everything is sized at spawn; a frame allocates nothing.
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

use glam::{Mat4, Quat, Vec3, Vec3A};
use zoa_anim_core::Transform;

use super::definition::CharacterDefinition;
use crate::animation::{SamplingContext, SamplingJob};
use crate::blending::{BlendInput, BlendMode, Blender, BlendingContext, Composition, blend_into};
use crate::error::RuntimeError;
use crate::graph::{ClipContribution, ContributionSource, FrameOutput, GraphMasks, SLOT_LAYER, inertialize_quintic};
use crate::pose::Pose;
use crate::selector::{ProceduralMotion, SelectorTable};

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

/// Buffers of one character's pose stage.
#[derive(Debug, Clone)]
pub(crate) struct PoseStage {
    contexts: Vec<SamplingContext>,
    blending: BlendingContext,
    scratch: Pose,
    pub(crate) local: Pose,
    previous: Pose,
    pub(crate) inertia: Inertializer,
    pub(crate) model: Vec<Mat4>,
    pub(crate) skin: Vec<Mat4>,
}

impl PoseStage {
    pub(crate) fn new(def: &CharacterDefinition) -> PoseStage {
        let rest = def.skeleton.rest();
        let n = rest.len();
        PoseStage {
            contexts: def.animations.iter().map(|a| SamplingContext::for_animation(a)).collect(),
            blending: BlendingContext::new(n),
            scratch: rest.clone(),
            local: rest.clone(),
            previous: rest.clone(),
            inertia: Inertializer::new(rest),
            model: vec![Mat4::IDENTITY; n],
            skin: vec![Mat4::IDENTITY; n],
        }
    }

    /// Composes `current` into the local pose and, during a loadout switch,
    /// `previous` (weight `1 − alpha`) over it.
    pub(crate) fn compose(
        &mut self,
        def: &CharacterDefinition,
        current: &Stack<'_>,
        previous: Option<(&Stack<'_>, f32)>,
    ) -> Result<(), RuntimeError> {
        compose_stack(def, current, &mut self.contexts, &mut self.blending, &mut self.scratch, &mut self.local)?;
        if let Some((stack, alpha)) = previous {
            compose_stack(def, stack, &mut self.contexts, &mut self.blending, &mut self.scratch, &mut self.previous)?;
            blend_into(&mut self.local, &self.previous, 1.0 - alpha);
        }
        Ok(())
    }
}

fn compose_stack(
    def: &CharacterDefinition,
    stack: &Stack<'_>,
    contexts: &mut [SamplingContext],
    blending: &mut BlendingContext,
    scratch: &mut Pose,
    out: &mut Pose,
) -> Result<(), RuntimeError> {
    let mut blender = blending.begin(Composition::Layered, def.skeleton.rest(), out)?;
    let frame = stack.frame;
    let has_base = frame.layers.first().is_some_and(|l| l.layer != SLOT_LAYER);
    if !has_base {
        add_selector(def, stack, contexts, scratch, &mut blender)?;
    }
    for (i, layer) in frame.layers.iter().enumerate() {
        let cs = &frame.contributions[layer.contributions.clone()];
        for mode in [BlendMode::Override, BlendMode::Additive] {
            if !cs.iter().any(|c| c.blend_mode == mode && c.weight > 0.0) {
                continue;
            }
            let additive = mode == BlendMode::Additive;
            blender.layer(if additive { BlendMode::Additive } else { BlendMode::Override }, 1.0);
            for c in cs.iter().filter(|c| c.blend_mode == mode && c.weight > 0.0) {
                let mask = stack.masks.and_then(|m| m.get(c.mask));
                add_contribution(def, c, mask, additive, contexts, scratch, &mut blender)?;
            }
        }
        if i == 0 && has_base {
            add_selector(def, stack, contexts, scratch, &mut blender)?;
        }
    }
    blender.finish();
    Ok(())
}

fn add_selector(
    def: &CharacterDefinition,
    stack: &Stack<'_>,
    contexts: &mut [SamplingContext],
    scratch: &mut Pose,
    blender: &mut Blender<'_>,
) -> Result<(), RuntimeError> {
    if let Some(sel) = stack.selector.filter(|s| s.weight > 0.0) {
        blender.layer(BlendMode::Override, sel.weight);
        for c in &sel.frame.contributions {
            let ContributionSource::Selector { row } = c.source else { continue };
            if c.weight <= 0.0 || (sel.tagged_only && !sel.table.is_tagged(row)) {
                continue;
            }
            add_contribution(def, c, None, false, contexts, scratch, blender)?;
        }
    }
    if let Some((motion, weight)) = stack.procedural.filter(|(_, w)| *w > 0.0) {
        let p = def.procedural;
        let (spine_share, chest_share) = if p.chest.is_some() { (0.5, 0.5) } else { (1.0, 0.0) };
        let pitch = |share: f32| Quat::from_rotation_x(motion.spine_pitch * share);
        let mut put = |joint: Option<u16>, t: Transform| {
            if let Some(j) = joint {
                scratch.set(usize::from(j), t);
            }
        };
        put(p.spine, Transform { rotation: pitch(spine_share), ..Transform::IDENTITY });
        put(p.chest, Transform { rotation: pitch(chest_share), ..Transform::IDENTITY });
        put(p.head, Transform { translation: motion.head_offset(), ..Transform::IDENTITY });
        blender.layer(BlendMode::Additive, weight);
        let input = BlendInput {
            pose: scratch,
            animated: &def.procedural_animated,
            weight: 1.0,
            mask: None,
            reference: Some(&def.procedural_reference),
        };
        blender.add(&input)?;
    }
    Ok(())
}

fn add_contribution(
    def: &CharacterDefinition,
    c: &ClipContribution,
    mask: Option<&[f32]>,
    additive: bool,
    contexts: &mut [SamplingContext],
    scratch: &mut Pose,
    blender: &mut Blender<'_>,
) -> Result<(), RuntimeError> {
    let i = c.clip.index();
    let (Some(animation), Some(context)) = (def.animations.get(i), contexts.get_mut(i)) else { return Ok(()) };
    let job = SamplingJob { animation, time: c.time, context, output: scratch };
    match mask {
        Some(m) => job.run_masked(m)?,
        None => job.run()?,
    }
    let input = BlendInput {
        pose: scratch,
        animated: animation.animated(),
        weight: c.weight,
        mask,
        reference: additive.then(|| &def.references[i]),
    };
    blender.add(&input)
}

/// Inertialization of the whole local pose (Bollo 2018): when the graph
/// starts an inertialized transition, the offset from the source (the last
/// output, moved on by its last velocity) to the target's first pose is
/// recorded per joint (translation along its direction, rotation about its
/// axis) and decays with [`inertialize_quintic`] over the transition.
#[derive(Debug, Clone)]
pub(crate) struct Inertializer {
    generation: u32,
    duration: f32,
    active: bool,
    t_dir: Vec<Vec3A>,
    t_x0: Vec<f32>,
    t_v0: Vec<f32>,
    r_axis: Vec<Vec3>,
    r_x0: Vec<f32>,
    r_v0: Vec<f32>,
    last: Pose,
    last2: Pose,
    last_dt: f32,
    outputs: u8,
}

impl Inertializer {
    fn new(rest: &Pose) -> Inertializer {
        let n = rest.len();
        Inertializer {
            generation: 0,
            duration: 0.0,
            active: false,
            t_dir: vec![Vec3A::ZERO; n],
            t_x0: vec![0.0; n],
            t_v0: vec![0.0; n],
            r_axis: vec![Vec3::X; n],
            r_x0: vec![0.0; n],
            r_v0: vec![0.0; n],
            last: rest.clone(),
            last2: rest.clone(),
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

    /// Applies the decaying offset to `pose` (the composed pose of `frame`)
    /// and records it as the last output.
    pub(crate) fn apply(&mut self, frame: &FrameOutput, pose: &mut Pose, dt: f32) {
        let newest = frame.layers.iter().filter_map(|l| l.inertialization).max_by_key(|i| i.generation);
        match newest {
            Some(i) if i.generation != self.generation => {
                self.generation = i.generation;
                self.duration = i.duration;
                self.active = self.outputs > 0;
                if self.active {
                    self.record(pose);
                }
            }
            Some(i) if i.generation == self.generation => {}
            _ => self.active = false,
        }
        if self.active
            && let Some(i) = newest
        {
            let t = i.elapsed;
            for j in 0..pose.len() {
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
        self.last2.copy_from(&self.last);
        self.last.copy_from(pose);
        self.last_dt = dt;
        self.outputs = self.outputs.saturating_add(1);
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

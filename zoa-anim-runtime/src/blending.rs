//! Layered blending with three.js `AnimationMixer` semantics.
//!
//! # Terminology
//! - *override input*: a sampled pose mixed in by weight. Per joint property,
//!   inputs accumulate in order: the first sets the value and `W = w`, each next
//!   one does `W += w; value = lerp/slerp(value, x, w / W)`.
//! - *rest fill*: when the accumulated `W < 1`, the remainder comes from the
//!   joint's rest pose: `value = lerp/slerp(value, rest, 1 − W)`.
//! - *additive input*: a sampled pose minus a reference pose (`ref⁻¹ ⊗ q` for
//!   rotations, `value − ref` for vectors), applied after the override result:
//!   `r = r ⊗ slerp(identity, delta, w)`, `t, s += w · delta`; not normalized.
//! - *mask*: per-joint weights in `0..=1` multiplied into the input weight.
//!
//! An input contributes only to the (joint, property) slots its animation
//! animates (see [`crate::Animation::animated`]); a zero effective weight
//! contributes nothing (three.js skips such actions).
//!
//! ```text
//!  override inputs ──accumulate──► value, W ──rest fill──► ──⊗ additive inputs──► output
//! ```

use glam::{Quat, Vec3A, Vec4};

use crate::animation::{ANIMATES_ROTATION, ANIMATES_SCALE, ANIMATES_TRANSLATION};
use crate::error::RuntimeError;
use crate::math::{lerp3, slerp};
use crate::pose::Pose;

/// How a layer combines with what is below it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BlendMode {
    /// Weighted average with the other override inputs (three.js normal blending).
    #[default]
    Override,
    /// Difference to a reference pose, added on top of the override result.
    Additive,
}

/// One weighted input of a [`BlendingJob`].
#[derive(Debug, Clone, Copy)]
pub struct BlendInput<'a> {
    /// Sampled local pose.
    pub pose: &'a Pose,
    /// Which properties of each joint the pose's animation animates
    /// ([`crate::Animation::animated`]); other slots contribute nothing.
    pub animated: &'a [u8],
    /// Weight, `0..=1` (values above 1 are allowed for additive inputs).
    pub weight: f32,
    /// Override or additive.
    pub mode: BlendMode,
    /// Optional per-joint weights in `0..=1` ([`crate::BoneMask::weights`]).
    pub mask: Option<&'a [f32]>,
    /// Reference pose of an additive input (required for [`BlendMode::Additive`]).
    pub reference: Option<&'a Pose>,
}

/// Caller-owned blending state: accumulated override weight per joint property.
/// Sized once for a joint count; jobs never grow it.
#[derive(Debug, Clone, Default)]
pub struct BlendingContext {
    weights_t: Vec<f32>,
    weights_r: Vec<f32>,
    weights_s: Vec<f32>,
}

impl BlendingContext {
    /// A context for skeletons of at most `max_joints` joints.
    pub fn new(max_joints: usize) -> BlendingContext {
        BlendingContext {
            weights_t: vec![0.0; max_joints],
            weights_r: vec![0.0; max_joints],
            weights_s: vec![0.0; max_joints],
        }
    }
    /// Largest joint count this context can serve.
    pub fn capacity(&self) -> usize {
        self.weights_r.len()
    }

    /// Starts a blend of `joints` joints (clears the accumulated weights).
    ///
    /// # Panics
    /// When `joints` exceeds [`BlendingContext::capacity`].
    pub fn begin(&mut self, joints: usize) {
        self.weights_t[..joints].fill(0.0);
        self.weights_r[..joints].fill(0.0);
        self.weights_s[..joints].fill(0.0);
    }

    /// Mixes one override input into `output` (call between [`begin`](Self::begin)
    /// and [`finish_override`](Self::finish_override), inputs in layer order).
    ///
    /// # Panics
    /// When the pose, mask or `animated` lengths differ from `output.len()`, or
    /// `output` is larger than the context.
    pub fn accumulate(&mut self, output: &mut Pose, pose: &Pose, animated: &[u8], weight: f32, mask: Option<&[f32]>) {
        let n = output.len();
        debug_assert!(pose.len() == n && animated.len() == n && mask.is_none_or(|m| m.len() == n));
        if weight.is_nan() || weight <= 0.0 {
            return;
        }
        let (out_t, out_r, out_s) = output.parts_mut();
        let (wt, wr, ws) = (&mut self.weights_t[..n], &mut self.weights_r[..n], &mut self.weights_s[..n]);
        let (in_t, in_r, in_s) = (pose.translations(), pose.rotations(), pose.scales());
        for j in 0..n {
            let bits = animated[j];
            if bits == 0 {
                continue;
            }
            let w = match mask {
                Some(m) => weight * m[j],
                None => weight,
            };
            if w.is_nan() || w <= 0.0 {
                continue;
            }
            if bits & ANIMATES_TRANSLATION != 0 {
                out_t[j] = mix_vec3(&mut wt[j], out_t[j], in_t[j], w);
            }
            if bits & ANIMATES_ROTATION != 0 {
                let acc = wr[j];
                if acc == 0.0 {
                    out_r[j] = in_r[j];
                    wr[j] = w;
                } else {
                    let total = acc + w;
                    wr[j] = total;
                    out_r[j] = slerp(out_r[j], in_r[j], w / total);
                }
            }
            if bits & ANIMATES_SCALE != 0 {
                out_s[j] = mix_vec3(&mut ws[j], out_s[j], in_s[j], w);
            }
        }
    }

    /// Fills the weight left below 1 from `rest`, per joint property.
    ///
    /// # Panics
    /// When `rest` and `output` differ in length.
    pub fn finish_override(&mut self, output: &mut Pose, rest: &Pose) {
        let n = output.len();
        assert_eq!(rest.len(), n, "rest pose and output differ in joint count");
        let (out_t, out_r, out_s) = output.parts_mut();
        fill_vec3(out_t, rest.translations(), &self.weights_t[..n]);
        fill_vec3(out_s, rest.scales(), &self.weights_s[..n]);
        for ((o, &r), &w) in out_r.iter_mut().zip(rest.rotations()).zip(&self.weights_r[..n]) {
            if w == 0.0 {
                *o = r;
            } else if w < 1.0 {
                *o = slerp(*o, r, 1.0 - w);
            }
        }
    }
}

#[inline(always)]
fn mix_vec3(acc: &mut f32, current: Vec3A, x: Vec3A, w: f32) -> Vec3A {
    if *acc == 0.0 {
        *acc = w;
        x
    } else {
        let total = *acc + w;
        *acc = total;
        lerp3(current, x, w / total)
    }
}

fn fill_vec3(out: &mut [Vec3A], rest: &[Vec3A], weights: &[f32]) {
    for ((o, &r), &w) in out.iter_mut().zip(rest).zip(weights) {
        if w == 0.0 {
            *o = r;
        } else if w < 1.0 {
            *o = lerp3(*o, r, 1.0 - w);
        }
    }
}

/// Adds one additive input on top of `output` (after
/// [`BlendingContext::finish_override`]).
///
/// # Panics
/// When the lengths of `output`, `pose`, `reference`, `animated` or `mask` differ.
pub fn apply_additive(
    output: &mut Pose,
    pose: &Pose,
    reference: &Pose,
    animated: &[u8],
    weight: f32,
    mask: Option<&[f32]>,
) {
    let n = output.len();
    debug_assert!(pose.len() == n && reference.len() == n && animated.len() == n);
    debug_assert!(mask.is_none_or(|m| m.len() == n));
    if weight.is_nan() || weight <= 0.0 {
        return;
    }
    let (out_t, out_r, out_s) = output.parts_mut();
    for j in 0..n {
        let bits = animated[j];
        if bits == 0 {
            continue;
        }
        let w = match mask {
            Some(m) => weight * m[j],
            None => weight,
        };
        if w.is_nan() || w <= 0.0 {
            continue;
        }
        if bits & ANIMATES_TRANSLATION != 0 {
            out_t[j] += (pose.translations()[j] - reference.translations()[j]) * w;
        }
        if bits & ANIMATES_ROTATION != 0 {
            out_r[j] *= additive_rotation(reference.rotations()[j], pose.rotations()[j], w);
        }
        if bits & ANIMATES_SCALE != 0 {
            out_s[j] += (pose.scales()[j] - reference.scales()[j]) * w;
        }
    }
}

/// `slerp(identity, ref⁻¹ ⊗ q, w)`, three.js `makeClipAdditive` + `_slerpAdditive`.
#[inline(always)]
fn additive_rotation(reference: Quat, q: Quat, w: f32) -> Quat {
    let inv = Quat::from_vec4(Vec4::from(reference).normalize()).conjugate();
    let delta = inv * q;
    slerp(Quat::IDENTITY, delta, w)
}

/// Blends weighted inputs over a rest pose in one call.
///
/// Override inputs are mixed in slice order, the rest pose fills missing
/// weight, then additive inputs are applied in slice order. `run` does not
/// allocate.
#[derive(Debug)]
pub struct BlendingJob<'a> {
    /// The skeleton's rest pose (fills weight below 1).
    pub rest: &'a Pose,
    /// Inputs in layer order.
    pub inputs: &'a [BlendInput<'a>],
    /// Accumulated weights; capacity at least the joint count.
    pub context: &'a mut BlendingContext,
    /// Output local pose, same joint count as `rest`.
    pub output: &'a mut Pose,
}

impl BlendingJob<'_> {
    /// Every reason this job cannot run.
    pub fn validate(&self) -> Result<(), RuntimeError> {
        let n = self.rest.len();
        let mut reasons = Vec::new();
        if self.output.len() != n {
            reasons.push(format!("output has {} joints, rest pose has {n}", self.output.len()));
        }
        if self.context.capacity() < n {
            reasons.push(format!("context holds {} joints, skeleton has {n}", self.context.capacity()));
        }
        for (i, input) in self.inputs.iter().enumerate() {
            if input.pose.len() != n {
                reasons.push(format!("input {i} pose has {} joints, expected {n}", input.pose.len()));
            }
            if input.animated.len() != n {
                reasons.push(format!("input {i} animated flags cover {} joints, expected {n}", input.animated.len()));
            }
            if let Some(m) = input.mask
                && m.len() != n
            {
                reasons.push(format!("input {i} mask has {} weights, expected {n}", m.len()));
            }
            if !input.weight.is_finite() || input.weight < 0.0 {
                reasons.push(format!("input {i} weight {} is not a finite non-negative number", input.weight));
            }
            match (input.mode, input.reference) {
                (BlendMode::Additive, None) => reasons.push(format!("additive input {i} has no reference pose")),
                (BlendMode::Additive, Some(r)) if r.len() != n => {
                    reasons.push(format!("input {i} reference pose has {} joints, expected {n}", r.len()))
                }
                _ => {}
            }
        }
        RuntimeError::check("blending job", reasons)
    }

    /// Validates, then blends.
    pub fn run(self) -> Result<(), RuntimeError> {
        self.validate()?;
        let n = self.rest.len();
        self.context.begin(n);
        for input in self.inputs.iter().filter(|i| i.mode == BlendMode::Override) {
            self.context.accumulate(self.output, input.pose, input.animated, input.weight, input.mask);
        }
        self.context.finish_override(self.output, self.rest);
        for input in self.inputs.iter().filter(|i| i.mode == BlendMode::Additive) {
            if let Some(reference) = input.reference {
                apply_additive(self.output, input.pose, reference, input.animated, input.weight, input.mask);
            }
        }
        Ok(())
    }
}

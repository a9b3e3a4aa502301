//! Root motion: the root joint's translation and yaw
//! change over a frame, blended like the pose, returned to the caller, and
//! optionally removed from the pose so the clip does not move the mesh twice.
//!
//! For each override contribution of a [`FrameOutput`] the root is sampled at
//! the contribution's `prev_time` and `time`; a loop wrap adds the segment to
//! the clip's end, one full cycle per extra wrap, and the segment from the
//! start. The per-clip deltas are blended with the contributions' weights the
//! way the pose is (three.js accumulation): a weighted average when the
//! weights sum to more than 1, and the missing weight filled with the rest
//! pose — which does not move — when they sum to less. Additive layers carry
//! no root motion.
//!
//! Sampling uses the pose engine's [`SamplingJob`] into a scratch pose (the
//! committed job samples every joint; a root-only sampler would be cheaper).

use std::sync::Arc;

use glam::{EulerRot, Quat, Vec3, Vec3A};
use zoa_anim_core::graph::BlendMode;

use super::output::{ClipContribution, FrameOutput};
use crate::error::RuntimeError;
use crate::pose::Pose;
use crate::pose::animation::{Animation, SamplingContext, SamplingJob};

/// The root's motion over one frame.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct RootMotion {
    /// Translation delta of the root joint in its parent's space (model space
    /// for a skeleton root), metres.
    pub translation: Vec3,
    /// Yaw delta about +Y, radians, each segment wrapped to `(−π, π]`.
    pub yaw: f32,
}

impl RootMotion {
    /// `[x, y, z, yaw]`.
    #[must_use]
    pub fn to_array(self) -> [f32; 4] {
        [self.translation.x, self.translation.y, self.translation.z, self.yaw]
    }
}

/// Caller-owned state of root-motion extraction for one character: the root
/// joint, one sampling context per clip and a scratch pose, sized once.
#[derive(Debug, Clone)]
pub struct RootMotionContext {
    root: usize,
    contexts: Vec<SamplingContext>,
    scratch: Pose,
}

impl RootMotionContext {
    /// A context for `animations` (indexed by [`super::ClipId`], all bound to
    /// the skeleton whose rest pose is `rest`) and root joint `root`. Every
    /// problem is reported at once.
    pub fn new(rest: &Pose, animations: &[Arc<Animation>], root: usize) -> Result<RootMotionContext, RuntimeError> {
        let mut reasons = Vec::new();
        if root >= rest.len() {
            reasons.push(format!("root joint {root} is out of range (the skeleton has {} joints)", rest.len()));
        }
        for a in animations {
            if a.joint_count() != rest.len() {
                reasons.push(format!(
                    "animation `{}` is bound to {} joints, the skeleton has {}",
                    a.name(),
                    a.joint_count(),
                    rest.len()
                ));
            }
        }
        RuntimeError::check("root motion context", reasons)?;
        Ok(RootMotionContext {
            root,
            contexts: animations.iter().map(|a| SamplingContext::for_animation(a)).collect(),
            scratch: rest.clone(),
        })
    }

    /// The root joint.
    #[must_use]
    pub fn root(&self) -> usize {
        self.root
    }
}

/// Extracts the frame's root motion from a [`FrameOutput`]. Allocation-free.
#[derive(Debug)]
pub struct RootMotionJob<'a> {
    /// Bound animations indexed by clip id (the same list the context was built for).
    pub animations: &'a [Arc<Animation>],
    /// The frame written by a graph instance, selector or switcher.
    pub frame: &'a FrameOutput,
    /// Rest pose of the skeleton (root values for clips that do not animate it).
    pub rest: &'a Pose,
    /// Per-character state.
    pub context: &'a mut RootMotionContext,
}

fn yaw_of(q: Quat) -> f32 {
    q.to_euler(EulerRot::YXZ).0
}

fn wrap_angle(a: f32) -> f32 {
    let tau = std::f32::consts::TAU;
    let w = a - tau * ((a + std::f32::consts::PI) / tau).floor();
    if w <= -std::f32::consts::PI { w + tau } else { w }
}

impl RootMotionJob<'_> {
    /// Every reason the job cannot run.
    pub fn validate(&self) -> Result<(), RuntimeError> {
        let mut reasons = Vec::new();
        if self.context.contexts.len() != self.animations.len() {
            reasons.push(format!(
                "context was built for {} animations, got {}",
                self.context.contexts.len(),
                self.animations.len()
            ));
        }
        if self.rest.len() != self.context.scratch.len() {
            reasons.push(format!("rest pose has {} joints, context {}", self.rest.len(), self.context.scratch.len()));
        }
        for c in &self.frame.contributions {
            if c.clip.index() >= self.animations.len() {
                reasons.push(format!("clip {} has no animation", c.clip.0));
            }
        }
        RuntimeError::check("root motion job", reasons)
    }

    /// Validates, then blends the root deltas of every override contribution.
    pub fn run(self) -> Result<RootMotion, RuntimeError> {
        self.validate()?;
        let RootMotionJob { animations, frame, rest, context } = self;
        let mut translation = Vec3::ZERO;
        let mut yaw = 0.0;
        let mut weight = 0.0;
        for layer in &frame.layers {
            if layer.blend_mode == BlendMode::Additive {
                continue;
            }
            for c in &frame.contributions[layer.contributions.clone()] {
                if c.blend_mode == BlendMode::Additive || c.weight <= 0.0 {
                    continue;
                }
                let (t, y) = clip_delta(animations, rest, context, c)?;
                translation += c.weight * t;
                yaw += c.weight * y;
                weight += c.weight;
            }
        }
        let norm = weight.max(1.0);
        Ok(RootMotion { translation: translation / norm, yaw: yaw / norm })
    }
}

fn clip_delta(
    animations: &[Arc<Animation>],
    rest: &Pose,
    ctx: &mut RootMotionContext,
    c: &ClipContribution,
) -> Result<(Vec3, f32), RuntimeError> {
    let animation = &animations[c.clip.index()];
    let root = ctx.root;
    let mut sample = |time: f32| -> Result<(Vec3, f32), RuntimeError> {
        ctx.scratch.copy_from(rest);
        SamplingJob { animation, time, context: &mut ctx.contexts[c.clip.index()], output: &mut ctx.scratch }.run()?;
        let t = ctx.scratch.get(root);
        Ok((t.translation, yaw_of(t.rotation)))
    };
    let (p0, y0) = sample(c.prev_time)?;
    let (p1, y1) = sample(c.time)?;
    if c.wraps == 0 {
        return Ok((p1 - p0, wrap_angle(y1 - y0)));
    }
    let d = animation.duration();
    let (pe, ye) = sample(d)?;
    let (ps, ys) = sample(0.0)?;
    let full = (pe - ps, wrap_angle(ye - ys));
    let extra = f32::from(c.wraps - 1);
    Ok(((pe - p0) + extra * full.0 + (p1 - ps), wrap_angle(ye - y0) + extra * full.1 + wrap_angle(y1 - ys)))
}

/// Removes root motion from a blended pose: the root's horizontal translation
/// returns to the rest pose's (its height too unless `keep_height`), and its
/// yaw is taken out of its rotation (pitch and roll stay).
///
/// # Panics
/// When `root` is out of range or the poses differ in length.
pub fn remove_root_motion(pose: &mut Pose, rest: &Pose, root: usize, keep_height: bool) {
    assert_eq!(pose.len(), rest.len(), "pose and rest pose must have the same joints");
    let r = rest.translation(root);
    let t = pose.translation(root);
    pose.set_translation(root, Vec3A::new(r.x, if keep_height { t.y } else { r.y }, r.z));
    let q = pose.rotation(root);
    let rest_yaw = yaw_of(rest.rotation(root));
    pose.set_rotation(root, (Quat::from_rotation_y(rest_yaw - yaw_of(q)) * q).normalize());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn angles_wrap_into_the_half_open_interval() {
        let pi = std::f32::consts::PI;
        assert!((wrap_angle(1.5 * pi) + 0.5 * pi).abs() < 1e-6);
        assert!((wrap_angle(-pi) - pi).abs() < 1e-6);
        assert_eq!(wrap_angle(0.25), 0.25);
    }
}

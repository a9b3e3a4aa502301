//! Where a leg ends when its chain has no foot joint.
//!
//! A glTF joint is a point: a leaf bone's length (Blender's "tail") is not in
//! the file. A leg such as greenman's `hip_L` → `leg_L` or a Blender game
//! rig's `UpperLeg.L` → `LowerLeg.L` therefore needs its end point found:
//!
//! 1. an end marker joint below the lower leg (`LowerLeg.L_end`, `leg_nub`,
//!    `…_tip`), as FBX exporters write them, is the tip exactly;
//! 2. otherwise the tip lies along the lower leg's bone axis (the local axis
//!    along which the upper leg reaches the lower leg: Blender's +Y), as far
//!    as the model's ground plane (height 0 along the rest pose's up, where
//!    glTF characters stand) when that is between a quarter and one and a
//!    half upper-leg lengths away, else one upper-leg length.

use zoa_anim_core::glam::Vec3;
use zoa_anim_core::{Skeleton, Transform};

use super::BoneRoles;
use super::names::classify;
use crate::pose::ModelPose;

/// The end of a leg without a foot joint: a point fixed in the lower leg's
/// frame, which the two-bone solver places instead of an ankle.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LimbTip {
    /// The joint carrying the tip (the lower leg).
    pub joint: u16,
    /// The tip in `joint`'s local space, like a child joint's translation:
    /// model position = joint position + joint rotation × (joint scale × offset).
    pub offset: Vec3,
    /// How the tip was found.
    pub source: TipSource,
}

/// How a [`LimbTip`] was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TipSource {
    /// An end marker joint below the lower leg (`LowerLeg.L_end`).
    EndJoint(u16),
    /// Estimated from the rest pose (bone axis, ground plane, upper-leg length).
    Estimated,
}

impl LimbTip {
    /// The tip of `lower` (a descendant of `upper`) on `skeleton`, `up`
    /// being the rest pose's up direction. `None` when the bones are
    /// degenerate (coincident joints, non-finite rest pose).
    #[must_use]
    pub fn find(skeleton: &Skeleton, upper: u16, lower: u16, up: Vec3) -> Option<LimbTip> {
        let (u, l) = (upper as usize, lower as usize);
        if u >= skeleton.joint_count() || l >= skeleton.joint_count() {
            return None;
        }
        let marker = (0..skeleton.joint_count()).find(|&c| {
            skeleton.parent(c) == Some(l)
                && skeleton.joints()[c]
                    .name
                    .as_deref()
                    .is_some_and(|n| matches!(classify(n).helper, Some("end" | "nub" | "tip")))
        });
        if let Some(c) = marker {
            let offset = skeleton.joints()[c].rest.translation;
            if offset.is_finite() && offset.length() > 1e-6 {
                return Some(LimbTip { joint: lower, offset, source: TipSource::EndJoint(c as u16) });
            }
        }
        let rest: Vec<Transform> = skeleton.rest_pose().collect();
        let mut model = ModelPose::new(skeleton.joint_count());
        model.update(skeleton, &rest);
        let (mu, ml) = (*model.get(u), *model.get(l));
        let bone = ml.position - mu.position;
        let len = bone.length();
        if !(len.is_finite() && len > 1e-6) {
            return None;
        }
        // The rig's bone axis, read off the upper leg, applied to the lower leg.
        let axis = (mu.rotation.inverse() * (bone / len)).try_normalize()?;
        let dir = ml.rotation * axis;
        let mut length = len;
        let down = -dir.dot(up);
        if down > 0.1 {
            let to_ground = ml.position.dot(up) / down;
            if (0.25 * len..=1.5 * len).contains(&to_ground) {
                length = to_ground;
            }
        }
        let offset = axis * length / ml.scale;
        offset.is_finite().then_some(LimbTip { joint: lower, offset, source: TipSource::Estimated })
    }
}

/// The rest pose's up direction as discovery sees it: from the first spine
/// joint (or the hips) to the neck (or head), else glTF's +Y. The flag says
/// whether it was read from the skeleton.
pub(crate) fn rest_up(skeleton: &Skeleton, roles: &BoneRoles) -> (Vec3, bool) {
    let bottom = roles.spine.first().copied().or(roles.hips);
    let top = roles.neck.or(roles.head);
    if let (Some(b), Some(t)) = (bottom, top)
        && b != t
    {
        let rest = crate::pose::rest_model_positions(skeleton);
        if let Some(up) = (rest[t as usize] - rest[b as usize]).try_normalize() {
            return (up, true);
        }
    }
    (Vec3::Y, false)
}

//! Model-space scratch for the solvers and the helpers that write a
//! model-space correction back into a local pose.
//!
//! The solvers think in model space (targets, ground heights and look
//! directions are all given there) but the pose the runtime blends and skins
//! is local. [`ModelPose`] is the caller-owned bridge: sized once per
//! skeleton, refreshed with [`ModelPose::update`], and kept in step along the
//! chains a solver edits.
//!
//! Composition is position / rotation / scale without shear
//! (`p = p_parent + r_parent * (s_parent * t)`, `r = r_parent * r_local`,
//! `s = s_parent * s_local`): exact for uniform scale, the usual game-engine
//! approximation for non-uniform scale.

use zoa_anim_core::glam::{Quat, Vec3};
use zoa_anim_core::{Skeleton, Transform};

/// One joint in model space.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ModelTransform {
    /// Position, model units (metres for glTF).
    pub position: Vec3,
    /// Rotation (unit quaternion).
    pub rotation: Quat,
    /// Accumulated scale.
    pub scale: Vec3,
}

impl ModelTransform {
    /// The model origin.
    pub const IDENTITY: ModelTransform =
        ModelTransform { position: Vec3::ZERO, rotation: Quat::IDENTITY, scale: Vec3::ONE };

    /// `parent ∘ local`.
    #[inline]
    #[must_use]
    pub fn compose(parent: &ModelTransform, local: &Transform) -> ModelTransform {
        ModelTransform {
            position: parent.position + parent.rotation * (parent.scale * local.translation),
            rotation: parent.rotation * local.rotation,
            scale: parent.scale * local.scale,
        }
    }
}

/// Caller-owned model-space transforms of one skeleton, sized once.
///
/// Holds no allocation after [`ModelPose::new`]; [`ModelPose::update`] is a
/// single forward pass in the skeleton's evaluation order.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelPose {
    xf: Vec<ModelTransform>,
}

impl ModelPose {
    /// Scratch for a skeleton of `joint_count` joints (allocates once).
    #[must_use]
    pub fn new(joint_count: usize) -> ModelPose {
        ModelPose { xf: vec![ModelTransform::IDENTITY; joint_count] }
    }

    /// Number of joints it holds.
    #[must_use]
    pub fn len(&self) -> usize {
        self.xf.len()
    }

    /// Whether it holds no joint.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.xf.is_empty()
    }

    /// Model-space transforms in joint order.
    #[must_use]
    pub fn as_slice(&self) -> &[ModelTransform] {
        &self.xf
    }

    /// Joint `j` in model space.
    ///
    /// # Panics
    /// Panics when `j` is out of range.
    #[inline]
    #[must_use]
    pub fn get(&self, j: usize) -> &ModelTransform {
        &self.xf[j]
    }

    /// Recomputes every joint from the local pose (no allocation).
    ///
    /// # Panics
    /// Panics (debug) when `local` or the scratch does not match the skeleton.
    pub fn update(&mut self, skeleton: &Skeleton, local: &[Transform]) {
        debug_assert_eq!(local.len(), skeleton.joint_count());
        debug_assert_eq!(self.xf.len(), skeleton.joint_count());
        for &j in skeleton.eval_order() {
            let j = j as usize;
            let parent = skeleton.parent(j).map_or(ModelTransform::IDENTITY, |p| self.xf[p]);
            self.xf[j] = ModelTransform::compose(&parent, &local[j]);
        }
    }

    /// Recomputes only `joints` from the local pose (no allocation): a
    /// subset of the skeleton in evaluation order that holds every parent of
    /// its joints (what [`crate::RigIk`] reads: its chains and their
    /// ancestors). The other joints keep what they held.
    pub fn update_joints(&mut self, skeleton: &Skeleton, local: &[Transform], joints: &[u16]) {
        for &j in joints {
            let j = usize::from(j);
            let parent = skeleton.parent(j).map_or(ModelTransform::IDENTITY, |p| self.xf[p]);
            self.xf[j] = ModelTransform::compose(&parent, &local[j]);
        }
    }

    /// Moves `joints` by the model-space offset `delta` (what a translation
    /// of a common ancestor does to them), without touching their locals.
    pub(crate) fn shift_joints(&mut self, joints: &[u16], delta: Vec3) {
        for &j in joints {
            self.xf[usize::from(j)].position += delta;
        }
    }

    /// Recomputes joint `j` and those of its ancestors `current` does not
    /// report current, root-most first (no allocation; each missing ancestor
    /// is found by walking up from `j`, so the cost grows with the square of
    /// how many are missing: for the odd joint outside a rig's set).
    pub fn refresh_outside(
        &mut self,
        skeleton: &Skeleton,
        local: &[Transform],
        j: usize,
        current: impl Fn(usize) -> bool,
    ) {
        // How many joints, from `j` up, are not current.
        let mut missing = 0usize;
        let mut at = Some(j);
        while let Some(k) = at.filter(|&k| !current(k)) {
            missing += 1;
            at = skeleton.parent(k);
        }
        for up in (0..missing).rev() {
            let mut k = j;
            for _ in 0..up {
                k = skeleton.parent(k).unwrap_or(k);
            }
            let parent = skeleton.parent(k).map_or(ModelTransform::IDENTITY, |p| self.xf[p]);
            self.xf[k] = ModelTransform::compose(&parent, &local[k]);
        }
    }

    /// Recomputes the joints on the path from `top` down to `bottom`
    /// (inclusive), assuming `top`'s parent is up to date. `bottom` must be
    /// `top` or one of its descendants.
    pub fn refresh_path(&mut self, skeleton: &Skeleton, local: &[Transform], top: usize, bottom: usize) {
        if bottom != top
            && let Some(p) = skeleton.parent(bottom)
        {
            self.refresh_path(skeleton, local, top, p);
        }
        let parent = skeleton.parent(bottom).map_or(ModelTransform::IDENTITY, |p| self.xf[p]);
        self.xf[bottom] = ModelTransform::compose(&parent, &local[bottom]);
    }

    /// Sets joint `j`'s model rotation to `rotation` by rewriting its local
    /// rotation; updates `j` itself (descendants become stale).
    pub(crate) fn set_model_rotation(
        &mut self,
        skeleton: &Skeleton,
        local: &mut [Transform],
        j: usize,
        rotation: Quat,
    ) {
        let parent_rot = skeleton.parent(j).map_or(Quat::IDENTITY, |p| self.xf[p].rotation);
        self.set_local_rotation(skeleton, local, j, (parent_rot.inverse() * rotation).normalize());
    }

    /// Sets joint `j`'s local rotation to `rotation` (unit) and its model
    /// rotation to match; updates `j` itself (descendants become stale).
    pub(crate) fn set_local_rotation(
        &mut self,
        skeleton: &Skeleton,
        local: &mut [Transform],
        j: usize,
        rotation: Quat,
    ) {
        let parent_rot = skeleton.parent(j).map_or(Quat::IDENTITY, |p| self.xf[p].rotation);
        local[j].rotation = rotation;
        self.xf[j].rotation = parent_rot * rotation;
    }

    /// Rotates joint `j` by the model-space rotation `delta` about its own
    /// position; updates `j` itself (descendants become stale).
    pub(crate) fn rotate_joint(&mut self, skeleton: &Skeleton, local: &mut [Transform], j: usize, delta: Quat) {
        let target = delta * self.xf[j].rotation;
        self.set_model_rotation(skeleton, local, j, target);
    }

    /// Moves joint `j` by the model-space offset `delta`; updates `j` itself.
    pub(crate) fn translate_joint(&mut self, skeleton: &Skeleton, local: &mut [Transform], j: usize, delta: Vec3) {
        let parent = skeleton.parent(j).map_or(ModelTransform::IDENTITY, |p| self.xf[p]);
        let inv_scale = parent.scale.recip();
        if !inv_scale.is_finite() {
            return;
        }
        local[j].translation += inv_scale * (parent.rotation.inverse() * delta);
        self.xf[j] = ModelTransform::compose(&parent, &local[j]);
    }
}

/// Rest-pose model-space positions (set-up helper; allocates).
#[must_use]
pub fn rest_model_positions(skeleton: &Skeleton) -> Vec<Vec3> {
    let rest: Vec<Transform> = skeleton.rest_pose().collect();
    let mut model = ModelPose::new(skeleton.joint_count());
    model.update(skeleton, &rest);
    model.as_slice().iter().map(|m| m.position).collect()
}

//! The rig policy's IK as a stage of a character or a clip player: applied
//! to the blended local pose, before local-to-model, by whichever thread
//! evaluates it (serial or parallel crowd pass alike).
//!
//! The compiled [`RigIk`] is immutable and shared (one per skeleton × rig
//! policy, behind an `Arc`); everything that changes per character lives in
//! the [`IkStage`]: the IK context (look-at offset, smoothed hips drop) and
//! the per-frame [`IkInputs`] the game writes between frames. What a frame
//! only rewrites — the pose in the `[Transform]` layout the solvers take and
//! the model-space pose — is an [`IkScratch`] inside the
//! [`PoseScratch`](crate::pose::PoseScratch) a crowd run shares (it stays in
//! cache instead of streaming every character's own copy through memory, and
//! a character does not carry it: ~5 KB on the humanoid). All of it is sized
//! before the first frame, so a frame with IK allocates nothing, and since
//! no state is shared between characters the parallel crowd pass stays
//! bit-identical to the serial one.
//!
//! Behaviours whose bones the skeleton lacks were already dropped when the
//! [`RigIk`] was compiled (a door has no feet): the stage then simply does
//! less, silently. `zoa-anim validate` reports such policies as information.

use std::sync::Arc;

use glam::Mat4;
use zoa_anim_core::Transform;
use zoa_anim_ik::{IkContext, IkInputs, IkReport, ModelPose, RigIk};

use crate::error::RuntimeError;
use crate::pose::{Pose, RuntimeSkeleton};

/// One character's IK: the shared compiled policy plus its own state,
/// scratch and inputs, all sized once.
#[derive(Debug, Clone)]
pub struct IkStage {
    rig: Arc<RigIk>,
    /// The context without its model-space scratch (an [`IkScratch`] lends
    /// one during [`IkStage::apply`]).
    context: IkContext,
    joints: usize,
    /// Seconds advanced since the last IK application (consumed by it).
    pending_dt: f32,
    inputs: IkInputs,
}

impl IkStage {
    /// A stage running `rig` on characters of `skeleton`. Errors when `rig`
    /// was compiled for a skeleton with another joint count.
    pub fn new(rig: Arc<RigIk>, skeleton: &RuntimeSkeleton) -> Result<IkStage, RuntimeError> {
        let mut context = rig.new_context();
        let n = skeleton.joint_count();
        if context.model.len() != n {
            return Err(RuntimeError::InvalidJob {
                job: "IK stage",
                reasons: vec![format!("the rig IK was compiled for {} joints, skeleton has {n}", context.model.len())],
            });
        }
        context.model = ModelPose::new(0);
        Ok(IkStage { rig, context, joints: n, pending_dt: 0.0, inputs: IkInputs::default() })
    }

    /// The compiled policy.
    #[must_use]
    pub fn rig(&self) -> &Arc<RigIk> {
        &self.rig
    }
    /// The per-frame inputs.
    #[must_use]
    pub fn inputs(&self) -> &IkInputs {
        &self.inputs
    }
    /// The per-frame inputs, to set between frames.
    pub fn inputs_mut(&mut self) -> &mut IkInputs {
        &mut self.inputs
    }
    /// Frame-to-frame IK state (look-at offset, smoothed hips drop; its
    /// model-space scratch is empty between applications).
    #[must_use]
    pub fn context(&self) -> &IkContext {
        &self.context
    }

    /// What the last application aimed at, measured on `model` (the
    /// model-space matrices of the pose it returned): [`RigIk::report`].
    #[must_use]
    pub fn report(&self, model: &[Mat4]) -> IkReport {
        self.rig.report(&self.context, &self.inputs, model)
    }

    /// Joints the stage was sized for.
    #[must_use]
    pub fn joint_count(&self) -> usize {
        self.joints
    }

    /// Adds `dt` seconds to the time the next application smooths over.
    /// Negative steps (scrubbing back) count as no time passing.
    pub(crate) fn advance(&mut self, dt: f32) {
        if dt > 0.0 {
            self.pending_dt += dt;
        }
    }

    /// Applies the policy to `pose` in place. Does not allocate (except for
    /// the error, which construction rules out).
    pub(crate) fn apply(
        &mut self,
        skeleton: &RuntimeSkeleton,
        pose: &mut Pose,
        scratch: &mut IkScratch,
    ) -> Result<(), RuntimeError> {
        if self.joints != pose.len() || !scratch.fits(self.joints) {
            return Err(RuntimeError::InvalidJob {
                job: "IK stage",
                reasons: vec![format!(
                    "stage holds {} joints, pose has {}, scratch {}",
                    self.joints,
                    pose.len(),
                    scratch.local.len()
                )],
            });
        }
        // Only the joints the solvers read or write cross between layouts
        // (about half the humanoid's); the rest of the scratch holds
        // whatever the last character left there, which nothing reads.
        let joints = self.rig.local_joints(&self.inputs);
        match joints {
            Some(joints) => pose.write_joints(joints, &mut scratch.local),
            None => pose.write_transforms(&mut scratch.local),
        }
        std::mem::swap(&mut self.context.model, &mut scratch.model);
        let solved =
            self.rig.apply(skeleton.skeleton(), &mut scratch.local, &mut self.context, &self.inputs, self.pending_dt);
        std::mem::swap(&mut self.context.model, &mut scratch.model);
        solved.map_err(|e| RuntimeError::InvalidJob { job: "IK stage", reasons: vec![e.to_string()] })?;
        self.pending_dt = 0.0;
        match joints {
            Some(joints) => pose.read_joints(joints, &scratch.local),
            None => pose.read_transforms(&scratch.local),
        }
        Ok(())
    }
}

/// What one IK application rewrites and nothing keeps: the pose in the
/// solvers' `[Transform]` layout and its model-space transforms. Lives in a
/// [`PoseScratch`](crate::pose::PoseScratch), shared by a crowd run.
#[derive(Debug, Clone)]
pub(crate) struct IkScratch {
    local: Vec<Transform>,
    model: ModelPose,
}

impl IkScratch {
    /// Buffers for skeletons of `joints` joints.
    #[must_use]
    pub(crate) fn new(joints: usize) -> IkScratch {
        IkScratch { local: vec![Transform::IDENTITY; joints], model: ModelPose::new(joints) }
    }
    /// Whether it serves skeletons of `joints` joints.
    #[must_use]
    pub fn fits(&self, joints: usize) -> bool {
        self.local.len() == joints && self.model.len() == joints
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use zoa_anim_core::Skeleton;
    use zoa_anim_core::glam::{Mat4, Vec3};

    fn chain() -> RuntimeSkeleton {
        let joint = |name: &str, parent: Option<u16>| zoa_anim_core::Joint {
            name: Some(name.into()),
            node: parent.map_or(0, |p| p as u32 + 1),
            parent,
            rest: Transform { translation: Vec3::Y, ..Transform::IDENTITY },
            inverse_bind: Mat4::IDENTITY,
        };
        RuntimeSkeleton::new(Skeleton::new("chain", vec![joint("a", None), joint("b", Some(0))]).unwrap())
    }

    #[test]
    fn frame_time_accumulates_forward_steps_and_is_consumed_by_the_application() {
        let s = chain();
        let (rig, _, problems) = RigIk::for_policy(s.skeleton(), &zoa_anim_core::RigPolicy::default());
        assert!(problems.is_empty());
        let mut stage = IkStage::new(Arc::new(rig), &s).unwrap();
        stage.advance(0.25);
        stage.advance(-1.0); // scrubbing back: no time passes for smoothing
        stage.advance(0.5);
        assert_eq!(stage.pending_dt, 0.75);
        let mut pose = s.rest().clone();
        let mut scratch = IkScratch::new(2);
        stage.apply(&s, &mut pose, &mut scratch).unwrap();
        assert_eq!(stage.pending_dt, 0.0);
        // Nothing to solve on a two-joint chain: the pose comes back as it went in.
        assert_eq!(&pose, s.rest());
        // A pose of another size is an error, not a panic.
        let mut wrong = Pose::identity(3);
        assert!(stage.apply(&s, &mut wrong, &mut scratch).is_err());
        assert!(stage.apply(&s, &mut pose, &mut IkScratch::new(3)).is_err(), "a scratch of another size");
        assert_eq!(stage.context().model.len(), 0, "the model-space scratch went back");
    }
}

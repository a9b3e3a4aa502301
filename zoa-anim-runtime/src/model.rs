//! Local-to-model transforms and skinning matrices.

use glam::Mat4;

use crate::error::RuntimeError;
use crate::pose::{NO_PARENT, Pose, RuntimeSkeleton};

/// Converts a local pose to model-space matrices, parents first.
///
/// `model[j] = model[parent(j)] · T·R·S(local[j])` (glTF's node order).
/// `run` does not allocate.
#[derive(Debug)]
pub struct LocalToModelJob<'a> {
    /// The skeleton the pose belongs to.
    pub skeleton: &'a RuntimeSkeleton,
    /// Local transforms.
    pub input: &'a Pose,
    /// Optional matrix applied above the roots (e.g. the skin root's parent
    /// node transform); identity when `None`.
    pub root: Option<Mat4>,
    /// Model-space matrices in joint order, one per joint.
    pub output: &'a mut [Mat4],
}

impl LocalToModelJob<'_> {
    /// Every reason this job cannot run.
    pub fn validate(&self) -> Result<(), RuntimeError> {
        let n = self.skeleton.joint_count();
        let mut reasons = Vec::new();
        if self.input.len() != n {
            reasons.push(format!("input pose has {} joints, skeleton has {n}", self.input.len()));
        }
        if self.output.len() != n {
            reasons.push(format!("output holds {} matrices, skeleton has {n}", self.output.len()));
        }
        RuntimeError::check("local-to-model job", reasons)
    }

    /// Validates, then converts.
    pub fn run(self) -> Result<(), RuntimeError> {
        self.validate()?;
        let root = self.root.unwrap_or(Mat4::IDENTITY);
        let (t, r, s) = (self.input.translations(), self.input.rotations(), self.input.scales());
        for &(j, p) in self.skeleton.hierarchy() {
            let j = j as usize;
            let local = Mat4::from_scale_rotation_translation(s[j].into(), r[j], t[j].into());
            let parent = if p == NO_PARENT { root } else { self.output[p as usize] };
            self.output[j] = parent * local;
        }
        Ok(())
    }
}

/// Skinning matrices: `model[j] · inverse_bind[j]`. Does not allocate.
///
/// # Errors
/// When the three slices differ in length.
pub fn skinning_matrices(model: &[Mat4], inverse_binds: &[Mat4], output: &mut [Mat4]) -> Result<(), RuntimeError> {
    if model.len() != inverse_binds.len() || output.len() != model.len() {
        return Err(RuntimeError::InvalidJob {
            job: "skinning job",
            reasons: vec![format!(
                "{} model matrices, {} inverse binds, {} outputs (must be equal)",
                model.len(),
                inverse_binds.len(),
                output.len()
            )],
        });
    }
    for ((o, m), ib) in output.iter_mut().zip(model).zip(inverse_binds) {
        *o = *m * *ib;
    }
    Ok(())
}

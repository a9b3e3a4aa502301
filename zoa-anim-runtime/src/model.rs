//! Local-to-model transforms and skinning matrices.

use glam::Mat4;

use crate::error::RuntimeError;
use crate::pose::{NO_PARENT, Pose, RuntimeSkeleton};
use crate::simd::{BLOCK, Lanes, Row, dispatch, load, rows, vectors};

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
        // Local matrices of every joint, several joints per instruction; then
        // parents first, each joint's local matrix (not yet visited) becomes
        // its model matrix (its parent's already is).
        local_matrices(self.input, self.output);
        for &(j, p) in self.skeleton.hierarchy() {
            let j = j as usize;
            let parent = if p == NO_PARENT { root } else { self.output[p as usize] };
            self.output[j] = parent * self.output[j];
        }
        Ok(())
    }
}

dispatch!(fn local_matrices / local_matrices_at => local_matrices_lanes(pose: &Pose, output: &mut [Mat4]));

/// `output[j] = T·R·S(pose[j])` for every joint, by the formula of glam's
/// `Mat4::from_scale_rotation_translation` (same operations, same bits),
/// `V::LANES` joints at a time.
#[inline(always)]
fn local_matrices_lanes<V: Lanes>(pose: &Pose, output: &mut [Mat4]) {
    let n = pose.len().min(output.len());
    let (pt, pr, ps) = pose.rows();
    let one = V::splat(1.0);
    for (b, at) in vectors::<V>(n) {
        let [tx, ty, tz] = load::<V, 3>(rows(pt, 3, b), at);
        let [x, y, z, w] = load::<V, 4>(rows(pr, 4, b), at);
        let [sx, sy, sz] = load::<V, 3>(rows(ps, 3, b), at);
        let (x2, y2, z2) = (x + x, y + y, z + z);
        let (xx, xy, xz) = (x * x2, x * y2, x * z2);
        let (yy, yz, zz) = (y * y2, y * z2, z * z2);
        let (wx, wy, wz) = (w * x2, w * y2, w * z2);
        let columns: [V; 12] = [
            (one - (yy + zz)) * sx,
            (xy + wz) * sx,
            (xz - wy) * sx,
            (xy - wz) * sy,
            (one - (xx + zz)) * sy,
            (yz + wx) * sy,
            (xz + wy) * sz,
            (yz - wx) * sz,
            (one - (xx + yy)) * sz,
            tx,
            ty,
            tz,
        ];
        let mut lanes = [Row::splat(0.0); 12];
        for (v, row) in columns.into_iter().zip(&mut lanes) {
            v.store(row, at);
        }
        let j0 = b * BLOCK + at;
        for (l, m) in output[j0..n.min(j0 + V::LANES)].iter_mut().enumerate() {
            let c = |k: usize| lanes[k].0[at + l];
            *m = Mat4::from_cols_array(&[
                c(0),
                c(1),
                c(2),
                0.0,
                c(3),
                c(4),
                c(5),
                0.0,
                c(6),
                c(7),
                c(8),
                0.0,
                c(9),
                c(10),
                c(11),
                1.0,
            ]);
        }
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

#[cfg(test)]
mod tests {
    use glam::{Quat, Vec3};
    use zoa_anim_core::Transform;

    use super::*;
    use crate::simd::tests::each_path;

    #[test]
    fn local_matrices_equal_glam_bit_for_bit_on_every_path() {
        // 11 joints: one whole block and a partial one (lanes past the end unused).
        let pose = Pose::from_transforms((0..11).map(|j| {
            let f = j as f32;
            Transform {
                translation: Vec3::new(f, -2.0 * f, 0.5),
                rotation: Quat::from_euler(glam::EulerRot::XYZ, 0.3 * f, -0.2 * f, 1.0 + f).normalize(),
                scale: Vec3::new(1.0 + 0.1 * f, 0.5, 2.0 - 0.05 * f),
            }
        }));
        each_path(|path, level| {
            let mut out = vec![Mat4::ZERO; 11];
            local_matrices_at(level, &pose, &mut out);
            for (j, m) in out.iter().enumerate() {
                let t = pose.get(j);
                let want = Mat4::from_scale_rotation_translation(t.scale, t.rotation, t.translation);
                assert_eq!(m.to_cols_array(), want.to_cols_array(), "{path}: joint {j}");
            }
        });
    }
}

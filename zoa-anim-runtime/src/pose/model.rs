//! Local-to-model transforms and skinning matrices.

use glam::Mat4;

use crate::error::RuntimeError;
use crate::pose::simd::{BLOCK, Lanes, Level, Row, dispatch, level, load, rows, vectors};
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
    #[inline]
    pub fn run(self) -> Result<(), RuntimeError> {
        self.validate()?;
        // Local matrices of every joint, several joints per instruction; then
        // parents first, each joint's local matrix (not yet visited) becomes
        // its model matrix (its parent's already is).
        local_matrices(self.input, self.output);
        hierarchy_at(level(), self.skeleton.hierarchy(), self.root, self.output);
        Ok(())
    }
}

/// `output[j] = output[parent] · output[j]` in `order` (parents first), with
/// `root` (identity when `None`) above the roots.
///
/// On the eight-lane path, when `root` is affine (or absent), the product is
/// the affine one (three columns and a translation, fused multiply-adds,
/// bottom row exactly `0 0 0 1`; roots without `root` keep their local
/// matrix): every matrix here is affine, since local matrices are T·R·S.
/// Elsewhere it is `glam`'s full 4×4 product. The two differ by an ulp or so
/// (and, where a product is zero, possibly by the sign of that zero).
fn hierarchy_at(level: Level, order: &[(u16, u16)], root: Option<Mat4>, output: &mut [Mat4]) {
    #[cfg(target_arch = "x86_64")]
    if level == Level::X8 && root.is_none_or(|r| r.row(3) == glam::Vec4::W) {
        // SAFETY: `Level::X8` is only chosen after detecting AVX2 and FMA.
        unsafe { x86::affine_hierarchy(order, root.as_ref(), output) };
        return;
    }
    let _ = level;
    let root = root.unwrap_or(Mat4::IDENTITY);
    for &(j, p) in order {
        let j = j as usize;
        let parent = if p == NO_PARENT { root } else { output[p as usize] };
        output[j] = parent * output[j];
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use std::arch::x86_64::{_mm_blend_ps, _mm_broadcast_ss, _mm_fmadd_ps, _mm_loadu_ps, _mm_mul_ps, _mm_storeu_ps};

    use glam::Mat4;

    use crate::pose::NO_PARENT;

    /// [`super::hierarchy_at`]'s affine product with FMA.
    ///
    /// # Safety
    /// The CPU must have AVX2 and FMA; `root`, when given, must be affine.
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn affine_hierarchy(order: &[(u16, u16)], root: Option<&Mat4>, output: &mut [Mat4]) {
        // The joint just computed, kept in registers: along a chain the
        // parent is the previous joint, and reading it back from `output`
        // would wait on the store of the previous product.
        // (No joint index is `u32::MAX`, so the first joint never matches.)
        let mut last = (u32::MAX, Mat4::IDENTITY);
        for &(j, p) in order {
            let parent = if u32::from(p) == last.0 {
                last.1
            } else if p != NO_PARENT {
                output[p as usize]
            } else if let Some(root) = root {
                *root
            } else {
                continue;
            };
            let child = &mut output[j as usize];
            *child = affine_product(&parent, child);
            last = (u32::from(j), *child);
        }
    }

    /// `a · b` for affine `a` and `b`: each column of `b` as a combination
    /// of `a`'s first three columns (plus `a`'s translation for the last),
    /// the bottom row set to `0 0 0 1` exactly.
    #[inline]
    #[target_feature(enable = "avx2,fma")]
    fn affine_product(a: &Mat4, b: &Mat4) -> Mat4 {
        let a = a.as_ref().as_ptr();
        let b = b.as_ref().as_ptr();
        // SAFETY: `a` and `b` point at sixteen floats each (a `Mat4`'s
        // columns, in order); every offset below is under 16.
        unsafe {
            let (a0, a1, a2, a3) =
                (_mm_loadu_ps(a), _mm_loadu_ps(a.add(4)), _mm_loadu_ps(a.add(8)), _mm_loadu_ps(a.add(12)));
            // No closures: they would not inherit this function's features.
            macro_rules! column {
                ($k:literal, $x:ident => $first:expr) => {{
                    let c = b.add(4 * $k);
                    let $x = _mm_broadcast_ss(&*c);
                    let r = $first;
                    let r = _mm_fmadd_ps(a1, _mm_broadcast_ss(&*c.add(1)), r);
                    _mm_fmadd_ps(a2, _mm_broadcast_ss(&*c.add(2)), r)
                }};
            }
            let mut out = Mat4::ZERO;
            let o: *mut f32 = out.as_mut().as_mut_ptr();
            let (zero, one) = (_mm_broadcast_ss(&0.0), _mm_broadcast_ss(&1.0));
            _mm_storeu_ps(o, _mm_blend_ps::<0b1000>(column!(0, x => _mm_mul_ps(a0, x)), zero));
            _mm_storeu_ps(o.add(4), _mm_blend_ps::<0b1000>(column!(1, x => _mm_mul_ps(a0, x)), zero));
            _mm_storeu_ps(o.add(8), _mm_blend_ps::<0b1000>(column!(2, x => _mm_mul_ps(a0, x)), zero));
            _mm_storeu_ps(o.add(12), _mm_blend_ps::<0b1000>(column!(3, x => _mm_fmadd_ps(a0, x, a3)), one));
            out
        }
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
    use glam::{Quat, Vec3, Vec4};
    use zoa_anim_core::Transform;

    use super::*;
    use crate::pose::simd::tests::each_path;

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

    #[test]
    fn every_path_composes_the_hierarchy_like_glam_within_an_ulp_or_two() {
        // A chain of five joints under two roots, scaled, rotated and moved;
        // with and without an affine root above them.
        let parents = [None, Some(0), Some(1), Some(2), None, Some(4), Some(3)];
        let order: Vec<(u16, u16)> =
            parents.iter().enumerate().map(|(j, p)| (j as u16, p.map_or(NO_PARENT, |p| p as u16))).collect();
        let locals: Vec<Mat4> = (0..parents.len())
            .map(|j| {
                let f = j as f32;
                Mat4::from_scale_rotation_translation(
                    Vec3::new(1.0 + 0.1 * f, 0.9, 1.2 - 0.05 * f),
                    Quat::from_euler(glam::EulerRot::XYZ, 0.4 * f, -0.3 * f, 0.7 + f).normalize(),
                    Vec3::new(0.3 * f, 1.0 - f, -0.25),
                )
            })
            .collect();
        let affine_root = Mat4::from_scale_rotation_translation(
            Vec3::splat(0.01),
            Quat::from_rotation_x(-1.2),
            Vec3::new(5.0, 0.0, -3.0),
        );
        for root in [None, Some(affine_root)] {
            let mut want = locals.clone();
            for &(j, p) in &order {
                let parent = if p == NO_PARENT { root.unwrap_or(Mat4::IDENTITY) } else { want[p as usize] };
                want[j as usize] = parent * want[j as usize];
            }
            each_path(|path, level| {
                let mut got = locals.clone();
                hierarchy_at(level, &order, root, &mut got);
                for (j, (g, w)) in got.iter().zip(&want).enumerate() {
                    assert_eq!(g.row(3), Vec4::W, "{path}: joint {j} bottom row");
                    for (a, b) in g.to_cols_array().iter().zip(w.to_cols_array()) {
                        assert!(
                            (a - b).abs() <= 4.0 * f32::EPSILON * b.abs().max(1.0),
                            "{path}: joint {j}: {a} vs {b}"
                        );
                    }
                }
            });
        }
    }
}

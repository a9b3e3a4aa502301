//! Poses: local joint transforms packed in structure-of-arrays groups of four
//! joints, and the runtime view of a skeleton.

use glam::{Mat4, Quat, Vec3, Vec3A};
use zoa_anim_core::{MorphNode, Skeleton, Transform};

use crate::pose::MorphSet;

use crate::pose::simd::{BLOCK, Row, blocks_for};

/// Local transforms of every joint of one skeleton.
///
/// The layout is hidden (read and write joints with [`Pose::get`],
/// [`Pose::set`] and the per-property accessors): joints are packed
/// ozz-style in blocks of eight, one row per component,
///
/// ```text
///   translations: [x0 … x7] [y0 … y7] [z0 … z7] [x8 … x15] …
///   rotations:    [x0 … x7] [y0 … y7] [z0 … z7] [w0 … w7] [x8 …] …
///   scales:       like translations
/// ```
///
/// in one allocation (translations, then rotations, then scales), so a
/// pose is one contiguous run of memory.
///
/// so the blending, sampling and local-to-model kernels work on eight joints
/// per instruction (AVX2) or four (SSE2, NEON) without shuffling. Lanes past
/// the last joint hold the identity transform. The joint count is fixed at
/// construction; jobs check it and never resize.
#[derive(Clone)]
pub struct Pose {
    len: usize,
    /// Blocks of eight joints.
    blocks: usize,
    /// Three rows per block of translations, four of rotations, three of scales.
    rows: Vec<Row>,
}

/// Row `c` of joint `j`'s block in an array of `k` rows per block, and its lane.
#[inline(always)]
fn at(j: usize, k: usize, c: usize) -> (usize, usize) {
    (j / BLOCK * k + c, j % BLOCK)
}

impl Pose {
    /// `joints` identity transforms.
    #[must_use]
    pub fn identity(joints: usize) -> Pose {
        let blocks = blocks_for(joints);
        let rows = |values: &'static [f32]| (0..blocks).flat_map(|_| values.iter().map(|&v| Row::splat(v)));
        Pose {
            len: joints,
            blocks,
            rows: rows(&[0.0; 3]).chain(rows(&[0.0, 0.0, 0.0, 1.0])).chain(rows(&[1.0; 3])).collect(),
        }
    }

    /// A pose holding the given transforms.
    pub fn from_transforms(transforms: impl IntoIterator<Item = Transform>) -> Pose {
        let transforms: Vec<Transform> = transforms.into_iter().collect();
        let mut pose = Pose::identity(transforms.len());
        for (i, t) in transforms.into_iter().enumerate() {
            pose.set(i, t);
        }
        pose
    }

    /// The skeleton's rest pose (glTF node TRS).
    #[must_use]
    pub fn rest(skeleton: &Skeleton) -> Pose {
        Pose::from_transforms(skeleton.rest_pose())
    }

    /// Number of joints.
    #[must_use]
    pub fn len(&self) -> usize {
        self.len
    }
    /// Whether the pose has no joints.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Joint `i` as a [`Transform`].
    ///
    /// # Panics
    /// When `i` is out of range.
    #[must_use]
    pub fn get(&self, i: usize) -> Transform {
        Transform { translation: self.translation(i).into(), rotation: self.rotation(i), scale: self.scale(i).into() }
    }

    /// Sets joint `i`.
    ///
    /// # Panics
    /// When `i` is out of range.
    pub fn set(&mut self, i: usize, t: Transform) {
        self.set_translation(i, t.translation.into());
        self.set_rotation(i, t.rotation);
        self.set_scale(i, t.scale.into());
    }

    /// All transforms in joint order: what an engine copies out every frame
    /// (its joint entities' transforms), so it reads the rows straight, with
    /// no per-joint range check or call.
    #[must_use]
    pub fn transforms(&self) -> impl ExactSizeIterator<Item = Transform> + '_ {
        let (t, r, s) = self.rows();
        (0..self.len).map(move |i| {
            let (b, l) = (i / BLOCK, i % BLOCK);
            let (t, r, s) = (&t[3 * b..3 * b + 3], &r[4 * b..4 * b + 4], &s[3 * b..3 * b + 3]);
            Transform {
                translation: Vec3::new(t[0].0[l], t[1].0[l], t[2].0[l]),
                rotation: Quat::from_xyzw(r[0].0[l], r[1].0[l], r[2].0[l], r[3].0[l]),
                scale: Vec3::new(s[0].0[l], s[1].0[l], s[2].0[l]),
            }
        })
    }

    /// Writes every joint into `out` (one [`Transform`] per joint, in joint
    /// order): the bulk [`Pose::get`], through [`Pose::transforms`].
    ///
    /// # Panics
    /// When `out` does not have one transform per joint.
    pub fn write_transforms(&self, out: &mut [Transform]) {
        assert_eq!(out.len(), self.len, "one transform per joint");
        for (x, t) in out.iter_mut().zip(self.transforms()) {
            *x = t;
        }
    }

    /// Sets every joint from `src` (one [`Transform`] per joint): the bulk
    /// [`Pose::set`], block by block.
    ///
    /// # Panics
    /// When `src` does not have one transform per joint.
    pub fn read_transforms(&mut self, src: &[Transform]) {
        assert_eq!(src.len(), self.len, "one transform per joint");
        let (t, r, s) = self.rows_mut();
        for (b, chunk) in src.chunks(BLOCK).enumerate() {
            let (t, r, s) = (&mut t[3 * b..3 * b + 3], &mut r[4 * b..4 * b + 4], &mut s[3 * b..3 * b + 3]);
            for (l, x) in chunk.iter().enumerate() {
                for c in 0..3 {
                    t[c].0[l] = x.translation[c];
                    s[c].0[l] = x.scale[c];
                }
                let q = x.rotation.to_array();
                for c in 0..4 {
                    r[c].0[l] = q[c];
                }
            }
        }
    }

    /// Writes only `joints` into `out` (indexed by joint): the
    /// [`Pose::write_transforms`] of a stage that reads a few joints.
    ///
    /// # Panics
    /// When `out` does not have one transform per joint, or a joint is out of range.
    pub fn write_joints(&self, joints: &[u16], out: &mut [Transform]) {
        assert_eq!(out.len(), self.len, "one transform per joint");
        let (t, r, s) = self.rows();
        for &j in joints {
            let j = usize::from(j);
            let (b, l) = (j / BLOCK, j % BLOCK);
            let (t, r, s) = (&t[3 * b..3 * b + 3], &r[4 * b..4 * b + 4], &s[3 * b..3 * b + 3]);
            out[j] = Transform {
                translation: Vec3::new(t[0].0[l], t[1].0[l], t[2].0[l]),
                rotation: Quat::from_xyzw(r[0].0[l], r[1].0[l], r[2].0[l], r[3].0[l]),
                scale: Vec3::new(s[0].0[l], s[1].0[l], s[2].0[l]),
            };
        }
    }

    /// Sets only `joints` from `src` (indexed by joint): the
    /// [`Pose::read_transforms`] of a stage that writes a few joints.
    ///
    /// # Panics
    /// When `src` does not have one transform per joint, or a joint is out of range.
    pub fn read_joints(&mut self, joints: &[u16], src: &[Transform]) {
        assert_eq!(src.len(), self.len, "one transform per joint");
        let (t, r, s) = self.rows_mut();
        for &j in joints {
            let j = usize::from(j);
            let (b, l) = (j / BLOCK, j % BLOCK);
            let (t, r, s) = (&mut t[3 * b..3 * b + 3], &mut r[4 * b..4 * b + 4], &mut s[3 * b..3 * b + 3]);
            let x = &src[j];
            let q = x.rotation.to_array();
            for c in 0..3 {
                t[c].0[l] = x.translation[c];
                s[c].0[l] = x.scale[c];
            }
            for c in 0..4 {
                r[c].0[l] = q[c];
            }
        }
    }

    /// Copies `other` into `self` without allocating.
    ///
    /// # Panics
    /// When the joint counts differ.
    pub fn copy_from(&mut self, other: &Pose) {
        assert_eq!(self.len, other.len, "poses of different joint counts");
        self.rows.copy_from_slice(&other.rows);
    }

    /// Translation of joint `i`.
    ///
    /// # Panics
    /// When `i` is out of range.
    #[inline]
    #[must_use]
    pub fn translation(&self, i: usize) -> Vec3A {
        Vec3A::from_array(self.vec3(self.rows().0, i))
    }
    /// Rotation of joint `i` (a unit quaternion `x, y, z, w`).
    ///
    /// # Panics
    /// When `i` is out of range.
    #[inline]
    #[must_use]
    pub fn rotation(&self, i: usize) -> Quat {
        self.check(i);
        Quat::from_array(std::array::from_fn(|c| {
            let (row, lane) = at(i, 4, c);
            self.rows().1[row].0[lane]
        }))
    }
    /// Scale of joint `i`.
    ///
    /// # Panics
    /// When `i` is out of range.
    #[inline]
    #[must_use]
    pub fn scale(&self, i: usize) -> Vec3A {
        Vec3A::from_array(self.vec3(self.rows().2, i))
    }
    /// Sets the translation of joint `i`.
    ///
    /// # Panics
    /// When `i` is out of range.
    #[inline]
    pub fn set_translation(&mut self, i: usize, v: Vec3A) {
        self.check(i);
        set_vec3(self.rows_mut().0, i, v.into());
    }
    /// Sets the rotation of joint `i`.
    ///
    /// # Panics
    /// When `i` is out of range.
    #[inline]
    pub fn set_rotation(&mut self, i: usize, q: Quat) {
        self.check(i);
        for (c, v) in q.to_array().into_iter().enumerate() {
            let (row, lane) = at(i, 4, c);
            self.rows_mut().1[row].0[lane] = v;
        }
    }
    /// Sets the scale of joint `i`.
    ///
    /// # Panics
    /// When `i` is out of range.
    #[inline]
    pub fn set_scale(&mut self, i: usize, v: Vec3A) {
        self.check(i);
        set_vec3(self.rows_mut().2, i, v.into());
    }

    #[inline(always)]
    fn check(&self, i: usize) {
        assert!(i < self.len, "joint {i} of a pose of {} joints", self.len);
    }
    #[inline(always)]
    fn vec3(&self, rows: &[Row], i: usize) -> [f32; 3] {
        self.check(i);
        std::array::from_fn(|c| {
            let (row, lane) = at(i, 3, c);
            rows[row].0[lane]
        })
    }

    /// Starts loading the pose's memory into cache (see [`crate::pose::simd::prefetch`]).
    #[inline]
    pub(crate) fn prefetch(&self, max_bytes: usize) {
        crate::pose::simd::prefetch(&self.rows, max_bytes);
    }

    /// The SoA rows (translations, rotations, scales), for the kernels.
    #[inline(always)]
    pub(crate) fn rows(&self) -> (&[Row], &[Row], &[Row]) {
        let (t, rest) = self.rows.split_at(3 * self.blocks);
        let (r, s) = rest.split_at(4 * self.blocks);
        (t, r, s)
    }
    /// The SoA rows, mutable.
    #[inline(always)]
    pub(crate) fn rows_mut(&mut self) -> (&mut [Row], &mut [Row], &mut [Row]) {
        let (t, rest) = self.rows.split_at_mut(3 * self.blocks);
        let (r, s) = rest.split_at_mut(4 * self.blocks);
        (t, r, s)
    }
}

fn set_vec3(rows: &mut [Row], i: usize, v: Vec3) {
    for (c, x) in v.to_array().into_iter().enumerate() {
        let (row, lane) = at(i, 3, c);
        rows[row].0[lane] = x;
    }
}

impl PartialEq for Pose {
    /// Joint counts and every joint's transform equal (padding lanes ignored).
    fn eq(&self, other: &Pose) -> bool {
        self.len == other.len && self.transforms().eq(other.transforms())
    }
}

/// A pose's translations and rotations, its scales left out: what
/// inertialization keeps of its last two outputs (it extrapolates only
/// those), in the pose's own row layout, so keeping one is a copy of the
/// first seven tenths of the pose's memory.
#[derive(Clone)]
pub(crate) struct PoseMotion {
    len: usize,
    rows: Vec<Row>,
}

impl PoseMotion {
    /// `pose`'s translations and rotations.
    pub(crate) fn of(pose: &Pose) -> PoseMotion {
        let (t, r, _) = pose.rows();
        PoseMotion { len: pose.len, rows: t.iter().chain(r).copied().collect() }
    }
    /// Takes `pose`'s translations and rotations (same joint count), without allocating.
    pub(crate) fn copy_from(&mut self, pose: &Pose) {
        assert_eq!(self.len, pose.len, "poses of different joint counts");
        let n = self.rows.len();
        self.rows.copy_from_slice(&pose.rows[..n]);
    }
    /// Translation of joint `i`.
    #[inline]
    pub(crate) fn translation(&self, i: usize) -> Vec3A {
        assert!(i < self.len, "joint {i} of {}", self.len);
        Vec3A::from_array(std::array::from_fn(|c| {
            let (row, lane) = at(i, 3, c);
            self.rows[row].0[lane]
        }))
    }
    /// Rotation of joint `i`.
    #[inline]
    pub(crate) fn rotation(&self, i: usize) -> Quat {
        assert!(i < self.len, "joint {i} of {}", self.len);
        let base = 3 * blocks_for(self.len);
        Quat::from_array(std::array::from_fn(|c| {
            let (row, lane) = at(i, 4, c);
            self.rows[base + row].0[lane]
        }))
    }
    /// Starts loading it into cache (see [`crate::pose::simd::prefetch`]).
    pub(crate) fn prefetch(&self) {
        crate::pose::simd::prefetch(&self.rows, usize::MAX);
    }
}

impl std::fmt::Debug for PoseMotion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PoseMotion").field("joints", &self.len).finish_non_exhaustive()
    }
}

impl std::fmt::Debug for Pose {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.transforms()).finish()
    }
}

/// What the jobs need from a skeleton, flattened once: the parent of each
/// joint in evaluation order, the rest pose and the inverse bind matrices.
#[derive(Debug, Clone)]
pub struct RuntimeSkeleton {
    skeleton: Skeleton,
    /// `(joint, parent)` with parents first; `parent == u16::MAX` for roots.
    order: Vec<(u16, u16)>,
    rest: Pose,
    inverse_binds: Vec<Mat4>,
    morphs: MorphSet,
}

/// Marker for "no parent" in [`RuntimeSkeleton::hierarchy`].
pub const NO_PARENT: u16 = u16::MAX;

impl RuntimeSkeleton {
    /// Flattens `skeleton` (which core already validated).
    #[must_use]
    pub fn new(skeleton: Skeleton) -> RuntimeSkeleton {
        let order = skeleton
            .eval_order()
            .iter()
            .map(|&j| (j, skeleton.joints()[j as usize].parent.unwrap_or(NO_PARENT)))
            .collect();
        let rest = Pose::rest(&skeleton);
        let inverse_binds = skeleton.joints().iter().map(|j| j.inverse_bind).collect();
        RuntimeSkeleton { skeleton, order, rest, inverse_binds, morphs: MorphSet::default() }
    }

    /// [`RuntimeSkeleton::new`] with the model's morphed nodes (see
    /// [`crate::pose::MorphSet`]): clips bound to it with
    /// [`crate::pose::Animation::bind_to`] animate their weights too.
    #[must_use]
    pub fn with_morphs(skeleton: Skeleton, morph_nodes: &[MorphNode]) -> RuntimeSkeleton {
        let morphs = MorphSet::new(morph_nodes, &skeleton);
        RuntimeSkeleton { morphs, ..RuntimeSkeleton::new(skeleton) }
    }

    /// The model's morphed nodes (empty without morph targets).
    #[must_use]
    pub fn morphs(&self) -> &MorphSet {
        &self.morphs
    }

    /// The core skeleton.
    #[must_use]
    pub fn skeleton(&self) -> &Skeleton {
        &self.skeleton
    }
    /// Number of joints.
    #[must_use]
    pub fn joint_count(&self) -> usize {
        self.rest.len()
    }
    /// `(joint, parent)` pairs with every parent before its children;
    /// [`NO_PARENT`] marks roots.
    #[must_use]
    pub fn hierarchy(&self) -> &[(u16, u16)] {
        &self.order
    }
    /// Rest pose (glTF node TRS), the fallback of blending.
    #[must_use]
    pub fn rest(&self) -> &Pose {
        &self.rest
    }
    /// Inverse bind matrices in joint order.
    #[must_use]
    pub fn inverse_binds(&self) -> &[Mat4] {
        &self.inverse_binds
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bulk_transforms_are_get_and_set_joint_by_joint() {
        // 19 joints: two full blocks of eight and a partial one.
        let joints: Vec<Transform> = (0..19)
            .map(|i| {
                let f = i as f32;
                Transform {
                    translation: Vec3::new(f, -f * 0.5, f * 2.0),
                    rotation: Quat::from_rotation_y(f * 0.1).mul_quat(Quat::from_rotation_x(f * 0.03)),
                    scale: Vec3::new(1.0 + f * 0.01, 1.0, 2.0 - f * 0.02),
                }
            })
            .collect();
        let mut bulk = Pose::identity(19);
        bulk.read_transforms(&joints);
        let mut one_by_one = Pose::identity(19);
        for (i, t) in joints.iter().enumerate() {
            one_by_one.set(i, *t);
        }
        assert_eq!(bulk, one_by_one);
        let mut out = vec![Transform::IDENTITY; 19];
        bulk.write_transforms(&mut out);
        let expected: Vec<Transform> = bulk.transforms().collect();
        assert_eq!(out, expected);
        assert_eq!(out, joints);
        assert_eq!(bulk.transforms().len(), 19);
        assert!(bulk.transforms().enumerate().all(|(i, t)| t == bulk.get(i)));

        // A few joints, across blocks: only they cross, both ways.
        let some = [0u16, 7, 8, 15, 18];
        let marker = Transform { translation: Vec3::splat(-9.0), ..Transform::IDENTITY };
        let mut out = vec![marker; 19];
        bulk.write_joints(&some, &mut out);
        for (j, t) in out.iter().enumerate() {
            assert_eq!(*t, if some.contains(&(j as u16)) { joints[j] } else { marker }, "joint {j}");
        }
        let mut partial = Pose::identity(19);
        partial.read_joints(&some, &joints);
        for (j, &t) in joints.iter().enumerate() {
            let want = if some.contains(&(j as u16)) { t } else { Transform::IDENTITY };
            assert_eq!(partial.get(j), want, "joint {j}");
        }
    }
}

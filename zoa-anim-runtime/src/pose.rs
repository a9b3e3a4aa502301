//! Poses: local joint transforms stored as structure-of-arrays, and the
//! runtime view of a skeleton.

use glam::{Mat4, Quat, Vec3A};
use zoa_anim_core::{Skeleton, Transform};

/// Local transforms of every joint of one skeleton, structure-of-arrays.
///
/// Translations, rotations and scales live in three separate arrays of
/// 16-byte SIMD values (`Vec3A`, `Quat`), so each blending pass streams one
/// property through the cache with aligned loads. The joint count is fixed at
/// construction; jobs check it and never resize.
#[derive(Debug, Clone, PartialEq)]
pub struct Pose {
    translations: Vec<Vec3A>,
    rotations: Vec<Quat>,
    scales: Vec<Vec3A>,
}

impl Pose {
    /// `joints` identity transforms.
    pub fn identity(joints: usize) -> Pose {
        Pose {
            translations: vec![Vec3A::ZERO; joints],
            rotations: vec![Quat::IDENTITY; joints],
            scales: vec![Vec3A::ONE; joints],
        }
    }

    /// A pose holding the given transforms.
    pub fn from_transforms(transforms: impl IntoIterator<Item = Transform>) -> Pose {
        let mut pose = Pose::identity(0);
        for t in transforms {
            pose.translations.push(t.translation.into());
            pose.rotations.push(t.rotation);
            pose.scales.push(t.scale.into());
        }
        pose
    }

    /// The skeleton's rest pose (glTF node TRS).
    pub fn rest(skeleton: &Skeleton) -> Pose {
        Pose::from_transforms(skeleton.rest_pose())
    }

    /// Number of joints.
    pub fn len(&self) -> usize {
        self.rotations.len()
    }
    /// Whether the pose has no joints.
    pub fn is_empty(&self) -> bool {
        self.rotations.is_empty()
    }

    /// Joint `i` as a [`Transform`].
    ///
    /// # Panics
    /// When `i` is out of range.
    pub fn get(&self, i: usize) -> Transform {
        Transform {
            translation: self.translations[i].into(),
            rotation: self.rotations[i],
            scale: self.scales[i].into(),
        }
    }

    /// Sets joint `i`.
    ///
    /// # Panics
    /// When `i` is out of range.
    pub fn set(&mut self, i: usize, t: Transform) {
        self.translations[i] = t.translation.into();
        self.rotations[i] = t.rotation;
        self.scales[i] = t.scale.into();
    }

    /// All transforms in joint order.
    pub fn transforms(&self) -> impl ExactSizeIterator<Item = Transform> + '_ {
        (0..self.len()).map(|i| self.get(i))
    }

    /// Copies `other` into `self` without allocating.
    ///
    /// # Panics
    /// When the joint counts differ.
    pub fn copy_from(&mut self, other: &Pose) {
        self.translations.copy_from_slice(&other.translations);
        self.rotations.copy_from_slice(&other.rotations);
        self.scales.copy_from_slice(&other.scales);
    }

    /// Translations in joint order.
    pub fn translations(&self) -> &[Vec3A] {
        &self.translations
    }
    /// Rotations (unit quaternions `x, y, z, w`) in joint order.
    pub fn rotations(&self) -> &[Quat] {
        &self.rotations
    }
    /// Scales in joint order.
    pub fn scales(&self) -> &[Vec3A] {
        &self.scales
    }
    /// Mutable translations.
    pub fn translations_mut(&mut self) -> &mut [Vec3A] {
        &mut self.translations
    }
    /// Mutable rotations.
    pub fn rotations_mut(&mut self) -> &mut [Quat] {
        &mut self.rotations
    }
    /// Mutable scales.
    pub fn scales_mut(&mut self) -> &mut [Vec3A] {
        &mut self.scales
    }
    /// The three arrays at once, for passes that write several properties.
    pub fn parts_mut(&mut self) -> (&mut [Vec3A], &mut [Quat], &mut [Vec3A]) {
        (&mut self.translations, &mut self.rotations, &mut self.scales)
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
}

/// Marker for "no parent" in [`RuntimeSkeleton::hierarchy`].
pub const NO_PARENT: u16 = u16::MAX;

impl RuntimeSkeleton {
    /// Flattens `skeleton` (which core already validated).
    pub fn new(skeleton: Skeleton) -> RuntimeSkeleton {
        let order = skeleton
            .eval_order()
            .iter()
            .map(|&j| (j, skeleton.joints()[j as usize].parent.unwrap_or(NO_PARENT)))
            .collect();
        let rest = Pose::rest(&skeleton);
        let inverse_binds = skeleton.joints().iter().map(|j| j.inverse_bind).collect();
        RuntimeSkeleton { skeleton, order, rest, inverse_binds }
    }

    /// The core skeleton.
    pub fn skeleton(&self) -> &Skeleton {
        &self.skeleton
    }
    /// Number of joints.
    pub fn joint_count(&self) -> usize {
        self.rest.len()
    }
    /// `(joint, parent)` pairs with every parent before its children;
    /// [`NO_PARENT`] marks roots.
    pub fn hierarchy(&self) -> &[(u16, u16)] {
        &self.order
    }
    /// Rest pose (glTF node TRS), the fallback of blending.
    pub fn rest(&self) -> &Pose {
        &self.rest
    }
    /// Inverse bind matrices in joint order.
    pub fn inverse_binds(&self) -> &[Mat4] {
        &self.inverse_binds
    }
}

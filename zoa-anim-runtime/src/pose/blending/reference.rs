//! Reference poses of additive inputs, prepared once at set-up (rotations
//! normalized and inverted).

use std::sync::Arc;

use glam::{Quat, Vec4};

use crate::pose::Pose;

/// The reference pose of an additive input, prepared once at set-up:
/// translations and scales as they are, rotations normalized and inverted
/// (three.js `makeClipAdditive`), so a frame never inverts anything.
#[derive(Debug, Clone, PartialEq)]
pub struct ReferencePose {
    /// The reference with its rotations inverted (shared: clones are cheap).
    pub(super) pose: Arc<Pose>,
    /// The reference's morph weights, when its animation has any.
    morph: Option<Arc<[f32]>>,
}

impl ReferencePose {
    /// Prepares `pose` as a reference (allocates; set-up time).
    #[must_use]
    pub fn from_pose(pose: &Pose) -> ReferencePose {
        ReferencePose { pose: Arc::new(prepare_reference(pose)), morph: None }
    }
    /// With morph weights to take additive weight deltas against (a
    /// [`crate::pose::MorphSet`]'s flat layout).
    #[must_use]
    pub fn with_morph(mut self, weights: Vec<f32>) -> ReferencePose {
        self.morph = Some(weights.into());
        self
    }
    /// The morph weights, if any.
    #[must_use]
    pub fn morph(&self) -> Option<&[f32]> {
        self.morph.as_deref()
    }
    /// A reference already prepared by [`prepare_reference`].
    pub(crate) fn from_prepared(pose: Arc<Pose>) -> ReferencePose {
        ReferencePose { pose, morph: None }
    }
    /// Number of joints.
    #[must_use]
    pub fn len(&self) -> usize {
        self.pose.len()
    }
    /// Whether the reference has no joints.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.pose.is_empty()
    }
}

/// `pose` with its rotations normalized and inverted (three.js
/// `makeClipAdditive`): what a [`ReferencePose`] holds. Rotation components
/// below [`ROTATION_NOISE`](crate::pose::simd::ROTATION_NOISE) in magnitude become
/// zero, as the additive inputs' do in [`Blender::add`], so that the delta's
/// quaternion products never compute with subnormal numbers.
pub(crate) fn prepare_reference(pose: &Pose) -> Pose {
    let mut prepared = pose.clone();
    let flush = |x: f32| if x.abs() < crate::pose::simd::ROTATION_NOISE { 0.0 } else { x };
    for j in 0..pose.len() {
        let inverse = Vec4::from(pose.rotation(j)).normalize().map(flush);
        prepared.set_rotation(j, Quat::from_vec4(inverse).conjugate());
    }
    prepared
}

//! Retargeting a pose between skeletons that share bone names.

use zoa_anim_core::Skeleton;

use crate::error::RuntimeError;
use crate::pose::Pose;

/// What a retargeted joint takes from the source pose.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RetargetMode {
    /// Translation, rotation and scale.
    #[default]
    Full,
    /// Rotation only; translation and scale come from the target's rest pose
    /// (a clip's baked translation belongs to the rig it was authored on).
    RotationOnly,
}

const UNMAPPED: u16 = u16::MAX;

/// A joint map from a source skeleton to a target skeleton by bone name.
///
/// Target joints without a same-named source joint keep their rest pose.
#[derive(Debug, Clone, PartialEq)]
pub struct Retargeter {
    /// Per target joint: the source joint, or [`UNMAPPED`].
    map: Vec<u16>,
    source_joints: usize,
    mode: RetargetMode,
}

impl Retargeter {
    /// Maps every named target joint to the first source joint of that name.
    pub fn by_name(source: &Skeleton, target: &Skeleton, mode: RetargetMode) -> Retargeter {
        let map = target
            .joints()
            .iter()
            .map(|j| {
                j.name
                    .as_deref()
                    .and_then(|n| source.joints().iter().position(|s| s.name.as_deref() == Some(n)))
                    .map_or(UNMAPPED, |i| i as u16)
            })
            .collect();
        Retargeter { map, source_joints: source.joint_count(), mode }
    }

    /// Number of target joints that found a source joint.
    pub fn mapped_count(&self) -> usize {
        self.map.iter().filter(|&&m| m != UNMAPPED).count()
    }
    /// The mode.
    pub fn mode(&self) -> RetargetMode {
        self.mode
    }

    /// Writes the target pose. Does not allocate.
    pub fn run(&self, source: &Pose, target_rest: &Pose, output: &mut Pose) -> Result<(), RuntimeError> {
        let mut reasons = Vec::new();
        if source.len() != self.source_joints {
            reasons.push(format!("source pose has {} joints, expected {}", source.len(), self.source_joints));
        }
        if target_rest.len() != self.map.len() || output.len() != self.map.len() {
            reasons.push(format!(
                "target rest pose has {} joints and output {}, expected {}",
                target_rest.len(),
                output.len(),
                self.map.len()
            ));
        }
        RuntimeError::check("retarget job", reasons)?;
        for (j, &m) in self.map.iter().enumerate() {
            let full = m != UNMAPPED && self.mode == RetargetMode::Full;
            output.set_rotation(j, if m != UNMAPPED { source.rotation(m as usize) } else { target_rest.rotation(j) });
            output.set_translation(j, if full { source.translation(m as usize) } else { target_rest.translation(j) });
            output.set_scale(j, if full { source.scale(m as usize) } else { target_rest.scale(j) });
        }
        Ok(())
    }
}

//! Retargeting a pose from one skeleton onto another: joints are paired by
//! bone role (hips, spine, legs, arms … as [`BoneRoles`] discovers them, an
//! explicit role map included) and, for joints no role pairs, by bone name.
//!
//! Three modes say what a paired joint takes from the source:
//! - [`RetargetMode::Full`]: translation, rotation and scale, unchanged (same
//!   rig, other names);
//! - [`RetargetMode::RotationOnly`]: the local rotation unchanged;
//!   translation and scale come from the target's rest pose (a clip's baked
//!   translations belong to the rig it was authored on);
//! - [`RetargetMode::RestCorrected`]: how far each bone turned away from its
//!   rest orientation, measured in model space, applied to the target bone's
//!   own rest orientation — the source's rest pose becomes the target's rest
//!   pose even when the two rigs hold their bones with different axes (an
//!   A-pose onto a T-pose, a Blender rig onto a Mixamo one). The hips also
//!   move: their translation away from rest, turned into the target's frame
//!   and scaled by the ratio of leg lengths.
//!
//! Target joints without a partner keep their rest pose (in
//! `RestCorrected`, their rest orientation *relative to their parent*, so
//! they follow a retargeted parent). Running a retargeter allocates nothing.

use zoa_anim_core::Skeleton;
use zoa_anim_core::glam::{Mat4, Quat, Vec3, Vec3A};
use zoa_anim_ik::{BoneRoles, Role};

use crate::error::RuntimeError;
use crate::pose::Pose;

/// What a retargeted joint takes from the source pose.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RetargetMode {
    /// Translation, rotation and scale.
    #[default]
    Full,
    /// Rotation only; translation and scale come from the target's rest pose.
    RotationOnly,
    /// Rotation relative to each rig's rest pose (model-space delta), plus the
    /// hips' translation relative to rest scaled by leg length.
    RestCorrected,
}

impl RetargetMode {
    /// `full`, `rotation` or `rest`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            RetargetMode::Full => "full",
            RetargetMode::RotationOnly => "rotation",
            RetargetMode::RestCorrected => "rest",
        }
    }
}

/// How a target joint found its source joint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MatchedBy {
    /// Both joints play this role (for [`Role::Spine`], the same position in
    /// the spine chain, or its first / last joint when the chains differ).
    Role(Role),
    /// Same bone name.
    Name,
}

/// One paired joint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetargetPair {
    /// Target joint index.
    pub target: u16,
    /// Source joint index.
    pub source: u16,
    /// How they were paired.
    pub by: MatchedBy,
}

const UNMAPPED: u16 = u16::MAX;

/// The hips' translation transfer of [`RetargetMode::RestCorrected`].
#[derive(Debug, Clone, Copy, PartialEq)]
struct HipsTransfer {
    target: u16,
    source: u16,
    /// Source parent frame → target parent frame (rest orientations).
    to_target: Quat,
    /// Target leg length / source leg length.
    scale: f32,
    /// The source hips' rest translation.
    source_rest: Vec3A,
}

/// A joint map from a source skeleton to a target skeleton.
#[derive(Debug, Clone, PartialEq)]
pub struct Retargeter {
    /// Per target joint: the source joint, or [`UNMAPPED`].
    map: Vec<u16>,
    pairs: Vec<RetargetPair>,
    source_joints: usize,
    mode: RetargetMode,
    /// Source parents ([`UNMAPPED`] for roots).
    source_parents: Vec<u16>,
    /// Target parents and evaluation order (parents first).
    target_parents: Vec<u16>,
    target_order: Vec<u16>,
    /// Per target joint: `Rs⁻¹ ⊗ Rt`, the source's model-space rest
    /// orientation undone and the target's applied (identity when unmapped).
    correction: Vec<Quat>,
    hips: Option<HipsTransfer>,
}

impl Retargeter {
    /// Maps every named target joint to the first source joint of that name.
    #[must_use]
    pub fn by_name(source: &Skeleton, target: &Skeleton, mode: RetargetMode) -> Retargeter {
        Self::build(source, target, Vec::new(), None, mode)
    }

    /// Pairs joints by role first — every role both rigs have; spine chains
    /// joint by joint when they are equally long, else first with first and
    /// last with last — then by name for the target joints still unpaired
    /// (never reusing a source joint a role took).
    #[must_use]
    pub fn by_role(
        source: &Skeleton,
        source_roles: &BoneRoles,
        target: &Skeleton,
        target_roles: &BoneRoles,
        mode: RetargetMode,
    ) -> Retargeter {
        let mut pairs = Vec::new();
        for role in Role::ALL {
            if role == Role::Spine {
                let (s, t) = (&source_roles.spine, &target_roles.spine);
                if s.len() == t.len() {
                    pairs.extend(t.iter().zip(s).map(|(&t, &s)| (t, s, role)));
                } else if let (Some(&sf), Some(&sl), Some(&tf), Some(&tl)) = (s.first(), s.last(), t.first(), t.last())
                {
                    pairs.push((tf, sf, role));
                    if tl != tf && sl != sf {
                        pairs.push((tl, sl, role));
                    }
                }
            } else if let (Some(s), Some(t)) = (source_roles.get(role), target_roles.get(role)) {
                pairs.push((t, s, role));
            }
        }
        Self::build(source, target, pairs, Some((source_roles, target_roles)), mode)
    }

    fn build(
        source: &Skeleton,
        target: &Skeleton,
        role_pairs: Vec<(u16, u16, Role)>,
        roles: Option<(&BoneRoles, &BoneRoles)>,
        mode: RetargetMode,
    ) -> Retargeter {
        let n = target.joint_count();
        let mut map = vec![UNMAPPED; n];
        let mut used = vec![false; source.joint_count()];
        let mut pairs = Vec::new();
        for (t, s, role) in role_pairs {
            let (ti, si) = (t as usize, s as usize);
            if ti < n && si < used.len() && map[ti] == UNMAPPED && !used[si] {
                map[ti] = s;
                used[si] = true;
                pairs.push(RetargetPair { target: t, source: s, by: MatchedBy::Role(role) });
            }
        }
        for (j, joint) in target.joints().iter().enumerate() {
            if map[j] != UNMAPPED {
                continue;
            }
            let Some(name) = joint.name.as_deref() else { continue };
            if let Some(s) = source.joints().iter().position(|s| s.name.as_deref() == Some(name))
                && !used[s]
            {
                map[j] = s as u16;
                used[s] = true;
                pairs.push(RetargetPair { target: j as u16, source: s as u16, by: MatchedBy::Name });
            }
        }
        pairs.sort_by_key(|p| p.target);

        let parents = |s: &Skeleton| -> Vec<u16> {
            (0..s.joint_count()).map(|i| s.parent(i).map_or(UNMAPPED, |p| p as u16)).collect()
        };
        let source_rest = rest_model(source);
        let target_rest = rest_model(target);
        let rot = |m: &Mat4| m.to_scale_rotation_translation().1.normalize();
        let correction = map
            .iter()
            .enumerate()
            .map(|(j, &m)| {
                if m == UNMAPPED {
                    Quat::IDENTITY
                } else {
                    rot(&source_rest[m as usize]).inverse() * rot(&target_rest[j])
                }
            })
            .collect();
        let hips = roles.and_then(|(sr, tr)| {
            let (s, t) = (sr.hips?, tr.hips?);
            if map[t as usize] != s {
                return None;
            }
            let parent_rot = |sk: &Skeleton, model: &[Mat4], j: u16| {
                sk.parent(j as usize).map_or(Quat::IDENTITY, |p| rot(&model[p]))
            };
            let to_target = parent_rot(target, &target_rest, t).inverse() * parent_rot(source, &source_rest, s);
            let (ls, lt) = (leg_length(sr, &source_rest), leg_length(tr, &target_rest));
            let scale = if ls > 1e-6 && lt > 1e-6 { lt / ls } else { 1.0 };
            let source_rest = Vec3A::from(source.joints()[s as usize].rest.translation);
            Some(HipsTransfer { target: t, source: s, to_target, scale, source_rest })
        });
        Retargeter {
            map,
            pairs,
            source_joints: source.joint_count(),
            mode,
            source_parents: parents(source),
            target_parents: parents(target),
            target_order: target.eval_order().to_vec(),
            correction,
            hips,
        }
    }

    /// Number of target joints that found a source joint.
    #[must_use]
    pub fn mapped_count(&self) -> usize {
        self.pairs.len()
    }
    /// Every paired joint, in target joint order.
    #[must_use]
    pub fn pairs(&self) -> &[RetargetPair] {
        &self.pairs
    }
    /// The source joint of target joint `j`, if paired.
    #[must_use]
    pub fn source_of(&self, j: usize) -> Option<usize> {
        self.map.get(j).filter(|&&m| m != UNMAPPED).map(|&m| m as usize)
    }
    /// The target's hips joint when [`RetargetMode::RestCorrected`] carries
    /// the hips' translation over (both rigs' hips found and paired).
    #[must_use]
    pub fn hips_joint(&self) -> Option<usize> {
        self.hips.map(|h| usize::from(h.target))
    }
    /// The mode.
    #[must_use]
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
        if self.mode == RetargetMode::RestCorrected {
            self.run_rest_corrected(source, target_rest, output);
            return Ok(());
        }
        for (j, &m) in self.map.iter().enumerate() {
            let full = m != UNMAPPED && self.mode == RetargetMode::Full;
            output.set_rotation(j, if m != UNMAPPED { source.rotation(m as usize) } else { target_rest.rotation(j) });
            output.set_translation(j, if full { source.translation(m as usize) } else { target_rest.translation(j) });
            output.set_scale(j, if full { source.scale(m as usize) } else { target_rest.scale(j) });
        }
        Ok(())
    }

    /// Model-space rotation of source joint `j` in `pose`.
    fn source_model_rotation(&self, pose: &Pose, j: usize) -> Quat {
        let mut q = pose.rotation(j);
        let mut p = self.source_parents[j];
        let mut guard = 0;
        while p != UNMAPPED && guard < self.source_parents.len() {
            q = pose.rotation(p as usize) * q;
            p = self.source_parents[p as usize];
            guard += 1;
        }
        q
    }

    fn run_rest_corrected(&self, source: &Pose, target_rest: &Pose, output: &mut Pose) {
        output.copy_from(target_rest);
        // Model-space rotations, parents first, written into the output ...
        for &j in &self.target_order {
            let j = j as usize;
            let parent = self.target_parents[j];
            let q = match self.map[j] {
                UNMAPPED if parent == UNMAPPED => target_rest.rotation(j),
                UNMAPPED => output.rotation(parent as usize) * target_rest.rotation(j),
                m => (self.source_model_rotation(source, m as usize) * self.correction[j]).normalize(),
            };
            output.set_rotation(j, q);
        }
        // ... then back to local, children first (a parent still holds its model rotation).
        for &j in self.target_order.iter().rev() {
            let j = j as usize;
            let parent = self.target_parents[j];
            if parent != UNMAPPED {
                let local = (output.rotation(parent as usize).inverse() * output.rotation(j)).normalize();
                output.set_rotation(j, local);
            }
        }
        if let Some(h) = self.hips {
            let (s, t) = (h.source as usize, h.target as usize);
            let delta = Vec3A::from(h.to_target * Vec3::from(source.translation(s) - h.source_rest)) * h.scale;
            output.set_translation(t, target_rest.translation(t) + delta);
        }
    }
}

/// Model-space rest matrices, parents first.
fn rest_model(s: &Skeleton) -> Vec<Mat4> {
    let mut out = vec![Mat4::IDENTITY; s.joint_count()];
    for &j in s.eval_order() {
        let j = j as usize;
        let r = s.joints()[j].rest;
        let local = Mat4::from_scale_rotation_translation(r.scale, r.rotation, r.translation);
        out[j] = s.parent(j).map_or(local, |p| out[p] * local);
    }
    out
}

/// Rest length of the longer leg, hip to foot (or the lower leg's tip), model space.
fn leg_length(roles: &BoneRoles, model: &[Mat4]) -> f32 {
    let pos = |j: u16| model[j as usize].w_axis.truncate();
    roles
        .legs
        .iter()
        .filter_map(|l| {
            let (u, lo) = (l.upper?, l.lower?);
            let end = match (l.foot, l.tip) {
                (Some(f), _) => pos(f),
                (None, Some(tip)) => model[tip.joint as usize].transform_point3(tip.offset),
                (None, None) => return None,
            };
            Some(pos(u).distance(pos(lo)) + pos(lo).distance(end))
        })
        .fold(0.0, f32::max)
}

//! Aim / look-at: turn the head (and optionally neck and spine, sharing the
//! turn by weight) towards a target, only inside a cone around the animated
//! head direction, at a limited angular speed.
//!
//! # Terminology
//! - **forward axis**: the head's "looking" direction in head-local space,
//!   derived once from the rest pose and the model's forward axis.
//! - **offset**: the model-space rotation currently layered on top of the
//!   animation. It is the only frame-to-frame state ([`LookAtState`]).
//!
//! ```text
//!            target (inside cone: offset turns towards it)
//!           ↗
//!   head ● ──── animated forward
//!           ↘ ··· cone edge (half-angle = look_at_fov_degrees)
//!                    target outside: offset returns to identity
//! ```
//!
//! Every joint in the chain turns by a fraction (its weight) of the same
//! offset about the same axis, so the fractions compose exactly and the
//! head's final orientation is the full offset applied to the animated one.

use zoa_anim_core::glam::{Quat, Vec3};
use zoa_anim_core::{Skeleton, Transform};

use crate::pose::ModelPose;

/// Most joints a look-at chain may share the turn over (spine, neck, head, …).
pub const MAX_LOOK_JOINTS: usize = 4;

/// Joints that share a look-at turn, root-most first, head last.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LookAtChain {
    joints: [u16; MAX_LOOK_JOINTS],
    weights: [f32; MAX_LOOK_JOINTS],
    len: usize,
    /// The head's forward axis in head-local space (unit).
    pub head_forward: Vec3,
}

impl LookAtChain {
    /// Builds a chain from `(joint, weight)` pairs, root-most first, the head
    /// last; weights are normalised to sum to 1 (all zero → head only).
    /// `head_forward` is the head's forward axis in head-local space.
    /// Entries beyond [`MAX_LOOK_JOINTS`] keep the last ones (nearest the head).
    ///
    /// Returns `None` when `joints` is empty or `head_forward` is not a usable direction.
    #[must_use]
    pub fn new(joints: &[(u16, f32)], head_forward: Vec3) -> Option<LookAtChain> {
        let head_forward = head_forward.try_normalize()?;
        let joints = &joints[joints.len().saturating_sub(MAX_LOOK_JOINTS)..];
        if joints.is_empty() {
            return None;
        }
        let mut chain = LookAtChain {
            joints: [0; MAX_LOOK_JOINTS],
            weights: [0.0; MAX_LOOK_JOINTS],
            len: joints.len(),
            head_forward,
        };
        let total: f32 = joints.iter().map(|(_, w)| if w.is_finite() { w.max(0.0) } else { 0.0 }).sum();
        for (i, &(j, w)) in joints.iter().enumerate() {
            chain.joints[i] = j;
            chain.weights[i] = if total > 0.0 && w.is_finite() { w.max(0.0) / total } else { 0.0 };
        }
        if total <= 0.0 {
            chain.weights[joints.len() - 1] = 1.0;
        }
        Some(chain)
    }

    /// The head joint (last of the chain).
    #[must_use]
    pub fn head(&self) -> u16 {
        self.joints[self.len - 1]
    }

    /// `(joint, normalised weight)` pairs, root-most first.
    pub fn iter(&self) -> impl Iterator<Item = (u16, f32)> + '_ {
        self.joints[..self.len].iter().copied().zip(self.weights[..self.len].iter().copied())
    }
}

/// Frame-to-frame look-at state of one character.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LookAtState {
    /// Model-space rotation layered on the animated head; identity = neutral.
    pub offset: Quat,
}

impl Default for LookAtState {
    fn default() -> Self {
        LookAtState { offset: Quat::IDENTITY }
    }
}

/// One look-at step.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LookAtJob {
    /// The chain.
    pub chain: LookAtChain,
    /// Model-space point to look at; `None` returns to neutral.
    pub target: Option<Vec3>,
    /// Half-angle of the cone around the animated head forward, radians
    /// (0 ..= π). Targets outside are ignored (return to neutral).
    pub fov_half_angle: f32,
    /// Largest turn per second, radians (`> 0`; `f32::INFINITY` snaps).
    pub max_angular_speed: f32,
    /// Seconds since the last step (`>= 0`).
    pub dt: f32,
    /// Overall weight, 0 ..= 1 (clamped).
    pub weight: f32,
}

impl LookAtJob {
    /// Advances `state` towards the target (or neutral) and applies it.
    /// `model` must be up to date for the chain and its ancestors; on return
    /// the chain joints are updated in `model` (their other descendants are
    /// stale). Allocates nothing.
    ///
    /// Returns whether the pose changed (`false` at neutral). A non-finite
    /// target or `dt` is ignored entirely: state and pose stay unchanged.
    ///
    /// # Panics
    /// Panics when the chain's joints are out of range.
    pub fn run(
        &self,
        skeleton: &Skeleton,
        local: &mut [Transform],
        model: &mut ModelPose,
        state: &mut LookAtState,
    ) -> bool {
        if self.target.is_some_and(|t| !t.is_finite()) || !self.dt.is_finite() || self.dt < 0.0 {
            return false;
        }
        let head = self.chain.head() as usize;
        let head_xf = *model.get(head);
        let Some(forward) = (head_xf.rotation * self.chain.head_forward).try_normalize() else {
            return false;
        };
        let fov =
            if self.fov_half_angle.is_finite() { self.fov_half_angle.clamp(0.0, std::f32::consts::PI) } else { 0.0 };
        let desired = self
            .target
            .and_then(|t| (t - head_xf.position).try_normalize())
            .filter(|dir| forward.angle_between(*dir) <= fov)
            .map_or(Quat::IDENTITY, |dir| Quat::from_rotation_arc(forward, dir));
        let step =
            if self.max_angular_speed.is_finite() { (self.max_angular_speed * self.dt).max(0.0) } else { f32::MAX };
        let next = state.offset.rotate_towards(desired, step).normalize();
        if next.is_finite() {
            state.offset = next;
        }
        let w = if self.weight.is_finite() { self.weight.clamp(0.0, 1.0) } else { 0.0 };
        // Every fraction of the turn is a power of the same rotation: its
        // axis and angle once, then one sine and cosine per joint (a slerp
        // from identity per joint took an arccosine and three sines).
        let turn = Turn::of(state.offset);
        if turn.power(w).abs_diff_eq(Quat::IDENTITY, 1e-7) {
            return false;
        }
        let mut prev: Option<usize> = None;
        for (j, share) in self.chain.iter() {
            let j = j as usize;
            if let Some(p) = prev {
                model.refresh_path(skeleton, local, p, j);
            }
            if share > 0.0 {
                model.rotate_joint(skeleton, local, j, turn.power(w * share));
            }
            prev = Some(j);
        }
        true
    }
}

/// A rotation as axis and half-angle, taken to fractional powers: `q^t`,
/// the rotation about the same axis by `t` times the angle (what
/// `Quat::IDENTITY.slerp(q, t)` gives, the short way round).
#[derive(Debug, Clone, Copy)]
struct Turn {
    axis: Vec3,
    half_angle: f32,
}

impl Turn {
    fn of(q: Quat) -> Turn {
        let q = if q.w < 0.0 { -q } else { q };
        let v = Vec3::new(q.x, q.y, q.z);
        let s = v.length();
        if !(s > 0.0 && s.is_finite() && q.w.is_finite()) {
            return Turn { axis: Vec3::X, half_angle: 0.0 };
        }
        Turn { axis: v / s, half_angle: s.atan2(q.w) }
    }

    fn power(self, t: f32) -> Quat {
        let (sin, cos) = (self.half_angle * t).sin_cos();
        let v = self.axis * sin;
        Quat::from_xyzw(v.x, v.y, v.z, cos)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_turn_to_a_power_is_the_slerp_from_identity() {
        let qs = [
            Quat::from_axis_angle(Vec3::new(1.0, 2.0, -0.5).normalize(), 0.7),
            Quat::from_axis_angle(Vec3::Y, 3.0),
            -Quat::from_axis_angle(Vec3::Z, 0.2),
            Quat::from_axis_angle(Vec3::X, 1e-4),
            Quat::IDENTITY,
        ];
        for q in qs {
            let turn = Turn::of(q);
            for t in [0.0, 0.25, 0.5, 0.8, 1.0] {
                let (got, want) = (turn.power(t), Quat::IDENTITY.slerp(q, t));
                assert!(got.abs_diff_eq(want, 2e-6), "{q:?}^{t}: {got:?} vs {want:?}");
            }
        }
        // Powers compose: q^a · q^b = q^(a+b).
        let turn = Turn::of(qs[0]);
        assert!((turn.power(0.3) * turn.power(0.5)).abs_diff_eq(turn.power(0.8), 1e-6));
    }

    #[test]
    fn chain_weights_are_normalised() {
        let c = LookAtChain::new(&[(1, 1.0), (2, 1.0), (3, 2.0)], Vec3::Z).unwrap();
        let w: Vec<f32> = c.iter().map(|(_, w)| w).collect();
        assert_eq!(w, [0.25, 0.25, 0.5]);
        assert_eq!(c.head(), 3);
        let zero = LookAtChain::new(&[(1, 0.0), (2, 0.0)], Vec3::Z).unwrap();
        assert_eq!(zero.iter().map(|(_, w)| w).collect::<Vec<_>>(), [0.0, 1.0]);
        assert!(LookAtChain::new(&[], Vec3::Z).is_none());
        assert!(LookAtChain::new(&[(1, 1.0)], Vec3::ZERO).is_none());
    }
}

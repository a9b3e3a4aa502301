//! Analytic two-bone IK (thigh–shin–foot, upper arm–forearm–hand).
//!
//! # Terminology
//! - **a, b, c**: model-space positions of the upper joint (hip, shoulder),
//!   the middle joint (knee, elbow) and the end joint (ankle, wrist).
//! - **pole**: a model-space point the middle joint bends towards.
//! - **bend hint**: a model-space direction used when there is no pole and
//!   the animated limb is straight, so the bend plane is otherwise undefined.
//!
//! ```text
//!        a ●
//!           \  upper (|b-a| kept)
//!            \
//!             ● b ──► pole side
//!            /
//!           /  lower (|c-b| kept)
//!        c ●  → target
//! ```
//!
//! The solve is closed-form (law of cosines): the middle joint is placed in
//! the bend plane at the one spot that keeps both bone lengths and puts the
//! end on the target (or as close as the limb allows), then each joint is
//! rotated by the shortest arc onto its new direction. Only rotations are
//! written, so bone lengths are preserved exactly up to float rounding.

use zoa_anim_core::glam::{Quat, Vec3};
use zoa_anim_core::{Skeleton, Transform};

use crate::pose::{ModelPose, ModelTransform};

/// Below this length (model units) a bone or a direction counts as degenerate.
pub const EPSILON: f32 = 1e-6;

/// Tuning of one two-bone solve.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TwoBoneSettings {
    /// Model-space point the middle joint bends towards. `None` keeps the
    /// bend plane of the animated pose. Default `None`.
    pub pole: Option<Vec3>,
    /// Fallback bend direction (model space) when there is no pole and the
    /// animated limb is straight. Default `+Z` (glTF forward: knees bend forward).
    pub bend_hint: Vec3,
    /// Soft-limit band, model units (`>= 0`, default 0 = hard clamp). When the
    /// target is farther than `reach - soft`, the reach eases exponentially
    /// towards full extension instead of snapping straight.
    pub soft: f32,
    /// Blend with the animated pose, 0 ..= 1 (clamped; default 1).
    pub weight: f32,
}

impl Default for TwoBoneSettings {
    fn default() -> Self {
        TwoBoneSettings { pole: None, bend_hint: Vec3::Z, soft: 0.0, weight: 1.0 }
    }
}

/// Model-space corrections computed by [`solve_two_bone`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TwoBoneSolution {
    /// Rotation to apply to the upper joint, about `a`.
    pub upper_delta: Quat,
    /// Rotation to apply to the middle joint, about its new position.
    pub lower_delta: Quat,
    /// Where the middle joint ends up.
    pub middle: Vec3,
    /// Where the end joint ends up (the target, or the closest reachable point).
    pub end: Vec3,
    /// Whether the target was within reach (before any soft limit).
    pub reachable: bool,
}

/// Solves the chain `a → b → c` towards `target` at full weight.
///
/// Returns `None`, meaning "leave the pose alone", on degenerate input: any
/// non-finite value, or a bone shorter than [`EPSILON`]. A target at the
/// root keeps the animated direction and folds to the shortest reach.
/// Allocates nothing.
#[must_use]
pub fn solve_two_bone(a: Vec3, b: Vec3, c: Vec3, target: Vec3, settings: &TwoBoneSettings) -> Option<TwoBoneSolution> {
    if !(a.is_finite() && b.is_finite() && c.is_finite() && target.is_finite()) {
        return None;
    }
    let (ab, bc) = (b - a, c - b);
    let (lab, lbc) = (ab.length(), bc.length());
    if lab < EPSILON || lbc < EPSILON {
        return None;
    }
    let to_target = target - a;
    let dist = to_target.length();
    let dir = if dist > EPSILON { to_target / dist } else { (c - a).try_normalize().unwrap_or(ab / lab) };
    let (max_reach, min_reach) = (lab + lbc, (lab - lbc).abs());
    let reachable = dist <= max_reach * (1.0 + 1e-6) && dist >= min_reach * (1.0 - 1e-6);
    let mut d = dist;
    let soft = if settings.soft.is_finite() { settings.soft.clamp(0.0, max_reach) } else { 0.0 };
    if soft > 0.0 && d > max_reach - soft {
        let start = max_reach - soft;
        d = start + soft * (1.0 - (-(d - start) / soft).exp());
    }
    let d = d.clamp(min_reach, max_reach);

    // Bend plane: pole, else the animated bend, else the hint, else anything.
    let reject = |v: Vec3| (v - dir * v.dot(dir)).try_normalize();
    let bend = settings
        .pole
        .filter(|p| p.is_finite())
        .and_then(|p| reject(p - a))
        .or_else(|| {
            // The animated bend, measured against the animated a→c line and
            // swung with the chain onto the new direction.
            let ac = (c - a).try_normalize()?;
            let bend0 = (ab - ac * ab.dot(ac)).try_normalize()?;
            reject(Quat::from_rotation_arc(ac, dir) * bend0)
        })
        .or_else(|| Some(settings.bend_hint).filter(|h| h.is_finite()).and_then(reject))
        .unwrap_or_else(|| dir.any_orthonormal_vector());

    // Law of cosines: distance of the middle joint along `dir` and off it.
    // In f64: near full fold or full extension `lab² - x²` cancels
    // catastrophically, and the square root turns an f32 rounding error of
    // 1e-6 into a millimetre-scale sideways offset of the middle joint.
    let (lab64, lbc64, d64) = (f64::from(lab), f64::from(lbc), f64::from(d));
    let x64 = if d > EPSILON { (lab64 * lab64 - lbc64 * lbc64 + d64 * d64) / (2.0 * d64) } else { 0.0 };
    let (x, h) = (x64 as f32, (lab64 * lab64 - x64 * x64).max(0.0).sqrt() as f32);
    let middle = a + dir * x + bend * h;
    let end = a + dir * d;

    let upper_delta = Quat::from_rotation_arc(ab / lab, (middle - a) / lab);
    let c_after = a + upper_delta * (c - a);
    let lower_from = (c_after - middle).try_normalize()?;
    let lower_to = (end - middle).try_normalize()?;
    let lower_delta = Quat::from_rotation_arc(lower_from, lower_to);
    if !(upper_delta.is_finite() && lower_delta.is_finite()) {
        return None;
    }
    Some(TwoBoneSolution { upper_delta, lower_delta, middle, end, reachable })
}

/// Three joints of a skeleton forming a two-bone chain, or two joints and a
/// tip fixed in the second one's frame (a leg without a foot joint).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TwoBoneChain {
    /// Hip or shoulder joint.
    pub upper: u16,
    /// Knee or elbow joint (a descendant of `upper`).
    pub middle: u16,
    /// Ankle or wrist joint (a descendant of `middle`); equal to `middle`
    /// when the chain ends at a tip.
    pub end: u16,
    /// The end effector in `end`'s local space, like a child joint's
    /// translation; zero when the end joint itself is the effector.
    pub tip: Vec3,
}

impl TwoBoneChain {
    /// Checks the hierarchy once at set-up: `None` unless `middle` lies below
    /// `upper` and `end` below `middle`, all distinct and in range.
    #[must_use]
    pub fn new(skeleton: &Skeleton, upper: u16, middle: u16, end: u16) -> Option<TwoBoneChain> {
        let n = skeleton.joint_count();
        let (u, m, e) = (upper as usize, middle as usize, end as usize);
        let ok = u < n
            && m < n
            && e < n
            && u != m
            && m != e
            && skeleton.is_descendant_of(m, u)
            && skeleton.is_descendant_of(e, m);
        ok.then_some(TwoBoneChain { upper, middle, end, tip: Vec3::ZERO })
    }

    /// A chain ending at `tip`, a point in `middle`'s local space (the lower
    /// leg's tip when there is no foot joint). `None` unless `middle` lies
    /// below `upper`, both in range, and `tip` is finite and not zero.
    #[must_use]
    pub fn with_tip(skeleton: &Skeleton, upper: u16, middle: u16, tip: Vec3) -> Option<TwoBoneChain> {
        let n = skeleton.joint_count();
        let (u, m) = (upper as usize, middle as usize);
        let ok =
            u < n && m < n && u != m && skeleton.is_descendant_of(m, u) && tip.is_finite() && tip.length() > EPSILON;
        ok.then_some(TwoBoneChain { upper, middle, end: middle, tip })
    }

    /// Whether the chain ends at a tip rather than at a joint of its own.
    #[must_use]
    pub fn ends_at_tip(&self) -> bool {
        self.end == self.middle
    }

    /// The end effector in model space: the end joint's transform, moved to
    /// the tip when there is one (rotation and scale are the end joint's).
    #[must_use]
    pub fn effector(&self, model: &ModelPose) -> ModelTransform {
        let e = *model.get(self.end as usize);
        if self.tip == Vec3::ZERO {
            return e;
        }
        ModelTransform { position: e.position + e.rotation * (e.scale * self.tip), ..e }
    }
}

/// A two-bone solve on a skeleton's local pose (an ozz-style job: borrowed
/// inputs and outputs, no allocation).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TwoBoneIkJob {
    /// The chain (checked by [`TwoBoneChain::new`]).
    pub chain: TwoBoneChain,
    /// Where the end effector (end joint or tip) should go, model space.
    pub target: Vec3,
    /// Model-space rotation the end joint should take (foot aligned to the
    /// ground, hand to the grip); `None` keeps the animated orientation
    /// relative to the forearm / shin. Ignored by a chain ending at a tip.
    pub end_rotation: Option<Quat>,
    /// Pole, hint, soft limit and weight.
    pub settings: TwoBoneSettings,
}

impl TwoBoneIkJob {
    /// Runs the solve. `model` must hold the model-space transforms of
    /// `local` for the chain and its ancestors; on return the path from
    /// `upper` to `end` is up to date in `model` (other descendants, such as
    /// toes and fingers, are stale until the next [`ModelPose::update`]).
    ///
    /// Returns `false` and leaves the pose unchanged on degenerate input
    /// (non-finite target, zero-length bone, weight 0).
    ///
    /// # Panics
    /// Panics when the chain's joints are out of range for `local` / `model`.
    pub fn run(&self, skeleton: &Skeleton, local: &mut [Transform], model: &mut ModelPose) -> bool {
        let w = if self.settings.weight.is_finite() { self.settings.weight.clamp(0.0, 1.0) } else { 0.0 };
        if w <= 0.0 {
            return false;
        }
        let TwoBoneChain { upper, middle, end, .. } = self.chain;
        let (u, m, e) = (upper as usize, middle as usize, end as usize);
        let (a, b, c) = (model.get(u).position, model.get(m).position, self.chain.effector(model).position);
        let Some(sol) = solve_two_bone(a, b, c, self.target, &self.settings) else {
            return false;
        };
        let original = [local[u].rotation, local[m].rotation, local[e].rotation];
        model.rotate_joint(skeleton, local, u, sol.upper_delta);
        model.refresh_path(skeleton, local, u, m);
        model.rotate_joint(skeleton, local, m, sol.lower_delta);
        model.refresh_path(skeleton, local, m, e);
        // A tip belongs to the middle joint: its rotation is the solve's.
        if !self.chain.ends_at_tip()
            && let Some(r) = self.end_rotation.filter(|r| r.is_finite() && r.length_squared() > EPSILON)
        {
            model.set_model_rotation(skeleton, local, e, r.normalize());
        }
        if w < 1.0 {
            let joints = if self.chain.ends_at_tip() { &[u, m][..] } else { &[u, m, e][..] };
            for (&j, orig) in joints.iter().zip(original) {
                local[j].rotation = orig.slerp(local[j].rotation, w).normalize();
            }
            model.refresh_path(skeleton, local, u, e);
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reaches_a_reachable_target_and_keeps_lengths() {
        let (a, b, c) = (Vec3::ZERO, Vec3::new(0.0, -1.0, 0.1), Vec3::new(0.0, -2.0, 0.0));
        let t = Vec3::new(0.3, -1.2, 0.4);
        let s = solve_two_bone(a, b, c, t, &TwoBoneSettings::default()).unwrap();
        assert!(s.reachable);
        let b2 = a + s.upper_delta * (b - a);
        let c2 = b2 + s.lower_delta * (s.upper_delta * (c - b));
        assert!((c2 - t).length() < 1e-5, "{c2} vs {t}");
        assert!(((b2 - a).length() - (b - a).length()).abs() < 1e-5);
        assert!(((c2 - b2).length() - (c - b).length()).abs() < 1e-5);
        assert!(b2.z > 0.0, "knee keeps bending forward like the animated pose");
    }

    #[test]
    fn unreachable_targets_extend_fully_and_soft_limit_stays_short() {
        let (a, b, c) = (Vec3::ZERO, Vec3::new(0.0, -1.0, 0.1), Vec3::new(0.0, -2.0, 0.0));
        let reach = b.length() + (c - b).length();
        let far = Vec3::new(0.0, -5.0, 0.0);
        let s = solve_two_bone(a, b, c, far, &TwoBoneSettings::default()).unwrap();
        assert!(!s.reachable);
        assert!((s.end.length() - reach).abs() < 1e-5);
        let soft = TwoBoneSettings { soft: 0.1, ..Default::default() };
        let at_limit = solve_two_bone(a, b, c, Vec3::NEG_Y * reach, &soft).unwrap();
        assert!(at_limit.end.length() < reach - 0.01 && at_limit.end.length() > reach - 0.1);
        let mut prev = 0.0;
        for i in 0..50 {
            let d = reach - 0.2 + i as f32 * 0.01;
            let got = solve_two_bone(a, b, c, Vec3::NEG_Y * d, &soft).unwrap().end.length();
            assert!(got >= prev - 1e-6 && got <= reach + 1e-5, "soft reach grows monotonically up to full extension");
            prev = got;
        }
    }

    #[test]
    fn pole_and_hint_choose_the_bend_plane() {
        let (a, b, c) = (Vec3::ZERO, Vec3::new(0.0, -1.0, 0.0), Vec3::new(0.0, -2.0, 0.0));
        let t = Vec3::new(0.0, -1.5, 0.0);
        let hinted = solve_two_bone(a, b, c, t, &TwoBoneSettings::default()).unwrap();
        assert!(hinted.middle.z > 0.1, "straight limb bends along the hint");
        let poled = solve_two_bone(
            a,
            b,
            c,
            t,
            &TwoBoneSettings { pole: Some(Vec3::new(1.0, -1.0, 0.0)), ..Default::default() },
        )
        .unwrap();
        assert!(poled.middle.x > 0.1 && poled.middle.z.abs() < 1e-4);
    }

    #[test]
    fn degenerate_input_is_refused() {
        let s = TwoBoneSettings::default();
        let (a, b, c) = (Vec3::ZERO, Vec3::NEG_Y, Vec3::NEG_Y * 2.0);
        assert!(solve_two_bone(a, b, c, Vec3::NAN, &s).is_none());
        assert!(solve_two_bone(a, a, c, Vec3::X, &s).is_none());
        assert!(solve_two_bone(a, b, b, Vec3::X, &s).is_none());
        let at_root = solve_two_bone(a, b, c, a, &s).unwrap();
        assert!(at_root.end.is_finite() && at_root.middle.is_finite());
    }
}

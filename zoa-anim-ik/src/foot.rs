//! Foot plant: feet on the ground the caller probes, aligned to its normal,
//! the hips lowered when a foot cannot reach, faded out with speed.
//!
//! # Terminology
//! - **up**: the model's up axis (glTF +Y); heights are measured along it.
//! - **ground probe**: caller code answering "how high is the ground under
//!   this point, and which way does it face" ([`GroundProbe`]).
//! - **engagement**: 1 at rest, falling linearly to 0 as the normalised
//!   locomotion speed reaches `foot_plant_blend_in_speed`
//!   ([`foot_plant_weight`]); so feet do not drag at a sprint.
//!
//! ```text
//!   animated foot ●  height h above the model's ground plane (height 0)
//!                 │
//!   ground ───────┼──────  probe says height g, normal n
//!                 ▼
//!   target = (foot projected to height g) + n · h
//!   hips drop = the least that lets the longer-reaching leg touch its target
//! ```

use zoa_anim_core::glam::{Quat, Vec3};
use zoa_anim_core::{Skeleton, Transform};

use crate::pose::ModelPose;
use crate::two_bone::{TwoBoneChain, TwoBoneIkJob, TwoBoneSettings};

/// What a ground probe found under a point.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GroundHit {
    /// Ground height along the up axis, model units.
    pub height: f32,
    /// Ground normal, model space (normalised by the solver).
    pub normal: Vec3,
}

/// Answers "where is the ground under this model-space point".
///
/// Implementations run inside the runtime's parallel pass: they must not
/// allocate and should be cheap (a heightfield lookup, a cached raycast).
pub trait GroundProbe {
    /// The ground under `point` (model space), or `None` when there is none
    /// (the foot then keeps its animated placement).
    fn probe(&self, point: Vec3) -> Option<GroundHit>;

    /// The surface tag of the ground under `point` (`grass`, `metal`, …), for
    /// footstep sounds; `None` (the default) when the probe does not know.
    fn surface(&self, point: Vec3) -> Option<&str> {
        let _ = point;
        None
    }
}

impl<F: Fn(Vec3) -> Option<GroundHit>> GroundProbe for F {
    fn probe(&self, point: Vec3) -> Option<GroundHit> {
        self(point)
    }
}

/// A flat plane at a height (handy for tests and flat worlds).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FlatGround {
    /// Height along up, model units.
    pub height: f32,
    /// Plane normal.
    pub normal: Vec3,
}

impl GroundProbe for FlatGround {
    fn probe(&self, _point: Vec3) -> Option<GroundHit> {
        Some(GroundHit { height: self.height, normal: self.normal })
    }
}

/// Engagement of foot planting at `speed` (normalised locomotion speed,
/// 0 ..= 1): 1 at rest, linearly down to 0 at `blend_in_speed`, 0 beyond.
/// A `blend_in_speed <= 0` engages only at a standstill.
#[must_use]
pub fn foot_plant_weight(speed: f32, blend_in_speed: f32) -> f32 {
    let speed = if speed.is_finite() { speed.max(0.0) } else { return 0.0 };
    if !(blend_in_speed.is_finite() && blend_in_speed > 0.0) {
        return if speed <= 0.0 { 1.0 } else { 0.0 };
    }
    (1.0 - speed / blend_in_speed).clamp(0.0, 1.0)
}

/// Frame-to-frame foot-plant state of one character, and what its last
/// step aimed at (read by [`crate::RigIk::report`]).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct FootPlantState {
    /// Current hips drop along -up, model units (smoothed).
    pub hips_drop: f32,
    /// Where the last step placed each foot's effector, model space, indexed
    /// by [`crate::roles::Side::index`]; `None` where the probe found no ground.
    pub targets: [Option<Vec3>; 2],
    /// Engagement of the last step, 0 ..= 1 (0: the feet were left as animated).
    pub weight: f32,
}

/// One leg for foot planting.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PlantLeg {
    /// Thigh, shin and foot (or the shin's tip when the leg has no foot).
    pub chain: TwoBoneChain,
}

/// One foot-plant step for both legs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FootPlantJob {
    /// The hips joint (moved down when a foot cannot reach).
    pub hips: u16,
    /// Left and right legs.
    pub legs: [PlantLeg; 2],
    /// Model up axis (unit; default glTF +Y).
    pub up: Vec3,
    /// Direction knees bend towards when a leg is straight (model forward).
    pub knee_hint: Vec3,
    /// Engagement, 0 ..= 1 (see [`foot_plant_weight`]).
    pub weight: f32,
    /// Largest hips drop, model units (`>= 0`).
    pub max_hips_drop: f32,
    /// Time constant of the hips-drop smoothing, seconds (`>= 0`; 0 = instant).
    pub hips_smoothing: f32,
    /// Seconds since the last step (`>= 0`).
    pub dt: f32,
}

impl FootPlantJob {
    /// Plants both feet. `model` must be up to date for `local`; on return
    /// it is up to date except below the feet (toes). Returns whether the
    /// pose changed. Allocates nothing.
    ///
    /// Non-finite probe answers are ignored for that foot.
    ///
    /// # Panics
    /// Panics when joints are out of range.
    pub fn run(
        &self,
        skeleton: &Skeleton,
        local: &mut [Transform],
        model: &mut ModelPose,
        ground: &dyn GroundProbe,
        state: &mut FootPlantState,
    ) -> bool {
        self.run_refreshing(skeleton, local, model, ground, state, None)
    }

    /// [`FootPlantJob::run`]; when `below_hips` is given, a hips drop moves
    /// only those joints of `model`, by the hips' own move, instead of
    /// recomputing the whole pose: every descendant of the hips the caller
    /// keeps current, the legs included (what [`crate::RigIk`] keeps). A
    /// translation of the hips moves its descendants by the same model-space
    /// offset and turns none, so this is the recomputation up to rounding;
    /// the other joints go stale.
    pub(crate) fn run_refreshing(
        &self,
        skeleton: &Skeleton,
        local: &mut [Transform],
        model: &mut ModelPose,
        ground: &dyn GroundProbe,
        state: &mut FootPlantState,
        below_hips: Option<&[u16]>,
    ) -> bool {
        let Some(up) = self.up.try_normalize() else {
            (state.targets, state.weight) = ([None; 2], 0.0);
            return false;
        };
        let w = if self.weight.is_finite() { self.weight.clamp(0.0, 1.0) } else { 0.0 };
        let dt = if self.dt.is_finite() { self.dt.max(0.0) } else { 0.0 };
        // Targets from the animated pose.
        let mut targets: [Option<(Vec3, Quat)>; 2] = [None; 2];
        let mut wanted_drop = 0.0f32;
        for (slot, leg) in targets.iter_mut().zip(self.legs) {
            let (u, m) = (leg.chain.upper as usize, leg.chain.middle as usize);
            let foot = leg.chain.effector(model);
            let Some(hit) = ground.probe(foot.position) else { continue };
            let Some(normal) = hit.normal.try_normalize().filter(|_| hit.height.is_finite()) else { continue };
            let normal = if normal.dot(up) < 0.0 { -normal } else { normal };
            let h = foot.position.dot(up);
            let target = foot.position - up * h + up * hit.height + normal * h;
            let rotation = Quat::from_rotation_arc(up, normal) * foot.rotation;
            *slot = Some((target, rotation));
            // How far the hips must come down for this leg to reach.
            let (a, b) = (model.get(u).position, model.get(m).position);
            let reach = ((b - a).length() + (foot.position - b).length()) * 0.999;
            let r = target - a;
            let along = r.dot(up);
            let across2 = (r - up * along).length_squared();
            let need = if across2 < reach * reach { -along - (reach * reach - across2).sqrt() } else { -along };
            if need.is_finite() {
                wanted_drop = wanted_drop.max(need);
            }
        }
        state.targets = targets.map(|t| t.map(|(position, _)| position));
        state.weight = w;
        let max_drop = if self.max_hips_drop.is_finite() { self.max_hips_drop.max(0.0) } else { 0.0 };
        let desired = wanted_drop.clamp(0.0, max_drop) * w;
        state.hips_drop = if self.hips_smoothing > 0.0 && self.hips_smoothing.is_finite() {
            state.hips_drop + (desired - state.hips_drop) * (1.0 - (-dt / self.hips_smoothing).exp())
        } else {
            desired
        };
        if !state.hips_drop.is_finite() {
            state.hips_drop = 0.0;
        }
        let mut changed = false;
        if state.hips_drop.abs() > 1e-7 {
            let hips = self.hips as usize;
            let before = model.get(hips).position;
            model.translate_joint(skeleton, local, hips, -up * state.hips_drop);
            match below_hips {
                Some(joints) => model.shift_joints(joints, model.get(hips).position - before),
                None => model.update(skeleton, local),
            }
            changed = true;
        }
        if w <= 0.0 {
            return changed;
        }
        for (target, leg) in targets.into_iter().zip(self.legs) {
            let Some((position, rotation)) = target else { continue };
            let job = TwoBoneIkJob {
                chain: leg.chain,
                target: position,
                end_rotation: Some(rotation),
                settings: TwoBoneSettings { pole: None, bend_hint: self.knee_hint, soft: 0.0, weight: w },
            };
            changed |= job.run(skeleton, local, model);
        }
        changed
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use zoa_test_support::skeletons::{humanoid, rest_pose};

    #[test]
    fn a_hips_drop_shifts_what_is_below_as_recomputing_would() {
        let s = humanoid();
        let leg = |[u, m, e]: [u16; 3]| PlantLeg { chain: TwoBoneChain::new(&s, u, m, e).unwrap() };
        let job = FootPlantJob {
            hips: 0,
            legs: [leg([6, 7, 8]), leg([10, 11, 12])],
            up: Vec3::Y,
            knee_hint: Vec3::Z,
            weight: 1.0,
            max_hips_drop: 0.5,
            hips_smoothing: 0.0,
            dt: 1.0 / 60.0,
        };
        let mut local = rest_pose(&s);
        local[1].rotation = Quat::from_rotation_x(0.3);
        local[7].rotation = Quat::from_rotation_z(0.2);
        let below: Vec<u16> = s.eval_order().iter().copied().filter(|&j| j != 0).collect();
        let ground = FlatGround { height: -0.15, normal: Vec3::new(0.1, 1.0, 0.0) };
        let (mut shifted_local, mut recomputed_local) = (local.clone(), local.clone());
        let (mut shifted, mut recomputed) = (ModelPose::new(s.joint_count()), ModelPose::new(s.joint_count()));
        shifted.update(&s, &local);
        recomputed.update(&s, &local);
        let (mut a, mut b) = (FootPlantState::default(), FootPlantState::default());
        assert!(job.run_refreshing(&s, &mut shifted_local, &mut shifted, &ground, &mut a, Some(&below)));
        assert!(job.run_refreshing(&s, &mut recomputed_local, &mut recomputed, &ground, &mut b, None));
        assert!(a.hips_drop > 0.1, "the hips came down: {}", a.hips_drop);
        assert_eq!(a, b);
        for j in 0..s.joint_count() {
            let (x, y) = (shifted.get(j), recomputed.get(j));
            assert!(x.position.abs_diff_eq(y.position, 1e-6), "joint {j}: {} vs {}", x.position, y.position);
            assert!(x.rotation.abs_diff_eq(y.rotation, 1e-6), "joint {j}");
            let (l, r) = (shifted_local[j], recomputed_local[j]);
            assert!(l.translation.abs_diff_eq(r.translation, 1e-6) && l.rotation.abs_diff_eq(r.rotation, 1e-6));
        }
    }

    #[test]
    fn engagement_follows_the_blend_in_speed() {
        assert_eq!(foot_plant_weight(0.0, 0.5), 1.0);
        assert_eq!(foot_plant_weight(0.25, 0.5), 0.5);
        assert_eq!(foot_plant_weight(0.5, 0.5), 0.0);
        assert_eq!(foot_plant_weight(1.0, 0.5), 0.0);
        assert_eq!(foot_plant_weight(0.0, 0.0), 1.0);
        assert_eq!(foot_plant_weight(0.1, 0.0), 0.0);
        assert_eq!(foot_plant_weight(f32::NAN, 0.5), 0.0);
        let mut prev = 1.0;
        for i in 0..=100 {
            let w = foot_plant_weight(i as f32 / 100.0, 0.7);
            assert!(w <= prev);
            prev = w;
        }
    }
}

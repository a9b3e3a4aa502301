//! The rig-policy IK pass: every enabled and available behaviour of a
//! [`RigPolicy`], applied in place to one character's local pose.
//!
//! # How the runtime calls it
//!
//! ```text
//! set-up (once per skeleton × policy, allocates):
//!     let (rig_ik, roles, problems) = RigIk::for_policy(&skeleton, &policy);
//! per instance (once, allocates):
//!     let mut ctx = rig_ik.new_context();
//!     let mut inputs = IkInputs::default();
//! per frame, after blending, inside the parallel pass (allocates nothing):
//!     inputs.look_target = Some(target);
//!     inputs.chain_targets[tail] = Some(tail_target); // tail = rig_ik.chain_index("tail"), once
//!     rig_ik.apply(&skeleton, &mut local_pose, &mut ctx, &inputs, dt)?;
//!     // then local → model → skinning as usual
//! ```
//!
//! `RigIk` is immutable and `Sync`: share one per skeleton × policy across
//! threads. `IkContext` is the per-instance, frame-to-frame state (look-at
//! offset, smoothed hips drop) plus the model-space scratch; keep one per
//! character and never share it between characters.
//!
//! Order inside [`RigIk::apply`]: foot plant (it moves the hips, and so
//! everything above them), then the policy's chains in declaration order
//! (a spine chain carries the head and the shoulders), then look-at (it may
//! turn the spine, which carries the shoulders), then hand on weapon and
//! climb hand last, so hands land exactly on their targets; arms never carry
//! the head, so the head stays where look-at put it.

use std::f32::consts::PI;
use std::sync::Arc;

use zoa_anim_core::contracts::{PoseSnapshot, PoseSpace, PoseTargetData};
use zoa_anim_core::glam::{Quat, Vec3};
use zoa_anim_core::{IKTargetId, RigPolicy, Skeleton, Transform};

use crate::IkError;
use crate::aim::{LookAtChain, LookAtJob, LookAtState};
use crate::foot::{FootPlantJob, FootPlantState, GroundProbe, PlantLeg, foot_plant_weight};
use crate::pose::ModelPose;
use crate::roles::{BoneRoles, PolicyKind, Side};
use crate::two_bone::{TwoBoneChain, TwoBoneIkJob, TwoBoneSettings};

mod chains;

use chains::RigChains;
pub use chains::{ChainAvailability, MAX_RIG_CHAINS, chain_availability};

mod report;
pub use report::{ChainGoal, IkGoal, IkReport, MAX_IK_GOALS};

/// Grip target of the left hand in an IK pose snapshot.
pub const LEFT_HAND_GRIP: IKTargetId = IKTargetId::from_static("left_hand_grip");
/// Grip target of the right hand in an IK pose snapshot.
pub const RIGHT_HAND_GRIP: IKTargetId = IKTargetId::from_static("right_hand_grip");

/// Tuning shared by every character using one [`RigIk`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RigIkSettings {
    /// Model up axis (unit). Default glTF `+Y`.
    pub up: Vec3,
    /// Model forward axis: where the character faces (unit). Default glTF `+Z`.
    pub forward: Vec3,
    /// Largest look-at turn per second, radians (`> 0`). Default `2π` (a full
    /// turn per second, quick but never a snap).
    pub look_max_speed: f32,
    /// How the look-at turn is shared by spine top, neck and head (normalised
    /// over the bones present). Default `[0.2, 0.3, 0.5]`.
    pub look_weights: [f32; 3],
    /// Soft-limit band of the hand solvers, fraction of arm length (0 ..= 1).
    /// Default 0.02.
    pub arm_soft_fraction: f32,
    /// Largest hips drop, fraction of leg length (0 ..= 1). Default 0.5.
    pub max_hips_drop_fraction: f32,
    /// Time constant of hips-drop smoothing, seconds (`>= 0`). Default 0.1.
    pub hips_smoothing: f32,
}

impl Default for RigIkSettings {
    fn default() -> Self {
        RigIkSettings {
            up: Vec3::Y,
            forward: Vec3::Z,
            look_max_speed: 2.0 * PI,
            look_weights: [0.2, 0.3, 0.5],
            arm_soft_fraction: 0.02,
            max_hips_drop_fraction: 0.5,
            hips_smoothing: 0.1,
        }
    }
}

impl RigIkSettings {
    /// Defaults with `up` and `forward` read from the rest pose when the
    /// roles allow: up from the feet (or the lower legs' tips) towards the
    /// upper legs (or the hips; or from the hips towards the head), left from
    /// the right thigh to the left one, forward = left × up. Rigs whose model
    /// space is not glTF's (a Z-up export under a rotated node) then still work.
    #[must_use]
    pub fn from_rest(skeleton: &Skeleton, roles: &BoneRoles) -> RigIkSettings {
        let mut s = RigIkSettings::default();
        let rest_pose: Vec<Transform> = skeleton.rest_pose().collect();
        let mut model = ModelPose::new(skeleton.joint_count());
        model.update(skeleton, &rest_pose);
        let pos = |j: Option<u16>| j.map(|j| model.get(j as usize).position);
        let end = |side: Side| leg_chain(skeleton, roles, side).map(|c| c.effector(&model).position);
        let feet = match (end(Side::Left), end(Side::Right)) {
            (Some(l), Some(r)) => Some((l + r) * 0.5),
            _ => None,
        };
        let thighs = match (pos(roles.legs[0].upper), pos(roles.legs[1].upper)) {
            (Some(l), Some(r)) => Some((l + r) * 0.5),
            _ => None,
        };
        // Feet → thighs (or hips) is the straightest "up" of a rest pose;
        // hips → head otherwise (heads often sit a little forward).
        let up = match (thighs.or(pos(roles.hips)), feet, pos(roles.head.or(roles.neck))) {
            (Some(top), Some(feet), _) => (top - feet).try_normalize(),
            (_, None, Some(head)) => pos(roles.hips).and_then(|hips| (head - hips).try_normalize()),
            _ => None,
        };
        if let Some(up) = up {
            s.up = up;
        }
        if let (Some(l), Some(r)) = (pos(roles.legs[0].upper), pos(roles.legs[1].upper)) {
            let left = (l - r) - s.up * (l - r).dot(s.up);
            if let Some(fwd) = left.cross(s.up).try_normalize() {
                s.forward = fwd;
            }
        }
        s
    }
}

/// An effector target: a hand's, supplied by the caller (ledge) or taken
/// from the IK pose, or a chain tip's ([`IkInputs::chain_targets`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HandTarget {
    /// Wrist (or chain tip) position, model space.
    pub position: Vec3,
    /// Hand (or tip) rotation, model space; `None` keeps the animated orientation.
    pub rotation: Option<Quat>,
    /// 0 ..= 1.
    pub weight: f32,
}

/// What the game tells one character's IK each frame: the one IK input
/// type (the runtime's characters own one each and expose it as it is).
/// Sized once; write it in place between frames.
#[derive(Clone)]
pub struct IkInputs {
    /// Normalised locomotion speed, 0 (rest) ..= 1 (fastest); default 0.
    /// Foot planting fades out as it reaches the policy's
    /// `foot_plant_blend_in_speed`.
    pub locomotion_speed: f32,
    /// Ground under the feet (model space); `None` (default) skips foot
    /// planting. An `Arc` so many characters can share one world query.
    pub ground: Option<Arc<dyn GroundProbe + Send + Sync>>,
    /// Look target, model space; `None` (default) returns the head to neutral.
    pub look_target: Option<Vec3>,
    /// IK pose of the equipped item (from the IK pose service); its
    /// [`LEFT_HAND_GRIP`] / [`RIGHT_HAND_GRIP`] targets drive hand on weapon
    /// (a target in a joint's frame, such as a grip in the frame of the hand
    /// holding the item, is placed by that joint after foot plant and
    /// look-at, see [`hand_target`]). Default `None`. Update it in place
    /// (`clone_from`, `PoseSnapshot::set_target`, `blend_into`) to stay
    /// allocation-free.
    pub weapon_pose: Option<PoseSnapshot>,
    /// Ledge targets for climb hand, model space, indexed by [`Side::index`];
    /// default none.
    pub ledge_targets: [Option<HandTarget>; 2],
    /// Tip targets of the rig policy's chains, model space, indexed by the
    /// chain's position in the policy's `chains` ([`RigIk::chain_index`]);
    /// the target's weight scales the chain's. `None` (default) leaves the
    /// chain as animated.
    pub chain_targets: [Option<HandTarget>; MAX_RIG_CHAINS],
    /// Scales hand on weapon, `0..=1` (clamped; default 1): an animation lets
    /// go of the weapon with it (a runtime character writes its clips' float
    /// curve `ik.hand_on_weapon` here every frame when they carry one).
    pub hand_on_weapon_weight: f32,
}

impl Default for IkInputs {
    fn default() -> Self {
        IkInputs {
            locomotion_speed: 0.0,
            ground: None,
            look_target: None,
            weapon_pose: None,
            ledge_targets: [None; 2],
            chain_targets: [None; MAX_RIG_CHAINS],
            hand_on_weapon_weight: 1.0,
        }
    }
}

impl std::fmt::Debug for IkInputs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IkInputs")
            .field("locomotion_speed", &self.locomotion_speed)
            .field("ground", &self.ground.as_ref().map(|_| "dyn GroundProbe"))
            .field("look_target", &self.look_target)
            .field("weapon_pose", &self.weapon_pose)
            .field("ledge_targets", &self.ledge_targets)
            .field("chain_targets", &self.chain_targets)
            .field("hand_on_weapon_weight", &self.hand_on_weapon_weight)
            .finish()
    }
}

/// Per-character IK state and scratch, sized once by [`RigIk::new_context`].
#[derive(Debug, Clone, PartialEq)]
pub struct IkContext {
    /// Model-space scratch.
    pub model: ModelPose,
    /// Look-at offset.
    pub look: LookAtState,
    /// Smoothed hips drop.
    pub feet: FootPlantState,
    /// The weapon grips (left, right) the last apply reached for, in model
    /// space: a grip in a joint's frame is placed where that joint was before
    /// the hands moved, so [`RigIk::report`] measures against what was aimed at.
    pub grips: [Option<HandTarget>; 2],
}

/// The rig policy's IK, compiled for one skeleton.
#[derive(Debug, Clone, PartialEq)]
pub struct RigIk {
    joint_count: usize,
    settings: RigIkSettings,
    foot_plant: Option<(u16, [PlantLeg; 2], f32)>,
    blend_in_speed: f32,
    look: Option<LookAtChain>,
    fov: f32,
    arms: [Option<(TwoBoneChain, f32)>; 2],
    hand_on_weapon: bool,
    climb_hand: bool,
    chains: RigChains,
    /// The joints whose model-space transforms the behaviours read, with
    /// every ancestor, in evaluation order: the only ones each model-space
    /// refresh computes ([`ModelPose::update_joints`]).
    model_joints: Vec<u16>,
    /// Per joint: whether it is in `model_joints`.
    in_model: Vec<bool>,
    /// The joints of `model_joints` at or below a joint of the look-at
    /// chain, in evaluation order: all that look-at can move, so all a
    /// refresh after it needs.
    below_look: Vec<u16>,
    /// The joints of `model_joints` strictly below the foot plant's hips,
    /// in evaluation order: what a hips drop moves.
    below_hips: Vec<u16>,
}

/// `seeds` and every ancestor of theirs, in `skeleton`'s evaluation order,
/// and per joint whether it is among them.
fn ancestor_closure(skeleton: &Skeleton, seeds: impl IntoIterator<Item = u16>) -> (Vec<u16>, Vec<bool>) {
    let mut needed = vec![false; skeleton.joint_count()];
    for seed in seeds {
        let mut at = Some(usize::from(seed));
        while let Some(k) = at.filter(|&k| k < needed.len() && !needed[k]) {
            needed[k] = true;
            at = skeleton.parent(k);
        }
    }
    let order = skeleton.eval_order().iter().copied().filter(|&j| needed[usize::from(j)]).collect();
    (order, needed)
}

/// Whether `top` is `j` or one of its ancestors.
fn is_at_or_below(skeleton: &Skeleton, j: usize, top: usize) -> bool {
    let mut at = Some(j);
    while let Some(k) = at {
        if k == top {
            return true;
        }
        at = skeleton.parent(k);
    }
    false
}

/// Thigh, shin and foot; or thigh, shin and the shin's tip when the leg has no foot.
fn leg_chain(skeleton: &Skeleton, roles: &BoneRoles, side: Side) -> Option<TwoBoneChain> {
    let l = roles.legs[side.index()];
    match (l.foot, l.tip) {
        (Some(foot), _) => TwoBoneChain::new(skeleton, l.upper?, l.lower?, foot),
        (None, Some(tip)) if Some(tip.joint) == l.lower => {
            TwoBoneChain::with_tip(skeleton, l.upper?, tip.joint, tip.offset)
        }
        _ => None,
    }
}

/// A pose target as a hand target in model space: a target in a joint's
/// frame ([`PoseSpace::Joint`]) is placed by that joint's transform in
/// `model`, and its weight is scaled by the snapshot's `weight`. `None` for a
/// joint out of range. Allocates nothing.
#[must_use]
pub fn hand_target(t: &PoseTargetData, weight: f32, model: &ModelPose) -> Option<HandTarget> {
    let position = Vec3::from_array(t.position);
    let rotation = t.rotation.map(Quat::from_array);
    let (position, rotation) = match t.space {
        PoseSpace::Model => (position, rotation),
        PoseSpace::Joint(j) => {
            let frame = model.as_slice().get(usize::from(j))?;
            (frame.position + frame.rotation * (frame.scale * position), rotation.map(|r| frame.rotation * r))
        }
    };
    Some(HandTarget { position, rotation, weight: t.weight * weight })
}

fn arm_chain(skeleton: &Skeleton, roles: &BoneRoles, side: Side) -> Option<TwoBoneChain> {
    let a = roles.arms[side.index()];
    TwoBoneChain::new(skeleton, a.upper?, a.forearm?, a.hand?)
}

fn chain_length(rest: &ModelPose, c: TwoBoneChain) -> f32 {
    let p = |j: u16| rest.get(j as usize).position;
    (p(c.middle) - p(c.upper)).length() + (c.effector(rest).position - p(c.middle)).length()
}

impl RigIk {
    /// The one way a rig policy is compiled for a skeleton (set-up time;
    /// allocates): bone roles discovered with the policy's overrides, up and
    /// forward read from the rest pose ([`RigIkSettings::from_rest`]), then
    /// [`RigIk::new`]. Returns the roles too (a caller may need more of
    /// them) and the overrides naming an unknown role or bone, which are
    /// skipped (the rest of the policy still works).
    #[must_use]
    pub fn for_policy(skeleton: &Skeleton, policy: &RigPolicy) -> (RigIk, BoneRoles, Vec<IkError>) {
        let (roles, problems) = BoneRoles::discover_with_overrides(skeleton, policy);
        let rig = RigIk::new(skeleton, policy, &roles, RigIkSettings::from_rest(skeleton, &roles));
        (rig, roles, problems)
    }

    /// Compiles the policy for a skeleton with roles and settings of the
    /// caller's (set-up time; allocates). A
    /// behaviour that is disabled in `policy`, or whose bones `roles` lacks
    /// (or whose bones do not form a chain), is left out silently; see
    /// [`RigIk::is_active`] and [`BoneRoles::availability`]; so is a chain
    /// of `policy.chains` that does not compile ([`RigIk::chains`]).
    pub fn new(skeleton: &Skeleton, policy: &RigPolicy, roles: &BoneRoles, settings: RigIkSettings) -> RigIk {
        let rest_pose: Vec<Transform> = skeleton.rest_pose().collect();
        let mut rest = ModelPose::new(skeleton.joint_count());
        rest.update(skeleton, &rest_pose);
        let foot_plant = if policy.foot_plant && roles.is_available(PolicyKind::FootPlant) {
            match (roles.hips, leg_chain(skeleton, roles, Side::Left), leg_chain(skeleton, roles, Side::Right)) {
                (Some(h), Some(l), Some(r)) => {
                    let len = chain_length(&rest, l).max(chain_length(&rest, r));
                    Some((h, [PlantLeg { chain: l }, PlantLeg { chain: r }], len))
                }
                _ => None,
            }
        } else {
            None
        };
        let look = if policy.look_at && roles.is_available(PolicyKind::LookAt) {
            roles.head.and_then(|head| {
                let mut joints = Vec::with_capacity(3);
                let [ws, wn, wh] = settings.look_weights;
                if let Some(&top) = roles.spine.last() {
                    joints.push((top, ws));
                }
                if let Some(n) = roles.neck.filter(|&n| n != head) {
                    joints.push((n, wn));
                }
                joints.push((head, wh));
                // Head forward in head-local space, from the rest pose.
                let forward_local = rest.get(head as usize).rotation.inverse() * settings.forward;
                LookAtChain::new(&joints, forward_local)
            })
        } else {
            None
        };
        let hands = (policy.hand_on_weapon || policy.climb_hand) && roles.is_available(PolicyKind::HandOnWeapon);
        let arms = Side::BOTH
            .map(|side| hands.then(|| arm_chain(skeleton, roles, side)).flatten().map(|c| (c, chain_length(&rest, c))));
        let arms_ok = arms.iter().all(Option::is_some);
        let chains = RigChains::compile(skeleton, policy);
        let two_bone = |c: &TwoBoneChain| [c.upper, c.middle, c.end];
        let seeds = foot_plant
            .iter()
            .flat_map(|(hips, legs, _)| std::iter::once(*hips).chain(legs.iter().flat_map(|l| two_bone(&l.chain))))
            .chain(look.iter().flat_map(|l| l.iter().map(|(j, _)| j)))
            .chain(arms.iter().flatten().flat_map(|(c, _)| two_bone(c)))
            .chain(chains.joints());
        let (model_joints, in_model) = ancestor_closure(skeleton, seeds);
        let below_look = look.map_or_else(Vec::new, |l| {
            let moved = |j: u16| l.iter().any(|(top, _)| is_at_or_below(skeleton, usize::from(j), usize::from(top)));
            model_joints.iter().copied().filter(|&j| moved(j)).collect()
        });
        let below_hips = foot_plant.map_or_else(Vec::new, |(hips, _, _)| {
            let hips = usize::from(hips);
            let below = |j: u16| usize::from(j) != hips && is_at_or_below(skeleton, usize::from(j), hips);
            model_joints.iter().copied().filter(|&j| below(j)).collect()
        });
        RigIk {
            joint_count: skeleton.joint_count(),
            settings,
            foot_plant,
            blend_in_speed: policy.foot_plant_blend_in_speed,
            look,
            fov: policy.look_at_fov_degrees.to_radians(),
            arms,
            hand_on_weapon: policy.hand_on_weapon && arms_ok,
            climb_hand: policy.climb_hand && arms_ok,
            chains,
            model_joints,
            in_model,
            below_look,
            below_hips,
        }
    }

    /// Whether the behaviour is enabled by the policy and has its bones.
    #[must_use]
    pub fn is_active(&self, kind: PolicyKind) -> bool {
        match kind {
            PolicyKind::FootPlant => self.foot_plant.is_some(),
            PolicyKind::LookAt => self.look.is_some(),
            PolicyKind::HandOnWeapon => self.hand_on_weapon,
            PolicyKind::ClimbHand => self.climb_hand,
        }
    }

    /// Every chain the policy declares, in order: whether it compiled for
    /// this skeleton and, if not, why.
    #[must_use]
    pub fn chains(&self) -> &[ChainAvailability] {
        self.chains.report()
    }

    /// The index of the chain called `name` (into
    /// [`IkInputs::chain_targets`]), compiled or not.
    #[must_use]
    pub fn chain_index(&self, name: &str) -> Option<usize> {
        self.chains.index(name)
    }

    /// How many chains compiled (and so run when given a target).
    #[must_use]
    pub fn active_chain_count(&self) -> usize {
        self.chains.active()
    }

    /// The settings in use.
    #[must_use]
    pub fn settings(&self) -> &RigIkSettings {
        &self.settings
    }

    /// Fresh per-character state (allocates the model-space scratch once).
    #[must_use]
    pub fn new_context(&self) -> IkContext {
        IkContext {
            model: ModelPose::new(self.joint_count),
            look: LookAtState::default(),
            feet: FootPlantState::default(),
            grips: [None; 2],
        }
    }

    /// The joints of `local` that [`RigIk::apply`] reads or writes with
    /// `input`, in evaluation order, or `None` when it may read any joint
    /// (a weapon grip given in the frame of a joint outside the rig's set).
    /// A caller that keeps the pose in another layout copies only these in
    /// and out; the rest of `local` may hold anything.
    #[must_use]
    pub fn local_joints(&self, input: &IkInputs) -> Option<&[u16]> {
        let outside = |id| {
            input.weapon_pose.as_ref().and_then(|p| p.target(id)).is_some_and(|t| {
                matches!(t.space, PoseSpace::Joint(j) if !self.in_model.get(usize::from(j)).copied().unwrap_or(true))
            })
        };
        if self.hand_on_weapon && (outside(LEFT_HAND_GRIP) || outside(RIGHT_HAND_GRIP)) {
            return None;
        }
        Some(&self.model_joints)
    }

    /// Applies every active behaviour to `local` in place. Allocates nothing.
    ///
    /// Errors only when `local` or `ctx` was sized for another skeleton; bad
    /// per-frame inputs (NaN targets, missing ground) skip the behaviour
    /// they feed and leave the pose as animated.
    pub fn apply(
        &self,
        skeleton: &Skeleton,
        local: &mut [Transform],
        ctx: &mut IkContext,
        input: &IkInputs,
        dt: f32,
    ) -> Result<(), IkError> {
        for len in [local.len(), ctx.model.len()] {
            if len != self.joint_count || skeleton.joint_count() != self.joint_count {
                return Err(IkError::ContextMismatch { context: len, skeleton: skeleton.joint_count() });
            }
        }
        let s = &self.settings;
        let joints = &self.model_joints;
        ctx.model.update_joints(skeleton, local, joints);
        if let (Some((hips, legs, leg_len)), Some(ground)) = (self.foot_plant, input.ground.as_deref()) {
            let job = FootPlantJob {
                hips,
                legs,
                up: s.up,
                knee_hint: s.forward,
                weight: foot_plant_weight(input.locomotion_speed, self.blend_in_speed),
                max_hips_drop: leg_len * s.max_hips_drop_fraction.clamp(0.0, 1.0),
                hips_smoothing: s.hips_smoothing,
                dt,
            };
            // Leaves the model pose current everywhere but below the feet.
            job.run_refreshing(skeleton, local, &mut ctx.model, ground, &mut ctx.feet, Some(&self.below_hips));
        }
        if self.chains.apply(skeleton, local, &mut ctx.model, joints, &input.chain_targets) {
            ctx.model.update_joints(skeleton, local, joints);
        }
        if let Some(chain) = self.look {
            let job = LookAtJob {
                chain,
                target: input.look_target,
                fov_half_angle: self.fov,
                max_angular_speed: s.look_max_speed,
                dt,
                weight: 1.0,
            };
            let hands_next = (self.hand_on_weapon && input.weapon_pose.is_some())
                || (self.climb_hand && input.ledge_targets.iter().any(Option::is_some));
            // The spine may have turned under the shoulders: refresh for the hands.
            if job.run(skeleton, local, &mut ctx.model, &mut ctx.look) && hands_next {
                ctx.model.update_joints(skeleton, local, &self.below_look);
            }
        }
        ctx.grips = [None; 2];
        if self.hand_on_weapon
            && let Some(pose) = &input.weapon_pose
        {
            let on_weapon = input.hand_on_weapon_weight.clamp(0.0, 1.0);
            // A grip in the frame of a joint the rig does not read otherwise.
            for t in [LEFT_HAND_GRIP, RIGHT_HAND_GRIP].map(|id| pose.target(id)) {
                if let Some(PoseSpace::Joint(j)) = t.map(|t| t.space)
                    && usize::from(j) < self.joint_count
                {
                    ctx.model.refresh_outside(skeleton, local, usize::from(j), |k| self.in_model[k]);
                }
            }
            // Both targets before either hand moves: a grip in the frame of
            // the hand holding the item is read from the pose as it is now.
            let targets = [LEFT_HAND_GRIP, RIGHT_HAND_GRIP]
                .map(|id| pose.target(id).and_then(|t| hand_target(t, pose.weight * on_weapon, &ctx.model)));
            ctx.grips = targets;
            for (side, target) in Side::BOTH.into_iter().zip(targets) {
                if let Some(target) = target {
                    self.reach(skeleton, local, &mut ctx.model, side, &target);
                }
            }
        }
        if self.climb_hand {
            for side in Side::BOTH {
                if let Some(t) = &input.ledge_targets[side.index()] {
                    self.reach(skeleton, local, &mut ctx.model, side, t);
                }
            }
        }
        Ok(())
    }

    fn reach(
        &self,
        skeleton: &Skeleton,
        local: &mut [Transform],
        model: &mut ModelPose,
        side: Side,
        t: &HandTarget,
    ) -> bool {
        let Some((chain, len)) = self.arms[side.index()] else {
            return false;
        };
        let job = TwoBoneIkJob {
            chain,
            target: t.position,
            end_rotation: t.rotation,
            settings: TwoBoneSettings {
                pole: None,
                bend_hint: -self.settings.forward,
                soft: len * self.settings.arm_soft_fraction.clamp(0.0, 1.0),
                weight: t.weight,
            },
        };
        job.run(skeleton, local, model)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::foot::GroundHit;
    use zoa_anim_core::RigChain;
    use zoa_anim_core::contracts::PoseTargetData;
    use zoa_test_support::skeletons::{HUMANOID, from_rows};

    /// The humanoid with two finger joints (outside every behaviour) and a
    /// three-joint tail under the hips (a rig chain).
    fn skeleton() -> Skeleton {
        let mut rows = HUMANOID.to_vec();
        rows.extend([
            ("RightHandIndex1", Some(21), [-0.08, 0.0, 0.02]),
            ("RightHandIndex2", Some(22), [-0.03, 0.0, 0.0]),
            ("Tail1", Some(0), [0.0, 0.0, -0.1]),
            ("Tail2", Some(24), [0.0, 0.0, -0.2]),
            ("Tail3", Some(25), [0.0, 0.0, -0.2]),
        ]);
        from_rows("humanoid", &rows)
    }

    /// A pose a little away from rest, different each frame.
    fn animated(s: &Skeleton, frame: usize) -> Vec<Transform> {
        s.rest_pose()
            .enumerate()
            .map(|(j, mut t)| {
                let a = 0.1 * ((frame * 7 + j * 3) % 11) as f32 / 11.0;
                t.rotation = Quat::from_euler(zoa_anim_core::glam::EulerRot::XYZ, a, -a * 0.5, a * 0.3);
                t
            })
            .collect()
    }

    fn inputs(frame: usize) -> IkInputs {
        let f = frame as f32;
        let grip = |target, j| PoseTargetData {
            target,
            position: [0.02, 0.01 * f, 0.0],
            rotation: Some([0.0, 0.0, 0.0, 1.0]),
            weight: 1.0,
            space: PoseSpace::Joint(j),
        };
        IkInputs {
            locomotion_speed: 0.0,
            // A slope: each foot reads its own height.
            ground: Some(Arc::new(|p: Vec3| Some(GroundHit { height: 0.05 * p.x + 0.02, normal: Vec3::Y }))),
            look_target: Some(Vec3::new(1.0, 1.5 + 0.1 * f, 2.0)),
            // The left hand's grip in a finger's frame, the right hand's in its own.
            weapon_pose: Some(PoseSnapshot {
                targets: vec![grip(LEFT_HAND_GRIP, 23), grip(RIGHT_HAND_GRIP, 21)],
                weight: 1.0,
            }),
            chain_targets: std::array::from_fn(|i| {
                (i == 0).then(|| HandTarget { position: Vec3::new(0.2, 0.8, -0.4), rotation: None, weight: 1.0 })
            }),
            hand_on_weapon_weight: 1.0,
            ..IkInputs::default()
        }
    }

    #[test]
    fn refreshing_only_the_joints_the_rig_reads_changes_no_bit() {
        let s = skeleton();
        let policy = RigPolicy { chains: vec![RigChain::new("tail", "Tail1", "Tail3")], ..RigPolicy::default() };
        let (rig, _, problems) = RigIk::for_policy(&s, &policy);
        assert!(problems.is_empty(), "{problems:?}");
        for kind in PolicyKind::ALL.into_iter().filter(|&k| k != PolicyKind::ClimbHand) {
            assert!(rig.is_active(kind), "{}", kind.name());
        }
        let name = |j: &u16| s.display_name(usize::from(*j)).into_owned();
        let outside: Vec<String> =
            (0..s.joint_count() as u16).filter(|j| !rig.in_model[usize::from(*j)]).map(|j| name(&j)).collect();
        assert_eq!(outside, ["LeftToeBase", "RightToeBase", "RightHandIndex1", "RightHandIndex2"]);
        let mut full = rig.clone();
        full.model_joints = s.eval_order().to_vec();
        full.in_model = vec![true; s.joint_count()];
        full.below_look = s.eval_order().to_vec();
        full.below_hips =
            s.eval_order().iter().copied().filter(|&j| is_at_or_below(&s, usize::from(j), 0) && j != 0).collect();

        let (mut ctx, mut full_ctx) = (rig.new_context(), full.new_context());
        for frame in 0..12 {
            let input = inputs(frame);
            // The model-space scratch holds another character's joints (a crowd run shares it).
            ctx.model.update(&s, &animated(&s, frame + 100));
            let (mut local, mut expected) = (animated(&s, frame), animated(&s, frame));
            rig.apply(&s, &mut local, &mut ctx, &input, 1.0 / 60.0).unwrap();
            full.apply(&s, &mut expected, &mut full_ctx, &input, 1.0 / 60.0).unwrap();
            assert_ne!(local, animated(&s, frame), "frame {frame}: the rig moved the pose");
            for (j, (a, b)) in local.iter().zip(&expected).enumerate() {
                let bits = |t: &Transform| {
                    [t.translation.to_array(), t.scale.to_array()]
                        .concat()
                        .into_iter()
                        .chain(t.rotation.to_array())
                        .map(f32::to_bits)
                        .collect::<Vec<_>>()
                };
                assert_eq!(bits(a), bits(b), "frame {frame}, joint {}", s.display_name(j));
            }
            assert_eq!(ctx.grips, full_ctx.grips, "frame {frame}: the grips read from the finger's frame");
            // Only `local_joints` are read or written: the others may hold another
            // character's pose (a crowd run's shared scratch) and stay as they were.
            let mut other_ctx = ctx.clone();
            let mut other_input = input.clone();
            // As given (a grip in a finger's frame), none, or both grips in the hand's frame.
            match frame % 3 {
                0 => {}
                1 => other_input.weapon_pose = None,
                _ => other_input.weapon_pose.iter_mut().flat_map(|p| &mut p.targets).for_each(|t| {
                    t.space = PoseSpace::Joint(21);
                }),
            }
            let mut want = animated(&s, frame);
            let mut want_ctx = other_ctx.clone();
            rig.apply(&s, &mut want, &mut want_ctx, &other_input, 1.0 / 60.0).unwrap();
            let Some(joints) = rig.local_joints(&other_input) else {
                assert_eq!(frame % 3, 0, "frame {frame}: all joints only for a grip outside the rig's set");
                continue;
            };
            let foreign = animated(&s, frame + 100);
            let mut got = foreign.clone();
            for &j in joints {
                got[usize::from(j)] = animated(&s, frame)[usize::from(j)];
            }
            rig.apply(&s, &mut got, &mut other_ctx, &other_input, 1.0 / 60.0).unwrap();
            for j in 0..s.joint_count() {
                let expected = if joints.contains(&(j as u16)) { want[j] } else { foreign[j] };
                assert_eq!(got[j], expected, "frame {frame}, joint {}", s.display_name(j));
            }
        }
    }
}

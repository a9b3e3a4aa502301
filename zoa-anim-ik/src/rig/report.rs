//! What the rig-policy IK did in its last [`RigIk::apply`]: per behaviour
//! that ran, the target it aimed at, its weight, and how far the end
//! effector ended up from the target (the reach error), read off the final
//! model-space pose. A tool (the preview capture, a debugger) asks for it
//! after a frame; the solvers do not compute anything for it.
//!
//! The targets are the solvers' own: foot plant's from the state its last
//! step left ([`FootPlantState::targets`](crate::FootPlantState::targets)),
//! the weapon grips from where apply placed them ([`IkContext::grips`]),
//! the others (chains included) from the [`IkInputs`] they read. The report is therefore true
//! of the last frame as long as the inputs have not been changed since.

use zoa_anim_core::glam::{Mat4, Vec3};

use super::{HandTarget, IkContext, IkInputs, MAX_RIG_CHAINS, RigIk};
use crate::roles::{PolicyKind, Side};
use crate::two_bone::TwoBoneChain;

/// Most goals one report holds: two feet, the head, two weapon grips, two ledge holds.
pub const MAX_IK_GOALS: usize = 7;

/// One behaviour's goal in the last frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct IkGoal {
    /// The behaviour.
    pub behaviour: PolicyKind,
    /// The limb (`None` for look-at).
    pub side: Option<Side>,
    /// The joint whose effector aims at the target (foot or lower leg,
    /// hand, head).
    pub joint: u16,
    /// The target, model space (metres for glTF).
    pub target: Vec3,
    /// The behaviour's weight, 0 ..= 1: foot plant's engagement, a grip's
    /// weight times the weapon pose's, a ledge target's; 1 for look-at.
    pub weight: f32,
    /// Reach error after the frame, model units (metres for glTF), `>= 0`:
    /// the distance from the end effector to the target; for look-at, from
    /// the target to the head's gaze ray (0 when the head looks straight at it).
    pub error: f32,
}

/// One rig-policy chain's goal in the last frame ([`IkInputs::chain_targets`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ChainGoal {
    /// The chain's position in the policy's `chains` ([`RigIk::chain_index`]).
    pub chain: u8,
    /// Its tip joint.
    pub joint: u16,
    /// The target, model space.
    pub target: Vec3,
    /// The chain's weight times the target's, 0 ..= 1.
    pub weight: f32,
    /// Distance from the tip joint to the target after the frame, model units.
    pub error: f32,
}

/// The goals of one frame, in solve order (foot plant left and right,
/// look-at, hand on weapon, climb hand), and the chains' apart (they are a
/// policy's own, not one of its four behaviours). Fixed size: building one
/// allocates nothing.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct IkReport {
    goals: [IkGoal; MAX_IK_GOALS],
    len: usize,
    chains: [Option<ChainGoal>; MAX_RIG_CHAINS],
}

impl Default for IkReport {
    fn default() -> Self {
        let none = IkGoal {
            behaviour: PolicyKind::FootPlant,
            side: None,
            joint: 0,
            target: Vec3::ZERO,
            weight: 0.0,
            error: 0.0,
        };
        IkReport { goals: [none; MAX_IK_GOALS], len: 0, chains: [None; MAX_RIG_CHAINS] }
    }
}

impl IkReport {
    /// The goals.
    #[must_use]
    pub fn goals(&self) -> &[IkGoal] {
        &self.goals[..self.len]
    }

    /// The chains that ran (a compiled chain with a target of weight > 0),
    /// in declaration order.
    pub fn chain_goals(&self) -> impl Iterator<Item = &ChainGoal> {
        self.chains.iter().flatten()
    }

    fn push(&mut self, goal: IkGoal) {
        if let Some(slot) = self.goals.get_mut(self.len) {
            *slot = goal;
            self.len += 1;
        }
    }
}

/// Position of `chain`'s end effector in `model` (the end joint, moved to the tip when there is one).
fn effector(model: &[Mat4], chain: &TwoBoneChain) -> Option<Vec3> {
    model.get(usize::from(chain.end)).map(|m| m.transform_point3(chain.tip))
}

/// Distance from `point` to the ray from `origin` along `dir` (unit).
fn ray_distance(origin: Vec3, dir: Vec3, point: Vec3) -> f32 {
    let v = point - origin;
    let along = v.dot(dir);
    if along <= 0.0 { v.length() } else { (v - dir * along).length() }
}

impl RigIk {
    /// What the last [`RigIk::apply`] with `ctx` and `inputs` aimed at,
    /// measured on `model`, the model-space matrices of the pose it returned
    /// (a runtime's local-to-model output). Behaviours that did not run
    /// (no ground, no look target, no weapon pose, weight 0) are left out.
    /// Allocates nothing; nothing is solved again.
    #[must_use]
    pub fn report(&self, ctx: &IkContext, inputs: &IkInputs, model: &[Mat4]) -> IkReport {
        let mut out = IkReport::default();
        if let Some((_, legs, _)) = self.foot_plant
            && inputs.ground.is_some()
            && ctx.feet.weight > 0.0
        {
            for side in Side::BOTH {
                let chain = legs[side.index()].chain;
                if let (Some(target), Some(at)) = (ctx.feet.targets[side.index()], effector(model, &chain)) {
                    let goal = (PolicyKind::FootPlant, side, chain.end, target, ctx.feet.weight);
                    out.push(limb_goal(goal, at));
                }
            }
        }
        if let (Some(chain), Some(target)) = (self.look, inputs.look_target)
            && let Some(m) = model.get(usize::from(chain.head()))
        {
            let dir = m.transform_vector3(chain.head_forward).try_normalize().unwrap_or(Vec3::ZERO);
            out.push(IkGoal {
                behaviour: PolicyKind::LookAt,
                side: None,
                joint: chain.head(),
                target,
                weight: 1.0,
                error: ray_distance(m.w_axis.truncate(), dir, target),
            });
        }
        for (side, kind, t) in self.hand_targets(ctx, inputs) {
            if let Some((chain, _)) = self.arms[side.index()]
                && let Some(at) = effector(model, &chain)
                && t.weight > 0.0
            {
                out.push(limb_goal((kind, side, chain.end, t.position, t.weight), at));
            }
        }
        for (i, (tip, weight)) in self.chains.tips().enumerate() {
            let (Some(tip), Some(t)) = (tip, inputs.chain_targets[i]) else { continue };
            let weight = weight * if t.weight.is_finite() { t.weight.clamp(0.0, 1.0) } else { 0.0 };
            let Some(m) = model.get(usize::from(tip)).filter(|_| weight > 0.0) else { continue };
            let error = (m.w_axis.truncate() - t.position).length();
            out.chains[i] = Some(ChainGoal { chain: i as u8, joint: tip, target: t.position, weight, error });
        }
        out
    }

    /// The hand targets the last [`RigIk::apply`] reached for: the weapon
    /// pose's grips as it placed them ([`IkContext::grips`], weight: the
    /// grip's times the pose's), then the ledge targets.
    fn hand_targets<'a>(
        &'a self,
        ctx: &'a IkContext,
        inputs: &'a IkInputs,
    ) -> impl Iterator<Item = (Side, PolicyKind, HandTarget)> + 'a {
        let on_weapon = Side::BOTH
            .into_iter()
            .filter(|_| self.hand_on_weapon && inputs.weapon_pose.is_some())
            .filter_map(|side| ctx.grips[side.index()].map(|t| (side, PolicyKind::HandOnWeapon, t)));
        let climb = Side::BOTH
            .into_iter()
            .filter(|_| self.climb_hand)
            .filter_map(|side| inputs.ledge_targets[side.index()].map(|t| (side, PolicyKind::ClimbHand, t)));
        on_weapon.chain(climb)
    }
}

/// A limb's goal `(behaviour, side, joint, target, weight)` with its effector at `at`.
fn limb_goal((behaviour, side, joint, target, weight): (PolicyKind, Side, u16, Vec3, f32), at: Vec3) -> IkGoal {
    IkGoal { behaviour, side: Some(side), joint, target, weight, error: (at - target).length() }
}

//! A rig policy's `chains`, compiled for one skeleton and applied per frame.
//!
//! Set-up resolves each [`RigChain`]'s bones by name into a [`JointChain`]
//! with the chain's limit on every joint; a chain whose bones are missing,
//! not one line from root to tip, too long, or past the chain budget is
//! compiled out and its [`ChainAvailability`] says why (the same report
//! `zoa-anim validate` and `zoa-anim ik --chain` print). Chains keep their
//! declaration index either way, so the game's targets
//! ([`IkInputs::chain_targets`](super::IkInputs::chain_targets)) are indexed
//! the same on every skeleton.

use zoa_anim_core::{RigChain, RigPolicy, Skeleton, Transform, budget};

use super::HandTarget;
use crate::chain::{ChainIkJob, ChainProblem, ChainSettings, JointChain, JointLimit};
use crate::pose::ModelPose;

/// Most chains one rig policy compiles (the budget
/// [`IK_CHAINS`](zoa_anim_core::budget::IK_CHAINS)); the length of
/// [`IkInputs::chain_targets`](super::IkInputs::chain_targets).
pub const MAX_RIG_CHAINS: usize = budget::IK_CHAINS.max as usize;

/// Whether one declared chain runs on a skeleton, and why not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChainAvailability {
    /// The chain's name.
    pub name: String,
    /// Root bone, as declared.
    pub root: String,
    /// Tip bone, as declared.
    pub tip: String,
    /// Joints from root to tip (0 when the chain does not compile).
    pub joints: usize,
    /// Why the chain is compiled out; `None` when it runs.
    pub problem: Option<ChainProblem>,
}

impl ChainAvailability {
    /// Whether the chain compiles (and so runs when given a target).
    #[must_use]
    pub fn is_available(&self) -> bool {
        self.problem.is_none()
    }
}

/// One declared chain compiled: the job's chain and settings.
fn compile(skeleton: &Skeleton, c: &RigChain) -> Result<(JointChain, ChainSettings), ChainProblem> {
    let chain = JointChain::from_names(skeleton, c.root.trim(), c.tip.trim())?
        .with_limit(JointLimit::from_degrees(c.swing_limit_degrees, c.twist_limit_degrees));
    Ok((chain, ChainSettings { iterations: c.iterations, tolerance: c.tolerance, weight: c.weight }))
}

/// Per declared chain of `policy`, whether it runs on `skeleton` (set-up
/// time; allocates). The one check the IK set-up, `validate` and the CLI share.
#[must_use]
pub fn chain_availability(skeleton: &Skeleton, policy: &RigPolicy) -> Vec<ChainAvailability> {
    RigChains::compile(skeleton, policy).report
}

/// The compiled chains of one rig policy on one skeleton.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct RigChains {
    /// Per declared chain (at most [`MAX_RIG_CHAINS`]), `None` when compiled out.
    solvers: Vec<Option<(JointChain, ChainSettings)>>,
    /// Per declared chain, every one of them.
    report: Vec<ChainAvailability>,
}

impl RigChains {
    pub(crate) fn compile(skeleton: &Skeleton, policy: &RigPolicy) -> RigChains {
        let mut out = RigChains::default();
        for (i, c) in policy.chains.iter().enumerate() {
            let compiled = if i < MAX_RIG_CHAINS { compile(skeleton, c) } else { Err(ChainProblem::OverChainBudget) };
            let joints = compiled.as_ref().map_or(0, |(chain, _)| chain.len());
            if i < MAX_RIG_CHAINS {
                out.solvers.push(compiled.as_ref().ok().copied());
            }
            out.report.push(ChainAvailability {
                name: c.name.clone(),
                root: c.root.clone(),
                tip: c.tip.clone(),
                joints,
                problem: compiled.err(),
            });
        }
        out
    }

    pub(crate) fn report(&self) -> &[ChainAvailability] {
        &self.report
    }

    pub(crate) fn index(&self, name: &str) -> Option<usize> {
        self.report.iter().position(|c| c.name == name)
    }

    /// Per declared chain (at most [`MAX_RIG_CHAINS`]): its tip joint and
    /// weight when it compiled.
    pub(crate) fn tips(&self) -> impl Iterator<Item = (Option<u16>, f32)> + '_ {
        self.solvers
            .iter()
            .map(|s| s.as_ref().map_or((None, 0.0), |(chain, settings)| (Some(chain.tip()), settings.weight)))
    }

    /// Every joint of every compiled chain.
    pub(crate) fn joints(&self) -> impl Iterator<Item = u16> + '_ {
        self.solvers.iter().flatten().flat_map(|(chain, _)| chain.joints().iter().copied())
    }

    pub(crate) fn active(&self) -> usize {
        self.solvers.iter().flatten().count()
    }

    /// Solves every compiled chain that has a target, in declaration order,
    /// refreshing `joints` of `model` (the rig's set: every chain with its
    /// ancestors) before each (a chain may hang below one solved before it,
    /// or below the feet foot plant moved). Returns
    /// whether the pose changed; `model` is then current only along the
    /// chains. Allocates nothing.
    pub(crate) fn apply(
        &self,
        skeleton: &Skeleton,
        local: &mut [Transform],
        model: &mut ModelPose,
        joints: &[u16],
        targets: &[Option<HandTarget>; MAX_RIG_CHAINS],
    ) -> bool {
        let mut changed = false;
        let mut current = false;
        for (solver, target) in self.solvers.iter().zip(targets) {
            let (Some((chain, settings)), Some(t)) = (solver, target) else { continue };
            if !current {
                model.update_joints(skeleton, local, joints);
            }
            let weight = settings.weight * if t.weight.is_finite() { t.weight.clamp(0.0, 1.0) } else { 0.0 };
            let job = ChainIkJob {
                chain,
                target: t.position,
                tip_rotation: t.rotation,
                settings: ChainSettings { weight, ..*settings },
            };
            let solved = job.run(skeleton, local, model);
            current = !solved;
            changed |= solved;
        }
        changed
    }
}

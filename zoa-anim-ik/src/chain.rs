//! Chain IK: turn every joint from a chain's root down to its tip so that
//! the tip reaches a target (tails, spines, tentacles, ropes), each joint
//! within its limits.
//!
//! # Terminology
//! - **chain**: the joints on the path from the **root** down to the
//!   **tip**, both included (2 ..= [`MAX_CHAIN_JOINTS`]). The root turns;
//!   its parent does not.
//! - **effector**: the tip joint's position; it goes to the **target**.
//! - **swing**: a joint's turn that moves its **bone axis** (the direction
//!   to the next joint of the chain, in the joint's own frame; for the tip,
//!   the direction of the last bone) away from where the animation points
//!   it. **Twist** is a turn about the bone axis. The solver only ever
//!   swings joints, from their *animated* orientation: a twist moves no
//!   joint of the chain, and twisted segments read badly on a skinned tail.
//!   Only the tip's requested rotation can twist (the tip).
//! - **sweep**: one step of the solve: the *aim*, a *CCD pass*, then a
//!   *FABRIK pass*:
//!   - aim: the root swings the whole chain so the effector points at the
//!     target (skipped in the first sweep when the chain as animated is
//!     straight: it would lay the chain along the line to the target, where
//!     nothing can bend it);
//!   - CCD: from the tip's parent up to the root, each joint swings so the
//!     effector points at the target;
//!   - FABRIK: positions first — the effector put on the target and each
//!     joint pulled after it at its bone's length (*backward*) — then, root
//!     first, each joint swings onto its pulled child (*forward*). A target
//!     out of reach, or within the tolerance of full stretch, makes the
//!     chain a straight line towards it.
//!
//!   A solve runs sweeps until the effector is within the **tolerance** or
//!   the **iterations** run out.
//! - **limit** ([`JointLimit`]): the largest swing and twist (either way)
//!   of a joint from its animated orientation. Limits apply once, after the
//!   sweeps: root first, each joint swings as close to its solved direction
//!   as its limit allows, from where its clamped parent left it.
//!
//! ```text
//!   aim:          root turns the chain: tip points at ✕
//!   CCD pass:     turn j2, then j1, then root, each so (tip − joint) points at ✕
//!   FABRIK pass:  backward: tip on ✕, j2 pulled after the tip, j1 after j2, root after j1
//!                 forward:  root stays; j1 swung onto its spot, j2 onto its, the tip lands
//!   limits:       root, j1, j2 clamped in turn (once, after the last sweep)
//!
//!   parent ─ root ●───● j1 ──● j2 ──● tip
//!                                     ·
//!                                      ✕ target
//! ```
//!
//! # Why three steps, and limits once
//! Each classic solver alone has a case it crawls through; together they
//! cover each other (measured on chains the property tests found, each
//! from its animated pose, errors after 64 sweeps alone / 2 sweeps here):
//! CCD (every joint re-aims the tip) is slow when the chain has to stretch
//! out — a 4-bone chain reaching for a point at 87% of its length, 2.5 mm /
//! 0.04 µm; FABRIK is slow when the chain must fold — a 5-bone chain
//! reaching for a point at 41% of its length, 3.9 mm / 0.07 µm; both are
//! slow when a nearly straight chain must turn as a whole about its root —
//! a 2-bone chain at 99.95% stretch whose target lies 0.48 rad around,
//! 0.45 mm with CCD and FABRIK together / 0.07 µm with the aim. Near full
//! stretch convergence is still slowest (a 2-bone chain at 97% took 32
//! sweeps to 0.01 mm), hence the straight line when full stretch is within
//! the tolerance.
//!
//! Limits fed into every sweep (each sweep starting from the clamped pose,
//! as constrained CCD and FABRIK usually do) made the solve drift and,
//! against a target the limits keep out of reach, chaotic: a limited spine
//! drifted from 6.6 mm to 43 mm short over 32 sweeps, and a 0.1 mm target
//! move turned a joint by 0.33 rad. Clamped once, after a free solve, the
//! result is continuous in the target and exact where the limits do not
//! bind (a limited chain then does what a free one does); where they bind
//! the chain stops short of the target rather than searching for the best
//! pose within the limits. Clamping is exact, in each joint's own frame, so
//! the result never breaks a limit. A sweep costs O(joints): per joint two
//! shortest arcs, a few normalisations and model-space composes, plus the
//! aim's refresh of the chain (see the crate's `solvers` bench).
//!
//! The solver is an ozz-style job ([`ChainIkJob`]) over borrowed slices; it
//! allocates nothing (per-joint scratch lives on the stack, bounded by
//! [`MAX_CHAIN_JOINTS`]) and never fails: a non-finite target, a
//! zero-length bone or a target at the root leaves the pose as animated.

use std::f32::consts::PI;
use std::fmt;

use zoa_anim_core::budget;
use zoa_anim_core::glam::{Quat, Vec3};
use zoa_anim_core::{Skeleton, Transform};

use crate::pose::ModelPose;
use crate::two_bone::EPSILON;

/// Most joints of one chain, root and tip included (the budget
/// [`IK_CHAIN_JOINTS`](zoa_anim_core::budget::IK_CHAIN_JOINTS)).
pub const MAX_CHAIN_JOINTS: usize = budget::IK_CHAIN_JOINTS.max as usize;

/// Most sweeps of one solve (the budget
/// [`IK_CHAIN_ITERATIONS`](zoa_anim_core::budget::IK_CHAIN_ITERATIONS)).
pub const MAX_CHAIN_ITERATIONS: u32 = budget::IK_CHAIN_ITERATIONS.max as u32;

/// How far one joint may turn away from its animated local orientation:
/// the largest swing (the bone axis leaving its animated direction) and the
/// largest twist about the bone axis, either way, each 0 ..= π (π leaves it
/// free). The half-angles' cosines and sines are kept too, so a clamp does
/// no trigonometry.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct JointLimit {
    swing: f32,
    twist: f32,
    /// `(cos, sin)` of half the swing and of half the twist limit.
    swing_half: (f32, f32),
    twist_half: (f32, f32),
}

impl JointLimit {
    /// No limit.
    pub const FREE: JointLimit = JointLimit { swing: PI, twist: PI, swing_half: (0.0, 1.0), twist_half: (0.0, 1.0) };

    /// A limit from radians, each clamped to 0 ..= π (a non-finite value
    /// leaves that part free).
    #[must_use]
    pub fn from_radians(swing: f32, twist: f32) -> JointLimit {
        let clamp = |a: f32| if a.is_finite() { a.clamp(0.0, PI) } else { PI };
        let (swing, twist) = (clamp(swing), clamp(twist));
        let half = |a: f32| {
            if a >= PI {
                return (0.0, 1.0); // exactly as `FREE`
            }
            let (s, c) = (a * 0.5).sin_cos();
            (c, s)
        };
        JointLimit { swing, twist, swing_half: half(swing), twist_half: half(twist) }
    }

    /// A limit from degrees, each clamped to 0 ..= 180 (a non-finite value
    /// leaves that part free).
    #[must_use]
    pub fn from_degrees(swing: f32, twist: f32) -> JointLimit {
        JointLimit::from_radians(swing.to_radians(), twist.to_radians())
    }

    /// Largest swing, radians (0 ..= π).
    #[must_use]
    pub fn swing(&self) -> f32 {
        self.swing
    }

    /// Largest twist either way, radians (0 ..= π).
    #[must_use]
    pub fn twist(&self) -> f32 {
        self.twist
    }

    /// Whether neither swing nor twist is bounded.
    #[must_use]
    pub fn is_free(&self) -> bool {
        self.swing >= PI && self.twist >= PI
    }

    /// `delta` (a turn from the animated local orientation, in the joint's
    /// frame) with its swing and twist about `axis` (unit, the bone axis)
    /// clamped to this limit. A turn within the limit comes back unchanged.
    #[must_use]
    pub fn clamp(&self, delta: Quat, axis: Vec3) -> Quat {
        if self.is_free() {
            return delta;
        }
        // Both parts are canonical (w >= 0): an angle is within its limit
        // exactly when the half-angle's cosine, w, is at least the limit's.
        let (swing, twist) = swing_twist(delta, axis);
        let (twist_ok, swing_ok) = (twist.w >= self.twist_half.0, swing.w >= self.swing_half.0);
        if twist_ok && swing_ok {
            return delta;
        }
        let twist = if twist_ok {
            twist
        } else {
            let (c, s) = self.twist_half;
            let v = axis * s.copysign(Vec3::new(twist.x, twist.y, twist.z).dot(axis));
            Quat::from_xyzw(v.x, v.y, v.z, c)
        };
        let swing = if swing_ok {
            swing
        } else {
            let (c, s) = self.swing_half;
            Vec3::new(swing.x, swing.y, swing.z).try_normalize().map_or(Quat::IDENTITY, |a| {
                let v = a * s;
                Quat::from_xyzw(v.x, v.y, v.z, c)
            })
        };
        (swing * twist).normalize()
    }
}

impl Default for JointLimit {
    fn default() -> Self {
        JointLimit::FREE
    }
}

/// `delta = swing * twist` with the twist about `axis` (unit); both
/// canonical (`w >= 0`).
fn swing_twist(delta: Quat, axis: Vec3) -> (Quat, Quat) {
    let d = if delta.w < 0.0 { -delta } else { delta };
    let p = axis * Vec3::new(d.x, d.y, d.z).dot(axis);
    let t = Quat::from_xyzw(p.x, p.y, p.z, d.w);
    let len = t.length();
    // Zero only for a swing of exactly π: the twist is then undefined; take none.
    let twist = if len > 1e-9 { t * len.recip() } else { Quat::IDENTITY };
    let swing = d * twist.conjugate();
    (if swing.w < 0.0 { -swing } else { swing }, twist)
}

fn twist_angle(twist: Quat, axis: Vec3) -> f32 {
    2.0 * Vec3::new(twist.x, twist.y, twist.z).dot(axis).atan2(twist.w)
}

fn swing_angle(swing: Quat) -> f32 {
    2.0 * Vec3::new(swing.x, swing.y, swing.z).length().atan2(swing.w.abs())
}

/// The shortest rotation taking the direction of `from` onto that of `to`;
/// `None` when either is shorter than [`EPSILON`]. Exact for small angles
/// too (the half-angle quaternion from the cross and dot products of the
/// unnormalised vectors): `Quat::from_rotation_arc` returns no turn below
/// about 7e-4 rad, which would stall the solve some tenths of a millimetre
/// short of the target.
fn shortest_arc(from: Vec3, to: Vec3) -> Option<Quat> {
    let (lf, lt) = (from.length(), to.length());
    if !(lf >= EPSILON && lt >= EPSILON && lf.is_finite() && lt.is_finite()) {
        return None;
    }
    let w = lf * lt + from.dot(to);
    if w <= 1e-6 * lf * lt {
        // (Nearly) opposite: any half turn about an axis across `from`.
        return Some(Quat::from_rotation_arc(from / lf, to / lt));
    }
    let c = from.cross(to);
    Some(Quat::from_xyzw(c.x, c.y, c.z, w).normalize())
}

/// Swing and twist of `delta` about the bone axis `axis` (unit), radians:
/// the swing in 0 ..= π, the twist in −π ..= π. The measure [`JointLimit`]
/// bounds.
#[must_use]
pub fn swing_twist_angles(delta: Quat, axis: Vec3) -> (f32, f32) {
    let (swing, twist) = swing_twist(delta, axis);
    (swing_angle(swing), twist_angle(twist, axis))
}

/// Why a chain cannot be built on a skeleton (set-up time).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ChainProblem {
    /// The skeleton has no bone of that name (or no joint of that index).
    UnknownBone(String),
    /// Root and tip are the same joint: a chain needs two joints at least.
    SameJoint(String),
    /// The tip does not lie below the root.
    NotBelow {
        /// The root as named.
        root: String,
        /// The tip as named.
        tip: String,
    },
    /// More joints from root to tip than [`MAX_CHAIN_JOINTS`].
    TooLong {
        /// Joints on the path, root and tip included.
        joints: usize,
    },
    /// The policy declares more chains than the budget
    /// [`IK_CHAINS`](zoa_anim_core::budget::IK_CHAINS); this one is past it.
    OverChainBudget,
}

impl fmt::Display for ChainProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ChainProblem::UnknownBone(b) => write!(f, "the skeleton has no bone `{b}`"),
            ChainProblem::SameJoint(b) => write!(f, "root and tip are both `{b}`; a chain needs two joints at least"),
            ChainProblem::NotBelow { root, tip } => write!(f, "`{tip}` does not lie below `{root}`"),
            ChainProblem::TooLong { joints } => write!(
                f,
                "{joints} joints from root to tip; the budget `{}` is {}",
                budget::IK_CHAIN_JOINTS.name,
                budget::IK_CHAIN_JOINTS.max
            ),
            ChainProblem::OverChainBudget => {
                write!(f, "more chains than the budget `{}` of {}", budget::IK_CHAINS.name, budget::IK_CHAINS.max)
            }
        }
    }
}

/// The joints of a chain, root first, and each joint's limit; checked once
/// at set-up.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct JointChain {
    joints: [u16; MAX_CHAIN_JOINTS],
    limits: [JointLimit; MAX_CHAIN_JOINTS],
    len: usize,
}

impl JointChain {
    /// The chain of every joint from `root` down to `tip` (joint indices),
    /// every joint free. Fails unless both are in range, distinct, `tip`
    /// lies below `root`, and the path holds at most [`MAX_CHAIN_JOINTS`].
    ///
    /// # Errors
    /// The [`ChainProblem`] (names from the skeleton).
    pub fn new(skeleton: &Skeleton, root: usize, tip: usize) -> Result<JointChain, ChainProblem> {
        let n = skeleton.joint_count();
        for j in [root, tip] {
            if j >= n {
                return Err(ChainProblem::UnknownBone(format!("#{j}")));
            }
        }
        let name = |j: usize| skeleton.display_name(j).into_owned();
        if root == tip {
            return Err(ChainProblem::SameJoint(name(root)));
        }
        if !skeleton.is_descendant_of(tip, root) {
            return Err(ChainProblem::NotBelow { root: name(root), tip: name(tip) });
        }
        let mut len = 1;
        let mut j = tip;
        while j != root {
            j = skeleton.parent(j).unwrap_or(root);
            len += 1;
        }
        if len > MAX_CHAIN_JOINTS {
            return Err(ChainProblem::TooLong { joints: len });
        }
        let mut chain = JointChain { joints: [0; MAX_CHAIN_JOINTS], limits: [JointLimit::FREE; MAX_CHAIN_JOINTS], len };
        let mut j = tip;
        for slot in chain.joints[..len].iter_mut().rev() {
            *slot = j as u16;
            j = skeleton.parent(j).unwrap_or(root);
        }
        Ok(chain)
    }

    /// The chain from the bone called `root` down to the bone called `tip`
    /// (as [`Skeleton::find`] finds them).
    ///
    /// # Errors
    /// As [`JointChain::new`], or [`ChainProblem::UnknownBone`].
    pub fn from_names(skeleton: &Skeleton, root: &str, tip: &str) -> Result<JointChain, ChainProblem> {
        let find = |b: &str| skeleton.find(b).ok_or_else(|| ChainProblem::UnknownBone(b.to_owned()));
        JointChain::new(skeleton, find(root)?, find(tip)?)
    }

    /// The same limit on every joint.
    #[must_use]
    pub fn with_limit(mut self, limit: JointLimit) -> JointChain {
        self.limits[..self.len].fill(limit);
        self
    }

    /// Sets joint `i`'s limit (`i` counts from the root; out of range is ignored).
    pub fn set_limit(&mut self, i: usize, limit: JointLimit) {
        if i < self.len {
            self.limits[i] = limit;
        }
    }

    /// Joint indices, root first, tip last.
    #[must_use]
    pub fn joints(&self) -> &[u16] {
        &self.joints[..self.len]
    }

    /// Per-joint limits, root first.
    #[must_use]
    pub fn limits(&self) -> &[JointLimit] {
        &self.limits[..self.len]
    }

    /// Number of joints (2 ..= [`MAX_CHAIN_JOINTS`]).
    #[must_use]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Always false: a chain has two joints at least.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The root joint.
    #[must_use]
    pub fn root(&self) -> u16 {
        self.joints[0]
    }

    /// The tip joint.
    #[must_use]
    pub fn tip(&self) -> u16 {
        self.joints[self.len - 1]
    }
}

/// Tuning of one chain solve.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ChainSettings {
    /// Most sweeps, 1 ..= [`MAX_CHAIN_ITERATIONS`] (larger counts are
    /// clamped; 0 solves nothing). Default 10.
    pub iterations: u32,
    /// Stop once the effector is this close to the target, model units
    /// (`>= 0`; negative or non-finite counts as 0). Default 0.001.
    pub tolerance: f32,
    /// Blend with the animated pose, 0 ..= 1 (clamped; non-finite is 0). Default 1.
    pub weight: f32,
}

impl Default for ChainSettings {
    fn default() -> Self {
        ChainSettings { iterations: 10, tolerance: 0.001, weight: 1.0 }
    }
}

/// Per-joint scratch of one solve, on the stack.
struct Scratch {
    /// Local rotations as animated (the limits' reference and the blend's start).
    animated: [Quat; MAX_CHAIN_JOINTS],
    /// Each joint's bone axis in its animated local frame (unit).
    axes: [Vec3; MAX_CHAIN_JOINTS],
    /// Model-space length of the bone from each joint to the next (rotations
    /// do not change it).
    lengths: [f32; MAX_CHAIN_JOINTS],
    /// The sum of `lengths`: the chain's reach.
    reach: f32,
    /// Targets at least this far from the root count as out of reach and
    /// straighten the chain: the reach less the tolerance (a straight chain
    /// then ends within the tolerance, where FABRIK would crawl towards
    /// full stretch).
    straight_from: f32,
    /// Whether some joint has a limit (applied after the sweeps).
    limited: bool,
    /// Whether the chain as animated is straight: the first sweep then does
    /// not aim (the aim would lay it along the line to the target, where
    /// neither CCD nor FABRIK can bend it).
    straight: bool,
}

/// One chain solve on a skeleton's local pose (an ozz-style job: borrowed
/// inputs and outputs, no allocation).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ChainIkJob<'a> {
    /// The chain (checked by [`JointChain::new`]).
    pub chain: &'a JointChain,
    /// Where the tip should go, model space.
    pub target: Vec3,
    /// Model-space rotation the tip should take (within its limit); `None`
    /// keeps its animated orientation relative to its parent.
    pub tip_rotation: Option<Quat>,
    /// Iterations, tolerance and weight.
    pub settings: ChainSettings,
}

impl ChainIkJob<'_> {
    /// Runs the solve. `model` must hold the model-space transforms of
    /// `local` for the chain and its ancestors; on return the chain's joints
    /// are up to date in `model` (their other descendants are stale until
    /// the next [`ModelPose::update`]). Only rotations of chain joints are
    /// written.
    ///
    /// Returns `false` and leaves the pose unchanged on degenerate input
    /// (non-finite target, a bone shorter than [`EPSILON`], a target at the
    /// root, weight or iterations 0).
    ///
    /// # Panics
    /// Panics when the chain's joints are out of range for `local` / `model`.
    pub fn run(&self, skeleton: &Skeleton, local: &mut [Transform], model: &mut ModelPose) -> bool {
        let w = if self.settings.weight.is_finite() { self.settings.weight.clamp(0.0, 1.0) } else { 0.0 };
        let iterations = self.settings.iterations.min(MAX_CHAIN_ITERATIONS);
        if w <= 0.0 || iterations == 0 || !self.target.is_finite() {
            return false;
        }
        let Some(mut scratch) = self.prepare(local, model) else {
            return false;
        };
        let joints = self.chain.joints();
        let (root, tip) = (joints[0] as usize, joints[joints.len() - 1] as usize);
        let tol = if self.settings.tolerance.is_finite() { self.settings.tolerance.max(0.0) } else { 0.0 };
        scratch.straight_from = scratch.reach - tol;
        let mut changed = false;
        for _ in 0..iterations {
            if model.get(tip).position.distance(self.target) <= tol {
                break;
            }
            self.sweep(skeleton, local, model, &scratch, !changed);
            changed = true;
        }
        if changed && scratch.limited {
            self.enforce_limits(skeleton, local, model, &scratch);
        }
        if let Some(r) = self.tip_rotation.filter(|r| r.is_finite() && r.length_squared() > EPSILON) {
            changed = true;
            self.orient_tip(skeleton, local, model, &scratch, r.normalize());
        }
        if !changed {
            return false; // already on target: nothing was touched
        }
        for (i, &j) in joints.iter().enumerate() {
            let j = j as usize;
            let r =
                if w < 1.0 { scratch.animated[i].slerp(local[j].rotation, w).normalize() } else { local[j].rotation };
            local[j].rotation = if r.is_finite() { r } else { scratch.animated[i] };
        }
        model.refresh_path(skeleton, local, root, tip);
        true
    }

    /// Checks the chain as animated and records its rotations and bone
    /// axes; `None` when it is degenerate (non-finite, a zero-length bone,
    /// the target at the root).
    fn prepare(&self, local: &[Transform], model: &ModelPose) -> Option<Scratch> {
        let joints = self.chain.joints();
        let n = joints.len();
        let mut s = Scratch {
            animated: [Quat::IDENTITY; MAX_CHAIN_JOINTS],
            axes: [Vec3::ZERO; MAX_CHAIN_JOINTS],
            lengths: [0.0; MAX_CHAIN_JOINTS],
            reach: 0.0,
            straight_from: 0.0,
            limited: self.chain.limits().iter().any(|l| !l.is_free()),
            straight: false,
        };
        for (i, &j) in joints.iter().enumerate() {
            let (j, xf) = (j as usize, model.get(j as usize));
            if !(xf.position.is_finite() && xf.rotation.is_finite() && local[j].rotation.is_finite()) {
                return None;
            }
            s.animated[i] = local[j].rotation;
            if let Some(&next) = joints.get(i + 1) {
                let next = next as usize;
                s.lengths[i] = model.get(next).position.distance(xf.position);
                if !(s.lengths[i] >= EPSILON && s.lengths[i].is_finite()) {
                    return None;
                }
                s.reach += s.lengths[i];
                s.axes[i] = (xf.scale * local[next].translation).try_normalize()?;
            }
        }
        let span = model.get(joints[n - 1] as usize).position.distance(model.get(joints[0] as usize).position);
        s.straight = span >= s.reach * (1.0 - 1e-4);
        // The tip's axis continues the last bone, seen from the tip's own frame.
        s.axes[n - 1] = (s.animated[n - 1].inverse() * s.axes[n - 2]).normalize();
        if model.get(joints[0] as usize).position.distance(self.target) < EPSILON {
            return None;
        }
        Some(s)
    }

    /// The aim: the root swings the whole chain so the effector points at
    /// the target.
    fn aim(&self, skeleton: &Skeleton, local: &mut [Transform], model: &mut ModelPose, scratch: &Scratch) {
        let joints = self.chain.joints();
        let (root, next, tip) = (joints[0] as usize, joints[1] as usize, joints[joints.len() - 1] as usize);
        let at_root = model.get(root).position;
        if let Some(turn) = shortest_arc(model.get(tip).position - at_root, self.target - at_root) {
            let bone = model.get(next).position - at_root;
            self.point(skeleton, local, model, scratch, (0, turn * bone), false);
            model.refresh_path(skeleton, local, root, tip);
        }
    }

    /// One CCD pass: from the tip's parent up to the root, each joint
    /// swings its bone by the turn that points the tip at the target. A
    /// joint's ancestors are untouched until its turn, so only the tip's
    /// position is carried along.
    fn ccd(&self, skeleton: &Skeleton, local: &mut [Transform], model: &mut ModelPose, scratch: &Scratch) {
        let joints = self.chain.joints();
        let n = joints.len();
        let mut end = model.get(joints[n - 1] as usize).position;
        for i in (0..n - 1).rev() {
            let j = joints[i] as usize;
            let xf = *model.get(j);
            let Some(turn) = shortest_arc(end - xf.position, self.target - xf.position) else {
                continue;
            };
            let bone = xf.rotation * (xf.scale * local[joints[i + 1] as usize].translation);
            self.point(skeleton, local, model, scratch, (i, turn * bone), false);
            let applied = model.get(j).rotation * xf.rotation.inverse();
            end = xf.position + applied * (end - xf.position);
        }
        model.refresh_path(skeleton, local, joints[0] as usize, joints[n - 1] as usize);
    }

    /// One sweep: the aim (not in the first sweep of a straight chain), a
    /// CCD pass, then a FABRIK pass (see the module docs).
    fn sweep(
        &self,
        skeleton: &Skeleton,
        local: &mut [Transform],
        model: &mut ModelPose,
        scratch: &Scratch,
        first: bool,
    ) {
        if !(first && scratch.straight) {
            self.aim(skeleton, local, model, scratch);
        }
        self.ccd(skeleton, local, model, scratch);
        self.fabrik(skeleton, local, model, scratch);
    }

    /// One FABRIK pass: the chain's new positions (backward from the
    /// target, forward from the root; a straight line towards the target
    /// when it is out of reach), then each joint, root first, swung onto its
    /// child's new position.
    fn fabrik(&self, skeleton: &Skeleton, local: &mut [Transform], model: &mut ModelPose, scratch: &Scratch) {
        let joints = self.chain.joints();
        let n = joints.len();
        let len = &scratch.lengths;
        let mut p = [Vec3::ZERO; MAX_CHAIN_JOINTS];
        for (p, &j) in p.iter_mut().zip(joints) {
            *p = model.get(j as usize).position;
        }
        let root = p[0];
        let to_target = self.target - root;
        if to_target.length() >= scratch.straight_from {
            let dir = to_target.normalize();
            for i in 1..n {
                p[i] = p[i - 1] + dir * len[i - 1];
            }
        } else {
            // The backward pass: pull `p[to]` after `p[from]` to the bone's
            // length, keeping its direction (or, when the two coincide, the
            // bone's direction as it was: `model` still holds the old positions).
            let pull = |p: &mut [Vec3; MAX_CHAIN_JOINTS], from: usize, to: usize, length: f32| {
                let old = || {
                    let at = |k: usize| model.get(joints[k] as usize).position;
                    (at(to) - at(from)) / length
                };
                p[to] = p[from] + (p[to] - p[from]).try_normalize().unwrap_or_else(old) * length;
            };
            p[n - 1] = self.target;
            for i in (0..n - 1).rev() {
                pull(&mut p, i + 1, i, len[i]);
            }
        }
        // The forward pass, on the joints themselves: each, root first,
        // swings from where it now is towards its child's spot, which puts
        // the child where FABRIK's forward pass would.
        for i in 0..n - 1 {
            let next = joints[i + 1] as usize;
            self.point(skeleton, local, model, scratch, (i, p[i + 1] - model.get(joints[i] as usize).position), false);
            model.refresh_path(skeleton, local, next, next);
        }
    }

    /// The limits, once, on the free solution: root first, each joint swung
    /// as close to its bone's solved direction as its limit allows, from
    /// where its clamped parent put it. Done once rather than in every
    /// sweep: sweeps that start from a clamped pose feed the limits back
    /// into the solve, which drifts and, against a target the limits keep
    /// out of reach, turns chaotic (a 0.1 mm target move flipping the chain).
    fn enforce_limits(&self, skeleton: &Skeleton, local: &mut [Transform], model: &mut ModelPose, scratch: &Scratch) {
        let joints = self.chain.joints();
        let n = joints.len();
        let mut dirs = [Vec3::ZERO; MAX_CHAIN_JOINTS];
        for (i, d) in dirs[..n - 1].iter_mut().enumerate() {
            *d = model.get(joints[i + 1] as usize).position - model.get(joints[i] as usize).position;
        }
        for (i, &dir) in dirs[..n - 1].iter().enumerate() {
            let next = joints[i + 1] as usize;
            self.point(skeleton, local, model, scratch, (i, dir), true);
            model.refresh_path(skeleton, local, next, next);
        }
    }

    /// Points joint `i`'s bone along the model-space direction `dir` by a
    /// pure swing from its animated orientation (no twist: a twist moves no
    /// joint of the chain, twisted segments read badly on a skinned tail,
    /// and a twist carried from sweep to sweep would drift), the swing
    /// clamped to the joint's limit when `within_limit`; updates the joint in
    /// `model` (descendants become stale). Nothing happens when `dir` is
    /// degenerate.
    fn point(
        &self,
        skeleton: &Skeleton,
        local: &mut [Transform],
        model: &mut ModelPose,
        s: &Scratch,
        (i, dir): (usize, Vec3),
        within_limit: bool,
    ) {
        if let Some(swing) = self.swing(skeleton, model, s, i, dir) {
            let j = self.chain.joints[i] as usize;
            let delta = if within_limit { self.chain.limits[i].clamp(swing, s.axes[i]) } else { swing };
            model.set_local_rotation(skeleton, local, j, (s.animated[i] * delta).normalize());
        }
    }

    /// The swing, in joint `i`'s animated frame under its current parent,
    /// that takes its bone axis onto the model-space direction `dir`.
    fn swing(&self, skeleton: &Skeleton, model: &ModelPose, s: &Scratch, i: usize, dir: Vec3) -> Option<Quat> {
        let j = self.chain.joints[i] as usize;
        let parent_rot = skeleton.parent(j).map_or(Quat::IDENTITY, |p| model.get(p).rotation);
        shortest_arc(s.axes[i], (parent_rot * s.animated[i]).inverse() * dir)
    }

    /// Gives the tip the model-space rotation `r` (unit), within its swing
    /// and twist limit; updates it in `model`.
    fn orient_tip(
        &self,
        skeleton: &Skeleton,
        local: &mut [Transform],
        model: &mut ModelPose,
        scratch: &Scratch,
        r: Quat,
    ) {
        let i = self.chain.len - 1;
        let j = self.chain.joints[i] as usize;
        let parent_rot = skeleton.parent(j).map_or(Quat::IDENTITY, |p| model.get(p).rotation);
        let wanted = (parent_rot.inverse() * r).normalize();
        let delta = self.chain.limits[i].clamp(scratch.animated[i].inverse() * wanted, scratch.axes[i]);
        model.set_local_rotation(skeleton, local, j, (scratch.animated[i] * delta).normalize());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clamp_keeps_turns_within_the_limit_and_leaves_smaller_ones_alone() {
        let axis = Vec3::Y;
        let limit = JointLimit::from_degrees(30.0, 10.0);
        let small = Quat::from_rotation_x(0.2) * Quat::from_rotation_y(0.1);
        assert!(limit.clamp(small, axis).abs_diff_eq(small, 1e-6));
        let big = Quat::from_rotation_z(1.5) * Quat::from_rotation_y(-1.0);
        let (s, t) = swing_twist_angles(limit.clamp(big, axis), axis);
        assert!((s - 30f32.to_radians()).abs() < 1e-4 && (t + 10f32.to_radians()).abs() < 1e-4, "{s} {t}");
        let (s, t) = swing_twist_angles(big, axis);
        assert!((s - 1.5).abs() < 1e-4 && (t + 1.0).abs() < 1e-4, "swing then twist: {s} {t}");
        assert_eq!(JointLimit::FREE.clamp(big, axis), big);
        assert_eq!(JointLimit::from_degrees(f32::NAN, 400.0), JointLimit::FREE);
    }

    #[test]
    fn chains_are_checked_at_set_up() {
        let s = zoa_test_support::skeletons::humanoid();
        let c = JointChain::from_names(&s, "Spine", "Head").unwrap();
        assert_eq!(c.joints(), [1, 2, 3, 4, 5]);
        assert_eq!((c.root(), c.tip(), c.len()), (1, 5, 5));
        assert_eq!(JointChain::from_names(&s, "Spine", "Tail"), Err(ChainProblem::UnknownBone("Tail".into())));
        let e = JointChain::from_names(&s, "Head", "Spine").unwrap_err();
        assert_eq!(e.to_string(), "`Spine` does not lie below `Head`");
        let e = JointChain::from_names(&s, "LeftArm", "RightHand").unwrap_err();
        assert!(matches!(e, ChainProblem::NotBelow { .. }));
        assert!(matches!(JointChain::from_names(&s, "Head", "Head"), Err(ChainProblem::SameJoint(_))));
        assert!(matches!(JointChain::new(&s, 0, 99), Err(ChainProblem::UnknownBone(_))));
    }
}

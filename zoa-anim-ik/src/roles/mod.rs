//! Bone discovery: which joint of a skeleton plays which role (hips, spine,
//! neck, head, and per side the leg and arm bones).
//!
//! # How discovery works
//!
//! 1. **Names** ([`names`](self)): each joint name says a side and a body
//!    part (`thigh`, `upleg`, `upperleg` → upper leg; `calf`, `shin`,
//!    `lowerleg` → lower leg; `foot` → foot; `toe`, `ball` → toe;
//!    `clavicle`, `shoulder`, `collar` → shoulder; `upperarm`, `shldr` →
//!    upper arm; `forearm`, `lowerarm` → forearm; `hand`, `wrist`, `palm`,
//!    `fist` → hand; bare `leg` / `arm` say only "somewhere in that limb"),
//!    or marks a helper that never plays a role (`end`, `twist`, `ik`,
//!    `pole`, `socket`, fingers, …).
//! 2. **Chains by structure.** Per side and limb, the joints named for it are
//!    candidates; every downward path through them (helpers in between are
//!    skipped) is a possible chain, and the one filling the most slots wins.
//!    A candidate off that chain is *rejected* and [`BoneRoles::rejected`]
//!    says why: a `Foot.L` IK control parented to the armature root is not
//!    below the lower leg `LowerLeg.L`, so it is not the foot.
//! 3. **Hips, spine, head.** Named hips must carry both legs; otherwise the
//!    hips are the closest common ancestor of the upper legs. The spine is
//!    the path from the hips to the neck; a head without a name is the end
//!    of the neck chain, or of the spine when nothing is called neck or
//!    head. Legs without names are chains of at least three joints below the
//!    hips ending in a leaf; their side comes from the rest pose (glTF: a
//!    character faces +Z, so its left is +X).
//! 4. **Overrides.** `RigPolicy::bone_overrides` maps roles to bones
//!    explicitly and wins over everything above.
//! 5. **Leg ends.** A leg whose chain has a lower leg but no foot ends at the
//!    lower leg's tip ([`LimbTip`]): an end marker joint below it
//!    (`LowerLeg.L_end`) when there is one, else a point estimated from the
//!    rest pose (see [`LimbTip`]). Foot plant then runs as a two-bone leg
//!    placing that tip.

use std::fmt;

use zoa_anim_core::{RigPolicy, Skeleton};

use crate::IkError;

mod discover;
mod ends;
mod names;

use discover::Discovery;
pub use ends::{LimbTip, TipSource};

/// Left or right side of a body.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Side {
    /// The character's left (+X in glTF model space).
    Left = 0,
    /// The character's right.
    Right = 1,
}

impl Side {
    /// Both sides, left first.
    pub const BOTH: [Side; 2] = [Side::Left, Side::Right];

    /// Index into per-side arrays (`Left` = 0).
    #[must_use]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// `left` or `right`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Side::Left => "left",
            Side::Right => "right",
        }
    }
}

/// One role a bone can play. The order is the order of the CLI's JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum Role {
    Hips,
    Spine,
    Neck,
    Head,
    LeftUpperLeg,
    LeftLowerLeg,
    LeftFoot,
    LeftToe,
    RightUpperLeg,
    RightLowerLeg,
    RightFoot,
    RightToe,
    LeftShoulder,
    LeftUpperArm,
    LeftForearm,
    LeftHand,
    RightShoulder,
    RightUpperArm,
    RightForearm,
    RightHand,
}

impl Role {
    /// Every role, in JSON order.
    pub const ALL: [Role; 20] = [
        Role::Hips,
        Role::Spine,
        Role::Neck,
        Role::Head,
        Role::LeftUpperLeg,
        Role::LeftLowerLeg,
        Role::LeftFoot,
        Role::LeftToe,
        Role::RightUpperLeg,
        Role::RightLowerLeg,
        Role::RightFoot,
        Role::RightToe,
        Role::LeftShoulder,
        Role::LeftUpperArm,
        Role::LeftForearm,
        Role::LeftHand,
        Role::RightShoulder,
        Role::RightUpperArm,
        Role::RightForearm,
        Role::RightHand,
    ];

    /// The snake-case name used in JSON and in `bone_overrides`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Role::Hips => "hips",
            Role::Spine => "spine",
            Role::Neck => "neck",
            Role::Head => "head",
            Role::LeftUpperLeg => "left_upper_leg",
            Role::LeftLowerLeg => "left_lower_leg",
            Role::LeftFoot => "left_foot",
            Role::LeftToe => "left_toe",
            Role::RightUpperLeg => "right_upper_leg",
            Role::RightLowerLeg => "right_lower_leg",
            Role::RightFoot => "right_foot",
            Role::RightToe => "right_toe",
            Role::LeftShoulder => "left_shoulder",
            Role::LeftUpperArm => "left_upper_arm",
            Role::LeftForearm => "left_forearm",
            Role::LeftHand => "left_hand",
            Role::RightShoulder => "right_shoulder",
            Role::RightUpperArm => "right_upper_arm",
            Role::RightForearm => "right_forearm",
            Role::RightHand => "right_hand",
        }
    }

    /// Parses a role name (as in [`Role::name`]).
    #[must_use]
    pub fn from_name(name: &str) -> Option<Role> {
        Role::ALL.into_iter().find(|r| r.name() == name)
    }

    /// The leg role of `side` at `slot` (0 upper, 1 lower, 2 foot, 3 toe).
    ///
    /// # Panics
    /// Panics when `slot > 3`.
    #[must_use]
    pub const fn leg(side: Side, slot: usize) -> Role {
        const L: [Role; 4] = [Role::LeftUpperLeg, Role::LeftLowerLeg, Role::LeftFoot, Role::LeftToe];
        const R: [Role; 4] = [Role::RightUpperLeg, Role::RightLowerLeg, Role::RightFoot, Role::RightToe];
        match side {
            Side::Left => L[slot],
            Side::Right => R[slot],
        }
    }

    /// The arm role of `side` at `slot` (0 shoulder, 1 upper arm, 2 forearm, 3 hand).
    ///
    /// # Panics
    /// Panics when `slot > 3`.
    #[must_use]
    pub const fn arm(side: Side, slot: usize) -> Role {
        const L: [Role; 4] = [Role::LeftShoulder, Role::LeftUpperArm, Role::LeftForearm, Role::LeftHand];
        const R: [Role; 4] = [Role::RightShoulder, Role::RightUpperArm, Role::RightForearm, Role::RightHand];
        match side {
            Side::Left => L[slot],
            Side::Right => R[slot],
        }
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The bones of one leg (joint indices into the skeleton).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct LegBones {
    /// Thigh.
    pub upper: Option<u16>,
    /// Shin / calf.
    pub lower: Option<u16>,
    /// Foot (ankle joint).
    pub foot: Option<u16>,
    /// Toe / ball.
    pub toe: Option<u16>,
    /// Where the leg ends when there is no foot: the lower leg's tip.
    /// `None` when there is a foot or no lower leg.
    pub tip: Option<LimbTip>,
}

impl LegBones {
    fn slots(&self) -> [Option<u16>; 4] {
        [self.upper, self.lower, self.foot, self.toe]
    }
    fn slot_mut(&mut self, slot: usize) -> &mut Option<u16> {
        match slot {
            0 => &mut self.upper,
            1 => &mut self.lower,
            2 => &mut self.foot,
            _ => &mut self.toe,
        }
    }
}

/// The bones of one arm (joint indices into the skeleton).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ArmBones {
    /// Clavicle / shoulder.
    pub shoulder: Option<u16>,
    /// Upper arm.
    pub upper: Option<u16>,
    /// Forearm.
    pub forearm: Option<u16>,
    /// Hand (wrist joint).
    pub hand: Option<u16>,
}

impl ArmBones {
    fn slots(&self) -> [Option<u16>; 4] {
        [self.shoulder, self.upper, self.forearm, self.hand]
    }
    fn slot_mut(&mut self, slot: usize) -> &mut Option<u16> {
        match slot {
            0 => &mut self.shoulder,
            1 => &mut self.upper,
            2 => &mut self.forearm,
            _ => &mut self.hand,
        }
    }
}

/// Which joint plays which role; `None` where the skeleton has no such bone.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct BoneRoles {
    /// Pelvis / hips.
    pub hips: Option<u16>,
    /// Spine joints between hips and neck, hips-side first.
    pub spine: Vec<u16>,
    /// Neck (first neck joint).
    pub neck: Option<u16>,
    /// Head.
    pub head: Option<u16>,
    /// Legs, indexed by [`Side::index`].
    pub legs: [LegBones; 2],
    /// Arms, indexed by [`Side::index`].
    pub arms: [ArmBones; 2],
    /// Joints whose names suggested a role they were not given, and why
    /// (in discovery order). Informational: `zoa-anim ik --discover` prints it.
    pub rejected: Vec<Rejected>,
}

/// A joint whose name suggested a role that discovery did not give it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rejected {
    /// The joint.
    pub joint: u16,
    /// The role its name suggests; `None` for a bare limb name (`LeftLeg`)
    /// or a control that names no single bone (`PoleTarget.L`).
    pub role: Option<Role>,
    /// Why it was left out, naming the joints involved.
    pub reason: String,
}

/// Which of the four rig-policy IK behaviours.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PolicyKind {
    /// Feet on the ground.
    FootPlant,
    /// Head towards a look target.
    LookAt,
    /// Hands on the weapon's grips.
    HandOnWeapon,
    /// Hands on ledge targets.
    ClimbHand,
}

impl PolicyKind {
    /// All four, in JSON order.
    pub const ALL: [PolicyKind; 4] =
        [PolicyKind::FootPlant, PolicyKind::LookAt, PolicyKind::HandOnWeapon, PolicyKind::ClimbHand];

    /// The snake-case name used in JSON and in rig-policy files.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            PolicyKind::FootPlant => "foot_plant",
            PolicyKind::LookAt => "look_at",
            PolicyKind::HandOnWeapon => "hand_on_weapon",
            PolicyKind::ClimbHand => "climb_hand",
        }
    }

    /// The roles the behaviour cannot do without. Foot plant needs hips and
    /// a two-bone chain to the foot on both sides (toes are optional; a leg
    /// without a foot joint ends at its lower leg's [`LimbTip`], which
    /// stands in for the foot);
    /// look-at needs a head (neck and spine only share the turn when
    /// present); both hand behaviours need a two-bone chain to the hand on
    /// both sides (either hand may be the one the grip or ledge targets).
    #[must_use]
    pub const fn required_roles(self) -> &'static [Role] {
        match self {
            PolicyKind::FootPlant => &[
                Role::Hips,
                Role::LeftUpperLeg,
                Role::LeftLowerLeg,
                Role::LeftFoot,
                Role::RightUpperLeg,
                Role::RightLowerLeg,
                Role::RightFoot,
            ],
            PolicyKind::LookAt => &[Role::Head],
            PolicyKind::HandOnWeapon | PolicyKind::ClimbHand => &[
                Role::LeftUpperArm,
                Role::LeftForearm,
                Role::LeftHand,
                Role::RightUpperArm,
                Role::RightForearm,
                Role::RightHand,
            ],
        }
    }

    /// Whether `policy` switches this behaviour on.
    #[must_use]
    pub fn is_enabled_in(self, policy: &RigPolicy) -> bool {
        match self {
            PolicyKind::FootPlant => policy.foot_plant,
            PolicyKind::LookAt => policy.look_at,
            PolicyKind::HandOnWeapon => policy.hand_on_weapon,
            PolicyKind::ClimbHand => policy.climb_hand,
        }
    }
}

/// Whether one behaviour can run on a skeleton (see [`BoneRoles::availability`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PolicyAvailability {
    /// The behaviour.
    pub policy: PolicyKind,
    /// Whether the rig policy switches it on.
    pub enabled: bool,
    /// Whether every required bone was found.
    pub available: bool,
    /// Required roles that were not found (empty when available).
    pub missing: Vec<Role>,
}

impl BoneRoles {
    /// The single joint playing `role`; for [`Role::Spine`] the first spine joint.
    #[must_use]
    pub fn get(&self, role: Role) -> Option<u16> {
        match role {
            Role::Hips => self.hips,
            Role::Spine => self.spine.first().copied(),
            Role::Neck => self.neck,
            Role::Head => self.head,
            _ => {
                let i = Role::ALL.iter().position(|r| *r == role).unwrap_or(0);
                let (limb, rest) = ((i - 4) / 8, (i - 4) % 8);
                let (side, slot) = (if rest < 4 { Side::Left } else { Side::Right }, rest % 4);
                if limb == 0 { self.legs[side.index()].slots()[slot] } else { self.arms[side.index()].slots()[slot] }
            }
        }
    }

    fn set(&mut self, role: Role, joint: u16) {
        match role {
            Role::Spine => self.spine = vec![joint],
            _ => *self.single_mut(role) = Some(joint),
        }
    }

    /// The slot of a single-joint role ([`Role::Spine`], a chain, is never
    /// asked for; it answers with the hips' slot).
    fn single_mut(&mut self, role: Role) -> &mut Option<u16> {
        match role {
            Role::Hips | Role::Spine => &mut self.hips,
            Role::Neck => &mut self.neck,
            Role::Head => &mut self.head,
            _ => {
                let i = Role::ALL.iter().position(|r| *r == role).unwrap_or(0);
                let (limb, rest) = ((i - 4) / 8, (i - 4) % 8);
                let (side, slot) = (if rest < 4 { Side::Left } else { Side::Right }, rest % 4);
                if limb == 0 { self.legs[side.index()].slot_mut(slot) } else { self.arms[side.index()].slot_mut(slot) }
            }
        }
    }

    /// Takes `joints` away from every role not in `keep` (a bone an override
    /// gives one role no longer plays the role discovery gave it).
    fn release(&mut self, joints: &[u16], keep: &[Role]) {
        for role in Role::ALL {
            if keep.contains(&role) {
                continue;
            }
            if role == Role::Spine {
                self.spine.retain(|j| !joints.contains(j));
            } else if self.single_mut(role).is_some_and(|j| joints.contains(&j)) {
                *self.single_mut(role) = None;
            }
        }
    }

    /// Per behaviour: enabled by `policy`, available on these bones, and the
    /// missing roles. A behaviour that is unavailable is skipped silently at
    /// run time; `zoa-anim validate` reports it as information.
    #[must_use]
    pub fn availability(&self, policy: &RigPolicy) -> [PolicyAvailability; 4] {
        PolicyKind::ALL.map(|kind| {
            let missing: Vec<Role> = kind.required_roles().iter().copied().filter(|r| !self.has(*r)).collect();
            PolicyAvailability {
                policy: kind,
                enabled: kind.is_enabled_in(policy),
                available: missing.is_empty(),
                missing,
            }
        })
    }

    /// Whether every bone `kind` needs was found.
    #[must_use]
    pub fn is_available(&self, kind: PolicyKind) -> bool {
        kind.required_roles().iter().all(|r| self.has(*r))
    }

    /// Whether a behaviour needing `role` finds it: the joint, or for a foot
    /// the lower leg's tip standing in for it.
    fn has(&self, role: Role) -> bool {
        match role {
            Role::LeftFoot | Role::RightFoot => {
                let side = if role == Role::LeftFoot { Side::Left } else { Side::Right };
                let leg = &self.legs[side.index()];
                leg.foot.is_some() || leg.tip.is_some()
            }
            _ => self.get(role).is_some(),
        }
    }

    /// Discovers roles from names and structure (no overrides), including
    /// the tips of legs without feet.
    #[must_use]
    pub fn discover(skeleton: &Skeleton) -> BoneRoles {
        let mut roles = Discovery::new(skeleton).run();
        roles.find_tips(skeleton);
        roles
    }

    /// Fills [`LegBones::tip`] for every leg with a lower leg and no foot
    /// (and clears it where there is a foot).
    fn find_tips(&mut self, skeleton: &Skeleton) {
        let (up, _) = ends::rest_up(skeleton, self);
        for side in Side::BOTH {
            let leg = self.legs[side.index()];
            self.legs[side.index()].tip = match (leg.foot, leg.upper, leg.lower) {
                (None, Some(upper), Some(lower)) => LimbTip::find(skeleton, upper, lower, up),
                _ => None,
            };
        }
    }

    /// Discovers roles, then applies `policy.bone_overrides`. Overrides that
    /// name an unknown role or bone are skipped and returned as errors (every
    /// one of them, not just the first). A `spine` override may list several
    /// bones separated by commas, hips-side first.
    #[must_use]
    pub fn discover_with_overrides(skeleton: &Skeleton, policy: &RigPolicy) -> (BoneRoles, Vec<IkError>) {
        Self::overridden(skeleton, policy, false)
    }

    /// Like [`BoneRoles::discover_with_overrides`], but one bone plays one
    /// role: a bone an override names leaves the role discovery gave it
    /// (naming the neck as the head leaves no neck). Retargeting pairs bones
    /// through these roles.
    #[must_use]
    pub fn discover_exclusive(skeleton: &Skeleton, policy: &RigPolicy) -> (BoneRoles, Vec<IkError>) {
        Self::overridden(skeleton, policy, true)
    }

    fn overridden(skeleton: &Skeleton, policy: &RigPolicy, exclusive: bool) -> (BoneRoles, Vec<IkError>) {
        let mut roles = Discovery::new(skeleton).run();
        let mut problems = Vec::new();
        let (mut overridden, mut given) = (Vec::new(), Vec::new());
        for (role_name, bone) in &policy.bone_overrides {
            let Some(role) = Role::from_name(role_name.trim()) else {
                problems.push(IkError::UnknownRole {
                    policy: policy.id.clone(),
                    role: role_name.clone(),
                    valid: Role::ALL.map(Role::name).join(", "),
                });
                continue;
            };
            let names: Vec<&str> = if role == Role::Spine {
                bone.split(',').map(str::trim).filter(|s| !s.is_empty()).collect()
            } else {
                vec![bone.trim()]
            };
            let mut joints = Vec::with_capacity(names.len());
            for name in names {
                match skeleton.find(name) {
                    Some(j) => joints.push(j as u16),
                    None => problems.push(IkError::UnknownBone {
                        policy: policy.id.clone(),
                        role: role_name.clone(),
                        bone: name.to_owned(),
                        skeleton: skeleton.name().to_owned(),
                    }),
                }
            }
            if role == Role::Spine {
                if !joints.is_empty() {
                    overridden.push(role);
                    given.extend_from_slice(&joints);
                    roles.spine = joints;
                }
            } else if let Some(&j) = joints.first() {
                overridden.push(role);
                given.push(j);
                roles.set(role, j);
            }
        }
        if exclusive {
            roles.release(&given, &overridden);
        }
        roles.find_tips(skeleton);
        (roles, problems)
    }
}

/// A readable reason why `policy` is skipped, for validators (`foot_plant:
/// missing left_foot, right_foot`).
#[must_use]
pub fn describe_missing(a: &PolicyAvailability) -> String {
    let names: Vec<&str> = a.missing.iter().map(|r| r.name()).collect();
    format!("{}: missing {}", a.policy.name(), names.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn role_names_round_trip() {
        for r in Role::ALL {
            assert_eq!(Role::from_name(r.name()), Some(r));
        }
        let mut b = BoneRoles::default();
        for (i, r) in Role::ALL.into_iter().enumerate() {
            b.set(r, i as u16);
            assert_eq!(b.get(r), Some(i as u16), "{r}");
        }
    }
}

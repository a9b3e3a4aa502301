//! Bone discovery: which joint of a skeleton plays which role (hips, spine,
//! neck, head, and per side the leg and arm bones).
//!
//! # How discovery works
//!
//! 1. **Names.** Each joint name is split into lowercase tokens (namespace
//!    prefixes such as `mixamorig:` dropped; split at `_ . - :` spaces, digits
//!    and camel-case humps), side tokens (`l`, `left`, `r`, `right`, also
//!    glued as in `LeftUpLeg`) are taken out, filler tokens (`b`, `bip`,
//!    `joint`, `skeleton`, `def`, …) are dropped, and joints that are helpers
//!    rather than body parts (`end`, `twist`, `ik`, `socket`, fingers, tail,
//!    …) are excluded. The rest is matched against keywords: `thigh`,
//!    `upleg`, `upperleg` → upper leg; `calf`, `shin`, `lowerleg` → lower leg;
//!    `foot` → foot; `toe`, `ball` → toe; `clavicle`, `shoulder` → shoulder;
//!    `upperarm` → upper arm; `forearm`, `lowerarm` → forearm; `hand` → hand;
//!    bare `leg` / `arm` say only "somewhere in that limb".
//! 2. **Chains.** Per side and limb, the top-most matching joint starts a
//!    chain that follows matching children (the one with the largest
//!    subtree). Named joints anchor their slot; unnamed-limb joints fill the
//!    slots around the anchors by position (Mixamo's `LeftLeg` after
//!    `LeftUpLeg` is the lower leg; a bare three-joint arm chain is upper
//!    arm, forearm, hand).
//! 3. **Structure.** Hips without a name are the joint both legs hang from;
//!    the spine is the path from the hips to the neck; a head without a name
//!    is the end of the neck chain, or of the spine when nothing is called
//!    neck or head. Legs without names are chains of at least three joints
//!    below the hips ending in a leaf; their side comes from the rest pose
//!    (glTF: a character faces +Z, so its left is +X).
//! 4. **Overrides.** `RigPolicy::bone_overrides` maps roles to bones
//!    explicitly and wins over everything above.

use std::fmt;

use zoa_anim_core::{RigPolicy, Skeleton};

use crate::IkError;
use crate::pose::rest_model_positions;

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
    pub const fn index(self) -> usize {
        self as usize
    }

    /// `left` or `right`.
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
    pub fn from_name(name: &str) -> Option<Role> {
        Role::ALL.into_iter().find(|r| r.name() == name)
    }

    /// The leg role of `side` at `slot` (0 upper, 1 lower, 2 foot, 3 toe).
    ///
    /// # Panics
    /// Panics when `slot > 3`.
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LegBones {
    /// Thigh.
    pub upper: Option<u16>,
    /// Shin / calf.
    pub lower: Option<u16>,
    /// Foot (ankle joint).
    pub foot: Option<u16>,
    /// Toe / ball.
    pub toe: Option<u16>,
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
#[derive(Debug, Clone, PartialEq, Eq, Default)]
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
    pub const fn name(self) -> &'static str {
        match self {
            PolicyKind::FootPlant => "foot_plant",
            PolicyKind::LookAt => "look_at",
            PolicyKind::HandOnWeapon => "hand_on_weapon",
            PolicyKind::ClimbHand => "climb_hand",
        }
    }

    /// The roles the behaviour cannot do without. Foot plant needs hips and
    /// a two-bone chain to the foot on both sides (toes are optional);
    /// look-at needs a head (neck and spine only share the turn when
    /// present); both hand behaviours need a two-bone chain to the hand on
    /// both sides (either hand may be the one the grip or ledge targets).
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
            Role::Hips => self.hips = Some(joint),
            Role::Spine => self.spine = vec![joint],
            Role::Neck => self.neck = Some(joint),
            Role::Head => self.head = Some(joint),
            _ => {
                let i = Role::ALL.iter().position(|r| *r == role).unwrap_or(0);
                let (limb, rest) = ((i - 4) / 8, (i - 4) % 8);
                let (side, slot) = (if rest < 4 { Side::Left } else { Side::Right }, rest % 4);
                if limb == 0 {
                    *self.legs[side.index()].slot_mut(slot) = Some(joint);
                } else {
                    *self.arms[side.index()].slot_mut(slot) = Some(joint);
                }
            }
        }
    }

    /// Per behaviour: enabled by `policy`, available on these bones, and the
    /// missing roles. A behaviour that is unavailable is skipped silently at
    /// run time; `zoa-anim validate` reports it as information.
    pub fn availability(&self, policy: &RigPolicy) -> [PolicyAvailability; 4] {
        PolicyKind::ALL.map(|kind| {
            let missing: Vec<Role> = kind.required_roles().iter().copied().filter(|r| self.get(*r).is_none()).collect();
            PolicyAvailability {
                policy: kind,
                enabled: kind.is_enabled_in(policy),
                available: missing.is_empty(),
                missing,
            }
        })
    }

    /// Whether every bone `kind` needs was found.
    pub fn is_available(&self, kind: PolicyKind) -> bool {
        kind.required_roles().iter().all(|r| self.get(*r).is_some())
    }

    /// Discovers roles from names and structure (no overrides).
    pub fn discover(skeleton: &Skeleton) -> BoneRoles {
        Discovery::new(skeleton).run()
    }

    /// Discovers roles, then applies `policy.bone_overrides`. Overrides that
    /// name an unknown role or bone are skipped and returned as errors (every
    /// one of them, not just the first). A `spine` override may list several
    /// bones separated by commas, hips-side first.
    pub fn discover_with_overrides(skeleton: &Skeleton, policy: &RigPolicy) -> (BoneRoles, Vec<IkError>) {
        let mut roles = BoneRoles::discover(skeleton);
        let mut problems = Vec::new();
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
                    roles.spine = joints;
                }
            } else if let Some(&j) = joints.first() {
                roles.set(role, j);
            }
        }
        (roles, problems)
    }
}

// ---------------------------------------------------------------------------
// Name classification
// ---------------------------------------------------------------------------

/// Which limb a joint belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Limb {
    Leg,
    Arm,
}

/// What a joint name says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Hint {
    /// Nothing recognisable.
    Unknown,
    /// A helper (end bone, twist, IK target, socket, finger, tail, …): never a role.
    Excluded,
    Hips,
    Spine,
    Neck,
    Head,
    /// A limb bone; the slot when the name says which (0..=3), `None` for a bare `leg` / `arm`.
    Limb(Limb, Option<u8>),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Class {
    side: Option<Side>,
    hint: Hint,
}

const FILLER: &[&str] =
    &["b", "bip", "bn", "bone", "jnt", "joint", "skeleton", "def", "j", "mixamorig", "armature", "rig", "deform"];
const EXCLUDED: &[&str] = &[
    "end",
    "nub",
    "tip",
    "twist",
    "roll",
    "ik",
    "fk",
    "pole",
    "target",
    "ctrl",
    "control",
    "socket",
    "attach",
    "helper",
    "weapon",
    "prop",
    "index",
    "middle",
    "ring",
    "pinky",
    "thumb",
    "finger",
    "fingers",
    "little",
    "eye",
    "eyes",
    "jaw",
    "tongue",
    "ear",
    "ears",
    "hair",
    "tail",
    "breast",
    "mch",
    "org",
    "corrective",
    "dummy",
    "null",
    "grip",
    "teeth",
    "lid",
    "brow",
    "cheek",
    "lip",
    "mouth",
    "nose",
    "wing",
];

/// Splits a joint name into lowercase tokens: namespace dropped, split at
/// punctuation, letter/digit changes and camel-case humps (`LeftUpLeg` →
/// `left up leg`, `HTMLBone` → `html bone`).
fn tokens(name: &str) -> Vec<String> {
    let name = name.rsplit([':', '|']).next().unwrap_or(name);
    let chars: Vec<char> = name.chars().collect();
    let mut out = Vec::new();
    let mut cur = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_alphanumeric() {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            continue;
        }
        if !cur.is_empty() {
            let prev = chars[i - 1];
            let next_lower = chars.get(i + 1).is_some_and(|n| n.is_lowercase());
            let boundary = (prev.is_lowercase() && c.is_uppercase())
                || (prev.is_alphabetic() != c.is_alphabetic())
                || (prev.is_uppercase() && c.is_uppercase() && next_lower);
            if boundary {
                out.push(std::mem::take(&mut cur));
            }
        }
        cur.extend(c.to_lowercase());
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

fn classify(name: &str) -> Class {
    let mut side = None;
    let mut body = String::new();
    for tok in tokens(name) {
        if tok.chars().all(|c| c.is_ascii_digit()) {
            continue;
        }
        if EXCLUDED.contains(&tok.as_str()) {
            return Class { side, hint: Hint::Excluded };
        }
        match tok.as_str() {
            "l" | "left" | "lt" => side = Some(Side::Left),
            "r" | "right" | "rt" => side = Some(Side::Right),
            t if FILLER.contains(&t) => {}
            t => {
                if let Some(rest) = t.strip_prefix("left").filter(|r| r.len() > 1) {
                    side = Some(Side::Left);
                    body.push_str(rest);
                } else if let Some(rest) = t.strip_prefix("right").filter(|r| r.len() > 1) {
                    side = Some(Side::Right);
                    body.push_str(rest);
                } else {
                    body.push_str(t);
                }
            }
        }
    }
    let has = |words: &[&str]| words.iter().any(|w| body.contains(w));
    let hint = if side.is_some() {
        if has(&["toe", "ball"]) {
            Hint::Limb(Limb::Leg, Some(3))
        } else if has(&["foot", "ankle"]) {
            Hint::Limb(Limb::Leg, Some(2))
        } else if has(&["calf", "shin", "lowerleg", "knee", "crus"]) {
            Hint::Limb(Limb::Leg, Some(1))
        } else if has(&["thigh", "upleg", "upperleg", "femur", "hip"]) {
            Hint::Limb(Limb::Leg, Some(0))
        } else if has(&["leg"]) {
            Hint::Limb(Limb::Leg, None)
        } else if has(&["clavicle", "shoulder", "collar"]) {
            Hint::Limb(Limb::Arm, Some(0))
        } else if has(&["forearm", "lowerarm", "elbow"]) {
            Hint::Limb(Limb::Arm, Some(2))
        } else if has(&["upperarm", "uparm", "humerus"]) {
            Hint::Limb(Limb::Arm, Some(1))
        } else if has(&["hand", "wrist", "palm"]) {
            Hint::Limb(Limb::Arm, Some(3))
        } else if has(&["arm"]) {
            Hint::Limb(Limb::Arm, None)
        } else {
            Hint::Unknown
        }
    } else if has(&["pelvis", "hip"]) {
        Hint::Hips
    } else if has(&["neck"]) {
        Hint::Neck
    } else if has(&["head"]) {
        Hint::Head
    } else if has(&["spine", "chest", "torso", "body", "abdomen", "waist"]) {
        Hint::Spine
    } else {
        Hint::Unknown
    };
    Class { side, hint }
}

// ---------------------------------------------------------------------------
// Discovery
// ---------------------------------------------------------------------------

struct Discovery<'a> {
    skeleton: &'a Skeleton,
    classes: Vec<Class>,
    children: Vec<Vec<u16>>,
    depth: Vec<u32>,
    subtree: Vec<u32>,
}

impl<'a> Discovery<'a> {
    fn new(skeleton: &'a Skeleton) -> Self {
        let n = skeleton.joint_count();
        let classes = (0..n)
            .map(|i| match &skeleton.joints()[i].name {
                Some(name) => classify(name),
                None => Class { side: None, hint: Hint::Unknown },
            })
            .collect();
        let mut children = vec![Vec::new(); n];
        let mut depth = vec![0u32; n];
        for &j in skeleton.eval_order() {
            if let Some(p) = skeleton.parent(j as usize) {
                children[p].push(j);
                depth[j as usize] = depth[p] + 1;
            }
        }
        let mut subtree = vec![1u32; n];
        for &j in skeleton.eval_order().iter().rev() {
            if let Some(p) = skeleton.parent(j as usize) {
                subtree[p] += subtree[j as usize];
            }
        }
        Discovery { skeleton, classes, children, depth, subtree }
    }

    fn run(&self) -> BoneRoles {
        let mut roles = BoneRoles::default();
        for side in Side::BOTH {
            self.limb_chain(Limb::Leg, side, |slot, j| *roles.legs[side.index()].slot_mut(slot) = Some(j));
            self.limb_chain(Limb::Arm, side, |slot, j| *roles.arms[side.index()].slot_mut(slot) = Some(j));
        }
        roles.hips = self.topmost(|c| c.hint == Hint::Hips).or_else(|| self.hips_from_legs(&roles));
        if roles.legs.iter().all(|l| l.upper.is_none()) {
            self.structural_legs(&mut roles);
        }
        let neck_chain = self.chain_of(|c| c.hint == Hint::Neck, roles.hips);
        roles.neck = neck_chain.first().copied();
        roles.head = self.topmost_below(|c| c.hint == Hint::Head, roles.hips);
        if roles.head.is_none() && neck_chain.len() >= 2 {
            roles.head = neck_chain.last().copied();
        }
        roles.spine = self.spine(&roles);
        if roles.head.is_none() && roles.neck.is_none() && roles.spine.len() >= 2 {
            // Nothing is called neck or head: the end of the spine carries the head.
            roles.head = roles.spine.pop();
        }
        roles
    }

    fn is_limb(&self, j: usize, limb: Limb, side: Side) -> bool {
        let c = self.classes[j];
        c.side == Some(side) && matches!(c.hint, Hint::Limb(l, _) if l == limb)
    }

    /// The shallowest joint matching `pred` (first in evaluation order on ties).
    fn topmost(&self, pred: impl Fn(&Class) -> bool) -> Option<u16> {
        self.skeleton
            .eval_order()
            .iter()
            .copied()
            .filter(|&j| pred(&self.classes[j as usize]))
            .min_by_key(|&j| self.depth[j as usize])
    }

    /// Like [`Self::topmost`], but prefers joints below `root` when there are any.
    fn topmost_below(&self, pred: impl Fn(&Class) -> bool, root: Option<u16>) -> Option<u16> {
        let below = |j: u16| root.is_none_or(|r| self.skeleton.is_descendant_of(j as usize, r as usize));
        self.skeleton
            .eval_order()
            .iter()
            .copied()
            .filter(|&j| pred(&self.classes[j as usize]))
            .min_by_key(|&j| (!below(j), self.depth[j as usize]))
    }

    /// Follows matching children from the top-most match (largest subtree first).
    fn chain_of(&self, pred: impl Fn(&Class) -> bool, root: Option<u16>) -> Vec<u16> {
        let Some(mut cur) = self.topmost_below(&pred, root) else {
            return Vec::new();
        };
        let mut chain = vec![cur];
        loop {
            let next = self.children[cur as usize]
                .iter()
                .copied()
                .filter(|&c| pred(&self.classes[c as usize]))
                .max_by_key(|&c| (self.subtree[c as usize], std::cmp::Reverse(c)));
            match next {
                Some(n) => {
                    chain.push(n);
                    cur = n;
                }
                None => return chain,
            }
        }
    }

    /// Finds one limb chain and assigns its slots (see the module docs).
    fn limb_chain(&self, limb: Limb, side: Side, mut assign: impl FnMut(usize, u16)) {
        let chain = self.chain_of(|c| c.side == Some(side) && matches!(c.hint, Hint::Limb(l, _) if l == limb), None);
        if chain.is_empty() {
            return;
        }
        debug_assert!(chain.iter().all(|&j| self.is_limb(j as usize, limb, side)));
        // Anchors: named slots in strictly increasing order; later repeats are bare.
        let mut hints: Vec<Option<u8>> = Vec::with_capacity(chain.len());
        let mut last: Option<u8> = None;
        for &j in &chain {
            let h = match self.classes[j as usize].hint {
                Hint::Limb(_, Some(s)) if last.is_none_or(|l| s > l) => {
                    last = Some(s);
                    Some(s)
                }
                _ => None,
            };
            hints.push(h);
        }
        let Some(first_anchor) = hints.iter().position(Option::is_some) else {
            // Only bare names: a leg starts at the thigh; a three-joint arm has no clavicle.
            let start = if limb == Limb::Arm && chain.len() < 4 { 1 } else { 0 };
            for (i, &j) in chain.iter().enumerate().take(4 - start) {
                assign(start + i, j);
            }
            return;
        };
        // Bare joints before the first anchor count backwards from it.
        let a0 = hints[first_anchor].unwrap_or(0) as usize;
        for k in 1..=first_anchor.min(a0) {
            assign(a0 - k, chain[first_anchor - k]);
        }
        // From each anchor on, bare joints take the next slots until the next anchor.
        let mut next_slot = 0usize;
        let mut limit = 4usize;
        for (i, &j) in chain.iter().enumerate().skip(first_anchor) {
            if let Some(h) = hints[i] {
                assign(h as usize, j);
                next_slot = h as usize + 1;
                limit = hints[i + 1..].iter().flatten().next().map_or(4, |&n| n as usize);
            } else if next_slot < limit {
                assign(next_slot, j);
                next_slot += 1;
            }
        }
    }

    /// Hips without a name: the closest common ancestor both upper legs hang from.
    fn hips_from_legs(&self, roles: &BoneRoles) -> Option<u16> {
        let [l, r] = [roles.legs[0].upper?, roles.legs[1].upper?];
        let mut a = self.skeleton.parent(l as usize)?;
        loop {
            if self.skeleton.is_descendant_of(r as usize, a) {
                return Some(a as u16);
            }
            a = self.skeleton.parent(a)?;
        }
    }

    /// Legs without names: chains of at least three joints below the hips
    /// ending in a leaf, side from the rest pose (+X is the character's left).
    fn structural_legs(&self, roles: &mut BoneRoles) {
        let hips = match roles.hips {
            Some(h) => h as usize,
            None => match self.skeleton.eval_order().first() {
                Some(&r) => r as usize,
                None => return,
            },
        };
        let rest = rest_model_positions(self.skeleton);
        let mut legs: Vec<[u16; 4]> = Vec::new();
        let mut lens = Vec::new();
        for &c in &self.children[hips] {
            if matches!(self.classes[c as usize].hint, Hint::Excluded | Hint::Spine | Hint::Neck | Hint::Head) {
                continue;
            }
            let mut chain = vec![c];
            let mut cur = c as usize;
            while self.children[cur].len() == 1 {
                cur = self.children[cur][0] as usize;
                chain.push(cur as u16);
            }
            if self.children[cur].is_empty() && (3..=4).contains(&chain.len()) {
                let mut slots = [u16::MAX; 4];
                slots[..chain.len()].copy_from_slice(&chain);
                legs.push(slots);
                lens.push(chain.len());
            }
        }
        if legs.len() != 2 {
            return;
        }
        let x = |leg: &[u16; 4]| rest[leg[0] as usize].x;
        let (left, right) = if x(&legs[0]) >= x(&legs[1]) { (0, 1) } else { (1, 0) };
        for (side, i) in [(Side::Left, left), (Side::Right, right)] {
            for (slot, &j) in legs[i].iter().enumerate().take(lens[i]) {
                *roles.legs[side.index()].slot_mut(slot) = Some(j);
            }
        }
        if roles.hips.is_none() {
            roles.hips = Some(hips as u16);
        }
    }

    /// The path from the hips (exclusive) to the neck (exclusive), hips side
    /// first; without a neck, the chain of spine-named joints below the hips.
    fn spine(&self, roles: &BoneRoles) -> Vec<u16> {
        let top = roles.neck.or(roles.head);
        if let (Some(hips), Some(top)) = (roles.hips, top)
            && self.skeleton.is_descendant_of(top as usize, hips as usize)
        {
            let mut path = Vec::new();
            let mut cur = self.skeleton.parent(top as usize);
            while let Some(c) = cur {
                if c == hips as usize {
                    break;
                }
                path.push(c as u16);
                cur = self.skeleton.parent(c);
            }
            path.reverse();
            return path;
        }
        let mut chain = self.chain_of(|c| c.hint == Hint::Spine, roles.hips);
        if let Some(h) = roles.hips {
            chain.retain(|&j| j != h);
        }
        chain
    }
}

/// A readable reason why `policy` is skipped, for validators (`foot_plant:
/// missing left_foot, right_foot`).
pub fn describe_missing(a: &PolicyAvailability) -> String {
    let names: Vec<&str> = a.missing.iter().map(|r| r.name()).collect();
    format!("{}: missing {}", a.policy.name(), names.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Builds a skeleton from `(name, parent, translation)`.
    pub(crate) fn skel(joints: &[(&str, Option<u16>, [f32; 3])]) -> Skeleton {
        zoa_test_support::skeletons::from_rows("test", joints)
    }

    fn named(s: &Skeleton, r: &BoneRoles, role: Role) -> Option<String> {
        r.get(role).map(|j| s.display_name(j as usize).into_owned())
    }

    #[test]
    fn tokens_split_camel_case_namespaces_and_digits() {
        assert_eq!(tokens("mixamorig:LeftUpLeg"), ["left", "up", "leg"]);
        assert_eq!(tokens("b_LeftLeg01_015"), ["b", "left", "leg", "01", "015"]);
        assert_eq!(tokens("DEF-upper_arm.L.001"), ["def", "upper", "arm", "l", "001"]);
        assert_eq!(tokens("Skeleton_arm_joint_L__4_"), ["skeleton", "arm", "joint", "l", "4"]);
        assert_eq!(tokens("LUpperArm"), ["l", "upper", "arm"]);
    }

    #[test]
    fn classification_covers_the_common_schemes() {
        let c = |n: &str| classify(n);
        let leg = |s| Class { side: Some(s), hint: Hint::Limb(Limb::Leg, None) };
        let leg_at = |s, i| Class { side: Some(s), hint: Hint::Limb(Limb::Leg, Some(i)) };
        let arm_at = |s, i| Class { side: Some(s), hint: Hint::Limb(Limb::Arm, Some(i)) };
        assert_eq!(c("mixamorig:LeftUpLeg"), leg_at(Side::Left, 0));
        assert_eq!(c("LeftLeg"), leg(Side::Left));
        assert_eq!(c("RightToeBase"), leg_at(Side::Right, 3));
        assert_eq!(c("thigh_l"), leg_at(Side::Left, 0));
        assert_eq!(c("calf_r"), leg_at(Side::Right, 1));
        assert_eq!(c("ball_l"), leg_at(Side::Left, 3));
        assert_eq!(c("UpperLeg.L"), leg_at(Side::Left, 0));
        assert_eq!(c("shin.R"), leg_at(Side::Right, 1));
        assert_eq!(c("L_Foot"), leg_at(Side::Left, 2));
        assert_eq!(c("clavicle_l"), arm_at(Side::Left, 0));
        assert_eq!(c("upperarm_r"), arm_at(Side::Right, 1));
        assert_eq!(c("lowerarm_l"), arm_at(Side::Left, 2));
        assert_eq!(c("upper_arm.L"), arm_at(Side::Left, 1));
        assert_eq!(c("forearm.R"), arm_at(Side::Right, 2));
        assert_eq!(c("hand_L"), arm_at(Side::Left, 3));
        assert_eq!(c("lefthand"), arm_at(Side::Left, 3));
        assert_eq!(c("pelvis").hint, Hint::Hips);
        assert_eq!(c("mixamorig:Hips").hint, Hint::Hips);
        assert_eq!(c("spine_01").hint, Hint::Spine);
        assert_eq!(c("neck_01").hint, Hint::Neck);
        assert_eq!(c("head").hint, Hint::Head);
        for helper in ["LeftToe_End", "HeadTop_End", "thigh_twist_01_l", "ik_foot_l", "LeftHandIndex1", "socket_hand_L"]
        {
            assert_eq!(c(helper).hint, Hint::Excluded, "{helper}");
        }
    }

    #[test]
    fn mixamo_without_prefix_is_fully_discovered() {
        let mut j: Vec<(&str, Option<u16>, [f32; 3])> = vec![
            ("Hips", None, [0.0, 1.0, 0.0]),
            ("Spine", Some(0), [0.0, 0.1, 0.0]),
            ("Spine1", Some(1), [0.0, 0.1, 0.0]),
            ("Spine2", Some(2), [0.0, 0.1, 0.0]),
            ("Neck", Some(3), [0.0, 0.15, 0.0]),
            ("Head", Some(4), [0.0, 0.1, 0.0]),
            ("HeadTop_End", Some(5), [0.0, 0.2, 0.0]),
        ];
        for (side, x) in [("Left", 1.0f32), ("Right", -1.0)] {
            let base = j.len() as u16;
            let names: [&'static str; 9] = if side == "Left" {
                [
                    "LeftUpLeg",
                    "LeftLeg",
                    "LeftFoot",
                    "LeftToeBase",
                    "LeftShoulder",
                    "LeftArm",
                    "LeftForeArm",
                    "LeftHand",
                    "LeftHandIndex1",
                ]
            } else {
                [
                    "RightUpLeg",
                    "RightLeg",
                    "RightFoot",
                    "RightToeBase",
                    "RightShoulder",
                    "RightArm",
                    "RightForeArm",
                    "RightHand",
                    "RightHandIndex1",
                ]
            };
            j.push((names[0], Some(0), [0.1 * x, -0.05, 0.0]));
            j.push((names[1], Some(base), [0.0, -0.45, 0.0]));
            j.push((names[2], Some(base + 1), [0.0, -0.45, 0.0]));
            j.push((names[3], Some(base + 2), [0.0, -0.05, 0.12]));
            j.push((names[4], Some(3), [0.05 * x, 0.1, 0.0]));
            j.push((names[5], Some(base + 4), [0.12 * x, 0.0, 0.0]));
            j.push((names[6], Some(base + 5), [0.28 * x, 0.0, 0.0]));
            j.push((names[7], Some(base + 6), [0.25 * x, 0.0, 0.0]));
            j.push((names[8], Some(base + 7), [0.05 * x, 0.0, 0.0]));
        }
        let s = skel(&j);
        let r = BoneRoles::discover(&s);
        assert_eq!(named(&s, &r, Role::Hips).as_deref(), Some("Hips"));
        assert_eq!(
            r.spine.iter().map(|&i| s.display_name(i as usize).into_owned()).collect::<Vec<_>>(),
            ["Spine", "Spine1", "Spine2"]
        );
        assert_eq!(named(&s, &r, Role::Head).as_deref(), Some("Head"));
        assert_eq!(named(&s, &r, Role::LeftLowerLeg).as_deref(), Some("LeftLeg"));
        assert_eq!(named(&s, &r, Role::RightToe).as_deref(), Some("RightToeBase"));
        assert_eq!(named(&s, &r, Role::LeftUpperArm).as_deref(), Some("LeftArm"));
        assert_eq!(named(&s, &r, Role::RightShoulder).as_deref(), Some("RightShoulder"));
        assert_eq!(named(&s, &r, Role::RightHand).as_deref(), Some("RightHand"));
        assert!(PolicyKind::ALL.iter().all(|&k| r.is_available(k)));
    }

    #[test]
    fn unreal_mannequin_ignores_ik_and_twist_bones() {
        let s = skel(&[
            ("root", None, [0.0; 3]),
            ("pelvis", Some(0), [0.0, 1.0, 0.0]),
            ("spine_01", Some(1), [0.0, 0.1, 0.0]),
            ("neck_01", Some(2), [0.0, 0.5, 0.0]),
            ("head", Some(3), [0.0, 0.1, 0.0]),
            ("thigh_l", Some(1), [0.1, 0.0, 0.0]),
            ("thigh_twist_01_l", Some(5), [0.0, -0.2, 0.0]),
            ("calf_l", Some(5), [0.0, -0.45, 0.0]),
            ("foot_l", Some(7), [0.0, -0.45, 0.0]),
            ("ball_l", Some(8), [0.0, -0.05, 0.1]),
            ("ik_foot_root", Some(0), [0.0; 3]),
            ("ik_foot_l", Some(10), [0.1, 0.1, 0.0]),
        ]);
        let r = BoneRoles::discover(&s);
        assert_eq!(named(&s, &r, Role::Hips).as_deref(), Some("pelvis"));
        assert_eq!(named(&s, &r, Role::LeftUpperLeg).as_deref(), Some("thigh_l"));
        assert_eq!(named(&s, &r, Role::LeftLowerLeg).as_deref(), Some("calf_l"));
        assert_eq!(named(&s, &r, Role::LeftFoot).as_deref(), Some("foot_l"));
        assert_eq!(named(&s, &r, Role::LeftToe).as_deref(), Some("ball_l"));
        assert_eq!(named(&s, &r, Role::Neck).as_deref(), Some("neck_01"));
        assert_eq!(r.spine, [2]);
        assert!(!r.is_available(PolicyKind::FootPlant), "no right leg");
        let a = r.availability(&RigPolicy::default());
        assert_eq!(a[0].missing, [Role::RightUpperLeg, Role::RightLowerLeg, Role::RightFoot]);
        assert!(a[1].available);
        assert_eq!(describe_missing(&a[0]), "foot_plant: missing right_upper_leg, right_lower_leg, right_foot");
    }

    #[test]
    fn max_biped_names_with_spaces_are_discovered() {
        let s = skel(&[
            ("Bip01", None, [0.0; 3]),
            ("Bip01 Pelvis", Some(0), [0.0, 1.0, 0.0]),
            ("Bip01 Spine", Some(1), [0.0, 0.1, 0.0]),
            ("Bip01 Neck", Some(2), [0.0, 0.4, 0.0]),
            ("Bip01 Head", Some(3), [0.0, 0.1, 0.0]),
            ("Bip01 L Thigh", Some(1), [0.1, 0.0, 0.0]),
            ("Bip01 L Calf", Some(5), [0.0, -0.45, 0.0]),
            ("Bip01 L Foot", Some(6), [0.0, -0.45, 0.0]),
            ("Bip01 L Toe0", Some(7), [0.0, -0.05, 0.1]),
            ("Bip01 L Clavicle", Some(2), [0.05, 0.35, 0.0]),
            ("Bip01 L UpperArm", Some(9), [0.1, 0.0, 0.0]),
            ("Bip01 L Forearm", Some(10), [0.28, 0.0, 0.0]),
            ("Bip01 L Hand", Some(11), [0.25, 0.0, 0.0]),
            ("Bip01 L Finger0", Some(12), [0.05, 0.0, 0.0]),
        ]);
        let r = BoneRoles::discover(&s);
        assert_eq!(r.hips, Some(1));
        assert_eq!((r.neck, r.head, r.spine.as_slice()), (Some(3), Some(4), &[2u16][..]));
        assert_eq!(r.legs[0], LegBones { upper: Some(5), lower: Some(6), foot: Some(7), toe: Some(8) });
        assert_eq!(r.arms[0], ArmBones { shoulder: Some(9), upper: Some(10), forearm: Some(11), hand: Some(12) });
    }

    #[test]
    fn rigify_segments_do_not_shift_slots() {
        let s = skel(&[
            ("DEF-spine", None, [0.0, 1.0, 0.0]),
            ("DEF-thigh.L", Some(0), [0.1, 0.0, 0.0]),
            ("DEF-thigh.L.001", Some(1), [0.0, -0.2, 0.0]),
            ("DEF-shin.L", Some(2), [0.0, -0.2, 0.0]),
            ("DEF-foot.L", Some(3), [0.0, -0.4, 0.0]),
            ("DEF-toe.L", Some(4), [0.0, -0.05, 0.1]),
        ]);
        let r = BoneRoles::discover(&s);
        assert_eq!(r.legs[0], LegBones { upper: Some(1), lower: Some(3), foot: Some(4), toe: Some(5) });
    }

    #[test]
    fn unnamed_legs_are_found_by_structure() {
        let s = skel(&[
            ("", None, [0.0, 1.0, 0.0]),
            ("", Some(0), [0.0, 0.3, 0.0]),
            ("", Some(0), [-0.1, 0.0, 0.0]),
            ("", Some(2), [0.0, -0.45, 0.0]),
            ("", Some(3), [0.0, -0.45, 0.0]),
            ("", Some(0), [0.1, 0.0, 0.0]),
            ("", Some(5), [0.0, -0.45, 0.0]),
            ("", Some(6), [0.0, -0.45, 0.0]),
        ]);
        let r = BoneRoles::discover(&s);
        assert_eq!(r.hips, Some(0));
        assert_eq!(r.legs[Side::Left.index()], LegBones { upper: Some(5), lower: Some(6), foot: Some(7), toe: None });
        assert_eq!(r.legs[Side::Right.index()], LegBones { upper: Some(2), lower: Some(3), foot: Some(4), toe: None });
    }

    #[test]
    fn overrides_win_and_bad_ones_are_all_reported() {
        let s = skel(&[("a", None, [0.0; 3]), ("b", Some(0), [0.0; 3]), ("c", Some(1), [0.0; 3])]);
        let policy = RigPolicy {
            id: "door".into(),
            bone_overrides: vec![
                ("head".into(), "c".into()),
                ("spine".into(), "a, b".into()),
                ("tail".into(), "a".into()),
                ("left_foot".into(), "nope".into()),
            ],
            ..RigPolicy::default()
        };
        let (r, problems) = BoneRoles::discover_with_overrides(&s, &policy);
        assert_eq!(r.head, Some(2));
        assert_eq!(r.spine, [0, 1]);
        assert_eq!(problems.len(), 2);
        assert!(matches!(&problems[0], IkError::UnknownRole { role, .. } if role == "tail"));
        assert!(matches!(&problems[1], IkError::UnknownBone { bone, .. } if bone == "nope"));
    }

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

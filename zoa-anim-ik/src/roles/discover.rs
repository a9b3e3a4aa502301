//! Discovery proper: names give candidates, the hierarchy decides.
//!
//! Per side and limb, every joint whose name says "left leg" (thigh, shin,
//! foot, bare `leg`, …) is a candidate. Candidates form a forest (a
//! candidate's parent is its nearest candidate ancestor; helpers such as
//! twist bones in between are skipped), and every downward path of that
//! forest is a possible chain. The chain that fills the most slots wins
//! (upper, lower, foot, toe / shoulder, upper arm, forearm, hand), then the
//! one with the most named slots, then the one that has the top slot, then
//! the shallowest. Candidates off the winning chain are *rejected* with a
//! reason: a Blender game rig's `Foot.L` IK control under the armature root
//! is "not below the left lower leg `LowerLeg.L`".

use zoa_anim_core::Skeleton;

use super::names::{Class, Hint, Limb, classify};
use super::{BoneRoles, Rejected, Role, Side};
use crate::pose::rest_model_positions;

/// More candidates than this for one limb (a pathological rig) and only the
/// chain below the top-most one is tried, so discovery stays fast.
const MAX_CANDIDATES: usize = 64;
/// At most this many candidate paths are compared per limb.
const MAX_PATHS: usize = 256;

pub(crate) struct Discovery<'a> {
    skeleton: &'a Skeleton,
    pub(crate) classes: Vec<Class>,
    pub(crate) children: Vec<Vec<u16>>,
    depth: Vec<u32>,
    subtree: Vec<u32>,
}

/// The winning chain of one limb: its joints and their slots.
struct LimbChain {
    joints: Vec<u16>,
    slots: [Option<u16>; 4],
}

impl<'a> Discovery<'a> {
    pub(crate) fn new(skeleton: &'a Skeleton) -> Self {
        let n = skeleton.joint_count();
        let classes = (0..n).map(|i| skeleton.joints()[i].name.as_deref().map_or(Class::UNNAMED, classify)).collect();
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

    pub(crate) fn run(&self) -> BoneRoles {
        let mut roles = BoneRoles::default();
        for side in Side::BOTH {
            let legs = self.limb_chain(Limb::Leg, side, &mut roles.rejected);
            for (slot, j) in legs.slots.iter().enumerate() {
                *roles.legs[side.index()].slot_mut(slot) = *j;
            }
            let arms = self.limb_chain(Limb::Arm, side, &mut roles.rejected);
            for (slot, j) in arms.slots.iter().enumerate() {
                *roles.arms[side.index()].slot_mut(slot) = *j;
            }
        }
        roles.hips = self.hips(&mut roles);
        if roles.legs.iter().all(|l| l.upper.is_none()) {
            self.structural_legs(&mut roles);
        }
        let neck_chain = self.chain_of(|c| c.role_hint() == Hint::Neck, roles.hips);
        roles.neck = neck_chain.first().copied();
        roles.head = self.topmost_below(|c| c.role_hint() == Hint::Head, roles.hips);
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

    fn name(&self, j: u16) -> String {
        self.skeleton.display_name(j as usize).into_owned()
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

    /// Finds the best chain of one limb (see the module docs) and records
    /// why every other candidate was left out.
    fn limb_chain(&self, limb: Limb, side: Side, rejected: &mut Vec<Rejected>) -> LimbChain {
        let order = self.skeleton.eval_order();
        let cands: Vec<u16> = order.iter().copied().filter(|&j| self.classes[j as usize].is_limb(limb, side)).collect();
        self.reject_controls(limb, side, rejected);
        if cands.is_empty() {
            return LimbChain { joints: Vec::new(), slots: [None; 4] };
        }
        let paths = if cands.len() > MAX_CANDIDATES {
            vec![self.chain_of(|c| c.is_limb(limb, side), None)]
        } else {
            self.candidate_paths(&cands)
        };
        let top_slot = if limb == Limb::Leg { 0 } else { 1 };
        let best = paths
            .into_iter()
            .map(|p| {
                let slots = self.assign_slots(limb, &p);
                let filled = slots.iter().flatten().count();
                let named =
                    p.iter().filter(|&&j| matches!(self.classes[j as usize].hint, Hint::Limb(_, Some(_)))).count();
                let key = (filled, named, slots[top_slot].is_some(), std::cmp::Reverse(self.depth[p[0] as usize]));
                (key, p, slots)
            })
            .max_by(|a, b| a.0.cmp(&b.0).then_with(|| b.1.cmp(&a.1)));
        let Some((_, joints, slots)) = best else {
            return LimbChain { joints: Vec::new(), slots: [None; 4] };
        };
        let chain = LimbChain { joints, slots };
        for &c in &cands {
            if !chain.joints.contains(&c) {
                rejected.push(self.off_chain(limb, side, c, &chain));
            }
        }
        chain
    }

    /// Every downward path of the candidate forest, from each candidate root
    /// to each candidate leaf (at most [`MAX_PATHS`]).
    fn candidate_paths(&self, cands: &[u16]) -> Vec<Vec<u16>> {
        let mut mask = vec![false; self.skeleton.joint_count()];
        for &c in cands {
            mask[c as usize] = true;
        }
        let is_cand = |j: usize| mask[j];
        let nearest = |j: u16| {
            let mut cur = self.skeleton.parent(j as usize);
            while let Some(p) = cur {
                if is_cand(p) {
                    return Some(p as u16);
                }
                cur = self.skeleton.parent(p);
            }
            None
        };
        let parent: Vec<Option<u16>> = cands.iter().map(|&c| nearest(c)).collect();
        let kids = |j: u16| -> Vec<u16> {
            cands.iter().zip(&parent).filter(|(_, p)| **p == Some(j)).map(|(&c, _)| c).collect()
        };
        let mut paths = Vec::new();
        let mut stack: Vec<Vec<u16>> =
            cands.iter().zip(&parent).filter(|(_, p)| p.is_none()).map(|(&c, _)| vec![c]).rev().collect();
        while let Some(path) = stack.pop() {
            if paths.len() >= MAX_PATHS {
                break;
            }
            let last = *path.last().unwrap_or(&0);
            let next = kids(last);
            if next.is_empty() {
                paths.push(path);
                continue;
            }
            for k in next.into_iter().rev() {
                let mut p = path.clone();
                p.push(k);
                stack.push(p);
            }
        }
        paths
    }

    /// Slots of one chain: named joints anchor their slot (strictly
    /// increasing; later repeats count as bare), bare joints fill the slots
    /// around the anchors by position (Mixamo's `LeftLeg` after `LeftUpLeg`
    /// is the lower leg; a bare three-joint arm is upper arm, forearm, hand).
    fn assign_slots(&self, limb: Limb, chain: &[u16]) -> [Option<u16>; 4] {
        let mut slots = [None; 4];
        let mut hints: Vec<Option<u8>> = Vec::with_capacity(chain.len());
        let mut last: Option<u8> = None;
        for &j in chain {
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
                slots[start + i] = Some(j);
            }
            return slots;
        };
        // Bare joints before the first anchor count backwards from it.
        let a0 = hints[first_anchor].unwrap_or(0) as usize;
        for k in 1..=first_anchor.min(a0) {
            slots[a0 - k] = Some(chain[first_anchor - k]);
        }
        // From each anchor on, bare joints take the next slots until the next anchor.
        let mut next_slot = 0usize;
        let mut limit = 4usize;
        for (i, &j) in chain.iter().enumerate().skip(first_anchor) {
            if let Some(h) = hints[i] {
                slots[h as usize] = Some(j);
                next_slot = h as usize + 1;
                limit = hints[i + 1..].iter().flatten().next().map_or(4, |&n| n as usize);
            } else if next_slot < limit {
                slots[next_slot] = Some(j);
                next_slot += 1;
            }
        }
        slots
    }

    /// Why candidate `c` is not on the winning chain.
    fn off_chain(&self, limb: Limb, side: Side, c: u16, chain: &LimbChain) -> Rejected {
        let slot = match self.classes[c as usize].hint {
            Hint::Limb(_, s) => s.map(usize::from),
            _ => None,
        };
        let role = slot.map(|s| if limb == Limb::Leg { Role::leg(side, s) } else { Role::arm(side, s) });
        let path: Vec<String> = chain.joints.iter().map(|&j| format!("`{}`", self.name(j))).collect();
        let hangs = match self.skeleton.parent(c as usize) {
            Some(p) => format!("it hangs from `{}`", self.name(p as u16)),
            None => "it is a root".to_owned(),
        };
        let above = slot.and_then(|s| (0..s).rev().find_map(|k| chain.slots[k].map(|j| (k, j))));
        let reason = match (slot.and_then(|s| chain.slots[s]), above) {
            (Some(taken), _) => format!(
                "the {} {} chain {} already has `{}` there; {hangs}",
                side.name(),
                limb.name(),
                path.join(" → "),
                self.name(taken)
            ),
            (None, Some((k, j))) if !self.skeleton.is_descendant_of(c as usize, j as usize) => {
                let what = if limb == Limb::Leg { Role::leg(side, k) } else { Role::arm(side, k) };
                format!(
                    "not a descendant of the {} `{}`, so not part of the {} {} chain ({hangs}; a rig control?)",
                    what.name().replace('_', " "),
                    self.name(j),
                    side.name(),
                    limb.name()
                )
            }
            _ => format!("not part of the {} {} chain {} ({hangs})", side.name(), limb.name(), path.join(" → ")),
        };
        Rejected { joint: c, role, reason }
    }

    /// Rig controls whose names say "left foot" and the like (`ik_foot_l`,
    /// `PoleTarget.L`) are never deform bones: say so.
    fn reject_controls(&self, limb: Limb, side: Side, rejected: &mut Vec<Rejected>) {
        for &j in self.skeleton.eval_order() {
            let c = self.classes[j as usize];
            let names_limb =
                matches!(c.hint, Hint::Limb(l, _) if l == limb) || (limb == Limb::Leg && c.helper == Some("pole"));
            if c.is_control() && c.side == Some(side) && names_limb {
                let role = match c.hint {
                    Hint::Limb(l, Some(s)) if l == limb => {
                        Some(if limb == Limb::Leg { Role::leg(side, s as usize) } else { Role::arm(side, s as usize) })
                    }
                    _ => None,
                };
                let token = c.helper.unwrap_or("ik");
                rejected.push(Rejected {
                    joint: j,
                    role,
                    reason: format!(
                        "a rig control (`{token}` in its name), not a deform bone of the {} {}",
                        side.name(),
                        limb.name()
                    ),
                });
            }
        }
    }

    /// Named hips when they carry both legs; otherwise the closest common
    /// ancestor of the upper legs (the named joint is then rejected: a
    /// Blender game rig's `Hips` is often a sibling of the legs under `Body`).
    fn hips(&self, roles: &mut BoneRoles) -> Option<u16> {
        let named = self.topmost(|c| c.role_hint() == Hint::Hips);
        let common = self.hips_from_legs(roles);
        match (named, roles.legs[0].upper, roles.legs[1].upper, common) {
            (Some(h), Some(l), Some(r), Some(common))
                if !(self.skeleton.is_descendant_of(l as usize, h as usize)
                    && self.skeleton.is_descendant_of(r as usize, h as usize)) =>
            {
                roles.rejected.push(Rejected {
                    joint: h,
                    role: Some(Role::Hips),
                    reason: format!(
                        "not an ancestor of both upper legs (`{}`, `{}`); the hips are their closest common ancestor `{}`",
                        self.name(l),
                        self.name(r),
                        self.name(common)
                    ),
                });
                Some(common)
            }
            _ => named.or(common),
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
            let class = self.classes[c as usize];
            if class.is_helper() || matches!(class.hint, Hint::Spine | Hint::Neck | Hint::Head) {
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
        let mut chain = self.chain_of(|c| c.role_hint() == Hint::Spine, roles.hips);
        if let Some(h) = roles.hips {
            chain.retain(|&j| j != h);
        }
        chain
    }
}

//! What a joint's name says: side, body part, or "helper" (never a role).
//!
//! A name is split into lowercase tokens (namespace prefixes such as
//! `mixamorig:` dropped; split at `_ . - :` spaces, digits and camel-case
//! humps), side tokens (`l`, `left`, `r`, `right`, also glued as in
//! `LeftUpLeg` or Daz's `lShin`) are taken out, filler tokens (`b`, `bip`,
//! `joint`, `skeleton`, `def`, …) are dropped, and the rest is matched
//! against keywords. A helper token (`end`, `twist`, `ik`, `pole`, `socket`,
//! fingers, …) marks the joint as a helper; the keywords are still read, so
//! discovery can say "`ik_foot_l` names a foot but is an IK control".

use super::Side;

/// Which limb a joint belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Limb {
    Leg,
    Arm,
}

impl Limb {
    pub(crate) const fn name(self) -> &'static str {
        match self {
            Limb::Leg => "leg",
            Limb::Arm => "arm",
        }
    }
}

/// What a joint name says about the body part.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Hint {
    /// Nothing recognisable.
    Unknown,
    Hips,
    Spine,
    Neck,
    Head,
    /// A limb bone; the slot when the name says which (0..=3), `None` for a bare `leg` / `arm`.
    Limb(Limb, Option<u8>),
}

/// The classification of one joint name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Class {
    pub side: Option<Side>,
    pub hint: Hint,
    /// The helper token that rules the joint out of every role (`ik`,
    /// `twist`, `end`, …), if any.
    pub helper: Option<&'static str>,
}

impl Class {
    /// Nothing is known about an unnamed joint.
    pub const UNNAMED: Class = Class { side: None, hint: Hint::Unknown, helper: None };

    /// Whether the joint may play a role at all.
    pub fn is_helper(&self) -> bool {
        self.helper.is_some()
    }

    /// The hint when the joint may play a role, else [`Hint::Unknown`].
    pub fn role_hint(&self) -> Hint {
        if self.is_helper() { Hint::Unknown } else { self.hint }
    }

    /// Whether the joint is a usable bone of `limb` on `side`.
    pub fn is_limb(&self, limb: Limb, side: Side) -> bool {
        !self.is_helper() && self.side == Some(side) && matches!(self.hint, Hint::Limb(l, _) if l == limb)
    }

    /// Whether the helper token marks a rig control (IK/FK target, pole) rather
    /// than a deform helper (twist, end, finger).
    pub fn is_control(&self) -> bool {
        self.helper.is_some_and(|h| CONTROLS.contains(&h))
    }
}

const FILLER: &[&str] =
    &["b", "bip", "bn", "bone", "jnt", "joint", "skeleton", "def", "j", "mixamorig", "armature", "rig", "deform"];

/// Tokens that mark a rig control: never a deform bone of a limb chain.
const CONTROLS: &[&str] = &["ik", "fk", "pole", "target", "ctrl", "control", "mch"];

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
    "carpal",
    "metacarpal",
    "pectoral",
];

/// Substrings that make a glued token a helper (`handslot`, `HandSocket`).
const EXCLUDED_GLUED: &[&str] = &["slot", "socket", "attach"];

/// Splits a joint name into lowercase tokens: namespace dropped, split at
/// punctuation, letter/digit changes and camel-case humps (`LeftUpLeg` →
/// `left up leg`, `HTMLBone` → `html bone`).
pub(crate) fn tokens(name: &str) -> Vec<String> {
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

/// Classifies one joint name.
pub(crate) fn classify(name: &str) -> Class {
    let mut side = None;
    let mut helper = None;
    let mut body = String::new();
    for tok in tokens(name) {
        if tok.chars().all(|c| c.is_ascii_digit()) {
            continue;
        }
        if helper.is_none() {
            helper = EXCLUDED
                .iter()
                .find(|e| **e == tok)
                .or_else(|| EXCLUDED_GLUED.iter().find(|e| tok.len() > e.len() && tok.contains(**e)))
                .copied();
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
    Class { side, hint: hint_of(&body, side.is_some()), helper }
}

fn hint_of(body: &str, sided: bool) -> Hint {
    let has = |words: &[&str]| words.iter().any(|w| body.contains(w));
    if sided {
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
        } else if has(&["upperarm", "uparm", "humerus", "shldr"]) {
            Hint::Limb(Limb::Arm, Some(1))
        } else if has(&["hand", "wrist", "palm", "fist"]) {
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
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_split_camel_case_namespaces_and_digits() {
        assert_eq!(tokens("mixamorig:LeftUpLeg"), ["left", "up", "leg"]);
        assert_eq!(tokens("b_LeftLeg01_015"), ["b", "left", "leg", "01", "015"]);
        assert_eq!(tokens("DEF-upper_arm.L.001"), ["def", "upper", "arm", "l", "001"]);
        assert_eq!(tokens("Skeleton_arm_joint_L__4_"), ["skeleton", "arm", "joint", "l", "4"]);
        assert_eq!(tokens("LUpperArm"), ["l", "upper", "arm"]);
        assert_eq!(tokens("lShldrBend"), ["l", "shldr", "bend"]);
    }

    #[test]
    fn classification_covers_the_common_schemes() {
        let c = |n: &str| {
            let k = classify(n);
            assert!(!k.is_helper(), "{n} is not a helper");
            (k.side, k.hint)
        };
        let leg = |s| (Some(s), Hint::Limb(Limb::Leg, None));
        let leg_at = |s, i| (Some(s), Hint::Limb(Limb::Leg, Some(i)));
        let arm_at = |s, i| (Some(s), Hint::Limb(Limb::Arm, Some(i)));
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
        assert_eq!(c("Palm.L"), arm_at(Side::Left, 3));
        assert_eq!(c("Fist.R"), arm_at(Side::Right, 3));
        assert_eq!(c("lShldrBend"), arm_at(Side::Left, 1), "Daz: Shldr is the upper arm");
        assert_eq!(c("lCollar"), arm_at(Side::Left, 0));
        assert_eq!(c("rForearmBend"), arm_at(Side::Right, 2));
        assert_eq!(c("lThighBend"), leg_at(Side::Left, 0));
        assert_eq!(c("pelvis").1, Hint::Hips);
        assert_eq!(c("mixamorig:Hips").1, Hint::Hips);
        assert_eq!(c("spine_01").1, Hint::Spine);
        assert_eq!(c("neck_01").1, Hint::Neck);
        assert_eq!(c("head").1, Hint::Head);
        for helper in [
            "LeftToe_End",
            "HeadTop_End",
            "thigh_twist_01_l",
            "ik_foot_l",
            "LeftHandIndex1",
            "socket_hand_L",
            "handslot.l",
            "PoleTarget.L",
            "lThighTwist",
        ] {
            assert!(classify(helper).is_helper(), "{helper}");
        }
        let ik = classify("ik_foot_l");
        assert_eq!((ik.side, ik.hint), leg_at(Side::Left, 2), "a helper still says what it names");
        assert!(ik.is_control() && classify("PoleTarget.L").is_control());
        assert!(!classify("thigh_twist_01_l").is_control());
    }
}

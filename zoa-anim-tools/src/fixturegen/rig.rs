//! The fixture humanoid's joints, its pose parameters ([`Body`]) and the
//! forward / two-bone inverse kinematics that turn parameters into local
//! joint rotations.
//!
//! Conventions: metres, Y up, the character faces +Z, its left is +X. The
//! rest pose is a T-pose (arms straight out along ±X, palms down, legs
//! straight, feet flat on the floor at y = 0) and **every rest rotation is
//! the identity**, so each joint's local axes equal the model axes at rest
//! and a local rotation reads directly as "pitch / yaw / roll about the
//! body's axes".

use super::math::{Q, V3, acos, atan2, euler, v3};

/// One joint of the rig, in skin order (parents before children).
#[derive(Debug, Clone)]
pub struct JointDef {
    /// Mixamo-style name without a namespace prefix.
    pub name: String,
    /// Parent joint index.
    pub parent: Option<usize>,
    /// Rest translation relative to the parent (metres).
    pub offset: V3,
}

/// Joint indices of one side (left or right).
#[derive(Debug, Clone, Copy)]
pub struct SideJoints {
    /// Clavicle.
    pub shoulder: usize,
    /// Upper arm.
    pub arm: usize,
    /// Forearm.
    pub forearm: usize,
    /// Wrist.
    pub hand: usize,
    /// Thumb, index, middle, ring, pinky; three phalanges each.
    pub fingers: [[usize; 3]; 5],
    /// Thigh.
    pub upleg: usize,
    /// Shin.
    pub leg: usize,
    /// Ankle.
    pub foot: usize,
    /// Ball of the foot.
    pub toe: usize,
}

/// The humanoid rig: joints plus named indices.
#[derive(Debug, Clone)]
pub struct Rig {
    /// Joints in skin order.
    pub joints: Vec<JointDef>,
    /// Pelvis (the root).
    pub hips: usize,
    /// Lower, middle and upper spine.
    pub spine: [usize; 3],
    /// Neck.
    pub neck: usize,
    /// Head.
    pub head: usize,
    /// Left (0) and right (1) limbs.
    pub sides: [SideJoints; 2],
}

/// Finger names in [`SideJoints::fingers`] order.
pub const FINGERS: [&str; 5] = ["Thumb", "Index", "Middle", "Ring", "Pinky"];

/// Left-hand phalanx offsets (metres); the first is relative to the hand.
const FINGER_OFFSETS: [[V3; 3]; 5] = [
    [v3(0.025, -0.01, 0.025), v3(0.025, 0.0, 0.02), v3(0.02, 0.0, 0.015)],
    [v3(0.09, 0.0, 0.025), v3(0.035, 0.0, 0.0), v3(0.025, 0.0, 0.0)],
    [v3(0.092, 0.0, 0.005), v3(0.04, 0.0, 0.0), v3(0.028, 0.0, 0.0)],
    [v3(0.088, 0.0, -0.015), v3(0.035, 0.0, 0.0), v3(0.025, 0.0, 0.0)],
    [v3(0.08, 0.0, -0.033), v3(0.028, 0.0, 0.0), v3(0.02, 0.0, 0.0)],
];

/// Rest height of the hips joint (metres).
pub const HIPS_HEIGHT: f64 = 1.0;
/// Rest height of the ankle joint above the floor (metres).
pub const ANKLE_HEIGHT: f64 = 0.09;
/// Ball of the foot (toe joint projected to the floor) ahead of the ankle (metres).
pub const BALL_FORWARD: f64 = 0.12;
/// Back of the heel behind the ankle (metres).
pub const HEEL_BACK: f64 = 0.05;

impl Rig {
    /// Builds the 55-joint humanoid.
    pub fn humanoid() -> Rig {
        let mut joints = Vec::new();
        let mut add = |name: &str, parent: Option<usize>, offset: V3| {
            joints.push(JointDef { name: name.to_owned(), parent, offset });
            joints.len() - 1
        };
        let hips = add("Hips", None, v3(0.0, HIPS_HEIGHT, 0.0));
        let spine0 = add("Spine", Some(hips), v3(0.0, 0.10, 0.0));
        let spine1 = add("Spine1", Some(spine0), v3(0.0, 0.12, 0.0));
        let spine2 = add("Spine2", Some(spine1), v3(0.0, 0.13, 0.0));
        let neck = add("Neck", Some(spine2), v3(0.0, 0.15, 0.0));
        let head = add("Head", Some(neck), v3(0.0, 0.09, 0.01));
        add("HeadTop_End", Some(head), v3(0.0, 0.16, 0.0));
        let mut arms = Vec::new();
        for (prefix, m) in [("Left", 1.0), ("Right", -1.0)] {
            let mx = |v: V3| v3(v.x * m, v.y, v.z);
            let shoulder = add(&format!("{prefix}Shoulder"), Some(spine2), mx(v3(0.06, 0.11, 0.0)));
            let arm = add(&format!("{prefix}Arm"), Some(shoulder), mx(v3(0.12, 0.0, 0.0)));
            let forearm = add(&format!("{prefix}ForeArm"), Some(arm), mx(v3(0.27, 0.0, 0.0)));
            let hand = add(&format!("{prefix}Hand"), Some(forearm), mx(v3(0.25, 0.0, 0.0)));
            let mut fingers = [[0; 3]; 5];
            for (f, name) in FINGERS.iter().enumerate() {
                let mut parent = hand;
                for k in 0..3 {
                    parent = add(&format!("{prefix}Hand{name}{}", k + 1), Some(parent), mx(FINGER_OFFSETS[f][k]));
                    fingers[f][k] = parent;
                }
            }
            arms.push((shoulder, arm, forearm, hand, fingers));
        }
        let mut legs = Vec::new();
        for (prefix, m) in [("Left", 1.0), ("Right", -1.0)] {
            let mx = |v: V3| v3(v.x * m, v.y, v.z);
            let upleg = add(&format!("{prefix}UpLeg"), Some(hips), mx(v3(0.09, -0.05, 0.0)));
            let leg = add(&format!("{prefix}Leg"), Some(upleg), v3(0.0, -0.44, 0.0));
            let foot = add(&format!("{prefix}Foot"), Some(leg), v3(0.0, -0.42, 0.0));
            let toe = add(&format!("{prefix}ToeBase"), Some(foot), v3(0.0, -0.06, BALL_FORWARD));
            add(&format!("{prefix}Toe_End"), Some(toe), v3(0.0, 0.0, 0.07));
            legs.push((upleg, leg, foot, toe));
        }
        let side = |i: usize| {
            let (shoulder, arm, forearm, hand, fingers) = arms[i];
            let (upleg, leg, foot, toe) = legs[i];
            SideJoints { shoulder, arm, forearm, hand, fingers, upleg, leg, foot, toe }
        };
        let sides = [side(0), side(1)];
        Rig { joints, hips, spine: [spine0, spine1, spine2], neck, head, sides }
    }

    /// Index of the joint called `name`.
    #[cfg(test)]
    pub fn find(&self, name: &str) -> Option<usize> {
        self.joints.iter().position(|j| j.name == name)
    }

    /// Model-space positions of every joint at rest.
    pub fn rest_positions(&self) -> Vec<V3> {
        let mut out: Vec<V3> = Vec::with_capacity(self.joints.len());
        for j in &self.joints {
            let base = j.parent.map_or(V3::ZERO, |p| out[p]);
            out.push(base.add(j.offset));
        }
        out
    }

    /// Model-space rotations and positions of every joint for local rotations `rot`
    /// and hips translation `hips`.
    pub fn forward(&self, rot: &[Q], hips: V3) -> (Vec<Q>, Vec<V3>) {
        let mut g_rot: Vec<Q> = Vec::with_capacity(self.joints.len());
        let mut g_pos: Vec<V3> = Vec::with_capacity(self.joints.len());
        for (i, j) in self.joints.iter().enumerate() {
            match j.parent {
                Some(p) => {
                    g_pos.push(g_pos[p].add(g_rot[p].rotate(j.offset)));
                    g_rot.push(g_rot[p].mul(rot[i]));
                }
                None => {
                    g_pos.push(hips);
                    g_rot.push(rot[i]);
                }
            }
        }
        (g_rot, g_pos)
    }
}

/// Pose parameters of one arm. The FK fields are written for the *left* arm
/// and mirrored for the right; the IK fields are actual positions and
/// rotations in the upper-chest (`Spine2`) frame and are not mirrored.
#[derive(Debug, Clone, Copy, Default)]
pub struct Arm {
    /// Clavicle raise (radians, + up).
    pub shrug: f64,
    /// Clavicle forward (radians, + forward).
    pub protract: f64,
    /// FK: upper arm lowered from the T-pose toward the side (radians; ~1.3 hangs).
    pub down: f64,
    /// FK: upper arm swing (radians, + forward).
    pub swing: f64,
    /// FK: elbow flexion (radians, >= 0).
    pub elbow: f64,
    /// Wrist flexion toward the palm (radians).
    pub wrist: f64,
    /// Middle, ring and pinky curl (0 straight ..= 1 fist).
    pub curl: f64,
    /// Index finger curl (0 ..= 1).
    pub index: f64,
    /// Thumb curl across the palm (0 ..= 1).
    pub thumb: f64,
    /// IK: wrist target in the `Spine2` frame (metres).
    pub target: V3,
    /// IK: direction the elbow should point, `Spine2` frame.
    pub pole: V3,
    /// IK: hand rotation in the `Spine2` frame as (yaw about Y, pitch about X, roll about Z),
    /// applied yaw first, then X, then Z.
    pub hand: V3,
}

/// Pose parameters of one leg, in model space (actual values, not mirrored).
#[derive(Debug, Clone, Copy, Default)]
pub struct Leg {
    /// Ankle joint target (metres).
    pub ankle: V3,
    /// Foot pitch in model space (radians, + toes up).
    pub pitch: f64,
    /// Foot yaw in model space (radians, + toes toward the character's left).
    pub yaw: f64,
    /// Toe bend relative to the foot (radians, + toes up).
    pub toe: f64,
}

impl Leg {
    /// The same leg placement for the other side.
    pub fn mirror(self) -> Leg {
        Leg { ankle: self.ankle.mirror(), pitch: self.pitch, yaw: -self.yaw, toe: self.toe }
    }
}

/// All pose parameters of the body. Torso angles are `(pitch, yaw, roll)`
/// with pitch + bending forward (chin toward chest), yaw + turning to the
/// character's left, roll + tilting toward the character's right; the spine
/// total is spread over its three joints.
#[derive(Debug, Clone, Copy, Default)]
pub struct Body {
    /// Hips joint position (metres).
    pub hips: V3,
    /// Pelvis rotation (pitch, yaw, roll).
    pub pelvis: V3,
    /// Whole-spine rotation (pitch, yaw, roll), spread 30 / 35 / 35 %.
    pub spine: V3,
    /// Neck rotation.
    pub neck: V3,
    /// Head rotation.
    pub head: V3,
    /// Left (0) and right (1) arm.
    pub arms: [Arm; 2],
    /// Left (0) and right (1) leg.
    pub legs: [Leg; 2],
}

fn visit_v3(v: &mut V3, f: &mut dyn FnMut(&mut f64)) {
    f(&mut v.x);
    f(&mut v.y);
    f(&mut v.z);
}

impl Body {
    /// Calls `f` on every scalar, in a fixed order.
    pub fn visit(&mut self, f: &mut dyn FnMut(&mut f64)) {
        for v in [&mut self.hips, &mut self.pelvis, &mut self.spine, &mut self.neck, &mut self.head] {
            visit_v3(v, f);
        }
        for a in &mut self.arms {
            for s in [
                &mut a.shrug,
                &mut a.protract,
                &mut a.down,
                &mut a.swing,
                &mut a.elbow,
                &mut a.wrist,
                &mut a.curl,
                &mut a.index,
                &mut a.thumb,
            ] {
                f(s);
            }
            for v in [&mut a.target, &mut a.pole, &mut a.hand] {
                visit_v3(v, f);
            }
        }
        for l in &mut self.legs {
            visit_v3(&mut l.ankle, f);
            for s in [&mut l.pitch, &mut l.yaw, &mut l.toe] {
                f(s);
            }
        }
    }

    /// Every scalar, in [`Body::visit`] order.
    pub fn to_params(mut self) -> Vec<f64> {
        let mut out = Vec::new();
        self.visit(&mut |x| out.push(*x));
        out
    }

    /// Inverse of [`Body::to_params`].
    pub fn from_params(params: &[f64]) -> Body {
        let mut b = Body::default();
        let mut it = params.iter();
        b.visit(&mut |x| *x = *it.next().expect("params from to_params"));
        b
    }

    /// `Σ wᵢ·bodyᵢ`, field by field.
    pub fn combine(parts: &[(f64, &Body)]) -> Body {
        let mut acc = vec![0.0; Body::default().to_params().len()];
        for (w, b) in parts {
            for (a, x) in acc.iter_mut().zip(b.to_params()) {
                *a += w * x;
            }
        }
        Body::from_params(&acc)
    }
}

/// Outcome of a two-bone solve, for the plausibility tests.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Reach {
    /// Target distance over chain length; above 1 means the target was out of reach.
    pub ratio: f64,
}

/// Two-bone IK for a chain that is straight at rest.
///
/// `upper` is the mid joint's offset in the root's frame, `lower` the end
/// joint's offset in the mid joint's frame, `hinge` the mid joint's bend axis
/// (positive angle bends the right way), `target` and `pole` are in the
/// root's parent frame relative to the root joint. Returns the root and mid
/// local rotations.
pub fn two_bone(upper: V3, lower: V3, hinge: V3, target: V3, pole: V3) -> (Q, Q, Reach) {
    let a = upper.length();
    let b = lower.length();
    let d_raw = target.length();
    let ratio = d_raw / (a + b);
    let d = d_raw.clamp((a - b).abs() + 1e-6, (a + b) * (1.0 - 1e-9));
    let bend = acos((a * a + b * b - d * d) / (2.0 * a * b));
    // Interior angle `bend` at the mid joint; a straight chain has π.
    let mid = Q::axis_angle(hinge, std::f64::consts::PI - bend);
    let end = upper.add(mid.rotate(lower));
    let dir = target.scale(1.0 / d_raw.max(1e-12));
    let q1 = Q::arc(end.normalize(), dir);
    // Twist about the root→target line so the mid joint leans toward the pole.
    let m = q1.rotate(upper);
    let m_p = m.sub(dir.scale(m.dot(dir)));
    let p_p = pole.sub(dir.scale(pole.dot(dir)));
    let root = if m_p.length() > 1e-9 && p_p.length() > 1e-9 {
        let angle = atan2(dir.dot(m_p.cross(p_p)), m_p.dot(p_p));
        Q::axis_angle(dir, angle).mul(q1)
    } else {
        q1
    };
    (root, mid, Reach { ratio })
}

/// Local joint rotations and hips translation: one sampled pose.
#[derive(Debug, Clone)]
pub struct RigPose {
    /// Local rotation per joint.
    pub rot: Vec<Q>,
    /// Hips translation (metres).
    pub hips: V3,
    /// Largest target-distance / chain-length ratio among the IK solves.
    pub worst_reach: f64,
}

/// How a clip drives the arms.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArmDrive {
    /// Angles ([`Arm::down`], [`Arm::swing`], [`Arm::elbow`]).
    Fk,
    /// Wrist targets in the chest frame ([`Arm::target`], [`Arm::pole`], [`Arm::hand`]).
    Ik,
}

/// Finger curl limits per phalanx (radians at curl 1).
const CURL: [f64; 3] = [1.2, 1.5, 1.0];
const THUMB_CURL: [f64; 3] = [0.6, 0.5, 0.5];

impl Rig {
    /// Turns parameters into local rotations (FK for the torso, IK or FK for
    /// the arms, IK for the legs with the knees pointing forward).
    pub fn pose(&self, body: &Body, arms: ArmDrive) -> RigPose {
        let n = self.joints.len();
        let mut rot = vec![Q::IDENTITY; n];
        // Torso parts point up, so a forward bend is +x here (the opposite of a leg's pitch).
        let e = |v: V3| euler(-v.x, v.y, v.z);
        rot[self.hips] = e(body.pelvis);
        for (j, share) in self.spine.iter().zip([0.3, 0.35, 0.35]) {
            rot[*j] = e(body.spine.scale(share));
        }
        rot[self.neck] = e(body.neck);
        rot[self.head] = e(body.head);
        for (s, side) in self.sides.iter().enumerate() {
            let mirror = |q: Q| if s == 0 { q } else { q.mirror() };
            let a = &body.arms[s];
            rot[side.shoulder] = mirror(Q::ry(-a.protract).mul(Q::rz(a.shrug)));
            rot[side.hand] = mirror(Q::rz(-a.wrist));
            for (f, chain) in side.fingers.iter().enumerate() {
                for (k, &j) in chain.iter().enumerate() {
                    rot[j] = mirror(match f {
                        0 => Q::rx(a.thumb * THUMB_CURL[k]),
                        1 => Q::rz(-a.index * CURL[k]),
                        _ => Q::rz(-a.curl * CURL[k]),
                    });
                }
            }
            if arms == ArmDrive::Fk {
                rot[side.arm] = mirror(Q::rx(-a.swing).mul(Q::rz(-a.down)));
                rot[side.forearm] = mirror(Q::ry(-a.elbow));
            }
        }
        // Torso and clavicles are final now; the limbs only need their parents.
        let (g_rot, g_pos) = self.forward(&rot, body.hips);
        let mut worst: f64 = 0.0;
        if arms == ArmDrive::Ik {
            let chest = self.spine[2];
            for (s, side) in self.sides.iter().enumerate() {
                let a = &body.arms[s];
                let parent = g_rot[side.shoulder];
                let target = g_pos[chest].add(g_rot[chest].rotate(a.target));
                let to_target = parent.conj().rotate(target.sub(g_pos[side.arm]));
                let pole = parent.conj().rotate(g_rot[chest].rotate(a.pole));
                let hinge = if s == 0 { v3(0.0, -1.0, 0.0) } else { v3(0.0, 1.0, 0.0) };
                let upper = self.joints[side.forearm].offset;
                let lower = self.joints[side.hand].offset;
                let (r, m, reach) = two_bone(upper, lower, hinge, to_target, pole);
                worst = worst.max(reach.ratio);
                rot[side.arm] = r;
                rot[side.forearm] = m;
                let want = g_rot[chest].mul(Q::rz(a.hand.z).mul(Q::rx(a.hand.y)).mul(Q::ry(a.hand.x)));
                rot[side.hand] = parent.mul(r).mul(m).conj().mul(want);
            }
        }
        let pelvis = g_rot[self.hips];
        for (s, side) in self.sides.iter().enumerate() {
            let l = &body.legs[s];
            let to_target = pelvis.conj().rotate(l.ankle.sub(g_pos[side.upleg]));
            let pole = if s == 0 { v3(0.15, 0.0, 1.0) } else { v3(-0.15, 0.0, 1.0) };
            let upper = self.joints[side.leg].offset;
            let lower = self.joints[side.foot].offset;
            let (r, m, reach) = two_bone(upper, lower, v3(1.0, 0.0, 0.0), to_target, pole);
            worst = worst.max(reach.ratio);
            rot[side.upleg] = r;
            rot[side.leg] = m;
            let want = euler(l.pitch, l.yaw, 0.0);
            rot[side.foot] = pelvis.mul(r).mul(m).conj().mul(want);
            rot[side.toe] = Q::rx(-l.toe);
        }
        RigPose { rot, hips: body.hips, worst_reach: worst }
    }
}

/// Where the ankle is for a foot whose sole reference point (on the floor,
/// under the ankle at rest) is at `sole` and which is pitched by `pitch`
/// (+ toes up): it rolls on the heel when toes are up and on the ball when
/// the heel is up, as a foot does.
pub fn ankle_over(sole: V3, pitch: f64) -> V3 {
    let up = v3(0.0, ANKLE_HEIGHT, 0.0);
    if pitch > 0.0 {
        let heel = sole.add(v3(0.0, 0.0, -HEEL_BACK));
        heel.add(euler(pitch, 0.0, 0.0).rotate(up.add(v3(0.0, 0.0, HEEL_BACK))))
    } else if pitch < 0.0 {
        let ball = sole.add(v3(0.0, 0.0, BALL_FORWARD));
        ball.add(euler(pitch, 0.0, 0.0).rotate(up.add(v3(0.0, 0.0, -BALL_FORWARD))))
    } else {
        sole.add(up)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rig_has_55_joints_with_the_mixamo_main_chain() {
        let rig = Rig::humanoid();
        assert_eq!(rig.joints.len(), 55);
        for name in ["Hips", "Spine2", "HeadTop_End", "LeftHandThumb3", "RightHandPinky1", "RightToe_End"] {
            assert!(rig.find(name).is_some(), "{name}");
        }
        let rest = rig.rest_positions();
        let top = rest[rig.find("HeadTop_End").unwrap()];
        assert!((top.y - 1.75).abs() < 1e-9);
        assert!((rest[rig.sides[0].foot].y - ANKLE_HEIGHT).abs() < 1e-9);
        // The right side mirrors the left.
        let (l, r) = (rig.sides[0], rig.sides[1]);
        assert_eq!(rest[l.fingers[4][2]].mirror(), rest[r.fingers[4][2]]);
        assert_eq!(rest[l.toe].mirror(), rest[r.toe]);
    }

    #[test]
    fn two_bone_ik_reaches_the_target_with_the_knee_toward_the_pole() {
        let upper = v3(0.0, -0.44, 0.0);
        let lower = v3(0.0, -0.42, 0.0);
        for target in [v3(0.1, -0.7, 0.3), v3(-0.05, -0.5, -0.2), v3(0.0, -0.85, 0.0), v3(0.0, -0.3, 0.4)] {
            let (r, m, reach) = two_bone(upper, lower, v3(1.0, 0.0, 0.0), target, v3(0.0, 0.0, 1.0));
            assert!(reach.ratio < 1.0);
            let knee = r.rotate(upper);
            let end = knee.add(r.mul(m).rotate(lower));
            assert!(end.sub(target).length() < 1e-9, "{target:?} -> {end:?}");
            // The knee sits in front of the hip→ankle line.
            let dir = target.normalize();
            let off = knee.sub(dir.scale(knee.dot(dir)));
            assert!(off.z >= -1e-9, "knee behind the line for {target:?}");
        }
    }

    #[test]
    fn ik_poses_put_ankles_and_wrists_on_their_targets() {
        let rig = Rig::humanoid();
        let mut body = Body { hips: v3(0.0, 0.95, 0.0), ..Body::default() };
        body.pelvis = v3(0.1, -0.2, 0.05);
        body.spine = v3(0.2, 0.3, 0.0);
        body.legs[0] = Leg { ankle: v3(0.12, 0.12, 0.25), pitch: 0.3, yaw: 0.1, toe: 0.0 };
        body.legs[1] = Leg { ankle: v3(-0.1, 0.09, -0.2), pitch: 0.0, yaw: 0.0, toe: 0.2 };
        body.arms[0].target = v3(0.05, 0.0, 0.4);
        body.arms[0].pole = v3(0.5, -1.0, 0.0);
        body.arms[1].target = v3(-0.1, -0.05, 0.28);
        body.arms[1].pole = v3(-0.7, -0.6, 0.0);
        body.arms[1].hand = v3(1.2, 0.0, 1.5);
        let pose = rig.pose(&body, ArmDrive::Ik);
        let (g_rot, g_pos) = rig.forward(&pose.rot, pose.hips);
        assert!(g_pos[rig.sides[0].foot].sub(body.legs[0].ankle).length() < 1e-9);
        assert!(g_pos[rig.sides[1].foot].sub(body.legs[1].ankle).length() < 1e-9);
        let chest = rig.spine[2];
        let wrist = g_pos[chest].add(g_rot[chest].rotate(body.arms[0].target));
        assert!(g_pos[rig.sides[0].hand].sub(wrist).length() < 1e-9);
        // The foot's model-space orientation is the requested pitch and yaw.
        let foot = g_rot[rig.sides[0].foot];
        let want = euler(0.3, 0.1, 0.0);
        let fwd = v3(0.0, 0.0, 1.0);
        assert!(foot.rotate(fwd).sub(want.rotate(fwd)).length() < 1e-9);
        let hand = g_rot[rig.sides[1].hand];
        let want = g_rot[chest].mul(Q::rz(1.5).mul(Q::ry(1.2)));
        assert!(hand.rotate(fwd).sub(want.rotate(fwd)).length() < 1e-9);
    }

    #[test]
    fn a_flat_foot_keeps_its_ankle_at_rest_height_and_rolling_keeps_the_pivot_on_the_floor() {
        let sole = v3(0.1, 0.0, 0.3);
        assert_eq!(ankle_over(sole, 0.0), v3(0.1, ANKLE_HEIGHT, 0.3));
        // Heel up: the ball stays where it was; toes up: the heel stays.
        for pitch in [-0.6, 0.4] {
            let ankle = ankle_over(sole, pitch);
            let q = euler(pitch, 0.0, 0.0);
            let ball = ankle.add(q.rotate(v3(0.0, -ANKLE_HEIGHT, BALL_FORWARD)));
            let heel = ankle.add(q.rotate(v3(0.0, -ANKLE_HEIGHT, -HEEL_BACK)));
            let pivot = if pitch < 0.0 { ball } else { heel };
            let rest = if pitch < 0.0 { sole.z + BALL_FORWARD } else { sole.z - HEEL_BACK };
            assert!(pivot.y.abs() < 1e-12 && (pivot.z - rest).abs() < 1e-12);
            assert!(ball.y > -1e-12 && heel.y > -1e-12);
        }
    }
}

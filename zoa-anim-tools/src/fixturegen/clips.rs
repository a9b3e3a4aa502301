//! The fixture humanoid's 14 procedurally authored clips.
//!
//! Every clip is a pure function from time to [`Body`] parameters, sampled
//! at 30 fps and turned into local joint rotations by [`Rig::pose`].
//!
//! * **Cycles** (`idle`, `walk`, `run`, `sprint`, `crouch_idle`,
//!   `crouch_walk`, `fall`, `rifle_aim`) are periodic in their phase and the
//!   last key is computed from phase 0, so first and last poses are
//!   bit-identical and the clip loops seamlessly.
//! * **Locomotion is in place**: the Hips keep x/z near 0 and the feet move
//!   backward under the body during stance at exactly the clip's nominal
//!   speed (walk 1.2 m/s, run 3.3 m/s, sprint 6.0 m/s,
//!   crouch walk 0.9 m/s), i.e. a treadmill. Gameplay moves the root at that
//!   speed. Feet roll heel → flat → ball like a real foot (the pivot stays
//!   on the floor, see [`ankle_over`]), legs are placed by two-bone IK with
//!   the knees forward, arms counter-swing, the pelvis bobs, sways and yaws.
//! * **One-shots** interpolate a few authored key poses with a cubic
//!   Hermite (Catmull-Rom inner tangents, zero end tangents).
//! * `fire_recoil` starts and ends exactly on the `rifle_aim` pose, so it can
//!   be applied additively against its first frame.
//! * `reload` keeps the Hips and feet fixed; the left hand's finger curl
//!   (Index/Middle/Ring/Pinky, 12 joints) is written with **STEP**
//!   interpolation (grip / release). `jump_start`'s Hips translation is a
//!   **CUBICSPLINE** channel with finite-difference tangents. Everything
//!   else is LINEAR.

use super::math::{cos, sin, smooth, v3};
use super::rig::{Arm, ArmDrive, Body, Leg, Rig, RigPose, ankle_over};
use std::f64::consts::{FRAC_PI_2, PI, TAU};

/// Keys per second.
pub const FPS: f64 = 30.0;

/// How a joint's rotation track is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sampling {
    /// Every frame, LINEAR.
    Linear,
    /// Constant over the clip: two equal LINEAR keys, at the first and last frame.
    Held,
    /// STEP, with a key only where the value changes (plus the first and last frame).
    Step,
}

/// One clip: name, length, loop flag and its pose function.
#[derive(Debug, Clone, Copy)]
pub struct ClipSpec {
    /// glTF animation name.
    pub name: &'static str,
    /// Length in frames at [`FPS`]; the clip has `frames + 1` keys.
    pub frames: u32,
    /// Whether the clip is a cycle (first and last pose identical).
    pub looping: bool,
    /// Arm control mode.
    pub arms: ArmDrive,
    /// Pose at time `t` seconds (for loops, `t` is in `0..duration`).
    pub body: fn(f64) -> Body,
    /// Side (0 left, 1 right) whose non-thumb finger tracks are STEP.
    pub step_fingers: Option<usize>,
    /// Whether the Hips translation is a CUBICSPLINE channel.
    pub cubic_hips: bool,
}

impl ClipSpec {
    /// The pose of frame `k` (`0..=frames`).
    pub fn pose(&self, rig: &Rig, k: u32) -> RigPose {
        let k = if self.looping { k % self.frames } else { k };
        rig.pose(&(self.body)(k as f64 / FPS), self.arms)
    }
}

/// All clips, in file order.
pub fn specs() -> [ClipSpec; 14] {
    let spec = |name: &'static str, frames: u32, looping: bool, body: fn(f64) -> Body| ClipSpec {
        name,
        frames,
        looping,
        arms: ArmDrive::Fk,
        body,
        step_fingers: None,
        cubic_hips: false,
    };
    [
        spec("idle", 90, true, idle),
        spec("walk", 30, true, |t| gait(&WALK, t)),
        spec("run", 21, true, |t| gait(&RUN, t)),
        spec("sprint", 16, true, |t| gait(&SPRINT, t)),
        spec("crouch_idle", 60, true, crouch_idle),
        spec("crouch_walk", 36, true, |t| gait(&CROUCH_WALK, t)),
        ClipSpec { cubic_hips: true, ..spec("jump_start", 12, false, jump_start) },
        spec("fall", 18, true, fall),
        spec("land", 15, false, land),
        ClipSpec { arms: ArmDrive::Ik, ..spec("rifle_aim", 30, true, |_| aim()) },
        ClipSpec { arms: ArmDrive::Ik, ..spec("fire_recoil", 9, false, fire_recoil) },
        ClipSpec { arms: ArmDrive::Ik, step_fingers: Some(0), ..spec("reload", 60, false, reload) },
        spec("hit_react", 18, false, hit_react),
        spec("death", 45, false, death),
    ]
}

// ---------------------------------------------------------------- base poses

/// Relaxed standing: arms hanging, knees soft, feet slightly apart, toes out.
fn stand() -> Body {
    let arm =
        Arm { down: 1.3, swing: 0.05, elbow: 0.25, wrist: 0.1, curl: 0.3, index: 0.25, thumb: 0.3, ..Arm::default() };
    let leg = Leg { ankle: v3(0.11, 0.09, 0.0), yaw: 0.12, ..Leg::default() };
    Body {
        hips: v3(0.0, 0.975, 0.0),
        spine: v3(0.02, 0.0, 0.0),
        arms: [arm; 2],
        legs: [leg, leg.mirror()],
        ..Body::default()
    }
}

/// Rifle shouldered: bladed stance (pelvis turned right, chest square), right
/// hand on the grip under the right shoulder, left hand forward under the
/// handguard, cheek down on the stock.
fn aim() -> Body {
    let left = Arm {
        protract: 0.25,
        curl: 0.7,
        index: 0.6,
        thumb: 0.5,
        target: v3(0.03, 0.0, 0.44),
        pole: v3(0.4, -1.0, -0.2),
        hand: v3(-FRAC_PI_2, 0.0, -0.75 * PI),
        ..Arm::default()
    };
    let right = Arm {
        shrug: 0.05,
        protract: 0.1,
        curl: 0.8,
        index: 0.3,
        thumb: 0.6,
        target: v3(-0.10, -0.03, 0.26),
        pole: v3(-0.8, -0.6, -0.2),
        hand: v3(FRAC_PI_2, 0.0, FRAC_PI_2),
        ..Arm::default()
    };
    Body {
        hips: v3(0.0, 0.96, -0.01),
        pelvis: v3(0.08, -0.2, 0.0),
        spine: v3(0.05, 0.2, 0.0),
        head: v3(0.1, 0.0, 0.1),
        arms: [left, right],
        legs: [
            Leg { ankle: v3(0.13, 0.09, 0.15), yaw: 0.1, ..Leg::default() },
            Leg { ankle: v3(-0.15, 0.09, -0.12), yaw: -0.5, ..Leg::default() },
        ],
        ..Body::default()
    }
}

// --------------------------------------------------------------- interpolation

/// Cubic Hermite through `keys` (Catmull-Rom inner tangents, zero tangents at
/// the ends). A parameter equal in every key is copied exactly, so what is
/// meant to stay still (feet in `reload`) does not pick up rounding noise.
fn keyed(keys: &[(f64, Body)], t: f64) -> Body {
    let (first, last) = (&keys[0], &keys[keys.len() - 1]);
    if t <= first.0 {
        return first.1;
    }
    if t >= last.0 {
        return last.1;
    }
    let i = keys.iter().rposition(|k| k.0 <= t).unwrap_or(0);
    let (t0, t1) = (keys[i].0, keys[i + 1].0);
    let h = t1 - t0;
    let s = (t - t0) / h;
    let (s2, s3) = (s * s, s * s * s);
    let h00 = 2.0 * s3 - 3.0 * s2 + 1.0;
    let h10 = s3 - 2.0 * s2 + s;
    let h01 = -2.0 * s3 + 3.0 * s2;
    let h11 = s3 - s2;
    let mut parts: Vec<(f64, &Body)> = vec![(h00, &keys[i].1), (h01, &keys[i + 1].1)];
    if i > 0 {
        let w = h10 * h / (t1 - keys[i - 1].0);
        parts.push((w, &keys[i + 1].1));
        parts.push((-w, &keys[i - 1].1));
    }
    if i + 2 < keys.len() {
        let w = h11 * h / (keys[i + 2].0 - t0);
        parts.push((w, &keys[i + 2].1));
        parts.push((-w, &keys[i].1));
    }
    let mut out = Body::combine(&parts);
    let params: Vec<Vec<f64>> = keys.iter().map(|k| k.1.to_params()).collect();
    let mut p = out.to_params();
    for (j, v) in p.iter_mut().enumerate() {
        if params.iter().all(|k| k[j].to_bits() == params[0][j].to_bits()) {
            *v = params[0][j];
        }
    }
    out = Body::from_params(&p);
    out
}

/// Edits a copy of `b`.
fn with(mut b: Body, f: impl FnOnce(&mut Body)) -> Body {
    f(&mut b);
    b
}

/// `phase + 0.5`, wrapped into `0..1`.
fn half_later(phase: f64) -> f64 {
    if phase >= 0.5 { phase - 0.5 } else { phase + 0.5 }
}

// ---------------------------------------------------------------- cycles

fn idle(t: f64) -> Body {
    let phase = t / 3.0;
    let breath = sin(TAU * phase);
    with(stand(), |b| {
        b.spine.x -= 0.02 * breath;
        b.head.x += 0.012 * breath;
        b.hips.x += 0.006 * cos(TAU * phase);
        b.hips.y += 0.002 * breath;
        for a in &mut b.arms {
            a.shrug += 0.03 * breath;
            a.swing += 0.02 * breath;
        }
    })
}

fn crouch_idle(t: f64) -> Body {
    let breath = sin(TAU * t / 2.0);
    let arm =
        Arm { down: 1.2, swing: 0.35, elbow: 1.1, wrist: 0.2, curl: 0.5, index: 0.4, thumb: 0.4, ..Arm::default() };
    Body {
        hips: v3(0.0, 0.64 + 0.003 * breath, -0.02),
        pelvis: v3(0.4, 0.0, 0.0),
        spine: v3(0.15 - 0.025 * breath, 0.0, 0.0),
        head: v3(-0.45 + 0.015 * breath, 0.0, 0.0),
        arms: [Arm { shrug: 0.03 * breath, ..arm }, Arm { shrug: 0.03 * breath, ..arm }],
        legs: [
            Leg { ankle: v3(0.14, 0.09, 0.14), yaw: 0.15, ..Leg::default() },
            Leg { ankle: ankle_over(v3(-0.15, 0.0, -0.24), -0.5), pitch: -0.5, toe: 0.5, yaw: -0.1 },
        ],
        ..Body::default()
    }
}

fn fall(t: f64) -> Body {
    let w = TAU * t / 0.6;
    let arm = Arm {
        down: -0.2 + 0.15 * sin(w),
        swing: 0.3,
        elbow: 0.5,
        wrist: 0.0,
        curl: 0.2,
        index: 0.1,
        thumb: 0.2,
        ..Arm::default()
    };
    Body {
        hips: v3(0.0, 1.0, 0.0),
        pelvis: v3(0.15 + 0.03 * sin(w), 0.0, 0.0),
        spine: v3(-0.1, 0.0, 0.0),
        head: v3(0.15, 0.0, 0.0),
        arms: [arm, Arm { down: -0.2 - 0.15 * sin(w), ..arm }],
        legs: [
            Leg { ankle: v3(0.12, 0.22 + 0.06 * sin(w), 0.10 + 0.06 * cos(w)), pitch: -0.3, ..Leg::default() },
            Leg { ankle: v3(-0.12, 0.26 - 0.06 * sin(w), -0.05 - 0.06 * cos(w)), pitch: -0.4, ..Leg::default() },
        ],
        ..Body::default()
    }
}

/// Parameters of an in-place locomotion cycle.
#[derive(Debug, Clone, Copy)]
pub struct Gait {
    /// Forward speed the cycle represents (m/s): the stance foot slides back at this speed.
    pub speed: f64,
    /// Full cycle (two steps), seconds.
    pub period: f64,
    /// Stance fraction of the cycle per foot (> 0.5 walks, < 0.5 runs with a flight phase).
    pub duty: f64,
    /// Mean Hips height (m).
    pub hips_y: f64,
    /// Hips bob amplitude (m); positive peaks at mid-stance (walk), negative dips there (run).
    pub bob: f64,
    /// Hips sway toward the stance foot (m).
    pub sway: f64,
    /// Pelvis forward tilt (rad).
    pub lean: f64,
    /// Spine forward bend (rad).
    pub spine: f64,
    /// Pelvis yaw amplitude (rad).
    pub pelvis_yaw: f64,
    /// Counter-rotation of the chest (rad).
    pub chest_yaw: f64,
    /// Pelvis drop on the swing side (rad).
    pub roll: f64,
    /// Swing-foot clearance (m).
    pub step: f64,
    /// Toes-up pitch at heel strike (rad).
    pub heel: f64,
    /// Heel-up pitch at toe-off (rad).
    pub push: f64,
    /// Where the foot touches down, ahead of the Hips (m).
    pub front: f64,
    /// Foot distance from the midline (m).
    pub width: f64,
    /// Arm lowered from the T-pose (rad).
    pub arm_down: f64,
    /// Arm swing amplitude (rad).
    pub arm_swing: f64,
    /// Mean arm swing (rad, + forward).
    pub arm_bias: f64,
    /// Mean elbow flexion (rad).
    pub elbow: f64,
    /// Extra elbow flexion when the arm is forward (rad).
    pub elbow_swing: f64,
    /// Head pitch (rad).
    pub head: f64,
}

/// Walk: 1.2 m/s, 1.0 s cycle (120 steps/min), heel-toe roll, double support.
pub const WALK: Gait = Gait {
    speed: 1.2,
    period: 1.0,
    duty: 0.6,
    hips_y: 0.945,
    bob: 0.015,
    sway: 0.02,
    lean: 0.04,
    spine: 0.03,
    pelvis_yaw: 0.08,
    chest_yaw: 0.1,
    roll: 0.04,
    step: 0.10,
    heel: 0.28,
    push: 0.45,
    front: 0.33,
    width: 0.1,
    arm_down: 1.25,
    arm_swing: 0.3,
    arm_bias: 0.0,
    elbow: 0.25,
    elbow_swing: 0.3,
    head: 0.0,
};

/// Run: 3.3 m/s, 0.7 s cycle (171 steps/min), flight phase, arms bent.
pub const RUN: Gait = Gait {
    speed: 3.3,
    period: 0.7,
    duty: 0.32,
    hips_y: 0.93,
    bob: -0.025,
    sway: 0.01,
    lean: 0.12,
    spine: 0.05,
    pelvis_yaw: 0.12,
    chest_yaw: 0.15,
    roll: 0.03,
    step: 0.28,
    heel: 0.1,
    push: 0.6,
    front: 0.27,
    width: 0.07,
    arm_down: 1.2,
    arm_swing: 0.55,
    arm_bias: 0.1,
    elbow: 1.4,
    elbow_swing: 0.2,
    head: 0.0,
};

/// Sprint: 6.0 m/s, 16-frame (0.533 s) cycle (225 steps/min), forefoot strike, strong lean.
pub const SPRINT: Gait = Gait {
    speed: 6.0,
    period: 16.0 / 30.0,
    duty: 0.22,
    hips_y: 0.92,
    bob: -0.02,
    sway: 0.005,
    lean: 0.25,
    spine: 0.05,
    pelvis_yaw: 0.14,
    chest_yaw: 0.2,
    roll: 0.02,
    step: 0.35,
    heel: 0.0,
    push: 0.7,
    front: 0.22,
    width: 0.06,
    arm_down: 1.15,
    arm_swing: 0.9,
    arm_bias: 0.15,
    elbow: 1.5,
    elbow_swing: 0.15,
    head: 0.0,
};

/// Crouched walk: 0.9 m/s, 1.2 s cycle, low hips, torso forward, arms held up.
pub const CROUCH_WALK: Gait = Gait {
    speed: 0.9,
    period: 1.2,
    duty: 0.62,
    hips_y: 0.66,
    bob: 0.01,
    sway: 0.015,
    lean: 0.4,
    spine: 0.12,
    pelvis_yaw: 0.06,
    chest_yaw: 0.06,
    roll: 0.02,
    step: 0.08,
    heel: 0.2,
    push: 0.35,
    front: 0.3,
    width: 0.13,
    arm_down: 1.15,
    arm_swing: 0.12,
    arm_bias: 0.3,
    elbow: 1.0,
    elbow_swing: 0.1,
    head: -0.5,
};

/// The left foot at its own phase (0 = heel strike).
fn gait_foot(g: &Gait, phase: f64) -> Leg {
    let travel = g.speed * g.duty * g.period;
    if phase < g.duty {
        let s = phase / g.duty;
        let pitch = if s < 0.2 {
            g.heel * (1.0 - smooth(s / 0.2))
        } else if s > 0.6 {
            -g.push * smooth((s - 0.6) / 0.4)
        } else {
            0.0
        };
        let sole = v3(g.width, 0.0, g.front - travel * s);
        Leg { ankle: ankle_over(sole, pitch), pitch, yaw: 0.05, toe: (-pitch).max(0.0) }
    } else {
        let s = (phase - g.duty) / (1.0 - g.duty);
        let e = smooth(s);
        let from = ankle_over(v3(g.width, 0.0, g.front - travel), -g.push);
        let to = ankle_over(v3(g.width, 0.0, g.front), g.heel);
        // Clearance peaks early in the swing, like a real knee lift.
        let lift = g.step * sin(PI * s) * (1.35 - 0.7 * s);
        let pitch = -g.push + (g.heel + g.push) * e + 0.15 * sin(PI * s);
        Leg { ankle: from.lerp(to, e).add(v3(0.0, lift, 0.0)), pitch, yaw: 0.05, toe: g.push * (1.0 - smooth(3.0 * s)) }
    }
}

/// An in-place locomotion cycle at time `t`.
fn gait(g: &Gait, t: f64) -> Body {
    let phase = t / g.period;
    let mid = phase - g.duty / 2.0;
    let swing = cos(TAU * phase);
    let mut b = stand();
    b.hips = v3(g.sway * cos(TAU * mid), g.hips_y + g.bob * cos(2.0 * TAU * mid), 0.0);
    b.pelvis = v3(g.lean, -g.pelvis_yaw * swing, g.roll * cos(TAU * mid));
    b.spine = v3(g.spine, (g.chest_yaw + g.pelvis_yaw) * swing, -0.8 * g.roll * cos(TAU * mid));
    b.head = v3(g.head - 0.5 * (g.lean + g.spine), -g.chest_yaw * swing, 0.0);
    b.legs = [gait_foot(g, phase), gait_foot(g, half_later(phase)).mirror()];
    for (s, sign) in [(0, -1.0), (1, 1.0)] {
        let a = &mut b.arms[s];
        a.down = g.arm_down;
        a.swing = g.arm_bias + sign * g.arm_swing * swing;
        a.elbow = g.elbow + g.elbow_swing * 0.5 * (1.0 + sign * swing);
    }
    b
}

// ---------------------------------------------------------------- one-shots

fn jump_start(t: f64) -> Body {
    let s = stand();
    let load = with(s, |b| {
        b.hips = v3(0.0, 0.78, -0.03);
        b.pelvis.x = 0.45;
        b.spine.x = 0.2;
        b.head.x = -0.4;
        for a in &mut b.arms {
            a.down = 1.25;
            a.swing = -0.7;
            a.elbow = 0.3;
        }
    });
    let drive = with(s, |b| {
        b.hips = v3(0.0, 0.9, -0.01);
        b.pelvis.x = 0.25;
        b.spine.x = 0.1;
        b.head.x = -0.2;
        for a in &mut b.arms {
            a.down = 1.2;
            a.swing = 0.3;
            a.elbow = 0.4;
        }
    });
    let takeoff = with(s, |b| {
        b.hips = v3(0.0, 1.03, 0.02);
        b.pelvis.x = 0.05;
        b.spine.x = -0.05;
        b.head.x = 0.0;
        for a in &mut b.arms {
            a.down = 1.1;
            a.swing = 1.4;
            a.elbow = 0.5;
        }
        for (l, x) in b.legs.iter_mut().zip([0.11, -0.11]) {
            l.ankle = ankle_over(v3(x, 0.0, 0.0), -0.6);
            l.pitch = -0.6;
            l.toe = 0.6;
        }
    });
    let mut b = keyed(&[(0.0, s), (0.2, load), (0.3, drive), (0.4, takeoff)], t);
    // Keep the foot rolling on its ball while the heel rises (ankle follows the pitch).
    for (l, x) in b.legs.iter_mut().zip([0.11, -0.11]) {
        l.pitch = l.pitch.min(0.0);
        l.ankle = ankle_over(v3(x, 0.0, 0.0), l.pitch);
    }
    b
}

fn land(t: f64) -> Body {
    let s = stand();
    let touch = with(s, |b| {
        b.hips.y = 0.97;
        b.pelvis.x = 0.1;
        for a in &mut b.arms {
            a.down = 0.4;
            a.swing = 0.3;
            a.elbow = 0.4;
        }
    });
    let absorb = with(s, |b| {
        b.hips = v3(0.0, 0.72, -0.03);
        b.pelvis.x = 0.5;
        b.spine.x = 0.25;
        b.head.x = -0.5;
        for a in &mut b.arms {
            a.down = 1.0;
            a.swing = 0.6;
            a.elbow = 0.8;
        }
    });
    let rise = with(s, |b| {
        b.hips = v3(0.0, 0.88, -0.01);
        b.pelvis.x = 0.2;
        b.spine.x = 0.1;
        b.head.x = -0.15;
    });
    keyed(&[(0.0, touch), (0.12, absorb), (0.3, rise), (0.5, s)], t)
}

/// The recoil offset at full strength, as a difference from [`aim`].
fn recoil_delta() -> Body {
    let mut d = Body::default();
    d.hips.z = -0.01;
    d.spine = v3(-0.10, 0.03, 0.0);
    d.head.x = -0.06;
    d.arms[0].target = v3(0.0, 0.025, -0.03);
    d.arms[0].hand.y = -0.1;
    d.arms[1].target = v3(0.0, 0.015, -0.035);
    d.arms[1].hand.y = -0.1;
    d.arms[1].shrug = 0.06;
    d
}

fn fire_recoil(t: f64) -> Body {
    let u = t / 0.3;
    // Sharp kick in 45 ms, then a smooth return to the aim pose.
    let e = if u < 0.15 { smooth(u / 0.15) } else { 1.0 - smooth((u - 0.15) / 0.85) };
    Body::combine(&[(1.0, &aim()), (e, &recoil_delta())])
}

/// Left-hand grip of `reload` per frame: held around the handguard, closed on
/// the magazine, opened to drop it, closed on the new one, opened to slap it
/// home, back on the handguard. Changes only on these frames (30 fps).
fn reload_grip(t: f64) -> (f64, f64) {
    let frame = (t * FPS).round() as i64;
    match frame {
        0..15 => (0.7, 0.6),
        15..30 => (1.0, 1.0),
        30..33 => (0.15, 0.1),
        33..48 => (1.0, 1.0),
        48..54 => (0.1, 0.05),
        _ => (0.7, 0.6),
    }
}

fn reload(t: f64) -> Body {
    let a = aim();
    let lowered = with(a, |b| {
        b.spine.x += 0.1;
        b.head.x = 0.35;
        b.arms[1].target = v3(-0.08, -0.12, 0.24);
        b.arms[1].hand.z += 0.4;
        b.arms[0].target = v3(0.0, -0.10, 0.36);
    });
    let on_mag = with(lowered, |b| {
        b.arms[0].target = v3(-0.04, -0.20, 0.30);
        b.arms[0].hand = v3(-FRAC_PI_2, 0.6, -FRAC_PI_2);
    });
    let pull = with(on_mag, |b| b.arms[0].target = v3(0.10, -0.30, 0.18));
    let pouch = with(on_mag, |b| {
        b.arms[0].target = v3(0.14, -0.34, 0.12);
        b.head.x = 0.45;
    });
    let insert = with(on_mag, |b| b.arms[0].target = v3(-0.04, -0.19, 0.30));
    let seat = with(on_mag, |b| b.arms[0].target = v3(-0.04, -0.15, 0.30));
    let back = with(a, |b| {
        b.head.x = 0.15;
        b.arms[0].target = v3(0.02, -0.04, 0.42);
    });
    let mut b = keyed(
        &[
            (0.0, a),
            (0.3, lowered),
            (0.55, on_mag),
            (0.9, pull),
            (1.15, pouch),
            (1.45, insert),
            (1.6, seat),
            (1.8, back),
            (2.0, a),
        ],
        t,
    );
    (b.arms[0].curl, b.arms[0].index) = reload_grip(t);
    b
}

fn hit_react(t: f64) -> Body {
    let s = stand();
    let impact = with(s, |b| {
        b.hips = v3(0.0, 0.955, -0.04);
        b.pelvis.x = -0.06;
        b.spine = v3(-0.28, 0.22, 0.05);
        b.head = v3(-0.3, 0.25, 0.1);
        b.arms[0] = Arm { down: 1.0, swing: 0.35, elbow: 0.9, ..b.arms[0] };
        b.arms[1] = Arm { down: 0.9, swing: 0.5, elbow: 1.2, ..b.arms[1] };
    });
    let overshoot = with(s, |b| {
        b.hips.z = -0.02;
        b.spine = v3(0.10, -0.06, 0.0);
        b.head = v3(0.12, -0.05, 0.0);
        b.arms[1] = Arm { down: 1.15, swing: 0.2, elbow: 0.6, ..b.arms[1] };
    });
    let settle = with(s, |b| b.spine = v3(0.0, 0.02, 0.0));
    keyed(&[(0.0, s), (0.07, impact), (0.22, overshoot), (0.4, settle), (0.6, s)], t)
}

fn death(t: f64) -> Body {
    let s = stand();
    let hit = with(s, |b| {
        b.hips.z = -0.03;
        b.spine = v3(-0.3, 0.1, 0.0);
        b.head = v3(-0.4, 0.1, 0.0);
        for a in &mut b.arms {
            a.swing = 0.3;
            a.elbow = 0.8;
        }
    });
    let buckle = with(s, |b| {
        b.hips = v3(0.0, 0.68, -0.06);
        b.pelvis.x = 0.1;
        b.spine = v3(0.15, 0.05, 0.05);
        b.head = v3(0.3, 0.0, 0.1);
        for a in &mut b.arms {
            a.down = 1.35;
            a.swing = -0.1;
            a.elbow = 0.4;
        }
    });
    let falling = with(s, |b| {
        b.hips = v3(0.01, 0.32, -0.28);
        b.pelvis.x = -0.7;
        b.spine = v3(-0.1, 0.0, 0.1);
        b.head = v3(0.2, 0.1, 0.1);
        for a in &mut b.arms {
            a.down = 0.7;
            a.swing = 0.6;
        }
        for (l, x) in b.legs.iter_mut().zip([0.13, -0.13]) {
            *l = Leg { ankle: v3(x, 0.1, 0.10), pitch: 0.3, ..*l };
        }
    });
    let impact = with(falling, |b| {
        b.hips = v3(0.01, 0.11, -0.42);
        b.pelvis.x = -1.45;
        b.spine = v3(0.05, 0.0, 0.05);
        b.head = v3(0.35, 0.2, 0.0);
        for a in &mut b.arms {
            a.down = 0.5;
            a.swing = 0.0;
            a.elbow = 0.3;
        }
        b.legs[0] = Leg { ankle: v3(0.16, 0.09, 0.36), pitch: 0.9, yaw: 0.4, toe: 0.0 };
        b.legs[1] = Leg { ankle: v3(-0.12, 0.09, 0.40), pitch: 0.9, yaw: -0.4, toe: 0.0 };
    });
    let bounce = with(impact, |b| {
        b.hips.y = 0.14;
        b.pelvis.x = -1.40;
        b.head = v3(0.25, 0.25, 0.0);
    });
    let rest = with(impact, |b| {
        b.pelvis.x = -1.46;
        b.head = v3(0.3, 0.45, 0.0);
        for a in &mut b.arms {
            a.elbow = 0.4;
            a.curl = 0.5;
        }
    });
    let mut b =
        keyed(&[(0.0, s), (0.1, hit), (0.45, buckle), (0.85, falling), (1.1, impact), (1.25, bounce), (1.5, rest)], t);
    // Sliding feet rest on the heel: never lower than a heel (or ball) touching the floor.
    for l in &mut b.legs {
        l.ankle.y = l.ankle.y.max(ankle_over(v3(0.0, 0.0, 0.0), l.pitch).y);
    }
    b
}

/// Nominal speeds and the feet's planted span, for the tests.
#[cfg(test)]
pub(crate) fn gait_of(name: &str) -> Option<Gait> {
    match name {
        "walk" => Some(WALK),
        "run" => Some(RUN),
        "sprint" => Some(SPRINT),
        "crouch_walk" => Some(CROUCH_WALK),
        _ => None,
    }
}

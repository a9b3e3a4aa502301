//! Plausibility of the generated humanoid, checked on the `f64` poses the
//! tracks are sampled from.

use super::clips::{self, ClipSpec, gait_of};
use super::math::{V3, euler, v3};
use super::rig::{ANKLE_HEIGHT, BALL_FORWARD, HEEL_BACK, Rig, RigPose};
use super::*;

fn frames(rig: &Rig, spec: &ClipSpec) -> Vec<RigPose> {
    (0..=spec.frames).map(|k| spec.pose(rig, k)).collect()
}

/// Heel and ball floor-contact points of foot `side` (model space).
fn sole_points(rig: &Rig, pose: &RigPose, side: usize) -> [V3; 2] {
    let (g_rot, g_pos) = rig.forward(&pose.rot, pose.hips);
    let foot = rig.sides[side].foot;
    let q = g_rot[foot];
    [
        g_pos[foot].add(q.rotate(v3(0.0, -ANKLE_HEIGHT, -HEEL_BACK))),
        g_pos[foot].add(q.rotate(v3(0.0, -ANKLE_HEIGHT, BALL_FORWARD))),
    ]
}

#[test]
fn the_committed_fixture_equals_a_fresh_generation() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures").join(HUMANOID_FILE);
    let committed = std::fs::read(&path).expect("fixtures/models/humanoid.glb is committed");
    let fresh = humanoid_glb().unwrap();
    assert!(
        committed == fresh,
        "{} is stale: run `cargo run -p zoa-anim-tools -- gen-fixtures --force`",
        path.display()
    );
}

#[test]
fn generation_is_deterministic_and_small() {
    let a = humanoid_glb().unwrap();
    assert_eq!(a, humanoid_glb().unwrap());
    assert!(a.len() < 600_000, "{} bytes", a.len());
}

#[test]
fn every_ik_target_is_within_reach() {
    let rig = Rig::humanoid();
    for spec in clips::specs() {
        for (k, pose) in frames(&rig, &spec).iter().enumerate() {
            assert!(pose.worst_reach < 0.995, "{} frame {k}: reach ratio {:.4}", spec.name, pose.worst_reach);
        }
    }
}

#[test]
fn feet_never_go_through_the_floor() {
    let rig = Rig::humanoid();
    for spec in clips::specs() {
        for (k, pose) in frames(&rig, &spec).iter().enumerate() {
            for side in 0..2 {
                for p in sole_points(&rig, pose, side) {
                    assert!(p.y > -0.005, "{} frame {k} side {side}: sole at y = {:.4}", spec.name, p.y);
                }
            }
        }
    }
}

#[test]
fn stance_feet_are_planted_and_slide_back_at_the_clip_speed() {
    let rig = Rig::humanoid();
    for spec in clips::specs() {
        let Some(gait) = gait_of(spec.name) else { continue };
        let poses = frames(&rig, &spec);
        let mut checked = 0;
        for side in 0..2 {
            for k in 0..spec.frames as usize {
                // Phase of this foot (the right foot is half a cycle later).
                let t = k as f64 / clips::FPS;
                let phase = (t / gait.period + if side == 0 { 0.0 } else { 0.5 }).fract();
                let next_phase = phase + 1.0 / (clips::FPS * gait.period);
                // Mid-stance with the foot flat on both frames.
                if phase < 0.2 * gait.duty || next_phase > 0.6 * gait.duty {
                    continue;
                }
                let [h0, b0] = sole_points(&rig, &poses[k], side);
                let [h1, b1] = sole_points(&rig, &poses[k + 1], side);
                for p in [h0, b0, h1, b1] {
                    assert!(p.y.abs() < 1e-9, "{} frame {k} side {side}: sole off the floor ({:.5})", spec.name, p.y);
                }
                let v = (h1.z - h0.z) * clips::FPS;
                assert!((v + gait.speed).abs() < 1e-9, "{} frame {k}: foot speed {v} vs {}", spec.name, gait.speed);
                assert!((b1.x - b0.x).abs() < 1e-9, "{} frame {k}: foot slides sideways", spec.name);
                checked += 1;
            }
        }
        assert!(checked >= 2, "{}: no flat mid-stance frame checked", spec.name);
    }
}

#[test]
fn arms_counter_swing_the_legs_in_the_walk() {
    let rig = Rig::humanoid();
    let walk = clips::specs().into_iter().find(|s| s.name == "walk").unwrap();
    let (_, g) = rig.forward(&walk.pose(&rig, 0).rot, walk.pose(&rig, 0).hips);
    let (l, r) = (rig.sides[0], rig.sides[1]);
    // Frame 0 is the left heel strike: left foot ahead, so the right hand is ahead.
    assert!(g[l.foot].z > g[r.foot].z + 0.4);
    assert!(g[r.hand].z > g[l.hand].z + 0.1);
    // Half a cycle later it is the other way round.
    let half = walk.pose(&rig, 15);
    let (_, g) = rig.forward(&half.rot, half.hips);
    assert!(g[r.foot].z > g[l.foot].z + 0.4);
    assert!(g[l.hand].z > g[r.hand].z + 0.1);
}

#[test]
fn the_rifle_is_held_in_front_of_the_chest_and_recoil_starts_from_the_aim_pose() {
    let rig = Rig::humanoid();
    let specs = clips::specs();
    let aim = specs.iter().find(|s| s.name == "rifle_aim").unwrap();
    let pose = aim.pose(&rig, 0);
    let (_, g) = rig.forward(&pose.rot, pose.hips);
    let (l, r) = (rig.sides[0], rig.sides[1]);
    assert!(g[l.hand].z > 0.35 && g[r.hand].z > 0.15, "hands forward");
    assert!(g[l.hand].y > 1.2 && g[r.hand].y > 1.2, "hands at chest height");
    assert!(g[l.hand].z > g[r.hand].z + 0.1, "support hand ahead of the grip hand");
    let recoil = specs.iter().find(|s| s.name == "fire_recoil").unwrap();
    for k in [0, recoil.frames] {
        let p = recoil.pose(&rig, k);
        assert_eq!(p.rot, pose.rot, "recoil frame {k} is the aim pose");
        assert_eq!(p.hips, pose.hips);
    }
    let kick = recoil.pose(&rig, 2);
    assert_ne!(kick.rot, pose.rot);
}

#[test]
fn the_death_ends_lying_on_the_back() {
    let rig = Rig::humanoid();
    let death = clips::specs().into_iter().find(|s| s.name == "death").unwrap();
    let p = death.pose(&rig, death.frames);
    let (g_rot, g_pos) = rig.forward(&p.rot, p.hips);
    let head = g_pos[rig.head];
    assert!(head.y < 0.35 && head.z < -0.8, "head on the floor behind: {head:?}");
    // The chest faces up.
    let chest_forward = g_rot[rig.spine[2]].rotate(v3(0.0, 0.0, 1.0));
    assert!(chest_forward.y > 0.8, "{chest_forward:?}");
    let _ = euler(0.0, 0.0, 0.0);
}

//! Procedural generator of the project's fixture humanoid,
//! `fixtures/models/humanoid.glb`.
//!
//! Regenerate it with `cargo run -p zoa-anim-tools -- gen-fixtures --force`
//! (check it with `cargo run -p zoa-anim-tools -- gen-fixtures --check`).
//!
//! # What the file holds
//!
//! * One skin, `humanoid`, of 55 joints with Mixamo names without the
//!   `mixamorig:` prefix: `Hips, Spine, Spine1, Spine2, Neck, Head,
//!   HeadTop_End`, per side `Shoulder, Arm, ForeArm, Hand`, five fingers of
//!   three phalanges (`HandThumb1..3`, `HandIndex1..3`, `HandMiddle1..3`,
//!   `HandRing1..3`, `HandPinky1..3`), `UpLeg, Leg, Foot, ToeBase, Toe_End`.
//! * Metres, Y up, facing +Z (the character's left is +X), 1.75 m tall,
//!   Hips at 1.0 m. Rest pose: **T-pose** (arms straight along ±X, palms
//!   down, legs straight, feet flat on the floor) with every rest rotation the
//!   identity, so a joint's local axes are the body axes at rest; inverse
//!   bind matrices are the inverse rest translations.
//! * A small skinned mesh (`humanoid_body`): one box per bone (52 boxes,
//!   24 vertices each, flat normals), each rigidly bound to its joint.
//! * 14 clips at 30 fps (see [`clips`] for how each is authored and the
//!   nominal speeds of the in-place cycles).
//!
//! **Key design decision:** the generator is pure code and the output is
//! byte-deterministic on every platform. All math is `f64` with our own
//! `sin`/`cos`/`atan`/`acos` ([`math`]), because the platform libm differs in
//! the last bit between systems; values are rounded to `f32` once, and the
//! writer ([`zoa_anim_assets::export`]) serialises in a fixed order.

mod clips;
mod math;
mod rig;

use zoa_anim_assets::AssetError;
use zoa_anim_assets::export::{GlbScene, SkinnedMesh, write_glb};
use zoa_anim_core::glam::{Mat4, Quat, Vec3};
use zoa_anim_core::{Clip, Interpolation, Joint, Skeleton, Track, TrackProperty, Transform};

use clips::{ClipSpec, FPS, Sampling};
use math::{V3, v3};
use rig::Rig;

/// Where the fixture lives, relative to the fixtures folder (`fixtures/` at the workspace root).
pub const HUMANOID_FILE: &str = "models/humanoid.glb";

/// The generated humanoid in core types, before serialisation.
#[derive(Debug, Clone)]
pub struct Humanoid {
    /// Skin `humanoid`: joint `i` is glTF node `i`.
    pub skeleton: Skeleton,
    /// The 14 clips, in [`clips::specs`] order.
    pub clips: Vec<Clip>,
    /// One rigid box per bone.
    pub mesh: SkinnedMesh,
}

/// Builds the humanoid (skeleton, clips, mesh).
pub fn humanoid() -> Humanoid {
    let rig = Rig::humanoid();
    let skeleton = skeleton(&rig);
    let clips = clips::specs().iter().map(|spec| clip(&rig, spec)).collect();
    let mesh = mesh(&rig);
    Humanoid { skeleton, clips, mesh }
}

/// The bytes of `fixtures/models/humanoid.glb`.
///
/// # Errors
///
/// Only if the writer rejects the scene, which would be a bug in the generator.
pub fn humanoid_glb() -> Result<Vec<u8>, AssetError> {
    let h = humanoid();
    write_glb(&GlbScene { skeleton: &h.skeleton, clips: &h.clips, mesh: Some(&h.mesh) })
}

fn skeleton(rig: &Rig) -> Skeleton {
    let model = rig.rest_positions();
    let joints = rig
        .joints
        .iter()
        .enumerate()
        .map(|(i, j)| {
            let p = model[i];
            Joint {
                name: Some(j.name.clone()),
                node: i as u32,
                parent: j.parent.map(|p| p as u16),
                rest: Transform {
                    translation: Vec3::from_array(j.offset.to_f32()),
                    rotation: Quat::IDENTITY,
                    scale: Vec3::ONE,
                },
                inverse_bind: Mat4::from_cols_array(&[
                    1.0,
                    0.0,
                    0.0,
                    0.0,
                    0.0,
                    1.0,
                    0.0,
                    0.0,
                    0.0,
                    0.0,
                    1.0,
                    0.0,
                    -p.x as f32,
                    -p.y as f32,
                    -p.z as f32,
                    1.0,
                ]),
            }
        })
        .collect();
    Skeleton::new("humanoid", joints).expect("the generated rig is a valid skeleton")
}

/// Samples one clip into core tracks: the Hips translation, then one rotation
/// track per joint that ever leaves its rest rotation.
fn clip(rig: &Rig, spec: &ClipSpec) -> Clip {
    let poses: Vec<_> = (0..=spec.frames).map(|k| spec.pose(rig, k)).collect();
    debug_assert!(poses.iter().all(|p| p.worst_reach < 1.0), "{}: an IK target is out of reach", spec.name);
    let times: Vec<f32> = (0..=spec.frames).map(|k| (k as f64 / FPS) as f32).collect();
    let mut tracks = Vec::new();

    let hips: Vec<V3> = poses.iter().map(|p| p.hips).collect();
    let hips_track = if spec.cubic_hips {
        // Tangents (m/s) by finite differences: central inside, one-sided at the ends.
        let dt = 1.0 / FPS;
        let n = hips.len();
        let mut values = Vec::with_capacity(n * 9);
        for k in 0..n {
            let (a, b) = (k.saturating_sub(1), (k + 1).min(n - 1));
            let tangent = hips[b].sub(hips[a]).scale(1.0 / (dt * (b - a) as f64)).to_f32();
            values.extend_from_slice(&tangent);
            values.extend_from_slice(&hips[k].to_f32());
            values.extend_from_slice(&tangent);
        }
        Track {
            node: rig.hips as u32,
            node_name: Some("Hips".into()),
            property: TrackProperty::Translation,
            interpolation: Interpolation::CubicSpline,
            times: times.clone(),
            values,
        }
    } else {
        Track {
            node: rig.hips as u32,
            node_name: Some("Hips".into()),
            property: TrackProperty::Translation,
            interpolation: Interpolation::Linear,
            times: times.clone(),
            values: hips.iter().flat_map(|h| h.to_f32()).collect(),
        }
    };
    tracks.push(hips_track);

    let step_joints: Vec<usize> =
        spec.step_fingers.map(|s| rig.sides[s].fingers[1..].iter().flatten().copied().collect()).unwrap_or_default();
    for (j, def) in rig.joints.iter().enumerate() {
        let keys: Vec<[f32; 4]> = poses.iter().map(|p| p.rot[j].to_f32()).collect();
        if keys.iter().all(|q| *q == [0.0, 0.0, 0.0, 1.0]) {
            continue;
        }
        let sampling = if step_joints.contains(&j) {
            Sampling::Step
        } else if keys.iter().all(|q| *q == keys[0]) {
            Sampling::Held
        } else {
            Sampling::Linear
        };
        let (times, keys, interpolation) = match sampling {
            Sampling::Linear => (times.clone(), keys, Interpolation::Linear),
            Sampling::Held => (vec![times[0], times[times.len() - 1]], vec![keys[0]; 2], Interpolation::Linear),
            Sampling::Step => {
                let last = keys.len() - 1;
                let kept: Vec<usize> = (0..=last).filter(|&k| k == 0 || k == last || keys[k] != keys[k - 1]).collect();
                (kept.iter().map(|&k| times[k]).collect(), kept.iter().map(|&k| keys[k]).collect(), Interpolation::Step)
            }
        };
        tracks.push(Track {
            node: j as u32,
            node_name: Some(def.name.clone()),
            property: TrackProperty::Rotation,
            interpolation,
            times,
            values: keys.into_iter().flatten().collect(),
        });
    }
    Clip::new(spec.name, tracks).expect("generated tracks are valid")
}

/// Half-extents (x, y, z) added around a bone's segment to make its box.
fn box_pad(name: &str) -> V3 {
    let n = name.trim_start_matches("Left").trim_start_matches("Right");
    match n {
        "Hips" => v3(0.14, 0.05, 0.10),
        "Spine" | "Spine1" => v3(0.13, 0.0, 0.09),
        "Spine2" => v3(0.15, 0.0, 0.10),
        "Neck" => v3(0.05, 0.0, 0.05),
        "Head" => v3(0.085, 0.0, 0.10),
        "Shoulder" | "Arm" => v3(0.0, 0.05, 0.05),
        "ForeArm" => v3(0.0, 0.04, 0.04),
        "Hand" => v3(0.0, 0.015, 0.045),
        "UpLeg" => v3(0.07, 0.0, 0.07),
        "Leg" => v3(0.05, 0.0, 0.05),
        "Foot" => v3(0.045, 0.03, 0.04),
        "ToeBase" => v3(0.045, 0.03, 0.0),
        _ if n.starts_with("HandThumb") => v3(0.01, 0.01, 0.01),
        _ => v3(0.0, 0.01, 0.01),
    }
}

/// One axis-aligned box per bone (from the joint to its main child, or a
/// short extension for the last phalanx), rigidly weighted to the joint.
fn mesh(rig: &Rig) -> SkinnedMesh {
    let rest = rig.rest_positions();
    let mut m = SkinnedMesh { name: Some("humanoid_body".into()), ..SkinnedMesh::default() };
    for (j, def) in rig.joints.iter().enumerate() {
        if def.name.ends_with("_End") {
            continue;
        }
        let children: Vec<usize> = (0..rig.joints.len()).filter(|&c| rig.joints[c].parent == Some(j)).collect();
        let main = children.iter().copied().find(|&c| {
            let n = &rig.joints[c].name;
            ["Spine", "Neck", "HandMiddle1", "ToeBase"].iter().any(|s| n.ends_with(s)) || children.len() == 1
        });
        let tip = match main {
            Some(c) => rest[c],
            None => rest[j].add(def.offset.scale(0.7)),
        };
        let pad = box_pad(&def.name);
        let lo = v3(rest[j].x.min(tip.x) - pad.x, rest[j].y.min(tip.y) - pad.y, rest[j].z.min(tip.z) - pad.z);
        let hi = v3(rest[j].x.max(tip.x) + pad.x, rest[j].y.max(tip.y) + pad.y, rest[j].z.max(tip.z) + pad.z);
        push_box(&mut m, lo, hi, j as u16);
    }
    m
}

/// Appends a box with outward flat normals and counter-clockwise faces.
fn push_box(m: &mut SkinnedMesh, lo: V3, hi: V3, joint: u16) {
    let corner = |x: bool, y: bool, z: bool| {
        [if x { hi.x } else { lo.x } as f32, if y { hi.y } else { lo.y } as f32, if z { hi.z } else { lo.z } as f32]
    };
    // Per face: normal and four corners counter-clockwise seen from outside.
    type Face = ([f32; 3], [(bool, bool, bool); 4]);
    let faces: [Face; 6] = [
        ([1.0, 0.0, 0.0], [(true, false, true), (true, false, false), (true, true, false), (true, true, true)]),
        ([-1.0, 0.0, 0.0], [(false, false, false), (false, false, true), (false, true, true), (false, true, false)]),
        ([0.0, 1.0, 0.0], [(false, true, true), (true, true, true), (true, true, false), (false, true, false)]),
        ([0.0, -1.0, 0.0], [(false, false, false), (true, false, false), (true, false, true), (false, false, true)]),
        ([0.0, 0.0, 1.0], [(false, false, true), (true, false, true), (true, true, true), (false, true, true)]),
        ([0.0, 0.0, -1.0], [(true, false, false), (false, false, false), (false, true, false), (true, true, false)]),
    ];
    for (normal, corners) in faces {
        let base = m.positions.len() as u32;
        for (x, y, z) in corners {
            m.positions.push(corner(x, y, z));
            m.normals.push(normal);
            m.joints.push([joint, 0, 0, 0]);
            m.weights.push([1.0, 0.0, 0.0, 0.0]);
        }
        m.indices.extend_from_slice(&[base, base + 1, base + 2, base, base + 2, base + 3]);
    }
}

#[cfg(test)]
mod tests;

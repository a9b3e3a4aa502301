//! `zoa-anim validate` notes clips that bind to the character's skeleton by
//! bone role (I006): information, not an error, in the validate JSON contract.
//!
//! The fixture folder `fixtures/invalid/I006-clip-binds-by-role/` holds a
//! small biped named like Mixamo (`character.glb`, the character's model) and
//! the same biped named like Unreal (`unreal.glb`) with a stride clip; both are
//! generated here with the exporter (set `ZOA_REGEN_FIXTURES=1` to rewrite them).

use std::path::PathBuf;
use std::process::Output;

use serde_json::Value;
use zoa_anim_core::glam::{Mat4, Quat, Vec3};
use zoa_anim_core::{Clip, Interpolation, Joint, Skeleton, TrackProperty, Transform};
use zoa_test_support::cli;
use zoa_test_support::clips::{quat_values, track};
use zoa_test_support::paths::{copy_dir, fixture, temp_dir};

fn folder() -> PathBuf {
    fixture("invalid/I006-clip-binds-by-role")
}

fn zoa(args: &[&str]) -> Output {
    cli::run(env!("CARGO_BIN_EXE_zoa-anim"), args)
}

/// The biped's joints: (Mixamo name, Unreal name, parent, rest translation).
const BIPED: [(&str, &str, Option<u16>, [f32; 3]); 15] = [
    ("Hips", "pelvis", None, [0.0, 1.0, 0.0]),
    ("Spine", "spine_01", Some(0), [0.0, 0.1, 0.0]),
    ("Spine1", "spine_02", Some(1), [0.0, 0.15, 0.0]),
    ("Neck", "neck_01", Some(2), [0.0, 0.25, 0.0]),
    ("Head", "head", Some(3), [0.0, 0.1, 0.0]),
    ("LeftUpLeg", "thigh_l", Some(0), [0.1, -0.05, 0.0]),
    ("LeftLeg", "calf_l", Some(5), [0.0, -0.45, 0.0]),
    ("LeftFoot", "foot_l", Some(6), [0.0, -0.45, 0.0]),
    ("RightUpLeg", "thigh_r", Some(0), [-0.1, -0.05, 0.0]),
    ("RightLeg", "calf_r", Some(8), [0.0, -0.45, 0.0]),
    ("RightFoot", "foot_r", Some(9), [0.0, -0.45, 0.0]),
    ("LeftArm", "upperarm_l", Some(2), [0.2, 0.2, 0.0]),
    ("LeftForeArm", "lowerarm_l", Some(11), [0.28, 0.0, 0.0]),
    ("RightArm", "upperarm_r", Some(2), [-0.2, 0.2, 0.0]),
    ("RightForeArm", "lowerarm_r", Some(13), [-0.28, 0.0, 0.0]),
];

/// The biped with Mixamo (`mixamo`) or Unreal names, rest pose upright.
fn biped(mixamo: bool) -> Skeleton {
    let mut model = [Vec3::ZERO; BIPED.len()];
    let joints = BIPED
        .iter()
        .enumerate()
        .map(|(i, &(m, u, parent, t))| {
            let t = Vec3::from_array(t);
            model[i] = parent.map_or(Vec3::ZERO, |p| model[usize::from(p)]) + t;
            Joint {
                name: Some(if mixamo { m } else { u }.to_owned()),
                node: i as u32,
                parent,
                rest: Transform { translation: t, ..Transform::IDENTITY },
                inverse_bind: Mat4::from_translation(-model[i]),
            }
        })
        .collect();
    Skeleton::new(if mixamo { "mixamo_biped" } else { "unreal_biped" }, joints).unwrap()
}

fn glb(skeleton: &Skeleton, clip: Clip) -> Vec<u8> {
    zoa_anim_assets::export::write_glb(&zoa_anim_assets::export::GlbScene { skeleton, clips: &[clip], mesh: None })
        .unwrap()
}

/// The character's model: the Mixamo-named biped with a one-second idle sway.
fn character_glb() -> Vec<u8> {
    let sway = quat_values(&[Quat::IDENTITY, Quat::from_rotation_z(0.05), Quat::IDENTITY]);
    let idle =
        Clip::new("idle", vec![track(1, TrackProperty::Rotation, Interpolation::Linear, &[0.0, 0.5, 1.0], &sway)])
            .unwrap();
    glb(&biped(true), idle)
}

/// The Unreal-named biped striding: thighs swing ±25° in opposition, the pelvis bobs.
fn unreal_glb() -> Vec<u8> {
    let times = [0.0, 0.5, 1.0];
    let swing = |s: f32| quat_values(&[0.0, s, 0.0].map(|a: f32| Quat::from_rotation_x(a * 25f32.to_radians())));
    let bob: Vec<f32> = [1.0, 0.96, 1.0].iter().flat_map(|y| [0.0, *y, 0.0]).collect();
    let stride = Clip::new(
        "stride",
        vec![
            track(0, TrackProperty::Translation, Interpolation::Linear, &times, &bob),
            track(5, TrackProperty::Rotation, Interpolation::Linear, &times, &swing(1.0)),
            track(8, TrackProperty::Rotation, Interpolation::Linear, &times, &swing(-1.0)),
        ],
    )
    .unwrap();
    glb(&biped(false), stride)
}

#[test]
fn biped_fixtures_are_what_the_exporter_writes() {
    for (name, bytes) in [("character.glb", character_glb()), ("unreal.glb", unreal_glb())] {
        let path = folder().join(name);
        if std::env::var_os("ZOA_REGEN_FIXTURES").is_some() {
            std::fs::write(&path, &bytes).unwrap();
        }
        let committed = std::fs::read(&path).unwrap_or_else(|_| panic!("{name} (regenerate: ZOA_REGEN_FIXTURES=1)"));
        assert!(committed == bytes, "{name} differs from the exporter's output; regenerate with ZOA_REGEN_FIXTURES=1");
    }
}

#[test]
fn a_clip_of_a_differently_named_rig_is_an_info_note() {
    let out = zoa(&["validate", folder().to_str().unwrap(), "--format", "json"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!((v["errors"].as_u64(), v["warnings"].as_u64()), (Some(0), Some(0)), "{v:#}");
    let notes = v["diagnostics"].as_array().unwrap();
    assert_eq!(notes.len(), 1, "{notes:#?}");
    let n = &notes[0];
    assert_eq!((n["severity"].as_str(), n["code"].as_str()), (Some("info"), Some("I006")));
    assert_eq!(
        (n["file"].as_str(), n["field"].as_str(), n["line"].as_u64()),
        (Some("stride.toml"), Some("source"), Some(3))
    );
    insta::assert_snapshot!(n["message"].as_str().unwrap());
}

/// The character plays the Unreal-named clip: the left thigh (Mixamo
/// `LeftUpLeg`) swings 25° at half time, where name binding left it at rest.
#[test]
fn the_character_poses_the_clip_by_role() {
    let tmp = temp_dir("validate-binding-pose");
    let defs = tmp.path().join("defs");
    copy_dir(&folder(), &defs);
    let def = zoa_animation::load(&defs).unwrap();
    let skeleton = def.skeleton().skeleton();
    let (thigh, hips) = (skeleton.find("LeftUpLeg").unwrap(), skeleton.find("Hips").unwrap());
    let id = def.clips().index_of("stride").unwrap();
    let rest = zoa_anim_runtime::pose::Pose::rest(skeleton);
    let pose = def.animations()[id.index()].sample_to_new(0.5, &rest).unwrap();
    let want = Quat::from_rotation_x(25f32.to_radians());
    assert!(pose.rotation(thigh).angle_between(want) < 1e-5, "{:?}", pose.rotation(thigh));
    assert!((pose.translation(hips).y - 0.96).abs() < 1e-5, "{:?}", pose.translation(hips));
}

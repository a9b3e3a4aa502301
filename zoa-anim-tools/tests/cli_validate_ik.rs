//! `zoa-anim validate` notes rig-policy behaviours a model cannot run (I004):
//! information, not an error, in the validate JSON contract.
//!
//! The fixture folder `fixtures/invalid/I004-ik-policy-unavailable/` holds a
//! biped rig policy and a clip of `door.glb`, a two-joint door generated here
//! with the exporter (set `ZOA_REGEN_FIXTURES=1` to rewrite it).

use std::path::PathBuf;
use std::process::Output;

use serde_json::Value;
use zoa_anim_core::glam::{Mat4, Quat, Vec3};
use zoa_anim_core::{Clip, Interpolation, Joint, Skeleton, TrackProperty, Transform};
use zoa_test_support::cli;
use zoa_test_support::clips::{quat_values, track};
use zoa_test_support::paths::fixture;

fn folder() -> PathBuf {
    fixture("invalid/I004-ik-policy-unavailable")
}

fn zoa(args: &[&str]) -> Output {
    cli::run(env!("CARGO_BIN_EXE_zoa-anim"), args)
}

/// A door: a frame and a panel hinged 0.45 m to its side, swinging 90° in a second.
fn door_glb() -> Vec<u8> {
    let joint = |name: &str, node: u32, parent: Option<u16>, x: f32| Joint {
        name: Some(name.into()),
        node,
        parent,
        rest: Transform { translation: Vec3::new(x, 0.0, 0.0), ..Transform::IDENTITY },
        inverse_bind: Mat4::from_translation(Vec3::new(-x, 0.0, 0.0)),
    };
    let skeleton = Skeleton::new("door", vec![joint("Frame", 0, None, 0.0), joint("Panel", 1, Some(0), 0.45)]).unwrap();
    let open = Quat::from_rotation_y(std::f32::consts::FRAC_PI_2);
    let values = quat_values(&[Quat::IDENTITY, open]);
    let swing =
        Clip::new("swing", vec![track(1, TrackProperty::Rotation, Interpolation::Linear, &[0.0, 1.0], &values)])
            .unwrap();
    zoa_anim_assets::export::write_glb(&zoa_anim_assets::export::GlbScene {
        skeleton: &skeleton,
        clips: &[swing],
        mesh: None,
    })
    .unwrap()
}

#[test]
fn door_fixture_is_what_the_exporter_writes() {
    let path = folder().join("door.glb");
    let bytes = door_glb();
    if std::env::var_os("ZOA_REGEN_FIXTURES").is_some() {
        std::fs::write(&path, &bytes).unwrap();
    }
    let committed = std::fs::read(&path).expect("door.glb (regenerate with ZOA_REGEN_FIXTURES=1)");
    assert!(committed == bytes, "door.glb differs from the exporter's output; regenerate with ZOA_REGEN_FIXTURES=1");
}

#[test]
fn a_policy_the_model_cannot_run_is_an_info_note_per_enabled_behaviour() {
    let dir = folder();
    let out = zoa(&["validate", dir.to_str().unwrap(), "--format", "json"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["errors"], 0);
    assert_eq!(v["warnings"], 0);
    let notes = v["diagnostics"].as_array().unwrap();
    // Foot plant and look-at are enabled and lack bones; the hand behaviours
    // are disabled, so silent; the chain `hinge` runs from the panel "down" to
    // the frame that carries it, so it does not compile on the door.
    assert_eq!(notes.len(), 3, "{notes:#?}");
    for (note, (field, line, missing)) in
        notes.iter().zip([("foot_plant", 8, "missing hips, left_upper_leg"), ("look_at", 9, "missing head")])
    {
        assert_eq!(note["severity"], "info");
        assert_eq!(note["code"], "I004");
        assert_eq!(note["file"], "rig.toml");
        assert_eq!(note["field"], field);
        assert_eq!(note["line"], line);
        assert_eq!(note["column"], field.len() + 4);
        let message = note["message"].as_str().unwrap();
        for part in ["`biped`", "`door.glb`", "skin `door`", field, missing] {
            assert!(message.contains(part), "{message:?} lacks {part:?}");
        }
    }
    let hinge = &notes[2];
    assert_eq!((hinge["code"].as_str(), hinge["field"].as_str()), (Some("I004"), Some("chains[0]")));
    assert_eq!((hinge["line"].as_u64(), hinge["column"].as_u64()), (Some(22), Some(8)), "at the chain's name");
    let message = hinge["message"].as_str().unwrap();
    assert!(message.contains("chain `hinge`") && message.contains("`Frame` does not lie below `Panel`"), "{message}");
    insta::assert_snapshot!(
        notes
            .iter()
            .map(|n| format!("{}:{} {}\n", n["line"], n["column"], n["message"].as_str().unwrap()))
            .collect::<String>()
    );

    let human = zoa(&["validate", dir.to_str().unwrap()]);
    assert_eq!(human.status.code(), Some(0));
    let text = String::from_utf8_lossy(&human.stdout);
    assert!(text.contains("I004") && text.contains("0 error(s), 0 warning(s)"), "{text}");
}

#[test]
fn a_model_with_the_bones_gets_no_note() {
    // The fixture humanoid runs every behaviour of its own policy.
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fixtures/defs/humanoid");
    let out = zoa(&["validate", dir.to_str().unwrap(), "--format", "json"]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let notes: Vec<&Value> = v["diagnostics"].as_array().unwrap().iter().filter(|d| d["code"] == "I004").collect();
    assert!(notes.is_empty(), "{notes:#?}");
    assert_eq!(v["errors"], 0);
}

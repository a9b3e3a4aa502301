//! The committed fixture humanoid (`fixtures/models/humanoid.glb`): equal to
//! a fresh generation byte for byte, valid glTF 2.0, and read back by the
//! importer with the joints, names, clips and loop properties that other
//! crates' definitions and tests rely on. Also covers the
//! `zoa-anim gen-fixtures` command's write / check / refuse-to-overwrite paths.

use std::path::PathBuf;

use zoa_anim_assets::gltf::load_gltf;
use zoa_anim_core::{Interpolation, TrackProperty};
use zoa_test_support::paths::temp_dir;

fn fixture() -> PathBuf {
    zoa_test_support::paths::fixture("models/humanoid.glb")
}

fn zoa(args: &[&str]) -> std::process::Output {
    zoa_test_support::cli::run(env!("CARGO_BIN_EXE_zoa-anim"), args)
}

/// Clip names in file order with their durations (seconds) and whether they loop.
const CLIPS: [(&str, f32, bool); 14] = [
    ("idle", 3.0, true),
    ("walk", 1.0, true),
    ("run", 0.7, true),
    ("sprint", 16.0 / 30.0, true),
    ("crouch_idle", 2.0, true),
    ("crouch_walk", 1.2, true),
    ("jump_start", 0.4, false),
    ("fall", 0.6, true),
    ("land", 0.5, false),
    ("rifle_aim", 1.0, true),
    ("fire_recoil", 0.3, false),
    ("reload", 2.0, false),
    ("hit_react", 0.6, false),
    ("death", 1.5, false),
];

#[test]
fn check_confirms_the_committed_file_equals_a_fresh_generation() {
    let out = zoa(&["gen-fixtures", "--check"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn generating_into_an_empty_folder_reproduces_the_committed_bytes() {
    let tmp = temp_dir("fixture-fresh");
    let dir = tmp.path();
    let out = zoa(&["gen-fixtures", "--out", dir.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let fresh = std::fs::read(dir.join("models/humanoid.glb")).unwrap();
    assert!(fresh == std::fs::read(fixture()).unwrap(), "fresh generation differs from the committed fixture");
}

#[test]
fn a_differing_file_is_kept_without_force_and_flagged_by_check() {
    let tmp = temp_dir("fixture-stale");
    let dir = tmp.path();
    let path = dir.join("models/humanoid.glb");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, b"stale").unwrap();
    let d = dir.to_str().unwrap();

    let out = zoa(&["gen-fixtures", "--out", d]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--force"));
    assert_eq!(std::fs::read(&path).unwrap(), b"stale");

    assert_eq!(zoa(&["gen-fixtures", "--out", d, "--check"]).status.code(), Some(1));
    assert_eq!(zoa(&["gen-fixtures", "--out", d, "--force"]).status.code(), Some(0));
    assert_eq!(zoa(&["gen-fixtures", "--out", d, "--check"]).status.code(), Some(0));

    let missing_tmp = temp_dir("fixture-missing");
    let missing = missing_tmp.path();
    assert_eq!(zoa(&["gen-fixtures", "--out", missing.to_str().unwrap(), "--check"]).status.code(), Some(1));
    assert!(!missing.join("models").exists(), "--check writes nothing");
}

#[test]
fn the_gltf_crate_validates_the_file() {
    let bytes = std::fs::read(fixture()).unwrap();
    let gltf = gltf::Gltf::from_slice(&bytes).expect("valid glTF 2.0");
    assert_eq!(gltf.skins().count(), 1);
    assert_eq!(gltf.skins().next().unwrap().joints().count(), 55);
    let mesh_node = gltf.nodes().find(|n| n.mesh().is_some()).expect("a mesh node");
    assert!(mesh_node.skin().is_some(), "the mesh is skinned");
    let prim = mesh_node.mesh().unwrap().primitives().next().unwrap();
    let pos = prim.get(&gltf::Semantic::Positions).unwrap();
    assert!(pos.min().is_some() && pos.max().is_some());
    assert!(prim.get(&gltf::Semantic::Joints(0)).is_some() && prim.get(&gltf::Semantic::Weights(0)).is_some());
    // Height from the mesh: feet on the floor, 1.75 m tall (head box top).
    let (min, max) = (pos.min().unwrap(), pos.max().unwrap());
    assert!(min[1].as_f64().unwrap().abs() < 1e-6);
    assert!((max[1].as_f64().unwrap() - 1.75).abs() < 1e-6);

    use gltf::animation::Interpolation as I;
    let mut seen = [false; 3];
    for anim in gltf.animations() {
        for s in anim.samplers() {
            assert!(s.input().min().is_some() && s.input().max().is_some(), "animation input without min/max");
            seen[match s.interpolation() {
                I::Linear => 0,
                I::Step => 1,
                I::CubicSpline => 2,
            }] = true;
        }
    }
    assert_eq!(seen, [true; 3], "LINEAR, STEP and CUBICSPLINE samplers are all exercised");
}

#[test]
fn the_importer_reads_the_humanoid_back() {
    let asset = load_gltf(&fixture()).expect("the importer reads the fixture");
    assert_eq!(asset.skeletons.len(), 1);
    let skel = &asset.skeletons[0];
    assert!((50..=70).contains(&skel.joint_count()), "{} joints", skel.joint_count());

    let mut required: Vec<String> =
        ["Hips", "Spine", "Spine1", "Spine2", "Neck", "Head", "HeadTop_End"].map(String::from).to_vec();
    for side in ["Left", "Right"] {
        for part in ["Shoulder", "Arm", "ForeArm", "Hand", "UpLeg", "Leg", "Foot", "ToeBase", "Toe_End"] {
            required.push(format!("{side}{part}"));
        }
        for finger in ["Thumb", "Index", "Middle", "Ring", "Pinky"] {
            for k in 1..=3 {
                required.push(format!("{side}Hand{finger}{k}"));
            }
        }
    }
    for name in &required {
        assert!(skel.find(name).is_some(), "missing joint {name}");
    }
    for (i, j) in skel.joints().iter().enumerate() {
        assert!(!skel.display_name(i).contains(':'), "namespaced joint name {:?}", j.name);
    }
    let parent_of = |name: &str| skel.parent(skel.find(name).unwrap()).map(|p| skel.display_name(p).into_owned());
    assert_eq!(parent_of("Hips"), None);
    for (child, parent) in [
        ("Spine", "Hips"),
        ("Neck", "Spine2"),
        ("LeftShoulder", "Spine2"),
        ("LeftForeArm", "LeftArm"),
        ("RightHandIndex1", "RightHand"),
        ("LeftUpLeg", "Hips"),
        ("RightFoot", "RightLeg"),
        ("RightToe_End", "RightToeBase"),
    ] {
        assert_eq!(parent_of(child).as_deref(), Some(parent), "parent of {child}");
    }

    // Rest pose: model-space heights from the local translations; inverse binds agree.
    let model = |name: &str| {
        let mut i = Some(skel.find(name).unwrap());
        let mut p = zoa_anim_core::glam::Vec3::ZERO;
        while let Some(j) = i {
            p += skel.joints()[j].rest.translation;
            i = skel.parent(j);
        }
        p
    };
    assert!((model("Hips").y - 1.0).abs() < 1e-5);
    assert!((model("HeadTop_End").y - 1.75).abs() < 1e-5);
    assert!(model("LeftHand").x > 0.5 && model("RightHand").x < -0.5, "T-pose with the left side on +x");
    assert!(model("LeftToe_End").z > 0.1, "feet point +z");
    for (i, j) in skel.joints().iter().enumerate() {
        let p = model(&skel.display_name(i));
        let back = j.inverse_bind.transform_point3(p);
        assert!(back.length() < 1e-5, "inverse bind of {} does not undo its rest position", skel.display_name(i));
    }

    let names: Vec<&str> = asset.clips.iter().map(|c| c.name()).collect();
    assert_eq!(names, CLIPS.map(|c| c.0));
    for (clip, (name, duration, looping)) in asset.clips.iter().zip(CLIPS) {
        assert!((clip.duration() - duration).abs() < 1e-5, "{name}: duration {}", clip.duration());
        assert_eq!(clip.start(), 0.0, "{name}");
        for track in clip.tracks() {
            assert!((track.node as usize) < skel.joint_count(), "{name}: track on a non-joint");
            if looping {
                let last = track.key_count() - 1;
                assert_eq!(track.times[last], clip.duration(), "{name}: a track stops early");
                assert_eq!(track.key_value(0), track.key_value(last), "{name}: node {} does not loop", track.node);
            }
        }
    }

    let clip = |name: &str| asset.clips.iter().find(|c| c.name() == name).unwrap();
    let joint = |name: &str| skel.joints()[skel.find(name).unwrap()].node;
    // Every clip moves the Hips and both knees or arms; nothing is an empty shell.
    for c in &asset.clips {
        assert!(c.tracks().iter().any(|t| t.node == joint("Hips") && t.property == TrackProperty::Translation));
        assert!(c.tracks().len() > 20, "{}: only {} tracks", c.name(), c.tracks().len());
    }
    // Samplers: a STEP finger curl in reload, a CUBICSPLINE Hips translation in jump_start.
    let step = clip("reload").tracks().iter().find(|t| t.node == joint("LeftHandIndex1")).unwrap();
    assert_eq!(step.interpolation, Interpolation::Step);
    assert!(step.key_count() > 2 && step.key_count() < 12, "STEP keys only where the grip changes");
    let cubic = clip("jump_start").tracks().iter().find(|t| t.node == joint("Hips")).unwrap();
    assert_eq!((cubic.property, cubic.interpolation), (TrackProperty::Translation, Interpolation::CubicSpline));
    // Reload: the feet and Hips do not move.
    for name in ["Hips", "LeftUpLeg", "LeftLeg", "LeftFoot", "RightUpLeg", "RightLeg", "RightFoot"] {
        for t in clip("reload").tracks().iter().filter(|t| t.node == joint(name)) {
            assert!((0..t.key_count()).all(|k| t.key_value(k) == t.key_value(0)), "reload moves {name}");
        }
    }
    // fire_recoil starts on the rifle_aim pose (its additive reference) and ends on it.
    let aim = clip("rifle_aim");
    for t in clip("fire_recoil").tracks() {
        let held = aim.tracks().iter().find(|a| a.node == t.node && a.property == t.property).unwrap();
        assert_eq!(t.key_value(0), held.key_value(0), "recoil frame 0 differs from aim on node {}", t.node);
        assert_eq!(t.key_value(t.key_count() - 1), held.key_value(0));
    }
    // The walk's Hips bob and stay in place (treadmill locomotion).
    let hips = clip("walk").tracks().iter().find(|t| t.node == joint("Hips")).unwrap();
    let ys: Vec<f32> = (0..hips.key_count()).map(|k| hips.key_value(k)[1]).collect();
    let zs: Vec<f32> = (0..hips.key_count()).map(|k| hips.key_value(k)[2]).collect();
    let bob = ys.iter().cloned().fold(f32::MIN, f32::max) - ys.iter().cloned().fold(f32::MAX, f32::min);
    assert!(bob > 0.01 && bob < 0.06, "walk bob {bob}");
    assert!(zs.iter().all(|z| z.abs() < 1e-6), "in-place locomotion");
}

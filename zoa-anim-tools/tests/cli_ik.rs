//! `zoa-anim ik --discover`: the JSON contract, discovery on every skinned
//! shared asset and on the fixture humanoid, overrides, and exit code 2 on
//! usage / IO errors. `zoa-anim ik --defs --class`: the grip report's
//! contract on the fixture humanoid's rifle (the off hand lands on its grip)
//! and its refusals.
//!
//! What the shared assets yield (snapshotted below):
//! - CesiumMan, RiggedFigure: full humanoids by their `torso/neck/arm/leg_joint`
//!   names; no clavicle (their three-joint arms are upper arm, forearm,
//!   hand); the head is the end of the two-joint neck chain. All four
//!   policies available.
//! - greenman: hips `root`, spine `body_low`, head `body_up` (nothing is
//!   called neck or head, so the top of the spine is the head); legs are two
//!   joints (`hip_L` → `leg_L`) with no foot joint: each leg ends at the
//!   estimated tip of `leg_*`, where the model's feet are, so foot plant is
//!   available; hands hang straight off the body with no arm bones, so the
//!   hand behaviours are not.
//! - Fox (a quadruped): hind legs are the legs (`LeftLeg01/02`,
//!   `LeftFoot01/02` → upper, lower, foot, toe) and the front legs are found
//!   as arms because that is what their names say (`LeftUpperArm`, …). All
//!   four policies report available; planting the front feet would need a
//!   four-legged plant, which the rig policy does not have.
//! - RiggedSimple, SimpleSkin: two-joint test rigs (a bending cylinder, an
//!   unnamed strip): no role, no policy.

use std::path::PathBuf;
use std::process::Output;

use serde_json::Value;
use zoa_anim_core::rig::BONE_ROLES;
use zoa_test_support::cli;
use zoa_test_support::paths::shared_assets;

fn ik(args: &[&str]) -> Output {
    cli::run(env!("CARGO_BIN_EXE_zoa-anim"), &[&["ik"], args].concat())
}

fn discover(file: &std::path::Path) -> Value {
    let out = ik(&[file.to_str().unwrap(), "--discover", "--format", "json"]);
    assert!(out.status.success(), "{}: {}", file.display(), String::from_utf8_lossy(&out.stderr));
    cli::stdout_json(&out)
}

fn check_shape(v: &Value) {
    let mut top: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    top.sort_unstable();
    assert_eq!(top, ["leg_ends", "policies", "rejected", "roles"]);
    for side in ["left", "right"] {
        let end = &v["leg_ends"][side];
        if !end.is_null() {
            assert!(end["bone"].is_string(), "{end}");
            assert!(end["at"] == "foot" || end["at"] == "tip", "{end}");
            assert!(end["tip"].is_null() || end["tip"].as_array().is_some_and(|a| a.len() == 3), "{end}");
            assert!(["joint", "end_joint", "estimated"].contains(&end["source"].as_str().unwrap()), "{end}");
        }
    }
    for r in v["rejected"].as_array().unwrap() {
        assert!(r["bone"].is_string() && r["reason"].is_string(), "{r}");
        assert!(r["role"].is_null() || BONE_ROLES.contains(&r["role"].as_str().unwrap()), "{r}");
    }
    let roles = v["roles"].as_object().unwrap();
    assert_eq!(roles.len(), BONE_ROLES.len());
    for r in BONE_ROLES {
        let value = &roles[r];
        if r == "spine" {
            assert!(value.as_array().unwrap().iter().all(Value::is_string));
        } else {
            assert!(value.is_null() || value.is_string(), "{r}: {value}");
        }
    }
    let policies = v["policies"].as_object().unwrap();
    let mut names: Vec<&str> = policies.keys().map(String::as_str).collect();
    names.sort_unstable();
    assert_eq!(names, ["climb_hand", "foot_plant", "hand_on_weapon", "look_at"]);
    assert!(policies.values().all(Value::is_boolean));
}

fn found(v: &Value, roles: &[&str]) -> bool {
    roles.iter().all(|r| v["roles"][r].is_string())
}

#[test]
fn every_skinned_shared_asset_matches_the_contract_and_its_snapshot() {
    let Some(dir) = shared_assets() else { return };
    for file in ["CesiumMan.glb", "RiggedFigure.glb", "greenman.glb", "Fox.glb", "RiggedSimple.glb", "SimpleSkin.gltf"]
    {
        let v = discover(&dir.join(file));
        check_shape(&v);
        insta::assert_json_snapshot!(format!("ik_discover_{file}"), v);
    }
}

#[test]
fn legs_arms_and_head_are_found_where_the_assets_have_them() {
    let Some(dir) = shared_assets() else { return };
    let legs = ["left_upper_leg", "left_lower_leg", "right_upper_leg", "right_lower_leg"];
    let feet = ["left_foot", "right_foot"];
    let arms = ["left_upper_arm", "left_forearm", "left_hand", "right_upper_arm", "right_forearm", "right_hand"];
    for file in ["CesiumMan.glb", "RiggedFigure.glb"] {
        let v = discover(&dir.join(file));
        assert!(found(&v, &legs) && found(&v, &feet) && found(&v, &arms) && found(&v, &["hips", "head"]), "{file}");
        assert!(v["policies"].as_object().unwrap().values().all(|b| b == true), "{file}");
        assert!(v["roles"]["left_upper_leg"].as_str().unwrap().contains("_L_"), "{file}: sides from names");
    }
    let g = discover(&dir.join("greenman.glb"));
    assert!(found(&g, &legs) && found(&g, &["left_hand", "right_hand", "head"]));
    assert_eq!(g["roles"]["left_upper_leg"], "hip_L");
    assert_eq!(g["roles"]["left_hand"], "hand_L", "the hand socket is not taken for the hand");
    assert_eq!(g["policies"]["look_at"], true);
    assert_eq!(g["policies"]["foot_plant"], true, "the legs end at the tips of `leg_L` / `leg_R`");
    assert_eq!(g["policies"]["hand_on_weapon"], false);
    assert_eq!(g["leg_ends"]["left"]["bone"], "leg_L");
    assert_eq!(g["leg_ends"]["left"]["at"], "tip");
    assert_eq!(g["leg_ends"]["left"]["source"], "estimated");
}

/// The Quaternius armature (a Blender game rig: `UpperLeg.L` → `LowerLeg.L`
/// under `Body`, `Foot.L` / `PoleTarget.L` IK controls under the armature
/// root, `UpperArm.L` → `LowerArm.L` → `Palm.L`), written with the exporter.
fn blender_game_rig() -> Vec<u8> {
    let skeleton = zoa_test_support::skeletons::quaternius();
    zoa_anim_assets::export::write_glb(&zoa_anim_assets::export::GlbScene {
        skeleton: &skeleton,
        clips: &[],
        mesh: None,
    })
    .unwrap()
}

#[test]
fn blender_game_rigs_find_upper_and_lower_legs_and_arms_and_say_why_the_controls_are_not_feet() {
    let dir = zoa_test_support::paths::temp_dir("cli-ik");
    let path = dir.path().join("quaternius_style.glb");
    std::fs::write(&path, blender_game_rig()).unwrap();
    let v = discover(&path);
    check_shape(&v);
    for (role, bone) in [
        ("hips", "Body"),
        ("left_upper_leg", "UpperLeg.L"),
        ("left_lower_leg", "LowerLeg.L"),
        ("right_upper_leg", "UpperLeg.R"),
        ("right_lower_leg", "LowerLeg.R"),
        ("left_upper_arm", "UpperArm.L"),
        ("left_forearm", "LowerArm.L"),
        ("left_hand", "Palm.L"),
        ("right_upper_arm", "UpperArm.R"),
        ("right_forearm", "LowerArm.R"),
        ("right_hand", "Palm.R"),
    ] {
        assert_eq!(v["roles"][role], bone, "{role}");
    }
    assert!(v["roles"]["left_foot"].is_null(), "the IK control is not the foot");
    assert!(v["policies"].as_object().unwrap().values().all(|b| b == true), "{}", v["policies"]);
    assert_eq!(
        v["leg_ends"]["right"],
        serde_json::json!({"bone": "LowerLeg.R", "at": "tip", "tip": [0.0, -0.5, 0.0], "source": "estimated"})
    );
    let rejected = v["rejected"].as_array().unwrap();
    let why = |bone: &str| {
        rejected.iter().find(|r| r["bone"] == bone).unwrap_or_else(|| panic!("{bone} not rejected: {rejected:?}"))
    };
    assert_eq!(why("Foot.L")["role"], "left_foot");
    assert!(why("Foot.L")["reason"].as_str().unwrap().contains("not a descendant of the left lower leg `LowerLeg.L`"));
    assert!(why("PoleTarget.R")["reason"].as_str().unwrap().contains("rig control"));
    assert_eq!(why("Hips")["role"], "hips");

    let human = ik(&[path.to_str().unwrap(), "--discover"]);
    let text = String::from_utf8_lossy(&human.stdout);
    assert!(text.contains("left leg ends at the tip of `LowerLeg.L`"), "{text}");
    assert!(text.contains("`Foot.L` as left_foot: not a descendant"), "{text}");
}

#[test]
fn fixture_humanoid_is_fully_discovered() {
    let path = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/models/humanoid.glb"));
    if !path.is_file() {
        eprintln!("note: {} not generated yet; skipping", path.display());
        return;
    }
    let v = discover(&path);
    check_shape(&v);
    let expected = [
        ("hips", "Hips"),
        ("neck", "Neck"),
        ("head", "Head"),
        ("left_upper_leg", "LeftUpLeg"),
        ("left_lower_leg", "LeftLeg"),
        ("left_foot", "LeftFoot"),
        ("left_toe", "LeftToeBase"),
        ("right_upper_leg", "RightUpLeg"),
        ("right_foot", "RightFoot"),
        ("left_shoulder", "LeftShoulder"),
        ("left_upper_arm", "LeftArm"),
        ("left_forearm", "LeftForeArm"),
        ("left_hand", "LeftHand"),
        ("right_upper_arm", "RightArm"),
        ("right_hand", "RightHand"),
    ];
    for (role, bone) in expected {
        assert_eq!(v["roles"][role], bone, "{role}");
    }
    assert!(v["roles"]["spine"].as_array().unwrap().iter().any(|s| s == "Spine"));
    assert!(v["policies"].as_object().unwrap().values().all(|b| b == true));
}

#[test]
fn chains_say_whether_they_compile_and_why_not() {
    let path = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/models/humanoid.glb"));
    if !path.is_file() {
        eprintln!("note: {} not generated yet; skipping", path.display());
        return;
    }
    let p = path.to_str().unwrap();
    let chains = ["--chain", "Spine..Head", "--chain", "Head..Spine", "--chain", "Spine..Tail"];
    let out = ik(&[&[p, "--discover", "--format", "json"][..], &chains].concat());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v = cli::stdout_json(&out);
    let got: Vec<(&str, u64, bool, Option<&str>)> = v["chains"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (c["name"].as_str().unwrap(), c["joints"].as_u64().unwrap(), c["available"] == true, c["problem"].as_str())
        })
        .collect();
    assert_eq!(
        got,
        [
            ("Spine..Head", 5, true, None),
            ("Head..Spine", 0, false, Some("`Spine` does not lie below `Head`")),
            ("Spine..Tail", 0, false, Some("the skeleton has no bone `Tail`")),
        ]
    );
    assert_eq!((v["chains"][0]["root"].as_str(), v["chains"][0]["tip"].as_str()), (Some("Spine"), Some("Head")));
    let human = ik(&[&[p, "--discover"][..], &chains].concat());
    let text = String::from_utf8_lossy(&human.stdout);
    assert!(text.contains("Spine..Head       yes (5 joints)"), "{text}");
    assert!(text.contains("Head..Spine       no (`Spine` does not lie below `Head`)"), "{text}");
    // Without --chain the document keeps its four keys (the contract).
    check_shape(&discover(&path));
    let bad = ik(&[p, "--discover", "--chain", "Spine-Head"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("expected ROOT..TIP"));
}

#[test]
fn overrides_replace_discovered_bones_and_bad_ones_fail() {
    let Some(dir) = shared_assets() else { return };
    let file = dir.join("greenman.glb");
    let f = file.to_str().unwrap();
    let out =
        ik(&[f, "--discover", "--format", "json", "--override", "left_foot=leg_L", "--override", "right_foot=leg_R"]);
    assert!(out.status.success());
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["roles"]["left_foot"], "leg_L");
    assert_eq!(v["leg_ends"]["left"]["at"], "foot", "a foot named by override replaces the tip");

    let out = ik(&[f, "--discover", "--override", "left_foot=nope"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("nope"));
    let out = ik(&[f, "--discover", "--override", "tail=leg_L"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown role `tail`"));
}

#[test]
fn usage_and_io_errors_exit_2() {
    let out = ik(&["/nonexistent/file.glb", "--discover"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("file.glb"));
    let out = ik(&["x.glb"]);
    assert_eq!(out.status.code(), Some(2), "--discover is required");
    if let Some(dir) = shared_assets() {
        let out = ik(&[dir.join("CesiumMan.glb").to_str().unwrap(), "--discover", "--skin", "3"]);
        assert_eq!(out.status.code(), Some(2));
        assert!(String::from_utf8_lossy(&out.stderr).contains("no skin 3"));
    }
}

/// The fixture humanoid's definition folder.
const DEFS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/defs/humanoid");

fn grips(args: &[&str]) -> Output {
    ik(&[&["--defs", DEFS], args].concat())
}

#[test]
fn grips_report_the_off_hands_distance_before_and_after_ik() {
    let out = grips(&["--class", "rifle", "--time", "1", "--format", "json"]);
    assert!(out.status.success(), "{}", cli::stderr(&out));
    let v = cli::stdout_json(&out);
    assert_eq!(cli::keys(&v), ["aiming", "attach", "class", "defs", "equipment", "hands", "time"]);
    assert_eq!((v["class"].as_str(), v["equipment"].as_str()), (Some("rifle"), Some("rifle")));
    assert_eq!(v["attach"], serde_json::json!({ "role": "right_hand", "bone": "RightHand" }));
    assert_eq!((v["time"].as_f64(), v["aiming"].as_bool()), (Some(1.0), Some(false)));
    let hands = v["hands"].as_array().unwrap();
    assert_eq!(hands.len(), 1, "the rifle has an off-hand grip only: {hands:?}");
    let h = &hands[0];
    assert_eq!(cli::keys(h), ["bone", "distance_after", "distance_before", "grip", "hand", "target", "weight"]);
    assert_eq!(
        (h["hand"].as_str(), h["target"].as_str(), h["bone"].as_str()),
        (Some("off_hand"), Some("left_hand_grip"), Some("LeftHand"))
    );
    assert_eq!(h["weight"], 1.0);
    assert_eq!(h["grip"].as_array().unwrap().len(), 3);
    let (before, after) = (h["distance_before"].as_f64().unwrap(), h["distance_after"].as_f64().unwrap());
    assert!(before > 0.1, "the low-ready animation leaves the left hand {before} m from the grip");
    assert!(after < 0.002, "hand on weapon puts it there: {after} m");

    // Aiming: the item's aim grip (the handguard), elsewhere in model space.
    let aim = cli::stdout_json(&grips(&["--class", "rifle", "--time", "1", "--aim", "--format", "json"]));
    assert_eq!(aim["aiming"], true);
    assert_ne!(aim["hands"][0]["grip"], h["grip"]);

    let human = grips(&["--class", "rifle", "--time", "1"]);
    let text = cli::stdout(&human);
    assert!(text.contains("class `rifle` holds `rifle` (attach right_hand = `RightHand`), t = 1.000 s"), "{text}");
    assert!(text.lines().any(|l| l.starts_with("off_hand") && l.contains("LeftHand") && l.ends_with(" m")), "{text}");
}

#[test]
fn grips_refuse_classes_without_an_item_and_bad_arguments() {
    let out = grips(&["--class", "shotgun", "--format", "json"]);
    assert_eq!(out.status.code(), Some(1));
    let v = cli::stdout_json(&out);
    assert_eq!(v["error"]["code"], "not-found");
    assert!(v["error"]["message"].as_str().unwrap().contains("classes that do: pistol, rifle"), "{v}");
    let out = grips(&["--class", "sword"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(cli::stderr(&out).contains("expected one of unarmed, pistol, rifle"), "{}", cli::stderr(&out));
    let out = grips(&["--class", "rifle", "--time", "-1"]);
    assert_eq!(out.status.code(), Some(2));
    let out = ik(&["--defs", DEFS]);
    assert_eq!(out.status.code(), Some(2), "--defs needs --class");
    let out = ik(&["x.glb", "--discover", "--defs", DEFS, "--class", "rifle"]);
    assert_eq!(out.status.code(), Some(2), "one mode at a time");
    let out = ik(&["--defs", "/nonexistent/defs", "--class", "rifle", "--format", "json"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(cli::stdout_json(&out)["error"]["code"], "io");
}

//! `zoa-anim inspect`: the JSON contract on shared assets, the human tree,
//! and exit code 2 with a message naming the file on IO or format errors.

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;
use zoa_test_support::cli;
use zoa_test_support::paths::shared_assets;

fn inspect(args: &[&str]) -> Output {
    cli::run(env!("CARGO_BIN_EXE_zoa-anim"), &[&["inspect"], args].concat())
}

fn json_of(file: &Path) -> Value {
    let out = inspect(&[file.to_str().unwrap(), "--format", "json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    cli::stdout_json(&out)
}

fn keys(v: &Value) -> Vec<&str> {
    let mut k: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    k.sort_unstable();
    k
}

#[test]
fn json_shape_and_values_match_the_manifest() {
    let Some(dir) = shared_assets() else { return };
    let manifest: Value = serde_json::from_slice(&std::fs::read(dir.join("manifest.json")).unwrap()).unwrap();
    for entry in manifest["assets"].as_array().unwrap() {
        let facts = &entry["facts"];
        let name = facts["file"].as_str().unwrap();
        let path = dir.join(name);
        let v = json_of(&path);
        assert_eq!(keys(&v), ["clips", "file", "skins"], "{name}");
        assert_eq!(v["file"], path.display().to_string());

        let skins = v["skins"].as_array().unwrap();
        assert_eq!(skins.len() as u64, facts["skin_count"].as_u64().unwrap(), "{name}");
        for (i, (skin, expected)) in skins.iter().zip(facts["skins"].as_array().unwrap()).enumerate() {
            assert_eq!(keys(skin), ["index", "joints", "name"]);
            assert_eq!(skin["index"], i);
            assert_eq!(skin["name"], expected["name"], "{name}: skin name (null when absent)");
            let joints = skin["joints"].as_array().unwrap();
            assert_eq!(joints.len() as u64, expected["joint_count"].as_u64().unwrap());
            let mut roots = Vec::new();
            for (j, joint) in joints.iter().enumerate() {
                assert_eq!(keys(joint), ["name", "node", "parent"]);
                assert!(joint["node"].is_u64());
                assert!(joint["name"].is_string() || joint["name"].is_null());
                match joint["parent"].as_u64() {
                    Some(p) => assert!((p as usize) < joints.len() && p as usize != j, "{name}: parent index"),
                    None => {
                        assert!(joint["parent"].is_null());
                        roots.push(
                            joint["name"]
                                .as_str()
                                .map(str::to_owned)
                                .unwrap_or_else(|| format!("<node {}>", joint["node"])),
                        );
                    }
                }
            }
            let expected_roots: Vec<String> =
                expected["root_joints"].as_array().unwrap().iter().map(|r| r.as_str().unwrap().to_owned()).collect();
            assert_eq!(roots, expected_roots, "{name}: roots");
        }

        let clips = v["clips"].as_array().unwrap();
        let anims = facts["animations"].as_array().map(Vec::as_slice).unwrap_or(&[]);
        assert_eq!(clips.len(), anims.len(), "{name}");
        for (i, (clip, anim)) in clips.iter().zip(anims).enumerate() {
            assert_eq!(keys(clip), ["channels", "duration", "index", "name"]);
            assert_eq!(clip["index"], i);
            let expected_name = anim["name"].as_str().unwrap();
            if expected_name.starts_with("<animation") {
                assert!(clip["name"].is_null(), "{name}: unnamed animation prints null");
            } else {
                assert_eq!(clip["name"], expected_name);
            }
            assert_eq!(clip["channels"], anim["channels"], "{name}: channels");
            let d = clip["duration"].as_f64().unwrap();
            assert!((d - anim["duration"].as_f64().unwrap()).abs() < 1e-5, "{name}: duration {d}");
        }
    }
}

#[test]
fn human_output_is_a_joint_tree_then_the_clips() {
    let Some(dir) = shared_assets() else { return };
    let out = inspect(&[dir.join("Fox.glb").to_str().unwrap()]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let body = text.split_once('\n').unwrap().1; // first line holds the machine-specific path
    insta::assert_snapshot!(body);
}

#[test]
fn a_morph_only_file_inspects_without_warnings() {
    let Some(dir) = shared_assets() else { return };
    let out = inspect(&[dir.join("AnimatedMorphCube.glb").to_str().unwrap(), "--format", "json"]);
    assert!(out.status.success());
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(!stderr.contains("warning"), "{stderr}");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["clips"][0]["channels"], 1);
}

#[test]
fn missing_and_malformed_files_exit_2_naming_the_file() {
    let out = inspect(&["/nonexistent/zoa/Nope.glb"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("/nonexistent/zoa/Nope.glb"), "{stderr}");

    let corpus = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../zoa-anim-assets/tests/corpus/node_cycle.glb"));
    let out = inspect(&[corpus.to_str().unwrap(), "--format", "json"]);
    assert_eq!(out.status.code(), Some(2));
    // With --format json the failure is a JSON object on stdout too.
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["error"]["code"], "invalid-input");
    assert!(json["error"]["message"].as_str().unwrap().contains("parent cycle"), "{json}");
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("node_cycle.glb: node 0 \"root\": is part of a parent cycle"), "{stderr}");
}

//! `zoa-anim validate` and `zoa-anim resolve` run as a binary: exit codes and
//! the JSON contracts.

use std::path::Path;
use std::process::Output;

use serde_json::Value;
use zoa_test_support::cli::{self, arg, stdout_json};
use zoa_test_support::paths::{repo, temp_dir};
use zoa_test_support::tempfile::TempDir;

fn zoa(args: &[&str]) -> Output {
    cli::run(env!("CARGO_BIN_EXE_zoa-anim"), args)
}

/// A throw-away definition folder with the given files (removed on drop).
struct TempDefs(TempDir);

impl TempDefs {
    fn new(name: &str, files: &[(&str, &str)]) -> Self {
        let dir = temp_dir(&format!("cli-defs-{name}"));
        for (file, text) in files {
            std::fs::write(dir.path().join(file), text).unwrap();
        }
        TempDefs(dir)
    }
    fn path(&self) -> &str {
        arg(self.0.path())
    }
}

#[test]
fn validate_fixture_folder_is_clean() {
    let dir = repo("fixtures/defs/humanoid");
    let out = zoa(&["validate", dir.to_str().unwrap(), "--format", "json"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
    let v = stdout_json(&out);
    assert_eq!(v["errors"], 0);
    assert_eq!(v["warnings"], 0);
    assert_eq!(v["diagnostics"], Value::Array(vec![]));
    let human = zoa(&["validate", dir.to_str().unwrap()]);
    assert_eq!(human.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&human.stdout).contains("0 error(s), 0 warning(s)"));
}

#[test]
fn validate_errors_exit_1_with_the_contract_shape() {
    let dir = repo("fixtures/invalid/E016-blend-tree-shape");
    let out = zoa(&["validate", dir.to_str().unwrap(), "--format", "json"]);
    assert_eq!(out.status.code(), Some(1));
    let v = stdout_json(&out);
    assert_eq!(v["errors"], 4);
    assert_eq!(v["warnings"], 0);
    let first = &v["diagnostics"][0];
    let mut keys: Vec<&str> = first.as_object().unwrap().keys().map(String::as_str).collect();
    keys.sort_unstable();
    assert_eq!(keys, ["code", "column", "field", "file", "line", "message", "severity"]);
    assert_eq!(first["severity"], "error");
    assert_eq!(first["code"], "E016");
    assert_eq!(first["file"], "graph.toml");
    assert_eq!((first["line"].as_u64(), first["column"].as_u64()), (Some(10), Some(57)));
    assert_eq!(first["field"], "states[0].blend_tree.children");

    let human = zoa(&["validate", dir.to_str().unwrap()]);
    assert_eq!(human.status.code(), Some(1));
    let text = String::from_utf8_lossy(&human.stdout);
    assert!(text.contains("error[E016]") && text.contains("graph.toml:10:57") && text.contains('^'), "{text}");
}

#[test]
fn validate_warnings_only_exits_0_and_usage_problems_exit_2() {
    let dir = repo("fixtures/invalid/W005-missing-sound-file");
    let out = zoa(&["validate", dir.to_str().unwrap(), "--format", "json"]);
    assert_eq!(out.status.code(), Some(0));
    let v = stdout_json(&out);
    assert_eq!((v["errors"].as_u64(), v["warnings"].as_u64()), (Some(0), Some(1)));
    assert_eq!(v["diagnostics"][0]["severity"], "warning");

    let info = zoa(&["validate", repo("fixtures/invalid/I001-custom-id").to_str().unwrap(), "--format", "json"]);
    assert_eq!(info.status.code(), Some(0));
    let v = stdout_json(&info);
    assert_eq!((v["errors"].as_u64(), v["warnings"].as_u64()), (Some(0), Some(0)));
    assert_eq!(v["diagnostics"][0]["severity"], "info");

    assert_eq!(zoa(&["validate", "/no/such/folder"]).status.code(), Some(2));
    assert_eq!(zoa(&["validate"]).status.code(), Some(2));
    assert_eq!(zoa(&["validate", ".", "--format", "yaml"]).status.code(), Some(2));
}

const SEED: &str = r#"
kind = "animation_profile"
id = "seed"

[[entries]]
clip = "idle"

[[entries]]
tags = "locomotion=sprint mood=calm"
clip = "sprint_calm"
"#;

const NO_DEFAULT: &str = r#"
kind = "animation_profile"
id = "walker"
default_idle_clip = "idle"

[[entries]]
tags = "locomotion=walk"
clip = "walk"

[[entries]]
tags = "locomotion=walk mood=calm"
clip = "walk_calm"
weight = 0.5
"#;

#[test]
fn resolve_reports_step_relaxed_and_source() {
    let dir = TempDefs::new("seed", &[("seed.toml", SEED), ("walker.toml", NO_DEFAULT)]);
    let out = zoa(&[
        "resolve",
        "--defs",
        dir.path(),
        "--profile",
        "seed",
        "--state",
        "locomotion=sprint mood=alert",
        "--format",
        "json",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let v = stdout_json(&out);
    assert_eq!(v["profile"], "seed");
    assert_eq!(v["state"], "locomotion=sprint mood=alert");
    let m = &v["match"];
    assert_eq!(m["row"], 1);
    assert_eq!(m["clip"], "sprint_calm");
    assert_eq!(m["step"], 1);
    assert_eq!(m["default_row"], false);
    assert_eq!(m["relaxed"], "mood");
    assert_eq!(m["specificity"], 1);
    assert_eq!(m["weight"], 1.0);
    assert_eq!(m["source_profile"], "seed");
    assert_eq!(v["no_match_policy"], Value::Null);

    // Locomotion is never relaxed: a swimming entity takes the untagged default.
    let out =
        zoa(&["resolve", "--defs", dir.path(), "--profile", "seed", "--state", "locomotion=swim", "--format", "json"]);
    let v = stdout_json(&out);
    assert_eq!(v["match"]["row"], 0);
    assert_eq!(v["match"]["step"], Value::Null);
    assert_eq!(v["match"]["default_row"], true);
    assert_eq!(v["match"]["relaxed"], "none");

    // No untagged row: no match, and the profile's policy is reported.
    let out =
        zoa(&["resolve", "--defs", dir.path(), "--profile", "walker", "--state", "locomotion=run", "--format", "json"]);
    let v = stdout_json(&out);
    assert_eq!(v["match"], Value::Null);
    assert_eq!(v["no_match_policy"], "default_idle");
}

#[test]
fn resolve_human_output_explains_the_walk() {
    let dir = TempDefs::new("human", &[("walker.toml", NO_DEFAULT)]);
    let out = zoa(&["resolve", "--defs", dir.path(), "--profile", "walker", "--state", "locomotion=walk mood=calm"]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("step 0 (exact): 2 candidate(s)"), "{text}");
    assert!(text.contains("beats runner-up row 0 `walk`: higher specificity (2 > 1)"), "{text}");

    let out = zoa(&["resolve", "--defs", dir.path(), "--profile", "walker", "--state", "locomotion=walk mood=alert"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("the only candidate"), "{text}");

    let out = zoa(&["resolve", "--defs", dir.path(), "--profile", "walker", "--state", "locomotion=run mood=alert"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("step 5 (relaxed: posture,combat,interaction,reaction,mood)"), "{text}");
    assert!(text.contains("no-match policy: default_idle (loop `idle`)"), "{text}");
}

#[test]
fn resolve_inherited_fixture_profile() {
    let dir = repo("fixtures/defs/humanoid");
    let out = zoa(&[
        "resolve",
        "--defs",
        dir.to_str().unwrap(),
        "--profile",
        "humanoid_wounded",
        "--state",
        "locomotion=walk posture=standing",
        "--format",
        "json",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let v = stdout_json(&out);
    assert_eq!(v["match"]["clip"], "crouch_walk");
    assert_eq!(v["match"]["source_profile"], "humanoid_wounded");
    assert_eq!(v["match"]["step"], 0);
    let out = zoa(&[
        "resolve",
        "--defs",
        dir.to_str().unwrap(),
        "--profile",
        "humanoid_wounded",
        "--state",
        "locomotion=fall",
        "--format",
        "json",
    ]);
    let v = stdout_json(&out);
    assert_eq!(v["match"]["clip"], "fall");
    assert_eq!(v["match"]["source_profile"], "humanoid_base");
}

#[test]
fn resolve_usage_errors_exit_2() {
    let dir = repo("fixtures/defs/humanoid");
    let d = dir.to_str().unwrap();
    let out = zoa(&["resolve", "--defs", d, "--profile", "nobody", "--state", "locomotion=walk"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("humanoid_base"));
    let out = zoa(&["resolve", "--defs", d, "--profile", "humanoid_base", "--state", "locomotion=sprnt"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("`sprnt`") && err.contains("posture: standing | crouching"), "{err}");
    let out = zoa(&["resolve", "--defs", "/no/such/folder", "--profile", "x", "--state", "locomotion=walk"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(!Path::new("/no/such/folder").exists());
}

//! Every command that generates a definition writes its model paths relative
//! to the definition file, whatever the working directory: each is run from
//! a temporary folder with relative arguments, and `validate` on the result
//! finds no missing file (E014). (The binding-profile wizard of `serve`
//! writes no model path: a binding profile names clips by id.)

use std::path::Path;
use std::process::{Command, Output};

use zoa_test_support::paths::{copy_dir, fixture, temp_dir};

/// `zoa-anim ARGS` run from `cwd`.
fn zoa_in(cwd: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_zoa-anim")).current_dir(cwd).args(args).output().unwrap()
}

fn assert_ok(out: &Output) {
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `validate DIR --format json` from `cwd`: no errors, no E014.
fn assert_validates(cwd: &Path, dir: &str) {
    let out = zoa_in(cwd, &["validate", dir, "--format", "json"]);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["errors"], 0, "{report:#}");
    assert!(!report.to_string().contains("E014"), "{report:#}");
    assert_eq!(out.status.code(), Some(0));
}

/// A field `key = "…"` of a TOML file.
fn string_field(path: &Path, key: &str) -> String {
    let doc: toml::Table = std::fs::read_to_string(path).unwrap().parse().unwrap();
    doc[key].as_str().unwrap_or_else(|| panic!("{key} in {}", path.display())).to_owned()
}

/// `zoa-anim graph --defs DEFS --set player ARGS` run from `cwd`.
fn graph_in(cwd: &Path, defs: &str, args: &[&str]) -> Output {
    let mut all = vec!["graph", "--defs", defs, "--set", "player"];
    all.extend_from_slice(args);
    zoa_in(cwd, &all)
}

/// A copy of the fixture model at `root/rel`.
fn copy_model(root: &Path, rel: &str) {
    let to = root.join(rel);
    std::fs::create_dir_all(to.parent().unwrap()).unwrap();
    std::fs::copy(fixture("models/humanoid.glb"), to).unwrap();
}

#[test]
fn graph_writes_the_model_relative_to_the_out_file() {
    let tmp = temp_dir("rel-graph");
    let root = tmp.path();
    copy_dir(&fixture("defs/humanoid"), &root.join("defs/humanoid"));
    copy_model(root, "models/humanoid.glb");
    let out = graph_in(
        root,
        "defs/humanoid",
        &[
            "--id",
            "generated",
            "--model",
            "models/humanoid.glb",
            "--out",
            "defs/humanoid/graphs/generated.toml",
            "--format",
            "json",
        ],
    );
    assert_ok(&out);
    let summary: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(summary["model"], "../../../models/humanoid.glb");
    assert_eq!(
        string_field(&root.join("defs/humanoid/graphs/generated.toml"), "model"),
        "../../../models/humanoid.glb"
    );
    assert_validates(root, "defs/humanoid");

    // Printing: relative to the --defs folder.
    let printed = graph_in(root, "defs/humanoid", &["--model", "models/humanoid.glb"]);
    assert_ok(&printed);
    assert!(String::from_utf8_lossy(&printed.stdout).contains("model = \"../../models/humanoid.glb\""));

    // A path already relative to the definition file is kept; a model found nowhere is exit 1.
    let graphs = root.join("defs/humanoid/graphs");
    let kept =
        graph_in(&graphs, "..", &["--id", "kept", "--model", "../../../models/humanoid.glb", "--out", "kept.toml"]);
    assert_ok(&kept);
    assert_eq!(string_field(&graphs.join("kept.toml"), "model"), "../../../models/humanoid.glb");
    let missing = graph_in(
        root,
        "defs/humanoid",
        &["--model", "models/nobody.glb", "--out", "defs/humanoid/graphs/x.toml", "--format", "json"],
    );
    assert_eq!(missing.status.code(), Some(1));
    let err: serde_json::Value = serde_json::from_slice(&missing.stdout).unwrap();
    assert!(err.to_string().contains("models/nobody.glb"), "{err}");
    assert!(!root.join("defs/humanoid/graphs/x.toml").exists());
}

#[test]
fn import_writes_sources_relative_to_the_clip_files() {
    let tmp = temp_dir("rel-import");
    let root = tmp.path();
    copy_model(root, "art/hero.glb");
    assert_ok(&zoa_in(root, &["import", "art/hero.glb", "--into", "defs/clips"]));
    assert_eq!(string_field(&root.join("defs/clips/hero_walk.toml"), "source"), "../../art/hero.glb");
    assert_validates(root, "defs");
}

#[test]
fn autobind_writes_sources_relative_to_the_set_folder() {
    let tmp = temp_dir("rel-autobind");
    let root = tmp.path();
    copy_model(root, "art/hero.glb");
    assert_ok(&zoa_in(root, &["autobind", "art", "--out", "defs/sets/player.toml", "--no-cache"]));
    let clips: Vec<_> = std::fs::read_dir(root.join("defs/sets"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| std::fs::read_to_string(p).unwrap().contains("kind = \"clip\""))
        .collect();
    assert!(!clips.is_empty(), "autobind cuts the clips it assigns");
    for c in &clips {
        assert_eq!(string_field(c, "source"), "../../art/hero.glb", "{}", c.display());
    }
    assert_validates(root, "defs");
}

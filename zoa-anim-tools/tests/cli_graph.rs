//! `zoa-anim graph`: generates a graph from the fixture player set; the
//! written TOML validates inside a copy of the fixture folder; no overwrite
//! without `--force`.

use std::process::Command;

use zoa_test_support::paths::{copy_dir, fixture, temp_dir};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_zoa-anim"))
}

#[test]
fn generated_graph_validates_and_is_never_overwritten_silently() {
    let folder = temp_dir("cli-graph");
    let tmp = folder.path();
    copy_dir(&fixture("defs/humanoid"), &tmp.join("defs/humanoid"));
    std::fs::create_dir_all(tmp.join("models")).unwrap();
    std::fs::copy(fixture("models/humanoid.glb"), tmp.join("models/humanoid.glb")).unwrap();
    let defs = tmp.join("defs/humanoid");
    let out = defs.join("graphs/generated.toml");
    let model = tmp.join("models/humanoid.glb");
    let model = model.to_str().unwrap();

    let stdout = bin()
        .args(["graph", "--defs"])
        .arg(&defs)
        .args(["--set", "player", "--id", "generated", "--model", model])
        .output()
        .unwrap();
    assert!(stdout.status.success(), "{}", String::from_utf8_lossy(&stdout.stderr));
    let text = String::from_utf8(stdout.stdout).unwrap();
    assert!(text.contains("kind = \"animation_graph\"") && text.contains("id = \"generated\""), "{text}");
    assert!(!out.exists(), "printing must not write");

    let write = |force: bool| {
        let mut cmd = bin();
        cmd.args(["graph", "--defs"]).arg(&defs).args([
            "--set",
            "player",
            "--id",
            "generated",
            "--model",
            model,
            "--format",
            "json",
            "--out",
        ]);
        cmd.arg(&out);
        if force {
            cmd.arg("--force");
        }
        cmd.output().unwrap()
    };
    let first = write(false);
    assert!(first.status.success(), "{}", String::from_utf8_lossy(&first.stderr));
    let summary: serde_json::Value = serde_json::from_slice(&first.stdout).unwrap();
    assert_eq!(summary["graph"], "generated");
    assert!(summary["states"].as_u64().unwrap() >= 3, "{summary}");
    assert!(summary["layers"].as_u64().unwrap() >= 1);

    std::fs::write(&out, "# edited by hand\n").unwrap();
    let refused = write(false);
    assert_eq!(refused.status.code(), Some(2));
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "# edited by hand\n");
    assert!(write(true).status.success());

    let validate = bin().args(["validate", "--format", "json"]).arg(&defs).output().unwrap();
    let report: serde_json::Value = serde_json::from_slice(&validate.stdout).unwrap();
    assert_eq!(report["errors"], 0, "{report}");
    assert_eq!(validate.status.code(), Some(0));

    let missing =
        bin().args(["graph", "--defs"]).arg(&defs).args(["--set", "nobody", "--model", model]).output().unwrap();
    assert_eq!(missing.status.code(), Some(1));
}

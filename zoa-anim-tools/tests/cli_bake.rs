//! `zoa-anim bake` and `zoa-anim bench --baked`: the bake's JSON document
//! (snapshot of the fixture humanoid's sizes and key counts), refusing to
//! overwrite without `--force`, a folder with errors (exit 1, every error),
//! and the bench's `clip_bytes` and `load_ms` on the baked file.

use std::process::Output;

use zoa_test_support::cli;
use zoa_test_support::paths::{copy_dir, fixture, temp_dir};

fn zoa(args: &[&str]) -> Output {
    cli::run(env!("CARGO_BIN_EXE_zoa-anim"), args)
}

#[test]
fn bake_writes_the_file_once_and_reports_what_it_holds() {
    let tmp = temp_dir("cli-bake");
    let out_file = tmp.path().join("humanoid.zoabake");
    let (defs, out_arg) = (fixture("defs/humanoid"), out_file.to_str().unwrap().to_owned());
    let args = ["bake", defs.to_str().unwrap(), "--out", &out_arg, "--format", "json"];
    let out = zoa(&args);
    assert!(out.status.success(), "{}", cli::stderr(&out));
    let mut v = cli::stdout_json(&out);
    assert_eq!(v["file"], out_arg.as_str());
    let written = std::fs::metadata(&out_file).unwrap().len();
    assert_eq!(v["bytes"].as_u64(), Some(written));
    assert!(v["keys_after"].as_u64() < v["keys_before"].as_u64(), "{v}");
    v.as_object_mut().unwrap().remove("file");
    insta::assert_json_snapshot!("bake_humanoid", v);
    // The file loads through the front door.
    let def = zoa_animation::load_baked(&out_file).unwrap();
    assert_eq!(def.skeleton().joint_count(), zoa_animation::load(&defs).unwrap().skeleton().joint_count());

    // Again without --force: refused, the file untouched; with --force: rewritten.
    std::fs::write(&out_file, b"keep").unwrap();
    let out = zoa(&args);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(cli::stdout_json(&out)["error"]["code"], "exists");
    assert_eq!(std::fs::read(&out_file).unwrap(), b"keep");
    let mut forced = args.to_vec();
    forced.push("--force");
    assert!(zoa(&forced).status.success());
    assert_eq!(std::fs::metadata(&out_file).unwrap().len(), written);
}

#[test]
fn bake_refuses_a_folder_with_errors_and_writes_nothing() {
    let tmp = temp_dir("cli-bake-broken");
    let defs = tmp.path().join("defs/humanoid");
    copy_dir(&fixture("defs/humanoid"), &defs);
    std::fs::create_dir_all(tmp.path().join("models")).unwrap();
    std::fs::copy(fixture("models/humanoid.glb"), tmp.path().join("models/humanoid.glb")).unwrap();
    let run = defs.join("clips/run.toml");
    let text = std::fs::read_to_string(&run).unwrap();
    std::fs::write(&run, text.replace("loop = true", "loop = tru")).unwrap();
    let out_file = tmp.path().join("x.zoabake");
    let out = zoa(&["bake", defs.to_str().unwrap(), "--out", out_file.to_str().unwrap(), "--format", "json"]);
    assert_eq!(out.status.code(), Some(1), "{}", cli::stderr(&out));
    let v = cli::stdout_json(&out);
    assert_eq!(v["error"]["code"], "invalid-input");
    assert!(cli::stderr(&out).contains("clips/run.toml"), "{}", cli::stderr(&out));
    assert!(!out_file.exists());
}

#[test]
fn bench_on_a_baked_file_reports_clip_bytes_and_both_load_times() {
    let tmp = temp_dir("cli-bench-baked");
    let file = tmp.path().join("h.zoabake");
    let defs = fixture("defs/humanoid");
    let (defs, file_arg) = (defs.to_str().unwrap(), file.to_str().unwrap());
    assert!(zoa(&["bake", defs, "--out", file_arg]).status.success());
    let common = ["--characters", "3", "--threads", "1", "--seconds", "0", "--format", "json"];
    let mut args = vec!["bench", "--defs", defs, "--baked", file_arg];
    args.extend_from_slice(&common);
    let out = zoa(&args);
    assert!(out.status.success(), "{}", cli::stderr(&out));
    let v = cli::stdout_json(&out);
    assert_eq!(
        cli::keys(&v),
        [
            "bytes_per_character",
            "characters",
            "clip_bytes",
            "frames",
            "joints",
            "load_ms",
            "ns_per_character_frame",
            "ns_per_joint",
            "pipeline",
            "threads"
        ]
    );
    let text = cli::stdout(&out);
    assert!(text.contains("\"pipeline\":\"character\",\"clip_bytes\":"), "the contract's order: {text}");
    assert_eq!(v["pipeline"], "character");
    let baked = zoa_anim_assets::baked::read_baked_file(&file).unwrap();
    assert_eq!(v["clip_bytes"].as_u64(), Some(baked.clip_bytes));
    assert!(v["load_ms"]["folder"].as_f64().unwrap() > 0.0 && v["load_ms"]["baked"].as_f64().unwrap() > 0.0, "{v}");

    // --baked alone: no folder time.
    let mut args = vec!["bench", "--baked", file_arg];
    args.extend_from_slice(&common);
    let v = cli::stdout_json(&zoa(&args));
    assert!(v["load_ms"].get("folder").is_none() && v["load_ms"]["baked"].is_number(), "{v}");

    // A truncated file: exit 1, the file named.
    let bytes = std::fs::read(&file).unwrap();
    std::fs::write(&file, &bytes[..bytes.len() - 9]).unwrap();
    let out = zoa(&args);
    assert_eq!(out.status.code(), Some(1));
    let v = cli::stdout_json(&out);
    assert_eq!(v["error"]["code"], "invalid-input");
    assert!(v["error"]["message"].as_str().unwrap().contains("truncated"), "{v}");
}

//! `zoa-anim pose` and `zoa-anim bench`: the JSON contracts on shared assets,
//! sampling at key times equal to the raw key values, looping vs `--once`,
//! `--all-nodes`, mix files (layers, masks, additive) and their errors, and the
//! exit codes (1 for a mix file with errors, 2 for usage / IO failures).

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;
use zoa_anim_assets::gltf::load_gltf;
use zoa_anim_core::TrackProperty;
use zoa_test_support::cli;
use zoa_test_support::paths::{shared_assets, temp_dir};
use zoa_test_support::tempfile::TempDir;

fn zoa(args: &[&str]) -> Output {
    cli::run(env!("CARGO_BIN_EXE_zoa-anim"), args)
}

fn pose_json(file: &Path, extra: &[&str]) -> Value {
    let mut args = vec!["pose", file.to_str().unwrap()];
    args.extend_from_slice(extra);
    args.extend_from_slice(&["--format", "json"]);
    let out = zoa(&args);
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    cli::stdout_json(&out)
}

/// Writes a mix file called `name` into the test's own folder `dir`.
fn write_mix(dir: &TempDir, name: &str, text: &str) -> PathBuf {
    let path = dir.path().join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn joints(v: &Value) -> &Vec<Value> {
    v["joints"].as_array().expect("joints array")
}

fn floats(v: &Value) -> Vec<f32> {
    v.as_array().unwrap().iter().map(|x| x.as_f64().unwrap() as f32).collect()
}

#[test]
fn json_shape_is_the_contract_in_skin_joint_order() {
    let Some(dir) = shared_assets() else { return };
    let fox = dir.join("Fox.glb");
    let v = pose_json(&fox, &["--clip", "Walk", "--time", "0.3"]);
    let top: Vec<&String> = v.as_object().unwrap().keys().collect();
    assert_eq!(top, ["joints", "morph"]);
    let asset = load_gltf(&fox).unwrap();
    let skin = &asset.skeletons[0];
    assert_eq!(joints(&v).len(), skin.joint_count());
    for (j, (got, joint)) in joints(&v).iter().zip(skin.joints()).enumerate() {
        let mut keys: Vec<&str> = got.as_object().unwrap().keys().map(String::as_str).collect();
        keys.sort_unstable();
        assert_eq!(keys, ["name", "node", "r", "s", "t"], "joint {j}");
        assert_eq!(got["node"], joint.node);
        assert_eq!(got["name"].as_str(), joint.name.as_deref());
        let r = floats(&got["r"]);
        assert_eq!(r.len(), 4);
        assert!((r.iter().map(|x| x * x).sum::<f32>().sqrt() - 1.0).abs() < 1e-5);
        assert_eq!(floats(&got["t"]).len(), 3);
        assert_eq!(floats(&got["s"]).len(), 3);
    }
}

#[test]
fn sampling_at_key_times_prints_the_raw_key_values() {
    let Some(dir) = shared_assets() else { return };
    for (file, clip) in [("Fox.glb", "Run"), ("CesiumMan.glb", "0"), ("RiggedFigure.glb", "0")] {
        let path = dir.join(file);
        let asset = load_gltf(&path).unwrap();
        let (_, c) = asset.clip(clip).unwrap();
        let skin = &asset.skeletons[0];
        // A few key times of the first tracks that target skin joints.
        for track in c.tracks().iter().filter(|t| skin.find_node(t.node).is_some()).take(4) {
            for k in [1, track.key_count() / 2] {
                let t = track.times[k];
                if track.times.get(k + 1) == Some(&t) {
                    continue;
                }
                let v = pose_json(&path, &["--clip", clip, "--time", &t.to_string(), "--once"]);
                let j = skin.find_node(track.node).unwrap();
                let field = match track.property {
                    TrackProperty::Translation => "t",
                    TrackProperty::Rotation => "r",
                    TrackProperty::Scale => "s",
                };
                assert_eq!(floats(&joints(&v)[j][field]), track.key_value(k), "{file} node {} key {k}", track.node);
            }
        }
    }
}

#[test]
fn looping_wraps_and_once_clamps() {
    let Some(dir) = shared_assets() else { return };
    let fox = dir.join("Fox.glb");
    let d = load_gltf(&fox).unwrap().clip("Walk").unwrap().1.duration();
    let at = |t: f32, once: bool| {
        let t = t.to_string();
        let mut args = vec!["--clip", "Walk", "--time", t.as_str()];
        if once {
            args.push("--once");
        }
        pose_json(&fox, &args)
    };
    assert_eq!(at(d, false), at(0.0, false), "t = d samples time 0 when looping");
    assert_eq!(at(d + 5.0, true), at(d, true), "--once clamps");
    assert_eq!(at(-1.0, true), at(0.0, true));
    // Negative time loops backwards.
    let back = at(-0.25, false);
    assert_eq!(back, at(d - 0.25, false));
}

#[test]
fn all_nodes_reports_animated_nodes_in_node_order() {
    let Some(dir) = shared_assets() else { return };
    let v = pose_json(&dir.join("SimpleSkin.gltf"), &["--clip", "0", "--time", "0.5", "--all-nodes"]);
    let nodes: Vec<u64> = joints(&v).iter().map(|j| j["node"].as_u64().unwrap()).collect();
    assert_eq!(nodes, [2]);
    // Morph-only asset: no skin, no transform channels.
    let cube = dir.join("AnimatedMorphCube.glb");
    let v = pose_json(&cube, &["--clip", "0", "--time", "1", "--all-nodes"]);
    assert!(joints(&v).is_empty());
    // Without a skin, the file reports as with --all-nodes, and says so.
    let out = zoa(&["pose", cube.to_str().unwrap(), "--clip", "0", "--time", "1", "--format", "json"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stderr).contains("as --all-nodes"));
    let skinless: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(skinless, v);
    let out = zoa(&["pose", cube.to_str().unwrap(), "--clip", "0", "--time", "1", "--skin", "0"]);
    assert_eq!(out.status.code(), Some(2));
}

/// The cube's `weights` channel (LINEAR, 2 targets), sampled as glTF and
/// three.js's `LinearInterpolant` do, from the keys the file stores.
fn cube_weights_at(asset: &zoa_anim_assets::gltf::GltfAsset, t: f32) -> Vec<f64> {
    let track = &asset.clips[0].morph_tracks()[0];
    let (times, n) = (&track.times, track.targets);
    let next = times.partition_point(|&k| k <= t);
    let key = |k: usize| -> Vec<f64> { track.key_weights(k).iter().map(|&v| f64::from(v)).collect() };
    if next == 0 {
        return key(0);
    }
    if next == times.len() {
        return key(times.len() - 1);
    }
    let (t0, t1) = (f64::from(times[next - 1]), f64::from(times[next]));
    let w1 = (f64::from(t) - t0) / (t1 - t0);
    let (a, b) = (key(next - 1), key(next));
    (0..n).map(|i| a[i] * (1.0 - w1) + b[i] * w1).collect()
}

#[test]
fn morph_weights_of_the_cube_follow_its_linear_keys() {
    let Some(dir) = shared_assets() else { return };
    let cube = dir.join("AnimatedMorphCube.glb");
    let asset = zoa_anim_assets::gltf::load_gltf(&cube).unwrap();
    for t in [0.0f32, 0.3, 1.0, 1.37, 2.5, 4.2] {
        let v = pose_json(&cube, &["--clip", "0", "--time", &t.to_string(), "--once", "--all-nodes"]);
        let morph = v["morph"].as_array().unwrap();
        assert_eq!(morph.len(), 1, "one morphed, animated node");
        assert_eq!(morph[0]["node"], 0);
        assert_eq!(morph[0]["name"], "AnimatedMorphCube");
        let got: Vec<f64> = morph[0]["weights"].as_array().unwrap().iter().map(|w| w.as_f64().unwrap()).collect();
        let want = cube_weights_at(&asset, t);
        assert_eq!(got.len(), 2);
        for (g, w) in got.iter().zip(&want) {
            assert!((g - w).abs() < 1e-6, "t={t}: {got:?} vs {want:?}");
        }
    }
    // A mix of two times of the same clip at half weight each: three.js's
    // accumulation `lerp(a, b, 0.5/1.0)`.
    let mixes = temp_dir("cli-pose-morph-mix");
    let mix = write_mix(
        &mixes,
        "half.toml",
        "[[layer]]\nclip = 0\ntime = 0.5\nweight = 0.5\nloop = false\n\n[[layer]]\nclip = 0\ntime = 2.0\nweight = 0.5\nloop = false\n",
    );
    let v = pose_json(&cube, &["--mix", mix.to_str().unwrap(), "--all-nodes"]);
    let got: Vec<f64> = v["morph"][0]["weights"].as_array().unwrap().iter().map(|w| w.as_f64().unwrap()).collect();
    let (a, b) = (cube_weights_at(&asset, 0.5), cube_weights_at(&asset, 2.0));
    for i in 0..2 {
        let want = a[i] * 0.5 + b[i] * 0.5;
        assert!((got[i] - want).abs() < 1e-6, "{got:?} vs {a:?} + {b:?}");
    }
    // A lone layer at weight 0.25: the rest (the defaults, 0) fills 0.75.
    let quarter = write_mix(&mixes, "quarter.toml", "[[layer]]\nclip = 0\ntime = 2.0\nweight = 0.25\nloop = false\n");
    let v = pose_json(&cube, &["--mix", quarter.to_str().unwrap(), "--all-nodes"]);
    let got = v["morph"][0]["weights"][0].as_f64().unwrap();
    assert!((got - 0.25 * b[0]).abs() < 1e-6, "{got} vs {}", 0.25 * b[0]);
}

#[test]
fn files_without_morph_targets_report_an_empty_morph_list() {
    let Some(dir) = shared_assets() else { return };
    let v = pose_json(&dir.join("Fox.glb"), &["--clip", "Walk", "--time", "0.4"]);
    assert_eq!(v["morph"], serde_json::json!([]));
}

#[test]
fn snapshot_of_rigged_simple() {
    let Some(dir) = shared_assets() else { return };
    let v = pose_json(&dir.join("RiggedSimple.glb"), &["--clip", "0", "--time", "0.75"]);
    insta::assert_json_snapshot!("pose_rigged_simple_0_75", v);
}

#[test]
fn mix_file_single_full_layer_equals_clip_and_masks_keep_other_joints() {
    let Some(dir) = shared_assets() else { return };
    let mixes = temp_dir("cli-pose-mix");
    let fox = dir.join("Fox.glb");
    let single = write_mix(&mixes, "single.toml", "[[layer]]\nclip = \"Walk\"\ntime = 0.4\nweight = 1.0\n");
    let plain = pose_json(&fox, &["--clip", "Walk", "--time", "0.4"]);
    assert_eq!(pose_json(&fox, &["--mix", single.to_str().unwrap()]), plain);

    let masked = write_mix(
        &mixes,
        "masked.toml",
        "[[layer]]\nclip = \"Walk\"\ntime = 0.4\nweight = 1.0\n\n\
         [[layer]]\nclip = 2\ntime = 0.1\nweight = 1.0\ninclude = [\"b_Spine01_02\"]\nexclude = [\"b_Neck_04\"]\n",
    );
    let v = pose_json(&fox, &["--mix", masked.to_str().unwrap()]);
    let asset = load_gltf(&fox).unwrap();
    let s = &asset.skeletons[0];
    let spine = s.find("b_Spine01_02").unwrap();
    let neck = s.find("b_Neck_04").unwrap();
    let mut changed = 0;
    for j in 0..s.joint_count() {
        let inside = s.is_descendant_of(j, spine) && !s.is_descendant_of(j, neck);
        if !inside {
            assert_eq!(joints(&v)[j], joints(&plain)[j], "joint {j} outside the mask");
        } else if joints(&v)[j] != joints(&plain)[j] {
            changed += 1;
        }
    }
    assert!(changed > 0, "the masked layer moved something");

    // Additive against its own reference time at that same time adds nothing.
    let additive = write_mix(
        &mixes,
        "additive.toml",
        "[[layer]]\nclip = \"Walk\"\ntime = 0.4\nweight = 1.0\n\n\
         [[layer]]\nclip = \"Survey\"\ntime = 1.5\nweight = 1.0\nadditive = true\nreference_time = 1.5\n",
    );
    let v = pose_json(&fox, &["--mix", additive.to_str().unwrap()]);
    for (a, b) in joints(&v).iter().zip(joints(&plain)) {
        for f in ["t", "r", "s"] {
            for (x, y) in floats(&a[f]).iter().zip(floats(&b[f])) {
                assert!((x - y).abs() < 1e-5, "{f}: {x} vs {y}");
            }
        }
    }
}

#[test]
fn mix_file_errors_are_all_listed_with_exit_1() {
    let Some(dir) = shared_assets() else { return };
    let mixes = temp_dir("cli-pose-mix");
    let fox = dir.join("Fox.glb");
    let bad = write_mix(
        &mixes,
        "bad.toml",
        "[[layer]]\nclip = \"Nope\"\ntime = 1\nweight = 2\ninclude = [\"tail\"]\n\n\
         [[layer]]\nclip = 1\ntime = 0\nweight = 0.5\nexclude = [\"wing\"]\n",
    );
    let out = zoa(&["pose", fox.to_str().unwrap(), "--mix", bad.to_str().unwrap(), "--format", "json"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    for needle in ["layer[0].clip", "`Nope`", "layer[0].weight", "`tail`", "layer[1]", "`wing`"] {
        assert!(err.contains(needle), "{needle} missing in: {err}");
    }
    // With --format json the same list is the message of a JSON error on stdout.
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["error"]["code"], "invalid-input");
    assert!(json["error"]["message"].as_str().unwrap().contains("`wing`"), "{json}");

    let unknown = write_mix(&mixes, "unknown.toml", "[[layer]]\nclip = 0\ntime = 0\nweight = 1\nspeed = 2\n");
    let out = zoa(&["pose", fox.to_str().unwrap(), "--mix", unknown.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown field `speed`"));

    let missing = zoa(&["pose", fox.to_str().unwrap(), "--mix", "/nonexistent/mix.toml"]);
    assert_eq!(missing.status.code(), Some(2));
}

#[test]
fn usage_errors_exit_2() {
    let Some(dir) = shared_assets() else { return };
    let fox = dir.join("Fox.glb");
    let f = fox.to_str().unwrap();
    let out = zoa(&["pose", f, "--clip", "Gallop", "--time", "0"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("Survey"), "lists the clips");
    assert_eq!(zoa(&["pose", f, "--clip", "Walk"]).status.code(), Some(2), "--time is required");
    assert_eq!(zoa(&["pose", f, "--clip", "Walk", "--time", "0", "--skin", "3"]).status.code(), Some(2));
    assert_eq!(zoa(&["pose", "/nonexistent.glb", "--clip", "0", "--time", "0"]).status.code(), Some(2));
}

#[test]
fn bench_prints_the_contract() {
    let Some(dir) = shared_assets() else { return };
    let fox = dir.join("Fox.glb");
    let out = zoa(&[
        "bench",
        fox.to_str().unwrap(),
        "--characters",
        "12",
        "--threads",
        "2",
        "--seconds",
        "0.05",
        "--format",
        "json",
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    let v: Value = serde_json::from_str(&text).unwrap();
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    let mut sorted = keys.clone();
    sorted.sort_unstable();
    assert_eq!(
        sorted,
        ["bytes_per_character", "characters", "frames", "joints", "ns_per_character_frame", "ns_per_joint", "threads"]
    );
    // A pose-only Fox holds poses, cursors and matrices: kilobytes, not nothing and not megabytes.
    let bytes = v["bytes_per_character"].as_u64().unwrap();
    assert!((1_000..200_000).contains(&bytes), "{bytes}");
    assert!(text.starts_with("{\"characters\":12,\"joints\":24,\"threads\":2,\"frames\":"), "{text}");
    assert!(v["frames"].as_u64().unwrap() >= 1);
    let per_char = v["ns_per_character_frame"].as_f64().unwrap();
    let per_joint = v["ns_per_joint"].as_f64().unwrap();
    assert!(per_char > 0.0 && (per_joint * 24.0 - per_char).abs() < 1e-6 * per_char);
    // The scalar kernels print the same contract.
    let scalar = zoa(&["bench", fox.to_str().unwrap(), "--characters", "3", "--seconds", "0", "--simd", "scalar"]);
    assert!(scalar.status.success(), "{}", String::from_utf8_lossy(&scalar.stderr));
    assert!(String::from_utf8_lossy(&scalar.stdout).contains("3 characters x 24 joints"));
    assert_eq!(zoa(&["bench", fox.to_str().unwrap(), "--simd", "neon"]).status.code(), Some(2));
    // Both pools print the same contract (team is the default above).
    let rayon = zoa(&[
        "bench",
        fox.to_str().unwrap(),
        "--characters",
        "40",
        "--threads",
        "2",
        "--seconds",
        "0",
        "--pool",
        "rayon",
        "--format",
        "json",
    ]);
    assert!(rayon.status.success(), "{}", String::from_utf8_lossy(&rayon.stderr));
    let text = String::from_utf8_lossy(&rayon.stdout);
    assert!(text.starts_with("{\"characters\":40,\"joints\":24,\"threads\":2,\"frames\":"), "{text}");
    assert_eq!(zoa(&["bench", fox.to_str().unwrap(), "--pool", "openmp"]).status.code(), Some(2));
    let none = zoa(&["bench", dir.join("greenman_hat.glb").to_str().unwrap(), "--seconds", "0"]);
    assert_eq!(none.status.code(), Some(2), "a file without clips is a usage error");
}

#[test]
fn bench_clips_pins_the_clips_and_reports_unknown_ones() {
    let Some(dir) = shared_assets() else { return };
    let fox = dir.join("Fox.glb");
    let f = fox.to_str().unwrap();
    let args =
        |clips: &'static str| ["bench", f, "--characters", "3", "--seconds", "0", "--format", "json", "--clips", clips];
    let out = zoa(&args("Walk,Run,0"));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["characters"], 3);
    let out = zoa(&args("Walk,Gallop,Trot"));
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("`Gallop`, `Trot`") && err.contains("Survey"), "every unknown clip and the list: {err}");
    assert_eq!(zoa(&args("Walk,Run")).status.code(), Some(2), "three clips");
}

#[test]
fn bench_defs_times_the_character_pipeline_with_the_same_contract() {
    let defs = concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/defs/humanoid");
    let args = |extra: &[&'static str]| {
        let mut a = vec!["bench", "--defs", defs, "--characters", "7", "--threads", "2", "--seconds", "0"];
        a.extend_from_slice(extra);
        a
    };
    let out = zoa(&args(&["--format", "json"]));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    let v: Value = serde_json::from_str(&text).unwrap();
    let mut keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    keys.sort_unstable();
    assert_eq!(
        keys,
        [
            "bytes_per_character",
            "characters",
            "frames",
            "joints",
            "ns_per_character_frame",
            "ns_per_joint",
            "pipeline",
            "threads"
        ]
    );
    // The whole character holds more than its pose (graph, selector, IK, events), each its own.
    let full = v["bytes_per_character"].as_u64().unwrap();
    let pose = zoa(&[
        "bench",
        &format!("{defs}/../../models/humanoid.glb"),
        "--characters",
        "7",
        "--seconds",
        "0",
        "--format",
        "json",
    ]);
    let pose: Value = serde_json::from_slice(&pose.stdout).unwrap();
    let pose = pose["bytes_per_character"].as_u64().unwrap();
    assert!(pose > 1_000 && full > pose && full < 1 << 20, "full {full}, pose only {pose}");
    assert!(text.starts_with("{\"characters\":7,\"joints\":"), "{text}");
    assert!(text.trim_end().ends_with(",\"pipeline\":\"character\"}"), "{text}");
    assert_eq!(v["threads"], 2);
    assert!(v["frames"].as_u64().unwrap() >= 1);
    assert!(v["joints"].as_u64().unwrap() > 10, "the fixture humanoid");
    let out = zoa(&args(&["--profile-set", "player"]));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("character pipeline: 7 characters"));
    let out = zoa(&args(&["--profile-set", "nope"]));
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("nope"));
    assert_eq!(
        zoa(&["bench", "--profile-set", "player", "x.glb"]).status.code(),
        Some(2),
        "--profile-set needs --defs"
    );
    assert_eq!(zoa(&["bench", "x.glb", "--defs", defs]).status.code(), Some(2), "a file or --defs");
    assert_eq!(zoa(&["bench", "--defs", "/no/such/folder", "--seconds", "0"]).status.code(), Some(2));
    let out = zoa(&["bench", "--defs", defs, "--characters", "1000000", "--seconds", "0", "--format", "json"]);
    assert_eq!(out.status.code(), Some(2), "over the memory budget, refused before building");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["error"]["code"], "over-budget");
}

fn joint_named<'a>(v: &'a Value, name: &str) -> &'a Value {
    joints(v).iter().find(|j| j["name"] == name).unwrap_or_else(|| panic!("no joint `{name}`"))
}

/// `--retarget-from`: CesiumMan's walk on RiggedFigure. The output is the
/// `pose` contract for RiggedFigure's joints; `rotation` mode copies the
/// local rotation of the role partner (`Skeleton_torso_joint_1` → hips
/// `torso_joint_1`, CesiumMan's `Skeleton_arm_joint_L__4_` → upper arm
/// `arm_joint_L_1`) and keeps RiggedFigure's rest translations.
#[test]
fn retarget_from_another_rig_prints_the_pose_contract() {
    let Some(dir) = shared_assets() else { return };
    let (cesium, figure) = (dir.join("CesiumMan.glb"), dir.join("RiggedFigure.glb"));
    let cesium_arg = cesium.to_str().unwrap();
    let source = pose_json(&cesium, &["--clip", "0", "--time", "0.5"]);
    let rest_of_figure = pose_json(&figure, &["--clip", "0", "--time", "0"]);
    let rot = pose_json(
        &figure,
        &["--clip", "0", "--time", "0.5", "--retarget-from", cesium_arg, "--retarget-mode", "rotation"],
    );
    assert_eq!(joints(&rot).len(), load_gltf(&figure).unwrap().skeletons[0].joint_count());
    for j in joints(&rot) {
        let mut keys: Vec<&str> = j.as_object().unwrap().keys().map(String::as_str).collect();
        keys.sort_unstable();
        assert_eq!(keys, ["name", "node", "r", "s", "t"]);
    }
    for (target, from) in [("torso_joint_1", "Skeleton_torso_joint_1"), ("arm_joint_L_1", "Skeleton_arm_joint_L__4_")] {
        assert_eq!(joint_named(&rot, target)["r"], joint_named(&source, from)["r"], "{target}");
    }
    let figure_asset = load_gltf(&figure).unwrap();
    let skeleton = &figure_asset.skeletons[0];
    let hips = skeleton.find("torso_joint_1").unwrap();
    assert_eq!(floats(&joint_named(&rot, "torso_joint_1")["t"]), skeleton.joints()[hips].rest.translation.to_array());

    // The default, rest-corrected, at CesiumMan's clip start on both rigs' rests.
    let rest = pose_json(&figure, &["--clip", "0", "--time", "0.5", "--retarget-from", cesium_arg]);
    assert_eq!(joints(&rest).len(), joints(&rest_of_figure).len());
    assert_ne!(rest, rot, "rest correction changes the result");
}

#[test]
fn retarget_role_maps_come_from_the_rig_policy_or_the_command_line() {
    let Some(dir) = shared_assets() else { return };
    let (cesium, figure) = (dir.join("CesiumMan.glb"), dir.join("RiggedFigure.glb"));
    let (c, f) = (cesium.to_str().unwrap(), figure.to_str().unwrap());
    let tmp = temp_dir("retarget-policy");
    std::fs::write(
        tmp.path().join("rig.toml"),
        "kind = \"rig_policy\"\nid = \"figure\"\n[bone_overrides]\nhead = \"neck_joint_1\"\n",
    )
    .unwrap();
    let defs = tmp.path().to_str().unwrap();
    let base = ["pose", f, "--clip", "0", "--time", "0.5", "--retarget-from", c, "--retarget-mode", "rotation"];
    let source = pose_json(&cesium, &["--clip", "0", "--time", "0.5"]);
    // The policy names the head `neck_joint_1`: it now follows CesiumMan's head.
    let out = zoa(&[&base[..], &["--defs", defs, "--rig-policy", "figure", "--format", "json"]].concat());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v = cli::stdout_json(&out);
    assert_eq!(joint_named(&v, "neck_joint_1")["r"], joint_named(&source, "Skeleton_neck_joint_2")["r"]);
    // The same from the command line.
    let out = zoa(&[&base[..], &["--override", "head=neck_joint_1", "--format", "json"]].concat());
    let v = cli::stdout_json(&out);
    assert_eq!(joint_named(&v, "neck_joint_1")["r"], joint_named(&source, "Skeleton_neck_joint_2")["r"]);
    // Unknown roles and bones on either side: exit 2, every one listed.
    let out = zoa(&[&base[..], &["--override", "tail=neck_joint_1", "--source-override", "head=nope"]].concat());
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("tail") && err.contains("nope"), "{err}");
    let out = zoa(&[&base[..], &["--defs", defs, "--rig-policy", "nobody"]].concat());
    assert_eq!(out.status.code(), Some(2));
    // --retarget-from needs --clip.
    let out = zoa(&["pose", f, "--mix", "x.toml", "--retarget-from", c]);
    assert_eq!(out.status.code(), Some(2));
}

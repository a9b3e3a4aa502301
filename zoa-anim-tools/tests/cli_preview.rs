//! `zoa-anim preview`: every fixture preset produces the four files; the JSON
//! captures are snapshotted (floats rounded to 4 decimals); the CSV's header
//! and rows agree; both PNGs decode to the documented sizes; `--force`, the default folder and stdout output.

use std::path::Path;
use std::process::Output;

use serde_json::Value;
use zoa_test_support::cli;
use zoa_test_support::paths::temp_dir;

const DEFS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/defs/humanoid");
const FILES: [&str; 4] = ["capture.json", "capture.csv", "timeline.png", "frames.png"];

fn zoa_in(dir: &Path, args: &[&str]) -> Output {
    cli::run_in(env!("CARGO_BIN_EXE_zoa-anim"), dir, args)
}

fn zoa(args: &[&str]) -> Output {
    zoa_in(Path::new(env!("CARGO_MANIFEST_DIR")), args)
}

/// Preset ids of the fixture folder, sorted.
fn fixture_presets() -> Vec<String> {
    let mut ids: Vec<String> = std::fs::read_dir(Path::new(DEFS).join("presets"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .map(|p| {
            let v: toml::Value = toml::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
            v["id"].as_str().unwrap().to_owned()
        })
        .collect();
    ids.sort();
    ids
}

fn round(v: &mut Value) {
    match v {
        Value::Number(n) if n.is_f64() => {
            let x = (n.as_f64().unwrap() * 1e4).round() / 1e4;
            *v = serde_json::json!(if x == 0.0 { 0.0 } else { x });
        }
        Value::Array(a) => a.iter_mut().for_each(round),
        Value::Object(o) => o.values_mut().for_each(round),
        _ => {}
    }
}

/// Decodes an 8-bit RGB PNG; returns (width, height, distinct colours used).
fn decode_png(bytes: &[u8]) -> (u32, u32, usize) {
    let mut reader = png::Decoder::new(std::io::Cursor::new(bytes)).read_info().expect("a valid PNG");
    let mut buf = vec![0; reader.output_buffer_size().expect("a sane size")];
    let info = reader.next_frame(&mut buf).expect("the image data decodes");
    assert_eq!((info.color_type, info.bit_depth), (png::ColorType::Rgb, png::BitDepth::Eight), "8-bit RGB");
    let colours: std::collections::BTreeSet<&[u8]> = buf[..info.buffer_size()].chunks(3).collect();
    (info.width, info.height, colours.len())
}

#[test]
fn every_fixture_preset_writes_four_files_and_a_stable_capture() {
    let presets = fixture_presets();
    assert!(presets.len() >= 3, "{presets:?}");
    for id in presets {
        let tmp = temp_dir(&format!("preview-{id}"));
        let out = tmp.path();
        let o = zoa(&["preview", "--defs", DEFS, "--preset", &id, "--out", out.to_str().unwrap()]);
        assert!(o.status.success(), "{id}: {}", String::from_utf8_lossy(&o.stderr));
        let stdout = String::from_utf8_lossy(&o.stdout);
        for f in FILES {
            assert!(out.join(f).is_file(), "{id}: {f} missing");
            assert!(stdout.contains(&out.join(f).display().to_string()), "{id}: prints where {f} went:\n{stdout}");
        }

        // JSON: the contract's shape, then a rounded snapshot.
        let mut json: Value =
            serde_json::from_str(&std::fs::read_to_string(out.join("capture.json")).unwrap()).unwrap();
        assert_eq!(json["preset"], id.as_str());
        assert_eq!(json["rate"], 30.0);
        let top: Vec<&str> = json.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(top, ["ground", "joints", "masks", "preset", "rate", "sound", "ticks"], "{id}");
        assert_eq!(json["sound"]["profile"], "human");
        let joints = json["joints"].as_array().unwrap().len();
        for (mask, weights) in json["masks"].as_object().unwrap() {
            assert!(mask.starts_with("layer:") || mask.starts_with("state:"), "{mask}");
            assert_eq!(weights.as_array().unwrap().len(), joints, "{mask}: a weight per joint");
        }
        let ticks = json["ticks"].as_array().unwrap().clone();
        assert!(!ticks.is_empty());
        for t in &ticks {
            let keys: Vec<&str> = t.as_object().unwrap().keys().map(String::as_str).collect();
            let optional = usize::from(t.get("sync").is_some());
            assert_eq!(keys.len(), 12 + optional, "{keys:?}");
            // The contract's first keys, then the ones added with the pose, sound and IK records.
            for k in ["time", "step", "states", "bindings", "events", "root_motion"].into_iter().chain([
                "contributions",
                "selector",
                "sounds",
                "ik",
                "switch_alpha",
                "inertializing",
            ]) {
                assert!(t.get(k).is_some(), "{id}: tick lacks {k}");
            }
            for s in t.get("sync").and_then(Value::as_array).into_iter().flatten() {
                for k in ["group", "state", "leader", "clip", "clip_time", "phase"] {
                    assert!(s.get(k).is_some(), "{id}: sync member lacks {k}");
                }
            }
            assert_eq!(t["root_motion"].as_array().unwrap().len(), 4);
            for s in t["states"].as_array().unwrap() {
                for k in ["layer", "state", "weight", "clip_time"] {
                    assert!(s.get(k).is_some(), "{id}: state lacks {k}");
                }
            }
            let inputs = t["contributions"].as_array().unwrap();
            assert!(!inputs.is_empty(), "{id}: something plays");
            for k in inputs {
                let keys: Vec<&str> = k.as_object().unwrap().keys().map(String::as_str).collect();
                assert_eq!(keys.len(), 13, "{keys:?}");
                let w = k["weight"].as_f64().unwrap();
                assert!(w > 0.0 && w <= 1.0 + 1e-6, "{id}: {k}");
                assert!(["current", "outgoing"].contains(&k["stack"].as_str().unwrap()));
                assert!(["override", "additive"].contains(&k["mode"].as_str().unwrap()));
                if let Some(mask) = k["mask"].as_str() {
                    assert!(json["masks"].get(mask).is_some(), "{id}: mask {mask} is in the mask table");
                }
            }
            for s in t["sounds"].as_array().unwrap() {
                for k in ["time", "event", "outcome", "entry", "entry_event", "variant", "clip", "bus", "gain"] {
                    assert!(s.get(k).is_some(), "{id}: sound cue lacks {k}");
                }
            }
            for g in t["ik"].as_array().unwrap() {
                assert_eq!(g["target"].as_array().unwrap().len(), 3);
                assert!(g["error"].as_f64().unwrap() >= 0.0);
            }
        }
        let times: Vec<f64> = ticks.iter().map(|t| t["time"].as_f64().unwrap()).collect();
        assert!(times.windows(2).all(|w| w[0] < w[1]), "{id}: times increase");
        round(&mut json);
        insta::assert_json_snapshot!(format!("preview_{id}"), json);

        // CSV: a header, one row per tick, every row as wide as the header.
        let csv = std::fs::read_to_string(out.join("capture.csv")).unwrap();
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines.len(), ticks.len() + 1, "{id}: header + one row per tick");
        let cells = |line: &str| {
            let (mut n, mut quoted) = (1, false);
            for ch in line.chars() {
                match ch {
                    '"' => quoted = !quoted,
                    ',' if !quoted => n += 1,
                    _ => {}
                }
            }
            n
        };
        assert!(lines[0].starts_with("tick,time,step,root_x,root_y,root_z,root_yaw,"), "{}", lines[0]);
        assert!(
            lines[0].ends_with(",selector,events,contributions,sounds,ik,switch_alpha,inertializing"),
            "{}",
            lines[0]
        );
        let width = cells(lines[0]);
        for l in &lines[1..] {
            assert_eq!(cells(l), width, "{id}: row `{l}`");
        }

        // PNGs decode and have the documented sizes.
        let (w, h, colours) = decode_png(&std::fs::read(out.join("timeline.png")).unwrap());
        assert_eq!(w, 1400, "{id}: timeline width");
        assert!(h >= 300, "{id}: timeline height {h}");
        assert!(colours >= 5, "{id}: the timeline uses {colours} colours");
        let (w, h, colours) = decode_png(&std::fs::read(out.join("frames.png")).unwrap());
        assert_eq!((w, h), (200 * ticks.len().min(8) as u32, 340), "{id}: frames size");
        assert!(colours >= 4, "{id}: the frames use {colours} colours");
    }
}

#[test]
fn the_capture_is_identical_run_to_run() {
    let run = || zoa(&["preview", "--defs", DEFS, "--preset", "locomotion_ramp", "--format", "json"]);
    let (a, b) = (run(), run());
    assert!(a.status.success(), "{}", String::from_utf8_lossy(&a.stderr));
    assert!(!a.stdout.is_empty());
    assert_eq!(a.stdout, b.stdout, "bit-identical captures");
}

#[test]
fn local_adds_each_ticks_local_joint_transforms() {
    let o = zoa(&["preview", "--defs", DEFS, "--preset", "hit_and_die", "--format", "json", "--local"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let ticks = v["ticks"].as_array().unwrap();
    let first = ticks[0]["local"].as_array().expect("local on every tick");
    assert!(first.len() > 10, "one entry per joint");
    assert_eq!(first[0].as_object().unwrap().keys().collect::<Vec<_>>(), ["name", "r", "s", "t"]);
    for t in ticks {
        let local = t["local"].as_array().unwrap();
        assert_eq!(local.len(), first.len());
        for (j, joint) in local.iter().enumerate() {
            assert_eq!(joint["name"], first[j]["name"], "skeleton order");
            let f = |k: &str| joint[k].as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect::<Vec<_>>();
            let (tr, r, sc) = (f("t"), f("r"), f("s"));
            assert_eq!((tr.len(), r.len(), sc.len()), (3, 4, 3));
            let norm = r.iter().map(|x| x * x).sum::<f64>().sqrt();
            assert!((norm - 1.0).abs() < 1e-3, "unit rotation: {r:?}");
        }
    }
    // The death pose differs from the first tick's.
    assert_ne!(ticks[0]["local"], ticks[ticks.len() - 1]["local"]);
    let plain = zoa(&["preview", "--defs", DEFS, "--preset", "hit_and_die", "--format", "json"]);
    let p: Value = serde_json::from_slice(&plain.stdout).unwrap();
    assert!(p["ticks"][0].get("local").is_none(), "only with --local");
}

#[test]
fn json_and_csv_go_to_stdout_without_out() {
    let tmp = temp_dir("stdout");
    let dir = tmp.path();
    let o = zoa_in(dir, &["preview", "--defs", DEFS, "--preset", "hit_and_die", "--format", "json"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: Value = serde_json::from_slice(&o.stdout).expect("stdout is the JSON capture");
    assert_eq!(v["preset"], "hit_and_die");
    let o = zoa_in(dir, &["preview", "--defs", DEFS, "--preset", "hit_and_die", "--format", "csv", "--rate", "10"]);
    assert!(o.status.success());
    let csv = String::from_utf8(o.stdout).unwrap();
    assert!(csv.starts_with("tick,time,step,"));
    assert_eq!(csv.lines().count(), 1 + 1 + 28, "header, time 0, then 2.8 s at 10 Hz");
    assert_eq!(std::fs::read_dir(dir).unwrap().count(), 0, "nothing written");
}

#[test]
fn default_folders_are_new_and_numbered() {
    let tmp = temp_dir("default");
    let dir = tmp.path();
    for n in 1..=2 {
        let o = zoa_in(dir, &["preview", "--defs", DEFS, "--preset", "hit_and_die"]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let folder = dir.join(format!("preview-hit_and_die-{n}"));
        for f in FILES {
            assert!(folder.join(f).is_file(), "{}", folder.join(f).display());
        }
    }
}

#[test]
fn existing_files_need_force() {
    let tmp = temp_dir("force");
    let out = tmp.path();
    std::fs::write(out.join("timeline.png"), b"keep me").unwrap();
    let args = ["preview", "--defs", DEFS, "--preset", "hit_and_die", "--out", out.to_str().unwrap()];
    let o = zoa(&args);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--force"));
    assert_eq!(std::fs::read(out.join("timeline.png")).unwrap(), b"keep me", "not overwritten");
    assert!(!out.join("capture.json").exists(), "nothing written when refusing");
    let o = zoa(&[&args[..], &["--force"]].concat());
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_ne!(std::fs::read(out.join("timeline.png")).unwrap(), b"keep me");
}

#[test]
fn bad_input_is_a_clear_error() {
    let o = zoa(&["preview", "--defs", DEFS, "--preset", "no_such_preset", "--format", "json"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("no_such_preset") && err.contains("locomotion_ramp"), "{err}");
    let o = zoa(&["preview", "--defs", "/no/such/folder", "--preset", "x"]);
    assert_eq!(o.status.code(), Some(2));
    for rate in ["0", "-3", "nan", "5000"] {
        let o = zoa(&["preview", "--defs", DEFS, "--preset", "hit_and_die", "--format", "json", "--rate", rate]);
        assert_eq!(o.status.code(), Some(2), "rate {rate}");
    }
}

#[test]
fn a_preset_forces_states_by_name() {
    let o = zoa(&["preview", "--defs", DEFS, "--preset", "force_state", "--format", "json"]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let events: Vec<(f64, String, String)> = v["ticks"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|t| t["events"].as_array().unwrap().iter())
        .map(|e| {
            (
                e["time"].as_f64().unwrap(),
                e["kind"].as_str().unwrap().to_owned(),
                e["name"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let at = |kind: &str, name: &str| {
        events
            .iter()
            .find(|(_, k, n)| k == kind && n == name)
            .map(|e| e.0)
            .unwrap_or_else(|| panic!("{kind} {name}: {events:?}"))
    };
    // `land` is forced at 0.3 s with a 0.1 s cross-fade, then leaves by its own exit time.
    assert!((at("force_state", "land") - 0.3).abs() < 1e-6);
    assert!((at("state_entered", "land") - 0.3).abs() < 1e-6);
    assert!((at("transition_finished", "land") - 0.4).abs() < 1e-4);
    assert!(at("state_entered", "locomotion") > 0.4, "{events:?}");
    // `hit_react` cuts in (blend 0): its transition starts and finishes at once.
    let hit = at("force_state", "hit_react");
    assert!((hit - 1.3).abs() < 1e-6);
    assert!((at("transition_finished", "hit_react") - hit).abs() < 1e-9);
    let tick = v["ticks"].as_array().unwrap().iter().find(|t| t["time"].as_f64().unwrap() > hit + 0.05).unwrap();
    let base: Vec<&Value> = tick["states"].as_array().unwrap().iter().filter(|s| s["layer"] == "base").collect();
    assert_eq!(base.len(), 1, "{tick}");
    assert_eq!(base[0]["state"], "hit_react");
}

#[test]
fn the_sync_preset_records_who_leads_the_feet_and_the_stagger_window() {
    let o = zoa(&["preview", "--defs", DEFS, "--preset", "crouch_walk_sync", "--format", "json"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let json: Value = serde_json::from_slice(&o.stdout).unwrap();
    let ticks = json["ticks"].as_array().unwrap();
    // While standing and crouching cross-fade, both states of group `feet` are
    // listed: one leads, and their clips are at the same fraction of a stride
    // (walk: feet at 0.1 / 0.5 of 1 s; crouch_walk: 0.2 / 0.7 of 1.2 s).
    let stride = |t: f64, l: f64, r: f64, len: f64| {
        if (l..r).contains(&t) { (t - l) / (r - l) } else { 1.0 + (t - r).rem_euclid(len) / (len - r + l) }
    };
    let mut syncing = 0;
    for t in ticks {
        let Some(members) = t.get("sync").and_then(Value::as_array) else { continue };
        assert_eq!(members.len(), 2, "{t}");
        assert_eq!(members.iter().filter(|m| m["leader"] == true).count(), 1, "{t}");
        let at = |clip: &str| members.iter().find(|m| m["clip"] == clip).map(|m| m["clip_time"].as_f64().unwrap());
        let (walk, crouch) = (at("walk").unwrap(), at("crouch_walk").unwrap());
        let (a, b) = (stride(walk, 0.1, 0.5, 1.0), stride(crouch, 0.2, 0.7, 1.2));
        assert!((a - b).abs() < 2e-3, "walk {walk} s ({a}) vs crouch_walk {crouch} s ({b})");
        syncing += 1;
    }
    assert!(syncing >= 10, "two cross-fades were recorded: {syncing} ticks");
    let kinds: Vec<(&str, &str)> = ticks
        .iter()
        .flat_map(|t| t["events"].as_array().unwrap())
        .filter(|e| e["kind"].as_str().unwrap().starts_with("notify_"))
        .map(|e| (e["kind"].as_str().unwrap(), e["name"].as_str().unwrap()))
        .collect();
    assert_eq!(kinds, [("notify_begin", "stagger"), ("notify_end", "stagger")]);
}

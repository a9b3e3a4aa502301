//! `zoa-anim sound`: the exact `resolve` JSON contract on the humanoid fixture
//! definitions, exit codes, and `render` producing audible, correct WAV output
//! (silence where a cooled-down trigger was dropped) without overwriting
//! files unless `--force`.

use std::path::Path;
use std::process::Output;

use serde_json::Value;
use zoa_audio_profile::ClipData;
use zoa_test_support::cli;
use zoa_test_support::paths::{repo_root, temp_dir};

fn defs() -> String {
    repo_root().join("fixtures/defs/humanoid").display().to_string()
}

fn sound(args: &[&str]) -> Output {
    cli::run(env!("CARGO_BIN_EXE_zoa-anim"), &[&["sound"], args].concat())
}

fn resolve_json(extra: &[&str]) -> String {
    let d = defs();
    let mut args = vec!["resolve", "--defs", &d, "--profile", "human_female", "--format", "json"];
    args.extend_from_slice(extra);
    let out = sound(&args);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap().trim_end().to_owned()
}

#[test]
fn resolve_prints_the_contract_shape() {
    assert_eq!(
        resolve_json(&["--event", "weapon.fire.dryclick", "--state", "combat=armed_rifle"]),
        r#"{"profile":"human_female","event":"weapon.fire.dryclick","match":{"entry":5,"event_id":"weapon.fire","source_profile":"human","variants":2}}"#
    );
    assert_eq!(
        resolve_json(&["--event", "weapon.fire.dryclick", "--state", "combat=armed_rifle", "--no-hierarchy"]),
        r#"{"profile":"human_female","event":"weapon.fire.dryclick","match":null}"#
    );
    // The child's override of vocal.hurt wins; it is the first flattened entry.
    assert_eq!(
        resolve_json(&["--event", "vocal.hurt"]),
        r#"{"profile":"human_female","event":"vocal.hurt","match":{"entry":0,"event_id":"vocal.hurt","source_profile":"human_female","variants":1}}"#
    );
    // A matching surface and sprint tags pick the concrete sprint entry; grass beats the plain one.
    let sprint: Value = serde_json::from_str(&resolve_json(&[
        "--event",
        "footstep",
        "--state",
        "locomotion=sprint",
        "--surface",
        "concrete",
    ]))
    .unwrap();
    assert_eq!(sprint["match"]["entry"], 3);
    let grass: Value = serde_json::from_str(&resolve_json(&[
        "--event",
        "footstep",
        "--state",
        "locomotion=walk",
        "--surface",
        "grass",
    ]))
    .unwrap();
    assert_eq!((grass["match"]["entry"].as_u64(), grass["match"]["variants"].as_u64()), (Some(2), Some(2)));
}

#[test]
fn resolve_exit_codes() {
    let d = defs();
    let out = sound(&["resolve", "--defs", &d, "--profile", "nobody", "--event", "footstep", "--format", "json"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no sound profile `nobody`"));
    let out = sound(&["resolve", "--defs", &d, "--profile", "human", "--event", "footstep.wav", "--format", "json"]);
    assert_eq!(out.status.code(), Some(2), "an asset path is not an event id");
    let out = sound(&["resolve", "--defs", &d, "--profile", "human", "--event", "footstep", "--state", "mood=sleepy"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("sleepy"));
    let out = sound(&["resolve", "--defs", "/nonexistent/defs", "--profile", "human", "--event", "footstep"]);
    assert_eq!(out.status.code(), Some(2));
}

fn render(out: &Path, script: &Path, force: bool) -> Output {
    let d = defs();
    let mut args = vec![
        "render",
        "--defs",
        &d,
        "--profile",
        "human_female",
        "--script",
        script.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ];
    if force {
        args.push("--force");
    }
    sound(&args)
}

fn rms(clip: &ClipData, from: f64, to: f64) -> f64 {
    let rate = clip.sample_rate() as f64;
    let (a, b) = ((from * rate) as usize, ((to * rate) as usize).min(clip.frames()));
    let s = &clip.samples()[a * 2..b * 2];
    (s.iter().map(|x| (*x as f64).powi(2)).sum::<f64>() / s.len() as f64).sqrt()
}

#[test]
fn render_demo_is_audible_correct_and_never_overwrites() {
    let tmp = temp_dir("demo");
    let dir = tmp.path();
    let wav = dir.join("demo.wav");
    let script = repo_root().join("fixtures/sounds/render_demo.toml");
    let out = render(&wav, &script, false);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let summary: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(summary["profile"], "human_female");
    assert_eq!(summary["sample_rate"], 48_000);
    assert_eq!(summary["frames"], 6 * 48_000);
    assert_eq!(summary["started"], 18);
    assert_eq!(summary["dropped_cooldown"], 1);
    assert_eq!(summary["rejected"], 0);
    assert!(summary["stolen"].as_u64().unwrap() >= 1, "the 30 Hz burst exceeds the cap of 6");
    let events = summary["events"].as_array().unwrap();
    assert_eq!(events.len(), 20);
    assert_eq!(events[5]["outcome"], "dropped_cooldown");
    assert_eq!(events[5]["event"], "vocal.hurt");
    assert_eq!(events[19]["outcome"], "stopped");
    assert_eq!(events[19]["stopped"], 1);

    let clip = ClipData::load(&wav).unwrap();
    assert_eq!((clip.channels(), clip.sample_rate(), clip.frames()), (2, 48_000, 288_000));
    assert!(rms(&clip, 0.0, 0.15) > 0.01, "first footstep audible");
    assert!(rms(&clip, 2.0, 2.4) > 0.05, "hurt audible");
    assert_eq!(rms(&clip, 2.41, 2.99), 0.0, "the cooled-down hurt produced silence");
    assert!(rms(&clip, 3.0, 3.7) > 0.05, "burst audible");
    assert!(rms(&clip, 4.2, 5.0) > 0.05, "breathing loop audible");
    assert_eq!(rms(&clip, 5.51, 6.0), 0.0, "silent once the loop faded out");
    // The first step is on the left, the rifleman on the right.
    let ch = |from: f64, to: f64, c: usize| {
        let (a, b) = ((from * 48_000.0) as usize, (to * 48_000.0) as usize);
        (a..b).map(|f| (clip.samples()[2 * f + c] as f64).powi(2)).sum::<f64>()
    };
    assert!(ch(0.0, 0.15, 0) > ch(0.0, 0.15, 1));
    assert!(ch(3.0, 3.7, 1) > 2.0 * ch(3.0, 3.7, 0));

    // No overwrite without --force; the file is untouched.
    let before = std::fs::read(&wav).unwrap();
    let again = render(&wav, &script, false);
    assert_eq!(again.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&again.stderr).contains("--force"));
    assert_eq!(std::fs::read(&wav).unwrap(), before);
    let forced = render(&wav, &script, true);
    assert!(forced.status.success());
    assert_eq!(std::fs::read(&wav).unwrap(), before, "renders are deterministic");
}

#[test]
fn render_reports_script_errors_with_exit_1() {
    let tmp = temp_dir("bad");
    let dir = tmp.path();
    let script = dir.join("bad.toml");
    std::fs::write(
        &script,
        "[[events]]\ntime = -1.0\nevent = \"footstep.wav\"\n\n[[events]]\ntime = 0.5\nevent = \"land\"\nstate = \"mood=sleepy\"\naction = \"pause\"\n",
    )
    .unwrap();
    let out = render(&dir.join("x.wav"), &script, false);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("events[0].event") && err.contains("events[1].action"), "{err}");
    assert!(!dir.join("x.wav").exists());
    std::fs::write(&script, "bogus = 1\n").unwrap();
    let out = render(&dir.join("x.wav"), &script, false);
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn gen_fixtures_check_passes_on_the_committed_files() {
    let dir = repo_root().join("fixtures/sounds");
    let out = sound(&["gen-fixtures", "--check", "--out", dir.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let fresh_tmp = temp_dir("gen");
    let fresh = fresh_tmp.path();
    let out = sound(&["gen-fixtures", "--out", fresh.to_str().unwrap()]);
    assert!(out.status.success());
    let again = sound(&["gen-fixtures", "--out", fresh.to_str().unwrap()]);
    assert_eq!(again.status.code(), Some(2), "refuses to overwrite without --force");
    let _ = std::fs::remove_dir_all(fresh);
}

/// `fixtures/defs/throttled`: a 30 Hz burst from two emitters under a
/// `weapon.fire.*` throttle of 3 voices, 8 starts per second and 50 ms
/// between starts. The summary shows the throttle's counters, and the event
/// list obeys every limit.
#[test]
fn render_shows_prefix_throttles_in_the_summary() {
    let tmp = temp_dir("throttle");
    let wav = tmp.path().join("throttle.wav");
    let defs = repo_root().join("fixtures/defs/throttled");
    let script = repo_root().join("fixtures/sounds/throttle_demo.toml");
    let out = sound(&[
        "render",
        "--defs",
        defs.to_str().unwrap(),
        "--profile",
        "weapons",
        "--script",
        script.to_str().unwrap(),
        "--out",
        wav.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let s: Value = serde_json::from_slice(&out.stdout).unwrap();
    let throttles = s["throttles"].as_array().unwrap();
    assert_eq!(throttles.len(), 1);
    let t = &throttles[0];
    assert_eq!(t["prefix"], "weapon.fire.*");
    assert_eq!((t["max_voices"].as_u64(), t["max_starts_per_second"].as_u64()), (Some(3), Some(8)));
    assert!((t["cooldown"].as_f64().unwrap() - 0.05).abs() < 1e-6);

    let events = s["events"].as_array().unwrap();
    assert_eq!(events.len(), 31);
    let fire = |e: &&Value| e["event"] == "weapon.fire.rifle";
    let started: Vec<f64> =
        events.iter().filter(fire).filter(|e| e["outcome"] == "started").map(|e| e["time"].as_f64().unwrap()).collect();
    let count = |o: &str| events.iter().filter(fire).filter(|e| e["outcome"] == o).count() as u64;
    // Every shot has an outcome that adds up in the per-throttle counters.
    assert_eq!(t["started"].as_u64(), Some(started.len() as u64));
    assert_eq!(t["dropped_cooldown"].as_u64(), Some(count("throttled_cooldown")));
    assert_eq!(t["dropped_rate"].as_u64(), Some(count("throttled_rate")));
    assert_eq!(t["dropped_voices"].as_u64(), Some(count("throttled_voices")));
    assert_eq!(
        started.len() as u64 + count("throttled_cooldown") + count("throttled_rate") + count("throttled_voices"),
        30
    );
    assert_eq!(s["throttled"].as_u64(), Some(30 - started.len() as u64));
    // The limits hold: 50 ms apart, at most 8 in the (one-second) burst, at most 3 live
    // 0.3 s shots at once — and each limit actually refused something.
    assert!(started.windows(2).all(|w| w[1] - w[0] >= 0.05 - 1e-9), "{started:?}");
    assert!(started.len() <= 8 && started.len() >= 3, "{started:?}");
    assert!(started.windows(4).all(|w| w[3] - w[0] >= 0.3 - 1e-9), "at most 3 voices live: {started:?}");
    assert!(t["peak_voices"].as_u64().unwrap() <= 3);
    assert!(count("throttled_cooldown") > 0 && count("throttled_voices") > 0, "{t}");
    // The reload is outside the prefix and plays.
    let reload = events.iter().find(|e| e["event"] == "weapon.reload").unwrap();
    assert_eq!(reload["outcome"], "started");
    assert_eq!(s["started"].as_u64(), Some(started.len() as u64 + 1));
}

//! The hostile-input corpus: one case per class of bad input,
//! replayed against the `zoa-anim` binary. Every case must end with a clear
//! error (or quietly, for a closed stdout), never a panic, a hang or a file
//! changed that the user did not ask for.
//!
//! Classes: closed and full stdout; `--format json` failures; IO errors that
//! name the file once; FIFOs and escaping glTF buffer URIs; budgets on counts
//! from files and flags; overwrites without `--force` and partial output;
//! numbers the runtime would refuse.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;

fn repo(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..").join(rel)
}

/// Peak memory every case must stay under: the data segment (heap and
/// anonymous mappings) of the process is capped here, so a case that needs
/// more dies of a failed allocation instead of passing.
const MAX_DATA_BYTES: u64 = 512 << 20;
/// CPU seconds after which a case is killed: a hang guard (this is a debug
/// build on a shared machine; release runs of these cases take well under 10 s).
const MAX_CPU_SECONDS: u64 = 60;

/// The binary, run under the memory and CPU caps above (through util-linux's
/// `prlimit`; without it, uncapped with a note).
///
/// For measuring the corpus against another build (the 10 s bound is stated
/// for a release build): `ZOA_HOSTILE_BIN` names the binary to run instead of
/// this test's debug build, and `ZOA_HOSTILE_MEASURE` names a file to which
/// GNU time (`/usr/bin/time`) appends one line per run: wall seconds, peak
/// RSS in KiB, exit status and the command line. Both are unset in CI.
fn bin() -> Command {
    let exe = std::env::var_os("ZOA_HOSTILE_BIN").unwrap_or_else(|| env!("CARGO_BIN_EXE_zoa-anim").into());
    let mut argv: Vec<OsString> = Vec::new();
    if let Some(log) = std::env::var_os("ZOA_HOSTILE_MEASURE") {
        argv.extend(["/usr/bin/time".into(), "--append".into(), "--output".into(), log]);
        argv.push("--format=%e s %M KiB exit %x: %C".into());
    }
    if Path::new("/usr/bin/prlimit").is_file() {
        argv.push("/usr/bin/prlimit".into());
        argv.push(format!("--data={MAX_DATA_BYTES}").into());
        argv.push(format!("--cpu={MAX_CPU_SECONDS}").into());
        argv.push("--".into());
    } else {
        eprintln!("note: /usr/bin/prlimit is absent; cases run without the memory and CPU caps");
    }
    argv.push(exe);
    let mut c = Command::new(&argv[0]);
    c.args(&argv[1..]);
    c
}

/// Runs a case; it must end by itself (an exit code), not be killed by a
/// signal (an abort on a failed allocation over the cap, the CPU cap).
fn zoa(args: &[&str]) -> Output {
    let out = bin().args(args).output().expect("run zoa-anim");
    assert!(out.status.code().is_some(), "{args:?} was killed ({:?}): over a cap?\n{}", out.status, stderr(&out));
    out
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Asserts no panic message and returns the parsed JSON error on stdout.
fn json_error(out: &Output) -> Value {
    assert!(!stderr(out).contains("panicked"), "{}", stderr(out));
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: stdout is not JSON: {}", String::from_utf8_lossy(&out.stdout)));
    assert!(v["error"]["code"].is_string() && v["error"]["message"].is_string(), "{v}");
    v
}

fn no_panic(out: &Output) {
    assert!(!stderr(out).contains("panicked"), "{}", stderr(out));
}

// ----- closed and full stdout ------------------------------------------------

/// Runs with stdout a pipe whose reading end is closed before the program writes.
fn run_with_closed_stdout(args: &[&str]) -> std::process::ExitStatus {
    let mut child = bin().args(args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert!(!String::from_utf8_lossy(&out.stderr).contains("panicked"), "{args:?}: {}", stderr(&out));
    assert!(out.stderr.is_empty(), "{args:?}: a broken pipe ends quietly: {}", stderr(&out));
    out.status
}

#[test]
fn a_closed_stdout_ends_quietly_with_exit_0() {
    let defs = repo("fixtures/defs/humanoid");
    let model = repo("fixtures/models/humanoid.glb");
    for args in [
        vec!["tags", "--format", "json"],
        vec!["tags"],
        vec!["validate", defs.to_str().unwrap()],
        vec!["inspect", model.to_str().unwrap(), "--format", "json"],
        vec!["scan", model.to_str().unwrap(), "--no-cache", "--format", "json"],
    ] {
        let status = run_with_closed_stdout(&args);
        assert_eq!(status.code(), Some(0), "{args:?}");
    }
}

#[cfg(target_os = "linux")]
#[test]
fn a_full_disk_on_stdout_is_exit_2_with_a_message() {
    let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") else {
        eprintln!("note: /dev/full is unavailable; skipped");
        return;
    };
    let defs = repo("fixtures/defs/humanoid");
    let out = bin().args(["validate", defs.to_str().unwrap()]).stdout(full).output().unwrap();
    no_panic(&out);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("cannot write the output"), "{}", stderr(&out));
}

// ----- --format json failures and error text ---------------------------------

#[test]
fn json_failures_are_an_error_object_on_stdout_with_the_same_exit_code() {
    let tmp = tempfile::tempdir().unwrap();
    let missing = tmp.path().join("missing.glb");
    let out = zoa(&["inspect", missing.to_str().unwrap(), "--format", "json"]);
    assert_eq!(out.status.code(), Some(2));
    let v = json_error(&out);
    assert_eq!(v["error"]["code"], "io");
    assert_eq!(v["error"]["path"], missing.to_str().unwrap());

    let out = zoa(&["validate", tmp.path().join("nope").to_str().unwrap(), "--format", "json"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(json_error(&out)["error"]["code"], "io");

    // A usage error found by the argument parser.
    let out = zoa(&["bench", "x.glb", "--characters", "0", "--format", "json"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(json_error(&out)["error"]["code"], "usage");

    let defs = repo("fixtures/defs/humanoid");
    let out =
        zoa(&["resolve", "--defs", defs.to_str().unwrap(), "--profile", "nope", "--state", "", "--format", "json"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(json_error(&out)["error"]["code"], "not-found");
}

#[test]
fn io_errors_name_the_file_once() {
    let tmp = tempfile::tempdir().unwrap();
    let missing = tmp.path().join("gone.glb");
    let out = zoa(&["inspect", missing.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert_eq!(err.matches("gone.glb").count(), 1, "{err}");
    assert_eq!(err.matches("No such file or directory").count(), 1, "{err}");
}

#[test]
fn scan_json_on_a_broken_model_names_it_on_stderr() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("broken.glb"), b"glTF\x02\x00\x00\x00garbage").unwrap();
    let cache = tmp.path().join("cache.json");
    let out = zoa(&["scan", tmp.path().to_str().unwrap(), "--cache", cache.to_str().unwrap(), "--format", "json"]);
    no_panic(&out);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("broken.glb"), "{}", stderr(&out));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["clips"], serde_json::json!([]));
    // The report itself names the unreadable model and why.
    let failed = v["failed"].as_array().unwrap();
    assert_eq!(failed.len(), 1, "{v}");
    assert!(failed[0]["file"].as_str().unwrap().ends_with("broken.glb"), "{v}");
    assert!(!failed[0]["error"].as_str().unwrap().is_empty(), "{v}");
}

// ----- FIFOs and escaping buffers --------------------------------------------

#[cfg(unix)]
#[test]
fn fifos_where_files_belong_are_errors_not_hangs() {
    let tmp = tempfile::tempdir().unwrap();
    let ok = std::process::Command::new("mkfifo").arg(tmp.path().join("pipe.toml")).status();
    if !ok.is_ok_and(|s| s.success()) {
        eprintln!("note: mkfifo unavailable; skipped");
        return;
    }
    let out = zoa(&["validate", tmp.path().to_str().unwrap(), "--format", "json"]);
    no_panic(&out);
    assert_eq!(out.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v.to_string().contains("FIFO"), "{v}");

    let fifo_model = tmp.path().join("model.glb");
    assert!(std::process::Command::new("mkfifo").arg(&fifo_model).status().unwrap().success());
    let out = zoa(&["inspect", fifo_model.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("FIFO"), "{}", stderr(&out));
    let out = zoa(&["scan", tmp.path().to_str().unwrap(), "--no-cache"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("FIFO"), "{}", stderr(&out));
    let out = zoa(&["neighbourhood", fifo_model.to_str().unwrap()]);
    no_panic(&out);
}

#[test]
fn a_buffer_uri_climbing_to_etc_passwd_is_refused_and_not_echoed() {
    let tmp = tempfile::tempdir().unwrap();
    let json = r#"{"asset":{"version":"2.0"},"nodes":[{"name":"a"}],
        "buffers":[{"uri":"%2e%2e/%2e%2e/%2e%2e/%2e%2e/%2e%2e/%2e%2e/etc/passwd","byteLength":64}],
        "bufferViews":[{"buffer":0,"byteLength":8},{"buffer":0,"byteOffset":8,"byteLength":32}],
        "accessors":[{"bufferView":0,"componentType":5126,"count":2,"type":"SCALAR"},
                     {"bufferView":1,"componentType":5126,"count":2,"type":"VEC4"}],
        "animations":[{"channels":[{"sampler":0,"target":{"node":0,"path":"rotation"}}],
                       "samplers":[{"input":0,"output":1}]}]}"#;
    std::fs::write(tmp.path().join("evil.gltf"), json).unwrap();
    let out = zoa(&["inspect", tmp.path().join("evil.gltf").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("climbs above the glTF's folder"), "{err}");
    assert!(!err.contains("root"), "{err}");
}

// ----- budgets on counts from files and flags --------------------------------

fn write(dir: &std::path::Path, rel: &str, text: &str) -> PathBuf {
    let p = dir.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn bench_refuses_a_crowd_over_its_memory_budget_before_building_it() {
    let model = repo("fixtures/models/humanoid.glb");
    let out = zoa(&["bench", model.to_str().unwrap(), "--characters", "1000000", "--seconds", "0", "--format", "json"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let v = json_error(&out);
    assert_eq!(v["error"]["code"], "over-budget");
    assert!(v["error"]["message"].as_str().unwrap().contains("at most"), "{v}");
}

/// The largest crowd `bench --characters` accepts (read from its refusal of a
/// million), then benched for one frame under the 512 MiB cap.
fn largest_accepted_crowd(source: &[&str]) {
    let mut args = vec!["bench"];
    args.extend_from_slice(source);
    let refused = zoa(&[args.as_slice(), &["--characters", "1000000", "--seconds", "0"]].concat());
    assert_eq!(refused.status.code(), Some(2), "{}", stderr(&refused));
    let message = stderr(&refused);
    let most: String = message
        .split("at most ")
        .nth(1)
        .expect("the refusal names the budget")
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    let out = zoa(&[args.as_slice(), &["--characters", &most, "--seconds", "0.01", "--format", "json"]].concat());
    assert_eq!(out.status.code(), Some(0), "{most} characters: {}", stderr(&out));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["characters"].to_string(), most, "{v}");
}

#[test]
fn the_largest_crowds_bench_accepts_fit_in_512_mib() {
    let model = repo("fixtures/models/humanoid.glb");
    largest_accepted_crowd(&[model.to_str().unwrap()]);
    let defs = repo("fixtures/defs/humanoid");
    largest_accepted_crowd(&["--defs", defs.to_str().unwrap()]);
}

#[test]
fn a_mix_file_with_too_many_layers_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let layers = "[[layer]]\nclip = 0\ntime = 0\nweight = 1\n".repeat(300);
    let mix = write(tmp.path(), "mix.toml", &layers);
    let model = repo("fixtures/models/humanoid.glb");
    let out = zoa(&["pose", model.to_str().unwrap(), "--mix", mix.to_str().unwrap()]);
    no_panic(&out);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("at most 256"), "{}", stderr(&out));
}

/// A folder with one sound profile of `entries` entries sharing one WAV.
fn sound_defs(dir: &std::path::Path, entries: usize, wav: &[u8]) {
    std::fs::write(dir.join("s.wav"), wav).unwrap();
    let mut text = String::from("kind = \"sound_profile\"\nid = \"p\"\n");
    for i in 0..entries {
        text.push_str(&format!("[[entries]]\nevent = \"e.n{i}\"\nvariants = [\"s.wav\"]\n"));
    }
    std::fs::write(dir.join("p.toml"), text).unwrap();
}

fn render(dir: &std::path::Path, script: &str) -> Output {
    let script = write(dir, "script.toml", script);
    let out = dir.join("out.wav");
    zoa(&[
        "sound",
        "render",
        "--defs",
        dir.to_str().unwrap(),
        "--profile",
        "p",
        "--script",
        script.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ])
}

#[test]
fn sound_scripts_and_players_over_budget_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let wav = zoa_audio_profile::wav::wav_bytes(1, 8000, &[0.1; 80]);
    sound_defs(tmp.path(), 2100, &wav);

    // Too many events.
    let events = "[[events]]\ntime = 0\nevent = \"e.n0\"\n".repeat(50_001);
    let out = render(tmp.path(), &events);
    no_panic(&out);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("at most 50000"), "{}", stderr(&out));

    // Too many emitters.
    let events: String =
        (0..4097).map(|i| format!("[[events]]\ntime = 0\nevent = \"e.n0\"\nemitter = \"m{i}\"\n")).collect();
    let out = render(tmp.path(), &events);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("at most 4096"), "{}", stderr(&out));

    // 2100 entries x 4096 emitters is over the cooldown-table budget.
    let events: String =
        (0..4096).map(|i| format!("[[events]]\ntime = 0\nevent = \"e.n0\"\nemitter = \"m{i}\"\n")).collect();
    let out = render(tmp.path(), &events);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("cooldown cells"), "{}", stderr(&out));

    // A long render at a high rate is over the sample budget.
    let out = render(tmp.path(), "length = 600.0\nsample_rate = 192000\n[[events]]\ntime = 0\nevent = \"e.n0\"\n");
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("at most"), "{}", stderr(&out));
    assert!(!tmp.path().join("out.wav").exists());
}

#[test]
fn a_wav_with_sample_rate_zero_is_a_decode_error() {
    let tmp = tempfile::tempdir().unwrap();
    let mut wav = zoa_audio_profile::wav::wav_bytes(1, 8000, &[0.1; 80]);
    wav[24..28].copy_from_slice(&0u32.to_le_bytes());
    sound_defs(tmp.path(), 1, &wav);
    let out = render(tmp.path(), "[[events]]\ntime = 0\nevent = \"e.n0\"\n");
    no_panic(&out);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("sample rate of 0"), "{}", stderr(&out));
}

// ----- preview: rates, infinite and huge presets ------------------------------

/// The humanoid fixture folder copied into `dir/defs/humanoid`, with the
/// model and sounds its relative paths name (`dir/models`, `dir/sounds`).
fn humanoid_defs(dir: &std::path::Path) -> PathBuf {
    let defs = dir.join("defs/humanoid");
    zoa_test_support::paths::copy_dir(&repo("fixtures/defs/humanoid"), &defs);
    zoa_test_support::paths::copy_dir(&repo("fixtures/sounds"), &dir.join("sounds"));
    std::fs::create_dir_all(dir.join("models")).unwrap();
    std::fs::copy(repo("fixtures/models/humanoid.glb"), dir.join("models/humanoid.glb")).unwrap();
    defs
}

#[test]
fn preview_refuses_rates_that_stop_time_and_presets_that_never_end() {
    let tmp = tempfile::tempdir().unwrap();
    let defs = humanoid_defs(tmp.path());
    let d = defs.to_str().unwrap();
    for rate in ["1e-40", "0", "-1", "nan", "inf", "1001"] {
        let out = zoa(&["preview", "--defs", d, "--preset", "hit_and_die", "--rate", rate, "--format", "json"]);
        assert_eq!(out.status.code(), Some(2), "--rate {rate}: {}", stderr(&out));
        assert_eq!(json_error(&out)["error"]["code"], "usage", "--rate {rate}");
    }
    write(
        &defs,
        "presets/forever.toml",
        "kind = \"preview_preset\"\nid = \"forever\"\nsteps = [{ wait = 3e38 }, { wait = 3e38 }]\n",
    );
    let out = zoa(&["validate", d, "--format", "json"]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let diag = v["diagnostics"].as_array().unwrap().iter().find(|x| x["file"] == "presets/forever.toml").cloned();
    let diag = diag.expect("the infinite preset is a validate diagnostic");
    assert_eq!((diag["code"].as_str(), diag["field"].as_str()), (Some("E008"), Some("steps")), "{diag}");
    // A preset with errors is not played: its own diagnostics are the error (exit 1).
    let out = zoa(&["preview", "--defs", d, "--preset", "forever", "--format", "json"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let v = json_error(&out);
    assert_eq!(v["error"]["code"], "invalid-input", "{v}");
    assert!(v["error"]["path"].as_str().unwrap().ends_with("presets/forever.toml"), "{v}");
    let message = v["error"]["message"].as_str().unwrap().to_owned();
    assert!(message.contains("preview preset `forever` has 1 problem(s)"), "{message}");
    assert!(message.contains("presets/forever.toml:3:9: error[E008]: steps: "), "{message}");
    assert!(stderr(&out).contains("E008"), "{}", stderr(&out));
    // An id no file declares is still not-found.
    let out = zoa(&["preview", "--defs", d, "--preset", "nowhere", "--format", "json"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert_eq!(json_error(&out)["error"]["code"], "not-found");

    // A legal preset whose capture at a high rate is over the memory budget.
    write(&defs, "presets/long.toml", "kind = \"preview_preset\"\nid = \"long\"\nsteps = [{ wait = 3000.0 }]\n");
    let out = zoa(&["preview", "--defs", d, "--preset", "long", "--rate", "1000", "--format", "json"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(json_error(&out)["error"]["code"], "over-budget");
}

// ----- overwrites and partial output ------------------------------------------

/// Every file under `dir` with its bytes (folders listed as `None`), sorted.
fn tree(dir: &std::path::Path) -> Vec<(PathBuf, Option<Vec<u8>>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if std::fs::symlink_metadata(&p).unwrap().is_dir() {
                out.push((p.clone(), None));
                stack.push(p);
            } else {
                out.push((p.clone(), std::fs::read(&p).ok()));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn schema_out_never_replaces_an_edited_schema_without_force_and_is_all_or_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("schemas");
    let d = dir.to_str().unwrap();
    assert_eq!(zoa(&["schema", "--out", d, "--quiet"]).status.code(), Some(0));
    // Re-running over identical files is not an overwrite.
    assert_eq!(zoa(&["schema", "--out", d, "--quiet"]).status.code(), Some(0));
    let edited = dir.join("zoa-clip.schema.json");
    assert!(edited.is_file(), "{:?}", tree(&dir));
    std::fs::write(&edited, "{\"edited\": true}").unwrap();
    let out = zoa(&["schema", "--out", d, "--format", "json"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert_eq!(json_error(&out)["error"]["code"], "exists");
    assert_eq!(std::fs::read_to_string(&edited).unwrap(), "{\"edited\": true}");

    // With --force, a target that is a folder stops the run before any file changes.
    let blocker = dir.join("zoa-definition.schema.json");
    std::fs::remove_file(&blocker).unwrap();
    std::fs::create_dir(&blocker).unwrap();
    let before = tree(&dir);
    let out = zoa(&["schema", "--out", d, "--force"]);
    no_panic(&out);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert_eq!(tree(&dir), before, "nothing changed");
    std::fs::remove_dir(&blocker).unwrap();
    assert_eq!(zoa(&["schema", "--out", d, "--force", "--quiet"]).status.code(), Some(0));
    assert_ne!(std::fs::read_to_string(&edited).unwrap(), "{\"edited\": true}");
}

#[test]
fn autobind_out_with_force_writes_every_file_or_none() {
    let tmp = tempfile::tempdir().unwrap();
    let defs = tmp.path().join("defs");
    std::fs::create_dir_all(defs.join("player_unarmed.toml")).unwrap();
    let out_file = defs.join("player.toml");
    let models = repo("fixtures/models");
    let out =
        zoa(&["autobind", models.to_str().unwrap(), "--out", out_file.to_str().unwrap(), "--force", "--no-cache"]);
    no_panic(&out);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("player_unarmed.toml"), "{}", stderr(&out));
    let left: Vec<_> = tree(&defs).into_iter().map(|(p, _)| p).collect();
    assert_eq!(left, [defs.join("player_unarmed.toml")], "no file was written");
}

#[test]
fn graph_refuses_an_id_validate_would_reject() {
    let tmp = tempfile::tempdir().unwrap();
    let out_file = tmp.path().join("g.toml");
    let defs = repo("fixtures/defs/humanoid");
    let out = zoa(&[
        "graph",
        "--defs",
        defs.to_str().unwrap(),
        "--set",
        "player",
        "--id",
        "Bad Id!",
        "--model",
        "m.glb",
        "--out",
        out_file.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert_eq!(json_error(&out)["error"]["code"], "usage");
    assert!(!out_file.exists());
    // An empty or blank model path would not validate either.
    for model in ["", "  "] {
        let out = zoa(&[
            "graph",
            "--defs",
            defs.to_str().unwrap(),
            "--set",
            "player",
            "--model",
            model,
            "--out",
            out_file.to_str().unwrap(),
            "--format",
            "json",
        ]);
        assert_eq!(out.status.code(), Some(2), "{model:?}: {}", stderr(&out));
        let v = json_error(&out);
        assert!(v["error"]["message"].as_str().unwrap().contains("must not be empty"), "{v}");
        assert!(!out_file.exists());
    }
}

#[test]
fn autobind_refuses_a_min_score_that_is_not_a_number() {
    let models = repo("fixtures/models");
    for bad in ["nan", "inf", "-inf"] {
        let out = zoa(&["autobind", models.to_str().unwrap(), "--min-score", bad, "--no-cache", "--format", "json"]);
        assert_eq!(out.status.code(), Some(2), "--min-score {bad}: {}", stderr(&out));
        assert_eq!(json_error(&out)["error"]["code"], "usage");
    }
}

// ----- the scan cache: per-user, private, never follows a symlink, not trusted --

/// Runs `scan` on the fixture models with the per-user cache folder under `home`.
fn scan_with_cache_home(home: &std::path::Path, extra: &[&str]) -> Output {
    let models = repo("fixtures/models");
    bin()
        .args(["scan", models.to_str().unwrap(), "--format", "json"])
        .args(extra)
        .env("XDG_CACHE_HOME", home.join("cache"))
        .env("HOME", home)
        .output()
        .unwrap()
}

#[cfg(unix)]
#[test]
fn the_default_scan_cache_is_private_and_never_follows_a_planted_symlink() {
    use std::os::unix::fs::{PermissionsExt, symlink};
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let out = scan_with_cache_home(&home, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let dir = home.join("cache/zoa-anim");
    assert!(dir.join("scan-cache.json").is_file(), "{}", stderr(&out));
    assert_eq!(std::fs::metadata(&dir).unwrap().permissions().mode() & 0o777, 0o700);

    // A symlink planted at the cache file: replaced, its target untouched.
    let victim = tmp.path().join("victim.txt");
    std::fs::write(&victim, "precious").unwrap();
    std::fs::remove_file(dir.join("scan-cache.json")).unwrap();
    symlink(&victim, dir.join("scan-cache.json")).unwrap();
    let out = scan_with_cache_home(&home, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");

    // The cache folder itself a symlink: not used at all.
    let home2 = tmp.path().join("home2");
    let elsewhere = tmp.path().join("elsewhere");
    std::fs::create_dir_all(home2.join("cache")).unwrap();
    std::fs::create_dir_all(&elsewhere).unwrap();
    symlink(&elsewhere, home2.join("cache/zoa-anim")).unwrap();
    let out = scan_with_cache_home(&home2, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stderr(&out).contains("symlink"), "{}", stderr(&out));
    assert_eq!(std::fs::read_dir(&elsewhere).unwrap().count(), 0);

    // A cache folder others can write to: not used.
    let home3 = tmp.path().join("home3");
    std::fs::create_dir_all(home3.join("cache/zoa-anim")).unwrap();
    std::fs::set_permissions(home3.join("cache/zoa-anim"), std::fs::Permissions::from_mode(0o777)).unwrap();
    let out = scan_with_cache_home(&home3, &[]);
    assert!(stderr(&out).contains("writable by others"), "{}", stderr(&out));
    assert_eq!(std::fs::read_dir(home3.join("cache/zoa-anim")).unwrap().count(), 0);
}

#[test]
fn scan_cache_never_replaces_a_file_that_is_not_a_scan_cache() {
    let tmp = tempfile::tempdir().unwrap();
    let notes = tmp.path().join("notes.json");
    std::fs::write(&notes, "{\"mine\": 1}").unwrap();
    let out = scan_with_cache_home(tmp.path(), &["--cache", notes.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stderr(&out).contains("is not a scan cache"), "{}", stderr(&out));
    assert_eq!(std::fs::read_to_string(&notes).unwrap(), "{\"mine\": 1}");
    // The scan still printed its clips.
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(!v["clips"].as_array().unwrap().is_empty());
}

#[test]
fn a_hand_edited_scan_cache_is_not_trusted() {
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("c.json");
    let c = cache.to_str().unwrap();
    let first = scan_with_cache_home(tmp.path(), &["--cache", c]);
    assert_eq!(first.status.code(), Some(0), "{}", stderr(&first));
    let text = std::fs::read_to_string(&cache).unwrap();
    std::fs::write(&cache, text.replace("\"walk\"", "\"ghost\"")).unwrap();
    let second = scan_with_cache_home(tmp.path(), &["--cache", c]);
    assert_eq!(second.stdout, first.stdout);
    assert!(!String::from_utf8_lossy(&second.stdout).contains("ghost"));
}

// ----- numbers the runtime would refuse ---------------------------------------

/// A skinned two-joint glTF (+ .bin) whose joint `Hips` has one rotation animation `a`.
fn rotation_gltf(dir: &std::path::Path, stem: &str, times: &[f32], quats: &[[f32; 4]]) -> PathBuf {
    let mut bin = Vec::new();
    times.iter().for_each(|t| bin.extend_from_slice(&t.to_le_bytes()));
    quats.iter().flatten().for_each(|c| bin.extend_from_slice(&c.to_le_bytes()));
    std::fs::write(dir.join(format!("{stem}.bin")), &bin).unwrap();
    let n = times.len();
    let json = serde_json::json!({
        "asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0]}],
        "nodes": [{"name": "root", "children": [1]}, {"name": "Hips"}],
        "skins": [{"joints": [0, 1]}],
        "buffers": [{"uri": format!("{stem}.bin"), "byteLength": bin.len()}],
        "bufferViews": [{"buffer": 0, "byteLength": 4 * n}, {"buffer": 0, "byteOffset": 4 * n, "byteLength": 16 * n}],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": n, "type": "SCALAR",
             "min": [times[0]], "max": [times[n - 1]]},
            {"bufferView": 1, "componentType": 5126, "count": n, "type": "VEC4"}],
        "animations": [{"name": "a", "channels": [{"sampler": 0, "target": {"node": 1, "path": "rotation"}}],
                        "samplers": [{"input": 0, "output": 1}]}]
    });
    let path = dir.join(format!("{stem}.gltf"));
    std::fs::write(&path, json.to_string()).unwrap();
    path
}

#[test]
fn a_repeated_key_time_plays_as_a_step_with_a_warning() {
    let tmp = tempfile::tempdir().unwrap();
    let half = std::f32::consts::FRAC_1_SQRT_2;
    let (identity, quarter_z) = ([0.0, 0.0, 0.0, 1.0], [0.0, 0.0, half, half]);
    let model = rotation_gltf(tmp.path(), "step", &[0.0, 1.0, 1.0, 2.0], &[identity, quarter_z, identity, quarter_z]);
    let z_at = |time: &str| -> f64 {
        let out = zoa(&["pose", model.to_str().unwrap(), "--clip", "a", "--time", time, "--format", "json"]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        let hips = v["joints"].as_array().unwrap().iter().find(|j| j["name"] == "Hips").unwrap().clone();
        hips["r"][2].as_f64().unwrap()
    };
    // Up to the repeated time the first segment turns towards a quarter turn;
    // from it on the third segment starts again from identity.
    assert!(z_at("0.999") > 0.7, "just before the step: almost a quarter turn");
    assert_eq!(z_at("1"), 0.0, "at the step: the key after it");
    assert!((z_at("1.5") - (std::f64::consts::PI / 8.0).sin()).abs() < 1e-6, "half way through the third segment");
    let out = zoa(&["inspect", model.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let all = format!("{}{}", String::from_utf8_lossy(&out.stdout), stderr(&out));
    assert!(all.contains("repeats key time 1 s at key 2"), "inspect shows the warning: {all}");
}

#[test]
fn subnormal_key_times_and_infinite_times_never_reach_the_sampler_as_nan() {
    let tmp = tempfile::tempdir().unwrap();
    let quarter = [0.0, 0.0, std::f32::consts::FRAC_1_SQRT_2, std::f32::consts::FRAC_1_SQRT_2];
    for (stem, last) in [("subnormal", 1e-44f32), ("tiny", 1e-37)] {
        let model = rotation_gltf(tmp.path(), stem, &[0.0, last], &[[0.0, 0.0, 0.0, 1.0], quarter]);
        for time in ["0.5", "1000"] {
            let out = zoa(&["pose", model.to_str().unwrap(), "--clip", "a", "--time", time, "--format", "json"]);
            no_panic(&out);
            assert_eq!(out.status.code(), Some(0), "{stem} at {time}: {}", stderr(&out));
            assert!(!String::from_utf8_lossy(&out.stdout).contains("NaN"));
        }
    }
    let model = tmp.path().join("tiny.gltf");
    for time in ["inf", "-inf", "nan", "1e40"] {
        let out = zoa(&["pose", model.to_str().unwrap(), "--clip", "a", "--time", time, "--format", "json"]);
        assert_eq!(out.status.code(), Some(2), "--time {time}: {}", stderr(&out));
        let v = json_error(&out);
        assert_eq!(v["error"]["code"], "usage");
        assert!(!v["error"]["message"].as_str().unwrap().contains("NaN is not finite"), "{v}");
    }
}

#[test]
fn zero_length_rotation_keys_are_refused_and_huge_ones_normalized() {
    let tmp = tempfile::tempdir().unwrap();
    let zero = rotation_gltf(tmp.path(), "zero", &[0.0, 1.0], &[[0.0; 4], [0.0; 4]]);
    let out = zoa(&["pose", zero.to_str().unwrap(), "--clip", "a", "--time", "0.5"]);
    no_panic(&out);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("zero-length quaternion"), "{}", stderr(&out));

    let huge = rotation_gltf(tmp.path(), "huge", &[0.0, 1.0], &[[0.0, 0.0, 0.0, 1e30], [0.0, 0.0, 1e30, 1e30]]);
    let out = zoa(&["pose", huge.to_str().unwrap(), "--clip", "a", "--time", "1", "--once", "--format", "json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let text = v.to_string();
    assert!(!text.contains("e+29") && !text.contains("e29") && !text.contains("1e30"), "{text}");
}

#[test]
fn numbers_the_runtime_would_refuse_are_validate_diagnostics() {
    let tmp = tempfile::tempdir().unwrap();
    let defs = humanoid_defs(tmp.path());
    let d = defs.to_str().unwrap();
    // A rate that rounds to 0 in f32.
    let clip = defs.join("clips/idle.toml");
    let text = std::fs::read_to_string(&clip).unwrap();
    std::fs::write(&clip, format!("{text}rate = 1e-50\n")).unwrap();
    // Two children of a 2D blend tree at one position.
    let graph = defs.join("graphs/humanoid_rifle.toml");
    let text = std::fs::read_to_string(&graph).unwrap();
    assert!(text.contains("threshold_y = 4.0"));
    std::fs::write(&graph, text.replacen("threshold_y = 4.0", "threshold_y = 1.5", 1)).unwrap();
    // A state speed that overflows the runtime's clock on the first frame
    // (3.4e38 × dt is infinite): `validate` applies the runtime's limit.
    let loco = defs.join("graphs/humanoid_locomotion.toml");
    let text = std::fs::read_to_string(&loco).unwrap();
    std::fs::write(&loco, text.replacen("name = \"locomotion\"\n", "name = \"locomotion\"\nspeed = 3.4e38\n", 1))
        .unwrap();
    // A blend tree over the children budget.
    let children: String =
        (0..4097).map(|i| format!("[[states.blend_tree.children]]\nclip = \"idle\"\nthreshold = {i}.0\n")).collect();
    write(
        &defs,
        "graphs/wide.toml",
        &format!(
            "kind = \"animation_graph\"\nid = \"wide\"\nmodel = \"../../../models/humanoid.glb\"\nentry = \"s\"\n\
             [[parameters]]\nname = \"x\"\ntype = \"float\"\n[[states]]\nname = \"s\"\n[states.blend_tree]\n\
             type = \"1D\"\nparameter = \"x\"\n{children}"
        ),
    );
    // An unknown role in bone_overrides.
    write(
        &defs,
        "rig/bad_rig.toml",
        "kind = \"rig_policy\"\nid = \"bad_rig\"\n[bone_overrides]\nleft_fot = \"foot_l\"\n",
    );

    let out = zoa(&["validate", d, "--format", "json"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let diags = v["diagnostics"].as_array().unwrap();
    let find = |file: &str, code: &str| {
        diags
            .iter()
            .find(|x| x["file"] == file && x["code"] == code)
            .unwrap_or_else(|| panic!("no {code} in {file}: {v}"))
            .clone()
    };
    let rate = find("clips/idle.toml", "E008");
    assert_eq!(rate["field"], "rate");
    assert!(rate["message"].as_str().unwrap().contains("0 as a 32-bit float"), "{rate}");
    assert!(rate["line"].as_u64().is_some());
    let blend = find("graphs/humanoid_rifle.toml", "E016");
    assert!(blend["message"].as_str().unwrap().contains("share the position"), "{blend}");
    let speed = find("graphs/humanoid_locomotion.toml", "E008");
    assert_eq!(speed["field"], "states[0].speed", "{speed}");
    assert!(speed["message"].as_str().unwrap().contains("at most 1000"), "{speed}");
    let wide = find("graphs/wide.toml", "E008");
    assert!(wide["message"].as_str().unwrap().contains("the budget `blend_tree.children` is 4096"), "{wide}");
    let role = find("rig/bad_rig.toml", "E010");
    assert!(role["message"].as_str().unwrap().contains("did you mean `left_foot`"), "{role}");
}

// ----- paths that were quadratic (bounded inputs a quadratic pass would not finish) --

#[test]
fn a_profile_with_100k_erroneous_rows_validates_in_one_linear_pass() {
    let tmp = tempfile::tempdir().unwrap();
    let mut text = String::from("kind = \"animation_profile\"\nid = \"p\"\n");
    for i in 0..100_000 {
        text.push_str(&format!("[[entries]]\nclip = \"c{i}\"\nweight = -1\n"));
    }
    assert!(text.len() < 4 << 20);
    write(tmp.path(), "p.toml", &text);
    let out = zoa(&["validate", tmp.path().to_str().unwrap(), "--format", "json"]);
    no_panic(&out);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["errors"].as_u64().unwrap() > 0, "{v}");
}

#[test]
fn fifteen_thousand_files_naming_missing_parents_validate_in_one_linear_pass() {
    let tmp = tempfile::tempdir().unwrap();
    for i in 0..15_000 {
        let text = format!("kind = \"animation_profile\"\nid = \"p{i:05}\"\nparent = \"m{i:05}\"\n");
        std::fs::write(tmp.path().join(format!("f{i:05}.toml")), text).unwrap();
    }
    let out = zoa(&["validate", tmp.path().to_str().unwrap(), "--format", "json"]);
    no_panic(&out);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["errors"], 15_000, "one error per missing parent");
}

#[cfg(unix)]
#[test]
fn preview_out_never_follows_a_dangling_symlink_out_of_the_folder() {
    let tmp = tempfile::tempdir().unwrap();
    let defs = humanoid_defs(tmp.path());
    let out_dir = tmp.path().join("out");
    std::fs::create_dir_all(&out_dir).unwrap();
    let outside = tmp.path().join("outside.json");
    std::os::unix::fs::symlink(&outside, out_dir.join("capture.json")).unwrap();
    let run = |force: bool| {
        let mut args = vec![
            "preview",
            "--defs",
            defs.to_str().unwrap(),
            "--preset",
            "hit_and_die",
            "--out",
            out_dir.to_str().unwrap(),
        ];
        if force {
            args.push("--force");
        }
        zoa(&args)
    };
    // Without --force the dangling link counts as an existing file: nothing is written.
    let out = run(false);
    no_panic(&out);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert_eq!(std::fs::read_dir(&out_dir).unwrap().count(), 1);
    assert!(!outside.exists());
    // With --force the link itself is replaced; nothing appears outside the folder.
    let out = run(true);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!outside.exists());
    assert!(std::fs::symlink_metadata(out_dir.join("capture.json")).unwrap().is_file());
    assert_eq!(std::fs::read_dir(&out_dir).unwrap().count(), 4, "the four files, no temporary left");
}

/// A valid animation profile of `rows` distinct single-flag rows (well under the file budget).
fn large_profile(dir: &std::path::Path, rows: usize) {
    let dims: [&[&str]; 4] = [
        &["idle", "walk", "run", "sprint", "strafe", "backward", "turn", "jump", "fall", "land", "swim", "climb"],
        &["standing", "crouching", "prone", "sitting", "kneeling", "mounted", "in_cover"],
        &["unarmed", "armed_pistol", "armed_rifle", "armed_shotgun", "armed_melee", "armed_heavy", "aiming"],
        &["calm", "alert", "afraid", "angry", "wounded", "exhausted", "stealthy"],
    ];
    let mut text = String::from("kind = \"animation_profile\"\nid = \"big\"\n[[entries]]\nclip = \"idle\"\n");
    let mut n = 0;
    'out: for r in ["", " reaction=hit"] {
        for l in dims[0] {
            for p in dims[1] {
                for c in dims[2] {
                    for m in dims[3] {
                        if n == rows {
                            break 'out;
                        }
                        text.push_str(&format!(
                            "[[entries]]\nclip = \"idle\"\ntags = \"locomotion={l} posture={p} combat={c} mood={m}{r}\"\n"
                        ));
                        n += 1;
                    }
                }
            }
        }
    }
    assert_eq!(n, rows);
    assert!(text.len() < 4 << 20);
    write(dir, "profiles/big.toml", &text);
}

#[test]
fn coverage_of_a_large_valid_profile_is_linear_not_rows_times_states() {
    // 6,000 rows × 898,560 states: 5.4 billion row checks by the old walk (16-19 s in release).
    let tmp = zoa_test_support::paths::temp_dir("hostile-coverage");
    let defs = humanoid_defs(tmp.path());
    large_profile(&defs, 6000);
    let out = zoa(&["validate", defs.to_str().unwrap(), "--coverage", "--format", "json"]);
    no_panic(&out);
    assert_eq!(out.status.code(), Some(0), "a valid folder: {}", stderr(&out));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let profiles = v["coverage"]["profiles"].as_array().unwrap();
    let p = profiles.iter().find(|p| p["profile"] == "big").unwrap();
    assert_eq!(p["profile"], "big", "{v}");
    assert_eq!(p["states_checked"], 898_560, "{p}");
    assert!(p["exact"].as_u64().unwrap() > 0 && p["default_only"].as_u64().unwrap() > 0, "{p}");
}

#[test]
fn preview_refuses_a_long_run_on_a_large_rig_by_its_capture_budget() {
    let tmp = zoa_test_support::paths::temp_dir("hostile-bigrig");
    let defs = zoa_test_support::paths::chain_defs(tmp.path(), 1000, &[("long", 600.0), ("short", 1.0)]);
    let d = defs.to_str().unwrap();
    let out = zoa(&["validate", d]);
    assert_eq!(out.status.code(), Some(0), "the folder is valid: {}", stderr(&out));
    // 600 s at 30 Hz on 1,000 joints: 18,003 ticks, about 297 MiB of capture.
    let out = zoa(&["preview", "--defs", d, "--preset", "long", "--format", "json"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let v = json_error(&out);
    assert_eq!(v["error"]["code"], "over-budget");
    let message = v["error"]["message"].as_str().unwrap();
    assert!(message.contains("the budget `preview.capture_bytes` is 256 MiB"), "{message}");
    assert!(message.contains("rig of 1000 joints"), "{message}");
    // A short run on the same rig plays.
    let out = zoa(&["preview", "--defs", d, "--preset", "short", "--format", "json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["ticks"].as_array().unwrap().len(), 31);
}

/// Stdout is exactly one JSON document (trailing data, two documents or none fail).
fn one_document(args: &[&str], out: &Output) -> Value {
    no_panic(out);
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!("{args:?}: stdout is not one JSON document ({e}):\n{}", String::from_utf8_lossy(&out.stdout))
    })
}

#[test]
fn every_json_mode_run_prints_exactly_one_document_success_or_error() {
    let tmp = zoa_test_support::paths::temp_dir("hostile-onedoc");
    let defs = humanoid_defs(tmp.path());
    let d = defs.to_str().unwrap();
    let model = repo("fixtures/models/humanoid.glb");
    let m = model.to_str().unwrap();
    let models = repo("fixtures/models");
    let nope = tmp.path().join("nope");
    let n = nope.to_str().unwrap();
    // autobind writes into a folder blocked by a file of the same name: the write fails after ranking.
    std::fs::write(tmp.path().join("blocked"), "a file").unwrap();
    let blocked_out = tmp.path().join("blocked/player.toml");
    let script = write(tmp.path(), "script.toml", "[[events]]\ntime = 0\nevent = \"footstep\"\n");
    let wav = tmp.path().join("out.wav");
    let cases: Vec<(Vec<&str>, i32)> = vec![
        (vec!["tags", "--format", "json"], 0),
        (vec!["validate", d, "--format", "json"], 0),
        (vec!["validate", n, "--format", "json"], 2),
        (vec!["inspect", m, "--format", "json"], 0),
        (vec!["inspect", n, "--format", "json"], 2),
        (vec!["scan", m, "--no-cache", "--format", "json"], 0),
        (vec!["resolve", "--defs", d, "--profile", "nope", "--state", "", "--format", "json"], 2),
        (vec!["ik", m, "--discover", "--format", "json"], 0),
        (vec!["neighbourhood", n, "--format", "json"], 2),
        (vec!["autobind", models.to_str().unwrap(), "--no-cache", "--format", "json"], 0),
        (
            vec![
                "autobind",
                models.to_str().unwrap(),
                "--no-cache",
                "--format",
                "json",
                "--out",
                blocked_out.to_str().unwrap(),
            ],
            2,
        ),
        (vec!["sound", "resolve", "--defs", n, "--profile", "p", "--event", "footstep", "--format", "json"], 2),
        // `sound render` prints JSON by default: its failures are JSON too.
        (
            vec![
                "sound",
                "render",
                "--defs",
                n,
                "--profile",
                "p",
                "--script",
                script.to_str().unwrap(),
                "--out",
                wav.to_str().unwrap(),
            ],
            2,
        ),
        (vec!["preview", "--defs", d, "--preset", "nope", "--format", "json"], 2),
        (vec!["bench", m, "--characters", "0", "--format", "json"], 2),
    ];
    for (args, code) in cases {
        let out = zoa(&args);
        let v = one_document(&args, &out);
        assert_eq!(out.status.code(), Some(code), "{args:?}: {v}\n{}", stderr(&out));
        if code != 0 {
            assert!(v["error"]["code"].is_string() && v["error"]["message"].is_string(), "{args:?}: {v}");
        } else {
            assert!(v.get("error").is_none(), "{args:?}: {v}");
        }
    }
    assert!(!blocked_out.exists());
}

#[test]
fn neighbourhood_of_a_file_that_is_not_a_model_is_an_error() {
    let tmp = zoa_test_support::paths::temp_dir("hostile-neighbourhood");
    let notes = write(tmp.path(), "notes.glb", "these are notes, not a model");
    write(tmp.path(), "walk.glb", "also not a model");
    for format in ["human", "json"] {
        let out = zoa(&["neighbourhood", notes.to_str().unwrap(), "--format", format]);
        no_panic(&out);
        assert_eq!(out.status.code(), Some(2), "{format}: {}", String::from_utf8_lossy(&out.stdout));
        assert!(stderr(&out).contains("notes.glb"), "{}", stderr(&out));
    }
    let out = zoa(&["neighbourhood", notes.to_str().unwrap(), "--format", "json"]);
    assert_eq!(json_error(&out)["error"]["path"].as_str().map(|p| p.ends_with("notes.glb")), Some(true));
}

#[test]
fn every_skipped_file_or_folder_is_a_diagnostic() {
    let tmp = zoa_test_support::paths::temp_dir("hostile-skipped");
    let mut deep = String::new();
    for _ in 0..40 {
        deep.push_str("d/");
    }
    write(tmp.path(), &format!("{deep}broken.toml"), "kind = \"clip\"\nid = \n");
    write(tmp.path(), "ok.toml", "kind = \"rig_policy\"\nid = \"ok\"\n");
    let out = zoa(&["validate", tmp.path().to_str().unwrap(), "--format", "json"]);
    assert_eq!(out.status.code(), Some(1), "a broken file below the depth limit fails the folder: {}", stderr(&out));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let diags = v["diagnostics"].as_array().unwrap();
    let unread = diags.iter().find(|d| d["code"] == "E022").expect("an E022 for the unread file");
    assert!(unread["file"].as_str().unwrap().ends_with("broken.toml"), "{unread}");
    assert!(diags.iter().any(|d| d["code"] == "W006"), "{v}");
    #[cfg(unix)]
    {
        let elsewhere = tmp.path().join("elsewhere");
        let linked = zoa_test_support::paths::temp_dir("hostile-skipped-link");
        write(linked.path(), "real.toml", "kind = \"rig_policy\"\nid = \"real\"\n");
        std::os::unix::fs::symlink(linked.path(), &elsewhere).unwrap();
        let out = zoa(&["validate", tmp.path().to_str().unwrap(), "--format", "json"]);
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        let link = v["diagnostics"].as_array().unwrap().iter().find(|d| d["file"] == "elsewhere").cloned();
        let link = link.expect("the symlinked folder is named");
        assert_eq!(link["code"], "W006", "{link}");
        assert!(link["message"].as_str().unwrap().contains("symlink"), "{link}");
    }
}

#[test]
fn import_never_writes_a_clip_for_a_blank_animation_name() {
    let tmp = zoa_test_support::paths::temp_dir("hostile-blank");
    let doc = zoa_test_support::gltf::character("", &["", " ", "Walk"]);
    let model = tmp.path().join("hero.glb");
    std::fs::write(&model, doc.to_glb()).unwrap();
    let into = tmp.path().join("defs");
    let out = zoa(&["import", model.to_str().unwrap(), "--into", into.to_str().unwrap(), "--format", "json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["clips"].as_array().unwrap().len(), 3, "{v}");
    // Blank names are no names: those clips refer to their animation by index.
    let mut texts: Vec<String> =
        std::fs::read_dir(&into).unwrap().map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap()).collect();
    texts.sort();
    assert!(texts.iter().all(|t| !t.contains("animation = \"\"") && !t.contains("animation = \" \"")), "{texts:?}");
    assert_eq!(texts.iter().filter(|t| t.contains("animation = 0\n") || t.contains("animation = 1\n")).count(), 2);
    // And what was written validates.
    let out = zoa(&["validate", into.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}{}", String::from_utf8_lossy(&out.stdout), stderr(&out));
}

#[test]
fn autobind_gives_two_rigs_whose_ids_collide_unique_file_names() {
    let tmp = zoa_test_support::paths::temp_dir("hostile-autobind-names");
    let models = tmp.path().join("models");
    std::fs::create_dir_all(&models).unwrap();
    // `humanoid` binds an unarmed and a rifle class (player_humanoid_rifle.toml);
    // a second rig is called `humanoid_rifle` (its set: player_humanoid_rifle.toml).
    std::fs::copy(repo("fixtures/models/humanoid.glb"), models.join("humanoid.glb")).unwrap();
    let other = zoa_test_support::gltf::character("other_", &["Idle", "Walk", "Run"]);
    std::fs::write(models.join("humanoid_rifle.glb"), other.to_glb()).unwrap();
    let out_file = tmp.path().join("defs/player.toml");
    let args =
        ["autobind", models.to_str().unwrap(), "--out", out_file.to_str().unwrap(), "--no-cache", "--format", "json"];
    let out = zoa(&args);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    one_document(&args, &out);
    let defs = tmp.path().join("defs");
    let mut names: Vec<String> =
        std::fs::read_dir(&defs).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    assert!(names.contains(&"player_humanoid.toml".to_owned()), "{names:?}");
    assert!(names.contains(&"player_humanoid_rifle.toml".to_owned()), "{names:?}");
    assert!(names.contains(&"player_humanoid_rifle_2.toml".to_owned()), "the rifle profile moved aside: {names:?}");
    // What was written validates.
    let out = zoa(&["validate", defs.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}{}", String::from_utf8_lossy(&out.stdout), stderr(&out));
}

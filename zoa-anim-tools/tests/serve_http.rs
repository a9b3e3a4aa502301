//! `zoa-anim serve` over HTTP, from outside: every endpoint on a private copy
//! of the fixtures, the guard (Host, token, Origin), refused traversal and
//! symlink escapes, stale saves, and that nothing is written without a
//! confirmed choice.

mod serve_support;

use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};
use serve_support::{Reply, Server};

fn ok(r: &Reply) -> Value {
    assert_eq!(r.status, 200, "{}", r.text());
    r.json()
}

fn read(s: &Server, rel: &str) -> String {
    std::fs::read_to_string(s.defs().join(rel)).unwrap()
}

fn file(s: &Server, path: &str) -> Value {
    ok(&s.get(&format!("/api/file?path={path}")))
}

// ---------------------------------------------------------------- the guard

#[test]
fn the_page_embeds_its_assets_and_the_session_token() {
    let s = Server::start();
    let page = s.raw("GET", "/", &[], None);
    assert_eq!(page.status, 200);
    assert!(page.text().contains(&format!("content=\"{}\"", s.token)));
    let csp = page.header("content-security-policy").unwrap();
    assert!(csp.contains("default-src 'none'") && csp.contains("script-src 'self'"), "{csp}");
    assert_eq!(page.header("x-frame-options"), Some("DENY"));
    assert_eq!(s.token.len(), 48);
    for name in ["main.js", "editor.js", "preview.js", "skeleton_view.js", "app.css"] {
        let r = s.raw("GET", &format!("/static/{name}"), &[], None);
        assert_eq!(r.status, 200, "{name}");
        assert!(!r.body.is_empty());
        assert!(
            !r.text().contains("http://") && !r.text().contains("https://"),
            "{name} must not load anything remote"
        );
    }
    assert!(s.raw("GET", "/static/main.js", &[], None).header("content-type").unwrap().starts_with("text/javascript"));
    assert_eq!(s.raw("GET", "/static/../Cargo.toml", &[], None).status, 404);
    assert_eq!(s.raw("GET", "/static/nope.js", &[], None).status, 404);
    // A second server has another token.
    let t = Server::start();
    assert_ne!(s.token, t.token);
}

#[test]
fn a_foreign_host_header_is_refused_everywhere() {
    let s = Server::start();
    // Without --bind the server listens on loopback only.
    assert!(s.origin.starts_with("http://127.0.0.1:"), "{}", s.origin);
    for path in ["/", "/static/main.js", "/api/defs"] {
        let r = s.raw("GET", path, &[("Host", "evil.example:80"), ("x-zoa-token", &s.token)], None);
        assert_eq!(r.status, 403, "{path}");
        assert!(r.text().contains("Host"));
    }
    let port = s.host.rsplit(':').next().unwrap();
    assert_eq!(s.raw("GET", "/", &[("Host", &format!("localhost:{port}"))], None).status, 200);
}

#[test]
fn api_calls_need_the_token_and_writes_need_the_origin() {
    let s = Server::start();
    assert_eq!(s.raw("GET", "/api/defs", &[], None).status, 401);
    assert_eq!(s.raw("GET", "/api/defs", &[("x-zoa-token", "0000")], None).status, 401);
    assert_eq!(s.get("/api/defs").status, 200);
    // Every read endpoint needs the token too (the page's data is the folder's text).
    for path in [
        "/api/session",
        "/api/file?path=defs/bindings/rifle.toml",
        "/api/coverage",
        "/api/overview",
        "/api/bindings",
        "/api/ik/models",
        "/api/vocabulary",
        "/api/presets",
    ] {
        assert_eq!(s.raw("GET", path, &[], None).status, 401, "{path} without token");
    }
    let before = read(&s, "bindings/rifle.toml");
    let body =
        serde_json::to_vec(&json!({ "path": "defs/bindings/rifle.toml", "version": "x", "confirm": true })).unwrap();
    let ct = ("Content-Type", "application/json");
    // Every write endpoint: no Origin, a foreign Origin, no token.
    for path in [
        "/api/save",
        "/api/delete",
        "/api/duplicate",
        "/api/validate",
        "/api/autobind/write",
        "/api/ik/save",
        "/api/wizard/write",
        "/api/preview/run",
        "/api/preview/export",
        "/api/autobind/scan",
        "/api/ik/discover",
        "/api/ik/grips",
        "/api/ik/grips/save",
        "/api/wizard/preview",
    ] {
        let r = s.raw("POST", path, &[("x-zoa-token", &s.token), ct], Some(&body));
        assert_eq!(r.status, 403, "{path} without Origin");
        let r = s.raw("POST", path, &[("x-zoa-token", &s.token), ("Origin", "http://evil.example"), ct], Some(&body));
        assert_eq!(r.status, 403, "{path} from a foreign page");
        let r = s.raw("POST", path, &[("Origin", &s.origin), ct], Some(&body));
        assert_eq!(r.status, 401, "{path} without token");
    }
    assert_eq!(read(&s, "bindings/rifle.toml"), before);
}

// ---------------------------------------------------------------- definitions

#[test]
fn definitions_are_listed_by_kind_with_their_problem_counts() {
    let s = Server::start();
    let session = ok(&s.get("/api/session"));
    assert_eq!(session["roots"][0]["label"], "defs");
    assert_eq!(session["roots"][1]["label"], "assets");
    assert_eq!(session["roots"][1]["writable"], false);
    assert_eq!(session["kinds"].as_array().unwrap().len(), 10);
    let list = ok(&s.get("/api/defs"));
    let files = list["files"].as_array().unwrap();
    let on_disk = walk(&s.defs());
    assert_eq!(files.len(), on_disk, "every .toml file is listed");
    let find = |p: &str| files.iter().find(|f| f["path"] == p).unwrap_or_else(|| panic!("{p} listed"));
    assert_eq!(find("defs/bindings/rifle.toml")["kind"], "binding_profile");
    assert_eq!(find("defs/bindings/rifle.toml")["id"], "rifle");
    assert_eq!(find("defs/player/player.toml")["kind"], "player_profile_set");
    assert_eq!(find("defs/presets/locomotion_ramp.toml")["kind"], "preview_preset");
    // Counts agree with `zoa-anim validate`.
    let cli = validate_cli(&s.defs());
    assert_eq!(list["errors"], cli["errors"]);
    assert_eq!(list["warnings"], cli["warnings"]);
    // A broken file still lists under its kind, with its errors counted.
    std::fs::write(
        s.defs().join("bindings/broken.toml"),
        "kind = \"binding_profile\"\nid = \"broken\"\nbindings = [\n",
    )
    .unwrap();
    let list = ok(&s.get("/api/defs"));
    let broken =
        list["files"].as_array().unwrap().iter().find(|f| f["path"] == "defs/bindings/broken.toml").unwrap().clone();
    assert_eq!(broken["kind"], "binding_profile");
    assert!(broken["errors"].as_u64().unwrap() >= 1);
}

fn walk(dir: &Path) -> usize {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .map(|p| if p.is_dir() { walk(&p) } else { usize::from(p.extension().is_some_and(|e| e == "toml")) })
        .sum()
}

fn validate_cli(dir: &Path) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_zoa-anim"))
        .args(["validate", "--coverage", "--format", "json"])
        .arg(dir)
        .output()
        .unwrap();
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn a_file_opens_with_its_text_and_version() {
    let s = Server::start();
    let f = file(&s, "defs/bindings/rifle.toml");
    assert_eq!(f["text"], read(&s, "bindings/rifle.toml"));
    assert_eq!(f["kind"], "binding_profile");
    assert_eq!(f["writable"], true);
    let again = file(&s, "defs/bindings/rifle.toml");
    assert_eq!(f["version"], again["version"]);
    assert_eq!(s.get("/api/file?path=defs/bindings/none.toml").status, 403, "a missing file cannot be reached");
    assert_eq!(s.get("/api/file?path=assets/humanoid.glb").status, 400, "models do not open in the editor");
}

#[test]
fn traversal_absolute_paths_and_symlink_escapes_are_refused() {
    let s = Server::start();
    let outside = s.root.path().join("secret.toml");
    std::fs::write(&outside, "kind = \"clip\"\nid = \"secret\"\n").unwrap();
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(&outside, s.defs().join("link.toml")).unwrap();
        std::os::unix::fs::symlink(s.root.path(), s.defs().join("up")).unwrap();
    }
    let mut bad = vec![
        "defs/../secret.toml".to_owned(),
        "defs/bindings/../../secret.toml".to_owned(),
        format!("{}", outside.display()),
        "secret.toml".to_owned(),
        "assets/../../secret.toml".to_owned(),
        "defs//bindings/rifle.toml".to_owned(),
    ];
    if cfg!(unix) {
        bad.push("defs/link.toml".into());
        bad.push("defs/up/secret.toml".into());
    }
    // Percent-escapes are decoded in a query string (a JSON body is taken literally).
    assert_eq!(s.get("/api/file?path=defs/%2e%2e/secret.toml").status, 403);
    for p in &bad {
        let q = p.replace('/', "%2F");
        let r = s.get(&format!("/api/file?path={q}"));
        assert_eq!(r.status, 403, "read {p}: {}", r.text());
        assert!(!r.text().contains("secret\""), "{p} leaked");
        for (path, body) in [
            ("/api/save", json!({ "path": p, "text": "x", "version": null })),
            ("/api/delete", json!({ "path": p, "version": "x", "confirm": true })),
            ("/api/duplicate", json!({ "path": "defs/bindings/rifle.toml", "new_path": p, "new_id": "x" })),
            ("/api/duplicate", json!({ "path": p, "new_path": "defs/copy.toml", "new_id": "x" })),
            ("/api/ik/save", json!({ "path": p, "version": "x", "overrides": [] })),
            ("/api/ik/grips/save", json!({ "path": p, "version": "x", "grips": {} })),
            ("/api/wizard/write", json!({ "path": p, "draft": { "id": "x" } })),
            ("/api/validate", json!({ "path": p, "text": "x" })),
        ] {
            let r = s.post(path, &body);
            assert_eq!(r.status, 403, "{path} {p}: {}", r.text());
        }
    }
    // The asset folders are read-only, and only .toml files are written.
    let r = s.post("/api/save", &json!({ "path": "assets/new.toml", "text": "x", "version": null }));
    assert_eq!(r.status, 403);
    let r = s.post("/api/save", &json!({ "path": "defs/notes.txt", "text": "x", "version": null }));
    assert_eq!(r.status, 403);
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), "kind = \"clip\"\nid = \"secret\"\n");
    assert!(!s.root.path().join("fixtures/models/new.toml").exists());
    assert!(!s.defs().join("copy.toml").exists());
}

#[test]
fn validation_checks_the_buffer_in_its_folder_without_writing() {
    let s = Server::start();
    let before = read(&s, "bindings/rifle.toml");
    // Line 9 is `type = "trigger"` of the first binding.
    assert_eq!(before.lines().nth(8), Some("type = \"trigger\""));
    let broken = before.replacen("type = \"trigger\"", "type = \"triger\"", 1);
    let r = ok(&s.post("/api/validate", &json!({ "path": "defs/bindings/rifle.toml", "text": broken })));
    let errors: Vec<&Value> =
        r["diagnostics"].as_array().unwrap().iter().filter(|d| d["severity"] == "error").collect();
    assert_eq!(errors.len(), 1, "{r}");
    let e = errors[0];
    assert_eq!((e["line"].as_u64(), e["column"].as_u64()), (Some(9), Some(8)), "{e}");
    assert_eq!((e["end_line"].as_u64(), e["end_column"].as_u64()), (Some(9), Some(16)), "the span covers `\"triger\"`");
    assert_eq!(e["field"], "bindings[0].type");
    assert_eq!(r["errors"], 1);
    assert_eq!(read(&s, "bindings/rifle.toml"), before, "validation writes nothing");
    // Unsaved new files are validated in context too: a second `rifle` id is an error there.
    let r = ok(&s.post("/api/validate", &json!({ "path": "defs/bindings/zz_new.toml", "text": before })));
    assert!(r["errors"].as_u64().unwrap() >= 1, "{r}");
    assert!(!s.defs().join("bindings/zz_new.toml").exists());
    // The folder's other problems are counted per file.
    std::fs::write(s.defs().join("bad.toml"), "kind = \"clip\"\n").unwrap();
    let r = ok(&s.post("/api/validate", &json!({ "path": "defs/bindings/rifle.toml", "text": before })));
    assert_eq!(r["errors"], 0);
    assert!(r["others"].as_array().unwrap().iter().any(|o| o["file"] == "bad.toml" && o["errors"].as_u64() >= Some(1)));
}

#[test]
fn saves_are_atomic_and_refuse_stale_versions() {
    let s = Server::start();
    let path = "defs/bindings/rifle.toml";
    let opened = file(&s, path);
    let v0 = opened["version"].as_str().unwrap().to_owned();
    let edited = opened["text"].as_str().unwrap().replace("Standard Rifle", "Heavy Rifle");
    let r = ok(&s.post("/api/save", &json!({ "path": path, "text": edited, "version": v0 })));
    let v1 = r["version"].as_str().unwrap().to_owned();
    assert_ne!(v0, v1);
    assert_eq!(read(&s, "bindings/rifle.toml"), edited);
    assert_eq!(r["errors"], 0);
    // Saving again from the old version is refused: the editor is stale.
    let stale_text = "kind = \"binding_profile\"\nid = \"rifle\"\n";
    let r = s.post("/api/save", &json!({ "path": path, "text": stale_text, "version": v0 }));
    assert_eq!(r.status, 409, "{}", r.text());
    assert_eq!(r.json()["stale"], true);
    assert_eq!(r.json()["disk_version"], v1.as_str());
    assert_eq!(read(&s, "bindings/rifle.toml"), edited);
    // Someone else edits the file on disk: a save from v1 is refused, and the
    // answer names the version on disk so the page can offer an explicit overwrite.
    let theirs = edited.replace("Heavy Rifle", "Their Rifle");
    std::fs::write(s.defs().join("bindings/rifle.toml"), &theirs).unwrap();
    let mine = edited.replace("Heavy Rifle", "My Rifle");
    let r = s.post("/api/save", &json!({ "path": path, "text": mine, "version": v1 }));
    assert_eq!(r.status, 409);
    assert_eq!(read(&s, "bindings/rifle.toml"), theirs);
    let disk = r.json()["disk_version"].as_str().unwrap().to_owned();
    ok(&s.post("/api/save", &json!({ "path": path, "text": mine, "version": disk })));
    assert_eq!(read(&s, "bindings/rifle.toml"), mine);
    // A file deleted on disk: stale with no disk version.
    let v = file(&s, path)["version"].as_str().unwrap().to_owned();
    std::fs::remove_file(s.defs().join("bindings/rifle.toml")).unwrap();
    let r = s.post("/api/save", &json!({ "path": path, "text": mine, "version": v }));
    assert_eq!(r.status, 409);
    assert_eq!(r.json()["disk_version"], Value::Null);
    // New files: `version: null` creates, and never overwrites.
    let new = "defs/bindings/extra.toml";
    let text = "kind = \"binding_profile\"\nid = \"extra\"\n";
    ok(&s.post("/api/save", &json!({ "path": new, "text": text, "version": null })));
    let r = s.post("/api/save", &json!({ "path": new, "text": stale_text, "version": null }));
    assert_eq!(r.status, 409);
    assert_eq!(r.json()["exists"], true);
    assert_eq!(read(&s, "bindings/extra.toml"), text);
    // New folders are created inside defs; no temporary sibling is left behind.
    ok(&s.post(
        "/api/save",
        &json!({ "path": "defs/more/deeper/x.toml", "text": text.replace("extra", "x"), "version": null }),
    ));
    assert!(s.defs().join("more/deeper/x.toml").is_file());
    let leftovers: Vec<_> = std::fs::read_dir(s.defs().join("bindings"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[cfg(unix)]
#[test]
fn saves_never_write_through_a_symlink() {
    let s = Server::start();
    let target = s.defs().join("bindings/rifle.toml");
    std::os::unix::fs::symlink(&target, s.defs().join("alias.toml")).unwrap();
    let f = file(&s, "defs/alias.toml");
    let r = s.post("/api/save", &json!({ "path": "defs/alias.toml", "text": "x", "version": f["version"] }));
    assert_eq!(r.status, 403, "{}", r.text());
    assert_ne!(std::fs::read_to_string(&target).unwrap(), "x");
}

#[test]
fn duplicates_get_a_new_id_and_never_overwrite() {
    let s = Server::start();
    let r = ok(&s.post(
        "/api/duplicate",
        &json!({ "path": "defs/bindings/rifle.toml", "new_path": "defs/bindings/rifle_copy.toml", "new_id": "rifle_copy" }),
    ));
    assert_eq!(r["path"], "defs/bindings/rifle_copy.toml");
    let copy = read(&s, "bindings/rifle_copy.toml");
    let original = read(&s, "bindings/rifle.toml");
    assert_eq!(copy, original.replace("id = \"rifle\"", "id = \"rifle_copy\""), "only the id changes");
    let list = ok(&s.get("/api/defs"));
    let entry = list["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["path"] == "defs/bindings/rifle_copy.toml")
        .unwrap()
        .clone();
    assert_eq!((entry["id"].as_str(), entry["errors"].as_u64()), (Some("rifle_copy"), Some(0)));
    let r = s.post(
        "/api/duplicate",
        &json!({ "path": "defs/bindings/unarmed.toml", "new_path": "defs/bindings/rifle_copy.toml", "new_id": "u2" }),
    );
    assert_eq!(r.status, 409);
    assert_eq!(read(&s, "bindings/rifle_copy.toml"), copy);
}

#[test]
fn deletes_need_confirmation_and_an_unchanged_file() {
    let s = Server::start();
    let path = "defs/timing/heavy.toml";
    let v = file(&s, path)["version"].as_str().unwrap().to_owned();
    let r = s.post("/api/delete", &json!({ "path": path, "version": v }));
    assert_eq!(r.status, 400, "no confirmation");
    assert!(s.defs().join("timing/heavy.toml").exists());
    let r = s.post("/api/delete", &json!({ "path": path, "version": "0-0", "confirm": true }));
    assert_eq!(r.status, 409, "stale");
    assert!(s.defs().join("timing/heavy.toml").exists());
    ok(&s.post("/api/delete", &json!({ "path": path, "version": v, "confirm": true })));
    assert!(!s.defs().join("timing/heavy.toml").exists());
    assert_eq!(s.post("/api/delete", &json!({ "path": path, "version": v, "confirm": true })).status, 409);
}

#[test]
fn coverage_and_overview_agree_with_the_cli() {
    let s = Server::start();
    let cov = ok(&s.get("/api/coverage"));
    let cli = validate_cli(&s.defs());
    assert_eq!(cov["profiles"], cli["coverage"]["profiles"]);
    assert_eq!(cov["cross_modal"], cli["coverage"]["cross_modal"]);
    assert!(!cov["cross_modal"].as_array().unwrap().is_empty());
    assert_eq!(cov["files"]["humanoid_base"], "defs/profiles/humanoid_base.toml");
    let o = ok(&s.get("/api/overview"));
    assert_eq!(o["counts"]["binding_profile"], 2);
    assert_eq!(o["counts"]["preview_preset"], 7);
    assert_eq!(o["counts"]["equipment"], 2);
    assert_eq!(o["errors"], cli["errors"]);
    assert_eq!(o["profile_sets"][0]["id"], "player");
    assert_eq!(o["coverage"].as_array().unwrap().len(), cli["coverage"]["profiles"].as_array().unwrap().len());
    let models = o["models"].as_array().unwrap();
    assert!(models.iter().any(|m| m["path"] == "assets/humanoid.glb" && m["exists"] == true), "{models:?}");
}

// ---------------------------------------------------------------- auto binding

fn scan_body() -> Value {
    json!({ "roots": ["assets"], "profile_type": null, "min_score": 0.3 })
}

#[test]
fn auto_binding_ranks_candidates_with_their_signals() {
    let s = Server::start();
    let r = ok(&s.post("/api/autobind/scan", &scan_body()));
    assert_eq!((r["files"].as_u64(), r["clips"].as_u64()), (Some(1), Some(14)));
    let slots = r["slots"].as_array().unwrap();
    let run = slots.iter().find(|x| x["slot"] == "locomotion_run").unwrap();
    let c = run["candidates"].as_array().unwrap();
    assert_eq!(c[0]["clip"], "run");
    assert_eq!(c[1]["clip"], "sprint");
    assert_eq!(c[0]["key"], "assets/humanoid.glb#2");
    assert_eq!(c[0]["file"], "assets/humanoid.glb");
    let signals = c[0]["signals"].as_object().unwrap();
    let sum: f64 = signals.values().map(|v| v.as_f64().unwrap()).sum();
    assert!((sum - c[0]["score"].as_f64().unwrap()).abs() < 1e-3, "the breakdown adds up to the score");
    assert!(r["classes"].as_array().unwrap().contains(&json!("unarmed")));
    // Roots are confined like every other path.
    assert_eq!(s.post("/api/autobind/scan", &json!({ "roots": ["defs/../.."] })).status, 403);
    assert_eq!(s.post("/api/autobind/scan", &json!({ "roots": [] })).status, 400);
    assert_eq!(s.post("/api/autobind/scan", &json!({ "roots": ["assets"], "profile_type": "laser" })).status, 400);
}

/// A second character on another skeleton (the two-joint test rig, bones
/// renamed) with an idle and a walk, dropped into the served models folder.
fn add_fox(s: &Server) {
    let fox = zoa_test_support::gltf::character("b_", &["Idle", "Walk"]);
    std::fs::write(s.defs().join("../../models/fox.glb"), fox.to_glb()).unwrap();
}

#[test]
fn auto_binding_ranks_one_skeleton_at_a_time() {
    let s = Server::start();
    add_fox(&s);
    let scan = |extra: Value| {
        let mut b = scan_body();
        for (k, v) in extra.as_object().unwrap() {
            b[k] = v.clone();
        }
        s.post("/api/autobind/scan", &b)
    };
    let files_of = |r: &Value| -> Vec<String> {
        let mut f: Vec<String> = r["slots"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|x| x["candidates"].as_array().unwrap().iter().map(|c| c["file"].as_str().unwrap().to_owned()))
            .collect();
        f.sort();
        f.dedup();
        f
    };
    // Default: the first skeleton where a slot binds (files in path order: the fox).
    let r = ok(&scan(json!({})));
    let skeletons: Vec<(&str, u64)> = r["skeletons"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| (k["id"].as_str().unwrap(), k["files"].as_array().unwrap().len() as u64))
        .collect();
    assert_eq!(skeletons, [("fox", 1), ("humanoid", 1)]);
    assert_eq!(r["skeleton"], "fox");
    assert_eq!(files_of(&r), ["assets/fox.glb"]);
    // The humanoid on its own: none of the fox's clips is a candidate.
    let r = ok(&scan(json!({ "skeleton": "humanoid" })));
    assert_eq!(r["skeleton"], "humanoid");
    assert_eq!(files_of(&r), ["assets/humanoid.glb"]);
    // One set over every file mixes them, as `autobind --one-set` does.
    let r = ok(&scan(json!({ "one_set": true })));
    assert!(r["skeleton"].is_null());
    assert_eq!(files_of(&r), ["assets/fox.glb", "assets/humanoid.glb"]);
    let r = scan(json!({ "skeleton": "wolf" }));
    assert_eq!(r.status, 400, "{}", r.text());
    assert!(r.text().contains("no skeleton `wolf`"), "{}", r.text());
    // Writing the fox's set uses the fox's clips only.
    let mut b = scan_body();
    b["skeleton"] = json!("fox");
    b["out"] = json!("defs/auto/fox.toml");
    let r = ok(&s.post("/api/autobind/write", &b));
    assert!(r["diagnostics"].as_array().unwrap().iter().all(|d| d["severity"] != "error"), "{r}");
    let profile = read(&s, "auto/fox_unarmed.toml");
    assert!(profile.contains("clip = \"fox_idle\"") && profile.contains("clip = \"fox_walk\""), "{profile}");
    assert!(!profile.contains("humanoid"), "{profile}");
}

#[test]
fn approved_choices_are_written_and_existing_files_need_a_confirmed_overwrite() {
    let s = Server::start();
    let write = |choices: Value, overwrite: bool| {
        let mut b = scan_body();
        b["choices"] = choices;
        b["out"] = json!("defs/auto/autobind.toml");
        b["overwrite"] = json!(overwrite);
        s.post("/api/autobind/write", &b)
    };
    // Change one slot's pick, leave one out, keep the rest.
    let choices = json!({ "locomotion_run": "assets/humanoid.glb#3", "stance_crouch": null });
    let r = ok(&write(choices.clone(), false));
    let written: Vec<&str> = r["written"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
    assert!(written.contains(&"defs/auto/autobind.toml"), "{written:?}");
    assert!(written.contains(&"defs/auto/autobind_unarmed.toml"));
    assert!(r["diagnostics"].as_array().unwrap().iter().all(|d| d["severity"] != "error"), "{r}");
    let unarmed = read(&s, "auto/autobind_unarmed.toml");
    let run_block = unarmed.split("[[slots]]").find(|b| b.contains("id = \"locomotion_run\"")).unwrap();
    assert!(run_block.contains("clip = \"humanoid_sprint\""), "{run_block}");
    assert!(!unarmed.contains("stance_crouch"));
    let set = read(&s, "auto/autobind.toml");
    assert!(set.contains("kind = \"player_profile_set\""));
    // Again: the profile files exist, so nothing is written without the user's yes.
    std::fs::write(s.defs().join("auto/autobind_unarmed.toml"), "# mine\n".to_owned() + &unarmed).unwrap();
    let r = write(json!({}), false);
    assert_eq!(r.status, 409, "{}", r.text());
    let files = r.json()["files"].as_array().unwrap().clone();
    assert!(files.contains(&json!("defs/auto/autobind_unarmed.toml")));
    assert!(read(&s, "auto/autobind_unarmed.toml").starts_with("# mine\n"));
    // Confirmed: replaced, with the default picks this time.
    ok(&write(json!({}), true));
    let unarmed = read(&s, "auto/autobind_unarmed.toml");
    assert!(!unarmed.starts_with("# mine"));
    assert!(unarmed.contains("stance_crouch") || !unarmed.contains("locomotion_run\"\nclip = \"humanoid_sprint"));
    // A choice that is not a candidate of its slot asks for a new scan.
    assert_eq!(write(json!({ "locomotion_run": "assets/humanoid.glb#99" }), true).status, 409);
    // The output stays inside defs.
    let mut b = scan_body();
    b["out"] = json!("assets/set.toml");
    assert_eq!(s.post("/api/autobind/write", &b).status, 403);
    // Nothing approved: nothing written.
    let all_out: serde_json::Map<String, Value> = ok(&s.post("/api/autobind/scan", &scan_body()))["slots"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| (x["slot"].as_str().unwrap().to_owned(), Value::Null))
        .collect();
    assert_eq!(write(Value::Object(all_out), true).status, 422);
}

// ---------------------------------------------------------------- binding browser

#[test]
fn the_binding_browser_flags_inert_bindings_per_class() {
    let s = Server::start();
    // An extra binding whose parameter the rifle graph lacks, and one routed to a missing layer.
    let rifle = read(&s, "bindings/rifle.toml");
    let extra = "\n[[bindings]]\nid = \"lean\"\nparameter = \"no_such_param\"\ntype = \"float\"\n\n\
                 [[bindings]]\nid = \"is_sprinting\"\nparameter = \"is_aiming\"\ntype = \"bool\"\nlayer = 7\n";
    std::fs::write(s.defs().join("bindings/rifle.toml"), rifle + extra).unwrap();
    let r = ok(&s.get("/api/bindings"));
    assert_eq!(r["inert_problems"].as_array().unwrap().len(), 0, "{r}");
    let set = &r["sets"][0];
    assert_eq!(set["inert_checked"], true);
    let class = |name: &str| set["classes"].as_array().unwrap().iter().find(|c| c["class"] == name).unwrap().clone();
    let rifle = class("rifle");
    assert_eq!(rifle["binding_profile"], "rifle");
    assert_eq!(rifle["animation_graph"], "humanoid_rifle");
    let binding = |c: &Value, id: &str| {
        c["profile"]["bindings"].as_array().unwrap().iter().find(|b| b["id"] == id).unwrap().clone()
    };
    let fire = binding(&rifle, "fire");
    assert_eq!(
        (fire["parameter"].as_str(), fire["type"].as_str(), fire["layer"].as_i64()),
        (Some("fire"), Some("trigger"), Some(1))
    );
    assert_eq!(fire["inert"], Value::Null);
    assert_eq!(fire["layer_name"], "upper_body", "the layer is named from the graph");
    assert!(binding(&rifle, "lean")["inert"].as_str().unwrap().contains("no_such_param"));
    assert!(binding(&rifle, "is_sprinting")["inert"].as_str().unwrap().contains("layer 7"));
    // Slots with their clip and speed (written as in the file, not as an f32 widened).
    let single = rifle["profile"]["slots"].as_array().unwrap().iter().find(|x| x["id"] == "fire_single").unwrap();
    assert_eq!((single["clip"].as_str(), single["speed"].as_f64()), (Some("fire_recoil"), Some(1.2)), "{single}");
    assert_eq!(single["additive"], true);
    // The pistol class uses the same profile and graph: the same flags.
    assert!(binding(&class("pistol"), "lean")["inert"].is_string());
    // The unarmed profile is untouched by the edit.
    assert!(binding(&class("unarmed"), "speed")["inert"].is_null());
}

#[test]
fn without_the_models_folder_the_pipeline_says_which_folder_to_pass() {
    let s = Server::start_with(false);
    let r = ok(&s.get("/api/bindings"));
    let problems = r["inert_problems"].as_array().unwrap();
    assert!(!problems.is_empty() && problems[0].as_str().unwrap().contains("--assets"), "{r}");
    assert_eq!(r["sets"][0]["inert_checked"], false);
    let r = s.post("/api/preview/run", &json!({ "preset": "locomotion_ramp" }));
    assert_eq!(r.status, 422);
    assert!(r.json()["problems"][0].as_str().unwrap().contains("outside --defs and --assets"));
    let r = s.post("/api/ik/discover", &json!({ "model": "defs/../../models/humanoid.glb" }));
    assert_eq!(r.status, 403);
}

// ---------------------------------------------------------------- IK targets

#[test]
fn ik_targets_show_roles_on_the_skeleton_and_save_overrides() {
    let s = Server::start();
    let m = ok(&s.get("/api/ik/models"));
    assert!(m["models"].as_array().unwrap().iter().any(|x| x["path"] == "assets/humanoid.glb" && x["used"] == true));
    assert_eq!(m["policies"][0]["id"], "humanoid");
    let r = ok(&s.post("/api/ik/discover", &json!({ "model": "assets/humanoid.glb", "policy": "humanoid" })));
    let names = r["joint_names"].as_array().unwrap();
    let n = names.len();
    assert_eq!(r["joint_parents"].as_array().unwrap().len(), n);
    assert_eq!(r["positions"].as_array().unwrap().len(), n);
    let joint = |role: &str| names[r["roles"][role][0].as_u64().unwrap() as usize].as_str().unwrap().to_owned();
    assert_eq!(joint("hips"), "Hips");
    assert_eq!(joint("left_foot"), "LeftFoot");
    assert_eq!(joint("head"), "Head");
    // The head sits above the hips in the rest pose (y up).
    let y = |role: &str| r["positions"][r["roles"][role][0].as_u64().unwrap() as usize][1].as_f64().unwrap();
    assert!(y("head") > y("hips") + 0.3, "head {} hips {}", y("head"), y("hips"));
    let behaviour =
        |r: &Value, p: &str| r["behaviours"].as_array().unwrap().iter().find(|b| b["policy"] == p).unwrap().clone();
    assert_eq!(behaviour(&r, "foot_plant")["runs"], true);
    assert_eq!(behaviour(&r, "climb_hand")["enabled"], false);
    assert_eq!(behaviour(&r, "climb_hand")["runs"], false);
    // The CLI agrees on every role.
    let cli = Command::new(env!("CARGO_BIN_EXE_zoa-anim"))
        .args(["ik", "--discover", "--format", "json"])
        .arg(s.root.path().join("fixtures/models/humanoid.glb"))
        .args(["--override", "left_foot=LeftFoot", "--override", "right_foot=RightFoot", "--override", "head=Head"])
        .output()
        .unwrap();
    let cli: Value = serde_json::from_slice(&cli.stdout).unwrap();
    assert_eq!(cli["roles"]["left_hand"], json!(joint("left_hand")));
    assert_eq!(r["leg_ends"], cli["leg_ends"], "where the legs end, as the CLI says");
    assert_eq!(r["leg_ends"]["left"]["bone"], "LeftFoot");
    assert!(r["rejected"].is_array());
    // Trying an override that breaks the feet: foot plant no longer runs; nothing is saved.
    let policy_before = read(&s, "rig/humanoid.toml");
    let t = ok(&s.post(
        "/api/ik/discover",
        &json!({ "model": "assets/humanoid.glb", "policy": "humanoid", "overrides": [["left_foot", "NoSuchBone"]] }),
    ));
    assert!(!t["problems"].as_array().unwrap().is_empty());
    assert_eq!(read(&s, "rig/humanoid.toml"), policy_before);
    // Saving overrides rewrites only that table.
    let version = r["policy"]["version"].as_str().unwrap().to_owned();
    let path = r["policy"]["path"].as_str().unwrap().to_owned();
    assert_eq!(path, "defs/rig/humanoid.toml");
    let saved = ok(&s.post(
        "/api/ik/save",
        &json!({ "path": path, "version": version, "overrides": [["left_foot", "LeftFoot"], ["left_hand", "LeftHand"]] }),
    ));
    let text = read(&s, "rig/humanoid.toml");
    assert!(text.contains("[bone_overrides]\nleft_foot = \"LeftFoot\"\nleft_hand = \"LeftHand\"\n"), "{text}");
    assert!(text.starts_with("kind = \"rig_policy\"\nid = \"humanoid\"\n"));
    assert_eq!(saved["diagnostics"].as_array().unwrap().iter().filter(|d| d["severity"] == "error").count(), 0);
    // The old version is stale now.
    let r = s.post("/api/ik/save", &json!({ "path": path, "version": version, "overrides": [] }));
    assert_eq!(r.status, 409);
    assert_eq!(read(&s, "rig/humanoid.toml"), text);
    // Unknown roles are refused before anything is written.
    let v = saved["version"].as_str().unwrap();
    assert_eq!(
        s.post("/api/ik/save", &json!({ "path": path, "version": v, "overrides": [["tail", "x"]] })).status,
        422
    );
    assert_eq!(s.post("/api/ik/discover", &json!({ "model": "assets/humanoid.glb", "skin": 9 })).status, 422);
}

#[test]
fn ik_targets_show_equipment_grips_on_the_skeleton_and_save_them() {
    let s = Server::start();
    let m = ok(&s.get("/api/ik/models"));
    let items: Vec<(&str, &str)> = m["equipment"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["id"].as_str().unwrap(), e["path"].as_str().unwrap()))
        .collect();
    assert_eq!(items, [("pistol", "defs/equipment/pistol.toml"), ("rifle", "defs/equipment/rifle.toml")]);
    let body = json!({ "model": "assets/humanoid.glb", "policy": "humanoid", "equipment": "rifle" });
    let g = ok(&s.post("/api/ik/grips", &body));
    let d = ok(&s.post("/api/ik/discover", &json!({ "model": "assets/humanoid.glb", "policy": "humanoid" })));
    let joint = |name: &str| d["joint_names"].as_array().unwrap().iter().position(|n| n == name).unwrap();
    assert_eq!(g["attach"]["bone"], "RightHand");
    assert_eq!(g["attach"]["joint"], joint("RightHand"));
    assert_eq!(g["attach"]["position"], d["positions"][joint("RightHand")], "the drawn skeleton's rest pose");
    assert_eq!(g["hands"], json!({ "main_hand": joint("RightHand"), "off_hand": joint("LeftHand") }));
    let e = &g["equipment"];
    assert_eq!((e["path"].as_str(), e["attach"].as_str()), (Some("defs/equipment/rifle.toml"), Some("right_hand")));
    assert_eq!(e["grips"]["main_hand"], Value::Null);
    assert_eq!(
        e["grips"]["off_hand"],
        json!({ "position": [-0.06, -0.1, 0.0], "rotation": null, "euler": null, "weight": 1.0 })
    );
    assert_eq!((e["aim"].as_bool(), e["slots"].as_u64()), (Some(true), Some(1)));
    // The fixture's rest rotations are the identity: the socket sits at hand + position.
    let hand: Vec<f64> = g["attach"]["position"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
    let at: Vec<f64> = g["markers"]["off_hand"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
    for (k, socket) in [-0.06, -0.1, 0.0].into_iter().enumerate() {
        assert!((at[k] - (hand[k] + socket)).abs() < 2e-4, "axis {k}: {at:?} vs {hand:?}");
    }
    assert_eq!(g["markers"]["main_hand"], Value::Null);

    // Saving rewrites the idle sockets only; comments, aim and slots stay.
    let (path, version) = (e["path"].as_str().unwrap(), e["version"].as_str().unwrap().to_owned());
    let before = read(&s, "equipment/rifle.toml");
    let grips = json!({ "off_hand": { "position": [-0.05, -0.1, 0.01], "euler": [10.0, 0.0, 0.0], "weight": 0.8 } });
    let saved = ok(&s.post("/api/ik/grips/save", &json!({ "path": path, "version": version, "grips": grips })));
    let text = read(&s, "equipment/rifle.toml");
    assert!(
        text.contains("[grips.off_hand]\nposition = [-0.05, -0.1, 0.01]\neuler = [10.0, 0.0, 0.0]\nweight = 0.8\n"),
        "{text}"
    );
    assert!(text.starts_with(before.split("[grips.off_hand]").next().unwrap()), "the head of the file is kept: {text}");
    assert!(text.contains("[aim.off_hand]") && text.contains("slot = \"reload_magazine\""), "{text}");
    assert_eq!(saved["diagnostics"].as_array().unwrap().len(), 0, "{saved}");
    let again = ok(&s.post("/api/ik/grips", &body));
    let off = &again["equipment"]["grips"]["off_hand"];
    assert_eq!(off["position"], json!([-0.05, -0.1, 0.01]));
    assert_eq!((off["euler"][0].as_f64(), off["weight"].as_f64()), (Some(10.0), Some(0.8)));
    // The version the page had is stale now: refused, nothing written.
    let r = s.post("/api/ik/grips/save", &json!({ "path": path, "version": version, "grips": {} }));
    assert_eq!(r.status, 409, "{}", r.text());
    assert_eq!(read(&s, "equipment/rifle.toml"), text);
    // Grips go into an equipment definition only; unknown items and bad numbers are refused.
    let rig = file(&s, "defs/rig/humanoid.toml");
    let r = s.post(
        "/api/ik/grips/save",
        &json!({ "path": "defs/rig/humanoid.toml", "version": rig["version"], "grips": grips }),
    );
    assert_eq!(r.status, 422, "{}", r.text());
    assert!(
        r.json()["error"].as_str().unwrap().contains("grip sockets go into an equipment definition"),
        "{}",
        r.text()
    );
    let v = saved["version"].as_str().unwrap();
    let bad = json!({ "off_hand": { "position": [0.0, 0.0, 0.0], "weight": 3.0 } });
    assert_eq!(s.post("/api/ik/grips/save", &json!({ "path": path, "version": v, "grips": bad })).status, 422);
    assert_eq!(read(&s, "equipment/rifle.toml"), text);
    let unknown = json!({ "model": "assets/humanoid.glb", "equipment": "sword" });
    assert_eq!(s.post("/api/ik/grips", &unknown).status, 404);
}

// ---------------------------------------------------------------- wizard

#[test]
fn the_wizard_previews_then_writes_a_binding_profile() {
    let s = Server::start();
    let v = ok(&s.get("/api/vocabulary"));
    assert!(v["bindings"].as_array().unwrap().contains(&json!({ "id": "fire", "type": "trigger" })));
    assert!(v["slots"].as_array().unwrap().contains(&json!("reload_magazine")));
    assert!(v["class_slots"]["rifle"].as_array().unwrap().contains(&json!("reload_magazine")));
    assert!(v["clips"].as_array().unwrap().contains(&json!("walk")));
    let mut draft = json!({
        "id": "hero",
        "display_name": "Hero",
        "bindings": [{ "id": "fire", "parameter": "Fire", "type": "trigger", "layer": 1 },
                     { "id": "speed", "parameter": "Speed", "type": "int" }],
        "slots": [{ "id": "reload_magazine", "clip": "reload" }]
    });
    let path = "defs/bindings/hero.toml";
    let p = ok(&s.post("/api/wizard/preview", &json!({ "draft": draft, "path": path })));
    assert!(p["toml"].as_str().unwrap().contains("id = \"hero\""));
    assert_eq!(p["exists"], false);
    // `speed` is shipped as a float: the issue tray shows it at its line.
    let e = &p["diagnostics"].as_array().unwrap().iter().find(|d| d["severity"] == "error").unwrap().clone();
    let line = p["toml"].as_str().unwrap().lines().position(|l| l == "type = \"int\"").unwrap() + 1;
    assert_eq!(e["line"].as_u64(), Some(line as u64), "{e}");
    assert!(!s.defs().join("bindings/hero.toml").exists(), "preview writes nothing");
    draft["bindings"][1]["type"] = json!("float");
    let p = ok(&s.post("/api/wizard/preview", &json!({ "draft": draft, "path": path })));
    assert_eq!(p["errors"], 0, "{p}");
    let w = ok(&s.post("/api/wizard/write", &json!({ "draft": draft, "path": path })));
    assert_eq!(w["errors"], 0);
    assert_eq!(read(&s, "bindings/hero.toml"), p["toml"].as_str().unwrap());
    // Writing again is refused until confirmed.
    draft["display_name"] = json!("Hero 2");
    let r = s.post("/api/wizard/write", &json!({ "draft": draft, "path": path }));
    assert_eq!(r.status, 409);
    assert!(read(&s, "bindings/hero.toml").contains("display_name = \"Hero\"\n"));
    ok(&s.post("/api/wizard/write", &json!({ "draft": draft, "path": path, "overwrite": true })));
    assert!(read(&s, "bindings/hero.toml").contains("display_name = \"Hero 2\"\n"));
    // The written profile loads in the folder.
    let list = ok(&s.get("/api/defs"));
    let f = list["files"].as_array().unwrap().iter().find(|f| f["path"] == path).unwrap().clone();
    assert_eq!((f["kind"].as_str(), f["errors"].as_u64()), (Some("binding_profile"), Some(0)));
}

// ---------------------------------------------------------------- preview lab

#[test]
fn the_preview_lab_runs_presets_and_exports_the_capture() {
    let s = Server::start();
    let p = ok(&s.get("/api/presets"));
    let ids: Vec<&str> = p["presets"].as_array().unwrap().iter().map(|x| x["id"].as_str().unwrap()).collect();
    assert_eq!(
        ids,
        [
            "chooser",
            "crouch_walk_sync",
            "force_state",
            "hit_and_die",
            "locomotion_ramp",
            "rifle_equip",
            "rifle_fire_cycle"
        ]
    );
    assert_eq!(p["profile_sets"], json!(["player"]));
    let ramp = &p["presets"][4];
    assert!(ramp["steps"].as_array().unwrap().iter().any(|s| s == "wait 1 s"), "{ramp}");
    let run = ok(&s.post("/api/preview/run", &json!({ "preset": "locomotion_ramp", "rate": 30 })));
    let ticks = run["ticks"].as_array().unwrap();
    let joints = run["joint_names"].as_array().unwrap().len();
    let duration = ramp["duration"].as_f64().unwrap();
    assert_eq!(ticks.len(), (duration * 30.0).round() as usize + 1);
    assert_eq!(ticks[0]["joints"].as_array().unwrap().len(), joints * 3);
    assert_eq!(run["binding_names"].as_array().unwrap().len(), ticks[0]["bindings"].as_array().unwrap().len());
    // The skeleton moves: some joint travels between the first tick and a later one.
    let at = |i: usize| ticks[i]["joints"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect::<Vec<_>>();
    let moved = at(0).iter().zip(at(60)).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
    assert!(moved > 0.05, "largest joint motion {moved}");
    // Binding curves follow the preset (speed rises to 6.5).
    let speed = run["binding_names"].as_array().unwrap().iter().position(|n| n == "speed").unwrap();
    let top = ticks.iter().filter_map(|t| t["bindings"][speed].as_f64()).fold(0.0, f64::max);
    assert_eq!(top, 6.5);
    // The exports are the CLI's files.
    let json_export = s.post("/api/preview/export", &json!({ "preset": "locomotion_ramp", "format": "json" }));
    assert_eq!(json_export.status, 200);
    assert!(json_export.header("content-disposition").unwrap().contains("locomotion_ramp-capture.json"));
    let cli = Command::new(env!("CARGO_BIN_EXE_zoa-anim"))
        .args(["preview", "--preset", "locomotion_ramp", "--format", "json", "--defs"])
        .arg(s.defs())
        .output()
        .unwrap();
    assert_eq!(json_export.json(), serde_json::from_slice::<Value>(&cli.stdout).unwrap());
    let csv = s.post("/api/preview/export", &json!({ "preset": "locomotion_ramp", "format": "csv" }));
    assert!(csv.text().starts_with("tick,time,step,"));
    assert_eq!(csv.header("content-type"), Some("text/csv"));
    for f in ["timeline", "frames"] {
        let png = s.post("/api/preview/export", &json!({ "preset": "hit_and_die", "format": f }));
        assert_eq!(png.status, 200);
        assert_eq!(png.header("content-type"), Some("image/png"));
        assert_eq!(&png.body[..8], b"\x89PNG\r\n\x1a\n");
    }
    // Bad requests.
    assert_eq!(s.post("/api/preview/run", &json!({ "preset": "nope" })).status, 400);
    assert_eq!(s.post("/api/preview/run", &json!({ "preset": "locomotion_ramp", "rate": 0 })).status, 400);
    assert_eq!(s.post("/api/preview/run", &json!({ "preset": "locomotion_ramp", "rate": 1e9 })).status, 400);
    assert_eq!(s.post("/api/preview/export", &json!({ "preset": "locomotion_ramp", "format": "gif" })).status, 400);
}

#[test]
fn the_lab_shows_each_ticks_pose_inputs_sound_cues_and_ik_goals_as_the_capture_records_them() {
    let s = Server::start();
    let run = ok(&s.post("/api/preview/run", &json!({ "preset": "locomotion_ramp", "rate": 30 })));
    assert_eq!(run["sound"], json!({ "profile": "human", "problem": null }));
    assert_eq!(run["ground"], 0.0);
    let cli = Command::new(env!("CARGO_BIN_EXE_zoa-anim"))
        .args(["preview", "--preset", "locomotion_ramp", "--format", "json", "--defs"])
        .arg(s.defs())
        .output()
        .unwrap();
    let capture: Value = serde_json::from_slice(&cli.stdout).unwrap();
    let (lab, cap) = (run["ticks"].as_array().unwrap(), capture["ticks"].as_array().unwrap());
    assert_eq!(lab.len(), cap.len());
    let r4 = |v: &Value| (v.as_f64().unwrap() * 1e4).round() / 1e4;
    let (mut inputs, mut cues, mut goals) = (0, 0, 0);
    for (l, c) in lab.iter().zip(cap) {
        // Pose inputs: [stack, stack_layer, part, layer, state or row, clip, weight, clip_time, mode, mask].
        let ks = c["contributions"].as_array().unwrap();
        assert_eq!(l["contributions"].as_array().unwrap().len(), ks.len());
        for (a, k) in l["contributions"].as_array().unwrap().iter().zip(ks) {
            let what = if k["part"] == "state" { k["state"].clone() } else { k["row"].clone() };
            let want = json!([k["stack"], k["stack_layer"], k["part"], k["layer"], what, k["clip"]]);
            assert_eq!(a.as_array().unwrap()[..6], want.as_array().unwrap()[..], "{a} vs {k}");
            assert_eq!((r4(&a[6]), r4(&a[7])), (r4(&k["weight"]), r4(&k["clip_time"])), "{a} vs {k}");
            assert_eq!((&a[8], &a[9]), (&k["mode"], &k["mask"]));
            inputs += 1;
        }
        // Sound cues: [time, event, outcome, entry_event, variant_file, bus, gain].
        for (a, k) in l["sounds"].as_array().unwrap().iter().zip(c["sounds"].as_array().unwrap()) {
            let want = json!([k["time"], k["event"], k["outcome"], k["entry_event"], k["clip"], k["bus"]]);
            assert_eq!(a.as_array().unwrap()[..6], want.as_array().unwrap()[..]);
            cues += 1;
        }
        assert_eq!(l["sounds"].as_array().unwrap().len(), c["sounds"].as_array().unwrap().len());
        // IK goals: [behaviour, side, joint, [x, y, z], weight, error].
        for (a, k) in l["ik"].as_array().unwrap().iter().zip(c["ik"].as_array().unwrap()) {
            assert_eq!((&a[0], &a[1], &a[2]), (&k["behaviour"], &k["side"], &k["joint"]));
            assert!((a[5].as_f64().unwrap() - k["error"].as_f64().unwrap()).abs() < 1e-9);
            goals += 1;
        }
        assert_eq!(l["tags"], c["selector"]["tags"]);
        assert_eq!(l["switch_alpha"], c["switch_alpha"]);
    }
    assert!(inputs > lab.len() && cues >= 8 && goals > 100, "{inputs} inputs, {cues} cues, {goals} goals");
}

#[test]
fn presets_too_long_for_the_lab_are_refused_before_running() {
    let s = Server::start();
    let long = "kind = \"preview_preset\"\nid = \"long\"\nname = \"Long\"\nsteps = [ { wait = 3000.0 } ]\n";
    std::fs::write(s.defs().join("presets/long.toml"), long).unwrap();
    let r = s.post("/api/preview/run", &json!({ "preset": "long", "rate": 30 }));
    assert_eq!(r.status, 400, "{}", r.text());
    assert!(r.json()["error"].as_str().unwrap().contains("zoa-anim preview"));
}

#[test]
fn a_missing_folder_is_a_usage_failure_before_listening() {
    let dir = zoa_test_support::paths::temp_dir("serve-missing");
    let out = Command::new(env!("CARGO_BIN_EXE_zoa-anim"))
        .args(["serve", "--port", "0", "--defs"])
        .arg(dir.path().join("nope"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot be reached"), "{out:?}");
    assert!(out.stdout.is_empty(), "no address is printed");
}

#[test]
fn the_lab_plays_the_profile_set_chosen_and_the_browser_checks_every_set() {
    let s = Server::start();
    // A second set, sorting first, whose default class has no graph: the
    // first-by-id default cannot play it; choosing `player` can.
    std::fs::write(
        s.defs().join("player/aaa.toml"),
        "kind = \"player_profile_set\"\nid = \"aaa\"\ndefault_profile = \"unarmed\"\n\n\
         [[profiles]]\nclass = \"unarmed\"\nbinding_profile = \"unarmed\"\n",
    )
    .unwrap();
    let p = ok(&s.get("/api/presets"));
    assert_eq!(p["profile_sets"], json!(["aaa", "player"]));
    let r = s.post("/api/preview/run", &json!({ "preset": "locomotion_ramp" }));
    assert_eq!(r.status, 422, "{}", r.text());
    let run = ok(&s.post("/api/preview/run", &json!({ "preset": "locomotion_ramp", "profile_set": "player" })));
    assert!(run["ticks"].as_array().unwrap().len() > 100);
    assert_eq!(s.post("/api/preview/run", &json!({ "preset": "locomotion_ramp", "profile_set": "zzz" })).status, 400);
    let b = ok(&s.get("/api/bindings"));
    let sets = b["sets"].as_array().unwrap();
    assert_eq!(sets.len(), 2);
    assert_eq!((sets[0]["id"].as_str(), sets[0]["inert_checked"].as_bool()), (Some("aaa"), Some(false)));
    assert_eq!((sets[1]["id"].as_str(), sets[1]["inert_checked"].as_bool()), (Some("player"), Some(true)));
    assert!(b["inert_problems"][0].as_str().unwrap().starts_with("set `aaa`: "), "{b}");
}

// ---------------------------------------------------------------- budgets and jobs

/// A Workbench on a valid folder whose rig has 1,000 joints.
fn big_rig_server() -> Server {
    let root = zoa_test_support::paths::temp_dir("serve-bigrig");
    let defs = zoa_test_support::paths::chain_defs(root.path(), 1000, &[("long", 600.0), ("mid", 60.0)]);
    let models = root.path().join("models");
    Server::start_in(root, &defs, &[models])
}

#[test]
fn the_lab_refuses_ticks_times_joints_over_its_budget_and_stays_under_1_gib() {
    let s = big_rig_server();
    // 18,003 ticks (under the Lab's 20,000) on 1,000 joints: refused before it runs.
    let r = s.post("/api/preview/run", &json!({ "preset": "long", "rate": 30 }));
    assert_eq!(r.status, 400, "{}", r.text());
    let v = r.json();
    assert_eq!(v["over_budget"], true, "{v}");
    let message = v["error"].as_str().unwrap();
    assert!(message.contains("the budget `lab.run_bytes` is 128 MiB") && message.contains("1000 joints"), "{message}");
    // The same preset from the command line is refused by its capture budget.
    let cli = Command::new(env!("CARGO_BIN_EXE_zoa-anim"))
        .args(["preview", "--preset", "long", "--format", "json", "--defs"])
        .arg(s.root.path().join("defs"))
        .output()
        .unwrap();
    assert_eq!(cli.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&cli.stdout).contains("preview.capture_bytes"));
    // Runs within the budget, two at once, keep the server well under 1 GiB.
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| {
                let run = ok(&s.post("/api/preview/run", &json!({ "preset": "mid", "rate": 30 })));
                assert_eq!(run["ticks"].as_array().unwrap().len(), 60 * 30 + 1);
                assert_eq!(run["ticks"][0]["joints"].as_array().unwrap().len(), 3000);
            });
        }
    });
    if let Some((_, peak)) = s.memory_kib() {
        assert!(peak < 1 << 20, "peak RSS {peak} KiB");
        eprintln!("note: Workbench peak RSS {} MiB after two runs at the budget", peak >> 10);
    }
    assert_eq!(ok(&s.get("/api/jobs"))["running"], 0);
}

#[test]
fn a_run_whose_client_goes_away_is_cancelled_and_frees_its_slot() {
    let s = big_rig_server();
    let body = json!({ "preset": "mid", "rate": 30 });
    let started = std::time::Instant::now();
    let connection = s.post_unanswered("/api/preview/run", &body);
    // The job is running while its client waits.
    let running = serve_support::eventually(30, || (ok(&s.get("/api/jobs"))["running"] == 1).then_some(()));
    assert!(running.is_some(), "the job started");
    drop(connection);
    // Once the client is gone the job stops between two ticks and frees its slot.
    let stopped = serve_support::eventually(30, || {
        let j = ok(&s.get("/api/jobs"));
        (j["running"] == 0 && j["cancelled"].as_u64().unwrap() >= 1).then_some(())
    });
    assert!(stopped.is_some(), "{}", s.get("/api/jobs").text());
    let cancelled_after = started.elapsed();
    // A full run of the same preset takes longer than the cancelled one lived.
    let t = std::time::Instant::now();
    ok(&s.post("/api/preview/run", &body));
    eprintln!("note: cancelled after {cancelled_after:?}; a full run takes {:?}", t.elapsed());
}

// ---------------------------------------------------------------- refused writes touch nothing

/// Every folder and file under `dir`, sorted.
fn listing(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            if e.file_type().unwrap().is_dir() {
                stack.push(e.path());
            }
            out.push(e.path());
        }
    }
    out.sort();
    out
}

#[test]
fn refused_writes_create_no_folder_and_no_file() {
    let s = Server::start();
    let before = listing(&s.defs());
    let text = "kind = \"binding_profile\"\nid = \"x\"\n";
    // A stale save, a delete of nothing, an IK save of nothing, a new file whose id would not load.
    let r = s.post("/api/save", &json!({ "path": "defs/new/deeper/x.toml", "text": text, "version": "0-0" }));
    assert_eq!(r.status, 409, "{}", r.text());
    let r = s.post("/api/delete", &json!({ "path": "defs/gone/x.toml", "version": "0-0", "confirm": true }));
    assert_eq!(r.status, 409, "{}", r.text());
    let r = s.post("/api/ik/save", &json!({ "path": "defs/nope/rig.toml", "version": "0-0", "overrides": [] }));
    assert_eq!(r.status, 404, "{}", r.text());
    let bad = "kind = \"binding_profile\"\nid = \"Bad Id\"\n";
    let r = s.post("/api/save", &json!({ "path": "defs/fresh/bad.toml", "text": bad, "version": null }));
    assert_eq!(r.status, 422, "{}", r.text());
    assert_eq!(r.json()["declaration"], true);
    assert!(r.json()["error"].as_str().unwrap().contains("invalid id `Bad Id`"), "{}", r.text());
    let r = s.post("/api/save", &json!({ "path": "defs/fresh/nokind.toml", "text": "id = \"a\"\n", "version": null }));
    assert_eq!(r.status, 422, "{}", r.text());
    let draft = json!({ "id": "", "bindings": [], "slots": [] });
    let r = s.post("/api/wizard/write", &json!({ "draft": draft, "path": "defs/wiz/w.toml" }));
    assert_eq!(r.status, 422, "{}", r.text());
    assert_eq!(listing(&s.defs()), before, "nothing was created");
}

#[test]
fn the_ik_save_writes_only_into_a_rig_policy() {
    let s = Server::start();
    let path = "defs/clips/idle.toml";
    let f = file(&s, path);
    let before = read(&s, "clips/idle.toml");
    let r = s.post(
        "/api/ik/save",
        &json!({ "path": path, "version": f["version"], "overrides": [["left_foot", "foot_l"]] }),
    );
    assert_eq!(r.status, 422, "{}", r.text());
    assert!(r.json()["error"].as_str().unwrap().contains("not a `rig_policy`"), "{}", r.text());
    assert_eq!(read(&s, "clips/idle.toml"), before);
    // The rig policy itself still takes them.
    let rig = file(&s, "defs/rig/humanoid.toml");
    let r = s.post(
        "/api/ik/save",
        &json!({ "path": "defs/rig/humanoid.toml", "version": rig["version"], "overrides": [["head", "head"]] }),
    );
    assert_eq!(r.status, 200, "{}", r.text());
}

#[test]
fn duplicate_refuses_an_empty_invalid_identical_or_taken_id() {
    let s = Server::start();
    let before = listing(&s.defs());
    let dup = |id: &str| {
        s.post(
            "/api/duplicate",
            &json!({ "path": "defs/bindings/rifle.toml", "new_path": "defs/copies/r.toml", "new_id": id }),
        )
    };
    for (id, want) in [
        ("", "must not be empty"),
        ("   ", "must not be empty"),
        ("Bad Id!", "invalid id"),
        ("rifle", "other than `rifle`"),
    ] {
        let r = dup(id);
        assert_eq!(r.status, 422, "{id:?}: {}", r.text());
        assert!(r.json()["error"].as_str().unwrap().contains(want), "{id:?}: {}", r.text());
    }
    // `unarmed` is already a binding profile's id (validate's E011).
    let r = dup("unarmed");
    assert_eq!(r.status, 409, "{}", r.text());
    assert_eq!(r.json()["duplicate_id"], true);
    assert!(r.json()["error"].as_str().unwrap().contains("defs/bindings/unarmed.toml"), "{}", r.text());
    assert_eq!(listing(&s.defs()), before, "nothing was written");
    ok(&dup("rifle_two"));
    assert!(s.defs().join("copies/r.toml").is_file());
}

#[cfg(unix)]
#[test]
fn the_listing_never_reads_through_a_symlink_that_leaves_defs() {
    let s = Server::start();
    let outside = s.root.path().join("secret.toml");
    std::fs::write(&outside, "kind = \"clip\"\nid = \"secret_id\"\nsource = \"x.glb\"\n").unwrap();
    std::os::unix::fs::symlink(&outside, s.defs().join("leak.toml")).unwrap();
    let list = ok(&s.get("/api/defs"));
    let entry = list["files"].as_array().unwrap().iter().find(|f| f["path"] == "defs/leak.toml").unwrap().clone();
    assert_eq!((entry["kind"].clone(), entry["id"].clone()), (Value::Null, Value::Null), "{entry}");
    assert!(entry["refused"].as_str().unwrap().contains("symlink escape"), "{entry}");
    assert!(!list.to_string().contains("secret_id"), "{list}");
    // The file endpoint refuses it the same way.
    assert_eq!(s.get("/api/file?path=defs/leak.toml").status, 403);
}

#[test]
fn overview_and_coverage_of_a_large_valid_profile_answer_quickly() {
    let s = Server::start();
    let mut text = String::from("kind = \"animation_profile\"\nid = \"big\"\n[[entries]]\nclip = \"idle\"\n");
    let loco = ["idle", "walk", "run", "sprint", "strafe", "backward", "turn", "jump", "fall", "land", "swim", "climb"];
    let posture = ["standing", "crouching", "prone", "sitting", "kneeling", "mounted", "in_cover"];
    let combat = ["unarmed", "armed_pistol", "armed_rifle", "armed_shotgun", "armed_melee", "armed_heavy", "aiming"];
    let mood = ["calm", "alert", "afraid", "angry", "wounded", "exhausted", "stealthy"];
    let mut rows = 0;
    for r in ["", " reaction=hit"] {
        for l in loco {
            for p in posture {
                for c in combat {
                    for m in mood {
                        if rows < 6000 {
                            text.push_str(&format!(
                                "[[entries]]\nclip = \"idle\"\ntags = \"locomotion={l} posture={p} combat={c} mood={m}{r}\"\n"
                            ));
                            rows += 1;
                        }
                    }
                }
            }
        }
    }
    std::fs::write(s.defs().join("profiles/big.toml"), text).unwrap();
    let t = std::time::Instant::now();
    let o = ok(&s.get("/api/overview"));
    let big = o["coverage"].as_array().unwrap().iter().find(|p| p["profile"] == "big").unwrap().clone();
    assert_eq!(big["states"], 898_560, "{big}");
    let c = ok(&s.get("/api/coverage"));
    assert!(c["profiles"].as_array().unwrap().iter().any(|p| p["profile"] == "big"));
    eprintln!("note: overview and coverage of a 6,000-row profile: {:?}", t.elapsed());
}

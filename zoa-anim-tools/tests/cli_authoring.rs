//! `zoa-anim scan`, `import`, `autobind`, `neighbourhood` and `schema` run as
//! a binary: the JSON contracts, exit codes and written files.

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;
use zoa_test_support::cli::{self, arg, keys, stdout_json};
use zoa_test_support::gltf::{character, model_kinds};
use zoa_test_support::paths::{repo, shared_assets, temp_dir};

fn zoa(args: &[&str]) -> Output {
    cli::run(env!("CARGO_BIN_EXE_zoa-anim"), args)
}

#[test]
fn scan_prints_the_clip_contract_deterministically() {
    let models = repo("fixtures/models");
    let out = zoa(&["scan", arg(&models), "--format", "json", "--no-cache"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let v = stdout_json(&out);
    assert_eq!(keys(&v), ["clips", "files"]);
    assert_eq!(v["files"].as_array().unwrap().len(), 1);
    assert_eq!(keys(&v["files"][0]), ["clips", "file", "kind"]);
    assert_eq!((&v["files"][0]["kind"], &v["files"][0]["clips"]), (&Value::from("skinned"), &Value::from(14)));
    let clips = v["clips"].as_array().unwrap();
    assert_eq!(clips.len(), 14);
    for c in clips {
        assert_eq!(keys(c), ["duration", "file", "loops", "name", "root_travel"]);
        assert!(c["duration"].is_number() && c["loops"].is_boolean() && c["root_travel"].is_number());
    }
    let walk = clips.iter().find(|c| c["name"] == "walk").unwrap();
    assert_eq!(walk["duration"], 1.0);
    assert_eq!(walk["loops"], true);
    // Cached run prints the same bytes (the cache in the test's own folder).
    let tmp = temp_dir("scan-cached");
    let cache = tmp.path().join("scan-cache.json");
    let again = zoa(&["scan", arg(&models), "--format", "json", "--cache", arg(&cache)]);
    let third = zoa(&["scan", arg(&models), "--format", "json", "--cache", arg(&cache)]);
    assert!(cache.is_file());
    assert_eq!(again.stdout, third.stdout);
    assert_eq!(stdout_json(&again), v);
}

#[test]
fn scan_exit_codes() {
    assert_eq!(zoa(&["scan", "/no/such/root", "--format", "json"]).status.code(), Some(2));
    let tmp = temp_dir("scan-bad");
    let dir = tmp.path();
    std::fs::write(dir.join("broken.glb"), b"glTF nope").unwrap();
    std::fs::copy(repo("fixtures/models/humanoid.glb"), dir.join("ok.glb")).unwrap();
    let out = zoa(&["scan", arg(dir), "--no-cache"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("broken.glb"));
    assert!(String::from_utf8_lossy(&out.stdout).contains("14 clip(s) in 1 file(s), 1 unreadable: 1 skinned"));
}

#[test]
fn scan_says_which_models_are_skinned_animation_only_or_static() {
    let tmp = temp_dir("scan-kinds");
    let dir = tmp.path();
    for (name, doc) in model_kinds() {
        std::fs::write(dir.join(name), doc.to_glb()).unwrap();
    }
    let out = zoa(&["scan", arg(dir), "--format", "json", "--no-cache"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let v = stdout_json(&out);
    let files: Vec<(String, &str, u64)> = v["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let name = Path::new(f["file"].as_str().unwrap()).file_name().unwrap().to_string_lossy().into_owned();
            (name, f["kind"].as_str().unwrap(), f["clips"].as_u64().unwrap())
        })
        .collect();
    assert_eq!(
        files,
        [
            ("anim.glb".to_owned(), "animation_only", 1),
            ("hat.glb".to_owned(), "static", 0),
            ("skinned.glb".to_owned(), "skinned", 1)
        ]
    );
    // The static prop has no clip rows; the others keep theirs.
    assert_eq!(v["clips"].as_array().unwrap().len(), 2);
    let human = String::from_utf8_lossy(&zoa(&["scan", arg(dir), "--no-cache"]).stdout).into_owned();
    let hat = human.lines().find(|l| l.contains("hat.glb")).unwrap();
    assert!(hat.ends_with("hat.glb (static)"), "{human}");
    assert!(human.lines().any(|l| l.ends_with("anim.glb (animation only)")), "{human}");
    assert!(human.lines().any(|l| l.ends_with("skinned.glb (skinned)")), "{human}");
    assert!(human.contains("2 clip(s) in 3 file(s): 1 skinned, 1 animation only, 1 static"), "{human}");
}

#[test]
fn autobind_prints_the_assignment_contract_and_writes_valid_toml() {
    let tmp = temp_dir("autobind");
    let dir = tmp.path();
    let out_file = dir.join("defs/player.toml");
    let out =
        zoa(&["autobind", arg(&repo("fixtures/models")), "--out", arg(&out_file), "--format", "json", "--no-cache"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let v = stdout_json(&out);
    assert_eq!(keys(&v), ["assignments", "skeletons"]);
    assert_eq!(v["skeletons"].as_array().unwrap().len(), 1, "one character: one skeleton, one set at --out");
    let list = v["assignments"].as_array().unwrap();
    for a in list {
        assert_eq!(keys(a), ["clip", "file", "runner_up", "score", "signals", "slot"]);
        assert!(a["runner_up"].is_null() || keys(&a["runner_up"]) == ["clip", "score"]);
        assert!(a["signals"].as_object().unwrap().values().all(Value::is_number));
    }
    let slot = |id: &str| list.iter().find(|a| a["slot"] == id).unwrap_or_else(|| panic!("{id}"));
    assert_eq!(slot("locomotion_walk")["clip"], "walk");
    assert_eq!(slot("reload_magazine")["clip"], "reload");
    assert_eq!(slot("locomotion_sprint")["runner_up"]["clip"], "run");

    let validate = zoa(&["validate", arg(&dir.join("defs")), "--format", "json"]);
    assert_eq!(validate.status.code(), Some(0), "{}", String::from_utf8_lossy(&validate.stdout));
    // Never overwrites without --force.
    let before = std::fs::read_to_string(&out_file).unwrap();
    let again = zoa(&[
        "autobind",
        arg(&repo("fixtures/models")),
        "--out",
        arg(&out_file),
        "--profile-type",
        "rifle",
        "--no-cache",
    ]);
    assert_eq!(again.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&again.stderr).contains("--force"));
    assert_eq!(std::fs::read_to_string(&out_file).unwrap(), before);
    let forced = zoa(&[
        "autobind",
        arg(&repo("fixtures/models")),
        "--out",
        arg(&out_file),
        "--profile-type",
        "rifle",
        "--force",
        "--no-cache",
    ]);
    assert_eq!(forced.status.code(), Some(0), "{}", String::from_utf8_lossy(&forced.stderr));
    assert!(std::fs::read_to_string(&out_file).unwrap().contains("default_profile = \"rifle\""));
    assert_eq!(zoa(&["autobind", "x", "--profile-type", "laser"]).status.code(), Some(2));
}

#[test]
fn autobind_out_names_a_toml_file_or_a_folder() {
    let tmp = temp_dir("autobind-out");
    let dir = tmp.path();
    let models = repo("fixtures/models");
    // A path without extension is a folder: the set is `player.toml` inside it.
    let out = zoa(&["autobind", arg(&models), "--out", arg(&dir.join("defs")), "--no-cache", "-q"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(dir.join("defs").is_dir() && dir.join("defs/player.toml").is_file());
    assert!(dir.join("defs/player_unarmed.toml").is_file());
    // An existing folder too (a name with a dot is still a folder when it exists).
    std::fs::create_dir_all(dir.join("v1.2")).unwrap();
    let out = zoa(&["autobind", arg(&models), "--out", arg(&dir.join("v1.2")), "--no-cache", "-q"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(dir.join("v1.2/player.toml").is_file());
    // Another extension is refused before anything is scanned or written.
    let out = zoa(&["autobind", arg(&models), "--out", arg(&dir.join("set.json")), "--no-cache"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not .json"), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(!dir.join("set.json").exists());
}

fn file_names(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|f| Path::new(f.as_str().unwrap()).file_name().unwrap().to_string_lossy().into_owned())
        .collect()
}

/// File names of the `source` of every clip definition a written binding profile uses.
fn sources_of_set(dir: &Path, set: &str) -> Vec<String> {
    let set_text = std::fs::read_to_string(dir.join(format!("{set}.toml"))).unwrap();
    let mut sources = Vec::new();
    for line in set_text.lines().filter(|l| l.starts_with("binding_profile = ")) {
        let profile = line.trim_start_matches("binding_profile = ").trim_matches('"');
        let text = std::fs::read_to_string(dir.join(format!("{profile}.toml"))).unwrap();
        for clip in text.lines().filter(|l| l.starts_with("clip = ")) {
            let id = clip.trim_start_matches("clip = ").trim_matches('"');
            let def = std::fs::read_to_string(dir.join(format!("{id}.toml"))).unwrap();
            let src = def.lines().find(|l| l.starts_with("source = ")).unwrap();
            let src = src.trim_start_matches("source = ").trim_matches('"');
            sources.push(Path::new(src).file_name().unwrap().to_string_lossy().into_owned());
        }
    }
    sources.sort();
    sources.dedup();
    sources
}

#[test]
fn autobind_writes_one_set_per_skeleton_unless_told_otherwise() {
    let tmp = temp_dir("autobind-skeletons");
    let dir = tmp.path();
    let models = dir.join("models");
    std::fs::create_dir_all(&models).unwrap();
    std::fs::write(models.join("knight.glb"), character("", &["Idle", "Walk"]).to_glb()).unwrap();
    std::fs::write(models.join("fox.glb"), character("b_", &["Idle", "Walk", "Run"]).to_glb()).unwrap();
    // An animation-only export of the knight's rig (no skin): joins the knight by its animated names.
    std::fs::write(models.join("knight_run.glb"), character("", &["Run"]).without_skins().to_glb()).unwrap();
    // A static prop is no skeleton at all.
    std::fs::write(models.join("hat.glb"), character("", &[]).without_skins().to_glb()).unwrap();

    let out_file = dir.join("defs/player.toml");
    let out = zoa(&["autobind", arg(&models), "--out", arg(&out_file), "--format", "json", "--no-cache"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let v = stdout_json(&out);
    assert_eq!(keys(&v), ["assignments", "skeletons"]);
    let skeletons: Vec<(&str, Vec<String>)> = v["skeletons"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            assert_eq!(keys(s), ["files", "id"]);
            (s["id"].as_str().unwrap(), file_names(&s["files"]))
        })
        .collect();
    assert_eq!(
        skeletons,
        [("fox", vec!["fox.glb".to_owned()]), ("knight", vec!["knight.glb".to_owned(), "knight_run.glb".to_owned()])]
    );
    for a in v["assignments"].as_array().unwrap() {
        assert_eq!(keys(a), ["clip", "file", "runner_up", "score", "signals", "slot"]);
    }
    // Each skeleton has its own idle and walk, and the knight's run comes from its animation-only file.
    let picks: Vec<(String, String, String)> = v["assignments"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|a| ["locomotion_idle", "locomotion_walk", "locomotion_run"].contains(&a["slot"].as_str().unwrap()))
        .map(|a| {
            let file = Path::new(a["file"].as_str().unwrap()).file_name().unwrap().to_string_lossy().into_owned();
            (a["slot"].as_str().unwrap().to_owned(), a["clip"].as_str().unwrap().to_owned(), file)
        })
        .collect();
    let pick = |slot: &str, file: &str| picks.iter().find(|p| p.0 == slot && p.2 == file).map(|p| p.1.as_str());
    assert_eq!(pick("locomotion_idle", "fox.glb"), Some("Idle"), "{picks:?}");
    assert_eq!(pick("locomotion_idle", "knight.glb"), Some("Idle"), "{picks:?}");
    assert_eq!(pick("locomotion_walk", "fox.glb"), Some("Walk"), "{picks:?}");
    assert_eq!(pick("locomotion_walk", "knight.glb"), Some("Walk"), "{picks:?}");
    assert_eq!(pick("locomotion_run", "knight_run.glb"), Some("Run"), "{picks:?}");
    assert_eq!(pick("locomotion_run", "fox.glb"), Some("Run"), "{picks:?}");

    // Two sets, named after the skeletons; neither uses a clip of the other character.
    let defs = dir.join("defs");
    assert!(!out_file.exists());
    assert_eq!(sources_of_set(&defs, "player_fox"), ["fox.glb"]);
    assert_eq!(sources_of_set(&defs, "player_knight"), ["knight.glb", "knight_run.glb"]);
    let validate = zoa(&["validate", arg(&defs), "--format", "json"]);
    assert_eq!(validate.status.code(), Some(0), "{}", String::from_utf8_lossy(&validate.stdout));

    // Again without --force: refused, nothing changed (all or nothing).
    let before = std::fs::read_to_string(defs.join("player_fox.toml")).unwrap();
    std::fs::remove_file(defs.join("player_knight.toml")).unwrap();
    let again = zoa(&["autobind", arg(&models), "--out", arg(&out_file), "--no-cache"]);
    assert_eq!(again.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&again.stderr).contains("--force"));
    assert!(!defs.join("player_knight.toml").exists(), "a refused run wrote nothing");
    assert_eq!(std::fs::read_to_string(defs.join("player_fox.toml")).unwrap(), before);
    let forced = zoa(&["autobind", arg(&models), "--out", arg(&out_file), "--no-cache", "--force", "-q"]);
    assert_eq!(forced.status.code(), Some(0), "{}", String::from_utf8_lossy(&forced.stderr));
    assert!(defs.join("player_knight.toml").is_file());

    // --one-set: today's single set over every file (it mixes the characters).
    let one = dir.join("one/player.toml");
    let out = zoa(&["autobind", arg(&models), "--out", arg(&one), "--one-set", "--no-cache"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let written: Vec<String> = std::fs::read_dir(dir.join("one"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("player"))
        .collect();
    assert_eq!(written.len(), 2, "{written:?}");
    assert!(one.is_file());
    let human = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(human.contains("slot(s) bound from 6 clip(s)\n"), "{human}");
}

/// Two characters with different skeletons in one real asset folder (the
/// glTF sample Fox and greenman): each gets its own set.
#[test]
fn autobind_keeps_real_characters_apart() {
    let Some(assets) = shared_assets() else { return };
    let tmp = temp_dir("autobind-real");
    let out_file = tmp.path().join("defs/player.toml");
    let out = zoa(&["autobind", arg(&assets), "--out", arg(&out_file), "--format", "json", "--no-cache"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let v = stdout_json(&out);
    let ids: Vec<&str> = v["skeletons"].as_array().unwrap().iter().map(|s| s["id"].as_str().unwrap()).collect();
    for id in ["fox", "greenman", "cesiumman", "riggedfigure"] {
        assert!(ids.contains(&id), "{ids:?}");
    }
    // Every skeleton's files share bones with nobody else's: one file each here
    // (greenman's hat, shield and sword are static props, no skeleton).
    for s in v["skeletons"].as_array().unwrap() {
        assert_eq!(s["files"].as_array().unwrap().len(), 1, "{s}");
    }
    let defs = tmp.path().join("defs");
    assert_eq!(sources_of_set(&defs, "player_fox"), ["Fox.glb"]);
    assert_eq!(sources_of_set(&defs, "player_greenman"), ["greenman.glb"]);
    let validate = zoa(&["validate", arg(&defs), "--format", "json"]);
    assert_eq!(validate.status.code(), Some(0), "{}", String::from_utf8_lossy(&validate.stdout));
}

#[test]
fn import_cuts_clips_and_reimport_writes_nothing() {
    let tmp = temp_dir("import");
    let dir = tmp.path();
    std::fs::copy(repo("fixtures/models/humanoid.glb"), dir.join("hero.glb")).unwrap();
    let out = zoa(&["import", arg(&dir.join("hero.glb")), "--format", "json"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let v = stdout_json(&out);
    assert_eq!(v["clips"].as_array().unwrap().len(), 14);
    assert!(v["clips"].as_array().unwrap().iter().all(|c| c["action"] == "written"));
    assert!(dir.join("hero_walk.toml").is_file());
    let again = stdout_json(&zoa(&["import", arg(&dir.join("hero.glb")), "--format", "json"]));
    assert!(again["clips"].as_array().unwrap().iter().all(|c| c["action"] == "skipped_exists"));
    assert_eq!(zoa(&["validate", arg(dir)]).status.code(), Some(0));
    // An animation-only file nobody's skeleton matches: exit 1, nothing written.
    let lonely_tmp = temp_dir("import-lonely");
    let lonely = lonely_tmp.path();
    let gltf = r#"{"asset":{"version":"2.0"},"nodes":[{"name":"Nobody"}],
        "buffers":[{"uri":"data:application/octet-stream;base64,AAAAAAAAgD8AAAAAAAAAAAAAAAAAAIA/AAAAAAAAAAAAAAAAAACAPw==","byteLength":40}],
        "bufferViews":[{"buffer":0,"byteLength":8},{"buffer":0,"byteOffset":8,"byteLength":32}],
        "accessors":[{"bufferView":0,"componentType":5126,"count":2,"type":"SCALAR","min":[0],"max":[1]},
                     {"bufferView":1,"componentType":5126,"count":2,"type":"VEC4"}],
        "animations":[{"name":"a","channels":[{"sampler":0,"target":{"node":0,"path":"rotation"}}],"samplers":[{"input":0,"output":1}]}]}"#;
    std::fs::write(lonely.join("anim.gltf"), gltf).unwrap();
    let out = zoa(&["import", arg(&lonely.join("anim.gltf"))]);
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stderr).contains("nothing written"));
    assert!(!lonely.join("anim_a.toml").exists());
}

#[test]
fn neighbourhood_lists_related_files_without_writing() {
    let tmp = temp_dir("neighbourhood");
    let dir = tmp.path();
    for d in ["chars", "chars/Animations", "chars/Sounds", "audio/hero", "chars/unrelated"] {
        std::fs::create_dir_all(dir.join(d)).unwrap();
    }
    std::fs::copy(repo("fixtures/models/humanoid.glb"), dir.join("chars/hero.glb")).unwrap();
    std::fs::copy(repo("fixtures/models/humanoid.glb"), dir.join("chars/Animations/extra.glb")).unwrap();
    std::fs::write(dir.join("chars/Sounds/step.wav"), b"RIFF").unwrap();
    std::fs::write(dir.join("audio/hero/grunt.ogg"), b"OggS").unwrap();
    std::fs::write(dir.join("chars/unrelated/far.wav"), b"RIFF").unwrap();
    std::fs::write(
        dir.join("chars/hero_walk.toml"),
        "kind = \"clip\"\nid = \"hero_walk\"\nsource = \"hero.glb\"\nanimation = \"walk\"\n",
    )
    .unwrap();
    let before: Vec<_> = walk(dir);
    let out = zoa(&["neighbourhood", arg(&dir.join("chars/hero.glb")), "--format", "json"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let v = stdout_json(&out);
    let clips = v["clips"].as_array().unwrap();
    assert_eq!(clips.iter().filter(|c| c["source"] == "embedded").count(), 14);
    assert_eq!(clips.iter().filter(|c| c["source"] == "file").count(), 14);
    assert!(clips.iter().any(|c| c["source"] == "definition" && c["id"] == "hero_walk"));
    let sounds: Vec<&str> = v["sounds"].as_array().unwrap().iter().map(|f| f["file"].as_str().unwrap()).collect();
    assert_eq!(sounds.len(), 2, "{sounds:?}");
    assert!(sounds.iter().any(|f| f.ends_with("step.wav")) && sounds.iter().any(|f| f.ends_with("grunt.ogg")));
    assert_eq!(v["definitions"].as_array().unwrap().len(), 1);
    assert_eq!(walk(dir), before, "a pure scan writes nothing");
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        if e.path().is_dir() {
            out.extend(walk(&e.path()));
        } else {
            out.push(e.path());
        }
    }
    out.sort();
    out
}

#[test]
fn schema_writes_one_file_per_kind_and_matches_the_committed_copy() {
    let tmp = temp_dir("schema");
    let dir = tmp.path();
    let out = zoa(&["schema", "--out", arg(dir), "--format", "json"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(stdout_json(&out)["written"].as_array().unwrap().len(), 11);
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let text = std::fs::read_to_string(e.path()).unwrap();
        let v: Value = serde_json::from_str(&text).unwrap();
        assert!(v["$schema"].as_str().unwrap().contains("draft-07"));
        let committed = repo("schemas").join(e.file_name());
        assert_eq!(
            std::fs::read_to_string(&committed).ok().as_deref(),
            Some(text.as_str()),
            "schemas/{} is stale: run `zoa-anim schema --out schemas`",
            e.file_name().to_string_lossy()
        );
    }
}

#[test]
fn validate_coverage_adds_a_coverage_key_and_keeps_the_exit_code() {
    let folder = repo("fixtures/defs/humanoid");
    let plain = stdout_json(&zoa(&["validate", arg(&folder), "--format", "json"]));
    let out = zoa(&["validate", arg(&folder), "--format", "json", "--coverage"]);
    assert_eq!(out.status.code(), Some(0));
    let v = stdout_json(&out);
    assert_eq!(keys(&v["coverage"]), ["cross_modal", "profiles"]);
    let cov = v["coverage"]["profiles"].as_array().unwrap();
    assert_eq!(cov.len(), 3);
    for p in cov {
        assert_eq!(p["unresolved"], 0);
        assert!(p["fallback_only"].as_u64().unwrap() > 0);
    }
    // Everything else is the plain validate output.
    let mut without = v.clone();
    without.as_object_mut().unwrap().remove("coverage");
    assert_eq!(without, plain);
    let uncovered = zoa(&["validate", arg(&repo("fixtures/invalid/W004-uncovered-state")), "--coverage"]);
    assert_eq!(uncovered.status.code(), Some(0), "warnings only");
    assert!(String::from_utf8_lossy(&uncovered.stdout).contains("to nothing: `any`"));
}

#[test]
fn validate_coverage_reports_cross_modal_gaps_per_event_slot_and_class() {
    let folder = repo("fixtures/defs/humanoid");
    let out = zoa(&["validate", arg(&folder), "--format", "json", "--coverage"]);
    assert_eq!(out.status.code(), Some(0));
    let v = stdout_json(&out);
    let rows = v["coverage"]["cross_modal"].as_array().unwrap();
    for r in rows {
        assert_eq!(keys(r), ["class", "clip", "id", "kind", "sound"]);
        assert!(r["clip"].is_boolean() && r["sound"].is_boolean());
        assert!(r["kind"] == "event" || r["kind"] == "slot");
    }
    let row = |id: &str, class: &str| {
        rows.iter().find(|r| r["id"] == id && r["class"] == class).unwrap_or_else(|| panic!("{id} {class}")).clone()
    };
    // The fire row and the fire sound are tagged `armed_rifle`: the rifle has both;
    // the pistol (same binding profile and graph) has the clip because its graph
    // plays `fire` (steady -> recoil), not the sound; unarmed declares no fire.
    assert_eq!(
        (row("fire", "rifle")["clip"].clone(), row("fire", "rifle")["sound"].clone()),
        (true.into(), true.into())
    );
    assert_eq!(
        (row("fire", "pistol")["clip"].clone(), row("fire", "pistol")["sound"].clone()),
        (true.into(), false.into())
    );
    // No false clip gaps: every event and slot a class's graph, tag rows or
    // binding profile plays counts (rifle `equip` is the graph's lowered -> raise).
    let clip_gaps: Vec<String> = rows
        .iter()
        .filter(|r| r["clip"] == false)
        .map(|r| format!("{} {} {}", r["kind"], r["id"], r["class"]))
        .collect();
    assert!(clip_gaps.is_empty(), "{clip_gaps:?}");
    let has = |id: &str, class: &str| rows.iter().any(|r| r["id"] == id && r["class"] == class);
    assert!(!has("fire", "unarmed"), "unarmed is not expected to fire");
    assert_eq!(row("die", "unarmed")["kind"], "event");
    // Footsteps are untagged: every class that declares the walk slot has the sound.
    let walk = row("locomotion_walk", "unarmed");
    assert_eq!(
        (walk["kind"].as_str(), walk["clip"].as_bool(), walk["sound"].as_bool()),
        (Some("slot"), Some(true), Some(true))
    );
    assert!(!has("locomotion_walk", "rifle"), "a rifle set has no locomotion slots");
    // The pistol shares the rifle's reload slot, but the reload sound is tagged `armed_rifle`.
    assert_eq!(
        (row("reload_magazine", "pistol")["clip"].as_bool(), row("reload_magazine", "pistol")["sound"].as_bool()),
        (Some(true), Some(false))
    );
    // The whole table is data: frozen (see the test's assertions for what it must say).
    let table: String = rows
        .iter()
        .map(|r| {
            format!(
                "{:<24} {:<5} {:<8} clip={:<5} sound={}\n",
                r["id"].as_str().unwrap(),
                r["kind"].as_str().unwrap(),
                r["class"].as_str().unwrap(),
                r["clip"],
                r["sound"]
            )
        })
        .collect();
    insta::assert_snapshot!(table);
    // Human output: the gap table.
    let human = String::from_utf8_lossy(&zoa(&["validate", arg(&folder), "--coverage"]).stdout).into_owned();
    assert!(human.contains("cross-modal coverage"), "{human}");
    let gap = human.lines().find(|l| l.trim_start().starts_with("fire ") && l.contains("pistol")).unwrap();
    assert!(gap.contains("no") && gap.contains("(no `weapon.fire` entry)"), "{gap}");
}

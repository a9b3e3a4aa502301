//! The front door's load call: a good folder becomes a definition; a broken
//! one fails with every diagnostic, located, and nothing cascades from the
//! broken file; a missing folder says so.

use std::path::{Path, PathBuf};

use zoa_animation::LoadError;
use zoa_test_support::paths::{copy_dir, fixture, temp_dir};

/// A copy of the fixture humanoid (definitions and model) in a fresh temporary
/// folder, laid out as in the repository; returns the definition folder.
fn humanoid_copy(tmp: &Path) -> PathBuf {
    let defs = tmp.join("defs/humanoid");
    copy_dir(&fixture("defs/humanoid"), &defs);
    std::fs::create_dir_all(tmp.join("models")).unwrap();
    std::fs::copy(fixture("models/humanoid.glb"), tmp.join("models/humanoid.glb")).unwrap();
    defs
}

#[test]
fn the_fixture_folder_loads_into_a_definition() {
    let def = zoa_animation::load(fixture("defs/humanoid")).unwrap();
    assert!(def.clips().len() >= 10, "{def:?}");
    assert!(def.player_set().is_some());
}

#[test]
fn a_broken_file_fails_the_load_naming_file_line_and_code_once() {
    let tmp = temp_dir("front-door-broken");
    let defs = humanoid_copy(tmp.path());
    let run = defs.join("clips/run.toml");
    let text = std::fs::read_to_string(&run).unwrap();
    std::fs::write(&run, text.replace("loop = true", "loop = tru")).unwrap();

    let err = zoa_animation::load(&defs).unwrap_err();
    let LoadError::Invalid { diagnostics, .. } = &err else { panic!("{err}") };
    let shown = err.to_string();
    // The broken file itself: its path, line and column, the code and the source line.
    let syntax = diagnostics.iter().find(|d| d.code == "E003").expect("a TOML syntax error");
    assert_eq!(syntax.file, Path::new("clips/run.toml"));
    let at = format!("clips/run.toml:{}:{}", syntax.line, syntax.column);
    assert!(shown.contains(&at) && shown.contains("E003") && shown.contains("loop = tru"), "{shown}");
    // No cascade: nothing elsewhere says the clip `run` is missing; one note lists the references.
    assert!(!diagnostics.iter().any(|d| d.code == "E012"), "{shown}");
    assert!(!diagnostics.iter().any(|d| d.code == "E021"), "{shown}");
    let notes: Vec<_> = diagnostics.iter().filter(|d| d.code == "I005").collect();
    assert_eq!(notes.len(), 1, "{shown}");
    assert!(notes[0].message.contains("clip `run`"), "{}", notes[0].message);
    // `Debug` is the same readable report (what `.unwrap()` prints).
    assert_eq!(format!("{err:?}"), shown);
    assert!(shown.lines().count() > 3, "{shown}");
}

#[test]
fn a_missing_folder_says_the_folder_is_missing() {
    let tmp = temp_dir("front-door-missing");
    let nowhere = tmp.path().join("no/such/folder");
    let err = zoa_animation::load(&nowhere).unwrap_err();
    assert!(matches!(err, LoadError::MissingFolder { .. }), "{err:?}");
    let shown = err.to_string();
    assert!(shown.contains("does not exist") && shown.contains("no/such/folder"), "{shown}");
}

#[test]
fn a_missing_model_names_the_path_it_looked_for() {
    let tmp = temp_dir("front-door-no-model");
    let defs = humanoid_copy(tmp.path());
    std::fs::remove_file(tmp.path().join("models/humanoid.glb")).unwrap();
    let err = zoa_animation::load(&defs).unwrap_err();
    let looked_for = std::path::absolute(tmp.path().join("models/humanoid.glb")).unwrap();
    let e014: Vec<_> = err.diagnostics().iter().filter(|d| d.code == "E014").collect();
    assert!(!e014.is_empty(), "{err}");
    assert!(e014[0].message.contains(&looked_for.display().to_string()), "{}", e014[0].message);
}

#[test]
fn a_clean_folder_that_makes_no_character_is_an_e021_error() {
    let err = zoa_animation::load(fixture("invalid/E021-character-setup")).unwrap_err();
    let e021: Vec<_> = err.diagnostics().iter().filter(|d| d.code == "E021").collect();
    assert_eq!(e021.len(), 1, "{err}");
    assert!(e021[0].message.contains("no clip definitions"), "{err}");
    assert!(err.to_string().contains("in the definition folder"), "{err}");
}

#[test]
fn an_unknown_player_set_lists_the_ones_the_folder_has() {
    let err = zoa_animation::Loader::new().player_set("nope").load(fixture("defs/humanoid")).unwrap_err();
    let shown = err.to_string();
    assert!(shown.contains("E021") && shown.contains("`nope`") && shown.contains("player"), "{shown}");
}

/// Models are decoded by the folder check and reused by the character: once
/// validated, the folder compiles without reading any model again.
#[test]
fn models_are_decoded_once_per_load() {
    let tmp = temp_dir("front-door-decode-once");
    let defs = humanoid_copy(tmp.path());
    let checked = zoa_animation::validate(&defs);
    assert_eq!(checked.error_count(), 0, "{}", checked.render(false));
    std::fs::remove_file(tmp.path().join("models/humanoid.glb")).unwrap();
    let def = zoa_animation::Loader::new().load_validated(&checked).unwrap();
    assert!(def.skeleton().joint_count() > 10);
}

//! Auto-binder: intended picks on the fixture humanoid and the shared assets,
//! score breakdowns, and a written profile set that `load_folder` accepts.

use std::path::PathBuf;

use zoa_anim_assets::authoring::autobind::{AutoBindOptions, autobind};
use zoa_anim_assets::authoring::scan::scan_roots;
use zoa_anim_assets::authoring::write::{bind_classes, write_profile_set};
use zoa_anim_assets::defs::{Severity, load_folder};
use zoa_anim_core::PlayerProfileType;
use zoa_test_support::paths::{fixture, shared_assets, temp_dir};

fn fixture_models() -> PathBuf {
    fixture("models")
}

/// Every slot the fixture's binding profiles fill, with the clip they use.
const FIXTURE_SLOTS: &[(&str, &str)] = &[
    ("locomotion_idle", "idle"),
    ("locomotion_walk", "walk"),
    ("locomotion_run", "run"),
    ("locomotion_sprint", "sprint"),
    ("locomotion_crouch_idle", "crouch_idle"),
    ("locomotion_crouch_walk", "crouch_walk"),
    ("locomotion_jump", "jump_start"),
    ("locomotion_fall", "fall"),
    ("locomotion_land", "land"),
    ("hit_react", "hit_react"),
    ("death", "death"),
    ("reload_magazine", "reload"),
    ("fire_auto", "fire_recoil"),
    ("fire_single", "fire_recoil"),
];

#[test]
fn picks_the_fixture_humanoid_clip_for_every_covered_slot() {
    let report = scan_roots(&[fixture_models()]).unwrap();
    let result = autobind(&report, &AutoBindOptions::default());
    for (slot, clip) in FIXTURE_SLOTS {
        let a = result.assignment(slot).unwrap_or_else(|| panic!("{slot} unassigned"));
        assert_eq!(a.best().clip, *clip, "{slot}: {:#?}", &a.candidates[..a.candidates.len().min(3)]);
        let sum: f32 = a.best().signals.values().sum();
        assert!((sum - a.best().score).abs() < 0.01, "{slot}: score is the sum of its signals");
        assert!(a.best().signals.get("alias").copied().unwrap_or(0.0) > 0.0, "{slot}: named by its clip");
    }
    // A clip naming a slot only weakly loses to the exact one and is the runner-up.
    let sprint = result.assignment("locomotion_sprint").unwrap();
    assert_eq!(sprint.runner_up().map(|c| c.clip.as_str()), Some("run"));
    // Contradictions: `crouch_walk` is a candidate nowhere near `locomotion_walk`'s top.
    let walk = result.assignment("locomotion_walk").unwrap();
    if let Some(c) = walk.candidates.iter().find(|c| c.clip == "crouch_walk") {
        assert!(c.signals["contradiction"] < 0.0);
        assert!(c.score < walk.best().score);
    }
    // rifle_aim names no slot and is bound nowhere.
    assert!(result.assignments.iter().all(|a| a.best().clip != "rifle_aim"));
}

#[test]
fn rifle_profile_type_binds_weapon_slots_only() {
    let report = scan_roots(&[fixture_models()]).unwrap();
    let opts = AutoBindOptions { profile_type: Some(PlayerProfileType::Rifle), ..Default::default() };
    let result = autobind(&report, &opts);
    assert_eq!(result.assignment("reload_magazine").unwrap().best().clip, "reload");
    assert_eq!(result.assignment("fire_single").unwrap().best().clip, "fire_recoil");
    assert!(result.assignment("locomotion_walk").is_none());
    // Hands move, feet do not: the weapon-handling motion hint fires for reload.
    assert!(result.assignment("reload_magazine").unwrap().best().signals["motion"] > 0.0);
}

#[test]
fn picks_shared_asset_clips_where_a_slot_clearly_fits() {
    let Some(assets) = shared_assets() else { return };
    let report = scan_roots(&[assets]).unwrap();
    let result = autobind(&report, &AutoBindOptions::default());
    let best = |slot: &str| {
        let a = result.assignment(slot).unwrap_or_else(|| panic!("{slot} unassigned"));
        let b = a.best();
        (b.file.file_name().unwrap().to_string_lossy().into_owned(), b.clip.clone())
    };
    assert_eq!(best("locomotion_walk"), ("Fox.glb".into(), "Walk".into()));
    assert_eq!(best("locomotion_run"), ("Fox.glb".into(), "Run".into()));
    assert_eq!(best("locomotion_idle"), ("greenman.glb".into(), "1_idle".into()));
    // greenman's 2_move fits a locomotion slot (walk and run are taken by exact names).
    let move_slots: Vec<&str> =
        result.assignments.iter().filter(|a| a.candidates.iter().any(|c| c.clip == "2_move")).map(|a| a.slot).collect();
    assert!(move_slots.iter().all(|s| s.starts_with("locomotion_")) && !move_slots.is_empty(), "{move_slots:?}");
    assert_eq!(best("melee_attack"), ("greenman.glb".into(), "3_attack".into()));
    // An attack naming no weapon is unarmed melee: it stays in the unarmed set
    // and makes no rifle set of its own.
    let classes = zoa_anim_assets::authoring::write::class_bindings(&report, &result);
    let unarmed = classes.iter().find(|c| c.class == PlayerProfileType::Unarmed).unwrap();
    assert!(unarmed.assignments.iter().any(|a| a.slot == "melee_attack"));
    assert!(
        classes.iter().all(|c| c.class == PlayerProfileType::Unarmed),
        "{:?}",
        classes.iter().map(|c| c.class).collect::<Vec<_>>()
    );
}

#[test]
fn writes_a_profile_set_that_validates_and_never_overwrites_without_force() {
    let tmp = temp_dir("autobind-write");
    let dir = tmp.path();
    let report = scan_roots(&[fixture_models()]).unwrap();
    let (_, classes) = bind_classes(&report, &AutoBindOptions::default());
    assert_eq!(
        classes.iter().map(|c| c.class).collect::<Vec<_>>(),
        [PlayerProfileType::Unarmed, PlayerProfileType::Rifle]
    );
    let out = dir.join("player.toml");
    let written = write_profile_set(&report, &classes, &out, false).unwrap();
    assert_eq!(written.profiles.len(), 3);
    assert!(!written.clips_written.is_empty());
    let set = load_folder(dir);
    let errors: Vec<_> = set.diagnostics.iter().filter(|d| d.severity == Severity::Error).collect();
    assert!(errors.is_empty(), "{errors:#?}");
    let pset = set.player_profile_set("player").expect("the set loads");
    assert_eq!(pset.default_profile, PlayerProfileType::Unarmed);
    assert_eq!(pset.profiles.len(), 2);
    let unarmed = set.binding_profile("player_unarmed").unwrap();
    use zoa_anim_core::AnimationBindingProfile;
    assert_eq!(
        unarmed.slots().iter().find(|s| s.id.as_str() == "locomotion_walk").unwrap().clip_reference,
        "humanoid_walk"
    );

    // Edited by hand, then re-run: refused without force, file untouched.
    std::fs::write(&out, "# edited\n").unwrap();
    let again = write_profile_set(&report, &classes, &out, false);
    assert!(again.is_err());
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "# edited\n");
    write_profile_set(&report, &classes, &out, true).unwrap();
    assert!(std::fs::read_to_string(&out).unwrap().contains("player_profile_set"));
}

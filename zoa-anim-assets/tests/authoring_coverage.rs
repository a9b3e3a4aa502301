//! Coverage report: fallback-only, default-only and unresolved states, and
//! rows that can never win, on the fixture folders.

use std::path::{Path, PathBuf};

use zoa_anim_assets::authoring::coverage::coverage;
use zoa_anim_assets::defs::load_folder;
use zoa_test_support::paths::temp_dir;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures")
}

#[test]
fn humanoid_profiles_resolve_every_state() {
    let set = load_folder(&fixtures().join("defs/humanoid"));
    let report = coverage(&set);
    assert_eq!(report.profiles.len(), set.animation_profiles.len());
    for p in &report.profiles {
        assert!(p.error.is_none());
        assert_eq!(p.unresolved, 0, "{}: {:?}", p.profile, p.unresolved_examples);
        assert_eq!(p.exact + p.fallback_only + p.default_only + p.unresolved, p.states_checked);
        assert!(p.exact > 0 && p.fallback_only > 0, "{}", p.profile);
    }
}

#[test]
fn shadowed_row_never_wins() {
    let set = load_folder(&fixtures().join("invalid/W001-shadowed-row"));
    let report = coverage(&set);
    let dead: Vec<_> = report.profiles.iter().flat_map(|p| &p.dead_rows).collect();
    assert!(!dead.is_empty());
    assert!(dead.iter().all(|d| d.beaten_by != "nothing"));
}

#[test]
fn uncovered_states_are_reported_as_unresolved() {
    let set = load_folder(&fixtures().join("invalid/W004-uncovered-state"));
    let report = coverage(&set);
    assert!(report.has_gaps());
    let p = &report.profiles[0];
    assert!(p.unresolved > 0);
    // The state with no locomotion flag is one of them.
    assert!(p.unresolved_examples.iter().any(|s| s.to_string() == "any"));
}

#[test]
fn catch_all_row_without_locomotion_tag_beats_the_untagged_default() {
    let tmp = temp_dir("authoring-coverage");
    let dir = tmp.path();
    std::fs::write(
        dir.join("profile.toml"),
        "kind = \"animation_profile\"\nid = \"p\"\n\n[[entries]]\nclip = \"idle\"\n\n\
         [[entries]]\ntags = \"locomotion=walk\"\nclip = \"walk\"\n\n\
         [[entries]]\ntags = \"reaction=hit\"\nclip = \"hit\"\n",
    )
    .unwrap();
    let report = coverage(&load_folder(dir));
    let p = &report.profiles[0];
    // `reaction=hit` has no locomotion tag: once reaction is relaxed it matches
    // every state, so the untagged row never wins and nothing is unresolved.
    assert_eq!(p.dead_rows.len(), 1, "{:#?}", p.dead_rows);
    assert_eq!((p.dead_rows[0].pattern.as_str(), p.dead_rows[0].clip.as_str()), ("any", "idle"));
    assert!(p.dead_rows[0].beaten_by.contains("reaction=hit"));
    assert_eq!((p.default_only, p.unresolved), (0, 0));
    assert_eq!(p.fallback_examples.first().map(ToString::to_string).as_deref(), Some("any"));
}

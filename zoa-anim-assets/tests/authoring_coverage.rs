//! Coverage report: fallback-only, default-only and unresolved states, and
//! rows that can never win, on the fixture folders.

use std::path::{Path, PathBuf};

use zoa_anim_assets::authoring::coverage::coverage;
use zoa_anim_assets::defs::load_folder;

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
    let base = report.profiles.iter().find(|p| p.profile == "humanoid_base").unwrap();
    // Tagged rows without a locomotion tag (reaction=hit, …) match every state
    // once the other dimensions are relaxed, so the untagged row never wins.
    assert!(base.dead_rows.iter().any(|d| d.pattern == "any" && d.clip == "idle"), "{:#?}", base.dead_rows);
    assert_eq!(base.default_only, 0);
    // Enumeration starts at the empty state, which no row matches exactly.
    assert_eq!(base.fallback_examples.first().map(ToString::to_string).as_deref(), Some("any"));
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

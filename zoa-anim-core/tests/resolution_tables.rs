//! Snapshot tests of whole resolution tables: a ~20-row humanoid profile
//! resolved for 40 states, and the same for a child profile that inherits
//! from it. A change in resolution semantics shows up as a reviewed diff.

use std::fmt::Write;

use zoa_anim_core::inheritance::{InheritedRow, flatten_chain};
use zoa_anim_core::resolver::{MatchKind, resolve_best_match};
use zoa_anim_core::{AnimationProfile, StateTagSet, TaggedClipEntry};

fn row(tags: &str, clip: &str, weight: f32) -> TaggedClipEntry {
    TaggedClipEntry { weight, ..TaggedClipEntry::new(tags.parse().unwrap(), clip) }
}

fn base_profile() -> AnimationProfile {
    AnimationProfile {
        id: "humanoid_base".into(),
        entries: vec![
            row("", "idle", 1.0),
            row("locomotion=idle", "idle", 1.0),
            row("locomotion=walk", "walk", 1.0),
            row("locomotion=run combat=armed_rifle", "rifle_run", 1.0),
            row("locomotion=sprint posture=standing combat=unarmed", "sprint_unarmed", 1.0),
            row("locomotion=idle posture=crouching", "crouch_idle", 1.0),
            row("locomotion=walk posture=crouching", "crouch_walk", 1.0),
            row("locomotion=jump", "jump_start", 1.0),
            row("locomotion=fall", "fall", 1.0),
            row("locomotion=land", "land", 1.0),
            row("locomotion=idle combat=armed_rifle", "rifle_idle", 1.0),
            row("locomotion=idle combat=armed_rifle|aiming", "rifle_aim", 1.0),
            row("locomotion=walk combat=armed_rifle|aiming", "rifle_aim_walk", 1.0),
            row("locomotion=idle combat=armed_rifle|reloading", "reload", 1.0),
            row("locomotion=sprint mood=calm", "sprint_calm", 1.0),
            row("locomotion=sprint mood=afraid", "sprint_panic", 2.0),
            row("locomotion=idle reaction=hit", "hit_react", 1.0),
            row("locomotion=idle reaction=dead", "death", 1.0),
            row("locomotion=walk mood=wounded", "walk_wounded", 1.0),
            row("locomotion=walk interaction=carrying", "walk_carry", 1.0),
            row("locomotion=idle interaction=talking mood=calm", "talk_calm", 1.0),
        ],
        parent: None,
        procedural_fallbacks_allowed: true,
        default_idle_clip: Some("idle".into()),
        pick: None,
        range_crossfade: None,
    }
}

fn child_profile() -> AnimationProfile {
    AnimationProfile {
        id: "humanoid_wounded".into(),
        entries: vec![
            row("locomotion=walk", "limp", 1.0),
            row("locomotion=run combat=armed_rifle", "limp_fast", 1.0),
            row("locomotion=idle", "clutch_side", 1.0),
            row("locomotion=sprint mood=wounded", "stagger_run", 1.0),
        ],
        parent: Some("humanoid_base".into()),
        procedural_fallbacks_allowed: false,
        default_idle_clip: Some("clutch_side".into()),
        pick: None,
        range_crossfade: None,
    }
}

const STATES: [&str; 40] = [
    "locomotion=idle",
    "locomotion=walk",
    "locomotion=run",
    "locomotion=sprint",
    "locomotion=swim",
    "any",
    "locomotion=idle posture=standing",
    "locomotion=idle posture=crouching",
    "locomotion=walk posture=crouching",
    "locomotion=run posture=crouching",
    "locomotion=sprint posture=crouching",
    "locomotion=jump posture=standing",
    "locomotion=fall mood=afraid",
    "locomotion=land reaction=staggered",
    "locomotion=idle combat=armed_rifle",
    "locomotion=idle combat=armed_rifle|aiming",
    "locomotion=walk combat=armed_rifle|aiming",
    "locomotion=run combat=armed_rifle|aiming",
    "locomotion=idle combat=armed_rifle|reloading",
    "locomotion=idle combat=armed_rifle|aiming|reloading",
    "locomotion=idle combat=armed_pistol|aiming",
    "locomotion=sprint mood=calm",
    "locomotion=sprint mood=alert",
    "locomotion=sprint mood=afraid",
    "locomotion=sprint mood=calm|afraid",
    "locomotion=sprint posture=standing combat=armed_rifle|aiming mood=alert",
    "locomotion=sprint combat=armed_rifle mood=calm",
    "locomotion=idle reaction=hit",
    "locomotion=idle reaction=hit|staggered mood=wounded",
    "locomotion=walk reaction=hit",
    "locomotion=idle reaction=dead",
    "locomotion=walk mood=wounded",
    "locomotion=walk mood=wounded|exhausted",
    "locomotion=run mood=wounded",
    "locomotion=walk interaction=carrying",
    "locomotion=walk interaction=carrying mood=wounded",
    "locomotion=idle interaction=talking mood=calm",
    "locomotion=idle interaction=talking mood=angry",
    "locomotion=idle posture=crouching combat=armed_rifle|aiming",
    "locomotion=sprint|strafe mood=wounded",
];

fn kind(k: MatchKind) -> String {
    match k {
        MatchKind::Exact => "exact".into(),
        MatchKind::Fallback { step } => format!("step {step}"),
        MatchKind::Default => "default".into(),
    }
}

fn table(rows: &[InheritedRow<TaggedClipEntry>]) -> String {
    let mut out = String::new();
    writeln!(
        out,
        "{:<72} | {:>3} | {:<14} | {:>4} | {:<9} | {:<24} | source",
        "state", "row", "clip", "spec", "match", "relaxed"
    )
    .unwrap();
    for text in STATES {
        let state: StateTagSet = text.parse().unwrap();
        match resolve_best_match(rows, state) {
            Some(r) => writeln!(
                out,
                "{:<72} | {:>3} | {:<14} | {:>4} | {:<9} | {:<24} | {}",
                text,
                r.row,
                rows[r.row].row.clip,
                r.specificity,
                kind(r.kind),
                r.relaxed().to_string(),
                rows[r.row].source
            )
            .unwrap(),
            None => writeln!(out, "{text:<72} | no match").unwrap(),
        }
    }
    out
}

#[test]
fn base_profile_resolution_table() {
    let profiles = [base_profile()];
    let rows = flatten_chain(&profiles[0], |id| profiles.iter().find(|p| p.id == id)).unwrap();
    insta::assert_snapshot!(table(&rows));
}

#[test]
fn inherited_profile_resolution_table() {
    let profiles = [base_profile(), child_profile()];
    let rows = flatten_chain(&profiles[1], |id| profiles.iter().find(|p| p.id == id)).unwrap();
    // Child rows with the same pattern replace the parent's; the rest stay live.
    assert_eq!(rows.len(), base_profile().entries.len() + 1);
    insta::assert_snapshot!(table(&rows));
}

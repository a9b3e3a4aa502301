use zoa_anim_core::{CoreError, SoundEventEntry, StateTagSet};
use zoa_audio_profile::{AudioError, ResolveOptions, SoundTable, resolve};

use crate::common::{entry, id, profile, table, tags};

const HIER: ResolveOptions = ResolveOptions { hierarchical: true };
const FLAT: ResolveOptions = ResolveOptions { hierarchical: false };

fn winner(t: &SoundTable, event: &str, state: &str, surface: Option<&str>, o: ResolveOptions) -> Option<usize> {
    t.resolve(id(event), tags(state), surface, o).map(|m| m.entry)
}

#[test]
fn filters_by_event_id() {
    let t = table(vec![entry("vocal.hurt", "", None, "a"), entry("footstep", "", None, "b")]);
    assert_eq!(winner(&t, "footstep", "", None, HIER), Some(1));
    assert_eq!(winner(&t, "vocal.death", "", None, FLAT), None);
    assert_eq!(winner(&t, "land", "", None, HIER), None);
}

#[test]
fn tag_filter_must_be_a_subset_of_the_state() {
    let t = table(vec![entry("footstep", "locomotion=run", None, "run"), entry("footstep", "", None, "any")]);
    assert_eq!(winner(&t, "footstep", "locomotion=run mood=alert", None, HIER), Some(0));
    assert_eq!(winner(&t, "footstep", "locomotion=walk", None, HIER), Some(1));
    // An empty filter matches the empty state too.
    assert_eq!(winner(&t, "footstep", "", None, HIER), Some(1));
}

#[test]
fn no_state_fallback_walk_for_sound() {
    // The clip resolver would relax mood and pick this row; sound does plain subset matching.
    let t = table(vec![entry("vocal.hurt", "locomotion=sprint mood=calm", None, "calm")]);
    assert_eq!(winner(&t, "vocal.hurt", "locomotion=sprint mood=alert", None, HIER), None);
}

#[test]
fn surface_rules() {
    let t = table(vec![
        entry("footstep", "locomotion=walk posture=standing", None, "tagged_no_surface"),
        entry("footstep", "", Some("grass"), "grass"),
        entry("footstep", "", Some("metal"), "metal"),
    ]);
    let state = "locomotion=walk posture=standing";
    // A matching surface beats no surface, even with fewer tags.
    assert_eq!(winner(&t, "footstep", state, Some("grass"), HIER), Some(1));
    assert_eq!(winner(&t, "footstep", state, Some("metal"), HIER), Some(2));
    // Unknown surface or none: only surface-less entries answer.
    assert_eq!(winner(&t, "footstep", state, Some("snow"), HIER), Some(0));
    assert_eq!(winner(&t, "footstep", state, None, HIER), Some(0));
    let m = t.resolve(id("footstep"), tags(state), Some("grass"), HIER).unwrap();
    assert!(m.surface_matched);
    // Surface-tagged entries alone with no surface given: nothing.
    let only = table(vec![entry("footstep", "", Some("grass"), "grass")]);
    assert_eq!(winner(&only, "footstep", "", None, HIER), None);
}

#[test]
fn specificity_then_weight_then_order() {
    let mut heavy = entry("weapon.fire", "mood=alert", None, "heavy");
    heavy.weight = 5.0;
    let t = table(vec![
        entry("weapon.fire", "combat=armed_rifle", None, "first"),
        heavy,
        entry("weapon.fire", "posture=standing", None, "third"),
        entry("weapon.fire", "combat=armed_rifle|aiming", None, "specific"),
        entry("weapon.fire", "", None, "default"),
    ]);
    let all = "combat=armed_rifle|aiming mood=alert posture=standing";
    assert_eq!(winner(&t, "weapon.fire", all, None, HIER), Some(3));
    let m = t.resolve(id("weapon.fire"), tags(all), None, HIER).unwrap();
    assert_eq!(m.specificity, 2);
    // Equal specificity: weight.
    assert_eq!(winner(&t, "weapon.fire", "combat=armed_rifle mood=alert posture=standing", None, HIER), Some(1));
    // Equal specificity and weight: authoring order.
    assert_eq!(winner(&t, "weapon.fire", "combat=armed_rifle posture=standing", None, HIER), Some(0));
    assert_eq!(winner(&t, "weapon.fire", "locomotion=walk", None, HIER), Some(4));
}

#[test]
fn duplicate_keys_within_a_profile_are_warnings_and_the_first_wins() {
    let t = SoundTable::from_profile(&profile(
        "p",
        None,
        vec![entry("land", "mood=alert", None, "a"), entry("land", "mood=alert", None, "b")],
    ))
    .unwrap();
    assert_eq!(t.len(), 1);
    assert_eq!(t.entry(0).variants[0].clip, "a");
    assert_eq!(t.warnings().len(), 1);
    assert!(t.warnings()[0].contains("same (event, tag filter, surface) as entries[0]"), "{:?}", t.warnings());
}

#[test]
fn hierarchical_fallback_strips_segments() {
    let t = table(vec![entry("weapon", "", None, "generic"), entry("weapon.fire", "", None, "fire")]);
    let m = t.resolve(id("weapon.fire.dryclick"), StateTagSet::EMPTY, None, HIER).unwrap();
    assert_eq!((m.entry, m.event_id, m.id_levels_up), (1, id("weapon.fire"), 1));
    let m = t.resolve(id("weapon.reload.mag_in"), StateTagSet::EMPTY, None, HIER).unwrap();
    assert_eq!((m.entry, m.event_id, m.id_levels_up), (0, id("weapon"), 2));
    assert_eq!(winner(&t, "weapon.fire.dryclick", "", None, FLAT), None);
    // Children never answer a parent request; prefixes that are not segments never match.
    let t = table(vec![entry("weapon.fire.dryclick", "", None, "dry"), entry("weapon.fir", "", None, "x")]);
    assert_eq!(winner(&t, "weapon.fire", "", None, HIER), None);
}

#[test]
fn more_specific_id_beats_more_specific_tags() {
    let t = table(vec![
        entry("weapon.fire", "combat=armed_rifle|aiming mood=alert", Some("metal"), "tagged_parent"),
        entry("weapon.fire.dryclick", "", None, "plain_child"),
    ]);
    let state = "combat=armed_rifle|aiming mood=alert";
    assert_eq!(winner(&t, "weapon.fire.dryclick", state, Some("metal"), HIER), Some(1));
}

#[test]
fn falls_back_when_specific_entries_do_not_match_the_state() {
    let t = table(vec![
        entry("weapon.fire.dryclick", "combat=armed_pistol", None, "pistol_dry"),
        entry("weapon.fire", "", None, "fire"),
    ]);
    assert_eq!(winner(&t, "weapon.fire.dryclick", "combat=armed_pistol", None, HIER), Some(0));
    assert_eq!(winner(&t, "weapon.fire.dryclick", "combat=armed_rifle", None, HIER), Some(1));
}

#[test]
fn resolve_works_on_bare_entry_slices() {
    let rows: Vec<SoundEventEntry> = vec![entry("jump", "", None, "a")];
    assert_eq!(resolve(&rows, id("jump"), StateTagSet::EMPTY, None, HIER).unwrap().entry, 0);
}

#[test]
fn inheritance_overrides_on_event_filter_surface() {
    let base = profile(
        "human",
        None,
        vec![
            entry("vocal.hurt", "", None, "male_hurt"),
            entry("footstep", "", Some("grass"), "grass"),
            entry("footstep", "", None, "step"),
        ],
    );
    let female = profile(
        "human_female",
        Some("human"),
        vec![
            entry("vocal.hurt", "", None, "female_hurt"),
            // Same event and surface but a different filter: a new row, not an override.
            entry("footstep", "posture=crouching", Some("grass"), "sneak_grass"),
        ],
    );
    let all = [base, female];
    let t = SoundTable::flatten(&all[1], |i| all.iter().find(|p| p.id == i)).unwrap();
    let clips: Vec<_> = t.rows().iter().map(|r| (r.row.variants[0].clip.as_str(), r.source.as_str())).collect();
    assert_eq!(
        clips,
        vec![("female_hurt", "human_female"), ("sneak_grass", "human_female"), ("grass", "human"), ("step", "human"),]
    );
    assert_eq!(winner(&t, "vocal.hurt", "", None, HIER), Some(0));
    assert_eq!(winner(&t, "footstep", "posture=standing", Some("grass"), HIER), Some(2));
    assert_eq!(winner(&t, "footstep", "posture=crouching", Some("grass"), HIER), Some(1));
}

#[test]
fn inheritance_errors_are_reported() {
    let a = profile("a", Some("b"), vec![]);
    let b = profile("b", Some("a"), vec![]);
    let all = [a, b];
    let err = SoundTable::flatten(&all[0], |i| all.iter().find(|p| p.id == i)).unwrap_err();
    assert!(matches!(err, AudioError::Core(CoreError::InheritanceCycle { .. })), "{err}");
    let orphan = profile("o", Some("missing"), vec![]);
    let err = SoundTable::flatten(&orphan, |_| None).unwrap_err();
    assert!(matches!(err, AudioError::Core(CoreError::MissingParent { .. })), "{err}");
}

#[test]
fn validation_lists_every_problem() {
    let mut bad = entry("weapon.fire", "", None, "a.wav");
    bad.variants[0].weight = 0.0;
    bad.cooldown = -1.0;
    bad.max_distance = 0.0;
    bad.volume_jitter = 2.0;
    let mut worse = entry("land", "", Some(" "), "b.wav");
    worse.variants[0].weight = -1.0;
    worse.fade_time = f32::NAN;
    worse.pitch_jitter_semitones = 40.0;
    worse.volume = -1.0;
    let err = SoundTable::from_profile(&profile("p", None, vec![bad, worse])).unwrap_err();
    let AudioError::InvalidProfile { problems, .. } = &err else { panic!("{err}") };
    let text = problems.join("\n");
    for needle in [
        "entries[0] from `p`[0] (weapon.fire): variants: total weight must be > 0",
        "cooldown must be >= 0",
        "max_distance must be > 0",
        "volume_jitter",
        "entries[1] from `p`[1] (land): variants: a weight is negative",
        "fade_time",
        "pitch_jitter",
        "volume must be",
        "surface must not be empty",
    ] {
        assert!(text.contains(needle), "missing `{needle}` in\n{text}");
    }
    assert_eq!(problems.len(), 9, "{text}");
}

/// A profile exercising every rule, and a table of requests against it.
#[test]
fn resolution_table_snapshot() {
    let mut heavy = entry("footstep", "mood=alert", None, "alert_heavy");
    heavy.weight = 3.0;
    let base = profile(
        "human",
        None,
        vec![
            entry("footstep", "", None, "step"),
            entry("footstep", "locomotion=run", None, "run"),
            heavy,
            entry("footstep", "", Some("grass"), "grass"),
            entry("footstep", "posture=crouching", Some("grass"), "sneak_grass"),
            entry("footstep", "locomotion=run", Some("metal"), "run_metal"),
            entry("vocal", "", None, "vocal_generic"),
            entry("vocal.hurt", "mood=wounded", None, "hurt_wounded"),
            entry("weapon", "", None, "weapon_generic"),
            entry("weapon.fire", "combat=armed_rifle", None, "rifle"),
            entry("weapon.fire", "combat=armed_rifle|aiming", None, "rifle_aim"),
            entry("weapon.fire.dryclick", "combat=armed_pistol", None, "pistol_dry"),
        ],
    );
    let child = profile(
        "soldier",
        Some("human"),
        vec![entry("vocal.hurt", "mood=wounded", None, "soldier_hurt"), entry("land", "", Some("metal"), "land_metal")],
    );
    let all = [base, child];
    let t = SoundTable::flatten(&all[1], |i| all.iter().find(|p| p.id == i)).unwrap();
    let queries: &[(&str, &str, Option<&str>, bool)] = &[
        ("footstep", "locomotion=walk", None, true),
        ("footstep", "locomotion=run", None, true),
        ("footstep", "locomotion=run mood=alert", None, true),
        ("footstep", "locomotion=run", Some("grass"), true),
        ("footstep", "locomotion=run", Some("metal"), true),
        ("footstep", "locomotion=walk", Some("metal"), true),
        ("footstep", "locomotion=walk posture=crouching", Some("grass"), true),
        ("footstep.left", "locomotion=run", Some("metal"), true),
        ("footstep.left", "locomotion=run", Some("metal"), false),
        ("vocal.hurt", "mood=wounded", None, true),
        ("vocal.hurt", "mood=calm", None, true),
        ("vocal.hurt", "mood=calm", None, false),
        ("weapon.fire", "combat=armed_rifle|aiming", None, true),
        ("weapon.fire", "combat=armed_rifle", None, true),
        ("weapon.fire", "combat=armed_pistol", None, true),
        ("weapon.fire.dryclick", "combat=armed_pistol", None, true),
        ("weapon.fire.dryclick", "combat=armed_rifle", None, true),
        ("weapon.reload.mag_in", "", None, true),
        ("land", "", Some("metal"), true),
        ("land", "", None, true),
        ("jump", "", None, true),
    ];
    let mut out = String::from("event | state | surface | hierarchy => entry event_id source clip up surface spec\n");
    for (event, state, surface, hier) in queries {
        let m = t.resolve(id(event), tags(state), *surface, ResolveOptions { hierarchical: *hier });
        let result = match m {
            None => "null".to_owned(),
            Some(m) => {
                let r = &t.rows()[m.entry];
                format!(
                    "#{} {} {} {} up={} surface={} spec={}",
                    m.entry,
                    m.event_id,
                    r.source,
                    r.row.variants[0].clip,
                    m.id_levels_up,
                    m.surface_matched,
                    m.specificity
                )
            }
        };
        out.push_str(&format!(
            "{event} | {} | {} | {} => {result}\n",
            tags(state),
            surface.unwrap_or("-"),
            if *hier { "on" } else { "off" }
        ));
    }
    insta::assert_snapshot!(out);
}

mod properties {
    use proptest::prelude::*;
    use zoa_anim_core::{AudioVariant, SoundEventEntry, StateTagSet};
    use zoa_audio_profile::{ResolveOptions, SoundTable, VariantHistory, pick_variant_index};

    use crate::common::{id, profile};

    const EVENTS: [&str; 6] =
        ["footstep", "footstep.left", "weapon", "weapon.fire", "weapon.fire.dryclick", "vocal.hurt"];
    const TAGS: [&str; 6] =
        ["locomotion=run", "locomotion=walk", "mood=alert", "combat=armed_rifle", "combat=aiming", "posture=crouching"];
    const SURFACES: [Option<&str>; 3] = [None, Some("grass"), Some("metal")];

    fn set_of(bits: u8) -> StateTagSet {
        let text: Vec<&str> = (0..TAGS.len()).filter(|i| bits & (1 << i) != 0).map(|i| TAGS[i]).collect();
        // Repeated dimensions (`combat=a combat=b`) are joined by the parser or rejected; build per flag instead.
        text.iter().fold(StateTagSet::EMPTY, |acc, t| acc.union_with(&t.parse::<StateTagSet>().unwrap()))
    }

    fn rows() -> impl Strategy<Value = Vec<(usize, u8, usize, u8)>> {
        prop::collection::vec((0..EVENTS.len(), 0u8..64, 0..SURFACES.len(), 0u8..3), 0..24)
    }

    /// The rules written as "collect every candidate, sort by the documented key".
    fn reference(t: &SoundTable, event: &str, state: StateTagSet, surface: Option<&str>, hier: bool) -> Option<usize> {
        let q = id(event);
        let mut c: Vec<(usize, usize, bool, u32, f32)> = t
            .rows()
            .iter()
            .enumerate()
            .filter_map(|(i, r)| {
                let e = &r.row;
                let id_ok = if hier { q.is_within(&e.event) } else { q == e.event };
                let surf = match (&e.surface, surface) {
                    (None, _) => Some(false),
                    (Some(a), Some(b)) if a == b => Some(true),
                    _ => None,
                }?;
                (id_ok && e.tag_filter.is_subset_of(&state))
                    .then(|| (i, e.event.depth(), surf, e.tag_filter.specificity(), e.weight))
            })
            .collect();
        c.sort_by(|a, b| {
            b.1.cmp(&a.1).then(b.2.cmp(&a.2)).then(b.3.cmp(&a.3)).then(b.4.total_cmp(&a.4)).then(a.0.cmp(&b.0))
        });
        c.first().map(|x| x.0)
    }

    proptest! {
        #[test]
        fn resolve_equals_the_sorted_reference(
            spec in rows(),
            event in 0..EVENTS.len(),
            state in 0u8..64,
            surface in 0..SURFACES.len(),
            hier in any::<bool>(),
        ) {
            let mut seen = std::collections::HashSet::new();
            let entries: Vec<SoundEventEntry> = spec
                .iter()
                .filter(|(e, f, s, _)| seen.insert((*e, *f, *s)))
                .map(|&(e, f, s, w)| {
                    let mut x = SoundEventEntry::new(id(EVENTS[e]), "a.wav");
                    x.tag_filter = set_of(f);
                    x.surface = SURFACES[s].map(str::to_owned);
                    x.weight = w as f32;
                    x
                })
                .collect();
            // Distinct generated keys can still collapse to one tag set; keep the first.
            let mut keys = std::collections::HashSet::new();
            let entries: Vec<_> = entries.into_iter().filter(|e| keys.insert((e.event, e.tag_filter, e.surface.clone()))).collect();
            let t = SoundTable::from_profile(&profile("p", None, entries)).unwrap();
            let st = set_of(state);
            let got = t.resolve(id(EVENTS[event]), st, SURFACES[surface], ResolveOptions { hierarchical: hier }).map(|m| m.entry);
            prop_assert_eq!(got, reference(&t, EVENTS[event], st, SURFACES[surface], hier));
        }

        #[test]
        fn picks_follow_cumulative_weights(weights in prop::collection::vec(0u8..4, 1..8), r in 0.0f32..1.0) {
            let vs: Vec<AudioVariant> = weights.iter().map(|&w| AudioVariant { clip: "a".into(), weight: w as f32 }).collect();
            let total: f32 = vs.iter().map(|v| v.weight).sum();
            match pick_variant_index(&vs, r) {
                Err(_) => prop_assert!(total <= 0.0),
                Ok(i) => {
                    prop_assert!(vs[i].weight > 0.0);
                    let before: f32 = vs[..i].iter().map(|v| v.weight).sum();
                    prop_assert!(before <= r * total + 1e-4 && r * total < before + vs[i].weight + 1e-4);
                }
            }
        }

        #[test]
        fn avoid_repeat_never_picks_a_blocked_variant(rs in prop::collection::vec(0.0f32..1.0, 1..60), n in 0u32..5) {
            let vs: Vec<AudioVariant> = (0..5).map(|_| AudioVariant { clip: "a".into(), weight: 1.0 }).collect();
            let mut h = VariantHistory::new();
            let mut picks: Vec<usize> = Vec::new();
            for r in rs {
                let p = h.pick(&vs, r, n).unwrap();
                let window = (n as usize).min(picks.len());
                prop_assert!(!picks[picks.len() - window..].contains(&p));
                picks.push(p);
            }
        }
    }
}

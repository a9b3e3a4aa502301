//! The clip-time features on the fixture humanoid: its sync group keeps walk
//! and crouch-walk in step, its windows read as `in_window` with one end per
//! begin through everything a character does, payloads reach gameplay and
//! the sound bridge, and float curves blend with the clip's weight and drive
//! hand-on-weapon IK.

mod character_common;

use character_common::*;
use zoa_anim_core::{DefaultBindings, DefaultSlots, PlayerProfileType, StateTagSet};
use zoa_anim_runtime::character::graph::ClipId;
use zoa_anim_runtime::character::{
    CharacterEventReceiver, EventKind, SoundBridge, SoundCue, SoundCueKind, SoundCueSink,
};
use zoa_anim_runtime::{Character, Event};

fn rifle() -> Character {
    let def = definition(&fixture_bundle());
    Character::spawn(&def, Some(PlayerProfileType::Rifle), StateTagSet::EMPTY).unwrap()
}

/// Runs `seconds` of 60 Hz frames, keeping every event.
fn run_keeping(c: &mut Character, seconds: f32, log: &mut Vec<Event>) {
    for _ in 0..(seconds * 60.0).round() as usize {
        c.update(1.0 / 60.0).unwrap();
        log.extend_from_slice(c.events());
        c.clear_events();
    }
}

/// Every window's events alternate begin, end per (source, clip, notify), and
/// what is left open is what the character says is open.
fn assert_paired(c: &Character, log: &[Event]) {
    let mut open = Vec::new();
    for e in log {
        match e.kind {
            EventKind::NotifyBegin { source, clip, notify } => {
                assert!(!open.contains(&(source, clip, notify)), "{e} begins twice");
                open.push((source, clip, notify));
            }
            EventKind::NotifyEnd { source, clip, notify, .. } => {
                let k = open.iter().position(|o| *o == (source, clip, notify));
                open.remove(k.unwrap_or_else(|| panic!("{e} ends a window that is not open")));
            }
            _ => {}
        }
    }
    let mut now: Vec<_> = c.open_windows().map(|w| (w.source, w.clip, w.notify)).collect();
    now.sort_by_key(|w| format!("{w:?}"));
    open.sort_by_key(|w| format!("{w:?}"));
    assert_eq!(now, open);
}

#[test]
fn walk_and_crouch_walk_keep_their_feet_in_step_through_the_fixtures_sync_group() {
    let def = definition(&fixture_bundle());
    let mut c = Character::new(&def).unwrap(); // no tags: the graph's base layer shows
    c.set_speed(1.5);
    run(&mut c, 1.3);
    c.set_bool(DefaultBindings::IS_CROUCHING, true);
    let clips = def.clips();
    let (walk, crouch) = (clips.index_of("walk").unwrap(), clips.index_of("crouch_walk").unwrap());
    // Fraction of the way from foot_l to foot_r (or on from foot_r to the next foot_l, as 1 + fraction).
    let stride = |t: f32, l: f32, r: f32, len: f32| {
        if (l..r).contains(&t) { (t - l) / (r - l) } else { 1.0 + (t - r).rem_euclid(len) / (len - r + l) }
    };
    let mut checked = 0;
    let mut explained = false;
    for _ in 0..15 {
        c.update(1.0 / 60.0).unwrap();
        let cs = c.frame().find_layer(0).unwrap().1;
        let time = |clip: ClipId| cs.iter().find(|k| k.clip == clip).map(|k| k.time);
        if let (Some(w), Some(k)) = (time(walk), time(crouch)) {
            let (a, b) = (stride(w, 0.1, 0.5, 1.0), stride(k, 0.2, 0.7, 1.2));
            assert!((a - b).abs() < 1e-3, "walk {w} s ({a}), crouch_walk {k} s ({b})");
            checked += 1;
            let why = c.explain().to_string();
            explained |= why.contains("sync group `feet` led by `locomotion`")
                || why.contains("sync group `feet` led by `crouch`");
        }
    }
    assert!(explained, "explain names the group's leader: {}", c.explain());
    assert!(checked >= 10, "the cross-fade was checked: {checked} frames");
}

#[test]
fn the_reload_opens_its_window_carries_its_payload_and_lets_go_of_the_weapon() {
    let mut c = rifle();
    let hand = c.curve_index("ik.hand_on_weapon").expect("the reload clip carries the curve");
    run(&mut c, 0.3);
    assert_eq!(c.curve_or_at(hand, 1.0), 1.0, "no playing clip carries it: the default");
    assert_eq!(c.curve("ik.hand_on_weapon"), 0.0, "unless 0 is the default");
    assert_eq!(c.ik().unwrap().inputs().hand_on_weapon_weight, 1.0);
    assert!(c.play_slot(DefaultSlots::RELOAD_MAGAZINE));
    let mut log = Vec::new();
    run_keeping(&mut c, 0.7, &mut log);
    // 0.7 s into the reload: inside `mag_swap` (0.4..1.0), the hand off the weapon.
    assert!(c.in_window("mag_swap") && !c.in_window("stagger"));
    assert!(c.explain().to_string().contains("inside notify windows: mag_swap"), "{}", c.explain());
    assert!(c.curve_or("ik.hand_on_weapon", 1.0) < 1e-6, "{}", c.curve_or("ik.hand_on_weapon", 1.0));
    assert_eq!(c.ik().unwrap().inputs().hand_on_weapon_weight, c.curve_or_at(hand, 1.0));
    let mag_out = log.iter().find(|e| e.name == "MagOut").expect("MagOut fired");
    let payload = c.notify_payload(mag_out).expect("MagOut has a payload");
    assert_eq!(payload.text("surface"), Some("metal"));
    run_keeping(&mut c, 0.5, &mut log);
    assert!(!c.in_window("mag_swap"), "the window ended at 1.0 s");
    let ends: Vec<_> = log.iter().filter(|e| matches!(e.kind, EventKind::NotifyEnd { .. })).collect();
    assert_eq!(ends.len(), 1);
    assert_eq!(ends[0].to_string().split_once(' ').unwrap().1, "s notify_end mag_swap");
    assert_paired(&c, &log);
}

#[test]
fn a_curve_blends_with_its_clips_weight() {
    // The rifle's `reloading` state plays on the upper-body layer at weight 0.9.
    let mut c = rifle();
    c.fire(DefaultBindings::RELOAD);
    run(&mut c, 0.6);
    let (value, filled) = (c.curve("ik.hand_on_weapon"), c.curve_or("ik.hand_on_weapon", 1.0));
    assert!(value.abs() < 1e-6 && (filled - 0.1).abs() < 1e-5, "0 at weight 0.9 over 1: {value}, {filled}");
}

/// Records the sound cues' notify names and surfaces.
#[derive(Default)]
struct Cues(Vec<(String, Option<String>, bool)>);

impl SoundCueSink for Cues {
    fn on_sound_cue(&mut self, _character: usize, cue: &SoundCue<'_>) {
        if let SoundCueKind::Notify(name) = cue.kind {
            self.0.push((name.to_owned(), cue.surface.map(str::to_owned), cue.payload.is_some()));
        }
    }
}

#[test]
fn the_sound_bridge_plays_a_notify_on_its_payloads_surface_and_not_the_windows() {
    let mut c = rifle();
    c.play_slot(DefaultSlots::RELOAD_MAGAZINE);
    let mut bridge = SoundBridge::new(Cues::default());
    for _ in 0..90 {
        c.update(1.0 / 60.0).unwrap();
        for e in c.events() {
            bridge.on_character_event(0, &c, e);
        }
        c.clear_events();
    }
    let cues = &bridge.sink().0;
    let names: Vec<&str> = cues.iter().map(|c| c.0.as_str()).collect();
    assert_eq!(names, ["MagOut", "MagIn"]);
    assert_eq!(cues[0].1.as_deref(), Some("metal"), "the payload's surface, not the ground's (none here)");
    assert!(cues[0].2, "the payload travels with the cue");
}

#[test]
fn windows_pair_and_in_window_follows_through_hits_fades_lead_changes_and_loadout_switches() {
    let def = definition(&fixture_bundle());
    let mut c = Character::new(&def).unwrap();
    let mut log = Vec::new();
    c.fire(DefaultBindings::HIT);
    run_keeping(&mut c, 0.2, &mut log);
    assert!(c.in_window("stagger"), "the hit reaction staggers");
    // Tags make the selector lead, a rifle switch cuts the graph's windows,
    // reloads and hits come and go: every begin gets one end.
    let steps: [(&str, f32); 6] =
        [("locomotion=walk", 0.3), ("", 0.2), ("locomotion=run", 0.4), ("", 0.5), ("", 0.3), ("", 0.6)];
    for (k, (tags, seconds)) in steps.into_iter().enumerate() {
        c.set_tags(if tags.is_empty() { StateTagSet::EMPTY } else { tags.parse().unwrap() });
        match k {
            1 => {
                c.equip(PlayerProfileType::Rifle);
                c.fire(DefaultBindings::RELOAD);
            }
            2 => {
                c.fire(DefaultBindings::HIT);
                c.play_slot(DefaultSlots::HIT_REACT);
            }
            3 => {
                c.play_slot(DefaultSlots::RELOAD_MAGAZINE);
            }
            4 => {
                c.unequip();
                c.fire(DefaultBindings::HIT);
            }
            _ => {}
        }
        run_keeping(&mut c, seconds, &mut log);
        assert_paired(&c, &log);
    }
    let begins = log.iter().filter(|e| matches!(e.kind, EventKind::NotifyBegin { .. })).count();
    assert!(begins >= 3, "windows opened along the way: {begins}");
    assert!(log.iter().any(|e| matches!(e.kind, EventKind::NotifyEnd { interrupted: true, .. })), "and some were cut");
}

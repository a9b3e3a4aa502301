//! The gameplay API has no silent surprises: tags and speed compose by one
//! documented rule and the character says why a change waits; speed reaches
//! every class's graph through the `speed` binding; which bindings and slots
//! are bound is queryable; events carry their names; the slot's progress is
//! state, its start and end are events; a state can be forced; a retired
//! character ends what it has in flight.

mod character_common;

use character_common::*;
use zoa_anim_core::{DefaultBindings, DefaultSlots, LocomotionTag, PlayerProfileType, StateDimension};
use zoa_anim_runtime::Character;
use zoa_anim_runtime::character::EventKind;
use zoa_anim_runtime::character::graph::ParamValue;
use zoa_anim_runtime::character::selector::Pending;

fn locomotion(c: &Character) -> LocomotionTag {
    c.applied_tags().unwrap().locomotion()
}

#[test]
fn locomotion_tags_take_effect_without_a_speed() {
    let def = definition(&fixture_bundle());
    let mut c = Character::new(&def).unwrap();
    c.set_tags(tags("locomotion=run"));
    run(&mut c, 0.2);
    assert_eq!(locomotion(&c), LocomotionTag::RUN, "{}", c.explain());
    assert!(c.explain().to_string().contains("speed: never given"), "{}", c.explain());
}

#[test]
fn once_a_speed_is_given_a_gait_waits_for_its_band_and_the_character_says_so() {
    let def = definition(&fixture_bundle());
    let mut c = Character::new(&def).unwrap();
    c.set_speed(1.5); // the walk band (0.5–2.5 m/s)
    c.set_tags(tags("locomotion=run"));
    run(&mut c, 0.5);
    assert_ne!(locomotion(&c), LocomotionTag::RUN);
    let why = c.explain();
    let (d, pending) = why.pending[0];
    assert_eq!(d, StateDimension::Locomotion);
    let Pending::Speed { speed, current, needs } = pending else { panic!("{why}") };
    assert_eq!((speed, current, needs), (1.5, LocomotionTag::WALK, (2.5, 5.0)));
    let text = why.to_string();
    assert!(text.contains("waits for speed: 1.50 m/s is in the walk band; it needs 2.50–5.00 m/s"), "{text}");
    c.set_speed(4.0);
    run(&mut c, 0.2);
    assert_eq!(locomotion(&c), LocomotionTag::RUN, "{}", c.explain());
    assert!(c.explain().pending.is_empty());
}

#[test]
fn speed_reaches_every_class_through_the_speed_binding() {
    let def = definition(&fixture_bundle());
    let mut c = Character::new(&def).unwrap();
    c.set_speed(3.0);
    assert_eq!(c.binding_value(DefaultBindings::SPEED), Some(ParamValue::Float(3.0)), "unarmed: `speed`");
    c.equip(PlayerProfileType::Rifle).unwrap();
    // The rifle profile binds `speed` to its graph's `move_y`: the new class hears the speed at once.
    assert_eq!(c.binding_value(DefaultBindings::MOVE_Y), Some(ParamValue::Float(3.0)));
    c.set_speed(1.0);
    assert_eq!(c.binding_value(DefaultBindings::SPEED), Some(ParamValue::Float(1.0)));
    assert_eq!(c.speed(), 1.0);
}

#[test]
fn what_is_bound_is_queryable_and_unbound_uses_are_reported() {
    let def = definition(&fixture_bundle());
    let mut c = Character::new(&def).unwrap();
    assert!(c.is_bound(DefaultBindings::SPEED) && c.is_bound(DefaultBindings::JUMP));
    assert!(!c.is_bound(DefaultBindings::RELOAD), "the unarmed graph has no reload");
    assert!(c.bound_bindings().any(|(b, _)| b == DefaultBindings::HIT));
    c.fire(DefaultBindings::RELOAD); // a documented no-op, but an observable one
    let why = c.explain();
    assert_eq!(why.unbound, [DefaultBindings::RELOAD]);
    assert!(why.to_string().contains("not bound for this class (no-ops): reload"), "{why}");
    c.equip(PlayerProfileType::Rifle).unwrap();
    assert!(c.is_bound(DefaultBindings::RELOAD));
    assert!(c.playable_slots().any(|s| s == DefaultSlots::RELOAD_MAGAZINE));
}

#[test]
fn events_carry_their_names_and_the_slot_is_state_with_a_start_and_an_end() {
    let def = definition(&fixture_bundle());
    let mut c = Character::new(&def).unwrap();
    run(&mut c, 0.1);
    c.deliver_events(0, &mut Ignore);
    assert!(c.play_slot(DefaultSlots::HIT_REACT));
    run(&mut c, 0.2);
    let s = c.slot().expect("the slot plays");
    assert_eq!(s.slot, Some(DefaultSlots::HIT_REACT));
    assert!(s.progress > 0.0 && s.progress < 1.0, "{s:?}");
    run(&mut c, 3.0);
    assert!(c.slot().is_none(), "the one-shot played out");
    let slot: Vec<String> = c
        .events()
        .iter()
        .filter(|e| matches!(e.kind, EventKind::SlotStarted { .. } | EventKind::SlotEnded { .. }))
        .map(|e| format!("{} {}", e.kind.as_str(), e.name))
        .collect();
    assert_eq!(slot, ["slot_started hit_react", "slot_end hit_react"], "once each, not every frame");
    // Every event prints as words, not indices.
    for e in c.events() {
        let shown = e.to_string();
        assert!(!shown.contains("ClipId") && !shown.contains("StateIndex") && !e.name.is_empty(), "{shown}");
    }
}

#[test]
fn a_state_can_be_forced_by_name() {
    let def = definition(&fixture_bundle());
    let mut c = Character::new(&def).unwrap();
    run(&mut c, 0.1);
    assert!(c.play_state("land", Some(0.0)));
    run(&mut c, 1.0 / 60.0);
    assert_eq!(c.graph_instance().current_state_name(0), Some("land"));
    assert!(!c.play_state("no_such_state", None));
    let why = c.explain().to_string();
    assert!(why.contains("a graph action wins over tags") || why.contains("`land`"), "{why}");
}

struct Ignore;

impl zoa_anim_runtime::character::CharacterEventReceiver for Ignore {
    fn on_character_event(&mut self, _: usize, _: &Character, _: &zoa_anim_runtime::character::Event) {}
}

/// Records events as `kind name` (binding phases as `binding <id> <phase>`), with their time.
#[derive(Default)]
struct Record(Vec<(f64, String)>);

impl zoa_anim_runtime::character::CharacterEventReceiver for Record {
    fn on_character_event(&mut self, _: usize, _: &Character, e: &zoa_anim_runtime::character::Event) {
        let shown = match e.kind {
            EventKind::Binding { binding, phase } => format!("binding {} {}", binding.as_str(), phase.tag()),
            _ => format!("{} {}", e.kind.as_str(), e.name),
        };
        self.0.push((e.time, shown));
    }
}

#[test]
fn retiring_a_character_ends_what_it_has_in_flight() {
    let def = definition(&fixture_bundle());
    let mut c = Character::new(&def).unwrap();
    c.equip(PlayerProfileType::Rifle).unwrap();
    run(&mut c, 1.0);
    c.deliver_events(0, &mut Ignore);
    c.fire(DefaultBindings::RELOAD);
    assert!(c.play_slot(DefaultSlots::RELOAD_MAGAZINE));
    run(&mut c, 0.1);
    let mut before = Record::default();
    c.deliver_events(0, &mut before);
    let shown: Vec<&str> = before.0.iter().map(|(_, s)| s.as_str()).collect();
    assert!(shown.contains(&"binding reload start"), "the reload started: {shown:?}");
    assert!(shown.contains(&"slot_started reload_magazine"), "{shown:?}");
    let now = c.time();
    let mut retired = Record::default();
    c.retire(7, &mut retired);
    let ends: Vec<&str> = retired.0.iter().map(|(_, s)| s.as_str()).collect();
    assert!(ends.contains(&"binding reload cancel"), "the action in flight is cancelled: {ends:?}");
    assert!(ends.contains(&"slot_stopped reload_magazine"), "the slot's clip ends interrupted: {ends:?}");
    assert!(!ends.iter().any(|s| s.starts_with("notify_begin")), "nothing starts: {ends:?}");
    assert!(retired.0.iter().all(|(t, _)| *t == now), "at the character's time: {:?}", retired.0);
}

//! The clip-time features allocate nothing per frame and give the same bits
//! serially and in parallel: a crowd of fixture humanoids crouches and
//! stands while walking (sync groups following), reloads and is hit (notify
//! windows, payloads, the hand-on-weapon curve), switches class, and delivers
//! its events to a sound bridge that reads payloads. Its own test binary, so
//! no other test's allocations count.

mod character_common;

use character_common::*;
use zoa_anim_core::{DefaultBindings, DefaultSlots, PlayerProfileType, StateTagSet};
use zoa_anim_runtime::character::{CharacterEventReceiver, SoundBridge, SoundCue, SoundCueSink};
use zoa_anim_runtime::{Character, Crowd, Event};
use zoa_test_support::alloc::{CountingAllocator, allocations_during};

#[global_allocator]
static GLOBAL: CountingAllocator = CountingAllocator;

const DT: f32 = 1.0 / 60.0;
const N: usize = 6;
const PERIOD: usize = 83;

fn crowd() -> Crowd<Character> {
    let def = definition(&fixture_bundle());
    let mut crowd = Crowd::default();
    for k in 0..N {
        let class = (k % 2 == 1).then_some(PlayerProfileType::Rifle);
        let mut c = Character::spawn(&def, class, StateTagSet::EMPTY).unwrap();
        c.set_speed(1.5);
        crowd.push(c);
    }
    crowd
}

/// Gameplay for frame `f`; allocates nothing once every class was equipped once.
fn drive(crowd: &mut Crowd<Character>, f: usize) {
    for (k, c) in crowd.members_mut().iter_mut().enumerate() {
        match (f + 7 * k) % PERIOD {
            5 => c.set_bool(DefaultBindings::IS_CROUCHING, true),
            30 => c.set_bool(DefaultBindings::IS_CROUCHING, false),
            45 => c.fire(DefaultBindings::HIT),
            55 => c.fire(DefaultBindings::RELOAD),
            60 => {
                c.play_slot(DefaultSlots::RELOAD_MAGAZINE);
            }
            _ => {}
        }
    }
}

/// Reads every cue's payload and surface, allocating nothing.
#[derive(Default)]
struct Sink {
    cues: usize,
    metal: usize,
}

impl SoundCueSink for Sink {
    fn on_sound_cue(&mut self, _character: usize, cue: &SoundCue<'_>) {
        self.cues += 1;
        self.metal += usize::from(cue.surface == Some("metal"));
        if let Some(p) = cue.payload {
            self.cues += usize::from(p.number("volume").is_some());
        }
    }
}

/// Also reads the window state of the character each event comes from.
struct Receiver(SoundBridge<Sink>, usize);

impl CharacterEventReceiver for Receiver {
    fn on_character_event(&mut self, character: usize, source: &Character, event: &Event) {
        self.1 += usize::from(source.in_window("mag_swap") || source.in_window("stagger"));
        self.0.on_character_event(character, source, event);
    }
}

fn bits(c: &Character) -> Vec<u32> {
    let mut v: Vec<u32> = c.model_matrices().iter().flat_map(|m| m.to_cols_array()).map(f32::to_bits).collect();
    v.push(c.curve_or("ik.hand_on_weapon", 1.0).to_bits());
    v.extend(c.open_windows().map(|w| u32::from(w.notify)));
    v
}

#[test]
fn sync_groups_windows_payloads_and_curves_allocate_nothing_and_parallel_equals_serial() {
    let mut serial = crowd();
    let mut par = crowd();
    let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    let mut rx = Receiver(SoundBridge::new(Sink::default()), 0);
    // Warm up: every class equipped once, every clip played once.
    for round in 0..2 {
        for c in serial.members_mut().iter_mut().chain(par.members_mut()) {
            c.equip(if round == 0 { PlayerProfileType::Rifle } else { PlayerProfileType::Unarmed });
        }
        for f in 0..2 * PERIOD {
            drive(&mut serial, f);
            drive(&mut par, f);
            serial.update(DT).unwrap();
            pool.install(|| par.update_parallel(DT)).unwrap();
            serial.deliver_events(&mut rx);
            par.deliver_events(&mut rx);
        }
    }
    let n = pool.install(|| {
        allocations_during(|| {
            for f in 0..3 * PERIOD {
                drive(&mut serial, f);
                drive(&mut par, f);
                serial.update(DT).unwrap();
                par.update_parallel(DT).unwrap();
                serial.deliver_events(&mut rx);
                par.deliver_events(&mut rx);
            }
        })
    });
    assert_eq!(n, 0, "allocations during frames with sync groups, windows, payloads and curves");
    for (k, (a, b)) in serial.members().iter().zip(par.members()).enumerate() {
        assert_eq!(bits(a), bits(b), "character {k}");
    }
    let sink = rx.0.sink();
    assert!(sink.metal > 0 && rx.1 > 0, "magazine cues ({}) and events inside windows ({})", sink.metal, rx.1);
}

//! A crowd of fixture humanoids driven by the runtime's crowd workload (the
//! one `zoa-anim bench --defs` measures: varied tags, bindings, slots and IK
//! inputs) plus loadout switches (the rifle's `equipment` grips blend in and
//! its reload slot lets the left hand go): the parallel pass equals the serial one bit
//! for bit (pose, model and skinning matrices, events) for 1, 2 and 3
//! threads, and neither allocates after warm-up (counting allocator, every
//! thread counted). Its own test binary, so no other test's allocations are
//! counted.

mod character_common;

use std::sync::Arc;

use character_common::*;
use zoa_anim_core::glam::Vec3;
use zoa_anim_core::{DefaultSlots, PlayerProfileType};
use zoa_anim_ik::FlatGround;
use zoa_anim_runtime::character::{CharacterEventReceiver, CrowdWorkload, Event};
use zoa_anim_runtime::{Character, Crowd, Team};
use zoa_test_support::alloc::{CountingAllocator, allocations_during};

#[global_allocator]
static GLOBAL: CountingAllocator = CountingAllocator;

const DT: f32 = 1.0 / 60.0;

/// The crowd of [`CrowdWorkload`] (what `zoa-anim bench --defs` runs), except
/// that every character spawns unarmed and every third one equips the rifle
/// afterwards, every third the pistol (both hold their `equipment`), so the
/// first frames cross-fade loadouts.
fn crowd(n: usize, workload: &CrowdWorkload) -> Crowd<Character> {
    let def = definition(&fixture_bundle());
    let ground = Arc::new(FlatGround { height: 0.02, normal: Vec3::Y });
    let mut characters = Vec::new();
    for k in 0..n {
        let mut c = Character::new(&def).unwrap();
        // The pistol's table picks idles at random (a seed per character)
        // and has a row with a speed range.
        c.set_random_seed(k as u64);
        match k % 3 {
            1 => _ = c.equip(PlayerProfileType::Rifle),
            2 => _ = c.equip(PlayerProfileType::Pistol),
            _ => {}
        }
        c.set_ground(Some(ground.clone()));
        c.set_tags(workload.start_tags(k));
        workload.prepare(k, &mut c);
        characters.push(c);
    }
    Crowd::new(characters)
}

#[derive(Default)]
struct Record(Vec<(usize, u64, String)>);

impl CharacterEventReceiver for Record {
    fn on_character_event(&mut self, character: usize, _source: &Character, event: &Event) {
        self.0.push((character, event.time.to_bits(), format!("{:?} {}", event.kind, event.name)));
    }
}

fn bits(c: &Character) -> Vec<u32> {
    let pose = c.local_pose();
    let mut v: Vec<u32> = pose
        .transforms()
        .flat_map(|t| t.translation.to_array().into_iter().chain(t.rotation.to_array()).chain(t.scale.to_array()))
        .map(f32::to_bits)
        .collect();
    v.extend(c.model_matrices().iter().chain(c.skinning_matrices()).flat_map(|m| m.to_cols_array()).map(f32::to_bits));
    v
}

#[test]
fn parallel_equals_serial_bit_for_bit_and_frames_allocate_nothing() {
    const N: usize = 12;
    const FRAMES: usize = 240;
    let workload = CrowdWorkload::new();
    let mut serial = crowd(N, &workload);
    let mut serial_events = Record::default();
    for f in 0..FRAMES {
        workload.drive(&mut serial, f);
        serial.update(DT).unwrap();
        serial.deliver_events(&mut serial_events);
    }
    assert!(serial_events.0.len() > 100, "events are on: {}", serial_events.0.len());
    for threads in [1, 2, 3] {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        let mut par = crowd(N, &workload);
        let mut par_events = Record::default();
        for f in 0..FRAMES {
            workload.drive(&mut par, f);
            pool.install(|| par.update_parallel(DT)).unwrap();
            par.deliver_events(&mut par_events);
        }
        for (k, (a, b)) in serial.members().iter().zip(par.members()).enumerate() {
            assert_eq!(bits(a), bits(b), "character {k}, {threads} threads");
        }
        assert_eq!(serial_events.0, par_events.0, "{threads} threads");
        let mut team = Team::new(threads).unwrap();
        let mut on_team = crowd(N, &workload);
        let mut team_events = Record::default();
        for f in 0..FRAMES {
            workload.drive(&mut on_team, f);
            on_team.update_on(&mut team, DT).unwrap();
            on_team.deliver_events(&mut team_events);
        }
        for (k, (a, b)) in serial.members().iter().zip(on_team.members()).enumerate() {
            assert_eq!(bits(a), bits(b), "character {k}, {threads}-member team");
        }
        assert_eq!(serial_events.0, team_events.0, "{threads}-member team");
    }

    // Allocation: warm up (equips and first frames allocate), then count every thread.
    let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    let mut serial = crowd(N, &workload);
    let mut par = crowd(N, &workload);
    let mut team = Team::new(2).unwrap();
    let mut on_team = crowd(N, &workload);
    let mut sink = Count(0);
    for f in 0..FRAMES {
        workload.drive(&mut serial, f);
        workload.drive(&mut par, f);
        workload.drive(&mut on_team, f);
        serial.update(DT).unwrap();
        pool.install(|| par.update_parallel(DT)).unwrap();
        on_team.update_on(&mut team, DT).unwrap();
        serial.deliver_events(&mut sink);
        par.deliver_events(&mut sink);
        on_team.deliver_events(&mut sink);
    }
    let before = sink.0;
    let holding = serial.members().iter().filter(|c| c.held_item().is_some()).count();
    assert_eq!(holding, 2 * N / 3, "every rifle and pistol holds its item: grips are part of the counted frames");
    // Equipping may allocate, the frames of its hand-over may not: some
    // characters pick the pistol up just before the count.
    for crowd in [&mut serial, &mut par, &mut on_team] {
        for c in crowd.members_mut().iter_mut().step_by(3) {
            c.equip(PlayerProfileType::Pistol);
        }
    }
    // Starting a slot whose grips the item has copies them into storage sized at equip.
    let reload = |crowd: &mut Crowd<Character>| {
        for c in crowd.members_mut().iter_mut().filter(|c| c.held_item().is_some()) {
            c.play_slot(DefaultSlots::RELOAD_MAGAZINE);
        }
    };
    let (mut inputs, mut goals) = (0usize, 0usize);
    // Counted inside the pool: frames are what must not allocate (a call from
    // outside a rayon pool also injects a job into its global queue, which
    // allocates one queue block per 63 injections).
    let n = pool.install(|| {
        allocations_during(|| {
            for f in FRAMES..2 * FRAMES {
                workload.drive(&mut serial, f);
                workload.drive(&mut par, f);
                workload.drive(&mut on_team, f);
                if f == FRAMES + 30 {
                    reload(&mut serial);
                    reload(&mut par);
                    reload(&mut on_team);
                }
                serial.update(DT).unwrap();
                par.update_parallel(DT).unwrap();
                on_team.update_on(&mut team, DT).unwrap();
                serial.deliver_events(&mut sink);
                par.deliver_events(&mut sink);
                on_team.deliver_events(&mut sink);
                // What a tool reads after a frame: the composed inputs and the IK goals.
                for c in serial.members() {
                    inputs += c.contributions().filter(|k| k.weight > 0.0).count();
                    goals += c.ik_report().map_or(0, |r| r.goals().len());
                }
            }
        })
    });
    assert!(inputs >= N * FRAMES && goals > 0, "the readouts saw {inputs} inputs and {goals} IK goals");
    assert!(sink.0 > before, "events were delivered while counting");
    assert_eq!(
        n, 0,
        "allocations during {FRAMES} serial, rayon and team frames with IK, events, slots and tags (and the readouts)"
    );
    // The counter does count.
    assert!(allocations_during(|| drop(crowd(1, &workload))) > 0);
}

struct Count(usize);

impl CharacterEventReceiver for Count {
    fn on_character_event(&mut self, _character: usize, _source: &Character, _event: &Event) {
        self.0 += 1;
    }
}

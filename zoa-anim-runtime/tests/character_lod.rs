//! Level of detail on the fixture humanoid: skipped frames lose no time and
//! no event (notifies crossed meanwhile arrive once, in order, at the next
//! evaluation; a trigger fired on a skipped frame acts once), the shown pose
//! moves every frame between evaluations, rate 1 is exactly the character
//! without LOD, IK is off below its threshold, and a crowd with LOD is
//! bit-identical serial and parallel and allocates nothing after warm-up.
//! Its own test binary (counting allocator).

mod character_common;

use std::sync::Arc;
use std::time::Duration;

use character_common::*;
use zoa_anim_core::glam::Vec3;
use zoa_anim_core::{DefaultBindings, StateTagSet};
use zoa_anim_ik::FlatGround;
use zoa_anim_runtime::character::{CharacterEventReceiver, CrowdWorkload, Event, LodBudget};
use zoa_anim_runtime::{Character, Crowd, Team};
use zoa_test_support::alloc::{CountingAllocator, allocations_during};

#[global_allocator]
static GLOBAL: CountingAllocator = CountingAllocator;

const DT: f32 = 1.0 / 60.0;

fn pose_bits(c: &Character) -> Vec<u32> {
    let mut v: Vec<u32> = c
        .local_pose()
        .transforms()
        .flat_map(|t| t.translation.to_array().into_iter().chain(t.rotation.to_array()).chain(t.scale.to_array()))
        .map(f32::to_bits)
        .collect();
    v.extend(c.model_matrices().iter().chain(c.skinning_matrices()).flat_map(|m| m.to_cols_array()).map(f32::to_bits));
    v
}

/// (frame delivered, time, kind, name) of every event of `c` over `frames`.
fn play(c: &mut Character, frames: usize, mut each: impl FnMut(usize, &mut Character)) -> Vec<(usize, f64, String)> {
    let mut out = Vec::new();
    for f in 0..frames {
        each(f, c);
        c.update(DT).unwrap();
        // `kind name` (a binding phase names its binding: `binding_start hit`).
        out.extend(c.events().iter().map(|e| (f, e.time, e.to_string().split_once(" s ").unwrap().1.to_owned())));
        c.clear_events();
    }
    out
}

fn walker(significance: f32) -> Character {
    let def = definition(&without_ik(fixture_bundle()));
    let mut c = Character::spawn(&def, None, tags("locomotion=walk")).unwrap();
    c.set_speed(1.5);
    c.set_significance(significance);
    c
}

#[test]
fn skipped_frames_deliver_every_notify_once_in_order_at_the_next_evaluation() {
    const FRAMES: usize = 600;
    let mut full = walker(1.0);
    let full_events = play(&mut full, FRAMES, |_, _| {});
    for (significance, rate) in [(0.4, 2usize), (0.2, 4), (0.0, 8)] {
        let mut far = walker(significance);
        let mut evaluated_frames = Vec::new();
        let far_events = play(&mut far, FRAMES, |_, _| {});
        // Re-run to learn which frames evaluated (the same inputs, so the same frames).
        let mut again = walker(significance);
        for f in 0..FRAMES {
            again.update(DT).unwrap();
            if again.evaluated() {
                evaluated_frames.push(f);
            }
        }
        assert_eq!(usize::from(far.update_rate()), rate);
        assert!(evaluated_frames.windows(2).all(|w| w[1] - w[0] <= rate), "{evaluated_frames:?}");
        assert!(evaluated_frames.len() <= FRAMES / rate + 2, "rate {rate}: {} evaluations", evaluated_frames.len());
        // The far character has evaluated up to its last evaluation: compare that span.
        let until = far.time();
        let expected: Vec<(f64, &str)> =
            full_events.iter().filter(|e| e.1 <= until - 1e-6).map(|e| (e.1, e.2.as_str())).collect();
        let got: Vec<(f64, &str)> = far_events.iter().map(|e| (e.1, e.2.as_str())).collect();
        let notifies = expected.iter().filter(|e| e.1.starts_with("notify")).count();
        assert!(notifies >= 10, "the walk crosses notifies: {notifies}");
        assert_eq!(got.len(), expected.len(), "rate {rate}: every event once\n{got:?}\nvs\n{expected:?}");
        for ((t, name), (te, ne)) in got.iter().zip(&expected) {
            assert_eq!(name, ne, "rate {rate}: same order");
            assert!((t - te).abs() < 1e-4, "rate {rate}: {name} at {t} vs {te}");
        }
        // Delivered at the evaluation that crossed it: never before its time, at most `rate` frames after.
        for (frame, time, name) in &far_events {
            let shown = (*frame + 1) as f64 * f64::from(DT);
            assert!(
                *time <= shown + 1e-6 && shown - time < f64::from(DT) * rate as f64 + 1e-6,
                "{name} {time} {frame}"
            );
            assert!(evaluated_frames.contains(frame));
        }
    }
}

#[test]
fn a_trigger_fired_on_a_skipped_frame_acts_once_at_the_next_evaluation() {
    let def = definition(&without_ik(fixture_bundle()));
    let mut c = Character::spawn(&def, None, StateTagSet::EMPTY).unwrap();
    c.set_significance(0.0); // every 8th frame
    c.set_lod_phase(0);
    let events = play(&mut c, 240, |f, c| {
        if f == 61 {
            assert!(!c.evaluated() || f % 8 == 0);
            c.fire(DefaultBindings::HIT);
        }
    });
    let starts: Vec<_> = events.iter().filter(|e| e.2 == "binding_start hit").collect();
    assert_eq!(starts.len(), 1, "{events:?}");
    assert_eq!(starts[0].0, 64, "the first evaluation after the fire (frames 0, 8, 16, … evaluate)");
}

#[test]
fn the_shown_pose_moves_every_frame_and_rate_one_is_the_character_without_lod() {
    let mut plain = walker(1.0);
    let def = Arc::clone(plain.definition());
    let mut untouched = Character::spawn(&def, None, tags("locomotion=walk")).unwrap();
    untouched.set_speed(1.5);
    let mut far = walker(0.2);
    let mut last = pose_bits(&far);
    let mut evaluations = 0;
    for f in 0..120 {
        plain.update(DT).unwrap();
        untouched.update(DT).unwrap();
        assert_eq!(pose_bits(&plain), pose_bits(&untouched), "frame {f}: significance 1 changes nothing");
        far.update(DT).unwrap();
        let now = pose_bits(&far);
        assert_ne!(now, last, "frame {f}: the shown pose moves (evaluated: {})", far.evaluated());
        last = now;
        evaluations += usize::from(far.evaluated());
    }
    assert_eq!(far.update_rate(), 4);
    assert!((30..=32).contains(&evaluations), "{evaluations} evaluations in 120 frames at rate 4");
}

#[test]
fn ik_and_the_procedural_fallback_stop_below_their_significance() {
    let def = definition(&fixture_bundle());
    let spawn = |look: Option<Vec3>, significance: f32| {
        let mut c = Character::spawn(&def, None, tags("locomotion=idle")).unwrap();
        c.set_look_target(look);
        c.set_significance(significance);
        c.set_update_rate(Some(1)); // every frame: only the detail differs
        for _ in 0..30 {
            c.update(DT).unwrap();
        }
        pose_bits(&c)
    };
    let target = Some(Vec3::new(2.0, 1.0, 1.0));
    assert_ne!(spawn(target, 1.0), spawn(None, 1.0), "look-at turns the head when significant");
    assert_eq!(spawn(target, 0.1), spawn(None, 0.1), "below 0.25 IK does not run");
}

#[derive(Default)]
struct Record(Vec<(usize, u64, String)>);

impl CharacterEventReceiver for Record {
    fn on_character_event(&mut self, character: usize, _source: &Character, event: &Event) {
        self.0.push((character, event.time.to_bits(), format!("{:?} {}", event.kind, event.name)));
    }
}

/// The bench's crowd, with significances moving over a spread (some
/// characters change rate every few frames).
fn lod_crowd(n: usize, workload: &CrowdWorkload) -> Crowd<Character> {
    let def = definition(&fixture_bundle());
    let ground = Arc::new(FlatGround { height: 0.0, normal: Vec3::Y });
    let mut characters = Vec::new();
    for k in 0..n {
        let mut c = Character::spawn(&def, workload.class(&def, k), workload.start_tags(k)).unwrap();
        c.set_ground(Some(ground.clone()));
        workload.prepare(k, &mut c);
        // A low significance once: the poses LOD moves between are allocated here, not in a frame.
        c.set_significance(0.0);
        c.set_significance(1.0);
        characters.push(c);
    }
    let mut crowd = Crowd::new(characters);
    crowd.stagger_lod();
    crowd
}

fn significances(crowd: &mut Crowd<Character>, frame: usize) {
    for (k, c) in crowd.iter_mut() {
        c.set_significance(((k * 37 + frame / 20) % 100) as f32 / 100.0);
    }
}

#[test]
fn a_crowd_with_lod_is_bit_identical_serial_and_parallel_and_allocates_nothing() {
    const N: usize = 20;
    const FRAMES: usize = 300;
    let workload = CrowdWorkload::new();
    let mut serial = lod_crowd(N, &workload);
    let mut serial_events = Record::default();
    let (mut skipped, mut dropped) = (0, 0);
    for f in 0..FRAMES {
        workload.drive(&mut serial, f);
        significances(&mut serial, f);
        serial.update(DT).unwrap();
        skipped += serial.lod_counts().1;
        dropped += serial.members().iter().map(|c| c.dropped_events()).sum::<u32>();
        serial.deliver_events(&mut serial_events);
    }
    assert!(skipped > N * FRAMES / 5, "LOD skips frames: {skipped}");
    // Up to 8 frames' worth of a busy workload in one update fit the graph's
    // and selector's staging queues and the character's own.
    assert_eq!(dropped, 0, "events dropped");
    assert!(serial_events.0.len() > 100);
    let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    let mut par = lod_crowd(N, &workload);
    let mut team = Team::new(2).unwrap();
    let mut on_team = lod_crowd(N, &workload);
    let (mut par_events, mut team_events) = (Record::default(), Record::default());
    for f in 0..FRAMES {
        workload.drive(&mut par, f);
        workload.drive(&mut on_team, f);
        significances(&mut par, f);
        significances(&mut on_team, f);
        pool.install(|| par.update_parallel(DT)).unwrap();
        on_team.update_on(&mut team, DT).unwrap();
        par.deliver_events(&mut par_events);
        on_team.deliver_events(&mut team_events);
    }
    for (k, ((a, b), c)) in serial.members().iter().zip(par.members()).zip(on_team.members()).enumerate() {
        assert_eq!(pose_bits(a), pose_bits(b), "character {k}, rayon");
        assert_eq!(pose_bits(a), pose_bits(c), "character {k}, team");
    }
    assert_eq!(serial_events.0, par_events.0);
    assert_eq!(serial_events.0, team_events.0);

    // After warm-up (every character has run above rate 1), frames allocate nothing.
    let mut sink = Count(0);
    let mut budget = LodBudget::with_capacity(N).with_evaluation_cost(Duration::from_micros(20));
    let n = pool.install(|| {
        allocations_during(|| {
            for f in FRAMES..2 * FRAMES {
                workload.drive(&mut serial, f);
                workload.drive(&mut par, f);
                significances(&mut serial, f);
                significances(&mut par, f);
                if f >= FRAMES + FRAMES / 2 {
                    serial.assign_lod(&mut budget, Duration::from_micros(150));
                }
                serial.update(DT).unwrap();
                par.update_parallel(DT).unwrap();
                let (e, s) = serial.lod_counts();
                budget.observe(Duration::from_micros(20 * e as u64 + 5 * s as u64), e, s);
                serial.deliver_events(&mut sink);
                par.deliver_events(&mut sink);
            }
        })
    });
    assert!(sink.0 > 0);
    assert_eq!(n, 0, "allocations during {FRAMES} frames with LOD and a budget");
}

struct Count(usize);

impl CharacterEventReceiver for Count {
    fn on_character_event(&mut self, _character: usize, _source: &Character, _event: &Event) {
        self.0 += 1;
    }
}

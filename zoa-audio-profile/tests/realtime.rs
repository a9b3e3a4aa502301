//! The real-time path: a game thread drives a player owned by a simulated
//! audio callback on another thread through lock-free rings. The callback
//! never allocates or frees (a counting global allocator, per thread, counts
//! both), replaced players are dropped on the game thread, and the commands
//! do exactly what the same calls on a `Player` do.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use zoa_anim_core::glam::Vec3;
use zoa_anim_core::{SoundEventEntry, SoundEventId, SoundProfile, StateTagSet};
use zoa_audio_profile::realtime::MAX_SURFACE_BYTES;
use zoa_audio_profile::{
    AudioError, ClipBank, ClipData, Listener, Player, PlayerConfig, Report, SoundTable, TriggerOutcome, realtime,
};
use zoa_test_support::alloc::{self, CountingAllocator};

#[global_allocator]
static GLOBAL: CountingAllocator = CountingAllocator;

fn id(s: &str) -> SoundEventId {
    SoundEventId::new(s).unwrap()
}

fn player(seed: u64) -> Player {
    let mut step = SoundEventEntry::new(id("footstep"), "step");
    step.spatial = true;
    step.max_distance = 50.0;
    let mut grass = SoundEventEntry::new(id("footstep"), "grass");
    grass.surface = Some("grass".into());
    let fire = SoundEventEntry::new(id("weapon.fire"), "fire");
    let profile = SoundProfile { id: "rt".into(), entries: vec![step, grass, fire], ..Default::default() };
    let mut bank = ClipBank::new();
    for (name, level) in [("step", 0.25f32), ("grass", 0.5), ("fire", 0.125)] {
        bank.insert(name, ClipData::new(1, 48_000, vec![level; 4_800]).unwrap());
    }
    Player::new(SoundTable::from_profile(&profile).unwrap(), bank, PlayerConfig { seed, ..PlayerConfig::default() })
        .unwrap()
}

#[test]
fn a_simulated_callback_thread_plays_commands_without_allocating_freeing_or_waiting() {
    let (mut handle, mut renderer) = realtime(player(1), 256);
    let done = Arc::new(AtomicBool::new(false));
    let stop = Arc::clone(&done);
    let audio = std::thread::spawn(move || {
        let mut buf = vec![0.0f32; 512];
        let (a0, f0) = (alloc::on_this_thread(), alloc::frees_on_this_thread());
        let mut blocks = 0u64;
        let mut energy = 0.0f64;
        // The callback: runs until told to stop, whatever the game thread does.
        while !stop.load(Ordering::Acquire) || blocks < 100 {
            renderer.process(&mut buf);
            energy += buf.iter().map(|s| f64::from(s.abs())).sum::<f64>();
            blocks += 1;
            std::thread::yield_now();
        }
        let counts = (alloc::on_this_thread() - a0, alloc::frees_on_this_thread() - f0);
        (counts, blocks, energy, renderer)
    });

    handle.set_listener(Listener::default()).unwrap();
    let near = handle.add_emitter(Vec3::new(0.0, 0.0, -2.0)).unwrap();
    let mut tickets = Vec::new();
    let mut reports = Vec::new();
    for i in 0..200 {
        let (emitter, event, surface) = match i % 3 {
            0 => (Some(near), id("footstep"), None),
            1 => (Some(near), id("footstep"), Some("grass")),
            _ => (None, id("weapon.fire"), None),
        };
        loop {
            match handle.trigger(emitter, event, StateTagSet::EMPTY, surface) {
                Ok(t) => {
                    tickets.push(t);
                    break;
                }
                // The callback is behind: the game thread waits, never the callback.
                Err(AudioError::QueueFull) => handle.poll(|r| reports.push(r)),
                Err(e) => panic!("{e}"),
            }
        }
        if i == 100 {
            handle.set_emitter_position(near, Vec3::new(3.0, 0.0, -4.0)).unwrap();
            while handle.replace_player(player(2)).is_err() {
                handle.poll(|r| reports.push(r));
            }
        }
        handle.poll(|r| reports.push(r));
    }
    while handle.request_stats().is_err() {
        handle.poll(|r| reports.push(r));
    }
    while !reports.iter().any(|r| matches!(r, Report::Stats { .. })) {
        handle.poll(|r| reports.push(r));
        std::thread::yield_now();
    }
    done.store(true, Ordering::Release);
    let ((allocs, frees), blocks, energy, renderer) = audio.join().unwrap();
    handle.poll(|r| reports.push(r));

    assert_eq!((allocs, frees), (0, 0), "the callback allocated or freed ({blocks} blocks)");
    assert!(energy > 0.0, "the callback played what was triggered");
    let outcomes: Vec<_> = reports
        .iter()
        .filter_map(|r| match r {
            Report::Triggered { ticket, outcome } => Some((*ticket, *outcome)),
            _ => None,
        })
        .collect();
    assert_eq!(outcomes.iter().map(|o| o.0).collect::<Vec<_>>(), tickets, "every trigger reported, in order");
    for (i, (_, o)) in outcomes.iter().enumerate() {
        let want = [0, 1, 2][i % 3];
        assert!(matches!(o, TriggerOutcome::Started { entry, .. } if *entry == want), "trigger {i}: {o:?}");
    }
    let Some(Report::Stats { stats, dropped_reports, .. }) = reports.iter().find(|r| matches!(r, Report::Stats { .. }))
    else {
        unreachable!()
    };
    assert_eq!(*dropped_reports, 0);
    assert_eq!(stats.started, 99, "the replacement counts the triggers after it (101..200)");
    assert_eq!(renderer.player().config().seed, 2, "the replacement is playing");
    assert_eq!(renderer.player().emitters_alive(), 1, "the emitter was carried over to the replacement");
}

/// Through the rings or directly, the same calls give the same samples.
#[test]
fn commands_do_what_the_player_calls_do() {
    let mut direct = player(7);
    let (mut handle, mut renderer) = realtime(player(7), 64);
    let em_direct = direct.add_emitter(Vec3::new(-1.0, 0.0, -1.0)).unwrap();
    let em = handle.add_emitter(Vec3::new(-1.0, 0.0, -1.0)).unwrap();
    let (mut a, mut b) = (vec![0.0f32; 256], vec![0.0f32; 256]);
    for step in 0..40 {
        match step % 5 {
            0 => {
                direct.trigger(Some(em_direct), id("footstep"), StateTagSet::EMPTY, None);
                handle.trigger(Some(em), id("footstep"), StateTagSet::EMPTY, None).unwrap();
            }
            1 => {
                direct.trigger(None, id("weapon.fire"), StateTagSet::EMPTY, None);
                handle.trigger(None, id("weapon.fire"), StateTagSet::EMPTY, None).unwrap();
            }
            2 => {
                let p = Vec3::new(step as f32 * 0.1, 0.0, -1.0);
                direct.set_emitter_position(em_direct, p).unwrap();
                handle.set_emitter_position(em, p).unwrap();
            }
            3 => {
                direct.stop_event(Some(em_direct), id("footstep"));
                handle.stop_event(Some(em), id("footstep")).unwrap();
            }
            _ => {
                direct.trigger(Some(em_direct), id("footstep"), StateTagSet::EMPTY, Some("grass"));
                handle.trigger(Some(em), id("footstep"), StateTagSet::EMPTY, Some("grass")).unwrap();
            }
        }
        direct.render(&mut a);
        renderer.process(&mut b);
        assert_eq!(a, b, "step {step}");
    }
    assert_eq!(direct.stats(), renderer.player().stats());
}

#[test]
fn the_game_side_refuses_what_the_audio_side_could_not_take() {
    let (mut handle, mut renderer) = realtime(player(3), 4);
    for _ in 0..4 {
        handle.trigger(None, id("weapon.fire"), StateTagSet::EMPTY, None).unwrap();
    }
    assert_eq!(handle.pending_commands(), 4);
    assert!(matches!(handle.trigger(None, id("weapon.fire"), StateTagSet::EMPTY, None), Err(AudioError::QueueFull)));
    renderer.apply_commands();
    assert_eq!(handle.pending_commands(), 0);
    let mut first = 0;
    handle.poll(|_| first += 1);
    assert_eq!(first, 4, "one report per trigger");
    let long = "x".repeat(MAX_SURFACE_BYTES + 1);
    assert!(matches!(
        handle.trigger(None, id("footstep"), StateTagSet::EMPTY, Some(&long)),
        Err(AudioError::InvalidConfig { .. })
    ));
    assert!(matches!(handle.add_emitter(Vec3::NAN), Err(AudioError::NonFinite { .. })));
    let listener = Listener { forward: Vec3::new(0.0, f32::INFINITY, 0.0), ..Listener::default() };
    assert!(matches!(handle.set_listener(listener), Err(AudioError::NonFinite { what: "listener", .. })));
    let em = handle.add_emitter(Vec3::ZERO).unwrap();
    handle.remove_emitter(em).unwrap();
    assert!(matches!(handle.set_emitter_position(em, Vec3::ONE), Err(AudioError::UnknownEmitter)));
    assert!(matches!(handle.remove_emitter(em), Err(AudioError::UnknownEmitter)));
    // A stale emitter in a trigger is reported, not an error on the audio side.
    let t = handle.trigger(Some(em), id("footstep"), StateTagSet::EMPTY, None).unwrap();
    renderer.process(&mut [0.0; 64]);
    let mut got = Vec::new();
    handle.poll(|r| got.push(r));
    assert!(got.contains(&Report::Triggered { ticket: t, outcome: TriggerOutcome::UnknownEmitter }), "{got:?}");
    // As many emitter names as the player has slots.
    let max = renderer.player().config().max_emitters;
    for _ in 0..max {
        handle.add_emitter(Vec3::ZERO).unwrap();
        renderer.apply_commands();
    }
    assert!(matches!(handle.add_emitter(Vec3::ZERO), Err(AudioError::EmitterPoolFull { capacity }) if capacity == max));
    assert_eq!(renderer.player().emitters_alive(), max);
}

/// A replacement waits in the command ring while the freed ring is full, so
/// the old player is never dropped on the audio thread.
#[test]
fn replacements_wait_for_room_to_send_the_old_player_back() {
    let (mut handle, mut renderer) = realtime(player(10), 1);
    handle.replace_player(player(11)).unwrap();
    renderer.process(&mut [0.0; 64]);
    assert_eq!(renderer.player().config().seed, 11);
    handle.replace_player(player(12)).unwrap();
    let frees = alloc::frees_on_this_thread();
    renderer.process(&mut [0.0; 64]);
    assert_eq!(alloc::frees_on_this_thread(), frees, "nothing freed while the old player has nowhere to go");
    assert_eq!(renderer.player().config().seed, 11, "the second replacement waits");
    assert_eq!(handle.collect_garbage(), 1, "player 10 dropped here");
    renderer.process(&mut [0.0; 64]);
    assert_eq!(renderer.player().config().seed, 12);
    assert_eq!(handle.collect_garbage(), 1, "player 11 dropped here");
}

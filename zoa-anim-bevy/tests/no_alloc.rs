//! 100 characters in a headless app: after warm-up, frames do not grow
//! memory (bytes allocated and not freed, every thread, counting allocator),
//! over several cycles of the same gameplay script. Its own test binary, so
//! no other test's allocations are counted.
#![allow(elided_lifetimes_in_paths)]

mod common;

use common::*;
use zoa_test_support::alloc::{CountingAllocator, live_bytes, total};

#[global_allocator]
static GLOBAL: CountingAllocator = CountingAllocator;

/// The script repeats every 97 frames (see `common::script`).
const CYCLE: usize = 97;

#[test]
fn frames_do_not_grow_memory_after_warm_up() {
    let def = definition();
    let mut app = app(2, true, true);
    let roots: Vec<_> = (0..100).map(|_| spawn_character(app.world_mut(), &def).0).collect();
    // The recorders keep every message and frame time; only the plugin's
    // own memory is measured, so they are emptied before each reading.
    let clear = |app: &mut bevy_app::App| {
        let w = app.world_mut();
        w.resource_mut::<Received>().0 = Vec::new();
        w.resource_mut::<Cues>().0 = Vec::new();
        w.resource_mut::<Dts>().0 = Vec::new();
    };
    let mut frame = 0;
    let mut run_cycle = |app: &mut bevy_app::App| {
        for _ in 0..CYCLE {
            drive(app, &roots, frame);
            app.update();
            frame += 1;
        }
    };
    // Warm-up: five cycles (the script's tag changes go through the five tag
    // sets once per cycle, so by then every buffer has its size and every
    // event name its shared copy).
    for _ in 0..5 {
        run_cycle(&mut app);
    }
    clear(&mut app);
    const MEASURED: usize = 4;
    let mut readings = Vec::with_capacity(MEASURED);
    let warm = live_bytes();
    let allocations_before = total();
    let mut messages = 0;
    for _ in 0..MEASURED {
        run_cycle(&mut app);
        messages += app.world().resource::<Received>().0.len();
        clear(&mut app);
        readings.push(live_bytes() - warm);
    }
    let per_frame = (total() - allocations_before) / (MEASURED * CYCLE);
    assert!(
        readings.iter().all(|&r| r <= 0),
        "memory grew after warm-up: {readings:?} bytes ({per_frame} allocations per frame)"
    );

    // With Bevy's single-threaded executor and serial evaluation, the only
    // code left running per frame is Bevy's schedule and the plugin's own
    // systems: those allocate nothing at all.
    for (_, schedule) in app.world_mut().resource_mut::<bevy_ecs::schedule::Schedules>().iter_mut() {
        schedule.set_executor(bevy_ecs::schedule::SingleThreadedExecutor::new());
    }
    app.world_mut().resource_mut::<zoa_anim_bevy::ZoaAnimationSettings>().parallel = false;
    run_cycle(&mut app);
    clear(&mut app);
    {
        // Room for what the recorders keep, so they do not allocate either.
        let w = app.world_mut();
        w.resource_mut::<Received>().0.reserve(100_000);
        w.resource_mut::<Cues>().0.reserve(100_000);
        w.resource_mut::<Dts>().0.reserve(1_000);
    }
    let mut serial = 0;
    for _ in 0..CYCLE {
        // Gameplay calls (tag parsing, equip) may allocate; only frames are counted.
        drive(&mut app, &roots, frame);
        let before = total();
        app.update();
        serial += total() - before;
        frame += 1;
    }
    messages += app.world().resource::<Received>().0.len();
    assert_eq!(serial, 0, "allocations in {CYCLE} serial frames");
    assert!(messages > 100, "the measured frames delivered events ({messages})");
}

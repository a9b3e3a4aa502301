//! The preview simulator on the fixture humanoid: ticks allocate nothing after
//! `play` (a thread-local counting allocator in its own test binary), the
//! capture is bit-identical run to run, waits split ticks at exact step times,
//! and the `PreviewSimulator` contract (pause, resume, stop, step index) holds.

use std::path::Path;

use zoa_anim_assets::character::{CharacterChoice, load_character};
use zoa_anim_assets::defs::load_folder;
use zoa_anim_core::contracts::PreviewSimulator;
use zoa_anim_core::preview::{PreviewPreset, PreviewStep};
use zoa_anim_core::{AnimationSlotId, StateTagSet};
use zoa_anim_tools::preview::{Capture, PreviewSetup, PreviewSim, Recorded, SLOT_LAYER_NAME, StepKind};
use zoa_test_support::alloc::{CountingAllocator, thread_allocations_during};

#[global_allocator]
static GLOBAL: CountingAllocator = CountingAllocator;

const DEFS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/defs/humanoid");

fn setup(rate: f32) -> (PreviewSetup, Vec<PreviewPreset>) {
    let set = load_folder(Path::new(DEFS));
    let bundle = load_character(&set, Path::new(DEFS), CharacterChoice::default()).expect("the fixture loads");
    let mut setup = PreviewSetup::new(bundle, rate);
    setup.record_local = true;
    let presets = set.preview_presets.iter().map(|p| p.value.clone()).collect();
    (setup, presets)
}

/// Everything in a capture as bits (NaN-safe, exact).
fn fingerprint(c: &Capture) -> String {
    let bits: Vec<u32> = c
        .binding_values
        .iter()
        .chain(c.joint_positions.iter().flatten())
        .chain(c.joint_locals.iter().flatten())
        .map(|v| v.to_bits())
        .collect();
    format!("{:?}{:?}{:?}{:?}{:?}{bits:?}", c.ticks, c.states, c.rows, c.events, c.names)
}

#[test]
fn ticks_allocate_nothing_after_play() {
    let (setup, presets) = setup(30.0);
    let mut sim = PreviewSim::new(setup).unwrap();
    for preset in &presets {
        sim.try_play(preset).unwrap();
        // Ticks inside waits only: steps (equip, profile loads) may allocate by contract.
        let mut checked = 0;
        while sim.is_playing() {
            let before = sim.current_step_index();
            let n = thread_allocations_during(|| sim.try_tick(1.0 / 30.0).unwrap());
            if sim.current_step_index() == before {
                assert_eq!(n, 0, "{}: tick at {:.3} s allocated {n} times", preset.id, sim.time());
                checked += 1;
            }
        }
        assert!(checked > 30, "{}: {checked} ticks checked", preset.id);
    }
}

#[test]
fn the_same_preset_gives_the_same_capture_bit_for_bit() {
    let (setup, presets) = setup(30.0);
    let mut a = PreviewSim::new(setup.clone()).unwrap();
    let mut b = PreviewSim::new(setup).unwrap();
    for preset in &presets {
        let first = fingerprint(a.run(preset).unwrap());
        assert_eq!(first, fingerprint(b.run(preset).unwrap()), "{}: two simulators", preset.id);
        assert_eq!(first, fingerprint(a.run(preset).unwrap()), "{}: replay on the same simulator", preset.id);
    }
}

#[test]
fn waits_split_ticks_at_exact_step_times() {
    let (setup, _) = setup(4.0);
    let slot = AnimationSlotId::from_static("death");
    let preset = PreviewPreset {
        id: "split".into(),
        name: "split".into(),
        steps: vec![
            PreviewStep::SetTags { tags: "locomotion=idle".parse::<StateTagSet>().unwrap() },
            PreviewStep::Wait { seconds: 0.3 },
            PreviewStep::PlaySlot { slot },
            PreviewStep::Wait { seconds: 0.45 },
        ],
    };
    let mut sim = PreviewSim::new(setup).unwrap();
    let c = sim.run(&preset).unwrap();
    // Ticks at 0, 0.25, 0.5, 0.75: the slot plays at 0.3 inside the second tick.
    let times: Vec<f64> = c.ticks.iter().map(|t| t.time).collect();
    assert_eq!(times.len(), 4, "{times:?}");
    assert!((times[3] - 0.75).abs() < 1e-6, "{times:?}");
    let slot_event = c.events.iter().find(|e| e.kind == Recorded::Step(StepKind::Slot)).expect("slot event");
    assert!((slot_event.time - 0.3).abs() < 1e-6, "{}", slot_event.time);
    assert_eq!(c.name(slot_event.name), "death");
    assert_eq!((c.ticks[1].step, c.ticks[2].step), (1, 3), "first wait, then the second");
    assert!(
        c.tick_events(2).iter().any(|e| e.kind == Recorded::Step(StepKind::Slot)),
        "recorded with the tick it fell in"
    );
    assert!(c.tick_events(3).iter().all(|e| !e.kind.is_step()));
    // The slot's clip is on the slot layer from the tick after it started, and it moves the skeleton.
    let on_slot = |i: usize| c.tick_states(i).iter().any(|s| c.name(s.layer) == SLOT_LAYER_NAME && s.weight > 0.0);
    assert!(!on_slot(0) && on_slot(2) && on_slot(3));
    assert_ne!(c.tick_joints(1), c.tick_joints(3), "death moves joints");
}

#[test]
fn the_contract_pauses_resumes_and_stops() {
    let (setup, presets) = setup(30.0);
    let preset = presets.iter().find(|p| p.id == "hit_and_die").expect("fixture preset");
    let mut sim = PreviewSim::new(setup).unwrap();
    assert!(!sim.is_playing());
    sim.play(preset);
    assert!(sim.is_playing());
    let step0 = sim.current_step_index();
    assert!(matches!(preset.steps[step0], PreviewStep::Wait { .. }), "leading steps ran");
    sim.pause();
    assert!(!sim.is_playing());
    let (t, ticks) = (sim.time(), sim.capture().ticks.len());
    sim.tick(0.5);
    assert_eq!((sim.time(), sim.capture().ticks.len()), (t, ticks), "paused: nothing advances");
    sim.resume();
    while sim.is_playing() {
        sim.tick(0.1);
    }
    assert_eq!(sim.current_step_index(), preset.steps.len());
    assert!((sim.time() - f64::from(preset.duration())).abs() < 1e-4, "{}", sim.time());
    sim.stop();
    assert_eq!((sim.current_step_index(), sim.time()), (0, 0.0));
    // Bad ticks are ignored rather than corrupting time.
    sim.play(preset);
    sim.tick(f32::NAN);
    sim.tick(-1.0);
    assert_eq!(sim.time(), 0.0);
}

#[test]
fn bad_setups_are_reported() {
    let (mut s, _) = setup(0.0);
    s.bundle.player_set = None;
    let err = PreviewSim::new(s).unwrap_err().to_string();
    assert!(err.contains("rate") && err.contains("neither a player profile set"), "{err}");
    let (mut s, _) = setup(30.0);
    let set = s.bundle.player_set.as_mut().unwrap();
    let default = set.default_profile;
    let entry = set.profiles.iter_mut().find(|e| e.class == default).unwrap();
    (entry.animation_graph, entry.animation_profile) = (None, None);
    let err = PreviewSim::new(s).unwrap_err().to_string();
    assert!(err.contains("nothing would play"), "{err}");
}

#[test]
fn bad_presets_are_errors_and_empty_ones_end_at_once() {
    let (setup, _) = setup(30.0);
    let mut sim = PreviewSim::new(setup).unwrap();
    let preset = |steps| PreviewPreset { id: "p".into(), name: "p".into(), steps };
    for (steps, why) in [
        (vec![PreviewStep::Wait { seconds: -1.0 }], "finite and >= 0"),
        (vec![PreviewStep::Wait { seconds: f32::NAN }], "finite and >= 0"),
        (vec![PreviewStep::Wait { seconds: 1.0e6 }], "ticks"),
    ] {
        let err = sim.try_play(&preset(steps)).unwrap_err().to_string();
        assert!(err.contains(why), "{err}");
    }
    let c = sim.run(&preset(Vec::new())).unwrap();
    assert_eq!(c.ticks.len(), 1, "only the time-0 record");
    assert!(!sim.is_playing());
}

/// The selector's leading clip at tick `i` (the row with the largest weight).
fn selector_clip(c: &Capture, i: usize) -> Option<&str> {
    c.tick_rows(i).iter().max_by(|a, b| a.weight.total_cmp(&b.weight)).map(|r| c.name(r.clip))
}

/// Ticks whose time lies in `[from, to)`.
fn ticks_between(c: &Capture, from: f64, to: f64) -> Vec<usize> {
    (0..c.ticks.len()).filter(|&i| c.ticks[i].time >= from - 1e-9 && c.ticks[i].time < to - 1e-9).collect()
}

#[test]
fn locomotion_ramp_plays_each_gait_while_the_tags_say_so_and_returns_to_idle() {
    let (setup, presets) = setup(30.0);
    let preset = presets.iter().find(|p| p.id == "locomotion_ramp").expect("fixture preset");
    let mut sim = PreviewSim::new(setup).unwrap();
    let c = sim.run(preset).unwrap().clone();
    let tag_times: Vec<(f64, String)> = c
        .events
        .iter()
        .filter(|e| e.kind == Recorded::Step(StepKind::Tags))
        .map(|e| (e.time, c.name(e.name).to_owned()))
        .collect();
    let gait = |tags: &str| tags.split(' ').find_map(|t| t.strip_prefix("locomotion=")).unwrap().to_owned();
    let end = c.ticks.last().unwrap().time;
    for (k, (at, tags)) in tag_times.iter().enumerate() {
        let until = tag_times.get(k + 1).map_or(end + 1.0, |(t, _)| *t);
        // Allow the dimension's hold and cross-fade (under 0.3 s with the shipped timing) to pass.
        let settled: Vec<usize> = ticks_between(&c, at + 0.3, until.min(at + 1.0));
        assert!(!settled.is_empty(), "ticks after `{tags}`");
        for i in settled {
            assert_eq!(
                selector_clip(&c, i),
                Some(gait(tags).as_str()),
                "tick {i} at {:.3} s: tags `{tags}`",
                c.ticks[i].time
            );
        }
    }
    assert!(tag_times.iter().any(|(_, t)| t.contains("sprint")), "the preset reaches sprint");
    assert_eq!(tag_times.last().map(|(_, t)| gait(t)), Some("idle".to_owned()), "the preset returns to idle");
}

#[test]
fn hit_and_die_plays_the_hit_then_dying() {
    let (setup, presets) = setup(30.0);
    let preset = presets.iter().find(|p| p.id == "hit_and_die").expect("fixture preset");
    let mut sim = PreviewSim::new(setup).unwrap();
    let c = sim.run(preset).unwrap().clone();
    let shows = |i: usize, clip: &str| {
        c.tick_rows(i).iter().any(|r| c.name(r.clip) == clip && r.weight > 0.5)
            || c.tick_states(i).iter().any(|s| c.name(s.state) == clip && s.weight > 0.5)
    };
    let tags_at = |what: &str| {
        c.events
            .iter()
            .find(|e| e.kind == Recorded::Step(StepKind::Tags) && c.name(e.name).contains(what))
            .unwrap()
            .time
    };
    let (hit_at, dying_at) = (tags_at("reaction=hit"), tags_at("reaction=dying"));
    let before: Vec<usize> = ticks_between(&c, 0.0, hit_at).into_iter().filter(|&i| shows(i, "hit_react")).collect();
    assert!(before.is_empty(), "no hit before it happens: {before:?}");
    let hit: Vec<usize> = ticks_between(&c, hit_at, dying_at).into_iter().filter(|&i| shows(i, "hit_react")).collect();
    assert!(hit.len() >= 5, "hit_react plays after the hit: ticks {hit:?}");
    let dying = ticks_between(&c, dying_at + 0.3, dying_at + 2.0);
    assert!(!dying.is_empty());
    for i in dying {
        assert!(shows(i, "death"), "tick {i} at {:.3} s shows death", c.ticks[i].time);
    }
    // The death pose differs from the start: the body went down.
    let (first, last) = (c.tick_joints(0), c.tick_joints(c.ticks.len() - 1));
    assert_ne!(first, last);
}

/// The binding sub-phase events of a capture, as `(kind, binding, time)`.
fn binding_events(c: &Capture) -> Vec<(&'static str, &str, f64)> {
    c.events
        .iter()
        .filter(|e| matches!(e.kind, Recorded::Event(zoa_anim_runtime::character::EventKind::Binding { .. })))
        .map(|e| (e.kind.as_str(), c.name(e.name), e.time))
        .collect()
}

/// Time of the first event of `kind` named `name` at or after `from`.
fn event_time(c: &Capture, kind: &str, name: &str, from: f64) -> f64 {
    c.events
        .iter()
        .find(|e| e.kind.as_str() == kind && c.name(e.name) == name && e.time >= from - 1e-9)
        .unwrap_or_else(|| panic!("a {kind} `{name}` event after {from} s"))
        .time
}

#[test]
fn binding_sub_phases_are_recorded_with_the_graph_events_that_cause_them() {
    let (setup, presets) = setup(30.0);
    let mut sim = PreviewSim::new(setup).unwrap();
    let preset = |id: &str| presets.iter().find(|p| p.id == id).expect("fixture preset");

    // hit_and_die: `hit` starts hit_react, which plays out (left at its exit time); then `die` starts death.
    let c = sim.run(preset("hit_and_die")).unwrap().clone();
    let hit_at = event_time(&c, "trigger", "hit", 0.0);
    let back_at = event_time(&c, "transition_started", "locomotion", hit_at);
    let die_at = event_time(&c, "trigger", "die", 0.0);
    let phases = binding_events(&c);
    let names: Vec<(&str, &str)> = phases.iter().map(|(k, n, _)| (*k, *n)).collect();
    assert_eq!(names, [("binding_start", "hit"), ("binding_complete", "hit"), ("binding_start", "die")]);
    // Animation events carry the character's clock, steps the preview's: equal to float round-off.
    let same = |a: f64, b: f64| (a - b).abs() < 1e-6;
    assert!(same(event_time(&c, "transition_started", "hit_react", 0.0), hit_at));
    assert!(same(phases[0].2, hit_at), "hit starts when its transition starts: {phases:?}");
    assert!(same(phases[1].2, back_at), "hit completes when hit_react is left at its exit time: {phases:?}");
    assert!(back_at < die_at);
    assert!(same(phases[2].2, die_at), "death interrupts the way back at once: {phases:?}");
    // Each is recorded with the tick it fell in.
    for (kind, name, time) in &phases {
        let tick = c.ticks.iter().position(|t| t.time >= *time - 1e-9).unwrap();
        assert!(
            c.tick_events(tick).iter().any(|e| e.kind.as_str() == *kind && c.name(e.name) == *name),
            "{kind} {name} in tick {tick}"
        );
    }

    // rifle_fire_cycle: `equip` raises the rifle; aiming takes over before the raise plays out (cancel).
    let c = sim.run(preset("rifle_fire_cycle")).unwrap().clone();
    let aim_at = event_time(&c, "transition_started", "aiming", 0.0);
    let equip: Vec<(&str, f64)> =
        binding_events(&c).into_iter().filter(|(_, n, _)| *n == "equip").map(|(k, _, t)| (k, t)).collect();
    assert_eq!(equip.iter().map(|(k, _)| *k).collect::<Vec<_>>(), ["binding_start", "binding_cancel"]);
    assert_eq!(equip[0].1, 0.0);
    assert!(same(equip[1].1, aim_at), "the raise is cut short when aiming starts: {equip:?}");
}

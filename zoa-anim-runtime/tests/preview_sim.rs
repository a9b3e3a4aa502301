//! The preview simulator on the fixture humanoid: ticks allocate nothing after
//! `play` (a thread-local counting allocator in its own test binary), the
//! capture is bit-identical run to run, waits split ticks at exact step times,
//! and the `PreviewSimulator` contract (pause, resume, stop, step index) holds.

use std::path::Path;
use std::sync::Arc;

use zoa_anim_assets::defs::load_folder;
use zoa_anim_assets::gltf::load_gltf;
use zoa_anim_core::contracts::PreviewSimulator;
use zoa_anim_core::preview::{PreviewPreset, PreviewStep};
use zoa_anim_core::{AnimationSelector, AnimationSlotId, StateTagSet};
use zoa_anim_runtime::graph::ClipInfo;
use zoa_anim_runtime::preview::{
    Capture, CaptureEventKind, DEFAULT_LOADOUT_CROSSFADE, PreviewSetup, PreviewSim, SLOT_LAYER_NAME,
};
use zoa_anim_runtime::{Animation, BindBy};
use zoa_test_support::alloc::{CountingAllocator, thread_allocations_during};

#[global_allocator]
static GLOBAL: CountingAllocator = CountingAllocator;

const DEFS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/defs/humanoid");

fn setup(rate: f32) -> (PreviewSetup, Vec<PreviewPreset>) {
    let set = load_folder(Path::new(DEFS));
    let model = load_gltf(&Path::new(DEFS).join(&set.clips[0].value.source)).expect("fixture model");
    let skeleton = model.skeletons[0].clone();
    let mut clips = Vec::new();
    let mut animations = Vec::new();
    for c in &set.clips {
        let AnimationSelector::Name(name) = &c.value.animation else { panic!("fixture clips select by name") };
        let source = model.clips.iter().find(|k| k.name() == name).expect("animation in the model");
        let a = Animation::bind(source, &skeleton, BindBy::Node).unwrap();
        clips.push(ClipInfo::from_asset(&c.value, a.duration()));
        animations.push(Arc::new(a));
    }
    let setup = PreviewSetup {
        skeleton,
        clips,
        animations,
        player_set: set.player_profile_sets[0].value.clone(),
        graphs: set.animation_graphs.iter().map(|g| (g.value.id.clone(), g.value.clone())).collect(),
        binding_profiles: set.binding_profiles.iter().map(|b| b.value.clone()).collect(),
        animation_profiles: set.animation_profiles.iter().map(|p| p.value.clone()).collect(),
        state_graph: set.state_graphs.first().map(|s| s.value.clone()).unwrap_or_default(),
        rig_policy: set.rig_policies.first().map(|r| r.value.clone()).unwrap_or_default(),
        rate,
        loadout_crossfade: DEFAULT_LOADOUT_CROSSFADE,
    };
    let presets = set.preview_presets.iter().map(|p| p.value.clone()).collect();
    (setup, presets)
}

/// Everything in a capture as bits (NaN-safe, exact).
fn fingerprint(c: &Capture) -> String {
    let bits: Vec<u32> =
        c.binding_values.iter().chain(c.joint_positions.iter().flatten()).map(|v| v.to_bits()).collect();
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
    let slot_event = c.events.iter().find(|e| e.kind == CaptureEventKind::Slot).expect("slot event");
    assert!((slot_event.time - 0.3).abs() < 1e-6, "{}", slot_event.time);
    assert_eq!(c.name(slot_event.name), "death");
    assert_eq!((c.ticks[1].step, c.ticks[2].step), (1, 3), "first wait, then the second");
    assert!(c.tick_events(2).iter().any(|e| e.kind == CaptureEventKind::Slot), "recorded with the tick it fell in");
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
    s.animations.pop();
    let err = PreviewSim::new(s).unwrap_err().to_string();
    assert!(err.contains("rate") && err.contains("animations"), "{err}");
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

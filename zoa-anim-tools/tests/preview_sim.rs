//! The preview simulator on the fixture humanoid: ticks allocate nothing after
//! `play` (a thread-local counting allocator in its own test binary), the
//! capture is bit-identical run to run, waits split ticks at exact step times,
//! the `PreviewSimulator` contract (pause, resume, stop, step index) holds, a
//! pose is rebuilt from the capture's contributions alone, and the sound cues
//! and IK goals are what the sound profile and the ground say.

use std::path::Path;

use zoa_anim_assets::defs::load_folder;
use zoa_anim_core::contracts::PreviewSimulator;
use zoa_anim_core::preview::{PreviewPreset, PreviewStep};
use zoa_anim_core::{AnimationSlotId, StateTagSet};
use zoa_anim_runtime::CharacterDefinition;
use zoa_anim_tools::preview::{
    Capture, NameId, PartRecord, PreviewSetup, PreviewSim, Recorded, SLOT_LAYER_NAME, SoundRecord, StepKind,
};
use zoa_test_support::alloc::{CountingAllocator, thread_allocations_during};

#[global_allocator]
static GLOBAL: CountingAllocator = CountingAllocator;

const DEFS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/defs/humanoid");

fn setup(rate: f32) -> (PreviewSetup, Vec<PreviewPreset>) {
    let set = load_folder(Path::new(DEFS));
    let mut setup = PreviewSetup::from_folder(&set, Path::new(DEFS), rate).expect("the fixture loads");
    assert!(setup.sound.is_some(), "the fixture's sounds load: {:?}", setup.sound_problem);
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
    format!(
        "{:?}{:?}{:?}{:?}{:?}{:?}{:?}{:?}{bits:?}",
        c.ticks, c.states, c.rows, c.events, c.contributions, c.sounds, c.ik, c.names
    )
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

/// The local pose of tick `i` rebuilt from the capture alone: its
/// contributions (clip by name, clip time, final weight, blend mode, mask by
/// id from `c.masks`) composed by the runtime's public `ComposeJob`, each
/// stack layer at weight 1 (the weights are final), the outgoing stack of a
/// loadout switch cross-faded by the tick's `switch_alpha`. Only the clips
/// come from the definition.
fn recompose(def: &CharacterDefinition, c: &Capture, i: usize) -> Vec<[f32; 10]> {
    use zoa_anim_runtime::pose::{
        Animation, BlendMode, ComposeJob, Composition, PoseScratch, PoseStack, ReferencePose, SamplingContext,
        StackInput, StackSources, blend_into,
    };
    struct Sources<'a> {
        animations: &'a [std::sync::Arc<Animation>],
        references: Vec<ReferencePose>,
        masks: &'a [(NameId, Vec<f32>)],
    }
    impl StackSources for Sources<'_> {
        fn animation(&self, i: u32) -> &Animation {
            &self.animations[i as usize]
        }
        fn mask(&self, m: u32) -> Option<&[f32]> {
            self.masks.get(m as usize).map(|(_, w)| w.as_slice())
        }
        fn reference(&self, r: u32) -> Option<&ReferencePose> {
            self.references.get(r as usize)
        }
    }
    let rest = def.skeleton().rest();
    let sources = Sources {
        animations: def.animations(),
        references: def
            .animations()
            .iter()
            .map(|a| ReferencePose::from_pose(&a.sample_to_new(0.0, rest).unwrap()))
            .collect(),
        masks: &c.masks,
    };
    let compose = |outgoing: bool| {
        let mut stack = PoseStack::default();
        let mut open = None;
        for k in c.tick_contributions(i).iter().filter(|k| k.outgoing == outgoing) {
            assert_ne!(k.part, PartRecord::Procedural, "tick {i}: a procedural layer is computed, not sampled");
            let mode = if k.additive { BlendMode::Additive } else { BlendMode::Override };
            if open != Some(k.stack_layer) {
                stack.layer(mode, 1.0);
                open = Some(k.stack_layer);
            }
            let clip = def.clips().index_of(c.name(k.clip.unwrap())).unwrap().index() as u32;
            let mask = k.mask.map_or(u32::MAX, |m| c.masks.iter().position(|(n, _)| *n == m).unwrap() as u32);
            let reference = if k.additive { clip } else { u32::MAX };
            stack.push(StackInput {
                animation: clip,
                cursor: clip,
                time: k.clip_time,
                weight: k.weight,
                mask,
                reference,
            });
        }
        let mut contexts: Vec<SamplingContext> =
            def.animations().iter().map(|a| SamplingContext::for_animation(a)).collect();
        let mut out = rest.clone();
        ComposeJob {
            composition: Composition::Layered,
            skeleton: def.skeleton(),
            stack: &stack,
            sources: &sources,
            contexts: &mut contexts,
            extra: None,
            scratch: &mut PoseScratch::for_rest(rest),
            output: &mut out,
            morphs: None,
        }
        .run()
        .unwrap();
        out
    };
    let mut pose = compose(false);
    if c.tick_contributions(i).iter().any(|k| k.outgoing) {
        blend_into(&mut pose, &compose(true), 1.0 - c.ticks[i].switch_alpha);
    }
    (0..pose.len())
        .map(|j| {
            let t = pose.get(j);
            let (p, r, s) = (t.translation, t.rotation, t.scale);
            [p.x, p.y, p.z, r.x, r.y, r.z, r.w, s.x, s.y, s.z]
        })
        .collect()
}

/// Whether tick `i`'s pose is its contributions' alone (no IK goal, no
/// inertialization, no procedural layer): what [`recompose`] can rebuild.
fn composed_only(c: &Capture, i: usize) -> bool {
    c.tick_ik(i).is_empty()
        && !c.ticks[i].inertializing
        && c.tick_contributions(i).iter().all(|k| k.part != PartRecord::Procedural)
}

#[test]
fn a_pose_is_rebuilt_from_the_capture_alone_mid_cross_fade_through_masks_and_a_loadout_switch() {
    let (mut setup, presets) = setup(30.0);
    setup.ground = None; // no foot planting: the local pose is what blending produced
    // No items in hand either: hand on weapon would move the arms through
    // every tick of a loadout switch (the grips blend in over it).
    setup.bundle.equipment.clear();
    let mut sim = PreviewSim::new(setup).unwrap();
    let def = sim.definition().clone();
    let rearm = PreviewPreset {
        id: "rearm".into(),
        name: "rearm".into(),
        steps: vec![
            PreviewStep::SetTags { tags: "locomotion=idle combat=unarmed".parse().unwrap() },
            PreviewStep::Wait { seconds: 0.5 },
            PreviewStep::SetTags { tags: "locomotion=idle combat=armed_rifle".parse().unwrap() },
            PreviewStep::Wait { seconds: 0.6 },
        ],
    };
    let mut checked = std::collections::BTreeMap::new();
    for preset in presets.iter().chain([&rearm]) {
        let c = sim.run(preset).unwrap().clone();
        for i in 0..c.ticks.len() {
            let inputs = c.tick_contributions(i);
            assert!(!inputs.is_empty(), "{} tick {i}: something plays", preset.id);
            // Per stack layer, the override weights are a share of the layer: at most 1 in all.
            for side in [false, true] {
                for layer in 0..16u16 {
                    let of = inputs.iter().filter(|k| k.outgoing == side && k.stack_layer == layer && !k.additive);
                    let sum: f32 = of.map(|k| k.weight).sum();
                    assert!(sum <= 1.0 + 1e-5, "{} tick {i}: stack layer {layer} sums to {sum}", preset.id);
                }
            }
            // The graph's base layer is all of it: its states' weights sum to 1.
            let base: f32 = inputs
                .iter()
                .filter(|k| !k.outgoing && matches!(k.part, PartRecord::State { layer_index: 0, .. }))
                .map(|k| k.weight)
                .sum();
            assert!((base - 1.0).abs() < 1e-5, "{} tick {i}: the base layer's weights sum to {base}", preset.id);
            if !composed_only(&c, i) {
                continue;
            }
            let want = c.tick_locals(i);
            for (j, (got, want)) in recompose(&def, &c, i).iter().zip(want).enumerate() {
                let diff = got.iter().zip(want).map(|(a, b)| (a - b).abs()).fold(0.0f32, f32::max);
                assert!(diff < 1e-5, "{} tick {i} joint {j}: rebuilt {got:?}, recorded {want:?}", preset.id);
            }
            let cross_fade = inputs.iter().any(|k| !k.additive && k.weight > 0.01 && k.weight < 0.99);
            let masked = inputs.iter().any(|k| k.mask.is_some());
            let switching = inputs.iter().any(|k| k.outgoing);
            for (what, yes) in
                [("all", true), ("cross-fade", cross_fade), ("mask", masked), ("loadout switch", switching)]
            {
                *checked.entry(what).or_insert(0) += usize::from(yes);
            }
        }
    }
    for what in ["cross-fade", "mask", "loadout switch"] {
        assert!(checked.get(what).is_some_and(|n| *n >= 3), "ticks rebuilt with a {what}: {checked:?}");
    }
    assert!(checked["all"] > 300, "{checked:?}");
}

#[test]
fn footsteps_sound_through_the_profile_and_the_feet_plant_on_the_ground() {
    let (setup, presets) = setup(30.0);
    let preset = presets.iter().find(|p| p.id == "locomotion_ramp").unwrap();
    let mut sim = PreviewSim::new(setup).unwrap();
    let c = sim.run(preset).unwrap().clone();
    // Every footstep notify sounds, at its time, through the surface-less footstep entry.
    let notifies: Vec<f64> = c
        .events
        .iter()
        .filter(|e| matches!(e.kind, Recorded::Event(zoa_anim_runtime::EventKind::Notify { .. })))
        .filter(|e| c.name(e.name) == "Footstep")
        .map(|e| e.time)
        .collect();
    let footsteps: Vec<&SoundRecord> = c.sounds.iter().filter(|s| c.name(s.event) == "footstep").collect();
    assert!(notifies.len() >= 6, "{notifies:?}");
    assert_eq!(footsteps.iter().map(|s| s.time).collect::<Vec<_>>(), notifies);
    for s in &footsteps {
        let (entry, clip) = c.sound_entry(s).expect("resolved");
        assert_eq!(s.outcome.name(), "started");
        assert_eq!((c.name(entry.event), c.name(entry.profile), c.name(entry.bus)), ("footstep", "human", "sfx"));
        assert!(c.name(clip.unwrap()).ends_with("footstep_concrete_1.wav"));
        assert_eq!(s.gain, 1.0, "the entry's volume, no jitter");
    }
    // `jump` (the binding's start) and `land` (the notify) have no entry in `human`: recorded as no match.
    for event in ["jump", "land"] {
        let s = c.sounds.iter().find(|s| c.name(s.event) == event).unwrap_or_else(|| panic!("{event} cue"));
        assert_eq!((s.outcome.name(), c.sound_entry(s)), ("no_match", None));
    }
    // Foot planting: both feet while slow (weight fading with speed), none at a sprint.
    for i in 0..c.ticks.len() {
        let goals = c.tick_ik(i);
        let speed = c.tick_bindings(i)[0];
        let feet = goals.iter().filter(|g| g.behaviour == zoa_anim_ik::PolicyKind::FootPlant).count();
        match speed {
            0.0 => assert_eq!((feet, goals[0].weight), (2, 1.0), "tick {i}"),
            6.5 => assert_eq!(feet, 0, "tick {i}: no planting at a sprint"),
            _ => {}
        }
        for g in goals {
            // Flat ground at 0: the target is the animated foot, which the solve keeps.
            assert!(g.error < 1e-4, "tick {i}: {g:?}");
            assert!(g.target[1] > 0.05, "the ankle's target is above the ground: {g:?}");
        }
    }
    assert_eq!(c.binding_columns.first().map(|b| c.name(*b)), Some("speed"));
}

#[test]
fn a_folder_whose_sound_files_are_missing_previews_without_sound_and_says_why() {
    use zoa_test_support::paths::{copy_dir, fixture, temp_dir};
    let tmp = temp_dir("preview-no-sound");
    let dir = tmp.path().join("defs/humanoid");
    copy_dir(&fixture("defs/humanoid"), &dir);
    copy_dir(&fixture("sounds"), &tmp.path().join("sounds"));
    std::fs::create_dir_all(tmp.path().join("models")).unwrap();
    std::fs::copy(fixture("models/humanoid.glb"), tmp.path().join("models/humanoid.glb")).unwrap();
    // One variant names a file that is not there.
    let human = dir.join("sounds/human.toml");
    let text = std::fs::read_to_string(&human).unwrap().replace("footstep_concrete_1.wav", "no_such.wav");
    std::fs::write(&human, text).unwrap();
    let set = load_folder(&dir);
    let setup = PreviewSetup::from_folder(&set, &dir, 30.0).unwrap();
    assert!(setup.sound.is_none());
    let problem = setup.sound_problem.clone().unwrap();
    assert!(problem.contains("no_such.wav") && problem.contains("human"), "{problem}");
    let preset = set.preview_preset("locomotion_ramp").unwrap().clone();
    let mut sim = PreviewSim::new(setup).unwrap();
    let c = sim.run(&preset).unwrap();
    assert!(c.sounds.is_empty() && c.sound_profile.is_none());
    assert_eq!(c.sound_problem.as_deref(), Some(problem.as_str()));
}

//! The public character pipeline on the fixture humanoid: set-up, tags
//! reaching the pose, transition timing, slot over the graph,
//! inertialization, procedural fallback, masks during loadout switches,
//! binding sub-phases, events and the sound bridge.

mod character_common;

use character_common::*;
use zoa_anim_runtime::Character;

#[test]
fn the_fixture_compiles_and_a_character_evaluates() {
    let def = definition(&fixture_bundle());
    let mut c = Character::new(&def).unwrap();
    c.set_tags(tags("locomotion=walk posture=standing combat=unarmed"));
    c.set_speed(1.5);
    run(&mut c, 1.0);
    assert!(c.model_matrices().iter().all(|m| m.is_finite()));
    assert_eq!(c.skinning_matrices().len(), def.skeleton().joint_count());
    assert!(c.selector_weight() > 0.99, "{}", c.selector_weight());
}

use zoa_anim_core::DefaultBindings;
use zoa_anim_runtime::character::graph::{ContributionSource, SLOT_LAYER};
use zoa_anim_runtime::{CharacterDefinition, pose::Pose};

const DT: f32 = 1.0 / 60.0;

/// The clip the selector currently leads with.
fn selector_clip(c: &Character) -> &str {
    let id = c.selector().unwrap().current_clip().unwrap();
    &c.definition().clips().get(id).name
}

/// Every property `clip` animates equals the clip sampled at `time` (1e-5).
fn shows_clip(def: &CharacterDefinition, pose: &Pose, clip: &str, time: f32) -> Result<(), String> {
    let id = def.clips().index_of(clip).unwrap();
    let a = &def.animations()[id.index()];
    let want = a.sample_to_new(time, def.skeleton().rest()).unwrap();
    for j in 0..pose.len() {
        let bits = a.animated()[j];
        let (g, w) = (pose.get(j), want.get(j));
        let t_ok = bits & 1 == 0 || (g.translation - w.translation).length() < 1e-5;
        let r_ok = bits & 2 == 0 || g.rotation.dot(w.rotation).abs() > 1.0 - 1e-6;
        if !(t_ok && r_ok) {
            return Err(format!("joint {j}: {g:?} vs {clip}@{time}: {w:?}"));
        }
    }
    Ok(())
}

fn selector_time(c: &Character) -> f32 {
    c.selector_frame()
        .contributions
        .iter()
        .find(|k| matches!(k.source, ContributionSource::Selector { .. }))
        .unwrap()
        .time
}

fn graphless(mut b: zoa_anim_core::CharacterBundle) -> zoa_anim_core::CharacterBundle {
    b.player_set = None;
    b.animation_profile = Some("humanoid_base".into());
    b
}

#[test]
fn a_tag_change_reaches_the_pose_after_its_hold_and_cross_fade_with_a_graph_and_without() {
    for with_graph in [true, false] {
        let b = without_ik(fixture_bundle());
        let def = definition(&if with_graph { b } else { graphless(b) });
        let mut c = Character::new(&def).unwrap();
        c.set_tags(tags("locomotion=idle posture=standing"));
        run(&mut c, 0.5);
        assert_eq!(selector_clip(&c), "idle");
        shows_clip(&def, c.local_pose(), "idle", selector_time(&c)).unwrap();
        // Only the tags and the entity speed change (the graph's `speed` stays 0, so it keeps idling).
        c.set_tags(tags("locomotion=sprint posture=standing"));
        c.set_speed(6.5);
        c.update(DT).unwrap();
        assert_eq!(selector_clip(&c), "sprint", "locomotion's hold (0.05 s) has long expired");
        let w = c.selector().unwrap().current_weight();
        assert!(w > 0.0 && w < 0.2, "cross-fading over 0.15 s: {w}");
        assert!(shows_clip(&def, c.local_pose(), "sprint", selector_time(&c)).is_err(), "mid-fade");
        run(&mut c, 0.15);
        assert_eq!(c.selector().unwrap().current_weight(), 1.0);
        shows_clip(&def, c.local_pose(), "sprint", selector_time(&c))
            .unwrap_or_else(|e| panic!("graph {with_graph}: {e}"));
        assert!(c.selector_weight() > 0.999);
    }
}

#[test]
fn with_a_graph_the_untagged_default_yields_to_the_graph_and_graph_actions_win_over_tags() {
    let def = definition(&without_ik(fixture_bundle()));
    let mut c = Character::new(&def).unwrap();
    run(&mut c, 0.2);
    assert_eq!(selector_clip(&c), "idle", "no tags: the universal default row");
    assert_eq!(c.selector_weight(), 0.0, "the untagged default does not cover the graph");
    c.set_tags(tags("locomotion=walk"));
    c.set_speed(1.5);
    run(&mut c, 0.3);
    assert!(c.selector_weight() > 0.999);
    // A jump is an explicit graph action: the base layer leaves its entry state and the graph shows.
    c.fire(DefaultBindings::JUMP);
    run(&mut c, 0.25);
    assert_eq!(c.graph_instance().current_state_name(0), Some("jump_start"));
    assert_eq!(c.selector_weight(), 0.0);
}

#[test]
fn locomotion_follows_each_gait_threshold_and_reactions_switch_on_their_event_and_hand_back() {
    let def = definition(&graphless(without_ik(fixture_bundle())));
    let mut c = Character::new(&def).unwrap();
    c.set_tags(tags("locomotion=walk"));
    c.set_speed(1.5);
    run(&mut c, 0.3);
    assert_eq!(selector_clip(&c), "walk");
    c.set_tags(tags("locomotion=run"));
    run(&mut c, 0.5);
    assert_eq!(selector_clip(&c), "walk", "still at walking speed: the run waits for the speed");
    c.set_speed(4.0);
    run(&mut c, 0.1);
    assert_eq!(selector_clip(&c), "run");
    c.set_tags(tags("locomotion=sprint"));
    c.set_speed(6.5);
    run(&mut c, 0.1);
    assert_eq!(selector_clip(&c), "sprint");
    c.set_tags(tags("locomotion=idle"));
    c.set_speed(0.0);
    run(&mut c, 0.1);
    assert_eq!(selector_clip(&c), "idle");
    // Reaction: on an event. Setting the tag alone waits; firing `hit` releases it.
    c.set_tags(tags("locomotion=idle reaction=hit"));
    run(&mut c, 0.5);
    assert_eq!(selector_clip(&c), "idle");
    c.fire(DefaultBindings::HIT);
    c.update(DT).unwrap();
    assert_eq!(selector_clip(&c), "hit_react");
    let hit = def.clips().get(def.clips().index_of("hit_react").unwrap()).duration;
    run(&mut c, hit + 0.1);
    assert_eq!(selector_clip(&c), "idle", "the one-shot hands back");
}

#[test]
fn the_override_slot_at_full_envelope_shows_its_clip_alone_over_the_graph() {
    let def = definition(&without_ik(fixture_bundle()));
    let mut c = Character::new(&def).unwrap();
    c.equip(zoa_anim_core::PlayerProfileType::Rifle).unwrap();
    c.set_bool(DefaultBindings::IS_AIMING, true);
    run(&mut c, 0.5);
    assert!(c.play_slot("reload_magazine".parse().unwrap()));
    c.update(DT).unwrap();
    let (layer, cs) = c.frame().find_layer(SLOT_LAYER).unwrap();
    assert!(layer.weight < 1.0, "fading in over 0.1 s");
    assert!(shows_clip(&def, c.local_pose(), "reload", cs[0].time).is_err());
    run(&mut c, 0.2);
    let (layer, cs) = c.frame().find_layer(SLOT_LAYER).unwrap();
    assert_eq!(layer.weight, 1.0);
    shows_clip(&def, c.local_pose(), "reload", cs[0].time).unwrap();
}

fn positions(c: &Character) -> Vec<zoa_anim_core::glam::Vec3> {
    c.model_matrices().iter().map(|m| m.w_axis.truncate()).collect()
}

fn max_step(a: &[zoa_anim_core::glam::Vec3], b: &[zoa_anim_core::glam::Vec3]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x.distance(*y)).fold(0.0, f32::max)
}

#[test]
fn an_inertialized_fall_to_land_does_not_pop() {
    // The graph alone (no tag tables), IK off.
    let mut b = without_ik(fixture_bundle());
    for e in &mut b.player_set.as_mut().unwrap().profiles {
        e.animation_profile = None;
    }
    let def = definition(&b);
    let mut c = Character::new(&def).unwrap();
    run(&mut c, 0.2);
    c.fire(DefaultBindings::JUMP);
    c.update(DT).unwrap();
    c.set_bool(DefaultBindings::IS_GROUNDED, false);
    run(&mut c, 1.5);
    assert_eq!(c.graph_instance().current_state_name(0), Some("fall"));
    let mut before = positions(&c);
    let mut steps = Vec::new();
    for _ in 0..5 {
        c.update(DT).unwrap();
        let now = positions(&c);
        steps.push(max_step(&before, &now));
        before = now;
    }
    let usual = steps.iter().copied().fold(0.0, f32::max);
    c.set_bool(DefaultBindings::IS_GROUNDED, true);
    c.update(DT).unwrap();
    assert_eq!(c.graph_instance().current_state_name(0), Some("land"));
    assert!(c.is_inertializing());
    let at_switch = max_step(&before, &positions(&c));
    // What a cut would have shown: the land clip's first pose against the last fall frame.
    let land = &def.animations()[def.clips().index_of("land").unwrap().index()];
    let t = c.frame().layer_contributions(0)[0].time;
    let target = land.sample_to_new(t, def.skeleton().rest()).unwrap();
    let mut model = vec![zoa_anim_core::glam::Mat4::IDENTITY; target.len()];
    zoa_anim_runtime::pose::LocalToModelJob {
        skeleton: def.skeleton(),
        input: &target,
        root: None,
        output: &mut model,
    }
    .run()
    .unwrap();
    let cut: Vec<_> = model.iter().map(|m| m.w_axis.truncate()).collect();
    let pop = max_step(&before, &cut);
    assert!(pop > 4.0 * usual + 0.02, "the test needs a visible pop to remove: pop {pop}, usual {usual}");
    assert!(
        at_switch <= 1.5 * usual + 1e-3,
        "inertialized: {at_switch} vs usual per-frame motion {usual} (a cut: {pop})"
    );
    // It decays to the target within the blend (0.05 s) and then the land clip shows as is.
    let mut prev = positions(&c);
    for _ in 0..4 {
        c.update(DT).unwrap();
        let now = positions(&c);
        assert!(max_step(&prev, &now) < pop, "no later pop either");
        prev = now;
    }
    assert!(!c.is_inertializing());
}

#[test]
fn the_procedural_fallback_breathes_on_the_spine_and_chest_and_bobs_the_head() {
    use zoa_anim_core::{AnimationProfile, TaggedClipEntry};
    let mut b = without_ik(graphless(fixture_bundle()));
    b.animation_profiles.push(AnimationProfile {
        id: "sprint_only".into(),
        entries: vec![TaggedClipEntry::new(tags("locomotion=sprint"), "sprint")],
        procedural_fallbacks_allowed: true,
        default_idle_clip: None,
        pick: None,
        range_crossfade: None,
        parent: None,
    });
    b.animation_profile = Some("sprint_only".into());
    let def = definition(&b);
    let joints = def.procedural_joints();
    let (spine, chest, head) =
        (joints.spine.unwrap() as usize, joints.chest.unwrap() as usize, joints.head.unwrap() as usize);
    let names: Vec<_> = [spine, chest, head].iter().map(|&j| def.skeleton().skeleton().display_name(j)).collect();
    assert_eq!(names, ["Spine", "Spine2", "Head"], "roles found by IK discovery");
    let mut c = Character::new(&def).unwrap();
    c.set_tags(tags("locomotion=walk"));
    c.set_speed(1.5);
    run(&mut c, 1.3);
    let (motion, weight) = c.selector().unwrap().procedural().unwrap();
    assert_eq!(weight, 1.0);
    assert!(motion.spine_pitch.abs() > 1e-3 && motion.head_bob.abs() > 1e-4, "{motion:?}");
    let rest = def.skeleton().rest();
    let pose = c.local_pose();
    let pitch = zoa_anim_core::glam::Quat::from_rotation_x(motion.spine_pitch * 0.5);
    for j in [spine, chest] {
        assert!(pose.rotation(j).abs_diff_eq(rest.rotation(j) * pitch, 1e-5), "joint {j}");
    }
    let bob = pose.translation(head) - rest.translation(head);
    assert!((bob - zoa_anim_core::glam::Vec3A::new(0.0, motion.head_bob, 0.0)).length() < 1e-6, "{bob:?}");
    for j in (0..pose.len()).filter(|j| ![spine, chest, head].contains(j)) {
        assert_eq!(pose.get(j), rest.get(j), "joint {j} keeps its rest pose");
    }
}

/// Records every delivered event as `(character, time, text)`.
#[derive(Default)]
struct Log(Vec<(usize, f64, String)>);

impl zoa_anim_runtime::character::CharacterEventReceiver for Log {
    fn on_character_event(&mut self, character: usize, source: &Character, event: &zoa_anim_runtime::character::Event) {
        use zoa_anim_runtime::character::EventKind as K;
        let _ = source;
        let name = event.name;
        let text = match event.kind {
            K::Binding { binding, .. } => format!("{binding} {name}"),
            K::Notify { .. } => format!("notify {name}"),
            K::StateEntered { .. } => format!("enter {name}"),
            K::StateExited { .. } => format!("exit {name}"),
            K::TransitionStarted { .. } => format!("transition {name}"),
            K::TransitionFinished { .. } => format!("finished {name}"),
            K::SlotStarted { .. } => format!("slot start {name}"),
            K::SlotEnded { interrupted, .. } => format!("slot end {name} {interrupted}"),
            _ => format!("other {name}"),
        };
        self.0.push((character, event.time, text));
    }
}

#[test]
fn a_fired_binding_reports_start_then_complete_or_cancel_in_time_order() {
    let def = definition(&fixture_bundle());
    let mut c = Character::new(&def).unwrap();
    c.equip(zoa_anim_core::PlayerProfileType::Rifle).unwrap();
    run(&mut c, 0.5);
    let mut log = Log::default();
    c.deliver_events(0, &mut log);
    log.0.clear();
    c.fire(DefaultBindings::RELOAD);
    run(&mut c, 3.0);
    c.deliver_events(7, &mut log);
    let reload: Vec<_> = log.0.iter().filter(|(_, _, t)| t.starts_with("reload ")).collect();
    assert_eq!(reload.iter().map(|(_, _, t)| t.as_str()).collect::<Vec<_>>(), ["reload start", "reload complete"]);
    assert!(log.0.iter().all(|(k, ..)| *k == 7));
    assert!(log.0.windows(2).all(|w| w[0].1 <= w[1].1), "time order: {:?}", log.0);
    let start = log.0.iter().position(|(_, _, t)| t == "reload start").unwrap();
    assert_eq!(log.0[start - 1].2, "enter reloading", "start comes right after the state it starts");
    let (t0, t1) = (reload[0].1, reload[1].1);
    assert!(t1 - t0 > 1.0, "the reload played out: {t0} .. {t1}");
    // A reload cut short by a loadout switch to another graph is cancelled.
    log.0.clear();
    c.fire(DefaultBindings::RELOAD);
    run(&mut c, 0.3);
    c.unequip();
    run(&mut c, 0.5);
    c.deliver_events(0, &mut log);
    let reload: Vec<_> =
        log.0.iter().filter(|(_, _, t)| t.starts_with("reload ")).map(|(_, _, t)| t.as_str()).collect();
    assert_eq!(reload, ["reload start", "reload cancel"]);
    // An unbound trigger is a no-op: nothing to watch.
    c.fire(DefaultBindings::RELOAD);
    run(&mut c, 1.0);
    log.0.clear();
    c.deliver_events(0, &mut log);
    assert!(log.0.iter().all(|(_, _, t)| !t.starts_with("reload ")), "{:?}", log.0);
}

struct Grass;

impl zoa_anim_ik::GroundProbe for Grass {
    fn probe(&self, _point: zoa_anim_core::glam::Vec3) -> Option<zoa_anim_ik::GroundHit> {
        Some(zoa_anim_ik::GroundHit { height: 0.0, normal: zoa_anim_core::glam::Vec3::Y })
    }
    fn surface(&self, _point: zoa_anim_core::glam::Vec3) -> Option<&str> {
        Some("grass")
    }
}

#[derive(Default)]
struct Cues(Vec<(usize, String, zoa_anim_core::StateTagSet, Option<String>)>);

impl zoa_anim_runtime::character::SoundCueSink for Cues {
    fn on_sound_cue(&mut self, character: usize, cue: &zoa_anim_runtime::character::SoundCue<'_>) {
        use zoa_anim_runtime::character::SoundCueKind;
        let what = match cue.kind {
            SoundCueKind::Notify(n) => format!("notify {n}"),
            SoundCueKind::Event(e) => format!("event {e}"),
        };
        self.0.push((character, what, cue.tags, cue.surface.map(str::to_owned)));
    }
}

#[test]
fn footsteps_reach_the_sound_bridge_with_the_tags_and_the_probed_surface() {
    use zoa_anim_runtime::character::{BindingPhase, SoundBridge};
    let def = definition(&graphless(fixture_bundle()));
    let mut c = Character::new(&def).unwrap();
    c.set_ground(Some(std::sync::Arc::new(Grass)));
    c.set_tags(tags("locomotion=walk mood=calm"));
    c.set_speed(1.5);
    run(&mut c, 2.0);
    let mut bridge = SoundBridge::new(Cues::default()).map_binding(
        DefaultBindings::RELOAD,
        BindingPhase::Start,
        "weapon.reload".parse().unwrap(),
    );
    c.deliver_events(3, &mut bridge);
    let cues = bridge.into_sink().0;
    let steps: Vec<_> = cues.iter().filter(|(_, w, ..)| w == "notify Footstep").collect();
    assert!(steps.len() >= 3, "{cues:?}");
    for (k, _, t, surface) in steps {
        assert_eq!((*k, *t, surface.as_deref()), (3, tags("locomotion=walk mood=calm"), Some("grass")));
    }
}

#[test]
fn every_set_up_problem_is_reported_at_once_and_typed() {
    use zoa_anim_runtime::character::SetupProblem as P;
    use zoa_anim_runtime::{CharacterSettings, RuntimeError};
    let mut b = fixture_bundle();
    {
        let set = b.player_set.as_mut().unwrap();
        set.profiles[1].animation_graph = Some("no_such_graph".into());
        set.profiles[1].binding_profile = "no_such_bindings".into();
        set.profiles[2].animation_profile = Some("no_such_table".into());
    }
    b.graphs[0].states[0].speed = -1.0;
    b.rig_policy.as_mut().unwrap().bone_overrides.push(("left_foot".into(), "NoSuchBone".into()));
    b.sound_profile = Some("no_such_sounds".into());
    let settings = CharacterSettings { loadout_crossfade: f32::NAN, ..CharacterSettings::default() };
    let err = CharacterDefinition::new(&b, settings).unwrap_err();
    let RuntimeError::CharacterSetup(problems) = err else { panic!("{err}") };
    let has = |f: &dyn Fn(&P) -> bool| problems.iter().any(f);
    assert!(has(&|p| matches!(p, P::UnknownGraph { graph, .. } if graph == "no_such_graph")), "{problems:#?}");
    assert!(has(&|p| matches!(p, P::UnknownBindingProfile { profile, .. } if profile == "no_such_bindings")));
    assert!(has(&|p| matches!(p, P::UnknownAnimationProfile { profile, .. } if profile == "no_such_table")));
    assert!(has(&|p| matches!(p, P::Graph { .. })));
    assert!(has(&|p| matches!(p, P::RigOverride(_))));
    assert!(has(&|p| matches!(p, P::UnknownSoundProfile(_))));
    assert!(has(&|p| matches!(p, P::Setting { field: "loadout_crossfade", .. })));
    assert_eq!(problems.len(), 7, "{problems:#?}");
}

use zoa_anim_core::CharacterBundle;
use zoa_anim_core::graph::TransitionMode;

/// The fixture with every inertialized transition of a masked layer turned
/// into a cross-fade of the same length.
fn with_masked_layers_crossfading(mut b: CharacterBundle) -> CharacterBundle {
    for g in &mut b.graphs {
        let masked: Vec<bool> = g.states.iter().map(|s| g.layers[s.layer].bone_mask.is_some()).collect();
        for t in &mut g.transitions {
            if masked[t.to.index()] && t.mode == TransitionMode::Inertialize {
                t.mode = TransitionMode::Crossfade;
            }
        }
    }
    b
}

#[test]
fn an_inertialized_upper_body_transition_leaves_the_legs_untouched() {
    let bundle = without_ik(fixture_bundle());
    let (inert, fade) = (definition(&bundle), definition(&with_masked_layers_crossfading(bundle.clone())));
    let skeleton = inert.skeleton().skeleton();
    // Joints the recoil layer's mask (`Spine2` and below) cannot reach.
    let spine2 = skeleton.joints().iter().position(|j| j.name.as_deref() == Some("Spine2")).unwrap();
    let below_spine2 = |mut j: usize| loop {
        if j == spine2 {
            break true;
        }
        match skeleton.joints()[j].parent {
            Some(p) => j = usize::from(p),
            None => break false,
        }
    };
    let outside: Vec<usize> = (0..skeleton.joints().len()).filter(|&j| !below_spine2(j)).collect();
    assert!(
        outside.iter().any(|&j| skeleton.joints()[j].name.as_deref().unwrap_or("").contains("Leg")),
        "the legs are outside"
    );
    let mut a = Character::new(&inert).unwrap();
    let mut b = Character::new(&fade).unwrap();
    let (mut inertialized, mut upper_differs) = (0, false);
    for c in [&mut a, &mut b] {
        c.equip(zoa_anim_core::PlayerProfileType::Rifle).unwrap();
        c.set_tags(tags("locomotion=walk combat=armed_rifle"));
        c.set_speed(1.5);
        c.set_bool(DefaultBindings::IS_AIMING, true);
    }
    for f in 0..240 {
        if f % 30 == 15 {
            a.fire(DefaultBindings::FIRE);
            b.fire(DefaultBindings::FIRE);
        }
        a.update(DT).unwrap();
        b.update(DT).unwrap();
        inertialized += usize::from(a.is_inertializing());
        assert!(!b.is_inertializing());
        let (pa, pb) = (a.local_pose(), b.local_pose());
        for &j in &outside {
            let (x, y) = (pa.get(j), pb.get(j));
            assert_eq!(
                (x.translation.to_array().map(f32::to_bits), x.rotation.to_array().map(f32::to_bits)),
                (y.translation.to_array().map(f32::to_bits), y.rotation.to_array().map(f32::to_bits)),
                "frame {f}: joint {:?} moved",
                skeleton.joints()[j].name
            );
        }
        upper_differs |= (0..pa.len()).any(|j| below_spine2(j) && pa.get(j).rotation != pb.get(j).rotation);
    }
    assert!(inertialized > 0, "the recoil transitions inertialized");
    assert!(upper_differs, "inside the mask, inertialization differs from a cross-fade");
}

/// `PoseOutput` decides what an update computes past the local pose, and the
/// readouts of what it skipped are empty rather than stale; a character with
/// an IK stage keeps model space (its report reads it); the local pose is the
/// same whatever the output.
#[test]
fn the_pose_output_decides_what_an_update_computes() {
    use zoa_anim_runtime::PoseOutput;
    let mut b = fixture_bundle();
    let with_ik = definition(&b);
    {
        let rig = b.rig_policy.as_mut().unwrap();
        (rig.foot_plant, rig.look_at, rig.hand_on_weapon, rig.climb_hand) = (false, false, false, false);
    }
    let without_ik = definition(&b);
    let joints = with_ik.skeleton().joint_count();
    let poses = |def: &std::sync::Arc<CharacterDefinition>, output: PoseOutput| {
        let mut c = Character::new(def).unwrap();
        assert_eq!(c.output(), PoseOutput::Skinning, "the default");
        c.set_output(output);
        c.set_tags(tags("locomotion=walk"));
        c.set_speed(1.5);
        run(&mut c, 0.5);
        (c.local_pose().clone(), c.model_matrices().len(), c.skinning_matrices().len(), c.ik().is_some())
    };
    let (full, model, skin, ik) = poses(&without_ik, PoseOutput::Skinning);
    assert_eq!((model, skin, ik), (joints, joints, false));
    let (local, model, skin, _) = poses(&without_ik, PoseOutput::Local);
    assert_eq!((model, skin), (0, 0), "nothing past the local pose");
    assert_eq!(local, full, "the local pose does not depend on the output");
    let (_, model, skin, _) = poses(&without_ik, PoseOutput::Model);
    assert_eq!((model, skin), (joints, 0));
    let (_, model, skin, ik) = poses(&with_ik, PoseOutput::Local);
    assert!(ik, "the fixture's rig policy runs IK");
    assert_eq!((model, skin), (joints, 0), "IK keeps model space");

    // The matrices follow the output: lowered, they are freed at once; raised, back after the next update.
    let mut c = Character::new(&without_ik).unwrap();
    run(&mut c, 0.1);
    assert_eq!(c.skinning_matrices().len(), joints);
    c.set_output(PoseOutput::Local);
    assert_eq!((c.model_matrices().len(), c.skinning_matrices().len()), (0, 0));
    run(&mut c, 0.1);
    c.set_output(PoseOutput::Skinning);
    assert_eq!(c.skinning_matrices().len(), 0, "not computed yet");
    c.update(DT).unwrap();
    assert_eq!((c.model_matrices().len(), c.skinning_matrices().len()), (joints, joints));
}

/// Events a character's graph instance could not hold are counted among the
/// character's dropped events, not lost without a word.
#[test]
fn events_the_graph_dropped_count_as_the_characters() {
    let def = definition(&without_ik(fixture_bundle()));
    let mut c = Character::new(&def).unwrap();
    c.equip(zoa_anim_core::PlayerProfileType::Rifle).unwrap();
    run(&mut c, 0.2);
    c.clear_events();
    for _ in 0..40 {
        assert!(c.play_slot("reload_magazine".parse().unwrap()));
    }
    c.update(DT).unwrap();
    let queued = c.events().iter().filter(|e| e.kind.as_str().starts_with("slot_")).count();
    assert!(c.dropped_events() > 0, "{queued} slot events queued, none dropped");
    assert!(queued + c.dropped_events() as usize >= 79, "{queued} queued + {} dropped", c.dropped_events());
}

/// A definition whose graphs have no inertialized transition skips
/// inertialization's bookkeeping (no last outputs kept): its poses are bit
/// for bit those of the same character whose definition keeps them (an
/// unused graph with an inertialized transition turns the bookkeeping on).
#[test]
fn skipping_inertialization_bookkeeping_changes_no_bit() {
    use zoa_anim_core::graph::TransitionMode;
    let mut b = fixture_bundle();
    for g in &mut b.graphs {
        for t in &mut g.transitions {
            t.mode = TransitionMode::Crossfade;
        }
    }
    let skips = definition(&b);
    let mut unused = b.graphs[0].clone();
    unused.id = "unused_with_inertialization".into();
    unused.transitions.iter_mut().for_each(|t| t.mode = TransitionMode::Inertialize);
    b.graphs.push(unused);
    let keeps = definition(&b);
    let mut a = Character::new(&skips).unwrap();
    let mut k = Character::new(&keeps).unwrap();
    for (frame, gait) in ["locomotion=idle", "locomotion=walk", "locomotion=run", "locomotion=idle"].iter().enumerate()
    {
        for c in [&mut a, &mut k] {
            c.set_tags(tags(gait));
            c.set_speed(frame as f32 * 1.5);
            c.fire(DefaultBindings::FIRE);
        }
        for _ in 0..30 {
            a.update(DT).unwrap();
            k.update(DT).unwrap();
            assert_eq!(pose_bits(a.local_pose()), pose_bits(k.local_pose()));
            assert!(!a.is_inertializing() && !k.is_inertializing());
        }
    }
}

/// Every joint's translation, rotation and scale as bits.
fn pose_bits(p: &Pose) -> Vec<u32> {
    p.transforms()
        .flat_map(|t| {
            let (tr, r, sc) = (t.translation.to_array(), t.rotation.to_array(), t.scale.to_array());
            tr.into_iter().chain(r).chain(sc)
        })
        .map(f32::to_bits)
        .collect()
}

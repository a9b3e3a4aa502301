//! The plugin in a headless app (Bevy's minimal plugins from its
//! sub-crates + transforms), driving the fixture humanoid's joint entities:
//! - `joints_equal_the_runtime_pose_bit_for_bit`: joint `Transform`s equal a
//!   plain runtime character's local pose under the same inputs and frame times;
//! - `events_arrive_as_messages_in_order`: animation messages equal the
//!   runtime's delivered events (time, kind, name) in order, sound cues follow notifies;
//! - `parallel_equals_serial`: 100 characters on 4 threads equal the serial run;
//! - `characters_are_posed_on_the_frame_they_are_bound`: also when spawned
//!   into a running app, and in parallel chunks;
//! - `joints_bind_by_role_when_names_differ`;
//! - `a_state_is_forced_through_the_component`: `play_state` on the component
//!   plays the state, and the joints show it as on a plain runtime character;
//! - `hot_reload_swaps_a_good_edit_and_keeps_the_last_good_on_a_broken_one`:
//!   with a `ZoaDefinitionReloaded` message each (the refused one with its
//!   diagnostics), and a `reload` in flight cancelled when its definition swaps;
//! - `observers_see_the_same_events_as_messages_in_the_same_frame`;
//! - `joints_are_found_by_name`;
//! - `the_headless_plugin_group_runs_a_character`;
//! - `public_components_and_settings_are_registered_for_reflection` (`reflect` feature).
#![allow(elided_lifetimes_in_paths)]

mod common;

use std::sync::Arc;

use bevy_app::{App, PostUpdate};
use bevy_ecs::prelude::*;
use common::*;
use zoa_anim_bevy::binding::bevy_transform;
use zoa_anim_bevy::prelude::*;
use zoa_anim_bevy::{ReloadOutcome, ZoaBevyError};
use zoa_anim_runtime::Character;

#[test]
fn joints_equal_the_runtime_pose_bit_for_bit() {
    let def = definition();
    let mut app = app(2, true, true);
    let (root, joints) = spawn_character(app.world_mut(), &def);
    let mut reference = Character::new(&def).unwrap();
    for f in 0..240 {
        drive(&mut app, &[root], f);
        script(&mut reference, 0, f);
        app.update();
        let dt = *app.world().resource::<Dts>().0.last().unwrap();
        reference.update(dt).unwrap();
        assert!(all_bound(app.world(), root, &joints), "frame {f}: every joint is bound by name");
        let pose = reference.local_pose();
        let want: Vec<_> = (0..pose.len()).map(|j| bits(&bevy_transform(&pose.get(j)))).collect();
        assert_eq!(joint_bits(app.world(), &joints), want, "frame {f}");
    }
    let c = app.world().get::<ZoaCharacter>(root).unwrap();
    assert_eq!(c.binding().unwrap().bound_by_name(), joints.len());
    assert!(c.last_error().is_none());
    // The frames really moved (dt > 0 after the first) and the pose changed.
    let dts = &app.world().resource::<Dts>().0;
    assert_eq!(dts[0], 0.0);
    assert!(dts[1..].iter().all(|&d| d > 0.016 && d < 0.017));
    assert_eq!(joints.len(), def.skeleton().joint_count());
}

#[test]
fn events_arrive_as_messages_in_order() {
    let def = definition();
    let mut app = app(2, true, true);
    let (root, _) = spawn_character(app.world_mut(), &def);
    let mut reference = Character::new(&def).unwrap();
    let mut expected = Expected::default();
    for f in 0..400 {
        drive(&mut app, &[root], f);
        script(&mut reference, 0, f);
        app.update();
        let dt = *app.world().resource::<Dts>().0.last().unwrap();
        reference.update(dt).unwrap();
        reference.deliver_events(0, &mut expected);
    }
    let got: Vec<_> = app
        .world()
        .resource::<Received>()
        .0
        .iter()
        .map(|m| {
            assert_eq!(m.entity, root);
            (m.event, Some(m.event.name.to_string()))
        })
        .collect();
    assert_eq!(got, expected.0);
    // The script produces every family: transitions, binding phases, notifies, slot starts and ends.
    use zoa_anim_runtime::character::EventKind as K;
    let has = |p: &dyn Fn(&K) -> bool| got.iter().any(|(e, _)| p(&e.kind));
    assert!(has(&|k| matches!(k, K::TransitionStarted { .. })));
    assert!(has(&|k| matches!(k, K::Binding { .. })));
    assert!(has(&|k| matches!(k, K::Notify { .. })));
    assert!(has(&|k| matches!(k, K::SlotStarted { .. })));
    assert!(has(&|k| matches!(k, K::SlotEnded { .. })));
    // Times never go back.
    assert!(got.windows(2).all(|w| w[0].0.time <= w[1].0.time));
    // Every notify became a sound cue of the same name and time, in order.
    let notifies: Vec<_> =
        got.iter().filter(|(e, _)| matches!(e.kind, K::Notify { .. })).map(|(e, n)| (e.time, n.clone())).collect();
    let cues: Vec<_> = app
        .world()
        .resource::<Cues>()
        .0
        .iter()
        .map(|c| match &c.kind {
            ZoaSoundKind::Notify(n) => (c.time, Some(n.to_string())),
            ZoaSoundKind::Event(e) => panic!("no binding is mapped, got {e:?}"),
        })
        .collect();
    assert_eq!(cues, notifies);
}

/// Joint transforms of every character and every message after `frames` frames.
fn crowd_run(threads: usize, parallel: bool, n: usize, frames: usize) -> (Vec<Vec<[u32; 10]>>, Vec<String>) {
    let def = definition();
    let mut app = app(threads, parallel, true);
    let spawned: Vec<_> = (0..n).map(|_| spawn_character(app.world_mut(), &def)).collect();
    let roots: Vec<_> = spawned.iter().map(|(r, _)| *r).collect();
    for f in 0..frames {
        drive(&mut app, &roots, f);
        app.update();
    }
    let poses = spawned.iter().map(|(_, j)| joint_bits(app.world(), j)).collect();
    let messages = app
        .world()
        .resource::<Received>()
        .0
        .iter()
        .map(|m| format!("{} {} {:?} {}", m.entity, m.event.time.to_bits(), m.event.kind, m.event.name))
        .collect();
    (poses, messages)
}

#[test]
fn parallel_equals_serial() {
    let (serial_poses, serial_messages) = crowd_run(1, false, 100, 150);
    let (parallel_poses, parallel_messages) = crowd_run(4, true, 100, 150);
    assert_eq!(parallel_poses.len(), 100);
    assert!(serial_messages.len() > 100, "the crowd produced events ({})", serial_messages.len());
    for (k, (p, s)) in parallel_poses.iter().zip(&serial_poses).enumerate() {
        assert_eq!(p, s, "character {k}");
    }
    assert_eq!(parallel_messages, serial_messages);
}

/// The plugin's steps have no sync point between them, so the `ZoaJoint`s of
/// characters bound in a frame are still queued while they are evaluated:
/// their joints are written anyway, on that frame — for a crowd evaluated in
/// parallel chunks, and for characters spawned into a running app.
#[test]
fn characters_are_posed_on_the_frame_they_are_bound() {
    let def = definition();
    let mut app = app(2, true, true);
    let mut spawned = Vec::new();
    let mut reference = Vec::new();
    for f in 0..8 {
        // 40 at the start (two parallel chunks), 40 more on frame 5.
        if f == 0 || f == 5 {
            for _ in 0..40 {
                spawned.push(spawn_character(app.world_mut(), &def));
                reference.push(Character::new(&def).unwrap());
            }
        }
        let roots: Vec<_> = spawned.iter().map(|(r, _)| *r).collect();
        drive(&mut app, &roots, f);
        for (k, c) in reference.iter_mut().enumerate() {
            script(c, k, f);
        }
        app.update();
        let dt = *app.world().resource::<Dts>().0.last().unwrap();
        for (k, ((root, joints), c)) in spawned.iter().zip(&mut reference).enumerate() {
            c.update(dt).unwrap();
            assert!(all_bound(app.world(), *root, joints), "frame {f}, character {k}: bound");
            let pose = c.local_pose();
            let want: Vec<_> = (0..pose.len()).map(|j| bits(&bevy_transform(&pose.get(j)))).collect();
            assert_eq!(joint_bits(app.world(), joints), want, "frame {f}, character {k}");
        }
    }
}

#[test]
fn joints_bind_by_role_when_names_differ() {
    let def = definition();
    let renamed = |n: &str| -> String {
        match n {
            "LeftUpLeg" => "thigh_l",
            "LeftLeg" => "calf_l",
            "LeftFoot" => "foot_l",
            "RightArm" => "upperarm_r",
            "RightForeArm" => "lowerarm_r",
            other => other,
        }
        .to_owned()
    };
    let skeleton = def.skeleton().skeleton();
    let mut app = app(2, true, false);
    let root = app
        .world_mut()
        .spawn((ZoaCharacter::new(&def).unwrap(), bevy_transform::components::Transform::default()))
        .id();
    let joints = spawn_joints(app.world_mut(), root, skeleton, &renamed);
    app.update();
    let c = app.world().get::<ZoaCharacter>(root).unwrap();
    let binding = c.binding().expect("bound");
    let renamed_joints: Vec<usize> =
        ["LeftUpLeg", "LeftLeg", "LeftFoot", "RightArm", "RightForeArm"].map(|n| skeleton.find(n).unwrap()).to_vec();
    assert_eq!(binding.bound_by_name(), skeleton.joint_count() - renamed_joints.len());
    let mut by_role: Vec<usize> = binding.bound_by_role().iter().map(|(j, _)| usize::from(*j)).collect();
    by_role.sort_unstable();
    let mut want = renamed_joints.clone();
    want.sort_unstable();
    assert_eq!(by_role, want, "{:?}", binding.bound_by_role());
    for (j, &entity) in joints.iter().enumerate() {
        assert_eq!(binding.entity(j), Some(entity), "joint {j} drives the entity of the same place");
    }
    assert!(all_bound(app.world(), root, &joints));
}

/// Reload messages as they arrived, in order.
#[derive(Default, Resource)]
struct Reloads(Vec<ZoaDefinitionReloaded>);

fn record_reloads(mut messages: MessageReader<ZoaDefinitionReloaded>, mut reloads: ResMut<Reloads>) {
    reloads.0.extend(messages.read().cloned());
}

#[test]
fn hot_reload_swaps_a_good_edit_and_keeps_the_last_good_on_a_broken_one() {
    use zoa_anim_runtime::character::{BindingPhase, EventKind as K};
    use zoa_test_support::paths::{copy_dir, fixture, temp_dir};
    let tmp = temp_dir("bevy-reload");
    let folder = tmp.path().join("defs/humanoid");
    copy_dir(&fixture("defs/humanoid"), &folder);
    std::fs::create_dir_all(tmp.path().join("models")).unwrap();
    std::fs::copy(fixture("models/humanoid.glb"), tmp.path().join("models/humanoid.glb")).unwrap();

    let mut app = app(2, true, true);
    app.insert_resource(ZoaAnimationSettings { parallel: true, hot_reload_interval: Some(0.0) })
        .init_resource::<Reloads>()
        .add_systems(PostUpdate, record_reloads.after(ZoaSet::Input));
    let id = {
        let mut defs = app.world_mut().resource_mut::<ZoaDefinitions>();
        defs.load(&folder, CharacterChoice::default(), CharacterSettings::default()).unwrap()
    };
    let first = Arc::clone(app.world().resource::<ZoaDefinitions>().get(id));
    let character = app.world().resource::<ZoaDefinitions>().spawn(id).unwrap();
    let root = app.world_mut().spawn((character, bevy_transform::components::Transform::default())).id();
    let joints = spawn_joints(app.world_mut(), root, first.skeleton().skeleton(), &|n| n.to_owned());
    let walk: StateTagSet = "locomotion=walk".parse().unwrap();
    app.world_mut().get_mut::<ZoaCharacter>(root).unwrap().set_tags(walk);
    for _ in 0..10 {
        app.update();
    }

    // A broken edit: polled, re-validated, refused; the last good definition stays.
    let clip = folder.join("clips/walk.toml");
    let good = std::fs::read_to_string(&clip).unwrap();
    std::fs::write(&clip, good.replace("loop = true", "loop = \"sometimes\"")).unwrap();
    app.update();
    let defs = app.world().resource::<ZoaDefinitions>();
    assert_eq!(defs.generation(id), 0);
    assert!(Arc::ptr_eq(defs.get(id), &first));
    match defs.last_error(id) {
        Some(ZoaBevyError::Definitions { diagnostics, .. }) => {
            assert!(diagnostics.iter().any(|d| d.contains("walk.toml") && d.contains("loop")), "{diagnostics:?}")
        }
        other => panic!("expected the folder's diagnostics, got {other:?}"),
    }
    assert!(Arc::ptr_eq(app.world().get::<ZoaCharacter>(root).unwrap().definition(), &first));
    // ... and said so in a message, with the same diagnostics, the same frame.
    let reloads = &app.world().resource::<Reloads>().0;
    assert_eq!(reloads.len(), 1, "{reloads:?}");
    assert_eq!((reloads[0].id, reloads[0].outcome, reloads[0].generation), (id, ReloadOutcome::KeptLastGood, 0));
    assert_eq!(reloads[0].folder, folder);
    assert_eq!(Some(&reloads[0].diagnostics), defs.last_error(id).map(ZoaBevyError::diagnostics).as_ref());

    // A reload in flight when the definition swaps: the rifle's `reload` action starts...
    app.world_mut().get_mut::<ZoaCharacter>(root).unwrap().equip(PlayerProfileType::Rifle);
    for _ in 0..40 {
        app.update();
    }
    let seen = app.world().resource::<Received>().0.len();
    app.world_mut().get_mut::<ZoaCharacter>(root).unwrap().fire(DefaultBindings::RELOAD);
    let phases = |app: &App, from: usize| -> Vec<BindingPhase> {
        app.world().resource::<Received>().0[from..]
            .iter()
            .filter_map(|m| match m.event.kind {
                K::Binding { binding, phase } if binding == DefaultBindings::RELOAD => Some(phase),
                _ => None,
            })
            .collect()
    };
    for _ in 0..5 {
        app.update();
    }
    assert_eq!(phases(&app, seen), [BindingPhase::Start], "the reload started and is still playing");
    let clock = app.world().get::<ZoaCharacter>(root).unwrap().time();

    // ... then a good edit: swapped, and the character re-created on it with
    // its tags and class, joints bound again; the reload in flight is cancelled.
    std::fs::write(&clip, good.replace("Footstep@0.5", "Footstep@0.55")).unwrap();
    let seen = app.world().resource::<Received>().0.len();
    app.update();
    let defs = app.world().resource::<ZoaDefinitions>();
    assert_eq!(defs.generation(id), 1);
    assert!(defs.last_error(id).is_none());
    let second = Arc::clone(defs.get(id));
    assert!(!Arc::ptr_eq(&second, &first));
    let reloads = &app.world().resource::<Reloads>().0;
    assert_eq!(reloads.len(), 2);
    assert_eq!((reloads[1].outcome, reloads[1].generation), (ReloadOutcome::Swapped, 1));
    assert!(reloads[1].diagnostics.is_empty());
    app.update();
    let cancelled: Vec<_> = app.world().resource::<Received>().0[seen..]
        .iter()
        .filter(|m| matches!(m.event.kind, K::Binding { phase: BindingPhase::Cancel, .. }))
        .map(|m| (m.entity, m.event.time))
        .collect();
    assert_eq!(cancelled, [(root, clock)], "one cancel, at the old character's time");
    assert_eq!(phases(&app, seen), [BindingPhase::Cancel]);
    let c = app.world().get::<ZoaCharacter>(root).unwrap();
    assert!(Arc::ptr_eq(c.definition(), &second));
    assert_eq!(c.tags(), walk);
    assert_eq!(c.class(), Some(PlayerProfileType::Rifle));
    assert!(c.time() < clock, "the new character's clock restarted");
    assert!(all_bound(app.world(), root, &joints));

    // An explicit reload of an unchanged folder swaps again (same content, new generation).
    let outcome = app.world_mut().resource_mut::<ZoaDefinitions>().reload(id);
    assert_eq!(outcome, ReloadOutcome::Swapped);
    app.update();
    assert_eq!(app.world().resource::<Reloads>().0.len(), 3, "an explicit reload is reported too");
}

/// Animation events an observer on the character's entity saw, with the
/// frame (the `Dts` length) it saw each in.
#[derive(Default, Resource)]
struct Observed(Vec<(usize, ZoaAnimationEvent)>);

#[test]
fn observers_see_the_same_events_as_messages_in_the_same_frame() {
    let def = definition();
    let mut app = app(2, true, true);
    app.init_resource::<Observed>();
    let (root, _) = spawn_character(app.world_mut(), &def);
    let (other, _) = spawn_character(app.world_mut(), &def);
    app.world_mut().entity_mut(root).observe(
        |ev: On<ZoaAnimationEvent>, dts: Res<Dts>, mut observed: ResMut<Observed>| {
            observed.0.push((dts.0.len(), ev.event().clone()));
        },
    );
    let mut frames_of_messages = Vec::new();
    for f in 0..300 {
        drive(&mut app, &[root, other], f);
        let before = app.world().resource::<Received>().0.len();
        app.update();
        let frame = app.world().resource::<Dts>().0.len();
        let received = &app.world().resource::<Received>().0;
        frames_of_messages.extend(received[before..].iter().filter(|m| m.entity == root).map(|m| (frame, m.clone())));
    }
    let observed = &app.world().resource::<Observed>().0;
    assert!(observed.len() > 20, "the script produced events ({})", observed.len());
    assert!(observed.iter().all(|(_, e)| e.entity == root), "only the observed entity's events");
    assert_eq!(observed, &frames_of_messages, "the same events, in the same order and frame as the messages");
}

#[test]
fn joints_are_found_by_name() {
    let def = definition();
    let mut app = app(1, false, false);
    let (root, joints) = spawn_character(app.world_mut(), &def);
    let skeleton = def.skeleton().skeleton();
    assert_eq!(app.world().get::<ZoaCharacter>(root).unwrap().joint_entity("LeftFoot"), None, "not bound yet");
    app.update();
    let c = app.world().get::<ZoaCharacter>(root).unwrap();
    for (j, &entity) in joints.iter().enumerate() {
        assert_eq!(c.joint_entity(skeleton.display_name(j).as_ref()), Some(entity), "joint {j}");
    }
    assert_eq!(c.joint_entity("no_such_joint"), None);
    // The runtime character is handed out as is.
    assert!(std::ptr::eq(c.runtime(), &**c));
}

/// A scene spawned again under a character (Bevy respawns a scene when an
/// asset it depends on loads or reloads) despawns the bound entities: the
/// character binds the new ones and poses them, without a call to `rebind`.
#[test]
fn a_hierarchy_spawned_again_is_bound_again() {
    let def = definition();
    let mut app = app(1, false, false);
    let (root, old) = spawn_character(app.world_mut(), &def);
    app.update();
    assert!(all_bound(app.world(), root, &old));
    let top = app.world().get::<Children>(root).unwrap().to_vec();
    for e in top {
        app.world_mut().entity_mut(e).despawn();
    }
    let skeleton = def.skeleton().skeleton().clone();
    let new = spawn_joints(app.world_mut(), root, &skeleton, &|n| n.to_owned());
    for f in 0..10 {
        drive(&mut app, &[root], f);
        app.update();
    }
    assert!(all_bound(app.world(), root, &new), "the new entities carry their ZoaJoint");
    let c = app.world().get::<ZoaCharacter>(root).unwrap();
    assert_eq!(c.joint_entity(skeleton.display_name(0).as_ref()), Some(new[0]));
    let pose: Vec<_> = (0..new.len()).map(|j| bits(&bevy_transform(&c.local_pose().get(j)))).collect();
    assert_eq!(joint_bits(app.world(), &new), pose, "the new entities show the runtime pose");
    assert!(pose.iter().zip(skeleton.rest_pose()).any(|(p, r)| *p != bits(&bevy_transform(&r))), "posed, not at rest");
}

#[test]
fn the_headless_plugin_group_runs_a_character() {
    use bevy_app::{PluginGroup, ScheduleRunnerPlugin};
    let def = definition();
    let mut app = bevy_app::App::new();
    app.add_plugins(ZoaHeadlessPlugins.set(ScheduleRunnerPlugin::run_once()))
        .insert_resource(bevy_time::TimeUpdateStrategy::ManualDuration(FRAME));
    let (root, joints) = spawn_character(app.world_mut(), &def);
    app.world_mut().get_mut::<ZoaCharacter>(root).unwrap().runtime_mut().set_tags("locomotion=run".parse().unwrap());
    app.update();
    let first = joint_bits(app.world(), &joints);
    for _ in 0..20 {
        app.update();
    }
    let c = app.world().get::<ZoaCharacter>(root).unwrap();
    assert!(all_bound(app.world(), root, &joints));
    assert!((c.time() - 20.0 * FRAME.as_secs_f64()).abs() < 1e-6, "time advanced 20 frames: {}", c.time());
    assert_ne!(joint_bits(app.world(), &joints), first, "the joints moved");
}

#[test]
fn a_state_is_forced_through_the_component() {
    let def = definition();
    let mut app = app(1, false, true);
    let (root, joints) = spawn_character(app.world_mut(), &def);
    let mut reference = Character::new(&def).unwrap();
    for f in 0..30 {
        if f == 10 {
            let mut c = app.world_mut().get_mut::<ZoaCharacter>(root).unwrap();
            assert!(c.play_state("land", Some(0.0)));
            assert!(!c.play_state("no_such_state", None));
            assert!(reference.play_state("land", Some(0.0)));
        }
        app.update();
        let dt = *app.world().resource::<Dts>().0.last().unwrap();
        reference.update(dt).unwrap();
        if f == 11 {
            let c = app.world().get::<ZoaCharacter>(root).unwrap();
            assert_eq!(c.graph_instance().current_state_name(0), Some("land"));
        }
    }
    let pose = reference.local_pose();
    let want: Vec<_> = (0..pose.len()).map(|j| bits(&bevy_transform(&pose.get(j)))).collect();
    assert_eq!(joint_bits(app.world(), &joints), want);
}

#[cfg(feature = "reflect")]
#[test]
fn public_components_and_settings_are_registered_for_reflection() {
    use bevy_ecs::reflect::{AppTypeRegistry, ReflectComponent, ReflectResource};
    use zoa_anim_bevy::ZoaJoint;
    let app = app(1, false, false);
    let registry = app.world().resource::<AppTypeRegistry>().read();
    for (id, name) in
        [(std::any::TypeId::of::<ZoaJoint>(), "ZoaJoint"), (std::any::TypeId::of::<ZoaCharacter>(), "ZoaCharacter")]
    {
        let registration = registry.get(id).unwrap_or_else(|| panic!("{name} is registered"));
        assert!(registration.data::<ReflectComponent>().is_some(), "{name} reflects as a component");
    }
    let settings = registry.get(std::any::TypeId::of::<ZoaAnimationSettings>()).expect("the settings are registered");
    assert!(settings.data::<ReflectResource>().is_some());
}

/// Two characters whose hierarchies share joint entities (a character
/// parented under another's root): every shared entity shows the pose of the
/// character its `ZoaJoint` names, and after the other character binds
/// again it shows that one's (the joint writer's remembered check of which
/// entities name a character is dropped when any `ZoaJoint` changes).
#[test]
fn shared_joint_entities_show_the_character_that_bound_them_last() {
    use bevy_transform::components::Transform;
    use zoa_anim_bevy::ZoaJoint;
    let def = definition();
    let mut app = app(2, true, false);
    let outer = app.world_mut().spawn((ZoaCharacter::new(&def).unwrap(), Transform::default())).id();
    let inner = app.world_mut().spawn((ZoaCharacter::new(&def).unwrap(), Transform::default(), ChildOf(outer))).id();
    let joints = spawn_joints(app.world_mut(), inner, def.skeleton().skeleton(), &|n| n.to_owned());
    let roots = [outer, inner];
    let shown = |app: &App| {
        let owner = app.world().get::<ZoaJoint>(joints[0]).unwrap().character;
        for (j, &e) in joints.iter().enumerate() {
            assert_eq!(app.world().get::<ZoaJoint>(e), Some(&ZoaJoint { character: owner, joint: j as u16 }));
        }
        let c = app.world().get::<ZoaCharacter>(owner).unwrap();
        let pose: Vec<_> = (0..joints.len()).map(|j| bits(&bevy_transform(&c.local_pose().get(j)))).collect();
        assert_eq!(joint_bits(app.world(), &joints), pose, "the joints show {owner}'s pose");
        owner
    };
    for f in 0..30 {
        drive(&mut app, &roots, f);
        app.update();
    }
    let first = shown(&app);
    let other = if first == outer { inner } else { outer };
    // The two characters play different scripts: their poses differ.
    let pose = |e: Entity| app.world().get::<ZoaCharacter>(e).unwrap().local_pose().clone();
    assert_ne!(pose(outer), pose(inner));
    app.world_mut().get_mut::<ZoaCharacter>(other).unwrap().rebind();
    for f in 30..60 {
        drive(&mut app, &roots, f);
        app.update();
    }
    assert_eq!(shown(&app), other, "the character that bound last drives the shared joints");
}

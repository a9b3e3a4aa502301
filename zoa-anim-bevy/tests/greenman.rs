//! The `bevy_character` example's character without a window: greenman (a
//! real third-party rig from the shared assets) on a joint hierarchy, driven
//! by the example's meaning-only gameplay calls. Skipped with a note when the
//! shared assets are not beside the repository (the example's definitions
//! name `../shared/assets/greenman.glb`).
#![allow(elided_lifetimes_in_paths)]

mod common;

use bevy_app::App;
use bevy_transform::components::Transform;
use common::{Received, app, bits, spawn_joints};
use zoa_anim_bevy::prelude::*;
use zoa_anim_runtime::character::EventKind as K;
use zoa_test_support::paths::repo_root;

fn entered(received: &Received, from: usize) -> Vec<String> {
    received.0[from..]
        .iter()
        .filter(|m| matches!(m.event.kind, K::StateEntered { .. }))
        .map(|m| m.event.name.to_string())
        .collect()
}

#[test]
fn greenman_walks_attacks_and_equips_by_meaning() {
    if !repo_root().join("../shared/assets/greenman.glb").is_file() {
        eprintln!("note: ../shared/assets/greenman.glb not beside the repository; skipping");
        return;
    }
    let mut app = app(2, true, true);
    let folder = repo_root().join("zoa-anim-bevy/examples/greenman");
    let id = app
        .world_mut()
        .resource_mut::<ZoaDefinitions>()
        .load(folder, CharacterChoice::default(), CharacterSettings::default())
        .expect("the example's definitions compile");
    let def = app.world().resource::<ZoaDefinitions>().get(id).clone();
    let character = app.world().resource::<ZoaDefinitions>().spawn(id).unwrap();
    let root = app.world_mut().spawn((character, Transform::default())).id();
    let joints = spawn_joints(app.world_mut(), root, def.skeleton().skeleton(), &|n| n.to_owned());
    assert_eq!(joints.len(), 12, "greenman's skin has 12 joints");

    let run = |app: &mut App, frames: usize, f: &dyn Fn(&mut ZoaCharacter)| {
        for _ in 0..frames {
            f(&mut app.world_mut().get_mut::<ZoaCharacter>(root).unwrap());
            app.update();
        }
    };
    let pose = |app: &App| joints.iter().map(|&e| bits(app.world().get::<Transform>(e).unwrap())).collect::<Vec<_>>();

    // Idle, then sprint: the joints move, and differently from idle.
    run(&mut app, 30, &|c| c.set_tags("locomotion=idle".parse().unwrap()));
    let idle = pose(&app);
    let sprint = |c: &mut ZoaCharacter| {
        c.set_tags("locomotion=sprint".parse().unwrap());
        c.set_speed(6.5);
    };
    run(&mut app, 30, &sprint);
    assert_ne!(pose(&app), idle, "sprinting moves the joints");

    // Unarmed: `fire` and `reload` are unbound (no-ops); `melee` attacks.
    let seen = app.world().resource::<Received>().0.len();
    run(&mut app, 1, &|c| {
        c.fire(DefaultBindings::FIRE);
        c.fire(DefaultBindings::RELOAD);
    });
    run(&mut app, 20, &sprint);
    assert!(entered(app.world().resource::<Received>(), seen).is_empty(), "unbound bindings do nothing");
    run(&mut app, 1, &|c| c.fire(DefaultBindings::MELEE));
    run(&mut app, 20, &sprint);
    assert_eq!(entered(app.world().resource::<Received>(), seen), ["attack"]);

    // The attack returns to locomotion; with the sword equipped, `fire` attacks.
    run(&mut app, 120, &sprint);
    let seen = app.world().resource::<Received>().0.len();
    run(&mut app, 1, &|c| {
        c.equip(PlayerProfileType::Melee);
    });
    run(&mut app, 60, &sprint);
    let seen_armed = app.world().resource::<Received>().0.len();
    run(&mut app, 1, &|c| c.fire(DefaultBindings::FIRE));
    run(&mut app, 20, &sprint);
    assert_eq!(entered(app.world().resource::<Received>(), seen_armed), ["attack"]);
    assert!(app.world().resource::<Received>().0.len() > seen, "events flow after equipping");
    // Every joint stays finite through all of it.
    for &e in &joints {
        let t = app.world().get::<Transform>(e).unwrap();
        assert!(t.translation.is_finite() && t.rotation.is_finite() && t.scale.is_finite());
    }
}

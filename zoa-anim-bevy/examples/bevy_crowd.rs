//! A headless Bevy app with a crowd of fixture humanoids (1,000 by default),
//! each a joint hierarchy of entities driven by meaning; prints the time per
//! frame (the whole `App::update`: ZOA's steps, transform propagation and
//! Bevy's scheduling).
//!
//! ```text
//! cargo run --release -p zoa-anim-bevy --example bevy_crowd [-- --characters N --frames N --serial]
//! ```
#![allow(elided_lifetimes_in_paths)]

use std::path::PathBuf;
use std::time::{Duration, Instant};

use bevy_app::{App, TaskPoolPlugin};
use bevy_ecs::prelude::*;
use bevy_time::{TimePlugin, TimeUpdateStrategy};
use bevy_transform::TransformPlugin;
use bevy_transform::components::Transform;
use zoa_anim_bevy::binding::bevy_transform;
use zoa_anim_bevy::prelude::*;

const TAGS: [&str; 4] = ["locomotion=idle", "locomotion=walk", "locomotion=run", "locomotion=sprint"];
const SPEEDS: [f32; 4] = [0.0, 1.5, 4.0, 6.5];

fn main() {
    let mut characters = 1000;
    let mut frames = 300;
    let mut parallel = true;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--characters" => characters = args.next().and_then(|v| v.parse().ok()).expect("--characters N"),
            "--frames" => frames = args.next().and_then(|v| v.parse().ok()).expect("--frames N"),
            "--serial" => parallel = false,
            other => panic!("unknown argument `{other}` (--characters N, --frames N, --serial)"),
        }
    }
    let folder = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/defs/humanoid"));

    let mut app = App::new();
    app.add_plugins((TaskPoolPlugin::default(), TimePlugin, TransformPlugin, ZoaAnimationPlugin))
        .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f64(1.0 / 60.0)))
        .insert_resource(ZoaAnimationSettings { parallel, hot_reload_interval: None });
    let id = app
        .world_mut()
        .resource_mut::<ZoaDefinitions>()
        .load(&folder, CharacterChoice::default(), CharacterSettings::default())
        .unwrap_or_else(|e| panic!("{e}"));
    let def = app.world().resource::<ZoaDefinitions>().get(id).clone();
    let skeleton = def.skeleton().skeleton().clone();
    let tags: Vec<StateTagSet> = TAGS.iter().map(|t| t.parse().unwrap()).collect();
    for k in 0..characters {
        let mut c = app.world().resource::<ZoaDefinitions>().spawn(id).unwrap_or_else(|e| panic!("{e}"));
        c.set_tags(tags[k % tags.len()]);
        c.set_speed(SPEEDS[k % SPEEDS.len()]);
        let x = (k % 40) as f32 * 1.5;
        let z = (k / 40) as f32 * 1.5;
        let world = app.world_mut();
        let root = world.spawn((c, Transform::from_xyz(x, 0.0, z))).id();
        let mut by_joint = vec![Entity::PLACEHOLDER; skeleton.joint_count()];
        for &j in skeleton.eval_order() {
            let joint = &skeleton.joints()[usize::from(j)];
            let parent = joint.parent.map_or(root, |p| by_joint[usize::from(p)]);
            let name = Name::new(joint.name.clone().unwrap_or_default());
            by_joint[usize::from(j)] = world.spawn((name, bevy_transform(&joint.rest), ChildOf(parent))).id();
        }
    }

    // Warm-up: binding, buffers, the first tag transitions.
    for _ in 0..60 {
        app.update();
    }
    let start = Instant::now();
    for f in 0..frames {
        // Gameplay between frames: a few characters change gait or fire each frame.
        let mut q = app.world_mut().query::<&mut ZoaCharacter>();
        for (k, mut c) in q.iter_mut(app.world_mut()).enumerate() {
            match (f + k) % 240 {
                0 => {
                    let g = (k + f / 240) % TAGS.len();
                    c.set_tags(tags[g]);
                    c.set_speed(SPEEDS[g]);
                }
                120 => c.fire(DefaultBindings::HIT),
                _ => {}
            }
        }
        app.update();
    }
    let elapsed = start.elapsed();
    let joints = characters * skeleton.joint_count();
    println!(
        "{characters} characters ({joints} joint entities), {frames} frames, {}: {:.3} ms/frame",
        if parallel { "parallel" } else { "serial" },
        elapsed.as_secs_f64() * 1000.0 / frames as f64
    );
}

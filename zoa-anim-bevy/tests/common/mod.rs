//! The fixture humanoid in a headless Bevy app: the app (Bevy's minimal
//! plugins from its sub-crates, transforms, ZOA), the joint hierarchy spawned
//! as entities, a gameplay script both a Bevy character and a plain runtime
//! character follow, and recorders.
#![allow(dead_code, elided_lifetimes_in_paths)]

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use bevy_app::{App, PostUpdate, TaskPoolOptions, TaskPoolPlugin, Update};
use bevy_ecs::prelude::*;
use bevy_time::{Time, TimePlugin, TimeUpdateStrategy};
use bevy_transform::TransformPlugin;
use bevy_transform::components::Transform;
use zoa_anim_bevy::binding::bevy_transform;
use zoa_anim_bevy::prelude::*;
use zoa_anim_bevy::{CharacterDefinition, ZoaJoint, load_definition};
use zoa_anim_core::Skeleton;
use zoa_anim_core::glam::Vec3;
use zoa_anim_runtime::Character;
use zoa_anim_runtime::character::{CharacterEventReceiver, Event};
use zoa_test_support::paths::fixture;

pub const FRAME: Duration = Duration::from_nanos(16_666_667);

/// The fixture humanoid's compiled definition (loaded once per test binary).
pub fn definition() -> Arc<CharacterDefinition> {
    static DEF: OnceLock<Arc<CharacterDefinition>> = OnceLock::new();
    DEF.get_or_init(|| {
        load_definition(&fixture("defs/humanoid"), CharacterChoice::default(), CharacterSettings::default())
            .expect("the fixture loads")
    })
    .clone()
}

/// Frame lengths `Time` gave, in order (what the plugin advanced by).
#[derive(Debug, Default, Resource)]
pub struct Dts(pub Vec<f32>);

/// Animation messages as they arrived, in order.
#[derive(Debug, Default, Resource)]
pub struct Received(pub Vec<ZoaAnimationEvent>);

/// Sound cue messages as they arrived, in order.
#[derive(Debug, Default, Resource)]
pub struct Cues(pub Vec<ZoaSoundCue>);

fn record_dt(time: Res<Time>, mut dts: ResMut<Dts>) {
    dts.0.push(time.delta_secs());
}

fn record_messages(
    mut events: MessageReader<ZoaAnimationEvent>,
    mut cues: MessageReader<ZoaSoundCue>,
    mut received: ResMut<Received>,
    mut heard: ResMut<Cues>,
) {
    received.0.extend(events.read().cloned());
    heard.0.extend(cues.read().cloned());
}

/// A headless app: task pools with `threads` threads, manual 60 Hz time,
/// transforms and ZOA; `record` adds the dt and message recorders.
pub fn app(threads: usize, parallel: bool, record: bool) -> App {
    let mut app = App::new();
    app.add_plugins((
        TaskPoolPlugin { task_pool_options: TaskPoolOptions::with_num_threads(threads) },
        TimePlugin,
        TransformPlugin,
        ZoaAnimationPlugin,
    ))
    .insert_resource(TimeUpdateStrategy::ManualDuration(FRAME))
    .insert_resource(ZoaAnimationSettings { parallel, hot_reload_interval: None });
    if record {
        app.init_resource::<Dts>()
            .init_resource::<Received>()
            .init_resource::<Cues>()
            .add_systems(Update, record_dt)
            .add_systems(PostUpdate, record_messages.after(ZoaSet::Events));
    }
    app
}

/// Spawns `skeleton`'s joints as entities below `root` (named like the
/// joints, or as `rename` says, at their rest transforms); returns them by
/// joint index.
pub fn spawn_joints(
    world: &mut World,
    root: Entity,
    skeleton: &Skeleton,
    rename: &dyn Fn(&str) -> String,
) -> Vec<Entity> {
    // Parents come before children in evaluation order.
    let mut by_joint = vec![Entity::PLACEHOLDER; skeleton.joint_count()];
    for &j in skeleton.eval_order() {
        let j = usize::from(j);
        let joint = &skeleton.joints()[j];
        let parent = joint.parent.map_or(root, |p| by_joint[usize::from(p)]);
        let name = rename(joint.name.as_deref().unwrap_or(""));
        let e = world.spawn((Name::new(name), bevy_transform(&joint.rest), ChildOf(parent))).id();
        by_joint[j] = e;
    }
    by_joint
}

/// Spawns a character of `def` with its joint hierarchy; returns (root, joints).
pub fn spawn_character(world: &mut World, def: &Arc<CharacterDefinition>) -> (Entity, Vec<Entity>) {
    let root = world.spawn((ZoaCharacter::new(def).unwrap(), Transform::default())).id();
    let joints = spawn_joints(world, root, def.skeleton().skeleton(), &|n| n.to_owned());
    (root, joints)
}

pub const TAGS: [&str; 5] = [
    "locomotion=idle",
    "locomotion=walk mood=calm",
    "locomotion=sprint",
    "locomotion=idle reaction=hit",
    "locomotion=run posture=crouching",
];
pub const SPEEDS: [f32; 5] = [0.0, 1.5, 6.5, 0.0, 4.0];

/// Gameplay of character `k` before frame `f` (the same for every run).
pub fn script(c: &mut Character, k: usize, f: usize) {
    if f == 0 {
        c.set_tags(TAGS[k % TAGS.len()].parse().unwrap());
        c.set_speed(SPEEDS[k % SPEEDS.len()]);
        if k % 3 == 1 {
            c.equip(PlayerProfileType::Rifle);
        }
    }
    match (f + 7 * k) % 97 {
        10 => c.fire(DefaultBindings::HIT),
        20 => c.fire(DefaultBindings::RELOAD),
        30 => {
            c.play_slot(DefaultSlots::HIT_REACT);
        }
        40 => c.set_tags(TAGS[(f / 97 + k) % TAGS.len()].parse().unwrap()),
        50 => {
            c.set_speed(SPEEDS[(f + k) % SPEEDS.len()]);
        }
        60 => c.fire(DefaultBindings::JUMP),
        61 => c.set_bool(DefaultBindings::IS_GROUNDED, false),
        75 => c.set_bool(DefaultBindings::IS_GROUNDED, true),
        80 => c.fire(DefaultBindings::FIRE),
        _ => {}
    }
    c.set_look_target(Some(Vec3::new((f as f32 * 0.05 + k as f32).sin(), 1.6, 2.0)));
}

/// Applies [`script`] to every character of the app (character `k` = the
/// `k`-th in `roots`).
pub fn drive(app: &mut App, roots: &[Entity], f: usize) {
    for (k, &root) in roots.iter().enumerate() {
        let mut c = app.world_mut().get_mut::<ZoaCharacter>(root).unwrap();
        script(&mut c, k, f);
    }
}

/// A runtime character's events as the plugin would write them (entity given).
#[derive(Default)]
pub struct Expected(pub Vec<(Event, Option<String>)>);

impl CharacterEventReceiver for Expected {
    fn on_character_event(&mut self, _: usize, _source: &Character, event: &Event) {
        self.0.push((*event, Some(event.name.to_string())));
    }
}

/// Every float of a Bevy transform, as bits.
pub fn bits(t: &Transform) -> [u32; 10] {
    let (a, b, c) = (t.translation.to_array(), t.rotation.to_array(), t.scale.to_array());
    [a[0], a[1], a[2], b[0], b[1], b[2], b[3], c[0], c[1], c[2]].map(f32::to_bits)
}

/// The joint transforms of `joints`, as bits.
pub fn joint_bits(world: &World, joints: &[Entity]) -> Vec<[u32; 10]> {
    joints.iter().map(|&e| bits(world.get::<Transform>(e).unwrap())).collect()
}

/// Whether every joint of `joints` carries its `ZoaJoint` for `root`.
pub fn all_bound(world: &World, root: Entity, joints: &[Entity]) -> bool {
    joints
        .iter()
        .enumerate()
        .all(|(j, &e)| world.get::<ZoaJoint>(e) == Some(&ZoaJoint { character: root, joint: j as u16 }))
}

//! The README's "Using ZOA in Bevy" example: a character from a definition
//! folder on a joint hierarchy, driven by meaning (headless here; with
//! `DefaultPlugins` the joints are a spawned glTF scene's).
#![allow(elided_lifetimes_in_paths)]

use bevy_app::{App, Update};
use bevy_ecs::prelude::*;
use bevy_transform::components::Transform;
use zoa_anim_bevy::prelude::*;

fn setup(mut commands: Commands, mut definitions: ResMut<ZoaDefinitions>) {
    let folder = concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/defs/humanoid");
    let id = definitions.load(folder, CharacterChoice::default(), CharacterSettings::default()).unwrap();
    let skeleton = definitions.get(id).skeleton().skeleton().clone();
    let root = commands.spawn((definitions.spawn(id).unwrap(), Transform::default())).id();
    // Joints bind by name (then by bone role): here a hand-made hierarchy, in a game a glTF scene.
    let mut joints = vec![root; skeleton.joint_count()];
    for &j in skeleton.eval_order() {
        let joint = &skeleton.joints()[usize::from(j)];
        let parent = joint.parent.map_or(root, |p| joints[usize::from(p)]);
        let name = Name::new(joint.name.clone().unwrap_or_default());
        joints[usize::from(j)] = commands.spawn((name, Transform::default(), ChildOf(parent))).id();
    }
}

fn gameplay(mut characters: Query<&mut ZoaCharacter>, mut frame: Local<u32>) {
    *frame += 1;
    for mut c in &mut characters {
        c.set_tags("locomotion=run".parse().unwrap());
        c.set_speed(4.0);
        if *frame == 30 {
            c.fire(DefaultBindings::RELOAD);
        }
    }
}

fn events(mut messages: MessageReader<ZoaAnimationEvent>) {
    for m in messages.read() {
        println!("{} {}", m.entity, m.event);
    }
}

fn main() {
    let mut app = App::new();
    // The headless plugin set (Bevy's sub-crates); `app.run()` would loop at 60 Hz.
    app.add_plugins(ZoaHeadlessPlugins).add_systems(bevy_app::Startup, setup).add_systems(Update, (gameplay, events));
    for _ in 0..120 {
        app.update();
    }
}

//! The README's Bevy example: a real glTF scene (greenman, from the shared
//! assets) and its ZOA definition, both loaded through the asset server, the
//! definition hot-reloaded by Bevy's file watcher, events printed by an observer.
//!
//! ```sh
//! cargo run -p zoa-anim-bevy --features render --example bevy_scene
//! ```
#![allow(elided_lifetimes_in_paths)]

use bevy::asset::io::AssetSourceBuilder;
use bevy::prelude::*;
use zoa_anim_bevy::prelude::*;

fn main() {
    let shared =
        std::env::var("ZOA_ASSETS").unwrap_or(concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/assets").into());
    App::new()
        .register_asset_source("shared", AssetSourceBuilder::platform_default(&shared, None))
        .add_plugins(
            DefaultPlugins
                .set(AssetPlugin { file_path: concat!(env!("CARGO_MANIFEST_DIR"), "/examples").into(), ..default() }),
        )
        .add_plugins((ZoaAnimationPlugin, ZoaAssetPlugin::default()))
        .add_systems(Startup, setup)
        .add_systems(Update, walk)
        .add_observer(|ev: On<ZoaAnimationEvent>| println!("{} {}", ev.entity, ev.event))
        .run();
}

fn setup(mut commands: Commands, assets: Res<AssetServer>) {
    // The character's definition and its glTF scene on one root: joints bind by name once the scene spawns.
    commands.spawn((
        ZoaDefinitionHandle(assets.load("greenman.zoa.toml")),
        WorldAssetRoot(assets.load(GltfAssetLabel::Scene(0).from_asset("shared://greenman.glb"))),
        Transform::default(),
    ));
    commands
        .spawn((Camera3d::default(), Transform::from_xyz(0.0, 1.6, 4.5).looking_at(Vec3::new(0.0, 0.9, 0.0), Vec3::Y)));
    commands.spawn((DirectionalLight::default(), Transform::from_xyz(3.0, 6.0, 4.0).looking_at(Vec3::ZERO, Vec3::Y)));
}

fn walk(mut characters: Query<&mut ZoaCharacter>) {
    for mut c in &mut characters {
        c.runtime_mut().set_tags("locomotion=walk".parse().unwrap());
        c.runtime_mut().set_speed(1.5);
    }
}

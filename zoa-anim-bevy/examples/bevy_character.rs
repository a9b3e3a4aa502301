//! A skinned glTF character in a window, driven by meaning only.
//!
//! ```sh
//! cargo run -p zoa-anim-bevy --features render --example bevy_character
//! ```
//!
//! The character is `greenman.glb` from the shared asset folder beside the
//! repository (`../shared/assets`, or the folder named by `ZOA_ASSETS`), with
//! the definitions in `examples/greenman/`. Gameplay code below never names a
//! clip, a state or a bone: it sets state tags (`locomotion=walk`), the
//! entity's speed, fires semantic bindings (`fire`, `melee`, `reload`) and
//! equips a weapon class. ZOA picks the clips, blends, fades and events.
//!
//! Keys: W walk, W + Shift run, W + Ctrl sprint; Space fire; F melee;
//! R reload (greenman has no reload clip, so `reload` is unbound and firing it
//! is a no-op, as it is for any unbound id); E equip / holster the sword.
//! Animation events are printed to stdout.

#![allow(elided_lifetimes_in_paths)]

use std::path::PathBuf;

use bevy::prelude::*;
use zoa_anim_bevy::prelude::*;

/// The definition folder of this example.
const DEFINITIONS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/greenman");

/// Where the shared assets are: `ZOA_ASSETS`, else `../shared/assets` beside the repository.
fn shared_assets() -> PathBuf {
    std::env::var_os("ZOA_ASSETS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/assets")))
}

fn main() {
    let assets = shared_assets();
    if !assets.join("greenman.glb").is_file() {
        eprintln!("greenman.glb not found in {} (set ZOA_ASSETS to the shared asset folder)", assets.display());
        std::process::exit(2);
    }
    App::new()
        .add_plugins(DefaultPlugins.set(AssetPlugin { file_path: assets.display().to_string(), ..default() }))
        .add_plugins(ZoaAnimationPlugin)
        .insert_resource(GlobalAmbientLight { color: Color::WHITE, brightness: 800.0, ..default() })
        .add_systems(Startup, setup)
        .add_systems(Update, (gameplay, attach_sword, print_events))
        .run();
}

/// The player's character and what it holds.
#[derive(Component)]
struct Player {
    armed: bool,
}

/// The sword scene while it is in the hand.
#[derive(Component)]
struct Sword;

fn setup(
    mut commands: Commands,
    asset_server: Res<AssetServer>,
    mut definitions: ResMut<ZoaDefinitions>,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<StandardMaterial>>,
) {
    let id = match definitions.load(DEFINITIONS, CharacterChoice::default(), CharacterSettings::default()) {
        Ok(id) => id,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    };
    // The character component sits on the scene's root: its joints bind by
    // name to the glTF nodes once the scene has spawned.
    let character = definitions.spawn(id).expect("a character from a compiled definition");
    commands.spawn((
        character,
        Player { armed: false },
        WorldAssetRoot(asset_server.load(GltfAssetLabel::Scene(0).from_asset("greenman.glb"))),
        Transform::default(),
    ));
    commands
        .spawn((Camera3d::default(), Transform::from_xyz(0.0, 1.6, 4.5).looking_at(Vec3::new(0.0, 0.9, 0.0), Vec3::Y)));
    commands.spawn((
        DirectionalLight { shadow_maps_enabled: true, ..default() },
        Transform::from_xyz(3.0, 6.0, 4.0).looking_at(Vec3::ZERO, Vec3::Y),
    ));
    commands.spawn((
        Mesh3d(meshes.add(Plane3d::default().mesh().size(20.0, 20.0))),
        MeshMaterial3d(materials.add(Color::srgb(0.35, 0.45, 0.35))),
    ));
    println!("W walk, Shift+W run, Ctrl+W sprint, Space fire, F melee, R reload, E equip/holster");
}

/// Keyboard → meaning. No clip, state or bone name appears here.
fn gameplay(keys: Res<ButtonInput<KeyCode>>, mut players: Query<(&mut ZoaCharacter, &mut Player)>) {
    let moving = keys.pressed(KeyCode::KeyW);
    let (gait, speed) = match (moving, keys.pressed(KeyCode::ShiftLeft), keys.pressed(KeyCode::ControlLeft)) {
        (false, _, _) => ("locomotion=idle", 0.0),
        (true, _, true) => ("locomotion=sprint", 6.5),
        (true, true, false) => ("locomotion=run", 4.0),
        (true, false, false) => ("locomotion=walk", 1.5),
    };
    for (mut character, mut player) in &mut players {
        character.set_tags(gait.parse().expect("a valid tag set"));
        character.set_speed(speed);
        if keys.just_pressed(KeyCode::Space) {
            character.fire(DefaultBindings::FIRE);
        }
        if keys.just_pressed(KeyCode::KeyF) {
            character.fire(DefaultBindings::MELEE);
        }
        if keys.just_pressed(KeyCode::KeyR) {
            character.fire(DefaultBindings::RELOAD);
        }
        if keys.just_pressed(KeyCode::KeyE) {
            player.armed = !player.armed;
            if player.armed {
                character.equip(PlayerProfileType::Melee);
            } else {
                character.equip(PlayerProfileType::Unarmed);
            }
        }
    }
}

/// Puts the sword scene in the right hand socket while the player is armed.
fn attach_sword(
    mut commands: Commands,
    asset_server: Res<AssetServer>,
    players: Query<(Entity, &Player), Changed<Player>>,
    children: Query<&Children>,
    names: Query<&Name>,
    swords: Query<Entity, With<Sword>>,
) {
    for (root, player) in &players {
        for sword in &swords {
            commands.entity(sword).despawn();
        }
        if !player.armed {
            continue;
        }
        let socket =
            children.iter_descendants(root).find(|&e| names.get(e).is_ok_and(|n| n.as_str() == "socket_hand_R"));
        if let Some(socket) = socket {
            commands.spawn((
                Sword,
                WorldAssetRoot(asset_server.load(GltfAssetLabel::Scene(0).from_asset("greenman_sword.glb"))),
                Transform::default(),
                ChildOf(socket),
            ));
        }
    }
}

fn print_events(mut events: MessageReader<ZoaAnimationEvent>) {
    for m in events.read() {
        println!("{}", m.event);
    }
}

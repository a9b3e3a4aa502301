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
//!
//! Scripted, for captures (CI runs this under `xvfb-run` on a software
//! Vulkan driver; see `scripts/check-render.sh`):
//!
//! ```sh
//! cargo run -p zoa-anim-bevy --features render --example bevy_character -- \
//!     --script sprint --screenshot-at 0.5,1.5 --out DIR --exit
//! ```
//!
//! `--script idle|walk|run|sprint` holds that gait instead of reading the
//! keyboard, on a fixed 1/60 s frame, without the ground plane (so a capture
//! shows the character on the clear colour); `--screenshot-at` lists seconds
//! after the character is first seen on screen at which Bevy's screenshot API
//! saves the window to `DIR/<script>-<seconds>s.png`; `--exit` quits once
//! every capture is on disk; `--debug` adds [`ZoaDebugPlugin`] (skeleton, IK
//! targets and the active state drawn with gizmos). "First seen" is measured, not assumed: until a
//! probe capture shows something other than the clear colour, the clock does
//! not start. Joints bind as soon as the scene spawns, but meshes draw only
//! once their textures have loaded and their render pipelines have compiled,
//! which on a software driver in an unoptimised build can take many frames.
//! A run in which nothing appears within 120 s exits with status 1.

#![allow(elided_lifetimes_in_paths)]

use std::path::PathBuf;
use std::time::Duration;

use bevy::prelude::*;
use bevy::render::view::screenshot::{Screenshot, ScreenshotCaptured, save_to_disk};
use bevy::time::TimeUpdateStrategy;
use bevy::window::WindowResolution;
use zoa_anim_bevy::prelude::*;

/// The definition folder of this example.
const DEFINITIONS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/greenman");

/// Where the shared assets are: `ZOA_ASSETS`, else `../shared/assets` beside the repository.
fn shared_assets() -> PathBuf {
    std::env::var_os("ZOA_ASSETS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/assets")))
}

/// The options of a scripted run (none: interactive).
#[derive(Debug, Clone, Default, Resource)]
struct Script {
    /// Index into [`GAITS`] of the gait held.
    gait: Option<usize>,
    /// Seconds after the character is first seen at which to capture the window.
    at: Vec<f32>,
    out: PathBuf,
    exit: bool,
    /// Draw the skeleton, IK targets and state name ([`ZoaDebugPlugin`]).
    debug: bool,
}

/// Gait name, tag set and speed (m/s).
const GAITS: [(&str, &str, f32); 4] = [
    ("idle", "locomotion=idle", 0.0),
    ("walk", "locomotion=walk", 1.5),
    ("run", "locomotion=run", 4.0),
    ("sprint", "locomotion=sprint", 6.5),
];

fn parse_script() -> Result<Script, String> {
    let mut script = Script { out: PathBuf::from("."), ..Script::default() };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let mut value = || args.next().ok_or(format!("{flag} needs a value"));
        match flag.as_str() {
            "--script" => {
                let name = value()?;
                let gait = GAITS.iter().position(|g| g.0 == name);
                script.gait = Some(gait.ok_or(format!("--script: `{name}` is not idle, walk, run or sprint"))?);
            }
            "--screenshot-at" => {
                let list = value()?;
                script.at = list
                    .split(',')
                    .map(|t| t.trim().parse::<f32>().ok().filter(|t| t.is_finite() && *t >= 0.0))
                    .collect::<Option<Vec<_>>>()
                    .ok_or(format!("--screenshot-at: `{list}` is not a list of seconds"))?;
            }
            "--out" => script.out = PathBuf::from(value()?),
            "--exit" => script.exit = true,
            "--debug" => script.debug = true,
            other => {
                return Err(format!(
                    "unknown argument `{other}` (--script GAIT, --screenshot-at S,S,…, --out DIR, --exit, --debug)"
                ));
            }
        }
    }
    if !script.at.is_empty() && script.gait.is_none() {
        return Err("--screenshot-at needs --script (captures are of a scripted run)".into());
    }
    Ok(script)
}

fn main() {
    let script = match parse_script() {
        Ok(s) => s,
        Err(e) => {
            eprintln!("bevy_character: {e}");
            std::process::exit(2);
        }
    };
    let assets = shared_assets();
    if !assets.join("greenman.glb").is_file() {
        eprintln!("greenman.glb not found in {} (set ZOA_ASSETS to the shared asset folder)", assets.display());
        std::process::exit(2);
    }
    if !script.at.is_empty()
        && let Err(e) = std::fs::create_dir_all(&script.out)
    {
        eprintln!("bevy_character: {}: {e}", script.out.display());
        std::process::exit(2);
    }
    let mut window = Window { title: "ZOA: greenman".into(), ..default() };
    if script.gait.is_some() {
        window.resolution = WindowResolution::new(640, 400);
    }
    let mut app = App::new();
    app.add_plugins(
        DefaultPlugins
            .set(AssetPlugin { file_path: assets.display().to_string(), ..default() })
            .set(WindowPlugin { primary_window: Some(window), ..default() }),
    )
    .add_plugins(ZoaAnimationPlugin)
    .insert_resource(GlobalAmbientLight { color: Color::WHITE, brightness: 800.0, ..default() })
    .insert_resource(ClearColor(CLEAR))
    .add_systems(Startup, setup)
    .add_systems(Update, (attach_sword, print_events));
    if script.gait.is_some() {
        app.insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_nanos(16_666_667)))
            .init_resource::<Saved>()
            .add_systems(Update, (scripted, capture));
    } else {
        app.add_systems(Update, gameplay);
    }
    if script.debug {
        app.add_plugins(ZoaDebugPlugin);
    }
    app.insert_resource(script).run();
}

/// The clear colour (captures tell the character from it).
const CLEAR: Color = Color::srgb(0.08, 0.09, 0.11);

/// A scripted run: the gait held, every frame, by meaning.
fn scripted(script: Res<Script>, mut players: Query<&mut ZoaCharacter, With<Player>>) {
    let Some((_, tags, speed)) = script.gait.map(|g| GAITS[g]) else { return };
    for mut character in &mut players {
        character.set_tags(tags.parse().expect("a valid tag set"));
        character.set_speed(speed);
    }
}

/// Captures already saved (counted by an observer after `save_to_disk`), and
/// the probe captures that wait for the character to appear.
#[derive(Debug, Default, Resource)]
struct Saved {
    saved: usize,
    /// A probe capture is on its way.
    probing: bool,
    /// The frame time at which a probe first showed the character.
    seen_at: Option<f32>,
}

/// Wall-clock seconds after which a character never seen is an error.
const NEVER_SEEN_SECS: u64 = 120;

/// Whether a capture shows more than the clear colour: at least 0.5 % of its
/// pixels differ from its corner pixel (the same test as `tests/render_capture.rs`).
fn shows_something(image: &Image) -> bool {
    let Ok(rgba) = image.clone().try_into_dynamic().map(|d| d.to_rgba8()) else { return false };
    let corner = *rgba.get_pixel(0, 0);
    let differs = rgba.pixels().filter(|p| p.0.iter().zip(corner.0).take(3).any(|(&a, b)| a.abs_diff(b) > 24)).count();
    differs * 200 > (rgba.width() * rgba.height()) as usize
}

/// Starts the clock once a probe capture shows the character, then requests
/// each capture once its time has come; exits once all are saved (with
/// `--exit`), or with an error if the character never appears.
#[allow(clippy::too_many_arguments)] // a Bevy system: each parameter is one thing it reads or writes
fn capture(
    mut commands: Commands,
    time: Res<Time>,
    script: Res<Script>,
    players: Query<&ZoaCharacter, With<Player>>,
    mut saved: ResMut<Saved>,
    mut started: Local<Option<std::time::Instant>>,
    mut requested: Local<usize>,
    mut bound: Local<bool>,
    mut exit: MessageWriter<AppExit>,
) {
    let started = *started.get_or_insert_with(std::time::Instant::now);
    let Some((gait, _, _)) = script.gait.map(|g| GAITS[g]) else { return };
    let Some(start) = saved.seen_at else {
        if started.elapsed() > Duration::from_secs(NEVER_SEEN_SECS) {
            eprintln!("bevy_character: the character was not seen on screen within {NEVER_SEEN_SECS} s");
            exit.write(AppExit::error());
        } else if !saved.probing && players.iter().any(|c| c.binding().is_some()) {
            if !*bound {
                *bound = true;
                eprintln!("bevy_character: the joints are bound at {:.2} s", time.elapsed_secs());
            }
            saved.probing = true;
            commands.spawn(Screenshot::primary_window()).observe(
                |captured: On<ScreenshotCaptured>, time: Res<Time>, mut saved: ResMut<Saved>| {
                    saved.probing = false;
                    if saved.seen_at.is_none() && shows_something(&captured.image) {
                        saved.seen_at = Some(time.elapsed_secs());
                        eprintln!("bevy_character: the character is on screen at {:.2} s", time.elapsed_secs());
                    }
                },
            );
        }
        return;
    };
    while let Some(&at) = script.at.get(*requested)
        && time.elapsed_secs() - start >= at
    {
        let path = script.out.join(format!("{gait}-{at:.2}s.png"));
        commands
            .spawn(Screenshot::primary_window())
            .observe(save_to_disk(path))
            .observe(|_: On<ScreenshotCaptured>, mut saved: ResMut<Saved>| saved.saved += 1);
        *requested += 1;
    }
    if script.exit && saved.saved >= script.at.len() {
        exit.write(AppExit::Success);
    }
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
    script: Res<Script>,
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
    if script.gait.is_none() {
        commands.spawn((
            Mesh3d(meshes.add(Plane3d::default().mesh().size(20.0, 20.0))),
            MeshMaterial3d(materials.add(Color::srgb(0.35, 0.45, 0.35))),
        ));
        println!("W walk, Shift+W run, Ctrl+W sprint, Space fire, F melee, R reload, E equip/holster");
    }
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

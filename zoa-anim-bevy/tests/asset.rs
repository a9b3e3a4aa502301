//! A definition folder as a Bevy asset (the `asset` feature), headless:
//! - `a_manifest_loads_through_the_asset_server_and_hot_reloads_through_the_file_watcher`:
//!   a `*.zoa.toml` manifest in a temporary asset folder is loaded with
//!   `asset_server.load`, its character appears on the handle's entity and
//!   binds its joints; a good edit of a clip file (a loader dependency) is
//!   seen by Bevy's file watcher and swaps the definition; a broken edit is
//!   refused with every diagnostic and the last good definition stays;
//! - `the_readme_example_manifest_loads`: `examples/greenman.zoa.toml` (the
//!   `bevy_scene` example's) loads through the asset server (needs the
//!   shared assets; skipped with a note when absent).
#![cfg(feature = "asset")]
#![allow(elided_lifetimes_in_paths)]

mod common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use bevy_app::{App, PostUpdate, TaskPoolPlugin};
use bevy_asset::{AssetApp, AssetLoadFailedEvent, AssetPlugin, AssetServer};
use bevy_ecs::prelude::*;
use bevy_time::TimePlugin;
use bevy_transform::TransformPlugin;
use bevy_transform::components::Transform;
use common::{all_bound, definition, spawn_joints};
use zoa_anim_bevy::prelude::*;
use zoa_anim_bevy::{CharacterDefinition, ZoaSet};
use zoa_test_support::paths::{copy_dir, fixture, temp_dir};

/// Load failures of definition assets, rendered.
#[derive(Default, Resource)]
struct Failures(Vec<String>);

fn record_failures(mut failed: MessageReader<AssetLoadFailedEvent<ZoaDefinitionAsset>>, mut out: ResMut<Failures>) {
    out.0.extend(failed.read().map(|f| f.error.to_string()));
}

/// Updates `app` (with short sleeps: the asset server and the file watcher
/// work on their own threads) until `done` holds; panics after 30 s.
fn update_until(app: &mut App, what: &str, done: impl Fn(&World) -> bool) {
    let start = Instant::now();
    while !done(app.world()) {
        assert!(start.elapsed() < Duration::from_secs(30), "timed out waiting for {what}");
        app.update();
        std::thread::sleep(Duration::from_millis(5));
    }
}

fn definition_of(world: &World, root: Entity) -> Option<Arc<CharacterDefinition>> {
    world.get::<ZoaCharacter>(root).map(|c| Arc::clone(c.definition()))
}

#[test]
fn a_manifest_loads_through_the_asset_server_and_hot_reloads_through_the_file_watcher() {
    // The asset folder: a manifest, the fixture's definition folder and its model.
    let tmp = temp_dir("bevy-asset");
    let assets = tmp.path().join("assets");
    copy_dir(&fixture("defs/humanoid"), &assets.join("defs/humanoid"));
    std::fs::create_dir_all(assets.join("models")).unwrap();
    std::fs::copy(fixture("models/humanoid.glb"), assets.join("models/humanoid.glb")).unwrap();
    std::fs::write(assets.join("hero.zoa.toml"), "folder = \"defs/humanoid\"\n").unwrap();

    let mut app = App::new();
    app.add_plugins((
        TaskPoolPlugin::default(),
        TimePlugin,
        TransformPlugin,
        AssetPlugin {
            file_path: assets.display().to_string(),
            watch_for_changes_override: Some(true),
            ..Default::default()
        },
        ZoaAnimationPlugin,
        ZoaAssetPlugin::default(),
    ))
    .insert_resource(ZoaAnimationSettings { parallel: true, hot_reload_interval: None })
    .init_resource::<Failures>()
    .add_systems(PostUpdate, record_failures.after(ZoaSet::Input));
    // (`init_asset` again is harmless; it proves the asset type is registered as Bevy expects.)
    app.init_asset::<ZoaDefinitionAsset>();

    let handle = app.world().resource::<AssetServer>().load::<ZoaDefinitionAsset>("hero.zoa.toml");
    let root = app.world_mut().spawn((ZoaDefinitionHandle(handle), Transform::default())).id();
    let skeleton = definition().skeleton().skeleton().clone();
    let joints = spawn_joints(app.world_mut(), root, &skeleton, &|n| n.to_owned());

    // Loaded: the character appears on the entity and its joints bind.
    update_until(&mut app, "the character", |w| w.get::<ZoaCharacter>(root).is_some_and(|c| c.binding().is_some()));
    assert!(all_bound(app.world(), root, &joints));
    let first = definition_of(app.world(), root).unwrap();
    let walk: StateTagSet = "locomotion=walk".parse().unwrap();
    app.world_mut().get_mut::<ZoaCharacter>(root).unwrap().set_tags(walk);
    for _ in 0..5 {
        app.update();
    }

    // A good edit of a clip file: the watcher reloads the manifest's asset,
    // the character is re-created on the new definition, tags kept, joints bound.
    let clip = assets.join("defs/humanoid/clips/walk.toml");
    let good = std::fs::read_to_string(&clip).unwrap();
    std::fs::write(&clip, good.replace("Footstep@0.5", "Footstep@0.55")).unwrap();
    update_until(&mut app, "the swap", |w| definition_of(w, root).is_some_and(|d| !Arc::ptr_eq(&d, &first)));
    let second = definition_of(app.world(), root).unwrap();
    update_until(&mut app, "the joints bound again", |w| w.get::<ZoaCharacter>(root).unwrap().binding().is_some());
    assert!(all_bound(app.world(), root, &joints));
    assert_eq!(app.world().get::<ZoaCharacter>(root).unwrap().tags(), walk);
    assert!(app.world().resource::<Failures>().0.is_empty());

    // A broken edit: refused with every diagnostic; the last good definition stays.
    std::fs::write(&clip, good.replace("loop = true", "loop = \"sometimes\"")).unwrap();
    update_until(&mut app, "the refusal", |w| !w.resource::<Failures>().0.is_empty());
    let failures = &app.world().resource::<Failures>().0;
    assert!(failures[0].contains("walk.toml") && failures[0].contains("loop"), "{failures:?}");
    for _ in 0..10 {
        app.update();
    }
    assert!(Arc::ptr_eq(&definition_of(app.world(), root).unwrap(), &second), "the last good definition stays");
}

#[test]
fn the_readme_example_manifest_loads() {
    use zoa_test_support::paths::repo_root;
    if !repo_root().join("../shared/assets/greenman.glb").is_file() {
        eprintln!("note: ../shared/assets/greenman.glb not beside the repository; skipping");
        return;
    }
    let mut app = App::new();
    app.add_plugins((
        TaskPoolPlugin::default(),
        TimePlugin,
        AssetPlugin {
            file_path: repo_root().join("zoa-anim-bevy/examples").display().to_string(),
            watch_for_changes_override: Some(false),
            ..Default::default()
        },
        ZoaAnimationPlugin,
        ZoaAssetPlugin::default(),
    ))
    .init_resource::<Failures>()
    .add_systems(PostUpdate, record_failures);
    let handle = app.world().resource::<AssetServer>().load::<ZoaDefinitionAsset>("greenman.zoa.toml");
    let start = Instant::now();
    loop {
        app.update();
        if let Some(asset) = app.world().resource::<bevy_asset::Assets<ZoaDefinitionAsset>>().get(&handle) {
            assert_eq!(asset.definition().skeleton().skeleton().joint_count(), 12, "greenman's skin has 12 joints");
            assert!(asset.folder().ends_with("greenman"));
            break;
        }
        let failures = &app.world().resource::<Failures>().0;
        assert!(failures.is_empty(), "{failures:?}");
        assert!(start.elapsed() < Duration::from_secs(30), "timed out loading greenman.zoa.toml");
        std::thread::sleep(Duration::from_millis(5));
    }
}

//! The `many_foxes` apps, shared by the example and its pose test
//! (`tests/many_foxes.rs` includes this file): one headless Bevy app of N Fox
//! scenes animated by `bevy_animation` or by ZOA, each fox walking and running
//! at once with its own mix and phase, and a clock on the animator's systems.
#![allow(dead_code, elided_lifetimes_in_paths)]

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use bevy::animation::AnimationTargetId;
use bevy::app::AnimationSystems;
use bevy::log::LogPlugin;
use bevy::prelude::*;
use bevy::render::RenderPlugin;
use bevy::render::settings::WgpuSettings;
use bevy::time::TimeUpdateStrategy;
use bevy::window::ExitCondition;
use bevy::winit::WinitPlugin;
use bevy::world_serialization::WorldInstanceReady;
use zoa_anim_bevy::core::AnimationBindingId;
use zoa_anim_bevy::prelude::*;
use zoa_anim_bevy::runtime::Character;
use zoa_anim_bevy::{ZoaDefinitionId, ZoaJoint};

/// The Fox definition folder of the example (TOML only; `Fox.glb` is linked in at run time).
pub const FOX_DEFINITIONS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/many_foxes/fox");

/// The glTF animation indices of the Fox's clips (`Survey`, `Walk`, `Run`).
const WALK: usize = 1;
const RUN: usize = 2;

/// Every frame lasts exactly this long (`TimeUpdateStrategy::ManualDuration`),
/// so both animators see the same clock and a run is reproducible.
pub const FRAME: Duration = Duration::from_nanos(16_666_667);

/// Which library animates the foxes of an app.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Resource)]
pub enum Animator {
    /// Bevy's own: an `AnimationGraph` of the two clips, per-fox weights, speeds and seek times.
    BevyAnimation,
    /// ZOA: a `ZoaCharacter` of the Fox definition folder, per-fox `blend` binding and phase.
    Zoa,
}

/// Where the shared assets are: `ZOA_ASSETS`, else `../shared/assets` beside the repository.
#[must_use]
pub fn shared_assets() -> PathBuf {
    std::env::var_os("ZOA_ASSETS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/assets")))
}

/// Fox `k`'s run weight (walk gets `1 − w`), in `0.2 ..= 0.8`, and its
/// phase (the share of a cycle it starts into), in `0 .. 1`.
#[must_use]
pub fn fox_mix(k: usize) -> (f32, f32) {
    let golden = (k as f32 * 0.618_034).fract();
    (0.2 + 0.6 * golden, (k as f32 * 0.37).fract())
}

/// Fox `k` of the app (on the root entity of its scene).
#[derive(Debug, Clone, Copy, Component)]
pub struct Fox(pub usize);

/// Set on a fox once its animator is set up (its scene has spawned).
#[derive(Debug, Clone, Copy, Component)]
pub struct Animated;

/// Wall time spent in the animator's systems: from a system ordered right
/// before them to one right after, summed over frames.
#[derive(Debug, Default, Resource)]
pub struct AnimationClock {
    started: Option<Instant>,
    /// Total so far.
    pub total: Duration,
}

fn clock_start(mut clock: ResMut<AnimationClock>) {
    clock.started = Some(Instant::now());
}

fn clock_stop(mut clock: ResMut<AnimationClock>) {
    if let Some(t) = clock.started.take() {
        clock.total += t.elapsed();
    }
}

#[derive(Debug, Resource)]
struct FoxAssets {
    scene: Handle<WorldAsset>,
    clips: [Handle<AnimationClip>; 2],
    graph: Handle<AnimationGraph>,
    nodes: [AnimationNodeIndex; 2],
    definition: Option<ZoaDefinitionId>,
}

/// Copies the Fox definition folder into `dir` (made if missing) and links
/// (or, where links fail, copies) `Fox.glb` from `assets` beside it, as the
/// clip files name it. Returns the folder to load.
pub fn fox_folder(assets: &Path, dir: &Path) -> std::io::Result<PathBuf> {
    fn copy_tree(from: &Path, to: &Path) -> std::io::Result<()> {
        std::fs::create_dir_all(to)?;
        for entry in std::fs::read_dir(from)? {
            let entry = entry?;
            let path = entry.path();
            if entry.file_type()?.is_dir() {
                copy_tree(&path, &to.join(entry.file_name()))?;
            } else if path.extension().is_some_and(|e| e == "toml") {
                std::fs::copy(&path, to.join(entry.file_name()))?;
            }
        }
        Ok(())
    }
    copy_tree(Path::new(FOX_DEFINITIONS), dir)?;
    let model = dir.join("Fox.glb");
    if !model.exists() {
        let source = std::fs::canonicalize(assets.join("Fox.glb"))?;
        #[cfg(unix)]
        let linked = std::os::unix::fs::symlink(&source, &model);
        #[cfg(not(unix))]
        let linked: std::io::Result<()> = Err(std::io::ErrorKind::Unsupported.into());
        if linked.is_err() {
            std::fs::copy(&source, &model)?;
        }
    }
    Ok(dir.to_path_buf())
}

/// A headless app (no window, no renderer, no log subscriber: two of these
/// live in one process) of `foxes` Fox scenes animated by `animator`; ZOA
/// loads its definitions from `definitions` (see [`fox_folder`]).
///
/// Both kinds of app hold the same plugins (Bevy's default plugins minus
/// window, renderer and log; and ZOA's plugin), the same entities, and
/// advance by [`FRAME`] per update; only the animator differs. The
/// [`AnimationClock`] times `bevy_animation`'s `AnimationSystems` set in one
/// and ZOA's `ZoaSet::Input ..= ZoaSet::Events` in the other; ZOA's sets run
/// after `AnimationSystems` in both, so neither window can contain the
/// other library's systems. The clock needs none of the commands either
/// library queues, so its stop adds no sync point to a window (the sync
/// points inside a library's chain stay in its window).
pub fn fox_app(assets: &Path, definitions: &Path, foxes: usize, animator: Animator) -> Result<App, String> {
    let mut app = App::new();
    app.add_plugins(
        DefaultPlugins
            .set(AssetPlugin { file_path: assets.display().to_string(), ..default() })
            .set(WindowPlugin { primary_window: None, exit_condition: ExitCondition::DontExit, ..default() })
            .set(RenderPlugin { render_creation: WgpuSettings { backends: None, ..default() }.into(), ..default() })
            .disable::<WinitPlugin>()
            .disable::<LogPlugin>(),
    )
    .add_plugins(ZoaAnimationPlugin)
    .insert_resource(ZoaAnimationSettings { parallel: true, hot_reload_interval: None })
    .insert_resource(TimeUpdateStrategy::ManualDuration(FRAME))
    .insert_resource(animator)
    .init_resource::<AnimationClock>()
    .add_systems(Update, animate_ready)
    .configure_sets(PostUpdate, ZoaSet::Input.after(AnimationSystems));
    match animator {
        Animator::BevyAnimation => app.add_systems(
            PostUpdate,
            (
                clock_start.before(AnimationSystems),
                clock_stop.after_ignore_deferred(AnimationSystems).before(ZoaSet::Input),
            ),
        ),
        Animator::Zoa => app.add_systems(
            PostUpdate,
            (
                clock_start.after(AnimationSystems).before(ZoaSet::Input),
                clock_stop.after_ignore_deferred(ZoaSet::Events).before(bevy::transform::TransformSystems::Propagate),
            ),
        ),
    };

    let definition = match animator {
        Animator::Zoa => Some(
            app.world_mut()
                .resource_mut::<ZoaDefinitions>()
                .load(definitions, CharacterChoice::default(), CharacterSettings::default())
                .map_err(|e| e.to_string())?,
        ),
        Animator::BevyAnimation => None,
    };
    let world = app.world_mut();
    let server = world.resource::<AssetServer>().clone();
    let clips = [WALK, RUN].map(|i| server.load(GltfAssetLabel::Animation(i).from_asset("Fox.glb")));
    let mut graph = AnimationGraph::new();
    let root = graph.root;
    let nodes = clips.clone().map(|c| graph.add_clip(c, 1.0, root));
    let graph = world.resource_mut::<Assets<AnimationGraph>>().add(graph);
    let scene = server.load(GltfAssetLabel::Scene(0).from_asset("Fox.glb"));
    world.insert_resource(FoxAssets { scene: scene.clone(), clips, graph, nodes, definition });

    // A square grid, 2 m apart, facing +z (the Fox model is in centimetres).
    let side = (foxes as f32).sqrt().ceil().max(1.0) as usize;
    for k in 0..foxes {
        let (x, z) = ((k % side) as f32 * 2.0, (k / side) as f32 * 2.0);
        world
            .spawn((
                Fox(k),
                WorldAssetRoot(scene.clone()),
                Transform::from_xyz(x, 0.0, z).with_scale(Vec3::splat(0.01)),
            ))
            .observe(scene_ready);
    }
    app.finish();
    app.cleanup();
    Ok(app)
}

/// Marks a fox whose scene has spawned; [`animate_ready`] sets up its
/// animator once the clips have loaded too (a scene can be ready a frame or
/// more before its clips are: their durations set the blend's speeds).
fn scene_ready(ready: On<WorldInstanceReady>, mut commands: Commands, foxes: Query<&Fox>) {
    if foxes.contains(ready.entity) {
        commands.entity(ready.entity).insert(SceneReady);
    }
}

/// A fox whose scene has spawned, its animator not set up yet.
#[derive(Component)]
struct SceneReady;

/// Foxes whose scene has spawned and whose animator is not set up yet.
type Waiting = (With<SceneReady>, Without<Animated>);

/// Sets up the animator of every fox whose scene has spawned, once the clips
/// have loaded, so that both animators start at the same time: Bevy's
/// player plays both clips with weights `1 − w` and `w`, each at the speed
/// that keeps it on the blend's normalized clock (ZOA's blend tree plays its
/// children on one clock whose cycle is `(1 − w)·d_walk + w·d_run`), seeked
/// to the fox's phase; ZOA's character gets `blend = w` and is advanced by
/// the phase.
#[allow(clippy::too_many_arguments)] // a Bevy system: each parameter is one thing it reads or writes
fn animate_ready(
    mut commands: Commands,
    animator: Res<Animator>,
    fox_assets: Res<FoxAssets>,
    clips: Res<Assets<AnimationClip>>,
    definitions: Res<ZoaDefinitions>,
    foxes: Query<(Entity, &Fox), Waiting>,
    children: Query<&Children>,
    mut players: Query<&mut AnimationPlayer>,
) {
    let [Some(walk), Some(run)] = fox_assets.clips.clone().map(|c| clips.get(&c).map(AnimationClip::duration)) else {
        return;
    };
    let durations = [walk, run];
    for (root, &Fox(k)) in &foxes {
        let (w, phase) = fox_mix(k);
        let weights = [1.0 - w, w];
        let cycle = weights[0] * durations[0] + weights[1] * durations[1];
        match *animator {
            Animator::BevyAnimation => {
                let Some(player) = children.iter_descendants(root).find(|&e| players.contains(e)) else {
                    continue;
                };
                let Ok(mut p) = players.get_mut(player) else { continue };
                for i in 0..2 {
                    p.play(fox_assets.nodes[i])
                        .set_weight(weights[i])
                        .set_speed(durations[i] / cycle)
                        .seek_to(phase * durations[i])
                        .repeat();
                }
                commands.entity(player).insert(AnimationGraphHandle(fox_assets.graph.clone()));
            }
            Animator::Zoa => {
                let Some(id) = fox_assets.definition else { continue };
                let Ok(mut character) = definitions.spawn(id) else { continue };
                let blend = AnimationBindingId::new("blend").expect("a valid binding id");
                character.set_float(blend, w);
                let c: &mut Character = &mut character;
                if let Err(e) = c.update(phase * cycle) {
                    bevy::log::error!("fox {k}: {e}");
                }
                commands.entity(root).insert(character);
            }
        }
        commands.entity(root).insert(Animated);
    }
}

/// Updates `app` until every fox is set up and (with ZOA) bound, at most
/// `max_frames` times; the error says how many were left.
pub fn wait_until_animated(app: &mut App, foxes: usize, max_frames: usize) -> Result<usize, String> {
    for frame in 0..max_frames {
        app.update();
        let world = app.world_mut();
        let animated = world.query_filtered::<(), (With<Fox>, With<Animated>)>().iter(world).count();
        let unbound = world.query::<&ZoaCharacter>().iter(world).filter(|c| c.binding().is_none()).count();
        let clips_missing = {
            let a = world.resource::<FoxAssets>();
            let clips = world.resource::<Assets<AnimationClip>>();
            a.clips.iter().any(|c| clips.get(c).is_none())
        };
        if animated == foxes && unbound == 0 && !clips_missing {
            return Ok(frame + 1);
        }
    }
    Err(format!("the foxes were not all animated after {max_frames} frames (is Fox.glb readable?)"))
}

/// Fox `k`'s joints (named entities below its root that a glTF channel or
/// a ZOA joint drives): name and local transform, sorted by name.
pub fn fox_joints(app: &mut App, k: usize) -> Vec<(String, Transform)> {
    let world = app.world_mut();
    let root = world.query::<(Entity, &Fox)>().iter(world).find(|(_, f)| f.0 == k).map(|(e, _)| e);
    let Some(root) = root else { return Vec::new() };
    let mut out = Vec::new();
    let mut stack = vec![root];
    while let Some(e) = stack.pop() {
        if let Some(children) = world.get::<Children>(e) {
            stack.extend(children.iter());
        }
        let driven = world.get::<ZoaJoint>(e).is_some() || world.get::<AnimationTargetId>(e).is_some();
        if let (true, Some(name), Some(t)) = (driven, world.get::<Name>(e), world.get::<Transform>(e)) {
            out.push((name.as_str().to_owned(), *t));
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

//! A definition folder as a Bevy asset (the `asset` feature, on by default).
//!
//! A ZOA character is a *folder* of TOML definitions plus the glTF files its
//! clips name, so the asset is a small manifest beside it, `*.zoa.toml`:
//!
//! ```toml
//! # assets/hero.zoa.toml
//! folder = "defs/hero"          # the definition folder, relative to this file
//! player_set = "hero"           # optional: which player set, animation
//! animation_profile = "heavy"   # profile and sound profile (as in
//! sound_profile = "hero"        # `CharacterChoice`; default: the folder's own)
//! ```
//!
//! `asset_server.load("hero.zoa.toml")` gives a `Handle<ZoaDefinitionAsset>`;
//! put it on the root of a joint hierarchy as a [`ZoaDefinitionHandle`] and
//! the plugin inserts the [`ZoaCharacter`](crate::ZoaCharacter) once the
//! definition has loaded.
//!
//! # Hot reload
//! The loader reads every file of the folder, and every model its clips name,
//! through the asset server (as loader dependencies), so with Bevy's file
//! watcher on, an edit of any of them reloads the asset. A good edit replaces it (`AssetEvent::Modified`) and every
//! character on it is re-created as with [`ZoaDefinitions`](crate::ZoaDefinitions)
//! (tags, speed and class kept; what it had in flight ended by cancel events;
//! its clock restarts). A broken edit keeps the last good definition: Bevy's
//! asset server logs the failure and sends an
//! `AssetLoadFailedEvent<ZoaDefinitionAsset>` whose error lists every
//! diagnostic (`file:line:column: code: message`).
//!
//! The `asset` feature compiles `bevy_asset`'s `file_watcher` (as Bevy's own
//! `file_watcher` feature does), which makes watching the default; turn it
//! off with `AssetPlugin { watch_for_changes_override: Some(false), .. }`.
//!
//! # File system
//! The definition reader (`zoa-anim-assets`) reads folders from the file
//! system, so the manifest must come from a file asset source: the loader
//! finds the folder under the default source's directory
//! (`AssetPlugin::file_path`, resolved as Bevy resolves it), or under the
//! directory given to [`ZoaAssetPlugin::root`].

use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use bevy_app::{App, Plugin, PostUpdate};
use bevy_asset::io::Reader;
use bevy_asset::io::file::FileAssetReader;
use bevy_asset::{Asset, AssetApp, AssetLoader, AssetPlugin, Assets, Handle, LoadContext};
use bevy_ecs::prelude::*;
use bevy_ecs::reflect::ReflectComponent;
use bevy_reflect::{Reflect, TypePath};
use zoa_anim_assets::character::CharacterChoice;
use zoa_anim_runtime::{CharacterDefinition, CharacterSettings};

use crate::ZoaSet;
use crate::character::ZoaCharacter;
use crate::error::ZoaBevyError;
use crate::messages::{ZoaAnimationEvent, ZoaSoundBridge, ZoaSoundCue};

/// A compiled character definition loaded from a `*.zoa.toml` manifest.
#[derive(Debug, Clone, Asset, TypePath)]
pub struct ZoaDefinitionAsset {
    definition: Arc<CharacterDefinition>,
    folder: PathBuf,
}

impl ZoaDefinitionAsset {
    /// The compiled definition (characters of it: [`ZoaCharacter::new`]).
    #[must_use]
    pub fn definition(&self) -> &Arc<CharacterDefinition> {
        &self.definition
    }
    /// The definition folder on disk.
    #[must_use]
    pub fn folder(&self) -> &Path {
        &self.folder
    }
}

/// On the root of a joint hierarchy: the definition its character comes
/// from. The plugin inserts the [`ZoaCharacter`] when the asset has loaded
/// and re-creates it when the asset is reloaded.
#[derive(Debug, Clone, PartialEq, Eq, Component, Reflect)]
#[reflect(Component)]
pub struct ZoaDefinitionHandle(pub Handle<ZoaDefinitionAsset>);

/// Loads `*.zoa.toml` manifests (see the module docs).
#[derive(Debug, Clone, TypePath)]
pub struct ZoaDefinitionLoader {
    root: PathBuf,
}

/// The manifest's fields.
#[derive(Debug, Default)]
struct Manifest {
    folder: String,
    player_set: Option<String>,
    animation_profile: Option<String>,
    sound_profile: Option<String>,
}

/// Reads a manifest: every problem at once.
fn parse_manifest(text: &str) -> Result<Manifest, Vec<String>> {
    let table: toml::Table = text.parse().map_err(|e: toml::de::Error| vec![e.to_string()])?;
    let mut m = Manifest::default();
    let mut problems = Vec::new();
    let mut folder = None;
    for (key, value) in &table {
        let Some(text) = value.as_str().map(str::to_owned) else {
            problems.push(format!("`{key}` must be a string"));
            continue;
        };
        match key.as_str() {
            "folder" => folder = Some(text),
            "player_set" => m.player_set = Some(text),
            "animation_profile" => m.animation_profile = Some(text),
            "sound_profile" => m.sound_profile = Some(text),
            other => problems
                .push(format!("unknown key `{other}` (expected folder, player_set, animation_profile, sound_profile)")),
        }
    }
    match folder {
        Some(f) => m.folder = f,
        None if !table.contains_key("folder") => problems.push("`folder` (the definition folder) is missing".into()),
        None => {}
    }
    if problems.is_empty() { Ok(m) } else { Err(problems) }
}

/// `path` with `.` and `..` resolved lexically (`None` when it climbs above its start).
fn normalize(path: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    return None;
                }
            }
            Component::Normal(p) => out.push(p),
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    Some(out)
}

/// Every file under `dir` (relative to `dir`), down to the definition reader's depth.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    fn walk(base: &Path, rel: &Path, depth: usize, out: &mut Vec<PathBuf>) {
        let Ok(read) = std::fs::read_dir(base.join(rel)) else { return };
        for entry in read.flatten() {
            let rel = rel.join(entry.file_name());
            match entry.file_type() {
                Ok(t) if t.is_dir() && depth < zoa_anim_assets::defs::MAX_DEPTH => walk(base, &rel, depth + 1, out),
                Ok(t) if t.is_file() => out.push(rel),
                _ => {}
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, Path::new(""), 0, &mut out);
    out.sort();
    out
}

impl AssetLoader for ZoaDefinitionLoader {
    type Asset = ZoaDefinitionAsset;
    type Settings = ();
    type Error = ZoaBevyError;

    async fn load(
        &self,
        reader: &mut dyn Reader,
        _settings: &(),
        cx: &mut LoadContext<'_>,
    ) -> Result<ZoaDefinitionAsset, ZoaBevyError> {
        let manifest_path = cx.path().path().to_path_buf();
        let refuse = |problems: Vec<String>| ZoaBevyError::Manifest { path: manifest_path.clone(), problems };
        let mut bytes = Vec::new();
        reader.read_to_end(&mut bytes).await.map_err(|e| refuse(vec![e.to_string()]))?;
        let text = String::from_utf8(bytes).map_err(|_| refuse(vec!["not UTF-8 text".into()]))?;
        let manifest = parse_manifest(&text).map_err(refuse)?;
        let base = manifest_path.parent().unwrap_or(Path::new(""));
        let folder = normalize(&base.join(&manifest.folder))
            .ok_or_else(|| refuse(vec![format!("folder `{}` is outside the asset source", manifest.folder)]))?;
        let on_disk = self.root.join(&folder);
        let choice = CharacterChoice {
            player_set: manifest.player_set.as_deref(),
            animation_profile: manifest.animation_profile.as_deref(),
            sound_profile: manifest.sound_profile.as_deref(),
        };
        let (result, models) = crate::definitions::load(&on_disk, choice, CharacterSettings::default());
        // Every file the definition was read from is a loader dependency, so
        // the file watcher reloads this asset when one of them changes.
        let models = models.iter().filter_map(|m| m.strip_prefix(&self.root).ok().and_then(normalize));
        let dependencies: Vec<PathBuf> =
            files_under(&on_disk).into_iter().map(|f| folder.join(f)).chain(models).collect();
        for path in dependencies {
            // A file that vanished between the listing and here is the reader's problem, reported above.
            let _ = cx.read_asset_bytes(path).await;
        }
        Ok(ZoaDefinitionAsset { definition: result?, folder: on_disk })
    }

    fn extensions(&self) -> &[&str] {
        &["zoa.toml"]
    }
}

/// Definition folders as Bevy assets (`*.zoa.toml` manifests, see the module
/// docs): the [`ZoaDefinitionAsset`] asset and its loader, and the system that
/// puts a [`ZoaCharacter`] on each [`ZoaDefinitionHandle`]'s entity. Add it
/// after Bevy's `AssetPlugin` and with [`ZoaAnimationPlugin`](crate::ZoaAnimationPlugin).
#[derive(Debug, Default, Clone)]
pub struct ZoaAssetPlugin {
    /// The directory the manifests' asset paths are relative to (`None`: the
    /// default file source's, from `AssetPlugin::file_path` as Bevy resolves it).
    pub root: Option<PathBuf>,
}

impl Plugin for ZoaAssetPlugin {
    fn build(&self, app: &mut App) {
        let root = self.root.clone().unwrap_or_else(|| {
            let file_path = app.get_added_plugins::<AssetPlugin>().first().map(|p| p.file_path.clone());
            FileAssetReader::get_base_path().join(file_path.unwrap_or_else(|| "assets".to_owned()))
        });
        app.init_asset::<ZoaDefinitionAsset>()
            .register_asset_loader(ZoaDefinitionLoader { root })
            .register_type::<ZoaDefinitionHandle>()
            .add_systems(PostUpdate, characters_from_assets.in_set(ZoaSet::Input).before(crate::plugin::BindJoints));
    }
}

/// Inserts a character on each entity whose definition asset has loaded, and
/// re-creates it (retiring the old one) when the asset was replaced.
fn characters_from_assets(
    mut commands: Commands,
    assets: Res<Assets<ZoaDefinitionAsset>>,
    mut roots: Query<(Entity, &ZoaDefinitionHandle, Option<&mut ZoaCharacter>)>,
    mut animation: MessageWriter<ZoaAnimationEvent>,
    mut bridge: ResMut<ZoaSoundBridge>,
    mut sound: MessageWriter<ZoaSoundCue>,
) {
    for (index, (entity, handle, character)) in roots.iter_mut().enumerate() {
        let Some(asset) = assets.get(&handle.0) else { continue };
        match character {
            None => match ZoaCharacter::new(&asset.definition) {
                Ok(c) => {
                    commands.entity(entity).insert(c);
                }
                Err(e) => tracing::error!("zoa: character {entity}: {e}"),
            },
            Some(mut c) if !Arc::ptr_eq(c.definition(), &asset.definition) => {
                crate::plugin::swap(
                    &mut c,
                    &asset.definition,
                    entity,
                    index,
                    &mut commands,
                    &mut animation,
                    &mut bridge,
                );
            }
            Some(_) => {}
        }
    }
    sound.write_batch(bridge.bridge.sink_mut().cues.drain(..));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_manifest_names_its_folder_and_choices() {
        let m = parse_manifest("folder = \"defs/hero\"\nplayer_set = \"hero\"\nsound_profile = \"x\"").unwrap();
        assert_eq!(m.folder, "defs/hero");
        assert_eq!(m.player_set.as_deref(), Some("hero"));
        assert_eq!(m.animation_profile, None);
        assert_eq!(m.sound_profile.as_deref(), Some("x"));
    }

    #[test]
    fn a_manifest_reports_every_problem() {
        let problems = parse_manifest("player_set = 3\ncolour = \"red\"").unwrap_err();
        assert_eq!(problems.len(), 3, "{problems:?}");
        assert!(problems.iter().any(|p| p.contains("`player_set` must be a string")));
        assert!(problems.iter().any(|p| p.contains("unknown key `colour`")));
        assert!(problems.iter().any(|p| p.contains("`folder`")));
        assert!(parse_manifest("folder = [").is_err());
    }

    #[test]
    fn paths_are_normalized_without_climbing_out() {
        assert_eq!(normalize(Path::new("a/./b/../c")), Some(PathBuf::from("a/c")));
        assert_eq!(normalize(Path::new("defs/hero/../../models/m.glb")), Some(PathBuf::from("models/m.glb")));
        assert_eq!(normalize(Path::new("../outside")), None);
        assert_eq!(normalize(Path::new("/abs")), None);
    }
}

//! Definition folders → compiled character definitions, with hot reload,
//! without Bevy's asset server.
//!
//! With the `asset` feature (on by default) a definition folder is also a
//! Bevy asset ([`crate::asset`]: a `*.zoa.toml` manifest loaded with
//! `asset_server.load`, hot-reloaded by Bevy's file watcher). This path is
//! for apps without `bevy_asset` (`default-features = false`: reflection and
//! the asset server's async IO stack more than double a clean headless build,
//! 2 min 07 s vs 4 min 59 s for the Bevy dependencies on 2 cores) and for
//! loading by file path: [`ZoaDefinitions`] loads folders
//! from the file system itself, keyed by [`ZoaDefinitionId`], and watches
//! them by polling (file sizes and modification times, every
//! [`ZoaAnimationSettings::hot_reload_interval`](crate::ZoaAnimationSettings)):
//! a changed folder is re-validated; a good edit swaps the compiled
//! definition and re-creates the characters spawned from it; a broken edit
//! keeps the last good definition. Either way a
//! [`ZoaDefinitionReloaded`](crate::ZoaDefinitionReloaded) message says so
//! (with every diagnostic of a refused edit), and Bevy's logging (`tracing`:
//! printed by `LogPlugin`) reports it too.
//!
//! # What a swap does to a character
//! A character spawned from a swapped definition is re-created on the new
//! one (in [`ZoaSet::Input`](crate::ZoaSet::Input) of the next frame),
//! keeping its state tags, entity speed and loadout class. What it was in the
//! middle of is *ended, not carried over* (the new definition may not have
//! the same states, clips or slots): before it is replaced, the old character
//! sends, at its own time, a `Binding { phase: Cancel }` for every action a
//! trigger binding started (a `reload` in flight), an interrupted `NotifyEnd`
//! for every open notify window and an interrupted `SlotEnded` for its
//! override slot's clip ([`Character::retire`](zoa_anim_runtime::Character::retire)),
//! as ordinary [`ZoaAnimationEvent`](crate::ZoaAnimationEvent)s in the same
//! frame. The new character's clock starts at 0 (its events' times restart)
//! and it starts in its graph's entry states.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use bevy_ecs::prelude::Resource;
use zoa_anim_assets::character::{CharacterChoice, load_character};
use zoa_anim_assets::defs::{MAX_DEPTH, Severity, load_folder};
use zoa_anim_runtime::{CharacterDefinition, CharacterSettings};

use crate::character::ZoaCharacter;
pub use crate::character::ZoaDefinitionId;
use crate::error::ZoaBevyError;
use crate::messages::ZoaDefinitionReloaded;

/// Loads the definition folder `folder` (and the glTF files its clips name)
/// and compiles it: every error of every file, or every problem of the
/// bundle, at once.
pub fn load_definition(
    folder: &Path,
    choice: CharacterChoice<'_>,
    settings: CharacterSettings,
) -> Result<Arc<CharacterDefinition>, ZoaBevyError> {
    load(folder, choice, settings).0
}

/// [`load_definition`], and the model files the clips name (found or not).
pub(crate) fn load(
    folder: &Path,
    choice: CharacterChoice<'_>,
    settings: CharacterSettings,
) -> (Result<Arc<CharacterDefinition>, ZoaBevyError>, Vec<PathBuf>) {
    let set = load_folder(folder);
    let models: Vec<PathBuf> = set.clips.iter().map(|c| folder.join(&c.value.source)).collect();
    if set.error_count() > 0 {
        let diagnostics =
            set.diagnostics.iter().filter(|d| d.severity == Severity::Error).map(ToString::to_string).collect();
        return (Err(ZoaBevyError::Definitions { folder: folder.to_path_buf(), diagnostics }), models);
    }
    let result = match load_character(&set, folder, choice) {
        Ok(bundle) => CharacterDefinition::new(&bundle, settings).map_err(ZoaBevyError::from),
        Err(problems) => Err(ZoaBevyError::Character { folder: folder.to_path_buf(), problems }),
    };
    (result, models)
}

#[derive(Debug)]
struct Entry {
    folder: PathBuf,
    player_set: Option<String>,
    animation_profile: Option<String>,
    sound_profile: Option<String>,
    settings: CharacterSettings,
    current: Arc<CharacterDefinition>,
    generation: u32,
    /// Files whose sizes and times the fingerprint covers besides the folder (models).
    models: Vec<PathBuf>,
    fingerprint: u64,
    last_error: Option<ZoaBevyError>,
}

impl Entry {
    fn choice(&self) -> CharacterChoice<'_> {
        CharacterChoice {
            player_set: self.player_set.as_deref(),
            animation_profile: self.animation_profile.as_deref(),
            sound_profile: self.sound_profile.as_deref(),
        }
    }
}

/// The character definitions of the app, each from a definition folder, with
/// their last good compiled form (see the module docs for hot reload).
#[derive(Debug, Default, Resource)]
pub struct ZoaDefinitions {
    entries: Vec<Entry>,
    /// Reloads not yet sent as messages (the plugin drains them every frame).
    reports: Vec<ZoaDefinitionReloaded>,
}

/// What [`ZoaDefinitions::reload`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ReloadOutcome {
    /// The folder compiled: the definition was swapped (new generation).
    Swapped,
    /// The folder has errors: the last good definition stays (the error is
    /// kept in [`ZoaDefinitions::last_error`] and logged).
    KeptLastGood,
}

impl ZoaDefinitions {
    /// Loads and compiles `folder`; the first load must succeed.
    pub fn load(
        &mut self,
        folder: impl Into<PathBuf>,
        choice: CharacterChoice<'_>,
        settings: CharacterSettings,
    ) -> Result<ZoaDefinitionId, ZoaBevyError> {
        let folder = folder.into();
        let (result, models) = load(&folder, choice, settings.clone());
        let current = result?;
        let fingerprint = fingerprint(&folder, &models);
        let id = ZoaDefinitionId(u32::try_from(self.entries.len()).expect("fewer than 2^32 definitions"));
        self.entries.push(Entry {
            folder,
            player_set: choice.player_set.map(str::to_owned),
            animation_profile: choice.animation_profile.map(str::to_owned),
            sound_profile: choice.sound_profile.map(str::to_owned),
            settings,
            current,
            generation: 0,
            models,
            fingerprint,
            last_error: None,
        });
        Ok(id)
    }

    /// The last good compiled definition of `id`.
    #[must_use]
    pub fn get(&self, id: ZoaDefinitionId) -> &Arc<CharacterDefinition> {
        &self.entry(id).current
    }

    /// How many times `id` was swapped by a reload (0 after loading).
    #[must_use]
    pub fn generation(&self, id: ZoaDefinitionId) -> u32 {
        self.entry(id).generation
    }

    /// The folder of `id`.
    #[must_use]
    pub fn folder(&self, id: ZoaDefinitionId) -> &Path {
        &self.entry(id).folder
    }

    /// Why the last reload of `id` was refused (`None` after a good one).
    #[must_use]
    pub fn last_error(&self, id: ZoaDefinitionId) -> Option<&ZoaBevyError> {
        self.entry(id).last_error.as_ref()
    }

    /// A character of `id`'s current definition that follows its reloads.
    pub fn spawn(&self, id: ZoaDefinitionId) -> Result<ZoaCharacter, ZoaBevyError> {
        let e = self.entry(id);
        let mut c = ZoaCharacter::new(&e.current)?;
        c.set_source(id, e.generation);
        Ok(c)
    }

    /// Re-reads and re-validates `id`'s folder now. A good folder swaps the
    /// definition (characters spawned from it are re-created by the plugin on
    /// the next frame); a broken one keeps the last good definition. Either
    /// way it is logged and reported as a [`ZoaDefinitionReloaded`] message
    /// (sent by the plugin in its next input step).
    pub fn reload(&mut self, id: ZoaDefinitionId) -> ReloadOutcome {
        let e = &mut self.entries[id.0 as usize];
        let (result, models) = load(&e.folder, e.choice(), e.settings.clone());
        e.fingerprint = fingerprint(&e.folder, &models);
        e.models = models;
        let (outcome, diagnostics) = match result {
            Ok(def) => {
                e.current = def;
                e.generation += 1;
                e.last_error = None;
                tracing::info!("zoa: reloaded `{}` (generation {})", e.folder.display(), e.generation);
                (ReloadOutcome::Swapped, Vec::new())
            }
            Err(err) => {
                tracing::error!("zoa: `{}` not reloaded, keeping the last good definition: {err}", e.folder.display());
                let diagnostics = err.diagnostics();
                e.last_error = Some(err);
                (ReloadOutcome::KeptLastGood, diagnostics)
            }
        };
        self.reports.push(ZoaDefinitionReloaded {
            id,
            folder: e.folder.clone(),
            outcome,
            generation: e.generation,
            diagnostics,
        });
        outcome
    }

    /// Takes the reloads not yet reported (the plugin sends them as messages).
    pub(crate) fn take_reports(&mut self) -> std::vec::Drain<'_, ZoaDefinitionReloaded> {
        self.reports.drain(..)
    }

    /// Reloads every definition whose folder (or model) changed on disk since
    /// it was last read; returns how many were read again.
    pub fn reload_changed(&mut self) -> usize {
        let mut n = 0;
        for k in 0..self.entries.len() {
            let e = &self.entries[k];
            if fingerprint(&e.folder, &e.models) != e.fingerprint {
                self.reload(ZoaDefinitionId(k as u32));
                n += 1;
            }
        }
        n
    }

    fn entry(&self, id: ZoaDefinitionId) -> &Entry {
        &self.entries[id.0 as usize]
    }
}

/// Sizes and modification times of every file under `folder` (down to the
/// definition reader's depth) and of `extra`, hashed.
fn fingerprint(folder: &Path, extra: &[PathBuf]) -> u64 {
    fn walk(dir: &Path, depth: usize, out: &mut Vec<(PathBuf, u64, Option<std::time::SystemTime>)>) {
        let Ok(read) = std::fs::read_dir(dir) else { return };
        for entry in read.flatten() {
            let path = entry.path();
            let Ok(meta) = entry.metadata() else { continue };
            if meta.is_dir() {
                if depth < MAX_DEPTH {
                    walk(&path, depth + 1, out);
                }
            } else {
                out.push((path, meta.len(), meta.modified().ok()));
            }
        }
    }
    let mut files = Vec::new();
    walk(folder, 0, &mut files);
    for p in extra {
        if let Ok(meta) = std::fs::metadata(p) {
            files.push((p.clone(), meta.len(), meta.modified().ok()));
        }
    }
    files.sort();
    let mut h = DefaultHasher::new();
    files.hash(&mut h);
    h.finish()
}

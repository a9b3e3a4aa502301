//! Model neighbourhood scan: given
//! a model file, what sits around it that belongs with it — clips (the
//! model's own, other model/animation files, `clip` definitions), sounds
//! and definition files. A pure scan: nothing is written.
//!
//! # Where it looks
//!
//! 1. the model's folder (not recursive);
//! 2. conventional subfolders of that folder, recursively: `Animations`,
//!    `Animation`, `Anims`, `Anim`, `Sounds`, `Sound`, `Audio`, `SFX`,
//!    `Defs`, `Definitions` (any case);
//! 3. same-named cousin folders, recursively: a folder named like the model
//!    stem (any case, also `<stem>_anims` / `<stem>_sounds` style prefixes) beside the model,
//!    or inside a sibling of the model's folder (`Characters/Hero.glb` →
//!    `Animations/Hero/`, `Audio/Hero/`).
//!
//! The scanner's skip rule (preview / sample folders) applies. Every file is
//! listed once, under the first place it was found, in sorted order.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::scan::{FoundFile, ModelKind, ScannedFile, is_model_file, is_skipped_folder, scan_file};
use crate::AssetError;

/// Conventional subfolder names (lowercase).
pub const CONVENTIONAL: &[&str] =
    &["animations", "animation", "anims", "anim", "sounds", "sound", "audio", "sfx", "defs", "definitions"];

/// Sound file extensions.
pub const SOUND_EXTENSIONS: &[&str] = &["wav", "ogg", "mp3", "flac"];

/// Where a related file was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Place {
    /// Beside the model.
    SameFolder,
    /// In a conventional subfolder (its name).
    Subfolder(String),
    /// In a same-named cousin folder (its path relative to the model's folder's parent).
    Cousin(String),
}

/// A clip related to the model.
#[derive(Debug, Clone, PartialEq)]
pub enum RelatedClip {
    /// An animation embedded in the model itself.
    Embedded {
        /// Animation name.
        name: String,
    },
    /// An animation in another model / animation file.
    InFile {
        /// The file.
        file: PathBuf,
        /// Animation name.
        name: String,
        /// Bone names it shares with the model (0 for a file with a skin of its own names).
        shared_bones: usize,
        /// Where.
        place: Place,
    },
    /// A `clip` definition file whose `source` is the model.
    Definition {
        /// The definition file.
        file: PathBuf,
        /// Its id.
        id: String,
        /// Where.
        place: Place,
    },
}

/// A sound or definition file near the model.
#[derive(Debug, Clone, PartialEq)]
pub struct RelatedFile {
    /// The file.
    pub path: PathBuf,
    /// Where.
    pub place: Place,
    /// For definition files: `kind id`; for sounds: empty.
    pub detail: String,
}

/// What [`scan_neighbourhood`] found.
#[derive(Debug, Clone, PartialEq)]
pub struct Neighbourhood {
    /// The model.
    pub model: PathBuf,
    /// The folders searched, in order, with their place.
    pub searched: Vec<(PathBuf, Place)>,
    /// Related clips.
    pub clips: Vec<RelatedClip>,
    /// Sound files.
    pub sounds: Vec<RelatedFile>,
    /// Definition files (`*.toml` with a `kind`).
    pub definitions: Vec<RelatedFile>,
}

fn list(dir: &Path, recursive: bool, depth: usize, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let Ok(ty) = e.file_type() else { continue };
        let p = e.path();
        if ty.is_dir() {
            if recursive && depth < super::scan::MAX_DEPTH && !is_skipped_folder(&e.file_name().to_string_lossy()) {
                list(&p, true, depth + 1, out);
            }
        } else {
            out.push(p);
        }
    }
}

fn subdirs(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .filter(|e| !is_skipped_folder(&e.file_name().to_string_lossy()))
        .map(|e| e.path())
        .collect();
    v.sort();
    v
}

fn named_like(dir: &Path, stem: &str) -> bool {
    let name = dir.file_name().map(|n| n.to_string_lossy().to_lowercase()).unwrap_or_default();
    let stem = stem.to_lowercase();
    name == stem || name.strip_prefix(&stem).is_some_and(|rest| rest.starts_with(['_', '-', ' ', '.']))
}

/// Scans the neighbourhood of `model` (see the module docs).
pub fn scan_neighbourhood(model: &Path) -> Result<Neighbourhood, AssetError> {
    std::fs::metadata(model).map_err(|source| AssetError::Io { path: model.to_path_buf(), source })?;
    let dir = model.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new(".")).to_path_buf();
    let stem = model.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let searched = search_folders(&dir, &stem);

    let me = std::fs::canonicalize(model).unwrap_or_else(|_| model.to_path_buf());
    // The model must be one: a file that is not (or does not load) is an
    // error, never an empty neighbourhood.
    let asset = crate::gltf::load_gltf(model)?;
    let bones: HashSet<String> = super::scan::bone_names(&asset).into_iter().collect();
    let mut clips: Vec<RelatedClip> =
        asset.clips.iter().map(|c| RelatedClip::Embedded { name: c.name().to_owned() }).collect();
    let mut sounds = Vec::new();
    let mut definitions = Vec::new();
    let mut seen: HashSet<PathBuf> = HashSet::new();
    seen.insert(me.clone());
    for (folder, place, recursive) in &searched {
        let mut files = Vec::new();
        list(folder, *recursive, 0, &mut files);
        files.sort();
        for f in files {
            let key = std::fs::canonicalize(&f).unwrap_or_else(|_| f.clone());
            if !seen.insert(key) {
                continue;
            }
            let ext = f.extension().map(|e| e.to_string_lossy().to_lowercase()).unwrap_or_default();
            if is_model_file(&f) {
                let found = FoundFile { root: 0, path: f.clone(), relative: String::new() };
                let scanned = scan_file(&found);
                let shared = shared_bones(&f, &scanned, &bones);
                for c in scanned.clips {
                    clips.push(RelatedClip::InFile {
                        file: f.clone(),
                        name: c.name,
                        shared_bones: shared,
                        place: place.clone(),
                    });
                }
            } else if SOUND_EXTENSIONS.contains(&ext.as_str()) {
                sounds.push(RelatedFile { path: f, place: place.clone(), detail: String::new() });
            } else if ext == "toml" {
                let Some((kind, id, clip_of_me)) = definition_facts(&f, &me) else { continue };
                if clip_of_me {
                    clips.push(RelatedClip::Definition { file: f.clone(), id: id.clone(), place: place.clone() });
                }
                definitions.push(RelatedFile { path: f, place: place.clone(), detail: format!("{kind} {id}") });
            }
        }
    }
    Ok(Neighbourhood {
        model: model.to_path_buf(),
        searched: searched.into_iter().map(|(p, pl, _)| (p, pl)).collect(),
        clips,
        sounds,
        definitions,
    })
}

/// The folders searched around a model in folder `dir` named `stem`: (folder,
/// place, recursive): the model's own folder (not recursive), its
/// conventional and like-named subfolders, and like-named cousins.
fn search_folders(dir: &Path, stem: &str) -> Vec<(PathBuf, Place, bool)> {
    let mut searched: Vec<(PathBuf, Place, bool)> = vec![(dir.to_path_buf(), Place::SameFolder, false)];
    for sub in subdirs(dir) {
        let name = sub.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        if CONVENTIONAL.contains(&name.to_lowercase().as_str()) {
            searched.push((sub.clone(), Place::Subfolder(name), true));
        } else if named_like(&sub, stem) {
            searched.push((sub.clone(), Place::Cousin(name), true));
        }
    }
    if let Some(parent) = dir.parent().filter(|p| !p.as_os_str().is_empty()) {
        for sibling in subdirs(parent) {
            if sibling == dir {
                continue;
            }
            for cousin in subdirs(&sibling) {
                if named_like(&cousin, stem) {
                    let rel = cousin.strip_prefix(parent).unwrap_or(&cousin).to_string_lossy().replace('\\', "/");
                    searched.push((cousin.clone(), Place::Cousin(rel), true));
                }
            }
        }
    }

    searched
}

/// How many of `bones` the model file `f` shares: its skeleton's bone names,
/// or, for an animation-only file, the node names its tracks animate.
fn shared_bones(f: &Path, scanned: &ScannedFile, bones: &HashSet<String>) -> usize {
    if scanned.kind != ModelKind::AnimationOnly {
        return scanned.bones.iter().filter(|b| bones.contains(*b)).count();
    }
    crate::gltf::load_gltf(f)
        .map(|a| {
            let mut n: Vec<&str> =
                a.clips.iter().flat_map(|c| c.tracks()).filter_map(|t| t.node_name.as_deref()).collect();
            n.sort_unstable();
            n.dedup();
            n.iter().filter(|b| bones.contains(**b)).count()
        })
        .unwrap_or(0)
}

/// A definition file's kind and id, and whether it is a clip definition
/// whose `source` is the model `me`. `None` when `f` is not a readable
/// TOML table with a `kind`.
fn definition_facts(f: &Path, me: &Path) -> Option<(String, String, bool)> {
    let text = crate::files::read_to_string(f, crate::files::FileKind::Definition).ok()?;
    let table = text.parse::<toml::Table>().ok()?;
    let kind = table.get("kind").and_then(|v| v.as_str())?;
    let id = table.get("id").and_then(|v| v.as_str()).unwrap_or_default().to_owned();
    let mut clip_of_me = false;
    if kind == "clip"
        && let Some(src) = table.get("source").and_then(|v| v.as_str())
    {
        let base = f.parent().unwrap_or(Path::new("."));
        clip_of_me = std::fs::canonicalize(base.join(src)).is_ok_and(|p| p == me);
    }
    Some((kind.to_owned(), id, clip_of_me))
}

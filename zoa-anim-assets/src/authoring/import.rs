//! Import (seed 003): cut every animation embedded in a model file into a
//! `clip` definition file, `<stem>_<animation>.toml` (as an id: lowercase,
//! other characters → `_`), next to the model or in a chosen folder.
//!
//! Re-importing skips every clip already cut — a file of that name exists,
//! or a `clip` definition in the folder already cuts the same animation of
//! the same model — so an edited file (rate, loop, notifies) is never
//! overwritten. An animation-only file (no skin) must first be matched to a
//! skeleton: the skinned model in the file's folder tree (the folder and
//! its subfolders, else the parent folder and its subfolders) sharing the
//! most bone names with the animated nodes; when none shares any, nothing
//! is written and [`AssetError::NoMatchingSkeleton`] says so.

use std::path::{Component, Path, PathBuf};

use super::scan::{FoundFile, ScannedClip, discover, summarize_clips};
use super::tokens::to_id;
use crate::AssetError;
use crate::gltf::load_gltf;

/// What happened to one clip.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ImportAction {
    /// A new file was written.
    Written,
    /// A file of that name already exists; left untouched.
    SkippedExists,
    /// Another clip definition in the folder already cuts this animation.
    SkippedAlreadyCut {
        /// That definition's file.
        existing: PathBuf,
    },
}

/// One animation of the model and its definition file.
#[derive(Debug, Clone, PartialEq)]
pub struct ImportedClip {
    /// Clip definition id (for [`ImportAction::SkippedAlreadyCut`], the id of
    /// the existing definition).
    pub id: String,
    /// Animation name in the model.
    pub animation: String,
    /// The definition file.
    pub path: PathBuf,
    /// Loop hint written (first and last poses match).
    pub loop_hint: bool,
    /// What happened.
    pub action: ImportAction,
}

/// The skeleton an animation-only file was matched to.
#[derive(Debug, Clone, PartialEq)]
pub struct SkeletonMatch {
    /// The skinned model.
    pub model: PathBuf,
    /// Bone names shared with the file's animated nodes.
    pub shared_bones: usize,
}

/// Result of [`import_model`].
#[derive(Debug, Clone, PartialEq)]
pub struct ImportReport {
    /// The model file imported.
    pub model: PathBuf,
    /// The folder the definitions went to.
    pub dir: PathBuf,
    /// For an animation-only file: the skeleton it was matched to.
    pub skeleton: Option<SkeletonMatch>,
    /// One entry per animation, in animation order.
    pub clips: Vec<ImportedClip>,
}

impl ImportReport {
    /// Number of files written.
    pub fn written(&self) -> usize {
        self.clips.iter().filter(|c| c.action == ImportAction::Written).count()
    }
}

/// A path to `target` relative to folder `from` (both made absolute against
/// the working directory first; `..` where needed), `/` separated.
pub fn relative_path(from: &Path, target: &Path) -> String {
    let abs = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| std::path::absolute(p).unwrap_or(p.to_path_buf()));
    let from = abs(from);
    let target = abs(target);
    let f: Vec<Component<'_>> = from.components().collect();
    let t: Vec<Component<'_>> = target.components().collect();
    let common = f.iter().zip(&t).take_while(|(a, b)| a == b).count();
    let mut parts: Vec<String> = vec!["..".to_owned(); f.len() - common];
    parts.extend(t[common..].iter().map(|c| c.as_os_str().to_string_lossy().into_owned()));
    parts.join("/")
}

/// The TOML text of a clip definition.
pub fn clip_toml(id: &str, source: &str, animation: &ScannedClip, model_name: &str) -> String {
    let anim = if animation.named {
        toml::Value::String(animation.name.clone()).to_string()
    } else {
        animation.index.to_string()
    };
    format!(
        "# Cut from {model_name} by `zoa-anim import`. Edit rate, loop and notifies freely:\n\
         # re-importing never overwrites this file.\n\
         kind = \"clip\"\n\
         id = {}\n\
         source = {}\n\
         animation = {anim}\n\
         rate = 1.0\n\
         loop = {}\n",
        toml::Value::String(id.to_owned()),
        toml::Value::String(source.to_owned()),
        animation.loops,
    )
}

/// Clip definitions already in `dir` (not recursive): (file, resolved source, animation key, id).
fn existing_cuts(dir: &Path) -> Vec<(PathBuf, PathBuf, String, String)> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut out = Vec::new();
    for e in entries.flatten() {
        let p = e.path();
        if p.extension().is_none_or(|x| x != "toml") {
            continue;
        }
        let Ok(text) = crate::files::read_to_string(&p, crate::files::FileKind::Definition) else { continue };
        let Ok(table) = text.parse::<toml::Table>() else { continue };
        if table.get("kind").and_then(|v| v.as_str()) != Some("clip") {
            continue;
        }
        let Some(source) = table.get("source").and_then(|v| v.as_str()) else { continue };
        let src = std::fs::canonicalize(dir.join(source)).unwrap_or_else(|_| dir.join(source));
        let key = match table.get("animation") {
            Some(toml::Value::String(s)) => s.clone(),
            Some(toml::Value::Integer(i)) => format!("#{i}"),
            _ => table.get("id").and_then(|v| v.as_str()).unwrap_or_default().to_owned(),
        };
        let id = table.get("id").and_then(|v| v.as_str()).unwrap_or_default().to_owned();
        out.push((p, src, key, id));
    }
    out
}

/// Cuts the animations `clips` of `model` into `dir` (created when missing),
/// skipping those already cut.
pub fn cut_clips(model: &Path, clips: &[ScannedClip], dir: &Path) -> Result<Vec<ImportedClip>, AssetError> {
    std::fs::create_dir_all(dir).map_err(|source| AssetError::Io { path: dir.to_path_buf(), source })?;
    let stem = model.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let model_name = model.file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let model_abs = std::fs::canonicalize(model).unwrap_or_else(|_| model.to_path_buf());
    let source = relative_path(dir, model);
    let existing = existing_cuts(dir);
    let mut used: Vec<String> = Vec::new();
    let mut out = Vec::new();
    for clip in clips {
        let mut id = to_id(&format!("{stem}_{}", clip.name));
        if used.contains(&id) {
            let base = id.clone();
            let mut n = 2;
            while used.contains(&id) {
                id = format!("{base}_{n}");
                n += 1;
            }
        }
        used.push(id.clone());
        let path = dir.join(format!("{id}.toml"));
        let key = if clip.named { clip.name.clone() } else { format!("#{}", clip.index) };
        let alt = format!("{stem}_{}", clip.name);
        let already = existing.iter().find(|(_, src, k, _)| *src == model_abs && (*k == key || *k == alt));
        let action = if path.exists() {
            ImportAction::SkippedExists
        } else if let Some((file, _, _, existing_id)) = already {
            // Report the id the folder already knows this animation by.
            if !existing_id.is_empty() {
                id = existing_id.clone();
            }
            ImportAction::SkippedAlreadyCut { existing: file.clone() }
        } else {
            let text = clip_toml(&id, &source, clip, &model_name);
            // create_new: never clobber a file that appeared meanwhile.
            let written = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&path)
                .and_then(|mut f| std::io::Write::write_all(&mut f, text.as_bytes()));
            match written {
                Ok(()) => ImportAction::Written,
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => ImportAction::SkippedExists,
                Err(source) => return Err(AssetError::Io { path, source }),
            }
        };
        out.push(ImportedClip { id, animation: clip.name.clone(), path, loop_hint: clip.loops, action });
    }
    Ok(out)
}

/// Finds the skinned model an animation-only file belongs to (see the module docs).
pub fn match_skeleton_in_tree(file: &Path, asset: &crate::gltf::GltfAsset) -> Result<SkeletonMatch, AssetError> {
    let dir = file.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let me = std::fs::canonicalize(file).unwrap_or_else(|_| file.to_path_buf());
    let mut searched = 0;
    let mut tried_dirs = vec![dir.to_path_buf()];
    if let Some(parent) = dir.parent().filter(|p| !p.as_os_str().is_empty()) {
        tried_dirs.push(parent.to_path_buf());
    }
    for root in tried_dirs {
        let found: Vec<FoundFile> = discover(std::slice::from_ref(&root)).unwrap_or_default();
        let mut skeletons = Vec::new();
        let mut owners = Vec::new();
        for f in found {
            if std::fs::canonicalize(&f.path).unwrap_or_else(|_| f.path.clone()) == me {
                continue;
            }
            let Ok(other) = load_gltf(&f.path) else { continue };
            for s in other.skeletons {
                skeletons.push(s);
                owners.push(f.path.clone());
            }
        }
        searched += skeletons.len();
        if let Ok(best) = asset.match_skeleton(&skeletons) {
            let i = skeletons.iter().position(|s| std::ptr::eq(s, best)).unwrap_or(0);
            let mut names: Vec<&str> =
                asset.clips.iter().flat_map(|c| c.tracks()).filter_map(|t| t.node_name.as_deref()).collect();
            names.sort_unstable();
            names.dedup();
            let shared = names.iter().filter(|n| best.find(n).is_some()).count();
            return Ok(SkeletonMatch { model: owners[i].clone(), shared_bones: shared });
        }
    }
    let mut names: Vec<&str> =
        asset.clips.iter().flat_map(|c| c.tracks()).filter_map(|t| t.node_name.as_deref()).collect();
    names.sort_unstable();
    names.dedup();
    Err(AssetError::NoMatchingSkeleton {
        file: asset.file_name.clone(),
        candidates: searched,
        sample: names.iter().take(5).copied().collect::<Vec<_>>().join(", "),
    })
}

/// Imports every animation of `model` into `into` (default: the model's folder).
pub fn import_model(model: &Path, into: Option<&Path>) -> Result<ImportReport, AssetError> {
    let asset = load_gltf(model)?;
    let skeleton = if asset.skeletons.is_empty() && !asset.clips.is_empty() {
        Some(match_skeleton_in_tree(model, &asset)?)
    } else {
        None
    };
    let dir = match into {
        Some(d) => d.to_path_buf(),
        None => model.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new(".")).to_path_buf(),
    };
    let clips = summarize_clips(&asset);
    let clips = cut_clips(model, &clips, &dir)?;
    Ok(ImportReport { model: model.to_path_buf(), dir, skeleton, clips })
}

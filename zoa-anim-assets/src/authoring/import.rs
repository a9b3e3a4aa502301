//! Import: cut every animation embedded in a model file into a
//! `clip` definition file, `<stem>_<animation>.toml` (as an id: lowercase,
//! other characters → `_`), next to the model or in a chosen folder.
//!
//! Re-importing skips every clip already cut — a file of that name exists,
//! or a `clip` definition in the folder already cuts the same animation of
//! the same model — so an edited file (rate, loop, notifies) is never
//! overwritten. An animation-only file (no skin) must first be matched to a
//! skeleton: the skinned model sharing the most bone names with the animated
//! nodes (ties go to the first in sorted path order); when none shares any,
//! nothing is written and [`AssetError::NoMatchingSkeleton`] says so.
//!
//! # Skeleton search bounds
//!
//! The search looks in one folder tree — the model's own folder by default,
//! or the folder the caller names ([`import_model_with`]) — and never above
//! it. Below it, it follows the scanner's skip rule, goes at most
//! [`SKELETON_SEARCH_DEPTH`] folders deep and reads at most
//! [`SKELETON_SEARCH_FILES`] model files (in sorted path order; more files
//! are a located error, not a silent cut). Each candidate is read for its
//! skins' joint names only ([`crate::gltf::skin_joint_names`]: no buffer, no
//! animation), one file at a time.

use std::collections::{HashMap, HashSet};
use std::path::{Component, Path, PathBuf};

use super::scan::{ScannedClip, is_model_file, is_skipped_folder, summarize_clips};
use super::tokens::to_id;
use crate::AssetError;
use crate::gltf::load_gltf;

/// Deepest folder below the search root the skeleton search enters.
pub const SKELETON_SEARCH_DEPTH: usize = 8;
/// Most model files the skeleton search reads.
pub const SKELETON_SEARCH_FILES: usize = 1000;

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
    #[must_use]
    pub fn written(&self) -> usize {
        self.clips.iter().filter(|c| c.action == ImportAction::Written).count()
    }
}

/// A path to `target` relative to folder `from` (both made absolute against
/// the working directory first; `..` where needed), `/` separated.
#[must_use]
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
#[must_use]
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

/// One planned cut of [`plan_cuts`]: the clip as it will be reported, and
/// the TOML text to write when its action is [`ImportAction::Written`].
#[derive(Debug, Clone, PartialEq)]
pub struct PlannedCut {
    /// The clip (its action says whether a file is to be written).
    pub clip: ImportedClip,
    /// The text of the new definition file (`None` when skipped).
    pub text: Option<String>,
}

/// Plans the cuts of the animations `clips` of `model` into `dir` without
/// writing anything: ids are made unique against `used` (ids planned by
/// earlier calls, updated here) with `_2`, `_3`, … per base id in one pass
/// (a model with 20k animations of one name stays linear); an animation the
/// folder already cuts, or whose file name is taken, is skipped.
pub fn plan_cuts(model: &Path, clips: &[ScannedClip], dir: &Path, used: &mut HashSet<String>) -> Vec<PlannedCut> {
    let stem = model.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let model_name = model.file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let model_abs = std::fs::canonicalize(model).unwrap_or_else(|_| model.to_path_buf());
    let source = relative_path(dir, model);
    // Existing cuts of this model, by animation key (first file wins).
    let mut existing: HashMap<String, (PathBuf, String)> = HashMap::new();
    for (file, src, key, id) in existing_cuts(dir) {
        if src == model_abs {
            existing.entry(key).or_insert((file, id));
        }
    }
    let mut next_suffix: HashMap<String, usize> = HashMap::new();
    let mut out = Vec::with_capacity(clips.len());
    for clip in clips {
        let base = to_id(&format!("{stem}_{}", clip.name));
        let mut id = base.clone();
        if used.contains(&id) {
            let n = next_suffix.entry(base.clone()).or_insert(2);
            loop {
                id = format!("{base}_{n}");
                *n += 1;
                if !used.contains(&id) {
                    break;
                }
            }
        }
        used.insert(id.clone());
        let path = dir.join(format!("{id}.toml"));
        let key = if clip.named { clip.name.clone() } else { format!("#{}", clip.index) };
        let alt = format!("{stem}_{}", clip.name);
        let already = existing.get(&key).or_else(|| existing.get(&alt));
        let (action, text) = if crate::files::occupied(&path) {
            (ImportAction::SkippedExists, None)
        } else if let Some((file, existing_id)) = already {
            // Report the id the folder already knows this animation by.
            if !existing_id.is_empty() {
                id = existing_id.clone();
            }
            (ImportAction::SkippedAlreadyCut { existing: file.clone() }, None)
        } else {
            (ImportAction::Written, Some(clip_toml(&id, &source, clip, &model_name)))
        };
        out.push(PlannedCut {
            clip: ImportedClip { id, animation: clip.name.clone(), path, loop_hint: clip.loops, action },
            text,
        });
    }
    out
}

/// Cuts the animations `clips` of `model` into `dir` (created when missing),
/// skipping those already cut (see [`plan_cuts`]). The new files are written
/// all or nothing, never over an existing file.
///
/// # Errors
/// [`AssetError::Io`] when the folder or a file cannot be written, or
/// [`AssetError::WouldOverwrite`] when a planned file appeared meanwhile;
/// then no file was written.
pub fn cut_clips(model: &Path, clips: &[ScannedClip], dir: &Path) -> Result<Vec<ImportedClip>, AssetError> {
    std::fs::create_dir_all(dir).map_err(|source| AssetError::Io { path: dir.to_path_buf(), source })?;
    let planned = plan_cuts(model, clips, dir, &mut HashSet::new());
    let files: Vec<(PathBuf, Vec<u8>)> =
        planned.iter().filter_map(|p| p.text.as_ref().map(|t| (p.clip.path.clone(), t.clone().into_bytes()))).collect();
    crate::files::write_all_or_nothing(&files, false)?;
    Ok(planned.into_iter().map(|p| p.clip).collect())
}

/// Model files under `root` for the skeleton search (see the module docs).
fn skeleton_candidates(root: &Path) -> Result<Vec<PathBuf>, AssetError> {
    fn walk(dir: &Path, depth: usize, out: &mut Vec<PathBuf>, over: &mut bool) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        let mut entries: Vec<_> = entries.flatten().collect();
        entries.sort_by_key(|e| e.file_name());
        for e in entries {
            let Ok(ty) = e.file_type() else { continue };
            let p = e.path();
            if ty.is_dir() {
                if depth < SKELETON_SEARCH_DEPTH && !is_skipped_folder(&e.file_name().to_string_lossy()) {
                    walk(&p, depth + 1, out, over);
                }
            } else if is_model_file(&p) {
                if out.len() == SKELETON_SEARCH_FILES {
                    *over = true;
                    return;
                }
                out.push(p);
            }
            if *over {
                return;
            }
        }
    }
    let mut out = Vec::new();
    let mut over = false;
    walk(root, 0, &mut out, &mut over);
    if over {
        return Err(AssetError::OverBudget {
            what: format!(
                "model files under `{}` searched for a skeleton (name a smaller folder to search)",
                root.display()
            ),
            count: SKELETON_SEARCH_FILES as u64 + 1,
            max: SKELETON_SEARCH_FILES as u64,
        });
    }
    Ok(out)
}

/// Finds the skinned model an animation-only file belongs to, searching
/// the file's own folder tree (see the module docs).
pub fn match_skeleton_in_tree(file: &Path, asset: &crate::gltf::GltfAsset) -> Result<SkeletonMatch, AssetError> {
    let dir = file.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    match_skeleton_under(file, asset, dir)
}

/// Finds the skinned model an animation-only file belongs to among the
/// model files under `root` (see the module docs for the bounds).
pub fn match_skeleton_under(
    file: &Path,
    asset: &crate::gltf::GltfAsset,
    root: &Path,
) -> Result<SkeletonMatch, AssetError> {
    let me = std::fs::canonicalize(file).unwrap_or_else(|_| file.to_path_buf());
    let mut names: Vec<&str> =
        asset.clips.iter().flat_map(|c| c.tracks()).filter_map(|t| t.node_name.as_deref()).collect();
    if names.is_empty() {
        names = asset.nodes.iter().filter_map(|n| n.name.as_deref()).collect();
    }
    names.sort_unstable();
    names.dedup();
    let wanted: HashSet<&str> = names.iter().copied().collect();
    let mut searched = 0;
    let mut best: Option<(usize, PathBuf)> = None;
    for path in skeleton_candidates(root)? {
        if std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone()) == me {
            continue;
        }
        // One file at a time, joint names only; unreadable candidates are skipped.
        let Ok(skins) = crate::gltf::skin_joint_names(&path) else { continue };
        for joints in skins {
            searched += 1;
            let shared = joints.iter().filter(|j| wanted.contains(j.as_str())).collect::<HashSet<_>>().len();
            if shared > 0 && best.as_ref().is_none_or(|(b, _)| shared > *b) {
                best = Some((shared, path.clone()));
            }
        }
    }
    match best {
        Some((shared_bones, model)) => Ok(SkeletonMatch { model, shared_bones }),
        None => Err(AssetError::NoMatchingSkeleton {
            file: asset.file_name.clone(),
            candidates: searched,
            sample: names.iter().take(5).copied().collect::<Vec<_>>().join(", "),
        }),
    }
}

/// Imports every animation of `model` into `into` (default: the model's
/// folder); an animation-only file's skeleton is searched in the model's own
/// folder tree.
pub fn import_model(model: &Path, into: Option<&Path>) -> Result<ImportReport, AssetError> {
    import_model_with(model, into, None)
}

/// [`import_model`] with the folder tree searched for the skeleton of an
/// animation-only file (`None`: the model's folder).
pub fn import_model_with(
    model: &Path,
    into: Option<&Path>,
    skeleton_search: Option<&Path>,
) -> Result<ImportReport, AssetError> {
    let asset = load_gltf(model)?;
    let skeleton = if asset.skeletons.is_empty() && !asset.clips.is_empty() {
        Some(match skeleton_search {
            Some(root) => match_skeleton_under(model, &asset, root)?,
            None => match_skeleton_in_tree(model, &asset)?,
        })
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

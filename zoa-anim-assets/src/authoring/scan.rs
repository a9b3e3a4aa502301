//! Clip library scanner: every animation embedded in every `.glb` / `.gltf`
//! under one or more roots, with the facts the auto-binder scores on.
//!
//! # Skip rule
//!
//! Below a root (never the root itself), a folder is skipped when its name,
//! lowercased, is `preview`, `previews`, `sample`, `samples`, `example`,
//! `examples`, `target` or `node_modules`, or starts with `.` (hidden
//! folders, `.git`). A clip whose name starts with `__preview__` (the
//! convention of exporters that bake a preview take) is left out of the
//! file's clip list. Symlinked folders are not followed and nesting deeper
//! than [`MAX_DEPTH`] is ignored, so a link cycle cannot hang a scan.
//!
//! # Determinism and caching
//!
//! Files are listed per root in sorted path order (roots in the order
//! given; a file reachable from two roots is listed once, under the first).
//! Clips keep the file's animation order. [`ScanCache`] keeps the result per
//! file keyed by (modification time, size): a file whose mtime or size
//! changed is scanned again, one that vanished is dropped, and an entry is
//! reused only for the file it was made from (same path, root and relative
//! path as found now).
//!
//! # Cache file
//!
//! A saved cache is one header line — `{"format":"zoa-anim-scan-cache",
//! "version":N,"checksum":"<FNV-1a 64 of the body, hex>"}` — then the JSON
//! body. A file whose header, version or checksum does not match is ignored
//! (an empty cache: everything is scanned again), so a hand-edited entry is
//! never trusted. [`ScanCache::save`] writes through a temporary sibling and
//! a rename (a symlink at the path is replaced, never followed) and refuses
//! to replace a file that is not a scan cache. The default location
//! ([`default_cache_dir`]) is the per-user cache folder
//! (`$XDG_CACHE_HOME/zoa-anim`, else `~/.cache/zoa-anim`; `~/Library/Caches`
//! on macOS, `%LOCALAPPDATA%` on Windows); [`ScanCache::save_default`]
//! creates its `zoa-anim` folder private (mode 0700) and uses it only while
//! it is a real folder (not a symlink) owned by the current user and not
//! writable by others.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use serde::{Deserialize, Serialize};
use zoa_anim_core::glam::{Quat, Vec3};
use zoa_anim_core::{Clip, TrackProperty};

use crate::AssetError;
use crate::gltf::{GltfAsset, load_gltf};

/// Deepest folder nesting followed below a root.
pub const MAX_DEPTH: usize = 32;

/// Largest angle (degrees) between a joint's first and last rotation key,
/// and largest distance (metres, relative to the bone's own translation
/// range plus 1 mm) between first and last translation/scale keys, for a clip
/// to count as looping.
pub const LOOP_TOLERANCE_DEGREES: f32 = 2.0;

/// Folder names (lowercase) the scan never descends into.
const SKIPPED_FOLDERS: &[&str] =
    &["preview", "previews", "sample", "samples", "example", "examples", "target", "node_modules"];

/// Whether the scan skips a folder called `name` (see the module docs).
#[must_use]
pub fn is_skipped_folder(name: &str) -> bool {
    let lower = name.to_lowercase();
    lower.starts_with('.') || SKIPPED_FOLDERS.contains(&lower.as_str())
}

/// Whether a clip called `name` is a preview take the scan leaves out.
#[must_use]
pub fn is_preview_clip(name: &str) -> bool {
    name.to_lowercase().starts_with("__preview__")
}

/// Whether `path` names a glTF file (`.glb` / `.gltf`, any case).
#[must_use]
pub fn is_model_file(path: &Path) -> bool {
    path.extension().is_some_and(|e| e.eq_ignore_ascii_case("glb") || e.eq_ignore_ascii_case("gltf"))
}

/// What the scan learns about one embedded clip.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScannedClip {
    /// Animation name as the file gives it (`animation<N>` when unnamed).
    pub name: String,
    /// Index in the file's `animations` array.
    pub index: usize,
    /// Whether the file named the animation (else `name` is generated).
    pub named: bool,
    /// Largest key time, seconds (`>= 0`).
    pub duration: f32,
    /// Keys summed over every track.
    pub key_count: usize,
    /// Distinct nodes the clip animates.
    pub joints_animated: usize,
    /// First and last poses match within [`LOOP_TOLERANCE_DEGREES`] (the root's
    /// horizontal translation is ignored: root motion still loops).
    pub loops: bool,
    /// Horizontal (x/z) distance between the root's first and last position,
    /// model units (metres for most exports); 0 without a root translation track.
    pub root_travel: f32,
    /// Root displacement last − first key, `[x, y, z]` in model units.
    pub root_displacement: [f32; 3],
    /// Largest rotation (degrees) any leg-chain joint (hip/thigh/upleg, knee/leg/calf,
    /// foot, toe) makes away from its first key; 0 when the rig has no such names.
    pub leg_motion: f32,
    /// The same for arm-chain joints (shoulder, arm, forearm, hand, fingers).
    pub arm_motion: f32,
}

/// One model file and its clips.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScannedFile {
    /// Path as found under its root (root joined with the relative path).
    pub path: PathBuf,
    /// Path relative to its root, `/` separated.
    pub relative: String,
    /// Index of the root (in the order given) the file was found under.
    pub root: usize,
    /// File stem.
    pub stem: String,
    /// Named joints of every skin, sorted, deduplicated.
    pub bones: Vec<String>,
    /// Names of the nodes any of the file's clips animates (preview takes
    /// included), sorted, deduplicated; how an animation-only file is
    /// matched to the skeleton it was made for.
    #[serde(default)]
    pub animated: Vec<String>,
    /// What the file is: a skinned model, an animation-only export (clips
    /// but no skin) or a static model (neither skin nor clips, e.g. a prop).
    pub kind: ModelKind,
    /// Embedded clips in animation order (preview takes left out).
    pub clips: Vec<ScannedClip>,
    /// Why the file could not be read, if it could not (then `clips` is empty).
    pub error: Option<String>,
}

/// What a model file holds, as the scanner classifies it.
///
/// A file with a skin is [`ModelKind::Skinned`] (whether or not it has
/// clips); one without a skin is [`ModelKind::AnimationOnly`] when it has at
/// least one animation (morph-only or node animations included, preview
/// takes not counted) and [`ModelKind::Static`] otherwise (a hat, a sword).
/// A file that could not be read is reported as static with an `error`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ModelKind {
    /// Has at least one skin.
    Skinned,
    /// No skin, at least one animation.
    AnimationOnly,
    /// No skin and no animation.
    #[default]
    Static,
}

impl ModelKind {
    /// Classifies a file by whether it has a skin and how many clips it has.
    #[must_use]
    pub fn classify(has_skin: bool, clip_count: usize) -> ModelKind {
        match (has_skin, clip_count) {
            (true, _) => ModelKind::Skinned,
            (false, 0) => ModelKind::Static,
            (false, _) => ModelKind::AnimationOnly,
        }
    }

    /// The name used in `--format json` (`skinned`, `animation_only`, `static`).
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            ModelKind::Skinned => "skinned",
            ModelKind::AnimationOnly => "animation_only",
            ModelKind::Static => "static",
        }
    }

    /// The words the human output uses (`skinned`, `animation only`, `static`).
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            ModelKind::Skinned => "skinned",
            ModelKind::AnimationOnly => "animation only",
            ModelKind::Static => "static",
        }
    }
}

impl std::fmt::Display for ModelKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.label())
    }
}

/// The result of scanning a root set.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ScanReport {
    /// The roots, in the order given.
    pub roots: Vec<PathBuf>,
    /// Model files in deterministic order (see the module docs).
    pub files: Vec<ScannedFile>,
}

impl ScanReport {
    /// Every `(file, clip)` pair in report order.
    pub fn clips(&self) -> impl Iterator<Item = (&ScannedFile, &ScannedClip)> {
        self.files.iter().flat_map(|f| f.clips.iter().map(move |c| (f, c)))
    }
    /// Files that could not be read.
    pub fn failed(&self) -> impl Iterator<Item = &ScannedFile> {
        self.files.iter().filter(|f| f.error.is_some())
    }
}

/// A model file found under a root, before it is read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FoundFile {
    /// Root index.
    pub root: usize,
    /// Path on disk (root joined with `relative`).
    pub path: PathBuf,
    /// Relative path, `/` separated.
    pub relative: String,
}

/// Lists the model files under `roots` in deterministic order, applying the
/// skip rule. A root that is itself a model file is listed as such. Fails
/// only when a root cannot be read at all; unreadable subfolders are skipped.
pub fn discover(roots: &[PathBuf]) -> Result<Vec<FoundFile>, AssetError> {
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    for (ri, root) in roots.iter().enumerate() {
        let meta = std::fs::metadata(root).map_err(|source| AssetError::Io { path: root.clone(), source })?;
        let mut rels = Vec::new();
        if meta.is_file() {
            if is_model_file(root) {
                let name = root.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
                let key = std::fs::canonicalize(root).unwrap_or_else(|_| root.clone());
                if seen.insert(key) {
                    out.push(FoundFile { root: ri, path: root.clone(), relative: name });
                }
            }
            continue;
        }
        std::fs::read_dir(root).map_err(|source| AssetError::Io { path: root.clone(), source })?;
        walk(root, Path::new(""), 0, &mut rels);
        rels.sort();
        for rel in rels {
            let path = root.join(&rel);
            let key = std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
            if seen.insert(key) {
                let relative = rel.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/");
                out.push(FoundFile { root: ri, path, relative });
            }
        }
    }
    Ok(out)
}

fn walk(root: &Path, rel: &Path, depth: usize, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(root.join(rel)) else { return };
    for entry in entries.flatten() {
        let Ok(ty) = entry.file_type() else { continue };
        let name = entry.file_name();
        let child = rel.join(&name);
        if ty.is_dir() {
            if depth < MAX_DEPTH && !is_skipped_folder(&name.to_string_lossy()) {
                walk(root, &child, depth + 1, out);
            }
        } else if is_model_file(&child) {
            // Whatever its type: a FIFO or device named `*.glb` is reported
            // by the guarded reader instead of being skipped silently.
            out.push(child);
        }
    }
}

/// Reads one model file into a [`ScannedFile`]; a file that fails to load
/// is reported through `error`, never as a panic.
#[must_use]
pub fn scan_file(found: &FoundFile) -> ScannedFile {
    let stem = found.path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let mut file = ScannedFile {
        path: found.path.clone(),
        relative: found.relative.clone(),
        root: found.root,
        stem,
        bones: Vec::new(),
        animated: Vec::new(),
        kind: ModelKind::Static,
        clips: Vec::new(),
        error: None,
    };
    match load_gltf(&found.path) {
        Ok(asset) => {
            file.bones = bone_names(&asset);
            file.animated = animated_names(&asset);
            file.clips = summarize_clips(&asset);
            file.kind = ModelKind::classify(!asset.skeletons.is_empty(), file.clips.len());
        }
        Err(e) => file.error = Some(e.to_string()),
    }
    file
}

/// Every named joint of every skin, sorted and deduplicated.
#[must_use]
pub fn bone_names(asset: &GltfAsset) -> Vec<String> {
    let mut bones: Vec<String> =
        asset.skeletons.iter().flat_map(|s| s.joints().iter().filter_map(|j| j.name.clone())).collect();
    bones.sort();
    bones.dedup();
    bones
}

/// Names of the nodes any clip of the asset animates, sorted and deduplicated
/// (a track's own node name, else its node's name; unnamed nodes left out).
#[must_use]
pub fn animated_names(asset: &GltfAsset) -> Vec<String> {
    let mut names: Vec<String> = asset
        .clips
        .iter()
        .flat_map(|c| c.tracks())
        .filter_map(|t| t.node_name.clone().or_else(|| asset.nodes.get(t.node as usize)?.name.clone()))
        .collect();
    names.sort();
    names.dedup();
    names
}

/// Scans every clip of a loaded asset (preview takes left out).
#[must_use]
pub fn summarize_clips(asset: &GltfAsset) -> Vec<ScannedClip> {
    asset
        .clips
        .iter()
        .enumerate()
        .filter(|(_, c)| !is_preview_clip(c.name()))
        .map(|(i, c)| {
            let named = asset.animation_names.get(i).is_some_and(Option::is_some);
            summarize_clip(asset, i, c, named)
        })
        .collect()
}

/// Depth of a node in the node hierarchy (0 = scene root); cycles cannot
/// occur (the importer rejects them) but the walk is bounded anyway.
fn node_depth(asset: &GltfAsset, node: u32) -> usize {
    let mut depth = 0;
    let mut cur = asset.nodes.get(node as usize).and_then(|n| n.parent);
    while let Some(p) = cur {
        depth += 1;
        if depth > asset.nodes.len() {
            break;
        }
        cur = asset.nodes.get(p as usize).and_then(|n| n.parent);
    }
    depth
}

/// Limb chain of a joint name, by the words rigs conventionally use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Limb {
    Leg,
    Arm,
}

fn limb_of(name: &str) -> Option<Limb> {
    let lower = name.to_lowercase();
    const LEG: &[&str] = &["upleg", "thigh", "knee", "calf", "shin", "foot", "toe", "ankle", "leg"];
    const ARM: &[&str] =
        &["shoulder", "clavicle", "forearm", "upperarm", "arm", "elbow", "hand", "wrist", "finger", "thumb", "index"];
    if LEG.iter().any(|w| lower.contains(w)) {
        Some(Limb::Leg)
    } else if ARM.iter().any(|w| lower.contains(w)) {
        Some(Limb::Arm)
    } else {
        None
    }
}

fn quat_of(v: &[f32]) -> Quat {
    Quat::from_xyzw(v[0], v[1], v[2], v[3]).normalize()
}

fn angle_deg(a: Quat, b: Quat) -> f32 {
    let dot = a.dot(b).abs().min(1.0);
    (2.0 * dot.acos()).to_degrees()
}

fn summarize_clip(asset: &GltfAsset, index: usize, clip: &Clip, named: bool) -> ScannedClip {
    let tracks = clip.tracks();
    let mut nodes: Vec<u32> = tracks.iter().map(|t| t.node).collect();
    nodes.sort_unstable();
    nodes.dedup();
    // The root: the shallowest node with a translation track.
    let root_track = tracks
        .iter()
        .filter(|t| t.property == TrackProperty::Translation)
        .min_by_key(|t| (node_depth(asset, t.node), t.node));
    let mut loops = true;
    let (mut leg_motion, mut arm_motion) = (0.0f32, 0.0f32);
    let tol_deg = LOOP_TOLERANCE_DEGREES;
    for t in tracks {
        let n = t.key_count();
        let first = t.key_value(0);
        let last = t.key_value(n - 1);
        match t.property {
            TrackProperty::Rotation => {
                let q0 = quat_of(first);
                if angle_deg(q0, quat_of(last)) > tol_deg {
                    loops = false;
                }
                let name = t.node_name.as_deref().or_else(|| asset.nodes.get(t.node as usize)?.name.as_deref());
                if let Some(limb) = name.and_then(limb_of) {
                    let max = (0..n).map(|k| angle_deg(q0, quat_of(t.key_value(k)))).fold(0.0f32, f32::max);
                    match limb {
                        Limb::Leg => leg_motion = leg_motion.max(max),
                        Limb::Arm => arm_motion = arm_motion.max(max),
                    }
                }
            }
            TrackProperty::Translation | TrackProperty::Scale => {
                let is_root = root_track.is_some_and(|r| std::ptr::eq(r, t));
                // Tolerance scales with how far the value travels during the clip.
                let mut lo = Vec3::splat(f32::INFINITY);
                let mut hi = Vec3::splat(f32::NEG_INFINITY);
                for k in 0..n {
                    let v = Vec3::from_slice(t.key_value(k));
                    lo = lo.min(v);
                    hi = hi.max(v);
                }
                let tol = 0.001 + 0.05 * (hi - lo).length();
                let mut d = Vec3::from_slice(last) - Vec3::from_slice(first);
                if is_root {
                    d.x = 0.0;
                    d.z = 0.0;
                }
                if d.length() > tol {
                    loops = false;
                }
            }
        }
    }
    let (root_travel, root_displacement) = match root_track {
        Some(t) => {
            let d = Vec3::from_slice(t.key_value(t.key_count() - 1)) - Vec3::from_slice(t.key_value(0));
            (Vec3::new(d.x, 0.0, d.z).length(), d.to_array())
        }
        None => (0.0, [0.0; 3]),
    };
    if tracks.is_empty() {
        loops = false;
    }
    ScannedClip {
        name: clip.name().to_owned(),
        index,
        named,
        // Morph-only channels are skipped as tracks but still give the length.
        duration: clip.duration().max(asset.clip_time_range(index).1),
        key_count: tracks.iter().map(|t| t.key_count()).sum(),
        joints_animated: nodes.len(),
        loops,
        root_travel,
        root_displacement,
        leg_motion,
        arm_motion,
    }
}

/// File identity for cache invalidation: modification time (ns since the
/// epoch, 0 when unknown) and size in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileStamp {
    /// Modification time, nanoseconds since the Unix epoch.
    pub mtime_ns: u128,
    /// Size in bytes.
    pub size: u64,
}

impl FileStamp {
    /// Reads the stamp of `path`; `None` when it cannot be read.
    #[must_use]
    pub fn of(path: &Path) -> Option<FileStamp> {
        let meta = std::fs::metadata(path).ok()?;
        let mtime_ns = meta.modified().ok().and_then(|t| t.duration_since(UNIX_EPOCH).ok()).map_or(0, |d| d.as_nanos());
        Some(FileStamp { mtime_ns, size: meta.len() })
    }
}

/// Scan results per root set, reused while files are unchanged.
///
/// Keyed by the root set (the roots, in order) and then per file by path;
/// an entry is reused only while the file's [`FileStamp`] is unchanged.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct ScanCache {
    sets: BTreeMap<String, BTreeMap<PathBuf, (FileStamp, ScannedFile)>>,
    #[serde(skip)]
    hits: usize,
    #[serde(skip)]
    misses: usize,
}

fn set_key(roots: &[PathBuf]) -> String {
    roots
        .iter()
        .map(|r| std::fs::canonicalize(r).unwrap_or_else(|_| r.clone()).display().to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

impl ScanCache {
    /// An empty cache.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Loads a cache saved by [`ScanCache::save`]; a missing or unreadable
    /// file, or one whose header, version or checksum does not match, gives
    /// an empty cache.
    #[must_use]
    pub fn load(path: &Path) -> Self {
        crate::files::read(path, crate::files::FileKind::Cache)
            .ok()
            .and_then(|b| Self::from_bytes(&b))
            .unwrap_or_default()
    }

    /// Parses a saved cache (header line, then the body it checksums).
    fn from_bytes(bytes: &[u8]) -> Option<Self> {
        let split = bytes.iter().position(|&b| b == b'\n')?;
        let (header, body) = (&bytes[..split], &bytes[split + 1..]);
        let header: CacheHeader = serde_json::from_slice(header).ok()?;
        if header.format != CACHE_FORMAT || header.version != CACHE_VERSION || header.checksum != checksum(body) {
            return None;
        }
        serde_json::from_slice(body).ok()
    }

    /// The bytes [`ScanCache::save`] writes.
    fn to_bytes(&self) -> Result<Vec<u8>, serde_json::Error> {
        let body = serde_json::to_vec(self)?;
        let header = CacheHeader { format: CACHE_FORMAT.to_owned(), version: CACHE_VERSION, checksum: checksum(&body) };
        let mut out = serde_json::to_vec(&header)?;
        out.push(b'\n');
        out.extend(body);
        Ok(out)
    }

    /// Writes the cache to `path` (creating its folder) through a temporary
    /// sibling and a rename: a symlink at `path` is replaced, never followed.
    ///
    /// # Errors
    /// [`AssetError::WouldOverwrite`] when something other than a scan cache
    /// (any other file, a folder) is at `path`: it is left unchanged;
    /// [`AssetError::Io`] when writing fails.
    pub fn save(&self, path: &Path) -> Result<(), AssetError> {
        if let Ok(meta) = std::fs::symlink_metadata(path)
            && !meta.file_type().is_symlink()
            && !(meta.is_file() && is_scan_cache(path))
        {
            return Err(AssetError::WouldOverwrite { path: path.to_path_buf() });
        }
        let bytes = self.to_bytes().map_err(|e| AssetError::Io { path: path.to_path_buf(), source: e.into() })?;
        crate::files::write_file(path, &bytes, true)
    }

    /// Loads the cache from the default location ([`default_cache_path`]);
    /// empty when there is none or its folder is not private (see the module docs).
    #[must_use]
    pub fn load_default() -> Self {
        match default_cache_dir() {
            Some(dir) if private_dir(&dir).is_ok() => Self::load(&dir.join(CACHE_FILE_NAME)),
            _ => Self::new(),
        }
    }

    /// Saves the cache at the default location, creating its folder private
    /// first (see the module docs).
    ///
    /// # Errors
    /// [`AssetError::Io`] when there is no per-user cache folder, the
    /// `zoa-anim` folder is a symlink, not ours or writable by others, or
    /// writing fails; as [`ScanCache::save`] otherwise.
    pub fn save_default(&self) -> Result<PathBuf, AssetError> {
        let Some(dir) = default_cache_dir() else {
            return Err(AssetError::Io {
                path: PathBuf::from("zoa-anim"),
                source: std::io::Error::other("no per-user cache folder (set XDG_CACHE_HOME or HOME)"),
            });
        };
        if let Some(parent) = dir.parent() {
            std::fs::create_dir_all(parent).map_err(|source| AssetError::Io { path: parent.to_path_buf(), source })?;
        }
        let mut builder = std::fs::DirBuilder::new();
        #[cfg(unix)]
        {
            use std::os::unix::fs::DirBuilderExt;
            builder.mode(0o700);
        }
        // Not recursive: an existing entry (a symlink included) is checked, not followed.
        match builder.create(&dir) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(source) => return Err(AssetError::Io { path: dir, source }),
        }
        private_dir(&dir).map_err(|why| AssetError::Io { path: dir.clone(), source: std::io::Error::other(why) })?;
        let path = dir.join(CACHE_FILE_NAME);
        self.save(&path)?;
        Ok(path)
    }

    /// Entries reused since this cache was created or loaded.
    #[must_use]
    pub fn hits(&self) -> usize {
        self.hits
    }
    /// Files (re)scanned since this cache was created or loaded.
    #[must_use]
    pub fn misses(&self) -> usize {
        self.misses
    }

    /// Scans `roots`, reusing unchanged entries; `progress` is called after
    /// each file with (files done, files total). Entries of files that
    /// vanished are dropped.
    pub fn scan(
        &mut self,
        roots: &[PathBuf],
        mut progress: impl FnMut(usize, usize),
    ) -> Result<ScanReport, AssetError> {
        let found = discover(roots)?;
        let key = set_key(roots);
        let old = self.sets.remove(&key).unwrap_or_default();
        let mut fresh = BTreeMap::new();
        let mut files = Vec::with_capacity(found.len());
        for (i, f) in found.iter().enumerate() {
            let stamp = FileStamp::of(&f.path);
            let reused = match (stamp, old.get(&f.path)) {
                (Some(s), Some((old_stamp, file)))
                    if s == *old_stamp && file.root == f.root && file.path == f.path && file.relative == f.relative =>
                {
                    Some(file.clone())
                }
                _ => None,
            };
            let file = match reused {
                Some(file) => {
                    self.hits += 1;
                    file
                }
                None => {
                    self.misses += 1;
                    scan_file(f)
                }
            };
            if let Some(s) = stamp {
                fresh.insert(f.path.clone(), (s, file.clone()));
            }
            files.push(file);
            progress(i + 1, found.len());
        }
        self.sets.insert(key, fresh);
        Ok(ScanReport { roots: roots.to_vec(), files })
    }
}

/// Scans `roots` without a cache.
pub fn scan_roots(roots: &[PathBuf]) -> Result<ScanReport, AssetError> {
    ScanCache::new().scan(roots, |_, _| {})
}

/// Name of the cache file in [`default_cache_dir`].
pub const CACHE_FILE_NAME: &str = "scan-cache.json";
/// The `format` of a cache file's header line.
pub const CACHE_FORMAT: &str = "zoa-anim-scan-cache";
/// The cache format version; a file of another version is ignored.
pub const CACHE_VERSION: u32 = 4;

#[derive(Debug, Serialize, Deserialize)]
struct CacheHeader {
    format: String,
    version: u32,
    checksum: String,
}

/// FNV-1a 64 of `bytes`, as 16 hex digits.
fn checksum(bytes: &[u8]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("{h:016x}")
}

/// Whether the file at `path` starts with a scan cache header (any version).
fn is_scan_cache(path: &Path) -> bool {
    let Ok(head) = crate::files::read_prefix(path, crate::files::FileKind::Cache, 4096) else { return false };
    let line = head.split(|&b| b == b'\n').next().unwrap_or_default();
    serde_json::from_slice::<serde_json::Value>(line).is_ok_and(|v| v["format"] == CACHE_FORMAT)
}

/// `Ok` when `dir` is a real folder (not a symlink), owned by the current
/// user and not writable by group or others (Unix); else why not.
fn private_dir(dir: &Path) -> Result<(), String> {
    let meta = std::fs::symlink_metadata(dir).map_err(|e| e.to_string())?;
    if meta.file_type().is_symlink() {
        return Err("is a symlink; the cache folder must be a real folder".into());
    }
    if !meta.is_dir() {
        return Err("is not a folder".into());
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        // SAFETY: geteuid has no preconditions and cannot fail.
        let me = unsafe { libc::geteuid() };
        if meta.uid() != me {
            return Err(format!("is owned by user {}, not by you", meta.uid()));
        }
        if meta.mode() & 0o022 != 0 {
            return Err(format!("is writable by others (mode {:o})", meta.mode() & 0o777));
        }
    }
    Ok(())
}

/// The per-user folder the command line keeps its scan cache in (see the
/// module docs); `None` when the environment names none.
#[must_use]
pub fn default_cache_dir() -> Option<PathBuf> {
    let var = |k: &str| std::env::var_os(k).map(PathBuf::from).filter(|p| p.is_absolute());
    #[cfg(windows)]
    let base = var("LOCALAPPDATA");
    #[cfg(target_os = "macos")]
    let base = var("HOME").map(|h| h.join("Library").join("Caches"));
    #[cfg(all(not(windows), not(target_os = "macos")))]
    let base = var("XDG_CACHE_HOME").or_else(|| var("HOME").map(|h| h.join(".cache")));
    base.map(|b| b.join("zoa-anim"))
}

/// The default cache file: [`CACHE_FILE_NAME`] in [`default_cache_dir`].
#[must_use]
pub fn default_cache_path() -> Option<PathBuf> {
    default_cache_dir().map(|d| d.join(CACHE_FILE_NAME))
}

#[cfg(test)]
mod tests {
    use super::ModelKind;

    #[test]
    fn a_skin_makes_a_model_skinned_clips_alone_make_it_animation_only() {
        assert_eq!(ModelKind::classify(true, 0), ModelKind::Skinned);
        assert_eq!(ModelKind::classify(true, 3), ModelKind::Skinned);
        assert_eq!(ModelKind::classify(false, 1), ModelKind::AnimationOnly);
        assert_eq!(ModelKind::classify(false, 0), ModelKind::Static);
        let names: Vec<_> = [ModelKind::Skinned, ModelKind::AnimationOnly, ModelKind::Static]
            .iter()
            .map(|k| (k.as_str(), k.to_string(), serde_json::to_string(k).unwrap()))
            .collect();
        assert_eq!(
            names,
            [
                ("skinned", "skinned".to_owned(), "\"skinned\"".to_owned()),
                ("animation_only", "animation only".to_owned(), "\"animation_only\"".to_owned()),
                ("static", "static".to_owned(), "\"static\"".to_owned()),
            ]
        );
    }
}

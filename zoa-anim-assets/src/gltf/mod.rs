//! glTF 2.0 import: skins become [`Skeleton`]s, animations become [`Clip`]s.
//!
//! # Pipeline
//!
//! ```text
//! bytes ─► container (GLB header + chunks, our own checks)
//!       ─► gltf-json Root (serde) ─► pre-checks ─► gltf-json validation
//!       ─► document checks (nodes, views, accessors, skins, channels)   ── all problems at once
//!       ─► buffer resolution (GLB BIN, data: URIs, external files)
//!       ─► accessor reads (bounds proven by the checks) + data checks (NaN, key order)
//!       ─► core types (Skeleton::new, Clip::new)
//! ```
//!
//! **Key design decision:** the `gltf` crate is used only to parse and
//! validate the JSON document. Its convenience readers panic or return wrong
//! data on several malformed inputs (out-of-range channel targets, bogus
//! paths, `u32` rotations, zero counts, node cycles), so every index is looked
//! up with `get`, every accessor byte range is proven to lie inside its buffer
//! view and buffer before anything is allocated, and the (small) accessor
//! decoding is done here. Allocation is therefore bounded by the size of the
//! input data, and malformed input yields an [`AssetError`] naming the file
//! and the element, never a panic.
//!
//! # Key data in the runtime's domain
//!
//! Key times must be finite, `>= 0` and non-decreasing; a subnormal time
//! (below `f32::MIN_POSITIVE`, 1.2e-38 s) is read as 0 with a warning, since
//! the runtime divides by key spans. glTF asks for strictly increasing times,
//! but exporters do write a time twice (a step) and three.js, the sampling
//! reference, plays it as a step; so a repeated time is kept with a warning
//! rather than refusing the file (the sampler never interpolates across a
//! zero span: a time selects the segment `t[k] <= t < t[k+1]`). A rotation key of zero length is an
//! error (it is not a rotation); one whose length is more than 10% away from
//! 1 is normalized with a warning, while keys within that (exported floats,
//! quantized normalized integers) are kept exactly as stored.

mod accessor;
mod anim;
mod buffers;
mod check;
mod container;
mod mesh;
mod morph;
mod skin;

use std::path::Path;

use gltf::json;
use zoa_anim_core::glam::Mat4;
use zoa_anim_core::{Clip, Joint, MorphNode, Skeleton, Transform};

pub use buffers::BufferAccess;
pub use mesh::{MAX_MESH_INDICES, MAX_MESH_VERTICES, load_skinned_mesh, load_skinned_mesh_slice};

use crate::AssetError;
use crate::error::{GltfProblem, MAX_REPORTED_PROBLEMS};

/// Decoded key and matrix data may take at most this many times the input
/// size (file plus external and `data:` buffers) …
pub const DECODE_BUDGET_FACTOR: u64 = 16;
/// … plus this many bytes (16 MiB), so small files sharing accessors still load.
pub const DECODE_BUDGET_BASE: u64 = 16 << 20;

/// One glTF node, whether or not it is a joint.
#[derive(Debug, Clone, PartialEq)]
pub struct NodeInfo {
    /// Node name, if the file gave one.
    pub name: Option<String>,
    /// Parent node index; `None` for a scene root (or an unattached node).
    pub parent: Option<u32>,
    /// Local rest transform (TRS, or the node matrix decomposed).
    pub rest: Transform,
}

/// Everything the importer takes from one glTF file.
#[derive(Debug, Clone)]
pub struct GltfAsset {
    /// File name as given to the loader, used in messages.
    pub file_name: String,
    /// File stem (name without extension), for `<stem>_<animation>` clip names.
    pub stem: String,
    /// Every node in document order.
    pub nodes: Vec<NodeInfo>,
    /// One skeleton per skin, in skin order.
    pub skeletons: Vec<Skeleton>,
    /// The skin's own name per skeleton (`None` when the file gave none; the
    /// skeleton itself then carries a generated `<stem>_skin<N>` name).
    pub skin_names: Vec<Option<String>>,
    /// One clip per animation, in animation order. A clip is named after its
    /// animation, or `animation<N>` when the animation is unnamed.
    pub clips: Vec<Clip>,
    /// The animation's own name per clip (`None` when the file gave none).
    pub animation_names: Vec<Option<String>>,
    /// Every node whose mesh has morph targets, in node order, with its
    /// default weights (what shows where no clip animates it).
    pub morph_nodes: Vec<MorphNode>,
    /// Things that were skipped or tolerated, e.g. a `weights` channel on a
    /// node without morph targets.
    pub warnings: Vec<String>,
    /// Per animation: channels in the source, including skipped ones.
    channel_counts: Vec<usize>,
    /// Per animation: smallest and largest sampler input time over every
    /// channel, including skipped ones (seconds).
    time_ranges: Vec<(f32, f32)>,
}

impl GltfAsset {
    /// Finds a clip by animation name, by `<stem>_<name>`, or by decimal index.
    #[must_use]
    pub fn clip(&self, key: &str) -> Option<(usize, &Clip)> {
        if let Some(found) = self.clips.iter().enumerate().find(|(_, c)| c.name() == key) {
            return Some(found);
        }
        if let Some(rest) = key.strip_prefix(self.stem.as_str()).and_then(|r| r.strip_prefix('_'))
            && let Some(found) = self.clips.iter().enumerate().find(|(_, c)| c.name() == rest)
        {
            return Some(found);
        }
        if !key.is_empty() && key.bytes().all(|b| b.is_ascii_digit()) {
            let index: usize = key.parse().ok()?;
            return self.clips.get(index).map(|c| (index, c));
        }
        None
    }

    /// Every node of the file as one skeleton: joint `i` is node `i`, with the
    /// node's parent and rest transform and an identity inverse bind. It is
    /// what an animation-only file's clips were authored on.
    ///
    /// # Errors
    /// When the file has more nodes than a skeleton holds
    /// ([`zoa_anim_core::MAX_JOINTS`]).
    pub fn node_skeleton(&self) -> Result<Skeleton, zoa_anim_core::CoreError> {
        let joints = self
            .nodes
            .iter()
            .enumerate()
            .map(|(i, n)| Joint {
                name: n.name.clone(),
                node: i as u32,
                // Past u16 the count itself is refused by `Skeleton::new`.
                parent: n.parent.and_then(|p| u16::try_from(p).ok()),
                rest: n.rest,
                inverse_bind: Mat4::IDENTITY,
            })
            .collect();
        Skeleton::new(format!("{}_nodes", self.stem), joints)
    }

    /// The skeleton this file's clips were authored on: its first skin, else
    /// every node ([`GltfAsset::node_skeleton`]); `None` for a file with more
    /// nodes than a skeleton holds.
    #[must_use]
    pub fn authoring_skeleton(&self) -> Option<Skeleton> {
        self.skeletons.first().cloned().or_else(|| self.node_skeleton().ok())
    }

    /// Number of channels the source animation `index` had, including skipped
    /// ones; 0 when `index` is out of range.
    #[must_use]
    pub fn clip_channel_count(&self, index: usize) -> usize {
        self.channel_counts.get(index).copied().unwrap_or(0)
    }

    /// `(start, end)` in seconds of animation `index` over all its channels,
    /// including skipped ones (so an animation of skipped channels still has a length).
    /// `end` is the glTF "duration" (largest input time); `(0, 0)` when the
    /// animation has no channel or `index` is out of range.
    #[must_use]
    pub fn clip_time_range(&self, index: usize) -> (f32, f32) {
        self.time_ranges.get(index).copied().unwrap_or((0.0, 0.0))
    }

    /// Picks the skeleton an animation-only file belongs to: the candidate
    /// sharing the most names with this file's animated nodes (every named
    /// node when the file has no tracks). Ties go to the earlier candidate.
    pub fn match_skeleton<'a>(&self, candidates: &'a [Skeleton]) -> Result<&'a Skeleton, AssetError> {
        let mut names: Vec<&str> =
            self.clips.iter().flat_map(|c| c.tracks()).filter_map(|t| t.node_name.as_deref()).collect();
        if names.is_empty() {
            names = self.nodes.iter().filter_map(|n| n.name.as_deref()).collect();
        }
        names.sort_unstable();
        names.dedup();
        let mut best: Option<(usize, &Skeleton)> = None;
        for skeleton in candidates {
            let shared =
                names.iter().filter(|n| skeleton.joints().iter().any(|j| j.name.as_deref() == Some(**n))).count();
            if shared > 0 && best.is_none_or(|(b, _)| shared > b) {
                best = Some((shared, skeleton));
            }
        }
        best.map(|(_, s)| s).ok_or_else(|| AssetError::NoMatchingSkeleton {
            file: self.file_name.clone(),
            candidates: candidates.len(),
            sample: names.iter().take(5).copied().collect::<Vec<_>>().join(", "),
        })
    }
}

/// Loads a `.glb` or `.gltf` file through the guarded reader ([`crate::files`]:
/// regular files only, at most [`crate::files::MAX_MODEL_BYTES`]); external
/// buffers resolve relative to its folder and must lie in its folder tree
/// ([`BufferAccess::FolderTree`]).
pub fn load_gltf(path: &Path) -> Result<GltfAsset, AssetError> {
    load_gltf_with(path, BufferAccess::FolderTree)
}

/// [`load_gltf`] with a choice of where external buffers may be read from.
pub fn load_gltf_with(path: &Path, access: BufferAccess) -> Result<GltfAsset, AssetError> {
    let bytes = crate::files::read(path, crate::files::FileKind::Model)?;
    let file_name = path.file_name().map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into_owned());
    let base = path.parent().map(|p| if p.as_os_str().is_empty() { Path::new(".") } else { p });
    load_gltf_slice_with(&bytes, base, &file_name, access)
}

/// The joint names of every skin of a glTF file, per skin, read from its
/// JSON alone: no buffer is resolved and no accessor decoded, so checking a
/// file for a matching skeleton costs its (capped) bytes and its JSON, and
/// nothing stays in memory afterwards. Unnamed joints are left out.
///
/// # Errors
/// As [`load_gltf`] for reading, the container and the JSON document.
pub fn skin_joint_names(path: &Path) -> Result<Vec<Vec<String>>, AssetError> {
    let bytes = crate::files::read(path, crate::files::FileKind::Model)?;
    let file_name = path.file_name().map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into_owned());
    let parts = container::split(&bytes, &file_name)?;
    let root = parse_document(parts.json, &file_name)?;
    Ok(root
        .skins
        .iter()
        .map(|skin| skin.joints.iter().filter_map(|j| root.nodes.get(j.value()).and_then(|n| n.name.clone())).collect())
        .collect())
}

/// Loads glTF from memory. `base_dir` resolves external buffer URIs (`None`
/// makes them an error; they must lie in its folder tree); `file_name` names
/// the file in messages and gives the stem for clip names.
pub fn load_gltf_slice(bytes: &[u8], base_dir: Option<&Path>, file_name: &str) -> Result<GltfAsset, AssetError> {
    load_gltf_slice_with(bytes, base_dir, file_name, BufferAccess::FolderTree)
}

/// [`load_gltf_slice`] with a choice of where external buffers may be read from.
pub fn load_gltf_slice_with(
    bytes: &[u8],
    base_dir: Option<&Path>,
    file_name: &str,
    access: BufferAccess,
) -> Result<GltfAsset, AssetError> {
    let file = file_name;
    let parts = container::split(bytes, file)?;
    let root = parse_document(parts.json, file)?;

    let mut problems = Problems::default();
    check::check_nodes(&root, &mut problems);
    let skin_plans = skin::plan(&root, &mut problems);
    let anim_plans = anim::plan(&root, &mut problems);
    problems.flush(file)?;

    let layouts =
        || skin_plans.iter().flat_map(|s| s.inverse_bind.as_ref()).chain(anim_plans.iter().flat_map(|a| a.layouts()));
    let mut needed = vec![false; root.buffers.len()];
    for layout in layouts() {
        layout.mark_buffers(&mut needed);
    }
    let data = buffers::resolve(&root, &needed, parts.bin, base_dir, access, &mut problems);
    problems.flush(file)?;

    // Accessors may be shared by any number of channels and skins, and each
    // track owns its keys, so bound the decoded total by the input size.
    let input_bytes = bytes.len() as u64
        + data.iter().filter(|d| matches!(d, std::borrow::Cow::Owned(_))).map(|d| d.len() as u64).sum::<u64>();
    let decoded_bytes: u64 = layouts().map(|l| (l.count as u64).saturating_mul(l.components() as u64 * 4)).sum();
    let budget = input_bytes.saturating_mul(DECODE_BUDGET_FACTOR).saturating_add(DECODE_BUDGET_BASE);
    if decoded_bytes > budget {
        problems.push(
            "accessors",
            format!(
                "decoding every channel and skin would take {decoded_bytes} bytes for {input_bytes} bytes of input \
                 (at most {DECODE_BUDGET_FACTOR}x the input + {} MiB); are accessors shared by very many channels?",
                DECODE_BUDGET_BASE >> 20
            ),
        );
        problems.flush(file)?;
    }

    let nodes = node_infos(&root);
    let stem = Path::new(file).file_stem().map_or_else(|| file.to_owned(), |s| s.to_string_lossy().into_owned());
    let mut warnings = Vec::new();
    let skeletons = skin::build(&root, &nodes, &skin_plans, &data, &stem, file, &mut problems)?;
    let built = anim::build(&root, &anim_plans, &data, file, &mut problems, &mut warnings)?;
    problems.flush(file)?;
    let morph_nodes = morph::morph_nodes(&root, &nodes, file, &mut warnings);

    Ok(GltfAsset {
        file_name: file.to_owned(),
        stem,
        nodes,
        skeletons,
        skin_names: root.skins.iter().map(|s| s.name.clone()).collect(),
        clips: built.clips,
        // Blank names are no names (see `anim.rs`).
        animation_names: root.animations.iter().map(|a| a.name.clone().filter(|n| !n.trim().is_empty())).collect(),
        morph_nodes,
        warnings,
        channel_counts: built.channel_counts,
        time_ranges: built.time_ranges,
    })
}

/// Checks the node transform numbers (see [`check::node_numbers`]), parses the
/// JSON chunk, then runs the `gltf` crate's own validation behind the
/// pre-checks that keep it from panicking.
fn parse_document(json_bytes: &[u8], file: &str) -> Result<json::Root, AssetError> {
    let mut text = json_bytes;
    if let Some(rest) = text.strip_prefix(b"\xEF\xBB\xBF".as_slice()) {
        text = rest;
    }
    // GLB pads the JSON chunk with spaces; some writers wrongly use NULs.
    while let Some((&last, rest)) = text.split_last() {
        if last == 0 || last.is_ascii_whitespace() {
            text = rest;
        } else {
            break;
        }
    }
    let mut problems = Problems::default();
    check::node_numbers(text, &mut problems);
    problems.flush(file)?;
    let root: json::Root =
        json::deserialize::from_slice(text).map_err(|e| AssetError::gltf(file, "JSON", e.to_string()))?;

    check::pre_validate(&root, &mut problems);
    problems.flush(file)?;
    {
        use gltf::json::validation::Validate;
        root.validate(&root, json::Path::new, &mut |path, error| {
            problems.push(format!("JSON {}", path()), format!("{error}"));
        });
    }
    problems.flush(file)?;
    Ok(root)
}

fn node_infos(root: &json::Root) -> Vec<NodeInfo> {
    let mut infos: Vec<NodeInfo> =
        root.nodes.iter().map(|n| NodeInfo { name: n.name.clone(), parent: None, rest: node_rest(n) }).collect();
    for (i, n) in root.nodes.iter().enumerate() {
        for child in n.children.iter().flatten() {
            if let Some(info) = infos.get_mut(child.value()) {
                info.parent = Some(i as u32);
            }
        }
    }
    infos
}

/// A node's local transform: its matrix decomposed, or its TRS with glTF defaults.
fn node_rest(node: &json::Node) -> Transform {
    if let Some(m) = node.matrix {
        let m = zoa_anim_core::glam::Mat4::from_cols_array(&m);
        let t = Transform::from_matrix(&m);
        if t.is_finite() {
            return t;
        }
        // A singular matrix (e.g. zero scale, used to hide parts) has no
        // rotation to recover: keep its translation and column lengths.
        let scale = zoa_anim_core::glam::Vec3::new(m.x_axis.length(), m.y_axis.length(), m.z_axis.length());
        return Transform { translation: m.w_axis.truncate(), rotation: zoa_anim_core::glam::Quat::IDENTITY, scale };
    }
    let mut t = Transform::IDENTITY;
    if let Some(v) = node.translation {
        t.translation = v.into();
    }
    if let Some(q) = node.rotation {
        t.rotation = zoa_anim_core::glam::Quat::from_array(q.0);
    }
    if let Some(s) = node.scale {
        t.scale = s.into();
    }
    t
}

/// `node 5 "Hip"` or `node 5`.
pub(crate) fn node_label(root: &json::Root, index: usize) -> String {
    match root.nodes.get(index).and_then(|n| n.name.as_deref()) {
        Some(name) => format!("node {index} {name:?}"),
        None => format!("node {index}"),
    }
}

/// `animation 1 "Walk"` or `animation 1`.
pub(crate) fn animation_label(root: &json::Root, index: usize) -> String {
    match root.animations.get(index).and_then(|a| a.name.as_deref()) {
        Some(name) => format!("animation {index} {name:?}"),
        None => format!("animation {index}"),
    }
}

/// `skin 0 "Armature"` or `skin 0`.
pub(crate) fn skin_label(root: &json::Root, index: usize) -> String {
    match root.skins.get(index).and_then(|s| s.name.as_deref()) {
        Some(name) => format!("skin {index} {name:?}"),
        None => format!("skin {index}"),
    }
}

/// Problem collector shared by the check passes; keeps at most
/// [`MAX_REPORTED_PROBLEMS`] and counts the rest.
#[derive(Debug, Default)]
pub(crate) struct Problems {
    list: Vec<GltfProblem>,
    dropped: usize,
}

impl Problems {
    pub(crate) fn push(&mut self, element: impl Into<String>, reason: impl Into<String>) {
        if self.list.len() < MAX_REPORTED_PROBLEMS {
            self.list.push(GltfProblem { element: element.into(), reason: reason.into() });
        } else {
            self.dropped += 1;
        }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// `Err` with everything collected so far (and empties `self`), or `Ok`.
    pub(crate) fn flush(&mut self, file: &str) -> Result<(), AssetError> {
        if self.list.is_empty() {
            return Ok(());
        }
        let mut problems = std::mem::take(&mut self.list);
        if self.dropped > 0 {
            problems.push(GltfProblem {
                element: "report".into(),
                reason: format!("{} more problem(s) not shown", self.dropped),
            });
            self.dropped = 0;
        }
        Err(AssetError::MalformedGltf { file: file.to_owned(), problems })
    }
}

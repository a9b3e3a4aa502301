//! The baked runtime format: one file with a checked definition folder's
//! skeleton, morph nodes and clips (keys reduced within a stated tolerance,
//! rotations and small-range vectors quantized) and its definition sources,
//! so a game loads a character without reading any glTF.
//!
//! `zoa-anim bake DEFS_DIR --out FILE` writes it; `zoa_animation::load_baked`
//! reads it. The layout is documented in `docs/baked-format.md`; in short, all
//! little-endian:
//!
//! ```text
//! header (32 bytes)  magic "ZOABAKE\0" | version u32 | flags u32 (0) | payload length u64 | FNV-1a-64 of payload u64
//! payload            tolerance (3 × f32)
//!                    section "DEFS": definition files (relative path, TOML text)
//!                    section "SKEL": the skeleton (joints: name, node, parent, rest TRS, inverse bind)
//!                    section "MRPH": morph nodes
//!                    section "CLIP": clips (id, name, authoring skeleton?, timeline, tracks, morph tracks)
//! section            tag [u8; 4] | length u64 | bytes
//! ```
//!
//! The reader ([`read_baked`]) trusts nothing: the header, the version, the
//! payload length and checksum are checked first, then every count against
//! the bytes left (and a budget) before anything is allocated, every number
//! for finiteness, and the result through the core constructors
//! ([`Skeleton::new`], [`Clip::new`]). Every failure is a [`BakedProblem`]
//! with the byte offset; nothing panics.
//!
//! # Tolerance (the ozz optimizer's idea)
//!
//! A key is dropped when interpolating its kept neighbours stays within the
//! tolerance at its time ([`tracks`] has the details). The tolerance is given
//! in model-space distance and turned into a per-joint one with the joint's
//! *hierarchy length* `L` (the longest rest-pose distance from the joint to a
//! descendant, plus 10 cm for the skin around a leaf): translations within
//! `translation` metres, rotations within `min(rotation, translation / L)`
//! radians, scales within `min(scale, translation / L)`. A joint deep in a
//! chain therefore moves by at most about `2 × translation × (depth + 1)`.

mod codec;
mod tracks;

pub use tracks::angle_between;

use std::path::{Path, PathBuf};

use zoa_anim_core::glam::{Mat4, Quat, Vec3};
use zoa_anim_core::{CharacterBundle, Clip, Joint, MorphNode, MorphTrack, Skeleton, Transform};

use crate::AssetError;
use crate::files::{self, FileKind};
use codec::{Cursor, Writer, fnv1a64};
use tracks::{KeyCounts, MAX_KEYS, TrackTolerance};

/// The file's first eight bytes.
pub const MAGIC: [u8; 8] = *b"ZOABAKE\0";
/// The format version this build writes and reads. Version 3 packs tracks
/// (rest-valued tracks, grids of any width, predicted keys); a file of
/// versions 1 or 2 is refused with [`BakedProblem::UnsupportedVersion`]
/// (bake the folder again).
pub const VERSION: u32 = 3;
/// Header bytes before the payload.
pub const HEADER_BYTES: usize = 32;

/// Most definition files, clips, morph nodes or tracks of a clip a reader accepts.
const MAX_ITEMS: usize = 1 << 16;
/// Smallest hierarchy length, metres (the skin around a leaf joint).
const MIN_LENGTH: f32 = 0.1;

/// The error bounds key reduction and quantization keep to.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tolerance {
    /// Model-space distance, metres (default 0.1 mm).
    pub translation: f32,
    /// Rotation, degrees (default 0.01°); tighter for joints with long
    /// hierarchies (see the module docs).
    pub rotation_degrees: f32,
    /// Scale factor (default 1e-4); tighter for joints with long hierarchies.
    pub scale: f32,
}

impl Default for Tolerance {
    fn default() -> Self {
        Tolerance { translation: 1e-4, rotation_degrees: 0.01, scale: 1e-4 }
    }
}

impl Tolerance {
    /// Whether every bound is finite and `> 0`.
    #[must_use]
    pub fn is_valid(&self) -> bool {
        [self.translation, self.rotation_degrees, self.scale].iter().all(|v| v.is_finite() && *v > 0.0)
    }
}

/// What [`bake`] wrote.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct BakeStats {
    /// Bytes of the whole file.
    pub bytes: u64,
    /// Bytes of the clip section (keyframes, timelines, morph tracks, names).
    pub clip_bytes: u64,
    /// Keys of the source clips' joint tracks.
    pub keys_before: u64,
    /// Keys stored after reduction.
    pub keys_after: u64,
}

/// One clip of a baked file.
#[derive(Debug, Clone, PartialEq)]
pub struct BakedClip {
    /// The clip definition's id.
    pub id: String,
    /// The keyframes as decoded (reduced and dequantized).
    pub clip: Clip,
    /// The skeleton the clip was authored on, when not the character's model.
    pub source_skeleton: Option<Skeleton>,
}

/// A baked file, decoded.
#[derive(Debug, Clone, PartialEq)]
pub struct BakedCharacter {
    /// The tolerance the clips were reduced with.
    pub tolerance: Tolerance,
    /// Definition files (folder-relative path, text) as they were checked when baking.
    pub definitions: Vec<(PathBuf, String)>,
    /// The model's skeleton.
    pub skeleton: Skeleton,
    /// The model's morph nodes.
    pub morph_nodes: Vec<MorphNode>,
    /// The clips, in the bundle's order.
    pub clips: Vec<BakedClip>,
    /// Bytes of the file's clip section (as [`BakeStats::clip_bytes`]).
    pub clip_bytes: u64,
}

/// Why bytes are not a baked file this build reads.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum BakedProblem {
    /// Fewer bytes than the header, or than the header's payload length.
    #[error("truncated: {len} bytes, the header says {expected}")]
    Truncated {
        /// Bytes there are.
        len: u64,
        /// Bytes the header promises (or the header's size).
        expected: u64,
    },
    /// The first eight bytes are not [`MAGIC`].
    #[error("not a baked character file (wrong magic bytes)")]
    BadMagic,
    /// Written by another version of the format.
    #[error("format version {found}; this build reads version {VERSION} (bake the folder again)")]
    UnsupportedVersion {
        /// The file's version.
        found: u32,
    },
    /// More bytes than the header's payload length.
    #[error("{extra} bytes after the payload")]
    TrailingBytes {
        /// How many.
        extra: u64,
    },
    /// The payload's checksum does not match the header's.
    #[error("checksum mismatch: the file is corrupt")]
    Checksum,
    /// The payload is not well-formed at `offset`.
    #[error("corrupt at byte {offset}: {what}")]
    Corrupt {
        /// Byte offset in the file.
        offset: u64,
        /// What was being read and why it is wrong.
        what: String,
    },
}

/// Bakes `bundle` (built from `definitions`, the folder's definition files)
/// into the bytes of a baked file.
///
/// # Panics
/// Never on validated core data; `tolerance` must be [`Tolerance::is_valid`]
/// (checked with `debug_assert!`; an invalid one keeps every key).
#[must_use]
pub fn bake(
    definitions: &[(PathBuf, String)],
    bundle: &CharacterBundle,
    tolerance: &Tolerance,
) -> (Vec<u8>, BakeStats) {
    debug_assert!(tolerance.is_valid());
    let mut w = Writer::default();
    w.f32(tolerance.translation);
    w.f32(tolerance.rotation_degrees);
    w.f32(tolerance.scale);
    section(&mut w, *b"DEFS", |w| {
        w.len(definitions.len());
        for (path, text) in definitions {
            w.str(&path.to_string_lossy().replace('\\', "/"));
            w.str(text);
        }
    });
    section(&mut w, *b"SKEL", |w| write_skeleton(w, &bundle.skeleton));
    section(&mut w, *b"MRPH", |w| {
        w.len(bundle.morph_nodes.len());
        for m in &bundle.morph_nodes {
            w.u32(m.node);
            w.opt_str(m.name.as_deref());
            w.len(m.ancestors.len());
            m.ancestors.iter().for_each(|a| w.u32(*a));
            w.f32s(&m.weights);
        }
    });
    let mut stats = BakeStats::default();
    let start = w.bytes.len();
    section(&mut w, *b"CLIP", |w| {
        w.len(bundle.clips.len());
        for c in &bundle.clips {
            w.str(&c.asset.id);
            let skeleton = c.source_skeleton.as_ref().unwrap_or(&bundle.skeleton);
            let counts = write_clip(w, &c.clip, c.source_skeleton.as_ref(), skeleton, tolerance);
            stats.keys_before += counts.before;
            stats.keys_after += counts.after;
        }
    });
    stats.clip_bytes = (w.bytes.len() - start) as u64;
    let out = seal(&w.bytes);
    stats.bytes = out.len() as u64;
    (out, stats)
}

/// A payload behind a header of this version with its length and checksum:
/// the whole file. (Fuzzing and tests reach the payload reader with it.)
#[must_use]
pub fn seal(payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER_BYTES + payload.len());
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(&0u32.to_le_bytes());
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    out.extend_from_slice(&fnv1a64(payload).to_le_bytes());
    out.extend_from_slice(payload);
    out
}

/// `clip` as a baked file gives it back (reduced within `tolerance` for
/// `skeleton`, quantized, decoded), with its key counts: for fidelity
/// checks and for measuring one glTF's clips.
///
/// # Errors
/// Never for a clip that validated; a [`BakedProblem`] would be a bug.
pub fn bake_clip(clip: &Clip, skeleton: &Skeleton, tolerance: &Tolerance) -> Result<(Clip, BakeStats), BakedProblem> {
    let mut w = Writer::default();
    let counts = write_clip(&mut w, clip, None, skeleton, tolerance);
    let mut r = Cursor::new(&w.bytes, 0);
    let (_, baked, _) = read_clip_body(&mut r, skeleton)?;
    r.end("clip")?;
    let stats = BakeStats {
        bytes: w.bytes.len() as u64,
        clip_bytes: w.bytes.len() as u64,
        keys_before: counts.before,
        keys_after: counts.after,
    };
    Ok((baked, stats))
}

/// Reads a baked file's bytes (see the module docs for every check).
///
/// # Errors
/// A [`BakedProblem`] naming what is wrong and where.
pub fn read_baked(bytes: &[u8]) -> Result<BakedCharacter, BakedProblem> {
    if bytes.len() < 8 || bytes[..8] != MAGIC {
        if bytes.len() < 8 && MAGIC.starts_with(bytes) {
            return Err(BakedProblem::Truncated { len: bytes.len() as u64, expected: HEADER_BYTES as u64 });
        }
        return Err(BakedProblem::BadMagic);
    }
    if bytes.len() < HEADER_BYTES {
        return Err(BakedProblem::Truncated { len: bytes.len() as u64, expected: HEADER_BYTES as u64 });
    }
    let mut h = Cursor::new(&bytes[8..HEADER_BYTES], 8);
    let version = h.u32("version")?;
    if version != VERSION {
        return Err(BakedProblem::UnsupportedVersion { found: version });
    }
    let flags = h.u32("flags")?;
    if flags != 0 {
        return Err(BakedProblem::Corrupt { offset: 12, what: format!("flags {flags:#x} (this version writes 0)") });
    }
    let len = h.u64("payload length")?;
    let sum = h.u64("checksum")?;
    let have = (bytes.len() - HEADER_BYTES) as u64;
    if have < len {
        return Err(BakedProblem::Truncated {
            len: bytes.len() as u64,
            expected: len.saturating_add(HEADER_BYTES as u64),
        });
    }
    if have > len {
        return Err(BakedProblem::TrailingBytes { extra: have - len });
    }
    let payload = &bytes[HEADER_BYTES..];
    if fnv1a64(payload) != sum {
        return Err(BakedProblem::Checksum);
    }
    read_payload(&mut Cursor::new(payload, HEADER_BYTES))
}

/// Reads the baked file at `path` through the guarded reader ([`files`]).
///
/// # Errors
/// [`AssetError`] for IO and size problems; [`AssetError::Baked`] naming
/// the file for a malformed one.
pub fn read_baked_file(path: &Path) -> Result<BakedCharacter, AssetError> {
    let bytes = files::read(path, FileKind::Baked)?;
    read_baked(&bytes).map_err(|problem| AssetError::Baked { path: path.to_path_buf(), problem })
}

fn section(w: &mut Writer, tag: [u8; 4], body: impl FnOnce(&mut Writer)) {
    w.bytes.extend_from_slice(&tag);
    let at = w.bytes.len();
    w.u64(0);
    body(w);
    let len = (w.bytes.len() - at - 8) as u64;
    w.bytes[at..at + 8].copy_from_slice(&len.to_le_bytes());
}

/// The body of section `tag`, as a cursor of its own.
fn read_section<'a>(r: &mut Cursor<'a>, tag: [u8; 4]) -> Result<Cursor<'a>, BakedProblem> {
    let at = r.offset();
    let found = r.take(4, "section tag")?;
    if found != tag {
        return Err(BakedProblem::Corrupt {
            offset: at as u64,
            what: format!("expected section `{}`", String::from_utf8_lossy(&tag)),
        });
    }
    let len = r.u64("section length")?;
    let len = usize::try_from(len).map_err(|_| r.corrupt("section length"))?;
    let base = r.offset();
    Ok(Cursor::new(r.take(len, "section")?, base))
}

fn read_payload(r: &mut Cursor<'_>) -> Result<BakedCharacter, BakedProblem> {
    let tolerance = Tolerance {
        translation: r.finite("tolerance")?,
        rotation_degrees: r.finite("tolerance")?,
        scale: r.finite("tolerance")?,
    };
    let mut s = read_section(r, *b"DEFS")?;
    let n = s.count("definition files", 8, MAX_ITEMS)?;
    let mut definitions = Vec::with_capacity(n);
    for _ in 0..n {
        let path = s.str("definition path")?;
        let p = Path::new(&path);
        if p.is_absolute() || p.components().any(|c| !matches!(c, std::path::Component::Normal(_))) {
            return Err(s.corrupt(format!("definition path `{}` is not a plain relative path", path.escape_debug())));
        }
        definitions.push((PathBuf::from(path), s.str("definition text")?));
    }
    s.end("DEFS")?;
    let mut s = read_section(r, *b"SKEL")?;
    let skeleton = read_skeleton(&mut s)?;
    s.end("SKEL")?;
    let mut s = read_section(r, *b"MRPH")?;
    let n = s.count("morph nodes", 13, MAX_ITEMS)?;
    let mut morph_nodes = Vec::with_capacity(n);
    for _ in 0..n {
        let node = s.u32("morph node")?;
        let name = s.opt_str("morph node name")?;
        let k = s.count("morph node ancestors", 4, MAX_ITEMS)?;
        let ancestors = (0..k).map(|_| s.u32("morph node ancestor")).collect::<Result<_, _>>()?;
        let weights = s.f32s("morph node weights", MAX_ITEMS)?;
        morph_nodes.push(MorphNode { node, name, ancestors, weights });
    }
    s.end("MRPH")?;
    let clip_start = r.offset();
    let mut s = read_section(r, *b"CLIP")?;
    let clip_bytes = (r.offset() - clip_start) as u64;
    let n = s.count("clips", 8, MAX_ITEMS)?;
    let mut clips = Vec::with_capacity(n);
    for _ in 0..n {
        let id = s.str("clip id")?;
        let (_, clip, source_skeleton) = read_clip_body(&mut s, &skeleton)?;
        clips.push(BakedClip { id, clip, source_skeleton });
    }
    s.end("CLIP")?;
    r.end("payload")?;
    Ok(BakedCharacter { tolerance, definitions, skeleton, morph_nodes, clips, clip_bytes })
}

fn write_skeleton(w: &mut Writer, s: &Skeleton) {
    w.str(s.name());
    w.len(s.joint_count());
    for j in s.joints() {
        w.opt_str(j.name.as_deref());
        w.u32(j.node);
        w.u32(j.parent.map_or(u32::MAX, u32::from));
        let t = &j.rest;
        t.translation
            .to_array()
            .iter()
            .chain(&t.rotation.to_array())
            .chain(&t.scale.to_array())
            .for_each(|v| w.f32(*v));
        j.inverse_bind.to_cols_array().iter().for_each(|v| w.f32(*v));
    }
}

fn read_skeleton(r: &mut Cursor<'_>) -> Result<Skeleton, BakedProblem> {
    let name = r.str("skeleton name")?;
    let n = r.count("joints", 1 + 8 + 26 * 4, zoa_anim_core::skeleton::MAX_JOINTS)?;
    let mut joints = Vec::with_capacity(n);
    for _ in 0..n {
        let jname = r.opt_str("joint name")?;
        let node = r.u32("joint node")?;
        let parent = match r.u32("joint parent")? {
            u32::MAX => None,
            p => Some(u16::try_from(p).map_err(|_| r.corrupt(format!("joint parent {p}")))?),
        };
        let mut f = [0.0f32; 26];
        for v in &mut f {
            *v = r.finite("joint transform")?;
        }
        let rest = Transform {
            translation: Vec3::from_slice(&f[0..3]),
            rotation: Quat::from_slice(&f[3..7]),
            scale: Vec3::from_slice(&f[7..10]),
        };
        let inverse_bind = Mat4::from_cols_slice(&f[10..26]);
        joints.push(Joint { name: jname, node, parent, rest, inverse_bind });
    }
    let at = r.offset() as u64;
    Skeleton::new(name, joints).map_err(|e| BakedProblem::Corrupt { offset: at, what: e.to_string() })
}

/// Per joint, the longest rest-pose distance to a descendant plus [`MIN_LENGTH`].
fn hierarchy_lengths(s: &Skeleton) -> Vec<f32> {
    let n = s.joint_count();
    let mut model = vec![Mat4::IDENTITY; n];
    for &j in s.eval_order() {
        let j = usize::from(j);
        let local = s.joints()[j].rest.to_matrix();
        model[j] = s.parent(j).map_or(local, |p| model[p] * local);
    }
    let mut len = vec![0.0f32; n];
    for &j in s.eval_order().iter().rev() {
        let j = usize::from(j);
        if let Some(p) = s.parent(j) {
            let d = model[j].w_axis.truncate().distance(model[p].w_axis.truncate());
            len[p] = len[p].max(len[j] + d);
        }
    }
    len.iter().map(|l| l + MIN_LENGTH).collect()
}

fn track_tolerance(t: &zoa_anim_core::Track, lengths: &[f32], s: &Skeleton, tol: &Tolerance) -> TrackTolerance {
    let length = s.find_node(t.node).map_or(MIN_LENGTH, |j| lengths[j]);
    TrackTolerance(match t.property {
        zoa_anim_core::TrackProperty::Translation => tol.translation,
        zoa_anim_core::TrackProperty::Rotation => tol.rotation_degrees.to_radians().min(tol.translation / length),
        zoa_anim_core::TrackProperty::Scale => tol.scale.min(tol.translation / length),
    })
}

fn write_clip(
    w: &mut Writer,
    clip: &Clip,
    source_skeleton: Option<&Skeleton>,
    skeleton: &Skeleton,
    tol: &Tolerance,
) -> KeyCounts {
    w.str(clip.name());
    match source_skeleton {
        None => w.u8(0),
        Some(s) => {
            w.u8(1);
            write_skeleton(w, s);
        }
    }
    let lengths = hierarchy_lengths(skeleton);
    let plans: Vec<_> =
        clip.tracks().iter().map(|t| tracks::plan(t, track_tolerance(t, &lengths, skeleton, tol), skeleton)).collect();
    let mut timeline: Vec<f32> = clip
        .tracks()
        .iter()
        .zip(&plans)
        .filter(|(_, p)| p.quantizer.is_some())
        .flat_map(|(t, p)| p.kept.iter().map(|&k| t.times[k]))
        .collect();
    timeline.sort_by(f32::total_cmp);
    timeline.dedup();
    w.f32s(&timeline);
    w.len(clip.tracks().len());
    let mut counts = KeyCounts::default();
    for (t, p) in clip.tracks().iter().zip(&plans) {
        let c = tracks::write_track(w, t, p, &timeline, skeleton);
        counts.before += c.before;
        counts.after += c.after;
    }
    w.len(clip.morph_tracks().len());
    for m in clip.morph_tracks() {
        w.u32(m.node);
        w.opt_str(m.node_name.as_deref());
        w.len(m.targets);
        w.u8(tracks::interpolation_code(m.interpolation));
        w.f32s(&m.times);
        w.f32s(&m.values);
    }
    counts
}

/// A clip written by [`write_clip`]; track names the file leaves out come
/// from its authoring skeleton, else from `skeleton` (the character's).
fn read_clip_body(r: &mut Cursor<'_>, skeleton: &Skeleton) -> Result<(String, Clip, Option<Skeleton>), BakedProblem> {
    let name = r.str("clip name")?;
    let source_skeleton = match r.u8("clip skeleton flag")? {
        0 => None,
        1 => Some(read_skeleton(r)?),
        f => return Err(r.corrupt(format!("clip skeleton flag {f} (0 or 1)"))),
    };
    let timeline = r.f32s("clip timeline", MAX_KEYS)?;
    // A track takes at least six bytes: node, header, and a rest track's count, quantizer, gap width and stream length.
    let n = r.count("clip tracks", 6, MAX_ITEMS)?;
    let mut tracks = Vec::with_capacity(n);
    for _ in 0..n {
        tracks.push(tracks::read_track(r, &timeline, source_skeleton.as_ref().unwrap_or(skeleton))?);
    }
    let n = r.count("clip morph tracks", 18, MAX_ITEMS)?;
    let mut morph = Vec::with_capacity(n);
    for _ in 0..n {
        let node = r.u32("morph track node")?;
        let node_name = r.opt_str("morph track node name")?;
        let targets = r.u32("morph targets")? as usize;
        let code = r.u8("morph interpolation")?;
        let interpolation = tracks::interpolation_from_code(code)
            .ok_or_else(|| r.corrupt(format!("morph interpolation {code} (0, 1 or 2)")))?;
        let times = r.f32s("morph times", MAX_KEYS)?;
        let values = r.f32s("morph values", MAX_KEYS)?;
        morph.push(MorphTrack { node, node_name, targets, interpolation, times, values });
    }
    let at = r.offset() as u64;
    let corrupt = |e: zoa_anim_core::CoreError| BakedProblem::Corrupt { offset: at, what: e.to_string() };
    let clip = Clip::new(name.clone(), tracks).map_err(corrupt)?.with_morph_tracks(morph).map_err(corrupt)?;
    Ok((name, clip, source_skeleton))
}

#[cfg(test)]
mod tests;

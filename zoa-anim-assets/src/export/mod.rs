//! glTF 2.0 binary (GLB) export: a core [`Skeleton`], its [`Clip`]s and an
//! optional rigidly or smoothly skinned mesh become one self-contained `.glb`.
//!
//! Used to generate the project's fixture humanoid and to build round-trip
//! inputs for the importer's tests (write a scene, read it back, compare).
//!
//! # Layout of the file
//!
//! ```text
//! nodes     0 .. J-1   the skeleton's joints in skin order (joint i is node i)
//!           J          the mesh node (only when a mesh is given), a scene root
//! skin      0          joints 0 .. J-1, inverse bind matrices, `skeleton` = the root when there is one
//! mesh      0          one triangle primitive: POSITION, NORMAL, JOINTS_0, WEIGHTS_0, indices
//! animation i          clip i; one sampler per track; bit-identical time arrays share one input
//!                      accessor and bit-identical value arrays one output accessor
//! buffer    0          the GLB BIN chunk: one 4-byte-aligned view per vertex attribute, the
//!                      indices and the inverse bind matrices, then one view for all animation data
//! ```
//!
//! **Key design decision:** the output is byte-deterministic. The JSON is
//! written from typed `Serialize` structs (field order fixed by the struct
//! definitions, independent of serde_json's `preserve_order` feature being
//! unified in by some other crate), floats are printed by serde_json's
//! shortest round-trip formatting, nothing iterates a hash map, and no
//! timestamp or crate version is embedded. Equal scenes give equal bytes, so a
//! committed fixture can be checked against a fresh generation.
//!
//! Track targets are matched to joints by [`Joint::node`](zoa_anim_core::Joint::node)
//! (the source identity), then renumbered: the writer does not need the
//! input's node numbers to be contiguous.

use std::collections::BTreeMap;

use zoa_anim_core::{Clip, Interpolation, Skeleton, Track, TrackProperty};

use crate::AssetError;

mod bin;
mod document;
mod mesh;

use bin::{BinWriter, pad4};
use document::{Animation, Asset, Buffer, Channel, Document, Node, Sampler, Scene, Skin, Target};
use mesh::write_mesh;

/// The `asset.generator` string written into every file (no version, so the
/// bytes do not change when the crate version does).
pub const GENERATOR: &str = "zoa-anim-assets export";

/// A triangle mesh skinned to the scene's skeleton.
///
/// All per-vertex arrays have the same length (the vertex count), except
/// `normals`, which may be empty (then no `NORMAL` attribute is written).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SkinnedMesh {
    /// Mesh and mesh-node name; `None` writes neither name.
    pub name: Option<String>,
    /// Vertex positions in model space at bind pose, metres; finite.
    pub positions: Vec<[f32; 3]>,
    /// Unit vertex normals in model space at bind pose; empty for none.
    pub normals: Vec<[f32; 3]>,
    /// Up to four skin joint indices per vertex (indices into `Skeleton::joints`).
    /// Written as `UNSIGNED_BYTE` when the skeleton has at most 256 joints, else `UNSIGNED_SHORT`.
    pub joints: Vec<[u16; 4]>,
    /// Weights of `joints`, each in `0.0..=1.0`, summing to 1 (within 1e-3) per vertex.
    pub weights: Vec<[f32; 4]>,
    /// Triangle list (three vertex indices per triangle, counter-clockwise front faces).
    pub indices: Vec<u32>,
}

/// Everything one GLB holds.
#[derive(Debug, Clone, Copy)]
pub struct GlbScene<'a> {
    /// The one skin. Must have at least one joint.
    pub skeleton: &'a Skeleton,
    /// One glTF animation per clip, in this order. Every track must target a
    /// joint of `skeleton` (matched by node id), at most once per property.
    pub clips: &'a [Clip],
    /// Optional skinned mesh, placed on its own root node.
    pub mesh: Option<&'a SkinnedMesh>,
}

/// Serializes a scene as a glTF 2.0 binary (`.glb`).
///
/// The result passes the `gltf` crate's validation, has accessor `min`/`max`
/// on `POSITION` and every animation input, pads the JSON chunk with spaces
/// and the BIN chunk with zeros to 4 bytes, and is byte-for-byte
/// deterministic.
///
/// # Errors
///
/// [`AssetError::Export`] naming the element when the scene cannot be
/// written as valid glTF: an empty skeleton, a clip without tracks, a track
/// whose node is not a joint or that targets the same node property twice,
/// key times that do not strictly increase, a CUBICSPLINE track with a
/// single key, or a mesh with inconsistent lengths, out-of-range indices, non-finite
/// data, non-unit normals or weights that do not sum to 1.
pub fn write_glb(scene: &GlbScene<'_>) -> Result<Vec<u8>, AssetError> {
    let json = build_document(scene)?;
    let (mut doc, bin) = json;
    let bin_len = pad4(bin.len());
    if bin_len > 0 {
        doc.buffers.push(Buffer { byte_length: bin_len });
    }
    let mut text = serde_json::to_vec(&doc).map_err(|e| export_err("document", e.to_string()))?;
    while text.len() % 4 != 0 {
        text.push(b' ');
    }
    let total = 12 + 8 + text.len() + if bin_len > 0 { 8 + bin_len } else { 0 };
    let total32 = u32::try_from(total).map_err(|_| export_err("file", format!("{total} bytes exceed 4 GiB")))?;
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&total32.to_le_bytes());
    out.extend_from_slice(&(text.len() as u32).to_le_bytes());
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(&text);
    if bin_len > 0 {
        out.extend_from_slice(&(bin_len as u32).to_le_bytes());
        out.extend_from_slice(b"BIN\0");
        out.extend_from_slice(&bin);
        out.resize(total, 0);
    }
    Ok(out)
}

fn export_err(element: impl Into<String>, reason: impl Into<String>) -> AssetError {
    AssetError::Export { element: element.into(), reason: reason.into() }
}

fn build_document(scene: &GlbScene<'_>) -> Result<(Document, Vec<u8>), AssetError> {
    let skeleton = scene.skeleton;
    let joint_count = skeleton.joint_count();
    if joint_count == 0 {
        return Err(export_err(
            format!("skeleton \"{}\"", skeleton.name()),
            "has no joints (a skin needs at least one)",
        ));
    }
    let mut bin = BinWriter::default();
    let mut doc = Document {
        asset: Asset { version: "2.0", generator: GENERATOR },
        scene: 0,
        scenes: vec![],
        nodes: Vec::with_capacity(joint_count + 1),
        meshes: vec![],
        skins: vec![],
        animations: vec![],
        accessors: vec![],
        buffer_views: vec![],
        buffers: vec![],
    };

    let roots = write_joints(&mut doc, skeleton);

    // Skin.
    let ibm: Vec<f32> = skeleton.joints().iter().flat_map(|j| j.inverse_bind.to_cols_array()).collect();
    let ibm_accessor = bin.push_f32(&mut doc, &ibm, "MAT4", 16, None, false);
    doc.skins.push(Skin {
        name: Some(skeleton.name().to_owned()),
        inverse_bind_matrices: ibm_accessor,
        joints: (0..joint_count as u32).collect(),
        skeleton: (roots.len() == 1).then(|| roots[0]),
    });

    let mut scene_nodes = roots;
    if let Some(mesh) = scene.mesh {
        let mesh_index = write_mesh(&mut doc, &mut bin, mesh, joint_count)?;
        let node = doc.nodes.len() as u32;
        doc.nodes.push(Node {
            name: mesh.name.clone(),
            children: vec![],
            translation: None,
            rotation: None,
            scale: None,
            mesh: Some(mesh_index),
            skin: Some(0),
        });
        scene_nodes.push(node);
    }
    doc.scenes.push(Scene { nodes: scene_nodes });

    write_animations(&mut doc, &mut bin, skeleton, scene.clips)?;
    bin.finish_shared(&mut doc);
    Ok((doc, bin.bytes))
}

/// The joints as nodes (node i = joint i; children in joint order). Returns the root joints.
fn write_joints(doc: &mut Document, skeleton: &Skeleton) -> Vec<u32> {
    let joint_count = skeleton.joint_count();
    let mut children: Vec<Vec<u32>> = vec![Vec::new(); joint_count];
    let mut roots: Vec<u32> = Vec::new();
    for (i, j) in skeleton.joints().iter().enumerate() {
        match j.parent {
            Some(p) => children[p as usize].push(i as u32),
            None => roots.push(i as u32),
        }
    }
    for (j, kids) in skeleton.joints().iter().zip(children) {
        let t = j.rest;
        doc.nodes.push(Node {
            name: j.name.clone(),
            children: kids,
            translation: (t.translation != zoa_anim_core::glam::Vec3::ZERO).then(|| t.translation.to_array()),
            rotation: (t.rotation != zoa_anim_core::glam::Quat::IDENTITY).then(|| t.rotation.to_array()),
            scale: (t.scale != zoa_anim_core::glam::Vec3::ONE).then(|| t.scale.to_array()),
            mesh: None,
            skin: None,
        });
    }
    roots
}

/// One glTF animation per clip; identical time arrays (and identical value
/// arrays) share one accessor.
fn write_animations(
    doc: &mut Document,
    bin: &mut BinWriter,
    skeleton: &Skeleton,
    clips: &[Clip],
) -> Result<(), AssetError> {
    let mut inputs: BTreeMap<Vec<u32>, u32> = BTreeMap::new();
    let mut outputs: BTreeMap<(usize, Vec<u32>), u32> = BTreeMap::new();
    for (ci, clip) in clips.iter().enumerate() {
        let element = format!("clip {ci} \"{}\"", clip.name());
        if clip.tracks().is_empty() {
            return Err(export_err(element, "has no tracks (a glTF animation needs at least one channel)"));
        }
        let mut anim = Animation { name: clip.name().to_owned(), channels: vec![], samplers: vec![] };
        let mut seen: Vec<(usize, TrackProperty)> = Vec::with_capacity(clip.tracks().len());
        for (ti, track) in clip.tracks().iter().enumerate() {
            let joint = track_joint(skeleton, track, || format!("{element} track {ti}"), &mut seen)?;
            let key: Vec<u32> = track.times.iter().map(|t| t.to_bits()).collect();
            let input = match inputs.get(&key) {
                Some(&a) => a,
                None => {
                    let a = bin.push_f32_shared(doc, &track.times, "SCALAR", 1, true);
                    inputs.insert(key, a);
                    a
                }
            };
            let (ty, comps) = match track.property {
                TrackProperty::Rotation => ("VEC4", 4),
                _ => ("VEC3", 3),
            };
            let key = (comps, track.values.iter().map(|v| v.to_bits()).collect::<Vec<u32>>());
            let output = match outputs.get(&key) {
                Some(&a) => a,
                None => {
                    let a = bin.push_f32_shared(doc, &track.values, ty, comps, false);
                    outputs.insert(key, a);
                    a
                }
            };
            let interpolation = match track.interpolation {
                Interpolation::Step => "STEP",
                Interpolation::Linear => "LINEAR",
                Interpolation::CubicSpline => "CUBICSPLINE",
            };
            anim.channels.push(Channel {
                sampler: anim.samplers.len() as u32,
                target: Target { node: joint as u32, path: track.property.name() },
            });
            anim.samplers.push(Sampler { input, interpolation, output });
        }
        doc.animations.push(anim);
    }
    Ok(())
}

/// The joint `track` animates, checked: a joint, a target no earlier track
/// of the clip (`seen`) has, strictly increasing times, and at least two keys
/// for CUBICSPLINE. `element` names the track in errors.
fn track_joint(
    skeleton: &Skeleton,
    track: &Track,
    element: impl Fn() -> String,
    seen: &mut Vec<(usize, TrackProperty)>,
) -> Result<usize, AssetError> {
    let joint = skeleton
        .find_node(track.node)
        .ok_or_else(|| export_err(element(), format!("targets node {} which is not a joint", track.node)))?;
    if seen.contains(&(joint, track.property)) {
        return Err(export_err(
            element(),
            format!(
                "animates the {} of joint {} twice (glTF allows one channel per target)",
                track.property.name(),
                skeleton.display_name(joint)
            ),
        ));
    }
    seen.push((joint, track.property));
    if let Some(k) = track.times.windows(2).position(|w| w[1] <= w[0]) {
        return Err(export_err(
            element(),
            format!(
                "key times must strictly increase in glTF, but key {} is at {} after {}",
                k + 1,
                track.times[k + 1],
                track.times[k]
            ),
        ));
    }
    if track.interpolation == Interpolation::CubicSpline && track.times.len() < 2 {
        return Err(export_err(element(), "is CUBICSPLINE with one key; glTF needs at least two"));
    }
    Ok(joint)
}

#[cfg(test)]
mod tests {
    use zoa_anim_core::glam::{Mat4, Quat, Vec3};
    use zoa_anim_core::{Joint, Track, Transform};

    use super::*;

    /// Root at the origin, a child 1 m up, a grandchild 0.5 m further, with
    /// the child node ids deliberately not contiguous (10, 20, 30).
    fn skeleton() -> Skeleton {
        let joint = |name: &str, node, parent, y: f32, model_y: f32| Joint {
            name: Some(name.to_owned()),
            node,
            parent,
            rest: Transform { translation: Vec3::new(0.0, y, 0.0), ..Transform::IDENTITY },
            inverse_bind: Mat4::from_translation(Vec3::new(0.0, -model_y, 0.0)),
        };
        Skeleton::new(
            "rig",
            vec![
                joint("Root", 10, None, 0.0, 0.0),
                joint("Mid", 20, Some(0), 1.0, 1.0),
                joint("Tip", 30, Some(1), 0.5, 1.5),
            ],
        )
        .unwrap()
    }

    /// A track whose every key holds `key` (the first `components × elements` numbers of it).
    fn track(node: u32, property: TrackProperty, interpolation: Interpolation, times: &[f32], key: &[f32]) -> Track {
        let per_key = property.components() * if interpolation == Interpolation::CubicSpline { 3 } else { 1 };
        let values = times.iter().flat_map(|_| key[..per_key].iter().copied()).collect();
        Track { node, node_name: None, property, interpolation, times: times.to_vec(), values }
    }

    fn clips() -> Vec<Clip> {
        let q = Quat::from_rotation_x(0.5).to_array();
        vec![
            Clip::new(
                "wave",
                vec![
                    track(20, TrackProperty::Rotation, Interpolation::Linear, &[0.0, 0.5, 1.0], &q),
                    track(10, TrackProperty::Translation, Interpolation::Step, &[0.0, 0.5, 1.0], &[0.0, 1.0, 2.0]),
                    track(30, TrackProperty::Scale, Interpolation::Linear, &[0.0, 1.0], &[1.0, 2.0, 1.0]),
                ],
            )
            .unwrap(),
            Clip::new(
                "hop",
                vec![track(
                    10,
                    TrackProperty::Translation,
                    Interpolation::CubicSpline,
                    &[0.0, 0.5, 1.0],
                    &[0.0, 0.0, 0.0, 0.0, 0.5, 0.0, 0.0, 0.0, 0.0],
                )],
            )
            .unwrap(),
        ]
    }

    /// Two triangles on the root and the tip.
    fn mesh() -> SkinnedMesh {
        SkinnedMesh {
            name: Some("Body".into()),
            positions: vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.5, 0.0], [1.0, 1.5, 0.0]],
            normals: vec![[0.0, 0.0, 1.0]; 4],
            joints: vec![[0, 0, 0, 0], [0, 0, 0, 0], [2, 0, 0, 0], [2, 1, 0, 0]],
            weights: vec![[1.0, 0.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0], [0.5, 0.5, 0.0, 0.0]],
            indices: vec![0, 1, 2, 2, 1, 3],
        }
    }

    fn write(mesh: Option<&SkinnedMesh>) -> Vec<u8> {
        let skeleton = skeleton();
        let clips = clips();
        write_glb(&GlbScene { skeleton: &skeleton, clips: &clips, mesh }).unwrap()
    }

    fn u32_at(bytes: &[u8], at: usize) -> u32 {
        u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap())
    }

    #[test]
    fn header_and_chunks_follow_the_glb_layout() {
        let glb = write(Some(&mesh()));
        assert_eq!(&glb[0..4], b"glTF");
        assert_eq!(u32_at(&glb, 4), 2);
        assert_eq!(u32_at(&glb, 8) as usize, glb.len());
        let json_len = u32_at(&glb, 12) as usize;
        assert_eq!(&glb[16..20], b"JSON");
        assert_eq!(json_len % 4, 0);
        let bin_at = 20 + json_len;
        let bin_len = u32_at(&glb, bin_at) as usize;
        assert_eq!(&glb[bin_at + 4..bin_at + 8], b"BIN\0");
        assert_eq!(bin_len % 4, 0);
        assert_eq!(bin_at + 8 + bin_len, glb.len());
        let json: serde_json::Value = serde_json::from_slice(&glb[20..bin_at]).unwrap();
        assert_eq!(json["buffers"][0]["byteLength"], bin_len);
        assert_eq!(json["asset"]["generator"], GENERATOR);
    }

    #[test]
    fn output_is_deterministic() {
        assert_eq!(write(Some(&mesh())), write(Some(&mesh())));
        assert_eq!(write(None), write(None));
    }

    #[test]
    fn the_gltf_crate_accepts_the_file_and_sees_the_same_structure() {
        let glb = write(Some(&mesh()));
        let gltf = gltf::Gltf::from_slice(&glb).expect("valid glTF");
        let blob = gltf.blob.as_deref().expect("BIN chunk");
        assert_eq!(gltf.nodes().count(), 4);
        let skin = gltf.skins().next().unwrap();
        assert_eq!(skin.joints().map(|n| n.name().unwrap().to_owned()).collect::<Vec<_>>(), ["Root", "Mid", "Tip"]);
        assert_eq!(skin.skeleton().map(|n| n.index()), Some(0));
        let reader = skin.reader(|_| Some(blob));
        let ibm: Vec<[[f32; 4]; 4]> = reader.read_inverse_bind_matrices().unwrap().collect();
        assert_eq!(ibm[2][3], [0.0, -1.5, 0.0, 1.0]);
        let node1 = gltf.nodes().nth(1).unwrap();
        assert_eq!(node1.transform().decomposed().0, [0.0, 1.0, 0.0]);
        assert_eq!(gltf.nodes().next().unwrap().children().map(|c| c.index()).collect::<Vec<_>>(), [1]);

        let anims: Vec<_> = gltf.animations().collect();
        assert_eq!(anims.len(), 2);
        assert_eq!(anims[0].name(), Some("wave"));
        let modes: Vec<_> = anims[0].samplers().map(|s| s.interpolation()).collect();
        use gltf::animation::Interpolation as I;
        assert_eq!(modes, [I::Linear, I::Step, I::Linear]);
        assert_eq!(anims[1].samplers().next().unwrap().interpolation(), I::CubicSpline);
        // Channel targets are renumbered joint indices, not the input's node ids.
        let targets: Vec<usize> = anims[0].channels().map(|c| c.target().node().index()).collect();
        assert_eq!(targets, [1, 0, 2]);
        // Identical time arrays share one input accessor; every input has min/max.
        let inputs: Vec<usize> = anims[0].samplers().map(|s| s.input().index()).collect();
        assert_eq!(inputs[0], inputs[1]);
        assert_ne!(inputs[0], inputs[2]);
        for s in anims.iter().flat_map(|a| a.samplers()) {
            assert!(s.input().min().is_some() && s.input().max().is_some());
        }
        let input = anims[0].samplers().next().unwrap().input();
        assert_eq!(input.max().unwrap(), serde_json::json!([1.0]));

        let prim = gltf.meshes().next().unwrap().primitives().next().unwrap();
        let pos = prim.get(&gltf::Semantic::Positions).unwrap();
        assert_eq!(pos.min().unwrap(), serde_json::json!([0.0, 0.0, 0.0]));
        assert_eq!(pos.max().unwrap(), serde_json::json!([1.0, 1.5, 0.0]));
        let reader = prim.reader(|_| Some(blob));
        let joints: Vec<[u16; 4]> = reader.read_joints(0).unwrap().into_u16().collect();
        assert_eq!(joints[3], [2, 1, 0, 0]);
        let indices: Vec<u32> = reader.read_indices().unwrap().into_u32().collect();
        assert_eq!(indices, [0, 1, 2, 2, 1, 3]);
        let mesh_node = gltf.nodes().nth(3).unwrap();
        assert_eq!(mesh_node.skin().map(|s| s.index()), Some(0));
        let roots: Vec<usize> = gltf.scenes().next().unwrap().nodes().map(|n| n.index()).collect();
        assert_eq!(roots, [0, 3]);
    }

    #[test]
    fn the_importer_reads_back_what_was_written() {
        let skeleton = skeleton();
        let clips = clips();
        let glb = write_glb(&GlbScene { skeleton: &skeleton, clips: &clips, mesh: Some(&mesh()) }).unwrap();
        let asset = crate::gltf::load_gltf_slice(&glb, None, "roundtrip.glb").unwrap();
        assert_eq!(asset.skeletons.len(), 1);
        let back = &asset.skeletons[0];
        assert_eq!(back.joint_count(), 3);
        for (a, b) in skeleton.joints().iter().zip(back.joints()) {
            assert_eq!(a.name, b.name);
            assert_eq!(a.parent, b.parent);
            assert_eq!(a.rest, b.rest);
            assert_eq!(a.inverse_bind, b.inverse_bind);
        }
        assert_eq!(asset.clips.len(), 2);
        for (a, b) in clips.iter().zip(&asset.clips) {
            assert_eq!(a.name(), b.name());
            assert_eq!(a.duration(), b.duration());
            assert_eq!(a.tracks().len(), b.tracks().len());
            for (ta, tb) in a.tracks().iter().zip(b.tracks()) {
                // Node ids are renumbered: joint i is node i.
                let joint = skeleton.find_node(ta.node).unwrap();
                assert_eq!(tb.node as usize, joint);
                assert_eq!((ta.property, ta.interpolation), (tb.property, tb.interpolation));
                assert_eq!(ta.times, tb.times);
                assert_eq!(ta.values, tb.values);
            }
        }
    }

    fn export_error(skeleton: &Skeleton, clips: &[Clip], mesh: Option<&SkinnedMesh>) -> String {
        match write_glb(&GlbScene { skeleton, clips, mesh }) {
            Err(e @ AssetError::Export { .. }) => e.to_string(),
            other => panic!("expected an export error, got {other:?}"),
        }
    }

    #[test]
    fn an_empty_skeleton_is_an_error() {
        let empty = Skeleton::new("empty", vec![]).unwrap();
        assert!(export_error(&empty, &[], None).contains("has no joints"));
    }

    #[test]
    fn a_clip_without_tracks_is_an_error() {
        let clips = [Clip::new("nothing", vec![]).unwrap()];
        assert!(export_error(&skeleton(), &clips, None).contains("clip 0 \"nothing\": has no tracks"));
    }

    #[test]
    fn a_track_on_a_node_that_is_not_a_joint_is_an_error() {
        let clips =
            [Clip::new("c", vec![track(99, TrackProperty::Scale, Interpolation::Step, &[0.0], &[1.0; 3])]).unwrap()];
        assert!(export_error(&skeleton(), &clips, None).contains("targets node 99 which is not a joint"));
    }

    #[test]
    fn two_tracks_on_one_target_are_an_error() {
        let t = track(20, TrackProperty::Scale, Interpolation::Step, &[0.0], &[1.0; 3]);
        let clips = [Clip::new("c", vec![t.clone(), t]).unwrap()];
        assert!(export_error(&skeleton(), &clips, None).contains("animates the scale of joint Mid twice"));
    }

    #[test]
    fn repeated_key_times_are_an_error() {
        let t = track(20, TrackProperty::Scale, Interpolation::Linear, &[0.0, 0.5, 0.5], &[1.0; 3]);
        let clips = [Clip::new("c", vec![t]).unwrap()];
        assert!(export_error(&skeleton(), &clips, None).contains("key 2 is at 0.5 after 0.5"));
    }

    #[test]
    fn a_one_key_cubic_spline_is_an_error() {
        let t = track(20, TrackProperty::Scale, Interpolation::CubicSpline, &[0.0], &[1.0; 9]);
        let clips = [Clip::new("c", vec![t]).unwrap()];
        assert!(export_error(&skeleton(), &clips, None).contains("CUBICSPLINE with one key"));
    }

    #[test]
    fn bad_meshes_are_errors() {
        type Mutation = fn(&mut SkinnedMesh);
        let cases: [(&str, Mutation); 8] = [
            ("has no vertices", |m| *m = SkinnedMesh::default()),
            ("attribute lengths differ", |m| {
                m.weights.pop();
            }),
            ("not a positive multiple of 3", |m| {
                m.indices.pop();
            }),
            ("index 5 is 9", |m| m.indices[5] = 9),
            ("vertex 1 has a non-finite position", |m| m.positions[1][2] = f32::NAN),
            ("vertex 2 has a normal that is not unit", |m| m.normals[2] = [0.0, 0.0, 2.0]),
            ("vertex 3 references a joint outside 0..3", |m| m.joints[3][1] = 3),
            ("vertex 0 has weights", |m| m.weights[0] = [0.5, 0.0, 0.0, 0.0]),
        ];
        for (expected, mutate) in cases {
            let mut m = mesh();
            mutate(&mut m);
            let msg = export_error(&skeleton(), &[], Some(&m));
            assert!(msg.contains(expected), "{msg:?} should contain {expected:?}");
        }
    }

    mod roundtrip {
        use proptest::prelude::*;
        use zoa_anim_core::glam::{Mat4, Quat, Vec3};
        use zoa_anim_core::{Clip, Interpolation, Joint, Skeleton, Track, TrackProperty, Transform};

        use super::super::*;

        fn finite() -> impl Strategy<Value = f32> {
            -10.0f32..10.0
        }

        fn unit_quat() -> impl Strategy<Value = Quat> {
            (finite(), finite(), finite(), finite())
                .prop_filter("non-zero", |(x, y, z, w)| x * x + y * y + z * z + w * w > 0.01)
                .prop_map(|(x, y, z, w)| Quat::from_xyzw(x, y, z, w).normalize())
        }

        fn skeleton() -> impl Strategy<Value = Skeleton> {
            (1usize..12)
                .prop_flat_map(|n| {
                    (0..n)
                        .map(|i| {
                            let parent =
                                if i == 0 { Just(None).boxed() } else { (0..i).prop_map(|p| Some(p as u16)).boxed() };
                            (parent, [finite(), finite(), finite()], unit_quat(), 0.1f32..3.0).prop_map(
                                move |(parent, t, r, s)| Joint {
                                    name: (i % 3 != 2).then(|| format!("j{i}")),
                                    node: i as u32 * 2 + 5,
                                    parent,
                                    rest: Transform {
                                        translation: Vec3::from_array(t),
                                        rotation: r,
                                        scale: Vec3::splat(s),
                                    },
                                    inverse_bind: Mat4::from_translation(Vec3::from_array(t)).inverse(),
                                },
                            )
                        })
                        .collect::<Vec<_>>()
                })
                .prop_map(|joints| Skeleton::new("random", joints).unwrap())
        }

        fn track(joints: usize) -> impl Strategy<Value = Track> {
            (
                0..joints,
                prop_oneof![
                    Just(TrackProperty::Translation),
                    Just(TrackProperty::Rotation),
                    Just(TrackProperty::Scale)
                ],
                prop_oneof![Just(Interpolation::Step), Just(Interpolation::Linear), Just(Interpolation::CubicSpline)],
                proptest::collection::vec(0.01f32..0.5, 2..6),
                any::<bool>(),
            )
                .prop_flat_map(|(joint, property, interpolation, mut steps, single)| {
                    // Single-key tracks, except for cubic splines, which need two.
                    if single && interpolation != Interpolation::CubicSpline {
                        steps.truncate(1);
                    }
                    let times: Vec<f32> = steps
                        .iter()
                        .scan(0.0f32, |t, d| {
                            *t += d;
                            Some(*t)
                        })
                        .collect();
                    let per_key = if interpolation == Interpolation::CubicSpline { 3 } else { 1 };
                    let values = if property == TrackProperty::Rotation {
                        proptest::collection::vec(unit_quat(), times.len() * per_key)
                            .prop_map(|qs| qs.iter().flat_map(|q| q.to_array()).collect::<Vec<f32>>())
                            .boxed()
                    } else {
                        proptest::collection::vec(finite(), times.len() * per_key * 3).boxed()
                    };
                    values.prop_map(move |values| Track {
                        node: joint as u32 * 2 + 5,
                        node_name: None,
                        property,
                        interpolation,
                        times: times.clone(),
                        values,
                    })
                })
        }

        fn scene() -> impl Strategy<Value = (Skeleton, Vec<Clip>)> {
            skeleton().prop_flat_map(|skel| {
                let n = skel.joint_count();
                let clips =
                    proptest::collection::vec(proptest::collection::vec(track(n), 1..6), 0..4).prop_map(|clips| {
                        clips
                            .into_iter()
                            .enumerate()
                            .map(|(i, mut tracks)| {
                                // One channel per (node, property), as glTF requires.
                                let mut seen = Vec::new();
                                tracks.retain(|t| {
                                    let key = (t.node, t.property);
                                    let fresh = !seen.contains(&key);
                                    seen.push(key);
                                    fresh
                                });
                                Clip::new(format!("clip{i}"), tracks).unwrap()
                            })
                            .collect::<Vec<_>>()
                    });
                (Just(skel), clips)
            })
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(64))]

            /// Whatever valid skeleton and clips go in, the gltf crate accepts the
            /// file and the importer gives back the same joints and keys, bit for bit.
            #[test]
            fn written_scenes_read_back_exactly((skel, clips) in scene()) {
                let glb = write_glb(&GlbScene { skeleton: &skel, clips: &clips, mesh: None }).unwrap();
                prop_assert_eq!(&glb, &write_glb(&GlbScene { skeleton: &skel, clips: &clips, mesh: None }).unwrap());
                gltf::Gltf::from_slice(&glb).unwrap();
                let asset = crate::gltf::load_gltf_slice(&glb, None, "random.glb").unwrap();
                prop_assert_eq!(asset.skeletons.len(), 1);
                let back = &asset.skeletons[0];
                prop_assert_eq!(back.joint_count(), skel.joint_count());
                for (a, b) in skel.joints().iter().zip(back.joints()) {
                    prop_assert_eq!(&a.name, &b.name);
                    prop_assert_eq!(a.parent, b.parent);
                    prop_assert_eq!(a.rest.translation, b.rest.translation);
                    prop_assert_eq!(a.rest.scale, b.rest.scale);
                    prop_assert!(a.rest.rotation.dot(b.rest.rotation).abs() > 1.0 - 1e-6);
                    prop_assert_eq!(a.inverse_bind, b.inverse_bind);
                }
                prop_assert_eq!(asset.clips.len(), clips.len());
                for (a, b) in clips.iter().zip(&asset.clips) {
                    prop_assert_eq!(a.name(), b.name());
                    prop_assert_eq!(a.duration(), b.duration());
                    prop_assert_eq!(a.tracks().len(), b.tracks().len());
                    for (ta, tb) in a.tracks().iter().zip(b.tracks()) {
                        prop_assert_eq!(tb.node as usize, skel.find_node(ta.node).unwrap());
                        prop_assert_eq!((ta.property, ta.interpolation), (tb.property, tb.interpolation));
                        prop_assert_eq!(&ta.times, &tb.times);
                        prop_assert_eq!(&ta.values, &tb.values);
                    }
                }
            }
        }
    }
}

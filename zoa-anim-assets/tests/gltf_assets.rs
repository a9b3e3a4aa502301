//! Every shared third-party asset imports with facts equal to its
//! `manifest.json` entry, and sampled key values equal the raw accessor bytes.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde_json::Value;
use zoa_anim_assets::gltf::{GltfAsset, load_gltf};
use zoa_anim_core::{Interpolation, TrackProperty};
use zoa_test_support::paths::shared_assets;

const EPS: f32 = 2e-6;

fn close(a: f32, b: f64) -> bool {
    // The manifest prints times with 6 decimals.
    (f64::from(a) - b).abs() <= 1e-6 + f64::from(EPS) * b.abs().max(1.0)
}

/// Manifest joint names use `<node N>` for unnamed nodes.
fn manifest_name(asset: &GltfAsset, node: u32) -> String {
    match &asset.nodes[node as usize].name {
        Some(n) => n.clone(),
        None => format!("<node {node}>"),
    }
}

fn check_skins(asset: &GltfAsset, facts: &Value) {
    let file = &asset.file_name;
    assert_eq!(asset.skeletons.len() as u64, facts["skin_count"].as_u64().unwrap(), "{file}: skin count");
    for (i, (skel, skin)) in asset.skeletons.iter().zip(facts["skins"].as_array().unwrap()).enumerate() {
        assert_eq!(skel.joint_count() as u64, skin["joint_count"].as_u64().unwrap(), "{file}: skin {i} joints");
        assert_eq!(asset.skin_names[i].as_deref(), skin["name"].as_str(), "{file}: skin {i} name");
        let first: Vec<String> = skel.joints().iter().take(10).map(|j| manifest_name(asset, j.node)).collect();
        let expected: Vec<&str> =
            skin["first_joints"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
        assert_eq!(first, expected, "{file}: skin {i} first joints");
        let roots: Vec<usize> = (0..skel.joint_count()).filter(|&j| skel.parent(j).is_none()).collect();
        let root_names: Vec<String> = roots.iter().map(|&j| manifest_name(asset, skel.joints()[j].node)).collect();
        let expected: Vec<&str> = skin["root_joints"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
        assert_eq!(root_names, expected, "{file}: skin {i} root joints");
        let root_parents: Vec<Option<String>> = roots
            .iter()
            .map(|&j| asset.nodes[skel.joints()[j].node as usize].parent.map(|p| manifest_name(asset, p)))
            .collect();
        let expected: Vec<Option<String>> =
            skin["root_joint_parents"].as_array().unwrap().iter().map(|v| v.as_str().map(str::to_owned)).collect();
        assert_eq!(root_parents, expected, "{file}: skin {i} root joint parents");
        // Every non-root joint's parent is its nearest joint ancestor node.
        for j in 0..skel.joint_count() {
            if let Some(p) = skel.parent(j) {
                let mut node = asset.nodes[skel.joints()[j].node as usize].parent;
                while let Some(n) = node {
                    if skel.find_node(n).is_some() {
                        break;
                    }
                    node = asset.nodes[n as usize].parent;
                }
                assert_eq!(node, Some(skel.joints()[p].node), "{file}: skin {i} joint {j} parent");
            }
        }
        let any_non_identity = skel.joints().iter().any(|j| j.inverse_bind != zoa_anim_core::glam::Mat4::IDENTITY);
        assert_eq!(any_non_identity, skin["has_inverse_bind_matrices"].as_bool().unwrap(), "{file}: skin {i} IBMs");
    }
}

fn check_clips(asset: &GltfAsset, facts: &Value) {
    let file = &asset.file_name;
    let anims = facts["animations"].as_array().map(Vec::as_slice).unwrap_or(&[]);
    assert_eq!(asset.clips.len() as u64, facts["animation_count"].as_u64().unwrap(), "{file}: animation count");
    let joint_nodes: BTreeSet<u32> = asset.skeletons.iter().flat_map(|s| s.joints().iter().map(|j| j.node)).collect();
    for (i, (clip, anim)) in asset.clips.iter().zip(anims).enumerate() {
        let name = anim["name"].as_str().unwrap();
        let expected_name = if name == format!("<animation {i}>") { format!("animation{i}") } else { name.to_owned() };
        assert_eq!(clip.name(), expected_name, "{file}: animation {i} name");
        assert_eq!(asset.clip(&expected_name).map(|(k, _)| k), Some(i), "{file}: lookup by name");
        assert_eq!(
            asset.clip(&format!("{}_{expected_name}", asset.stem)).map(|(k, _)| k),
            Some(i),
            "{file}: stem_name"
        );
        assert_eq!(asset.clip(&i.to_string()).map(|(k, _)| k), Some(i), "{file}: lookup by index");
        assert_eq!(
            asset.clip_channel_count(i) as u64,
            anim["channels"].as_u64().unwrap(),
            "{file}: animation {i} channels"
        );

        let (start, end) = asset.clip_time_range(i);
        let duration = anim["duration"].as_f64().unwrap();
        let start_time = anim["start_time"].as_f64().unwrap();
        assert!(close(end, duration), "{file}: animation {i} end {end} vs manifest {duration}");
        assert!(close(start, start_time), "{file}: animation {i} start {start} vs manifest {start_time}");

        let mut per_path: BTreeMap<String, u64> = BTreeMap::new();
        for t in clip.tracks() {
            *per_path.entry(t.property.name().to_owned()).or_default() += 1;
        }
        if !clip.morph_tracks().is_empty() {
            per_path.insert("weights".into(), clip.morph_tracks().len() as u64);
        }
        let skipped = (asset.clip_channel_count(i) - clip.tracks().len() - clip.morph_tracks().len()) as u64;
        let expected: BTreeMap<String, u64> = anim["channels_per_path"]
            .as_object()
            .unwrap()
            .iter()
            .map(|(k, v)| (k.clone(), v.as_u64().unwrap()))
            .collect();
        assert_eq!(per_path, expected, "{file}: animation {i} channels per path");

        if skipped == 0 {
            // Every channel became a track: the core clip's own timing matches too.
            assert!(close(clip.duration(), duration), "{file}: animation {i} clip duration {}", clip.duration());
            assert!(close(clip.start(), start_time), "{file}: animation {i} clip start {}", clip.start());
            let morph_keys = clip.morph_tracks().iter().map(|t| t.times.len());
            let max_keys = clip.tracks().iter().map(|t| t.key_count()).chain(morph_keys).max().unwrap_or(0) as u64;
            assert_eq!(max_keys, anim["max_keyframes_per_sampler"].as_u64().unwrap(), "{file}: animation {i} max keys");
            let interps: BTreeSet<&str> = clip
                .tracks()
                .iter()
                .map(|t| t.interpolation)
                .chain(clip.morph_tracks().iter().map(|t| t.interpolation))
                .map(|i| match i {
                    Interpolation::Linear => "LINEAR",
                    Interpolation::Step => "STEP",
                    Interpolation::CubicSpline => "CUBICSPLINE",
                })
                .collect();
            let expected: BTreeSet<&str> =
                anim["interpolations"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
            assert_eq!(interps, expected, "{file}: animation {i} interpolations");
            let morphed = clip.morph_tracks().iter().map(|t| t.node);
            let targets: BTreeSet<u32> = clip.tracks().iter().map(|t| t.node).chain(morphed).collect();
            assert_eq!(targets.len() as u64, anim["target_nodes"].as_u64().unwrap(), "{file}: animation {i} targets");
            let animated_joints = targets.iter().filter(|n| joint_nodes.contains(n)).count() as u64;
            assert_eq!(animated_joints, anim["animated_joints"].as_u64().unwrap(), "{file}: animation {i} joints");
            assert_eq!(
                targets.len() as u64 - animated_joints,
                anim["targets_non_joint_nodes"].as_u64().unwrap(),
                "{file}: animation {i} non-joint targets"
            );
        }
    }
}

/// Independent raw read of a GLB: JSON and BIN chunk, float accessors only.
struct RawGlb {
    json: Value,
    bin: Vec<u8>,
}

impl RawGlb {
    fn open(path: &Path) -> Option<RawGlb> {
        let bytes = std::fs::read(path).ok()?;
        if !bytes.starts_with(b"glTF") {
            return None;
        }
        let json_len = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
        let json: Value = serde_json::from_slice(&bytes[20..20 + json_len]).unwrap();
        let bin_at = 20 + json_len + 8;
        Some(RawGlb { json, bin: bytes[bin_at..].to_vec() })
    }

    /// Float component `c` of element `e` of accessor `a`, or `None` when not float.
    fn float(&self, a: usize, e: usize, c: usize) -> Option<f32> {
        let acc = &self.json["accessors"][a];
        if acc["componentType"].as_u64()? != 5126 {
            return None;
        }
        let width = match acc["type"].as_str()? {
            "SCALAR" => 1,
            "VEC3" => 3,
            "VEC4" => 4,
            _ => return None,
        };
        let view = &self.json["bufferViews"][acc["bufferView"].as_u64()? as usize];
        let stride = view["byteStride"].as_u64().unwrap_or(width * 4) as usize;
        let at = view["byteOffset"].as_u64().unwrap_or(0) as usize
            + acc["byteOffset"].as_u64().unwrap_or(0) as usize
            + e * stride
            + c * 4;
        Some(f32::from_le_bytes(self.bin[at..at + 4].try_into().unwrap()))
    }
}

fn check_raw_keys(asset: &GltfAsset, raw: &RawGlb) -> usize {
    let mut checked = 0;
    for (a, clip) in asset.clips.iter().enumerate() {
        let anim = &raw.json["animations"][a];
        for t in clip.tracks() {
            // The track's channel: the one targeting this node and path.
            let channel = anim["channels"]
                .as_array()
                .unwrap()
                .iter()
                .find(|c| {
                    c["target"]["node"].as_u64() == Some(u64::from(t.node))
                        && c["target"]["path"].as_str() == Some(t.property.name())
                })
                .unwrap();
            let sampler = &anim["samplers"][channel["sampler"].as_u64().unwrap() as usize];
            let input = sampler["input"].as_u64().unwrap() as usize;
            let output = sampler["output"].as_u64().unwrap() as usize;
            let last = t.key_count() - 1;
            assert_eq!(Some(t.times[0]), raw.float(input, 0, 0), "{}: first time", asset.file_name);
            assert_eq!(Some(t.times[last]), raw.float(input, last, 0), "{}: last time", asset.file_name);
            for c in 0..t.property.components() {
                let Some(v) = raw.float(output, 0, c) else { continue };
                assert_eq!(t.key_value(0)[c], v, "{}: first {} key", asset.file_name, t.property.name());
                let Some(v) = raw.float(output, last, c) else { continue };
                assert_eq!(t.key_value(last)[c], v, "{}: last {} key", asset.file_name, t.property.name());
                checked += 1;
            }
        }
    }
    checked
}

#[test]
fn every_shared_asset_matches_its_manifest() {
    let Some(dir) = shared_assets() else { return };
    let manifest: Value = serde_json::from_slice(&std::fs::read(dir.join("manifest.json")).unwrap()).unwrap();
    let entries = manifest["assets"].as_array().unwrap();
    assert!(entries.len() >= 10);
    for entry in entries {
        let facts = &entry["facts"];
        let file = facts["file"].as_str().unwrap();
        let asset = load_gltf(&dir.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert_eq!(asset.file_name, file);
        assert_eq!(asset.nodes.len() as u64, facts["node_count"].as_u64().unwrap(), "{file}: nodes");
        let unnamed = asset.nodes.iter().filter(|n| n.name.is_none()).count() as u64;
        assert_eq!(unnamed, facts["unnamed_node_count"].as_u64().unwrap(), "{file}: unnamed nodes");
        check_skins(&asset, facts);
        check_clips(&asset, facts);
        if let Some(raw) = RawGlb::open(&dir.join(file)) {
            let checked = check_raw_keys(&asset, &raw);
            let tracks: usize = asset.clips.iter().map(|c| c.tracks().len()).sum();
            assert!(tracks == 0 || checked > 0, "{file}: no key sampled");
        }
    }
}

#[test]
fn fox_has_three_clips_on_one_skin_and_exact_rotation_keys() {
    let Some(dir) = shared_assets() else { return };
    let fox = load_gltf(&dir.join("Fox.glb")).unwrap();
    assert_eq!(fox.stem, "Fox");
    let names: Vec<&str> = fox.clips.iter().map(|c| c.name()).collect();
    assert_eq!(names, ["Survey", "Walk", "Run"]);
    assert_eq!(fox.clip("Fox_Walk").unwrap().0, 1);
    assert_eq!(fox.clip("2").unwrap().1.name(), "Run");
    assert!(fox.clip("3").is_none() && fox.clip("Trot").is_none());
    let skel = &fox.skeletons[0];
    assert_eq!(skel.joint_count(), 24);
    assert_eq!(skel.joints()[0].name.as_deref(), Some("_rootJoint"));
    // Rotation keys are stored as authored: unit quaternions within float precision.
    let raw = RawGlb::open(&dir.join("Fox.glb")).unwrap();
    let walk = &fox.clips[1];
    let rot = walk.tracks().iter().find(|t| t.property == TrackProperty::Rotation).unwrap();
    let q = rot.key_value(0);
    assert!(((q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]).sqrt() - 1.0).abs() < 1e-3);
    let channel = raw.json["animations"][1]["channels"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["target"]["node"].as_u64() == Some(u64::from(rot.node)) && c["target"]["path"] == "rotation")
        .unwrap();
    let output = raw.json["animations"][1]["samplers"][channel["sampler"].as_u64().unwrap() as usize]["output"]
        .as_u64()
        .unwrap() as usize;
    for (c, v) in q.iter().enumerate() {
        assert_eq!(Some(*v), raw.float(output, 0, c));
    }
}

#[test]
fn morph_cube_loads_its_weights_channel_as_a_morph_track() {
    let Some(dir) = shared_assets() else { return };
    let cube = load_gltf(&dir.join("AnimatedMorphCube.glb")).unwrap();
    assert!(cube.skeletons.is_empty());
    assert_eq!(cube.clips.len(), 1);
    assert!(cube.clips[0].tracks().is_empty());
    assert_eq!(cube.clip_channel_count(0), 1);
    assert!(cube.warnings.is_empty(), "{:?}", cube.warnings);
    let [track] = cube.clips[0].morph_tracks() else { panic!("one weights track") };
    assert_eq!((track.node, track.targets), (0, 2));
    assert_eq!(track.node_name.as_deref(), Some("AnimatedMorphCube"));
    assert_eq!(track.values.len(), track.times.len() * 2);
    // The clip's length covers the weights keys (4.2 s in the manifest).
    assert!((cube.clips[0].duration() - 4.2).abs() < 1e-4);
    let [node] = cube.morph_nodes.as_slice() else { panic!("one morphed node") };
    assert_eq!((node.node, node.targets()), (0, 2));
    assert!(node.ancestors.is_empty());
    assert_eq!(node.weights, [0.0, 0.0]);
}

#[test]
fn greenman_props_have_no_skins_and_no_clips_and_match_the_body_by_name() {
    let Some(dir) = shared_assets() else { return };
    let body = load_gltf(&dir.join("greenman.glb")).unwrap();
    for prop in ["greenman_hat.glb", "greenman_sword.glb", "greenman_shield.glb"] {
        let asset = load_gltf(&dir.join(prop)).unwrap();
        assert!(asset.skeletons.is_empty() && asset.clips.is_empty(), "{prop}");
        assert!(asset.warnings.is_empty(), "{prop}: {:?}", asset.warnings);
    }
    // greenman's clips, seen as an animation-only file, match greenman's skeleton
    // rather than the Fox's.
    let fox = load_gltf(&dir.join("Fox.glb")).unwrap();
    let candidates = vec![fox.skeletons[0].clone(), body.skeletons[0].clone()];
    let matched = body.match_skeleton(&candidates).unwrap();
    assert_eq!(matched.name(), "Armature");
    assert_eq!(matched.joint_count(), 12);
    let err = body.match_skeleton(&candidates[..1]).unwrap_err().to_string();
    assert!(err.starts_with("greenman.glb: no candidate skeleton shares a bone name"), "{err}");
}

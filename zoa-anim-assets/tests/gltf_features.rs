//! Valid glTF features beyond the shared assets: every interpolation,
//! normalized rotations, sparse accessors, data URIs and external buffers,
//! nested skins, matrix nodes, unnamed animations, non-joint node tracks.

mod gltf_support;

use gltf_support::{ROTATIONS, TIMES, TRANSLATIONS, minimal};
use serde_json::json;
use zoa_anim_assets::gltf::{load_gltf, load_gltf_slice};
use zoa_anim_core::{Interpolation, TrackProperty};
use zoa_test_support::paths::temp_dir;

#[test]
fn skeleton_joints_parents_rest_and_inverse_binds() {
    let asset = load_gltf_slice(&minimal().to_glb(), None, "mini.glb").unwrap();
    let s = &asset.skeletons[0];
    assert_eq!(s.name(), "Armature");
    assert_eq!(asset.skin_names, [Some("Armature".to_owned())]);
    assert_eq!(s.joints()[0].node, 1);
    assert_eq!(s.joints()[0].parent, None, "hip's parent node 0 is not a joint");
    assert_eq!(s.joints()[1].parent, Some(0));
    assert_eq!(s.joints()[1].rest.translation.y, 0.5);
    assert_eq!(s.joints()[1].inverse_bind.w_axis.y, -1.0);
    assert_eq!(asset.nodes[2].parent, Some(1));
    assert_eq!(asset.nodes[0].parent, None);
}

#[test]
fn linear_tracks_keep_node_name_times_and_values() {
    let asset = load_gltf_slice(&minimal().to_glb(), None, "mini.glb").unwrap();
    let clip = &asset.clips[0];
    assert_eq!(clip.name(), "Walk");
    assert_eq!(clip.duration(), 1.0);
    let rot = &clip.tracks()[0];
    assert_eq!((rot.node, rot.node_name.as_deref(), rot.property), (2, Some("spine"), TrackProperty::Rotation));
    assert_eq!(rot.times, [0.0, 0.5, 1.0]);
    assert_eq!(rot.key_value(2), [0.0, 1.0, 0.0, 0.0]);
    assert_eq!(clip.tracks()[1].key_value(1), [0.0, 1.5, 0.0]);
}

#[test]
fn cubicspline_keeps_tangents_in_gltf_layout_and_step_is_kept() {
    let mut doc = minimal();
    let values: Vec<f32> = (0..27).map(|i| i as f32).collect();
    let out = doc.add_floats(&values, "VEC3", 9);
    doc.json["animations"][0]["samplers"][1]["output"] = json!(out);
    doc.json["animations"][0]["samplers"][1]["interpolation"] = json!("CUBICSPLINE");
    doc.json["animations"][0]["samplers"][0]["interpolation"] = json!("STEP");
    let asset = load_gltf_slice(&doc.to_glb(), None, "cubic.glb").unwrap();
    let t = &asset.clips[0].tracks()[1];
    assert_eq!(t.interpolation, Interpolation::CubicSpline);
    assert_eq!(t.values, values, "in-tangent, value, out-tangent per key, as stored");
    assert_eq!(t.key_value(1), [12.0, 13.0, 14.0]);
    assert_eq!(asset.clips[0].tracks()[0].interpolation, Interpolation::Step);
}

#[test]
fn normalized_integer_rotations_decode_per_spec() {
    // (componentType, raw little-endian bytes of x, y, z, w for one key, expected floats)
    let i8s: Vec<u8> = [-127i8, 0, 64, 127].iter().map(|&v| v as u8).collect();
    let u8s: Vec<u8> = vec![0, 255, 51, 255];
    let i16s: Vec<u8> = [i16::MIN, -32767, 0, 32767].iter().flat_map(|v| v.to_le_bytes()).collect();
    let u16s: Vec<u8> = [0u16, 65535, 13107, 65535].iter().flat_map(|v| v.to_le_bytes()).collect();
    let cases: [(u32, Vec<u8>, [f32; 4]); 4] = [
        (5120, i8s, [-1.0, 0.0, 64.0 / 127.0, 1.0]),
        (5121, u8s, [0.0, 1.0, 0.2, 1.0]),
        (5122, i16s, [-1.0, -1.0, 0.0, 1.0]),
        (5123, u16s, [0.0, 1.0, 0.2, 1.0]),
    ];
    for (component, key, expected) in cases {
        let mut doc = minimal();
        let a = doc.add_accessor(&key.repeat(3), "VEC4", component, 3, true);
        doc.json["animations"][0]["samplers"][0]["output"] = json!(a);
        let asset = load_gltf_slice(&doc.to_glb(), None, "norm.glb").unwrap();
        let got = asset.clips[0].tracks()[0].key_value(2);
        // These keys are far from unit length, so the loader normalizes them
        // (see `rotation keys` in the gltf module): compare directions.
        let len = expected.iter().map(|e| e * e).sum::<f32>().sqrt();
        for (g, e) in got.iter().zip(expected) {
            assert!((g - e / len).abs() < 1e-6, "componentType {component}: {got:?} vs {expected:?}");
        }
    }
}

#[test]
fn sparse_accessors_substitute_values() {
    let mut doc = minimal();
    let idx = doc.add_accessor(&[2u8], "SCALAR", 5121, 1, false);
    let idx_view = doc.json["accessors"][idx]["bufferView"].clone();
    let val = doc.add_floats(&[2.0], "SCALAR", 1);
    let val_view = doc.json["accessors"][val]["bufferView"].clone();
    doc.json["accessors"][TIMES]["sparse"] = json!({"count": 1, "indices": {"bufferView": idx_view, "componentType": 5121}, "values": {"bufferView": val_view}});
    let asset = load_gltf_slice(&doc.to_glb(), None, "sparse.glb").unwrap();
    assert_eq!(asset.clips[0].tracks()[0].times, [0.0, 0.5, 2.0]);
    assert_eq!(asset.clips[0].duration(), 2.0);
}

#[test]
fn a_weights_channel_on_a_node_without_morph_targets_is_skipped_with_a_warning() {
    let mut doc = minimal();
    let weights = doc.add_floats(&[0.0, 1.0, 0.5], "SCALAR", 3);
    let times = doc.add_floats(&[0.0, 1.0, 3.0], "SCALAR", 3);
    doc.add_animation(
        None,
        &[(times, weights, 3, "weights", "LINEAR"), (TIMES, TRANSLATIONS, 1, "translation", "STEP")],
    );
    let asset = load_gltf_slice(&doc.to_glb(), None, "morph.glb").unwrap();
    let clip = &asset.clips[1];
    assert_eq!(clip.name(), "animation1");
    assert_eq!(clip.tracks().len(), 1);
    assert!(clip.morph_tracks().is_empty());
    assert_eq!(asset.clip_channel_count(1), 2);
    assert_eq!(asset.clip_time_range(1), (0.0, 3.0));
    assert_eq!(clip.duration(), 1.0);
    assert_eq!(asset.warnings.len(), 1);
    assert!(
        asset.warnings[0].contains(
            "morph.glb: animation 1 channel 0: weights channel on node 3 \"body\" skipped: the node has no mesh with \
             morph targets"
        ),
        "{:?}",
        asset.warnings
    );
    assert_eq!(asset.clip("morph_animation1").unwrap().0, 1);
    assert_eq!(asset.clip("1").unwrap().0, 1);
}

#[test]
fn weights_channels_become_morph_tracks_with_the_node_defaults() {
    for (interpolation, per_key) in [("STEP", 1), ("LINEAR", 1), ("CUBICSPLINE", 3)] {
        let mut doc = minimal();
        doc.add_morph_mesh(3, 2, Some(&[0.25, 0.5]));
        let values: Vec<f32> = (0..3 * 2 * per_key).map(|i| i as f32 * 0.1).collect();
        let weights = doc.add_floats(&values, "SCALAR", values.len());
        let times = doc.add_floats(&[0.0, 1.0, 3.0], "SCALAR", 3);
        doc.add_animation(Some("Blink"), &[(times, weights, 3, "weights", interpolation)]);
        let asset = load_gltf_slice(&doc.to_glb(), None, "morph.glb").unwrap();
        assert!(asset.warnings.is_empty(), "{interpolation}: {:?}", asset.warnings);
        let (_, clip) = asset.clip("Blink").unwrap();
        let [track] = clip.morph_tracks() else { panic!("{interpolation}: one morph track") };
        assert_eq!((track.node, track.targets, track.node_name.as_deref()), (3, 2, Some("body")));
        assert_eq!(track.values, values);
        assert_eq!(clip.duration(), 3.0);
        let [node] = asset.morph_nodes.as_slice() else { panic!("one morphed node") };
        assert_eq!((node.node, node.weights.as_slice()), (3, [0.25, 0.5].as_slice()), "the mesh's weights");
        assert!(node.ancestors.is_empty(), "node 3 is a scene root");
    }
    // The node's own weights win over the mesh's; a wrong-length array is a warning.
    let mut doc = minimal();
    doc.add_morph_mesh(3, 2, Some(&[0.25, 0.5]));
    doc.json["nodes"][3]["weights"] = json!([1.0, 0.0]);
    let asset = load_gltf_slice(&doc.to_glb(), None, "morph.glb").unwrap();
    assert_eq!(asset.morph_nodes[0].weights, [1.0, 0.0]);
    doc.json["nodes"][3]["weights"] = json!([1.0]);
    let asset = load_gltf_slice(&doc.to_glb(), None, "morph.glb").unwrap();
    assert_eq!(asset.morph_nodes[0].weights, [0.25, 0.5]);
    assert!(asset.warnings[0].contains("node 3 \"body\": node `weights` has 1 finite values of 1 for 2 morph targets"));
    // A morphed node under a joint lists its ancestors, nearest first.
    let mut doc = minimal();
    doc.json["nodes"][2]["children"] = json!([4]);
    doc.json["nodes"].as_array_mut().unwrap().push(json!({"name": "face"}));
    doc.add_morph_mesh(4, 1, None);
    let asset = load_gltf_slice(&doc.to_glb(), None, "morph.glb").unwrap();
    assert_eq!(asset.morph_nodes[0].ancestors, [2, 1, 0]);
    assert_eq!(asset.morph_nodes[0].weights, [0.0]);
}

#[test]
fn a_repeated_key_time_is_a_step_kept_with_a_warning() {
    let mut doc = minimal();
    let values = doc.add_floats(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 2.0, 0.0, 0.0, 3.0, 0.0, 0.0], "VEC3", 4);
    let times = doc.add_floats(&[0.0, 1.0, 1.0, 2.0], "SCALAR", 4);
    doc.add_animation(Some("Step"), &[(times, values, 1, "translation", "LINEAR")]);
    let asset = load_gltf_slice(&doc.to_glb(), None, "step.glb").unwrap();
    let warning = asset.warnings.iter().find(|w| w.contains("repeats key time")).expect("a warning");
    assert!(warning.starts_with("step.glb: animation 1 \"Step\" channel 0:"), "{warning}");
    assert!(warning.contains("repeats key time 1 s at key 2"), "{warning}");
    // The keys are kept as written (the runtime plays the repeat as a step).
    let (index, _) = asset.clip("Step").unwrap();
    let clip = &asset.clips[index];
    assert_eq!(clip.duration(), 2.0);
    assert_eq!(clip.tracks()[0].times, [0.0, 1.0, 1.0, 2.0]);
}

#[test]
fn clips_starting_after_zero_keep_their_times() {
    let mut doc = minimal();
    for (i, t) in [0.25f32, 0.5, 1.25].iter().enumerate() {
        doc.set_f32(TIMES, i, *t);
    }
    let asset = load_gltf_slice(&doc.to_glb(), None, "late.glb").unwrap();
    assert_eq!(asset.clips[0].start(), 0.25);
    assert_eq!(asset.clips[0].duration(), 1.25);
    assert_eq!(asset.clip_time_range(0), (0.25, 1.25));
}

#[test]
fn tracks_on_non_joint_nodes_stay_usable() {
    let mut doc = minimal();
    doc.add_animation(Some("Spin"), &[(TIMES, ROTATIONS, 0, "rotation", "LINEAR")]);
    let asset = load_gltf_slice(&doc.to_glb(), None, "spin.glb").unwrap();
    let t = &asset.clips[1].tracks()[0];
    assert_eq!((t.node, t.node_name.as_deref()), (0, Some("root")));
    assert!(asset.skeletons[0].find_node(0).is_none());
}

#[test]
fn several_skins_and_a_skin_nested_under_another_skins_joint() {
    let mut doc = minimal();
    // node 4 "weapon" under joint node 2, node 5 "blade" under it; a second skin [4, 5].
    doc.json["nodes"][2]["children"] = json!([4]);
    doc.json["nodes"].as_array_mut().unwrap().push(json!({"name": "weapon", "children": [5], "matrix": [
        2.0, 0.0, 0.0, 0.0,  0.0, 2.0, 0.0, 0.0,  0.0, 0.0, 2.0, 0.0,  1.0, 2.0, 3.0, 1.0]}));
    doc.json["nodes"].as_array_mut().unwrap().push(json!({"children": []}));
    doc.json["skins"].as_array_mut().unwrap().push(json!({"joints": [5, 4]}));
    let asset = load_gltf_slice(&doc.to_glb(), None, "nested.glb").unwrap();
    assert_eq!(asset.skeletons.len(), 2);
    let s = &asset.skeletons[1];
    assert_eq!(s.name(), "nested_skin1");
    assert_eq!(asset.skin_names[1], None);
    assert_eq!(s.display_name(0), "node5");
    assert_eq!(s.joints()[0].parent, Some(1), "blade's parent is weapon, listed after it");
    assert_eq!(s.joints()[1].parent, None, "weapon's ancestors are joints of the other skin only");
    assert_eq!(s.eval_order(), [1, 0]);
    let rest = s.joints()[1].rest;
    assert_eq!(rest.translation.to_array(), [1.0, 2.0, 3.0]);
    assert!((rest.scale - zoa_anim_core::glam::Vec3::splat(2.0)).abs().max_element() < 1e-6);
    assert_eq!(s.joints()[1].inverse_bind, zoa_anim_core::glam::Mat4::IDENTITY, "no inverseBindMatrices = identity");
}

#[test]
fn data_uris_and_external_buffers_load() {
    let doc = minimal();
    let embedded = load_gltf_slice(&doc.to_gltf_embedded(), None, "embedded.gltf").unwrap();
    assert_eq!(embedded.clips[0].tracks()[0].key_value(1)[1], std::f32::consts::FRAC_1_SQRT_2);

    let tmp = temp_dir("external");

    let dir = tmp.path();
    std::fs::write(dir.join("my buffer.bin"), &doc.bin).unwrap();
    std::fs::write(dir.join("scene.gltf"), doc.to_gltf_external("my%20buffer.bin")).unwrap();
    let external = load_gltf(&dir.join("scene.gltf")).unwrap();
    assert_eq!(external.file_name, "scene.gltf");
    assert_eq!(external.stem, "scene");
    assert_eq!(external.clips, embedded.clips);

    std::fs::write(dir.join("missing.gltf"), doc.to_gltf_external("nope.bin")).unwrap();
    let err = load_gltf(&dir.join("missing.gltf")).unwrap_err().to_string();
    assert!(err.starts_with("missing.gltf: buffer 0 (\"nope.bin\"): cannot open"), "{err}");

    std::fs::write(dir.join("absolute.gltf"), doc.to_gltf_external("/etc/passwd")).unwrap();
    let err = load_gltf(&dir.join("absolute.gltf")).unwrap_err().to_string();
    assert!(err.contains("absolute path"), "{err}");

    let err = load_gltf(&dir.join("not_there.glb")).unwrap_err().to_string();
    assert!(err.contains("not_there.glb"), "{err}");
}

#[test]
fn unreferenced_broken_buffers_do_not_matter() {
    let mut doc = minimal();
    doc.json["buffers"].as_array_mut().unwrap().push(json!({"uri": "textures_only.bin", "byteLength": 10}));
    assert!(load_gltf_slice(&doc.to_glb(), None, "extra.glb").is_ok());
}

#[test]
fn singular_matrices_keep_translation_and_scale() {
    let mut doc = minimal();
    doc.json["nodes"][3]["matrix"] =
        json!([0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 4.0, 5.0, 6.0, 1.0]);
    let asset = load_gltf_slice(&doc.to_glb(), None, "hidden.glb").unwrap();
    let rest = asset.nodes[3].rest;
    assert!(rest.is_finite());
    assert_eq!(rest.translation.to_array(), [4.0, 5.0, 6.0]);
    assert_eq!(rest.scale.to_array(), [0.0; 3]);
}

mod roundtrip {
    use proptest::prelude::*;

    use super::*;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 64, .. ProptestConfig::default() })]

        /// Any non-decreasing finite times and unit rotations come back bit-exact,
        /// through GLB and through a base64 data URI alike.
        #[test]
        fn keys_come_back_exactly(
            steps in prop::collection::vec(0.0f32..2.0, 1..40),
            seed in prop::collection::vec(-1.0e6f32..1.0e6, 160),
            start in 0.0f32..10.0,
        ) {
            let mut times = Vec::with_capacity(steps.len());
            let mut t = start;
            for s in &steps {
                times.push(t);
                t += s;
            }
            let n = times.len();
            // Rotation keys are unit quaternions (keys far from unit length are normalized on load).
            let rotations: Vec<f32> = seed
                .chunks_exact(4)
                .cycle()
                .take(n)
                .flat_map(|q| {
                    let len = q.iter().map(|c| c * c).sum::<f32>().sqrt();
                    if len > 0.0 { [q[0] / len, q[1] / len, q[2] / len, q[3] / len] } else { [0.0, 0.0, 0.0, 1.0] }
                })
                .collect();
            let mut doc = minimal();
            let input = doc.add_floats(&times, "SCALAR", n);
            let output = doc.add_floats(&rotations, "VEC4", n);
            doc.json["animations"][0]["samplers"][0] = json!({"input": input, "output": output, "interpolation": "STEP"});
            for bytes in [doc.to_glb(), doc.to_gltf_embedded()] {
                let asset = load_gltf_slice(&bytes, None, "rt.gltf").unwrap();
                let track = &asset.clips[0].tracks()[0];
                prop_assert_eq!(&track.times, &times);
                prop_assert_eq!(&track.values, &rotations);
                prop_assert_eq!(asset.clip_time_range(0).0, start.min(0.0));
                prop_assert_eq!(asset.clips[0].duration(), times[n - 1].max(1.0));
            }
        }
    }
}

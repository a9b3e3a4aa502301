//! Shared helpers for the glTF integration tests: the in-memory document
//! builder (from `zoa-test-support`) and every malformed case, each a minimal
//! valid file with one defect.

#![allow(dead_code)]

use serde_json::json;

pub use zoa_test_support::gltf::*;

/// One malformed input and a fragment its error message must contain.
#[derive(Debug, Clone)]
pub struct Case {
    /// Short name; also the corpus file stem.
    pub name: &'static str,
    /// File name given to the loader (its extension picks GLB or JSON handling).
    pub file: String,
    pub bytes: Vec<u8>,
    pub expect: &'static str,
}

fn glb_case(name: &'static str, doc: &Doc, expect: &'static str) -> Case {
    Case { name, file: format!("{name}.glb"), bytes: doc.to_glb(), expect }
}

fn edited(edit: impl FnOnce(&mut Doc)) -> Doc {
    let mut doc = minimal();
    edit(&mut doc);
    doc
}

/// Every documented malformed case, each a minimal valid file with one defect.
pub fn malformed_cases() -> Vec<Case> {
    let valid = minimal().to_glb();
    let mut cases = Vec::new();
    let mut raw = |name: &'static str, bytes: Vec<u8>, expect: &'static str| {
        cases.push(Case { name, file: format!("{name}.glb"), bytes, expect });
    };
    raw("truncated_header", valid[..7].to_vec(), "shorter than the 12-byte header");
    raw("truncated_body", valid[..valid.len() / 2].to_vec(), "(truncated)");
    let mut small_len = valid.clone();
    small_len[8..12].copy_from_slice(&8u32.to_le_bytes());
    raw("header_length_below_12", small_len, "smaller than the 12-byte header");
    let mut v1 = valid.clone();
    v1[4] = 1;
    raw("version_1", v1, "version is 1");
    let mut magic = valid.clone();
    magic[0] = b'X';
    raw("bad_magic", magic, "magic is not \"glTF\"");
    let mut chunk = valid.clone();
    chunk[12..16].copy_from_slice(&0x7fff_ffffu32.to_le_bytes());
    raw("json_chunk_too_long", chunk, "runs past the end of the file");
    let mut bin_chunk = valid.clone();
    let json_len = u32::from_le_bytes([valid[12], valid[13], valid[14], valid[15]]) as usize;
    let bin_at = 20 + json_len;
    bin_chunk[bin_at..bin_at + 4].copy_from_slice(&u32::MAX.to_le_bytes());
    raw("bin_chunk_too_long", bin_chunk, "BIN. chunk length 4294967295 runs past");
    let mut json_garbage = valid.clone();
    json_garbage[20] = b'!';
    raw("json_syntax", json_garbage, "JSON:");

    cases.push(glb_case(
        "sampler_input_out_of_range",
        &edited(|d| d.json["animations"][0]["samplers"][0]["input"] = json!(99)),
        "animations[0].samplers[0].input",
    ));
    cases.push(glb_case(
        "channel_sampler_out_of_range",
        &edited(|d| d.json["animations"][0]["channels"][1]["sampler"] = json!(7)),
        "channels[1].sampler",
    ));
    cases.push(glb_case(
        "channel_target_node_out_of_range",
        &edited(|d| d.json["animations"][0]["channels"][0]["target"]["node"] = json!(42)),
        "animation 0 \"Walk\" channel 0: target node 42 does not exist (4 nodes)",
    ));
    cases.push(glb_case(
        "channel_path_bogus",
        &edited(|d| d.json["animations"][0]["channels"][0]["target"]["path"] = json!("wobble")),
        "animation 0 \"Walk\" channel 0: target path is not one of",
    ));
    cases.push(glb_case(
        "interpolation_bogus",
        &edited(|d| d.json["animations"][0]["samplers"][0]["interpolation"] = json!("SMOOTH")),
        "interpolation",
    ));
    cases.push(glb_case(
        "rotation_u32",
        &edited(|d| d.json["accessors"][ROTATIONS]["componentType"] = json!(5125)),
        "channel 0: sampler 0 output accessor 1 is VEC4 UNSIGNED_INT (5125) but a rotation channel needs",
    ));
    cases.push(glb_case(
        "rotation_i16_not_normalized",
        &edited(|d| {
            let bytes: Vec<u8> = [0i16, 0, 0, 32767].repeat(3).iter().flat_map(|v| v.to_le_bytes()).collect();
            let a = d.add_accessor(&bytes, "VEC4", 5122, 3, false);
            d.json["animations"][0]["samplers"][0]["output"] = json!(a);
        }),
        "is VEC4 SHORT (5122) but a rotation channel needs",
    ));
    cases.push(glb_case(
        "rotation_vec3",
        &edited(|d| {
            d.json["accessors"][ROTATIONS]["type"] = json!("VEC3");
            d.json["accessors"][ROTATIONS]["count"] = json!(3);
        }),
        "output accessor 1 is VEC3 FLOAT (5126) but a rotation channel needs",
    ));
    cases.push(glb_case(
        "translation_vec4",
        &edited(|d| d.json["animations"][0]["samplers"][1]["output"] = json!(ROTATIONS)),
        "is VEC4 FLOAT (5126) but a translation channel needs VEC3",
    ));
    cases.push(glb_case(
        "input_vec2",
        &edited(|d| {
            d.json["accessors"][TIMES]["type"] = json!("VEC2");
            d.json["accessors"][TIMES]["count"] = json!(1);
        }),
        "input accessor 0 is VEC2 FLOAT (5126), expected SCALAR FLOAT",
    ));
    cases.push(glb_case(
        "accessor_count_zero",
        &edited(|d| d.json["accessors"][TIMES]["count"] = json!(0)),
        "accessor 0 has count 0",
    ));
    cases.push(glb_case(
        "accessor_count_absurd",
        &edited(|d| d.json["accessors"][ROTATIONS]["count"] = json!(4_000_000_000u64)),
        "needs more than bufferView",
    ));
    cases.push(glb_case(
        "accessor_offset_absurd",
        &edited(|d| d.json["accessors"][TIMES]["byteOffset"] = json!(u64::MAX / 2)),
        "needs more than bufferView",
    ));
    cases.push(glb_case(
        "output_count_mismatch",
        &edited(|d| d.json["accessors"][ROTATIONS]["count"] = json!(2)),
        "has 2 elements for 3 keys (expected 3)",
    ));
    cases.push(glb_case(
        "cubicspline_wrong_count",
        &edited(|d| d.json["animations"][0]["samplers"][0]["interpolation"] = json!("CUBICSPLINE")),
        "has 3 elements for 3 keys (expected 9)",
    ));
    cases.push(glb_case(
        "buffer_view_past_buffer",
        &edited(|d| d.json["bufferViews"][0]["byteLength"] = json!(1_000_000)),
        "exceeds buffer 0 byteLength",
    ));
    cases.push(glb_case(
        "buffer_longer_than_bin",
        &edited(|d| {
            let n = d.bin.len() + 64;
            d.json["buffers"][0]["byteLength"] = json!(n);
            d.json["bufferViews"][0]["byteLength"] = json!(n);
        }),
        "bytes are available",
    ));
    cases.push(glb_case(
        "stride_smaller_than_element",
        &edited(|d| d.json["bufferViews"][ROTATIONS]["byteStride"] = json!(8)),
        "byteStride 8 is smaller than the 16-byte element",
    ));
    cases.push(glb_case(
        "nan_key_time",
        &edited(|d| d.set_f32(TIMES, 1, f32::NAN)),
        "animation 0 \"Walk\" channel 0: sampler input accessor 0 has a negative or non-finite key time at key 1",
    ));
    cases.push(glb_case(
        "infinite_value",
        &edited(|d| d.set_f32(TRANSLATIONS, 4, f32::INFINITY)),
        "channel 1: sampler output accessor 2 has a non-finite value at element 1 component 1",
    ));
    cases.push(glb_case(
        "decreasing_key_times",
        &edited(|d| d.set_f32(TIMES, 2, 0.25)),
        "animation 0 \"Walk\" channel 0: sampler input accessor 0 has decreasing key times at key 2",
    ));
    cases.push(glb_case(
        "negative_key_time",
        &edited(|d| d.set_f32(TIMES, 0, -1.0)),
        "has a negative or non-finite key time at key 0",
    ));
    cases.push(glb_case(
        "node_own_child",
        &edited(|d| d.json["nodes"][2]["children"] = json!([2])),
        "node 2 \"spine\": is its own child",
    ));
    cases.push(glb_case(
        "node_cycle",
        &edited(|d| {
            d.json["nodes"][0]["children"] = json!([]);
            d.json["nodes"][2]["children"] = json!([0]);
            d.json["nodes"][0]["children"] = json!([1]);
            // 0 -> 1 -> 2 -> 0
        }),
        "is part of a parent cycle",
    ));
    cases.push(glb_case(
        "node_two_parents",
        &edited(|d| d.json["nodes"][3]["children"] = json!([2])),
        "node 2 \"spine\": has two parents: node 1 and node 3",
    ));
    cases.push(glb_case(
        "node_child_out_of_range",
        &edited(|d| d.json["nodes"][3]["children"] = json!([9])),
        "nodes[3].children[0]",
    ));
    cases.push(glb_case(
        "skin_joint_out_of_range",
        &edited(|d| d.json["skins"][0]["joints"] = json!([1, 12])),
        "skins[0].joints[1]",
    ));
    cases.push(glb_case(
        "skin_joint_repeated",
        &edited(|d| d.json["skins"][0]["joints"] = json!([1, 2, 1])),
        "skin 0 \"Armature\": joint 2 repeats node 1",
    ));
    cases.push(glb_case(
        "ibm_wrong_type",
        &edited(|d| d.json["skins"][0]["inverseBindMatrices"] = json!(ROTATIONS)),
        "inverseBindMatrices accessor 1 is VEC4 FLOAT (5126), expected MAT4",
    ));
    cases.push(glb_case(
        "ibm_too_few",
        &edited(|d| d.json["skins"][0]["joints"] = json!([0, 1, 2])),
        "has 2 matrices for 3 joints",
    ));
    cases.push(glb_case(
        "duplicate_target",
        &edited(|d| d.json["animations"][0]["channels"][1]["target"] = json!({"node": 2, "path": "rotation"})),
        "animates the same property as an earlier channel",
    ));
    cases.push(glb_case(
        "mesh_position_out_of_range",
        &edited(|d| d.json["meshes"] = json!([{"primitives": [{"attributes": {"POSITION": 77}}]}])),
        "mesh 0 primitive 0: POSITION accessor 77 does not exist",
    ));
    cases.push(glb_case(
        "buffer_uri_not_utf8",
        &edited(|d| d.json["buffers"][0]["uri"] = json!("%FF%FE.bin")),
        "not valid UTF-8 after percent-decoding",
    ));
    cases.push(glb_case(
        "buffer_uri_bad_escape",
        &edited(|d| d.json["buffers"][0]["uri"] = json!("a%G1.bin")),
        "malformed percent escape",
    ));
    cases.push(glb_case(
        "buffer_uri_http",
        &edited(|d| d.json["buffers"][0]["uri"] = json!("https://example.invalid/a.bin")),
        "URI scheme is not supported",
    ));
    cases.push(glb_case(
        "buffer_data_uri_bad_base64",
        &edited(|d| d.json["buffers"][0]["uri"] = json!("data:application/octet-stream;base64,AA*A")),
        "invalid character '*'",
    ));
    cases.push(glb_case(
        "sparse_index_out_of_range",
        &edited(|d| {
            let idx = d.add_accessor(&[7, 0, 0, 0], "SCALAR", 5125, 1, false);
            let view = d.json["accessors"][idx]["bufferView"].clone();
            let val = d.add_floats(&[0.75], "SCALAR", 1);
            let val_view = d.json["accessors"][val]["bufferView"].clone();
            d.json["accessors"][TIMES]["sparse"] = json!({
                "count": 1,
                "indices": {"bufferView": view, "componentType": 5125},
                "values": {"bufferView": val_view}
            });
        }),
        "sparse index at entry 0 is out of range (count 3)",
    ));
    cases.push(Case {
        name: "external_buffer_without_base",
        file: "external_buffer_without_base.gltf".into(),
        bytes: minimal().to_gltf_external("missing.bin"),
        expect: "loaded from memory without a base folder",
    });
    cases.push(Case {
        name: "json_not_gltf",
        file: "json_not_gltf.gltf".into(),
        bytes: b"[1, 2, 3]".to_vec(),
        expect: "JSON:",
    });
    cases.push(glb_case(
        "node_translation_overflows_f32",
        &edited(|d| d.json["nodes"][1]["translation"] = json!([1e39, 0.0, 0.0])),
        "node 1 \"hip\": translation component 0 is not a finite 32-bit float",
    ));
    let morph = |edit: &dyn Fn(&mut Doc, usize, usize)| {
        edited(|d| {
            d.add_morph_mesh(3, 2, None);
            let weights = d.add_floats(&[0.0; 6], "SCALAR", 6);
            let times = d.add_floats(&[0.0, 1.0, 3.0], "SCALAR", 3);
            edit(d, times, weights);
        })
    };
    cases.push(glb_case(
        "weights_output_count",
        &morph(&|d, times, _| {
            let short = d.add_floats(&[0.0; 5], "SCALAR", 5);
            d.add_animation(None, &[(times, short, 3, "weights", "LINEAR")]);
        }),
        "has 5 elements for 3 keys (expected 6)",
    ));
    cases.push(glb_case(
        "weights_output_type",
        &morph(&|d, times, _| {
            let vec3 = d.add_floats(&[0.0; 9], "VEC3", 3);
            d.add_animation(None, &[(times, vec3, 3, "weights", "STEP")]);
        }),
        "but a weights channel needs SCALAR FLOAT",
    ));
    cases.push(glb_case(
        "weights_value_not_finite",
        &morph(&|d, times, weights| {
            d.set_f32(weights, 4, f32::NAN);
            d.add_animation(None, &[(times, weights, 3, "weights", "LINEAR")]);
        }),
        "has a non-finite value at element 2 component 0",
    ));
    cases.push(glb_case(
        "node_weights_overflow_f32",
        &morph(&|d, _, _| d.json["nodes"][3]["weights"] = json!([1e39, 0.0])),
        "node 3 \"body\": weights component 0 is not a finite 32-bit float",
    ));
    cases.push(glb_case(
        "mesh_weights_overflow_f32",
        &morph(&|d, _, _| d.json["meshes"][0]["weights"] = json!([0.0, -1e39])),
        "mesh 0: weights component 1 is not a finite 32-bit float",
    ));
    cases
}

//! Malformed glTF: each documented failure is an `Err` naming the file and
//! the element, never a panic; random corruption of a valid file never panics.

mod gltf_support;

use gltf_support::{Case, malformed_cases, minimal};
use proptest::prelude::*;
use zoa_anim_assets::AssetError;
use zoa_anim_assets::gltf::load_gltf_slice;

fn check_case(case: &Case) {
    let result = load_gltf_slice(&case.bytes, None, &case.file);
    let err = match result {
        Ok(_) => panic!("{}: loaded although malformed", case.name),
        Err(e) => e.to_string(),
    };
    assert!(err.starts_with(&format!("{}: ", case.file)), "{}: message does not start with the file: {err}", case.name);
    assert!(err.contains(case.expect), "{}: expected {:?} in:\n{err}", case.name, case.expect);
}

#[test]
fn the_minimal_document_is_valid() {
    let asset = load_gltf_slice(&minimal().to_glb(), None, "minimal.glb").unwrap();
    assert_eq!(asset.skeletons.len(), 1);
    assert_eq!(asset.clips.len(), 1);
    assert!(asset.warnings.is_empty(), "{:?}", asset.warnings);
}

#[test]
fn every_malformed_case_is_an_error_with_file_and_element() {
    let cases = malformed_cases();
    assert!(cases.len() >= 40);
    for case in &cases {
        check_case(case);
    }
}

#[test]
fn every_prefix_of_a_valid_glb_is_an_error() {
    let bytes = minimal().to_glb();
    for len in 0..bytes.len() {
        let result = load_gltf_slice(&bytes[..len], None, "cut.glb");
        assert!(result.is_err(), "prefix of {len} bytes loaded");
    }
}

#[test]
fn several_problems_are_reported_together() {
    let mut doc = minimal();
    doc.json["animations"][0]["channels"][0]["target"]["node"] = serde_json::json!(40);
    doc.json["animations"][0]["channels"][1]["target"]["path"] = serde_json::json!("bogus");
    doc.json["skins"][0]["joints"] = serde_json::json!([1, 1]);
    let Err(AssetError::MalformedGltf { file, problems }) = load_gltf_slice(&doc.to_glb(), None, "multi.glb") else {
        panic!("expected MalformedGltf");
    };
    assert_eq!(file, "multi.glb");
    let elements: Vec<&str> = problems.iter().map(|p| p.element.as_str()).collect();
    assert_eq!(elements, ["skin 0 \"Armature\"", "animation 0 \"Walk\" channel 0", "animation 0 \"Walk\" channel 1"]);
}

#[test]
fn a_hostile_number_of_problems_is_capped() {
    let mut doc = minimal();
    let channels: Vec<_> =
        (0..500).map(|i| serde_json::json!({"sampler": 0, "target": {"node": 1000 + i, "path": "rotation"}})).collect();
    doc.json["animations"][0]["channels"] = serde_json::json!(channels);
    let Err(AssetError::MalformedGltf { problems, .. }) = load_gltf_slice(&doc.to_glb(), None, "many.glb") else {
        panic!("expected MalformedGltf");
    };
    assert_eq!(problems.len(), zoa_anim_assets::MAX_REPORTED_PROBLEMS + 1);
    assert!(problems.last().unwrap().reason.contains("more problem(s) not shown"));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, .. ProptestConfig::default() })]

    /// Overwriting a few bytes anywhere (header, JSON, binary) never panics.
    #[test]
    fn corrupted_bytes_never_panic(edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..6)) {
        let mut bytes = minimal().to_glb();
        for (at, value) in edits {
            let i = at.index(bytes.len());
            bytes[i] = value;
        }
        let _ = load_gltf_slice(&bytes, None, "fuzz.glb");
    }

    /// Corrupting JSON numbers (indices, counts, offsets) never panics.
    #[test]
    fn corrupted_numbers_never_panic(
        field in prop::sample::select(vec![
            "/accessors/0/count", "/accessors/1/count", "/accessors/1/byteOffset", "/accessors/3/count",
            "/bufferViews/0/byteOffset", "/bufferViews/1/byteLength", "/bufferViews/1/byteStride",
            "/buffers/0/byteLength", "/animations/0/channels/0/sampler", "/animations/0/channels/0/target/node",
            "/animations/0/samplers/0/input", "/animations/0/samplers/1/output", "/skins/0/joints/0",
            "/skins/0/inverseBindMatrices", "/nodes/0/children/0", "/accessors/1/componentType",
        ]),
        value in prop_oneof![0u64..8, Just(u32::MAX as u64), Just(u64::MAX), any::<u64>()],
    ) {
        let mut doc = minimal();
        if let Some(slot) = doc.json.pointer_mut(field) {
            *slot = serde_json::json!(value);
        }
        let _ = load_gltf_slice(&doc.to_glb(), None, "fuzz.glb");
        let _ = load_gltf_slice(&doc.to_gltf_embedded(), None, "fuzz.gltf");
    }
}

#[test]
fn accessors_shared_by_many_channels_cannot_blow_up_memory() {
    let mut doc = minimal();
    let keys = 100_000;
    let times: Vec<f32> = (0..keys).map(|k| k as f32 / 30.0).collect();
    let input = doc.add_floats(&times, "SCALAR", keys);
    let output = doc.add_floats(&vec![0.0; keys * 3], "VEC3", keys);
    let mut rows = Vec::new();
    for i in 0..40 {
        doc.json["nodes"].as_array_mut().unwrap().push(serde_json::json!({"name": format!("n{i}")}));
        rows.push((input, output, 4 + i, "translation", "LINEAR"));
    }
    doc.add_animation(Some("Everything"), &rows);
    let err = load_gltf_slice(&doc.to_glb(), None, "shared.glb").unwrap_err().to_string();
    assert!(err.starts_with("shared.glb: accessors: decoding every channel and skin would take"), "{err}");

    // Four channels sharing the same accessors are well within the budget.
    let rows = &rows[..4];
    let mut doc = minimal();
    let input = doc.add_floats(&times, "SCALAR", keys);
    let output = doc.add_floats(&vec![0.0; keys * 3], "VEC3", keys);
    for i in 0..4 {
        doc.json["nodes"].as_array_mut().unwrap().push(serde_json::json!({"name": format!("n{i}")}));
    }
    let rows: Vec<_> = rows.iter().map(|&(_, _, n, p, m)| (input, output, n, p, m)).collect();
    doc.add_animation(Some("Some"), &rows);
    let asset = load_gltf_slice(&doc.to_glb(), None, "shared.glb").unwrap();
    assert_eq!(asset.clips[1].tracks().len(), 4);
}

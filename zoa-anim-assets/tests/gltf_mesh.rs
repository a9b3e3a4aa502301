//! Skinned meshes read for viewers (`gltf::load_skinned_mesh`): what the GLB
//! writer writes reads back the same, the fixture humanoid's body reads
//! whole, and malformed meshes are located errors, never panics.

use zoa_anim_assets::AssetError;
use zoa_anim_assets::export::{GlbScene, SkinnedMesh, write_glb};
use zoa_anim_assets::gltf::{load_skinned_mesh, load_skinned_mesh_slice};
use zoa_anim_core::glam::Mat4;
use zoa_anim_core::{Joint, Skeleton, Transform};

fn skeleton() -> Skeleton {
    let joint = |name: &str, node, parent, y: f32| Joint {
        name: Some(name.into()),
        node,
        parent,
        rest: Transform { translation: [0.0, y, 0.0].into(), ..Transform::IDENTITY },
        inverse_bind: Mat4::from_translation([0.0, -y, 0.0].into()),
    };
    Skeleton::new("rig", vec![joint("root", 0, None, 0.0), joint("tip", 1, Some(0), 1.0)]).unwrap()
}

fn quad(normals: bool) -> SkinnedMesh {
    SkinnedMesh {
        name: Some("body".into()),
        positions: vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 2.0, 0.0], [0.0, 2.0, 0.0]],
        normals: if normals { vec![[0.0, 0.0, 1.0]; 4] } else { Vec::new() },
        joints: vec![[0, 0, 0, 0], [0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0]],
        weights: vec![[1.0, 0.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0], [0.25, 0.75, 0.0, 0.0]],
        indices: vec![0, 1, 2, 0, 2, 3],
    }
}

fn glb(mesh: &SkinnedMesh) -> Vec<u8> {
    let sk = skeleton();
    write_glb(&GlbScene { skeleton: &sk, clips: &[], mesh: Some(mesh) }).unwrap()
}

#[test]
fn what_the_writer_writes_reads_back() {
    let mesh = quad(true);
    let read = load_skinned_mesh_slice(&glb(&mesh), None, "quad.glb", 0).unwrap();
    assert_eq!(read.positions, mesh.positions);
    assert_eq!(read.normals, mesh.normals);
    assert_eq!(read.joints, mesh.joints);
    assert_eq!(read.weights, mesh.weights);
    assert_eq!(read.indices, mesh.indices);
    assert_eq!(read.name.as_deref(), Some("body"));
    // Without normals: smooth ones from the triangles (the quad faces +z).
    let read = load_skinned_mesh_slice(&glb(&quad(false)), None, "quad.glb", 0).unwrap();
    assert!(read.normals.iter().all(|n| (n[2] - 1.0).abs() < 1e-6), "{:?}", read.normals);
}

#[test]
fn the_fixture_humanoid_reads_whole() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/models/humanoid.glb");
    if !path.is_file() {
        eprintln!("note: fixtures/models/humanoid.glb is absent (run `zoa-anim gen-fixtures`); skipping");
        return;
    }
    let mesh = load_skinned_mesh(&path, 0).unwrap();
    assert!(mesh.positions.len() > 100);
    assert_eq!(mesh.indices.len() % 3, 0);
    assert!(mesh.indices.iter().all(|&i| (i as usize) < mesh.positions.len()));
    assert!(mesh.joints.iter().flatten().all(|&j| j < 55));
    assert!(mesh.weights.iter().all(|w| (w.iter().sum::<f32>() - 1.0).abs() < 1e-4));
}

/// The GLB with its JSON chunk changed by `edit`.
fn patched(bytes: &[u8], edit: impl FnOnce(&mut serde_json::Value)) -> Vec<u8> {
    let json_len = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    let mut json: serde_json::Value = serde_json::from_slice(&bytes[20..20 + json_len]).unwrap();
    edit(&mut json);
    let mut text = serde_json::to_vec(&json).unwrap();
    while !text.len().is_multiple_of(4) {
        text.push(b' ');
    }
    let bin = &bytes[20 + json_len..];
    let mut out = Vec::new();
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&((12 + 8 + text.len() + bin.len()) as u32).to_le_bytes());
    out.extend_from_slice(&(text.len() as u32).to_le_bytes());
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(&text);
    out.extend_from_slice(bin);
    out
}

fn problem(bytes: &[u8], skin: usize) -> String {
    match load_skinned_mesh_slice(bytes, None, "bad.glb", skin) {
        Err(e @ AssetError::MalformedGltf { .. }) => e.to_string(),
        other => panic!("expected a malformed-glTF error, got {other:?}"),
    }
}

#[test]
fn malformed_meshes_are_located_errors() {
    let good = glb(&quad(true));
    assert!(problem(&good, 3).contains("skin 3"), "{}", problem(&good, 3));
    let attr = |name: &str| {
        let name = name.to_owned();
        patched(&good, move |j| {
            j["meshes"][0]["primitives"][0]["attributes"].as_object_mut().unwrap().remove(&name);
        })
    };
    let e = problem(&attr("WEIGHTS_0"), 0);
    assert!(e.contains("mesh 0") && e.contains("primitive 0") && e.contains("WEIGHTS_0"), "{e}");
    assert!(problem(&attr("POSITION"), 0).contains("POSITION"));
    // JOINTS_0 given as positions (VEC3 floats).
    let wrong = patched(&good, |j| {
        let p = j["meshes"][0]["primitives"][0]["attributes"]["POSITION"].clone();
        j["meshes"][0]["primitives"][0]["attributes"]["JOINTS_0"] = p;
    });
    assert!(problem(&wrong, 0).contains("JOINTS_0"), "{}", problem(&wrong, 0));
    // Indices past their view.
    let long = patched(&good, |j| {
        let i = j["meshes"][0]["primitives"][0]["indices"].as_u64().unwrap() as usize;
        j["accessors"][i]["count"] = serde_json::json!(1_000_000);
    });
    assert!(problem(&long, 0).contains("needs more than"), "{}", problem(&long, 0));
    // Two indices: not whole triangles.
    let short = patched(&good, |j| {
        let i = j["meshes"][0]["primitives"][0]["indices"].as_u64().unwrap() as usize;
        j["accessors"][i]["count"] = serde_json::json!(5);
    });
    assert!(problem(&short, 0).contains("whole triangles"), "{}", problem(&short, 0));
    // A skin that deforms no mesh.
    let bare = patched(&good, |j| {
        for n in j["nodes"].as_array_mut().unwrap() {
            n.as_object_mut().unwrap().remove("skin");
        }
    });
    assert!(problem(&bare, 0).contains("no mesh node uses it"), "{}", problem(&bare, 0));
}

#[test]
fn the_shared_skinned_models_read() {
    let Some(dir) = zoa_test_support::paths::shared_assets() else {
        eprintln!("note: the shared assets are absent; skipping");
        return;
    };
    for (file, min_vertices) in [("CesiumMan.glb", 3000), ("Fox.glb", 1500), ("RiggedFigure.glb", 300)] {
        let path = dir.join(file);
        if !path.is_file() {
            continue;
        }
        let asset = zoa_anim_assets::gltf::load_gltf(&path).unwrap();
        let mesh = load_skinned_mesh(&path, 0).unwrap_or_else(|e| panic!("{file}: {e}"));
        let joints = asset.skeletons[0].joint_count() as u16;
        assert!(mesh.positions.len() >= min_vertices, "{file}: {} vertices", mesh.positions.len());
        assert!(mesh.joints.iter().flatten().all(|&j| j < joints), "{file}");
        assert!(mesh.normals.iter().all(|n| ((n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt() - 1.0).abs() < 1e-3));
    }
}

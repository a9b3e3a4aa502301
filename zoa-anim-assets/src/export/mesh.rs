//! The skinned mesh: vertex attributes, indices and the mesh entry.

use super::bin::{
    ARRAY_BUFFER, BinWriter, ELEMENT_ARRAY_BUFFER, TRIANGLES, UNSIGNED_BYTE, UNSIGNED_INT, UNSIGNED_SHORT,
};
use super::document::{Attributes, Document, Mesh, Primitive};
use super::{SkinnedMesh, export_err};
use crate::AssetError;

pub(super) fn write_mesh(
    doc: &mut Document,
    bin: &mut BinWriter,
    mesh: &SkinnedMesh,
    joint_count: usize,
) -> Result<u32, AssetError> {
    let n = mesh.positions.len();
    let err = |reason: String| export_err("mesh", reason);
    if n == 0 {
        return Err(err("has no vertices".into()));
    }
    if n > u32::MAX as usize {
        return Err(err(format!("{n} vertices (at most {})", u32::MAX)));
    }
    if mesh.joints.len() != n || mesh.weights.len() != n || !(mesh.normals.is_empty() || mesh.normals.len() == n) {
        return Err(err(format!(
            "attribute lengths differ: {n} positions, {} normals, {} joints, {} weights",
            mesh.normals.len(),
            mesh.joints.len(),
            mesh.weights.len()
        )));
    }
    if mesh.indices.is_empty() || !mesh.indices.len().is_multiple_of(3) {
        return Err(err(format!("{} indices is not a positive multiple of 3", mesh.indices.len())));
    }
    if let Some(i) = mesh.indices.iter().position(|&i| i as usize >= n) {
        return Err(err(format!("index {i} is {} but there are {n} vertices", mesh.indices[i])));
    }
    if let Some(v) = mesh.positions.iter().position(|p| !p.iter().all(|c| c.is_finite())) {
        return Err(err(format!("vertex {v} has a non-finite position")));
    }
    if let Some(v) = mesh.normals.iter().position(|p| {
        let len2 = p[0] * p[0] + p[1] * p[1] + p[2] * p[2];
        !len2.is_finite() || (len2 - 1.0).abs() > 1e-3
    }) {
        return Err(err(format!("vertex {v} has a normal that is not unit length")));
    }
    if let Some(v) = mesh.joints.iter().position(|j| j.iter().any(|&j| j as usize >= joint_count)) {
        return Err(err(format!("vertex {v} references a joint outside 0..{joint_count}")));
    }
    if let Some(v) = mesh.weights.iter().position(|w| {
        let sum: f32 = w.iter().sum();
        !w.iter().all(|x| x.is_finite() && (0.0..=1.0).contains(x)) || (sum - 1.0).abs() > 1e-3
    }) {
        return Err(err(format!("vertex {v} has weights outside 0..=1 or not summing to 1")));
    }

    let positions: Vec<f32> = mesh.positions.iter().flatten().copied().collect();
    let position = bin.push_f32(doc, &positions, "VEC3", 3, Some(ARRAY_BUFFER), true);
    let normal = (!mesh.normals.is_empty()).then(|| {
        let normals: Vec<f32> = mesh.normals.iter().flatten().copied().collect();
        bin.push_f32(doc, &normals, "VEC3", 3, Some(ARRAY_BUFFER), false)
    });
    let joints = if joint_count <= 256 {
        let bytes: Vec<u8> = mesh.joints.iter().flatten().map(|&j| j as u8).collect();
        bin.push_raw(doc, &bytes, UNSIGNED_BYTE, n, "VEC4", Some(ARRAY_BUFFER))
    } else {
        let bytes: Vec<u8> = mesh.joints.iter().flatten().flat_map(|j| j.to_le_bytes()).collect();
        bin.push_raw(doc, &bytes, UNSIGNED_SHORT, n, "VEC4", Some(ARRAY_BUFFER))
    };
    let weights: Vec<f32> = mesh.weights.iter().flatten().copied().collect();
    let weights = bin.push_f32(doc, &weights, "VEC4", 4, Some(ARRAY_BUFFER), false);
    let indices = if n <= u16::MAX as usize {
        let bytes: Vec<u8> = mesh.indices.iter().flat_map(|&i| (i as u16).to_le_bytes()).collect();
        bin.push_raw(doc, &bytes, UNSIGNED_SHORT, mesh.indices.len(), "SCALAR", Some(ELEMENT_ARRAY_BUFFER))
    } else {
        let bytes: Vec<u8> = mesh.indices.iter().flat_map(|i| i.to_le_bytes()).collect();
        bin.push_raw(doc, &bytes, UNSIGNED_INT, mesh.indices.len(), "SCALAR", Some(ELEMENT_ARRAY_BUFFER))
    };
    doc.meshes.push(Mesh {
        name: mesh.name.clone(),
        primitives: vec![Primitive {
            attributes: Attributes { position, normal, joints_0: joints, weights_0: weights },
            indices,
            mode: TRIANGLES,
        }],
    });
    Ok(doc.meshes.len() as u32 - 1)
}

//! Document-level checks that do not belong to one skin or animation.

use gltf::json;
use serde::Deserialize;

use super::{Problems, node_label};

/// A node's transform numbers as the JSON has them, in `f64`.
#[derive(Deserialize)]
struct RawNode {
    name: Option<String>,
    matrix: Option<Vec<f64>>,
    translation: Option<Vec<f64>>,
    rotation: Option<Vec<f64>>,
    scale: Option<Vec<f64>>,
    weights: Option<Vec<f64>>,
}

/// A mesh's default morph weights as the JSON has them, in `f64`.
#[derive(Deserialize)]
struct RawMesh {
    name: Option<String>,
    weights: Option<Vec<f64>>,
}

/// The part of the document [`node_numbers`] reads.
#[derive(Deserialize)]
struct RawNodes {
    #[serde(default)]
    nodes: Vec<RawNode>,
    #[serde(default)]
    meshes: Vec<RawMesh>,
}

/// Node transform components and node and mesh morph weights must be finite 32-bit floats. Read here as
/// `f64` from the JSON text and narrowed by the loader itself, so the check
/// does not depend on how `serde_json` is built: with its `float_roundtrip`
/// feature (which any crate in a build can turn on) it rejects a number beyond
/// `f32` range inside the `gltf` crate's parse, without the feature it yields
/// infinity. Runs before that parse; a document that is not JSON of this shape
/// is left to the parse to report.
pub(crate) fn node_numbers(json_text: &[u8], problems: &mut Problems) {
    let Ok(raw) = serde_json::from_slice::<RawNodes>(json_text) else {
        return;
    };
    for (i, node) in raw.nodes.iter().enumerate() {
        let fields = [
            ("matrix", &node.matrix),
            ("translation", &node.translation),
            ("rotation", &node.rotation),
            ("scale", &node.scale),
            ("weights", &node.weights),
        ];
        for (field, values) in fields {
            let values = values.as_deref().unwrap_or_default();
            if let Some(k) = values.iter().position(|&x| !(x as f32).is_finite()) {
                let label = match &node.name {
                    Some(name) => format!("node {i} {name:?}"),
                    None => format!("node {i}"),
                };
                problems.push(label, format!("{field} component {k} is not a finite 32-bit float"));
            }
        }
    }
    for (i, mesh) in raw.meshes.iter().enumerate() {
        if let Some(k) = mesh.weights.as_deref().unwrap_or_default().iter().position(|&x| !(x as f32).is_finite()) {
            let label = match &mesh.name {
                Some(name) => format!("mesh {i} {name:?}"),
                None => format!("mesh {i}"),
            };
            problems.push(label, format!("weights component {k} is not a finite 32-bit float"));
        }
    }
}

/// Checks that must pass before the `gltf` crate's own validation runs,
/// because that validation indexes without bounds checks: a mesh primitive's
/// `POSITION` accessor (gltf-json 1.4.1 `primitive_validate_hook`).
pub(crate) fn pre_validate(root: &json::Root, problems: &mut Problems) {
    for (m, mesh) in root.meshes.iter().enumerate() {
        for (p, primitive) in mesh.primitives.iter().enumerate() {
            for (semantic, accessor) in &primitive.attributes {
                let is_position = matches!(semantic, json::validation::Checked::Valid(json::mesh::Semantic::Positions));
                if is_position && accessor.value() >= root.accessors.len() {
                    problems.push(
                        format!("mesh {m} primitive {p}"),
                        format!(
                            "POSITION accessor {} does not exist ({} accessors)",
                            accessor.value(),
                            root.accessors.len()
                        ),
                    );
                }
            }
        }
    }
}

/// Node hierarchy: children in range, no node its own child, at most one
/// parent per node, no cycles (gltf 1.4.1 accepts all of these and a walk
/// over such a hierarchy never ends).
pub(crate) fn check_nodes(root: &json::Root, problems: &mut Problems) {
    let n = root.nodes.len();
    let mut parent: Vec<Option<usize>> = vec![None; n];
    let mut structural = false;
    for (i, node) in root.nodes.iter().enumerate() {
        for child in node.children.iter().flatten() {
            let c = child.value();
            if c >= n {
                problems.push(node_label(root, i), format!("child {c} does not exist ({n} nodes)"));
                structural = true;
            } else if c == i {
                problems.push(node_label(root, i), "is its own child");
                structural = true;
            } else if let Some(p) = parent[c] {
                let reason = if p == i {
                    format!("lists child {c} twice")
                } else {
                    format!("has two parents: node {p} and node {i}")
                };
                let element = if p == i { node_label(root, i) } else { node_label(root, c) };
                problems.push(element, reason);
                structural = true;
            } else {
                parent[c] = Some(i);
            }
        }
    }
    if structural {
        return;
    }
    // With one parent per node a cycle is a parent chain that revisits a node.
    // state: 0 unvisited, 1 on the current chain, 2 known to reach a root.
    let mut state = vec![0u8; n];
    let mut chain = Vec::new();
    for start in 0..n {
        let mut cur = Some(start);
        chain.clear();
        while let Some(c) = cur {
            match state[c] {
                2 => break,
                1 => {
                    problems.push(node_label(root, c), "is part of a parent cycle");
                    break;
                }
                _ => {
                    state[c] = 1;
                    chain.push(c);
                    cur = parent[c];
                }
            }
        }
        for &c in &chain {
            state[c] = 2;
        }
    }
}

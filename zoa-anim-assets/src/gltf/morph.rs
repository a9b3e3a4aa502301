//! Nodes whose mesh has morph targets, with their default weights.
//!
//! A node's default weights are its own `weights`, else its mesh's
//! `weights`, else 0 per target: what three.js's `GLTFLoader` sets as
//! `morphTargetInfluences` before any clip plays. The target count is the
//! first primitive's; glTF requires every primitive of a mesh to have the
//! same, and a mesh whose primitives differ, or a `weights` array of the
//! wrong length, is a warning (the count and the fallback are then named).

use gltf::json;
use zoa_anim_core::MorphNode;

use super::{NodeInfo, node_label};

/// Morph targets of the mesh node `node` instances (its first primitive's
/// count); 0 without a mesh, or with one without targets.
pub(crate) fn target_count(root: &json::Root, node: usize) -> usize {
    let mesh = root.nodes.get(node).and_then(|n| n.mesh).and_then(|m| root.meshes.get(m.value()));
    mesh.and_then(|m| m.primitives.first()).and_then(|p| p.targets.as_ref()).map_or(0, Vec::len)
}

/// Every node whose mesh has morph targets, in node order.
pub(crate) fn morph_nodes(
    root: &json::Root,
    nodes: &[NodeInfo],
    file: &str,
    warnings: &mut Vec<String>,
) -> Vec<MorphNode> {
    let mut out = Vec::new();
    for (i, node) in root.nodes.iter().enumerate() {
        let targets = target_count(root, i);
        if targets == 0 {
            continue;
        }
        let Some(mesh) = node.mesh.and_then(|m| root.meshes.get(m.value())) else { continue };
        let label = node_label(root, i);
        if let Some(p) = mesh.primitives.iter().position(|p| p.targets.as_ref().map_or(0, Vec::len) != targets) {
            warnings.push(format!(
                "{file}: {label}: mesh primitive {p} has a different number of morph targets than primitive 0 \
                 ({targets}); glTF requires the same, {targets} weights are used"
            ));
        }
        let fits = |w: &Option<Vec<f32>>, what: &str, warnings: &mut Vec<String>| match w {
            Some(w) if w.len() == targets && w.iter().all(|x| x.is_finite()) => Some(w.clone()),
            Some(w) => {
                warnings.push(format!(
                    "{file}: {label}: {what} `weights` has {} finite values of {} for {targets} morph targets; ignored",
                    w.iter().filter(|x| x.is_finite()).count(),
                    w.len()
                ));
                None
            }
            None => None,
        };
        let weights = fits(&node.weights, "node", warnings)
            .or_else(|| fits(&mesh.weights, "mesh", warnings))
            .unwrap_or_else(|| vec![0.0; targets]);
        let mut ancestors = Vec::new();
        let mut at = nodes.get(i).and_then(|n| n.parent);
        // The hierarchy is a forest (checked at load); the bound only guards.
        while let Some(p) = at
            && ancestors.len() < nodes.len()
        {
            ancestors.push(p);
            at = nodes.get(p as usize).and_then(|n| n.parent);
        }
        out.push(MorphNode { node: i as u32, name: node.name.clone(), ancestors, weights });
    }
    out
}

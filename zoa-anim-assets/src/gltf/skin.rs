//! Skins → [`Skeleton`]s.
//!
//! Joints keep skin order (skinning matrices are indexed that way). A joint's
//! parent is the nearest ancestor *node* that is a joint of the same skin, so
//! helper nodes between joints are skipped and a skin nested under another
//! skin's joint gets its own roots.

use std::borrow::Cow;

use gltf::json;
use gltf::json::accessor::{ComponentType, Type};
use zoa_anim_core::glam::Mat4;
use zoa_anim_core::skeleton::MAX_JOINTS;
use zoa_anim_core::{Joint, Skeleton};

use super::accessor::{self, Layout};
use super::{NodeInfo, Problems, skin_label};
use crate::AssetError;

/// A skin that passed its checks.
#[derive(Debug)]
pub(crate) struct SkinPlan {
    pub joints: Vec<u32>,
    pub inverse_bind: Option<Layout>,
}

/// Checks every skin: joints exist and are unique, the inverse bind matrix
/// accessor is `MAT4` float with one matrix per joint at least.
pub(crate) fn plan(root: &json::Root, problems: &mut Problems) -> Vec<SkinPlan> {
    let mut plans = Vec::with_capacity(root.skins.len());
    for (s, skin) in root.skins.iter().enumerate() {
        let element = skin_label(root, s);
        let mut seen = std::collections::HashSet::new();
        if skin.joints.is_empty() {
            problems.push(element.clone(), "has no joints");
        }
        if skin.joints.len() > MAX_JOINTS {
            problems.push(element.clone(), format!("has {} joints (at most {MAX_JOINTS})", skin.joints.len()));
        }
        for (j, joint) in skin.joints.iter().enumerate() {
            let node = joint.value();
            if node >= root.nodes.len() {
                problems.push(element.clone(), format!("joint {j} is node {node}, which does not exist"));
            } else if !seen.insert(node) {
                problems.push(element.clone(), format!("joint {j} repeats node {node}"));
            }
        }
        let inverse_bind = match skin.inverse_bind_matrices {
            None => None,
            Some(a) => match accessor::layout(root, a.value()) {
                Err(reason) => {
                    problems.push(element.clone(), format!("inverseBindMatrices: {reason}"));
                    None
                }
                Ok(l) if l.kind != Type::Mat4 || l.component != ComponentType::F32 => {
                    problems.push(
                        element.clone(),
                        format!(
                            "inverseBindMatrices accessor {} is {} {}, expected MAT4 FLOAT (5126)",
                            l.index,
                            accessor::type_name(l.kind),
                            accessor::component_name(l.component)
                        ),
                    );
                    None
                }
                Ok(l) if l.count < skin.joints.len() => {
                    problems.push(
                        element.clone(),
                        format!(
                            "inverseBindMatrices accessor {} has {} matrices for {} joints",
                            l.index,
                            l.count,
                            skin.joints.len()
                        ),
                    );
                    None
                }
                Ok(l) => Some(l),
            },
        };
        // Pushed even on problems so plan indices stay skin indices; `build`
        // only runs when every check passed.
        plans.push(SkinPlan { joints: skin.joints.iter().map(|j| j.value() as u32).collect(), inverse_bind });
    }
    plans
}

/// Builds one skeleton per planned skin. Only called when every check passed.
pub(crate) fn build(
    root: &json::Root,
    nodes: &[NodeInfo],
    plans: &[SkinPlan],
    buffers: &[Cow<'_, [u8]>],
    stem: &str,
    file: &str,
    problems: &mut Problems,
) -> Result<Vec<Skeleton>, AssetError> {
    let mut skeletons = Vec::with_capacity(plans.len());
    let (tin, tout) = preorder_intervals(nodes);
    for (s, plan) in plans.iter().enumerate() {
        let element = skin_label(root, s);
        let matrices = match &plan.inverse_bind {
            Some(layout) => match accessor::read_f32(layout, buffers) {
                Ok(m) => Some(m),
                Err(reason) => {
                    problems.push(element, format!("inverseBindMatrices: {reason}"));
                    continue;
                }
            },
            None => None,
        };
        let parents = joint_parents(&plan.joints, &tin, &tout);
        let mut joints = Vec::with_capacity(plan.joints.len());
        for (j, (&node, parent)) in plan.joints.iter().zip(parents).enumerate() {
            let inverse_bind = matrices
                .as_ref()
                .and_then(|m| m.get(j * 16..j * 16 + 16))
                .map_or(Mat4::IDENTITY, Mat4::from_cols_slice);
            let info = &nodes[node as usize];
            joints.push(Joint { name: info.name.clone(), node, parent, rest: info.rest, inverse_bind });
        }
        let name = root.skins[s].name.clone().unwrap_or_else(|| format!("{stem}_skin{s}"));
        let skeleton = Skeleton::new(name, joints).map_err(|source| AssetError::InvalidData {
            file: file.to_owned(),
            element,
            source,
        })?;
        skeletons.push(skeleton);
    }
    Ok(skeletons)
}

/// Depth-first entry and exit times of every node over the node forest
/// (acyclic, one parent per node: checked), so "is `a` an ancestor of `b`" is
/// `tin[a] <= tin[b] && tout[b] <= tout[a]`.
fn preorder_intervals(nodes: &[NodeInfo]) -> (Vec<u32>, Vec<u32>) {
    let n = nodes.len();
    let mut children: Vec<Vec<u32>> = vec![Vec::new(); n];
    let mut roots = Vec::new();
    for (i, info) in nodes.iter().enumerate() {
        match info.parent {
            Some(p) => children[p as usize].push(i as u32),
            None => roots.push(i as u32),
        }
    }
    let (mut tin, mut tout) = (vec![0u32; n], vec![0u32; n]);
    let mut clock = 0u32;
    // (node, next child position); iterative so deep hierarchies cannot overflow the stack.
    let mut stack: Vec<(u32, usize)> = Vec::new();
    for root in roots {
        stack.push((root, 0));
        tin[root as usize] = clock;
        clock += 1;
        while let Some(top) = stack.last_mut() {
            let (node, next) = *top;
            if let Some(&child) = children[node as usize].get(next) {
                top.1 += 1;
                tin[child as usize] = clock;
                clock += 1;
                stack.push((child, 0));
            } else {
                tout[node as usize] = clock;
                clock += 1;
                stack.pop();
            }
        }
    }
    (tin, tout)
}

/// Each joint's parent joint: the nearest ancestor node that is a joint of the
/// same skin. Joints are visited in preorder with a stack of open ancestors,
/// `O(J log J)` per skin whatever the depth of the hierarchy.
fn joint_parents(joints: &[u32], tin: &[u32], tout: &[u32]) -> Vec<Option<u16>> {
    let mut order: Vec<usize> = (0..joints.len()).collect();
    order.sort_unstable_by_key(|&j| tin[joints[j] as usize]);
    let mut parents = vec![None; joints.len()];
    let mut open: Vec<usize> = Vec::new();
    for j in order {
        let node = joints[j] as usize;
        while let Some(&top) = open.last() {
            if tout[joints[top] as usize] < tout[node] {
                open.pop();
            } else {
                break;
            }
        }
        parents[j] = open.last().map(|&p| p as u16);
        open.push(j);
    }
    parents
}

#[cfg(test)]
mod tests {
    use zoa_anim_core::Transform;

    use super::*;

    fn node(parent: Option<u32>) -> NodeInfo {
        NodeInfo { name: None, parent, rest: Transform::IDENTITY }
    }

    #[test]
    fn joint_parents_skip_non_joint_nodes_and_other_subtrees() {
        // 0 ─ 1 ─ 2 ─ 3        5 ─ 6
        //      └─ 4
        let nodes = [node(None), node(Some(0)), node(Some(1)), node(Some(2)), node(Some(1)), node(None), node(Some(5))];
        let (tin, tout) = preorder_intervals(&nodes);
        // Skin order deliberately not parent-first.
        assert_eq!(joint_parents(&[3, 4, 0, 6], &tin, &tout), [Some(2), Some(2), None, None]);
        assert_eq!(joint_parents(&[2, 3], &tin, &tout), [None, Some(0)]);
    }

    #[test]
    fn deep_hierarchies_are_linear_and_do_not_recurse() {
        let n = 200_000u32;
        let nodes: Vec<NodeInfo> = (0..n).map(|i| node(i.checked_sub(1))).collect();
        let (tin, tout) = preorder_intervals(&nodes);
        let joints: Vec<u32> = (0..n).step_by(1000).collect();
        let parents = joint_parents(&joints, &tin, &tout);
        assert_eq!(parents[0], None);
        assert!(parents.iter().skip(1).enumerate().all(|(i, p)| *p == Some(i as u16)));
    }
}

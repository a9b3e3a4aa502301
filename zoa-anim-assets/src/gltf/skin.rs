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
    // Joint index of each node in the current skin (reset per skin).
    let mut joint_of: Vec<Option<u16>> = vec![None; nodes.len()];
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
        for (j, &node) in plan.joints.iter().enumerate() {
            joint_of[node as usize] = Some(j as u16);
        }
        let mut joints = Vec::with_capacity(plan.joints.len());
        for (j, &node) in plan.joints.iter().enumerate() {
            // Nearest ancestor that is a joint of this skin; the hierarchy is
            // acyclic (checked), the step bound is a second guard.
            let mut parent = None;
            let mut cur = nodes[node as usize].parent;
            let mut steps = 0;
            while let Some(p) = cur {
                if let Some(pj) = joint_of[p as usize] {
                    parent = Some(pj);
                    break;
                }
                cur = nodes[p as usize].parent;
                steps += 1;
                if steps > nodes.len() {
                    break;
                }
            }
            let inverse_bind = matrices
                .as_ref()
                .and_then(|m| m.get(j * 16..j * 16 + 16))
                .map_or(Mat4::IDENTITY, Mat4::from_cols_slice);
            joints.push(Joint {
                name: nodes[node as usize].name.clone(),
                node,
                parent,
                rest: nodes[node as usize].rest,
                inverse_bind,
            });
        }
        for &node in &plan.joints {
            joint_of[node as usize] = None;
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

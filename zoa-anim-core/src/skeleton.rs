//! Skeletons: joints, hierarchy and rest pose, independent of any file format.
//!
//! Joints keep the order their source gave them (glTF skin order), because
//! skinning matrices are indexed that way. A separate evaluation order (parents
//! before children) is computed once at construction so local-to-model
//! passes are a single forward loop.

use std::borrow::Cow;

use glam::{Mat4, Quat, Vec3};

use crate::CoreError;

/// Largest joint count a skeleton may have (indices are `u16`).
pub const MAX_JOINTS: usize = u16::MAX as usize;

/// A translation / rotation / scale triple (glTF node TRS).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Transform {
    /// Translation.
    pub translation: Vec3,
    /// Unit rotation quaternion.
    pub rotation: Quat,
    /// Non-uniform scale.
    pub scale: Vec3,
}

impl Default for Transform {
    fn default() -> Self {
        Transform::IDENTITY
    }
}

impl Transform {
    /// No translation, no rotation, unit scale.
    pub const IDENTITY: Transform = Transform { translation: Vec3::ZERO, rotation: Quat::IDENTITY, scale: Vec3::ONE };

    /// The matrix `T * R * S` (glTF's order).
    #[must_use]
    pub fn to_matrix(&self) -> Mat4 {
        Mat4::from_scale_rotation_translation(self.scale, self.rotation, self.translation)
    }

    /// Decomposes an affine matrix (glTF nodes given as `matrix`).
    #[must_use]
    pub fn from_matrix(m: &Mat4) -> Transform {
        let (scale, rotation, translation) = m.to_scale_rotation_translation();
        Transform { translation, rotation: rotation.normalize(), scale }
    }

    /// Whether every component is finite.
    #[must_use]
    pub fn is_finite(&self) -> bool {
        self.translation.is_finite() && self.rotation.is_finite() && self.scale.is_finite()
    }
}

/// One joint of a skeleton.
#[derive(Debug, Clone, PartialEq)]
pub struct Joint {
    /// Name from the source, if it had one.
    pub name: Option<String>,
    /// Identity in the source file (glTF node index).
    pub node: u32,
    /// Parent joint index in the same skeleton; `None` for a root.
    pub parent: Option<u16>,
    /// Rest (bind) local transform.
    pub rest: Transform,
    /// Inverse bind matrix (model space → joint space at bind time).
    pub inverse_bind: Mat4,
}

/// A validated joint hierarchy.
///
/// Invariants: at most [`MAX_JOINTS`] joints; every parent index is in range;
/// the hierarchy has no cycle; rest transforms and inverse binds are finite.
#[derive(Debug, Clone, PartialEq)]
pub struct Skeleton {
    name: String,
    joints: Vec<Joint>,
    order: Vec<u16>,
}

impl Skeleton {
    /// Validates and builds a skeleton; joints keep the given order.
    pub fn new(name: impl Into<String>, joints: Vec<Joint>) -> Result<Skeleton, CoreError> {
        let name = name.into();
        let err = |reason: String| CoreError::InvalidSkeleton { skeleton: name.clone(), reason };
        if joints.len() > MAX_JOINTS {
            return Err(err(format!("{} joints (at most {MAX_JOINTS})", joints.len())));
        }
        for (i, j) in joints.iter().enumerate() {
            if let Some(p) = j.parent {
                if p as usize >= joints.len() {
                    return Err(err(format!("joint {i} has parent {p}, out of range")));
                }
                if p as usize == i {
                    return Err(err(format!("joint {i} is its own parent")));
                }
            }
            if !j.rest.is_finite() {
                return Err(err(format!("joint {i} has a non-finite rest transform")));
            }
            if !j.inverse_bind.is_finite() {
                return Err(err(format!("joint {i} has a non-finite inverse bind matrix")));
            }
        }
        // Depth-first order from the roots; anything not reached is in a cycle.
        let mut children: Vec<Vec<u16>> = vec![Vec::new(); joints.len()];
        let mut roots = Vec::new();
        for (i, j) in joints.iter().enumerate() {
            match j.parent {
                Some(p) => children[p as usize].push(i as u16),
                None => roots.push(i as u16),
            }
        }
        let mut order = Vec::with_capacity(joints.len());
        let mut stack: Vec<u16> = roots.into_iter().rev().collect();
        while let Some(j) = stack.pop() {
            order.push(j);
            stack.extend(children[j as usize].iter().rev());
        }
        if order.len() != joints.len() {
            let mut reached = vec![false; joints.len()];
            for &j in &order {
                reached[j as usize] = true;
            }
            let first = reached.iter().position(|r| !r).unwrap_or(0);
            return Err(err(format!("parent cycle through joint {first}")));
        }
        Ok(Skeleton { name, joints, order })
    }

    /// Skeleton name (skin name, or a generated one).
    #[must_use]
    pub fn name(&self) -> &str {
        &self.name
    }
    /// Joints in source order.
    #[must_use]
    pub fn joints(&self) -> &[Joint] {
        &self.joints
    }
    /// Number of joints.
    #[must_use]
    pub fn joint_count(&self) -> usize {
        self.joints.len()
    }
    /// Joint indices with every parent before its children.
    #[must_use]
    pub fn eval_order(&self) -> &[u16] {
        &self.order
    }
    /// Parent of joint `i`.
    pub fn parent(&self, i: usize) -> Option<usize> {
        self.joints[i].parent.map(usize::from)
    }
    /// The joint's name, or `node<N>` when the source had none.
    #[must_use]
    pub fn display_name(&self, i: usize) -> Cow<'_, str> {
        match &self.joints[i].name {
            Some(n) => Cow::Borrowed(n),
            None => Cow::Owned(format!("node{}", self.joints[i].node)),
        }
    }
    /// First joint whose name (or `node<N>` display name) equals `name`.
    #[must_use]
    pub fn find(&self, name: &str) -> Option<usize> {
        (0..self.joints.len()).find(|&i| self.display_name(i) == name)
    }
    /// Joint index of the source node `node`.
    #[must_use]
    pub fn find_node(&self, node: u32) -> Option<usize> {
        self.joints.iter().position(|j| j.node == node)
    }
    /// Rest transforms in joint order.
    #[must_use]
    pub fn rest_pose(&self) -> impl ExactSizeIterator<Item = Transform> + '_ {
        self.joints.iter().map(|j| j.rest)
    }
    /// Whether `joint` is `ancestor` or lies below it.
    #[must_use]
    pub fn is_descendant_of(&self, joint: usize, ancestor: usize) -> bool {
        let mut cur = Some(joint);
        let mut guard = 0;
        while let Some(c) = cur {
            if c == ancestor {
                return true;
            }
            cur = self.parent(c);
            guard += 1;
            if guard > self.joints.len() {
                break;
            }
        }
        false
    }
    /// Per-joint flags: `true` for every joint in the subtree of any of `roots`.
    #[must_use]
    pub fn subtree_mask(&self, roots: &[usize]) -> Vec<bool> {
        let mut mask = vec![false; self.joints.len()];
        for &j in &self.order {
            let j = j as usize;
            mask[j] = roots.contains(&j) || self.parent(j).is_some_and(|p| mask[p]);
        }
        mask
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn joint(parent: Option<u16>, node: u32) -> Joint {
        Joint { name: None, node, parent, rest: Transform::IDENTITY, inverse_bind: Mat4::IDENTITY }
    }

    #[test]
    fn eval_order_puts_parents_first_even_when_source_does_not() {
        let s = Skeleton::new("s", vec![joint(Some(2), 10), joint(None, 11), joint(Some(1), 12)]).unwrap();
        assert_eq!(s.eval_order(), &[1, 2, 0]);
        assert_eq!(s.display_name(0), "node10");
        assert_eq!(s.find("node12"), Some(2));
        assert!(s.is_descendant_of(0, 1));
        assert_eq!(s.subtree_mask(&[2]), vec![true, false, true]);
    }

    #[test]
    fn cycles_and_bad_parents_are_errors() {
        assert!(Skeleton::new("s", vec![joint(Some(1), 0), joint(Some(0), 1)]).is_err());
        assert!(Skeleton::new("s", vec![joint(Some(0), 0)]).is_err());
        assert!(Skeleton::new("s", vec![joint(Some(7), 0)]).is_err());
        let mut bad = joint(None, 0);
        bad.rest.translation.x = f32::NAN;
        assert!(Skeleton::new("s", vec![bad]).is_err());
    }
}

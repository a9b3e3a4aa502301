//! Bone weights: which joints a layer may touch (a bone mask), precomputed to per-joint weights.

use zoa_anim_core::Skeleton;

use crate::error::RuntimeError;

/// Per-joint layer weights in `0..=1`, precomputed from include / exclude
/// joint names (a layer's or state's `bone_mask`).
#[derive(Debug, Clone, PartialEq)]
pub struct BoneWeights {
    weights: Vec<f32>,
}

impl BoneWeights {
    /// Builds a mask from names.
    ///
    /// - `include` non-empty: only the complete descendant subtrees of these
    ///   joints are kept (weight 1), everything else gets 0. Empty: every joint
    ///   starts at 1.
    /// - `exclude`: the complete descendant subtrees of these joints are then
    ///   removed (weight 0), also inside an included subtree.
    ///
    /// Names match a joint's name or its `node<N>` display name; every unknown
    /// name is reported in one error.
    pub fn from_names<S: AsRef<str>>(
        skeleton: &Skeleton,
        include: &[S],
        exclude: &[S],
    ) -> Result<BoneWeights, RuntimeError> {
        let mut unknown = Vec::new();
        let mut resolve = |names: &[S]| -> Vec<usize> {
            names
                .iter()
                .filter_map(|n| {
                    let found = skeleton.find(n.as_ref());
                    if found.is_none() {
                        unknown.push(n.as_ref().to_owned());
                    }
                    found
                })
                .collect()
        };
        let inc = resolve(include);
        let exc = resolve(exclude);
        if !unknown.is_empty() {
            return Err(RuntimeError::UnknownJoints { skeleton: skeleton.name().to_owned(), names: unknown });
        }
        let kept = if include.is_empty() { vec![true; skeleton.joint_count()] } else { skeleton.subtree_mask(&inc) };
        let removed = skeleton.subtree_mask(&exc);
        let weights = kept.iter().zip(&removed).map(|(&k, &r)| if k && !r { 1.0 } else { 0.0 }).collect();
        Ok(BoneWeights { weights })
    }

    /// A mask from explicit weights (clamped to `0..=1`, NaN → 0).
    pub fn from_weights(weights: impl IntoIterator<Item = f32>) -> BoneWeights {
        BoneWeights { weights: weights.into_iter().map(|w| if w.is_nan() { 0.0 } else { w.clamp(0.0, 1.0) }).collect() }
    }

    /// Per-joint weights in joint order.
    #[must_use]
    pub fn weights(&self) -> &[f32] {
        &self.weights
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Mat4;
    use zoa_anim_core::{Joint, Transform};

    fn skeleton() -> Skeleton {
        // hips ─┬─ spine ── arm ── hand
        //       └─ leg
        let j = |name: &str, parent: Option<u16>| Joint {
            name: Some(name.into()),
            node: 0,
            parent,
            rest: Transform::IDENTITY,
            inverse_bind: Mat4::IDENTITY,
        };
        Skeleton::new(
            "s",
            vec![j("hips", None), j("spine", Some(0)), j("arm", Some(1)), j("hand", Some(2)), j("leg", Some(0))],
        )
        .unwrap()
    }

    #[test]
    fn include_keeps_subtrees_and_exclude_removes_them() {
        let s = skeleton();
        let none: [&str; 0] = [];
        let m = BoneWeights::from_names(&s, &["spine"], &none).unwrap();
        assert_eq!(m.weights(), &[0.0, 1.0, 1.0, 1.0, 0.0]);
        let m = BoneWeights::from_names(&s, &none, &["arm"]).unwrap();
        assert_eq!(m.weights(), &[1.0, 1.0, 0.0, 0.0, 1.0]);
        let m = BoneWeights::from_names(&s, &["spine"], &["hand"]).unwrap();
        assert_eq!(m.weights(), &[0.0, 1.0, 1.0, 0.0, 0.0]);
    }

    #[test]
    fn unknown_names_are_all_reported() {
        let err = BoneWeights::from_names(&skeleton(), &["spine", "tail"], &["wing"]).unwrap_err();
        assert_eq!(err.to_string(), "skeleton `s` has no joint named `tail`, `wing`");
    }
}

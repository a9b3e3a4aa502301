//! Morph targets (blend shapes): the nodes whose mesh has them, and the
//! keyframe tracks that animate their weights, as glTF stores them.
//!
//! A glTF mesh may carry morph targets; the node instancing it has one
//! weight per target (its `weights`, else the mesh's `weights`, else 0s),
//! and an animation channel with path `weights` keys all of a node's
//! weights together. A [`MorphNode`] is the first fact (per model, like a
//! [`crate::Skeleton`]); a [`MorphTrack`] the second (per clip, beside its
//! joint [`crate::Track`]s). Sampling and blending live in the runtime.

use crate::Interpolation;

/// A node whose mesh has morph targets.
#[derive(Debug, Clone, PartialEq)]
pub struct MorphNode {
    /// glTF node index.
    pub node: u32,
    /// Node name, when the file gave one.
    pub name: Option<String>,
    /// The node's ancestors, nearest first (glTF node indices). A layer's
    /// bone mask weighs the node's morph weights as it weighs the nearest of
    /// these (or the node itself) that is a joint of the skeleton.
    pub ancestors: Vec<u32>,
    /// Default weights, one per morph target: what shows where no playing
    /// clip animates the node.
    pub weights: Vec<f32>,
}

impl MorphNode {
    /// Number of morph targets.
    #[must_use]
    pub fn targets(&self) -> usize {
        self.weights.len()
    }
}

/// The keys of one node's morph-target weights.
///
/// `values` holds `targets` floats per key (every target's weight for that
/// key, in target order); for [`Interpolation::CubicSpline`] three such
/// groups per key in glTF order (in-tangents, values, out-tangents).
#[derive(Debug, Clone, PartialEq)]
pub struct MorphTrack {
    /// Target node (glTF node index).
    pub node: u32,
    /// Target node's name, when the source had one.
    pub node_name: Option<String>,
    /// Number of morph targets (weights per key), at least 1.
    pub targets: usize,
    /// Interpolation mode.
    pub interpolation: Interpolation,
    /// Key times in seconds, non-decreasing, finite, `>= 0`.
    pub times: Vec<f32>,
    /// Key values, flat (see the type docs).
    pub values: Vec<f32>,
}

impl MorphTrack {
    /// Groups of `targets` values per key (3 for cubic spline, 1 otherwise).
    #[must_use]
    pub const fn elements_per_key(&self) -> usize {
        match self.interpolation {
            Interpolation::CubicSpline => 3,
            _ => 1,
        }
    }

    /// The keyed weights (not tangents) of key `k`.
    #[must_use]
    pub fn key_weights(&self, k: usize) -> &[f32] {
        let stride = self.targets * self.elements_per_key();
        let offset = k * stride + if self.elements_per_key() == 3 { self.targets } else { 0 };
        &self.values[offset..offset + self.targets]
    }

    /// Every reason this track is not valid, as one message.
    pub(crate) fn validate(&self) -> Result<(), String> {
        let at = format!("morph weights track on node {}", self.node);
        if self.targets == 0 {
            return Err(format!("{at} has no morph targets"));
        }
        if self.times.is_empty() {
            return Err(format!("{at} has no keys"));
        }
        let expected = self.times.len().saturating_mul(self.targets).saturating_mul(self.elements_per_key());
        if self.values.len() != expected {
            return Err(format!(
                "{at} has {} values for {} keys of {} targets (expected {expected})",
                self.values.len(),
                self.times.len(),
                self.targets
            ));
        }
        if let Some(k) = self.times.iter().position(|t| !t.is_finite() || *t < 0.0) {
            return Err(format!("{at} key {k} has time {} (must be finite and >= 0)", self.times[k]));
        }
        if let Some(k) = self.times.windows(2).position(|w| w[1] < w[0]) {
            return Err(format!("{at} key times decrease at key {}", k + 1));
        }
        if let Some(i) = self.values.iter().position(|v| !v.is_finite()) {
            return Err(format!("{at} has a non-finite value at component {i}"));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn track(interpolation: Interpolation, times: Vec<f32>, values: Vec<f32>) -> MorphTrack {
        MorphTrack { node: 3, node_name: None, targets: 2, interpolation, times, values }
    }

    #[test]
    fn key_weights_skip_tangents() {
        let t = track(Interpolation::CubicSpline, vec![0.0, 1.0], (0..12).map(|v| v as f32).collect());
        assert_eq!(t.key_weights(0), &[2.0, 3.0]);
        assert_eq!(t.key_weights(1), &[8.0, 9.0]);
        assert_eq!(track(Interpolation::Linear, vec![0.0, 1.0], vec![0.0, 1.0, 2.0, 3.0]).key_weights(1), &[2.0, 3.0]);
    }

    #[test]
    fn bad_tracks_are_rejected() {
        assert!(track(Interpolation::Linear, vec![0.0], vec![0.0, 0.0]).validate().is_ok());
        assert!(track(Interpolation::Linear, vec![0.0], vec![0.0]).validate().is_err());
        assert!(track(Interpolation::Linear, vec![], vec![]).validate().is_err());
        assert!(track(Interpolation::Linear, vec![1.0, 0.5], vec![0.0; 4]).validate().is_err());
        assert!(track(Interpolation::Linear, vec![0.0], vec![f32::NAN, 0.0]).validate().is_err());
        assert!(MorphTrack { targets: 0, ..track(Interpolation::Step, vec![0.0], vec![]) }.validate().is_err());
    }
}

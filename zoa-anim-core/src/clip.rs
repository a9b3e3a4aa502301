//! Animation clips: keyframe tracks per node property, as glTF stores them.
//!
//! Values are kept flat (`f32` components) in glTF's layout so a loader can
//! copy accessors straight in and an evaluator can repack them as it likes.
//! Sampling lives in the runtime crate; this is the validated data.

use crate::CoreError;
use crate::morph::MorphTrack;

/// Keyframe interpolation (glTF 2.0 `sampler.interpolation`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Interpolation {
    /// Hold the last key at or before `t`.
    Step,
    /// Lerp vectors, shortest-path slerp rotations.
    Linear,
    /// Hermite spline with in/out tangents scaled by the key interval.
    CubicSpline,
}

/// Which part of a node's transform a track animates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TrackProperty {
    /// Translation (3 components).
    Translation,
    /// Rotation quaternion `x, y, z, w` (4 components).
    Rotation,
    /// Scale (3 components).
    Scale,
}

impl TrackProperty {
    /// Components per value: 4 for rotation, 3 otherwise.
    #[must_use]
    pub const fn components(self) -> usize {
        match self {
            TrackProperty::Rotation => 4,
            _ => 3,
        }
    }
    /// glTF path name.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            TrackProperty::Translation => "translation",
            TrackProperty::Rotation => "rotation",
            TrackProperty::Scale => "scale",
        }
    }
}

/// One animated property of one node.
///
/// `values` holds `components()` floats per key; for [`Interpolation::CubicSpline`]
/// it holds three elements per key in glTF order (in-tangent, value, out-tangent).
#[derive(Debug, Clone, PartialEq)]
pub struct Track {
    /// Target node (glTF node index).
    pub node: u32,
    /// Target node's name, when the source had one (used for retargeting).
    pub node_name: Option<String>,
    /// Which property.
    pub property: TrackProperty,
    /// Interpolation mode.
    pub interpolation: Interpolation,
    /// Key times in seconds, non-decreasing, finite.
    pub times: Vec<f32>,
    /// Key values, flat.
    pub values: Vec<f32>,
}

impl Track {
    /// Elements per key (3 for cubic spline, 1 otherwise).
    #[must_use]
    pub const fn elements_per_key(&self) -> usize {
        match self.interpolation {
            Interpolation::CubicSpline => 3,
            _ => 1,
        }
    }

    /// Number of keys.
    #[must_use]
    pub fn key_count(&self) -> usize {
        self.times.len()
    }

    /// The keyed value (not a tangent) of key `k`.
    #[must_use]
    pub fn key_value(&self, k: usize) -> &[f32] {
        let c = self.property.components();
        let stride = c * self.elements_per_key();
        let offset = k * stride + if self.elements_per_key() == 3 { c } else { 0 };
        &self.values[offset..offset + c]
    }

    fn validate(&self) -> Result<(), String> {
        if self.times.is_empty() {
            return Err(format!("track on node {} ({}) has no keys", self.node, self.property.name()));
        }
        let expected = self.times.len() * self.property.components() * self.elements_per_key();
        if self.values.len() != expected {
            return Err(format!(
                "track on node {} ({}) has {} values for {} keys (expected {expected})",
                self.node,
                self.property.name(),
                self.values.len(),
                self.times.len()
            ));
        }
        if let Some(k) = self.times.iter().position(|t| !t.is_finite() || *t < 0.0) {
            return Err(format!(
                "track on node {} ({}) key {k} has time {} (must be finite and >= 0)",
                self.node,
                self.property.name(),
                self.times[k]
            ));
        }
        if let Some(k) = self.times.windows(2).position(|w| w[1] < w[0]) {
            return Err(format!(
                "track on node {} ({}) key times decrease at key {} ({} after {})",
                self.node,
                self.property.name(),
                k + 1,
                self.times[k + 1],
                self.times[k]
            ));
        }
        if let Some(i) = self.values.iter().position(|v| !v.is_finite()) {
            return Err(format!(
                "track on node {} ({}) has a non-finite value at component {i}",
                self.node,
                self.property.name()
            ));
        }
        Ok(())
    }
}

/// A validated clip: named tracks over node properties, and tracks of
/// morph-target weights.
///
/// Invariants: every track has keys, consistent value counts, finite
/// non-decreasing times and finite values. `duration` is the largest key
/// time of any track (clips that start after 0 keep their times).
#[derive(Debug, Clone, PartialEq)]
pub struct Clip {
    name: String,
    duration: f32,
    start: f32,
    tracks: Vec<Track>,
    morph_tracks: Vec<MorphTrack>,
}

impl Clip {
    /// Validates and builds a clip.
    pub fn new(name: impl Into<String>, tracks: Vec<Track>) -> Result<Clip, CoreError> {
        let name = name.into();
        for t in &tracks {
            t.validate().map_err(|reason| CoreError::InvalidClip { clip: name.clone(), reason })?;
        }
        let duration = tracks.iter().filter_map(|t| t.times.last().copied()).fold(0.0f32, f32::max);
        let start = tracks.iter().filter_map(|t| t.times.first().copied()).fold(f32::INFINITY, f32::min);
        let start = if start.is_finite() { start } else { 0.0 };
        Ok(Clip { name, duration, start, tracks, morph_tracks: Vec::new() })
    }

    /// Validates `morph_tracks` and adds them to the clip; its duration and
    /// start then cover their keys too.
    pub fn with_morph_tracks(mut self, morph_tracks: Vec<MorphTrack>) -> Result<Clip, CoreError> {
        for t in &morph_tracks {
            t.validate().map_err(|reason| CoreError::InvalidClip { clip: self.name.clone(), reason })?;
        }
        let first = |t: &MorphTrack| t.times.first().copied();
        let last = |t: &MorphTrack| t.times.last().copied();
        let start = if self.tracks.is_empty() { f32::INFINITY } else { self.start };
        let start = morph_tracks.iter().filter_map(first).fold(start, f32::min);
        self.start = if start.is_finite() { start } else { 0.0 };
        self.duration = morph_tracks.iter().filter_map(last).fold(self.duration, f32::max);
        self.morph_tracks = morph_tracks;
        Ok(self)
    }

    /// Clip name.
    #[must_use]
    pub fn name(&self) -> &str {
        &self.name
    }
    /// Largest key time, seconds.
    #[must_use]
    pub fn duration(&self) -> f32 {
        self.duration
    }
    /// Smallest key time, seconds.
    #[must_use]
    pub fn start(&self) -> f32 {
        self.start
    }
    /// Tracks in source order.
    #[must_use]
    pub fn tracks(&self) -> &[Track] {
        &self.tracks
    }
    /// Morph-target weight tracks in source order.
    #[must_use]
    pub fn morph_tracks(&self) -> &[MorphTrack] {
        &self.morph_tracks
    }
    /// Renames the clip (e.g. to the `<stem>_<animation>` form).
    pub fn with_name(mut self, name: impl Into<String>) -> Clip {
        self.name = name.into();
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn track(times: Vec<f32>, values: Vec<f32>) -> Track {
        Track {
            node: 0,
            node_name: None,
            property: TrackProperty::Translation,
            interpolation: Interpolation::Linear,
            times,
            values,
        }
    }

    #[test]
    fn duration_is_the_largest_key_time() {
        let c = Clip::new("c", vec![track(vec![0.5, 2.0], vec![0.0; 6]), track(vec![0.25], vec![0.0; 3])]).unwrap();
        assert_eq!(c.duration(), 2.0);
        assert_eq!(c.start(), 0.25);
    }

    #[test]
    fn bad_tracks_are_rejected() {
        assert!(Clip::new("c", vec![track(vec![1.0, 0.5], vec![0.0; 6])]).is_err());
        assert!(Clip::new("c", vec![track(vec![f32::NAN], vec![0.0; 3])]).is_err());
        assert!(Clip::new("c", vec![track(vec![0.0], vec![f32::INFINITY, 0.0, 0.0])]).is_err());
        assert!(Clip::new("c", vec![track(vec![0.0], vec![0.0; 4])]).is_err());
        assert!(Clip::new("c", vec![track(vec![], vec![])]).is_err());
        assert!(Clip::new("c", vec![track(vec![-1.0], vec![0.0; 3])]).is_err());
    }

    #[test]
    fn morph_tracks_extend_the_time_range() {
        let morph = |times: Vec<f32>| MorphTrack {
            node: 1,
            node_name: None,
            targets: 1,
            interpolation: Interpolation::Step,
            values: vec![0.0; times.len()],
            times,
        };
        let c = Clip::new("c", vec![track(vec![0.5, 2.0], vec![0.0; 6])]).unwrap();
        let c = c.with_morph_tracks(vec![morph(vec![0.25, 3.0])]).unwrap();
        assert_eq!((c.start(), c.duration()), (0.25, 3.0));
        let only = Clip::new("m", vec![]).unwrap().with_morph_tracks(vec![morph(vec![1.0, 1.5])]).unwrap();
        assert_eq!((only.start(), only.duration()), (1.0, 1.5));
        assert!(Clip::new("m", vec![]).unwrap().with_morph_tracks(vec![morph(vec![])]).is_err());
    }
}

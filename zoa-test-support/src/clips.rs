//! Track and clip builders.

use zoa_anim_core::glam::Quat;
use zoa_anim_core::{Clip, Interpolation, Track, TrackProperty};

/// A track on glTF node `node` with flat `values` (3 floats a key for
/// translation and scale, 4 for rotation; ×3 again for cubic spline).
#[must_use]
pub fn track(node: u32, property: TrackProperty, interpolation: Interpolation, times: &[f32], values: &[f32]) -> Track {
    Track { node, node_name: None, property, interpolation, times: times.to_vec(), values: values.to_vec() }
}

/// Quaternions as flat `[x, y, z, w, …]` track values.
#[must_use]
pub fn quat_values(qs: &[Quat]) -> Vec<f32> {
    qs.iter().flat_map(|q| q.to_array()).collect()
}

/// A looping clip bending the [`humanoid`](crate::skeletons::humanoid)'s
/// knees, hips, spine and arms by amounts seeded by `k` (rotations only,
/// linear, keys at 0, 0.5, …, 2 s), so IK has an animated pose to correct.
///
/// # Panics
/// Never for the humanoid's nodes (the clip is valid by construction).
#[must_use]
pub fn humanoid_clip(name: &str, k: f32) -> Clip {
    let times = [0.0, 0.5, 1.0, 1.5, 2.0];
    let mut tracks = Vec::new();
    for (node, amplitude) in
        [(0u32, 0.1), (1, 0.1), (5, 0.2), (6, 0.5), (7, 0.6), (10, 0.5), (11, 0.6), (15, 0.4), (16, 0.7)]
    {
        let rv: Vec<Quat> =
            times.iter().map(|t| Quat::from_rotation_x(amplitude * (t * 3.0 + k + node as f32).sin())).collect();
        tracks.push(track(node, TrackProperty::Rotation, Interpolation::Linear, &times, &quat_values(&rv)));
    }
    Clip::new(name, tracks).expect("valid clip")
}

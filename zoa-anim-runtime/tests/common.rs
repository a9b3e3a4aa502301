//! Hand-built skeletons and clips shared by the integration tests.
#![allow(dead_code)]

use std::path::PathBuf;

use zoa_anim_core::glam::{Mat4, Quat, Vec3};
use zoa_anim_core::{Clip, Interpolation, Joint, Skeleton, Track, TrackProperty, Transform};

/// root(node 10) ─┬─ spine(11) ── arm(12) ── hand(13)
///                └─ leg(14)
pub fn skeleton() -> Skeleton {
    let j = |name: &str, node: u32, parent: Option<u16>, t: Transform| Joint {
        name: Some(name.into()),
        node,
        parent,
        rest: t,
        inverse_bind: Mat4::IDENTITY,
    };
    let rest = |x: f32, angle: f32| Transform {
        translation: Vec3::new(x, 1.0, 0.0),
        rotation: Quat::from_rotation_x(angle),
        scale: Vec3::ONE,
    };
    Skeleton::new(
        "test",
        vec![
            j("root", 10, None, rest(0.0, 0.1)),
            j("spine", 11, Some(0), rest(0.5, 0.2)),
            j("arm", 12, Some(1), rest(1.0, -0.3)),
            j("hand", 13, Some(2), rest(0.25, 0.4)),
            j("leg", 14, Some(0), rest(-0.5, 0.5)),
        ],
    )
    .unwrap()
}

pub fn track(node: u32, property: TrackProperty, interpolation: Interpolation, times: &[f32], values: &[f32]) -> Track {
    Track { node, node_name: None, property, interpolation, times: times.to_vec(), values: values.to_vec() }
}

pub fn quat_values(qs: &[Quat]) -> Vec<f32> {
    qs.iter().flat_map(|q| q.to_array()).collect()
}

/// A clip animating every property of every joint of [`skeleton`], with
/// joint- and clip-dependent values (seeded by `k`), linear, keys at 0..=4 s.
pub fn full_clip(name: &str, k: f32) -> Clip {
    let times = [0.0, 1.0, 2.5, 3.0, 4.0];
    let mut tracks = Vec::new();
    for node in 10..15 {
        let f = node as f32 + k;
        let tv: Vec<f32> = times.iter().flat_map(|t| [f * 0.1 + t, (f * t).sin(), k - t]).collect();
        let rv: Vec<Quat> = times
            .iter()
            .map(|t| Quat::from_euler(zoa_anim_core::glam::EulerRot::XYZ, f * 0.3 + t, k * t, 0.2 * f))
            .collect();
        let sv: Vec<f32> = times.iter().flat_map(|t| [1.0 + 0.1 * t, 1.0, 1.0 + 0.05 * f]).collect();
        tracks.push(track(node, TrackProperty::Translation, Interpolation::Linear, &times, &tv));
        tracks.push(track(node, TrackProperty::Rotation, Interpolation::Linear, &times, &quat_values(&rv)));
        tracks.push(track(node, TrackProperty::Scale, Interpolation::Linear, &times, &sv));
    }
    Clip::new(name, tracks).unwrap()
}

/// The shared third-party assets folder, or `None` (with a note) when absent.
pub fn assets_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("ZOA_ASSETS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/assets")));
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!("note: shared assets folder {} is absent; skipping", dir.display());
        None
    }
}

pub fn close(a: f32, b: f32, eps: f32) -> bool {
    (a - b).abs() <= eps
}

/// Same rotation up to sign, within `eps` per component.
pub fn quat_close(a: Quat, b: Quat, eps: f32) -> bool {
    let d = a.dot(b).signum();
    (0..4).all(|i| (a.to_array()[i] - d * b.to_array()[i]).abs() <= eps)
}

//! The checked reader: every documented failure, truncation at every
//! length, flipped bytes, and the round trip of a small character.

use std::path::PathBuf;

use zoa_anim_core::glam::{Mat4, Quat, Vec3};
use zoa_anim_core::{
    AnimationSelector, BundledClip, CharacterBundle, Clip, ClipAsset, Interpolation, Joint, Skeleton, Track,
    TrackProperty, Transform,
};

use super::*;

fn skeleton() -> Skeleton {
    let joint = |parent: Option<u16>, node: u32, y: f32| Joint {
        name: Some(format!("j{node}")),
        node,
        parent,
        rest: Transform { translation: Vec3::new(0.0, y, 0.0), ..Transform::IDENTITY },
        inverse_bind: Mat4::IDENTITY,
    };
    Skeleton::new("s", vec![joint(None, 0, 0.0), joint(Some(0), 1, 0.5), joint(Some(1), 2, 0.5)]).unwrap()
}

fn clip() -> Clip {
    let times: Vec<f32> = (0..31).map(|k| k as f32 / 30.0).collect();
    let rot: Vec<f32> = times
        .iter()
        .flat_map(|t| {
            Quat::from_rotation_z(t.min(0.5) + (t * 20.0).sin() * 0.02 * f32::from(u8::from(*t > 0.8))).to_array()
        })
        .collect();
    let pos: Vec<f32> = times.iter().flat_map(|t| [0.0, 1.0 + t * 0.25, 0.0]).collect();
    let track = |node, property, values| Track {
        node,
        node_name: Some(format!("j{node}")),
        property,
        interpolation: Interpolation::Linear,
        times: times.clone(),
        values,
    };
    Clip::new("wave", vec![track(1, TrackProperty::Rotation, rot), track(0, TrackProperty::Translation, pos)]).unwrap()
}

fn baked_bytes() -> Vec<u8> {
    let mut bundle = CharacterBundle::new(skeleton());
    let asset = ClipAsset {
        id: "wave".into(),
        source: "model.glb".into(),
        animation: AnimationSelector::Name("wave".into()),
        rate: 1.0,
        loop_hint: true,
        notifies: Vec::new(),
        markers: Vec::new(),
        curves: Vec::new(),
        binding: zoa_anim_core::ClipBinding::Auto,
    };
    bundle.clips.push(BundledClip { asset, clip: clip(), source_skeleton: None });
    let defs = vec![(PathBuf::from("clips/wave.toml"), "kind = \"clip\"\nid = \"wave\"\n".to_owned())];
    bake(&defs, &bundle, &Tolerance::default()).0
}

#[test]
fn a_baked_character_reads_back_within_the_tolerance() {
    let bytes = baked_bytes();
    let back = read_baked(&bytes).unwrap();
    assert_eq!(back.skeleton, skeleton());
    assert_eq!(back.definitions[0].0, PathBuf::from("clips/wave.toml"));
    assert_eq!(back.clips.len(), 1);
    let (orig, baked) = (clip(), &back.clips[0].clip);
    assert_eq!(baked.duration(), orig.duration());
    // The straight translation keeps two keys; the rotation fewer than 31.
    assert_eq!(baked.tracks()[1].key_count(), 2);
    assert!(baked.tracks()[0].key_count() < 31);
    for k in 0..31 {
        let q0 = Quat::from_slice(orig.tracks()[0].key_value(k));
        let t = orig.tracks()[0].times[k];
        let kt = &baked.tracks()[0];
        let i = kt.times.partition_point(|x| *x <= t).clamp(1, kt.key_count() - 1);
        let (a, b) = (Quat::from_slice(kt.key_value(i - 1)), Quat::from_slice(kt.key_value(i)));
        let u = (t - kt.times[i - 1]) / (kt.times[i] - kt.times[i - 1]);
        let angle = tracks::angle_between(q0, a.slerp(b, u));
        assert!(angle <= 0.01f32.to_radians() + 1e-6, "key {k}: {angle} rad");
    }
}

#[test]
fn every_truncation_is_an_error() {
    let bytes = baked_bytes();
    for len in 0..bytes.len() {
        let e = read_baked(&bytes[..len]).unwrap_err();
        assert!(matches!(e, BakedProblem::Truncated { .. }), "{len}: {e}");
    }
}

#[test]
fn every_flipped_byte_is_an_error() {
    let bytes = baked_bytes();
    for i in 0..bytes.len() {
        let mut b = bytes.clone();
        b[i] ^= 0x5a;
        assert!(read_baked(&b).is_err(), "flip at {i} was accepted");
    }
}

#[test]
fn wrong_magic_and_other_versions_are_named() {
    let mut b = baked_bytes();
    b[0] = b'X';
    assert_eq!(read_baked(&b).unwrap_err(), BakedProblem::BadMagic);
    let mut b = baked_bytes();
    b[8..12].copy_from_slice(&(VERSION + 1).to_le_bytes());
    let e = read_baked(&b).unwrap_err();
    assert_eq!(e, BakedProblem::UnsupportedVersion { found: VERSION + 1 });
    assert!(e.to_string().contains("bake the folder again"), "{e}");
    // A file of an earlier version (its tracks packed otherwise) is named too.
    let mut b = baked_bytes();
    b[8..12].copy_from_slice(&(VERSION - 1).to_le_bytes());
    assert_eq!(read_baked(&b).unwrap_err(), BakedProblem::UnsupportedVersion { found: VERSION - 1 });
    let mut b = baked_bytes();
    b.push(0);
    assert_eq!(read_baked(&b).unwrap_err(), BakedProblem::TrailingBytes { extra: 1 });
    let mut b = baked_bytes();
    let last = b.len() - 1;
    b[last] ^= 1;
    assert_eq!(read_baked(&b).unwrap_err(), BakedProblem::Checksum);
}

/// A payload with a valid checksum but a hostile count: refused before allocating.
#[test]
fn a_huge_count_with_a_valid_checksum_is_corrupt_not_an_allocation() {
    let mut payload = Vec::new();
    for v in [1e-4f32, 0.01, 1e-4] {
        payload.extend_from_slice(&v.to_le_bytes());
    }
    payload.extend_from_slice(b"DEFS");
    payload.extend_from_slice(&4u64.to_le_bytes());
    payload.extend_from_slice(&u32::MAX.to_le_bytes());
    let b = seal(&payload);
    let e = read_baked(&b).unwrap_err();
    assert!(matches!(&e, BakedProblem::Corrupt { what, .. } if what.contains("definition files")), "{e}");
}

/// Past the checksum: every byte of the payload changed (and resealed, so
/// the checksum holds) reads or fails, never panics; every shortened payload fails.
#[test]
fn resealed_corrupt_payloads_fail_without_panicking() {
    let bytes = baked_bytes();
    let payload = &bytes[HEADER_BYTES..];
    for i in 0..payload.len() {
        for x in [0x01u8, 0x80, 0xff] {
            let mut p = payload.to_vec();
            p[i] ^= x;
            let _ = read_baked(&seal(&p));
        }
    }
    for len in 0..payload.len() {
        assert!(read_baked(&seal(&payload[..len])).is_err(), "payload cut at {len} was accepted");
    }
    assert_eq!(read_baked(&seal(payload)).unwrap().clips.len(), 1);
}

//! Lane batches against each track sampled by the definition, on every
//! kernel path.

use glam::Mat4;
use proptest::prelude::*;
use zoa_anim_core::{Clip, Joint, Skeleton, Track, TrackProperty, Transform};

use super::blocks::sample_batches_at;
use super::cursor::SegmentFinder;
use super::lanes::{LaneCursors, sample_lane_batches_at};
use super::splines::{sample_spline_batches_at, sample_spline_lane_batches_at};
use super::*;
use crate::pose::math::hermite_basis;
use crate::pose::simd::tests::each_path;
use crate::pose::simd::{BLOCK, Row};

const JOINTS: usize = 20;

/// Tracks whose key times no other track shares, from a seed: 1–7 keys
/// at increasing times with some repeated, linear or step, rotations
/// in both hemispheres and a hair off unit length.
fn clip(seed: u64) -> Clip {
    let mut state = seed | 1;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 40) as f32 / (1u64 << 24) as f32
    };
    let mut tracks = Vec::new();
    for node in 0..JOINTS as u32 {
        for property in [TrackProperty::Translation, TrackProperty::Rotation, TrackProperty::Scale] {
            let keys = 1 + (next() * 7.0) as usize;
            let mut times = vec![next() * 0.5];
            for _ in 1..keys {
                let last = *times.last().unwrap();
                times.push(if next() < 0.15 { last } else { last + 0.05 + next() });
            }
            let mut values = Vec::new();
            for _ in 0..keys {
                if property == TrackProperty::Rotation {
                    let axis = glam::Vec3::new(next() - 0.5, next() - 0.5, next() - 0.5).normalize_or(glam::Vec3::X);
                    let mut q = Quat::from_axis_angle(axis, next() * 6.0);
                    if next() < 0.3 {
                        q = -q;
                    }
                    let off = if next() < 0.2 { 1.0 + 1e-4 * (next() - 0.5) } else { 1.0 };
                    let mut q = (q * off).to_array();
                    // Exported keys often hold signed zeros, which must
                    // come back at key times with their sign.
                    if next() < 0.25 {
                        (q[0], q[2]) = (-0.0, 0.0);
                    }
                    values.extend(q);
                } else {
                    values.extend([next() * 4.0 - 2.0, next() - 0.5, next() * 2.0]);
                }
            }
            let interpolation = if next() < 0.3 { Interpolation::Step } else { Interpolation::Linear };
            tracks.push(Track { node, node_name: None, property, interpolation, times, values });
        }
    }
    Clip::new("lanes", tracks).unwrap()
}

/// Block batches write the lanes past the last joint as well (so the
/// last block's rows are stored whole), and those lanes keep the
/// identity a pose holds there, on every path.
#[test]
fn block_batches_keep_the_identity_past_the_last_joint() {
    let times = vec![0.0, 0.4, 1.0];
    let tracks = (0..JOINTS as u32)
        .flat_map(|node| {
            let times = times.clone();
            [TrackProperty::Translation, TrackProperty::Rotation, TrackProperty::Scale].map(move |property| {
                let values = (0..3)
                    .flat_map(|k| match property {
                        TrackProperty::Rotation => Quat::from_rotation_y(0.3 * (node + k) as f32).to_array().to_vec(),
                        _ => vec![node as f32 + 0.5, k as f32 + 2.0, -1.5],
                    })
                    .collect();
                Track {
                    node,
                    node_name: None,
                    property,
                    interpolation: Interpolation::Linear,
                    times: times.clone(),
                    values,
                }
            })
        })
        .collect();
    let a = Animation::bind(&Clip::new("shared", tracks).unwrap(), &skeleton(), BindBy::Node).unwrap();
    let last = JOINTS / BLOCK;
    for set in &a.batched {
        let batch = set.batches.iter().find(|b| b.block as usize == last).expect("a batch of the last block");
        assert_eq!(batch.lanes, [1; BLOCK], "tracks and padding lanes");
    }
    let identity = Pose::identity(JOINTS);
    each_path(|path, level| {
        let mut pose = identity.clone();
        let mut cursors = vec![0; a.cursor_count()];
        for t in [0.0, 0.25, 0.4, 0.9, 1.0] {
            let mut finder = SegmentFinder::new(&a.times, t);
            sample_batches_at(level, &a, &mut finder, &mut cursors, &mut pose, None);
            let (got, want) = (pose.rows(), identity.rows());
            for (p, k) in [(0, 3), (1, 4), (2, 3)] {
                let got = &[got.0, got.1, got.2][p][last * k..][..k];
                let want = &[want.0, want.1, want.2][p][last * k..][..k];
                for (g, w) in got.iter().zip(want) {
                    let pad = |r: &Row| r.0[JOINTS % BLOCK..].iter().map(|v| v.to_bits()).collect::<Vec<_>>();
                    assert_eq!(pad(g), pad(w), "{path}: t = {t}, property {p}");
                }
            }
        }
    });
}

/// A time a hair short of a segment's end can round its parameter up
/// to 1: the lane then holds the segment's last key as stored, not the
/// copy moved into the first key's hemisphere for the slerp.
#[test]
fn a_lane_whose_parameter_rounds_to_one_holds_the_next_key_with_its_sign() {
    let (lo, hi) = (f32::from_bits(0x3a7c_6926), f32::from_bits(0x3b4b_4562));
    let t = f32::from_bits(hi.to_bits() - 1);
    assert_eq!((t - lo) / (hi - lo), 1.0, "the parameter rounds to 1");
    let far = (-Quat::from_rotation_y(2.5)).to_array();
    let rotation = |node: u32, times: Vec<f32>, values: Vec<f32>| Track {
        node,
        node_name: None,
        property: TrackProperty::Rotation,
        interpolation: Interpolation::Linear,
        times,
        values,
    };
    let tracks = vec![
        rotation(0, vec![lo, hi], [Quat::from_rotation_x(0.2).to_array(), far].concat()),
        rotation(1, vec![0.0, 1.0], [Quat::IDENTITY.to_array(), Quat::from_rotation_z(1.0).to_array()].concat()),
    ];
    let a = Animation::bind(&Clip::new("end", tracks).unwrap(), &skeleton(), BindBy::Node).unwrap();
    assert_eq!(a.lane_tracks, 2, "both tracks sampled as lanes");
    each_path(|path, level| {
        let mut pose = Pose::identity(JOINTS);
        let (mut cursors, mut ends) = (vec![0; 2], vec![0.0; 2]);
        let cursors = LaneCursors { cursors: &mut cursors, ends: &mut ends };
        sample_lane_batches_at(level, &a, t, cursors, &mut pose, None);
        assert_eq!(pose.rotation(0).to_array().map(f32::to_bits), far.map(f32::to_bits), "{path}");
    });
}

fn skeleton() -> Skeleton {
    let joints = (0..JOINTS)
        .map(|j| Joint {
            name: None,
            node: j as u32,
            parent: j.checked_sub(1).map(|p| p as u16),
            rest: Transform::IDENTITY,
            inverse_bind: Mat4::IDENTITY,
        })
        .collect();
    Skeleton::new("chain", joints).unwrap()
}

/// Three.js's sampling of one track at `t`, and whether it is a key's
/// value (then exact).
fn reference(track: &Track, t: f32) -> ([f32; 4], bool) {
    let c = track.property.components();
    let key = |k: usize| {
        let mut v = [0.0; 4];
        v[..c].copy_from_slice(track.key_value(k));
        v
    };
    let times = &track.times;
    let n = times.len();
    if n == 1 || t < times[0] {
        return (key(0), true);
    }
    if t >= times[n - 1] {
        return (key(n - 1), true);
    }
    let i = times.partition_point(|&x| x <= t) - 1;
    let cubic = track.interpolation == Interpolation::CubicSpline;
    if track.interpolation == Interpolation::Step || (t == times[i] && !cubic) {
        return (key(i), true);
    }
    let alpha = (t - times[i]) / (times[i + 1] - times[i]);
    let (a, b) = (key(i), key(i + 1));
    if cubic {
        // glTF's cubic spline: tangents times the key interval; three.js
        // normalizes a rotation's result, at a key's own time as well
        // (only outside the keys does it return a key as stored).
        let dt = times[i + 1] - times[i];
        let tangent = |k: usize, part: usize| &track.values[(3 * k + part) * c..][..c];
        let (out0, in1) = (tangent(i, 2), tangent(i + 1, 0));
        let [s0, s1, s2, s3] = hermite_basis(alpha);
        let mut v = [0.0; 4];
        for k in 0..c {
            v[k] = a[k] * s0 + out0[k] * dt * s1 + b[k] * s2 + in1[k] * dt * s3;
        }
        if c == 4 {
            v = Quat::from_array(v).normalize().to_array();
        }
        return (v, false);
    }
    if c == 4 {
        let q = crate::pose::math::slerp(Quat::from_array(a), Quat::from_array(b), alpha);
        (q.to_array(), false)
    } else {
        (std::array::from_fn(|k| a[k] * (1.0 - alpha) + b[k] * alpha), false)
    }
}

/// Cubic splines from a seed: in most blocks splines of every property
/// (random values and tangents, rotations in both hemispheres) with a
/// constant linear track beside them, and in the last block one spline
/// alone. With `own_times` every track has its own key times (1–6 keys,
/// some repeated), else every track of a block shares one array.
fn cubic_clip(seed: u64, own_times: bool) -> Clip {
    let mut state = seed | 1;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 40) as f32 / (1u64 << 24) as f32
    };
    let mut tracks = Vec::new();
    let last_block = (JOINTS - 1) / BLOCK;
    for block in 0..=last_block {
        let keys = 2 + (next() * 5.0) as usize;
        let mut times = vec![next() * 0.3];
        for _ in 1..keys {
            let last = *times.last().unwrap();
            times.push(last + 0.05 + next());
        }
        let joints = block * BLOCK..((block + 1) * BLOCK).min(JOINTS);
        for node in joints.clone() {
            for property in [TrackProperty::Translation, TrackProperty::Rotation, TrackProperty::Scale] {
                let alone = block == last_block && node != joints.start;
                if alone || (node % 5 == 3 && property != TrackProperty::Rotation) {
                    continue;
                }
                let c = property.components();
                let constant = node % 7 == 2 && property == TrackProperty::Scale;
                let mut times = times.clone();
                if own_times {
                    times = vec![next() * 0.5];
                    for _ in 1..1 + (next() * 6.0) as usize {
                        let last = *times.last().unwrap();
                        times.push(if next() < 0.15 { last } else { last + 0.05 + next() });
                    }
                }
                let keys = times.len();
                let mut values = Vec::new();
                for _ in 0..keys {
                    let mut key = |tangent: bool| -> Vec<f32> {
                        if constant {
                            return vec![1.5; c];
                        }
                        if property == TrackProperty::Rotation && !tangent {
                            let axis =
                                glam::Vec3::new(next() - 0.5, next() - 0.5, next() - 0.5).normalize_or(glam::Vec3::X);
                            let q = Quat::from_axis_angle(axis, next() * 6.0);
                            return (if next() < 0.3 { -q } else { q }).to_array().to_vec();
                        }
                        (0..c).map(|_| next() * 2.0 - 1.0).collect()
                    };
                    if constant {
                        values.extend(key(false));
                    } else {
                        let (a, v, b) = (key(true), key(false), key(true));
                        values.extend(a.into_iter().chain(v).chain(b));
                    }
                }
                let interpolation = if constant { Interpolation::Linear } else { Interpolation::CubicSpline };
                tracks.push(Track { node: node as u32, node_name: None, property, interpolation, times, values });
            }
        }
    }
    Clip::new("cubic", tracks).unwrap()
}

/// Samples `cubic_clip(seed, own_times)` at `times` and at its key
/// times: the cubic kernel (block or lane batches) on every path, with
/// every third sample masked, then the whole job (the spline sampled
/// alone included). Every track must match the spline by its definition
/// within 1e-6, a key's value as stored bit for bit, masked joints and
/// the last block's padding lanes untouched.
fn check_cubic_sampling(seed: u64, times: &[f32], own_times: bool) -> Result<(), String> {
    let clip = cubic_clip(seed, own_times);
    let a = Animation::bind(&clip, &skeleton(), BindBy::Node).unwrap();
    // (property, block, lanes) of the kernel's batches.
    let kernel_batches: Vec<(usize, u32, [u8; BLOCK])> = if own_times {
        (0..3).flat_map(|p| a.spline_lane_batched[p].iter().map(move |b| (p, b.block, b.lanes))).collect()
    } else {
        (0..3).flat_map(|p| a.splined[p].batches.iter().map(move |b| (p, b.block, b.lanes))).collect()
    };
    let count = kernel_batches.len();
    if count < 3 {
        return Err(format!("{count} cubic batches"));
    }
    if !a
        .rotations
        .iter()
        .chain(&a.translations)
        .chain(&a.scales)
        .any(|h| h.interpolation == Interpolation::CubicSpline)
    {
        return Err("no cubic spline sampled alone".into());
    }
    // Which (property, joint) the kernel's batches animate.
    let mut batched = [[false; JOINTS]; 3];
    for &(p, block, lanes) in &kernel_batches {
        for (l, &on) in lanes.iter().enumerate() {
            let j = block as usize * BLOCK + l;
            if on != 0 && j < JOINTS {
                batched[p][j] = true;
            }
        }
    }
    let of = |pose: &Pose, p: usize, j: usize| -> [f32; 4] {
        match p {
            0 => pose.translation(j).extend(0.0).to_array(),
            1 => pose.rotation(j).to_array(),
            _ => pose.scale(j).extend(0.0).to_array(),
        }
    };
    let property = |track: &Track| match track.property {
        TrackProperty::Translation => 0,
        TrackProperty::Rotation => 1,
        TrackProperty::Scale => 2,
    };
    let mask: Vec<f32> = (0..JOINTS).map(|j| if j % 4 == 1 { 0.0 } else { 1.0 }).collect();
    let keyed: Vec<f32> = clip.tracks().iter().step_by(5).flat_map(|t| t.times.iter().copied()).collect();
    let mut failure = None;
    // `before`: the pose before a masked sample, which masked joints keep.
    let mut check = |what: &str, pose: &Pose, t: f32, only_batched: bool, before: Option<&Pose>| {
        for track in clip.tracks() {
            let (p, j) = (property(track), track.node as usize);
            if only_batched && !batched[p][j] {
                continue;
            }
            let got = of(pose, p, j);
            let (want, exact) = match before {
                Some(before) if mask[j] == 0.0 => (of(before, p, j), true),
                _ => reference(track, t),
            };
            let ok = if exact {
                got.map(f32::to_bits) == want.map(f32::to_bits)
            } else {
                got.iter().zip(want).all(|(g, w)| (g - w).abs() <= 1e-6)
            };
            if !ok && failure.is_none() {
                failure = Some(format!("{what}: t = {t}, joint {j} {:?}: {got:?} vs {want:?}", track.property));
            }
        }
        // The last block's lanes past the last joint hold the identity.
        let (rows, identity) = (pose.rows(), Pose::identity(JOINTS));
        let ident = identity.rows();
        let last = JOINTS / BLOCK;
        let pad = |r: &[Row]| -> Vec<u32> {
            r.iter().flat_map(|r| r.0[JOINTS % BLOCK..].iter().map(|v| v.to_bits())).collect()
        };
        for (got, want, k) in [(rows.0, ident.0, 3), (rows.1, ident.1, 4), (rows.2, ident.2, 3)] {
            if pad(&got[last * k..][..k]) != pad(&want[last * k..][..k]) && failure.is_none() {
                failure = Some(format!("{what}: t = {t}: padding lanes moved"));
            }
        }
    };
    each_path(|path, level| {
        let mut pose = Pose::identity(JOINTS);
        // Cursors are hints: start from ones another animation could
        // have left.
        let mut cursors: Vec<u32> = (0..count.max(a.lane_tracks)).map(|k| [0, u32::MAX, 3, 1000][k % 4]).collect();
        let mut ends: Vec<f32> = (0..a.lane_tracks).map(|k| [0.0, f32::NEG_INFINITY, f32::NAN][k % 3]).collect();
        for (step, t) in times.iter().copied().chain(keyed.iter().copied()).enumerate() {
            let masked = (step % 3 == 2).then_some(&mask[..]);
            let before = pose.clone();
            if own_times {
                let cursors = LaneCursors { cursors: &mut cursors, ends: &mut ends };
                sample_spline_lane_batches_at(level, &a, t, cursors, &mut pose, masked);
            } else {
                let mut finder = SegmentFinder::new(&a.times, t);
                sample_spline_batches_at(level, &a, &mut finder, &mut cursors[..count], &mut pose, masked);
            }
            check(path, &pose, t, true, masked.map(|_| &before));
        }
    });
    let mut pose = Pose::identity(JOINTS);
    let mut context = SamplingContext::for_animation(&a);
    for t in times.iter().copied().chain(keyed.iter().copied()) {
        SamplingJob { animation: &a, time: t, context: &mut context, output: &mut pose }.run().unwrap();
        check("job", &pose, t, false, None);
    }
    failure.map_or(Ok(()), Err)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    /// Cubic splines sharing key times in a block are sampled as block
    /// batches, a spline alone in its block one at a time (see
    /// `check_cubic_sampling`).
    #[test]
    fn cubic_batches_match_each_track_sampled_by_the_definition(
        seed in any::<u64>(),
        times in proptest::collection::vec(-0.5f32..6.0, 1..16),
    ) {
        if let Err(e) = check_cubic_sampling(seed, &times, false) {
            prop_assert!(false, "{}", e);
        }
    }

    /// Cubic splines with their own key times are sampled as cubic lane
    /// batches (see `check_cubic_sampling`).
    #[test]
    fn cubic_lane_batches_match_each_track_sampled_by_the_definition(
        seed in any::<u64>(),
        times in proptest::collection::vec(-0.5f32..6.0, 1..16),
    ) {
        if let Err(e) = check_cubic_sampling(seed, &times, true) {
            prop_assert!(false, "{}", e);
        }
    }

    /// Forward steps, jumps back and masked samples: every lane within
    /// 1e-6 of its track sampled by the definition, a key's value bit
    /// for bit, masked joints untouched.
    #[test]
    fn lane_batches_match_each_track_sampled_by_the_definition(
        seed in any::<u64>(),
        times in proptest::collection::vec(-0.5f32..6.0, 1..24),
    ) {
        let clip = clip(seed);
        let skeleton = skeleton();
        let a = Animation::bind(&clip, &skeleton, BindBy::Node).unwrap();
        prop_assert!(a.lane_tracks > 0);
        let mut in_lanes = [[false; JOINTS]; 3];
        for (p, batches) in a.lane_batched.iter().enumerate() {
            for b in batches {
                for (l, &on) in b.lanes.iter().enumerate() {
                    if on != 0 {
                        in_lanes[p][b.block as usize * BLOCK + l] = true;
                    }
                }
            }
        }
        let mask: Vec<f32> = (0..JOINTS).map(|j| if j % 3 == 1 { 0.0 } else { 0.5 }).collect();
        let mut failure = None;
        each_path(|path, level| {
            let mut pose = Pose::identity(JOINTS);
            // Cursors are hints: start from ones another animation
            // could have left (past the end, or wrapping on the step).
            let mut cursors: Vec<u32> = (0..a.lane_tracks).map(|k| [0, u32::MAX, 3, 1000][k % 4]).collect();
            let mut ends: Vec<f32> = (0..a.lane_tracks).map(|k| [0.0, f32::NEG_INFINITY, f32::NAN][k % 3]).collect();
            // Key times of the clip as well as the random ones.
            let keyed = clip.tracks().iter().step_by(7).flat_map(|t| t.times.iter().copied());
            for (step, t) in times.iter().copied().chain(keyed).enumerate() {
                let masked = step % 5 == 4;
                let before = pose.clone();
                let cursors = LaneCursors { cursors: &mut cursors, ends: &mut ends };
                sample_lane_batches_at(level, &a, t, cursors, &mut pose, masked.then_some(&mask[..]));
                for track in clip.tracks() {
                    let j = track.node as usize;
                    let p = match track.property {
                        TrackProperty::Translation => 0,
                        TrackProperty::Rotation => 1,
                        TrackProperty::Scale => 2,
                    };
                    if !in_lanes[p][j] {
                        continue;
                    }
                    let of = |pose: &Pose| -> [f32; 4] {
                        match p {
                            0 => pose.translation(j).extend(0.0).to_array(),
                            1 => pose.rotation(j).to_array(),
                            _ => pose.scale(j).extend(0.0).to_array(),
                        }
                    };
                    let got = of(&pose);
                    let (want, exact) = if masked && mask[j] == 0.0 { (of(&before), true) } else { reference(track, t) };
                    let ok = if exact {
                        got.map(f32::to_bits) == want.map(f32::to_bits)
                    } else {
                        got.iter().zip(want).all(|(g, w)| (g - w).abs() <= 1e-6)
                    };
                    if !ok && failure.is_none() {
                        failure = Some(format!("{path}: t = {t}, joint {j} {:?}: {got:?} vs {want:?}", track.property));
                    }
                }
            }
        });
        prop_assert!(failure.is_none(), "{}", failure.unwrap());
    }
}

//! Morph weights against literal `f64` transcriptions of glTF sampling and
//! three.js's `PropertyMixer` (accumulate, additive, apply over the default).

use std::sync::Arc;

use glam::{Mat4, Quat, Vec3};
use zoa_anim_core::{Clip, Interpolation, Joint, MorphNode, MorphTrack, Skeleton, Transform};

use crate::pose::{
    AdditiveReference, Animation, BindBy, BoneWeights, BoundMotion, ClipPlayer, Composition, Layer, LayerSource,
    RuntimeSkeleton,
};

const TIMES: [f32; 4] = [0.0, 1.0, 2.5, 4.0];

fn skeleton() -> Skeleton {
    let j = |name: &str, node: u32, parent: Option<u16>| Joint {
        name: Some(name.into()),
        node,
        parent,
        rest: Transform { translation: Vec3::Y, rotation: Quat::IDENTITY, scale: Vec3::ONE },
        inverse_bind: Mat4::IDENTITY,
    };
    Skeleton::new("m", vec![j("root", 0, None), j("spine", 1, Some(0)), j("head", 2, Some(1))]).unwrap()
}

/// A face under the head joint (3 targets) and a prop below no joint (2).
fn nodes() -> Vec<MorphNode> {
    vec![
        MorphNode { node: 5, name: Some("face".into()), ancestors: vec![2, 1, 0], weights: vec![0.1, 0.0, 0.5] },
        MorphNode { node: 6, name: Some("prop".into()), ancestors: vec![], weights: vec![0.0, 1.0] },
    ]
}

fn values(k: f32, per_key: usize) -> Vec<f32> {
    (0..TIMES.len() * per_key).map(|i| ((i as f32 + 1.0) * 0.37 + k).sin()).collect()
}

fn clip(name: &str, k: f32, interpolation: Interpolation) -> Clip {
    let cubic = if interpolation == Interpolation::CubicSpline { 3 } else { 1 };
    let track = |node: u32, targets: usize| MorphTrack {
        node,
        node_name: None,
        targets,
        interpolation,
        times: TIMES.to_vec(),
        values: values(k + node as f32, targets * cubic),
    };
    Clip::new(name, vec![]).unwrap().with_morph_tracks(vec![track(5, 3), track(6, 2)]).unwrap()
}

/// glTF 2.0 sampling of one track in `f64` (three.js's interpolants).
fn sample(track: &MorphTrack, t: f32) -> Vec<f64> {
    let n = track.targets;
    let key = |k: usize| -> Vec<f64> { track.key_weights(k).iter().map(|&v| f64::from(v)).collect() };
    let times = &track.times;
    let next = times.iter().take_while(|&&k| k <= t).count();
    if next == 0 {
        return key(0);
    }
    if next == times.len() {
        return key(times.len() - 1);
    }
    let (t0, t1, t) = (f64::from(times[next - 1]), f64::from(times[next]), f64::from(t));
    let p = (t - t0) / (t1 - t0);
    match track.interpolation {
        Interpolation::Step => key(next - 1),
        Interpolation::Linear => key(next - 1).iter().zip(key(next)).map(|(a, b)| a * (1.0 - p) + b * p).collect(),
        Interpolation::CubicSpline => {
            let v = |k: usize, part: usize, i: usize| f64::from(track.values[k * 3 * n + part * n + i]);
            let td = t1 - t0;
            let (pp, ppp) = (p * p, p * p * p);
            let (s2, s3) = (-2.0 * ppp + 3.0 * pp, ppp - pp);
            let (s0, s1) = (1.0 - s2, s3 - pp + p);
            let (k0, k1) = (next - 1, next);
            (0..n)
                .map(|i| s0 * v(k0, 1, i) + s1 * v(k0, 2, i) * td + s2 * v(k1, 1, i) + s3 * v(k1, 0, i) * td)
                .collect()
        }
    }
}

fn close(got: &[f32], want: &[f64]) {
    assert_eq!(got.len(), want.len());
    for (g, w) in got.iter().zip(want) {
        assert!((f64::from(*g) - w).abs() < 1e-6, "{got:?} vs {want:?}");
    }
}

fn rig() -> Arc<RuntimeSkeleton> {
    Arc::new(RuntimeSkeleton::with_morphs(skeleton(), &nodes()))
}

fn bound(clip: &Clip, rig: &RuntimeSkeleton) -> Arc<Animation> {
    Arc::new(Animation::bind_to(clip, rig, BindBy::Node).unwrap())
}

fn at(animation: &Arc<Animation>, time: f32, looping: bool) -> LayerSource {
    LayerSource::Clip { motion: BoundMotion { animation: Arc::clone(animation), looping }, time, speed: 1.0 }
}

fn play(layers: Vec<Layer>, composition: Composition) -> Vec<f32> {
    let mut player = ClipPlayer::new(rig(), layers).unwrap().with_composition(composition);
    player.evaluate().unwrap();
    player.morph_pose().unwrap().weights().to_vec()
}

#[test]
fn the_set_lays_nodes_out_flat_and_finds_their_joints() {
    let rig = rig();
    let set = rig.morphs();
    assert_eq!(set.weight_count(), 5);
    assert_eq!(set.slots()[0].range, 0..3);
    assert_eq!(set.slots()[1].range, 3..5);
    assert_eq!(set.slots()[0].joint, Some(2), "the nearest ancestor that is a joint");
    assert_eq!(set.slots()[1].joint, None);
    assert_eq!(set.defaults(), [0.1, 0.0, 0.5, 0.0, 1.0]);
    assert_eq!((set.find_node(6), set.find_name("face")), (Some(1), Some(0)));
}

#[test]
fn sampling_is_gltf_for_every_interpolation() {
    let rig = rig();
    for interpolation in [Interpolation::Step, Interpolation::Linear, Interpolation::CubicSpline] {
        let c = clip("c", 0.4, interpolation);
        let a = bound(&c, &rig);
        assert!(a.animates_morphs());
        for t in [-1.0, 0.0, 0.3, 1.0, 1.7, 2.5, 3.99, 4.0, 9.0] {
            let got = a.sample_morphs_to_new(t, rig.morphs());
            close(&got[0..3], &sample(&c.morph_tracks()[0], t));
            close(&got[3..5], &sample(&c.morph_tracks()[1], t));
        }
    }
}

#[test]
fn tracks_bind_by_node_or_name_and_a_wrong_size_is_unbound() {
    let rig = rig();
    let mut c = clip("c", 0.0, Interpolation::Linear);
    assert_eq!(Animation::bind_to(&c, &rig, BindBy::Node).unwrap().unbound_tracks(), 0);
    // By name: the tracks carry none, so both are unbound.
    assert_eq!(Animation::bind_to(&c, &rig, BindBy::Name).unwrap().unbound_tracks(), 2);
    let mut tracks = c.morph_tracks().to_vec();
    tracks[1].targets = 1;
    tracks[1].values.truncate(TIMES.len());
    tracks[0].node_name = Some("face".into());
    c = Clip::new("d", vec![]).unwrap().with_morph_tracks(tracks).unwrap();
    let a = Animation::bind_to(&c, &rig, BindBy::Name).unwrap();
    assert_eq!(a.unbound_tracks(), 1);
    // Bound without a rig's morphs (`Animation::bind`), a clip animates none.
    assert!(!Animation::bind(&c, rig.skeleton(), BindBy::Node).unwrap().animates_morphs());
}

#[test]
fn a_mixer_accumulates_as_three_js_and_fills_the_defaults() {
    let rig = rig();
    let (c0, c1) = (clip("a", 0.1, Interpolation::Linear), clip("b", 0.9, Interpolation::Linear));
    let (a0, a1) = (bound(&c0, &rig), bound(&c1, &rig));
    let layers = vec![
        Layer::new("a", at(&a0, 0.7, true)).with_weight(0.3),
        Layer::new("b", at(&a1, 2.0, true)).with_weight(0.4),
    ];
    let got = play(layers, Composition::Mixer);
    let defaults = rig.morphs().defaults();
    for (track, range) in [(0, 0..3), (1, 3..5)] {
        let (x0, x1) = (sample(&c0.morph_tracks()[track], 0.7), sample(&c1.morph_tracks()[track], 2.0));
        let want: Vec<f64> = range
            .clone()
            .enumerate()
            .map(|(i, k)| {
                // accumulate: first copies, the next lerps by w / W; apply: lerp to the default by 1 − W.
                let v = x0[i] * (1.0 - 0.4 / 0.7) + x1[i] * (0.4 / 0.7);
                v * (1.0 - 0.3) + f64::from(defaults[k]) * 0.3
            })
            .collect();
        close(&got[range], &want);
    }
}

#[test]
fn a_mask_weighs_a_node_as_its_nearest_joint() {
    let rig = rig();
    let (c0, c1) = (clip("a", 0.1, Interpolation::Linear), clip("b", 0.9, Interpolation::Step));
    let (a0, a1) = (bound(&c0, &rig), bound(&c1, &rig));
    // The upper layer excludes the head: the face keeps the base layer, the
    // prop (below no joint) takes the upper layer.
    let mask = Arc::new(BoneWeights::from_names(rig.skeleton(), &[] as &[&str], &["head"]).unwrap());
    let layers = vec![Layer::new("base", at(&a0, 0.5, true)), Layer::new("upper", at(&a1, 3.0, true)).with_mask(mask)];
    let got = play(layers, Composition::Layered);
    close(&got[0..3], &sample(&c0.morph_tracks()[0], 0.5));
    close(&got[3..5], &sample(&c1.morph_tracks()[1], 3.0));
}

#[test]
fn a_layer_blends_over_the_one_below_and_additive_adds_the_difference() {
    let rig = rig();
    let (c0, c1) = (clip("a", 0.1, Interpolation::Linear), clip("b", 0.9, Interpolation::CubicSpline));
    let (a0, a1) = (bound(&c0, &rig), bound(&c1, &rig));
    let layers = vec![
        Layer::new("base", at(&a0, 0.5, true)),
        Layer::new("over", at(&a1, 1.5, true)).with_weight(0.25),
        Layer::new("add", at(&a1, 3.0, false)).additive(AdditiveReference::Time(1.0)).with_weight(0.5),
    ];
    let got = play(layers, Composition::Layered);
    for (track, range) in [(0, 0..3), (1, 3..5)] {
        let base = sample(&c0.morph_tracks()[track], 0.5);
        let over = sample(&c1.morph_tracks()[track], 1.5);
        let (x, r) = (sample(&c1.morph_tracks()[track], 3.0), sample(&c1.morph_tracks()[track], 1.0));
        let want: Vec<f64> = (0..range.len()).map(|i| base[i] * 0.75 + over[i] * 0.25 + 0.5 * (x[i] - r[i])).collect();
        close(&got[range], &want);
    }
}

#[test]
fn a_skeleton_without_morphs_has_no_morph_pose() {
    let rs = Arc::new(RuntimeSkeleton::new(skeleton()));
    let c = clip("c", 0.0, Interpolation::Linear);
    let a = Arc::new(Animation::bind_to(&c, &rs, BindBy::Node).unwrap());
    assert_eq!(a.unbound_tracks(), 2);
    let player = ClipPlayer::new(rs, vec![Layer::new("c", at(&a, 0.0, true))]).unwrap();
    assert!(player.morph_pose().is_none());
}

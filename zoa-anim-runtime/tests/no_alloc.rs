//! Proves that a frame allocates nothing after warm-up: a counting global
//! allocator wraps the system one, and the test counts allocations across
//! many frames of single instances and a serial crowd (different skeletons,
//! clips, layer stacks with a blend tree, a mask and an additive layer), and
//! of humanoids running the rig policy's IK (foot plant on a ground probe,
//! look-at, hand on weapon) with inputs changed every frame. The players'
//! clips animate morph-target weights too.
//! Its own test binary, so no other test's allocations are counted.

mod common;

use std::sync::Arc;

use common::*;
use zoa_anim_core::Clip;
use zoa_anim_runtime::pose::*;
use zoa_test_support::alloc::{self, CountingAllocator};

#[global_allocator]
static GLOBAL: CountingAllocator = CountingAllocator;

fn bind(clip: &Clip, s: &zoa_anim_core::Skeleton) -> Arc<Animation> {
    Arc::new(Animation::bind(clip, s, BindBy::Node).unwrap())
}

/// A player of clips with morph-weight tracks (blended with the joints).
fn instance(k: usize) -> ClipPlayer {
    let s = skeleton();
    let rs = Arc::new(RuntimeSkeleton::with_morphs(s.clone(), &morph_nodes()));
    let clip = |i: usize| morph_clip(&format!("c{i}"), (i + k) as f32 * 0.3);
    let clips: Vec<_> = (0..4).map(|i| Arc::new(Animation::bind_to(&clip(i), &rs, BindBy::Node).unwrap())).collect();
    let mask = Arc::new(BoneWeights::from_names(&s, &["spine"], &["hand"]).unwrap());
    let layers = vec![
        Layer::new(
            "loco",
            LayerSource::Tree {
                // Both 2D weightings: gradient bands, and inverse distance with a power.
                tree: CompiledBlendTree::two_d(
                    &[[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]],
                    if k.is_multiple_of(2) {
                        Weighting2D::GradientBand
                    } else {
                        Weighting2D::InverseDistance { power: 2.5 }
                    },
                )
                .unwrap(),
                motions: clips[..3].iter().cloned().map(BoundMotion::looping).collect(),
                x: 0.3,
                y: 0.2 + k as f32 * 0.1,
                clock: SyncClock::default(),
                speed: 1.0,
            },
        ),
        Layer::new("upper", LayerSource::clip(BoundMotion::looping(clips[3].clone()))).with_mask(mask).with_weight(0.5),
        Layer::new("recoil", LayerSource::Clip { motion: BoundMotion::once(clips[1].clone()), time: 0.0, speed: -1.0 })
            .additive(AdditiveReference::Clip { animation: clips[2].clone(), time: 0.5 })
            .with_weight(0.8),
    ];
    ClipPlayer::new(rs, layers).unwrap()
}

#[test]
fn frames_allocate_nothing_after_warm_up() {
    let mut single = instance(0);
    let mut crowd = Crowd::new((0..16).map(instance).chain((0..4).map(ik_humanoid_instance)).collect());
    // The same crowd on a two-member team (its worker's frames are counted too).
    let mut team_crowd = Crowd::new((0..16).map(instance).chain((0..4).map(ik_humanoid_instance)).collect());
    let mut team = Team::new(2).unwrap();
    let mut ik_single = ik_humanoid_instance(5);
    let mut layered = instance(7).with_composition(Composition::Layered);
    // A blending job and a streaming blender over sampled poses, both compositions.
    let s = skeleton();
    let rest = Pose::rest(&s);
    let clips: Vec<_> = (0..3).map(|i| bind(&full_clip(&format!("b{i}"), i as f32), &s)).collect();
    let mut poses: Vec<Pose> = clips.iter().map(|a| a.sample_to_new(0.5, &rest).unwrap()).collect();
    let reference = ReferencePose::from_pose(&poses[2]);
    let mask = BoneWeights::from_names(&s, &["spine"], &[] as &[&str]).unwrap();
    let mut blend_ctx = BlendingContext::new(rest.len());
    let mut blended = rest.clone();
    let mut contexts: Vec<SamplingContext> = clips.iter().map(|a| SamplingContext::for_animation(a)).collect();
    // Warm-up frame.
    single.update(0.016).unwrap();
    crowd.update(0.016).unwrap();
    team_crowd.update_on(&mut team, 0.016).unwrap();
    ik_single.update(0.016).unwrap();
    layered.update(0.016).unwrap();

    let before = alloc::total();
    for frame in 0..500u32 {
        let dt = if frame % 50 == 49 { -0.3 } else { 0.016 }; // include backward jumps (cursor searches)
        single.update(dt).unwrap();
        crowd.update(dt).unwrap();
        team_crowd.update_on(&mut team, dt).unwrap();
        // Per-frame parameter changes, as gameplay would make them.
        if let LayerSource::Tree { x, .. } = &mut single.layers_mut()[0].source {
            *x = (frame as f32 * 0.01).sin();
        }
        single.layers_mut()[1].weight = (frame % 10) as f32 / 10.0;
        ik_single.update(dt).unwrap();
        layered.update(dt).unwrap();
        let t = frame as f32 * 0.01;
        for ((a, c), p) in clips.iter().zip(&mut contexts).zip(&mut poses) {
            SamplingJob { animation: a, time: t, context: c, output: p }.run().unwrap();
        }
        for composition in [Composition::Layered, Composition::Mixer] {
            let base = [BlendInput::new(&poses[0], clips[0].animated(), 0.7)];
            let upper = [BlendInput::new(&poses[1], clips[1].animated(), 1.0).with_mask(mask.weights())];
            let add = [BlendInput::new(&poses[2], clips[2].animated(), 0.5).with_reference(&reference)];
            let layers = [
                BlendLayer { mode: BlendMode::Override, weight: 1.0, inputs: &base },
                BlendLayer { mode: BlendMode::Additive, weight: 1.0, inputs: &add },
                BlendLayer { mode: BlendMode::Override, weight: 0.6, inputs: &upper },
            ];
            BlendingJob { rest: &rest, layers: &layers, composition, context: &mut blend_ctx, output: &mut blended }
                .run()
                .unwrap();
            let mut blender = blend_ctx.begin(composition, &rest, &mut blended).unwrap();
            for layer in &layers {
                blender.layer(layer.mode, layer.weight);
                for input in layer.inputs {
                    blender.add(input).unwrap();
                }
            }
            blender.finish();
        }
        let inputs = ik_single.ik_mut().unwrap().inputs_mut();
        inputs.locomotion_speed = (frame % 20) as f32 / 20.0;
        inputs.look_target =
            (!frame.is_multiple_of(7)).then(|| zoa_anim_core::glam::Vec3::new((frame as f32).sin(), 1.6, 1.0));
        if let Some(grip) = inputs.weapon_pose.as_mut().and_then(|p| p.targets.first_mut()) {
            grip.position[0] = 0.25 + 0.05 * (frame as f32 * 0.1).cos();
        }
    }
    let after = alloc::total();
    assert_eq!(after - before, 0, "allocations during 500 frames");
    // The morph weights were blended, not left at their defaults.
    let morphs = single.morph_pose().expect("the players' skeleton has morphed nodes");
    assert_ne!(morphs.weights(), RuntimeSkeleton::with_morphs(skeleton(), &morph_nodes()).morphs().defaults());
    // The counter does count: building an instance allocates.
    let _ = instance(3);
    assert!(alloc::total() > after);
}

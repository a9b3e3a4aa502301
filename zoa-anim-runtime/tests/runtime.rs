//! Integration tests of the runtime, one module per concern:
//! - `sampling`: every interpolation mode against hand-computed values.
//! - `blending`: three.js accumulation, rest fill, additive, masks.
//! - `instances`: layer stacks, speeds, blend trees, local-to-model, retargeting.
//! - `crowd`: parallel evaluation equals serial bit for bit (1, 2, 3 threads),
//!   with IK on for part of the crowd.
//! - `ik`: the rig policy's IK stage runs after blending, before local-to-model.
//! - `properties`: proptest invariants.
//! - `shared_assets`: the third-party glTF files, sampled at key times.

mod common;

use std::sync::Arc;

use common::*;
use zoa_anim_core::glam::{Mat4, Quat, Vec3, Vec3A, Vec4};
use zoa_anim_core::{Clip, Interpolation, TrackProperty};
use zoa_anim_runtime::RuntimeError;
use zoa_anim_runtime::pose::*;

fn bind(clip: &Clip) -> Arc<Animation> {
    Arc::new(Animation::bind(clip, &skeleton(), BindBy::Node).unwrap())
}

fn sample(animation: &Animation, time: f32) -> Pose {
    animation.sample_to_new(time, &Pose::rest(&skeleton())).unwrap()
}

mod sampling {
    use super::*;

    fn one_track(property: TrackProperty, interpolation: Interpolation, times: &[f32], values: &[f32]) -> Animation {
        let clip = Clip::new("c", vec![track(11, property, interpolation, times, values)]).unwrap();
        Animation::bind(&clip, &skeleton(), BindBy::Node).unwrap()
    }

    #[test]
    fn step_holds_the_last_key_at_or_before_t() {
        let a = one_track(
            TrackProperty::Translation,
            Interpolation::Step,
            &[0.5, 1.0, 2.0],
            &[0., 0., 0., 10., 0., 0., 20., 0., 0.],
        );
        let x = |t: f32| sample(&a, t).translation(1).x;
        assert_eq!(x(-1.0), 0.0, "before the first key");
        assert_eq!(x(0.0), 0.0);
        assert_eq!(x(0.5), 0.0, "exact key time");
        assert_eq!(x(0.999), 0.0);
        assert_eq!(x(1.0), 10.0, "exact key time");
        assert_eq!(x(1.999), 10.0);
        assert_eq!(x(2.0), 20.0, "last key");
        assert_eq!(x(7.0), 20.0, "after the last key");
    }

    #[test]
    fn linear_lerps_vectors() {
        let a = one_track(
            TrackProperty::Scale,
            Interpolation::Linear,
            &[0.0, 1.0, 3.0],
            &[1., 1., 1., 2., 3., 4., 0., 0., 0.],
        );
        let s = |t: f32| sample(&a, t).scale(1);
        assert_eq!(s(0.25), Vec3A::new(1.25, 1.5, 1.75));
        assert_eq!(s(1.0), Vec3A::new(2.0, 3.0, 4.0));
        assert_eq!(s(2.0), Vec3A::new(1.0, 1.5, 2.0));
        assert_eq!(s(-0.5), Vec3A::ONE);
        assert_eq!(s(3.5), Vec3A::ZERO);
    }

    #[test]
    fn linear_slerps_rotations_along_the_shortest_path_keeping_the_first_sign() {
        let q0 = Quat::from_rotation_y(0.2);
        let q1 = -Quat::from_rotation_y(1.0); // stored in the other hemisphere
        let a = one_track(TrackProperty::Rotation, Interpolation::Linear, &[0.0, 2.0], &quat_values(&[q0, q1]));
        let r = sample(&a, 0.5).rotation(1);
        let want = Quat::from_rotation_y(0.4);
        for i in 0..4 {
            assert!(close(r.to_array()[i], want.to_array()[i], 1e-6), "{r:?} vs {want:?}");
        }
        assert_eq!(sample(&a, 0.0).rotation(1), q0, "exact key value");
        assert_eq!(sample(&a, 2.0).rotation(1), q1, "last key value as stored");
    }

    #[test]
    fn cubic_spline_uses_hermite_with_tangents_scaled_by_a_non_uniform_interval() {
        // Keys at 0, 1, 3 (intervals 1 and 2). Per key: in-tangent, value, out-tangent (x only).
        let v = |x: f32| [x, 0.0, 0.0];
        let values: Vec<f32> = [v(0.0), v(0.0), v(1.0), v(3.0), v(1.0), v(2.0), v(-1.0), v(5.0), v(9.0)].concat();
        let a = one_track(TrackProperty::Translation, Interpolation::CubicSpline, &[0.0, 1.0, 3.0], &values);
        let x = |t: f32| sample(&a, t).translation(1).x;
        // t = 2: p = 0.5, Δt = 2: s0 = 0.5, s1 = 0.125, s2 = 0.5, s3 = -0.125;
        // 0.5·1 + 0.125·(2·2) + 0.5·5 + (-0.125)·(-1·2) = 3.75
        assert_eq!(x(2.0), 3.75);
        // t = 0.5 in the first segment (Δt = 1): p0 = 0, m0 = 1, p1 = 1, m1 = 3:
        // s0 = 0.5, s1 = 0.125, s2 = 0.5, s3 = -0.125 → 0.125 + 0.5 - 0.375 = 0.25
        assert_eq!(x(0.5), 0.25);
        assert_eq!(x(1.0), 1.0, "key value, not a tangent");
        assert_eq!(x(-1.0), 0.0, "before the first key: first value");
        assert_eq!(x(3.0), 5.0, "last value");
        assert_eq!(x(4.0), 5.0, "after the last key: last value");
    }

    #[test]
    fn cubic_spline_rotations_are_normalized() {
        let q0 = Quat::from_rotation_z(0.0);
        let q1 = Quat::from_rotation_z(1.2);
        let zero = Quat::from_xyzw(0.0, 0.0, 0.0, 0.0);
        let values = quat_values(&[zero, q0, zero, zero, q1, zero]);
        let a = one_track(TrackProperty::Rotation, Interpolation::CubicSpline, &[0.0, 1.5], &values);
        for t in [0.1, 0.5, 0.75, 1.2] {
            let r = sample(&a, t).rotation(1);
            assert!(close(r.length(), 1.0, 1e-6));
            // Zero tangents: Hermite of (0, q0) → (0, q1) is s0·q0 + s2·q1, normalized.
            let p = t / 1.5;
            let s2 = -2.0 * p * p * p + 3.0 * p * p;
            let want = Quat::from_vec4(
                zoa_anim_core::glam::Vec4::from(q0) * (1.0 - s2) + zoa_anim_core::glam::Vec4::from(q1) * s2,
            )
            .normalize();
            assert!(quat_close(r, want, 1e-6));
        }
        assert_eq!(sample(&a, 1.5).rotation(1), q1);
    }

    #[test]
    fn looping_wraps_and_one_shot_clamps() {
        let a = Arc::new(one_track(
            TrackProperty::Translation,
            Interpolation::Linear,
            &[0.0, 2.0],
            &[0., 0., 0., 2., 0., 0.],
        ));
        let looping = BoundMotion::looping(a.clone());
        let once = BoundMotion::once(a);
        assert_eq!(looping.clip_time(2.0), 0.0, "t = d samples time 0");
        assert_eq!(looping.clip_time(2.5), 0.5);
        assert_eq!(looping.clip_time(-0.5), 1.5, "negative time wraps backwards");
        assert_eq!(once.clip_time(2.5), 2.0);
        assert_eq!(once.clip_time(-0.5), 0.0);
    }

    #[test]
    fn unanimated_slots_keep_the_rest_pose_and_unbound_tracks_are_counted() {
        let clip = Clip::new(
            "c",
            vec![
                track(
                    11,
                    TrackProperty::Rotation,
                    Interpolation::Linear,
                    &[0.0],
                    &Quat::from_rotation_z(1.0).to_array(),
                ),
                track(99, TrackProperty::Translation, Interpolation::Linear, &[0.0], &[1.0, 2.0, 3.0]),
            ],
        )
        .unwrap();
        let a = Animation::bind(&clip, &skeleton(), BindBy::Node).unwrap();
        assert_eq!(a.unbound_tracks(), 1);
        assert_eq!(a.animated(), &[0, ANIMATES_ROTATION, 0, 0, 0]);
        let p = sample(&a, 3.0);
        let rest = Pose::rest(&skeleton());
        assert_eq!(p.rotation(1), Quat::from_rotation_z(1.0));
        assert!((0..p.len()).all(|j| p.translation(j) == rest.translation(j)));
        assert_eq!(p.get(0), rest.get(0));
    }

    #[test]
    fn cursors_give_the_same_answer_as_fresh_searches_in_any_direction() {
        let a = bind(&full_clip("c", 0.3));
        let rest = Pose::rest(&skeleton());
        let mut ctx = SamplingContext::for_animation(&a);
        let mut pose = rest.clone();
        let times = [0.0, 0.1, 0.9, 1.0, 1.7, 2.5, 3.99, 4.0, 0.2, 3.1, 2.4, 2.3, -1.0, 5.0, 1.0];
        for t in times {
            SamplingJob { animation: &a, time: t, context: &mut ctx, output: &mut pose }.run().unwrap();
            assert_eq!(pose, sample(&a, t), "t = {t}");
        }
    }

    #[test]
    fn jobs_report_every_problem() {
        let a = bind(&full_clip("c", 0.3));
        let mut ctx = SamplingContext::new(2);
        let mut pose = Pose::identity(3);
        let err =
            SamplingJob { animation: &a, time: f32::NAN, context: &mut ctx, output: &mut pose }.run().unwrap_err();
        let RuntimeError::InvalidJob { reasons, .. } = err else { panic!("{err:?}") };
        assert_eq!(reasons.len(), 3, "{reasons:?}");
    }

    #[test]
    fn duplicate_tracks_are_an_error() {
        let t = track(11, TrackProperty::Scale, Interpolation::Step, &[0.0], &[1.0, 1.0, 1.0]);
        let clip = Clip::new("dup", vec![t.clone(), t]).unwrap();
        assert!(matches!(
            Animation::bind(&clip, &skeleton(), BindBy::Node),
            Err(RuntimeError::DuplicateTrack { joint: 1, .. })
        ));
    }

    /// Tracks of one property sharing a pose block and key times are sampled
    /// a block at a time; each must equal the same track sampled alone (one
    /// at a time) within 1e-6, at any time, forwards, backwards and masked.
    #[test]
    fn block_sampling_equals_one_track_at_a_time() {
        let skeleton = humanoid();
        let n = skeleton.joint_count();
        let rest = Pose::rest(&skeleton);
        let times = [0.0, 0.4, 1.0, 1.1, 2.5];
        let other_times = [0.2, 0.9, 2.0];
        let constant_times = [0.3, 1.5, 2.2, 2.3];
        let mut tracks = Vec::new();
        for node in 0..n as u32 {
            let f = node as f32;
            // Most joints share `times`; every fifth uses other key times,
            // every seventh holds one key, every third rotation steps, every
            // eighth (from 3) holds one value at keys of its own times (a
            // constant track, which joins its block's batch).
            let constant = node % 8 == 3;
            let keys: &[f32] = if constant {
                &constant_times
            } else if node % 5 == 4 {
                &other_times
            } else if node % 7 == 6 {
                &times[..1]
            } else {
                &times
            };
            let at = |t: &f32| if constant { 0.7 } else { *t };
            let tv: Vec<f32> = keys.iter().map(at).flat_map(|t| [f * 0.1 + t, (f * t).sin(), -t]).collect();
            // Wide arcs and keys in opposite hemispheres.
            let rv: Vec<Quat> = keys
                .iter()
                .enumerate()
                .map(|(k, t)| {
                    let t = at(t);
                    let q = Quat::from_euler(zoa_anim_core::glam::EulerRot::XYZ, f * 0.7 + 2.0 * t, 1.3 * t, 0.2 * f);
                    if k % 2 == 1 && !constant { -q } else { q }
                })
                .collect();
            let sv: Vec<f32> =
                keys.iter().map(at).flat_map(|t| [1.0 + 0.1 * t, 1.0 - 0.2 * t, 1.0 + 0.05 * f]).collect();
            let step = if node % 3 == 0 { Interpolation::Step } else { Interpolation::Linear };
            tracks.push(track(node, TrackProperty::Translation, Interpolation::Linear, keys, &tv));
            tracks.push(track(node, TrackProperty::Rotation, step, keys, &quat_values(&rv)));
            if node % 4 != 1 {
                tracks.push(track(node, TrackProperty::Scale, Interpolation::Linear, keys, &sv));
            }
        }
        let constant_joint = |j: usize| j % 8 == 3;
        let alone: Vec<Animation> = tracks
            .iter()
            .map(|t| Animation::bind(&Clip::new("one", vec![t.clone()]).unwrap(), &skeleton, BindBy::Node).unwrap())
            .collect();
        let all = Animation::bind(&Clip::new("all", tracks).unwrap(), &skeleton, BindBy::Node).unwrap();
        let mut ctx = SamplingContext::for_animation(&all);
        assert!(ctx.fits(&all) && !SamplingContext::for_animation(&alone[0]).fits(&all));
        let mut tiny = SamplingContext::for_animation(&alone[0]);
        let err = SamplingJob { animation: &all, time: 0.0, context: &mut tiny, output: &mut rest.clone() }.run();
        assert!(err.is_err(), "a context sized for one track refuses the packed clip");
        let mut got = rest.clone();
        let mask: Vec<f32> = (0..n).map(|j| if j % 6 == 2 { 0.0 } else { 0.5 }).collect();
        for (step, t) in [0.0, 0.1, 0.4, 0.55, 0.99, 1.0, 1.05, 2.4, 2.5, 3.0, 0.3, -0.5, 1.7].into_iter().enumerate() {
            let masked = step % 4 == 3;
            let before = got.clone();
            let job = SamplingJob { animation: &all, time: t, context: &mut ctx, output: &mut got };
            if masked {
                job.run_masked(&mask).unwrap()
            } else {
                job.run().unwrap()
            }
            let mut want = rest.clone();
            for a in &alone {
                let mut c = SamplingContext::for_animation(a);
                SamplingJob { animation: a, time: t, context: &mut c, output: &mut want }.run().unwrap();
            }
            for (j, &m) in mask.iter().enumerate() {
                let want = if masked && m == 0.0 { before.get(j) } else { want.get(j) };
                let g = got.get(j);
                if constant_joint(j) && !(masked && m == 0.0) {
                    // A constant track samples to its value exactly.
                    assert_eq!(g, want, "t = {t}, constant joint {j}");
                }
                let near = g.translation.abs_diff_eq(want.translation, 1e-6)
                    && g.scale.abs_diff_eq(want.scale, 1e-6)
                    && Vec4::from(g.rotation).abs_diff_eq(Vec4::from(want.rotation), 1e-6);
                assert!(near, "t = {t}, joint {j}: {g:?} vs {want:?}");
            }
        }
    }
}

mod blending {
    use super::*;

    fn clip_t(name: &str, node: u32, x: f32) -> Arc<Animation> {
        bind(
            &Clip::new(
                name,
                vec![track(node, TrackProperty::Translation, Interpolation::Step, &[0.0], &[x, 0.0, 0.0])],
            )
            .unwrap(),
        )
    }
    fn clip_r(name: &str, node: u32, q: Quat) -> Arc<Animation> {
        bind(
            &Clip::new(name, vec![track(node, TrackProperty::Rotation, Interpolation::Step, &[0.0], &q.to_array())])
                .unwrap(),
        )
    }

    /// One three.js mixer: each input is an action of its own (override first, then additive).
    fn blend(inputs: &[(&Arc<Animation>, f32, BlendMode, Option<&BoneWeights>)]) -> Pose {
        let rest = Pose::rest(&skeleton());
        let poses: Vec<Pose> = inputs.iter().map(|(a, ..)| sample(a, 0.0)).collect();
        let refs: Vec<ReferencePose> = inputs.iter().map(|(a, ..)| ReferencePose::from_pose(&sample(a, 0.0))).collect();
        let list: Vec<[BlendInput<'_>; 1]> = inputs
            .iter()
            .zip(&poses)
            .zip(&refs)
            .map(|(((a, w, _, mask), pose), reference)| {
                [BlendInput {
                    pose,
                    animated: a.animated(),
                    weight: *w,
                    mask: mask.map(BoneWeights::weights),
                    reference: Some(reference),
                }]
            })
            .collect();
        let layers: Vec<BlendLayer<'_>> = inputs
            .iter()
            .zip(&list)
            .map(|((_, _, mode, _), i)| BlendLayer { mode: *mode, weight: 1.0, inputs: i })
            .collect();
        let mut out = rest.clone();
        let mut ctx = BlendingContext::new(rest.len());
        BlendingJob {
            rest: &rest,
            layers: &layers,
            composition: Composition::Mixer,
            context: &mut ctx,
            output: &mut out,
        }
        .run()
        .unwrap();
        out
    }

    #[test]
    fn override_accumulates_in_order_and_fills_from_rest() {
        let a = clip_t("a", 11, 2.0);
        let b = clip_t("b", 11, 6.0);
        let rest_x = skeleton().joints()[1].rest.translation.x; // 0.5
        let o = BlendMode::Override;
        assert_eq!(blend(&[(&a, 1.0, o, None)]).translation(1).x, 2.0);
        // W = 0.5 + 0.5: lerp(2, 6, 0.5) = 4, no rest.
        assert_eq!(blend(&[(&a, 0.5, o, None), (&b, 0.5, o, None)]).translation(1).x, 4.0);
        // W = 0.25 + 0.25 = 0.5: 4, then lerp(4, rest, 0.5).
        assert_eq!(blend(&[(&a, 0.25, o, None), (&b, 0.25, o, None)]).translation(1).x, 0.5 * 4.0 + 0.5 * rest_x);
        // W = 1 + 1 = 2: three.js averages, no normalization to the last layer.
        assert_eq!(blend(&[(&a, 1.0, o, None), (&b, 1.0, o, None)]).translation(1).x, 4.0);
        // Weight 0 contributes nothing.
        assert_eq!(blend(&[(&a, 0.0, o, None)]).translation(1).x, rest_x);
        // Rotation: slerp(q, rest, 1 - W).
        let q = Quat::from_rotation_x(1.0);
        let r = clip_r("r", 11, q);
        let got = blend(&[(&r, 0.25, o, None)]).rotation(1);
        let rest_q = skeleton().joints()[1].rest.rotation; // rot_x(0.2)
        assert!(quat_close(got, Quat::from_rotation_x(0.25 * 1.0 + 0.75 * 0.2), 1e-6), "{got:?} {rest_q:?}");
    }

    #[test]
    fn an_input_that_does_not_animate_a_property_contributes_nothing_to_it() {
        let t = clip_t("t", 11, 2.0);
        let r = clip_r("r", 11, Quat::from_rotation_x(1.0));
        let o = BlendMode::Override;
        let p = blend(&[(&t, 1.0, o, None), (&r, 1.0, o, None)]);
        assert_eq!(p.translation(1).x, 2.0, "translation only from `t`, W = 1");
        assert_eq!(p.rotation(1), Quat::from_rotation_x(1.0), "rotation only from `r`, W = 1");
        assert_eq!(p.scale(1), Vec3A::ONE, "scale: rest");
    }

    #[test]
    fn additive_applies_deltas_against_the_reference_after_the_override_result() {
        let rest = Pose::rest(&skeleton());
        // Additive clip: rot_x 0 at t = 0 (reference), rot_x 0.6 at t = 1; translation 1 → 3.
        let add = bind(
            &Clip::new(
                "add",
                vec![
                    track(
                        11,
                        TrackProperty::Rotation,
                        Interpolation::Linear,
                        &[0.0, 1.0],
                        &quat_values(&[Quat::IDENTITY, Quat::from_rotation_x(0.6)]),
                    ),
                    track(
                        11,
                        TrackProperty::Translation,
                        Interpolation::Linear,
                        &[0.0, 1.0],
                        &[1., 0., 0., 3., 0., 0.],
                    ),
                ],
            )
            .unwrap(),
        );
        let base = clip_r("base", 11, Quat::from_rotation_x(0.2));
        let base_pose = sample(&base, 0.0);
        let pose = sample(&add, 1.0);
        let reference = sample(&add, 0.0);
        let reference = ReferencePose::from_pose(&reference);
        let mut out = rest.clone();
        let mut ctx = BlendingContext::new(rest.len());
        let base_in = [BlendInput::new(&base_pose, base.animated(), 1.0)];
        let add_in = [BlendInput::new(&pose, add.animated(), 0.5).with_reference(&reference)];
        let layers = [
            BlendLayer { mode: BlendMode::Override, weight: 1.0, inputs: &base_in },
            BlendLayer { mode: BlendMode::Additive, weight: 1.0, inputs: &add_in },
        ];
        for composition in [Composition::Mixer, Composition::Layered] {
            BlendingJob { rest: &rest, layers: &layers, composition, context: &mut ctx, output: &mut out }
                .run()
                .unwrap();
            // r = rot_x(0.2) ⊗ slerp(1, rot_x(0.6), 0.5) = rot_x(0.5)
            assert!(quat_close(out.rotation(1), Quat::from_rotation_x(0.5), 1e-6));
            // t = rest (0.5, 1, 0) + 0.5 · (3 − 1, 0, 0)
            assert_eq!(out.translation(1), Vec3A::new(1.5, 1.0, 0.0));
            // Joints the additive clip does not animate are untouched.
            assert_eq!(out.get(2), rest.get(2));
        }
        // A missing reference is a validation error.
        let bad_in = [BlendInput { reference: None, ..add_in[0] }];
        let bad = [BlendLayer { mode: BlendMode::Additive, weight: 1.0, inputs: &bad_in }];
        let job = BlendingJob {
            rest: &rest,
            layers: &bad,
            composition: Composition::Mixer,
            context: &mut ctx,
            output: &mut out,
        };
        assert!(job.run().is_err());
    }

    use zoa_test_support::three;

    fn q64(q: Quat) -> three::Q {
        three::from_f32(q.to_array())
    }

    fn close64(got: Quat, want: three::Q, eps: f64) -> bool {
        let g = q64(got);
        let d = if g.iter().zip(&want).map(|(a, b)| a * b).sum::<f64>() < 0.0 { -1.0 } else { 1.0 };
        g.iter().zip(&want).all(|(a, b)| (a - d * b).abs() <= eps)
    }

    #[test]
    fn both_compositions_match_a_three_js_property_mixer_within_1e_5() {
        // Two override inputs leaving weight to the rest pose, two additive
        // inputs, on every joint's rotation; the oracle is three.js in f64.
        let rest = Pose::rest(&skeleton());
        let clips: Vec<_> = (0..4).map(|k| bind(&full_clip(&format!("c{k}"), 0.7 * k as f32))).collect();
        let poses: Vec<Pose> = clips.iter().enumerate().map(|(k, a)| sample(a, 0.3 + 0.9 * k as f32)).collect();
        let refs: Vec<Pose> = clips.iter().map(|a| sample(a, 0.0)).collect();
        let prepared: Vec<ReferencePose> = refs.iter().map(ReferencePose::from_pose).collect();
        let w = [0.3f32, 0.45, 0.6, 0.8];
        let input = |k: usize| BlendInput::new(&poses[k], clips[k].animated(), w[k]).with_reference(&prepared[k]);
        let (i0, i1, i2, i3) = ([input(0)], [input(1)], [input(2)], [input(3)]);
        let mut ctx = BlendingContext::new(rest.len());
        let mut out = rest.clone();
        // Mixer: four actions of one three.js mixer.
        let layers = [
            BlendLayer { mode: BlendMode::Override, weight: 1.0, inputs: &i0 },
            BlendLayer { mode: BlendMode::Additive, weight: 1.0, inputs: &i2 },
            BlendLayer { mode: BlendMode::Override, weight: 1.0, inputs: &i1 },
            BlendLayer { mode: BlendMode::Additive, weight: 1.0, inputs: &i3 },
        ];
        BlendingJob {
            rest: &rest,
            layers: &layers,
            composition: Composition::Mixer,
            context: &mut ctx,
            output: &mut out,
        }
        .run()
        .unwrap();
        let delta =
            |k: usize, j: usize| three::mul(three::inverse(q64(refs[k].rotation(j))), q64(poses[k].rotation(j)));
        for j in 0..rest.len() {
            let mut m = three::Mixer::new();
            m.accumulate(q64(poses[0].rotation(j)), 0.3);
            m.accumulate_additive(delta(2, j), 0.6);
            m.accumulate(q64(poses[1].rotation(j)), 0.45);
            m.accumulate_additive(delta(3, j), 0.8);
            let want = m.apply(q64(rest.rotation(j)));
            assert!(close64(out.rotation(j), want, 1e-5), "mixer joint {j}: {:?} vs {want:?}", out.rotation(j));
        }
        // Layered: base (inputs 0 and 1, one three.js mixer with rest fill), an
        // additive layer (2 and 3, one three.js additive buffer), then input 1
        // alone as an upper layer at weight 0.5 blending over the result.
        let base = [input(0), input(1)];
        let add = [input(2), input(3)];
        let layers = [
            BlendLayer { mode: BlendMode::Override, weight: 1.0, inputs: &base },
            BlendLayer { mode: BlendMode::Additive, weight: 1.0, inputs: &add },
            BlendLayer { mode: BlendMode::Override, weight: 0.5 / 0.45, inputs: &i1 },
        ];
        BlendingJob {
            rest: &rest,
            layers: &layers,
            composition: Composition::Layered,
            context: &mut ctx,
            output: &mut out,
        }
        .run()
        .unwrap();
        for j in 0..rest.len() {
            let mut m = three::Mixer::new();
            m.accumulate(q64(poses[0].rotation(j)), 0.3);
            m.accumulate(q64(poses[1].rotation(j)), 0.45);
            m.accumulate_additive(delta(2, j), 0.6);
            m.accumulate_additive(delta(3, j), 0.8);
            let below = m.apply(q64(rest.rotation(j)));
            let want = three::slerp(below, q64(poses[1].rotation(j)), 0.5);
            assert!(close64(out.rotation(j), want, 1e-5), "layered joint {j}: {:?} vs {want:?}", out.rotation(j));
        }
    }

    #[test]
    fn masks_limit_a_layer_to_subtrees() {
        let s = skeleton();
        let base = bind(&full_clip("base", 0.0));
        let upper = bind(&full_clip("upper", 1.0));
        let mask = BoneWeights::from_names(&s, &["spine"], &["hand"]).unwrap();
        let o = BlendMode::Override;
        let with = blend(&[(&base, 1.0, o, None), (&upper, 1.0, o, Some(&mask))]);
        let without = blend(&[(&base, 1.0, o, None)]);
        let both = blend(&[(&base, 1.0, o, None), (&upper, 1.0, o, None)]);
        for j in [0, 3, 4] {
            assert_eq!(with.get(j), without.get(j), "joint {j} is masked out");
        }
        for j in [1, 2] {
            assert_eq!(with.get(j), both.get(j), "joint {j} is in the mask");
        }
    }
}

mod instances {
    use super::*;

    fn runtime_skeleton() -> Arc<RuntimeSkeleton> {
        Arc::new(RuntimeSkeleton::new(skeleton()))
    }

    #[test]
    fn a_full_weight_single_layer_equals_plain_sampling_and_speed_scales_time() {
        let a = bind(&full_clip("c", 0.5));
        let mut inst = ClipPlayer::new(
            runtime_skeleton(),
            vec![Layer::new(
                "base",
                LayerSource::Clip { motion: BoundMotion::looping(a.clone()), time: 0.0, speed: -2.0 },
            )],
        )
        .unwrap();
        inst.update(0.75).unwrap(); // time -1.5 → clip time 2.5
        assert_eq!(inst.local_pose(), &sample(&a, 2.5));
    }

    #[test]
    fn local_to_model_and_skinning() {
        let rs = runtime_skeleton();
        let mut model = vec![Mat4::IDENTITY; rs.joint_count()];
        LocalToModelJob { skeleton: &rs, input: rs.rest(), root: None, output: &mut model }.run().unwrap();
        let s = skeleton();
        let local = |j: usize| s.joints()[j].rest.to_matrix();
        let want_hand = local(0) * local(1) * local(2) * local(3);
        assert!(model[3].abs_diff_eq(want_hand, 1e-6));
        assert!(model[4].abs_diff_eq(local(0) * local(4), 1e-6));
        let mut skin = vec![Mat4::IDENTITY; rs.joint_count()];
        skinning_matrices(&model, rs.inverse_binds(), &mut skin).unwrap();
        assert_eq!(skin, model, "identity inverse binds");
        assert!(skinning_matrices(&model, &rs.inverse_binds()[..2], &mut skin).is_err());
    }

    #[test]
    fn blend_tree_children_share_one_normalized_clock() {
        let short = bind(&full_clip("short", 0.0)); // 4 s
        let mut long_clip = full_clip("long", 1.0);
        long_clip = Clip::new(
            "long",
            long_clip
                .tracks()
                .iter()
                .map(|t| {
                    let mut t = t.clone();
                    t.times.iter_mut().for_each(|x| *x *= 2.0);
                    t
                })
                .collect(),
        )
        .unwrap(); // 8 s
        let long = bind(&long_clip);
        let tree = CompiledBlendTree::one_d(&[0.0, 1.0]).unwrap();
        let source = LayerSource::Tree {
            tree,
            motions: vec![BoundMotion::looping(short.clone()), BoundMotion::looping(long.clone())],
            x: 0.5,
            y: 0.0,
            clock: SyncClock::default(),
            speed: 1.0,
        };
        let mut inst = ClipPlayer::new(runtime_skeleton(), vec![Layer::new("loco", source)]).unwrap();
        // Cycle = 0.5·4 + 0.5·8 = 6 s; after 1.5 s the phase is 0.25.
        inst.update(1.5).unwrap();
        let a = sample(&short, 1.0);
        let b = sample(&long, 2.0);
        let rest = Pose::rest(&skeleton());
        let inputs = [BlendInput::new(&a, short.animated(), 0.5), BlendInput::new(&b, long.animated(), 0.5)];
        let layers = [BlendLayer { mode: BlendMode::Override, weight: 1.0, inputs: &inputs }];
        let mut want = rest.clone();
        let mut ctx = BlendingContext::new(rest.len());
        BlendingJob {
            rest: &rest,
            layers: &layers,
            composition: Composition::Mixer,
            context: &mut ctx,
            output: &mut want,
        }
        .run()
        .unwrap();
        assert_eq!(inst.local_pose(), &want);
    }

    /// A tree child that repeats the animation of the child added just
    /// before it is added once with the summed weight (one sample instead
    /// of two): the pose is the one accumulating both would give, bit for
    /// bit when the tree's inputs are the first of the blend at full weight
    /// and unmasked (in both compositions), within rounding under a layer
    /// weight and a mask. A second binding of the same clip is another
    /// animation, so it is added on its own: the reference.
    #[test]
    fn a_tree_child_repeating_the_last_added_animation_adds_once_to_the_same_pose() {
        let clip_a = full_clip("a", 0.0);
        let (a, a_again, b) = (bind(&clip_a), bind(&clip_a), bind(&full_clip("b", 1.0)));
        let tree = |motions: [&Arc<Animation>; 3]| LayerSource::Tree {
            tree: CompiledBlendTree::direct(&[0.3, 0.25, 0.45]).unwrap(),
            motions: motions.iter().map(|&m| BoundMotion::looping(m.clone())).collect(),
            x: 0.0,
            y: 0.0,
            clock: SyncClock { phase: 0.35 },
            speed: 1.0,
        };
        let mask = Arc::new(BoneWeights::from_weights([1.0, 0.4, 0.0, 0.7, 1.0]));
        let run = |motions: [&Arc<Animation>; 3], composition: Composition, masked: bool| {
            let mut layers = vec![Layer::new("base", tree(motions))];
            if masked {
                layers.push(Layer::new("upper", tree([&b, &b, motions[0]])).with_mask(mask.clone()).with_weight(0.6));
            }
            let mut inst = ClipPlayer::new(runtime_skeleton(), layers).unwrap().with_composition(composition);
            inst.update(0.7).unwrap();
            inst.local_pose().clone()
        };
        for composition in [Composition::Layered, Composition::Mixer] {
            let (merged, apart) = (run([&a, &a, &b], composition, false), run([&a, &a_again, &b], composition, false));
            assert_eq!(merged, apart, "{composition:?}: full weight, unmasked");
            // Not adjacent: both added, in order.
            assert_eq!(run([&a, &b, &a], composition, false), run([&a, &b, &a_again], composition, false));
        }
        for composition in [Composition::Layered, Composition::Mixer] {
            let (merged, apart) = (run([&a, &a, &b], composition, true), run([&a, &a_again, &b], composition, true));
            for j in 0..merged.len() {
                assert!((merged.translation(j) - apart.translation(j)).length() < 1e-6, "{composition:?} joint {j}");
                assert!(quat_close(merged.rotation(j), apart.rotation(j), 1e-6), "{composition:?} joint {j}");
                assert!((merged.scale(j) - apart.scale(j)).length() < 1e-6, "{composition:?} joint {j}");
            }
        }
    }

    #[test]
    fn additive_layer_with_default_reference_is_neutral_at_its_first_frame() {
        let base = bind(&full_clip("base", 0.0));
        let add = bind(&full_clip("add", 2.0));
        let layers = vec![
            Layer::new("base", LayerSource::clip(BoundMotion::looping(base.clone()))),
            Layer::new("add", LayerSource::clip(BoundMotion::looping(add))).additive(AdditiveReference::Time(0.0)),
        ];
        let mut inst = ClipPlayer::new(runtime_skeleton(), layers).unwrap();
        inst.evaluate().unwrap();
        let plain = sample(&base, 0.0);
        for j in 0..plain.len() {
            assert!((inst.local_pose().translation(j) - plain.translation(j)).length() < 1e-6);
            assert!(quat_close(inst.local_pose().rotation(j), plain.rotation(j), 1e-6));
        }
    }

    #[test]
    fn bad_layers_are_rejected() {
        let a = bind(&full_clip("c", 0.0));
        let l = Layer::new("x", LayerSource::clip(BoundMotion::looping(a.clone()))).with_weight(1.5);
        assert!(matches!(ClipPlayer::new(runtime_skeleton(), vec![l]), Err(RuntimeError::InvalidLayer { .. })));
        let l = Layer::new("m", LayerSource::clip(BoundMotion::looping(a)))
            .with_mask(Arc::new(BoneWeights::from_weights([1.0; 2])));
        assert!(ClipPlayer::new(runtime_skeleton(), vec![l]).is_err());
    }

    #[test]
    fn retargeting_by_name_with_rotation_only() {
        let source = skeleton();
        // Target: same names, other rest translations, different order.
        let mut joints = source.joints().to_vec();
        joints.swap(3, 4);
        joints[3].parent = Some(0); // leg
        joints[4].parent = Some(2); // hand under arm
        for j in &mut joints {
            j.rest.translation *= 2.0;
        }
        let target = zoa_anim_core::Skeleton::new("target", joints).unwrap();
        let src_pose = sample(&bind(&full_clip("c", 0.7)), 1.3);
        let target_rest = Pose::rest(&target);
        let mut out = target_rest.clone();
        let rot_only = Retargeter::by_name(&source, &target, RetargetMode::RotationOnly);
        assert_eq!(rot_only.mapped_count(), 5);
        rot_only.run(&src_pose, &target_rest, &mut out).unwrap();
        assert_eq!(out.rotation(3), src_pose.rotation(4));
        assert_eq!(out.translation(3), target_rest.translation(3));
        let full = Retargeter::by_name(&source, &target, RetargetMode::Full);
        full.run(&src_pose, &target_rest, &mut out).unwrap();
        assert_eq!(out.get(4), src_pose.get(3));
        // Binding a clip by name onto the target gives the same rotations.
        let by_name = Animation::bind(&full_clip("c", 0.7), &target, BindBy::Name);
        // Tracks here have no names, so nothing binds by name.
        assert_eq!(by_name.unwrap().track_count(), 0);
        let _ = Vec3::ZERO;
    }
}

mod crowd {
    use super::*;

    /// A second, smaller skeleton (root, spine, leg: nodes 10, 11, 14), so the
    /// crowd mixes skeletons.
    fn small_skeleton() -> zoa_anim_core::Skeleton {
        let full = skeleton();
        let mut joints = vec![full.joints()[0].clone(), full.joints()[1].clone(), full.joints()[4].clone()];
        joints[2].parent = Some(0);
        zoa_anim_core::Skeleton::new("small", joints).unwrap()
    }

    pub fn build_crowd(n: usize) -> Crowd<ClipPlayer> {
        let big = Arc::new(RuntimeSkeleton::new(skeleton()));
        let small = Arc::new(RuntimeSkeleton::new(small_skeleton()));
        let clip_set = |s: &Arc<RuntimeSkeleton>| -> Vec<Arc<Animation>> {
            (0..4)
                .map(|k| {
                    let clip = full_clip(&format!("c{k}"), k as f32 * 0.37);
                    Arc::new(Animation::bind(&clip, s.skeleton(), BindBy::Node).unwrap())
                })
                .collect()
        };
        let (big_clips, small_clips) = (clip_set(&big), clip_set(&small));
        let big_mask = Arc::new(BoneWeights::from_names(big.skeleton(), &["spine"], &[] as &[&str]).unwrap());
        let small_mask = Arc::new(BoneWeights::from_names(small.skeleton(), &["spine"], &[] as &[&str]).unwrap());
        let mut instances: Vec<ClipPlayer> = (0..n)
            .map(|i| {
                let (s, clips, mask) =
                    if i % 3 == 0 { (&small, &small_clips, &small_mask) } else { (&big, &big_clips, &big_mask) };
                let c = |k: usize| clips[(i + k) % clips.len()].clone();
                let mut layers = vec![
                    Layer::new(
                        "loco",
                        LayerSource::Tree {
                            tree: CompiledBlendTree::one_d(&[0.0, 1.0]).unwrap(),
                            motions: vec![BoundMotion::looping(c(0)), BoundMotion::looping(c(1))],
                            x: (i % 7) as f32 / 6.0,
                            y: 0.0,
                            clock: SyncClock { phase: (i % 5) as f32 * 0.2 },
                            speed: 1.0 + (i % 3) as f32 * 0.1,
                        },
                    ),
                    Layer::new(
                        "upper",
                        LayerSource::Clip { motion: BoundMotion::looping(c(2)), time: i as f32 * 0.1, speed: 1.0 },
                    )
                    .with_mask(mask.clone())
                    .with_weight(0.7),
                ];
                if i % 2 == 0 {
                    layers.push(
                        Layer::new(
                            "add",
                            LayerSource::Clip { motion: BoundMotion::once(c(3)), time: 0.0, speed: -0.5 },
                        )
                        .additive(AdditiveReference::Time(1.0))
                        .with_weight(0.4),
                    );
                }
                ClipPlayer::new(s.clone(), layers).unwrap()
            })
            .collect();
        // Humanoids with the rig policy's IK (foot plant, look-at, hand on weapon).
        instances.extend((0..n / 4).map(ik_humanoid_instance));
        Crowd::new(instances)
    }

    fn snapshot(c: &Crowd<ClipPlayer>) -> Vec<(Pose, Vec<Mat4>)> {
        c.members().iter().map(|i| (i.local_pose().clone(), i.model_matrices().to_vec())).collect()
    }

    #[test]
    fn parallel_equals_serial_bit_for_bit_for_1_2_3_threads() {
        let mut serial = build_crowd(97);
        for _ in 0..20 {
            serial.update(1.0 / 60.0).unwrap();
        }
        let want = snapshot(&serial);
        for threads in [1, 2, 3] {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            let mut par = build_crowd(97);
            pool.install(|| {
                for _ in 0..20 {
                    par.update_parallel(1.0 / 60.0).unwrap();
                }
            });
            let mut team = Team::new(threads).unwrap();
            let mut on_team = build_crowd(97);
            for _ in 0..20 {
                on_team.update_on(&mut team, 1.0 / 60.0).unwrap();
            }
            for (par, way) in [(&par, "rayon"), (&on_team, "team")] {
                let threads = format!("{threads} threads, {way}");
                let got = snapshot(par);
                // Compare bit patterns (== on floats would also accept -0 == 0).
                for (k, ((gp, gm), (wp, wm))) in got.iter().zip(&want).enumerate() {
                    let bits = |p: &Pose| {
                        p.transforms()
                            .flat_map(|t| {
                                t.translation
                                    .to_array()
                                    .into_iter()
                                    .chain(t.rotation.to_array())
                                    .chain(t.scale.to_array())
                                    .map(f32::to_bits)
                            })
                            .collect::<Vec<_>>()
                    };
                    assert_eq!(bits(gp), bits(wp), "instance {k}, {threads} threads");
                    let mbits =
                        |m: &[Mat4]| m.iter().flat_map(|m| m.to_cols_array()).map(f32::to_bits).collect::<Vec<_>>();
                    assert_eq!(mbits(gm), mbits(wm), "instance {k}, {threads} threads");
                }
            }
        }
    }
}

mod properties {
    use super::*;
    use proptest::prelude::*;

    fn two_layer(w0: f32, w1: f32, t0: f32, t1: f32, rest: &Pose) -> Pose {
        let a = bind(&full_clip("a", 0.1));
        let b = bind(&full_clip("b", 1.3));
        let pa = sample(&a, t0);
        let pb = sample(&b, t1);
        let inputs = [BlendInput::new(&pa, a.animated(), w0), BlendInput::new(&pb, b.animated(), w1)];
        let layers = [BlendLayer { mode: BlendMode::Override, weight: 1.0, inputs: &inputs }];
        let mut out = rest.clone();
        let mut ctx = BlendingContext::new(rest.len());
        BlendingJob { rest, layers: &layers, composition: Composition::Mixer, context: &mut ctx, output: &mut out }
            .run()
            .unwrap();
        out
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        #[test]
        fn sampled_and_blended_rotations_are_unit(t0 in -5.0f32..10.0, t1 in -5.0f32..10.0, w0 in 0.0f32..=1.0, w1 in 0.0f32..=1.0) {
            let out = two_layer(w0, w1, t0, t1, &Pose::rest(&skeleton()));
            for q in out.transforms().map(|t| t.rotation) {
                prop_assert!((q.length() - 1.0).abs() < 1e-5, "{q:?}");
            }
        }

        #[test]
        fn weights_summing_to_one_leave_the_rest_pose_out(w in 0.0f32..=1.0, t0 in 0.0f32..4.0, t1 in 0.0f32..4.0) {
            let rest_a = Pose::rest(&skeleton());
            let mut rest_b = rest_a.clone();
            for j in 0..rest_b.len() {
                rest_b.set_translation(j, rest_b.translation(j) + Vec3A::splat(5.0));
                rest_b.set_rotation(j, Quat::from_rotation_y(2.0) * rest_b.rotation(j));
            }
            let x = two_layer(w, 1.0 - w, t0, t1, &rest_a);
            let y = two_layer(w, 1.0 - w, t0, t1, &rest_b);
            prop_assert_eq!(x, y);
        }

        #[test]
        fn a_full_weight_single_layer_equals_plain_sampling(t in -10.0f32..10.0, looping in any::<bool>()) {
            let a = bind(&full_clip("a", 0.4));
            let motion = BoundMotion { animation: a.clone(), looping };
            let s = Arc::new(RuntimeSkeleton::new(skeleton()));
            let mut inst = ClipPlayer::new(s, vec![Layer::new("l", LayerSource::Clip { motion: motion.clone(), time: t, speed: 1.0 })]).unwrap();
            inst.evaluate().unwrap();
            prop_assert_eq!(inst.local_pose(), &sample(&a, motion.clip_time(t)));
        }

        #[test]
        fn masks_leave_excluded_joints_untouched(t in 0.0f32..4.0, w in 0.0f32..=1.0, root in 0usize..5) {
            let sk = skeleton();
            let name = sk.display_name(root).into_owned();
            let mask = Arc::new(BoneWeights::from_names(&sk, &[] as &[&str], &[name.as_str()]).unwrap());
            let base = bind(&full_clip("base", 0.2));
            let over = bind(&full_clip("over", 0.9));
            let s = Arc::new(RuntimeSkeleton::new(sk.clone()));
            let base_layer = Layer::new("base", LayerSource::Clip { motion: BoundMotion::looping(base), time: t, speed: 1.0 });
            let mut alone = ClipPlayer::new(s.clone(), vec![base_layer.clone()]).unwrap();
            let over_layer = Layer::new("over", LayerSource::Clip { motion: BoundMotion::looping(over), time: t * 0.5, speed: 1.0 })
                .with_weight(w)
                .with_mask(mask);
            let mut masked = ClipPlayer::new(s, vec![base_layer, over_layer]).unwrap();
            alone.evaluate().unwrap();
            masked.evaluate().unwrap();
            for j in 0..sk.joint_count() {
                if sk.is_descendant_of(j, root) {
                    prop_assert_eq!(masked.local_pose().get(j), alone.local_pose().get(j));
                }
            }
        }
    }
}

mod shared_assets {
    use super::*;
    use zoa_anim_assets::gltf::load_gltf;

    #[test]
    fn sampling_at_key_times_returns_the_raw_key_values() {
        let Some(dir) = zoa_test_support::paths::shared_assets() else { return };
        let mut checked = 0usize;
        let mut paths: Vec<std::path::PathBuf> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
        // The generated fixture humanoid, when it has been generated.
        let humanoid =
            std::path::PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/models/humanoid.glb"));
        if humanoid.is_file() {
            paths.push(humanoid);
        }
        paths.sort();
        for path in paths {
            if !matches!(path.extension().and_then(|e| e.to_str()), Some("glb" | "gltf")) {
                continue;
            }
            let asset = load_gltf(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let skeleton = asset.node_skeleton().unwrap();
            let rest = Pose::rest(&skeleton);
            for clip in &asset.clips {
                let a = Animation::bind(clip, &skeleton, BindBy::Node).unwrap();
                assert_eq!(a.unbound_tracks(), 0);
                let mut ctx = SamplingContext::for_animation(&a);
                let mut pose = rest.clone();
                for track in clip.tracks() {
                    let j = track.node as usize;
                    for (k, &t) in track.times.iter().enumerate() {
                        // Keys sharing a time with the next key: the later one wins (glTF step semantics).
                        if track.times.get(k + 1) == Some(&t) {
                            continue;
                        }
                        SamplingJob { animation: &a, time: t, context: &mut ctx, output: &mut pose }.run().unwrap();
                        let raw = track.key_value(k);
                        let got: Vec<f32> = match track.property {
                            TrackProperty::Translation => pose.translation(j).to_array().to_vec(),
                            TrackProperty::Rotation => pose.rotation(j).to_array().to_vec(),
                            TrackProperty::Scale => pose.scale(j).to_array().to_vec(),
                        };
                        assert_eq!(
                            got,
                            raw,
                            "{} {} node {j} {:?} key {k}",
                            asset.file_name,
                            clip.name(),
                            track.property
                        );
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked > 1000, "only {checked} keys checked");
    }

    #[test]
    fn skins_evaluate_with_unit_rotations_and_finite_matrices() {
        let Some(dir) = zoa_test_support::paths::shared_assets() else { return };
        for name in
            ["Fox.glb", "CesiumMan.glb", "RiggedFigure.glb", "RiggedSimple.glb", "greenman.glb", "SimpleSkin.gltf"]
        {
            let asset = load_gltf(&dir.join(name)).unwrap();
            for skeleton in &asset.skeletons {
                let rs = Arc::new(RuntimeSkeleton::new(skeleton.clone()));
                let anims: Vec<Arc<Animation>> =
                    asset.clips.iter().map(|c| Arc::new(Animation::bind(c, skeleton, BindBy::Node).unwrap())).collect();
                if anims.is_empty() {
                    continue;
                }
                let mut layers = vec![Layer::new("base", LayerSource::clip(BoundMotion::looping(anims[0].clone())))];
                if let Some(b) = anims.get(1) {
                    layers.push(Layer::new("b", LayerSource::clip(BoundMotion::looping(b.clone()))).with_weight(0.5));
                }
                layers.push(
                    Layer::new("add", LayerSource::clip(BoundMotion::looping(anims[anims.len() - 1].clone())))
                        .additive(AdditiveReference::Time(0.0))
                        .with_weight(0.3),
                );
                let mut inst = ClipPlayer::new(rs.clone(), layers).unwrap();
                let mut skin = vec![Mat4::IDENTITY; rs.joint_count()];
                for _ in 0..50 {
                    inst.update(1.0 / 30.0).unwrap();
                    // SimpleSkin stores keys like (0, 0, 0.707, 0.707), 1.5e-4 off unit length;
                    // like three.js the sampler does not renormalize LINEAR keys.
                    assert!(inst.local_pose().transforms().all(|t| (t.rotation.length() - 1.0).abs() < 1e-3), "{name}");
                    skinning_matrices(inst.model_matrices(), rs.inverse_binds(), &mut skin).unwrap();
                    assert!(skin.iter().all(|m| m.is_finite()), "{name}");
                }
            }
        }
    }
}

mod ik {
    use super::*;
    use zoa_anim_core::RigPolicy;
    use zoa_anim_ik::{FlatGround, PolicyKind};

    const LEFT_FOOT: usize = 8;
    const RIGHT_FOOT: usize = 12;
    const LEFT_HAND: usize = 17;

    fn position(m: &Mat4) -> Vec3 {
        m.w_axis.truncate()
    }

    /// The same instance without its IK stage.
    fn without_ik(mut i: ClipPlayer) -> ClipPlayer {
        i.set_ik(None).unwrap();
        i
    }

    #[test]
    fn the_stage_runs_after_blending_and_before_local_to_model() {
        let mut with = ik_humanoid_instance(0);
        let mut plain = without_ik(ik_humanoid_instance(0));
        for _ in 0..30 {
            with.update(1.0 / 60.0).unwrap();
            plain.update(1.0 / 60.0).unwrap();
        }
        let stage = with.ik().unwrap();
        for kind in [PolicyKind::FootPlant, PolicyKind::LookAt, PolicyKind::HandOnWeapon] {
            assert!(stage.rig().is_active(kind), "{kind:?}");
        }
        // The model matrices are those of the IK'd local pose.
        let mut model = vec![Mat4::IDENTITY; with.skeleton().joint_count()];
        LocalToModelJob { skeleton: with.skeleton(), input: with.local_pose(), root: None, output: &mut model }
            .run()
            .unwrap();
        assert_eq!(model, with.model_matrices());
        // The off hand sits on the weapon's grip, which the animation alone does not reach.
        let grip = Vec3::new(0.3, 1.2, 0.3);
        assert!((position(&with.model_matrices()[LEFT_HAND]) - grip).length() < 1e-4);
        assert!((position(&plain.model_matrices()[LEFT_HAND]) - grip).length() > 0.05);
        assert!(with.local_pose().transforms().all(|t| t.is_finite()));
    }

    #[test]
    fn feet_follow_raised_ground_and_missing_bones_are_skipped() {
        let mut with = ik_humanoid_instance(0);
        let mut plain = without_ik(ik_humanoid_instance(0));
        // At rest on flat ground 4 cm up: both feet are lifted by 4 cm.
        let inputs = with.ik_mut().unwrap().inputs_mut();
        inputs.ground = Some(Arc::new(FlatGround { height: 0.04, normal: Vec3::Y }));
        inputs.locomotion_speed = 0.0;
        with.update(0.0).unwrap();
        plain.update(0.0).unwrap();
        for foot in [LEFT_FOOT, RIGHT_FOOT] {
            let lift = position(&with.model_matrices()[foot]).y - position(&plain.model_matrices()[foot]).y;
            assert!((lift - 0.04).abs() < 1e-4, "foot {foot} lifted by {lift}");
        }

        // A skeleton without legs or head (the runtime tests' arm rig): the
        // policy compiles to nothing and the stage leaves the pose as blended.
        let rs = Arc::new(RuntimeSkeleton::new(skeleton()));
        let rig = Arc::new(zoa_anim_ik::RigIk::for_policy(rs.skeleton(), &RigPolicy::default()).0);
        assert!(!rig.is_active(PolicyKind::FootPlant) && !rig.is_active(PolicyKind::LookAt));
        let layers = || vec![Layer::new("a", LayerSource::clip(BoundMotion::looping(bind(&full_clip("a", 0.3)))))];
        let mut door =
            ClipPlayer::new(rs.clone(), layers()).unwrap().with_ik(IkStage::new(rig.clone(), &rs).unwrap()).unwrap();
        door.ik_mut().unwrap().inputs_mut().ground = Some(Arc::new(FlatGround { height: 0.5, normal: Vec3::Y }));
        let mut bare = ClipPlayer::new(rs.clone(), layers()).unwrap();
        door.update(0.25).unwrap();
        bare.update(0.25).unwrap();
        assert_eq!(door.local_pose(), bare.local_pose());

        // A stage compiled for another skeleton is refused.
        let humanoid = Arc::new(RuntimeSkeleton::new(humanoid()));
        assert!(IkStage::new(rig.clone(), &humanoid).is_err());
        let stage = ik_humanoid_instance(1).ik().unwrap().clone();
        assert!(ClipPlayer::new(rs, layers()).unwrap().with_ik(stage).is_err());
    }
}

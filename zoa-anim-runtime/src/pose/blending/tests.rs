//! The blender and the blending job: compositions, masks, additive layers,
//! inputs added last or written in place, and the checks.

use glam::Quat;
use zoa_anim_core::Transform;

use super::kernels::lane_flags;
use super::*;
use crate::error::RuntimeError;
use crate::pose::Pose;
use crate::pose::animation::{ANIMATES_ROTATION, ANIMATES_SCALE, ANIMATES_TRANSLATION};
use crate::pose::simd::BLOCK;

const ALL: u8 = ANIMATES_TRANSLATION | ANIMATES_ROTATION | ANIMATES_SCALE;

fn pose(x: f32, angle: f32) -> Pose {
    Pose::from_transforms((0..2).map(|j| Transform {
        translation: glam::Vec3::new(x + j as f32, 0.0, 0.0),
        rotation: Quat::from_rotation_x(angle),
        scale: glam::Vec3::ONE,
    }))
}

fn run(composition: Composition, layers: &[BlendLayer<'_>]) -> Pose {
    let rest = pose(0.0, 0.0);
    let mut out = rest.clone();
    let mut ctx = BlendingContext::new(2);
    BlendingJob { rest: &rest, layers, composition, context: &mut ctx, output: &mut out }.run().unwrap();
    out
}

#[test]
fn an_upper_override_layer_at_full_weight_replaces_what_is_below() {
    let (a, b) = (pose(2.0, 0.4), pose(6.0, 1.0));
    let anim = [ALL; 2];
    let base = [BlendInput::new(&a, &anim, 1.0)];
    let top = [BlendInput::new(&b, &anim, 1.0)];
    let layers = [
        BlendLayer { mode: BlendMode::Override, weight: 1.0, inputs: &base },
        BlendLayer { mode: BlendMode::Override, weight: 1.0, inputs: &top },
    ];
    // Layered: the top layer alone; the mixer averages the two.
    assert_eq!(run(Composition::Layered, &layers), b);
    assert_eq!(run(Composition::Mixer, &layers).translation(0).x, 4.0);
    // At weight 0.25 the top layer blends a quarter of the way over the base.
    let layers = [layers[0], BlendLayer { weight: 0.25, ..layers[1] }];
    let got = run(Composition::Layered, &layers);
    assert_eq!(got.translation(0).x, 2.0 * 0.75 + 6.0 * 0.25);
    assert!(got.rotation(0).abs_diff_eq(Quat::from_rotation_x(0.4 * 0.75 + 0.25), 1e-6));
}

#[test]
fn masks_and_unanimated_properties_keep_the_value_below() {
    let (a, b) = (pose(2.0, 0.4), pose(6.0, 1.0));
    let all = [ALL; 2];
    let rot_only = [ANIMATES_ROTATION; 2];
    let mask = [0.0, 1.0];
    let base = [BlendInput::new(&a, &all, 1.0)];
    let top = [BlendInput::new(&b, &rot_only, 1.0).with_mask(&mask)];
    let layers = [
        BlendLayer { mode: BlendMode::Override, weight: 1.0, inputs: &base },
        BlendLayer { mode: BlendMode::Override, weight: 1.0, inputs: &top },
    ];
    let got = run(Composition::Layered, &layers);
    assert_eq!(got.get(0), a.get(0), "joint 0 is masked out");
    assert_eq!(got.translation(1), a.translation(1), "translation is not animated by the top layer");
    assert_eq!(got.rotation(1), b.rotation(1));
}

#[test]
fn an_additive_layer_adds_onto_the_result_below_and_layers_above_cover_it() {
    let (a, b) = (pose(2.0, 0.4), pose(6.0, 1.0));
    let (r, d) = (ReferencePose::from_pose(&pose(1.0, 0.0)), pose(1.5, 0.2));
    let all = [ALL; 2];
    let base = [BlendInput::new(&a, &all, 1.0)];
    let add = [BlendInput::new(&d, &all, 1.0).with_reference(&r)];
    let top = [BlendInput::new(&b, &all, 1.0).with_mask(&[1.0, 0.0])];
    let layers = [
        BlendLayer { mode: BlendMode::Override, weight: 1.0, inputs: &base },
        BlendLayer { mode: BlendMode::Additive, weight: 0.5, inputs: &add },
        BlendLayer { mode: BlendMode::Override, weight: 1.0, inputs: &top },
    ];
    let got = run(Composition::Layered, &layers);
    assert_eq!(got.get(0), b.get(0), "the top layer covers joint 0, additive included");
    assert_eq!(got.translation(1).x, 3.0 + 0.5 * 0.5);
    assert!(got.rotation(1).abs_diff_eq(Quat::from_rotation_x(0.4 + 0.1), 1e-6));
}

#[test]
fn streaming_equals_the_job_and_reports_bad_inputs() {
    let (a, b) = (pose(2.0, 0.4), pose(6.0, 1.0));
    let all = [ALL; 2];
    let rest = pose(0.0, 0.0);
    let mut ctx = BlendingContext::new(2);
    let mut out = rest.clone();
    let mut blender = ctx.begin(Composition::Layered, &rest, &mut out).unwrap();
    blender.add(&BlendInput::new(&a, &all, 0.5)).unwrap();
    blender.layer(BlendMode::Override, 0.5);
    blender.add(&BlendInput::new(&b, &all, 1.0)).unwrap();
    let short = Pose::identity(1);
    let err = blender.add(&BlendInput::new(&short, &all[..1], f32::NAN)).unwrap_err();
    let RuntimeError::InvalidJob { reasons, .. } = err else { panic!() };
    assert_eq!(reasons.len(), 3, "{reasons:?}");
    blender.layer(BlendMode::Additive, 1.0);
    assert!(blender.add(&BlendInput::new(&b, &all, 1.0)).is_err(), "additive input without reference");
    blender.finish();
    let base = [BlendInput::new(&a, &all, 0.5)];
    let top = [BlendInput::new(&b, &all, 1.0)];
    let want = run(
        Composition::Layered,
        &[
            BlendLayer { mode: BlendMode::Override, weight: 1.0, inputs: &base },
            BlendLayer { mode: BlendMode::Override, weight: 0.5, inputs: &top },
        ],
    );
    assert_eq!(out, want);
    // Too small a context and a wrong output size are both reported.
    let mut small = BlendingContext::new(1);
    let mut wrong = Pose::identity(3);
    let RuntimeError::InvalidJob { reasons, .. } = small.begin(Composition::Mixer, &rest, &mut wrong).unwrap_err()
    else {
        panic!()
    };
    assert_eq!(reasons.len(), 2);
}

/// Every component of every joint of `p`, as bits.
fn bits(p: &Pose) -> Vec<u32> {
    p.transforms()
        .flat_map(|t| t.translation.to_array().into_iter().chain(t.rotation.to_array()).chain(t.scale.to_array()))
        .map(f32::to_bits)
        .collect()
}

/// Writes `from`'s properties that `flags` mark into `to`, as sampling does.
fn write_flagged(to: &mut Pose, from: &Pose, flags: &[u8]) -> Result<(), RuntimeError> {
    for (j, &f) in flags.iter().enumerate() {
        if f & ANIMATES_TRANSLATION != 0 {
            to.set_translation(j, from.translation(j));
        }
        if f & ANIMATES_ROTATION != 0 {
            to.set_rotation(j, from.rotation(j));
        }
        if f & ANIMATES_SCALE != 0 {
            to.set_scale(j, from.scale(j));
        }
    }
    Ok(())
}

#[test]
fn lane_flags_are_the_flags_from_a_joint_and_zero_past_the_end() {
    for n in 0..20u8 {
        let flags: Vec<u8> = (1..=n).collect();
        for j0 in (0..24).step_by(4) {
            let want: [u8; BLOCK] = std::array::from_fn(|l| flags.get(j0 + l).copied().unwrap_or(0));
            assert_eq!(lane_flags(&flags, j0), want, "{n} flags from {j0}");
        }
    }
}

#[test]
fn a_last_input_closes_its_layer_as_added_ones_do_bit_for_bit() {
    let (a, b, mut c) = (pose(2.0, 0.4), pose(6.0, 1.0), pose(-1.0, 2.5));
    // Rotations about other axes, so that the order of products shows.
    c.set_rotation(0, Quat::from_rotation_y(0.9));
    c.set_rotation(1, Quat::from_euler(glam::EulerRot::XYZ, 0.3, -1.2, 0.4));
    let partial = [ANIMATES_ROTATION, ANIMATES_TRANSLATION | ANIMATES_SCALE];
    let reference = ReferencePose::from_pose(&pose(1.0, 0.2));
    let mask = [0.0, 0.7];
    // Layers of (mode, weight, inputs): an override base, an additive
    // layer of one input (masked or not), of two inputs, then an
    // override layer or additive one on top.
    let add = |p: &'static str| match p {
        "c" => BlendInput::new(&c, &[ALL; 2], 1.0).with_reference(&reference),
        "c/2" => BlendInput::new(&c, &partial, 0.5).with_reference(&reference),
        "a-masked" => BlendInput::new(&a, &[ALL; 2], 0.8).with_reference(&reference).with_mask(&mask),
        "b" => BlendInput::new(&b, &partial, 1.0),
        _ => BlendInput::new(&a, &[ALL; 2], 0.0).with_reference(&reference),
    };
    let stacks: [&[(BlendMode, f32, &[&str])]; 5] = [
        &[(BlendMode::Override, 1.0, &["b"]), (BlendMode::Additive, 0.5, &["c"])],
        &[(BlendMode::Override, 0.6, &["b"]), (BlendMode::Additive, 1.0, &["a-masked"])],
        &[(BlendMode::Additive, 0.7, &["c", "c/2"]), (BlendMode::Override, 0.5, &["b"])],
        &[(BlendMode::Override, 1.0, &["b"]), (BlendMode::Additive, 1.0, &["c/2"]), (BlendMode::Additive, 0.4, &["c"])],
        &[(BlendMode::Override, 1.0, &["b"]), (BlendMode::Additive, 1.0, &["zero"])],
    ];
    for composition in [Composition::Mixer, Composition::Layered] {
        for (k, stack) in stacks.iter().enumerate() {
            let rest = pose(0.0, 0.0);
            let mut ctx = BlendingContext::new(2);
            let mut want = rest.clone();
            let mut blender = ctx.begin(composition, &rest, &mut want).unwrap();
            for (mode, weight, inputs) in stack.iter() {
                blender.layer(*mode, *weight);
                for p in inputs.iter() {
                    blender.add(&add(p)).unwrap();
                }
            }
            blender.finish();
            // Each layer's last input by `add_last`, the blend's by `finish_with`.
            let mut got = pose(9.0, 3.0);
            let mut blender = ctx.begin(composition, &rest, &mut got).unwrap();
            let mut last = None;
            for (l, (mode, weight, inputs)) in stack.iter().enumerate() {
                blender.layer(*mode, *weight);
                let (final_one, inputs) = inputs.split_last().unwrap();
                for p in inputs.iter() {
                    blender.add(&add(p)).unwrap();
                }
                if l + 1 == stack.len() {
                    last = Some(add(final_one));
                } else {
                    blender.add_last(&add(final_one)).unwrap();
                }
            }
            blender.finish_with(&last.unwrap()).unwrap();
            assert_eq!(bits(&got), bits(&want), "{composition:?}, stack {k}");
            // The job closes layers the same way.
            let layers: Vec<Vec<BlendInput<'_>>> =
                stack.iter().map(|(_, _, inputs)| inputs.iter().map(|p| add(p)).collect()).collect();
            let layers: Vec<BlendLayer<'_>> = stack
                .iter()
                .zip(&layers)
                .map(|((mode, weight, _), inputs)| BlendLayer { mode: *mode, weight: *weight, inputs })
                .collect();
            let mut job = pose(9.0, 3.0);
            BlendingJob { rest: &rest, layers: &layers, composition, context: &mut ctx, output: &mut job }
                .run()
                .unwrap();
            assert_eq!(bits(&job), bits(&want), "job: {composition:?}, stack {k}");
        }
    }
    // A bad last input is reported like an added one.
    let rest = pose(0.0, 0.0);
    let (mut ctx, mut out) = (BlendingContext::new(2), rest.clone());
    let mut blender = ctx.begin(Composition::Mixer, &rest, &mut out).unwrap();
    blender.layer(BlendMode::Additive, 1.0);
    let RuntimeError::InvalidJob { reasons, .. } =
        blender.finish_with(&BlendInput::new(&c, &[ALL; 2], f32::NAN)).unwrap_err()
    else {
        panic!()
    };
    assert_eq!(reasons.len(), 2, "{reasons:?}");
}

/// An input written in place that animates every property of every
/// joint at weight 1 leaves nothing for the rest fill (which it skips);
/// at a lower weight, or with a property left out, the rest fills in.
/// Either way the same bits as the input added.
#[test]
fn an_input_in_place_that_animates_everything_at_full_weight_is_the_pose() {
    let (a, rest) = (pose(2.0, 0.4), pose(0.0, 0.0));
    for (flags, weight) in [([ALL; 2], 1.0), ([ALL; 2], 0.8), ([ALL, ANIMATES_ROTATION], 1.0)] {
        let mut ctx = BlendingContext::new(2);
        let mut want = rest.clone();
        let mut blender = ctx.begin(Composition::Mixer, &rest, &mut want).unwrap();
        blender.add(&BlendInput::new(&a, &flags, weight)).unwrap();
        blender.finish();
        let mut out = pose(9.0, 3.0);
        let mut blender = ctx.begin(Composition::Mixer, &rest, &mut out).unwrap();
        assert!(blender.add_in_place(&flags, weight, |t| write_flagged(t, &a, &flags)).unwrap());
        blender.finish();
        assert_eq!(bits(&out), bits(&want), "{flags:?} at {weight}");
        assert_eq!(bits(&out) == bits(&a), flags == [ALL; 2] && weight == 1.0, "{flags:?} at {weight}");
    }
}

#[test]
fn an_input_written_in_place_blends_as_an_added_one_bit_for_bit() {
    let (a, b, c) = (pose(2.0, 0.4), pose(6.0, 1.0), pose(-1.0, 2.5));
    let partial = [ANIMATES_ROTATION, ANIMATES_TRANSLATION | ANIMATES_SCALE];
    let reference = ReferencePose::from_pose(&pose(1.0, 0.2));
    for composition in [Composition::Mixer, Composition::Layered] {
        for layer_weight in [1.0, 0.7] {
            let rest = pose(0.0, 0.0);
            let (mut ctx, mut out) = (BlendingContext::new(2), rest.clone());
            let mut blender = ctx.begin(composition, &rest, &mut out).unwrap();
            blender.layer(BlendMode::Override, layer_weight);
            blender.add(&BlendInput::new(&a, &partial, 0.6)).unwrap();
            blender.add(&BlendInput::new(&b, &[ALL; 2], 0.4)).unwrap();
            blender.layer(BlendMode::Override, 0.5);
            blender.add(&BlendInput::new(&c, &partial, 1.0)).unwrap();
            blender.layer(BlendMode::Additive, 0.5);
            blender.add(&BlendInput::new(&c, &[ALL; 2], 1.0).with_reference(&reference)).unwrap();
            blender.finish();
            let want = out.clone();

            // The first input of the first override layer goes in place
            // (and of every override layer when layered: the mixer
            // accumulates all layers into one set of weights); the
            // second input and the additive one cannot.
            let mut out = pose(9.0, 3.0); // stale values must not matter
            let mut blender = ctx.begin(composition, &rest, &mut out).unwrap();
            blender.layer(BlendMode::Override, layer_weight);
            assert!(blender.add_in_place(&partial, 0.6, |t| write_flagged(t, &a, &partial)).unwrap());
            let never = |_: &mut Pose| -> Result<(), RuntimeError> { panic!("not written in place") };
            assert!(!blender.add_in_place(&[ALL; 2], 0.4, never).unwrap());
            blender.add(&BlendInput::new(&b, &[ALL; 2], 0.4)).unwrap();
            blender.layer(BlendMode::Override, 0.5);
            let in_place = blender.add_in_place(&partial, 1.0, |t| write_flagged(t, &c, &partial)).unwrap();
            assert_eq!(in_place, composition == Composition::Layered);
            if !in_place {
                blender.add(&BlendInput::new(&c, &partial, 1.0)).unwrap();
            }
            blender.layer(BlendMode::Additive, 0.5);
            assert!(!blender.add_in_place(&[ALL; 2], 1.0, never).unwrap());
            blender.add(&BlendInput::new(&c, &[ALL; 2], 1.0).with_reference(&reference)).unwrap();
            blender.finish();
            assert_eq!(bits(&out), bits(&want), "{composition:?}, layer weight {layer_weight}");
        }
    }
    // Bad lengths and weights are reported, and `write` is not called.
    let rest = pose(0.0, 0.0);
    let (mut ctx, mut out) = (BlendingContext::new(2), rest.clone());
    let mut blender = ctx.begin(Composition::Mixer, &rest, &mut out).unwrap();
    let never = |_: &mut Pose| -> Result<(), RuntimeError> { panic!("written after a failed check") };
    let RuntimeError::InvalidJob { reasons, .. } = blender.add_in_place(&[ALL], f32::NAN, never).unwrap_err() else {
        panic!()
    };
    assert_eq!(reasons.len(), 2, "{reasons:?}");
}

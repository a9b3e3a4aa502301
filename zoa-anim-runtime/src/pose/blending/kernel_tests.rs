//! The kernels on every path against an `f64` transcription of three.js
//! (`PropertyMixer` accumulation and rest fill, the additive buffer,
//! `Quaternion.slerpFlat`), one kernel call at a time, on random poses,
//! weights, masks and animated flags; rotations include unit, opposite
//! hemisphere, slightly unnormalized and denormal-component quaternions.

// The reference loops index several per-joint arrays at once, and `!(w > 0.0)`
// is three.js's test (NaN counts as no weight).
#![allow(clippy::needless_range_loop, clippy::neg_cmp_op_on_partial_ord)]

use glam::{Quat, Vec3};
use proptest::prelude::*;
use zoa_anim_core::Transform;
use zoa_test_support::three::{self, Q};

use super::additive::{accumulate_additive_at, add_onto_at, apply_delta_at};
use super::kernels::{RestWeights, accumulate_at, compose_over_at, mark_animated_at, rest_fill_at};
use crate::pose::Pose;
use crate::pose::animation::{ANIMATES_ROTATION, ANIMATES_SCALE, ANIMATES_TRANSLATION};
use crate::pose::simd::Level;
use crate::pose::simd::tests::each_path;
use crate::pose::simd::{BLOCK, Row, blocks_for};

thread_local! {
    /// Set when a reference slerp had operands 90° apart (|cos| < 1e-6):
    /// which way round is then decided by the sign of a cosine at the
    /// rounding level of `f32`, so either arc is right; such cases are skipped.
    static AMBIGUOUS: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// three.js `Quaternion.slerpFlat` in `f64`, noting operands 90° apart.
fn slerp64(a: Q, b: Q, t: f64) -> Q {
    if t != 0.0 && t != 1.0 && a != b && three::dot(a, b).abs() < 1e-6 {
        AMBIGUOUS.set(true);
    }
    three::slerp(a, b, t)
}
/// One joint's properties in `f64`.
#[derive(Debug, Clone, Copy)]
struct J {
    t: [f64; 3],
    r: Q,
    s: [f64; 3],
}
fn joints(p: &Pose) -> Vec<J> {
    p.transforms()
        .map(|x| J {
            t: x.translation.to_array().map(f64::from),
            r: x.rotation.to_array().map(f64::from),
            s: x.scale.to_array().map(f64::from),
        })
        .collect()
}

/// Lane `j` of property row `p` (0 translation, 1 rotation, 2 scale).
fn lane(rows: &[Row], j: usize, p: usize) -> f32 {
    rows[j / BLOCK * 3 + p].0[j % BLOCK]
}
fn rows_from(values: &[[f32; 3]]) -> Vec<Row> {
    let mut rows = vec![Row::splat(0.0); 3 * blocks_for(values.len())];
    for (j, v) in values.iter().enumerate() {
        for p in 0..3 {
            rows[j / BLOCK * 3 + p].0[j % BLOCK] = v[p];
        }
    }
    rows
}

fn quat() -> impl Strategy<Value = Quat> {
    let unit = (-1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0)
        .prop_filter("non-degenerate", |(x, y, z, w)| x * x + y * y + z * z + w * w > 0.01)
        .prop_map(|(x, y, z, w)| Quat::from_xyzw(x, y, z, w).normalize());
    prop_oneof![
        4 => unit.clone(),
        // Slightly short of unit length (three.js uses the dot as the cosine).
        1 => (unit.clone(), 0.9f32..0.999).prop_map(|(q, l)| q * l),
        // Denormal components.
        1 => (unit, 1usize..3).prop_map(|(q, k)| {
            // Two components other than the largest become denormal.
            let mut a = q.to_array();
            let big = (0..4).max_by(|&i, &j| a[i].abs().total_cmp(&a[j].abs())).unwrap_or(3);
            a[(big + k) % 4] = 1e-39 * a[(big + k) % 4].signum();
            a[(big + k + 1) % 4] = -3e-40;
            Quat::from_array(a).normalize()
        }),
    ]
}
fn transform() -> impl Strategy<Value = Transform> {
    let v = || (-10.0f32..10.0, -10.0f32..10.0, -10.0f32..10.0).prop_map(|(x, y, z)| Vec3::new(x, y, z));
    (v(), quat(), v()).prop_map(|(translation, rotation, scale)| Transform { translation, rotation, scale })
}
/// A weight: often 0 or 1 exactly, sometimes denormal, else in (0, 1].
fn weight() -> impl Strategy<Value = f32> {
    prop_oneof![1 => Just(0.0f32), 1 => Just(1.0f32), 1 => Just(1e-40f32), 4 => 0.0f32..=1.0]
}
/// An accumulated weight `W`: 0 (no value yet), tiny, or up to 2.
fn acc_weight() -> impl Strategy<Value = f32> {
    prop_oneof![2 => Just(0.0f32), 1 => Just(1.0f32), 1 => Just(1e-40f32), 4 => 0.0f32..2.0]
}

/// A case over `n` joints: output, input, rest poses; input `i`'s rotation
/// sometimes set to the output's, or to its opposite-hemisphere near copy.
#[derive(Debug, Clone)]
struct Case {
    out: Pose,
    input: Pose,
    rest: Pose,
    animated: Vec<u8>,
    mask: Option<Vec<f32>>,
    acc: Vec<[f32; 3]>,
    weight: f32,
}
fn case() -> impl Strategy<Value = Case> {
    (1usize..14).prop_flat_map(|n| {
        (
            prop::collection::vec(transform(), n),
            prop::collection::vec(transform(), n),
            prop::collection::vec(transform(), n),
            prop::collection::vec(0u8..8, n),
            prop::option::of(prop::collection::vec(weight(), n)),
            prop::collection::vec((acc_weight(), acc_weight(), acc_weight()), n),
            weight(),
            prop::collection::vec(0u8..4, n),
        )
            .prop_map(|(out, mut input, rest, animated, mask, acc, weight, relation)| {
                for ((i, o), k) in input.iter_mut().zip(&out).zip(relation) {
                    match k {
                        1 => i.rotation = o.rotation,
                        2 => i.rotation = -(o.rotation * Quat::from_rotation_y(0.05)),
                        _ => {}
                    }
                }
                Case {
                    out: Pose::from_transforms(out),
                    input: Pose::from_transforms(input),
                    rest: Pose::from_transforms(rest),
                    animated,
                    mask,
                    acc: acc.into_iter().map(|(a, b, c)| [a, b, c]).collect(),
                    weight,
                }
            })
    })
}

/// Rotations within 1e-6; translations and scales (up to 10 in these
/// cases, and up to 20 apart) within 1e-6 of that magnitude.
fn close(got: f64, want: f64, magnitude: f64) -> bool {
    (got - want).abs() <= 1e-6 * magnitude
}
fn check_pose(path: &str, got: &Pose, want: &[J]) -> Result<(), TestCaseError> {
    for (j, (g, w)) in joints(got).iter().zip(want).enumerate() {
        let ok = (0..3).all(|c| close(g.t[c], w.t[c], 20.0) && close(g.s[c], w.s[c], 20.0))
            && (0..4).all(|c| close(g.r[c], w.r[c], 1.0));
        prop_assert!(ok, "{path}: joint {j}: got {g:?}, want {w:?}");
    }
    Ok(())
}
/// Runs `kernel` on each path; every result within 1e-6 of `want`, and the
/// scalar and four-lane results equal bit for bit.
fn on_every_path(want: &[J], mut kernel: impl FnMut(Level) -> Pose) -> Result<(), TestCaseError> {
    let mut results = Vec::new();
    let mut failure = Ok(());
    each_path(|path, level| {
        let got = kernel(level);
        if failure.is_ok() {
            failure = check_pose(path, &got, want);
        }
        results.push((path.to_owned(), got));
    });
    failure?;
    let bits = |p: &Pose| p.transforms().map(|t| format!("{:?}", t)).collect::<Vec<_>>();
    prop_assert_eq!(bits(&results[0].1), bits(&results[1].1), "scalar and four lanes differ");
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn accumulate_matches_three_js(mut c in case(), share in any::<bool>()) {
        AMBIGUOUS.set(false);
        // Shared: no mask, and every accumulated weight 0 or one value
        // (what the blender passes after one unmasked input).
        let shared = share.then(|| {
            let w = if c.acc[0][1] > 0.0 { c.acc[0][1] } else { 0.7 };
            c.mask = None;
            for a in c.acc.iter_mut().flatten() {
                *a = if *a > 0.0 { w } else { 0.0 };
            }
            w
        });
        let n = c.out.len();
        let mut want = joints(&c.out);
        let input = joints(&c.input);
        let mut want_acc = c.acc.clone().into_iter().map(|a| a.map(f64::from)).collect::<Vec<_>>();
        for j in 0..n {
            let w = c.mask.as_ref().map_or(c.weight, |m| c.weight * m[j]);
            if !(w > 0.0) {
                continue;
            }
            let w = f64::from(w);
            for (p, bit) in [(0, ANIMATES_TRANSLATION), (1, ANIMATES_ROTATION), (2, ANIMATES_SCALE)] {
                if c.animated[j] & bit == 0 {
                    continue;
                }
                let acc = want_acc[j][p];
                let (total, t) = if acc == 0.0 { (w, 1.0) } else { (acc + w, w / (acc + w)) };
                want_acc[j][p] = total;
                match p {
                    0 => want[j].t = if acc == 0.0 { input[j].t } else { three::lerp(want[j].t, input[j].t, t) },
                    1 => want[j].r = if acc == 0.0 { input[j].r } else { slerp64(want[j].r, input[j].r, t) },
                    _ => want[j].s = if acc == 0.0 { input[j].s } else { three::lerp(want[j].s, input[j].s, t) },
                }
            }
        }
        prop_assume!(!AMBIGUOUS.get());
        on_every_path(&want, |level| {
            let mut out = c.out.clone();
            let mut acc = rows_from(&c.acc);
            accumulate_at(level, &mut out, &mut acc, &c.input, &c.animated, c.weight, c.mask.as_deref(), shared, n);
            for j in 0..n {
                for p in 0..3 {
                    let want = want_acc[j][p];
                    assert!((f64::from(lane(&acc, j, p)) - want).abs() <= 1e-6 * want.max(1.0));
                }
            }
            out
        })?;
    }

    #[test]
    fn rest_fill_and_compose_over_match_three_js(c in case()) {
        AMBIGUOUS.set(false);
        let n = c.out.len();
        let (out, rest) = (joints(&c.out), joints(&c.rest));
        let mut filled = out.clone();
        let mut over = out.clone();
        for j in 0..n {
            let [wt, wr, ws] = c.acc[j].map(f64::from);
            let fill3 = |v: [f64; 3], r: [f64; 3], w: f64| if w == 0.0 { r } else if w < 1.0 { three::lerp(v, r, 1.0 - w) } else { v };
            filled[j].t = fill3(out[j].t, rest[j].t, wt);
            filled[j].s = fill3(out[j].s, rest[j].s, ws);
            filled[j].r = if wr == 0.0 { rest[j].r } else if wr < 1.0 { slerp64(out[j].r, rest[j].r, 1.0 - wr) } else { out[j].r };
            let over3 = |v: [f64; 3], l: [f64; 3], w: f64| if w >= 1.0 { l } else if w > 0.0 { three::lerp(v, l, w) } else { v };
            over[j].t = over3(out[j].t, rest[j].t, wt);
            over[j].s = over3(out[j].s, rest[j].s, ws);
            over[j].r = if wr >= 1.0 { rest[j].r } else if wr > 0.0 { slerp64(out[j].r, rest[j].r, wr) } else { out[j].r };
        }
        prop_assume!(!AMBIGUOUS.get());
        let acc = rows_from(&c.acc);
        on_every_path(&filled, |level| {
            let mut o = c.out.clone();
            rest_fill_at(level, &mut o, &c.rest, RestWeights::Rows(&acc), n);
            o
        })?;
        on_every_path(&over, |level| {
            let mut o = c.out.clone();
            compose_over_at(level, &mut o, &c.rest, &acc, n);
            o
        })?;
    }

    #[test]
    fn additive_accumulation_and_application_match_three_js(c in case(), apply in any::<bool>()) {
        AMBIGUOUS.set(false);
        // `out` plays the delta held so far (held where `acc` > 1),
        // `rest` the reference (its rotations already inverted).
        let n = c.out.len();
        let held: Vec<[f32; 3]> = c.acc.iter().map(|a| a.map(|w| if w > 1.0 { 1.0 } else { 0.0 })).collect();
        let (delta, input, inv) = (joints(&c.out), joints(&c.input), joints(&c.rest));
        let mut want = delta.clone();
        for j in 0..n {
            let w = c.mask.as_ref().map_or(c.weight, |m| c.weight * m[j]);
            if !(w > 0.0) {
                continue;
            }
            let w = f64::from(w);
            let bits = c.animated[j];
            let step3 = |x: [f64; 3], r: [f64; 3], d: [f64; 3], had: bool| {
                let s: [f64; 3] = std::array::from_fn(|i| f64::from((x[i] as f32 - r[i] as f32) * w as f32));
                if had { std::array::from_fn(|i| d[i] + s[i]) } else { s }
            };
            if bits & ANIMATES_TRANSLATION != 0 {
                want[j].t = step3(input[j].t, inv[j].t, delta[j].t, held[j][0] > 0.0);
            }
            if bits & ANIMATES_SCALE != 0 {
                want[j].s = step3(input[j].s, inv[j].s, delta[j].s, held[j][2] > 0.0);
            }
            if bits & ANIMATES_ROTATION != 0 {
                let acc = if held[j][1] > 0.0 { delta[j].r } else { three::IDENTITY };
                want[j].r = slerp64(acc, three::mul(acc, three::mul(inv[j].r, input[j].r)), w);
            }
        }
        prop_assume!(!AMBIGUOUS.get());
        let held_rows = rows_from(&held);
        on_every_path(&want, |level| {
            let mut d = c.out.clone();
            let mut h = held_rows.clone();
            accumulate_additive_at(level, &mut d, &mut h, &c.input, &c.rest, &c.animated, c.weight, c.mask.as_deref(), n);
            d
        })?;
        if apply {
            // Application: `rest` now plays the output below, `out` the delta.
            let below = joints(&c.rest);
            let mut want = below.clone();
            for j in 0..n {
                for p in 0..3 {
                    if held[j][p] == 0.0 {
                        continue;
                    }
                    match p {
                        0 => want[j].t = std::array::from_fn(|i| below[j].t[i] + delta[j].t[i]),
                        1 => want[j].r = three::mul(below[j].r, delta[j].r),
                        _ => want[j].s = std::array::from_fn(|i| below[j].s[i] + delta[j].s[i]),
                    }
                }
            }
            on_every_path(&want, |level| {
                let mut o = c.rest.clone();
                apply_delta_at(level, &mut o, &c.out, &held_rows, n);
                o
            })?;
        }
    }

    #[test]
    fn an_additive_input_added_onto_the_output_is_accumulation_then_application_bit_for_bit(c in case()) {
        // `input` is the additive pose, `rest` its prepared reference,
        // `out` the output below; `acc` plays a stale delta context.
        let n = c.out.len();
        let mut results = Vec::new();
        each_path(|path, level| {
            let (mut delta, mut held) = (c.rest.clone(), vec![Row::splat(0.0); 3 * blocks_for(n)]);
            let mut want = c.out.clone();
            accumulate_additive_at(level, &mut delta, &mut held, &c.input, &c.rest, &c.animated, c.weight, c.mask.as_deref(), n);
            apply_delta_at(level, &mut want, &delta, &held, n);
            let mut got = c.out.clone();
            add_onto_at(level, &mut got, &c.input, &c.rest, &c.animated, c.weight, c.mask.as_deref(), n);
            let bits = |p: &Pose| joints(p).iter().flat_map(|j| j.t.into_iter().chain(j.r).chain(j.s)).map(f64::to_bits).collect::<Vec<_>>();
            results.push((path.to_string(), bits(&got) == bits(&want)));
        });
        for (path, same) in results {
            prop_assert!(same, "{path}: add_onto differs from accumulation then application");
        }
    }

    #[test]
    fn a_rest_fill_by_flags_is_the_rest_fill_by_the_weights_they_mark_bit_for_bit(c in case()) {
        prop_assume!(c.weight > 0.0);
        let n = c.out.len();
        let mut results = Vec::new();
        each_path(|path, level| {
            let mut marked = vec![Row::splat(0.0); 3 * blocks_for(n)];
            mark_animated_at(level, &mut marked, &c.animated, c.weight, n);
            let (mut want, mut got) = (c.out.clone(), c.out.clone());
            rest_fill_at(level, &mut want, &c.rest, RestWeights::Rows(&marked), n);
            rest_fill_at(level, &mut got, &c.rest, RestWeights::Flags(&c.animated, c.weight), n);
            let bits = |p: &Pose| joints(p).iter().flat_map(|j| j.t.into_iter().chain(j.r).chain(j.s)).map(f64::to_bits).collect::<Vec<_>>();
            results.push((path.to_string(), bits(&got) == bits(&want)));
        });
        for (path, same) in results {
            prop_assert!(same, "{path}: the rest fill by flags differs from the one by marked weights");
        }
    }
}

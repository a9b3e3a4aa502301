//! The lane types and lane math on every path: slerps against the scalar
//! reference and each other, transposes, masks, noise flushing, prefetch
//! vendors.

use super::cache::{amd_like_cpu, amd_like_vendor};
use super::*;

#[test]
fn rotation_noise_flushes_to_zero_and_nothing_else_moves() {
    let lanes = [3.6e-25_f32, -1.5e-20, f32::from_bits(1), 9.9e-11];
    let kept = [1e-10_f32, -2e-9, 0.6, -1.0];
    let q = flush_noise([Scalar4(lanes), Scalar4(kept), Scalar4([0.0; 4]), Scalar4([-0.0, 1.0, 0.5, -0.5])]);
    assert_eq!(q[0].0, [0.0; 4]);
    assert_eq!(q[1].0.map(f32::to_bits), kept.map(f32::to_bits));
    assert_eq!(q[3].0.map(f32::to_bits)[1..], [1.0_f32, 0.5, -0.5].map(f32::to_bits));
}

#[test]
fn crowd_prefetch_is_for_amd_and_hygon_vendors() {
    let word = |v: &[u8; 12]| u32::from_le_bytes([v[0], v[1], v[2], v[3]]);
    assert!(amd_like_vendor(word(b"AuthenticAMD")));
    assert!(amd_like_vendor(word(b"HygonGenuine")));
    assert!(!amd_like_vendor(word(b"GenuineIntel")));
    assert!(!amd_like_vendor(word(b"CentaurHauls")));
    // Detected once: every call agrees.
    assert_eq!(crowd_prefetch(), crowd_prefetch());
    assert_eq!(crowd_prefetch(), amd_like_cpu());
}

/// Runs `f` once per path this machine has, with the path's name.
pub(crate) fn each_path(mut f: impl FnMut(&str, Level)) {
    f("scalar", Level::Scalar);
    f("x4", Level::X4);
    if Level::detect() == Level::X8 {
        f("x8", Level::X8);
    }
}

#[test]
fn blocks_cover_the_joints() {
    assert_eq!(blocks_for(0), 0);
    assert_eq!(blocks_for(1), 1);
    assert_eq!(blocks_for(8), 1);
    assert_eq!(blocks_for(9), 2);
    assert_eq!(blocks_for(55), 7);
}

fn rows(q: &[glam::Quat]) -> Vec<Row> {
    (0..4).map(|c| Row(std::array::from_fn(|l| q.get(l).map_or(0.0, |q| q.to_array()[c])))).collect()
}

#[test]
fn lane_slerp_is_within_1e6_of_the_scalar_slerp_and_exact_at_the_ends() {
    let qs = [
        glam::Quat::from_rotation_x(0.3),
        glam::Quat::from_rotation_y(-2.0),
        -glam::Quat::from_rotation_z(1.0),
        glam::Quat::from_xyzw(0.5, 0.5, 0.5, 0.5),
    ];
    let b = [qs[1], qs[2], qs[3], qs[0]];
    for ts in [[0.0, 0.2, 0.5, 0.7], [1.0, 0.0, 0.99, 0.01]] {
        let got: QuatLanes<Scalar4> = slerp(load(&rows(&qs), 0), load(&rows(&b), 0), Scalar4(ts));
        for l in 0..4 {
            let want = crate::pose::math::slerp(qs[l], b[l], ts[l]).to_array();
            for c in 0..4 {
                assert!((got[c].0[l] - want[c]).abs() < 1e-6, "lane {l} component {c}");
                if ts[l] == 0.0 || ts[l] == 1.0 {
                    assert_eq!(got[c].0[l], want[c], "endpoints are exact");
                }
            }
        }
    }
}

/// `slerp_arc` with the arc made by `arc` and `slerp_uniform`, per lane
/// of `a` and `b` (4 rows each), into rows 0..4 and 4..8 of `out`.
#[inline(always)]
fn arc_and_uniform_lanes<V: Lanes>(a: &[Row], b: &[Row], t: f32, out: &mut [Row]) {
    let u = UniformT::new(t);
    for at in (0..BLOCK).step_by(V::LANES) {
        let (qa, qb) = (load::<V, 4>(a, at), load::<V, 4>(b, at));
        store(&mut out[..4], at, slerp_arc(qa, qb, arc(qa, qb), &u));
        store(&mut out[4..], at, slerp_uniform(qa, qb, &u));
    }
}
dispatch!(fn arc_and_uniform / arc_and_uniform_at => arc_and_uniform_lanes(
    a: &[Row], b: &[Row], t: f32, out: &mut [Row],
));

/// Pairs of quaternions to slerp between, one per lane: near and far
/// hemispheres, equal operands (also up to the sign of a zero), nearly
/// equal and nearly opposite ones, subnormal components.
fn arc_operands() -> ([glam::Quat; 8], [glam::Quat; 8]) {
    let n = |x: f32, y: f32, z: f32, w: f32| glam::Quat::from_xyzw(x, y, z, w);
    let a = [
        glam::Quat::from_rotation_x(0.3),
        glam::Quat::from_rotation_y(-2.0),
        n(0.5, 0.5, 0.5, 0.5),
        n(-0.0, 0.0, 0.0, 1.0),
        glam::Quat::from_rotation_z(1e-4),
        n(0.0, 0.6, 0.0, 0.8001),
        n(1e-40, 0.0, 0.0, 1.0),
        glam::Quat::from_rotation_x(1.0),
    ];
    let b = [
        glam::Quat::from_rotation_z(1.2),
        -glam::Quat::from_rotation_y(1.0),
        n(0.5, 0.5, 0.5, 0.5),
        n(0.0, 0.0, 0.0, 1.0),
        glam::Quat::from_rotation_z(2e-4),
        -n(0.6, 0.0, 0.0, 0.8),
        n(0.0, 1e-40, 0.0, 1.0),
        -glam::Quat::from_rotation_x(1.0 + 3.1),
    ];
    (a, b)
}

#[test]
fn slerp_with_a_prepared_arc_is_the_uniform_slerp_to_the_bit_on_every_path() {
    let _ = arc_and_uniform;
    let (a, b) = arc_operands();
    each_path(|path, level| {
        for t in [0.0, 1.0, 0.25, 0.5, 0.500_000_1, 0.75, 0.999] {
            let mut out = vec![Row::splat(0.0); 8];
            arc_and_uniform_at(level, &rows(&a), &rows(&b), t, &mut out);
            for c in 0..4 {
                let (got, want) = (out[c].0.map(f32::to_bits), out[4 + c].0.map(f32::to_bits));
                assert_eq!(got, want, "{path}: t = {t}, component {c}");
                // The ends are copies, signed zeros kept.
                let bits = |q: &[glam::Quat; 8]| q.map(|q| q.to_array()[c].to_bits());
                if t == 0.0 {
                    assert_eq!(got, bits(&a), "{path}: t = 0 gives a");
                } else if t == 1.0 {
                    assert_eq!(got, bits(&b), "{path}: t = 1 gives b");
                }
            }
        }
    });
}

/// `slerp_uniform_from_identity` to `b` and `slerp_uniform` from the
/// identity to `b` at `t`, into rows 0..4 and 4..8 of `out`.
#[inline(always)]
fn from_identity_lanes<V: Lanes>(b: &[Row], t: f32, out: &mut [Row]) {
    let u = UniformT::new(t);
    let identity = [V::splat(0.0), V::splat(0.0), V::splat(0.0), V::splat(1.0)];
    for at in (0..BLOCK).step_by(V::LANES) {
        let qb = load::<V, 4>(b, at);
        store(&mut out[..4], at, slerp_uniform_from_identity(qb, &u));
        store(&mut out[4..], at, slerp_uniform(identity, qb, &u));
    }
}
dispatch!(fn from_identity / from_identity_at => from_identity_lanes(b: &[Row], t: f32, out: &mut [Row]));

#[test]
fn a_slerp_from_the_identity_is_the_uniform_slerp_from_it_up_to_the_sign_of_zero_on_every_path() {
    let _ = from_identity;
    let (a, b) = arc_operands();
    // Both sets of operands, the identity and a hair off it among them.
    for b in [
        a,
        b,
        [
            glam::Quat::IDENTITY,
            -glam::Quat::IDENTITY,
            glam::Quat::from_xyzw(-0.0, 0.0, -0.0, 1.0),
            b[3],
            b[4],
            b[5],
            b[6],
            b[7],
        ],
    ] {
        each_path(|path, level| {
            for t in [0.0, 1.0, 0.25, 0.5, 0.500_000_1, 0.75, 0.999] {
                let mut out = vec![Row::splat(0.0); 8];
                from_identity_at(level, &rows(&b), t, &mut out);
                for c in 0..4 {
                    // Equal as numbers: +0 and −0 alike, and bit for bit otherwise.
                    let (got, want) = (out[c].0, out[4 + c].0);
                    for l in 0..BLOCK {
                        let same = got[l].to_bits() == want[l].to_bits() || (got[l] == 0.0 && want[l] == 0.0);
                        assert!(same, "{path}: t = {t}, lane {l}, component {c}: {} vs {}", got[l], want[l]);
                    }
                }
            }
        });
    }
}

/// `slerp_prepared` along the arc `arc` makes, and `slerp`, per lane of
/// `a` and `b` (4 rows each) at the per-lane parameters `t`, into rows
/// 0..4 and 4..8 of `out`.
#[inline(always)]
fn prepared_and_slerp_lanes<V: Lanes>(a: &[Row], b: &[Row], t: &Row, out: &mut [Row]) {
    for at in (0..BLOCK).step_by(V::LANES) {
        let (qa, qb, t) = (load::<V, 4>(a, at), load::<V, 4>(b, at), V::load(t, at));
        let [bx, by, bz, bw, inv, xm1, _] = arc(qa, qb);
        store(&mut out[..4], at, slerp_prepared(qa, [bx, by, bz, bw], inv, xm1, t));
        store(&mut out[4..], at, slerp(qa, qb, t));
    }
}
dispatch!(fn prepared_and_slerp / prepared_and_slerp_at => prepared_and_slerp_lanes(
    a: &[Row], b: &[Row], t: &Row, out: &mut [Row],
));

#[test]
fn slerp_along_a_prepared_arc_is_the_lane_slerp_to_the_bit_inside_the_arc_on_every_path() {
    let _ = prepared_and_slerp;
    // The operands of `arc_operands`, with the two equal pairs made
    // unequal (equal operands are the caller's).
    let (a, mut b) = arc_operands();
    b[2] = glam::Quat::from_xyzw(0.5, 0.5, 0.5, -0.5);
    b[3] = glam::Quat::from_xyzw(0.0, 0.0, 1e-3, 1.0);
    each_path(|path, level| {
        for ts in [[0.25, 0.5, 0.500_000_1, 0.75, 0.999, 1e-7, 0.4, 0.6], [0.01, 0.99, 0.3, 0.7, 0.5, 0.49, 0.51, 0.9]]
        {
            let mut out = vec![Row::splat(0.0); 8];
            prepared_and_slerp_at(level, &rows(&a), &rows(&b), &Row(ts), &mut out);
            for c in 0..4 {
                let (got, want) = (out[c].0.map(f32::to_bits), out[4 + c].0.map(f32::to_bits));
                assert_eq!(got, want, "{path}: t = {ts:?}, component {c}");
            }
        }
    });
}

#[test]
fn transpose_turns_records_into_component_rows_on_every_lane_type() {
    let records: Vec<[[f32; 4]; 3]> =
        (0..BLOCK).map(|l| std::array::from_fn(|f| std::array::from_fn(|c| (100 * f + 10 * l + c) as f32))).collect();
    let refs: Vec<&[[f32; 4]; 3]> = records.iter().collect();
    let want = |field: usize, c: usize, lanes: std::ops::Range<usize>| -> Vec<f32> {
        lanes.map(|l| records[l][field][c]).collect()
    };
    for field in 0..3 {
        for at in [0, 4] {
            let got = Scalar4::transpose(&refs, field, at);
            let glam = Glam4::transpose(&refs, field, at);
            for c in 0..4 {
                assert_eq!(got[c].0.to_vec(), want(field, c, at..at + 4));
                assert_eq!(glam[c].0.to_array().to_vec(), want(field, c, at..at + 4));
            }
            #[cfg(target_arch = "x86_64")]
            {
                for (c, v) in Sse4::transpose(&refs, field, at).into_iter().enumerate() {
                    let mut row = Row::splat(0.0);
                    v.store(&mut row, 0);
                    assert_eq!(row.0[..4].to_vec(), want(field, c, at..at + 4));
                }
            }
        }
        #[cfg(target_arch = "x86_64")]
        if Level::detect() == Level::X8 {
            #[target_feature(enable = "avx2,fma")]
            fn rows(refs: &[&[[f32; 4]; 3]], field: usize) -> [Row; 4] {
                let v = Avx8::transpose(refs, field, 0);
                let mut out = [Row::splat(0.0); 4];
                for (c, o) in out.iter_mut().enumerate() {
                    v[c].store(o, 0);
                }
                out
            }
            // SAFETY: AVX2 and FMA were detected.
            let got = unsafe { rows(&refs, field) };
            for (c, row) in got.iter().enumerate() {
                assert_eq!(row.0.to_vec(), want(field, c, 0..BLOCK));
            }
        }
    }
}

#[test]
fn byte_bits_become_lane_masks_on_every_path() {
    let bytes = [1u8, 2, 3, 0, 7, 4, 1, 0];
    let want: Vec<bool> = bytes.iter().map(|b| b & 1 != 0).collect();
    let mask = |m: [f32; 4]| m.map(|x| x != 0.0);
    let got = Scalar4::select(Scalar4::bits(&bytes, 1), Scalar4::splat(1.0), Scalar4::splat(0.0));
    assert_eq!(mask(got.0).to_vec(), want[..4]);
    let got = Glam4::select(Glam4::bits(&bytes[4..], 1), Glam4::splat(1.0), Glam4::splat(0.0));
    assert_eq!(mask(got.0.to_array()).to_vec(), want[4..]);
    #[cfg(target_arch = "x86_64")]
    {
        let mut row = Row::splat(0.0);
        Sse4::select(Sse4::bits(&bytes, 1), Sse4::splat(1.0), Sse4::splat(0.0)).store(&mut row, 4);
        assert_eq!(mask([row.0[4], row.0[5], row.0[6], row.0[7]]).to_vec(), want[..4]);
    }
}

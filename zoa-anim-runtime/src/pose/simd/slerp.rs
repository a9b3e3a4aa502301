//! Interpolation per lane: three.js's slerp by Eberly's series on half arcs
//! (with arcs prepared beforehand, and parameters shared by every lane), and
//! three.js's lerp.

use super::{Lanes, QuatLanes};

/// Terms of Eberly's series (see [`crate::pose::math`]).
const TERMS: usize = 6;
/// Correction of the last term.
const MU: f32 = 1.1505;
/// Eberly's `u[i] = 1 / ((i+1)(2i+3))`.
const U: [f32; TERMS] =
    [1.0 / (1.0 * 3.0), 1.0 / (2.0 * 5.0), 1.0 / (3.0 * 7.0), 1.0 / (4.0 * 9.0), 1.0 / (5.0 * 11.0), MU / (6.0 * 13.0)];
/// Eberly's `v[i] = (i+1) / (2i+3)`.
const V: [f32; TERMS] = [1.0 / 3.0, 2.0 / 5.0, 3.0 / 7.0, 4.0 / 9.0, 5.0 / 11.0, MU * 6.0 / 13.0];

/// `sin(t·φ) / sin φ` per lane for `xm1 = cos φ − 1` (Eberly's series,
/// accurate for `φ ≤ 45°`).
#[inline(always)]
fn arc_coefficient<L: Lanes>(t: L, xm1: L) -> L {
    let tt = t * t;
    let one = L::splat(1.0);
    let mut acc = one;
    let mut i = TERMS;
    while i > 0 {
        i -= 1;
        acc = (tt.mul_add(L::splat(U[i]), L::splat(-V[i])) * xm1).mul_add(acc, one);
    }
    t * acc
}

/// The series for a `t` shared by every lane: the per-term factors
/// `u[i]·t² − v[i]` are computed once per call site.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ArcFactors {
    t: f32,
    k: [f32; TERMS],
}

impl ArcFactors {
    /// Inlined, so that inside the eight-lane kernels `mul_add` is one FMA
    /// instruction rather than a call to the C library's `fmaf`.
    #[inline(always)]
    fn new(t: f32) -> ArcFactors {
        let tt = t * t;
        ArcFactors { t, k: std::array::from_fn(|i| tt.mul_add(U[i], -V[i])) }
    }
    #[inline(always)]
    fn coefficient<L: Lanes>(&self, xm1: L) -> L {
        let one = L::splat(1.0);
        let mut acc = one;
        let mut i = TERMS;
        while i > 0 {
            i -= 1;
            acc = (L::splat(self.k[i]) * xm1).mul_add(acc, one);
        }
        L::splat(self.t) * acc
    }
}

/// `a · b` per lane.
#[inline(always)]
fn dot4<L: Lanes>(a: QuatLanes<L>, b: QuatLanes<L>) -> L {
    a[0].mul_add(b[0], a[2] * b[2]) + a[1].mul_add(b[1], a[3] * b[3])
}

/// The arc set-up of both slerps: whether `b` flips to `a`'s hemisphere,
/// `2 cos φ` and `cos φ − 1` of the half arc `φ`.
#[inline(always)]
fn half_arc<L: Lanes>(a: QuatLanes<L>, b: QuatLanes<L>) -> (L::Mask, L, L) {
    half_arc_of(dot4(a, b))
}

/// [`half_arc`] given the arc's cosine `a · b`.
#[inline(always)]
fn half_arc_of<L: Lanes>(cos: L) -> (L::Mask, L, L) {
    let flip = cos.lt(L::splat(0.0));
    // 2·cos φ = sqrt(2 + 2 cos θ); the clamp guards keys a hair off unit length.
    let two_cos_half = L::splat(2.0).mul_add(cos.abs().min(L::splat(1.0)), L::splat(2.0)).sqrt();
    let xm1 = L::splat(0.5).mul_add(two_cos_half, L::splat(-1.0));
    (flip, two_cos_half, xm1)
}

/// The weights `(α, β)` of `slerp(a, b, t) = α·a + β·b` from the half-arc
/// coefficients. The arc is halved at `m = (a + b') / (2 cos φ)` (`b'` is `b`
/// in `a`'s hemisphere): the first half is `c0·a + c1·m`, the second
/// `c0·m + c1·b'`, both linear in `a` and `b'`. Returns both halves' weights.
#[inline(always)]
fn weights<L: Lanes>(c0: L, c1: L, two_cos_half: L) -> [(L, L); 2] {
    weights_by_inverse(c0, c1, L::splat(1.0) / two_cos_half)
}

/// [`weights`] given `1 / (2 cos φ)`.
#[inline(always)]
fn weights_by_inverse<L: Lanes>(c0: L, c1: L, inv: L) -> [(L, L); 2] {
    let (c0m, c1m) = (c0 * inv, c1 * inv);
    [(c0 + c1m, c1m), (c0m, c0m + c1)]
}

/// What a slerp from `a` to `b` needs that depends on the two quaternions
/// only, per lane, for keys that are slerped between again and again:
/// `b` in `a`'s hemisphere (4 rows), `1 / (2 cos φ)`, `cos φ − 1` of the
/// half arc `φ`, and 1 where `a == b` (else 0). [`slerp_arc`] with these is
/// [`slerp_uniform`] to the bit.
pub(crate) const ARC_ROWS: usize = 7;

/// The time-independent part of a slerp from `a` to `b` (see [`ARC_ROWS`]).
struct PreparedArc<L: Lanes> {
    /// `b` in `a`'s hemisphere.
    b: QuatLanes<L>,
    /// `1 / (2 cos φ)`.
    inv: L,
    /// `cos φ − 1`.
    xm1: L,
    /// Lanes where `a == b`.
    same: L::Mask,
}

impl<L: Lanes> PreparedArc<L> {
    #[inline(always)]
    fn new(a: QuatLanes<L>, b: QuatLanes<L>) -> PreparedArc<L> {
        let (flip, two_cos_half, xm1) = half_arc(a, b);
        let same = a[0].eq(b[0]) & a[1].eq(b[1]) & a[2].eq(b[2]) & a[3].eq(b[3]);
        let mut flipped = b;
        for c in &mut flipped {
            *c = c.flip_sign(flip);
        }
        PreparedArc { b: flipped, inv: L::splat(1.0) / two_cos_half, xm1, same }
    }

    /// The slerp from `a` along this arc at `t` strictly between 0 and 1:
    /// `α·a + β·b'` (`α·a + β·(−b)` is `α·a + (−β)·b`, so the same bits
    /// as flipping `β`); equal operands keep `a`.
    #[inline(always)]
    fn slerp(&self, a: QuatLanes<L>, t: &UniformT) -> QuatLanes<L> {
        let c0 = t.c0.coefficient(self.xm1);
        let c1 = t.c1.coefficient(self.xm1);
        let [first, second] = weights_by_inverse(c0, c1, self.inv);
        let (alpha, beta) = if t.first_half { first } else { second };
        let alpha = L::select(self.same, L::splat(1.0), alpha);
        let beta = L::select(self.same, L::splat(0.0), beta);
        combine(a, self.b, alpha, beta)
    }
}

/// The [`ARC_ROWS`] rows of the arc from `a` to `b` (see [`slerp_arc`]).
#[inline(always)]
pub(crate) fn arc<L: Lanes>(a: QuatLanes<L>, b: QuatLanes<L>) -> [L; ARC_ROWS] {
    let arc = PreparedArc::new(a, b);
    let [bx, by, bz, bw] = arc.b;
    [bx, by, bz, bw, arc.inv, arc.xm1, L::select(arc.same, L::splat(1.0), L::splat(0.0))]
}

/// [`slerp_uniform`] from `a` to `b` with their [`arc`] made beforehand:
/// the same result bit for bit, without the dot product, square root,
/// division and comparisons of the set-up.
#[inline(always)]
pub(crate) fn slerp_arc<L: Lanes>(a: QuatLanes<L>, b: QuatLanes<L>, arc: [L; ARC_ROWS], t: &UniformT) -> QuatLanes<L> {
    if t.t == 0.0 {
        return a;
    }
    if t.t == 1.0 {
        return b;
    }
    let [bx, by, bz, bw, inv, xm1, same] = arc;
    PreparedArc { b: [bx, by, bz, bw], inv, xm1, same: same.gt(L::splat(0.0)) }.slerp(a, t)
}

/// Three.js `slerpFlat` per lane (see [`crate::pose::math::slerp`]): `t == 0`
/// gives `a` and `t == 1` gives `b`, equal operands give `a`, otherwise the
/// shortest arc keeping `a`'s sign, by Eberly's series on half arcs.
#[inline(always)]
pub(crate) fn slerp<L: Lanes>(a: QuatLanes<L>, b: QuatLanes<L>, t: L) -> QuatLanes<L> {
    let (flip, two_cos_half, xm1) = half_arc(a, b);
    let one = L::splat(1.0);
    let first_half = t.le(L::splat(0.5));
    let two_t = t + t;
    let u = L::select(first_half, two_t, two_t - one);
    let c0 = arc_coefficient(one - u, xm1);
    let c1 = arc_coefficient(u, xm1);
    let [(a1, b1), (a2, b2)] = weights(c0, c1, two_cos_half);
    let alpha = L::select(first_half, a1, a2);
    let beta = L::select(first_half, b1, b2).flip_sign(flip);
    // Endpoints: (1, 0) keeps `a`, (0, 1) takes `b` (up to the sign of a
    // zero component: `1·(−0) + 0·b` is `+0` for `b > 0`; sampling at a key
    // selects the key itself).
    let same = a[0].eq(b[0]) & a[1].eq(b[1]) & a[2].eq(b[2]) & a[3].eq(b[3]);
    let (is0, is1) = (t.eq(L::splat(0.0)), t.eq(one));
    let keep_a = is0 | (same & !is1);
    let zero = L::splat(0.0);
    let alpha = L::select(keep_a, one, L::select(is1, zero, alpha));
    let beta = L::select(keep_a, zero, L::select(is1, one, beta));
    combine(a, b, alpha, beta)
}

/// [`slerp`] strictly inside the arc (`0 < t < 1`, a parameter per lane)
/// from `a` to `b`, given `b` moved into `a`'s hemisphere (`b_near`) and the
/// half arc's `1 / (2 cos φ)` and `cos φ − 1` as [`arc`] makes them: the same
/// bits as [`slerp`] for such `t` where `a != b`. The ends and equal
/// operands are the caller's.
#[inline(always)]
pub(crate) fn slerp_prepared<L: Lanes>(a: QuatLanes<L>, b_near: QuatLanes<L>, inv: L, xm1: L, t: L) -> QuatLanes<L> {
    let one = L::splat(1.0);
    let first_half = t.le(L::splat(0.5));
    let two_t = t + t;
    let u = L::select(first_half, two_t, two_t - one);
    let c0 = arc_coefficient(one - u, xm1);
    let c1 = arc_coefficient(u, xm1);
    let [(a1, b1), (a2, b2)] = weights_by_inverse(c0, c1, inv);
    combine(a, b_near, L::select(first_half, a1, a2), L::select(first_half, b1, b2))
}

/// A slerp parameter shared by every lane, with its series factors: what
/// sampling uses, where every track of a segment shares the key interval.
#[derive(Debug, Clone, Copy)]
pub(crate) struct UniformT {
    t: f32,
    first_half: bool,
    c0: ArcFactors,
    c1: ArcFactors,
}

impl UniformT {
    #[inline(always)]
    pub(crate) fn new(t: f32) -> UniformT {
        let first_half = t <= 0.5;
        let two_t = t + t;
        let u = if first_half { two_t } else { two_t - 1.0 };
        UniformT { t, first_half, c0: ArcFactors::new(1.0 - u), c1: ArcFactors::new(u) }
    }
}

/// [`slerp`] with one `t` for every lane.
#[inline(always)]
pub(crate) fn slerp_uniform<L: Lanes>(a: QuatLanes<L>, b: QuatLanes<L>, t: &UniformT) -> QuatLanes<L> {
    if t.t == 0.0 {
        return a;
    }
    if t.t == 1.0 {
        return b;
    }
    PreparedArc::new(a, b).slerp(a, t)
}

/// [`slerp_uniform`] from the identity `(0, 0, 0, 1)` to `b`: the same
/// operations less those the identity makes trivial (`1 · b` is the
/// arc's cosine `b.w`; `0·α + β·b` is `β·b`), so the same result up to the
/// sign of a zero component (the products are rounded before the sums, as
/// the generic form rounds them). What an additive input's first delta is (an
/// additive layer over the base pose starts from no delta).
#[inline(always)]
pub(crate) fn slerp_uniform_from_identity<L: Lanes>(b: QuatLanes<L>, t: &UniformT) -> QuatLanes<L> {
    let (zero, one) = (L::splat(0.0), L::splat(1.0));
    if t.t == 0.0 {
        return [zero, zero, zero, one];
    }
    if t.t == 1.0 {
        return b;
    }
    let (flip, two_cos_half, xm1) = half_arc_of(b[3]);
    let same = b[0].eq(zero) & b[1].eq(zero) & b[2].eq(zero) & b[3].eq(one);
    let c0 = t.c0.coefficient(xm1);
    let c1 = t.c1.coefficient(xm1);
    let [first, second] = weights_by_inverse(c0, c1, one / two_cos_half);
    let (alpha, beta) = if t.first_half { first } else { second };
    let alpha = L::select(same, one, alpha);
    let beta = L::select(same, zero, beta).flip_sign(flip);
    [b[0] * beta, b[1] * beta, b[2] * beta, b[3] * beta + alpha]
}

/// `α·a + β·b` per lane and component.
#[inline(always)]
fn combine<L: Lanes>(a: QuatLanes<L>, b: QuatLanes<L>, alpha: L, beta: L) -> QuatLanes<L> {
    let mut out = a;
    for (c, o) in out.iter_mut().enumerate() {
        *o = a[c].mul_add(alpha, b[c] * beta);
    }
    out
}

/// `a·(1−t) + b·t` per lane and component (three.js's form).
#[inline(always)]
pub(crate) fn lerp<L: Lanes, const N: usize>(a: [L; N], b: [L; N], t: L) -> [L; N] {
    let s = L::splat(1.0) - t;
    let mut out = a;
    for (c, o) in out.iter_mut().enumerate() {
        *o = a[c].mul_add(s, b[c] * t);
    }
    out
}

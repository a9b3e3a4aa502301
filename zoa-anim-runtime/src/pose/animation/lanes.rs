//! Lane batches: tracks of one pose block that share no key times, stored
//! as one segment record per key interval, and their sampler, in which each
//! lane finds its own segment.

use super::Animation;
use super::sampling::live_lanes;
use crate::pose::Pose;
use crate::pose::simd::{
    ARC_ROWS, BLOCK, Lanes, Row, arc, dispatch, lerp, load, rows_mut, select, slerp_prepared, store, store_where,
};

/// One segment of a lane-batch track: the times `t` it covers, `lo <= t <
/// hi`, and the two values it interpolates between, `from` at `lo` and `to`
/// at `hi`, at parameter `(t − lo) / (hi − lo)`. A track of `K` keys at times
/// `T` has `K + 1` segments: `(−∞, T₀)` holding key 0, then `[Tᵢ₋₁, Tᵢ)` for
/// each `i`, then `[T_K−1, ∞)` holding the last key. A segment that holds one
/// key's value (the two ends, every step segment) has `from == to` and reads
/// as that value bit for bit at any `t` (the sampler keeps `from` wherever
/// the two are equal, so the ends' parameters, NaN and 0, are never used).
/// Keys sharing a time make an empty segment, which no `t` falls in: the
/// later key wins.
///
/// `Q` quads: a 3-vector segment is two (32 bytes),
/// `[from.x, from.y, from.z, lo]` and `[to.x, to.y, to.z, hi]`; a rotation
/// segment is three (48 bytes), `from`, `to` moved into `from`'s hemisphere
/// and `[lo, hi, ±1 / (2 cos φ), cos φ − 1]`, the slerp's half-arc set-up
/// made at bind time ([`crate::pose::simd::arc_of`]; the sign bit says whether
/// `to` was negated). A lane finds everything it reads in one or two cache
/// lines, and the sampler transposes two quads per 3-vector lane and three
/// per rotation lane.
#[derive(Debug, Clone, Copy, PartialEq)]
#[repr(C, align(16))]
pub(super) struct LaneSegment<const Q: usize>(pub(super) [[f32; 4]; Q]);

/// A translation or scale [`LaneSegment`].
pub(super) type VecSegment = LaneSegment<2>;
/// A rotation [`LaneSegment`].
pub(super) type QuatSegment = LaneSegment<3>;

impl<const Q: usize> LaneSegment<Q> {
    /// `(quad, component)` of `lo` and of `hi`.
    const BOUNDS: [(usize, usize); 2] = match Q {
        2 | 4 => [(0, 3), (1, 3)],
        3 => [(2, 0), (2, 1)],
        _ => [(Q - 1, 0), (Q - 1, 1)],
    };
    /// What a lane without a live track reads (and never writes back):
    /// zeros over every time.
    const IDLE: LaneSegment<Q> = {
        let mut quads = [[0.0; 4]; Q];
        let [(lq, lc), (hq, hc)] = Self::BOUNDS;
        quads[lq][lc] = f32::NEG_INFINITY;
        quads[hq][hc] = f32::INFINITY;
        LaneSegment(quads)
    };

    #[inline(always)]
    fn covers(&self, t: f32) -> bool {
        self.lo() <= t && t < self.hi()
    }
    #[inline(always)]
    fn lo(&self) -> f32 {
        let (q, c) = Self::BOUNDS[0];
        self.0[q][c]
    }
    #[inline(always)]
    fn hi(&self) -> f32 {
        let (q, c) = Self::BOUNDS[1];
        self.0[q][c]
    }
}

impl VecSegment {
    pub(super) fn new(from: [f32; 4], to: [f32; 4], lo: f32, hi: f32) -> VecSegment {
        LaneSegment([[from[0], from[1], from[2], lo], [to[0], to[1], to[2], hi]])
    }
}

impl QuatSegment {
    /// A segment without its arc: [`segment_arcs`] makes it.
    pub(super) fn new(from: [f32; 4], to: [f32; 4], lo: f32, hi: f32) -> QuatSegment {
        LaneSegment([from, to, [lo, hi, 0.0, 0.0]])
    }
}

/// Appends `segments` to `all`: where they start in it, and how many.
pub(super) fn append<S>(all: &mut Vec<S>, segments: Vec<S>) -> (usize, usize) {
    let (start, count) = (all.len(), segments.len());
    all.extend(segments);
    (start, count)
}

dispatch!(pub(super) fn segment_arcs / segment_arcs_at => segment_arcs_lanes(segments: &mut [QuatSegment]));

/// Makes the arc of each rotation segment made by [`QuatSegment::new`]:
/// `to` moved into `from`'s hemisphere and `±1 / (2 cos φ)`, `cos φ − 1`
/// ([`crate::pose::simd::arc`]), with the kernel path in effect (so that
/// sampling's slerp gives the same bits as without them).
#[inline(always)]
fn segment_arcs_lanes<V: Lanes>(segments: &mut [QuatSegment]) {
    for chunk in segments.chunks_mut(V::LANES) {
        // Lanes past the chunk's end slerp the identity onto itself.
        let mut rows = [Row::splat(0.0); 8];
        (rows[3], rows[7]) = (Row::splat(1.0), Row::splat(1.0));
        for (l, s) in chunk.iter().enumerate() {
            for c in 0..4 {
                rows[c].0[l] = s.0[0][c];
                rows[4 + c].0[l] = s.0[1][c];
            }
        }
        let mut out = [Row::splat(0.0); ARC_ROWS];
        store(&mut out, 0, arc(load::<V, 4>(&rows[..4], 0), load::<V, 4>(&rows[4..], 0)));
        for (l, s) in chunk.iter_mut().enumerate() {
            let near: [f32; 4] = std::array::from_fn(|c| out[c].0[l]);
            // Negation flips the sign bit of every component, zeros too.
            let flipped = (0..4).any(|c| near[c].to_bits() != s.0[1][c].to_bits());
            let inv = out[4].0[l];
            s.0[1] = near;
            s.0[2][2] = if flipped { -inv } else { inv };
            s.0[2][3] = out[5].0[l];
        }
    }
}

/// Where one lane of a [`LaneBatch`] finds its segments.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub(super) struct LaneTrack {
    /// First segment in the property's segments ([`Animation::vec_segments`]
    /// or [`Animation::quat_segments`]; a cubic lane batch's in
    /// [`Animation::vec_spline_segments`] or [`Animation::quat_spline_segments`]).
    pub(super) start: u32,
    /// Number of segments (keys + 1).
    pub(super) segments: u32,
}

/// The segments of a linear or step track with key `times` and values
/// `value(k)` (see [`LaneSegment`]), made by `segment(from, to, lo, hi)`.
pub(super) fn lane_segments<S>(
    times: &[f32],
    value: impl Fn(usize) -> [f32; 4],
    step: bool,
    segment: impl Fn([f32; 4], [f32; 4], f32, f32) -> S,
) -> Vec<S> {
    let k = times.len();
    let hold = |i: usize, lo: f32, hi: f32| segment(value(i), value(i), lo, hi);
    let mut out = Vec::with_capacity(k + 1);
    out.push(hold(0, f32::NEG_INFINITY, times[0]));
    for i in 1..k {
        let (lo, hi) = (times[i - 1], times[i]);
        out.push(if step { hold(i - 1, lo, hi) } else { segment(value(i - 1), value(i), lo, hi) });
    }
    out.push(hold(k - 1, times[k - 1], f32::INFINITY));
    out
}

/// Linear or step tracks of one property whose joints lie in one pose block
/// but which share no key times: each lane finds its own key segment, then
/// the lanes' key values are gathered into the pose's SoA layout and
/// interpolated together (lerp, or three.js slerp with a parameter per lane).
/// Cubic splines make lane batches of their own (their segments hold
/// tangents as well), interpolated by the Hermite basis of each lane's
/// parameter.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct LaneBatch {
    /// Pose block of the tracks' joints.
    pub(super) block: u32,
    /// 1 in the lanes whose joint has a track in this batch.
    pub(super) lanes: [u8; BLOCK],
    /// Its first track's key cursor among the lane batches' cursors (the
    /// others follow in lane order).
    pub(super) cursor: u32,
    /// Per lane (where `lanes` is 1), its track.
    pub(super) tracks: [LaneTrack; BLOCK],
    /// Per lane, its track's first segment and the index of its last
    /// (`tracks` laid out by field, so that eight cursors step as vectors;
    /// with `tracks` dropped and these read everywhere instead, the
    /// own-times bench rig measured 2–5% slower at 1000 characters).
    pub(super) starts: [u32; BLOCK],
    pub(super) lasts: [u32; BLOCK],
}

dispatch!(pub(super) fn sample_lane_batches / sample_lane_batches_at => sample_lane_batches_lanes(
    a: &Animation, t: f32, cursors: LaneCursors<'_>, out: &mut Pose, mask: Option<&[f32]>,
));

/// How many of a track's first segments [`LaneKeys::repair`] scans when the
/// time went back (a looping clip wrapped) before it searches them all.
const WRAP_SCAN: usize = 4;

/// The lane-batch tracks' cursors of a [`SamplingContext`]: per track, in
/// the order of the batches and their lanes, the index of its segment at the
/// last sample and where that segment ends.
pub(super) struct LaneCursors<'c> {
    pub(super) cursors: &'c mut [u32],
    pub(super) ends: &'c mut [f32],
}

/// Per lane of a [`LaneBatch`], the segment `t` falls in (see
/// [`LaneSegment`]), read in place and transposed into the pose's SoA lanes
/// ([`Lanes::transpose`]).
#[derive(Clone, Copy)]
struct LaneKeys<'a, const Q: usize> {
    segments: [&'a [[f32; 4]; Q]; BLOCK],
}

impl<'a, const Q: usize> LaneKeys<'a, Q> {
    /// Every lane at the idle segment.
    fn idle() -> LaneKeys<'a, Q> {
        LaneKeys { segments: [&LaneSegment::<Q>::IDLE.0; BLOCK] }
    }

    /// Points the live lanes of `batch` at their segments at time `t`
    /// assuming forward playback: a lane whose time reached the end of its
    /// last segment takes the next one, the others keep theirs. This reads
    /// no segment, only the cursors and ends, so the segments' loads do not
    /// wait on a comparison with their own bounds; [`LaneKeys::lanes`] checks
    /// that each segment covers `t` and [`LaneKeys::repair`] fixes the lanes
    /// whose do not (a jump back or past more than one key). The other lanes
    /// keep their segments, which nothing writes back.
    #[inline(always)]
    fn step(
        &mut self,
        batch: &LaneBatch,
        live: &[u8; BLOCK],
        all: &'a [LaneSegment<Q>],
        t: f32,
        cursors: &mut LaneCursors<'_>,
    ) {
        if *live == [1; BLOCK] {
            // Every lane has a track and is live: its cursors are the batch's
            // next BLOCK, with no lane to skip. (The step is written out in
            // both loops: a shared helper measured 2–4% slower.)
            let at = batch.cursor as usize;
            let cs: &mut [u32; BLOCK] = (&mut cursors.cursors[at..at + BLOCK]).try_into().expect("a block of cursors");
            let es: &[f32; BLOCK] = (&cursors.ends[at..at + BLOCK]).try_into().expect("a block of ends");
            // The cursors first, all eight at once (this loop vectorizes),
            // then the segments they point at.
            let steps: [u32; BLOCK] = std::array::from_fn(|l| u32::from(t >= es[l]));
            let mut at_segment = [0u32; BLOCK];
            for l in 0..BLOCK {
                let i = cs[l].wrapping_add(steps[l]).min(batch.lasts[l]);
                cs[l] = i;
                at_segment[l] = batch.starts[l] + i;
            }
            // Their ends are stored from the segments' transposed bounds
            // ([`LaneKeys::covering`]).
            for l in 0..BLOCK {
                self.segments[l] = &all[at_segment[l] as usize].0;
            }
            return;
        }
        let mut k = batch.cursor as usize;
        for (l, track) in batch.tracks.iter().enumerate() {
            if batch.lanes[l] == 0 {
                continue;
            }
            let at = k;
            k += 1;
            if live[l] == 0 {
                continue;
            }
            // Cursors are hints (a context may have served another
            // animation): wrap rather than overflow, clamp into the track.
            let next = cursors.cursors[at].wrapping_add(u32::from(t >= cursors.ends[at]));
            let i = next.min(track.segments - 1);
            let segment = &all[track.start as usize + i as usize];
            cursors.cursors[at] = i;
            cursors.ends[at] = segment.hi();
            self.segments[l] = &segment.0;
        }
    }

    /// Points the live lanes `at..at + lanes` of `batch` whose segment does
    /// not cover `t` at the one that does: the next segment, else a search
    /// of them all (the first begins at −∞, so some segment begins at or
    /// before `t`, and the last such one covers it).
    #[cold]
    #[inline(never)]
    fn repair(
        &mut self,
        batch: &LaneBatch,
        live: &[u8; BLOCK],
        lanes: std::ops::Range<usize>,
        all: &'a [LaneSegment<Q>],
        t: f32,
        cursors: &mut LaneCursors<'_>,
    ) {
        for l in lanes {
            if batch.lanes[l] == 0 || live[l] == 0 {
                continue;
            }
            // The lane's cursor follows those of the batch's lanes before it.
            let at = batch.cursor as usize + batch.lanes[..l].iter().filter(|&&on| on != 0).count();
            let track = &batch.tracks[l];
            let segments = &all[track.start as usize..][..track.segments as usize];
            let mut i = (cursors.cursors[at] as usize).min(segments.len() - 1);
            if !segments[i].covers(t) {
                i = match segments.get(i + 1) {
                    Some(next) if next.covers(t) => i + 1,
                    // Back before the cursor: a looping clip wrapped, and
                    // `t` is almost always in one of the first segments,
                    // which lie together in memory (a binary search's probes
                    // each wait on a load from another cache line).
                    _ if t < segments[i].lo() => match segments[..WRAP_SCAN.min(i)].iter().position(|s| t < s.hi()) {
                        Some(k) => k,
                        None => segments.partition_point(|s| s.lo() <= t) - 1,
                    },
                    _ => segments.partition_point(|s| s.lo() <= t) - 1,
                };
            }
            cursors.cursors[at] = i as u32;
            cursors.ends[at] = segments[i].hi();
            self.segments[l] = &segments[i].0;
        }
    }

    /// The `Q` quads of lanes `at..`, transposed into component rows.
    #[inline(always)]
    fn quads<V: Lanes>(&self, at: usize) -> [[V; 4]; Q] {
        // A loop, not `array::from_fn`: a closure does not inherit the
        // kernel's target features.
        let mut out = [[V::splat(0.0); 4]; Q];
        for (f, o) in out.iter_mut().enumerate() {
            *o = V::transpose(&self.segments, f, at);
        }
        out
    }

    /// [`LaneKeys::quads`] where every live lane (`live`) covers `t`, after
    /// repairing the lanes that do not, with each lane's interpolation
    /// parameter `(t − lo) / (hi − lo)`.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn covering<V: Lanes>(
        &mut self,
        batch: &LaneBatch,
        live: &[u8; BLOCK],
        m: V::Mask,
        at: usize,
        all: &'a [LaneSegment<Q>],
        t: f32,
        cursors: &mut LaneCursors<'_>,
    ) -> ([[V; 4]; Q], V) {
        let [(lq, lc), (hq, hc)] = LaneSegment::<Q>::BOUNDS;
        let tv = V::splat(t);
        let mut quads = self.quads::<V>(at);
        if !V::all((quads[lq][lc].le(tv) & tv.lt(quads[hq][hc])) | !m) {
            self.repair(batch, live, at..at + V::LANES, all, t, cursors);
            quads = self.quads::<V>(at);
        }
        let (lo, hi) = (quads[lq][lc], quads[hq][hc]);
        if *live == [1; BLOCK] {
            // Where `step` left them (see there).
            let at = batch.cursor as usize + at;
            hi.store_flat(&mut cursors.ends[at..at + V::LANES]);
        }
        (quads, (tv - lo) / (hi - lo))
    }
}

/// Samples every lane batch of `a` (see [`LaneBatch`]): per batch, each
/// lane's segment and key values, then the block's lanes interpolated
/// together with a parameter per lane and written where the batch has a live
/// track. A lane at a key (parameter 0) is written that key's value bit for
/// bit. `cursors` holds the tracks' cursors: translations, rotations, then
/// scales, each batch's in lane order.
#[inline(always)]
fn sample_lane_batches_lanes<V: Lanes>(
    a: &Animation,
    t: f32,
    mut cursors: LaneCursors<'_>,
    out: &mut Pose,
    mask: Option<&[f32]>,
) {
    let (out_t, out_r, out_s) = out.rows_mut();
    let (zero, one) = (V::splat(0.0), V::splat(1.0));
    for (p, out) in [(0, &mut *out_t), (2, &mut *out_s)] {
        sample_lanes(&a.lane_batched[p], &a.vec_segments, out, t, &mut cursors, mask, |[q0, q1]: [[V; 4]; 2], u| {
            let (from, to) = ([q0[0], q0[1], q0[2]], [q1[0], q1[1], q1[2]]);
            // At a key, and in a segment holding one value, that value
            // itself (`a·1 + b·0` is not `a` for `a = −0`).
            let held = from[0].eq(to[0]) & from[1].eq(to[1]) & from[2].eq(to[2]);
            select(u.eq(zero) | held, from, lerp(from, to, u))
        });
    }
    sample_lanes(
        &a.lane_batched[1],
        &a.quat_segments,
        out_r,
        t,
        &mut cursors,
        mask,
        |[from, near, arc]: [[V; 4]; 3], u| {
            let [_, _, signed_inv, xm1] = arc;
            // At a key, and in a segment holding one value, that value
            // itself (the slerp's `1·a + 0·b` is not `a` for `a = −0`).
            let held = from[0].eq(near[0]) & from[1].eq(near[1]) & from[2].eq(near[2]) & from[3].eq(near[3]);
            let new = select(u.eq(zero) | held, from, slerp_prepared(from, near, signed_inv.abs(), xm1, u));
            let ends = u.eq(one);
            if !V::any(ends) {
                return new;
            }
            // `t` a rounding error short of the segment's end: its key as
            // stored, the sign `near` may have flipped undone.
            let flipped = signed_inv.lt(zero);
            let to = [
                near[0].flip_sign(flipped),
                near[1].flip_sign(flipped),
                near[2].flip_sign(flipped),
                near[3].flip_sign(flipped),
            ];
            select(ends, to, new)
        },
    );
}

/// Samples one property's lane batches (`batches`, their segments in
/// `segments`) into its pose rows `rows` (`N` per block): per batch with a
/// live lane, each lane's segment at `t`, then per vector of lanes
/// `interpolate(segment quads, parameter)` stored where the batch has a live
/// track. The one loop of every lane-batch kernel.
#[inline(always)]
pub(super) fn sample_lanes<V: Lanes, const Q: usize, const N: usize>(
    batches: &[LaneBatch],
    segments: &[LaneSegment<Q>],
    rows: &mut [Row],
    t: f32,
    cursors: &mut LaneCursors<'_>,
    mask: Option<&[f32]>,
    interpolate: impl Fn([[V; 4]; Q], V) -> [V; N],
) {
    let mut keys = LaneKeys::<Q>::idle();
    for batch in batches {
        let live = live_lanes(batch.block, batch.lanes, mask);
        if live == [0; BLOCK] {
            continue;
        }
        keys.step(batch, &live, segments, t, cursors);
        let out = rows_mut(rows, N, batch.block as usize);
        for at in (0..BLOCK).step_by(V::LANES) {
            let m = V::bits(&live[at..], 1);
            if V::any(m) {
                let (quads, u) = keys.covering::<V>(batch, &live, m, at, segments, t, cursors);
                store_where(out, at, m, interpolate(quads, u), load::<V, N>(out, at));
            }
        }
    }
}

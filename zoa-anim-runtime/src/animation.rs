//! Runtime animations: a core [`Clip`] bound to one skeleton and repacked for
//! sampling, and the sampling job with its per-instance key cursors.
//!
//! # Terminology
//! - *track*: the keys of one property (translation, rotation or scale) of one joint.
//! - *batch*: linear or step tracks of one property whose joints lie in one
//!   pose block of eight and whose keys share their times, packed key by key
//!   in the pose's SoA layout and sampled together (one key search, one
//!   SIMD lerp or slerp for the block).
//! - *lane batch*: linear or step tracks of one property whose joints lie in
//!   one pose block but whose key times differ (exporters that drop
//!   redundant keys per channel write one time array per track): each lane
//!   finds its own segment, then the block is interpolated together with a
//!   parameter per lane.
//! - *cursor*: per batch, per lane-batch track, or per track sampled alone,
//!   the index of the key segment the last sample fell in (for a lane-batch
//!   track, also where that segment ends).
//!   Forward playback moves it by at most one or two keys per frame, so finding
//!   the segment is amortized O(1); a jump (seek, loop wrap, reverse playback)
//!   falls back to a binary search from the cursor.
//!
//! ```text
//!   Clip (core, per glTF node) --bind--> Animation (per joint, SoA keys)
//!                                             |
//!   SamplingContext (cursors) --> SamplingJob(time) --> Pose (animated slots only)
//! ```

use std::sync::{Arc, Mutex};

use glam::{Quat, Vec3A};
use zoa_anim_core::{Clip, Interpolation, Skeleton, Track, TrackProperty};

use crate::error::RuntimeError;
use crate::math::{hermite_basis, lerp3, slerp};
use crate::pose::Pose;
use crate::simd::{
    ARC_ROWS, BLOCK, Lanes, Row, UniformT, arc, dispatch, lerp, load, rows_mut, select, slerp_arc, slerp_prepared,
    store, store_where,
};

/// Bit in [`Animation::animated`]: the joint's translation is animated.
pub const ANIMATES_TRANSLATION: u8 = 1;
/// Bit in [`Animation::animated`]: the joint's rotation is animated.
pub const ANIMATES_ROTATION: u8 = 2;
/// Bit in [`Animation::animated`]: the joint's scale is animated.
pub const ANIMATES_SCALE: u8 = 4;

/// Index of a clip in a [`ClipTable`](crate::graph::ClipTable); the handle the
/// pose stage maps to its bound [`Animation`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ClipId(pub u32);

impl ClipId {
    /// As a `usize` for indexing.
    #[must_use]
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

/// How a clip's tracks find their joints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BindBy {
    /// By glTF node index: clip and skeleton come from the same file.
    #[default]
    Node,
    /// By joint name: retargeting a clip authored on another rig with the same
    /// bone names (tracks without a name, or with a name the skeleton lacks,
    /// are dropped).
    Name,
}

#[derive(Debug, Clone, Copy, PartialEq)]
struct TrackHeader {
    joint: u16,
    interpolation: Interpolation,
    /// First key time in [`Animation::times`].
    time_start: u32,
    /// Number of keys (at least 1).
    keys: u32,
    /// First value in the property's value array (cubic: in-tangent of key 0).
    value_start: u32,
}

/// Tracks of one property and one interpolation whose joints lie in one
/// pose block and whose keys share one time array: sampled a whole block at
/// a time (the key segment found once, the lanes interpolated together).
#[derive(Debug, Clone, PartialEq)]
struct Batch {
    /// Pose block of the tracks' joints.
    block: u32,
    /// First key time in [`Animation::times`].
    time_start: u32,
    /// Number of keys (at least 1).
    keys: u32,
    /// First row of key 0 in the property's packed rows: key `k`, component
    /// `c` is row `row_start + k·C + c` (`C` = 3 or 4), one lane per joint.
    /// A cubic spline's key is three such keys in a row: its in-tangent,
    /// its value, its out-tangent (row `row_start + (3k + part)·C + c`).
    row_start: u32,
    /// Step interpolation (else linear, or cubic in [`Animation::splined`]).
    step: bool,
    /// 1 in the lanes to write: those whose joint has a track in this
    /// batch, and (linear and step batches) in the skeleton's last block the
    /// lanes past its last joint. Those hold the identity here (as lanes
    /// without a track do) and in every pose, so writing them changes
    /// nothing; it lets a batch that
    /// covers the rest of the block store its rows whole instead of reading,
    /// blending and storing them, and the first sample of a frame into a
    /// character's pose (the blend's first input, sampled in place) would
    /// otherwise wait for those rows to come from memory.
    lanes: [u8; BLOCK],
    /// Every lane is 1 in `lanes`: unmasked, the batch stores its rows
    /// whole, with no per-lane mask to make. (Derivable from `lanes`, but
    /// comparing the eight bytes per batch while sampling measured 1.5–3.5%
    /// slower on small rigs than reading this flag.)
    whole: bool,
    /// Rotations: first row of the arc from key 0 to key 1 in
    /// [`Batches::arcs`]; the arc from key `k` is `ARC_ROWS` rows further
    /// per key (linear batches only).
    arc_start: u32,
}

/// Packed keys per key time of a track or batch (see [`Batch::row_start`]).
fn parts(interpolation: Interpolation) -> usize {
    if interpolation == Interpolation::CubicSpline { 3 } else { 1 }
}

/// The batches of one property and their packed key values.
#[derive(Debug, Clone, PartialEq, Default)]
struct Batches {
    batches: Vec<Batch>,
    rows: Vec<Row>,
    /// Rotations: per linear batch and pair of consecutive keys, the
    /// [`crate::simd::arc`] rows of the slerp between them, made once at
    /// bind so that sampling does only the part that depends on time.
    arcs: Vec<Row>,
}

impl Batches {
    /// Packs `group` as one batch: its tracks' values key by key, one lane
    /// per joint (`identity` in the lanes no track fills, with zero
    /// tangents), a constant track's value at every key. `value(h, i)` is
    /// the track's `i`-th stored value (a cubic spline stores three per key).
    ///
    /// A cubic batch writes only its tracks' lanes: the spline of a lane
    /// holding the identity with zero tangents is `s0·1 + s2·1`, which
    /// rounds off 1 between keys, so it must not write the padding lanes
    /// that linear and step batches write to store their rows whole.
    fn push(
        &mut self,
        group: &Group<'_>,
        joints: usize,
        identity: &[f32],
        value: &impl Fn(&TrackHeader, usize) -> [f32; 4],
    ) {
        let components = identity.len();
        let keys = group.keys as usize;
        let parts = parts(group.interpolation);
        let cubic = parts == 3;
        let row_start = self.rows.len();
        let mut lanes: [u8; BLOCK] = std::array::from_fn(|l| u8::from(!cubic && group.block * BLOCK + l >= joints));
        for _ in 0..keys {
            for part in 0..parts {
                let tangent = cubic && part != 1;
                self.rows.extend(identity.iter().map(|&v| Row::splat(if tangent { 0.0 } else { v })));
            }
        }
        for &(h, constant) in &group.tracks {
            let lane = h.joint as usize % BLOCK;
            lanes[lane] = 1;
            for k in 0..keys {
                for part in 0..parts {
                    let v = value(h, if constant { 0 } else { k * parts + part });
                    for (c, v) in v[..components].iter().enumerate() {
                        self.rows[row_start + (k * parts + part) * components + c].0[lane] = *v;
                    }
                }
            }
        }
        self.batches.push(Batch {
            block: group.block as u32,
            time_start: group.time_start,
            keys: group.keys,
            row_start: row_start as u32,
            step: group.interpolation == Interpolation::Step,
            lanes,
            whole: lanes == [1; BLOCK],
            arc_start: 0,
        });
    }

    /// Makes the slerp arcs of every linear batch (rotations only).
    fn make_arcs(&mut self) {
        for batch in &mut self.batches {
            batch.arc_start = self.arcs.len() as u32;
            if batch.step || batch.keys < 2 {
                continue;
            }
            let keys = &self.rows[batch.row_start as usize..][..batch.keys as usize * 4];
            let start = self.arcs.len();
            self.arcs.resize(start + (batch.keys as usize - 1) * ARC_ROWS, Row::splat(0.0));
            arc_rows(keys, &mut self.arcs[start..]);
        }
    }
}

dispatch!(fn arc_rows / arc_rows_at => arc_rows_lanes(keys: &[Row], out: &mut [Row]));

/// Per pair of consecutive quaternion keys in `keys` (4 rows a key), its
/// [`crate::simd::arc`] rows into `out`, with the kernel path in effect (so
/// that sampling's slerp gives the same bits as without them).
#[inline(always)]
fn arc_rows_lanes<V: Lanes>(keys: &[Row], out: &mut [Row]) {
    for (k, out) in out.chunks_exact_mut(ARC_ROWS).enumerate() {
        for at in (0..BLOCK).step_by(V::LANES) {
            let a = load::<V, 4>(&keys[4 * k..], at);
            let b = load::<V, 4>(&keys[4 * k + 4..], at);
            store(out, at, arc(a, b));
        }
    }
}

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
/// made at bind time ([`crate::simd::arc_of`]; the sign bit says whether
/// `to` was negated). A lane finds everything it reads in one or two cache
/// lines, and the sampler transposes two quads per 3-vector lane and three
/// per rotation lane.
#[derive(Debug, Clone, Copy, PartialEq)]
#[repr(C, align(16))]
struct LaneSegment<const Q: usize>([[f32; 4]; Q]);

/// A translation or scale [`LaneSegment`].
type VecSegment = LaneSegment<2>;
/// A rotation [`LaneSegment`].
type QuatSegment = LaneSegment<3>;
/// A cubic-spline translation or scale segment: four quads (64 bytes),
/// `[p0.xyz, lo]`, `[p1.xyz, hi]`, `[m0.xyz, hold]`, `[m1.xyz, 0]`, where
/// `m0` is the first key's out-tangent and `m1` the second's in-tangent,
/// each already times the key interval `hi − lo` (the same product the
/// definition makes), and `hold` is 1 in a segment that holds `p0` (the two
/// ends: a spline through one value with zero tangents would round off it).
type VecSplineSegment = LaneSegment<4>;
/// A cubic-spline rotation segment: five quads (80 bytes), `p0`, `p1`,
/// `m0`, `m1` as in [`VecSplineSegment`], then `[lo, hi, hold, 0]`.
type QuatSplineSegment = LaneSegment<5>;

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
    fn new(from: [f32; 4], to: [f32; 4], lo: f32, hi: f32) -> VecSegment {
        LaneSegment([[from[0], from[1], from[2], lo], [to[0], to[1], to[2], hi]])
    }
}

impl QuatSegment {
    /// A segment without its arc: [`segment_arcs`] makes it.
    fn new(from: [f32; 4], to: [f32; 4], lo: f32, hi: f32) -> QuatSegment {
        LaneSegment([from, to, [lo, hi, 0.0, 0.0]])
    }
}

impl VecSplineSegment {
    fn spline(p: [[f32; 4]; 4], lo: f32, hi: f32, hold: bool) -> VecSplineSegment {
        let [p0, p1, m0, m1] = p;
        LaneSegment([
            [p0[0], p0[1], p0[2], lo],
            [p1[0], p1[1], p1[2], hi],
            [m0[0], m0[1], m0[2], f32::from(u8::from(hold))],
            [m1[0], m1[1], m1[2], 0.0],
        ])
    }
}

impl QuatSplineSegment {
    fn spline(p: [[f32; 4]; 4], lo: f32, hi: f32, hold: bool) -> QuatSplineSegment {
        let [p0, p1, m0, m1] = p;
        LaneSegment([p0, p1, m0, m1, [lo, hi, f32::from(u8::from(hold)), 0.0]])
    }
}

/// Appends `segments` to `all`: where they start in it, and how many.
fn append<S>(all: &mut Vec<S>, segments: Vec<S>) -> (usize, usize) {
    let (start, count) = (all.len(), segments.len());
    all.extend(segments);
    (start, count)
}

/// The segments of a cubic-spline track with key `times`, values
/// `value(k)` and tangents `tangent(k, part)` (part 0: in, 2: out), made by
/// `segment([p0, p1, m0, m1], lo, hi, hold)` (see [`VecSplineSegment`]),
/// bounded as [`LaneSegment`]s are.
fn spline_segments<S>(
    times: &[f32],
    value: impl Fn(usize) -> [f32; 4],
    tangent: impl Fn(usize, usize) -> [f32; 4],
    segment: impl Fn([[f32; 4]; 4], f32, f32, bool) -> S,
) -> Vec<S> {
    let k = times.len();
    let hold = |i: usize, lo: f32, hi: f32| segment([value(i), value(i), [0.0; 4], [0.0; 4]], lo, hi, true);
    let mut out = Vec::with_capacity(k + 1);
    out.push(hold(0, f32::NEG_INFINITY, times[0]));
    for i in 1..k {
        let (lo, hi) = (times[i - 1], times[i]);
        let dt = hi - lo;
        let (m0, m1) = (tangent(i - 1, 2).map(|v| v * dt), tangent(i, 0).map(|v| v * dt));
        out.push(segment([value(i - 1), value(i), m0, m1], lo, hi, false));
    }
    out.push(hold(k - 1, times[k - 1], f32::INFINITY));
    out
}

dispatch!(fn segment_arcs / segment_arcs_at => segment_arcs_lanes(segments: &mut [QuatSegment]));

/// Makes the arc of each rotation segment made by [`QuatSegment::new`]:
/// `to` moved into `from`'s hemisphere and `±1 / (2 cos φ)`, `cos φ − 1`
/// ([`crate::simd::arc`]), with the kernel path in effect (so that
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
struct LaneTrack {
    /// First segment in the property's segments ([`Animation::vec_segments`]
    /// or [`Animation::quat_segments`]; a cubic lane batch's in
    /// [`Animation::vec_spline_segments`] or [`Animation::quat_spline_segments`]).
    start: u32,
    /// Number of segments (keys + 1).
    segments: u32,
}

/// The segments of a linear or step track with key `times` and values
/// `value(k)` (see [`LaneSegment`]), made by `segment(from, to, lo, hi)`.
fn lane_segments<S>(
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
struct LaneBatch {
    /// Pose block of the tracks' joints.
    block: u32,
    /// 1 in the lanes whose joint has a track in this batch.
    lanes: [u8; BLOCK],
    /// Its first track's key cursor among the lane batches' cursors (the
    /// others follow in lane order).
    cursor: u32,
    /// Per lane (where `lanes` is 1), its track.
    tracks: [LaneTrack; BLOCK],
    /// Per lane, its track's first segment and the index of its last
    /// (`tracks` laid out by field, so that eight cursors step as vectors;
    /// with `tracks` dropped and these read everywhere instead, the
    /// own-times bench rig measured 2–5% slower at 1000 characters).
    starts: [u32; BLOCK],
    lasts: [u32; BLOCK],
}

/// Tracks of one property to sample as one [`Batch`]: one pose block, one
/// key-time array, one interpolation.
struct Group<'h> {
    block: usize,
    time_start: u32,
    keys: u32,
    interpolation: Interpolation,
    /// The tracks, each with whether it is constant (its first value is
    /// used at every key).
    tracks: Vec<(&'h TrackHeader, bool)>,
}

impl<'h> Group<'h> {
    fn of(h: &'h TrackHeader, constant: bool) -> Group<'h> {
        Group {
            block: h.joint as usize / BLOCK,
            time_start: h.time_start,
            keys: if constant { 1 } else { h.keys },
            // A constant track is sampled as a one-key linear track.
            interpolation: if constant { Interpolation::Linear } else { h.interpolation },
            tracks: vec![(h, constant)],
        }
    }
    fn key(&self) -> (usize, u32, u32, Interpolation) {
        (self.block, self.time_start, self.keys, self.interpolation)
    }
}

/// Splits one property's tracks (sorted by joint) into the groups to sample
/// a block at a time (tracks of one block, key-time array and
/// interpolation), the lane groups (per block, the linear and step tracks
/// that share key times with no other track of the block, when there are at
/// least two, and likewise the cubic splines: see [`LaneBatch`]) and the
/// tracks to sample alone (a track that would be alone in its block or its
/// block's cubic lane group), each with whether it is constant.
///
/// A linear or step track whose keys all hold one value is *constant*: it
/// samples to that value at any time, whatever its key times, so it joins a
/// linear or step group of its block whatever that group's times (its value
/// repeated at every key), or else a one-key group of the block's constant
/// tracks. Real clips have many such tracks (exporters key every joint,
/// moving or not), and without this a block splits into one batch per
/// key-time array. (Not a cubic group: a spline through one value with zero
/// tangents rounds off it between keys.)
#[allow(clippy::type_complexity)]
fn plan_batches<'h>(
    headers: &'h [TrackHeader],
    value: &impl Fn(&TrackHeader, usize) -> [f32; 4],
) -> (Vec<Group<'h>>, Vec<Vec<(&'h TrackHeader, bool)>>, Vec<(&'h TrackHeader, bool)>) {
    let cubic = |h: &TrackHeader| h.interpolation == Interpolation::CubicSpline;
    let constant = |h: &TrackHeader| {
        !cubic(h) && (1..h.keys as usize).all(|k| value(h, k).map(f32::to_bits) == value(h, 0).map(f32::to_bits))
    };
    let mut groups: Vec<Group<'h>> = Vec::new();
    let mut alone: Vec<(&TrackHeader, bool)> = Vec::new();
    let mut constants = Vec::new();
    // Headers are sorted by joint, so a block's groups are among those
    // opened since the block began.
    let mut block_first = 0;
    for h in headers {
        if constant(h) {
            constants.push(h);
            continue;
        }
        let g = Group::of(h, false);
        if groups.get(block_first).is_some_and(|first| first.block != g.block) {
            block_first = groups.len();
        }
        match groups[block_first..].iter_mut().find(|o| o.key() == g.key()) {
            Some(o) => o.tracks.push((h, false)),
            None => groups.push(g),
        }
    }
    for h in constants {
        let block = h.joint as usize / BLOCK;
        match groups.iter_mut().find(|g| g.block == block && g.interpolation != Interpolation::CubicSpline) {
            Some(g) => g.tracks.push((h, true)),
            None => groups.push(Group::of(h, true)),
        }
    }
    // A track alone in its group shares key times with no other track of
    // its block: with others like it, it goes to its block's lane batch;
    // the only one in its block is cheaper one at a time.
    // Cubic splines and the others make separate lane groups.
    let (mut groups, single): (Vec<_>, Vec<_>) = groups.into_iter().partition(|g| g.tracks.len() > 1);
    let mut single: Vec<(bool, usize, (&TrackHeader, bool))> =
        single.into_iter().map(|g| (g.interpolation == Interpolation::CubicSpline, g.block, g.tracks[0])).collect();
    single.sort_by_key(|(cubic, _, (h, _))| (*cubic, h.joint));
    let mut lane_groups: Vec<Vec<(&TrackHeader, bool)>> = Vec::new();
    for run in single.chunk_by(|a, b| (a.0, a.1) == (b.0, b.1)) {
        if run.len() > 1 {
            lane_groups.push(run.iter().map(|&(_, _, t)| t).collect());
        } else {
            alone.push(run[0].2);
        }
    }
    alone.sort_by_key(|(h, _)| h.joint);
    // Batches sharing key times run one after the other, so sampling finds
    // each segment once; one-key batches need no search and go last.
    groups.sort_by_key(|g| (g.keys == 1, g.time_start, g.keys, g.block));
    (groups, lane_groups, alone)
}

/// A clip bound to a skeleton and repacked for sampling.
///
/// Keys of all tracks share one time array. Tracks of one interpolation
/// whose joints share a pose block and a key-time array are packed
/// together, key by key, in the pose's own SoA layout (`Batches`): sampling
/// finds the key segment once and interpolates the whole block with the SIMD
/// kernels. Tracks of a block that share their key times with no other
/// track go to lane batches (`LaneBatch`: linear and step tracks together,
/// cubic splines apart). The other tracks (alone in their block, or in
/// their block's cubic lane group) keep one value array per value type
/// (`Vec3A` for translation and scale, `Quat` for rotation) and are sampled
/// one at a time; they are grouped by property and sorted by joint.
#[derive(Debug, Clone, PartialEq)]
pub struct Animation {
    name: String,
    duration: f32,
    joint_count: usize,
    track_count: usize,
    translations: Vec<TrackHeader>,
    rotations: Vec<TrackHeader>,
    scales: Vec<TrackHeader>,
    batched: [Batches; 3],
    /// Per property, the batches of cubic splines (see [`Batch::row_start`]):
    /// apart from `batched` so that its kernels stay free of a third
    /// interpolation.
    splined: [Batches; 3],
    /// Per property (translation, rotation, scale), the lane batches.
    lane_batched: [Vec<LaneBatch>; 3],
    /// Segments of the lane batches' translation and scale tracks.
    vec_segments: Vec<VecSegment>,
    /// Segments of the lane batches' rotation tracks.
    quat_segments: Vec<QuatSegment>,
    /// Per property, the lane batches of cubic splines.
    spline_lane_batched: [Vec<LaneBatch>; 3],
    /// Segments of the cubic lane batches' translation and scale tracks.
    vec_spline_segments: Vec<VecSplineSegment>,
    /// Segments of the cubic lane batches' rotation tracks.
    quat_spline_segments: Vec<QuatSplineSegment>,
    /// Tracks in the lane batches, linear, step and cubic (one key cursor
    /// each).
    lane_tracks: usize,
    times: Vec<f32>,
    vec3s: Vec<Vec3A>,
    quats: Vec<Quat>,
    animated: Vec<u8>,
    unbound: usize,
    references: SharedReferences,
}

/// Additive reference poses made from an animation's own keys, by clip time:
/// made once at set-up and shared by every instance that plays the
/// animation against that time (a cache: never part of equality).
#[derive(Default)]
struct SharedReferences(Mutex<Vec<(u32, Arc<Pose>)>>);

impl SharedReferences {
    fn entries(&self) -> std::sync::MutexGuard<'_, Vec<(u32, Arc<Pose>)>> {
        // A panic while the lock was held cannot leave an entry half-made.
        self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl Clone for SharedReferences {
    fn clone(&self) -> Self {
        SharedReferences(Mutex::new(self.entries().clone()))
    }
}

impl PartialEq for SharedReferences {
    fn eq(&self, _: &SharedReferences) -> bool {
        true
    }
}

impl std::fmt::Debug for SharedReferences {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} shared references", self.entries().len())
    }
}

impl Animation {
    /// Binds `clip` to `skeleton`. Tracks whose target is not a joint of the
    /// skeleton are dropped and counted in [`Animation::unbound_tracks`].
    pub fn bind(clip: &Clip, skeleton: &Skeleton, by: BindBy) -> Result<Animation, RuntimeError> {
        let n = skeleton.joint_count();
        let mut animation = Animation {
            name: clip.name().to_owned(),
            duration: clip.duration(),
            joint_count: n,
            track_count: 0,
            translations: Vec::new(),
            rotations: Vec::new(),
            scales: Vec::new(),
            batched: Default::default(),
            splined: Default::default(),
            lane_batched: Default::default(),
            vec_segments: Vec::new(),
            quat_segments: Vec::new(),
            spline_lane_batched: Default::default(),
            vec_spline_segments: Vec::new(),
            quat_spline_segments: Vec::new(),
            lane_tracks: 0,
            times: Vec::new(),
            vec3s: Vec::new(),
            quats: Vec::new(),
            animated: vec![0; n],
            unbound: 0,
            references: SharedReferences::default(),
        };
        // (start, length) of each distinct key-time array in `times`.
        let mut time_runs: Vec<(u32, u32)> = Vec::new();
        for track in clip.tracks() {
            let joint = match by {
                BindBy::Node => skeleton.find_node(track.node),
                BindBy::Name => track
                    .node_name
                    .as_deref()
                    .and_then(|name| skeleton.joints().iter().position(|j| j.name.as_deref() == Some(name))),
            };
            let Some(joint) = joint else {
                animation.unbound += 1;
                continue;
            };
            let bit = property_bit(track.property);
            if animation.animated[joint] & bit != 0 {
                return Err(RuntimeError::DuplicateTrack {
                    clip: clip.name().to_owned(),
                    joint,
                    property: track.property.name(),
                });
            }
            animation.animated[joint] |= bit;
            animation.store_track(track, joint, &mut time_runs);
        }
        animation.translations.sort_by_key(|h| h.joint);
        animation.rotations.sort_by_key(|h| h.joint);
        animation.scales.sort_by_key(|h| h.joint);
        animation.track_count = animation.translations.len() + animation.rotations.len() + animation.scales.len();
        animation.pack();
        Ok(animation)
    }

    /// Stores one bound track's header, key times and values. Tracks with the
    /// same key times share one copy of them (`time_runs` holds the
    /// `(start, length)` of each distinct key-time array in `times`), so
    /// sampling finds the segment once for all of them.
    fn store_track(&mut self, track: &Track, joint: usize, time_runs: &mut Vec<(u32, u32)>) {
        let time_start = match time_runs
            .iter()
            .find(|&&(start, len)| self.times[start as usize..][..len as usize] == track.times[..])
        {
            Some(&(start, _)) => start,
            None => {
                let start = self.times.len() as u32;
                self.times.extend_from_slice(&track.times);
                time_runs.push((start, track.times.len() as u32));
                start
            }
        };
        let c = track.property.components();
        let header = |value_start: usize| TrackHeader {
            joint: joint as u16,
            interpolation: track.interpolation,
            time_start,
            keys: track.times.len() as u32,
            value_start: value_start as u32,
        };
        match track.property {
            TrackProperty::Rotation => {
                let h = header(self.quats.len());
                self.quats.extend(track.values.chunks_exact(c).map(|v| Quat::from_xyzw(v[0], v[1], v[2], v[3])));
                self.rotations.push(h);
            }
            TrackProperty::Translation | TrackProperty::Scale => {
                let h = header(self.vec3s.len());
                self.vec3s.extend(track.values.chunks_exact(c).map(|v| Vec3A::new(v[0], v[1], v[2])));
                if track.property == TrackProperty::Translation {
                    self.translations.push(h);
                } else {
                    self.scales.push(h);
                }
            }
        }
    }

    /// Moves the tracks that can be sampled a block at a time into
    /// [`Animation::batched`] and [`Animation::splined`] (see [`Batch`]) or
    /// into lane batches (see [`LaneBatch`]), keeping the others (and their
    /// values) in the per-track lists.
    fn pack(&mut self) {
        let vec3s = std::mem::take(&mut self.vec3s);
        let quats = std::mem::take(&mut self.quats);
        let lists = [
            (std::mem::take(&mut self.translations), 3, [0.0; 4]),
            (std::mem::take(&mut self.rotations), 4, [0.0, 0.0, 0.0, 1.0]),
            (std::mem::take(&mut self.scales), 3, [1.0; 4]),
        ];
        for (p, (headers, components, identity)) in lists.into_iter().enumerate() {
            let value = |h: &TrackHeader, k: usize| -> [f32; 4] {
                let at = h.value_start as usize + k;
                if components == 4 {
                    quats[at].to_array()
                } else {
                    let v = vec3s[at];
                    [v.x, v.y, v.z, 0.0]
                }
            };
            let (groups, lane_groups, alone) = plan_batches(&headers, &value);
            for group in &groups {
                let set = match group.interpolation {
                    Interpolation::CubicSpline => &mut self.splined[p],
                    _ => &mut self.batched[p],
                };
                set.push(group, self.joint_count, &identity[..components], &value);
            }
            if p == 1 {
                self.batched[p].make_arcs();
            }
            for tracks in &lane_groups {
                self.push_lane_batch(p, tracks, &value);
            }
            let kept: Vec<TrackHeader> = alone
                .into_iter()
                .map(|(h, constant)| {
                    let keys = if constant { 1 } else { h.keys };
                    let values = keys as usize * parts(h.interpolation);
                    let start = if components == 4 { self.quats.len() } else { self.vec3s.len() };
                    for k in 0..values {
                        if components == 4 {
                            self.quats.push(quats[h.value_start as usize + k]);
                        } else {
                            self.vec3s.push(vec3s[h.value_start as usize + k]);
                        }
                    }
                    TrackHeader { value_start: start as u32, keys, ..*h }
                })
                .collect();
            match p {
                0 => self.translations = kept,
                1 => self.rotations = kept,
                _ => self.scales = kept,
            }
        }
    }

    /// Makes one lane batch of property `p` from `tracks` (one block's, all
    /// cubic splines or none; see [`LaneBatch`]): each track's segments,
    /// and a key cursor per track. `value(h, i)` is a track's `i`-th stored
    /// value (a cubic spline stores three per key).
    fn push_lane_batch(
        &mut self,
        p: usize,
        tracks: &[(&TrackHeader, bool)],
        value: &impl Fn(&TrackHeader, usize) -> [f32; 4],
    ) {
        let mut batch = LaneBatch {
            block: (tracks[0].0.joint as usize / BLOCK) as u32,
            lanes: [0; BLOCK],
            cursor: self.lane_tracks as u32,
            tracks: [LaneTrack::default(); BLOCK],
            starts: [0; BLOCK],
            lasts: [0; BLOCK],
        };
        let cubic = tracks[0].0.interpolation == Interpolation::CubicSpline;
        for &(h, constant) in tracks {
            let lane = h.joint as usize % BLOCK;
            let times = &self.times[h.time_start as usize..][..if constant { 1 } else { h.keys as usize }];
            let step = h.interpolation == Interpolation::Step;
            let spline_value = |k: usize| value(h, 3 * k + 1);
            let tangent = |k: usize, part: usize| value(h, 3 * k + part);
            let (start, count) = if cubic && p == 1 {
                append(
                    &mut self.quat_spline_segments,
                    spline_segments(times, spline_value, tangent, QuatSplineSegment::spline),
                )
            } else if cubic {
                append(
                    &mut self.vec_spline_segments,
                    spline_segments(times, spline_value, tangent, VecSplineSegment::spline),
                )
            } else if p == 1 {
                let mut segments = lane_segments(times, |k| value(h, k), step, QuatSegment::new);
                segment_arcs(&mut segments);
                append(&mut self.quat_segments, segments)
            } else {
                append(&mut self.vec_segments, lane_segments(times, |k| value(h, k), step, VecSegment::new))
            };
            batch.lanes[lane] = 1;
            batch.tracks[lane] = LaneTrack { start: start as u32, segments: count as u32 };
            (batch.starts[lane], batch.lasts[lane]) = (start as u32, count as u32 - 1);
            self.lane_tracks += 1;
        }
        if cubic {
            self.spline_lane_batched[p].push(batch);
        } else {
            self.lane_batched[p].push(batch);
        }
    }

    /// Key cursors a sampling context needs: one per batch, per lane-batch
    /// track and per track sampled alone (at most [`Animation::track_count`]).
    fn cursor_count(&self) -> usize {
        self.batched.iter().chain(&self.splined).map(|b| b.batches.len()).sum::<usize>()
            + self.lane_tracks
            + self.translations.len()
            + self.rotations.len()
            + self.scales.len()
    }

    /// Clip name.
    #[must_use]
    pub fn name(&self) -> &str {
        &self.name
    }
    /// Duration in seconds (largest key time of the source clip).
    #[must_use]
    pub fn duration(&self) -> f32 {
        self.duration
    }
    /// Joint count of the skeleton this animation is bound to.
    #[must_use]
    pub fn joint_count(&self) -> usize {
        self.joint_count
    }
    /// Number of bound tracks (the size a [`SamplingContext`] needs).
    #[must_use]
    pub fn track_count(&self) -> usize {
        self.track_count
    }
    /// Tracks of the source clip that targeted no joint of the skeleton.
    #[must_use]
    pub fn unbound_tracks(&self) -> usize {
        self.unbound
    }
    /// Per joint, which properties this animation writes
    /// ([`ANIMATES_TRANSLATION`] | [`ANIMATES_ROTATION`] | [`ANIMATES_SCALE`]).
    /// Blending skips the others: an input contributes nothing to a property it
    /// does not animate.
    #[must_use]
    pub fn animated(&self) -> &[u8] {
        &self.animated
    }

    /// The additive reference of this animation against its own keys at clip
    /// time `time`: made by `make` on the first call for that time (set-up
    /// work; allocates), then shared. Only the properties the animation
    /// animates may be read from it: an additive input of this animation
    /// reads nothing else, so the rest pose it was sampled over does not matter.
    pub(crate) fn shared_reference(
        &self,
        time: f32,
        make: impl FnOnce() -> Result<Pose, RuntimeError>,
    ) -> Result<Arc<Pose>, RuntimeError> {
        let mut entries = self.references.entries();
        if let Some((_, pose)) = entries.iter().find(|(t, _)| *t == time.to_bits()) {
            return Ok(Arc::clone(pose));
        }
        let pose = Arc::new(make()?);
        entries.push((time.to_bits(), Arc::clone(&pose)));
        Ok(pose)
    }

    /// Samples at clip time `time` into a copy of `rest` (allocates; meant for
    /// set-up work such as additive reference poses, not for frames).
    pub fn sample_to_new(&self, time: f32, rest: &Pose) -> Result<Pose, RuntimeError> {
        let mut pose = rest.clone();
        let mut context = SamplingContext::new(self.track_count());
        SamplingJob { animation: self, time, context: &mut context, output: &mut pose }.run()?;
        Ok(pose)
    }
}

fn property_bit(p: TrackProperty) -> u8 {
    match p {
        TrackProperty::Translation => ANIMATES_TRANSLATION,
        TrackProperty::Rotation => ANIMATES_ROTATION,
        TrackProperty::Scale => ANIMATES_SCALE,
    }
}

/// Per-instance sampling state: one key cursor per packed block of tracks
/// and per track sampled alone.
///
/// Sized once for the largest animation it will sample ([`SamplingContext::new`]);
/// a job whose animation has more tracks fails validation instead of growing
/// the buffer. Cursors are only hints: a context may be reused across
/// animations or times and every sample is still correct.
#[derive(Debug, Clone, Default)]
pub struct SamplingContext {
    cursors: Vec<u32>,
    /// Beside each lane-batch track's cursor, where its segment ended at the
    /// last sample: the next sample steps the cursor to the next segment when
    /// its time reached this, without reading the segment first.
    ends: Vec<f32>,
    /// Whether the last animation sampled with this context had lane
    /// batches (so `ends` is worth prefetching).
    steps_lanes: bool,
}

impl SamplingContext {
    /// A context for animations of at most `max_tracks` tracks.
    #[must_use]
    pub fn new(max_tracks: usize) -> SamplingContext {
        SamplingContext { cursors: vec![0; max_tracks], ends: vec![0.0; max_tracks], steps_lanes: false }
    }
    /// A context sized for `animation`.
    #[must_use]
    pub fn for_animation(animation: &Animation) -> SamplingContext {
        SamplingContext::new(animation.track_count())
    }
    /// Largest track count this context can serve.
    #[must_use]
    pub fn capacity(&self) -> usize {
        self.cursors.len()
    }
    /// Starts loading the cursors into cache (see [`crate::simd::prefetch`]).
    pub(crate) fn prefetch(&self, max_bytes: usize) {
        crate::simd::prefetch(&self.cursors, max_bytes);
        if self.steps_lanes {
            crate::simd::prefetch(&self.ends, max_bytes);
        }
    }
    /// Forgets the cursors (the next sample searches from the first key).
    pub fn reset(&mut self) {
        self.cursors.fill(0);
        self.ends.fill(0.0);
    }
}

/// Samples one animation at one time into a pose.
///
/// Writes only the (joint, property) slots the animation animates; every other
/// slot of `output` is left as it was, so initialise the output once with the
/// rest pose ([`Pose::clone`] of [`crate::RuntimeSkeleton::rest`]) and plain
/// sampling reports rest values for joints the clip does not move.
///
/// `run` does not allocate.
#[derive(Debug)]
pub struct SamplingJob<'a> {
    /// What to sample.
    pub animation: &'a Animation,
    /// Clip time in seconds, already wrapped or clamped by the caller
    /// ([`crate::math::wrap_time`], [`crate::math::clamp_time`]). Any finite
    /// value is accepted: before the first key the first value holds, after
    /// the last key the last value.
    pub time: f32,
    /// Cursors of this instance for this animation.
    pub context: &'a mut SamplingContext,
    /// Output local pose; must have the animation's joint count.
    pub output: &'a mut Pose,
}

impl SamplingJob<'_> {
    /// Every reason this job cannot run.
    pub fn validate(&self) -> Result<(), RuntimeError> {
        let fits = self.time.is_finite()
            && self.output.len() == self.animation.joint_count
            && self.context.capacity() >= self.animation.track_count();
        if fits {
            return Ok(());
        }
        let mut reasons = Vec::new();
        if !self.time.is_finite() {
            reasons.push(format!("time {} is not finite", self.time));
        }
        if self.output.len() != self.animation.joint_count {
            reasons.push(format!(
                "output pose has {} joints, animation `{}` is bound to {}",
                self.output.len(),
                self.animation.name,
                self.animation.joint_count
            ));
        }
        if self.context.capacity() < self.animation.track_count() {
            reasons.push(format!(
                "context holds {} cursors, animation `{}` has {} tracks",
                self.context.capacity(),
                self.animation.name,
                self.animation.track_count()
            ));
        }
        RuntimeError::check("sampling job", reasons)
    }

    /// Validates, then samples.
    pub fn run(self) -> Result<(), RuntimeError> {
        self.validate()?;
        self.sample(None);
        Ok(())
    }

    /// Validates, then samples only the joints whose `mask` weight is above 0
    /// (a masked layer need not sample what it cannot show). Slots of skipped
    /// joints keep their previous values.
    ///
    /// # Errors
    /// As [`SamplingJob::validate`], plus a mask whose length is not the joint count.
    pub fn run_masked(self, mask: &[f32]) -> Result<(), RuntimeError> {
        self.validate()?;
        if mask.len() != self.animation.joint_count {
            return Err(RuntimeError::InvalidJob {
                job: "sampling job",
                reasons: vec![format!(
                    "mask has {} weights, animation has {} joints",
                    mask.len(),
                    self.animation.joint_count
                )],
            });
        }
        self.sample(Some(mask));
        Ok(())
    }

    #[inline(always)]
    fn sample(self, mask: Option<&[f32]>) {
        let a = self.animation;
        let t = self.time;
        let skip = |joint: u16| mask.is_some_and(|m| m[joint as usize] <= 0.0);
        let cursors = &mut self.context.cursors[..a.cursor_count()];
        let batches = a.batched.iter().map(|b| b.batches.len()).sum();
        let (cb, cursors) = cursors.split_at_mut(batches);
        let splines = a.splined.iter().map(|b| b.batches.len()).sum();
        let (csp, cursors) = cursors.split_at_mut(splines);
        let (cl, cursors) = cursors.split_at_mut(a.lane_tracks);
        let ends = &mut self.context.ends[batches + splines..][..a.lane_tracks];
        self.context.steps_lanes = a.lane_tracks > 0;
        let (ct, rest) = cursors.split_at_mut(a.translations.len());
        let (cr, cs) = rest.split_at_mut(a.rotations.len());
        let out = &mut *self.output;
        let mut finder = SegmentFinder::new(&a.times, t);
        if !cb.is_empty() {
            sample_batches(a, &mut finder, cb, out, mask);
        }
        if !csp.is_empty() {
            sample_spline_batches(a, &mut finder, csp, out, mask);
        }
        if !cl.is_empty() {
            sample_lane_batches(a, t, LaneCursors { cursors: &mut *cl, ends: &mut *ends }, out, mask);
            if a.spline_lane_batched.iter().any(|b| !b.is_empty()) {
                sample_spline_lane_batches(a, t, LaneCursors { cursors: cl, ends }, out, mask);
            }
        }
        for (h, c) in a.translations.iter().zip(ct) {
            if !skip(h.joint) {
                let seg = finder.find(h.time_start, h.keys, c);
                out.set_translation(h.joint as usize, sample_vec3(h, &a.vec3s, seg));
            }
        }
        for (h, c) in a.rotations.iter().zip(cr) {
            if !skip(h.joint) {
                let seg = finder.find(h.time_start, h.keys, c);
                out.set_rotation(h.joint as usize, sample_quat(h, &a.quats, seg));
            }
        }
        for (h, c) in a.scales.iter().zip(cs) {
            if !skip(h.joint) {
                let seg = finder.find(h.time_start, h.keys, c);
                out.set_scale(h.joint as usize, sample_vec3(h, &a.vec3s, seg));
            }
        }
    }
}

dispatch!(fn sample_batches / sample_batches_at => sample_batches_lanes(
    a: &Animation, finder: &mut SegmentFinder<'_>, cursors: &mut [u32], out: &mut Pose, mask: Option<&[f32]>,
));

/// The lanes of a batch of pose block `block` to write: its tracks
/// (`lanes`), less the joints `mask` skips.
#[inline(always)]
fn live_lanes(block: u32, lanes: [u8; BLOCK], mask: Option<&[f32]>) -> [u8; BLOCK] {
    match mask {
        None => lanes,
        Some(m) => std::array::from_fn(|l| {
            let w = m.get(block as usize * BLOCK + l).copied().unwrap_or(0.0);
            lanes[l] & u8::from(w > 0.0 || w.is_nan())
        }),
    }
}

/// Lanes `at..` of the cubic spline of a cubic batch's packed keys `keys`
/// (`N` rows per part, see [`Batch::row_start`]) between keys `i` and
/// `i + 1` at parameter `alpha`, `dt` the key interval: key `i`'s
/// out-tangent and key `i + 1`'s in-tangent times `dt`, then
/// [`spline_lanes`].
#[inline(always)]
fn block_spline<V: Lanes, const N: usize>(keys: &[Row], i: usize, at: usize, alpha: f32, dt: f32) -> [V; N] {
    let k = &keys[3 * N * i..];
    let (p0, mut m0) = (load::<V, N>(&k[N..], at), load::<V, N>(&k[2 * N..], at));
    let (mut m1, p1) = (load::<V, N>(&k[3 * N..], at), load::<V, N>(&k[4 * N..], at));
    let dt = V::splat(dt);
    for c in 0..N {
        (m0[c], m1[c]) = (m0[c] * dt, m1[c] * dt);
    }
    spline_lanes(p0, p1, m0, m1, hermite_lanes(V::splat(alpha)))
}

dispatch!(fn sample_spline_batches / sample_spline_batches_at => sample_spline_batches_lanes(
    a: &Animation, finder: &mut SegmentFinder<'_>, cursors: &mut [u32], out: &mut Pose, mask: Option<&[f32]>,
));

/// Samples every cubic-spline batch of `a` ([`Animation::splined`]): per
/// batch, the key segment once and its Hermite basis, then the block's
/// lanes together (rotations normalized, as three.js's glTF loader does)
/// and written where the batch has a live track. Before the first key and
/// after the last, a key's value as stored. `cursors` holds one cursor per
/// batch: translations, scales, then rotations.
#[inline(always)]
fn sample_spline_batches_lanes<V: Lanes>(
    a: &Animation,
    finder: &mut SegmentFinder<'_>,
    cursors: &mut [u32],
    out: &mut Pose,
    mask: Option<&[f32]>,
) {
    let (out_t, out_r, out_s) = out.rows_mut();
    let mut cursors = cursors.iter_mut();
    for (p, out) in [(0, &mut *out_t), (2, &mut *out_s)] {
        let set = &a.splined[p];
        for (batch, c) in set.batches.iter().zip(&mut cursors) {
            let lanes = live_lanes(batch.block, batch.lanes, mask);
            if lanes == [0; BLOCK] {
                continue;
            }
            let seg = finder.find(batch.time_start, batch.keys, c);
            let out = rows_mut(out, 3, batch.block as usize);
            let keys = &set.rows[batch.row_start as usize..][..batch.keys as usize * 9];
            for at in (0..BLOCK).step_by(V::LANES) {
                let live = V::bits(&lanes[at..], 1);
                if V::any(live) {
                    let new = match seg {
                        Segment::Key(k) => load::<V, 3>(&keys[9 * k + 3..], at),
                        Segment::Between(i, alpha, dt) => block_spline::<V, 3>(keys, i, at, alpha, dt),
                    };
                    store_where(out, at, live, new, load::<V, 3>(out, at));
                }
            }
        }
    }
    let set = &a.splined[1];
    for (batch, c) in set.batches.iter().zip(&mut cursors) {
        let lanes = live_lanes(batch.block, batch.lanes, mask);
        if lanes == [0; BLOCK] {
            continue;
        }
        let seg = finder.find(batch.time_start, batch.keys, c);
        let out = rows_mut(out_r, 4, batch.block as usize);
        let keys = &set.rows[batch.row_start as usize..][..batch.keys as usize * 12];
        for at in (0..BLOCK).step_by(V::LANES) {
            let live = V::bits(&lanes[at..], 1);
            if V::any(live) {
                let new = match seg {
                    Segment::Key(k) => load::<V, 4>(&keys[12 * k + 4..], at),
                    Segment::Between(i, alpha, dt) => normalize(block_spline::<V, 4>(keys, i, at, alpha, dt)),
                };
                store_where(out, at, live, new, load::<V, 4>(out, at));
            }
        }
    }
}

/// `q / |q|` per lane, with `|q|` summed as glam's four-lane dot product
/// sums it (`(x² + z²) + (y² + w²)`) and each component divided by it, so
/// the same bits as `Quat::normalize`.
#[inline(always)]
fn normalize<V: Lanes>(q: [V; 4]) -> [V; 4] {
    let [x, y, z, w] = q;
    let length = ((x * x + z * z) + (y * y + w * w)).sqrt();
    [x / length, y / length, z / length, w / length]
}

/// Samples every batch of `a` (see [`Batch`]): per batch, the key segment
/// once, then the block's lanes interpolated together (lerp, or three.js
/// slerp with one `t` for every lane) and written where the batch has a live
/// track. `cursors` holds one cursor per batch: translations, scales, then
/// rotations.
#[inline(always)]
fn sample_batches_lanes<V: Lanes>(
    a: &Animation,
    finder: &mut SegmentFinder<'_>,
    cursors: &mut [u32],
    out: &mut Pose,
    mask: Option<&[f32]>,
) {
    let (out_t, out_r, out_s) = out.rows_mut();
    let mut cursors = cursors.iter_mut();
    for (p, out) in [(0, &mut *out_t), (2, &mut *out_s)] {
        let set = &a.batched[p];
        for (batch, c) in set.batches.iter().zip(&mut cursors) {
            let whole = batch.whole && mask.is_none();
            let lanes = if whole { batch.lanes } else { live_lanes(batch.block, batch.lanes, mask) };
            if lanes == [0; BLOCK] {
                continue;
            }
            let seg = finder.find(batch.time_start, batch.keys, c);
            let out = rows_mut(out, 3, batch.block as usize);
            let keys = &set.rows[batch.row_start as usize..][..batch.keys as usize * 3];
            for at in (0..BLOCK).step_by(V::LANES) {
                let live = (!whole).then(|| V::bits(&lanes[at..], 1));
                if live.is_some_and(|live| !V::any(live)) {
                    continue;
                }
                let new = match seg {
                    Segment::Key(k) => load::<V, 3>(&keys[3 * k..], at),
                    Segment::Between(i, _, _) if batch.step => load::<V, 3>(&keys[3 * i..], at),
                    Segment::Between(i, alpha, _) => {
                        lerp(load::<V, 3>(&keys[3 * i..], at), load::<V, 3>(&keys[3 * i + 3..], at), V::splat(alpha))
                    }
                };
                match live {
                    Some(live) if !V::all(live) => {
                        let old = load::<V, 3>(out, at);
                        store(out, at, select(std::hint::black_box(live), new, old));
                    }
                    _ => store(out, at, new),
                }
            }
        }
    }
    let set = &a.batched[1];
    for (batch, c) in set.batches.iter().zip(&mut cursors) {
        let whole = batch.whole && mask.is_none();
        let lanes = if whole { batch.lanes } else { live_lanes(batch.block, batch.lanes, mask) };
        if lanes == [0; BLOCK] {
            continue;
        }
        let seg = finder.find(batch.time_start, batch.keys, c);
        let uniform = match seg {
            Segment::Between(_, alpha, _) if !batch.step => Some(finder.uniform(alpha)),
            _ => None,
        };
        let out = rows_mut(out_r, 4, batch.block as usize);
        let keys = &set.rows[batch.row_start as usize..][..batch.keys as usize * 4];
        let arcs = &set.arcs[batch.arc_start as usize..];
        for at in (0..BLOCK).step_by(V::LANES) {
            let live = (!whole).then(|| V::bits(&lanes[at..], 1));
            if live.is_some_and(|live| !V::any(live)) {
                continue;
            }
            let new = match (seg, &uniform) {
                (Segment::Key(k) | Segment::Between(k, _, _), None) => load::<V, 4>(&keys[4 * k..], at),
                (Segment::Between(i, _, _), Some(u)) => {
                    let (a, b) = (load::<V, 4>(&keys[4 * i..], at), load::<V, 4>(&keys[4 * i + 4..], at));
                    slerp_arc(a, b, load::<V, ARC_ROWS>(&arcs[ARC_ROWS * i..], at), u)
                }
                (Segment::Key(k), Some(_)) => load::<V, 4>(&keys[4 * k..], at),
            };
            match live {
                Some(live) if !V::all(live) => {
                    let old = load::<V, 4>(out, at);
                    store(out, at, select(std::hint::black_box(live), new, old));
                }
                _ => store(out, at, new),
            }
        }
    }
}

dispatch!(fn sample_lane_batches / sample_lane_batches_at => sample_lane_batches_lanes(
    a: &Animation, t: f32, cursors: LaneCursors<'_>, out: &mut Pose, mask: Option<&[f32]>,
));

/// How many of a track's first segments [`LaneKeys::repair`] scans when the
/// time went back (a looping clip wrapped) before it searches them all.
const WRAP_SCAN: usize = 4;

/// The lane-batch tracks' cursors of a [`SamplingContext`]: per track, in
/// the order of the batches and their lanes, the index of its segment at the
/// last sample and where that segment ends.
struct LaneCursors<'c> {
    cursors: &'c mut [u32],
    ends: &'c mut [f32],
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
fn sample_lanes<V: Lanes, const Q: usize, const N: usize>(
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

dispatch!(fn sample_spline_lane_batches / sample_spline_lane_batches_at => sample_spline_lane_batches_lanes(
    a: &Animation, t: f32, cursors: LaneCursors<'_>, out: &mut Pose, mask: Option<&[f32]>,
));

/// [`crate::math::hermite_basis`] per lane, the same operations in the
/// same order (so the same bits).
#[inline(always)]
fn hermite_lanes<V: Lanes>(p: V) -> [V; 4] {
    let pp = p * p;
    let ppp = pp * p;
    let s2 = V::splat(-2.0) * ppp + V::splat(3.0) * pp;
    let s3 = ppp - pp;
    [V::splat(1.0) - s2, s3 - pp + p, s2, s3]
}

/// `p0·s0 + m0·s1 + p1·s2 + m1·s3` per lane and component, the tangents
/// `m0` (the first key's out-tangent) and `m1` (the second key's
/// in-tangent) already times the key interval: the operations, in this
/// order, of the one-track sampler (three.js's `GLTFCubicSplineInterpolant`),
/// so the same bits.
#[inline(always)]
fn spline_lanes<V: Lanes, const N: usize>(p0: [V; N], p1: [V; N], m0: [V; N], m1: [V; N], s: [V; 4]) -> [V; N] {
    let mut out = p0;
    for (c, o) in out.iter_mut().enumerate() {
        *o = p0[c] * s[0] + m0[c] * s[1] + p1[c] * s[2] + m1[c] * s[3];
    }
    out
}

/// Samples every cubic lane batch of `a` ([`Animation::spline_lane_batched`])
/// as [`sample_lane_batches_lanes`] samples the others: per lane its own
/// segment and parameter, then the Hermite spline of the lanes together
/// (rotations normalized), a segment that holds one key (before the first
/// key, from the last on) giving that key as stored.
#[inline(always)]
fn sample_spline_lane_batches_lanes<V: Lanes>(
    a: &Animation,
    t: f32,
    mut cursors: LaneCursors<'_>,
    out: &mut Pose,
    mask: Option<&[f32]>,
) {
    let (out_t, out_r, out_s) = out.rows_mut();
    let zero = V::splat(0.0);
    for (p, out) in [(0, &mut *out_t), (2, &mut *out_s)] {
        let segments = &a.vec_spline_segments;
        sample_lanes(
            &a.spline_lane_batched[p],
            segments,
            out,
            t,
            &mut cursors,
            mask,
            |[q0, q1, q2, q3]: [[V; 4]; 4], u| {
                let p0 = [q0[0], q0[1], q0[2]];
                let (p1, m0, m1) = ([q1[0], q1[1], q1[2]], [q2[0], q2[1], q2[2]], [q3[0], q3[1], q3[2]]);
                select(q2[3].gt(zero), p0, spline_lanes(p0, p1, m0, m1, hermite_lanes(u)))
            },
        );
    }
    let segments = &a.quat_spline_segments;
    sample_lanes(
        &a.spline_lane_batched[1],
        segments,
        out_r,
        t,
        &mut cursors,
        mask,
        |[p0, p1, m0, m1, bounds]: [[V; 4]; 5], u| {
            select(bounds[2].gt(zero), p0, normalize(spline_lanes(p0, p1, m0, m1, hermite_lanes(u))))
        },
    );
}

/// Finds each track's segment at one time, once per distinct key-time array
/// while consecutive tracks share it (glTF exporters usually give every
/// channel of a clip the same times).
struct SegmentFinder<'a> {
    times: &'a [f32],
    t: f32,
    /// `(time_start, keys, cursor, segment)` of the last track located.
    last: Option<(u32, u32, u32, Segment)>,
    /// The slerp factors of the last interpolation parameter asked for.
    uniform: Option<(f32, UniformT)>,
}

impl<'a> SegmentFinder<'a> {
    fn new(times: &'a [f32], t: f32) -> SegmentFinder<'a> {
        SegmentFinder { times, t, last: None, uniform: None }
    }

    /// The segment of a track whose keys are `times[time_start..][..keys]`.
    #[inline(always)]
    fn find(&mut self, time_start: u32, keys: u32, cursor: &mut u32) -> Segment {
        if keys == 1 {
            return Segment::Key(0);
        }
        if let Some((start, k, c, seg)) = self.last
            && start == time_start
            && k == keys
        {
            *cursor = c;
            return seg;
        }
        let times = &self.times[time_start as usize..][..keys as usize];
        let seg = locate(times, cursor, self.t);
        self.last = Some((time_start, keys, *cursor, seg));
        seg
    }

    /// The slerp factors of parameter `alpha`, computed once per value.
    #[inline(always)]
    fn uniform(&mut self, alpha: f32) -> UniformT {
        match self.uniform {
            Some((a, u)) if a.to_bits() == alpha.to_bits() => u,
            _ => {
                let u = UniformT::new(alpha);
                self.uniform = Some((alpha, u));
                u
            }
        }
    }
}

/// Where `t` falls, for a track with keys `times`.
#[derive(Debug, Clone, Copy)]
enum Segment {
    /// A single key's value (before the first key, after the last, or one key).
    Key(usize),
    /// Between keys `i` and `i + 1` (`times[i] <= t < times[i+1]`), at `alpha`.
    Between(usize, f32, f32),
}

#[inline(always)]
fn locate(times: &[f32], cursor: &mut u32, t: f32) -> Segment {
    let n = times.len();
    let last = n - 1;
    // The job validated `t` as finite, so every comparison below is ordered.
    if t < times[0] || n == 1 {
        return Segment::Key(0);
    }
    if t >= times[last] {
        return Segment::Key(last);
    }
    let i = seek(times, cursor, t);
    let (t0, t1) = (times[i], times[i + 1]);
    Segment::Between(i, (t - t0) / (t1 - t0), t1 - t0)
}

/// Largest `i` with `times[i] <= t`, starting from the cursor.
/// Precondition: `times.len() >= 2` and `times[0] <= t < times[last]`.
#[inline(always)]
fn seek(times: &[f32], cursor: &mut u32, t: f32) -> usize {
    let n = times.len();
    let mut i = (*cursor as usize).min(n - 2);
    if t >= times[i] {
        if t >= times[i + 1] {
            // Usual forward step: the next segment, else search what is ahead.
            i += 1;
            if t >= times[i + 1] {
                let ahead = &times[i + 1..];
                i += ahead.partition_point(|&x| x <= t);
            }
        }
    } else {
        i = times[..i].partition_point(|&x| x <= t) - 1;
    }
    *cursor = i as u32;
    i
}

#[inline(always)]
fn sample_vec3(h: &TrackHeader, values: &[Vec3A], seg: Segment) -> Vec3A {
    let values = &values[h.value_start as usize..];
    match h.interpolation {
        Interpolation::Linear => match seg {
            Segment::Key(k) => values[k],
            Segment::Between(i, a, _) => lerp3(values[i], values[i + 1], a),
        },
        Interpolation::Step => match seg {
            Segment::Key(k) | Segment::Between(k, _, _) => values[k],
        },
        Interpolation::CubicSpline => match seg {
            Segment::Key(k) => values[3 * k + 1],
            Segment::Between(i, a, dt) => {
                let [s0, s1, s2, s3] = hermite_basis(a);
                let (p0, m0) = (values[3 * i + 1], values[3 * i + 2] * dt);
                let (p1, m1) = (values[3 * i + 4], values[3 * i + 3] * dt);
                p0 * s0 + m0 * s1 + p1 * s2 + m1 * s3
            }
        },
    }
}

#[inline(always)]
fn sample_quat(h: &TrackHeader, values: &[Quat], seg: Segment) -> Quat {
    let values = &values[h.value_start as usize..];
    match h.interpolation {
        Interpolation::Linear => match seg {
            Segment::Key(k) => values[k],
            Segment::Between(i, a, _) => slerp(values[i], values[i + 1], a),
        },
        Interpolation::Step => match seg {
            Segment::Key(k) | Segment::Between(k, _, _) => values[k],
        },
        Interpolation::CubicSpline => match seg {
            Segment::Key(k) => values[3 * k + 1],
            Segment::Between(i, a, dt) => {
                let [s0, s1, s2, s3] = hermite_basis(a);
                let v = |q: Quat| glam::Vec4::from(q);
                let (p0, m0) = (v(values[3 * i + 1]), v(values[3 * i + 2]) * dt);
                let (p1, m1) = (v(values[3 * i + 4]), v(values[3 * i + 3]) * dt);
                Quat::from_vec4(p0 * s0 + m0 * s1 + p1 * s2 + m1 * s3).normalize()
            }
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seek_moves_forward_backward_and_jumps() {
        let times = [0.0, 1.0, 2.0, 3.0, 4.0, 5.0];
        let mut c = 0;
        assert_eq!(seek(&times, &mut c, 0.5), 0);
        assert_eq!(seek(&times, &mut c, 1.0), 1);
        assert_eq!(seek(&times, &mut c, 1.5), 1);
        assert_eq!(seek(&times, &mut c, 2.5), 2);
        assert_eq!(seek(&times, &mut c, 4.9), 4);
        assert_eq!(seek(&times, &mut c, 0.1), 0);
        assert_eq!(seek(&times, &mut c, 3.0), 3);
        assert_eq!(seek(&times, &mut c, 2.999), 2);
        let mut wild = 99;
        assert_eq!(seek(&times, &mut wild, 4.5), 4);
        // Duplicate key times: the zero-width segment is never chosen.
        let dup = [0.0, 1.0, 1.0, 2.0];
        let mut c = 0;
        assert_eq!(seek(&dup, &mut c, 1.0), 2);
        assert_eq!(seek(&dup, &mut c, 0.5), 0);
    }

    /// Exporters key every joint: a block mixes moving joints with constant
    /// ones on other key times. The constant tracks join the moving tracks'
    /// batch; a block of constants alone is one one-key batch; tracks that
    /// share their times with no other track of their block form a lane
    /// batch, unless only one does (sampled alone); cubic tracks never batch.
    #[test]
    fn constant_tracks_join_their_blocks_batch() {
        let h = |joint: u16, time_start: u32, keys: u32, value_start: u32, interpolation| TrackHeader {
            joint,
            interpolation,
            time_start,
            keys,
            value_start,
        };
        let lin = Interpolation::Linear;
        // Values: track `v` key `k` is `[v, k, 0, 0]`, except tracks from 100,
        // whose keys all hold `[v, 0, 0, 0]`.
        let value = |h: &TrackHeader, k: usize| {
            let v = h.value_start as f32;
            if h.value_start >= 100 { [v, 0.0, 0.0, 0.0] } else { [v, k as f32, 0.0, 0.0] }
        };
        let headers = [
            h(0, 0, 30, 1, lin),
            h(1, 0, 30, 2, lin),
            h(2, 30, 2, 100, lin),
            h(3, 30, 2, 101, Interpolation::Step),
            h(8, 30, 2, 102, lin),
            h(9, 32, 5, 103, lin),
            h(16, 0, 30, 3, lin),
            h(17, 32, 5, 104, lin),
            h(24, 0, 30, 4, Interpolation::CubicSpline),
            h(40, 0, 30, 5, lin),
            h(48, 0, 30, 6, lin),
            h(50, 32, 5, 7, Interpolation::Step),
            h(53, 30, 2, 8, lin),
        ];
        let (groups, lanes, alone) = plan_batches(&headers, &value);
        let summary: Vec<_> = groups
            .iter()
            .map(|g| (g.block, g.time_start, g.keys, g.tracks.iter().map(|t| t.0.joint).collect::<Vec<_>>()))
            .collect();
        assert_eq!(summary, [(0, 0, 30, vec![0, 1, 2, 3]), (2, 0, 30, vec![16, 17]), (1, 30, 1, vec![8, 9])]);
        let constant: Vec<_> = groups[0].tracks.iter().map(|t| t.1).collect();
        assert_eq!(constant, [false, false, true, true]);
        let alone: Vec<_> = alone.iter().map(|&(h, c)| (h.joint, c)).collect();
        assert_eq!(alone, [(24, false), (40, false)]);
        let lanes: Vec<Vec<_>> = lanes.iter().map(|l| l.iter().map(|&(h, c)| (h.joint, c)).collect()).collect();
        assert_eq!(lanes, [vec![(48, false), (50, false), (53, false)]]);
    }
}

/// Lane batches against each track sampled by the definition, on every
/// kernel path.
#[cfg(test)]
mod lane_tests {
    use glam::Mat4;
    use proptest::prelude::*;
    use zoa_anim_core::{Joint, Transform};

    use super::*;
    use crate::simd::tests::each_path;

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
                        let axis =
                            glam::Vec3::new(next() - 0.5, next() - 0.5, next() - 0.5).normalize_or(glam::Vec3::X);
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
                            TrackProperty::Rotation => {
                                Quat::from_rotation_y(0.3 * (node + k) as f32).to_array().to_vec()
                            }
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
            let q = crate::math::slerp(Quat::from_array(a), Quat::from_array(b), alpha);
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
                                let axis = glam::Vec3::new(next() - 0.5, next() - 0.5, next() - 0.5)
                                    .normalize_or(glam::Vec3::X);
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
}

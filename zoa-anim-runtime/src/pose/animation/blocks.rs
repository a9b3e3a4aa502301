//! Block batches: tracks of one property and interpolation that share a
//! pose block and their key times, packed key by key in the pose's SoA
//! layout, and the sampler of the linear and step ones.

use zoa_anim_core::Interpolation;

use super::cursor::{Segment, SegmentFinder};
use super::pack::Group;
use super::sampling::live_lanes;
use super::{Animation, TrackHeader};
use crate::pose::Pose;
use crate::pose::simd::{ARC_ROWS, BLOCK, Lanes, Row, arc, dispatch, lerp, load, rows_mut, select, slerp_arc, store};

/// Tracks of one property and one interpolation whose joints lie in one
/// pose block and whose keys share one time array: sampled a whole block at
/// a time (the key segment found once, the lanes interpolated together).
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Batch {
    /// Pose block of the tracks' joints.
    pub(super) block: u32,
    /// First key time in [`Animation::times`].
    pub(super) time_start: u32,
    /// Number of keys (at least 1).
    pub(super) keys: u32,
    /// First row of key 0 in the property's packed rows: key `k`, component
    /// `c` is row `row_start + k·C + c` (`C` = 3 or 4), one lane per joint.
    /// A cubic spline's key is three such keys in a row: its in-tangent,
    /// its value, its out-tangent (row `row_start + (3k + part)·C + c`).
    pub(super) row_start: u32,
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
    pub(super) lanes: [u8; BLOCK],
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
pub(super) fn parts(interpolation: Interpolation) -> usize {
    if interpolation == Interpolation::CubicSpline { 3 } else { 1 }
}

/// The batches of one property and their packed key values.
#[derive(Debug, Clone, PartialEq, Default)]
pub(super) struct Batches {
    pub(super) batches: Vec<Batch>,
    pub(super) rows: Vec<Row>,
    /// Rotations: per linear batch and pair of consecutive keys, the
    /// [`crate::pose::simd::arc`] rows of the slerp between them, made once at
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
    pub(super) fn push(
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
    pub(super) fn make_arcs(&mut self) {
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
/// [`crate::pose::simd::arc`] rows into `out`, with the kernel path in effect (so
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

dispatch!(pub(super) fn sample_batches / sample_batches_at => sample_batches_lanes(
    a: &Animation, finder: &mut SegmentFinder<'_>, cursors: &mut [u32], out: &mut Pose, mask: Option<&[f32]>,
));

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

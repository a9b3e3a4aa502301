//! Key reduction and quantization of one joint track, and its encoding.
//!
//! Per linear or step track, in this order:
//! 1. **Quantize**: the most compact quantizer whose rounding error stays
//!    within half the track's tolerance at every key:
//!    - *rest*: every key is within the tolerance of the joint's rest value
//!      (a translation or scale the clip does not move): no value is stored;
//!    - *rotation*: the smallest three components (the largest one's index
//!      in 2 bits, its sign made positive; ozz's scheme) on a grid of `b`
//!      bits each over `[-1/√2, 1/√2]`, with the fewest bits (8 to 30) that
//!      hold the tolerance: a long chain, or a model in large units, asks
//!      for more;
//!    - *grid*: per component of a translation or scale, `b` bits over the
//!      track's own `[min, max]` (no bits for a component that stays put);
//!    - else `f32` values.
//! 2. **Reduce**: walk the keys and drop every key that the interpolation of
//!    the kept (quantized) neighbours reproduces within the tolerance at that
//!    key's time, compared with the *original* value, so quantization and
//!    reduction share one error budget (ozz's `AnimationOptimizer` idea).
//!    Linear interpolation error between keys is largest at a key, so
//!    checking at the original keys bounds it everywhere. The first and last
//!    keys always stay (the clip keeps its start and duration).
//! 3. **Pack**: the kept keys' grid integers are predicted from the key
//!    before (or the two before, extrapolated), and the residuals stored
//!    on the fewest bits that hold the track's largest; the timeline indices
//!    as gaps, on the fewest bits too. Prediction is exact in integers, so
//!    packing adds no error: steps 1 and 2 alone spend the tolerance.
//!    Densely sampled motion (every key kept) then costs a few bits a
//!    component instead of the grid's full width.
//!
//! Cubic-spline tracks are stored as they are (`f32`, every key).

use zoa_anim_core::glam::{Quat, Vec3};
use zoa_anim_core::{Interpolation, Skeleton, Track, TrackProperty};

use super::BakedProblem;
use super::codec::{BitReader, BitWriter, Cursor, Writer, bit_width};

/// Longest run of keys one kept pair may span (bounds the reduction's work).
const MAX_SPAN: usize = 4096;

/// `1 / sqrt(2)`: the range of a smallest-three component.
const SQRT1_2: f64 = std::f64::consts::FRAC_1_SQRT_2;

/// Most bits of one grid component.
const MAX_BITS: u8 = 30;
/// Fewest bits a rotation grid tries.
const MIN_ROTATION_BITS: u8 = 8;
/// Most bits of one packed residual or timeline gap: the zigzag of a
/// 30-bit value minus its extrapolation fits in 32.
const MAX_WIDTH: u8 = 32;
/// The largest-component byte of a rotation track whose keys name it one by one.
const LARGEST_PER_KEY: u8 = 4;

/// The name `skeleton` gives glTF node `node`, if it has the node and the node a name.
fn skeleton_name(skeleton: &Skeleton, node: u32) -> Option<&str> {
    skeleton.find_node(node).and_then(|j| skeleton.joints()[j].name.as_deref())
}

/// The rest value of `property` of glTF node `node` in `skeleton`, if it has the node.
fn rest_value(skeleton: &Skeleton, node: u32, property: TrackProperty) -> Option<[f32; 4]> {
    let rest = &skeleton.joints()[skeleton.find_node(node)?].rest;
    Some(match property {
        TrackProperty::Translation => rest.translation.extend(0.0).to_array(),
        TrackProperty::Rotation => rest.rotation.to_array(),
        TrackProperty::Scale => rest.scale.extend(0.0).to_array(),
    })
}

/// The tolerance of one track, in its property's units (metres, radians, scale factor).
#[derive(Debug, Clone, Copy)]
pub(super) struct TrackTolerance(pub f32);

/// How a quantized track's values are stored.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Quantizer {
    /// The joint's rest value at every key; nothing stored (tag 0).
    Rest([f32; 4]),
    /// Smallest three on `bits` each (tag 1).
    Rotation { bits: u8 },
    /// Per component, `bits[i]` over `[min[i], min[i] + extent[i]]`; a
    /// component of no bits is `min[i]` (tag 2).
    Grid { min: [f32; 3], extent: [f32; 3], bits: [u8; 3] },
    /// `f32` values, after the packed stream (tag 3).
    Float,
}

/// A key on a quantizer's grid: three integers and, for a rotation, the
/// index of the component left out.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct GridKey {
    q: [u32; 3],
    largest: u8,
}

/// The largest integer of a `bits`-bit grid component.
fn steps(bits: u8) -> f64 {
    ((1u64 << bits) - 1) as f64
}

impl Quantizer {
    /// The most compact quantizer for `track` (see the module docs).
    fn for_track(track: &Track, tol: TrackTolerance, rest: Option<[f32; 4]>) -> Quantizer {
        let c = track.property.components();
        let keys = || (0..track.key_count()).map(|k| track.key_value(k));
        if let Some(r) = rest
            && keys().all(|v| error(track.property, &r[..c], v) <= tol.0)
        {
            return Quantizer::Rest(r);
        }
        let fits = |q: &Quantizer| keys().all(|v| error(track.property, &q.round_trip(v)[..c], v) <= tol.0 * 0.5);
        if track.property == TrackProperty::Rotation {
            return (MIN_ROTATION_BITS..=MAX_BITS)
                .map(|bits| Quantizer::Rotation { bits })
                .find(fits)
                .unwrap_or(Quantizer::Float);
        }
        let (mut min, mut max) = ([f32::INFINITY; 3], [f32::NEG_INFINITY; 3]);
        for v in keys() {
            for i in 0..3 {
                min[i] = min[i].min(v[i]);
                max[i] = max[i].max(v[i]);
            }
        }
        let extent: [f32; 3] = std::array::from_fn(|i| max[i] - min[i]);
        if extent.iter().any(|e| !e.is_finite()) {
            return Quantizer::Float;
        }
        // A component rounds by at most half a step: a translation's three
        // add up as a distance, a scale's largest counts.
        let per_component = if track.property == TrackProperty::Translation { 3f64.sqrt() } else { 1.0 };
        let budget = f64::from(tol.0) * 0.5 / per_component;
        let mut bits = extent.map(|e| {
            let e = f64::from(e);
            if e <= budget {
                return 0;
            }
            (1..=MAX_BITS).find(|b| e / steps(*b) * 0.5 <= budget).unwrap_or(MAX_BITS + 1)
        });
        // The decoded `f32`s round once more: one bit more may be needed.
        for _ in 0..2 {
            if bits.iter().any(|b| *b > MAX_BITS) {
                break;
            }
            let q = Quantizer::Grid { min, extent, bits };
            if fits(&q) {
                return q;
            }
            bits.iter_mut().filter(|b| **b > 0).for_each(|b| *b += 1);
        }
        Quantizer::Float
    }

    /// The format's quantizer byte.
    fn tag(&self) -> u8 {
        match self {
            Quantizer::Rest(_) => 0,
            Quantizer::Rotation { .. } => 1,
            Quantizer::Grid { .. } => 2,
            Quantizer::Float => 3,
        }
    }

    /// Bits per grid component (none for rest and float values).
    fn grid_bits(&self) -> Option<[u8; 3]> {
        match *self {
            Quantizer::Rotation { bits } => Some([bits; 3]),
            Quantizer::Grid { bits, .. } => Some(bits),
            Quantizer::Rest(_) | Quantizer::Float => None,
        }
    }

    /// `v` on the grid (zeros for rest and float values).
    fn quantize(&self, v: &[f32]) -> GridKey {
        match *self {
            Quantizer::Rotation { bits } => {
                let (units, largest) = smallest_three(v);
                GridKey { q: units.map(|u| (u * steps(bits)).round() as u32), largest }
            }
            Quantizer::Grid { min, extent, bits } => GridKey {
                q: std::array::from_fn(|i| {
                    if bits[i] == 0 {
                        return 0;
                    }
                    let unit = (f64::from(v[i]) - f64::from(min[i])) / f64::from(extent[i]);
                    (unit * steps(bits[i])).round().clamp(0.0, steps(bits[i])) as u32
                }),
                largest: 0,
            },
            Quantizer::Rest(_) | Quantizer::Float => GridKey::default(),
        }
    }

    /// The value grid key `key` stands for (zeros for float values, which are not on a grid).
    fn dequantize(&self, key: GridKey) -> [f32; 4] {
        match *self {
            Quantizer::Rest(r) => r,
            Quantizer::Rotation { bits } => from_smallest_three(key.q.map(|q| f64::from(q) / steps(bits)), key.largest),
            Quantizer::Grid { min, extent, bits } => {
                let c = |i: usize| {
                    if bits[i] == 0 {
                        min[i]
                    } else {
                        (f64::from(min[i]) + f64::from(extent[i]) * f64::from(key.q[i]) / steps(bits[i])) as f32
                    }
                };
                [c(0), c(1), c(2), 0.0]
            }
            Quantizer::Float => [0.0; 4],
        }
    }

    /// The value the reader will get back for `v`.
    fn round_trip(&self, v: &[f32]) -> [f32; 4] {
        match self {
            Quantizer::Float => {
                let mut out = [0.0; 4];
                out[..v.len()].copy_from_slice(v);
                out
            }
            _ => self.dequantize(self.quantize(v)),
        }
    }
}

/// The smallest three components of unit `v` (its largest made positive),
/// each over `[0, 1]`, and the largest one's index.
fn smallest_three(v: &[f32]) -> ([f64; 3], u8) {
    let a = Quat::from_xyzw(v[0], v[1], v[2], v[3]).normalize().to_array().map(f64::from);
    let mut largest = 0;
    for i in 1..4 {
        if a[i].abs() > a[largest].abs() {
            largest = i;
        }
    }
    let sign = if a[largest] < 0.0 { -1.0 } else { 1.0 };
    let mut out = [0.0; 3];
    let mut j = 0;
    for (i, c) in a.iter().enumerate() {
        if i != largest {
            out[j] = (c * sign / SQRT1_2).clamp(-1.0, 1.0) * 0.5 + 0.5;
            j += 1;
        }
    }
    (out, largest as u8)
}

/// The rotation whose smallest three components are `units` (each over
/// `[0, 1]`) and whose largest, positive, is at index `largest` (0 to 3).
fn from_smallest_three(units: [f64; 3], largest: u8) -> [f32; 4] {
    let largest = usize::from(largest & 3);
    let mut a = [0.0f64; 4];
    let mut j = 0;
    let mut sum = 0.0;
    for (i, c) in a.iter_mut().enumerate() {
        if i != largest {
            *c = (units[j] * 2.0 - 1.0) * SQRT1_2;
            sum += *c * *c;
            j += 1;
        }
    }
    a[largest] = (1.0 - sum).max(0.0).sqrt();
    // Never zero: if the three leave nothing for the largest, they are not all zero.
    let norm = a.iter().map(|c| c * c).sum::<f64>().sqrt();
    a.map(|c| (c / norm) as f32)
}

/// The error between two values of `property`: distance (translation),
/// largest component difference (scale) or angle in radians (rotation).
fn error(property: TrackProperty, a: &[f32], b: &[f32]) -> f32 {
    match property {
        TrackProperty::Translation => Vec3::from_slice(a).distance(Vec3::from_slice(b)),
        TrackProperty::Scale => (Vec3::from_slice(a) - Vec3::from_slice(b)).abs().max_element(),
        TrackProperty::Rotation => angle_between(Quat::from_slice(a).normalize(), Quat::from_slice(b).normalize()),
    }
}

/// The angle between two unit rotations, radians, accurate near zero (the
/// `acos` of a dot product loses everything below about 0.05° in `f32`).
#[must_use]
pub fn angle_between(a: Quat, b: Quat) -> f32 {
    let d = a.conjugate() * b;
    2.0 * d.xyz().length().atan2(d.w.abs())
}

fn interpolate(property: TrackProperty, a: &[f32], b: &[f32], t: f32) -> [f32; 4] {
    match property {
        TrackProperty::Rotation => Quat::from_slice(a).slerp(Quat::from_slice(b), t).to_array(),
        _ => {
            let v = Vec3::from_slice(a).lerp(Vec3::from_slice(b), t);
            [v.x, v.y, v.z, 0.0]
        }
    }
}

/// The keys kept of a linear or step track whose quantized values are `q`.
fn reduce(track: &Track, q: &[[f32; 4]], tol: TrackTolerance) -> Vec<usize> {
    let n = track.key_count();
    let c = track.property.components();
    if n <= 2 {
        return (0..n).collect();
    }
    let within = |a: usize, b: usize| -> bool {
        (a + 1..b).all(|k| {
            let v = track.key_value(k);
            let approx = match track.interpolation {
                Interpolation::Step => q[a],
                _ => {
                    let span = track.times[b] - track.times[a];
                    if span <= 0.0 {
                        return false;
                    }
                    interpolate(track.property, &q[a][..c], &q[b][..c], (track.times[k] - track.times[a]) / span)
                }
            };
            error(track.property, &approx[..c], v) <= tol.0
        })
    };
    let mut kept = vec![0];
    let mut a = 0;
    for b in 2..n {
        if b - a > MAX_SPAN || !within(a, b) {
            kept.push(b - 1);
            a = b - 1;
        }
    }
    kept.push(n - 1);
    kept
}

/// Statistics of one encoded track.
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct KeyCounts {
    pub before: u64,
    pub after: u64,
}

/// What will be written of one track: the keys kept and their quantizer
/// (`None`: a cubic-spline track, every key as `f32`).
#[derive(Debug, Clone)]
pub(super) struct TrackPlan {
    pub kept: Vec<usize>,
    pub quantizer: Option<Quantizer>,
}

/// Quantizes and reduces `track` within `tol`; `skeleton` has the rest
/// values a track that does not move is stored as.
pub(super) fn plan(track: &Track, tol: TrackTolerance, skeleton: &Skeleton) -> TrackPlan {
    let n = track.key_count();
    if track.interpolation == Interpolation::CubicSpline {
        return TrackPlan { kept: (0..n).collect(), quantizer: None };
    }
    let quantizer = Quantizer::for_track(track, tol, rest_value(skeleton, track.node, track.property));
    let kept = if let Quantizer::Rest(_) = quantizer {
        let mut ends = vec![0, n - 1];
        ends.dedup();
        ends
    } else {
        let q: Vec<[f32; 4]> = (0..n).map(|k| quantizer.round_trip(track.key_value(k))).collect();
        reduce(track, &q, tol)
    };
    TrackPlan { kept, quantizer: Some(quantizer) }
}

/// How a track's grid integers are packed: every key (order 0) or the
/// keys before `order` on the grid's bits, every later one as the zigzag of
/// its difference from a prediction (order 1: the key before; order 2: the
/// two before, extrapolated) on `widths[i]` bits. A difference too large for
/// its width (the width's all-ones value is the escape) is followed by the
/// key's value on the grid's bits: a rotation whose largest component
/// changes, or a gap the reduction left, then does not widen every key.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Packing {
    order: u8,
    widths: [u8; 3],
}

fn zigzag(r: i64) -> u64 {
    ((r << 1) ^ (r >> 63)) as u64
}

fn unzigzag(z: u64) -> i64 {
    (z >> 1) as i64 ^ -((z & 1) as i64)
}

/// The escape value of a `width`-bit residual (none for width 0).
fn escape(width: u8) -> u64 {
    (1u64 << width) - 1
}

/// Component `i` of key `k` as predicted from the keys before it.
fn predict(keys: &[GridKey], k: usize, i: usize, order: u8) -> i64 {
    match order {
        0 => 0,
        1 => i64::from(keys[k - 1].q[i]),
        _ => 2 * i64::from(keys[k - 1].q[i]) - i64::from(keys[k - 2].q[i]),
    }
}

/// The residual width for `residuals` (zigzagged) that takes the fewest
/// bits, escapes included, with its cost.
fn width_for(residuals: &[u64], bits: u8) -> (u8, u64) {
    let mut best = (0, u64::MAX);
    for width in 0..=MAX_WIDTH {
        let escaped = residuals.iter().filter(|z| width == 0 && **z > 0 || width > 0 && **z >= escape(width)).count();
        if width == 0 && escaped > 0 {
            continue;
        }
        let cost = u64::from(width) * residuals.len() as u64 + u64::from(bits) * escaped as u64;
        if cost < best.1 {
            best = (width, cost);
        }
    }
    best
}

/// The packing of `keys` on a grid of `bits` that takes the fewest bits.
fn packing(keys: &[GridKey], bits: [u8; 3]) -> Packing {
    let raw: u64 = bits.iter().map(|b| u64::from(*b)).sum();
    let mut best = (raw * keys.len() as u64, Packing::default());
    for order in 1..=2u8 {
        let first = usize::from(order).min(keys.len());
        let mut cost = raw * first as u64;
        let mut widths = [0; 3];
        for i in 0..3 {
            let residuals: Vec<u64> =
                (first..keys.len()).map(|k| zigzag(i64::from(keys[k].q[i]) - predict(keys, k, i, order))).collect();
            let (width, c) = width_for(&residuals, bits[i]);
            widths[i] = width;
            cost += c;
        }
        if cost < best.0 {
            best = (cost, Packing { order, widths });
        }
    }
    best.1
}

fn property_code(p: TrackProperty) -> u8 {
    match p {
        TrackProperty::Translation => 0,
        TrackProperty::Rotation => 1,
        TrackProperty::Scale => 2,
    }
}

/// The format's code of an interpolation (joint and morph tracks alike).
pub(super) fn interpolation_code(i: Interpolation) -> u8 {
    match i {
        Interpolation::Step => 0,
        Interpolation::Linear => 1,
        Interpolation::CubicSpline => 2,
    }
}

/// The interpolation of code `code`, if it names one.
pub(super) fn interpolation_from_code(code: u8) -> Option<Interpolation> {
    match code {
        0 => Some(Interpolation::Step),
        1 => Some(Interpolation::Linear),
        2 => Some(Interpolation::CubicSpline),
        _ => None,
    }
}

/// Writes `track` as `plan` says, against the clip's `timeline` (the
/// sorted distinct times of every kept key).
pub(super) fn write_track(
    w: &mut Writer,
    track: &Track,
    plan: &TrackPlan,
    timeline: &[f32],
    skeleton: &Skeleton,
) -> KeyCounts {
    w.varint(track.node);
    // The name the skeleton gives the node is not repeated (tag 2).
    let name_tag = match track.node_name.as_deref() {
        Some(n) if skeleton_name(skeleton, track.node) == Some(n) => 2,
        Some(_) => 1,
        None => 0,
    };
    let encoding = u8::from(plan.quantizer.is_some());
    w.u8(name_tag | property_code(track.property) << 2 | interpolation_code(track.interpolation) << 4 | encoding << 6);
    if let (1, Some(name)) = (name_tag, track.node_name.as_deref()) {
        w.str(name);
    }
    let kept = &plan.kept;
    let counts = KeyCounts { before: track.key_count() as u64, after: kept.len() as u64 };
    let Some(quant) = plan.quantizer else {
        w.f32s(&track.times);
        w.f32s(&track.values);
        return counts;
    };
    w.varlen(kept.len());
    w.u8(quant.tag());
    let keys: Vec<GridKey> = kept.iter().map(|&k| quant.quantize(track.key_value(k))).collect();
    let largest_mode = match keys.first() {
        Some(first) if keys.iter().all(|k| k.largest == first.largest) => first.largest,
        _ => LARGEST_PER_KEY,
    };
    match quant {
        Quantizer::Rest(_) | Quantizer::Float => {}
        Quantizer::Rotation { bits } => {
            w.u8(bits);
            w.u8(largest_mode);
        }
        Quantizer::Grid { min, extent, bits } => {
            for i in 0..3 {
                w.u8(bits[i]);
                w.f32(min[i]);
                if bits[i] > 0 {
                    w.f32(extent[i]);
                }
            }
        }
    }
    let grid = quant.grid_bits();
    let pack = grid.map_or_else(Packing::default, |bits| packing(&keys, bits));
    if grid.is_some() {
        w.u8(pack.order);
        pack.widths.iter().for_each(|v| w.u8(*v));
    }
    let indices: Vec<u64> =
        kept.iter().map(|&k| timeline.partition_point(|t| t.total_cmp(&track.times[k]).is_lt()) as u64).collect();
    let gap_width = indices.windows(2).map(|p| bit_width(p[1] - p[0] - 1)).max().unwrap_or(0);
    w.u8(gap_width);
    let mut bw = BitWriter::default();
    bw.put(indices[0], bit_width(timeline.len() as u64 - 1));
    for p in indices.windows(2) {
        bw.put(p[1] - p[0] - 1, gap_width);
    }
    if let Some(bits) = grid {
        put_keys(
            &mut bw,
            &keys,
            bits,
            pack,
            matches!(quant, Quantizer::Rotation { .. }) && largest_mode == LARGEST_PER_KEY,
        );
    }
    let stream = bw.finish();
    w.varlen(stream.len());
    w.bytes.extend_from_slice(&stream);
    if quant == Quantizer::Float {
        for &k in kept {
            track.key_value(k).iter().for_each(|v| w.f32(*v));
        }
    }
    counts
}

/// Appends grid `keys` packed as `pack` says (with their largest
/// components first when `largest_per_key`).
fn put_keys(bw: &mut BitWriter, keys: &[GridKey], bits: [u8; 3], pack: Packing, largest_per_key: bool) {
    if largest_per_key {
        keys.iter().for_each(|k| bw.put(u64::from(k.largest), 2));
    }
    for (k, key) in keys.iter().enumerate() {
        for (i, (&b, &width)) in bits.iter().zip(&pack.widths).enumerate() {
            let q = u64::from(key.q[i]);
            if pack.order == 0 || k < usize::from(pack.order) {
                bw.put(q, b);
                continue;
            }
            let z = zigzag(i64::from(key.q[i]) - predict(keys, k, i, pack.order));
            if width > 0 && z >= escape(width) {
                bw.put(escape(width), width);
                bw.put(q, b);
            } else {
                bw.put(z, width);
            }
        }
    }
}

/// Reads `n` grid keys written by [`put_keys`]; `largest_mode` is the
/// rotation's largest-component byte (0 for grids). `Err` names what is wrong.
fn get_keys(
    bits: &mut BitReader<'_>,
    n: usize,
    grid_bits: [u8; 3],
    pack: Packing,
    largest_mode: u8,
) -> Result<Vec<GridKey>, String> {
    let past_end = || "track stream: past its end".to_owned();
    let mut keys: Vec<GridKey> = vec![GridKey { q: [0; 3], largest: largest_mode }; n];
    if largest_mode == LARGEST_PER_KEY {
        for key in &mut keys {
            key.largest = bits.get(2).ok_or_else(past_end)? as u8;
        }
    }
    for k in 0..n {
        for (i, (&b, &width)) in grid_bits.iter().zip(&pack.widths).enumerate() {
            let q = if pack.order == 0 || k < usize::from(pack.order) {
                bits.get(b).ok_or_else(past_end)? as i64
            } else {
                match bits.get(width).ok_or_else(past_end)? {
                    z if width > 0 && z == escape(width) => bits.get(b).ok_or_else(past_end)? as i64,
                    z => predict(&keys, k, i, pack.order) + unzigzag(z),
                }
            };
            if !(0..=steps(b) as i64).contains(&q) {
                return Err(format!("key {k}: grid value {q} outside {b} bits"));
            }
            keys[k].q[i] = q as u32;
        }
    }
    Ok(keys)
}

/// Largest key count of one track (and timeline) a reader accepts.
pub(super) const MAX_KEYS: usize = 1 << 24;

/// Reads one track written by [`write_track`].
pub(super) fn read_track(r: &mut Cursor<'_>, timeline: &[f32], skeleton: &Skeleton) -> Result<Track, BakedProblem> {
    let node = r.varint("track node")?;
    let head = r.u8("track header")?;
    let node_name = match head & 3 {
        0 => None,
        1 => Some(r.str("track node name")?),
        2 => Some(
            skeleton_name(skeleton, node)
                .ok_or_else(|| r.corrupt(format!("track node {node} has no name in the skeleton")))?
                .to_owned(),
        ),
        t => return Err(r.corrupt(format!("track node name tag {t} (0, 1 or 2)"))),
    };
    let property = match head >> 2 & 3 {
        0 => TrackProperty::Translation,
        1 => TrackProperty::Rotation,
        2 => TrackProperty::Scale,
        p => return Err(r.corrupt(format!("track property {p} (0, 1 or 2)"))),
    };
    let code = head >> 4 & 3;
    let interpolation =
        interpolation_from_code(code).ok_or_else(|| r.corrupt(format!("track interpolation {code} (0, 1 or 2)")))?;
    let mut track = Track { node, node_name, property, interpolation, times: Vec::new(), values: Vec::new() };
    match head >> 6 {
        0 => {
            track.times = r.f32s("track times", MAX_KEYS)?;
            track.values = r.f32s("track values", MAX_KEYS.saturating_mul(12))?;
        }
        1 => {
            if interpolation == Interpolation::CubicSpline {
                return Err(r.corrupt("a quantized cubic-spline track"));
            }
            read_quantized(r, timeline, skeleton, &mut track)?;
        }
        e => return Err(r.corrupt(format!("track encoding {e} (0 or 1)"))),
    }
    Ok(track)
}

/// Reads a quantizer's parameters.
fn read_quantizer(
    r: &mut Cursor<'_>,
    skeleton: &Skeleton,
    node: u32,
    property: TrackProperty,
) -> Result<(Quantizer, u8), BakedProblem> {
    let rotation = property == TrackProperty::Rotation;
    Ok(match r.u8("track quantizer")? {
        0 => {
            let rest = rest_value(skeleton, node, property)
                .ok_or_else(|| r.corrupt(format!("a rest-valued track of node {node}, which the skeleton lacks")))?;
            (Quantizer::Rest(rest), 0)
        }
        1 if rotation => {
            let bits = r.u8("rotation bits")?;
            if !(MIN_ROTATION_BITS..=MAX_BITS).contains(&bits) {
                return Err(r.corrupt(format!("rotation bits {bits} ({MIN_ROTATION_BITS} to {MAX_BITS})")));
            }
            let largest = r.u8("rotation largest component")?;
            if largest > LARGEST_PER_KEY {
                return Err(r.corrupt(format!("rotation largest component {largest} (0 to {LARGEST_PER_KEY})")));
            }
            (Quantizer::Rotation { bits }, largest)
        }
        2 if !rotation => {
            let (mut min, mut extent, mut bits) = ([0.0; 3], [0.0; 3], [0; 3]);
            for i in 0..3 {
                bits[i] = r.u8("grid bits")?;
                if bits[i] > MAX_BITS {
                    return Err(r.corrupt(format!("grid bits {} (at most {MAX_BITS})", bits[i])));
                }
                min[i] = r.finite("grid minimum")?;
                if bits[i] > 0 {
                    extent[i] = r.finite("grid extent")?;
                }
            }
            (Quantizer::Grid { min, extent, bits }, 0)
        }
        3 => (Quantizer::Float, 0),
        q => return Err(r.corrupt(format!("track quantizer {q} does not fit a {} track", property.name()))),
    })
}

/// Reads the keys of a quantized track into `track`.
fn read_quantized(
    r: &mut Cursor<'_>,
    timeline: &[f32],
    skeleton: &Skeleton,
    track: &mut Track,
) -> Result<(), BakedProblem> {
    let c = track.property.components();
    // Kept keys have distinct times of the timeline, so the timeline (four
    // bytes a time) bounds what is allocated here.
    let n = r.varint("track keys")? as usize;
    if n == 0 || n > timeline.len() {
        return Err(r.corrupt(format!("track keys: {n} (1 to the clip timeline's {})", timeline.len())));
    }
    let (quant, largest_mode) = read_quantizer(r, skeleton, track.node, track.property)?;
    let grid = quant.grid_bits();
    let mut pack = Packing::default();
    if grid.is_some() {
        pack.order = r.u8("packing order")?;
        if pack.order > 2 {
            return Err(r.corrupt(format!("packing order {} (0, 1 or 2)", pack.order)));
        }
        for width in &mut pack.widths {
            *width = r.u8("packing width")?;
            if *width > MAX_WIDTH || (pack.order == 0 && *width != 0) {
                return Err(r.corrupt(format!("packing width {width} (at most {MAX_WIDTH}; 0 for order 0)")));
            }
        }
    }
    let gap_width = r.u8("timeline gap width")?;
    if gap_width > MAX_WIDTH {
        return Err(r.corrupt(format!("timeline gap width {gap_width} (at most {MAX_WIDTH})")));
    }
    let stream_len = r.varint("track stream length")? as usize;
    let at = r.offset();
    let mut bits = BitReader::new(r.take(stream_len, "track stream")?);
    let corrupt = |what: String| BakedProblem::Corrupt { offset: at as u64, what };
    let past_end = || corrupt("track stream: past its end".to_owned());
    track.times.reserve_exact(n);
    let mut index = bits.get(bit_width(timeline.len() as u64 - 1)).ok_or_else(past_end)?;
    for k in 0..n {
        if k > 0 {
            index = index.saturating_add(bits.get(gap_width).ok_or_else(past_end)? + 1);
        }
        let t = usize::try_from(index).ok().and_then(|i| timeline.get(i));
        track.times.push(*t.ok_or_else(|| corrupt(format!("time index {index} past the timeline")))?);
    }
    track.values.reserve_exact(n * c);
    if let Some(grid_bits) = grid {
        for (k, key) in get_keys(&mut bits, n, grid_bits, pack, largest_mode).map_err(corrupt)?.into_iter().enumerate()
        {
            let v = quant.dequantize(key);
            if !v.iter().all(|x| x.is_finite()) {
                return Err(corrupt(format!("key {k}: a decoded value is not finite")));
            }
            track.values.extend_from_slice(&v[..c]);
        }
    } else if let Quantizer::Rest(v) = quant {
        (0..n).for_each(|_| track.values.extend_from_slice(&v[..c]));
    }
    if bits.unread() >= 8 {
        return Err(corrupt(format!("track stream: {} unread bits", bits.unread())));
    }
    if quant == Quantizer::Float {
        if n.saturating_mul(4 * c) > r.remaining() {
            return Err(r.corrupt("float keys: past the end"));
        }
        for _ in 0..n * c {
            track.values.push(r.finite("float key")?);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use zoa_anim_core::glam::EulerRot;

    fn track(property: TrackProperty, times: Vec<f32>, values: Vec<f32>) -> Track {
        Track { node: 0, node_name: None, property, interpolation: Interpolation::Linear, times, values }
    }

    fn skeleton() -> Skeleton {
        let joint = zoa_anim_core::Joint {
            name: Some("root".into()),
            node: 0,
            parent: None,
            rest: zoa_anim_core::Transform { translation: Vec3::new(0.0, 1.0, 0.0), ..Default::default() },
            inverse_bind: zoa_anim_core::glam::Mat4::IDENTITY,
        };
        Skeleton::new("s", vec![joint]).unwrap()
    }

    /// `track` written as [`plan`] says and read back, with the bytes it took.
    fn round_trip(t: &Track, tol: f32) -> (Track, TrackPlan, usize) {
        let s = skeleton();
        let p = plan(t, TrackTolerance(tol), &s);
        let mut timeline: Vec<f32> = p.kept.iter().map(|&k| t.times[k]).collect();
        timeline.sort_by(f32::total_cmp);
        let mut w = Writer::default();
        write_track(&mut w, t, &p, &timeline, &s);
        let mut r = Cursor::new(&w.bytes, 0);
        let back = read_track(&mut r, &timeline, &s).unwrap();
        r.end("track").unwrap();
        (back, p, w.bytes.len())
    }

    fn rotation_error(q: &Quantizer, v: Quat) -> f32 {
        error(TrackProperty::Rotation, &v.to_array(), &q.round_trip(&v.to_array()))
    }

    #[test]
    fn rotation_grids_round_trip_within_their_step() {
        for (bits, bound) in [(16u8, 5e-3f32.to_radians()), (20, 3.2e-6), (24, 4e-7)] {
            let q = Quantizer::Rotation { bits };
            let mut worst = 0.0f32;
            for (i, axis) in [Vec3::X, Vec3::Y, Vec3::Z, Vec3::new(1.0, -2.0, 0.5).normalize()].iter().enumerate() {
                for step in 0..256 {
                    worst = worst
                        .max(rotation_error(&q, Quat::from_axis_angle(*axis, step as f32 * 0.05 - 6.0 + i as f32)));
                }
            }
            assert!(worst < bound, "{bits} bits: {worst} rad");
        }
    }

    #[test]
    fn a_tighter_tolerance_takes_more_rotation_bits_then_floats() {
        let keys: Vec<f32> = (0..8).flat_map(|k| Quat::from_rotation_y(k as f32 * 0.37).to_array()).collect();
        let t = track(TrackProperty::Rotation, (0..8).map(|k| k as f32 / 8.0).collect(), keys);
        let bits = |tol: f32| match Quantizer::for_track(&t, TrackTolerance(tol), None) {
            Quantizer::Rotation { bits } => Some(bits),
            _ => None,
        };
        let (coarse, fine) = (bits(1e-3).unwrap(), bits(1e-6).unwrap());
        assert!(coarse < fine, "{coarse} {fine}");
        assert!(coarse <= 14 && fine >= 20, "{coarse} {fine}");
        assert_eq!(Quantizer::for_track(&t, TrackTolerance(1e-9), None), Quantizer::Float);
    }

    #[test]
    fn a_straight_line_keeps_its_ends_and_a_kink_keeps_its_corner() {
        let s = skeleton();
        let times: Vec<f32> = (0..11).map(|k| k as f32 * 0.1).collect();
        let line: Vec<f32> = times.iter().flat_map(|t| [*t, 0.0, 0.0]).collect();
        let t = track(TrackProperty::Translation, times.clone(), line);
        assert_eq!(plan(&t, TrackTolerance(1e-4), &s).kept, vec![0, 10]);
        let kink: Vec<f32> = times.iter().map(|t| (t - 0.5).abs()).flat_map(|y| [0.0, y, 0.0]).collect();
        let t = track(TrackProperty::Translation, times, kink);
        assert_eq!(plan(&t, TrackTolerance(1e-4), &s).kept, vec![0, 5, 10]);
    }

    #[test]
    fn grids_take_bits_per_component_and_a_range_past_thirty_bits_stays_float() {
        let t = track(TrackProperty::Translation, vec![0.0, 1.0], vec![0.0, 2.0, 0.0, 1e6, 2.0, 0.0]);
        assert_eq!(Quantizer::for_track(&t, TrackTolerance(1e-4), None), Quantizer::Float);
        let t = track(TrackProperty::Translation, vec![0.0, 1.0], vec![0.0, 2.0, 0.0, 1.0, 2.0, 0.0]);
        let Quantizer::Grid { bits, min, .. } = Quantizer::for_track(&t, TrackTolerance(1e-4), None) else {
            panic!("not a grid");
        };
        assert_eq!((bits[1], bits[2], min[1]), (0, 0, 2.0));
        assert!((14..=16).contains(&bits[0]), "{bits:?}");
    }

    #[test]
    fn a_track_at_rest_stores_no_values() {
        let times: Vec<f32> = (0..30).map(|k| k as f32 / 30.0).collect();
        let at_rest: Vec<f32> = times.iter().flat_map(|_| [0.0, 1.0 + 1e-6, 0.0]).collect();
        let mut t = track(TrackProperty::Translation, times, at_rest);
        t.node_name = Some("root".into());
        let (back, p, bytes) = round_trip(&t, 1e-4);
        assert_eq!(p.quantizer, Some(Quantizer::Rest([0.0, 1.0, 0.0, 0.0])));
        assert_eq!(back.times, vec![0.0, 29.0 / 30.0]);
        assert_eq!(back.values, vec![0.0, 1.0, 0.0, 0.0, 1.0, 0.0]);
        // node, header, count, quantizer, gap width, stream length, one stream byte.
        assert_eq!(bytes, 7);
    }

    /// Whatever the motion, the packed keys read back exactly as quantized,
    /// and dense smooth motion packs into far fewer bits than the grid's.
    #[test]
    fn packing_is_exact_and_smooth_motion_packs_small() {
        let times: Vec<f32> = (0..120).map(|k| k as f32 / 30.0).collect();
        let mut noise = 0x9e37_79b9u32;
        let mut next = || {
            noise ^= noise << 13;
            noise ^= noise >> 17;
            noise ^= noise << 5;
            noise as f32 / u32::MAX as f32
        };
        let smooth: Vec<f32> =
            times.iter().flat_map(|t| Quat::from_euler(EulerRot::XYZ, t.sin(), t * 0.7, 0.3).to_array()).collect();
        let rough: Vec<f32> = times
            .iter()
            .flat_map(|_| Quat::from_euler(EulerRot::XYZ, next() * 6.0, next() * 3.0, next()).to_array())
            .collect();
        let translation: Vec<f32> = times.iter().flat_map(|t| [t * 3.0, t.cos(), -1.0]).collect();
        let mut rotation_bytes = Vec::new();
        for (property, values, tol) in [
            (TrackProperty::Rotation, smooth, 1e-6f32),
            (TrackProperty::Rotation, rough, 1e-6),
            (TrackProperty::Translation, translation, 1e-5),
        ] {
            let t = track(property, times.clone(), values);
            let (back, p, bytes) = round_trip(&t, tol);
            let q = p.quantizer.unwrap();
            let kept: Vec<f32> =
                p.kept.iter().flat_map(|&k| q.round_trip(t.key_value(k))[..property.components()].to_vec()).collect();
            assert_eq!(back.values, kept);
            assert_eq!(back.times, p.kept.iter().map(|&k| t.times[k]).collect::<Vec<_>>());
            if let Quantizer::Rotation { bits } = q {
                rotation_bytes.push((bytes, (p.kept.len() * usize::from(bits) * 3).div_ceil(8)));
            }
        }
        let [(smooth, smooth_grid), (rough, rough_grid)] = rotation_bytes[..] else { panic!("{rotation_bytes:?}") };
        // The smooth track packs to well under its grid bits; noise costs the grid and the largest components' 2 bits a key.
        assert!(smooth * 10 < smooth_grid * 7, "{rotation_bytes:?}");
        assert!(rough <= rough_grid + 120 / 4 + 16, "{rotation_bytes:?}");
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(96))]

        /// Any linear track, any tolerance: what is read back is what the
        /// writer quantized, and every original key is within the tolerance
        /// of the read track sampled at its time.
        #[test]
        fn packed_tracks_read_back_as_quantized_and_within_the_tolerance(
            rotation in proptest::bool::ANY,
            keys in proptest::collection::vec(proptest::array::uniform4(-2.0f32..2.0), 1..60),
            smooth in 0.0f32..1.0,
            tol_exp in -7.0f32..-2.0,
        ) {
            let times: Vec<f32> = (0..keys.len()).map(|k| k as f32 / 30.0).collect();
            // Mix a smooth curve with the noise so prediction and escapes both happen.
            let values: Vec<f32> = keys
                .iter()
                .enumerate()
                .flat_map(|(k, v)| {
                    let s = (k as f32 * 0.1).sin();
                    let mixed = v.map(|c| c * (1.0 - smooth) + s * smooth);
                    if rotation {
                        let q = Quat::from_array(mixed);
                        let q = if q.length() > 1e-3 { q.normalize() } else { Quat::IDENTITY };
                        q.to_array().to_vec()
                    } else {
                        mixed[..3].to_vec()
                    }
                })
                .collect();
            let property = if rotation { TrackProperty::Rotation } else { TrackProperty::Translation };
            let tol = 10f32.powf(tol_exp);
            let t = track(property, times, values);
            let (back, p, _) = round_trip(&t, tol);
            let q = p.quantizer.unwrap();
            let c = property.components();
            let kept: Vec<f32> = p.kept.iter().flat_map(|&k| q.round_trip(t.key_value(k))[..c].to_vec()).collect();
            proptest::prop_assert_eq!(&back.values, &kept);
            for k in 0..t.key_count() {
                let at = t.times[k];
                let i = back.times.partition_point(|x| *x <= at).clamp(1, back.key_count().max(2) - 1);
                let v = if back.key_count() == 1 {
                    back.key_value(0)[..c].to_vec()
                } else {
                    let (a, b) = (back.key_value(i - 1), back.key_value(i));
                    let u = ((at - back.times[i - 1]) / (back.times[i] - back.times[i - 1])).clamp(0.0, 1.0);
                    interpolate(property, a, b, u)[..c].to_vec()
                };
                let e = error(property, &v, t.key_value(k));
                proptest::prop_assert!(e <= tol * 1.01 + 1e-6, "key {}: error {} over {}", k, e, tol);
            }
        }

        /// A packed track with bytes changed or cut: an error or a track, never a panic.
        #[test]
        fn changed_track_bytes_never_panic(
            changes in proptest::collection::vec((0usize..4096, 1u8..=255), 1..4),
            cut in proptest::option::of(0usize..4096),
            rotation in proptest::bool::ANY,
        ) {
            let times: Vec<f32> = (0..40).map(|k| k as f32 / 30.0).collect();
            let values: Vec<f32> = if rotation {
                times.iter().flat_map(|t| Quat::from_rotation_y(t * 4.0 + (t * 9.0).sin()).to_array()).collect()
            } else {
                times.iter().flat_map(|t| [t.sin(), 1.0, t * t]).collect()
            };
            let property = if rotation { TrackProperty::Rotation } else { TrackProperty::Translation };
            let t = track(property, times.clone(), values);
            let s = skeleton();
            let p = plan(&t, TrackTolerance(1e-5), &s);
            let mut w = Writer::default();
            write_track(&mut w, &t, &p, &times, &s);
            let mut bytes = w.bytes;
            for (at, x) in changes {
                let n = bytes.len();
                bytes[at % n] ^= x;
            }
            if let Some(cut) = cut {
                bytes.truncate(cut % (bytes.len() + 1));
            }
            let _ = read_track(&mut Cursor::new(&bytes, 0), &times, &s);
        }
    }

    #[test]
    fn zigzag_round_trips_the_extremes() {
        for r in [0i64, 1, -1, (1 << 31) - 1, -(1 << 31) + 2, 12345, -54321] {
            assert_eq!(unzigzag(zigzag(r)), r);
            assert!(bit_width(zigzag(r)) <= MAX_WIDTH);
        }
    }
}

//! Key reduction and quantization of one joint track, and its encoding.
//!
//! Per track, in this order:
//! 1. **Quantize** every key: rotations as the *smallest three* components
//!    on 16 bits each (the largest one's index in 2 bits, its sign made
//!    positive; ozz's scheme), or on 20 bits each (one 64-bit word a key)
//!    when 16 bits miss the tolerance (a long chain, or a model in large
//!    units, asks for micro-radians), translations and scales on 16 bits per
//!    component over the track's own range when that range's half step is at
//!    most a quarter of the tolerance (else kept as `f32`).
//! 2. **Reduce**: walk the keys and drop every key that the interpolation of
//!    the kept (quantized) neighbours reproduces within the tolerance at that
//!    key's time, compared with the *original* value, so quantization and
//!    reduction share one error budget (ozz's `AnimationOptimizer` idea).
//!    Linear interpolation error between keys is largest at a key, so
//!    checking at the original keys bounds it everywhere. The first and last
//!    keys always stay (the clip keeps its start and duration).
//!
//! Cubic-spline tracks are stored as they are (`f32`, every key).

use zoa_anim_core::glam::{Quat, Vec3};
use zoa_anim_core::{Interpolation, Skeleton, Track, TrackProperty};

use super::BakedProblem;
use super::codec::{Cursor, Writer};

/// Longest run of keys one kept pair may span (bounds the reduction's work).
const MAX_SPAN: usize = 4096;

/// `1 / sqrt(2)`: the range of a smallest-three component.
const SQRT1_2: f32 = std::f32::consts::FRAC_1_SQRT_2;

/// The name `skeleton` gives glTF node `node`, if it has the node and the node a name.
fn skeleton_name(skeleton: &Skeleton, node: u32) -> Option<&str> {
    skeleton.find_node(node).and_then(|j| skeleton.joints()[j].name.as_deref())
}

/// The tolerance of one track, in its property's units (metres, radians, scale factor).
#[derive(Debug, Clone, Copy)]
pub(super) struct TrackTolerance(pub f32);

/// How a track's values are stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Encoding {
    /// Every key as `f32` times and values.
    Raw = 0,
    /// Timeline indices and quantized values.
    Quantized = 1,
}

/// A track's quantizer.
#[derive(Debug, Clone, Copy)]
pub(super) enum Quantizer {
    /// Smallest three, 16 bits each.
    Rotation,
    /// Smallest three, 20 bits each, and the largest's index: one `u64`.
    FineRotation,
    /// 16 bits per component over `[min, min + extent]`.
    Range { min: Vec3, extent: Vec3 },
    /// `f32` values (16 bits cannot hold the track within the tolerance).
    Float,
}

impl Quantizer {
    /// The most compact quantizer whose rounding error stays within half
    /// the tolerance at every key (else `f32`): the rest is the reduction's.
    fn for_track(track: &Track, tol: TrackTolerance) -> Quantizer {
        let c = track.property.components();
        let fits = |q: &Quantizer| {
            (0..track.key_count()).all(|k| {
                let v = track.key_value(k);
                error(track.property, &q.round_trip(v)[..c], v) <= tol.0 * 0.5
            })
        };
        let q = Quantizer::compact(track, tol);
        if fits(&q) {
            return q;
        }
        if track.property == TrackProperty::Rotation && fits(&Quantizer::FineRotation) {
            return Quantizer::FineRotation;
        }
        Quantizer::Float
    }

    fn compact(track: &Track, tol: TrackTolerance) -> Quantizer {
        if track.property == TrackProperty::Rotation {
            return Quantizer::Rotation;
        }
        let (mut min, mut max) = (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY));
        for k in 0..track.key_count() {
            let v = Vec3::from_slice(track.key_value(k));
            min = min.min(v);
            max = max.max(v);
        }
        let extent = max - min;
        // Half a step is the largest rounding error; keep it within a quarter
        // of the tolerance (the rest is the reduction's).
        if extent.max_element() / 65535.0 * 0.5 <= tol.0 * 0.25 {
            Quantizer::Range { min, extent }
        } else {
            Quantizer::Float
        }
    }

    /// The value the reader will get back for `v`.
    fn round_trip(&self, v: &[f32]) -> [f32; 4] {
        match *self {
            Quantizer::Rotation => decode_rotation(encode_rotation(v)),
            // An encoded word always decodes (its top bits are clear).
            Quantizer::FineRotation => decode_fine_rotation(encode_fine_rotation(v)).unwrap_or([0.0, 0.0, 0.0, 1.0]),
            Quantizer::Range { min, extent } => {
                let q = encode_range(Vec3::from_slice(v), min, extent);
                let d = decode_range(q, min, extent);
                [d.x, d.y, d.z, 0.0]
            }
            Quantizer::Float => {
                let mut out = [0.0; 4];
                out[..v.len()].copy_from_slice(v);
                out
            }
        }
    }
}

/// Largest value of a 20-bit smallest-three component.
const FINE_MAX: u32 = (1 << 20) - 1;

/// The smallest three components of unit `v` (its largest made positive),
/// each over `[0, 1]`, and the largest one's index.
fn smallest_three(v: &[f32]) -> ([f32; 3], u8) {
    let q = Quat::from_xyzw(v[0], v[1], v[2], v[3]).normalize();
    let a = q.to_array();
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
/// `[0, 1]`) and whose largest, positive, is at index `largest`.
fn from_smallest_three(units: [f32; 3], largest: u8) -> [f32; 4] {
    let mut a = [0.0f32; 4];
    let mut j = 0;
    let mut sum = 0.0;
    for (i, c) in a.iter_mut().enumerate() {
        if i != largest as usize {
            *c = (units[j] * 2.0 - 1.0) * SQRT1_2;
            sum += *c * *c;
            j += 1;
        }
    }
    a[largest as usize & 3] = (1.0 - sum).max(0.0).sqrt();
    let n = Quat::from_array(a).normalize();
    n.to_array()
}

fn encode_rotation(v: &[f32]) -> ([u16; 3], u8) {
    let (units, largest) = smallest_three(v);
    (units.map(|u| (u * 65535.0).round() as u16), largest)
}

fn decode_rotation((q, largest): ([u16; 3], u8)) -> [f32; 4] {
    from_smallest_three(q.map(|c| f32::from(c) / 65535.0), largest)
}

/// One 64-bit word: the three components in bits 0–19, 20–39 and 40–59,
/// the largest's index in bits 60–61.
fn encode_fine_rotation(v: &[f32]) -> u64 {
    let (units, largest) = smallest_three(v);
    let c = units.map(|u| u64::from((f64::from(u) * f64::from(FINE_MAX)).round() as u32));
    c[0] | c[1] << 20 | c[2] << 40 | u64::from(largest) << 60
}

/// `None` for a word with bits set past bit 61 (written by nothing).
fn decode_fine_rotation(word: u64) -> Option<[f32; 4]> {
    if word >> 62 != 0 {
        return None;
    }
    let c = |k: u32| ((word >> (20 * k)) as u32 & FINE_MAX) as f32 / FINE_MAX as f32;
    Some(from_smallest_three([c(0), c(1), c(2)], (word >> 60) as u8))
}

fn encode_range(v: Vec3, min: Vec3, extent: Vec3) -> [u16; 3] {
    let mut out = [0u16; 3];
    for i in 0..3 {
        out[i] = if extent[i] > 0.0 {
            ((v[i] - min[i]) / extent[i] * 65535.0).round().clamp(0.0, 65535.0) as u16
        } else {
            0
        };
    }
    out
}

fn decode_range(q: [u16; 3], min: Vec3, extent: Vec3) -> Vec3 {
    Vec3::new(
        min.x + extent.x * f32::from(q[0]) / 65535.0,
        min.y + extent.y * f32::from(q[1]) / 65535.0,
        min.z + extent.z * f32::from(q[2]) / 65535.0,
    )
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

/// The timeline index width for `len` distinct times.
fn index_width(len: usize) -> usize {
    if len <= 256 {
        1
    } else if len <= 65536 {
        2
    } else {
        4
    }
}

/// The keys of `track` that will be encoded (all of them for cubic tracks).
pub(super) fn kept_keys(track: &Track, tol: TrackTolerance) -> (Vec<usize>, Option<Quantizer>) {
    if track.interpolation == Interpolation::CubicSpline {
        return ((0..track.key_count()).collect(), None);
    }
    let quant = Quantizer::for_track(track, tol);
    let q: Vec<[f32; 4]> = (0..track.key_count()).map(|k| quant.round_trip(track.key_value(k))).collect();
    (reduce(track, &q, tol), Some(quant))
}

/// Writes `track` with the `kept` keys (from [`kept_keys`]) against `timeline`.
pub(super) fn write_track(
    w: &mut Writer,
    track: &Track,
    (kept, quant): &(Vec<usize>, Option<Quantizer>),
    timeline: &[f32],
    skeleton: &Skeleton,
) -> KeyCounts {
    w.u32(track.node);
    // The name the skeleton gives the node is not repeated (tag 2).
    match track.node_name.as_deref() {
        Some(n) if skeleton_name(skeleton, track.node) == Some(n) => w.u8(2),
        other => w.opt_str(other),
    }
    w.u8(match track.property {
        TrackProperty::Translation => 0,
        TrackProperty::Rotation => 1,
        TrackProperty::Scale => 2,
    });
    w.u8(match track.interpolation {
        Interpolation::Step => 0,
        Interpolation::Linear => 1,
        Interpolation::CubicSpline => 2,
    });
    let counts = KeyCounts { before: track.key_count() as u64, after: kept.len() as u64 };
    let Some(quant) = quant else {
        w.u8(Encoding::Raw as u8);
        w.f32s(&track.times);
        w.f32s(&track.values);
        return counts;
    };
    w.u8(Encoding::Quantized as u8);
    w.len(kept.len());
    let width = index_width(timeline.len());
    for &k in kept {
        let i = timeline.partition_point(|t| t.total_cmp(&track.times[k]).is_lt());
        match width {
            1 => w.u8(i as u8),
            2 => w.u16(i as u16),
            _ => w.u32(i as u32),
        }
    }
    match *quant {
        Quantizer::Rotation => {
            w.u8(0);
            let mut largest = vec![0u8; kept.len().div_ceil(4)];
            for (n, &k) in kept.iter().enumerate() {
                let (q, l) = encode_rotation(track.key_value(k));
                q.iter().for_each(|c| w.u16(*c));
                largest[n / 4] |= l << ((n % 4) * 2);
            }
            w.bytes.extend_from_slice(&largest);
        }
        Quantizer::FineRotation => {
            w.u8(3);
            for &k in kept {
                w.bytes.extend_from_slice(&encode_fine_rotation(track.key_value(k)).to_le_bytes());
            }
        }
        Quantizer::Range { min, extent } => {
            w.u8(1);
            min.to_array().iter().chain(extent.to_array().iter()).for_each(|v| w.f32(*v));
            for &k in kept {
                encode_range(Vec3::from_slice(track.key_value(k)), min, extent).iter().for_each(|c| w.u16(*c));
            }
        }
        Quantizer::Float => {
            w.u8(2);
            for &k in kept {
                track.key_value(k).iter().for_each(|v| w.f32(*v));
            }
        }
    }
    counts
}

/// Largest key count of one track (and timeline) a reader accepts.
pub(super) const MAX_KEYS: usize = 1 << 24;

/// Reads one track written by [`write_track`].
pub(super) fn read_track(r: &mut Cursor<'_>, timeline: &[f32], skeleton: &Skeleton) -> Result<Track, BakedProblem> {
    let node = r.u32("track node")?;
    let node_name = match r.u8("track node name")? {
        0 => None,
        1 => Some(r.str("track node name")?),
        2 => Some(
            skeleton_name(skeleton, node)
                .ok_or_else(|| r.corrupt(format!("track node {node} has no name in the skeleton")))?
                .to_owned(),
        ),
        t => return Err(r.corrupt(format!("track node name tag {t} (0, 1 or 2)"))),
    };
    let property = match r.u8("track property")? {
        0 => TrackProperty::Translation,
        1 => TrackProperty::Rotation,
        2 => TrackProperty::Scale,
        p => return Err(r.corrupt(format!("track property {p} (0, 1 or 2)"))),
    };
    let interpolation = match r.u8("track interpolation")? {
        0 => Interpolation::Step,
        1 => Interpolation::Linear,
        2 => Interpolation::CubicSpline,
        p => return Err(r.corrupt(format!("track interpolation {p} (0, 1 or 2)"))),
    };
    let c = property.components();
    let mut track = Track { node, node_name, property, interpolation, times: Vec::new(), values: Vec::new() };
    match r.u8("track encoding")? {
        0 => {
            track.times = r.f32s("track times", MAX_KEYS)?;
            track.values = r.f32s("track values", MAX_KEYS.saturating_mul(12))?;
        }
        1 => {
            if interpolation == Interpolation::CubicSpline {
                return Err(r.corrupt("a quantized cubic-spline track"));
            }
            let width = index_width(timeline.len());
            let n = r.count("track keys", width + 6, MAX_KEYS)?;
            track.times.reserve_exact(n);
            for _ in 0..n {
                let i = match width {
                    1 => usize::from(r.u8("time index")?),
                    2 => usize::from(r.u16("time index")?),
                    _ => r.u32("time index")? as usize,
                };
                let t = *timeline.get(i).ok_or_else(|| r.corrupt(format!("time index {i} past the timeline")))?;
                track.times.push(t);
            }
            track.values.reserve_exact(n * c);
            read_quantized_values(r, property, n, c, &mut track.values)?;
        }
        e => return Err(r.corrupt(format!("track encoding {e} (0 or 1)"))),
    }
    Ok(track)
}

/// Reads the values of a quantized track's `n` keys of `c` components.
fn read_quantized_values(
    r: &mut Cursor<'_>,
    property: TrackProperty,
    n: usize,
    c: usize,
    values: &mut Vec<f32>,
) -> Result<(), BakedProblem> {
    match (r.u8("track quantizer")?, property) {
        (0, TrackProperty::Rotation) => {
            let raw = r.take(n * 6, "rotation keys")?;
            let largest = r.take(n.div_ceil(4), "rotation largest components")?;
            for k in 0..n {
                let q = [0, 1, 2].map(|j| u16::from_le_bytes([raw[k * 6 + j * 2], raw[k * 6 + j * 2 + 1]]));
                let l = (largest[k / 4] >> ((k % 4) * 2)) & 3;
                values.extend_from_slice(&decode_rotation((q, l)));
            }
        }
        (3, TrackProperty::Rotation) => {
            let raw = r.take(n * 8, "fine rotation keys")?;
            for word in raw.chunks_exact(8) {
                let word = u64::from_le_bytes(word.try_into().unwrap_or_default());
                let q = decode_fine_rotation(word)
                    .ok_or_else(|| r.corrupt(format!("fine rotation key {word:#018x} sets bits past 61")))?;
                values.extend_from_slice(&q);
            }
        }
        (1, TrackProperty::Translation | TrackProperty::Scale) => {
            let mut f = [0.0; 6];
            for v in &mut f {
                *v = r.finite("track range")?;
            }
            let (min, extent) = (Vec3::new(f[0], f[1], f[2]), Vec3::new(f[3], f[4], f[5]));
            let raw = r.take(n * 6, "vector keys")?;
            for k in 0..n {
                let q = [0, 1, 2].map(|j| u16::from_le_bytes([raw[k * 6 + j * 2], raw[k * 6 + j * 2 + 1]]));
                let v = decode_range(q, min, extent);
                if !v.is_finite() {
                    return Err(r.corrupt("a quantized value is not finite"));
                }
                values.extend_from_slice(&v.to_array());
            }
        }
        (2, _) => {
            if n.saturating_mul(4 * c) > r.remaining() {
                return Err(r.corrupt("float keys: past the end"));
            }
            for _ in 0..n * c {
                values.push(r.finite("float key")?);
            }
        }
        (q, _) => {
            return Err(r.corrupt(format!("track quantizer {q} does not fit a {} track", property.name())));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn track(property: TrackProperty, times: Vec<f32>, values: Vec<f32>) -> Track {
        Track { node: 0, node_name: None, property, interpolation: Interpolation::Linear, times, values }
    }

    #[test]
    fn smallest_three_round_trips_within_a_thousandth_of_a_degree() {
        for (i, axis) in [Vec3::X, Vec3::Y, Vec3::Z, Vec3::new(1.0, -2.0, 0.5).normalize()].iter().enumerate() {
            for step in 0..64 {
                let q = Quat::from_axis_angle(*axis, step as f32 * 0.2 - 6.0 + i as f32);
                let back = decode_rotation(encode_rotation(&q.to_array()));
                let err = error(TrackProperty::Rotation, &q.to_array(), &back);
                assert!(err < 1e-3f32.to_radians() * 5.0, "{q:?}: {err} rad");
            }
        }
    }

    #[test]
    fn fine_smallest_three_round_trips_within_three_micro_radians_and_refuses_stray_bits() {
        let mut worst = 0.0f32;
        for (i, axis) in [Vec3::X, Vec3::Y, Vec3::Z, Vec3::new(1.0, -2.0, 0.5).normalize()].iter().enumerate() {
            for step in 0..256 {
                let q = Quat::from_axis_angle(*axis, step as f32 * 0.05 - 6.0 + i as f32);
                let word = encode_fine_rotation(&q.to_array());
                let back = decode_fine_rotation(word).unwrap();
                worst = worst.max(error(TrackProperty::Rotation, &q.to_array(), &back));
                assert_eq!(decode_fine_rotation(word | 1 << 62), None);
            }
        }
        assert!(worst < 3e-6, "{worst} rad");
    }

    #[test]
    fn a_rotation_sixteen_bits_cannot_hold_takes_twenty_before_float() {
        let keys: Vec<f32> = (0..8).flat_map(|k| Quat::from_rotation_y(k as f32 * 0.37).to_array()).collect();
        let t = track(TrackProperty::Rotation, (0..8).map(|k| k as f32 / 8.0).collect(), keys);
        assert!(matches!(Quantizer::for_track(&t, TrackTolerance(1e-3)), Quantizer::Rotation));
        assert!(matches!(Quantizer::for_track(&t, TrackTolerance(1e-5)), Quantizer::FineRotation));
        assert!(matches!(Quantizer::for_track(&t, TrackTolerance(1e-8)), Quantizer::Float));
    }

    #[test]
    fn a_straight_line_keeps_its_ends_and_a_kink_keeps_its_corner() {
        let times: Vec<f32> = (0..11).map(|k| k as f32 * 0.1).collect();
        let line: Vec<f32> = times.iter().flat_map(|t| [*t, 0.0, 0.0]).collect();
        let t = track(TrackProperty::Translation, times.clone(), line);
        let (kept, _) = kept_keys(&t, TrackTolerance(1e-4));
        assert_eq!(kept, vec![0, 10]);
        let kink: Vec<f32> = times.iter().map(|t| (t - 0.5).abs()).flat_map(|y| [0.0, y, 0.0]).collect();
        let t = track(TrackProperty::Translation, times, kink);
        let (kept, _) = kept_keys(&t, TrackTolerance(1e-4));
        assert_eq!(kept, vec![0, 5, 10]);
    }

    #[test]
    fn a_large_range_stays_float() {
        let t = track(TrackProperty::Translation, vec![0.0, 1.0], vec![0.0, 0.0, 0.0, 1000.0, 0.0, 0.0]);
        assert!(matches!(Quantizer::for_track(&t, TrackTolerance(1e-4)), Quantizer::Float));
        let t = track(TrackProperty::Translation, vec![0.0, 1.0], vec![0.0, 0.0, 0.0, 1.0, 0.0, 0.0]);
        assert!(matches!(Quantizer::for_track(&t, TrackTolerance(1e-4)), Quantizer::Range { .. }));
    }
}

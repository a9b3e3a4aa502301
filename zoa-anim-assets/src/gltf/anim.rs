//! Animations → [`Clip`]s.
//!
//! Each translation / rotation / scale channel becomes one core [`Track`]
//! keyed by node index and node name, values copied in glTF layout
//! (CUBICSPLINE keeps in-tangent, value, out-tangent per key). Each
//! `weights` channel becomes one core [`MorphTrack`] (one weight per morph
//! target of the node's mesh per key); a `weights` channel on a node whose
//! mesh has no morph targets is reported in the warnings and skipped. Times
//! are kept as authored: a clip that starts after 0 still starts there.

use std::borrow::Cow;
use std::collections::HashSet;

use gltf::json;
use gltf::json::accessor::{ComponentType, Type};
use gltf::json::animation::{Interpolation as JsonInterpolation, Property};
use gltf::json::validation::Checked;
use zoa_anim_core::{Clip, Interpolation, MorphTrack, Track, TrackProperty};

use super::accessor::{self, Layout};
use super::{Problems, animation_label, node_label};
use crate::AssetError;

/// A channel that passed its checks.
#[derive(Debug)]
pub(crate) struct ChannelPlan {
    index: usize,
    node: usize,
    /// `None` for a `weights` channel on a node without morph targets
    /// (skipped; only its times are read, for the clip's length).
    target: Option<Target>,
    interpolation: Interpolation,
    input: Layout,
    output: Option<Layout>,
}

/// What a channel animates.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Target {
    /// A joint property.
    Joint(TrackProperty),
    /// The morph-target weights of a node whose mesh has `targets` of them.
    Morph { targets: usize },
}

/// An animation that passed its checks.
#[derive(Debug, Default)]
pub(crate) struct AnimPlan {
    channels: Vec<ChannelPlan>,
    source_channels: usize,
}

impl AnimPlan {
    /// Every accessor this animation reads.
    pub(crate) fn layouts(&self) -> impl Iterator<Item = &Layout> {
        self.channels.iter().flat_map(|c| std::iter::once(&c.input).chain(c.output.as_ref()))
    }
}

/// Result of [`build`].
#[derive(Debug)]
pub(crate) struct Built {
    pub clips: Vec<Clip>,
    pub channel_counts: Vec<usize>,
    pub time_ranges: Vec<(f32, f32)>,
}

fn describe(l: &Layout) -> String {
    let normalized = if l.normalized && l.component != ComponentType::F32 { " normalized" } else { "" };
    format!("{} {}{normalized}", accessor::type_name(l.kind), accessor::component_name(l.component))
}

/// Checks every channel: sampler, target node and path exist; input is
/// SCALAR float; output type per path (rotation VEC4 float or normalized
/// 8/16-bit integers, translation and scale VEC3 float); output count matches
/// the input count (three times for CUBICSPLINE); each target used once.
pub(crate) fn plan(root: &json::Root, problems: &mut Problems) -> Vec<AnimPlan> {
    let mut plans = Vec::with_capacity(root.animations.len());
    for (a, anim) in root.animations.iter().enumerate() {
        let mut plan =
            AnimPlan { channels: Vec::with_capacity(anim.channels.len()), source_channels: anim.channels.len() };
        // (node, path) pairs seen so far; a set keeps hostile channel counts linear.
        let mut targets: HashSet<(usize, u8)> = HashSet::with_capacity(anim.channels.len());
        for (c, channel) in anim.channels.iter().enumerate() {
            match plan_channel(root, anim, c, channel, &mut targets) {
                Ok(ch) => plan.channels.push(ch),
                Err(reason) => problems.push(format!("{} channel {c}", animation_label(root, a)), reason),
            }
        }
        plans.push(plan);
    }
    plans
}

/// Channel `c` of `anim`: its sampler, target and input checked (a
/// morph-weight channel stops there), then its output. `Err` is the problem.
fn plan_channel(
    root: &json::Root,
    anim: &json::Animation,
    c: usize,
    channel: &json::animation::Channel,
    targets: &mut HashSet<(usize, u8)>,
) -> Result<ChannelPlan, String> {
    let s = channel.sampler.value();
    let Some(sampler) = anim.samplers.get(s) else {
        return Err(format!("sampler {s} does not exist ({} samplers)", anim.samplers.len()));
    };
    let node = channel.target.node.value();
    if node >= root.nodes.len() {
        return Err(format!("target node {node} does not exist ({} nodes)", root.nodes.len()));
    }
    let path = match channel.target.path {
        Checked::Valid(p) => p,
        Checked::Invalid => return Err("target path is not one of translation, rotation, scale, weights".into()),
    };
    if !targets.insert((node, path as u8)) {
        return Err(format!("{} animates the same property as an earlier channel", node_label(root, node)));
    }
    let interpolation = match sampler.interpolation {
        Checked::Valid(JsonInterpolation::Linear) => Interpolation::Linear,
        Checked::Valid(JsonInterpolation::Step) => Interpolation::Step,
        Checked::Valid(JsonInterpolation::CubicSpline) => Interpolation::CubicSpline,
        Checked::Invalid => {
            return Err(format!("sampler {s} interpolation is not one of LINEAR, STEP, CUBICSPLINE"));
        }
    };
    let input =
        accessor::layout(root, sampler.input.value()).map_err(|reason| format!("sampler {s} input: {reason}"))?;
    if input.kind != Type::Scalar || input.component != ComponentType::F32 {
        return Err(format!(
            "sampler {s} input accessor {} is {}, expected SCALAR FLOAT (5126)",
            input.index,
            describe(&input)
        ));
    }
    let target = match path {
        Property::Translation => Target::Joint(TrackProperty::Translation),
        Property::Rotation => Target::Joint(TrackProperty::Rotation),
        Property::Scale => Target::Joint(TrackProperty::Scale),
        Property::MorphTargetWeights => match super::morph::target_count(root, node) {
            0 => return Ok(ChannelPlan { index: c, node, target: None, interpolation, input, output: None }),
            targets => Target::Morph { targets },
        },
    };
    let output = plan_output(root, s, sampler, target, interpolation, &input)?;
    Ok(ChannelPlan { index: c, node, target: Some(target), interpolation, input, output: Some(output) })
}

/// The output accessor of sampler `s` for a `target` channel: its type
/// fits the property and it has one element per key (three for
/// CUBICSPLINE), times the node's morph-target count for `weights`.
fn plan_output(
    root: &json::Root,
    s: usize,
    sampler: &json::animation::Sampler,
    target: Target,
    interpolation: Interpolation,
    input: &Layout,
) -> Result<Layout, String> {
    let output =
        accessor::layout(root, sampler.output.value()).map_err(|reason| format!("sampler {s} output: {reason}"))?;
    let float_or_normalized = output.component == ComponentType::F32
        || (output.normalized
            && matches!(
                output.component,
                ComponentType::I8 | ComponentType::U8 | ComponentType::I16 | ComponentType::U16
            ));
    let (type_ok, expected, name, targets) = match target {
        Target::Joint(TrackProperty::Rotation) => (
            output.kind == Type::Vec4 && float_or_normalized,
            "VEC4 FLOAT, or VEC4 normalized BYTE/UNSIGNED_BYTE/SHORT/UNSIGNED_SHORT",
            "rotation",
            1,
        ),
        Target::Joint(p) => {
            (output.kind == Type::Vec3 && output.component == ComponentType::F32, "VEC3 FLOAT (5126)", p.name(), 1)
        }
        Target::Morph { targets } => (
            output.kind == Type::Scalar && float_or_normalized,
            "SCALAR FLOAT, or SCALAR normalized BYTE/UNSIGNED_BYTE/SHORT/UNSIGNED_SHORT",
            "weights",
            targets,
        ),
    };
    if !type_ok {
        return Err(format!(
            "sampler {s} output accessor {} is {} but a {name} channel needs {expected}",
            output.index,
            describe(&output),
        ));
    }
    let per_key = targets * if interpolation == Interpolation::CubicSpline { 3 } else { 1 };
    if interpolation == Interpolation::CubicSpline && input.count < 2 {
        return Err(format!("sampler {s} is CUBICSPLINE with {} key(s); at least 2 are needed", input.count));
    }
    if output.count != input.count.saturating_mul(per_key) {
        return Err(format!(
            "sampler {s} output accessor {} has {} elements for {} keys (expected {})",
            output.index,
            output.count,
            input.count,
            input.count.saturating_mul(per_key)
        ));
    }
    Ok(output)
}

/// Reads and checks key data (finite, non-negative, non-decreasing times,
/// a warning on a repeated time;
/// finite values) and builds the clips. Only called when every check passed.
pub(crate) fn build(
    root: &json::Root,
    plans: &[AnimPlan],
    buffers: &[Cow<'_, [u8]>],
    file: &str,
    problems: &mut Problems,
    warnings: &mut Vec<String>,
) -> Result<Built, AssetError> {
    let mut built = Built {
        clips: Vec::with_capacity(plans.len()),
        channel_counts: Vec::with_capacity(plans.len()),
        time_ranges: Vec::with_capacity(plans.len()),
    };
    for (a, plan) in plans.iter().enumerate() {
        let label = animation_label(root, a);
        let mut tracks = Vec::with_capacity(plan.channels.len());
        let mut morph_tracks = Vec::new();
        let (mut start, mut end) = (f32::INFINITY, f32::NEG_INFINITY);
        for ch in &plan.channels {
            let element = || format!("{label} channel {}", ch.index);
            let times = match read_times(ch, buffers, file, &label, warnings) {
                Ok(t) => t,
                Err(reason) => {
                    problems.push(element(), reason);
                    continue;
                }
            };
            if let (Some(&first), Some(&last)) = (times.first(), times.last()) {
                start = start.min(first);
                end = end.max(last);
            }
            let (Some(target), Some(output)) = (ch.target, &ch.output) else {
                warnings.push(format!(
                    "{}: {label} channel {}: weights channel on {} skipped: the node has no mesh with morph targets",
                    file,
                    ch.index,
                    node_label(root, ch.node)
                ));
                continue;
            };
            let values = match read_values(ch, target, output, buffers, file, &label, warnings) {
                Ok(v) => v,
                Err(reason) => {
                    problems.push(element(), reason);
                    continue;
                }
            };
            if root.nodes.get(ch.node).is_some_and(|n| n.matrix.is_some()) {
                warnings.push(format!(
                    "{file}: {label} channel {}: {} has a matrix; glTF requires TRS on animated nodes, the \
                     decomposed matrix is used as rest pose",
                    ch.index,
                    node_label(root, ch.node)
                ));
            }
            let node_name = root.nodes.get(ch.node).and_then(|n| n.name.clone());
            let (node, interpolation) = (ch.node as u32, ch.interpolation);
            match target {
                Target::Joint(property) => {
                    tracks.push(Track { node, node_name, property, interpolation, times, values });
                }
                Target::Morph { targets } => {
                    morph_tracks.push(MorphTrack { node, node_name, targets, interpolation, times, values });
                }
            }
        }
        if !problems.is_empty() {
            continue;
        }
        // A blank name (`""`, `" "`) names nothing a definition can refer to: unnamed.
        let given = root.animations[a].name.clone().filter(|n| !n.trim().is_empty());
        let name = given.unwrap_or_else(|| format!("animation{a}"));
        let clip = Clip::new(name, tracks).and_then(|c| c.with_morph_tracks(morph_tracks));
        let clip =
            clip.map_err(|source| AssetError::InvalidData { file: file.to_owned(), element: label.clone(), source })?;
        built.clips.push(clip);
        built.channel_counts.push(plan.source_channels);
        built.time_ranges.push(if start <= end { (start, end) } else { (0.0, 0.0) });
    }
    Ok(built)
}

/// The key times of channel `ch` (of animation `label`): finite, `>= 0` and
/// non-decreasing, else `Err` with the problem. Subnormal times are read as 0
/// and a repeated time is kept; both add a warning.
fn read_times(
    ch: &ChannelPlan,
    buffers: &[Cow<'_, [u8]>],
    file: &str,
    label: &str,
    warnings: &mut Vec<String>,
) -> Result<Vec<f32>, String> {
    let mut times = accessor::read_f32(&ch.input, buffers).map_err(|reason| format!("sampler input: {reason}"))?;
    if let Some(k) = times.iter().position(|t| !t.is_finite() || *t < 0.0) {
        return Err(format!(
            "sampler input accessor {} has a negative or non-finite key time at key {k} (times must be \
             finite and >= 0)",
            ch.input.index
        ));
    }
    // A subnormal key time (below 1.2e-38 s) is read as 0: the runtime
    // divides by key spans, and a subnormal span overflows to infinity.
    if times.iter().any(|t| *t != 0.0 && !t.is_normal()) {
        times.iter_mut().filter(|t| !t.is_normal()).for_each(|t| *t = 0.0);
        warnings.push(format!(
            "{file}: {label} channel {}: key times below {} s (subnormal) read as 0",
            ch.index,
            f32::MIN_POSITIVE
        ));
    }
    if let Some(k) = times.windows(2).position(|w| w[1] < w[0]) {
        return Err(format!(
            "sampler input accessor {} has decreasing key times at key {} (times must increase)",
            ch.input.index,
            k + 1,
        ));
    }
    // glTF asks for strictly increasing times; a repeated time is a
    // step (the key before it holds up to that time, the key after it
    // from that time on), which is how three.js samples it. Keep it, say so.
    if let Some(k) = times.windows(2).position(|w| w[1] == w[0]) {
        warnings.push(format!(
            "{file}: {label} channel {}: sampler input accessor {} repeats key time {} s at key {} (glTF asks for \
             strictly increasing times; sampled as a step there)",
            ch.index,
            ch.input.index,
            times[k],
            k + 1,
        ));
    }
    Ok(times)
}

/// The key values of channel `ch` (of animation `label`) from its `output`
/// accessor: finite, else `Err` with the problem; rotation keys go through
/// [`check_rotation_keys`] (normalizing keys adds a warning).
fn read_values(
    ch: &ChannelPlan,
    target: Target,
    output: &Layout,
    buffers: &[Cow<'_, [u8]>],
    file: &str,
    label: &str,
    warnings: &mut Vec<String>,
) -> Result<Vec<f32>, String> {
    let mut values = accessor::read_f32(output, buffers).map_err(|reason| format!("sampler output: {reason}"))?;
    if let Some(i) = values.iter().position(|v| !v.is_finite()) {
        let c = match target {
            Target::Joint(property) => property.components(),
            Target::Morph { targets } => targets,
        };
        return Err(format!(
            "sampler output accessor {} has a non-finite value at element {} component {}",
            output.index,
            i / c,
            i % c
        ));
    }
    if target == Target::Joint(TrackProperty::Rotation) {
        match check_rotation_keys(&mut values, ch.interpolation) {
            Err(k) => {
                return Err(format!(
                    "sampler output accessor {} has a zero-length quaternion at key {k} (not a rotation)",
                    output.index
                ));
            }
            Ok(0) => {}
            Ok(n) => warnings.push(format!(
                "{file}: {label} channel {}: {n} rotation key(s) far from unit length were normalized",
                ch.index
            )),
        }
    }
    Ok(values)
}

/// Checks the rotation keys of one channel (`x, y, z, w` per key; for
/// CUBICSPLINE only the value of each in-tangent/value/out-tangent triple):
/// a zero-length quaternion is `Err(key)`; a key whose length is more than
/// 10% away from 1 is normalized (keys within that, such as quantized
/// normalized integers, are left exactly as stored). Returns how many were
/// normalized.
fn check_rotation_keys(values: &mut [f32], interpolation: Interpolation) -> Result<usize, usize> {
    let (stride, offset) = if interpolation == Interpolation::CubicSpline { (12, 4) } else { (4, 0) };
    let mut normalized = 0;
    for (k, key) in values.chunks_exact_mut(stride).enumerate() {
        let q = &mut key[offset..offset + 4];
        // Summed in f64: components up to f32::MAX do not overflow.
        let len = q.iter().map(|c| f64::from(*c) * f64::from(*c)).sum::<f64>().sqrt();
        if len.is_nan() || len <= 1e-6 {
            return Err(k);
        }
        if (len - 1.0).abs() > 0.1 {
            q.iter_mut().for_each(|c| *c = (f64::from(*c) / len) as f32);
            normalized += 1;
        }
    }
    Ok(normalized)
}

#[cfg(test)]
mod rotation_key_tests {
    use super::*;

    #[test]
    fn zero_quaternions_are_refused_and_far_from_unit_ones_normalized() {
        let mut v = vec![0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0];
        assert_eq!(check_rotation_keys(&mut v, Interpolation::Linear), Err(1));
        let mut v = vec![0.0, 0.0, 0.0, 1e30, 0.0, 0.0, 1e30, 1e30, 0.0, 0.0, 0.0, 0.99];
        assert_eq!(check_rotation_keys(&mut v, Interpolation::Step), Ok(2));
        assert_eq!(&v[..4], &[0.0, 0.0, 0.0, 1.0]);
        assert!((v[6] - std::f32::consts::FRAC_1_SQRT_2).abs() < 1e-6);
        assert_eq!(v[11], 0.99, "within 10% of unit: left as stored");
        // Cubic spline: zero tangents are fine, only the values are checked.
        let mut v = vec![0.0; 12];
        v[7] = 1.0;
        assert_eq!(check_rotation_keys(&mut v, Interpolation::CubicSpline), Ok(0));
        v[7] = 0.0;
        assert_eq!(check_rotation_keys(&mut v, Interpolation::CubicSpline), Err(0));
    }
}

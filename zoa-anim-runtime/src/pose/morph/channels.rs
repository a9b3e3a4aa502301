//! A clip's morph-weight tracks bound to a [`MorphSet`], and their sampling.

use zoa_anim_core::{Clip, Interpolation};

use super::MorphSet;
use crate::pose::scalars::ScalarTracks;

/// One bound track: a slot's weights over its keys.
#[derive(Debug, Clone, PartialEq)]
struct Channel {
    slot: u32,
    /// First weight in the set's flat array, and the number of weights.
    offset: u32,
    targets: u32,
    interpolation: Interpolation,
    /// Its keys in `times`.
    time_start: u32,
    keys: u32,
    /// Its first value in `values`.
    value_start: u32,
}

/// The morph-weight tracks of one animation, sorted by slot (at most one
/// per slot).
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct MorphChannels {
    channels: Vec<Channel>,
    times: Vec<f32>,
    values: Vec<f32>,
    /// Tracks of the clip that found no slot of the right size.
    unbound: usize,
}

impl MorphChannels {
    /// `clip`'s weight tracks against `set`, found by node index, or by node
    /// name when `by_name`; a track whose node is not in the set, or has
    /// another number of targets, is counted unbound.
    pub(crate) fn bind(clip: &Clip, set: &MorphSet, by_name: bool) -> MorphChannels {
        let mut out = MorphChannels::default();
        for track in clip.morph_tracks() {
            let slot = if by_name {
                track.node_name.as_deref().and_then(|n| set.find_name(n))
            } else {
                set.find_node(track.node)
            };
            let Some((s, slot)) = slot.map(|s| (s, &set.slots()[s])) else {
                out.unbound += 1;
                continue;
            };
            if slot.range.len() != track.targets || out.channels.iter().any(|c| c.slot == s as u32) {
                out.unbound += 1;
                continue;
            }
            out.channels.push(Channel {
                slot: s as u32,
                offset: slot.range.start as u32,
                targets: track.targets as u32,
                interpolation: track.interpolation,
                time_start: out.times.len() as u32,
                keys: track.times.len() as u32,
                value_start: out.values.len() as u32,
            });
            out.times.extend_from_slice(&track.times);
            out.values.extend_from_slice(&track.values);
        }
        out.channels.sort_by_key(|c| c.slot);
        out
    }

    /// Whether no track is bound.
    pub(crate) fn is_empty(&self) -> bool {
        self.channels.is_empty()
    }

    /// Tracks that found no slot.
    pub(crate) fn unbound(&self) -> usize {
        self.unbound
    }

    /// glTF 2.0 sampling of one channel, as three.js's interpolants do it.
    fn sample_channel(&self, c: &Channel, t: f32, out: &mut [f32]) {
        let times = &self.times[c.time_start as usize..][..c.keys as usize];
        let n = c.targets as usize;
        let cubic = c.interpolation == Interpolation::CubicSpline;
        let stride = if cubic { 3 * n } else { n };
        let values = &self.values[c.value_start as usize..][..stride * times.len()];
        // The keyed value of key k (past a cubic key's in-tangents).
        let value = |k: usize| &values[k * stride + if cubic { n } else { 0 }..][..n];
        // First key after `t`: the segment is (next − 1, next).
        let next = times.partition_point(|&k| k <= t);
        if next == 0 || next == times.len() {
            out.copy_from_slice(value(if next == 0 { 0 } else { times.len() - 1 }));
            return;
        }
        let (k0, k1) = (next - 1, next);
        let (t0, t1) = (times[k0], times[k1]);
        match c.interpolation {
            Interpolation::Step => out.copy_from_slice(value(k0)),
            Interpolation::Linear => {
                let w1 = (t - t0) / (t1 - t0);
                let w0 = 1.0 - w1;
                for ((o, a), b) in out.iter_mut().zip(value(k0)).zip(value(k1)) {
                    *o = a * w0 + b * w1;
                }
            }
            Interpolation::CubicSpline => {
                let td = t1 - t0;
                let p = (t - t0) / td;
                let (pp, ppp) = (p * p, p * p * p);
                let s2 = -2.0 * ppp + 3.0 * pp;
                let s3 = ppp - pp;
                let s0 = 1.0 - s2;
                let s1 = s3 - pp + p;
                let (o0, o1) = (k0 * stride, k1 * stride);
                for (i, o) in out.iter_mut().enumerate() {
                    let p0 = values[o0 + n + i];
                    let m0 = values[o0 + 2 * n + i] * td;
                    let p1 = values[o1 + n + i];
                    let m1 = values[o1 + i] * td;
                    *o = s0 * p0 + s1 * m0 + s2 * p1 + s3 * m1;
                }
            }
        }
    }
}

impl ScalarTracks for MorphChannels {
    /// Every bound slot's weights at clip time `t`.
    fn sample(&self, t: f32, scratch: &mut [f32], mut each: impl FnMut(usize, &[f32])) {
        for c in &self.channels {
            let range = c.offset as usize..(c.offset + c.targets) as usize;
            let Some(out) = scratch.get_mut(range) else { continue };
            self.sample_channel(c, t, out);
            each(c.slot as usize, out);
        }
    }
}

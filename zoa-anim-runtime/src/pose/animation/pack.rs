//! Binding: a clip's tracks found on the skeleton and stored, then packed
//! into block batches, lane batches and tracks sampled alone.

use glam::{Quat, Vec3A};
use zoa_anim_core::{Clip, Interpolation, Skeleton, Track, TrackProperty};

use super::blocks::parts;
use super::lanes::{LaneBatch, LaneTrack, QuatSegment, VecSegment, append, lane_segments, segment_arcs};
use super::splines::{QuatSplineSegment, VecSplineSegment, spline_segments};
use super::{
    ANIMATES_ROTATION, ANIMATES_SCALE, ANIMATES_TRANSLATION, Animation, BindBy, SharedReferences, TrackHeader,
};
use crate::error::RuntimeError;
use crate::pose::simd::BLOCK;

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
            morphs: Default::default(),
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
}

fn property_bit(p: TrackProperty) -> u8 {
    match p {
        TrackProperty::Translation => ANIMATES_TRANSLATION,
        TrackProperty::Rotation => ANIMATES_ROTATION,
        TrackProperty::Scale => ANIMATES_SCALE,
    }
}

/// Tracks of one property to sample as one [`Batch`]: one pose block, one
/// key-time array, one interpolation.
pub(super) struct Group<'h> {
    pub(super) block: usize,
    pub(super) time_start: u32,
    pub(super) keys: u32,
    pub(super) interpolation: Interpolation,
    /// The tracks, each with whether it is constant (its first value is
    /// used at every key).
    pub(super) tracks: Vec<(&'h TrackHeader, bool)>,
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
pub(super) fn plan_batches<'h>(
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

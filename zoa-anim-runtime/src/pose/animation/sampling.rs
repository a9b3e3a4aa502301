//! The sampling job: the per-instance key cursors ([`SamplingContext`]),
//! [`SamplingJob`], which runs every batch kernel, and the tracks sampled
//! one at a time.

use glam::{Quat, Vec3A};
use zoa_anim_core::Interpolation;

use super::blocks::sample_batches;
use super::cursor::{Segment, SegmentFinder};
use super::lanes::{LaneCursors, sample_lane_batches};
use super::splines::{sample_spline_batches, sample_spline_lane_batches};
use super::{Animation, TrackHeader};
use crate::error::RuntimeError;
use crate::pose::Pose;
use crate::pose::math::{hermite_basis, lerp3, slerp};
use crate::pose::simd::BLOCK;

/// Per-instance sampling state: one key cursor per packed block of tracks
/// and per track sampled alone.
///
/// Sized once for the largest animation it will sample ([`SamplingContext::new`]),
/// or exactly for one ([`SamplingContext::for_animation`]); a job whose
/// animation needs more cursors fails validation instead of growing the
/// buffer. Cursors are only hints: a context may be reused across
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
    /// A context sized for `animation` alone: one cursor per packed block
    /// and per track sampled alone, and a segment end per lane-batch track
    /// (a character holds one per clip: for a packed clip a fraction of
    /// [`Animation::track_count`]).
    #[must_use]
    pub fn for_animation(animation: &Animation) -> SamplingContext {
        let (cursors, ends) = animation.cursors_needed();
        SamplingContext { cursors: vec![0; cursors], ends: vec![0.0; ends], steps_lanes: false }
    }
    /// Largest track count this context can serve whatever the packing
    /// (see [`SamplingContext::fits`] for one animation).
    #[must_use]
    pub fn capacity(&self) -> usize {
        self.cursors.len().min(self.ends.len())
    }
    /// Whether this context can sample `animation`.
    #[must_use]
    pub fn fits(&self, animation: &Animation) -> bool {
        let (cursors, ends) = animation.cursors_needed();
        self.cursors.len() >= cursors && self.ends.len() >= ends
    }
    /// Starts loading the cursors into cache (see [`crate::pose::simd::prefetch`]).
    pub(crate) fn prefetch(&self, max_bytes: usize) {
        crate::pose::simd::prefetch(&self.cursors, max_bytes);
        if self.steps_lanes {
            crate::pose::simd::prefetch(&self.ends, max_bytes);
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
/// rest pose ([`Pose::clone`] of [`crate::pose::RuntimeSkeleton::rest`]) and plain
/// sampling reports rest values for joints the clip does not move.
///
/// `run` does not allocate.
#[derive(Debug)]
pub struct SamplingJob<'a> {
    /// What to sample.
    pub animation: &'a Animation,
    /// Clip time in seconds, already wrapped or clamped by the caller
    /// ([`crate::pose::math::wrap_time`], [`crate::pose::math::clamp_time`]). Any finite
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
            && self.context.fits(self.animation);
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
        if !self.context.fits(self.animation) {
            let (cursors, ends) = self.animation.cursors_needed();
            reasons.push(format!(
                "context holds {} cursors and {} segment ends, animation `{}` needs {cursors} and {ends}",
                self.context.cursors.len(),
                self.context.ends.len(),
                self.animation.name,
            ));
        }
        RuntimeError::check("sampling job", reasons)
    }

    /// Validates, then samples.
    #[inline]
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
    #[inline]
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
        let ends = &mut self.context.ends[..a.lane_tracks];
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

/// The lanes of a batch of pose block `block` to write: its tracks
/// (`lanes`), less the joints `mask` skips.
#[inline(always)]
pub(super) fn live_lanes(block: u32, lanes: [u8; BLOCK], mask: Option<&[f32]>) -> [u8; BLOCK] {
    match mask {
        None => lanes,
        Some(m) => std::array::from_fn(|l| {
            let w = m.get(block as usize * BLOCK + l).copied().unwrap_or(0.0);
            lanes[l] & u8::from(w > 0.0 || w.is_nan())
        }),
    }
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

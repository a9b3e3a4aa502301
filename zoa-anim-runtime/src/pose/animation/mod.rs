//! Runtime animations: a core [`zoa_anim_core::Clip`] bound to one skeleton and repacked for
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
//!
//! The module's files: `pack` (binding: a clip's tracks stored and planned
//! into batches), the packed forms with their samplers (`blocks`: batches
//! of tracks sharing their key times; `lanes`: lane batches; `splines`:
//! cubic splines in both), `cursor` (finding key segments) and `sampling`
//! ([`SamplingContext`], [`SamplingJob`], and the tracks sampled alone).

use std::sync::{Arc, Mutex};

use glam::{Quat, Vec3A};
use zoa_anim_core::Interpolation;

use crate::error::RuntimeError;
use crate::pose::{Pose, RuntimeSkeleton};
use zoa_anim_core::Clip;

mod blocks;
mod cursor;
#[cfg(test)]
mod lane_tests;
mod lanes;
mod pack;
mod sampling;
mod splines;
#[cfg(test)]
mod tests;

use blocks::Batches;
use lanes::{LaneBatch, QuatSegment, VecSegment};
pub use sampling::{SamplingContext, SamplingJob};
use splines::{QuatSplineSegment, VecSplineSegment};

/// Bit in [`Animation::animated`]: the joint's translation is animated.
pub const ANIMATES_TRANSLATION: u8 = 1;
/// Bit in [`Animation::animated`]: the joint's rotation is animated.
pub const ANIMATES_ROTATION: u8 = 2;
/// Bit in [`Animation::animated`]: the joint's scale is animated.
pub const ANIMATES_SCALE: u8 = 4;

/// Index of a clip in a [`ClipTable`](crate::character::graph::ClipTable); the handle the
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
    /// The clip's morph-weight tracks (empty unless bound with [`Animation::bind_to`]).
    morphs: crate::pose::morph::MorphChannels,
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
    /// What a sampling context needs for this animation: key cursors and
    /// lane-batch segment ends (each at most [`Animation::track_count`]).
    pub(crate) fn cursors_needed(&self) -> (usize, usize) {
        (self.cursor_count(), self.lane_tracks)
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
    /// Tracks of the source clip that targeted no joint of the skeleton
    /// (and, bound with [`Animation::bind_to`], weight tracks that found no
    /// morphed node of the right size).
    #[must_use]
    pub fn unbound_tracks(&self) -> usize {
        self.unbound + self.morphs.unbound()
    }

    /// [`Animation::bind`] to `rig`'s skeleton, and the clip's morph-weight
    /// tracks to `rig`'s [`crate::pose::MorphSet`] (by node index or node
    /// name, as `by` says).
    pub fn bind_to(clip: &Clip, rig: &RuntimeSkeleton, by: BindBy) -> Result<Animation, RuntimeError> {
        let mut animation = Animation::bind(clip, rig.skeleton(), by)?;
        animation.morphs = crate::pose::morph::MorphChannels::bind(clip, rig.morphs(), by == BindBy::Name);
        Ok(animation)
    }

    /// Whether it animates any morph weight.
    #[must_use]
    pub fn animates_morphs(&self) -> bool {
        !self.morphs.is_empty()
    }

    /// The bound morph-weight tracks.
    pub(crate) fn morphs(&self) -> &crate::pose::morph::MorphChannels {
        &self.morphs
    }

    /// The morph weights of `set` at clip time `time`, over its defaults
    /// (allocates; set-up work such as additive references).
    #[must_use]
    pub fn sample_morphs_to_new(&self, time: f32, set: &crate::pose::MorphSet) -> Vec<f32> {
        let mut weights = set.defaults().to_vec();
        let mut scratch = vec![0.0; weights.len()];
        crate::pose::scalars::ScalarTracks::sample(&self.morphs, time, &mut scratch, |s, x| {
            if let Some(w) = weights.get_mut(set.slots()[s].range.clone()) {
                w.copy_from_slice(x);
            }
        });
        weights
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

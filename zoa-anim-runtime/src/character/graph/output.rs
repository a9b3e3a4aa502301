//! What the behaviour layer hands the pose engine each frame: per layer, a
//! short list of weighted clip contributions (the pose engine samples and
//! blends them; the behaviour layer never touches a pose).
//!
//! The buffers are caller-owned and sized once ([`FrameOutput::with_capacity`]
//! or [`super::GraphInstance::new_output`]); writing a frame clears and refills
//! them without allocating. Going over capacity drops the contribution and
//! counts it in [`FrameOutput::overflow`] instead of growing.

use std::ops::Range;

use zoa_anim_core::graph::{BlendMode, StateIndex};

use super::clips::ClipId;

/// Layer id of the override slot in a [`PoseLayer`].
pub const SLOT_LAYER: u16 = u16::MAX;

/// Which bone mask applies to a contribution.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MaskRef {
    /// Every bone.
    None,
    /// The mask of graph layer `n` ([`zoa_anim_core::graph::GraphLayer::bone_mask`]).
    Layer(u16),
    /// The mask of a state ([`zoa_anim_core::graph::GraphState::bone_mask`]), which replaces the layer's.
    State(StateIndex),
}

/// Where a contribution comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ContributionSource {
    /// A graph state (child `child` of its motion).
    State {
        /// The state.
        state: StateIndex,
        /// Child index within the state's motion (0 for a clip state).
        child: u16,
    },
    /// The override slot / single-clip player.
    Slot,
    /// The tag-driven selector (row index in its flattened table; `u32::MAX` for the default idle clip).
    Selector {
        /// Row index.
        row: u32,
    },
}

/// One clip to sample and blend.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClipContribution {
    /// The clip.
    pub clip: ClipId,
    /// Sample time in clip seconds, already wrapped (looping) or clamped (one-shot) to `0..=duration`.
    pub time: f32,
    /// Sample time at the start of the frame, clip seconds, wrapped like `time`
    /// (equal to `time` for a clip that has not advanced yet). With `wraps`,
    /// what root-motion extraction integrates over.
    pub prev_time: f32,
    /// Loop wraps between `prev_time` and `time` this frame (0 for one-shots).
    pub wraps: u16,
    /// Final blend weight `0..=1`: the clip's share of its layer times the
    /// layer weight (a state's own weight replaces its layer's).
    pub weight: f32,
    /// Whether the clip loops.
    pub looping: bool,
    /// Blend mode (the state's, else the layer's).
    pub blend_mode: BlendMode,
    /// Bone mask (the state's, else the layer's).
    pub mask: MaskRef,
    /// Where it comes from.
    pub source: ContributionSource,
}

/// An inertialized transition under way on a layer: only the target is in the
/// contributions; the pose stage decays the offset it recorded when
/// `generation` changed with [`super::inertialize_quintic`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Inertialization {
    /// Instance time the transition started, seconds.
    pub started_at: f64,
    /// Blend duration in scaled seconds (`> 0`).
    pub duration: f32,
    /// Scaled seconds elapsed since the start (`0..=duration`).
    pub elapsed: f32,
    /// Increments with every new inertialized transition of the instance, so
    /// the pose stage knows when to record a new offset.
    pub generation: u32,
}

/// One layer of the frame's output.
#[derive(Debug, Clone, PartialEq)]
pub struct PoseLayer {
    /// Graph layer index, or [`SLOT_LAYER`] for the override slot.
    pub layer: u16,
    /// Layer weight `0..=1` (the slot's envelope for the slot).
    pub weight: f32,
    /// The layer's blend mode.
    pub blend_mode: BlendMode,
    /// The layer's mask.
    pub mask: MaskRef,
    /// Indices into [`FrameOutput::contributions`].
    pub contributions: Range<usize>,
    /// Present while an inertialized transition runs on this layer.
    pub inertialization: Option<Inertialization>,
}

/// Clip times `(prev_time, time, wraps)` of a clip of `duration` seconds
/// whose unwrapped clock (in cycles) moved from `prev` to `now` this frame.
pub(crate) fn clip_span(prev: f64, now: f64, looping: bool, duration: f32) -> (f32, f32, u16) {
    let d = f64::from(duration);
    if looping {
        let wraps = (now.floor() - prev.floor()).clamp(0.0, f64::from(u16::MAX)) as u16;
        ((prev.fract() * d) as f32, (now.fract() * d) as f32, wraps)
    } else {
        ((prev.clamp(0.0, 1.0) * d) as f32, (now.clamp(0.0, 1.0) * d) as f32, 0)
    }
}

/// Caller-owned per-frame output of one instance.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FrameOutput {
    /// Layers bottom to top; the override slot, when playing, is last.
    pub layers: Vec<PoseLayer>,
    /// Every contribution, grouped by layer.
    pub contributions: Vec<ClipContribution>,
    /// Contributions or layers dropped because a buffer was full (0 when sized
    /// by [`super::GraphInstance::new_output`]).
    pub overflow: u32,
}

impl FrameOutput {
    /// Prefetching for a crowd: what the last frame wrote, which the next rewrites.
    pub(crate) fn prefetch(&self) {
        crate::pose::simd::prefetch(&self.layers, usize::MAX);
        crate::pose::simd::prefetch(&self.contributions, usize::MAX);
    }
    /// Buffers for up to `layers` layers and `contributions` contributions.
    #[must_use]
    pub fn with_capacity(layers: usize, contributions: usize) -> FrameOutput {
        FrameOutput {
            layers: Vec::with_capacity(layers),
            contributions: Vec::with_capacity(contributions),
            overflow: 0,
        }
    }

    /// Empties the buffers, keeping their capacity.
    pub fn clear(&mut self) {
        self.layers.clear();
        self.contributions.clear();
        self.overflow = 0;
    }

    /// Opens a layer; contributions pushed until the next `begin_layer` belong
    /// to it. `false` (and counted as overflow) when the layer buffer is full.
    pub fn begin_layer(&mut self, layer: u16, weight: f32, blend_mode: BlendMode, mask: MaskRef) -> bool {
        if self.layers.len() == self.layers.capacity() {
            self.overflow += 1;
            return false;
        }
        let at = self.contributions.len();
        self.layers.push(PoseLayer { layer, weight, blend_mode, mask, contributions: at..at, inertialization: None });
        true
    }

    /// Adds a contribution to the last layer; dropped (and counted) when full.
    pub fn push(&mut self, c: ClipContribution) {
        if self.contributions.len() == self.contributions.capacity() || self.layers.is_empty() {
            self.overflow += 1;
            return;
        }
        self.contributions.push(c);
        if let Some(l) = self.layers.last_mut() {
            l.contributions.end = self.contributions.len();
        }
    }

    /// The contributions of layer entry `i`.
    #[must_use]
    pub fn layer_contributions(&self, i: usize) -> &[ClipContribution] {
        &self.contributions[self.layers[i].contributions.clone()]
    }

    /// The output layer for graph layer `layer` (or [`SLOT_LAYER`]).
    #[must_use]
    pub fn find_layer(&self, layer: u16) -> Option<(&PoseLayer, &[ClipContribution])> {
        let l = self.layers.iter().find(|l| l.layer == layer)?;
        Some((l, &self.contributions[l.contributions.clone()]))
    }

    /// Sum of the weights of the contributions of `clip` in graph layer `layer`.
    #[must_use]
    pub fn clip_weight(&self, layer: u16, clip: ClipId) -> f32 {
        self.find_layer(layer).map_or(0.0, |(_, cs)| cs.iter().filter(|c| c.clip == clip).map(|c| c.weight).sum())
    }
}

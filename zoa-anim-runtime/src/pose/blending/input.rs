//! What a blend takes (weighted inputs, and layers of them for a
//! [`super::BlendingJob`](super::BlendingJob)), and the checks that name every
//! reason one does not fit.

use super::{BlendMode, ReferencePose};
use crate::error::RuntimeError;
use crate::pose::Pose;

/// One weighted input of a layer.
#[derive(Debug, Clone, Copy)]
pub struct BlendInput<'a> {
    /// Sampled local pose.
    pub pose: &'a Pose,
    /// Which properties of each joint the pose's animation animates
    /// ([`crate::pose::Animation::animated`]); other properties contribute nothing.
    pub animated: &'a [u8],
    /// Weight, finite and `>= 0` (normally `0..=1`; multiplied by the layer weight).
    pub weight: f32,
    /// Optional per-joint weights in `0..=1` ([`crate::pose::BoneWeights::weights`]).
    pub mask: Option<&'a [f32]>,
    /// Reference pose; required in additive layers, ignored in override layers.
    pub reference: Option<&'a ReferencePose>,
}

impl<'a> BlendInput<'a> {
    /// An input without mask or reference.
    #[must_use]
    pub fn new(pose: &'a Pose, animated: &'a [u8], weight: f32) -> BlendInput<'a> {
        BlendInput { pose, animated, weight, mask: None, reference: None }
    }
    /// Builder: per-joint mask.
    #[must_use]
    pub fn with_mask(mut self, mask: &'a [f32]) -> BlendInput<'a> {
        self.mask = Some(mask);
        self
    }
    /// Builder: additive reference.
    #[must_use]
    pub fn with_reference(mut self, reference: &'a ReferencePose) -> BlendInput<'a> {
        self.reference = Some(reference);
        self
    }
}

/// One layer of a [`super::BlendingJob`].
#[derive(Debug, Clone, Copy)]
pub struct BlendLayer<'a> {
    /// Override or additive.
    pub mode: BlendMode,
    /// Layer weight, finite and `>= 0`, multiplied into every input's weight.
    pub weight: f32,
    /// The layer's inputs, in accumulation order.
    pub inputs: &'a [BlendInput<'a>],
}

/// Every reason [`BlendingContext::begin`] refuses (kept out of line: a
/// frame's blend never takes it, and its result is returned by value).
#[cold]
#[inline(never)]
pub(super) fn begin_error(n: usize, output: usize, capacity: usize) -> RuntimeError {
    let mut reasons = Vec::new();
    check_begin(n, output, capacity, &mut reasons);
    RuntimeError::InvalidJob { job: "blending job", reasons }
}

pub(super) fn check_begin(n: usize, output: usize, capacity: usize, reasons: &mut Vec<String>) {
    if output != n {
        reasons.push(format!("output has {output} joints, rest pose has {n}"));
    }
    if capacity < n {
        reasons.push(format!("context holds {capacity} joints, skeleton has {n}"));
    }
}

/// Names an input or layer in a validation message (formatted only on failure).
#[derive(Debug, Clone, Copy)]
pub(super) enum Place {
    Input,
    Layer(usize),
    LayerInput(usize, usize),
}

impl std::fmt::Display for Place {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Place::Input => write!(f, "input"),
            Place::Layer(l) => write!(f, "layer {l}"),
            Place::LayerInput(l, i) => write!(f, "layer {l} input {i}"),
        }
    }
}

pub(super) fn check_weight(what: Place, w: f32, reasons: &mut Vec<String>) {
    if !w.is_finite() || w < 0.0 {
        reasons.push(format!("{what} weight {w} is not a finite non-negative number"));
    }
}

pub(super) fn check_input(what: Place, input: &BlendInput<'_>, mode: BlendMode, n: usize, reasons: &mut Vec<String>) {
    if input.pose.len() != n {
        reasons.push(format!("{what} pose has {} joints, expected {n}", input.pose.len()));
    }
    if input.animated.len() != n {
        reasons.push(format!("{what} animated flags cover {} joints, expected {n}", input.animated.len()));
    }
    if let Some(m) = input.mask
        && m.len() != n
    {
        reasons.push(format!("{what} mask has {} weights, expected {n}", m.len()));
    }
    check_weight(what, input.weight, reasons);
    match (mode, input.reference) {
        (BlendMode::Additive, None) => reasons.push(format!("{what} is additive but has no reference pose")),
        (BlendMode::Additive, Some(r)) if r.len() != n => {
            reasons.push(format!("{what} reference pose has {} joints, expected {n}", r.len()))
        }
        _ => {}
    }
}

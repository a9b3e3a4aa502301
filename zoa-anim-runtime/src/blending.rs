//! Layer composition: three.js `AnimationMixer` accumulation within a layer,
//! and a layer stack composed over it.
//!
//! # Terminology
//! - *input*: one sampled pose with a weight, an optional per-joint mask, and
//!   (for additive layers) a prepared [`ReferencePose`].
//! - *layer*: inputs that blend together, with a [`BlendMode`] and a weight
//!   multiplied into every input's weight.
//! - *accumulation* (three.js `PropertyMixer.accumulate`): per joint property,
//!   the inputs of a layer mix in order with their effective weight
//!   `w = layer weight × input weight × mask[j]`: the first sets the value and
//!   `W = w`, each next one does `W += w; value = lerp/slerp(value, x, w / W)`.
//!   An input only touches the properties its animation animates
//!   ([`crate::Animation::animated`]); `w <= 0` contributes nothing.
//! - *rest fill*: where `W < 1`, `value = lerp/slerp(value, rest, 1 − W)`.
//! - *additive accumulation* (three.js `accumulateAdditive`): per joint property
//!   a delta starts at identity and each input does
//!   `Δr = slerp(Δr, Δr ⊗ (ref⁻¹ ⊗ q), w)`, `Δt += w·(t − ref_t)`, `Δs += w·(s − ref_s)`;
//!   it is applied as `r ⊗ Δr`, `t + Δt`, `s + Δs` (not normalized).
//!
//! # Compositions
//! - [`Composition::Layered`] (Unity, Unreal, Godot): layers apply bottom to
//!   top. The first override layer accumulates its inputs and is rest-filled
//!   (so a base layer alone is exactly three.js). Each later override layer
//!   accumulates its inputs on its own and then blends over the result below,
//!   per joint property, by `min(W, 1)`: `result = blend(below, layer, W)`;
//!   with inputs whose weights sum to 1 that is `blend(below, layer, layer
//!   weight × mask)`, and a property none of the layer's inputs animates keeps
//!   the value below. An additive layer accumulates its deltas and applies them
//!   to the result below. Layers above it then blend over that.
//! - [`Composition::Mixer`]: one three.js `AnimationMixer`: every override input
//!   of every layer accumulates together (layer weights multiplied in), the rest
//!   pose fills, then every additive input's delta is applied. This is what
//!   `zoa-anim pose --mix` promises for its `[[layer]]` entries.
//!
//! ```text
//!  Layered:  rest ◄─fill─ base layer ──blend(W)─► override layer ──⊗Δ─► additive layer ──blend(W)─► … ─► output
//!  Mixer:    all override inputs ──accumulate──► value, W ──rest fill──► ──⊗ all additive deltas──► output
//! ```
//!
//! Two ways to run the same thing: [`BlendingJob`] when every sampled pose is
//! at hand, or a [`Blender`] from [`BlendingContext::begin`] that takes inputs
//! one at a time (sample one clip into a scratch pose, add it, sample the next),
//! so a character needs one scratch pose instead of one per clip. Neither
//! allocates once the context is sized.

use glam::{Quat, Vec3A, Vec4};

use crate::animation::{ANIMATES_ROTATION, ANIMATES_SCALE, ANIMATES_TRANSLATION};
use crate::error::RuntimeError;
use crate::math::{lerp3, slerp};
use crate::pose::Pose;

/// How a layer combines with what is below it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BlendMode {
    /// Weighted average (three.js normal blending).
    #[default]
    Override,
    /// Difference to a reference pose, added on top.
    Additive,
}

/// How a [`BlendingJob`] or [`Blender`] composes its layers (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Composition {
    /// A layer stack: each layer blends over (or adds onto) the result below it.
    #[default]
    Layered,
    /// One three.js `AnimationMixer`: every input of every layer accumulates together.
    Mixer,
}

/// The reference pose of an additive input, prepared once at set-up:
/// translations and scales as they are, rotations normalized and inverted
/// (three.js `makeClipAdditive`), so a frame never inverts anything.
#[derive(Debug, Clone, PartialEq)]
pub struct ReferencePose {
    translations: Vec<Vec3A>,
    inverse_rotations: Vec<Quat>,
    scales: Vec<Vec3A>,
}

impl ReferencePose {
    /// Prepares `pose` as a reference (allocates; set-up time).
    pub fn from_pose(pose: &Pose) -> ReferencePose {
        ReferencePose {
            translations: pose.translations().to_vec(),
            inverse_rotations: pose
                .rotations()
                .iter()
                .map(|q| Quat::from_vec4(Vec4::from(*q).normalize()).conjugate())
                .collect(),
            scales: pose.scales().to_vec(),
        }
    }
    /// Number of joints.
    pub fn len(&self) -> usize {
        self.inverse_rotations.len()
    }
    /// Whether the reference has no joints.
    pub fn is_empty(&self) -> bool {
        self.inverse_rotations.is_empty()
    }
}

/// One weighted input of a layer.
#[derive(Debug, Clone, Copy)]
pub struct BlendInput<'a> {
    /// Sampled local pose.
    pub pose: &'a Pose,
    /// Which properties of each joint the pose's animation animates
    /// ([`crate::Animation::animated`]); other properties contribute nothing.
    pub animated: &'a [u8],
    /// Weight, finite and `>= 0` (normally `0..=1`; multiplied by the layer weight).
    pub weight: f32,
    /// Optional per-joint weights in `0..=1` ([`crate::BoneMask::weights`]).
    pub mask: Option<&'a [f32]>,
    /// Reference pose; required in additive layers, ignored in override layers.
    pub reference: Option<&'a ReferencePose>,
}

impl<'a> BlendInput<'a> {
    /// An input without mask or reference.
    pub fn new(pose: &'a Pose, animated: &'a [u8], weight: f32) -> BlendInput<'a> {
        BlendInput { pose, animated, weight, mask: None, reference: None }
    }
    /// Builder: per-joint mask.
    pub fn with_mask(mut self, mask: &'a [f32]) -> BlendInput<'a> {
        self.mask = Some(mask);
        self
    }
    /// Builder: additive reference.
    pub fn with_reference(mut self, reference: &'a ReferencePose) -> BlendInput<'a> {
        self.reference = Some(reference);
        self
    }
}

/// One layer of a [`BlendingJob`].
#[derive(Debug, Clone, Copy)]
pub struct BlendLayer<'a> {
    /// Override or additive.
    pub mode: BlendMode,
    /// Layer weight, finite and `>= 0`, multiplied into every input's weight.
    pub weight: f32,
    /// The layer's inputs, in accumulation order.
    pub inputs: &'a [BlendInput<'a>],
}

/// Caller-owned blending state, sized once for a joint count: the
/// accumulated weights of the open layer, an accumulation pose for override
/// layers above the base, and the additive delta. Jobs never grow it.
#[derive(Debug, Clone)]
pub struct BlendingContext {
    weights_t: Vec<f32>,
    weights_r: Vec<f32>,
    weights_s: Vec<f32>,
    layer: Pose,
    delta: Pose,
    /// Per joint, which properties `delta` holds (`ANIMATES_*` bits).
    delta_bits: Vec<u8>,
}

impl Default for BlendingContext {
    fn default() -> Self {
        BlendingContext::new(0)
    }
}

impl BlendingContext {
    /// A context for skeletons of at most `max_joints` joints.
    pub fn new(max_joints: usize) -> BlendingContext {
        BlendingContext {
            weights_t: vec![0.0; max_joints],
            weights_r: vec![0.0; max_joints],
            weights_s: vec![0.0; max_joints],
            layer: Pose::identity(max_joints),
            delta: Pose::identity(max_joints),
            delta_bits: vec![0; max_joints],
        }
    }

    /// Largest joint count this context can serve.
    pub fn capacity(&self) -> usize {
        self.weights_r.len()
    }

    /// Starts a blend of `rest.len()` joints into `output` with `composition`:
    /// add layers and inputs to the returned [`Blender`], then call
    /// [`Blender::finish`]. Errors (every reason at once) when `output` and
    /// `rest` differ in length or the context is too small.
    pub fn begin<'a>(
        &'a mut self,
        composition: Composition,
        rest: &'a Pose,
        output: &'a mut Pose,
    ) -> Result<Blender<'a>, RuntimeError> {
        let n = rest.len();
        let mut reasons = Vec::new();
        check_begin(n, output.len(), self.capacity(), &mut reasons);
        RuntimeError::check("blending job", reasons)?;
        self.reset_weights(n);
        self.delta_bits[..n].fill(0);
        Ok(Blender { ctx: self, rest, output, composition, open: None, base_done: false })
    }

    fn reset_weights(&mut self, n: usize) {
        self.weights_t[..n].fill(0.0);
        self.weights_r[..n].fill(0.0);
        self.weights_s[..n].fill(0.0);
    }
}

fn check_begin(n: usize, output: usize, capacity: usize, reasons: &mut Vec<String>) {
    if output != n {
        reasons.push(format!("output has {output} joints, rest pose has {n}"));
    }
    if capacity < n {
        reasons.push(format!("context holds {capacity} joints, skeleton has {n}"));
    }
}

/// Names an input or layer in a validation message (formatted only on failure).
#[derive(Debug, Clone, Copy)]
enum Place {
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

fn check_weight(what: Place, w: f32, reasons: &mut Vec<String>) {
    if !w.is_finite() || w < 0.0 {
        reasons.push(format!("{what} weight {w} is not a finite non-negative number"));
    }
}

fn check_input(what: Place, input: &BlendInput<'_>, mode: BlendMode, n: usize, reasons: &mut Vec<String>) {
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

/// A blend in progress: layers and inputs are added one at a time, in stack
/// order, and [`Blender::finish`] completes the output. Made by
/// [`BlendingContext::begin`]; allocates nothing (except an error's message).
#[derive(Debug)]
pub struct Blender<'a> {
    ctx: &'a mut BlendingContext,
    rest: &'a Pose,
    output: &'a mut Pose,
    composition: Composition,
    /// The layer inputs go to: mode and weight.
    open: Option<(BlendMode, f32)>,
    /// Layered: whether the output already holds a complete pose.
    base_done: bool,
}

impl Blender<'_> {
    /// Closes the open layer (composing it onto the output) and opens a new
    /// one. A weight that is not finite or negative counts as 0.
    pub fn layer(&mut self, mode: BlendMode, weight: f32) {
        self.close_layer();
        let weight = if weight.is_finite() { weight.max(0.0) } else { 0.0 };
        if self.composition == Composition::Layered && mode == BlendMode::Additive && !self.base_done {
            // An additive layer with nothing below adds onto the rest pose.
            self.output.copy_from(self.rest);
            self.base_done = true;
        }
        self.open = Some((mode, weight));
    }

    /// Adds an input to the open layer (an override layer of weight 1 is
    /// opened when none is). Errors, with every reason, when the input does
    /// not fit the blend (lengths, weight, missing reference in an additive
    /// layer); the blend is then unchanged.
    pub fn add(&mut self, input: &BlendInput<'_>) -> Result<(), RuntimeError> {
        let (mode, layer_weight) = match self.open {
            Some(open) => open,
            None => {
                self.layer(BlendMode::Override, 1.0);
                (BlendMode::Override, 1.0)
            }
        };
        let n = self.rest.len();
        let valid = input.pose.len() == n
            && input.animated.len() == n
            && input.mask.is_none_or(|m| m.len() == n)
            && input.weight.is_finite()
            && input.weight >= 0.0
            && (mode == BlendMode::Override || input.reference.is_some_and(|r| r.len() == n));
        if !valid {
            let mut reasons = Vec::new();
            check_input(Place::Input, input, mode, n, &mut reasons);
            return RuntimeError::check("blending job", reasons);
        }
        let weight = layer_weight * input.weight;
        if weight.is_nan() || weight <= 0.0 {
            return Ok(());
        }
        let ctx = &mut *self.ctx;
        match mode {
            BlendMode::Override => {
                let into_output = self.composition == Composition::Mixer || !self.base_done;
                let target = if into_output { &mut *self.output } else { &mut ctx.layer };
                accumulate(
                    target,
                    [&mut ctx.weights_t[..n], &mut ctx.weights_r[..n], &mut ctx.weights_s[..n]],
                    input.pose,
                    input.animated,
                    weight,
                    input.mask,
                );
            }
            BlendMode::Additive => {
                if let Some(reference) = input.reference {
                    accumulate_additive(
                        &mut ctx.delta,
                        &mut ctx.delta_bits[..n],
                        input.pose,
                        reference,
                        input.animated,
                        weight,
                        input.mask,
                    );
                }
            }
        }
        Ok(())
    }

    /// Closes the last layer and completes the output (in the mixer
    /// composition: rest fill, then every additive delta; with no layer at
    /// all the output is the rest pose).
    pub fn finish(mut self) {
        self.close_layer();
        let n = self.rest.len();
        match self.composition {
            Composition::Layered => {
                if !self.base_done {
                    self.output.copy_from(self.rest);
                }
            }
            Composition::Mixer => {
                let ctx = &mut *self.ctx;
                rest_fill(self.output, self.rest, [&ctx.weights_t[..n], &ctx.weights_r[..n], &ctx.weights_s[..n]]);
                apply_delta(self.output, &ctx.delta, &ctx.delta_bits[..n]);
            }
        }
    }

    fn close_layer(&mut self) {
        let Some((mode, _)) = self.open.take() else { return };
        if self.composition == Composition::Mixer {
            return;
        }
        let n = self.rest.len();
        let ctx = &mut *self.ctx;
        match mode {
            BlendMode::Override if !self.base_done => {
                rest_fill(self.output, self.rest, [&ctx.weights_t[..n], &ctx.weights_r[..n], &ctx.weights_s[..n]]);
                self.base_done = true;
            }
            BlendMode::Override => {
                compose_over(self.output, &ctx.layer, [&ctx.weights_t[..n], &ctx.weights_r[..n], &ctx.weights_s[..n]]);
            }
            BlendMode::Additive => {
                apply_delta(self.output, &ctx.delta, &ctx.delta_bits[..n]);
                ctx.delta_bits[..n].fill(0);
            }
        }
        ctx.reset_weights(n);
    }
}

/// Three.js accumulation of one input into `target` (see the module docs).
fn accumulate(
    target: &mut Pose,
    weights: [&mut [f32]; 3],
    pose: &Pose,
    animated: &[u8],
    weight: f32,
    mask: Option<&[f32]>,
) {
    let [wt, wr, ws] = weights;
    let n = wr.len();
    let (out_t, out_r, out_s) = target.parts_mut();
    let (in_t, in_r, in_s) = (pose.translations(), pose.rotations(), pose.scales());
    for j in 0..n {
        let bits = animated[j];
        if bits == 0 {
            continue;
        }
        let w = match mask {
            Some(m) => weight * m[j],
            None => weight,
        };
        if w.is_nan() || w <= 0.0 {
            continue;
        }
        if bits & ANIMATES_TRANSLATION != 0 {
            out_t[j] = mix_vec3(&mut wt[j], out_t[j], in_t[j], w);
        }
        if bits & ANIMATES_ROTATION != 0 {
            let acc = wr[j];
            if acc == 0.0 {
                out_r[j] = in_r[j];
                wr[j] = w;
            } else {
                let total = acc + w;
                wr[j] = total;
                out_r[j] = slerp(out_r[j], in_r[j], w / total);
            }
        }
        if bits & ANIMATES_SCALE != 0 {
            out_s[j] = mix_vec3(&mut ws[j], out_s[j], in_s[j], w);
        }
    }
}

#[inline(always)]
fn mix_vec3(acc: &mut f32, current: Vec3A, x: Vec3A, w: f32) -> Vec3A {
    if *acc == 0.0 {
        *acc = w;
        x
    } else {
        let total = *acc + w;
        *acc = total;
        lerp3(current, x, w / total)
    }
}

/// Fills the weight left below 1 from `rest`, per joint property (three.js `PropertyMixer.apply`).
fn rest_fill(output: &mut Pose, rest: &Pose, weights: [&[f32]; 3]) {
    let [wt, wr, ws] = weights;
    let n = wr.len();
    let (out_t, out_r, out_s) = output.parts_mut();
    fill_vec3(&mut out_t[..n], rest.translations(), wt);
    fill_vec3(&mut out_s[..n], rest.scales(), ws);
    for ((o, &r), &w) in out_r[..n].iter_mut().zip(rest.rotations()).zip(wr) {
        if w == 0.0 {
            *o = r;
        } else if w < 1.0 {
            *o = slerp(*o, r, 1.0 - w);
        }
    }
}

fn fill_vec3(out: &mut [Vec3A], rest: &[Vec3A], weights: &[f32]) {
    for ((o, &r), &w) in out.iter_mut().zip(rest).zip(weights) {
        if w == 0.0 {
            *o = r;
        } else if w < 1.0 {
            *o = lerp3(*o, r, 1.0 - w);
        }
    }
}

/// `output = blend(output, layer, min(W, 1))` per joint property with `W > 0`.
fn compose_over(output: &mut Pose, layer: &Pose, weights: [&[f32]; 3]) {
    let [wt, wr, ws] = weights;
    let n = wr.len();
    let (out_t, out_r, out_s) = output.parts_mut();
    over_vec3(&mut out_t[..n], layer.translations(), wt);
    over_vec3(&mut out_s[..n], layer.scales(), ws);
    for ((o, &l), &w) in out_r[..n].iter_mut().zip(layer.rotations()).zip(wr) {
        if w >= 1.0 {
            *o = l;
        } else if w > 0.0 {
            *o = slerp(*o, l, w);
        }
    }
}

fn over_vec3(out: &mut [Vec3A], layer: &[Vec3A], weights: &[f32]) {
    for ((o, &l), &w) in out.iter_mut().zip(layer).zip(weights) {
        if w >= 1.0 {
            *o = l;
        } else if w > 0.0 {
            *o = lerp3(*o, l, w);
        }
    }
}

/// Three.js additive accumulation of one input into `delta` (see the module docs).
fn accumulate_additive(
    delta: &mut Pose,
    bits_held: &mut [u8],
    pose: &Pose,
    reference: &ReferencePose,
    animated: &[u8],
    weight: f32,
    mask: Option<&[f32]>,
) {
    let n = bits_held.len();
    let (d_t, d_r, d_s) = delta.parts_mut();
    for j in 0..n {
        let bits = animated[j];
        if bits == 0 {
            continue;
        }
        let w = match mask {
            Some(m) => weight * m[j],
            None => weight,
        };
        if w.is_nan() || w <= 0.0 {
            continue;
        }
        let held = bits_held[j];
        if bits & ANIMATES_TRANSLATION != 0 {
            let d = (pose.translations()[j] - reference.translations[j]) * w;
            d_t[j] = if held & ANIMATES_TRANSLATION == 0 { d } else { d_t[j] + d };
        }
        if bits & ANIMATES_ROTATION != 0 {
            let q = reference.inverse_rotations[j] * pose.rotations()[j];
            let acc = if held & ANIMATES_ROTATION == 0 { Quat::IDENTITY } else { d_r[j] };
            d_r[j] = slerp(acc, acc * q, w);
        }
        if bits & ANIMATES_SCALE != 0 {
            let d = (pose.scales()[j] - reference.scales[j]) * w;
            d_s[j] = if held & ANIMATES_SCALE == 0 { d } else { d_s[j] + d };
        }
        bits_held[j] = held | bits;
    }
}

/// Applies an accumulated additive delta: `r ⊗ Δr`, `t + Δt`, `s + Δs`.
fn apply_delta(output: &mut Pose, delta: &Pose, bits_held: &[u8]) {
    let (out_t, out_r, out_s) = output.parts_mut();
    for (j, &bits) in bits_held.iter().enumerate() {
        if bits == 0 {
            continue;
        }
        if bits & ANIMATES_TRANSLATION != 0 {
            out_t[j] += delta.translations()[j];
        }
        if bits & ANIMATES_ROTATION != 0 {
            out_r[j] *= delta.rotations()[j];
        }
        if bits & ANIMATES_SCALE != 0 {
            out_s[j] += delta.scales()[j];
        }
    }
}

/// `target = blend(target, source, weight)` for every joint property (lerp,
/// three.js slerp): a cross-fade of two whole poses, e.g. the results of two
/// graphs during a loadout switch. `weight` is clamped to `0..=1` (NaN counts
/// as 0). Allocation-free.
///
/// # Panics
/// When the poses differ in length.
pub fn blend_into(target: &mut Pose, source: &Pose, weight: f32) {
    assert_eq!(target.len(), source.len(), "poses differ in joint count");
    let w = if weight.is_nan() { 0.0 } else { weight.clamp(0.0, 1.0) };
    if w <= 0.0 {
        return;
    }
    let (t, r, s) = target.parts_mut();
    for (o, &x) in t.iter_mut().zip(source.translations()) {
        *o = lerp3(*o, x, w);
    }
    for (o, &x) in r.iter_mut().zip(source.rotations()) {
        *o = slerp(*o, x, w);
    }
    for (o, &x) in s.iter_mut().zip(source.scales()) {
        *o = lerp3(*o, x, w);
    }
}

/// Blends layers of weighted inputs over a rest pose in one call (see the
/// module docs for the two compositions). `run` does not allocate.
#[derive(Debug)]
pub struct BlendingJob<'a> {
    /// The skeleton's rest pose (fills weight below 1 of the base layer).
    pub rest: &'a Pose,
    /// Layers bottom to top.
    pub layers: &'a [BlendLayer<'a>],
    /// Layer stack or one three.js mixer.
    pub composition: Composition,
    /// Blending state; capacity at least the joint count.
    pub context: &'a mut BlendingContext,
    /// Output local pose, same joint count as `rest`.
    pub output: &'a mut Pose,
}

impl BlendingJob<'_> {
    /// Every reason this job cannot run.
    pub fn validate(&self) -> Result<(), RuntimeError> {
        let n = self.rest.len();
        let mut reasons = Vec::new();
        check_begin(n, self.output.len(), self.context.capacity(), &mut reasons);
        for (l, layer) in self.layers.iter().enumerate() {
            check_weight(Place::Layer(l), layer.weight, &mut reasons);
            for (i, input) in layer.inputs.iter().enumerate() {
                check_input(Place::LayerInput(l, i), input, layer.mode, n, &mut reasons);
            }
        }
        RuntimeError::check("blending job", reasons)
    }

    /// Validates, then blends.
    pub fn run(self) -> Result<(), RuntimeError> {
        self.validate()?;
        let mut blender = self.context.begin(self.composition, self.rest, self.output)?;
        for layer in self.layers {
            blender.layer(layer.mode, layer.weight);
            for input in layer.inputs {
                blender.add(input)?;
            }
        }
        blender.finish();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use zoa_anim_core::Transform;

    const ALL: u8 = ANIMATES_TRANSLATION | ANIMATES_ROTATION | ANIMATES_SCALE;

    fn pose(x: f32, angle: f32) -> Pose {
        Pose::from_transforms((0..2).map(|j| Transform {
            translation: glam::Vec3::new(x + j as f32, 0.0, 0.0),
            rotation: Quat::from_rotation_x(angle),
            scale: glam::Vec3::ONE,
        }))
    }

    fn run(composition: Composition, layers: &[BlendLayer<'_>]) -> Pose {
        let rest = pose(0.0, 0.0);
        let mut out = rest.clone();
        let mut ctx = BlendingContext::new(2);
        BlendingJob { rest: &rest, layers, composition, context: &mut ctx, output: &mut out }.run().unwrap();
        out
    }

    #[test]
    fn an_upper_override_layer_at_full_weight_replaces_what_is_below() {
        let (a, b) = (pose(2.0, 0.4), pose(6.0, 1.0));
        let anim = [ALL; 2];
        let base = [BlendInput::new(&a, &anim, 1.0)];
        let top = [BlendInput::new(&b, &anim, 1.0)];
        let layers = [
            BlendLayer { mode: BlendMode::Override, weight: 1.0, inputs: &base },
            BlendLayer { mode: BlendMode::Override, weight: 1.0, inputs: &top },
        ];
        // Layered: the top layer alone; the mixer averages the two.
        assert_eq!(run(Composition::Layered, &layers), b);
        assert_eq!(run(Composition::Mixer, &layers).translations()[0].x, 4.0);
        // At weight 0.25 the top layer blends a quarter of the way over the base.
        let layers = [layers[0], BlendLayer { weight: 0.25, ..layers[1] }];
        let got = run(Composition::Layered, &layers);
        assert_eq!(got.translations()[0].x, 2.0 * 0.75 + 6.0 * 0.25);
        assert!(got.rotations()[0].abs_diff_eq(Quat::from_rotation_x(0.4 * 0.75 + 0.25), 1e-6));
    }

    #[test]
    fn masks_and_unanimated_properties_keep_the_value_below() {
        let (a, b) = (pose(2.0, 0.4), pose(6.0, 1.0));
        let all = [ALL; 2];
        let rot_only = [ANIMATES_ROTATION; 2];
        let mask = [0.0, 1.0];
        let base = [BlendInput::new(&a, &all, 1.0)];
        let top = [BlendInput::new(&b, &rot_only, 1.0).with_mask(&mask)];
        let layers = [
            BlendLayer { mode: BlendMode::Override, weight: 1.0, inputs: &base },
            BlendLayer { mode: BlendMode::Override, weight: 1.0, inputs: &top },
        ];
        let got = run(Composition::Layered, &layers);
        assert_eq!(got.get(0), a.get(0), "joint 0 is masked out");
        assert_eq!(got.translations()[1], a.translations()[1], "translation is not animated by the top layer");
        assert_eq!(got.rotations()[1], b.rotations()[1]);
    }

    #[test]
    fn an_additive_layer_adds_onto_the_result_below_and_layers_above_cover_it() {
        let (a, b) = (pose(2.0, 0.4), pose(6.0, 1.0));
        let (r, d) = (ReferencePose::from_pose(&pose(1.0, 0.0)), pose(1.5, 0.2));
        let all = [ALL; 2];
        let base = [BlendInput::new(&a, &all, 1.0)];
        let add = [BlendInput::new(&d, &all, 1.0).with_reference(&r)];
        let top = [BlendInput::new(&b, &all, 1.0).with_mask(&[1.0, 0.0])];
        let layers = [
            BlendLayer { mode: BlendMode::Override, weight: 1.0, inputs: &base },
            BlendLayer { mode: BlendMode::Additive, weight: 0.5, inputs: &add },
            BlendLayer { mode: BlendMode::Override, weight: 1.0, inputs: &top },
        ];
        let got = run(Composition::Layered, &layers);
        assert_eq!(got.get(0), b.get(0), "the top layer covers joint 0, additive included");
        assert_eq!(got.translations()[1].x, 3.0 + 0.5 * 0.5);
        assert!(got.rotations()[1].abs_diff_eq(Quat::from_rotation_x(0.4 + 0.1), 1e-6));
    }

    #[test]
    fn streaming_equals_the_job_and_reports_bad_inputs() {
        let (a, b) = (pose(2.0, 0.4), pose(6.0, 1.0));
        let all = [ALL; 2];
        let rest = pose(0.0, 0.0);
        let mut ctx = BlendingContext::new(2);
        let mut out = rest.clone();
        let mut blender = ctx.begin(Composition::Layered, &rest, &mut out).unwrap();
        blender.add(&BlendInput::new(&a, &all, 0.5)).unwrap();
        blender.layer(BlendMode::Override, 0.5);
        blender.add(&BlendInput::new(&b, &all, 1.0)).unwrap();
        let short = Pose::identity(1);
        let err = blender.add(&BlendInput::new(&short, &all[..1], f32::NAN)).unwrap_err();
        let RuntimeError::InvalidJob { reasons, .. } = err else { panic!() };
        assert_eq!(reasons.len(), 3, "{reasons:?}");
        blender.layer(BlendMode::Additive, 1.0);
        assert!(blender.add(&BlendInput::new(&b, &all, 1.0)).is_err(), "additive input without reference");
        blender.finish();
        let base = [BlendInput::new(&a, &all, 0.5)];
        let top = [BlendInput::new(&b, &all, 1.0)];
        let want = run(
            Composition::Layered,
            &[
                BlendLayer { mode: BlendMode::Override, weight: 1.0, inputs: &base },
                BlendLayer { mode: BlendMode::Override, weight: 0.5, inputs: &top },
            ],
        );
        assert_eq!(out, want);
        // Too small a context and a wrong output size are both reported.
        let mut small = BlendingContext::new(1);
        let mut wrong = Pose::identity(3);
        let RuntimeError::InvalidJob { reasons, .. } = small.begin(Composition::Mixer, &rest, &mut wrong).unwrap_err()
        else {
            panic!()
        };
        assert_eq!(reasons.len(), 2);
    }
}

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
//!   Rotation components of `q` and `ref` below 1e-10 in magnitude count as
//!   zero: exporter noise whose products would be subnormal numbers, slow on
//!   Intel CPUs; the delta moves by 1e-10 at most.
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
//! allocates once the context is sized. A caller who knows which input comes
//! last in its layer ([`Blender::add_last`]) or in the whole blend
//! ([`Blender::finish_with`]) says so: the result is the same bit for bit,
//! and an additive input that is alone in its layer is then applied straight
//! onto the pose below in one pass instead of accumulating a delta pose that
//! a second pass applies.

use std::sync::Arc;

use glam::{Quat, Vec4};

use crate::animation::{ANIMATES_ROTATION, ANIMATES_SCALE, ANIMATES_TRANSLATION};
use crate::error::RuntimeError;
use crate::pose::Pose;
use crate::simd::{
    BLOCK, Lanes, QuatLanes, Row, UniformT, blocks_for, dispatch, flush_noise, lerp, load, quat_mul, rows, rows_mut,
    select, slerp, slerp_uniform, slerp_uniform_from_identity, store, store_where, vectors,
};

/// How a layer combines with what is below it: the authored
/// [`zoa_anim_core::graph::BlendMode`] (`Override` = weighted average, three.js
/// normal blending; `Additive` = difference to a reference pose, added on top).
pub use zoa_anim_core::graph::BlendMode;

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
    /// The reference with its rotations inverted (shared: clones are cheap).
    pose: Arc<Pose>,
}

impl ReferencePose {
    /// Prepares `pose` as a reference (allocates; set-up time).
    #[must_use]
    pub fn from_pose(pose: &Pose) -> ReferencePose {
        ReferencePose { pose: Arc::new(prepare_reference(pose)) }
    }
    /// A reference already prepared by [`prepare_reference`].
    pub(crate) fn from_prepared(pose: Arc<Pose>) -> ReferencePose {
        ReferencePose { pose }
    }
    /// Number of joints.
    #[must_use]
    pub fn len(&self) -> usize {
        self.pose.len()
    }
    /// Whether the reference has no joints.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.pose.is_empty()
    }
}

/// `pose` with its rotations normalized and inverted (three.js
/// `makeClipAdditive`): what a [`ReferencePose`] holds. Rotation components
/// below [`ROTATION_NOISE`](crate::simd::ROTATION_NOISE) in magnitude become
/// zero, as the additive inputs' do in [`Blender::add`], so that the delta's
/// quaternion products never compute with subnormal numbers.
pub(crate) fn prepare_reference(pose: &Pose) -> Pose {
    let mut prepared = pose.clone();
    let flush = |x: f32| if x.abs() < crate::simd::ROTATION_NOISE { 0.0 } else { x };
    for j in 0..pose.len() {
        let inverse = Vec4::from(pose.rotation(j)).normalize().map(flush);
        prepared.set_rotation(j, Quat::from_vec4(inverse).conjugate());
    }
    prepared
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
    /// Optional per-joint weights in `0..=1` ([`crate::BoneWeights::weights`]).
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
    capacity: usize,
    /// Accumulated weight `W` per joint property, in the pose's SoA blocks:
    /// rows translation, rotation, scale per block.
    weights: Vec<Row>,
    layer: Pose,
    delta: Pose,
    /// 1 where `delta` holds the joint property, 0 elsewhere (rows like `weights`).
    held: Vec<Row>,
    /// The animated flags of an input written in place whose weights are
    /// not in `weights` yet (see `Blender::unmarked`), 0 up to a whole
    /// block past the last joint so that every vector of them is read in
    /// place.
    flags: Vec<u8>,
    /// `weights` and `held` are all 0: the last blend finished without
    /// writing them, so the next need not clear them.
    clean: bool,
}

impl Default for BlendingContext {
    fn default() -> Self {
        BlendingContext::new(0)
    }
}

impl BlendingContext {
    /// A context for skeletons of at most `max_joints` joints.
    #[must_use]
    pub fn new(max_joints: usize) -> BlendingContext {
        let rows = 3 * blocks_for(max_joints);
        BlendingContext {
            capacity: max_joints,
            weights: vec![Row::splat(0.0); rows],
            layer: Pose::identity(max_joints),
            delta: Pose::identity(max_joints),
            held: vec![Row::splat(0.0); rows],
            flags: vec![0; blocks_for(max_joints) * BLOCK],
            clean: true,
        }
    }

    /// Largest joint count this context can serve.
    #[must_use]
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Starts a blend of `rest.len()` joints into `output` with `composition`:
    /// add layers and inputs to the returned [`Blender`], then call
    /// [`Blender::finish`]. Errors (every reason at once) when `output` and
    /// `rest` differ in length or the context is too small.
    #[inline]
    pub fn begin<'a>(
        &'a mut self,
        composition: Composition,
        rest: &'a Pose,
        output: &'a mut Pose,
    ) -> Result<Blender<'a>, RuntimeError> {
        let n = rest.len();
        if output.len() != n || self.capacity() < n {
            return Err(begin_error(n, output.len(), self.capacity()));
        }
        let rows = 3 * blocks_for(n);
        if !self.clean {
            self.weights[..rows].fill(Row::splat(0.0));
            self.held[..rows].fill(Row::splat(0.0));
        }
        // Until a blend finishes and says otherwise (one dropped half-way
        // may leave anything).
        self.clean = false;
        Ok(Blender {
            ctx: self,
            rest,
            output,
            composition,
            open: None,
            base_done: false,
            weights: Weights::Zero,
            unmarked: false,
            covered: false,
            held: false,
            dirty: false,
        })
    }
}

/// Every reason [`BlendingContext::begin`] refuses (kept out of line: a
/// frame's blend never takes it, and its result is returned by value).
#[cold]
#[inline(never)]
fn begin_error(n: usize, output: usize, capacity: usize) -> RuntimeError {
    let mut reasons = Vec::new();
    check_begin(n, output, capacity, &mut reasons);
    RuntimeError::InvalidJob { job: "blending job", reasons }
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
    /// What the override weights `W` (`ctx.weights`) hold.
    weights: Weights,
    /// Set while `weights` is [`Weights::Shared`] from one input written in
    /// place whose weights are not in `ctx.weights` yet: `W` is the shared
    /// weight where the input's animated flags (copied to `ctx.flags`)
    /// animate the property, 0 elsewhere. A rest fill reads them as they
    /// are; anything else that reads `ctx.weights` writes them there first
    /// ([`Blender::mark`]). (Copying a byte per joint costs less than
    /// writing three weight rows per block.)
    unmarked: bool,
    /// Set with `unmarked` when that input animates every property of every
    /// joint at a weight of at least 1: the rest fill then has nothing to
    /// fill (the lanes past the last joint hold the identity in every pose).
    covered: bool,
    /// Whether `ctx.held` flags any delta (else it is all 0 and there is
    /// nothing to apply).
    held: bool,
    /// Whether this blend wrote `ctx.weights` or `ctx.held`.
    dirty: bool,
}

/// What the accumulated override weights of a blend hold, so that an input
/// whose interpolation parameter `w / (W + w)` is the same for every joint
/// property can compute its slerp factors once.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Weights {
    /// Every `W` is 0.
    Zero,
    /// Every `W` is 0 or this value (one unmasked input so far).
    Shared(f32),
    /// Anything else.
    Mixed,
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
        let (mode, layer_weight) = self.open_layer();
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
        if mode == BlendMode::Override {
            self.mark();
        }
        self.dirty = true;
        let ctx = &mut *self.ctx;
        match mode {
            BlendMode::Override => {
                let into_output = self.composition == Composition::Mixer || !self.base_done;
                let target = if into_output { &mut *self.output } else { &mut ctx.layer };
                let weights = &mut ctx.weights[..3 * blocks_for(n)];
                let shared = match self.weights {
                    Weights::Shared(w) if input.mask.is_none() => Some(w),
                    _ => None,
                };
                accumulate(target, weights, input.pose, input.animated, weight, input.mask, shared, n);
                // An unmasked input onto zero weights leaves every `W` at 0 or
                // `weight` (`0 + weight` is exact).
                self.weights = match self.weights {
                    Weights::Zero if input.mask.is_none() => Weights::Shared(weight),
                    _ => Weights::Mixed,
                };
            }
            BlendMode::Additive => {
                if let Some(reference) = input.reference {
                    self.held = true;
                    let held = &mut ctx.held[..3 * blocks_for(n)];
                    accumulate_additive(
                        &mut ctx.delta,
                        held,
                        input.pose,
                        &reference.pose,
                        input.animated,
                        weight,
                        input.mask,
                        n,
                    );
                }
            }
        }
        Ok(())
    }

    /// Adds `input` as the open layer's last input and closes the layer:
    /// what [`add`](Self::add) then [`layer`](Self::layer) or
    /// [`finish`](Self::finish) give, bit for bit. Inputs added after it go
    /// to a new layer (an override layer of weight 1 unless
    /// [`layer`](Self::layer) opens another). An additive layer's only input
    /// in the layer stack is then applied straight onto the result below in
    /// one pass, instead of accumulating a delta pose that a second pass
    /// applies. Errors as [`add`](Self::add); the layer then stays open.
    pub fn add_last(&mut self, input: &BlendInput<'_>) -> Result<(), RuntimeError> {
        let (mode, layer_weight) = self.open_layer();
        let n = self.rest.len();
        let direct = self.composition == Composition::Layered && self.base_done;
        match self.lone_additive(mode, input) {
            Some(reference) if direct => {
                let weight = layer_weight * input.weight;
                if weight > 0.0 {
                    add_onto(self.output, input.pose, &reference.pose, input.animated, weight, input.mask, n);
                }
                // Nothing was accumulated: the layer closes with nothing to apply.
                self.open = None;
            }
            _ => {
                self.add(input)?;
                self.close_layer();
            }
        }
        Ok(())
    }

    /// Adds an input that `write` puts straight into the blend's target,
    /// when that gives what [`add`](Self::add) would: the open layer (an
    /// override layer of weight 1 is opened when none is) is an override
    /// layer with no input yet, the input has no mask, and every `W` is 0,
    /// so the input's animated properties are a copy. `write` must then
    /// write exactly the properties `animated` flags (as [`SamplingJob`]
    /// does) and no others need keeping: the finish gives every property
    /// without weight its rest value. Saves sampling into a scratch pose and
    /// copying it.
    ///
    /// Returns `Ok(false)`, without calling `write`, when the input cannot
    /// be written in place (sample it into a pose and [`add`](Self::add) it);
    /// errors as [`add`](Self::add) for bad lengths or weights, or with
    /// `write`'s error (the target may then be partly written).
    ///
    /// [`SamplingJob`]: crate::animation::SamplingJob
    pub fn add_in_place(
        &mut self,
        animated: &[u8],
        weight: f32,
        write: impl FnOnce(&mut Pose) -> Result<(), RuntimeError>,
    ) -> Result<bool, RuntimeError> {
        let (mode, layer_weight) = self.open_layer();
        let n = self.rest.len();
        if animated.len() != n || !weight.is_finite() || weight < 0.0 {
            let mut reasons = Vec::new();
            if animated.len() != n {
                reasons.push(format!("input animated flags cover {} joints, expected {n}", animated.len()));
            }
            check_weight(Place::Input, weight, &mut reasons);
            return RuntimeError::check("blending job", reasons).map(|()| false);
        }
        let weight = layer_weight * weight;
        if mode != BlendMode::Override || self.weights != Weights::Zero || weight.is_nan() || weight <= 0.0 {
            return Ok(false);
        }
        let into_output = self.composition == Composition::Mixer || !self.base_done;
        let target = if into_output { &mut *self.output } else { &mut self.ctx.layer };
        write(target)?;
        // `W = weight` where `animated` flags the property: left in the
        // flags until something needs the rows.
        let flags = &mut self.ctx.flags[..blocks_for(n) * BLOCK];
        let (joints, past) = flags.split_at_mut(n);
        joints.copy_from_slice(animated);
        past.fill(0);
        const EVERY: u8 = ANIMATES_TRANSLATION | ANIMATES_ROTATION | ANIMATES_SCALE;
        self.covered = weight >= 1.0 && joints.iter().fold(EVERY, |all, &f| all & f) == EVERY;
        self.unmarked = true;
        self.weights = Weights::Shared(weight);
        Ok(true)
    }

    /// The open layer's mode and weight, opening an override layer of
    /// weight 1 when none is.
    fn open_layer(&mut self) -> (BlendMode, f32) {
        match self.open {
            Some(open) => open,
            None => {
                self.layer(BlendMode::Override, 1.0);
                (BlendMode::Override, 1.0)
            }
        }
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
                self.fill_rest();
                if self.held {
                    let rows = 3 * blocks_for(n);
                    apply_delta(self.output, &self.ctx.delta, &self.ctx.held[..rows], n);
                }
            }
        }
        self.ctx.clean = !self.dirty;
    }

    /// Adds `input` as the blend's last input and completes the output:
    /// what [`add`](Self::add) then [`finish`](Self::finish) give, bit for
    /// bit. When the open layer is additive and holds no delta yet, the
    /// input is applied straight onto the finished result below in one pass
    /// (in the mixer composition: after the rest fill, where every additive
    /// delta goes) instead of accumulating a delta pose that a second pass
    /// applies. Errors as [`add`](Self::add), leaving the output unfinished.
    pub fn finish_with(mut self, input: &BlendInput<'_>) -> Result<(), RuntimeError> {
        let (mode, layer_weight) = self.open_layer();
        let n = self.rest.len();
        match self.lone_additive(mode, input) {
            Some(reference) if self.composition == Composition::Mixer => {
                self.fill_rest();
                let weight = layer_weight * input.weight;
                if weight > 0.0 {
                    add_onto(self.output, input.pose, &reference.pose, input.animated, weight, input.mask, n);
                }
                self.ctx.clean = !self.dirty;
            }
            // The layer stack applies a lone additive input directly already.
            _ => {
                self.add_last(input)?;
                self.finish();
            }
        }
        Ok(())
    }

    /// The reference of `input` when it can be added straight onto the
    /// output as an additive layer's only delta: the open layer (`mode`) is
    /// additive, no delta is held yet, and the input fits the blend (else
    /// [`add`](Self::add) reports why).
    fn lone_additive<'i>(&self, mode: BlendMode, input: &BlendInput<'i>) -> Option<&'i ReferencePose> {
        let n = self.rest.len();
        let fits = input.pose.len() == n
            && input.animated.len() == n
            && input.mask.is_none_or(|m| m.len() == n)
            && input.weight.is_finite()
            && input.weight >= 0.0;
        let reference = input.reference.filter(|r| r.len() == n)?;
        (mode == BlendMode::Additive && !self.held && fits).then_some(reference)
    }

    /// Writes the weights an input written in place left in its flags
    /// (see [`Blender::unmarked`]) into `ctx.weights`.
    fn mark(&mut self) {
        if let (true, Weights::Shared(w)) = (std::mem::take(&mut self.unmarked), self.weights) {
            let n = self.rest.len();
            let ctx = &mut *self.ctx;
            mark_animated(&mut ctx.weights[..3 * blocks_for(n)], &ctx.flags[..blocks_for(n) * BLOCK], w, n);
            self.dirty = true;
        }
    }

    /// The rest fill of the output by the accumulated weights, from the
    /// flags of an input written in place when those hold them.
    fn fill_rest(&mut self) {
        let n = self.rest.len();
        let weights = match (self.unmarked, self.weights) {
            (true, Weights::Shared(_)) if self.covered => return,
            (true, Weights::Shared(w)) => RestWeights::Flags(&self.ctx.flags[..blocks_for(n) * BLOCK], w),
            _ => RestWeights::Rows(&self.ctx.weights[..3 * blocks_for(n)]),
        };
        rest_fill(self.output, self.rest, weights, n);
    }

    fn close_layer(&mut self) {
        let Some((mode, _)) = self.open.take() else { return };
        if self.composition == Composition::Mixer {
            return;
        }
        let n = self.rest.len();
        let rows = 3 * blocks_for(n);
        match mode {
            BlendMode::Override if !self.base_done => {
                self.fill_rest();
                self.base_done = true;
            }
            BlendMode::Override => {
                self.mark();
                compose_over(self.output, &self.ctx.layer, &self.ctx.weights[..rows], n);
            }
            BlendMode::Additive if self.held => {
                apply_delta(self.output, &self.ctx.delta, &self.ctx.held[..rows], n);
                self.ctx.held[..rows].fill(Row::splat(0.0));
                self.held = false;
            }
            BlendMode::Additive => {}
        }
        // Weights left in an input's flags were never written.
        if self.weights != Weights::Zero && !std::mem::take(&mut self.unmarked) {
            self.ctx.weights[..rows].fill(Row::splat(0.0));
        }
        self.weights = Weights::Zero;
    }
}

// ---------------------------------------------------------------- kernels
//
// Each kernel runs over the vectors (`V::LANES` joints: half a block or a
// whole one) covering the first `n` joints, branch-free within a vector: a
// lane's result is selected from the candidates, so a lane that must not
// change keeps its value bit for bit. Vectors where no lane has work are
// skipped. Each array is sliced once per vector (`rows(..)`), so the loads
// inside index slices of known length.

/// The `V::LANES` entries of `src` from joint `j0`, zero-padded past its end.
#[inline(always)]
fn lane_slice<'a, T: Copy + Default, V: Lanes>(src: &'a [T], j0: usize, pad: &'a mut [T; BLOCK]) -> &'a [T] {
    if j0 + V::LANES <= src.len() {
        &src[j0..j0 + V::LANES]
    } else {
        let have = src.len().saturating_sub(j0);
        pad[..have].copy_from_slice(&src[j0..j0 + have]);
        &pad[..V::LANES]
    }
}

/// The flags of joints `j0..j0 + BLOCK` from `flags`, 0 past its end. Past
/// the end, the bytes come from one load of the last eight, shifted, rather
/// than copied into a buffer and loaded back: a load of bytes just stored
/// one at a time waits for them to reach the cache (a failed store
/// forward), once per kernel call on the last block of most skeletons.
#[inline(always)]
fn lane_flags(flags: &[u8], j0: usize) -> [u8; BLOCK] {
    let n = flags.len();
    if let Some(whole) = flags.get(j0..j0 + BLOCK) {
        return whole.try_into().unwrap_or([0; BLOCK]);
    }
    if j0 >= n {
        return [0; BLOCK];
    }
    match flags.get(n.wrapping_sub(BLOCK)..) {
        Some(last) if n >= BLOCK => {
            let word = u64::from_le_bytes(last.try_into().unwrap_or([0; BLOCK]));
            // Lanes `j0..n` are the word's top `n − j0` bytes.
            (word >> (8 * (j0 + BLOCK - n))).to_le_bytes()
        }
        _ => std::array::from_fn(|l| flags.get(j0 + l).copied().unwrap_or(0)),
    }
}

/// Effective input weight per lane: `weight × mask[j]`.
#[inline(always)]
fn lane_weights<V: Lanes>(weight: f32, mask: Option<&[f32]>, j0: usize) -> V {
    match mask {
        None => V::splat(weight),
        Some(m) => {
            let mut pad = [0.0; BLOCK];
            V::splat(weight) * V::load_flat(lane_slice::<f32, V>(m, j0, &mut pad))
        }
    }
}

dispatch!(fn accumulate / accumulate_at => accumulate_lanes(
    target: &mut Pose,
    weights: &mut [Row],
    pose: &Pose,
    animated: &[u8],
    weight: f32,
    mask: Option<&[f32]>,
    shared: Option<f32>,
    n: usize,
));
dispatch!(fn mark_animated / mark_animated_at => mark_animated_lanes(
    weights: &mut [Row],
    animated: &[u8],
    weight: f32,
    n: usize,
));
dispatch!(fn rest_fill / rest_fill_at => rest_fill_lanes(output: &mut Pose, rest: &Pose, weights: RestWeights<'_>, n: usize));
dispatch!(fn compose_over / compose_over_at => compose_over_lanes(output: &mut Pose, layer: &Pose, weights: &[Row], n: usize));
dispatch!(fn accumulate_additive / accumulate_additive_at => accumulate_additive_lanes(
    delta: &mut Pose,
    held: &mut [Row],
    pose: &Pose,
    reference: &Pose,
    animated: &[u8],
    weight: f32,
    mask: Option<&[f32]>,
    n: usize,
));
dispatch!(fn apply_delta / apply_delta_at => apply_delta_lanes(output: &mut Pose, delta: &Pose, held: &[Row], n: usize));
dispatch!(fn add_onto / add_onto_at => add_onto_lanes(
    output: &mut Pose,
    pose: &Pose,
    reference: &Pose,
    animated: &[u8],
    weight: f32,
    mask: Option<&[f32]>,
    n: usize,
));

/// One accumulation step per lane: whether the lane's value is its first
/// (`W == 0`: copied), the interpolation parameter `w / (W + w)` (1 for a
/// first value) and the new `W`.
#[inline(always)]
fn mix_step<V: Lanes>(acc: V, w: V) -> (V::Mask, V, V) {
    let total = acc + w;
    let first = acc.eq(V::splat(0.0));
    (first, V::select(first, V::splat(1.0), w / total), total)
}

/// Three.js accumulation of one input into `target` (see the module docs).
/// `shared`: every `W` in `weights` is 0 or this value and `mask` is `None`,
/// so every lane that mixes has the parameter `weight / (shared + weight)`
/// and the rotation slerps share its series factors.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn accumulate_lanes<V: Lanes>(
    target: &mut Pose,
    weights: &mut [Row],
    pose: &Pose,
    animated: &[u8],
    weight: f32,
    mask: Option<&[f32]>,
    shared: Option<f32>,
    n: usize,
) {
    let (out_t, out_r, out_s) = target.rows_mut();
    let (in_t, in_r, in_s) = pose.rows();
    // The same operation as `mix_step`'s per lane, so the same bits.
    let uniform = shared.filter(|_| mask.is_none()).map(|w| UniformT::new(weight / (w + weight)));
    for (b, at) in vectors::<V>(n) {
        let j0 = b * BLOCK + at;
        let bits = &lane_flags(animated, j0);
        let w = lane_weights::<V>(weight, mask, j0);
        // `w > 0` also drops NaN.
        let live = w.gt(V::splat(0.0));
        let acc_rows = rows_mut(weights, 3, b);
        for (p, bit, out, input) in
            [(0, ANIMATES_TRANSLATION, &mut *out_t, in_t), (2, ANIMATES_SCALE, &mut *out_s, in_s)]
        {
            let active = V::bits(bits, bit) & live;
            if V::any(active) {
                let acc = V::load(&acc_rows[p], at);
                let (first, t, total) = mix_step(acc, w);
                let (out, input) = (rows_mut(out, 3, b), rows(input, 3, b));
                let (v, x) = (load::<V, 3>(out, at), load::<V, 3>(input, at));
                store_where(out, at, active, select(first, x, lerp(v, x, t)), v);
                store_where(&mut acc_rows[p..=p], at, active, [total], [acc]);
            }
        }
        let active = V::bits(bits, ANIMATES_ROTATION) & live;
        if V::any(active) {
            let acc = V::load(&acc_rows[1], at);
            let (first, t, total) = mix_step(acc, w);
            let (out, input) = (rows_mut(out_r, 4, b), rows(in_r, 4, b));
            let (v, x) = (load::<V, 4>(out, at), load::<V, 4>(input, at));
            // A first value is a copy (`slerp` at t = 1); when every active
            // lane's is, no slerp is needed.
            let mixed = if V::all(first | !active) {
                x
            } else if let Some(u) = &uniform {
                select(first, x, slerp_uniform(v, x, u))
            } else {
                slerp(v, x, t)
            };
            store_where(out, at, active, mixed, v);
            store_where(&mut acc_rows[1..2], at, active, [total], [acc]);
        }
    }
}

/// `W = weight` for every property `animated` flags, onto weights that are
/// all 0: what [`accumulate_lanes`] leaves in the weights for a first,
/// unmasked input of `weight > 0`.
#[inline(always)]
fn mark_animated_lanes<V: Lanes>(weights: &mut [Row], animated: &[u8], weight: f32, n: usize) {
    let (w, zero) = (V::splat(weight), V::splat(0.0));
    for (b, at) in vectors::<V>(n) {
        let j0 = b * BLOCK + at;
        let bits = &lane_flags(animated, j0);
        let acc_rows = rows_mut(weights, 3, b);
        for (p, bit) in [(0, ANIMATES_TRANSLATION), (1, ANIMATES_ROTATION), (2, ANIMATES_SCALE)] {
            let active = V::bits(bits, bit);
            if V::any(active) {
                V::select(active, w, zero).store(&mut acc_rows[p], at);
            }
        }
    }
}

/// The accumulated weights `W` a rest fill reads.
#[derive(Debug, Clone, Copy)]
enum RestWeights<'a> {
    /// As rows of `W` per joint property (`BlendingContext::weights`).
    Rows(&'a [Row]),
    /// `W = weight` where the flags animate the property, 0 elsewhere: what
    /// [`mark_animated_lanes`] would write, read without writing it.
    Flags(&'a [u8], f32),
}

impl RestWeights<'_> {
    /// `W` of property `p` (0 translation, 1 rotation, 2 scale) of the
    /// vector at joint `at` of block `b`.
    #[inline(always)]
    fn load<V: Lanes>(&self, b: usize, at: usize, p: usize) -> V {
        match *self {
            RestWeights::Rows(weights) => V::load(&rows(weights, 3, b)[p], at),
            RestWeights::Flags(animated, weight) => {
                let bits = &lane_flags(animated, b * BLOCK + at);
                let bit = [ANIMATES_TRANSLATION, ANIMATES_ROTATION, ANIMATES_SCALE][p];
                V::select(V::bits(bits, bit), V::splat(weight), V::splat(0.0))
            }
        }
    }
}

/// Fills the weight left below 1 from `rest`, per joint property (three.js
/// `PropertyMixer.apply`): `W == 0` takes the rest value, `W < 1` blends
/// towards it by `1 − W`.
#[inline(always)]
fn rest_fill_lanes<V: Lanes>(output: &mut Pose, rest: &Pose, weights: RestWeights<'_>, n: usize) {
    let (out_t, out_r, out_s) = output.rows_mut();
    let (rest_t, rest_r, rest_s) = rest.rows();
    let (zero, one) = (V::splat(0.0), V::splat(1.0));
    for (b, at) in vectors::<V>(n) {
        for (p, out, rest) in [(0, &mut *out_t, rest_t), (2, &mut *out_s, rest_s)] {
            let acc = weights.load::<V>(b, at, p);
            let partial = acc.lt(one);
            if V::any(partial) {
                let (out, rest) = (rows_mut(out, 3, b), rows(rest, 3, b));
                let r = load::<V, 3>(rest, at);
                let none = acc.eq(zero);
                if V::all(none) {
                    store(out, at, r);
                    continue;
                }
                let v = load::<V, 3>(out, at);
                let filled = select(partial, lerp(v, r, one - acc), v);
                store(out, at, select(none, r, filled));
            }
        }
        let acc = weights.load::<V>(b, at, 1);
        let partial = acc.lt(one);
        if V::any(partial) {
            let (out, rest) = (rows_mut(out_r, 4, b), rows(rest_r, 4, b));
            let r = load::<V, 4>(rest, at);
            let none = acc.eq(zero);
            if V::all(none) {
                store(out, at, r);
                continue;
            }
            // `W == 0` takes the rest value as it is (three.js `slerpFlat`
            // at 1 copies it); only lanes with `0 < W < 1` need the slerp,
            // and a block whose other lanes are joints no input animates, or
            // the lanes past the last joint, has none.
            let v = load::<V, 4>(out, at);
            let between = partial & !none;
            let filled = if V::any(between) { select(between, slerp(v, r, one - acc), v) } else { v };
            store(out, at, select(none, r, filled));
        }
    }
}

/// `output = blend(output, layer, min(W, 1))` per joint property with `W > 0`.
#[inline(always)]
fn compose_over_lanes<V: Lanes>(output: &mut Pose, layer: &Pose, weights: &[Row], n: usize) {
    let (out_t, out_r, out_s) = output.rows_mut();
    let (lay_t, lay_r, lay_s) = layer.rows();
    let (zero, one) = (V::splat(0.0), V::splat(1.0));
    for (b, at) in vectors::<V>(n) {
        let acc_rows = rows(weights, 3, b);
        for (p, out, layer) in [(0, &mut *out_t, lay_t), (2, &mut *out_s, lay_s)] {
            let acc = V::load(&acc_rows[p], at);
            let some = acc.gt(zero);
            if V::any(some) {
                let (out, layer) = (rows_mut(out, 3, b), rows(layer, 3, b));
                let (v, l) = (load::<V, 3>(out, at), load::<V, 3>(layer, at));
                let blended = select(some, lerp(v, l, acc), v);
                store(out, at, select(acc.ge(one), l, blended));
            }
        }
        let acc = V::load(&acc_rows[1], at);
        let some = acc.gt(zero);
        if V::any(some) {
            let (out, layer) = (rows_mut(out_r, 4, b), rows(lay_r, 4, b));
            let (v, l) = (load::<V, 4>(out, at), load::<V, 4>(layer, at));
            let full = acc.ge(one);
            let blended = if V::all(full | !some) { select(full, l, v) } else { slerp(v, l, acc) };
            store(out, at, select(full, l, select(some, blended, v)));
        }
    }
}

/// Three.js additive accumulation of one input into `delta` (see the module
/// docs); `reference` holds the inverted reference rotations.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn accumulate_additive_lanes<V: Lanes>(
    delta: &mut Pose,
    held: &mut [Row],
    pose: &Pose,
    reference: &Pose,
    animated: &[u8],
    weight: f32,
    mask: Option<&[f32]>,
    n: usize,
) {
    let (d_t, d_r, d_s) = delta.rows_mut();
    let (in_t, in_r, in_s) = pose.rows();
    let (ref_t, ref_r, ref_s) = reference.rows();
    let (zero, one) = (V::splat(0.0), V::splat(1.0));
    // Without a mask every lane slerps by the same weight: its series
    // factors are computed once.
    let uniform = mask.is_none().then(|| UniformT::new(weight));
    for (b, at) in vectors::<V>(n) {
        let j0 = b * BLOCK + at;
        let bits = &lane_flags(animated, j0);
        let w = lane_weights::<V>(weight, mask, j0);
        let live = w.gt(zero);
        let held_rows = rows_mut(held, 3, b);
        for (p, bit, d, input, reference) in
            [(0, ANIMATES_TRANSLATION, &mut *d_t, in_t, ref_t), (2, ANIMATES_SCALE, &mut *d_s, in_s, ref_s)]
        {
            let active = V::bits(bits, bit) & live;
            if V::any(active) {
                let had = V::load(&held_rows[p], at);
                let d = rows_mut(d, 3, b);
                let old = load::<V, 3>(d, at);
                let step = additive_step(rows(input, 3, b), rows(reference, 3, b), at, w);
                let mut sum = old;
                for (total, s) in sum.iter_mut().zip(step) {
                    *total = *total + s;
                }
                let new = select(had.gt(zero), sum, step);
                store_where(d, at, active, new, old);
                store_where(&mut held_rows[p..=p], at, active, [one], [had]);
            }
        }
        let active = V::bits(bits, ANIMATES_ROTATION) & live;
        if V::any(active) {
            let had = V::load(&held_rows[1], at);
            let d = rows_mut(d_r, 4, b);
            let old = load::<V, 4>(d, at);
            let held = had.gt(zero);
            let acc = V::any(held).then(|| select(held, old, [zero, zero, zero, one]));
            let step = additive_rotation_step(acc, rows(in_r, 4, b), rows(ref_r, 4, b), at, uniform.as_ref(), w);
            store_where(d, at, active, step, old);
            store_where(&mut held_rows[1..2], at, active, [one], [had]);
        }
    }
}

/// One additive input's translation or scale step, `w·(x − ref)`, at lanes
/// `at..` of a block's rows of the input and of the reference.
#[inline(always)]
fn additive_step<V: Lanes>(input: &[Row], reference: &[Row], at: usize, w: V) -> [V; 3] {
    let (x, r) = (load::<V, 3>(input, at), load::<V, 3>(reference, at));
    std::array::from_fn(|c| (x[c] - r[c]) * w)
}

/// One additive input's rotation step, three.js `accumulateAdditive`:
/// `slerp(acc, acc ⊗ (ref⁻¹ ⊗ q), w)` at lanes `at..` of a block's rows of
/// the input (`q`) and of the inverted reference, from the delta held so far
/// (`None`: every lane starts from the identity, where `acc ⊗ x` is `x` up
/// to the sign of a zero component). The reference's noise was flushed when
/// it was prepared; the input's is flushed here (see `flush_noise`).
#[inline(always)]
fn additive_rotation_step<V: Lanes>(
    acc: Option<QuatLanes<V>>,
    input: &[Row],
    inverted_reference: &[Row],
    at: usize,
    uniform: Option<&UniformT>,
    w: V,
) -> QuatLanes<V> {
    let q = quat_mul(load::<V, 4>(inverted_reference, at), flush_noise(load::<V, 4>(input, at)));
    match (acc, uniform) {
        (Some(acc), Some(u)) => slerp_uniform(acc, quat_mul(acc, q), u),
        (Some(acc), None) => slerp(acc, quat_mul(acc, q), w),
        (None, Some(u)) => slerp_uniform_from_identity(q, u),
        (None, None) => {
            let (zero, one) = (V::splat(0.0), V::splat(1.0));
            slerp([zero, zero, zero, one], q, w)
        }
    }
}

/// Applies an accumulated additive delta: `r ⊗ Δr`, `t + Δt`, `s + Δs`.
#[inline(always)]
fn apply_delta_lanes<V: Lanes>(output: &mut Pose, delta: &Pose, held: &[Row], n: usize) {
    let (out_t, out_r, out_s) = output.rows_mut();
    let (d_t, d_r, d_s) = delta.rows();
    let zero = V::splat(0.0);
    for (b, at) in vectors::<V>(n) {
        let held_rows = rows(held, 3, b);
        for (p, out, d) in [(0, &mut *out_t, d_t), (2, &mut *out_s, d_s)] {
            let had = V::load(&held_rows[p], at).gt(zero);
            if V::any(had) {
                let out = rows_mut(out, 3, b);
                let (v, dv) = (load::<V, 3>(out, at), load::<V, 3>(rows(d, 3, b), at));
                let mut sum = v;
                for (c, s) in sum.iter_mut().enumerate() {
                    *s = v[c] + dv[c];
                }
                store_where(out, at, had, sum, v);
            }
        }
        let had = V::load(&held_rows[1], at).gt(zero);
        if V::any(had) {
            let out = rows_mut(out_r, 4, b);
            let v = load::<V, 4>(out, at);
            store_where(out, at, had, quat_mul(v, load::<V, 4>(rows(d_r, 4, b), at)), v);
        }
    }
}

/// One additive input applied straight onto `output`: the same operations,
/// so the same bits, as [`accumulate_additive_lanes`] into a delta that
/// holds nothing followed by [`apply_delta_lanes`], in one pass and without
/// storing the delta.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn add_onto_lanes<V: Lanes>(
    output: &mut Pose,
    pose: &Pose,
    reference: &Pose,
    animated: &[u8],
    weight: f32,
    mask: Option<&[f32]>,
    n: usize,
) {
    let (out_t, out_r, out_s) = output.rows_mut();
    let (in_t, in_r, in_s) = pose.rows();
    let (ref_t, ref_r, ref_s) = reference.rows();
    let zero = V::splat(0.0);
    let uniform = mask.is_none().then(|| UniformT::new(weight));
    for (b, at) in vectors::<V>(n) {
        let j0 = b * BLOCK + at;
        let bits = &lane_flags(animated, j0);
        let w = lane_weights::<V>(weight, mask, j0);
        let live = w.gt(zero);
        for (bit, out, input, reference) in
            [(ANIMATES_TRANSLATION, &mut *out_t, in_t, ref_t), (ANIMATES_SCALE, &mut *out_s, in_s, ref_s)]
        {
            let active = V::bits(bits, bit) & live;
            if V::any(active) {
                let out = rows_mut(out, 3, b);
                let v = load::<V, 3>(out, at);
                let step = additive_step(rows(input, 3, b), rows(reference, 3, b), at, w);
                let mut sum = v;
                for (total, s) in sum.iter_mut().zip(step) {
                    *total = *total + s;
                }
                store_where(out, at, active, sum, v);
            }
        }
        let active = V::bits(bits, ANIMATES_ROTATION) & live;
        if V::any(active) {
            let out = rows_mut(out_r, 4, b);
            let delta = additive_rotation_step(None, rows(in_r, 4, b), rows(ref_r, 4, b), at, uniform.as_ref(), w);
            let v = load::<V, 4>(out, at);
            store_where(out, at, active, quat_mul(v, delta), v);
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
    cross_fade(target, source, w);
}

dispatch!(fn cross_fade / cross_fade_at => cross_fade_lanes(target: &mut Pose, source: &Pose, weight: f32));

/// `target = blend(target, source, weight)` for every joint property.
#[inline(always)]
fn cross_fade_lanes<V: Lanes>(target: &mut Pose, source: &Pose, weight: f32) {
    let n = target.len();
    let (out_t, out_r, out_s) = target.rows_mut();
    let (src_t, src_r, src_s) = source.rows();
    let w = V::splat(weight);
    let uniform = UniformT::new(weight);
    for (b, at) in vectors::<V>(n) {
        for (out, src) in [(&mut *out_t, src_t), (&mut *out_s, src_s)] {
            let out = rows_mut(out, 3, b);
            let (v, x) = (load::<V, 3>(out, at), load::<V, 3>(rows(src, 3, b), at));
            store(out, at, lerp(v, x, w));
        }
        let out = rows_mut(out_r, 4, b);
        let (v, x) = (load::<V, 4>(out, at), load::<V, 4>(rows(src_r, 4, b), at));
        store(out, at, slerp_uniform(v, x, &uniform));
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
        let mut final_input = None;
        for (l, layer) in self.layers.iter().enumerate() {
            blender.layer(layer.mode, layer.weight);
            let Some((last, inputs)) = layer.inputs.split_last() else { continue };
            for input in inputs {
                blender.add(input)?;
            }
            if l + 1 == self.layers.len() {
                final_input = Some(last);
            } else {
                blender.add_last(last)?;
            }
        }
        match final_input {
            Some(input) => blender.finish_with(input),
            None => {
                blender.finish();
                Ok(())
            }
        }
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
        assert_eq!(run(Composition::Mixer, &layers).translation(0).x, 4.0);
        // At weight 0.25 the top layer blends a quarter of the way over the base.
        let layers = [layers[0], BlendLayer { weight: 0.25, ..layers[1] }];
        let got = run(Composition::Layered, &layers);
        assert_eq!(got.translation(0).x, 2.0 * 0.75 + 6.0 * 0.25);
        assert!(got.rotation(0).abs_diff_eq(Quat::from_rotation_x(0.4 * 0.75 + 0.25), 1e-6));
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
        assert_eq!(got.translation(1), a.translation(1), "translation is not animated by the top layer");
        assert_eq!(got.rotation(1), b.rotation(1));
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
        assert_eq!(got.translation(1).x, 3.0 + 0.5 * 0.5);
        assert!(got.rotation(1).abs_diff_eq(Quat::from_rotation_x(0.4 + 0.1), 1e-6));
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

    /// Every component of every joint of `p`, as bits.
    fn bits(p: &Pose) -> Vec<u32> {
        p.transforms()
            .flat_map(|t| t.translation.to_array().into_iter().chain(t.rotation.to_array()).chain(t.scale.to_array()))
            .map(f32::to_bits)
            .collect()
    }

    /// Writes `from`'s properties that `flags` mark into `to`, as sampling does.
    fn write_flagged(to: &mut Pose, from: &Pose, flags: &[u8]) -> Result<(), RuntimeError> {
        for (j, &f) in flags.iter().enumerate() {
            if f & ANIMATES_TRANSLATION != 0 {
                to.set_translation(j, from.translation(j));
            }
            if f & ANIMATES_ROTATION != 0 {
                to.set_rotation(j, from.rotation(j));
            }
            if f & ANIMATES_SCALE != 0 {
                to.set_scale(j, from.scale(j));
            }
        }
        Ok(())
    }

    #[test]
    fn lane_flags_are_the_flags_from_a_joint_and_zero_past_the_end() {
        for n in 0..20u8 {
            let flags: Vec<u8> = (1..=n).collect();
            for j0 in (0..24).step_by(4) {
                let want: [u8; BLOCK] = std::array::from_fn(|l| flags.get(j0 + l).copied().unwrap_or(0));
                assert_eq!(lane_flags(&flags, j0), want, "{n} flags from {j0}");
            }
        }
    }

    #[test]
    fn a_last_input_closes_its_layer_as_added_ones_do_bit_for_bit() {
        let (a, b, mut c) = (pose(2.0, 0.4), pose(6.0, 1.0), pose(-1.0, 2.5));
        // Rotations about other axes, so that the order of products shows.
        c.set_rotation(0, Quat::from_rotation_y(0.9));
        c.set_rotation(1, Quat::from_euler(glam::EulerRot::XYZ, 0.3, -1.2, 0.4));
        let partial = [ANIMATES_ROTATION, ANIMATES_TRANSLATION | ANIMATES_SCALE];
        let reference = ReferencePose::from_pose(&pose(1.0, 0.2));
        let mask = [0.0, 0.7];
        // Layers of (mode, weight, inputs): an override base, an additive
        // layer of one input (masked or not), of two inputs, then an
        // override layer or additive one on top.
        let add = |p: &'static str| match p {
            "c" => BlendInput::new(&c, &[ALL; 2], 1.0).with_reference(&reference),
            "c/2" => BlendInput::new(&c, &partial, 0.5).with_reference(&reference),
            "a-masked" => BlendInput::new(&a, &[ALL; 2], 0.8).with_reference(&reference).with_mask(&mask),
            "b" => BlendInput::new(&b, &partial, 1.0),
            _ => BlendInput::new(&a, &[ALL; 2], 0.0).with_reference(&reference),
        };
        let stacks: [&[(BlendMode, f32, &[&str])]; 5] = [
            &[(BlendMode::Override, 1.0, &["b"]), (BlendMode::Additive, 0.5, &["c"])],
            &[(BlendMode::Override, 0.6, &["b"]), (BlendMode::Additive, 1.0, &["a-masked"])],
            &[(BlendMode::Additive, 0.7, &["c", "c/2"]), (BlendMode::Override, 0.5, &["b"])],
            &[
                (BlendMode::Override, 1.0, &["b"]),
                (BlendMode::Additive, 1.0, &["c/2"]),
                (BlendMode::Additive, 0.4, &["c"]),
            ],
            &[(BlendMode::Override, 1.0, &["b"]), (BlendMode::Additive, 1.0, &["zero"])],
        ];
        for composition in [Composition::Mixer, Composition::Layered] {
            for (k, stack) in stacks.iter().enumerate() {
                let rest = pose(0.0, 0.0);
                let mut ctx = BlendingContext::new(2);
                let mut want = rest.clone();
                let mut blender = ctx.begin(composition, &rest, &mut want).unwrap();
                for (mode, weight, inputs) in stack.iter() {
                    blender.layer(*mode, *weight);
                    for p in inputs.iter() {
                        blender.add(&add(p)).unwrap();
                    }
                }
                blender.finish();
                // Each layer's last input by `add_last`, the blend's by `finish_with`.
                let mut got = pose(9.0, 3.0);
                let mut blender = ctx.begin(composition, &rest, &mut got).unwrap();
                let mut last = None;
                for (l, (mode, weight, inputs)) in stack.iter().enumerate() {
                    blender.layer(*mode, *weight);
                    let (final_one, inputs) = inputs.split_last().unwrap();
                    for p in inputs.iter() {
                        blender.add(&add(p)).unwrap();
                    }
                    if l + 1 == stack.len() {
                        last = Some(add(final_one));
                    } else {
                        blender.add_last(&add(final_one)).unwrap();
                    }
                }
                blender.finish_with(&last.unwrap()).unwrap();
                assert_eq!(bits(&got), bits(&want), "{composition:?}, stack {k}");
                // The job closes layers the same way.
                let layers: Vec<Vec<BlendInput<'_>>> =
                    stack.iter().map(|(_, _, inputs)| inputs.iter().map(|p| add(p)).collect()).collect();
                let layers: Vec<BlendLayer<'_>> = stack
                    .iter()
                    .zip(&layers)
                    .map(|((mode, weight, _), inputs)| BlendLayer { mode: *mode, weight: *weight, inputs })
                    .collect();
                let mut job = pose(9.0, 3.0);
                BlendingJob { rest: &rest, layers: &layers, composition, context: &mut ctx, output: &mut job }
                    .run()
                    .unwrap();
                assert_eq!(bits(&job), bits(&want), "job: {composition:?}, stack {k}");
            }
        }
        // A bad last input is reported like an added one.
        let rest = pose(0.0, 0.0);
        let (mut ctx, mut out) = (BlendingContext::new(2), rest.clone());
        let mut blender = ctx.begin(Composition::Mixer, &rest, &mut out).unwrap();
        blender.layer(BlendMode::Additive, 1.0);
        let RuntimeError::InvalidJob { reasons, .. } =
            blender.finish_with(&BlendInput::new(&c, &[ALL; 2], f32::NAN)).unwrap_err()
        else {
            panic!()
        };
        assert_eq!(reasons.len(), 2, "{reasons:?}");
    }

    /// An input written in place that animates every property of every
    /// joint at weight 1 leaves nothing for the rest fill (which it skips);
    /// at a lower weight, or with a property left out, the rest fills in.
    /// Either way the same bits as the input added.
    #[test]
    fn an_input_in_place_that_animates_everything_at_full_weight_is_the_pose() {
        let (a, rest) = (pose(2.0, 0.4), pose(0.0, 0.0));
        for (flags, weight) in [([ALL; 2], 1.0), ([ALL; 2], 0.8), ([ALL, ANIMATES_ROTATION], 1.0)] {
            let mut ctx = BlendingContext::new(2);
            let mut want = rest.clone();
            let mut blender = ctx.begin(Composition::Mixer, &rest, &mut want).unwrap();
            blender.add(&BlendInput::new(&a, &flags, weight)).unwrap();
            blender.finish();
            let mut out = pose(9.0, 3.0);
            let mut blender = ctx.begin(Composition::Mixer, &rest, &mut out).unwrap();
            assert!(blender.add_in_place(&flags, weight, |t| write_flagged(t, &a, &flags)).unwrap());
            blender.finish();
            assert_eq!(bits(&out), bits(&want), "{flags:?} at {weight}");
            assert_eq!(bits(&out) == bits(&a), flags == [ALL; 2] && weight == 1.0, "{flags:?} at {weight}");
        }
    }

    #[test]
    fn an_input_written_in_place_blends_as_an_added_one_bit_for_bit() {
        let (a, b, c) = (pose(2.0, 0.4), pose(6.0, 1.0), pose(-1.0, 2.5));
        let partial = [ANIMATES_ROTATION, ANIMATES_TRANSLATION | ANIMATES_SCALE];
        let reference = ReferencePose::from_pose(&pose(1.0, 0.2));
        for composition in [Composition::Mixer, Composition::Layered] {
            for layer_weight in [1.0, 0.7] {
                let rest = pose(0.0, 0.0);
                let (mut ctx, mut out) = (BlendingContext::new(2), rest.clone());
                let mut blender = ctx.begin(composition, &rest, &mut out).unwrap();
                blender.layer(BlendMode::Override, layer_weight);
                blender.add(&BlendInput::new(&a, &partial, 0.6)).unwrap();
                blender.add(&BlendInput::new(&b, &[ALL; 2], 0.4)).unwrap();
                blender.layer(BlendMode::Override, 0.5);
                blender.add(&BlendInput::new(&c, &partial, 1.0)).unwrap();
                blender.layer(BlendMode::Additive, 0.5);
                blender.add(&BlendInput::new(&c, &[ALL; 2], 1.0).with_reference(&reference)).unwrap();
                blender.finish();
                let want = out.clone();

                // The first input of the first override layer goes in place
                // (and of every override layer when layered: the mixer
                // accumulates all layers into one set of weights); the
                // second input and the additive one cannot.
                let mut out = pose(9.0, 3.0); // stale values must not matter
                let mut blender = ctx.begin(composition, &rest, &mut out).unwrap();
                blender.layer(BlendMode::Override, layer_weight);
                assert!(blender.add_in_place(&partial, 0.6, |t| write_flagged(t, &a, &partial)).unwrap());
                let never = |_: &mut Pose| -> Result<(), RuntimeError> { panic!("not written in place") };
                assert!(!blender.add_in_place(&[ALL; 2], 0.4, never).unwrap());
                blender.add(&BlendInput::new(&b, &[ALL; 2], 0.4)).unwrap();
                blender.layer(BlendMode::Override, 0.5);
                let in_place = blender.add_in_place(&partial, 1.0, |t| write_flagged(t, &c, &partial)).unwrap();
                assert_eq!(in_place, composition == Composition::Layered);
                if !in_place {
                    blender.add(&BlendInput::new(&c, &partial, 1.0)).unwrap();
                }
                blender.layer(BlendMode::Additive, 0.5);
                assert!(!blender.add_in_place(&[ALL; 2], 1.0, never).unwrap());
                blender.add(&BlendInput::new(&c, &[ALL; 2], 1.0).with_reference(&reference)).unwrap();
                blender.finish();
                assert_eq!(bits(&out), bits(&want), "{composition:?}, layer weight {layer_weight}");
            }
        }
        // Bad lengths and weights are reported, and `write` is not called.
        let rest = pose(0.0, 0.0);
        let (mut ctx, mut out) = (BlendingContext::new(2), rest.clone());
        let mut blender = ctx.begin(Composition::Mixer, &rest, &mut out).unwrap();
        let never = |_: &mut Pose| -> Result<(), RuntimeError> { panic!("written after a failed check") };
        let RuntimeError::InvalidJob { reasons, .. } = blender.add_in_place(&[ALL], f32::NAN, never).unwrap_err()
        else {
            panic!()
        };
        assert_eq!(reasons.len(), 2, "{reasons:?}");
    }
}

/// The kernels on every path against an `f64` transcription of three.js
/// (`PropertyMixer` accumulation and rest fill, the additive buffer,
/// `Quaternion.slerpFlat`), one kernel call at a time, on random poses,
/// weights, masks and animated flags; rotations include unit, opposite
/// hemisphere, slightly unnormalized and denormal-component quaternions.
#[cfg(test)]
// The reference loops index several per-joint arrays at once, and `!(w > 0.0)`
// is three.js's test (NaN counts as no weight).
#[allow(clippy::needless_range_loop, clippy::neg_cmp_op_on_partial_ord)]
mod kernel_tests {
    use glam::{Quat, Vec3};
    use proptest::prelude::*;
    use zoa_anim_core::Transform;
    use zoa_test_support::three::{self, Q};

    use super::*;
    use crate::simd::Level;
    use crate::simd::tests::each_path;

    thread_local! {
        /// Set when a reference slerp had operands 90° apart (|cos| < 1e-6):
        /// which way round is then decided by the sign of a cosine at the
        /// rounding level of `f32`, so either arc is right; such cases are skipped.
        static AMBIGUOUS: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    }

    /// three.js `Quaternion.slerpFlat` in `f64`, noting operands 90° apart.
    fn slerp64(a: Q, b: Q, t: f64) -> Q {
        if t != 0.0 && t != 1.0 && a != b && three::dot(a, b).abs() < 1e-6 {
            AMBIGUOUS.set(true);
        }
        three::slerp(a, b, t)
    }
    /// One joint's properties in `f64`.
    #[derive(Debug, Clone, Copy)]
    struct J {
        t: [f64; 3],
        r: Q,
        s: [f64; 3],
    }
    fn joints(p: &Pose) -> Vec<J> {
        p.transforms()
            .map(|x| J {
                t: x.translation.to_array().map(f64::from),
                r: x.rotation.to_array().map(f64::from),
                s: x.scale.to_array().map(f64::from),
            })
            .collect()
    }

    /// Lane `j` of property row `p` (0 translation, 1 rotation, 2 scale).
    fn lane(rows: &[Row], j: usize, p: usize) -> f32 {
        rows[j / BLOCK * 3 + p].0[j % BLOCK]
    }
    fn rows_from(values: &[[f32; 3]]) -> Vec<Row> {
        let mut rows = vec![Row::splat(0.0); 3 * blocks_for(values.len())];
        for (j, v) in values.iter().enumerate() {
            for p in 0..3 {
                rows[j / BLOCK * 3 + p].0[j % BLOCK] = v[p];
            }
        }
        rows
    }

    fn quat() -> impl Strategy<Value = Quat> {
        let unit = (-1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0)
            .prop_filter("non-degenerate", |(x, y, z, w)| x * x + y * y + z * z + w * w > 0.01)
            .prop_map(|(x, y, z, w)| Quat::from_xyzw(x, y, z, w).normalize());
        prop_oneof![
            4 => unit.clone(),
            // Slightly short of unit length (three.js uses the dot as the cosine).
            1 => (unit.clone(), 0.9f32..0.999).prop_map(|(q, l)| q * l),
            // Denormal components.
            1 => (unit, 1usize..3).prop_map(|(q, k)| {
                // Two components other than the largest become denormal.
                let mut a = q.to_array();
                let big = (0..4).max_by(|&i, &j| a[i].abs().total_cmp(&a[j].abs())).unwrap_or(3);
                a[(big + k) % 4] = 1e-39 * a[(big + k) % 4].signum();
                a[(big + k + 1) % 4] = -3e-40;
                Quat::from_array(a).normalize()
            }),
        ]
    }
    fn transform() -> impl Strategy<Value = Transform> {
        let v = || (-10.0f32..10.0, -10.0f32..10.0, -10.0f32..10.0).prop_map(|(x, y, z)| Vec3::new(x, y, z));
        (v(), quat(), v()).prop_map(|(translation, rotation, scale)| Transform { translation, rotation, scale })
    }
    /// A weight: often 0 or 1 exactly, sometimes denormal, else in (0, 1].
    fn weight() -> impl Strategy<Value = f32> {
        prop_oneof![1 => Just(0.0f32), 1 => Just(1.0f32), 1 => Just(1e-40f32), 4 => 0.0f32..=1.0]
    }
    /// An accumulated weight `W`: 0 (no value yet), tiny, or up to 2.
    fn acc_weight() -> impl Strategy<Value = f32> {
        prop_oneof![2 => Just(0.0f32), 1 => Just(1.0f32), 1 => Just(1e-40f32), 4 => 0.0f32..2.0]
    }

    /// A case over `n` joints: output, input, rest poses; input `i`'s rotation
    /// sometimes set to the output's, or to its opposite-hemisphere near copy.
    #[derive(Debug, Clone)]
    struct Case {
        out: Pose,
        input: Pose,
        rest: Pose,
        animated: Vec<u8>,
        mask: Option<Vec<f32>>,
        acc: Vec<[f32; 3]>,
        weight: f32,
    }
    fn case() -> impl Strategy<Value = Case> {
        (1usize..14).prop_flat_map(|n| {
            (
                prop::collection::vec(transform(), n),
                prop::collection::vec(transform(), n),
                prop::collection::vec(transform(), n),
                prop::collection::vec(0u8..8, n),
                prop::option::of(prop::collection::vec(weight(), n)),
                prop::collection::vec((acc_weight(), acc_weight(), acc_weight()), n),
                weight(),
                prop::collection::vec(0u8..4, n),
            )
                .prop_map(|(out, mut input, rest, animated, mask, acc, weight, relation)| {
                    for ((i, o), k) in input.iter_mut().zip(&out).zip(relation) {
                        match k {
                            1 => i.rotation = o.rotation,
                            2 => i.rotation = -(o.rotation * Quat::from_rotation_y(0.05)),
                            _ => {}
                        }
                    }
                    Case {
                        out: Pose::from_transforms(out),
                        input: Pose::from_transforms(input),
                        rest: Pose::from_transforms(rest),
                        animated,
                        mask,
                        acc: acc.into_iter().map(|(a, b, c)| [a, b, c]).collect(),
                        weight,
                    }
                })
        })
    }

    /// Rotations within 1e-6; translations and scales (up to 10 in these
    /// cases, and up to 20 apart) within 1e-6 of that magnitude.
    fn close(got: f64, want: f64, magnitude: f64) -> bool {
        (got - want).abs() <= 1e-6 * magnitude
    }
    fn check_pose(path: &str, got: &Pose, want: &[J]) -> Result<(), TestCaseError> {
        for (j, (g, w)) in joints(got).iter().zip(want).enumerate() {
            let ok = (0..3).all(|c| close(g.t[c], w.t[c], 20.0) && close(g.s[c], w.s[c], 20.0))
                && (0..4).all(|c| close(g.r[c], w.r[c], 1.0));
            prop_assert!(ok, "{path}: joint {j}: got {g:?}, want {w:?}");
        }
        Ok(())
    }
    /// Runs `kernel` on each path; every result within 1e-6 of `want`, and the
    /// scalar and four-lane results equal bit for bit.
    fn on_every_path(want: &[J], mut kernel: impl FnMut(Level) -> Pose) -> Result<(), TestCaseError> {
        let mut results = Vec::new();
        let mut failure = Ok(());
        each_path(|path, level| {
            let got = kernel(level);
            if failure.is_ok() {
                failure = check_pose(path, &got, want);
            }
            results.push((path.to_owned(), got));
        });
        failure?;
        let bits = |p: &Pose| p.transforms().map(|t| format!("{:?}", t)).collect::<Vec<_>>();
        prop_assert_eq!(bits(&results[0].1), bits(&results[1].1), "scalar and four lanes differ");
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(400))]

        #[test]
        fn accumulate_matches_three_js(mut c in case(), share in any::<bool>()) {
            AMBIGUOUS.set(false);
            // Shared: no mask, and every accumulated weight 0 or one value
            // (what the blender passes after one unmasked input).
            let shared = share.then(|| {
                let w = if c.acc[0][1] > 0.0 { c.acc[0][1] } else { 0.7 };
                c.mask = None;
                for a in c.acc.iter_mut().flatten() {
                    *a = if *a > 0.0 { w } else { 0.0 };
                }
                w
            });
            let n = c.out.len();
            let mut want = joints(&c.out);
            let input = joints(&c.input);
            let mut want_acc = c.acc.clone().into_iter().map(|a| a.map(f64::from)).collect::<Vec<_>>();
            for j in 0..n {
                let w = c.mask.as_ref().map_or(c.weight, |m| c.weight * m[j]);
                if !(w > 0.0) {
                    continue;
                }
                let w = f64::from(w);
                for (p, bit) in [(0, ANIMATES_TRANSLATION), (1, ANIMATES_ROTATION), (2, ANIMATES_SCALE)] {
                    if c.animated[j] & bit == 0 {
                        continue;
                    }
                    let acc = want_acc[j][p];
                    let (total, t) = if acc == 0.0 { (w, 1.0) } else { (acc + w, w / (acc + w)) };
                    want_acc[j][p] = total;
                    match p {
                        0 => want[j].t = if acc == 0.0 { input[j].t } else { three::lerp(want[j].t, input[j].t, t) },
                        1 => want[j].r = if acc == 0.0 { input[j].r } else { slerp64(want[j].r, input[j].r, t) },
                        _ => want[j].s = if acc == 0.0 { input[j].s } else { three::lerp(want[j].s, input[j].s, t) },
                    }
                }
            }
            prop_assume!(!AMBIGUOUS.get());
            on_every_path(&want, |level| {
                let mut out = c.out.clone();
                let mut acc = rows_from(&c.acc);
                accumulate_at(level, &mut out, &mut acc, &c.input, &c.animated, c.weight, c.mask.as_deref(), shared, n);
                for j in 0..n {
                    for p in 0..3 {
                        let want = want_acc[j][p];
                        assert!((f64::from(lane(&acc, j, p)) - want).abs() <= 1e-6 * want.max(1.0));
                    }
                }
                out
            })?;
        }

        #[test]
        fn rest_fill_and_compose_over_match_three_js(c in case()) {
            AMBIGUOUS.set(false);
            let n = c.out.len();
            let (out, rest) = (joints(&c.out), joints(&c.rest));
            let mut filled = out.clone();
            let mut over = out.clone();
            for j in 0..n {
                let [wt, wr, ws] = c.acc[j].map(f64::from);
                let fill3 = |v: [f64; 3], r: [f64; 3], w: f64| if w == 0.0 { r } else if w < 1.0 { three::lerp(v, r, 1.0 - w) } else { v };
                filled[j].t = fill3(out[j].t, rest[j].t, wt);
                filled[j].s = fill3(out[j].s, rest[j].s, ws);
                filled[j].r = if wr == 0.0 { rest[j].r } else if wr < 1.0 { slerp64(out[j].r, rest[j].r, 1.0 - wr) } else { out[j].r };
                let over3 = |v: [f64; 3], l: [f64; 3], w: f64| if w >= 1.0 { l } else if w > 0.0 { three::lerp(v, l, w) } else { v };
                over[j].t = over3(out[j].t, rest[j].t, wt);
                over[j].s = over3(out[j].s, rest[j].s, ws);
                over[j].r = if wr >= 1.0 { rest[j].r } else if wr > 0.0 { slerp64(out[j].r, rest[j].r, wr) } else { out[j].r };
            }
            prop_assume!(!AMBIGUOUS.get());
            let acc = rows_from(&c.acc);
            on_every_path(&filled, |level| {
                let mut o = c.out.clone();
                rest_fill_at(level, &mut o, &c.rest, RestWeights::Rows(&acc), n);
                o
            })?;
            on_every_path(&over, |level| {
                let mut o = c.out.clone();
                compose_over_at(level, &mut o, &c.rest, &acc, n);
                o
            })?;
        }

        #[test]
        fn additive_accumulation_and_application_match_three_js(c in case(), apply in any::<bool>()) {
            AMBIGUOUS.set(false);
            // `out` plays the delta held so far (held where `acc` > 1),
            // `rest` the reference (its rotations already inverted).
            let n = c.out.len();
            let held: Vec<[f32; 3]> = c.acc.iter().map(|a| a.map(|w| if w > 1.0 { 1.0 } else { 0.0 })).collect();
            let (delta, input, inv) = (joints(&c.out), joints(&c.input), joints(&c.rest));
            let mut want = delta.clone();
            for j in 0..n {
                let w = c.mask.as_ref().map_or(c.weight, |m| c.weight * m[j]);
                if !(w > 0.0) {
                    continue;
                }
                let w = f64::from(w);
                let bits = c.animated[j];
                let step3 = |x: [f64; 3], r: [f64; 3], d: [f64; 3], had: bool| {
                    let s: [f64; 3] = std::array::from_fn(|i| f64::from((x[i] as f32 - r[i] as f32) * w as f32));
                    if had { std::array::from_fn(|i| d[i] + s[i]) } else { s }
                };
                if bits & ANIMATES_TRANSLATION != 0 {
                    want[j].t = step3(input[j].t, inv[j].t, delta[j].t, held[j][0] > 0.0);
                }
                if bits & ANIMATES_SCALE != 0 {
                    want[j].s = step3(input[j].s, inv[j].s, delta[j].s, held[j][2] > 0.0);
                }
                if bits & ANIMATES_ROTATION != 0 {
                    let acc = if held[j][1] > 0.0 { delta[j].r } else { three::IDENTITY };
                    want[j].r = slerp64(acc, three::mul(acc, three::mul(inv[j].r, input[j].r)), w);
                }
            }
            prop_assume!(!AMBIGUOUS.get());
            let held_rows = rows_from(&held);
            on_every_path(&want, |level| {
                let mut d = c.out.clone();
                let mut h = held_rows.clone();
                accumulate_additive_at(level, &mut d, &mut h, &c.input, &c.rest, &c.animated, c.weight, c.mask.as_deref(), n);
                d
            })?;
            if apply {
                // Application: `rest` now plays the output below, `out` the delta.
                let below = joints(&c.rest);
                let mut want = below.clone();
                for j in 0..n {
                    for p in 0..3 {
                        if held[j][p] == 0.0 {
                            continue;
                        }
                        match p {
                            0 => want[j].t = std::array::from_fn(|i| below[j].t[i] + delta[j].t[i]),
                            1 => want[j].r = three::mul(below[j].r, delta[j].r),
                            _ => want[j].s = std::array::from_fn(|i| below[j].s[i] + delta[j].s[i]),
                        }
                    }
                }
                on_every_path(&want, |level| {
                    let mut o = c.rest.clone();
                    apply_delta_at(level, &mut o, &c.out, &held_rows, n);
                    o
                })?;
            }
        }

        #[test]
        fn an_additive_input_added_onto_the_output_is_accumulation_then_application_bit_for_bit(c in case()) {
            // `input` is the additive pose, `rest` its prepared reference,
            // `out` the output below; `acc` plays a stale delta context.
            let n = c.out.len();
            let mut results = Vec::new();
            each_path(|path, level| {
                let (mut delta, mut held) = (c.rest.clone(), vec![Row::splat(0.0); 3 * blocks_for(n)]);
                let mut want = c.out.clone();
                accumulate_additive_at(level, &mut delta, &mut held, &c.input, &c.rest, &c.animated, c.weight, c.mask.as_deref(), n);
                apply_delta_at(level, &mut want, &delta, &held, n);
                let mut got = c.out.clone();
                add_onto_at(level, &mut got, &c.input, &c.rest, &c.animated, c.weight, c.mask.as_deref(), n);
                let bits = |p: &Pose| joints(p).iter().flat_map(|j| j.t.into_iter().chain(j.r).chain(j.s)).map(f64::to_bits).collect::<Vec<_>>();
                results.push((path.to_string(), bits(&got) == bits(&want)));
            });
            for (path, same) in results {
                prop_assert!(same, "{path}: add_onto differs from accumulation then application");
            }
        }

        #[test]
        fn a_rest_fill_by_flags_is_the_rest_fill_by_the_weights_they_mark_bit_for_bit(c in case()) {
            prop_assume!(c.weight > 0.0);
            let n = c.out.len();
            let mut results = Vec::new();
            each_path(|path, level| {
                let mut marked = vec![Row::splat(0.0); 3 * blocks_for(n)];
                mark_animated_at(level, &mut marked, &c.animated, c.weight, n);
                let (mut want, mut got) = (c.out.clone(), c.out.clone());
                rest_fill_at(level, &mut want, &c.rest, RestWeights::Rows(&marked), n);
                rest_fill_at(level, &mut got, &c.rest, RestWeights::Flags(&c.animated, c.weight), n);
                let bits = |p: &Pose| joints(p).iter().flat_map(|j| j.t.into_iter().chain(j.r).chain(j.s)).map(f64::to_bits).collect::<Vec<_>>();
                results.push((path.to_string(), bits(&got) == bits(&want)));
            });
            for (path, same) in results {
                prop_assert!(same, "{path}: the rest fill by flags differs from the one by marked weights");
            }
        }
    }
}

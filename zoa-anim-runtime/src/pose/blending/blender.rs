//! The streaming blend: a [`BlendingContext`] sized once, and the
//! [`Blender`] it begins, which takes layers and inputs one at a time.

use super::additive::{accumulate_additive, add_onto, apply_delta};
use super::input::{Place, begin_error, check_input, check_weight};
use super::kernels::{RestWeights, accumulate, compose_over, mark_animated, rest_fill};
use super::{BlendInput, BlendMode, Composition, ReferencePose};
use crate::error::RuntimeError;
use crate::pose::Pose;
use crate::pose::animation::{ANIMATES_ROTATION, ANIMATES_SCALE, ANIMATES_TRANSLATION};
use crate::pose::simd::{BLOCK, Row, blocks_for};

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
    #[inline]
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
    #[inline]
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
    #[inline]
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
    /// [`SamplingJob`]: crate::pose::animation::SamplingJob
    #[inline]
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
    #[inline]
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
    #[inline]
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

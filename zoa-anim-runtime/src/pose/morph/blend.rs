//! The blend of a frame's morph weights: the stack the joints blend, read
//! again for the weights (see the module docs of [`super`]).

use super::{MorphPose, MorphSet};
use crate::pose::blending::{BlendMode, Composition};
use crate::pose::compose::{PoseStack, StackSources};

/// `a + (b − a)·t` as three.js's `PropertyMixer._lerp` computes it.
#[inline]
pub(super) fn lerp(a: f32, b: f32, t: f32) -> f32 {
    a * (1.0 - t) + b * t
}

/// Blends the weights of `stack`'s inputs into `out` (laid out for `set`)
/// with `composition`: the same layers, modes, weights and masks as the
/// joints. Layers of the extra (procedural) pose animate no weights.
/// Allocates nothing. Inputs whose animation has no weight tracks cost one
/// check each.
pub(crate) fn blend_morphs<S: StackSources>(
    composition: Composition,
    set: &MorphSet,
    stack: &PoseStack,
    sources: &S,
    out: &mut MorphPose,
) {
    if set.is_empty() || !out.fits(set) {
        return;
    }
    let mut blend = Blend { set, out, composition, base_done: false, open: None };
    for layer in &stack.layers {
        blend.layer(layer.mode);
        let layer_weight = if layer.weight.is_finite() { layer.weight.max(0.0) } else { 0.0 };
        if layer_weight <= 0.0 || layer.extra {
            continue;
        }
        for input in stack.inputs_of(layer) {
            let weight = layer_weight * input.weight;
            if weight.is_nan() || weight <= 0.0 {
                continue;
            }
            let animation = sources.animation(input.animation);
            let channels = animation.morphs();
            if channels.is_empty() {
                continue;
            }
            let mask = sources.mask(input.mask);
            let reference = match layer.mode {
                BlendMode::Override => None,
                BlendMode::Additive => match sources.reference(input.reference).and_then(|r| r.morph()) {
                    Some(r) => Some(r),
                    // No reference weights: the input adds nothing to them.
                    None => continue,
                },
            };
            blend.add(channels, input.time, weight, mask, reference);
        }
    }
    blend.finish();
}

/// A blend in progress (the morph counterpart of [`crate::pose::Blender`]).
struct Blend<'a> {
    set: &'a MorphSet,
    out: &'a mut MorphPose,
    composition: Composition,
    /// Layered: the output holds a complete set of weights.
    base_done: bool,
    open: Option<BlendMode>,
}

impl Blend<'_> {
    fn layer(&mut self, mode: BlendMode) {
        self.close_layer();
        if self.composition == Composition::Layered && mode == BlendMode::Additive && !self.base_done {
            // An additive layer with nothing below adds onto the defaults.
            self.out.weights.copy_from_slice(self.set.defaults());
            self.base_done = true;
        }
        self.open = Some(mode);
    }

    fn add(
        &mut self,
        channels: &super::MorphChannels,
        time: f32,
        weight: f32,
        mask: Option<&[f32]>,
        reference: Option<&[f32]>,
    ) {
        let mode = *self.open.get_or_insert(BlendMode::Override);
        let into_output = self.composition == Composition::Mixer || !self.base_done;
        let MorphPose { weights, sampled, layer, delta, accumulated, held } = &mut *self.out;
        let slots = self.set.slots();
        channels.sample(time, sampled, |s, x| {
            let slot = &slots[s];
            let m = match (mask, slot.joint) {
                (Some(mask), Some(j)) => mask.get(usize::from(j)).copied().unwrap_or(1.0),
                _ => 1.0,
            };
            let w = weight * m;
            if w.is_nan() || w <= 0.0 {
                return;
            }
            match mode {
                BlendMode::Override => {
                    let target =
                        if into_output { &mut weights[slot.range.clone()] } else { &mut layer[slot.range.clone()] };
                    let before = accumulated[s];
                    accumulated[s] = before + w;
                    if before == 0.0 {
                        target.copy_from_slice(x);
                    } else {
                        let t = w / accumulated[s];
                        for (v, x) in target.iter_mut().zip(x) {
                            *v = lerp(*v, *x, t);
                        }
                    }
                }
                BlendMode::Additive => {
                    let Some(reference) = reference.and_then(|r| r.get(slot.range.clone())) else { return };
                    let d = &mut delta[slot.range.clone()];
                    if !held[s] {
                        d.fill(0.0);
                        held[s] = true;
                    }
                    for ((d, x), r) in d.iter_mut().zip(x).zip(reference) {
                        *d += w * (x - r);
                    }
                }
            }
        });
    }

    /// The rest fill: where `W < 1`, `v = lerp(v, default, 1 − W)`.
    fn fill_defaults(&mut self) {
        let MorphPose { weights, accumulated, .. } = &mut *self.out;
        for (slot, w) in self.set.slots().iter().zip(accumulated.iter()) {
            if *w < 1.0 {
                let t = 1.0 - w;
                for (v, d) in weights[slot.range.clone()].iter_mut().zip(&self.set.defaults()[slot.range.clone()]) {
                    *v = lerp(*v, *d, t);
                }
            }
        }
    }

    fn apply_deltas(&mut self) {
        let MorphPose { weights, delta, held, .. } = &mut *self.out;
        for (slot, h) in self.set.slots().iter().zip(held.iter_mut()) {
            if std::mem::take(h) {
                for (v, d) in weights[slot.range.clone()].iter_mut().zip(&delta[slot.range.clone()]) {
                    *v += d;
                }
            }
        }
    }

    fn close_layer(&mut self) {
        let Some(mode) = self.open.take() else { return };
        if self.composition == Composition::Mixer {
            return;
        }
        match mode {
            BlendMode::Override if !self.base_done => {
                self.fill_defaults();
                self.base_done = true;
            }
            BlendMode::Override => {
                let MorphPose { weights, layer, accumulated, .. } = &mut *self.out;
                for (slot, w) in self.set.slots().iter().zip(accumulated.iter()) {
                    if *w > 0.0 {
                        let t = w.min(1.0);
                        for (v, x) in weights[slot.range.clone()].iter_mut().zip(&layer[slot.range.clone()]) {
                            *v = lerp(*v, *x, t);
                        }
                    }
                }
            }
            BlendMode::Additive => self.apply_deltas(),
        }
        self.out.accumulated.fill(0.0);
    }

    fn finish(mut self) {
        self.close_layer();
        match self.composition {
            Composition::Layered => {
                if !self.base_done {
                    self.out.weights.copy_from_slice(self.set.defaults());
                }
            }
            Composition::Mixer => {
                self.fill_defaults();
                self.apply_deltas();
            }
        }
        self.out.accumulated.fill(0.0);
    }
}

//! The blend of a frame's morph weights, input by input, in the layer
//! stack's order (see the module docs of [`super`]). It depends on nothing
//! else of the pose engine: [`crate::pose::ComposeJob`] walks its stack and
//! feeds it.

use zoa_anim_core::graph::BlendMode;

use super::{MorphChannels, MorphPose, MorphSet};

/// `a + (b − a)·t` as three.js's `PropertyMixer._lerp` computes it.
#[inline]
pub(super) fn lerp(a: f32, b: f32, t: f32) -> f32 {
    a * (1.0 - t) + b * t
}

/// A blend in progress (the morph counterpart of [`crate::pose::Blender`]):
/// layers opened in stack order, inputs added to the open layer, then
/// [`MorphBlend::finish`]. Allocates nothing.
pub(crate) struct MorphBlend<'a> {
    set: &'a MorphSet,
    out: &'a mut MorphPose,
    /// One three.js mixer (every layer accumulates together) rather than a layer stack.
    mixer: bool,
    /// Layered: the output holds a complete set of weights.
    base_done: bool,
    open: Option<BlendMode>,
}

impl<'a> MorphBlend<'a> {
    /// A blend of `set`'s weights into `out` (`None` when `out` is not laid
    /// out for `set`, or the set is empty: nothing to blend).
    pub(crate) fn begin(set: &'a MorphSet, out: &'a mut MorphPose, mixer: bool) -> Option<MorphBlend<'a>> {
        (!set.is_empty() && out.fits(set)).then_some(MorphBlend { set, out, mixer, base_done: false, open: None })
    }

    /// Closes the open layer and opens one of `mode`.
    pub(crate) fn layer(&mut self, mode: BlendMode) {
        self.close_layer();
        if !self.mixer && mode == BlendMode::Additive && !self.base_done {
            // An additive layer with nothing below adds onto the defaults.
            self.out.weights.copy_from_slice(self.set.defaults());
            self.base_done = true;
        }
        self.open = Some(mode);
    }

    /// Adds the weights `channels` sample at `time`, with `weight` (layer ×
    /// input), the layer's per-joint `mask` and, in an additive layer, the
    /// `reference` weights.
    pub(crate) fn add(
        &mut self,
        channels: &MorphChannels,
        time: f32,
        weight: f32,
        mask: Option<&[f32]>,
        reference: Option<&[f32]>,
    ) {
        let mode = *self.open.get_or_insert(BlendMode::Override);
        let into_output = self.mixer || !self.base_done;
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
        if self.mixer {
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

    /// Closes the last layer and completes the weights.
    pub(crate) fn finish(mut self) {
        self.close_layer();
        if self.mixer {
            self.fill_defaults();
            self.apply_deltas();
        } else if !self.base_done {
            self.out.weights.copy_from_slice(self.set.defaults());
        }
        self.out.accumulated.fill(0.0);
    }
}

//! Numbers blended like the joints: a layout of *slots* (runs of numbers in
//! one flat array, each weighed by one joint's mask weight or by none), the
//! tracks an animation samples into them, and the blend of a frame's stack
//! input by input in the stack's order — three.js's number-property mixing
//! within a layer (`W += w; v = lerp(v, x, w/W)`, the defaults fill what is
//! missing below `W = 1`, additive inputs add `w·(x − ref)`), between layers
//! as the joints compose ([`crate::pose::Composition`]).
//!
//! One mechanism, two users: morph-target weights ([`crate::pose::morph`],
//! a slot per morphed node) and float curves ([`crate::pose::curves`], a
//! slot per curve name). It depends on nothing else of the pose engine; the
//! walk of a [`crate::pose::PoseStack`] that feeds it is the compose job's
//! (`compose::blend_stack`).

use std::ops::Range;

use zoa_anim_core::graph::BlendMode;

/// Slots of numbers in one flat array, with their defaults.
pub(crate) trait ScalarLayout {
    /// Number of slots.
    fn slot_count(&self) -> usize;
    /// Slot `s`'s numbers in the flat array.
    fn slot_range(&self, s: usize) -> Range<usize>;
    /// The joint whose mask weight weighs slot `s` (`None`: not masked).
    fn slot_joint(&self, s: usize) -> Option<u16>;
    /// Every number's default, flat.
    fn defaults(&self) -> &[f32];
}

/// An animation's tracks of one [`ScalarLayout`].
pub(crate) trait ScalarTracks {
    /// Calls `each(slot, values)` with every slot it animates at clip time
    /// `t`, the values written to `scratch` (as long as the layout's flat
    /// array; only the slot's range is written). Allocates nothing.
    fn sample(&self, t: f32, scratch: &mut [f32], each: impl FnMut(usize, &[f32]));
}

/// The blended numbers of one layout, with the state their blend reuses
/// every frame (sized once; blending allocates nothing).
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct ScalarPose {
    pub(crate) values: Vec<f32>,
    /// One input's sampled values.
    sampled: Vec<f32>,
    /// Accumulation of an override layer above the base.
    layer: Vec<f32>,
    /// Additive deltas of the open layer.
    delta: Vec<f32>,
    /// Accumulated override weight `W` per slot.
    accumulated: Vec<f32>,
    /// Whether `delta` holds anything per slot.
    held: Vec<bool>,
}

impl ScalarPose {
    /// The defaults of `layout`, with room to blend them.
    pub(crate) fn new(layout: &impl ScalarLayout) -> ScalarPose {
        let n = layout.defaults().len();
        let slots = layout.slot_count();
        ScalarPose {
            values: layout.defaults().to_vec(),
            sampled: vec![0.0; n],
            layer: vec![0.0; n],
            delta: vec![0.0; n],
            accumulated: vec![0.0; slots],
            held: vec![false; slots],
        }
    }
    /// Whether it is laid out for `layout`.
    pub(crate) fn fits(&self, layout: &impl ScalarLayout) -> bool {
        self.values.len() == layout.defaults().len() && self.accumulated.len() == layout.slot_count()
    }
    /// `self = lerp(self, other, t)` number by number (a cross-fade toward
    /// `other`, as [`crate::pose::blend_into`] does for joints). Two poses of
    /// different layouts are left as they are.
    pub(crate) fn blend_toward(&mut self, other: &ScalarPose, t: f32) {
        if self.values.len() == other.values.len() {
            for (a, b) in self.values.iter_mut().zip(&other.values) {
                *a = lerp(*a, *b, t);
            }
        }
    }
}

/// `a + (b − a)·t` as three.js's `PropertyMixer._lerp` computes it.
#[inline]
pub(crate) fn lerp(a: f32, b: f32, t: f32) -> f32 {
    a * (1.0 - t) + b * t
}

/// A blend in progress (the numbers' counterpart of [`crate::pose::Blender`]):
/// layers opened in stack order, inputs added to the open layer, then
/// [`ScalarBlend::finish`]. Allocates nothing.
pub(crate) struct ScalarBlend<'a, L: ScalarLayout> {
    set: &'a L,
    out: &'a mut ScalarPose,
    /// One three.js mixer (every layer accumulates together) rather than a layer stack.
    mixer: bool,
    /// Layered: the output holds a complete set of numbers.
    base_done: bool,
    open: Option<BlendMode>,
}

impl<'a, L: ScalarLayout> ScalarBlend<'a, L> {
    /// A blend of `set`'s numbers into `out` (`None` when `out` is not laid
    /// out for `set`, or the set is empty: nothing to blend).
    pub(crate) fn begin(set: &'a L, out: &'a mut ScalarPose, mixer: bool) -> Option<ScalarBlend<'a, L>> {
        (set.slot_count() > 0 && out.fits(set)).then_some(ScalarBlend { set, out, mixer, base_done: false, open: None })
    }

    /// Closes the open layer and opens one of `mode`.
    pub(crate) fn layer(&mut self, mode: BlendMode) {
        self.close_layer();
        if !self.mixer && mode == BlendMode::Additive && !self.base_done {
            // An additive layer with nothing below adds onto the defaults.
            self.out.values.copy_from_slice(self.set.defaults());
            self.base_done = true;
        }
        self.open = Some(mode);
    }

    /// Adds the numbers `channels` sample at `time`, with `weight` (layer ×
    /// input), the layer's per-joint `mask` and, in an additive layer, the
    /// `reference` numbers.
    pub(crate) fn add(
        &mut self,
        channels: &impl ScalarTracks,
        time: f32,
        weight: f32,
        mask: Option<&[f32]>,
        reference: Option<&[f32]>,
    ) {
        let mode = *self.open.get_or_insert(BlendMode::Override);
        let into_output = self.mixer || !self.base_done;
        let ScalarPose { values, sampled, layer, delta, accumulated, held } = &mut *self.out;
        let set = self.set;
        channels.sample(time, sampled, |s, x| {
            let range = set.slot_range(s);
            let m = match (mask, set.slot_joint(s)) {
                (Some(mask), Some(j)) => mask.get(usize::from(j)).copied().unwrap_or(1.0),
                _ => 1.0,
            };
            let w = weight * m;
            if w.is_nan() || w <= 0.0 {
                return;
            }
            match mode {
                BlendMode::Override => {
                    let target = if into_output { &mut values[range] } else { &mut layer[range] };
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
                    let Some(reference) = reference.and_then(|r| r.get(range.clone())) else { return };
                    let d = &mut delta[range];
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
        let ScalarPose { values, accumulated, .. } = &mut *self.out;
        for (s, w) in accumulated.iter().enumerate() {
            if *w < 1.0 {
                let t = 1.0 - w;
                let range = self.set.slot_range(s);
                for (v, d) in values[range.clone()].iter_mut().zip(&self.set.defaults()[range]) {
                    *v = lerp(*v, *d, t);
                }
            }
        }
    }

    fn apply_deltas(&mut self) {
        let ScalarPose { values, delta, held, .. } = &mut *self.out;
        for (s, h) in held.iter_mut().enumerate() {
            if std::mem::take(h) {
                let range = self.set.slot_range(s);
                for (v, d) in values[range.clone()].iter_mut().zip(&delta[range]) {
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
                let ScalarPose { values, layer, accumulated, .. } = &mut *self.out;
                for (s, w) in accumulated.iter().enumerate() {
                    if *w > 0.0 {
                        let t = w.min(1.0);
                        let range = self.set.slot_range(s);
                        for (v, x) in values[range.clone()].iter_mut().zip(&layer[range]) {
                            *v = lerp(*v, *x, t);
                        }
                    }
                }
            }
            BlendMode::Additive => self.apply_deltas(),
        }
        self.out.accumulated.fill(0.0);
    }

    /// Closes the last layer and completes the numbers.
    pub(crate) fn finish(mut self) {
        self.close_layer();
        if self.mixer {
            self.fill_defaults();
            self.apply_deltas();
        } else if !self.base_done {
            self.out.values.copy_from_slice(self.set.defaults());
        }
        self.out.accumulated.fill(0.0);
    }
}

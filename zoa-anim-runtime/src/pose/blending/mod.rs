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
//!   ([`crate::pose::Animation::animated`]); `w <= 0` contributes nothing.
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
//!
//! The module's files: `reference` (reference poses), `input` (inputs,
//! layers and their checks), `blender` ([`BlendingContext`] and the
//! streaming [`Blender`]), `job` ([`BlendingJob`]), the kernels by family
//! (`kernels`: override accumulation, rest fill and composition, with the
//! lane helpers the others share; `additive`: deltas and their application),
//! and `cross_fade` ([`blend_into`]).

mod additive;
mod blender;
mod cross_fade;
mod input;
mod job;
#[cfg(test)]
mod kernel_tests;
mod kernels;
mod reference;
#[cfg(test)]
mod tests;

pub use blender::{Blender, BlendingContext};
pub use cross_fade::blend_into;
pub use input::{BlendInput, BlendLayer};
pub use job::BlendingJob;
pub use reference::ReferencePose;
pub(crate) use reference::prepare_reference;

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

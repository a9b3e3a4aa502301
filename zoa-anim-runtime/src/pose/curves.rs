//! Float curves: named numbers a clip carries beside its joints (Unreal's
//! animation curves, ozz's float tracks), sampled with the clip's time and
//! blended with the same weights as the clip's pose.
//!
//! A [`CurveSet`] lists every curve name of a set of clips; a clip's curves
//! bind to it once ([`CurveTracks::bind`]); each frame [`blend_curves`]
//! blends the tracks of a [`PoseStack`]'s inputs into a [`CurvePose`] with
//! the pose engine's one blend of numbers (`scalars`, fed by the compose job's walk of the stack): within a layer a
//! weighted average (three.js's property mixing), additive inputs add their
//! change since the clip's first frame, layers compose as the joints do.
//!
//! What a pose where no clip carries a curve reads is the caller's choice, so
//! each curve is blended as two numbers: its value with 0 filling where no
//! input carries it ([`CurvePose::value`], Unreal's rule: a curve a clip does
//! not carry counts as 0) and the share of the pose no input carries
//! ([`CurvePose::value_or`] fills that share with a default, three.js's rule
//! for a property's original value). Both are linear in the fill, so one
//! blend answers every default.

use std::ops::Range;

use zoa_anim_core::graph::BlendMode;
use zoa_anim_core::{FloatCurve, Name};

use crate::pose::compose::{PoseStack, ScalarInput, blend_stack};
use crate::pose::scalars::{ScalarLayout, ScalarPose, ScalarTracks};

/// A curve of a [`CurveSet`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CurveIndex(pub u16);

impl CurveIndex {
    /// As a `usize`.
    #[must_use]
    pub fn index(self) -> usize {
        usize::from(self.0)
    }
}

/// Every curve name of a set of clips, in first-seen order (at most
/// `u16::MAX + 1`; more are not tracked).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CurveSet {
    names: Vec<Name>,
    /// Per curve: value 0, default share 1.
    defaults: Vec<f32>,
}

impl CurveSet {
    /// The distinct names of `curves`, in first-seen order.
    pub fn new<'a>(curves: impl IntoIterator<Item = &'a FloatCurve>) -> CurveSet {
        let mut set = CurveSet::default();
        for c in curves {
            if set.names.len() <= usize::from(u16::MAX) && set.index(&c.name).is_none() {
                set.names.push(Name::new(&c.name));
                set.defaults.extend_from_slice(&[0.0, 1.0]);
            }
        }
        set
    }
    /// Whether no clip carries a curve.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }
    /// Number of curves.
    #[must_use]
    pub fn len(&self) -> usize {
        self.names.len()
    }
    /// The curve names, by index.
    #[must_use]
    pub fn names(&self) -> &[Name] {
        &self.names
    }
    /// The curve called `name` (a scan; no allocation).
    #[must_use]
    pub fn index(&self, name: &str) -> Option<CurveIndex> {
        self.names.iter().position(|n| n.as_str() == name).map(|i| CurveIndex(i as u16))
    }
}

impl ScalarLayout for CurveSet {
    fn slot_count(&self) -> usize {
        self.names.len()
    }
    fn slot_range(&self, s: usize) -> Range<usize> {
        2 * s..2 * s + 2
    }
    fn slot_joint(&self, _: usize) -> Option<u16> {
        None
    }
    fn defaults(&self) -> &[f32] {
        &self.defaults
    }
}

/// One clip's curves bound to a [`CurveSet`], with their values at the
/// clip's first frame (the additive reference).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CurveTracks {
    curves: Vec<(u32, FloatCurve)>,
    /// Laid out like the set's numbers (empty without curves).
    reference: Vec<f32>,
}

impl CurveTracks {
    /// `curves` against `set` (a curve whose name is not in the set is left out).
    #[must_use]
    pub fn bind(curves: &[FloatCurve], set: &CurveSet) -> CurveTracks {
        let bound: Vec<(u32, FloatCurve)> =
            curves.iter().filter_map(|c| Some((u32::from(set.index(&c.name)?.0), c.clone()))).collect();
        let mut reference = Vec::new();
        if !bound.is_empty() {
            reference = vec![0.0; set.defaults.len()];
            for (s, c) in &bound {
                reference[2 * *s as usize] = c.sample(0.0);
            }
        }
        CurveTracks { curves: bound, reference }
    }
    /// Whether the clip carries no curve of the set.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.curves.is_empty()
    }
}

impl ScalarTracks for CurveTracks {
    fn sample(&self, t: f32, scratch: &mut [f32], mut each: impl FnMut(usize, &[f32])) {
        for (s, c) in &self.curves {
            let s = *s as usize;
            let Some(out) = scratch.get_mut(2 * s..2 * s + 2) else { continue };
            out[0] = c.sample(t);
            out[1] = 0.0;
            each(s, out);
        }
    }
}

/// The blended curves of one character: per curve its value and the share
/// no playing clip carries (see the module docs). Sized once.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CurvePose(ScalarPose);

impl CurvePose {
    /// Every curve of `set` at 0 with a default share of 1.
    #[must_use]
    pub fn new(set: &CurveSet) -> CurvePose {
        CurvePose(ScalarPose::new(set))
    }
    /// The blended value of `curve`, 0 filling where no playing clip carries
    /// it (0 for an index out of range).
    #[must_use]
    pub fn value(&self, curve: CurveIndex) -> f32 {
        self.0.values.get(2 * curve.index()).copied().unwrap_or(0.0)
    }
    /// The blended value of `curve`, `default` filling where no playing clip
    /// carries it (`default` for an index out of range).
    #[must_use]
    pub fn value_or(&self, curve: CurveIndex, default: f32) -> f32 {
        match self.0.values.get(2 * curve.index()..2 * curve.index() + 2) {
            Some(&[v, share]) => v + share * default,
            _ => default,
        }
    }
    /// `self = lerp(self, other, t)` (a cross-fade toward `other`).
    pub fn blend_toward(&mut self, other: &CurvePose, t: f32) {
        self.0.blend_toward(&other.0, t);
    }
}

/// Blends the curves of `stack`'s inputs into `out`: input `i` plays the
/// clip whose tracks are `tracks[i.animation]` (none past the end), with the
/// stack's layers, modes and weights (masks do not apply: curves belong to
/// no bone). An additive input adds its change since its clip's first frame.
/// Allocates nothing.
pub fn blend_curves(set: &CurveSet, stack: &PoseStack, tracks: &[CurveTracks], out: &mut CurvePose) {
    blend_stack(set, false, stack, &mut out.0, |input, mode| {
        let t = tracks.get(input.animation as usize).filter(|t| !t.is_empty())?;
        let reference = match mode {
            BlendMode::Override => None,
            BlendMode::Additive => Some(t.reference.as_slice()),
        };
        Some(ScalarInput { tracks: t, mask: None, reference })
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pose::compose::{NONE, StackInput};

    fn curve(name: &str, keys: &[(f32, f32)]) -> FloatCurve {
        FloatCurve { name: name.into(), keys: keys.to_vec() }
    }

    fn input(clip: u32, time: f32, weight: f32) -> StackInput {
        StackInput { animation: clip, cursor: clip, time, weight, mask: NONE, reference: clip }
    }

    #[test]
    fn override_inputs_average_and_missing_curves_fill_with_the_default() {
        // Clip 0 carries `a` (0 → 1 over a second); clip 1 carries nothing.
        let clips = [vec![curve("a", &[(0.0, 0.0), (1.0, 1.0)])], vec![]];
        let set = CurveSet::new(clips.iter().flatten());
        let tracks: Vec<CurveTracks> = clips.iter().map(|c| CurveTracks::bind(c, &set)).collect();
        let a = set.index("a").unwrap();
        let mut stack = PoseStack::with_capacity(2, 4);
        stack.layer(BlendMode::Override, 1.0);
        stack.push(input(0, 0.5, 0.25));
        stack.push(input(1, 0.5, 0.75));
        let mut out = CurvePose::new(&set);
        blend_curves(&set, &stack, &tracks, &mut out);
        // Clip 0 alone carries it, at 0.5 with weight 0.25: the rest fills.
        assert_eq!(out.value(a), 0.125);
        assert_eq!(out.value_or(a, 1.0), 0.125 + 0.75);
        // An additive layer adds its change since time 0.
        stack.layer(BlendMode::Additive, 1.0);
        stack.push(input(0, 1.0, 0.5));
        blend_curves(&set, &stack, &tracks, &mut out);
        assert_eq!(out.value(a), 0.125 + 0.5);
        assert_eq!(out.value_or(CurveIndex(9), 2.0), 2.0);
    }
}

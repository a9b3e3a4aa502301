//! Preview presets: scripted sequences played through a driver and selector.

use crate::tags::StateTagSet;
use crate::{AnimationBindingId, AnimationSlotId};

/// A value written to a binding by a preview step.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum BindingValue {
    /// A bool.
    Bool(bool),
    /// A float.
    Float(f32),
    /// An int.
    Int(i32),
}

/// One step of a preset.
#[derive(Debug, Clone, PartialEq)]
pub enum PreviewStep {
    /// Set a bool, float or int binding.
    Set {
        /// Binding id.
        binding: AnimationBindingId,
        /// Value.
        value: BindingValue,
    },
    /// Fire a trigger binding.
    Fire {
        /// Binding id.
        binding: AnimationBindingId,
    },
    /// Play a slot.
    PlaySlot {
        /// Slot id.
        slot: AnimationSlotId,
    },
    /// Force a state of the graph in use (the design's force-state mode,
    /// Unity's `Play`): [`PreviewStep::PlayState::state`] by name, over
    /// `blend` seconds.
    PlayState {
        /// The state's name (unique within its graph).
        state: String,
        /// Cross-fade seconds (`None`: the state's own cross-fade; 0 cuts).
        blend: Option<f32>,
    },
    /// Replace the active state tags.
    SetTags {
        /// The new active state.
        tags: StateTagSet,
    },
    /// Let time pass.
    Wait {
        /// Seconds (`>= 0`).
        seconds: f32,
    },
}

/// Longest preset, seconds (sum of its waits, summed in `f64`): one hour.
pub const MAX_PRESET_SECONDS: f64 = 3600.0;
/// Most steps in one preset.
pub const MAX_PRESET_STEPS: usize = 10_000;
/// Most distinct bindings one preset sets or fires: each becomes a capture
/// column recorded on every tick, so columns × ticks is what it costs.
pub const MAX_PRESET_BINDINGS: usize = 256;

/// A named, scripted sequence of steps.
#[derive(Debug, Clone, PartialEq)]
pub struct PreviewPreset {
    /// Unique id.
    pub id: String,
    /// Display name.
    pub name: String,
    /// Steps in order.
    pub steps: Vec<PreviewStep>,
}

impl PreviewPreset {
    /// Total scripted time (sum of waits), seconds. Infinite when the waits
    /// overflow `f32` (two waits of `3e38`); see [`PreviewPreset::total_seconds`].
    #[must_use]
    pub fn duration(&self) -> f32 {
        self.steps.iter().map(|s| if let PreviewStep::Wait { seconds } = s { *seconds } else { 0.0 }).sum()
    }

    /// Total scripted time summed in `f64` (finite for any finite waits).
    #[must_use]
    pub fn total_seconds(&self) -> f64 {
        self.steps.iter().map(|s| if let PreviewStep::Wait { seconds } = s { f64::from(*seconds) } else { 0.0 }).sum()
    }

    /// Distinct bindings the preset sets or fires, in first-use order. Linear
    /// in the steps (a hash set, not a scan per step).
    #[must_use]
    pub fn bindings(&self) -> Vec<AnimationBindingId> {
        let mut seen = std::collections::HashSet::new();
        let mut out = Vec::new();
        for step in &self.steps {
            if let PreviewStep::Set { binding, .. } | PreviewStep::Fire { binding } = step
                && seen.insert(*binding)
            {
                out.push(*binding);
            }
        }
        out
    }

    /// Every reason the preset cannot be played: a wait that is negative or
    /// not finite, or a count over its budget ([`MAX_PRESET_STEPS`],
    /// [`MAX_PRESET_SECONDS`], [`MAX_PRESET_BINDINGS`]). Empty when playable.
    #[must_use]
    pub fn problems(&self) -> Vec<String> {
        let mut out = Vec::new();
        for (i, step) in self.steps.iter().enumerate() {
            if let PreviewStep::Wait { seconds } = step
                && !(seconds.is_finite() && *seconds >= 0.0)
            {
                out.push(format!("step {i}: wait {seconds} s must be finite and >= 0"));
            }
        }
        if self.steps.len() > MAX_PRESET_STEPS {
            out.push(format!("{} steps; at most {MAX_PRESET_STEPS} are played", self.steps.len()));
        }
        let total = self.total_seconds();
        if total > MAX_PRESET_SECONDS {
            out.push(format!("the waits add up to {total} s; a preset lasts at most {MAX_PRESET_SECONDS} s"));
        }
        let bindings = self.bindings().len();
        if bindings > MAX_PRESET_BINDINGS {
            out.push(format!("{bindings} distinct bindings; a preset sets or fires at most {MAX_PRESET_BINDINGS}"));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wait(seconds: f32) -> PreviewStep {
        PreviewStep::Wait { seconds }
    }

    #[test]
    fn waits_that_overflow_f32_are_summed_in_f64_and_refused() {
        let p = PreviewPreset { id: "p".into(), name: "p".into(), steps: vec![wait(3e38), wait(3e38)] };
        assert!(p.duration().is_infinite());
        assert!(p.total_seconds().is_finite());
        let problems = p.problems();
        assert!(problems.iter().any(|m| m.contains("at most 3600")), "{problems:?}");
    }

    #[test]
    fn negative_and_nan_waits_and_binding_budgets_are_reported() {
        let mut steps = vec![wait(-1.0), wait(f32::NAN)];
        for i in 0..=MAX_PRESET_BINDINGS {
            let binding = AnimationBindingId::new(&format!("budget_binding_{i}")).unwrap();
            steps.push(PreviewStep::Fire { binding });
        }
        let p = PreviewPreset { id: "p".into(), name: "p".into(), steps };
        let problems = p.problems();
        assert!(problems[0].starts_with("step 0:") && problems[1].starts_with("step 1:"), "{problems:?}");
        assert!(problems.iter().any(|m| m.contains("distinct bindings")), "{problems:?}");
        assert_eq!(p.bindings().len(), MAX_PRESET_BINDINGS + 1);
    }

    #[test]
    fn an_ordinary_preset_has_no_problem() {
        let binding = AnimationBindingId::new("speed").unwrap();
        let steps = vec![PreviewStep::Set { binding, value: BindingValue::Float(2.0) }, wait(1.5), wait(2.0)];
        let p = PreviewPreset { id: "p".into(), name: "p".into(), steps };
        assert!(p.problems().is_empty());
        assert_eq!(p.total_seconds(), 3.5);
    }
}

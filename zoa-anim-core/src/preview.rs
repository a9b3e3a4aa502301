//! Preview presets: scripted sequences played through a driver and selector
//! (the seed's `PreviewSimulationPreset`).

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
    /// Total scripted time (sum of waits), seconds.
    pub fn duration(&self) -> f32 {
        self.steps.iter().map(|s| if let PreviewStep::Wait { seconds } = s { *seconds } else { 0.0 }).sum()
    }
}

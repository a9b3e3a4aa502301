//! Bindings: gameplay meaning → rig parameter, and slots: purpose → clip.
//!
//! Gameplay fires a semantic [`AnimationBindingId`]; a binding profile maps it
//! to the concrete parameter name, type and layer of the rig in use. Slots
//! answer "which clip do I play" with a string clip reference, so this
//! contract stays engine-free: an [`crate::contracts::AnimationClipResolver`]
//! turns the reference into a playable handle.

use std::collections::HashSet;
use std::fmt;

use crate::{AnimationBindingId, AnimationSlotId, CoreError};

/// The four animator parameter kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AnimationParameterType {
    /// Set by gameplay, consumed by the first transition it fires.
    Trigger,
    /// `true` / `false`.
    Bool,
    /// 32-bit float.
    Float,
    /// 32-bit signed integer.
    Int,
}

impl AnimationParameterType {
    /// Lowercase name used in text forms (`trigger`, `bool`, `float`, `int`).
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            AnimationParameterType::Trigger => "trigger",
            AnimationParameterType::Bool => "bool",
            AnimationParameterType::Float => "float",
            AnimationParameterType::Int => "int",
        }
    }

    /// Parses a lowercase name.
    #[must_use]
    pub fn from_name(name: &str) -> Option<Self> {
        Some(match name {
            "trigger" => AnimationParameterType::Trigger,
            "bool" => AnimationParameterType::Bool,
            "float" => AnimationParameterType::Float,
            "int" => AnimationParameterType::Int,
            _ => return None,
        })
    }
}

impl fmt::Display for AnimationParameterType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Layer index meaning "the base layer".
pub const BASE_LAYER: i32 = -1;

/// One binding: semantic id → parameter name, type and layer.
#[derive(Debug, Clone, PartialEq)]
pub struct AnimationBindingEntry {
    /// Semantic id gameplay uses.
    pub id: AnimationBindingId,
    /// The rig's parameter name (non-empty).
    pub parameter_name: String,
    /// Parameter kind.
    pub parameter_type: AnimationParameterType,
    /// Graph layer; [`BASE_LAYER`] (-1) is the base layer, `>= 0` names a layer index.
    pub layer_index: i32,
}

impl AnimationBindingEntry {
    /// A non-empty parameter name and a layer index of at least -1.
    #[must_use]
    pub fn is_valid(&self) -> bool {
        !self.parameter_name.trim().is_empty() && self.layer_index >= BASE_LAYER
    }
}

/// One clip slot: purpose → clip reference, speed multiplier, additive flag.
#[derive(Debug, Clone, PartialEq)]
pub struct AnimationSlotEntry {
    /// Named purpose.
    pub id: AnimationSlotId,
    /// String reference resolved by an [`crate::contracts::AnimationClipResolver`] (non-empty).
    pub clip_reference: String,
    /// Per-profile playback speed multiplier (> 0, default 1).
    pub speed_multiplier: f32,
    /// Played additively on top of the pose (recoil, flinch).
    pub additive: bool,
}

/// A named collection of parameter bindings and clip slots.
///
/// Weapon and character packages can each supply their own concrete type.
pub trait AnimationBindingProfile {
    /// Stable profile id.
    fn profile_id(&self) -> &str;
    /// Human-readable name.
    fn display_name(&self) -> &str;
    /// Every binding, in authoring order.
    fn bindings(&self) -> &[AnimationBindingEntry];
    /// Every slot, in authoring order.
    fn slots(&self) -> &[AnimationSlotEntry];
    /// The binding for `id`, if the profile has one.
    fn binding(&self, id: AnimationBindingId) -> Option<&AnimationBindingEntry> {
        self.bindings().iter().find(|b| b.id == id)
    }
    /// The slot for `id`, if the profile has one.
    fn slot(&self, id: AnimationSlotId) -> Option<&AnimationSlotEntry> {
        self.slots().iter().find(|s| s.id == id)
    }
}

/// The concrete binding profile produced by [`BindingProfileBuilder`] and by
/// definition loaders. Invariants (checked at build): ids unique, names
/// non-empty, layers `>= -1`, speed multipliers finite and `> 0`.
#[derive(Debug, Clone, PartialEq)]
pub struct BindingProfile {
    profile_id: String,
    display_name: String,
    bindings: Vec<AnimationBindingEntry>,
    slots: Vec<AnimationSlotEntry>,
}

impl AnimationBindingProfile for BindingProfile {
    fn profile_id(&self) -> &str {
        &self.profile_id
    }
    fn display_name(&self) -> &str {
        &self.display_name
    }
    fn bindings(&self) -> &[AnimationBindingEntry] {
        &self.bindings
    }
    fn slots(&self) -> &[AnimationSlotEntry] {
        &self.slots
    }
}

/// Fluent construction of a [`BindingProfile`].
///
/// ```
/// use zoa_anim_core::{BindingProfileBuilder, DefaultBindings, DefaultSlots, AnimationBindingProfile};
/// let profile = BindingProfileBuilder::new("rifle_standard", "Standard Rifle")
///     .add_trigger(DefaultBindings::FIRE, "Fire")
///     .add_bool(DefaultBindings::IS_AIMING, "IsAiming")
///     .add_float(DefaultBindings::SPEED, "Speed")
///     // Layer 1 is an upper-body override: gameplay never learns that.
///     .add_trigger_on_layer(DefaultBindings::EQUIP, "Equip", 1)
///     .add_slot(DefaultSlots::RELOAD_MAGAZINE, "anim_rifle_reload_mag")
///     .build()
///     .unwrap();
/// assert_eq!(profile.binding(DefaultBindings::EQUIP).unwrap().layer_index, 1);
/// ```
#[derive(Debug, Clone)]
pub struct BindingProfileBuilder {
    profile: BindingProfile,
}

impl BindingProfileBuilder {
    /// Starts an empty profile.
    pub fn new(profile_id: impl Into<String>, display_name: impl Into<String>) -> Self {
        BindingProfileBuilder {
            profile: BindingProfile {
                profile_id: profile_id.into(),
                display_name: display_name.into(),
                bindings: Vec::new(),
                slots: Vec::new(),
            },
        }
    }

    /// Adds a binding of any type on any layer.
    pub fn add_binding(
        mut self,
        id: AnimationBindingId,
        parameter_name: impl Into<String>,
        parameter_type: AnimationParameterType,
        layer_index: i32,
    ) -> Self {
        self.profile.bindings.push(AnimationBindingEntry {
            id,
            parameter_name: parameter_name.into(),
            parameter_type,
            layer_index,
        });
        self
    }

    /// Adds a trigger on the base layer.
    pub fn add_trigger(self, id: AnimationBindingId, parameter: impl Into<String>) -> Self {
        self.add_binding(id, parameter, AnimationParameterType::Trigger, BASE_LAYER)
    }
    /// Adds a trigger on `layer`.
    pub fn add_trigger_on_layer(self, id: AnimationBindingId, parameter: impl Into<String>, layer: i32) -> Self {
        self.add_binding(id, parameter, AnimationParameterType::Trigger, layer)
    }
    /// Adds a bool on the base layer.
    pub fn add_bool(self, id: AnimationBindingId, parameter: impl Into<String>) -> Self {
        self.add_binding(id, parameter, AnimationParameterType::Bool, BASE_LAYER)
    }
    /// Adds a bool on `layer`.
    pub fn add_bool_on_layer(self, id: AnimationBindingId, parameter: impl Into<String>, layer: i32) -> Self {
        self.add_binding(id, parameter, AnimationParameterType::Bool, layer)
    }
    /// Adds a float on the base layer.
    pub fn add_float(self, id: AnimationBindingId, parameter: impl Into<String>) -> Self {
        self.add_binding(id, parameter, AnimationParameterType::Float, BASE_LAYER)
    }
    /// Adds a float on `layer`.
    pub fn add_float_on_layer(self, id: AnimationBindingId, parameter: impl Into<String>, layer: i32) -> Self {
        self.add_binding(id, parameter, AnimationParameterType::Float, layer)
    }
    /// Adds an int on the base layer.
    pub fn add_int(self, id: AnimationBindingId, parameter: impl Into<String>) -> Self {
        self.add_binding(id, parameter, AnimationParameterType::Int, BASE_LAYER)
    }
    /// Adds an int on `layer`.
    pub fn add_int_on_layer(self, id: AnimationBindingId, parameter: impl Into<String>, layer: i32) -> Self {
        self.add_binding(id, parameter, AnimationParameterType::Int, layer)
    }

    /// Adds a slot with speed 1, not additive.
    pub fn add_slot(self, id: AnimationSlotId, clip_reference: impl Into<String>) -> Self {
        self.add_slot_with(id, clip_reference, 1.0, false)
    }

    /// Adds a slot with an explicit speed multiplier and additive flag.
    pub fn add_slot_with(
        mut self,
        id: AnimationSlotId,
        clip_reference: impl Into<String>,
        speed_multiplier: f32,
        additive: bool,
    ) -> Self {
        self.profile.slots.push(AnimationSlotEntry {
            id,
            clip_reference: clip_reference.into(),
            speed_multiplier,
            additive,
        });
        self
    }

    /// Checks every rule and returns the profile, or every problem at once.
    pub fn build(self) -> Result<BindingProfile, CoreError> {
        let p = self.profile;
        let mut problems = Vec::new();
        if p.profile_id.trim().is_empty() {
            problems.push("profile id is empty".to_owned());
        }
        let mut seen = HashSet::new();
        for b in &p.bindings {
            if !seen.insert(b.id) {
                problems.push(format!("binding `{}` is defined twice", b.id));
            }
            if b.parameter_name.trim().is_empty() {
                problems.push(format!("binding `{}` has an empty parameter name", b.id));
            }
            if b.layer_index < BASE_LAYER {
                problems.push(format!(
                    "binding `{}` has layer {} (must be -1 for the base layer or >= 0)",
                    b.id, b.layer_index
                ));
            }
        }
        let mut seen = HashSet::new();
        for s in &p.slots {
            if !seen.insert(s.id) {
                problems.push(format!("slot `{}` is defined twice", s.id));
            }
            if s.clip_reference.trim().is_empty() {
                problems.push(format!("slot `{}` has an empty clip reference", s.id));
            }
            if !(s.speed_multiplier.is_finite() && s.speed_multiplier > 0.0) {
                problems.push(format!(
                    "slot `{}` has speed multiplier {} (must be finite and > 0)",
                    s.id, s.speed_multiplier
                ));
            }
        }
        if problems.is_empty() {
            Ok(p)
        } else {
            Err(CoreError::InvalidBindingProfile { profile: p.profile_id, problems })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{DefaultBindings, DefaultSlots};

    #[test]
    fn build_reports_every_problem() {
        let err = BindingProfileBuilder::new("p", "P")
            .add_trigger(DefaultBindings::FIRE, "Fire")
            .add_trigger(DefaultBindings::FIRE, "Fire2")
            .add_bool(DefaultBindings::IS_AIMING, "  ")
            .add_float_on_layer(DefaultBindings::SPEED, "Speed", -2)
            .add_slot(DefaultSlots::FIRE_AUTO, "")
            .add_slot_with(DefaultSlots::FIRE_SINGLE, "x", 0.0, false)
            .build()
            .unwrap_err();
        let CoreError::InvalidBindingProfile { problems, .. } = err else { panic!() };
        assert_eq!(problems.len(), 5, "{problems:#?}");
    }

    #[test]
    fn lookups_and_validity() {
        let p = BindingProfileBuilder::new("p", "P")
            .add_int(DefaultBindings::POSTURE, "Posture")
            .add_slot(DefaultSlots::LOCOMOTION_IDLE, "idle")
            .build()
            .unwrap();
        assert_eq!(p.binding(DefaultBindings::POSTURE).unwrap().parameter_type, AnimationParameterType::Int);
        assert!(p.binding(DefaultBindings::LEAN).is_none());
        assert!(p.slot(DefaultSlots::LOCOMOTION_IDLE).is_some());
        assert!(p.bindings()[0].is_valid());
        assert_eq!(p.profile_id(), "p");
        assert_eq!(p.display_name(), "P");
    }
}

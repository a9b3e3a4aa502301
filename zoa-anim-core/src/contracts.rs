//! Contracts between gameplay, the animation runtime and equipment: the
//! animation driver, the event receiver, the clip resolver, the IK pose
//! provider and service, the stance provider and the preview simulator,
//! plus the engine-free [`PoseSnapshot`] they exchange.
//!
//! These are the real extension points of the library, which is why they are
//! traits; everything else is concrete types.

use std::sync::Arc;

use glam::{Quat, Vec3};

use crate::bindings::{AnimationBindingProfile, AnimationParameterType};
use crate::preview::PreviewPreset;
use crate::{AnimationBindingId, AnimationSlotId, IKTargetId, StanceId};

/// The space a [`PoseTargetData`] is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PoseSpace {
    /// The character's model space.
    #[default]
    Model,
    /// The model-space frame of joint `n` of the character's skeleton, read
    /// when the target is used (after the IK behaviours that run before it),
    /// so a grip follows the hand holding the item.
    Joint(u16),
}

/// One IK target at a moment in time, as plain floats so the contract layer
/// stays engine-free.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PoseTargetData {
    /// Which target (`left_hand_grip`, `look_target`, …).
    pub target: IKTargetId,
    /// Position in [`PoseTargetData::space`], metres.
    pub position: [f32; 3],
    /// Rotation quaternion `x, y, z, w` (unit length) in
    /// [`PoseTargetData::space`]; `None` keeps the animated orientation.
    pub rotation: Option<[f32; 4]>,
    /// How strongly the solver should reach it, 0 ..= 1.
    pub weight: f32,
    /// What `position` and `rotation` are relative to.
    pub space: PoseSpace,
}

impl PoseTargetData {
    /// Interpolates towards `other` by `t`: position and weight lerp,
    /// rotations slerp on the shortest path. A rotation present on one side
    /// only is kept as it is (the other side has no opinion); the numbers of
    /// targets in two different spaces are interpolated as they are and the
    /// space switches half way, so blend those only between items held alike.
    #[must_use]
    pub fn lerp(&self, other: &PoseTargetData, t: f32) -> PoseTargetData {
        let p = Vec3::from_array(self.position).lerp(Vec3::from_array(other.position), t);
        let rotation = match (self.rotation, other.rotation) {
            (Some(a), Some(b)) => {
                Some(Quat::from_array(a).normalize().slerp(Quat::from_array(b).normalize(), t).to_array())
            }
            (a, b) => a.or(b),
        };
        PoseTargetData {
            target: self.target,
            position: p.to_array(),
            rotation,
            weight: self.weight + (other.weight - self.weight) * t,
            space: if t < 0.5 { self.space } else { other.space },
        }
    }
}

/// IK target positions and weights at a moment in time; blended when
/// switching weapons or entering a stance.
#[derive(Debug, PartialEq)]
pub struct PoseSnapshot {
    /// Targets, at most one per id.
    pub targets: Vec<PoseTargetData>,
    /// Overall weight of the snapshot, 0 ..= 1.
    pub weight: f32,
}

impl Clone for PoseSnapshot {
    fn clone(&self) -> Self {
        PoseSnapshot { targets: self.targets.clone(), weight: self.weight }
    }

    /// Reuses `self`'s storage: copying a snapshot into one that has held as
    /// many targets before allocates nothing (the per-frame copy into the IK
    /// inputs relies on it).
    fn clone_from(&mut self, source: &Self) {
        self.targets.clone_from(&source.targets);
        self.weight = source.weight;
    }
}

impl Default for PoseSnapshot {
    fn default() -> Self {
        PoseSnapshot { targets: Vec::new(), weight: 1.0 }
    }
}

impl PoseSnapshot {
    /// The target with id `id`.
    #[must_use]
    pub fn target(&self, id: IKTargetId) -> Option<&PoseTargetData> {
        self.targets.iter().find(|t| t.target == id)
    }

    /// Sets or replaces a target.
    pub fn set_target(&mut self, data: PoseTargetData) {
        match self.targets.iter_mut().find(|t| t.target == data.target) {
            Some(slot) => *slot = data,
            None => self.targets.push(data),
        }
    }

    /// Blends `a` towards `b` by `t` into `out`, reusing its storage.
    ///
    /// Targets present in both are interpolated ([`PoseTargetData::lerp`]);
    /// a target present in only one side keeps its transform and has its
    /// weight faded (out of `a`, into `b`), so switching weapons never pops a hand.
    pub fn blend_into(a: &PoseSnapshot, b: &PoseSnapshot, t: f32, out: &mut PoseSnapshot) {
        let t = t.clamp(0.0, 1.0);
        out.targets.clear();
        for ta in &a.targets {
            match b.target(ta.target) {
                Some(tb) => out.targets.push(ta.lerp(tb, t)),
                None => out.targets.push(PoseTargetData { weight: ta.weight * (1.0 - t), ..*ta }),
            }
        }
        for tb in &b.targets {
            if a.target(tb.target).is_none() {
                out.targets.push(PoseTargetData { weight: tb.weight * t, ..*tb });
            }
        }
        out.weight = a.weight + (b.weight - a.weight) * t;
    }

    /// Allocating convenience over [`PoseSnapshot::blend_into`].
    #[must_use]
    pub fn blend(a: &PoseSnapshot, b: &PoseSnapshot, t: f32) -> PoseSnapshot {
        let mut out = PoseSnapshot::default();
        PoseSnapshot::blend_into(a, b, t, &mut out);
        out
    }
}

/// A problem found by [`AnimationDriver::validate_profile`].
#[derive(Debug, Clone, PartialEq)]
pub enum DriverProblem {
    /// The rig has no parameter of that name.
    MissingParameter {
        /// Binding id.
        binding: AnimationBindingId,
        /// Parameter name the profile uses.
        parameter: String,
    },
    /// The rig's parameter has another type.
    TypeMismatch {
        /// Binding id.
        binding: AnimationBindingId,
        /// Parameter name.
        parameter: String,
        /// Type the profile declares.
        declared: AnimationParameterType,
        /// Type the rig has.
        actual: AnimationParameterType,
    },
    /// The binding routes to a layer the rig does not have.
    LayerOutOfRange {
        /// Binding id.
        binding: AnimationBindingId,
        /// Layer index the profile uses.
        layer: i32,
        /// Layers the rig has.
        layer_count: usize,
    },
    /// A slot's clip reference does not resolve.
    UnresolvedSlot {
        /// Slot id.
        slot: AnimationSlotId,
        /// Clip reference.
        clip_reference: String,
    },
}

impl std::fmt::Display for DriverProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DriverProblem::MissingParameter { binding, parameter } => {
                write!(f, "binding `{binding}`: the rig has no parameter `{parameter}`")
            }
            DriverProblem::TypeMismatch { binding, parameter, declared, actual } => write!(
                f,
                "binding `{binding}`: parameter `{parameter}` is {actual} on the rig but {declared} in the profile"
            ),
            DriverProblem::LayerOutOfRange { binding, layer, layer_count } => {
                write!(f, "binding `{binding}`: layer {layer} is out of range (the rig has {layer_count} layers)")
            }
            DriverProblem::UnresolvedSlot { slot, clip_reference } => {
                write!(f, "slot `{slot}`: clip `{clip_reference}` does not resolve")
            }
        }
    }
}

/// Shared handle to a binding profile of any concrete type.
pub type SharedBindingProfile = Arc<dyn AnimationBindingProfile + Send + Sync>;

/// The runtime bridge from gameplay events into an animator.
///
/// Every mutator is a documented **no-op when the binding is absent** from the
/// active profile (or no profile is loaded), so a rifle profile driving a rig
/// that has no `lean` parameter simply does nothing. Mutators must not
/// allocate.
pub trait AnimationDriver {
    /// The profile in use, if any.
    fn active_profile(&self) -> Option<&SharedBindingProfile>;
    /// Loads a profile and re-maps cached parameter indices (may allocate).
    fn load_profile(&mut self, profile: SharedBindingProfile);
    /// Sets a trigger; no-op when absent.
    fn fire_trigger(&mut self, id: AnimationBindingId);
    /// Sets a bool; no-op when absent.
    fn set_bool(&mut self, id: AnimationBindingId, value: bool);
    /// Sets a float; no-op when absent.
    fn set_float(&mut self, id: AnimationBindingId, value: f32);
    /// Sets an int; no-op when absent.
    fn set_int(&mut self, id: AnimationBindingId, value: i32);
    /// Plays a slot's clip; `false` when the slot is absent or its clip does not resolve.
    fn play_slot(&mut self, id: AnimationSlotId) -> bool;
    /// Checks that the rig has every parameter the profile references, listing every problem.
    fn validate_profile(&self) -> Result<(), Vec<DriverProblem>>;
}

/// Receives events coming back out of the animation, after evaluation.
pub trait AnimationEventReceiver {
    /// A keyframe event: a binding and a sub-phase tag (`start`, `complete`, `cancel`) or a notify name.
    fn on_animation_event(&mut self, binding: AnimationBindingId, event_tag: &str);
    /// Progress of a playing slot, normalised 0 ..= 1.
    fn on_slot_progress(&mut self, slot: AnimationSlotId, normalized_time: f32);
    /// A clip notify crossed by playback (`Footstep`); default ignores it.
    fn on_notify(&mut self, _name: &str) {}
    /// The graph moved from one state to another; default ignores it.
    fn on_state_changed(&mut self, _from: &str, _to: &str) {}
}

/// Turns a slot's string clip reference into a playable handle.
pub trait AnimationClipResolver {
    /// The playable handle type.
    type Handle;
    /// Resolves a reference; `None` when it names nothing.
    fn try_resolve(&mut self, clip_reference: &str) -> Option<Self::Handle>;
    /// Releases a handle obtained from `try_resolve`.
    fn release(&mut self, _handle: Self::Handle) {}
}

/// Supplies grip positions, aim offsets and per-slot poses for one piece of equipment.
pub trait IkPoseProvider {
    /// The equipment's id.
    fn equipment_id(&self) -> &str;
    /// Pose when held at rest.
    fn idle_pose(&self) -> PoseSnapshot;
    /// Pose when aiming.
    fn aim_pose(&self) -> PoseSnapshot;
    /// Pose while `slot` plays; `None` to keep the idle/aim blend.
    fn slot_pose(&self, slot: AnimationSlotId) -> Option<PoseSnapshot>;
    /// [`IkPoseProvider::slot_pose`] written into `out` (its storage
    /// reused); `false`, leaving `out` alone, when the slot has no pose. The
    /// service asks this when a slot starts, which may happen between any
    /// two frames: a provider that keeps its poses should override it so it
    /// allocates nothing once `out` has held a pose that large (the default
    /// goes through `slot_pose`, which allocates).
    fn write_slot_pose(&self, slot: AnimationSlotId, out: &mut PoseSnapshot) -> bool {
        match self.slot_pose(slot) {
            Some(pose) => {
                *out = pose;
                true
            }
            None => false,
        }
    }
}

/// Resolves the current IK pose from whatever is equipped.
pub trait IkPoseService {
    /// The current blended pose.
    fn current_pose(&self) -> &PoseSnapshot;
    /// Registers a provider (on equip); replaces one with the same equipment id.
    fn register_provider(&mut self, provider: Box<dyn IkPoseProvider + Send + Sync>);
    /// Unregisters the provider with this equipment id (on unequip).
    fn unregister_provider(&mut self, equipment_id: &str);
    /// Whether the character aims.
    fn set_aiming(&mut self, aiming: bool);
    /// A slot started playing.
    fn set_active_slot(&mut self, slot: AnimationSlotId);
    /// The active slot ended.
    fn clear_active_slot(&mut self);
}

/// Which stances a character or loadout supports.
pub trait StanceProvider {
    /// Every stance.
    fn available_stances(&self) -> &[StanceId];
    /// The stance to start in.
    fn default_stance(&self) -> StanceId;
    /// Whether `stance` can be entered now.
    fn can_enter_stance(&self, stance: StanceId) -> bool;
    /// The slot that plays when entering `stance`.
    fn stance_entry_slot(&self, stance: StanceId) -> Option<AnimationSlotId>;
    /// The IK modification the stance applies.
    fn stance_pose_modifier(&self, stance: StanceId) -> PoseSnapshot;
}

/// Plays a scripted preview preset through a driver (an authoring feature).
pub trait PreviewSimulator {
    /// Starts the preset from its first step.
    fn play(&mut self, preset: &PreviewPreset);
    /// Pauses ticking.
    fn pause(&mut self);
    /// Resumes ticking.
    fn resume(&mut self);
    /// Stops and rewinds.
    fn stop(&mut self);
    /// Advances by `delta_seconds`.
    fn tick(&mut self, delta_seconds: f32);
    /// Whether a preset is playing (not paused, not finished).
    fn is_playing(&self) -> bool;
    /// Index of the step being played.
    fn current_step_index(&self) -> usize;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blending_fades_targets_present_on_one_side() {
        let grip = IKTargetId::from_static("left_hand_grip");
        let look = IKTargetId::from_static("look_target");
        let a = PoseSnapshot {
            targets: vec![PoseTargetData {
                target: grip,
                position: [0.0; 3],
                rotation: None,
                weight: 1.0,
                space: PoseSpace::Model,
            }],
            weight: 1.0,
        };
        let b = PoseSnapshot {
            targets: vec![
                PoseTargetData {
                    target: grip,
                    position: [2.0, 0.0, 0.0],
                    rotation: Some([0.0, 0.0, 0.0, 1.0]),
                    weight: 1.0,
                    space: PoseSpace::Joint(3),
                },
                PoseTargetData {
                    target: look,
                    position: [0.0; 3],
                    rotation: Some([0.0, 0.0, 0.0, 1.0]),
                    weight: 1.0,
                    space: PoseSpace::Joint(3),
                },
            ],
            weight: 0.0,
        };
        let mid = PoseSnapshot::blend(&a, &b, 0.5);
        assert_eq!(mid.target(grip).unwrap().position, [1.0, 0.0, 0.0]);
        assert_eq!(mid.target(look).unwrap().weight, 0.5);
        assert_eq!(mid.weight, 0.5);
        let grip_mid = mid.target(grip).unwrap();
        assert_eq!(grip_mid.rotation, Some([0.0, 0.0, 0.0, 1.0]), "a rotation on one side only is kept");
        assert_eq!(grip_mid.space, PoseSpace::Joint(3), "the space switches half way");
        assert_eq!(PoseSnapshot::blend(&a, &b, 0.25).target(grip).unwrap().space, PoseSpace::Model);
    }

    #[test]
    fn copying_into_a_used_snapshot_reuses_its_storage() {
        let grip = IKTargetId::from_static("left_hand_grip");
        let one = PoseTargetData {
            target: grip,
            position: [1.0, 2.0, 3.0],
            rotation: None,
            weight: 0.5,
            space: PoseSpace::Joint(1),
        };
        let source = PoseSnapshot { targets: vec![one], weight: 0.75 };
        let mut out = PoseSnapshot { targets: Vec::with_capacity(4), weight: 1.0 };
        let before = out.targets.as_ptr();
        out.clone_from(&source);
        assert_eq!(out, source);
        assert_eq!(out.targets.as_ptr(), before, "no new buffer");
    }
}

//! The procedural fallback: what moves when no clip matches (breath on the
//! spine, a head bob while moving).

use zoa_anim_core::RigPolicy;
use zoa_anim_core::glam::{Quat, Vec3};

/// Procedural fallback values for one moment (a character with no clip for
/// its state still moves: idle breath on the spine root, head bob during
/// locomotion).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ProceduralMotion {
    /// Spine-root pitch, radians: `breath_amplitude · sin(2π · breath_frequency · t)`.
    pub spine_pitch: f32,
    /// Vertical head offset, metres: `head_bob_amplitude · sin(2π · step_frequency · t)`
    /// while moving, 0 at rest.
    pub head_bob: f32,
}

impl ProceduralMotion {
    /// The spine-root rotation to compose onto the pose (about the local X axis).
    #[must_use]
    pub fn spine_rotation(&self) -> Quat {
        Quat::from_rotation_x(self.spine_pitch)
    }
    /// The head translation to add to the pose (along +Y).
    #[must_use]
    pub fn head_offset(&self) -> Vec3 {
        Vec3::new(0.0, self.head_bob, 0.0)
    }
}

/// The procedural fallback at time `t` seconds. Pure: breath follows the rig
/// policy's frequency and amplitude; the head bob uses the policy's amplitude
/// at `step_frequency` Hz (the rig policy has no cadence knob) and only while `moving`.
#[must_use]
pub fn procedural_motion(policy: &RigPolicy, t: f32, moving: bool, step_frequency: f32) -> ProceduralMotion {
    let tau = std::f32::consts::TAU;
    let spine_pitch = policy.breath_amplitude * (tau * policy.breath_frequency * t).sin();
    let head_bob = if moving { policy.head_bob_amplitude * (tau * step_frequency * t).sin() } else { 0.0 };
    ProceduralMotion { spine_pitch, head_bob }
}

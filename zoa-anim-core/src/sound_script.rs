//! Scripted sound events as plain data: what a sound script file holds once
//! checked (`zoa_anim_assets::sound_script` reads the file) and what the
//! audio crate's offline renderer plays (`zoa_audio_profile::render_script`).
//! Defined here, between the two, so neither crate depends on the other and
//! the parsed events go to the renderer as they are.

use glam::Vec3;

use crate::{SoundEventId, StateTagSet};

/// What a script event does.
#[derive(Debug, Clone, PartialEq)]
pub enum ScriptAction {
    /// Trigger the event with a state and a surface.
    Trigger {
        /// Active state tags of the emitter.
        state: StateTagSet,
        /// Surface under the emitter.
        surface: Option<String>,
    },
    /// Stop the emitter's voices of the event (and its sub-events).
    Stop,
}

/// One scripted event.
#[derive(Debug, Clone, PartialEq)]
pub struct ScriptEvent {
    /// When, seconds from the start (`>= 0`).
    pub time: f64,
    /// The sound event.
    pub event: SoundEventId,
    /// Emitter name; emitters are created on first use.
    pub emitter: String,
    /// Moves the emitter here before the action, metres.
    pub position: Option<Vec3>,
    /// Trigger or stop.
    pub action: ScriptAction,
}

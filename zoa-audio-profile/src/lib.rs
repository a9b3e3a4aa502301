//! # zoa-audio-profile
//!
//! Sound by meaning: gameplay asks for `weapon.fire.dryclick` on an emitter
//! that is `combat=armed_rifle mood=alert`, standing on `metal`; a
//! [`SoundTable`] (a `SoundProfile` flattened through its parents) resolves
//! that to one entry with the same tag algebra the clip tables use, and the
//! [`Player`] turns the entry into a voice on a bus — attenuated and panned
//! in 3D, looped with fades, limited by cooldowns and polyphony caps — mixed
//! into one stereo output.
//!
//! **Key design decision:** the player is an *offline-first, pull-driven*
//! mixer over decoded buffers with a fixed-capacity voice pool and a clock
//! measured in rendered frames. Tests drive it deterministically and assert on
//! the samples it produced, with no audio device; real-time playback
//! ([`device`], cargo feature `device`) pulls blocks from the very same
//! `render`, on the audio thread, which owns the player: the game thread
//! talks to it through lock-free rings ([`realtime`]), so the callback never
//! waits, allocates or frees. rodio is used for what it does well offline — decoding WAV and
//! Ogg Vorbis — while panning, attenuation and voice management are our own
//! (rodio 0.23's `Spatial` pans to the wrong ear, and its mixer grows a queue
//! per added source). Resolution, triggering and mixing allocate nothing
//! after [`Player::new`], so memory is bounded at any trigger rate.
//!
//! The resolver rules (plain subset matching, hierarchical id fallback,
//! surface, specificity, weight, order) are documented in [`resolver`]; the
//! gain curves in [`curves`]; voice management in [`player`].
//!
//! ```
//! use zoa_anim_core::{SoundEventEntry, SoundEventId, SoundProfile, StateTagSet};
//! use zoa_audio_profile::{ResolveOptions, SoundTable};
//!
//! let fire = SoundEventId::from_static("weapon.fire");
//! let profile = SoundProfile {
//!     id: "rifle".into(),
//!     entries: vec![SoundEventEntry::new(fire, "weapon_fire_1.wav")],
//!     ..SoundProfile::default()
//! };
//! let table = SoundTable::from_profile(&profile).unwrap();
//! let dry = SoundEventId::from_static("weapon.fire.dryclick");
//! let hit = table.resolve(dry, StateTagSet::EMPTY, None, ResolveOptions::default()).unwrap();
//! assert_eq!((hit.entry, hit.event_id, hit.id_levels_up), (0, fire, 1));
//! ```

#![deny(missing_docs)]
#![warn(clippy::must_use_candidate)]
#![cfg_attr(not(test), warn(clippy::too_many_lines))]

pub mod clips;
pub mod curves;
pub mod device;
pub mod emitter;
mod error;
pub mod fixtures;
pub mod player;
pub mod realtime;
pub mod resolver;
pub mod script;
pub mod wav;

pub use clips::{ClipBank, ClipData};
pub use curves::Listener;
pub use emitter::{NotifyMap, SoundEmitter};
pub use error::AudioError;
pub use player::{
    BusConfig, CapKind, EmitterId, MAX_COOLDOWN_CELLS, Player, PlayerConfig, PlayerStats, ThrottleLimit, ThrottleStats,
    TriggerOutcome, VoiceHandle, VoiceInfo,
};
pub use realtime::{PlayerHandle, PlayerRenderer, RemoteEmitter, Report, Ticket, realtime};
pub use resolver::{ResolveOptions, SoundMatch, SoundRow, SoundTable, VariantHistory, pick_variant_index, resolve};
pub use script::{
    MAX_RENDER_SAMPLES, MAX_RENDER_SECONDS, RenderReport, Script, ScriptAction, ScriptEvent, render_script,
};

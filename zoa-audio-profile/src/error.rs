//! The one error type of the audio crate.

use thiserror::Error;
use zoa_anim_core::CoreError;

/// Everything that can go wrong inside `zoa-audio-profile`.
///
/// Nothing here is a panic in disguise: bad weights, missing clips, a full
/// emitter pool or a missing sound device are all reported as values.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum AudioError {
    /// A core-level data problem (inheritance cycle, missing parent, bad id).
    #[error(transparent)]
    Core(#[from] CoreError),
    /// A variant list cannot be picked from: empty, a negative or non-finite
    /// weight, or a total weight that is not `> 0`.
    #[error("invalid variant weights: {reason}")]
    InvalidVariantWeights {
        /// What is wrong with the weights.
        reason: &'static str,
    },
    /// A flattened profile has entries that break the documented ranges; every
    /// problem is listed (`entries[3] (weapon.fire): cooldown must be >= 0`).
    #[error("sound profile `{profile}` is invalid: {}", problems.join("; "))]
    InvalidProfile {
        /// The profile id.
        profile: String,
        /// One line per problem, each with the entry index and event id.
        problems: Vec<String>,
    },
    /// Clips named by the profile are not in the clip bank.
    #[error("clips missing from the clip bank: {}", names.join(", "))]
    MissingClips {
        /// Every missing clip name.
        names: Vec<String>,
    },
    /// A sound file could not be read.
    #[error("cannot read sound file `{path}`: {source}")]
    Io {
        /// The file.
        path: String,
        /// The underlying IO error.
        #[source]
        source: std::io::Error,
    },
    /// A sound file could not be decoded (unknown format, corrupt data, or
    /// more than two channels).
    #[error("cannot decode sound `{path}`: {reason}")]
    Decode {
        /// The file or clip name.
        path: String,
        /// What the decoder said.
        reason: String,
    },
    /// A player setting is out of range (sample rate 0, voice pool 0, …).
    #[error("invalid player configuration: {reason}")]
    InvalidConfig {
        /// What is wrong.
        reason: String,
    },
    /// Every emitter slot is in use; the capacity is fixed at construction.
    #[error("emitter pool is full ({capacity} emitters)")]
    EmitterPoolFull {
        /// The configured capacity.
        capacity: usize,
    },
    /// A position or direction given to the player is NaN or infinite.
    #[error("{what} must be finite, got {value}")]
    NonFinite {
        /// What was given (`emitter position`, `listener`).
        what: &'static str,
        /// The value as given.
        value: String,
    },
    /// The command ring to the audio thread is full (the audio thread is
    /// behind or stopped); the command was not queued.
    #[error("the audio thread's command queue is full")]
    QueueFull,
    /// An emitter handle that was removed or never existed.
    #[error("unknown or removed emitter handle")]
    UnknownEmitter,
    /// Device playback was requested but there is no usable output device
    /// (or the crate was built without the `device` feature).
    #[error("no audio output device: {reason}")]
    NoDevice {
        /// Why the device could not be opened.
        reason: String,
    },
}

//! Integration tests of zoa-audio-profile. None needs an audio device: the
//! player is rendered offline and the tests assert on the samples.

/// Shared builders: entries, profiles, in-memory clips.
mod common;
/// Fixture WAVs: committed files equal a fresh generation and decode.
mod fixtures;
/// The player: curves, fades, loops, cooldowns, caps, buses, emitters.
mod player;
/// Resolver rules case by case, inheritance, and the resolution-table snapshot.
mod resolver;
/// Scripted offline renders of the fixture sounds.
mod script;

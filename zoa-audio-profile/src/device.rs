//! Real-time playback on the default output device, behind the `device`
//! cargo feature (it pulls in cpal and, on Linux, needs the ALSA headers).
//!
//! The device callback pulls 256-frame blocks from the same [`Player`] the
//! offline renderer uses, so what tests assert on is what the speakers get.
//! Without the feature, or without a device, [`play_on_default_device`]
//! returns [`AudioError::NoDevice`] — never a panic.

#[cfg(feature = "device")]
use std::sync::{Arc, Mutex};

use crate::AudioError;
use crate::player::Player;

/// A player attached to the output device; dropping it stops playback.
#[derive(Debug)]
pub struct DevicePlayback {
    #[cfg(feature = "device")]
    player: Arc<Mutex<Player>>,
    #[cfg(feature = "device")]
    _sink: DeviceSink,
    #[cfg(not(feature = "device"))]
    _never: std::convert::Infallible,
}

/// Owns the output stream; dropping it closes the stream.
#[cfg(feature = "device")]
struct DeviceSink {
    _stream: rodio::MixerDeviceSink,
}

#[cfg(feature = "device")]
impl std::fmt::Debug for DeviceSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("DeviceSink")
    }
}

impl DevicePlayback {
    /// Runs `f` on the player (trigger, move emitters, …) while the device
    /// keeps pulling. A poisoned lock is recovered, not propagated.
    pub fn with_player<R>(&self, f: impl FnOnce(&mut Player) -> R) -> R {
        #[cfg(feature = "device")]
        {
            let mut guard = self.player.lock().unwrap_or_else(|p| p.into_inner());
            f(&mut guard)
        }
        #[cfg(not(feature = "device"))]
        {
            let _ = f;
            match self._never {}
        }
    }
}

/// Opens the default output device and starts pulling from `player`.
///
/// # Errors
/// [`AudioError::NoDevice`] when the crate was built without the `device`
/// feature or no output device can be opened.
pub fn play_on_default_device(player: Player) -> Result<DevicePlayback, AudioError> {
    #[cfg(feature = "device")]
    {
        let sink = rodio::DeviceSinkBuilder::open_default_sink()
            .map_err(|e| AudioError::NoDevice { reason: e.to_string() })?;
        let rate = player.config().sample_rate;
        let player = Arc::new(Mutex::new(player));
        sink.mixer().add(PullSource { player: Arc::clone(&player), buf: [0.0; PULL_SAMPLES], pos: PULL_SAMPLES, rate });
        Ok(DevicePlayback { player, _sink: DeviceSink { _stream: sink } })
    }
    #[cfg(not(feature = "device"))]
    {
        drop(player);
        Err(AudioError::NoDevice { reason: "built without the `device` feature of zoa-audio-profile".into() })
    }
}

#[cfg(feature = "device")]
const PULL_SAMPLES: usize = 512;

/// A rodio source that renders the player block by block.
#[cfg(feature = "device")]
struct PullSource {
    player: Arc<Mutex<Player>>,
    buf: [f32; PULL_SAMPLES],
    pos: usize,
    rate: u32,
}

#[cfg(feature = "device")]
impl Iterator for PullSource {
    type Item = rodio::Sample;
    fn next(&mut self) -> Option<rodio::Sample> {
        if self.pos == PULL_SAMPLES {
            let mut guard = self.player.lock().unwrap_or_else(|p| p.into_inner());
            guard.render(&mut self.buf);
            self.pos = 0;
        }
        let s = self.buf[self.pos];
        self.pos += 1;
        Some(s as rodio::Sample)
    }
}

#[cfg(feature = "device")]
impl rodio::Source for PullSource {
    fn current_span_len(&self) -> Option<usize> {
        None
    }
    fn channels(&self) -> rodio::ChannelCount {
        rodio::ChannelCount::new(2).unwrap_or(rodio::ChannelCount::MIN)
    }
    fn sample_rate(&self) -> rodio::SampleRate {
        rodio::SampleRate::new(self.rate).unwrap_or(rodio::SampleRate::MIN)
    }
    fn total_duration(&self) -> Option<std::time::Duration> {
        None
    }
}

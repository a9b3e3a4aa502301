//! Real-time playback on the default output device, behind the `device`
//! cargo feature (it pulls in cpal and, on Linux, needs the ALSA headers).
//!
//! The device callback owns a [`PlayerRenderer`] and pulls 512-sample blocks
//! from it: commands queued on the returned [`DevicePlayback`]'s
//! [`PlayerHandle`] are applied at the start of each block, then the same
//! [`Player::render`] the offline renderer uses fills it, so what tests
//! assert on is what the speakers get. The callback takes no lock, allocates
//! nothing and frees nothing (see [`crate::realtime`]). Without the feature,
//! or without a device, [`play_on_default_device`] returns
//! [`AudioError::NoDevice`] — never a panic.

use crate::AudioError;
use crate::player::Player;
#[cfg(feature = "device")]
use crate::realtime::PlayerRenderer;
use crate::realtime::{DEFAULT_CAPACITY, PlayerHandle};

/// A player playing on the output device; dropping it stops playback.
#[derive(Debug)]
pub struct DevicePlayback {
    handle: PlayerHandle,
    #[cfg(feature = "device")]
    _sink: DeviceSink,
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
    /// The game thread's end of the player: trigger, move emitters, set the
    /// listener, poll reports. Wait-free.
    pub fn handle(&mut self) -> &mut PlayerHandle {
        &mut self.handle
    }
}

/// Opens the default output device and starts playing `player` on it.
///
/// # Errors
/// [`AudioError::NoDevice`] when the crate was built without the `device`
/// feature or no output device can be opened.
pub fn play_on_default_device(player: Player) -> Result<DevicePlayback, AudioError> {
    #[cfg(feature = "device")]
    {
        let sink = rodio::DeviceSinkBuilder::open_default_sink()
            .map_err(|e| AudioError::NoDevice { reason: e.to_string() })?;
        let (handle, renderer) = crate::realtime::realtime(player, DEFAULT_CAPACITY);
        let rate = renderer.sample_rate();
        sink.mixer().add(PullSource { renderer, buf: [0.0; PULL_SAMPLES], pos: PULL_SAMPLES, rate });
        Ok(DevicePlayback { handle, _sink: DeviceSink { _stream: sink } })
    }
    #[cfg(not(feature = "device"))]
    {
        let _ = DEFAULT_CAPACITY;
        drop(player);
        Err(AudioError::NoDevice { reason: "built without the `device` feature of zoa-audio-profile".into() })
    }
}

#[cfg(feature = "device")]
const PULL_SAMPLES: usize = 512;

/// A rodio source that renders the player block by block on the audio thread.
#[cfg(feature = "device")]
struct PullSource {
    renderer: PlayerRenderer,
    buf: [f32; PULL_SAMPLES],
    pos: usize,
    rate: u32,
}

#[cfg(feature = "device")]
impl Iterator for PullSource {
    type Item = rodio::Sample;
    fn next(&mut self) -> Option<rodio::Sample> {
        if self.pos == PULL_SAMPLES {
            self.renderer.process(&mut self.buf);
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

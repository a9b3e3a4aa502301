//! Offline rendering of a scripted sequence of events: the deterministic
//! clock drives the player frame by frame, each event is applied at the
//! first frame at or after its time, and the mix is collected in memory.
//! The script *file format* (TOML) is read by `zoa_anim_assets::sound_script`
//! (this crate reads no files); this is the typed form the player runs.

use zoa_anim_core::SoundEventId;
use zoa_anim_core::glam::Vec3;
pub use zoa_anim_core::sound_script::{ScriptAction, ScriptEvent};

use crate::AudioError;
use crate::curves::Listener;
use crate::player::{EmitterId, Player, PlayerStats, TriggerOutcome};

/// Longest render accepted, seconds (10 minutes).
pub const MAX_RENDER_SECONDS: f64 = 600.0;

/// Most output samples one render holds (48 Mi `f32`, 192 MiB: 500 s of
/// 48 kHz stereo, 125 s at 192 kHz); checked before the buffer is allocated.
pub const MAX_RENDER_SAMPLES: usize = 48 << 20;

/// A whole script.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Script {
    /// Events (applied in time order; equal times keep their order).
    pub events: Vec<ScriptEvent>,
    /// Where the listener is.
    pub listener: Listener,
    /// Total length, seconds; default: last event time + 1 s.
    pub length: Option<f64>,
}

/// What happened to one script event.
#[derive(Debug, Clone, PartialEq)]
pub struct EventReport {
    /// The event's scheduled time, seconds.
    pub time: f64,
    /// The frame it was applied at.
    pub frame: u64,
    /// The event.
    pub event: SoundEventId,
    /// The emitter name.
    pub emitter: String,
    /// `Some` for triggers, `None` for stops.
    pub outcome: Option<TriggerOutcome>,
    /// For stops: voices stopped.
    pub stopped: usize,
}

/// The result of [`render_script`].
#[derive(Debug, Clone, PartialEq)]
pub struct RenderReport {
    /// Interleaved stereo samples.
    pub samples: Vec<f32>,
    /// Frames per second.
    pub sample_rate: u32,
    /// One report per script event, in application order.
    pub events: Vec<EventReport>,
    /// The player's counters after the render.
    pub stats: PlayerStats,
}

impl RenderReport {
    /// Number of frames.
    #[must_use]
    pub fn frames(&self) -> usize {
        self.samples.len() / 2
    }

    /// RMS over frames `[from, to)` of both channels (0 for an empty range).
    #[must_use]
    pub fn rms(&self, from: usize, to: usize) -> f32 {
        let to = to.min(self.frames());
        if from >= to {
            return 0.0;
        }
        let s = &self.samples[from * 2..to * 2];
        (s.iter().map(|x| (*x as f64) * (*x as f64)).sum::<f64>() / s.len() as f64).sqrt() as f32
    }

    /// Frame index of a time, seconds.
    #[must_use]
    pub fn frame_at(&self, seconds: f64) -> usize {
        (seconds * self.sample_rate as f64).round().max(0.0) as usize
    }
}

/// Renders `script` on `player` from its current clock.
///
/// # Errors
/// [`AudioError::InvalidConfig`] for a negative or non-finite event time or a
/// length beyond [`MAX_RENDER_SECONDS`] or more than [`MAX_RENDER_SAMPLES`]
/// samples; [`AudioError::EmitterPoolFull`] when
/// the script names more emitters than the player holds.
pub fn render_script(player: &mut Player, script: &Script) -> Result<RenderReport, AudioError> {
    let bad = |reason: String| Err(AudioError::InvalidConfig { reason });
    if let Some(e) = script.events.iter().find(|e| !(e.time.is_finite() && e.time >= 0.0)) {
        return bad(format!("event `{}` has time {}; times must be finite and >= 0", e.event, e.time));
    }
    let last = script.events.iter().map(|e| e.time).fold(0.0, f64::max);
    let length = script.length.unwrap_or(last + 1.0);
    if !(length.is_finite() && (0.0..=MAX_RENDER_SECONDS).contains(&length)) {
        return bad(format!("render length {length} s must be within 0 ..= {MAX_RENDER_SECONDS}"));
    }
    let rate = player.config().sample_rate;
    let total_frames = (length * rate as f64).round() as usize;
    if total_frames.saturating_mul(2) > MAX_RENDER_SAMPLES {
        return bad(format!(
            "{length} s at {rate} Hz is {} stereo samples; a render holds at most {MAX_RENDER_SAMPLES}",
            total_frames.saturating_mul(2)
        ));
    }
    let mut order: Vec<usize> = (0..script.events.len()).collect();
    order.sort_by(|&a, &b| script.events[a].time.total_cmp(&script.events[b].time));

    player.set_listener(script.listener)?;
    let mut emitters: std::collections::HashMap<&str, EmitterId> = std::collections::HashMap::new();
    let mut samples = vec![0.0f32; total_frames * 2];
    let mut reports = Vec::with_capacity(script.events.len());
    let mut done = 0usize;
    for &k in &order {
        let ev = &script.events[k];
        let at = ((ev.time * rate as f64).round() as usize).min(total_frames);
        if at > done {
            player.render(&mut samples[done * 2..at * 2]);
            done = at;
        }
        let id = match emitters.get(ev.emitter.as_str()) {
            Some(id) => *id,
            None => {
                let id = player.add_emitter(ev.position.unwrap_or(Vec3::ZERO))?;
                emitters.insert(ev.emitter.as_str(), id);
                id
            }
        };
        if let Some(p) = ev.position {
            player.set_emitter_position(id, p)?;
        }
        let (outcome, stopped) = match &ev.action {
            ScriptAction::Trigger { state, surface } => {
                (Some(player.trigger(Some(id), ev.event, *state, surface.as_deref())), 0)
            }
            ScriptAction::Stop => (None, player.stop_event(Some(id), ev.event)),
        };
        reports.push(EventReport {
            time: ev.time,
            frame: player.frames_rendered(),
            event: ev.event,
            emitter: ev.emitter.clone(),
            outcome,
            stopped,
        });
    }
    if total_frames > done {
        player.render(&mut samples[done * 2..]);
    }
    Ok(RenderReport { samples, sample_rate: rate, events: reports, stats: player.stats() })
}

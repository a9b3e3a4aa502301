//! Prefix throttles: voice caps, start-rate limits and cooldowns shared by
//! every event under an id prefix (`weapon.fire.*`), as the sound profile
//! declares them ([`zoa_anim_core::SoundThrottle`]).
//!
//! A trigger counts towards every throttle whose prefix covers the event it
//! *asked for* (a request for `weapon.fire.rifle` that falls back to the
//! `weapon` entry is still a `weapon.fire.*` start). It is dropped when any
//! of them is full, checked in throttle order:
//! - **cooldown** — the last start under the prefix was less than `cooldown`
//!   seconds ago (any emitter);
//! - **rate** — `max_starts_per_second` starts already happened in the last
//!   second (a sliding window: the player keeps that many start times);
//! - **voices** — `max_voices` voices started under the prefix are live.
//!
//! Nothing is stolen: a throttle only refuses. The state is sized in
//! [`Player::new`](super::Player::new); checking and recording allocate nothing.

use zoa_anim_core::{SoundEventId, SoundThrottle};

/// Which limit of a throttle refused a trigger.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ThrottleLimit {
    /// Inside the throttle's cooldown.
    Cooldown,
    /// `max_starts_per_second` reached in the last second.
    Rate,
    /// `max_voices` live voices under the prefix.
    Voices,
}

impl ThrottleLimit {
    /// `cooldown`, `rate` or `voices`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            ThrottleLimit::Cooldown => "cooldown",
            ThrottleLimit::Rate => "rate",
            ThrottleLimit::Voices => "voices",
        }
    }
}

/// Counters of one throttle since construction or the last reset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ThrottleStats {
    /// The throttle's prefix.
    pub prefix: SoundEventId,
    /// Voices started under the prefix.
    pub started: u64,
    /// Triggers dropped inside the cooldown.
    pub dropped_cooldown: u64,
    /// Triggers dropped by the start-rate limit.
    pub dropped_rate: u64,
    /// Triggers dropped by the voice cap.
    pub dropped_voices: u64,
    /// Most live voices under the prefix at once.
    pub peak_voices: u32,
}

impl ThrottleStats {
    pub(super) fn new(prefix: SoundEventId) -> Self {
        ThrottleStats { prefix, started: 0, dropped_cooldown: 0, dropped_rate: 0, dropped_voices: 0, peak_voices: 0 }
    }

    /// Triggers dropped by any limit.
    #[must_use]
    pub fn dropped(&self) -> u64 {
        self.dropped_cooldown + self.dropped_rate + self.dropped_voices
    }
}

/// Long ago, in frames (no start yet).
const NEVER: i64 = i64::MIN / 2;

/// Frame-to-frame state of one throttle. Times are frames of the player's
/// clock, so windows are exact (0.1 s at 48 kHz is 4 800 frames, not a
/// rounded float).
#[derive(Debug, Clone)]
pub(super) struct ThrottleState {
    pub limits: SoundThrottle,
    /// The last `max_starts_per_second` start frames (a ring).
    starts: Vec<i64>,
    /// Next ring slot to write (the oldest start once the ring is full).
    head: usize,
    last_start: i64,
    /// One second, frames.
    second: i64,
    /// The cooldown, frames.
    cooldown: i64,
}

impl ThrottleState {
    pub fn new(limits: SoundThrottle, sample_rate: u32) -> Self {
        ThrottleState {
            starts: vec![NEVER; limits.max_starts_per_second as usize],
            head: 0,
            last_start: NEVER,
            second: i64::from(sample_rate),
            cooldown: (f64::from(limits.cooldown) * f64::from(sample_rate)).round() as i64,
            limits,
        }
    }

    /// Whether the throttle covers a request for `event`.
    pub fn covers(&self, event: SoundEventId) -> bool {
        event.is_within(&self.limits.prefix)
    }

    /// The limit that refuses a start at frame `now` with `live` voices
    /// under the prefix, if any.
    pub fn refuses(&self, now: i64, live: usize) -> Option<ThrottleLimit> {
        if self.cooldown > 0 && now - self.last_start < self.cooldown {
            return Some(ThrottleLimit::Cooldown);
        }
        // Full ring: the oldest of the last N starts must be a second old.
        if !self.starts.is_empty() && now - self.starts[self.head] < self.second {
            return Some(ThrottleLimit::Rate);
        }
        let max = self.limits.max_voices;
        if max > 0 && live >= max as usize {
            return Some(ThrottleLimit::Voices);
        }
        None
    }

    /// Records a start at frame `now`.
    pub fn record(&mut self, now: i64) {
        self.last_start = now;
        if !self.starts.is_empty() {
            self.starts[self.head] = now;
            self.head = (self.head + 1) % self.starts.len();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A throttle on a 100 Hz clock (frames are hundredths of a second).
    fn state(voices: u32, rate: u32, cooldown: f32) -> ThrottleState {
        let limits = SoundThrottle {
            prefix: SoundEventId::from_static("weapon.fire"),
            max_voices: voices,
            max_starts_per_second: rate,
            cooldown,
        };
        ThrottleState::new(limits, 100)
    }

    #[test]
    fn coverage_is_the_prefix_and_below() {
        let s = state(0, 0, 0.0);
        assert!(s.covers(SoundEventId::from_static("weapon.fire")));
        assert!(s.covers(SoundEventId::from_static("weapon.fire.rifle.silenced")));
        assert!(!s.covers(SoundEventId::from_static("weapon.fired")));
        assert!(!s.covers(SoundEventId::from_static("weapon")));
    }

    #[test]
    fn the_rate_is_a_sliding_one_second_window() {
        let mut s = state(0, 3, 0.0);
        for t in [0, 10, 20] {
            assert_eq!(s.refuses(t, 0), None);
            s.record(t);
        }
        assert_eq!(s.refuses(30, 0), Some(ThrottleLimit::Rate));
        assert_eq!(s.refuses(99, 0), Some(ThrottleLimit::Rate));
        assert_eq!(s.refuses(100, 0), None, "the start at 0 s left the window");
        s.record(100);
        assert_eq!(s.refuses(105, 0), Some(ThrottleLimit::Rate), "0.1, 0.2 and 1.0 s are within 1 s");
        assert_eq!(s.refuses(110, 0), None);
    }

    #[test]
    fn cooldown_and_voices() {
        let mut s = state(2, 0, 0.25);
        assert_eq!(s.refuses(0, 0), None);
        s.record(0);
        assert_eq!(s.refuses(20, 0), Some(ThrottleLimit::Cooldown));
        assert_eq!(s.refuses(25, 1), None, "exactly the cooldown later");
        assert_eq!(s.refuses(30, 2), Some(ThrottleLimit::Voices));
    }
}

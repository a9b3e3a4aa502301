//! Fades and cross-fades, in one place: every part of the runtime that blends
//! over time — a graph layer's transition, the tag selector's clip switch,
//! the loadout switcher's graph switch, the override slot's envelope and its
//! inner cross-fade — computes its weights here.
//!
//! The rules, shared by all of them:
//! - a fade is linear in (scaled) seconds: `alpha = elapsed / duration`,
//!   clamped to `0..=1`; a fade of zero (or negative) duration is a cut
//!   (`alpha = 1` at once);
//! - during a cross-fade, what was playing keeps the weight it had when the
//!   fade began, scaled by `1 − alpha`, and the incoming entry rises from its
//!   own start weight to 1 ([`crossfade_weight`]); start weights that sum to 1
//!   keep summing to 1 throughout, so an interrupted fade continues from where
//!   it was without a pop.

/// A linear 0 → 1 ramp over a duration, advanced frame by frame.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Fade {
    elapsed: f32,
    duration: f32,
}

impl Fade {
    /// A fade of `duration` seconds that has just begun (`duration <= 0`: a cut).
    #[must_use]
    pub const fn new(duration: f32) -> Fade {
        Fade { elapsed: 0.0, duration }
    }

    /// Adds `dt` seconds.
    pub fn advance(&mut self, dt: f32) {
        self.elapsed += dt;
    }

    /// How far the fade is, `0..=1` ([`ramp`]).
    #[must_use]
    pub fn alpha(&self) -> f32 {
        ramp(self.elapsed, self.duration)
    }

    /// Seconds since the fade began.
    #[must_use]
    pub const fn elapsed(&self) -> f32 {
        self.elapsed
    }

    /// Length of the fade, seconds.
    #[must_use]
    pub const fn duration(&self) -> f32 {
        self.duration
    }
}

/// `elapsed / duration` clamped to `0..=1`; 1 when `duration <= 0` (a cut).
#[must_use]
pub fn ramp(elapsed: f32, duration: f32) -> f32 {
    if duration > 0.0 { (elapsed / duration).clamp(0.0, 1.0) } else { 1.0 }
}

/// The weight, at `alpha`, of an entry of a cross-fade that had weight
/// `start` when the fade began: the incoming entry rises from `start` to 1,
/// every outgoing one falls from `start` to 0.
#[must_use]
pub fn crossfade_weight(start: f32, incoming: bool, alpha: f32) -> f32 {
    if incoming { start + (1.0 - start) * alpha } else { start * (1.0 - alpha) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fade_ramps_linearly_and_a_zero_fade_is_a_cut() {
        let mut f = Fade::new(0.5);
        assert_eq!(f.alpha(), 0.0);
        f.advance(0.25);
        assert_eq!(f.alpha(), 0.5);
        f.advance(1.0);
        assert_eq!(f.alpha(), 1.0, "clamped at the end");
        assert_eq!(Fade::new(0.0).alpha(), 1.0);
        assert_eq!(Fade::new(-1.0).alpha(), 1.0);
        assert_eq!(ramp(-1.0, 2.0), 0.0, "clamped at the start");
    }

    #[test]
    fn crossfade_weights_keep_their_sum() {
        // An interrupted fade: 0.3 of the outgoing A, 0.7 of B, and C incoming from 0.
        let starts = [(0.0, true), (0.3, false), (0.7, false)];
        for alpha in [0.0, 0.25, 0.5, 0.9, 1.0] {
            let sum: f32 = starts.iter().map(|&(s, inc)| crossfade_weight(s, inc, alpha)).sum();
            assert!((sum - 1.0).abs() < 1e-6, "alpha {alpha}: sum {sum}");
        }
        assert_eq!(crossfade_weight(0.0, true, 0.4), 0.4);
        assert_eq!(crossfade_weight(1.0, false, 0.4), 1.0 - 0.4);
        assert_eq!(crossfade_weight(0.5, false, 1.0), 0.0);
    }
}

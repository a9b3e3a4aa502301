//! The gait bands of locomotion's `OnInputThreshold` trigger: thresholds of
//! the entity speed with a dead band around each, and the gait of each band.

use zoa_anim_core::{GaitSpeeds, LocomotionTag};

/// Most thresholds an `OnInputThreshold` input can have.
pub const MAX_INPUT_THRESHOLDS: usize = 8;

/// The `OnInputThreshold` trigger's input test: one threshold between two gaits.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct InputThreshold {
    /// Crossing point of the input (default 0.5, e.g. normalised speed).
    pub threshold: f32,
    /// Width of the dead band around the threshold (`>= 0`, default 0.1): the
    /// input must rise above `threshold + hysteresis/2` or fall below
    /// `threshold − hysteresis/2` to count as a crossing.
    pub hysteresis: f32,
}

impl Default for InputThreshold {
    fn default() -> Self {
        InputThreshold { threshold: 0.5, hysteresis: 0.1 }
    }
}

/// Several thresholds splitting the input into bands (one band per gait:
/// idle | walk | run | sprint). Crossing any threshold, with the hysteresis
/// dead band around each, counts as a crossing, so a locomotion change is
/// released as the input enters the band of each successive gait.
///
/// With gaits ([`InputThresholds::with_gaits`]: the locomotion tag of each
/// band, slowest first), a locomotion change is ready exactly when the input
/// is in the band of the requested gait, so `walk → run → sprint` follows the
/// speed; a requested locomotion with none of the gaits (strafe, jump, …) is
/// ready at once. Without gaits, any crossing since the request releases it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct InputThresholds {
    pub(super) points: [f32; MAX_INPUT_THRESHOLDS],
    pub(super) count: usize,
    pub(super) hysteresis: f32,
    pub(super) gaits: [LocomotionTag; MAX_INPUT_THRESHOLDS + 1],
    pub(super) gait_count: usize,
}

impl InputThresholds {
    /// Thresholds (sorted here; non-finite ones dropped; at most
    /// [`MAX_INPUT_THRESHOLDS`] kept) with a dead band of `hysteresis` (`>= 0`)
    /// around each.
    pub fn new(thresholds: &[f32], hysteresis: f32) -> InputThresholds {
        let mut points = [0.0; MAX_INPUT_THRESHOLDS];
        let mut count = 0;
        for &t in thresholds.iter().filter(|t| t.is_finite()).take(MAX_INPUT_THRESHOLDS) {
            points[count] = t;
            count += 1;
        }
        points[..count].sort_by(f32::total_cmp);
        let hysteresis = if hysteresis.is_finite() { hysteresis.max(0.0) } else { 0.0 };
        InputThresholds {
            points,
            count,
            hysteresis,
            gaits: [LocomotionTag::empty(); MAX_INPUT_THRESHOLDS + 1],
            gait_count: 0,
        }
    }
    /// Builder: the locomotion tag of each band, slowest first (at most one
    /// more than the thresholds; extra ones are ignored).
    #[must_use]
    pub fn with_gaits(mut self, gaits: &[LocomotionTag]) -> InputThresholds {
        let n = gaits.len().min(self.count + 1);
        self.gaits[..n].copy_from_slice(&gaits[..n]);
        self.gait_count = n;
        self
    }
    /// The gait of each band.
    #[must_use]
    pub fn gaits(&self) -> &[LocomotionTag] {
        &self.gaits[..self.gait_count]
    }
    /// The band of the first gait `locomotion` names (`None` when it names none).
    #[must_use]
    pub fn gait_band(&self, locomotion: LocomotionTag) -> Option<usize> {
        self.gaits().iter().position(|g| locomotion.intersects(*g))
    }
    /// The thresholds, ascending.
    #[must_use]
    pub fn thresholds(&self) -> &[f32] {
        &self.points[..self.count]
    }
    /// The band `value` is in, starting from band `current`: it moves up past
    /// a threshold only beyond `threshold + hysteresis/2` and down only below
    /// `threshold − hysteresis/2`.
    #[must_use]
    pub fn band(&self, current: usize, value: f32) -> usize {
        let half = self.hysteresis * 0.5;
        let mut band = current.min(self.count);
        while band < self.count && value >= self.points[band] + half {
            band += 1;
        }
        while band > 0 && value <= self.points[band - 1] - half {
            band -= 1;
        }
        band
    }
}

impl From<&GaitSpeeds> for InputThresholds {
    /// The bands of a timing definition's gaits (idle below the first).
    fn from(g: &GaitSpeeds) -> Self {
        let mut points = [0.0; MAX_INPUT_THRESHOLDS];
        let mut gaits = [LocomotionTag::IDLE; MAX_INPUT_THRESHOLDS + 1];
        let mut n = 0;
        for (k, t) in g.thresholds().take(MAX_INPUT_THRESHOLDS).enumerate() {
            points[k] = t;
            n = k + 1;
        }
        for (k, gait) in g.gaits().take(n + 1).enumerate() {
            gaits[k] = gait;
        }
        InputThresholds::new(&points[..n], g.dead_band).with_gaits(&gaits[..=n])
    }
}

impl From<InputThreshold> for InputThresholds {
    fn from(t: InputThreshold) -> Self {
        InputThresholds::new(&[t.threshold], t.hysteresis)
    }
}

impl Default for InputThresholds {
    fn default() -> Self {
        InputThreshold::default().into()
    }
}

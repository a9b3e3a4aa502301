//! Level of detail: how often a character is evaluated, and what it runs.
//!
//! A game sets each character's *significance* every frame
//! ([`Character::set_significance`](super::Character::set_significance): 1 =
//! on screen and close, 0 = far away or off screen; Unreal's significance
//! manager, Unity's culling modes). The definition's [`LodSettings`] turn it
//! into an **update rate**: the character is evaluated every frame, every
//! 2nd, 4th or 8th. On the frames between two evaluations nothing of its
//! behaviour runs; its shown local pose moves from where it was towards the
//! last evaluated pose in equal steps (`1/rate` a frame), so motion stays
//! smooth at the price of showing each evaluation up to `rate − 1` frames
//! late, and local-to-model and skinning still run every frame (the renderer
//! reads them). Below [`LodSettings::ik_min_significance`] rig IK and the
//! procedural fallback are switched off.
//!
//! **Nothing is lost by skipping.** The time of the skipped frames is not
//! dropped: the next evaluation advances the character by all of it at once,
//! so every notify crossed meanwhile is queued then, once, in order, with its
//! own time; gameplay input given on a skipped frame (a trigger, a tag, a
//! slot) takes effect at that evaluation. A character whose rate changes is
//! evaluated on that frame.
//!
//! **Staggering.** A character with rate `r` is evaluated on the frames where
//! `(frame + phase) % r == 0`, `frame` counting its updates; give the
//! characters of a crowd different phases
//! ([`Character::set_lod_phase`](super::Character::set_lod_phase), or
//! `Crowd::stagger_lod` for their indices) so the skipped characters' work
//! spreads evenly over frames instead of arriving every `r`th frame at once.
//!
//! **Budget.** [`LodBudget`] (Unreal's animation budget allocator) assigns
//! rates to a crowd from their significances so the crowd's estimated cost
//! fits a time budget, the most significant characters first.
//!
//! Everything here is per character and derived from inputs the game gives,
//! so serial and parallel crowds stay bit-identical with LOD on.

use std::time::Duration;

use super::Character;
use crate::pose::Pose;
use crate::pose::blending::blend_into;
use crate::pose::crowd::Crowd;

/// The update rates a character may run at: every frame, every 2nd, 4th, 8th.
pub const LOD_RATES: [u8; 4] = [1, 2, 4, 8];

/// How significance becomes an update rate (part of
/// [`CharacterSettings`](super::CharacterSettings)).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LodSettings {
    /// The least significance for each rate of [`LOD_RATES`] but the last:
    /// at or above `thresholds[0]` every frame, at or above `thresholds[1]`
    /// every 2nd, at or above `thresholds[2]` every 4th, below it every 8th.
    /// Descending, in `0..=1`. Default `[0.5, 0.25, 0.1]`.
    pub thresholds: [f32; 3],
    /// Below this significance rig IK and the procedural fallback do not
    /// run (default 0.25: from the 4th-frame rate on).
    pub ik_min_significance: f32,
    /// Move the shown pose towards each evaluation over the skipped frames
    /// (default on); off, the last evaluated pose is held (cheaper: no
    /// local-to-model or skinning on skipped frames, but motion steps).
    pub interpolate: bool,
}

impl Default for LodSettings {
    fn default() -> Self {
        LodSettings { thresholds: [0.5, 0.25, 0.1], ik_min_significance: 0.25, interpolate: true }
    }
}

impl LodSettings {
    /// The update rate for `significance` (NaN counts as 0).
    #[must_use]
    pub fn rate_for(&self, significance: f32) -> u8 {
        let s = if significance.is_nan() { 0.0 } else { significance };
        let band = self.thresholds.iter().position(|&t| s >= t).unwrap_or(self.thresholds.len());
        LOD_RATES[band]
    }

    /// What is wrong with these settings, if anything.
    pub(crate) fn problem(&self) -> Option<String> {
        let t = self.thresholds;
        let in_range = |x: f32| (0.0..=1.0).contains(&x);
        if !(t.iter().all(|&x| in_range(x)) && t[0] >= t[1] && t[1] >= t[2]) {
            return Some(format!("thresholds {t:?} must be descending and in 0..=1"));
        }
        if !in_range(self.ik_min_significance) {
            return Some(format!("ik_min_significance {} must be in 0..=1", self.ik_min_significance));
        }
        None
    }
}

/// What the character does this frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum LodStep {
    /// Evaluate, advancing by `dt` (this frame's and every skipped frame's time).
    Evaluate { dt: f32 },
    /// Skip: move the shown pose `weight` of the rest of the way to the pose
    /// the last evaluation made (so after `k` frames of a period of `r` it
    /// is `k / r` of the way from where it was then; slerp along one arc
    /// composes, so the steps add up exactly).
    Skip { weight: f32 },
}

/// One character's level-of-detail state.
#[derive(Debug, Clone)]
pub(crate) struct LodState {
    significance: f32,
    /// A rate a [`LodBudget`] assigned, over the significance's.
    assigned: Option<u8>,
    phase: u32,
    frame: u32,
    /// The rate of the last evaluation.
    rate: u8,
    /// Seconds since the last evaluation, not yet evaluated.
    pending: f32,
    /// Frames since the last evaluation (1 on the frame after it).
    since: u8,
    evaluated: bool,
    /// The pose the last evaluation made, which the shown pose moves
    /// towards; allocated the first time a rate above 1 is asked for.
    target: Option<Box<Pose>>,
}

impl Default for LodState {
    fn default() -> Self {
        LodState {
            significance: 1.0,
            assigned: None,
            phase: 0,
            frame: 0,
            rate: 1,
            pending: 0.0,
            since: 0,
            evaluated: true,
            target: None,
        }
    }
}

impl LodState {
    pub(crate) fn set_significance(&mut self, significance: f32) {
        self.significance = if significance.is_nan() { 0.0 } else { significance.clamp(0.0, 1.0) };
    }
    pub(crate) fn significance(&self) -> f32 {
        self.significance
    }
    pub(crate) fn assign_rate(&mut self, rate: Option<u8>) {
        self.assigned = rate.map(|r| LOD_RATES.iter().copied().find(|&x| x >= r).unwrap_or(8));
    }
    pub(crate) fn set_phase(&mut self, phase: u32) {
        self.phase = phase;
    }
    /// The rate in force: the assigned one, else the significance's.
    pub(crate) fn target_rate(&self, settings: &LodSettings) -> u8 {
        self.assigned.unwrap_or_else(|| settings.rate_for(self.significance))
    }
    /// The rate of the last evaluation.
    pub(crate) fn rate(&self) -> u8 {
        self.rate
    }
    /// Whether the last update evaluated the character.
    pub(crate) fn evaluated(&self) -> bool {
        self.evaluated
    }
    /// Whether IK and the procedural fallback run at this significance.
    pub(crate) fn full_detail(&self, settings: &LodSettings) -> bool {
        self.significance >= settings.ik_min_significance
    }

    /// Whether the next [`LodState::step`] evaluates: every frame at rate 1,
    /// the first frame at a new rate, else the frames of its phase.
    pub(crate) fn due(&self, settings: &LodSettings) -> bool {
        let rate = self.target_rate(settings);
        rate == 1 || rate != self.rate || self.frame.wrapping_add(self.phase).is_multiple_of(u32::from(rate))
    }

    /// Decides this frame's step and books `dt`.
    pub(crate) fn step(&mut self, dt: f32, settings: &LodSettings) -> LodStep {
        let rate = self.target_rate(settings);
        let due = self.due(settings);
        self.frame = self.frame.wrapping_add(1);
        self.pending += dt;
        self.evaluated = due;
        if due {
            self.rate = rate;
            self.since = 1;
            let dt = self.pending;
            self.pending = 0.0;
            LodStep::Evaluate { dt }
        } else {
            self.since = self.since.saturating_add(1);
            let left = (i32::from(self.rate) - i32::from(self.since) + 1).max(1);
            LodStep::Skip { weight: 1.0 / left as f32 }
        }
    }

    /// Allocates the pose interpolation moves towards, when a rate above 1
    /// is in force and it is not there yet (a gameplay call, so frames never do).
    pub(crate) fn reserve(&mut self, settings: &LodSettings, like: &Pose) {
        if self.target.is_none() && settings.interpolate && self.target_rate(settings) > 1 {
            self.target = Some(Box::new(like.clone()));
        }
    }

    /// Before an evaluation at a rate above 1: the shown pose is set aside
    /// (swapped with the target's buffer, which the evaluation overwrites;
    /// allocates it if [`LodState::reserve`] did not).
    pub(crate) fn begin(&mut self, local: &mut Pose) {
        let target = self.target.get_or_insert_with(|| Box::new(local.clone()));
        std::mem::swap(&mut **target, local);
    }

    /// After the evaluation: it becomes the target, the set-aside pose is
    /// shown again, moved the first step (`1 / rate`) towards it.
    pub(crate) fn end(&mut self, local: &mut Pose) {
        let Some(target) = &mut self.target else { return };
        std::mem::swap(&mut **target, local);
        blend_into(local, target, 1.0 / f32::from(self.rate));
    }

    /// Prefetching for a crowd: the pose a skipped frame moves towards.
    pub(crate) fn prefetch(&self) {
        if let Some(target) = &self.target {
            target.prefetch(usize::MAX);
        }
    }

    /// A skipped frame: moves the shown pose `weight` of the rest of the way.
    /// `false` when there is nothing to move (no evaluation at a rate above 1 yet).
    pub(crate) fn show(&self, local: &mut Pose, weight: f32) -> bool {
        let Some(target) = &self.target else { return false };
        blend_into(local, target, weight);
        true
    }
}

/// Assigns update rates to a crowd so its estimated cost fits a time budget
/// (Unreal's animation budget allocator): the characters in order of
/// significance, most significant first, each at the most frequent rate that
/// still leaves every later one room at the least frequent rate. The cost of
/// an evaluation is estimated from the frames [`LodBudget::observe`] sees (a
/// skipped frame is taken to cost [`LodBudget::SKIP_COST`] of an
/// evaluation); the assignment itself is a pure function of the
/// significances and the estimate, so it is the same on every thread count.
#[derive(Debug, Clone, Default)]
pub struct LodBudget {
    order: Vec<u32>,
    significances: Vec<f32>,
    rates: Vec<u8>,
    /// Estimated seconds one evaluation costs (0: no estimate yet).
    evaluation: f64,
}

impl LodBudget {
    /// What a skipped frame (interpolation, local-to-model, skinning) is
    /// taken to cost, as a share of an evaluation.
    pub const SKIP_COST: f64 = 0.25;

    /// A budget allocator with room for `characters` (more allocate once).
    #[must_use]
    pub fn with_capacity(characters: usize) -> LodBudget {
        LodBudget {
            order: Vec::with_capacity(characters),
            significances: Vec::with_capacity(characters),
            rates: Vec::with_capacity(characters),
            evaluation: 0.0,
        }
    }

    /// Starts from a known cost of one evaluation (instead of measuring).
    #[must_use]
    pub fn with_evaluation_cost(mut self, cost: Duration) -> LodBudget {
        self.evaluation = cost.as_secs_f64();
        self
    }

    /// The estimated cost of one evaluation.
    #[must_use]
    pub fn evaluation_cost(&self) -> Duration {
        Duration::from_secs_f64(self.evaluation)
    }

    /// Learns from one frame that took `elapsed` while `evaluated` characters
    /// were evaluated and `skipped` were not (a moving average).
    pub fn observe(&mut self, elapsed: Duration, evaluated: usize, skipped: usize) {
        let units = evaluated as f64 + skipped as f64 * Self::SKIP_COST;
        if units <= 0.0 {
            return;
        }
        let sample = elapsed.as_secs_f64() / units;
        self.evaluation = if self.evaluation > 0.0 { 0.8 * self.evaluation + 0.2 * sample } else { sample };
    }

    /// The estimated cost per frame of a character at `rate`, in evaluations.
    fn units(rate: u8) -> f64 {
        let r = f64::from(rate);
        (1.0 + (r - 1.0) * Self::SKIP_COST) / r
    }

    /// Rates for characters of these significances within `budget` per
    /// frame, written to `rates` (same length). Without an estimate yet,
    /// every character gets rate 1.
    pub fn assign(&mut self, significances: &[f32], budget: Duration, rates: &mut [u8]) {
        assert_eq!(significances.len(), rates.len(), "one rate per character");
        if self.evaluation <= 0.0 {
            rates.fill(1);
            return;
        }
        let key = |s: f32| if s.is_nan() { 0.0 } else { s };
        self.order.clear();
        self.order.extend(0..significances.len() as u32);
        // Most significant first; ties by index, so the order is total.
        self.order.sort_unstable_by(|&a, &b| {
            key(significances[b as usize]).total_cmp(&key(significances[a as usize])).then(a.cmp(&b))
        });
        let slowest = Self::units(LOD_RATES[LOD_RATES.len() - 1]);
        let mut left = budget.as_secs_f64() / self.evaluation - slowest * significances.len() as f64;
        for &i in &self.order {
            left += slowest;
            let rate = LOD_RATES.iter().copied().find(|&r| Self::units(r) <= left).unwrap_or(8);
            left -= Self::units(rate);
            rates[i as usize] = rate;
        }
    }
}

impl Crowd<Character> {
    /// Gives each character its index as its level-of-detail phase
    /// ([`Character::set_lod_phase`]), so characters at the same update rate
    /// are evaluated on different frames.
    pub fn stagger_lod(&mut self) {
        for (k, c) in self.iter_mut() {
            c.set_lod_phase(k as u32);
        }
    }

    /// Assigns update rates from the characters' significances so the
    /// crowd's estimated cost fits `per_frame` ([`LodBudget::assign`]); call
    /// it before `update`, and [`LodBudget::observe`] the frame after.
    pub fn assign_lod(&mut self, budget: &mut LodBudget, per_frame: Duration) {
        let mut significances = std::mem::take(&mut budget.significances);
        let mut rates = std::mem::take(&mut budget.rates);
        significances.clear();
        significances.extend(self.members().iter().map(Character::significance));
        rates.clear();
        rates.resize(significances.len(), 1);
        budget.assign(&significances, per_frame, &mut rates);
        for (c, &r) in self.members_mut().iter_mut().zip(&rates) {
            c.set_update_rate(Some(r));
        }
        budget.significances = significances;
        budget.rates = rates;
    }

    /// How many characters the last update evaluated, and how many it skipped.
    #[must_use]
    pub fn lod_counts(&self) -> (usize, usize) {
        let evaluated = self.members().iter().filter(|c| c.evaluated()).count();
        (evaluated, self.len() - evaluated)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn significance_bands_give_rates() {
        let s = LodSettings::default();
        assert_eq!(
            [1.0, 0.5, 0.49, 0.25, 0.2, 0.1, 0.05, 0.0, f32::NAN].map(|x| s.rate_for(x)),
            [1, 1, 2, 2, 4, 4, 8, 8, 8]
        );
        assert!(s.problem().is_none());
        assert!(LodSettings { thresholds: [0.1, 0.5, 0.0], ..s }.problem().is_some());
    }

    #[test]
    fn skipped_time_is_evaluated_at_once_on_the_phase() {
        let settings = LodSettings::default();
        let mut lod = LodState::default();
        lod.set_significance(0.2); // rate 4
        lod.set_phase(1);
        let steps: Vec<LodStep> = (0..9).map(|_| lod.step(0.01, &settings)).collect();
        // Frame 0 changes rate: evaluated. Then (frame + 1) % 4 == 0 at frames 3 and 7.
        let evaluated: Vec<usize> =
            steps.iter().enumerate().filter(|(_, s)| matches!(s, LodStep::Evaluate { .. })).map(|(i, _)| i).collect();
        assert_eq!(evaluated, [0, 3, 7]);
        let LodStep::Evaluate { dt } = steps[3] else { unreachable!() };
        assert!((dt - 0.03).abs() < 1e-6, "frames 1, 2, 3 advance together: {dt}");
        // 1/4 of the way at the evaluation, then 2/4 (a third of the rest), 3/4 (half of the rest).
        assert_eq!(steps[1], LodStep::Skip { weight: 1.0 / 3.0 });
        assert_eq!(steps[2], LodStep::Skip { weight: 0.5 });
        let total: f32 = steps.iter().map(|s| if let LodStep::Evaluate { dt } = s { *dt } else { 0.0 }).sum();
        assert!((total + lod.pending - 0.09).abs() < 1e-6, "no time lost");
    }

    #[test]
    fn budget_serves_the_most_significant_first_and_fits() {
        let mut b = LodBudget::with_capacity(8).with_evaluation_cost(Duration::from_micros(10));
        let sig = [0.1, 0.9, 0.5, 0.3, 0.95, 0.0, 0.7, 0.2];
        let mut rates = [0; 8];
        // Room for about 4 evaluations a frame.
        b.assign(&sig, Duration::from_micros(40), &mut rates);
        let cost: f64 = rates.iter().map(|&r| LodBudget::units(r)).sum::<f64>() * 10.0;
        assert!(cost <= 40.0 + 1e-9, "{rates:?} costs {cost} µs");
        // Rates never get more frequent as significance drops.
        let mut by_sig: Vec<(f32, u8)> = sig.iter().copied().zip(rates).collect();
        by_sig.sort_by(|a, b| b.0.total_cmp(&a.0));
        assert!(by_sig.windows(2).all(|w| w[0].1 <= w[1].1), "{by_sig:?}");
        assert_eq!(rates[4], 1, "the most significant runs every frame");
        // A generous budget: everyone every frame; none: everyone at 8.
        b.assign(&sig, Duration::from_millis(1), &mut rates);
        assert!(rates.iter().all(|&r| r == 1));
        b.assign(&sig, Duration::ZERO, &mut rates);
        assert!(rates.iter().all(|&r| r == 8));
    }

    #[test]
    fn observing_frames_estimates_an_evaluation() {
        let mut b = LodBudget::default();
        let mut rates = [0; 2];
        b.assign(&[1.0, 0.0], Duration::ZERO, &mut rates);
        assert_eq!(rates, [1, 1], "no estimate: full detail");
        b.observe(Duration::from_micros(50), 4, 4); // 4 + 1 units
        assert!((b.evaluation_cost().as_secs_f64() - 10e-6).abs() < 1e-9);
    }
}

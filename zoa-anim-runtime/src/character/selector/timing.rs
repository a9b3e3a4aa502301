//! The selector's timing rule (see the module docs): which requested tag
//! changes are ready, the hold that may defer them, the switch to the row
//! the applied tags resolve to, and why a change still waits.

use zoa_anim_core::resolver::{Resolution, resolve_best_match};
use zoa_anim_core::{DimensionSet, NoMatchPolicy, StateDimension, TransitionTrigger};

use super::{DEFAULT_IDLE_ROW, MAX_SELECTOR_CLIPS, Pending, Playing, SelectorMode, TagSelector};
use crate::character::fade::Fade;

impl TagSelector {
    /// Why the requested change of `dimension` has not taken effect (`None`
    /// when requested and applied tags agree there, or it takes effect on
    /// the next update).
    #[must_use]
    pub fn pending(&self, dimension: StateDimension) -> Option<Pending> {
        if !self.applied.changed_dimensions(&self.desired).contains(dimension) {
            return None;
        }
        let ready = |d: StateDimension| self.ready(d);
        if !ready(dimension) {
            let p = self.table.timing.resolve_policy(dimension);
            return Some(match p.trigger {
                TransitionTrigger::OnEvent => Pending::Event,
                TransitionTrigger::OnInputThreshold => match self.input.gait_band(self.desired.locomotion()) {
                    Some(band) if dimension == StateDimension::Locomotion && self.input.gait_count > 0 => {
                        let t = self.input.thresholds();
                        let lo = if band == 0 { 0.0 } else { t[band - 1] };
                        let hi = t.get(band).copied().unwrap_or(f32::INFINITY);
                        let current = self.input.gaits().get(self.input_band).copied().unwrap_or_default();
                        Pending::Speed { speed: self.input_value, current, needs: (lo, hi) }
                    }
                    _ => Pending::InputCrossing,
                },
                TransitionTrigger::OnTagChange => return None,
            });
        }
        // Ready: held while any dimension switching with it is within its hold.
        let changed = self.applied.changed_dimensions(&self.desired);
        let left = changed
            .iter()
            .filter(|&d| ready(d))
            .map(|d| {
                let hold = f64::from(self.table.timing.resolve_policy(d).min_hold_seconds);
                (hold - (self.time - self.last_switch[d.index()])) as f32
            })
            .fold(0.0f32, f32::max);
        (left > 0.0).then_some(Pending::Hold { seconds_left: left })
    }

    /// Whether the trigger of `d`'s pending change has fired (its hold aside).
    fn ready(&self, d: StateDimension) -> bool {
        match self.table.timing.resolve_policy(d).trigger {
            TransitionTrigger::OnTagChange => true,
            TransitionTrigger::OnInputThreshold if !self.input_given => true,
            TransitionTrigger::OnEvent => self.pending_events.contains(d),
            TransitionTrigger::OnInputThreshold if d == StateDimension::Locomotion && self.input.gait_count > 0 => {
                match self.input.gait_band(self.desired.locomotion()) {
                    Some(band) => self.input_band == band,
                    None => true,
                }
            }
            TransitionTrigger::OnInputThreshold => self.input_crossed,
        }
    }

    pub(super) fn apply_tag_changes(&mut self) {
        let changed = self.applied.changed_dimensions(&self.desired);
        let mut batch = DimensionSet::EMPTY;
        let mut uses_input = false;
        for d in changed.iter() {
            let p = self.table.timing.resolve_policy(d);
            if self.ready(d) {
                batch = batch.with(d);
                uses_input |= p.trigger == TransitionTrigger::OnInputThreshold;
            }
        }
        if !batch.is_empty() {
            let held = batch.iter().any(|d| {
                let hold = f64::from(self.table.timing.resolve_policy(d).min_hold_seconds);
                self.time - self.last_switch[d.index()] < hold
            });
            if !held {
                let mut fade = 0.0f32;
                for d in batch.iter() {
                    self.applied = self.applied.with_mask(d, self.desired.mask(d));
                    self.last_switch[d.index()] = self.time;
                    fade = fade.max(self.table.timing.resolve_policy(d).crossfade_seconds);
                }
                if uses_input {
                    self.input_crossed = false;
                }
                self.switch(fade, false);
            }
        }
        // Latches only wait for changes that are still pending.
        let pending = self.applied.changed_dimensions(&self.desired);
        self.pending_events = DimensionSet::from_bits_truncate(self.pending_events.bits() & pending.bits());
        let input_pending =
            pending.iter().any(|d| self.table.timing.resolve_policy(d).trigger == TransitionTrigger::OnInputThreshold);
        if !input_pending {
            self.input_crossed = false;
        }
    }

    /// Re-resolves against the applied tags and blends there over `fade` seconds.
    pub(super) fn switch(&mut self, fade: f32, hand_back: bool) {
        let fade = if fade.is_finite() { fade.max(0.0) } else { 0.0 };
        let resolved = if hand_back {
            resolve_best_match(&self.table.looping_rows, self.applied)
                .map(|r| Resolution { row: self.table.looping_map[r.row] as usize, ..r })
        } else {
            resolve_best_match(&self.table.rows, self.applied)
        };
        self.resolution = resolved;
        let target = match resolved {
            Some(r) => {
                let row = &self.table.rows[r.row];
                Some((r.row as u32, self.table.row_clips[r.row], row.speed_multiplier, !row.one_shot, row.one_shot))
            }
            None => match (&self.table.no_match, self.table.default_idle) {
                (NoMatchPolicy::DefaultIdle(_), Some(c)) => Some((DEFAULT_IDLE_ROW, c, 1.0, true, false)),
                (NoMatchPolicy::Procedural, _) => {
                    self.start_fade(fade);
                    self.procedural_fade = self.procedural_weight;
                    self.mode = SelectorMode::Procedural;
                    if fade <= 0.0 {
                        self.playing.clear();
                        self.procedural_weight = 1.0;
                    }
                    return;
                }
                _ => {
                    self.mode = SelectorMode::Hold;
                    return;
                }
            },
        };
        let Some((row, clip, speed, looping, one_shot)) = target else { return };
        if let Some(cur) = self.playing.first()
            && cur.row == row
            && !hand_back
            && self.mode != SelectorMode::Procedural
        {
            // Same row: keep playing (a finished one-shot re-entered by a new switch restarts).
            if !(cur.one_shot && cur.time >= f64::from(self.table.clips.get(cur.clip).duration)) {
                self.mode = if row == DEFAULT_IDLE_ROW { SelectorMode::DefaultIdle } else { SelectorMode::Row(row) };
                return;
            }
        }
        self.start_fade(fade);
        self.mode = if row == DEFAULT_IDLE_ROW { SelectorMode::DefaultIdle } else { SelectorMode::Row(row) };
        self.procedural_fade = self.procedural_weight;
        if fade <= 0.0 {
            self.procedural_weight = 0.0;
        }
        if one_shot {
            self.last_fade = fade;
        }
        let entry = Playing {
            row,
            clip,
            time: 0.0,
            prev_time: 0.0,
            speed,
            looping,
            one_shot,
            weight: if fade > 0.0 { 0.0 } else { 1.0 },
            weight0: 0.0,
            fresh: true,
        };
        if fade <= 0.0 {
            self.playing.clear();
            self.fade = None;
        } else if self.playing.len() >= MAX_SELECTOR_CLIPS {
            let (k, _) = self
                .playing
                .iter()
                .enumerate()
                .min_by(|a, b| a.1.weight.total_cmp(&b.1.weight))
                .expect("full, so not empty");
            self.playing.remove(k);
            let sum: f32 = self.playing.iter().map(|p| p.weight0).sum();
            for p in self.playing.iter_mut() {
                p.weight0 = if sum > 0.0 { p.weight0 / sum } else { 0.0 };
            }
        }
        self.playing.insert(0, entry);
    }

    /// Freezes current weights as the fade's start and starts a fade of `fade` seconds.
    fn start_fade(&mut self, fade: f32) {
        for p in self.playing.iter_mut() {
            p.weight0 = p.weight;
        }
        self.fade = Some(Fade::new(fade));
    }
}

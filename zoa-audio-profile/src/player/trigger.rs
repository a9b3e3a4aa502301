//! Triggering and stopping: admission of one trigger through cooldown,
//! prefix throttles, the entry, bus and pool caps (the module diagram of
//! [`super`]), then the commit that starts a voice; and the fades that stop
//! or steal voices.
//!
//! A trigger first decides everything it can refuse on without touching a
//! voice (choosing the victims only reads the pool), so a refused trigger leaves
//! the pool as it was; only then are victims released and a slot claimed.

use zoa_anim_core::{CapPolicy, SoundEventId, StateTagSet};

use super::{CapKind, EmitterId, NONE, Player, ThrottleLimit, TriggerOutcome, Voice, VoiceHandle};
use crate::resolver::{jittered_pitch, jittered_volume};

/// What admission decided for one trigger, carried to the commit.
struct Admitted {
    entry: usize,
    /// Index of the cooldown stamp this trigger writes when it starts.
    stamp: usize,
    now: f64,
    /// Bit `t` set: the voice counts towards prefix throttle `t`.
    throttles: u64,
    emitter: Option<EmitterId>,
    emitter_slot: Option<usize>,
}

/// Voices a trigger will fade out or cut to make room, and a free slot.
#[derive(Clone, Copy)]
struct Victims {
    entry: Option<usize>,
    bus: Option<usize>,
    pool: Option<usize>,
    free: Option<usize>,
}

impl Player {
    /// Resolves `event` for the emitter's `state` and `surface` and starts a
    /// voice, subject to cooldown and caps (see the module diagram).
    /// `emitter = None` plays unpositioned (spatial entries sit on the
    /// listener). Allocation-free.
    pub fn trigger(
        &mut self,
        emitter: Option<EmitterId>,
        event: SoundEventId,
        state: StateTagSet,
        surface: Option<&str>,
    ) -> TriggerOutcome {
        self.stats.triggers += 1;
        let emitter_slot = match emitter {
            None => None,
            Some(id) => match self.emitter_slot(id) {
                Some(s) => Some(s),
                None => {
                    self.stats.no_match += 1;
                    return TriggerOutcome::UnknownEmitter;
                }
            },
        };
        let Some(m) = self.table.resolve(event, state, surface, self.config.resolve) else {
            self.stats.no_match += 1;
            return TriggerOutcome::NoMatch;
        };
        let e = m.entry;
        let now = self.now();
        let stamp = match self.cooldown_stamp(e, emitter_slot, now) {
            Ok(stamp) => stamp,
            Err(refused) => return refused,
        };
        let throttles = match self.admit_throttles(event, e) {
            Ok(mask) => mask,
            Err(refused) => return refused,
        };
        let victims = match self.choose_victims(e) {
            Ok(victims) => victims,
            Err(refused) => return refused,
        };
        let (slot, stolen) = match self.claim_slot(e, victims) {
            Ok(claimed) => claimed,
            Err(refused) => return refused,
        };
        self.start_voice(slot, stolen, &Admitted { entry: e, stamp, now, throttles, emitter, emitter_slot })
    }

    /// The cooldown stamp of entry `e` for this emitter (or the entry's
    /// global column); refuses while the stamp is inside the cooldown window.
    fn cooldown_stamp(&mut self, e: usize, emitter_slot: Option<usize>, now: f64) -> Result<usize, TriggerOutcome> {
        let entry = self.table.entry(e);
        let columns = self.config.max_emitters + 2;
        let column = if entry.cooldown_global { columns - 1 } else { emitter_slot.unwrap_or(self.config.max_emitters) };
        let stamp = e * columns + column;
        if entry.cooldown > 0.0 && now - self.last_trigger[stamp] < entry.cooldown as f64 {
            self.stats.dropped_cooldown += 1;
            return Err(TriggerOutcome::DroppedCooldown { entry: e });
        }
        Ok(stamp)
    }

    /// The prefix throttles covering `event` (as a bit mask); refuses at the
    /// first one whose cooldown, rate or voice limit is reached.
    fn admit_throttles(&mut self, event: SoundEventId, e: usize) -> Result<u64, TriggerOutcome> {
        let mut mask = 0u64;
        for t in 0..self.throttles.len() {
            if !self.throttles[t].covers(event) {
                continue;
            }
            mask |= 1 << t;
            let live = self.voices.iter().filter(|v| v.is_live() && v.throttles & (1 << t) != 0).count();
            if let Some(limit) = self.throttles[t].refuses(self.frame as i64, live) {
                let s = &mut self.throttle_stats[t];
                match limit {
                    ThrottleLimit::Cooldown => s.dropped_cooldown += 1,
                    ThrottleLimit::Rate => s.dropped_rate += 1,
                    ThrottleLimit::Voices => s.dropped_voices += 1,
                }
                self.stats.throttled += 1;
                return Err(TriggerOutcome::Throttled { entry: e, throttle: t, limit });
            }
        }
        Ok(mask)
    }

    /// The voices entry `e` would displace under its entry cap, its bus cap
    /// and the pool, or the cap that refuses it. Changes no voice.
    fn choose_victims(&mut self, e: usize) -> Result<Victims, TriggerOutcome> {
        let entry = self.table.entry(e);
        let info = self.entries[e];

        // Entry polyphony cap.
        let mut entry_victim = None;
        if entry.polyphony_cap > 0 {
            let live = self.voices.iter().filter(|v| v.is_live() && v.entry == e as u32).count();
            if live >= entry.polyphony_cap as usize {
                entry_victim = match entry.cap_policy {
                    CapPolicy::Reject => None,
                    CapPolicy::StealOldest => self.pick_victim(|v| v.entry == e as u32, |v, _| v.serial as f64),
                    CapPolicy::StealQuietest => self.pick_victim(|v| v.entry == e as u32, |v, p| p.level_of(v) as f64),
                };
                if entry_victim.is_none() {
                    self.stats.rejected += 1;
                    return Err(TriggerOutcome::Rejected { entry: e, cap: CapKind::Entry });
                }
            }
        }

        // Bus cap, by priority.
        let mut bus_victim = None;
        let bus_cap = self.config.buses[info.bus as usize].cap;
        if bus_cap > 0 {
            let mut live = self.voices.iter().filter(|v| v.is_live() && v.bus == info.bus).count();
            if entry_victim.is_some() {
                live -= 1; // the entry victim shares the bus
            }
            if live >= bus_cap as usize {
                let victim = self.lowest_priority(|i, v| v.bus == info.bus && Some(i) != entry_victim);
                match victim {
                    Some(i) if self.voices[i].priority <= entry.priority => bus_victim = Some(i),
                    _ => {
                        self.stats.rejected += 1;
                        return Err(TriggerOutcome::Rejected { entry: e, cap: CapKind::Bus });
                    }
                }
            }
        }

        // Pool: a free slot, else cut a releasing voice, else the lowest-priority live one.
        let free = self.voices.iter().position(|v| !v.active);
        let mut pool_victim = None;
        if free.is_none() && entry_victim.is_none() && bus_victim.is_none() {
            let releasing = self.voices.iter().any(|v| v.active && v.release_total > 0);
            if !releasing {
                match self.lowest_priority(|_, _| true) {
                    Some(i) if self.voices[i].priority <= entry.priority => pool_victim = Some(i),
                    _ => {
                        self.stats.rejected += 1;
                        return Err(TriggerOutcome::Rejected { entry: e, cap: CapKind::Pool });
                    }
                }
            }
        }
        Ok(Victims { entry: entry_victim, bus: bus_victim, pool: pool_victim, free })
    }

    /// Fades out the entry and bus victims and claims a slot: the free one,
    /// else the pool victim or the releasing voice nearest its end, cut.
    /// Returns the slot and how many voices were stolen.
    fn claim_slot(&mut self, e: usize, victims: Victims) -> Result<(usize, u8), TriggerOutcome> {
        let steal_frames = self.steal_frames();
        let mut stolen = 0u8;
        for v in [victims.entry, victims.bus].into_iter().flatten() {
            self.release(v, steal_frames);
            stolen += 1;
        }
        let mut slot = victims.free;
        if slot.is_none() {
            let cut = victims.pool.or_else(|| {
                (0..self.voices.len())
                    .filter(|&i| self.voices[i].active && self.voices[i].release_total > 0)
                    .min_by_key(|&i| (self.voices[i].release_left, self.voices[i].serial))
            });
            if let Some(i) = cut {
                if victims.pool.is_some() {
                    stolen += 1;
                }
                self.end_voice(i);
                slot = Some(i);
            }
        }
        let Some(slot) = slot else {
            // Unreachable by construction (a pool of >= 1 always yields a slot above).
            self.stats.rejected += 1;
            return Err(TriggerOutcome::Rejected { entry: e, cap: CapKind::Pool });
        };
        self.stats.stolen += stolen as u64;
        Ok((slot, stolen))
    }

    /// Picks the variant, volume and pitch and starts the voice in `slot`.
    fn start_voice(&mut self, slot: usize, stolen: u8, a: &Admitted) -> TriggerOutcome {
        let e = a.entry;
        let entry = self.table.entry(e);
        let info = self.entries[e];
        let r_variant = self.rng.next_f32();
        let r_volume = self.rng.next_f32();
        let r_pitch = self.rng.next_f32();
        let Ok(variant) = self.histories[e].pick(&entry.variants, r_variant, entry.avoid_repeat) else {
            self.stats.no_match += 1;
            return TriggerOutcome::NoMatch;
        };
        let clip_index = self.variant_clips[info.clip_base as usize + variant];
        let clip_rate = self.clips.get(clip_index as usize).map_or(self.config.sample_rate, |c| c.sample_rate());
        let step = clip_rate as f64 / self.config.sample_rate as f64 * jittered_pitch(entry, r_pitch) as f64;

        self.serial += 1;
        self.last_trigger[a.stamp] = a.now;
        let v = &mut self.voices[slot];
        let generation = v.generation.wrapping_add(1);
        *v = Voice {
            active: true,
            generation,
            entry: e as u32,
            variant: variant as u16,
            clip: clip_index,
            emitter: a.emitter_slot.map_or(NONE, |s| s as u32),
            emitter_generation: a.emitter.map_or(0, |id| id.generation),
            bus: info.bus,
            serial: self.serial,
            pos: 0.0,
            step,
            gain: jittered_volume(entry, r_volume),
            played: 0,
            fade_in: if entry.looping { info.fade_frames } else { 0 },
            release_total: 0,
            release_left: 0,
            last: [0.0; 2],
            fresh: true,
            priority: entry.priority,
            looping: entry.looping,
            spatial: entry.spatial,
            throttles: a.throttles,
        };
        self.stats.started += 1;
        self.record_throttles(a.throttles, self.frame as i64);
        let occupied = self.voices.iter().filter(|v| v.active).count() as u32;
        self.stats.peak_voices = self.stats.peak_voices.max(occupied);
        TriggerOutcome::Started { voice: VoiceHandle { slot: slot as u32, generation }, entry: e, variant, stolen }
    }

    fn record_throttles(&mut self, mask: u64, now: i64) {
        for t in 0..self.throttles.len() {
            if mask & (1 << t) == 0 {
                continue;
            }
            self.throttles[t].record(now);
            let live = self.voices.iter().filter(|v| v.is_live() && v.throttles & (1 << t) != 0).count() as u32;
            let s = &mut self.throttle_stats[t];
            s.started += 1;
            s.peak_voices = s.peak_voices.max(live);
        }
    }

    /// Live voice minimising `key` among those `filter` admits (ties: lowest slot).
    fn pick_victim(&self, filter: impl Fn(&Voice) -> bool, key: impl Fn(&Voice, &Player) -> f64) -> Option<usize> {
        let mut best: Option<(usize, f64, u64)> = None;
        for (i, v) in self.voices.iter().enumerate() {
            if !v.is_live() || !filter(v) {
                continue;
            }
            let k = key(v, self);
            if best.is_none_or(|(_, bk, bs)| k < bk || (k == bk && v.serial < bs)) {
                best = Some((i, k, v.serial));
            }
        }
        best.map(|(i, _, _)| i)
    }

    /// Live voice with the lowest priority, oldest among equals.
    fn lowest_priority(&self, filter: impl Fn(usize, &Voice) -> bool) -> Option<usize> {
        let mut best: Option<(usize, i32, u64)> = None;
        for (i, v) in self.voices.iter().enumerate() {
            if !v.is_live() || !filter(i, v) {
                continue;
            }
            if best.is_none_or(|(_, p, s)| v.priority < p || (v.priority == p && v.serial < s)) {
                best = Some((i, v.priority, v.serial));
            }
        }
        best.map(|(i, _, _)| i)
    }

    fn steal_frames(&self) -> u32 {
        ((self.config.steal_fade as f64 * self.config.sample_rate as f64).round() as u32).max(1)
    }

    fn release(&mut self, slot: usize, frames: u32) {
        let v = &mut self.voices[slot];
        if !v.active {
            return;
        }
        let frames = frames.max(1);
        if v.release_total > 0 {
            // Already fading: only ever shorten, keeping the current gain continuous.
            if v.release_left > frames {
                let env = v.release_left as f32 / v.release_total as f32;
                v.release_total = ((frames as f32 / env.max(1e-6)).round() as u32).max(frames);
                v.release_left = frames;
            }
            return;
        }
        v.release_total = frames;
        v.release_left = frames;
    }

    pub(super) fn end_voice(&mut self, slot: usize) {
        let v = &mut self.voices[slot];
        if v.active {
            v.active = false;
            self.stats.ended += 1;
        }
    }

    fn stop_frames(&self, v: &Voice) -> u32 {
        let fade = self.entries[v.entry as usize].fade_frames;
        if v.looping && fade > 0 { fade } else { self.steal_frames() }
    }

    pub(super) fn stop_where(&mut self, pred: impl Fn(&Voice) -> bool) -> usize {
        let mut n = 0;
        for i in 0..self.voices.len() {
            let v = self.voices[i];
            if v.active && v.release_total == 0 && pred(&v) {
                let frames = self.stop_frames(&v);
                self.release(i, frames);
                n += 1;
            }
        }
        n
    }

    /// Stops a voice: loops fade out over their fade time, one-shots over the
    /// steal fade. False for a stale handle or a voice already fading.
    pub fn stop(&mut self, voice: VoiceHandle) -> bool {
        let slot = voice.slot as usize;
        match self.voices.get(slot) {
            Some(v) if v.active && v.generation == voice.generation && v.release_total == 0 => {
                let frames = self.stop_frames(&{ *v });
                self.release(slot, frames);
                true
            }
            _ => false,
        }
    }

    /// Stops the voices of `emitter` (or of unpositioned triggers for `None`)
    /// whose entry's event lies within `event` (`weapon` stops `weapon.fire`
    /// loops too). Returns how many were stopped.
    pub fn stop_event(&mut self, emitter: Option<EmitterId>, event: SoundEventId) -> usize {
        let slot = match emitter {
            None => NONE,
            Some(id) => match self.emitter_slot(id) {
                Some(s) => s as u32,
                None => return 0,
            },
        };
        let mut n = 0;
        for i in 0..self.voices.len() {
            let v = self.voices[i];
            if v.active
                && v.release_total == 0
                && v.emitter == slot
                && self.table.entry(v.entry as usize).event.is_within(&event)
            {
                let frames = self.stop_frames(&v);
                self.release(i, frames);
                n += 1;
            }
        }
        n
    }

    /// Stops every voice.
    pub fn stop_all(&mut self) -> usize {
        self.stop_where(|_| true)
    }
}

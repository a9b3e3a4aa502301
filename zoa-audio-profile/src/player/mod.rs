//! The voice player: resolved entries become voices on named buses, mixed
//! into one interleaved stereo output that the caller pulls.
//!
//! # Terminology
//! - **voice** — one playing instance of an entry's variant, in a slot of a
//!   fixed-capacity pool ([`PlayerConfig::max_voices`]).
//! - **live** voice — playing and not fading out; **releasing** — fading out
//!   after a stop or a steal, still occupying its slot until the fade ends.
//! - **emitter** — a positioned thing that triggers sounds (a character's
//!   feet, a gun); fixed-capacity pool ([`PlayerConfig::max_emitters`]).
//! - **bus** — a named group of voices with a volume, a mute and a cap.
//!
//! ```text
//!  trigger(emitter, event, state, surface)
//!     │ resolve ─ no entry ──────────────────────────────▶ NoMatch
//!     │ cooldown window (per emitter or global) ─ inside ▶ DroppedCooldown
//!     │ prefix throttles (cooldown, rate, voices) ─ full ▶ Throttled
//!     │ entry polyphony cap ─ full ─ Reject ─────────────▶ RejectedCap(Entry)
//!     │                          └ StealOldest/Quietest: victim fades out
//!     │ bus cap ─ full ─ lowest-priority victim outranks ▶ RejectedCap(Bus)
//!     │                └ else victim fades out
//!     │ pool ─ no free slot ─ cut a releasing voice, else the
//!     │        lowest-priority live one, unless it outranks ▶ RejectedCap(Pool)
//!     ▼
//!  voice ──▶ envelope (fade-in, release) ──▶ distance gain × pan ──▶ bus ──▶ master ──▶ out
//! ```
//!
//! # Determinism and bounds
//! The clock is the number of frames rendered, so a script of triggers
//! interleaved with `render` calls produces the same samples every run.
//! Randomness (variant, volume, pitch) comes from a seeded SplitMix64.
//! Every table (voices, emitters, cooldown stamps, avoid-repeat histories) is
//! sized in [`Player::new`]; `trigger`, `stop` and `render` never allocate, so
//! no trigger rate can grow memory: beyond the caps, triggers are counted and
//! dropped.
//!
//! # Gain
//! Per voice: `volume × jitter × envelope × distance gain × pan × bus volume ×
//! master`. Gain changes caused by moving emitters, the listener or bus
//! volumes are ramped linearly across each 64-frame block, so they never click.
//! Non-spatial mono voices play at gain 1 on both channels; non-spatial
//! stereo voices keep their channels; spatial voices are downmixed to mono and
//! panned with the equal-power law of [`crate::curves`].

use zoa_anim_core::AudioBusId;
use zoa_anim_core::glam::Vec3;

use crate::AudioError;
use crate::clips::ClipBank;
use crate::curves::Listener;
use crate::resolver::{ResolveOptions, SoundTable, VariantHistory};

mod mix;
mod throttle;
mod trigger;

use throttle::ThrottleState;
pub use throttle::{ThrottleLimit, ThrottleStats};

/// Frames per gain-ramp block of [`Player::render`].
pub const BLOCK_FRAMES: usize = 64;

const NONE: u32 = u32::MAX;

/// One mixer bus.
#[derive(Debug, Clone, PartialEq)]
pub struct BusConfig {
    /// Bus id (entries name it in `bus`).
    pub id: AudioBusId,
    /// Linear gain, `>= 0` (default 1).
    pub volume: f32,
    /// Silences the bus; its voices keep advancing (default false).
    pub muted: bool,
    /// At most this many live voices on the bus (0 = unlimited, the default).
    /// When full, the lowest-priority live voice (oldest among equals) is
    /// stolen with the short fade, unless its priority is higher than the new
    /// voice's, in which case the new voice is rejected.
    pub cap: u32,
}

impl BusConfig {
    /// Volume 1, not muted, no cap.
    #[must_use]
    pub fn new(id: AudioBusId) -> Self {
        BusConfig { id, volume: 1.0, muted: false, cap: 0 }
    }
}

/// Most cooldown cells a player may hold (entries × (emitters + 2); 8 bytes
/// each, so 64 MiB): a profile with 10k entries fits about 800 emitters.
/// [`Player::new`] refuses larger set-ups before allocating.
pub const MAX_COOLDOWN_CELLS: usize = 8 << 20;

/// Settings fixed when the player is built.
#[derive(Debug, Clone, PartialEq)]
pub struct PlayerConfig {
    /// Output frames per second (default 48 000).
    pub sample_rate: u32,
    /// Voice pool size, including releasing voices (default 64, `>= 1`).
    pub max_voices: usize,
    /// Emitter pool size (default 64).
    pub max_emitters: usize,
    /// Buses; buses named by entries but missing here are added with
    /// [`BusConfig::new`] defaults.
    pub buses: Vec<BusConfig>,
    /// Output gain, `>= 0` (default 1). The mix is not limited: keep headroom.
    pub master_volume: f32,
    /// Fade used when a voice is stolen or a one-shot is stopped, seconds
    /// (default 0.01, `> 0`).
    pub steal_fade: f32,
    /// Distance inside which spatial voices play at full gain, metres (default 1).
    pub reference_distance: f32,
    /// Seed of the variant/volume/pitch random stream (default 0x5EED).
    pub seed: u64,
    /// Resolution switches (default: hierarchical id fallback on).
    pub resolve: ResolveOptions,
}

impl Default for PlayerConfig {
    fn default() -> Self {
        PlayerConfig {
            sample_rate: 48_000,
            max_voices: 64,
            max_emitters: 64,
            buses: Vec::new(),
            master_volume: 1.0,
            steal_fade: 0.01,
            reference_distance: 1.0,
            seed: 0x5EED,
            resolve: ResolveOptions::default(),
        }
    }
}

/// Handle of an emitter; stale after [`Player::remove_emitter`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct EmitterId {
    slot: u32,
    generation: u32,
}

/// Handle of a voice; stale once the voice ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct VoiceHandle {
    slot: u32,
    generation: u32,
}

/// Which limit refused a voice.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CapKind {
    /// The entry's polyphony cap with [`CapPolicy::Reject`](zoa_anim_core::CapPolicy::Reject).
    Entry,
    /// The bus cap, held by voices of higher priority.
    Bus,
    /// The voice pool, held by voices of higher priority.
    Pool,
}

/// What a trigger did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TriggerOutcome {
    /// A voice started.
    Started {
        /// The new voice.
        voice: VoiceHandle,
        /// Entry index in the flattened table.
        entry: usize,
        /// Variant index within the entry.
        variant: usize,
        /// Voices stolen to make room (0 ..= 3).
        stolen: u8,
    },
    /// Inside the entry's cooldown window; dropped silently.
    DroppedCooldown {
        /// Entry index.
        entry: usize,
    },
    /// A prefix throttle of the profile refused the start (see [`throttle`]).
    Throttled {
        /// Entry index the event resolved to.
        entry: usize,
        /// Index of the throttle in [`SoundTable::throttles`].
        throttle: usize,
        /// Which of its limits.
        limit: ThrottleLimit,
    },
    /// A cap refused the voice.
    Rejected {
        /// Entry index.
        entry: usize,
        /// Which cap.
        cap: CapKind,
    },
    /// No entry answers the event in this state and surface.
    NoMatch,
    /// The emitter handle is stale.
    UnknownEmitter,
}

impl TriggerOutcome {
    /// Stable snake-case name: `started`, `dropped_cooldown`,
    /// `throttled_cooldown`, `throttled_rate`, `throttled_voices`,
    /// `rejected_entry_cap`, `rejected_bus_cap`, `rejected_voice_pool`,
    /// `no_match` or `unknown_emitter` (the `outcome` of the tools' JSON).
    #[must_use]
    pub const fn name(&self) -> &'static str {
        match self {
            TriggerOutcome::Started { .. } => "started",
            TriggerOutcome::DroppedCooldown { .. } => "dropped_cooldown",
            TriggerOutcome::Throttled { limit: ThrottleLimit::Cooldown, .. } => "throttled_cooldown",
            TriggerOutcome::Throttled { limit: ThrottleLimit::Rate, .. } => "throttled_rate",
            TriggerOutcome::Throttled { limit: ThrottleLimit::Voices, .. } => "throttled_voices",
            TriggerOutcome::Rejected { cap: CapKind::Entry, .. } => "rejected_entry_cap",
            TriggerOutcome::Rejected { cap: CapKind::Bus, .. } => "rejected_bus_cap",
            TriggerOutcome::Rejected { cap: CapKind::Pool, .. } => "rejected_voice_pool",
            TriggerOutcome::NoMatch => "no_match",
            TriggerOutcome::UnknownEmitter => "unknown_emitter",
        }
    }

    /// The entry the event resolved to (`None` for no match or a stale emitter).
    #[must_use]
    pub const fn entry(&self) -> Option<usize> {
        match *self {
            TriggerOutcome::Started { entry, .. }
            | TriggerOutcome::DroppedCooldown { entry }
            | TriggerOutcome::Throttled { entry, .. }
            | TriggerOutcome::Rejected { entry, .. } => Some(entry),
            TriggerOutcome::NoMatch | TriggerOutcome::UnknownEmitter => None,
        }
    }

    /// The variant that started (`None` unless a voice started).
    #[must_use]
    pub const fn variant(&self) -> Option<usize> {
        match *self {
            TriggerOutcome::Started { variant, .. } => Some(variant),
            _ => None,
        }
    }
}

/// Running counters; never reset except by [`Player::reset_stats`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PlayerStats {
    /// Trigger calls.
    pub triggers: u64,
    /// Voices started.
    pub started: u64,
    /// Triggers dropped inside a cooldown window.
    pub dropped_cooldown: u64,
    /// Triggers dropped by a prefix throttle.
    pub throttled: u64,
    /// Triggers refused by a cap.
    pub rejected: u64,
    /// Voices stolen (faded or cut) to make room.
    pub stolen: u64,
    /// Triggers nothing answered (or with a stale emitter).
    pub no_match: u64,
    /// Voices that ended (clip end, fade end, or cut).
    pub ended: u64,
    /// Most voices occupying the pool at once.
    pub peak_voices: u32,
}

/// A read-only view of one voice, for tests and tools.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VoiceInfo {
    /// Handle.
    pub handle: VoiceHandle,
    /// Entry index.
    pub entry: usize,
    /// Variant index.
    pub variant: usize,
    /// Emitter, if any.
    pub emitter: Option<EmitterId>,
    /// Fading out.
    pub releasing: bool,
    /// The voice's own gain, fixed when it started: the entry's volume
    /// times its volume jitter draw (linear).
    pub gain: f32,
    /// Current gain before panning and master (volume × envelope × distance × bus).
    pub level: f32,
    /// Frames rendered since the voice started.
    pub played_frames: u64,
}

#[derive(Debug, Clone, Copy)]
struct Voice {
    active: bool,
    generation: u32,
    entry: u32,
    variant: u16,
    clip: u32,
    emitter: u32,
    emitter_generation: u32,
    bus: u16,
    serial: u64,
    pos: f64,
    step: f64,
    gain: f32,
    played: u64,
    fade_in: u32,
    release_total: u32,
    release_left: u32,
    last: [f32; 2],
    fresh: bool,
    priority: i32,
    looping: bool,
    spatial: bool,
    /// Bit `t` set: counts towards throttle `t`.
    throttles: u64,
}

impl Voice {
    const EMPTY: Voice = Voice {
        active: false,
        generation: 0,
        entry: 0,
        variant: 0,
        clip: 0,
        emitter: NONE,
        emitter_generation: 0,
        bus: 0,
        serial: 0,
        pos: 0.0,
        step: 1.0,
        gain: 0.0,
        played: 0,
        fade_in: 0,
        release_total: 0,
        release_left: 0,
        last: [0.0; 2],
        fresh: true,
        priority: 0,
        looping: false,
        spatial: false,
        throttles: 0,
    };

    fn is_live(&self) -> bool {
        self.active && self.release_total == 0
    }

    fn envelope(&self) -> f32 {
        let mut e = if self.fade_in > 0 && self.played < self.fade_in as u64 {
            self.played as f32 / self.fade_in as f32
        } else {
            1.0
        };
        if self.release_total > 0 {
            e *= self.release_left as f32 / self.release_total as f32;
        }
        e
    }
}

#[derive(Debug, Clone, Copy)]
struct EmitterSlot {
    alive: bool,
    generation: u32,
    position: Vec3,
}

#[derive(Debug, Clone, Copy)]
struct EntryInfo {
    bus: u16,
    clip_base: u32,
    fade_frames: u32,
}

fn check_position(position: Vec3) -> Result<(), AudioError> {
    if position.is_finite() {
        Ok(())
    } else {
        Err(AudioError::NonFinite { what: "emitter position", value: format!("{position}") })
    }
}

/// SplitMix64 → `[0, 1)`.
#[derive(Debug, Clone)]
struct Rng(u64);

impl Rng {
    fn next_f32(&mut self) -> f32 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        (z >> 40) as f32 / (1u64 << 24) as f32
    }
}

/// The offline-first voice player (see the module docs).
#[derive(Debug)]
pub struct Player {
    table: SoundTable,
    clips: ClipBank,
    config: PlayerConfig,
    entries: Vec<EntryInfo>,
    variant_clips: Vec<u32>,
    histories: Vec<VariantHistory>,
    voices: Vec<Voice>,
    emitters: Vec<EmitterSlot>,
    /// Time of the last accepted trigger per (entry, column), seconds;
    /// columns: one per emitter slot, then "no emitter", then "global".
    last_trigger: Vec<f64>,
    listener: Listener,
    frame: u64,
    serial: u64,
    rng: Rng,
    stats: PlayerStats,
    throttles: Vec<ThrottleState>,
    throttle_stats: Vec<ThrottleStats>,
}

impl Player {
    /// Builds a player for `table`, taking decoded `clips` for every variant.
    /// All memory the player will ever use is allocated here.
    ///
    /// # Errors
    /// [`AudioError::InvalidConfig`] for a zero sample rate or voice pool, or
    /// non-finite gains; [`AudioError::MissingClips`] listing every clip the
    /// table names that `clips` lacks.
    pub fn new(table: SoundTable, clips: ClipBank, mut config: PlayerConfig) -> Result<Self, AudioError> {
        let columns = check_config(&config, table.len())?;
        let (entries, variant_clips) = index_entries(&table, &clips, &mut config)?;
        Ok(Player {
            histories: vec![VariantHistory::new(); table.len()],
            last_trigger: vec![f64::NEG_INFINITY; table.len() * columns],
            voices: vec![Voice::EMPTY; config.max_voices],
            emitters: vec![EmitterSlot { alive: false, generation: 0, position: Vec3::ZERO }; config.max_emitters],
            rng: Rng(config.seed),
            throttles: table.throttles().iter().map(|t| ThrottleState::new(t.clone(), config.sample_rate)).collect(),
            throttle_stats: table.throttles().iter().map(|t| ThrottleStats::new(t.prefix)).collect(),
            table,
            clips,
            entries,
            variant_clips,
            config,
            listener: Listener::default(),
            frame: 0,
            serial: 0,
            stats: PlayerStats::default(),
        })
    }

    /// The flattened table the player resolves against.
    #[must_use]
    pub fn table(&self) -> &SoundTable {
        &self.table
    }

    /// The configuration, including buses added for entries.
    #[must_use]
    pub fn config(&self) -> &PlayerConfig {
        &self.config
    }

    /// Seconds rendered so far (the player's clock).
    #[must_use]
    pub fn now(&self) -> f64 {
        self.frame as f64 / self.config.sample_rate as f64
    }

    /// Frames rendered so far.
    #[must_use]
    pub fn frames_rendered(&self) -> u64 {
        self.frame
    }

    /// Counters since construction or the last [`Player::reset_stats`].
    #[must_use]
    pub fn stats(&self) -> PlayerStats {
        self.stats
    }

    /// Zeroes the counters (the throttles' too).
    pub fn reset_stats(&mut self) {
        self.stats = PlayerStats::default();
        for t in &mut self.throttle_stats {
            *t = ThrottleStats::new(t.prefix);
        }
    }

    /// Counters per prefix throttle, in [`SoundTable::throttles`] order.
    #[must_use]
    pub fn throttle_stats(&self) -> &[ThrottleStats] {
        &self.throttle_stats
    }

    /// Sets where the player hears from.
    ///
    /// # Errors
    /// [`AudioError::NonFinite`] when a component is NaN or infinite (the
    /// listener is then unchanged).
    pub fn set_listener(&mut self, listener: Listener) -> Result<(), AudioError> {
        if !listener.is_finite() {
            return Err(AudioError::NonFinite { what: "listener", value: format!("{listener:?}") });
        }
        self.listener = listener;
        Ok(())
    }

    /// The listener.
    #[must_use]
    pub fn listener(&self) -> Listener {
        self.listener
    }

    // ----- emitters -----------------------------------------------------

    /// Registers an emitter at `position`.
    ///
    /// # Errors
    /// [`AudioError::EmitterPoolFull`] when every slot is taken (slots of
    /// removed emitters are reused once their voices have ended);
    /// [`AudioError::NonFinite`] for a NaN or infinite position.
    pub fn add_emitter(&mut self, position: Vec3) -> Result<EmitterId, AudioError> {
        check_position(position)?;
        let columns = self.config.max_emitters + 2;
        for slot in 0..self.emitters.len() {
            let busy = self.emitters[slot].alive || self.voices.iter().any(|v| v.active && v.emitter == slot as u32);
            if busy {
                continue;
            }
            let em = &mut self.emitters[slot];
            em.alive = true;
            em.generation = em.generation.wrapping_add(1);
            em.position = position;
            for e in 0..self.entries.len() {
                self.last_trigger[e * columns + slot] = f64::NEG_INFINITY;
            }
            return Ok(EmitterId { slot: slot as u32, generation: em.generation });
        }
        Err(AudioError::EmitterPoolFull { capacity: self.config.max_emitters })
    }

    /// Emitters registered and not removed.
    #[must_use]
    pub fn emitters_alive(&self) -> usize {
        self.emitters.iter().filter(|e| e.alive).count()
    }

    fn emitter_slot(&self, id: EmitterId) -> Option<usize> {
        let em = self.emitters.get(id.slot as usize)?;
        (em.alive && em.generation == id.generation).then_some(id.slot as usize)
    }

    /// Moves an emitter; its voices follow.
    ///
    /// # Errors
    /// [`AudioError::UnknownEmitter`] for a stale handle;
    /// [`AudioError::NonFinite`] for a NaN or infinite position (the emitter
    /// stays where it was).
    pub fn set_emitter_position(&mut self, id: EmitterId, position: Vec3) -> Result<(), AudioError> {
        check_position(position)?;
        let slot = self.emitter_slot(id).ok_or(AudioError::UnknownEmitter)?;
        self.emitters[slot].position = position;
        Ok(())
    }

    /// Removes an emitter, stopping its voices (loops fade over their fade
    /// time, one-shots over the steal fade).
    ///
    /// # Errors
    /// [`AudioError::UnknownEmitter`] for a stale handle.
    pub fn remove_emitter(&mut self, id: EmitterId) -> Result<(), AudioError> {
        let slot = self.emitter_slot(id).ok_or(AudioError::UnknownEmitter)?;
        self.stop_where(|v| v.emitter == slot as u32);
        self.emitters[slot].alive = false;
        Ok(())
    }

    // ----- buses --------------------------------------------------------

    /// Sets a bus volume (linear, clamped to `>= 0`); false if no such bus.
    pub fn set_bus_volume(&mut self, bus: AudioBusId, volume: f32) -> bool {
        let v = if volume.is_finite() { volume.max(0.0) } else { 0.0 };
        self.config.buses.iter_mut().find(|b| b.id == bus).map(|b| b.volume = v).is_some()
    }

    /// Mutes or unmutes a bus; false if no such bus.
    pub fn set_bus_muted(&mut self, bus: AudioBusId, muted: bool) -> bool {
        self.config.buses.iter_mut().find(|b| b.id == bus).map(|b| b.muted = muted).is_some()
    }

    fn bus_gain(&self, bus: u16) -> f32 {
        let b = &self.config.buses[bus as usize];
        if b.muted { 0.0 } else { b.volume }
    }

    // ----- inspection ---------------------------------------------------

    /// Voices occupying the pool (live and releasing).
    #[must_use]
    pub fn active_voices(&self) -> usize {
        self.voices.iter().filter(|v| v.active).count()
    }

    /// Live (not fading out) voices of entry `entry`.
    #[must_use]
    pub fn live_voices_of(&self, entry: usize) -> usize {
        self.voices.iter().filter(|v| v.is_live() && v.entry as usize == entry).count()
    }

    /// Views of the active voices, in slot order.
    pub fn voices(&self) -> impl Iterator<Item = VoiceInfo> + '_ {
        self.voices.iter().enumerate().filter(|(_, v)| v.active).map(|(i, v)| VoiceInfo {
            handle: VoiceHandle { slot: i as u32, generation: v.generation },
            entry: v.entry as usize,
            variant: v.variant as usize,
            emitter: (v.emitter != NONE).then_some(EmitterId { slot: v.emitter, generation: v.emitter_generation }),
            releasing: v.release_total > 0,
            gain: v.gain,
            level: self.level_of(v),
            played_frames: v.played,
        })
    }

    /// Whether `voice` is still playing (live or releasing).
    #[must_use]
    pub fn is_playing(&self, voice: VoiceHandle) -> bool {
        self.voices.get(voice.slot as usize).is_some_and(|v| v.active && v.generation == voice.generation)
    }
}

/// Checks `config` against the rules [`Player::new`] documents, and the
/// cooldown table's budget for `entries` table entries; returns the cooldown
/// table's columns per entry.
fn check_config(config: &PlayerConfig, entries: usize) -> Result<usize, AudioError> {
    let bad = |reason: &str| Err(AudioError::InvalidConfig { reason: reason.into() });
    if config.sample_rate == 0 {
        return bad("sample_rate must be > 0");
    }
    if config.max_voices == 0 || config.max_voices > u32::MAX as usize / 2 {
        return bad("max_voices must be >= 1");
    }
    if config.max_emitters > u32::MAX as usize / 2 {
        return bad("max_emitters is too large");
    }
    if !(config.master_volume.is_finite() && config.master_volume >= 0.0) {
        return bad("master_volume must be a finite gain >= 0");
    }
    if !(config.steal_fade.is_finite() && config.steal_fade > 0.0) {
        return bad("steal_fade must be > 0 seconds");
    }
    if !(config.reference_distance.is_finite() && config.reference_distance > 0.0) {
        return bad("reference_distance must be > 0 metres");
    }
    if config.buses.iter().any(|b| !(b.volume.is_finite() && b.volume >= 0.0)) {
        return bad("bus volumes must be finite gains >= 0");
    }
    // Budget: the cooldown table holds one time per entry × emitter column.
    let columns = config.max_emitters.saturating_add(2);
    if entries.saturating_mul(columns) > MAX_COOLDOWN_CELLS {
        return Err(AudioError::InvalidConfig {
            reason: format!(
                "{} entries × {} emitters is over the budget of {MAX_COOLDOWN_CELLS} cooldown cells",
                entries, config.max_emitters
            ),
        });
    }
    Ok(columns)
}

/// Per table row, its bus (buses the config lacks are added with default
/// settings), first variant-clip index and fade in frames; and the bank
/// index of every variant's clip.
fn index_entries(
    table: &SoundTable,
    clips: &ClipBank,
    config: &mut PlayerConfig,
) -> Result<(Vec<EntryInfo>, Vec<u32>), AudioError> {
    // Set-up lookups by name are hashed, so set-up stays linear in the table.
    let clip_index = clips.name_index();
    let mut bus_index: std::collections::HashMap<_, usize> =
        config.buses.iter().enumerate().rev().map(|(i, b)| (b.id, i)).collect();
    let mut entries = Vec::with_capacity(table.len());
    let mut variant_clips = Vec::new();
    let mut missing: Vec<String> = Vec::new();
    let mut missing_seen = std::collections::HashSet::new();
    for row in table.rows() {
        let e = &row.row;
        let bus = *bus_index.entry(e.bus).or_insert_with(|| {
            config.buses.push(BusConfig::new(e.bus));
            config.buses.len() - 1
        });
        if config.buses.len() > u16::MAX as usize {
            return Err(AudioError::InvalidConfig { reason: "too many buses".into() });
        }
        entries.push(EntryInfo {
            bus: bus as u16,
            clip_base: variant_clips.len() as u32,
            fade_frames: (e.fade_time as f64 * config.sample_rate as f64).round() as u32,
        });
        for v in &e.variants {
            match clip_index.get(v.clip.as_str()) {
                Some(&i) => variant_clips.push(i as u32),
                None => {
                    if missing_seen.insert(v.clip.as_str()) {
                        missing.push(v.clip.clone());
                    }
                    variant_clips.push(0);
                }
            }
        }
    }
    if !missing.is_empty() {
        return Err(AudioError::MissingClips { names: missing });
    }
    Ok((entries, variant_clips))
}

//! Driving a [`Player`] that lives on the audio thread, without locks.
//!
//! # Terminology
//! - **game thread** — whoever calls [`PlayerHandle`]: triggers, emitter
//!   moves, listener, buses.
//! - **audio thread** — whoever calls [`PlayerRenderer::process`]: the
//!   device callback, or a test thread standing in for it.
//! - **ring** — a fixed-capacity single-producer/single-consumer queue
//!   (`rtrb`): pushing and popping are wait-free, never lock and never
//!   allocate.
//!
//! ```text
//!  game thread                                    audio thread
//!  PlayerHandle ── commands ring ──────────────▶ PlayerRenderer ── owns ──▶ Box<Player>
//!       ▲       ◀── reports ring (outcomes, stats) ──┘    │ render(out)
//!       └───────◀── freed ring (replaced players) ───────┘
//! ```
//!
//! The renderer owns the player outright, so the callback never waits for
//! the game thread: it drains the commands ring, applies each command
//! (`trigger`, `stop`, … — all allocation-free), then renders. Nothing the
//! callback touches is ever freed there: commands carry no heap data except
//! [`PlayerHandle::replace_player`]'s boxed player, and the player it
//! replaces travels back on the freed ring to be dropped by the game thread
//! ([`PlayerHandle::collect_garbage`], also run by [`PlayerHandle::poll`]).
//! When the freed ring is full, a replacement waits in the commands ring
//! (and the commands behind it with it) until the game thread has made room.
//!
//! Emitters are named on the game thread ([`RemoteEmitter`]) so that
//! [`PlayerHandle::add_emitter`] can return at once; the renderer maps them
//! to the player's own emitters, and re-creates them on a replacement player.

use rtrb::{Consumer, Producer, RingBuffer};
use zoa_anim_core::glam::Vec3;
use zoa_anim_core::{AudioBusId, SoundEventId, StateTagSet};

use crate::AudioError;
use crate::curves::Listener;
use crate::player::{EmitterId, Player, PlayerStats, TriggerOutcome, VoiceHandle};

/// Commands the rings hold by default ([`realtime`]).
pub const DEFAULT_CAPACITY: usize = 1024;

/// Longest surface name a command can carry, bytes.
pub const MAX_SURFACE_BYTES: usize = 32;

/// An emitter created through a [`PlayerHandle`]; stale after
/// [`PlayerHandle::remove_emitter`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RemoteEmitter {
    key: u32,
    generation: u32,
}

/// Identifies one [`PlayerHandle::trigger`] in the reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Ticket(pub u64);

/// What the audio thread tells the game thread.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Report {
    /// What a trigger did.
    Triggered {
        /// The trigger's ticket.
        ticket: Ticket,
        /// Its outcome, as [`Player::trigger`] returned it.
        outcome: TriggerOutcome,
    },
    /// The player had no room for an emitter (or refused its position):
    /// triggers on it play as [`TriggerOutcome::UnknownEmitter`].
    EmitterRefused(RemoteEmitter),
    /// The counters, answering [`PlayerHandle::request_stats`].
    Stats {
        /// The player's counters.
        stats: PlayerStats,
        /// Frames rendered so far.
        frames: u64,
        /// Reports lost because the reports ring was full.
        dropped_reports: u64,
    },
}

/// A surface name stored inline, so a command owns no heap memory.
#[derive(Debug, Clone, Copy)]
struct Surface {
    len: u8,
    bytes: [u8; MAX_SURFACE_BYTES],
}

impl Surface {
    fn new(s: &str) -> Result<Surface, AudioError> {
        if s.len() > MAX_SURFACE_BYTES {
            return Err(AudioError::InvalidConfig {
                reason: format!("surface `{s}` is longer than {MAX_SURFACE_BYTES} bytes"),
            });
        }
        let mut bytes = [0; MAX_SURFACE_BYTES];
        bytes[..s.len()].copy_from_slice(s.as_bytes());
        Ok(Surface { len: s.len() as u8, bytes })
    }

    fn as_str(&self) -> &str {
        // Built from a `&str` cut at its own length: always valid UTF-8.
        std::str::from_utf8(&self.bytes[..self.len as usize]).unwrap_or("")
    }
}

#[derive(Debug)]
enum Command {
    Trigger {
        ticket: Ticket,
        emitter: Option<RemoteEmitter>,
        event: SoundEventId,
        state: StateTagSet,
        surface: Option<Surface>,
    },
    StopVoice(VoiceHandle),
    StopEvent {
        emitter: Option<RemoteEmitter>,
        event: SoundEventId,
    },
    StopAll,
    Listener(Listener),
    AddEmitter(RemoteEmitter, Vec3),
    MoveEmitter(RemoteEmitter, Vec3),
    RemoveEmitter(RemoteEmitter),
    BusVolume(AudioBusId, f32),
    BusMuted(AudioBusId, bool),
    Replace(Box<Player>),
    Stats,
}

/// Builds the two ends for `player`, each ring holding `capacity` items
/// (at least 1). Set-up time: allocates the rings and the emitter table.
#[must_use]
pub fn realtime(player: Player, capacity: usize) -> (PlayerHandle, PlayerRenderer) {
    let capacity = capacity.max(1);
    let (commands, command_rx) = RingBuffer::new(capacity);
    let (report_tx, reports) = RingBuffer::new(capacity);
    let (freed_tx, freed) = RingBuffer::new(capacity);
    let keys = player.config().max_emitters;
    let handle =
        PlayerHandle { commands, reports, freed, next_ticket: 0, generations: vec![0; keys], alive: vec![false; keys] };
    let renderer = PlayerRenderer {
        player: Box::new(player),
        commands: command_rx,
        reports: report_tx,
        freed: freed_tx,
        emitters: vec![RemoteSlot::EMPTY; keys],
        dropped_reports: 0,
    };
    (handle, renderer)
}

/// The game thread's end: queues commands for the audio thread. Every method
/// is wait-free; none waits for the audio thread.
#[derive(Debug)]
pub struct PlayerHandle {
    commands: Producer<Command>,
    reports: Consumer<Report>,
    freed: Consumer<Box<Player>>,
    next_ticket: u64,
    generations: Vec<u32>,
    alive: Vec<bool>,
}

fn full() -> AudioError {
    AudioError::QueueFull
}

impl PlayerHandle {
    fn send(&mut self, command: Command) -> Result<(), AudioError> {
        self.commands.push(command).map_err(|_| full())
    }

    /// Queues a trigger (see [`Player::trigger`]); its outcome comes back as
    /// [`Report::Triggered`] with the returned ticket.
    ///
    /// # Errors
    /// [`AudioError::QueueFull`] when the audio thread is behind;
    /// [`AudioError::InvalidConfig`] for a surface longer than [`MAX_SURFACE_BYTES`].
    pub fn trigger(
        &mut self,
        emitter: Option<RemoteEmitter>,
        event: SoundEventId,
        state: StateTagSet,
        surface: Option<&str>,
    ) -> Result<Ticket, AudioError> {
        let surface = surface.map(Surface::new).transpose()?;
        let ticket = Ticket(self.next_ticket);
        self.send(Command::Trigger { ticket, emitter, event, state, surface })?;
        self.next_ticket += 1;
        Ok(ticket)
    }

    /// Queues [`Player::stop`].
    ///
    /// # Errors
    /// [`AudioError::QueueFull`].
    pub fn stop_voice(&mut self, voice: VoiceHandle) -> Result<(), AudioError> {
        self.send(Command::StopVoice(voice))
    }

    /// Queues [`Player::stop_event`].
    ///
    /// # Errors
    /// [`AudioError::QueueFull`].
    pub fn stop_event(&mut self, emitter: Option<RemoteEmitter>, event: SoundEventId) -> Result<(), AudioError> {
        self.send(Command::StopEvent { emitter, event })
    }

    /// Queues [`Player::stop_all`].
    ///
    /// # Errors
    /// [`AudioError::QueueFull`].
    pub fn stop_all(&mut self) -> Result<(), AudioError> {
        self.send(Command::StopAll)
    }

    /// Queues [`Player::set_listener`].
    ///
    /// # Errors
    /// [`AudioError::NonFinite`] (checked here, not on the audio thread);
    /// [`AudioError::QueueFull`].
    pub fn set_listener(&mut self, listener: Listener) -> Result<(), AudioError> {
        if !listener.is_finite() {
            return Err(AudioError::NonFinite { what: "listener", value: format!("{listener:?}") });
        }
        self.send(Command::Listener(listener))
    }

    /// Creates an emitter at `position`, usable at once.
    ///
    /// # Errors
    /// [`AudioError::NonFinite`]; [`AudioError::EmitterPoolFull`] when every
    /// name is in use (as many as the player has emitter slots);
    /// [`AudioError::QueueFull`].
    pub fn add_emitter(&mut self, position: Vec3) -> Result<RemoteEmitter, AudioError> {
        check(position)?;
        let key =
            self.alive.iter().position(|a| !a).ok_or(AudioError::EmitterPoolFull { capacity: self.alive.len() })?;
        let id = RemoteEmitter { key: key as u32, generation: self.generations[key].wrapping_add(1) };
        self.send(Command::AddEmitter(id, position))?;
        self.generations[key] = id.generation;
        self.alive[key] = true;
        Ok(id)
    }

    fn is_alive(&self, id: RemoteEmitter) -> bool {
        let k = id.key as usize;
        self.alive.get(k).copied().unwrap_or(false) && self.generations[k] == id.generation
    }

    /// Moves an emitter.
    ///
    /// # Errors
    /// [`AudioError::UnknownEmitter`]; [`AudioError::NonFinite`]; [`AudioError::QueueFull`].
    pub fn set_emitter_position(&mut self, id: RemoteEmitter, position: Vec3) -> Result<(), AudioError> {
        check(position)?;
        if !self.is_alive(id) {
            return Err(AudioError::UnknownEmitter);
        }
        self.send(Command::MoveEmitter(id, position))
    }

    /// Removes an emitter (its voices fade out as with [`Player::remove_emitter`]).
    ///
    /// # Errors
    /// [`AudioError::UnknownEmitter`]; [`AudioError::QueueFull`].
    pub fn remove_emitter(&mut self, id: RemoteEmitter) -> Result<(), AudioError> {
        if !self.is_alive(id) {
            return Err(AudioError::UnknownEmitter);
        }
        self.send(Command::RemoveEmitter(id))?;
        self.alive[id.key as usize] = false;
        Ok(())
    }

    /// Queues [`Player::set_bus_volume`].
    ///
    /// # Errors
    /// [`AudioError::QueueFull`].
    pub fn set_bus_volume(&mut self, bus: AudioBusId, volume: f32) -> Result<(), AudioError> {
        self.send(Command::BusVolume(bus, volume))
    }

    /// Queues [`Player::set_bus_muted`].
    ///
    /// # Errors
    /// [`AudioError::QueueFull`].
    pub fn set_bus_muted(&mut self, bus: AudioBusId, muted: bool) -> Result<(), AudioError> {
        self.send(Command::BusMuted(bus, muted))
    }

    /// Replaces the playing player (a new profile or clip bank): the audio
    /// thread swaps it in, keeps the listener and re-creates the emitters on
    /// it, and sends the old one back to be dropped here. Its clock restarts
    /// with the replacement's.
    ///
    /// # Errors
    /// [`AudioError::QueueFull`] (the player is dropped).
    pub fn replace_player(&mut self, player: Player) -> Result<(), AudioError> {
        self.send(Command::Replace(Box::new(player)))
    }

    /// Asks for a [`Report::Stats`].
    ///
    /// # Errors
    /// [`AudioError::QueueFull`].
    pub fn request_stats(&mut self) -> Result<(), AudioError> {
        self.send(Command::Stats)
    }

    /// Drops, on this thread, whatever the audio thread has finished with
    /// (replaced players). Returns how many were dropped.
    pub fn collect_garbage(&mut self) -> usize {
        let mut n = 0;
        while let Ok(old) = self.freed.pop() {
            drop(old);
            n += 1;
        }
        n
    }

    /// Collects garbage, then hands every pending report to `f`, oldest first.
    pub fn poll(&mut self, mut f: impl FnMut(Report)) {
        self.collect_garbage();
        while let Ok(r) = self.reports.pop() {
            f(r);
        }
    }

    /// Commands queued and not yet taken by the audio thread.
    pub fn pending_commands(&self) -> usize {
        self.commands.buffer().capacity() - self.commands.slots()
    }
}

fn check(position: Vec3) -> Result<(), AudioError> {
    if position.is_finite() {
        Ok(())
    } else {
        Err(AudioError::NonFinite { what: "emitter position", value: format!("{position}") })
    }
}

#[derive(Debug, Clone, Copy)]
struct RemoteSlot {
    generation: u32,
    alive: bool,
    position: Vec3,
    id: Option<EmitterId>,
}

impl RemoteSlot {
    const EMPTY: RemoteSlot = RemoteSlot { generation: 0, alive: false, position: Vec3::ZERO, id: None };
}

/// The audio thread's end: owns the player. [`PlayerRenderer::process`] is
/// the whole callback; it never locks, allocates or frees.
#[derive(Debug)]
pub struct PlayerRenderer {
    player: Box<Player>,
    commands: Consumer<Command>,
    reports: Producer<Report>,
    freed: Producer<Box<Player>>,
    emitters: Vec<RemoteSlot>,
    dropped_reports: u64,
}

impl PlayerRenderer {
    /// The player (for inspection on the audio thread, or after the fact).
    pub fn player(&self) -> &Player {
        &self.player
    }

    /// Sample rate of the current player.
    pub fn sample_rate(&self) -> u32 {
        self.player.config().sample_rate
    }

    /// Applies every queued command, then renders `out` (interleaved stereo,
    /// as [`Player::render`]). Wait-free, allocation-free and free-free.
    pub fn process(&mut self, out: &mut [f32]) {
        self.apply_commands();
        self.player.render(out);
    }

    /// Applies the queued commands only (the first half of [`Self::process`]).
    pub fn apply_commands(&mut self) {
        loop {
            // A replacement needs room on the freed ring for the old player:
            // until then it (and what follows it) stays queued.
            if matches!(self.commands.peek(), Ok(Command::Replace(_))) && self.freed.is_full() {
                return;
            }
            let Ok(command) = self.commands.pop() else { return };
            self.apply(command);
        }
    }

    fn report(&mut self, r: Report) {
        if self.reports.push(r).is_err() {
            self.dropped_reports += 1;
        }
    }

    fn emitter(&self, id: Option<RemoteEmitter>) -> Result<Option<EmitterId>, ()> {
        match id {
            None => Ok(None),
            Some(r) => match self.emitters.get(r.key as usize) {
                Some(s) if s.alive && s.generation == r.generation => s.id.map(Some).ok_or(()),
                _ => Err(()),
            },
        }
    }

    /// Swaps in `next` with the current listener and every live emitter (a
    /// refused emitter is reported); the old player goes back to the game
    /// thread through the freed ring (never dropped here).
    fn swap_player(&mut self, mut next: Box<Player>) {
        let _ = next.set_listener(self.player.listener());
        for i in 0..self.emitters.len() {
            let slot = self.emitters[i];
            if slot.alive {
                let id = next.add_emitter(slot.position).ok();
                self.emitters[i].id = id;
                if id.is_none() {
                    self.report(Report::EmitterRefused(RemoteEmitter { key: i as u32, generation: slot.generation }));
                }
            }
        }
        let old = std::mem::replace(&mut self.player, next);
        // Room was checked before popping: the old player never drops here.
        if let Err(rtrb::PushError::Full(old)) = self.freed.push(old) {
            debug_assert!(false, "freed ring full after the check");
            std::mem::forget(old);
        }
    }

    fn apply(&mut self, command: Command) {
        match command {
            Command::Trigger { ticket, emitter, event, state, surface } => {
                let outcome = match self.emitter(emitter) {
                    Ok(e) => self.player.trigger(e, event, state, surface.as_ref().map(Surface::as_str)),
                    Err(()) => TriggerOutcome::UnknownEmitter,
                };
                self.report(Report::Triggered { ticket, outcome });
            }
            Command::StopVoice(v) => {
                self.player.stop(v);
            }
            Command::StopEvent { emitter, event } => {
                if let Ok(e) = self.emitter(emitter) {
                    self.player.stop_event(e, event);
                }
            }
            Command::StopAll => {
                self.player.stop_all();
            }
            Command::Listener(l) => {
                let _ = self.player.set_listener(l);
            }
            Command::AddEmitter(r, position) => {
                let id = self.player.add_emitter(position).ok();
                if let Some(slot) = self.emitters.get_mut(r.key as usize) {
                    *slot = RemoteSlot { generation: r.generation, alive: true, position, id };
                }
                if id.is_none() {
                    self.report(Report::EmitterRefused(r));
                }
            }
            Command::MoveEmitter(r, position) => {
                if let Ok(Some(id)) = self.emitter(Some(r)) {
                    let _ = self.player.set_emitter_position(id, position);
                    self.emitters[r.key as usize].position = position;
                }
            }
            Command::RemoveEmitter(r) => {
                if let Ok(e) = self.emitter(Some(r)) {
                    if let Some(id) = e {
                        let _ = self.player.remove_emitter(id);
                    }
                    let slot = &mut self.emitters[r.key as usize];
                    slot.alive = false;
                    slot.id = None;
                }
            }
            Command::BusVolume(bus, v) => {
                self.player.set_bus_volume(bus, v);
            }
            Command::BusMuted(bus, m) => {
                self.player.set_bus_muted(bus, m);
            }
            Command::Replace(next) => self.swap_player(next),
            Command::Stats => {
                let r = Report::Stats {
                    stats: self.player.stats(),
                    frames: self.player.frames_rendered(),
                    dropped_reports: self.dropped_reports,
                };
                self.report(r);
            }
        }
    }
}

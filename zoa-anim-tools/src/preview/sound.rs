//! The preview's sound: the character's sound profile played the way a game
//! plays it — the runtime's `SoundBridge` turns notifies and binding phases
//! into cues, `AudioOut` triggers them on a `zoa_audio_profile::Player`
//! (its resolver, variant picker, cooldowns and caps) — and each cue's
//! outcome recorded: the resolved entry, the variant, the bus and the gain.
//!
//! The player's clock is its rendered frames, so the preview renders (into a
//! small scratch buffer it then drops) up to each cue's time before
//! triggering it: cooldowns, voice ends and caps see preview time. Binding
//! phases sound through the shipped mapping of `validate --coverage`
//! (`cross_modal::EVENTS`: `fire` → `weapon.fire`, …), at the action's start.

use std::path::Path;

use zoa_anim_assets::AssetError;
use zoa_anim_assets::authoring::cross_modal::EVENTS;
use zoa_anim_assets::files::{self, FileKind};
use zoa_anim_core::glam::Vec3;
use zoa_anim_core::{AnimationBindingId, CharacterBundle, SoundEventId};
use zoa_anim_runtime::character::{AudioOut, BindingPhase, SoundBridge, SoundCue, SoundCueSink};
use zoa_audio_profile::{AudioError, ClipBank, ClipData, NotifyMap, Player, PlayerConfig, SoundEmitter, SoundTable};

use super::capture::{Capture, NameId, SoundEntryNames, SoundRecord};

/// Most decoded samples the preview's sound bank may hold: the budget
/// [`zoa_anim_core::budget::PREVIEW_SOUND_SAMPLES`].
pub const MAX_SOUND_SAMPLES: u64 = zoa_anim_core::budget::PREVIEW_SOUND_SAMPLES.max;

/// Why a sound file could not be read, in words (the guarded reader's errors).
pub(crate) fn read_reason(e: &AssetError) -> String {
    match e {
        AssetError::Io { source, .. } => format!("cannot read the file: {source}"),
        AssetError::NotAFile { what, .. } => format!("is {what}, not a regular file"),
        AssetError::FileTooLarge { max, .. } => format!("is larger than the {} MiB sound file limit", max >> 20),
        other => other.to_string(),
    }
}

/// Decodes every sound file `table` names (paths relative to the definition
/// folder `dir`) through the guarded reader, refusing a bank of more than
/// `max_samples` samples as soon as it would hold more.
pub(crate) fn load_clip_bank(table: &SoundTable, dir: &Path, max_samples: u64) -> Result<ClipBank, AudioError> {
    let mut total = 0u64;
    ClipBank::load_for_table_with(table, |clip| {
        let path = dir.join(clip);
        let shown = path.display().to_string();
        let bytes = files::read(&path, FileKind::Sound)
            .map_err(|e| AudioError::Decode { path: shown.clone(), reason: read_reason(&e) })?;
        let clip = ClipData::decode(bytes, &shown)?;
        total = total.saturating_add(clip.samples().len() as u64);
        if total > max_samples {
            let reason = format!("the sounds decode to more than {max_samples} samples (the preview's sound budget)");
            return Err(AudioError::Decode { path: shown, reason });
        }
        Ok(clip)
    })
}

/// A character's sounds for the preview: its sound profile flattened and
/// its clips decoded.
#[derive(Clone)]
pub struct PreviewSound {
    /// The flattened profile.
    pub table: SoundTable,
    /// Every clip it names, decoded.
    pub bank: ClipBank,
}

impl std::fmt::Debug for PreviewSound {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Not the samples.
        f.debug_struct("PreviewSound")
            .field("profile", &self.table.profile_id())
            .field("entries", &self.table.len())
            .field("clips", &self.bank.len())
            .field("samples", &self.samples())
            .finish()
    }
}

impl PreviewSound {
    /// The sounds of `bundle` (its chosen sound profile, files under `dir`):
    /// `Ok(None)` without a sound profile, `Err` with the reason when the
    /// profile does not flatten or a file cannot be decoded (the preview
    /// then plays without sound and says why).
    pub fn from_bundle(bundle: &CharacterBundle, dir: &Path) -> Result<Option<PreviewSound>, String> {
        let Some(id) = &bundle.sound_profile else { return Ok(None) };
        let lookup = |id: &str| bundle.sound_profiles.iter().find(|p| p.id == id);
        let profile = lookup(id).ok_or_else(|| format!("sound profile `{id}` is not in the folder"))?;
        let table = SoundTable::flatten(profile, lookup).map_err(|e| format!("sound profile `{id}`: {e}"))?;
        let bank = load_clip_bank(&table, dir, MAX_SOUND_SAMPLES).map_err(|e| format!("sound profile `{id}`: {e}"))?;
        Ok(Some(PreviewSound { table, bank }))
    }

    /// Decoded samples the bank holds.
    #[must_use]
    pub fn samples(&self) -> u64 {
        (0..self.bank.len()).filter_map(|i| self.bank.get(i)).map(|c| c.samples().len() as u64).sum()
    }

    /// Interns the table's names into `capture` (the entries a cue can name).
    pub(super) fn intern(&self, capture: &mut Capture) {
        capture.sound_profile = Some(capture.intern(self.table.profile_id()));
        capture.sound_entries = self
            .table
            .rows()
            .iter()
            .map(|r| SoundEntryNames {
                event: capture.intern(r.row.event.as_str()),
                profile: capture.intern(&r.source),
                bus: capture.intern(r.row.bus.as_str()),
                variants: r.row.variants.iter().map(|v| capture.intern(&v.clip)).collect(),
            })
            .collect();
    }
}

/// Frames rendered per call while the player's clock catches up.
const RENDER_FRAMES: usize = 1024;

/// The sink of the preview's sound bridge: one emitter at the model's origin
/// on a player of the character's table; each cue's outcome is kept until
/// the tick records it.
pub(super) struct CueSink {
    player: Player,
    emitters: [SoundEmitter; 1],
    /// Sound event ids a cue can carry, interned.
    names: Vec<(SoundEventId, NameId)>,
    scratch: Vec<f32>,
    /// Cues since the last tick was recorded.
    pub(super) cues: Vec<SoundRecord>,
}

impl std::fmt::Debug for CueSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CueSink").field("now", &self.player.now()).field("cues", &self.cues.len()).finish()
    }
}

impl CueSink {
    /// A player for `sound` and the bridge that feeds it: notifies through the
    /// shipped notify map, the shipped bindings at their start phase. Interns
    /// every event id a cue can carry. Allocates (once per run).
    pub(super) fn bridge(sound: &PreviewSound, capture: &mut Capture) -> Result<SoundBridge<CueSink>, String> {
        let mut player = Player::new(sound.table.clone(), sound.bank.clone(), PlayerConfig::default())
            .map_err(|e| format!("the sound player: {e}"))?;
        let notifies = NotifyMap::with_defaults();
        let bindings: Vec<(AnimationBindingId, SoundEventId)> = EVENTS
            .iter()
            .filter_map(|(binding, _, _, sound)| Some((binding.parse().ok()?, sound.parse().ok()?)))
            .collect();
        // Every event a cue can carry: a notify's, a binding's.
        let mut names: Vec<(SoundEventId, NameId)> = Vec::new();
        for event in notifies.events().chain(bindings.iter().map(|(_, e)| *e)) {
            if !names.iter().any(|(e, _)| *e == event) {
                names.push((event, capture.intern(event.as_str())));
            }
        }
        let emitter = SoundEmitter::new(&mut player, Vec3::ZERO, notifies).map_err(|e| e.to_string())?;
        let sink = CueSink {
            player,
            emitters: [emitter],
            names,
            scratch: vec![0.0; 2 * RENDER_FRAMES],
            cues: Vec::with_capacity(64),
        };
        let mut bridge = SoundBridge::new(sink);
        for (binding, event) in bindings {
            bridge = bridge.map_binding(binding, BindingPhase::Start, event);
        }
        Ok(bridge)
    }

    /// Renders (and drops) audio until the player's clock reaches `time` seconds.
    pub(super) fn advance_to(&mut self, time: f64) {
        let rate = f64::from(self.player.config().sample_rate);
        let target = (time.max(0.0) * rate).round() as u64;
        while self.player.frames_rendered() < target {
            let n = (target - self.player.frames_rendered()).min(RENDER_FRAMES as u64) as usize;
            self.player.render(&mut self.scratch[..2 * n]);
        }
    }
}

impl SoundCueSink for CueSink {
    fn on_sound_cue(&mut self, character: usize, cue: &SoundCue<'_>) {
        self.advance_to(cue.time);
        let mut out = AudioOut { player: &mut self.player, emitters: &self.emitters };
        let Some((event, outcome)) = out.play(character, cue) else { return };
        let Some(&(_, name)) = self.names.iter().find(|(e, _)| *e == event) else { return };
        let gain = match outcome {
            zoa_audio_profile::TriggerOutcome::Started { voice, .. } => {
                self.player.voices().find(|v| v.handle == voice).map_or(0.0, |v| v.gain)
            }
            _ => 0.0,
        };
        self.cues.push(SoundRecord { time: cue.time, event: name, outcome, gain });
    }
}

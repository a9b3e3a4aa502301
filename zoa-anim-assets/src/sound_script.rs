//! Sound scripts: a timed sequence of sound events to render offline, read by
//! `zoa-anim sound render`.
//!
//! ```toml
//! length = 4.0          # seconds; default: last event + 1 s
//! sample_rate = 48000   # default 48000 (8000 ..= 192000)
//! seed = 7              # variant/volume/pitch random stream; default fixed
//! [listener]            # optional; defaults: origin, facing -Z, up +Y
//! position = [0, 0, 0]
//! forward = [0, 0, -1]
//! up = [0, 1, 0]
//! [[events]]
//! time = 0.5            # seconds
//! event = "footstep"
//! emitter = "hero"      # default "emitter"; emitters are created on first use
//! position = [1, 0, -2] # moves the emitter (metres)
//! state = "locomotion=walk"
//! surface = "grass"
//! action = "trigger"    # or "stop": stops the emitter's voices of the event
//! ```
//!
//! [`parse_sound_script`] checks the whole file and lists every problem
//! (`events[3].time: …`; the caller prefixes the file's path). Budgets, checked
//! before anything per event is built: at most [`MAX_SCRIPT_EVENTS`] events
//! and [`MAX_SCRIPT_EMITTERS`] distinct emitters. The result is the file's
//! typed content: its events are core's [`ScriptEvent`]s, which the audio
//! crate's `Script` takes as they are (the audio crate reads no files, so
//! the format lives here).

use std::collections::BTreeSet;

use serde::Deserialize;
use zoa_anim_core::glam::Vec3;
use zoa_anim_core::sound_script::{ScriptAction, ScriptEvent};
use zoa_anim_core::{SoundEventId, StateTagSet};

/// Most events one script may hold (each costs its parsed form, its report
/// line and its JSON: about 1.7 KiB).
pub const MAX_SCRIPT_EVENTS: usize = 50_000;
/// Most distinct emitters one script may name (each is a column of the
/// player's cooldown table, see `zoa_audio_profile::MAX_COOLDOWN_CELLS`).
pub const MAX_SCRIPT_EMITTERS: usize = 4096;
/// The emitter an event without `emitter` uses.
pub const DEFAULT_EMITTER: &str = "emitter";
/// Accepted `sample_rate` values, Hz.
pub const SAMPLE_RATES: std::ops::RangeInclusive<u32> = 8_000..=192_000;

/// The `[listener]` table with its defaults filled in: origin, facing −Z,
/// up +Y. Finite, with `forward` and `up` not parallel.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScriptFileListener {
    /// Position, metres.
    pub position: Vec3,
    /// Facing direction (need not be normalised).
    pub forward: Vec3,
    /// Up direction (need not be normalised).
    pub up: Vec3,
}

impl Default for ScriptFileListener {
    fn default() -> Self {
        ScriptFileListener { position: Vec3::ZERO, forward: Vec3::NEG_Z, up: Vec3::Y }
    }
}

/// A checked sound script.
#[derive(Debug, Clone, PartialEq)]
pub struct SoundScriptFile {
    /// The events in file order (at most [`MAX_SCRIPT_EVENTS`]).
    pub events: Vec<ScriptEvent>,
    /// Where the listener is.
    pub listener: ScriptFileListener,
    /// Total length, seconds (`length`; `None`: last event + 1 s). Checked by
    /// the renderer against its own limit.
    pub length: Option<f64>,
    /// Output sample rate, Hz, within [`SAMPLE_RATES`] (`None`: the player's default).
    pub sample_rate: Option<u32>,
    /// Seed of the random stream (`None`: the player's default).
    pub seed: Option<u64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawScript {
    length: Option<f64>,
    sample_rate: Option<u32>,
    seed: Option<u64>,
    listener: Option<RawListener>,
    #[serde(default)]
    events: Vec<RawEvent>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawListener {
    position: Option<[f32; 3]>,
    forward: Option<[f32; 3]>,
    up: Option<[f32; 3]>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawEvent {
    time: f64,
    event: String,
    emitter: Option<String>,
    position: Option<[f32; 3]>,
    #[serde(default)]
    state: String,
    surface: Option<String>,
    action: Option<String>,
}

/// Parses and checks a sound script's text.
///
/// # Errors
/// Every problem found, one message each: a TOML or field-type error (with
/// its line and column) or a budget alone, else every event's and the
/// listener's and sample rate's problems.
pub fn parse_sound_script(text: &str) -> Result<SoundScriptFile, Vec<String>> {
    let file: RawScript = toml::from_str(text).map_err(|e| vec![e.to_string()])?;
    if file.events.len() > MAX_SCRIPT_EVENTS {
        return Err(vec![format!("{} events; a script has at most {MAX_SCRIPT_EVENTS}", file.events.len())]);
    }
    let emitters: BTreeSet<&str> =
        file.events.iter().map(|e| e.emitter.as_deref().unwrap_or(DEFAULT_EMITTER)).collect();
    if emitters.len() > MAX_SCRIPT_EMITTERS {
        return Err(vec![format!("{} emitters; a script names at most {MAX_SCRIPT_EMITTERS}", emitters.len())]);
    }
    let mut problems = Vec::new();
    let mut events = Vec::new();
    for (i, e) in file.events.iter().enumerate() {
        let event = match SoundEventId::new(&e.event) {
            Ok(id) => id,
            Err(err) => {
                problems.push(format!("events[{i}].event: {err}"));
                continue;
            }
        };
        if !(e.time.is_finite() && e.time >= 0.0) {
            problems.push(format!("events[{i}].time: must be a finite number of seconds >= 0"));
        }
        if e.position.is_some_and(|p| p.iter().any(|c| !c.is_finite())) {
            problems.push(format!("events[{i}].position: coordinates must be finite"));
        }
        let action = match e.action.as_deref().unwrap_or("trigger") {
            "trigger" => match e.state.parse::<StateTagSet>() {
                Ok(state) => ScriptAction::Trigger { state, surface: e.surface.clone() },
                Err(err) => {
                    problems.push(format!("events[{i}].state: {err}"));
                    continue;
                }
            },
            "stop" => ScriptAction::Stop,
            other => {
                problems.push(format!("events[{i}].action: `{other}`; expected `trigger` or `stop`"));
                continue;
            }
        };
        events.push(ScriptEvent {
            time: e.time,
            event,
            emitter: e.emitter.clone().unwrap_or_else(|| DEFAULT_EMITTER.to_owned()),
            position: e.position.map(Vec3::from_array),
            action,
        });
    }
    let mut listener = ScriptFileListener::default();
    if let Some(l) = &file.listener {
        listener.position = l.position.map_or(listener.position, Vec3::from_array);
        listener.forward = l.forward.map_or(listener.forward, Vec3::from_array);
        listener.up = l.up.map_or(listener.up, Vec3::from_array);
        let (f, u) = (listener.forward, listener.up);
        if !(listener.position.is_finite() && f.is_finite() && u.is_finite()) || f.cross(u).length_squared() < 1e-12 {
            problems.push("listener: position, forward and up must be finite; forward and up not parallel".into());
        }
    }
    if file.sample_rate.is_some_and(|r| !SAMPLE_RATES.contains(&r)) {
        problems.push("sample_rate: must be within 8000 ..= 192000".into());
    }
    if problems.is_empty() {
        Ok(SoundScriptFile { events, listener, length: file.length, sample_rate: file.sample_rate, seed: file.seed })
    } else {
        Err(problems)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_script_takes_every_default() {
        let s = parse_sound_script("").unwrap();
        assert!(s.events.is_empty());
        assert_eq!(s.listener, ScriptFileListener::default());
        assert_eq!((s.length, s.sample_rate, s.seed), (None, None, None));
    }

    #[test]
    fn events_keep_file_order_with_their_defaults() {
        let text = r#"
            sample_rate = 44100
            seed = 3
            [[events]]
            time = 1.5
            event = "footstep"
            state = "locomotion=walk"
            surface = "grass"
            [[events]]
            time = 0.25
            event = "footstep"
            emitter = "hero"
            position = [1, 0, -2]
            action = "stop"
        "#;
        let s = parse_sound_script(text).unwrap();
        assert_eq!((s.sample_rate, s.seed), (Some(44_100), Some(3)));
        assert_eq!(s.events.len(), 2);
        assert_eq!(s.events[0].emitter, DEFAULT_EMITTER);
        assert_eq!(
            s.events[0].action,
            ScriptAction::Trigger { state: "locomotion=walk".parse().unwrap(), surface: Some("grass".into()) }
        );
        assert_eq!(s.events[1].time, 0.25);
        assert_eq!(s.events[1].position, Some(Vec3::new(1.0, 0.0, -2.0)));
        assert_eq!(s.events[1].action, ScriptAction::Stop);
    }

    #[test]
    fn every_problem_is_listed_with_its_event_and_field() {
        let text = r#"
            sample_rate = 7999
            [listener]
            forward = [0, 1, 0]
            [[events]]
            time = -1
            event = "footstep"
            position = [0, inf, 0]
            [[events]]
            time = 0
            event = "bad id!"
            [[events]]
            time = 0
            event = "footstep"
            action = "pause"
        "#;
        let problems = parse_sound_script(text).unwrap_err();
        assert_eq!(problems.len(), 6, "{problems:?}");
        assert_eq!(problems[0], "events[0].time: must be a finite number of seconds >= 0");
        assert_eq!(problems[1], "events[0].position: coordinates must be finite");
        assert!(problems[2].starts_with("events[1].event: "), "{problems:?}");
        assert_eq!(problems[3], "events[2].action: `pause`; expected `trigger` or `stop`");
        assert!(problems[4].starts_with("listener: "), "{problems:?}");
        assert_eq!(problems[5], "sample_rate: must be within 8000 ..= 192000");
    }

    #[test]
    fn budgets_are_refused_before_events_are_checked() {
        let many: String = (0..=MAX_SCRIPT_EMITTERS)
            .map(|i| format!("[[events]]\ntime = 0\nevent = \"e\"\nemitter = \"m{i}\"\n"))
            .collect();
        assert_eq!(parse_sound_script(&many).unwrap_err(), ["4097 emitters; a script names at most 4096"]);
        let err = parse_sound_script("[[events]]\ntime = 0\n").unwrap_err();
        assert!(err[0].contains("missing field `event`"), "{err:?}");
    }
}

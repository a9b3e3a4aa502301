//! `zoa-anim sound`: resolve sound events against a profile, render a scripted
//! sequence of events offline to a WAV file, and (re)generate the sound
//! fixtures.
//!
//! The JSON shapes printed here are a contract for outside scripts:
//!
//! ```text
//! sound resolve --format json
//!   {"profile":"…","event":"…","match":{"entry":N,"event_id":"…","source_profile":"…","variants":N}|null}
//! sound render
//!   {"profile":"…","out":"…","sample_rate":N,"frames":N,"seconds":S,"started":N,"dropped_cooldown":N,
//!    "stolen":N,"rejected":N,"no_match":N,"peak_voices":N,"throttled":N,"rms":R,
//!    "throttles":[{"prefix":"weapon.fire.*","max_voices":N,"max_starts_per_second":N,"cooldown":S,
//!      "started":N,"dropped_cooldown":N,"dropped_rate":N,"dropped_voices":N,"peak_voices":N}],
//!    "events":[{"time":S,"event":"…","emitter":"…","outcome":"…","entry":N|null,"variant":N|null,"stopped":N}]}
//! ```
//!
//! An event's `outcome` is `started`, `dropped_cooldown`, `throttled_cooldown`, `throttled_rate`,
//! `throttled_voices` (a prefix throttle of the profile refused it), `rejected_entry_cap`,
//! `rejected_bus_cap`, `rejected_voice_pool`, `no_match`, `unknown_emitter` or `stopped`.
//!
//! The render script is TOML (format, checks and the event and emitter
//! budgets: `zoa_anim_assets::sound_script`). Budgets here: a script file of
//! at most 4 MiB, sound files of at most 64 MiB, and the audio crate's player
//! and render budgets (`MAX_COOLDOWN_CELLS`, `MAX_RENDER_SAMPLES`,
//! `MAX_CLIP_SAMPLES`, `MAX_BANK_SAMPLES`).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use serde::Serialize;
use zoa_anim_assets::defs::{DefinitionSet, Severity, load_folder};
use zoa_anim_assets::files::{self, FileKind};
use zoa_anim_assets::sound_script::parse_sound_script;
use zoa_anim_core::{SoundEventId, StateTagSet};
use zoa_audio_profile::fixtures::{fixture_sounds, write_fixtures};
use zoa_audio_profile::{
    Listener, Player, PlayerConfig, RenderReport, ResolveOptions, Script, SoundTable, TriggerOutcome, render_script,
    wav::wav_bytes,
};

use super::Format;
use crate::output::fail;

/// Arguments of `zoa-anim sound`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: SoundCommand,
}

#[derive(Debug, clap::Subcommand)]
enum SoundCommand {
    /// Which entry of a sound profile answers an event in a state on a surface.
    Resolve(ResolveArgs),
    /// Render a scripted sequence of events offline to a WAV file.
    Render(RenderArgs),
    /// Write the generated test sounds (tones, noise bursts, a loop) as WAV files.
    GenFixtures(GenArgs),
}

#[derive(Debug, clap::Args)]
struct ResolveArgs {
    /// Definition folder.
    #[arg(long)]
    defs: PathBuf,
    /// Sound profile id.
    #[arg(long)]
    profile: String,
    /// Sound event id (`weapon.fire.dryclick`).
    #[arg(long)]
    event: String,
    /// Active state tags (`locomotion=run mood=alert`); default: empty.
    #[arg(long, default_value = "")]
    state: String,
    /// Surface under the emitter (`grass`).
    #[arg(long)]
    surface: Option<String>,
    /// Disable hierarchical id fallback (`weapon.fire.dryclick` → `weapon.fire`).
    #[arg(long)]
    no_hierarchy: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    format: Format,
}

#[derive(Debug, clap::Args)]
struct RenderArgs {
    /// Definition folder (sound paths are relative to it).
    #[arg(long)]
    defs: PathBuf,
    /// Sound profile id.
    #[arg(long)]
    profile: String,
    /// TOML script of events.
    #[arg(long)]
    script: PathBuf,
    /// Output WAV file (16-bit stereo).
    #[arg(long)]
    out: PathBuf,
    /// Overwrite an existing output file.
    #[arg(long)]
    force: bool,
    /// Output format of the summary.
    #[arg(long, value_enum, default_value = "json")]
    format: Format,
}

#[derive(Debug, clap::Args)]
struct GenArgs {
    /// Folder to write into.
    #[arg(long, default_value = "fixtures/sounds")]
    out: PathBuf,
    /// Overwrite existing files.
    #[arg(long)]
    force: bool,
    /// Write nothing; exit 1 if a file is missing or differs from a fresh generation.
    #[arg(long)]
    check: bool,
}

/// Runs a `sound` subcommand.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    match args.command {
        SoundCommand::Resolve(a) => resolve(a),
        SoundCommand::Render(a) => render(a),
        SoundCommand::GenFixtures(a) => gen_fixtures(a),
    }
}

/// Prints the folder's error diagnostics to stderr; returns their number.
fn report_errors(defs: &DefinitionSet) -> usize {
    let errors: Vec<_> = defs.diagnostics.iter().filter(|d| d.severity == Severity::Error).collect();
    for d in &errors {
        errln!("{d}");
    }
    errors.len()
}

/// Loads the folder and flattens `profile`; the failure says why.
fn load_table(dir: &Path, profile: &str) -> Result<(DefinitionSet, SoundTable), crate::output::Failure> {
    if !dir.is_dir() {
        return Err(fail(2, "io", format!("definition folder `{}` does not exist", dir.display())).at(dir));
    }
    let defs = load_folder(dir);
    let Some(p) = defs.sound_profile(profile) else {
        let errors = report_errors(&defs);
        let known: Vec<&str> = defs.sound_profiles.iter().map(|p| p.value.id.as_str()).collect();
        return Err(fail(
            1,
            "not-found",
            format!(
                "no sound profile `{profile}` in `{}` (known: {}){}",
                dir.display(),
                if known.is_empty() { "none".to_owned() } else { known.join(", ") },
                if errors > 0 { format!("; {errors} definition error(s) above") } else { String::new() }
            ),
        ));
    };
    match SoundTable::flatten(p, |id| defs.sound_profile(id)) {
        Ok(table) => {
            for w in table.warnings() {
                errln!("warning: {w}");
            }
            Ok((defs, table))
        }
        Err(e) => {
            report_errors(&defs);
            Err(fail(1, "invalid-input", e.to_string()))
        }
    }
}

#[derive(Serialize)]
struct ResolveJson<'a> {
    profile: &'a str,
    event: &'a str,
    #[serde(rename = "match")]
    found: Option<MatchJson<'a>>,
}

#[derive(Serialize)]
struct MatchJson<'a> {
    entry: usize,
    event_id: &'a str,
    source_profile: &'a str,
    variants: usize,
}

fn resolve(a: ResolveArgs) -> anyhow::Result<ExitCode> {
    let event = match SoundEventId::new(&a.event) {
        Ok(e) => e,
        Err(e) => {
            return Err(fail(2, "usage", format!("--event: {e}")).into());
        }
    };
    let state: StateTagSet = match a.state.parse() {
        Ok(s) => s,
        Err(e) => {
            return Err(fail(2, "usage", format!("--state: {e}")).into());
        }
    };
    let (_defs, table) = load_table(&a.defs, &a.profile)?;
    let options = ResolveOptions { hierarchical: !a.no_hierarchy };
    let m = table.resolve(event, state, a.surface.as_deref(), options);
    let found = m.map(|m| {
        let row = &table.rows()[m.entry];
        MatchJson {
            entry: m.entry,
            event_id: m.event_id.as_str(),
            source_profile: &row.source,
            variants: row.row.variants.len(),
        }
    });
    match a.format {
        Format::Json => {
            let out = ResolveJson { profile: &a.profile, event: event.as_str(), found };
            crate::output::json_document(serde_json::to_string(&out)?)?;
        }
        Format::Human => match (m, found) {
            (Some(m), Some(f)) => {
                let e = table.entry(m.entry);
                let clips: Vec<&str> = e.variants.iter().map(|v| v.clip.as_str()).collect();
                outln!(
                    "{} {} in `{state}`{} -> entries[{}] `{}` from `{}` ({} variant(s): {})",
                    a.profile,
                    event,
                    a.surface.as_deref().map(|s| format!(" on {s}")).unwrap_or_default(),
                    f.entry,
                    f.event_id,
                    f.source_profile,
                    f.variants,
                    clips.join(", ")
                );
                if m.id_levels_up > 0 {
                    outln!("  (hierarchical fallback: {} segment(s) stripped)", m.id_levels_up);
                }
            }
            _ => outln!("{} {} in `{state}`: no entry matches", a.profile, event),
        },
    }
    Ok(ExitCode::SUCCESS)
}

// ----- render ----------------------------------------------------------------

/// A guarded-read failure without the path (the decode error names it).
/// The script file's content as the audio crate's `Script`, with its
/// sample rate and seed.
fn parse_script(text: &str) -> Result<(Script, Option<u32>, Option<u64>), Vec<String>> {
    let file = parse_sound_script(text)?;
    let l = file.listener;
    let listener = Listener { position: l.position, forward: l.forward, up: l.up };
    Ok((Script { events: file.events, listener, length: file.length }, file.sample_rate, file.seed))
}

#[derive(Serialize)]
struct RenderJson<'a> {
    profile: &'a str,
    out: String,
    sample_rate: u32,
    frames: usize,
    seconds: f64,
    started: u64,
    dropped_cooldown: u64,
    stolen: u64,
    rejected: u64,
    no_match: u64,
    peak_voices: u32,
    throttled: u64,
    rms: f32,
    throttles: Vec<ThrottleJson>,
    events: Vec<EventJson<'a>>,
}

#[derive(Serialize)]
struct ThrottleJson {
    prefix: String,
    max_voices: u32,
    max_starts_per_second: u32,
    cooldown: f32,
    started: u64,
    dropped_cooldown: u64,
    dropped_rate: u64,
    dropped_voices: u64,
    peak_voices: u32,
}

#[derive(Serialize)]
struct EventJson<'a> {
    time: f64,
    event: &'a str,
    emitter: &'a str,
    outcome: &'static str,
    entry: Option<usize>,
    variant: Option<usize>,
    stopped: usize,
}

fn outcome_json(o: Option<TriggerOutcome>) -> (&'static str, Option<usize>, Option<usize>) {
    o.map_or(("stopped", None, None), |o| (o.name(), o.entry(), o.variant()))
}

fn render(a: RenderArgs) -> anyhow::Result<ExitCode> {
    if a.out.exists() && !a.force {
        return Err(fail(2, "exists", format!("`{}` exists; pass --force to overwrite it", a.out.display()))
            .at(&a.out)
            .into());
    }
    let (script, mut player) = script_player(&a)?;
    let report = match render_script(&mut player, &script) {
        Ok(r) => r,
        Err(e) => {
            return Err(fail(1, "invalid-input", format!("{}: {e}", a.script.display())).at(&a.script).into());
        }
    };
    let bytes = wav_bytes(2, report.sample_rate, &report.samples);
    if let Some(parent) = a.out.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).with_context(|| format!("creating `{}`", parent.display()))?;
    }
    std::fs::write(&a.out, bytes).with_context(|| format!("writing `{}`", a.out.display()))?;

    let summary = render_json(&a, &player, &report);
    match a.format {
        Format::Json => crate::output::json_document(serde_json::to_string_pretty(&summary)?)?,
        Format::Human => print_render(&summary)?,
    }
    Ok(ExitCode::SUCCESS)
}

/// The script of `a` and a player for it: the profile's table with its
/// clips decoded, one emitter per emitter the script names.
fn script_player(a: &RenderArgs) -> anyhow::Result<(Script, Player)> {
    let text = match files::read_to_string(&a.script, FileKind::SmallText) {
        Ok(t) => t,
        Err(e) => {
            return Err(fail(2, "io", format!("cannot read the script: {e}")).into());
        }
    };
    let (script, rate, seed) = match parse_script(&text) {
        Ok(s) => s,
        Err(problems) => {
            let problems = problems.iter().map(|p| format!("{}: {p}", a.script.display())).collect();
            return Err(crate::output::fail_all(1, "invalid-input", problems).at(&a.script).into());
        }
    };
    let (_defs, table) = load_table(&a.defs, &a.profile)?;
    // The bank's own budget (`MAX_BANK_SAMPLES`) bounds it.
    let bank = match crate::preview::sound::load_clip_bank(&table, &a.defs, u64::MAX) {
        Ok(b) => b,
        Err(e) => {
            return Err(fail(1, "invalid-input", format!("{e}")).into());
        }
    };
    let emitters: BTreeSet<&str> = script.events.iter().map(|e| e.emitter.as_str()).collect();
    let defaults = PlayerConfig::default();
    let config = PlayerConfig {
        sample_rate: rate.unwrap_or(defaults.sample_rate),
        seed: seed.unwrap_or(defaults.seed),
        max_emitters: emitters.len().max(1),
        ..defaults
    };
    match Player::new(table, bank, config) {
        Ok(p) => Ok((script, p)),
        Err(e) => Err(fail(1, "invalid-input", format!("building the player: {e}")).into()),
    }
}

/// The summary `sound render` prints: totals, per throttle and per event.
fn render_json<'a>(a: &'a RenderArgs, player: &Player, report: &'a RenderReport) -> RenderJson<'a> {
    let s = report.stats;
    let throttles: Vec<ThrottleJson> = player
        .table()
        .throttles()
        .iter()
        .zip(player.throttle_stats())
        .map(|(t, st)| ThrottleJson {
            prefix: format!("{}.*", t.prefix),
            max_voices: t.max_voices,
            max_starts_per_second: t.max_starts_per_second,
            cooldown: t.cooldown,
            started: st.started,
            dropped_cooldown: st.dropped_cooldown,
            dropped_rate: st.dropped_rate,
            dropped_voices: st.dropped_voices,
            peak_voices: st.peak_voices,
        })
        .collect();
    let events: Vec<EventJson<'_>> = report
        .events
        .iter()
        .map(|e| {
            let (outcome, entry, variant) = outcome_json(e.outcome);
            EventJson {
                time: e.time,
                event: e.event.as_str(),
                emitter: &e.emitter,
                outcome,
                entry,
                variant,
                stopped: e.stopped,
            }
        })
        .collect();
    RenderJson {
        profile: &a.profile,
        out: a.out.display().to_string(),
        sample_rate: report.sample_rate,
        frames: report.frames(),
        seconds: report.frames() as f64 / report.sample_rate as f64,
        started: s.started,
        dropped_cooldown: s.dropped_cooldown,
        stolen: s.stolen,
        rejected: s.rejected,
        no_match: s.no_match,
        peak_voices: s.peak_voices,
        throttled: s.throttled,
        rms: report.rms(0, report.frames()),
        throttles,
        events,
    }
}

/// `sound render`'s human output.
fn print_render(summary: &RenderJson<'_>) -> anyhow::Result<()> {
    outln!(
        "{}: {:.3} s, {} voices started, {} dropped by cooldown, {} throttled, {} stolen, {} rejected, {} unmatched (peak {} voices)",
        summary.out,
        summary.seconds,
        summary.started,
        summary.dropped_cooldown,
        summary.throttled,
        summary.stolen,
        summary.rejected,
        summary.no_match,
        summary.peak_voices
    );
    for t in &summary.throttles {
        outln!(
            "  throttle {}: {} started, dropped {} by cooldown, {} by rate, {} by voices (peak {} voices)",
            t.prefix,
            t.started,
            t.dropped_cooldown,
            t.dropped_rate,
            t.dropped_voices,
            t.peak_voices
        );
    }
    for e in &summary.events {
        outln!("  {:>8.3} s  {:<24} {:<10} {}", e.time, e.event, e.emitter, e.outcome);
    }
    Ok(())
}

// ----- gen-fixtures ------------------------------------------------------------

fn gen_fixtures(a: GenArgs) -> anyhow::Result<ExitCode> {
    let sounds = fixture_sounds();
    if a.check {
        let mut stale = 0;
        for s in &sounds {
            let path = a.out.join(s.name);
            if std::fs::read(&path).ok().as_deref() != Some(&s.wav()[..]) {
                errln!("{}: missing or differs from a fresh generation", path.display());
                stale += 1;
            }
        }
        return Ok(if stale == 0 { ExitCode::SUCCESS } else { ExitCode::from(1) });
    }
    if !a.force {
        if let Some(existing) = sounds.iter().map(|s| a.out.join(s.name)).find(|p| p.exists()) {
            return Err(fail(
                2,
                "exists",
                format!("`{}` exists; pass --force to overwrite the fixtures", existing.display()),
            )
            .at(existing)
            .into());
        }
    }
    let paths = write_fixtures(&a.out).with_context(|| format!("writing fixtures into `{}`", a.out.display()))?;
    for p in paths {
        outln!("{}", p.display());
    }
    Ok(ExitCode::SUCCESS)
}

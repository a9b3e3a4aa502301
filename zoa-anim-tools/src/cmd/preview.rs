//! `zoa-anim preview --defs DIR --preset ID [--rate HZ] [--out DIR] [--format json|csv] [--force]`:
//! plays a preview preset (the Workbench's Preview Lab, as a command) on the folder's model and
//! writes what happened.
//!
//! Output (a contract for outside scripts): `capture.json`, `capture.csv`,
//! `timeline.png` (1400 px wide) and `frames.png` (200 px per frame, up to 8
//! frames, 340 px tall) in `--out`, or by default in a new folder
//! `preview-<preset>-N` under the current directory (the first free N). Existing
//! files (or symlinks, even dangling ones) are never overwritten without
//! `--force`, and the four files are written all or nothing (temporary
//! siblings, then renames; a symlink in the way is replaced, never followed).
//! A preset over its budgets (core's `PreviewPreset::problems`, and the
//! budgets `preview.ticks` and `preview.capture_bytes` of
//! `zoa_anim_core::budget` at the chosen rate) is refused before it plays; a
//! preset with errors is refused with its own diagnostics. The paths written are
//! printed. With `--format json` (or `csv`) and no `--out`, the capture is
//! printed to stdout instead and no file is written.
//!
//! # capture.json
//!
//! One object; keys are only ever added (a script reading the first
//! version's keys keeps working). Times are seconds, lengths metres, weights
//! `0..=1`, model space is glTF's (+Y up).
//!
//! - `preset`, `rate` (Hz).
//! - `joints`: joint names in skeleton order (the order of `local` and of
//!   each mask's weights).
//! - `masks`: `{id: [weight per joint]}` for every bone mask a contribution
//!   can name; ids are `layer:<graph layer>` and `state:<state>`.
//! - `ground`: the flat ground's height the character stands on (foot
//!   planting's probe; default 0), or `null` for none.
//! - `sound`: `{"profile": id|null, "problem": text|null}`: the sound profile
//!   played, or why the folder's profile could not be (a file missing, or
//!   over the `preview.sound_samples` budget: no cue is recorded then).
//! - `ticks`: one object per tick, in time order:
//!   - `time`, `step` (index of the step being played), `states`
//!     (`[{"layer","state","weight","clip_time"}]`: each graph layer's active
//!     states, then the slot's clips under layer `slot` and the selector's
//!     under `selector`), `bindings` (`{id: value}` for the preset's
//!     bindings the class binds), `events` (`[{"kind","name","time"}]`),
//!     `root_motion` (`[x, y, z, yaw]` over the tick); with `--local`,
//!     `local` (`[{"name","t":[x,y,z],"r":[x,y,z,w],"s":[x,y,z]}]`, after IK).
//!   - `contributions`: every input of the pose the character composed, as
//!     its blender used it, bottom to top: `stack` (`current`, or `outgoing`
//!     for the outgoing graph of a loadout switch, whose pose is blended over
//!     the current one by `1 − switch_alpha`), `stack_layer` (inputs of one
//!     stack layer accumulate, three.js; stack layers compose over one
//!     another), `part` (`state`, `slot`, `selector`, `procedural`),
//!     `layer` (the graph layer's name, or `slot` / `selector` /
//!     `procedural`), `layer_index` (graph layer, else `null`), `state` and
//!     `child` (the state and its blend-tree child, else `null`), `row` (the
//!     selector's row, `null` for the default idle clip and other parts),
//!     `clip` (`null` for the procedural layer, which is computed), `weight`
//!     (final: layer × state × blend-tree child, × the selector layer's
//!     weight or the slot's envelope, before the mask), `clip_time`, `mode`
//!     (`override` or `additive`; additive clips add their difference from
//!     their first frame), `mask` (an id of `masks`, `null` for every bone).
//!     The pose before inertialization and IK is these composed (the
//!     Workbench's and the tests' check: rebuilt from them alone it matches
//!     `local` within 1e-5 where no IK goal and no inertialization act).
//!   - `selector`: `null` without a tag table, else `{"tags", "rows":
//!     [{"row","pattern","clip","weight","clip_time","fallback_step"}]}`: the
//!     applied tags, and per playing row its index (`null`: default idle),
//!     its tag pattern and how the resolution was reached (0 exact, k
//!     fallback step k, -1 default).
//!   - `sounds`: the cues of the tick, as a game's `SoundBridge` and audio
//!     player handle them: `time`, `event` (the sound event requested: a
//!     notify's through the shipped notify map, a binding's at its action's
//!     start through the shipped mapping of `validate --coverage`),
//!     `outcome` (`sound render`'s names: `started`, `no_match`,
//!     `dropped_cooldown`, …), `entry` (index in the flattened profile) and
//!     `entry_event`, `profile` (the profile that authored the entry),
//!     `variant` (index) and `clip` (its file, relative to the definition
//!     folder) when a voice started, `bus`, `gain` (the voice's own gain:
//!     volume × jitter; 0 when nothing started).
//!   - `ik`: the IK goals that ran: `behaviour` (`foot_plant`, `look_at`,
//!     `hand_on_weapon`, `climb_hand`), `side` (`left`/`right`, `null` for
//!     look-at), `joint` (the effector's), `target` (`[x, y, z]`), `weight`,
//!     `error` (the reach error after the frame: effector to target, metres;
//!     for look-at, target to the gaze ray).
//!   - `switch_alpha` (loadout switch progress, 1 when none blends),
//!     `inertializing` (an inertialized transition's offset was decaying).
//!   - `sync`, only in a tick in which a sync group syncs (two or more of its
//!     states play): `[{"group","state","leader","clip","clip_time","phase"}]`
//!     (`clip`: the clip whose markers the state follows by).
//!
//! Event kinds include `notify_begin`, `notify_end` and `notify_cut` (a
//! notify window's begin, its end, its end cut short).
//!
//! capture.csv is one row per tick with the same content in cells (its
//! columns: `capture_export::to_csv`); the timeline PNG charts bindings, state
//! weights, each sync group's phase with its marker crossings, steps,
//! events, notify windows as bars, sound cues (labelled `entry event/variant
//! file`) and each IK goal's weight and reach error.
//!
//! What plays: one character of the public character API
//! (`zoa_anim_runtime::Character`), built from the folder: the player profile
//! set (the first by id) supplies the graph and binding profile of each loadout class; a `tags` step whose combat
//! tag names a weapon equips that class. The model is the one the clips'
//! `source` names (every clip of the folder is bound to the first model's first
//! skin; clips from other files bind by joint name). Selector timing and the rig
//! policy are the folder's first state graph and rig policy (defaults when it has
//! none). Selector clips appear among the states under the layer `selector`.
//! The character stands on flat ground at height 0 (foot planting runs); its
//! sounds are the folder's sound profile (the first by id) played by the audio
//! crate's player.
//!
//! Exit codes: 0 ok; 1 the folder lacks what the preview needs (no player
//! profile set, a clip whose model or animation is missing, definitions the
//! runtime rejects, a preset with errors or over its budgets); 2 usage or IO failure (unknown preset, unreadable folder,
//! files in the way without `--force`).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::preview::{DEFAULT_RATE, PreviewSetup, PreviewSim};
use zoa_anim_assets::defs::{DefinitionSet, load_folder};
use zoa_anim_core::preview::PreviewPreset;

use crate::capture_export;
use crate::output::fail;

/// Output format for printing the capture to stdout (without `--out`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum CaptureFormat {
    /// The JSON capture.
    Json,
    /// One CSV row per tick.
    Csv,
}

/// Arguments of `zoa-anim preview`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Definition folder (with `preview_preset` files).
    #[arg(long)]
    defs: PathBuf,
    /// Id of the preview preset to play.
    #[arg(long)]
    preset: String,
    /// Tick rate, Hz (1 <= rate <= 1000).
    #[arg(long, default_value_t = DEFAULT_RATE)]
    rate: f32,
    /// Folder for the four files (created if missing; default: a new `preview-<preset>-N`).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Without `--out`: print the capture in this format to stdout instead of writing files.
    #[arg(long, value_enum)]
    format: Option<CaptureFormat>,
    /// Overwrite existing files in `--out`.
    #[arg(long)]
    force: bool,
    /// Also record each tick's local joint transforms (`"local"` in capture.json).
    #[arg(long)]
    local: bool,
}

/// Lowest `--rate`, Hz: below it a tick would last longer than the runtime's
/// `f32` clock can step through (at `1e-40` Hz a tick is infinite).
pub const MIN_RATE: f32 = 1.0;
/// Highest `--rate`, Hz.
pub const MAX_RATE: f32 = 1000.0;

/// Largest capture the preview builds in memory, bytes (256 MiB): the budget
/// [`zoa_anim_core::budget::PREVIEW_CAPTURE_BYTES`], estimated before playing
/// by [`zoa_anim_core::budget::PreviewWork::bytes`] (ticks × joints, layers,
/// bindings and pose inputs, and the sound bank; the model the Preview Lab
/// checks with its own budget).
pub const MAX_CAPTURE_BYTES: u64 = zoa_anim_core::budget::PREVIEW_CAPTURE_BYTES.max;

/// Refuses a preset whose capture would exceed its budgets at `rate`.
fn check_capture_budget(setup: &PreviewSetup, preset: &PreviewPreset, rate: f32) -> anyhow::Result<()> {
    let work = setup.work(preset);
    if let Err(e) = work.check_cli(&format!("preset `{}` at {rate} Hz", preset.id)) {
        let fits = work.ticks_within(&zoa_anim_core::budget::PREVIEW_CAPTURE_BYTES, false);
        return Err(fail(
            1,
            "over-budget",
            format!(
                "{e} (about {fits} ticks fit on this rig of {} joints): lower --rate or shorten the waits",
                work.joints
            ),
        )
        .into());
    }
    Ok(())
}

/// The four file names, in writing order.
pub const FILES: [&str; 4] = ["capture.json", "capture.csv", "timeline.png", "frames.png"];

/// Runs the preset and writes or prints the capture.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    if !(args.rate.is_finite() && (MIN_RATE..=MAX_RATE).contains(&args.rate)) {
        return Err(fail(
            2,
            "usage",
            format!("--rate {} must be a number of Hz in [{MIN_RATE}, {MAX_RATE}]", args.rate),
        )
        .into());
    }
    if !args.defs.is_dir() {
        return Err(fail(2, "io", format!("`{}` is not a folder (or cannot be reached)", args.defs.display()))
            .at(&args.defs)
            .into());
    }
    let set = load_folder(&args.defs);
    let preset = find_preset(&set, &args)?;
    let setup = match PreviewSetup::from_folder(&set, &args.defs, args.rate) {
        Ok(s) => PreviewSetup { record_local: args.local, ..s },
        Err(problems) => return Err(crate::output::fail_all(1, "invalid-input", problems).into()),
    };
    check_capture_budget(&setup, &preset, args.rate)?;
    let mut sim = match PreviewSim::new(setup) {
        Ok(s) => s,
        Err(e) => {
            return Err(fail(1, "invalid-input", format!("the runtime rejects the definitions: {e}")).into());
        }
    };
    warn_inert_bindings(&sim);
    let capture = match sim.run(&preset) {
        Ok(c) => c,
        Err(e) => {
            return Err(fail(1, "invalid-input", format!("preset `{}` failed: {e}", preset.id)).into());
        }
    };

    let out_dir = match (&args.out, args.format) {
        (None, Some(CaptureFormat::Json)) => {
            crate::output::json_document(capture_export::to_json(capture))?;
            return Ok(ExitCode::SUCCESS);
        }
        (None, Some(CaptureFormat::Csv)) => {
            out!("{}", capture_export::to_csv(capture));
            return Ok(ExitCode::SUCCESS);
        }
        (Some(dir), _) => dir.clone(),
        (None, None) => first_free_dir(Path::new("."), &preset.id)?,
    };
    let contents = [
        capture_export::to_json(capture).into_bytes(),
        capture_export::to_csv(capture).into_bytes(),
        capture_export::timeline_png(capture),
        capture_export::frames_png(capture),
    ];
    // All four or none: each goes to a temporary sibling first; existing
    // files (or symlinks, even dangling ones) are refused without --force.
    let files: Vec<(PathBuf, Vec<u8>)> = FILES.iter().map(|f| out_dir.join(f)).zip(contents).collect();
    zoa_anim_assets::files::write_all_or_nothing(&files, args.force)?;
    outln!(
        "preset `{}`: {} ticks at {} Hz ({:.2} s)",
        capture.preset,
        capture.ticks.len(),
        capture_export::num(capture.rate),
        capture.ticks.last().map_or(0.0, |t| t.time)
    );
    for name in FILES {
        outln!("wrote {}", out_dir.join(name).display());
    }
    Ok(ExitCode::SUCCESS)
}

/// The valid preview preset `args.preset` names (within its budgets); a note
/// on stderr when the folder has errors elsewhere. A preset that is declared
/// but has errors is refused with its own diagnostics (exit 1: the input has
/// errors); an id no file declares is `not-found` (exit 2).
fn find_preset(set: &DefinitionSet, args: &Args) -> anyhow::Result<PreviewPreset> {
    let Some(preset) = set.preview_preset(&args.preset).cloned() else {
        let own = set.diagnostics_of_declaration("preview_preset", &args.preset);
        if !own.is_empty() {
            let files = set.files_declaring("preview_preset", &args.preset);
            let problems: Vec<String> = own.iter().map(|d| d.to_string()).collect();
            let mut failure = fail(
                1,
                "invalid-input",
                format!("preview preset `{}` has {} problem(s), so it is not played:", args.preset, problems.len()),
            )
            .details(problems);
            if let [one] = files.as_slice() {
                failure = failure.at(args.defs.join(one));
            }
            return Err(failure.into());
        }
        let mut known: Vec<&str> = set.preview_presets.iter().map(|p| p.value.id.as_str()).collect();
        known.sort_unstable();
        let available = if known.is_empty() { "none".to_owned() } else { known.join(", ") };
        return Err(fail(2, "not-found", format!("no preview preset `{}`; available: {available}", args.preset)).into());
    };
    if set.error_count() > 0 {
        errln!(
            "note: the folder has {} error(s) (run `zoa-anim validate {}`); previewing anyway",
            set.error_count(),
            args.defs.display()
        );
    }
    let problems = preset.problems();
    if !problems.is_empty() {
        let problems = problems.into_iter().map(|p| format!("preset `{}`: {p}", preset.id)).collect();
        return Err(crate::output::fail_all(1, "invalid-input", problems).into());
    }
    Ok(preset)
}

/// `<parent>/preview-<preset>-N` for the first N (from 1) that does not exist.
fn first_free_dir(parent: &Path, preset: &str) -> anyhow::Result<PathBuf> {
    let safe: String =
        preset.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' || c == '-' { c } else { '_' }).collect();
    for n in 1..100_000u32 {
        let dir = parent.join(format!("preview-{safe}-{n}"));
        if !zoa_anim_assets::files::occupied(&dir) {
            return Ok(dir);
        }
    }
    anyhow::bail!("no free `preview-{safe}-N` folder under `{}`", parent.display())
}

/// One warning per class whose binding profile does not fit its graph (the
/// driver treats those bindings as no-ops, so the preview shows them inert).
fn warn_inert_bindings(sim: &PreviewSim) {
    let problems = sim.binding_problems();
    let mut classes: Vec<_> = problems.iter().map(|(c, _)| *c).collect();
    classes.dedup();
    for class in classes {
        let lines: Vec<String> = problems.iter().filter(|(c, _)| *c == class).map(|(_, p)| p.to_string()).collect();
        let shown = lines.iter().take(3).cloned().collect::<Vec<_>>().join("; ");
        let more = if lines.len() > 3 { format!("; and {} more", lines.len() - 3) } else { String::new() };
        errln!("warning: class {class}: {} binding problem(s), those bindings are inert: {shown}{more}", lines.len());
    }
}

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
//! printed to stdout instead and no file is written. JSON shape:
//! `{"preset":"…","rate":HZ,"ticks":[{"time":S,"step":N,"states":[{"layer":"…",
//! "state":"…","weight":W,"clip_time":S}],"bindings":{"…":V},"events":[{"kind":"…",
//! "name":"…","time":S}],"root_motion":[x,y,z,yaw]}]}`. With `--local` each tick
//! also carries its local joint transforms after IK:
//! `"local":[{"name":"…","t":[x,y,z],"r":[x,y,z,w],"s":[x,y,z]}]` (skeleton order).
//! A tick in which a sync group syncs (two or more of its states play) carries
//! `"sync":[{"group":"…","state":"…","leader":B,"clip":"…","clip_time":S,"phase":P}]`.
//! Event kinds include `notify_begin`, `notify_end` and `notify_cut` (a notify
//! window's begin, its end, its end cut short). The timeline draws each sync
//! group's phase with its marker crossings, and each notify window as a bar.
//!
//! What plays: one character of the public character API
//! (`zoa_anim_runtime::Character`), built from the folder: the player profile
//! set (the first by id) supplies the graph and binding profile of each loadout class; a `tags` step whose combat
//! tag names a weapon equips that class. The model is the one the clips'
//! `source` names (every clip of the folder is bound to the first model's first
//! skin; clips from other files bind by joint name). Selector timing and the rig
//! policy are the folder's first state graph and rig policy (defaults when it has
//! none). Selector clips appear among the states under the layer `selector`.
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
/// by [`zoa_anim_core::budget::PreviewWork::bytes`] (ticks × joints, layers and
/// bindings; the model the Preview Lab checks with its own budget).
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

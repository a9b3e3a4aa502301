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
//! A preset over its budgets (core's `PreviewPreset::problems`, and
//! [`MAX_CAPTURE_BYTES`] of capture at the chosen rate) is refused before it
//! plays. The paths written are
//! printed. With `--format json` (or `csv`) and no `--out`, the capture is
//! printed to stdout instead and no file is written. JSON shape:
//! `{"preset":"…","rate":HZ,"ticks":[{"time":S,"step":N,"states":[{"layer":"…",
//! "state":"…","weight":W,"clip_time":S}],"bindings":{"…":V},"events":[{"kind":"…",
//! "name":"…","time":S}],"root_motion":[x,y,z,yaw]}]}`.
//!
//! What plays: the folder's player profile set (the first by id) supplies the
//! graph and binding profile of each loadout class; a `tags` step whose combat
//! tag names a weapon equips that class. The model is the one the clips'
//! `source` names (every clip of the folder is bound to the first model's first
//! skin; clips from other files bind by joint name). Selector timing and the rig
//! policy are the folder's first state graph and rig policy (defaults when it has
//! none). Selector clips appear among the states under the layer `selector`.
//!
//! Exit codes: 0 ok; 1 the folder lacks what the preview needs (no player
//! profile set, a clip whose model or animation is missing, definitions the
//! runtime rejects); 2 usage or IO failure (unknown preset, unreadable folder,
//! files in the way without `--force`).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use zoa_anim_assets::defs::{DefinitionSet, load_folder};
use zoa_anim_assets::gltf::{GltfAsset, load_gltf};
use zoa_anim_core::AnimationSelector;
use zoa_anim_core::preview::PreviewPreset;
use zoa_anim_runtime::graph::ClipInfo;
use zoa_anim_runtime::preview::{DEFAULT_LOADOUT_CROSSFADE, DEFAULT_RATE, PreviewSetup, PreviewSim};
use zoa_anim_runtime::{Animation, BindBy};

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
}

/// Lowest `--rate`, Hz: below it a tick would last longer than the runtime's
/// `f32` clock can step through (at `1e-40` Hz a tick is infinite).
pub const MIN_RATE: f32 = 1.0;
/// Highest `--rate`, Hz.
pub const MAX_RATE: f32 = 1000.0;

/// Largest capture the preview builds in memory, bytes (256 MiB), estimated
/// before playing as ticks × [`capture_bytes_per_tick`] (measured on the
/// fixture humanoid: about 1.3 KiB per tick with its exports, 2 bindings, 24 joints).
pub const MAX_CAPTURE_BYTES: u64 = 256 << 20;

/// Estimated bytes one tick costs (records, reserved slots and the JSON/CSV exports).
pub fn capture_bytes_per_tick(bindings: usize, joints: usize) -> u64 {
    1024 + 16 * (bindings as u64 + joints as u64)
}

/// Refuses a preset whose capture would exceed [`MAX_CAPTURE_BYTES`] at `rate`.
fn check_capture_budget(preset: &PreviewPreset, rate: f32, joints: usize) -> anyhow::Result<()> {
    let ticks = (preset.total_seconds() * f64::from(rate)).ceil() as u64 + preset.steps.len() as u64 + 2;
    let bytes = ticks.saturating_mul(capture_bytes_per_tick(preset.bindings().len(), joints));
    if bytes > MAX_CAPTURE_BYTES {
        let max_ticks = MAX_CAPTURE_BYTES / capture_bytes_per_tick(preset.bindings().len(), joints);
        return Err(fail(
            1,
            "over-budget",
            format!(
                "preset `{}`: {ticks} ticks at {rate} Hz would take about {} MiB of capture; the budget is {} MiB \
                 (about {max_ticks} ticks here): lower --rate or shorten the waits",
                preset.id,
                bytes >> 20,
                MAX_CAPTURE_BYTES >> 20
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
    let Some(preset) = set.preview_preset(&args.preset).cloned() else {
        let mut known: Vec<&str> = set.preview_presets.iter().map(|p| p.value.id.as_str()).collect();
        known.sort_unstable();
        let available = if known.is_empty() { "none".to_owned() } else { known.join(", ") };
        return Err(
            fail(2, "not-found", format!("no valid preview preset `{}`; available: {available}", args.preset)).into()
        );
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
    let setup = match build_setup(&set, &args.defs, args.rate) {
        Ok(s) => s,
        Err(problems) => return Err(crate::output::fail_all(1, "invalid-input", problems).into()),
    };
    check_capture_budget(&preset, args.rate, setup.skeleton.joint_count())?;
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
            outln!("{}", capture_export::to_json(capture));
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

/// Builds the simulator's inputs from a definition folder; every problem at once.
pub(crate) fn build_setup(set: &DefinitionSet, dir: &Path, rate: f32) -> Result<PreviewSetup, Vec<String>> {
    let mut problems = Vec::new();
    let mut sets: Vec<_> = set.player_profile_sets.iter().map(|l| &l.value).collect();
    sets.sort_by(|a, b| a.id.cmp(&b.id));
    let Some(player_set) = sets.first().map(|s| (*s).clone()) else {
        return Err(vec![
            "the folder has no valid player_profile_set (the preview takes each class's graph and binding profile from it)"
                .to_owned(),
        ]);
    };

    // Models, loaded once each, in the order clips first name them.
    let mut models: Vec<(PathBuf, GltfAsset)> = Vec::new();
    let mut model_errors: HashMap<PathBuf, String> = HashMap::new();
    let mut sources = Vec::new();
    for c in &set.clips {
        // The loader stores `source` relative to the folder (or absolute).
        let path = dir.join(&c.value.source);
        let key = std::fs::canonicalize(&path).unwrap_or(path.clone());
        if !models.iter().any(|(p, _)| *p == key) && !model_errors.contains_key(&key) {
            match load_gltf(&key) {
                Ok(a) => models.push((key.clone(), a)),
                Err(e) => {
                    model_errors.insert(key.clone(), e.to_string());
                }
            }
        }
        sources.push(key);
    }
    let Some(skeleton) = models.first().and_then(|(_, m)| m.skeletons.first().cloned()) else {
        let mut p = vec!["no clip names a model with a skin (the preview needs a skeleton)".to_owned()];
        let mut errs: Vec<_> = model_errors.iter().map(|(k, e)| format!("`{}`: {e}", k.display())).collect();
        errs.sort();
        p.extend(errs);
        return Err(p);
    };
    let first_model = models[0].0.clone();

    let mut clips = Vec::new();
    let mut animations = Vec::new();
    for (c, key) in set.clips.iter().zip(&sources) {
        let asset = &c.value;
        let Some((_, model)) = models.iter().find(|(p, _)| p == key) else {
            let why = model_errors.get(key).cloned().unwrap_or_else(|| "cannot be loaded".to_owned());
            problems.push(format!("clip `{}`: model `{}`: {why}", asset.id, key.display()));
            continue;
        };
        let index = match &asset.animation {
            AnimationSelector::Index(i) => Some(*i as usize).filter(|i| *i < model.clips.len()),
            AnimationSelector::Name(n) => model.clips.iter().position(|k| k.name() == n).or_else(|| {
                n.strip_prefix(&format!("{}_", model.stem)).and_then(|r| model.clips.iter().position(|k| k.name() == r))
            }),
        };
        let Some(index) = index else {
            problems.push(format!("clip `{}`: `{}` has no animation `{}`", asset.id, key.display(), asset.animation));
            continue;
        };
        let by = if *key == first_model { BindBy::Node } else { BindBy::Name };
        match Animation::bind(&model.clips[index], &skeleton, by) {
            Ok(a) => {
                clips.push(ClipInfo::from_asset(asset, a.duration()));
                animations.push(Arc::new(a));
            }
            Err(e) => problems.push(format!("clip `{}`: {e}", asset.id)),
        }
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    let mut state_graphs: Vec<_> = set.state_graphs.iter().map(|l| &l.value).collect();
    state_graphs.sort_by(|a, b| a.id.cmp(&b.id));
    let mut rigs: Vec<_> = set.rig_policies.iter().map(|l| &l.value).collect();
    rigs.sort_by(|a, b| a.id.cmp(&b.id));
    Ok(PreviewSetup {
        skeleton,
        clips,
        animations,
        player_set,
        graphs: set.animation_graphs.iter().map(|g| (g.value.id.clone(), g.value.clone())).collect(),
        binding_profiles: set.binding_profiles.iter().map(|b| b.value.clone()).collect(),
        animation_profiles: set.animation_profiles.iter().map(|p| p.value.clone()).collect(),
        state_graph: state_graphs.first().map(|s| (*s).clone()).unwrap_or_default(),
        rig_policy: rigs.first().map(|r| (*r).clone()).unwrap_or_default(),
        rate,
        loadout_crossfade: DEFAULT_LOADOUT_CROSSFADE,
    })
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

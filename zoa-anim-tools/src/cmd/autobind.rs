//! `zoa-anim autobind ROOT…`: rank the clips under the roots against the
//! canonical slots and, with `--out`, write a `player_profile_set` with one
//! binding profile per weapon class (and the clip definitions they use).
//!
//! The files are grouped by skeleton first (shared bone names, see
//! `zoa_anim_assets::authoring::skeletons`) and each skeleton is bound on its
//! own, so a set never mixes an idle of one character with a walk of
//! another. With one skeleton the set is written at `--out`; with several,
//! each goes to `<stem>_<skeleton id>.toml` beside it. `--one-set` binds every
//! file together into the one set at `--out` (the old behaviour).
//!
//! Exit codes: 0 done, 1 the written folder does not validate, 2 a root is
//! unreadable, an output file exists without `--force`, or IO failure.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use zoa_anim_assets::authoring::ScanReport;
use zoa_anim_assets::authoring::autobind::AutoBindOptions;
use zoa_anim_assets::authoring::autobind::AutoBindResult;
use zoa_anim_assets::authoring::skeletons::SkeletonGroup;
use zoa_anim_assets::authoring::write::{
    ClassBinding, SetToWrite, bind_classes, bind_skeletons, set_paths, write_profile_sets,
};
use zoa_anim_assets::defs::{Severity, load_folder};
use zoa_anim_core::PlayerProfileType;

use super::Format;
use crate::output::{fail, fail_all};

/// Arguments of `zoa-anim autobind`.
#[derive(Debug, clap::Args)]
#[command(after_help = "Exit codes: 0 done, 1 the written definitions do not validate, 2 a root is unreadable, \
an output file exists without --force, or IO failure.")]
pub struct Args {
    /// Folders (or model files) to scan for clips.
    #[arg(required = true)]
    pub roots: Vec<PathBuf>,
    /// Bind for one weapon class (unarmed, pistol, rifle, shotgun, melee, heavy, throwable); default: every slot.
    #[arg(long, value_parser = parse_type)]
    pub profile_type: Option<PlayerProfileType>,
    /// Write the player profile set here (binding profiles and clip definitions go beside it): a `.toml`
    /// file, or a folder (an existing one, or a path without extension) for `<folder>/player.toml`.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Overwrite existing profile files.
    #[arg(long)]
    pub force: bool,
    /// Lowest score a clip needs to be a candidate (a finite number).
    #[arg(long, default_value_t = 0.3, value_parser = parse_min_score)]
    pub min_score: f32,
    /// Bind every file into one set, whatever skeletons they are on (default: one set per skeleton).
    #[arg(long)]
    pub one_set: bool,
    /// Output format (json: `{"assignments":[{"slot","clip","file","score","runner_up","signals"}],
    /// "skeletons":[{"id","files"}]}`; an assignment belongs to the skeleton listing its file).
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
    /// Scan every file again instead of reusing the scan cache.
    #[arg(long)]
    pub no_cache: bool,
    /// Print only the summary (human format).
    #[arg(long, short)]
    pub quiet: bool,
    /// Also print every signal and the unassigned slots (human format).
    #[arg(long, short)]
    pub verbose: bool,
}

fn parse_type(s: &str) -> Result<PlayerProfileType, String> {
    PlayerProfileType::from_name(s).ok_or_else(|| {
        let all: Vec<&str> = PlayerProfileType::ALL.iter().map(|t| t.name()).collect();
        format!("unknown profile type `{s}`; expected one of: {}", all.join(", "))
    })
}

/// `--min-score`: a finite number (NaN would make every clip fail the test silently).
fn parse_min_score(s: &str) -> Result<f32, String> {
    match s.parse::<f32>() {
        Ok(x) if x.is_finite() => Ok(x),
        Ok(x) => Err(format!("{x} is not a finite number")),
        Err(e) => Err(e.to_string()),
    }
}

fn round3(x: f32) -> f64 {
    (f64::from(x) * 1000.0).round() / 1000.0
}

/// One binder run: a skeleton's (or, with `--one-set`, every file's).
struct Run {
    group: Option<SkeletonGroup>,
    result: AutoBindResult,
    classes: Vec<ClassBinding>,
}

/// `(id, files)` per skeleton of the scan (with `--one-set` still listed, so
/// the user sees what the one set mixes).
fn skeleton_list(report: &ScanReport, runs: &[Run]) -> Vec<(String, Vec<String>)> {
    let owned;
    let groups: Vec<&SkeletonGroup> = if runs.iter().any(|r| r.group.is_some()) {
        runs.iter().filter_map(|r| r.group.as_ref()).collect()
    } else {
        owned = zoa_anim_assets::authoring::skeletons::group_by_skeleton(report);
        owned.iter().collect()
    };
    groups
        .iter()
        .map(|g| (g.id.clone(), g.files.iter().map(|&i| report.files[i].path.display().to_string()).collect()))
        .collect()
}

/// Set file name `--out FOLDER` writes.
pub const SET_FILE_IN_FOLDER: &str = "player.toml";

/// The set file `--out` names: a `.toml` file as given; a folder (an
/// existing one, or a path without extension) means
/// `<folder>/`[`SET_FILE_IN_FOLDER`]; another extension is refused.
fn set_file(out: &std::path::Path) -> Result<PathBuf, String> {
    match out.extension() {
        _ if out.is_dir() => Ok(out.join(SET_FILE_IN_FOLDER)),
        None => Ok(out.join(SET_FILE_IN_FOLDER)),
        Some(e) if e.eq_ignore_ascii_case("toml") => Ok(out.to_path_buf()),
        Some(e) => Err(format!(
            "--out `{}`: a player profile set is a .toml file, not .{}; give a .toml path or a folder",
            out.display(),
            e.to_string_lossy()
        )),
    }
}

/// Binds, prints the assignments, writes the TOML when asked.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    if let Some(bad) = args.roots.iter().find(|r| !r.exists()) {
        return Err(fail(2, "io", format!("`{}` does not exist", bad.display())).at(bad).into());
    }
    let out = match args.out.as_deref().map(set_file).transpose() {
        Ok(o) => o,
        Err(e) => return Err(fail(2, "usage", e).into()),
    };
    let report = match super::scan::scan_with_cache(&args.roots, args.no_cache, None, args.quiet) {
        Ok(r) => r,
        Err(e) => {
            return Err(e);
        }
    };
    let opts = AutoBindOptions { profile_type: args.profile_type, min_score: args.min_score };
    let runs: Vec<Run> = if args.one_set {
        let (result, classes) = bind_classes(&report, &opts);
        vec![Run { group: None, result, classes }]
    } else {
        bind_skeletons(&report, &opts)
            .into_iter()
            .map(|s| Run { group: Some(s.group), result: s.result, classes: s.classes })
            .collect()
    };
    match args.format {
        Format::Json => print_json(&report, &runs)?,
        Format::Human => print_human(&args, &report, &runs)?,
    }
    let Some(out) = &out else { return Ok(ExitCode::SUCCESS) };
    write_sets(&args, &report, &runs, out)
}

/// The assignments of every run and the skeletons as JSON.
fn print_json(report: &ScanReport, runs: &[Run]) -> anyhow::Result<()> {
    let list: Vec<serde_json::Value> = runs
        .iter()
        .flat_map(|r| &r.result.assignments)
        .map(|a| {
            let b = a.best();
            let runner = a.runner_up().map(|r| serde_json::json!({ "clip": r.clip, "score": round3(r.score) }));
            let signals: serde_json::Map<String, serde_json::Value> =
                b.signals.iter().map(|(k, v)| ((*k).to_owned(), round3(*v).into())).collect();
            serde_json::json!({
                "slot": a.slot,
                "clip": b.clip,
                "file": b.file.display().to_string(),
                "score": round3(b.score),
                "runner_up": runner,
                "signals": signals,
            })
        })
        .collect();
    let skeletons: Vec<serde_json::Value> = skeleton_list(report, runs)
        .into_iter()
        .map(|(id, files)| serde_json::json!({ "id": id, "files": files }))
        .collect();
    crate::output::json_document(serde_json::to_string_pretty(
        &serde_json::json!({ "assignments": list, "skeletons": skeletons }),
    )?)?;
    Ok(())
}

/// Per run (headed by its skeleton when several bound), each assignment, then a total.
fn print_human(args: &Args, report: &ScanReport, runs: &[Run]) -> anyhow::Result<()> {
    let groups: Vec<&SkeletonGroup> = runs.iter().filter_map(|r| r.group.as_ref()).collect();
    let bound = runs.iter().filter(|r| !r.result.assignments.is_empty()).count();
    for r in runs {
        if !args.quiet && bound > 1 && !r.result.assignments.is_empty() {
            if let Some(g) = &r.group {
                outln!("skeleton {} ({} file(s)):", g.id, g.files.len());
            }
        }
        if !args.quiet {
            for a in &r.result.assignments {
                let b = a.best();
                let runner = a.runner_up().map_or("-".to_owned(), |r| format!("{} {:.2}", r.clip, r.score));
                outln!("{:<24} {:<20} {:>5.2}  {}  (runner-up: {runner})", a.slot, b.clip, b.score, b.file.display());
                if args.verbose {
                    let s: Vec<String> = b.signals.iter().map(|(k, v)| format!("{k} {v:+.2}")).collect();
                    outln!("{:<24} {}", "", s.join(", "));
                }
            }
            if args.verbose && !r.result.unassigned.is_empty() && (bound <= 1 || !r.result.assignments.is_empty()) {
                outln!("no candidate: {}", r.result.unassigned.join(", "));
            }
        }
    }
    let slots: usize = runs.iter().map(|r| r.result.assignments.len()).sum();
    let on = if args.one_set { String::new() } else { format!(" on {} skeleton(s)", groups.len()) };
    outln!("{slots} slot(s) bound from {} clip(s){on}", report.clips().count());
    Ok(())
}

/// Writes one player profile set per run that bound something (to `out`, or
/// beside it per skeleton), then checks that the folder it landed in loads.
fn write_sets(args: &Args, report: &ScanReport, runs: &[Run], out: &Path) -> anyhow::Result<ExitCode> {
    let bound: Vec<&Run> = runs.iter().filter(|r| !r.classes.is_empty()).collect();
    if bound.is_empty() {
        return Err(fail(1, "invalid-input", "no slot was bound; nothing written").into());
    }
    let ids: Vec<&str> = bound.iter().map(|r| r.group.as_ref().map_or("", |g| g.id.as_str())).collect();
    let sets: Vec<SetToWrite> = set_paths(out, &ids)
        .into_iter()
        .zip(&bound)
        .map(|(out, r)| SetToWrite { out, classes: r.classes.clone() })
        .collect();
    let written = match write_profile_sets(report, &sets, args.force) {
        Ok(w) => w,
        Err(e) => {
            return Err(e.into());
        }
    };
    if !args.quiet && args.format == Format::Human {
        for p in written.profiles.iter().chain(&written.clips_written) {
            outln!("wrote {}", p.display());
        }
    }
    // What was written must load: check the folder it landed in.
    let dir = out.parent().filter(|d| !d.as_os_str().is_empty()).map_or_else(|| PathBuf::from("."), PathBuf::from);
    let set = load_folder(&dir);
    let errors: Vec<String> = set
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| format!("{}:{}:{}: {} {}", d.file.display(), d.line, d.column, d.code, d.message))
        .collect();
    if !errors.is_empty() {
        return Err(fail_all(1, "invalid-input", errors).into());
    }
    Ok(ExitCode::SUCCESS)
}

//! `zoa-anim scan ROOT…`: every clip embedded in the glTF files under the
//! roots (name, duration, loop, root travel), through the clip library
//! scanner and its on-disk cache.
//!
//! Exit codes: 0 every file read, 1 some model file could not be read (the
//! rest is still listed), 2 a root is missing or unreadable.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use zoa_anim_assets::AssetError;
use zoa_anim_assets::authoring::scan::{ModelKind, ScanCache, ScanReport, default_cache_path};

use super::Format;
use crate::output::fail;

/// Arguments of `zoa-anim scan`.
#[derive(Debug, clap::Args)]
#[command(after_help = "Exit codes: 0 every file read, 1 some model file could not be read, 2 a root is unreadable.\n\
Folders named preview(s), sample(s), example(s), target, node_modules or starting with `.` are skipped.")]
pub struct Args {
    /// Folders (or single model files) to scan recursively.
    #[arg(required = true)]
    pub roots: Vec<PathBuf>,
    /// Output format (json: `{"clips":[{"file","name","duration","loops","root_travel"}],
    /// "files":[{"file","kind","clips"}]}`, kind `skinned`, `animation_only` or `static`;
    /// unreadable files are named on stderr only).
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
    /// Scan every file again instead of reusing the cache.
    #[arg(long)]
    pub no_cache: bool,
    /// Cache file (default: `scan-cache.json` in the per-user cache folder,
    /// `$XDG_CACHE_HOME/zoa-anim` or `~/.cache/zoa-anim`). Only a scan cache is ever replaced.
    #[arg(long)]
    pub cache: Option<PathBuf>,
    /// Print only the summary line and errors (human format).
    #[arg(long, short)]
    pub quiet: bool,
    /// Also print key counts, animated joints and limb motion (human format).
    #[arg(long, short)]
    pub verbose: bool,
}

/// A progress bar on stderr, hidden when stdout is not a terminal (or when quiet).
pub(crate) fn progress_bar(len: u64, what: &str, quiet: bool) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr());
    if quiet || !std::io::stdout().is_terminal() {
        bar.set_draw_target(ProgressDrawTarget::hidden());
    }
    if let Ok(style) = ProgressStyle::with_template("{msg} [{bar:30}] {pos}/{len}") {
        bar.set_style(style.progress_chars("=> "));
    }
    bar.set_message(what.to_owned());
    bar
}

/// A spinner on stderr for work without a known length (loading a
/// definition folder), hidden when stdout is not a terminal.
pub(crate) fn spinner(what: &str) -> ProgressBar {
    if !std::io::stdout().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new_spinner();
    bar.set_message(what.to_owned());
    bar.enable_steady_tick(std::time::Duration::from_millis(100));
    bar
}

fn is_inside(path: &Path, roots: &[PathBuf]) -> bool {
    let abs = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| std::path::absolute(p).unwrap_or(p.to_path_buf()));
    let dir = path.parent().map(abs).unwrap_or_default();
    roots.iter().any(|r| dir.starts_with(abs(r)))
}

/// Scans the roots through the cache (unless disabled), with a progress bar.
/// The cache is `cache_path`, else the per-user default; it is never saved
/// inside a scanned root, and a cache that cannot be saved is a warning.
pub(crate) fn scan_with_cache(
    roots: &[PathBuf],
    no_cache: bool,
    cache_path: Option<&Path>,
    quiet: bool,
) -> anyhow::Result<ScanReport> {
    let mut cache = match (no_cache, cache_path) {
        (true, _) => ScanCache::new(),
        (false, Some(path)) => ScanCache::load(path),
        (false, None) => ScanCache::load_default(),
    };
    let bar = progress_bar(0, "scanning", quiet);
    let report = cache.scan(roots, |done, total| {
        bar.set_length(total as u64);
        bar.set_position(done as u64);
    })?;
    bar.finish_and_clear();
    if no_cache {
        return Ok(report);
    }
    let saved = match cache_path {
        Some(path) if is_inside(path, roots) => Ok(()),
        Some(path) => cache.save(path),
        None if default_cache_path().is_some_and(|p| is_inside(&p, roots)) => Ok(()),
        None => cache.save_default().map(|_| ()),
    };
    match saved {
        Ok(()) => {}
        Err(AssetError::WouldOverwrite { path }) => {
            errln!("warning: `{}` is not a scan cache; left unchanged (the cache was not saved)", path.display());
        }
        Err(e) => errln!("warning: the scan cache was not saved: {e}"),
    }
    Ok(report)
}

/// An `f32` as the shortest `f64` that prints like it (`0.7`, not `0.699999988`).
pub(crate) fn short(x: f32) -> f64 {
    x.to_string().parse().unwrap_or(f64::from(x))
}

/// `: 1 skinned, 2 static` — how many readable files are of each kind (kinds
/// with none left out; empty when no file was read).
fn kind_counts(report: &ScanReport) -> String {
    let kinds = [ModelKind::Skinned, ModelKind::AnimationOnly, ModelKind::Static];
    let parts: Vec<String> = kinds
        .iter()
        .filter_map(|&k| {
            let n = report.files.iter().filter(|f| f.error.is_none() && f.kind == k).count();
            (n > 0).then(|| format!("{n} {k}"))
        })
        .collect();
    if parts.is_empty() { String::new() } else { format!(": {}", parts.join(", ")) }
}

/// Runs the scan and prints the clips.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    if let Some(bad) = args.roots.iter().find(|r| !r.exists()) {
        return Err(fail(2, "io", format!("`{}` does not exist", bad.display())).at(bad).into());
    }
    let report = scan_with_cache(&args.roots, args.no_cache, args.cache.as_deref(), args.quiet)?;
    let failed = report.failed().count();
    // Unreadable files are named on stderr in every format (exit 1 says some failed).
    for f in report.failed() {
        if let Some(err) = &f.error {
            errln!("error: {err}");
        }
    }
    match args.format {
        Format::Json => {
            crate::output::json_document(json_report(&report)?)?;
        }
        Format::Human => {
            for f in &report.files {
                if f.error.is_some() {
                    continue;
                }
                if args.quiet {
                    continue;
                }
                outln!("{} ({})", f.path.display(), f.kind);
                for c in &f.clips {
                    let loops = if c.loops { "loops" } else { "once " };
                    out!("  {:<24} {:>7.3} s  {loops}  travel {:.3}", c.name, c.duration, c.root_travel);
                    if args.verbose {
                        out!(
                            "  keys {}  joints {}  legs {:.0}°  arms {:.0}°",
                            c.key_count,
                            c.joints_animated,
                            c.leg_motion,
                            c.arm_motion
                        );
                    }
                    outln!();
                }
            }
            outln!(
                "{} clip(s) in {} file(s){}{}",
                report.clips().count(),
                report.files.len() - failed,
                if failed > 0 { format!(", {failed} unreadable") } else { String::new() },
                kind_counts(&report)
            );
        }
    }
    Ok(if failed > 0 { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

/// The scan contract's JSON document: every clip, every readable file, and
/// the unreadable ones under `failed`.
fn json_report(report: &ScanReport) -> anyhow::Result<String> {
    let clips: Vec<serde_json::Value> = report
        .clips()
        .map(|(f, c)| {
            serde_json::json!({
                "file": f.path.display().to_string(),
                "name": c.name,
                "duration": short(c.duration),
                "loops": c.loops,
                "root_travel": short(c.root_travel),
            })
        })
        .collect();
    let files: Vec<serde_json::Value> = report
        .files
        .iter()
        .filter(|f| f.error.is_none())
        .map(|f| {
            serde_json::json!({
                "file": f.path.display().to_string(),
                "kind": f.kind.as_str(),
                "clips": f.clips.len(),
            })
        })
        .collect();
    // An unreadable model is part of the report, never left out.
    let failed: Vec<serde_json::Value> = report
        .failed()
        .map(|f| {
            serde_json::json!({
                "file": f.path.display().to_string(),
                "error": f.error.as_deref().unwrap_or_default(),
            })
        })
        .collect();
    // `failed` appears only when a model could not be read, so a clean
    // folder's document keeps the contract's two keys byte for byte.
    let mut doc = serde_json::json!({ "clips": clips, "files": files });
    if !failed.is_empty() {
        doc["failed"] = serde_json::Value::from(failed);
    }
    Ok(serde_json::to_string_pretty(&doc)?)
}

//! `zoa-anim import FILE [--into DIR]`: cut every animation embedded in a
//! model into a `clip` definition file, skipping clips already
//! cut and never overwriting a file.
//!
//! Exit codes: 0 done (also when everything was already cut), 1 an
//! animation-only file matches no skeleton (nothing written) or the model
//! is malformed, 2 IO failure.

use std::path::PathBuf;
use std::process::ExitCode;

use zoa_anim_assets::AssetError;
use zoa_anim_assets::authoring::import::{ImportAction, import_model_with};

use super::Format;
use crate::output::fail;

/// Arguments of `zoa-anim import`.
#[derive(Debug, clap::Args)]
#[command(after_help = "Exit codes: 0 done, 1 no skeleton shares a bone name with an animation-only file \
(nothing written) or the model is malformed, 2 IO failure.")]
pub struct Args {
    /// The model file (`.glb` / `.gltf`).
    pub file: PathBuf,
    /// Folder for the clip definitions (default: next to the model).
    #[arg(long)]
    pub into: Option<PathBuf>,
    /// Folder tree searched for the skeleton of an animation-only file
    /// (default: the model's own folder; the search never goes above it).
    #[arg(long, value_name = "DIR")]
    pub skeletons: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
    /// Print only the summary line.
    #[arg(long, short)]
    pub quiet: bool,
}

/// Imports the file and reports each clip.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let report = match import_model_with(&args.file, args.into.as_deref(), args.skeletons.as_deref()) {
        Ok(r) => r,
        Err(e @ AssetError::NoMatchingSkeleton { .. }) => {
            return Err(fail(1, "invalid-input", format!("{e}; nothing written (import the character first)")).into());
        }
        Err(
            e @ (AssetError::Io { .. }
            | AssetError::NotAFile { .. }
            | AssetError::FileTooLarge { .. }
            | AssetError::OverBudget { .. }),
        ) => return Err(e.into()),
        Err(e) => {
            return Err(fail(1, "invalid-input", format!("{e}")).into());
        }
    };
    match args.format {
        Format::Json => {
            let clips: Vec<serde_json::Value> = report
                .clips
                .iter()
                .map(|c| {
                    let (action, existing) = match &c.action {
                        ImportAction::Written => ("written", None),
                        ImportAction::SkippedExists => ("skipped_exists", None),
                        ImportAction::SkippedAlreadyCut { existing } => {
                            ("skipped_already_cut", Some(existing.display().to_string()))
                        }
                    };
                    serde_json::json!({
                        "id": c.id, "animation": c.animation, "file": c.path.display().to_string(),
                        "loop": c.loop_hint, "action": action, "existing": existing,
                    })
                })
                .collect();
            let skeleton = report
                .skeleton
                .as_ref()
                .map(|m| serde_json::json!({ "model": m.model.display().to_string(), "shared_bones": m.shared_bones }));
            let out = serde_json::json!({
                "model": report.model.display().to_string(),
                "dir": report.dir.display().to_string(),
                "skeleton": skeleton,
                "clips": clips,
            });
            crate::output::json_document(serde_json::to_string_pretty(&out)?)?;
        }
        Format::Human => {
            if let Some(m) = &report.skeleton {
                outln!("animation-only file: matched to {} ({} shared bone names)", m.model.display(), m.shared_bones);
            }
            if !args.quiet {
                for c in &report.clips {
                    let what = match &c.action {
                        ImportAction::Written => "wrote".to_owned(),
                        ImportAction::SkippedExists => "exists, kept".to_owned(),
                        ImportAction::SkippedAlreadyCut { existing } => {
                            format!("already cut in {}", existing.display())
                        }
                    };
                    outln!("  {:<32} {:<28} {what}", c.id, c.animation);
                }
            }
            outln!("{} of {} clip(s) written to {}", report.written(), report.clips.len(), report.dir.display());
        }
    }
    Ok(ExitCode::SUCCESS)
}

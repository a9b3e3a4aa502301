//! `zoa-anim bake DEFS_DIR --out FILE`: checks a definition folder in full and
//! writes its character as one baked file (`docs/baked-format.md`): skeleton,
//! clips with keys reduced within the tolerance and rotations quantized, and
//! the definition sources, so a game loads it with
//! `zoa_animation::load_baked` without reading any glTF.
//!
//! The file is written all-or-nothing (a temporary sibling, then a rename)
//! and an existing one is replaced only with `--force`. The JSON document
//! is `{"file":F,"bytes":N,"clip_bytes":N,"keys_before":N,"keys_after":N,
//! "tolerance":{"translation_m":X,"rotation_degrees":X,"scale":X}}`.
//! Exit 1 when the folder has errors (every diagnostic printed), 2 for
//! usage and IO problems (`exists` when the file is there without `--force`).

use std::path::PathBuf;
use std::process::ExitCode;

use zoa_anim_assets::baked::{BakeStats, Tolerance};
use zoa_animation::{LoadError, Loader};

use super::Format;
use crate::output::{fail, fail_all};

/// Arguments of `zoa-anim bake`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The definition folder.
    dir: PathBuf,
    /// The baked file to write.
    #[arg(long)]
    out: PathBuf,
    /// Replace `--out` when it exists.
    #[arg(long)]
    force: bool,
    /// Model-space translation tolerance, millimetres (default 0.1).
    #[arg(long, default_value_t = 0.1)]
    tolerance_mm: f32,
    /// Rotation tolerance, degrees (default 0.01; tighter for joints with long hierarchies).
    #[arg(long, default_value_t = 0.01)]
    tolerance_degrees: f32,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    format: Format,
}

/// The JSON document.
#[derive(Debug, serde::Serialize)]
struct BakeOut<'a> {
    file: &'a str,
    #[serde(flatten)]
    stats: BakeStats,
    tolerance: ToleranceOut,
}

#[derive(Debug, serde::Serialize)]
struct ToleranceOut {
    translation_m: f32,
    rotation_degrees: f32,
    scale: f32,
}

/// Bakes the folder and writes the file.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let tolerance = Tolerance {
        translation: args.tolerance_mm / 1000.0,
        rotation_degrees: args.tolerance_degrees,
        ..Tolerance::default()
    };
    if !tolerance.is_valid() {
        return Err(fail(2, "usage", "--tolerance-mm and --tolerance-degrees must be finite and > 0").into());
    }
    if !args.force && zoa_anim_assets::files::occupied(&args.out) {
        return Err(zoa_anim_assets::AssetError::WouldOverwrite { path: args.out.clone() }.into());
    }
    let (bytes, stats) = match Loader::new().bake(&args.dir, &tolerance) {
        Ok(b) => b,
        Err(LoadError::Invalid { diagnostics, .. }) => {
            let lines = diagnostics
                .iter()
                .filter(|d| d.severity == zoa_anim_assets::defs::Severity::Error)
                .map(|d| format!("{}:{}:{}: {} {}", d.file.display(), d.line, d.column, d.code, d.message))
                .collect();
            return Err(fail_all(1, "invalid-input", lines).at(&args.dir).into());
        }
        Err(e) => return Err(fail(2, "io", e.to_string()).at(&args.dir).into()),
    };
    zoa_anim_assets::files::write_file(&args.out, &bytes, args.force)?;
    let file = args.out.display().to_string();
    match args.format {
        Format::Json => crate::output::json_document(serde_json::to_string(&BakeOut {
            file: &file,
            stats,
            tolerance: ToleranceOut {
                translation_m: tolerance.translation,
                rotation_degrees: tolerance.rotation_degrees,
                scale: tolerance.scale,
            },
        })?)?,
        Format::Human => outln!(
            "wrote {file}: {} bytes ({} of clips), {} keys of {} kept, within {} mm / {}°",
            stats.bytes,
            stats.clip_bytes,
            stats.keys_after,
            stats.keys_before,
            args.tolerance_mm,
            args.tolerance_degrees
        ),
    }
    Ok(ExitCode::SUCCESS)
}

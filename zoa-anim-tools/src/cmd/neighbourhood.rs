//! `zoa-anim neighbourhood MODEL`: the clips, sounds and definition files
//! around a model (its folder, Animations / Sounds / Audio subfolders and
//! same-named cousin folders). A pure scan: nothing is written.
//!
//! Exit codes: 0 done, 2 the model cannot be read.

use std::path::PathBuf;
use std::process::ExitCode;

use zoa_anim_assets::authoring::neighbourhood::{Place, RelatedClip, scan_neighbourhood};

use super::Format;

/// Arguments of `zoa-anim neighbourhood`.
#[derive(Debug, clap::Args)]
#[command(after_help = "Exit codes: 0 done, 2 the model cannot be read.")]
pub struct Args {
    /// The model file.
    pub model: PathBuf,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
    /// Also list the folders searched (human format).
    #[arg(long, short)]
    pub verbose: bool,
}

fn place(p: &Place) -> String {
    match p {
        Place::SameFolder => "same folder".into(),
        Place::Subfolder(n) => format!("subfolder {n}"),
        Place::Cousin(n) => format!("cousin {n}"),
    }
}

/// Scans and prints the neighbourhood.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let n = match scan_neighbourhood(&args.model) {
        Ok(n) => n,
        Err(e) => {
            return Err(e.into());
        }
    };
    match args.format {
        Format::Json => {
            let clips: Vec<serde_json::Value> = n
                .clips
                .iter()
                .map(|c| match c {
                    RelatedClip::Embedded { name } => serde_json::json!({"source": "embedded", "name": name}),
                    RelatedClip::InFile { file, name, shared_bones, place: p } => serde_json::json!({
                        "source": "file", "file": file.display().to_string(), "name": name,
                        "shared_bones": shared_bones, "place": place(p)}),
                    RelatedClip::Definition { file, id, place: p } => serde_json::json!({
                        "source": "definition", "file": file.display().to_string(), "id": id, "place": place(p)}),
                })
                .collect();
            let files = |v: &[zoa_anim_assets::authoring::neighbourhood::RelatedFile]| -> Vec<serde_json::Value> {
                v.iter()
                    .map(|f| serde_json::json!({"file": f.path.display().to_string(), "place": place(&f.place), "detail": f.detail}))
                    .collect()
            };
            let out = serde_json::json!({
                "model": n.model.display().to_string(),
                "searched": n.searched.iter().map(|(p, pl)| serde_json::json!({"folder": p.display().to_string(), "place": place(pl)})).collect::<Vec<_>>(),
                "clips": clips,
                "sounds": files(&n.sounds),
                "definitions": files(&n.definitions),
            });
            crate::output::json_document(serde_json::to_string_pretty(&out)?)?;
        }
        Format::Human => {
            if args.verbose {
                for (p, pl) in &n.searched {
                    outln!("searched {} ({})", p.display(), place(pl));
                }
            }
            outln!("clips:");
            for c in &n.clips {
                match c {
                    RelatedClip::Embedded { name } => outln!("  {name:<28} embedded"),
                    RelatedClip::InFile { file, name, shared_bones, place: p } => {
                        outln!("  {name:<28} {} ({}, {shared_bones} shared bones)", file.display(), place(p))
                    }
                    RelatedClip::Definition { file, id, place: p } => {
                        outln!("  {id:<28} clip definition {} ({})", file.display(), place(p))
                    }
                }
            }
            outln!("sounds:");
            for f in &n.sounds {
                outln!("  {} ({})", f.path.display(), place(&f.place));
            }
            outln!("definitions:");
            for f in &n.definitions {
                outln!("  {:<40} {} ({})", f.detail, f.path.display(), place(&f.place));
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

//! `zoa-anim schema [--out DIR]`: write the JSON Schemas of the definition
//! kinds (`zoa-definition.schema.json` for any definition file, plus one
//! `zoa-<kind>.schema.json` per kind) for Taplo / Even Better TOML.
//!
//! A file that already holds exactly the text to write is left alone; any
//! other existing file (a schema edited by hand, a folder, a symlink) is
//! refused without `--force`, before anything is written, and the files are
//! written all or nothing (temporary siblings, then renames).
//!
//! Exit codes: 0 written, 2 a target exists without `--force` or IO failure.

use std::path::PathBuf;
use std::process::ExitCode;

use zoa_anim_assets::authoring::schema::{schema_files, schema_text};

use super::Format;
use crate::output::fail;

/// Arguments of `zoa-anim schema`.
#[derive(Debug, clap::Args)]
#[command(after_help = "Exit codes: 0 written, 2 a target differs and --force was not given, or IO failure.\n\
Point Taplo at them with a `.taplo.toml` rule (include = [\"**/defs/**/*.toml\"], schema.path = \
\"schemas/zoa-definition.schema.json\") or start a file with `#:schema ./schemas/zoa-definition.schema.json`.")]
pub struct Args {
    /// Folder to write into (created when missing).
    #[arg(long, default_value = "schemas")]
    pub out: PathBuf,
    /// Replace schema files whose text differs (edited by hand, or older).
    #[arg(long)]
    pub force: bool,
    /// Output format of the list of written files.
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
    /// Print nothing on success.
    #[arg(long, short)]
    pub quiet: bool,
}

/// Writes every schema file (see the module docs for the overwrite rule).
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let mut written = Vec::new();
    let mut changed: Vec<(PathBuf, Vec<u8>)> = Vec::new();
    for (name, schema) in schema_files() {
        let path = args.out.join(name);
        let text = schema_text(&schema);
        // Unchanged text is not an overwrite: re-running is always fine.
        let same = std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_file())
            && zoa_anim_assets::files::read(&path, zoa_anim_assets::files::FileKind::Definition)
                .is_ok_and(|b| b == text.as_bytes());
        if !same {
            changed.push((path.clone(), text.into_bytes()));
        }
        written.push(path.display().to_string());
    }
    if !args.force {
        let occupied: Vec<String> = changed
            .iter()
            .filter(|(p, _)| zoa_anim_assets::files::occupied(p))
            .map(|(p, _)| format!("`{}`", p.display()))
            .collect();
        if let Some(first) = changed.iter().find(|(p, _)| zoa_anim_assets::files::occupied(p)) {
            return Err(fail(
                2,
                "exists",
                format!("would replace {} (their text differs; pass --force to replace them)", occupied.join(", ")),
            )
            .at(&first.0)
            .into());
        }
    }
    zoa_anim_assets::files::write_all_or_nothing(&changed, args.force)?;
    match args.format {
        Format::Json => crate::output::json_document(serde_json::json!({ "written": written }).to_string())?,
        Format::Human if !args.quiet => {
            for w in &written {
                outln!("wrote {w}");
            }
        }
        Format::Human => {}
    }
    Ok(ExitCode::SUCCESS)
}

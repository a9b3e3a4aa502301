//! `zoa-anim schema [--out DIR]`: write the JSON Schemas of the definition
//! kinds (`zoa-definition.schema.json` for any definition file, plus one
//! `zoa-<kind>.schema.json` per kind) for Taplo / Even Better TOML.
//!
//! Exit codes: 0 written, 2 IO failure.

use std::path::PathBuf;
use std::process::ExitCode;

use zoa_anim_assets::authoring::schema::{schema_files, schema_text};

use super::Format;
use crate::output::fail;

/// Arguments of `zoa-anim schema`.
#[derive(Debug, clap::Args)]
#[command(after_help = "Exit codes: 0 written, 2 IO failure.\n\
Point Taplo at them with a `.taplo.toml` rule (include = [\"**/defs/**/*.toml\"], schema.path = \
\"schemas/zoa-definition.schema.json\") or start a file with `#:schema ./schemas/zoa-definition.schema.json`.")]
pub struct Args {
    /// Folder to write into (created when missing).
    #[arg(long, default_value = "schemas")]
    pub out: PathBuf,
    /// Output format of the list of written files.
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
    /// Print nothing on success.
    #[arg(long, short)]
    pub quiet: bool,
}

/// Writes every schema file.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    if let Err(e) = std::fs::create_dir_all(&args.out) {
        return Err(fail(2, "io", format!("cannot create `{}`: {e}", args.out.display())).into());
    }
    let mut written = Vec::new();
    for (name, schema) in schema_files() {
        let path = args.out.join(name);
        let text = schema_text(&schema);
        if let Err(e) = std::fs::write(&path, text) {
            return Err(fail(2, "io", format!("cannot write `{}`: {e}", path.display())).into());
        }
        written.push(path.display().to_string());
    }
    match args.format {
        Format::Json => outln!("{}", serde_json::json!({ "written": written })),
        Format::Human if !args.quiet => {
            for w in &written {
                outln!("wrote {w}");
            }
        }
        Format::Human => {}
    }
    Ok(ExitCode::SUCCESS)
}

//! `zoa-anim validate DIR`: check a definition folder and print every
//! diagnostic (human: the source line with a caret; json: the contract shape).
//!
//! Exit codes: 0 no errors (warnings allowed), 1 errors, 2 usage or IO failure
//! (DIR missing or unreadable).

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use zoa_anim_assets::defs::{Code, load_folder, render_human, render_json};

use super::Format;

/// Arguments of `zoa-anim validate`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Definition folder (read recursively).
    pub dir: PathBuf,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
    /// Also report per animation profile the states that resolve only by fallback or to nothing, and rows
    /// that can never win (json: a `coverage` key). Does not change the exit code.
    #[arg(long)]
    pub coverage: bool,
}

/// Loads the folder, prints its diagnostics, exits 1 when any is an error.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    if !args.dir.is_dir() {
        eprintln!("error: `{}` is not a folder (or cannot be reached)", args.dir.display());
        return Ok(ExitCode::from(2));
    }
    let spinner = super::scan::spinner("validating");
    let set = load_folder(&args.dir);
    spinner.finish_and_clear();
    // The folder itself could not be listed: an IO failure, not bad input.
    if let Some(d) = set.diagnostics.iter().find(|d| d.code == Code::IoError.id() && d.file.as_os_str().is_empty()) {
        eprintln!("error: {}", d.message);
        return Ok(ExitCode::from(2));
    }
    let coverage = args.coverage.then(|| zoa_anim_assets::authoring::coverage(&set));
    match args.format {
        Format::Json => {
            let mut out = render_json(&set.diagnostics);
            if let Some(c) = &coverage {
                out["coverage"] = c.to_json();
            }
            println!("{}", serde_json::to_string_pretty(&out)?)
        }
        Format::Human => {
            print!("{}", render_human(&args.dir, &set.diagnostics, std::io::stdout().is_terminal()));
            if let Some(c) = &coverage {
                print!("{}", c.to_human());
            }
        }
    }
    Ok(if set.error_count() > 0 { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

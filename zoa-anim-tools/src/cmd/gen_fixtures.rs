//! `zoa-anim gen-fixtures`: writes the procedurally generated fixtures
//! (today `models/humanoid.glb`) below a fixtures folder, or checks that the
//! committed files equal a fresh generation.
//!
//! Regenerate after changing the generator:
//! `cargo run -p zoa-anim-tools -- gen-fixtures --force`.
//!
//! Exit codes: 0 written or already up to date; 1 `--check` found a
//! difference, or a differing file exists and `--force` was not given;
//! 2 IO failure.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;

use crate::fixturegen;

/// Arguments of `zoa-anim gen-fixtures`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Fixtures folder to write below (the file goes to `DIR/models/humanoid.glb`).
    /// Default: the `fixtures/` folder of the workspace this binary was built from.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Write nothing; exit 1 if a file is missing or differs from a fresh generation.
    #[arg(long, conflicts_with = "force")]
    check: bool,
    /// Overwrite files that differ from a fresh generation.
    #[arg(long)]
    force: bool,
}

/// The workspace's `fixtures/` folder.
pub fn default_fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join("fixtures")
}

/// Generates every fixture and writes, skips or checks each one.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let dir = args.out.unwrap_or_else(default_fixtures_dir);
    let dir = dir.canonicalize().unwrap_or(dir);
    let bytes = fixturegen::humanoid_glb().context("generating the humanoid")?;
    let path = dir.join(fixturegen::HUMANOID_FILE);
    let existing = match std::fs::read(&path) {
        Ok(b) => Some(b),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(e).with_context(|| format!("reading {}", path.display())),
    };
    let display = path.display();
    match (existing, args.check) {
        (Some(old), _) if old == bytes => {
            outln!("{display}: up to date ({} bytes)", bytes.len());
            Ok(ExitCode::SUCCESS)
        }
        (old, true) => {
            let what = if old.is_some() { "differs from" } else { "is missing; expected" };
            errln!(
                "{display}: {what} a fresh generation ({} bytes); regenerate with \
                 `cargo run -p zoa-anim-tools -- gen-fixtures --force`",
                bytes.len()
            );
            Ok(ExitCode::from(1))
        }
        (Some(_), false) if !args.force => {
            errln!("{display}: differs from a fresh generation; not overwritten (pass --force to replace it)");
            Ok(ExitCode::from(1))
        }
        (_, false) => {
            let parent = path.parent().unwrap_or(Path::new("."));
            std::fs::create_dir_all(parent).with_context(|| format!("creating {}", parent.display()))?;
            std::fs::write(&path, &bytes).with_context(|| format!("writing {display}"))?;
            outln!("{display}: written ({} bytes)", bytes.len());
            Ok(ExitCode::SUCCESS)
        }
    }
}

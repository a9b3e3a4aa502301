//! The crate's one error type.

use std::fmt;
use std::path::PathBuf;

use zoa_anim_assets::defs::{Diagnostic, Severity};

/// Why a definition folder did not become a character definition.
///
/// `Display` (and `Debug`, so that `.unwrap()` and `main` returning
/// `Result` print something a person can act on) is what `zoa-anim
/// validate` prints: every diagnostic of the folder with its file, line,
/// column, code and the offending source line.
#[derive(thiserror::Error)]
#[non_exhaustive]
pub enum LoadError {
    /// The folder does not exist (or is not a folder).
    #[error("definition folder `{}` does not exist (looked for `{}`)", folder.display(), resolved.display())]
    MissingFolder {
        /// The folder as given.
        folder: PathBuf,
        /// Where it was looked for (made absolute against the working directory).
        resolved: PathBuf,
    },
    /// The folder exists but cannot be listed.
    #[error("cannot read definition folder `{}`: {reason}", folder.display())]
    UnreadableFolder {
        /// The folder as given.
        folder: PathBuf,
        /// What the operating system said.
        reason: String,
    },
    /// A baked character file (`zoa-anim bake`) could not be read or does
    /// not make a character: truncated, corrupt, of another format version,
    /// or not a baked file at all.
    #[error("baked character file `{}`: {reason}", file.display())]
    Baked {
        /// The file as given.
        file: PathBuf,
        /// What is wrong.
        reason: String,
        /// The format problem, when the bytes are not a well-formed baked file.
        problem: Option<zoa_anim_assets::baked::BakedProblem>,
    },
    /// The folder has errors (or does not make a character): every
    /// diagnostic, errors and the warnings and notes around them.
    #[error("definition folder `{}` has {} error(s):\n{rendered}", folder.display(), errors(diagnostics))]
    Invalid {
        /// The folder as given.
        folder: PathBuf,
        /// Every diagnostic, sorted by file, line and column.
        diagnostics: Vec<Diagnostic>,
        /// The diagnostics as `zoa-anim validate` prints them.
        rendered: String,
    },
}

impl fmt::Debug for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl LoadError {
    /// The folder's diagnostics (empty for a missing or unreadable folder).
    #[must_use]
    pub fn diagnostics(&self) -> &[Diagnostic] {
        match self {
            LoadError::Invalid { diagnostics, .. } => diagnostics,
            _ => &[],
        }
    }
}

fn errors(diagnostics: &[Diagnostic]) -> usize {
    diagnostics.iter().filter(|d| d.severity == Severity::Error).count()
}

//! The crate's one error type.

use std::path::PathBuf;

use zoa_anim_assets::character::CharacterLoadProblem;
use zoa_anim_runtime::RuntimeError;

/// Why a definition folder did not become a character definition, or a
/// character could not be spawned. Each variant carries every problem found.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum ZoaBevyError {
    /// The folder's definitions have errors (each rendered as
    /// `file:line:column: code: message`).
    #[error("definition folder `{}` has {} error(s):\n{}", folder.display(), diagnostics.len(), diagnostics.join("\n"))]
    Definitions {
        /// The folder.
        folder: PathBuf,
        /// Every error diagnostic, rendered.
        diagnostics: Vec<String>,
    },
    /// The definitions are valid but do not make a character (models, clips).
    #[error("definition folder `{}` does not make a character:\n{}", folder.display(), join(problems))]
    Character {
        /// The folder.
        folder: PathBuf,
        /// Every problem.
        problems: Vec<CharacterLoadProblem>,
    },
    /// A `*.zoa.toml` manifest (the `asset` feature) could not be read.
    #[error("definition manifest `{}`:\n{}", path.display(), problems.join("\n"))]
    Manifest {
        /// The manifest's asset path.
        path: PathBuf,
        /// Every problem.
        problems: Vec<String>,
    },
    /// The runtime refused the bundle or the character (every set-up problem).
    #[error(transparent)]
    Runtime(#[from] RuntimeError),
}

impl ZoaBevyError {
    /// Every problem, rendered one per entry (the folder's diagnostics, the
    /// bundle's problems, or the runtime's error).
    #[must_use]
    pub fn diagnostics(&self) -> Vec<String> {
        match self {
            ZoaBevyError::Definitions { diagnostics, .. } => diagnostics.clone(),
            ZoaBevyError::Character { problems, .. } => problems.iter().map(ToString::to_string).collect(),
            ZoaBevyError::Manifest { problems, .. } => problems.clone(),
            ZoaBevyError::Runtime(e) => vec![e.to_string()],
        }
    }
}

fn join(problems: &[CharacterLoadProblem]) -> String {
    problems.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n")
}

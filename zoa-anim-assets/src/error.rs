//! The one error type of the assets crate.

use std::fmt;
use std::path::PathBuf;

use thiserror::Error;
use zoa_anim_core::CoreError;

/// Everything that can go wrong while turning files into core types.
///
/// Every variant names the file it is about; glTF problems also name the
/// offending element (`animation 1 "Walk" channel 3`, `accessor 17`, …) so a
/// message alone is enough to find the fault.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum AssetError {
    /// Reading a file (or a buffer it references) failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The path that could not be read.
        path: PathBuf,
        /// The underlying IO error.
        #[source]
        source: std::io::Error,
    },
    /// A path that should be a file is a FIFO, device, socket or folder
    /// (see [`crate::files`]); nothing was read from it.
    #[error("{}: is {what}, not a regular file", path.display())]
    NotAFile {
        /// The path.
        path: PathBuf,
        /// What it is (`a FIFO`, `a folder`, …).
        what: &'static str,
    },
    /// A file is larger than the cap of its kind (see [`crate::files`]); it was not read.
    #[error("{}: {kind} file of {size} bytes is over the {max}-byte limit; it is not read", path.display())]
    FileTooLarge {
        /// The path.
        path: PathBuf,
        /// The kind of file (`definition`, `model`, …).
        kind: &'static str,
        /// Its size (or the size asked for), bytes.
        size: u64,
        /// The cap, bytes.
        max: u64,
    },
    /// A text file is not valid UTF-8.
    #[error("{}: is not valid UTF-8 (first bad byte at offset {offset})", path.display())]
    NotUtf8 {
        /// The path.
        path: PathBuf,
        /// Byte offset of the first invalid sequence.
        offset: usize,
    },
    /// A write would replace an existing file and `force` was not given.
    #[error("{}: already exists; pass --force to overwrite it", path.display())]
    WouldOverwrite {
        /// The existing file.
        path: PathBuf,
    },
    /// A count a file or flag controls is over its documented budget; refused
    /// before anything that size was allocated.
    #[error("{what}: {count} is over the budget of {max}")]
    OverBudget {
        /// What is counted, with the file when there is one.
        what: String,
        /// The count asked for.
        count: u64,
        /// The budget.
        max: u64,
    },
    /// A glTF file is malformed or uses something the importer does not support.
    ///
    /// Carries every problem found by the check pass that failed (capped at
    /// [`MAX_REPORTED_PROBLEMS`]), not only the first.
    #[error("{}", GltfProblems { file, problems })]
    MalformedGltf {
        /// File name as given to the loader.
        file: String,
        /// One entry per problem, in document order; never empty.
        problems: Vec<GltfProblem>,
    },
    /// Data passed the glTF checks but a core type rejected it.
    #[error("{file}: {element}: {source}")]
    InvalidData {
        /// File name as given to the loader.
        file: String,
        /// The glTF element that produced the data (`skin 0 "Armature"`, …).
        element: String,
        /// The core validation error.
        #[source]
        source: CoreError,
    },
    /// An animation-only file shares no bone name with any candidate skeleton.
    #[error(
        "{file}: no candidate skeleton shares a bone name with the file's animated nodes \
         ({candidates} candidate(s) tried; first animated names: {sample})"
    )]
    NoMatchingSkeleton {
        /// File name as given to the loader.
        file: String,
        /// How many skeletons were offered.
        candidates: usize,
        /// A few of the file's names, comma separated, to help spot a naming mismatch.
        sample: String,
    },
    /// A baked character file ([`crate::baked`]) is truncated, corrupt or of
    /// another format version.
    #[error("{}: {problem}", path.display())]
    Baked {
        /// The file.
        path: PathBuf,
        /// What is wrong with it, and where.
        #[source]
        problem: crate::baked::BakedProblem,
    },
    /// An animation graph being built ([`crate::authoring::graph_builder`]) is inconsistent.
    #[error("animation graph `{graph}`: {reason}")]
    InvalidGraph {
        /// The graph id.
        graph: String,
        /// What is wrong (a missing state, a parameter redeclared with another type, …).
        reason: String,
    },
    /// A scene handed to the glTF writer ([`crate::export`]) cannot be written as valid glTF.
    #[error("glTF export: {element}: {reason}")]
    Export {
        /// The offending part of the scene (`clip 2 "walk" track 5`, `mesh`, …).
        element: String,
        /// What is wrong and what was expected.
        reason: String,
    },
}

/// Largest number of problems one [`AssetError::MalformedGltf`] carries; the
/// rest are counted, not stored, so hostile input cannot grow the report.
pub const MAX_REPORTED_PROBLEMS: usize = 64;

/// One problem found in a glTF file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GltfProblem {
    /// The offending element, e.g. `animation 1 "Walk" channel 3` or `GLB header`.
    pub element: String,
    /// What is wrong and, where it helps, what was expected.
    pub reason: String,
}

impl fmt::Display for GltfProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.element, self.reason)
    }
}

/// Display helper: one `file: element: reason` line per problem.
struct GltfProblems<'a> {
    file: &'a str,
    problems: &'a [GltfProblem],
}

impl fmt::Display for GltfProblems<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, p) in self.problems.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{}: {p}", self.file)?;
        }
        Ok(())
    }
}

impl AssetError {
    /// A malformed-glTF error with a single problem.
    pub(crate) fn gltf(file: &str, element: impl Into<String>, reason: impl Into<String>) -> AssetError {
        AssetError::MalformedGltf {
            file: file.to_owned(),
            problems: vec![GltfProblem { element: element.into(), reason: reason.into() }],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn malformed_gltf_prints_one_line_per_problem_with_the_file() {
        let err = AssetError::MalformedGltf {
            file: "Fox.glb".into(),
            problems: vec![
                GltfProblem { element: "accessor 3".into(), reason: "count is 0".into() },
                GltfProblem { element: "node 2 \"Hip\"".into(), reason: "is its own child".into() },
            ],
        };
        assert_eq!(err.to_string(), "Fox.glb: accessor 3: count is 0\nFox.glb: node 2 \"Hip\": is its own child");
    }
}

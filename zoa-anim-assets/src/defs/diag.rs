//! Diagnostics: what a folder load reports, and the per-file context that
//! turns byte offsets into 1-based line and column.

use std::fmt;
use std::ops::Range;
use std::path::{Path, PathBuf};

use super::codes::Code;

/// How bad a diagnostic is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Severity {
    /// The definition is wrong; `zoa-anim validate` exits 1.
    Error,
    /// Probably a mistake, but the folder still loads.
    Warning,
    /// A note; counted neither as an error nor as a warning.
    Info,
}

impl Severity {
    /// `error`, `warning` or `info`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One problem found while loading a definition folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// Error, warning or info (fixed per code, see [`super::codes`]).
    pub severity: Severity,
    /// Stable code (`E005`); see the table in [`super::codes`].
    pub code: &'static str,
    /// File, relative to the loaded folder (`/` separated on every platform).
    pub file: PathBuf,
    /// 1-based line of the offending value (1 when the file could not be read).
    pub line: usize,
    /// 1-based column, in characters, of the offending value.
    pub column: usize,
    /// Field path inside the definition (`entries[3].weight`); empty for whole-file problems.
    pub field: String,
    /// What is wrong and what was expected.
    pub message: String,
    /// Byte range of the offending text in the file (empty when unknown); for editors and rendering.
    pub span: Range<usize>,
}

impl Diagnostic {
    /// The code's kebab-case name (`unknown-field`).
    #[must_use]
    pub fn code_name(&self) -> &'static str {
        Code::from_id(self.code).map_or("unknown", |c| c.name())
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}: {}[{}]: ", slash_path(&self.file), self.line, self.column, self.severity, self.code)?;
        if !self.field.is_empty() {
            write!(f, "{}: ", self.field)?;
        }
        f.write_str(&self.message)
    }
}

/// `a/b.toml` with forward slashes whatever the platform.
pub(crate) fn slash_path(p: &Path) -> String {
    p.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/")
}

/// Where a value sits: file, position and field path. Cheap to clone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Location {
    pub file: PathBuf,
    pub line: usize,
    pub column: usize,
    pub span: Range<usize>,
    pub field: String,
}

impl Location {
    pub(crate) fn diagnostic(&self, code: Code, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: code.severity(),
            code: code.id(),
            file: self.file.clone(),
            line: self.line,
            column: self.column,
            field: self.field.clone(),
            message: message.into(),
            span: self.span.clone(),
        }
    }
}

/// One file being checked: its text, a line index and the diagnostics found so far.
///
/// Reporting is O(1) amortized per diagnostic, whatever the file holds: the
/// error count is kept as diagnostics are added, and character columns are
/// counted on from the previous position on the same line (a 4 MiB file on
/// one line with 100k problems stays linear).
pub(crate) struct FileCtx<'s> {
    pub rel: PathBuf,
    pub src: &'s str,
    line_starts: Vec<usize>,
    pub diags: Vec<Diagnostic>,
    errors: usize,
    /// (line index, byte offset, characters from the line start to it) of the last column computed.
    column_memo: std::cell::Cell<(usize, usize, usize)>,
}

impl<'s> FileCtx<'s> {
    pub(crate) fn new(rel: PathBuf, src: &'s str) -> Self {
        let mut line_starts = vec![0];
        line_starts.extend(src.match_indices('\n').map(|(i, _)| i + 1));
        FileCtx { rel, src, line_starts, diags: Vec::new(), errors: 0, column_memo: std::cell::Cell::new((0, 0, 0)) }
    }

    /// 1-based line and character column of byte `offset` (clamped to the text).
    pub(crate) fn line_col(&self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.src.len());
        let line = self.line_starts.partition_point(|&s| s <= offset) - 1;
        let start = self.line_starts[line];
        let mut end = offset;
        while !self.src.is_char_boundary(end) {
            end -= 1;
        }
        let (memo_line, memo_byte, memo_chars) = self.column_memo.get();
        let (from, chars) = if memo_line == line && memo_byte >= start && memo_byte <= end {
            (memo_byte, memo_chars)
        } else {
            (start, 0)
        };
        let chars = chars + self.src[from..end].chars().count();
        self.column_memo.set((line, end, chars));
        (line + 1, chars + 1)
    }

    pub(crate) fn at(&self, span: Range<usize>, field: &str) -> Location {
        let (line, column) = self.line_col(span.start);
        Location { file: self.rel.clone(), line, column, span, field: field.to_owned() }
    }

    pub(crate) fn report(&mut self, code: Code, span: Range<usize>, field: &str, message: impl Into<String>) {
        let d = self.at(span, field).diagnostic(code, message);
        if d.severity == Severity::Error {
            self.errors += 1;
        }
        self.diags.push(d);
    }

    /// Errors reported so far (O(1)).
    pub(crate) fn error_count(&self) -> usize {
        self.errors
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_and_column_are_one_based_in_characters() {
        let ctx = FileCtx::new("a.toml".into(), "ab\nçd = 1\n");
        assert_eq!(ctx.line_col(0), (1, 1));
        assert_eq!(ctx.line_col(1), (1, 2));
        assert_eq!(ctx.line_col(3), (2, 1));
        // `d` follows a two-byte character: byte 5, character column 2.
        assert_eq!(ctx.line_col(5), (2, 2));
        assert_eq!(ctx.line_col(999), (3, 1));
        // Going back on a line after a later position still counts from its start.
        assert_eq!(ctx.line_col(5), (2, 2));
        assert_eq!(ctx.line_col(3), (2, 1));
    }
}

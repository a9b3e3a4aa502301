//! Diagnostics as the page shows them: the `zoa-anim validate` JSON fields
//! plus where the offending text ends, so the editor can underline it.

use std::path::Path;

use serde_json::{Value, json};
use zoa_anim_assets::defs::{Diagnostic, Severity};

/// 1-based line and column (in characters) of byte `offset` of `text`.
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let start = before.rfind('\n').map_or(0, |i| i + 1);
    (line, before[start..].chars().count() + 1)
}

/// `a/b.toml` whatever the platform.
pub fn slash(p: &Path) -> String {
    p.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/")
}

/// One diagnostic; `text` is the file's text when known (for the end of the span).
pub fn diagnostic(d: &Diagnostic, text: Option<&str>) -> Value {
    let (end_line, end_column) = match text {
        Some(t) if d.span.end > d.span.start => line_col(t, d.span.end),
        _ => (d.line, d.column),
    };
    json!({
        "severity": d.severity.name(),
        "code": d.code,
        "name": d.code_name(),
        "file": slash(&d.file),
        "line": d.line,
        "column": d.column,
        "end_line": end_line,
        "end_column": end_column,
        "field": d.field,
        "message": d.message,
    })
}

/// Error and warning counts of a list.
pub fn counts<'a>(list: impl IntoIterator<Item = &'a Diagnostic>) -> (usize, usize) {
    list.into_iter().fold((0, 0), |(e, w), d| match d.severity {
        Severity::Error => (e + 1, w),
        Severity::Warning => (e, w + 1),
        Severity::Info => (e, w),
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn columns_count_characters() {
        let t = "ab\nçd = 1\n";
        assert_eq!(super::line_col(t, 0), (1, 1));
        assert_eq!(super::line_col(t, 3), (2, 1));
        assert_eq!(super::line_col(t, 5), (2, 2));
        assert_eq!(super::line_col(t, 4), (2, 1), "inside a character: its start");
        assert_eq!(super::line_col(t, 99), (3, 1));
    }
}

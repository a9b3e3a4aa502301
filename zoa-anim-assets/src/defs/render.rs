//! Output forms of a folder's diagnostics: human (the source line with a
//! caret, via `codespan-reporting`) and the JSON contract of `zoa-anim validate`.

use std::collections::HashMap;
use std::path::Path;

use codespan_reporting::diagnostic::{Diagnostic as CsDiagnostic, Label, Severity as CsSeverity};
use codespan_reporting::files::SimpleFiles;
use codespan_reporting::term::{self, Config, termcolor::Buffer};

use super::diag::{Diagnostic, Severity, slash_path};

/// Renders every diagnostic with its source line and a caret under the
/// offending value, then a summary line. Files are re-read from `dir`
/// (a file that cannot be read, or a whole-file problem, prints without a
/// snippet). `color` adds ANSI colours.
#[must_use]
pub fn render_human(dir: &Path, diagnostics: &[Diagnostic], color: bool) -> String {
    let mut files = SimpleFiles::new();
    let mut ids: HashMap<&Path, Option<usize>> = HashMap::new();
    let mut buffer = if color { Buffer::ansi() } else { Buffer::no_color() };
    let config = Config::default();
    for d in diagnostics {
        let id = *ids.entry(d.file.as_path()).or_insert_with(|| {
            let path = dir.join(&d.file);
            let text = crate::files::read_to_string(&path, crate::files::FileKind::Definition).ok();
            text.map(|t| files.add(slash_path(&d.file), t))
        });
        let severity = match d.severity {
            Severity::Error => CsSeverity::Error,
            Severity::Warning => CsSeverity::Warning,
            Severity::Info => CsSeverity::Note,
        };
        let mut cs = CsDiagnostic::new(severity).with_code(d.code).with_message(&d.message);
        let mut notes = Vec::new();
        if !d.field.is_empty() {
            notes.push(format!("field: {}", d.field));
        }
        match id {
            Some(id) => {
                let len = files.get(id).map(|f| f.source().len()).unwrap_or(0);
                let start = d.span.start.min(len);
                let end = d.span.end.clamp(start, len);
                cs = cs.with_label(Label::primary(id, start..end).with_message(d.code_name()));
            }
            _ if d.file.as_os_str().is_empty() => notes.push("in the definition folder".to_owned()),
            _ => notes.push(format!("in {}:{}:{}", slash_path(&d.file), d.line, d.column)),
        }
        cs = cs.with_notes(notes);
        if term::emit(&mut buffer, &config, &files, &cs).is_err() {
            // The file changed under us; fall back to the one-line form.
            buffer = append_line(buffer, &format!("{d}\n"));
        }
    }
    let errors = diagnostics.iter().filter(|d| d.severity == Severity::Error).count();
    let warnings = diagnostics.iter().filter(|d| d.severity == Severity::Warning).count();
    let mut out = String::from_utf8_lossy(buffer.as_slice()).into_owned();
    out.push_str(&format!("{errors} error(s), {warnings} warning(s)\n"));
    out
}

fn append_line(mut buffer: Buffer, line: &str) -> Buffer {
    use std::io::Write;
    let _ = buffer.write_all(line.as_bytes());
    buffer
}

/// The JSON contract: `{"errors":N,"warnings":N,"diagnostics":[{"severity",
/// "code","file","line","column","field","message"}]}`.
#[must_use]
pub fn render_json(diagnostics: &[Diagnostic]) -> serde_json::Value {
    let errors = diagnostics.iter().filter(|d| d.severity == Severity::Error).count();
    let warnings = diagnostics.iter().filter(|d| d.severity == Severity::Warning).count();
    let list: Vec<serde_json::Value> = diagnostics
        .iter()
        .map(|d| {
            serde_json::json!({
                "severity": d.severity.name(),
                "code": d.code,
                "file": slash_path(&d.file),
                "line": d.line,
                "column": d.column,
                "field": d.field,
                "message": d.message,
            })
        })
        .collect();
    serde_json::json!({ "errors": errors, "warnings": warnings, "diagnostics": list })
}

//! Everything the binary prints goes through here, and every failure ends here.
//!
//! - `outln!` / `out!` write to stdout and return an error instead of
//!   panicking when stdout is closed or full; `errln!` writes to stderr and
//!   ignores a closed stderr.
//! - A command fails with [`fail`] (an exit code, a stable machine code, a
//!   message, optionally the path it is about) or with any other error
//!   (exit 2, code from the error's kind).
//! - In JSON mode a command hands its one document to [`json_document`]
//!   instead of printing it; [`finish`] prints it when the command ends
//!   without an error, and prints the error document instead when it fails,
//!   so every JSON-mode run prints exactly one JSON document on stdout,
//!   success or error (a failure after the report, such as a write refused
//!   after `autobind` ranked, replaces the report).
//! - [`finish`] turns the result into the exit code. In JSON mode (`--format
//!   json`, or a command whose output is JSON by default: `sound render`), a
//!   failure is printed on stdout as `{"error":{"code":…,"message":…,"path":…}}`
//!   (`path` only when the failure is about one file) — a contract for outside
//!   scripts — and as an `error:` line on stderr. A closed stdout (broken pipe)
//!   ends the program quietly with exit 0; any other stdout write error exits 2.
//!   An error's chain is printed once: a cause whose text its parent already
//!   contains (an IO error inside "path: IO error") is not repeated.
//!
//! Machine codes: `usage` (a flag or argument value is refused), `io` (a file
//! cannot be read or written, is not a regular file or is too large),
//! `exists` (an output exists and `--force` was not given), `not-found` (an
//! id names nothing), `invalid-input` (the input has errors), `over-budget`
//! (a count over its documented budget), `failed` (anything else).

use std::fmt;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use zoa_anim_assets::AssetError;

/// Writes formatted text to stdout (see the module docs).
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::output::write_stdout(format_args!($($arg)*))?
    };
}

/// Writes a line to stdout (see the module docs).
macro_rules! outln {
    () => {
        $crate::output::write_stdout(format_args!("\n"))?
    };
    ($($arg:tt)*) => {
        $crate::output::write_stdout(format_args!("{}\n", format_args!($($arg)*)))?
    };
}

/// Writes a line to stderr; a closed stderr is ignored.
macro_rules! errln {
    ($($arg:tt)*) => {
        $crate::output::write_stderr(format_args!("{}\n", format_args!($($arg)*)))
    };
}

/// The JSON document of this run, printed by [`finish`] (see the module docs).
static DOCUMENT: std::sync::Mutex<Option<String>> = std::sync::Mutex::new(None);

/// Hands the run's one JSON document to [`finish`] (see the module docs).
///
/// # Errors
/// When the run already has a document (two would not parse as one).
pub fn json_document(text: String) -> anyhow::Result<()> {
    let mut slot = DOCUMENT.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    if slot.is_some() {
        anyhow::bail!("internal error: a second JSON document in one run");
    }
    *slot = Some(text);
    Ok(())
}

fn take_document() -> Option<String> {
    DOCUMENT.lock().unwrap_or_else(std::sync::PoisonError::into_inner).take()
}

/// Writing to stdout failed (closed pipe, full disk).
#[derive(Debug)]
pub struct StdoutError(pub std::io::Error);

impl fmt::Display for StdoutError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cannot write the output: {}", self.0)
    }
}

impl std::error::Error for StdoutError {}

/// Writes to stdout, mapping a failure to [`StdoutError`].
pub fn write_stdout(args: fmt::Arguments<'_>) -> anyhow::Result<()> {
    std::io::stdout().lock().write_fmt(args).map_err(|e| anyhow::Error::new(StdoutError(e)))
}

/// Writes to stderr, ignoring failures (there is nowhere left to report them).
pub fn write_stderr(args: fmt::Arguments<'_>) {
    let _ = std::io::stderr().lock().write_fmt(args);
}

/// A failure with its exit code and machine code.
#[derive(Debug)]
pub struct Failure {
    /// Process exit code (1 the input has errors, 2 usage or IO).
    pub exit: u8,
    /// Machine code (see the module docs).
    pub code: &'static str,
    /// One-line message.
    pub message: String,
    /// The file the failure is about, if one.
    pub path: Option<PathBuf>,
    /// Further lines (every problem of an input), printed after the message.
    pub details: Vec<String>,
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Failure {}

impl Failure {
    /// The file the failure is about.
    pub fn at(mut self, path: impl Into<PathBuf>) -> Self {
        self.path = Some(path.into());
        self
    }
    /// Every problem, each printed on its own line.
    pub fn details(mut self, details: Vec<String>) -> Self {
        self.details = details;
        self
    }
}

/// A failure (anyhow converts it with `?` or `.into()`).
pub fn fail(exit: u8, code: &'static str, message: impl Into<String>) -> Failure {
    Failure { exit, code, message: message.into(), path: None, details: Vec::new() }
}

/// A failure listing every problem: the first is the message, each of the
/// others its own `error:` line.
pub fn fail_all(exit: u8, code: &'static str, problems: Vec<String>) -> Failure {
    let mut it = problems.into_iter();
    let first = it.next().unwrap_or_else(|| "failed".to_owned());
    fail(exit, code, first).details(it.map(|p| format!("error: {p}")).collect())
}

/// The error chain as one line, each cause once (a cause whose text is
/// already part of the line is left out).
pub fn message(err: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in err.chain() {
        let part = cause.to_string();
        if part.is_empty() || text.contains(&part) {
            continue;
        }
        if !text.is_empty() {
            text.push_str(": ");
        }
        text.push_str(&part);
    }
    text
}

/// Exit code, machine code and path of an error that is not a [`Failure`].
fn classify(err: &anyhow::Error) -> (u8, &'static str, Option<PathBuf>) {
    for cause in err.chain() {
        if let Some(a) = cause.downcast_ref::<AssetError>() {
            return match a {
                AssetError::Io { path, .. } | AssetError::NotAFile { path, .. } | AssetError::NotUtf8 { path, .. } => {
                    (2, "io", Some(path.clone()))
                }
                AssetError::FileTooLarge { path, .. } => (2, "io", Some(path.clone())),
                AssetError::WouldOverwrite { path } => (2, "exists", Some(path.clone())),
                AssetError::OverBudget { .. } => (2, "over-budget", None),
                // A file that is not a valid model: the failure is about that file.
                AssetError::MalformedGltf { file, .. }
                | AssetError::InvalidData { file, .. }
                | AssetError::NoMatchingSkeleton { file, .. } => (2, "invalid-input", Some(PathBuf::from(file))),
                _ => (2, "invalid-input", None),
            };
        }
        if cause.downcast_ref::<std::io::Error>().is_some() {
            return (2, "io", None);
        }
    }
    (2, "failed", None)
}

/// Prints a usage error from the argument parser (JSON on stdout when the
/// command line asked for `--format json`) and returns its exit code.
pub fn usage_error(err: clap::Error, json: bool) -> ExitCode {
    use clap::error::ErrorKind;
    if matches!(
        err.kind(),
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        let _ = err.print();
        return ExitCode::from(if err.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand { 2 } else { 0 });
    }
    if json {
        let text = err.to_string();
        let first = text.lines().next().unwrap_or_default().trim_start_matches("error: ").to_owned();
        print_json_error("usage", &first, None);
    }
    let _ = err.print();
    ExitCode::from(2)
}

fn print_json_error(code: &str, message: &str, path: Option<&PathBuf>) {
    let mut error = serde_json::json!({ "code": code, "message": message });
    if let Some(p) = path {
        error["path"] = p.display().to_string().into();
    }
    let _ = writeln!(std::io::stdout().lock(), "{}", serde_json::json!({ "error": error }));
}

/// Subcommands whose output is JSON unless `--format human` is given.
const JSON_BY_DEFAULT: [[&str; 2]; 1] = [["sound", "render"]];

/// Whether the raw command line runs in JSON mode: it asks for `--format
/// json`, or names a command whose output is JSON by default
/// ([`JSON_BY_DEFAULT`]) without asking for `--format human`.
pub fn wants_json(args: &[std::ffi::OsString]) -> bool {
    let format = |value: &str| {
        let eq = format!("--format={value}");
        args.iter()
            .enumerate()
            .any(|(i, a)| *a == *eq || (a == "--format" && args.get(i + 1).is_some_and(|v| v == value)))
    };
    if format("json") {
        return true;
    }
    let words: Vec<&std::ffi::OsStr> =
        args.iter().skip(1).map(|a| a.as_os_str()).filter(|a| !a.to_string_lossy().starts_with('-')).collect();
    JSON_BY_DEFAULT.iter().any(|cmd| words.len() >= 2 && words[0] == cmd[0] && words[1] == cmd[1]) && !format("human")
}

/// The exit code of a command's result (see the module docs).
pub fn finish(result: anyhow::Result<ExitCode>, json: bool) -> ExitCode {
    // The run's JSON document is printed only when the run did not fail.
    let document = take_document();
    let result = result.and_then(|code| {
        let mut out = std::io::stdout().lock();
        if let Some(doc) = document {
            writeln!(out, "{doc}").map_err(|e| anyhow::Error::new(StdoutError(e)))?;
        }
        out.flush().map_err(|e| anyhow::Error::new(StdoutError(e)))?;
        Ok(code)
    });
    let err = match result {
        Ok(code) => return code,
        Err(err) => err,
    };
    if let Some(StdoutError(e)) = err.chain().find_map(|c| c.downcast_ref::<StdoutError>()) {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            return ExitCode::SUCCESS;
        }
        errln!("error: cannot write the output: {e}");
        return ExitCode::from(2);
    }
    let (exit, code, path, details) = match err.chain().find_map(|c| c.downcast_ref::<Failure>()) {
        Some(f) => (f.exit, f.code, f.path.clone(), f.details.clone()),
        None => {
            let (exit, code, path) = classify(&err);
            (exit, code, path, Vec::new())
        }
    };
    let text = message(&err);
    errln!("error: {text}");
    for d in &details {
        errln!("{d}");
    }
    if json {
        let full = if details.is_empty() { text } else { format!("{text}\n{}", details.join("\n")) };
        print_json_error(code, &full, path.as_ref());
    }
    ExitCode::from(exit)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn io_errors_name_the_file_once() {
        let source = std::io::Error::from(std::io::ErrorKind::NotFound);
        let err = anyhow::Error::new(AssetError::Io { path: "x.glb".into(), source });
        let text = message(&err);
        assert_eq!(text.matches("entity not found").count(), 1, "{text}");
        assert!(text.starts_with("x.glb: "), "{text}");
        assert_eq!(classify(&err), (2, "io", Some(PathBuf::from("x.glb"))));
    }

    #[test]
    fn context_is_kept_and_causes_are_not_repeated() {
        let err = anyhow::Error::new(std::io::Error::other("disk full")).context("writing `a.json`");
        assert_eq!(message(&err), "writing `a.json`: disk full");
    }

    #[test]
    fn json_is_recognised_in_both_spellings() {
        let args = |v: &[&str]| v.iter().map(std::ffi::OsString::from).collect::<Vec<_>>();
        assert!(wants_json(&args(&["zoa-anim", "tags", "--format", "json"])));
        assert!(wants_json(&args(&["zoa-anim", "tags", "--format=json"])));
        assert!(!wants_json(&args(&["zoa-anim", "tags", "--format", "human"])));
        // `sound render` prints JSON unless told otherwise.
        assert!(wants_json(&args(&["zoa-anim", "sound", "render", "--defs", "d"])));
        assert!(!wants_json(&args(&["zoa-anim", "sound", "render", "--format", "human"])));
        assert!(!wants_json(&args(&["zoa-anim", "sound", "resolve", "--defs", "d"])));
    }
}

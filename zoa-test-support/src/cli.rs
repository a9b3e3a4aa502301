//! Running the `zoa-anim` binary from a test and reading what it printed.
//!
//! Cargo tells only the binary's own crate where the binary is
//! (`env!("CARGO_BIN_EXE_zoa-anim")`), so the helpers take its path:
//!
//! ```ignore
//! use zoa_test_support::cli;
//!
//! fn zoa(args: &[&str]) -> std::process::Output {
//!     cli::run(env!("CARGO_BIN_EXE_zoa-anim"), args)
//! }
//!
//! let out = zoa(&["validate", "fixtures/defs/humanoid", "--format", "json"]);
//! let report = cli::stdout_json(&out);
//! ```

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

/// Runs `bin` with `args` in the current folder and waits for it.
///
/// # Panics
/// When the binary cannot be started.
#[must_use]
pub fn run(bin: &str, args: &[&str]) -> Output {
    Command::new(bin).args(args).output().unwrap_or_else(|e| panic!("run {bin}: {e}"))
}

/// Runs `bin` with `args` in the folder `dir` and waits for it.
///
/// # Panics
/// When the binary cannot be started.
#[must_use]
pub fn run_in(bin: &str, dir: &Path, args: &[&str]) -> Output {
    Command::new(bin).current_dir(dir).args(args).output().unwrap_or_else(|e| panic!("run {bin}: {e}"))
}

/// Standard output parsed as JSON.
///
/// # Panics
/// When it is not JSON; the message shows both output streams.
#[must_use]
pub fn stdout_json(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not JSON ({e}):\n{}\nstderr:\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

/// Standard output as text (lossy UTF-8).
#[must_use]
pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Standard error as text (lossy UTF-8).
#[must_use]
pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The keys of a JSON object, sorted.
///
/// # Panics
/// When `v` is not an object.
#[must_use]
pub fn keys(v: &Value) -> Vec<&str> {
    let mut k: Vec<&str> = v.as_object().expect("a JSON object").keys().map(String::as_str).collect();
    k.sort_unstable();
    k
}

/// A path as `&str`, for argument lists.
///
/// # Panics
/// When the path is not UTF-8.
#[must_use]
pub fn arg(p: &Path) -> &str {
    p.to_str().expect("a UTF-8 path")
}

//! The library half of `zoa-anim-tools`: everything the `zoa-anim` command
//! line and the Workbench server share, so that neither reaches into the
//! other.
//!
//! - [`cmd`]: one module per subcommand (`Args` + `run`), called by the binary.
//! - [`serve`]: the Workbench (`zoa-anim serve`): an HTTP server whose
//!   handlers call the same library functions as the commands.
//! - [`preview`]: the preview simulator (the Preview Lab and `zoa-anim
//!   preview`), a client of the runtime's public character API.
//! - [`capture_export`]: a preview capture as JSON, CSV and PNG charts.
//! - [`reports`]: JSON shapes shared by a command and an endpoint.
//! - [`fixturegen`]: the generated fixture model.
//! - [`output`]: printing and the failure contract (exit codes, JSON errors).
//!
//! `anyhow` is used only in this crate.

#![cfg_attr(not(test), warn(clippy::too_many_lines))]

#[macro_use]
pub mod output;

pub mod alloc_meter;
pub mod capture_export;
pub mod cmd;
pub mod fixturegen;
pub mod preview;
pub mod reports;
pub mod serve;

#[cfg(test)]
mod tests {
    /// The Workbench shares library modules with the commands and never
    /// calls into a command's module (whose `run` prints and exits).
    #[test]
    fn the_server_does_not_reach_into_the_commands() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/serve");
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path).unwrap();
                assert!(!text.contains("crate::cmd"), "{} calls into cmd/", path.display());
            }
        }
    }
}

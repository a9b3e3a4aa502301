//! Authoring tools: the editor features (scan, import, auto-binding, graph
//! building, schemas, templates) as library APIs the `zoa-anim` command line (or an editor) calls.
//!
//! - [`scan`]: clip library scanner over folders of glTF files, cached per root set.
//! - [`import`]: cuts every embedded animation into a `clip` definition file.
//! - [`autobind`]: ranks clips against the canonical slots with weak signals.
//! - [`skeletons`]: groups scanned files by skeleton (shared bone names), so one set never mixes characters.
//! - [`write`]: turns an auto-bind result into `player_profile_set` / `binding_profile` TOML.
//! - [`neighbourhood`]: what sits around a model file (clips, sounds, definitions).
//! - [`graph_builder`]: idempotent animation-graph builder, TOML writer, locomotion + weapon generator.
//! - [`schema`]: JSON Schemas of the definition kinds, for editor validation.
//! - [`coverage`]: which states of an animation profile resolve only by fallback, or to nothing.
//! - [`cross_modal`]: per semantic event and slot, which weapon classes lack a clip or a sound.
//!
//! **Key design decision:** every tool turns files into data and data into
//! TOML text, and every TOML it writes is checked by the same
//! [`crate::defs::load_folder`] users run, so generated files are never a
//! second dialect. Writers never overwrite a file unless told to (`force`).

pub mod autobind;
pub mod coverage;
pub mod cross_modal;
pub mod graph_builder;
pub mod import;
pub mod neighbourhood;

pub mod scan;
pub mod schema;
pub mod skeletons;
pub mod write;

pub mod tokens;

pub use coverage::{CoverageReport, coverage};
pub use scan::{ScanCache, ScanReport, ScannedClip, ScannedFile, scan_roots};

//! # zoa-anim-assets
//!
//! Turns files into `zoa-anim-core` types: glTF 2.0 skeletons and clips, and
//! folders of TOML definitions with diagnostics that name file, line, column
//! and field.
//!
//! **Key design decision:** the raw forms (serde structs, glTF JSON) never
//! leave this crate. Loading is check-then-convert (the ozz `Raw*` → builder
//! pattern): every file is checked in full and every problem reported at
//! once, and only data that passed becomes a validated core type.

#![deny(missing_docs)]
#![warn(clippy::must_use_candidate)]
#![cfg_attr(not(test), warn(clippy::too_many_lines))]

pub mod authoring;
pub mod baked;
pub mod character;
pub mod defs;
mod error;
pub mod export;
pub mod files;
pub mod gltf;
pub mod mix;
pub mod sound_script;

pub use error::{AssetError, GltfProblem, MAX_REPORTED_PROBLEMS};

//! `zoa-anim`: the command line that ties the ZOA crates together.
//!
//! Each subcommand lives in the library's `cmd` module (one module per
//! subcommand, with an `Args` struct and a `run(args) ->
//! anyhow::Result<ExitCode>` function); this file parses the command line
//! and dispatches.
//!
//! Exit codes (a contract for outside scripts): 0 success (warnings allowed),
//! 1 the input has errors, 2 usage or IO failure. With `--format json` a
//! failure also prints `{"error":{"code","message","path"?}}` on stdout; a
//! closed stdout ends the program quietly (exit 0 on a broken pipe, 2 on any
//! other write error). See `output.rs`.

#![cfg_attr(not(test), warn(clippy::too_many_lines))]

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use zoa_anim_tools::{cmd, output, serve};

/// Counts live heap bytes for `bench`'s `bytes_per_character` (see `alloc_meter`).
#[global_allocator]
static ALLOCATOR: zoa_anim_tools::alloc_meter::Meter = zoa_anim_tools::alloc_meter::Meter;

/// Drive skeletal animation and sound by meaning: validate definition folders,
/// inspect glTF files, resolve clip tables.
#[derive(Debug, Parser)]
#[command(name = "zoa-anim", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// List the state-tag vocabulary (dimensions, flags, relax order).
    Tags(cmd::tags::Args),
    /// Show a glTF file's skins (joint trees) and clips (duration, channels).
    Inspect(cmd::inspect::Args),
    /// Check a definition folder and print every diagnostic.
    Validate(cmd::validate::Args),
    /// Resolve an animation profile's flattened clip table for a state, and explain the walk.
    Resolve(cmd::resolve::Args),
    /// Regenerate (or check) the procedurally generated fixtures (fixtures/models/humanoid.glb).
    GenFixtures(cmd::gen_fixtures::Args),
    /// Sound profiles: resolve an event, render a scripted sequence offline, generate sound fixtures.
    Sound(cmd::sound::Args),
    /// Local joint transforms after sampling one clip, or blending the layers of a TOML mix file.
    Pose(cmd::pose::Args),
    /// Time the runtime on a crowd of characters playing the file's clips.
    Bench(cmd::bench::Args),
    /// Write a definition folder's character as one baked file (reduced, quantized clips; no glTF to read).
    Bake(cmd::bake::Args),
    /// IK bone discovery: which bone plays which role, which rig-policy behaviours can run.
    Ik(cmd::ik::Args),
    /// Play a preview preset on the model; write the capture (JSON, CSV) and timeline and stick-figure PNGs.
    Preview(cmd::preview::Args),
    /// List every clip embedded in the glTF files under one or more folders (cached).
    Scan(cmd::scan::Args),
    /// Cut every animation of a model into `clip` definition files.
    Import(cmd::import::Args),
    /// Rank clips against the canonical slots and write a player profile set.
    Autobind(cmd::autobind::Args),
    /// List the clips, sounds and definitions around a model file.
    Neighbourhood(cmd::neighbourhood::Args),
    /// Generate a locomotion + weapon animation graph from a player profile set.
    Graph(cmd::graph::Args),
    /// Write the JSON Schemas of the definition kinds (for Taplo / Even Better TOML).
    Schema(cmd::schema::Args),
    /// The Workbench: a local web app to author, validate, bind and preview a definition folder.
    Serve(serve::Args),
}

fn main() -> ExitCode {
    let raw: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let json = output::wants_json(&raw);
    let cli = match Cli::try_parse_from(&raw) {
        Ok(cli) => cli,
        Err(e) => return output::usage_error(e, json),
    };
    let result = match cli.command {
        Command::Tags(args) => cmd::tags::run(args),
        Command::Inspect(args) => cmd::inspect::run(args),
        Command::Validate(args) => cmd::validate::run(args),
        Command::Resolve(args) => cmd::resolve::run(args),
        Command::GenFixtures(args) => cmd::gen_fixtures::run(args),
        Command::Sound(args) => cmd::sound::run(args),
        Command::Pose(args) => cmd::pose::run(args),
        Command::Bench(args) => cmd::bench::run(args),
        Command::Bake(args) => cmd::bake::run(args),
        Command::Ik(args) => cmd::ik::run(args),
        Command::Preview(args) => cmd::preview::run(args),
        Command::Scan(args) => cmd::scan::run(args),
        Command::Import(args) => cmd::import::run(args),
        Command::Autobind(args) => cmd::autobind::run(args),
        Command::Neighbourhood(args) => cmd::neighbourhood::run(args),
        Command::Graph(args) => cmd::graph::run(args),
        Command::Schema(args) => cmd::schema::run(args),
        Command::Serve(args) => serve::run(args),
    };
    output::finish(result, json)
}

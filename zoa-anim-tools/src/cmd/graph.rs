//! `zoa-anim graph`: generates a locomotion + weapon animation graph from a
//! player profile set. The graph comes from `authoring::graph_builder`, the same
//! idempotent builder API generators use in code.
//!
//! `--model` is a path like every other path on the command line (relative to
//! the working directory, or absolute); the TOML gets it relative to the file
//! it is written to (`--out`'s folder; the `--defs` folder when printing), as
//! `validate` reads a graph's `model`. A path that already names the model
//! from the output's folder (and not from the working directory) is kept as
//! given. A model found in neither place is an error: the graph would fail
//! `validate` with E014.
//!
//! Exit codes: 0 done, 1 the folder or the set cannot make a graph or the
//! model does not exist, 2 usage or IO failure (including an existing `--out`
//! file without `--force`).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use zoa_anim_assets::authoring::graph_builder::{graph_toml, locomotion_weapon_graph};
use zoa_anim_assets::authoring::import::relative_path;
use zoa_anim_assets::defs::load_folder;

use super::Format;
use crate::output::fail;

/// Arguments of `zoa-anim graph`.
#[derive(Debug, clap::Args)]
#[command(after_help = "Exit codes: 0 done, 1 no graph can be made from the set, 2 usage or IO failure.")]
pub struct Args {
    /// Definition folder holding the player profile set and its binding profiles.
    #[arg(long)]
    pub defs: PathBuf,
    /// Id of the `player_profile_set` to build from.
    #[arg(long)]
    pub set: String,
    /// Id of the generated `animation_graph` (lowercase letters, digits, `_`, dotted segments).
    #[arg(long, default_value = "generated_graph", value_parser = parse_id)]
    pub id: String,
    /// The graph's model file (relative to the working directory; written relative to the definition file).
    #[arg(long, value_parser = parse_model)]
    pub model: String,
    /// Write the graph TOML here (default: print it to stdout).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Overwrite `--out` if it exists.
    #[arg(long)]
    pub force: bool,
    /// Output format of the summary (`json` prints a summary instead of the TOML when `--out` is absent).
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

/// `--id`: the definition id syntax `validate` checks.
fn parse_id(s: &str) -> Result<String, String> {
    zoa_anim_core::ids::check_id_syntax(s).map(|()| s.to_owned()).map_err(|reason| format!("not a valid id: {reason}"))
}

/// `--model`: a path, as `validate` requires of a graph's `model` (a
/// non-empty string; a blank one names no file either).
fn parse_model(s: &str) -> Result<String, String> {
    if s.trim().is_empty() {
        return Err("the graph's model path must not be empty".to_owned());
    }
    Ok(s.to_owned())
}

/// The graph's `model` as the definition file in folder `home` must write
/// it: `given` relative to the working directory (or absolute) made relative
/// to `home`, or `given` unchanged when only `home` resolves it.
fn model_path_from(home: &Path, given: &str) -> Result<String, String> {
    let path = Path::new(given);
    if path.is_file() {
        return Ok(relative_path(home, path));
    }
    if path.is_relative() && home.join(path).is_file() {
        return Ok(given.to_owned());
    }
    Err(format!(
        "model `{given}` is not a file (looked relative to the working directory and to `{}`, where the graph goes)",
        home.display()
    ))
}

/// Builds the graph and prints or writes it.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    if !args.defs.is_dir() {
        anyhow::bail!("definition folder `{}` does not exist", args.defs.display());
    }
    let home = match &args.out {
        Some(out) => out.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new(".")).to_path_buf(),
        None => args.defs.clone(),
    };
    let model = match model_path_from(&home, &args.model) {
        Ok(m) => m,
        Err(reason) => return Err(fail(1, "missing-file", reason).into()),
    };
    let defs = load_folder(&args.defs);
    let graph = match locomotion_weapon_graph(&defs, &args.set, &args.id, &model) {
        Ok(g) => g,
        Err(e) => {
            return Err(fail(1, "invalid-input", format!("{e}")).into());
        }
    };
    let text = graph_toml(&graph, &model);
    if let Some(out) = &args.out {
        zoa_anim_assets::files::write_file(out, text.as_bytes(), args.force)?;
    }
    match args.format {
        Format::Json => {
            let summary = serde_json::json!({
                "graph": graph.id,
                "layers": graph.layers.len(),
                "states": graph.states.len(),
                "parameters": graph.parameters.len(),
                "transitions": graph.transitions.len(),
                "model": model,
                "written": args.out.as_ref().map(|p| p.display().to_string()),
            });
            crate::output::json_document(serde_json::to_string_pretty(&summary)?)?;
        }
        Format::Human => match &args.out {
            Some(out) => outln!(
                "wrote {} ({} layers, {} states, {} transitions)",
                out.display(),
                graph.layers.len(),
                graph.states.len(),
                graph.transitions.len()
            ),
            None => out!("{text}"),
        },
    }
    Ok(ExitCode::SUCCESS)
}

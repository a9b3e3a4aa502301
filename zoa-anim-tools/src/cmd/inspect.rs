//! `zoa-anim inspect FILE`: what the glTF importer sees in a file — each
//! skin's joint tree and each animation's name, duration and channel count.
//!
//! The JSON shape is a contract for outside scripts:
//! `{"file":…,"skins":[{"index":N,"name":…|null,"joints":[{"node":N,"name":…|null,"parent":J|null}]}],
//! "clips":[{"index":N,"name":…|null,"duration":S,"channels":N}]}` where `parent`
//! indexes the same `joints` array and `duration` is the largest sampler input
//! time in seconds. Warnings (skipped morph channels, …) go to stderr.

use std::path::PathBuf;
use std::process::ExitCode;

use serde_json::{Value, json};
use zoa_anim_assets::gltf::{GltfAsset, load_gltf};
use zoa_anim_core::Skeleton;

use super::Format;

/// Arguments of `zoa-anim inspect`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// A `.glb` or `.gltf` file.
    file: PathBuf,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    format: Format,
}

/// Loads the file and prints its skins and clips. A file that cannot be read
/// or is malformed is an error (exit 2) with the importer's message.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let asset = load_gltf(&args.file)?;
    for w in &asset.warnings {
        errln!("warning: {w}");
    }
    let file = args.file.display().to_string();
    match args.format {
        Format::Json => crate::output::json_document(serde_json::to_string_pretty(&to_json(&file, &asset))?)?,
        Format::Human => out!("{}", to_human(&file, &asset)),
    }
    Ok(ExitCode::SUCCESS)
}

fn to_json(file: &str, asset: &GltfAsset) -> Value {
    let skins: Vec<Value> = asset
        .skeletons
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let joints: Vec<Value> =
                s.joints().iter().map(|j| json!({"node": j.node, "name": j.name, "parent": j.parent})).collect();
            json!({"index": i, "name": asset.skin_names.get(i).cloned().flatten(), "joints": joints})
        })
        .collect();
    let clips: Vec<Value> = (0..asset.clips.len())
        .map(|i| {
            json!({
                "index": i,
                "name": asset.animation_names.get(i).cloned().flatten(),
                "duration": asset.clip_time_range(i).1,
                "channels": asset.clip_channel_count(i),
            })
        })
        .collect();
    json!({"file": file, "skins": skins, "clips": clips})
}

fn to_human(file: &str, asset: &GltfAsset) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{file}: {} node(s), {} skin(s), {} clip(s)",
        asset.nodes.len(),
        asset.skeletons.len(),
        asset.clips.len()
    );
    for (i, s) in asset.skeletons.iter().enumerate() {
        let name = asset.skin_names.get(i).cloned().flatten().unwrap_or_else(|| "(unnamed)".into());
        let _ = writeln!(out, "\nskin {i} {name}: {} joint(s)", s.joint_count());
        write_tree(&mut out, s);
    }
    if !asset.clips.is_empty() {
        let _ = writeln!(out, "\nclips:");
        let width = asset.clips.iter().map(|c| c.name().len()).max().unwrap_or(0);
        for (i, c) in asset.clips.iter().enumerate() {
            let (start, end) = asset.clip_time_range(i);
            let _ = writeln!(
                out,
                "  {i:>3}  {:<width$}  {start:>8.4} .. {end:>8.4} s  {:>3} channel(s), {} track(s)",
                c.name(),
                asset.clip_channel_count(i),
                c.tracks().len()
            );
        }
    }
    out
}

/// One line per joint, indented by depth, children under their parent.
fn write_tree(out: &mut String, s: &Skeleton) {
    use std::fmt::Write;
    let mut depth = vec![0usize; s.joint_count()];
    // eval_order is depth-first from the roots, parents before children.
    for &j in s.eval_order() {
        let j = usize::from(j);
        depth[j] = s.parent(j).map_or(0, |p| depth[p] + 1);
        let _ =
            writeln!(out, "  {}{} [joint {j}, node {}]", "  ".repeat(depth[j]), s.display_name(j), s.joints()[j].node);
    }
}

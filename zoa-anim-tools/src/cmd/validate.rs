//! `zoa-anim validate DIR`: check a definition folder and print every
//! diagnostic (human: the source line with a caret; json: the contract shape).
//!
//! Besides the loader's diagnostics it reports I004 notes: for every rig
//! policy and every model the folder animates (graph models, clip sources),
//! the enabled behaviours whose bones discovery does not find on that model.
//! That check lives here, not in the loader, because it runs the IK crate's
//! bone discovery and loaders do not depend on evaluators.
//!
//! Exit codes: 0 no errors (warnings allowed), 1 errors, 2 usage or IO failure
//! (DIR missing or unreadable).

use std::collections::BTreeSet;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use zoa_anim_assets::authoring::cross_modal;
use zoa_anim_assets::defs::{Code, DefinitionSet, Diagnostic, Severity, load_folder, render_human, render_json};
use zoa_anim_assets::gltf::load_gltf;
use zoa_anim_core::RigPolicy;
use zoa_anim_ik::roles::describe_missing;
use zoa_anim_ik::{BoneRoles, PolicyAvailability};

use super::Format;
use crate::output::fail;

/// Arguments of `zoa-anim validate`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Definition folder (read recursively).
    pub dir: PathBuf,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
    /// Also report per animation profile the states that resolve only by fallback or to nothing, and rows
    /// that can never win, and per semantic event and slot whether every weapon class has a clip and a
    /// sound (json: `"coverage": {"profiles": [..], "cross_modal": [{"id","kind","class","clip","sound"}]}`).
    /// Does not change the exit code.
    #[arg(long)]
    pub coverage: bool,
}

/// Loads the folder, prints its diagnostics, exits 1 when any is an error.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    if !args.dir.is_dir() {
        return Err(fail(2, "io", format!("`{}` is not a folder (or cannot be reached)", args.dir.display()))
            .at(&args.dir)
            .into());
    }
    let spinner = super::scan::spinner("validating");
    let mut set = load_folder(&args.dir);
    spinner.finish_and_clear();
    // The folder itself could not be listed: an IO failure, not bad input.
    if let Some(d) = set.diagnostics.iter().find(|d| d.code == Code::IoError.id() && d.file.as_os_str().is_empty()) {
        return Err(fail(2, "io", d.message.clone()).at(&args.dir).into());
    }
    let notes = ik_policy_notes(&args.dir, &set);
    if !notes.is_empty() {
        set.diagnostics.extend(notes);
        set.diagnostics.sort_by(|a, b| (&a.file, a.line, a.column, a.code).cmp(&(&b.file, b.line, b.column, b.code)));
    }
    let coverage = args.coverage.then(|| (zoa_anim_assets::authoring::coverage(&set), cross_modal::cross_modal(&set)));
    match args.format {
        Format::Json => {
            let mut out = render_json(&set.diagnostics);
            if let Some((c, cm)) = &coverage {
                out["coverage"] =
                    serde_json::json!({ "profiles": c.to_json(), "cross_modal": cross_modal::to_json(cm) });
            }
            outln!("{}", serde_json::to_string_pretty(&out)?)
        }
        Format::Human => {
            out!("{}", render_human(&args.dir, &set.diagnostics, std::io::stdout().is_terminal()));
            if let Some((c, cm)) = &coverage {
                out!("{}", c.to_human());
                out!("{}", cross_modal::to_human(cm));
            }
        }
    }
    Ok(if set.error_count() > 0 { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

/// I004 notes: one per rig policy × model × enabled behaviour whose bones no
/// skin of the model has (discovered with the policy's overrides). Models
/// that are missing or unreadable are skipped: the loader already reported
/// them (E014, E020).
pub fn ik_policy_notes(dir: &Path, set: &DefinitionSet) -> Vec<Diagnostic> {
    if set.rig_policies.is_empty() {
        return Vec::new();
    }
    let models: BTreeSet<&str> = set
        .animation_graphs
        .iter()
        .map(|g| g.value.model.as_str())
        .chain(set.clips.iter().map(|c| c.value.source.as_str()))
        .collect();
    let mut notes = Vec::new();
    for model in models {
        let Ok(asset) = load_gltf(&dir.join(model)) else { continue };
        if asset.skeletons.is_empty() {
            continue;
        }
        for loaded in &set.rig_policies {
            let policy = &loaded.value;
            // Per behaviour, the skin that comes closest (a model may carry a
            // character skin and a prop skin); report only when none has the bones.
            let per_skin: Vec<(String, [PolicyAvailability; 4])> = asset
                .skeletons
                .iter()
                .map(|s| (s.name().to_owned(), BoneRoles::discover_with_overrides(s, policy).0.availability(policy)))
                .collect();
            for k in 0..4 {
                let Some((skin, best)) = per_skin.iter().map(|(n, a)| (n, &a[k])).min_by_key(|(_, a)| a.missing.len())
                else {
                    continue;
                };
                if !best.enabled || best.available {
                    continue;
                }
                notes.push(note(dir, &loaded.file, policy, model, skin, best));
            }
        }
    }
    notes
}

fn note(dir: &Path, file: &Path, policy: &RigPolicy, model: &str, skin: &str, a: &PolicyAvailability) -> Diagnostic {
    let field = a.policy.name();
    let (line, column, span) = locate_key(&dir.join(file), field).unwrap_or((1, 1, 0..0));
    Diagnostic {
        severity: Severity::Info,
        code: Code::IkPolicyUnavailable.id(),
        file: file.to_path_buf(),
        line,
        column,
        field: field.to_owned(),
        message: format!(
            "rig policy `{}` cannot run on model `{model}` (skin `{skin}`): {}; the runtime skips it there \
             (map the bones with `bone_overrides` if the model has them under other names)",
            policy.id,
            describe_missing(a)
        ),
        span,
    }
}

/// Line, column (1-based, characters) and byte span of the value of a
/// top-level `key = value` line, when the file has one.
fn locate_key(path: &Path, key: &str) -> Option<(usize, usize, std::ops::Range<usize>)> {
    let text = zoa_anim_assets::files::read_to_string(path, zoa_anim_assets::files::FileKind::Definition).ok()?;
    let mut offset = 0;
    for (i, line) in text.split_inclusive('\n').enumerate() {
        let trimmed = line.trim_start();
        if let Some(rest) = trimmed.strip_prefix(key)
            && let Some(value) = rest.trim_start().strip_prefix('=')
        {
            let value = value.trim();
            let start = offset + line.find(value).unwrap_or(0);
            let column = line[..start - offset].chars().count() + 1;
            return Some((i + 1, column, start..start + value.len()));
        }
        if trimmed.starts_with('[') {
            break; // past the top-level keys
        }
        offset += line.len();
    }
    None
}

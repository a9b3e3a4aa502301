//! `zoa-anim validate DIR`: check a definition folder and print every
//! diagnostic (human: the source line with a caret; json: the contract shape).
//!
//! The check is the front door's ([`zoa_animation::validate`]): the loader's
//! diagnostics plus I004 notes for every rig policy and every model the
//! folder animates (graph models, clip sources), the enabled behaviours whose
//! bones discovery does not find on that model. `zoa_animation::load` fails
//! with exactly this report when the folder has errors.
//!
//! Exit codes: 0 no errors (warnings allowed), 1 errors, 2 usage or IO failure
//! (DIR missing or unreadable).

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use zoa_anim_assets::authoring::cross_modal;
use zoa_anim_assets::defs::render_json;

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
    let checked = zoa_animation::validate(&args.dir);
    spinner.finish_and_clear();
    // The folder itself could not be listed: an IO failure, not bad input.
    if let Some(d) = checked.folder_unreadable() {
        return Err(fail(2, "io", d.message.clone()).at(&args.dir).into());
    }
    let set = &checked.set;
    let coverage = args.coverage.then(|| (zoa_anim_assets::authoring::coverage(set), cross_modal::cross_modal(set)));
    match args.format {
        Format::Json => {
            let mut out = render_json(&set.diagnostics);
            if let Some((c, cm)) = &coverage {
                out["coverage"] =
                    serde_json::json!({ "profiles": c.to_json(), "cross_modal": cross_modal::to_json(cm) });
            }
            crate::output::json_document(serde_json::to_string_pretty(&out)?)?
        }
        Format::Human => {
            out!("{}", checked.render(std::io::stdout().is_terminal()));
            if let Some((c, cm)) = &coverage {
                out!("{}", c.to_human());
                out!("{}", cross_modal::to_human(cm));
            }
        }
    }
    Ok(if set.error_count() > 0 { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

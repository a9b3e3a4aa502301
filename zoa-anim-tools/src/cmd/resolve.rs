//! `zoa-anim resolve --defs DIR --profile ID --state TEXT`: resolve the
//! flattened (inherited) clip table of one animation profile for one state,
//! and explain the walk.
//!
//! Exit codes: 0 resolved (a match, or the profile's no-match policy), 1 the
//! profile's definitions have errors, 2 usage or IO failure (missing folder,
//! unknown profile, bad state text).

use std::path::PathBuf;
use std::process::ExitCode;

use zoa_anim_assets::defs::{DefinitionSet, load_folder};
use zoa_anim_core::inheritance::InheritedRow;
use zoa_anim_core::resolver::{MatchKind, ResolutionTrace, TraceCandidate, trace_resolution};
use zoa_anim_core::{StateDimension, StateTagSet, TaggedClipEntry};

use super::Format;
use crate::output::fail;

/// Arguments of `zoa-anim resolve`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Definition folder.
    #[arg(long)]
    pub defs: PathBuf,
    /// Animation profile id.
    #[arg(long)]
    pub profile: String,
    /// Active state in the text form, e.g. "locomotion=sprint posture=standing mood=alert".
    #[arg(long)]
    pub state: String,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

fn valid_flags() -> String {
    StateDimension::ALL
        .iter()
        .map(|d| format!("  {}: {}", d.name(), d.flags().map(|(n, _)| n).collect::<Vec<_>>().join(" | ")))
        .collect::<Vec<_>>()
        .join("\n")
}

/// f32 → the shortest decimal that reads back as the same f32, as a JSON number.
fn number(x: f32) -> serde_json::Value {
    format!("{x}").parse::<f64>().map(serde_json::Value::from).unwrap_or(serde_json::Value::Null)
}

/// Resolves and prints.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let state = match StateTagSet::parse(&args.state) {
        Ok(s) => s,
        Err(e) => {
            let help = format!("state text is `dimension=flag|flag …`; valid flags:\n{}", valid_flags());
            return Err(fail(2, "usage", format!("invalid --state `{}`: {e}", args.state)).details(vec![help]).into());
        }
    };
    if !args.defs.is_dir() {
        return Err(fail(2, "io", format!("`{}` is not a folder (or cannot be reached)", args.defs.display()))
            .at(&args.defs)
            .into());
    }
    let set = load_folder(&args.defs);
    let Some(profile) = set.animation_profile(&args.profile) else {
        return Err(unknown_or_invalid(&set, &args.profile, &args.defs).into());
    };
    let rows = match set.flattened_profile(&profile.id) {
        Some(Ok(rows)) => rows,
        Some(Err(e)) => {
            return Err(fail(1, "invalid-input", format!("cannot flatten `{}`: {e}", profile.id)).into());
        }
        None => return Err(unknown_or_invalid(&set, &args.profile, &args.defs).into()),
    };
    if set.error_count() > 0 {
        errln!(
            "note: the folder has {} error(s) (run `zoa-anim validate {}`); resolving anyway",
            set.error_count(),
            args.defs.display()
        );
    }
    let trace = trace_resolution(&rows, state);
    let policy = trace.result.is_none().then(|| profile.no_match_policy());
    match args.format {
        Format::Json => {
            let m = trace.result.map(|r| {
                let row = &rows[r.row];
                serde_json::json!({
                    "row": r.row,
                    "clip": row.row.clip,
                    "step": r.step(),
                    "default_row": r.kind == MatchKind::Default,
                    "relaxed": r.relaxed().to_string(),
                    "specificity": r.specificity,
                    "weight": number(row.row.weight),
                    "source_profile": row.source,
                })
            });
            let out = serde_json::json!({
                "profile": profile.id,
                "state": state.to_string(),
                "match": m,
                "no_match_policy": policy.as_ref().map(|p| p.name()),
            });
            crate::output::json_document(serde_json::to_string_pretty(&out)?)?;
        }
        Format::Human => out!("{}", explain(&profile.id, state, &rows, &trace, policy.as_ref())),
    }
    Ok(ExitCode::SUCCESS)
}

fn unknown_or_invalid(set: &DefinitionSet, id: &str, dir: &std::path::Path) -> crate::output::Failure {
    let known: Vec<&str> = set.animation_profiles.iter().map(|p| p.value.id.as_str()).collect();
    let available = if known.is_empty() { "none".to_owned() } else { known.join(", ") };
    let mut notes = Vec::new();
    if set.error_count() > 0 {
        // A profile with errors in its own file is left out of the set.
        notes.push(format!(
            "note: the folder has {} error(s); a profile with errors is not loaded (run `zoa-anim validate {}`)",
            set.error_count(),
            dir.display()
        ));
    }
    fail(2, "not-found", format!("no valid animation profile `{id}`; available: {available}")).details(notes)
}

fn describe_row(rows: &[InheritedRow<TaggedClipEntry>], c: &TraceCandidate) -> String {
    let r = &rows[c.row];
    format!(
        "row {:>2}  {:<14} pattern `{}`  specificity {}  weight {}  (from {} row {})",
        c.row,
        r.row.clip,
        r.row.to_pattern(),
        c.specificity,
        c.weight,
        r.source,
        r.source_index
    )
}

/// Why `a` beat `b` (both candidates of one attempt, `a` first).
fn why(a: &TraceCandidate, b: &TraceCandidate) -> String {
    if a.specificity != b.specificity {
        format!("higher specificity ({} > {})", a.specificity, b.specificity)
    } else if a.weight != b.weight {
        format!("equal specificity ({}), higher weight ({} > {})", a.specificity, a.weight, b.weight)
    } else {
        format!("equal specificity and weight; row {} was authored first", a.row)
    }
}

fn explain(
    profile: &str,
    state: StateTagSet,
    rows: &[InheritedRow<TaggedClipEntry>],
    trace: &ResolutionTrace,
    policy: Option<&zoa_anim_core::NoMatchPolicy>,
) -> String {
    let mut out = String::new();
    let mut chain: Vec<&str> = Vec::new();
    for r in rows {
        if !chain.contains(&r.source.as_str()) {
            chain.push(&r.source);
        }
    }
    out.push_str(&format!("profile {profile}: {} flattened rows from {}\n", rows.len(), chain.join(" <- ")));
    out.push_str(&format!("state   {state}\n\n"));
    for a in &trace.attempts {
        let label =
            if a.step == 0 { "step 0 (exact)".to_owned() } else { format!("step {} (relaxed: {})", a.step, a.relaxed) };
        if a.candidates.is_empty() {
            out.push_str(&format!("{label}: no tagged row matches `{}`\n", a.state));
            continue;
        }
        out.push_str(&format!("{label}: {} candidate(s) for `{}`\n", a.candidates.len(), a.state));
        for (i, c) in a.candidates.iter().enumerate() {
            out.push_str(&format!("  {} {}\n", if i == 0 { "->" } else { "  " }, describe_row(rows, c)));
        }
        let winner = &a.candidates[0];
        match a.candidates.get(1) {
            Some(runner_up) => out.push_str(&format!(
                "winner: row {} `{}` beats runner-up row {} `{}`: {}\n",
                winner.row,
                rows[winner.row].row.clip,
                runner_up.row,
                rows[runner_up.row].row.clip,
                why(winner, runner_up)
            )),
            None => out
                .push_str(&format!("winner: row {} `{}`, the only candidate\n", winner.row, rows[winner.row].row.clip)),
        }
    }
    match trace.result {
        Some(r) if r.kind == MatchKind::Default => {
            let d = &trace.defaults[0];
            out.push_str(&format!(
                "no tagged row matches at any step (locomotion is never relaxed); the untagged default wins:\n  -> {}\n",
                describe_row(rows, d)
            ));
            if let Some(second) = trace.defaults.get(1) {
                out.push_str(&format!("winner beats untagged row {}: {}\n", second.row, why(d, second)));
            }
        }
        Some(_) => {}
        None => {
            let what = match policy {
                Some(zoa_anim_core::NoMatchPolicy::DefaultIdle(clip)) => format!("default_idle (loop `{clip}`)"),
                Some(p) => p.name().to_owned(),
                None => "none".to_owned(),
            };
            out.push_str(&format!(
                "no row matches at any step and the table has no untagged default; no-match policy: {what}\n"
            ));
        }
    }
    out
}

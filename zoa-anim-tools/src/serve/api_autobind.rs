//! The Auto Binding panel.
//!
//! - `POST /api/autobind/scan {roots, profile_type, min_score, skeleton, one_set}`: scans the roots
//!   (folders or model files inside `--defs`/`--assets`) with the clip library scanner, groups the
//!   files by skeleton (shared bone names) and ranks the clips of one skeleton against the
//!   canonical slots, as `zoa-anim autobind` does per skeleton. `skeleton` picks the group by id;
//!   without it, the first group where a slot binds. `one_set: true` ranks every file together
//!   (`autobind --one-set`). The answer lists `skeletons: [{id, files, slots}]` (`slots` = how many
//!   bind on that skeleton) and the `skeleton` ranked (null with `one_set`). Each slot lists its
//!   candidates (best first) with the score and every signal; candidates are keyed `file#index`.
//! - `POST /api/autobind/write {roots, profile_type, min_score, choices, out, overwrite}`: the
//!   same ranking with the user's choices (`slot → key` to pick a candidate, `slot → null` to
//!   leave the slot out), written as a player profile set at `out` (under `defs/`) with one
//!   binding profile per class and the clip definitions beside it. When a profile file exists
//!   the answer is 409 with the files in the way, and nothing is written; the page asks, then
//!   sends `overwrite: true`. Clip definitions that exist are reused, never overwritten.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use serde::Deserialize;
use serde_json::{Value, json};
use zoa_anim_assets::authoring::ScanReport;
use zoa_anim_assets::authoring::autobind::{AutoBindOptions, Candidate};
use zoa_anim_assets::authoring::write::{
    ClassBinding, bind_classes, bind_skeletons, plan_profile_files, write_profile_set,
};
use zoa_anim_core::PlayerProfileType;

use super::api_defs::load;
use super::diag_json;
use super::{ApiError, ApiResult, App};

/// Scan parameters (shared by both requests).
#[derive(Debug, Clone, Deserialize)]
pub struct ScanParams {
    roots: Vec<String>,
    #[serde(default)]
    profile_type: Option<String>,
    #[serde(default)]
    min_score: Option<f32>,
    /// The skeleton (group id) to rank; none: the first where a slot binds.
    #[serde(default)]
    skeleton: Option<String>,
    /// Rank every file together, whatever their skeletons.
    #[serde(default)]
    one_set: bool,
}

/// What a scan produced, with every file inside the roots.
struct Ranked {
    report: ScanReport,
    classes: Vec<ClassBinding>,
    result: zoa_anim_assets::authoring::autobind::AutoBindResult,
    /// Every skeleton with its files (virtual paths) and how many slots bind on it.
    skeletons: Vec<Value>,
    /// The skeleton ranked (None with `one_set`).
    skeleton: Option<String>,
}

fn options(p: &ScanParams) -> Result<AutoBindOptions, ApiError> {
    let profile_type = match p.profile_type.as_deref().filter(|s| !s.is_empty()) {
        None => None,
        Some(s) => Some(PlayerProfileType::from_name(s).ok_or_else(|| {
            let all: Vec<&str> = PlayerProfileType::ALL.iter().map(|t| t.name()).collect();
            ApiError::bad(format!("unknown profile type `{s}`; expected one of: {}", all.join(", ")))
        })?),
    };
    let min_score = p.min_score.unwrap_or(0.3);
    if !min_score.is_finite() {
        return Err(ApiError::bad("min_score must be a number"));
    }
    Ok(AutoBindOptions { profile_type, min_score })
}

fn rank(app: &App, p: &ScanParams) -> Result<Ranked, ApiError> {
    if p.roots.is_empty() {
        return Err(ApiError::bad("give at least one folder to scan"));
    }
    let opts = options(p)?;
    let mut roots: Vec<PathBuf> = Vec::new();
    for r in &p.roots {
        roots.push(app.roots.existing(r)?.abs);
    }
    let mut report = {
        let mut cache = app.scans.lock().unwrap_or_else(|e| e.into_inner());
        cache.scan(&roots, |_, _| {}).map_err(|e| ApiError::unprocessable(format!("scan failed: {e}")))?
    };
    // Symlinks under a root may lead elsewhere: only files inside the roots count.
    report.files.retain(|f| app.roots.contains(&f.path));
    let runs = bind_skeletons(&report, &opts);
    let skeletons: Vec<Value> = runs
        .iter()
        .map(|r| {
            let files: Vec<Option<String>> =
                r.group.files.iter().map(|&i| app.roots.to_virtual(&report.files[i].path)).collect();
            json!({ "id": r.group.id, "files": files, "slots": r.result.assignments.len() })
        })
        .collect();
    if p.one_set {
        let (result, classes) = bind_classes(&report, &opts);
        return Ok(Ranked { report, classes, result, skeletons, skeleton: None });
    }
    let chosen = match p.skeleton.as_deref().filter(|s| !s.is_empty()) {
        Some(id) => runs
            .into_iter()
            .find(|r| r.group.id == id)
            .ok_or_else(|| ApiError::bad(format!("no skeleton `{id}` in these roots; scan again to list them")))?,
        None => {
            let first = runs.iter().position(|r| !r.result.assignments.is_empty()).unwrap_or(0);
            match runs.into_iter().nth(first) {
                Some(r) => r,
                // No skeleton at all (nothing readable): an empty ranking over every file.
                None => {
                    let (result, classes) = bind_classes(&report, &opts);
                    return Ok(Ranked { report, classes, result, skeletons, skeleton: None });
                }
            }
        }
    };
    let skeleton = Some(chosen.group.id);
    Ok(Ranked { report, classes: chosen.classes, result: chosen.result, skeletons, skeleton })
}

fn key(app: &App, c: &Candidate) -> String {
    format!("{}#{}", app.roots.to_virtual(&c.file).unwrap_or_default(), c.index)
}

fn candidate_json(app: &App, c: &Candidate) -> Value {
    let signals: BTreeMap<&str, f32> = c.signals.iter().map(|(k, v)| (*k, *v)).collect();
    json!({
        "key": key(app, c),
        "file": app.roots.to_virtual(&c.file),
        "clip": c.clip,
        "index": c.index,
        "clip_id": c.clip_id,
        "score": c.score,
        "signals": signals,
    })
}

/// `POST /api/autobind/scan`.
pub async fn scan(State(app): State<Arc<App>>, Json(p): Json<ScanParams>) -> ApiResult {
    let out = app
        .blocking(move |app| {
            let r = rank(app, &p)?;
            let class_of = |slot: &str| -> Vec<&str> {
                r.classes
                    .iter()
                    .filter(|c| c.assignments.iter().any(|a| a.slot == slot))
                    .map(|c| c.class.name())
                    .collect()
            };
            let slots: Vec<Value> = r
                .result
                .assignments
                .iter()
                .map(|a| {
                    json!({
                        "slot": a.slot,
                        "classes": class_of(a.slot),
                        "candidates": a.candidates.iter().map(|c| candidate_json(app, c)).collect::<Vec<_>>(),
                    })
                })
                .collect();
            let failed: Vec<Value> =
                r.report.failed().map(|f| json!({ "file": app.roots.to_virtual(&f.path), "error": f.error })).collect();
            Ok(json!({
                "files": r.report.files.len(),
                "clips": r.report.clips().count(),
                "failed": failed,
                "slots": slots,
                "unassigned": r.result.unassigned,
                "classes": r.classes.iter().map(|c| c.class.name()).collect::<Vec<_>>(),
                "skeletons": r.skeletons,
                "skeleton": r.skeleton,
            }))
        })
        .await?;
    Ok(Json(out))
}

/// Body of `POST /api/autobind/write`.
#[derive(Debug, Deserialize)]
pub struct WriteBody {
    #[serde(flatten)]
    params: ScanParams,
    /// Slot → chosen candidate key, or null to leave the slot out. Slots not
    /// named keep the best candidate.
    #[serde(default)]
    choices: BTreeMap<String, Option<String>>,
    /// Where the player profile set goes (`defs/…/name.toml`).
    out: String,
    /// The user confirmed replacing existing profile files.
    #[serde(default)]
    overwrite: bool,
}

/// `POST /api/autobind/write`.
pub async fn write(State(app): State<Arc<App>>, Json(b): Json<WriteBody>) -> ApiResult {
    let out = app
        .blocking(move |app| {
            let mut r = rank(app, &b.params)?;
            for class in &mut r.classes {
                let mut kept = Vec::new();
                for mut a in std::mem::take(&mut class.assignments) {
                    match b.choices.get(a.slot) {
                        None => kept.push(a),
                        Some(None) => {}
                        Some(Some(k)) => {
                            let Some(i) = a.candidates.iter().position(|c| key(app, c) == *k) else {
                                return Err(ApiError::conflict(format!(
                                    "slot `{}` has no candidate `{k}` any more (files changed); scan again",
                                    a.slot
                                )));
                            };
                            let chosen = a.candidates.remove(i);
                            a.candidates.insert(0, chosen);
                            kept.push(a);
                        }
                    }
                }
                class.assignments = kept;
            }
            r.classes.retain(|c| !c.assignments.is_empty());
            if r.classes.is_empty() {
                return Err(ApiError::unprocessable("no slot is approved; nothing to write"));
            }
            let target = app.roots.writable_toml(&b.out)?;
            let planned = plan_profile_files(&target.abs, &r.classes, &|a| a.best().clip_id.clone());
            // Every generated definition must load: its kind and id by validate's rules.
            for f in &planned {
                super::files::checked_declaration(&f.text, None).map_err(|e| {
                    let name = f.path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
                    ApiError::unprocessable(format!("not written: `{name}` would not load: {e}"))
                })?;
            }
            let existing: Vec<String> =
                planned.iter().filter(|f| f.path.exists()).filter_map(|f| app.roots.to_virtual(&f.path)).collect();
            if !existing.is_empty() && !b.overwrite {
                return Err(ApiError::conflict("profile files exist; confirm to replace them")
                    .with("exists", true)
                    .with("files", existing));
            }
            let written = write_profile_set(&r.report, &r.classes, &target.abs, b.overwrite)
                .map_err(|e| ApiError::unprocessable(format!("writing failed: {e}")))?;
            let set = load(app, &[]);
            let files: Vec<String> =
                written.profiles.iter().chain(&written.clips_written).filter_map(|p| app.roots.to_virtual(p)).collect();
            let rels: Vec<PathBuf> = written
                .profiles
                .iter()
                .chain(&written.clips_written)
                .filter_map(|p| p.strip_prefix(&app.roots.defs().dir).ok().map(PathBuf::from))
                .collect();
            let diagnostics: Vec<Value> = set
                .diagnostics
                .iter()
                .filter(|d| rels.contains(&d.file))
                .map(|d| diag_json::diagnostic(d, None))
                .collect();
            Ok(json!({ "written": files, "diagnostics": diagnostics, "replaced": existing }))
        })
        .await?;
    Ok(Json(out))
}

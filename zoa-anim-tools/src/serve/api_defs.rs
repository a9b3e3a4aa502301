//! Definitions, validation, coverage and the overview.
//!
//! - `GET /api/session`: roots and definition kinds (what the page needs first).
//! - `GET /api/jobs`: heavy jobs running now and jobs cancelled by a client going away.
//! - `GET /api/defs`: every `.toml` file under `--defs` with its kind, id and problem counts (a
//!   file the file endpoint refuses, such as a symlink leaving `--defs`, is listed with `refused`
//!   saying why, and is not read).
//! - `GET /api/file?path=`: one file's text and version.
//! - `POST /api/validate {path, text}`: the folder validated with `text` in place of the file
//!   (nothing written); the file's diagnostics with line/column ranges, and the others' counts.
//! - `POST /api/save {path, text, version}`: atomic save; `version: null` creates a new file.
//!   409 when the disk changed since `version` (or the file exists, for a new one), checked again
//!   immediately before the rename; 422 `declaration` when the text's `kind` or `id` would not
//!   load (validate's rules).
//! - `POST /api/duplicate {path, new_path, new_id}`: a copy with a new id; never overwrites. The new
//!   id must pass `validate`'s id rules, differ from the original's and name no other definition of
//!   that kind (409 `duplicate_id`).
//! - `POST /api/delete {path, version, confirm: true}`: only with `confirm` and an unchanged file.
//! - `GET /api/coverage`: `zoa-anim validate --coverage`'s report: `profiles` (clip-table
//!   coverage), `cross_modal` (per semantic event and slot and weapon class: a clip row? a
//!   sound?), plus `has_gaps` and the profiles' `files`.
//! - `GET /api/overview`: counts per kind, problems per file, coverage gaps, profile sets, models.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use axum::Json;
use axum::extract::{Query, State};
use serde::Deserialize;
use serde_json::{Value, json};
use zoa_anim_assets::authoring::cross_modal;
use zoa_anim_assets::authoring::schema::KINDS;
use zoa_anim_assets::defs::DefinitionSet;

use super::diag_json::{self, slash};
use super::files::{self, Expect};
use super::roots::virtual_of;
use super::{ApiError, ApiResult, App};

/// Deepest folder nesting listed (as the loader).
const MAX_DEPTH: usize = 32;

/// Loads `--defs` (with unsaved buffers in `overlay`) plus the I004 notes
/// `zoa-anim validate` adds, sorted like the CLI's output.
pub(super) fn load(app: &App, overlay: &[(PathBuf, String)]) -> DefinitionSet {
    zoa_animation::validate_with_overlay(&app.roots.defs().dir, overlay).set
}

/// Every `.toml` file under `dir` (relative, sorted), skipping hidden names
/// and never following symlinked folders.
pub(super) fn toml_files(dir: &Path) -> Vec<PathBuf> {
    fn walk(root: &Path, rel: &Path, depth: usize, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(root.join(rel)) else { return };
        for e in entries.flatten() {
            let name = e.file_name();
            if name.to_string_lossy().starts_with('.') {
                continue;
            }
            let Ok(ty) = e.file_type() else { continue };
            let child = rel.join(&name);
            if ty.is_dir() {
                if depth < MAX_DEPTH {
                    walk(root, &child, depth + 1, out);
                }
            } else if child.extension().is_some_and(|x| x == "toml") {
                out.push(child);
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, Path::new(""), 0, &mut out);
    out.sort();
    out
}

/// Per file (`/`-separated, relative to `--defs`): error, warning and info counts.
fn per_file(set: &DefinitionSet) -> BTreeMap<String, [usize; 3]> {
    let mut out: BTreeMap<String, [usize; 3]> = BTreeMap::new();
    for d in &set.diagnostics {
        out.entry(slash(&d.file)).or_default()[d.severity as usize] += 1;
    }
    out
}

pub(super) fn defs_virtual(app: &App, rel: &Path) -> String {
    virtual_of(&app.roots.defs().label, rel)
}

/// `GET /api/session`.
pub async fn session(State(app): State<Arc<App>>) -> ApiResult {
    let roots: Vec<Value> = app
        .roots
        .list
        .iter()
        .map(|r| json!({ "label": r.label, "folder": r.given.display().to_string(), "writable": r.writable }))
        .collect();
    Ok(Json(json!({ "roots": roots, "kinds": KINDS, "max_lab_ticks": super::MAX_LAB_TICKS })))
}

/// `GET /api/jobs`: heavy jobs running now (`running`, at most `limit`) and
/// how many were cancelled because their client went away.
pub async fn jobs(State(app): State<Arc<App>>) -> ApiResult {
    use std::sync::atomic::Ordering::Relaxed;
    Ok(Json(json!({
        "running": app.stats.running.load(Relaxed),
        "cancelled": app.stats.cancelled.load(Relaxed),
        "limit": super::MAX_JOBS,
    })))
}

/// `GET /api/defs`.
pub async fn list(State(app): State<Arc<App>>) -> ApiResult {
    let out = app
        .blocking(|app| {
            let set = load(app, &[]);
            let dir = &app.roots.defs().dir;
            let per_file = per_file(&set);
            let files: Vec<Value> = toml_files(dir)
                .into_iter()
                .map(|rel| {
                    // Read only what the file endpoint would open: a symlink
                    // that leaves `--defs` is listed, marked, and not read.
                    let vpath = defs_virtual(app, &rel);
                    let refused = app.roots.existing_file(&vpath).err().map(|e| e.reason);
                    let text = match &refused {
                        None => files::read_text(&dir.join(&rel)).map(|(t, _)| t).unwrap_or_default(),
                        Some(_) => String::new(),
                    };
                    let (kind, id) = files::kind_and_id(&text);
                    let c = if refused.is_some() {
                        [0; 3]
                    } else {
                        per_file.get(&slash(&rel)).copied().unwrap_or_default()
                    };
                    json!({
                        "path": vpath,
                        "kind": kind.filter(|k| KINDS.contains(&k.as_str())),
                        "id": id,
                        "errors": c[0],
                        "warnings": c[1],
                        "infos": c[2],
                        "refused": refused,
                    })
                })
                .collect();
            let (errors, warnings) = diag_json::counts(&set.diagnostics);
            Ok(json!({ "files": files, "errors": errors, "warnings": warnings }))
        })
        .await?;
    Ok(Json(out))
}

/// Query of `GET /api/file`.
#[derive(Debug, Deserialize)]
pub struct PathQuery {
    path: String,
}

/// `GET /api/file?path=`.
pub async fn read(State(app): State<Arc<App>>, Query(q): Query<PathQuery>) -> ApiResult {
    let r = app.roots.existing_file(&q.path)?;
    if r.rel.extension().is_none_or(|e| e != "toml") {
        return Err(ApiError::bad("only definition (.toml) files open in the editor"));
    }
    let (text, version) = files::read_text(&r.abs)?;
    let (kind, id) = files::kind_and_id(&text);
    Ok(Json(json!({ "path": q.path, "text": text, "version": version, "kind": kind, "id": id,
                    "writable": app.roots.list[r.root].writable })))
}

/// The diagnostics of one file (with text for span ends) and every file's counts.
fn report(set: &DefinitionSet, rel: &Path, text: &str) -> Value {
    let mine: Vec<Value> =
        set.diagnostics.iter().filter(|d| d.file == rel).map(|d| diag_json::diagnostic(d, Some(text))).collect();
    let (errors, warnings) = diag_json::counts(set.diagnostics.iter().filter(|d| d.file == rel));
    let (all_errors, all_warnings) = diag_json::counts(&set.diagnostics);
    let mine_key = slash(rel);
    let others: Vec<Value> = per_file(set)
        .into_iter()
        .filter(|(f, c)| *f != mine_key && c[0] + c[1] > 0)
        .map(|(f, c)| json!({ "file": f, "errors": c[0], "warnings": c[1] }))
        .collect();
    json!({
        "diagnostics": mine,
        "errors": errors,
        "warnings": warnings,
        "folder_errors": all_errors,
        "folder_warnings": all_warnings,
        "others": others,
    })
}

/// Body of `POST /api/validate`.
#[derive(Debug, Deserialize)]
pub struct ValidateBody {
    path: String,
    text: String,
}

/// `POST /api/validate`.
pub async fn validate(State(app): State<Arc<App>>, Json(b): Json<ValidateBody>) -> ApiResult {
    let rel = app.roots.defs_toml(&b.path)?;
    let out = app
        .blocking(move |app| {
            let set = load(app, &[(rel.clone(), b.text.clone())]);
            Ok(report(&set, &rel, &b.text))
        })
        .await?;
    Ok(Json(out))
}

/// Body of `POST /api/save`.
#[derive(Debug, Deserialize)]
pub struct SaveBody {
    path: String,
    text: String,
    /// The version the editor opened (`None`: a new file).
    version: Option<String>,
}

/// `POST /api/save`.
pub async fn save(State(app): State<Arc<App>>, Json(b): Json<SaveBody>) -> ApiResult {
    if b.text.len() as u64 > zoa_anim_assets::defs::MAX_FILE_BYTES {
        return Err(ApiError::bad("the text is larger than a definition file may be"));
    }
    let out = app
        .blocking(move |app| {
            let r = app.roots.writable_toml(&b.path)?;
            files::checked_declaration(&b.text, None)
                .map_err(|e| ApiError::unprocessable(format!("not saved: {e}")).with("declaration", true))?;
            let expect = b.version.map_or(Expect::Absent, Expect::Version);
            let version = app.writer.save(&r.abs, b.text.as_bytes(), &expect)?;
            let set = load(app, &[]);
            let mut out = report(&set, &r.rel, &b.text);
            out["version"] = json!(version);
            out["path"] = json!(b.path);
            Ok(out)
        })
        .await?;
    Ok(Json(out))
}

/// Body of `POST /api/duplicate`.
#[derive(Debug, Deserialize)]
pub struct DuplicateBody {
    path: String,
    new_path: String,
    new_id: String,
}

/// `POST /api/duplicate`.
pub async fn duplicate(State(app): State<Arc<App>>, Json(b): Json<DuplicateBody>) -> ApiResult {
    let out = app
        .blocking(move |app| {
            let src = app.roots.existing_file(&b.path)?;
            let dst = app.roots.writable_toml(&b.new_path)?;
            let (text, _) = files::read_text(&src.abs)?;
            let refuse = |why: String| ApiError::unprocessable(format!("cannot duplicate `{}`: {why}", b.path));
            let (kind, old_id) = files::checked_declaration(&text, None).map_err(refuse)?;
            let new_id = b.new_id.trim();
            if new_id == old_id {
                return Err(refuse(format!("the copy needs an id other than `{old_id}`")));
            }
            let copy =
                files::with_id(&text, new_id).map_err(|e| refuse(format!("cannot give the copy a new id: {e}")))?;
            files::checked_declaration(&copy, Some(kind)).map_err(refuse)?;
            // The same rule as validate's E011: one id per kind in the folder.
            let set = load(app, &[]);
            if let Some(other) = set.files_declaring(kind, new_id).first() {
                return Err(ApiError::conflict(format!(
                    "`{new_id}` is already the id of a {kind} (`{}`); pick another",
                    defs_virtual(app, other)
                ))
                .with("duplicate_id", true));
            }
            let version = app.writer.save(&dst.abs, copy.as_bytes(), &Expect::Absent)?;
            Ok(json!({ "path": b.new_path, "version": version }))
        })
        .await?;
    Ok(Json(out))
}

/// Body of `POST /api/delete`.
#[derive(Debug, Deserialize)]
pub struct DeleteBody {
    path: String,
    version: String,
    #[serde(default)]
    confirm: bool,
}

/// `POST /api/delete`.
pub async fn delete(State(app): State<Arc<App>>, Json(b): Json<DeleteBody>) -> ApiResult {
    if !b.confirm {
        return Err(ApiError::bad("deleting needs `confirm: true` (the page asks first)"));
    }
    let out = app
        .blocking(move |app| {
            let r = app.roots.writable_toml(&b.path)?;
            app.writer.delete(&r.abs, &b.version)?;
            Ok(json!({ "deleted": b.path }))
        })
        .await?;
    Ok(Json(out))
}

/// `GET /api/coverage`.
pub async fn coverage(State(app): State<Arc<App>>) -> ApiResult {
    let out = app
        .blocking(|app| {
            let set = load(app, &[]);
            let c = zoa_anim_assets::authoring::coverage(&set);
            let files: BTreeMap<String, String> =
                set.animation_profiles.iter().map(|p| (p.value.id.clone(), defs_virtual(app, &p.file))).collect();
            let cross = cross_modal::cross_modal(&set);
            Ok(json!({
                "profiles": c.to_json(),
                "has_gaps": c.has_gaps(),
                "files": files,
                "cross_modal": cross_modal::to_json(&cross),
            }))
        })
        .await?;
    Ok(Json(out))
}

/// How many definitions of each kind the folder holds (those that loaded).
fn kind_counts(set: &zoa_anim_assets::defs::DefinitionSet) -> Value {
    json!({
        "binding_profile": set.binding_profiles.len(),
        "animation_profile": set.animation_profiles.len(),
        "state_graph": set.state_graphs.len(),
        "rig_policy": set.rig_policies.len(),
        "sound_profile": set.sound_profiles.len(),
        "player_profile_set": set.player_profile_sets.len(),
        "clip": set.clips.len(),
        "animation_graph": set.animation_graphs.len(),
        "preview_preset": set.preview_presets.len(),
        "equipment": set.equipment.len(),
    })
}

/// `GET /api/overview`.
pub async fn overview(State(app): State<Arc<App>>) -> ApiResult {
    let out = app
        .blocking(|app| {
            let set = load(app, &[]);
            let counts = kind_counts(&set);
            let (errors, warnings) = diag_json::counts(&set.diagnostics);
            let problems: Vec<Value> = per_file(&set)
                .into_iter()
                .filter(|(_, c)| c[0] + c[1] > 0)
                .map(|(f, c)| json!({ "path": defs_virtual(app, Path::new(&f)), "errors": c[0], "warnings": c[1] }))
                .collect();
            let cov = zoa_anim_assets::authoring::coverage(&set);
            let coverage: Vec<Value> = cov
                .profiles
                .iter()
                .map(|p| {
                    json!({ "profile": p.profile, "states": p.states_checked, "exact": p.exact,
                            "fallback_only": p.fallback_only, "default_only": p.default_only,
                            "unresolved": p.unresolved, "dead_rows": p.dead_rows.len(), "error": p.error })
                })
                .collect();
            let sets: Vec<Value> = set
                .player_profile_sets
                .iter()
                .map(|s| {
                    let classes: Vec<Value> = s
                        .value
                        .profiles
                        .iter()
                        .map(|e| {
                            json!({ "class": e.class.name(), "binding_profile": e.binding_profile,
                                    "animation_profile": e.animation_profile, "animation_graph": e.animation_graph })
                        })
                        .collect();
                    json!({ "id": s.value.id, "path": defs_virtual(app, &s.file),
                            "default": s.value.default_profile.name(), "classes": classes })
                })
                .collect();
            let dir = &app.roots.defs().dir;
            let mut models: BTreeMap<String, Value> = BTreeMap::new();
            for m in set
                .animation_graphs
                .iter()
                .map(|g| g.value.model.clone())
                .chain(set.clips.iter().map(|c| c.value.source.clone()))
            {
                let path = dir.join(&m);
                let entry = json!({ "written": m, "path": app.roots.to_virtual(&path), "exists": path.is_file() });
                models.entry(m).or_insert(entry);
            }
            let presets: Vec<Value> = set
                .preview_presets
                .iter()
                .map(|p| json!({ "id": p.value.id, "name": p.value.name, "path": defs_virtual(app, &p.file) }))
                .collect();
            Ok(json!({
                "folder": app.roots.defs().given.display().to_string(),
                "counts": counts,
                "errors": errors,
                "warnings": warnings,
                "problems": problems,
                "coverage": coverage,
                "profile_sets": sets,
                "models": models.into_values().collect::<Vec<_>>(),
                "presets": presets,
            }))
        })
        .await?;
    Ok(Json(out))
}

#[cfg(test)]
mod tests {
    #[test]
    fn kinds_read_from_good_and_broken_text() {
        use super::files::kind_and_id;
        assert_eq!(kind_and_id("kind = \"clip\"\nid = \"walk\"\n"), (Some("clip".into()), Some("walk".into())));
        assert_eq!(
            kind_and_id("kind = \"clip\"\nid = \"walk\"\nloop = tru\n"),
            (Some("clip".into()), Some("walk".into()))
        );
        assert_eq!(kind_and_id("x = 1"), (None, None));
    }
}

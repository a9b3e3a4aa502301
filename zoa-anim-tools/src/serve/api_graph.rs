//! The graph canvas (thin adapters over [`super::graph_edit`]).
//!
//! - `POST /api/graph/view {path, text}`: what the canvas draws of `text` (the
//!   file's saved or unsaved text), `validate`'s diagnostics of it (in its
//!   folder, nothing written), each with the row it concerns (`target`),
//!   the clips of the graph's skeleton and the models the folder's clips use.
//! - `POST /api/graph/edit {path, text, edits}`: the text with the edits
//!   applied, and its view (nothing written: the page saves with `/api/save`).
//! - `POST /api/graph/rename_parameter {path, text, parameter, name}`: the
//!   graph's text with parameter row `parameter` renamed, and each binding
//!   profile that binds it for this graph (through a player profile set)
//!   with its new text, its version on disk and the lines that change —
//!   for the page to show before it applies anything.

use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use serde::Deserialize;
use serde_json::{Value, json};
use zoa_anim_assets::defs::DefinitionSet;
use zoa_anim_core::AnimationBindingProfile;

use super::api_defs::{defs_virtual, load};
use super::diag_json;
use super::files;
use super::graph_edit::{self, Edit};
use super::{ApiError, ApiResult, App};

/// Body of the view request.
#[derive(Debug, Deserialize)]
pub struct ViewBody {
    path: String,
    text: String,
}

/// Body of the edit request.
#[derive(Debug, Deserialize)]
pub struct EditBody {
    path: String,
    text: String,
    edits: Vec<Edit>,
}

/// Body of the rename request.
#[derive(Debug, Deserialize)]
pub struct RenameBody {
    path: String,
    text: String,
    parameter: usize,
    name: String,
}

fn checked_text(text: &str) -> Result<(), ApiError> {
    if text.len() as u64 > zoa_anim_assets::defs::MAX_FILE_BYTES {
        return Err(ApiError::bad("the text is larger than a definition file may be"));
    }
    Ok(())
}

fn edit_error(e: graph_edit::EditError) -> ApiError {
    ApiError::unprocessable(e.0).with("edit", true)
}

/// `path/..` folded lexically (`a/b/../c` → `a/c`); leading `..` kept.
fn fold(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::ParentDir if out.components().next_back().is_some_and(|l| matches!(l, Component::Normal(_))) => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// Joint names of the first skin of the model at `key` (as the folder load decoded it).
fn joints_of(set: &DefinitionSet, key: &Path) -> Option<Vec<Option<String>>> {
    let model = set.model(key)?.ok()?;
    Some(model.skeletons.first()?.joints().iter().map(|j| j.name.clone()).collect())
}

/// The folder's clips whose model is the graph's (the same file, or a file
/// with the same skeleton), with their files.
fn skeleton_clips(app: &App, set: &DefinitionSet, rel: &Path, model: Option<&str>) -> Vec<Value> {
    let dir = &app.roots.defs().dir;
    let Some(model) = model.filter(|m| !m.is_empty()) else { return Vec::new() };
    let key = dir.join(fold(&rel.parent().unwrap_or(Path::new("")).join(model)));
    let canon = std::fs::canonicalize(&key).ok();
    let joints = joints_of(set, &key);
    let mut clips: Vec<Value> = set
        .clips
        .iter()
        .filter(|c| {
            let ckey = dir.join(&c.value.source);
            let same_file = canon.is_some() && std::fs::canonicalize(&ckey).ok() == canon;
            same_file || (joints.is_some() && joints_of(set, &ckey) == joints)
        })
        .map(|c| json!({ "id": c.value.id, "path": defs_virtual(app, &c.file), "loop": c.value.loop_hint }))
        .collect();
    clips.sort_by(|a, b| a["id"].as_str().cmp(&b["id"].as_str()));
    clips
}

/// The models the folder's clips use, written relative to the graph file at `rel`.
fn models(set: &DefinitionSet, rel: &Path) -> Vec<Value> {
    let depth = rel.parent().map_or(0, |p| p.components().count());
    let mut out: Vec<String> = set
        .clips
        .iter()
        .map(|c| {
            let source = &c.value.source;
            if Path::new(source).is_absolute() { source.clone() } else { format!("{}{source}", "../".repeat(depth)) }
        })
        .collect();
    out.sort();
    out.dedup();
    out.into_iter().map(Value::from).collect()
}

/// `POST /api/graph/view`.
pub async fn view(State(app): State<Arc<App>>, Json(b): Json<ViewBody>) -> ApiResult {
    checked_text(&b.text)?;
    let rel = app.roots.defs_toml(&b.path)?;
    let out = app
        .blocking(move |app| {
            let view = graph_edit::view(&b.text).map_err(edit_error)?;
            let set = load(app, &[(rel.clone(), b.text.clone())]);
            let diagnostics: Vec<Value> = set
                .diagnostics
                .iter()
                .filter(|d| d.file == rel)
                .map(|d| {
                    let mut j = diag_json::diagnostic(d, Some(&b.text));
                    j["target"] = json!(graph_edit::target_of(&d.field));
                    j
                })
                .collect();
            let used_by = view.id.as_deref().map(|id| players_of(&set, id)).unwrap_or_default();
            Ok(json!({
                "view": view,
                "diagnostics": diagnostics,
                "clips": skeleton_clips(app, &set, &rel, view.model.as_deref()),
                "models": models(&set, &rel),
                "used_by": used_by,
            }))
        })
        .await?;
    Ok(Json(out))
}

/// `(player profile set, class, binding profile)` of every class that plays graph `id`.
fn classes_playing<'s>(set: &'s DefinitionSet, id: &str) -> Vec<(&'s str, &'static str, &'s str)> {
    let mut out = Vec::new();
    for s in &set.player_profile_sets {
        let default_graph = s.value.resolve_profile(s.value.default_profile).and_then(|e| e.animation_graph.as_deref());
        for e in &s.value.profiles {
            if e.animation_graph.as_deref().or(default_graph) == Some(id) {
                out.push((s.value.id.as_str(), e.class.name(), e.binding_profile.as_str()));
            }
        }
    }
    out
}

fn players_of(set: &DefinitionSet, id: &str) -> Vec<Value> {
    classes_playing(set, id)
        .into_iter()
        .map(|(s, class, profile)| json!({ "profile_set": s, "class": class, "binding_profile": profile }))
        .collect()
}

/// `POST /api/graph/edit`.
pub async fn edit(State(app): State<Arc<App>>, Json(b): Json<EditBody>) -> ApiResult {
    checked_text(&b.text)?;
    app.roots.defs_toml(&b.path)?;
    let out = app
        .blocking(move |_| {
            let text = graph_edit::apply(&b.text, &b.edits).map_err(edit_error)?;
            let view = graph_edit::view(&text).map_err(edit_error)?;
            Ok(json!({ "text": text, "view": view }))
        })
        .await?;
    Ok(Json(out))
}

/// `POST /api/graph/rename_parameter`.
pub async fn rename_parameter(State(app): State<Arc<App>>, Json(b): Json<RenameBody>) -> ApiResult {
    checked_text(&b.text)?;
    let rel = app.roots.defs_toml(&b.path)?;
    let out = app
        .blocking(move |app| {
            let view = graph_edit::view(&b.text).map_err(edit_error)?;
            let old = view
                .parameters
                .iter()
                .find(|p| p.index == b.parameter)
                .and_then(|p| p.fields["name"].as_str().map(str::to_owned))
                .ok_or_else(|| ApiError::bad(format!("no parameters[{}]", b.parameter)))?;
            let edits = [Edit::RenameParameter { parameter: b.parameter, name: b.name.clone() }];
            let text = graph_edit::apply(&b.text, &edits).map_err(edit_error)?;
            let new = b.name.trim();
            let set = load(app, &[(rel.clone(), b.text.clone())]);
            let id = view.id.clone().unwrap_or_default();
            let mut profiles: Vec<&str> = classes_playing(&set, &id).into_iter().map(|(_, _, p)| p).collect();
            profiles.sort_unstable();
            profiles.dedup();
            let mut out_files = Vec::new();
            for p in profiles {
                let Some(loaded) = set.binding_profiles.iter().find(|l| l.value.profile_id() == p) else { continue };
                let vpath = defs_virtual(app, &loaded.file);
                let resolved = app.roots.existing_file(&vpath)?;
                let (profile_text, version) = files::read_text(&resolved.abs)?;
                let (renamed, changes) =
                    graph_edit::rename_bound_parameter(&profile_text, &old, new).map_err(edit_error)?;
                if !changes.is_empty() {
                    out_files.push(json!({ "path": vpath, "version": version, "text": renamed, "changes": changes }));
                }
            }
            let changes = graph_edit::changed_lines(&b.text, &text);
            Ok(json!({ "text": text, "changes": changes, "files": out_files, "from": old, "to": new }))
        })
        .await?;
    Ok(Json(out))
}

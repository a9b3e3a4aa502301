//! The clip editor (thin adapters over [`super::graph_edit::clip`] and the pipeline).
//!
//! - `POST /api/clip/view {path, text}`: the clip as the editor shows it
//!   (source, animation, rate, loop, notifies), `validate`'s diagnostics of
//!   `text` in its folder (nothing written), the skeleton's name and model,
//!   and, when the folder plays, the clip sampled at 30 Hz from start to end
//!   (animation and playback length, joint positions per tick) for the
//!   scrubbed figure.
//! - `POST /api/clip/edit {path, text, set: {rate?, loop?, notifies?}}`: the
//!   text with those fields set (`null` removes one); nothing written.

use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::api_defs::load;
use super::diag_json;
use super::graph_edit::{self, clip};
use super::pipeline;
use super::{ApiError, ApiResult, App};

/// Ticks per second of the sampled figure.
const SAMPLE_HZ: f32 = 30.0;

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
    set: Map<String, Value>,
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

/// `POST /api/clip/view`.
pub async fn view(State(app): State<Arc<App>>, Json(b): Json<ViewBody>) -> ApiResult {
    checked_text(&b.text)?;
    let rel = app.roots.defs_toml(&b.path)?;
    let out = app
        .blocking(move |app| {
            let view = clip::view(&b.text).map_err(edit_error)?;
            let set = load(app, &[(rel.clone(), b.text.clone())]);
            let diagnostics: Vec<Value> = set
                .diagnostics
                .iter()
                .filter(|d| d.file == rel)
                .map(|d| diag_json::diagnostic(d, Some(&b.text)))
                .collect();
            let loaded = view.id.as_deref().and_then(|id| set.clips.iter().find(|c| c.value.id == id && c.file == rel));
            let model = loaded.map(|c| app.roots.defs().dir.join(&c.value.source));
            let skeleton = model.as_ref().and_then(|m| {
                let asset = set.model(m)?.ok()?;
                let sk = asset.skeletons.first()?;
                Some(json!({ "name": sk.name(), "joints": sk.joint_count() }))
            });
            let samples = match (&view.id, loaded) {
                (Some(id), Some(_)) => match pipeline::clip_samples(app, &set, id, SAMPLE_HZ) {
                    Ok(s) => s,
                    Err(e) => json!({ "problems": e.problems() }),
                },
                _ => json!({ "problems": ["the clip does not load; fix its problems to see it play"] }),
            };
            Ok(json!({
                "view": view,
                "diagnostics": diagnostics,
                "model": model.and_then(|m| app.roots.to_virtual(&m)),
                "skeleton": skeleton,
                "samples": samples,
            }))
        })
        .await?;
    Ok(Json(out))
}

/// `POST /api/clip/edit`.
pub async fn edit(State(app): State<Arc<App>>, Json(b): Json<EditBody>) -> ApiResult {
    checked_text(&b.text)?;
    app.roots.defs_toml(&b.path)?;
    let out = app
        .blocking(move |_| {
            let text = clip::apply(&b.text, &b.set).map_err(edit_error)?;
            let view = clip::view(&text).map_err(edit_error)?;
            Ok(json!({ "text": text, "view": view }))
        })
        .await?;
    Ok(Json(out))
}

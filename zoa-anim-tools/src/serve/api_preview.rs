//! The Preview Lab.
//!
//! - `GET /api/presets`: the folder's preview presets (id, name, steps, duration) and profile sets.
//! - `POST /api/preview/run {preset, rate, profile_set}`: runs it through the pipeline with that
//!   player profile set (default: the first by id, as `zoa-anim preview`); per tick the states,
//!   selector rows, binding values, events, root motion, joint positions, the pose's inputs
//!   (`contributions`), the sound cues (`sounds`) and the IK goals (`ik`), with the sound
//!   profile played (or why none) and the ground (the shapes: `pipeline::LabRun::to_json`).
//! - `POST /api/preview/export {preset, rate, format}`: `json` / `csv` (the capture files of
//!   `zoa-anim preview`) or `timeline` / `frames` (its PNGs), as a download.

use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::{Value, json};
use zoa_anim_core::preview::PreviewStep;

use super::api_defs::{defs_virtual, load};
use super::pipeline::{self, PipelineError};
use super::{ApiError, ApiResult, App};

/// A step as the preset file writes it.
fn step_text(s: &PreviewStep) -> String {
    use zoa_anim_core::preview::BindingValue;
    match s {
        PreviewStep::Set { binding, value } => {
            let v = match value {
                BindingValue::Bool(b) => b.to_string(),
                BindingValue::Float(f) => f.to_string(),
                BindingValue::Int(i) => i.to_string(),
            };
            format!("set {} = {v}", binding.as_str())
        }
        PreviewStep::Fire { binding } => format!("fire {}", binding.as_str()),
        PreviewStep::PlaySlot { slot } => format!("play_slot {}", slot.as_str()),
        PreviewStep::PlayState { state, blend: Some(b) } => format!("play_state {state} over {b} s"),
        PreviewStep::PlayState { state, blend: None } => format!("play_state {state}"),
        PreviewStep::SetTags { tags } => format!("tags {tags}"),
        PreviewStep::Wait { seconds } => format!("wait {seconds} s"),
    }
}

/// `GET /api/presets`.
pub async fn presets(State(app): State<Arc<App>>) -> ApiResult {
    let out = app
        .blocking(|app| {
            let set = load(app, &[]);
            let mut list: Vec<Value> = set
                .preview_presets
                .iter()
                .map(|p| {
                    json!({
                        "id": p.value.id,
                        "name": p.value.name,
                        "path": defs_virtual(app, &p.file),
                        "duration": p.value.duration(),
                        "steps": p.value.steps.iter().map(step_text).collect::<Vec<_>>(),
                    })
                })
                .collect();
            list.sort_by(|a, b| a["id"].as_str().cmp(&b["id"].as_str()));
            Ok(json!({ "presets": list, "profile_sets": pipeline::profile_sets(&set),
                       "default_rate": crate::preview::DEFAULT_RATE }))
        })
        .await?;
    Ok(Json(out))
}

/// Body of the run and export requests.
#[derive(Debug, Deserialize)]
pub struct RunBody {
    preset: String,
    #[serde(default)]
    rate: Option<f32>,
    #[serde(default)]
    format: Option<String>,
    /// Player profile set id (default: the first by id, as `zoa-anim preview`).
    #[serde(default)]
    profile_set: Option<String>,
}

fn checked_rate(rate: Option<f32>) -> Result<f32, ApiError> {
    let rate = rate.unwrap_or(crate::preview::DEFAULT_RATE);
    if rate.is_finite() && rate > 0.0 && rate <= 240.0 {
        Ok(rate)
    } else {
        Err(ApiError::bad(format!("rate {rate} must be a number of Hz in (0, 240]")))
    }
}

fn lab_error(e: PipelineError) -> ApiError {
    let problems = e.problems();
    let status = match e {
        PipelineError::Setup(_) => ApiError::unprocessable("the preview cannot run"),
        PipelineError::Preset(ref p) => ApiError::bad(p.clone()),
        PipelineError::Budget(ref p) => ApiError::bad(p.clone()).with("over_budget", true),
    };
    status.with("problems", problems)
}

/// Runs the request's preset as a cancellable job (a client that goes away
/// stops it between two ticks and frees its slot) and turns the run into the
/// answer's bytes inside the same job, so the run's memory is counted in the
/// job's slot until it is gone.
async fn lab_job<T: Send + 'static>(
    app: &Arc<App>,
    b: RunBody,
    rate: f32,
    finish: impl FnOnce(pipeline::LabRun) -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    app.job(move |app, job| {
        let set = load(app, &[]);
        let run = pipeline::run_preset(app, &set, b.profile_set.as_deref(), &b.preset, rate, job)
            .map_err(lab_error)?
            .ok_or_else(|| ApiError::internal("cancelled: the client went away"))?;
        finish(run)
    })
    .await
}

/// `POST /api/preview/run`.
pub async fn run(State(app): State<Arc<App>>, Json(b): Json<RunBody>) -> Result<Response, ApiError> {
    let rate = checked_rate(b.rate)?;
    let body = lab_job(&app, b, rate, |run| Ok(run.to_json())).await?;
    Ok(([(header::CONTENT_TYPE, "application/json")], body).into_response())
}

/// `POST /api/preview/export`.
pub async fn export(State(app): State<Arc<App>>, Json(b): Json<RunBody>) -> Result<Response, ApiError> {
    let rate = checked_rate(b.rate)?;
    let format = b.format.clone().unwrap_or_default();
    if !["json", "csv", "timeline", "frames"].contains(&format.as_str()) {
        return Err(ApiError::bad("format is one of json, csv, timeline, frames"));
    }
    let (ty, name, bytes) =
        lab_job(&app, b, rate, move |run| run.export(&format).ok_or_else(|| ApiError::bad("unknown format"))).await?;
    let disposition = format!("attachment; filename=\"{}\"", name.replace(['"', '\\', '\r', '\n'], "_"));
    Ok(([(header::CONTENT_TYPE, ty.to_owned()), (header::CONTENT_DISPOSITION, disposition)], bytes).into_response())
}

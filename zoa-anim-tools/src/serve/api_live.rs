//! The Preview Lab's live mode: free play of a graph (every parameter
//! settable while it plays) or of one clip (loop, speed).
//!
//! - `POST /api/live/start {mode: "graph", graph, rate}` or `{mode: "clip",
//!   clip, loop, rate}`: sets the session up (a heavy job: the folder load
//!   and the character's compilation) and answers its id, the parameters,
//!   the skeleton and the first frame. It ends the session before it: one
//!   session plays at a time. With `unsaved: {path, text}` the folder is read
//!   with that text in place of the file (an unsaved graph plays as edited).
//! - `POST /api/live/poll {session}`: advances the session by the time
//!   passed since the last poll (at most a quarter second of simulation, in
//!   whole ticks) and answers the frame now and the events delivered since.
//! - `POST /api/live/set {session, parameter, value}` (a number, a bool, or
//!   `null` to fire a trigger) and `{session, playback_speed}`.
//! - `POST /api/live/stop {session}`.
//! - `POST /api/live/mesh {session}`: the skinned mesh of the session's
//!   character (its model's first skin; [`zoa_anim_assets::gltf::load_skinned_mesh`]),
//!   for the page's WebGL view; frames carry the runtime's skinning matrices
//!   (`skin`) when the session was started with `skin: true`.
//!
//! A session ends when its page stops polling for [`IDLE`] (the page went
//! away), when another starts, when stopped, or after the Lab's budget of
//! ticks ([`zoa_anim_core::budget::LAB_TICKS`]). Polls are small bounded
//! work (one character, at most [`crate::preview::MAX_ADVANCE`] seconds)
//! and take no job slot; the set-up does.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Json;
use axum::extract::State;
use serde::Deserialize;
use serde_json::{Value, json};

use super::api_defs::load;
use super::pipeline::{self, LiveMode, LiveRun, LiveValue};
use super::{ApiError, ApiResult, App};

/// A session nobody polled for this long has ended.
pub const IDLE: Duration = Duration::from_secs(5);

/// Highest tick rate of a live session, Hz.
const MAX_RATE: f32 = 120.0;

/// The one live session (or none).
#[derive(Debug, Default)]
pub struct Sessions {
    current: Mutex<Option<Session>>,
}

#[derive(Debug)]
struct Session {
    id: String,
    run: LiveRun,
    last_poll: Instant,
}

impl Sessions {
    fn lock(&self) -> std::sync::MutexGuard<'_, Option<Session>> {
        self.current.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// Body of the start request.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StartBody {
    mode: String,
    #[serde(default)]
    graph: Option<String>,
    #[serde(default)]
    clip: Option<String>,
    #[serde(default, rename = "loop")]
    looping: Option<bool>,
    #[serde(default)]
    rate: Option<f32>,
    /// An unsaved definition to play in place of its file (`path`, `text`), as validation does.
    #[serde(default)]
    unsaved: Option<Unsaved>,
    /// Frames carry the skinning matrices (for the skinned character).
    #[serde(default)]
    skin: bool,
}

/// An unsaved buffer.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Unsaved {
    path: String,
    text: String,
}

/// Body of the poll, set and stop requests.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SessionBody {
    session: String,
    #[serde(default)]
    parameter: Option<String>,
    #[serde(default)]
    value: Option<Value>,
    #[serde(default)]
    playback_speed: Option<f32>,
}

fn setup_error(e: pipeline::PipelineError) -> ApiError {
    let problems = e.problems();
    match e {
        pipeline::PipelineError::Setup(_) => ApiError::unprocessable("free play cannot start"),
        _ => ApiError::bad(problems.join("; ")),
    }
    .with("problems", problems)
}

/// `POST /api/live/start`.
pub async fn start(State(app): State<Arc<App>>, Json(b): Json<StartBody>) -> ApiResult {
    let rate = b.rate.unwrap_or(crate::preview::DEFAULT_RATE);
    if !(rate.is_finite() && rate > 0.0 && rate <= MAX_RATE) {
        return Err(ApiError::bad(format!("rate {rate} must be a number of Hz in (0, {MAX_RATE}]")));
    }
    let mode = match (b.mode.as_str(), b.graph, b.clip) {
        ("graph", Some(g), _) if !g.is_empty() => LiveMode::Graph(g),
        ("clip", _, Some(c)) if !c.is_empty() => LiveMode::Clip { clip: c, looping: b.looping.unwrap_or(true) },
        _ => return Err(ApiError::bad("`mode` is `graph` (with `graph`) or `clip` (with `clip`)")),
    };
    let overlay = match b.unsaved {
        Some(u) => {
            if u.text.len() as u64 > zoa_anim_assets::defs::MAX_FILE_BYTES {
                return Err(ApiError::bad("the text is larger than a definition file may be"));
            }
            vec![(app.roots.defs_toml(&u.path)?, u.text)]
        }
        None => Vec::new(),
    };
    let skin = b.skin;
    let run = app
        .blocking(move |app| {
            let set = load(app, &overlay);
            let mut run = pipeline::start_live(app, &set, &mode, rate).map_err(setup_error)?;
            run.send_skinning(skin);
            Ok(run)
        })
        .await?;
    let id = super::random_token().map_err(|e| ApiError::internal(e.to_string()))?;
    let mut out = run.header_json();
    out["frame"] = run.frame_json();
    out["session"] = json!(id);
    out["rate"] = json!(rate);
    *app.live.lock() = Some(Session { id: id.clone(), run, last_poll: Instant::now() });
    tokio::spawn(end_when_idle(Arc::clone(&app), id));
    Ok(Json(out))
}

/// Ends session `id` once nobody polls it for [`IDLE`].
async fn end_when_idle(app: Arc<App>, id: String) {
    loop {
        tokio::time::sleep(Duration::from_millis(500)).await;
        let mut current = app.live.lock();
        match current.as_ref() {
            Some(s) if s.id == id => {
                if s.last_poll.elapsed() > IDLE {
                    *current = None;
                    return;
                }
            }
            _ => return,
        }
    }
}

/// Runs `f` on session `id` on a blocking thread.
async fn with_session<T: Send + 'static>(
    app: &Arc<App>,
    id: String,
    f: impl FnOnce(&mut Option<Session>) -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    let app = Arc::clone(app);
    tokio::task::spawn_blocking(move || {
        let mut current = app.live.lock();
        if current.as_ref().is_none_or(|s| s.id != id) {
            return Err(ApiError::not_found("no such live session (it ended: press Play again)").with("ended", true));
        }
        f(&mut current)
    })
    .await
    .map_err(|e| ApiError::internal(format!("the live session failed: {e}")))?
}

/// `POST /api/live/poll`.
pub async fn poll(State(app): State<Arc<App>>, Json(b): Json<SessionBody>) -> ApiResult {
    let out = with_session(&app, b.session, |current| {
        let s = current.as_mut().expect("checked");
        let now = Instant::now();
        let passed = now.duration_since(s.last_poll).as_secs_f64();
        s.last_poll = now;
        let events = s.run.advance(passed).map_err(ApiError::internal)?;
        let budget = &zoa_anim_core::budget::LAB_TICKS;
        let frame = s.run.frame_json();
        if budget.check("this live session", s.run.ticks()).is_err() {
            *current = None;
            return Ok(json!({ "frame": frame, "events": events,
                              "ended": format!("the session ran the Lab's {} ticks; press Play again", budget.max) }));
        }
        Ok(json!({ "frame": frame, "events": events }))
    })
    .await?;
    Ok(Json(out))
}

fn live_value(v: Option<&Value>) -> Result<LiveValue, ApiError> {
    match v {
        None | Some(Value::Null) => Ok(LiveValue::Fire),
        Some(Value::Bool(b)) => Ok(LiveValue::Bool(*b)),
        Some(Value::Number(n)) => {
            n.as_f64().filter(|x| x.is_finite()).map(LiveValue::Number).ok_or_else(|| ApiError::bad("not a number"))
        }
        Some(other) => {
            Err(ApiError::bad(format!("{other} is not a parameter value (a number, a bool, or null to fire)")))
        }
    }
}

/// `POST /api/live/set`.
pub async fn set(State(app): State<Arc<App>>, Json(b): Json<SessionBody>) -> ApiResult {
    let value = live_value(b.value.as_ref())?;
    if let Some(speed) = b.playback_speed
        && !(speed.is_finite() && (0.0..=zoa_anim_core::budget::MAX_SPEED).contains(&speed))
    {
        return Err(ApiError::bad(format!(
            "playback speed {speed} must be in 0..={}",
            zoa_anim_core::budget::MAX_SPEED
        )));
    }
    let (parameter, speed) = (b.parameter, b.playback_speed);
    if parameter.is_none() && speed.is_none() {
        return Err(ApiError::bad("set a `parameter` (with `value`) or the `playback_speed`"));
    }
    with_session(&app, b.session, move |current| {
        let s = current.as_mut().expect("checked");
        if let Some(speed) = speed {
            s.run.set_playback_speed(speed);
        }
        if let Some(p) = parameter {
            s.run.set(&p, value).map_err(ApiError::bad)?;
        }
        Ok(())
    })
    .await?;
    Ok(Json(json!({ "ok": true })))
}

/// Most vertices of a mesh the Workbench sends a page (the assets crate's
/// own limit, [`zoa_anim_assets::gltf::MAX_MESH_VERTICES`], is for any viewer).
pub const MAX_LAB_MESH_VERTICES: usize = 1 << 18;

fn rounded(values: impl Iterator<Item = f32>, scale: f64) -> Value {
    Value::from(values.map(|x| (f64::from(x) * scale).round() / scale).collect::<Vec<f64>>())
}

/// `POST /api/live/mesh {session}`: the skinned mesh of the session's
/// character (its model's first skin): flat positions, normals, joints,
/// weights and triangle indices, as the page's renderer takes them.
pub async fn mesh(State(app): State<Arc<App>>, Json(b): Json<SessionBody>) -> ApiResult {
    let model =
        with_session(&app, b.session, |current| Ok(current.as_ref().and_then(|s| s.run.model().map(Into::into))))
            .await?
            .ok_or_else(|| ApiError::unprocessable("the character has no model with a skin"))?;
    let model: std::path::PathBuf = model;
    if !app.roots.contains(&model) {
        return Err(ApiError::new(axum::http::StatusCode::FORBIDDEN, "the model lies outside --defs and --assets"));
    }
    let out = app
        .blocking(move |_| {
            let mesh = zoa_anim_assets::gltf::load_skinned_mesh(&model, 0)
                .map_err(|e| ApiError::unprocessable(format!("the character's mesh cannot be drawn: {e}")))?;
            if mesh.positions.len() > MAX_LAB_MESH_VERTICES {
                return Err(ApiError::unprocessable(format!(
                    "the mesh has {} vertices; the Workbench draws at most {MAX_LAB_MESH_VERTICES}",
                    mesh.positions.len()
                )));
            }
            Ok(json!({
                "name": mesh.name,
                "positions": rounded(mesh.positions.iter().flatten().copied(), 1e5),
                "normals": rounded(mesh.normals.iter().flatten().copied(), 1e4),
                "joints": mesh.joints.iter().flatten().copied().collect::<Vec<u16>>(),
                "weights": rounded(mesh.weights.iter().flatten().copied(), 1e4),
                "indices": mesh.indices,
            }))
        })
        .await?;
    Ok(Json(out))
}

/// `POST /api/live/stop`.
pub async fn stop(State(app): State<Arc<App>>, Json(b): Json<SessionBody>) -> ApiResult {
    with_session(&app, b.session, |current| {
        *current = None;
        Ok(())
    })
    .await?;
    Ok(Json(json!({ "stopped": true })))
}

//! `zoa-anim serve --defs DIR [--assets DIR]... [--port N] [--bind ADDR]`: the
//! Workbench, a local web app for authoring and previewing a definition
//! folder (Definitions, Auto Binding, Binding Browser, IK Targets, Preview
//! Lab, Overview, and the four-step binding wizard).
//!
//! # Shape
//!
//! ```text
//!  browser ──HTTP──▶ security::guard (Host, token, Origin) ──▶ router
//!                                                                │
//!     static files (web/, embedded) ◀── GET /, /static/*         │
//!     api_* modules ◀── /api/*  ──spawn_blocking──▶ the same library calls as the CLI
//!                                                   (load_folder, coverage, scan/autobind,
//!                                                    bone discovery, preview)
//! ```
//!
//! Every handler is a thin adapter: it checks the request's paths with
//! [`roots::Roots`], runs the library call the matching CLI command runs on
//! a blocking thread, and returns JSON. Writes go through [`files::Writer`]
//! (atomic, stale-checked, never overwriting without a confirmed choice).
//!
//! What the server opens on a request's behalf is confined to `--defs` and
//! `--assets` (see [`roots`]); loading the definition folder itself follows the
//! definitions' own references (models, sounds) wherever they point, exactly
//! as `zoa-anim validate` does, and only diagnostics come back from those.
//!
//! The server prints `zoa-anim serve: Workbench at http://ADDR:PORT/` on
//! stdout once it listens (scripts and tests read the port from it) and
//! runs until interrupted. Exit codes: 0 stopped, 2 a folder is missing or
//! the address cannot be bound.

mod api_autobind;
mod api_bindings;
mod api_clip;
mod api_defs;
mod api_graph;
mod api_grips;
mod api_ik;
mod api_live;
mod api_preview;
mod api_wizard;
mod diag_json;
mod files;
mod graph_edit;
mod pipeline;
pub mod roots;
mod security;
mod web;

use std::io::Write;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use zoa_anim_assets::authoring::ScanCache;

use self::files::{FileError, Writer};
use self::roots::{PathError, Roots};

/// Arguments of `zoa-anim serve`.
#[derive(Debug, clap::Args)]
#[command(after_help = "Open the printed address in a browser. The server answers only on that address; every \
write needs the page's session token and an Origin header naming the server. Exit codes: 0 stopped, 2 a folder \
is missing or the address cannot be bound.")]
pub struct Args {
    /// Definition folder to author (read and written).
    #[arg(long)]
    pub defs: PathBuf,
    /// Folders of models and clips (read only); repeatable.
    #[arg(long)]
    pub assets: Vec<PathBuf>,
    /// Port to listen on (0: any free port; the address is printed).
    #[arg(long, default_value_t = 7878)]
    pub port: u16,
    /// Address to listen on. Anything but a loopback address exposes your
    /// definition folder to the network.
    #[arg(long, default_value_t = IpAddr::V4(Ipv4Addr::LOCALHOST))]
    pub bind: IpAddr,
}

/// Longest preview (ticks) the Preview Lab sends to the page; longer presets
/// are for `zoa-anim preview` (the budget [`zoa_anim_core::budget::LAB_TICKS`]).
pub const MAX_LAB_TICKS: usize = zoa_anim_core::budget::LAB_TICKS.max as usize;

/// Heavy jobs (folder loads, scans, previews) running at once.
pub const MAX_JOBS: usize = 2;

/// Requests handled at once (their bodies, up to 9 MiB each, are in memory
/// while they are); more wait for a turn.
pub const MAX_REQUESTS: usize = 8;

/// Everything the handlers share.
pub struct App {
    /// The folders the server may touch.
    pub roots: Roots,
    /// Session token (hex).
    pub token: String,
    /// Accepted `Host` header values.
    pub hosts: Vec<String>,
    /// Accepted `Origin` header values.
    pub origins: Vec<String>,
    /// Serialized, atomic writes.
    pub writer: Writer,
    /// Clip-library scan results, reused while files are unchanged.
    pub scans: Mutex<ScanCache>,
    /// Bounds the heavy jobs running at once ([`MAX_JOBS`]); a job holds its
    /// permit until it ends, whatever happens to its request.
    pub jobs: Arc<tokio::sync::Semaphore>,
    /// Bounds the requests in progress ([`MAX_REQUESTS`]).
    pub requests: Arc<tokio::sync::Semaphore>,
    /// Jobs running now, and jobs cancelled because their client went away.
    pub stats: JobStats,
    /// The Preview Lab's live session (at most one).
    pub live: api_live::Sessions,
}

/// Counters of the heavy jobs (`GET /api/jobs`).
#[derive(Debug, Default)]
pub struct JobStats {
    /// Jobs running on a blocking thread now.
    pub running: AtomicUsize,
    /// Jobs whose request was dropped (the client went away) before they ended.
    pub cancelled: AtomicUsize,
}

impl std::fmt::Debug for App {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("App").field("roots", &self.roots).field("hosts", &self.hosts).finish_non_exhaustive()
    }
}

/// A job's cancellation flag: set when the request that started it is
/// dropped (hyper drops a handler's future when its client disconnects).
#[derive(Debug, Default)]
pub struct Job {
    cancelled: AtomicBool,
}

impl Job {
    /// Whether the job's client went away; a long job checks this between
    /// steps and stops.
    pub fn cancelled(&self) -> bool {
        self.cancelled.load(Ordering::Relaxed)
    }
    /// The flag itself (for loops that poll it).
    pub fn flag(&self) -> &AtomicBool {
        &self.cancelled
    }
}

/// Cancels a job when dropped before [`CancelOnDrop::finished`].
struct CancelOnDrop {
    job: Arc<Job>,
    app: Arc<App>,
    done: bool,
}

impl CancelOnDrop {
    fn finished(mut self) {
        self.done = true;
    }
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        if !self.done {
            self.job.cancelled.store(true, Ordering::Relaxed);
            self.app.stats.cancelled.fetch_add(1, Ordering::Relaxed);
        }
    }
}

impl App {
    /// The shared state of a server over `roots` with session `token`,
    /// answering to `hosts` (and pages from `origins`).
    pub fn new(roots: Roots, token: String, hosts: Vec<String>, origins: Vec<String>) -> App {
        App {
            roots,
            token,
            hosts,
            origins,
            writer: Writer::default(),
            scans: Mutex::new(ScanCache::new()),
            jobs: Arc::new(tokio::sync::Semaphore::new(MAX_JOBS)),
            requests: Arc::new(tokio::sync::Semaphore::new(MAX_REQUESTS)),
            stats: JobStats::default(),
            live: api_live::Sessions::default(),
        }
    }

    /// Runs library work on a blocking thread, at most [`MAX_JOBS`] at a time.
    pub async fn blocking<T: Send + 'static>(
        self: &Arc<Self>,
        job: impl FnOnce(&App) -> Result<T, ApiError> + Send + 'static,
    ) -> Result<T, ApiError> {
        self.job(move |app, _| job(app)).await
    }

    /// [`App::blocking`] for a job that can stop early: it gets a [`Job`]
    /// whose flag is set when the request is dropped. The job owns its slot
    /// until it returns (a dropped request does not free it for the next one
    /// while the work goes on), and a queued job whose request is dropped
    /// never starts.
    pub async fn job<T: Send + 'static>(
        self: &Arc<Self>,
        job: impl FnOnce(&App, &Job) -> Result<T, ApiError> + Send + 'static,
    ) -> Result<T, ApiError> {
        let permit = Arc::clone(&self.jobs).acquire_owned().await.map_err(|_| ApiError::internal("shutting down"))?;
        let ctl = Arc::new(Job::default());
        let guard = CancelOnDrop { job: Arc::clone(&ctl), app: Arc::clone(self), done: false };
        let app = Arc::clone(self);
        let result = tokio::task::spawn_blocking(move || {
            let _permit = permit;
            app.stats.running.fetch_add(1, Ordering::Relaxed);
            let result = if ctl.cancelled() { Err(ApiError::internal("cancelled")) } else { job(&app, &ctl) };
            app.stats.running.fetch_sub(1, Ordering::Relaxed);
            result
        })
        .await
        .map_err(|e| ApiError::internal(format!("the job failed: {e}")));
        guard.finished();
        result?
    }
}

/// An error answer: a status and `{"error": message, ...details}`.
#[derive(Debug)]
pub struct ApiError {
    /// HTTP status.
    pub status: StatusCode,
    /// What went wrong, for people.
    pub message: String,
    /// Extra fields merged into the JSON body.
    pub details: serde_json::Map<String, serde_json::Value>,
}

impl ApiError {
    /// An error with a status and message.
    pub fn new(status: StatusCode, message: impl Into<String>) -> ApiError {
        ApiError { status, message: message.into(), details: serde_json::Map::new() }
    }
    /// 400: the request itself is wrong.
    pub fn bad(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, message)
    }
    /// 404.
    pub fn not_found(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::NOT_FOUND, message)
    }
    /// 409: the disk is not as the request expected; the page must ask the user.
    pub fn conflict(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::CONFLICT, message)
    }
    /// 422: the definitions cannot do what was asked.
    pub fn unprocessable(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, message)
    }
    /// 500.
    pub fn internal(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, message)
    }
    /// Adds a detail field.
    pub fn with(mut self, key: &str, value: impl Into<serde_json::Value>) -> ApiError {
        self.details.insert(key.to_owned(), value.into());
        self
    }
}

impl From<PathError> for ApiError {
    fn from(e: PathError) -> Self {
        ApiError::new(StatusCode::FORBIDDEN, e.to_string())
    }
}

impl From<FileError> for ApiError {
    fn from(e: FileError) -> Self {
        match e {
            FileError::Stale { ref disk } => {
                let disk = disk.clone();
                ApiError::conflict(e.to_string()).with("stale", true).with("disk_version", disk)
            }
            FileError::Exists => ApiError::conflict(e.to_string()).with("exists", true),
            FileError::Unreadable(why) => ApiError::unprocessable(why),
            FileError::Io(io) if io.kind() == std::io::ErrorKind::NotFound => ApiError::not_found(io.to_string()),
            FileError::Io(io) => ApiError::internal(io.to_string()),
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut body = self.details;
        body.insert("error".into(), self.message.into());
        (self.status, axum::Json(serde_json::Value::Object(body))).into_response()
    }
}

/// JSON result of a handler.
pub type ApiResult = Result<axum::Json<serde_json::Value>, ApiError>;

/// The Workbench's routes behind the guard (see the module docs); public so
/// tests and the fuzz target can drive the handlers without a socket.
pub fn router(app: Arc<App>) -> Router {
    Router::new()
        .route("/", get(web::index))
        .route("/static/{name}", get(web::asset))
        .route("/api/session", get(api_defs::session))
        .route("/api/jobs", get(api_defs::jobs))
        .route("/api/defs", get(api_defs::list))
        .route("/api/file", get(api_defs::read))
        .route("/api/validate", post(api_defs::validate))
        .route("/api/save", post(api_defs::save))
        .route("/api/duplicate", post(api_defs::duplicate))
        .route("/api/delete", post(api_defs::delete))
        .route("/api/coverage", get(api_defs::coverage))
        .route("/api/overview", get(api_defs::overview))
        .route("/api/autobind/scan", post(api_autobind::scan))
        .route("/api/autobind/write", post(api_autobind::write))
        .route("/api/bindings", get(api_bindings::browse))
        .route("/api/ik/models", get(api_ik::models))
        .route("/api/ik/discover", post(api_ik::discover))
        .route("/api/ik/save", post(api_ik::save))
        .route("/api/ik/grips", post(api_grips::grips))
        .route("/api/ik/grips/save", post(api_grips::save))
        .route("/api/vocabulary", get(api_wizard::vocabulary))
        .route("/api/wizard/preview", post(api_wizard::preview))
        .route("/api/wizard/write", post(api_wizard::write))
        .route("/api/presets", get(api_preview::presets))
        .route("/api/preview/run", post(api_preview::run))
        .route("/api/preview/export", post(api_preview::export))
        // The graph canvas.
        .route("/api/graph/view", post(api_graph::view))
        .route("/api/graph/edit", post(api_graph::edit))
        .route("/api/graph/rename_parameter", post(api_graph::rename_parameter))
        // The clip editor.
        .route("/api/clip/view", post(api_clip::view))
        .route("/api/clip/edit", post(api_clip::edit))
        // The Preview Lab's live mode.
        .route("/api/live/start", post(api_live::start))
        .route("/api/live/poll", post(api_live::poll))
        .route("/api/live/set", post(api_live::set))
        .route("/api/live/stop", post(api_live::stop))
        .route("/api/live/mesh", post(api_live::mesh))
        // A definition file may be up to 4 MiB; its JSON-escaped text fits in 9 MiB.
        .layer(axum::extract::DefaultBodyLimit::max(9 << 20))
        .layer(axum::middleware::from_fn_with_state(Arc::clone(&app), security::guard))
        .with_state(app)
}

pub(crate) fn random_token() -> anyhow::Result<String> {
    let mut bytes = [0u8; 24];
    getrandom::fill(&mut bytes).map_err(|e| anyhow::anyhow!("no randomness for the session token: {e}"))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

fn host_names(addr: SocketAddr) -> Vec<String> {
    let port = addr.port();
    let mut hosts = vec![format!("127.0.0.1:{port}"), format!("localhost:{port}"), format!("[::1]:{port}")];
    let own = match addr.ip() {
        IpAddr::V4(ip) => format!("{ip}:{port}"),
        IpAddr::V6(ip) => format!("[{ip}]:{port}"),
    };
    if !hosts.contains(&own) && !addr.ip().is_unspecified() {
        hosts.push(own);
    }
    hosts
}

/// Starts the server and runs until Ctrl-C.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let roots = Roots::new(&args.defs, &args.assets).map_err(|e| crate::output::fail(2, "io", e))?;
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?;
    rt.block_on(async move {
        let listener = tokio::net::TcpListener::bind(SocketAddr::new(args.bind, args.port))
            .await
            .map_err(|e| crate::output::fail(2, "io", format!("cannot listen on {}:{}: {e}", args.bind, args.port)))?;
        let addr = listener.local_addr()?;
        if !args.bind.is_loopback() {
            errln!("warning: listening on {} — anyone who can reach it can read your definitions", args.bind);
        }
        let hosts = host_names(addr);
        let origins = hosts.iter().map(|h| format!("http://{h}")).collect();
        let app = Arc::new(App::new(roots, random_token()?, hosts, origins));
        let shown =
            if addr.ip().is_unspecified() { SocketAddr::new(Ipv4Addr::LOCALHOST.into(), addr.port()) } else { addr };
        outln!("zoa-anim serve: Workbench at http://{shown}/ (Ctrl-C to stop)");
        let _ = std::io::stdout().flush();
        axum::serve(listener, router(app))
            .with_graceful_shutdown(async {
                let _ = tokio::signal::ctrl_c().await;
            })
            .await?;
        Ok(ExitCode::SUCCESS)
    })
}

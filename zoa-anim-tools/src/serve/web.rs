//! The page and its scripts and styles, embedded in the binary (no CDN: the
//! Workbench works offline). `GET /` serves `index.html` with the session
//! token in a `<meta>` tag; `GET /static/NAME` serves the other files.

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::http::{StatusCode, header};
use axum::response::{Html, IntoResponse, Response};

use super::App;

/// (name, content type, text) of every embedded file but the page.
const FILES: &[(&str, &str, &str)] = &[
    ("app.css", "text/css; charset=utf-8", include_str!("web/app.css")),
    ("main.js", JS, include_str!("web/main.js")),
    ("api.js", JS, include_str!("web/api.js")),
    ("ui.js", JS, include_str!("web/ui.js")),
    ("editor.js", JS, include_str!("web/editor.js")),
    ("definitions.js", JS, include_str!("web/definitions.js")),
    ("autobind.js", JS, include_str!("web/autobind.js")),
    ("bindings.js", JS, include_str!("web/bindings.js")),
    ("ik.js", JS, include_str!("web/ik.js")),
    ("grips.js", JS, include_str!("web/grips.js")),
    ("preview.js", JS, include_str!("web/preview.js")),
    ("overview.js", JS, include_str!("web/overview.js")),
    ("wizard.js", JS, include_str!("web/wizard.js")),
    ("skeleton_view.js", JS, include_str!("web/skeleton_view.js")),
    // The graph editor.
    ("graph.css", "text/css; charset=utf-8", include_str!("web/graph.css")),
    ("buffers.js", JS, include_str!("web/buffers.js")),
    ("graphs.js", JS, include_str!("web/graphs.js")),
    ("graph_canvas.js", JS, include_str!("web/graph_canvas.js")),
    ("graph_details.js", JS, include_str!("web/graph_details.js")),
    ("graph_live.js", JS, include_str!("web/graph_live.js")),
    ("live.js", JS, include_str!("web/live.js")),
    ("live_lab.js", JS, include_str!("web/live_lab.js")),
    ("clips.js", JS, include_str!("web/clips.js")),
    ("mesh_view.js", JS, include_str!("web/mesh_view.js")),
];

const JS: &str = "text/javascript; charset=utf-8";

const INDEX: &str = include_str!("web/index.html");

/// `GET /`.
pub async fn index(State(app): State<Arc<App>>) -> Response {
    let page = INDEX.replace("{{TOKEN}}", &app.token);
    ([(header::CACHE_CONTROL, "no-store")], Html(page)).into_response()
}

/// `GET /static/{name}`.
pub async fn asset(Path(name): Path<String>) -> Response {
    match FILES.iter().find(|(n, _, _)| *n == name) {
        Some((_, ty, text)) => {
            ([(header::CONTENT_TYPE, *ty), (header::CACHE_CONTROL, "no-cache")], *text).into_response()
        }
        None => (StatusCode::NOT_FOUND, "no such file").into_response(),
    }
}

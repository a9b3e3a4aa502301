//! Feeds arbitrary JSON request bodies to every Workbench endpoint that takes
//! one, through the server's own router and security guard but without a
//! socket (`zoa_anim_tools::serve::router` driven with `tower`'s `oneshot`),
//! the way `zoa-anim serve` receives them from a page.
//!
//! The first byte picks the endpoint (`byte % ENDPOINTS.len()`); the rest is
//! the body. Every request carries the session's Host, Origin and token, so
//! the fuzzer reaches the handlers rather than the guard. The server works on
//! a copy of `fixtures/defs/humanoid` in a fresh temporary folder, made once
//! per process (writes the fuzzer makes stay for later inputs, as they would
//! in a long editing session). A handler must answer — a status and a JSON
//! body — and never panic (a panic on a blocking job is a 500 naming the
//! failed job, caught here), hang or grow without bound.
#![no_main]

use std::path::Path;
use std::sync::{Arc, OnceLock};

use axum::body::Body;
use axum::http::{Request, StatusCode};
use libfuzzer_sys::fuzz_target;
use tower::ServiceExt;
use zoa_anim_tools::serve::roots::Roots;
use zoa_anim_tools::serve::{App, router};
use zoa_test_support::paths;

/// Every endpoint whose request has a JSON body.
const ENDPOINTS: [&str; 12] = [
    "/api/validate",
    "/api/save",
    "/api/duplicate",
    "/api/delete",
    "/api/autobind/scan",
    "/api/autobind/write",
    "/api/ik/discover",
    "/api/ik/save",
    "/api/wizard/preview",
    "/api/wizard/write",
    "/api/preview/run",
    "/api/preview/export",
];

const HOST: &str = "127.0.0.1:7878";
const ORIGIN: &str = "http://127.0.0.1:7878";
const TOKEN: &str = "fuzz";

/// The server state over a private copy of the fixture folder, and a runtime.
fn server() -> &'static (Arc<App>, tokio::runtime::Runtime) {
    static SERVER: OnceLock<(Arc<App>, tokio::runtime::Runtime)> = OnceLock::new();
    SERVER.get_or_init(|| {
        let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        // Kept for the whole process (never dropped, so left behind: delete it after a run).
        let tmp = Box::leak(Box::new(paths::temp_dir("fuzz-workbench")));
        let defs = tmp.path().join("defs");
        paths::copy_dir(&repo.join("fixtures/defs/humanoid"), &defs);
        let assets = repo.join("fixtures/models").canonicalize().unwrap();
        let roots = Roots::new(&defs, &[assets]).expect("the fixture roots");
        let app = App::new(roots, TOKEN.to_owned(), vec![HOST.to_owned()], vec![ORIGIN.to_owned()]);
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        (Arc::new(app), rt)
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&pick, body)) = data.split_first() else { return };
    let (app, rt) = server();
    let path = ENDPOINTS[usize::from(pick) % ENDPOINTS.len()];
    let request = Request::post(path)
        .header("host", HOST)
        .header("origin", ORIGIN)
        .header("x-zoa-token", TOKEN)
        .header("content-type", "application/json")
        .body(Body::from(body.to_vec()))
        .unwrap();
    let (status, bytes) = rt.block_on(async {
        let response = router(Arc::clone(app)).oneshot(request).await.expect("the router is infallible");
        let status = response.status();
        let bytes = axum::body::to_bytes(response.into_body(), 64 << 20).await.expect("a bounded body");
        (status, bytes)
    });
    if status == StatusCode::INTERNAL_SERVER_ERROR {
        let text = String::from_utf8_lossy(&bytes);
        assert!(!text.contains("the job failed"), "{path}: a handler panicked: {text}");
    }
    if path != "/api/preview/export" && status.is_success() {
        let _: serde_json::Value = serde_json::from_slice(&bytes).expect("a JSON answer");
    }
});

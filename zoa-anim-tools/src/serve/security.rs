//! The request guard every route sits behind.
//!
//! - **Host.** Every request must name the server by the address it listens
//!   on (`127.0.0.1:PORT`, `localhost:PORT`, `[::1]:PORT`, or the `--bind`
//!   address): a web page that re-points its own domain at 127.0.0.1 (DNS
//!   rebinding) sends its own domain as Host and is refused.
//! - **Token.** Every `/api/` request carries the session token in the
//!   `x-zoa-token` header. The token is random per server run and only the
//!   Workbench page (served to a same-origin request) contains it.
//! - **Origin.** Every request that is not `GET`/`HEAD` must carry an
//!   `Origin` header naming this server: browsers always send it on such
//!   requests, so a cross-site form or script is refused even before the
//!   token is checked.
//!
//! Responses carry a strict content security policy (only this server's own
//! scripts, styles and connections) and are never framed.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::App;

/// Name of the token header.
pub const TOKEN_HEADER: &str = "x-zoa-token";

const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; \
                   connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

fn refuse(status: StatusCode, message: &str) -> Response {
    (status, axum::Json(serde_json::json!({ "error": message }))).into_response()
}

/// Compares without an early exit, so timing does not reveal a prefix.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// The guard (see the module docs).
pub async fn guard(State(app): State<Arc<App>>, req: Request, next: Next) -> Response {
    // At most `MAX_REQUESTS` in progress (their bodies are in memory); the rest wait.
    let Ok(_turn) = Arc::clone(&app.requests).acquire_owned().await else {
        return refuse(StatusCode::SERVICE_UNAVAILABLE, "shutting down");
    };
    let host = req.headers().get(header::HOST).and_then(|h| h.to_str().ok()).unwrap_or("");
    if !app.hosts.iter().any(|h| h.eq_ignore_ascii_case(host)) {
        return refuse(StatusCode::FORBIDDEN, "unexpected Host header (the Workbench answers only to its own address)");
    }
    let is_api = req.uri().path().starts_with("/api/");
    if is_api {
        let token = req.headers().get(TOKEN_HEADER).map(HeaderValue::as_bytes).unwrap_or(b"");
        if !same(token, app.token.as_bytes()) {
            return refuse(StatusCode::UNAUTHORIZED, "missing or wrong session token (reload the Workbench page)");
        }
    }
    if req.method() != Method::GET && req.method() != Method::HEAD {
        let origin = req.headers().get(header::ORIGIN).and_then(|h| h.to_str().ok()).unwrap_or("");
        if !app.origins.iter().any(|o| o.eq_ignore_ascii_case(origin)) {
            return refuse(
                StatusCode::FORBIDDEN,
                "missing or foreign Origin header (writes come only from the Workbench page)",
            );
        }
    }
    let mut res = next.run(req).await;
    let h = res.headers_mut();
    h.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(CSP));
    h.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    h.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    if is_api {
        h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    }
    res
}

#[cfg(test)]
mod tests {
    #[test]
    fn token_comparison_needs_every_byte() {
        assert!(super::same(b"abc", b"abc"));
        assert!(!super::same(b"abc", b"abd"));
        assert!(!super::same(b"abc", b"ab"));
        assert!(!super::same(b"", b"a"));
    }
}

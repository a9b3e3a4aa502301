//! Shared by the Workbench's browser tests: headless Chromium driven over
//! WebDriver (chromedriver + `fantoccini`), and the small waits and
//! screenshot helpers the tests use.
//!
//! Needs Debian's `chromium` and `chromium-driver` (`/usr/bin/chromium`,
//! `/usr/bin/chromedriver`, or `ZOA_CHROMIUM` / `ZOA_CHROMEDRIVER`). Without
//! them a test prints a note and passes, unless `ZOA_REQUIRE_BROWSER=1`
//! (set by `.ci/run`, which installs them). With `ZOA_SCREENSHOTS=DIR` the
//! screenshots are also written to DIR for a person to look at.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fantoccini::key::Key;
use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::{Value, json};

/// A headless Chromium session, closed when [`Browser::run`] ends.
pub struct Browser {
    _driver: Driver,
    _profile: tempfile::TempDir,
    rt: tokio::runtime::Runtime,
    client: Client,
}

impl Browser {
    /// Starts chromedriver and a Chromium session; `None` (with a note) when
    /// they are not installed and the test may skip.
    pub fn start() -> Option<Browser> {
        let (Some(chromium), Some(chromedriver)) =
            (tool("ZOA_CHROMIUM", &["chromium", "chromium-browser"]), tool("ZOA_CHROMEDRIVER", &["chromedriver"]))
        else {
            let required = std::env::var("ZOA_REQUIRE_BROWSER").is_ok_and(|v| v == "1");
            assert!(!required, "ZOA_REQUIRE_BROWSER=1 but chromium or chromedriver is missing");
            eprintln!(
                "note: skipping the browser test: Debian's `chromium` and `chromium-driver` are not installed \
                 (`apt-get install -y chromium chromium-driver`; .ci/run installs them)"
            );
            return None;
        };
        let profile = zoa_test_support::paths::temp_dir("chromium-profile");
        let driver = start_driver(&chromedriver);
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let client = rt.block_on(connect(&driver, &chromium, profile.path()));
        Some(Browser { _driver: driver, _profile: profile, rt, client })
    }

    /// Runs the test's steps, then closes the session whatever happened and
    /// reports a failure.
    pub fn run<F: std::future::Future<Output = ()>>(self, steps: impl FnOnce(Client) -> F) {
        let c = self.client.clone();
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.rt.block_on(steps(c))));
        let _ = self.rt.block_on(self.client.close());
        if let Err(panic) = result {
            std::panic::resume_unwind(panic);
        }
    }
}

pub fn tool(env: &str, names: &[&str]) -> Option<PathBuf> {
    if let Some(p) = std::env::var_os(env) {
        return Some(PathBuf::from(p)).filter(|p| p.is_file());
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    names
        .iter()
        .flat_map(|n| std::env::split_paths(&path).map(move |d| d.join(n)))
        .chain(names.iter().map(|n| Path::new("/usr/bin").join(n)))
        .find(|p| p.is_file())
}

/// A chromedriver child process, killed on drop.
pub struct Driver {
    child: Child,
    url: String,
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

pub fn start_driver(chromedriver: &Path) -> Driver {
    let port = free_port();
    let child = Command::new(chromedriver)
        .arg(format!("--port={port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start chromedriver");
    let driver = Driver { child, url: format!("http://127.0.0.1:{port}") };
    let end = Instant::now() + Duration::from_secs(30);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < end, "chromedriver did not listen on {port}");
        std::thread::sleep(Duration::from_millis(50));
    }
    driver
}

pub async fn connect(driver: &Driver, chromium: &Path, profile: &Path) -> Client {
    let mut caps = serde_json::Map::new();
    caps.insert("browserName".into(), json!("chrome"));
    caps.insert(
        "goog:chromeOptions".into(),
        json!({
            "binary": chromium.display().to_string(),
            "args": [
                "--headless", "--no-sandbox", "--disable-gpu", "--enable-unsafe-swiftshader", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--window-size=1400,900", "--force-device-scale-factor=1",
                format!("--user-data-dir={}", profile.display()),
            ],
        }),
    );
    let connector = hyper_util::client::legacy::connect::HttpConnector::new();
    ClientBuilder::new(connector).capabilities(caps).connect(&driver.url).await.expect("a Chromium session")
}

/// Evaluates `expr` in the page until it is truthy; returns its value.
pub async fn until(c: &Client, what: &str, expr: &str) -> Value {
    let end = Instant::now() + Duration::from_secs(30);
    loop {
        let v = c.execute(&format!("return ({expr});"), vec![]).await.expect("script runs");
        let truthy = match &v {
            Value::Null => false,
            Value::Bool(b) => *b,
            Value::Number(n) => n.as_f64() != Some(0.0),
            Value::String(s) => !s.is_empty(),
            _ => true,
        };
        if truthy {
            return v;
        }
        if Instant::now() > end {
            let state = c
                .execute(
                    "return JSON.stringify({ hash: location.hash, body: { ...document.body.dataset }, \
                     toast: document.querySelector('#toast').textContent });",
                    vec![],
                )
                .await
                .unwrap_or_default();
            panic!("timed out waiting for {what} ({expr}); page: {state}");
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

pub async fn css(c: &Client, selector: &str) -> fantoccini::elements::Element {
    c.wait()
        .at_most(Duration::from_secs(30))
        .for_element(Locator::Css(selector))
        .await
        .unwrap_or_else(|e| panic!("{selector}: {e}"))
}

/// Presses `k` (as `send_keys` text).
pub fn key(k: Key) -> String {
    char::from(k).to_string()
}

/// Decoded RGBA-or-RGB pixels and width.
pub fn pixels(png_bytes: &[u8]) -> (Vec<u8>, u32, usize) {
    let decoder = png::Decoder::new(std::io::Cursor::new(png_bytes));
    let mut reader = decoder.read_info().expect("a PNG");
    let mut buf = vec![0; reader.output_buffer_size().expect("a size")];
    let info = reader.next_frame(&mut buf).expect("a frame");
    buf.truncate(info.buffer_size());
    (buf, info.width, info.color_type.samples())
}

pub fn save_shot(name: &str, bytes: &[u8], own: &Path) {
    std::fs::write(own.join(name), bytes).unwrap();
    if let Some(dir) = std::env::var_os("ZOA_SCREENSHOTS") {
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(Path::new(&dir).join(name), bytes).unwrap();
    }
}

/// Runs pointer `steps` with the mouse (real WebDriver input, so the page
/// sees trusted pointer, mouse and context-menu events).
pub async fn mouse(c: &Client, steps: Vec<fantoccini::actions::PointerAction>) {
    use fantoccini::actions::InputSource;
    let mut actions = fantoccini::actions::MouseActions::new("mouse".into());
    for s in steps {
        actions = actions.then(s);
    }
    c.perform_actions(actions).await.expect("pointer actions");
}

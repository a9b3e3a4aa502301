//! Shared by the Workbench tests: a `zoa-anim serve` child process on a
//! private copy of the fixtures, and a plain HTTP/1.1 client that sends
//! exactly the headers a test gives (so Host, Origin and token checks can be
//! exercised from outside).

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;
use zoa_test_support::paths::{copy_dir, fixture, temp_dir};

/// An HTTP answer.
#[derive(Debug)]
pub struct Reply {
    /// Status code.
    pub status: u16,
    /// Headers, names lowercased.
    pub headers: Vec<(String, String)>,
    /// Body bytes (chunked transfer decoded).
    pub body: Vec<u8>,
}

impl Reply {
    /// A header's value.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }
    /// The body as JSON (panics with the body when it is not).
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&self.body)))
    }
    /// The body as text.
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

/// A running Workbench on a copy of the fixtures.
pub struct Server {
    child: Child,
    /// `http://127.0.0.1:PORT`
    pub origin: String,
    /// `127.0.0.1:PORT`
    pub host: String,
    /// The session token, read from the page like the page's script does.
    pub token: String,
    /// The private folder (`fixtures/defs/humanoid`, `fixtures/models`, `fixtures/sounds` inside).
    pub root: tempfile::TempDir,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Server {
    /// Starts `zoa-anim serve --defs <copy>/fixtures/defs/humanoid --assets <copy>/fixtures/models`.
    pub fn start() -> Server {
        Server::start_with(true)
    }

    /// As [`Server::start`]; without `assets` the models folder is not a root.
    pub fn start_with(assets: bool) -> Server {
        let root = temp_dir("serve");
        for sub in ["defs/humanoid", "models", "sounds"] {
            copy_dir(&fixture(sub), &root.path().join("fixtures").join(sub));
        }
        let defs = root.path().join("fixtures/defs/humanoid");
        let models = root.path().join("fixtures/models");
        Server::start_in(root, &defs, if assets { std::slice::from_ref(&models) } else { &[] })
    }

    /// `zoa-anim serve --defs <defs> [--assets <dir>]...` over a folder the
    /// test prepared (`root` is kept alive with the server).
    pub fn start_in(root: tempfile::TempDir, defs: &std::path::Path, assets: &[PathBuf]) -> Server {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_zoa-anim"));
        cmd.arg("serve").arg("--defs").arg(defs).args(["--port", "0"]);
        for a in assets {
            cmd.arg("--assets").arg(a);
        }
        let mut child = cmd.stdout(Stdio::piped()).stderr(Stdio::inherit()).spawn().expect("start zoa-anim serve");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
        let origin = line
            .split_whitespace()
            .find(|w| w.starts_with("http://"))
            .unwrap_or_else(|| panic!("no address in {line:?}"))
            .trim_end_matches('/')
            .to_owned();
        let host = origin.trim_start_matches("http://").to_owned();
        let mut s = Server { child, origin, host, token: String::new(), root };
        let page = s.raw("GET", "/", &[], None).text();
        let marker = "name=\"zoa-token\" content=\"";
        let at = page.find(marker).expect("token meta tag") + marker.len();
        s.token = page[at..at + 48].to_owned();
        s
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The server's resident memory now and at its peak, KiB (Linux: `/proc`).
    pub fn memory_kib(&self) -> Option<(u64, u64)> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.pid())).ok()?;
        let field = |name: &str| {
            status.lines().find_map(|l| l.strip_prefix(name)?.trim().trim_end_matches(" kB").trim().parse().ok())
        };
        Some((field("VmRSS:")?, field("VmHWM:")?))
    }

    /// Sends a POST of JSON and returns the open connection without reading
    /// the answer: dropping it hangs up (a reload or a closed tab, as the
    /// server sees it).
    pub fn post_unanswered(&self, path: &str, body: &Value) -> TcpStream {
        let bytes = serde_json::to_vec(body).unwrap();
        let mut stream = TcpStream::connect(&self.host).unwrap();
        let head = format!(
            "POST {path} HTTP/1.1\r\nHost: {}\r\nx-zoa-token: {}\r\nOrigin: {}\r\nContent-Type: application/json\r\n\
             Content-Length: {}\r\n\r\n",
            self.host,
            self.token,
            self.origin,
            bytes.len()
        );
        stream.write_all(head.as_bytes()).unwrap();
        stream.write_all(&bytes).unwrap();
        stream
    }

    /// `<copy>/fixtures/defs/humanoid`.
    pub fn defs(&self) -> PathBuf {
        self.root.path().join("fixtures/defs/humanoid")
    }

    /// A request with exactly these extra headers (Host is always sent:
    /// the given one, else the server's address).
    pub fn raw(&self, method: &str, path: &str, headers: &[(&str, &str)], body: Option<&[u8]>) -> Reply {
        let mut stream = TcpStream::connect(&self.host).unwrap();
        stream.set_read_timeout(Some(Duration::from_secs(120))).unwrap();
        let mut req = format!("{method} {path} HTTP/1.1\r\nConnection: close\r\n");
        if !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("host")) {
            req.push_str(&format!("Host: {}\r\n", self.host));
        }
        for (k, v) in headers {
            req.push_str(&format!("{k}: {v}\r\n"));
        }
        if let Some(b) = body {
            req.push_str(&format!("Content-Length: {}\r\n", b.len()));
        }
        req.push_str("\r\n");
        stream.write_all(req.as_bytes()).unwrap();
        if let Some(b) = body {
            stream.write_all(b).unwrap();
        }
        let mut raw = Vec::new();
        stream.read_to_end(&mut raw).unwrap();
        parse(&raw)
    }

    /// GET with the token.
    pub fn get(&self, path: &str) -> Reply {
        self.raw("GET", path, &[("x-zoa-token", &self.token)], None)
    }

    /// POST of JSON with the token and the page's Origin.
    pub fn post(&self, path: &str, body: &Value) -> Reply {
        let bytes = serde_json::to_vec(body).unwrap();
        self.raw(
            "POST",
            path,
            &[("x-zoa-token", &self.token), ("Origin", &self.origin), ("Content-Type", "application/json")],
            Some(&bytes),
        )
    }
}

fn parse(raw: &[u8]) -> Reply {
    let split = raw.windows(4).position(|w| w == b"\r\n\r\n").expect("end of headers");
    let head = String::from_utf8_lossy(&raw[..split]).into_owned();
    let mut lines = head.split("\r\n");
    let status: u16 = lines.next().unwrap().split_whitespace().nth(1).unwrap().parse().unwrap();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    let mut body = raw[split + 4..].to_vec();
    if headers.iter().any(|(k, v)| k == "transfer-encoding" && v.contains("chunked")) {
        let mut out = Vec::new();
        let mut rest = &body[..];
        loop {
            let eol = rest.windows(2).position(|w| w == b"\r\n").unwrap();
            let size = usize::from_str_radix(String::from_utf8_lossy(&rest[..eol]).trim(), 16).unwrap();
            if size == 0 {
                break;
            }
            out.extend_from_slice(&rest[eol + 2..eol + 2 + size]);
            rest = &rest[eol + 4 + size..];
        }
        body = out;
    }
    Reply { status, headers, body }
}

/// Polls `f` until it returns `Some`, for at most `secs` seconds.
pub fn eventually<T>(secs: u64, mut f: impl FnMut() -> Option<T>) -> Option<T> {
    let end = Instant::now() + Duration::from_secs(secs);
    loop {
        if let Some(v) = f() {
            return Some(v);
        }
        if Instant::now() > end {
            return None;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

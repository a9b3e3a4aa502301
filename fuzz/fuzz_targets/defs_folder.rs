//! Feeds arbitrary text to the definition reader as a folder of TOML files
//! (every kind, preview presets included): loading must give diagnostics,
//! never panic, hang or allocate without bound.
//!
//! The input is split on NUL bytes into up to 8 files (`f0.toml` …, read
//! together so cross-file references are checked too); the first byte of
//! each picks a `kind = "…"` line to put first (or none), so every kind's
//! reader is reached without the fuzzer having to invent the kind line.
#![no_main]

use std::path::PathBuf;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use zoa_anim_assets::authoring::schema::KINDS;

/// An empty folder (the overlay supplies every file), inside the fuzz crate's
/// git-ignored `target/`, so nothing is left in the system temp folder.
fn folder() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/empty-defs-folder");
        std::fs::create_dir_all(&dir).expect("an empty folder for the fuzz target");
        dir
    })
}

fuzz_target!(|data: &[u8]| {
    let files: Vec<(PathBuf, String)> = data
        .split(|&b| b == 0)
        .take(8)
        .enumerate()
        .map(|(i, chunk)| {
            // Byte values beyond the kinds mean "no kind line".
            let (kind, body) = match chunk.split_first() {
                Some((k, rest)) => (KINDS.get(usize::from(*k) % (KINDS.len() + 1)).copied().unwrap_or(""), rest),
                None => ("", chunk),
            };
            let mut text = if kind.is_empty() { String::new() } else { format!("kind = \"{kind}\"\n") };
            text.push_str(&String::from_utf8_lossy(body));
            (PathBuf::from(format!("f{i}.toml")), text)
        })
        .collect();
    let set = zoa_anim_assets::defs::load_folder_with_overlay(folder(), &files);
    // Rendering the diagnostics is part of what a user sees.
    let _ = zoa_anim_assets::defs::render_json(&set.diagnostics);
});

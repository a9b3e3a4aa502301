//! Regression corpus: every file in `tests/corpus/` (the crafted malformed
//! cases plus every input the fuzzer ever crashed on) must load as `Err`
//! naming the file, never panic. Adding a case = adding a file.
//!
//! `cargo test -p zoa-anim-assets --test gltf_corpus -- --ignored` rewrites
//! the crafted part of the corpus from `gltf_support::malformed_cases`.

mod gltf_support;

use std::path::PathBuf;

use zoa_anim_assets::gltf::{load_gltf, load_gltf_slice};

fn corpus_dir() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/corpus"))
}

#[test]
fn every_corpus_file_is_an_error_not_a_panic() {
    let mut files: Vec<PathBuf> = std::fs::read_dir(corpus_dir())
        .expect("tests/corpus exists")
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file() && !p.file_name().is_some_and(|n| n.to_string_lossy().starts_with('.')))
        .collect();
    files.sort();
    assert!(files.len() >= 40, "corpus has only {} files", files.len());
    for path in &files {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        match load_gltf(path) {
            Ok(_) => panic!("{name}: corpus file loaded without error"),
            Err(e) => {
                let msg = e.to_string();
                assert!(msg.starts_with(&format!("{name}: ")), "{name}: message does not name the file: {msg}");
            }
        }
        // The in-memory path (no base folder) must fail the same way, not panic.
        let bytes = std::fs::read(path).unwrap();
        assert!(load_gltf_slice(&bytes, None, &name).is_err(), "{name}: loaded from memory");
    }
}

#[test]
#[ignore = "writes tests/corpus; run by hand after adding a malformed case"]
fn write_crafted_corpus() {
    let dir = corpus_dir();
    std::fs::create_dir_all(&dir).unwrap();
    for case in gltf_support::malformed_cases() {
        std::fs::write(dir.join(&case.file), &case.bytes).unwrap();
    }
}

//! Hostile file-system input to the loaders (every file is read through one
//! guarded reader): FIFOs and devices where files belong, glTF buffer URIs that try
//! to leave the asset's folder (plain, percent-encoded, through a symlink),
//! and errors that never echo the bytes of a file. Every case must end
//! quickly with an error naming the path; none may block or read outside.

mod gltf_support;

use std::path::Path;

use gltf_support::minimal;
use zoa_anim_assets::AssetError;
use zoa_anim_assets::defs::{Code, load_folder};
use zoa_anim_assets::gltf::{BufferAccess, load_gltf, load_gltf_with};

#[cfg(unix)]
fn mkfifo(path: &Path) -> bool {
    let ok = std::process::Command::new("mkfifo").arg(path).status().is_ok_and(|s| s.success());
    if !ok {
        eprintln!("note: mkfifo is unavailable; FIFO case skipped");
    }
    ok
}

#[cfg(unix)]
#[test]
fn a_fifo_named_toml_in_a_definition_folder_is_an_io_error_not_a_hang() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("ok.toml"), "kind = \"rig_policy\"\nid = \"ok\"\n").unwrap();
    if !mkfifo(&tmp.path().join("pipe.toml")) {
        return;
    }
    let set = load_folder(tmp.path());
    let d = set.diagnostics.iter().find(|d| d.file == Path::new("pipe.toml")).expect("the FIFO is reported");
    assert_eq!(d.code, Code::IoError.id());
    assert!(d.message.contains("FIFO"), "{}", d.message);
    assert_eq!(set.rig_policies.len(), 1, "the other file still loads");
}

#[cfg(unix)]
#[test]
fn a_gltf_buffer_uri_naming_a_fifo_is_refused_without_blocking() {
    let tmp = tempfile::tempdir().unwrap();
    if !mkfifo(&tmp.path().join("buffer.bin")) {
        return;
    }
    std::fs::write(tmp.path().join("scene.gltf"), minimal().to_gltf_external("buffer.bin")).unwrap();
    let err = load_gltf(&tmp.path().join("scene.gltf")).unwrap_err().to_string();
    assert!(err.contains("FIFO") && err.contains("buffer 0"), "{err}");
}

#[cfg(unix)]
#[test]
fn a_model_path_that_is_a_fifo_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("model.glb");
    if !mkfifo(&path) {
        return;
    }
    assert!(matches!(load_gltf(&path), Err(AssetError::NotAFile { what: "a FIFO", .. })));
}

#[test]
fn buffer_uris_cannot_climb_out_of_the_gltf_folder_plain_or_percent_encoded() {
    let tmp = tempfile::tempdir().unwrap();
    let inner = tmp.path().join("a/b/c/d");
    std::fs::create_dir_all(&inner).unwrap();
    // A readable "secret" just outside the folder, so only the rule stops the read.
    std::fs::write(tmp.path().join("secret.bin"), [0x41u8; 4096]).unwrap();
    for uri in ["../../../../secret.bin", "%2e%2e/%2E%2E/%2e%2e/%2e%2e/secret.bin", "x/../../../../../secret.bin"] {
        std::fs::write(inner.join("scene.gltf"), minimal().to_gltf_external(uri)).unwrap();
        let err = load_gltf(&inner.join("scene.gltf")).unwrap_err().to_string();
        assert!(err.contains("climbs above the glTF's folder"), "{uri}: {err}");
    }
    for uri in ["../../../../etc/passwd", "%2e%2e%2f%2e%2e%2fetc%2fpasswd", "/dev/zero", "%2Fetc%2Fpasswd"] {
        std::fs::write(inner.join("scene.gltf"), minimal().to_gltf_external(uri)).unwrap();
        let err = load_gltf(&inner.join("scene.gltf")).unwrap_err().to_string();
        assert!(err.contains("climbs above") || err.contains("absolute path"), "{uri}: {err}");
        assert!(!err.contains("root:"), "{uri}: the error echoes file bytes: {err}");
    }
}

#[cfg(unix)]
#[test]
fn a_symlinked_buffer_that_leads_outside_the_folder_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let assets = tmp.path().join("assets");
    std::fs::create_dir_all(&assets).unwrap();
    let doc = minimal();
    std::fs::write(tmp.path().join("outside.bin"), &doc.bin).unwrap();
    std::os::unix::fs::symlink(tmp.path().join("outside.bin"), assets.join("buffer.bin")).unwrap();
    std::fs::write(assets.join("scene.gltf"), doc.to_gltf_external("buffer.bin")).unwrap();
    let err = load_gltf(&assets.join("scene.gltf")).unwrap_err().to_string();
    assert!(err.contains("outside the glTF's folder tree"), "{err}");
    // The caller may opt in; the file is then read.
    assert!(load_gltf_with(&assets.join("scene.gltf"), BufferAccess::Anywhere).is_ok());

    // A symlink to a device is refused even when the caller opts in.
    std::os::unix::fs::symlink("/dev/zero", assets.join("zero.bin")).unwrap();
    let mut huge = minimal();
    huge.json["buffers"][0]["byteLength"] = serde_json::json!(2_000_000_000u64);
    std::fs::write(assets.join("zero.gltf"), huge.to_gltf_external("zero.bin")).unwrap();
    let err = load_gltf(&assets.join("zero.gltf")).unwrap_err().to_string();
    assert!(err.contains("outside the glTF's folder tree"), "{err}");
    let err = load_gltf_with(&assets.join("zero.gltf"), BufferAccess::Anywhere).unwrap_err().to_string();
    assert!(err.contains("device") || err.contains("limit"), "{err}");
}

#[test]
fn a_buffer_larger_than_the_cap_is_refused_before_reading() {
    let tmp = tempfile::tempdir().unwrap();
    let mut doc = minimal();
    std::fs::write(tmp.path().join("buffer.bin"), &doc.bin).unwrap();
    doc.json["buffers"][0]["byteLength"] = serde_json::json!(zoa_anim_assets::files::MAX_BUFFER_BYTES + 1);
    std::fs::write(tmp.path().join("scene.gltf"), doc.to_gltf_external("buffer.bin")).unwrap();
    let err = load_gltf(&tmp.path().join("scene.gltf")).unwrap_err().to_string();
    assert!(err.contains("limit"), "{err}");
}

#[test]
fn malformed_key_data_is_reported_without_echoing_values() {
    // A buffer full of bytes that decode to huge negative floats.
    let tmp = tempfile::tempdir().unwrap();
    let mut doc = minimal();
    let times = doc.json["animations"][0]["samplers"][0]["input"].as_u64().unwrap() as usize;
    doc.set_f32(times, 1, -1234.5678);
    let err = zoa_anim_assets::gltf::load_gltf_slice(&doc.to_glb(), Some(tmp.path()), "neg.glb").unwrap_err();
    let text = err.to_string();
    assert!(text.contains("negative or non-finite key time at key 1"), "{text}");
    assert!(!text.contains("1234"), "{text}");
}

#[test]
fn folders_nested_past_the_depth_limit_get_a_note() {
    let tmp = tempfile::tempdir().unwrap();
    let mut deep = tmp.path().to_path_buf();
    for _ in 0..=zoa_anim_assets::defs::MAX_DEPTH {
        deep.push("d");
    }
    std::fs::create_dir_all(&deep).unwrap();
    std::fs::write(deep.join("p.toml"), "kind = \"rig_policy\"\nid = \"deep\"\n").unwrap();
    let set = load_folder(tmp.path());
    // The folder is a warning (W006); the definition file inside it, which is
    // not read, is an error (E022) so the folder fails instead of passing.
    let codes: Vec<&str> = set.diagnostics.iter().map(|d| d.code).collect();
    assert_eq!(codes, [Code::SkippedFolder.id(), Code::UnreadFile.id()], "{:?}", set.diagnostics);
    assert!(set.diagnostics[1].file.ends_with("p.toml"), "{:?}", set.diagnostics[1]);
    assert!(set.rig_policies.is_empty());
}

//! One folder per diagnostic code under `fixtures/invalid/<code>-<name>/`:
//! each yields exactly its snapshot, and each contains its own code, except
//! the codes in [`TOOLS_LAYER_CODES`].

use std::path::{Path, PathBuf};

use zoa_anim_assets::defs::{Code, Diagnostic, load_folder};

/// Codes reported by the front door (`zoa-animation`) rather than by
/// `load_folder`: I004 needs the IK crate's bone discovery, I006 that and the
/// runtime's clip binding rule, and E021 the runtime's character set-up, which
/// a loader may not depend on. Their
/// folders must load without any diagnostic of their own (the snapshot shows
/// that); `zoa-animation/tests/load.rs`, `zoa-anim-tools/tests/cli_validate_ik.rs`
/// and `cli_validate_binding.rs` check the codes themselves.
const TOOLS_LAYER_CODES: &[Code] = &[Code::IkPolicyUnavailable, Code::ClipBindsByRole, Code::CharacterSetup];

fn invalid_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fixtures/invalid")
}

/// One line per diagnostic; the folder's absolute path (in "looked for"
/// messages) reads `<folder>`, so snapshots do not depend on the checkout.
fn describe_in(dir: &Path, diagnostics: &[Diagnostic]) -> String {
    let folder = std::path::absolute(dir).unwrap().to_string_lossy().into_owned();
    diagnostics
        .iter()
        .map(|d| {
            let file = d.file.to_string_lossy().replace('\\', "/");
            let message = d.message.replace(&folder, "<folder>");
            format!("{file}:{}:{} {} {} [{}] {message}\n", d.line, d.column, d.severity, d.code, d.field)
        })
        .collect()
}

#[test]
fn every_invalid_folder_yields_its_snapshot() {
    insta::glob!("../../fixtures/invalid", "[EWI][0-9][0-9][0-9]-*", |dir: &Path| {
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        let set = load_folder(dir);
        let code = &name[..4];
        let from_tools = TOOLS_LAYER_CODES.iter().any(|c| c.id() == code);
        assert!(
            from_tools || set.diagnostics.iter().any(|d| d.code == code),
            "folder {name} does not produce {code}:\n{}",
            describe_in(dir, &set.diagnostics)
        );
        insta::assert_snapshot!(describe_in(dir, &set.diagnostics));
    });
}

#[test]
fn every_code_has_a_folder() {
    for code in Code::ALL {
        if *code == Code::FileTooLarge {
            continue; // exercised by `huge_files_are_reported_not_parsed`
        }
        let dir = invalid_root().join(format!("{}-{}", code.id(), code.name()));
        assert!(dir.is_dir(), "missing fixture folder {}", dir.display());
    }
}

#[test]
fn huge_files_are_reported_not_parsed() {
    let tmp = zoa_test_support::paths::temp_dir("defs-huge");
    let dir = tmp.path();
    let mut text = String::from("kind = \"rig_policy\"\nid = \"huge\"\n");
    let line = "# padding padding padding padding padding padding padding padding\n";
    while text.len() as u64 <= zoa_anim_assets::defs::MAX_FILE_BYTES {
        text.push_str(line);
    }
    std::fs::write(dir.join("huge.toml"), &text).unwrap();
    let set = load_folder(dir);
    assert_eq!(set.diagnostics.len(), 1, "{:?}", set.diagnostics);
    assert_eq!(set.diagnostics[0].code, Code::FileTooLarge.id());
    assert!(set.rig_policies.is_empty());
}

#[test]
fn a_missing_folder_is_one_io_diagnostic() {
    let set = load_folder(Path::new("/definitely/not/here"));
    assert_eq!(set.error_count(), 1);
    assert_eq!(set.diagnostics[0].code, Code::IoError.id());
}

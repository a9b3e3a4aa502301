//! The generated files are current: the field reference in
//! `src/defs/README.md` and the JSON Schemas in `schemas/` are what the
//! kinds' declarative descriptions make today. With `ZOA_REGEN=1` the test
//! rewrites them instead of failing:
//! `ZOA_REGEN=1 cargo test -p zoa-anim-assets --test generated_files`.

use std::path::Path;

use zoa_anim_assets::authoring::schema::{schema_files, schema_text};
use zoa_anim_assets::defs::reference::with_current_reference;
use zoa_test_support::paths::repo;

fn regenerate() -> bool {
    std::env::var_os("ZOA_REGEN").is_some()
}

/// Compares `path` with `want`, or writes `want` there when regenerating.
fn check(path: &Path, want: &str) {
    let have = std::fs::read_to_string(path).unwrap_or_default();
    if have == want {
        return;
    }
    if regenerate() {
        std::fs::write(path, want).unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
        eprintln!("regenerated {}", path.display());
        return;
    }
    panic!(
        "{} is stale: regenerate it with `ZOA_REGEN=1 cargo test -p zoa-anim-assets --test generated_files`",
        path.display()
    );
}

#[test]
fn the_field_reference_in_the_defs_readme_is_current() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/defs/README.md");
    let readme = std::fs::read_to_string(&path).unwrap();
    check(&path, &with_current_reference(&readme));
}

#[test]
fn the_committed_schemas_are_current_and_complete() {
    let dir = repo("schemas");
    let files = schema_files();
    for (name, schema) in &files {
        check(&dir.join(name), &schema_text(schema));
    }
    let mut committed: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".schema.json"))
        .collect();
    committed.sort();
    let mut expected: Vec<String> = files.into_iter().map(|(n, _)| n).collect();
    expected.sort();
    assert_eq!(committed, expected, "schemas/ holds exactly the generated files");
}

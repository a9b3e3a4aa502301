//! JSON Schemas: every fixture definition file is accepted, and every file
//! of `fixtures/invalid/` that the validator rejects for a reason a schema
//! can express is rejected by the schema for that same reason.
//!
//! The schemas are checked by the `jsonschema` crate (the draft their
//! `$schema` names), so the test also proves they are valid JSON Schemas.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use jsonschema::error::ValidationErrorKind;
use jsonschema::{ValidationError, Validator};
use zoa_anim_assets::authoring::schema::definition_schema;
use zoa_anim_assets::defs::{Severity, load_folder};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures")
}

/// Adds the keyword of `e` and, for `anyOf` / `oneOf`, of the errors in
/// their branches (the reason a branch failed is the reason that names the
/// validator's code).
fn keywords(e: &ValidationError<'_>, out: &mut BTreeSet<String>) {
    out.insert(e.kind().keyword().to_owned());
    if let ValidationErrorKind::AnyOf { context }
    | ValidationErrorKind::OneOfNotValid { context }
    | ValidationErrorKind::OneOfMultipleValid { context } = e.kind()
    {
        for inner in context.iter().flatten() {
            keywords(inner, out);
        }
    }
}

/// Keywords of the schema checks `path` fails (deduplicated).
fn check_file(validator: &Validator, path: &Path) -> BTreeSet<String> {
    let text = std::fs::read_to_string(path).unwrap();
    let table: toml::Table = text.parse().unwrap();
    let json = serde_json::to_value(&table).unwrap();
    let mut errs = BTreeSet::new();
    for e in validator.iter_errors(&json) {
        keywords(&e, &mut errs);
    }
    errs
}

fn validator() -> Validator {
    jsonschema::validator_for(&definition_schema()).expect("the generated schema is a valid JSON Schema")
}

fn toml_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            toml_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "toml") {
            out.push(p);
        }
    }
    out.sort();
}

#[test]
fn schema_accepts_every_fixture_definition_file() {
    let mut files = Vec::new();
    toml_files(&fixtures().join("defs"), &mut files);
    assert!(files.len() > 20);
    let validator = validator();
    for f in files {
        let errs = check_file(&validator, &f);
        assert!(errs.is_empty(), "{}: {errs:?}", f.display());
    }
}

/// The schema keywords that express each validator code.
fn keywords_for(code: &str) -> Option<&'static [&'static str]> {
    Some(match code {
        "E004" => &["enum"],
        "E005" => &["additionalProperties"],
        "E006" => &["required"],
        "E007" => &["type"],
        // A nested table past its depth limit is `false` in the schema.
        "E008" => &["minimum", "maximum", "exclusiveMinimum", "minItems", "falseSchema", "maxItems"],
        "E010" => &["pattern", "enum"],
        "E019" => &["not", "oneOf"],
        // E009 (nan/inf) and every cross-file code are beyond a schema.
        _ => return None,
    })
}

#[test]
fn schema_rejects_invalid_files_for_the_validators_reason() {
    let mut checked = 0;
    let validator = validator();
    let mut dirs: Vec<PathBuf> =
        std::fs::read_dir(fixtures().join("invalid")).unwrap().flatten().map(|e| e.path()).collect();
    dirs.sort();
    for dir in dirs {
        let set = load_folder(&dir);
        let mut files = Vec::new();
        toml_files(&dir, &mut files);
        for f in files {
            let rel = f.strip_prefix(&dir).unwrap();
            let Ok(text) = std::fs::read_to_string(&f) else { continue }; // E001: not UTF-8
            if text.parse::<toml::Table>().is_err() {
                continue; // E003: not TOML at all
            }
            let codes: BTreeSet<&str> = set
                .diagnostics
                .iter()
                .filter(|d| d.file == rel && d.severity == Severity::Error)
                .map(|d| d.code)
                .collect();
            let errs = check_file(&validator, &f);
            // A chooser column's bounds live inside its text (`speed in 4..2`):
            // the schema checks the text's shape, the validator the numbers.
            let inside_text = rel == Path::new("profile_range.toml");
            let expressible: Vec<&str> =
                codes.iter().copied().filter(|c| keywords_for(c).is_some() && !(inside_text && *c == "E008")).collect();
            for code in &expressible {
                let kws = keywords_for(code).unwrap();
                assert!(
                    kws.iter().any(|k| errs.contains(*k)),
                    "{}: validator says {code}, schema says {errs:?}",
                    f.display()
                );
                checked += 1;
            }
            if codes.is_empty() {
                assert!(
                    errs.is_empty(),
                    "{}: the validator finds no error in this file, the schema does: {errs:?}",
                    f.display()
                );
            }
        }
    }
    eprintln!("{checked} (file, code) pairs checked");
    assert!(checked >= 7, "every expressible code is exercised (checked {checked})");
}

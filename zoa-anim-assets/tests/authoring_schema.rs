//! JSON Schemas: every fixture definition file is accepted, and every file
//! of `fixtures/invalid/` that the validator rejects for a reason a schema
//! can express is rejected by the schema for that same reason.
//!
//! The schemas are checked with a small draft-07 subset validator below
//! (the keywords the generated schemas use) instead of a full JSON Schema
//! crate, to keep the dependency tree lean.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::Value;
use zoa_anim_assets::authoring::schema::definition_schema;
use zoa_anim_assets::defs::{Severity, load_folder};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures")
}

fn fail(out: &mut BTreeSet<String>, k: &str) {
    out.insert(k.to_owned());
}

/// Keywords of the failed checks (deduplicated).
fn validate(schema: &Value, root: &Value, v: &Value, out: &mut BTreeSet<String>) {
    let Some(map) = schema.as_object() else { return };
    if let Some(r) = map.get("$ref").and_then(Value::as_str) {
        let name = r.strip_prefix("#/definitions/").expect("local ref");
        validate(&root["definitions"][name], root, v, out);
    }
    if let Some(t) = map.get("type") {
        let types: Vec<&str> = match t {
            Value::String(s) => vec![s.as_str()],
            Value::Array(a) => a.iter().filter_map(Value::as_str).collect(),
            _ => vec![],
        };
        let ok = types.iter().any(|t| match *t {
            "string" => v.is_string(),
            "number" => v.is_number(),
            "integer" => v.is_i64() || v.is_u64(),
            "boolean" => v.is_boolean(),
            "array" => v.is_array(),
            "object" => v.is_object(),
            _ => false,
        });
        if !ok {
            fail(out, "type");
            return;
        }
    }
    if let Some(e) = map.get("enum").and_then(Value::as_array)
        && !e.contains(v)
    {
        fail(out, "enum");
    }
    if let Some(c) = map.get("const")
        && c != v
    {
        fail(out, "const");
    }
    if let Some(s) = v.as_str() {
        if let Some(p) = map.get("pattern").and_then(Value::as_str)
            && !regex_lite::Regex::new(p).unwrap().is_match(s)
        {
            fail(out, "pattern");
        }
        if map.get("minLength").and_then(Value::as_u64).is_some_and(|m| (s.chars().count() as u64) < m) {
            fail(out, "minLength");
        }
        if map.get("maxLength").and_then(Value::as_u64).is_some_and(|m| (s.chars().count() as u64) > m) {
            fail(out, "maxLength");
        }
    }
    if let Some(x) = v.as_f64() {
        let num = |k: &str| map.get(k).and_then(Value::as_f64);
        if num("minimum").is_some_and(|m| x < m) {
            fail(out, "minimum");
        }
        if num("maximum").is_some_and(|m| x > m) {
            fail(out, "maximum");
        }
        if num("exclusiveMinimum").is_some_and(|m| x <= m) {
            fail(out, "exclusiveMinimum");
        }
    }
    if let Some(items) = v.as_array() {
        if map.get("minItems").and_then(Value::as_u64).is_some_and(|m| (items.len() as u64) < m) {
            fail(out, "minItems");
        }
        if let Some(s) = map.get("items") {
            for item in items {
                validate(s, root, item, out);
            }
        }
    }
    if let Some(o) = v.as_object() {
        for r in map.get("required").and_then(Value::as_array).into_iter().flatten() {
            if !o.contains_key(r.as_str().unwrap()) {
                fail(out, "required");
            }
        }
        let props = map.get("properties").and_then(Value::as_object);
        for (k, val) in o {
            match props.and_then(|p| p.get(k)) {
                Some(s) => validate(s, root, val, out),
                None => match map.get("additionalProperties") {
                    Some(Value::Bool(false)) => fail(out, "additionalProperties"),
                    Some(s @ Value::Object(_)) => validate(s, root, val, out),
                    _ => {}
                },
            }
        }
    }
    let passes = |s: &Value| {
        let mut errs = BTreeSet::new();
        validate(s, root, v, &mut errs);
        errs.is_empty()
    };
    if let Some(all) = map.get("allOf").and_then(Value::as_array) {
        for s in all {
            validate(s, root, v, out);
        }
    }
    if let Some(any) = map.get("anyOf").and_then(Value::as_array)
        && !any.iter().any(passes)
    {
        // Report the inner reasons of a single-branch-relevant anyOf too.
        out.insert("anyOf".into());
        for s in any {
            validate(s, root, v, out);
        }
    }
    if let Some(one) = map.get("oneOf").and_then(Value::as_array)
        && one.iter().filter(|s| passes(s)).count() != 1
    {
        fail(out, "oneOf");
    }
    if let Some(not) = map.get("not")
        && passes(not)
    {
        fail(out, "not");
    }
    if let Some(cond) = map.get("if")
        && passes(cond)
        && let Some(then) = map.get("then")
    {
        validate(then, root, v, out);
    }
}

fn check_file(path: &Path) -> BTreeSet<String> {
    let text = std::fs::read_to_string(path).unwrap();
    let table: toml::Table = text.parse().unwrap();
    let json = serde_json::to_value(&table).unwrap();
    let schema = definition_schema();
    let mut errs = BTreeSet::new();
    validate(&schema, &schema, &json, &mut errs);
    errs
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
    for f in files {
        let errs = check_file(&f);
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
        "E008" => &["minimum", "maximum", "exclusiveMinimum", "minItems"],
        "E010" => &["pattern", "enum"],
        "E019" => &["not", "oneOf"],
        // E009 (nan/inf) and every cross-file code are beyond a schema.
        _ => return None,
    })
}

#[test]
fn schema_rejects_invalid_files_for_the_validators_reason() {
    let mut checked = 0;
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
            let errs = check_file(&f);
            let expressible: Vec<&str> = codes.iter().copied().filter(|c| keywords_for(c).is_some()).collect();
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

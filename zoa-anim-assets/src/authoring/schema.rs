//! JSON Schemas (draft-07) of the definition kinds, for editors: Taplo /
//! Even Better TOML validate and complete definition files as you type.
//!
//! Generated from the kinds' declarative descriptions ([`crate::defs::spec`]),
//! the same descriptions the loader checks files against and the field
//! reference in `defs/README.md` is generated from. What a schema can say it
//! says: unknown fields (`additionalProperties: false`, E005), required
//! fields (E006), types (E007), ranges (E008), id syntax, enums and tag flags
//! (E010), and conflicting forms (E019). What it cannot say stays with
//! `zoa-anim validate`: non-finite numbers (E009, TOML `nan`/`inf`), tag text
//! like `locomotion=sprnt`, and everything across files (references,
//! duplicate ids, bones, clip durations).
//!
//! The committed copies in `schemas/` are regenerated with
//! `zoa-anim schema --out schemas --force` (a test fails while they are stale).

use serde_json::{Map, Value, json};
use zoa_anim_core::StateDimension;
use zoa_anim_core::ids::MAX_ID_LEN;

use crate::defs::all_specs;
use crate::defs::spec::{self, Constraint, Field, Need, Rule, Table, Ty};

/// Draft the schemas declare.
pub const DRAFT: &str = "http://json-schema.org/draft-07/schema#";

/// Regex of the core id syntax (lowercase dotted segments).
pub const ID_PATTERN: &str = "^[a-z][a-z0-9_]*(\\.[a-z][a-z0-9_]*)*$";

/// The ten kinds, in documentation order.
pub const KINDS: [&str; 10] = [
    "binding_profile",
    "animation_profile",
    "state_graph",
    "rig_policy",
    "sound_profile",
    "player_profile_set",
    "clip",
    "animation_graph",
    "preview_preset",
    "equipment",
];

/// The schema of a value of type `ty`.
fn ty_schema(ty: &Ty) -> Value {
    nested_ty_schema(ty, None)
}

/// [`ty_schema`] inside `levels` levels of a [`Ty::Nested`] table (`None`
/// outside any): a nested table is expanded while levels are left, and
/// refused (`false`) past its limit.
fn nested_ty_schema(ty: &Ty, levels: Option<u64>) -> Value {
    match ty {
        Ty::Nested(t, limit) => {
            // The enclosing table is level 1; each expansion one more.
            let level = levels.unwrap_or(1) + 1;
            if level > limit.max { json!(false) } else { table_schema_at(t, Some(level)) }
        }
        Ty::Table(t) => table_schema_at(t, levels),
        Ty::Rows(t) => json!({"type": "array", "items": table_schema_at(t, levels)}),
        _ => ty_schema_flat(ty),
    }
}

/// The schema of a type that holds no table.
fn ty_schema_flat(ty: &Ty) -> Value {
    match ty {
        Ty::Text => json!({"type": "string", "minLength": 1}),
        Ty::Str => json!({"type": "string"}),
        Ty::Id => json!({"type": "string", "pattern": ID_PATTERN, "maxLength": MAX_ID_LEN}),
        Ty::Pattern(p) => json!({"type": "string", "pattern": p}),
        Ty::Num(rule) => {
            let mut s = json!({"type": "number"});
            match rule {
                Rule::Any => {}
                Rule::NonNegative => s["minimum"] = json!(0),
                Rule::Positive => s["exclusiveMinimum"] = json!(0),
                Rule::Unit => {
                    s["minimum"] = json!(0);
                    s["maximum"] = json!(1);
                }
                Rule::Between(lo, hi) => {
                    s["minimum"] = json!(lo);
                    s["maximum"] = json!(hi);
                }
                Rule::Speed => {
                    s["exclusiveMinimum"] = json!(0);
                    s["maximum"] = json!(zoa_anim_core::budget::MAX_SPEED);
                }
            }
            s
        }
        Ty::Int(lo, hi) => json!({"type": "integer", "minimum": lo, "maximum": hi}),
        Ty::Bool => json!({"type": "boolean"}),
        // Aliases are accepted by the reader, so an editor must not flag them.
        Ty::Enum(e) => {
            let names: Vec<&str> = e.values.iter().copied().chain(e.aliases.iter().map(|(alias, _)| *alias)).collect();
            json!({"type": "string", "enum": names})
        }
        Ty::Table(t) | Ty::Nested(t, _) => table_schema(t),
        Ty::Rows(t) => json!({"type": "array", "items": table_schema(t)}),
        Ty::RowsAtMost(t, max) => json!({"type": "array", "items": table_schema(t), "maxItems": max}),
        Ty::List(item, min) => {
            let mut s = json!({"type": "array", "items": ty_schema(item)});
            if *min > 0 {
                s["minItems"] = json!(min);
            }
            s
        }
        Ty::Vector(n) => json!({"type": "array", "items": {"type": "number"}, "minItems": n, "maxItems": n}),
        Ty::Map(item) => json!({"type": "object", "additionalProperties": ty_schema(item)}),
        Ty::Tuple(items) => json!({
            "type": "array",
            "items": items.iter().map(ty_schema).collect::<Vec<_>>(),
            "minItems": items.len(),
            "maxItems": items.len(),
            "additionalItems": false,
        }),
        Ty::Either(tys) => json!({"anyOf": tys.iter().map(ty_schema).collect::<Vec<_>>()}),
        Ty::Point => json!({"type": "array", "items": {"type": "number"}, "minItems": 2, "maxItems": 2}),
        Ty::Tags => json!({"type": "string"}),
    }
}

/// The description a field's schema carries.
fn description(f: &Field) -> String {
    let mut d = f.about.to_owned();
    if d.is_empty() {
        d = f.name.replace('_', " ");
    }
    if !f.unit.is_empty() {
        d.push_str(&format!(" ({})", f.unit));
    }
    if f.need == Need::Optional && !f.default.is_empty() {
        d.push_str(&format!("; default: {}", f.default));
    }
    d
}

/// `(key, schema)` for every key the field accepts.
fn field_properties(f: &Field) -> Vec<(&'static str, Value)> {
    field_properties_at(f, None)
}

/// [`field_properties`] inside `levels` levels of a nested table.
fn field_properties_at(f: &Field, levels: Option<u64>) -> Vec<(&'static str, Value)> {
    let mut own = nested_ty_schema(&f.ty, levels);
    if own == json!(false) {
        return vec![(f.name, own)];
    }
    own["description"] = json!(description(f));
    if f.per_dimension {
        return StateDimension::ALL.iter().map(|d| (d.name(), own.clone())).collect();
    }
    let mut out = vec![(f.name, own)];
    if matches!(f.ty, Ty::Tags) {
        for dim in StateDimension::ALL {
            let flags: Vec<String> = dim.flags().map(|(flag, _)| flag).collect();
            let flag = json!({"type": "string", "enum": flags});
            out.push((
                dim.name(),
                json!({"description": format!("{} flags the pattern requires (a list, or one flag)", dim.name()),
                       "anyOf": [flag.clone(), {"type": "array", "items": flag}]}),
            ));
        }
    }
    out
}

/// A closed object: the table's fields, its required ones, its rules across fields.
fn table_schema(t: &Table) -> Value {
    table_schema_at(t, None)
}

/// [`table_schema`] inside `levels` levels of a nested table.
fn table_schema_at(t: &Table, levels: Option<u64>) -> Value {
    let mut props = Map::new();
    let mut required = Vec::new();
    let mut rules = Vec::new();
    for f in t.fields {
        for (k, v) in field_properties_at(f, levels) {
            props.insert(k.to_owned(), v);
        }
        if let Need::Required(_) = f.need {
            required.push(f.name);
        }
        if matches!(f.ty, Ty::Tags) {
            // The text form and the per-dimension lists are one pattern written two ways (E019).
            let dims: Vec<Value> = StateDimension::ALL.iter().map(|d| json!({"required": [d.name()]})).collect();
            rules.push(json!({"not": {"required": [f.name], "anyOf": dims}}));
        }
    }
    for c in t.constraints {
        rules.push(match c {
            Constraint::OneOf(groups) => {
                json!({"oneOf": groups.iter().map(|g| json!({"required": g})).collect::<Vec<_>>()})
            }
            Constraint::AnyOf(keys) => {
                json!({"anyOf": keys.iter().map(|k| json!({"required": [k]})).collect::<Vec<_>>()})
            }
            Constraint::AtMostOne(keys) => {
                let pairs: Vec<Value> = keys
                    .iter()
                    .enumerate()
                    .flat_map(|(i, a)| keys[i + 1..].iter().map(move |b| json!({"required": [a, b]})))
                    .collect();
                json!({"not": {"anyOf": pairs}})
            }
            Constraint::NotWith(field, other, flag) => {
                json!({"not": {"required": [field, other], "properties": {*other: {"const": flag}}}})
            }
        });
    }
    let mut schema =
        json!({"type": "object", "properties": props, "required": required, "additionalProperties": false});
    let map = schema.as_object_mut().expect("an object");
    if rules.len() == 1 {
        map.extend(rules.remove(0).as_object().expect("an object").clone());
    } else if !rules.is_empty() {
        map.insert("allOf".into(), json!(rules));
    }
    schema
}

/// The schema of one kind (a standalone document), `None` for an unknown kind.
#[must_use]
pub fn kind_schema(kind: &str) -> Option<Value> {
    let spec = all_specs().find(|s| s.kind.name() == kind)?;
    let mut schema = table_schema(&spec.table);
    let map = schema.as_object_mut().expect("an object");
    let mut props = Map::new();
    props.insert("kind".into(), json!({"const": kind, "description": "definition kind"}));
    for f in spec::COMMON.fields.iter().filter(|f| f.name != "kind") {
        for (k, v) in field_properties(f) {
            props.insert(k.to_owned(), v);
        }
    }
    props.extend(map["properties"].as_object().expect("properties").clone());
    map.insert("properties".into(), Value::Object(props));
    let mut required = vec![json!("kind"), json!("id")];
    required.extend(map["required"].as_array().expect("required").iter().cloned());
    map.insert("required".into(), json!(required));
    let mut out = Map::new();
    out.insert("$schema".into(), json!(DRAFT));
    out.insert("title".into(), json!(format!("ZOA `{kind}` definition")));
    out.extend(std::mem::take(map));
    Some(Value::Object(out))
}

/// One schema for every definition file: dispatches on `kind`.
#[must_use]
pub fn definition_schema() -> Value {
    let mut defs = Map::new();
    let mut all_of = Vec::new();
    for kind in KINDS {
        let mut s = kind_schema(kind).expect("known kind");
        s.as_object_mut().expect("object").remove("$schema");
        defs.insert(kind.to_owned(), s);
        all_of.push(json!({
            "if": {"properties": {"kind": {"const": kind}}, "required": ["kind"]},
            "then": {"$ref": format!("#/definitions/{kind}")}
        }));
    }
    json!({
        "$schema": DRAFT,
        "title": "ZOA definition file",
        "description": "One definition per file; `kind` selects the fields.",
        "type": "object",
        "required": ["kind", "id"],
        "properties": {"kind": {"enum": KINDS, "description": "definition kind"}},
        "allOf": all_of,
        "definitions": defs,
    })
}

/// A schema as the committed files hold it: pretty JSON, keys sorted, one
/// trailing newline.
#[must_use]
pub fn schema_text(schema: &Value) -> String {
    serde_json::to_string_pretty(schema).expect("a JSON value always serialises") + "\n"
}

/// Every schema file `zoa-anim schema` writes: `(file name, schema)` —
/// `zoa-definition.schema.json` (any kind) and `zoa-<kind>.schema.json`.
#[must_use]
pub fn schema_files() -> Vec<(String, Value)> {
    let mut out = vec![("zoa-definition.schema.json".to_owned(), definition_schema())];
    for kind in KINDS {
        out.push((format!("zoa-{kind}.schema.json"), kind_schema(kind).expect("known kind")));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_enum_accepts_its_aliases_too() {
        static MODE: spec::Enum = spec::Enum { noun: "mode", values: &["1D", "2D"], aliases: &[("1d", "1D")] };
        assert_eq!(ty_schema(&Ty::Enum(&MODE)), json!({"type": "string", "enum": ["1D", "2D", "1d"]}));
    }

    #[test]
    fn every_kind_has_a_closed_object_schema() {
        for kind in KINDS {
            let s = kind_schema(kind).unwrap();
            assert_eq!(s["additionalProperties"], json!(false), "{kind}");
            assert_eq!(s["properties"]["kind"]["const"], json!(kind));
        }
        assert!(kind_schema("nope").is_none());
        let described: Vec<&str> = all_specs().map(|s| s.kind.name()).collect();
        assert_eq!(described, KINDS);
        assert_eq!(schema_files().len(), 11);
    }
}

//! JSON Schemas (draft-07) of the definition kinds, for editors: Taplo /
//! Even Better TOML validate and complete definition files as you type.
//!
//! Hand-built with `serde_json` from the same tables `defs/README.md`
//! documents, because the loader reads files through a spanned parse tree,
//! not serde structs, so there is nothing to derive from. What a schema can
//! say it says: unknown fields (`additionalProperties: false`, E005),
//! required fields (E006), types (E007), ranges (E008), id syntax, enums and
//! tag flags (E010), and conflicting forms (E019). What it cannot say stays
//! with `zoa-anim validate`: non-finite numbers (E009, TOML `nan`/`inf`),
//! tag text like `locomotion=sprnt`, and everything across files
//! (references, duplicate ids, bones, clip durations).

use serde_json::{Map, Value, json};
use zoa_anim_core::StateDimension;

/// Draft the schemas declare.
pub const DRAFT: &str = "http://json-schema.org/draft-07/schema#";

/// Regex of the core id syntax (lowercase dotted segments).
pub const ID_PATTERN: &str = "^[a-z][a-z0-9_]*(\\.[a-z][a-z0-9_]*)*$";

/// The nine kinds, in documentation order.
pub const KINDS: [&str; 9] = [
    "binding_profile",
    "animation_profile",
    "state_graph",
    "rig_policy",
    "sound_profile",
    "player_profile_set",
    "clip",
    "animation_graph",
    "preview_preset",
];

fn s(desc: &str) -> Value {
    json!({"type": "string", "description": desc})
}
fn b(desc: &str) -> Value {
    json!({"type": "boolean", "description": desc})
}
fn n(desc: &str) -> Value {
    json!({"type": "number", "description": desc})
}
fn n_min(desc: &str, min: f64) -> Value {
    json!({"type": "number", "minimum": min, "description": desc})
}
fn n_pos(desc: &str) -> Value {
    json!({"type": "number", "exclusiveMinimum": 0, "description": desc})
}
fn n_range(desc: &str, lo: f64, hi: f64) -> Value {
    json!({"type": "number", "minimum": lo, "maximum": hi, "description": desc})
}
fn i_range(desc: &str, lo: i64, hi: i64) -> Value {
    json!({"type": "integer", "minimum": lo, "maximum": hi, "description": desc})
}
fn e(desc: &str, values: &[&str]) -> Value {
    json!({"type": "string", "enum": values, "description": desc})
}
fn id_ref(desc: &str) -> Value {
    json!({"type": "string", "pattern": ID_PATTERN, "maxLength": 128, "description": desc})
}
fn arr(desc: &str, items: Value) -> Value {
    json!({"type": "array", "items": items, "description": desc})
}
fn obj(props: Vec<(&str, Value)>, required: &[&str]) -> Value {
    let mut p = Map::new();
    for (k, v) in props {
        p.insert(k.to_owned(), v);
    }
    json!({"type": "object", "properties": p, "required": required, "additionalProperties": false})
}

/// Tag pattern fields of a table row: `tags` text or per-dimension flag lists.
fn tag_props(props: &mut Fields) {
    props.push(("tags", s("state pattern in text form, e.g. `locomotion=sprint combat=armed_rifle|aiming`")));
    for dim in StateDimension::ALL {
        let flags: Vec<String> = dim.flags().map(|(f, _)| f).collect();
        let flag = json!({"type": "string", "enum": flags});
        props.push((
            dim.name(),
            json!({"description": format!("{} flags this row requires (a list, or one flag)", dim.name()),
                   "anyOf": [flag.clone(), {"type": "array", "items": flag}]}),
        ));
    }
}

/// `not` clause forbidding `tags` together with a dimension list (E019).
fn tags_exclusive() -> Value {
    let dims: Vec<Value> = StateDimension::ALL.iter().map(|d| json!({"required": [d.name()]})).collect();
    json!({"required": ["tags"], "anyOf": dims})
}

fn bone_mask() -> Value {
    let list = json!({"type": "array", "items": {"type": "string"}, "minItems": 1});
    let mut m = obj(vec![("include", list.clone()), ("exclude", list)], &[]);
    m["description"] = json!("bone subtrees to include / exclude (names of the model's joints)");
    m
}

fn with(mut schema: Value, key: &str, value: Value) -> Value {
    schema[key] = value;
    schema
}

/// Property name → schema, in documentation order.
type Fields = Vec<(&'static str, Value)>;

/// The kind-specific fields, required list and extra top-level keywords of `kind`.
fn kind_fields(kind: &str) -> (Fields, Vec<&'static str>, Map<String, Value>) {
    let mut extra = Map::new();
    let (props, required): (Fields, Vec<&'static str>) = match kind {
        "binding_profile" => {
            let binding = obj(
                vec![
                    ("id", id_ref("binding id (gameplay meaning, e.g. `fire`)")),
                    ("parameter", json!({"type": "string", "minLength": 1, "description": "the rig's parameter name"})),
                    ("type", e("parameter type", &["trigger", "bool", "float", "int"])),
                    ("layer", i_range("animator layer; -1 = base layer", -1, i64::from(i32::MAX))),
                ],
                &["id", "parameter", "type"],
            );
            let slot = obj(
                vec![
                    ("id", id_ref("slot id (e.g. `reload_magazine`)")),
                    ("clip", s("clip reference: a clip definition id or `<model stem>_<animation>`")),
                    ("speed", n_pos("speed multiplier (> 0, default 1)")),
                    ("additive", b("play additively (default false)")),
                ],
                &["id", "clip"],
            );
            (
                vec![
                    ("display_name", s("human-readable name (default: the id)")),
                    ("bindings", arr("semantic id → rig parameter", binding)),
                    ("slots", arr("named purposes → clips", slot)),
                ],
                vec![],
            )
        }
        "animation_profile" => {
            let mut row = vec![
                ("clip", s("clip reference")),
                ("weight", n_min("tie-breaker weight (>= 0, default 1)", 0.0)),
                ("speed", n_pos("speed multiplier (> 0, default 1)")),
                ("one_shot", b("plays once, then yields to the resolver (default false)")),
            ];
            tag_props(&mut row);
            let row = with(obj(row, &["clip"]), "not", tags_exclusive());
            extra.insert("anyOf".into(), json!([{"required": ["parent"]}, {"required": ["entries"]}]));
            (
                vec![
                    ("parent", id_ref("animation_profile id to inherit rows from")),
                    ("procedural_fallbacks_allowed", b("default false")),
                    ("default_idle_clip", s("clip reference")),
                    ("entries", arr("clip table rows in authoring order", row)),
                ],
                vec![],
            )
        }
        "state_graph" => {
            let dim = obj(
                vec![
                    ("min_hold_seconds", n_min("seconds (>= 0)", 0.0)),
                    ("crossfade_seconds", n_min("seconds (>= 0; 0 cuts)", 0.0)),
                    ("trigger", e("what starts a change", &["on_tag_change", "on_event", "on_input_threshold"])),
                ],
                &[],
            );
            (StateDimension::ALL.iter().map(|d| (d.name(), dim.clone())).collect(), vec![])
        }
        "rig_policy" => (
            vec![
                ("foot_plant", b("default true")),
                ("look_at", b("default true")),
                ("hand_on_weapon", b("default true")),
                ("climb_hand", b("default false")),
                ("allow_procedural_fallback", b("default true")),
                ("foot_plant_blend_in_speed", n_range("normalised speed 0..=1 (default 0.5)", 0.0, 1.0)),
                ("look_at_fov_degrees", n_range("half-angle degrees 0..=180 (default 70)", 0.0, 180.0)),
                ("breath_frequency", n_min("Hz (>= 0, default 0.25)", 0.0)),
                ("breath_amplitude", n_min("radians (>= 0, default 0.02)", 0.0)),
                ("head_bob_amplitude", n_min("metres (>= 0, default 0.02)", 0.0)),
                (
                    "bone_overrides",
                    json!({"type": "object", "additionalProperties": {"type": "string"},
                           "description": "role → bone name"}),
                ),
            ],
            vec![],
        ),
        "sound_profile" => {
            let variant = json!({"anyOf": [
                {"type": "string", "description": "sound file path, relative to this file"},
                obj(vec![("clip", s("sound file path")), ("weight", n_min("pick weight (>= 0)", 0.0))], &["clip"]),
            ]});
            let mut row = vec![
                (
                    "event",
                    json!({"type": "string", "pattern": ID_PATTERN, "description": "dotted sound event id, e.g. `weapon.fire`"}),
                ),
                ("surface", s("surface id (default: any)")),
                ("variants", json!({"type": "array", "items": variant, "minItems": 1, "description": "sound files"})),
                ("weight", n_min(">= 0 (default 1)", 0.0)),
                ("bus", s("bus id (default `sfx`)")),
                ("volume", n_min("linear gain (>= 0, default 1)", 0.0)),
                ("volume_jitter", n_range("0..=1 (default 0)", 0.0, 1.0)),
                ("pitch_jitter_semitones", n_min(">= 0 (default 0)", 0.0)),
                ("spatial", b("default false")),
                ("max_distance", n_pos("metres (> 0, default 50)")),
                ("rolloff", e("distance rolloff (default inverse)", &["linear", "inverse", "logarithmic"])),
                ("loop", b("default false")),
                ("fade_time", n_min("seconds (>= 0)", 0.0)),
                ("cooldown", n_min("seconds (>= 0)", 0.0)),
                ("cooldown_global", b("default false")),
                ("polyphony_cap", i_range("0 = unlimited", 0, i64::from(u32::MAX))),
                ("cap_policy", e("default steal_oldest", &["reject", "steal_oldest", "steal_quietest"])),
                ("priority", i_range("i32 (default 0)", i64::from(i32::MIN), i64::from(i32::MAX))),
                ("avoid_repeat", i_range(">= 0 (default 0)", 0, i64::from(u32::MAX))),
            ];
            tag_props(&mut row);
            let row = with(obj(row, &["event", "variants"]), "not", tags_exclusive());
            extra.insert("anyOf".into(), json!([{"required": ["parent"]}, {"required": ["entries"]}]));
            (
                vec![("parent", id_ref("sound_profile id to inherit from")), ("entries", arr("sound entries", row))],
                vec![],
            )
        }
        "player_profile_set" => {
            let classes = ["unarmed", "pistol", "rifle", "shotgun", "melee", "heavy", "throwable"];
            let entry = obj(
                vec![
                    ("class", e("weapon class", &classes)),
                    ("binding_profile", id_ref("binding_profile id")),
                    ("animation_profile", id_ref("animation_profile id")),
                    ("animation_graph", id_ref("animation_graph id")),
                ],
                &["class", "binding_profile"],
            );
            (
                vec![
                    ("default_profile", e("class used when the requested one has no entry", &classes)),
                    ("profiles", arr("one entry per class", entry)),
                ],
                vec!["default_profile"],
            )
        }
        "clip" => {
            let notify = json!({"anyOf": [
                {"type": "string", "pattern": "^.+@[0-9.eE+-]+$", "description": "`Name@seconds`"},
                obj(vec![("name", json!({"type": "string", "minLength": 1})), ("time", n_min("seconds (>= 0)", 0.0))], &["name", "time"]),
            ]});
            (
                vec![
                    ("source", s("model file, relative to this definition file")),
                    (
                        "animation",
                        json!({"description": "animation name (or `<stem>_<name>`) or index (default: the id)",
                               "anyOf": [{"type": "string", "minLength": 1}, {"type": "integer", "minimum": 0, "maximum": u32::MAX}]}),
                    ),
                    ("rate", n_pos("speed multiplier (> 0, default 1)")),
                    ("loop", b("loop hint graph states start with (default true)")),
                    ("notifies", arr("named times that fire events", notify)),
                ],
                vec!["source"],
            )
        }
        "animation_graph" => {
            let param = obj(
                vec![
                    ("name", json!({"type": "string", "minLength": 1})),
                    ("type", e("parameter type", &["float", "int", "bool", "trigger"])),
                    (
                        "default",
                        json!({"type": ["number", "boolean"], "description": "matching value; none for triggers"}),
                    ),
                ],
                &["name", "type"],
            );
            let layer = obj(
                vec![
                    ("name", json!({"type": "string", "minLength": 1})),
                    ("entry", s("a state of this layer")),
                    ("weight", n_range("0..=1 (default 1)", 0.0, 1.0)),
                    ("blend_mode", e("default override", &["override", "additive"])),
                    ("bone_mask", bone_mask()),
                ],
                &["name", "entry"],
            );
            let child = obj(
                vec![
                    ("clip", s("clip reference")),
                    ("threshold", n("position on the primary axis")),
                    ("threshold_y", n("position on the secondary axis (2D)")),
                    ("weight", n_min("direct trees: weight (>= 0)", 0.0)),
                ],
                &["clip"],
            );
            let tree = obj(
                vec![
                    ("type", e("blend tree flavour", &["1D", "2D", "direct"])),
                    ("parameter", s("a float or int parameter")),
                    ("parameter_y", s("2D: the secondary axis parameter")),
                    ("children", arr("blended clips", child)),
                ],
                &["type"],
            );
            let state = with(
                obj(
                    vec![
                        ("name", json!({"type": "string", "minLength": 1, "not": {"const": "any"}})),
                        ("layer", s("a declared layer (default base)")),
                        ("clip", s("clip reference")),
                        ("blend_tree", tree),
                        ("loop", b("default: the clip's loop hint, else true")),
                        ("speed", n_pos("> 0 (default 1)")),
                        (
                            "crossfade",
                            obj(vec![("duration", n_min("seconds (>= 0)", 0.0)), ("warp", b("default false"))], &[]),
                        ),
                        ("weight", n_range("0..=1 (default: the layer's)", 0.0, 1.0)),
                        ("blend_mode", e("default: the layer's", &["override", "additive"])),
                        ("bone_mask", bone_mask()),
                    ],
                    &["name"],
                ),
                "oneOf",
                json!([{"required": ["clip"]}, {"required": ["blend_tree"]}]),
            );
            let transition = obj(
                vec![
                    ("from", s("a state, or `any`")),
                    ("to", s("a state on the same layer")),
                    ("conditions", arr("`speed > 0.1`, `grounded is true`, `jump`", json!({"type": "string"}))),
                    ("exit_time", n_range("fraction of the source clip 0..=1", 0.0, 1.0)),
                    ("blend", n_min("seconds (>= 0)", 0.0)),
                    ("interruption", e("default none", &["none", "current", "next"])),
                    ("mode", e("default crossfade", &["crossfade", "inertialize"])),
                ],
                &["from", "to"],
            );
            (
                vec![
                    ("model", s("the skeletal model, relative to this file")),
                    ("entry", s("a state of the base layer")),
                    ("parameters", arr("graph parameters", param)),
                    ("layers", arr("layers above the implicit base layer", layer)),
                    ("states", arr("states", state)),
                    ("transitions", arr("transitions, tried in order", transition)),
                ],
                vec!["model", "entry"],
            )
        }
        "preview_preset" => {
            let step = with(
                obj(
                    vec![
                        ("set", s("binding id to set")),
                        ("value", json!({"type": ["boolean", "number"], "description": "value for `set`"})),
                        ("fire", s("trigger binding id")),
                        ("play_slot", s("slot id")),
                        ("tags", s("state text that replaces the active state")),
                        ("wait", n_min("seconds (>= 0)", 0.0)),
                    ],
                    &[],
                ),
                "oneOf",
                json!([{"required": ["set", "value"]}, {"required": ["fire"]}, {"required": ["play_slot"]},
                       {"required": ["tags"]}, {"required": ["wait"]}]),
            );
            (
                vec![
                    ("name", s("display name (default: the id)")),
                    ("steps", json!({"type": "array", "items": step, "description": "one action per step"})),
                ],
                vec!["steps"],
            )
        }
        _ => (Vec::new(), Vec::new()),
    };
    (props, required, extra)
}

/// The schema of one kind (a standalone document), `None` for an unknown kind.
pub fn kind_schema(kind: &str) -> Option<Value> {
    if !KINDS.contains(&kind) {
        return None;
    }
    let (fields, required, extra) = kind_fields(kind);
    let mut props = vec![
        ("kind", json!({"const": kind, "description": "definition kind"})),
        ("id", id_ref("unique id per kind: lowercase segments of a-z0-9_, dotted allowed")),
    ];
    props.extend(fields);
    let mut req = vec!["kind", "id"];
    req.extend(required);
    let mut schema = obj(props, &req);
    let map = schema.as_object_mut().expect("an object");
    map.insert("$schema".into(), json!(DRAFT));
    map.insert("title".into(), json!(format!("ZOA `{kind}` definition")));
    map.extend(extra);
    Some(schema)
}

/// One schema for every definition file: dispatches on `kind`.
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

/// Every schema file `zoa-anim schema` writes: `(file name, schema)` —
/// `zoa-definition.schema.json` (any kind) and `zoa-<kind>.schema.json`.
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
    fn every_kind_has_a_closed_object_schema() {
        for kind in KINDS {
            let s = kind_schema(kind).unwrap();
            assert_eq!(s["additionalProperties"], json!(false), "{kind}");
            assert_eq!(s["properties"]["kind"]["const"], json!(kind));
        }
        assert!(kind_schema("nope").is_none());
        assert_eq!(schema_files().len(), 10);
    }
}

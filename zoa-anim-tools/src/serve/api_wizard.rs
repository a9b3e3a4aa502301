//! The four-step binding-profile wizard (identity, parameter bindings, slot
//! assignments, review).
//!
//! - `GET /api/vocabulary`: the shipped binding ids (with their types) and slot ids, the slots
//!   of each weapon class, and the folder's clip and binding-profile ids (for pickers).
//! - `POST /api/wizard/preview {draft, path}`: the `binding_profile` TOML the draft makes and
//!   the diagnostics it would have at `path` in the folder (nothing written): the issue tray.
//! - `POST /api/wizard/write {draft, path, overwrite}`: writes it (atomically). An existing file
//!   is replaced only with `overwrite: true` (the page asks first); otherwise 409.

use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use serde::Deserialize;
use serde_json::{Value, json};
use zoa_anim_assets::authoring::autobind::slots_for;
use zoa_anim_core::bindings::AnimationBindingProfile;
use zoa_anim_core::{DefaultBindings, DefaultSlots, PlayerProfileType};

use super::api_defs::load;
use super::files::{self, Expect};
use super::{ApiError, ApiResult, App, diag_json};

/// `GET /api/vocabulary`.
pub async fn vocabulary(State(app): State<Arc<App>>) -> ApiResult {
    let out = app
        .blocking(|app| {
            let set = load(app, &[]);
            let mut clips: Vec<&str> = set.clips.iter().map(|c| c.value.id.as_str()).collect();
            clips.sort_unstable();
            let mut profiles: Vec<&str> = set.binding_profiles.iter().map(|b| b.value.profile_id()).collect();
            profiles.sort_unstable();
            let class_slots: serde_json::Map<String, Value> =
                PlayerProfileType::ALL.iter().map(|c| (c.name().to_owned(), json!(slots_for(*c)))).collect();
            Ok(json!({
                "bindings": DefaultBindings::ALL.iter().map(|(id, t)| json!({ "id": id.as_str(), "type": t.name() })).collect::<Vec<_>>(),
                "slots": DefaultSlots::ALL.iter().map(|s| s.as_str()).collect::<Vec<_>>(),
                "class_slots": class_slots,
                "profile_types": PlayerProfileType::ALL.map(|t| t.name()),
                "parameter_types": ["trigger", "bool", "float", "int"],
                "clips": clips,
                "binding_profiles": profiles,
            }))
        })
        .await?;
    Ok(Json(out))
}

/// One parameter binding of a draft.
#[derive(Debug, Clone, Deserialize)]
pub struct DraftBinding {
    id: String,
    parameter: String,
    #[serde(rename = "type")]
    ty: String,
    #[serde(default = "base_layer")]
    layer: i64,
}

fn base_layer() -> i64 {
    -1
}

fn one() -> f64 {
    1.0
}

/// One slot assignment of a draft.
#[derive(Debug, Clone, Deserialize)]
pub struct DraftSlot {
    id: String,
    clip: String,
    #[serde(default = "one")]
    speed: f64,
    #[serde(default)]
    additive: bool,
}

/// What the wizard has gathered.
#[derive(Debug, Clone, Deserialize)]
pub struct Draft {
    id: String,
    #[serde(default)]
    display_name: String,
    #[serde(default)]
    bindings: Vec<DraftBinding>,
    #[serde(default)]
    slots: Vec<DraftSlot>,
}

fn quote(s: &str) -> String {
    toml::Value::String(s.to_owned()).to_string()
}

/// The draft as `binding_profile` TOML (the loader checks it; nothing is fixed up here).
pub(super) fn draft_toml(d: &Draft) -> String {
    let mut t = String::from("# Written by the Workbench binding wizard.\nkind = \"binding_profile\"\n");
    t.push_str(&format!("id = {}\n", quote(d.id.trim())));
    if !d.display_name.trim().is_empty() {
        t.push_str(&format!("display_name = {}\n", quote(d.display_name.trim())));
    }
    for b in &d.bindings {
        t.push_str(&format!(
            "\n[[bindings]]\nid = {}\nparameter = {}\ntype = {}\n",
            quote(b.id.trim()),
            quote(&b.parameter),
            quote(b.ty.trim())
        ));
        if b.layer != -1 {
            t.push_str(&format!("layer = {}\n", b.layer));
        }
    }
    for s in &d.slots {
        t.push_str(&format!("\n[[slots]]\nid = {}\nclip = {}\n", quote(s.id.trim()), quote(s.clip.trim())));
        if s.speed != 1.0 {
            t.push_str(&format!("speed = {}\n", toml::Value::Float(s.speed)));
        }
        if s.additive {
            t.push_str("additive = true\n");
        }
    }
    t
}

/// Body of both wizard requests.
#[derive(Debug, Deserialize)]
pub struct WizardBody {
    draft: Draft,
    path: String,
    #[serde(default)]
    overwrite: bool,
}

fn check(app: &App, rel: &std::path::Path, text: &str) -> Value {
    let set = load(app, &[(rel.to_path_buf(), text.to_owned())]);
    let mine: Vec<_> = set.diagnostics.iter().filter(|d| d.file == rel).collect();
    let (errors, warnings) = diag_json::counts(mine.iter().copied());
    let list: Vec<Value> = mine.iter().map(|d| diag_json::diagnostic(d, Some(text))).collect();
    json!({ "toml": text, "diagnostics": list, "errors": errors, "warnings": warnings })
}

/// `POST /api/wizard/preview`.
pub async fn preview(State(app): State<Arc<App>>, Json(b): Json<WizardBody>) -> ApiResult {
    let rel = app.roots.defs_toml(&b.path)?;
    let out = app
        .blocking(move |app| {
            let text = draft_toml(&b.draft);
            let mut out = check(app, &rel, &text);
            out["exists"] = json!(app.roots.defs().dir.join(&rel).exists());
            Ok(out)
        })
        .await?;
    Ok(Json(out))
}

/// `POST /api/wizard/write`.
pub async fn write(State(app): State<Arc<App>>, Json(b): Json<WizardBody>) -> ApiResult {
    let out = app
        .blocking(move |app| {
            let r = app.roots.writable_toml(&b.path)?;
            let text = draft_toml(&b.draft);
            files::checked_declaration(&text, Some("binding_profile"))
                .map_err(|e| ApiError::unprocessable(format!("not written: {e}")).with("declaration", true))?;
            let expect = if r.abs.exists() {
                if !b.overwrite {
                    return Err(
                        ApiError::conflict(format!("`{}` exists; confirm to replace it", b.path)).with("exists", true)
                    );
                }
                Expect::Version(files::read_text(&r.abs)?.1)
            } else {
                Expect::Absent
            };
            let version = app.writer.save(&r.abs, text.as_bytes(), &expect)?;
            let mut out = check(app, &r.rel, &text);
            out["version"] = json!(version);
            out["path"] = json!(b.path);
            Ok(out)
        })
        .await?;
    Ok(Json(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drafts_write_only_what_differs_from_the_defaults() {
        let d: Draft = serde_json::from_value(json!({
            "id": "hero", "display_name": "Hero \"A\"",
            "bindings": [{"id": "fire", "parameter": "Fire", "type": "trigger", "layer": 1},
                         {"id": "speed", "parameter": "Speed", "type": "float"}],
            "slots": [{"id": "reload_magazine", "clip": "reload", "speed": 1.5, "additive": true},
                      {"id": "death", "clip": "die"}]
        }))
        .unwrap();
        let t = draft_toml(&d);
        assert!(t.contains("display_name = 'Hero \"A\"'") || t.contains("display_name = \"Hero \\\"A\\\"\""), "{t}");
        assert!(
            t.contains("[[bindings]]\nid = \"fire\"\nparameter = \"Fire\"\ntype = \"trigger\"\nlayer = 1\n"),
            "{t}"
        );
        assert!(t.contains("id = \"speed\"\nparameter = \"Speed\"\ntype = \"float\"\n\n"), "{t}");
        assert!(t.contains("speed = 1.5\nadditive = true\n"), "{t}");
        assert!(t.ends_with("[[slots]]\nid = \"death\"\nclip = \"die\"\n"), "{t}");
        let v: toml::Table = t.parse().unwrap();
        assert_eq!(v["bindings"].as_array().unwrap().len(), 2);
    }
}

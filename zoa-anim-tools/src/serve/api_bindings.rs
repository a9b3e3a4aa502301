//! The Binding Browser: `GET /api/bindings`.
//!
//! Per player profile set and weapon class: each semantic binding id with
//! the rig parameter, type and layer the class's binding profile maps it to
//! (the layer named from the class's graph), and each slot with its clip.
//! Bindings the preview's driver treats as no-ops for that class (no such
//! parameter in the graph, another type, a layer the graph lacks, a slot
//! clip that does not resolve) are flagged with the reason, each set checked
//! through the preview pipeline on its own. Binding profiles no set uses are
//! listed too.

use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use serde_json::{Value, json};
use zoa_anim_core::bindings::AnimationBindingProfile;
use zoa_anim_core::graph::AnimationGraph;
use zoa_anim_core::{BindingProfile, DefaultBindings, DefaultSlots};

use super::api_defs::{defs_virtual, load};
use super::pipeline::{self, InertBinding};
use super::{ApiResult, App};

fn layer_name(graph: Option<&AnimationGraph>, layer: i32) -> String {
    if layer < 0 {
        return "base".to_owned();
    }
    graph.and_then(|g| g.layers.get(layer as usize)).map_or_else(|| format!("#{layer}"), |l| l.name.clone())
}

fn profile_json(
    p: &BindingProfile,
    path: Option<String>,
    graph: Option<&AnimationGraph>,
    inert: Option<&[&InertBinding]>,
) -> Value {
    let reason = |id: &str| -> Value {
        match inert {
            Some(list) => list.iter().find(|i| i.id == id).map_or(Value::Null, |i| json!(i.reason)),
            None => Value::Null,
        }
    };
    let bindings: Vec<Value> = p
        .bindings()
        .iter()
        .map(|b| {
            let shipped = DefaultBindings::ALL.iter().find(|(id, _)| *id == b.id).map(|(_, t)| t.name());
            json!({
                "id": b.id.as_str(),
                "parameter": b.parameter_name,
                "type": b.parameter_type.name(),
                "layer": b.layer_index,
                "layer_name": layer_name(graph, b.layer_index),
                "shipped_type": shipped,
                "inert": reason(b.id.as_str()),
            })
        })
        .collect();
    let slots: Vec<Value> = p
        .slots()
        .iter()
        .map(|s| {
            json!({
                "id": s.id.as_str(),
                "clip": s.clip_reference,
                "speed": crate::capture_export::num(s.speed_multiplier),
                "additive": s.additive,
                "shipped": DefaultSlots::ALL.contains(&s.id),
                "inert": reason(s.id.as_str()),
            })
        })
        .collect();
    json!({
        "id": p.profile_id(),
        "display_name": p.display_name(),
        "path": path,
        "bindings": bindings,
        "slots": slots,
    })
}

/// `GET /api/bindings`.
pub async fn browse(State(app): State<Arc<App>>) -> ApiResult {
    let out = app
        .blocking(|app| {
            let set = load(app, &[]);
            let mut inert_problems = Vec::new();
            let file_of = |id: &str| {
                set.binding_profiles.iter().find(|b| b.value.profile_id() == id).map(|b| defs_virtual(app, &b.file))
            };
            let mut used = Vec::new();
            let mut sets: Vec<Value> = Vec::new();
            let mut list: Vec<_> = set.player_profile_sets.iter().collect();
            list.sort_by(|a, b| a.value.id.cmp(&b.value.id));
            for s in list {
                let inert = match pipeline::inert_bindings(app, &set, &s.value.id) {
                    Ok(list) => Some(list),
                    Err(e) => {
                        inert_problems.extend(e.problems().into_iter().map(|p| format!("set `{}`: {p}", s.value.id)));
                        None
                    }
                };
                let checked = inert.is_some();
                let default_graph =
                    s.value.resolve_profile(s.value.default_profile).and_then(|e| e.animation_graph.clone());
                let classes: Vec<Value> = s
                    .value
                    .profiles
                    .iter()
                    .map(|e| {
                        used.push(e.binding_profile.clone());
                        let graph_id = e.animation_graph.clone().or_else(|| default_graph.clone());
                        let graph = graph_id.as_deref().and_then(|g| set.animation_graph(g));
                        let class_inert: Option<Vec<&InertBinding>> = inert
                            .as_ref()
                            .filter(|_| checked)
                            .map(|l| l.iter().filter(|i| i.class == e.class).collect());
                        let profile = set
                            .binding_profile(&e.binding_profile)
                            .map(|p| profile_json(p, file_of(&e.binding_profile), graph, class_inert.as_deref()));
                        json!({
                            "class": e.class.name(),
                            "binding_profile": e.binding_profile,
                            "animation_graph": graph_id,
                            "animation_profile": e.animation_profile,
                            "profile": profile,
                        })
                    })
                    .collect();
                sets.push(json!({
                    "id": s.value.id,
                    "path": defs_virtual(app, &s.file),
                    "default": s.value.default_profile.name(),
                    "inert_checked": checked,
                    "classes": classes,
                }));
            }
            let unused: Vec<Value> = set
                .binding_profiles
                .iter()
                .filter(|b| !used.iter().any(|u| u == b.value.profile_id()))
                .map(|b| profile_json(&b.value, Some(defs_virtual(app, &b.file)), None, None))
                .collect();
            Ok(json!({
                "sets": sets,
                "unused_profiles": unused,
                "inert_problems": inert_problems,
            }))
        })
        .await?;
    Ok(Json(out))
}

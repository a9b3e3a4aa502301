//! IK Targets.
//!
//! - `GET /api/ik/models`: the models the definitions animate and the glTF files under the
//!   asset folders (inside the roots only), the folder's rig policies and its `equipment`
//!   items (whose grips `api_grips` shows and saves).
//! - `POST /api/ik/discover {model, skin, policy, overrides}`: bone discovery on one skin, as
//!   `zoa-anim ik --discover` runs it, with the rig policy's `bone_overrides` (or the
//!   `overrides` given, to try edits before saving): the joints with their rest positions
//!   (model space) for drawing, each role's joints, and per behaviour whether the policy
//!   enables it, whether the bones are there, and so whether it runs; plus where each leg
//!   ends and the joints whose names discovery turned down, with why (the CLI's JSON).
//! - `POST /api/ik/save {path, version, overrides}`: writes `bone_overrides` into the rig
//!   policy file (the rest of the file, comments included, is kept), atomically and only
//!   when the file is still at `version`; a file that is not a valid `rig_policy`
//!   declaration is refused (422) and left as it is.

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use serde::Deserialize;
use serde_json::{Value, json};
use zoa_anim_assets::authoring::scan::is_model_file;
use zoa_anim_assets::gltf::load_gltf;
use zoa_anim_core::glam::Mat4;
use zoa_anim_core::{RigPolicy, Skeleton};
use zoa_anim_ik::{BoneRoles, PolicyKind, Role};

use super::api_defs::{defs_virtual, load};
use super::files::{self, Expect};
use super::{ApiError, ApiResult, App, diag_json};

/// Most model files listed from the asset folders.
const MAX_LISTED: usize = 500;

fn walk_models(dir: &Path, depth: usize, out: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<_> = entries.flatten().collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        if out.len() >= MAX_LISTED || e.file_name().to_string_lossy().starts_with('.') {
            continue;
        }
        let Ok(ty) = e.file_type() else { continue };
        if ty.is_dir() && depth < 16 {
            walk_models(&e.path(), depth + 1, out);
        } else if ty.is_file() && is_model_file(&e.path()) {
            out.push(e.path());
        }
    }
}

/// `GET /api/ik/models`.
pub async fn models(State(app): State<Arc<App>>) -> ApiResult {
    let out = app
        .blocking(|app| {
            let set = load(app, &[]);
            let dir = &app.roots.defs().dir;
            let used: BTreeSet<String> = set
                .animation_graphs
                .iter()
                .map(|g| g.value.model.as_str())
                .chain(set.clips.iter().map(|c| c.value.source.as_str()))
                .filter_map(|m| app.roots.to_virtual(&dir.join(m)))
                .collect();
            let mut found = Vec::new();
            for r in &app.roots.list[1..] {
                walk_models(&r.dir, 0, &mut found);
            }
            let mut all: Vec<Value> = used.iter().map(|m| json!({ "path": m, "used": true })).collect();
            for p in found {
                if let Some(v) = app.roots.to_virtual(&p)
                    && !used.contains(&v)
                {
                    all.push(json!({ "path": v, "used": false }));
                }
            }
            let policies: Vec<Value> = set
                .rig_policies
                .iter()
                .map(|p| json!({ "id": p.value.id, "path": defs_virtual(app, &p.file) }))
                .collect();
            let equipment: Vec<Value> = set
                .equipment
                .iter()
                .map(|e| json!({ "id": e.value.id, "path": defs_virtual(app, &e.file), "attach": e.value.attach }))
                .collect();
            Ok(json!({ "models": all, "policies": policies, "equipment": equipment }))
        })
        .await?;
    Ok(Json(out))
}

/// Body of `POST /api/ik/discover`.
#[derive(Debug, Deserialize)]
pub struct DiscoverBody {
    model: String,
    #[serde(default)]
    skin: usize,
    #[serde(default)]
    policy: Option<String>,
    #[serde(default)]
    overrides: Option<Vec<(String, String)>>,
}

/// Rest transforms in model space (joint rest transforms composed down the tree).
pub(super) fn rest_world(s: &Skeleton) -> Vec<Mat4> {
    let mut world = vec![Mat4::IDENTITY; s.joint_count()];
    for &j in s.eval_order() {
        let j = usize::from(j);
        let local = s.joints()[j].rest.to_matrix();
        world[j] = match s.parent(j) {
            Some(p) => world[p] * local,
            None => local,
        };
    }
    world
}

/// Rest positions in model space.
fn rest_positions(s: &Skeleton) -> Vec<[f32; 3]> {
    rest_world(s).iter().map(|m| m.w_axis.truncate().to_array()).collect()
}

fn discovery_json(s: &Skeleton, roles: &BoneRoles, policy: &RigPolicy) -> Value {
    let names: Vec<String> = (0..s.joint_count()).map(|j| s.display_name(j).into_owned()).collect();
    let parents: Vec<Option<usize>> = (0..s.joint_count()).map(|j| s.parent(j)).collect();
    let positions: Vec<[f64; 3]> =
        rest_positions(s).into_iter().map(|p| p.map(|x| (f64::from(x) * 1e4).round() / 1e4)).collect();
    let mut role_map = serde_json::Map::new();
    for role in Role::ALL {
        let joints: Vec<u16> =
            if role == Role::Spine { roles.spine.clone() } else { roles.get(role).into_iter().collect() };
        role_map.insert(role.name().to_owned(), json!(joints));
    }
    let behaviours: Vec<Value> = roles
        .availability(policy)
        .iter()
        .map(|a| {
            json!({
                "policy": a.policy.name(),
                "enabled": a.enabled,
                "available": a.available,
                "runs": a.enabled && a.available,
                "missing": a.missing.iter().map(|r| r.name()).collect::<Vec<_>>(),
                "needs": a.policy.required_roles().iter().map(|r| r.name()).collect::<Vec<_>>(),
            })
        })
        .collect();
    json!({
        "joint_names": names,
        "joint_parents": parents,
        "positions": positions,
        "roles": role_map,
        "behaviours": behaviours,
    })
}

/// `POST /api/ik/discover`.
pub async fn discover(State(app): State<Arc<App>>, Json(b): Json<DiscoverBody>) -> ApiResult {
    let out = app
        .blocking(move |app| {
            let model = app.roots.existing_file(&b.model)?;
            let asset = load_gltf(&model.abs).map_err(|e| ApiError::unprocessable(e.to_string()))?;
            let skins: Vec<String> = asset.skeletons.iter().map(|s| s.name().to_owned()).collect();
            let Some(skeleton) = asset.skeletons.get(b.skin) else {
                return Err(ApiError::unprocessable(format!(
                    "`{}` has no skin {} (it has {})",
                    b.model,
                    b.skin,
                    skins.len()
                ))
                .with("skins", skins));
            };
            let set = load(app, &[]);
            let (mut policy, policy_file) = match &b.policy {
                Some(id) => {
                    let loaded = set
                        .rig_policies
                        .iter()
                        .find(|p| p.value.id == *id)
                        .ok_or_else(|| ApiError::not_found(format!("no valid rig policy `{id}`")))?;
                    (loaded.value.clone(), Some(defs_virtual(app, &loaded.file)))
                }
                None => (RigPolicy { id: "default".into(), ..RigPolicy::default() }, None),
            };
            let saved_overrides = policy.bone_overrides.clone();
            if let Some(o) = &b.overrides {
                policy.bone_overrides = o.clone();
            }
            let (roles, problems) = BoneRoles::discover_with_overrides(skeleton, &policy);
            let version = match &policy_file {
                Some(v) => Some(files::read_text(&app.roots.existing_file(v)?.abs)?.1),
                None => None,
            };
            let mut out = discovery_json(skeleton, &roles, &policy);
            out["skins"] = json!(skins);
            out["skin"] = json!(b.skin);
            out["model"] = json!(b.model);
            out["problems"] = json!(problems.iter().map(ToString::to_string).collect::<Vec<_>>());
            let enabled: serde_json::Map<String, Value> =
                PolicyKind::ALL.iter().map(|k| (k.name().to_owned(), json!(k.is_enabled_in(&policy)))).collect();
            out["policy"] = json!({
                "id": policy.id,
                "path": policy_file,
                "version": version,
                "saved_overrides": saved_overrides,
                "overrides": policy.bone_overrides,
                "enabled": enabled,
            });
            out["role_names"] = json!(Role::ALL.map(Role::name));
            // Where each leg ends and which name matches discovery turned down, as `zoa-anim ik --discover` says.
            let cli = crate::reports::ik_roles(skeleton, &roles);
            out["leg_ends"] = cli["leg_ends"].clone();
            out["rejected"] = cli["rejected"].clone();
            Ok(out)
        })
        .await?;
    Ok(Json(out))
}

/// Body of `POST /api/ik/save`.
#[derive(Debug, Deserialize)]
pub struct SaveBody {
    path: String,
    version: String,
    overrides: Vec<(String, String)>,
}

/// `text` with its `[bone_overrides]` table replaced by `overrides` (removed when empty).
pub(super) fn with_overrides(text: &str, overrides: &[(String, String)]) -> Result<String, String> {
    let mut doc: toml_edit::DocumentMut = text.parse().map_err(|e: toml_edit::TomlError| e.message().to_owned())?;
    if overrides.is_empty() {
        doc.remove("bone_overrides");
        return Ok(doc.to_string());
    }
    let mut table = toml_edit::Table::new();
    for (role, bone) in overrides {
        if Role::from_name(role.trim()).is_none() {
            return Err(format!("unknown role `{role}`"));
        }
        table.insert(role.trim(), toml_edit::value(bone.trim()));
    }
    doc.insert("bone_overrides", toml_edit::Item::Table(table));
    Ok(doc.to_string())
}

/// `POST /api/ik/save`.
pub async fn save(State(app): State<Arc<App>>, Json(b): Json<SaveBody>) -> ApiResult {
    let out = app
        .blocking(move |app| {
            save_edited(app, (&b.path, &b.version), ("rig_policy", "bone overrides go into a rig policy"), |text| {
                with_overrides(text, &b.overrides)
            })
        })
        .await?;
    Ok(Json(out))
}

/// The IK Targets page's save: `edit` applied to the text of `path`, which
/// must declare `kind` (`refusal` says what belongs there), written through
/// the safe writer at `version` (stale: 409); answers the new version, the
/// text and the file's diagnostics after the save.
pub(super) fn save_edited(
    app: &App,
    (path, version): (&str, &str),
    (kind, refusal): (&str, &str),
    edit: impl FnOnce(&str) -> Result<String, String>,
) -> Result<Value, ApiError> {
    let r = app.roots.writable_toml(path)?;
    let (text, _) = files::read_text(&r.abs)?;
    // Never written into another kind of file.
    files::checked_declaration(&text, Some(kind))
        .map_err(|e| ApiError::unprocessable(format!("`{path}`: {e}; {refusal}")))?;
    let new_text = edit(&text).map_err(ApiError::unprocessable)?;
    let version = app.writer.save(&r.abs, new_text.as_bytes(), &Expect::Version(version.to_owned()))?;
    let set = load(app, &[]);
    let diagnostics: Vec<Value> =
        set.diagnostics.iter().filter(|d| d.file == r.rel).map(|d| diag_json::diagnostic(d, Some(&new_text))).collect();
    Ok(json!({ "version": version, "text": new_text, "diagnostics": diagnostics }))
}

#[cfg(test)]
mod tests {
    #[test]
    fn overrides_replace_only_their_table() {
        let text =
            "# policy\nkind = \"rig_policy\"\nid = \"h\"\nfoot_plant = true\n\n[bone_overrides]\nhead = \"Head\"\n";
        let out = super::with_overrides(text, &[("left_foot".into(), "foot_l".into())]).unwrap();
        assert!(out.starts_with("# policy\nkind = \"rig_policy\"\nid = \"h\"\nfoot_plant = true\n"), "{out}");
        assert!(out.contains("[bone_overrides]\nleft_foot = \"foot_l\"\n") && !out.contains("Head"), "{out}");
        let none = super::with_overrides(text, &[]).unwrap();
        assert!(!none.contains("bone_overrides"), "{none}");
        assert!(super::with_overrides(text, &[("tail".into(), "x".into())]).is_err());
    }
}

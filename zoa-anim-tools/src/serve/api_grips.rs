//! IK Targets: the grip sockets of `equipment` definitions, on the drawn skeleton.
//!
//! - `POST /api/ik/grips {model, skin, policy, equipment}`: the item (its file, version, classes,
//!   attach role, offset and idle grips — each socket's position, rotation as a quaternion and as
//!   XYZ Euler degrees, and weight), the attach bone found on that skin (bone discovery with the
//!   rig policy's overrides, as `/api/ik/discover` runs it) with its rest transform in model
//!   space, the hand joints, and where each socket sits on the rest pose (`markers`). The page
//!   moves the markers itself while the numbers are edited, with the same formula: attach bone
//!   × offset × socket.
//! - `POST /api/ik/grips/save {path, version, grips: {main_hand, off_hand}}`: writes the idle
//!   sockets (`position`, `euler` or none, `weight` when not 1; a hand given as null is removed)
//!   into the item's `grips` table, keeping the rest of the file (comments, `aim`, `slots`),
//!   atomically and only when the file is still at `version`; a file that is not an `equipment`
//!   declaration is refused (422) and left as it is.

use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use serde::Deserialize;
use serde_json::{Value, json};
use zoa_anim_assets::gltf::load_gltf;
use zoa_anim_core::equipment::GripSocket;
use zoa_anim_core::glam::{EulerRot, Mat4, Quat, Vec3};
use zoa_anim_core::{Equipment, RigPolicy};
use zoa_anim_ik::{BoneRoles, Role, Side};

use super::api_defs::{defs_virtual, load};
use super::api_ik::{rest_world, save_edited};
use super::files;
use super::{ApiError, ApiResult, App};

/// Body of `POST /api/ik/grips`.
#[derive(Debug, Deserialize)]
pub struct GripsBody {
    model: String,
    #[serde(default)]
    skin: usize,
    #[serde(default)]
    policy: Option<String>,
    equipment: String,
}

/// Four decimals (no negative zero), for the page.
fn round(v: f32) -> f64 {
    (f64::from(v) * 1e4).round() / 1e4 + 0.0
}

fn rounded<const N: usize>(v: [f32; N]) -> Vec<f64> {
    v.iter().map(|x| round(*x)).collect()
}

/// A socket as the page edits it: the quaternion also as XYZ Euler degrees.
fn socket_json(s: Option<&GripSocket>) -> Value {
    let Some(s) = s else { return Value::Null };
    let euler = s.rotation.map(|q| {
        let (x, y, z) = Quat::from_array(q).to_euler(EulerRot::XYZ);
        rounded([x.to_degrees(), y.to_degrees(), z.to_degrees()])
    });
    json!({ "position": rounded(s.position), "rotation": s.rotation.map(rounded), "euler": euler, "weight": round(s.weight) })
}

/// Where `socket` sits in model space on the rest pose: attach × offset × socket.
fn marker(attach: &Mat4, item: &Equipment, socket: Option<&GripSocket>) -> Value {
    let Some(s) = socket else { return Value::Null };
    let offset = Mat4::from_rotation_translation(
        Quat::from_array(item.offset.rotation).normalize(),
        Vec3::from_array(item.offset.position),
    );
    let p = (*attach * offset).transform_point3(Vec3::from_array(s.position));
    json!(rounded(p.to_array()))
}

/// The rig policy `id` of the folder (defaults without one).
fn policy_of(set: &zoa_anim_assets::defs::DefinitionSet, id: Option<&str>) -> Result<RigPolicy, ApiError> {
    match id {
        Some(id) => {
            set.rig_policy(id).cloned().ok_or_else(|| ApiError::not_found(format!("no valid rig policy `{id}`")))
        }
        None => Ok(RigPolicy { id: "default".into(), ..RigPolicy::default() }),
    }
}

/// `POST /api/ik/grips`.
pub async fn grips(State(app): State<Arc<App>>, Json(b): Json<GripsBody>) -> ApiResult {
    let out = app
        .blocking(move |app| {
            let set = load(app, &[]);
            let loaded = set.equipment.iter().find(|e| e.value.id == b.equipment).ok_or_else(|| {
                ApiError::not_found(format!(
                    "no valid equipment `{}` (a file with errors is edited in Definitions)",
                    b.equipment
                ))
            })?;
            let item = &loaded.value;
            let path = defs_virtual(app, &loaded.file);
            let version = files::read_text(&app.roots.existing_file(&path)?.abs)?.1;
            let model = app.roots.existing_file(&b.model)?;
            let asset = load_gltf(&model.abs).map_err(|e| ApiError::unprocessable(e.to_string()))?;
            let skeleton = asset.skeletons.get(b.skin).ok_or_else(|| {
                ApiError::unprocessable(format!(
                    "`{}` has no skin {} (it has {})",
                    b.model,
                    b.skin,
                    asset.skeletons.len()
                ))
            })?;
            let policy = policy_of(&set, b.policy.as_deref())?;
            let (roles, _) = BoneRoles::discover_with_overrides(skeleton, &policy);
            let world = rest_world(skeleton);
            let attach = Role::from_name(&item.attach).and_then(|r| roles.get(r));
            let (main, off) =
                if item.main_hand_is_left() { (Side::Left, Side::Right) } else { (Side::Right, Side::Left) };
            let hand = |side: Side| roles.arms[side.index()].hand;
            let attach_json = attach.map(|j| {
                let (_, r, p) = world[usize::from(j)].to_scale_rotation_translation();
                json!({ "joint": j, "bone": skeleton.display_name(usize::from(j)), "position": rounded(p.to_array()),
                        "rotation": r.normalize().to_array() })
            });
            let markers = attach.map(|j| {
                let m = world[usize::from(j)];
                json!({ "main_hand": marker(&m, item, item.grips.main_hand.as_ref()),
                        "off_hand": marker(&m, item, item.grips.off_hand.as_ref()) })
            });
            Ok(json!({
                "equipment": {
                    "id": item.id, "path": path, "version": version,
                    "classes": item.classes.iter().map(|c| c.name()).collect::<Vec<_>>(),
                    "attach": item.attach,
                    "offset": { "position": rounded(item.offset.position), "rotation": item.offset.rotation },
                    "grips": { "main_hand": socket_json(item.grips.main_hand.as_ref()),
                               "off_hand": socket_json(item.grips.off_hand.as_ref()) },
                    "aim": item.aim.is_some(),
                    "slots": item.slots.len(),
                },
                "attach": attach_json,
                "hands": { "main_hand": hand(main), "off_hand": hand(off) },
                "markers": markers,
            }))
        })
        .await?;
    Ok(Json(out))
}

/// One socket of a save.
#[derive(Debug, Clone, Deserialize)]
pub struct SocketBody {
    position: [f64; 3],
    #[serde(default)]
    euler: Option<[f64; 3]>,
    #[serde(default = "one")]
    weight: f64,
}

fn one() -> f64 {
    1.0
}

/// The idle sockets of a save (a hand left null has none).
#[derive(Debug, Clone, Default, Deserialize)]
pub struct GripsOut {
    #[serde(default)]
    main_hand: Option<SocketBody>,
    #[serde(default)]
    off_hand: Option<SocketBody>,
}

/// Body of `POST /api/ik/grips/save`.
#[derive(Debug, Deserialize)]
pub struct SaveBody {
    path: String,
    version: String,
    grips: GripsOut,
}

fn numbers(v: &[f64]) -> toml_edit::Value {
    toml_edit::Value::Array(v.iter().copied().collect())
}

/// Writes one hand's socket into `grips` (a table or an inline table),
/// editing an existing socket in place so its comments stay.
fn set_socket(
    grips: &mut dyn toml_edit::TableLike,
    inline: bool,
    hand: &str,
    socket: Option<&SocketBody>,
) -> Result<(), String> {
    let Some(s) = socket else {
        grips.remove(hand);
        return Ok(());
    };
    if s.position.iter().chain(s.euler.iter().flatten()).any(|x| !x.is_finite()) || !(0.0..=1.0).contains(&s.weight) {
        return Err(format!("{hand}: numbers must be finite and the weight in 0..=1"));
    }
    if grips.get(hand).and_then(toml_edit::Item::as_table_like).is_none() {
        let fresh = if inline {
            toml_edit::Item::Value(toml_edit::Value::InlineTable(toml_edit::InlineTable::new()))
        } else {
            toml_edit::Item::Table(toml_edit::Table::new())
        };
        grips.insert(hand, fresh);
    }
    let t = grips.get_mut(hand).and_then(toml_edit::Item::as_table_like_mut).ok_or("not a table")?;
    put(t, "position", toml_edit::Item::Value(numbers(&s.position)));
    t.remove("rotation");
    match &s.euler {
        Some(e) => put(t, "euler", toml_edit::Item::Value(numbers(e))),
        None => drop(t.remove("euler")),
    }
    if s.weight == 1.0 {
        t.remove("weight");
    } else {
        put(t, "weight", toml_edit::value(s.weight));
    }
    Ok(())
}

/// Sets `key` in `t`, keeping the key (and the comment lines before it)
/// when it is there already.
fn put(t: &mut dyn toml_edit::TableLike, key: &str, item: toml_edit::Item) {
    match t.get_mut(key) {
        Some(old) => *old = item,
        None => {
            t.insert(key, item);
        }
    }
}

/// `text` with its idle grips replaced by `grips` (the rest of the file kept).
pub(super) fn with_grips(text: &str, grips: &GripsOut) -> Result<String, String> {
    let mut doc: toml_edit::DocumentMut = text.parse().map_err(|e: toml_edit::TomlError| e.message().to_owned())?;
    if doc.get("grips").and_then(toml_edit::Item::as_table_like).is_none() {
        doc.insert("grips", toml_edit::Item::Table(toml_edit::Table::new()));
    }
    let item = doc.get_mut("grips").ok_or("no grips")?;
    let inline = item.is_inline_table();
    let table = item.as_table_like_mut().ok_or("`grips` is not a table")?;
    set_socket(table, inline, "main_hand", grips.main_hand.as_ref())?;
    set_socket(table, inline, "off_hand", grips.off_hand.as_ref())?;
    Ok(doc.to_string())
}

/// `POST /api/ik/grips/save`.
pub async fn save(State(app): State<Arc<App>>, Json(b): Json<SaveBody>) -> ApiResult {
    let out = app
        .blocking(move |app| {
            let refusal = "grip sockets go into an equipment definition";
            save_edited(app, (&b.path, &b.version), ("equipment", refusal), |text| with_grips(text, &b.grips))
        })
        .await?;
    Ok(Json(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn socket(position: [f64; 3], euler: Option<[f64; 3]>, weight: f64) -> Option<SocketBody> {
        Some(SocketBody { position, euler, weight })
    }

    #[test]
    fn grips_are_replaced_in_place_and_the_rest_is_kept() {
        let text = "# rifle\nkind = \"equipment\"\nid = \"rifle\"\nclasses = [\"rifle\"]\n\n[grips.off_hand]\n\
                    # the handguard\nposition = [1.0, 2.0, 3.0]\nrotation = [0.0, 0.0, 0.0, 1.0]\n\n[[slots]]\n\
                    slot = \"reload_magazine\"\noff_hand = { weight = 0.0 }\n";
        let out = with_grips(
            text,
            &GripsOut { main_hand: None, off_hand: socket([-0.1, 0.0, 0.25], Some([0.0, 90.0, 0.0]), 0.5) },
        )
        .unwrap();
        assert!(out.starts_with("# rifle\nkind = \"equipment\"\nid = \"rifle\"\n"), "{out}");
        assert!(out.contains("[grips.off_hand]\n# the handguard\nposition = [-0.1, 0.0, 0.25]\n"), "{out}");
        assert!(out.contains("euler = [0.0, 90.0, 0.0]") && out.contains("weight = 0.5"), "{out}");
        assert!(!out.contains("rotation"), "the quaternion gives way to the Euler angles: {out}");
        assert!(out.contains("[[slots]]\nslot = \"reload_magazine\"\noff_hand = { weight = 0.0 }"), "{out}");
        // A main hand joins; the off hand at weight 1 with no rotation drops both keys.
        let out = with_grips(
            &out,
            &GripsOut { main_hand: socket([0.0, 0.0, 0.0], None, 1.0), off_hand: socket([0.0, 0.0, 0.3], None, 1.0) },
        )
        .unwrap();
        assert!(out.contains("[grips.main_hand]\nposition = [0.0, 0.0, 0.0]\n"), "{out}");
        assert!(!out.contains("weight = 0.5") && !out.contains("euler"), "{out}");
        // An inline `grips` stays inline; a hand given as null is removed.
        let inline = "kind = \"equipment\"\nid = \"p\"\nclasses = [\"pistol\"]\ngrips = { off_hand = { position = [0, 0, 0] } }\n";
        let out =
            with_grips(inline, &GripsOut { main_hand: socket([1.0, 0.0, 0.0], None, 1.0), off_hand: None }).unwrap();
        assert!(out.contains("grips = { main_hand = { position = [1.0, 0.0, 0.0] } }"), "{out}");
        let bad = with_grips(inline, &GripsOut { main_hand: socket([f64::NAN, 0.0, 0.0], None, 1.0), off_hand: None });
        assert!(bad.is_err());
        assert!(
            with_grips(inline, &GripsOut { off_hand: socket([0.0; 3], None, 2.0), ..GripsOut::default() }).is_err()
        );
    }
}

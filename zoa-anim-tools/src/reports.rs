//! JSON documents a command prints and a Workbench endpoint serves alike,
//! built in one place so the two never drift apart.

use serde_json::{Map, Value, json};
use zoa_anim_core::Skeleton;
use zoa_anim_ik::{BoneRoles, PolicyKind, Role, Side, TipSource};

fn bone(s: &Skeleton, j: Option<u16>) -> Value {
    j.map_or(Value::Null, |j| Value::String(s.display_name(j as usize).into_owned()))
}

/// `zoa-anim ik --discover --format json` (a contract; see `cmd::ik`):
/// roles, policies, leg ends and rejected candidates, keys in role order.
/// The IK Targets panel of the Workbench shows the same document.
pub fn ik_roles(s: &Skeleton, roles: &BoneRoles) -> Value {
    let mut r = Map::new();
    for role in Role::ALL {
        let v = if role == Role::Spine {
            Value::Array(roles.spine.iter().map(|&j| bone(s, Some(j))).collect())
        } else {
            bone(s, roles.get(role))
        };
        r.insert(role.name().to_owned(), v);
    }
    let mut p = Map::new();
    for kind in PolicyKind::ALL {
        p.insert(kind.name().to_owned(), Value::Bool(roles.is_available(kind)));
    }
    let mut ends = Map::new();
    for side in Side::BOTH {
        let leg = roles.legs[side.index()];
        let end = match (leg.foot, leg.tip, leg.upper, leg.lower) {
            (Some(foot), _, Some(_), Some(_)) => {
                json!({ "bone": bone(s, Some(foot)), "at": "foot", "tip": null, "source": "joint" })
            }
            (None, Some(tip), _, _) => json!({
                "bone": bone(s, Some(tip.joint)),
                "at": "tip",
                "tip": [round(tip.offset.x), round(tip.offset.y), round(tip.offset.z)],
                "source": match tip.source { TipSource::EndJoint(_) => "end_joint", _ => "estimated" },
            }),
            _ => Value::Null,
        };
        ends.insert(side.name().to_owned(), end);
    }
    let rejected: Vec<Value> = roles
        .rejected
        .iter()
        .map(|x| json!({ "bone": bone(s, Some(x.joint)), "role": x.role.map(Role::name), "reason": x.reason }))
        .collect();
    json!({ "roles": r, "policies": p, "leg_ends": ends, "rejected": rejected })
}

/// Six decimals (and no negative zero): stable in snapshots and scripts.
fn round(v: f32) -> f64 {
    (f64::from(v) * 1e6).round() / 1e6 + 0.0
}

//! `rig_policy`: which IK and procedural behaviours a rig runs, and their settings.

use toml::de::DeValue;
use zoa_anim_core::RigPolicy;
use zoa_anim_core::rig::BONE_ROLES;

use crate::defs::codes::Code;
use crate::defs::diag::FileCtx;
use crate::defs::read::{Obj, Rule, did_you_mean, name_of};
use crate::defs::spec::{Field, KindSpec, Table, Ty};
use crate::defs::{Kind, Shared};

static BONE_NAME: Ty = Ty::Text;

/// The description of `rig_policy`.
pub(crate) static SPEC: KindSpec = KindSpec {
    kind: Kind::RigPolicy,
    produces: "[`zoa_anim_core::RigPolicy`]",
    intro: "",
    table: Table::of(&[
        Field::opt("foot_plant", Ty::Bool, "`true`", "plant the feet on the ground"),
        Field::opt("look_at", Ty::Bool, "`true`", "turn the head towards a target"),
        Field::opt("hand_on_weapon", Ty::Bool, "`true`", "keep the off hand on the weapon's grip"),
        Field::opt("climb_hand", Ty::Bool, "`false`", "reach for ledges"),
        Field::opt("allow_procedural_fallback", Ty::Bool, "`true`", ""),
        Field::opt(
            "foot_plant_blend_in_speed",
            Ty::Num(Rule::Unit),
            "`0.5`",
            "normalised speed below which feet plant",
        ),
        Field::opt("look_at_fov_degrees", Ty::Num(Rule::Between(0.0, 180.0)), "`70`", "half-angle").unit("degrees"),
        Field::opt("breath_frequency", Ty::Num(Rule::NonNegative), "`0.25`", "").unit("Hz"),
        Field::opt("breath_amplitude", Ty::Num(Rule::NonNegative), "`0.02`", "").unit("rad"),
        Field::opt("head_bob_amplitude", Ty::Num(Rule::NonNegative), "`0.02`", "").unit("m"),
        Field::opt("bone_overrides", Ty::Map(&BONE_NAME), "`{}`", "role → bone name, replacing discovery"),
    ]),
    notes: "",
};

pub(crate) fn read(ctx: &mut FileCtx<'_>, root: &mut Obj<'_, '_>, id: &str, _sh: &mut Shared) -> Option<RigPolicy> {
    let mut p = RigPolicy { id: id.to_owned(), ..RigPolicy::default() };
    macro_rules! flag {
        ($name:ident) => {
            if let Some(v) = root.bool(ctx, stringify!($name)) {
                p.$name = v;
            }
        };
    }
    macro_rules! number {
        ($name:ident) => {
            if let Some(v) = root.num(ctx, stringify!($name)) {
                p.$name = v;
            }
        };
    }
    flag!(foot_plant);
    flag!(look_at);
    flag!(hand_on_weapon);
    flag!(climb_hand);
    flag!(allow_procedural_fallback);
    number!(foot_plant_blend_in_speed);
    number!(look_at_fov_degrees);
    number!(breath_frequency);
    number!(breath_amplitude);
    number!(head_bob_amplitude);
    if let Some(v) = root.raw("bone_overrides") {
        let field = root.field("bone_overrides");
        match v.get_ref() {
            DeValue::Table(t) => {
                for (role, bone) in t.iter() {
                    let f = format!("{field}.{}", role.get_ref());
                    let role_name: &str = role.get_ref();
                    if !BONE_ROLES.contains(&role_name) {
                        // The IK set-up would refuse it: say so here, with the valid names.
                        ctx.report(
                            Code::InvalidValue,
                            role.span(),
                            &f,
                            format!(
                                "unknown role `{role_name}`{}; expected one of: {}",
                                did_you_mean(role_name, BONE_ROLES),
                                BONE_ROLES.join(", ")
                            ),
                        );
                        continue;
                    }
                    if let Some(b) = name_of(ctx, bone, &f) {
                        p.bone_overrides.push(((*role.get_ref()).to_string(), b.to_owned()));
                    }
                }
            }
            _ => ctx.report(Code::WrongType, v.span(), &field, "expected a table of role = \"bone name\""),
        }
    }
    Some(p)
}

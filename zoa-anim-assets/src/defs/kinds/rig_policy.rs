//! `rig_policy`: which IK and procedural behaviours a rig runs, and their settings.

use toml::de::DeValue;
use zoa_anim_core::budget::{IK_CHAIN_ITERATIONS, IK_CHAINS};
use zoa_anim_core::rig::BONE_ROLES;
use zoa_anim_core::{RigChain, RigPolicy};

use crate::defs::codes::Code;
use crate::defs::diag::FileCtx;
use crate::defs::kinds::Names;
use crate::defs::read::{Obj, Rule, did_you_mean, name_of};
use crate::defs::spec::{Field, KindSpec, Table, Ty};
use crate::defs::{Kind, Shared, Target};

static BONE_NAME: Ty = Ty::Text;

/// A `[[chains]]` row: an IK chain from `root` down to `tip`.
static CHAIN: Table = Table::of(&[
    Field::req("name", Ty::Text, "the chain's name", "unique in the policy"),
    Field::req(
        "root",
        Ty::Text,
        "the chain's first bone",
        "bone name; it turns, its parent does not; a model of the folder must have it (E015)",
    ),
    Field::req("tip", Ty::Text, "the chain's last bone", "bone name below `root`; it goes to the target (E015)"),
    Field::opt("iterations", Ty::Int(1, IK_CHAIN_ITERATIONS.max as i64), "`10`", "solver sweeps per frame at most"),
    Field::opt("tolerance", Ty::Num(Rule::NonNegative), "`0.001`", "the solve stops once the tip is this close")
        .unit("m"),
    Field::opt("weight", Ty::Num(Rule::Unit), "`1`", "blend from the animated pose (times the target's weight)"),
    Field::opt(
        "swing_limit_degrees",
        Ty::Num(Rule::Between(0.0, 180.0)),
        "`180` (free)",
        "largest swing of each joint away from its animated direction",
    )
    .unit("degrees"),
    Field::opt(
        "twist_limit_degrees",
        Ty::Num(Rule::Between(0.0, 180.0)),
        "`180` (free)",
        "largest twist about the bone, either way; the solve only swings joints, so it bounds the tip turning to the target's rotation",
    )
    .unit("degrees"),
]);

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
        Field::opt(
            "chains",
            Ty::RowsAtMost(&CHAIN, IK_CHAINS.max as usize),
            "`[]`",
            "IK chains (tails, spines, tentacles) the game gives a target each frame, by position in this list",
        ),
    ]),
    notes: "",
};

pub(crate) fn read(ctx: &mut FileCtx<'_>, root: &mut Obj<'_, '_>, id: &str, sh: &mut Shared) -> Option<RigPolicy> {
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
    p.chains = read_chains(ctx, root, sh);
    Some(p)
}

/// The `[[chains]]` rows. Their bones are checked across files (a rig
/// policy names no model: some skinned model of the folder must have them).
fn read_chains(ctx: &mut FileCtx<'_>, root: &mut Obj<'_, '_>, sh: &mut Shared) -> Vec<RigChain> {
    let mut names = Names::new("chain");
    let mut chains = Vec::new();
    for mut row in root.tables(ctx, "chains") {
        let name = row.str(ctx, "name");
        let bones = [row.str(ctx, "root"), row.str(ctx, "tip")];
        for (b, key) in bones.iter().zip(["root", "tip"]) {
            if let Some(b) = b {
                sh.refer(Target::RigBone, *b.get_ref(), ctx.at(b.span(), &row.field(key)));
            }
        }
        let mut chain = RigChain::new("", "", "");
        if let Some(n) = row.int(ctx, "iterations") {
            chain.iterations = n as u32;
        }
        for (key, slot) in [
            ("tolerance", &mut chain.tolerance),
            ("weight", &mut chain.weight),
            ("swing_limit_degrees", &mut chain.swing_limit_degrees),
            ("twist_limit_degrees", &mut chain.twist_limit_degrees),
        ] {
            if let Some(v) = row.num(ctx, key) {
                *slot = v;
            }
        }
        row.finish(ctx);
        let (Some(name), [Some(r), Some(t)]) = (name, bones) else { continue };
        if names.insert(ctx, name.get_ref(), name.span(), &row.field("name")) {
            (chain.name, chain.root, chain.tip) =
                ((*name.get_ref()).into(), (*r.get_ref()).into(), (*t.get_ref()).into());
            chains.push(chain);
        }
    }
    chains
}

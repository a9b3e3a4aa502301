//! `binding_profile`: gameplay meanings (binding ids, slots) → the rig's
//! parameters and clips.

use zoa_anim_core::{
    AnimationBindingId, AnimationParameterType, AnimationSlotId, BindingProfile, BindingProfileBuilder,
    DefaultBindings, DefaultSlots,
};

use super::Names;
use crate::defs::codes::Code;
use crate::defs::diag::FileCtx;
use crate::defs::read::{Obj, Rule};
use crate::defs::spec::{Enum, Field, KindSpec, Table, Ty};
use crate::defs::{BindingRowAt, Kind, Shared, Target};

/// Parameter types, as `AnimationParameterType::from_name` reads them.
pub(crate) static PARAMETER_TYPE: Enum =
    Enum { noun: "parameter type", values: &["trigger", "bool", "float", "int"], aliases: &[] };

static BINDING: Table = Table::of(&[
    Field::req(
        "id",
        Ty::Id,
        "a binding id such as `fire` or `is_aiming`",
        "binding id (gameplay meaning, e.g. `fire`); unique (E017); not shipped → I001; shipped id with another type → E018",
    ),
    Field::req("parameter", Ty::Text, "the rig's parameter name", "the rig's parameter name"),
    Field::req("type", Ty::Enum(&PARAMETER_TYPE), "`trigger`, `bool`, `float` or `int`", "parameter type"),
    Field::opt("layer", Ty::Int(-1, i32::MAX as i64), "`-1`", "animator layer; `-1` is the base layer"),
]);

static SLOT: Table = Table::of(&[
    Field::req("id", Ty::Id, "a slot id such as `reload_magazine`", "slot id; unique; not shipped → I001"),
    Field::req("clip", Ty::Text, "the clip reference this slot plays", "clip reference"),
    Field::opt("speed", Ty::Num(Rule::Speed), "`1`", "speed multiplier"),
    Field::opt("additive", Ty::Bool, "`false`", "play additively"),
]);

/// The description of `binding_profile`.
pub(crate) static SPEC: KindSpec = KindSpec {
    kind: Kind::BindingProfile,
    produces: "[`zoa_anim_core::BindingProfile`]",
    intro: "",
    table: Table::of(&[
        Field::opt("display_name", Ty::Text, "the id", "human-readable name"),
        Field::opt("bindings", Ty::Rows(&BINDING), "`[]`", "semantic id → rig parameter"),
        Field::opt("slots", Ty::Rows(&SLOT), "`[]`", "named purposes → clips"),
    ]),
    notes: "",
};

pub(crate) fn read(ctx: &mut FileCtx<'_>, root: &mut Obj<'_, '_>, id: &str, sh: &mut Shared) -> Option<BindingProfile> {
    let display = root.str(ctx, "display_name").map(|s| (*s.get_ref()).to_owned()).unwrap_or_else(|| id.to_owned());
    let builder = BindingProfileBuilder::new(id, display);
    let builder = read_bindings(ctx, root, builder, id, sh);
    let builder = read_slots(ctx, root, builder, sh);
    // Everything the builder checks was checked above with positions; a
    // builder error here means a rule slipped through, so report it rather
    // than drop it silently.
    match builder.build() {
        Ok(p) => Some(p),
        Err(e) => {
            ctx.report(Code::InvalidValue, root.span.start..root.span.start, "", e.to_string());
            None
        }
    }
}

/// The `bindings` rows, added to `builder`; each row's locations go to
/// `sh.binding_rows` (first file wins) for the checks against graphs.
fn read_bindings(
    ctx: &mut FileCtx<'_>,
    root: &mut Obj<'_, '_>,
    mut builder: BindingProfileBuilder,
    id: &str,
    sh: &mut Shared,
) -> BindingProfileBuilder {
    let mut names = Names::new("binding");
    let mut rows = Vec::new();
    for mut b in root.tables(ctx, "bindings") {
        let bid = b.str(ctx, "id");
        let param = b.str(ctx, "parameter");
        let ty = b.choice(ctx, "type");
        let layer_at = b.raw("layer").map(|v| ctx.at(v.span(), &b.field("layer")));
        let layer = b.int(ctx, "layer").unwrap_or(-1) as i32;
        b.finish(ctx);
        let ty = ty.and_then(|t| AnimationParameterType::from_name(t.get_ref()).map(|ty| (ty, t.span())));
        let Some(bid) = bid else { continue };
        let field = b.field("id");
        let parsed = match AnimationBindingId::new(bid.get_ref()) {
            Ok(p) => p,
            Err(e) => {
                ctx.report(Code::InvalidValue, bid.span(), &field, e.to_string());
                continue;
            }
        };
        if !names.insert(ctx, bid.get_ref(), bid.span(), &field) {
            continue;
        }
        match DefaultBindings::ALL.iter().find(|(d, _)| *d == parsed) {
            None => ctx.report(
                Code::CustomId,
                bid.span(),
                &field,
                format!(
                    "`{}` is not a shipped binding id; profiles on custom ids do not transfer to other rigs",
                    bid.get_ref()
                ),
            ),
            Some((_, shipped)) => {
                if let Some((ty, span)) = &ty
                    && ty != shipped
                {
                    ctx.report(
                        Code::TypeMismatch,
                        span.clone(),
                        &b.field("type"),
                        format!("the shipped binding `{}` is a {shipped}, not a {ty}", bid.get_ref()),
                    );
                }
            }
        }
        if let (Some(param), Some((ty, ty_span))) = (param, ty) {
            rows.push(BindingRowAt {
                id: (*bid.get_ref()).to_owned(),
                parameter: ctx.at(param.span(), &b.field("parameter")),
                ty: ctx.at(ty_span, &b.field("type")),
                layer: layer_at,
            });
            builder = builder.add_binding(parsed, *param.get_ref(), ty, layer);
        }
    }
    sh.binding_rows.entry(id.to_owned()).or_insert(rows);
    builder
}

/// The `slots` rows, added to `builder`.
fn read_slots(
    ctx: &mut FileCtx<'_>,
    root: &mut Obj<'_, '_>,
    mut builder: BindingProfileBuilder,
    sh: &mut Shared,
) -> BindingProfileBuilder {
    let mut names = Names::new("slot");
    for mut s in root.tables(ctx, "slots") {
        let sid = s.str(ctx, "id");
        let clip = s.str(ctx, "clip");
        let speed = s.num(ctx, "speed").unwrap_or(1.0);
        let additive = s.bool(ctx, "additive").unwrap_or(false);
        s.finish(ctx);
        let Some(sid) = sid else { continue };
        let field = s.field("id");
        let parsed = match AnimationSlotId::new(sid.get_ref()) {
            Ok(p) => p,
            Err(e) => {
                ctx.report(Code::InvalidValue, sid.span(), &field, e.to_string());
                continue;
            }
        };
        if !names.insert(ctx, sid.get_ref(), sid.span(), &field) {
            continue;
        }
        if !DefaultSlots::ALL.contains(&parsed) {
            ctx.report(
                Code::CustomId,
                sid.span(),
                &field,
                format!(
                    "`{}` is not a shipped slot id; profiles on custom ids do not transfer to other rigs",
                    sid.get_ref()
                ),
            );
        }
        if let Some(clip) = clip {
            sh.refer(Target::Clip { model: None }, *clip.get_ref(), ctx.at(clip.span(), &s.field("clip")));
            builder = builder.add_slot_with(parsed, *clip.get_ref(), speed, additive);
        }
    }
    builder
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameter_types_are_the_cores() {
        for v in PARAMETER_TYPE.values {
            assert!(AnimationParameterType::from_name(v).is_some(), "{v}");
        }
    }
}

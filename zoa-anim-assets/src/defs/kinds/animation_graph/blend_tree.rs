//! Blend trees: a state's `blend_tree` table and its children.

use std::path::Path;

use zoa_anim_core::graph::{BlendChild, BlendTree, BlendTreeKind, Weighting2D};

use super::params::Params;
use crate::defs::codes::Code;
use crate::defs::diag::FileCtx;
use crate::defs::read::{Obj, Rule, array_of, index, obj_of};
use crate::defs::spec::{Enum, Field, Table, Ty};
use crate::defs::{Shared, Target};

/// Blend tree flavours (`1d` and `2d` are accepted too).
pub(crate) static KIND: Enum =
    Enum { noun: "blend tree type", values: &["1D", "2D", "direct"], aliases: &[("1d", "1D"), ("2d", "2D")] };

/// How a 2D tree weights its children (`freeform_cartesian` is Unity's name for gradient bands).
pub(crate) static WEIGHTING: Enum = Enum {
    noun: "2D blend weighting",
    values: &["inverse_distance", "gradient_band"],
    aliases: &[("freeform_cartesian", "gradient_band")],
};

static CHILD: Table = Table::of(&[
    Field::req("clip", Ty::Text, "the clip this child plays", "clip reference"),
    Field::opt("threshold", Ty::Num(Rule::Any), "required for 1D and 2D", "position on the primary axis"),
    Field::opt("threshold_y", Ty::Num(Rule::Any), "required for 2D", "position on the secondary axis"),
    Field::opt("weight", Ty::Num(Rule::NonNegative), "required for direct", "a direct tree's weight"),
]);

/// A state's `blend_tree` table.
pub(crate) static TABLE: Table = Table::of(&[
    Field::req("type", Ty::Enum(&KIND), "`1D`, `2D` or `direct`", ""),
    Field::opt("parameter", Ty::Text, "required (optional for direct)", "a float or int parameter (E018)"),
    Field::opt("parameter_y", Ty::Text, "2D only, required there", "a float or int parameter"),
    Field::opt(
        "weighting",
        Ty::Enum(&WEIGHTING),
        "`inverse_distance`",
        "2D only: `inverse_distance` (wᵢ ∝ 1/dᵢ^power; far children keep some weight) or `gradient_band` \
         (Johansen's gradient bands, Unity's Freeform Cartesian, alias `freeform_cartesian`: a child's \
         influence ends at its neighbours)",
    ),
    Field::opt(
        "power",
        Ty::Num(Rule::Positive),
        "`1`",
        "2D `inverse_distance` only: the exponent of 1/d (larger favours the nearest child more)",
    ),
    Field::req(
        "children",
        Ty::Rows(&CHILD),
        "the clips this tree blends",
        "1D ≥ 2 children; 2D children need both thresholds; direct children need `weight` (E016)",
    ),
]);

pub(crate) fn read(
    ctx: &mut FileCtx<'_>,
    t: &mut Obj<'_, '_>,
    params: &Params,
    model: &Path,
    sh: &mut Shared,
) -> Option<BlendTree> {
    let ty = t.choice(ctx, "type");
    let p = t.str(ctx, "parameter");
    let py = t.str(ctx, "parameter_y");
    let weighting = t.choice(ctx, "weighting");
    let has_power = t.has("power");
    let power_span = t.raw("power").map_or_else(|| t.span.clone(), |v| v.span());
    let power = t.num(ctx, "power");
    let children_v = t.raw("children");
    let children_field = t.field("children");
    t.finish(ctx);
    let kind = match ty.as_ref().map(|v| *v.get_ref()) {
        Some("1D") => Some(BlendTreeKind::OneD),
        Some("2D") => Some(BlendTreeKind::TwoD),
        Some("direct") => Some(BlendTreeKind::Direct),
        _ => None,
    };
    let mut children = Vec::new();
    // 2D positions seen so far (−0 folded into 0): the runtime refuses two children at one point.
    let mut positions: std::collections::HashMap<(u32, u32), usize> = std::collections::HashMap::new();
    let mut ok = true;
    match children_v {
        // Left out: reported by `finish` (the field is required).
        None => ok = false,
        Some(v) => {
            for (i, item) in array_of(ctx, v, &children_field).unwrap_or_default().iter().enumerate() {
                let f = index(&children_field, i);
                let Some(mut c) = obj_of(ctx, item, &f, &CHILD) else {
                    ok = false;
                    continue;
                };
                let clip = c.str(ctx, "clip");
                let has_t = c.has("threshold");
                let threshold = c.num(ctx, "threshold");
                let has_ty = c.has("threshold_y");
                let threshold_y = c.num(ctx, "threshold_y");
                let has_w = c.has("weight");
                let weight = c.num(ctx, "weight");
                c.finish(ctx);
                match kind {
                    Some(BlendTreeKind::OneD) | Some(BlendTreeKind::TwoD) if !has_t => {
                        c.missing(ctx, "threshold", "its position on the blend axis");
                        ok = false;
                    }
                    _ => {}
                }
                if kind == Some(BlendTreeKind::TwoD) && !has_ty {
                    ctx.report(
                        Code::BlendTreeShape,
                        c.span.clone(),
                        &c.field("threshold_y"),
                        "a 2D blend tree child needs both `threshold` and `threshold_y`",
                    );
                    ok = false;
                }
                if kind == Some(BlendTreeKind::Direct) && !has_w {
                    ctx.report(
                        Code::BlendTreeShape,
                        c.span.clone(),
                        &c.field("weight"),
                        "a direct blend tree child needs an explicit `weight` (>= 0)",
                    );
                    ok = false;
                }
                if kind == Some(BlendTreeKind::TwoD)
                    && let (Some(x), Some(y)) = (threshold, threshold_y)
                    && let Some(first) = positions.insert(((x + 0.0).to_bits(), (y + 0.0).to_bits()), i)
                {
                    ctx.report(
                        Code::BlendTreeShape,
                        c.span.clone(),
                        &f,
                        format!(
                            "children {first} and {i} share the position ({x}, {y}); a 2D blend tree needs distinct positions"
                        ),
                    );
                    ok = false;
                }
                let Some(clip) = clip else {
                    ok = false;
                    continue;
                };
                sh.refer(
                    Target::Clip { model: Some(model.to_path_buf()) },
                    *clip.get_ref(),
                    ctx.at(clip.span(), &c.field("clip")),
                );
                children.push(BlendChild {
                    clip: (*clip.get_ref()).to_owned(),
                    threshold: threshold.unwrap_or(0.0),
                    threshold_y,
                    weight,
                });
            }
            let min = if kind == Some(BlendTreeKind::OneD) { 2 } else { 1 };
            if ok && children.len() < min && kind.is_some() {
                ctx.report(
                    Code::BlendTreeShape,
                    v.span(),
                    &children_field,
                    format!(
                        "a {} blend tree needs at least {min} children, found {}",
                        kind.map_or("", |k| k.name()),
                        children.len()
                    ),
                );
                ok = false;
            }
        }
    }
    let kind = kind?;
    let parameter = match (&p, kind) {
        (Some(v), _) if !(kind == BlendTreeKind::Direct && v.get_ref().is_empty()) => {
            params.number(ctx, v, &t.field("parameter"))
        }
        (None, BlendTreeKind::Direct) => None,
        _ => {
            t.missing(ctx, "parameter", "the number parameter driving the blend");
            return None;
        }
    };
    let parameter_y = match (&py, kind) {
        (Some(v), BlendTreeKind::TwoD) => params.number(ctx, v, &t.field("parameter_y")),
        (None, BlendTreeKind::TwoD) => {
            ctx.report(
                Code::BlendTreeShape,
                t.span.clone(),
                &t.field("parameter_y"),
                "a 2D blend tree needs `parameter_y` for its second axis",
            );
            return None;
        }
        (Some(v), _) => {
            ctx.report(
                Code::ConflictingFields,
                v.span(),
                &t.field("parameter_y"),
                format!("`parameter_y` belongs to 2D trees, not {}", kind.name()),
            );
            return None;
        }
        (None, _) => None,
    };
    // `weighting` and `power` belong to 2D trees; `power` to inverse distance only.
    let mut weighting_ok = true;
    if let Some(w) = &weighting
        && kind != BlendTreeKind::TwoD
    {
        ctx.report(
            Code::ConflictingFields,
            w.span(),
            &t.field("weighting"),
            format!("`weighting` belongs to 2D trees, not {}", kind.name()),
        );
        weighting_ok = false;
    }
    if has_power && kind != BlendTreeKind::TwoD {
        ctx.report(
            Code::ConflictingFields,
            power_span.clone(),
            &t.field("power"),
            format!("`power` belongs to 2D inverse-distance trees, not {}", kind.name()),
        );
        weighting_ok = false;
    } else if has_power && weighting.as_ref().is_some_and(|w| *w.get_ref() == "gradient_band") {
        ctx.report(
            Code::ConflictingFields,
            power_span,
            &t.field("power"),
            "`power` belongs to `inverse_distance` weighting; gradient bands have no power",
        );
        weighting_ok = false;
    }
    if has_power && power.is_none() {
        // Reported by the reader (not a number > 0).
        weighting_ok = false;
    }
    if !ok || !weighting_ok {
        return None;
    }
    let weighting = match weighting.as_ref().map(|w| *w.get_ref()) {
        Some("gradient_band") => Weighting2D::GradientBand,
        _ => Weighting2D::InverseDistance { power: power.unwrap_or(1.0) },
    };
    if kind == BlendTreeKind::OneD {
        children.sort_by(|a, b| a.threshold.total_cmp(&b.threshold));
    }
    Some(BlendTree { kind, parameter, parameter_y, weighting, children })
}

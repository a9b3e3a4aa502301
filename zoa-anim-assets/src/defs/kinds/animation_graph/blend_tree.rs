//! Blend trees: a state's `blend_tree` table and its children.

use std::collections::HashMap;
use std::ops::Range;
use std::path::Path;

use toml::Spanned;
use zoa_anim_core::budget::{BLEND_TREE_CHILDREN, BLEND_TREE_DEPTH};
use zoa_anim_core::graph::{BlendChild, BlendTree, BlendTreeKind, Motion, ParameterIndex, Weighting2D};

use super::params::Params;
use crate::defs::codes::Code;
use crate::defs::diag::FileCtx;
use crate::defs::read::{Obj, Rule, Val, array_of, index, obj_of};
use crate::defs::spec::{Constraint, Enum, Field, Table, Ty};
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

static CHILD: Table = Table {
    fields: &[
        Field::opt("clip", Ty::Text, "one of `clip` / `blend_tree`", "clip reference"),
        Field::opt(
            "blend_tree",
            Ty::Nested(&TABLE, &BLEND_TREE_DEPTH),
            "one of `clip` / `blend_tree`",
            "a nested blend tree (its own type, parameters and children), weighted as this child; \
             every clip's weight is the product of the weights on its path",
        ),
        Field::opt("threshold", Ty::Num(Rule::Any), "required for 1D and 2D", "position on the primary axis"),
        Field::opt("threshold_y", Ty::Num(Rule::Any), "required for 2D", "position on the secondary axis"),
        Field::opt("weight", Ty::Num(Rule::NonNegative), "required for direct", "a direct tree's weight"),
    ],
    constraints: &[Constraint::OneOf(&[&["clip"], &["blend_tree"]])],
};

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
        "the clips (or nested trees) this tree blends",
        "1D ≥ 2 children; 2D children need both thresholds; direct children need `weight` (E016)",
    ),
]);

/// The `clip` or `blend_tree` (exactly one of them) of a state (`depth` 0)
/// or of a child of a tree nested `depth` trees deep.
pub(crate) fn read_motion(
    ctx: &mut FileCtx<'_>,
    s: &mut Obj<'_, '_>,
    params: &Params,
    model: &Path,
    sh: &mut Shared,
    depth: u64,
) -> Option<Motion> {
    let clip = s.str(ctx, "clip");
    let tree_v = s.raw("blend_tree");
    match (clip, tree_v) {
        (Some(_), Some(t)) => {
            ctx.report(
                Code::ConflictingFields,
                t.span(),
                &s.field("blend_tree"),
                if depth == 0 {
                    "a state plays either `clip` or `blend_tree`, not both"
                } else {
                    "a blend-tree child plays either `clip` or `blend_tree`, not both"
                },
            );
            None
        }
        (None, None) => {
            let what = if depth == 0 { "a state needs" } else { "a blend-tree child needs" };
            s.missing(ctx, "clip", &format!("{what} `clip` or `blend_tree`"));
            None
        }
        (Some(c), None) => {
            sh.refer(
                Target::Clip { model: Some(model.to_path_buf()) },
                *c.get_ref(),
                ctx.at(c.span(), &s.field("clip")),
            );
            Some(Motion::Clip((*c.get_ref()).to_owned()))
        }
        (None, Some(t)) => {
            let field = s.field("blend_tree");
            if let Err(e) = BLEND_TREE_DEPTH.check("this blend tree", depth + 1) {
                // The runtime's set-up refuses it too (one limit for both).
                ctx.report(Code::OutOfRange, t.span(), &field, e.to_string());
                return None;
            }
            let tree =
                obj_of(ctx, t, &field, &TABLE).and_then(|mut o| read(ctx, &mut o, params, model, sh, depth + 1))?;
            let total = tree.descendant_count() as u64;
            if depth == 0
                && tree.children.len() as u64 != total
                && let Err(e) = BLEND_TREE_CHILDREN.check("this state's nested blend trees", total)
            {
                ctx.report(Code::OutOfRange, t.span(), &field, e.to_string());
                return None;
            }
            Some(Motion::BlendTree(tree))
        }
    }
}

/// A `blend_tree` table nested `depth` trees deep (1 for a state's own tree).
pub(crate) fn read(
    ctx: &mut FileCtx<'_>,
    t: &mut Obj<'_, '_>,
    params: &Params,
    model: &Path,
    sh: &mut Shared,
    depth: u64,
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
    let (mut children, ok) = match children_v {
        // Left out: reported by `finish` (the field is required).
        None => (Vec::new(), false),
        Some(v) => read_children(ctx, v, &children_field, kind, (params, model), sh, depth),
    };
    let kind = kind?;
    let (parameter, parameter_y) = read_axes(ctx, t, params, kind, p.as_ref(), py.as_ref())?;
    // `weighting` and `power` belong to 2D trees; `power` to inverse distance only.
    let weighting_ok = check_weighting(ctx, t, kind, weighting.as_ref(), has_power.then_some(power_span));
    if !ok || !weighting_ok || (has_power && power.is_none()) {
        // A `power` that is not a number > 0 is reported by the reader.
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

/// The `children` rows of a tree of `kind` (`None` when its `type` is
/// invalid): the children with a clip, and whether every row was valid.
fn read_children(
    ctx: &mut FileCtx<'_>,
    v: &Val<'_>,
    children_field: &str,
    kind: Option<BlendTreeKind>,
    (params, model): (&Params, &Path),
    sh: &mut Shared,
    depth: u64,
) -> (Vec<BlendChild>, bool) {
    let mut children = Vec::new();
    // 2D positions seen so far (−0 folded into 0): the runtime refuses two children at one point.
    let mut positions: HashMap<(u32, u32), usize> = HashMap::new();
    let mut ok = true;
    for (i, item) in array_of(ctx, v, children_field).unwrap_or_default().iter().enumerate() {
        let f = index(children_field, i);
        let Some(mut c) = obj_of(ctx, item, &f, &CHILD) else {
            ok = false;
            continue;
        };
        let motion = read_motion(ctx, &mut c, params, model, sh, depth);
        let child = ChildFields {
            has_threshold: c.has("threshold"),
            threshold: c.num(ctx, "threshold"),
            has_threshold_y: c.has("threshold_y"),
            threshold_y: c.num(ctx, "threshold_y"),
            has_weight: c.has("weight"),
            weight: c.num(ctx, "weight"),
        };
        c.finish(ctx);
        ok &= check_child_shape(ctx, &mut c, kind, i, &f, &child, &mut positions);
        let Some(motion) = motion else {
            ok = false;
            continue;
        };
        children.push(BlendChild {
            motion,
            threshold: child.threshold.unwrap_or(0.0),
            threshold_y: child.threshold_y,
            weight: child.weight,
        });
    }
    if let Err(e) = BLEND_TREE_CHILDREN.check("this blend tree", children.len() as u64) {
        // The runtime's set-up refuses it too (one limit for both).
        ctx.report(Code::OutOfRange, v.span(), children_field, e.to_string());
        ok = false;
    }
    let min = if kind == Some(BlendTreeKind::OneD) { 2 } else { 1 };
    if ok && children.len() < min && kind.is_some() {
        ctx.report(
            Code::BlendTreeShape,
            v.span(),
            children_field,
            format!(
                "a {} blend tree needs at least {min} children, found {}",
                kind.map_or("", |k| k.name()),
                children.len()
            ),
        );
        ok = false;
    }
    (children, ok)
}

/// The numbers of one child row (`has_*`: the key is present, even with an invalid value).
#[derive(Debug)]
struct ChildFields {
    has_threshold: bool,
    threshold: Option<f32>,
    has_threshold_y: bool,
    threshold_y: Option<f32>,
    has_weight: bool,
    weight: Option<f32>,
}

/// Child `i` (at `f`) has the fields a tree of `kind` needs and, in a 2D
/// tree, a position no earlier child has. Reports each problem; `true` when none.
fn check_child_shape(
    ctx: &mut FileCtx<'_>,
    c: &mut Obj<'_, '_>,
    kind: Option<BlendTreeKind>,
    i: usize,
    f: &str,
    child: &ChildFields,
    positions: &mut HashMap<(u32, u32), usize>,
) -> bool {
    let mut ok = true;
    match kind {
        Some(BlendTreeKind::OneD) | Some(BlendTreeKind::TwoD) if !child.has_threshold => {
            c.missing(ctx, "threshold", "its position on the blend axis");
            ok = false;
        }
        _ => {}
    }
    if kind == Some(BlendTreeKind::TwoD) && !child.has_threshold_y {
        ctx.report(
            Code::BlendTreeShape,
            c.span.clone(),
            &c.field("threshold_y"),
            "a 2D blend tree child needs both `threshold` and `threshold_y`",
        );
        ok = false;
    }
    if kind == Some(BlendTreeKind::Direct) && !child.has_weight {
        ctx.report(
            Code::BlendTreeShape,
            c.span.clone(),
            &c.field("weight"),
            "a direct blend tree child needs an explicit `weight` (>= 0)",
        );
        ok = false;
    }
    if kind == Some(BlendTreeKind::TwoD)
        && let (Some(x), Some(y)) = (child.threshold, child.threshold_y)
        && let Some(first) = positions.insert(((x + 0.0).to_bits(), (y + 0.0).to_bits()), i)
    {
        ctx.report(
            Code::BlendTreeShape,
            c.span.clone(),
            f,
            format!("children {first} and {i} share the position ({x}, {y}); a 2D blend tree needs distinct positions"),
        );
        ok = false;
    }
    ok
}

/// The tree's `parameter` and `parameter_y` for its `kind`; `None` (reported)
/// when one is missing or `parameter_y` is given to a tree that is not 2D.
fn read_axes(
    ctx: &mut FileCtx<'_>,
    t: &mut Obj<'_, '_>,
    params: &Params,
    kind: BlendTreeKind,
    p: Option<&Spanned<&str>>,
    py: Option<&Spanned<&str>>,
) -> Option<(Option<ParameterIndex>, Option<ParameterIndex>)> {
    let parameter = match (p, kind) {
        (Some(v), _) if !(kind == BlendTreeKind::Direct && v.get_ref().is_empty()) => {
            params.number(ctx, v, &t.field("parameter"))
        }
        (None, BlendTreeKind::Direct) => None,
        _ => {
            t.missing(ctx, "parameter", "the number parameter driving the blend");
            return None;
        }
    };
    let parameter_y = match (py, kind) {
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
    Some((parameter, parameter_y))
}

/// `weighting` belongs to 2D trees, `power` (at `power_span` when given) to
/// 2D inverse-distance trees. Reports each misplaced one; `true` when none.
fn check_weighting(
    ctx: &mut FileCtx<'_>,
    t: &Obj<'_, '_>,
    kind: BlendTreeKind,
    weighting: Option<&Spanned<&'static str>>,
    power_span: Option<Range<usize>>,
) -> bool {
    let mut ok = true;
    if let Some(w) = weighting
        && kind != BlendTreeKind::TwoD
    {
        ctx.report(
            Code::ConflictingFields,
            w.span(),
            &t.field("weighting"),
            format!("`weighting` belongs to 2D trees, not {}", kind.name()),
        );
        ok = false;
    }
    let Some(power_span) = power_span else { return ok };
    if kind != BlendTreeKind::TwoD {
        ctx.report(
            Code::ConflictingFields,
            power_span,
            &t.field("power"),
            format!("`power` belongs to 2D inverse-distance trees, not {}", kind.name()),
        );
        ok = false;
    } else if weighting.is_some_and(|w| *w.get_ref() == "gradient_band") {
        ctx.report(
            Code::ConflictingFields,
            power_span,
            &t.field("power"),
            "`power` belongs to `inverse_distance` weighting; gradient bands have no power",
        );
        ok = false;
    }
    ok
}

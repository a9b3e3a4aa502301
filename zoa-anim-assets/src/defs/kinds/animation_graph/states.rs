//! Graph states: `[[states]]` rows, each playing a clip or a blend tree on a layer.

use std::path::Path;

use zoa_anim_core::graph::{Crossfade, GraphState, Motion};

use super::blend_tree;
use super::layers::{BLEND_MODE, BONE_MASK, blend_mode, bone_mask};
use super::params::Params;
use super::{MAX_GRAPH_ITEMS, StateInfo};
use crate::defs::codes::Code;
use crate::defs::diag::FileCtx;
use crate::defs::kinds::Names;
use crate::defs::read::{Obj, Rule, obj_of};
use crate::defs::spec::{Constraint, Field, Table, Ty};
use crate::defs::{Shared, Target};

static CROSSFADE: Table = Table::of(&[
    Field::opt("duration", Ty::Num(Rule::NonNegative), "`0`", "cross-fade into this state").unit("s"),
    Field::opt("warp", Ty::Bool, "`false`", "synchronise the two clips' normalised time while fading"),
]);

/// A `[[states]]` row.
pub(crate) static TABLE: Table = Table {
    fields: &[
        Field::req("name", Ty::Text, "the state name", "unique; `any` is reserved"),
        Field::opt("layer", Ty::Text, "`base`", "a declared layer"),
        Field::opt("clip", Ty::Text, "one of `clip` / `blend_tree`", "clip reference"),
        Field::opt(
            "blend_tree",
            Ty::Table(&blend_tree::TABLE),
            "one of `clip` / `blend_tree`",
            "a blend tree: its type, axis parameters and children",
        ),
        Field::opt("loop", Ty::Bool, "the clip's loop hint, else `true`", ""),
        Field::opt("speed", Ty::Num(Rule::Speed), "`1`", ""),
        Field::opt("crossfade", Ty::Table(&CROSSFADE), "`{ 0, false }`", ""),
        Field::opt("weight", Ty::Num(Rule::Unit), "the layer's", ""),
        Field::opt("blend_mode", Ty::Enum(&BLEND_MODE), "the layer's", ""),
        Field::opt("bone_mask", Ty::Table(&BONE_MASK), "the layer's", "as for layers"),
        Field::opt("position", Ty::Point, "laid out by the editor", super::POSITION_ABOUT),
    ],
    constraints: &[Constraint::OneOf(&[&["clip"], &["blend_tree"]])],
};

/// The states, what the other parts of the reader need to know about each,
/// and whether each wrote `loop` (else the clip's loop hint applies).
pub(crate) struct States {
    pub list: Vec<GraphState>,
    pub infos: Vec<StateInfo>,
    pub explicit_loop: Vec<bool>,
}

/// Reads every `[[states]]` row.
pub(crate) fn read(
    ctx: &mut FileCtx<'_>,
    root: &mut Obj<'_, '_>,
    params: &Params,
    layer_names: &[&str],
    model: &Path,
    sh: &mut Shared,
) -> States {
    let mut out = States { list: Vec::new(), infos: Vec::new(), explicit_loop: Vec::new() };
    let mut names = Names::new("state");
    let state_tables = root.tables(ctx, "states");
    if state_tables.is_empty() && root.has("states") {
        // Written but empty (or not an array); left out is reported by `tables`.
        root.missing(ctx, "states", "at least one state");
    }
    for mut s in state_tables {
        let name = s.str(ctx, "name");
        let layer_v = s.str(ctx, "layer");
        let looping = s.bool(ctx, "loop");
        let speed = s.num(ctx, "speed").unwrap_or(1.0);
        let crossfade = match s.obj(ctx, "crossfade") {
            Some(mut c) => {
                let duration = c.num(ctx, "duration").unwrap_or(0.0);
                let warp = c.bool(ctx, "warp").unwrap_or(false);
                c.finish(ctx);
                Crossfade { duration, warp }
            }
            None => Crossfade::default(),
        };
        let weight = s.num(ctx, "weight");
        let mode = blend_mode(ctx, &mut s);
        let mask = bone_mask(ctx, &mut s, model, sh);
        let motion = motion(ctx, &mut s, params, model, sh);
        s.finish(ctx);
        let Some(name) = name else { continue };
        if *name.get_ref() == "any" {
            ctx.report(
                Code::InvalidValue,
                name.span(),
                &s.field("name"),
                "`any` is reserved for transitions from any state",
            );
            continue;
        }
        if !names.insert(ctx, name.get_ref(), name.span(), &s.field("name")) {
            continue;
        }
        let layer = match &layer_v {
            None => 0,
            Some(l) => match layer_names.iter().position(|x| *x == *l.get_ref()) {
                Some(i) => i,
                None => {
                    ctx.report(
                        Code::UnresolvedReference,
                        l.span(),
                        &s.field("layer"),
                        format!("no layer `{}`; declared: {}", l.get_ref(), layer_names.join(", ")),
                    );
                    0
                }
            },
        };
        // A state whose motion failed keeps its name (so transitions to it do
        // not cascade into unresolved references); the graph is dropped anyway.
        let motion = motion.unwrap_or(Motion::Clip(String::new()));
        if out.list.len() >= MAX_GRAPH_ITEMS {
            ctx.report(
                Code::OutOfRange,
                name.span(),
                &s.field("name"),
                format!("a graph holds at most {MAX_GRAPH_ITEMS} states"),
            );
            continue;
        }
        out.explicit_loop.push(looping.is_some());
        out.infos.push(StateInfo { name: (*name.get_ref()).to_owned(), span: name.span(), layer });
        out.list.push(GraphState {
            name: (*name.get_ref()).to_owned(),
            layer,
            motion,
            looping: looping.unwrap_or(true),
            speed,
            crossfade,
            weight,
            blend_mode: mode,
            bone_mask: mask,
        });
    }
    out
}

/// A state's `clip` or `blend_tree` (exactly one of them).
fn motion(
    ctx: &mut FileCtx<'_>,
    s: &mut Obj<'_, '_>,
    params: &Params,
    model: &Path,
    sh: &mut Shared,
) -> Option<Motion> {
    let clip = s.str(ctx, "clip");
    let tree_v = s.raw("blend_tree");
    match (clip, tree_v) {
        (Some(_), Some(t)) => {
            ctx.report(
                Code::ConflictingFields,
                t.span(),
                &s.field("blend_tree"),
                "a state plays either `clip` or `blend_tree`, not both",
            );
            None
        }
        (None, None) => {
            s.missing(ctx, "clip", "a state needs `clip` or `blend_tree`");
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
            obj_of(ctx, t, &field, &blend_tree::TABLE)
                .and_then(|mut t| blend_tree::read(ctx, &mut t, params, model, sh))
                .map(Motion::BlendTree)
        }
    }
}

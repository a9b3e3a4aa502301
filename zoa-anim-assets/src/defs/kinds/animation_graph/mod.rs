//! `animation_graph`: parameters, layers, states and transitions over one
//! model's clips. One file per part: [`params`], [`layers`], [`states`]
//! (with [`blend_tree`]) and [`transitions`]; this file holds the kind's
//! description and reads the parts in order.

mod blend_tree;
mod layers;
mod params;
mod states;
mod transitions;

pub use transitions::split_condition;

use std::ops::Range;

use zoa_anim_core::graph::AnimationGraph;

use crate::defs::diag::FileCtx;
use crate::defs::read::Obj;
use crate::defs::spec::{Field, KindSpec, Table, Ty};
use crate::defs::{Kind, Shared, Target};

/// Most states, parameters, layers or transitions one graph may declare
/// (indices are `u16`).
const MAX_GRAPH_ITEMS: usize = u16::MAX as usize;

/// The description of `animation_graph`.
pub(crate) static SPEC: KindSpec = KindSpec {
    kind: Kind::AnimationGraph,
    produces: "[`zoa_anim_core::AnimationGraph`]",
    intro: "",
    table: Table::of(&[
        Field::req(
            "model",
            Ty::Text,
            "the skeletal model file, relative to this definition file",
            "the skeletal model; bone masks are checked against it",
        )
        .shown_as("path"),
        Field::req("entry", Ty::Text, "the base layer's entry state", "a state of the base layer"),
        Field::opt("parameters", Ty::Rows(&params::TABLE), "`[]`", "graph parameters"),
        Field::opt("layers", Ty::Rows(&layers::TABLE), "`[]`", "layers above the implicit base layer"),
        Field::req("states", Ty::Rows(&states::TABLE), "at least one state", "at least one"),
        Field::opt("transitions", Ty::Rows(&transitions::TABLE), "`[]`", "tried in order"),
        Field::opt("any_position", Ty::Point, "laid out by the editor", ANY_POSITION_ABOUT),
    ]),
    notes: "Warnings: a transition with neither exit time nor conditions (W002); a state that no transition \
            path reaches from its layer's entry (W003).",
};

/// What a state's `position` is for (layout only: checked, never read).
const POSITION_ABOUT: &str = "where the Workbench's graph canvas draws the state, in canvas units (pixels at zoom \
                              1); written by the editor, ignored by the runtime";

/// What an `any_position` is for.
const ANY_POSITION_ABOUT: &str = "where the Workbench's graph canvas draws the Any State node (the source of \
                                  `from = \"any\"` transitions) of the base layer (top level) or of this layer; \
                                  written by the editor, ignored by the runtime";

/// What the parts of the reader need to know about a state.
#[derive(Default)]
pub(crate) struct StateInfo {
    name: String,
    span: Range<usize>,
    layer: usize,
}

/// `a, b, c`, at most 12 names (then `… (N in all)`), `none` when empty; keeps
/// messages short when a hostile file declares thousands of names.
fn capped_list<'n>(names: impl Iterator<Item = &'n str>) -> String {
    let names: Vec<&str> = names.collect();
    match names.len() {
        0 => "none".to_owned(),
        n if n > 12 => format!("{}, … ({n} in all)", names[..12].join(", ")),
        _ => names.join(", "),
    }
}

pub(crate) fn read(ctx: &mut FileCtx<'_>, root: &mut Obj<'_, '_>, id: &str, sh: &mut Shared) -> Option<AnimationGraph> {
    let model = root.str(ctx, "model");
    let (model_rel, model_disk) = match &model {
        Some(m) => {
            let (rel, disk) = sh.resolve_path(&ctx.rel, m.get_ref());
            sh.refer(Target::Model(disk.clone()), *m.get_ref(), ctx.at(m.span(), "model"));
            (rel, disk)
        }
        None => (String::new(), std::path::PathBuf::new()),
    };
    let entry = root.str(ctx, "entry");
    let params = params::read(ctx, root);
    let mut layers = layers::read(ctx, root, entry.as_ref(), &model_disk, sh);
    let layer_names: Vec<&str> = layers.list.iter().map(|l| l.name.as_str()).collect();
    let mut states = states::read(ctx, root, &params, &layer_names, &model_disk, sh);
    states::resolve_machines(ctx, &mut states);
    layers.resolve_entries(ctx, &states.infos);
    let transitions = transitions::read(ctx, root, &params, &states.infos, &layers.list);
    let graph = AnimationGraph {
        id: id.to_owned(),
        model: model_rel,
        parameters: params.list,
        layers: layers.list,
        states: states.list,
        transitions,
    };
    if ctx.error_count() == 0 {
        transitions::check_reachable(ctx, &graph, &states.infos);
    }
    sh.explicit_loop.insert(id.to_owned(), states.explicit_loop);
    model?;
    Some(graph)
}

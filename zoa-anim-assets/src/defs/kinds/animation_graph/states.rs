//! Graph states: `[[states]]` rows, each playing a clip or a blend tree on a layer.

use std::path::Path;

use std::ops::Range;

use zoa_anim_core::graph::{Crossfade, GraphState, Motion, StateIndex};

use super::blend_tree;
use super::layers::{BLEND_MODE, BONE_MASK, blend_mode, bone_mask};
use super::params::Params;
use super::{MAX_GRAPH_ITEMS, StateInfo, capped_list};
use crate::defs::Shared;
use crate::defs::codes::Code;
use crate::defs::diag::FileCtx;
use crate::defs::kinds::Names;
use crate::defs::read::{Obj, Rule};
use crate::defs::spec::{Constraint, Field, Table, Ty};

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
        Field::opt(
            "entry",
            Ty::Text,
            "one of `clip` / `blend_tree` / `entry`",
            "makes this state a sub-state machine entered at this state of its own (its states name it in \
             `machine`); its transitions leave from any state inside it",
        ),
        Field::opt(
            "machine",
            Ty::Text,
            "none: the layer's top level",
            "the sub-state machine this state belongs to (a state with `entry`, of the same layer; at most \
             8 machines deep)",
        ),
        Field::opt("loop", Ty::Bool, "the clip's loop hint, else `true`", ""),
        Field::opt("speed", Ty::Num(Rule::Speed), "`1`", ""),
        Field::opt("crossfade", Ty::Table(&CROSSFADE), "`{ 0, false }`", ""),
        Field::opt("weight", Ty::Num(Rule::Unit), "the layer's", ""),
        Field::opt("blend_mode", Ty::Enum(&BLEND_MODE), "the layer's", ""),
        Field::opt("bone_mask", Ty::Table(&BONE_MASK), "the layer's", "as for layers"),
        Field::opt(
            "sync_group",
            Ty::Text,
            "none",
            "a sync group: of the group's states playing on the layer, the heaviest leads and the others \
             follow its position between the sync markers their clips share (a blend tree by its heaviest \
             child), else its normalized time; only looping states follow",
        ),
        Field::opt("position", Ty::Point, "laid out by the editor", super::POSITION_ABOUT),
    ],
    constraints: &[
        Constraint::OneOf(&[&["clip"], &["blend_tree"], &["entry"]]),
        Constraint::NotWith("sync_group", "loop", false),
    ],
};

/// The states, what the other parts of the reader need to know about each,
/// and whether each wrote `loop` (else the clip's loop hint applies).
pub(crate) struct States {
    pub list: Vec<GraphState>,
    pub infos: Vec<StateInfo>,
    pub explicit_loop: Vec<bool>,
    /// Per state, its `machine` and `entry` names as written (resolved by [`resolve_machines`]).
    machine_refs: Vec<MachineRefs>,
}

/// A state's `machine` and `entry` values with where they are written.
#[derive(Default)]
struct MachineRefs {
    machine: Option<(String, Range<usize>, String)>,
    entry: Option<(String, Range<usize>, String)>,
    /// The row wrote `layer`.
    explicit_layer: bool,
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
    let mut out = States { list: Vec::new(), infos: Vec::new(), explicit_loop: Vec::new(), machine_refs: Vec::new() };
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
        let crossfade = crossfade(ctx, &mut s);
        let weight = s.num(ctx, "weight");
        let mode = blend_mode(ctx, &mut s);
        let mask = bone_mask(ctx, &mut s, model, sh);
        let (motion, refs) = motion_or_machine(ctx, &mut s, (params, model), sh, layer_v.is_some());
        let sync_group = sync_group(ctx, &mut s, looping);
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
        out.machine_refs.push(refs);
        out.infos.push(StateInfo { name: (*name.get_ref()).to_owned(), span: name.span(), layer });
        out.list.push(GraphState {
            name: (*name.get_ref()).to_owned(),
            layer,
            machine: None,
            motion,
            looping: looping.unwrap_or(true),
            speed,
            crossfade,
            weight,
            blend_mode: mode,
            bone_mask: mask,
            sync_group,
        });
    }
    out
}

/// A state's `crossfade` table (none: no cross-fade, no warp).
fn crossfade(ctx: &mut FileCtx<'_>, s: &mut Obj<'_, '_>) -> Crossfade {
    match s.obj(ctx, "crossfade") {
        Some(mut c) => {
            let duration = c.num(ctx, "duration").unwrap_or(0.0);
            let warp = c.bool(ctx, "warp").unwrap_or(false);
            c.finish(ctx);
            Crossfade { duration, warp }
        }
        None => Crossfade::default(),
    }
}

/// A state's `sync_group`, which a state that plays once cannot follow.
fn sync_group(ctx: &mut FileCtx<'_>, s: &mut Obj<'_, '_>, looping: Option<bool>) -> Option<String> {
    let group = s.str(ctx, "sync_group")?;
    if looping == Some(false) {
        let m = "a state that plays once (`loop = false`) cannot follow a sync group";
        ctx.report(Code::ConflictingFields, group.span(), &s.field("sync_group"), m);
    }
    Some((*group.get_ref()).to_owned())
}

/// A row's motion (`clip` / `blend_tree`, or a sub-state machine with
/// `entry`, resolved later) and its `machine` / `entry` references.
fn motion_or_machine(
    ctx: &mut FileCtx<'_>,
    s: &mut Obj<'_, '_>,
    (params, model): (&Params, &Path),
    sh: &mut Shared,
    explicit_layer: bool,
) -> (Option<Motion>, MachineRefs) {
    let refs = MachineRefs {
        machine: s.str(ctx, "machine").map(|v| ((*v.get_ref()).to_owned(), v.span(), s.field("machine"))),
        entry: s.str(ctx, "entry").map(|v| ((*v.get_ref()).to_owned(), v.span(), s.field("entry"))),
        explicit_layer,
    };
    let motion = if let Some((_, span, field)) = &refs.entry {
        if s.has("clip") || s.has("blend_tree") {
            let message = "a state plays `clip` or `blend_tree`, or is a sub-state machine with `entry`, not both";
            ctx.report(Code::ConflictingFields, span.clone(), field, message);
            None
        } else {
            // The entry is resolved once every state is known.
            Some(Motion::Machine(StateIndex(0)))
        }
    } else {
        blend_tree::read_motion(ctx, s, params, model, sh, 0)
    };
    (motion, refs)
}

/// Resolves every state's `machine` and every machine's `entry` now that all
/// states are known: names that resolve (E012), a `machine` that is a
/// sub-state machine (E018) of the same layer (an inner state without
/// `layer` takes its machine's; another is E019), no state inside itself
/// (E013), at most [`zoa_anim_core::budget::STATE_MACHINE_DEPTH`] deep (E008),
/// and an entry that is one of the machine's own states (E010).
pub(crate) fn resolve_machines(ctx: &mut FileCtx<'_>, out: &mut States) {
    let names_list: Vec<String> = out.list.iter().map(|s| s.name.clone()).collect();
    let index = |name: &str| names_list.iter().position(|s| s == name).map(|i| StateIndex(i as u16));
    let names = || capped_list(names_list.iter().map(String::as_str));
    let mut machines = vec![None; out.list.len()];
    for (i, refs) in out.machine_refs.iter().enumerate() {
        let Some((name, span, field)) = &refs.machine else { continue };
        match index(name) {
            None => ctx.report(
                Code::UnresolvedReference,
                span.clone(),
                field,
                format!("no state `{name}`; declared: {}", names()),
            ),
            Some(m) if !matches!(out.list[m.index()].motion, Motion::Machine(_)) => ctx.report(
                Code::TypeMismatch,
                span.clone(),
                field,
                format!("state `{name}` is not a sub-state machine (it has no `entry`)"),
            ),
            Some(m) if refs.explicit_layer && out.list[m.index()].layer != out.list[i].layer => ctx.report(
                Code::ConflictingFields,
                span.clone(),
                field,
                format!("sub-state machine `{name}` is on another layer than this state's `layer`"),
            ),
            Some(m) => machines[i] = Some(m),
        }
    }
    for (i, m) in machines.iter().enumerate() {
        out.list[i].machine = *m;
    }
    // Layers follow machines outermost first, so nesting order does not matter.
    for _ in 0..out.list.len().min(zoa_anim_core::budget::STATE_MACHINE_DEPTH.max as usize + 1) {
        for i in 0..out.list.len() {
            if let (Some(m), false) = (out.list[i].machine, out.machine_refs[i].explicit_layer) {
                out.list[i].layer = out.list[m.index()].layer;
                out.infos[i].layer = out.list[i].layer;
            }
        }
    }
    check_nesting(ctx, out);
    for (i, refs) in out.machine_refs.iter().enumerate() {
        let Some((name, span, field)) = &refs.entry else { continue };
        match index(name) {
            None => ctx.report(Code::UnresolvedReference, span.clone(), field, format!("no state `{name}`; declared: {}", names())),
            Some(e) if out.list[e.index()].machine != Some(StateIndex(i as u16)) => ctx.report(
                Code::InvalidValue,
                span.clone(),
                field,
                format!("the entry of sub-state machine `{}` must be one of its own states (give `{name}` `machine = \"{}\"`)", out.list[i].name, out.list[i].name),
            ),
            Some(e) => out.list[i].motion = Motion::Machine(e),
        }
    }
}

/// No state inside itself (E013) and nesting within its budget (E008).
fn check_nesting(ctx: &mut FileCtx<'_>, out: &mut States) {
    let limit = &zoa_anim_core::budget::STATE_MACHINE_DEPTH;
    for i in 0..out.list.len() {
        let mut depth = 0usize;
        let mut m = out.list[i].machine;
        while let Some(s) = m {
            depth += 1;
            if s.index() == i || depth > out.list.len() {
                break;
            }
            m = out.list[s.index()].machine;
        }
        let Some((_, span, field)) = &out.machine_refs[i].machine else { continue };
        if m.is_some() {
            ctx.report(
                Code::InheritanceCycle,
                span.clone(),
                field,
                format!("state `{}` is inside itself through its machines", out.list[i].name),
            );
            out.list[i].machine = None;
        } else if let Err(e) = limit.check(format!("state `{}`", out.list[i].name), depth as u64) {
            ctx.report(Code::OutOfRange, span.clone(), field, e.to_string());
        }
    }
}

//! clip and animation_graph: assets tied to a model file.

use std::collections::{HashMap, VecDeque};
use std::ops::Range;

use toml::Spanned;
use toml::de::DeValue;
use zoa_anim_core::graph::{
    AnimationGraph, BlendChild, BlendMode, BlendTree, BlendTreeKind, BoneMask, CompareOp, Condition, ConditionTest,
    Crossfade, GraphLayer, GraphParameter, GraphState, GraphTransition, Interruption, Motion, ParameterDefault,
    ParameterIndex, StateIndex, TransitionMode, TransitionSource,
};
use zoa_anim_core::{AnimationSelector, ClipAsset, ClipNotify};

use super::simple::Names;
use crate::defs::codes::Code;
use crate::defs::diag::FileCtx;
use crate::defs::read::{Obj, Rule, array_of, did_you_mean, index, int_of, name_of, num_of, obj_of};
use crate::defs::{Shared, Target};

/// Most states, parameters, layers or transitions one graph may declare
/// (indices are `u16`).
const MAX_GRAPH_ITEMS: usize = u16::MAX as usize;

pub(crate) fn clip(ctx: &mut FileCtx<'_>, root: &mut Obj<'_, '_>, id: &str, sh: &mut Shared) -> Option<ClipAsset> {
    let source = root.req_str(ctx, "source", "the model file, relative to this definition file");
    let animation = match root.raw("animation") {
        None => Some((AnimationSelector::Name(id.to_owned()), root.span.start..root.span.start)),
        Some(v) => match v.get_ref() {
            DeValue::Integer(_) => int_of(ctx, v, "animation", 0, i64::from(u32::MAX))
                .map(|i| (AnimationSelector::Index(i as u32), v.span())),
            DeValue::String(_) => {
                name_of(ctx, v, "animation").map(|s| (AnimationSelector::Name(s.to_owned()), v.span()))
            }
            _ => {
                ctx.report(Code::WrongType, v.span(), "animation", "expected an animation name or index");
                None
            }
        },
    };
    let rate = root.num(ctx, "rate", Rule::Positive).unwrap_or(1.0);
    let loop_hint = root.bool(ctx, "loop").unwrap_or(true);
    let mut notifies = Vec::new();
    let mut notify_spans = Vec::new();
    if let Some(v) = root.raw("notifies")
        && let Some(items) = array_of(ctx, v, "notifies")
    {
        for (i, item) in items.iter().enumerate() {
            let f = index("notifies", i);
            let parsed = match item.get_ref() {
                DeValue::String(s) => {
                    parse_notify(s).map_err(|m| ctx.report(Code::InvalidValue, item.span(), &f, m)).ok()
                }
                DeValue::Table(_) => {
                    let Some(mut t) = obj_of(ctx, item, &f) else { continue };
                    let name = t.req_str(ctx, "name", "the event name");
                    let time = if t.has("time") {
                        t.num(ctx, "time", Rule::Any)
                    } else {
                        t.missing(ctx, "time", "seconds from the start of the clip");
                        None
                    };
                    t.finish(ctx);
                    match (name, time) {
                        (Some(n), Some(time)) => Some(ClipNotify { name: (*n.get_ref()).to_owned(), time }),
                        _ => continue,
                    }
                }
                _ => {
                    ctx.report(Code::WrongType, item.span(), &f, "expected `Name@seconds` or { name, time }");
                    continue;
                }
            };
            let Some(n) = parsed else { continue };
            if n.time < 0.0 {
                ctx.report(
                    Code::OutOfRange,
                    item.span(),
                    &f,
                    format!("expected a notify time >= 0 s, found {}", n.time),
                );
                continue;
            }
            notify_spans.push((n.time, ctx.at(item.span(), &f)));
            notifies.push(n);
        }
    }
    let source = source?;
    let (rel, disk) = sh.resolve_path(&ctx.rel, source.get_ref());
    sh.refer(Target::Model(disk.clone()), *source.get_ref(), ctx.at(source.span(), "source"));
    let (animation, anim_span) = animation?;
    let anim_field = if root.has("animation") { "animation" } else { "id" };
    let anim_span = if root.has("animation") {
        anim_span
    } else {
        root.table.iter().find(|(k, _)| k.get_ref().as_ref() == "id").map(|(_, v)| v.span()).unwrap_or(anim_span)
    };
    sh.refer(Target::Animation(disk.clone()), animation.to_string(), ctx.at(anim_span, anim_field));
    for (time, at) in notify_spans {
        sh.refer(Target::NotifyTime { model: disk.clone(), animation: animation.clone(), time }, "", at);
    }
    notifies.sort_by(|a, b| a.time.total_cmp(&b.time));
    Some(ClipAsset { id: id.to_owned(), source: rel, animation, rate, loop_hint, notifies })
}

/// `Name@seconds`.
fn parse_notify(text: &str) -> Result<ClipNotify, String> {
    let expected = "expected `Name@seconds`, e.g. `Footstep@0.35`";
    let (name, time) = text.rsplit_once('@').ok_or_else(|| format!("{expected}, found `{text}`"))?;
    let name = name.trim();
    if name.is_empty() {
        return Err(format!("{expected}; the name before `@` is empty"));
    }
    let t: f32 = time.trim().parse().map_err(|_| format!("{expected}; `{}` is not a number", time.trim()))?;
    if !t.is_finite() {
        return Err(format!("{expected}; the time must be finite"));
    }
    Ok(ClipNotify { name: name.to_owned(), time: t })
}

/// Reads a `bone_mask = { include = [..], exclude = [..] }` table.
fn bone_mask(
    ctx: &mut FileCtx<'_>,
    parent: &mut Obj<'_, '_>,
    model: &std::path::Path,
    sh: &mut Shared,
) -> Option<BoneMask> {
    let mut t = parent.obj(ctx, "bone_mask")?;
    let mut mask = BoneMask::default();
    for key in ["include", "exclude"] {
        let Some(v) = t.raw(key) else { continue };
        let field = t.field(key);
        let Some(items) = array_of(ctx, v, &field) else { continue };
        if items.is_empty() {
            ctx.report(Code::OutOfRange, v.span(), &field, "expected at least one bone name (omit the list instead)");
            continue;
        }
        for (i, item) in items.iter().enumerate() {
            let f = index(&field, i);
            let Some(name) = name_of(ctx, item, &f) else { continue };
            sh.refer(Target::Bone(model.to_path_buf()), name, ctx.at(item.span(), &f));
            if key == "include" { &mut mask.include } else { &mut mask.exclude }.push(name.to_owned());
        }
    }
    if !t.has("include") && !t.has("exclude") {
        ctx.report(Code::MissingField, t.span.clone(), &t.path, "a bone mask needs `include`, `exclude` or both");
    }
    t.finish(ctx);
    Some(mask)
}

fn blend_mode(ctx: &mut FileCtx<'_>, o: &mut Obj<'_, '_>) -> Option<BlendMode> {
    let v = o.str(ctx, "blend_mode")?;
    let m = BlendMode::from_name(v.get_ref());
    if m.is_none() {
        ctx.report(
            Code::InvalidValue,
            v.span(),
            &o.field("blend_mode"),
            format!("unknown blend mode `{}`; expected override or additive", v.get_ref()),
        );
    }
    m
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

struct Params {
    list: Vec<GraphParameter>,
}

impl Params {
    fn find(&self, name: &str) -> Option<(ParameterIndex, ParameterDefault)> {
        self.list.iter().position(|p| p.name == name).map(|i| (ParameterIndex(i as u16), self.list[i].default))
    }
    fn names(&self) -> String {
        capped_list(self.list.iter().map(|p| p.name.as_str()))
    }
    /// A number parameter for a blend-tree axis.
    fn number(&self, ctx: &mut FileCtx<'_>, v: &Spanned<&str>, field: &str) -> Option<ParameterIndex> {
        match self.find(v.get_ref()) {
            None => {
                ctx.report(
                    Code::UnresolvedReference,
                    v.span(),
                    field,
                    format!(
                        "no parameter `{}` in this graph{}; declared: {}",
                        v.get_ref(),
                        did_you_mean(v.get_ref(), self.list.iter().map(|p| p.name.as_str())),
                        self.names()
                    ),
                );
                None
            }
            Some((i, d)) if d.is_number() => Some(i),
            Some((_, d)) => {
                ctx.report(
                    Code::TypeMismatch,
                    v.span(),
                    field,
                    format!(
                        "blend tree axis `{}` is a {} parameter; expected float or int",
                        v.get_ref(),
                        d.type_name()
                    ),
                );
                None
            }
        }
    }
}

fn condition(ctx: &mut FileCtx<'_>, params: &Params, text: &str, span: Range<usize>, field: &str) -> Option<Condition> {
    let text = text.trim();
    let (name, test_text): (&str, Option<(&str, &str)>) = if let Some((n, rest)) = text.split_once(" is ") {
        (n.trim(), Some(("is", rest.trim())))
    } else if let Some(pos) = text.find(['<', '>', '=', '!']) {
        let (n, rest) = text.split_at(pos);
        let op_len = if rest[1..].starts_with('=') { 2 } else { 1 };
        (n.trim(), Some((&rest[..op_len], rest[op_len..].trim())))
    } else {
        (text, None)
    };
    let syntax =
        "expected `param OP number` (OP one of == != < > <= >=), `param is true`, `param is false` or a trigger name";
    if name.is_empty() || name.contains(char::is_whitespace) {
        ctx.report(Code::InvalidValue, span, field, format!("cannot read condition `{text}`; {syntax}"));
        return None;
    }
    let Some((param, default)) = params.find(name) else {
        ctx.report(
            Code::UnresolvedReference,
            span,
            field,
            format!(
                "no parameter `{name}` in this graph{}; declared: {}",
                did_you_mean(name, params.list.iter().map(|p| p.name.as_str())),
                params.names()
            ),
        );
        return None;
    };
    let mismatch = |ctx: &mut FileCtx<'_>, what: &str| {
        ctx.report(
            Code::TypeMismatch,
            span.clone(),
            field,
            format!("`{name}` is a {} parameter; {what}", default.type_name()),
        );
    };
    let test = match (test_text, default) {
        (None, ParameterDefault::Trigger) => ConditionTest::Triggered,
        (None, _) => {
            mismatch(ctx, "only a trigger may be used as a bare condition");
            return None;
        }
        (Some(("is", v)), ParameterDefault::Bool(_)) => match v {
            "true" => ConditionTest::IsTrue,
            "false" => ConditionTest::IsFalse,
            _ => {
                ctx.report(Code::InvalidValue, span, field, format!("cannot read condition `{text}`; {syntax}"));
                return None;
            }
        },
        (Some(("is", _)), _) => {
            mismatch(ctx, "`is true` / `is false` apply to bool parameters");
            return None;
        }
        (Some((op, v)), d) => {
            let Some(op) = CompareOp::from_symbol(op) else {
                ctx.report(Code::InvalidValue, span, field, format!("unknown operator in `{text}`; {syntax}"));
                return None;
            };
            match d {
                ParameterDefault::Float(_) => match v.parse::<f32>() {
                    Ok(x) if x.is_finite() => ConditionTest::CompareFloat(op, x),
                    _ => {
                        ctx.report(Code::InvalidValue, span, field, format!("`{v}` is not a finite number; {syntax}"));
                        return None;
                    }
                },
                ParameterDefault::Int(_) => match v.parse::<i32>() {
                    Ok(x) => ConditionTest::CompareInt(op, x),
                    Err(_) => {
                        mismatch(ctx, &format!("compare it with an integer, not `{v}`"));
                        return None;
                    }
                },
                _ => {
                    mismatch(ctx, "comparisons apply to float and int parameters");
                    return None;
                }
            }
        }
    };
    Some(Condition { parameter: param, test })
}

#[derive(Default)]
struct StateInfo {
    name: String,
    span: Range<usize>,
    layer: usize,
}

pub(crate) fn animation_graph(
    ctx: &mut FileCtx<'_>,
    root: &mut Obj<'_, '_>,
    id: &str,
    sh: &mut Shared,
) -> Option<AnimationGraph> {
    let model = root.req_str(ctx, "model", "the skeletal model file, relative to this definition file");
    let (model_rel, model_disk) = match &model {
        Some(m) => {
            let (rel, disk) = sh.resolve_path(&ctx.rel, m.get_ref());
            sh.refer(Target::Model(disk.clone()), *m.get_ref(), ctx.at(m.span(), "model"));
            (rel, disk)
        }
        None => (String::new(), std::path::PathBuf::new()),
    };
    let entry = root.req_str(ctx, "entry", "the base layer's entry state");

    // Parameters.
    let mut params = Params { list: Vec::new() };
    let mut names = Names::new("parameter");
    for mut p in root.tables(ctx, "parameters") {
        let name = p.req_str(ctx, "name", "the parameter name");
        let ty = p.req_str(ctx, "type", "float, int, bool or trigger");
        let dv = p.raw("default");
        let dfield = p.field("default");
        p.finish(ctx);
        let (Some(name), Some(ty)) = (name, ty) else { continue };
        let default = match *ty.get_ref() {
            "float" => {
                ParameterDefault::Float(dv.map_or(Some(0.0), |v| num_of(ctx, v, &dfield, Rule::Any)).unwrap_or(0.0))
            }
            "int" => ParameterDefault::Int(
                dv.map_or(Some(0), |v| int_of(ctx, v, &dfield, i64::from(i32::MIN), i64::from(i32::MAX))).unwrap_or(0)
                    as i32,
            ),
            "bool" => ParameterDefault::Bool(
                dv.map_or(Some(false), |v| crate::defs::read::bool_of(ctx, v, &dfield)).unwrap_or(false),
            ),
            "trigger" => {
                if let Some(v) = dv {
                    ctx.report(
                        Code::ConflictingFields,
                        v.span(),
                        &dfield,
                        "a trigger has no default (it starts unset)",
                    );
                }
                ParameterDefault::Trigger
            }
            other => {
                ctx.report(
                    Code::InvalidValue,
                    ty.span(),
                    &p.field("type"),
                    format!("unknown parameter type `{other}`; expected float, int, bool or trigger"),
                );
                continue;
            }
        };
        if names.insert(ctx, name.get_ref(), name.span(), &p.field("name")) {
            params.list.push(GraphParameter { name: (*name.get_ref()).to_owned(), default });
        }
    }

    // Layers (0 = base, implicit).
    let mut layers = vec![GraphLayer {
        name: "base".into(),
        entry: StateIndex(0),
        weight: 1.0,
        blend_mode: BlendMode::Override,
        bone_mask: None,
    }];
    let mut layer_entries: Vec<Option<Spanned<String>>> =
        vec![entry.as_ref().map(|e| Spanned::new(e.span(), (*e.get_ref()).to_owned()))];
    let mut layer_entry_fields = vec!["entry".to_owned()];
    let mut names = Names::new("layer");
    names.insert(ctx, "base", 0..0, "");
    for mut l in root.tables(ctx, "layers") {
        let name = l.req_str(ctx, "name", "the layer name");
        let entry = l.req_str(ctx, "entry", "the layer's entry state");
        let weight = l.num(ctx, "weight", Rule::Unit).unwrap_or(1.0);
        let mode = blend_mode(ctx, &mut l).unwrap_or_default();
        let mask = bone_mask(ctx, &mut l, &model_disk, sh);
        l.finish(ctx);
        let Some(name) = name else { continue };
        if *name.get_ref() == "base" {
            ctx.report(
                Code::DuplicateName,
                name.span(),
                &l.field("name"),
                "`base` is the implicit base layer; pick another name",
            );
            continue;
        }
        if !names.insert(ctx, name.get_ref(), name.span(), &l.field("name")) {
            continue;
        }
        layers.push(GraphLayer {
            name: (*name.get_ref()).to_owned(),
            entry: StateIndex(0),
            weight,
            blend_mode: mode,
            bone_mask: mask,
        });
        layer_entries.push(entry.map(|e| Spanned::new(e.span(), (*e.get_ref()).to_owned())));
        layer_entry_fields.push(l.field("entry"));
    }

    // States.
    let mut states: Vec<GraphState> = Vec::new();
    let mut infos: Vec<StateInfo> = Vec::new();
    let mut explicit_loop = Vec::new();
    let mut names = Names::new("state");
    let state_tables = root.tables(ctx, "states");
    if state_tables.is_empty() {
        root.missing(ctx, "states", "at least one state");
    }
    for mut s in state_tables {
        let name = s.req_str(ctx, "name", "the state name");
        let layer_v = s.str(ctx, "layer");
        let clip = s.str(ctx, "clip");
        let tree_v = s.raw("blend_tree");
        let looping = s.bool(ctx, "loop");
        let speed = s.num(ctx, "speed", Rule::Positive).unwrap_or(1.0);
        let crossfade = match s.obj(ctx, "crossfade") {
            Some(mut c) => {
                let duration = c.num(ctx, "duration", Rule::NonNegative).unwrap_or(0.0);
                let warp = c.bool(ctx, "warp").unwrap_or(false);
                c.finish(ctx);
                Crossfade { duration, warp }
            }
            None => Crossfade::default(),
        };
        let weight = s.num(ctx, "weight", Rule::Unit);
        let mode = blend_mode(ctx, &mut s);
        let mask = bone_mask(ctx, &mut s, &model_disk, sh);
        let motion = match (clip, tree_v) {
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
                    Target::Clip { model: Some(model_disk.clone()) },
                    *c.get_ref(),
                    ctx.at(c.span(), &s.field("clip")),
                );
                Some(Motion::Clip((*c.get_ref()).to_owned()))
            }
            (None, Some(t)) => {
                let field = s.field("blend_tree");
                obj_of(ctx, t, &field)
                    .and_then(|mut t| blend_tree(ctx, &mut t, &params, &model_disk, sh))
                    .map(Motion::BlendTree)
            }
        };
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
            Some(l) => match layers.iter().position(|x| x.name == *l.get_ref()) {
                Some(i) => i,
                None => {
                    let valid: Vec<&str> = layers.iter().map(|x| x.name.as_str()).collect();
                    ctx.report(
                        Code::UnresolvedReference,
                        l.span(),
                        &s.field("layer"),
                        format!("no layer `{}`; declared: {}", l.get_ref(), valid.join(", ")),
                    );
                    0
                }
            },
        };
        // A state whose motion failed keeps its name (so transitions to it do
        // not cascade into unresolved references); the graph is dropped anyway.
        let motion = motion.unwrap_or(Motion::Clip(String::new()));
        if states.len() >= MAX_GRAPH_ITEMS {
            ctx.report(
                Code::OutOfRange,
                name.span(),
                &s.field("name"),
                format!("a graph holds at most {MAX_GRAPH_ITEMS} states"),
            );
            continue;
        }
        explicit_loop.push(looping.is_some());
        infos.push(StateInfo { name: (*name.get_ref()).to_owned(), span: name.span(), layer });
        states.push(GraphState {
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
    let find_state = |name: &str| infos.iter().position(|s| s.name == name);
    let state_names = || capped_list(infos.iter().map(|s| s.name.as_str()));

    // Layer entries.
    for (li, entry) in layer_entries.iter().enumerate() {
        let Some(e) = entry else { continue };
        match find_state(e.get_ref()) {
            Some(si) if infos[si].layer == li => layers[li].entry = StateIndex(si as u16),
            Some(si) => ctx.report(
                Code::InvalidValue,
                e.span(),
                &layer_entry_fields[li],
                format!(
                    "entry state `{}` belongs to layer `{}`, not `{}`",
                    e.get_ref(),
                    layers[infos[si].layer].name,
                    layers[li].name
                ),
            ),
            None => ctx.report(
                Code::UnresolvedReference,
                e.span(),
                &layer_entry_fields[li],
                format!(
                    "no state `{}`{}; declared: {}",
                    e.get_ref(),
                    did_you_mean(e.get_ref(), infos.iter().map(|s| s.name.as_str())),
                    state_names()
                ),
            ),
        }
    }

    // Transitions.
    let mut transitions = Vec::new();
    for mut t in root.tables(ctx, "transitions") {
        let from = t.req_str(ctx, "from", "a state name or `any`");
        let to = t.req_str(ctx, "to", "the target state");
        let conds_v = t.raw("conditions");
        let exit_time = t.num(ctx, "exit_time", Rule::Unit);
        let blend = t.num(ctx, "blend", Rule::NonNegative).unwrap_or(0.0);
        let interruption = match t.str(ctx, "interruption") {
            None => Some(Interruption::None),
            Some(v) => {
                let i = Interruption::from_name(v.get_ref());
                if i.is_none() {
                    ctx.report(
                        Code::InvalidValue,
                        v.span(),
                        &t.field("interruption"),
                        format!("unknown interruption `{}`; expected none, current or next", v.get_ref()),
                    );
                }
                i
            }
        };
        let mode = match t.str(ctx, "mode") {
            None => Some(TransitionMode::Crossfade),
            Some(v) => {
                let m = TransitionMode::from_name(v.get_ref());
                if m.is_none() {
                    ctx.report(
                        Code::InvalidValue,
                        v.span(),
                        &t.field("mode"),
                        format!("unknown mode `{}`; expected crossfade or inertialize", v.get_ref()),
                    );
                }
                m
            }
        };
        let mut conditions = Vec::new();
        let mut conds_ok = true;
        if let Some(v) = conds_v {
            let field = t.field("conditions");
            if let Some(items) = array_of(ctx, v, &field) {
                for (i, item) in items.iter().enumerate() {
                    let f = index(&field, i);
                    match name_of(ctx, item, &f).and_then(|text| condition(ctx, &params, text, item.span(), &f)) {
                        Some(c) => conditions.push(c),
                        None => conds_ok = false,
                    }
                }
            }
        }
        t.finish(ctx);
        let (Some(from), Some(to)) = (from, to) else { continue };
        let resolve = |ctx: &mut FileCtx<'_>, v: &Spanned<&str>, field: &str| -> Option<usize> {
            let r = find_state(v.get_ref());
            if r.is_none() {
                ctx.report(
                    Code::UnresolvedReference,
                    v.span(),
                    field,
                    format!(
                        "no state `{}`{}; declared: {}",
                        v.get_ref(),
                        did_you_mean(v.get_ref(), infos.iter().map(|s| s.name.as_str())),
                        state_names()
                    ),
                );
            }
            r
        };
        let to_i = resolve(ctx, &to, &t.field("to"));
        let from_s = if *from.get_ref() == "any" {
            Some(TransitionSource::Any)
        } else {
            resolve(ctx, &from, &t.field("from")).map(|i| TransitionSource::State(StateIndex(i as u16)))
        };
        let (Some(to_i), Some(from_s)) = (to_i, from_s) else { continue };
        if let TransitionSource::State(fi) = from_s
            && infos[fi.index()].layer != infos[to_i].layer
        {
            ctx.report(
                Code::InvalidValue,
                to.span(),
                &t.field("to"),
                format!(
                    "a transition stays inside one layer: `{}` is on `{}`, `{}` on `{}`",
                    from.get_ref(),
                    layers[infos[fi.index()].layer].name,
                    to.get_ref(),
                    layers[infos[to_i].layer].name
                ),
            );
            continue;
        }
        let tr = GraphTransition {
            from: from_s,
            to: StateIndex(to_i as u16),
            conditions,
            exit_time,
            blend,
            interruption: interruption.unwrap_or_default(),
            mode: mode.unwrap_or_default(),
        };
        if tr.is_unconditional() && conds_ok {
            ctx.report(
                Code::UnconditionalTransition,
                from.span(),
                &t.field("from"),
                format!(
                    "transition `{}` -> `{}` has neither exit time nor conditions, so it fires the moment `{}` is entered",
                    from.get_ref(),
                    to.get_ref(),
                    from.get_ref()
                ),
            );
        }
        transitions.push(tr);
    }

    // Reachability per layer: BFS from the layer entry; `any` transitions reach
    // their target as soon as the layer runs.
    if ctx.error_count() == 0 {
        let mut reached = vec![false; states.len()];
        let mut queue: VecDeque<usize> = layers.iter().map(|l| l.entry.index()).collect();
        for t in &transitions {
            if t.from == TransitionSource::Any {
                queue.push_back(t.to.index());
            }
        }
        let mut edges: HashMap<usize, Vec<usize>> = HashMap::new();
        for t in &transitions {
            if let TransitionSource::State(f) = t.from {
                edges.entry(f.index()).or_default().push(t.to.index());
            }
        }
        while let Some(s) = queue.pop_front() {
            if std::mem::replace(&mut reached[s], true) {
                continue;
            }
            queue.extend(edges.get(&s).into_iter().flatten().copied());
        }
        for (i, info) in infos.iter().enumerate() {
            if !reached[i] {
                ctx.report(
                    Code::UnreachableState,
                    info.span.clone(),
                    &format!("states[{}].name", i),
                    format!(
                        "state `{}` is unreachable: no transition path leads to it from the entry of layer `{}`",
                        info.name, layers[info.layer].name
                    ),
                );
            }
        }
    }
    sh.explicit_loop.insert(id.to_owned(), explicit_loop);
    model?;
    Some(AnimationGraph { id: id.to_owned(), model: model_rel, parameters: params.list, layers, states, transitions })
}

fn blend_tree(
    ctx: &mut FileCtx<'_>,
    t: &mut Obj<'_, '_>,
    params: &Params,
    model: &std::path::Path,
    sh: &mut Shared,
) -> Option<BlendTree> {
    let ty = t.req_str(ctx, "type", "`1D`, `2D` or `direct`");
    let p = t.str(ctx, "parameter");
    let py = t.str(ctx, "parameter_y");
    let children_v = t.raw("children");
    let children_field = t.field("children");
    t.finish(ctx);
    let kind = match ty.as_ref().map(|v| *v.get_ref()) {
        Some("1D") | Some("1d") => Some(BlendTreeKind::OneD),
        Some("2D") | Some("2d") => Some(BlendTreeKind::TwoD),
        Some("direct") => Some(BlendTreeKind::Direct),
        Some(other) => {
            let ty = ty.as_ref().map(|v| v.span()).unwrap_or_default();
            ctx.report(
                Code::InvalidValue,
                ty,
                &t.field("type"),
                format!("unknown blend tree type `{other}`; expected 1D, 2D or direct"),
            );
            None
        }
        None => None,
    };
    let mut children = Vec::new();
    let mut ok = true;
    match children_v {
        None => {
            t.missing(ctx, "children", "the clips this tree blends");
            ok = false;
        }
        Some(v) => {
            for (i, item) in array_of(ctx, v, &children_field).unwrap_or_default().iter().enumerate() {
                let f = index(&children_field, i);
                let Some(mut c) = obj_of(ctx, item, &f) else {
                    ok = false;
                    continue;
                };
                let clip = c.req_str(ctx, "clip", "the clip this child plays");
                let has_t = c.has("threshold");
                let threshold = c.num(ctx, "threshold", Rule::Any);
                let has_ty = c.has("threshold_y");
                let threshold_y = c.num(ctx, "threshold_y", Rule::Any);
                let has_w = c.has("weight");
                let weight = c.num(ctx, "weight", Rule::NonNegative);
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
    if !ok {
        return None;
    }
    if kind == BlendTreeKind::OneD {
        children.sort_by(|a, b| a.threshold.total_cmp(&b.threshold));
    }
    Some(BlendTree { kind, parameter, parameter_y, children })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notify_text_form() {
        assert_eq!(parse_notify("Footstep@0.35").unwrap(), ClipNotify { name: "Footstep".into(), time: 0.35 });
        assert_eq!(parse_notify("a@b@1").unwrap().name, "a@b");
        assert!(parse_notify("Footstep").unwrap_err().contains("Name@seconds"));
        assert!(parse_notify("@1").is_err());
        assert!(parse_notify("x@soon").unwrap_err().contains("`soon`"));
        assert!(parse_notify("x@inf").is_err());
    }

    #[test]
    fn condition_text_forms() {
        let params = Params {
            list: vec![
                GraphParameter { name: "speed".into(), default: ParameterDefault::Float(0.0) },
                GraphParameter { name: "n".into(), default: ParameterDefault::Int(0) },
                GraphParameter { name: "on".into(), default: ParameterDefault::Bool(false) },
                GraphParameter { name: "go".into(), default: ParameterDefault::Trigger },
            ],
        };
        let mut ctx = FileCtx::new("g.toml".into(), "");
        let mut parse = |t: &str| condition(&mut ctx, &params, t, 0..0, "c").map(|c| (c.parameter.0, c.test));
        assert_eq!(parse("speed < 1.5"), Some((0, ConditionTest::CompareFloat(CompareOp::Lt, 1.5))));
        assert_eq!(parse("speed<=2"), Some((0, ConditionTest::CompareFloat(CompareOp::Le, 2.0))));
        assert_eq!(parse(" n != -3 "), Some((1, ConditionTest::CompareInt(CompareOp::Ne, -3))));
        assert_eq!(parse("on is true"), Some((2, ConditionTest::IsTrue)));
        assert_eq!(parse("go"), Some((3, ConditionTest::Triggered)));
        assert_eq!(parse("speed => 1"), None);
        assert_eq!(parse("speed > fast"), None);
        assert_eq!(parse("n > 1.5"), None);
        assert_eq!(parse("on is maybe"), None);
        assert_eq!(parse("two words"), None);
        let codes: Vec<&str> = ctx.diags.iter().map(|d| d.code).collect();
        assert_eq!(codes, ["E010", "E010", "E018", "E010", "E010"]);
    }
}

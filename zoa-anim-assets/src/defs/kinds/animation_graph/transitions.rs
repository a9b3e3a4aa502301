//! Graph transitions: `[[transitions]]` rows, their conditions, and which
//! states a layer can reach.

use std::ops::Range;

use toml::Spanned;
use zoa_anim_core::graph::{
    AnimationGraph, CompareOp, Condition, ConditionTest, GraphTransition, Interruption, ParameterDefault, StateIndex,
    TransitionMode, TransitionSource,
};

use super::params::Params;
use super::{StateInfo, capped_list};
use crate::defs::codes::Code;
use crate::defs::diag::FileCtx;
use crate::defs::read::{Obj, Rule, Val, array_of, did_you_mean, index, name_of};
use crate::defs::spec::{Enum, Field, Table, Ty};
use zoa_anim_core::graph::GraphLayer;

/// Interruption sources, as `Interruption::from_name` reads them.
pub(crate) static INTERRUPTION: Enum =
    Enum { noun: "interruption", values: &["none", "current", "next"], aliases: &[] };
/// Transition modes, as `TransitionMode::from_name` reads them.
pub(crate) static MODE: Enum = Enum { noun: "mode", values: &["crossfade", "inertialize"], aliases: &[] };

static CONDITION: Ty = Ty::Text;

/// A `[[transitions]]` row.
pub(crate) static TABLE: Table = Table::of(&[
    Field::req(
        "from",
        Ty::Text,
        "a state name or `any`",
        "a state, or `any` (any state of the target's layer, never itself)",
    ),
    Field::req("to", Ty::Text, "the target state", "a state on the same layer"),
    Field::opt(
        "conditions",
        Ty::List(&CONDITION, 0),
        "`[]`",
        "`speed > 0.1` (`== != < > <= >=` on float/int), `grounded is true` / `is false` (bool), `jump` (trigger)",
    ),
    Field::opt("exit_time", Ty::Num(Rule::Unit), "none", "fraction of the source clip"),
    Field::opt("blend", Ty::Num(Rule::NonNegative), "`0`", "cross-fade duration").unit("s"),
    Field::opt("interruption", Ty::Enum(&INTERRUPTION), "`none`", "which transitions may interrupt this one"),
    Field::opt("mode", Ty::Enum(&MODE), "`crossfade`", ""),
]);

/// Reads every `[[transitions]]` row; `infos` and `layers` are the states and layers read before.
pub(crate) fn read(
    ctx: &mut FileCtx<'_>,
    root: &mut Obj<'_, '_>,
    params: &Params,
    infos: &[StateInfo],
    layers: &[GraphLayer],
) -> Vec<GraphTransition> {
    let mut transitions = Vec::new();
    for mut t in root.tables(ctx, "transitions") {
        let from = t.str(ctx, "from");
        let to = t.str(ctx, "to");
        let conds_v = t.raw("conditions");
        let exit_time = t.num(ctx, "exit_time");
        let blend = t.num(ctx, "blend").unwrap_or(0.0);
        let interruption = t.choice(ctx, "interruption").and_then(|v| Interruption::from_name(v.get_ref()));
        let mode = t.choice(ctx, "mode").and_then(|v| TransitionMode::from_name(v.get_ref()));
        let (conditions, conds_ok) = match conds_v {
            Some(v) => read_conditions(ctx, v, &t.field("conditions"), params),
            None => (Vec::new(), true),
        };
        t.finish(ctx);
        let (Some(from), Some(to)) = (from, to) else { continue };
        let to_i = resolve_state(ctx, infos, &to, &t.field("to"));
        let from_s = if *from.get_ref() == "any" {
            Some(TransitionSource::Any)
        } else {
            resolve_state(ctx, infos, &from, &t.field("from")).map(|i| TransitionSource::State(StateIndex(i as u16)))
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

    transitions
}

/// The `conditions` array at `field`: the conditions read, and whether every
/// item was a valid condition (each problem reported).
fn read_conditions(ctx: &mut FileCtx<'_>, v: &Val<'_>, field: &str, params: &Params) -> (Vec<Condition>, bool) {
    let mut conditions = Vec::new();
    let mut ok = true;
    if let Some(items) = array_of(ctx, v, field) {
        for (i, item) in items.iter().enumerate() {
            let f = index(field, i);
            match name_of(ctx, item, &f).and_then(|text| condition(ctx, params, text, item.span(), &f)) {
                Some(c) => conditions.push(c),
                None => ok = false,
            }
        }
    }
    (conditions, ok)
}

/// The index of the state named `v` in `infos`; an unknown name is reported at `field`.
fn resolve_state(ctx: &mut FileCtx<'_>, infos: &[StateInfo], v: &Spanned<&str>, field: &str) -> Option<usize> {
    let r = infos.iter().position(|s| s.name == *v.get_ref());
    if r.is_none() {
        ctx.report(
            Code::UnresolvedReference,
            v.span(),
            field,
            format!(
                "no state `{}`{}; declared: {}",
                v.get_ref(),
                did_you_mean(v.get_ref(), infos.iter().map(|s| s.name.as_str())),
                capped_list(infos.iter().map(|s| s.name.as_str()))
            ),
        );
    }
    r
}

/// Reports every state no transition path reaches from its layer's entry
/// (W003), by the core's one rule ([`AnimationGraph::reachable_states`]:
/// entering a sub-state machine enters its entry, its transitions leave from
/// the states inside it).
pub(crate) fn check_reachable(ctx: &mut FileCtx<'_>, graph: &AnimationGraph, infos: &[StateInfo]) {
    let reached = graph.reachable_states();
    for (i, info) in infos.iter().enumerate() {
        if !reached[i] {
            ctx.report(
                Code::UnreachableState,
                info.span.clone(),
                &format!("states[{}].name", i),
                format!(
                    "state `{}` is unreachable: no transition path leads to it from the entry of layer `{}`",
                    info.name, graph.layers[info.layer].name
                ),
            );
        }
    }
}

/// A transition condition's text split into its parameter name and, unless
/// it is a bare trigger name, its test (`("is", "true")`, `(">=", "1.5")`),
/// each trimmed; nothing is checked. The one reading of the condition syntax
/// (the reader checks what it splits; the Workbench renames parameters with it).
#[must_use]
pub fn split_condition(text: &str) -> (&str, Option<(&str, &str)>) {
    let text = text.trim();
    if let Some((n, rest)) = text.split_once(" is ") {
        (n.trim(), Some(("is", rest.trim())))
    } else if let Some(pos) = text.find(['<', '>', '=', '!']) {
        let (n, rest) = text.split_at(pos);
        let op_len = if rest[1..].starts_with('=') { 2 } else { 1 };
        (n.trim(), Some((&rest[..op_len], rest[op_len..].trim())))
    } else {
        (text, None)
    }
}

/// A condition written as text: `speed > 0.1`, `grounded is true`, `jump`.
fn condition(ctx: &mut FileCtx<'_>, params: &Params, text: &str, span: Range<usize>, field: &str) -> Option<Condition> {
    let text = text.trim();
    let (name, test_text) = split_condition(text);
    let syntax =
        "expected `param OP number` (OP one of == != < > <= >=), `param is true`, `param is false` or a trigger name";
    if name.is_empty() || name.contains(char::is_whitespace) {
        ctx.report(Code::InvalidValue, span, field, format!("cannot read condition `{text}`; {syntax}"));
        return None;
    }
    let Some((param, default)) = params.find(name) else {
        params.unknown(ctx, name, span, field);
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

#[cfg(test)]
mod tests {
    use super::*;
    use zoa_anim_core::graph::GraphParameter;

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

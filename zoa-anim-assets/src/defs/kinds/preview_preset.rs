//! `preview_preset`: a scripted sequence of gameplay actions the previewer plays.

use toml::de::DeValue;
use zoa_anim_core::preview::{BindingValue, PreviewPreset, PreviewStep};
use zoa_anim_core::{AnimationBindingId, AnimationParameterType, AnimationSlotId, DefaultBindings, StateTagSet};

use crate::defs::codes::Code;
use crate::defs::diag::FileCtx;
use crate::defs::read::{Obj, Rule, Val, int_of, num_of, str_of};
use crate::defs::spec::{Constraint, Field, KindSpec, Table, Ty};
use crate::defs::{Kind, Shared, Target};

static STEP: Table = Table {
    fields: &[
        Field::opt(
            "set",
            Ty::Id,
            "",
            "binding id to set; the binding exists in a binding profile with a matching type",
        ),
        Field::opt(
            "value",
            Ty::Either(&[Ty::Bool, Ty::Num(Rule::Any)]),
            "",
            "the value for `set` (bool, int or float)",
        ),
        Field::opt("fire", Ty::Id, "", "a trigger binding of some binding profile"),
        Field::opt("play_slot", Ty::Id, "", "a slot of some binding profile"),
        Field::opt(
            "play_state",
            Ty::Str,
            "",
            "forces a state (by name) of the graph the character uses; some animation_graph of the folder has it",
        ),
        Field::opt(
            "blend",
            Ty::Num(Rule::NonNegative),
            "the state's cross-fade",
            "cross-fade of `play_state` (0 cuts)",
        )
        .unit("s"),
        Field::opt("tags", Ty::Str, "", "state text that replaces the active state"),
        Field::opt("wait", Ty::Num(Rule::NonNegative), "", "time to wait").unit("s"),
    ],
    constraints: &[Constraint::OneOf(&[
        &["set", "value"],
        &["fire"],
        &["play_slot"],
        &["play_state"],
        &["tags"],
        &["wait"],
    ])],
};

/// The description of `preview_preset`.
pub(crate) static SPEC: KindSpec = KindSpec {
    kind: Kind::PreviewPreset,
    produces: "[`zoa_anim_core::preview::PreviewPreset`]",
    intro: "",
    table: Table::of(&[
        Field::opt("name", Ty::Text, "the id", "display name"),
        Field::req("steps", Ty::Rows(&STEP), "an array of steps", "each step has exactly one action (E019)"),
    ]),
    notes: "",
};

const STEP_ACTIONS: [&str; 6] = ["set", "fire", "play_slot", "play_state", "tags", "wait"];

pub(crate) fn read(ctx: &mut FileCtx<'_>, root: &mut Obj<'_, '_>, id: &str, sh: &mut Shared) -> Option<PreviewPreset> {
    let name = root.str(ctx, "name").map(|s| (*s.get_ref()).to_owned()).unwrap_or_else(|| id.to_owned());
    let mut steps = Vec::new();
    for mut s in root.tables(ctx, "steps") {
        steps.extend(read_step(ctx, &mut s, sh));
    }
    let preset = PreviewPreset { id: id.to_owned(), name, steps };
    // Budgets and the summed duration (core's rules, the ones `preview` applies).
    let problems = preset.problems();
    if !problems.is_empty() {
        let span = root.table.iter().find(|(k, _)| k.get_ref().as_ref() == "steps").map(|(_, v)| v.span());
        let span = span.unwrap_or_else(|| root.span.clone());
        for p in problems {
            ctx.report(Code::OutOfRange, span.clone(), "steps", p);
        }
    }
    Some(preset)
}

/// One step: exactly one action (`value` only with `set`). `None` when the
/// step has a problem (reported).
fn read_step(ctx: &mut FileCtx<'_>, s: &mut Obj<'_, '_>, sh: &mut Shared) -> Option<PreviewStep> {
    let present: Vec<&str> = STEP_ACTIONS.iter().copied().filter(|a| s.has(a)).collect();
    let set = s.raw("set");
    let value = s.raw("value");
    let fire = s.raw("fire");
    let slot = s.raw("play_slot");
    let state = s.raw("play_state");
    let blend = s.raw("blend");
    let tags = s.raw("tags");
    let wait = s.raw("wait");
    s.finish(ctx);
    if present.len() != 1 {
        if present.is_empty() {
            s.missing(ctx, "set", "a step needs exactly one of: set, fire, play_slot, play_state, tags, wait");
        } else {
            let second = s.table.iter().find(|(k, _)| k.get_ref().as_ref() == present[1]).map(|(k, _)| k.span());
            ctx.report(
                Code::ConflictingFields,
                second.unwrap_or(s.span.clone()),
                &s.field(present[1]),
                format!("a step does one thing; found {}", present.join(" and ")),
            );
        }
        return None;
    }
    if let (Some(v), None) = (value, set) {
        ctx.report(Code::ConflictingFields, v.span(), &s.field("value"), "`value` belongs to a `set` step only");
        return None;
    }
    if let (Some(v), None) = (blend, state) {
        ctx.report(Code::ConflictingFields, v.span(), &s.field("blend"), "`blend` belongs to a `play_state` step only");
        return None;
    }
    if let Some(v) = set {
        set_step(ctx, s, v, value, sh)
    } else if let Some(v) = fire {
        let field = s.field("fire");
        let binding = str_of(ctx, v, &field)?;
        let Ok(bid) = AnimationBindingId::new(binding) else {
            ctx.report(Code::InvalidValue, v.span(), &field, format!("invalid binding id `{binding}`"));
            return None;
        };
        sh.refer(Target::Binding(Some(AnimationParameterType::Trigger)), binding, ctx.at(v.span(), &field));
        Some(PreviewStep::Fire { binding: bid })
    } else if let Some(v) = slot {
        let field = s.field("play_slot");
        let name = str_of(ctx, v, &field)?;
        let Ok(sid) = AnimationSlotId::new(name) else {
            ctx.report(Code::InvalidValue, v.span(), &field, format!("invalid slot id `{name}`"));
            return None;
        };
        sh.refer(Target::Slot, name, ctx.at(v.span(), &field));
        Some(PreviewStep::PlaySlot { slot: sid })
    } else if let Some(v) = state {
        let field = s.field("play_state");
        let name = str_of(ctx, v, &field)?;
        let blend = match blend {
            Some(b) => Some(s.num_value(ctx, "blend", b)?),
            None => None,
        };
        sh.refer(Target::GraphState, name, ctx.at(v.span(), &field));
        Some(PreviewStep::PlayState { state: name.to_owned(), blend })
    } else if let Some(v) = tags {
        let field = s.field("tags");
        let text = str_of(ctx, v, &field)?;
        match StateTagSet::parse(text) {
            Ok(t) => Some(PreviewStep::SetTags { tags: t }),
            Err(e) => {
                ctx.report(Code::InvalidValue, v.span(), &field, e.to_string());
                None
            }
        }
    } else if let Some(v) = wait {
        let seconds = s.num_value(ctx, "wait", v)?;
        Some(PreviewStep::Wait { seconds })
    } else {
        None
    }
}

/// A `set` step: binding `v` and its `value` (a bool, an int, or a float;
/// an integer is a float for a shipped float binding).
fn set_step(
    ctx: &mut FileCtx<'_>,
    s: &mut Obj<'_, '_>,
    v: &Val<'_>,
    value: Option<&Val<'_>>,
    sh: &mut Shared,
) -> Option<PreviewStep> {
    let field = s.field("set");
    let binding = str_of(ctx, v, &field)?;
    let Ok(bid) = AnimationBindingId::new(binding) else {
        ctx.report(Code::InvalidValue, v.span(), &field, format!("invalid binding id `{binding}`"));
        return None;
    };
    let Some(value) = value else {
        s.missing(ctx, "value", "the bool, int or float to set");
        return None;
    };
    let vfield = s.field("value");
    let shipped = DefaultBindings::ALL.iter().find(|(d, _)| *d == bid).map(|(_, t)| *t);
    let (bv, ty) = match value.get_ref() {
        DeValue::Boolean(b) => (BindingValue::Bool(*b), AnimationParameterType::Bool),
        DeValue::Integer(_) if shipped != Some(AnimationParameterType::Float) => {
            let n = int_of(ctx, value, &vfield, i64::from(i32::MIN), i64::from(i32::MAX))?;
            (BindingValue::Int(n as i32), AnimationParameterType::Int)
        }
        DeValue::Integer(_) | DeValue::Float(_) => {
            let f = num_of(ctx, value, &vfield, Rule::Any)?;
            (BindingValue::Float(f), AnimationParameterType::Float)
        }
        _ => {
            ctx.report(Code::WrongType, value.span(), &vfield, "expected a boolean, an integer or a float");
            return None;
        }
    };
    sh.refer(Target::Binding(Some(ty)), binding, ctx.at(v.span(), &field));
    Some(PreviewStep::Set { binding: bid, value: bv })
}

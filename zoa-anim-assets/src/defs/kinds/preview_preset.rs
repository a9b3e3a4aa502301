//! `preview_preset`: a scripted sequence of gameplay actions the previewer plays.

use toml::de::DeValue;
use zoa_anim_core::preview::{BindingValue, PreviewPreset, PreviewStep};
use zoa_anim_core::{AnimationBindingId, AnimationParameterType, AnimationSlotId, DefaultBindings, StateTagSet};

use crate::defs::codes::Code;
use crate::defs::diag::FileCtx;
use crate::defs::read::{Obj, Rule, int_of, num_of, str_of};
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
        Field::opt("tags", Ty::Str, "", "state text that replaces the active state"),
        Field::opt("wait", Ty::Num(Rule::NonNegative), "", "time to wait").unit("s"),
    ],
    constraints: &[Constraint::OneOf(&[&["set", "value"], &["fire"], &["play_slot"], &["tags"], &["wait"]])],
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

const STEP_ACTIONS: [&str; 5] = ["set", "fire", "play_slot", "tags", "wait"];

pub(crate) fn read(ctx: &mut FileCtx<'_>, root: &mut Obj<'_, '_>, id: &str, sh: &mut Shared) -> Option<PreviewPreset> {
    let name = root.str(ctx, "name").map(|s| (*s.get_ref()).to_owned()).unwrap_or_else(|| id.to_owned());
    let mut steps = Vec::new();
    for mut s in root.tables(ctx, "steps") {
        let present: Vec<&str> = STEP_ACTIONS.iter().copied().filter(|a| s.has(a)).collect();
        let set = s.raw("set");
        let value = s.raw("value");
        let fire = s.raw("fire");
        let slot = s.raw("play_slot");
        let tags = s.raw("tags");
        let wait = s.raw("wait");
        s.finish(ctx);
        if present.len() != 1 {
            if present.is_empty() {
                s.missing(ctx, "set", "a step needs exactly one of: set, fire, play_slot, tags, wait");
            } else {
                let second = s.table.iter().find(|(k, _)| k.get_ref().as_ref() == present[1]).map(|(k, _)| k.span());
                ctx.report(
                    Code::ConflictingFields,
                    second.unwrap_or(s.span.clone()),
                    &s.field(present[1]),
                    format!("a step does one thing; found {}", present.join(" and ")),
                );
            }
            continue;
        }
        if let (Some(v), None) = (value, set) {
            ctx.report(Code::ConflictingFields, v.span(), &s.field("value"), "`value` belongs to a `set` step only");
            continue;
        }
        let step = if let Some(v) = set {
            let field = s.field("set");
            let Some(binding) = str_of(ctx, v, &field) else { continue };
            let Ok(bid) = AnimationBindingId::new(binding) else {
                ctx.report(Code::InvalidValue, v.span(), &field, format!("invalid binding id `{binding}`"));
                continue;
            };
            let Some(value) = value else {
                s.missing(ctx, "value", "the bool, int or float to set");
                continue;
            };
            let vfield = s.field("value");
            let shipped = DefaultBindings::ALL.iter().find(|(d, _)| *d == bid).map(|(_, t)| *t);
            let (bv, ty) = match value.get_ref() {
                DeValue::Boolean(b) => (BindingValue::Bool(*b), AnimationParameterType::Bool),
                DeValue::Integer(_) if shipped != Some(AnimationParameterType::Float) => {
                    let Some(n) = int_of(ctx, value, &vfield, i64::from(i32::MIN), i64::from(i32::MAX)) else {
                        continue;
                    };
                    (BindingValue::Int(n as i32), AnimationParameterType::Int)
                }
                DeValue::Integer(_) | DeValue::Float(_) => {
                    let Some(f) = num_of(ctx, value, &vfield, Rule::Any) else { continue };
                    (BindingValue::Float(f), AnimationParameterType::Float)
                }
                _ => {
                    ctx.report(Code::WrongType, value.span(), &vfield, "expected a boolean, an integer or a float");
                    continue;
                }
            };
            sh.refer(Target::Binding(Some(ty)), binding, ctx.at(v.span(), &field));
            PreviewStep::Set { binding: bid, value: bv }
        } else if let Some(v) = fire {
            let field = s.field("fire");
            let Some(binding) = str_of(ctx, v, &field) else { continue };
            let Ok(bid) = AnimationBindingId::new(binding) else {
                ctx.report(Code::InvalidValue, v.span(), &field, format!("invalid binding id `{binding}`"));
                continue;
            };
            sh.refer(Target::Binding(Some(AnimationParameterType::Trigger)), binding, ctx.at(v.span(), &field));
            PreviewStep::Fire { binding: bid }
        } else if let Some(v) = slot {
            let field = s.field("play_slot");
            let Some(name) = str_of(ctx, v, &field) else { continue };
            let Ok(sid) = AnimationSlotId::new(name) else {
                ctx.report(Code::InvalidValue, v.span(), &field, format!("invalid slot id `{name}`"));
                continue;
            };
            sh.refer(Target::Slot, name, ctx.at(v.span(), &field));
            PreviewStep::PlaySlot { slot: sid }
        } else if let Some(v) = tags {
            let field = s.field("tags");
            let Some(text) = str_of(ctx, v, &field) else { continue };
            match StateTagSet::parse(text) {
                Ok(t) => PreviewStep::SetTags { tags: t },
                Err(e) => {
                    ctx.report(Code::InvalidValue, v.span(), &field, e.to_string());
                    continue;
                }
            }
        } else if let Some(v) = wait {
            let Some(seconds) = s.num_value(ctx, "wait", v) else { continue };
            PreviewStep::Wait { seconds }
        } else {
            continue;
        };
        steps.push(step);
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

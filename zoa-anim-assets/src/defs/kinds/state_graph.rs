//! `state_graph`: per state dimension, how long a state holds and how changes blend.

use toml::de::DeValue;
use zoa_anim_core::timing::MAX_GAITS;
use zoa_anim_core::{GaitSpeeds, LocomotionTag, StateDimension, StateGraph, TransitionPolicy, TransitionTrigger};

use crate::defs::codes::Code;
use crate::defs::diag::FileCtx;
use crate::defs::read::{Obj, Rule, did_you_mean, num_of};
use crate::defs::spec::{Enum, Field, KindSpec, Table, Ty};
use crate::defs::{Kind, Shared};

/// What starts a change, as `TransitionTrigger::from_name` reads it.
pub(crate) static TRIGGER: Enum =
    Enum { noun: "trigger", values: &["on_tag_change", "on_event", "on_input_threshold"], aliases: &[] };

static POLICY: Table = Table::of(&[
    Field::opt("min_hold_seconds", Ty::Num(Rule::NonNegative), "shipped", "").unit("s"),
    Field::opt("crossfade_seconds", Ty::Num(Rule::NonNegative), "shipped", "0 cuts").unit("s"),
    Field::opt("trigger", Ty::Enum(&TRIGGER), "shipped", "what starts a change"),
]);

static GAIT_SPEED: Ty = Ty::Num(Rule::NonNegative);

/// The description of `state_graph`.
pub(crate) static SPEC: KindSpec = KindSpec {
    kind: Kind::StateGraph,
    produces: "[`zoa_anim_core::StateGraph`]",
    intro: "A table per dimension to override (`[locomotion]`, `[posture]`, `[combat]`, `[interaction]`, \
            `[reaction]`, `[mood]`); fields left out keep the shipped default of that dimension. `gaits` sets the \
            entity speeds locomotion's `on_input_threshold` trigger compares with: \
            `gaits = { walk = 0.5, run = 2.5, sprint = 5.0 }` (the shipped bands; idle below the first).",
    table: Table::of(&[
        Field::opt("<dimension>", Ty::Table(&POLICY), "shipped", "the dimension's transition policy").per_dimension(),
        Field::opt(
            "gaits",
            Ty::Map(&GAIT_SPEED),
            "`{ walk = 0.5, run = 2.5, sprint = 5.0 }`",
            "locomotion tag → entity speed where that gait begins (idle below the first)",
        )
        .unit("m/s"),
        Field::opt("gait_dead_band", Ty::Num(Rule::NonNegative), "`0.2`", "dead band around each gait boundary")
            .unit("m/s"),
    ]),
    notes: "",
};

pub(crate) fn read(ctx: &mut FileCtx<'_>, root: &mut Obj<'_, '_>, id: &str, _sh: &mut Shared) -> Option<StateGraph> {
    let mut policies = Vec::new();
    for dim in StateDimension::ALL {
        let Some(mut t) = root.obj(ctx, dim.name()) else { continue };
        let mut p = TransitionPolicy::default_for(dim);
        if let Some(v) = t.num(ctx, "min_hold_seconds") {
            p.min_hold_seconds = v;
        }
        if let Some(v) = t.num(ctx, "crossfade_seconds") {
            p.crossfade_seconds = v;
        }
        if let Some(trig) = t.choice(ctx, "trigger").and_then(|v| TransitionTrigger::from_name(v.get_ref())) {
            p.trigger = trig;
        }
        t.finish(ctx);
        policies.push(p);
    }
    let mut gaits = GaitSpeeds::default();
    if let Some(starts) = read_gaits(ctx, root) {
        gaits.starts = starts;
    }
    if let Some(v) = root.num(ctx, "gait_dead_band") {
        gaits.dead_band = v;
    }
    Some(StateGraph { id: id.to_owned(), policies, gaits })
}

fn gait_name(tag: LocomotionTag) -> String {
    StateDimension::Locomotion.flags().find(|(_, b)| *b == tag.bits()).map_or_else(String::new, |(n, _)| n)
}

/// `gaits = { walk = 0.5, … }`: each key a locomotion tag, each value its
/// starting speed; returned ascending by speed. Speeds must differ.
fn read_gaits(ctx: &mut FileCtx<'_>, root: &mut Obj<'_, '_>) -> Option<Vec<(LocomotionTag, f32)>> {
    let v = root.raw("gaits")?;
    let field = root.field("gaits");
    let DeValue::Table(t) = v.get_ref() else {
        ctx.report(Code::WrongType, v.span(), &field, "expected a table of locomotion tag → speed in m/s");
        return None;
    };
    let names: Vec<String> = StateDimension::Locomotion.flags().map(|(n, _)| n).collect();
    let mut starts: Vec<(LocomotionTag, f32)> = Vec::new();
    for (key, value) in t.iter() {
        let f = format!("{field}.{}", key.get_ref());
        let name: &str = key.get_ref();
        let tag = StateDimension::Locomotion.parse_flag(name).ok().map(LocomotionTag::from_bits_truncate);
        let Some(tag) = tag.filter(|t| *t != LocomotionTag::IDLE) else {
            let why = if name == "idle" { "idle is the band below the first gait; it has no speed" } else { "" };
            ctx.report(
                Code::InvalidValue,
                key.span(),
                &f,
                format!(
                    "`{name}` is not a gait: expected a locomotion tag other than idle{}{}",
                    did_you_mean(name, names.iter().map(String::as_str)),
                    if why.is_empty() { String::new() } else { format!(" ({why})") }
                ),
            );
            continue;
        };
        let Some(speed) = num_of(ctx, value, &f, Rule::NonNegative) else { continue };
        if let Some((other, _)) = starts.iter().find(|(_, s)| *s == speed) {
            ctx.report(
                Code::InvalidValue,
                value.span(),
                &f,
                format!(
                    "gait `{name}` starts at {speed} m/s like `{}`; each gait needs its own speed",
                    gait_name(*other)
                ),
            );
            continue;
        }
        starts.push((tag, speed));
    }
    if starts.len() > MAX_GAITS {
        ctx.report(Code::OutOfRange, v.span(), &field, format!("at most {MAX_GAITS} gaits, found {}", starts.len()));
        starts.truncate(MAX_GAITS);
    }
    starts.sort_by(|a, b| a.1.total_cmp(&b.1));
    Some(starts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn triggers_are_the_cores() {
        for v in TRIGGER.values {
            assert!(TransitionTrigger::from_name(v).is_some(), "{v}");
        }
    }
}

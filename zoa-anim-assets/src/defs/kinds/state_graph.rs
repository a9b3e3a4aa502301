//! `state_graph`: per state dimension, how long a state holds and how changes blend.

use zoa_anim_core::{StateDimension, StateGraph, TransitionPolicy, TransitionTrigger};

use crate::defs::diag::FileCtx;
use crate::defs::read::{Obj, Rule};
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

/// The description of `state_graph`.
pub(crate) static SPEC: KindSpec = KindSpec {
    kind: Kind::StateGraph,
    produces: "[`zoa_anim_core::StateGraph`]",
    intro: "A table per dimension to override (`[locomotion]`, `[posture]`, `[combat]`, `[interaction]`, \
            `[reaction]`, `[mood]`); fields left out keep the shipped default of that dimension.",
    table: Table::of(&[
        Field::opt("<dimension>", Ty::Table(&POLICY), "shipped", "the dimension's transition policy").per_dimension()
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
    Some(StateGraph { id: id.to_owned(), policies })
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

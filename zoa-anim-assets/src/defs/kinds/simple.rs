//! binding_profile, state_graph, rig_policy, player_profile_set, preview_preset.

use std::collections::HashMap;

use toml::de::DeValue;
use zoa_anim_core::preview::{BindingValue, PreviewPreset, PreviewStep};
use zoa_anim_core::{
    AnimationBindingId, AnimationParameterType, AnimationSlotId, BindingProfile, BindingProfileBuilder,
    DefaultBindings, DefaultSlots, PlayerProfileEntry, PlayerProfileSet, PlayerProfileType, RigPolicy, StateDimension,
    StateGraph, StateTagSet, TransitionPolicy, TransitionTrigger,
};

use crate::defs::codes::Code;
use crate::defs::diag::FileCtx;
use crate::defs::read::{Obj, Rule, int_of, num_of, str_of};
use crate::defs::{Kind, Shared, Target};

/// Tracks names inside one definition and reports the second use (E017).
pub(crate) struct Names {
    seen: HashMap<String, (usize, usize)>,
    what: &'static str,
}

impl Names {
    pub(crate) fn new(what: &'static str) -> Self {
        Names { seen: HashMap::new(), what }
    }
    /// Returns false (and reports) when `name` was used before.
    pub(crate) fn insert(
        &mut self,
        ctx: &mut FileCtx<'_>,
        name: &str,
        span: std::ops::Range<usize>,
        field: &str,
    ) -> bool {
        let (line, col) = ctx.line_col(span.start);
        if let Some((l, c)) = self.seen.get(name) {
            ctx.report(
                Code::DuplicateName,
                span,
                field,
                format!("{} `{name}` is already defined at line {l}, column {c}", self.what),
            );
            return false;
        }
        self.seen.insert(name.to_owned(), (line, col));
        true
    }
}

pub(crate) fn binding_profile(
    ctx: &mut FileCtx<'_>,
    root: &mut Obj<'_, '_>,
    id: &str,
    sh: &mut Shared,
) -> Option<BindingProfile> {
    let display = root.str(ctx, "display_name").map(|s| (*s.get_ref()).to_owned()).unwrap_or_else(|| id.to_owned());
    let mut builder = BindingProfileBuilder::new(id, display);
    let mut names = Names::new("binding");
    for mut b in root.tables(ctx, "bindings") {
        let bid = b.req_str(ctx, "id", "a binding id such as `fire` or `is_aiming`");
        let param = b.req_str(ctx, "parameter", "the rig's parameter name");
        let ty = b.req_str(ctx, "type", "`trigger`, `bool`, `float` or `int`");
        let layer = b.int(ctx, "layer", -1, i64::from(i32::MAX)).unwrap_or(-1) as i32;
        b.finish(ctx);
        let ty = ty.and_then(|t| match AnimationParameterType::from_name(t.get_ref()) {
            Some(ty) => Some((ty, t.span())),
            None => {
                ctx.report(
                    Code::InvalidValue,
                    t.span(),
                    &b.field("type"),
                    format!("unknown parameter type `{}`; expected trigger, bool, float or int", t.get_ref()),
                );
                None
            }
        });
        let Some(bid) = bid else { continue };
        let field = b.field("id");
        let parsed = match AnimationBindingId::new(bid.get_ref()) {
            Ok(p) => p,
            Err(e) => {
                ctx.report(Code::InvalidValue, bid.span(), &field, e.to_string());
                continue;
            }
        };
        if !names.insert(ctx, bid.get_ref(), bid.span(), &field) {
            continue;
        }
        match DefaultBindings::ALL.iter().find(|(d, _)| *d == parsed) {
            None => ctx.report(
                Code::CustomId,
                bid.span(),
                &field,
                format!(
                    "`{}` is not a shipped binding id; profiles on custom ids do not transfer to other rigs",
                    bid.get_ref()
                ),
            ),
            Some((_, shipped)) => {
                if let Some((ty, span)) = &ty
                    && ty != shipped
                {
                    ctx.report(
                        Code::TypeMismatch,
                        span.clone(),
                        &b.field("type"),
                        format!("the shipped binding `{}` is a {shipped}, not a {ty}", bid.get_ref()),
                    );
                }
            }
        }
        if let (Some(param), Some((ty, _))) = (param, ty) {
            builder = builder.add_binding(parsed, *param.get_ref(), ty, layer);
        }
    }
    let mut names = Names::new("slot");
    for mut s in root.tables(ctx, "slots") {
        let sid = s.req_str(ctx, "id", "a slot id such as `reload_magazine`");
        let clip = s.req_str(ctx, "clip", "the clip reference this slot plays");
        let speed = s.num(ctx, "speed", Rule::Positive).unwrap_or(1.0);
        let additive = s.bool(ctx, "additive").unwrap_or(false);
        s.finish(ctx);
        let Some(sid) = sid else { continue };
        let field = s.field("id");
        let parsed = match AnimationSlotId::new(sid.get_ref()) {
            Ok(p) => p,
            Err(e) => {
                ctx.report(Code::InvalidValue, sid.span(), &field, e.to_string());
                continue;
            }
        };
        if !names.insert(ctx, sid.get_ref(), sid.span(), &field) {
            continue;
        }
        if !DefaultSlots::ALL.contains(&parsed) {
            ctx.report(
                Code::CustomId,
                sid.span(),
                &field,
                format!(
                    "`{}` is not a shipped slot id; profiles on custom ids do not transfer to other rigs",
                    sid.get_ref()
                ),
            );
        }
        if let Some(clip) = clip {
            sh.refer(Target::Clip { model: None }, *clip.get_ref(), ctx.at(clip.span(), &s.field("clip")));
            builder = builder.add_slot_with(parsed, *clip.get_ref(), speed, additive);
        }
    }
    // Everything the builder checks was checked above with positions; a
    // builder error here means a rule slipped through, so report it rather
    // than drop it silently.
    match builder.build() {
        Ok(p) => Some(p),
        Err(e) => {
            ctx.report(Code::InvalidValue, root.span.start..root.span.start, "", e.to_string());
            None
        }
    }
}

pub(crate) fn state_graph(
    ctx: &mut FileCtx<'_>,
    root: &mut Obj<'_, '_>,
    id: &str,
    _sh: &mut Shared,
) -> Option<StateGraph> {
    let mut policies = Vec::new();
    for dim in StateDimension::ALL {
        let Some(mut t) = root.obj(ctx, dim.name()) else { continue };
        let mut p = TransitionPolicy::default_for(dim);
        if let Some(v) = t.num(ctx, "min_hold_seconds", Rule::NonNegative) {
            p.min_hold_seconds = v;
        }
        if let Some(v) = t.num(ctx, "crossfade_seconds", Rule::NonNegative) {
            p.crossfade_seconds = v;
        }
        if let Some(v) = t.str(ctx, "trigger") {
            match TransitionTrigger::from_name(v.get_ref()) {
                Some(trig) => p.trigger = trig,
                None => ctx.report(
                    Code::InvalidValue,
                    v.span(),
                    &t.field("trigger"),
                    format!(
                        "unknown trigger `{}`; expected on_tag_change, on_event or on_input_threshold",
                        v.get_ref()
                    ),
                ),
            }
        }
        t.finish(ctx);
        policies.push(p);
    }
    Some(StateGraph { id: id.to_owned(), policies })
}

pub(crate) fn rig_policy(
    ctx: &mut FileCtx<'_>,
    root: &mut Obj<'_, '_>,
    id: &str,
    _sh: &mut Shared,
) -> Option<RigPolicy> {
    let mut p = RigPolicy { id: id.to_owned(), ..RigPolicy::default() };
    macro_rules! flag {
        ($name:ident) => {
            if let Some(v) = root.bool(ctx, stringify!($name)) {
                p.$name = v;
            }
        };
    }
    macro_rules! number {
        ($name:ident, $rule:expr) => {
            if let Some(v) = root.num(ctx, stringify!($name), $rule) {
                p.$name = v;
            }
        };
    }
    flag!(foot_plant);
    flag!(look_at);
    flag!(hand_on_weapon);
    flag!(climb_hand);
    flag!(allow_procedural_fallback);
    number!(foot_plant_blend_in_speed, Rule::Unit);
    number!(look_at_fov_degrees, Rule::Between(0.0, 180.0));
    number!(breath_frequency, Rule::NonNegative);
    number!(breath_amplitude, Rule::NonNegative);
    number!(head_bob_amplitude, Rule::NonNegative);
    if let Some(v) = root.raw("bone_overrides") {
        let field = root.field("bone_overrides");
        match v.get_ref() {
            DeValue::Table(t) => {
                for (role, bone) in t.iter() {
                    let f = format!("{field}.{}", role.get_ref());
                    if let Some(b) = crate::defs::read::name_of(ctx, bone, &f) {
                        p.bone_overrides.push(((*role.get_ref()).to_string(), b.to_owned()));
                    }
                }
            }
            _ => ctx.report(Code::WrongType, v.span(), &field, "expected a table of role = \"bone name\""),
        }
    }
    Some(p)
}

pub(crate) fn player_profile_set(
    ctx: &mut FileCtx<'_>,
    root: &mut Obj<'_, '_>,
    id: &str,
    sh: &mut Shared,
) -> Option<PlayerProfileSet> {
    let class_names = || PlayerProfileType::ALL.map(|t| t.name()).join(", ");
    let default = root.req_str(ctx, "default_profile", "the weapon class used when a class has no entry");
    let default_class = default.as_ref().and_then(|d| match PlayerProfileType::from_name(d.get_ref()) {
        Some(c) => Some(c),
        None => {
            ctx.report(
                Code::InvalidValue,
                d.span(),
                "default_profile",
                format!("unknown weapon class `{}`; expected one of: {}", d.get_ref(), class_names()),
            );
            None
        }
    });
    let mut names = Names::new("weapon class");
    let mut profiles = Vec::new();
    for mut e in root.tables(ctx, "profiles") {
        let class = e.req_str(ctx, "class", "a weapon class");
        let binding = e.req_str(ctx, "binding_profile", "a binding_profile id");
        let anim = e.str(ctx, "animation_profile");
        let graph = e.str(ctx, "animation_graph");
        e.finish(ctx);
        for (v, kind, key) in [
            (&binding, Kind::BindingProfile, "binding_profile"),
            (&anim, Kind::AnimationProfile, "animation_profile"),
            (&graph, Kind::AnimationGraph, "animation_graph"),
        ] {
            if let Some(v) = v {
                sh.refer(Target::Def(kind), *v.get_ref(), ctx.at(v.span(), &e.field(key)));
            }
        }
        let Some(class) = class else { continue };
        let Some(c) = PlayerProfileType::from_name(class.get_ref()) else {
            ctx.report(
                Code::InvalidValue,
                class.span(),
                &e.field("class"),
                format!("unknown weapon class `{}`; expected one of: {}", class.get_ref(), class_names()),
            );
            continue;
        };
        if !names.insert(ctx, class.get_ref(), class.span(), &e.field("class")) {
            continue;
        }
        if let Some(binding) = binding {
            profiles.push(PlayerProfileEntry {
                class: c,
                binding_profile: (*binding.get_ref()).to_owned(),
                animation_profile: anim.map(|a| (*a.get_ref()).to_owned()),
                animation_graph: graph.map(|g| (*g.get_ref()).to_owned()),
            });
        }
    }
    let (default, default_class) = (default?, default_class?);
    if !profiles.iter().any(|p| p.class == default_class) {
        ctx.report(
            Code::UnresolvedReference,
            default.span(),
            "default_profile",
            format!("no entry in `profiles` has class `{}`; the default class needs an entry", default.get_ref()),
        );
        return None;
    }
    Some(PlayerProfileSet { id: id.to_owned(), default_profile: default_class, profiles })
}

const STEP_ACTIONS: [&str; 5] = ["set", "fire", "play_slot", "tags", "wait"];

pub(crate) fn preview_preset(
    ctx: &mut FileCtx<'_>,
    root: &mut Obj<'_, '_>,
    id: &str,
    sh: &mut Shared,
) -> Option<PreviewPreset> {
    let name = root.str(ctx, "name").map(|s| (*s.get_ref()).to_owned()).unwrap_or_else(|| id.to_owned());
    let mut steps = Vec::new();
    if !root.has("steps") {
        root.missing(ctx, "steps", "an array of steps");
    }
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
            let Some(seconds) = num_of(ctx, v, &s.field("wait"), Rule::NonNegative) else { continue };
            PreviewStep::Wait { seconds }
        } else {
            continue;
        };
        steps.push(step);
    }
    Some(PreviewPreset { id: id.to_owned(), name, steps })
}

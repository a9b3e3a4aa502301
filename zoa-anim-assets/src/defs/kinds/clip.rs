//! `clip`: one animation of a model file, with its rate, loop hint and notifies.

use toml::de::DeValue;
use zoa_anim_core::{AnimationSelector, ClipAsset, ClipBinding, ClipNotify};

use crate::defs::codes::Code;
use crate::defs::diag::FileCtx;
use crate::defs::read::{Obj, Rule, array_of, index, int_of, name_of, obj_of};
use crate::defs::spec::{Enum, Field, KindSpec, Table, Ty};
use crate::defs::{Kind, Shared, Target};

static NOTIFY: Table = Table::of(&[
    Field::req("name", Ty::Text, "the event name", "the event name"),
    Field::req(
        "time",
        Ty::Num(Rule::NonNegative),
        "seconds from the start of the clip",
        "seconds from the start, within the animation",
    )
    .unit("s"),
]);
static NOTIFY_ITEM: Ty = Ty::Either(&[Ty::Pattern("^.+@[0-9.eE+-]+$"), Ty::Table(&NOTIFY)]);
/// `bind`: how a clip of another model than the character's binds (`zoa_anim_core::ClipBinding`).
static BINDING: Enum = Enum { noun: "binding", values: &["auto", "name", "role"], aliases: &[] };
/// Highest animation index a clip may name.
const MAX_ANIMATION_INDEX: i64 = u32::MAX as i64;
const ANIMATION: Ty = Ty::Either(&[Ty::Text, Ty::Int(0, MAX_ANIMATION_INDEX)]);

/// The description of `clip` (a `.wanim` clip asset: one animation of a model).
pub(crate) static SPEC: KindSpec = KindSpec {
    kind: Kind::Clip,
    produces: "[`zoa_anim_core::ClipAsset`]",
    intro: "",
    table: Table::of(&[
        Field::req(
            "source",
            Ty::Text,
            "the model file, relative to this definition file",
            "model file, relative to this definition file (E014 missing, E020 unreadable)",
        )
        .shown_as("path"),
        Field::opt("animation", ANIMATION, "the id", "animation name (or `<stem>_<name>`) or index in the model")
            .shown_as("string or integer"),
        Field::opt("rate", Ty::Num(Rule::Speed), "`1`", "speed multiplier"),
        Field::opt("loop", Ty::Bool, "`true`", "the loop hint graph states start with"),
        Field::opt(
            "notifies",
            Ty::List(&NOTIFY_ITEM, 0),
            "`[]`",
            "named times that fire events; time `>= 0` and within the animation",
        )
        .shown_as("array of `\"Name@seconds\"` or `{ name, time }`"),
        Field::opt(
            "bind",
            Ty::Enum(&BINDING),
            "`auto`",
            "how a clip of another model than the character's binds to its skeleton: `name` (joints of the \
             same name), `role` (bones found by role on both rigs, the clip baked onto the character's skeleton \
             with rest-pose correction and the hips' translation scaled by leg length), `auto` (by name when \
             at least half of the clip's animated joints have a namesake, else by role); `validate` notes \
             each clip bound by role (I006)",
        ),
    ]),
    notes: "",
};

pub(crate) fn read(ctx: &mut FileCtx<'_>, root: &mut Obj<'_, '_>, id: &str, sh: &mut Shared) -> Option<ClipAsset> {
    let source = root.str(ctx, "source");
    let animation = match root.raw("animation") {
        None => Some((AnimationSelector::Name(id.to_owned()), root.span.start..root.span.start)),
        Some(v) => match v.get_ref() {
            DeValue::Integer(_) => int_of(ctx, v, "animation", 0, MAX_ANIMATION_INDEX)
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
    let rate = root.num(ctx, "rate").unwrap_or(1.0);
    let binding = root.choice(ctx, "bind").and_then(|b| ClipBinding::from_name(b.get_ref())).unwrap_or_default();
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
                    let Some(mut t) = obj_of(ctx, item, &f, &NOTIFY) else { continue };
                    let name = t.str(ctx, "name");
                    let time = t.num(ctx, "time");
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
    Some(ClipAsset { id: id.to_owned(), source: rel, animation, rate, loop_hint, notifies, binding })
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
}

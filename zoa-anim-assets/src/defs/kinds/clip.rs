//! `clip`: one animation of a model file, with its rate, loop hint,
//! notifies (instants or windows, with typed payloads), sync markers and
//! float curves.

use toml::de::DeValue;
use zoa_anim_core::budget::CLIP_WINDOWS;
use zoa_anim_core::{
    AnimationSelector, ClipAsset, ClipBinding, ClipNotify, FloatCurve, NotifyPayload, PayloadValue, SyncMarker,
};

use crate::defs::codes::Code;
use crate::defs::diag::{FileCtx, Location};
use crate::defs::read::{Obj, Rule, Val, array_of, index, int_of, join, name_of, num_of, obj_of};
use crate::defs::spec::{Enum, Field, KindSpec, Table, Ty};
use crate::defs::{Kind, Shared, Target};

/// A payload field's value: text, a number or a flag.
static PAYLOAD_VALUE: Ty = Ty::Either(&[Ty::Str, Ty::Num(Rule::Any), Ty::Bool]);
static NOTIFY: Table = Table::of(&[
    Field::req("name", Ty::Text, "the event name", "the event name"),
    Field::req(
        "time",
        Ty::Num(Rule::NonNegative),
        "seconds from the start of the clip",
        "seconds from the start, within the animation",
    )
    .unit("s"),
    Field::opt(
        "duration",
        Ty::Num(Rule::NonNegative),
        "`0` (an instant)",
        "a window: a begin event at `time`, an end event at `time + duration` (within the animation), and \
         `Character::in_window(name)` in between; at most 64 windows per clip",
    )
    .unit("s"),
    Field::opt(
        "payload",
        Ty::Map(&PAYLOAD_VALUE),
        "none",
        "typed fields delivered with the notify's events (`Character::notify_payload`); a text field \
         `surface` is the surface its sound plays on",
    ),
    Field::opt("marker", Ty::Bool, "`false`", "also a sync marker of the same name at the same time"),
]);
static NOTIFY_ITEM: Ty = Ty::Either(&[Ty::Pattern("^.+@[0-9.eE+-]+$"), Ty::Table(&NOTIFY)]);
static MARKER: Table = Table::of(&[
    Field::req("name", Ty::Text, "the marker name", "the marker name (`foot_l`)"),
    Field::req(
        "time",
        Ty::Num(Rule::NonNegative),
        "seconds from the start of the clip",
        "seconds from the start, within the animation",
    )
    .unit("s"),
]);
static MARKER_ITEM: Ty = Ty::Either(&[Ty::Pattern("^.+@[0-9.eE+-]+$"), Ty::Table(&MARKER)]);
/// One curve key: `[time, value]`.
static CURVE_KEY: Ty = Ty::Tuple(&[Ty::Num(Rule::NonNegative), Ty::Num(Rule::Any)]);
static CURVE: Table = Table::of(&[
    Field::req("name", Ty::Text, "the curve name", "unique in the clip (`ik.hand_on_weapon`)"),
    Field::req(
        "keys",
        Ty::List(&CURVE_KEY, 1),
        "its keys",
        "`[time, value]` pairs, times in seconds, increasing, within the animation; linear between keys, \
         the first (last) value before (after) them",
    ),
]);
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
        .shown_as("array of `\"Name@seconds\"` or `{ name, time, duration, payload, marker }`"),
        Field::opt(
            "markers",
            Ty::List(&MARKER_ITEM, 0),
            "`[]`",
            "sync markers (`foot_l`, `foot_r`) by which the states of a sync group keep in step",
        )
        .shown_as("array of `\"name@seconds\"` or `{ name, time }`"),
        Field::opt("curves", Ty::Rows(&CURVE), "`[]`", "named float curves, blended with the clip's weight"),
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

/// Clip times read from the file, checked against the animation's length once the model is known.
type TimeChecks = Vec<(f32, &'static str, Location)>;

pub(crate) fn read(ctx: &mut FileCtx<'_>, root: &mut Obj<'_, '_>, id: &str, sh: &mut Shared) -> Option<ClipAsset> {
    let source = root.str(ctx, "source");
    let animation = animation_of(ctx, root, id);
    let rate = root.num(ctx, "rate").unwrap_or(1.0);
    let binding = root.choice(ctx, "bind").and_then(|b| ClipBinding::from_name(b.get_ref())).unwrap_or_default();
    let loop_hint = root.bool(ctx, "loop").unwrap_or(true);
    let mut times = TimeChecks::new();
    let (notifies, mut markers) = read_notifies(ctx, root, &mut times);
    markers.extend(read_markers(ctx, root, &mut times));
    let curves = read_curves(ctx, root, &mut times);
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
    for (time, what, at) in times {
        sh.refer(Target::ClipTime { model: disk.clone(), animation: animation.clone(), time, what }, "", at);
    }
    let mut notifies = notifies;
    notifies.sort_by(|a, b| a.time.total_cmp(&b.time));
    markers.sort_by(|a, b| a.time.total_cmp(&b.time));
    Some(ClipAsset { id: id.to_owned(), source: rel, animation, rate, loop_hint, notifies, markers, curves, binding })
}

/// `animation` (a name or an index), else the id.
fn animation_of(
    ctx: &mut FileCtx<'_>,
    root: &mut Obj<'_, '_>,
    id: &str,
) -> Option<(AnimationSelector, std::ops::Range<usize>)> {
    match root.raw("animation") {
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
    }
}

/// `notifies`, and the sync markers of those marked `marker`.
fn read_notifies(
    ctx: &mut FileCtx<'_>,
    root: &mut Obj<'_, '_>,
    times: &mut TimeChecks,
) -> (Vec<ClipNotify>, Vec<SyncMarker>) {
    let (mut notifies, mut markers) = (Vec::new(), Vec::new());
    let Some(items) = root.raw("notifies").and_then(|v| array_of(ctx, v, "notifies")) else {
        return (notifies, markers);
    };
    let mut windows = 0u64;
    for (i, item) in items.iter().enumerate() {
        let f = index("notifies", i);
        let (n, marker) = match item.get_ref() {
            DeValue::String(s) => match parse_timed(s, "Name@seconds", "Footstep@0.35") {
                Ok((name, time)) => (ClipNotify::new(name, time), false),
                Err(m) => {
                    ctx.report(Code::InvalidValue, item.span(), &f, m);
                    continue;
                }
            },
            DeValue::Table(_) => {
                let Some(mut t) = obj_of(ctx, item, &f, &NOTIFY) else { continue };
                let parsed = notify_table(ctx, &mut t);
                t.finish(ctx);
                let Some(parsed) = parsed else { continue };
                parsed
            }
            _ => {
                ctx.report(Code::WrongType, item.span(), &f, "expected `Name@seconds` or { name, time, ... }");
                continue;
            }
        };
        if !non_negative(ctx, item, &f, "a notify time", n.time) {
            continue;
        }
        if n.is_window() {
            windows += 1;
            if CLIP_WINDOWS.check("", windows).is_err() {
                let max = CLIP_WINDOWS.max;
                ctx.report(Code::OutOfRange, item.span(), &f, format!("a clip carries at most {max} notify windows"));
                continue;
            }
            times.push((n.end(), "the end of notify window", ctx.at(item.span(), &f)));
        }
        times.push((n.time, "notify", ctx.at(item.span(), &f)));
        if marker {
            markers.push(SyncMarker { name: n.name.clone(), time: n.time });
        }
        notifies.push(n);
    }
    (notifies, markers)
}

/// A notify written as a table, and whether it is also a sync marker.
fn notify_table(ctx: &mut FileCtx<'_>, t: &mut Obj<'_, '_>) -> Option<(ClipNotify, bool)> {
    let name = t.str(ctx, "name");
    let time = t.num(ctx, "time");
    let duration = t.num(ctx, "duration").unwrap_or(0.0);
    let marker = t.bool(ctx, "marker").unwrap_or(false);
    let payload = t.raw("payload").map(|v| payload_of(ctx, v, &t.field("payload"))).unwrap_or_default();
    let (name, time) = (name?, time?);
    let notify = ClipNotify { name: (*name.get_ref()).to_owned(), time, duration, payload };
    Some((notify, marker))
}

/// A notify's `payload` table: text, number and bool fields.
fn payload_of(ctx: &mut FileCtx<'_>, v: &Val<'_>, field: &str) -> NotifyPayload {
    let mut payload = NotifyPayload::default();
    let DeValue::Table(t) = v.get_ref() else {
        ctx.report(Code::WrongType, v.span(), field, "expected a table of name = text, number or bool");
        return payload;
    };
    for (k, value) in t.iter() {
        let key = k.get_ref().as_ref();
        let f = join(field, key);
        if key.trim().is_empty() {
            ctx.report(Code::InvalidValue, k.span(), &f, "a payload field needs a non-empty name");
            continue;
        }
        let typed = match value.get_ref() {
            DeValue::String(s) => Some(PayloadValue::Text(s.to_string())),
            DeValue::Boolean(b) => Some(PayloadValue::Bool(*b)),
            DeValue::Integer(_) | DeValue::Float(_) => num_of(ctx, value, &f, Rule::Any).map(PayloadValue::Number),
            _ => {
                ctx.report(Code::WrongType, value.span(), &f, "expected text, a number or a bool");
                None
            }
        };
        if let Some(typed) = typed {
            payload.fields.push((key.to_owned(), typed));
        }
    }
    payload
}

/// `markers`.
fn read_markers(ctx: &mut FileCtx<'_>, root: &mut Obj<'_, '_>, times: &mut TimeChecks) -> Vec<SyncMarker> {
    let mut markers = Vec::new();
    let Some(items) = root.raw("markers").and_then(|v| array_of(ctx, v, "markers")) else { return markers };
    for (i, item) in items.iter().enumerate() {
        let f = index("markers", i);
        let marker = match item.get_ref() {
            DeValue::String(s) => parse_timed(s, "name@seconds", "foot_l@0.1")
                .map_err(|m| ctx.report(Code::InvalidValue, item.span(), &f, m))
                .ok()
                .map(|(name, time)| SyncMarker { name, time }),
            DeValue::Table(_) => obj_of(ctx, item, &f, &MARKER).and_then(|mut t| {
                let (name, time) = (t.str(ctx, "name"), t.num(ctx, "time"));
                t.finish(ctx);
                Some(SyncMarker { name: (*name?.get_ref()).to_owned(), time: time? })
            }),
            _ => {
                ctx.report(Code::WrongType, item.span(), &f, "expected `name@seconds` or { name, time }");
                None
            }
        };
        let Some(m) = marker else { continue };
        if non_negative(ctx, item, &f, "a marker time", m.time) {
            times.push((m.time, "marker", ctx.at(item.span(), &f)));
            markers.push(m);
        }
    }
    markers
}

/// `[[curves]]`: names unique, keys `[time, value]` with increasing times.
fn read_curves(ctx: &mut FileCtx<'_>, root: &mut Obj<'_, '_>, times: &mut TimeChecks) -> Vec<FloatCurve> {
    let mut curves: Vec<FloatCurve> = Vec::new();
    for mut c in root.tables(ctx, "curves") {
        let name = c.str(ctx, "name");
        let keys = c.raw("keys").map(|v| curve_keys(ctx, v, &c.field("keys"), times));
        if keys.is_none() {
            c.missing(ctx, "keys", "its keys");
        }
        c.finish(ctx);
        let (Some(name), Some(Some(keys))) = (name, keys) else { continue };
        if curves.iter().any(|k| k.name == *name.get_ref()) {
            let m = format!("curve `{}` is declared twice in this clip", name.get_ref());
            ctx.report(Code::DuplicateName, name.span(), &c.field("name"), m);
            continue;
        }
        curves.push(FloatCurve { name: (*name.get_ref()).to_owned(), keys });
    }
    curves
}

/// A curve's `keys`: at least one `[time, value]`, times increasing.
fn curve_keys(ctx: &mut FileCtx<'_>, v: &Val<'_>, field: &str, times: &mut TimeChecks) -> Option<Vec<(f32, f32)>> {
    let items = array_of(ctx, v, field)?;
    if items.is_empty() {
        ctx.report(Code::OutOfRange, v.span(), field, "a curve needs at least one key");
        return None;
    }
    let mut keys: Vec<(f32, f32)> = Vec::with_capacity(items.len());
    let mut ok = true;
    for (i, item) in items.iter().enumerate() {
        let f = index(field, i);
        let Some(pair) = array_of(ctx, item, &f) else {
            ok = false;
            continue;
        };
        let [t, x] = pair else {
            ctx.report(
                Code::InvalidValue,
                item.span(),
                &f,
                format!("a key is [time, value], found {} items", pair.len()),
            );
            ok = false;
            continue;
        };
        let (t, x) = (num_of(ctx, t, &index(&f, 0), Rule::NonNegative), num_of(ctx, x, &index(&f, 1), Rule::Any));
        let (Some(t), Some(x)) = (t, x) else {
            ok = false;
            continue;
        };
        if let Some(&(prev, _)) = keys.last()
            && t <= prev
        {
            let m = format!("key times must increase: {t} s comes after {prev} s");
            ctx.report(Code::InvalidValue, item.span(), &f, m);
            ok = false;
            continue;
        }
        keys.push((t, x));
        times.push((t, "curve key", ctx.at(item.span(), &f)));
    }
    ok.then_some(keys)
}

/// `true` when `time >= 0`, else reports it.
fn non_negative(ctx: &mut FileCtx<'_>, item: &Val<'_>, field: &str, what: &str, time: f32) -> bool {
    if time < 0.0 {
        ctx.report(Code::OutOfRange, item.span(), field, format!("expected {what} >= 0 s, found {time}"));
    }
    time >= 0.0
}

/// `name@seconds` (`form` names the form, `example` shows one).
fn parse_timed(text: &str, form: &str, example: &str) -> Result<(String, f32), String> {
    let expected = format!("expected `{form}`, e.g. `{example}`");
    let (name, time) = text.rsplit_once('@').ok_or_else(|| format!("{expected}, found `{text}`"))?;
    let name = name.trim();
    if name.is_empty() {
        return Err(format!("{expected}; the name before `@` is empty"));
    }
    let t: f32 = time.trim().parse().map_err(|_| format!("{expected}; `{}` is not a number", time.trim()))?;
    if !t.is_finite() {
        return Err(format!("{expected}; the time must be finite"));
    }
    Ok((name.to_owned(), t))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notify_text_form() {
        let parse = |t: &str| parse_timed(t, "Name@seconds", "Footstep@0.35");
        assert_eq!(parse("Footstep@0.35").unwrap(), ("Footstep".to_owned(), 0.35));
        assert_eq!(parse("a@b@1").unwrap().0, "a@b");
        assert!(parse("Footstep").unwrap_err().contains("Name@seconds"));
        assert!(parse("@1").is_err());
        assert!(parse("x@soon").unwrap_err().contains("`soon`"));
        assert!(parse("x@inf").is_err());
    }
}

//! `sound_profile`: tagged sound event entries with inheritance.

use std::collections::HashMap;

use toml::de::DeValue;
use zoa_anim_core::{
    AudioBusId, AudioVariant, CapPolicy, Rolloff, SoundEventEntry, SoundEventId, SoundProfile, SoundThrottle,
    StateTagSet,
};

use super::read_parent;
use crate::defs::codes::Code;
use crate::defs::diag::FileCtx;
use crate::defs::read::{Obj, Rule, array_of, index, name_of, obj_of, str_of, tags};
use crate::defs::spec::{Constraint, Enum, Field, KindSpec, Table, Ty};
use crate::defs::{Kind, Shared, Target};

/// Distance rolloffs, as `Rolloff::from_name` reads them.
pub(crate) static ROLLOFF: Enum = Enum { noun: "rolloff", values: &["linear", "inverse", "logarithmic"], aliases: &[] };
/// Polyphony cap policies, as `CapPolicy::from_name` reads them.
pub(crate) static CAP_POLICY: Enum =
    Enum { noun: "cap_policy", values: &["reject", "steal_oldest", "steal_quietest"], aliases: &[] };

static VARIANT: Table = Table::of(&[
    Field::req("clip", Ty::Text, "the sound file, relative to this definition file", "sound file path"),
    Field::opt("weight", Ty::Num(Rule::NonNegative), "`1`", "pick weight"),
]);
static VARIANT_ITEM: Ty = Ty::Either(&[Ty::Text, Ty::Table(&VARIANT)]);

static ENTRY: Table = Table::of(&[
    Field::req(
        "event",
        Ty::Id,
        "a dotted sound event id such as `footstep` or `weapon.fire`",
        "dotted sound event id (`weapon.fire`), never a file name",
    ),
    Field::opt("tags", Ty::Tags, "any state", "tag filter"),
    Field::opt("surface", Ty::Text, "any surface", ""),
    Field::req(
        "variants",
        Ty::List(&VARIANT_ITEM, 1),
        "at least one sound file",
        "sound files, relative to this file; weights `>= 0`, total `> 0`; missing file → W005",
    )
    .shown_as("array of path strings or `{ clip, weight }`"),
    Field::opt("weight", Ty::Num(Rule::NonNegative), "`1`", ""),
    Field::opt("bus", Ty::Text, "`sfx`", "bus id"),
    Field::opt("volume", Ty::Num(Rule::NonNegative), "`1`", "linear gain"),
    Field::opt("volume_jitter", Ty::Num(Rule::Unit), "`0`", ""),
    Field::opt("pitch_jitter_semitones", Ty::Num(Rule::NonNegative), "`0`", ""),
    Field::opt("spatial", Ty::Bool, "`false`", ""),
    Field::opt("max_distance", Ty::Num(Rule::Positive), "`50`", "").unit("m"),
    Field::opt("rolloff", Ty::Enum(&ROLLOFF), "`inverse`", "distance rolloff"),
    Field::opt("loop", Ty::Bool, "`false`", ""),
    Field::opt("fade_time", Ty::Num(Rule::NonNegative), "`0`", "").unit("s"),
    Field::opt("cooldown", Ty::Num(Rule::NonNegative), "`0`", "").unit("s"),
    Field::opt("cooldown_global", Ty::Bool, "`false`", ""),
    Field::opt("polyphony_cap", Ty::Int(0, u32::MAX as i64), "`0` (unlimited)", ""),
    Field::opt("cap_policy", Ty::Enum(&CAP_POLICY), "`steal_oldest`", ""),
    Field::opt("priority", Ty::Int(i32::MIN as i64, i32::MAX as i64), "`0`", ""),
    Field::opt("avoid_repeat", Ty::Int(0, u32::MAX as i64), "`0`", "recent variants not picked again"),
]);

static THROTTLE: Table = Table::of(&[
    Field::req(
        "prefix",
        Ty::Pattern(r"^[a-z0-9_]+(\.[a-z0-9_]+)*(\.\*)?$"),
        "the sound event id prefix it limits, such as `weapon.fire.*`",
        "dotted sound event id; covers the id and every id below it (`.*` may be written)",
    ),
    Field::opt("max_voices", Ty::Int(0, u32::MAX as i64), "`0` (no cap)", "live voices under the prefix"),
    Field::opt("max_starts_per_second", Ty::Int(0, 10_000), "`0` (no limit)", "voice starts in any one-second window"),
    Field::opt("cooldown", Ty::Num(Rule::NonNegative), "`0`", "least time between two starts, any emitter").unit("s"),
]);

/// The description of `sound_profile`.
pub(crate) static SPEC: KindSpec = KindSpec {
    kind: Kind::SoundProfile,
    produces: "[`zoa_anim_core::SoundProfile`]",
    intro: "",
    table: Table {
        fields: &[
            Field::opt("parent", Ty::Id, "none", "a `sound_profile` id to inherit from; no cycle"),
            Field::opt("entries", Ty::Rows(&ENTRY), "required unless `parent`", "sound event entries"),
            Field::opt(
                "throttles",
                Ty::Rows(&THROTTLE),
                "none",
                "limits shared by every event under an id prefix; a child's replaces its parent's on the same prefix",
            ),
        ],
        constraints: &[Constraint::AnyOf(&["parent", "entries"])],
    },
    notes: "A repeated `(event, tags, surface)` key in one profile is W001, and so is a repeated throttle prefix. \
A trigger counts towards every throttle whose prefix covers the event it asked for and is dropped when any of them \
is full (cooldown, then rate, then voices); throttles never steal voices.",
};

pub(crate) fn read(ctx: &mut FileCtx<'_>, root: &mut Obj<'_, '_>, id: &str, sh: &mut Shared) -> Option<SoundProfile> {
    let parent = read_parent(ctx, root, sh);
    if !root.has("entries") && parent.is_none() {
        root.missing(ctx, "entries", "the sound event entries; only a profile with a parent may omit them");
    }
    let mut entries = Vec::new();
    let mut seen: HashMap<(String, StateTagSet, Option<String>), usize> = HashMap::new();
    for (i, mut row) in root.tables(ctx, "entries").into_iter().enumerate() {
        let event = row.str(ctx, "event");
        let tag_errors = ctx.error_count();
        let tag_filter = tags(ctx, &mut row, "tags");
        let tags_ok = ctx.error_count() == tag_errors;
        let surface = row.str(ctx, "surface").map(|s| (*s.get_ref()).to_owned());
        let variants = read_variants(ctx, &mut row, sh);
        let e = read_playback(ctx, &mut row, tag_filter, surface.clone());
        row.finish(ctx);
        let Some(event) = event else { continue };
        let field = row.field("event");
        let ev = match SoundEventId::new(event.get_ref()) {
            Ok(ev) => ev,
            Err(err) => {
                ctx.report(Code::InvalidValue, event.span(), &field, err.to_string());
                continue;
            }
        };
        let key = ((*event.get_ref()).to_owned(), tag_filter, surface);
        if !tags_ok {
            // Unknown pattern: no shadowing verdict.
        } else if let Some(first) = seen.get(&key) {
            ctx.report(
                Code::ShadowedRow,
                event.span(),
                &field,
                format!(
                    "entry {i} repeats the event, tags and surface of entry {first}, which always wins; entry {i} can never be chosen"
                ),
            );
        } else {
            seen.insert(key, i);
        }
        let mut e = e;
        e.event = ev;
        e.variants = variants;
        entries.push(e);
    }
    let throttles = read_throttles(ctx, root);
    Some(SoundProfile { id: id.to_owned(), entries, parent, throttles })
}

/// `[[throttles]] prefix = "weapon.fire.*"  max_voices = 4  max_starts_per_second = 12  cooldown = 0.05`.
fn read_throttles(ctx: &mut FileCtx<'_>, root: &mut Obj<'_, '_>) -> Vec<SoundThrottle> {
    let mut out: Vec<SoundThrottle> = Vec::new();
    let mut seen: HashMap<SoundEventId, usize> = HashMap::new();
    for (i, mut row) in root.tables(ctx, "throttles").into_iter().enumerate() {
        let prefix = row.str(ctx, "prefix");
        let max_voices = row.int(ctx, "max_voices").unwrap_or(0) as u32;
        let max_starts_per_second = row.int(ctx, "max_starts_per_second").unwrap_or(0) as u32;
        let cooldown = row.num(ctx, "cooldown").unwrap_or(0.0);
        row.finish(ctx);
        let Some(prefix) = prefix else { continue };
        let field = row.field("prefix");
        let text = prefix.get_ref().strip_suffix(".*").unwrap_or(prefix.get_ref());
        let id = match SoundEventId::new(text) {
            Ok(id) => id,
            Err(err) => {
                ctx.report(Code::InvalidValue, prefix.span(), &field, err.to_string());
                continue;
            }
        };
        if let Some(first) = seen.get(&id) {
            ctx.report(
                Code::ShadowedRow,
                prefix.span(),
                &field,
                format!(
                    "throttle {i} repeats the prefix of throttle {first}, which always wins; throttle {i} has no effect"
                ),
            );
            continue;
        }
        seen.insert(id, i);
        out.push(SoundThrottle { prefix: id, max_voices, max_starts_per_second, cooldown });
    }
    out
}

/// The playback fields of an entry (everything but event and variants).
fn read_playback(
    ctx: &mut FileCtx<'_>,
    row: &mut Obj<'_, '_>,
    tag_filter: StateTagSet,
    surface: Option<String>,
) -> SoundEventEntry {
    let mut e = SoundEventEntry::new(SoundEventId::from_static("footstep"), "");
    e.variants = Vec::new();
    e.tag_filter = tag_filter;
    e.surface = surface;
    e.weight = row.num(ctx, "weight").unwrap_or(1.0);
    if let Some(bus) = row.str(ctx, "bus") {
        match AudioBusId::new(bus.get_ref()) {
            Ok(b) => e.bus = b,
            Err(err) => ctx.report(Code::InvalidValue, bus.span(), &row.field("bus"), err.to_string()),
        }
    }
    e.volume = row.num(ctx, "volume").unwrap_or(e.volume);
    e.volume_jitter = row.num(ctx, "volume_jitter").unwrap_or(e.volume_jitter);
    e.pitch_jitter_semitones = row.num(ctx, "pitch_jitter_semitones").unwrap_or(0.0);
    e.spatial = row.bool(ctx, "spatial").unwrap_or(false);
    e.max_distance = row.num(ctx, "max_distance").unwrap_or(e.max_distance);
    e.rolloff = row.choice(ctx, "rolloff").and_then(|v| Rolloff::from_name(v.get_ref())).unwrap_or_default();
    e.looping = row.bool(ctx, "loop").unwrap_or(false);
    e.fade_time = row.num(ctx, "fade_time").unwrap_or(0.0);
    e.cooldown = row.num(ctx, "cooldown").unwrap_or(0.0);
    e.cooldown_global = row.bool(ctx, "cooldown_global").unwrap_or(false);
    e.polyphony_cap = row.int(ctx, "polyphony_cap").unwrap_or(0) as u32;
    e.cap_policy = row.choice(ctx, "cap_policy").and_then(|v| CapPolicy::from_name(v.get_ref())).unwrap_or_default();
    e.priority = row.int(ctx, "priority").unwrap_or(0) as i32;
    e.avoid_repeat = row.int(ctx, "avoid_repeat").unwrap_or(0) as u32;
    e
}

/// `variants = ["a.wav", { clip = "b.wav", weight = 2 }]`; paths relative to the
/// definition file, stored relative to the folder.
fn read_variants(ctx: &mut FileCtx<'_>, row: &mut Obj<'_, '_>, sh: &mut Shared) -> Vec<AudioVariant> {
    let field = row.field("variants");
    let Some(v) = row.raw("variants") else {
        row.missing(ctx, "variants", "at least one sound file");
        return Vec::new();
    };
    let Some(items) = array_of(ctx, v, &field) else { return Vec::new() };
    if items.is_empty() {
        ctx.report(Code::OutOfRange, v.span(), &field, "expected at least one variant, found none");
        return Vec::new();
    }
    let mut out = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let f = index(&field, i);
        let (path, span, weight) = match item.get_ref() {
            DeValue::String(_) => {
                let Some(p) = name_of(ctx, item, &f) else { continue };
                (p, item.span(), 1.0)
            }
            DeValue::Table(_) => {
                let Some(mut t) = obj_of(ctx, item, &f, &VARIANT) else { continue };
                let clip = t.str(ctx, "clip");
                let weight = t.num(ctx, "weight");
                t.finish(ctx);
                let Some(clip) = clip else { continue };
                (*clip.get_ref(), clip.span(), weight.unwrap_or(1.0))
            }
            _ => {
                let _ = str_of(ctx, item, &f);
                continue;
            }
        };
        let (rel, disk) = sh.resolve_path(&ctx.rel, path);
        sh.refer(Target::SoundFile(disk), path, ctx.at(span, &f));
        out.push(AudioVariant { clip: rel, weight });
    }
    if out.len() == items.len() && out.iter().map(|v| v.weight).sum::<f32>() <= 0.0 {
        ctx.report(Code::OutOfRange, v.span(), &field, "expected the variants' total weight to be > 0, found 0");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn enums_are_the_cores() {
        for v in ROLLOFF.values {
            assert!(Rolloff::from_name(v).is_some(), "{v}");
        }
        for v in CAP_POLICY.values {
            assert!(CapPolicy::from_name(v).is_some(), "{v}");
        }
    }
}

//! animation_profile and sound_profile: tagged tables with inheritance.

use std::collections::HashMap;

use toml::de::DeValue;
use zoa_anim_core::{
    AnimationProfile, AudioBusId, AudioVariant, CapPolicy, Rolloff, SoundEventEntry, SoundEventId, SoundProfile,
    StateTagSet, TaggedClipEntry,
};

use super::read_parent;
use crate::defs::codes::Code;
use crate::defs::diag::FileCtx;
use crate::defs::read::{Obj, Rule, index, num_of, obj_of, str_of, tags};
use crate::defs::{Shared, Target};

/// Span to point at for a row's pattern: the `tags` value, else the first
/// per-dimension list, else the row itself.
fn pattern_span(row: &Obj<'_, '_>, text_key: &str) -> std::ops::Range<usize> {
    let keys = [text_key, "locomotion", "posture", "combat", "interaction", "reaction", "mood"];
    row.table
        .iter()
        .filter(|(k, _)| keys.contains(&k.get_ref().as_ref()))
        .map(|(_, v)| v.span())
        .min_by_key(|s| s.start)
        .unwrap_or(row.span.clone())
}

pub(crate) fn animation_profile(
    ctx: &mut FileCtx<'_>,
    root: &mut Obj<'_, '_>,
    id: &str,
    sh: &mut Shared,
) -> Option<AnimationProfile> {
    if let Some(decl) = sh.decls.last().filter(|d| d.at.file == ctx.rel) {
        sh.profile_locations.insert(id.to_owned(), decl.at.clone());
    }
    let parent = read_parent(ctx, root, sh);
    let procedural = root.bool(ctx, "procedural_fallbacks_allowed").unwrap_or(false);
    let default_idle = root.str(ctx, "default_idle_clip");
    if let Some(d) = &default_idle {
        sh.refer(Target::Clip { model: None }, *d.get_ref(), ctx.at(d.span(), "default_idle_clip"));
    }
    if !root.has("entries") && parent.is_none() {
        root.missing(ctx, "entries", "the clip table rows; only a profile with a parent may omit them");
    }
    let mut entries = Vec::new();
    let mut seen: HashMap<StateTagSet, usize> = HashMap::new();
    for (i, mut row) in root.tables(ctx, "entries").into_iter().enumerate() {
        let tag_errors = ctx.error_count();
        let pattern = tags(ctx, &mut row, "tags");
        let tags_ok = ctx.error_count() == tag_errors;
        let clip = row.req_str(ctx, "clip", "the clip this row plays");
        let weight = row.num(ctx, "weight", Rule::NonNegative).unwrap_or(1.0);
        let speed = row.num(ctx, "speed", Rule::Positive).unwrap_or(1.0);
        let one_shot = row.bool(ctx, "one_shot").unwrap_or(false);
        let span = pattern_span(&row, "tags");
        row.finish(ctx);
        if !tags_ok {
            // The pattern is unknown; a shadowing verdict would be noise.
        } else if let Some(first) = seen.get(&pattern) {
            ctx.report(
                Code::ShadowedRow,
                span.clone(),
                &row.path,
                format!(
                    "row {i} has the same pattern (`{pattern}`) as row {first}, which always wins; row {i} can never be chosen"
                ),
            );
        } else {
            seen.insert(pattern, i);
        }
        if tags_ok && !pattern.is_empty() && pattern.locomotion().is_empty() {
            use zoa_anim_core::fallback::{RELAX_STEP_COUNT, relaxed_at};
            let step = (1..=RELAX_STEP_COUNT)
                .find(|&k| pattern.without_all(relaxed_at(k)).is_empty())
                .unwrap_or(RELAX_STEP_COUNT);
            ctx.report(
                Code::RelaxableOnlyRow,
                span.clone(),
                &row.path,
                format!(
                    "row {i} (`{pattern}`) has no locomotion tag, so from fallback step {step} on it matches every \
                     state ahead of the untagged default; add a locomotion tag if it should not act as a catch-all"
                ),
            );
        }
        let Some(clip) = clip else { continue };
        sh.refer(Target::Clip { model: None }, *clip.get_ref(), ctx.at(clip.span(), &row.field("clip")));
        let mut entry = TaggedClipEntry::new(pattern, *clip.get_ref());
        entry.weight = weight;
        entry.speed_multiplier = speed;
        entry.one_shot = one_shot;
        entries.push(entry);
    }
    Some(AnimationProfile {
        id: id.to_owned(),
        entries,
        parent,
        procedural_fallbacks_allowed: procedural,
        default_idle_clip: default_idle.map(|d| (*d.get_ref()).to_owned()),
    })
}

fn enum_field<T>(
    ctx: &mut FileCtx<'_>,
    row: &mut Obj<'_, '_>,
    key: &'static str,
    parse: impl Fn(&str) -> Option<T>,
    valid: &str,
) -> Option<T> {
    let v = row.str(ctx, key)?;
    let parsed = parse(v.get_ref());
    if parsed.is_none() {
        ctx.report(
            Code::InvalidValue,
            v.span(),
            &row.field(key),
            format!("unknown {key} `{}`; expected one of: {valid}", v.get_ref()),
        );
    }
    parsed
}

pub(crate) fn sound_profile(
    ctx: &mut FileCtx<'_>,
    root: &mut Obj<'_, '_>,
    id: &str,
    sh: &mut Shared,
) -> Option<SoundProfile> {
    let parent = read_parent(ctx, root, sh);
    if !root.has("entries") && parent.is_none() {
        root.missing(ctx, "entries", "the sound event entries; only a profile with a parent may omit them");
    }
    let mut entries = Vec::new();
    let mut seen: HashMap<(String, StateTagSet, Option<String>), usize> = HashMap::new();
    for (i, mut row) in root.tables(ctx, "entries").into_iter().enumerate() {
        let event = row.req_str(ctx, "event", "a dotted sound event id such as `footstep` or `weapon.fire`");
        let tag_errors = ctx.error_count();
        let tag_filter = tags(ctx, &mut row, "tags");
        let tags_ok = ctx.error_count() == tag_errors;
        let surface = row.str(ctx, "surface").map(|s| (*s.get_ref()).to_owned());
        let variants = read_variants(ctx, &mut row, sh);
        let mut e = SoundEventEntry::new(SoundEventId::from_static("footstep"), "");
        e.variants = Vec::new();
        e.tag_filter = tag_filter;
        e.surface = surface.clone();
        e.weight = row.num(ctx, "weight", Rule::NonNegative).unwrap_or(1.0);
        if let Some(bus) = row.str(ctx, "bus") {
            match AudioBusId::new(bus.get_ref()) {
                Ok(b) => e.bus = b,
                Err(err) => ctx.report(Code::InvalidValue, bus.span(), &row.field("bus"), err.to_string()),
            }
        }
        e.volume = row.num(ctx, "volume", Rule::NonNegative).unwrap_or(e.volume);
        e.volume_jitter = row.num(ctx, "volume_jitter", Rule::Unit).unwrap_or(e.volume_jitter);
        e.pitch_jitter_semitones = row.num(ctx, "pitch_jitter_semitones", Rule::NonNegative).unwrap_or(0.0);
        e.spatial = row.bool(ctx, "spatial").unwrap_or(false);
        e.max_distance = row.num(ctx, "max_distance", Rule::Positive).unwrap_or(e.max_distance);
        e.rolloff = enum_field(ctx, &mut row, "rolloff", Rolloff::from_name, "linear, inverse, logarithmic")
            .unwrap_or_default();
        e.looping = row.bool(ctx, "loop").unwrap_or(false);
        e.fade_time = row.num(ctx, "fade_time", Rule::NonNegative).unwrap_or(0.0);
        e.cooldown = row.num(ctx, "cooldown", Rule::NonNegative).unwrap_or(0.0);
        e.cooldown_global = row.bool(ctx, "cooldown_global").unwrap_or(false);
        e.polyphony_cap = row.int(ctx, "polyphony_cap", 0, i64::from(u32::MAX)).unwrap_or(0) as u32;
        e.cap_policy =
            enum_field(ctx, &mut row, "cap_policy", CapPolicy::from_name, "reject, steal_oldest, steal_quietest")
                .unwrap_or_default();
        e.priority = row.int(ctx, "priority", i64::from(i32::MIN), i64::from(i32::MAX)).unwrap_or(0) as i32;
        e.avoid_repeat = row.int(ctx, "avoid_repeat", 0, i64::from(u32::MAX)).unwrap_or(0) as u32;
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
        e.event = ev;
        e.variants = variants;
        entries.push(e);
    }
    Some(SoundProfile { id: id.to_owned(), entries, parent })
}

/// `variants = ["a.wav", { clip = "b.wav", weight = 2 }]`; paths relative to the
/// definition file, stored relative to the folder.
fn read_variants(ctx: &mut FileCtx<'_>, row: &mut Obj<'_, '_>, sh: &mut Shared) -> Vec<AudioVariant> {
    let field = row.field("variants");
    let Some(v) = row.raw("variants") else {
        row.missing(ctx, "variants", "at least one sound file");
        return Vec::new();
    };
    let Some(items) = crate::defs::read::array_of(ctx, v, &field) else { return Vec::new() };
    if items.is_empty() {
        ctx.report(Code::OutOfRange, v.span(), &field, "expected at least one variant, found none");
        return Vec::new();
    }
    let mut out = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let f = index(&field, i);
        let (path, span, weight) = match item.get_ref() {
            DeValue::String(_) => {
                let Some(p) = crate::defs::read::name_of(ctx, item, &f) else { continue };
                (p, item.span(), 1.0)
            }
            DeValue::Table(_) => {
                let Some(mut t) = obj_of(ctx, item, &f) else { continue };
                let clip = t.req_str(ctx, "clip", "the sound file, relative to this definition file");
                let weight = t.raw("weight").and_then(|w| num_of(ctx, w, &t.field("weight"), Rule::NonNegative));
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

//! `animation_profile`: a tagged clip table with inheritance.

use std::collections::HashMap;

use zoa_anim_core::profile::RowKey;
use zoa_anim_core::{AnimationProfile, RowPick, TaggedClipEntry, ValueRange};

use super::read_parent;
use crate::defs::codes::Code;
use crate::defs::diag::FileCtx;
use crate::defs::read::{Obj, Rule, array_of, index, name_of, tags};
use crate::defs::spec::{Constraint, Enum, Field, KindSpec, Table, Ty};
use crate::defs::{Kind, Shared, Target};

/// `"<binding> in <min>..<max>"`, either end may be left out (open).
const RANGE_PATTERN: &str =
    r"^\s*[a-z][a-z0-9_.]*\s+in\s+(-?[0-9.]+([eE][-+]?[0-9]+)?)?\s*\.\.\s*(-?[0-9.]+([eE][-+]?[0-9]+)?)?\s*$";
static RANGE: Ty = Ty::Pattern(RANGE_PATTERN);

/// `pick`: how a table chooses among its best candidates (`zoa_anim_core::RowPick`).
static PICK: Enum = Enum { noun: "pick", values: &["best", "random"], aliases: &[] };

static ENTRY: Table = Table::of(&[
    Field::opt("tags", Ty::Tags, "untagged", "see Tag patterns above"),
    Field::req("clip", Ty::Text, "the clip this row plays", "clip reference"),
    Field::opt("weight", Ty::Num(Rule::NonNegative), "`1`", "tie-breaker (with `pick = \"random\"`: the chance)"),
    Field::opt("speed", Ty::Num(Rule::Speed), "`1`", "speed multiplier"),
    Field::opt("one_shot", Ty::Bool, "`false`", "plays once, then yields to the resolver"),
    Field::opt(
        "ranges",
        Ty::List(&RANGE, 0),
        "`[]`",
        "chooser columns: `\"speed in 2.0..4.0\"`, `\"aim_yaw in -45..45\"` (half open, `min <= value < max`; \
         an end may be left out): the row is a candidate only while every named float or int binding \
         (`speed` is the character's speed) is in its range; each range counts 1 in the row's specificity",
    )
    .shown_as("array of `\"<binding> in <min>..<max>\"`"),
]);

/// The description of `animation_profile`.
pub(crate) static SPEC: KindSpec = KindSpec {
    kind: Kind::AnimationProfile,
    produces: "[`zoa_anim_core::AnimationProfile`]",
    intro: "",
    table: Table {
        fields: &[
            Field::opt("parent", Ty::Id, "none", "an `animation_profile` id to inherit rows from; no cycle (E013)"),
            Field::opt("procedural_fallbacks_allowed", Ty::Bool, "`false`", ""),
            Field::opt("default_idle_clip", Ty::Text, "none", "clip reference"),
            Field::opt("entries", Ty::Rows(&ENTRY), "required unless `parent`", "clip table rows in authoring order"),
            Field::opt(
                "pick",
                Ty::Enum(&PICK),
                "the parent's, else `best`",
                "`best`: the highest weight among the most specific rows, then the first; `random`: one of the \
                 most specific rows at random, weights as chances, re-picked each time that group is entered \
                 (seeded per character)",
            ),
            Field::opt(
                "range_crossfade",
                Ty::Num(Rule::NonNegative),
                "the parent's, else `0.2`",
                "cross-fade when a range's value (not a tag) selects another row",
            )
            .unit("s"),
        ],
        constraints: &[Constraint::AnyOf(&["parent", "entries"])],
    },
    notes: "Warnings: a row repeating an earlier row's pattern and ranges (W001, it can never win: inheritance \
            keeps each pattern's first occurrence; in a `pick = \"random\"` profile such rows are variants the \
            pick chooses among, kept and not warned about); a row with tags but no locomotion tag (I003, it becomes a catch-all \
            once the fallback walk relaxes its dimensions); a flattened table in which some states resolve to \
            nothing (W004).",
};

/// Span to point at for a row's pattern: the `tags` value, else the first
/// per-dimension list, else the row itself.
pub(crate) fn pattern_span(row: &Obj<'_, '_>, text_key: &str) -> std::ops::Range<usize> {
    let keys = [text_key, "locomotion", "posture", "combat", "interaction", "reaction", "mood"];
    row.table
        .iter()
        .filter(|(k, _)| keys.contains(&k.get_ref().as_ref()))
        .map(|(_, v)| v.span())
        .min_by_key(|s| s.start)
        .unwrap_or(row.span.clone())
}

pub(crate) fn read(
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
    let pick = root.choice(ctx, "pick").map(|p| if *p.get_ref() == "random" { RowPick::Random } else { RowPick::Best });
    let range_crossfade = root.num(ctx, "range_crossfade");
    let mut seen: HashMap<RowKey, usize> = HashMap::new();
    for (i, mut row) in root.tables(ctx, "entries").into_iter().enumerate() {
        let tag_errors = ctx.error_count();
        let pattern = tags(ctx, &mut row, "tags");
        let tags_ok = ctx.error_count() == tag_errors;
        let clip = row.str(ctx, "clip");
        let weight = row.num(ctx, "weight").unwrap_or(1.0);
        let speed = row.num(ctx, "speed").unwrap_or(1.0);
        let one_shot = row.bool(ctx, "one_shot").unwrap_or(false);
        let ranges = read_ranges(ctx, &mut row, sh);
        let span = pattern_span(&row, "tags");
        row.finish(ctx);
        let key = TaggedClipEntry { ranges: ranges.clone(), ..TaggedClipEntry::new(pattern, "") }.key();
        if !tags_ok || pick == Some(RowPick::Random) {
            // The pattern is unknown (a verdict would be noise), or rows of
            // one pattern are variants a random pick chooses among.
        } else if let Some(first) = seen.get(&key) {
            ctx.report(
                Code::ShadowedRow,
                span.clone(),
                &row.path,
                format!(
                    "row {i} has the same pattern (`{pattern}`{}) as row {first}, which always wins; row {i} can never be chosen",
                    ranges.iter().map(|r| format!(", {r}")).collect::<String>()
                ),
            );
        } else {
            seen.insert(key, i);
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
        entry.ranges = ranges;
        entries.push(entry);
    }
    Some(AnimationProfile {
        id: id.to_owned(),
        entries,
        parent,
        procedural_fallbacks_allowed: procedural,
        default_idle_clip: default_idle.map(|d| (*d.get_ref()).to_owned()),
        pick,
        range_crossfade,
    })
}

/// A row's `ranges`: each parsed, its binding checked across the folder
/// (any float or int binding a profile declares; `speed` always exists),
/// every problem reported.
fn read_ranges(ctx: &mut FileCtx<'_>, row: &mut Obj<'_, '_>, sh: &mut Shared) -> Vec<ValueRange> {
    let Some(v) = row.raw("ranges") else { return Vec::new() };
    let field = row.field("ranges");
    let mut out: Vec<ValueRange> = Vec::new();
    for (i, item) in array_of(ctx, v, &field).unwrap_or_default().iter().enumerate() {
        let f = index(&field, i);
        let Some(text) = name_of(ctx, item, &f) else { continue };
        match parse_range(text) {
            Err((code, message)) => ctx.report(code, item.span(), &f, message),
            Ok(r) if out.iter().any(|o| o.parameter == r.parameter) => ctx.report(
                Code::DuplicateName,
                item.span(),
                &f,
                format!("`{}` has a range already in this row; give one range per binding", r.parameter),
            ),
            Ok(r) => {
                if r.parameter != zoa_anim_core::DefaultBindings::SPEED.as_str() {
                    sh.refer(Target::Binding(None), r.parameter.clone(), ctx.at(item.span(), &f));
                }
                out.push(r);
            }
        }
    }
    let max = &zoa_anim_core::budget::CHOOSER_COLUMNS;
    if let Err(e) = max.check("this row's ranges", out.len() as u64) {
        ctx.report(Code::OutOfRange, v.span(), &field, e.to_string());
        out.truncate(max.max as usize);
    }
    out
}

/// `<binding> in <min>..<max>` (either end may be left out).
fn parse_range(text: &str) -> Result<ValueRange, (Code, String)> {
    let expected = "expected `<binding> in <min>..<max>`, e.g. `speed in 2.0..4.0` (an end may be left out)";
    let bad = |m: String| (Code::InvalidValue, m);
    let (name, bounds) = text.split_once(" in ").ok_or_else(|| bad(format!("{expected}, found `{text}`")))?;
    let name = name.trim();
    if name.is_empty() || name.contains(char::is_whitespace) {
        return Err(bad(format!("{expected}; `{name}` is not a binding id")));
    }
    let (lo, hi) = bounds.split_once("..").ok_or_else(|| bad(format!("{expected}, found `{text}`")))?;
    let end = |s: &str, open: f32| -> Result<f32, (Code, String)> {
        let s = s.trim();
        if s.is_empty() {
            return Ok(open);
        }
        let v: f32 = s.parse().map_err(|_| bad(format!("{expected}; `{s}` is not a number")))?;
        if v.is_finite() {
            Ok(v)
        } else {
            Err((Code::NonFinite, format!("`{s}`: a range end must be finite (leave it out for an open end)")))
        }
    };
    let (min, max) = (end(lo, f32::NEG_INFINITY)?, end(hi, f32::INFINITY)?);
    if min >= max {
        return Err((Code::OutOfRange, format!("`{text}`: the range is empty (min {min} must be below max {max})")));
    }
    Ok(ValueRange { parameter: name.to_owned(), min, max })
}

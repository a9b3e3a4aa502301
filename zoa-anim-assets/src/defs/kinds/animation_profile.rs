//! `animation_profile`: a tagged clip table with inheritance.

use std::collections::HashMap;

use zoa_anim_core::{AnimationProfile, StateTagSet, TaggedClipEntry};

use super::read_parent;
use crate::defs::codes::Code;
use crate::defs::diag::FileCtx;
use crate::defs::read::{Obj, Rule, tags};
use crate::defs::spec::{Constraint, Field, KindSpec, Table, Ty};
use crate::defs::{Kind, Shared, Target};

static ENTRY: Table = Table::of(&[
    Field::opt("tags", Ty::Tags, "untagged", "see Tag patterns above"),
    Field::req("clip", Ty::Text, "the clip this row plays", "clip reference"),
    Field::opt("weight", Ty::Num(Rule::NonNegative), "`1`", "tie-breaker"),
    Field::opt("speed", Ty::Num(Rule::Speed), "`1`", "speed multiplier"),
    Field::opt("one_shot", Ty::Bool, "`false`", "plays once, then yields to the resolver"),
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
        ],
        constraints: &[Constraint::AnyOf(&["parent", "entries"])],
    },
    notes: "Warnings: a row repeating an earlier row's pattern (W001, it can never win: inheritance keeps each \
            pattern's first occurrence); a row with tags but no locomotion tag (I003, it becomes a catch-all \
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
    let mut seen: HashMap<StateTagSet, usize> = HashMap::new();
    for (i, mut row) in root.tables(ctx, "entries").into_iter().enumerate() {
        let tag_errors = ctx.error_count();
        let pattern = tags(ctx, &mut row, "tags");
        let tags_ok = ctx.error_count() == tag_errors;
        let clip = row.str(ctx, "clip");
        let weight = row.num(ctx, "weight").unwrap_or(1.0);
        let speed = row.num(ctx, "speed").unwrap_or(1.0);
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

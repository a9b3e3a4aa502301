//! Checks across files: unique ids, references, parent chains, model facts,
//! clip-table coverage, and the clip loop hints graph states inherit.

use std::collections::{HashMap, HashSet};

use zoa_anim_core::graph::Motion;
use zoa_anim_core::inheritance::MAX_INHERITANCE_DEPTH;
use zoa_anim_core::{AnimationBindingProfile, AnimationSelector, StateDimension, TaggedClipEntry};

use super::codes::Code;
use super::diag::{Diagnostic, slash_path};
use super::models::ModelCache;
use super::read::did_you_mean;
use super::{DefinitionSet, Kind, Shared, Target};

fn list(names: &[&str]) -> String {
    if names.is_empty() {
        return "none".into();
    }
    let mut v: Vec<&str> = names.to_vec();
    v.sort_unstable();
    v.dedup();
    if v.len() > 12 { format!("{}, … ({} in all)", v[..12].join(", "), v.len()) } else { v.join(", ") }
}

pub(crate) fn cross_file(set: &mut DefinitionSet, sh: &mut Shared) {
    let mut out: Vec<Diagnostic> = Vec::new();

    // Unique ids per kind; the first declaration wins.
    let mut first: HashMap<(Kind, &str), usize> = HashMap::new();
    for (i, d) in sh.decls.iter().enumerate() {
        if let Some(&j) = first.get(&(d.kind, d.id.as_str())) {
            let f = &sh.decls[j].at;
            out.push(d.at.diagnostic(
                Code::DuplicateId,
                format!(
                    "{} `{}` is already defined in {}:{}:{}; ids are unique per kind",
                    d.kind.name(),
                    d.id,
                    slash_path(&f.file),
                    f.line,
                    f.column
                ),
            ));
        } else {
            first.insert((d.kind, d.id.as_str()), i);
        }
    }
    let ids_of =
        |kind: Kind| -> Vec<&str> { sh.decls.iter().filter(|d| d.kind == kind).map(|d| d.id.as_str()).collect() };

    // Parents and cycles.
    for d in &sh.decls {
        let Some((parent, at)) = &d.parent else { continue };
        if !first.contains_key(&(d.kind, parent.as_str())) {
            out.push(at.diagnostic(
                Code::UnresolvedReference,
                format!(
                    "no {} `{parent}` to inherit from{}; declared: {}",
                    d.kind.name(),
                    did_you_mean(parent, ids_of(d.kind)),
                    list(&ids_of(d.kind))
                ),
            ));
            continue;
        }
        let mut chain = vec![d.id.as_str()];
        let mut current = parent.as_str();
        loop {
            if current == d.id {
                chain.push(current);
                out.push(at.diagnostic(
                    Code::InheritanceCycle,
                    format!("parent chain loops back to `{}`: {}", d.id, chain.join(" -> ")),
                ));
                break;
            }
            if chain.contains(&current) {
                break; // a loop further up; reported on its own members
            }
            chain.push(current);
            if chain.len() > MAX_INHERITANCE_DEPTH {
                out.push(at.diagnostic(
                    Code::InheritanceCycle,
                    format!("parent chain of `{}` is deeper than {MAX_INHERITANCE_DEPTH} levels", d.id),
                ));
                break;
            }
            let Some(&j) = first.get(&(d.kind, current)) else { break };
            match &sh.decls[j].parent {
                Some((p, _)) => current = p.as_str(),
                None => break,
            }
        }
    }

    // Models: load each once; missing and unreadable files are reported at every reference.
    let mut models = ModelCache::default();
    let mut all_models_ok = true;
    for r in &sh.refs {
        if let Target::Model(path) = &r.target {
            match models.get(path) {
                None => {
                    all_models_ok = false;
                    out.push(r.at.diagnostic(
                        Code::MissingFile,
                        format!("model file `{}` not found (paths are relative to the definition file)", r.name),
                    ));
                }
                Some(Err(e)) => {
                    all_models_ok = false;
                    out.push(r.at.diagnostic(Code::ModelUnreadable, format!("cannot load model `{}`: {e}", r.name)));
                }
                Some(Ok(_)) => {}
            }
        }
    }
    let clip_ids: HashSet<&str> = ids_of(Kind::Clip).into_iter().collect();
    let embedded: HashSet<String> =
        models.loaded().flat_map(|(_, m)| m.animations.iter().map(move |(a, _)| format!("{}_{a}", m.stem))).collect();

    let binding_profiles_complete = ids_of(Kind::BindingProfile).len() == set.binding_profiles.len();
    for r in &sh.refs {
        match &r.target {
            Target::Def(kind) => {
                if !first.contains_key(&(*kind, r.name.as_str())) {
                    out.push(r.at.diagnostic(
                        Code::UnresolvedReference,
                        format!(
                            "no {} `{}` in the folder{}; declared: {}",
                            kind.name(),
                            r.name,
                            did_you_mean(&r.name, ids_of(*kind)),
                            list(&ids_of(*kind))
                        ),
                    ));
                }
            }
            Target::Clip { model } => {
                if clip_ids.contains(r.name.as_str()) || embedded.contains(&r.name) {
                    continue;
                }
                let message = match model {
                    Some(m) => match models.get(m) {
                        Some(Ok(facts)) if facts.animation(&r.name).is_some() => continue,
                        Some(Ok(facts)) => format!(
                            "no clip `{}`: not a clip definition id, nor an animation of `{}.{}` (it has: {})",
                            r.name,
                            facts.stem,
                            m.extension().map(|e| e.to_string_lossy()).unwrap_or_default(),
                            list(&facts.animations.iter().map(|(a, _)| a.as_str()).collect::<Vec<_>>())
                        ),
                        _ => continue, // the model problem is reported at the model field
                    },
                    None if !all_models_ok => continue,
                    None => format!(
                        "no clip `{}`{}: not a clip definition id (declared: {}) nor `<model>_<animation>` of a model the folder uses",
                        r.name,
                        did_you_mean(&r.name, clip_ids.iter().copied()),
                        list(&clip_ids.iter().copied().collect::<Vec<_>>())
                    ),
                };
                out.push(r.at.diagnostic(Code::UnresolvedReference, message));
            }
            Target::Model(_) => {}
            Target::SoundFile(path) => {
                if !path.is_file() {
                    out.push(r.at.diagnostic(
                        Code::MissingSoundFile,
                        format!("sound file `{}` not found (paths are relative to the definition file)", r.name),
                    ));
                }
            }
            Target::Bone(m) => {
                if let Some(Ok(facts)) = models.get(m)
                    && facts.bones.binary_search(&r.name).is_err()
                {
                    let lower = r.name.to_ascii_lowercase();
                    let near: Vec<&str> = facts
                        .bones
                        .iter()
                        .filter(|b| {
                            let b = b.to_ascii_lowercase();
                            b.contains(&lower) || lower.contains(&b)
                        })
                        .map(String::as_str)
                        .collect();
                    let hint = if near.is_empty() { String::new() } else { format!("; similar: {}", list(&near)) };
                    out.push(
                        r.at.diagnostic(
                            Code::UnknownBone,
                            format!("the model's skeleton has no bone `{}`{hint}", r.name),
                        ),
                    );
                }
            }
            Target::Animation(m) => {
                if let Some(Ok(facts)) = models.get(m)
                    && facts.animation(&r.name).is_none()
                {
                    out.push(r.at.diagnostic(
                        Code::UnresolvedReference,
                        format!(
                            "the model has no animation `{}`; it has: {}",
                            r.name,
                            list(&facts.animations.iter().map(|(a, _)| a.as_str()).collect::<Vec<_>>())
                        ),
                    ));
                }
            }
            Target::NotifyTime { model, animation, time } => {
                if let Some(Ok(facts)) = models.get(model) {
                    let key = match animation {
                        AnimationSelector::Name(n) => n.clone(),
                        AnimationSelector::Index(i) => format!("#{i}"),
                    };
                    if let Some(i) = facts.animation(&key) {
                        let (name, duration) = &facts.animations[i];
                        if *time > duration + 1e-4 {
                            out.push(r.at.diagnostic(
                                Code::OutOfRange,
                                format!("notify at {time} s lies after the end of animation `{name}` ({duration} s)"),
                            ));
                        }
                    }
                }
            }
            Target::Binding(ty) => {
                if !binding_profiles_complete {
                    continue;
                }
                let found = set.binding_profiles.iter().find_map(|p| {
                    p.value.bindings().iter().find(|b| b.id.as_str() == r.name).map(|b| (p.value.profile_id(), b))
                });
                match found {
                    None => out.push(r.at.diagnostic(
                        Code::UnresolvedReference,
                        format!("no binding profile in the folder declares binding `{}`", r.name),
                    )),
                    Some((profile, b)) => {
                        if let Some(ty) = ty
                            && *ty != b.parameter_type
                            && !(b.parameter_type == zoa_anim_core::AnimationParameterType::Float
                                && *ty == zoa_anim_core::AnimationParameterType::Int)
                        {
                            out.push(r.at.diagnostic(
                                Code::TypeMismatch,
                                format!(
                                    "binding `{}` is a {} in binding profile `{profile}`; this step needs a {ty}",
                                    r.name, b.parameter_type
                                ),
                            ));
                        }
                    }
                }
            }
            Target::Slot => {
                if binding_profiles_complete
                    && !set.binding_profiles.iter().any(|p| p.value.slots().iter().any(|s| s.id.as_str() == r.name))
                {
                    out.push(r.at.diagnostic(
                        Code::UnresolvedReference,
                        format!("no binding profile in the folder declares slot `{}`", r.name),
                    ));
                }
            }
        }
    }

    // Graph states without an explicit `loop` take the clip asset's loop hint.
    let hints: HashMap<String, bool> = set.clips.iter().map(|c| (c.value.id.clone(), c.value.loop_hint)).collect();
    for g in &mut set.animation_graphs {
        let Some(explicit) = sh.explicit_loop.get(&g.value.id) else { continue };
        for (state, explicit) in g.value.states.iter_mut().zip(explicit) {
            if let (false, Motion::Clip(c)) = (explicit, &state.motion)
                && let Some(hint) = hints.get(c)
            {
                state.looping = *hint;
            }
        }
    }

    // Clip-table coverage.
    for p in &set.animation_profiles {
        let Some(Ok(rows)) = set.flattened_profile(&p.value.id) else { continue };
        if let Some(missing) = uncovered_locomotion(rows.iter().map(|r| &r.row))
            && let Some(at) = sh.profile_locations.get(&p.value.id)
        {
            let mut at = at.clone();
            at.field = "entries".into();
            out.push(at.diagnostic(
                Code::UncoveredState,
                format!(
                    "no untagged default row and no row without a locomotion tag, so states with locomotion {} \
                     (or no locomotion tag at all) resolve to nothing; add an untagged row or rows for them",
                    missing.join(", ")
                ),
            ));
        }
    }

    set.diagnostics.append(&mut out);
}

/// `None` when every state resolves in `rows`; otherwise the locomotion
/// flags whose single-flag states resolve to nothing.
///
/// Exhaustive but cheap: Locomotion is the one dimension never relaxed, and
/// at the last fallback step every other dimension is ignored, so a state
/// resolves iff some row is untagged or some row's locomotion mask is a
/// subset of the state's. Hence every one of the 2^14 locomotion masks (with
/// any other tags) resolves iff a row is untagged or has an empty locomotion
/// mask — one pass over the rows. When that fails, the state with no
/// locomotion flag never resolves, and the 14 single-flag checks name the
/// common states that do not (a multi-flag state resolves iff a row mask is a
/// subset of it).
pub(crate) fn uncovered_locomotion<'a>(rows: impl Iterator<Item = &'a TaggedClipEntry> + Clone) -> Option<Vec<String>> {
    let masks: Vec<(bool, u32)> =
        rows.map(|r| (r.has_any_tag(), r.to_pattern().mask(StateDimension::Locomotion))).collect();
    if masks.iter().any(|(tagged, loco)| !tagged || *loco == 0) {
        return None;
    }
    let missing: Vec<String> = StateDimension::Locomotion
        .flags()
        .filter(|(_, bit)| !masks.iter().any(|(_, loco)| loco & !bit == 0))
        .map(|(n, _)| n)
        .collect();
    Some(missing)
}

#[cfg(test)]
mod tests {
    use super::*;
    use zoa_anim_core::resolver::resolve_best_match;
    use zoa_anim_core::{LocomotionTag, StateTagSet};

    #[test]
    fn coverage_agrees_with_the_resolver_on_every_locomotion_mask() {
        let row = |t: &str| TaggedClipEntry::new(t.parse().unwrap(), "c");
        let tables = [
            vec![
                row("locomotion=walk"),
                row("locomotion=run|sprint mood=calm"),
                row("locomotion=idle posture=crouching"),
            ],
            vec![row("locomotion=walk"), row("combat=aiming")],
            vec![row("locomotion=walk"), TaggedClipEntry::new(StateTagSet::EMPTY, "idle")],
        ];
        for rows in tables {
            let missing = uncovered_locomotion(rows.iter());
            for bits in 0..=LocomotionTag::all().bits() {
                let state = StateTagSet::EMPTY
                    .with_mask(StateDimension::Locomotion, bits)
                    .with_mask(StateDimension::Mood, 1)
                    .with_mask(StateDimension::Posture, 1);
                let resolves = resolve_best_match(&rows, state).is_some();
                let loco = |r: &TaggedClipEntry| r.to_pattern().mask(StateDimension::Locomotion);
                let predicted = missing.is_none() || rows.iter().any(|r| loco(r) != 0 && loco(r) & !bits == 0);
                if bits.count_ones() == 1 {
                    let flag = StateDimension::Locomotion.flags().find(|(_, b)| *b == bits).unwrap().0;
                    assert_eq!(resolves, missing.as_ref().is_none_or(|m| !m.contains(&flag)), "{flag}");
                }
                assert_eq!(resolves, predicted, "mask {bits:#x}");
            }
        }
    }
}

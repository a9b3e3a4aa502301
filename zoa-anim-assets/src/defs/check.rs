//! Checks across files: unique ids, references, parent chains, model facts,
//! clip-table coverage, and the clip loop hints graph states inherit.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use zoa_anim_core::graph::Motion;
use zoa_anim_core::inheritance::MAX_INHERITANCE_DEPTH;
use zoa_anim_core::{
    AnimationBindingEntry, AnimationBindingProfile, AnimationParameterType, AnimationSelector, StateDimension,
    TaggedClipEntry,
};

use super::codes::Code;
use super::diag::Location;
use super::diag::{Diagnostic, slash_path};
use super::models::{ModelCache, ModelFacts};
use super::read::did_you_mean;
use super::{Decl, DefinitionSet, FailedFile, Kind, Ref, Shared, Target};

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
    let models = {
        let first = duplicate_ids(&sh.decls, &mut out);
        // Every lookup below is a hash lookup or a list computed once, so the pass
        // is linear in references + declarations (15k files naming 15k missing
        // parents used to take minutes).
        let ids = DeclaredIds::new(&sh.decls);
        let mut suggest = Suggester::default();
        let mut failed = FailedRefs::new(&sh.failed);
        parent_chains(&sh.decls, &first, &ids, &mut suggest, &mut failed, &mut out);
        let (models, all_models_ok) = load_models(&sh.refs, &mut out);
        let mut refs = ReferenceCheck::new(set, &first, &ids, suggest, models, all_models_ok, failed);
        out.extend(sh.refs.iter().filter_map(|r| refs.check(r)));
        refs.failed.report(&mut out);
        refs.models
    };
    // Kept with the set: building a character from it decodes no model again.
    set.models = models;
    apply_loop_hints(set, sh);
    clip_table_coverage(set, sh, &mut out);
    binding_parameters(set, sh, &mut out);
    item_classes(sh, &mut out);

    set.diagnostics.append(&mut out);
}

/// A weapon class holds one item: the second `equipment` claiming a class is
/// an E017 at its `classes` entry (files in path order, so the first file wins).
fn item_classes(sh: &Shared, out: &mut Vec<Diagnostic>) {
    let mut first: HashMap<zoa_anim_core::PlayerProfileType, (&str, &Location)> = HashMap::new();
    for (class, id, at) in &sh.item_classes {
        match first.get(class) {
            Some((other, was)) if *other != id.as_str() => out.push(at.diagnostic(
                Code::DuplicateName,
                format!(
                    "weapon class `{class}` already holds equipment `{other}` ({}:{}:{}); a class holds one item",
                    slash_path(&was.file),
                    was.line,
                    was.column
                ),
            )),
            Some(_) => {}
            None => {
                first.insert(*class, (id.as_str(), at));
            }
        }
    }
}

/// Unique ids per kind; the first declaration wins. Returns (kind, id) → index
/// of the first declaration in `decls`.
fn duplicate_ids<'a>(decls: &'a [Decl], out: &mut Vec<Diagnostic>) -> HashMap<(Kind, &'a str), usize> {
    let mut first: HashMap<(Kind, &str), usize> = HashMap::new();
    for (i, d) in decls.iter().enumerate() {
        if let Some(&j) = first.get(&(d.kind, d.id.as_str())) {
            let f = &decls[j].at;
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
    first
}

/// The declared ids of each kind, and each kind's list for messages (computed once).
#[derive(Debug)]
struct DeclaredIds<'a> {
    by_kind: HashMap<Kind, Vec<&'a str>>,
    listed: HashMap<Kind, String>,
}

impl<'a> DeclaredIds<'a> {
    fn new(decls: &'a [Decl]) -> Self {
        let mut by_kind: HashMap<Kind, Vec<&str>> = HashMap::new();
        for d in decls {
            by_kind.entry(d.kind).or_default().push(d.id.as_str());
        }
        let listed = by_kind.iter().map(|(k, v)| (*k, list(v))).collect();
        DeclaredIds { by_kind, listed }
    }

    /// Every id declared for `kind`, in declaration order (duplicates included).
    fn ids(&self, kind: Kind) -> &[&'a str] {
        self.by_kind.get(&kind).map_or(&[][..], Vec::as_slice)
    }

    /// The ids of `kind` as a list for messages ("none" when there is none).
    fn listed(&self, kind: Kind) -> String {
        self.listed.get(&kind).cloned().unwrap_or_else(|| "none".to_owned())
    }
}

/// Parents exist, and parent chains neither loop nor run deeper than
/// [`MAX_INHERITANCE_DEPTH`].
fn parent_chains(
    decls: &[Decl],
    first: &HashMap<(Kind, &str), usize>,
    ids: &DeclaredIds<'_>,
    suggest: &mut Suggester,
    failed: &mut FailedRefs<'_>,
    out: &mut Vec<Diagnostic>,
) {
    for d in decls {
        let Some((parent, at)) = &d.parent else { continue };
        if !first.contains_key(&(d.kind, parent.as_str())) {
            if failed.hold(d.kind, parent, at) {
                continue;
            }
            out.push(at.diagnostic(
                Code::UnresolvedReference,
                format!(
                    "no {} `{parent}` to inherit from{}; declared: {}",
                    d.kind.name(),
                    suggest.did_you_mean(parent, ids.ids(d.kind)),
                    ids.listed(d.kind)
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
            match &decls[j].parent {
                Some((p, _)) => current = p.as_str(),
                None => break,
            }
        }
    }
}

/// `path` made absolute (against the working directory) and lexically
/// normalized (`a/../b` is `b`; links are not resolved), for messages that
/// say where a file was looked for.
fn absolute(path: &Path) -> PathBuf {
    let path = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// Loads every referenced model once; missing and unreadable files are
/// reported at every reference. Returns the cache and whether every model loaded.
fn load_models(refs: &[Ref], out: &mut Vec<Diagnostic>) -> (ModelCache, bool) {
    let mut models = ModelCache::default();
    let mut all_models_ok = true;
    for r in refs {
        if let Target::Model(path) = &r.target {
            match models.load(path) {
                None => {
                    all_models_ok = false;
                    out.push(r.at.diagnostic(
                        Code::MissingFile,
                        format!(
                            "model file `{}` not found: looked for `{}` (paths are relative to the definition file)",
                            r.name,
                            absolute(path).display()
                        ),
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
    (models, all_models_ok)
}

/// Resolves each cross-file reference (except model files, checked by
/// [`load_models`]) against the folder's declarations, models, sound files
/// and binding profiles.
#[derive(Debug)]
struct ReferenceCheck<'a> {
    first: &'a HashMap<(Kind, &'a str), usize>,
    ids: &'a DeclaredIds<'a>,
    suggest: Suggester,
    models: ModelCache,
    all_models_ok: bool,
    clip_ids: HashSet<&'a str>,
    clips_listed: String,
    /// Per model, its animations as a list for messages (computed once per model).
    animations_listed: HashMap<PathBuf, String>,
    /// The first binding profile (in file order) declaring each binding id.
    binding_index: HashMap<&'a str, (&'a str, &'a AnimationBindingEntry)>,
    slot_ids: HashSet<&'a str>,
    /// Every state name of the folder's animation graphs; `None` when a graph
    /// (or a file that may be one) did not load, so state names are not checked.
    graph_states: Option<Vec<&'a str>>,
    /// `<model stem>_<animation>` of every loaded model.
    embedded: HashSet<String>,
    /// Every declared binding profile read without errors, and no file that
    /// failed to load may be one (else binding and slot references are not checked).
    binding_profiles_complete: bool,
    /// References to the definitions of files that did not load.
    failed: FailedRefs<'a>,
}

impl<'a> ReferenceCheck<'a> {
    fn new(
        set: &'a DefinitionSet,
        first: &'a HashMap<(Kind, &'a str), usize>,
        ids: &'a DeclaredIds<'a>,
        suggest: Suggester,
        models: ModelCache,
        all_models_ok: bool,
        failed: FailedRefs<'a>,
    ) -> Self {
        let mut binding_index: HashMap<&str, (&str, &AnimationBindingEntry)> = HashMap::new();
        let mut slot_ids: HashSet<&str> = HashSet::new();
        for p in &set.binding_profiles {
            for b in p.value.bindings() {
                binding_index.entry(b.id.as_str()).or_insert((p.value.profile_id(), b));
            }
            slot_ids.extend(p.value.slots().iter().map(|s| s.id.as_str()));
        }
        let graphs_complete = ids.ids(Kind::AnimationGraph).len() == set.animation_graphs.len()
            && !failed.files.iter().any(|f| f.kind.is_none_or(|k| k == Kind::AnimationGraph));
        let graph_states = graphs_complete.then(|| {
            let mut names: Vec<&str> =
                set.animation_graphs.iter().flat_map(|g| g.value.states.iter().map(|s| s.name.as_str())).collect();
            names.sort_unstable();
            names.dedup();
            names
        });
        let embedded: HashSet<String> = models
            .loaded()
            .flat_map(|(_, m)| m.animations.iter().map(move |(a, _)| format!("{}_{a}", m.stem)))
            .collect();
        ReferenceCheck {
            first,
            ids,
            suggest,
            models,
            all_models_ok,
            clip_ids: ids.ids(Kind::Clip).iter().copied().collect(),
            clips_listed: ids.listed(Kind::Clip),
            animations_listed: HashMap::new(),
            binding_index,
            slot_ids,
            graph_states,
            embedded,
            binding_profiles_complete: ids.ids(Kind::BindingProfile).len() == set.binding_profiles.len()
                && !failed.may_hide_bindings(),
            failed,
        }
    }

    /// The problem with reference `r`, if any.
    fn check(&mut self, r: &Ref) -> Option<Diagnostic> {
        match &r.target {
            Target::Def(kind) => self.definition(r, *kind),
            Target::Clip { model } => self.clip(r, model.as_deref()),
            Target::Model(_) => None,
            Target::SoundFile(path) => (!path.is_file()).then(|| {
                r.at.diagnostic(
                    Code::MissingSoundFile,
                    format!(
                        "sound file `{}` not found: looked for `{}` (paths are relative to the definition file)",
                        r.name,
                        absolute(path).display()
                    ),
                )
            }),
            Target::Bone(m) => self.bone(r, m),
            Target::RigBone => self.rig_bone(r),
            Target::Animation(m) => self.animation(r, m),
            Target::ClipTime { model, animation, time, what } => self.clip_time(r, model, animation, *time, what),
            Target::Binding(ty) => self.binding(r, *ty),
            Target::Slot if !self.binding_profiles_complete => {
                self.failed.unchecked_bindings += usize::from(self.failed.may_hide_bindings());
                None
            }
            Target::GraphState => {
                let states = self.graph_states.as_ref()?;
                states.binary_search(&r.name.as_str()).is_err().then(|| {
                    let hint = self.suggest.did_you_mean(&r.name, states);
                    r.at.diagnostic(
                        Code::UnresolvedReference,
                        format!("no animation_graph in the folder has a state `{}`{hint}", r.name),
                    )
                })
            }
            Target::Slot => (!self.slot_ids.contains(r.name.as_str())).then(|| {
                r.at.diagnostic(
                    Code::UnresolvedReference,
                    format!("no binding profile in the folder declares slot `{}`", r.name),
                )
            }),
        }
    }

    fn definition(&mut self, r: &Ref, kind: Kind) -> Option<Diagnostic> {
        if self.first.contains_key(&(kind, r.name.as_str())) || self.failed.hold(kind, &r.name, &r.at) {
            return None;
        }
        Some(r.at.diagnostic(
            Code::UnresolvedReference,
            format!(
                "no {} `{}` in the folder{}; declared: {}",
                kind.name(),
                r.name,
                self.suggest.did_you_mean(&r.name, self.ids.ids(kind)),
                self.ids.listed(kind)
            ),
        ))
    }

    fn clip(&mut self, r: &Ref, model: Option<&Path>) -> Option<Diagnostic> {
        if self.clip_ids.contains(r.name.as_str())
            || self.embedded.contains(&r.name)
            || self.failed.hold(Kind::Clip, &r.name, &r.at)
        {
            return None;
        }
        let message = match model {
            Some(m) => match self.models.load(m) {
                Some(Ok(facts)) if facts.animation(&r.name).is_some() => return None,
                Some(Ok(facts)) => format!(
                    "no clip `{}`: not a clip definition id, nor an animation of `{}.{}` (it has: {})",
                    r.name,
                    facts.stem,
                    m.extension().map(|e| e.to_string_lossy()).unwrap_or_default(),
                    animations_of(&mut self.animations_listed, m, facts)
                ),
                _ => return None, // the model problem is reported at the model field
            },
            None if !self.all_models_ok => return None,
            None => format!(
                "no clip `{}`{}: not a clip definition id (declared: {}) nor `<model>_<animation>` of a model the folder uses",
                r.name,
                self.suggest.did_you_mean(&r.name, self.ids.ids(Kind::Clip)),
                self.clips_listed
            ),
        };
        Some(r.at.diagnostic(Code::UnresolvedReference, message))
    }

    fn bone(&mut self, r: &Ref, m: &Path) -> Option<Diagnostic> {
        let Some(Ok(facts)) = self.models.load(m) else { return None };
        if facts.bones.binary_search(&r.name).is_ok() {
            return None;
        }
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
        Some(r.at.diagnostic(Code::UnknownBone, format!("the model's skeleton has no bone `{}`{hint}", r.name)))
    }

    /// A rig policy's bone: fine when any model the folder uses has it (or
    /// when no model with bones loaded, so there is nothing to check against).
    fn rig_bone(&mut self, r: &Ref) -> Option<Diagnostic> {
        if !self.all_models_ok {
            return None; // a model that did not load may be the one with the bone
        }
        let mut models = self.models.loaded().filter(|(_, f)| !f.bones.is_empty()).peekable();
        models.peek()?;
        let mut bones: Vec<&str> = Vec::new();
        for (_, facts) in models {
            if facts.bones.binary_search(&r.name).is_ok() {
                return None;
            }
            bones.extend(facts.bones.iter().map(String::as_str));
        }
        let hint = did_you_mean(&r.name, bones.iter().copied());
        Some(r.at.diagnostic(Code::UnknownBone, format!("no model of the folder has a bone `{}`{hint}", r.name)))
    }

    fn animation(&mut self, r: &Ref, m: &Path) -> Option<Diagnostic> {
        let Some(Ok(facts)) = self.models.load(m) else { return None };
        if facts.animation(&r.name).is_some() {
            return None;
        }
        Some(r.at.diagnostic(
            Code::UnresolvedReference,
            format!(
                "the model has no animation `{}`; it has: {}",
                r.name,
                animations_of(&mut self.animations_listed, m, facts)
            ),
        ))
    }

    fn clip_time(
        &mut self,
        r: &Ref,
        model: &Path,
        animation: &AnimationSelector,
        time: f32,
        what: &str,
    ) -> Option<Diagnostic> {
        let Some(Ok(facts)) = self.models.load(model) else { return None };
        let key = match animation {
            AnimationSelector::Name(n) => n.clone(),
            AnimationSelector::Index(i) => format!("#{i}"),
        };
        let (name, duration) = &facts.animations[facts.animation(&key)?];
        (time > duration + 1e-4).then(|| {
            r.at.diagnostic(
                Code::OutOfRange,
                format!("{what} at {time} s lies after the end of animation `{name}` ({duration} s)"),
            )
        })
    }

    fn binding(&mut self, r: &Ref, ty: Option<AnimationParameterType>) -> Option<Diagnostic> {
        if !self.binding_profiles_complete {
            self.failed.unchecked_bindings += usize::from(self.failed.may_hide_bindings());
            return None;
        }
        let Some(&(profile, b)) = self.binding_index.get(r.name.as_str()) else {
            return Some(r.at.diagnostic(
                Code::UnresolvedReference,
                format!("no binding profile in the folder declares binding `{}`", r.name),
            ));
        };
        // A float binding may drive an int parameter.
        let ty = ty.filter(|ty| {
            *ty != b.parameter_type
                && !(b.parameter_type == AnimationParameterType::Float && *ty == AnimationParameterType::Int)
        })?;
        Some(r.at.diagnostic(
            Code::TypeMismatch,
            format!(
                "binding `{}` is a {} in binding profile `{profile}`; this step needs a {ty}",
                r.name, b.parameter_type
            ),
        ))
    }
}

/// References that name what a file that did not load probably declared:
/// held back from the unresolved-reference check and reported once, at
/// that file (I005), so one broken file does not cascade into an error at
/// every place that names its definition.
#[derive(Debug)]
struct FailedRefs<'a> {
    files: &'a [FailedFile],
    /// Per failed file, the references held for it.
    held: Vec<Vec<Location>>,
    /// Binding and slot references left unchecked because a failed file may be a binding profile.
    unchecked_bindings: usize,
}

impl<'a> FailedRefs<'a> {
    fn new(files: &'a [FailedFile]) -> Self {
        FailedRefs { files, held: vec![Vec::new(); files.len()], unchecked_bindings: 0 }
    }

    /// Holds the reference at `at` when a failed file may declare `id` of `kind`.
    fn hold(&mut self, kind: Kind, id: &str, at: &Location) -> bool {
        let Some(k) = self.files.iter().position(|f| f.may_declare(kind, id)) else { return false };
        self.held[k].push(at.clone());
        true
    }

    /// Whether a failed file may be a binding profile (its bindings and slots
    /// are then unknown, so references to bindings and slots are not checked).
    fn may_hide_bindings(&self) -> bool {
        self.files.iter().any(FailedFile::may_be_binding_profile)
    }

    /// One I005 note per failed file that references were held for.
    fn report(&self, out: &mut Vec<Diagnostic>) {
        for (f, held) in self.files.iter().zip(&self.held) {
            let at = Location { file: f.file.clone(), line: 1, column: 1, span: 0..0, field: String::new() };
            if self.unchecked_bindings > 0 && f.may_be_binding_profile() {
                out.push(at.diagnostic(
                    Code::UncheckedReferences,
                    format!(
                        "this file did not load and may be a binding profile, so {} binding and slot reference(s) \
                         in the folder are not checked",
                        self.unchecked_bindings
                    ),
                ));
            }
            if held.is_empty() {
                continue;
            }
            let kind = f.kind.map_or("definition", Kind::name);
            let shown: Vec<String> =
                held.iter().take(5).map(|at| format!("{}:{}:{}", slash_path(&at.file), at.line, at.column)).collect();
            let more = if held.len() > 5 { format!(", and {} more", held.len() - 5) } else { String::new() };
            out.push(at.diagnostic(
                Code::UncheckedReferences,
                format!(
                    "this file did not load, so the {kind} `{}` it declares is missing; {} reference(s) to it are \
                     not checked: {}{more}",
                    f.id,
                    held.len(),
                    shown.join(", ")
                ),
            ));
        }
    }
}

/// Model `m`'s animations as a list for messages, computed once per model.
fn animations_of(cache: &mut HashMap<PathBuf, String>, m: &Path, facts: &ModelFacts) -> String {
    cache
        .entry(m.to_path_buf())
        .or_insert_with(|| list(&facts.animations.iter().map(|(a, _)| a.as_str()).collect::<Vec<_>>()))
        .clone()
}

/// Graph states without an explicit `loop` take the clip asset's loop hint.
pub(crate) fn apply_loop_hints(set: &mut DefinitionSet, sh: &Shared) {
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
}

/// Clip-table coverage (profiles looked up by id through an index, first wins).
fn clip_table_coverage(set: &DefinitionSet, sh: &Shared, out: &mut Vec<Diagnostic>) {
    let mut profile_index: HashMap<&str, &zoa_anim_core::AnimationProfile> = HashMap::new();
    for p in &set.animation_profiles {
        profile_index.entry(p.value.id.as_str()).or_insert(&p.value);
    }
    for p in &set.animation_profiles {
        let Ok(rows) = zoa_anim_core::inheritance::flatten_chain(&p.value, |id| profile_index.get(id).copied()) else {
            continue;
        };
        // Rows with chooser columns hold only in range: the tags alone must cover.
        if let Some(missing) = uncovered_locomotion(rows.iter().map(|r| &r.row).filter(|r| r.ranges.is_empty()))
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
}

/// `an` before `int`, else `a` (parameter type names).
fn article(type_name: &str) -> &'static str {
    if type_name.starts_with(['a', 'e', 'i', 'o', 'u']) { "an" } else { "a" }
}

/// W007: every binding of every binding profile against the graphs it drives.
///
/// A binding profile drives a graph through a player profile set entry: the
/// entry's `animation_graph`, else the graph of the set's default class (the
/// runtime's rule). Per binding row and graph, a parameter the graph does not
/// have, or has with another type, is one warning at the row's `parameter`
/// (missing) or `type` (other type) value, naming the classes concerned; a
/// `layer` at or past the graph's layer count is one warning at that value. A
/// profile no set entry ties to a graph is not checked (nothing drives it);
/// unknown ids are the reference check's business (E012).
fn binding_parameters(set: &DefinitionSet, sh: &Shared, out: &mut Vec<Diagnostic>) {
    let graph = |id: &str| set.animation_graphs.iter().map(|g| &g.value).find(|g| g.id == id);
    // (profile, graph) → classes (with their set), in set and entry order.
    let mut driven: Vec<((&str, &str), Vec<String>)> = Vec::new();
    for s in &set.player_profile_sets {
        let default_graph = s.value.resolve_profile(s.value.default_profile).and_then(|e| e.animation_graph.as_deref());
        for e in &s.value.profiles {
            let Some(g) = e.animation_graph.as_deref().or(default_graph) else { continue };
            let key = (e.binding_profile.as_str(), g);
            let class = format!("{} in set `{}`", e.class.name(), s.value.id);
            match driven.iter_mut().find(|(k, _)| *k == key) {
                Some((_, classes)) => classes.push(class),
                None => driven.push((key, vec![class])),
            }
        }
    }
    for ((profile_id, graph_id), classes) in &driven {
        let (Some(profile), Some(g), Some(rows)) = (
            set.binding_profiles.iter().map(|p| &p.value).find(|p| p.profile_id() == *profile_id),
            graph(graph_id),
            sh.binding_rows.get(*profile_id),
        ) else {
            continue;
        };
        let classes = classes.join(", ");
        for b in profile.bindings() {
            let Some(at) = rows.iter().find(|r| r.id == b.id.as_str()) else { continue };
            match g.parameters.iter().find(|p| p.name == b.parameter_name) {
                None => {
                    let names: Vec<&str> = g.parameters.iter().map(|p| p.name.as_str()).collect();
                    out.push(at.parameter.diagnostic(
                        Code::BindingGraphMismatch,
                        format!(
                            "binding `{}` sets parameter `{}`, which graph `{}` (driven for {classes}) does not have{}; \
                             the binding does nothing there; the graph's parameters: {}",
                            b.id,
                            b.parameter_name,
                            g.id,
                            did_you_mean(&b.parameter_name, names.iter().copied()),
                            list(&names)
                        ),
                    ));
                }
                Some(p) if p.default.type_name() != b.parameter_type.name() => {
                    out.push(at.ty.diagnostic(
                        Code::BindingGraphMismatch,
                        format!(
                            "binding `{}` is declared {} {}, but parameter `{}` of graph `{}` (driven for {classes}) \
                             is {} {}; the binding does nothing there",
                            b.id,
                            article(b.parameter_type.name()),
                            b.parameter_type,
                            p.name,
                            g.id,
                            article(p.default.type_name()),
                            p.default.type_name()
                        ),
                    ));
                }
                Some(_) => {}
            }
            // The layer it targets (>= 0; -1 = the base layer) must be one of the graph's.
            if let Some(layer_at) = &at.layer
                && b.layer_index >= 0
                && b.layer_index as usize >= g.layers.len()
            {
                out.push(layer_at.diagnostic(
                    Code::BindingGraphMismatch,
                    format!(
                        "binding `{}` targets layer {}, but graph `{}` (driven for {classes}) has {} layer(s) \
                         (0..={}); the binding does nothing there",
                        b.id,
                        b.layer_index,
                        g.id,
                        g.layers.len(),
                        g.layers.len().saturating_sub(1)
                    ),
                ));
            }
        }
    }
}

/// Most candidate comparisons spent on "did you mean" suggestions in one
/// folder; once spent, unresolved names get no suggestion (so a folder with
/// thousands of misspelt references stays linear).
const SUGGESTION_BUDGET: usize = 250_000;

/// [`did_you_mean`] under [`SUGGESTION_BUDGET`].
#[derive(Debug)]
struct Suggester {
    left: usize,
}

impl Default for Suggester {
    fn default() -> Self {
        Suggester { left: SUGGESTION_BUDGET }
    }
}

impl Suggester {
    fn did_you_mean(&mut self, name: &str, candidates: &[&str]) -> String {
        if candidates.len() > self.left {
            self.left = 0;
            return String::new();
        }
        self.left -= candidates.len();
        did_you_mean(name, candidates.iter().copied())
    }
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

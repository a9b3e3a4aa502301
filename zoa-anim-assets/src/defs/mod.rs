#![doc = include_str!("README.md")]

mod check;
pub mod codes;
mod diag;
mod kinds;
pub(crate) use kinds::all_specs;
mod models;
mod read;
pub mod reference;
mod render;
pub mod spec;

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};

use toml::de::DeTable;
use zoa_anim_core::preview::PreviewPreset;
use zoa_anim_core::{
    AnimationBindingProfile, AnimationGraph, AnimationProfile, BindingProfile, ClipAsset, Equipment, PlayerProfileSet,
    PlayerProfileType, RigPolicy, SoundProfile, StateGraph,
};

pub use codes::{Code, MAX_FILE_BYTES};
pub use diag::{Diagnostic, Severity};
use diag::{FileCtx, Location};
pub use kinds::animation_graph::split_condition;
pub use render::{render_human, render_json};

/// A definition together with the file it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Loaded<T> {
    /// The validated definition.
    pub value: T,
    /// Its file, relative to the loaded folder.
    pub file: PathBuf,
}

/// Everything a definition folder holds, plus every problem found in it.
///
/// A definition with an error in its own file is left out of its list (only
/// data that passed becomes a core type); cross-file problems (an unresolved
/// reference, a duplicate id) are reported but do not remove it. Lists are in
/// file order (sorted relative paths).
#[derive(Debug, Clone, Default)]
pub struct DefinitionSet {
    /// `binding_profile` definitions.
    pub binding_profiles: Vec<Loaded<BindingProfile>>,
    /// `animation_profile` definitions (unflattened; see [`DefinitionSet::flattened_profile`]).
    pub animation_profiles: Vec<Loaded<AnimationProfile>>,
    /// `state_graph` definitions.
    pub state_graphs: Vec<Loaded<StateGraph>>,
    /// `rig_policy` definitions.
    pub rig_policies: Vec<Loaded<RigPolicy>>,
    /// `sound_profile` definitions (unflattened).
    pub sound_profiles: Vec<Loaded<SoundProfile>>,
    /// `player_profile_set` definitions.
    pub player_profile_sets: Vec<Loaded<PlayerProfileSet>>,
    /// `clip` definitions.
    pub clips: Vec<Loaded<ClipAsset>>,
    /// `animation_graph` definitions.
    pub animation_graphs: Vec<Loaded<AnimationGraph>>,
    /// `preview_preset` definitions.
    pub preview_presets: Vec<Loaded<PreviewPreset>>,
    /// `equipment` definitions.
    pub equipment: Vec<Loaded<Equipment>>,
    /// Every problem, sorted by file, line, column and code.
    pub diagnostics: Vec<Diagnostic>,
    /// The model files the definitions name, decoded once by the load (see [`DefinitionSet::model`]).
    pub(crate) models: models::ModelCache,
    /// Every file's declaration (kind, id, file), whether or not its
    /// definition loaded (see [`DefinitionSet::files_declaring`]).
    pub(crate) declarations: Vec<(Kind, String, PathBuf)>,
}

fn find<'a, T>(list: &'a [Loaded<T>], id: &str, key: impl Fn(&T) -> &str) -> Option<&'a T> {
    list.iter().map(|l| &l.value).find(|v| key(v) == id)
}

impl DefinitionSet {
    /// The files that declare `id` as a definition of `kind` (a kind name such
    /// as `preview_preset`), in path order, whether or not the definition
    /// loaded: where to look when an id names nothing valid.
    #[must_use]
    pub fn files_declaring(&self, kind: &str, id: &str) -> Vec<&Path> {
        let Some(kind) = Kind::from_name(kind) else { return Vec::new() };
        let mut files: Vec<&Path> =
            self.declarations.iter().filter(|(k, i, _)| *k == kind && i == id).map(|(_, _, f)| f.as_path()).collect();
        files.sort_unstable();
        files.dedup();
        files
    }

    /// The diagnostics of the files that declare `id` as a `kind` (see
    /// [`DefinitionSet::files_declaring`]).
    #[must_use]
    pub fn diagnostics_of_declaration(&self, kind: &str, id: &str) -> Vec<&Diagnostic> {
        let files = self.files_declaring(kind, id);
        self.diagnostics.iter().filter(|d| files.contains(&d.file.as_path())).collect()
    }

    /// Number of error diagnostics.
    #[must_use]
    pub fn error_count(&self) -> usize {
        self.diagnostics.iter().filter(|d| d.severity == Severity::Error).count()
    }
    /// Number of warning diagnostics (infos count in neither number).
    #[must_use]
    pub fn warning_count(&self) -> usize {
        self.diagnostics.iter().filter(|d| d.severity == Severity::Warning).count()
    }
    /// The binding profile `id`.
    #[must_use]
    pub fn binding_profile(&self, id: &str) -> Option<&BindingProfile> {
        find(&self.binding_profiles, id, |v| v.profile_id())
    }
    /// The animation profile `id`.
    #[must_use]
    pub fn animation_profile(&self, id: &str) -> Option<&AnimationProfile> {
        find(&self.animation_profiles, id, |v| &v.id)
    }
    /// The state graph `id`.
    #[must_use]
    pub fn state_graph(&self, id: &str) -> Option<&StateGraph> {
        find(&self.state_graphs, id, |v| &v.id)
    }
    /// The rig policy `id`.
    #[must_use]
    pub fn rig_policy(&self, id: &str) -> Option<&RigPolicy> {
        find(&self.rig_policies, id, |v| &v.id)
    }
    /// The sound profile `id`.
    #[must_use]
    pub fn sound_profile(&self, id: &str) -> Option<&SoundProfile> {
        find(&self.sound_profiles, id, |v| &v.id)
    }
    /// The player profile set `id`.
    #[must_use]
    pub fn player_profile_set(&self, id: &str) -> Option<&PlayerProfileSet> {
        find(&self.player_profile_sets, id, |v| &v.id)
    }
    /// The clip asset `id`.
    #[must_use]
    pub fn clip(&self, id: &str) -> Option<&ClipAsset> {
        find(&self.clips, id, |v| &v.id)
    }
    /// The animation graph `id`.
    #[must_use]
    pub fn animation_graph(&self, id: &str) -> Option<&AnimationGraph> {
        find(&self.animation_graphs, id, |v| &v.id)
    }
    /// The preview preset `id`.
    #[must_use]
    pub fn preview_preset(&self, id: &str) -> Option<&PreviewPreset> {
        find(&self.preview_presets, id, |v| &v.id)
    }
    /// The equipment `id`.
    #[must_use]
    pub fn equipment(&self, id: &str) -> Option<&Equipment> {
        find(&self.equipment, id, |v| &v.id)
    }
    /// The equipment weapon class `class` holds (the first by file order;
    /// a class claimed twice is an E017).
    #[must_use]
    pub fn equipment_for(&self, class: PlayerProfileType) -> Option<&Equipment> {
        self.equipment.iter().map(|l| &l.value).find(|e| e.is_for(class))
    }

    /// The model at `path` (the loaded folder joined with the folder-relative
    /// path a definition names, as [`ClipAsset::source`] holds it), as the
    /// folder load decoded it: `None` when no definition named it or it does
    /// not exist, `Err` with the loader's message when it did not load.
    #[must_use]
    pub fn model(&self, path: &Path) -> Option<Result<&std::sync::Arc<crate::gltf::GltfAsset>, &str>> {
        self.models.get(path)
    }

    /// The inherited (flattened) clip table of animation profile `id`: child
    /// rows first, each pattern's first occurrence kept.
    #[must_use]
    pub fn flattened_profile(
        &self,
        id: &str,
    ) -> Option<
        Result<Vec<zoa_anim_core::inheritance::InheritedRow<zoa_anim_core::TaggedClipEntry>>, zoa_anim_core::CoreError>,
    > {
        let start = self.animation_profile(id)?;
        Some(zoa_anim_core::inheritance::flatten_chain(start, |p| self.animation_profile(p)))
    }

    /// The inherited (flattened) entries of sound profile `id`.
    #[must_use]
    pub fn flattened_sound_profile(
        &self,
        id: &str,
    ) -> Option<
        Result<Vec<zoa_anim_core::inheritance::InheritedRow<zoa_anim_core::SoundEventEntry>>, zoa_anim_core::CoreError>,
    > {
        let start = self.sound_profile(id)?;
        Some(zoa_anim_core::inheritance::flatten_chain(start, |p| self.sound_profile(p)))
    }
}

/// The ten definition kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Kind {
    BindingProfile,
    AnimationProfile,
    StateGraph,
    RigPolicy,
    SoundProfile,
    PlayerProfileSet,
    Clip,
    AnimationGraph,
    PreviewPreset,
    Equipment,
}

impl Kind {
    pub(crate) const ALL: [Kind; 10] = [
        Kind::BindingProfile,
        Kind::AnimationProfile,
        Kind::StateGraph,
        Kind::RigPolicy,
        Kind::SoundProfile,
        Kind::PlayerProfileSet,
        Kind::Clip,
        Kind::AnimationGraph,
        Kind::PreviewPreset,
        Kind::Equipment,
    ];
    pub(crate) const fn name(self) -> &'static str {
        match self {
            Kind::BindingProfile => "binding_profile",
            Kind::AnimationProfile => "animation_profile",
            Kind::StateGraph => "state_graph",
            Kind::RigPolicy => "rig_policy",
            Kind::SoundProfile => "sound_profile",
            Kind::PlayerProfileSet => "player_profile_set",
            Kind::Clip => "clip",
            Kind::AnimationGraph => "animation_graph",
            Kind::PreviewPreset => "preview_preset",
            Kind::Equipment => "equipment",
        }
    }
    fn from_name(s: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.name() == s)
    }
}

/// The `kind` and `id` a definition's text declares, checked with the rules
/// the loader applies (E003 not TOML, E004 an unknown or missing kind, E006 a
/// missing id, E010 an id that breaks the id syntax): what a tool that writes
/// definition files checks before it writes one. Returns `(kind, id)`.
///
/// # Errors
/// Why the declaration would not load, in the loader's words.
pub fn check_declaration(text: &str) -> Result<(&'static str, String), String> {
    let table: toml::Table =
        text.parse().map_err(|e: toml::de::Error| format!("the text is not valid TOML: {}", e.message().trim()))?;
    let get = |key: &str| table.get(key).and_then(toml::Value::as_str);
    check_kind_and_id(get("kind"), get("id"))
}

/// [`check_declaration`] on values already read (for text that does not
/// parse, from its `key = "value"` lines): the kind must be one of the nine,
/// the id present and of valid syntax.
///
/// # Errors
/// Why the declaration would not load, in the loader's words.
pub fn check_kind_and_id(kind: Option<&str>, id: Option<&str>) -> Result<(&'static str, String), String> {
    let valid = || Kind::ALL.iter().map(|k| k.name()).collect::<Vec<_>>().join(", ");
    let kind = match kind {
        Some(k) => Kind::from_name(k).ok_or_else(|| format!("unknown kind `{k}`; expected one of: {}", valid()))?,
        None => return Err(format!("`kind` is missing or not a string; expected one of: {}", valid())),
    };
    let Some(id) = id else {
        return Err("`id` is missing or not a string".to_owned());
    };
    zoa_anim_core::ids::check_id_syntax(id).map_err(|reason| format!("invalid id `{id}`: {reason}"))?;
    Ok((kind.name(), id.to_owned()))
}

/// What a reference must resolve to (checked once every file is read).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Target {
    /// A definition id of a kind.
    Def(Kind),
    /// A clip: a clip asset id, `<model stem>_<animation>` of any model the
    /// folder uses, or (inside a graph) an animation name of the graph's model.
    Clip { model: Option<PathBuf> },
    /// A model file on disk (absolute or relative to the working directory).
    Model(PathBuf),
    /// A sound file on disk.
    SoundFile(PathBuf),
    /// A bone of the model's skeletons.
    Bone(PathBuf),
    /// A bone a rig policy names (it names no model): some skinned model the
    /// folder uses must have it.
    RigBone,
    /// An animation of the model, by name or index (name holds `#<index>` for indices).
    Animation(PathBuf),
    /// A clip time (`what`: a notify's, a window's end, a marker's, a curve
    /// key's) that must not exceed the duration of the animation of the model.
    ClipTime { model: PathBuf, animation: zoa_anim_core::AnimationSelector, time: f32, what: &'static str },
    /// A binding id declared by some binding profile, optionally of a parameter type.
    Binding(Option<zoa_anim_core::AnimationParameterType>),
    /// A slot id declared by some binding profile.
    Slot,
    /// A state name of some animation graph of the folder.
    GraphState,
}

/// One cross-file reference.
#[derive(Debug, Clone)]
pub(crate) struct Ref {
    pub target: Target,
    pub name: String,
    pub at: Location,
}

/// A declared definition (even one with errors), for id and parent checks.
#[derive(Debug, Clone)]
pub(crate) struct Decl {
    pub kind: Kind,
    pub id: String,
    pub at: Location,
    pub parent: Option<(String, Location)>,
}

/// A file whose definition did not load at all (unreadable, not TOML, no
/// valid `kind` or `id`): what it probably declared, read from its text
/// where that is possible, so that references to it are reported once, at
/// that file, instead of as unresolved at every reference (no cascade).
#[derive(Debug, Clone)]
pub(crate) struct FailedFile {
    /// The kind its `kind = "…"` line names (`None`: unknown, matches any kind).
    pub kind: Option<Kind>,
    /// The id its `id = "…"` line names, else the file's stem.
    pub id: String,
    pub file: PathBuf,
}

impl FailedFile {
    /// A failed file whose declaration is read from whatever `text` it has.
    pub(crate) fn new(rel: &Path, text: &str) -> FailedFile {
        let (kind, id) = salvage_declaration(text);
        let stem = rel.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        FailedFile { kind: kind.and_then(|k| Kind::from_name(&k)), id: id.unwrap_or(stem), file: rel.to_path_buf() }
    }

    /// Whether this file may be the declaration of `id` of `kind`.
    pub(crate) fn may_declare(&self, kind: Kind, id: &str) -> bool {
        self.id == id && self.kind.is_none_or(|k| k == kind)
    }

    /// Whether this file may be a binding profile.
    pub(crate) fn may_be_binding_profile(&self) -> bool {
        self.kind.is_none_or(|k| k == Kind::BindingProfile)
    }
}

/// The `kind` and `id` values of a file that does not parse, from its
/// top-level `key = "value"` lines (before the first table header).
fn salvage_declaration(text: &str) -> (Option<String>, Option<String>) {
    let (mut kind, mut id) = (None, None);
    for line in text.lines().take(200) {
        let line = line.trim();
        if line.starts_with('[') {
            break;
        }
        let Some((key, value)) = line.split_once('=') else { continue };
        let value = value.trim();
        let value = value.split('#').next().unwrap_or_default().trim();
        let Some(value) = value.strip_prefix('"').and_then(|v| v.strip_suffix('"')) else { continue };
        match key.trim() {
            "kind" if kind.is_none() => kind = Some(value.to_owned()),
            "id" if id.is_none() && !value.is_empty() => id = Some(value.to_owned()),
            _ => {}
        }
    }
    (kind, id)
}

/// What the kind readers hand to the cross-file pass.
#[derive(Debug, Default)]
pub(crate) struct Shared {
    pub root: PathBuf,
    pub refs: Vec<Ref>,
    pub decls: Vec<Decl>,
    /// Files whose definition did not load at all.
    pub failed: Vec<FailedFile>,
    /// Graph id → per state: whether `loop` was written (else the clip's loop hint applies).
    pub explicit_loop: HashMap<String, Vec<bool>>,
    /// Animation profile id → location of its id value.
    pub profile_locations: HashMap<String, Location>,
    /// Binding profile id → per binding row (in file order): binding id and
    /// the locations of its `parameter` and `type` values (first file wins).
    pub binding_rows: HashMap<String, Vec<BindingRowAt>>,
    /// Every weapon class an equipment definition claims: class, equipment id, where.
    pub item_classes: Vec<(PlayerProfileType, String, Location)>,
}

/// Where one binding row of a binding profile sits (for checks against graphs).
#[derive(Debug, Clone)]
pub(crate) struct BindingRowAt {
    pub id: String,
    pub parameter: Location,
    pub ty: Location,
    /// The `layer` value, when the row gives one.
    pub layer: Option<Location>,
}

impl Shared {
    pub(crate) fn refer(&mut self, target: Target, name: impl Into<String>, at: Location) {
        self.refs.push(Ref { target, name: name.into(), at });
    }

    /// A path written in a definition file, resolved against the file's
    /// directory: returns (path relative to the folder, `/` separated and
    /// lexically normalized; path on disk).
    pub(crate) fn resolve_path(&self, file_rel: &Path, written: &str) -> (String, PathBuf) {
        let written_path = Path::new(written);
        if written_path.is_absolute() {
            return (written.to_owned(), written_path.to_path_buf());
        }
        let base = file_rel.parent().unwrap_or(Path::new(""));
        let mut parts: Vec<String> = Vec::new();
        for c in base.join(written_path).components() {
            match c {
                Component::ParentDir => {
                    if parts.last().is_some_and(|p| p != "..") {
                        parts.pop();
                    } else {
                        parts.push("..".into());
                    }
                }
                Component::CurDir => {}
                other => parts.push(other.as_os_str().to_string_lossy().into_owned()),
            }
        }
        let rel = parts.join("/");
        let disk = self.root.join(&rel);
        (rel, disk)
    }
}

/// Reads every `*.toml` file under `dir` (recursively, sorted paths), checks
/// each in full, then checks references across files. Never fails: IO
/// problems become diagnostics too (E001 with the folder as file when `dir`
/// itself cannot be read).
#[must_use]
pub fn load_folder(dir: &Path) -> DefinitionSet {
    load_folder_with_overlay(dir, &[])
}

/// [`load_folder`] with some files' text supplied by the caller instead of
/// read from disk: an editor validating an unsaved buffer in the context of
/// its folder. Each overlay path is relative to `dir` (a `.toml` file; other
/// paths are ignored); it replaces the file on disk, or joins the folder when
/// no such file exists yet. References from the overlaid text resolve exactly
/// as they would once the text is saved.
#[must_use]
pub fn load_folder_with_overlay(dir: &Path, overlay: &[(PathBuf, String)]) -> DefinitionSet {
    let mut set = DefinitionSet::default();
    let mut shared = Shared { root: dir.to_path_buf(), ..Shared::default() };
    let mut walk = Walk::default();
    if let Err(e) = collect_files(dir, Path::new(""), &mut walk, 0) {
        set.diagnostics.push(Diagnostic {
            severity: Severity::Error,
            code: Code::IoError.id(),
            file: PathBuf::new(),
            line: 1,
            column: 1,
            field: String::new(),
            message: format!("cannot read folder `{}`: {e}", dir.display()),
            span: 0..0,
        });
        return set;
    }
    let mut files = std::mem::take(&mut walk.files);
    report_skipped(&mut set, walk);
    for (rel, _) in overlay {
        if rel.extension().is_some_and(|e| e == "toml") && !files.contains(rel) {
            files.push(rel.clone());
        }
    }
    files.sort();
    if files.len() > MAX_DEFINITION_FILES {
        let first_skipped = files[MAX_DEFINITION_FILES].clone();
        set.diagnostics.push(file_error(
            &first_skipped,
            Code::OutOfRange,
            format!(
                "the folder has more than {MAX_DEFINITION_FILES} definition files (the budget); this file and the \
                 ones after it in path order are not read"
            ),
        ));
        files.truncate(MAX_DEFINITION_FILES);
    }
    for rel in files {
        match overlay.iter().find(|(p, _)| *p == rel) {
            Some((_, text)) => load_text(&rel, text, &mut set, &mut shared),
            None => load_file(dir, &rel, &mut set, &mut shared),
        }
    }
    check::cross_file(&mut set, &mut shared);
    set.declarations = shared
        .decls
        .iter()
        .map(|d| (d.kind, d.id.clone(), d.at.file.clone()))
        .chain(shared.failed.iter().filter_map(|f| Some((f.kind?, f.id.clone(), f.file.clone()))))
        .collect();
    set.diagnostics.sort_by(|a, b| {
        (&a.file, a.line, a.column, a.code, &a.field).cmp(&(&b.file, b.line, b.column, b.code, &b.field))
    });
    set.diagnostics.dedup();
    cap_per_file(&mut set.diagnostics);
    set
}

/// Every folder or file the walk did not read becomes a diagnostic: nothing
/// is skipped in silence (unreadable folders and files below the depth limit
/// are errors, folders below the limit and symlinked folders warnings).
fn report_skipped(set: &mut DefinitionSet, walk: Walk) {
    let Walk { files: _, mut too_deep, mut unread, unread_folders, mut symlinked, unreadable } = walk;
    for (folder, why) in unreadable {
        set.diagnostics.push(file_error(&folder, Code::IoError, format!("cannot read folder: {why}")));
    }
    too_deep.sort();
    let more = if unread_folders >= MAX_UNREAD_FOLDERS {
        format!(" (only the first {MAX_UNREAD_FOLDERS} folders below the limit are listed)")
    } else {
        String::new()
    };
    for folder in too_deep {
        set.diagnostics.push(file_error(
            &folder,
            Code::SkippedFolder,
            format!(
                "folder is nested deeper than {MAX_DEPTH} levels below the definition folder; its files are not \
                 read{more}"
            ),
        ));
    }
    unread.sort();
    for file in unread {
        set.diagnostics.push(file_error(
            &file,
            Code::UnreadFile,
            format!(
                "definition file is nested deeper than {MAX_DEPTH} levels below the definition folder, so it is not \
                 read or checked; move it up"
            ),
        ));
    }
    symlinked.sort();
    for folder in symlinked {
        set.diagnostics.push(file_error(
            &folder,
            Code::SkippedFolder,
            "folder is a symlink; symlinked folders are not followed, so its files are not read".to_owned(),
        ));
    }
}

/// Most diagnostics reported for one file; the rest are counted in one
/// I002 note, so a pathological file cannot flood the report.
pub const MAX_DIAGNOSTICS_PER_FILE: usize = 200;

fn cap_per_file(diagnostics: &mut Vec<Diagnostic>) {
    let mut out: Vec<Diagnostic> = Vec::with_capacity(diagnostics.len().min(4096));
    let mut i = 0;
    while i < diagnostics.len() {
        let file = diagnostics[i].file.clone();
        let end = diagnostics[i..].iter().position(|d| d.file != file).map_or(diagnostics.len(), |n| i + n);
        let count = end - i;
        out.extend(diagnostics[i..i + count.min(MAX_DIAGNOSTICS_PER_FILE)].iter().cloned());
        if count > MAX_DIAGNOSTICS_PER_FILE {
            let rest = &diagnostics[i + MAX_DIAGNOSTICS_PER_FILE..end];
            let errors = rest.iter().filter(|d| d.severity == Severity::Error).count();
            let at = &rest[0];
            out.push(
                Location { file, line: at.line, column: at.column, span: at.span.clone(), field: String::new() }
                    .diagnostic(
                        Code::TooManyProblems,
                        format!(
                            "{} more problem(s) in this file are not shown ({errors} of them errors); at most \
                             {MAX_DIAGNOSTICS_PER_FILE} are reported per file",
                            rest.len()
                        ),
                    ),
            );
        }
        i = end;
    }
    *diagnostics = out;
}

/// Deepest folder nesting followed; a deeper folder is not read and gets a
/// W006 note (symlinked folders are never followed, so a link cycle cannot
/// hang the walk).
pub const MAX_DEPTH: usize = 32;

/// Most definition files read from one folder (budget: the walk keeps one
/// path per file, the cross-file pass a few small records per definition);
/// the files past it, in sorted order, are not read and one E008 says so.
pub const MAX_DEFINITION_FILES: usize = 50_000;

/// Most folders listed below the depth limit (only to name the definition
/// files there that are not read); past it the W006 note says so.
const MAX_UNREAD_FOLDERS: usize = 10_000;

/// What the folder walk found.
#[derive(Debug, Default)]
struct Walk {
    files: Vec<PathBuf>,
    /// Folders past the depth limit (not read).
    too_deep: Vec<PathBuf>,
    /// Definition files inside those folders (not read; each an E022).
    unread: Vec<PathBuf>,
    /// Folders listed for `unread` so far.
    unread_folders: usize,
    /// Symlinked folders (never followed; each a W006).
    symlinked: Vec<PathBuf>,
    /// Subfolders that could not be listed, with why.
    unreadable: Vec<(PathBuf, String)>,
}

/// Names (without reading them) the `*.toml` files under `rel`, a folder
/// past the depth limit: every skipped file is a diagnostic, never silence.
fn collect_unread(root: &Path, rel: &Path, walk: &mut Walk) {
    let mut stack = vec![rel.to_path_buf()];
    while let Some(dir) = stack.pop() {
        if walk.unread_folders >= MAX_UNREAD_FOLDERS || walk.unread.len() > MAX_DEFINITION_FILES {
            return;
        }
        walk.unread_folders += 1;
        let Ok(entries) = std::fs::read_dir(root.join(&dir)) else { continue };
        for entry in entries.flatten() {
            let child = dir.join(entry.file_name());
            match entry.file_type() {
                Ok(ty) if ty.is_dir() => stack.push(child),
                _ if child.extension().is_some_and(|e| e == "toml") => walk.unread.push(child),
                _ => {}
            }
        }
    }
}

fn collect_files(root: &Path, rel: &Path, walk: &mut Walk, depth: usize) -> std::io::Result<()> {
    let entries = std::fs::read_dir(root.join(rel))?;
    for entry in entries {
        let entry = entry?;
        let ty = entry.file_type()?;
        let child = rel.join(entry.file_name());
        if ty.is_dir() {
            if depth < MAX_DEPTH {
                // A subfolder that cannot be listed is not fatal: note it and go on.
                if let Err(e) = collect_files(root, &child, walk, depth + 1) {
                    walk.files.push(child.join(format!("\0{e}")));
                }
            } else {
                collect_unread(root, &child, walk);
                walk.too_deep.push(child);
            }
        } else if ty.is_symlink() && root.join(&child).is_dir() {
            walk.symlinked.push(child);
        } else if child.extension().is_some_and(|e| e == "toml") {
            // Pushed whatever its type: a FIFO or device named `*.toml` is
            // reported by the guarded reader instead of being skipped silently.
            walk.files.push(child);
        }
        if walk.files.len() > MAX_DEFINITION_FILES.saturating_mul(2) {
            break; // enough to report the budget; do not list millions
        }
    }
    Ok(())
}

fn file_error(rel: &Path, code: Code, message: String) -> Diagnostic {
    Location { file: rel.to_path_buf(), line: 1, column: 1, span: 0..0, field: String::new() }.diagnostic(code, message)
}

fn read_limited(path: &Path) -> Result<Vec<u8>, (Code, String)> {
    use crate::AssetError;
    crate::files::read(path, crate::files::FileKind::Definition).map_err(|e| match e {
        AssetError::FileTooLarge { .. } => (
            Code::FileTooLarge,
            format!("file is larger than {} MiB; definition files are small, this is not parsed", MAX_FILE_BYTES >> 20),
        ),
        AssetError::NotAFile { what, .. } => {
            (Code::IoError, format!("is {what}, not a regular file; only regular files are read"))
        }
        AssetError::Io { source, .. } => (Code::IoError, format!("cannot read file: {source}")),
        other => (Code::IoError, format!("cannot read file: {other}")),
    })
}

fn load_file(root: &Path, rel: &Path, set: &mut DefinitionSet, shared: &mut Shared) {
    let bytes = match read_limited(&root.join(rel)) {
        Ok(b) => b,
        Err((code, message)) => {
            set.diagnostics.push(file_error(rel, code, message));
            shared.failed.push(FailedFile::new(rel, ""));
            return;
        }
    };
    let text = match String::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => {
            let at = e.utf8_error().valid_up_to();
            let valid = std::str::from_utf8(&e.as_bytes()[..at]).unwrap_or_default();
            let ctx = FileCtx::new(rel.to_path_buf(), valid);
            let d = ctx.at(at..at, "").diagnostic(Code::IoError, "file is not valid UTF-8 (TOML files must be UTF-8)");
            set.diagnostics.push(d);
            shared.failed.push(FailedFile::new(rel, valid));
            return;
        }
    };
    load_text(rel, &text, set, shared);
}

/// Reads definition files whose text is already in memory (a baked file's
/// `DEFS` section), each checked in full on its own, with the clips' loop
/// hints applied to graph states, but **without** the cross-file reference
/// checks and without decoding any model: for sources that were checked as
/// a folder when they were written. Paths are folder-relative.
#[must_use]
pub fn load_texts(files: &[(PathBuf, String)]) -> DefinitionSet {
    let mut set = DefinitionSet::default();
    let mut shared = Shared::default();
    for (rel, text) in files.iter().take(MAX_DEFINITION_FILES) {
        load_text(rel, text, &mut set, &mut shared);
    }
    check::apply_loop_hints(&mut set, &shared);
    set
}

/// The text of every file of `set` (loaded from `dir`) that declares a
/// definition a character is made of (every kind but preview presets, which
/// only tools play), by folder-relative path in path order: what a baked
/// file keeps of the folder.
///
/// # Errors
/// [`crate::AssetError`] when a file can no longer be read.
pub fn definition_sources(set: &DefinitionSet, dir: &Path) -> Result<Vec<(PathBuf, String)>, crate::AssetError> {
    let mut files: Vec<&PathBuf> =
        set.declarations.iter().filter(|(k, _, _)| *k != Kind::PreviewPreset).map(|(_, _, f)| f).collect();
    files.sort();
    files.dedup();
    files
        .into_iter()
        .map(|rel| {
            crate::files::read_to_string(&dir.join(rel), crate::files::FileKind::Definition).map(|t| (rel.clone(), t))
        })
        .collect()
}

/// Checks one file's text (already read) and records its definition.
fn load_text(rel: &Path, text: &str, set: &mut DefinitionSet, shared: &mut Shared) {
    if text.len() as u64 > MAX_FILE_BYTES {
        let message =
            format!("file is larger than {} MiB; definition files are small, this is not parsed", MAX_FILE_BYTES >> 20);
        set.diagnostics.push(file_error(rel, Code::FileTooLarge, message));
        shared.failed.push(FailedFile::new(rel, ""));
        return;
    }
    let mut ctx = FileCtx::new(rel.to_path_buf(), text);
    let (doc, errors) = DeTable::parse_recoverable(text);
    if !errors.is_empty() {
        let first = errors.iter().map(|e| e.span().map_or(0, |s| s.start)).min();
        for e in errors {
            let span = e.span().unwrap_or(0..0);
            let mut message = e.message().trim().to_owned();
            if Some(span.start) == first {
                message.push_str(" (the file is not valid TOML, so its definition is not loaded)");
            }
            ctx.report(Code::TomlSyntax, span, "", message);
        }
        set.diagnostics.append(&mut ctx.diags);
        shared.failed.push(FailedFile::new(rel, text));
        return;
    }
    kinds::read_definition(&mut ctx, &doc, set, shared);
    set.diagnostics.append(&mut ctx.diags);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_resolve_against_the_definition_file() {
        let sh = Shared { root: PathBuf::from("/defs"), ..Shared::default() };
        let (rel, disk) = sh.resolve_path(Path::new("clips/walk.toml"), "../../../models/h.glb");
        assert_eq!(rel, "../../models/h.glb");
        assert_eq!(disk, PathBuf::from("/defs/../../models/h.glb"));
        assert_eq!(sh.resolve_path(Path::new("a.toml"), "./s/x.wav").0, "s/x.wav");
        assert_eq!(sh.resolve_path(Path::new("a/b.toml"), "../x.wav").0, "x.wav");
    }
}

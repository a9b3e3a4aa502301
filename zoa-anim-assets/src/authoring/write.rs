//! Writes auto-bind results as definition TOML: one `binding_profile` per
//! weapon class (its slots) and a `player_profile_set` grouping them, plus
//! the `clip` definitions the slots refer to (cut like [`super::import`]
//! does, so the folder validates on its own).
//!
//! By default the binder runs once per skeleton ([`bind_skeletons`], see
//! [`super::skeletons`]) and each skeleton gets a set of its own
//! ([`set_paths`] names them); one set over every file is the `--one-set`
//! choice ([`bind_classes`]).
//!
//! Profile files are never overwritten unless `force` is set; clip
//! definitions follow the import rule and are never overwritten. Every file
//! of one run (profiles and clips) is written all or nothing
//! ([`crate::files::write_all_or_nothing`]): a refusal or a failure leaves
//! the folder as it was.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use zoa_anim_core::PlayerProfileType;

use super::autobind::{
    AutoBindOptions, AutoBindResult, SlotAssignment, autobind, detect_weapon_class, names_weapon, slots_for,
};
use super::import::plan_cuts;
use super::scan::ScanReport;
use super::skeletons::{SkeletonGroup, group_by_skeleton};
use super::tokens::to_id;
use crate::AssetError;

/// The assignments one weapon class's binding profile holds.
#[derive(Debug, Clone)]
pub struct ClassBinding {
    /// The class.
    pub class: PlayerProfileType,
    /// Its slot assignments, in slot-table order.
    pub assignments: Vec<SlotAssignment>,
}

/// Splits a binding run into per-class bindings.
///
/// With a profile type: that class alone. Without: `unarmed` takes its slots
/// (locomotion, stances, reactions, and a melee attack whose clip names no
/// weapon: a punch or a kick), and when any weapon slot was bound, the
/// weapon class the winning clips name (rifle when they name none) takes
/// the weapon slots and the reactions (and the melee attack only when its
/// clip names a weapon).
#[must_use]
pub fn class_bindings(report: &ScanReport, result: &AutoBindResult) -> Vec<ClassBinding> {
    if let Some(class) = result.profile_type {
        let assignments = result.assignments.iter().filter(|a| slots_for(class).contains(&a.slot)).cloned().collect();
        return vec![ClassBinding { class, assignments }];
    }
    // Melee: unarmed unless the winning clip names a weapon (a punch, a kick).
    let weapon_melee = |a: &SlotAssignment| a.slot == "melee_attack" && names_weapon(report, a.best());
    let pick = |class: PlayerProfileType| ClassBinding {
        class,
        assignments: result
            .assignments
            .iter()
            .filter(|a| slots_for(class).contains(&a.slot))
            .filter(|a| a.slot != "melee_attack" || weapon_melee(a) == (class != PlayerProfileType::Unarmed))
            .cloned()
            .collect(),
    };
    let mut out = vec![pick(PlayerProfileType::Unarmed)];
    let unarmed = slots_for(PlayerProfileType::Unarmed);
    if result.assignments.iter().any(|a| !unarmed.contains(&a.slot) || weapon_melee(a)) {
        let weapon = detect_weapon_class(result, report).unwrap_or(PlayerProfileType::Rifle);
        out.push(pick(weapon));
    }
    out.retain(|c| !c.assignments.is_empty());
    out
}

/// Runs the binder for the options and splits the result per class.
#[must_use]
pub fn bind_classes(report: &ScanReport, opts: &AutoBindOptions) -> (AutoBindResult, Vec<ClassBinding>) {
    let result = autobind(report, opts);
    let classes = class_bindings(report, &result);
    (result, classes)
}

/// One skeleton's binding run.
#[derive(Debug, Clone)]
pub struct SkeletonBinding {
    /// The skeleton and its files.
    pub group: SkeletonGroup,
    /// The binder's ranking over the group's files only.
    pub result: AutoBindResult,
    /// Its per-class split ([`class_bindings`]); empty when no slot was bound.
    pub classes: Vec<ClassBinding>,
}

/// Groups the report's files by skeleton and binds each group on its own, so
/// no set mixes clips of two characters. Groups are in
/// [`group_by_skeleton`] order, including those where nothing was bound.
#[must_use]
pub fn bind_skeletons(report: &ScanReport, opts: &AutoBindOptions) -> Vec<SkeletonBinding> {
    group_by_skeleton(report)
        .into_iter()
        .map(|group| {
            let sub = group.report(report);
            let (result, classes) = bind_classes(&sub, opts);
            SkeletonBinding { group, result, classes }
        })
        .collect()
}

/// Where the sets of `skeleton_ids` go for `--out out`: `out` itself for one
/// set; for several, `<out stem>_<skeleton id>.toml` beside `out` each (the
/// set id is the file stem, as always).
#[must_use]
pub fn set_paths(out: &Path, skeleton_ids: &[&str]) -> Vec<PathBuf> {
    if skeleton_ids.len() == 1 {
        return vec![out.to_path_buf()];
    }
    let dir = out.parent().unwrap_or(Path::new(""));
    let stem = out.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    skeleton_ids.iter().map(|id| dir.join(format!("{stem}_{id}.toml"))).collect()
}

/// A file the writer intends to write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlannedFile {
    /// Where.
    pub path: PathBuf,
    /// TOML text.
    pub text: String,
}

/// Binding profile id for `class` in set `set_id`.
#[must_use]
pub fn binding_profile_id(set_id: &str, class: PlayerProfileType) -> String {
    format!("{set_id}_{}", class.name())
}

fn quote(s: &str) -> String {
    toml::Value::String(s.to_owned()).to_string()
}

/// The profile files (binding profiles next to `out`, then `out` itself).
/// `clip_id` maps an assignment's best candidate to the clip id to write.
pub fn plan_profile_files(
    out: &Path,
    classes: &[ClassBinding],
    clip_id: &dyn Fn(&SlotAssignment) -> String,
) -> Vec<PlannedFile> {
    let set_id = set_id_of(out);
    plan_profile_files_named(out, classes, clip_id, &|class| binding_profile_id(&set_id, class))
}

/// The set id of a set written at `out`: its file stem as an id.
fn set_id_of(out: &Path) -> String {
    to_id(&out.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default())
}

/// [`plan_profile_files`] with the binding profile ids (and so their file
/// names) chosen by `profile_id`.
fn plan_profile_files_named(
    out: &Path,
    classes: &[ClassBinding],
    clip_id: &dyn Fn(&SlotAssignment) -> String,
    profile_id: &dyn Fn(PlayerProfileType) -> String,
) -> Vec<PlannedFile> {
    let dir = out.parent().unwrap_or(Path::new(""));
    let set_id = set_id_of(out);
    let mut files = Vec::new();
    for cb in classes {
        let id = profile_id(cb.class);
        let mut t = format!(
            "# Written by `zoa-anim autobind`. Review the picks: each slot notes its score and runner-up.\n\
             kind = \"binding_profile\"\nid = {}\ndisplay_name = {}\n",
            quote(&id),
            quote(&format!("{} (auto-bound)", cb.class.name()))
        );
        for a in &cb.assignments {
            let best = a.best();
            let runner = a.runner_up().map_or("none".to_owned(), |r| format!("{} ({:.2})", r.clip, r.score));
            t.push_str(&format!(
                "\n# {} from {} (score {:.2}; runner-up {runner})\n[[slots]]\nid = {}\nclip = {}\n",
                best.clip,
                best.file.file_name().map(|n| n.to_string_lossy()).unwrap_or_default(),
                best.score,
                quote(a.slot),
                quote(&clip_id(a)),
            ));
        }
        files.push(PlannedFile { path: dir.join(format!("{id}.toml")), text: t });
    }
    let default = if classes.iter().any(|c| c.class == PlayerProfileType::Unarmed) {
        PlayerProfileType::Unarmed
    } else {
        classes.first().map_or(PlayerProfileType::Unarmed, |c| c.class)
    };
    let mut t = format!(
        "# Written by `zoa-anim autobind`.\nkind = \"player_profile_set\"\nid = {}\ndefault_profile = {}\n",
        quote(&set_id),
        quote(default.name())
    );
    for cb in classes {
        t.push_str(&format!(
            "\n[[profiles]]\nclass = {}\nbinding_profile = {}\n",
            quote(cb.class.name()),
            quote(&profile_id(cb.class))
        ));
    }
    files.push(PlannedFile { path: out.to_path_buf(), text: t });
    files
}

/// Writes `files`; without `force`, fails (writing nothing) when any exists.
pub fn write_planned(files: &[PlannedFile], force: bool) -> Result<(), AssetError> {
    let files: Vec<(PathBuf, Vec<u8>)> = files.iter().map(|f| (f.path.clone(), f.text.clone().into_bytes())).collect();
    crate::files::write_all_or_nothing(&files, force).map(|_| ())
}

/// What [`write_profile_set`] / [`write_profile_sets`] wrote.
#[derive(Debug, Clone, PartialEq)]
pub struct WrittenSet {
    /// Profile files written (per set: binding profiles, then the set).
    pub profiles: Vec<PathBuf>,
    /// Clip definitions newly cut.
    pub clips_written: Vec<PathBuf>,
}

/// One player profile set to write: its file and its per-class bindings.
#[derive(Debug, Clone)]
pub struct SetToWrite {
    /// The set's file (its id is the file stem as an id).
    pub out: PathBuf,
    /// One binding profile per class, written beside `out`.
    pub classes: Vec<ClassBinding>,
}

/// Writes the player profile set `out` (its id is the file stem as an id),
/// one binding profile per class beside it, and the clip definitions the
/// slots use (cut into `out`'s folder unless already cut there).
pub fn write_profile_set(
    report: &ScanReport,
    classes: &[ClassBinding],
    out: &Path,
    force: bool,
) -> Result<WrittenSet, AssetError> {
    write_profile_sets(report, &[SetToWrite { out: out.to_path_buf(), classes: classes.to_vec() }], force)
}

fn out_dir(out: &Path) -> PathBuf {
    out.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new(".")).to_path_buf()
}

/// Binding profile ids per set and class, unique across every file the sets
/// write: `<set>_<class>`, or with `_2`, `_3`, … when that file name is
/// already taken by another set's file or profile (a set `player_humanoid`
/// with a rifle class and a set `player_humanoid_rifle` would otherwise both
/// write `player_humanoid_rifle.toml`). Deterministic: sets in order.
fn unique_profile_ids(sets: &[SetToWrite]) -> Vec<HashMap<PlayerProfileType, String>> {
    let mut taken: HashSet<PathBuf> = sets.iter().map(|s| s.out.clone()).collect();
    sets.iter()
        .map(|s| {
            let dir = s.out.parent().unwrap_or(Path::new(""));
            let set_id = set_id_of(&s.out);
            s.classes
                .iter()
                .map(|cb| {
                    let base = binding_profile_id(&set_id, cb.class);
                    let mut id = base.clone();
                    let mut n = 2;
                    while !taken.insert(dir.join(format!("{id}.toml"))) {
                        id = format!("{base}_{n}");
                        n += 1;
                    }
                    (cb.class, id)
                })
                .collect()
        })
        .collect()
}

/// The profile files every set needs, planned with `clip_id` for the clips.
fn plan_sets(sets: &[SetToWrite], clip_id: &dyn Fn(&Path, &SlotAssignment) -> String) -> Vec<PlannedFile> {
    let ids = unique_profile_ids(sets);
    sets.iter()
        .zip(&ids)
        .flat_map(|(s, ids)| {
            let dir = out_dir(&s.out);
            plan_profile_files_named(&s.out, &s.classes, &|a| clip_id(&dir, a), &|class| ids[&class].clone())
        })
        .collect()
}

/// Writes several sets as [`write_profile_set`] writes one, all or nothing:
/// a clip two sets use is cut once per folder, and when any profile file of
/// any set exists (without `force`) or two sets would write the same file,
/// nothing is written.
pub fn write_profile_sets(report: &ScanReport, sets: &[SetToWrite], force: bool) -> Result<WrittenSet, AssetError> {
    // Plan first (with the ids the clips will have) so a refusal writes nothing.
    let files = plan_sets(sets, &|_, a| a.best().clip_id.clone());
    // Profile names are unique by construction; two sets at one path are a caller's error.
    let mut seen = HashSet::new();
    if let Some(f) = files.iter().find(|f| !seen.insert(f.path.clone())) {
        let why = std::io::Error::other("two of the sets to write are the same file");
        return Err(AssetError::Io { path: f.path.clone(), source: why });
    }
    if !force && let Some(f) = files.iter().find(|f| crate::files::occupied(&f.path)) {
        return Err(AssetError::WouldOverwrite { path: f.path.clone() });
    }
    let mut ids: HashMap<(PathBuf, PathBuf, usize), String> = HashMap::new();
    let mut used: HashMap<PathBuf, HashSet<String>> = HashMap::new();
    let mut clip_files: Vec<(PathBuf, Vec<u8>)> = Vec::new();
    for set in sets {
        let dir = out_dir(&set.out);
        for a in set.classes.iter().flat_map(|c| &c.assignments) {
            let best = a.best();
            let key = (dir.clone(), best.file.clone(), best.index);
            if ids.contains_key(&key) {
                continue;
            }
            let Some(clip) = report
                .files
                .iter()
                .find(|f| f.path == best.file)
                .and_then(|f| f.clips.iter().find(|c| c.index == best.index))
            else {
                continue;
            };
            let used = used.entry(dir.clone()).or_default();
            for c in plan_cuts(&best.file, std::slice::from_ref(clip), &dir, used) {
                if let Some(text) = c.text {
                    clip_files.push((c.clip.path.clone(), text.into_bytes()));
                }
                ids.insert(key.clone(), c.clip.id);
            }
        }
    }
    let files = plan_sets(sets, &|dir, a| {
        let b = a.best();
        ids.get(&(dir.to_path_buf(), b.file.clone(), b.index)).cloned().unwrap_or_else(|| b.clip_id.clone())
    });
    // One write for everything: profiles (replaced only with force) and new clips.
    let clips_written: Vec<PathBuf> = clip_files.iter().map(|(p, _)| p.clone()).collect();
    let mut all: Vec<(PathBuf, Vec<u8>)> =
        files.iter().map(|f| (f.path.clone(), f.text.clone().into_bytes())).collect();
    all.extend(clip_files);
    crate::files::write_all_or_nothing(&all, force)?;
    Ok(WrittenSet { profiles: files.into_iter().map(|f| f.path).collect(), clips_written })
}

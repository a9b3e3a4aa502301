//! Checking a definition folder: everything `zoa-anim validate` reports.
//!
//! The folder's own diagnostics come from the loader
//! ([`zoa_anim_assets::defs::load_folder`]); on top, for every rig policy and
//! every model the folder animates, one I004 note per enabled IK behaviour
//! whose bones bone discovery does not find on that model, one per declared
//! chain that does not compile on it (its bones missing there, not one line
//! from root to tip, too long), and one I006 note per clip that binds to the
//! character's skeleton by bone role. Those checks live here, above the
//! loader, because they run the IK crate's discovery and the runtime's binding
//! rule, and loaders do not depend on evaluators.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use zoa_anim_assets::character::{CharacterChoice, load_character};
use zoa_anim_assets::defs::{Code, DefinitionSet, Diagnostic, Severity, load_folder_with_overlay, render_human};
use zoa_anim_core::{ClipBinding, RigPolicy};
use zoa_anim_ik::roles::describe_missing;
use zoa_anim_ik::{BoneRoles, ChainAvailability, ChainProblem, PolicyAvailability, chain_availability};
use zoa_anim_runtime::pose::plan_binding;

/// A checked definition folder: its definitions and every diagnostic
/// (the loader's and the IK notes), sorted by file, line and column.
#[derive(Debug, Clone)]
pub struct Validation {
    /// The folder, as given.
    pub dir: PathBuf,
    /// The definitions, the models they name (decoded once) and the
    /// diagnostics, I004 notes included.
    pub set: DefinitionSet,
}

impl Validation {
    /// Every diagnostic, sorted.
    #[must_use]
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.set.diagnostics
    }
    /// Number of errors (the folder is invalid when it is not 0).
    #[must_use]
    pub fn error_count(&self) -> usize {
        self.set.error_count()
    }
    /// Whether the folder itself could not be listed (it is missing, not a
    /// folder, or unreadable): an IO failure rather than bad definitions.
    #[must_use]
    pub fn folder_unreadable(&self) -> Option<&Diagnostic> {
        self.set.diagnostics.iter().find(|d| d.code == Code::IoError.id() && d.file.as_os_str().is_empty())
    }
    /// The diagnostics as `zoa-anim validate` prints them: each with its
    /// source line and a caret, then a summary line; `color` adds ANSI colours.
    #[must_use]
    pub fn render(&self, color: bool) -> String {
        render_human(&self.dir, &self.set.diagnostics, color)
    }
}

/// Checks the folder `dir` in full (see the module docs).
#[must_use]
pub fn validate(dir: impl AsRef<Path>) -> Validation {
    validate_with_overlay(dir, &[])
}

/// [`validate`] with some files' text supplied by the caller (an editor's
/// unsaved buffers; see [`load_folder_with_overlay`]).
#[must_use]
pub fn validate_with_overlay(dir: impl AsRef<Path>, overlay: &[(PathBuf, String)]) -> Validation {
    let dir = dir.as_ref();
    let mut set = load_folder_with_overlay(dir, overlay);
    let mut notes = ik_policy_notes(dir, &set);
    notes.extend(clip_binding_notes(dir, &set));
    if !notes.is_empty() {
        set.diagnostics.extend(notes);
        set.diagnostics.sort_by(|a, b| (&a.file, a.line, a.column, a.code).cmp(&(&b.file, b.line, b.column, b.code)));
    }
    Validation { dir: dir.to_path_buf(), set }
}

/// I004 notes: one per rig policy × model × enabled behaviour whose bones no
/// skin of the model has (discovered with the policy's overrides). Models
/// that are missing or unreadable are skipped: the loader already reported
/// them (E014, E020).
fn ik_policy_notes(dir: &Path, set: &DefinitionSet) -> Vec<Diagnostic> {
    if set.rig_policies.is_empty() {
        return Vec::new();
    }
    let models: BTreeSet<&str> = set
        .animation_graphs
        .iter()
        .map(|g| g.value.model.as_str())
        .chain(set.clips.iter().map(|c| c.value.source.as_str()))
        .collect();
    let mut notes = Vec::new();
    for model in models {
        let Some(Ok(asset)) = set.model(&dir.join(model)) else { continue };
        if asset.skeletons.is_empty() {
            continue;
        }
        for loaded in &set.rig_policies {
            let policy = &loaded.value;
            // Per behaviour, the skin that comes closest (a model may carry a
            // character skin and a prop skin); report only when none has the bones.
            let per_skin: Vec<(String, [PolicyAvailability; 4])> = asset
                .skeletons
                .iter()
                .map(|s| (s.name().to_owned(), BoneRoles::discover_with_overrides(s, policy).0.availability(policy)))
                .collect();
            for k in 0..4 {
                let Some((skin, best)) = per_skin.iter().map(|(n, a)| (n, &a[k])).min_by_key(|(_, a)| a.missing.len())
                else {
                    continue;
                };
                if !best.enabled || best.available {
                    continue;
                }
                notes.push(note(dir, &loaded.file, policy, model, skin, best));
            }
            chain_notes(dir, set, &loaded.file, policy, (model, &asset.skeletons), &mut notes);
        }
    }
    notes
}

/// I006 notes: one per clip of another model than the character's that
/// binds by bone role, decided by the runtime's own rule
/// ([`plan_binding`]) against the skeleton and rig policy the folder's
/// character is built from. Only for a folder without errors (the character's
/// model is known only then).
fn clip_binding_notes(dir: &Path, set: &DefinitionSet) -> Vec<Diagnostic> {
    if set.error_count() > 0 || set.clips.iter().all(|c| c.value.binding == ClipBinding::Name) {
        return Vec::new();
    }
    let Ok(bundle) = load_character(set, dir, CharacterChoice::default()) else { return Vec::new() };
    let policy = bundle.rig_policy.clone().unwrap_or_default();
    let roles = BoneRoles::discover_with_overrides(&bundle.skeleton, &policy).0;
    let mut notes = Vec::new();
    for c in &bundle.clips {
        let Ok(planned) = plan_binding(&c.clip, c.asset.binding, c.source_skeleton.as_ref(), &bundle.skeleton, &roles)
        else {
            continue; // the loader refuses it with E021, naming why
        };
        if !planned.plan.is_role() {
            continue;
        }
        let Some(loaded) = set.clips.iter().find(|l| l.value.id == c.asset.id) else { continue };
        let field = if c.asset.binding == ClipBinding::Role { "bind" } else { "source" };
        let (line, column, span) = locate_key(&dir.join(&loaded.file), field).unwrap_or((1, 1, 0..0));
        let model = c.source_skeleton.as_ref().map_or("", |s| s.name());
        notes.push(Diagnostic {
            severity: Severity::Info,
            code: Code::ClipBindsByRole.id(),
            file: loaded.file.clone(),
            line,
            column,
            field: field.to_owned(),
            message: format!(
                "clip `{}` (skeleton `{model}` of `{}`) binds to the character's skeleton `{}` {}; it is baked \
                 onto that skeleton when the character loads (`bind = \"name\"` binds by name instead)",
                c.asset.id,
                c.asset.source,
                bundle.skeleton.name(),
                planned.plan
            ),
            span,
        });
    }
    notes
}

/// I004 notes for the chains of `policy` that compile on no skin of the
/// model. A chain bone that no model of the folder has is left to the
/// loader's E015.
fn chain_notes(
    dir: &Path,
    set: &DefinitionSet,
    file: &Path,
    policy: &RigPolicy,
    (model, skins): (&str, &[zoa_anim_core::Skeleton]),
    notes: &mut Vec<Diagnostic>,
) {
    let per_skin: Vec<(&str, Vec<ChainAvailability>)> =
        skins.iter().map(|s| (s.name(), chain_availability(s, policy))).collect();
    for (i, chain) in policy.chains.iter().enumerate() {
        let mut runs = per_skin.iter().map(|(skin, a)| (*skin, &a[i]));
        if runs.clone().any(|(_, a)| a.is_available()) {
            continue;
        }
        let Some((skin, a)) = runs.next() else { continue };
        let Some(problem) = &a.problem else { continue };
        if let ChainProblem::UnknownBone(bone) = problem
            && !folder_has_bone(dir, set, bone)
        {
            continue;
        }
        let (line, column, span) = locate_chain(&dir.join(file), &chain.name).unwrap_or((1, 1, 0..0));
        notes.push(Diagnostic {
            severity: Severity::Info,
            code: Code::IkPolicyUnavailable.id(),
            file: file.to_path_buf(),
            line,
            column,
            field: format!("chains[{i}]"),
            message: format!(
                "rig policy `{}`: chain `{}` cannot run on model `{model}` (skin `{skin}`): {problem}; the runtime \
                 leaves it as animated there",
                policy.id, chain.name
            ),
            span,
        });
    }
}

/// Whether some skin of some model the folder uses has a joint called `bone`.
fn folder_has_bone(dir: &Path, set: &DefinitionSet, bone: &str) -> bool {
    let models = set
        .animation_graphs
        .iter()
        .map(|g| g.value.model.as_str())
        .chain(set.clips.iter().map(|c| c.value.source.as_str()));
    models.filter_map(|m| set.model(&dir.join(m))?.ok()).any(|a| a.skeletons.iter().any(|s| s.find(bone).is_some()))
}

/// Line, column and span of the value of `name = "<name>"` (a chain's
/// name, in a `[[chains]]` table or an inline one), when the file has it.
fn locate_chain(path: &Path, name: &str) -> Option<(usize, usize, std::ops::Range<usize>)> {
    let text = zoa_anim_assets::files::read_to_string(path, zoa_anim_assets::files::FileKind::Definition).ok()?;
    let quoted = format!("\"{name}\"");
    let mut from = 0;
    while let Some(at) = text[from..].find(&quoted).map(|i| i + from) {
        let before = text[..at].trim_end();
        if let Some(key) = before.strip_suffix('=')
            && key.trim_end().ends_with("name")
        {
            let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
            let line = text[..at].matches('\n').count() + 1;
            let column = text[line_start..at].chars().count() + 1;
            return Some((line, column, at..at + quoted.len()));
        }
        from = at + quoted.len();
    }
    None
}

fn note(dir: &Path, file: &Path, policy: &RigPolicy, model: &str, skin: &str, a: &PolicyAvailability) -> Diagnostic {
    let field = a.policy.name();
    let (line, column, span) = locate_key(&dir.join(file), field).unwrap_or((1, 1, 0..0));
    Diagnostic {
        severity: Severity::Info,
        code: Code::IkPolicyUnavailable.id(),
        file: file.to_path_buf(),
        line,
        column,
        field: field.to_owned(),
        message: format!(
            "rig policy `{}` cannot run on model `{model}` (skin `{skin}`): {}; the runtime skips it there \
             (map the bones with `bone_overrides` if the model has them under other names)",
            policy.id,
            describe_missing(a)
        ),
        span,
    }
}

/// Line, column (1-based, characters) and byte span of the value of a
/// top-level `key = value` line, when the file has one.
pub(crate) fn locate_key(path: &Path, key: &str) -> Option<(usize, usize, std::ops::Range<usize>)> {
    let text = zoa_anim_assets::files::read_to_string(path, zoa_anim_assets::files::FileKind::Definition).ok()?;
    let mut offset = 0;
    for (i, line) in text.split_inclusive('\n').enumerate() {
        let trimmed = line.trim_start();
        if let Some(rest) = trimmed.strip_prefix(key)
            && let Some(value) = rest.trim_start().strip_prefix('=')
        {
            let value = value.trim();
            let start = offset + line.find(value).unwrap_or(0);
            let column = line[..start - offset].chars().count() + 1;
            return Some((i + 1, column, start..start + value.len()));
        }
        if trimmed.starts_with('[') {
            break; // past the top-level keys
        }
        offset += line.len();
    }
    None
}

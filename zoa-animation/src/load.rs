//! From a definition folder to a shared, compiled character definition.
//!
//! One pass: the folder is checked in full ([`crate::validate`]: every file,
//! every reference, every model decoded once), and only a folder without
//! errors is assembled into a [`CharacterBundle`] (reusing the decoded
//! models) and compiled ([`CharacterDefinition::new`]: ids resolved to
//! indices once). A folder with errors fails with all of them, located;
//! nothing downstream of a broken file runs, so nothing cascades from it.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use zoa_anim_assets::character::{CharacterChoice, CharacterLoadProblem, load_character};
use zoa_anim_assets::defs::{Code, DefinitionSet, Diagnostic, Severity, render_human};
use zoa_anim_core::CharacterBundle;
use zoa_anim_runtime::character::SetupProblem;
use zoa_anim_runtime::{CharacterDefinition, CharacterSettings, RuntimeError};

use crate::error::LoadError;
use crate::validate::{Validation, locate_key, validate};

/// Loads the character of the definition folder `dir` with the default
/// choices (the first player profile set and sound profile by id) and
/// settings: see [`Loader`].
///
/// # Errors
/// [`LoadError::MissingFolder`] when `dir` is not a folder,
/// [`LoadError::Invalid`] with every diagnostic when the folder has errors
/// or does not make a character.
pub fn load(dir: impl AsRef<Path>) -> Result<Arc<CharacterDefinition>, LoadError> {
    Loader::new().load(dir)
}

/// Loads the character of a baked file (`zoa-anim bake`) with the default
/// choices and settings: see [`Loader::load_baked`].
///
/// # Errors
/// [`LoadError::Baked`] when the file cannot be read, is not a well-formed
/// baked file of this version, or does not make a character.
pub fn load_baked(file: impl AsRef<Path>) -> Result<Arc<CharacterDefinition>, LoadError> {
    Loader::new().load_baked(file)
}

/// Which definitions of a folder make the character, and its settings.
///
/// ```no_run
/// # fn main() -> Result<(), zoa_animation::LoadError> {
/// let soldier = zoa_animation::Loader::new().player_set("soldier").load("assets/defs/soldier")?;
/// # Ok(()) }
/// ```
#[derive(Debug, Clone, Default)]
pub struct Loader {
    player_set: Option<String>,
    animation_profile: Option<String>,
    sound_profile: Option<String>,
    settings: CharacterSettings,
}

impl Loader {
    /// The defaults: the first player profile set and sound profile by id,
    /// no own tag table, [`CharacterSettings::default`].
    #[must_use]
    pub fn new() -> Loader {
        Loader::default()
    }
    /// The player profile set (loadout) to use, by id.
    #[must_use]
    pub fn player_set(mut self, id: impl Into<String>) -> Loader {
        self.player_set = Some(id.into());
        self
    }
    /// The tag table of a character without a player profile set, by animation profile id.
    #[must_use]
    pub fn animation_profile(mut self, id: impl Into<String>) -> Loader {
        self.animation_profile = Some(id.into());
        self
    }
    /// The sound profile to use, by id.
    #[must_use]
    pub fn sound_profile(mut self, id: impl Into<String>) -> Loader {
        self.sound_profile = Some(id.into());
        self
    }
    /// The tunables no definition file carries.
    #[must_use]
    pub fn settings(mut self, settings: CharacterSettings) -> Loader {
        self.settings = settings;
        self
    }

    /// Checks `dir` and compiles its character (see the module docs).
    ///
    /// # Errors
    /// As [`load`].
    pub fn load(&self, dir: impl AsRef<Path>) -> Result<Arc<CharacterDefinition>, LoadError> {
        let dir = dir.as_ref();
        if !dir.is_dir() {
            let resolved = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
            return Err(LoadError::MissingFolder { folder: dir.to_path_buf(), resolved });
        }
        self.load_validated(&validate(dir))
    }

    /// Loads the character of a baked file: no glTF is read and the
    /// definition sources, checked as a folder when the file was baked, are
    /// read without the folder's cross-file checks; the same choices and
    /// settings apply as to a folder and the same compilation runs.
    ///
    /// # Errors
    /// As [`load_baked`].
    pub fn load_baked(&self, file: impl AsRef<Path>) -> Result<Arc<CharacterDefinition>, LoadError> {
        let file = file.as_ref();
        let bad = |reason: String, problem| LoadError::Baked { file: file.to_path_buf(), reason, problem };
        let baked = zoa_anim_assets::baked::read_baked_file(file).map_err(|e| match e {
            zoa_anim_assets::AssetError::Baked { problem, .. } => bad(problem.to_string(), Some(problem)),
            other => bad(other.to_string(), None),
        })?;
        let set = zoa_anim_assets::defs::load_texts(&baked.definitions);
        if let Some(d) = set.diagnostics.iter().find(|d| d.severity == Severity::Error) {
            let at = format!("{}:{}:{}", d.file.display(), d.line, d.column);
            return Err(bad(format!("its definition `{at}` does not load: {}", d.message), None));
        }
        let bundle = zoa_anim_assets::character::bundle_baked(&set, self.choice(), baked)
            .map_err(|problems| bad(problems.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "), None))?;
        CharacterDefinition::new(&bundle, self.settings.clone()).map_err(|e| bad(e.to_string(), None))
    }

    /// Bakes the character of the folder `dir` (checked in full first, like
    /// [`Loader::load`]) within `tolerance`: the bytes of the file and what
    /// they hold. The file keeps every clip and definition of the folder; the
    /// loader's choices apply when it is loaded.
    ///
    /// # Errors
    /// As [`load`]; an unreadable definition file is [`LoadError::UnreadableFolder`].
    pub fn bake(
        &self,
        dir: impl AsRef<Path>,
        tolerance: &zoa_anim_assets::baked::Tolerance,
    ) -> Result<(Vec<u8>, zoa_anim_assets::baked::BakeStats), LoadError> {
        let dir = dir.as_ref();
        if !dir.is_dir() {
            let resolved = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
            return Err(LoadError::MissingFolder { folder: dir.to_path_buf(), resolved });
        }
        let checked = validate(dir);
        let bundle = self.bundle_validated(&checked)?;
        // The runtime must accept it too, so a baked file always loads.
        self.compile(&checked, &bundle)?;
        let sources = zoa_anim_assets::defs::definition_sources(&checked.set, dir)
            .map_err(|e| LoadError::UnreadableFolder { folder: dir.to_path_buf(), reason: e.to_string() })?;
        Ok(zoa_anim_assets::baked::bake(&sources, &bundle, tolerance))
    }

    fn choice(&self) -> CharacterChoice<'_> {
        CharacterChoice {
            player_set: self.player_set.as_deref(),
            animation_profile: self.animation_profile.as_deref(),
            sound_profile: self.sound_profile.as_deref(),
        }
    }

    /// Compiles the character of a folder already checked with
    /// [`crate::validate`] (a tool that shows the diagnostics first, or a
    /// game that logs the warnings of a folder that loads).
    ///
    /// # Errors
    /// As [`load`].
    pub fn load_validated(&self, checked: &Validation) -> Result<Arc<CharacterDefinition>, LoadError> {
        self.bundle_validated(checked).and_then(|bundle| self.compile(checked, &bundle))
    }

    /// The character bundle (core types) of a checked folder, before the
    /// runtime compiles it: for tools that build their own definitions
    /// from it (a preview with other settings).
    ///
    /// # Errors
    /// As [`load`].
    pub fn bundle_validated(&self, checked: &Validation) -> Result<CharacterBundle, LoadError> {
        if let Some(d) = checked.folder_unreadable() {
            return Err(LoadError::UnreadableFolder { folder: checked.dir.clone(), reason: d.message.clone() });
        }
        if checked.error_count() > 0 {
            return Err(invalid(checked, Vec::new()));
        }
        load_character(&checked.set, &checked.dir, self.choice()).map_err(|problems| {
            let found = problems.iter().map(|p| bundle_problem(&checked.set, &checked.dir, p)).collect();
            invalid(checked, found)
        })
    }

    /// Compiles `bundle` (of the checked folder) with these settings.
    fn compile(&self, checked: &Validation, bundle: &CharacterBundle) -> Result<Arc<CharacterDefinition>, LoadError> {
        CharacterDefinition::new(bundle, self.settings.clone()).map_err(|e| {
            let found = match e {
                RuntimeError::CharacterSetup(problems) => {
                    problems.iter().map(|p| setup_problem(&checked.set, &checked.dir, p)).collect()
                }
                other => vec![at_folder(other.to_string())],
            };
            invalid(checked, found)
        })
    }
}

/// [`LoadError::Invalid`] with the folder's diagnostics and `more` (E021).
fn invalid(checked: &Validation, more: Vec<Diagnostic>) -> LoadError {
    let mut diagnostics = checked.diagnostics().to_vec();
    diagnostics.extend(more);
    diagnostics.sort_by(|a, b| (&a.file, a.line, a.column, a.code).cmp(&(&b.file, b.line, b.column, b.code)));
    let rendered = render_human(&checked.dir, &diagnostics, false);
    LoadError::Invalid { folder: checked.dir.clone(), diagnostics, rendered }
}

/// An E021 diagnostic about the folder as a whole.
fn at_folder(message: String) -> Diagnostic {
    at_file(Path::new(""), None, message)
}

/// An E021 diagnostic at `file` (at its `id` line when `dir` is given and the file has one).
fn at_file(file: &Path, dir: Option<&Path>, message: String) -> Diagnostic {
    let (line, column, span) = dir
        .filter(|_| !file.as_os_str().is_empty())
        .and_then(|d| locate_key(&d.join(file), "id"))
        .unwrap_or((1, 1, 0..0));
    Diagnostic {
        severity: Severity::Error,
        code: Code::CharacterSetup.id(),
        file: file.to_path_buf(),
        line,
        column,
        field: if line > 1 || column > 1 { "id".to_owned() } else { String::new() },
        message,
        span,
    }
}

/// The file of the definition `id` of the list `list` picks, or the folder.
fn file_of<T>(list: &[zoa_anim_assets::defs::Loaded<T>], id: &str, key: impl Fn(&T) -> &str) -> PathBuf {
    list.iter().find(|l| key(&l.value) == id).map_or_else(PathBuf::new, |l| l.file.clone())
}

fn ids<T>(list: &[zoa_anim_assets::defs::Loaded<T>], key: impl Fn(&T) -> &str) -> String {
    let mut v: Vec<&str> = list.iter().map(|l| key(&l.value)).collect();
    v.sort_unstable();
    if v.is_empty() { "none".to_owned() } else { v.join(", ") }
}

/// A problem assembling the bundle, located.
fn bundle_problem(set: &DefinitionSet, dir: &Path, p: &CharacterLoadProblem) -> Diagnostic {
    let clip_file = |id: &str| file_of(&set.clips, id, |c| &c.id);
    match p {
        CharacterLoadProblem::UnknownPlayerSet(id) => at_folder(format!(
            "no player_profile_set `{id}` in the folder (it has: {})",
            ids(&set.player_profile_sets, |s| &s.id)
        )),
        CharacterLoadProblem::UnknownSoundProfile(id) => at_folder(format!(
            "no sound_profile `{id}` in the folder (it has: {})",
            ids(&set.sound_profiles, |s| &s.id)
        )),
        CharacterLoadProblem::NoSkeleton if set.clips.is_empty() => at_folder(
            "the folder has no clip definitions, so no model and no skeleton: a character needs at least one \
             `clip` of a skinned model"
                .to_owned(),
        ),
        CharacterLoadProblem::NoSkeleton => at_file(
            &set.clips[0].file,
            Some(dir),
            "no clip names a model with a skin: a character needs a skeleton (the model the clips' `source` first \
             names, by its first skin)"
                .to_owned(),
        ),
        CharacterLoadProblem::Model { clip, .. } | CharacterLoadProblem::MissingAnimation { clip, .. } => {
            at_file(&clip_file(clip), Some(dir), p.to_string())
        }
        other => at_folder(other.to_string()),
    }
}

/// A problem the runtime's set-up found, located at the definition it concerns.
fn setup_problem(set: &DefinitionSet, dir: &Path, p: &SetupProblem) -> Diagnostic {
    let player = || set.player_profile_sets.first().map_or_else(PathBuf::new, |s| s.file.clone());
    let file = match p {
        SetupProblem::TooManyJoints(_) => set.clips.first().map_or_else(PathBuf::new, |c| c.file.clone()),
        SetupProblem::Clip { clip, .. } => file_of(&set.clips, clip, |c| &c.id),
        SetupProblem::DuplicateGraph(g) | SetupProblem::Graph { graph: g, .. } => {
            file_of(&set.animation_graphs, g, |x| &x.id)
        }
        SetupProblem::NoDefaultEntry { set: s, .. } => file_of(&set.player_profile_sets, s, |x| &x.id),
        SetupProblem::UnknownGraph { .. } | SetupProblem::UnknownBindingProfile { .. } => player(),
        SetupProblem::UnknownAnimationProfile { class: Some(_), .. } => player(),
        SetupProblem::AnimationProfile { profile, .. } => file_of(&set.animation_profiles, profile, |x| &x.id),
        SetupProblem::RigOverride(_) => set.rig_policies.first().map_or_else(PathBuf::new, |r| r.file.clone()),
        SetupProblem::ClassHoldsTwoItems { second, .. } => file_of(&set.equipment, second, |x| &x.id),
        _ => PathBuf::new(),
    };
    at_file(&file, Some(dir), p.to_string())
}

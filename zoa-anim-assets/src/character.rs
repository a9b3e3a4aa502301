//! A definition folder and the glTF files its clips name, as one
//! [`CharacterBundle`]: the skeleton, every clip with its keyframes, and the
//! definitions a character kind is made of.
//!
//! The model is the one the clips' `source` first names (its first skin);
//! clips cut from other files carry the skeleton they were authored on and
//! bind to it by joint name or by bone role (the clip's `bind` field). Models come decoded
//! from the folder load ([`DefinitionSet::model`]), so a folder's glTF files
//! are decoded once from folder to character. Every problem is reported at
//! once, typed.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use zoa_anim_core::{AnimationSelector, BundledClip, CharacterBundle};

use crate::defs::DefinitionSet;
use crate::gltf::{GltfAsset, load_gltf};

/// Which definitions of a folder make the character (`None` = the first by id).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CharacterChoice<'a> {
    /// Player profile set id (`None`: the first by id, if the folder has one).
    pub player_set: Option<&'a str>,
    /// Tag table of a character without a player set (`None`: none).
    pub animation_profile: Option<&'a str>,
    /// Sound profile id (`None`: the first by id, if the folder has one).
    pub sound_profile: Option<&'a str>,
}

/// Why a folder does not make a character.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CharacterLoadProblem {
    /// The chosen player profile set is not in the folder (or did not load).
    #[error("no valid player_profile_set `{0}` in the folder")]
    UnknownPlayerSet(String),
    /// The chosen sound profile is not in the folder (or did not load).
    #[error("no valid sound_profile `{0}` in the folder")]
    UnknownSoundProfile(String),
    /// No clip names a model that has a skin.
    #[error("no clip names a model with a skin (a character needs a skeleton)")]
    NoSkeleton,
    /// A model could not be loaded.
    #[error("clip `{clip}`: model `{}`: {reason}", path.display())]
    Model {
        /// The clip naming it.
        clip: String,
        /// The model path.
        path: PathBuf,
        /// Why it could not be loaded.
        reason: String,
    },
    /// A baked file has no clip for a clip definition of its own sources.
    #[error("clip `{0}`: the baked file has no keyframes for it")]
    MissingBakedClip(String),
    /// The model has no such animation.
    #[error("clip `{clip}`: `{}` has no animation `{animation}`", path.display())]
    MissingAnimation {
        /// The clip.
        clip: String,
        /// The model path.
        path: PathBuf,
        /// The animation asked for.
        animation: String,
    },
}

/// Builds the character bundle of `set` (loaded from `dir`).
pub fn load_character(
    set: &DefinitionSet,
    dir: &Path,
    choice: CharacterChoice<'_>,
) -> Result<CharacterBundle, Vec<CharacterLoadProblem>> {
    let mut problems = Vec::new();
    let (models, sources) = load_models(set, dir);
    let character = first_skinned(&models);
    let skeleton = character.and_then(|(_, m)| m.skeletons.first().cloned());
    let morph_nodes = character.map(|(_, m)| m.morph_nodes.clone()).unwrap_or_default();
    let first_model = character.map(|(p, _)| p.clone());
    let clips = bundle_clips(set, &models, &sources, first_model.as_ref(), &mut problems);
    assemble(set, choice, skeleton, morph_nodes, clips, problems)
}

/// Builds the character bundle of `set` with keyframes that do not come
/// from glTF: a baked file's skeleton, morph nodes and clips (paired with
/// the set's clip definitions by id; a definition without its clip is a
/// [`CharacterLoadProblem::MissingBakedClip`]).
pub fn bundle_baked(
    set: &DefinitionSet,
    choice: CharacterChoice<'_>,
    baked: crate::baked::BakedCharacter,
) -> Result<CharacterBundle, Vec<CharacterLoadProblem>> {
    let mut problems = Vec::new();
    let mut by_id: std::collections::HashMap<String, crate::baked::BakedClip> =
        baked.clips.into_iter().map(|c| (c.id.clone(), c)).collect();
    let mut clips = Vec::with_capacity(set.clips.len());
    for c in &set.clips {
        match by_id.remove(&c.value.id) {
            Some(b) => {
                clips.push(BundledClip { asset: c.value.clone(), clip: b.clip, source_skeleton: b.source_skeleton })
            }
            None => problems.push(CharacterLoadProblem::MissingBakedClip(c.value.id.clone())),
        }
    }
    assemble(set, choice, Some(baked.skeleton), baked.morph_nodes, clips, problems)
}

/// The bundle of `set` around a skeleton and clips (the choice's
/// definitions picked; every problem reported at once).
fn assemble(
    set: &DefinitionSet,
    choice: CharacterChoice<'_>,
    skeleton: Option<zoa_anim_core::Skeleton>,
    morph_nodes: Vec<zoa_anim_core::MorphNode>,
    clips: Vec<BundledClip>,
    clip_problems: Vec<CharacterLoadProblem>,
) -> Result<CharacterBundle, Vec<CharacterLoadProblem>> {
    let mut problems = Vec::new();
    let first_by_id = |ids: &mut Vec<&str>| {
        ids.sort_unstable();
        ids.first().map(|s| (*s).to_owned())
    };
    let player_set = match choice.player_set {
        Some(id) => match set.player_profile_sets.iter().find(|s| s.value.id == id) {
            Some(s) => Some(s.value.clone()),
            None => {
                problems.push(CharacterLoadProblem::UnknownPlayerSet(id.to_owned()));
                None
            }
        },
        None => {
            let mut sets: Vec<_> = set.player_profile_sets.iter().map(|l| &l.value).collect();
            sets.sort_by(|a, b| a.id.cmp(&b.id));
            sets.first().map(|s| (*s).clone())
        }
    };
    let sound_profile = match choice.sound_profile {
        Some(id) if set.sound_profiles.iter().any(|p| p.value.id == id) => Some(id.to_owned()),
        Some(id) => {
            problems.push(CharacterLoadProblem::UnknownSoundProfile(id.to_owned()));
            None
        }
        None => first_by_id(&mut set.sound_profiles.iter().map(|p| p.value.id.as_str()).collect()),
    };
    problems.extend(clip_problems);
    let Some(skeleton) = skeleton else {
        problems.insert(0, CharacterLoadProblem::NoSkeleton);
        return Err(problems);
    };
    if !problems.is_empty() {
        return Err(problems);
    }
    let mut state_graphs: Vec<_> = set.state_graphs.iter().map(|l| &l.value).collect();
    state_graphs.sort_by(|a, b| a.id.cmp(&b.id));
    let mut rigs: Vec<_> = set.rig_policies.iter().map(|l| &l.value).collect();
    rigs.sort_by(|a, b| a.id.cmp(&b.id));
    Ok(CharacterBundle {
        skeleton,
        morph_nodes,
        clips,
        player_set,
        graphs: set.animation_graphs.iter().map(|g| g.value.clone()).collect(),
        binding_profiles: set.binding_profiles.iter().map(|b| b.value.clone()).collect(),
        animation_profiles: set.animation_profiles.iter().map(|p| p.value.clone()).collect(),
        animation_profile: choice.animation_profile.map(str::to_owned),
        state_graph: state_graphs.first().map(|s| (*s).clone()),
        rig_policy: rigs.first().map(|r| (*r).clone()),
        equipment: set.equipment.iter().map(|e| e.value.clone()).collect(),
        sound_profiles: set.sound_profiles.iter().map(|p| p.value.clone()).collect(),
        sound_profile,
    })
}

/// The model the character of `set` (loaded from `dir`) is made of: the
/// first model the clips name that has a skin (its first skin is the
/// character's skeleton, and its skinned meshes the character's body).
#[must_use]
pub fn character_model(set: &DefinitionSet, dir: &Path) -> Option<PathBuf> {
    let (models, _) = load_models(set, dir);
    first_skinned(&models).map(|(p, _)| p.clone())
}

/// The first model with a skin, in the order the clips name them.
fn first_skinned(models: &[LoadedModel]) -> Option<(&PathBuf, &Arc<GltfAsset>)> {
    models.iter().find_map(|(p, m)| m.as_ref().ok().filter(|m| !m.skeletons.is_empty()).map(|m| (p, m)))
}

/// A model's path and the model (or why it did not load).
type LoadedModel = (PathBuf, Result<Arc<GltfAsset>, String>);

/// The models the clips name, in the order clips first name them, and each
/// clip's model path (`dir` joined with the folder-relative `source`, the key
/// the folder load decoded it under). A model the folder load did not decode
/// (a set assembled another way) is decoded here, once.
fn load_models(set: &DefinitionSet, dir: &Path) -> (Vec<LoadedModel>, Vec<PathBuf>) {
    let mut models: Vec<LoadedModel> = Vec::new();
    let mut sources = Vec::with_capacity(set.clips.len());
    for c in &set.clips {
        let key = dir.join(&c.value.source);
        if !models.iter().any(|(p, _)| *p == key) {
            let loaded = match set.model(&key) {
                Some(Ok(asset)) => Ok(Arc::clone(asset)),
                Some(Err(reason)) => Err(reason.to_owned()),
                None => load_gltf(&key).map(Arc::new).map_err(|e| e.to_string()),
            };
            models.push((key.clone(), loaded));
        }
        sources.push(key);
    }
    (models, sources)
}

/// Each clip definition with its animation taken from its model (`sources`:
/// the model path per clip). A clip whose model does not load or lacks the
/// animation is a problem. Clips of models other than `first_model` carry
/// their own file's skeleton, to bind by name or by bone role.
fn bundle_clips(
    set: &DefinitionSet,
    models: &[LoadedModel],
    sources: &[PathBuf],
    first_model: Option<&PathBuf>,
    problems: &mut Vec<CharacterLoadProblem>,
) -> Vec<BundledClip> {
    let mut clips = Vec::with_capacity(set.clips.len());
    for (c, key) in set.clips.iter().zip(sources) {
        let asset = &c.value;
        let model = match models.iter().find(|(p, _)| p == key).map(|(_, m)| m) {
            Some(Ok(m)) => m,
            Some(Err(reason)) => {
                problems.push(CharacterLoadProblem::Model {
                    clip: asset.id.clone(),
                    path: key.clone(),
                    reason: reason.clone(),
                });
                continue;
            }
            None => continue,
        };
        let Some(index) = find_animation(model, &asset.animation) else {
            problems.push(CharacterLoadProblem::MissingAnimation {
                clip: asset.id.clone(),
                path: key.clone(),
                animation: asset.animation.to_string(),
            });
            continue;
        };
        let source_skeleton = if first_model == Some(key) { None } else { model.authoring_skeleton() };
        clips.push(BundledClip { asset: asset.clone(), clip: model.clips[index].clone(), source_skeleton });
    }
    clips
}

/// The index of the animation `selector` names in `model`: by index, by
/// name, or by `<model stem>_<name>`.
fn find_animation(model: &GltfAsset, selector: &AnimationSelector) -> Option<usize> {
    match selector {
        AnimationSelector::Index(i) => Some(*i as usize).filter(|i| *i < model.clips.len()),
        AnimationSelector::Name(n) => model.clips.iter().position(|k| k.name() == n).or_else(|| {
            n.strip_prefix(&format!("{}_", model.stem)).and_then(|r| model.clips.iter().position(|k| k.name() == r))
        }),
    }
}

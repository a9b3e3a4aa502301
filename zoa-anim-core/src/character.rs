//! Everything one kind of character is made of, as plain core values: the
//! model's skeleton, its clips, and the definitions that drive them.
//!
//! A loader (`zoa-anim-assets` reads a definition folder and glTF files) or an
//! engine integration fills a [`CharacterBundle`]; the runtime compiles it
//! once into a shareable character definition. Nothing here is checked across
//! definitions: the runtime's compilation reports every mismatch at once.

use crate::{
    AnimationGraph, AnimationProfile, BindingProfile, Clip, ClipAsset, Equipment, MorphNode, PlayerProfileSet,
    RigPolicy, Skeleton, SoundProfile, StateGraph,
};

/// One playable clip: its definition (name, rate, loop hint, notifies) and
/// the keyframes it was cut from.
#[derive(Debug, Clone, PartialEq)]
pub struct BundledClip {
    /// The clip definition; its `id` is the name graphs, tables and slots use.
    pub asset: ClipAsset,
    /// The keyframes (targets by glTF node index, and by name).
    pub clip: Clip,
    /// The skeleton the clip was authored on when it comes from another file
    /// than the character's model (its first skin, else every node of that
    /// file); `None` for a clip of the character's own model, which binds by
    /// glTF node index. A clip from another file binds by name or by bone
    /// role, as its asset's [`ClipBinding`](crate::ClipBinding) says.
    pub source_skeleton: Option<Skeleton>,
}

/// The inputs of one character kind: a skeleton, its clips and the definitions.
///
/// - With a `player_set`, each loadout class names its binding profile, its
///   animation profile (tag table) and its graph; `animation_profile` is then
///   ignored.
/// - Without one, the character has no graph and no bindings: the tag table
///   named by `animation_profile` (if any) and the override slot drive it.
#[derive(Debug, Clone, PartialEq)]
pub struct CharacterBundle {
    /// The model's skeleton.
    pub skeleton: Skeleton,
    /// The model's nodes with morph targets (empty: none are animated).
    pub morph_nodes: Vec<MorphNode>,
    /// Playable clips, in id order.
    pub clips: Vec<BundledClip>,
    /// Loadout classes (graph, binding profile and tag table per weapon class).
    pub player_set: Option<PlayerProfileSet>,
    /// Animation graphs by id (at least every graph the set names).
    pub graphs: Vec<AnimationGraph>,
    /// Binding profiles (at least every profile the set names).
    pub binding_profiles: Vec<BindingProfile>,
    /// Animation profiles (the ones used and their ancestors).
    pub animation_profiles: Vec<AnimationProfile>,
    /// Tag table of a character without a player set.
    pub animation_profile: Option<String>,
    /// Per-dimension tag transition timing (shipped defaults when `None`).
    pub state_graph: Option<StateGraph>,
    /// IK behaviours and the procedural fallback (defaults when `None`).
    pub rig_policy: Option<RigPolicy>,
    /// Held items: each class's grips for hand on weapon (a class at most one item).
    pub equipment: Vec<Equipment>,
    /// Sound profiles (the character's and their ancestors); `sound_profile` names the character's.
    pub sound_profiles: Vec<SoundProfile>,
    /// The character's sound profile id.
    pub sound_profile: Option<String>,
}

impl CharacterBundle {
    /// A bundle of `skeleton` with nothing else (add clips and definitions).
    #[must_use]
    pub fn new(skeleton: Skeleton) -> CharacterBundle {
        CharacterBundle {
            skeleton,
            morph_nodes: Vec::new(),
            clips: Vec::new(),
            player_set: None,
            graphs: Vec::new(),
            binding_profiles: Vec::new(),
            animation_profiles: Vec::new(),
            animation_profile: None,
            state_graph: None,
            rig_policy: None,
            equipment: Vec::new(),
            sound_profiles: Vec::new(),
            sound_profile: None,
        }
    }
}

//! ZOA Animation in Bevy: a plugin and a component that drive a Bevy joint
//! hierarchy by meaning (state tags, bindings, slots, loadouts, IK inputs).
//!
//! The core stays engine-free; this crate adapts the runtime's public
//! character pipeline ([`zoa_anim_runtime::Character`]) to Bevy's ECS, on
//! Bevy's sub-crates only (`bevy_app`, `bevy_ecs`, `bevy_transform`,
//! `bevy_time`, `bevy_tasks`) so a headless build stays small.
//!
//! # One frame (`PostUpdate`, before transform propagation)
//! ```text
//!  Update: gameplay calls ZoaCharacter::set_tags / fire / set_float / equip …
//!  ZoaSet::Input            hot reload (swap definitions, cancel what the old
//!                           characters had in flight), bind new characters' joints
//!  ZoaSet::Evaluate         every ZoaCharacter updated by Time's delta (in chunks on the
//!                           compute pool), its ZoaJoint entities' Transforms = its local
//!                           pose right after its own update
//!  ZoaSet::WriteTransforms  (with `render`) morphed nodes' MorphWeights = the character's
//!  ZoaSet::Events           ZoaAnimationEvent / ZoaSoundCue messages, per entity in time order;
//!                           ZoaAnimationEvent also triggered on the entity for observers
//!  TransformSystems::Propagate
//! ```
//! Read events in the same frame from `PostUpdate` `.after(ZoaSet::Events)`
//! or with an observer; a reader in `Update` sees them one frame late (see
//! [`ZoaSet`] for where a game orders its systems).
//!
//! # Headless
//! [`ZoaHeadlessPlugins`] is the whole plugin set of a headless app on
//! Bevy's sub-crates (task pools, time, a schedule runner, transforms, ZOA).
//! No audio crate is compiled: sound leaves as [`ZoaSoundCue`] messages.
//!
//! # Key decisions
//! - **A character is a component on the root of its joint hierarchy**, and
//!   each bound joint entity carries a [`ZoaJoint`] pointing back at it.
//!   Evaluation is one pass over the characters, split into chunks on the
//!   compute pool; each character's joint `Transform`s are written right
//!   after its update, while its pose is still in cache (a second pass over
//!   joints cost as much as the animation at a thousand characters). A
//!   joint is written only by the character its `ZoaJoint` names, so two
//!   tasks never write one `Transform` (the one `unsafe` lookup rests on
//!   that), and parallel equals serial bit for bit. `ZoaJoint` is immutable
//!   (the plugin inserts and removes it); hooks count every change, so a
//!   character checks that its joints name it once, not every frame. The steps after it
//!   (events, morph weights, joint binding) visit only the characters that
//!   need them, not the crowd.
//! - **Joints bind by name, then by bone role**: an entity whose `Name`
//!   equals the joint's name; for joints left over, the entity that IK bone
//!   discovery gives the same role (hips, spine, upper leg, …) when the
//!   hierarchy is read as a skeleton. Binding waits until at least one joint
//!   matches (a glTF scene spawns a few frames after its root).
//! - **A definition folder is a Bevy asset** (`asset` feature, default on:
//!   `asset` module): a small `*.zoa.toml` manifest names the folder and the
//!   profile choices; `asset_server.load("hero.zoa.toml")`, a
//!   `ZoaDefinitionHandle` on the character's root, and Bevy's file watcher
//!   reloads it when any file of the folder changes (they are the loader's
//!   dependencies); a broken edit keeps the last good definition. A headless
//!   user may drop the feature (`bevy_asset` and reflection more than double
//!   a clean build) and load folders by path with [`ZoaDefinitions`]
//!   ([`definitions`]), which polls for changes, logs every reload through
//!   Bevy's logging (`tracing`) and sends a [`ZoaDefinitionReloaded`] message
//!   with its diagnostics.
//! - **Bevy conventions**: `Reflect` for the public components and settings
//!   (`reflect` feature, in `asset`); animation events are messages *and*
//!   entity events for observers; [`ZoaSet`] documents where a game orders
//!   its systems; with `render`, `ZoaDebugPlugin` draws skeletons, IK
//!   targets and active states with gizmos.
//! - **Events are messages** with the entity and a shared name
//!   (`Arc<str>`, allocated once per distinct name), so after warm-up a frame
//!   allocates nothing of its own.

#![deny(missing_docs)]
#![warn(clippy::must_use_candidate)]
#![cfg_attr(not(test), warn(clippy::too_many_lines))]
#![allow(
    elided_lifetimes_in_paths,
    reason = "Bevy system parameters (`Res`, `Query`, `Commands`) are written without their lifetimes, as Bevy's own code does"
)]

#[cfg(feature = "asset")]
pub mod asset;
pub mod binding;
mod character;
#[cfg(feature = "render")]
mod debug;
pub mod definitions;
mod error;
mod messages;
mod plugin;

#[cfg(feature = "asset")]
pub use asset::{ZoaAssetPlugin, ZoaDefinitionAsset, ZoaDefinitionHandle};
pub use binding::{JointBinding, ZoaJoint};
pub use character::ZoaCharacter;
#[cfg(feature = "render")]
pub use debug::{ZoaDebugGizmos, ZoaDebugPlugin};
pub use definitions::{ReloadOutcome, ZoaDefinitionId, ZoaDefinitions, load_definition};
pub use error::ZoaBevyError;
pub use messages::{ZoaAnimationEvent, ZoaDefinitionReloaded, ZoaSoundBridge, ZoaSoundCue, ZoaSoundKind};
pub use plugin::{ZoaAnimationPlugin, ZoaAnimationSettings, ZoaHeadlessPlugins, ZoaSet};
pub use zoa_anim_assets::character::CharacterChoice;
pub use zoa_anim_core as core;
pub use zoa_anim_runtime as runtime;
pub use zoa_anim_runtime::{CharacterDefinition, CharacterSettings};

/// What a game usually needs.
pub mod prelude {
    #[cfg(feature = "render")]
    pub use crate::ZoaDebugPlugin;
    pub use crate::{
        CharacterChoice, CharacterSettings, ZoaAnimationEvent, ZoaAnimationPlugin, ZoaAnimationSettings, ZoaCharacter,
        ZoaDefinitionReloaded, ZoaDefinitions, ZoaHeadlessPlugins, ZoaSet, ZoaSoundCue, ZoaSoundKind,
    };
    #[cfg(feature = "asset")]
    pub use crate::{ZoaAssetPlugin, ZoaDefinitionAsset, ZoaDefinitionHandle};
    pub use zoa_anim_core::{DefaultBindings, DefaultSlots, PlayerProfileType, StateTagSet};
}

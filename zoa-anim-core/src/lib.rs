//! # zoa-anim-core
//!
//! The engine-free heart of ZOA Animation: the vocabulary (semantic ids,
//! default bindings and slots), the state-tag algebra with its fallback walker
//! and most-specific-match resolver, profile inheritance, per-dimension
//! transition timing, the contracts gameplay and equipment implement, and the
//! plain validated data model (skeletons, clips, definitions).
//!
//! **Key design decision:** this crate does no IO and depends on no parser,
//! audio or threading crate. Loaders (`zoa-anim-assets`) produce these types;
//! evaluators (`zoa-anim-runtime`, `zoa-anim-ik`, `zoa-audio-profile`) consume
//! them. An engine integration can feed its own skeletons and clips straight
//! in. The resolve path and the fallback walk allocate nothing.
//!
//! ```
//! use zoa_anim_core::{StateTagSet, TaggedClipEntry, resolver::{resolve_best_match, MatchKind}};
//! let table = vec![
//!     TaggedClipEntry::new(StateTagSet::EMPTY, "idle"),
//!     TaggedClipEntry::new("locomotion=sprint mood=calm".parse().unwrap(), "sprint_calm"),
//! ];
//! let active: StateTagSet = "locomotion=sprint posture=standing mood=alert".parse().unwrap();
//! let hit = resolve_best_match(&table, active).unwrap();
//! assert_eq!(table[hit.row].clip, "sprint_calm");
//! assert_eq!(hit.kind, MatchKind::Fallback { step: 1 });
//! ```

#![deny(missing_docs)]
#![warn(clippy::must_use_candidate)]
#![cfg_attr(not(test), warn(clippy::too_many_lines))]

pub mod bindings;
pub mod budget;
pub mod character;
pub mod clip;
pub mod clip_asset;
pub mod contracts;
pub mod equipment;
mod error;
pub mod fallback;
pub mod graph;
pub mod ids;
pub mod inheritance;
pub mod morph;
pub mod player_set;
pub mod preview;
pub mod profile;
pub mod resolver;
pub mod rig;
pub mod skeleton;
pub mod sound;
pub mod sound_script;
pub mod tags;
pub mod timing;
pub mod vocabulary;

pub use bindings::{
    AnimationBindingEntry, AnimationBindingProfile, AnimationParameterType, AnimationSlotEntry, BindingProfile,
    BindingProfileBuilder,
};
pub use character::{BundledClip, CharacterBundle};
pub use clip::{Clip, Interpolation, Track, TrackProperty};
pub use clip_asset::{
    AnimationSelector, ClipAsset, ClipBinding, ClipNotify, FloatCurve, NotifyPayload, PayloadValue, SyncMarker,
};
pub use equipment::{Equipment, GripSocket, Grips, ItemOffset, SlotGrips};
pub use error::CoreError;
pub use graph::AnimationGraph;
pub use ids::{AnimationBindingId, AnimationSlotId, AudioBusId, IKTargetId, Name, SoundEventId, StanceId};
pub use morph::{MorphNode, MorphTrack};
pub use player_set::{PlayerProfileEntry, PlayerProfileSet, PlayerProfileType};
pub use profile::{AnimationProfile, NoMatchPolicy, RowPick, TaggedClipEntry, ValueRange};
pub use rig::{RigChain, RigPolicy};
pub use skeleton::{Joint, Skeleton, Transform};
pub use sound::{AudioVariant, CapPolicy, Rolloff, SoundEventEntry, SoundProfile, SoundThrottle};
pub use tags::{
    CombatTag, DimensionSet, InteractionTag, LocomotionTag, MoodTag, PostureTag, ReactionTag, StateDimension,
    StateTagSet,
};
pub use timing::{GaitSpeeds, StateGraph, TransitionPolicy, TransitionTrigger};
pub use vocabulary::{DefaultBindings, DefaultSlots, DefaultSoundEvents};

/// Re-exported so downstream crates use the same math types.
pub use glam;

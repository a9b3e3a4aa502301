//! # zoa-anim-runtime
//!
//! Everything that runs every frame, for one character or thousands, in
//! two parts:
//!
//! - [`pose`] — the **pose engine**: clips bound to a skeleton and sampled
//!   exactly as glTF 2.0 says, blended with three.js semantics (override and
//!   additive layers, bone masks, blend trees on a shared clock), composed
//!   by one job from a stack of weighted clips, IK applied, local-to-model
//!   and skinning matrices; the clip player (layers on their own clocks)
//!   and the crowd that updates many members in parallel, bit-identical to
//!   serial. Jobs over caller-owned buffers, ozz-style; nothing allocates
//!   after warm-up.
//! - [`character`] — the **character**: what decides what plays, by
//!   meaning. A definition compiled once (graphs, tag tables, binding
//!   profiles, loadout, rig IK, sound); per character the graph instances,
//!   tag selector, binding driver, loadout, IK inputs and events, written
//!   into the pose engine's stack each frame.
//!
//! A game uses the names at this root (a character definition, characters,
//! a crowd, their events); the `zoa-animation` crate puts them in one
//! prelude with the loader. The runtime never parses files: loaders
//! (`zoa-anim-assets`) or an engine hand it `zoa-anim-core` types.
//!
//! ```text
//!  gameplay ─► Character (driver · selector · graph · loadout · IK inputs) ─► PoseStack ─► ComposeJob ─► IK ─► model ─► skin
//!                                                   ClipPlayer (layers, clocks) ─► PoseStack ─┘
//! ```

#![deny(missing_docs)]
#![warn(clippy::must_use_candidate)]
#![cfg_attr(not(test), warn(clippy::too_many_lines))]

pub mod character;
mod error;
pub mod pose;

pub use character::{
    Character, CharacterDefinition, CharacterEventReceiver, CharacterSettings, Event, EventKind, Explanation,
    PoseOutput,
};
pub use error::RuntimeError;
pub use pose::{Crowd, Team};
pub use zoa_anim_core::glam;

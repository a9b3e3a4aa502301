//! # zoa-animation
//!
//! The front door of ZOA Animation: one import and one call from a
//! definition folder to characters that game code drives by *meaning* —
//! state tags, semantic bindings, slots and loadouts — instead of by
//! rig-specific names.
//!
//! ```no_run
//! use zoa_animation::prelude::*;
//!
//! fn main() -> Result<(), Box<dyn std::error::Error>> {
//!     let soldier = zoa_animation::load("fixtures/defs/humanoid")?; // every problem, located
//!     let mut hero = Character::new(&soldier)?;
//!     hero.set_tags("locomotion=walk".parse()?);
//!     hero.set_speed(1.5);
//!     hero.update(1.0 / 60.0)?;
//!     let _matrices = hero.skinning_matrices(); // to the renderer
//!     Ok(())
//! }
//! ```
//!
//! **Key design decision:** this crate adds no behaviour of its own. It ties
//! the loader (`zoa-anim-assets`: files → core types, with diagnostics) to
//! the runtime (`zoa-anim-runtime`: core types → poses and events), the way
//! the `bevy` crate fronts its sub-crates, so that a game depends on one
//! crate and imports one prelude, while a user who wants only the pose
//! engine or only the loader keeps depending on that crate alone. The
//! sub-crates are re-exported whole ([`core`], [`assets`], [`runtime`],
//! [`ik`]) for what the prelude leaves out.
//!
//! Loading is all or nothing: [`load`] checks the whole folder (every file,
//! every reference, every glTF model decoded once) and compiles a character
//! definition only from a folder without errors; otherwise the
//! [`LoadError`] prints every diagnostic as `zoa-anim validate` does.
//!
//! A shipped game loads a *baked* file instead ([`load_baked`], written by
//! `zoa-anim bake` or [`Loader::bake`]): the folder's skeleton and clips
//! reduced and quantized within a stated tolerance, no glTF to read (see
//! `docs/baked-format.md`).

#![deny(missing_docs)]
#![warn(clippy::must_use_candidate)]

mod error;
mod load;
mod validate;

pub use error::LoadError;
pub use load::{Loader, load, load_baked};
pub use validate::{Validation, validate, validate_with_overlay};

pub use zoa_anim_assets as assets;
pub use zoa_anim_core as core;
pub use zoa_anim_core::glam;
pub use zoa_anim_ik as ik;
pub use zoa_anim_runtime as runtime;

/// What a game imports: `use zoa_animation::prelude::*;`.
pub mod prelude {
    pub use crate::{LoadError, Loader, load, load_baked};
    pub use zoa_anim_core::{
        AnimationBindingId, AnimationSlotId, DefaultBindings, DefaultSlots, PlayerProfileType, StateTagSet,
    };
    pub use zoa_anim_runtime::character::{CharacterEventReceiver, Event, EventKind};
    pub use zoa_anim_runtime::{Character, CharacterDefinition, CharacterSettings, Crowd, Team};
}

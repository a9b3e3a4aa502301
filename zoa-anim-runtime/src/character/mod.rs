//! Characters: the public frame pipeline from gameplay meaning to a skinned
//! pose, for one character or a crowd.
//!
//! # Terminology
//! - **Definition** ([`CharacterDefinition`]): one kind of character,
//!   compiled once from a [`zoa_anim_core::CharacterBundle`] and shared
//!   (`Arc`): skeleton, bound clips, graphs with resolved masks, binding
//!   profiles, flattened tag tables, timing, rig IK, sound profile. Every
//!   set-up problem is reported at once, typed ([`SetupProblem`]).
//! - **Character** ([`Character`]): everything one character changes per
//!   frame (graph instances through its loadout, tag selector, driver,
//!   override slot, sampling cursors, pose buffers, IK state, event queue),
//!   sized at spawn.
//! - **Crowd** ([`crate::Crowd`]): characters updated serially or with
//!   rayon, bit-identical for any thread count.
//!
//! # One frame
//! ```text
//!  gameplay (between frames)                 engine (update, any thread)                 after
//!  set_tags / send_tag_event ──► selector    1 graph(s): clocks, transitions, slot        deliver_events
//!  fire / set_* (bindings)  ──► driver       2 selector: timing rule, fades              ─► receiver(char, time, kind)
//!  play_slot / stop_slot    ──► slot         3 events: notifies (leader rule), states,   ─► SoundBridge (tags, surface)
//!  equip / unequip          ──► loadout        slot progress, binding sub-phases
//!  set_speed, IK inputs               4 pose: sample + BlendingJob (Layered)
//!                                            5 inertialization, IK, local→model, skinning
//! ```
//!
//! # Key decisions
//! - **How tags and the graph compose.** The selector drives its own
//!   full-body override layer, stacked right above the graph's base layer and
//!   below the graph's (masked) upper layers and the override slot. Its
//!   weight is the weight of the base layer's *entry state*: the entry state
//!   is the character's default behaviour, which tags refine; any other base
//!   state (jump, fall, land, death, crouch) is an explicit action gameplay
//!   asked the graph for, and it wins, with the graph's own transition blend.
//!   With a graph, only rows that assert a tag take part: the untagged
//!   universal default and the default idle mean "nothing specific", so the
//!   graph shows. Without a graph the selector (any row) is the base layer.
//!   Why not override-controller clip substitution: a tag row names one clip
//!   for the whole body, not which of a state's clips it replaces, so there
//!   is no faithful mapping; a layer keeps both halves' semantics intact and
//!   lets the policy's hold and cross-fade show as the layer's fade.
//! - **Layers compose Unity-style** ([`crate::pose::Composition::Layered`]): within
//!   a layer, three.js accumulation; between layers, `blend(below, layer,
//!   weight × mask)`; additive layers add onto what is below; the override
//!   slot is the top layer, so at envelope 1 its bones show the slot clip alone.
//! - **Loadout switches** evaluate the outgoing graph's stack with its own
//!   masks and cross-fade the two poses.
//! - **Inertialization** applies to the composed local pose: the offset from
//!   the last output to the target's first pose decays with Bollo's quintic.
//! - **Event-triggered tag dimensions** (`OnEvent`) are released by
//!   [`Character::send_tag_event`] and by firing or setting the bindings of
//!   [`tag_event_dimensions`].
//! - **Binding sub-phases**: firing a trigger binding watches the transition
//!   that consumes it: `start` when it starts, `complete` when its state is
//!   left at an exit time, `cancel` when it is left otherwise.

mod definition;
mod delivery;
pub mod driver;
mod equipment;
pub mod events;
mod explain;
pub mod fade;
pub mod graph;
pub mod loadout;
pub mod lod;
mod pose_stage;
pub mod selector;
mod sound;
mod state;
mod workload;

pub use crate::error::SetupProblem;
pub use definition::{CharacterDefinition, CharacterSettings, HAND_ON_WEAPON_CURVE, ProceduralJoints};
pub use delivery::{CharacterEventReceiver, ToEventReceiver};
pub use events::{BindingPhase, Event, EventKind, MAX_OPEN_WINDOWS, NotifySource, NotifyWindow};
pub use explain::{Explanation, GraphReport, LayerReport, SelectorReport};
pub use loadout::LoadoutChange;
pub use lod::{LOD_RATES, LodBudget, LodSettings};
pub use pose_stage::{PoseContribution, PosePart};
#[cfg(feature = "audio")]
pub use sound::AudioOut;
pub use sound::{SoundBridge, SoundCue, SoundCueKind, SoundCueSink};
pub use state::{Character, MAX_BINDING_WATCHES, PoseOutput, tag_event_dimensions};
pub use workload::CrowdWorkload;

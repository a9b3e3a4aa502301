//! The character component: a ZOA character on a Bevy entity.

use std::sync::Arc;

use bevy_ecs::prelude::{Component, Entity};
use zoa_anim_core::contracts::PoseSnapshot;
use zoa_anim_core::glam::Vec3;
use zoa_anim_core::{AnimationBindingId, AnimationSlotId, DimensionSet, PlayerProfileType, StateTagSet};
use zoa_anim_ik::{GroundProbe, HandTarget};
use zoa_anim_runtime::LoadoutChange;
use zoa_anim_runtime::{Character, CharacterDefinition, IkInputs, Pose, RuntimeError};

use crate::binding::JointBinding;
use crate::error::ZoaBevyError;

/// A definition folder loaded into [`ZoaDefinitions`](crate::ZoaDefinitions). It lives
/// beside the character (which remembers where it came from) so that the
/// definitions module depends on characters and not the other way round.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ZoaDefinitionId(pub(crate) u32);

/// A ZOA character on the root entity of a joint hierarchy (a spawned glTF
/// scene, or joints spawned by hand). Gameplay drives it by meaning through
/// methods that mirror [`Character`]'s gameplay API; the plugin binds its
/// joints to the entities below it by name (then by bone role), evaluates it
/// every frame (all characters in parallel) and writes the joints' local
/// [`Transform`](bevy_transform::components::Transform)s.
#[derive(Debug, Component)]
pub struct ZoaCharacter {
    character: Character,
    source: Option<(ZoaDefinitionId, u32)>,
    pub(crate) binding: Option<JointBinding>,
    /// Entities bound before a rebind (their [`crate::ZoaJoint`] is removed).
    pub(crate) stale: Option<JointBinding>,
    pub(crate) last_error: Option<RuntimeError>,
}

impl ZoaCharacter {
    /// A character of `def` (its buffers sized now; frames allocate nothing).
    pub fn new(def: &Arc<CharacterDefinition>) -> Result<ZoaCharacter, ZoaBevyError> {
        Ok(ZoaCharacter::from_character(Character::new(def)?))
    }

    /// Wraps a runtime character set up by hand.
    #[must_use]
    pub fn from_character(character: Character) -> ZoaCharacter {
        ZoaCharacter { character, source: None, binding: None, stale: None, last_error: None }
    }

    pub(crate) fn set_source(&mut self, id: ZoaDefinitionId, generation: u32) {
        self.source = Some((id, generation));
    }

    pub(crate) fn source(&self) -> Option<(ZoaDefinitionId, u32)> {
        self.source
    }

    /// Re-creates the character on a reloaded definition, keeping the tags,
    /// entity speed and loadout class gameplay set; joints are bound again.
    pub(crate) fn respawn(
        &mut self,
        def: &Arc<CharacterDefinition>,
        id: ZoaDefinitionId,
        generation: u32,
    ) -> Result<(), RuntimeError> {
        let mut next = Character::new(def)?;
        next.set_tags(self.character.tags());
        next.set_speed(self.character.speed());
        if let Some(class) = self.character.class() {
            next.equip(class);
        }
        self.character = next;
        self.source = Some((id, generation));
        self.rebind();
        Ok(())
    }

    // ---- gameplay (mirrors `Character`) --------------------------------

    /// Requests new state tags ([`Character::set_tags`]).
    pub fn set_tags(&mut self, tags: StateTagSet) {
        self.character.set_tags(tags);
    }
    /// Releases pending `OnEvent` tag changes ([`Character::send_tag_event`]).
    pub fn send_tag_event(&mut self, dimensions: DimensionSet) {
        self.character.send_tag_event(dimensions);
    }
    /// Fires a trigger binding ([`Character::fire`]).
    pub fn fire(&mut self, binding: AnimationBindingId) {
        self.character.fire(binding);
    }
    /// Sets a bool binding ([`Character::set_bool`]).
    pub fn set_bool(&mut self, binding: AnimationBindingId, value: bool) {
        self.character.set_bool(binding, value);
    }
    /// Sets a float binding ([`Character::set_float`]).
    pub fn set_float(&mut self, binding: AnimationBindingId, value: f32) {
        self.character.set_float(binding, value);
    }
    /// Sets an int binding ([`Character::set_int`]).
    pub fn set_int(&mut self, binding: AnimationBindingId, value: i32) {
        self.character.set_int(binding, value);
    }
    /// Plays a slot in the override slot ([`Character::play_slot`]).
    pub fn play_slot(&mut self, slot: AnimationSlotId) -> bool {
        self.character.play_slot(slot)
    }
    /// Fades the override slot out over `blend_out` seconds ([`Character::stop_slot`]).
    pub fn stop_slot(&mut self, blend_out: f32) {
        self.character.stop_slot(blend_out);
    }
    /// Equips a weapon class ([`Character::equip`]; may allocate).
    pub fn equip(&mut self, class: PlayerProfileType) -> Option<LoadoutChange> {
        self.character.equip(class)
    }
    /// Back to the unarmed baseline ([`Character::unequip`]).
    pub fn unequip(&mut self) -> Option<LoadoutChange> {
        self.character.unequip()
    }
    /// Speed over the ground, m/s: gaits, the `speed` binding, IK ([`Character::set_speed`]).
    pub fn set_speed(&mut self, metres_per_second: f32) {
        self.character.set_speed(metres_per_second);
    }
    /// Playback speed (`>= 0`, default 1; [`Character::set_playback_speed`]).
    pub fn set_playback_speed(&mut self, speed: f32) {
        self.character.set_playback_speed(speed);
    }
    /// IK inputs ([`Character::ik_inputs_mut`]).
    pub fn ik_inputs_mut(&mut self) -> Option<&mut IkInputs> {
        self.character.ik_inputs_mut()
    }
    /// The ground under the feet ([`Character::set_ground`]).
    pub fn set_ground(&mut self, ground: Option<Arc<dyn GroundProbe + Send + Sync>>) {
        self.character.set_ground(ground);
    }
    /// Look target in model space ([`Character::set_look_target`]).
    pub fn set_look_target(&mut self, target: Option<Vec3>) {
        self.character.set_look_target(target);
    }
    /// IK pose of the equipped item ([`Character::set_weapon_pose`]).
    pub fn set_weapon_pose(&mut self, pose: Option<PoseSnapshot>) {
        self.character.set_weapon_pose(pose);
    }
    /// Ledge targets for the hands ([`Character::set_ledge_targets`]).
    pub fn set_ledge_targets(&mut self, targets: [Option<HandTarget>; 2]) {
        self.character.set_ledge_targets(targets);
    }

    // ---- readout -------------------------------------------------------

    /// The runtime character (every readout: pose, matrices, selector, graph).
    #[must_use]
    pub fn runtime(&self) -> &Character {
        &self.character
    }
    /// The runtime character, mutable (the plugin updates it; do not call
    /// `update` or `deliver_events` yourself while the plugin runs).
    pub fn runtime_mut(&mut self) -> &mut Character {
        &mut self.character
    }
    /// Local joint transforms of the last evaluation.
    #[must_use]
    pub fn local_pose(&self) -> &Pose {
        self.character.local_pose()
    }
    /// Which entity each joint drives (`None` until bound).
    #[must_use]
    pub fn binding(&self) -> Option<&JointBinding> {
        self.binding.as_ref()
    }
    /// Binds the joints again on the next frame (after the hierarchy changed).
    pub fn rebind(&mut self) {
        if let Some(b) = self.binding.take() {
            self.stale = Some(b);
        }
    }
    /// The error of the last failed update, if any (the character keeps its
    /// last pose; the error is logged once).
    #[must_use]
    pub fn last_error(&self) -> Option<&RuntimeError> {
        self.last_error.as_ref()
    }

    /// Advances and evaluates by `dt` seconds (the plugin's evaluate step).
    pub(crate) fn update(&mut self, dt: f32, entity: Entity) {
        match self.character.update(dt) {
            Ok(()) => self.last_error = None,
            Err(e) => {
                if self.last_error.is_none() {
                    log::error!("zoa: character {entity}: {e}");
                }
                self.last_error = Some(e);
            }
        }
    }
}

//! The character component: a ZOA character on a Bevy entity.

use std::ops::{Deref, DerefMut};
use std::sync::Arc;

use bevy_ecs::prelude::{Component, Entity};
#[cfg(feature = "reflect")]
use bevy_ecs::reflect::ReflectComponent;
use zoa_anim_runtime::pose::{CrowdMember, PoseScratch};
use zoa_anim_runtime::{Character, CharacterDefinition, PoseOutput, RuntimeError};

use crate::binding::JointBinding;
use crate::error::ZoaBevyError;

/// A definition folder loaded into [`ZoaDefinitions`](crate::ZoaDefinitions). It lives
/// beside the character (which remembers where it came from) so that the
/// definitions module depends on characters and not the other way round.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ZoaDefinitionId(pub(crate) u32);

/// A ZOA character on the root entity of a joint hierarchy (a spawned glTF
/// scene, or joints spawned by hand). It hands out the runtime
/// [`Character`] ([`ZoaCharacter::runtime`], [`ZoaCharacter::runtime_mut`],
/// and it dereferences to it), so gameplay drives it by meaning with the
/// character's own API (`set_tags`, `set_speed`, `fire`, `play_slot`,
/// `play_state`, `equip`, `ik_inputs_mut`, `explain`, …) and reads it the
/// same way: this type mirrors none of its setters. The plugin
/// binds its joints to the entities below it by name (then by bone role),
/// evaluates it every frame (all characters in parallel) and writes the
/// joints' local [`Transform`](bevy_transform::components::Transform)s.
/// (Leave `update` and `deliver_events` to the plugin.)
///
/// With the `reflect` feature it is registered for reflection as a
/// component without reflected fields (its state is the runtime's, read
/// through its API).
#[derive(Debug, Component)]
#[cfg_attr(feature = "reflect", derive(bevy_reflect::Reflect), reflect(Component, from_reflect = false))]
pub struct ZoaCharacter {
    #[cfg_attr(feature = "reflect", reflect(ignore))]
    character: Character,
    #[cfg_attr(feature = "reflect", reflect(ignore))]
    source: Option<(ZoaDefinitionId, u32)>,
    #[cfg_attr(feature = "reflect", reflect(ignore))]
    pub(crate) binding: Option<JointBinding>,
    /// The entity this character was on and the
    /// [`crate::binding::JointGeneration`] when every entity of `binding` was
    /// found carrying a `ZoaJoint` that names that entity and its joint (see
    /// `JointWriter`; the entity too, as the component can be moved or
    /// swapped onto another entity).
    #[cfg_attr(feature = "reflect", reflect(ignore))]
    pub(crate) joints_named_at: Option<(Entity, u64)>,
    /// The entity each morphed node drives (by `Name`), in slot order of the
    /// skeleton's [`zoa_anim_runtime::pose::MorphSet`]; filled when the joints bind.
    #[cfg_attr(feature = "reflect", reflect(ignore))]
    pub(crate) morph_entities: Vec<Option<Entity>>,
    /// Entities bound before a rebind (their [`crate::ZoaJoint`] is removed).
    #[cfg_attr(feature = "reflect", reflect(ignore))]
    pub(crate) stale: Option<JointBinding>,
    #[cfg_attr(feature = "reflect", reflect(ignore))]
    pub(crate) last_error: Option<RuntimeError>,
}

impl Deref for ZoaCharacter {
    type Target = Character;
    fn deref(&self) -> &Character {
        &self.character
    }
}

impl DerefMut for ZoaCharacter {
    fn deref_mut(&mut self) -> &mut Character {
        &mut self.character
    }
}

impl ZoaCharacter {
    /// A character of `def` (its buffers sized now; frames allocate nothing).
    /// Bevy propagates the joint entities' transforms and skins meshes from
    /// them, so the character computes its local pose only
    /// ([`PoseOutput::Local`]: no runtime model-space or skinning matrices;
    /// `runtime_mut().set_output(PoseOutput::Skinning)` turns them on, for a
    /// renderer of your own).
    pub fn new(def: &Arc<CharacterDefinition>) -> Result<ZoaCharacter, ZoaBevyError> {
        let mut character = Character::new(def)?;
        character.set_output(PoseOutput::Local);
        Ok(ZoaCharacter::from_character(character))
    }

    /// Wraps a runtime character set up by hand.
    #[must_use]
    pub fn from_character(character: Character) -> ZoaCharacter {
        ZoaCharacter {
            character,
            source: None,
            binding: None,
            morph_entities: Vec::new(),
            stale: None,
            joints_named_at: None,
            last_error: None,
        }
    }

    pub(crate) fn set_source(&mut self, id: ZoaDefinitionId, generation: u32) {
        self.source = Some((id, generation));
    }

    pub(crate) fn source(&self) -> Option<(ZoaDefinitionId, u32)> {
        self.source
    }

    /// Re-creates the character on a reloaded definition, keeping the tags,
    /// entity speed and loadout class gameplay set; joints are bound again.
    /// Returns the old character, to be [retired](Character::retire) (its
    /// actions in flight cancelled) by the caller.
    pub(crate) fn respawn(&mut self, def: &Arc<CharacterDefinition>) -> Result<Character, RuntimeError> {
        let mut next = Character::new(def)?;
        next.set_output(self.character.output());
        next.set_tags(self.character.tags());
        next.set_speed(self.character.speed());
        if let Some(class) = self.character.class() {
            next.equip(class);
        }
        let old = std::mem::replace(&mut self.character, next);
        self.rebind();
        Ok(old)
    }

    /// The runtime character: every reading (`tags`, `time`, `explain`,
    /// `local_pose`, `graph_instance`, …).
    #[must_use]
    pub fn runtime(&self) -> &Character {
        &self.character
    }

    /// The runtime character, for gameplay calls (`set_tags`, `set_speed`,
    /// `fire`, `play_slot`, `equip`, `ik_inputs_mut`, …). Leave `update` and
    /// `deliver_events` to the plugin.
    pub fn runtime_mut(&mut self) -> &mut Character {
        &mut self.character
    }

    // ---- readout -------------------------------------------------------

    /// Which entity each joint drives (`None` until bound).
    #[must_use]
    pub fn binding(&self) -> Option<&JointBinding> {
        self.binding.as_ref()
    }
    /// The entity the joint named `name` drives (the skeleton's joint name,
    /// as in the definition's model; `None` when there is no such joint or
    /// it is not bound yet). For a socket, a prop or a look-at target:
    /// `c.joint_entity("hand_R")`.
    #[must_use]
    pub fn joint_entity(&self, name: &str) -> Option<Entity> {
        let joint = self.character.definition().skeleton().skeleton().find(name)?;
        self.binding.as_ref()?.entity(joint)
    }
    /// The entity each morphed node of the model drives, in the slot order of
    /// `definition().skeleton().morphs()` (`None`: no entity below the
    /// character has the node's name). With the `render` feature the plugin
    /// writes the character's morph weights to these entities' Bevy
    /// `MorphWeights`.
    #[must_use]
    pub fn morph_entities(&self) -> &[Option<Entity>] {
        &self.morph_entities
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
    pub(crate) fn update(&mut self, dt: f32, entity: Entity, lent: Option<&mut PoseScratch>) {
        match self.character.update_lent(dt, lent) {
            Ok(()) => self.last_error = None,
            Err(e) => {
                if self.last_error.is_none() {
                    tracing::error!("zoa: character {entity}: {e}");
                }
                self.last_error = Some(e);
            }
        }
    }
}

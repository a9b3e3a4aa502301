//! The held item's grips: each character's [`EquipmentPoseService`], fed by
//! its loadout, writing the hand-on-weapon targets into its IK inputs.
//!
//! # Terminology
//! - **item**: a [`CompiledEquipment`] of the definition (an `equipment`
//!   definition compiled for the skeleton); a weapon class holds at most one.
//! - **hand-over**: the service's switch from the item held before to the
//!   one held now (or to none), over the definition's loadout cross-fade —
//!   the grips blend in as the new class's graph fades in, and out on holster.
//!
//! ```text
//!  equip(class) ──► register the class's item / unregister the old one ──► service
//!  set_bool(is_aiming), play_slot / stop_slot ─────────────────────────────► service
//!  update(dt): service.tick ──► current PoseSnapshot ──clone_from──► IkInputs::weapon_pose ──► rig IK
//! ```
//!
//! A snapshot the game sets itself ([`Character::set_weapon_pose`](super::Character::set_weapon_pose))
//! takes precedence until it is cleared. Equipping may allocate (a provider
//! is boxed); a frame does not: the snapshot is copied into the IK inputs'
//! storage, which keeps the capacity of the largest pose it has held.

use zoa_anim_core::contracts::{IkPoseProvider, IkPoseService, PoseSnapshot};
use zoa_anim_core::{AnimationSlotId, PlayerProfileType};
use zoa_anim_ik::{EquipmentPoseService, IkInputs};

use super::definition::CharacterDefinition;

/// Seconds the aim and slot grips take to blend in or out (the IK pose
/// service's blend time; the hand-over between items takes the loadout cross-fade).
pub(crate) const GRIP_BLEND: f32 = 0.15;

/// One character's held-item state (present when its definition has items
/// and hand on weapon runs on its skeleton).
#[derive(Debug)]
pub(crate) struct EquipmentIk {
    service: EquipmentPoseService,
    /// Index of the held item among the definition's items.
    held: Option<usize>,
    /// The game set its own weapon pose: the service does not overwrite it.
    game_pose: bool,
}

impl EquipmentIk {
    /// The state of a character of `def` spawned holding `class`'s item, if
    /// any, already in hand (no hand-over). `None` when nothing can use it.
    pub(crate) fn new(
        def: &CharacterDefinition,
        class: Option<PlayerProfileType>,
        inputs: &mut IkInputs,
    ) -> Option<EquipmentIk> {
        let runs = def.rig_ik.as_ref().is_some_and(|r| r.is_active(zoa_anim_ik::PolicyKind::HandOnWeapon));
        if !runs || def.equipment.is_empty() {
            return None;
        }
        let mut service = EquipmentPoseService::new(GRIP_BLEND);
        service.set_switch_time(def.settings.loadout_crossfade);
        let mut e = EquipmentIk { service, held: None, game_pose: false };
        if let Some(class) = class {
            e.equip(def, class, inputs);
        }
        e.service.finish_switch();
        e.service.tick(0.0);
        Some(e)
    }

    /// Holds `class`'s item (none: empty hands), handing over from the one
    /// held before. May allocate.
    pub(crate) fn equip(&mut self, def: &CharacterDefinition, class: PlayerProfileType, inputs: &mut IkInputs) {
        let next = def.item_index(class);
        if next == self.held {
            return;
        }
        if !self.game_pose {
            // The frames of the hand-over copy the pose into the IK input's
            // storage: an item's targets are the two hand grips, and a
            // hand-over holds their union, so two fit.
            let pose = inputs.weapon_pose.get_or_insert_with(PoseSnapshot::default);
            pose.targets.reserve(2usize.saturating_sub(pose.targets.len()));
        }
        if let Some(old) = self.held.take() {
            self.service.unregister_provider(def.equipment[old].equipment_id());
        }
        if let Some(i) = next {
            self.service.register_provider(Box::new(def.equipment[i].clone()));
        }
        self.held = next;
    }

    /// The index of the item in hand.
    pub(crate) fn held(&self) -> Option<usize> {
        self.held
    }

    /// The service (read-only: the character feeds it).
    pub(crate) fn service(&self) -> &EquipmentPoseService {
        &self.service
    }

    pub(crate) fn set_aiming(&mut self, aiming: bool) {
        self.service.set_aiming(aiming);
    }

    /// A slot started (asks the item for its slot grips; may allocate).
    pub(crate) fn slot_started(&mut self, slot: AnimationSlotId) {
        self.service.set_active_slot(slot);
    }

    pub(crate) fn slot_stopped(&mut self) {
        self.service.clear_active_slot();
    }

    /// Whether the game's own weapon pose is in use.
    pub(crate) fn set_game_pose(&mut self, on: bool) {
        self.game_pose = on;
    }

    /// Advances the blends by `dt` (already scaled by playback speed) and,
    /// unless the game set its own, writes the current pose into `inputs`.
    /// `slot_playing`: whether the override slot still plays (a slot that
    /// ended on its own releases its grips). Allocation-free after warm-up.
    pub(crate) fn tick(&mut self, dt: f32, slot_playing: bool, inputs: &mut IkInputs) {
        if !slot_playing && self.service.active_slot().is_some() {
            self.service.clear_active_slot();
        }
        self.service.tick(dt);
        if self.game_pose {
            return;
        }
        let current = self.service.current_pose();
        match &mut inputs.weapon_pose {
            Some(pose) => pose.clone_from(current),
            None => inputs.weapon_pose = Some(current.clone()),
        }
    }
}

//! Equipment definitions compiled for one skeleton: the
//! [`IkPoseProvider`] a held item registers with the IK pose service.
//!
//! A [`CompiledEquipment`] holds its idle, aim and per-slot
//! [`PoseSnapshot`]s ready-made, each grip a [`LEFT_HAND_GRIP`] /
//! [`RIGHT_HAND_GRIP`] target in the frame of the attach bone
//! ([`PoseSpace::Joint`]) with the item's offset folded in, so the rig pass
//! places it on the hand holding the item wherever the animation put that
//! hand ([`crate::rig::hand_target`]). The main hand is the attach bone's
//! side (the right for roles on neither side), the off hand the other.
//!
//! ```text
//!  Equipment (core, authored) ──CompiledEquipment::new(roles)──► provider
//!      provider ──register on equip──► EquipmentPoseService ──tick──► PoseSnapshot ──► IkInputs::weapon_pose
//! ```

use zoa_anim_core::contracts::{IkPoseProvider, PoseSnapshot, PoseSpace, PoseTargetData};
use zoa_anim_core::equipment::{GripSocket, Grips, ItemOffset};
use zoa_anim_core::glam::{Quat, Vec3};
use zoa_anim_core::{AnimationSlotId, Equipment, IKTargetId, Skeleton};

use crate::IkError;
use crate::rig::{LEFT_HAND_GRIP, RIGHT_HAND_GRIP};
use crate::roles::{BoneRoles, Role};

/// An [`Equipment`] compiled for one skeleton (set-up time; allocates).
/// Cheap to clone: a character registers a clone when it equips the item.
#[derive(Debug, Clone, PartialEq)]
pub struct CompiledEquipment {
    id: String,
    attach_role: Role,
    attach: u16,
    main_target: IKTargetId,
    idle: PoseSnapshot,
    aim: PoseSnapshot,
    slots: Vec<(AnimationSlotId, PoseSnapshot)>,
}

impl CompiledEquipment {
    /// Compiles `equipment` for `skeleton`, whose bone roles are `roles`
    /// (discovered with the rig policy's overrides). Errors when no bone
    /// plays the attach role.
    pub fn new(equipment: &Equipment, skeleton: &Skeleton, roles: &BoneRoles) -> Result<CompiledEquipment, IkError> {
        let (attach_role, attach) = Role::from_name(&equipment.attach)
            .and_then(|r| Some((r, roles.get(r)?)))
            .ok_or_else(|| IkError::AttachNotFound {
                equipment: equipment.id.clone(),
                role: equipment.attach.clone(),
                skeleton: skeleton.name().to_owned(),
            })?;
        let (main_target, off_target) = if equipment.main_hand_is_left() {
            (LEFT_HAND_GRIP, RIGHT_HAND_GRIP)
        } else {
            (RIGHT_HAND_GRIP, LEFT_HAND_GRIP)
        };
        let snapshot = |g: &Grips| {
            let mut s = PoseSnapshot { targets: Vec::with_capacity(2), weight: 1.0 };
            for (target, socket) in [(main_target, g.main_hand), (off_target, g.off_hand)] {
                if let Some(socket) = socket {
                    s.targets.push(in_attach_frame(target, &socket, &equipment.offset, attach));
                }
            }
            s
        };
        Ok(CompiledEquipment {
            id: equipment.id.clone(),
            attach_role,
            attach,
            main_target,
            idle: snapshot(&equipment.grips),
            aim: snapshot(equipment.aim_grips()),
            slots: equipment.slots.iter().map(|s| (s.slot, snapshot(&s.grips))).collect(),
        })
    }

    /// The joint holding the item (its grips are in this joint's frame).
    #[must_use]
    pub fn attach_joint(&self) -> u16 {
        self.attach
    }

    /// The role of the joint holding the item.
    #[must_use]
    pub fn attach_role(&self) -> Role {
        self.attach_role
    }

    /// The main hand's target id ([`RIGHT_HAND_GRIP`] unless the item is held on the left).
    #[must_use]
    pub fn main_target(&self) -> IKTargetId {
        self.main_target
    }

    /// The off hand's target id.
    #[must_use]
    pub fn off_target(&self) -> IKTargetId {
        if self.main_target == LEFT_HAND_GRIP { RIGHT_HAND_GRIP } else { LEFT_HAND_GRIP }
    }

    /// The idle snapshot, without cloning it.
    #[must_use]
    pub fn idle(&self) -> &PoseSnapshot {
        &self.idle
    }
}

/// `socket` (item frame) in the attach joint's frame: `offset ∘ socket`.
fn in_attach_frame(target: IKTargetId, socket: &GripSocket, offset: &ItemOffset, attach: u16) -> PoseTargetData {
    let r = Quat::from_array(offset.rotation).normalize();
    let position = Vec3::from_array(offset.position) + r * Vec3::from_array(socket.position);
    PoseTargetData {
        target,
        position: position.to_array(),
        rotation: socket.rotation.map(|q| (r * Quat::from_array(q).normalize()).normalize().to_array()),
        weight: socket.weight.clamp(0.0, 1.0),
        space: PoseSpace::Joint(attach),
    }
}

impl IkPoseProvider for CompiledEquipment {
    fn equipment_id(&self) -> &str {
        &self.id
    }
    fn idle_pose(&self) -> PoseSnapshot {
        self.idle.clone()
    }
    fn aim_pose(&self) -> PoseSnapshot {
        self.aim.clone()
    }
    fn slot_pose(&self, slot: AnimationSlotId) -> Option<PoseSnapshot> {
        self.slots.iter().find(|(s, _)| *s == slot).map(|(_, p)| p.clone())
    }
    /// Copies the kept pose into `out`'s storage: no allocation once `out`
    /// has held two targets.
    fn write_slot_pose(&self, slot: AnimationSlotId, out: &mut PoseSnapshot) -> bool {
        let Some((_, pose)) = self.slots.iter().find(|(s, _)| *s == slot) else { return false };
        out.clone_from(pose);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use zoa_anim_core::equipment::SlotGrips;
    use zoa_anim_core::{ItemOffset, PlayerProfileType};

    fn rifle(attach: &str) -> Equipment {
        let socket = |z: f32, weight: f32| GripSocket { position: [0.0, 0.0, z], rotation: None, weight };
        Equipment {
            id: "rifle".into(),
            classes: vec![PlayerProfileType::Rifle],
            attach: attach.into(),
            offset: ItemOffset { position: [0.1, 0.0, 0.0], rotation: Quat::from_rotation_y(0.5).to_array() },
            grips: Grips { main_hand: None, off_hand: Some(socket(0.3, 1.0)) },
            aim: Some(Grips { main_hand: None, off_hand: Some(socket(0.35, 1.0)) }),
            slots: vec![SlotGrips {
                slot: AnimationSlotId::from_static("reload_magazine"),
                grips: Grips { main_hand: None, off_hand: Some(socket(0.3, 0.0)) },
            }],
        }
    }

    #[test]
    fn grips_land_in_the_attach_frame_with_the_offset_folded_in() {
        let s = zoa_test_support::skeletons::humanoid();
        let roles = BoneRoles::discover(&s);
        let c = CompiledEquipment::new(&rifle("right_hand"), &s, &roles).unwrap();
        let hand = roles.get(Role::RightHand).unwrap();
        assert_eq!(c.attach_joint(), hand);
        assert_eq!((c.main_target(), c.off_target()), (RIGHT_HAND_GRIP, LEFT_HAND_GRIP));
        let t = *c.idle().target(LEFT_HAND_GRIP).unwrap();
        let want = Vec3::new(0.1, 0.0, 0.0) + Quat::from_rotation_y(0.5) * Vec3::new(0.0, 0.0, 0.3);
        assert!(Vec3::from_array(t.position).abs_diff_eq(want, 1e-6), "{:?}", t.position);
        assert_eq!(t.space, PoseSpace::Joint(hand));
        assert_eq!(t.rotation, None);
        assert!(c.idle().target(RIGHT_HAND_GRIP).is_none(), "no main-hand socket: no target");
        assert!((c.aim_pose().target(LEFT_HAND_GRIP).unwrap().position[2] - 0.35 * 0.5f32.cos()).abs() < 1e-6);
        let reload = c.slot_pose(AnimationSlotId::from_static("reload_magazine")).unwrap();
        assert_eq!(reload.target(LEFT_HAND_GRIP).unwrap().weight, 0.0, "the reload takes the off hand away");
        assert!(c.slot_pose(AnimationSlotId::from_static("fire_auto")).is_none());
    }

    #[test]
    fn a_left_handed_item_swaps_the_hands_and_a_missing_bone_is_an_error() {
        let s = zoa_test_support::skeletons::humanoid();
        let roles = BoneRoles::discover(&s);
        let c = CompiledEquipment::new(&rifle("left_hand"), &s, &roles).unwrap();
        assert_eq!((c.main_target(), c.off_target()), (LEFT_HAND_GRIP, RIGHT_HAND_GRIP));
        assert!(c.idle().target(RIGHT_HAND_GRIP).is_some());
        let door = zoa_test_support::skeletons::from_rows("door", &[("hinge", None, [0.0; 3])]);
        let err = CompiledEquipment::new(&rifle("right_hand"), &door, &BoneRoles::discover(&door)).unwrap_err();
        assert!(err.to_string().contains("attach role `right_hand`"), "{err}");
        let err = CompiledEquipment::new(&rifle("tail"), &s, &roles).unwrap_err();
        assert!(matches!(err, IkError::AttachNotFound { .. }));
    }
}

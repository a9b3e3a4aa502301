//! Equipment: where a held item puts the hands (an `equipment` definition).
//!
//! # Terminology
//! - **attach bone**: the bone role the item is held by (`right_hand` by
//!   default); its hand is the **main hand**, the other hand the **off hand**.
//! - **item frame**: the attach bone's model-space frame followed by the
//!   item's [`Equipment::offset`]. Grip sockets are written in it, so they
//!   follow the hand that holds the item wherever the animation puts it.
//! - **grip socket**: where one hand goes, in the item frame; the hand's
//!   wrist (the hand joint's origin) is placed on the socket's position.
//!
//! ```text
//!  attach bone (model space) ─► × offset ─► item frame ─► × socket ─► hand target (model space)
//! ```
//!
//! The data is plain and validated by the loader; the IK crate compiles it
//! into an [`IkPoseProvider`](crate::contracts::IkPoseProvider) per skeleton,
//! and the runtime registers that provider when a class the item belongs to
//! is equipped.

use crate::{AnimationSlotId, PlayerProfileType};

/// Where one hand goes, in the item frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GripSocket {
    /// The wrist's position in the item frame, metres.
    pub position: [f32; 3],
    /// The hand's rotation in the item frame, quaternion `x, y, z, w`
    /// (unit); `None` keeps the hand's animated orientation.
    pub rotation: Option<[f32; 4]>,
    /// How strongly the hand reaches the socket, `0 ..= 1` (0 lets go).
    pub weight: f32,
}

/// The sockets of both hands; a hand without one is left as animated.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Grips {
    /// The hand holding the item (the attach bone's side).
    pub main_hand: Option<GripSocket>,
    /// The other hand.
    pub off_hand: Option<GripSocket>,
}

/// Grips used while one slot plays (a reload that takes the off hand away).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SlotGrips {
    /// The slot.
    pub slot: AnimationSlotId,
    /// Its grips (complete: fields the file leaves out are the idle grips').
    pub grips: Grips,
}

/// The item frame relative to the attach bone.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ItemOffset {
    /// Translation in the attach bone's frame, metres.
    pub position: [f32; 3],
    /// Rotation, quaternion `x, y, z, w` (unit).
    pub rotation: [f32; 4],
}

impl Default for ItemOffset {
    fn default() -> Self {
        ItemOffset { position: [0.0; 3], rotation: [0.0, 0.0, 0.0, 1.0] }
    }
}

/// The default attach bone role.
pub const DEFAULT_ATTACH: &str = "right_hand";

/// One held item: the weapon classes it is for, the bone that holds it and
/// where each hand grips it, at rest, aiming and per slot.
#[derive(Debug, Clone, PartialEq)]
pub struct Equipment {
    /// Unique id.
    pub id: String,
    /// The loadout classes that hold this item (each class at most one item per folder).
    pub classes: Vec<PlayerProfileType>,
    /// Bone role holding the item (one of [`crate::rig::BONE_ROLES`]); default [`DEFAULT_ATTACH`].
    pub attach: String,
    /// The item frame relative to the attach bone (default identity).
    pub offset: ItemOffset,
    /// Grips when the item is held at rest.
    pub grips: Grips,
    /// Grips while aiming (`None`: the idle grips); complete.
    pub aim: Option<Grips>,
    /// Grips while a slot plays; complete.
    pub slots: Vec<SlotGrips>,
}

impl Equipment {
    /// Whether the main hand is the left one (the attach role is on the
    /// left side); roles on neither side (spine, head) hold with the right.
    #[must_use]
    pub fn main_hand_is_left(&self) -> bool {
        self.attach.starts_with("left_")
    }

    /// Whether the item is for `class`.
    #[must_use]
    pub fn is_for(&self, class: PlayerProfileType) -> bool {
        self.classes.contains(&class)
    }

    /// The grips while aiming.
    #[must_use]
    pub fn aim_grips(&self) -> &Grips {
        self.aim.as_ref().unwrap_or(&self.grips)
    }

    /// The grips while `slot` plays, if the item has its own for it.
    #[must_use]
    pub fn slot_grips(&self, slot: AnimationSlotId) -> Option<&Grips> {
        self.slots.iter().find(|s| s.slot == slot).map(|s| &s.grips)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(attach: &str) -> Equipment {
        Equipment {
            id: "rifle".into(),
            classes: vec![PlayerProfileType::Rifle],
            attach: attach.into(),
            offset: ItemOffset::default(),
            grips: Grips {
                main_hand: None,
                off_hand: Some(GripSocket { position: [0.0, 0.0, 0.3], rotation: None, weight: 1.0 }),
            },
            aim: None,
            slots: vec![SlotGrips { slot: AnimationSlotId::from_static("reload_magazine"), grips: Grips::default() }],
        }
    }

    #[test]
    fn sides_and_lookups() {
        assert!(!item(DEFAULT_ATTACH).main_hand_is_left());
        assert!(item("left_hand").main_hand_is_left());
        assert!(!item("spine").main_hand_is_left(), "central roles hold with the right hand");
        let e = item(DEFAULT_ATTACH);
        assert_eq!(e.aim_grips(), &e.grips, "no aim grips: the idle ones");
        assert!(e.slot_grips(AnimationSlotId::from_static("reload_magazine")).is_some());
        assert!(e.slot_grips(AnimationSlotId::from_static("fire_auto")).is_none());
        assert!(e.is_for(PlayerProfileType::Rifle) && !e.is_for(PlayerProfileType::Pistol));
    }
}

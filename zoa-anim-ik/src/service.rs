//! The IK pose service: resolves the current
//! [`PoseSnapshot`] from whatever is equipped.
//!
//! # Terminology
//! - **provider**: one piece of equipment's [`IkPoseProvider`]; registered
//!   on equip, unregistered on unequip, keyed by equipment id. The most
//!   recently registered provider drives the pose (the item in hand);
//!   unregistering it hands over to the previous one.
//! - **aim weight**: 0 (idle pose) ..= 1 (aim pose), moved towards the
//!   requested state at a constant rate so aiming never pops.
//! - **slot weight**: 0 ..= 1 towards the active slot's own pose, if the
//!   provider has one for that slot.
//! - **stance modifier**: a [`PoseSnapshot`] from the [`StanceProvider`] whose
//!   targets are *offsets*: each shifts (position added, rotation applied
//!   first) the same-id target of the blended pose, scaled by the modifier's
//!   and the target's weight, in that target's own space (a grip in the
//!   frame of the hand holding the item moves in that frame). A crouch
//!   stance can lower a model-space grip by 10 cm without knowing the weapon.
//!
//! ```text
//!  idle ─┐
//!        ├─ blend(aim weight) ─┐
//!  aim ──┘                     ├─ blend(slot weight) ─► + stance offsets ─► blend from the
//!  slot pose ──────────────────┘                                           previous item ─► current
//! ```
//!
//! - **switch time**: how long the hand-over from one item to the next (or
//!   to nothing) takes; by default the blend time, and a character sets it
//!   to its loadout cross-fade, so the grips blend in over the equip
//!   cross-fade and out on holster.
//!
//! Providers are asked for poses only on events (equip, slot start), never in
//! [`EquipmentPoseService::tick`]; after the first ticks (which size the
//! snapshots' storage) a tick allocates nothing.

use zoa_anim_core::contracts::{IkPoseProvider, IkPoseService, PoseSnapshot, StanceProvider};
use zoa_anim_core::glam::{Quat, Vec3};
use zoa_anim_core::{AnimationSlotId, StanceId};

type Provider = Box<dyn IkPoseProvider + Send + Sync>;

struct Equipped {
    provider: Provider,
    idle: PoseSnapshot,
    aim: PoseSnapshot,
}

/// The shipped [`IkPoseService`].
pub struct EquipmentPoseService {
    equipped: Vec<Equipped>,
    aiming: bool,
    aim_weight: f32,
    slot: Option<AnimationSlotId>,
    slot_pose: PoseSnapshot,
    slot_weight: f32,
    stance_provider: Option<Box<dyn StanceProvider + Send + Sync>>,
    stance: Option<StanceId>,
    stance_from: PoseSnapshot,
    stance_to: PoseSnapshot,
    stance_t: f32,
    stance_mix: PoseSnapshot,
    switch_from: PoseSnapshot,
    switch_t: f32,
    blend_time: f32,
    switch_time: f32,
    scratch: PoseSnapshot,
    scratch2: PoseSnapshot,
    current: PoseSnapshot,
}

impl std::fmt::Debug for EquipmentPoseService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let ids: Vec<&str> = self.equipped.iter().map(|e| e.provider.equipment_id()).collect();
        f.debug_struct("EquipmentPoseService")
            .field("equipped", &ids)
            .field("aiming", &self.aiming)
            .field("aim_weight", &self.aim_weight)
            .field("slot", &self.slot)
            .field("slot_weight", &self.slot_weight)
            .field("stance", &self.stance)
            .field("current", &self.current)
            .finish_non_exhaustive()
    }
}

impl Default for EquipmentPoseService {
    fn default() -> Self {
        EquipmentPoseService::new(0.15)
    }
}

/// A duration: `>= 0`, not finite counts as 0.
fn duration(t: f32) -> f32 {
    if t.is_finite() { t.max(0.0) } else { 0.0 }
}

fn approach(value: f32, target: f32, step: f32) -> f32 {
    if value < target { (value + step).min(target) } else { (value - step).max(target) }
}

impl EquipmentPoseService {
    /// A service whose blends (aim, slot, stance, item switch) take
    /// `blend_time` seconds from one end to the other (`>= 0`; 0 = instant;
    /// default 0.15).
    #[must_use]
    pub fn new(blend_time: f32) -> EquipmentPoseService {
        EquipmentPoseService {
            equipped: Vec::new(),
            aiming: false,
            aim_weight: 0.0,
            slot: None,
            slot_pose: PoseSnapshot::default(),
            slot_weight: 0.0,
            stance_provider: None,
            stance: None,
            stance_from: PoseSnapshot { targets: Vec::new(), weight: 0.0 },
            stance_to: PoseSnapshot { targets: Vec::new(), weight: 0.0 },
            stance_t: 1.0,
            stance_mix: PoseSnapshot::default(),
            switch_from: PoseSnapshot::default(),
            switch_t: 1.0,
            blend_time: duration(blend_time),
            switch_time: duration(blend_time),
            scratch: PoseSnapshot::default(),
            scratch2: PoseSnapshot::default(),
            current: PoseSnapshot::default(),
        }
    }

    /// Sets how long handing over from one item to the next (or to none)
    /// takes, seconds (`>= 0`; 0 = instant; not finite counts as 0).
    pub fn set_switch_time(&mut self, seconds: f32) {
        self.switch_time = duration(seconds);
    }

    /// Ends any hand-over at once: the pose jumps to the item in hand on the
    /// next tick (an item equipped at spawn is already held).
    pub fn finish_switch(&mut self) {
        self.switch_t = 1.0;
    }

    /// Progress of the hand-over between items, `0 ..= 1` (1 when none runs).
    #[must_use]
    pub fn switch_progress(&self) -> f32 {
        self.switch_t
    }

    /// The slot the service has been told is playing.
    #[must_use]
    pub fn active_slot(&self) -> Option<AnimationSlotId> {
        self.slot
    }

    /// Equipment ids of the registered providers, oldest first.
    pub fn equipment_ids(&self) -> impl Iterator<Item = &str> {
        self.equipped.iter().map(|e| e.provider.equipment_id())
    }

    /// Current aim weight, 0 ..= 1.
    #[must_use]
    pub fn aim_weight(&self) -> f32 {
        self.aim_weight
    }

    /// Current slot-pose weight, 0 ..= 1.
    #[must_use]
    pub fn slot_weight(&self) -> f32 {
        self.slot_weight
    }

    /// Sets the stance provider (the character or loadout) and enters its default stance.
    pub fn set_stance_provider(&mut self, provider: Box<dyn StanceProvider + Send + Sync>) {
        let default = provider.default_stance();
        self.stance_provider = Some(provider);
        self.stance = None;
        self.set_stance(default);
    }

    /// Enters `stance` if the provider allows it now; returns whether it did.
    /// The modifier blends in over the blend time.
    pub fn set_stance(&mut self, stance: StanceId) -> bool {
        let Some(p) = &self.stance_provider else { return false };
        if self.stance == Some(stance) {
            return true;
        }
        if !p.available_stances().contains(&stance) || !p.can_enter_stance(stance) {
            return false;
        }
        let modifier = p.stance_pose_modifier(stance);
        PoseSnapshot::blend_into(&self.stance_from, &self.stance_to, self.stance_t, &mut self.stance_mix);
        std::mem::swap(&mut self.stance_from, &mut self.stance_mix);
        self.stance_to = modifier;
        self.stance_t = if self.blend_time > 0.0 { 0.0 } else { 1.0 };
        self.stance = Some(stance);
        true
    }

    /// The stance in effect.
    #[must_use]
    pub fn stance(&self) -> Option<StanceId> {
        self.stance
    }

    /// Sizes every snapshot for providers of `n` targets (blends hold the
    /// union of two sides), so a slot or a blend starting later need not
    /// allocate (see `IkPoseProvider::write_slot_pose`).
    fn reserve(&mut self, n: usize) {
        self.slot_pose.targets.reserve(n);
        for s in [&mut self.scratch, &mut self.scratch2, &mut self.current, &mut self.switch_from] {
            s.targets.reserve(2 * n);
        }
    }

    fn begin_switch(&mut self) {
        self.switch_from.clone_from(&self.current);
        self.switch_t = if self.switch_time > 0.0 { 0.0 } else { 1.0 };
    }

    /// Advances the blends by `dt` seconds and recomputes the current pose.
    /// Allocates nothing once the snapshots have grown to their working size.
    pub fn tick(&mut self, dt: f32) {
        let dt = if dt.is_finite() { dt.max(0.0) } else { 0.0 };
        let step = if self.blend_time > 0.0 { dt / self.blend_time } else { 1.0 };
        self.aim_weight = approach(self.aim_weight, if self.aiming { 1.0 } else { 0.0 }, step);
        let slot_target = if self.slot.is_some() && !self.slot_pose.targets.is_empty() { 1.0 } else { 0.0 };
        self.slot_weight = approach(self.slot_weight, slot_target, step);
        self.stance_t = approach(self.stance_t, 1.0, step);
        let switch_step = if self.switch_time > 0.0 { dt / self.switch_time } else { 1.0 };
        self.switch_t = approach(self.switch_t, 1.0, switch_step);

        match self.equipped.last() {
            Some(e) => PoseSnapshot::blend_into(&e.idle, &e.aim, self.aim_weight, &mut self.scratch),
            None => {
                self.scratch.targets.clear();
                self.scratch.weight = 1.0;
            }
        }
        if self.slot_weight > 0.0 {
            PoseSnapshot::blend_into(&self.scratch, &self.slot_pose, self.slot_weight, &mut self.scratch2);
            std::mem::swap(&mut self.scratch, &mut self.scratch2);
        }
        if self.stance.is_some() {
            PoseSnapshot::blend_into(&self.stance_from, &self.stance_to, self.stance_t, &mut self.stance_mix);
            for m in &self.stance_mix.targets {
                let k = (m.weight * self.stance_mix.weight).clamp(0.0, 1.0);
                if let Some(t) = self.scratch.targets.iter_mut().find(|t| t.target == m.target) {
                    let p = Vec3::from_array(t.position) + Vec3::from_array(m.position) * k;
                    t.position = p.to_array();
                    // A target without a rotation keeps the animated orientation: nothing to turn.
                    if let (Some(mr), Some(tr)) = (m.rotation, t.rotation) {
                        let r = Quat::IDENTITY.slerp(Quat::from_array(mr).normalize(), k)
                            * Quat::from_array(tr).normalize();
                        t.rotation = Some(r.normalize().to_array());
                    }
                }
            }
        }
        if self.switch_t < 1.0 {
            PoseSnapshot::blend_into(&self.switch_from, &self.scratch, self.switch_t, &mut self.current);
        } else {
            std::mem::swap(&mut self.current, &mut self.scratch);
        }
    }
}

impl IkPoseService for EquipmentPoseService {
    fn current_pose(&self) -> &PoseSnapshot {
        &self.current
    }

    fn register_provider(&mut self, provider: Box<dyn IkPoseProvider + Send + Sync>) {
        self.begin_switch();
        self.equipped.retain(|e| e.provider.equipment_id() != provider.equipment_id());
        let (idle, aim) = (provider.idle_pose(), provider.aim_pose());
        self.reserve(idle.targets.len().max(aim.targets.len()));
        self.equipped.push(Equipped { provider, idle, aim });
        if let Some(slot) = self.slot {
            self.set_active_slot(slot);
        }
    }

    fn unregister_provider(&mut self, equipment_id: &str) {
        let before = self.equipped.len();
        self.equipped.retain(|e| e.provider.equipment_id() != equipment_id);
        if self.equipped.len() != before {
            self.begin_switch();
            if let Some(slot) = self.slot {
                self.set_active_slot(slot);
            }
        }
    }

    fn set_aiming(&mut self, aiming: bool) {
        self.aiming = aiming;
    }

    fn set_active_slot(&mut self, slot: AnimationSlotId) {
        self.slot = Some(slot);
        let written = self.equipped.last().is_some_and(|e| e.provider.write_slot_pose(slot, &mut self.slot_pose));
        if !written {
            self.slot_pose.targets.clear();
        }
    }

    fn clear_active_slot(&mut self) {
        // Keep the slot pose so it fades out instead of popping.
        self.slot = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use zoa_anim_core::IKTargetId;
    use zoa_anim_core::contracts::{PoseSpace, PoseTargetData};

    const GRIP: IKTargetId = IKTargetId::from_static("left_hand_grip");

    fn snap(x: f32) -> PoseSnapshot {
        PoseSnapshot {
            targets: vec![PoseTargetData {
                target: GRIP,
                position: [x, 0.0, 0.0],
                rotation: None,
                weight: 1.0,
                space: PoseSpace::Model,
            }],
            weight: 1.0,
        }
    }

    struct Rifle;
    impl IkPoseProvider for Rifle {
        fn equipment_id(&self) -> &str {
            "rifle"
        }
        fn idle_pose(&self) -> PoseSnapshot {
            snap(0.0)
        }
        fn aim_pose(&self) -> PoseSnapshot {
            snap(1.0)
        }
        fn slot_pose(&self, slot: AnimationSlotId) -> Option<PoseSnapshot> {
            (slot == AnimationSlotId::from_static("reload_magazine")).then(|| snap(5.0))
        }
    }

    struct Stances;
    const STAND: StanceId = StanceId::from_static("stand");
    const CROUCH: StanceId = StanceId::from_static("crouch");
    impl StanceProvider for Stances {
        fn available_stances(&self) -> &[StanceId] {
            &[STAND, CROUCH]
        }
        fn default_stance(&self) -> StanceId {
            STAND
        }
        fn can_enter_stance(&self, _stance: StanceId) -> bool {
            true
        }
        fn stance_entry_slot(&self, _stance: StanceId) -> Option<AnimationSlotId> {
            None
        }
        fn stance_pose_modifier(&self, stance: StanceId) -> PoseSnapshot {
            if stance == CROUCH {
                PoseSnapshot {
                    targets: vec![PoseTargetData {
                        target: GRIP,
                        position: [0.0, -0.1, 0.0],
                        rotation: None,
                        weight: 1.0,
                        space: PoseSpace::Model,
                    }],
                    weight: 1.0,
                }
            } else {
                PoseSnapshot { targets: Vec::new(), weight: 1.0 }
            }
        }
    }

    fn grip_x(s: &EquipmentPoseService) -> f32 {
        s.current_pose().target(GRIP).unwrap().position[0]
    }

    #[test]
    fn aim_blends_smoothly_and_slots_override() {
        let mut s = EquipmentPoseService::new(0.2);
        s.register_provider(Box::new(Rifle));
        s.tick(1.0);
        assert_eq!(grip_x(&s), 0.0);
        s.set_aiming(true);
        s.tick(0.1);
        assert!((grip_x(&s) - 0.5).abs() < 1e-6, "half way after half the blend time");
        s.tick(0.1);
        assert!((grip_x(&s) - 1.0).abs() < 1e-6);
        s.set_active_slot(AnimationSlotId::from_static("reload_magazine"));
        s.tick(1.0);
        assert!((grip_x(&s) - 5.0).abs() < 1e-6);
        s.clear_active_slot();
        s.tick(0.1);
        assert!((grip_x(&s) - 3.0).abs() < 1e-5, "slot pose fades out");
        s.unregister_provider("rifle");
        s.tick(1.0);
        assert!(s.current_pose().targets.is_empty());
    }

    struct Pistol;
    impl IkPoseProvider for Pistol {
        fn equipment_id(&self) -> &str {
            "pistol"
        }
        fn idle_pose(&self) -> PoseSnapshot {
            snap(-2.0)
        }
        fn aim_pose(&self) -> PoseSnapshot {
            snap(-2.0)
        }
        fn slot_pose(&self, _slot: AnimationSlotId) -> Option<PoseSnapshot> {
            None
        }
    }

    #[test]
    fn switching_items_blends_and_unequip_hands_back() {
        let mut s = EquipmentPoseService::new(0.2);
        s.register_provider(Box::new(Rifle));
        s.tick(1.0);
        s.register_provider(Box::new(Pistol));
        s.tick(0.1);
        assert!((grip_x(&s) + 1.0).abs() < 1e-5, "half way from the rifle to the pistol");
        s.tick(0.1);
        assert!((grip_x(&s) + 2.0).abs() < 1e-5);
        s.register_provider(Box::new(Rifle));
        assert_eq!(s.equipment_ids().collect::<Vec<_>>(), ["pistol", "rifle"], "same id replaces, newest last");
        s.tick(1.0);
        assert_eq!(grip_x(&s), 0.0);
        s.unregister_provider("rifle");
        s.tick(1.0);
        assert_eq!(grip_x(&s), -2.0, "the previous item takes over");
        s.unregister_provider("nothing");
        s.tick(1.0);
        assert_eq!(grip_x(&s), -2.0);
    }

    #[test]
    fn stance_modifier_offsets_targets() {
        let mut s = EquipmentPoseService::new(0.0);
        s.register_provider(Box::new(Rifle));
        s.set_stance_provider(Box::new(Stances));
        assert!(s.set_stance(CROUCH));
        s.tick(0.016);
        let t = s.current_pose().target(GRIP).unwrap();
        assert!((t.position[1] + 0.1).abs() < 1e-6);
        assert!(!s.set_stance(StanceId::from_static("prone")), "unknown stance refused");
        assert_eq!(s.stance(), Some(CROUCH));
    }
}

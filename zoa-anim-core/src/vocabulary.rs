//! The shipped vocabulary: binding ids, slot ids and sound event ids.
//!
//! A profile authored against these ids transfers to another rig by editing
//! only parameter names; invented ids do not. Every id is snake_case
//! (sound events are dotted lowercase categories).

use crate::{AnimationBindingId, AnimationParameterType, AnimationSlotId, SoundEventId};

/// The shipped binding vocabulary, with the parameter type each id is meant for.
#[derive(Debug, Clone, Copy)]
pub struct DefaultBindings;

macro_rules! binding_consts {
    ($( $(#[$doc:meta])* $name:ident = $text:literal : $ty:ident ),* $(,)?) => {
        impl DefaultBindings {
            $( $(#[$doc])* pub const $name: AnimationBindingId = AnimationBindingId::from_static($text); )*
            /// Every shipped binding with its intended parameter type, in documentation order.
            pub const ALL: &'static [(AnimationBindingId, AnimationParameterType)] = &[
                $( (Self::$name, AnimationParameterType::$ty), )*
            ];
        }
    };
}

binding_consts! {
    /// Trigger: the weapon fires one shot (or a burst starts).
    FIRE = "fire": Trigger,
    /// Trigger: a reload starts.
    RELOAD = "reload": Trigger,
    /// Trigger: a weapon or item is drawn.
    EQUIP = "equip": Trigger,
    /// Trigger: the held weapon is put away.
    HOLSTER = "holster": Trigger,
    /// Trigger: the entity jumps.
    JUMP = "jump": Trigger,
    /// Trigger: the entity lands after being airborne.
    LAND = "land": Trigger,
    /// Trigger: a dodge or roll starts.
    DODGE = "dodge": Trigger,
    /// Trigger: the entity is hit.
    HIT = "hit": Trigger,
    /// Trigger: a melee attack starts.
    MELEE = "melee": Trigger,
    /// Trigger: a grenade or item is thrown.
    THROW = "throw": Trigger,
    /// Trigger: the entity interacts with the world (use, open, pick up).
    INTERACT = "interact": Trigger,
    /// Trigger: the entity dies.
    DIE = "die": Trigger,
    /// Bool: feet are on the ground.
    IS_GROUNDED = "is_grounded": Bool,
    /// Bool: aiming down sights.
    IS_AIMING = "is_aiming": Bool,
    /// Bool: a reload is in progress.
    IS_RELOADING = "is_reloading": Bool,
    /// Bool: crouched.
    IS_CROUCHING = "is_crouching": Bool,
    /// Bool: the first-person arms rig is in use.
    IS_FIRST_PERSON = "is_first_person": Bool,
    /// Bool: sprinting.
    IS_SPRINTING = "is_sprinting": Bool,
    /// Bool: dead.
    IS_DEAD = "is_dead": Bool,
    /// Float: planar speed in metres per second (>= 0).
    SPEED = "speed": Float,
    /// Float: local strafe input, -1 (left) ..= 1 (right).
    MOVE_X = "move_x": Float,
    /// Float: local forward input, -1 (back) ..= 1 (forward).
    MOVE_Y = "move_y": Float,
    /// Float: body lean, -1 (left) ..= 1 (right).
    LEAN = "lean": Float,
    /// Float: aim blend weight, 0 ..= 1.
    AIM_WEIGHT = "aim_weight": Float,
    /// Float: ground slope under the feet in degrees, negative downhill.
    GROUND_SLOPE = "ground_slope": Float,
    /// Float: turn rate in degrees per second, negative to the left.
    TURN_RATE = "turn_rate": Float,
    /// Float: vertical speed in metres per second, negative falling.
    VERTICAL_SPEED = "vertical_speed": Float,
    /// Int: posture index (0 standing, 1 crouching, 2 prone).
    POSTURE = "posture": Int,
    /// Int: equipped weapon class index (see `PlayerProfileType`).
    WEAPON_CLASS = "weapon_class": Int,
}

/// The shipped slot vocabulary: weapon handling, stance and locomotion.
#[derive(Debug, Clone, Copy)]
pub struct DefaultSlots;

macro_rules! slot_consts {
    ($( $(#[$doc:meta])* $name:ident = $text:literal ),* $(,)?) => {
        impl DefaultSlots {
            $( $(#[$doc])* pub const $name: AnimationSlotId = AnimationSlotId::from_static($text); )*
            /// Every shipped slot, in documentation order.
            pub const ALL: &'static [AnimationSlotId] = &[ $( Self::$name, )* ];
        }
    };
}

slot_consts! {
    /// Draw a two-handed weapon (rifle, shotgun).
    EQUIP_TWO_HAND = "equip_two_hand",
    /// Draw a one-handed weapon (pistol, knife).
    EQUIP_ONE_HAND = "equip_one_hand",
    /// Put away a two-handed weapon.
    HOLSTER_TWO_HAND = "holster_two_hand",
    /// Put away a one-handed weapon.
    HOLSTER_ONE_HAND = "holster_one_hand",
    /// Inspect the held weapon.
    INSPECT = "inspect",
    /// Reload by swapping a magazine.
    RELOAD_MAGAZINE = "reload_magazine",
    /// Reload by feeding shells one at a time.
    RELOAD_SHELL = "reload_shell",
    /// Reload by working a bolt.
    RELOAD_BOLT = "reload_bolt",
    /// Fire a single shot (recoil, often additive).
    FIRE_SINGLE = "fire_single",
    /// Fire a burst.
    FIRE_BURST = "fire_burst",
    /// Fire full-auto (looping).
    FIRE_AUTO = "fire_auto",
    /// Melee strike with the held item.
    MELEE_ATTACK = "melee_attack",
    /// Throw a grenade or item.
    THROW = "throw",
    /// Stance: standing.
    STANCE_STAND = "stance_stand",
    /// Stance: crouched.
    STANCE_CROUCH = "stance_crouch",
    /// Stance: prone.
    STANCE_PRONE = "stance_prone",
    /// Stance: in cover.
    STANCE_COVER = "stance_cover",
    /// Locomotion: idle loop.
    LOCOMOTION_IDLE = "locomotion_idle",
    /// Locomotion: walk cycle.
    LOCOMOTION_WALK = "locomotion_walk",
    /// Locomotion: run cycle.
    LOCOMOTION_RUN = "locomotion_run",
    /// Locomotion: sprint cycle.
    LOCOMOTION_SPRINT = "locomotion_sprint",
    /// Locomotion: crouched idle.
    LOCOMOTION_CROUCH_IDLE = "locomotion_crouch_idle",
    /// Locomotion: crouched walk.
    LOCOMOTION_CROUCH_WALK = "locomotion_crouch_walk",
    /// Locomotion: jump take-off.
    LOCOMOTION_JUMP = "locomotion_jump",
    /// Locomotion: falling loop.
    LOCOMOTION_FALL = "locomotion_fall",
    /// Locomotion: landing.
    LOCOMOTION_LAND = "locomotion_land",
    /// Reaction: hit react.
    HIT_REACT = "hit_react",
    /// Reaction: death.
    DEATH = "death",
}

/// Canonical sound event ids (dotted lowercase categories).
#[derive(Debug, Clone, Copy)]
pub struct DefaultSoundEvents;

macro_rules! sound_consts {
    ($( $(#[$doc:meta])* $name:ident = $text:literal ),* $(,)?) => {
        impl DefaultSoundEvents {
            $( $(#[$doc])* pub const $name: SoundEventId = SoundEventId::from_static($text); )*
            /// Every canonical sound event.
            pub const ALL: &'static [SoundEventId] = &[ $( Self::$name, )* ];
        }
    };
}

sound_consts! {
    /// A foot touches the ground.
    FOOTSTEP = "footstep",
    /// Landing after a fall.
    LAND = "land",
    /// Jump take-off.
    JUMP = "jump",
    /// Cloth rustle on movement.
    FOLEY_CLOTH = "foley.cloth",
    /// Pain vocal.
    VOCAL_HURT = "vocal.hurt",
    /// Death vocal.
    VOCAL_DEATH = "vocal.death",
    /// Effort vocal (jump, climb, throw).
    VOCAL_EFFORT = "vocal.effort",
    /// Breathing loop.
    VOCAL_BREATH = "vocal.breath",
    /// A weapon fires.
    WEAPON_FIRE = "weapon.fire",
    /// Trigger pulled on an empty weapon.
    WEAPON_FIRE_DRYCLICK = "weapon.fire.dryclick",
    /// A reload starts.
    WEAPON_RELOAD = "weapon.reload",
    /// Magazine out.
    WEAPON_RELOAD_MAG_OUT = "weapon.reload.mag_out",
    /// Magazine in.
    WEAPON_RELOAD_MAG_IN = "weapon.reload.mag_in",
    /// Weapon drawn.
    WEAPON_EQUIP = "weapon.equip",
    /// Weapon put away.
    WEAPON_HOLSTER = "weapon.holster",
    /// Melee swing.
    WEAPON_MELEE_SWING = "weapon.melee.swing",
    /// Melee impact.
    WEAPON_MELEE_IMPACT = "weapon.melee.impact",
    /// A hit lands on the body.
    IMPACT_BODY = "impact.body",
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    /// The ids every profile may rely on (gameplay and the fixtures use them) are all shipped, once each.
    #[test]
    fn vocabulary_is_unique_and_covers_the_ids_profiles_rely_on() {
        let ids: HashSet<_> = DefaultBindings::ALL.iter().map(|(id, _)| id.as_str()).collect();
        assert_eq!(ids.len(), DefaultBindings::ALL.len());
        for required in [
            "fire",
            "reload",
            "equip",
            "holster",
            "jump",
            "land",
            "dodge",
            "hit",
            "is_grounded",
            "is_aiming",
            "is_reloading",
            "is_crouching",
            "is_first_person",
            "speed",
            "move_x",
            "move_y",
            "lean",
            "aim_weight",
            "ground_slope",
            "posture",
        ] {
            assert!(ids.contains(required), "{required}");
        }
        let slots: HashSet<_> = DefaultSlots::ALL.iter().map(|s| s.as_str()).collect();
        assert_eq!(slots.len(), DefaultSlots::ALL.len());
        for required_slot in [
            "equip_two_hand",
            "reload_magazine",
            "reload_shell",
            "reload_bolt",
            "fire_single",
            "fire_burst",
            "fire_auto",
        ] {
            assert!(slots.contains(required_slot), "{required_slot}");
        }
        assert_eq!(DefaultSlots::ALL.iter().filter(|s| s.as_str().starts_with("stance_")).count(), 4);
        let sounds: HashSet<_> = DefaultSoundEvents::ALL.iter().map(|s| s.as_str()).collect();
        assert_eq!(sounds.len(), DefaultSoundEvents::ALL.len());
        assert_eq!(
            DefaultBindings::ALL.iter().find(|(id, _)| *id == DefaultBindings::POSTURE).unwrap().1,
            AnimationParameterType::Int
        );
    }
}

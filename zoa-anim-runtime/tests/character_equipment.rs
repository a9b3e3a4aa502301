//! Held items (the fixture's `equipment` definitions): equipping a class
//! puts the left hand on its item's grip through the rig IK, the grip's
//! weight ramping over the loadout cross-fade; aiming and slots switch to
//! the item's own grips; holstering hands the hand back to the animation.

mod character_common;

use std::sync::Arc;

use character_common::{definition, fixture_bundle, run};
use zoa_anim_core::contracts::{PoseSnapshot, PoseSpace};
use zoa_anim_core::glam::{Mat4, Quat, Vec3};
use zoa_anim_core::{DefaultBindings, DefaultSlots, PlayerProfileType, StateTagSet};
use zoa_anim_ik::{LEFT_HAND_GRIP, Role};
use zoa_anim_runtime::{Character, CharacterDefinition};

const DT: f32 = 1.0 / 60.0;

fn left_hand(def: &CharacterDefinition) -> usize {
    usize::from(def.roles().get(Role::LeftHand).unwrap())
}

/// The left grip's weight in effect in the last frame's IK (0 without one).
fn grip_weight(c: &Character) -> f32 {
    c.weapon_pose().and_then(|p| p.target(LEFT_HAND_GRIP).map(|t| t.weight * p.weight)).unwrap_or(0.0)
}

/// The left grip in model space, placed from the attach joint's transform
/// in the last frame (hand on weapon moves only the left arm here, so the
/// attach joint is where the rig read it).
fn grip(c: &Character) -> Vec3 {
    let t = c.weapon_pose().and_then(|p| p.target(LEFT_HAND_GRIP)).expect("a left grip");
    let PoseSpace::Joint(j) = t.space else { panic!("an item's grip is in its attach joint's frame") };
    let (_, r, p): (Vec3, Quat, Vec3) = c.model_matrices()[usize::from(j)].to_scale_rotation_translation();
    p + r * Vec3::from_array(t.position)
}

fn wrist(c: &Character) -> Vec3 {
    let m: Mat4 = c.model_matrices()[left_hand(c.definition())];
    m.w_axis.truncate()
}

#[test]
fn equipping_the_rifle_ramps_its_grip_in_over_the_cross_fade_and_holstering_hands_back() {
    let def = definition(&fixture_bundle());
    assert_eq!(def.settings().loadout_crossfade, 0.25);
    let rifle = def.equipment_for(PlayerProfileType::Rifle).expect("the fixture's rifle has an item");
    assert_eq!(rifle.attach_joint(), def.roles().get(Role::RightHand).unwrap());
    let mut c = Character::spawn(&def, Some(PlayerProfileType::Unarmed), StateTagSet::EMPTY).unwrap();
    // The twin never holds anything: the game's empty weapon pose replaces the items.
    let mut twin = Character::spawn(&def, Some(PlayerProfileType::Unarmed), StateTagSet::EMPTY).unwrap();
    twin.set_weapon_pose(Some(PoseSnapshot::default()));
    run(&mut c, 0.5);
    run(&mut twin, 0.5);
    assert!(c.held_item().is_none());
    assert_eq!(grip_weight(&c), 0.0, "empty hands");

    c.equip(PlayerProfileType::Rifle);
    twin.equip(PlayerProfileType::Rifle);
    assert_eq!(c.held_item().map(|i| i.attach_joint()), Some(rifle.attach_joint()));
    let mut weights = Vec::new();
    for _ in 0..15 {
        c.update(DT).unwrap();
        twin.update(DT).unwrap();
        weights.push(grip_weight(&c));
    }
    for (k, w) in weights.iter().enumerate() {
        let alpha = (k + 1) as f32 * DT / 0.25;
        assert!((w - alpha.min(1.0)).abs() < 1e-4, "frame {k}: grip weight {w}, cross-fade at {alpha}");
    }
    assert_eq!(weights[14], 1.0, "fully in when the cross-fade ends");

    run(&mut c, 1.0);
    run(&mut twin, 1.0);
    let on = (wrist(&c) - grip(&c)).length();
    let off = (wrist(&twin) - grip(&c)).length();
    assert!(on < 2e-3, "the left wrist is on the grip: {on} m");
    assert!(off > 0.1, "the animation alone leaves it {off} m away");

    c.unequip();
    twin.unequip();
    let mut weights = Vec::new();
    for _ in 0..15 {
        c.update(DT).unwrap();
        twin.update(DT).unwrap();
        weights.push(grip_weight(&c));
    }
    assert!(weights.windows(2).all(|w| w[1] < w[0]) && weights[0] > 0.9, "the grip fades out: {weights:?}");
    assert_eq!(weights[14], 0.0);
    run(&mut c, 0.25);
    run(&mut twin, 0.25);
    assert!(c.held_item().is_none());
    assert_eq!(c.local_pose(), twin.local_pose(), "back to the animated pose, bit for bit");
    assert_eq!(c.model_matrices(), twin.model_matrices());
}

#[test]
fn aiming_and_slots_take_the_items_own_grips() {
    let bundle = fixture_bundle();
    let def = definition(&bundle);
    let item = bundle.equipment.iter().find(|e| e.id == "rifle").unwrap();
    let (idle, aim) = (item.grips.off_hand.unwrap(), item.aim.unwrap().off_hand.unwrap());
    let mut c = Character::spawn(&def, Some(PlayerProfileType::Rifle), StateTagSet::EMPTY).unwrap();
    assert_eq!(grip_weight(&c), 1.0, "spawned holding the rifle: no hand-over");
    let position = |c: &Character| c.weapon_pose().unwrap().target(LEFT_HAND_GRIP).unwrap().position;
    assert_eq!(position(&c), idle.position);
    c.set_bool(DefaultBindings::IS_AIMING, true);
    run(&mut c, 0.5);
    assert_eq!(position(&c), aim.position, "the aim grip");
    assert!(c.weapon_pose().unwrap().target(LEFT_HAND_GRIP).unwrap().rotation.is_some());
    assert!(c.play_slot(DefaultSlots::RELOAD_MAGAZINE));
    run(&mut c, 0.5);
    assert_eq!(grip_weight(&c), 0.0, "the reload lets the left hand go");
    c.stop_slot(0.0);
    run(&mut c, 0.5);
    assert_eq!(grip_weight(&c), 1.0, "back on the rifle after the reload");
    // A slot that ends on its own releases its grips too.
    assert!(c.play_slot(DefaultSlots::RELOAD_MAGAZINE));
    run(&mut c, 0.3);
    assert!(grip_weight(&c) < 0.5);
    run(&mut c, 5.0);
    assert!(c.slot().is_none(), "the reload ended");
    assert_eq!(grip_weight(&c), 1.0);
}

#[test]
fn the_games_own_weapon_pose_wins_until_cleared() {
    let def = definition(&fixture_bundle());
    let mut c = Character::spawn(&def, Some(PlayerProfileType::Rifle), StateTagSet::EMPTY).unwrap();
    c.set_weapon_pose(Some(PoseSnapshot::default()));
    run(&mut c, 0.2);
    assert_eq!(grip_weight(&c), 0.0, "the game's empty pose");
    c.set_weapon_pose(None);
    run(&mut c, 0.2);
    assert_eq!(grip_weight(&c), 1.0, "the rifle's grips again");
}

#[test]
fn the_pistol_places_the_hand_elsewhere_and_a_class_without_an_item_holds_nothing() {
    let def: Arc<CharacterDefinition> = definition(&fixture_bundle());
    let rifle = def.equipment_for(PlayerProfileType::Rifle).unwrap().idle().target(LEFT_HAND_GRIP).copied();
    let pistol = def.equipment_for(PlayerProfileType::Pistol).unwrap().idle().target(LEFT_HAND_GRIP).copied();
    assert_ne!(rifle.unwrap().position, pistol.unwrap().position, "different weapons, different grips");
    assert!(def.equipment_for(PlayerProfileType::Shotgun).is_none());
    assert!(def.equipment_skipped().is_empty());
    let mut c = Character::spawn(&def, Some(PlayerProfileType::Rifle), StateTagSet::EMPTY).unwrap();
    c.equip(PlayerProfileType::Pistol);
    run(&mut c, 0.5);
    assert_eq!(c.weapon_pose().unwrap().target(LEFT_HAND_GRIP).unwrap().position, pistol.unwrap().position);
    assert!((grip_weight(&c) - 0.9).abs() < 1e-6, "the pistol's grip weight");
}

//! Cross-modal coverage for `zoa-anim validate --coverage`: per semantic
//! event and slot, whether every weapon class of a player profile set has
//! animation for it (a clip row, a slot clip) and a sound profile has an
//! entry for the sound it makes.
//!
//! # What is checked
//!
//! - **Events** are the shipped trigger bindings that mean something both an
//!   animation and a sound answer ([`EVENTS`]: `fire`, `reload`, `equip`,
//!   `holster`, `jump`, `land`, `hit`, `die`), listed when a binding profile
//!   of the set declares them. A class has a **clip** for an event when its
//!   animation profile (after inheritance) has a clip-table row whose
//!   pattern asserts the event's tag (`fire` → `combat=firing`, `die` →
//!   `reaction=dying`, …) and fits the class, or when its animation graph
//!   plays it: a transition of the class's `animation_graph` is triggered by
//!   the graph parameter the class's binding profile maps the event to (the
//!   binding's `parameter`), so firing the event enters a state with a clip
//!   or blend tree.
//! - **Slots** are the shipped slots with a sound meaning ([`SLOTS`]:
//!   `reload_magazine` → `weapon.reload`, `locomotion_walk` → `footstep`, …),
//!   listed when a binding profile of the set declares them. A class has a
//!   **clip** for a slot when its binding profile declares the slot.
//! - A class has the **sound** when some sound profile of the folder (after
//!   inheritance) has an entry for the sound event id that fits the class.
//!
//! A row or entry **fits** a class unless its tags require another weapon:
//! the weapon flags of its `combat` tags (`unarmed`, `armed_*`) must be none,
//! or exactly the class's own (`rifle` ↔ `armed_rifle`, `unarmed` ↔
//! `unarmed`; `throwable` has no weapon flag, so only rows without one fit).
//!
//! The classes are the entries of every player profile set, in file and
//! entry order (a class in two sets is reported once, from the first). A
//! class is checked for the items that concern it: an event or slot its own
//! binding profile declares, and the ones another class of the set declares
//! that the class is expected to have — weapon events (`fire`, `reload`,
//! `equip`, `holster`) for every class but `unarmed` (`fire` and `reload`
//! only for firearms: pistol, rifle, shotgun, heavy), body events (`jump`,
//! `land`, `hit`, `die`) for every class, and slots in the class's canonical
//! slot list ([`super::autobind::slots_for`]: no locomotion slots for a rifle,
//! no fire slots for unarmed).
//! Events and slots without a sound meaning (`interact`, `stance_crouch`, …)
//! and custom ids are not listed: their sound side is undefined.

use zoa_anim_core::graph::{AnimationGraph, ConditionTest};
use zoa_anim_core::{
    AnimationBindingEntry, AnimationBindingProfile, AnimationParameterType, CombatTag, LocomotionTag,
    PlayerProfileType, ReactionTag, SoundEventId, StateDimension, StateTagSet,
};

use super::autobind::slots_for;
use crate::defs::DefinitionSet;

/// Shipped trigger bindings that are cross-modal events: (binding id,
/// dimension and flag its clip-table row asserts, sound event id).
pub const EVENTS: &[(&str, StateDimension, u32, &str)] = &[
    ("fire", StateDimension::Combat, CombatTag::FIRING.bits(), "weapon.fire"),
    ("reload", StateDimension::Combat, CombatTag::RELOADING.bits(), "weapon.reload"),
    ("equip", StateDimension::Combat, CombatTag::EQUIPPING.bits(), "weapon.equip"),
    ("holster", StateDimension::Combat, CombatTag::EQUIPPING.bits(), "weapon.holster"),
    ("jump", StateDimension::Locomotion, LocomotionTag::JUMP.bits(), "jump"),
    ("land", StateDimension::Locomotion, LocomotionTag::LAND.bits(), "land"),
    ("hit", StateDimension::Reaction, ReactionTag::HIT.bits(), "vocal.hurt"),
    ("die", StateDimension::Reaction, ReactionTag::DYING.bits(), "vocal.death"),
];

/// Shipped slots with a sound meaning: (slot id, sound event id).
pub const SLOTS: &[(&str, &str)] = &[
    ("equip_two_hand", "weapon.equip"),
    ("equip_one_hand", "weapon.equip"),
    ("holster_two_hand", "weapon.holster"),
    ("holster_one_hand", "weapon.holster"),
    ("reload_magazine", "weapon.reload"),
    ("reload_shell", "weapon.reload"),
    ("reload_bolt", "weapon.reload"),
    ("fire_single", "weapon.fire"),
    ("fire_burst", "weapon.fire"),
    ("fire_auto", "weapon.fire"),
    ("melee_attack", "weapon.melee.swing"),
    ("locomotion_walk", "footstep"),
    ("locomotion_run", "footstep"),
    ("locomotion_sprint", "footstep"),
    ("locomotion_crouch_walk", "footstep"),
    ("locomotion_jump", "jump"),
    ("locomotion_land", "land"),
    ("hit_react", "vocal.hurt"),
    ("death", "vocal.death"),
];

/// Whether a row is an event or a slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CrossModalKind {
    /// A semantic event (a trigger binding).
    Event,
    /// A slot.
    Slot,
}

impl CrossModalKind {
    /// `event` or `slot`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            CrossModalKind::Event => "event",
            CrossModalKind::Slot => "slot",
        }
    }
}

/// One (event or slot, class) pair.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CrossModalRow {
    /// Binding id (event) or slot id.
    pub id: String,
    /// Event or slot.
    pub kind: CrossModalKind,
    /// Weapon class.
    pub class: PlayerProfileType,
    /// The sound event id the row expects an entry for.
    pub sound_event: String,
    /// The class has animation for it (see the module docs).
    pub clip: bool,
    /// A sound profile has an entry for it that fits the class.
    pub sound: bool,
}

impl CrossModalRow {
    /// Whether the clip or the sound is missing.
    #[must_use]
    pub fn is_gap(&self) -> bool {
        !(self.clip && self.sound)
    }
}

/// The combat weapon flag of a class (`None` for `throwable`).
fn weapon_flag(class: PlayerProfileType) -> Option<CombatTag> {
    match class {
        PlayerProfileType::Unarmed => Some(CombatTag::UNARMED),
        PlayerProfileType::Pistol => Some(CombatTag::ARMED_PISTOL),
        PlayerProfileType::Rifle => Some(CombatTag::ARMED_RIFLE),
        PlayerProfileType::Shotgun => Some(CombatTag::ARMED_SHOTGUN),
        PlayerProfileType::Melee => Some(CombatTag::ARMED_MELEE),
        PlayerProfileType::Heavy => Some(CombatTag::ARMED_HEAVY),
        PlayerProfileType::Throwable => None,
    }
}

/// Whether `class` is expected to answer event `id` although its own binding
/// profile does not declare it (see the module docs).
fn expects_event(class: PlayerProfileType, id: &str) -> bool {
    use PlayerProfileType as P;
    let firearm = matches!(class, P::Pistol | P::Rifle | P::Shotgun | P::Heavy);
    match id {
        "fire" | "reload" => firearm,
        "equip" | "holster" => class != P::Unarmed,
        _ => true,
    }
}

/// Whether firing the trigger parameter named `parameter` of `graph` starts a
/// transition (the trigger is one of its conditions) into a state: every
/// state has a motion (a clip or a blend tree), so the event has animation.
fn graph_plays_trigger(graph: &AnimationGraph, parameter: &str) -> bool {
    let Some(index) = graph.parameters.iter().position(|p| p.name == parameter) else { return false };
    graph
        .transitions
        .iter()
        .any(|t| t.conditions.iter().any(|c| c.parameter.index() == index && c.test == ConditionTest::Triggered))
}

/// The trigger binding `id` of `profile`, if it declares one.
fn trigger_binding<'p>(profile: &'p impl AnimationBindingProfile, id: &str) -> Option<&'p AnimationBindingEntry> {
    profile.bindings().iter().find(|x| x.id.as_str() == id && x.parameter_type == AnimationParameterType::Trigger)
}

/// Whether tags fit a class: the weapon flags they require are none or the class's own.
#[must_use]
pub fn fits_class(tags: &StateTagSet, class: PlayerProfileType) -> bool {
    let weapons = CombatTag::UNARMED.bits()
        | CombatTag::ARMED_PISTOL.bits()
        | CombatTag::ARMED_RIFLE.bits()
        | CombatTag::ARMED_SHOTGUN.bits()
        | CombatTag::ARMED_MELEE.bits()
        | CombatTag::ARMED_HEAVY.bits();
    let required = tags.mask(StateDimension::Combat) & weapons;
    required == 0 || weapon_flag(class).is_some_and(|f| required == f.bits())
}

/// Cross-modal rows of every player profile set (see the module docs), in
/// set and class order, events ([`EVENTS`] order) before slots ([`SLOTS`] order).
pub fn cross_modal(set: &DefinitionSet) -> Vec<CrossModalRow> {
    // Sound entries of every sound profile, flattened (profiles that fail to flatten are E013's).
    let sounds: Vec<(SoundEventId, StateTagSet)> = set
        .sound_profiles
        .iter()
        .filter_map(|p| set.flattened_sound_profile(&p.value.id).and_then(Result::ok))
        .flatten()
        .map(|r| (r.row.event, r.row.tag_filter))
        .collect();
    let has_sound = |event: &str, class| sounds.iter().any(|(e, tags)| e.as_str() == event && fits_class(tags, class));
    let mut rows: Vec<CrossModalRow> = Vec::new();
    for s in &set.player_profile_sets {
        let profiles: Vec<_> =
            s.value.profiles.iter().filter_map(|e| set.binding_profile(&e.binding_profile)).collect();
        let events: Vec<_> =
            EVENTS.iter().filter(|(id, ..)| profiles.iter().any(|p| trigger_binding(*p, id).is_some())).collect();
        let slots: Vec<_> = SLOTS
            .iter()
            .filter(|(id, _)| profiles.iter().any(|p| p.slots().iter().any(|x| x.id.as_str() == *id)))
            .collect();
        for entry in &s.value.profiles {
            let class = entry.class;
            if rows.iter().any(|r| r.class == class) {
                continue;
            }
            let table = entry
                .animation_profile
                .as_deref()
                .and_then(|a| set.flattened_profile(a))
                .and_then(Result::ok)
                .unwrap_or_default();
            let binding = set.binding_profile(&entry.binding_profile);
            let declares_event = |id: &str| binding.and_then(|b| trigger_binding(b, id)).is_some();
            let declares_slot = |id: &str| binding.is_some_and(|b| b.slots().iter().any(|x| x.id.as_str() == id));
            let graph = entry.animation_graph.as_deref().and_then(|g| set.animation_graph(g));
            let graph_plays = |id: &str| {
                let parameter = binding.and_then(|b| trigger_binding(b, id)).map(|x| x.parameter_name.as_str());
                graph.zip(parameter).is_some_and(|(g, p)| graph_plays_trigger(g, p))
            };
            for (id, dim, flag, sound) in events.iter().copied() {
                if !(declares_event(id) || expects_event(class, id)) {
                    continue;
                }
                let clip = graph_plays(id)
                    || table.iter().any(|r| r.row.pattern.mask(*dim) & flag != 0 && fits_class(&r.row.pattern, class));
                rows.push(CrossModalRow {
                    id: (*id).to_owned(),
                    kind: CrossModalKind::Event,
                    class,
                    sound_event: (*sound).to_owned(),
                    clip,
                    sound: has_sound(sound, class),
                });
            }
            for (id, sound) in slots.iter().copied() {
                let clip = declares_slot(id);
                if !(clip || slots_for(class).contains(id)) {
                    continue;
                }
                rows.push(CrossModalRow {
                    id: (*id).to_owned(),
                    kind: CrossModalKind::Slot,
                    class,
                    sound_event: (*sound).to_owned(),
                    clip,
                    sound: has_sound(sound, class),
                });
            }
        }
    }
    rows
}

/// JSON form: `[{"id", "kind", "class", "clip": bool, "sound": bool}]`.
#[must_use]
pub fn to_json(rows: &[CrossModalRow]) -> serde_json::Value {
    rows.iter()
        .map(|r| {
            serde_json::json!({"id": r.id, "kind": r.kind.as_str(), "class": r.class.name(), "clip": r.clip, "sound": r.sound})
        })
        .collect()
}

/// Readable form: a count, then the table of gaps (only rows missing something).
#[must_use]
pub fn to_human(rows: &[CrossModalRow]) -> String {
    use std::fmt::Write;
    let gaps: Vec<&CrossModalRow> = rows.iter().filter(|r| r.is_gap()).collect();
    let mut out = format!(
        "\ncross-modal coverage (events and slots per weapon class: clip, sound): {} checked, {} gap(s)\n",
        rows.len(),
        gaps.len()
    );
    if gaps.is_empty() {
        return out;
    }
    let w = gaps.iter().map(|r| r.id.len()).max().unwrap_or(2).max(2);
    let c = gaps.iter().map(|r| r.class.name().len()).max().unwrap_or(5).max(5);
    let _ = writeln!(out, "  {:<w$}  {:<5}  {:<c$}  {:<4}  sound", "id", "kind", "class", "clip");
    let yes = |b: bool| if b { "yes" } else { "no" };
    for r in gaps {
        let _ = writeln!(
            out,
            "  {:<w$}  {:<5}  {:<c$}  {:<4}  {}{}",
            r.id,
            r.kind.as_str(),
            r.class.name(),
            yes(r.clip),
            yes(r.sound),
            if r.sound { String::new() } else { format!(" (no `{}` entry)", r.sound_event) }
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weapon_tags_fit_only_their_class() {
        let rifle = StateTagSet::parse("combat=armed_rifle|firing").unwrap();
        let any = StateTagSet::parse("combat=firing").unwrap();
        let unarmed = StateTagSet::parse("combat=unarmed").unwrap();
        assert!(fits_class(&rifle, PlayerProfileType::Rifle));
        assert!(!fits_class(&rifle, PlayerProfileType::Pistol));
        assert!(!fits_class(&rifle, PlayerProfileType::Unarmed));
        assert!(fits_class(&any, PlayerProfileType::Pistol) && fits_class(&any, PlayerProfileType::Throwable));
        assert!(fits_class(&unarmed, PlayerProfileType::Unarmed) && !fits_class(&unarmed, PlayerProfileType::Rifle));
        assert!(!fits_class(&rifle, PlayerProfileType::Throwable));
    }

    #[test]
    fn every_event_and_slot_names_shipped_ids() {
        use zoa_anim_core::{DefaultBindings, DefaultSlots, DefaultSoundEvents};
        let sounds: Vec<&str> = DefaultSoundEvents::ALL.iter().map(|s| s.as_str()).collect();
        for (id, _, flag, sound) in EVENTS {
            assert!(
                DefaultBindings::ALL.iter().any(|(b, t)| b.as_str() == *id && *t == AnimationParameterType::Trigger)
            );
            assert!(sounds.contains(sound), "{sound}");
            assert_ne!(*flag, 0);
        }
        for (id, sound) in SLOTS {
            assert!(DefaultSlots::ALL.iter().any(|s| s.as_str() == *id), "{id}");
            assert!(sounds.contains(sound), "{sound}");
        }
    }
}

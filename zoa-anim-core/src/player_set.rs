//! Player animation profile sets: clip tables, graphs and binding profiles
//! grouped by weapon class, so the rig switches to the rifle set when a rifle
//! is armed and back to the unarmed baseline when nothing is.

use std::fmt;

/// Weapon class a player set entry serves.
///
/// The classes mirror the combat dimension's `armed_*` flags plus `unarmed`
/// and `throwable`, so a class maps onto the state tags gameplay already sets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PlayerProfileType {
    /// Nothing equipped: the baseline.
    Unarmed,
    /// One-handed firearm.
    Pistol,
    /// Two-handed automatic or semi-automatic rifle.
    Rifle,
    /// Pump or break-action shotgun.
    Shotgun,
    /// Melee weapon (blade, club).
    Melee,
    /// Heavy weapon (launcher, machine gun).
    Heavy,
    /// Grenades and other thrown items.
    Throwable,
}

impl PlayerProfileType {
    /// Every class, in declaration order.
    pub const ALL: [PlayerProfileType; 7] = [
        PlayerProfileType::Unarmed,
        PlayerProfileType::Pistol,
        PlayerProfileType::Rifle,
        PlayerProfileType::Shotgun,
        PlayerProfileType::Melee,
        PlayerProfileType::Heavy,
        PlayerProfileType::Throwable,
    ];

    /// snake_case name used in text forms.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            PlayerProfileType::Unarmed => "unarmed",
            PlayerProfileType::Pistol => "pistol",
            PlayerProfileType::Rifle => "rifle",
            PlayerProfileType::Shotgun => "shotgun",
            PlayerProfileType::Melee => "melee",
            PlayerProfileType::Heavy => "heavy",
            PlayerProfileType::Throwable => "throwable",
        }
    }

    /// Parses the snake_case name.
    #[must_use]
    pub fn from_name(s: &str) -> Option<Self> {
        PlayerProfileType::ALL.into_iter().find(|t| t.name() == s)
    }
}

impl fmt::Display for PlayerProfileType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What one weapon class plays with. Every reference is a definition id.
#[derive(Debug, Clone, PartialEq)]
pub struct PlayerProfileEntry {
    /// The class this entry serves.
    pub class: PlayerProfileType,
    /// Binding profile id (parameter names and slots for this class).
    pub binding_profile: String,
    /// Animation profile id (tagged clip table), if the class uses tag-driven selection.
    pub animation_profile: Option<String>,
    /// Animation graph id, if the class uses a state machine.
    pub animation_graph: Option<String>,
}

/// Player clips and controllers grouped by weapon class.
///
/// Invariants (checked by loaders): at most one entry per class, and the
/// default class has an entry.
#[derive(Debug, Clone, PartialEq)]
pub struct PlayerProfileSet {
    /// Unique id.
    pub id: String,
    /// Class used when the requested class has no entry (usually `unarmed`).
    pub default_profile: PlayerProfileType,
    /// Entries in authoring order.
    pub profiles: Vec<PlayerProfileEntry>,
}

impl PlayerProfileSet {
    /// The entry for `class`, if authored.
    #[must_use]
    pub fn try_get_profile(&self, class: PlayerProfileType) -> Option<&PlayerProfileEntry> {
        self.profiles.iter().find(|p| p.class == class)
    }

    /// The entry for `class`, falling back to the default class's entry.
    #[must_use]
    pub fn resolve_profile(&self, class: PlayerProfileType) -> Option<&PlayerProfileEntry> {
        self.try_get_profile(class).or_else(|| self.try_get_profile(self.default_profile))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolve_falls_back_to_default() {
        let entry = |class, b: &str| PlayerProfileEntry {
            class,
            binding_profile: b.into(),
            animation_profile: None,
            animation_graph: None,
        };
        let set = PlayerProfileSet {
            id: "player".into(),
            default_profile: PlayerProfileType::Unarmed,
            profiles: vec![entry(PlayerProfileType::Unarmed, "unarmed"), entry(PlayerProfileType::Rifle, "rifle")],
        };
        assert_eq!(set.resolve_profile(PlayerProfileType::Rifle).unwrap().binding_profile, "rifle");
        assert_eq!(set.resolve_profile(PlayerProfileType::Shotgun).unwrap().binding_profile, "unarmed");
        assert!(set.try_get_profile(PlayerProfileType::Shotgun).is_none());
        for t in PlayerProfileType::ALL {
            assert_eq!(PlayerProfileType::from_name(t.name()), Some(t));
        }
    }
}

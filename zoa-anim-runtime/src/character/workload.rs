//! A fixed, deterministic crowd workload: the gameplay input `zoa-anim bench
//! --defs` measures and the crowd tests check (parallel equals serial bit for
//! bit, frames allocate nothing), so both exercise the same schedule.
//!
//! Character `k` starts in one of five states (idle, walk, sprint, hit
//! reaction, crouched run) with a matching entity speed and a look target;
//! every third character (`k % 3 == 1`) is in the player set's second class
//! when there is one. Each frame, before the crowd updates, a schedule of
//! period [`CrowdWorkload::PERIOD`] frames (offset by `k` per character)
//! fires `hit`, `reload` and `jump`, plays the `hit_react` slot, changes tags
//! and speed, toggles `is_grounded` and `is_aiming`, and moves the look target.

use zoa_anim_core::glam::Vec3;
use zoa_anim_core::{DefaultBindings, DefaultSlots, PlayerProfileType, StateTagSet};

use super::{Character, CharacterDefinition};
use crate::pose::crowd::Crowd;

/// The workload's states, by index (`k % 5` at the start).
const TAGS: [&str; 5] = [
    "locomotion=idle posture=standing",
    "locomotion=walk mood=calm",
    "locomotion=sprint",
    "locomotion=idle reaction=hit",
    "locomotion=run posture=crouching",
];
/// The forward speed (m/s) that goes with each state of [`TAGS`].
const SPEEDS: [f32; 5] = [0.0, 1.5, 6.5, 0.0, 4.0];

/// The workload's states, parsed once, so [`CrowdWorkload::drive`] allocates
/// nothing.
#[derive(Debug, Clone)]
pub struct CrowdWorkload {
    tags: [StateTagSet; 5],
}

impl Default for CrowdWorkload {
    fn default() -> Self {
        Self::new()
    }
}

impl CrowdWorkload {
    /// Frames after which every character's schedule repeats (with the next
    /// state and speed).
    pub const PERIOD: usize = 97;

    /// The workload (parses its five states).
    #[must_use]
    pub fn new() -> Self {
        CrowdWorkload { tags: TAGS.map(|t| t.parse().expect("the workload's states are valid tags")) }
    }

    /// The state character `k` starts in.
    #[must_use]
    pub fn start_tags(&self, k: usize) -> StateTagSet {
        self.tags[k % TAGS.len()]
    }

    /// The class character `k` spawns in: the player set's second class for
    /// every third character (`k % 3 == 1`), else its first; `None` without a
    /// player set.
    #[must_use]
    pub fn class(&self, def: &CharacterDefinition, k: usize) -> Option<PlayerProfileType> {
        let profiles = &def.player_set()?.profiles;
        profiles.get(usize::from(k % 3 == 1)).or(profiles.first()).map(|e| e.class)
    }

    /// Character `k`'s starting input besides its class and state: the
    /// state's speed and a look target.
    pub fn prepare(&self, k: usize, c: &mut Character) {
        c.set_look_target(Some(Vec3::new(k as f32 * 0.3 - 1.0, 1.6, 2.0)));
        set_speed(c, SPEEDS[k % SPEEDS.len()]);
    }

    /// Gameplay input for frame `frame` (the same for every run); allocates
    /// nothing.
    pub fn drive(&self, crowd: &mut Crowd<Character>, frame: usize) {
        let round = frame / Self::PERIOD;
        for (k, c) in crowd.members_mut().iter_mut().enumerate() {
            match (frame + k) % Self::PERIOD {
                10 => c.fire(DefaultBindings::HIT),
                20 => c.fire(DefaultBindings::RELOAD),
                30 => {
                    c.play_slot(DefaultSlots::HIT_REACT);
                }
                40 => c.set_tags(self.tags[(round + k) % TAGS.len()]),
                50 => set_speed(c, SPEEDS[(round + k) % SPEEDS.len()]),
                60 => c.fire(DefaultBindings::JUMP),
                61 => c.set_bool(DefaultBindings::IS_GROUNDED, false),
                75 => c.set_bool(DefaultBindings::IS_GROUNDED, true),
                80 => c.set_bool(DefaultBindings::IS_AIMING, k % 2 == 0),
                _ => {}
            }
            c.set_look_target(Some(Vec3::new((frame as f32 * 0.05 + k as f32).sin(), 1.6, 2.0)));
        }
    }
}

/// Forward speed, the one way ([`Character::set_speed`]): each class's
/// binding profile routes `speed` to its graph (unarmed `speed`, rifle `move_y`).
fn set_speed(c: &mut Character, speed: f32) {
    c.set_speed(speed);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn states_parse_and_each_has_a_speed() {
        let w = CrowdWorkload::new();
        assert_eq!(TAGS.len(), SPEEDS.len());
        assert_eq!(w.start_tags(0), "locomotion=idle posture=standing".parse().unwrap());
        assert_eq!(w.start_tags(7), w.start_tags(2));
        assert_ne!(w.start_tags(1), w.start_tags(2));
    }
}

//! The fixture humanoid as a character bundle, and helpers shared by the
//! character tests.
#![allow(dead_code)]

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use zoa_anim_assets::character::{CharacterChoice, load_character};
use zoa_anim_assets::defs::load_folder;
use zoa_anim_core::{CharacterBundle, RigPolicy, StateTagSet};
use zoa_anim_runtime::{Character, CharacterDefinition, CharacterSettings};

pub fn fixture_dir() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/defs/humanoid"))
}

/// The fixture folder's character bundle (loaded once per test binary).
pub fn fixture_bundle() -> CharacterBundle {
    static BUNDLE: OnceLock<CharacterBundle> = OnceLock::new();
    BUNDLE
        .get_or_init(|| {
            let set = load_folder(&fixture_dir());
            load_character(&set, &fixture_dir(), CharacterChoice::default()).expect("the fixture loads")
        })
        .clone()
}

/// The fixture bundle with every IK behaviour switched off (so the local pose
/// is exactly what blending produced).
pub fn without_ik(mut b: CharacterBundle) -> CharacterBundle {
    let rig = b.rig_policy.get_or_insert_with(RigPolicy::default);
    rig.foot_plant = false;
    rig.look_at = false;
    rig.hand_on_weapon = false;
    rig.climb_hand = false;
    b
}

pub fn definition(bundle: &CharacterBundle) -> Arc<CharacterDefinition> {
    CharacterDefinition::new(bundle, CharacterSettings::default()).expect("the bundle compiles")
}

pub fn tags(s: &str) -> StateTagSet {
    s.parse().unwrap()
}

/// Runs `seconds` of 60 Hz frames.
pub fn run(c: &mut Character, seconds: f32) {
    let n = (seconds * 60.0).round() as usize;
    for _ in 0..n {
        c.update(1.0 / 60.0).unwrap();
    }
}

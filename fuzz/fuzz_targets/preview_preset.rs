//! Feeds arbitrary text as a preview preset (`presets/fuzz.toml`) added to
//! the humanoid fixture folder, the way `zoa-anim validate` and
//! `zoa-anim preview` see it: the folder load must give diagnostics, and a
//! preset it accepts must play to its end (the runtime may refuse it with an
//! error), never panic, hang or allocate without bound.
//!
//! Seeds: the fixture presets (`fixtures/defs/humanoid/presets/`). The
//! character is loaded once (a preset does not change it); each input is
//! validated in the folder and, when the folder has no error, played at
//! 10 Hz (the rate only scales the work; the CLI's `--rate` budget is its own).
#![no_main]

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use zoa_anim_assets::character::{CharacterChoice, load_character};
use zoa_anim_assets::defs::{load_folder, load_folder_with_overlay};
use zoa_anim_core::CharacterBundle;
use zoa_anim_tools::preview::{PreviewSetup, PreviewSim};

const RATE: f32 = 10.0;

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/defs/humanoid")
}

/// The fixture character, loaded once, and the ids of the fixture's own presets.
fn character() -> &'static (CharacterBundle, Vec<String>) {
    static BUNDLE: OnceLock<(CharacterBundle, Vec<String>)> = OnceLock::new();
    BUNDLE.get_or_init(|| {
        let set = load_folder(&fixture());
        assert_eq!(set.error_count(), 0, "the humanoid fixture folder must load cleanly");
        let bundle = load_character(&set, &fixture(), CharacterChoice::default()).expect("the fixture character");
        let own = set.preview_presets.iter().map(|p| p.value.id.clone()).collect();
        (bundle, own)
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let (bundle, own) = character();
    let overlay = [(PathBuf::from("presets/fuzz.toml"), text.to_owned())];
    let set = load_folder_with_overlay(&fixture(), &overlay);
    if set.error_count() > 0 {
        return;
    }
    for preset in set.preview_presets.iter().filter(|p| !own.contains(&p.value.id)) {
        let Ok(mut sim) = PreviewSim::new(PreviewSetup::new(bundle.clone(), RATE)) else { return };
        let _ = sim.run(&preset.value);
    }
});

//! Feeds arbitrary text as a `zoa-anim sound render` script: parsing and
//! checking must give messages, never panic, hang or allocate without bound;
//! a script that passes is rendered offline against the humanoid fixture's
//! `human` sound profile (its WAV fixtures decoded once), as the CLI does.
//!
//! Seeds: `fuzz/seeds/sound_script/`.
#![no_main]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use zoa_anim_assets::defs::load_folder;
use zoa_anim_assets::sound_script::parse_sound_script;
use zoa_audio_profile::{ClipBank, ClipData, Listener, Player, PlayerConfig, Script, SoundTable, render_script};

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/defs/humanoid")
}

/// The fixture's `human` sound table and its decoded clips, loaded once.
fn sounds() -> &'static (SoundTable, ClipBank) {
    static SOUNDS: OnceLock<(SoundTable, ClipBank)> = OnceLock::new();
    SOUNDS.get_or_init(|| {
        let set = load_folder(&fixture());
        let profile = set.sound_profile("human").expect("the fixture's `human` sound profile");
        let table = SoundTable::flatten(profile, |id| set.sound_profile(id)).expect("the fixture sound table");
        let bank = ClipBank::load_for_table_with(&table, |clip| {
            let path = fixture().join(clip);
            ClipData::decode(std::fs::read(&path).expect("fixture sound"), &path.display().to_string())
        })
        .expect("fixture sounds decode");
        (table, bank)
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(file) = parse_sound_script(text) else { return };
    let (table, bank) = sounds();
    let emitters: BTreeSet<&str> = file.events.iter().map(|e| e.emitter.as_str()).collect();
    let defaults = PlayerConfig::default();
    let config = PlayerConfig {
        sample_rate: file.sample_rate.unwrap_or(defaults.sample_rate),
        seed: file.seed.unwrap_or(defaults.seed),
        max_emitters: emitters.len().max(1),
        ..defaults
    };
    let Ok(mut player) = Player::new(table.clone(), bank.clone(), config) else { return };
    let l = file.listener;
    let listener = Listener { position: l.position, forward: l.forward, up: l.up };
    let _ = render_script(&mut player, &Script { events: file.events, listener, length: file.length });
});

//! Feeds arbitrary bytes to the baked-file reader and, when they read, on to
//! the front door's path (definition texts, the character bundle, the
//! runtime's compilation): errors, never a panic, a hang or an unbounded
//! allocation.
//!
//! The first byte picks the mode: even, the rest is the whole file (header
//! checks: magic, version, length, checksum); odd, the rest is a payload
//! sealed behind a valid header (`baked::seal`), so the fuzzer reaches the
//! section, count and track readers without having to forge a checksum.
//! Seeds: the fixture humanoid baked by `zoa-anim bake` behind byte 0 (see README.md).
#![no_main]

use libfuzzer_sys::fuzz_target;
use zoa_anim_assets::baked::{read_baked, seal};
use zoa_anim_assets::character::{CharacterChoice, bundle_baked};
use zoa_anim_assets::defs::load_texts;
use zoa_anim_runtime::{CharacterDefinition, CharacterSettings};

fuzz_target!(|data: &[u8]| {
    let Some((mode, rest)) = data.split_first() else { return };
    let file = if mode % 2 == 0 { rest.to_vec() } else { seal(rest) };
    let Ok(baked) = read_baked(&file) else { return };
    let set = load_texts(&baked.definitions);
    if let Ok(bundle) = bundle_baked(&set, CharacterChoice::default(), baked) {
        let _ = CharacterDefinition::new(&bundle, CharacterSettings::default());
    }
});

//! Feeds arbitrary bytes to the glTF importer: it must return `Ok` or `Err`,
//! never panic, hang or allocate without bound. GLB input is recognised by
//! its magic; everything else goes down the JSON path.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = zoa_anim_assets::gltf::load_gltf_slice(data, None, "fuzz.gltf");
});

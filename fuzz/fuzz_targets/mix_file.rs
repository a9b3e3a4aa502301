//! Feeds arbitrary text as a `zoa-anim pose --mix` file: parsing and checking
//! must give messages, never panic, hang or allocate without bound; a mix
//! that passes is bound to the humanoid fixture model (clips by name or
//! index, masks by joint name) and evaluated, as `zoa-anim pose` does.
//!
//! Seeds: `fuzz/seeds/mix_file/`.
#![no_main]

use std::path::Path;
use std::sync::{Arc, OnceLock};

use libfuzzer_sys::fuzz_target;
use zoa_anim_assets::gltf::{GltfAsset, load_gltf};
use zoa_anim_assets::mix::{ClipKey, parse_mix};
use zoa_anim_runtime::{pose::AdditiveReference, pose::Animation, pose::BindBy, pose::BoneWeights, pose::BoundMotion, pose::ClipPlayer, pose::Layer, pose::LayerSource, pose::RuntimeSkeleton};

/// The humanoid fixture model and its first skin, loaded once.
fn model() -> &'static (GltfAsset, Arc<RuntimeSkeleton>) {
    static MODEL: OnceLock<(GltfAsset, Arc<RuntimeSkeleton>)> = OnceLock::new();
    MODEL.get_or_init(|| {
        let asset = load_gltf(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/models/humanoid.glb"))
            .expect("the humanoid fixture model");
        let skeleton = Arc::new(RuntimeSkeleton::new(asset.skeletons[0].clone()));
        (asset, skeleton)
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(mix) = parse_mix(text) else { return };
    if !mix.problems().is_empty() {
        return;
    }
    let (asset, skeleton) = model();
    let mut layers = Vec::new();
    for l in &mix.layers {
        let clip = match &l.clip {
            ClipKey::Index(k) => asset.clips.get(*k),
            ClipKey::Name(n) => asset.clip(n).map(|(_, c)| c),
        };
        let mask = if l.include.is_empty() && l.exclude.is_empty() {
            None
        } else {
            match BoneWeights::from_names(skeleton.skeleton(), &l.include, &l.exclude) {
                Ok(m) => Some(Arc::new(m)),
                Err(_) => return,
            }
        };
        let Some(clip) = clip else { return };
        let Ok(animation) = Animation::bind(clip, skeleton.skeleton(), BindBy::Node) else { return };
        let source = LayerSource::Clip {
            motion: BoundMotion { animation: Arc::new(animation), looping: l.looping },
            time: l.time,
            speed: 1.0,
        };
        let mut layer = Layer::new(clip.name(), source).with_weight(l.weight);
        if l.additive {
            layer = layer.additive(AdditiveReference::Time(l.reference_time));
        }
        layer.mask = mask;
        layers.push(layer);
    }
    let Ok(mut instance) = ClipPlayer::new(skeleton.clone(), layers) else { return };
    instance.set_compute_model(false);
    let _ = instance.evaluate();
});

//! The `many_foxes` example's two apps agree: three foxes, each walking and
//! running with its own mix and phase, animated by `bevy_animation` in one
//! app and by ZOA in the other, have the same local joint transforms (within
//! 1e-4) after the same frames. Both follow glTF sampling and blend the same
//! two clips with the same weights at the same clip times. Needs the engine
//! (`--features render`, for glTF scenes and `bevy_animation`) and the shared
//! `Fox.glb`; skipped with a note when the shared assets are absent.
#![cfg(feature = "render")]
#![allow(elided_lifetimes_in_paths)]

#[path = "../examples/many_foxes/foxes.rs"]
mod foxes;

use bevy::prelude::*;
use foxes::{Animator, fox_app, fox_folder, fox_joints, fox_mix, shared_assets, wait_until_animated};

const FOXES: usize = 3;
const TOLERANCE: f32 = 1e-4;

fn far(a: &Transform, b: &Transform) -> f32 {
    let q = a.rotation.dot(b.rotation).abs();
    let rotation = (1.0 - q).abs() * 2.0;
    let translation = (a.translation - b.translation).abs().max_element();
    let scale = (a.scale - b.scale).abs().max_element();
    rotation.max(translation).max(scale)
}

#[test]
fn bevy_animation_and_zoa_pose_the_foxes_alike() {
    let assets = shared_assets();
    if !assets.join("Fox.glb").is_file() {
        eprintln!("note: Fox.glb not in {}; skipping", assets.display());
        return;
    }
    let tmp = zoa_test_support::paths::temp_dir("many-foxes-poses");
    let folder = fox_folder(&assets, &tmp.path().join("fox")).expect("the Fox folder");
    let mut apps = [Animator::BevyAnimation, Animator::Zoa].map(|a| {
        let mut app = fox_app(&assets, &folder, FOXES, a).unwrap_or_else(|e| panic!("{a:?}: {e}"));
        wait_until_animated(&mut app, FOXES, 600).unwrap_or_else(|e| panic!("{a:?}: {e}"));
        app
    });
    // Distinct mixes, so a fox posed by another's weights would show.
    assert!(fox_mix(0) != fox_mix(1) && fox_mix(1) != fox_mix(2));

    let mut before = Vec::new();
    for step in 0..2 {
        for app in &mut apps {
            for _ in 0..37 {
                app.update();
            }
        }
        for k in 0..FOXES {
            let [bevy, zoa] = apps.each_mut().map(|app| fox_joints(app, k));
            assert!(bevy.len() >= 24, "the Fox has 24 skin joints, {} animated nodes here", bevy.len());
            let names = |v: &[(String, Transform)]| v.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
            assert_eq!(names(&bevy), names(&zoa), "fox {k}: the same joints");
            for ((name, b), (_, z)) in bevy.iter().zip(&zoa) {
                let d = far(b, z);
                assert!(d <= TOLERANCE, "fox {k}, joint {name}, step {step}: off by {d:e}\nbevy {b:?}\nzoa  {z:?}");
            }
            if step == 0 {
                before.push(zoa);
            } else {
                let moved = before[k].iter().zip(&zoa).filter(|((_, a), (_, b))| far(a, b) > 1e-3).count();
                assert!(moved >= 10, "fox {k}: only {moved} joints moved in 37 frames");
            }
        }
    }
}

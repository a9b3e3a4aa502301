//! Baked files (`zoa-anim bake`, `Loader::bake`, `load_baked`): fidelity of
//! baked clips against the glTF ones on every shared asset and on the
//! fixture humanoid (model-space joint positions within the stated bound),
//! a character from the baked fixture behaving like one from the folder
//! (same events, poses within the bound), and located errors for bad files.

use zoa_animation::assets::baked::{BakeStats, Tolerance, bake_clip};
use zoa_animation::assets::gltf::load_gltf;
use zoa_animation::core::{Clip, Skeleton};
use zoa_animation::glam::{Mat4, Vec3};
use zoa_animation::prelude::*;
use zoa_animation::runtime::pose::{Animation, BindBy, LocalToModelJob, Pose, RuntimeSkeleton};
use zoa_test_support::paths::{fixture, shared_assets, temp_dir};

/// Per joint: the model-space error bound of a baked pose, `2 × translation
/// tolerance × (depth + 1)` (each joint on the chain adds at most its
/// translation error and its rotation/scale error measured at its hierarchy
/// length), times the largest rest scale on the chain.
fn bounds(s: &Skeleton, tol: &Tolerance) -> Vec<f32> {
    let mut model = vec![Mat4::IDENTITY; s.joint_count()];
    let mut out = vec![0.0; s.joint_count()];
    let mut depth = vec![0usize; s.joint_count()];
    let mut scale = vec![1.0f32; s.joint_count()];
    for &j in s.eval_order() {
        let j = usize::from(j);
        let local = s.joints()[j].rest.to_matrix();
        (model[j], depth[j], scale[j]) = match s.parent(j) {
            Some(p) => (model[p] * local, depth[p] + 1, scale[p]),
            None => (local, 0, 1.0),
        };
        let m = model[j];
        scale[j] = scale[j]
            .max(m.x_axis.truncate().length().max(m.y_axis.truncate().length()).max(m.z_axis.truncate().length()));
        out[j] = 2.0 * tol.translation * (depth[j] + 1) as f32 * scale[j].max(1.0);
    }
    out
}

/// Largest model-space distance between the joints of `a` and `b` sampled at
/// `samples` times over the clip, and the worst ratio of error to bound.
fn compare(skeleton: &Skeleton, a: &Clip, b: &Clip, bound: &[f32], samples: usize) -> (f32, f32) {
    let rig = RuntimeSkeleton::new(skeleton.clone());
    let rest = Pose::rest(skeleton);
    let bind = |c: &Clip| Animation::bind(c, skeleton, BindBy::Node).unwrap();
    let (aa, ab) = (bind(a), bind(b));
    let n = skeleton.joint_count();
    let (mut ma, mut mb) = (vec![Mat4::IDENTITY; n], vec![Mat4::IDENTITY; n]);
    let (mut worst, mut ratio) = (0.0f32, 0.0f32);
    for k in 0..=samples {
        let t = a.start() + (a.duration() - a.start()) * k as f32 / samples as f32;
        for (anim, out) in [(&aa, &mut ma), (&ab, &mut mb)] {
            let pose = anim.sample_to_new(t, &rest).unwrap();
            LocalToModelJob { skeleton: &rig, input: &pose, root: None, output: out }.run().unwrap();
        }
        for j in 0..n {
            let e = ma[j].w_axis.truncate().distance(mb[j].w_axis.truncate());
            worst = worst.max(e);
            // f32 sampling noise on large coordinates (Fox is in centimetres).
            let slack = 4.0 * f32::EPSILON * ma[j].w_axis.truncate().length().max(1.0);
            ratio = ratio.max(e / (bound[j] + slack));
        }
    }
    (worst, ratio)
}

#[test]
fn every_shared_asset_bakes_within_the_tolerance() {
    let Some(dir) = shared_assets() else {
        eprintln!("skipped: ZOA_ASSETS is not set and ../shared/assets is absent");
        return;
    };
    let tol = Tolerance::default();
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "glb" || e == "gltf"))
        .collect();
    files.sort();
    let mut checked = 0;
    for file in files {
        let asset = load_gltf(&file).unwrap();
        let Some(skeleton) = asset.skeletons.first() else {
            eprintln!("{}: no skin, its clips animate no joints of a skeleton; skipped", asset.file_name);
            continue;
        };
        let bound = bounds(skeleton, &tol);
        let mut total = BakeStats::default();
        let mut worst = 0.0f32;
        for clip in &asset.clips {
            let (baked, stats) = bake_clip(clip, skeleton, &tol).unwrap();
            assert_eq!(baked.duration(), clip.duration(), "{} {}", asset.file_name, clip.name());
            let (err, ratio) = compare(skeleton, clip, &baked, &bound, 240);
            assert!(
                ratio <= 1.0,
                "{} {}: model-space error {err} over the bound ({ratio:.2}×)",
                asset.file_name,
                clip.name()
            );
            worst = worst.max(err);
            total.keys_before += stats.keys_before;
            total.keys_after += stats.keys_after;
            total.clip_bytes += stats.clip_bytes;
            checked += 1;
        }
        eprintln!(
            "{}: {} clips, keys {} -> {}, {} clip bytes, worst model-space error {worst:.3e}",
            asset.file_name,
            asset.clips.len(),
            total.keys_before,
            total.keys_after,
            total.clip_bytes
        );
    }
    assert!(checked > 0, "no clip of the shared assets was checked");
}

/// What a character does over a scripted run: its events as text and the
/// model-space joint positions of every frame.
fn play(def: &std::sync::Arc<CharacterDefinition>) -> (Vec<String>, Vec<Vec<Vec3>>) {
    let mut hero = Character::new(def).unwrap();
    let script = [(0, "locomotion=walk", 1.5), (60, "locomotion=run", 4.0), (120, "locomotion=sprint", 6.5)];
    let (mut events, mut poses) = (Vec::new(), Vec::new());
    for frame in 0..240 {
        if let Some(&(_, tags, speed)) = script.iter().find(|s| s.0 == frame) {
            hero.set_tags(tags.parse().unwrap());
            hero.set_speed(speed);
        }
        if frame == 150 {
            hero.equip(PlayerProfileType::Rifle);
            hero.fire(DefaultBindings::FIRE);
        }
        if frame == 190 {
            hero.fire(DefaultBindings::RELOAD);
        }
        hero.update(1.0 / 60.0).unwrap();
        poses.push(hero.model_matrices().iter().map(|m| m.w_axis.truncate()).collect());
        events.extend(hero.events().iter().map(ToString::to_string));
        hero.clear_events();
    }
    (events, poses)
}

#[test]
fn the_baked_humanoid_plays_like_the_folder() {
    let tmp = temp_dir("baked-humanoid");
    let folder = zoa_animation::load(fixture("defs/humanoid")).unwrap();
    let tol = Tolerance::default();
    let (bytes, stats) = Loader::new().bake(fixture("defs/humanoid"), &tol).unwrap();
    assert!(stats.keys_after < stats.keys_before, "{stats:?}");
    assert!(stats.clip_bytes < stats.bytes, "{stats:?}");
    let file = tmp.path().join("humanoid.zoabake");
    std::fs::write(&file, &bytes).unwrap();
    let baked = zoa_animation::load_baked(&file).unwrap();
    assert_eq!(baked.clips().len(), folder.clips().len());

    let bound = bounds(folder.skeleton().skeleton(), &tol);
    let (events_a, poses_a) = play(&folder);
    let (events_b, poses_b) = play(&baked);
    assert!(!events_a.is_empty());
    assert_eq!(events_a, events_b);
    let mut worst = 0.0f32;
    for (frame, (a, b)) in poses_a.iter().zip(&poses_b).enumerate() {
        for (j, (pa, pb)) in a.iter().zip(b).enumerate() {
            let e = pa.distance(*pb);
            worst = worst.max(e);
            // Blends of two baked clips stay within the larger of their bounds;
            // IK on top follows the same targets.
            assert!(e <= bound[j] + 1e-5, "frame {frame} joint {j}: {e} m over {}", bound[j]);
        }
    }
    eprintln!("humanoid: keys {} -> {}, worst model-space error {worst:.3e} m", stats.keys_before, stats.keys_after);
}

#[test]
fn bad_baked_files_are_errors_naming_the_file() {
    let tmp = temp_dir("baked-bad");
    let (bytes, _) = Loader::new().bake(fixture("defs/humanoid"), &Tolerance::default()).unwrap();
    let cut = tmp.path().join("cut.zoabake");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    let err = zoa_animation::load_baked(&cut).unwrap_err();
    let LoadError::Baked { problem: Some(problem), .. } = &err else { panic!("{err}") };
    assert!(matches!(problem, zoa_animation::assets::baked::BakedProblem::Truncated { .. }), "{problem}");
    assert!(err.to_string().contains("cut.zoabake") && err.to_string().contains("truncated"), "{err}");

    let toml = fixture("defs/humanoid/clips/walk.toml");
    let err = zoa_animation::load_baked(&toml).unwrap_err();
    assert!(err.to_string().contains("not a baked character file"), "{err}");

    let missing = tmp.path().join("missing.zoabake");
    let err = zoa_animation::load_baked(&missing).unwrap_err();
    assert!(
        matches!(err, LoadError::Baked { problem: None, .. }) && err.to_string().contains("missing.zoabake"),
        "{err}"
    );
}

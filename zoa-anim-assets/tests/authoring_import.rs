//! Import: one clip definition per embedded animation, skip-on-reimport,
//! never overwrite, animation-only files matched to a skeleton by bone names.

mod scan_support;

use std::path::{Path, PathBuf};

use zoa_anim_assets::AssetError;
use zoa_anim_assets::authoring::import::{ImportAction, import_model, relative_path};
use zoa_anim_assets::defs::{Severity, load_folder};
use zoa_test_support::paths::{fixture, temp_dir};

fn humanoid() -> PathBuf {
    fixture("models/humanoid.glb")
}

/// A skinless `.gltf` + `.bin` animating one node called `bone` (an
/// animation-only export, like a Mixamo "without skin" download).
fn write_animation_only(dir: &Path, stem: &str, bone: &str) -> PathBuf {
    let mut bin = Vec::new();
    for t in [0.0f32, 1.0] {
        bin.extend_from_slice(&t.to_le_bytes());
    }
    for q in [[0.0f32, 0.0, 0.0, 1.0], [0.0, 0.0, 0.0, 1.0]] {
        for c in q {
            bin.extend_from_slice(&c.to_le_bytes());
        }
    }
    std::fs::write(dir.join(format!("{stem}.bin")), &bin).unwrap();
    let json = format!(
        r#"{{"asset":{{"version":"2.0"}},"scene":0,"scenes":[{{"nodes":[0]}}],
        "nodes":[{{"name":"{bone}"}}],
        "buffers":[{{"uri":"{stem}.bin","byteLength":40}}],
        "bufferViews":[{{"buffer":0,"byteOffset":0,"byteLength":8}},{{"buffer":0,"byteOffset":8,"byteLength":32}}],
        "accessors":[{{"bufferView":0,"componentType":5126,"count":2,"type":"SCALAR","min":[0.0],"max":[1.0]}},
                     {{"bufferView":1,"componentType":5126,"count":2,"type":"VEC4"}}],
        "animations":[{{"name":"Wave Hello","channels":[{{"sampler":0,"target":{{"node":0,"path":"rotation"}}}}],
                        "samplers":[{{"input":0,"output":1}}]}}]}}"#
    );
    let path = dir.join(format!("{stem}.gltf"));
    std::fs::write(&path, json).unwrap();
    path
}

#[test]
fn cuts_every_animation_and_reimport_skips_and_never_overwrites() {
    let tmp = temp_dir("import");
    let dir = tmp.path();
    let model = dir.join("models/humanoid.glb");
    std::fs::create_dir_all(model.parent().unwrap()).unwrap();
    std::fs::copy(humanoid(), &model).unwrap();
    let into = dir.join("defs/clips");
    let report = import_model(&model, Some(&into)).unwrap();
    assert_eq!(report.clips.len(), 14);
    assert_eq!(report.written(), 14);
    assert!(report.skeleton.is_none(), "a skinned model needs no match");
    let walk = std::fs::read_to_string(into.join("humanoid_walk.toml")).unwrap();
    assert!(walk.contains("kind = \"clip\"") && walk.contains("id = \"humanoid_walk\""));
    assert!(walk.contains("source = \"../../models/humanoid.glb\"") && walk.contains("animation = \"walk\""));
    assert!(
        walk.contains("rate = 1.0") && walk.contains("loop = true") && !walk.lines().any(|l| l.starts_with("notifies"))
    );
    let death = std::fs::read_to_string(into.join("humanoid_death.toml")).unwrap();
    assert!(death.contains("loop = false"), "death does not end on its first pose");

    let set = load_folder(&dir.join("defs"));
    assert!(set.diagnostics.iter().all(|d| d.severity != Severity::Error), "{:#?}", set.diagnostics);
    assert_eq!(set.clips.len(), 14);

    // Edit one, re-import: nothing written, the edit survives.
    std::fs::write(into.join("humanoid_walk.toml"), walk.replace("rate = 1.0", "rate = 1.5")).unwrap();
    let again = import_model(&model, Some(&into)).unwrap();
    assert_eq!(again.written(), 0);
    assert!(again.clips.iter().all(|c| c.action == ImportAction::SkippedExists));
    assert!(std::fs::read_to_string(into.join("humanoid_walk.toml")).unwrap().contains("rate = 1.5"));

    // A hand-named cut of the same animation counts as already cut.
    std::fs::remove_file(into.join("humanoid_idle.toml")).unwrap();
    std::fs::write(
        into.join("my_idle.toml"),
        "kind = \"clip\"\nid = \"my_idle\"\nsource = \"../../models/humanoid.glb\"\nanimation = \"idle\"\n",
    )
    .unwrap();
    let third = import_model(&model, Some(&into)).unwrap();
    let idle = third.clips.iter().find(|c| c.animation == "idle").unwrap();
    assert!(matches!(idle.action, ImportAction::SkippedAlreadyCut { .. }));
    assert_eq!(idle.id, "my_idle");
    assert!(!into.join("humanoid_idle.toml").exists());
}

#[test]
fn animation_only_file_is_matched_to_the_skeleton_sharing_bone_names() {
    let tmp = temp_dir("import-anim-only");
    let dir = tmp.path();
    std::fs::create_dir_all(dir.join("character")).unwrap();
    std::fs::copy(humanoid(), dir.join("character/hero.glb")).unwrap();
    let anim = write_animation_only(dir, "wave", "Hips");
    let report = import_model(&anim, None).unwrap();
    let m = report.skeleton.expect("matched");
    assert!(m.model.ends_with("character/hero.glb"));
    assert_eq!(m.shared_bones, 1);
    assert_eq!(report.clips[0].id, "wave_wave_hello");
    assert!(dir.join("wave_wave_hello.toml").is_file());
}

#[test]
fn animation_only_file_without_a_matching_skeleton_writes_nothing() {
    let tmp = temp_dir("import-no-match");
    let dir = tmp.path();
    std::fs::copy(humanoid(), dir.join("hero.glb")).unwrap();
    let anim = write_animation_only(dir, "tail", "TailBone_07");
    match import_model(&anim, None) {
        Err(AssetError::NoMatchingSkeleton { candidates, sample, .. }) => {
            assert!(candidates >= 1);
            assert!(sample.contains("TailBone_07"));
        }
        other => panic!("expected NoMatchingSkeleton, got {other:?}"),
    }
    let tomls = std::fs::read_dir(dir).unwrap().flatten().filter(|e| e.path().extension().is_some_and(|x| x == "toml"));
    assert_eq!(tomls.count(), 0);
}

#[test]
fn the_skeleton_search_never_climbs_above_the_folder_given() {
    // The skeleton sits beside the folder of the animation: not searched by default.
    let tmp = temp_dir("import-no-climb");
    let dir = tmp.path();
    std::fs::copy(humanoid(), dir.join("hero.glb")).unwrap();
    let anims = dir.join("anims");
    std::fs::create_dir_all(&anims).unwrap();
    let anim = write_animation_only(&anims, "wave", "Hips");
    match import_model(&anim, None) {
        Err(AssetError::NoMatchingSkeleton { candidates, .. }) => assert_eq!(candidates, 0),
        other => panic!("expected NoMatchingSkeleton, got {other:?}"),
    }
    // Naming the wider folder finds it.
    let report = zoa_anim_assets::authoring::import::import_model_with(&anim, None, Some(dir)).unwrap();
    assert!(report.skeleton.unwrap().model.ends_with("hero.glb"));
}

#[test]
fn the_skeleton_search_is_bounded_in_depth_and_file_count() {
    use zoa_anim_assets::authoring::import::{SKELETON_SEARCH_DEPTH, SKELETON_SEARCH_FILES};
    // A skeleton deeper than the depth bound is not found.
    let tmp = temp_dir("import-deep");
    let dir = tmp.path();
    let mut deep = dir.to_path_buf();
    for i in 0..=SKELETON_SEARCH_DEPTH {
        deep.push(format!("d{i}"));
    }
    std::fs::create_dir_all(&deep).unwrap();
    std::fs::copy(humanoid(), deep.join("hero.glb")).unwrap();
    let anim = write_animation_only(dir, "wave", "Hips");
    match import_model(&anim, None) {
        Err(AssetError::NoMatchingSkeleton { candidates, .. }) => assert_eq!(candidates, 0),
        other => panic!("expected NoMatchingSkeleton, got {other:?}"),
    }
    // One level up it is found.
    std::fs::rename(deep.join("hero.glb"), deep.parent().unwrap().join("hero.glb")).unwrap();
    assert!(import_model(&anim, None).unwrap().skeleton.is_some());

    // More model files than the file bound: a located error, nothing read or written.
    let tmp = temp_dir("import-many");
    let dir = tmp.path();
    let many = dir.join("many");
    std::fs::create_dir_all(&many).unwrap();
    for i in 0..=SKELETON_SEARCH_FILES {
        std::fs::write(many.join(format!("m{i:04}.glb")), b"").unwrap();
    }
    let anim = write_animation_only(dir, "wave", "Hips");
    match import_model(&anim, None) {
        Err(AssetError::OverBudget { count, max, .. }) => {
            assert_eq!(max, SKELETON_SEARCH_FILES as u64);
            assert!(count > max);
        }
        other => panic!("expected OverBudget, got {other:?}"),
    }
    let tomls = std::fs::read_dir(dir).unwrap().flatten().filter(|e| e.path().extension().is_some_and(|x| x == "toml"));
    assert_eq!(tomls.count(), 0);
}

#[test]
fn many_animations_with_one_name_get_unique_ids_in_one_pass() {
    let tmp = temp_dir("import-same-name");
    let dir = tmp.path();
    let model = dir.join("m.glb");
    std::fs::write(&model, b"").unwrap();
    let clips = scan_support::takes_named_alike(2000);
    let out = zoa_anim_assets::authoring::import::cut_clips(&model, &clips, &dir.join("defs")).unwrap();
    let ids: std::collections::HashSet<&str> = out.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids.len(), 2000);
    assert_eq!(out[0].id, "m_take_001");
    assert_eq!(out[1].id, "m_take_001_2");
    assert_eq!(out[1999].id, "m_take_001_2000");
}

#[test]
fn relative_paths_climb_and_descend() {
    let tmp = temp_dir("relpath");
    let dir = tmp.path();
    std::fs::create_dir_all(dir.join("a/b")).unwrap();
    std::fs::create_dir_all(dir.join("m")).unwrap();
    std::fs::write(dir.join("m/x.glb"), b"").unwrap();
    assert_eq!(relative_path(&dir.join("a/b"), &dir.join("m/x.glb")), "../../m/x.glb");
    assert_eq!(relative_path(&dir.join("m"), &dir.join("m/x.glb")), "x.glb");
}

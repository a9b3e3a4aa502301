//! Clip library scanner: facts per clip, skip rule, determinism, cache invalidation.

use std::path::PathBuf;

use zoa_anim_assets::authoring::scan::{CACHE_VERSION, ModelKind, ScanCache, discover, is_skipped_folder, scan_roots};
use zoa_test_support::gltf::model_kinds;
use zoa_test_support::paths::{fixture, shared_assets, temp_dir};

fn humanoid() -> PathBuf {
    fixture("models/humanoid.glb")
}

#[test]
fn humanoid_clip_facts() {
    let r = scan_roots(&[humanoid()]).unwrap();
    assert_eq!(r.files.len(), 1);
    let names: Vec<&str> = r.clips().map(|(_, c)| c.name.as_str()).collect();
    assert_eq!(names.len(), 14);
    let clip = |n: &str| r.clips().find(|(_, c)| c.name == n).unwrap().1.clone();
    // Cycles loop, one-shots that end elsewhere do not (generator docs).
    for n in ["idle", "walk", "run", "sprint", "crouch_idle", "crouch_walk", "fall", "rifle_aim"] {
        assert!(clip(n).loops, "{n} loops");
    }
    for n in ["death", "jump_start"] {
        assert!(!clip(n).loops, "{n} does not loop");
    }
    // Locomotion is in place; the death fall travels.
    assert_eq!(clip("walk").root_travel, 0.0);
    assert!(clip("death").root_travel > 0.1);
    // Hands move, feet do not.
    let reload = clip("reload");
    assert!(reload.arm_motion > 30.0 && reload.leg_motion < 1.0);
    assert!(clip("walk").leg_motion > 30.0);
    assert!((clip("walk").duration - 1.0).abs() < 1e-4);
    assert!(clip("walk").key_count > 0 && clip("walk").joints_animated > 10);
    // The animated node names (how an animation-only file finds its skeleton):
    // sorted, unique, and here all of them joints of the skin.
    let file = &r.files[0];
    assert!(file.animated.len() > 10 && file.animated.windows(2).all(|w| w[0] < w[1]));
    assert!(file.animated.iter().all(|n| file.bones.contains(n)), "{:?}", file.animated);
}

#[test]
fn skip_rule_and_deterministic_order() {
    let tmp = temp_dir("scan-order");
    let dir = tmp.path().to_path_buf();
    for rel in ["b/z.glb", "a/y.glb", "a/Samples/s.glb", "Preview/p.glb", ".git/g.glb", "c/x.GLB", "c/readme.txt"] {
        let p = dir.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::copy(humanoid(), &p).unwrap();
    }
    let found = discover(std::slice::from_ref(&dir)).unwrap();
    let rels: Vec<&str> = found.iter().map(|f| f.relative.as_str()).collect();
    assert_eq!(rels, ["a/y.glb", "b/z.glb", "c/x.GLB"]);
    assert!(is_skipped_folder("samples") && is_skipped_folder(".hidden") && !is_skipped_folder("anims"));
    // The same root twice lists each file once; two scans are identical.
    let twice = [dir.clone(), dir.clone()];
    let a = scan_roots(&twice).unwrap();
    let b = scan_roots(&twice).unwrap();
    assert_eq!(a.files.len(), 3);
    assert_eq!(a, b);
}

#[test]
fn cache_reuses_unchanged_files_and_rescans_changed_ones() {
    let tmp = temp_dir("scan-cache");
    let dir = tmp.path().to_path_buf();
    std::fs::copy(humanoid(), dir.join("one.glb")).unwrap();
    std::fs::copy(humanoid(), dir.join("two.glb")).unwrap();
    let roots = [dir.clone()];
    let mut cache = ScanCache::new();
    let first = cache.scan(&roots, |_, _| {}).unwrap();
    assert_eq!((cache.hits(), cache.misses()), (0, 2));
    let second = cache.scan(&roots, |_, _| {}).unwrap();
    assert_eq!((cache.hits(), cache.misses()), (2, 2));
    assert_eq!(first, second);
    // Change one file's size: only it is scanned again (and now fails to load).
    std::fs::write(dir.join("two.glb"), b"not a glb").unwrap();
    let mut progress = Vec::new();
    let third = cache.scan(&roots, |done, total| progress.push((done, total))).unwrap();
    assert_eq!((cache.hits(), cache.misses()), (3, 3));
    assert_eq!(progress, [(1, 2), (2, 2)]);
    assert!(third.files[1].error.is_some() && third.files[1].clips.is_empty());
    // Saved and loaded, the cache still hits.
    let cache_tmp = temp_dir("scan-cache-file");
    let path = cache_tmp.path().join("scan-cache.json");
    cache.save(&path).unwrap();
    let mut loaded = ScanCache::load(&path);
    let fourth = loaded.scan(&roots, |_, _| {}).unwrap();
    assert_eq!((loaded.hits(), loaded.misses()), (2, 0));
    assert_eq!(fourth, third);
}

#[test]
fn unreadable_root_is_an_error() {
    assert!(scan_roots(&[PathBuf::from("/definitely/not/here")]).is_err());
}

// ----- the cache file is not trusted ------------------------------

fn saved_cache(tag: &str) -> (tempfile::TempDir, PathBuf, Vec<PathBuf>) {
    let tmp = temp_dir(tag);
    let models = tmp.path().join("models");
    std::fs::create_dir_all(&models).unwrap();
    std::fs::copy(humanoid(), models.join("hero.glb")).unwrap();
    let roots = vec![models];
    let mut cache = ScanCache::new();
    cache.scan(&roots, |_, _| {}).unwrap();
    let path = tmp.path().join("scan-cache.json");
    cache.save(&path).unwrap();
    (tmp, path, roots)
}

#[test]
fn a_hand_edited_cache_entry_is_ignored_and_the_file_scanned_again() {
    let (_tmp, path, roots) = saved_cache("scan-cache-tamper");
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.starts_with("{\"format\":\"zoa-anim-scan-cache\""), "{}", &text[..80]);
    // Rename a clip in the body (the header's checksum no longer matches).
    let edited = text.replacen("\"walk\"", "\"ghost\"", 1);
    assert_ne!(edited, text);
    std::fs::write(&path, &edited).unwrap();
    let mut loaded = ScanCache::load(&path);
    let report = loaded.scan(&roots, |_, _| {}).unwrap();
    assert_eq!((loaded.hits(), loaded.misses()), (0, 1));
    assert!(report.clips().all(|(_, c)| c.name != "ghost"));
    assert!(report.clips().any(|(_, c)| c.name == "walk"));
    // Another version is ignored too.
    let current = format!("\"version\":{CACHE_VERSION}");
    assert!(text.contains(&current));
    std::fs::write(&path, text.replacen(&current, "\"version\":1", 1)).unwrap();
    let mut loaded = ScanCache::load(&path);
    loaded.scan(&roots, |_, _| {}).unwrap();
    assert_eq!(loaded.hits(), 0);
}

#[test]
fn save_replaces_only_a_scan_cache_and_never_follows_a_symlink() {
    let (tmp, path, _roots) = saved_cache("scan-cache-save");
    // Saving over its own cache is fine.
    ScanCache::new().save(&path).unwrap();
    // Any other file is left unchanged.
    let notes = tmp.path().join("notes.txt");
    std::fs::write(&notes, "precious").unwrap();
    let err = ScanCache::new().save(&notes).unwrap_err();
    assert!(matches!(err, zoa_anim_assets::AssetError::WouldOverwrite { .. }), "{err}");
    assert_eq!(std::fs::read_to_string(&notes).unwrap(), "precious");
    // A folder is not replaced either.
    assert!(ScanCache::new().save(tmp.path().join("models").as_path()).is_err());
    #[cfg(unix)]
    {
        // A planted symlink is replaced by the cache; its target is untouched.
        let link = tmp.path().join("link.json");
        std::os::unix::fs::symlink(&notes, &link).unwrap();
        ScanCache::new().save(&link).unwrap();
        assert_eq!(std::fs::read_to_string(&notes).unwrap(), "precious");
        assert!(!std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
    }
}

/// A skinned model, an animation-only export and a static prop, built from
/// the minimal document (skin and/or animations removed).
fn write_three_kinds(dir: &std::path::Path) {
    for (name, doc) in model_kinds() {
        std::fs::write(dir.join(name), doc.to_glb()).unwrap();
    }
}

#[test]
fn models_are_classified_skinned_animation_only_or_static() {
    let tmp = temp_dir("scan-kinds");
    write_three_kinds(tmp.path());
    let r = scan_roots(&[tmp.path().to_path_buf()]).unwrap();
    let kinds: Vec<(&str, ModelKind, usize)> =
        r.files.iter().map(|f| (f.stem.as_str(), f.kind, f.clips.len())).collect();
    assert_eq!(
        kinds,
        [("anim", ModelKind::AnimationOnly, 1), ("hat", ModelKind::Static, 0), ("skinned", ModelKind::Skinned, 1)]
    );
    assert!(r.failed().next().is_none());
}

#[test]
fn shared_assets_props_are_static_and_the_morph_cube_animation_only() {
    let Some(assets) = shared_assets() else { return };
    let r = scan_roots(&[assets]).unwrap();
    let kind = |stem: &str| r.files.iter().find(|f| f.stem == stem).unwrap_or_else(|| panic!("{stem} scanned")).kind;
    for prop in ["greenman_hat", "greenman_sword", "greenman_shield"] {
        assert_eq!(kind(prop), ModelKind::Static, "{prop}");
    }
    // Morph weights only, no skin: still an animation.
    assert_eq!(kind("AnimatedMorphCube"), ModelKind::AnimationOnly);
    for rig in ["greenman", "Fox", "CesiumMan", "RiggedFigure", "RiggedSimple", "SimpleSkin"] {
        assert_eq!(kind(rig), ModelKind::Skinned, "{rig}");
    }
}

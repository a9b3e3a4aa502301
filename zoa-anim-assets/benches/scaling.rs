//! Scaling of the paths that used to be quadratic: each runs at a
//! count and at ten times that count; linear (or n log n) code takes at most
//! about 15× longer at the larger count. Timings only — nothing here asserts
//! a duration.
//!
//! - `profile_rows_with_errors`: one animation profile whose every row has an
//!   error (the per-file error count was recounted per row).
//! - `files_naming_missing_parents`: one file per definition, each naming a
//!   parent that does not exist (every message listed and sorted every id).
//! - `cut_clips_same_name`: import of a model whose animations all have one
//!   name (each id was made unique by rescanning every earlier id).

#[path = "../tests/scan_support/mod.rs"]
mod scan_support;

fn main() {
    divan::main();
}

#[divan::bench(args = [1_000, 10_000], sample_count = 5, sample_size = 1)]
fn profile_rows_with_errors(bencher: divan::Bencher<'_, '_>, rows: usize) {
    let tmp = zoa_test_support::paths::temp_dir("scaling-rows");
    let mut text = String::from("kind = \"animation_profile\"\nid = \"p\"\n");
    for i in 0..rows {
        text.push_str(&format!("[[entries]]\nclip = \"c{i}\"\nweight = -1\n"));
    }
    std::fs::write(tmp.path().join("p.toml"), text).unwrap();
    bencher.bench(|| {
        let set = zoa_anim_assets::defs::load_folder(divan::black_box(tmp.path()));
        assert!(set.error_count() > 0);
    });
}

#[divan::bench(args = [1_500, 15_000], sample_count = 3, sample_size = 1)]
fn files_naming_missing_parents(bencher: divan::Bencher<'_, '_>, files: usize) {
    let tmp = zoa_test_support::paths::temp_dir("scaling-parents");
    for i in 0..files {
        let text = format!("kind = \"animation_profile\"\nid = \"p{i:05}\"\nparent = \"m{i:05}\"\n");
        std::fs::write(tmp.path().join(format!("f{i:05}.toml")), text).unwrap();
    }
    bencher.bench(|| {
        let set = zoa_anim_assets::defs::load_folder(divan::black_box(tmp.path()));
        assert_eq!(set.error_count(), files);
    });
}

#[divan::bench(args = [2_000, 20_000], sample_count = 3, sample_size = 1)]
fn cut_clips_same_name(bencher: divan::Bencher<'_, '_>, n: usize) {
    let clips = scan_support::takes_named_alike(n);
    let tmp = zoa_test_support::paths::temp_dir("scaling-import");
    let model = tmp.path().join("m.glb");
    std::fs::write(&model, b"").unwrap();
    let mut round = 0;
    bencher.bench_local(|| {
        // A fresh folder per sample: cutting into a folder that has the files is a skip.
        round += 1;
        let into = tmp.path().join(format!("defs{round}"));
        let out = zoa_anim_assets::authoring::import::cut_clips(&model, divan::black_box(&clips), &into).unwrap();
        assert_eq!(out.len(), n);
    });
}

//! `resolve_best_match` on 8-, 64- and 512-row tables, for an exact hit and
//! for the worst case (the only candidate matches at the last fallback step).
//!
//! Divide the median by the row count for ns per row; the resolver makes one
//! pass whatever the step, so "per attempt" equals "per pass" here.

use divan::{Bencher, black_box};
use zoa_anim_core::resolver::resolve_best_match;
use zoa_anim_core::{StateTagSet, TaggedClipEntry};

fn main() {
    divan::main();
}

const SIZES: [usize; 3] = [8, 64, 512];

/// Rows that never match `locomotion=walk` states, varied across dimensions.
fn filler(i: usize) -> TaggedClipEntry {
    let texts = [
        "locomotion=run posture=standing",
        "locomotion=sprint mood=calm",
        "locomotion=idle combat=armed_rifle|aiming",
        "locomotion=jump",
        "locomotion=run combat=armed_pistol reaction=hit",
        "locomotion=idle interaction=talking mood=calm",
        "locomotion=fall",
        "locomotion=sprint posture=crouching combat=armed_rifle",
    ];
    TaggedClipEntry::new(texts[i % texts.len()].parse().unwrap(), format!("clip{i}"))
}

fn table(n: usize, last: &str) -> Vec<TaggedClipEntry> {
    let mut rows: Vec<TaggedClipEntry> = (0..n - 1).map(filler).collect();
    rows.push(TaggedClipEntry::new(last.parse().unwrap(), "target"));
    rows
}

fn state() -> StateTagSet {
    "locomotion=walk posture=crouching combat=armed_rifle|aiming interaction=carrying reaction=hit mood=alert"
        .parse()
        .unwrap()
}

#[divan::bench(args = SIZES)]
fn exact_hit(bencher: Bencher<'_, '_>, n: usize) {
    let rows = table(n, "locomotion=walk posture=crouching combat=aiming");
    let s = state();
    assert_eq!(resolve_best_match(&rows, s).unwrap().step(), Some(0));
    bencher.bench_local(|| resolve_best_match(black_box(&rows), black_box(s)));
}

#[divan::bench(args = SIZES)]
fn last_fallback_step(bencher: Bencher<'_, '_>, n: usize) {
    let rows = table(n, "locomotion=walk posture=prone");
    let s = state();
    assert_eq!(resolve_best_match(&rows, s).unwrap().step(), Some(5));
    bencher.bench_local(|| resolve_best_match(black_box(&rows), black_box(s)));
}

#[divan::bench(args = SIZES)]
fn exact_hit_plain_rows(bencher: Bencher<'_, '_>, n: usize) {
    let rows: Vec<(StateTagSet, f32)> = table(n, "locomotion=walk posture=crouching combat=aiming")
        .iter()
        .map(|r| (r.to_pattern(), r.weight))
        .collect();
    let s = state();
    bencher.bench_local(|| resolve_best_match(black_box(&rows), black_box(s)));
}

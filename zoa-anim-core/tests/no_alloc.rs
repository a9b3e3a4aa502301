//! Proves the hot paths (resolve, with chooser columns and the random pick,
//! fallback walk, id comparison) allocate nothing.
//!
//! A counting global allocator wraps the system one; this file is its own test
//! binary so no other test's allocations interfere, and the test runs the
//! measured section on one thread.

use zoa_anim_core::fallback::walk;
use zoa_anim_core::resolver::{
    pick_in_best_group, resolve_at_exact_state, resolve_best_match, resolve_best_match_where,
};
use zoa_anim_core::{AnimationBindingId, DefaultBindings, StateTagSet, TaggedClipEntry};
use zoa_test_support::alloc::{CountingAllocator, allocations_during};

#[global_allocator]
static GLOBAL: CountingAllocator = CountingAllocator;

#[test]
fn resolve_walk_and_id_compare_allocate_nothing() {
    let texts = [
        "",
        "locomotion=idle",
        "locomotion=walk",
        "locomotion=run posture=standing",
        "locomotion=sprint mood=calm",
        "locomotion=walk posture=crouching combat=armed_rifle",
        "locomotion=idle combat=armed_rifle|aiming",
        "locomotion=run reaction=hit",
    ];
    let table: Vec<TaggedClipEntry> =
        texts.iter().map(|t| TaggedClipEntry::new(t.parse().unwrap(), format!("clip_{t}"))).collect();
    let states: Vec<StateTagSet> = [
        "locomotion=sprint posture=standing combat=armed_rifle|aiming mood=alert",
        "locomotion=walk posture=crouching combat=armed_rifle",
        "locomotion=swim",
    ]
    .iter()
    .map(|s| s.parse().unwrap())
    .collect();
    let runtime_id = AnimationBindingId::new("fire").unwrap();

    let mut sink = 0usize;
    let count = allocations_during(|| {
        for _ in 0..100 {
            for s in &states {
                sink += resolve_best_match(&table, *s).map_or(0, |r| r.row);
                sink += resolve_at_exact_state(&table, *s).map_or(0, |r| r.row);
                // Chooser columns (every other row needs one) and the random pick.
                let admit = |i: usize| i.is_multiple_of(2).then_some(1);
                if let Some(best) = resolve_best_match_where(&table, *s, admit) {
                    sink += pick_in_best_group(&table, *s, admit, best, 0.7);
                }
                for step in walk(*s) {
                    sink += step.state.specificity() as usize;
                }
            }
            sink += usize::from(runtime_id == DefaultBindings::FIRE);
        }
    });
    assert!(sink > 0);
    assert_eq!(count, 0, "the resolve path allocated {count} times");
}

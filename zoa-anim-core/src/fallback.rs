//! The fallback walker: the fixed, progressively relaxed chain a resolver
//! tries when the active state matches no authored row exactly.
//!
//! Relax order is exactly **Mood, Reaction, Combat, Interaction, Posture**,
//! cumulative (step 1 clears Mood, step 2 also Reaction, …). Locomotion is
//! never cleared: a sprinting entity must fall back to some sprinting clip
//! rather than degenerate into an idle.
//!
//! The order is this list, not the dimensions' declaration order
//! (Interaction is declared before Reaction, yet relaxed after it); this is
//! the one place it is written down.
//!
//! ```
//! use zoa_anim_core::{StateTagSet, fallback::{walk, RELAX_STEP_COUNT}};
//! let active: StateTagSet = "locomotion=sprint combat=aiming mood=alert".parse().unwrap();
//! let chain: Vec<_> = walk(active).collect();
//! assert_eq!(chain.len(), RELAX_STEP_COUNT);
//! assert_eq!(chain[0].state.to_string(), "locomotion=sprint combat=aiming");
//! assert_eq!(chain[2].state.to_string(), "locomotion=sprint");
//! ```

use crate::tags::{DimensionSet, StateDimension, StateTagSet};

/// Number of relaxation steps after the exact attempt.
pub const RELAX_STEP_COUNT: usize = 5;

/// The dimension cleared at each step, in order.
pub const RELAX_ORDER: [StateDimension; RELAX_STEP_COUNT] = [
    StateDimension::Mood,
    StateDimension::Reaction,
    StateDimension::Combat,
    StateDimension::Interaction,
    StateDimension::Posture,
];

/// Dimensions relaxed (cleared, and ignored on patterns) at step `k`
/// (0 = exact, nothing relaxed; 5 = everything but Locomotion).
///
/// # Panics
/// Debug-asserts `k <= RELAX_STEP_COUNT`; larger values saturate.
#[must_use]
pub const fn relaxed_at(step: usize) -> DimensionSet {
    debug_assert!(step <= RELAX_STEP_COUNT);
    let mut set = DimensionSet::EMPTY;
    let mut i = 0;
    while i < step && i < RELAX_STEP_COUNT {
        set = set.with(RELAX_ORDER[i]);
        i += 1;
    }
    set
}

/// One element of the relaxed chain.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FallbackStep {
    /// 1-based step number (1 ..= [`RELAX_STEP_COUNT`]).
    pub step: usize,
    /// The active state with the relaxed dimensions cleared.
    pub state: StateTagSet,
    /// Every dimension relaxed so far (cumulative).
    pub relaxed: DimensionSet,
}

/// Value-type iterator over the relaxed chain; allocation-free.
#[derive(Debug, Clone, Copy)]
pub struct FallbackWalk {
    active: StateTagSet,
    next: usize,
}

impl Iterator for FallbackWalk {
    type Item = FallbackStep;

    #[inline]
    fn next(&mut self) -> Option<FallbackStep> {
        if self.next >= RELAX_STEP_COUNT {
            return None;
        }
        self.next += 1;
        let relaxed = relaxed_at(self.next);
        Some(FallbackStep { step: self.next, state: self.active.without_all(relaxed), relaxed })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = RELAX_STEP_COUNT - self.next;
        (left, Some(left))
    }
}

impl ExactSizeIterator for FallbackWalk {}

/// Starts the relaxed chain for `active`. Always yields
/// [`RELAX_STEP_COUNT`] steps, even when a step clears an already-empty
/// dimension: the resolver also ignores relaxed dimensions on patterns, so
/// every step can admit new rows.
#[must_use]
pub const fn walk(active: StateTagSet) -> FallbackWalk {
    FallbackWalk { active, next: 0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relax_order_is_cumulative_and_never_touches_locomotion() {
        let all: StateTagSet =
            "locomotion=run posture=crouching combat=aiming interaction=carrying reaction=hit mood=calm"
                .parse()
                .unwrap();
        let chain: Vec<_> = walk(all).collect();
        let expected = [
            "locomotion=run posture=crouching combat=aiming interaction=carrying reaction=hit",
            "locomotion=run posture=crouching combat=aiming interaction=carrying",
            "locomotion=run posture=crouching interaction=carrying",
            "locomotion=run posture=crouching",
            "locomotion=run",
        ];
        for (i, step) in chain.iter().enumerate() {
            assert_eq!(step.step, i + 1);
            assert_eq!(step.state.to_string(), expected[i]);
            assert!(!step.relaxed.contains(StateDimension::Locomotion));
        }
        assert_eq!(relaxed_at(0), DimensionSet::EMPTY);
        assert_eq!(relaxed_at(5).to_string(), "posture,combat,interaction,reaction,mood");
    }
}

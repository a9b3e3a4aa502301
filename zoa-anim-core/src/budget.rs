//! The budget model for evaluation work: every limit a file, a flag or a
//! request can push against, named once, with the cost model that estimates
//! a job before it starts.
//!
//! The command line (`zoa-anim preview`, `validate`), the Workbench (the
//! Preview Lab, coverage) and the runtime's set-up (`CharacterDefinition`,
//! blend trees, graphs) check the same [`Limit`]s, so whatever `validate`
//! accepts the runtime plays, and a request the Workbench would refuse the
//! command line refuses with the same words.
//!
//! A check happens **before** the work (nothing that size is allocated first)
//! and fails with an [`OverBudget`] naming the limit, its value and what the
//! work would have needed.
//!
//! # Cost model of a preview run
//!
//! A preview (CLI `preview`, the Workbench's Preview Lab) records one tick
//! per `1 / rate` seconds; each tick keeps a fixed record, one value per
//! binding, a few states per graph layer and one position per joint, and the
//! exports (JSON, CSV, the Lab's page data) write each of those as text.
//! [`PreviewWork::bytes`] is that sum with the per-item costs measured on the
//! fixture humanoid (about 1.3 KiB a tick with 2 bindings and 24 joints,
//! exports included) and on a 1,000-joint rig in the Lab (about 44 bytes a
//! joint a tick: the capture's 12 and the page's text).

use std::fmt;

/// One named limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limit {
    /// Stable name (`preview.capture_bytes`), used in errors and in
    /// ARCHITECTURE.md's budgets table.
    pub name: &'static str,
    /// The largest value allowed.
    pub max: u64,
    /// What is counted (`bytes`, `ticks`, `children`, …).
    pub unit: &'static str,
}

impl Limit {
    /// `Ok` when `needed` fits, else an [`OverBudget`] for `what`.
    ///
    /// # Errors
    /// When `needed > self.max`.
    pub fn check(&'static self, what: impl Into<String>, needed: u64) -> Result<(), OverBudget> {
        if needed <= self.max { Ok(()) } else { Err(OverBudget { limit: self, needed, what: what.into() }) }
    }
}

/// Work refused before it started: it needs more than a limit allows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OverBudget {
    /// The limit.
    pub limit: &'static Limit,
    /// What the work would need, in the limit's unit.
    pub needed: u64,
    /// What was refused (`preset \`walk\` at 1000 Hz`).
    pub what: String,
}

impl fmt::Display for OverBudget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let l = self.limit;
        let (needed, max, unit) = if l.unit == "bytes" && l.max >= 1 << 20 {
            (format!("{} MiB", self.needed.div_ceil(1 << 20)), format!("{} MiB", l.max >> 20), "")
        } else {
            (self.needed.to_string(), l.max.to_string(), l.unit)
        };
        let sep = if unit.is_empty() { "" } else { " " };
        write!(f, "{} needs {needed}{sep}{unit}; the budget `{}` is {max}{sep}{unit}", self.what, l.name)
    }
}

impl std::error::Error for OverBudget {}

/// Most ticks one preview records (the capture is reserved up front).
pub const PREVIEW_TICKS: Limit = Limit { name: "preview.ticks", max: 200_000, unit: "ticks" };

/// Most keys (samples × target joints) a clip bound by bone role is baked
/// into when a character definition is compiled: 4 Mi keys, 64 MiB of rotations.
pub const RETARGET_KEYS: Limit = Limit { name: "retarget.keys", max: 4 << 20, unit: "keys" };

/// Largest capture `zoa-anim preview` builds (records and exports), estimated
/// by [`PreviewWork::bytes`].
pub const PREVIEW_CAPTURE_BYTES: Limit = Limit { name: "preview.capture_bytes", max: 256 << 20, unit: "bytes" };

/// Largest run the Workbench's Preview Lab builds for the page (capture plus
/// the page's data), estimated by [`PreviewWork::lab_bytes`]. The server runs
/// at most two jobs at once, so two runs stay well under its 1 GiB.
pub const LAB_RUN_BYTES: Limit = Limit { name: "lab.run_bytes", max: 128 << 20, unit: "bytes" };

/// Most ticks one Preview Lab run sends to the page.
pub const LAB_TICKS: Limit = Limit { name: "lab.ticks", max: 20_000, unit: "ticks" };

/// Most children of one blend tree (checked by `validate` and by the
/// runtime's set-up; a 2D gradient-band tree's set-up is quadratic in it,
/// its evaluation linear).
pub const BLEND_TREE_CHILDREN: Limit = Limit { name: "blend_tree.children", max: 4096, unit: "children" };

/// Most notify windows one clip carries (checked by `validate` and the
/// runtime's set-up): a playing clip's open windows are one 64-bit set, so
/// following them costs no allocation and one word per notify source.
pub const CLIP_WINDOWS: Limit = Limit { name: "clip.windows", max: 64, unit: "windows" };

/// Largest speed multiplier (a state's `speed`, a slot's `speed`, a clip's
/// `rate`, a profile row's `speed`): above it one frame of a character's
/// clock would step over whole clips, and at `3.4e38` it overflows to
/// infinity. `validate` refuses it; the runtime's set-up refuses it too.
pub const MAX_SPEED: f32 = 1000.0;

/// The work of one preview run, for its budget checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PreviewWork {
    /// Ticks recorded.
    pub ticks: u64,
    /// Joints of the skeleton.
    pub joints: u64,
    /// Graph layers (each records its active states per tick).
    pub layers: u64,
    /// Binding columns.
    pub bindings: u64,
    /// Each tick also records the local transform of every joint.
    pub local: bool,
}

impl PreviewWork {
    /// Estimated bytes of the capture and its exports (see the module docs).
    #[must_use]
    pub fn bytes(&self) -> u64 {
        self.ticks.saturating_mul(self.bytes_per_tick())
    }

    /// Estimated bytes one tick costs in the capture and its exports.
    #[must_use]
    pub fn bytes_per_tick(&self) -> u64 {
        let local = if self.local { 256 * self.joints } else { 0 };
        1024 + 16 * (self.bindings + self.joints) + 64 * self.layers + local
    }

    /// Estimated bytes of a Preview Lab run: the capture and the page's data
    /// (per tick about 32 bytes of text a joint, 48 a binding, 96 a layer).
    #[must_use]
    pub fn lab_bytes(&self) -> u64 {
        let page = 512 + 32 * self.joints + 48 * self.bindings + 96 * self.layers;
        self.ticks.saturating_mul(self.bytes_per_tick().saturating_add(page))
    }

    /// Checks a `zoa-anim preview` run against [`PREVIEW_TICKS`] and
    /// [`PREVIEW_CAPTURE_BYTES`].
    ///
    /// # Errors
    /// The first limit it exceeds.
    pub fn check_cli(&self, what: &str) -> Result<(), OverBudget> {
        PREVIEW_TICKS.check(what, self.ticks)?;
        PREVIEW_CAPTURE_BYTES.check(what, self.bytes())
    }

    /// Checks a Preview Lab run against [`LAB_TICKS`] and [`LAB_RUN_BYTES`].
    ///
    /// # Errors
    /// The first limit it exceeds.
    pub fn check_lab(&self, what: &str) -> Result<(), OverBudget> {
        LAB_TICKS.check(what, self.ticks)?;
        LAB_RUN_BYTES.check(what, self.lab_bytes())
    }

    /// The most ticks that fit `limit` (bytes) with this rig, for messages.
    #[must_use]
    pub fn ticks_within(&self, limit: &Limit, lab: bool) -> u64 {
        let one = PreviewWork { ticks: 1, ..*self };
        let per = if lab { one.lab_bytes() } else { one.bytes() };
        limit.max / per.max(1)
    }
}

/// Every limit, for documentation and tests.
pub const ALL: [&Limit; 7] = [
    &PREVIEW_TICKS,
    &PREVIEW_CAPTURE_BYTES,
    &LAB_RUN_BYTES,
    &LAB_TICKS,
    &BLEND_TREE_CHILDREN,
    &RETARGET_KEYS,
    &CLIP_WINDOWS,
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_over_budget_error_names_the_limit_its_value_and_the_need() {
        let work = PreviewWork { ticks: 3_000_001, joints: 24, layers: 2, bindings: 2, local: false };
        let e = work.check_cli("preset `long` at 1000 Hz").unwrap_err();
        assert_eq!(e.limit.name, "preview.ticks");
        assert_eq!(
            e.to_string(),
            "preset `long` at 1000 Hz needs 3000001 ticks; the budget `preview.ticks` is 200000 ticks"
        );
        let work = PreviewWork { ticks: 20_000, joints: 1000, layers: 2, bindings: 2, local: false };
        let e = work.check_lab("preset `p`").unwrap_err();
        assert!(e.to_string().contains("MiB; the budget `lab.run_bytes` is 128 MiB"), "{e}");
        assert!(work.ticks_within(&LAB_RUN_BYTES, true) < 20_000);
    }

    #[test]
    fn the_fixture_humanoid_fits_both_budgets_at_the_default_rate() {
        // hit_and_die-like: a few seconds at 30 Hz on 24 joints.
        let work = PreviewWork { ticks: 300, joints: 24, layers: 2, bindings: 6, local: true };
        assert!(work.check_cli("p").is_ok() && work.check_lab("p").is_ok());
        let names: Vec<&str> = ALL.iter().map(|l| l.name).collect();
        let mut sorted = names.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), names.len(), "names are unique");
    }
}

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
//! binding, a few states per graph layer, every input of the composed pose
//! (at most [`PreviewWork::contributions`]), its sound cues and IK goals (a
//! few each) and one position per joint, and the exports (JSON, CSV, the
//! Lab's page data) write each of those as text. [`PreviewWork::bytes`] is
//! that sum with the per-item costs measured on the fixture humanoid (about
//! 1.3 KiB a tick with 2 bindings and 24 joints before the pose inputs,
//! sounds and IK were recorded; a pose input costs about 300 bytes of JSON
//! and CSV, an IK goal about 200, exports included) and on a 1,000-joint rig
//! in the Lab (about 44 bytes a joint a tick: the capture's 12 and the
//! page's text), plus the decoded sound bank (4 bytes a sample) once.

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

/// Most sub-state machines one state may be nested in.
pub const STATE_MACHINE_DEPTH: Limit = Limit { name: "graph.machine_depth", max: 8, unit: "machines" };

/// Most chooser columns (value ranges) one clip-table row may require.
pub const CHOOSER_COLUMNS: Limit = Limit { name: "chooser.columns", max: 8, unit: "ranges" };

/// Most blend trees nested in one state's motion, counting the outermost
/// (a child of a tree may be a tree in turn; `validate` and the runtime's set-up).
pub const BLEND_TREE_DEPTH: Limit = Limit { name: "blend_tree.depth", max: 4, unit: "levels" };

/// Most decoded sound samples a preview loads to play the character's sound
/// profile (the sound files of a folder over it play no sound in the
/// preview, which says why).
pub const PREVIEW_SOUND_SAMPLES: Limit = Limit { name: "preview.sound_samples", max: 8 << 20, unit: "samples" };

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

/// Most chains one rig policy declares (`[[chains]]`): each character of
/// the policy carries a fixed array of this many chain targets in its IK
/// inputs, and solves each chain every frame. `validate` refuses more; the IK
/// set-up compiles only this many.
pub const IK_CHAINS: Limit = Limit { name: "ik.chains", max: 8, unit: "chains" };

/// Most joints of one IK chain, root and tip included: a chain solve keeps
/// per-joint scratch on the stack, and its cost per frame grows with
/// joints × iterations. The IK set-up compiles a longer chain out (and says so).
pub const IK_CHAIN_JOINTS: Limit = Limit { name: "ik.chain_joints", max: 32, unit: "joints" };

/// Most solver sweeps of one IK chain per frame (a chain's `iterations`).
pub const IK_CHAIN_ITERATIONS: Limit = Limit { name: "ik.chain_iterations", max: 64, unit: "iterations" };

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
    /// Most inputs the composed pose can have in one tick (every graph
    /// layer's active states × their blend-tree children, twice during a
    /// loadout switch, the selector's clips, the slot, the procedural layer).
    pub contributions: u64,
    /// Decoded samples of the sound bank the preview plays (0 without sound).
    pub sound_samples: u64,
}

/// Bytes one recorded pose input costs a tick, exports included.
const CONTRIBUTION_BYTES: u64 = 320;
/// Bytes a tick's sound cues and IK goals cost (at most seven goals of about
/// 200 bytes, a cue or two), exports included.
const SOUND_AND_IK_BYTES: u64 = 1792;

impl PreviewWork {
    /// Estimated bytes of the capture and its exports, and of the decoded
    /// sound bank (see the module docs).
    #[must_use]
    pub fn bytes(&self) -> u64 {
        self.ticks.saturating_mul(self.bytes_per_tick()).saturating_add(self.sound_bytes())
    }

    /// Estimated bytes one tick costs in the capture and its exports.
    #[must_use]
    pub fn bytes_per_tick(&self) -> u64 {
        let local = if self.local { 256 * self.joints } else { 0 };
        let inputs = CONTRIBUTION_BYTES.saturating_mul(self.contributions);
        (1024 + SOUND_AND_IK_BYTES + 16 * (self.bindings + self.joints) + 64 * self.layers + local)
            .saturating_add(inputs)
    }

    /// Bytes of the decoded sound bank (4 a sample).
    #[must_use]
    pub fn sound_bytes(&self) -> u64 {
        self.sound_samples.saturating_mul(4)
    }

    /// Estimated bytes of a Preview Lab run: the capture, the page's data
    /// (per tick about 32 bytes of text a joint, 48 a binding, 96 a layer,
    /// 96 a pose input) and the sound bank.
    #[must_use]
    pub fn lab_bytes(&self) -> u64 {
        let page = (512 + 32 * self.joints + 48 * self.bindings + 96 * self.layers)
            .saturating_add(96u64.saturating_mul(self.contributions));
        self.ticks.saturating_mul(self.bytes_per_tick().saturating_add(page)).saturating_add(self.sound_bytes())
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
        let one = PreviewWork { ticks: 1, sound_samples: 0, ..*self };
        let per = if lab { one.lab_bytes() } else { one.bytes() };
        limit.max.saturating_sub(self.sound_bytes()) / per.max(1)
    }
}

/// Every limit, for documentation and tests.
pub const ALL: [&Limit; 14] = [
    &PREVIEW_TICKS,
    &PREVIEW_CAPTURE_BYTES,
    &PREVIEW_SOUND_SAMPLES,
    &LAB_RUN_BYTES,
    &LAB_TICKS,
    &BLEND_TREE_CHILDREN,
    &BLEND_TREE_DEPTH,
    &RETARGET_KEYS,
    &CHOOSER_COLUMNS,
    &STATE_MACHINE_DEPTH,
    &IK_CHAINS,
    &IK_CHAIN_JOINTS,
    &IK_CHAIN_ITERATIONS,
    &CLIP_WINDOWS,
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_over_budget_error_names_the_limit_its_value_and_the_need() {
        let work = PreviewWork { ticks: 3_000_001, joints: 24, layers: 2, bindings: 2, ..PreviewWork::default() };
        let e = work.check_cli("preset `long` at 1000 Hz").unwrap_err();
        assert_eq!(e.limit.name, "preview.ticks");
        assert_eq!(
            e.to_string(),
            "preset `long` at 1000 Hz needs 3000001 ticks; the budget `preview.ticks` is 200000 ticks"
        );
        let work = PreviewWork { ticks: 20_000, joints: 1000, layers: 2, bindings: 2, ..PreviewWork::default() };
        let e = work.check_lab("preset `p`").unwrap_err();
        assert!(e.to_string().contains("MiB; the budget `lab.run_bytes` is 128 MiB"), "{e}");
        assert!(work.ticks_within(&LAB_RUN_BYTES, true) < 20_000);
    }

    #[test]
    fn the_fixture_humanoid_fits_both_budgets_at_the_default_rate() {
        // hit_and_die-like: a few seconds at 30 Hz on 24 joints.
        let work = PreviewWork {
            ticks: 300,
            joints: 24,
            layers: 2,
            bindings: 6,
            local: true,
            contributions: 40,
            sound_samples: 200_000,
        };
        assert!(work.check_cli("p").is_ok() && work.check_lab("p").is_ok());
        let names: Vec<&str> = ALL.iter().map(|l| l.name).collect();
        let mut sorted = names.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), names.len(), "names are unique");
    }

    #[test]
    fn pose_inputs_and_the_sound_bank_count_against_the_budgets() {
        let plain = PreviewWork { ticks: 10_000, joints: 60, layers: 4, bindings: 4, ..PreviewWork::default() };
        assert!(plain.check_lab("p").is_ok(), "{}", plain.lab_bytes() >> 20);
        // A graph whose blend trees can weight thousands of clips at once records each every tick.
        let wide = PreviewWork { contributions: 4_096, ..plain };
        assert_eq!(wide.check_lab("p").unwrap_err().limit.name, "lab.run_bytes");
        assert_eq!(wide.bytes() - plain.bytes(), 10_000 * 4_096 * CONTRIBUTION_BYTES);
        // The decoded sound bank counts once, not per tick.
        let loud = PreviewWork { sound_samples: 1 << 20, ..plain };
        assert_eq!(loud.bytes() - plain.bytes(), 4 << 20);
        assert!(loud.ticks_within(&LAB_RUN_BYTES, true) < plain.ticks_within(&LAB_RUN_BYTES, true));
    }
}

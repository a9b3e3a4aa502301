//! Integration tests of `zoa-anim-ik`, one module per concern.

mod common;

/// Solvers on a real skeleton: exact reach, lengths, weights, cone, speed, foot plant.
mod solvers;

/// Property tests: random targets and degenerate rigs never produce NaN; lengths hold.
mod properties;

/// Chain IK: reach, limits, continuity, weight, degenerate input; chains from a rig policy.
mod chain;

/// The rig-policy pass and the IK pose service working together.
mod rig;

/// Discovery on the fixture humanoid; the rig pass on real skeletons from the shared assets.
mod assets;

/// Discovery on hand-built skeletons: naming basics, unnamed legs, overrides.
mod discovery;

/// Discovery on real naming schemes (Mixamo, Unreal, Rigify, Quaternius, Daz): roles, rejections, leg tips.
mod schemes;

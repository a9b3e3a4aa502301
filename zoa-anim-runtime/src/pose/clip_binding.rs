//! Binding a clip authored on another skeleton: by joint name, or by bone
//! role with the clip baked onto the target skeleton.
//!
//! # Terminology
//! - *source skeleton*: the rig the clip was authored on (its file's first
//!   skin, else every node of that file).
//! - *target skeleton*: the character's.
//! - *animated joints*: source joints some track of the clip animates.
//! - *bake*: the clip sampled on the source skeleton at every key time (and
//!   at least [`BAKE_RATE`] times a second), each sample retargeted with
//!   [`RetargetMode::RestCorrected`], stored as linear keys of the target's
//!   joints.
//!
//! ```text
//!  Clip (source nodes) ──plan──▶ Node | Name ──────────────────────▶ Animation::bind
//!                          └───▶ Role ──bake (Retargeter per key)──▶ Clip (target nodes) ──▶ Animation::bind
//! ```
//!
//! Baking happens once, when a character definition is compiled; playing a
//! clip bound by role costs what any clip costs, and the one pose pipeline
//! samples it like the others. The baked keys equal
//! [`Retargeter::run`] on the source pose at each sample time (exactly, up to
//! float rounding); between samples they are slerped, where retargeting
//! the slerped source pose would compose the slerps through the hierarchy.
//! The sample rate bounds that difference (a 30 Hz grid keeps it far below
//! a degree for human motion); clips keyed densely gain no extra samples.

use zoa_anim_core::budget::{self, OverBudget};
use zoa_anim_core::glam::Quat;
use zoa_anim_core::{Clip, ClipBinding, Interpolation, Skeleton, Track, TrackProperty};
use zoa_anim_ik::BoneRoles;

use crate::error::RuntimeError;
use crate::pose::animation::{Animation, BindBy, SamplingContext, SamplingJob};
use crate::pose::retarget::{MatchedBy, RetargetMode, Retargeter};
use crate::pose::{Pose, RuntimeSkeleton};

/// Fewest samples per second a clip bound by role is baked with (its own key
/// times are always sampled too).
pub const BAKE_RATE: f32 = 30.0;

/// How a clip was bound to a character's skeleton: what `validate` and
/// [`crate::CharacterDefinition::clip_binding`] report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClipBindingPlan {
    /// A clip of the character's own model: tracks bind by glTF node index.
    Node,
    /// By joint name.
    Name {
        /// Animated joints of the clip with a namesake in the target skeleton.
        matched: usize,
        /// Animated joints of the clip.
        animated: usize,
    },
    /// By bone role, baked onto the target skeleton.
    Role {
        /// Target joints paired with a source joint by role.
        by_role: usize,
        /// Target joints paired by name (joints no role covers).
        by_name: usize,
        /// Animated joints of the clip with a namesake in the target skeleton.
        matched: usize,
        /// Animated joints of the clip.
        animated: usize,
    },
}

impl ClipBindingPlan {
    /// Whether the clip is baked by role.
    #[must_use]
    pub const fn is_role(self) -> bool {
        matches!(self, ClipBindingPlan::Role { .. })
    }
}

impl std::fmt::Display for ClipBindingPlan {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            ClipBindingPlan::Node => f.write_str("by glTF node (the character's own model)"),
            ClipBindingPlan::Name { matched, animated } => {
                write!(f, "by joint name ({matched} of its {animated} animated joints have a namesake)")
            }
            ClipBindingPlan::Role { by_role, by_name, matched, animated } => write!(
                f,
                "by bone role: {by_role} joints pair by role and {by_name} by name ({matched} of the \
                 {animated} joints it animates have a namesake)"
            ),
        }
    }
}

/// A clip's binding decided against a target skeleton, with the retargeter
/// when it binds by role.
#[derive(Debug, Clone)]
pub struct PlannedBinding {
    /// The decision.
    pub plan: ClipBindingPlan,
    /// The joint map (source → target) of a clip bound by role.
    pub retargeter: Option<Retargeter>,
}

/// Decides how `clip` binds to `target` (whose bones `target_roles` found).
///
/// - No `source`: the clip comes from the target's own model ([`ClipBindingPlan::Node`]).
/// - [`ClipBinding::Name`]: by name.
/// - [`ClipBinding::Role`]: by role; an error when either rig's hips are not
///   found (nothing anchors the retargeted pose).
/// - [`ClipBinding::Auto`]: by name when at least half of the clip's
///   animated joints have a namesake in `target` (or the clip animates no
///   joint); else by role when both rigs' hips are found; else by name.
///
/// # Errors
/// [`RuntimeError::InvalidJob`] when `binding` is `Role` and a rig's hips are
/// not found.
pub fn plan_binding(
    clip: &Clip,
    binding: ClipBinding,
    source: Option<&Skeleton>,
    target: &Skeleton,
    target_roles: &BoneRoles,
) -> Result<PlannedBinding, RuntimeError> {
    let Some(source) = source else { return Ok(PlannedBinding { plan: ClipBindingPlan::Node, retargeter: None }) };
    let animated = animated_joints(clip, source);
    let matched = animated
        .iter()
        .filter(|&&j| {
            let name = source.joints()[j].name.as_deref();
            name.is_some_and(|n| target.find(n).is_some())
        })
        .count();
    let by_name =
        PlannedBinding { plan: ClipBindingPlan::Name { matched, animated: animated.len() }, retargeter: None };
    let wants_role = match binding {
        ClipBinding::Name => return Ok(by_name),
        ClipBinding::Role => true,
        ClipBinding::Auto => !animated.is_empty() && matched * 2 < animated.len(),
    };
    if !wants_role {
        return Ok(by_name);
    }
    let source_roles = BoneRoles::discover(source);
    if source_roles.hips.is_none() || target_roles.hips.is_none() {
        if binding == ClipBinding::Auto {
            return Ok(by_name);
        }
        let which = if source_roles.hips.is_none() { source.name() } else { target.name() };
        return Err(RuntimeError::InvalidJob {
            job: "clip binding by role",
            reasons: vec![format!("bone discovery finds no hips on skeleton `{which}`")],
        });
    }
    let retargeter = Retargeter::by_role(source, &source_roles, target, target_roles, RetargetMode::RestCorrected);
    let by_role = retargeter.pairs().iter().filter(|p| matches!(p.by, MatchedBy::Role(_))).count();
    let by_name = retargeter.mapped_count() - by_role;
    let plan = ClipBindingPlan::Role { by_role, by_name, matched, animated: animated.len() };
    Ok(PlannedBinding { plan, retargeter: Some(retargeter) })
}

/// Source joints some track of `clip` animates, in joint order.
fn animated_joints(clip: &Clip, source: &Skeleton) -> Vec<usize> {
    let mut joints: Vec<usize> = clip.tracks().iter().filter_map(|t| source.find_node(t.node)).collect();
    joints.sort_unstable();
    joints.dedup();
    joints
}

/// `clip` (authored on `source`) baked onto `target` through `retargeter`
/// (built by [`plan_binding`] or [`Retargeter::by_role`] in
/// [`RetargetMode::RestCorrected`]): one linear rotation track per paired
/// target joint and a translation track for the hips, sampled at every key
/// time of the clip and on a [`BAKE_RATE`] grid. Morph-weight tracks do not
/// carry over (the target has other meshes). Set-up work: allocates.
///
/// # Errors
/// When the retargeter was built for other skeletons, or the bake would hold
/// more keys than [`budget::RETARGET_KEYS`].
pub fn bake_by_role(
    clip: &Clip,
    source: &Skeleton,
    retargeter: &Retargeter,
    target: &Skeleton,
) -> Result<Clip, RuntimeError> {
    let on_source = |t: &&Track| source.find_node(t.node).is_some();
    let key_times: u64 = clip.tracks().iter().filter(on_source).map(|t| t.times.len() as u64).sum();
    let grid = grid_steps(clip);
    let pairs = retargeter.pairs();
    let hips = retargeter.hips_joint();
    let keys = (key_times + grid + 1).saturating_mul(pairs.len() as u64 + u64::from(hips.is_some()));
    budget::RETARGET_KEYS
        .check(format!("baking clip `{}` onto skeleton `{}` by role", clip.name(), target.name()), keys)
        .map_err(over_budget)?;
    let mut times: Vec<f32> = clip.tracks().iter().filter(on_source).flat_map(|t| t.times.iter().copied()).collect();
    let (start, end) = (clip.start(), clip.duration());
    times.extend((0..=grid).map(|i| (start + (end - start) * (i as f64 / grid.max(1) as f64) as f32).min(end)));
    times.sort_by(f32::total_cmp);
    times.dedup_by(|a, b| (*a - *b).abs() <= 1e-6);

    let source_rig = RuntimeSkeleton::new(source.clone());
    let animation = Animation::bind(clip, source, BindBy::Node)?;
    let target_rest = Pose::rest(target);
    let mut sampled = source_rig.rest().clone();
    let mut out = target_rest.clone();
    let mut context = SamplingContext::new(animation.track_count());
    let mut rotations: Vec<Vec<f32>> = vec![Vec::with_capacity(times.len() * 4); pairs.len()];
    let mut hips_translation = Vec::with_capacity(if hips.is_some() { times.len() * 3 } else { 0 });
    for &time in &times {
        SamplingJob { animation: &animation, time, context: &mut context, output: &mut sampled }.run()?;
        retargeter.run(&sampled, &target_rest, &mut out)?;
        for (values, pair) in rotations.iter_mut().zip(pairs) {
            push_continuous(values, out.rotation(usize::from(pair.target)));
        }
        if let Some(h) = hips {
            hips_translation.extend_from_slice(&out.translation(h).to_array());
        }
    }
    let track = |joint: usize, property, values| Track {
        node: target.joints()[joint].node,
        node_name: target.joints()[joint].name.clone(),
        property,
        interpolation: Interpolation::Linear,
        times: times.clone(),
        values,
    };
    let mut tracks: Vec<Track> = pairs
        .iter()
        .zip(rotations)
        .map(|(p, values)| track(usize::from(p.target), TrackProperty::Rotation, values))
        .collect();
    if let Some(h) = hips {
        tracks.push(track(h, TrackProperty::Translation, hips_translation));
    }
    Clip::new(clip.name(), tracks)
        .map_err(|e| RuntimeError::InvalidJob { job: "clip binding by role", reasons: vec![e.to_string()] })
}

/// Appends `q`'s components, on the same side of the 4D sphere as the
/// previous key (the same rotation; keeps every segment the short way).
fn push_continuous(values: &mut Vec<f32>, q: Quat) {
    let n = values.len();
    let q = if n >= 4 && Quat::from_slice(&values[n - 4..]).dot(q) < 0.0 { -q } else { q };
    values.extend_from_slice(&q.to_array());
}

/// Intervals of the [`BAKE_RATE`] grid over the clip's span (0 for a clip
/// of one instant, or one whose span is not a finite number of intervals).
fn grid_steps(clip: &Clip) -> u64 {
    let steps = (f64::from(clip.duration()) - f64::from(clip.start())) * f64::from(BAKE_RATE);
    if steps.is_finite() && steps >= 1.0 { steps.ceil() as u64 } else { 0 }
}

fn over_budget(e: OverBudget) -> RuntimeError {
    RuntimeError::InvalidJob { job: "clip binding by role", reasons: vec![e.to_string()] }
}

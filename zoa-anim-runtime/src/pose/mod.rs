//! The pose engine: evaluates poses from `zoa-anim-core` skeletons and
//! clips, every frame, for many characters: glTF 2.0 sampling, three.js `AnimationMixer` blending
//! (override layers with rest-pose fill, additive layers, bone masks), blend
//! trees with a shared normalized clock, local-to-model and skinning matrices,
//! retargeting by bone name, and a parallel crowd evaluator. It never parses
//! files: loaders (`zoa-anim-assets`) or an engine hand it core types.
//!
//! **Key design decision:** operations are ozz-style *jobs* over borrowed
//! buffers with caller-owned, pre-sized state, and semantics are three.js's,
//! not ozz's. Concretely:
//!
//! - A clip is bound once to a skeleton ([`Animation::bind`]) and repacked:
//!   tracks of one property and one interpolation whose joints share a pose
//!   block and whose keys share their times are packed key by key in the
//!   pose's own layout and sampled a block at a time (one key search, one
//!   SIMD lerp/slerp/Hermite spline for eight joints). Tracks of one block
//!   whose key times no other track shares (exporters that drop redundant
//!   keys per channel write these) go to *lane batches*: each lane finds its
//!   own key segment, stored as one record (its bounds, both keys, the
//!   interpolation span, or a spline's tangents: 32 to 80 bytes), and the
//!   eight lanes are interpolated together with a parameter each. A track
//!   alone in its block keeps flat, joint-sorted key arrays. A per-character [`SamplingContext`] keeps one
//!   key cursor per block, lane or track, so forward playback finds its key
//!   segment in amortized O(1) instead of a binary search. A lane's cursor
//!   also keeps where its segment ends, so it steps to the next segment
//!   without reading the current one first; one vector check of the new
//!   segments' bounds catches the rare jump (a loop wrap, a seek, more than
//!   one key per frame), which a search repairs. Masked layers
//!   sample only the joints their mask lets through.
//! - [`Pose`] is structure-of-arrays in blocks of eight joints (one row per
//!   component, one allocation), so blending and local-to-model work on eight
//!   joints per instruction.
//! - Every buffer a frame keeps is sized at set-up ([`ClipPlayer::new`], a
//!   character's spawn); the scratch a frame rewrites ([`PoseScratch`]) is
//!   allocated at a member's first evaluation (in a [`Crowd`], once per run
//!   of members that share it), so members built in a row keep their
//!   buffers next to each other. After the first
//!   frame nothing allocates (`tests/no_alloc.rs` proves it with a counting
//!   global allocator), and over-capacity input is a validation error, never
//!   a hidden allocation.
//! - Blending is exact three.js within a layer: shortest-arc slerp keeping
//!   the first operand's sign, accumulation `W += w; lerp(value, x, w/W)`,
//!   rest pose for the missing weight, additive deltas `ref⁻¹⊗q` accumulated
//!   as three.js does. Between layers, [`Composition::Layered`] stacks them
//!   (`blend(below, layer, W)`, additive layers add onto what is below) and
//!   [`Composition::Mixer`] mixes every layer as one three.js `AnimationMixer`. The slerp uses
//!   Eberly's trig-free polynomial on half arcs, held to 1e-6 of an `f64`
//!   trigonometric slerp by tests. Sampling does not renormalize LINEAR
//!   rotation keys (three.js does not either), so keys stored slightly off
//!   unit length come out as stored.
//! - Authored and compiled forms have different names (ozz's raw/runtime
//!   split). The authored graph types of `zoa-anim-core` are re-exported here
//!   under their own names ([`BlendMode`], [`BoneMask`], [`BlendTree`],
//!   [`BlendTreeKind`], [`Motion`]); what the runtime compiles from them is
//!   named for what it is: [`BoneWeights`] (a mask resolved to per-joint
//!   weights against one skeleton), [`CompiledBlendTree`] /
//!   [`CompiledBlendTreeKind`] (a tree's weighting rule over its children's
//!   positions) and [`BoundMotion`] (an [`Animation`] bound to a skeleton
//!   with its loop mode).
//! - The rig policy's IK (`zoa-anim-ik`) is an optional per-instance
//!   [`IkStage`] run on the blended local pose before local-to-model: the
//!   compiled policy (`zoa_anim_ik::RigIk::for_policy`) is shared read-only, the IK state,
//!   scratch and per-frame `zoa_anim_ik::IkInputs` (ground probe, look target, grip and
//!   ledge targets, locomotion speed) belong to the instance and are sized
//!   once, so IK adds no allocation and no shared mutable state.
//! - Morph-target weights ([`morph`]) ride the same frame: the skeleton's
//!   [`MorphSet`] lays the model's morphed nodes out flat, an animation bound
//!   with [`Animation::bind_to`] keeps its `weights` tracks, and the
//!   [`ComposeJob`] blends them from the same stack into a [`MorphPose`] with
//!   three.js's number-property semantics. A model without morph targets
//!   pays nothing. Float curves ([`curves`]: named numbers a clip definition
//!   carries) blend from the same stack with the same mechanism
//!   (`scalars`, one blend of numbers for both).
//! - Instances share nothing mutable across threads (a crowd worker lends the
//!   first instance of a run of 16 its scratch for the rest of the run, the
//!   same runs serially and in parallel), so [`Crowd::update_parallel`]
//!   (rayon) and [`Crowd::update_on`] (a [`Team`] of threads that keep fixed
//!   shares and stay awake between back-to-back frames) give bit-identical
//!   results to [`Crowd::update`] for any thread count.
//!
//! ```text
//! Clip ─bind─► Animation ─SamplingJob(ctx)─► Pose ┐
//! Clip ─bind─► Animation ─SamplingJob(ctx)─► Pose ┼─BlendingJob(ctx, masks)─► Pose ─IkStage─► Pose ─LocalToModelJob─► [Mat4] ─► skinning
//!                                                 ┘
//! ```

pub mod animation;
pub mod blend_tree;
pub mod blending;
pub mod bone_weights;
pub mod clip_binding;
pub mod compose;
pub mod crowd;
pub mod curves;
pub mod ik_stage;
pub mod math;
pub mod model;
pub mod morph;
pub mod player;
pub mod retarget;
pub(crate) mod scalars;
pub mod simd;
mod skeleton;
pub mod team;

pub use animation::{
    ANIMATES_ROTATION, ANIMATES_SCALE, ANIMATES_TRANSLATION, Animation, BindBy, ClipId, SamplingContext, SamplingJob,
};
pub use blend_tree::{CompiledBlendTree, CompiledBlendTreeKind, SyncClock, Weighting2D};
pub use blending::{
    BlendInput, BlendLayer, BlendMode, Blender, BlendingContext, BlendingJob, Composition, ReferencePose, blend_into,
};
pub use bone_weights::BoneWeights;
pub use clip_binding::{ClipBindingPlan, PlannedBinding, bake_by_role, plan_binding};
pub use compose::{ComposeJob, ExtraPose, PoseScratch, PoseStack, StackInput, StackLayer, StackSources};
pub use crowd::{Crowd, CrowdMember, prefetch_next};
pub use curves::{CurveIndex, CurvePose, CurveSet, CurveTracks};
pub use ik_stage::IkStage;
pub use model::{LocalToModelJob, skinning_matrices};
pub use morph::{MorphPose, MorphSet, MorphSlot};
pub use player::{AdditiveReference, BoundMotion, ClipPlayer, Layer, LayerSource};
pub use retarget::{MatchedBy, RetargetMode, RetargetPair, Retargeter};
pub use simd::{Simd, set_simd, simd_path};
pub(crate) use skeleton::PoseMotion;
pub use skeleton::{NO_PARENT, Pose, RuntimeSkeleton};
pub use team::Team;
/// The authored graph types the compiled forms above are built from.
pub use zoa_anim_core::graph::{BlendTree, BlendTreeKind, BoneMask, Motion};

//! The compiled, shareable character definition: everything one kind of
//! character reads and never changes, built once from a [`CharacterBundle`].

use std::collections::HashMap;
use std::sync::Arc;

use zoa_anim_core::contracts::SharedBindingProfile;
use zoa_anim_core::{
    AnimationBindingProfile, AnimationProfile, BundledClip, CharacterBundle, PlayerProfileSet, PlayerProfileType,
    RigPolicy, SoundProfile, StateGraph,
};
use zoa_anim_ik::{BoneRoles, CompiledEquipment, IkError, PolicyKind, RigIk, Role};

use super::lod::LodSettings;
use crate::character::driver::SlotBlend;
use crate::character::graph::{ClipInfo, ClipTable, GraphDefinition, GraphMasks};
use crate::character::loadout::CompiledLoadout;
use crate::character::selector::SelectorTable;
use crate::error::{RuntimeError, SetupProblem};
use crate::pose::animation::{ANIMATES_ROTATION, ANIMATES_TRANSLATION, Animation, BindBy};
use crate::pose::blending::ReferencePose;
use crate::pose::clip_binding::{ClipBindingPlan, bake_by_role, plan_binding};
use crate::pose::{CurveIndex, Pose, RuntimeSkeleton};

/// The float curve that scales hand on weapon (`IkInputs::hand_on_weapon_weight`):
/// a clip that lets go of the weapon (a reload's magazine swap) carries it
/// going to 0; where no playing clip carries it the weight is 1.
pub const HAND_ON_WEAPON_CURVE: &str = "ik.hand_on_weapon";

/// Tunables of a character kind that no definition file carries (the gait
/// speeds live in the folder's `state_graph`, see [`zoa_anim_core::GaitSpeeds`]).
#[derive(Debug, Clone, PartialEq)]
pub struct CharacterSettings {
    /// Cross-fade between two graphs when a loadout switch changes the graph,
    /// seconds (`>= 0`, default 0.25).
    pub loadout_crossfade: f32,
    /// Entity speed (m/s, `> 0`, default 6.5) that counts as full speed for
    /// IK (foot planting fades out with normalised speed).
    pub full_speed: f32,
    /// Head-bob cadence of the procedural fallback, Hz (`> 0`, default 1.8).
    pub step_frequency: f32,
    /// Override-slot fades used by `play_slot` (default 0.1 s in, 0.2 s out).
    pub slot_blend: SlotBlend,
    /// Events one character may queue between deliveries (default 64, some
    /// ten times a busy frame's; more are dropped and counted, never
    /// allocated). The queue is sized at spawn: 56 bytes an event.
    pub event_capacity: usize,
    /// Extract root motion each frame (default off).
    pub root_motion: bool,
    /// How a character's significance becomes an update rate (level of
    /// detail, see [`super::lod`]); a character is fully significant until
    /// the game says otherwise.
    pub lod: LodSettings,
}

impl Default for CharacterSettings {
    fn default() -> Self {
        CharacterSettings {
            loadout_crossfade: 0.25,
            full_speed: 6.5,
            step_frequency: 1.8,
            slot_blend: SlotBlend::default(),
            event_capacity: 64,
            root_motion: false,
            lod: LodSettings::default(),
        }
    }
}

/// A graph of the definition with its masks resolved against the skeleton.
#[derive(Debug, Clone)]
pub(crate) struct CompiledGraph {
    pub(crate) id: String,
    pub(crate) def: Arc<GraphDefinition>,
    pub(crate) masks: GraphMasks,
}

/// Joints the procedural fallback moves, found by IK bone discovery.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ProceduralJoints {
    /// Spine root (breath pitch).
    pub spine: Option<u16>,
    /// Upper chest: the neck's parent when it is not the spine root (breath pitch).
    pub chest: Option<u16>,
    /// Head (bob).
    pub head: Option<u16>,
}

impl ProceduralJoints {
    /// Whether the fallback moves any joint of the skeleton.
    #[must_use]
    pub fn any(&self) -> bool {
        self.spine.is_some() || self.chest.is_some() || self.head.is_some()
    }
}

/// One kind of character, compiled once and shared (`Arc`) by every
/// character of that kind: skeleton, bound clips with their additive
/// references, graphs with resolved masks, binding profiles, flattened tag
/// tables, timing, rig IK and sound profile.
pub struct CharacterDefinition {
    pub(crate) skeleton: Arc<RuntimeSkeleton>,
    pub(crate) clips: Arc<ClipTable>,
    pub(crate) animations: Vec<Arc<Animation>>,
    pub(crate) references: Vec<ReferencePose>,
    /// How each clip bound to the skeleton, indexed by clip id.
    pub(crate) clip_bindings: Vec<ClipBindingPlan>,
    pub(crate) graphs: Vec<CompiledGraph>,
    /// Whether any graph has an inertialized transition: without one, no
    /// character of this definition keeps the last outputs inertialization
    /// starts from (two poses held and copied every frame, saved).
    pub(crate) inertializes: bool,
    pub(crate) bindings: HashMap<String, SharedBindingProfile>,
    pub(crate) player_set: Option<PlayerProfileSet>,
    /// The player set compiled against the graphs, binding profiles and tag tables.
    pub(crate) loadout: Option<Arc<CompiledLoadout>>,
    /// Tag tables by animation profile id.
    pub(crate) tables: Vec<(String, Arc<SelectorTable>)>,
    /// The tag table of a character without a player set.
    pub(crate) own_table: Option<Arc<SelectorTable>>,
    pub(crate) rig_policy: RigPolicy,
    pub(crate) rig_ik: Option<Arc<RigIk>>,
    pub(crate) roles: BoneRoles,
    /// Held items compiled for the skeleton (those whose attach bone it has).
    pub(crate) equipment: Vec<CompiledEquipment>,
    /// Per weapon class, its item (index into `equipment`).
    pub(crate) class_items: Vec<(PlayerProfileType, usize)>,
    /// Items left out because the skeleton has no bone for their attach role.
    pub(crate) equipment_skipped: Vec<IkError>,
    pub(crate) procedural: ProceduralJoints,
    /// `ANIMATES_*` bits of the procedural fallback's additive pose.
    pub(crate) procedural_animated: Vec<u8>,
    /// Identity reference of the procedural fallback's additive pose.
    pub(crate) procedural_reference: ReferencePose,
    pub(crate) root: usize,
    /// The [`HAND_ON_WEAPON_CURVE`], when a clip carries it.
    pub(crate) hand_on_weapon_curve: Option<CurveIndex>,
    pub(crate) sound_profiles: Vec<SoundProfile>,
    pub(crate) sound_profile: Option<String>,
    pub(crate) settings: CharacterSettings,
}

impl std::fmt::Debug for CharacterDefinition {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CharacterDefinition")
            .field("skeleton", &self.skeleton.skeleton().name())
            .field("joints", &self.skeleton.joint_count())
            .field("clips", &self.clips.len())
            .field("graphs", &self.graphs.iter().map(|g| g.id.as_str()).collect::<Vec<_>>())
            .field("tag_tables", &self.tables.iter().map(|(t, _)| t.as_str()).collect::<Vec<_>>())
            .field("ik", &self.rig_ik.is_some())
            .field("settings", &self.settings)
            .finish_non_exhaustive()
    }
}

impl CharacterDefinition {
    /// Compiles `bundle` with `settings`. Every problem is reported at once
    /// ([`RuntimeError::CharacterSetup`]).
    pub fn new(
        bundle: &CharacterBundle,
        settings: CharacterSettings,
    ) -> Result<Arc<CharacterDefinition>, RuntimeError> {
        let mut problems = Vec::new();
        check_settings(&settings, &mut problems);
        let n = bundle.skeleton.joint_count();
        if n > usize::from(u16::MAX) {
            problems.push(SetupProblem::TooManyJoints(n));
            return Err(RuntimeError::CharacterSetup(problems));
        }
        let skeleton = Arc::new(RuntimeSkeleton::with_morphs(bundle.skeleton.clone(), &bundle.morph_nodes));
        let rig_policy = bundle.rig_policy.clone().unwrap_or_default();
        let Rig { roles, rig_ik, procedural, procedural_animated } = compile_rig(&skeleton, &rig_policy, &mut problems);
        let BoundClips { clips, animations, references, bindings: clip_bindings } =
            bind_clips(bundle, &skeleton, &roles, &mut problems);
        let graphs = compile_graphs(bundle, &clips, &skeleton, &mut problems);
        let bindings: HashMap<String, SharedBindingProfile> = bundle
            .binding_profiles
            .iter()
            .map(|b| (b.profile_id().to_owned(), Arc::new(b.clone()) as SharedBindingProfile))
            .collect();

        // Tag tables: every profile a class (or the character) uses, flattened once.
        let timing = bundle.state_graph.clone().unwrap_or_default();
        let wanted = wanted_profiles(bundle, &bindings, &mut problems);
        let tables = tag_tables(bundle, wanted, &clips, &timing, &rig_policy, &mut problems);
        let own_table = match (&bundle.player_set, &bundle.animation_profile) {
            (None, Some(id)) => tables.iter().find(|(t, _)| t == id).map(|(_, t)| Arc::clone(t)),
            _ => None,
        };
        if let Some(id) = &bundle.sound_profile
            && !bundle.sound_profiles.iter().any(|p| p.id == *id)
        {
            problems.push(SetupProblem::UnknownSoundProfile(id.clone()));
        }
        let loadout = compile_loadout(bundle, &graphs, &bindings, &tables, &mut problems);
        let Items { equipment, class_items, skipped: equipment_skipped } =
            compile_equipment(bundle, skeleton.skeleton(), &roles, &mut problems);
        let zero = Pose::identity(n);
        let root = (0..n).find(|&j| bundle.skeleton.parent(j).is_none()).unwrap_or(0);

        if !problems.is_empty() {
            return Err(RuntimeError::CharacterSetup(problems));
        }
        let hand_on_weapon_curve = clips.curves().index(HAND_ON_WEAPON_CURVE);
        let inertializes = graphs.iter().any(|g| {
            g.def.graph().transitions.iter().any(|t| t.mode == zoa_anim_core::graph::TransitionMode::Inertialize)
        });
        Ok(Arc::new(CharacterDefinition {
            skeleton,
            clips,
            animations,
            references,
            clip_bindings,
            graphs,
            inertializes,
            bindings,
            player_set: bundle.player_set.clone(),
            loadout,
            tables,
            own_table,
            rig_policy,
            rig_ik,
            roles,
            equipment,
            class_items,
            equipment_skipped,
            procedural,
            procedural_animated,
            procedural_reference: ReferencePose::from_pose(&zero),
            root,
            hand_on_weapon_curve,
            sound_profiles: bundle.sound_profiles.clone(),
            sound_profile: bundle.sound_profile.clone(),
            settings,
        }))
    }

    /// The skeleton.
    #[must_use]
    pub fn skeleton(&self) -> &Arc<RuntimeSkeleton> {
        &self.skeleton
    }
    /// The clip table (index = [`crate::character::graph::ClipId`]).
    #[must_use]
    pub fn clips(&self) -> &Arc<ClipTable> {
        &self.clips
    }
    /// Bound animations, indexed by clip id.
    #[must_use]
    pub fn animations(&self) -> &[Arc<Animation>] {
        &self.animations
    }
    /// How clip `name` bound to the skeleton: by glTF node (the character's
    /// own model), by joint name, or by bone role (baked onto this skeleton
    /// at set-up); `None` for a clip the definition does not have.
    #[must_use]
    pub fn clip_binding(&self, name: &str) -> Option<ClipBindingPlan> {
        self.clips.index_of(name).and_then(|id| self.clip_bindings.get(id.index()).copied())
    }
    /// The graph with id `id`.
    #[must_use]
    pub fn graph(&self, id: &str) -> Option<&Arc<GraphDefinition>> {
        self.graphs.iter().find(|g| g.id == id).map(|g| &g.def)
    }
    /// Graph ids, in bundle order.
    pub fn graph_ids(&self) -> impl Iterator<Item = &str> {
        self.graphs.iter().map(|g| g.id.as_str())
    }
    /// The player profile set.
    #[must_use]
    pub fn player_set(&self) -> Option<&PlayerProfileSet> {
        self.player_set.as_ref()
    }
    /// The binding profile with id `id`.
    #[must_use]
    pub fn binding_profile(&self, id: &str) -> Option<&SharedBindingProfile> {
        self.bindings.get(id)
    }
    /// The tag table of animation profile `id`.
    #[must_use]
    pub fn tag_table(&self, id: &str) -> Option<&Arc<SelectorTable>> {
        self.tables.iter().find(|(t, _)| t == id).map(|(_, t)| t)
    }
    /// The rig policy.
    #[must_use]
    pub fn rig_policy(&self) -> &RigPolicy {
        &self.rig_policy
    }
    /// The compiled rig IK (`None` when no behaviour of the policy can run on this skeleton).
    #[must_use]
    pub fn rig_ik(&self) -> Option<&Arc<RigIk>> {
        self.rig_ik.as_ref()
    }
    /// Bone roles found by IK discovery (with the policy's overrides).
    #[must_use]
    pub fn roles(&self) -> &BoneRoles {
        &self.roles
    }
    /// The held items, compiled for the skeleton (the `equipment`
    /// definitions whose attach bone it has), in bundle order.
    #[must_use]
    pub fn equipment(&self) -> &[CompiledEquipment] {
        &self.equipment
    }
    /// The item weapon class `class` holds, if any.
    #[must_use]
    pub fn equipment_for(&self, class: PlayerProfileType) -> Option<&CompiledEquipment> {
        self.item_index(class).map(|i| &self.equipment[i])
    }
    pub(crate) fn item_index(&self, class: PlayerProfileType) -> Option<usize> {
        self.class_items.iter().find(|(c, _)| *c == class).map(|&(_, i)| i)
    }
    /// The items left out because the skeleton has no bone for their attach
    /// role (their classes then hold nothing; like an IK behaviour whose
    /// bones are missing, this is not a set-up error).
    #[must_use]
    pub fn equipment_skipped(&self) -> &[IkError] {
        &self.equipment_skipped
    }
    /// Joints the procedural fallback moves.
    #[must_use]
    pub fn procedural_joints(&self) -> ProceduralJoints {
        self.procedural
    }
    /// The skeleton's first root joint (root motion is measured on it).
    #[must_use]
    pub fn root_joint(&self) -> usize {
        self.root
    }
    /// The character's sound profile id and every sound profile of the bundle (for flattening).
    #[must_use]
    pub fn sound_profile(&self) -> (Option<&str>, &[SoundProfile]) {
        (self.sound_profile.as_deref(), &self.sound_profiles)
    }
    /// The settings.
    #[must_use]
    pub fn settings(&self) -> &CharacterSettings {
        &self.settings
    }
}

/// The player set compiled once against the definition's graphs (in their
/// order, so a loadout's graph index is the definition's), binding profiles
/// and tag tables. Its problems are the set-up's (reported by `wanted_profiles`).
fn compile_loadout(
    bundle: &CharacterBundle,
    graphs: &[CompiledGraph],
    bindings: &HashMap<String, SharedBindingProfile>,
    tables: &[(String, Arc<SelectorTable>)],
    problems: &mut Vec<SetupProblem>,
) -> Option<Arc<CompiledLoadout>> {
    let set = bundle.player_set.as_ref()?;
    let graphs = graphs.iter().map(|g| (g.id.clone(), Arc::clone(&g.def))).collect();
    let compiled = CompiledLoadout::compile(
        set,
        graphs,
        |id| bindings.get(id).cloned(),
        |id| tables.iter().position(|(t, _)| t == id),
    );
    match compiled {
        Ok(c) => Some(Arc::new(c)),
        // Unknown graphs and binding profiles and a missing default entry are
        // already set-up problems of their own; anything else is reported here.
        Err(e) if problems.is_empty() => {
            problems.push(SetupProblem::Loadout { set: set.id.clone(), error: e });
            None
        }
        Err(_) => None,
    }
}

/// The bundle's clips, bound to the skeleton.
#[derive(Debug)]
struct BoundClips {
    clips: Arc<ClipTable>,
    animations: Vec<Arc<Animation>>,
    /// Each clip's first frame, its additive reference.
    references: Vec<ReferencePose>,
    /// How each clip bound.
    bindings: Vec<ClipBindingPlan>,
}

/// Binds each clip (a clip of another file by name or by bone role, see
/// [`plan_binding`]) and prepares its first frame as the additive reference.
/// A clip that does not bind is a problem and left out.
fn bind_clips(
    bundle: &CharacterBundle,
    skeleton: &RuntimeSkeleton,
    roles: &BoneRoles,
    problems: &mut Vec<SetupProblem>,
) -> BoundClips {
    let n = bundle.clips.len();
    let (mut infos, mut animations) = (Vec::with_capacity(n), Vec::with_capacity(n));
    let (mut references, mut bindings) = (Vec::with_capacity(n), Vec::with_capacity(n));
    for c in &bundle.clips {
        let bound = bind_clip(c, skeleton, roles)
            .and_then(|(a, plan)| a.sample_to_new(0.0, skeleton.rest()).map(|r| (a, plan, r)));
        match bound {
            Ok((a, plan, first)) => {
                infos.push(ClipInfo::from_asset(&c.asset, a.duration()));
                let reference = ReferencePose::from_pose(&first);
                references.push(if a.animates_morphs() {
                    reference.with_morph(a.sample_morphs_to_new(0.0, skeleton.morphs()))
                } else {
                    reference
                });
                animations.push(Arc::new(a));
                bindings.push(plan);
            }
            Err(error) => problems.push(SetupProblem::Clip { clip: c.asset.id.clone(), error }),
        }
    }
    let clips = match ClipTable::new(infos) {
        Ok(t) => Arc::new(t),
        Err(e) => {
            problems.push(SetupProblem::ClipTable(e));
            Arc::new(ClipTable::new(Vec::new()).expect("an empty table is valid"))
        }
    };
    BoundClips { clips, animations, references, bindings }
}

/// One clip bound to `skeleton` as [`plan_binding`] decides (baked first
/// when by role).
fn bind_clip(
    c: &BundledClip,
    skeleton: &RuntimeSkeleton,
    roles: &BoneRoles,
) -> Result<(Animation, ClipBindingPlan), RuntimeError> {
    let target = skeleton.skeleton();
    let planned = plan_binding(&c.clip, c.asset.binding, c.source_skeleton.as_ref(), target, roles)?;
    let animation = match (&planned.retargeter, &c.source_skeleton, planned.plan) {
        (Some(r), Some(source), _) => {
            Animation::bind_to(&bake_by_role(&c.clip, source, r, target)?, skeleton, BindBy::Node)?
        }
        (_, _, ClipBindingPlan::Node) => Animation::bind_to(&c.clip, skeleton, BindBy::Node)?,
        _ => Animation::bind_to(&c.clip, skeleton, BindBy::Name)?,
    };
    Ok((animation, planned.plan))
}

/// Compiles each graph (the first of a duplicated id only) with its masks.
fn compile_graphs(
    bundle: &CharacterBundle,
    clips: &Arc<ClipTable>,
    skeleton: &RuntimeSkeleton,
    problems: &mut Vec<SetupProblem>,
) -> Vec<CompiledGraph> {
    let mut graphs = Vec::with_capacity(bundle.graphs.len());
    for g in &bundle.graphs {
        if graphs.iter().any(|c: &CompiledGraph| c.id == g.id) {
            problems.push(SetupProblem::DuplicateGraph(g.id.clone()));
            continue;
        }
        let compiled = GraphDefinition::new(g.clone(), Arc::clone(clips))
            .map(Arc::new)
            .and_then(|def| GraphMasks::new(&def, skeleton).map(|masks| (def, masks)));
        match compiled {
            Ok((def, masks)) => graphs.push(CompiledGraph { id: g.id.clone(), def, masks }),
            Err(error) => problems.push(SetupProblem::Graph { graph: g.id.clone(), error }),
        }
    }
    graphs
}

/// The animation profiles the character uses: each player class's (checking
/// the set's default entry, graphs and binding profiles on the way), else the
/// character's own.
fn wanted_profiles<'a>(
    bundle: &'a CharacterBundle,
    bindings: &HashMap<String, SharedBindingProfile>,
    problems: &mut Vec<SetupProblem>,
) -> Vec<(Option<PlayerProfileType>, &'a str)> {
    let mut wanted: Vec<(Option<PlayerProfileType>, &str)> = Vec::new();
    if let Some(set) = &bundle.player_set {
        if set.resolve_profile(set.default_profile).is_none() {
            problems.push(SetupProblem::NoDefaultEntry { set: set.id.clone(), class: set.default_profile });
        }
        for e in &set.profiles {
            if let Some(g) = &e.animation_graph
                && !bundle.graphs.iter().any(|x| x.id == *g)
            {
                problems.push(SetupProblem::UnknownGraph { class: e.class, graph: g.clone() });
            }
            if !bindings.contains_key(&e.binding_profile) {
                problems
                    .push(SetupProblem::UnknownBindingProfile { class: e.class, profile: e.binding_profile.clone() });
            }
            if let Some(p) = &e.animation_profile {
                wanted.push((Some(e.class), p));
            }
        }
    } else if let Some(p) = &bundle.animation_profile {
        wanted.push((None, p));
    }
    wanted
}

/// One flattened tag table per wanted animation profile id.
fn tag_tables(
    bundle: &CharacterBundle,
    wanted: Vec<(Option<PlayerProfileType>, &str)>,
    clips: &Arc<ClipTable>,
    timing: &StateGraph,
    rig_policy: &RigPolicy,
    problems: &mut Vec<SetupProblem>,
) -> Vec<(String, Arc<SelectorTable>)> {
    let lookup = |id: &str| bundle.animation_profiles.iter().find(|p| p.id == id);
    let mut tables: Vec<(String, Arc<SelectorTable>)> = Vec::new();
    for (class, id) in wanted {
        if tables.iter().any(|(t, _)| t == id) {
            continue;
        }
        let Some(profile) = lookup(id) else {
            problems.push(SetupProblem::UnknownAnimationProfile { class, profile: id.to_owned() });
            continue;
        };
        match table_of(profile, &lookup, clips, timing, rig_policy) {
            Ok(t) => tables.push((id.to_owned(), Arc::new(t))),
            Err(error) => problems.push(SetupProblem::AnimationProfile { profile: id.to_owned(), error }),
        }
    }
    tables
}

/// The rig of a character kind: bone roles, compiled IK and the procedural fallback's joints.
#[derive(Debug)]
struct Rig {
    roles: BoneRoles,
    /// Only when some IK behaviour can run.
    rig_ik: Option<Arc<RigIk>>,
    procedural: ProceduralJoints,
    /// `ANIMATES_*` bits per joint of the procedural fallback's additive pose.
    procedural_animated: Vec<u8>,
}

/// Bone roles once, IK compiled once (kept only when a behaviour can run),
/// and the joints the procedural fallback moves.
fn compile_rig(skeleton: &RuntimeSkeleton, rig_policy: &RigPolicy, problems: &mut Vec<SetupProblem>) -> Rig {
    let (rig, roles, ik_problems) = RigIk::for_policy(skeleton.skeleton(), rig_policy);
    problems.extend(ik_problems.into_iter().map(SetupProblem::RigOverride));
    let any = [PolicyKind::FootPlant, PolicyKind::LookAt, PolicyKind::HandOnWeapon, PolicyKind::ClimbHand]
        .into_iter()
        .any(|k| rig.is_active(k))
        || rig.active_chain_count() > 0;
    let rig_ik = any.then(|| Arc::new(rig));
    let spine = roles.get(Role::Spine);
    let neck = roles.get(Role::Neck);
    let chest =
        neck.and_then(|j| skeleton.skeleton().parent(usize::from(j))).map(|p| p as u16).filter(|&c| Some(c) != spine);
    let procedural = ProceduralJoints { spine, chest, head: roles.get(Role::Head) };
    let mut procedural_animated = vec![0u8; skeleton.joint_count()];
    for j in [procedural.spine, procedural.chest].into_iter().flatten() {
        procedural_animated[usize::from(j)] |= ANIMATES_ROTATION;
    }
    if let Some(h) = procedural.head {
        procedural_animated[usize::from(h)] |= ANIMATES_TRANSLATION;
    }
    Rig { roles, rig_ik, procedural, procedural_animated }
}

/// The definition's held items.
#[derive(Debug, Default)]
struct Items {
    equipment: Vec<CompiledEquipment>,
    class_items: Vec<(PlayerProfileType, usize)>,
    skipped: Vec<IkError>,
}

/// Compiles each item for the skeleton: one whose attach role names no bone
/// is skipped (and listed); a class two items claim is a set-up problem (the
/// loader reports it as E017 first).
fn compile_equipment(
    bundle: &CharacterBundle,
    skeleton: &zoa_anim_core::Skeleton,
    roles: &BoneRoles,
    problems: &mut Vec<SetupProblem>,
) -> Items {
    let mut items = Items::default();
    for e in &bundle.equipment {
        let index = match CompiledEquipment::new(e, skeleton, roles) {
            Ok(c) => {
                items.equipment.push(c);
                Some(items.equipment.len() - 1)
            }
            Err(error) => {
                items.skipped.push(error);
                None
            }
        };
        for &class in &e.classes {
            if let Some(other) = bundle.equipment.iter().take_while(|x| !std::ptr::eq(*x, e)).find(|x| x.is_for(class))
            {
                problems.push(SetupProblem::ClassHoldsTwoItems {
                    class,
                    first: other.id.clone(),
                    second: e.id.clone(),
                });
            } else if let Some(i) = index {
                items.class_items.push((class, i));
            }
        }
    }
    items
}

fn table_of<'a>(
    profile: &'a AnimationProfile,
    lookup: &impl Fn(&str) -> Option<&'a AnimationProfile>,
    clips: &Arc<ClipTable>,
    timing: &StateGraph,
    rig: &RigPolicy,
) -> Result<SelectorTable, RuntimeError> {
    SelectorTable::from_profile(profile, lookup, Arc::clone(clips), timing.clone(), rig.clone())
}

fn check_settings(s: &CharacterSettings, problems: &mut Vec<SetupProblem>) {
    let mut bad = |field: &'static str, reason: String| problems.push(SetupProblem::Setting { field, reason });
    if !(s.loadout_crossfade.is_finite() && s.loadout_crossfade >= 0.0) {
        bad("loadout_crossfade", format!("{} s must be finite and >= 0", s.loadout_crossfade));
    }
    if !(s.full_speed.is_finite() && s.full_speed > 0.0) {
        bad("full_speed", format!("{} m/s must be finite and > 0", s.full_speed));
    }
    if !(s.step_frequency.is_finite() && s.step_frequency > 0.0) {
        bad("step_frequency", format!("{} Hz must be finite and > 0", s.step_frequency));
    }
    let b = s.slot_blend;
    if !(b.blend_in.is_finite() && b.blend_in >= 0.0 && b.blend_out.is_finite() && b.blend_out >= 0.0) {
        bad("slot_blend", format!("fades {} s / {} s must be finite and >= 0", b.blend_in, b.blend_out));
    }
    if s.event_capacity == 0 || s.event_capacity > 1 << 20 {
        bad("event_capacity", format!("{} must be in 1..=1048576", s.event_capacity));
    }
    if let Some(reason) = s.lod.problem() {
        bad("lod", reason);
    }
}

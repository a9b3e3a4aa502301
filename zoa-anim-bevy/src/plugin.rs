//! The plugin: resources, messages, system sets and systems.

use std::cell::RefCell;
use std::sync::Arc;
use std::time::Duration;

use bevy_app::{App, Plugin, PluginGroup, PluginGroupBuilder, PostUpdate, ScheduleRunnerPlugin, TaskPoolPlugin};
use bevy_ecs::entity::UniqueEntitySlice;
use bevy_ecs::prelude::*;
#[cfg(feature = "reflect")]
use bevy_ecs::reflect::ReflectResource;
use bevy_tasks::{ComputeTaskPool, TaskPool};
use bevy_time::{Time, TimePlugin};
use bevy_transform::components::Transform;
use bevy_transform::{TransformPlugin, TransformSystems};
use zoa_anim_runtime::CharacterDefinition;
use zoa_anim_runtime::pose::{PoseScratch, prefetch_next};

use crate::binding::{HierarchyNode, JointBinding, JointGeneration, ZoaJoint, bevy_transform, core_transform};
use crate::character::ZoaCharacter;
use crate::definitions::ZoaDefinitions;
use crate::messages::{Deliver, ZoaAnimationEvent, ZoaDefinitionReloaded, ZoaSoundBridge, ZoaSoundCue};

/// The steps of a ZOA frame, chained in this order in `PostUpdate`, before
/// transform propagation (`TransformSystems::Propagate`).
///
/// # Where a game orders its own systems
/// ```text
///  Update           gameplay: set_tags, set_speed, fire, equip, IK inputs …  (any order)
///  PostUpdate
///    ZoaSet::Input            hot reload, definition swaps, joint binding
///    ZoaSet::Evaluate         every character advanced by Time's delta, and its
///                             joints' local Transforms = the pose at once
///    ZoaSet::WriteTransforms  morph weights (with `render`): the pose is all written
///    ZoaSet::Events           ZoaAnimationEvent / ZoaSoundCue messages; observers triggered
///    TransformSystems::Propagate
/// ```
/// - **Gameplay** that drives characters runs in `Update` (or in `PostUpdate`
///   `.before(ZoaSet::Evaluate)`, e.g. `.in_set(ZoaSet::Input)`): the frame's
///   evaluation sees it.
/// - **Reading events in the same frame**: a system in `PostUpdate`
///   `.after(ZoaSet::Events)` (before or after propagation, as it needs);
///   observers of [`ZoaAnimationEvent`] run in the same frame too, at
///   `PostUpdate`'s next sync point (the plugin adds none of its own). A
///   `MessageReader` in `Update` sees them a frame late (the events of frame
///   *n* are written in frame *n*'s `PostUpdate`, after frame *n*'s
///   `Update`); messages live two frames, so it misses none.
/// - **Reading joint poses**: local `Transform`s after
///   [`ZoaSet::WriteTransforms`]; `GlobalTransform`s after
///   `TransformSystems::Propagate`.
/// - **Reloads** ([`crate::ZoaDefinitionReloaded`]) are written in
///   [`ZoaSet::Input`]; a reader `.after(ZoaSet::Input)` sees them the same frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, SystemSet)]
pub enum ZoaSet {
    /// Gameplay inputs; hot reload of definitions (reload messages; the
    /// characters of a swapped definition re-created, their actions in
    /// flight cancelled); joint binding of new characters.
    Input,
    /// Every character advanced and evaluated (in parallel by default), and
    /// its joint entities' local `Transform`s written right after its own
    /// update (while its pose is in cache; one pass over the characters).
    Evaluate,
    /// The rest of the pose written: morph weights into `MorphWeights` (with
    /// the `render` feature). After it every output of the frame's pose is
    /// in the world.
    WriteTransforms,
    /// Animation and sound events written as messages; animation events
    /// triggered on the characters' entities for observers.
    Events,
}

/// Run-time options of the plugin (a resource; insert your own to change them).
#[derive(Debug, Clone, PartialEq, Resource)]
#[cfg_attr(feature = "reflect", derive(bevy_reflect::Reflect), reflect(Resource))]
pub struct ZoaAnimationSettings {
    /// Evaluate characters (and write joints) on Bevy's compute task pool
    /// (default true). Either way the result is bit-identical.
    pub parallel: bool,
    /// Seconds between checks of the definition folders for changes on disk
    /// (`None`: no hot reload; default 1 s).
    pub hot_reload_interval: Option<f32>,
}

impl Default for ZoaAnimationSettings {
    fn default() -> Self {
        ZoaAnimationSettings { parallel: true, hot_reload_interval: Some(1.0) }
    }
}

/// Adds ZOA characters to an app: the [`ZoaCharacter`] and [`ZoaJoint`]
/// components, the [`ZoaDefinitions`], [`ZoaAnimationSettings`] and
/// [`ZoaSoundBridge`] resources, the [`ZoaAnimationEvent`],
/// [`ZoaSoundCue`] and [`ZoaDefinitionReloaded`] messages, and the
/// [`ZoaSet`] steps. Needs `Time` (bevy_time's `TimePlugin`) and, to see
/// joints move, bevy_transform's `TransformPlugin`: with the full engine
/// `DefaultPlugins` has both; headless, [`crate::ZoaHeadlessPlugins`] is the
/// whole set.
#[derive(Debug, Default, Clone, Copy)]
pub struct ZoaAnimationPlugin;

impl Plugin for ZoaAnimationPlugin {
    fn build(&self, app: &mut App) {
        // Parallel queries need the compute pool (TaskPoolPlugin makes it when present).
        ComputeTaskPool::get_or_init(TaskPool::default);
        app.init_resource::<ZoaAnimationSettings>()
            .init_resource::<ZoaDefinitions>()
            .init_resource::<ZoaSoundBridge>()
            .init_resource::<Evaluated>()
            .init_resource::<JointGeneration>()
            .init_resource::<FreshJoints>()
            .add_message::<ZoaAnimationEvent>()
            .add_message::<ZoaSoundCue>()
            .add_message::<ZoaDefinitionReloaded>()
            // Chained without sync points: Bevy would put an exclusive step
            // (applying commands) after each step that queues some, and each
            // one waits for every other system of `PostUpdate`. What the
            // steps queue (joint markers, observer triggers) waits for the
            // schedule's next sync; joints bound this frame are written
            // anyway (see `FreshJoints`).
            .configure_sets(
                PostUpdate,
                (ZoaSet::Input, ZoaSet::Evaluate, ZoaSet::WriteTransforms, ZoaSet::Events)
                    .chain_ignore_deferred()
                    .before_ignore_deferred(TransformSystems::Propagate),
            )
            // Run conditions skip a step with nothing to do without starting
            // its system: each started system is a task hand-off, which is
            // most of the plugin's cost at a few dozen characters.
            .add_systems(
                PostUpdate,
                (
                    hot_reload,
                    swap_definitions.run_if(resource_changed::<ZoaDefinitions>),
                    bind_joints.in_set(BindJoints),
                )
                    .chain_ignore_deferred()
                    .in_set(ZoaSet::Input),
            )
            .add_systems(PostUpdate, evaluate.in_set(ZoaSet::Evaluate))
            .add_systems(PostUpdate, deliver_events.run_if(Evaluated::any_events).in_set(ZoaSet::Events));
        #[cfg(feature = "render")]
        app.add_systems(PostUpdate, write_morph_weights.run_if(Evaluated::any_morphs).in_set(ZoaSet::WriteTransforms));
        #[cfg(feature = "reflect")]
        app.register_type::<ZoaJoint>().register_type::<ZoaCharacter>().register_type::<ZoaAnimationSettings>();
    }
}

/// Everything a headless app needs for ZOA characters, from Bevy's
/// sub-crates (Bevy's `MinimalPlugins` lives in the full `bevy` crate):
/// `TaskPoolPlugin`, `TimePlugin`, `ScheduleRunnerPlugin` (a 60 Hz loop for
/// `App::run`; `App::update` steps one frame), `TransformPlugin` and
/// [`ZoaAnimationPlugin`]. Change one with
/// `ZoaHeadlessPlugins.set(ScheduleRunnerPlugin::run_once())`, drop one with
/// `.disable::<ScheduleRunnerPlugin>()`. With the full engine use
/// `DefaultPlugins` (or `MinimalPlugins` + `TransformPlugin`) and
/// [`ZoaAnimationPlugin`] instead.
#[derive(Debug, Default, Clone, Copy)]
pub struct ZoaHeadlessPlugins;

impl PluginGroup for ZoaHeadlessPlugins {
    fn build(self) -> PluginGroupBuilder {
        PluginGroupBuilder::start::<Self>()
            .add(TaskPoolPlugin::default())
            .add(TimePlugin)
            .add(ScheduleRunnerPlugin::run_loop(Duration::from_secs_f64(1.0 / 60.0)))
            .add(TransformPlugin)
            .add(ZoaAnimationPlugin)
    }
}

fn hot_reload(
    time: Res<Time>,
    settings: Res<ZoaAnimationSettings>,
    mut definitions: ResMut<ZoaDefinitions>,
    mut reloaded: MessageWriter<ZoaDefinitionReloaded>,
    mut waited: Local<f32>,
) {
    // Through `bypass_change_detection` so that only a real reload marks the
    // resource changed (which makes characters look for a new generation).
    let defs = definitions.bypass_change_detection();
    let mut any = false;
    if let Some(interval) = settings.hot_reload_interval {
        *waited += time.delta_secs();
        if *waited >= interval {
            *waited = 0.0;
            any = defs.reload_changed() > 0;
        }
    }
    // Reports of these reloads and of explicit `reload` calls since the last frame.
    for report in defs.take_reports() {
        any = true;
        reloaded.write(report);
    }
    if any {
        definitions.set_changed();
    }
}

/// Re-creates the characters of swapped definitions; each old character is
/// retired first (its actions in flight cancelled, its open windows and slot
/// ended), and those events delivered now.
fn swap_definitions(
    mut commands: Commands,
    definitions: Res<ZoaDefinitions>,
    mut characters: Query<(Entity, &mut ZoaCharacter)>,
    mut animation: MessageWriter<ZoaAnimationEvent>,
    mut bridge: ResMut<ZoaSoundBridge>,
    mut sound: MessageWriter<ZoaSoundCue>,
) {
    if !definitions.is_changed() {
        return;
    }
    for (index, (entity, mut c)) in characters.iter_mut().enumerate() {
        let Some((id, generation)) = c.source() else { continue };
        let now = definitions.generation(id);
        if now != generation
            && swap(&mut c, definitions.get(id), entity, index, &mut commands, &mut animation, &mut bridge)
        {
            c.set_source(id, now);
        }
    }
    sound.write_batch(bridge.bridge.sink_mut().cues.drain(..));
}

/// The joint-binding step of [`ZoaSet::Input`] (characters must exist before it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, SystemSet)]
pub(crate) struct BindJoints;

/// Re-creates `c` on `def` and retires the old character: its ends of what
/// was in flight are delivered now (messages, observers, sound cues into the
/// bridge's buffer). `false` (logged) when the runtime refuses the new
/// definition: the character stays as it was.
pub(crate) fn swap(
    c: &mut ZoaCharacter,
    def: &Arc<CharacterDefinition>,
    entity: Entity,
    index: usize,
    commands: &mut Commands,
    animation: &mut MessageWriter<ZoaAnimationEvent>,
    bridge: &mut ZoaSoundBridge,
) -> bool {
    match c.respawn(def) {
        Ok(old) => {
            let bridge = &mut bridge.bridge;
            bridge.sink_mut().entity = entity;
            let mut deliver = Deliver { entity, write: |m| send(commands, animation, m), bridge };
            old.retire(index, &mut deliver);
            true
        }
        Err(e) => {
            tracing::error!("zoa: character {entity} keeps its old definition: {e}");
            false
        }
    }
}

/// An animation event as a message and as an entity event on its character.
fn send(commands: &mut Commands, animation: &mut MessageWriter<ZoaAnimationEvent>, m: ZoaAnimationEvent) {
    animation.write(m.clone());
    commands.trigger(m);
}

/// Binds the joints of characters that are not bound yet to the entities
/// below them; a character whose hierarchy has none of its joints yet (a
/// scene still spawning) is tried again next frame. A character whose bound
/// entities were despawned (its scene spawned again, as when an asset it
/// depends on finishes loading or reloads) is bound to the new ones.
///
/// It looks only at the characters that may need it, so that a frame visits
/// every character once (in [`evaluate`]), not once per step: characters
/// changed since its last run (`Changed<ZoaCharacter>`: new ones, a
/// `rebind()`, a definition swap; [`evaluate`] and event delivery do not
/// count as changes), the ones still waiting for their scene, and — in a
/// frame where entities lost their [`ZoaJoint`] (despawned: a scene spawning
/// again) — every character.
fn bind_joints(
    mut commands: Commands,
    mut fresh: ResMut<FreshJoints>,
    mut characters: Query<(Entity, &mut ZoaCharacter)>,
    mut removed: RemovedComponents<ZoaJoint>,
    // Characters waiting for their entities: last frame's, and this frame's.
    mut waiting: Local<(Vec<Entity>, Vec<Entity>)>,
    children: Query<&Children>,
    nodes: Query<(Option<&Name>, Option<&ChildOf>, Option<&Transform>)>,
) {
    let despawned = removed.read().count() > 0;
    let (waiting, still_waiting) = &mut *waiting;
    still_waiting.clear();
    let mut bind = |root: Entity, c: Mut<'_, ZoaCharacter>, still_waiting: &mut Vec<Entity>| {
        if !bind_character(root, c, &mut commands, &mut fresh, &children, &nodes) {
            still_waiting.push(root);
        }
    };
    // Reading the change ticks only (no character's memory) for the unchanged.
    for (root, c) in &mut characters {
        if despawned || c.is_changed() {
            bind(root, c, still_waiting);
        }
    }
    if !despawned {
        for &root in waiting.iter() {
            match characters.get_mut(root) {
                Ok((root, c)) if !c.is_changed() => bind(root, c, still_waiting),
                _ => {}
            }
        }
    }
    std::mem::swap(waiting, still_waiting);
}

/// Binds `c`'s joints when it is not bound, or when its bound entities are
/// gone; `false` when it is still waiting for its entities.
fn bind_character(
    root: Entity,
    mut c: Mut<'_, ZoaCharacter>,
    commands: &mut Commands,
    fresh: &mut FreshJoints,
    children: &Query<&Children>,
    nodes: &Query<(Option<&Name>, Option<&ChildOf>, Option<&Transform>)>,
) -> bool {
    if let Some(b) = &c.binding {
        // A scene spawns again whole: its first bound entity tells.
        let gone = b.entities().iter().flatten().next().is_some_and(|&e| nodes.get(e).is_err());
        if !gone {
            return true;
        }
        c.rebind();
    }
    if let Some(stale) = c.stale.take() {
        for e in stale.entities().iter().flatten() {
            if let Ok(mut ec) = commands.get_entity(*e) {
                ec.remove::<ZoaJoint>();
            }
        }
    }
    let list: Vec<Entity> = std::iter::once(root).chain(children.iter_descendants(root)).collect();
    let mut hierarchy = Vec::with_capacity(list.len());
    for (i, &entity) in list.iter().enumerate() {
        let Ok((name, child_of, transform)) = nodes.get(entity) else { continue };
        let parent = if i == 0 { None } else { child_of.and_then(|p| list.iter().position(|&e| e == p.parent())) };
        hierarchy.push(HierarchyNode {
            entity,
            name: name.map(Name::as_str),
            parent,
            local: transform.map(core_transform).unwrap_or_default(),
        });
    }
    let def = c.definition().clone();
    let binding = JointBinding::bind(def.skeleton().skeleton(), def.roles(), &hierarchy);
    if binding.bound() == 0 {
        return false;
    }
    let unbound = binding.entities().len() - binding.bound();
    if unbound > 0 {
        let skeleton = def.skeleton().skeleton();
        let names: Vec<_> = binding.unbound().map(|j| skeleton.display_name(j)).collect();
        tracing::warn!("zoa: character {root}: {unbound} joint(s) drive no entity: {}", names.join(", "));
    }
    for (j, e) in binding.entities().iter().enumerate() {
        if let Some(e) = e {
            commands.entity(*e).insert(ZoaJoint { character: root, joint: j as u16 });
            fresh.0.push((*e, root, j as u16));
        }
    }
    c.binding = Some(binding);
    c.joints_named_at = None;
    // Morphed nodes bind by name (Bevy's glTF loader names node entities after the node).
    let slots = def.skeleton().morphs().slots();
    c.morph_entities = slots
        .iter()
        .map(|s| s.name.as_deref().and_then(|n| hierarchy.iter().find(|h| h.name == Some(n))).map(|h| h.entity))
        .collect();
    true
}

thread_local! {
    /// The scratches this thread lends to the characters it evaluates, one
    /// per skeleton size met (see `Character::new_scratch`): what a frame
    /// writes before it reads, kept hot in this core's cache instead of one
    /// per character streamed through memory (as a runtime `Crowd` does).
    static SCRATCHES: RefCell<Vec<PoseScratch>> = const { RefCell::new(Vec::new()) };
}

/// Updates `c` with this thread's scratch for its skeleton (made the first
/// time this thread meets a skeleton of that size).
fn update_lent(c: &mut ZoaCharacter, dt: f32, entity: Entity) {
    SCRATCHES.with_borrow_mut(|scratches| {
        let i = match scratches.iter().position(|s| c.can_borrow(s)) {
            Some(i) => i,
            None => {
                scratches.push(c.new_scratch());
                scratches.len() - 1
            }
        };
        c.update(dt, entity, Some(&mut scratches[i]));
    });
}

/// Most characters one task of [`evaluate`] updates in a row.
const EVALUATE_CHUNK: usize = 64;
/// Fewest characters worth a task of their own.
const EVALUATE_MIN_CHUNK: usize = 16;

/// Characters per task of [`evaluate`] for a crowd of `n` on `threads`
/// threads: one share per thread up to [`EVALUATE_CHUNK`] (a hundred
/// characters on two threads are two tasks of 50, not 64 and 36), at least
/// [`EVALUATE_MIN_CHUNK`].
fn evaluate_chunk(n: usize, threads: usize) -> usize {
    n.div_ceil(threads.max(1)).clamp(EVALUATE_MIN_CHUNK, EVALUATE_CHUNK)
}

/// What [`evaluate`] found, for the steps after it: which characters have
/// events to deliver and which morph weights to write, so that those steps
/// visit only them instead of every character again (at a thousand
/// characters each visit is a cache miss). One list per evaluate task, in
/// entity order; reused frame to frame (grows only with the crowd).
#[derive(Debug, Default, Resource)]
pub(crate) struct Evaluated {
    chunks: Vec<ChunkFound>,
}

#[derive(Debug, Default)]
struct ChunkFound {
    /// Characters with queued events after their update.
    events: Vec<Entity>,
    /// Characters with morph weights and bound morph targets.
    morphs: Vec<Entity>,
}

impl ChunkFound {
    fn clear(&mut self) {
        self.events.clear();
        self.morphs.clear();
    }

    fn note(&mut self, entity: Entity, c: &ZoaCharacter) {
        if !c.events().is_empty() {
            self.events.push(entity);
        }
        if !c.morph_entities.is_empty() && c.morph_weights().is_some() {
            self.morphs.push(entity);
        }
    }
}

impl Evaluated {
    /// `n` cleared lists.
    fn reset(&mut self, n: usize) -> &mut [ChunkFound] {
        if self.chunks.len() < n {
            self.chunks.resize_with(n, ChunkFound::default);
        }
        for c in &mut self.chunks {
            c.clear();
        }
        &mut self.chunks[..n]
    }

    /// Run condition of [`deliver_events`]: whether any character has events.
    fn any_events(found: Res<Evaluated>) -> bool {
        found.chunks.iter().any(|c| !c.events.is_empty())
    }

    /// Run condition of `write_morph_weights`: whether any character has morph weights to write.
    #[cfg(feature = "render")]
    fn any_morphs(found: Res<Evaluated>) -> bool {
        found.chunks.iter().any(|c| !c.morphs.is_empty())
    }

    fn with_events(&self) -> impl Iterator<Item = Entity> + '_ {
        self.chunks.iter().flat_map(|c| c.events.iter().copied())
    }

    #[cfg(feature = "render")]
    fn with_morphs(&self) -> impl Iterator<Item = Entity> + '_ {
        self.chunks.iter().flat_map(|c| c.morphs.iter().copied())
    }
}

/// Joints bound this frame, as (entity, character, joint): their
/// [`ZoaJoint`]s are still queued commands while [`evaluate`] runs (the
/// plugin's steps are chained without a sync point between them, which would
/// stop every other system of `PostUpdate` for an exclusive step each frame:
/// 0.1 ms a frame at ten foxes on a 2-core machine). [`evaluate`] writes
/// their `Transform`s after its pass, one at a time (an entity two
/// characters claimed takes the last claim), so a character is posed on the
/// frame it is bound; from the next frame on the `ZoaJoint`s are in place.
#[derive(Debug, Default, Resource)]
pub(crate) struct FreshJoints(Vec<(Entity, Entity, u16)>);

impl FreshJoints {
    /// Writes the claimed joints that have no [`ZoaJoint`] yet, and forgets every claim.
    fn write(
        &mut self,
        characters: &Query<(Entity, &mut ZoaCharacter)>,
        mut unnamed: Query<&'static mut Transform, Without<ZoaJoint>>,
    ) {
        for (e, character, j) in self.0.drain(..) {
            let Ok((_, c)) = characters.get(character) else { continue };
            let pose = c.local_pose();
            let Ok(mut transform) = unnamed.get_mut(e) else { continue };
            if usize::from(j) < pose.len() {
                set_joint(&mut transform, &pose.get(usize::from(j)));
            }
        }
    }
}

/// The joint entities' `Transform`s, written by [`evaluate`] right after
/// each character's update, while its pose is still in cache.
struct JointWriter<'a, 'w, 's> {
    owners: &'a Query<'w, 's, &'static ZoaJoint>,
    transforms: &'a Query<'w, 's, &'static mut Transform, With<ZoaJoint>>,
    /// This frame's [`JointGeneration`].
    generation: u64,
}

impl JointWriter<'_, '_, '_> {
    /// Writes the local `Transform` of every joint entity of `c` whose
    /// [`ZoaJoint`] names `entity` and the joint (an entity two characters
    /// bound is written by the one its `ZoaJoint` names, the one that bound
    /// it last).
    ///
    /// Looking each entity's `ZoaJoint` up is a random access into Bevy's
    /// tables per joint (24,000 a frame for a thousand foxes): a character
    /// whose joints all named it at this [`JointGeneration`] (no `ZoaJoint`
    /// inserted or removed anywhere since; it is immutable) skips it and
    /// reaches only the `Transform`s.
    ///
    /// # Safety
    /// No other live reference to the `Transform` of an entity whose
    /// `ZoaJoint` names `entity`: true when each character is written by
    /// one caller at a time, since a `ZoaJoint` names one character.
    unsafe fn write(&self, entity: Entity, c: &mut ZoaCharacter) {
        let Some(binding) = &c.binding else { return };
        let pose = c.local_pose();
        let checked = c.joints_named_at == Some((entity, self.generation));
        let mut all_named = true;
        // Read in joint order beside the entities (no per-joint call or range check).
        let mut posed = pose.transforms();
        for (j, e) in binding.entities().iter().enumerate() {
            let joint = posed.next();
            let Some(e) = *e else { continue };
            if !checked {
                let named = self.owners.get(e).is_ok_and(|o| o.character == entity && usize::from(o.joint) == j);
                if !named {
                    all_named = false;
                    continue;
                }
            }
            let Some(joint) = joint else { continue };
            // SAFETY: `e`'s `ZoaJoint` names `entity` (checked above, or at
            // this generation for this entity, since when no `ZoaJoint`
            // changed), and the caller writes `entity` alone (see above).
            let Ok(mut transform) = (unsafe { self.transforms.get_unchecked(e) }) else { continue };
            set_joint(&mut transform, &joint);
        }
        drop(posed);
        if !checked {
            c.joints_named_at = all_named.then_some((entity, self.generation));
        }
    }
}

/// Updates every character, in table order, and writes its joints'
/// `Transform`s at once; each character's memory is prefetched while the
/// characters before it update (`zoa_anim_runtime::pose::prefetch_next`): a
/// frame's cost is mostly reaching each character's buffers, which a
/// per-item query closure cannot ask for ahead of time. In parallel, the
/// entities are split into chunks, one task each. This is the one pass over
/// every character a frame makes: it also notes, for the steps after it,
/// which characters have events and morph weights (see [`Evaluated`]).
#[allow(clippy::too_many_arguments)]
fn evaluate(
    time: Res<Time>,
    settings: Res<ZoaAnimationSettings>,
    mut characters: Query<(Entity, &mut ZoaCharacter)>,
    owners: Query<&'static ZoaJoint>,
    transforms: Query<&'static mut Transform, With<ZoaJoint>>,
    unnamed: Query<&'static mut Transform, Without<ZoaJoint>>,
    mut fresh: ResMut<FreshJoints>,
    generation: Res<JointGeneration>,
    mut order: Local<Vec<Entity>>,
    mut found: ResMut<Evaluated>,
) {
    let dt = time.delta_secs();
    let joints = JointWriter { owners: &owners, transforms: &transforms, generation: generation.0 };
    let pool = ComputeTaskPool::get();
    let chunk = evaluate_chunk(characters.iter().len(), pool.thread_num());
    // One task's worth is updated here: a scope would only hand it to another thread.
    if !settings.parallel || characters.iter().len() <= chunk {
        let [found] = found.reset(1) else { unreachable!("one list asked for") };
        // SAFETY: one caller writes each character's joints in turn.
        unsafe { update_in_order(characters.iter_mut(), dt, &joints, found) };
        fresh.write(&characters, unnamed);
        return;
    }
    // Reused: allocates only when the crowd grows.
    order.clear();
    order.extend(characters.iter().map(|(e, _)| e));
    let characters = &characters;
    let joints = &joints;
    let lists = found.reset(order.len().div_ceil(chunk));
    pool.scope(|scope| {
        for (chunk, found) in order.chunks(chunk).zip(lists) {
            scope.spawn(async move {
                // SAFETY: `order` holds each entity of the query once (it was
                // collected from it) and the chunks do not overlap, so no
                // character is reached by two iterators.
                let chunk = unsafe { UniqueEntitySlice::from_slice_unchecked(chunk) };
                // SAFETY: as above: the items of this iterator are characters
                // no other task's iterator yields, so no other task writes
                // their joints.
                unsafe { update_in_order(characters.iter_many_unique_unsafe(chunk), dt, joints, found) };
            });
        }
    });
    fresh.write(characters, unnamed);
}

/// Updates `characters` in order (prefetching the next four), writes their
/// joints and notes what the later steps need.
///
/// # Safety
/// No other caller yields any of these characters at the same time (see
/// [`JointWriter::write`]).
unsafe fn update_in_order<'a>(
    mut characters: impl Iterator<Item = (Entity, Mut<'a, ZoaCharacter>)>,
    dt: f32,
    joints: &JointWriter<'_, '_, '_>,
    found: &mut ChunkFound,
) {
    let mut ahead: [Option<(Entity, Mut<'a, ZoaCharacter>)>; 5] = std::array::from_fn(|_| characters.next());
    while let Some((entity, mut c)) = ahead[0].take() {
        let next = |i: usize| ahead[i].as_ref().map(|(_, c)| c.runtime());
        prefetch_next([next(1), next(2), next(3), next(4)]);
        // Evaluating is not a change gameplay made: `Changed<ZoaCharacter>`
        // keeps meaning "gameplay (or a swap) touched it" (see `bind_joints`).
        let c = c.bypass_change_detection();
        update_lent(c, dt, entity);
        // SAFETY: the caller's promise.
        unsafe { joints.write(entity, c) };
        found.note(entity, c);
        ahead.rotate_left(1);
        ahead[4] = characters.next();
    }
}

/// Each character's morph weights into its morphed nodes' `MorphWeights`
/// (when the node's weight count matches; Bevy passes them on to the mesh
/// primitives). Only with the renderer, where the component exists.
#[cfg(feature = "render")]
fn write_morph_weights(
    found: Res<Evaluated>,
    characters: Query<&ZoaCharacter>,
    mut targets: Query<&mut bevy::mesh::morph::MorphWeights>,
) {
    for c in characters.iter_many(found.with_morphs()) {
        let Some(pose) = c.morph_weights() else { continue };
        let slots = c.definition().skeleton().morphs().slots();
        for (slot, entity) in slots.iter().zip(c.morph_entities()) {
            let Some(mut target) = entity.and_then(|e| targets.get_mut(e).ok()) else { continue };
            let weights = pose.of(slot);
            if target.weights().len() == weights.len() && target.weights() != weights {
                target.weights_mut().copy_from_slice(weights);
            }
        }
    }
}

fn deliver_events(
    mut commands: Commands,
    found: Res<Evaluated>,
    mut characters: Query<(Entity, &mut ZoaCharacter)>,
    mut animation: MessageWriter<ZoaAnimationEvent>,
    mut sound: MessageWriter<ZoaSoundCue>,
    mut bridge: ResMut<ZoaSoundBridge>,
) {
    let bridge = &mut bridge.bridge;
    let mut with_events = characters.iter_many_mut(found.with_events());
    while let Some((entity, mut c)) = with_events.fetch_next() {
        let c = c.bypass_change_detection();
        bridge.sink_mut().entity = entity;
        let mut deliver = Deliver { entity, write: |m| send(&mut commands, &mut animation, m), bridge: &mut *bridge };
        // The index the runtime passes on is unused here: messages and cues
        // name their character by entity (`sink.entity` above).
        c.deliver_events(0, &mut deliver);
    }
    sound.write_batch(bridge.sink_mut().cues.drain(..));
}

/// Writes `joint` into a joint entity's `Transform` when it differs bit for
/// bit (`==` would keep a `0.0` where the pose has `-0.0`); an unchanged
/// joint is not marked changed.
fn set_joint(transform: &mut Mut<'_, Transform>, joint: &zoa_anim_core::Transform) {
    let new = bevy_transform(joint);
    let bits = |t: &Transform| {
        let (p, r, s) = (t.translation.to_array(), t.rotation.to_array(), t.scale.to_array());
        [p[0], p[1], p[2], r[0], r[1], r[2], r[3], s[0], s[1], s[2]].map(f32::to_bits)
    };
    // Folded without branches or a `memcmp` call: this runs once per joint per frame.
    if bits(transform).iter().zip(bits(&new)).fold(0, |d, (x, y)| d | (x ^ y)) != 0 {
        **transform = new;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_crowd_is_shared_evenly_between_threads_in_bounded_chunks() {
        assert_eq!(evaluate_chunk(100, 2), 50, "two tasks of 50, not 64 and 36");
        assert_eq!(evaluate_chunk(1000, 2), EVALUATE_CHUNK);
        assert_eq!(evaluate_chunk(10, 2), EVALUATE_MIN_CHUNK, "one task: updated in place");
        assert_eq!(evaluate_chunk(0, 0), EVALUATE_MIN_CHUNK);
        assert_eq!(evaluate_chunk(99, 3), 33);
    }
}

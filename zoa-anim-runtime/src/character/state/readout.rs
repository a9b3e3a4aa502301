//! What can be read off a character after a frame: its definition, time,
//! tags and speed, class and graph, the frames of its parts, the pose and
//! matrices, the events and what is bound.

use std::sync::Arc;

use glam::Mat4;
use zoa_anim_core::contracts::PoseSnapshot;
use zoa_anim_core::graph::StateIndex;
use zoa_anim_core::{
    AnimationBindingId, AnimationParameterType, AnimationSlotId, Name, NotifyPayload, PlayerProfileType, StateTagSet,
};
use zoa_anim_ik::{CompiledEquipment, EquipmentPoseService, IkReport, Role};

use super::{Behaviour, Character};
use crate::character::definition::CharacterDefinition;
use crate::character::driver::GraphDriver;
use crate::character::events::{Event, EventQueue, NotifyWindow};
use crate::character::graph::{FrameOutput, GraphInstance, ParamValue, RootMotion, SlotStatus};
use crate::character::pose_stage::PoseContribution;
use crate::character::selector::TagSelector;
use crate::pose::ik_stage::IkStage;
use crate::pose::{CurveIndex, MorphPose, Pose};

impl Character {
    /// The definition.
    #[must_use]
    pub fn definition(&self) -> &Arc<CharacterDefinition> {
        &self.def
    }
    /// Character time, seconds since spawn (a frame skipped by the level of
    /// detail advances it at the next evaluation, with that frame's events).
    #[must_use]
    pub fn time(&self) -> f64 {
        self.time
    }
    /// The significance gameplay gave last ([`Character::set_significance`]).
    #[must_use]
    pub fn significance(&self) -> f32 {
        self.lod.significance()
    }
    /// The update rate the last evaluation ran at (1: every frame; 2, 4, 8).
    #[must_use]
    pub fn update_rate(&self) -> u8 {
        self.lod.rate()
    }
    /// Whether the last update evaluated behaviour and pose (`false`: a
    /// frame skipped by the level of detail, which only moved the shown pose).
    #[must_use]
    pub fn evaluated(&self) -> bool {
        self.lod.evaluated()
    }
    /// The tags gameplay asked for last.
    #[must_use]
    pub fn tags(&self) -> StateTagSet {
        self.tags
    }
    /// The tags in effect in the selector (after hold and triggers).
    pub fn applied_tags(&self) -> Option<StateTagSet> {
        self.selector.as_ref().map(TagSelector::applied_tags)
    }
    /// The speed gameplay gave last ([`Character::set_speed`]), m/s.
    #[must_use]
    pub fn speed(&self) -> f32 {
        self.entity_speed
    }
    /// Whether the active binding profile binds `binding` to a parameter the
    /// graph in use has (with the same type, on a layer it has): a binding
    /// that is not bound is a documented no-op.
    #[must_use]
    pub fn is_bound(&self, binding: AnimationBindingId) -> bool {
        self.driver().binding_parameter(binding).is_some()
    }
    /// The bindings that do something for the current class, with their
    /// parameter types, in the profile's order.
    pub fn bound_bindings(&self) -> impl Iterator<Item = (AnimationBindingId, AnimationParameterType)> + '_ {
        self.driver().live_bindings()
    }
    /// The slots [`Character::play_slot`] can play for the current class (their clips resolve).
    pub fn playable_slots(&self) -> impl Iterator<Item = AnimationSlotId> + '_ {
        self.driver().playable_slots()
    }
    /// What the override slot plays now (slot, clip, progress, envelope);
    /// its start and end are events.
    #[must_use]
    pub fn slot(&self) -> Option<SlotStatus> {
        self.graph_instance().slot_status()
    }
    /// The loadout class in use (`None` without a player set).
    #[must_use]
    pub fn class(&self) -> Option<PlayerProfileType> {
        match &self.behaviour {
            Behaviour::Loadout(s) => Some(s.class()),
            Behaviour::Plain(_) => None,
        }
    }
    /// Id of the graph in use (`None` when the class has none).
    #[must_use]
    pub fn graph_id(&self) -> Option<&str> {
        self.graph.map(|g| self.def.graphs[g].id.as_str())
    }
    /// Index of the graph in use among the definition's graphs.
    #[must_use]
    pub fn graph_index(&self) -> Option<usize> {
        self.graph
    }
    /// The binding driver (active binding profile, validation).
    #[must_use]
    pub fn driver(&self) -> &GraphDriver {
        self.behaviour.driver()
    }
    /// The graph instance in use (a graphless instance when the class has no graph).
    #[must_use]
    pub fn graph_instance(&self) -> &GraphInstance {
        self.behaviour.driver().instance()
    }
    /// Index of the outgoing graph among the definition's graphs while a
    /// loadout switch blends (`None` otherwise, or when the outgoing class had no graph).
    #[must_use]
    pub fn previous_graph_index(&self) -> Option<usize> {
        self.behaviour.previous_instance().and(self.previous_graph)
    }
    /// The outgoing graph instance while a loadout switch blends.
    #[must_use]
    pub fn previous_graph_instance(&self) -> Option<&GraphInstance> {
        self.behaviour.previous_instance()
    }
    /// Loadout switch progress `0..=1` (1 when none blends).
    #[must_use]
    pub fn switch_alpha(&self) -> f32 {
        self.alpha
    }
    /// The tag selector (`None` when the class has no tag table).
    #[must_use]
    pub fn selector(&self) -> Option<&TagSelector> {
        self.selector.as_ref()
    }
    /// How much of the pose the selector's layer shows over the graph's base
    /// layer after the last frame (`0..=1`).
    #[must_use]
    pub fn selector_weight(&self) -> f32 {
        self.selector_weight
    }
    /// The graph's frame of the last update (layers of weighted clips).
    #[must_use]
    pub fn frame(&self) -> &FrameOutput {
        &self.frame
    }
    /// The outgoing graph's frame while a loadout switch blends (empty otherwise).
    #[must_use]
    pub fn previous_frame(&self) -> &FrameOutput {
        &self.previous_frame
    }
    /// The selector's frame of the last update.
    #[must_use]
    pub fn selector_frame(&self) -> &FrameOutput {
        &self.selector_frame
    }
    /// Local joint transforms of the last evaluation (after IK).
    #[must_use]
    pub fn local_pose(&self) -> &Pose {
        &self.pose.local
    }
    /// Morph-target weights of the last evaluation, laid out for the
    /// skeleton's [`crate::pose::MorphSet`] (`definition().skeleton().morphs()`:
    /// one slot per morphed glTF node; `MorphPose::of(slot)` is its slice).
    /// `None` when the model has no morphed node.
    #[must_use]
    pub fn morph_weights(&self) -> Option<&MorphPose> {
        self.pose.morphs.as_deref().map(|[now, _]| now)
    }
    /// Float curve `name` of the last evaluation: the clips that carry it,
    /// blended with the weights their poses blend with (0 filling where the
    /// playing clips do not carry it: Unreal's rule); 0 when no clip of the
    /// definition carries it. A name scan: [`Character::curve_index`] once
    /// and [`Character::curve_at`] per frame is cheaper.
    #[must_use]
    pub fn curve(&self, name: &str) -> f32 {
        self.curve_index(name).map_or(0.0, |i| self.curve_at(i))
    }
    /// Float curve `name` with `default` filling where the playing clips do
    /// not carry it (three.js's rule for a property's own value): a curve
    /// that scales something (`ik.hand_on_weapon`) reads 1 where no clip says
    /// otherwise. `default` when no clip of the definition carries it.
    #[must_use]
    pub fn curve_or(&self, name: &str, default: f32) -> f32 {
        self.curve_index(name).map_or(default, |i| self.curve_or_at(i, default))
    }
    /// The index of curve `name` among the definition's curves
    /// (`definition().clips().curves()`).
    #[must_use]
    pub fn curve_index(&self, name: &str) -> Option<CurveIndex> {
        self.def.clips.curves().index(name)
    }
    /// [`Character::curve`] by index (0 out of range).
    #[must_use]
    pub fn curve_at(&self, curve: CurveIndex) -> f32 {
        self.pose.curves.as_deref().map_or(0.0, |[now, _]| now.value(curve))
    }
    /// [`Character::curve_or`] by index (`default` out of range).
    #[must_use]
    pub fn curve_or_at(&self, curve: CurveIndex, default: f32) -> f32 {
        self.pose.curves.as_deref().map_or(default, |[now, _]| now.value_or(curve, default))
    }
    /// Whether a notify window called `name` is open: its begin was
    /// delivered and its end not yet (a combo input window, a hit box).
    #[must_use]
    pub fn in_window(&self, name: &str) -> bool {
        self.windows.iter().any(|w| w.name == name)
    }
    /// The notify windows open after the last frame.
    pub fn open_windows(&self) -> impl Iterator<Item = &NotifyWindow> {
        self.windows.iter()
    }
    /// The payload of a notify, window begin or window end event of this
    /// character (`None` for other events and notifies without one): typed
    /// fields held by the definition, so reading them allocates nothing.
    #[must_use]
    pub fn notify_payload(&self, event: &Event) -> Option<&NotifyPayload> {
        let (clip, notify) = event.kind.notify()?;
        self.def.clips.notify_payload(clip, notify)
    }
    /// Model-space matrices of the last evaluation (empty when it computed
    /// none: [`PoseOutput::Local`](super::PoseOutput::Local) without IK).
    #[must_use]
    pub fn model_matrices(&self) -> &[Mat4] {
        if self.computed >= super::PoseOutput::Model { &self.pose.model } else { &[] }
    }
    /// Skinning matrices (`model · inverse bind`) of the last evaluation
    /// (empty unless [`PoseOutput::Skinning`](super::PoseOutput::Skinning)).
    #[must_use]
    pub fn skinning_matrices(&self) -> &[Mat4] {
        if self.computed == super::PoseOutput::Skinning { &self.pose.skin } else { &[] }
    }
    /// Root motion of the last frame (`None` unless the definition extracts it).
    #[must_use]
    pub fn root_motion(&self) -> Option<RootMotion> {
        self.root_motion.as_ref().map(|(_, m)| *m)
    }
    /// Every input of the pose the last update composed, bottom to top: the
    /// graph's base layer, the selector's rows, the procedural fallback, the
    /// graph's upper layers and the override slot; during a loadout switch
    /// then the outgoing graph's stack ([`PoseContribution::outgoing`]).
    /// Each carries what decided it, its clip and clip time, the weight the
    /// blender used (layer × state × blend-tree child), its blend mode and
    /// mask: the pose before inertialization and IK is these, composed by
    /// [`crate::pose::ComposeJob`] (and cross-faded by
    /// [`Character::switch_alpha`]). Read back from the frame's stack, not
    /// recomputed; allocation-free.
    pub fn contributions(&self) -> impl Iterator<Item = PoseContribution> + '_ {
        self.pose.contributions()
    }
    /// Whether an inertialized transition is decaying.
    #[must_use]
    pub fn is_inertializing(&self) -> bool {
        self.pose.inertia.is_active()
    }
    /// The IK stage (`None` when the rig policy has nothing to do on this skeleton).
    #[must_use]
    pub fn ik(&self) -> Option<&IkStage> {
        self.ik.as_ref()
    }
    /// The item in hand: the `equipment` the current class holds, compiled
    /// for the skeleton (`None` with empty hands, or when the definition has
    /// no items or hand on weapon cannot run on the skeleton).
    #[must_use]
    pub fn held_item(&self) -> Option<&CompiledEquipment> {
        let i = self.equipment.as_ref()?.held()?;
        self.def.equipment.get(i)
    }
    /// The IK pose service the held items register with (`None` when the
    /// definition has no items or hand on weapon cannot run): its hand-over
    /// progress, aim and slot weights and current pose.
    #[must_use]
    pub fn equipment_service(&self) -> Option<&EquipmentPoseService> {
        self.equipment.as_ref().map(super::EquipmentIk::service)
    }
    /// The weapon pose the rig IK used in the last frame (the held item's
    /// grips, or the game's own, see [`Character::set_weapon_pose`]).
    #[must_use]
    pub fn weapon_pose(&self) -> Option<&PoseSnapshot> {
        self.ik.as_ref()?.inputs().weapon_pose.as_ref()
    }
    /// What IK aimed at in the last update: per behaviour that ran, its
    /// target, weight and reach error measured on the final model pose
    /// ([`zoa_anim_ik::RigIk::report`]; true of the last update while the IK
    /// inputs are unchanged). `None` without IK. Allocation-free.
    #[must_use]
    pub fn ik_report(&self) -> Option<IkReport> {
        self.ik.as_ref().map(|ik| ik.report(&self.pose.model))
    }
    /// The value of a bound parameter (`None` when the binding is not live).
    #[must_use]
    pub fn binding_value(&self, binding: AnimationBindingId) -> Option<ParamValue> {
        let (p, _) = self.driver().binding_parameter(binding)?;
        self.graph_instance().parameters().get(p)
    }

    /// The events since the last delivery or [`Character::clear_events`], in
    /// delivery order (time, then kind) as of the last update; each carries
    /// its name (`println!("{event}")` prints `0.350 s notify Footstep`).
    #[must_use]
    pub fn events(&self) -> &[Event] {
        self.events.events()
    }
    /// Forgets the queued events (after reading [`Character::events`]; a
    /// crowd's [`deliver_events`](Self::deliver_events) clears them itself).
    pub fn clear_events(&mut self) {
        self.events.clear();
    }
    /// Events dropped since the last delivery because the queue was full.
    #[must_use]
    pub fn dropped_events(&self) -> u32 {
        self.events.dropped()
    }
    /// The event queue, for delivery ([`super::delivery`]).
    pub(in crate::character) fn event_queue(&mut self) -> &mut EventQueue {
        &mut self.events
    }
    /// The name of `state` of the graph in use ([`Name::EMPTY`] without a graph or out of range).
    #[must_use]
    pub fn state_name(&self, state: StateIndex) -> Name {
        self.graph_instance().definition().map_or(Name::EMPTY, |d| d.state_name(state))
    }
    /// The surface under the lower foot, from the ground probe (`None`
    /// without a probe, without feet, or when the probe does not know).
    #[must_use]
    pub fn surface(&self) -> Option<&str> {
        let probe = self.ik.as_ref()?.inputs().ground.as_ref()?;
        let feet = [Role::LeftFoot, Role::RightFoot].map(|r| self.def.roles.get(r));
        let lowest = feet
            .into_iter()
            .flatten()
            .map(|j| self.pose.model[usize::from(j)].w_axis.truncate())
            .min_by(|a, b| a.y.total_cmp(&b.y))?;
        probe.surface(lowest)
    }
}

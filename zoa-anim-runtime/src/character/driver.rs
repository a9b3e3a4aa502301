//! The core's [`AnimationDriver`] contract over a [`GraphInstance`]: gameplay
//! sets parameters and plays slots by *semantic id*; the loaded binding
//! profile says which graph parameter, type and layer each id means.
//!
//! [`GraphDriver::load_profile`] resolves everything once — parameter names to
//! indices (checking type and layer), slot clip references to [`ClipId`]s
//! through an [`AnimationClipResolver`] — so the mutators are a short scan
//! over a cached table and never allocate. A binding that is absent from the
//! profile, names no parameter of the rig, has the wrong type, or routes to a
//! layer the graph does not have is a documented **no-op**;
//! [`GraphDriver::validate_profile`] lists every such problem at once.
//!
//! Layer routing: the core's graph parameters are graph-wide, so a binding's
//! layer index (`-1` = base layer 0) selects the graph layer it is meant to
//! drive; it is checked against the graph's layer count, an out-of-range
//! binding is inert, and [`GraphDriver::binding_layer`] reports the routed layer.

use std::sync::Arc;

use zoa_anim_core::bindings::BASE_LAYER;
use zoa_anim_core::contracts::{AnimationClipResolver, AnimationDriver, DriverProblem, SharedBindingProfile};
use zoa_anim_core::graph::{ParameterDefault, ParameterIndex};
use zoa_anim_core::{AnimationBindingId, AnimationParameterType, AnimationSlotId};

use crate::character::graph::{ClipId, ClipTable, GraphInstance, PlayOptions};

/// Resolves clip references by exact name in a shared [`ClipTable`].
#[derive(Debug, Clone)]
pub struct TableResolver(pub Arc<ClipTable>);

impl AnimationClipResolver for TableResolver {
    type Handle = ClipId;
    fn try_resolve(&mut self, clip_reference: &str) -> Option<ClipId> {
        self.0.index_of(clip_reference)
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
struct CachedBinding {
    id: AnimationBindingId,
    /// `Some` only when the parameter exists with the declared type on an in-range layer.
    parameter: Option<ParameterIndex>,
    kind: AnimationParameterType,
    layer: usize,
}

#[derive(Debug, Clone, Copy, PartialEq)]
struct CachedSlot {
    id: AnimationSlotId,
    clip: Option<ClipId>,
    speed: f32,
    additive: bool,
}

/// Blend timing the driver uses for slots (default 0.1 s in, 0.2 s out).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SlotBlend {
    /// Fade-in, scaled seconds (`>= 0`, default 0.1).
    pub blend_in: f32,
    /// Fade-out, scaled seconds (`>= 0`, default 0.2).
    pub blend_out: f32,
}

impl Default for SlotBlend {
    fn default() -> Self {
        SlotBlend { blend_in: 0.1, blend_out: 0.2 }
    }
}

/// An [`AnimationDriver`] over a graph instance.
pub struct GraphDriver<R: AnimationClipResolver<Handle = ClipId> = TableResolver> {
    instance: GraphInstance,
    resolver: R,
    profile: Option<SharedBindingProfile>,
    bindings: Vec<CachedBinding>,
    slots: Vec<CachedSlot>,
    slot_blend: SlotBlend,
}

impl<R: AnimationClipResolver<Handle = ClipId>> std::fmt::Debug for GraphDriver<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GraphDriver")
            .field("instance", &self.instance)
            .field("profile", &self.profile.as_ref().map(|p| p.profile_id().to_owned()))
            .field("bindings", &self.bindings)
            .field("slots", &self.slots)
            .finish_non_exhaustive()
    }
}

impl GraphDriver<TableResolver> {
    /// A driver whose slots resolve by name in the instance's clip table.
    #[must_use]
    pub fn new(instance: GraphInstance) -> GraphDriver<TableResolver> {
        let resolver = TableResolver(Arc::clone(instance.clips()));
        GraphDriver::with_resolver(instance, resolver)
    }
}

impl<R: AnimationClipResolver<Handle = ClipId>> GraphDriver<R> {
    /// A driver resolving slot clip references through `resolver`.
    pub fn with_resolver(instance: GraphInstance, resolver: R) -> GraphDriver<R> {
        GraphDriver {
            instance,
            resolver,
            profile: None,
            bindings: Vec::new(),
            slots: Vec::new(),
            slot_blend: SlotBlend::default(),
        }
    }

    /// Sets the slot blend timing.
    pub fn set_slot_blend(&mut self, blend: SlotBlend) {
        self.slot_blend = blend;
    }
    /// The driven instance.
    pub fn instance(&self) -> &GraphInstance {
        &self.instance
    }
    /// The driven instance, to update it.
    pub fn instance_mut(&mut self) -> &mut GraphInstance {
        &mut self.instance
    }
    /// Gives the instance back.
    pub fn into_instance(self) -> GraphInstance {
        self.instance
    }

    /// The graph layer binding `id` routes to, when it is live (present, resolved, in range).
    pub fn binding_layer(&self, id: AnimationBindingId) -> Option<usize> {
        self.live(id, None).map(|b| b.layer)
    }

    /// The graph parameter and type binding `id` drives, when it is live.
    pub fn binding_parameter(&self, id: AnimationBindingId) -> Option<(ParameterIndex, AnimationParameterType)> {
        self.live(id, None).and_then(|b| b.parameter.map(|p| (p, b.kind)))
    }

    /// The bindings of the loaded profile that are live, with their types, in profile order.
    pub fn live_bindings(&self) -> impl Iterator<Item = (AnimationBindingId, AnimationParameterType)> + '_ {
        self.bindings.iter().filter(|b| b.parameter.is_some()).map(|b| (b.id, b.kind))
    }

    /// The slots of the loaded profile whose clips resolve, in profile order.
    pub fn playable_slots(&self) -> impl Iterator<Item = AnimationSlotId> + '_ {
        self.slots.iter().filter(|s| s.clip.is_some()).map(|s| s.id)
    }

    fn live(&self, id: AnimationBindingId, kind: Option<AnimationParameterType>) -> Option<&CachedBinding> {
        self.bindings.iter().find(|b| b.id == id).filter(|b| b.parameter.is_some() && kind.is_none_or(|k| k == b.kind))
    }

    fn param(&self, id: AnimationBindingId, kind: AnimationParameterType) -> Option<ParameterIndex> {
        self.live(id, Some(kind)).and_then(|b| b.parameter)
    }

    fn rig_parameter(&self, name: &str) -> Option<(ParameterIndex, AnimationParameterType)> {
        let graph = self.instance.definition()?.graph();
        let i = graph.parameter(name)?;
        let kind = match graph.parameters[i.index()].default {
            ParameterDefault::Float(_) => AnimationParameterType::Float,
            ParameterDefault::Int(_) => AnimationParameterType::Int,
            ParameterDefault::Bool(_) => AnimationParameterType::Bool,
            ParameterDefault::Trigger => AnimationParameterType::Trigger,
        };
        Some((i, kind))
    }

    fn routed_layer(layer_index: i32) -> usize {
        if layer_index == BASE_LAYER { 0 } else { layer_index.max(0) as usize }
    }
}

impl<R: AnimationClipResolver<Handle = ClipId>> AnimationDriver for GraphDriver<R> {
    fn active_profile(&self) -> Option<&SharedBindingProfile> {
        self.profile.as_ref()
    }

    fn load_profile(&mut self, profile: SharedBindingProfile) {
        let layer_count = self.instance.layer_count();
        self.bindings = profile
            .bindings()
            .iter()
            .map(|b| {
                let layer = Self::routed_layer(b.layer_index);
                let parameter = self
                    .rig_parameter(&b.parameter_name)
                    .filter(|(_, kind)| *kind == b.parameter_type && layer < layer_count && b.layer_index >= BASE_LAYER)
                    .map(|(i, _)| i);
                CachedBinding { id: b.id, parameter, kind: b.parameter_type, layer }
            })
            .collect();
        let resolver = &mut self.resolver;
        let clips = self.instance.clips();
        self.slots = profile
            .slots()
            .iter()
            .map(|s| CachedSlot {
                id: s.id,
                clip: resolver.try_resolve(&s.clip_reference).filter(|c| clips.try_get(*c).is_some()),
                speed: s.speed_multiplier,
                additive: s.additive,
            })
            .collect();
        self.profile = Some(profile);
    }

    fn fire_trigger(&mut self, id: AnimationBindingId) {
        if let Some(p) = self.param(id, AnimationParameterType::Trigger) {
            self.instance.parameters_mut().set_trigger(p, true);
        }
    }

    fn set_bool(&mut self, id: AnimationBindingId, value: bool) {
        if let Some(p) = self.param(id, AnimationParameterType::Bool) {
            self.instance.parameters_mut().set_bool(p, value);
        }
    }

    fn set_float(&mut self, id: AnimationBindingId, value: f32) {
        if let Some(p) = self.param(id, AnimationParameterType::Float) {
            self.instance.parameters_mut().set_float(p, value);
        }
    }

    fn set_int(&mut self, id: AnimationBindingId, value: i32) {
        if let Some(p) = self.param(id, AnimationParameterType::Int) {
            self.instance.parameters_mut().set_int(p, value);
        }
    }

    /// Plays the slot's clip in the override slot: the clip's loop hint, the
    /// slot's speed multiplier and additive flag, the driver's [`SlotBlend`].
    fn play_slot(&mut self, id: AnimationSlotId) -> bool {
        let Some(slot) = self.slots.iter().find(|s| s.id == id).copied() else { return false };
        let Some(clip) = slot.clip else { return false };
        let looping = self.instance.clips().get(clip).loop_hint;
        let options = PlayOptions {
            looping,
            speed: slot.speed,
            blend_in: self.slot_blend.blend_in,
            blend_out: self.slot_blend.blend_out,
            additive: slot.additive,
        };
        self.instance.play_in_slot(clip, options, Some(id))
    }

    fn validate_profile(&self) -> Result<(), Vec<DriverProblem>> {
        let Some(profile) = &self.profile else { return Ok(()) };
        let layer_count = self.instance.layer_count();
        let mut problems = Vec::new();
        for b in profile.bindings() {
            match self.rig_parameter(&b.parameter_name) {
                None => problems
                    .push(DriverProblem::MissingParameter { binding: b.id, parameter: b.parameter_name.clone() }),
                Some((_, actual)) if actual != b.parameter_type => problems.push(DriverProblem::TypeMismatch {
                    binding: b.id,
                    parameter: b.parameter_name.clone(),
                    declared: b.parameter_type,
                    actual,
                }),
                Some(_) => {}
            }
            if b.layer_index < BASE_LAYER || Self::routed_layer(b.layer_index) >= layer_count {
                problems.push(DriverProblem::LayerOutOfRange { binding: b.id, layer: b.layer_index, layer_count });
            }
        }
        for (s, cached) in profile.slots().iter().zip(&self.slots) {
            if cached.clip.is_none() {
                problems.push(DriverProblem::UnresolvedSlot { slot: s.id, clip_reference: s.clip_reference.clone() });
            }
        }
        if problems.is_empty() { Ok(()) } else { Err(problems) }
    }
}

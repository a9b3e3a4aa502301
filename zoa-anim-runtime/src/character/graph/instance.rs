//! The per-character state machine: layers, clocks, transitions, the override
//! slot, and the frame update. See the module docs of [`crate::character::graph`].

use std::sync::Arc;

use zoa_anim_core::contracts::AnimationEventReceiver;
use zoa_anim_core::graph::{Interruption, ParameterIndex, StateIndex, TransitionMode};
use zoa_anim_core::{AnimationSlotId, Name};

use super::clips::{ClipId, ClipTable};
use super::definition::GraphDefinition;
use super::layer::{
    Cause, LayerCtx, LayerRuntime, MAX_ACTIVE_STATES, fresh_active, plan_travel, start_transition, update_layer,
};
use super::output::FrameOutput;
use super::params::Parameters;
use super::slot::{PlayOptions, Slot, SlotStatus};
use super::sync::SyncMemberView;
use super::{FrameClock, NotifyPolicy};
use crate::character::events::{Event, EventKind, EventQueue};

/// A contributing state, for inspection and tests.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ActiveStateView {
    /// The state.
    pub state: StateIndex,
    /// Its weight in the layer (`0..=1`, before any per-state weight multiplier).
    pub weight: f32,
    /// Normalized clock, unwrapped cycles.
    pub normalized_time: f64,
    /// Warp time scale (1 outside warped cross-fades).
    pub time_scale: f32,
}

/// The transition under way on a layer, for inspection and tests.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TransitionView {
    /// Source state.
    pub from: StateIndex,
    /// Target state.
    pub to: StateIndex,
    /// Blend length, scaled seconds.
    pub duration: f32,
    /// Scaled seconds elapsed.
    pub elapsed: f32,
    /// Cross-fade or inertialize.
    pub mode: TransitionMode,
    /// Interruption source.
    pub interruption: Interruption,
}

/// One character's behaviour state: a graph instance, or a single-clip player.
#[derive(Debug, Clone)]
pub struct GraphInstance {
    def: Option<Arc<GraphDefinition>>,
    clips: Arc<ClipTable>,
    params: Parameters,
    layers: Vec<LayerRuntime>,
    slot: Slot,
    speed: f32,
    time: f64,
    events: EventQueue,
    notify_policy: NotifyPolicy,
    scratch: Vec<f32>,
    /// Breadth-first search scratch of [`GraphInstance::travel`] (three per state).
    travel_scratch: Vec<u32>,
    next_id: u32,
    generation: u32,
}

impl GraphInstance {
    /// Prefetching for a crowd (hints, see [`crate::pose::simd::prefetch`]):
    /// stage 0 the arrays the instance points to (layers, parameters, event
    /// queue, scratch), 1 each layer's active states.
    pub(crate) fn prefetch(&self, stage: u8) {
        use crate::pose::simd::prefetch;
        if stage == 0 {
            prefetch(&self.layers, usize::MAX);
            self.params.prefetch();
            self.events.prefetch();
            prefetch(&self.scratch, usize::MAX);
        } else {
            for layer in &self.layers {
                prefetch(&layer.active, usize::MAX);
            }
        }
    }
    /// An instance of `def`, every layer in its entry state, parameters at
    /// their defaults, speed 1, an event queue of
    /// [`EventQueue::DEFAULT_CAPACITY`].
    #[must_use]
    pub fn new(def: Arc<GraphDefinition>) -> GraphInstance {
        let graph = def.graph();
        let mut next_id = 0;
        let layers = graph
            .layers
            .iter()
            .map(|l| {
                let entry = fresh_active(&mut next_id, graph.leaf_of(l.entry), 1.0);
                LayerRuntime::new(entry, l.weight, graph.states.len())
            })
            .collect();
        GraphInstance {
            clips: Arc::clone(def.clips()),
            params: Parameters::from_definitions(&graph.parameters),
            layers,
            slot: Slot::new(false),
            speed: 1.0,
            time: 0.0,
            events: EventQueue::with_capacity(EventQueue::DEFAULT_CAPACITY),
            notify_policy: NotifyPolicy::default(),
            scratch: vec![0.0; def.scratch_len()],
            travel_scratch: vec![0; 3 * graph.states.len()],
            next_id,
            generation: 0,
            def: Some(def),
        }
    }

    /// Single-clip mode: no graph; `default_clip`, when given,
    /// autoplays (looping or once; a one-shot holds its last frame).
    #[must_use]
    pub fn single_clip(clips: Arc<ClipTable>, default_clip: Option<(ClipId, bool)>) -> GraphInstance {
        let mut inst = GraphInstance {
            clips,
            def: None,
            params: Parameters::from_definitions(&[]),
            layers: Vec::new(),
            slot: Slot::new(true),
            speed: 1.0,
            time: 0.0,
            events: EventQueue::with_capacity(EventQueue::DEFAULT_CAPACITY),
            notify_policy: NotifyPolicy::default(),
            scratch: vec![0.0; 1],
            travel_scratch: Vec::new(),
            next_id: 0,
            generation: 0,
        };
        if let Some((clip, looping)) = default_clip {
            inst.play(clip, looping);
        }
        inst
    }

    /// No graph, only the override slot over the rest of the character's pose
    /// (a character driven by its tag table): unlike [`single_clip`](Self::single_clip),
    /// a one-shot in the slot fades out at its end instead of holding its last frame.
    #[must_use]
    pub fn without_graph(clips: Arc<ClipTable>) -> GraphInstance {
        GraphInstance { slot: Slot::new(false), ..GraphInstance::single_clip(clips, None) }
    }

    /// Builder: event queue capacity (events past it in one delivery period are dropped and counted).
    #[must_use]
    pub fn with_event_capacity(mut self, capacity: usize) -> GraphInstance {
        self.events = EventQueue::with_capacity(capacity);
        self
    }

    /// Builder: notify policy.
    #[must_use]
    pub fn with_notify_policy(mut self, policy: NotifyPolicy) -> GraphInstance {
        self.notify_policy = policy;
        self
    }

    /// Output buffers big enough for any frame of this instance.
    #[must_use]
    pub fn new_output(&self) -> FrameOutput {
        let per_layer = MAX_ACTIVE_STATES * self.def.as_ref().map_or(1, |d| d.max_children());
        FrameOutput::with_capacity(self.layers.len() + 1, self.layers.len() * per_layer + 2)
    }

    /// The graph definition (`None` in single-clip mode).
    #[must_use]
    pub fn definition(&self) -> Option<&Arc<GraphDefinition>> {
        self.def.as_ref()
    }
    /// The clip table.
    #[must_use]
    pub fn clips(&self) -> &Arc<ClipTable> {
        &self.clips
    }
    /// Parameter values.
    #[must_use]
    pub fn parameters(&self) -> &Parameters {
        &self.params
    }
    /// Parameter values, to set by index.
    pub fn parameters_mut(&mut self) -> &mut Parameters {
        &mut self.params
    }
    /// Index of a parameter by name (a linear scan, no allocation).
    #[must_use]
    pub fn parameter(&self, name: &str) -> Option<ParameterIndex> {
        self.def.as_ref()?.graph().parameter(name)
    }
    /// Sets a float parameter by name; `false` when absent or of another kind.
    pub fn set_float(&mut self, name: &str, value: f32) -> bool {
        self.parameter(name).is_some_and(|i| self.params.set_float(i, value))
    }
    /// Sets an int parameter by name; `false` when absent or of another kind.
    pub fn set_int(&mut self, name: &str, value: i32) -> bool {
        self.parameter(name).is_some_and(|i| self.params.set_int(i, value))
    }
    /// Sets a bool parameter by name; `false` when absent or of another kind.
    pub fn set_bool(&mut self, name: &str, value: bool) -> bool {
        self.parameter(name).is_some_and(|i| self.params.set_bool(i, value))
    }
    /// Sets a trigger by name; `false` when absent or of another kind.
    pub fn set_trigger(&mut self, name: &str) -> bool {
        self.parameter(name).is_some_and(|i| self.params.set_trigger(i, true))
    }

    /// Instance speed (`>= 0`, default 1): scales every clock, blend and envelope.
    #[must_use]
    pub fn speed(&self) -> f32 {
        self.speed
    }
    /// Sets the instance speed (negative or non-finite values become 0).
    pub fn set_speed(&mut self, speed: f32) {
        self.speed = if speed.is_finite() { speed.max(0.0) } else { 0.0 };
    }
    /// Instance time, seconds (sum of unscaled frame lengths).
    #[must_use]
    pub fn time(&self) -> f64 {
        self.time
    }
    /// Number of graph layers (0 in single-clip mode).
    #[must_use]
    pub fn layer_count(&self) -> usize {
        self.layers.len()
    }
    /// Sets a layer's weight (clamped to `0..=1`); `false` when out of range.
    pub fn set_layer_weight(&mut self, layer: usize, weight: f32) -> bool {
        match self.layers.get_mut(layer) {
            Some(l) if weight.is_finite() => {
                l.weight = weight.clamp(0.0, 1.0);
                true
            }
            _ => false,
        }
    }
    /// The current state of `layer` (the target of a transition under way).
    #[must_use]
    pub fn current_state(&self, layer: usize) -> Option<StateIndex> {
        self.layers.get(layer).and_then(|l| l.active.first()).map(|a| a.state)
    }
    /// Name of the current state of `layer`.
    #[must_use]
    pub fn current_state_name(&self, layer: usize) -> Option<&str> {
        let s = self.current_state(layer)?;
        Some(&self.def.as_ref()?.graph().states[s.index()].name)
    }
    /// The states contributing to `layer`, current first.
    pub fn active_states(&self, layer: usize) -> impl Iterator<Item = ActiveStateView> + '_ {
        self.layers.get(layer).into_iter().flat_map(|l| l.active.iter()).map(|a| ActiveStateView {
            state: a.state,
            weight: a.weight,
            normalized_time: a.total,
            time_scale: a.time_scale,
        })
    }
    /// The states of sync groups contributing to `layer` after the last
    /// frame: who leads each group, which clip's markers each follows by, and
    /// where it is.
    pub fn sync_members(&self, layer: usize) -> impl Iterator<Item = SyncMemberView> + '_ {
        let def = self.def.as_deref();
        self.layers.get(layer).zip(def).into_iter().flat_map(|(lr, def)| super::layer::sync_members(def, lr))
    }
    /// `(clip, notify)` of the notify windows open on `layer`'s leading clip.
    pub(crate) fn open_windows(&self, layer: usize) -> impl Iterator<Item = (ClipId, u16)> + '_ {
        self.layers.get(layer).into_iter().flat_map(|lr| lr.windows.open(&self.clips))
    }
    /// The transition under way on `layer`.
    #[must_use]
    pub fn transition(&self, layer: usize) -> Option<TransitionView> {
        self.layers.get(layer)?.running.map(|r| TransitionView {
            from: r.from,
            to: r.to,
            duration: r.duration,
            elapsed: r.elapsed,
            mode: r.mode,
            interruption: r.interruption,
        })
    }
    /// Whether the override slot (or the single-clip player) plays something.
    #[must_use]
    pub fn slot_playing(&self) -> bool {
        self.slot.is_playing()
    }
    /// The clip the slot plays.
    #[must_use]
    pub fn slot_clip(&self) -> Option<ClipId> {
        self.slot.clip()
    }
    /// What the override slot plays now: slot, clip, progress, envelope.
    #[must_use]
    pub fn slot_status(&self) -> Option<SlotStatus> {
        self.slot.status(&self.clips)
    }
    /// The interrupted end of what the slot plays, unless already reported.
    pub(crate) fn slot_unreported_end(&self) -> Option<(EventKind, Name)> {
        self.slot.unreported_end(&self.clips)
    }
    /// The slot's envelope weight after the last frame.
    #[must_use]
    pub fn slot_weight(&self) -> f32 {
        self.slot.envelope()
    }
    /// Queued events, in queue order (sorted into delivery order by [`GraphInstance::deliver_events`]).
    #[must_use]
    pub fn events(&self) -> &[Event] {
        self.events.events()
    }
    /// Events dropped because the queue was full since the last delivery.
    #[must_use]
    pub fn dropped_events(&self) -> u32 {
        self.events.dropped()
    }
    /// Forgets queued events.
    pub fn clear_events(&mut self) {
        self.events.clear();
    }

    /// Sorts the queued events (time, kind, queue order), hands them to
    /// `receiver` (see [`crate::character::events::deliver_to`]), and clears the queue.
    pub fn deliver_events(&mut self, receiver: &mut dyn AnimationEventReceiver) {
        self.events.sort();
        for e in self.events.events() {
            crate::character::events::deliver_to(receiver, e, |s| {
                self.def.as_ref().map_or(zoa_anim_core::Name::EMPTY, |d| d.state_name(s))
            });
        }
        self.events.clear();
    }

    /// Forces `state`: interrupts any transition
    /// on its layer and cross-fades into it over `blend` seconds (`None` =
    /// the state's own `crossfade.duration`; 0 cuts). `false` when out of range
    /// or in single-clip mode.
    pub fn play_state(&mut self, state: StateIndex, blend: Option<f32>) -> bool {
        let Some(def) = self.def.as_deref() else { return false };
        let Some(st) = def.graph().states.get(state.index()) else { return false };
        let layer = st.layer;
        let blend = blend.filter(|b| b.is_finite()).unwrap_or(st.crossfade.duration).max(0.0);
        let frame = FrameClock { t0: self.time, dt: 0.0, scaled: 0.0 };
        let mut ctx = LayerCtx {
            def,
            params: &mut self.params,
            events: &mut self.events,
            scratch: &mut self.scratch,
            next_id: &mut self.next_id,
            generation: &mut self.generation,
            frame,
            layer: layer as u16,
        };
        let lr = &mut self.layers[layer];
        lr.stop_travel();
        let from = lr.active[0].state;
        let cause = Cause { transition: None, exit_time: false };
        start_transition(&mut ctx, lr, from, state, blend, TransitionMode::Crossfade, Interruption::None, cause);
        true
    }

    /// Travels to `state` (Godot's playback `travel`): along the shortest
    /// chain of transitions from the state its layer plays (fewest hops, ties
    /// to authoring order; conditions and exit times ignored), each taken with
    /// its own blend once the previous one has finished, so every state on the
    /// way is entered and left with its events. A sub-state machine is
    /// travelled to its entry. `false` (and nothing changes) when no chain
    /// reaches it; `true` at once when already there. The layer's own
    /// transitions wait until the travel ends; [`GraphInstance::play_state`]
    /// cancels it. Allocation-free.
    pub fn travel(&mut self, state: StateIndex) -> bool {
        let Some(def) = self.def.as_deref() else { return false };
        let Some(st) = def.graph().states.get(state.index()) else { return false };
        let lr = &mut self.layers[st.layer];
        plan_travel(def, lr, state, &mut self.travel_scratch)
    }

    /// [`GraphInstance::travel`] by state name; `false` when there is none.
    pub fn travel_named(&mut self, name: &str) -> bool {
        match self.def.as_ref().and_then(|d| d.graph().state(name)) {
            Some(s) => self.travel(s),
            None => false,
        }
    }

    /// Whether `layer` is travelling ([`GraphInstance::travel`]).
    #[must_use]
    pub fn is_travelling(&self, layer: usize) -> bool {
        self.layers.get(layer).is_some_and(LayerRuntime::travelling)
    }

    /// Whether the state `layer` plays is `state` or inside the sub-state
    /// machine `state`.
    #[must_use]
    pub fn is_in_state(&self, layer: usize, state: StateIndex) -> bool {
        match (self.def.as_ref(), self.current_state(layer)) {
            (Some(d), Some(s)) => d.graph().is_within(s, state),
            _ => false,
        }
    }

    /// Forces a state by name; `false` when there is none.
    pub fn play_state_named(&mut self, name: &str, blend: Option<f32>) -> bool {
        match self.def.as_ref().and_then(|d| d.graph().state(name)) {
            Some(s) => self.play_state(s, blend),
            None => false,
        }
    }

    /// Plays `clip` at once (single-clip mode: as
    /// the clip; with a graph: in the override slot). `false` for an unknown clip.
    pub fn play(&mut self, clip: ClipId, looping: bool) -> bool {
        self.play_override(clip, PlayOptions { looping, ..PlayOptions::default() })
    }

    /// Cross-fades from what the slot plays to
    /// `clip` over `seconds` (fades in when nothing plays). `false` for an unknown clip.
    pub fn blend_to(&mut self, clip: ClipId, looping: bool, seconds: f32) -> bool {
        if self.clips.try_get(clip).is_none() {
            return false;
        }
        self.slot.blend_to(clip, looping, seconds, &self.clips, self.time, &mut self.events);
        true
    }

    /// Plays `clip` in the override slot
    /// with explicit options. `false` for an unknown clip.
    pub fn play_override(&mut self, clip: ClipId, options: PlayOptions) -> bool {
        self.play_in_slot(clip, options, None)
    }

    /// Plays `clip` in the override slot on behalf of `slot` (progress events
    /// name it). `false` for an unknown clip.
    pub fn play_in_slot(&mut self, clip: ClipId, options: PlayOptions, slot: Option<AnimationSlotId>) -> bool {
        if self.clips.try_get(clip).is_none() {
            return false;
        }
        self.slot.play(clip, options, slot, &self.clips, self.time, &mut self.events);
        true
    }

    /// Stops the slot at once.
    pub fn stop(&mut self) {
        self.slot.stop(0.0, &self.clips, self.time, &mut self.events);
    }

    /// Fades the slot out over `blend_out` scaled seconds.
    pub fn stop_with(&mut self, blend_out: f32) {
        self.slot.stop(blend_out, &self.clips, self.time, &mut self.events);
    }

    /// Advances the instance by `dt` seconds (scaled by its speed) and writes
    /// the frame into `out` (cleared first). Queues events. Allocation-free
    /// once `out` is sized by [`GraphInstance::new_output`].
    pub fn update(&mut self, dt: f32, out: &mut FrameOutput) {
        let dt = if dt.is_finite() { dt.max(0.0) } else { 0.0 };
        let frame = FrameClock { t0: self.time, dt, scaled: dt * self.speed };
        self.time += f64::from(dt);
        out.clear();
        // Borrowed, not cloned: an `Arc` clone per update is an atomic add
        // on a count every thread's characters share, a cache line the cores
        // pass back and forth.
        if let Some(def) = self.def.as_deref() {
            for (l, lr) in self.layers.iter_mut().enumerate() {
                let mut ctx = LayerCtx {
                    def,
                    params: &mut self.params,
                    events: &mut self.events,
                    scratch: &mut self.scratch,
                    next_id: &mut self.next_id,
                    generation: &mut self.generation,
                    frame,
                    layer: l as u16,
                };
                update_layer(&mut ctx, lr, self.notify_policy, out);
            }
        }
        self.slot.update(&self.clips, frame, self.notify_policy, &mut self.events, out);
    }
}

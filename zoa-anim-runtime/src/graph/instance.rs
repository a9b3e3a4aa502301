//! The per-character state machine: layers, clocks, transitions, the override
//! slot, and the frame update. See the module docs of [`crate::graph`].

use std::sync::Arc;

use rayon::prelude::*;
use zoa_anim_core::AnimationSlotId;
use zoa_anim_core::contracts::AnimationEventReceiver;
use zoa_anim_core::graph::{BlendMode, GraphState, Interruption, ParameterIndex, StateIndex, TransitionMode};

use super::clips::{ClipId, ClipTable};
use super::definition::GraphDefinition;
use super::output::{ClipContribution, ContributionSource, FrameOutput, Inertialization, MaskRef, clip_span};
use super::params::Parameters;
use super::slot::{PlayOptions, Slot, SlotStatus};
use super::{FrameClock, NotifyPolicy, emit_clip_notifies};
use crate::blend_tree::SyncClock;
use crate::events::{Event, EventKind, EventQueue, NotifySource};
use crate::fade::crossfade_weight;

/// Most states contributing to one layer at once (the current one plus fading ones).
pub const MAX_ACTIVE_STATES: usize = 4;

#[derive(Debug, Clone, Copy, PartialEq)]
struct Active {
    /// Unique per instance, to recognise an entry after the list shifts.
    id: u32,
    state: StateIndex,
    /// Weight now.
    weight: f32,
    /// Weight when the transition under way started.
    weight0: f32,
    /// Normalized clock, unwrapped cycles.
    total: f64,
    prev_total: f64,
    /// Warp time scale (1 outside warped cross-fades).
    time_scale: f32,
    /// Entered since the last advance.
    fresh: bool,
}

#[derive(Debug, Clone, Copy, PartialEq)]
struct Running {
    from: StateIndex,
    to: StateIndex,
    from_id: u32,
    to_id: u32,
    duration: f32,
    elapsed: f32,
    interruption: Interruption,
    mode: TransitionMode,
    /// Seconds per cycle of the outgoing and incoming states, for warp.
    warp: Option<(f32, f32)>,
}

impl Running {
    fn alpha(&self) -> f32 {
        crate::fade::ramp(self.elapsed, self.duration)
    }
}

#[derive(Debug, Clone, PartialEq)]
struct LayerRuntime {
    active: Vec<Active>,
    running: Option<Running>,
    inertial: Option<Inertialization>,
    weight: f32,
}

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
    next_id: u32,
    generation: u32,
}

struct LayerCtx<'a> {
    def: &'a GraphDefinition,
    params: &'a mut Parameters,
    events: &'a mut EventQueue,
    scratch: &'a mut [f32],
    next_id: &'a mut u32,
    generation: &'a mut u32,
    frame: FrameClock,
    layer: u16,
}

impl GraphInstance {
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
                let mut active = Vec::with_capacity(MAX_ACTIVE_STATES + 1);
                active.push(fresh_active(&mut next_id, l.entry, 1.0));
                LayerRuntime { active, running: None, inertial: None, weight: l.weight }
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
            scratch: vec![0.0; def.max_children()],
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
    /// `receiver` (see [`crate::events::deliver_to`]), and clears the queue.
    pub fn deliver_events(&mut self, receiver: &mut dyn AnimationEventReceiver) {
        self.events.sort();
        for e in self.events.events() {
            crate::events::deliver_to(receiver, e, |s| {
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
        let Some(def) = self.def.clone() else { return false };
        let Some(st) = def.graph().states.get(state.index()) else { return false };
        let layer = st.layer;
        let blend = blend.filter(|b| b.is_finite()).unwrap_or(st.crossfade.duration).max(0.0);
        let frame = FrameClock { t0: self.time, dt: 0.0, scaled: 0.0 };
        let mut ctx = LayerCtx {
            def: &def,
            params: &mut self.params,
            events: &mut self.events,
            scratch: &mut self.scratch,
            next_id: &mut self.next_id,
            generation: &mut self.generation,
            frame,
            layer: layer as u16,
        };
        let lr = &mut self.layers[layer];
        let from = lr.active[0].state;
        let cause = Cause { transition: None, exit_time: false };
        start_transition(&mut ctx, lr, from, state, blend, TransitionMode::Crossfade, Interruption::None, cause);
        true
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
        if let Some(def) = self.def.clone() {
            for (l, lr) in self.layers.iter_mut().enumerate() {
                let mut ctx = LayerCtx {
                    def: &def,
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

/// Updates every instance on the calling thread; `outputs[i]` receives instance `i`'s frame.
pub fn update_all(instances: &mut [GraphInstance], outputs: &mut [FrameOutput], dt: f32) {
    debug_assert_eq!(instances.len(), outputs.len(), "one output per instance");
    for (i, o) in instances.iter_mut().zip(outputs) {
        i.update(dt, o);
    }
}

/// [`update_all`] with rayon across instances. Instances share nothing
/// mutable and queue their own events, so outputs and (after
/// [`deliver_all`]) event order are identical to the serial run.
pub fn update_all_parallel(instances: &mut [GraphInstance], outputs: &mut [FrameOutput], dt: f32) {
    debug_assert_eq!(instances.len(), outputs.len(), "one output per instance");
    instances.par_iter_mut().zip(outputs.par_iter_mut()).for_each(|(i, o)| i.update(dt, o));
}

fn fresh_active(next_id: &mut u32, state: StateIndex, weight: f32) -> Active {
    let id = *next_id;
    *next_id = next_id.wrapping_add(1);
    Active { id, state, weight, weight0: weight, total: 0.0, prev_total: 0.0, time_scale: 1.0, fresh: true }
}

/// Child weights of `state` into `out[..n]`; returns `n`.
fn child_weights(def: &GraphDefinition, params: &Parameters, state: StateIndex, out: &mut [f32]) -> usize {
    let cs = &def.states[state.index()];
    let n = cs.clips.len();
    match &cs.tree {
        None => out[0] = 1.0,
        Some(tree) => {
            let x = cs.x.map_or(0.0, |p| params.number(p));
            let y = cs.y.map_or(0.0, |p| params.number(p));
            tree.weights(x, y, &mut out[..n]);
        }
    }
    n
}

/// Seconds one normalized cycle of `state` lasts at state speed 1 (`Σ wᵢ·dᵢ/rateᵢ`).
fn state_cycle(def: &GraphDefinition, params: &Parameters, state: StateIndex, scratch: &mut [f32]) -> f32 {
    let n = child_weights(def, params, state, scratch);
    let clips = def.clips();
    SyncClock::cycle_length(
        &scratch[..n],
        def.states[state.index()].clips.iter().map(|&c| clips.get(c).playback_length()),
    )
}

/// Seconds per cycle at the state's own speed (for warp ratios).
fn effective_cycle(def: &GraphDefinition, params: &Parameters, state: StateIndex, scratch: &mut [f32]) -> f32 {
    state_cycle(def, params, state, scratch) / def.graph().states[state.index()].speed
}

fn exit_reached(a: &Active, looping: bool, exit: f32) -> bool {
    let f = f64::from(exit);
    if looping { (a.total - f).floor() > (a.prev_total - f).floor() } else { a.total >= f }
}

fn update_layer(ctx: &mut LayerCtx<'_>, lr: &mut LayerRuntime, policy: NotifyPolicy, out: &mut FrameOutput) {
    let def = ctx.def;
    let graph = def.graph();
    let frame = ctx.frame;
    // 1. Advance clocks. A warp's time scale is taken at the end of the step,
    //    as three.js evaluates its time-scale interpolant at the mixer time
    //    after adding the step (`AnimationMixer.update` → `_updateTimeScale(time)`).
    let alpha_end = lr.running.map(|r| Running { elapsed: r.elapsed + frame.scaled, ..r }.alpha());
    for a in lr.active.iter_mut() {
        if let (Some(r), Some(alpha)) = (lr.running, alpha_end)
            && let Some((c_out, c_in)) = r.warp
        {
            if a.id == r.to_id {
                a.time_scale = c_in / c_out + (1.0 - c_in / c_out) * alpha;
            } else if a.id == r.from_id {
                a.time_scale = 1.0 + (c_out / c_in - 1.0) * alpha;
            }
        }
        let st = &graph.states[a.state.index()];
        let cycle = state_cycle(def, ctx.params, a.state, ctx.scratch);
        a.prev_total = a.total;
        if cycle > 0.0 {
            a.total += f64::from(frame.scaled * st.speed * a.time_scale / cycle);
        } else if !st.looping {
            a.total = 1.0;
        }
        if !st.looping {
            a.total = a.total.min(1.0);
        }
    }
    // 2. Blend weights of the transition under way.
    if let Some(r) = lr.running.as_mut() {
        r.elapsed += frame.scaled;
        let alpha = r.alpha();
        if r.mode == TransitionMode::Crossfade {
            for (k, a) in lr.active.iter_mut().enumerate() {
                a.weight = crossfade_weight(a.weight0, k == 0, alpha);
            }
        } else if let Some(i) = lr.inertial.as_mut() {
            i.elapsed = r.elapsed.min(r.duration);
        }
    }
    // 3. Notifies.
    emit_layer_notifies(ctx, lr, policy);
    for a in lr.active.iter_mut() {
        a.fresh = false;
    }
    // 4. Finish the transition under way.
    if let Some(r) = lr.running
        && r.alpha() >= 1.0
    {
        for a in lr.active.drain(1..) {
            ctx.events.push(
                frame.end(),
                EventKind::StateExited { layer: ctx.layer, state: a.state },
                def.state_name(a.state),
            );
        }
        let a = &mut lr.active[0];
        a.weight = 1.0;
        a.weight0 = 1.0;
        a.time_scale = 1.0;
        lr.running = None;
        lr.inertial = None;
        ctx.events.push(
            frame.end(),
            EventKind::TransitionFinished { layer: ctx.layer, from: r.from, to: r.to, interrupted: false },
            def.state_name(r.to),
        );
    }
    // 5. Try transitions.
    if let Some((t, from)) = pick_transition(ctx, lr) {
        let tr = &graph.transitions[t];
        ctx.params.consume_triggers(&tr.conditions);
        let cause = Cause { transition: Some(t as u32), exit_time: tr.exit_time.is_some() };
        start_transition(ctx, lr, from, tr.to, tr.blend, tr.mode, tr.interruption, cause);
    }
    // 6. Output.
    write_layer(ctx, lr, out);
}

/// The first transition that may fire now, with its source state.
fn pick_transition(ctx: &LayerCtx<'_>, lr: &LayerRuntime) -> Option<(usize, StateIndex)> {
    let def = ctx.def;
    let graph = def.graph();
    let (source, clock, skip_to) = match lr.running {
        None => (lr.active[0].state, &lr.active[0], None),
        Some(r) => match r.interruption {
            Interruption::None => return None,
            Interruption::Current => {
                let a = lr.active.iter().find(|a| a.id == r.from_id)?;
                (r.from, a, Some(r.to))
            }
            Interruption::Next => (r.to, &lr.active[0], None),
        },
    };
    let looping = graph.states[source.index()].looping;
    def.outgoing(source).iter().map(|&t| t as usize).find_map(|t| {
        let tr = &graph.transitions[t];
        if Some(tr.to) == skip_to {
            return None;
        }
        let exit_ok = tr.exit_time.is_none_or(|e| exit_reached(clock, looping, e));
        (exit_ok && ctx.params.all_hold(&tr.conditions)).then_some((t, source))
    })
}

/// Why a transition starts: which authored transition (`None` when forced by
/// [`GraphInstance::play_state`]) and whether at its exit time.
#[derive(Debug, Clone, Copy)]
struct Cause {
    transition: Option<u32>,
    exit_time: bool,
}

#[allow(clippy::too_many_arguments)]
fn start_transition(
    ctx: &mut LayerCtx<'_>,
    lr: &mut LayerRuntime,
    from: StateIndex,
    to: StateIndex,
    blend: f32,
    mode: TransitionMode,
    interruption: Interruption,
    cause: Cause,
) {
    let now = ctx.frame.end();
    let layer = ctx.layer;
    if let Some(old) = lr.running.take() {
        let name = ctx.def.state_name(old.to);
        ctx.events.push(
            now,
            EventKind::TransitionFinished { layer, from: old.from, to: old.to, interrupted: true },
            name,
        );
    }
    lr.inertial = None;
    let current = lr.active[0];
    let Cause { transition, exit_time } = cause;
    let to_name = ctx.def.state_name(to);
    ctx.events.push(now, EventKind::TransitionStarted { layer, from, to, transition, exit_time }, to_name);
    ctx.events.push(now, EventKind::StateEntered { layer, state: to, from: current.state }, to_name);
    let blend = if blend.is_finite() { blend.max(0.0) } else { 0.0 };
    if blend <= 0.0 || mode == TransitionMode::Inertialize {
        for a in lr.active.drain(..) {
            ctx.events.push(now, EventKind::StateExited { layer, state: a.state }, ctx.def.state_name(a.state));
        }
        let entry = fresh_active(ctx.next_id, to, 1.0);
        lr.active.push(entry);
        if blend > 0.0 {
            *ctx.generation = ctx.generation.wrapping_add(1);
            lr.running = Some(Running {
                from,
                to,
                from_id: current.id,
                to_id: entry.id,
                duration: blend,
                elapsed: 0.0,
                interruption,
                mode,
                warp: None,
            });
            lr.inertial =
                Some(Inertialization { started_at: now, duration: blend, elapsed: 0.0, generation: *ctx.generation });
        } else {
            ctx.events.push(now, EventKind::TransitionFinished { layer, from, to, interrupted: false }, to_name);
        }
        return;
    }
    // The entry the new transition leaves: the source state's newest entry.
    let source = lr.active.iter().find(|a| a.state == from).copied().unwrap_or(current);
    let warp = crossfade_warp(ctx, source.state, to);
    for a in lr.active.iter_mut() {
        a.weight0 = a.weight;
        a.time_scale = 1.0;
    }
    if lr.active.len() >= MAX_ACTIVE_STATES {
        drop_weakest(ctx, lr);
    }
    let mut entry = fresh_active(ctx.next_id, to, 0.0);
    if let Some((c_out, c_in)) = warp {
        entry.time_scale = c_in / c_out;
    }
    lr.active.insert(0, entry);
    lr.running = Some(Running {
        from,
        to,
        from_id: source.id,
        to_id: entry.id,
        duration: blend,
        elapsed: 0.0,
        interruption,
        mode,
        warp,
    });
}

/// The (outgoing, incoming) cycle lengths when state `to` warps its
/// cross-fade from `from` and both cycles are positive.
fn crossfade_warp(ctx: &mut LayerCtx<'_>, from: StateIndex, to: StateIndex) -> Option<(f32, f32)> {
    let def = ctx.def;
    if !def.graph().states[to.index()].crossfade.warp {
        return None;
    }
    let c_out = effective_cycle(def, ctx.params, from, ctx.scratch);
    let c_in = effective_cycle(def, ctx.params, to, ctx.scratch);
    (c_out > 0.0 && c_in > 0.0).then_some((c_out, c_in))
}

/// Makes room for one more active state: drops the weakest fading state
/// (queuing its exit) and renormalizes the rest.
fn drop_weakest(ctx: &mut LayerCtx<'_>, lr: &mut LayerRuntime) {
    let (k, _) = lr
        .active
        .iter()
        .enumerate()
        .min_by(|a, b| a.1.weight.total_cmp(&b.1.weight))
        .expect("the list is full, so not empty");
    let dropped = lr.active.remove(k);
    let name = ctx.def.state_name(dropped.state);
    ctx.events.push(ctx.frame.end(), EventKind::StateExited { layer: ctx.layer, state: dropped.state }, name);
    let sum: f32 = lr.active.iter().map(|a| a.weight0).sum();
    for a in lr.active.iter_mut() {
        a.weight0 = if sum > 0.0 { a.weight0 / sum } else { 1.0 / MAX_ACTIVE_STATES as f32 };
        a.weight = a.weight0;
    }
}

fn layer_mask(graph_layer_has_mask: bool, layer: u16) -> MaskRef {
    if graph_layer_has_mask { MaskRef::Layer(layer) } else { MaskRef::None }
}

fn state_looks(st: &GraphState, state: StateIndex, layer_mode: BlendMode, layer_mask: MaskRef) -> (BlendMode, MaskRef) {
    (st.blend_mode.unwrap_or(layer_mode), if st.bone_mask.is_some() { MaskRef::State(state) } else { layer_mask })
}

fn write_layer(ctx: &mut LayerCtx<'_>, lr: &LayerRuntime, out: &mut FrameOutput) {
    let def = ctx.def;
    let graph = def.graph();
    let gl = &graph.layers[usize::from(ctx.layer)];
    let lmask = layer_mask(gl.bone_mask.is_some(), ctx.layer);
    if !out.begin_layer(ctx.layer, lr.weight, gl.blend_mode, lmask) {
        return;
    }
    if let Some(l) = out.layers.last_mut() {
        l.inertialization = lr.inertial;
    }
    let clips = def.clips();
    for a in &lr.active {
        let st = &graph.states[a.state.index()];
        let (mode, mask) = state_looks(st, a.state, gl.blend_mode, lmask);
        let layer_weight = st.weight.unwrap_or(lr.weight);
        let phase = if st.looping { a.total.fract() } else { a.total.min(1.0) } as f32;
        let n = child_weights(def, ctx.params, a.state, ctx.scratch);
        for (i, &clip) in def.states[a.state.index()].clips.iter().enumerate().take(n) {
            let w = ctx.scratch[i] * a.weight * layer_weight;
            if w <= 0.0 {
                continue;
            }
            let (prev_time, _, wraps) = clip_span(a.prev_total, a.total, st.looping, clips.get(clip).duration);
            out.push(ClipContribution {
                clip,
                time: phase * clips.get(clip).duration,
                prev_time,
                wraps,
                weight: w,
                looping: st.looping,
                blend_mode: mode,
                mask,
                source: ContributionSource::State { state: a.state, child: i as u16 },
            });
        }
    }
}

fn emit_layer_notifies(ctx: &mut LayerCtx<'_>, lr: &LayerRuntime, policy: NotifyPolicy) {
    let def = ctx.def;
    let graph = def.graph();
    let clips = def.clips();
    let mut best: Option<(f32, usize, usize)> = None;
    for (k, a) in lr.active.iter().enumerate() {
        let looping = graph.states[a.state.index()].looping;
        let n = child_weights(def, ctx.params, a.state, ctx.scratch);
        for i in 0..n {
            let w = ctx.scratch[i] * a.weight;
            if w <= 0.0 {
                continue;
            }
            match policy {
                NotifyPolicy::All => {
                    let clip = def.states[a.state.index()].clips[i];
                    emit_clip_notifies(
                        clips,
                        clip,
                        a.prev_total,
                        a.total,
                        looping,
                        a.fresh,
                        NotifySource::Graph { layer: ctx.layer },
                        ctx.frame,
                        ctx.events,
                    );
                }
                NotifyPolicy::HighestWeight => {
                    if best.is_none_or(|(bw, _, _)| w > bw) {
                        best = Some((w, k, i));
                    }
                }
            }
        }
    }
    if let Some((_, k, i)) = best {
        let a = &lr.active[k];
        let looping = graph.states[a.state.index()].looping;
        let clip = def.states[a.state.index()].clips[i];
        let source = NotifySource::Graph { layer: ctx.layer };
        emit_clip_notifies(clips, clip, a.prev_total, a.total, looping, a.fresh, source, ctx.frame, ctx.events);
    }
}

/// Delivers and clears the queued events of every instance, instance by
/// instance in slice order, each instance's events in time / kind / queue
/// order. Call after the (parallel) update, on one thread.
pub fn deliver_all(instances: &mut [GraphInstance], receiver: &mut dyn AnimationEventReceiver) {
    for instance in instances {
        instance.deliver_events(receiver);
    }
}

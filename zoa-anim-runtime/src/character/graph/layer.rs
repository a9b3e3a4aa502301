//! One graph layer's frame: clocks, cross-fade weights, notifies, the
//! transition under way and the next one, and the layer's contributions to
//! the frame output. The [`super::instance::GraphInstance`] runs one per
//! layer, in index order.

use zoa_anim_core::graph::{BlendMode, GraphState, Interruption, StateIndex, TransitionMode};

use super::clips::ClipId;
use super::definition::GraphDefinition;
use super::output::{ClipContribution, ContributionSource, FrameOutput, Inertialization, MaskRef, clip_span};
use super::params::Parameters;
use super::sync::{SyncMember, SyncMemberView, SyncMembers, SyncNotes, follow_leaders, phase};
use super::windows::{Lead, WindowState, follow_windows};
use super::{FrameClock, NotifyPolicy, emit_clip_notifies};
use crate::character::events::{EventKind, EventQueue, NotifySource};
use crate::character::fade::crossfade_weight;
use crate::pose::blend_tree::SyncClock;

/// Most states contributing to one layer at once (the current one plus fading ones).
pub const MAX_ACTIVE_STATES: usize = 4;

#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Active {
    /// Unique per instance, to recognise an entry after the list shifts.
    pub(super) id: u32,
    pub(super) state: StateIndex,
    /// Weight now.
    pub(super) weight: f32,
    /// Weight when the transition under way started.
    pub(super) weight0: f32,
    /// Normalized clock, unwrapped cycles.
    pub(super) total: f64,
    pub(super) prev_total: f64,
    /// Warp time scale (1 outside warped cross-fades).
    pub(super) time_scale: f32,
    /// Entered since the last advance.
    pub(super) fresh: bool,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Running {
    pub(super) from: StateIndex,
    pub(super) to: StateIndex,
    pub(super) from_id: u32,
    pub(super) to_id: u32,
    pub(super) duration: f32,
    pub(super) elapsed: f32,
    pub(super) interruption: Interruption,
    pub(super) mode: TransitionMode,
    /// Seconds per cycle of the outgoing and incoming states, for warp.
    pub(super) warp: Option<(f32, f32)>,
}

impl Running {
    pub(super) fn alpha(&self) -> f32 {
        crate::character::fade::ramp(self.elapsed, self.duration)
    }
}

#[derive(Debug, Clone, PartialEq)]
pub(super) struct LayerRuntime {
    pub(super) active: Vec<Active>,
    pub(super) running: Option<Running>,
    pub(super) inertial: Option<Inertialization>,
    pub(super) weight: f32,
    /// Notify windows open on the layer's leading clip.
    pub(super) windows: WindowState,
    /// Who leads and follows each sync group after the last frame.
    pub(super) sync: SyncNotes,
    /// A [`super::GraphInstance::travel`] under way: the transitions still to
    /// take, in order (`travel[travel_next..]`); sized to the graph's
    /// transition count at creation, so travelling allocates nothing.
    pub(super) travel: Vec<u32>,
    pub(super) travel_next: usize,
}

impl LayerRuntime {
    /// A layer playing `entry` (a leaf), room for a travel over `transitions` hops.
    pub(super) fn new(entry: Active, weight: f32, transitions: usize) -> LayerRuntime {
        let mut active = Vec::with_capacity(MAX_ACTIVE_STATES + 1);
        active.push(entry);
        LayerRuntime {
            active,
            running: None,
            inertial: None,
            weight,
            travel: Vec::with_capacity(transitions),
            travel_next: 0,
            windows: WindowState::default(),
            sync: [None; MAX_ACTIVE_STATES + 1],
        }
    }
    /// Whether a travel is under way.
    pub(super) fn travelling(&self) -> bool {
        self.travel_next < self.travel.len()
    }
    /// Ends any travel.
    pub(super) fn stop_travel(&mut self) {
        self.travel.clear();
        self.travel_next = 0;
    }
}

pub(super) struct LayerCtx<'a> {
    pub(super) def: &'a GraphDefinition,
    pub(super) params: &'a mut Parameters,
    pub(super) events: &'a mut EventQueue,
    pub(super) scratch: &'a mut [f32],
    pub(super) next_id: &'a mut u32,
    pub(super) generation: &'a mut u32,
    pub(super) frame: FrameClock,
    pub(super) layer: u16,
}

pub(super) fn fresh_active(next_id: &mut u32, state: StateIndex, weight: f32) -> Active {
    let id = *next_id;
    *next_id = next_id.wrapping_add(1);
    Active { id, state, weight, weight0: weight, total: 0.0, prev_total: 0.0, time_scale: 1.0, fresh: true }
}

/// The weights of `state`'s clips (nested trees' products) into `out[..n]`,
/// the rest of `out` as scratch; returns `n`.
pub(super) fn child_weights(def: &GraphDefinition, params: &Parameters, state: StateIndex, out: &mut [f32]) -> usize {
    let cs = &def.states[state.index()];
    let n = cs.clips.len();
    match &cs.tree {
        None => out[0] = 1.0,
        Some(tree) => tree.leaf_weights(n, |p| params.number(p), out),
    }
    n
}

/// The sync groups of the layer (see `sync`): notes who leads each and
/// moves every follower to its leader's position; a follower that just
/// entered starts there.
pub(super) fn sync_groups(def: &GraphDefinition, params: &Parameters, scratch: &mut [f32], lr: &mut LayerRuntime) {
    lr.sync = [None; MAX_ACTIVE_STATES + 1];
    if !def.has_sync_groups() {
        return;
    }
    let mut members: SyncMembers = [None; MAX_ACTIVE_STATES + 1];
    for (m, a) in members.iter_mut().zip(&lr.active) {
        let Some(group) = def.sync_group(a.state) else { continue };
        let looping = def.graph().states[a.state.index()].looping;
        let clip = marker_clip(def, params, a.state, scratch);
        let (id, weight, total, prev_total, fresh) = (a.id, a.weight, a.total, a.prev_total, a.fresh);
        *m = Some(SyncMember { id, group, weight, looping, clip, total, prev_total, fresh });
    }
    let moved = follow_leaders(def.clips(), &members, &mut lr.sync);
    for (a, total) in lr.active.iter_mut().zip(moved) {
        match total {
            Some(t) if a.fresh => (a.prev_total, a.total) = (t, t),
            Some(t) => a.total = t.max(a.prev_total),
            None => {}
        }
    }
}

/// The clip whose sync markers stand for `state`: its clip, or its blend
/// tree's heaviest child.
fn marker_clip(def: &GraphDefinition, params: &Parameters, state: StateIndex, scratch: &mut [f32]) -> ClipId {
    let clips = &def.states[state.index()].clips;
    if clips.len() == 1 {
        return clips[0];
    }
    let n = child_weights(def, params, state, scratch);
    clips[(1..n).fold(0, |b, i| if scratch[i] > scratch[b] { i } else { b })]
}

/// The layer's sync group members after the last frame.
pub(super) fn sync_members<'a>(
    def: &'a GraphDefinition,
    lr: &'a LayerRuntime,
) -> impl Iterator<Item = SyncMemberView> + 'a {
    lr.sync.iter().flatten().filter_map(move |n| {
        let a = lr.active.iter().find(|a| a.id == n.id)?;
        let phase = phase(def.graph().states[a.state.index()].looping, a.total);
        let clip_time = (phase * f64::from(def.clips().get(n.clip).duration)) as f32;
        Some(SyncMemberView {
            group: def.sync_group_name(n.group),
            state: a.state,
            leader: n.leader,
            clip: n.clip,
            clip_time,
            phase: phase as f32,
        })
    })
}

/// Seconds one normalized cycle of `state` lasts at state speed 1 (`Σ wᵢ·dᵢ/rateᵢ`).
pub(super) fn state_cycle(def: &GraphDefinition, params: &Parameters, state: StateIndex, scratch: &mut [f32]) -> f32 {
    let n = child_weights(def, params, state, scratch);
    let clips = def.clips();
    SyncClock::cycle_length(
        &scratch[..n],
        def.states[state.index()].clips.iter().map(|&c| clips.get(c).playback_length()),
    )
}

/// Seconds per cycle at the state's own speed (for warp ratios).
pub(super) fn effective_cycle(
    def: &GraphDefinition,
    params: &Parameters,
    state: StateIndex,
    scratch: &mut [f32],
) -> f32 {
    state_cycle(def, params, state, scratch) / def.graph().states[state.index()].speed
}

pub(super) fn exit_reached(a: &Active, looping: bool, exit: f32) -> bool {
    let f = f64::from(exit);
    if looping { (a.total - f).floor() > (a.prev_total - f).floor() } else { a.total >= f }
}

pub(super) fn update_layer(ctx: &mut LayerCtx<'_>, lr: &mut LayerRuntime, policy: NotifyPolicy, out: &mut FrameOutput) {
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
    // 3. Sync groups, then notifies.
    sync_groups(def, ctx.params, ctx.scratch, lr);
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
    // 5. Travel, else try transitions.
    if lr.travelling() {
        take_travel_hops(ctx, lr);
    } else if let Some((t, from)) = pick_transition(ctx, lr) {
        let tr = &graph.transitions[t];
        ctx.params.consume_triggers(&tr.conditions);
        let cause = Cause { transition: Some(t as u32), exit_time: tr.exit_time.is_some() };
        start_transition(ctx, lr, from, tr.to, tr.blend, tr.mode, tr.interruption, cause);
    }
    // 6. Output.
    write_layer(ctx, lr, out);
}

/// Takes the next hops of the travel under way while no transition runs
/// (hops that cut follow one another in the same frame, each entering and
/// leaving its state); ends the travel when a hop does not leave the state
/// playing (something else moved the layer) or none is left.
fn take_travel_hops(ctx: &mut LayerCtx<'_>, lr: &mut LayerRuntime) {
    let graph = ctx.def.graph();
    while lr.running.is_none() && lr.travelling() {
        let t = lr.travel[lr.travel_next] as usize;
        lr.travel_next += 1;
        let from = lr.active[0].state;
        if !ctx.def.outgoing(from).contains(&(t as u32)) {
            lr.stop_travel();
            return;
        }
        let tr = &graph.transitions[t];
        let cause = Cause { transition: Some(t as u32), exit_time: false };
        start_transition(ctx, lr, from, tr.to, tr.blend, tr.mode, tr.interruption, cause);
    }
    if !lr.travelling() {
        lr.stop_travel();
    }
}

/// Queues on `lr` the shortest chain of transitions (fewest hops, ties to
/// authoring order) from the state playing to `target` (a sub-state machine:
/// its entry). `scratch` holds at least three entries per state (a queue, and
/// per state the transition and the state it was reached by). `false`, and
/// nothing queued, when no chain reaches it. Conditions and exit times are
/// not considered: a travel takes each transition when the previous one has
/// finished (Godot's `travel`). Allocation-free.
pub(super) fn plan_travel(
    def: &GraphDefinition,
    lr: &mut LayerRuntime,
    target: StateIndex,
    scratch: &mut [u32],
) -> bool {
    const UNSEEN: u32 = u32::MAX;
    let graph = def.graph();
    let n = graph.states.len();
    let (queue, rest) = scratch.split_at_mut(n);
    let (via, prev) = rest.split_at_mut(n);
    let (start, goal) = (lr.active[0].state, graph.leaf_of(target));
    lr.stop_travel();
    if start == goal {
        return true;
    }
    via[..n].fill(UNSEEN);
    let (mut head, mut tail) = (0usize, 1usize);
    queue[0] = u32::from(start.0);
    via[start.index()] = UNSEEN - 1;
    while head < tail {
        let u = queue[head];
        head += 1;
        for &t in def.outgoing(StateIndex(u as u16)) {
            let v = graph.leaf_of(graph.transitions[t as usize].to).index();
            if via[v] != UNSEEN {
                continue;
            }
            (via[v], prev[v]) = (t, u);
            if v == goal.index() {
                // Walk back from the goal, then reverse into order.
                let mut s = v;
                while s != start.index() {
                    lr.travel.push(via[s]);
                    s = prev[s] as usize;
                }
                lr.travel.reverse();
                return true;
            }
            queue[tail] = v as u32;
            tail += 1;
        }
    }
    false
}

/// The first transition that may fire now, with its source state.
pub(super) fn pick_transition(ctx: &LayerCtx<'_>, lr: &LayerRuntime) -> Option<(usize, StateIndex)> {
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
pub(super) struct Cause {
    pub(super) transition: Option<u32>,
    pub(super) exit_time: bool,
}

#[allow(clippy::too_many_arguments)]
pub(super) fn start_transition(
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
    // A sub-state machine is entered at its entry, down to a state that plays.
    let to = ctx.def.graph().leaf_of(to);
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
    machine_events(ctx, current.state, to, now);
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

/// The sub-state machines a move from state `from` to state `to` leaves
/// (exited, innermost first) and enters (entered, outermost first).
fn machine_events(ctx: &mut LayerCtx<'_>, from: StateIndex, to: StateIndex, now: f64) {
    let graph = ctx.def.graph();
    let layer = ctx.layer;
    for m in graph.machines_of(from).filter(|&m| !graph.is_within(to, m)) {
        ctx.events.push(now, EventKind::StateExited { layer, state: m }, ctx.def.state_name(m));
    }
    let entered = graph.machines_of(to).filter(|&m| !graph.is_within(from, m)).count();
    for k in (0..entered).rev() {
        let Some(m) = graph.machines_of(to).filter(|&m| !graph.is_within(from, m)).nth(k) else { continue };
        ctx.events.push(now, EventKind::StateEntered { layer, state: m, from }, ctx.def.state_name(m));
    }
}

/// The (outgoing, incoming) cycle lengths when state `to` warps its
/// cross-fade from `from` and both cycles are positive.
pub(super) fn crossfade_warp(ctx: &mut LayerCtx<'_>, from: StateIndex, to: StateIndex) -> Option<(f32, f32)> {
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
pub(super) fn drop_weakest(ctx: &mut LayerCtx<'_>, lr: &mut LayerRuntime) {
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

pub(super) fn layer_mask(graph_layer_has_mask: bool, layer: u16) -> MaskRef {
    if graph_layer_has_mask { MaskRef::Layer(layer) } else { MaskRef::None }
}

pub(super) fn state_looks(
    st: &GraphState,
    state: StateIndex,
    layer_mode: BlendMode,
    layer_mask: MaskRef,
) -> (BlendMode, MaskRef) {
    (st.blend_mode.unwrap_or(layer_mode), if st.bone_mask.is_some() { MaskRef::State(state) } else { layer_mask })
}

pub(super) fn write_layer(ctx: &mut LayerCtx<'_>, lr: &LayerRuntime, out: &mut FrameOutput) {
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

pub(super) fn emit_layer_notifies(ctx: &mut LayerCtx<'_>, lr: &mut LayerRuntime, policy: NotifyPolicy) {
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
                NotifyPolicy::HighestWeight => {}
            }
            if best.is_none_or(|(bw, _, _)| w > bw) {
                best = Some((w, k, i));
            }
        }
    }
    let source = NotifySource::Graph { layer: ctx.layer };
    let lead = best.map(|(_, k, i)| {
        let a = &lr.active[k];
        let looping = graph.states[a.state.index()].looping;
        let clip = def.states[a.state.index()].clips[i];
        let owner = (u64::from(a.id) << 16) | i as u64;
        Lead { owner, clip, lo: a.prev_total, hi: a.total, looping, fresh: a.fresh }
    });
    if let (Some(l), NotifyPolicy::HighestWeight) = (lead, policy) {
        emit_clip_notifies(clips, l.clip, l.lo, l.hi, l.looping, l.fresh, source, ctx.frame, ctx.events);
    }
    follow_windows(clips, lead, &mut lr.windows, source, ctx.frame, ctx.events);
}

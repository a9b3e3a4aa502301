//! Recording: what the character shows after an update becomes one
//! [`TickRecord`] of the capture (active states with their weights, the
//! override slot, the selector's rows, every input of the composed pose, the
//! IK goals, binding values, joint positions and optionally local
//! transforms), and its events become [`EventRecord`]s and, through the
//! sound bridge, sound cues. Every name is interned before the preset runs,
//! so recording never allocates beyond the capture's reserved vectors.

use std::ops::Range;

use std::collections::HashMap;

use zoa_anim_core::{AnimationBindingId, Name, StateTagSet};
use zoa_anim_runtime::character::graph::{ContributionSource, MaskRef, ParamValue, SLOT_LAYER};
use zoa_anim_runtime::character::{CharacterEventReceiver, Event, EventKind, PoseContribution, PosePart, SoundBridge};
use zoa_anim_runtime::pose::BlendMode;
use zoa_anim_runtime::{Character, RuntimeError};

use super::capture::{
    ContributionRecord, EventRecord, IkRecord, NameId, PartRecord, Recorded, RowRecord, StateRecord, TickRecord,
};
use super::sound::CueSink;
use super::{GraphNames, Pending, PreviewSim};

impl PreviewSim {
    /// Appends a tick record for the state now.
    pub(super) fn record(&mut self) -> Result<(), RuntimeError> {
        // Steps are recorded in preset order; each advance's animation events are time-sorted.
        let events_start = self.pending.events_start.min(self.capture.events.len());
        let events = events_start..self.capture.events.len();
        let states = self.record_states();
        let rows = self.record_rows();
        let contributions = self.record_contributions();
        let ik = self.record_ik();
        let sounds_start = self.capture.sounds.len();
        if let Some(bridge) = &mut self.bridge {
            self.capture.sounds.append(&mut bridge.sink_mut().cues);
        }
        self.record_sync();
        self.record_values();
        let c = &self.character;
        let tick = TickRecord {
            time: self.time,
            step: self.step.min(u32::MAX as usize) as u32,
            states,
            rows,
            events,
            root_motion: self.pending.root,
            contributions,
            sounds: sounds_start..self.capture.sounds.len(),
            ik,
            applied_tags: c.applied_tags(),
            switch_alpha: c.switch_alpha(),
            inertializing: c.is_inertializing(),
        };
        let cap = &mut self.capture;
        cap.ticks.push(tick);
        self.pending = Pending { events_start: cap.events.len(), root: [0.0; 4] };
        Ok(())
    }

    /// The graph's active states (weighted by the loadout cross-fade) and the
    /// override slot's clips, as a layer of its own.
    fn record_states(&mut self) -> Range<usize> {
        let c = &self.character;
        let cap = &mut self.capture;
        let states_start = cap.states.len();
        let instance = c.graph_instance();
        let alpha = c.switch_alpha();
        if let Some(names) = c.graph_index().and_then(|g| self.graph_names.get(g)) {
            for layer in 0..instance.layer_count() {
                for view in instance.active_states(layer) {
                    let clip_time = c
                        .frame()
                        .find_layer(layer as u16)
                        .and_then(|(_, cs)| {
                            cs.iter().find(
                                |k| matches!(k.source, ContributionSource::State { state, .. } if state == view.state),
                            )
                        })
                        .map_or(0.0, |k| k.time);
                    cap.states.push(StateRecord {
                        layer: names.layers[layer],
                        state: names.states[view.state.index()],
                        weight: view.weight * alpha,
                        clip_time,
                    });
                }
            }
        }
        // The override slot, as a layer of its own (its contributions carry the envelope weight).
        if let Some((_, cs)) = c.frame().find_layer(SLOT_LAYER) {
            for k in cs {
                cap.states.push(StateRecord {
                    layer: self.slot_layer_name,
                    state: self.clip_names[k.clip.index()],
                    weight: k.weight,
                    clip_time: k.time,
                });
            }
        }
        states_start..cap.states.len()
    }

    /// The tag selector's contributing rows, with the fallback step that chose them.
    fn record_rows(&mut self) -> Range<usize> {
        let c = &self.character;
        let cap = &mut self.capture;
        let rows_start = cap.rows.len();
        if let Some(sel) = c.selector() {
            let step = sel.resolution().and_then(|r| r.step()).map_or(-1, |s| s as i32);
            for k in &c.selector_frame().contributions {
                if let ContributionSource::Selector { row } = k.source {
                    let pattern = sel.rows().get(row as usize).map_or(StateTagSet::EMPTY, |r| r.pattern);
                    cap.rows.push(RowRecord {
                        row,
                        pattern,
                        clip: self.clip_names[k.clip.index()],
                        weight: k.weight,
                        clip_time: k.time,
                        fallback_step: step,
                    });
                }
            }
        }
        rows_start..cap.rows.len()
    }

    /// Every input of the pose the character composed (`Character::contributions`), named.
    fn record_contributions(&mut self) -> Range<usize> {
        let c = &self.character;
        let start = self.capture.contributions.len();
        let current = c.graph_index().and_then(|g| self.graph_names.get(g));
        let outgoing = c.previous_graph_index().and_then(|g| self.graph_names.get(g));
        for k in c.contributions() {
            let names = if k.outgoing { outgoing } else { current };
            let record = contribution_record(&k, names, &self.clip_names);
            self.capture.contributions.push(record);
        }
        start..self.capture.contributions.len()
    }

    /// The IK goals of the tick (`Character::ik_report`), their joints named.
    fn record_ik(&mut self) -> Range<usize> {
        let start = self.capture.ik.len();
        if let Some(report) = self.character.ik_report() {
            for g in report.goals() {
                let Some(&joint) = self.capture.joint_names.get(usize::from(g.joint)) else { continue };
                self.capture.ik.push(IkRecord {
                    behaviour: g.behaviour,
                    side: g.side,
                    joint,
                    target: g.target.to_array(),
                    weight: g.weight,
                    error: g.error,
                });
            }
        }
        start..self.capture.ik.len()
    }

    /// Binding values (one column per preset binding; NaN when unbound),
    /// joint positions and, when asked, local transforms.
    fn record_values(&mut self) {
        let c = &self.character;
        let cap = &mut self.capture;
        for (binding, _) in &self.columns {
            let v = match c.binding_value(*binding) {
                Some(ParamValue::Float(f)) => f,
                Some(ParamValue::Int(i)) => i as f32,
                Some(ParamValue::Bool(b)) | Some(ParamValue::Trigger(b)) => f32::from(u8::from(b)),
                None => f32::NAN,
            };
            cap.binding_values.push(v);
        }

        for m in c.model_matrices() {
            cap.joint_positions.push(m.w_axis.truncate().to_array());
        }
        if self.record_local {
            let pose = c.local_pose();
            for j in 0..pose.len() {
                let t = pose.get(j);
                let (p, r, s) = (t.translation, t.rotation, t.scale);
                cap.joint_locals.push([p.x, p.y, p.z, r.x, r.y, r.z, r.w, s.x, s.y, s.z]);
            }
        }
    }
}

/// A pose input with its names (`names`: the interned names of its graph).
fn contribution_record(k: &PoseContribution, names: Option<&GraphNames>, clips: &[NameId]) -> ContributionRecord {
    let part = match k.part {
        PosePart::Graph { layer: SLOT_LAYER, .. } => PartRecord::Slot,
        PosePart::Graph { layer, source } => {
            let (state, child) = match source {
                ContributionSource::State { state, child } => (Some(state.index()), child),
                _ => (None, 0),
            };
            let layer_name = names.and_then(|n| n.layers.get(usize::from(layer)));
            let state_name = names.zip(state).and_then(|(n, s)| n.states.get(s));
            match (layer_name, state_name) {
                (Some(&layer_name), Some(&state)) => {
                    PartRecord::State { layer_index: layer, layer: layer_name, state, child }
                }
                _ => PartRecord::Slot,
            }
        }
        PosePart::Selector { row } => PartRecord::Selector { row },
        PosePart::Procedural => PartRecord::Procedural,
    };
    let mask = match k.mask {
        MaskRef::None => None,
        MaskRef::Layer(l) => names.and_then(|n| n.layer_masks.get(usize::from(l)).copied().flatten()),
        MaskRef::State(s) => names.and_then(|n| n.state_masks.get(s.index()).copied().flatten()),
    };
    ContributionRecord {
        outgoing: k.outgoing,
        stack_layer: k.stack_layer,
        part,
        clip: k.clip.and_then(|c| clips.get(c.index()).copied()),
        weight: k.weight,
        clip_time: k.time,
        additive: k.mode == BlendMode::Additive,
        mask,
    }
}

/// Delivers a character's events to the capture and, when the preview plays
/// sound, to its sound bridge.
pub(super) struct Deliver<'a> {
    pub(super) events: EventSink<'a>,
    pub(super) sound: Option<&'a mut SoundBridge<CueSink>>,
}

impl CharacterEventReceiver for Deliver<'_> {
    fn on_character_event(&mut self, character: usize, source: &Character, e: &Event) {
        self.events.on_character_event(character, source, e);
        if let Some(bridge) = self.sound.as_deref_mut() {
            bridge.on_character_event(character, source, e);
        }
    }
}

/// Turns a character's events into capture records (names interned beforehand).
pub(super) struct EventSink<'a> {
    pub(super) events: &'a mut Vec<EventRecord>,
    pub(super) names: &'a HashMap<Name, NameId>,
    /// The preset's bindings (every fired one among them), interned beforehand.
    pub(super) binding_names: &'a [(AnimationBindingId, NameId)],
}

impl CharacterEventReceiver for EventSink<'_> {
    fn on_character_event(&mut self, _character: usize, _source: &Character, e: &Event) {
        let name = match e.kind {
            EventKind::Binding { binding, .. } => {
                self.binding_names.iter().find(|(b, _)| *b == binding).map(|(_, n)| *n)
            }
            _ => self.names.get(&e.name).copied(),
        };
        if let Some(name) = name {
            self.events.push(EventRecord { kind: Recorded::Event(e.kind), name, time: e.time });
        }
    }
}

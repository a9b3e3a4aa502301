//! Recording: what the character shows after an update becomes one
//! [`TickRecord`] of the capture (active states with their weights, the
//! override slot, the selector's rows, binding values, joint positions and
//! optionally local transforms), and its events become [`EventRecord`]s. Every
//! name is interned before the preset runs, so recording never allocates
//! beyond the capture's reserved vectors.

use std::ops::Range;

use std::collections::HashMap;

use zoa_anim_core::{AnimationBindingId, Name};
use zoa_anim_runtime::character::graph::{ContributionSource, ParamValue, SLOT_LAYER};
use zoa_anim_runtime::character::{CharacterEventReceiver, Event, EventKind};
use zoa_anim_runtime::{Character, RuntimeError};

use super::capture::{EventRecord, NameId, Recorded, RowRecord, StateRecord, TickRecord};
use super::{Pending, PreviewSim};

impl PreviewSim {
    /// Appends a tick record for the state now.
    pub(super) fn record(&mut self) -> Result<(), RuntimeError> {
        // Steps are recorded in preset order; each advance's animation events are time-sorted.
        let events_start = self.pending.events_start.min(self.capture.events.len());
        let events = events_start..self.capture.events.len();
        let states = self.record_states();
        let rows = self.record_rows();
        self.record_sync();
        self.record_values();
        let cap = &mut self.capture;
        let step = self.step.min(u32::MAX as usize) as u32;
        cap.ticks.push(TickRecord { time: self.time, step, states, rows, events, root_motion: self.pending.root });
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
                    cap.rows.push(RowRecord {
                        row,
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

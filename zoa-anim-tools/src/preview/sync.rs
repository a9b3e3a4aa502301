//! Recording sync groups: each state of a group that contributes to its
//! layer (the leader alone included) goes into [`Capture::sync`] with its
//! lead, marker clip, clip time and phase, so the timeline can show the
//! group's phase and that followers cross their markers with the leader. The
//! clips' markers are listed once at set-up ([`Capture::clip_markers`]).

use std::collections::HashMap;

use zoa_anim_core::Name;
use zoa_anim_runtime::CharacterDefinition;

use super::capture::{Capture, MarkerRecord, SyncRecord};
use super::{NameId, PreviewSim};

/// Interns every sync group name of `def`'s graphs into `names`, and lists
/// every clip's markers in the capture.
pub(super) fn prepare(def: &CharacterDefinition, capture: &mut Capture, names: &mut HashMap<Name, NameId>) {
    for graph in def.graph_ids().filter_map(|id| def.graph(id)) {
        for g in graph.graph().states.iter().filter_map(|s| s.sync_group.as_deref()) {
            let name = Name::new(g);
            names.entry(name).or_insert_with(|| capture.intern(g));
        }
    }
    let clips = def.clips();
    for info in clips.clips() {
        let clip = capture.intern(&info.name);
        for m in &info.markers {
            let name = capture.intern(&m.name);
            capture.clip_markers.push(MarkerRecord { clip, name, time: m.time });
        }
    }
}

impl PreviewSim {
    /// Appends the sync group members of the tick being recorded.
    pub(super) fn record_sync(&mut self) {
        let tick = self.capture.ticks.len() as u32;
        let c = &self.character;
        let Some(names) = c.graph_index().and_then(|g| self.graph_names.get(g)) else { return };
        let instance = c.graph_instance();
        for layer in 0..instance.layer_count() {
            for m in instance.sync_members(layer) {
                let Some(&group) = self.event_names.get(&m.group) else { continue };
                self.capture.sync.push(SyncRecord {
                    tick,
                    group,
                    state: names.states[m.state.index()],
                    leader: m.leader,
                    clip: self.clip_names[m.clip.index()],
                    clip_time: m.clip_time,
                    phase: m.phase,
                });
            }
        }
    }
}

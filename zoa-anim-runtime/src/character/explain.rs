//! Why a character shows what it shows: a report gameplay code (or a person
//! at a debugger) asks for when a tag, a binding or a slot seems to do
//! nothing. Every no-op by design is observable here: a tag change waiting
//! for its trigger or hold, a tag table the class does not have, a tag layer
//! that yields to a graph action, a binding the class does not bind.

use std::fmt;

use zoa_anim_core::resolver::Resolution;
use zoa_anim_core::{AnimationBindingId, Name, PlayerProfileType, StateDimension, StateTagSet};

use super::state::Character;
use crate::character::graph::SlotStatus;
use crate::character::selector::{Pending, SelectorMode};

/// What [`Character::explain`] reports. `Display` is a few lines a person reads.
#[derive(Debug, Clone, PartialEq)]
pub struct Explanation {
    /// The tags gameplay asked for last.
    pub requested: StateTagSet,
    /// The tags in effect (`None`: the class has no tag table, tags drive nothing).
    pub applied: Option<StateTagSet>,
    /// Each dimension whose requested tags have not taken effect, and the rule holding it.
    pub pending: Vec<(StateDimension, Pending)>,
    /// The speed gameplay gave last (`None`: never given).
    pub speed: Option<f32>,
    /// The loadout class (`None` without a player profile set).
    pub class: Option<PlayerProfileType>,
    /// What the tag selector plays and how much of it shows.
    pub selector: Option<SelectorReport>,
    /// The graph in use, per layer.
    pub graph: Option<GraphReport>,
    /// What the override slot plays.
    pub slot: Option<SlotStatus>,
    /// Bindings fired or set since spawn that the current class does not bind (no-ops).
    pub unbound: Vec<AnimationBindingId>,
    /// The notify windows open ([`Character::in_window`]).
    pub windows: Vec<Name>,
}

/// The tag selector's part of an [`Explanation`].
#[derive(Debug, Clone, PartialEq)]
pub struct SelectorReport {
    /// What it plays.
    pub mode: SelectorMode,
    /// The clip of the current row (or default idle).
    pub clip: Option<Name>,
    /// How the row was found (exact, fallback step, universal default).
    pub resolution: Option<Resolution>,
    /// How much of the pose the selector's layer shows over the graph's base (`0..=1`).
    pub shown: f32,
    /// Why it shows less than all of it, when it does.
    pub yields: Option<String>,
}

/// The graph's part of an [`Explanation`].
#[derive(Debug, Clone, PartialEq)]
pub struct GraphReport {
    /// The graph's id.
    pub id: String,
    /// Per layer: its name, current state, and the target of the transition under way.
    pub layers: Vec<LayerReport>,
}

/// One graph layer of a [`GraphReport`].
#[derive(Debug, Clone, PartialEq)]
pub struct LayerReport {
    /// Layer name.
    pub name: String,
    /// The current state.
    pub state: Name,
    /// The transition under way: target state and progress `0..=1`.
    pub transition: Option<(Name, f32)>,
    /// Each sync group syncing on the layer (two or more of its states
    /// play) and the state leading it.
    pub sync: Vec<(Name, Name)>,
}

impl Character {
    /// Why the character shows what it shows: requested vs applied tags with
    /// the rule holding each pending dimension, the speed, the selector's row
    /// and how much of it shows, the graph's states, the slot, and the
    /// bindings used that the class does not bind. Allocates (a debugging
    /// aid, not for every frame).
    #[must_use]
    pub fn explain(&self) -> Explanation {
        let selector = self.selector();
        let pending = selector
            .map(|s| StateDimension::ALL.into_iter().filter_map(|d| s.pending(d).map(|p| (d, p))).collect())
            .unwrap_or_default();
        let graph = self.graph_instance().definition().map(|def| {
            let g = def.graph();
            let layers = (0..self.graph_instance().layer_count())
                .map(|l| LayerReport {
                    name: g.layers[l].name.clone(),
                    state: self.graph_instance().current_state(l).map_or(Name::EMPTY, |s| def.state_name(s)),
                    transition: self
                        .graph_instance()
                        .transition(l)
                        .map(|t| (def.state_name(t.to), if t.duration > 0.0 { t.elapsed / t.duration } else { 1.0 })),
                    sync: self.syncing(l),
                })
                .collect();
            GraphReport { id: self.graph_id().unwrap_or_default().to_owned(), layers }
        });
        let selector = selector.map(|s| SelectorReport {
            mode: s.mode(),
            clip: s.current_clip().map(|c| self.definition().clips().name(c)),
            resolution: s.resolution(),
            shown: self.selector_weight(),
            yields: self.selector_yields(),
        });
        Explanation {
            requested: self.tags(),
            applied: self.applied_tags(),
            pending,
            speed: self.speed_given().then(|| self.speed()),
            class: self.class(),
            selector,
            graph,
            slot: self.slot(),
            unbound: self.unbound_uses(),
            windows: self.open_windows().map(|w| w.name).collect(),
        }
    }

    /// The sync groups syncing on graph layer `layer`, with their leaders.
    fn syncing(&self, layer: usize) -> Vec<(Name, Name)> {
        let instance = self.graph_instance();
        instance
            .sync_members(layer)
            .filter(|m| m.leader && instance.sync_members(layer).filter(|o| o.group == m.group).count() > 1)
            .map(|m| (m.group, self.state_name(m.state)))
            .collect()
    }

    /// Why the selector's layer shows less than all of the pose, when it does.
    fn selector_yields(&self) -> Option<String> {
        let s = self.selector()?;
        if self.selector_weight() >= 1.0 {
            return None;
        }
        let instance = self.graph_instance();
        if let Some(def) = instance.definition() {
            let g = def.graph();
            let entry = g.layers.first().map(|l| l.entry)?;
            if let Some(current) = instance.current_state(0)
                && current != entry
            {
                return Some(format!(
                    "graph layer `{}` plays `{}`, not its entry state `{}`: a graph action wins over tags",
                    g.layers[0].name,
                    def.state_name(current),
                    def.state_name(entry)
                ));
            }
            if let Some(r) = s.resolution()
                && !s.table().is_tagged(r.row as u32)
            {
                return Some(
                    "the matching row asserts no tag (the universal default): with a graph, the graph's entry \
                     state shows instead"
                        .to_owned(),
                );
            }
        }
        match s.mode() {
            SelectorMode::Hold => Some("no row matches and the profile holds the last pose".to_owned()),
            SelectorMode::Procedural => Some("no row matches: procedural motion plays".to_owned()),
            _ => Some("it is cross-fading".to_owned()),
        }
    }
}

impl fmt::Display for GraphReport {
    /// The graph's id, then a line per layer: its state, the transition
    /// under way, and who leads each syncing group.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "graph `{}`:", self.id)?;
        for l in &self.layers {
            write!(f, "  layer `{}`: `{}`", l.name, l.state)?;
            if let Some((to, p)) = l.transition {
                write!(f, " (transition to `{to}`, {:.0}%)", p * 100.0)?;
            }
            for (group, leader) in &l.sync {
                write!(f, "; sync group `{group}` led by `{leader}`")?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}

impl fmt::Display for Explanation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.applied {
            Some(applied) => writeln!(f, "tags requested: {}; in effect: {applied}", self.requested)?,
            None => writeln!(
                f,
                "tags requested: {}; the class has no tag table (no animation_profile), so tags drive nothing",
                self.requested
            )?,
        }
        for (d, p) in &self.pending {
            write!(f, "  {d}: ")?;
            match p {
                Pending::Hold { seconds_left } => writeln!(f, "takes effect in {seconds_left:.2} s (min hold)")?,
                Pending::Event => {
                    writeln!(f, "waits for an event (fire or set one of its bindings, or send_tag_event)")?
                }
                Pending::Speed { speed, current, needs: (lo, hi) } => {
                    let gait = |g: &zoa_anim_core::LocomotionTag| {
                        StateTagSet::EMPTY.with_locomotion(*g).flag_names(StateDimension::Locomotion).join("|")
                    };
                    let band =
                        if hi.is_finite() { format!("{lo:.2}–{hi:.2} m/s") } else { format!("≥ {lo:.2} m/s") };
                    writeln!(f, "waits for speed: {speed:.2} m/s is in the {} band; it needs {band}", gait(current))?
                }
                Pending::InputCrossing => writeln!(f, "waits for the speed to cross a threshold")?,
            }
        }
        match self.speed {
            Some(v) => writeln!(f, "speed: {v:.2} m/s")?,
            None => writeln!(f, "speed: never given (locomotion tags take effect after their hold)")?,
        }
        if let Some(class) = self.class {
            writeln!(f, "class: {class}")?;
        }
        if let Some(s) = &self.selector {
            let how = match s.resolution.and_then(|r| r.step()) {
                Some(0) => "exact match".to_owned(),
                Some(k) => format!("fallback step {k}"),
                None if s.resolution.is_some() => "untagged default".to_owned(),
                None => "no match".to_owned(),
            };
            write!(f, "selector: {:?}", s.mode)?;
            if let Some(c) = s.clip {
                write!(f, " plays `{c}`")?;
            }
            write!(f, " ({how}), shows {:.2}", s.shown)?;
            match &s.yields {
                Some(why) => writeln!(f, ": {why}")?,
                None => writeln!(f)?,
            }
        }
        if let Some(g) = &self.graph {
            write!(f, "{g}")?;
        }
        if let Some(s) = &self.slot {
            writeln!(
                f,
                "slot: `{}` {:.0}%, weight {:.2}{}",
                s.name,
                s.progress * 100.0,
                s.envelope,
                if s.stopping { ", stopping" } else { "" }
            )?;
        }
        if !self.windows.is_empty() {
            let names: Vec<&str> = self.windows.iter().map(|n| n.as_str()).collect();
            writeln!(f, "inside notify windows: {}", names.join(", "))?;
        }
        if !self.unbound.is_empty() {
            let ids: Vec<&str> = self.unbound.iter().map(|b| b.as_str()).collect();
            writeln!(f, "not bound for this class (no-ops): {}", ids.join(", "))?;
        }
        Ok(())
    }
}

//! Transition timing per dimension.
//!
//! Selection lives in the resolver; what remains is *when* a change may take
//! effect and how long it blends. Each dimension has a shipped default; a
//! graph only authors the dimensions it wants to change.

use crate::tags::{LocomotionTag, StateDimension};

/// What makes a change in a dimension take effect.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TransitionTrigger {
    /// As soon as the tags of the dimension change.
    OnTagChange,
    /// When gameplay sends an explicit event.
    OnEvent,
    /// When a float input crosses a threshold (with hysteresis).
    OnInputThreshold,
}

impl TransitionTrigger {
    /// `on_tag_change`, `on_event` or `on_input_threshold`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            TransitionTrigger::OnTagChange => "on_tag_change",
            TransitionTrigger::OnEvent => "on_event",
            TransitionTrigger::OnInputThreshold => "on_input_threshold",
        }
    }
    /// Parses the snake_case name.
    #[must_use]
    pub fn from_name(s: &str) -> Option<Self> {
        Some(match s {
            "on_tag_change" => TransitionTrigger::OnTagChange,
            "on_event" => TransitionTrigger::OnEvent,
            "on_input_threshold" => TransitionTrigger::OnInputThreshold,
            _ => return None,
        })
    }
}

/// One transition rule.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TransitionPolicy {
    /// The dimension it governs.
    pub dimension: StateDimension,
    /// Seconds a dimension must hold its value before another change in it
    /// may take effect (`>= 0`); stops jitter when input hovers at a threshold.
    pub min_hold_seconds: f32,
    /// Blend duration in seconds (`>= 0`); 0 is an instant cut.
    pub crossfade_seconds: f32,
    /// What makes the change take effect.
    pub trigger: TransitionTrigger,
}

impl TransitionPolicy {
    /// The shipped default for `dimension`. Mood uses `OnTagChange` (mood is
    /// a slow, state-like condition, not an event) and cuts with no crossfade.
    #[must_use]
    pub const fn default_for(dimension: StateDimension) -> TransitionPolicy {
        use StateDimension::*;
        use TransitionTrigger::*;
        let (hold, fade, trigger) = match dimension {
            Locomotion => (0.05, 0.15, OnInputThreshold),
            Posture => (0.30, 0.25, OnTagChange),
            Combat => (0.15, 0.10, OnEvent),
            Interaction => (0.10, 0.20, OnTagChange),
            Reaction => (0.0, 0.05, OnEvent),
            Mood => (0.50, 0.0, OnTagChange),
        };
        TransitionPolicy { dimension, min_hold_seconds: hold, crossfade_seconds: fade, trigger }
    }

    /// All six shipped defaults, in declaration order.
    pub const DEFAULTS: [TransitionPolicy; 6] = [
        TransitionPolicy::default_for(StateDimension::Locomotion),
        TransitionPolicy::default_for(StateDimension::Posture),
        TransitionPolicy::default_for(StateDimension::Combat),
        TransitionPolicy::default_for(StateDimension::Interaction),
        TransitionPolicy::default_for(StateDimension::Reaction),
        TransitionPolicy::default_for(StateDimension::Mood),
    ];
}

/// Most gaits a [`GaitSpeeds`] table holds (besides idle).
pub const MAX_GAITS: usize = 8;

/// Entity speeds at which each gait begins: what locomotion's
/// `OnInputThreshold` trigger compares the entity speed with. Below the
/// first gait's speed the entity is idle; a locomotion change to a gait takes
/// effect once the speed is in that gait's band (from its speed up to the
/// next gait's), with a dead band of `dead_band` around each boundary so a
/// speed hovering at a boundary does not flicker between gaits.
#[derive(Debug, Clone, PartialEq)]
pub struct GaitSpeeds {
    /// `(gait, speed in m/s where it begins)`, ascending by speed (at most [`MAX_GAITS`]).
    pub starts: Vec<(LocomotionTag, f32)>,
    /// Width of the dead band around each boundary, m/s (`>= 0`).
    pub dead_band: f32,
}

impl Default for GaitSpeeds {
    /// The shipped bands: idle | 0.5 | walk | 2.5 | run | 5.0 | sprint (m/s),
    /// with a 0.2 m/s dead band.
    fn default() -> Self {
        GaitSpeeds {
            starts: vec![(LocomotionTag::WALK, 0.5), (LocomotionTag::RUN, 2.5), (LocomotionTag::SPRINT, 5.0)],
            dead_band: 0.2,
        }
    }
}

impl GaitSpeeds {
    /// The gait of each band, slowest first: idle, then each gait in [`GaitSpeeds::starts`].
    pub fn gaits(&self) -> impl Iterator<Item = LocomotionTag> + '_ {
        std::iter::once(LocomotionTag::IDLE).chain(self.starts.iter().map(|(g, _)| *g))
    }
    /// The speeds between bands, ascending.
    pub fn thresholds(&self) -> impl Iterator<Item = f32> + '_ {
        self.starts.iter().map(|(_, s)| *s)
    }
}

/// Per-dimension timing overrides (a `state_graph` definition).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct StateGraph {
    /// Unique id.
    pub id: String,
    /// Authored overrides; at most one per dimension is meaningful (the first wins).
    pub policies: Vec<TransitionPolicy>,
    /// The entity speeds between gaits (the shipped bands when not authored).
    pub gaits: GaitSpeeds,
}

impl StateGraph {
    /// The authored row for `dimension` if any, the shipped default otherwise.
    #[must_use]
    pub fn resolve_policy(&self, dimension: StateDimension) -> TransitionPolicy {
        self.policies
            .iter()
            .find(|p| p.dimension == dimension)
            .copied()
            .unwrap_or(TransitionPolicy::default_for(dimension))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shipped per-dimension defaults: locomotion 0.05 s hold / 0.15 s fade on an input threshold, posture 0.30 / 0.25 on a tag change,
    /// combat 0.15 / 0.10 on an event, interaction 0.10 / 0.20 on a tag change, reaction 0 / 0.05 on an event, mood 0.50 s hold and a cut.
    #[test]
    fn defaults_are_the_shipped_table() {
        let expect = [
            (StateDimension::Locomotion, 0.05, 0.15, TransitionTrigger::OnInputThreshold),
            (StateDimension::Posture, 0.30, 0.25, TransitionTrigger::OnTagChange),
            (StateDimension::Combat, 0.15, 0.10, TransitionTrigger::OnEvent),
            (StateDimension::Interaction, 0.10, 0.20, TransitionTrigger::OnTagChange),
            (StateDimension::Reaction, 0.0, 0.05, TransitionTrigger::OnEvent),
            (StateDimension::Mood, 0.50, 0.0, TransitionTrigger::OnTagChange),
        ];
        for (dim, hold, fade, trig) in expect {
            let p = TransitionPolicy::default_for(dim);
            assert_eq!((p.dimension, p.min_hold_seconds, p.crossfade_seconds, p.trigger), (dim, hold, fade, trig));
            assert_eq!(TransitionPolicy::DEFAULTS[dim.index()], p);
        }
        let graph = StateGraph {
            gaits: GaitSpeeds::default(),
            id: "boss".into(),
            policies: vec![TransitionPolicy {
                dimension: StateDimension::Posture,
                min_hold_seconds: 1.0,
                crossfade_seconds: 0.5,
                trigger: TransitionTrigger::OnEvent,
            }],
        };
        assert_eq!(graph.resolve_policy(StateDimension::Posture).min_hold_seconds, 1.0);
        assert_eq!(graph.resolve_policy(StateDimension::Mood), TransitionPolicy::default_for(StateDimension::Mood));
    }
}

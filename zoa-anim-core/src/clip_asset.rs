//! Clip assets: one animation of one source model, with a baked rate, a
//! loop hint, named notifies (instants or windows, with typed payloads), sync
//! markers and float curves.
//!
//! The keyframes stay in the source model; the asset holds only what an
//! author edits. A clip asset's id is the name graph states, clip tables and
//! slots refer to it by.
//!
//! # Terminology
//! - **Notify**: a named time that fires an event when playback crosses it.
//!   A notify with a `duration` is a **window** (Unreal's notify state): a
//!   begin event at its time, an end event at `time + duration`, and "inside
//!   the window" in between (a combo input window, a hit box).
//! - **Payload**: typed fields (text, number, bool) a notify's events carry
//!   to gameplay and sound (`surface = "metal"`, `volume = 0.5`).
//! - **Sync marker**: a named time (`foot_l`, `foot_r`) by which the states
//!   of a sync group line their clips up (Unreal's marker-based sync).
//! - **Float curve**: named keys of time and value sampled with the clip's
//!   time and blended with its weight (Unreal's animation curves, ozz's
//!   float tracks).

/// Which animation of the source model a clip asset cuts.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum AnimationSelector {
    /// By animation name (`walk`).
    Name(String),
    /// By index in the model's `animations` array (unnamed animations).
    Index(u32),
}

impl std::fmt::Display for AnimationSelector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AnimationSelector::Name(n) => f.write_str(n),
            AnimationSelector::Index(i) => write!(f, "#{i}"),
        }
    }
}

/// How a clip cut from another model than the character's binds to the
/// character's skeleton (a clip of the character's own model always binds by
/// glTF node).
///
/// Binding by role bakes the clip onto the character's skeleton once, at
/// set-up: both rigs' bones are found by role (hips, spine, legs, arms…), each
/// key time of the source is sampled on the source skeleton, retargeted with
/// rest-pose correction (a bone's turn away from its rest orientation, in
/// model space, applied to the target bone's rest orientation) and the hips'
/// translation scaled by the ratio of leg lengths, then stored as keys of the
/// character's joints. Playing it costs what any clip costs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum ClipBinding {
    /// By name when most of the clip's animated joints have a namesake in
    /// the character's skeleton, else by role when both rigs' hips are found.
    #[default]
    Auto,
    /// Tracks bind to the character's joints of the same name; others are
    /// ignored.
    Name,
    /// Always by role (a set-up problem when either rig's hips are not found).
    Role,
}

impl ClipBinding {
    /// Every binding, in the order the definition field lists them.
    pub const ALL: [ClipBinding; 3] = [ClipBinding::Auto, ClipBinding::Name, ClipBinding::Role];

    /// The definition field's word: `auto`, `name` or `role`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            ClipBinding::Auto => "auto",
            ClipBinding::Name => "name",
            ClipBinding::Role => "role",
        }
    }

    /// The binding a definition word names.
    #[must_use]
    pub fn from_name(word: &str) -> Option<ClipBinding> {
        ClipBinding::ALL.into_iter().find(|b| b.name() == word)
    }
}

/// One typed value of a [`NotifyPayload`].
#[derive(Debug, Clone, PartialEq)]
pub enum PayloadValue {
    /// A string (`surface = "metal"`).
    Text(String),
    /// A finite number (`volume = 0.5`).
    Number(f32),
    /// A flag (`heavy = true`).
    Bool(bool),
}

/// The typed fields a notify's events carry, in authoring order, each name
/// once. Held by the clip, read through the event's clip and notify index: an
/// event carries no payload data, so delivering one allocates nothing.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct NotifyPayload {
    /// `(name, value)` pairs; names non-empty and unique.
    pub fields: Vec<(String, PayloadValue)>,
}

impl NotifyPayload {
    /// The value of field `name`.
    #[must_use]
    pub fn get(&self, name: &str) -> Option<&PayloadValue> {
        self.fields.iter().find(|(n, _)| n == name).map(|(_, v)| v)
    }
    /// Field `name` when it is text.
    #[must_use]
    pub fn text(&self, name: &str) -> Option<&str> {
        match self.get(name)? {
            PayloadValue::Text(t) => Some(t),
            _ => None,
        }
    }
    /// Field `name` when it is a number.
    #[must_use]
    pub fn number(&self, name: &str) -> Option<f32> {
        match self.get(name)? {
            PayloadValue::Number(x) => Some(*x),
            _ => None,
        }
    }
    /// Field `name` when it is a flag.
    #[must_use]
    pub fn flag(&self, name: &str) -> Option<bool> {
        match self.get(name)? {
            PayloadValue::Bool(b) => Some(*b),
            _ => None,
        }
    }
    /// Whether it has no field.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.fields.is_empty()
    }
}

/// A named time inside a clip that fires an event when playback crosses it;
/// with a `duration`, a window (see the module docs).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ClipNotify {
    /// Event name delivered to gameplay (`Footstep`, `Hit`); non-empty.
    pub name: String,
    /// Seconds from the start of the clip (`>= 0`, finite; at most the clip duration when known).
    pub time: f32,
    /// Window length, clip seconds (`>= 0`, default 0 = an instant notify);
    /// `time + duration` is at most the clip duration.
    pub duration: f32,
    /// Fields delivered with its events (default none).
    pub payload: NotifyPayload,
}

impl ClipNotify {
    /// An instant notify without payload.
    #[must_use]
    pub fn new(name: impl Into<String>, time: f32) -> ClipNotify {
        ClipNotify { name: name.into(), time, ..ClipNotify::default() }
    }
    /// Whether it is a window (`duration > 0`).
    #[must_use]
    pub fn is_window(&self) -> bool {
        self.duration > 0.0
    }
    /// Where it ends, clip seconds (`time` for an instant notify).
    #[must_use]
    pub fn end(&self) -> f32 {
        self.time + self.duration
    }
}

/// A named sync marker: a time by which the states of a sync group line up
/// (the left foot down, `foot_l`), see the module docs.
#[derive(Debug, Clone, PartialEq)]
pub struct SyncMarker {
    /// Marker name (`foot_l`); non-empty. Several markers may share a name.
    pub name: String,
    /// Seconds from the start of the clip (`>= 0`, finite; at most the clip duration).
    pub time: f32,
}

/// A named float curve of a clip: keys of time and value, linear between
/// keys, holding the first (last) value before (after) them.
#[derive(Debug, Clone, PartialEq)]
pub struct FloatCurve {
    /// Curve name (`ik.hand_on_weapon`); non-empty, unique in the clip.
    pub name: String,
    /// `(time, value)` keys: at least one, times `>= 0` and strictly increasing, values finite.
    pub keys: Vec<(f32, f32)>,
}

impl FloatCurve {
    /// The value at clip time `t` (the first key's value for an empty curve
    /// is 0). Allocation-free.
    #[must_use]
    pub fn sample(&self, t: f32) -> f32 {
        let keys = &self.keys;
        let next = keys.partition_point(|k| k.0 <= t);
        match (next, keys.len()) {
            (_, 0) => 0.0,
            (0, _) => keys[0].1,
            (n, len) if n == len => keys[len - 1].1,
            (n, _) => {
                let ((t0, v0), (t1, v1)) = (keys[n - 1], keys[n]);
                let f = (t - t0) / (t1 - t0);
                v0 + (v1 - v0) * f
            }
        }
    }
}

/// A clip asset (a `clip` definition).
#[derive(Debug, Clone, PartialEq)]
pub struct ClipAsset {
    /// Unique id: the clip name referenced by graphs, tables and slots.
    pub id: String,
    /// Source model path, relative to the definition folder (`/` separated).
    pub source: String,
    /// Which animation of the source.
    pub animation: AnimationSelector,
    /// Speed multiplier baked into the clip (`> 0`, default 1).
    pub rate: f32,
    /// What a graph state starts with when this clip is assigned (default `true`).
    pub loop_hint: bool,
    /// Notifies sorted by time (stable for equal times, so authoring order breaks ties).
    pub notifies: Vec<ClipNotify>,
    /// Sync markers sorted by time (stable), those of notifies marked
    /// `marker` included.
    pub markers: Vec<SyncMarker>,
    /// Float curves, names unique, in authoring order.
    pub curves: Vec<FloatCurve>,
    /// How the clip binds when it comes from another model than the
    /// character's (default [`ClipBinding::Auto`]).
    pub binding: ClipBinding,
}

impl ClipAsset {
    /// Notifies whose time lies in `(from, to]` seconds, for a clock that did
    /// not wrap; callers split a wrapping interval in two. Allocation-free.
    pub fn notifies_between(&self, from: f32, to: f32) -> impl Iterator<Item = &ClipNotify> {
        self.notifies.iter().filter(move |n| n.time > from && n.time <= to)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notifies_between_is_half_open() {
        let clip = ClipAsset {
            id: "walk".into(),
            source: "models/humanoid.glb".into(),
            animation: AnimationSelector::Name("walk".into()),
            rate: 1.0,
            loop_hint: true,
            notifies: vec![ClipNotify::new("Footstep", 0.35), ClipNotify::new("Footstep", 0.82)],
            markers: Vec::new(),
            curves: Vec::new(),
            binding: ClipBinding::Auto,
        };
        assert_eq!(clip.notifies_between(0.0, 0.35).count(), 1);
        assert_eq!(clip.notifies_between(0.35, 0.9).count(), 1);
        assert_eq!(clip.notifies_between(0.9, 1.0).count(), 0);
        assert_eq!(AnimationSelector::Index(2).to_string(), "#2");
    }

    #[test]
    fn curves_are_linear_between_keys_and_hold_outside() {
        let c = FloatCurve { name: "ik.hand_on_weapon".into(), keys: vec![(0.2, 1.0), (0.6, 0.0), (1.0, 0.5)] };
        assert_eq!(c.sample(0.0), 1.0);
        assert_eq!(c.sample(0.4), 0.5);
        assert_eq!(c.sample(0.6), 0.0);
        assert_eq!(c.sample(0.8), 0.25);
        assert_eq!(c.sample(3.0), 0.5);
        assert_eq!(FloatCurve { name: "x".into(), keys: vec![] }.sample(1.0), 0.0);
    }

    #[test]
    fn payload_fields_are_typed() {
        let p = NotifyPayload {
            fields: vec![
                ("surface".into(), PayloadValue::Text("metal".into())),
                ("volume".into(), PayloadValue::Number(0.5)),
                ("heavy".into(), PayloadValue::Bool(true)),
            ],
        };
        assert_eq!(p.text("surface"), Some("metal"));
        assert_eq!(p.number("volume"), Some(0.5));
        assert_eq!(p.flag("heavy"), Some(true));
        assert_eq!(p.number("surface"), None);
        assert!(p.get("missing").is_none());
        let w = ClipNotify { duration: 0.3, ..ClipNotify::new("combo", 0.2) };
        assert!(w.is_window() && !ClipNotify::new("x", 0.0).is_window());
        assert_eq!(w.end(), 0.5);
    }
}

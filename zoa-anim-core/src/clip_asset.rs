//! Clip assets: one animation of one source model,
//! with a baked rate, a loop hint and named notifies.
//!
//! The keyframes stay in the source model; the asset holds only what an
//! author edits. A clip asset's id is the name graph states, clip tables and
//! slots refer to it by.

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

/// A named time inside a clip that fires an event when playback crosses it.
#[derive(Debug, Clone, PartialEq)]
pub struct ClipNotify {
    /// Event name delivered to gameplay (`Footstep`, `Hit`); non-empty.
    pub name: String,
    /// Seconds from the start of the clip (`>= 0`, finite; at most the clip duration when known).
    pub time: f32,
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
            notifies: vec![
                ClipNotify { name: "Footstep".into(), time: 0.35 },
                ClipNotify { name: "Footstep".into(), time: 0.82 },
            ],
            binding: ClipBinding::Auto,
        };
        assert_eq!(clip.notifies_between(0.0, 0.35).count(), 1);
        assert_eq!(clip.notifies_between(0.35, 0.9).count(), 1);
        assert_eq!(clip.notifies_between(0.9, 1.0).count(), 0);
        assert_eq!(AnimationSelector::Index(2).to_string(), "#2");
    }
}

//! The resolved clip table a graph instance is built against: one entry per
//! playable clip with its duration, baked rate, loop hint and notifies.
//!
//! Clip references (strings in graphs, clip tables and slots) are resolved to
//! a [`ClipId`] **once**, when a definition is compiled, through the core's
//! [`AnimationClipResolver`] contract (the table itself implements it by name).
//! The per-frame path then only indexes.

use std::collections::HashMap;

use zoa_anim_core::contracts::AnimationClipResolver;
use zoa_anim_core::{ClipAsset, ClipNotify, Name};

use crate::error::RuntimeError;

pub use crate::pose::animation::ClipId;

/// What the behaviour layer needs to know about one clip.
#[derive(Debug, Clone, PartialEq)]
pub struct ClipInfo {
    /// Name clip references resolve by (unique in the table).
    pub name: String,
    /// Length in clip seconds (`>= 0`, finite). A zero-length clip is a single
    /// pose: it never advances, and as a one-shot it is finished at once.
    pub duration: f32,
    /// Speed multiplier baked into the clip (the clip definition's `rate`; `> 0`, default 1).
    pub rate: f32,
    /// Whether a state or row using the clip loops by default (default `true`).
    pub loop_hint: bool,
    /// Named times in clip seconds, sorted by time.
    pub notifies: Vec<ClipNotify>,
}

impl ClipInfo {
    /// A looping clip of `duration` seconds with rate 1 and no notifies.
    pub fn new(name: impl Into<String>, duration: f32) -> ClipInfo {
        ClipInfo { name: name.into(), duration, rate: 1.0, loop_hint: true, notifies: Vec::new() }
    }

    /// The clip described by a clip asset whose source animation lasts `duration` seconds.
    #[must_use]
    pub fn from_asset(asset: &ClipAsset, duration: f32) -> ClipInfo {
        ClipInfo {
            name: asset.id.clone(),
            duration,
            rate: asset.rate,
            loop_hint: asset.loop_hint,
            notifies: asset.notifies.clone(),
        }
    }

    /// Builder: adds a notify (kept sorted by time, stable).
    pub fn with_notify(mut self, name: impl Into<String>, time: f32) -> ClipInfo {
        let at = self.notifies.partition_point(|n| n.time <= time);
        self.notifies.insert(at, ClipNotify { name: name.into(), time });
        self
    }

    /// Builder: loop hint.
    #[must_use]
    pub fn with_loop_hint(mut self, looping: bool) -> ClipInfo {
        self.loop_hint = looping;
        self
    }

    /// Builder: baked rate.
    #[must_use]
    pub fn with_rate(mut self, rate: f32) -> ClipInfo {
        self.rate = rate;
        self
    }

    /// Seconds of playback one pass of the clip takes at speed 1 (`duration / rate`).
    #[must_use]
    pub fn playback_length(&self) -> f32 {
        self.duration / self.rate
    }
}

/// Every clip an instance may play, indexed by [`ClipId`], with the clip and
/// notify names interned once for the events that carry them.
#[derive(Debug, Clone, PartialEq)]
pub struct ClipTable {
    clips: Vec<ClipInfo>,
    by_name: HashMap<String, ClipId>,
    /// Per clip: its name, then its notifies' names in notify order.
    names: Vec<Vec<Name>>,
}

impl ClipTable {
    /// Checks every clip (unique names, finite non-negative durations, positive
    /// rates, notifies inside the clip and sorted) and reports every problem at once.
    pub fn new(clips: Vec<ClipInfo>) -> Result<ClipTable, RuntimeError> {
        let mut reasons = Vec::new();
        let mut by_name = HashMap::with_capacity(clips.len());
        if clips.len() > u32::MAX as usize {
            reasons.push("more than u32::MAX clips".to_owned());
        }
        for (i, c) in clips.iter().enumerate() {
            if by_name.insert(c.name.clone(), ClipId(i as u32)).is_some() {
                reasons.push(format!("clip `{}` is listed twice", c.name));
            }
            if !(c.duration.is_finite() && c.duration >= 0.0) {
                reasons.push(format!("clip `{}` has duration {} (must be finite and >= 0)", c.name, c.duration));
            }
            let max = zoa_anim_core::budget::MAX_SPEED;
            if !(c.rate.is_finite() && c.rate > 0.0 && c.rate <= max) {
                reasons.push(format!("clip `{}` has rate {} (must be > 0 and at most {max})", c.name, c.rate));
            }
            for n in &c.notifies {
                if !(n.time.is_finite() && n.time >= 0.0 && n.time <= c.duration) {
                    reasons.push(format!(
                        "clip `{}`: notify `{}` at {} s lies outside 0..={} s",
                        c.name, n.name, n.time, c.duration
                    ));
                }
            }
            if c.notifies.len() > u16::MAX as usize {
                reasons.push(format!("clip `{}` has more than {} notifies", c.name, u16::MAX));
            }
            if c.notifies.windows(2).any(|w| w[0].time > w[1].time) {
                reasons.push(format!("clip `{}`: notifies are not sorted by time", c.name));
            }
        }
        RuntimeError::check("clip table", reasons)?;
        let names = clips
            .iter()
            .map(|c| std::iter::once(Name::new(&c.name)).chain(c.notifies.iter().map(|n| Name::new(&n.name))).collect())
            .collect();
        Ok(ClipTable { clips, by_name, names })
    }

    /// The interned name of clip `id` ([`Name::EMPTY`] when out of range).
    #[must_use]
    pub fn name(&self, id: ClipId) -> Name {
        self.names.get(id.index()).map_or(Name::EMPTY, |n| n[0])
    }

    /// The interned name of notify `notify` of clip `id` ([`Name::EMPTY`] when out of range).
    #[must_use]
    pub fn notify_name(&self, id: ClipId, notify: u16) -> Name {
        self.names.get(id.index()).and_then(|n| n.get(1 + usize::from(notify))).copied().unwrap_or(Name::EMPTY)
    }

    /// Looks a clip up by name.
    #[must_use]
    pub fn index_of(&self, name: &str) -> Option<ClipId> {
        self.by_name.get(name).copied()
    }

    /// The clip with id `id`.
    ///
    /// # Panics
    /// When `id` is not from this table.
    #[must_use]
    pub fn get(&self, id: ClipId) -> &ClipInfo {
        &self.clips[id.index()]
    }

    /// The clip with id `id`, if in range.
    #[must_use]
    pub fn try_get(&self, id: ClipId) -> Option<&ClipInfo> {
        self.clips.get(id.index())
    }

    /// Every clip in id order.
    #[must_use]
    pub fn clips(&self) -> &[ClipInfo] {
        &self.clips
    }

    /// Number of clips.
    #[must_use]
    pub fn len(&self) -> usize {
        self.clips.len()
    }

    /// Whether the table is empty.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.clips.is_empty()
    }
}

/// The table resolves references by exact clip name.
impl AnimationClipResolver for ClipTable {
    type Handle = ClipId;
    fn try_resolve(&mut self, clip_reference: &str) -> Option<ClipId> {
        self.index_of(clip_reference)
    }
}

/// A shared table resolves the same way (resolution never mutates it).
impl AnimationClipResolver for &ClipTable {
    type Handle = ClipId;
    fn try_resolve(&mut self, clip_reference: &str) -> Option<ClipId> {
        self.index_of(clip_reference)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_reports_every_problem() {
        let err = ClipTable::new(vec![
            ClipInfo::new("a", 1.0),
            ClipInfo::new("a", -1.0),
            ClipInfo::new("b", 1.0).with_rate(0.0).with_notify("late", 2.0),
        ])
        .unwrap_err();
        let RuntimeError::InvalidJob { reasons, .. } = err else { panic!("{err}") };
        assert_eq!(reasons.len(), 4, "{reasons:#?}");
    }

    #[test]
    fn resolves_by_name_and_keeps_notifies_sorted() {
        let mut t = ClipTable::new(vec![
            ClipInfo::new("idle", 2.0),
            ClipInfo::new("walk", 1.0).with_notify("R", 0.8).with_notify("L", 0.3),
        ])
        .unwrap();
        assert_eq!(t.try_resolve("walk"), Some(ClipId(1)));
        assert_eq!(t.try_resolve("run"), None);
        let names: Vec<_> = t.get(ClipId(1)).notifies.iter().map(|n| n.name.as_str()).collect();
        assert_eq!(names, ["L", "R"]);
        assert_eq!(t.get(ClipId(0)).playback_length(), 2.0);
    }
}

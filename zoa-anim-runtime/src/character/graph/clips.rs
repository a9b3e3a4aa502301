//! The resolved clip table a graph instance is built against: one entry per
//! playable clip with its duration, baked rate, loop hint, notifies (instants
//! and windows, with payloads), sync markers and float curves.
//!
//! Clip references (strings in graphs, clip tables and slots) are resolved to
//! a [`ClipId`] **once**, when a definition is compiled, through the core's
//! [`AnimationClipResolver`] contract (the table itself implements it by name).
//! Names (of clips, notifies, markers, curves) are interned and each clip's
//! windows, markers and curves laid out for the frame then too: the per-frame
//! path only indexes.

use std::collections::HashMap;

use zoa_anim_core::budget::CLIP_WINDOWS;
use zoa_anim_core::contracts::AnimationClipResolver;
use zoa_anim_core::{ClipAsset, ClipNotify, FloatCurve, Name, NotifyPayload, SyncMarker};

use crate::error::RuntimeError;
use crate::pose::curves::{CurveSet, CurveTracks};

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
    /// Named times in clip seconds, sorted by time (windows included).
    pub notifies: Vec<ClipNotify>,
    /// Sync markers in clip seconds, sorted by time.
    pub markers: Vec<SyncMarker>,
    /// Float curves, names unique.
    pub curves: Vec<FloatCurve>,
}

impl ClipInfo {
    /// A looping clip of `duration` seconds with rate 1 and no notifies, markers or curves.
    pub fn new(name: impl Into<String>, duration: f32) -> ClipInfo {
        ClipInfo {
            name: name.into(),
            duration,
            rate: 1.0,
            loop_hint: true,
            notifies: Vec::new(),
            markers: Vec::new(),
            curves: Vec::new(),
        }
    }

    /// The clip described by a clip asset whose source animation lasts
    /// `duration` seconds (a window that ends within 1e-4 s past the end, as
    /// `validate` allows, is cut at the end).
    #[must_use]
    pub fn from_asset(asset: &ClipAsset, duration: f32) -> ClipInfo {
        let mut notifies = asset.notifies.clone();
        for n in notifies.iter_mut().filter(|n| n.is_window() && n.end() > duration && n.time < duration) {
            n.duration = duration - n.time;
        }
        ClipInfo {
            name: asset.id.clone(),
            duration,
            rate: asset.rate,
            loop_hint: asset.loop_hint,
            notifies,
            markers: asset.markers.clone(),
            curves: asset.curves.clone(),
        }
    }

    /// Builder: adds a notify (kept sorted by time, stable).
    pub fn with_notify(self, name: impl Into<String>, time: f32) -> ClipInfo {
        self.with(ClipNotify::new(name, time))
    }

    /// Builder: adds a notify window of `duration` seconds from `time`.
    pub fn with_window(self, name: impl Into<String>, time: f32, duration: f32) -> ClipInfo {
        self.with(ClipNotify { duration, ..ClipNotify::new(name, time) })
    }

    /// Builder: adds `notify` (kept sorted by time, stable).
    #[must_use]
    pub fn with(mut self, notify: ClipNotify) -> ClipInfo {
        let at = self.notifies.partition_point(|n| n.time <= notify.time);
        self.notifies.insert(at, notify);
        self
    }

    /// Builder: adds a sync marker (kept sorted by time, stable).
    pub fn with_marker(mut self, name: impl Into<String>, time: f32) -> ClipInfo {
        let at = self.markers.partition_point(|m| m.time <= time);
        self.markers.insert(at, SyncMarker { name: name.into(), time });
        self
    }

    /// Builder: adds a float curve.
    pub fn with_curve(mut self, name: impl Into<String>, keys: &[(f32, f32)]) -> ClipInfo {
        self.curves.push(FloatCurve { name: name.into(), keys: keys.to_vec() });
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

/// One clip's sync marker: clip seconds and marker name (an index into
/// [`ClipTable::marker_names`]).
pub(crate) type Marker = (f32, u16);

/// What the table lays out per clip at set-up, for the frame.
#[derive(Debug, Clone, PartialEq, Default)]
struct Compiled {
    /// The clip's name, then its notifies' names in notify order.
    names: Vec<Name>,
    /// Notify index of each window, in notify order (at most [`CLIP_WINDOWS`]).
    windows: Vec<u16>,
    /// Sync markers by time.
    markers: Vec<Marker>,
}

/// Every clip an instance may play, indexed by [`ClipId`], with the clip and
/// notify names interned once for the events that carry them, marker names
/// interned once for sync groups, and every curve name in one [`CurveSet`].
#[derive(Debug, Clone, PartialEq)]
pub struct ClipTable {
    clips: Vec<ClipInfo>,
    by_name: HashMap<String, ClipId>,
    compiled: Vec<Compiled>,
    marker_names: Vec<Name>,
    curves: CurveSet,
    /// Per clip, its curves bound to `curves`.
    curve_tracks: Vec<CurveTracks>,
    any_window: bool,
}

impl ClipTable {
    /// Checks every clip (unique names, finite non-negative durations, positive
    /// rates, notifies, windows and markers inside the clip and sorted, at most
    /// [`CLIP_WINDOWS`] windows, curves with increasing keys) and reports every
    /// problem at once.
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
            check_clip(c, &mut reasons);
        }
        RuntimeError::check("clip table", reasons)?;
        let mut marker_names: Vec<Name> = Vec::new();
        let compiled = clips.iter().map(|c| compile(c, &mut marker_names)).collect();
        let curves = CurveSet::new(clips.iter().flat_map(|c| &c.curves));
        let curve_tracks = clips.iter().map(|c| CurveTracks::bind(&c.curves, &curves)).collect();
        let any_window = clips.iter().any(|c| c.notifies.iter().any(ClipNotify::is_window));
        Ok(ClipTable { clips, by_name, compiled, marker_names, curves, curve_tracks, any_window })
    }

    /// The interned name of clip `id` ([`Name::EMPTY`] when out of range).
    #[must_use]
    pub fn name(&self, id: ClipId) -> Name {
        self.compiled.get(id.index()).map_or(Name::EMPTY, |c| c.names[0])
    }

    /// The interned name of notify `notify` of clip `id` ([`Name::EMPTY`] when out of range).
    #[must_use]
    pub fn notify_name(&self, id: ClipId, notify: u16) -> Name {
        self.compiled.get(id.index()).and_then(|c| c.names.get(1 + usize::from(notify))).copied().unwrap_or(Name::EMPTY)
    }

    /// The payload of notify `notify` of clip `id` (`None` when out of range or empty).
    #[must_use]
    pub fn notify_payload(&self, id: ClipId, notify: u16) -> Option<&NotifyPayload> {
        let n = self.clips.get(id.index())?.notifies.get(usize::from(notify))?;
        (!n.payload.is_empty()).then_some(&n.payload)
    }

    /// Whether some clip has a notify window (else window tracking is skipped).
    #[must_use]
    pub fn has_windows(&self) -> bool {
        self.any_window
    }

    /// Notify indices of clip `id`'s windows, in notify order (bit `k` of a
    /// set of open windows is window `k`).
    #[must_use]
    pub(crate) fn windows(&self, id: ClipId) -> &[u16] {
        self.compiled.get(id.index()).map_or(&[], |c| &c.windows)
    }

    /// Clip `id`'s sync markers by time.
    #[must_use]
    pub(crate) fn markers(&self, id: ClipId) -> &[Marker] {
        self.compiled.get(id.index()).map_or(&[], |c| &c.markers)
    }

    /// Every sync marker name, interned; a marker's `u16` indexes it.
    #[must_use]
    pub fn marker_names(&self) -> &[Name] {
        &self.marker_names
    }

    /// Every curve name of the clips.
    #[must_use]
    pub fn curves(&self) -> &CurveSet {
        &self.curves
    }

    /// Each clip's curves bound to [`ClipTable::curves`], indexed by clip id.
    #[must_use]
    pub fn curve_tracks(&self) -> &[CurveTracks] {
        &self.curve_tracks
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

/// Every problem of one clip.
fn check_clip(c: &ClipInfo, reasons: &mut Vec<String>) {
    if !(c.duration.is_finite() && c.duration >= 0.0) {
        reasons.push(format!("clip `{}` has duration {} (must be finite and >= 0)", c.name, c.duration));
    }
    let max = zoa_anim_core::budget::MAX_SPEED;
    if !(c.rate.is_finite() && c.rate > 0.0 && c.rate <= max) {
        reasons.push(format!("clip `{}` has rate {} (must be > 0 and at most {max})", c.name, c.rate));
    }
    let inside = |t: f32| t.is_finite() && t >= 0.0 && t <= c.duration;
    for n in &c.notifies {
        if !(inside(n.time) && n.duration.is_finite() && n.duration >= 0.0 && inside(n.end())) {
            reasons.push(format!(
                "clip `{}`: notify `{}` at {} s (for {} s) lies outside 0..={} s",
                c.name, n.name, n.time, n.duration, c.duration
            ));
        }
    }
    if c.notifies.len() > u16::MAX as usize || c.markers.len() > u16::MAX as usize {
        reasons.push(format!("clip `{}` has more than {} notifies or markers", c.name, u16::MAX));
    }
    let windows = c.notifies.iter().filter(|n| n.is_window()).count() as u64;
    if let Err(e) = CLIP_WINDOWS.check(format!("clip `{}`", c.name), windows) {
        reasons.push(e.to_string());
    }
    if c.notifies.windows(2).any(|w| w[0].time > w[1].time) || c.markers.windows(2).any(|w| w[0].time > w[1].time) {
        reasons.push(format!("clip `{}`: notifies or markers are not sorted by time", c.name));
    }
    for m in c.markers.iter().filter(|m| !inside(m.time)) {
        reasons
            .push(format!("clip `{}`: marker `{}` at {} s lies outside 0..={} s", c.name, m.name, m.time, c.duration));
    }
    for (i, k) in c.curves.iter().enumerate() {
        let increasing = k.keys.windows(2).all(|w| w[0].0 < w[1].0);
        if k.keys.is_empty() || !increasing || k.keys.iter().any(|&(t, v)| !t.is_finite() || !v.is_finite()) {
            reasons.push(format!("clip `{}`: curve `{}` needs finite keys with increasing times", c.name, k.name));
        }
        if c.curves[..i].iter().any(|o| o.name == k.name) {
            reasons.push(format!("clip `{}`: curve `{}` is listed twice", c.name, k.name));
        }
    }
}

/// Interned names, windows and markers of one (checked) clip.
fn compile(c: &ClipInfo, marker_names: &mut Vec<Name>) -> Compiled {
    let names = std::iter::once(Name::new(&c.name)).chain(c.notifies.iter().map(|n| Name::new(&n.name))).collect();
    let windows = (0..c.notifies.len()).filter(|&n| c.notifies[n].is_window()).map(|n| n as u16).collect();
    let markers = c
        .markers
        .iter()
        .map(|m| {
            let name = Name::new(&m.name);
            let id = marker_names.iter().position(|n| *n == name).unwrap_or_else(|| {
                marker_names.push(name);
                marker_names.len() - 1
            });
            (m.time, id.min(usize::from(u16::MAX)) as u16)
        })
        .collect();
    Compiled { names, windows, markers }
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

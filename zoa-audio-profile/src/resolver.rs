//! Sound resolution: event id + active state + surface → one entry of a
//! flattened profile, and weighted variant picking.
//!
//! # Rules
//! An entry is a **candidate** for a request `(event, state, surface)` when
//!
//! 1. its event id equals the requested id or, with hierarchical fallback on,
//!    is a dotted ancestor of it (`weapon.fire` answers `weapon.fire.dryclick`);
//! 2. its tag filter is a **subset** of the active state (plain subset
//!    matching: an empty filter matches every state);
//! 3. it has no surface tag, or its surface tag equals the requested surface
//!    (a request without a surface only reaches surface-less entries).
//!
//! Among candidates the winner is the greatest by, in order:
//!
//! 1. **id depth** — a more specific id always beats a more general one,
//!    whatever the tags or surface (so fallback to `weapon.fire` happens only
//!    when *no* `weapon.fire.dryclick` entry is a candidate);
//! 2. **surface match** — an entry whose surface matched beats one without a
//!    surface tag;
//! 3. **tag specificity** — number of tag bits in the filter;
//! 4. **weight** — higher wins;
//! 5. **authoring order** — the earlier entry of the flattened table wins.
//!
//! # Why no state-tag fallback walk
//! The clip resolver of `zoa-anim-core` relaxes dimensions (mood, reaction, …)
//! so a sprinting entity still finds *some* sprint clip. Sound does not do
//! that: it uses plain subset matching, because in audio a wrong-but-close sound (an angry grunt for a calm state) is
//! worse than the generic untagged entry, which every well-formed profile has.
//! The hierarchical id fallback already gives sound its graceful degradation.
//!
//! # Cost
//! [`resolve`] is one pass over the table, no allocation, no locking. The
//! FNV-1a hashes of the requested id's dotted prefixes are computed once on
//! the stack (FNV-1a is incremental), and each entry's precomputed id hash is
//! looked up among them (confirmed by text), so no parent id is ever built or
//! interned and the walk `weapon.fire.dryclick → weapon.fire → weapon`
//! happens implicitly by ranking on id depth.

use zoa_anim_core::inheritance::{Inheritable, InheritedRow, ancestry, flatten_chain};
use zoa_anim_core::{AudioVariant, SoundEventEntry, SoundEventId, SoundProfile, SoundThrottle, StateTagSet};

use crate::AudioError;

/// Most variants remembered by avoid-repeat ([`SoundEventEntry::avoid_repeat`]
/// is clamped to this).
pub const MAX_AVOID_REPEAT: usize = 8;

/// Largest pitch randomisation accepted, semitones (two octaves).
pub const MAX_PITCH_JITTER_SEMITONES: f32 = 24.0;

/// Something that holds a [`SoundEventEntry`]: a bare entry or a row of a
/// flattened table. Implementations must not allocate.
pub trait SoundRow {
    /// The entry.
    fn entry(&self) -> &SoundEventEntry;
}

impl SoundRow for SoundEventEntry {
    #[inline]
    fn entry(&self) -> &SoundEventEntry {
        self
    }
}

impl SoundRow for InheritedRow<SoundEventEntry> {
    #[inline]
    fn entry(&self) -> &SoundEventEntry {
        &self.row
    }
}

impl<T: SoundRow + ?Sized> SoundRow for &T {
    #[inline]
    fn entry(&self) -> &SoundEventEntry {
        (**self).entry()
    }
}

/// Switches of a resolution.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResolveOptions {
    /// Retry with the parent id when nothing answers the full id
    /// (`weapon.fire.dryclick → weapon.fire → weapon`). Default `true`.
    pub hierarchical: bool,
}

impl Default for ResolveOptions {
    fn default() -> Self {
        ResolveOptions { hierarchical: true }
    }
}

/// The winner of a resolution.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SoundMatch {
    /// Index of the winning entry in the (flattened) table.
    pub entry: usize,
    /// The id of the entry that matched: the requested id or one of its ancestors.
    pub event_id: SoundEventId,
    /// How many trailing segments were stripped to reach `event_id` (0 = exact id).
    pub id_levels_up: u32,
    /// Whether the entry's surface tag matched (false: the entry has no surface tag).
    pub surface_matched: bool,
    /// Number of tag bits in the winning entry's filter.
    pub specificity: u32,
}

/// Ranking key; greater is better. Order comparison happens by scan order.
#[derive(Clone, Copy)]
struct Rank {
    depth: u32,
    surface: bool,
    specificity: u32,
    weight: f32,
}

impl Rank {
    #[inline]
    fn beats(&self, other: &Rank) -> bool {
        if self.depth != other.depth {
            return self.depth > other.depth;
        }
        if self.surface != other.surface {
            return self.surface;
        }
        if self.specificity != other.specificity {
            return self.specificity > other.specificity;
        }
        self.weight > other.weight
    }
}

/// Most segments an id can have (128 bytes, one letter per segment).
const MAX_SEGMENTS: usize = 64;

/// FNV-1a hashes of every dotted prefix of the requested id, shortest first,
/// computed in one pass (FNV-1a is incremental, so the running state at each
/// `.` is the hash of the prefix before it). Fixed size, on the stack.
struct Prefixes<'a> {
    text: &'a str,
    /// `(hash, byte length)` of the prefix with `i + 1` segments.
    levels: [(u64, u8); MAX_SEGMENTS],
    count: usize,
}

impl<'a> Prefixes<'a> {
    fn of(id: &'a SoundEventId) -> Self {
        const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
        const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;
        let text = id.as_str();
        let mut levels = [(0u64, 0u8); MAX_SEGMENTS];
        let mut count = 0;
        let mut hash = FNV_OFFSET;
        for (i, &b) in text.as_bytes().iter().enumerate() {
            if b == b'.' && count < MAX_SEGMENTS - 1 {
                levels[count] = (hash, i as u8);
                count += 1;
            }
            hash ^= b as u64;
            hash = hash.wrapping_mul(FNV_PRIME);
        }
        levels[count] = (hash, text.len() as u8);
        count += 1;
        debug_assert_eq!(hash, id.hash_value());
        Prefixes { text, levels, count }
    }

    /// Segments of `candidate` if it is the id itself or one of its dotted
    /// ancestors — compared by hash, confirmed by text.
    #[inline]
    fn depth_of(&self, candidate: &SoundEventId) -> Option<u32> {
        let h = candidate.hash_value();
        (0..self.count).find_map(|k| {
            let (hash, len) = self.levels[k];
            (hash == h && candidate.as_str() == &self.text[..len as usize]).then_some(k as u32 + 1)
        })
    }
}

/// Resolves `event` in `rows` for the active `state` and `surface` (see the
/// module docs for the rules). Pure, deterministic and allocation-free.
pub fn resolve<R: SoundRow>(
    rows: &[R],
    event: SoundEventId,
    state: StateTagSet,
    surface: Option<&str>,
    options: ResolveOptions,
) -> Option<SoundMatch> {
    if options.hierarchical {
        let prefixes = Prefixes::of(&event);
        best_candidate(rows, state, surface, prefixes.count as u32, |c| prefixes.depth_of(c))
    } else {
        // Exact ids only: one hash compare per row, no prefix table.
        let depth = event.depth() as u32;
        best_candidate(rows, state, surface, depth, |c| (*c == event).then_some(depth))
    }
}

/// The one pass shared by both modes; `depth_of` answers whether an entry's
/// id is acceptable and how many segments it has.
#[inline]
fn best_candidate<R: SoundRow>(
    rows: &[R],
    state: StateTagSet,
    surface: Option<&str>,
    request_depth: u32,
    depth_of: impl Fn(&SoundEventId) -> Option<u32>,
) -> Option<SoundMatch> {
    let mut best: Option<(usize, Rank)> = None;
    for (i, row) in rows.iter().enumerate() {
        let e = row.entry();
        let Some(depth) = depth_of(&e.event) else {
            continue;
        };
        if !e.tag_filter.is_subset_of(&state) {
            continue;
        }
        let surface_matched = match (&e.surface, surface) {
            (None, _) => false,
            (Some(want), Some(have)) if want == have => true,
            (Some(_), _) => continue,
        };
        let rank = Rank { depth, surface: surface_matched, specificity: e.tag_filter.specificity(), weight: e.weight };
        if best.as_ref().is_none_or(|(_, b)| rank.beats(b)) {
            best = Some((i, rank));
        }
    }
    best.map(|(i, rank)| SoundMatch {
        entry: i,
        event_id: rows[i].entry().event,
        id_levels_up: request_depth - rank.depth,
        surface_matched: rank.surface,
        specificity: rank.specificity,
    })
}

/// Checks that `variants` can be picked from: non-empty, every weight finite
/// and `>= 0`, total `> 0`.
pub fn validate_variants(variants: &[AudioVariant]) -> Result<f32, AudioError> {
    if variants.is_empty() {
        return Err(AudioError::InvalidVariantWeights { reason: "no variants" });
    }
    let mut total = 0.0f32;
    for v in variants {
        if !v.weight.is_finite() {
            return Err(AudioError::InvalidVariantWeights { reason: "a weight is not finite" });
        }
        if v.weight < 0.0 {
            return Err(AudioError::InvalidVariantWeights { reason: "a weight is negative" });
        }
        total += v.weight;
    }
    if total <= 0.0 || !total.is_finite() {
        return Err(AudioError::InvalidVariantWeights { reason: "total weight must be > 0" });
    }
    Ok(total)
}

/// Weighted selection: variant `i` is picked for `r` in
/// `[sum(w[..i]) / total, sum(w[..=i]) / total)`. `r` is clamped to `[0, 1)`
/// (NaN counts as 0); zero-weight variants are never picked.
///
/// # Errors
/// [`AudioError::InvalidVariantWeights`] for an empty list, a negative or
/// non-finite weight, or a total that is not `> 0` — never a panic.
pub fn pick_variant_index(variants: &[AudioVariant], r: f32) -> Result<usize, AudioError> {
    let total = validate_variants(variants)?;
    Ok(pick_masked(variants, r, total, |_| true))
}

/// Walks the cumulative weights of the variants `allowed` admits; `total` is
/// their summed weight (`> 0`).
fn pick_masked(variants: &[AudioVariant], r: f32, total: f32, allowed: impl Fn(usize) -> bool) -> usize {
    let r = if r.is_nan() { 0.0 } else { r.clamp(0.0, 1.0) };
    let target = r * total;
    let mut acc = 0.0f32;
    let mut last_positive = 0;
    for (i, v) in variants.iter().enumerate() {
        if !allowed(i) || v.weight <= 0.0 {
            continue;
        }
        acc += v.weight;
        last_positive = i;
        if target < acc {
            return i;
        }
    }
    // r == 1 or float rounding: the last pickable variant.
    last_positive
}

/// The last picks of one entry, newest first, for avoid-repeat. Fixed size,
/// never allocates.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct VariantHistory {
    recent: [u16; MAX_AVOID_REPEAT],
    len: u8,
}

impl VariantHistory {
    /// An empty history.
    #[must_use]
    pub const fn new() -> Self {
        VariantHistory { recent: [0; MAX_AVOID_REPEAT], len: 0 }
    }

    /// Picks weighted by `r`, avoiding the last `avoid` picks.
    ///
    /// `avoid` is clamped to [`MAX_AVOID_REPEAT`] and to `variants.len() - 1`
    /// (one variant always stays pickable). When the variants left over have
    /// zero total weight the history is ignored for this pick. The pick is
    /// remembered.
    ///
    /// # Errors
    /// As [`pick_variant_index`].
    pub fn pick(&mut self, variants: &[AudioVariant], r: f32, avoid: u32) -> Result<usize, AudioError> {
        let total = validate_variants(variants)?;
        let n = (avoid as usize).min(MAX_AVOID_REPEAT).min(variants.len() - 1).min(self.len as usize);
        let recent = self.recent;
        let blocked = |i: usize| recent[..n].contains(&(i as u16));
        let allowed_total: f32 =
            variants.iter().enumerate().filter(|(i, _)| !blocked(*i)).map(|(_, v)| v.weight.max(0.0)).sum();
        let index = if allowed_total > 0.0 {
            pick_masked(variants, r, allowed_total, |i| !blocked(i))
        } else {
            pick_masked(variants, r, total, |_| true)
        };
        self.remember(index);
        Ok(index)
    }

    /// Records a pick as the newest.
    pub fn remember(&mut self, index: usize) {
        self.recent.copy_within(0..MAX_AVOID_REPEAT - 1, 1);
        self.recent[0] = index as u16;
        self.len = (self.len + 1).min(MAX_AVOID_REPEAT as u8);
    }

    /// The remembered picks, newest first.
    #[must_use]
    pub fn recent(&self) -> &[u16] {
        &self.recent[..self.len as usize]
    }
}

/// Linear gain of one voice: `volume * (1 - volume_jitter * r)`, with `r` in
/// `[0, 1]` (clamped). So `volume_jitter = 0.2` spreads gain over `[0.8, 1] * volume`.
#[inline]
#[must_use]
pub fn jittered_volume(entry: &SoundEventEntry, r: f32) -> f32 {
    entry.volume * (1.0 - entry.volume_jitter.clamp(0.0, 1.0) * r.clamp(0.0, 1.0))
}

/// Playback-rate multiplier of one voice: `2^(s / 12)` with
/// `s = (2r - 1) * pitch_jitter_semitones`, so `r = 0.5` is unchanged pitch
/// and the spread is symmetric in semitones.
#[inline]
#[must_use]
pub fn jittered_pitch(entry: &SoundEventEntry, r: f32) -> f32 {
    let p = entry.pitch_jitter_semitones.clamp(0.0, MAX_PITCH_JITTER_SEMITONES);
    let semitones = (2.0 * r.clamp(0.0, 1.0) - 1.0) * p;
    (semitones / 12.0).exp2()
}

/// Every documented-range problem of one entry, each prefixed by `prefix`.
pub fn entry_problems(entry: &SoundEventEntry, prefix: &str, out: &mut Vec<String>) {
    let mut bad = |what: &str| out.push(format!("{prefix} ({}): {what}", entry.event));
    if let Err(AudioError::InvalidVariantWeights { reason }) = validate_variants(&entry.variants) {
        bad(&format!("variants: {reason}"));
    }
    if entry.variants.len() > u16::MAX as usize {
        bad("at most 65535 variants");
    }
    if entry.variants.iter().any(|v| v.clip.trim().is_empty()) {
        bad("a variant has an empty clip path");
    }
    if !entry.weight.is_finite() {
        bad("weight must be finite");
    }
    if !(entry.volume.is_finite() && entry.volume >= 0.0) {
        bad("volume must be a finite gain >= 0");
    }
    if !(0.0..=1.0).contains(&entry.volume_jitter) {
        bad("volume_jitter must be within 0 ..= 1");
    }
    if !(0.0..=MAX_PITCH_JITTER_SEMITONES).contains(&entry.pitch_jitter_semitones) {
        bad("pitch_jitter_semitones must be within 0 ..= 24");
    }
    if !(entry.max_distance.is_finite() && entry.max_distance > 0.0) {
        bad("max_distance must be > 0 metres");
    }
    if !(entry.fade_time.is_finite() && entry.fade_time >= 0.0) {
        bad("fade_time must be >= 0 seconds");
    }
    if !(entry.cooldown.is_finite() && entry.cooldown >= 0.0) {
        bad("cooldown must be >= 0 seconds");
    }
    if entry.surface.as_deref().is_some_and(|s| s.trim().is_empty()) {
        bad("surface must not be empty (omit it to match any surface)");
    }
}

/// Most prefix throttles one flattened profile may declare.
pub const MAX_THROTTLES: usize = 64;
/// Largest `max_starts_per_second` of a throttle (the player keeps that many
/// start times per throttle).
pub const MAX_THROTTLE_STARTS_PER_SECOND: u32 = 10_000;

/// A profile flattened through its parents and validated: the table the
/// resolver and the player work on. Building it allocates; resolving does not.
#[derive(Debug, Clone, PartialEq)]
pub struct SoundTable {
    profile: String,
    rows: Vec<InheritedRow<SoundEventEntry>>,
    throttles: Vec<SoundThrottle>,
    warnings: Vec<String>,
}

/// The chain's throttles, child first, one per prefix (a child's replaces its
/// ancestors'), checked against the documented ranges.
fn flatten_throttles(chain: &[&SoundProfile], problems: &mut Vec<String>) -> Vec<SoundThrottle> {
    let mut out: Vec<SoundThrottle> = Vec::new();
    for p in chain {
        for (i, t) in p.throttles.iter().enumerate() {
            let at = format!("`{}` throttles[{i}] ({}.*)", p.id, t.prefix);
            if !(t.cooldown.is_finite() && t.cooldown >= 0.0) {
                problems.push(format!("{at}: cooldown must be >= 0 seconds"));
            }
            if t.max_starts_per_second > MAX_THROTTLE_STARTS_PER_SECOND {
                problems.push(format!("{at}: max_starts_per_second must be at most {MAX_THROTTLE_STARTS_PER_SECOND}"));
            }
            if out.iter().all(|o| o.prefix != t.prefix) {
                out.push(t.clone());
            }
        }
    }
    if out.len() > MAX_THROTTLES {
        problems.push(format!("{} throttles; at most {MAX_THROTTLES}", out.len()));
    }
    out
}

impl SoundTable {
    /// Flattens `profile` and its ancestors (child entries first, override keyed
    /// on `(event id, tag filter, surface)`) and validates every entry.
    ///
    /// An entry repeating an earlier entry's key *within one profile* can never
    /// be chosen (flattening keeps the first occurrence); like the loader's
    /// `W001`, that is a warning, listed by [`SoundTable::warnings`], not an error.
    ///
    /// # Errors
    /// A missing parent, a cycle or a too deep chain ([`AudioError::Core`]);
    /// out-of-range entry fields, all listed ([`AudioError::InvalidProfile`]).
    pub fn flatten<'a>(
        profile: &'a SoundProfile,
        lookup: impl Fn(&str) -> Option<&'a SoundProfile>,
    ) -> Result<Self, AudioError> {
        let chain = ancestry(profile, &lookup)?;
        let mut warnings = Vec::new();
        for p in &chain {
            for (j, b) in p.entries.iter().enumerate() {
                let key = SoundProfile::row_key(b);
                if let Some(i) = p.entries[..j].iter().position(|a| SoundProfile::row_key(a) == key) {
                    warnings.push(format!(
                        "`{}` entries[{j}] ({}): same (event, tag filter, surface) as entries[{i}]; it can never be chosen",
                        p.id, b.event
                    ));
                }
            }
        }
        for p in &chain {
            for (j, t) in p.throttles.iter().enumerate() {
                if let Some(i) = p.throttles[..j].iter().position(|a| a.prefix == t.prefix) {
                    warnings.push(format!(
                        "`{}` throttles[{j}] ({}.*): same prefix as throttles[{i}], which wins",
                        p.id, t.prefix
                    ));
                }
                if t.max_voices == 0 && t.max_starts_per_second == 0 && t.cooldown == 0.0 {
                    warnings.push(format!("`{}` throttles[{j}] ({}.*) limits nothing", p.id, t.prefix));
                }
            }
        }
        let mut throttle_problems = Vec::new();
        let throttles = flatten_throttles(&chain, &mut throttle_problems);
        let rows = flatten_chain(profile, lookup)?;
        let mut table = Self::from_rows(profile.id.clone(), rows, throttle_problems)?;
        table.throttles = throttles;
        table.warnings = warnings;
        Ok(table)
    }

    /// A table of one profile without parents.
    ///
    /// # Errors
    /// As [`SoundTable::flatten`].
    pub fn from_profile(profile: &SoundProfile) -> Result<Self, AudioError> {
        Self::flatten(profile, |_| None)
    }

    /// The prefix throttles, child first, one per prefix.
    #[must_use]
    pub fn throttles(&self) -> &[SoundThrottle] {
        &self.throttles
    }

    /// Non-fatal problems found while flattening (shadowed entries, repeated
    /// or empty throttles).
    #[must_use]
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    fn from_rows(
        profile: String,
        rows: Vec<InheritedRow<SoundEventEntry>>,
        mut problems: Vec<String>,
    ) -> Result<Self, AudioError> {
        for (i, r) in rows.iter().enumerate() {
            let prefix = format!("entries[{i}] from `{}`[{}]", r.source, r.source_index);
            entry_problems(&r.row, &prefix, &mut problems);
        }
        if problems.is_empty() {
            Ok(SoundTable { profile, rows, throttles: Vec::new(), warnings: Vec::new() })
        } else {
            Err(AudioError::InvalidProfile { profile, problems })
        }
    }

    /// Id of the profile the table was flattened from.
    #[must_use]
    pub fn profile_id(&self) -> &str {
        &self.profile
    }

    /// The flattened rows, child entries first.
    #[must_use]
    pub fn rows(&self) -> &[InheritedRow<SoundEventEntry>] {
        &self.rows
    }

    /// Entry `i` of the flattened table.
    ///
    /// # Panics
    /// When `i >= self.len()`.
    #[must_use]
    pub fn entry(&self, i: usize) -> &SoundEventEntry {
        &self.rows[i].row
    }

    /// Number of entries.
    #[must_use]
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// Whether the table has no entries.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// [`resolve`] over this table. Allocation-free.
    #[must_use]
    pub fn resolve(
        &self,
        event: SoundEventId,
        state: StateTagSet,
        surface: Option<&str>,
        options: ResolveOptions,
    ) -> Option<SoundMatch> {
        resolve(&self.rows, event, state, surface, options)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(weights: &[f32]) -> Vec<AudioVariant> {
        weights.iter().enumerate().map(|(i, &w)| AudioVariant { clip: format!("c{i}.wav"), weight: w }).collect()
    }

    #[test]
    fn weighted_pick_follows_cumulative_intervals() {
        let vs = v(&[1.0, 0.0, 3.0]);
        assert_eq!(pick_variant_index(&vs, 0.0).unwrap(), 0);
        assert_eq!(pick_variant_index(&vs, 0.2499).unwrap(), 0);
        assert_eq!(pick_variant_index(&vs, 0.25).unwrap(), 2);
        assert_eq!(pick_variant_index(&vs, 0.9999).unwrap(), 2);
        assert_eq!(pick_variant_index(&vs, 1.0).unwrap(), 2);
        assert_eq!(pick_variant_index(&vs, -3.0).unwrap(), 0);
        assert_eq!(pick_variant_index(&vs, f32::NAN).unwrap(), 0);
    }

    #[test]
    fn bad_weights_are_errors_not_panics() {
        for (ws, why) in [
            (&[][..], "no variants"),
            (&[0.0, 0.0][..], "total weight"),
            (&[1.0, -0.5][..], "negative"),
            (&[f32::INFINITY][..], "not finite"),
            (&[f32::NAN][..], "not finite"),
        ] {
            let err = pick_variant_index(&v(ws), 0.5).unwrap_err();
            assert!(err.to_string().contains(why), "{ws:?}: {err}");
        }
    }

    #[test]
    fn avoid_repeat_never_repeats_within_window() {
        let vs = v(&[1.0, 1.0, 1.0, 1.0]);
        let mut h = VariantHistory::new();
        let mut picks = Vec::new();
        for k in 0..200 {
            let r = ((k * 7919) % 1000) as f32 / 1000.0;
            picks.push(h.pick(&vs, r, 2).unwrap());
        }
        for w in picks.windows(3) {
            assert_ne!(w[2], w[1]);
            assert_ne!(w[2], w[0]);
        }
        // Window larger than the list: one variant stays pickable.
        let two = v(&[1.0, 1.0]);
        let mut h = VariantHistory::new();
        let a = h.pick(&two, 0.1, 5).unwrap();
        let b = h.pick(&two, 0.1, 5).unwrap();
        assert_ne!(a, b);
    }

    #[test]
    fn jitter_formulas() {
        let mut e = SoundEventEntry::new(SoundEventId::from_static("footstep"), "a.wav");
        e.volume = 0.5;
        e.volume_jitter = 0.2;
        e.pitch_jitter_semitones = 12.0;
        assert_eq!(jittered_volume(&e, 0.0), 0.5);
        assert!((jittered_volume(&e, 1.0) - 0.4).abs() < 1e-6);
        assert!((jittered_pitch(&e, 0.5) - 1.0).abs() < 1e-6);
        assert!((jittered_pitch(&e, 1.0) - 2.0).abs() < 1e-5);
        assert!((jittered_pitch(&e, 0.0) - 0.5).abs() < 1e-6);
    }
}

use zoa_anim_core::{AudioVariant, SoundEventEntry, SoundEventId, SoundProfile, StateTagSet};
use zoa_audio_profile::{ClipBank, ClipData, SoundTable};

pub fn id(s: &str) -> SoundEventId {
    SoundEventId::new(s).unwrap()
}

pub fn tags(s: &str) -> StateTagSet {
    s.parse().unwrap()
}

/// An entry with one variant named `clip`, tag filter `filter`, optional surface.
pub fn entry(event: &str, filter: &str, surface: Option<&str>, clip: &str) -> SoundEventEntry {
    let mut e = SoundEventEntry::new(id(event), clip);
    e.tag_filter = tags(filter);
    e.surface = surface.map(str::to_owned);
    e
}

pub fn variants(names: &[&str]) -> Vec<AudioVariant> {
    names.iter().map(|n| AudioVariant { clip: (*n).to_owned(), weight: 1.0 }).collect()
}

pub fn profile(id: &str, parent: Option<&str>, entries: Vec<SoundEventEntry>) -> SoundProfile {
    SoundProfile { id: id.into(), parent: parent.map(str::to_owned), entries, throttles: Vec::new() }
}

pub fn table(entries: Vec<SoundEventEntry>) -> SoundTable {
    SoundTable::from_profile(&profile("test", None, entries)).unwrap()
}

/// A constant (DC) mono clip: every sample `level`, `seconds` long at `rate`.
pub fn dc(level: f32, seconds: f64, rate: u32) -> ClipData {
    ClipData::new(1, rate, vec![level; (seconds * rate as f64).round() as usize]).unwrap()
}

/// A bank where every name in `names` is a 1 s DC clip of 0.5 at 48 kHz.
pub fn dc_bank(names: &[&str]) -> ClipBank {
    let mut b = ClipBank::new();
    for n in names {
        b.insert(*n, dc(0.5, 1.0, 48_000));
    }
    b
}

/// Root of the workspace.
pub fn workspace_root() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

//! Semantic identifiers: the names gameplay code uses instead of rig names.
//!
//! Every identifier is a `Copy` value holding a 64-bit FNV-1a hash and the
//! interned name. Comparing two ids compares the hashes first, so hot paths
//! (driver lookups, sound resolution) cost one integer compare; the name is
//! kept for display and for the (astronomically unlikely) hash collision.
//!
//! Names are interned once per distinct string, so creating ids at run time
//! from definition files allocates only the first time a name is seen.
//!
//! # Syntax
//! Dotted lowercase: one or more segments separated by `.`, each segment
//! starting with a lowercase ASCII letter followed by lowercase letters,
//! digits or `_` (`fire`, `is_grounded`, `weapon.fire.dryclick`). At most
//! [`MAX_ID_LEN`] bytes. [`SoundEventId`] additionally refuses anything that
//! looks like an asset path (a last segment that is an audio file extension).

use std::collections::HashSet;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::str::FromStr;
use std::sync::{Mutex, OnceLock};

use crate::CoreError;

/// Longest identifier accepted, in bytes.
pub const MAX_ID_LEN: usize = 128;

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

/// FNV-1a over the bytes of `s`; `const` so shipped ids hash at compile time.
#[must_use]
pub const fn fnv1a(s: &str) -> u64 {
    let bytes = s.as_bytes();
    let mut hash = FNV_OFFSET;
    let mut i = 0;
    while i < bytes.len() {
        hash ^= bytes[i] as u64;
        hash = hash.wrapping_mul(FNV_PRIME);
        i += 1;
    }
    hash
}

/// Checks the dotted-lowercase syntax; `Err` carries the broken rule.
pub const fn check_id_syntax(s: &str) -> Result<(), &'static str> {
    let b = s.as_bytes();
    if b.is_empty() {
        return Err("must not be empty");
    }
    if b.len() > MAX_ID_LEN {
        return Err("longer than 128 bytes");
    }
    let mut i = 0;
    let mut segment_start = true;
    while i < b.len() {
        let c = b[i];
        if c == b'.' {
            if segment_start {
                return Err("empty segment (leading, trailing or doubled `.`)");
            }
            segment_start = true;
        } else if segment_start {
            if !c.is_ascii_lowercase() {
                return Err("each segment must start with a lowercase letter a-z");
            }
            segment_start = false;
        } else if !(c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'_') {
            return Err("only lowercase letters, digits, `_` and `.` are allowed");
        }
        i += 1;
    }
    if segment_start {
        return Err("empty segment (leading, trailing or doubled `.`)");
    }
    Ok(())
}

fn interner() -> &'static Mutex<HashSet<&'static str>> {
    static INTERNER: OnceLock<Mutex<HashSet<&'static str>>> = OnceLock::new();
    INTERNER.get_or_init(|| Mutex::new(HashSet::new()))
}

/// Returns a `'static` copy of `s`, shared by every caller with the same text.
fn intern(s: &str) -> &'static str {
    let mut set = interner().lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(existing) = set.get(s) {
        return existing;
    }
    let leaked: &'static str = Box::leak(s.to_owned().into_boxed_str());
    set.insert(leaked);
    leaked
}

/// An interned display name: a state, notify, clip, layer or slot name as
/// the definitions spell it, carried by events so that they print as words
/// rather than indices. `Copy` and one pointer compare to test; interned
/// once per distinct text for the life of the process, like the ids (a
/// definition reloaded with the same names interns nothing new). Any text
/// is accepted (names are not ids: `Footstep`, `Idle Loop`).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Name(&'static str);

impl Name {
    /// The empty name.
    pub const EMPTY: Name = Name("");

    /// Interns `text` (allocates the first time a text is seen; set-up time).
    #[must_use]
    pub fn new(text: &str) -> Name {
        if text.is_empty() { Name::EMPTY } else { Name(intern(text)) }
    }

    /// A name from a literal, without interning.
    #[must_use]
    pub const fn from_static(text: &'static str) -> Name {
        Name(text)
    }

    /// The text.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        self.0
    }
}

impl fmt::Display for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

impl fmt::Debug for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.0)
    }
}

impl std::ops::Deref for Name {
    type Target = str;
    fn deref(&self) -> &str {
        self.0
    }
}

impl PartialEq<str> for Name {
    fn eq(&self, other: &str) -> bool {
        self.0 == other
    }
}

impl PartialEq<&str> for Name {
    fn eq(&self, other: &&str) -> bool {
        self.0 == *other
    }
}

const AUDIO_EXTENSIONS: [&str; 7] = ["wav", "ogg", "mp3", "flac", "opus", "aiff", "m4a"];

macro_rules! define_id {
    ($(#[$meta:meta])* $name:ident, $check:expr) => {
        $(#[$meta])*
        #[derive(Clone, Copy)]
        pub struct $name {
            hash: u64,
            name: &'static str,
        }

        impl $name {
            /// Builds an id from a literal at compile time.
            ///
            /// # Panics
            /// Panics (at compile time in `const` context) when `name` is not
            /// valid dotted lowercase.
            pub const fn from_static(name: &'static str) -> Self {
                match $check(name) {
                    Ok(()) => Self { hash: fnv1a(name), name },
                    Err(_) => panic!(concat!("invalid ", stringify!($name), " literal")),
                }
            }

            /// Parses and interns an id from run-time text.
            pub fn new(name: &str) -> Result<Self, CoreError> {
                $check(name).map_err(|reason| CoreError::InvalidId {
                    kind: stringify!($name),
                    text: name.to_owned(),
                    reason,
                })?;
                Ok(Self { hash: fnv1a(name), name: intern(name) })
            }

            /// The id's text.
            pub const fn as_str(&self) -> &'static str {
                self.name
            }

            /// The precomputed FNV-1a hash of the text.
            pub const fn hash_value(&self) -> u64 {
                self.hash
            }
        }

        impl PartialEq for $name {
            #[inline]
            fn eq(&self, other: &Self) -> bool {
                self.hash == other.hash
                    && (std::ptr::eq(self.name, other.name) || self.name == other.name)
            }
        }
        impl Eq for $name {}

        impl Hash for $name {
            fn hash<H: Hasher>(&self, state: &mut H) {
                state.write_u64(self.hash);
            }
        }

        impl PartialOrd for $name {
            fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
                Some(self.cmp(other))
            }
        }
        impl Ord for $name {
            /// Orders by text so sorted output is readable and stable.
            fn cmp(&self, other: &Self) -> std::cmp::Ordering {
                self.name.cmp(other.name)
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.name)
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, concat!(stringify!($name), "({:?})"), self.name)
            }
        }

        impl FromStr for $name {
            type Err = CoreError;
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                Self::new(s)
            }
        }

        impl TryFrom<&str> for $name {
            type Error = CoreError;
            fn try_from(s: &str) -> Result<Self, Self::Error> {
                Self::new(s)
            }
        }
    };
}

const fn check_sound_event(s: &str) -> Result<(), &'static str> {
    if let Err(e) = check_id_syntax(s) {
        return Err(e);
    }
    // Find the last segment and compare it against audio file extensions.
    let b = s.as_bytes();
    let mut start = b.len();
    while start > 0 && b[start - 1] != b'.' {
        start -= 1;
    }
    if start == 0 {
        return Ok(());
    }
    let mut e = 0;
    while e < AUDIO_EXTENSIONS.len() {
        let ext = AUDIO_EXTENSIONS[e].as_bytes();
        if ext.len() == b.len() - start {
            let mut i = 0;
            let mut same = true;
            while i < ext.len() {
                if ext[i] != b[start + i] {
                    same = false;
                }
                i += 1;
            }
            if same {
                return Err("a sound event id names a meaning, never an asset path or file");
            }
        }
        e += 1;
    }
    Ok(())
}

define_id!(
    /// Semantic name of a gameplay event or value pushed into the animator
    /// (`fire`, `is_aiming`, `speed`). See [`crate::DefaultBindings`].
    AnimationBindingId,
    check_id_syntax
);
define_id!(
    /// Named purpose a clip fills (`reload_magazine`, `locomotion_walk`).
    /// See [`crate::DefaultSlots`].
    AnimationSlotId,
    check_id_syntax
);
define_id!(
    /// Semantic sound event in dotted lowercase categories (`footstep`,
    /// `vocal.hurt`, `weapon.fire.dryclick`). Never an asset path.
    SoundEventId,
    check_sound_event
);
define_id!(
    /// Named mixer bus (`sfx`, `voice`, `music`, `ui`).
    AudioBusId,
    check_id_syntax
);
define_id!(
    /// Named IK target (`left_hand_grip`, `look_target`).
    IKTargetId,
    check_id_syntax
);
define_id!(
    /// Named stance (`standing`, `crouched`, `prone`, `cover`).
    StanceId,
    check_id_syntax
);

impl SoundEventId {
    /// The id with its last dotted segment removed, for hierarchical
    /// fallback: `weapon.fire.dryclick` → `weapon.fire` → `weapon` → `None`.
    ///
    /// Allocates only the first time a given parent text is interned.
    #[must_use]
    pub fn parent(&self) -> Option<SoundEventId> {
        let cut = self.name.rfind('.')?;
        let parent = &self.name[..cut];
        Some(SoundEventId { hash: fnv1a(parent), name: intern(parent) })
    }

    /// Whether `self` equals `ancestor` or lies below it in the dotted
    /// hierarchy (`weapon.fire.dryclick` is within `weapon.fire`).
    /// Allocation-free.
    #[must_use]
    pub fn is_within(&self, ancestor: &SoundEventId) -> bool {
        self == ancestor
            || (self.name.len() > ancestor.name.len()
                && self.name.starts_with(ancestor.name)
                && self.name.as_bytes()[ancestor.name.len()] == b'.')
    }

    /// Number of dotted segments (`weapon.fire` has 2).
    #[must_use]
    pub fn depth(&self) -> usize {
        self.name.bytes().filter(|&b| b == b'.').count() + 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn valid_ids_parse_and_compare() {
        let a = AnimationBindingId::new("is_grounded").unwrap();
        let b = AnimationBindingId::from_static("is_grounded");
        assert_eq!(a, b);
        assert_eq!(a.to_string(), "is_grounded");
        assert_eq!(format!("{a:?}"), "AnimationBindingId(\"is_grounded\")");
        let c: SoundEventId = "weapon.fire.dryclick".parse().unwrap();
        assert_eq!(c.depth(), 3);
        assert_eq!(c.parent().unwrap().as_str(), "weapon.fire");
        assert_eq!(c.parent().unwrap().parent().unwrap().as_str(), "weapon");
        assert!(c.parent().unwrap().parent().unwrap().parent().is_none());
        assert!(c.is_within(&SoundEventId::from_static("weapon")));
        assert!(!c.is_within(&SoundEventId::from_static("weap")));
    }

    #[test]
    fn invalid_ids_are_rejected_with_reason() {
        for bad in ["", "Fire", "fire.", ".fire", "a..b", "1abc", "has space", "a-b", "x.9"] {
            let err = AnimationBindingId::new(bad).unwrap_err();
            assert!(matches!(err, CoreError::InvalidId { kind: "AnimationBindingId", .. }), "{bad}");
        }
        let long = "a".repeat(MAX_ID_LEN + 1);
        assert!(StanceId::new(&long).is_err());
        let err = SoundEventId::new("footstep.wav").unwrap_err();
        assert!(err.to_string().contains("asset path"), "{err}");
        assert!(SoundEventId::new("footsteps/grass.ogg").is_err());
        assert!(SoundEventId::new("footstep.grass").is_ok());
    }

    #[test]
    fn interning_shares_storage() {
        let a = AudioBusId::new("sfx_interning_probe").unwrap();
        let b = AudioBusId::new("sfx_interning_probe").unwrap();
        assert!(std::ptr::eq(a.as_str(), b.as_str()));
    }
}

//! Every diagnostic code, in one place.
//!
//! Codes are stable: a code is never reused for another meaning, and tools may
//! match on them. `E` codes are errors (the folder is invalid), `W` codes are
//! warnings (it loads, but something is probably wrong), `I` codes are notes.
//! Each code has a fixture folder `fixtures/invalid/<code>-<name>/` whose
//! expected diagnostics are an insta snapshot (E002 is exercised by a test that
//! writes a large temporary file instead, to keep the repository small). I004,
//! I006 and E021 come from the layer above (the front door `zoa-animation`, whose
//! `validate` runs the IK crate's bone discovery and whose loader compiles
//! the runtime's character definition; this loader may do neither): their
//! folders hold an otherwise valid set, and that crate's tests check the code.
//!
//! | Code | Name | Severity | Meaning |
//! |------|------|----------|---------|
//! | E001 | `io-error` | error | A file or a folder could not be read, a file is not UTF-8, or a `*.toml` path is not a regular file (a FIFO, a device: never opened for reading, so it cannot hang the load). |
//! | E002 | `file-too-large` | error | A definition file is larger than [`MAX_FILE_BYTES`]; it is not parsed. |
//! | E003 | `toml-syntax` | error | The file is not valid TOML (position from the parser; every recoverable error is listed). |
//! | E004 | `unknown-kind` | error | `kind` is missing or not one of the ten kinds. |
//! | E005 | `unknown-field` | error | A field that the kind does not define (the message lists the valid ones). |
//! | E006 | `missing-field` | error | A required field is absent (`id`, `clip`, `event`, …). |
//! | E007 | `wrong-type` | error | A value of the wrong TOML type (a string where a number belongs, …). |
//! | E008 | `out-of-range` | error | A number or count outside its documented range (weight ≥ 0, speed > 0, layer weight 0..=1, …), a clip time past the end of its animation (a notify, a notify window's end, a sync marker, a curve key), more than 64 notify windows in a clip, a curve without keys, or a folder with more than [`super::MAX_DEFINITION_FILES`] definition files (the rest are not read). |
//! | E009 | `non-finite` | error | `nan` or `inf` where a finite number belongs. |
//! | E010 | `invalid-value` | error | A malformed value: bad tag text, unknown enum name, bad id syntax, bad notify, marker or condition text, a curve key that is not `[time, value]` or whose time does not increase, a payload field without a name, empty string. |
//! | E011 | `duplicate-id` | error | Two definitions of the same kind share an id. |
//! | E012 | `unresolved-reference` | error | A reference that names nothing: parent, clip, definition id, state, parameter, layer, binding or slot, animation of a model. |
//! | E013 | `inheritance-cycle` | error | A parent chain loops, or is deeper than 16 levels. |
//! | E014 | `missing-file` | error | A model file (`source`, `model`) does not exist. |
//! | E015 | `unknown-bone` | error | A bone-mask bone that the graph's model skeleton does not have, or a rig-policy chain's `root` / `tip` that no model the folder uses has. |
//! | E016 | `blend-tree-shape` | error | A blend tree breaks its shape rules: 1D needs ≥ 2 children, 2D children need `threshold_y` and a `parameter_y`, direct children need weights. |
//! | E017 | `duplicate-name` | error | A name used twice inside one definition (state, parameter, layer, binding id, slot id, weapon class, rig-policy chain, a clip's curve), or a weapon class that two `equipment` definitions claim (a class holds one item). |
//! | E018 | `type-mismatch` | error | A value that does not fit the type of what it refers to: `<` on a bool parameter, a float-driven blend tree on a trigger, a shipped binding id declared with another parameter type. |
//! | E019 | `conflicting-fields` | error | Fields that exclude each other given together (`clip` and `blend_tree`, `tags` and per-dimension lists, two actions in one preview step, a `sync_group` on a state with `loop = false`). |
//! | E020 | `model-unreadable` | error | A model file exists but the glTF loader rejected it. |
//! | E021 | `character-setup` | error | A folder without errors that still does not make a character: no clip of a skinned model, a chosen player profile set or sound profile that is not in the folder, or a definition the runtime's set-up refuses (its message says why). Reported by the front door's loader (`zoa_animation::load`), which compiles the folder into a character definition, not by [`super::load_folder`]. |
//! | E022 | `unread-file` | error | A definition file (`*.toml`) the load does not read because it sits in a folder nested deeper than [`super::MAX_DEPTH`] levels (that folder also gets a W006): the folder cannot be checked whole, so it does not pass. |
//! | W001 | `shadowed-row` | warning | A row whose pattern (clip table) or event/tags/surface key (sound profile) repeats an earlier row of the same definition: it can never be chosen. |
//! | W002 | `unconditional-transition` | warning | A transition with neither exit time nor conditions fires the moment its source is entered. |
//! | W003 | `unreachable-state` | warning | A state no transition path reaches from its layer's entry. |
//! | W004 | `uncovered-state` | warning | A clip table (after inheritance) in which some states resolve to nothing: no untagged row and no row whose locomotion part fits. |
//! | W005 | `missing-sound-file` | warning | A sound variant file does not exist (yet). A warning, not an error, because sound banks are often produced after the definitions. |
//! | W006 | `skipped-folder` | warning | A folder that is not read: nested deeper than [`super::MAX_DEPTH`] levels below the definition folder (each definition file in it is an E022), or a symlink (symlinked folders are never followed, so a link cycle cannot hang the walk). |
//! | W007 | `binding-graph-mismatch` | warning | A binding of a binding profile sets a parameter that a graph it drives (through a player profile set entry, or the set's default class) does not have, or has with another type, or targets a layer the graph does not have: the binding does nothing for those classes at run time. |
//! | I001 | `custom-id` | info | A binding or slot id outside the shipped vocabulary: valid, but it will not transfer to another rig. |
//! | I003 | `relaxable-only-row` | info | A tagged clip-table row with no locomotion tag: once fallback relaxes the dimensions it does tag, it matches every state, ahead of the untagged default (resolver rules 1 and 3). Often intended (a death row for any locomotion); noted so it is a choice. |
//! | I002 | `too-many-problems` | info | A file had more than [`super::MAX_DIAGNOSTICS_PER_FILE`] diagnostics; the rest are counted in this note (they are not in the error and warning counts, but the folder still fails when the shown ones include an error). |
//! | I004 | `ik-policy-unavailable` | info | An enabled rig-policy behaviour (foot plant, look-at, hand on weapon, climb hand) cannot run on a model the folder animates, because bone discovery (with the policy's overrides) did not find the bones it needs, or a declared chain does not compile on it (its bones are not one line from root to tip there, or it is too long); the runtime skips it silently (a door has no feet). Reported by `zoa-anim validate`, not by [`super::load_folder`]. |
//! | I005 | `unchecked-references` | info | A file whose definition did not load at all (unreadable, not TOML, no valid `kind` or `id`): the references elsewhere that name what it declares (its `id` line, else its file stem) are listed here once instead of each being reported as unresolved (one broken file does not cascade); when it may be a binding profile, binding and slot references are not checked and this says how many. |
//! | I006 | `clip-binds-by-role` | info | A clip of another model than the character's shares too few joint names with the character's skeleton (or says `bind = "role"`), so it binds by bone role: found by role on both rigs and baked onto the character's skeleton with rest-pose correction. The note says how many joints paired by role and by name. Reported by `zoa-anim validate`, not by [`super::load_folder`]. |

use super::Severity;

/// Definition files larger than this are reported (E002) and not parsed.
pub const MAX_FILE_BYTES: u64 = 4 * 1024 * 1024;

macro_rules! codes {
    ($( $variant:ident = $id:literal, $name:literal, $sev:ident; )*) => {
        /// A diagnostic code (see the module table).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        pub enum Code { $( #[doc = $name] $variant, )* }

        impl Code {
            /// Every code, in table order.
            pub const ALL: &'static [Code] = &[ $( Code::$variant, )* ];
            /// The stable id (`E005`).
            pub const fn id(self) -> &'static str { match self { $( Code::$variant => $id, )* } }
            /// The kebab-case name (`unknown-field`).
            pub const fn name(self) -> &'static str { match self { $( Code::$variant => $name, )* } }
            /// The fixed severity.
            pub const fn severity(self) -> Severity { match self { $( Code::$variant => Severity::$sev, )* } }
            /// Looks a code up by id.
            pub fn from_id(id: &str) -> Option<Code> { Code::ALL.iter().copied().find(|c| c.id() == id) }
        }
    };
}

codes! {
    IoError = "E001", "io-error", Error;
    FileTooLarge = "E002", "file-too-large", Error;
    TomlSyntax = "E003", "toml-syntax", Error;
    UnknownKind = "E004", "unknown-kind", Error;
    UnknownField = "E005", "unknown-field", Error;
    MissingField = "E006", "missing-field", Error;
    WrongType = "E007", "wrong-type", Error;
    OutOfRange = "E008", "out-of-range", Error;
    NonFinite = "E009", "non-finite", Error;
    InvalidValue = "E010", "invalid-value", Error;
    DuplicateId = "E011", "duplicate-id", Error;
    UnresolvedReference = "E012", "unresolved-reference", Error;
    InheritanceCycle = "E013", "inheritance-cycle", Error;
    MissingFile = "E014", "missing-file", Error;
    UnknownBone = "E015", "unknown-bone", Error;
    BlendTreeShape = "E016", "blend-tree-shape", Error;
    DuplicateName = "E017", "duplicate-name", Error;
    TypeMismatch = "E018", "type-mismatch", Error;
    ConflictingFields = "E019", "conflicting-fields", Error;
    ModelUnreadable = "E020", "model-unreadable", Error;
    CharacterSetup = "E021", "character-setup", Error;
    UnreadFile = "E022", "unread-file", Error;
    ShadowedRow = "W001", "shadowed-row", Warning;
    UnconditionalTransition = "W002", "unconditional-transition", Warning;
    UnreachableState = "W003", "unreachable-state", Warning;
    UncoveredState = "W004", "uncovered-state", Warning;
    MissingSoundFile = "W005", "missing-sound-file", Warning;
    SkippedFolder = "W006", "skipped-folder", Warning;
    BindingGraphMismatch = "W007", "binding-graph-mismatch", Warning;
    CustomId = "I001", "custom-id", Info;
    TooManyProblems = "I002", "too-many-problems", Info;
    RelaxableOnlyRow = "I003", "relaxable-only-row", Info;
    IkPolicyUnavailable = "I004", "ik-policy-unavailable", Info;
    UncheckedReferences = "I005", "unchecked-references", Info;
    ClipBindsByRole = "I006", "clip-binds-by-role", Info;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_and_names_are_unique_and_prefixed_by_severity() {
        let mut ids = std::collections::HashSet::new();
        let mut names = std::collections::HashSet::new();
        for c in Code::ALL {
            assert!(ids.insert(c.id()) && names.insert(c.name()), "{c:?}");
            let prefix = match c.severity() {
                Severity::Error => 'E',
                Severity::Warning => 'W',
                Severity::Info => 'I',
            };
            assert!(c.id().starts_with(prefix), "{c:?}");
            assert_eq!(Code::from_id(c.id()), Some(*c));
        }
    }
}

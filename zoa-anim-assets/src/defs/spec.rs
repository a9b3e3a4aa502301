//! The declarative description of every definition kind: one [`KindSpec`]
//! per kind (in that kind's file under `kinds/`) lists its fields with their
//! type, range, whether they are required, their default and what they mean.
//!
//! The description is the one truth three things are made from:
//! - the reader's checks ([`super::read::Obj`]): unknown fields (E005) and the
//!   list of valid ones, missing required fields (E006), types (E007), ranges
//!   (E008, E009) and enum values (E010) of every scalar field, whether or not
//!   the kind's reader reads it;
//! - the JSON Schemas ([`crate::authoring::schema`]);
//! - the field reference in `defs/README.md` (the block between the
//!   `generated` markers, written by [`super::reference`]).
//!
//! What a description cannot say (a step does exactly one thing, a 2D tree
//! child needs both thresholds, references across files) stays in the kind's
//! reader, next to the description.

use super::Kind;

/// Numeric range rules, with the wording used in messages.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Rule {
    /// Any finite number.
    Any,
    /// `>= 0`.
    NonNegative,
    /// `> 0`.
    Positive,
    /// `0 ..= 1`.
    Unit,
    /// `lo ..= hi`.
    Between(f32, f32),
    /// A speed multiplier: `> 0` and at most [`zoa_anim_core::budget::MAX_SPEED`]
    /// (the runtime's set-up refuses larger ones).
    Speed,
}

impl Rule {
    pub(crate) fn accepts(self, v: f64) -> bool {
        match self {
            Rule::Any => true,
            Rule::NonNegative => v >= 0.0,
            Rule::Positive => v > 0.0,
            Rule::Unit => (0.0..=1.0).contains(&v),
            Rule::Between(lo, hi) => v >= f64::from(lo) && v <= f64::from(hi),
            Rule::Speed => v > 0.0 && v <= f64::from(zoa_anim_core::budget::MAX_SPEED),
        }
    }
    pub(crate) fn describe(self) -> String {
        match self {
            Rule::Any => "a finite number".into(),
            Rule::NonNegative => "a number >= 0".into(),
            Rule::Positive => "a number > 0".into(),
            Rule::Unit => "a number in 0..=1".into(),
            Rule::Between(lo, hi) => format!("a number in {lo}..={hi}"),
            Rule::Speed => format!("a number > 0 and at most {}", zoa_anim_core::budget::MAX_SPEED),
        }
    }
}

/// How a field's value is written.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Ty {
    /// A non-empty string.
    Text,
    /// Any string, the empty one included.
    Str,
    /// A non-empty string in the core id syntax (lowercase dotted segments);
    /// the schema checks the syntax, the reader the meaning.
    Id,
    /// A non-empty string matching a regular expression (schema only; the
    /// reader parses it).
    Pattern(&'static str),
    /// A finite number obeying the rule (integers are accepted).
    Num(Rule),
    /// An integer in `lo..=hi`.
    Int(i64, i64),
    /// `true` or `false`.
    Bool,
    /// One string of a fixed set.
    Enum(&'static Enum),
    /// A sub-table with its own fields.
    Table(&'static Table),
    /// A sub-table of the shape of a table that encloses it (a blend-tree
    /// child's nested `blend_tree`), at most `limit.max` levels deep counting
    /// the outermost: the JSON Schema expands it that far and refuses deeper
    /// nesting, the field reference names it without repeating its fields.
    Nested(&'static Table, &'static zoa_anim_core::budget::Limit),
    /// An array of tables (`[[key]]` or inline tables).
    Rows(&'static Table),
    /// An array of tables with at most this many rows (a budget: the rows
    /// past it are reported, E008, and not read).
    RowsAtMost(&'static Table, usize),
    /// An array of values of one type, with at least `min` items.
    List(&'static Ty, usize),
    /// An array of exactly `n` finite numbers (a position, a quaternion).
    Vector(usize),
    /// A table of free names to values of one type.
    Map(&'static Ty),
    /// A fixed-length array, one type per position (`[time, value]`).
    Tuple(&'static [Ty]),
    /// Any one of several forms (the reader tells them apart).
    Either(&'static [Ty]),
    /// A point `[x, y]`: exactly two finite numbers (where the Workbench
    /// draws something; checked whether or not the reader reads it).
    Point,
    /// A tag pattern: `tags = "text"` or one flag list per state dimension
    /// (the field's name is the text key; the six dimension keys come with it).
    Tags,
}

/// A fixed set of strings.
#[derive(Debug)]
pub(crate) struct Enum {
    /// What a value is called in messages (`blend mode`).
    pub noun: &'static str,
    /// The documented values, in documentation order.
    pub values: &'static [&'static str],
    /// Other accepted spellings and the value each stands for.
    pub aliases: &'static [(&'static str, &'static str)],
}

impl Enum {
    /// The documented value `text` stands for.
    pub(crate) fn canonical(&self, text: &str) -> Option<&'static str> {
        self.values
            .iter()
            .copied()
            .find(|v| *v == text)
            .or_else(|| self.aliases.iter().find(|(a, _)| *a == text).map(|(_, v)| *v))
    }
}

/// Whether a field must be written.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Need {
    /// May be left out.
    Optional,
    /// Must be written; the text says what it is (`... needs `clip` (the clip
    /// this row plays)`).
    Required(&'static str),
}

/// One field of a table.
#[derive(Debug)]
pub(crate) struct Field {
    /// The key. For a [`Field::per_dimension`] field, the placeholder the
    /// docs show (`<dimension>`).
    pub name: &'static str,
    /// How the value is written.
    pub ty: Ty,
    /// Whether it must be written.
    pub need: Need,
    /// The default when left out, as the docs show it (`` `1` ``, `the id`,
    /// `none`); ignored for required fields.
    pub default: &'static str,
    /// Unit of a number (`s`, `m`, `Hz`, `rad`), or empty.
    pub unit: &'static str,
    /// The type as the docs show it when the generic wording says too little
    /// (`path`, `weapon class`), or empty.
    pub shown_as: &'static str,
    /// What the field means; the docs' rule column after the range, and the
    /// schema's description.
    pub about: &'static str,
    /// One such field per state dimension (`[locomotion]`, `[posture]`, …).
    pub per_dimension: bool,
}

impl Field {
    /// An optional field; set the rest with the `with_*` methods.
    pub(crate) const fn opt(name: &'static str, ty: Ty, default: &'static str, about: &'static str) -> Field {
        Field { name, ty, need: Need::Optional, default, unit: "", shown_as: "", about, per_dimension: false }
    }

    /// A required field; `what` completes "... needs `name` (what)".
    pub(crate) const fn req(name: &'static str, ty: Ty, what: &'static str, about: &'static str) -> Field {
        Field { name, ty, need: Need::Required(what), default: "", unit: "", shown_as: "", about, per_dimension: false }
    }

    /// The unit of a number.
    pub(crate) const fn unit(mut self, unit: &'static str) -> Field {
        self.unit = unit;
        self
    }

    /// The type as the docs show it.
    pub(crate) const fn shown_as(mut self, shown: &'static str) -> Field {
        self.shown_as = shown;
        self
    }

    /// One such field per state dimension.
    pub(crate) const fn per_dimension(mut self) -> Field {
        self.per_dimension = true;
        self
    }

    /// Whether `key` is this field's key (or one of them).
    pub(crate) fn has_key(&self, key: &str) -> bool {
        if self.per_dimension {
            return zoa_anim_core::StateDimension::ALL.iter().any(|d| d.name() == key);
        }
        key == self.name
            || (matches!(self.ty, Ty::Tags) && zoa_anim_core::StateDimension::ALL.iter().any(|d| d.name() == key))
    }

    /// Every key this field accepts.
    pub(crate) fn keys(&self) -> Vec<&'static str> {
        let dims = zoa_anim_core::StateDimension::ALL.iter().map(|d| d.name());
        if self.per_dimension {
            return dims.collect();
        }
        let mut keys = vec![self.name];
        if matches!(self.ty, Ty::Tags) {
            keys.extend(dims);
        }
        keys
    }
}

/// A rule over several fields of one table.
#[derive(Debug)]
pub(crate) enum Constraint {
    /// Exactly one of the groups is written in full (`clip` or `blend_tree`).
    OneOf(&'static [&'static [&'static str]]),
    /// At least one of the fields is written (`parent` or `entries`).
    AnyOf(&'static [&'static str]),
    /// At most one of the fields is written (`rotation` or `euler`).
    AtMostOne(&'static [&'static str]),
    /// The first field is not written together with the second set to the
    /// flag (`sync_group` with `loop = false`).
    NotWith(&'static str, &'static str, bool),
}

/// The fields of one table and the rules across them.
#[derive(Debug)]
pub(crate) struct Table {
    /// The fields, in documentation order.
    pub fields: &'static [Field],
    /// Rules across fields (checked by the kind's reader, stated in the schema).
    pub constraints: &'static [Constraint],
}

impl Table {
    /// A table without cross-field rules.
    pub(crate) const fn of(fields: &'static [Field]) -> Table {
        Table { fields, constraints: &[] }
    }

    /// The field `key` belongs to.
    pub(crate) fn field(&self, key: &str) -> Option<&'static Field> {
        self.fields.iter().find(|f| f.has_key(key))
    }

    /// Every accepted key.
    pub(crate) fn keys(&self) -> Vec<&'static str> {
        self.fields.iter().flat_map(Field::keys).collect()
    }
}

/// The description of one definition kind.
#[derive(Debug)]
pub(crate) struct KindSpec {
    /// The kind.
    pub kind: Kind,
    /// The core type it becomes, as a doc link.
    pub produces: &'static str,
    /// Prose before the field table (may be empty).
    pub intro: &'static str,
    /// The top-level fields after `kind` and `id`.
    pub table: Table,
    /// Prose after the field table: warnings and notes (may be empty).
    pub notes: &'static str,
}

/// `kind` and `id`, which every definition starts with.
pub(crate) static COMMON: Table = Table::of(&[
    Field::req("kind", Ty::Text, "one of the ten definition kinds", "definition kind"),
    Field::req(
        "id",
        Ty::Id,
        "the definition's unique id",
        "unique id per kind: lowercase segments of a-z0-9_, dotted allowed",
    ),
]);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_unique_per_table() {
        fn check(path: &str, t: &Table) {
            let keys = t.keys();
            let mut sorted = keys.clone();
            sorted.sort_unstable();
            sorted.dedup();
            assert_eq!(sorted.len(), keys.len(), "{path}: {keys:?}");
            for f in t.fields {
                if let Ty::Table(c) | Ty::Rows(c) | Ty::RowsAtMost(c, _) = f.ty {
                    check(&format!("{path}.{}", f.name), c);
                }
            }
        }
        for spec in crate::defs::kinds::all_specs() {
            check(spec.kind.name(), &spec.table);
            for k in spec.table.keys() {
                assert!(COMMON.field(k).is_none(), "{}: `{k}` is a common key", spec.kind.name());
            }
        }
    }

    #[test]
    fn aliases_name_documented_values() {
        fn check(t: &Table) {
            for f in t.fields {
                match f.ty {
                    Ty::Enum(e) => {
                        for (_, v) in e.aliases {
                            assert!(e.values.contains(v), "{}: alias of unknown `{v}`", f.name);
                        }
                    }
                    Ty::Table(c) | Ty::Rows(c) | Ty::RowsAtMost(c, _) => check(c),
                    _ => {}
                }
            }
        }
        for spec in crate::defs::kinds::all_specs() {
            check(&spec.table);
        }
    }
}

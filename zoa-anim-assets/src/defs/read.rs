//! A checking reader over the spanned TOML tree (`toml::de::DeTable`).
//!
//! Every getter records the field name it was asked for, so [`Obj::finish`]
//! can report every key nobody asked for as an unknown field (no
//! definition accepts a key it does not describe) and list the valid ones. Getters
//! never stop at a problem: they report it to the [`FileCtx`] and return
//! `None`, so one pass finds every problem of a file.

use std::ops::Range;

use toml::Spanned;
use toml::de::{DeTable, DeValue};
use zoa_anim_core::{StateDimension, StateTagSet};

use super::codes::Code;
use super::diag::FileCtx;
pub(crate) use super::spec::Rule;
use super::spec::{COMMON, Enum, Field, Need, Table, Ty};

pub(crate) type Val<'i> = Spanned<DeValue<'i>>;

/// `path.key`, or `key` at the top level.
pub(crate) fn join(path: &str, key: &str) -> String {
    if path.is_empty() { key.to_owned() } else { format!("{path}.{key}") }
}

/// `path[i]`.
pub(crate) fn index(path: &str, i: usize) -> String {
    format!("{path}[{i}]")
}

fn type_name(v: &DeValue<'_>) -> &'static str {
    match v {
        DeValue::String(_) => "a string",
        DeValue::Integer(_) => "an integer",
        DeValue::Float(_) => "a float",
        DeValue::Boolean(_) => "a boolean",
        DeValue::Datetime(_) => "a datetime",
        DeValue::Array(_) => "an array",
        DeValue::Table(_) => "a table",
    }
}

fn wrong_type(ctx: &mut FileCtx<'_>, v: &Val<'_>, field: &str, expected: &str) {
    ctx.report(Code::WrongType, v.span(), field, format!("expected {expected}, found {}", type_name(v.get_ref())));
}

/// The value as a string.
pub(crate) fn str_of<'a>(ctx: &mut FileCtx<'_>, v: &'a Val<'_>, field: &str) -> Option<&'a str> {
    match v.get_ref() {
        DeValue::String(s) => Some(s.as_ref()),
        _ => {
            wrong_type(ctx, v, field, "a string");
            None
        }
    }
}

/// The value as a non-empty (after trimming) string.
pub(crate) fn name_of<'a>(ctx: &mut FileCtx<'_>, v: &'a Val<'_>, field: &str) -> Option<&'a str> {
    let s = str_of(ctx, v, field)?;
    if s.trim().is_empty() {
        ctx.report(Code::InvalidValue, v.span(), field, "expected a non-empty string");
        return None;
    }
    Some(s)
}

/// The value as a finite number obeying `rule` (integers are accepted).
pub(crate) fn num_of(ctx: &mut FileCtx<'_>, v: &Val<'_>, field: &str, rule: Rule) -> Option<f32> {
    let parsed = match v.get_ref() {
        DeValue::Float(f) => {
            let text = f.as_str().replace('_', "");
            text.parse::<f64>().unwrap_or(f64::NAN)
        }
        DeValue::Integer(i) => match i64::from_str_radix(&i.as_str().replace('_', ""), i.radix()) {
            Ok(n) => n as f64,
            Err(_) => {
                ctx.report(
                    Code::OutOfRange,
                    v.span(),
                    field,
                    format!("expected {}, found an integer out of range", rule.describe()),
                );
                return None;
            }
        },
        _ => {
            wrong_type(ctx, v, field, "a number");
            return None;
        }
    };
    if !parsed.is_finite() || !(parsed as f32).is_finite() {
        ctx.report(Code::NonFinite, v.span(), field, format!("expected {}, found a non-finite value", rule.describe()));
        return None;
    }
    // The runtime works in f32: the rule holds for the narrowed value, and a
    // `> 0` value must stay a normal f32 (1e-50 would become 0).
    let narrowed = parsed as f32;
    let vanishes = matches!(rule, Rule::Positive | Rule::Speed) && !narrowed.is_normal();
    if !rule.accepts(f64::from(narrowed)) || vanishes {
        let found = if f64::from(narrowed) == parsed {
            format!("{parsed}")
        } else {
            let narrowed = if narrowed == 0.0 { "0".to_owned() } else { format!("{narrowed:e}") };
            format!("{parsed:e} ({narrowed} as a 32-bit float)")
        };
        ctx.report(Code::OutOfRange, v.span(), field, format!("expected {}, found {found}", rule.describe()));
        return None;
    }
    Some(narrowed)
}

/// The value as an integer in `lo ..= hi`.
pub(crate) fn int_of(ctx: &mut FileCtx<'_>, v: &Val<'_>, field: &str, lo: i64, hi: i64) -> Option<i64> {
    let DeValue::Integer(i) = v.get_ref() else {
        wrong_type(ctx, v, field, "an integer");
        return None;
    };
    match i64::from_str_radix(&i.as_str().replace('_', ""), i.radix()) {
        Ok(n) if (lo..=hi).contains(&n) => Some(n),
        _ => {
            ctx.report(Code::OutOfRange, v.span(), field, format!("expected an integer in {lo}..={hi}, found {}", i));
            None
        }
    }
}

/// The value as a boolean.
pub(crate) fn bool_of(ctx: &mut FileCtx<'_>, v: &Val<'_>, field: &str) -> Option<bool> {
    match v.get_ref() {
        DeValue::Boolean(b) => Some(*b),
        _ => {
            wrong_type(ctx, v, field, "a boolean (true or false)");
            None
        }
    }
}

/// The value as an array.
pub(crate) fn array_of<'a, 'i>(ctx: &mut FileCtx<'_>, v: &'a Val<'i>, field: &str) -> Option<&'a [Val<'i>]> {
    match v.get_ref() {
        DeValue::Array(a) => Some(a),
        _ => {
            wrong_type(ctx, v, field, "an array");
            None
        }
    }
}

/// The value as a table reader whose fields `spec` describes.
pub(crate) fn obj_of<'a, 'i>(
    ctx: &mut FileCtx<'_>,
    v: &'a Val<'i>,
    field: &str,
    spec: &'static Table,
) -> Option<Obj<'a, 'i>> {
    match v.get_ref() {
        DeValue::Table(t) => Some(Obj::new(t, v.span(), field.to_owned(), spec)),
        _ => {
            wrong_type(ctx, v, field, "a table");
            None
        }
    }
}

/// The value as one of the strings of `e`, in its documented spelling.
pub(crate) fn choice_of(ctx: &mut FileCtx<'_>, v: &Val<'_>, field: &str, e: &Enum) -> Option<&'static str> {
    let text = name_of(ctx, v, field)?;
    let value = e.canonical(text);
    if value.is_none() {
        ctx.report(
            Code::InvalidValue,
            v.span(),
            field,
            format!("unknown {} `{text}`; expected one of: {}", e.noun, e.values.join(", ")),
        );
    }
    value
}

/// Checks a scalar value against its type, reporting what is wrong. Types the
/// kind readers check themselves (tables, lists, alternatives, tag patterns)
/// pass.
fn check_scalar(ctx: &mut FileCtx<'_>, v: &Val<'_>, field: &str, ty: &Ty) {
    match ty {
        Ty::Text | Ty::Id | Ty::Pattern(_) => {
            let _ = name_of(ctx, v, field);
        }
        Ty::Str => {
            let _ = str_of(ctx, v, field);
        }
        Ty::Num(rule) => {
            let _ = num_of(ctx, v, field, *rule);
        }
        Ty::Int(lo, hi) => {
            let _ = int_of(ctx, v, field, *lo, *hi);
        }
        Ty::Bool => {
            let _ = bool_of(ctx, v, field);
        }
        Ty::Enum(e) => {
            let _ = choice_of(ctx, v, field, e);
        }
        Ty::Vector(n) => {
            let _ = numbers_of(ctx, v, field, *n);
        }
        Ty::Point => {
            let _ = point_of(ctx, v, field);
        }
        Ty::Table(_)
        | Ty::Nested(..)
        | Ty::Rows(_)
        | Ty::RowsAtMost(..)
        | Ty::List(..)
        | Ty::Map(_)
        | Ty::Either(_)
        | Ty::Tuple(_)
        | Ty::Tags => {}
    }
}

/// The value as an array of exactly `n` finite numbers (a count other than
/// `n` is E008, each item is checked as a number).
pub(crate) fn numbers_of(ctx: &mut FileCtx<'_>, v: &Val<'_>, field: &str, n: usize) -> Option<Vec<f32>> {
    let items = match v.get_ref() {
        DeValue::Array(a) => a,
        _ => {
            wrong_type(ctx, v, field, &format!("an array of {n} numbers"));
            return None;
        }
    };
    if items.len() != n {
        ctx.report(
            Code::OutOfRange,
            v.span(),
            field,
            format!("expected an array of exactly {n} numbers, found {} item(s)", items.len()),
        );
        return None;
    }
    let numbers: Vec<Option<f32>> =
        items.iter().enumerate().map(|(i, item)| num_of(ctx, item, &index(field, i), Rule::Any)).collect();
    numbers.into_iter().collect()
}

/// The value as a point `[x, y]` of two finite numbers.
pub(crate) fn point_of(ctx: &mut FileCtx<'_>, v: &Val<'_>, field: &str) -> Option<[f32; 2]> {
    match v.get_ref() {
        DeValue::Array(a) if a.len() == 2 => {
            let x = num_of(ctx, &a[0], &index(field, 0), Rule::Any);
            let y = num_of(ctx, &a[1], &index(field, 1), Rule::Any);
            Some([x?, y?])
        }
        _ => {
            wrong_type(ctx, v, field, "a point `[x, y]` of two numbers");
            None
        }
    }
}

/// ` (did you mean `x`?)` when a candidate is within a small edit distance of
/// `name` (case-insensitive), else an empty string.
pub(crate) fn did_you_mean<'c>(name: &str, candidates: impl IntoIterator<Item = &'c str>) -> String {
    let wanted = name.to_ascii_lowercase();
    let len = wanted.chars().count();
    let limit = len.div_ceil(3).clamp(1, 3);
    let best = candidates
        .into_iter()
        .filter(|c| *c != name)
        // The distance is at least the length difference: skip those cheaply.
        .filter(|c| c.chars().count().abs_diff(len) <= limit)
        .map(|c| (edit_distance(&wanted, &c.to_ascii_lowercase()), c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, c)| (*d, *c));
    best.map_or_else(String::new, |(_, c)| format!(" (did you mean `{c}`?)"))
}

/// Levenshtein distance over characters (names are short; O(n·m) is fine).
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

/// A table being read against its description ([`Table`]).
///
/// Getters take the field's type, range and need from the description; they
/// report a problem once and return `None`. [`Obj::finish`] reports what no
/// getter looked at: unknown keys (with the valid ones), scalar fields the
/// reader did not read (so a field only described is still checked), and
/// required fields left out.
pub(crate) struct Obj<'a, 'i> {
    pub table: &'a DeTable<'i>,
    pub span: Range<usize>,
    pub path: String,
    spec: &'static Table,
    /// `kind` and `id` at the top of a definition.
    common: Option<&'static Table>,
    /// Keys whose value a getter has checked.
    asked: Vec<&'static str>,
    /// Required keys already reported missing.
    reported: Vec<&'static str>,
}

/// No fields (a definition's top level before its kind is known).
static EMPTY: Table = Table::of(&[]);

impl<'a, 'i> Obj<'a, 'i> {
    pub(crate) fn new(table: &'a DeTable<'i>, span: Range<usize>, path: String, spec: &'static Table) -> Self {
        Obj { table, span, path, spec, common: None, asked: Vec::new(), reported: Vec::new() }
    }

    /// The top level of a definition: `kind` and `id` now, the kind's fields
    /// once [`Obj::describe`] names them.
    pub(crate) fn root(table: &'a DeTable<'i>, span: Range<usize>) -> Self {
        Obj { common: Some(&COMMON), ..Obj::new(table, span, String::new(), &EMPTY) }
    }

    /// Sets the description of this table's fields.
    pub(crate) fn describe(&mut self, spec: &'static Table) {
        self.spec = spec;
    }

    /// Field path of `key` in this table.
    pub(crate) fn field(&self, key: &str) -> String {
        join(&self.path, key)
    }

    /// The description of `key`.
    fn spec_of(&self, key: &str) -> Option<&'static Field> {
        let found = self.spec.field(key).or_else(|| self.common.and_then(|c| c.field(key)));
        debug_assert!(found.is_some(), "`{key}` is not in the description of `{}`", self.path);
        found
    }

    fn value(&self, key: &str) -> Option<&'a Val<'i>> {
        self.table.iter().find(|(k, _)| k.get_ref().as_ref() == key).map(|(_, v)| v)
    }

    /// The raw value of `key`, which the caller checks.
    pub(crate) fn raw(&mut self, key: &'static str) -> Option<&'a Val<'i>> {
        let _ = self.spec_of(key);
        self.asked.push(key);
        self.value(key)
    }

    /// Whether `key` is present (does not count as reading it).
    pub(crate) fn has(&self, key: &str) -> bool {
        self.value(key).is_some()
    }

    /// Reports a missing field at the table (a required one, or one a rule
    /// across fields asks for).
    pub(crate) fn missing(&mut self, ctx: &mut FileCtx<'_>, key: &'static str, what: &str) {
        self.reported.push(key);
        let span = if self.path.is_empty() { 0..0 } else { self.span.clone() };
        let at = if self.path.is_empty() { "the definition".to_owned() } else { format!("`{}`", self.path) };
        ctx.report(Code::MissingField, span, &self.field(key), format!("{at} needs `{key}` ({what})"));
    }

    /// The value of `key`, reporting it missing when it is required.
    fn get(&mut self, ctx: &mut FileCtx<'_>, key: &'static str) -> Option<(&'a Val<'i>, &'static Field)> {
        let spec = self.spec_of(key)?;
        self.asked.push(key);
        match self.value(key) {
            Some(v) => Some((v, spec)),
            None => {
                if let Need::Required(what) = spec.need
                    && !self.reported.contains(&key)
                {
                    self.missing(ctx, key, what);
                }
                None
            }
        }
    }

    /// A non-empty string.
    pub(crate) fn str(&mut self, ctx: &mut FileCtx<'_>, key: &'static str) -> Option<Spanned<&'a str>> {
        let (v, _) = self.get(ctx, key)?;
        let field = self.field(key);
        name_of(ctx, v, &field).map(|s| Spanned::new(v.span(), s))
    }

    /// One of the strings of an enum field, in its documented spelling.
    pub(crate) fn choice(&mut self, ctx: &mut FileCtx<'_>, key: &'static str) -> Option<Spanned<&'static str>> {
        let (v, spec) = self.get(ctx, key)?;
        let Ty::Enum(e) = spec.ty else {
            debug_assert!(false, "`{key}` is not an enum field");
            return None;
        };
        choice_of(ctx, v, &self.field(key), e).map(|s| Spanned::new(v.span(), s))
    }

    /// A number obeying the field's rule.
    pub(crate) fn num(&mut self, ctx: &mut FileCtx<'_>, key: &'static str) -> Option<f32> {
        let (v, spec) = self.get(ctx, key)?;
        let rule = match spec.ty {
            Ty::Num(rule) => rule,
            _ => {
                debug_assert!(false, "`{key}` is not a number field");
                Rule::Any
            }
        };
        num_of(ctx, v, &self.field(key), rule)
    }

    /// A raw value of `key` (from [`Obj::raw`]) checked as the described number.
    pub(crate) fn num_value(&self, ctx: &mut FileCtx<'_>, key: &'static str, v: &Val<'_>) -> Option<f32> {
        let rule = match self.spec_of(key).map(|f| f.ty) {
            Some(Ty::Num(rule)) => rule,
            _ => {
                debug_assert!(false, "`{key}` is not a number field");
                Rule::Any
            }
        };
        num_of(ctx, v, &self.field(key), rule)
    }

    /// An integer in the field's range.
    pub(crate) fn int(&mut self, ctx: &mut FileCtx<'_>, key: &'static str) -> Option<i64> {
        let (v, spec) = self.get(ctx, key)?;
        let (lo, hi) = match spec.ty {
            Ty::Int(lo, hi) => (lo, hi),
            _ => {
                debug_assert!(false, "`{key}` is not an integer field");
                (i64::MIN, i64::MAX)
            }
        };
        int_of(ctx, v, &self.field(key), lo, hi)
    }

    /// An array of exactly `N` finite numbers (a [`Ty::Vector`] field).
    pub(crate) fn vector<const N: usize>(&mut self, ctx: &mut FileCtx<'_>, key: &'static str) -> Option<[f32; N]> {
        let (v, spec) = self.get(ctx, key)?;
        debug_assert!(matches!(spec.ty, Ty::Vector(n) if n == N), "`{key}` is not a vector of {N}");
        let numbers = numbers_of(ctx, v, &self.field(key), N)?;
        numbers.try_into().ok()
    }

    pub(crate) fn bool(&mut self, ctx: &mut FileCtx<'_>, key: &'static str) -> Option<bool> {
        let (v, _) = self.get(ctx, key)?;
        bool_of(ctx, v, &self.field(key))
    }

    /// An array of tables (`[[key]]` or an inline array of inline tables);
    /// for [`Ty::RowsAtMost`], rows past the limit are reported (E008) and
    /// left out.
    pub(crate) fn tables(&mut self, ctx: &mut FileCtx<'_>, key: &'static str) -> Vec<Obj<'a, 'i>> {
        let Some((v, spec)) = self.get(ctx, key) else { return Vec::new() };
        let (rows, max) = match spec.ty {
            Ty::Rows(rows) => (rows, usize::MAX),
            Ty::RowsAtMost(rows, max) => (rows, max),
            _ => {
                debug_assert!(false, "`{key}` is not an array-of-tables field");
                return Vec::new();
            }
        };
        let field = self.field(key);
        let Some(items) = array_of(ctx, v, &field) else { return Vec::new() };
        if items.len() > max {
            let msg = format!("{} rows; at most {max} are allowed (the rest are not read)", items.len());
            ctx.report(Code::OutOfRange, v.span(), &field, msg);
        }
        let items = &items[..items.len().min(max)];
        items.iter().enumerate().filter_map(|(i, item)| obj_of(ctx, item, &index(&field, i), rows)).collect()
    }

    /// A sub-table.
    pub(crate) fn obj(&mut self, ctx: &mut FileCtx<'_>, key: &'static str) -> Option<Obj<'a, 'i>> {
        let (v, spec) = self.get(ctx, key)?;
        let (Ty::Table(t) | Ty::Nested(t, _)) = spec.ty else {
            debug_assert!(false, "`{key}` is not a table field");
            return None;
        };
        obj_of(ctx, v, &self.field(key), t)
    }

    /// Reports every unknown key, checks every described scalar field no
    /// getter read, and reports required fields left out.
    pub(crate) fn finish(&self, ctx: &mut FileCtx<'_>) {
        let mut valid: Vec<&str> = self.spec.keys();
        if let Some(c) = self.common {
            valid.extend(c.keys());
        }
        valid.sort_unstable();
        valid.dedup();
        for (k, v) in self.table.iter() {
            let name = k.get_ref().as_ref();
            if !valid.contains(&name) {
                let where_ = if self.path.is_empty() { String::new() } else { format!(" in `{}`", self.path) };
                ctx.report(
                    Code::UnknownField,
                    k.span(),
                    &self.field(name),
                    format!(
                        "unknown field `{name}`{where_}{}; expected one of: {}",
                        did_you_mean(name, valid.iter().copied()),
                        valid.join(", ")
                    ),
                );
            } else if !self.asked.contains(&name)
                && let Some(spec) = self.spec.field(name).or_else(|| self.common.and_then(|c| c.field(name)))
            {
                check_scalar(ctx, v, &self.field(name), &spec.ty);
            }
        }
        let required = self.spec.fields.iter().chain(self.common.into_iter().flat_map(|c| c.fields));
        for f in required {
            if let Need::Required(what) = f.need
                && !f.per_dimension
                && !self.has(f.name)
                && !self.reported.contains(&f.name)
            {
                let span = if self.path.is_empty() { 0..0 } else { self.span.clone() };
                let at = if self.path.is_empty() { "the definition".to_owned() } else { format!("`{}`", self.path) };
                ctx.report(Code::MissingField, span, &self.field(f.name), format!("{at} needs `{}` ({what})", f.name));
            }
        }
    }
}

/// Reads a tag pattern written either as `tags = "locomotion=sprint mood=alert"`
/// or as per-dimension lists (`locomotion = ["sprint"]`, a single string is
/// accepted too). Both forms at once is a conflict.
pub(crate) fn tags(ctx: &mut FileCtx<'_>, obj: &mut Obj<'_, '_>, text_key: &'static str) -> StateTagSet {
    let mut set = StateTagSet::EMPTY;
    let text = obj.raw(text_key);
    let mut lists = Vec::new();
    for dim in StateDimension::ALL {
        if let Some(v) = obj.raw(dim.name()) {
            lists.push((dim, v));
        }
    }
    if let Some(v) = text {
        if !lists.is_empty() {
            let names: Vec<&str> = lists.iter().map(|(d, _)| d.name()).collect();
            ctx.report(
                Code::ConflictingFields,
                v.span(),
                &obj.field(text_key),
                format!(
                    "`{text_key}` and per-dimension lists ({}) given together; write the pattern one way",
                    names.join(", ")
                ),
            );
            return set;
        }
        let field = obj.field(text_key);
        if let Some(s) = str_of(ctx, v, &field) {
            match StateTagSet::parse(s) {
                Ok(t) => set = t,
                Err(e) => ctx.report(Code::InvalidValue, v.span(), &field, e.to_string()),
            }
        }
        return set;
    }
    for (dim, v) in lists {
        let field = obj.field(dim.name());
        let items: Vec<(&Val<'_>, String)> = match v.get_ref() {
            DeValue::String(_) => vec![(v, field.clone())],
            DeValue::Array(a) => a.iter().enumerate().map(|(i, item)| (item, index(&field, i))).collect(),
            _ => {
                wrong_type(ctx, v, &field, "an array of flag names");
                continue;
            }
        };
        for (item, item_field) in items {
            let Some(name) = str_of(ctx, item, &item_field) else { continue };
            match dim.parse_flag(name) {
                Ok(bit) => set = set.with_mask(dim, set.mask(dim) | bit),
                Err(e) => ctx.report(Code::InvalidValue, item.span(), &item_field, e.to_string()),
            }
        }
    }
    set
}

#[cfg(test)]
mod tests {
    use super::*;

    fn value_of(text: &str) -> (toml::Spanned<DeTable<'_>>, Vec<toml::de::Error>) {
        DeTable::parse_recoverable(text)
    }

    #[test]
    fn numbers_in_every_toml_spelling() {
        let (doc, errors) = value_of("a = 0x10\nb = 1_000.5\nc = -0.0\nd = 1e40\ne = nan\nf = 3\n");
        assert!(errors.is_empty());
        static SPEC: Table = Table::of(&[
            Field::opt("a", Ty::Num(Rule::Any), "", ""),
            Field::opt("b", Ty::Num(Rule::Positive), "", ""),
            Field::opt("c", Ty::Num(Rule::NonNegative), "", ""),
            Field::opt("d", Ty::Num(Rule::Any), "", ""),
            Field::opt("e", Ty::Num(Rule::Any), "", ""),
            Field::opt("f", Ty::Int(0, 2), "", ""),
        ]);
        let mut ctx = FileCtx::new("n.toml".into(), "");
        let mut obj = Obj::new(doc.get_ref(), doc.span(), String::new(), &SPEC);
        assert_eq!(obj.num(&mut ctx, "a"), Some(16.0));
        assert_eq!(obj.num(&mut ctx, "b"), Some(1000.5));
        assert_eq!(obj.num(&mut ctx, "c"), Some(0.0));
        assert_eq!(obj.num(&mut ctx, "d"), None, "overflows f32");
        assert_eq!(obj.num(&mut ctx, "e"), None);
        assert_eq!(obj.int(&mut ctx, "f"), None);
        let a = obj.raw("a").unwrap();
        assert_eq!(int_of(&mut ctx, a, "a", 0, 100), Some(16));
        let codes: Vec<&str> = ctx.diags.iter().map(|d| d.code).collect();
        assert_eq!(codes, ["E009", "E009", "E008"]);
        obj.finish(&mut ctx);
        assert_eq!(ctx.diags.len(), 3, "every key was asked for");
    }

    #[test]
    fn the_description_alone_checks_fields_no_reader_reads() {
        static SPEC: Table = Table::of(&[
            Field::opt("speed", Ty::Num(Rule::Positive), "`1`", ""),
            Field::opt("mode", Ty::Enum(&MODES), "`a`", ""),
            Field::req("clip", Ty::Text, "the clip this row plays", ""),
        ]);
        static MODES: Enum = Enum { noun: "mode", values: &["a", "b"], aliases: &[("A", "a")] };
        let (doc, _) = value_of("speed = 0\nmode = \"c\"\nspeeed = 1\n");
        let mut ctx = FileCtx::new("r.toml".into(), "");
        let obj = Obj::new(doc.get_ref(), doc.span(), "row".into(), &SPEC);
        obj.finish(&mut ctx);
        let got: Vec<(&str, &str, &str)> =
            ctx.diags.iter().map(|d| (d.code, d.field.as_str(), d.message.as_str())).collect();
        assert_eq!(
            got,
            [
                ("E010", "row.mode", "unknown mode `c`; expected one of: a, b"),
                ("E008", "row.speed", "expected a number > 0, found 0"),
                (
                    "E005",
                    "row.speeed",
                    "unknown field `speeed` in `row` (did you mean `speed`?); expected one of: clip, mode, speed"
                ),
                ("E006", "row.clip", "`row` needs `clip` (the clip this row plays)"),
            ]
        );
        assert_eq!(MODES.canonical("A"), Some("a"));
    }

    #[test]
    fn suggestions_are_close_names_only() {
        assert_eq!(did_you_mean("wieght", ["weight", "speed"]), " (did you mean `weight`?)");
        assert_eq!(did_you_mean("Idle", ["idle", "walk"]), " (did you mean `idle`?)");
        assert_eq!(did_you_mean("banana", ["weight", "speed"]), "");
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }

    #[test]
    fn numbers_are_checked_after_narrowing_to_f32() {
        let (doc, _) = value_of("a = 1e-50\nb = 1e-40\nc = 1e-50\nd = 0.5\n");
        static SPEC: Table = Table::of(&[
            Field::opt("a", Ty::Num(Rule::Positive), "", ""),
            Field::opt("b", Ty::Num(Rule::Positive), "", ""),
            Field::opt("c", Ty::Num(Rule::NonNegative), "", ""),
            Field::opt("d", Ty::Num(Rule::Positive), "", ""),
        ]);
        let mut ctx = FileCtx::new("n.toml".into(), "");
        let mut obj = Obj::new(doc.get_ref(), doc.span(), String::new(), &SPEC);
        assert_eq!(obj.num(&mut ctx, "a"), None, "rounds to 0 in f32");
        assert_eq!(obj.num(&mut ctx, "b"), None, "subnormal in f32");
        assert_eq!(obj.num(&mut ctx, "c"), Some(0.0), ">= 0 holds for the narrowed value");
        assert_eq!(obj.num(&mut ctx, "d"), Some(0.5));
        let got: Vec<&str> = ctx.diags.iter().map(|d| d.message.as_str()).collect();
        assert_eq!(got[0], "expected a number > 0, found 1e-50 (0 as a 32-bit float)");
        assert!(got[1].starts_with("expected a number > 0, found 1e-40 ("), "{got:?}");
        assert_eq!(got.len(), 2);
    }

    #[test]
    fn rules_describe_their_range() {
        assert!(Rule::Unit.accepts(1.0) && !Rule::Unit.accepts(1.01));
        assert!(!Rule::Positive.accepts(0.0) && Rule::NonNegative.accepts(0.0));
        assert_eq!(Rule::Between(0.0, 180.0).describe(), "a number in 0..=180");
    }
}

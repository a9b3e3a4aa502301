//! Rows of a definition file as `toml_edit` holds them, whichever way they
//! are written (`[[states]]` tables or an inline array of inline tables),
//! and JSON ⇄ TOML values for the page.

use serde_json::Value as Json;
use toml_edit::{Array, ArrayOfTables, InlineTable, Item, Table, TableLike, Value};

use super::EditError;

/// The rows of an array-of-tables field, for reading. An item that is not a
/// table is `None`, so indices stay those of the file (`states[3]`).
pub(super) fn rows<'a>(parent: &'a dyn TableLike, key: &str) -> Vec<Option<&'a dyn TableLike>> {
    match parent.get(key) {
        Some(Item::ArrayOfTables(a)) => a.iter().map(|t| Some(t as &dyn TableLike)).collect(),
        Some(Item::Value(Value::Array(a))) => {
            a.iter().map(|v| v.as_inline_table().map(|t| t as &dyn TableLike)).collect()
        }
        _ => Vec::new(),
    }
}

/// The rows of an array-of-tables field, for editing.
pub(super) enum RowsMut<'a> {
    /// `[[key]]` tables.
    Tables(&'a mut ArrayOfTables),
    /// `key = [{ .. }, ..]`.
    Inline(&'a mut Array),
}

impl<'a> RowsMut<'a> {
    /// The rows of `key` in `parent`; `create` makes an empty `[[key]]` list
    /// when the field is absent.
    pub(super) fn of(parent: &'a mut dyn TableLike, key: &str, create: bool) -> Result<RowsMut<'a>, EditError> {
        if create && !parent.contains_key(key) {
            parent.insert(key, Item::ArrayOfTables(ArrayOfTables::new()));
        }
        match parent.get_mut(key) {
            Some(Item::ArrayOfTables(a)) => Ok(RowsMut::Tables(a)),
            Some(Item::Value(Value::Array(a))) => Ok(RowsMut::Inline(a)),
            Some(_) => Err(EditError::new(format!("`{key}` is not a list of tables; fix the text first"))),
            None => Err(EditError::new(format!("the graph has no `{key}`"))),
        }
    }

    /// Row `i`, when it is a table.
    pub(super) fn get(&mut self, i: usize) -> Option<&mut dyn TableLike> {
        match self {
            RowsMut::Tables(a) => a.get_mut(i).map(|t| t as &mut dyn TableLike),
            RowsMut::Inline(a) => a.get_mut(i).and_then(Value::as_inline_table_mut).map(|t| t as &mut dyn TableLike),
        }
    }

    /// Number of rows (tables or not).
    pub(super) fn len(&self) -> usize {
        match self {
            RowsMut::Tables(a) => a.len(),
            RowsMut::Inline(a) => a.len(),
        }
    }

    /// Removes rows `keep` says no to (by index), keeping the order of the rest.
    pub(super) fn retain_indices(&mut self, mut keep: impl FnMut(usize) -> bool) {
        match self {
            RowsMut::Tables(a) => {
                let mut i = 0;
                a.retain(|_| {
                    i += 1;
                    keep(i - 1)
                });
            }
            RowsMut::Inline(a) => {
                let mut i = 0;
                a.retain(|_| {
                    i += 1;
                    keep(i - 1)
                });
            }
        }
    }

    /// Swaps rows `i` and `j`; each place keeps its layout (its position in
    /// the document, its line breaks), the rows' contents and comments move.
    pub(super) fn swap(&mut self, i: usize, j: usize) {
        if i == j || i >= self.len() || j >= self.len() {
            return;
        }
        let (lo, hi) = (i.min(j), i.max(j));
        match self {
            RowsMut::Tables(a) => {
                let pos = (a.get(lo).and_then(Table::position), a.get(hi).and_then(Table::position));
                let b = a.remove(hi);
                let x = a.replace(lo, b);
                a.insert(hi, x);
                if let (Some(p), Some(q)) = pos {
                    if let Some(t) = a.get_mut(lo) {
                        t.set_position(Some(p));
                    }
                    if let Some(t) = a.get_mut(hi) {
                        t.set_position(Some(q));
                    }
                }
            }
            RowsMut::Inline(a) => {
                let decor = |a: &Array, k: usize| a.get(k).map(|v| v.decor().clone()).unwrap_or_default();
                let (dl, dh) = (decor(a, lo), decor(a, hi));
                let mut b = a.remove(hi);
                let mut x = a.remove(lo);
                *b.decor_mut() = dl;
                *x.decor_mut() = dh;
                a.insert_formatted(lo, b);
                a.insert_formatted(hi, x);
            }
        }
    }

    /// Appends a row made of `fields` (in that order).
    pub(super) fn push(&mut self, fields: Vec<(&str, Item)>) {
        match self {
            RowsMut::Tables(a) => {
                let mut t = Table::new();
                for (k, v) in fields {
                    t.insert(k, v);
                }
                a.push(t);
            }
            RowsMut::Inline(a) => {
                let mut t = InlineTable::new();
                for (k, v) in fields {
                    if let Ok(v) = v.into_value() {
                        t.insert(k, v);
                    }
                }
                // Lay the new row out like the last one (its own line, usually).
                let decor = a.iter().last().map(|v| v.decor().clone());
                let mut v = Value::InlineTable(t);
                if let Some(d) = decor {
                    *v.decor_mut() = d;
                }
                a.push_formatted(v);
            }
        }
    }
}

/// A row's string field.
pub(super) fn text<'a>(row: &'a dyn TableLike, key: &str) -> Option<&'a str> {
    row.get(key).and_then(Item::as_str)
}

/// `value` in place of `item`, keeping the spacing and comment around the old value.
pub(super) fn replace(item: &mut Item, mut value: Value) {
    if let Item::Value(old) = item {
        *value.decor_mut() = old.decor().clone();
    }
    *item = Item::Value(value);
}

/// Sets `key` of `row` to `value` (keeping the old value's layout), or adds it last.
pub(super) fn set(row: &mut dyn TableLike, key: &str, value: Value) {
    match row.get_mut(key) {
        Some(item) if item.is_value() => replace(item, value),
        _ => insert(row, key, Item::Value(value)),
    }
}

/// Adds `key` last. In an inline table the space before its `}` stays
/// before the `}` (`{ a = 1, b = 2 }`, not `{ a = 1 , b = 2}`).
pub(super) fn insert(row: &mut dyn TableLike, key: &str, mut item: Item) {
    let last = row.iter_mut().last().and_then(|(_, i)| i.as_value_mut().map(|v| v.decor_mut()));
    if let (Some(decor), Item::Value(v)) = (last, &mut item) {
        let suffix = decor.suffix().and_then(|s| s.as_str()).unwrap_or("").to_owned();
        if !suffix.is_empty() && suffix.trim().is_empty() && !suffix.contains('\n') {
            decor.set_suffix("");
            v.decor_mut().set_suffix(suffix);
        }
    }
    row.remove(key);
    row.insert(key, item);
}

/// The order new fields are written in: the order the field reference lists
/// them (`name`, `type`, … `children`); other keys after, alphabetically.
const KEY_ORDER: &[&str] = &[
    "name",
    "type",
    "from",
    "to",
    "layer",
    "clip",
    "parameter",
    "parameter_y",
    "weighting",
    "power",
    "threshold",
    "threshold_y",
    "weight",
    "conditions",
    "exit_time",
    "blend",
    "interruption",
    "mode",
    "loop",
    "speed",
    "crossfade",
    "duration",
    "warp",
    "blend_mode",
    "bone_mask",
    "include",
    "exclude",
    "default",
    "position",
    "children",
    "blend_tree",
];

/// `map`'s fields in [`KEY_ORDER`], without nulls.
pub(super) fn ordered(map: &serde_json::Map<String, Json>) -> Vec<(&String, &Json)> {
    let rank = |k: &str| KEY_ORDER.iter().position(|x| *x == k).unwrap_or(KEY_ORDER.len());
    let mut fields: Vec<(&String, &Json)> = map.iter().filter(|(_, v)| !v.is_null()).collect();
    fields.sort_by(|a, b| rank(a.0).cmp(&rank(b.0)).then(a.0.cmp(b.0)));
    fields
}

/// A number as TOML writes it: an integer when it is one (`1`, not `1.0`).
pub(super) fn number(x: f64) -> Value {
    if x.fract() == 0.0 && x.abs() < 1e15 { Value::from(x as i64) } else { Value::from(x) }
}

/// A JSON value as a TOML value (`null` has no TOML form). An array of
/// tables is laid out one table a line, as the fixtures write children.
pub(super) fn to_value(v: &Json) -> Result<Value, EditError> {
    Ok(match v {
        Json::Null => return Err(EditError::new("`null` has no TOML form (it removes a field)")),
        Json::Bool(b) => Value::from(*b),
        Json::Number(n) => match (n.as_i64(), n.as_f64()) {
            (Some(i), _) => Value::from(i),
            (None, Some(f)) if f.is_finite() => number(f),
            _ => return Err(EditError::new(format!("{n} is not a number TOML can hold"))),
        },
        Json::String(s) => Value::from(s.as_str()),
        Json::Array(items) => {
            let mut a = Array::new();
            let tables = !items.is_empty() && items.iter().all(Json::is_object);
            for item in items {
                let mut v = to_value(item)?;
                if tables {
                    v.decor_mut().set_prefix("\n    ");
                }
                a.push_formatted(v);
            }
            if tables {
                a.set_trailing_comma(true);
                a.set_trailing("\n");
            }
            Value::Array(a)
        }
        Json::Object(map) => {
            let mut t = InlineTable::new();
            for (k, v) in ordered(map) {
                t.insert(k, to_value(v)?);
            }
            Value::InlineTable(t)
        }
    })
}

/// A TOML item as JSON for the page (numbers as numbers, dates as text).
pub(super) fn to_json(item: &Item) -> Json {
    match item {
        Item::None => Json::Null,
        Item::Value(v) => value_json(v),
        Item::Table(t) => table_json(t),
        Item::ArrayOfTables(a) => Json::Array(a.iter().map(|t| table_json(t)).collect()),
    }
}

/// A row or table as a JSON object.
pub(super) fn table_json(t: &dyn TableLike) -> Json {
    Json::Object(t.iter().map(|(k, v)| (k.to_owned(), to_json(v))).collect())
}

fn value_json(v: &Value) -> Json {
    match v {
        Value::String(s) => Json::from(s.value().as_str()),
        Value::Integer(i) => Json::from(*i.value()),
        Value::Float(f) => serde_json::Number::from_f64(*f.value()).map_or(Json::Null, Json::Number),
        Value::Boolean(b) => Json::from(*b.value()),
        Value::Datetime(d) => Json::from(d.value().to_string()),
        Value::Array(a) => Json::Array(a.iter().map(value_json).collect()),
        Value::InlineTable(t) => table_json(t),
    }
}

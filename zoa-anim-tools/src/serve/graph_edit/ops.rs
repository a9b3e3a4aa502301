//! Each [`Edit`] on the document.

use serde_json::{Map, Value as Json};
use toml_edit::{Array, DocumentMut, InlineTable, Item, Table, TableLike, Value};

use super::rows::{RowsMut, insert, number, ordered, replace, set, text, to_json, to_value};
use super::{ANY, Edit, EditError, Target};

/// Longest name (state, parameter) the canvas writes.
const MAX_NAME: usize = 128;

pub(super) fn apply(doc: &mut DocumentMut, edit: &Edit) -> Result<(), EditError> {
    match edit {
        Edit::AddState { name, layer, clip, position } => {
            add_state(doc, name, layer.as_deref(), clip.as_deref(), *position)
        }
        Edit::DeleteState { state } => delete_state(doc, *state),
        Edit::RenameState { state, name } => rename_state(doc, *state, name),
        Edit::SetEntry { state } => set_entry(doc, *state),
        Edit::Place { states, any } => place(doc, states, any),
        Edit::AddTransition { from, to, conditions } => add_transition(doc, from, to, conditions),
        Edit::DeleteTransition { transition } => {
            let t = *transition;
            row_name(doc, "transitions", t, "from")?;
            RowsMut::of(doc.as_table_mut(), "transitions", false)?.retain_indices(|i| i != t);
            Ok(())
        }
        Edit::SwapTransitions { a, b } => {
            let mut list = RowsMut::of(doc.as_table_mut(), "transitions", false)?;
            if *a >= list.len() || *b >= list.len() {
                return Err(EditError::new("no such transition"));
            }
            list.swap(*a, *b);
            Ok(())
        }
        Edit::AddParameter { name, ty, default } => add_parameter(doc, name, ty, default.as_ref()),
        Edit::DeleteParameter { parameter } => {
            let p = *parameter;
            row_name(doc, "parameters", p, "name")?;
            RowsMut::of(doc.as_table_mut(), "parameters", false)?.retain_indices(|i| i != p);
            Ok(())
        }
        Edit::RenameParameter { parameter, name } => rename_parameter(doc, *parameter, name),
        Edit::Set { target, key, value } => set_field(doc, *target, key, value),
    }
}

fn checked_name<'n>(name: &'n str, what: &str) -> Result<&'n str, EditError> {
    let name = name.trim();
    if name.is_empty() || name.len() > MAX_NAME || name.chars().any(char::is_control) {
        return Err(EditError::new(format!("a {what} name is 1 to {MAX_NAME} characters, without control characters")));
    }
    Ok(name)
}

/// `key` of row `i` of `list` (the row must exist and be a table).
fn row_name(doc: &mut DocumentMut, list: &str, i: usize, key: &str) -> Result<String, EditError> {
    let mut rows = RowsMut::of(doc.as_table_mut(), list, false)?;
    let row = rows.get(i).ok_or_else(|| EditError::new(format!("no {list}[{i}]")))?;
    Ok(text(row, key).unwrap_or_default().to_owned())
}

fn names(doc: &mut DocumentMut, list: &str) -> Vec<String> {
    let Ok(mut rows) = RowsMut::of(doc.as_table_mut(), list, false) else { return Vec::new() };
    (0..rows.len()).filter_map(|i| rows.get(i).and_then(|r| text(r, "name")).map(str::to_owned)).collect()
}

fn point(p: [f64; 2]) -> Result<Value, EditError> {
    if !(p[0].is_finite() && p[1].is_finite()) {
        return Err(EditError::new("a position is two finite numbers"));
    }
    let mut a = Array::new();
    a.push(number(p[0].round()));
    a.push(number(p[1].round()));
    Ok(Value::Array(a))
}

/// The `[[layers]]` row named `layer` (`None`: the base layer, i.e. the graph's own fields).
fn layer_table<'d>(doc: &'d mut DocumentMut, layer: &str) -> Result<&'d mut dyn TableLike, EditError> {
    if layer == "base" {
        return Ok(doc.as_table_mut());
    }
    let missing = || EditError::new(format!("no layer `{layer}`"));
    let mut rows = RowsMut::of(doc.as_table_mut(), "layers", false).map_err(|_| missing())?;
    let i =
        (0..rows.len()).find(|&i| rows.get(i).is_some_and(|r| text(r, "name") == Some(layer))).ok_or_else(missing)?;
    match rows {
        RowsMut::Tables(a) => Ok(a.get_mut(i).expect("found above")),
        RowsMut::Inline(a) => Ok(a.get_mut(i).and_then(Value::as_inline_table_mut).expect("found above")),
    }
}

fn add_state(
    doc: &mut DocumentMut,
    name: &str,
    layer: Option<&str>,
    clip: Option<&str>,
    position: [f64; 2],
) -> Result<(), EditError> {
    let name = checked_name(name, "state")?;
    if name == ANY {
        return Err(EditError::new("`any` is reserved for transitions from any state"));
    }
    if names(doc, "states").iter().any(|n| n == name) {
        return Err(EditError::new(format!("a state `{name}` exists; pick another name")));
    }
    let layer = layer.filter(|l| *l != "base");
    // Check the layer first, so a refused edit changes nothing.
    let table = layer_table(doc, layer.unwrap_or("base"))?;
    let needs_entry = text(table, "entry").is_none_or(str::is_empty);
    let mut fields = vec![("name", Item::Value(name.into()))];
    if let Some(l) = layer {
        fields.push(("layer", Item::Value(l.into())));
    }
    if let Some(c) = clip.filter(|c| !c.is_empty()) {
        fields.push(("clip", Item::Value(c.into())));
    }
    fields.push(("position", Item::Value(point(position)?)));
    RowsMut::of(doc.as_table_mut(), "states", true)?.push(fields);
    if needs_entry {
        set(layer_table(doc, layer.unwrap_or("base"))?, "entry", name.into());
    }
    Ok(())
}

fn state_layer(doc: &mut DocumentMut, state: usize) -> Result<(String, String), EditError> {
    let mut rows = RowsMut::of(doc.as_table_mut(), "states", false)?;
    let row = rows.get(state).ok_or_else(|| EditError::new(format!("no states[{state}]")))?;
    let name = text(row, "name").unwrap_or_default().to_owned();
    Ok((name, text(row, "layer").unwrap_or("base").to_owned()))
}

fn delete_state(doc: &mut DocumentMut, state: usize) -> Result<(), EditError> {
    let (name, _) = state_layer(doc, state)?;
    RowsMut::of(doc.as_table_mut(), "states", false)?.retain_indices(|i| i != state);
    if let Ok(mut list) = RowsMut::of(doc.as_table_mut(), "transitions", false) {
        let touching: Vec<bool> = (0..list.len())
            .map(|i| list.get(i).is_some_and(|t| text(t, "from") == Some(&name) || text(t, "to") == Some(&name)))
            .collect();
        list.retain_indices(|i| !touching[i]);
    }
    // The states of a deleted sub-state machine stay, outside it.
    if let Ok(mut rows) = RowsMut::of(doc.as_table_mut(), "states", false) {
        for i in 0..rows.len() {
            if let Some(row) = rows.get(i)
                && text(row, "machine") == Some(name.as_str())
            {
                row.remove("machine");
            }
        }
    }
    Ok(())
}

/// Sets `key` to `new` in every row of `list` where it is `old`.
fn rename_in(doc: &mut DocumentMut, list: &str, keys: &[&str], old: &str, new: &str) {
    let Ok(mut rows) = RowsMut::of(doc.as_table_mut(), list, false) else { return };
    for i in 0..rows.len() {
        let Some(row) = rows.get(i) else { continue };
        for key in keys {
            if text(row, key) == Some(old) {
                set(row, key, new.into());
            }
        }
    }
}

fn rename_state(doc: &mut DocumentMut, state: usize, new: &str) -> Result<(), EditError> {
    let new = checked_name(new, "state")?;
    let (old, layer) = state_layer(doc, state)?;
    if new == old {
        return Ok(());
    }
    if new == ANY || names(doc, "states").iter().any(|n| n == new) {
        return Err(EditError::new(format!("`{new}` is taken; pick another name")));
    }
    if let Some(row) = RowsMut::of(doc.as_table_mut(), "states", false)?.get(state) {
        set(row, "name", new.into());
    }
    rename_in(doc, "transitions", &["from", "to"], &old, new);
    // Sub-state machines name their entry, and their states the machine.
    rename_in(doc, "states", &["machine", "entry"], &old, new);
    if let Ok(t) = layer_table(doc, &layer)
        && text(t, "entry") == Some(old.as_str())
    {
        set(t, "entry", new.into());
    }
    Ok(())
}

fn set_entry(doc: &mut DocumentMut, state: usize) -> Result<(), EditError> {
    let (name, layer) = state_layer(doc, state)?;
    set(layer_table(doc, &layer)?, "entry", name.as_str().into());
    Ok(())
}

fn place(doc: &mut DocumentMut, states: &[(usize, [f64; 2])], any: &[(usize, [f64; 2])]) -> Result<(), EditError> {
    for (i, p) in states {
        let value = point(*p)?;
        let mut rows = RowsMut::of(doc.as_table_mut(), "states", false)?;
        let row = rows.get(*i).ok_or_else(|| EditError::new(format!("no states[{i}]")))?;
        set(row, "position", value);
    }
    for (layer, p) in any {
        let value = point(*p)?;
        if *layer == 0 {
            set(doc.as_table_mut(), "any_position", value);
        } else {
            let mut rows = RowsMut::of(doc.as_table_mut(), "layers", false)?;
            let row = rows.get(layer - 1).ok_or_else(|| EditError::new(format!("no layers[{}]", layer - 1)))?;
            set(row, "any_position", value);
        }
    }
    Ok(())
}

fn add_transition(doc: &mut DocumentMut, from: &str, to: &str, conditions: &[String]) -> Result<(), EditError> {
    let from = if from.trim() == ANY { ANY } else { checked_name(from, "state")? };
    let to = checked_name(to, "state")?;
    let mut fields = vec![("from", Item::Value(from.into())), ("to", Item::Value(to.into()))];
    let conditions: Vec<&str> = conditions.iter().map(|c| c.trim()).filter(|c| !c.is_empty()).collect();
    if !conditions.is_empty() {
        let mut a = Array::new();
        for c in conditions {
            a.push(c);
        }
        fields.push(("conditions", Item::Value(Value::Array(a))));
    }
    RowsMut::of(doc.as_table_mut(), "transitions", true)?.push(fields);
    Ok(())
}

fn add_parameter(doc: &mut DocumentMut, name: &str, ty: &str, default: Option<&Json>) -> Result<(), EditError> {
    let name = checked_name(name, "parameter")?;
    if names(doc, "parameters").iter().any(|n| n == name) {
        return Err(EditError::new(format!("a parameter `{name}` exists; pick another name")));
    }
    let default = match (ty, default) {
        (_, None | Some(Json::Null)) => None,
        ("float", Some(Json::Number(n))) => n.as_f64().filter(|f| f.is_finite()).map(Value::from),
        ("int", Some(Json::Number(n))) => n.as_i64().filter(|i| i32::try_from(*i).is_ok()).map(Value::from),
        ("bool", Some(Json::Bool(b))) => Some(Value::from(*b)),
        ("float" | "int" | "bool", Some(v)) => {
            return Err(EditError::new(format!("{v} is not a default for a {ty} parameter")));
        }
        ("trigger", Some(_)) => return Err(EditError::new("a trigger has no default")),
        _ => None,
    };
    if !["float", "int", "bool", "trigger"].contains(&ty) {
        return Err(EditError::new(format!("unknown parameter type `{ty}`; expected float, int, bool or trigger")));
    }
    let mut fields = vec![("name", Item::Value(name.into())), ("type", Item::Value(ty.into()))];
    if let Some(d) = default {
        fields.push(("default", Item::Value(d)));
    }
    RowsMut::of(doc.as_table_mut(), "parameters", true)?.push(fields);
    Ok(())
}

fn rename_parameter(doc: &mut DocumentMut, parameter: usize, new: &str) -> Result<(), EditError> {
    let new = checked_name(new, "parameter")?;
    if new.contains(char::is_whitespace) || new.contains(['<', '>', '=', '!']) {
        return Err(EditError::new("a parameter used in conditions has no spaces and no `< > = !`"));
    }
    let old = row_name(doc, "parameters", parameter, "name")?;
    if old == new {
        return Ok(());
    }
    if names(doc, "parameters").iter().any(|n| n == new) {
        return Err(EditError::new(format!("a parameter `{new}` exists; pick another name")));
    }
    if let Some(row) = RowsMut::of(doc.as_table_mut(), "parameters", false)?.get(parameter) {
        set(row, "name", new.into());
    }
    // Conditions naming it.
    if let Ok(mut list) = RowsMut::of(doc.as_table_mut(), "transitions", false) {
        for i in 0..list.len() {
            let Some(Item::Value(Value::Array(conds))) = list.get(i).and_then(|t| t.get_mut("conditions")) else {
                continue;
            };
            for c in conds.iter_mut() {
                let Some(s) = c.as_str() else { continue };
                let t = s.trim();
                let (name, _) = zoa_anim_assets::defs::split_condition(t);
                if name == old {
                    let renamed = format!("{new}{}", &t[name.len()..]);
                    let decor = c.decor().clone();
                    *c = Value::from(renamed);
                    *c.decor_mut() = decor;
                }
            }
        }
    }
    // Blend-tree axes naming it.
    if let Ok(mut list) = RowsMut::of(doc.as_table_mut(), "states", false) {
        for i in 0..list.len() {
            let Some(tree) = list.get(i).and_then(|s| s.get_mut("blend_tree")).and_then(Item::as_table_like_mut) else {
                continue;
            };
            for key in ["parameter", "parameter_y"] {
                if text(tree, key) == Some(old.as_str()) {
                    set(tree, key, new.into());
                }
            }
        }
    }
    Ok(())
}

/// The field path `key` (`a` or `a.b`, at most three parts of `a-z0-9_`).
fn key_path(target: Target, key: &str) -> Result<Vec<&str>, EditError> {
    let parts: Vec<&str> = key.split('.').collect();
    let ok = parts.len() <= 3
        && parts
            .iter()
            .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_'));
    if !ok {
        return Err(EditError::new(format!("`{key}` is not a field the canvas edits")));
    }
    let structural = ["kind", "id", "states", "transitions", "parameters", "layers"];
    if target == Target::Graph && structural.contains(&parts[0]) {
        return Err(EditError::new(format!("`{key}` is not set through a field edit")));
    }
    Ok(parts)
}

fn set_field(doc: &mut DocumentMut, target: Target, key: &str, value: &Json) -> Result<(), EditError> {
    let parts = key_path(target, key)?;
    let list = match target {
        Target::Graph => None,
        Target::State(i) => Some(("states", i)),
        Target::Transition(i) => Some(("transitions", i)),
        Target::Parameter(i) => Some(("parameters", i)),
        Target::Layer(i) => Some(("layers", i)),
    };
    // The row, and whether it is a standard table (`[[..]]`, or the graph itself).
    let (row, is_table): (&mut dyn TableLike, bool) = match list {
        None => (doc.as_table_mut(), true),
        Some((list, i)) => {
            let missing = || EditError::new(format!("no {list}[{i}]"));
            match RowsMut::of(doc.as_table_mut(), list, false)? {
                RowsMut::Tables(a) => (a.get_mut(i).ok_or_else(missing)?, true),
                RowsMut::Inline(a) => (a.get_mut(i).and_then(Value::as_inline_table_mut).ok_or_else(missing)?, false),
            }
        }
    };
    // A state plays a clip or a blend tree, or is a sub-state machine with
    // an `entry`: setting one removes the others.
    if matches!(target, Target::State(_)) && parts.len() == 1 && !value.is_null() {
        let motions = ["clip", "blend_tree", "entry"];
        if motions.contains(&parts[0]) {
            for other in motions.iter().filter(|m| **m != parts[0]) {
                drop(row.remove(other));
            }
        }
    }
    set_path(row, is_table, &parts, value)
}

/// Sets (or with `null` removes) the field at `parts` below `row`; `is_table`:
/// `row` is a standard table, so a new sub-table holding rows may be one too.
fn set_path(row: &mut dyn TableLike, is_table: bool, parts: &[&str], value: &Json) -> Result<(), EditError> {
    let (first, rest) = parts.split_first().expect("at least one part");
    if rest.is_empty() {
        if value.is_null() {
            row.remove(first);
            return Ok(());
        }
        return match row.get_mut(first) {
            Some(item) => merge_item(item, value),
            None => {
                insert(row, first, new_item(is_table, value)?);
                Ok(())
            }
        };
    }
    let child_is_table = matches!(row.get(first), Some(Item::Table(_)));
    if row.get(first).is_none_or(|i| i.as_table_like().is_none()) {
        if value.is_null() {
            return Ok(());
        }
        insert(row, first, Item::Value(Value::InlineTable(InlineTable::new())));
    }
    let child = row.get_mut(first).and_then(Item::as_table_like_mut).expect("a table from above");
    set_path(child, child_is_table, rest, value)?;
    if child.is_empty() {
        row.remove(first);
    }
    Ok(())
}

/// A new field's item: a `[a.b]` table for an object holding rows under a
/// standard table (as the fixtures write blend trees), else a value.
fn new_item(is_table: bool, value: &Json) -> Result<Item, EditError> {
    let holds_rows = |m: &Map<String, Json>| {
        m.values().any(|v| v.as_array().is_some_and(|a| !a.is_empty() && a.iter().all(Json::is_object)))
    };
    match value {
        Json::Object(m) if is_table && holds_rows(m) => {
            let mut t = Table::new();
            for (k, v) in ordered(m) {
                t.insert(k, Item::Value(to_value(v)?));
            }
            Ok(Item::Table(t))
        }
        _ => Ok(Item::Value(to_value(value)?)),
    }
}

/// Numbers equal as numbers (`0` and `0.0`), everything else as JSON.
fn same(a: &Json, b: &Json) -> bool {
    match (a, b) {
        (Json::Number(x), Json::Number(y)) => x.as_f64() == y.as_f64(),
        _ => a == b,
    }
}

/// Puts `new` into `item`, keeping whatever is unchanged as it is written
/// (a table's other keys and comments, an array's unchanged elements).
pub(super) fn merge_item(item: &mut Item, new: &Json) -> Result<(), EditError> {
    match (item.as_table_like_mut(), new) {
        (Some(t), Json::Object(m)) => merge_table(t, m),
        _ => match item {
            Item::Value(v) => merge_value(v, new),
            other => {
                *other = Item::Value(to_value(new)?);
                Ok(())
            }
        },
    }
}

fn merge_table(t: &mut dyn TableLike, m: &Map<String, Json>) -> Result<(), EditError> {
    let gone: Vec<String> =
        t.iter().map(|(k, _)| k.to_owned()).filter(|k| m.get(k).is_none_or(Json::is_null)).collect();
    for k in gone {
        t.remove(&k);
    }
    for (k, v) in ordered(m) {
        match t.get_mut(k) {
            Some(item) => merge_item(item, v)?,
            None => insert(t, k, Item::Value(to_value(v)?)),
        }
    }
    Ok(())
}

fn merge_value(old: &mut Value, new: &Json) -> Result<(), EditError> {
    match (old, new) {
        (Value::InlineTable(t), Json::Object(m)) => merge_table(t, m),
        (Value::Array(a), Json::Array(items)) => {
            while a.len() > items.len() {
                a.remove(a.len() - 1);
            }
            for (i, v) in items.iter().enumerate() {
                match a.get_mut(i) {
                    Some(old) => merge_value(old, v)?,
                    None => {
                        let mut nv = to_value(v)?;
                        if let Some(last) = a.iter().last() {
                            *nv.decor_mut() = last.decor().clone();
                        }
                        a.push_formatted(nv);
                    }
                }
            }
            Ok(())
        }
        (old, new) if same(&to_json(&Item::Value(old.clone())), new) => Ok(()),
        (old, new) => {
            let mut item = Item::Value(old.clone());
            replace(&mut item, to_value(new)?);
            if let Item::Value(v) = item {
                *old = v;
            }
            Ok(())
        }
    }
}

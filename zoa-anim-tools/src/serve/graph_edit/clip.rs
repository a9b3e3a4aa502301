//! The clip editor's edits of a `clip` definition: rate, loop hint and
//! notifies, written in the style the file already uses (`"Name@seconds"`
//! strings or `{ name, time }` tables), everything else kept as it is.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value as Json, json};
use toml_edit::{Item, TableLike, Value};

use super::rows::{set, text, to_json, to_value};
use super::{EditError, parse};

/// A notify as the editor shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Notify {
    /// Event name.
    pub name: String,
    /// Seconds from the start of the animation.
    pub time: f64,
}

/// A clip definition as the clip editor reads it (leniently: a broken file
/// still shows what can be read).
#[derive(Debug, Serialize)]
pub struct ClipView {
    /// `id`.
    pub id: Option<String>,
    /// `source`, as written.
    pub source: Option<String>,
    /// `animation` (name or index), as written.
    pub animation: Json,
    /// `rate`, when written.
    pub rate: Option<f64>,
    /// `loop`, when written.
    #[serde(rename = "loop")]
    pub looping: Option<bool>,
    /// The notifies in file order (items that do not read are left out).
    pub notifies: Vec<Notify>,
}

fn notify_of(v: &Value) -> Option<Notify> {
    match v {
        Value::String(s) => {
            let (name, time) = s.value().rsplit_once('@')?;
            Some(Notify { name: name.to_owned(), time: time.trim().parse().ok()? })
        }
        Value::InlineTable(t) => {
            let time = t.get("time").and_then(|v| v.as_float().or_else(|| v.as_integer().map(|i| i as f64)))?;
            Some(Notify { name: t.get("name")?.as_str()?.to_owned(), time })
        }
        _ => None,
    }
}

/// Reads `text` as the clip editor shows it.
pub fn view(text_: &str) -> Result<ClipView, EditError> {
    let doc = parse(text_)?;
    let root: &dyn TableLike = doc.as_table();
    let notifies = match root.get("notifies") {
        Some(Item::Value(Value::Array(a))) => a.iter().filter_map(notify_of).collect(),
        Some(Item::ArrayOfTables(a)) => a
            .iter()
            .filter_map(|t| {
                let time = t.get("time")?.as_value()?;
                let time = time.as_float().or_else(|| time.as_integer().map(|i| i as f64))?;
                Some(Notify { name: t.get("name")?.as_str()?.to_owned(), time })
            })
            .collect(),
        _ => Vec::new(),
    };
    Ok(ClipView {
        id: text(root, "id").map(str::to_owned),
        source: text(root, "source").map(str::to_owned),
        animation: root.get("animation").map_or(Json::Null, to_json),
        rate: root.get("rate").and_then(|v| v.as_float().or_else(|| v.as_integer().map(|i| i as f64))),
        looping: root.get("loop").and_then(Item::as_bool),
        notifies,
    })
}

fn checked_notify(n: &Notify) -> Result<(), EditError> {
    if n.name.trim().is_empty() || n.name.chars().any(char::is_control) || n.name.len() > 128 {
        return Err(EditError::new("a notify's name is 1 to 128 characters, without control characters"));
    }
    if !(n.time.is_finite() && n.time >= 0.0) {
        return Err(EditError::new(format!("notify `{}`: its time is a number of seconds >= 0", n.name)));
    }
    Ok(())
}

/// `text` with the fields in `fields` set (`rate`, `loop`, `notifies`; `null` removes one).
pub fn apply(text_: &str, fields: &Map<String, Json>) -> Result<String, EditError> {
    let mut doc = parse(text_)?;
    if doc.get("kind").and_then(|k| k.as_str()) != Some("clip") {
        return Err(EditError::new("the clip editor edits `clip` definitions only"));
    }
    for (key, value) in fields {
        match key.as_str() {
            "rate" | "loop" if value.is_null() => drop(doc.remove(key)),
            "rate" if value.as_f64().is_some_and(|r| r.is_finite() && r > 0.0) => {
                set(doc.as_table_mut(), "rate", to_value(value)?);
            }
            "loop" if value.is_boolean() => set(doc.as_table_mut(), "loop", to_value(value)?),
            "notifies" => set_notifies(&mut doc, value)?,
            "rate" => return Err(EditError::new("`rate` is a number > 0")),
            "loop" => return Err(EditError::new("`loop` is true or false")),
            other => return Err(EditError::new(format!("`{other}` is not a field the clip editor edits"))),
        }
    }
    Ok(doc.to_string())
}

fn set_notifies(doc: &mut toml_edit::DocumentMut, value: &Json) -> Result<(), EditError> {
    let list: Vec<Notify> = match value {
        Json::Null => Vec::new(),
        v => serde_json::from_value(v.clone()).map_err(|e| EditError::new(format!("notifies: {e}")))?,
    };
    for n in &list {
        checked_notify(n)?;
    }
    if list.is_empty() {
        doc.remove("notifies");
        return Ok(());
    }
    // The file's style: tables when its notifies are tables, else `Name@seconds`.
    let tables = match doc.get("notifies") {
        Some(Item::Value(Value::Array(a))) => a.iter().next().is_some_and(Value::is_inline_table),
        Some(Item::ArrayOfTables(_)) => true,
        _ => false,
    };
    let items: Vec<Json> =
        list.iter()
            .map(|n| {
                if tables { json!({ "name": n.name, "time": n.time }) } else { json!(format!("{}@{}", n.name, n.time)) }
            })
            .collect();
    match doc.get_mut("notifies") {
        Some(item @ Item::Value(_)) => super::ops::merge_item(item, &Json::Array(items)),
        _ => {
            doc.remove("notifies");
            set(doc.as_table_mut(), "notifies", to_value(&Json::Array(items))?);
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(v: Json) -> Map<String, Json> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn notifies_keep_the_files_style_and_the_rest_is_untouched() {
        let walk = "kind = \"clip\"\nid = \"walk\"\nsource = \"m.glb\" # the model\nloop = true\nnotifies = [\"Footstep@0.1\", \"Footstep@0.5\"]\n";
        let v = view(walk).unwrap();
        assert_eq!(
            v.notifies,
            [Notify { name: "Footstep".into(), time: 0.1 }, Notify { name: "Footstep".into(), time: 0.5 }]
        );
        let out = apply(
            walk,
            &fields(json!({ "notifies": [{ "name": "Footstep", "time": 0.1 }, { "name": "Footstep", "time": 0.3 }], "rate": 1.25 })),
        )
        .unwrap();
        assert_eq!(
            out,
            "kind = \"clip\"\nid = \"walk\"\nsource = \"m.glb\" # the model\nloop = true\nnotifies = [\"Footstep@0.1\", \"Footstep@0.3\"]\nrate = 1.25\n"
        );
        let run = "kind = \"clip\"\nid = \"run\"\nnotifies = [{ name = \"Footstep\", time = 0.1 }, { name = \"Footstep\", time = 0.4 }]\n";
        let out = apply(run, &fields(json!({ "notifies": [{ "name": "Footstep", "time": 0.1 }, { "name": "Step", "time": 0.45 }], "loop": false })))
            .unwrap();
        assert_eq!(
            out,
            "kind = \"clip\"\nid = \"run\"\nnotifies = [{ name = \"Footstep\", time = 0.1 }, { name = \"Step\", time = 0.45 }]\nloop = false\n"
        );
        // No notifies left: the field goes; a new list is written as strings.
        let bare = apply(run, &fields(json!({ "notifies": [] }))).unwrap();
        assert_eq!(bare, "kind = \"clip\"\nid = \"run\"\n");
        let added = apply(&bare, &fields(json!({ "notifies": [{ "name": "Hit", "time": 2 }] }))).unwrap();
        assert!(added.ends_with("notifies = [\"Hit@2\"]\n"), "{added}");
    }

    #[test]
    fn refused_clip_edits_say_why() {
        let clip = "kind = \"clip\"\nid = \"c\"\n";
        let refuse = |v: Json| apply(clip, &fields(v)).unwrap_err().0;
        assert!(refuse(json!({ "rate": 0 })).contains("> 0"));
        assert!(refuse(json!({ "loop": "yes" })).contains("true or false"));
        assert!(refuse(json!({ "source": "x.glb" })).contains("not a field"));
        assert!(refuse(json!({ "notifies": [{ "name": "", "time": 1 }] })).contains("name"));
        assert!(refuse(json!({ "notifies": [{ "name": "a", "time": -1 }] })).contains(">= 0"));
        assert!(apply("kind = \"animation_graph\"\nid = \"g\"\n", &Map::new()).is_err());
    }
}

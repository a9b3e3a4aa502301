//! What the canvas draws: an animation-graph definition read leniently from
//! its text (a graph that does not validate still shows, with its problems
//! at the node or arrow they concern).

use serde::Serialize;
use serde_json::Value as Json;
use toml_edit::{DocumentMut, TableLike};
use zoa_anim_core::graph::{Nesting, reachable_states};

use super::rows::{rows, table_json, text};
use super::{ANY, EditError, parse};

/// A graph as the canvas sees it. Indices are those of the file's rows
/// (`states[3]` is state 3), so edits and diagnostics name the same rows.
#[derive(Debug, Serialize)]
pub struct GraphView {
    /// `id`, when written.
    pub id: Option<String>,
    /// `model`, as written (relative to the definition file).
    pub model: Option<String>,
    /// Parameters in file order.
    pub parameters: Vec<RowView>,
    /// Layers: the implicit `base` first, then each `[[layers]]` row.
    pub layers: Vec<LayerView>,
    /// States in file order.
    pub states: Vec<StateView>,
    /// Transitions in file (firing) order.
    pub transitions: Vec<TransitionView>,
}

/// A row the page reads field by field (`fields` is the row as written).
#[derive(Debug, Serialize)]
pub struct RowView {
    /// Index among the file's rows of its list.
    pub index: usize,
    /// The row's fields as JSON.
    pub fields: Json,
}

/// A layer.
#[derive(Debug, Serialize)]
pub struct LayerView {
    /// `[[layers]]` row index (`None`: the implicit base layer).
    pub row: Option<usize>,
    /// Its name (`base` for the base layer).
    pub name: String,
    /// Its entry state's name, when written.
    pub entry: Option<String>,
    /// Where its Any State node is drawn, when written.
    pub any_position: Option<[f64; 2]>,
}

/// A state.
#[derive(Debug, Serialize)]
pub struct StateView {
    /// Row index.
    pub index: usize,
    /// Its name (empty when missing).
    pub name: String,
    /// Index of its layer in [`GraphView::layers`] (0 when the layer is unknown).
    pub layer: usize,
    /// The layer's entry state.
    pub entry: bool,
    /// Some transition path reaches it from its layer's entry (W003's rule).
    pub reachable: bool,
    /// Where it is drawn, when written.
    pub position: Option<[f64; 2]>,
    /// The row as written.
    pub fields: Json,
}

/// A transition.
#[derive(Debug, Serialize)]
pub struct TransitionView {
    /// Row index.
    pub index: usize,
    /// Source state index (`None`: `any`, or a name no state has).
    pub from_state: Option<usize>,
    /// `from = "any"`.
    pub from_any: bool,
    /// Target state index (`None`: a name no state has).
    pub to_state: Option<usize>,
    /// Layer of its states.
    pub layer: usize,
    /// Neither exit time nor conditions: it fires the moment its source is entered (W002's rule).
    pub unconditional: bool,
    /// Its conditions, each split into parameter and test (the reader's split).
    pub conditions: Vec<ConditionView>,
    /// The row as written.
    pub fields: Json,
}

/// One condition as its text reads (nothing checked: the diagnostics say what is wrong).
#[derive(Debug, Serialize)]
pub struct ConditionView {
    /// The text as written.
    pub text: String,
    /// The parameter it names.
    pub parameter: String,
    /// `is` or a comparison operator; `None` for a bare trigger name.
    pub op: Option<String>,
    /// What it compares with (`true`, `1.5`).
    pub value: Option<String>,
}

fn point(row: &dyn TableLike, key: &str) -> Option<[f64; 2]> {
    let a = row.get(key)?.as_array()?;
    match (a.len(), a.get(0).and_then(as_f64), a.get(1).and_then(as_f64)) {
        (2, Some(x), Some(y)) => Some([x, y]),
        _ => None,
    }
}

fn as_f64(v: &toml_edit::Value) -> Option<f64> {
    v.as_float().or_else(|| v.as_integer().map(|i| i as f64))
}

/// Reads `text` as the canvas shows it.
pub fn view(text_: &str) -> Result<GraphView, EditError> {
    let doc = parse(text_)?;
    Ok(view_of(&doc))
}

fn view_of(doc: &DocumentMut) -> GraphView {
    let root: &dyn TableLike = doc.as_table();
    let mut layers = vec![LayerView {
        row: None,
        name: "base".into(),
        entry: text(root, "entry").map(str::to_owned),
        any_position: point(root, "any_position"),
    }];
    for (i, row) in rows(root, "layers").into_iter().enumerate() {
        let Some(row) = row else { continue };
        layers.push(LayerView {
            row: Some(i),
            name: text(row, "name").unwrap_or_default().to_owned(),
            entry: text(row, "entry").map(str::to_owned),
            any_position: point(row, "any_position"),
        });
    }
    let mut states: Vec<StateView> = Vec::new();
    for (i, row) in rows(root, "states").into_iter().enumerate() {
        let Some(row) = row else { continue };
        let layer = text(row, "layer").and_then(|l| layers.iter().position(|x| x.name == l)).unwrap_or(0);
        let name = text(row, "name").unwrap_or_default().to_owned();
        let entry = layers[layer].entry.as_deref() == Some(name.as_str())
            && !states.iter().any(|s| s.name == name && s.layer == layer);
        states.push(StateView {
            index: i,
            name,
            layer,
            entry,
            reachable: true,
            position: point(row, "position"),
            fields: table_json(row),
        });
    }
    let find = |name: &str| states.iter().find(|s| s.name == name).map(|s| s.index);
    let mut transitions = Vec::new();
    for (i, row) in rows(root, "transitions").into_iter().enumerate() {
        let Some(row) = row else { continue };
        let from = text(row, "from").unwrap_or_default();
        let from_any = from == ANY;
        let from_state = if from_any { None } else { find(from) };
        let to_state = text(row, "to").and_then(find);
        let layer_of = |s: usize| states.iter().find(|x| x.index == s).map_or(0, |x| x.layer);
        let layer = to_state.or(from_state).map_or(0, layer_of);
        let conditions: Vec<ConditionView> = row
            .get("conditions")
            .and_then(|c| c.as_array())
            .map(|a| a.iter().filter_map(|c| c.as_str()).map(condition).collect())
            .unwrap_or_default();
        let has_conditions = row.get("conditions").and_then(|c| c.as_array()).is_some_and(|a| !a.is_empty());
        transitions.push(TransitionView {
            index: i,
            from_state,
            from_any,
            to_state,
            layer,
            unconditional: !has_conditions && !row.contains_key("exit_time"),
            conditions,
            fields: table_json(row),
        });
    }
    mark_reachable(&layers, &mut states, &transitions);
    let parameters = rows(root, "parameters")
        .into_iter()
        .enumerate()
        .filter_map(|(i, r)| r.map(|r| RowView { index: i, fields: table_json(r) }))
        .collect();
    GraphView {
        id: text(root, "id").map(str::to_owned),
        model: text(root, "model").map(str::to_owned),
        parameters,
        layers,
        states,
        transitions,
    }
}

fn condition(text: &str) -> ConditionView {
    let (parameter, test) = zoa_anim_assets::defs::split_condition(text);
    ConditionView {
        text: text.to_owned(),
        parameter: parameter.to_owned(),
        op: test.map(|(op, _)| op.to_owned()),
        value: test.map(|(_, v)| v.to_owned()),
    }
}

/// Marks each state a transition path reaches from its layer's entry, by
/// the core's rule (the one `validate`'s W003 uses, sub-state machines included).
fn mark_reachable(layers: &[LayerView], states: &mut [StateView], transitions: &[TransitionView]) {
    // States by position in `states` (rows that are not tables are skipped there).
    let at = |row: usize| states.iter().position(|s| s.index == row);
    let entries: Vec<usize> = layers
        .iter()
        .enumerate()
        .filter_map(|(li, l)| {
            let e = l.entry.as_deref()?;
            states.iter().position(|s| s.layer == li && s.name == e)
        })
        .collect();
    let edges: Vec<(Option<usize>, usize)> = transitions
        .iter()
        .filter_map(|t| {
            let to = at(t.to_state?)?;
            match (t.from_any, t.from_state) {
                (true, _) => Some((None, to)),
                (false, Some(f)) => Some((Some(at(f)?), to)),
                (false, None) => None,
            }
        })
        .collect();
    // Sub-state machines by name: `machine` (the one a state is inside) and
    // a machine's `entry`, as written.
    let named = |s: &StateView, key: &str| {
        let name = s.fields.get(key)?.as_str()?;
        states.iter().position(|o| o.name == name)
    };
    let nesting: Vec<Nesting> =
        states.iter().map(|s| Nesting { within: named(s, "machine"), entry: named(s, "entry") }).collect();
    let reached = reachable_states(states.len(), entries, &edges, &nesting);
    for (s, r) in states.iter_mut().zip(reached) {
        s.reachable = r;
    }
}

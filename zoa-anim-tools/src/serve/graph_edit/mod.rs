//! The graph canvas's edits of an `animation_graph` definition, made on its
//! TOML text with `toml_edit`: the one place the Workbench changes a
//! definition file by structure rather than by text (the clip editor's
//! fields are in [`clip`], on the same helpers).
//!
//! The page holds the file's text (saved or not) and sends it with a list
//! of [`Edit`]s; [`apply`] returns the new text, and [`view`] what the canvas
//! draws of a text. Untouched parts keep their comments, spacing and field
//! order; a changed value keeps the layout around it; new rows are written
//! as the file writes its rows (`[[states]]` tables or an inline array).
//! Undo is the page's: it keeps the texts. Saving is the ordinary safe save
//! (`/api/save`: version check, 409 on a concurrent edit).
//!
//! Rows are named by their index in the file (`states[3]`), as `validate`'s
//! diagnostics name them ([`target_of`]), so a problem lands on the node or
//! arrow it concerns.
//!
//! Node positions live in the definition file (`position = [x, y]` on a
//! state, `any_position` on the graph and on each `[[layers]]` row): one
//! file per graph, versioned and stale-checked with it, carried along by a
//! copy or a rename; the reader checks them and the runtime ignores them.

pub mod clip;
mod ops;
mod rows;
mod view;

use serde::Deserialize;
use serde_json::Value as Json;
use toml_edit::DocumentMut;

pub use view::view;

/// The `from` of a transition out of any state.
pub(crate) const ANY: &str = "any";

/// Most edits one request may carry.
pub const MAX_EDITS: usize = 1_000;

/// Why an edit cannot be made (the page shows it; nothing changes).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EditError(pub String);

impl EditError {
    pub(crate) fn new(message: impl Into<String>) -> EditError {
        EditError(message.into())
    }
}

impl std::fmt::Display for EditError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// What an edit or a diagnostic is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Target {
    /// The graph's own fields (`model`, `entry`, `any_position`).
    Graph,
    /// `states[i]`.
    State(usize),
    /// `transitions[i]`.
    Transition(usize),
    /// `parameters[i]`.
    Parameter(usize),
    /// `layers[i]` (the `[[layers]]` row; the base layer is [`Target::Graph`]).
    Layer(usize),
}

/// One canvas edit. States, transitions and parameters are named by row index.
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case", deny_unknown_fields)]
pub enum Edit {
    /// A new state on `layer` (base when `None`) at `position`, playing
    /// `clip` when given; it becomes the layer's entry when the layer has none.
    AddState {
        /// State name.
        name: String,
        /// Layer name.
        #[serde(default)]
        layer: Option<String>,
        /// Clip reference.
        #[serde(default)]
        clip: Option<String>,
        /// Canvas position.
        position: [f64; 2],
    },
    /// Removes a state and every transition from or to it.
    DeleteState {
        /// Row index.
        state: usize,
    },
    /// Renames a state and every transition and entry naming it.
    RenameState {
        /// Row index.
        state: usize,
        /// New name.
        name: String,
    },
    /// Makes a state its layer's entry.
    SetEntry {
        /// Row index.
        state: usize,
    },
    /// Writes the positions of states and of layers' Any State nodes.
    Place {
        /// (state row, position).
        #[serde(default)]
        states: Vec<(usize, [f64; 2])>,
        /// (layer index, 0 = base, position).
        #[serde(default)]
        any: Vec<(usize, [f64; 2])>,
    },
    /// A new transition (last in firing order).
    AddTransition {
        /// Source state name, or `any`.
        from: String,
        /// Target state name.
        to: String,
        /// Condition texts.
        #[serde(default)]
        conditions: Vec<String>,
    },
    /// Removes a transition.
    DeleteTransition {
        /// Row index.
        transition: usize,
    },
    /// Swaps two transitions in firing order.
    SwapTransitions {
        /// Row index.
        a: usize,
        /// Row index.
        b: usize,
    },
    /// A new parameter.
    AddParameter {
        /// Name.
        name: String,
        /// `float`, `int`, `bool` or `trigger`.
        #[serde(rename = "type")]
        ty: String,
        /// Default value (none for triggers).
        #[serde(default)]
        default: Option<Json>,
    },
    /// Removes a parameter (conditions naming it stay, and are flagged).
    DeleteParameter {
        /// Row index.
        parameter: usize,
    },
    /// Renames a parameter and every condition and blend-tree axis of the
    /// graph naming it (binding profiles: [`rename_bound_parameter`]).
    RenameParameter {
        /// Row index.
        parameter: usize,
        /// New name.
        name: String,
    },
    /// Sets a field (`key`, dotted for sub-tables: `crossfade.duration`) of
    /// a row or of the graph; `null` removes it. A state's `clip` and
    /// `blend_tree` replace each other.
    Set {
        /// Whose field.
        target: Target,
        /// The field.
        key: String,
        /// The value as JSON.
        value: Json,
    },
}

pub(crate) fn parse(text: &str) -> Result<DocumentMut, EditError> {
    text.parse::<DocumentMut>()
        .map_err(|e| EditError::new(format!("the text is not TOML the canvas can edit: {}", e.message())))
}

/// `text` with `edits` applied in order (all or nothing).
pub fn apply(text: &str, edits: &[Edit]) -> Result<String, EditError> {
    if edits.len() > MAX_EDITS {
        return Err(EditError::new(format!("at most {MAX_EDITS} edits at once")));
    }
    let mut doc = parse(text)?;
    let kind = doc.get("kind").and_then(|k| k.as_str());
    if kind != Some("animation_graph") {
        return Err(EditError::new("the canvas edits `animation_graph` definitions only"));
    }
    for e in edits {
        ops::apply(&mut doc, e)?;
    }
    Ok(doc.to_string())
}

/// What a diagnostic's field path (`states[3].blend_tree.children[1].clip`)
/// is about: the row it starts in, else the graph.
#[must_use]
pub fn target_of(field: &str) -> Target {
    let indexed = |list: &str| {
        let rest = field.strip_prefix(list)?.strip_prefix('[')?;
        rest[..rest.find(']')?].parse::<usize>().ok()
    };
    if let Some(i) = indexed("states") {
        Target::State(i)
    } else if let Some(i) = indexed("transitions") {
        Target::Transition(i)
    } else if let Some(i) = indexed("parameters") {
        Target::Parameter(i)
    } else if let Some(i) = indexed("layers") {
        Target::Layer(i)
    } else {
        Target::Graph
    }
}

/// One line a rename changes, for the page to show before it applies it.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Change {
    /// 1-based line of the old text.
    pub line: usize,
    /// The line before.
    pub before: String,
    /// The line after.
    pub after: String,
}

/// A binding profile's text with every binding to parameter `old` bound to
/// `new` instead, and the lines that change (none: the profile does not bind it).
pub fn rename_bound_parameter(text: &str, old: &str, new: &str) -> Result<(String, Vec<Change>), EditError> {
    let mut doc = parse(text)?;
    if let Ok(mut list) = rows::RowsMut::of(doc.as_table_mut(), "bindings", false) {
        for i in 0..list.len() {
            let Some(b) = list.get(i) else { continue };
            if rows::text(b, "parameter") == Some(old) {
                rows::set(b, "parameter", toml_edit::Value::from(new));
            }
        }
    }
    let out = doc.to_string();
    Ok((out.clone(), changed_lines(text, &out)))
}

/// The lines of `before` that differ in `after` (same line count: renames
/// change values in place).
pub fn changed_lines(before: &str, after: &str) -> Vec<Change> {
    before
        .lines()
        .zip(after.lines())
        .enumerate()
        .filter(|(_, (a, b))| a != b)
        .map(|(i, (a, b))| Change { line: i + 1, before: a.to_owned(), after: b.to_owned() })
        .collect()
}

#[cfg(test)]
mod tests;

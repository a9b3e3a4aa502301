//! Profile inheritance: flatten a child → parent chain into one table.
//!
//! Child rows come first; each distinct key (the pattern, for clip tables; the
//! `(event, tag filter, surface)` triple, for sound profiles) keeps its first
//! occurrence, so a child row replaces the parent row with the same key while
//! unrelated parent rows stay live. Flattening allocates: do it once when the
//! chain changes, never per frame; the resolver takes the flattened table.

use std::collections::HashSet;
use std::hash::Hash;

use crate::CoreError;
use crate::resolver::TaggedRow;
use crate::tags::StateTagSet;

/// Deepest chain accepted (child plus 15 ancestors). Deeper chains are an
/// authoring error, reported instead of walked.
pub const MAX_INHERITANCE_DEPTH: usize = 16;

/// A definition that can name a parent of the same kind and owns keyed rows.
pub trait Inheritable {
    /// One table row.
    type Row: Clone;
    /// What makes two rows "the same row" for overriding.
    type Key: Eq + Hash + Clone;
    /// This definition's id.
    fn id(&self) -> &str;
    /// The parent's id, if any.
    fn parent_id(&self) -> Option<&str>;
    /// Rows in authoring order.
    fn rows(&self) -> &[Self::Row];
    /// The override key of a row.
    fn row_key(row: &Self::Row) -> Self::Key;
    /// Whether rows of this definition with the same key are all kept (as
    /// variants a random pick chooses among) instead of the first only. A
    /// key a closer definition of the chain has is still overridden.
    fn keeps_variants(&self) -> bool {
        false
    }
}

/// A row of a flattened table, with where it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct InheritedRow<R> {
    /// The row.
    pub row: R,
    /// Id of the profile that authored it.
    pub source: String,
    /// Its index within that profile's own rows.
    pub source_index: usize,
}

impl<R: TaggedRow> TaggedRow for InheritedRow<R> {
    #[inline]
    fn pattern(&self) -> StateTagSet {
        self.row.pattern()
    }
    #[inline]
    fn weight(&self) -> f32 {
        self.row.weight()
    }
}

/// The chain from `start` up to its root ancestor, `start` first.
///
/// Errors on a missing parent, a cycle, or a chain longer than
/// [`MAX_INHERITANCE_DEPTH`]; never loops.
pub fn ancestry<'a, P: Inheritable>(
    start: &'a P,
    lookup: impl Fn(&str) -> Option<&'a P>,
) -> Result<Vec<&'a P>, CoreError> {
    let mut chain = vec![start];
    let mut visited: Vec<&str> = vec![start.id()];
    let mut current = start;
    while let Some(parent_id) = current.parent_id() {
        if visited.contains(&parent_id) {
            let mut names: Vec<String> = visited.iter().map(|s| (*s).to_owned()).collect();
            names.push(parent_id.to_owned());
            return Err(CoreError::InheritanceCycle { chain: names });
        }
        if chain.len() >= MAX_INHERITANCE_DEPTH {
            return Err(CoreError::InheritanceTooDeep { start: start.id().to_owned(), limit: MAX_INHERITANCE_DEPTH });
        }
        let parent = lookup(parent_id)
            .ok_or_else(|| CoreError::MissingParent { child: current.id().to_owned(), parent: parent_id.to_owned() })?;
        visited.push(parent.id());
        chain.push(parent);
        current = parent;
    }
    Ok(chain)
}

/// Flattens `start` and its ancestors into one table: child rows first, the
/// first occurrence of each key kept (every one, within a definition that
/// [keeps variants](Inheritable::keeps_variants)).
pub fn flatten_chain<'a, P: Inheritable>(
    start: &'a P,
    lookup: impl Fn(&str) -> Option<&'a P>,
) -> Result<Vec<InheritedRow<P::Row>>, CoreError> {
    let chain = ancestry(start, lookup)?;
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for profile in chain {
        // Keys this definition adds: closer ones override, its own variants stay.
        let mut own = HashSet::new();
        for (i, row) in profile.rows().iter().enumerate() {
            let key = P::row_key(row);
            let fresh = !seen.contains(&key) && (own.insert(key.clone()) || profile.keeps_variants());
            if fresh {
                out.push(InheritedRow { row: row.clone(), source: profile.id().to_owned(), source_index: i });
            }
        }
        seen.extend(own);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    struct P {
        id: &'static str,
        parent: Option<&'static str>,
        rows: Vec<(u32, &'static str)>,
    }
    impl Inheritable for P {
        type Row = (u32, &'static str);
        type Key = u32;
        fn id(&self) -> &str {
            self.id
        }
        fn parent_id(&self) -> Option<&str> {
            self.parent
        }
        fn rows(&self) -> &[Self::Row] {
            &self.rows
        }
        fn row_key(row: &Self::Row) -> u32 {
            row.0
        }
    }

    #[test]
    fn child_overrides_parent_and_keeps_unrelated_rows() {
        let all = [
            P { id: "base", parent: None, rows: vec![(1, "idle"), (2, "walk")] },
            P { id: "wounded", parent: Some("base"), rows: vec![(2, "limp"), (3, "clutch")] },
        ];
        let lookup = |id: &str| all.iter().find(|p| p.id == id);
        let flat = flatten_chain(&all[1], lookup).unwrap();
        let rows: Vec<_> = flat.iter().map(|r| (r.row.1, r.source.as_str())).collect();
        assert_eq!(rows, vec![("limp", "wounded"), ("clutch", "wounded"), ("idle", "base")]);
    }

    #[test]
    fn cycles_missing_parents_and_depth_are_errors() {
        let cyc = [
            P { id: "a", parent: Some("b"), rows: vec![] },
            P { id: "b", parent: Some("a"), rows: vec![] },
            P { id: "self", parent: Some("self"), rows: vec![] },
            P { id: "orphan", parent: Some("nobody"), rows: vec![] },
        ];
        let lookup = |id: &str| cyc.iter().find(|p| p.id == id);
        assert!(matches!(flatten_chain(&cyc[0], lookup), Err(CoreError::InheritanceCycle { .. })));
        assert!(matches!(flatten_chain(&cyc[2], lookup), Err(CoreError::InheritanceCycle { .. })));
        assert!(matches!(flatten_chain(&cyc[3], lookup), Err(CoreError::MissingParent { .. })));

        let names: Vec<String> = (0..40).map(|i| format!("p{i}")).collect();
        let deep: Vec<P> = (0..40)
            .map(|i| P {
                id: Box::leak(names[i].clone().into_boxed_str()),
                parent: names.get(i + 1).map(|s| &*Box::leak(s.clone().into_boxed_str())),
                rows: vec![],
            })
            .collect();
        let lookup = |id: &str| deep.iter().find(|p| p.id == id);
        assert!(matches!(flatten_chain(&deep[0], lookup), Err(CoreError::InheritanceTooDeep { .. })));
    }
}

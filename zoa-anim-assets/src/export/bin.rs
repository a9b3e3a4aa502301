//! The GLB's BIN chunk: 4-byte-aligned buffer views and the accessors over them.

use super::document::{Accessor, BufferView, Document};

// glTF's numeric codes: component types, buffer view targets, the triangle primitive mode.
pub(super) const FLOAT: u32 = 5126;
pub(super) const UNSIGNED_BYTE: u32 = 5121;
pub(super) const UNSIGNED_SHORT: u32 = 5123;
pub(super) const UNSIGNED_INT: u32 = 5125;
pub(super) const ARRAY_BUFFER: u32 = 34962;
pub(super) const ELEMENT_ARRAY_BUFFER: u32 = 34963;
pub(super) const TRIANGLES: u32 = 4;

/// `n` rounded up to a multiple of 4 (GLB chunks and buffer views are 4-byte aligned).
pub(super) fn pad4(n: usize) -> usize {
    n.div_ceil(4) * 4
}

/// Appends 4-byte-aligned buffer views and their accessors.
///
/// Vertex data and inverse bind matrices get one view per accessor (vertex
/// views carry a `target`); all animation data shares a single view, with
/// per-accessor offsets, which keeps the JSON of a clip-heavy file small.
#[derive(Default)]
pub(super) struct BinWriter {
    pub(super) bytes: Vec<u8>,
    /// Animation data waiting for its shared view.
    shared: Vec<u8>,
    /// Accessors that point into `shared`.
    shared_accessors: Vec<usize>,
}

impl BinWriter {
    /// A float accessor in the shared animation view.
    pub(super) fn push_f32_shared(
        &mut self,
        doc: &mut Document,
        data: &[f32],
        ty: &'static str,
        comps: usize,
        bounds: bool,
    ) -> u32 {
        let offset = self.shared.len();
        self.shared.extend(data.iter().flat_map(|v| v.to_le_bytes()));
        let (min, max) = if bounds { bounds_of(data, comps) } else { (None, None) };
        doc.accessors.push(Accessor {
            buffer_view: u32::MAX,
            byte_offset: (offset > 0).then_some(offset),
            component_type: FLOAT,
            count: data.len() / comps,
            ty,
            min,
            max,
        });
        self.shared_accessors.push(doc.accessors.len() - 1);
        doc.accessors.len() as u32 - 1
    }

    /// Writes the shared animation view and points its accessors at it.
    pub(super) fn finish_shared(&mut self, doc: &mut Document) {
        if self.shared.is_empty() {
            return;
        }
        let shared = std::mem::take(&mut self.shared);
        let view = self.push_view(doc, &shared, None);
        for &a in &self.shared_accessors {
            doc.accessors[a].buffer_view = view;
        }
    }

    pub(super) fn push_view(&mut self, doc: &mut Document, data: &[u8], target: Option<u32>) -> u32 {
        self.bytes.resize(pad4(self.bytes.len()), 0);
        let offset = self.bytes.len();
        self.bytes.extend_from_slice(data);
        doc.buffer_views.push(BufferView { buffer: 0, byte_offset: offset, byte_length: data.len(), target });
        doc.buffer_views.len() as u32 - 1
    }

    /// A float accessor of `data.len() / comps` elements, with `min`/`max` when asked.
    pub(super) fn push_f32(
        &mut self,
        doc: &mut Document,
        data: &[f32],
        ty: &'static str,
        comps: usize,
        target: Option<u32>,
        bounds: bool,
    ) -> u32 {
        debug_assert_eq!(data.len() % comps, 0);
        let bytes: Vec<u8> = data.iter().flat_map(|v| v.to_le_bytes()).collect();
        let view = self.push_view(doc, &bytes, target);
        let (min, max) = if bounds { bounds_of(data, comps) } else { (None, None) };
        doc.accessors.push(Accessor {
            buffer_view: view,
            byte_offset: None,
            component_type: FLOAT,
            count: data.len() / comps,
            ty,
            min,
            max,
        });
        doc.accessors.len() as u32 - 1
    }

    /// An integer accessor over already-encoded little-endian bytes.
    pub(super) fn push_raw(
        &mut self,
        doc: &mut Document,
        bytes: &[u8],
        component_type: u32,
        count: usize,
        ty: &'static str,
        target: Option<u32>,
    ) -> u32 {
        let view = self.push_view(doc, bytes, target);
        doc.accessors.push(Accessor {
            buffer_view: view,
            byte_offset: None,
            component_type,
            count,
            ty,
            min: None,
            max: None,
        });
        doc.accessors.len() as u32 - 1
    }
}

/// Per-component minimum and maximum of `comps`-wide elements.
fn bounds_of(data: &[f32], comps: usize) -> (Option<Vec<f32>>, Option<Vec<f32>>) {
    let mut min = vec![f32::INFINITY; comps];
    let mut max = vec![f32::NEG_INFINITY; comps];
    for chunk in data.chunks_exact(comps) {
        for (c, &v) in chunk.iter().enumerate() {
            min[c] = min[c].min(v);
            max[c] = max[c].max(v);
        }
    }
    (Some(min), Some(max))
}

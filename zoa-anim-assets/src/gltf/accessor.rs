//! Accessor layout checks and decoding.
//!
//! [`layout`] proves, from the JSON alone, that every byte an accessor would
//! read lies inside its buffer view and that view inside its buffer's
//! declared `byteLength`; buffer resolution then proves each buffer really
//! has that many bytes. So [`read_f32`] allocates at most a small multiple of
//! the input size, whatever `count` claims. Reads still go through `get` so a
//! broken invariant is an error, not a panic.

use gltf::json;
use gltf::json::accessor::{ComponentType, Type};

/// Element count cap for a sparse accessor without a buffer view (its base
/// is zeros, so nothing in the file bounds `count`): 2^18 elements.
pub(crate) const MAX_SPARSE_ONLY_ELEMENTS: usize = 1 << 18;

/// A byte range inside one buffer.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Span {
    /// Buffer index.
    pub buffer: usize,
    /// Absolute offset of element 0 in the buffer.
    pub offset: usize,
    /// Bytes between consecutive elements.
    pub stride: usize,
}

/// Sparse substitution (glTF 2.0 §5.1.2).
#[derive(Debug, Clone)]
pub(crate) struct SparseLayout {
    pub count: usize,
    pub indices: Span,
    pub index_type: ComponentType,
    pub values: Span,
}

/// Where and how an accessor's data lives, proven in bounds of the declared buffers.
#[derive(Debug, Clone)]
pub(crate) struct Layout {
    pub index: usize,
    pub count: usize,
    pub kind: Type,
    pub component: ComponentType,
    pub normalized: bool,
    pub dense: Option<Span>,
    pub sparse: Option<SparseLayout>,
}

impl Layout {
    pub(crate) fn components(&self) -> usize {
        self.kind.multiplicity()
    }

    fn element_size(&self) -> usize {
        self.components() * self.component.size()
    }

    /// Sets `needed[b]` for every buffer this accessor reads.
    pub(crate) fn mark_buffers(&self, needed: &mut [bool]) {
        let spans = self.dense.iter().chain(self.sparse.iter().flat_map(|s| [&s.indices, &s.values]));
        for span in spans {
            if let Some(flag) = needed.get_mut(span.buffer) {
                *flag = true;
            }
        }
    }
}

pub(crate) fn type_name(t: Type) -> &'static str {
    match t {
        Type::Scalar => "SCALAR",
        Type::Vec2 => "VEC2",
        Type::Vec3 => "VEC3",
        Type::Vec4 => "VEC4",
        Type::Mat2 => "MAT2",
        Type::Mat3 => "MAT3",
        Type::Mat4 => "MAT4",
    }
}

pub(crate) fn component_name(c: ComponentType) -> &'static str {
    match c {
        ComponentType::I8 => "BYTE (5120)",
        ComponentType::U8 => "UNSIGNED_BYTE (5121)",
        ComponentType::I16 => "SHORT (5122)",
        ComponentType::U16 => "UNSIGNED_SHORT (5123)",
        ComponentType::U32 => "UNSIGNED_INT (5125)",
        ComponentType::F32 => "FLOAT (5126)",
    }
}

/// Proves a buffer view range `[offset, offset + length)` inside its buffer's declared length.
fn view_range(root: &json::Root, view_index: usize) -> Result<(usize, usize, usize, Option<usize>), String> {
    let view = root.buffer_views.get(view_index).ok_or_else(|| format!("bufferView {view_index} does not exist"))?;
    let buffer_index = view.buffer.value();
    let buffer = root
        .buffers
        .get(buffer_index)
        .ok_or_else(|| format!("bufferView {view_index} refers to buffer {buffer_index}, which does not exist"))?;
    let offset = view.byte_offset.map_or(0, |o| o.0);
    let length = view.byte_length.0;
    let end = offset.checked_add(length).filter(|&e| e <= buffer.byte_length.0).ok_or_else(|| {
        format!(
            "bufferView {view_index} range {offset}+{length} exceeds buffer {buffer_index} byteLength {}",
            buffer.byte_length.0
        )
    })?;
    let offset = usize::try_from(offset).map_err(|_| format!("bufferView {view_index} offset too large"))?;
    let end = usize::try_from(end).map_err(|_| format!("bufferView {view_index} end too large"))?;
    let stride = view.byte_stride.map(|s| s.0);
    Ok((buffer_index, offset, end, stride))
}

/// Checks `accessor` structurally and returns where its bytes are. The
/// message names the accessor and what is wrong.
pub(crate) fn layout(root: &json::Root, index: usize) -> Result<Layout, String> {
    let a = root.accessors.get(index).ok_or_else(|| format!("accessor {index} does not exist"))?;
    let kind = match a.type_ {
        json::validation::Checked::Valid(t) => t,
        json::validation::Checked::Invalid => return Err(format!("accessor {index} has an invalid type")),
    };
    let component = match a.component_type {
        json::validation::Checked::Valid(c) => c.0,
        json::validation::Checked::Invalid => return Err(format!("accessor {index} has an invalid componentType")),
    };
    let count = usize::try_from(a.count.0).map_err(|_| format!("accessor {index} count {} is absurd", a.count.0))?;
    if count == 0 {
        return Err(format!("accessor {index} has count 0"));
    }
    let mut layout = Layout { index, count, kind, component, normalized: a.normalized, dense: None, sparse: None };
    let element = layout.element_size();

    if let Some(view_index) = a.buffer_view {
        let view_index = view_index.value();
        let (buffer, view_start, view_end, stride) =
            view_range(root, view_index).map_err(|e| format!("accessor {index}: {e}"))?;
        let stride = stride.unwrap_or(element);
        if stride < element {
            return Err(format!(
                "accessor {index}: bufferView {view_index} byteStride {stride} is smaller than the {element}-byte element"
            ));
        }
        let offset = a.byte_offset.map_or(0, |o| o.0);
        // Last byte read: view_start + offset + stride * (count - 1) + element.
        let needed = (count as u64 - 1)
            .checked_mul(stride as u64)
            .and_then(|v| v.checked_add(offset))
            .and_then(|v| v.checked_add(element as u64));
        let available = (view_end - view_start) as u64;
        match needed {
            Some(n) if n <= available => {}
            _ => {
                return Err(format!(
                    "accessor {index}: count {count} x stride {stride} from byteOffset {offset} needs more than \
                     bufferView {view_index}'s {available} bytes"
                ));
            }
        }
        layout.dense = Some(Span { buffer, offset: view_start + offset as usize, stride });
    } else if a.sparse.is_none() {
        return Err(format!("accessor {index} has neither bufferView nor sparse"));
    } else if count > MAX_SPARSE_ONLY_ELEMENTS {
        return Err(format!(
            "accessor {index} has count {count} and no bufferView (at most {MAX_SPARSE_ONLY_ELEMENTS} supported)"
        ));
    }

    if let Some(s) = &a.sparse {
        let sparse_count = usize::try_from(s.count.0).unwrap_or(usize::MAX);
        if sparse_count == 0 || sparse_count > count {
            return Err(format!("accessor {index}: sparse count {} must be in 1..={count}", s.count.0));
        }
        let index_type = match s.indices.component_type {
            json::validation::Checked::Valid(c)
                if matches!(c.0, ComponentType::U8 | ComponentType::U16 | ComponentType::U32) =>
            {
                c.0
            }
            _ => return Err(format!("accessor {index}: sparse indices componentType must be unsigned")),
        };
        let span = |view_index: usize, offset: u64, element: usize, what: &str| -> Result<Span, String> {
            let (buffer, start, end, _) =
                view_range(root, view_index).map_err(|e| format!("accessor {index}: sparse {what}: {e}"))?;
            let needed = (sparse_count as u64).checked_mul(element as u64).and_then(|v| v.checked_add(offset));
            match needed {
                Some(n) if n <= (end - start) as u64 => {
                    Ok(Span { buffer, offset: start + offset as usize, stride: element })
                }
                _ => Err(format!(
                    "accessor {index}: sparse {what}: {sparse_count} elements from byteOffset {offset} do not fit \
                     bufferView {view_index}"
                )),
            }
        };
        let indices = span(s.indices.buffer_view.value(), s.indices.byte_offset.0, index_type.size(), "indices")?;
        let values = span(s.values.buffer_view.value(), s.values.byte_offset.0, element, "values")?;
        layout.sparse = Some(SparseLayout { count: sparse_count, indices, index_type, values });
    }
    Ok(layout)
}

fn component(bytes: &[u8], at: usize, c: ComponentType, normalized: bool) -> Option<f32> {
    let b = |n: usize| bytes.get(at..at.checked_add(n)?);
    // glTF 2.0 §3.11: normalized signed values map with max(c / MAX, -1).
    Some(match c {
        ComponentType::F32 => {
            let v = b(4)?;
            f32::from_le_bytes([v[0], v[1], v[2], v[3]])
        }
        ComponentType::I8 => {
            let v = b(1)?[0] as i8 as f32;
            if normalized { (v / 127.0).max(-1.0) } else { v }
        }
        ComponentType::U8 => {
            let v = b(1)?[0] as f32;
            if normalized { v / 255.0 } else { v }
        }
        ComponentType::I16 => {
            let v = b(2)?;
            let v = i16::from_le_bytes([v[0], v[1]]) as f32;
            if normalized { (v / 32767.0).max(-1.0) } else { v }
        }
        ComponentType::U16 => {
            let v = b(2)?;
            let v = u16::from_le_bytes([v[0], v[1]]) as f32;
            if normalized { v / 65535.0 } else { v }
        }
        ComponentType::U32 => {
            let v = b(4)?;
            let v = u32::from_le_bytes([v[0], v[1], v[2], v[3]]) as f32;
            if normalized { v / 4_294_967_295.0 } else { v }
        }
    })
}

fn read_index(bytes: &[u8], at: usize, c: ComponentType) -> Option<usize> {
    let b = |n: usize| bytes.get(at..at.checked_add(n)?);
    Some(match c {
        ComponentType::U8 => b(1)?[0] as usize,
        ComponentType::U16 => {
            let v = b(2)?;
            u16::from_le_bytes([v[0], v[1]]) as usize
        }
        _ => {
            let v = b(4)?;
            u32::from_le_bytes([v[0], v[1], v[2], v[3]]) as usize
        }
    })
}

/// Decodes every element as flat `f32` components (normalized integers
/// mapped per spec), applying sparse substitution.
pub(crate) fn read_f32<B: AsRef<[u8]>>(layout: &Layout, buffers: &[B]) -> Result<Vec<f32>, String> {
    let n = layout.components();
    let size = layout.component.size();
    let index = layout.index;
    let oob = || format!("accessor {index} reads past the end of its buffer");
    let buffer = |b: usize| buffers.get(b).map(AsRef::as_ref).ok_or_else(oob);
    let mut out = Vec::with_capacity(layout.count * n);
    match &layout.dense {
        Some(span) => {
            let bytes = buffer(span.buffer)?;
            for e in 0..layout.count {
                let base = span.offset + e * span.stride;
                for c in 0..n {
                    out.push(component(bytes, base + c * size, layout.component, layout.normalized).ok_or_else(oob)?);
                }
            }
        }
        None => out.resize(layout.count * n, 0.0),
    }
    if let Some(s) = &layout.sparse {
        let idx_bytes = buffer(s.indices.buffer)?;
        let val_bytes = buffer(s.values.buffer)?;
        let mut previous: Option<usize> = None;
        for k in 0..s.count {
            let i = read_index(idx_bytes, s.indices.offset + k * s.indices.stride, s.index_type).ok_or_else(oob)?;
            if i >= layout.count {
                return Err(format!(
                    "accessor {index}: sparse index at entry {k} is out of range (count {})",
                    layout.count
                ));
            }
            if previous.is_some_and(|p| i <= p) {
                return Err(format!("accessor {index}: sparse indices are not strictly increasing at entry {k}"));
            }
            previous = Some(i);
            for c in 0..n {
                let v = component(
                    val_bytes,
                    s.values.offset + k * s.values.stride + c * size,
                    layout.component,
                    layout.normalized,
                )
                .ok_or_else(oob)?;
                out[i * n + c] = v;
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalized_decoding_follows_the_spec() {
        assert_eq!(component(&[0x81], 0, ComponentType::I8, true), Some(-1.0));
        assert_eq!(component(&[0x80], 0, ComponentType::I8, true), Some(-1.0));
        assert_eq!(component(&[127], 0, ComponentType::I8, true), Some(1.0));
        assert_eq!(component(&[255], 0, ComponentType::U8, true), Some(1.0));
        assert_eq!(component(&0x7fffi16.to_le_bytes(), 0, ComponentType::I16, true), Some(1.0));
        assert_eq!(component(&i16::MIN.to_le_bytes(), 0, ComponentType::I16, true), Some(-1.0));
        assert_eq!(component(&u16::MAX.to_le_bytes(), 0, ComponentType::U16, true), Some(1.0));
        assert_eq!(component(&0.5f32.to_le_bytes(), 0, ComponentType::F32, false), Some(0.5));
        assert_eq!(component(&[1, 2], 1, ComponentType::U16, false), None);
    }
}

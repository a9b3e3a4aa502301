//! The glTF JSON document the exporter writes, as typed `Serialize` structs
//! (field order fixed by the struct definitions).

use serde::Serialize;

// --- The glTF JSON document, in the order the fields are written. ---

#[derive(Serialize)]
pub(super) struct Document {
    pub(super) asset: Asset,
    pub(super) scene: u32,
    pub(super) scenes: Vec<Scene>,
    pub(super) nodes: Vec<Node>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(super) meshes: Vec<Mesh>,
    pub(super) skins: Vec<Skin>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(super) animations: Vec<Animation>,
    pub(super) accessors: Vec<Accessor>,
    #[serde(rename = "bufferViews")]
    pub(super) buffer_views: Vec<BufferView>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(super) buffers: Vec<Buffer>,
}

#[derive(Serialize)]
pub(super) struct Asset {
    pub(super) version: &'static str,
    pub(super) generator: &'static str,
}

#[derive(Serialize)]
pub(super) struct Scene {
    pub(super) nodes: Vec<u32>,
}

#[derive(Serialize)]
pub(super) struct Node {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) name: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(super) children: Vec<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) translation: Option<[f32; 3]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) rotation: Option<[f32; 4]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) scale: Option<[f32; 3]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) mesh: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) skin: Option<u32>,
}

#[derive(Serialize)]
pub(super) struct Skin {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) name: Option<String>,
    #[serde(rename = "inverseBindMatrices")]
    pub(super) inverse_bind_matrices: u32,
    pub(super) joints: Vec<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) skeleton: Option<u32>,
}

#[derive(Serialize)]
pub(super) struct Mesh {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) name: Option<String>,
    pub(super) primitives: Vec<Primitive>,
}

#[derive(Serialize)]
pub(super) struct Primitive {
    pub(super) attributes: Attributes,
    pub(super) indices: u32,
    pub(super) mode: u32,
}

#[derive(Serialize)]
pub(super) struct Attributes {
    #[serde(rename = "POSITION")]
    pub(super) position: u32,
    #[serde(rename = "NORMAL", skip_serializing_if = "Option::is_none")]
    pub(super) normal: Option<u32>,
    #[serde(rename = "JOINTS_0")]
    pub(super) joints_0: u32,
    #[serde(rename = "WEIGHTS_0")]
    pub(super) weights_0: u32,
}

#[derive(Serialize)]
pub(super) struct Animation {
    pub(super) name: String,
    pub(super) channels: Vec<Channel>,
    pub(super) samplers: Vec<Sampler>,
}

#[derive(Serialize)]
pub(super) struct Channel {
    pub(super) sampler: u32,
    pub(super) target: Target,
}

#[derive(Serialize)]
pub(super) struct Target {
    pub(super) node: u32,
    pub(super) path: &'static str,
}

#[derive(Serialize)]
pub(super) struct Sampler {
    pub(super) input: u32,
    pub(super) interpolation: &'static str,
    pub(super) output: u32,
}

#[derive(Serialize)]
pub(super) struct Accessor {
    #[serde(rename = "bufferView")]
    pub(super) buffer_view: u32,
    #[serde(rename = "byteOffset", skip_serializing_if = "Option::is_none")]
    pub(super) byte_offset: Option<usize>,
    #[serde(rename = "componentType")]
    pub(super) component_type: u32,
    pub(super) count: usize,
    #[serde(rename = "type")]
    pub(super) ty: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) min: Option<Vec<f32>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) max: Option<Vec<f32>>,
}

#[derive(Serialize)]
pub(super) struct BufferView {
    pub(super) buffer: u32,
    #[serde(rename = "byteOffset")]
    pub(super) byte_offset: usize,
    #[serde(rename = "byteLength")]
    pub(super) byte_length: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) target: Option<u32>,
}

#[derive(Serialize)]
pub(super) struct Buffer {
    #[serde(rename = "byteLength")]
    pub(super) byte_length: usize,
}

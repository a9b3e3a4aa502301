//! A glTF document built in memory (JSON plus one binary buffer), so a test
//! can describe "a valid file plus one edit" and write it as GLB, as JSON glTF
//! with an embedded `data:` buffer, or with an external buffer file.
//!
//! ```
//! use zoa_test_support::gltf::{ROTATIONS, minimal};
//!
//! let mut doc = minimal();
//! doc.json["accessors"][ROTATIONS]["count"] = serde_json::json!(2);
//! let glb = doc.to_glb();
//! assert_eq!(&glb[..4], b"glTF");
//! // An animation-only export and a static prop of the same rig:
//! let anim = minimal().without_skins();
//! let prop = minimal().without_skins().without_animations();
//! assert!(anim.json.get("skins").is_none() && prop.json["animations"] == serde_json::json!([]));
//! ```

use serde_json::{Value, json};

/// A glTF document under construction: JSON plus one binary buffer.
#[derive(Debug, Clone)]
pub struct Doc {
    /// The glTF JSON; edit it freely.
    pub json: Value,
    /// The one binary buffer (buffer 0).
    pub bin: Vec<u8>,
}

/// `componentType` of 32-bit floats.
pub const FLOAT: u32 = 5126;
/// Accessor index of [`minimal`]'s key times.
pub const TIMES: usize = 0;
/// Accessor index of [`minimal`]'s rotation keys.
pub const ROTATIONS: usize = 1;
/// Accessor index of [`minimal`]'s translation keys.
pub const TRANSLATIONS: usize = 2;
/// Accessor index of [`minimal`]'s inverse bind matrices.
pub const IBMS: usize = 3;

impl Doc {
    /// Adds a buffer view holding `bytes` and an accessor over it; returns the accessor index.
    pub fn add_accessor(&mut self, bytes: &[u8], ty: &str, component: u32, count: usize, normalized: bool) -> usize {
        while !self.bin.len().is_multiple_of(4) {
            self.bin.push(0);
        }
        let offset = self.bin.len();
        self.bin.extend_from_slice(bytes);
        let views = self.json["bufferViews"].as_array_mut().unwrap();
        views.push(json!({"buffer": 0, "byteOffset": offset, "byteLength": bytes.len()}));
        let view = views.len() - 1;
        let accessors = self.json["accessors"].as_array_mut().unwrap();
        let mut acc = json!({"bufferView": view, "componentType": component, "count": count, "type": ty});
        if normalized {
            acc["normalized"] = json!(true);
        }
        accessors.push(acc);
        let index = accessors.len() - 1;
        self.json["buffers"][0]["byteLength"] = json!(self.bin.len());
        index
    }

    /// Adds a float accessor.
    pub fn add_floats(&mut self, values: &[f32], ty: &str, count: usize) -> usize {
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        self.add_accessor(&bytes, ty, FLOAT, count, false)
    }

    /// Byte offset of accessor `a`'s first element in `bin`.
    #[must_use]
    pub fn accessor_offset(&self, a: usize) -> usize {
        let view = self.json["accessors"][a]["bufferView"].as_u64().unwrap() as usize;
        self.json["bufferViews"][view]["byteOffset"].as_u64().unwrap() as usize
            + self.json["accessors"][a]["byteOffset"].as_u64().unwrap_or(0) as usize
    }

    /// Overwrites float component `i` of accessor `a` (tightly packed).
    pub fn set_f32(&mut self, a: usize, i: usize, v: f32) {
        let at = self.accessor_offset(a) + i * 4;
        self.bin[at..at + 4].copy_from_slice(&v.to_le_bytes());
    }

    /// Adds an animation from `(sampler input, output, node, path, interpolation)` rows.
    pub fn add_animation(&mut self, name: Option<&str>, rows: &[(usize, usize, usize, &str, &str)]) -> usize {
        let mut channels = Vec::new();
        let mut samplers = Vec::new();
        for (i, &(input, output, node, path, interp)) in rows.iter().enumerate() {
            samplers.push(json!({"input": input, "output": output, "interpolation": interp}));
            channels.push(json!({"sampler": i, "target": {"node": node, "path": path}}));
        }
        let mut anim = json!({"channels": channels, "samplers": samplers});
        if let Some(name) = name {
            anim["name"] = json!(name);
        }
        let anims = self.json["animations"].as_array_mut().unwrap();
        anims.push(anim);
        anims.len() - 1
    }

    /// Gives node `node` a mesh of one triangle with `targets` morph targets
    /// (every target moves the triangle by its own offset) and `weights` as
    /// the mesh's default weights when given; returns the mesh index.
    pub fn add_morph_mesh(&mut self, node: usize, targets: usize, weights: Option<&[f32]>) -> usize {
        let corners = [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0];
        let position = self.add_floats(&corners, "VEC3", 3);
        self.json["accessors"][position]["min"] = json!([0.0, 0.0, 0.0]);
        self.json["accessors"][position]["max"] = json!([1.0, 1.0, 0.0]);
        let targets: Vec<Value> = (0..targets)
            .map(|t| {
                let offsets: Vec<f32> = (0..9).map(|i| if i % 3 == 2 { t as f32 + 1.0 } else { 0.0 }).collect();
                let a = self.add_floats(&offsets, "VEC3", 3);
                self.json["accessors"][a]["min"] = json!([0.0, 0.0, t as f32 + 1.0]);
                self.json["accessors"][a]["max"] = json!([0.0, 0.0, t as f32 + 1.0]);
                json!({"POSITION": a})
            })
            .collect();
        let mut mesh = json!({"primitives": [{"attributes": {"POSITION": position}, "targets": targets}]});
        if let Some(w) = weights {
            mesh["weights"] = json!(w);
        }
        let meshes = self.json.as_object_mut().unwrap().entry("meshes").or_insert_with(|| json!([]));
        let meshes = meshes.as_array_mut().unwrap();
        meshes.push(mesh);
        let index = meshes.len() - 1;
        self.json["nodes"][node]["mesh"] = json!(index);
        index
    }

    /// The document without skins (no `skins` array, no node's `skin`): an
    /// animation-only export when it has animations, a static model (a prop)
    /// when it has none.
    #[must_use]
    pub fn without_skins(mut self) -> Self {
        self.json.as_object_mut().unwrap().remove("skins");
        for node in self.json["nodes"].as_array_mut().unwrap() {
            node.as_object_mut().unwrap().remove("skin");
        }
        self
    }

    /// The document without animations (an empty `animations` array).
    #[must_use]
    pub fn without_animations(mut self) -> Self {
        self.json["animations"] = json!([]);
        self
    }

    /// Binary glTF.
    #[must_use]
    pub fn to_glb(&self) -> Vec<u8> {
        let mut json = serde_json::to_vec(&self.json).unwrap();
        while !json.len().is_multiple_of(4) {
            json.push(b' ');
        }
        let mut bin = self.bin.clone();
        while !bin.len().is_multiple_of(4) {
            bin.push(0);
        }
        let mut out = b"glTF".to_vec();
        out.extend(2u32.to_le_bytes());
        out.extend(((12 + 8 + json.len() + 8 + bin.len()) as u32).to_le_bytes());
        out.extend((json.len() as u32).to_le_bytes());
        out.extend(b"JSON");
        out.extend(&json);
        out.extend((bin.len() as u32).to_le_bytes());
        out.extend(b"BIN\0");
        out.extend(&bin);
        out
    }

    /// JSON glTF with the buffer embedded as a base64 `data:` URI.
    #[must_use]
    pub fn to_gltf_embedded(&self) -> Vec<u8> {
        let mut json = self.json.clone();
        json["buffers"][0]["uri"] = json!(format!("data:application/octet-stream;base64,{}", base64(&self.bin)));
        serde_json::to_vec_pretty(&json).unwrap()
    }

    /// JSON glTF referring to an external buffer file named `uri`.
    #[must_use]
    pub fn to_gltf_external(&self, uri: &str) -> Vec<u8> {
        let mut json = self.json.clone();
        json["buffers"][0]["uri"] = json!(uri);
        serde_json::to_vec_pretty(&json).unwrap()
    }
}

/// Standard base64 with padding (test-side encoder, independent of the decoder under test).
#[must_use]
pub fn base64(bytes: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let b = [chunk[0], *chunk.get(1).unwrap_or(&0), *chunk.get(2).unwrap_or(&0)];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for k in 0..4 {
            if k <= chunk.len() {
                out.push(A[((n >> (18 - 6 * k)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// The 4×4 identity as 16 column-major floats.
#[must_use]
pub fn mat4_identity() -> [f32; 16] {
    let mut m = [0.0; 16];
    m[0] = 1.0;
    m[5] = 1.0;
    m[10] = 1.0;
    m[15] = 1.0;
    m
}

/// A small valid skinned, animated document:
///
/// ```text
/// node 0 "root" ─ node 1 "hip" ─ node 2 "spine"      skin 0 "Armature" = [1, 2]
/// node 3 "body" (skin 0)
/// animation 0 "Walk": rotation of node 2, translation of node 1, LINEAR, keys at 0, 0.5, 1
/// ```
#[must_use]
pub fn minimal() -> Doc {
    let mut doc = Doc {
        json: json!({
            "asset": {"version": "2.0"},
            "scene": 0,
            "scenes": [{"nodes": [0, 3]}],
            "nodes": [
                {"name": "root", "children": [1]},
                {"name": "hip", "children": [2], "translation": [0.0, 1.0, 0.0]},
                {"name": "spine", "translation": [0.0, 0.5, 0.0], "rotation": [0.0, 0.0, 0.0, 1.0]},
                {"name": "body", "skin": 0}
            ],
            "skins": [{"name": "Armature", "joints": [1, 2], "inverseBindMatrices": IBMS}],
            "animations": [],
            "accessors": [],
            "bufferViews": [],
            "buffers": [{"byteLength": 0}]
        }),
        bin: Vec::new(),
    };
    let times = doc.add_floats(&[0.0, 0.5, 1.0], "SCALAR", 3);
    let s = std::f32::consts::FRAC_1_SQRT_2;
    let rotations = doc.add_floats(&[0.0, 0.0, 0.0, 1.0, 0.0, s, 0.0, s, 0.0, 1.0, 0.0, 0.0], "VEC4", 3);
    let translations = doc.add_floats(&[0.0, 1.0, 0.0, 0.0, 1.5, 0.0, 0.0, 1.0, 0.0], "VEC3", 3);
    let mut ibm = Vec::new();
    ibm.extend(mat4_identity());
    let mut second = mat4_identity();
    second[13] = -1.0;
    ibm.extend(second);
    let ibms = doc.add_floats(&ibm, "MAT4", 2);
    assert_eq!((times, rotations, translations, ibms), (TIMES, ROTATIONS, TRANSLATIONS, IBMS));
    doc.add_animation(
        Some("Walk"),
        &[(TIMES, ROTATIONS, 2, "rotation", "LINEAR"), (TIMES, TRANSLATIONS, 1, "translation", "LINEAR")],
    );
    doc
}

/// The [`minimal`] rig as another character: its joints renamed
/// `{prefix}hip` and `{prefix}spine` (another skeleton when `prefix` differs)
/// and one animation per name in `takes`, each a copy of `Walk`'s channels.
#[must_use]
pub fn character(prefix: &str, takes: &[&str]) -> Doc {
    let mut doc = minimal().without_animations();
    for (node, name) in [(1, "hip"), (2, "spine")] {
        doc.json["nodes"][node]["name"] = json!(format!("{prefix}{name}"));
    }
    for name in takes {
        doc.add_animation(
            Some(name),
            &[(TIMES, ROTATIONS, 2, "rotation", "LINEAR"), (TIMES, TRANSLATIONS, 1, "translation", "LINEAR")],
        );
    }
    doc
}

/// One model of each kind the clip scanner tells apart, built from [`minimal`]
/// and named by file: `skinned.glb` (as is), `anim.glb` (an animation-only
/// export: no skin) and `hat.glb` (a static prop: no skin, no animation).
#[must_use]
pub fn model_kinds() -> [(&'static str, Doc); 3] {
    let anim = minimal().without_skins();
    [("skinned.glb", minimal()), ("hat.glb", anim.clone().without_animations()), ("anim.glb", anim)]
}

/// A skinned chain of `joints` joints (`j0` … under a `root` node, each one
/// unit above its parent) playing [`minimal`]'s `Walk` on its first two
/// joints: a rig as large as a test needs.
///
/// # Panics
/// When `joints < 2`.
#[must_use]
pub fn chain(joints: usize) -> Doc {
    assert!(joints >= 2, "a chain of at least two joints");
    let mut doc = minimal();
    let mut nodes = vec![json!({"name": "root", "children": [1]})];
    for j in 0..joints {
        let mut node = json!({"name": format!("j{j}"), "translation": [0.0, 1.0, 0.0]});
        if j + 1 < joints {
            node["children"] = json!([j + 2]);
        }
        nodes.push(node);
    }
    nodes.push(json!({"name": "body", "skin": 0}));
    doc.json["nodes"] = json!(nodes);
    doc.json["scenes"] = json!([{"nodes": [0, joints + 1]}]);
    doc.json["skins"] = json!([{"name": "Chain", "joints": (1..=joints).collect::<Vec<_>>()}]);
    doc
}

//! Skinned meshes for viewers: every triangle primitive a skin deforms,
//! read as one [`SkinnedMesh`] (the type the GLB writer takes), so a tool
//! can draw the character the runtime animates (the Workbench skins it on
//! the GPU with the runtime's skinning matrices).
//!
//! The same guards as the rest of the importer: every accessor is proven in
//! bounds before it is read ([`super::accessor`]), the decoded total is
//! bounded by the input size, and the counts are budgeted
//! ([`MAX_MESH_VERTICES`], [`MAX_MESH_INDICES`]) before anything that size is
//! allocated. A problem names the mesh, the primitive and the attribute.
//! Points, lines, strips and fans are left out (viewers draw triangles); a
//! primitive without normals gets smooth ones from its triangles; weights
//! are normalised to sum to 1. Mesh node transforms are not applied: glTF
//! skins a mesh by its joints alone.

use std::path::Path;

use gltf::json;
use gltf::json::accessor::{ComponentType, Type};
use gltf::json::mesh::{Mode, Semantic};
use gltf::json::validation::Checked;

use super::accessor::{Layout, layout, read_f32};
use super::{BufferAccess, DECODE_BUDGET_BASE, DECODE_BUDGET_FACTOR, Problems, buffers, container, parse_document};
use crate::AssetError;
use crate::export::SkinnedMesh;

/// Most vertices a skinned mesh may have, over all its primitives (1 Mi).
pub const MAX_MESH_VERTICES: usize = 1 << 20;
/// Most triangle indices a skinned mesh may have (3 Mi: 1 Mi triangles).
pub const MAX_MESH_INDICES: usize = 3 << 20;

/// One primitive's accessors, checked.
struct PrimitivePlan {
    label: String,
    positions: Layout,
    normals: Option<Layout>,
    joints: Layout,
    weights: Layout,
    indices: Option<Layout>,
}

/// The skinned mesh of skin `skin` of the glTF file at `path` (read through
/// the guarded reader; external buffers confined to the file's folder tree).
///
/// # Errors
/// As [`super::load_gltf`] for reading and the document, and a located
/// problem for a missing skin, a mesh the skin does not deform, an
/// attribute of the wrong type or count, an index or joint out of range, a
/// non-finite number, or counts over the budgets.
pub fn load_skinned_mesh(path: &Path, skin: usize) -> Result<SkinnedMesh, AssetError> {
    let bytes = crate::files::read(path, crate::files::FileKind::Model)?;
    let file_name = path.file_name().map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into_owned());
    let base = path.parent().map(|p| if p.as_os_str().is_empty() { Path::new(".") } else { p });
    load_skinned_mesh_slice(&bytes, base, &file_name, skin)
}

/// [`load_skinned_mesh`] from memory (`base_dir` resolves external buffers).
pub fn load_skinned_mesh_slice(
    bytes: &[u8],
    base_dir: Option<&Path>,
    file: &str,
    skin: usize,
) -> Result<SkinnedMesh, AssetError> {
    let parts = container::split(bytes, file)?;
    let root = parse_document(parts.json, file)?;
    let mut problems = Problems::default();
    let Some(joint_count) = root.skins.get(skin).map(|s| s.joints.len()) else {
        let reason = format!("does not exist (the file has {})", root.skins.len());
        return Err(AssetError::gltf(file, format!("skin {skin}"), reason));
    };
    let plans = plan(&root, skin, &mut problems);
    problems.flush(file)?;
    if plans.is_empty() {
        problems.push(format!("skin {skin}"), "no mesh node uses it (nothing to draw)");
        problems.flush(file)?;
    }
    let layouts = || {
        plans.iter().flat_map(|p| {
            [Some(&p.positions), p.normals.as_ref(), Some(&p.joints), Some(&p.weights), p.indices.as_ref()]
                .into_iter()
                .flatten()
        })
    };
    let vertices: usize = plans.iter().map(|p| p.positions.count).sum();
    let indices: usize = plans.iter().map(|p| p.indices.as_ref().map_or(p.positions.count, |l| l.count)).sum();
    if vertices > MAX_MESH_VERTICES || indices > MAX_MESH_INDICES {
        problems.push(
            format!("skin {skin} meshes"),
            format!(
                "{vertices} vertices and {indices} indices (at most {MAX_MESH_VERTICES} and {MAX_MESH_INDICES} for a viewer)"
            ),
        );
    }
    let mut needed = vec![false; root.buffers.len()];
    for l in layouts() {
        l.mark_buffers(&mut needed);
    }
    let data = buffers::resolve(&root, &needed, parts.bin, base_dir, BufferAccess::FolderTree, &mut problems);
    problems.flush(file)?;
    let input = bytes.len() as u64 + data.iter().map(|d| d.len() as u64).sum::<u64>();
    let decoded: u64 = layouts().map(|l| (l.count as u64).saturating_mul(l.components() as u64 * 4)).sum();
    if decoded > input.saturating_mul(DECODE_BUDGET_FACTOR).saturating_add(DECODE_BUDGET_BASE) {
        problems.push("accessors", format!("the meshes would decode to {decoded} bytes for {input} bytes of input"));
        problems.flush(file)?;
    }
    let mut mesh = SkinnedMesh {
        name: None,
        positions: Vec::with_capacity(vertices),
        normals: Vec::with_capacity(vertices),
        joints: Vec::with_capacity(vertices),
        weights: Vec::with_capacity(vertices),
        indices: Vec::with_capacity(indices),
    };
    for p in &plans {
        if let Err(reason) = append(&mut mesh, p, &data, joint_count) {
            problems.push(p.label.clone(), reason);
        }
    }
    problems.flush(file)?;
    mesh.name = root.nodes.iter().filter(|n| n.skin.map(|s| s.value()) == Some(skin)).find_map(|n| n.name.clone());
    Ok(mesh)
}

/// The triangle primitives of every mesh node skin `skin` deforms, with their accessors checked.
fn plan(root: &json::Root, skin: usize, problems: &mut Problems) -> Vec<PrimitivePlan> {
    let mut out = Vec::new();
    for node in root.nodes.iter().filter(|n| n.skin.map(|s| s.value()) == Some(skin)) {
        let Some(m) = node.mesh.map(|m| m.value()) else { continue };
        let Some(mesh) = root.meshes.get(m) else { continue };
        for (pi, p) in mesh.primitives.iter().enumerate() {
            if !matches!(p.mode, Checked::Valid(Mode::Triangles)) {
                continue;
            }
            let label = match &mesh.name {
                Some(n) => format!("mesh {m} {n:?} primitive {pi}"),
                None => format!("mesh {m} primitive {pi}"),
            };
            match plan_primitive(root, p) {
                Ok((positions, normals, joints, weights, indices)) => {
                    out.push(PrimitivePlan { label, positions, normals, joints, weights, indices });
                }
                Err(reason) => problems.push(label, reason),
            }
        }
    }
    out
}

type Accessors = (Layout, Option<Layout>, Layout, Layout, Option<Layout>);

fn plan_primitive(root: &json::Root, p: &json::mesh::Primitive) -> Result<Accessors, String> {
    let attribute = |s: Semantic| p.attributes.get(&Checked::Valid(s)).map(|i| i.value());
    let checked = |name: &str, index: usize, kind: Type, components: &[ComponentType]| -> Result<Layout, String> {
        let l = layout(root, index).map_err(|e| format!("{name}: {e}"))?;
        if l.kind != kind || !components.contains(&l.component) {
            return Err(format!(
                "{name} (accessor {index}) is {} of {}, expected {}",
                super::accessor::type_name(l.kind),
                super::accessor::component_name(l.component),
                super::accessor::type_name(kind)
            ));
        }
        Ok(l)
    };
    use ComponentType::{F32, U8, U16, U32};
    let positions = checked("POSITION", attribute(Semantic::Positions).ok_or("has no POSITION")?, Type::Vec3, &[F32])?;
    let normals = attribute(Semantic::Normals).map(|i| checked("NORMAL", i, Type::Vec3, &[F32])).transpose()?;
    let joints = checked(
        "JOINTS_0",
        attribute(Semantic::Joints(0)).ok_or("has no JOINTS_0 (a skinned mesh needs joints and weights)")?,
        Type::Vec4,
        &[U8, U16],
    )?;
    let weights = checked(
        "WEIGHTS_0",
        attribute(Semantic::Weights(0)).ok_or("has no WEIGHTS_0 (a skinned mesh needs joints and weights)")?,
        Type::Vec4,
        &[F32, U8, U16],
    )?;
    if weights.component != F32 && !weights.normalized {
        return Err("WEIGHTS_0 of integers must be normalized".into());
    }
    let n = positions.count;
    for (name, l) in [("NORMAL", normals.as_ref()), ("JOINTS_0", Some(&joints)), ("WEIGHTS_0", Some(&weights))] {
        if let Some(l) = l
            && l.count != n
        {
            return Err(format!("{name} has {} elements for {n} positions", l.count));
        }
    }
    let indices = p.indices.map(|i| checked("indices", i.value(), Type::Scalar, &[U8, U16, U32])).transpose()?;
    let count = indices.as_ref().map_or(n, |l| l.count);
    if !count.is_multiple_of(3) {
        return Err(format!("{count} indices do not make whole triangles"));
    }
    Ok((positions, normals, joints, weights, indices))
}

fn triples(v: &[f32]) -> impl Iterator<Item = [f32; 3]> + '_ {
    v.chunks_exact(3).map(|c| [c[0], c[1], c[2]])
}

/// Decodes primitive `p` onto the end of `mesh`.
fn append<B: AsRef<[u8]>>(
    mesh: &mut SkinnedMesh,
    p: &PrimitivePlan,
    data: &[B],
    joint_count: usize,
) -> Result<(), String> {
    let positions = read_f32(&p.positions, data)?;
    if positions.iter().any(|x| !x.is_finite()) {
        return Err("POSITION holds a number that is not finite".into());
    }
    let base = mesh.positions.len();
    let n = p.positions.count;
    let indices: Vec<u32> = match &p.indices {
        Some(l) => read_f32(l, data)?.into_iter().map(|i| i as u32).collect(),
        None => (0..n as u32).collect(),
    };
    if let Some(bad) = indices.iter().find(|&&i| i as usize >= n) {
        return Err(format!("index {bad} is out of range ({n} vertices)"));
    }
    let joints = read_f32(&p.joints, data)?;
    if let Some(bad) = joints.iter().find(|&&j| j as usize >= joint_count) {
        return Err(format!("JOINTS_0 names joint {bad}; the skin has {joint_count}"));
    }
    let weights = read_f32(&p.weights, data)?;
    let normals = match &p.normals {
        Some(l) => read_f32(l, data)?,
        None => Vec::new(),
    };
    if normals.iter().any(|x| !x.is_finite()) || weights.iter().any(|x| !x.is_finite() || *x < 0.0) {
        return Err("NORMAL or WEIGHTS_0 holds a number that is not finite (or a negative weight)".into());
    }
    mesh.positions.extend(triples(&positions));
    mesh.joints.extend(joints.chunks_exact(4).map(|c| [c[0] as u16, c[1] as u16, c[2] as u16, c[3] as u16]));
    mesh.weights.extend(weights.chunks_exact(4).map(|c| {
        let sum: f32 = c.iter().sum();
        // A vertex with no weight follows the skin's first joint.
        if sum > 0.0 { [c[0] / sum, c[1] / sum, c[2] / sum, c[3] / sum] } else { [1.0, 0.0, 0.0, 0.0] }
    }));
    if normals.is_empty() {
        mesh.normals.extend(smooth_normals(&mesh.positions[base..], &indices));
    } else {
        mesh.normals.extend(triples(&normals).map(unit));
    }
    mesh.indices.extend(indices.iter().map(|i| i + base as u32));
    Ok(())
}

fn unit(v: [f32; 3]) -> [f32; 3] {
    let l = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    if l > 1e-12 { [v[0] / l, v[1] / l, v[2] / l] } else { [0.0, 1.0, 0.0] }
}

/// Area-weighted vertex normals of a triangle list.
fn smooth_normals(positions: &[[f32; 3]], indices: &[u32]) -> Vec<[f32; 3]> {
    let mut out = vec![[0.0f32; 3]; positions.len()];
    for t in indices.chunks_exact(3) {
        let [a, b, c] = [t[0] as usize, t[1] as usize, t[2] as usize];
        let (p, q, r) = (positions[a], positions[b], positions[c]);
        let u = [q[0] - p[0], q[1] - p[1], q[2] - p[2]];
        let v = [r[0] - p[0], r[1] - p[1], r[2] - p[2]];
        let n = [u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]];
        for i in [a, b, c] {
            for k in 0..3 {
                out[i][k] += n[k];
            }
        }
    }
    out.into_iter().map(unit).collect()
}

//! Where things are: the repository, its fixtures, the optional shared
//! third-party assets, and fresh temporary folders.

use std::path::{Path, PathBuf};

/// The repository root (the folder holding the workspace `Cargo.toml`).
#[must_use]
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("the crate sits in the repository").to_path_buf()
}

/// `rel` under the repository root.
#[must_use]
pub fn repo(rel: &str) -> PathBuf {
    repo_root().join(rel)
}

/// `rel` under `fixtures/`.
#[must_use]
pub fn fixture(rel: &str) -> PathBuf {
    repo_root().join("fixtures").join(rel)
}

/// The shared third-party glTF assets: `$ZOA_ASSETS`, else `../shared/assets`
/// beside the repository. `None`, with a note on stderr, when the folder has no
/// `manifest.json`: tests that need the assets then skip.
#[must_use]
pub fn shared_assets() -> Option<PathBuf> {
    let dir = std::env::var_os("ZOA_ASSETS").map(PathBuf::from).unwrap_or_else(|| repo_root().join("../shared/assets"));
    if dir.join("manifest.json").is_file() {
        Some(dir)
    } else {
        eprintln!("note: shared assets not found at {}; skipping", dir.display());
        None
    }
}

/// A fresh, empty temporary folder whose name starts with `zoa-{tag}-`,
/// removed when the returned value drops. Each call gets its own folder, so
/// tests stay hermetic whatever else sits in the system temporary folder.
///
/// # Panics
/// When the temporary folder cannot be created.
#[must_use]
pub fn temp_dir(tag: &str) -> tempfile::TempDir {
    tempfile::Builder::new().prefix(&format!("zoa-{tag}-")).tempdir().expect("create a temporary folder")
}

/// Copies the folder `from` (recursively) into `to`, creating `to`.
///
/// # Panics
/// On any IO error.
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap_or_else(|e| panic!("create {}: {e}", to.display()));
    for entry in std::fs::read_dir(from).unwrap_or_else(|e| panic!("read {}: {e}", from.display())) {
        let entry = entry.expect("folder entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("file type").is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap_or_else(|e| panic!("copy to {}: {e}", target.display()));
        }
    }
}

/// Writes a small definition folder that a preview can play on a skinned
/// chain of `joints` joints (see [`crate::gltf::chain`]) under `root`:
/// `root/models/chain.glb` and `root/defs/` with a clip `walk`, a graph, a
/// binding profile, a player profile set `player` and one preview preset per
/// `(id, seconds)` in `presets` (one wait each). Returns `root/defs`.
///
/// # Panics
/// On any IO error.
#[must_use]
pub fn chain_defs(root: &Path, joints: usize, presets: &[(&str, f32)]) -> PathBuf {
    let models = root.join("models");
    let defs = root.join("defs");
    for dir in [&models, &defs] {
        std::fs::create_dir_all(dir).unwrap_or_else(|e| panic!("create {}: {e}", dir.display()));
    }
    let write = |path: PathBuf, bytes: &[u8]| {
        std::fs::write(&path, bytes).unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
    };
    write(models.join("chain.glb"), &crate::gltf::chain(joints).to_glb());
    let model = "../models/chain.glb";
    write(
        defs.join("walk.toml"),
        format!("kind = \"clip\"\nid = \"walk\"\nsource = \"{model}\"\nanimation = \"Walk\"\n").as_bytes(),
    );
    write(
        defs.join("graph.toml"),
        format!("kind = \"animation_graph\"\nid = \"g\"\nmodel = \"{model}\"\nentry = \"walk\"\n\n[[states]]\nname = \"walk\"\nclip = \"walk\"\n")
            .as_bytes(),
    );
    write(defs.join("bindings.toml"), b"kind = \"binding_profile\"\nid = \"b\"\n");
    write(
        defs.join("player.toml"),
        b"kind = \"player_profile_set\"\nid = \"player\"\ndefault_profile = \"unarmed\"\n\n[[profiles]]\nclass = \"unarmed\"\nbinding_profile = \"b\"\nanimation_graph = \"g\"\n",
    );
    for (id, seconds) in presets {
        let text = format!("kind = \"preview_preset\"\nid = \"{id}\"\nsteps = [{{ wait = {seconds:?} }}]\n");
        write(defs.join(format!("{id}.toml")), text.as_bytes());
    }
    defs
}

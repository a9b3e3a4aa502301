//! Reading and writing definition files for the Workbench: content
//! versions, saves that refuse stale edits, and deletes that refuse files
//! changed since they were seen.
//!
//! A *version* is a hash of a file's bytes (plus their length). The editor
//! receives it when it opens a file and sends it back with a save; the save
//! goes through only when the file on disk still has that version, so an edit
//! made elsewhere in the meantime (another editor, `git checkout`) is never
//! overwritten by accident. Overwriting it anyway is a separate, explicit
//! request that names the version on disk the user has seen.
//!
//! Files are read with the assets crate's guarded reader (regular files only,
//! size-capped, never blocking on a FIFO) and written with its all-or-nothing
//! writer (a temporary sibling renamed into place, so a crash leaves the old
//! or the new file, never half of one). One lock serializes the Workbench's
//! own writes so two requests cannot interleave a check and a rename.

use std::hash::{Hash, Hasher};
use std::path::Path;
use std::sync::Mutex;

use zoa_anim_assets::AssetError;
use zoa_anim_assets::files::{self, FileKind};

/// Why a read or write failed.
#[derive(Debug)]
pub enum FileError {
    /// The file on disk is not the version the request expected.
    Stale {
        /// Version on disk now (`None`: the file is gone).
        disk: Option<String>,
    },
    /// A new file was asked for but one exists.
    Exists,
    /// Larger than a definition file may be, not UTF-8, or not a regular file.
    Unreadable(String),
    /// The operating system refused.
    Io(std::io::Error),
}

impl std::fmt::Display for FileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FileError::Stale { disk: Some(_) } => f.write_str("the file changed on disk since it was opened"),
            FileError::Stale { disk: None } => f.write_str("the file was deleted on disk since it was opened"),
            FileError::Exists => f.write_str("a file with that name exists"),
            FileError::Unreadable(why) => f.write_str(why),
            FileError::Io(e) => write!(f, "{e}"),
        }
    }
}

impl From<std::io::Error> for FileError {
    fn from(e: std::io::Error) -> Self {
        FileError::Io(e)
    }
}

impl From<AssetError> for FileError {
    fn from(e: AssetError) -> Self {
        match e {
            AssetError::Io { source, .. } => FileError::Io(source),
            AssetError::WouldOverwrite { .. } => FileError::Exists,
            other => FileError::Unreadable(other.to_string()),
        }
    }
}

/// The version of some bytes.
pub fn version_of(bytes: &[u8]) -> String {
    let mut h = std::hash::DefaultHasher::new();
    bytes.hash(&mut h);
    format!("{:016x}-{}", h.finish(), bytes.len())
}

/// Reads a definition file (guarded, UTF-8). Returns the text and its version.
pub fn read_text(path: &Path) -> Result<(String, String), FileError> {
    let bytes = files::read(path, FileKind::Definition)?;
    let version = version_of(&bytes);
    let text = String::from_utf8(bytes).map_err(|_| FileError::Unreadable("the file is not UTF-8".into()))?;
    Ok((text, version))
}

/// The version on disk now (`None` when the file does not exist).
fn disk_version(path: &Path) -> Result<Option<String>, FileError> {
    match files::read(path, FileKind::Definition) {
        Ok(b) => Ok(Some(version_of(&b))),
        Err(AssetError::Io { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// What a write expects to find on disk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expect {
    /// No file (a new file; never overwrites).
    Absent,
    /// The file at this version.
    Version(String),
}

/// Serializes the Workbench's writes.
#[derive(Debug, Default)]
pub struct Writer {
    lock: Mutex<()>,
}

impl Writer {
    /// Replaces (or creates) `path` with `bytes` atomically when the file on
    /// disk is what `expect` says; returns the new version.
    ///
    /// The disk is checked twice: before anything is written (so a refused
    /// save creates no folder and no file), and again once the new text sits
    /// in its temporary sibling, immediately before the rename — another
    /// program's write that landed meanwhile makes the save a 409 instead of
    /// being replaced. Missing folders of `path` are created only after the
    /// first check, and removed again when the save fails.
    pub fn save(&self, path: &Path, bytes: &[u8], expect: &Expect) -> Result<String, FileError> {
        self.save_meddled(path, bytes, expect, || {})
    }

    /// [`Writer::save`] with `meddle` run between writing the temporary
    /// sibling and the last check (tests: another program's write there).
    fn save_meddled(
        &self,
        path: &Path,
        bytes: &[u8],
        expect: &Expect,
        meddle: impl FnOnce(),
    ) -> Result<String, FileError> {
        let _guard = self.lock.lock().unwrap_or_else(|p| p.into_inner());
        check(path, expect)?;
        // Without `force` the writer refuses a file that appeared meanwhile.
        let force = matches!(expect, Expect::Version(_));
        files::write_all_or_nothing_checked(&[(path.to_path_buf(), bytes.to_vec())], force, || {
            meddle();
            check(path, expect)
        })?;
        Ok(version_of(bytes))
    }

    /// Deletes `path` when it is still at `version`. The file is first moved
    /// aside (one rename) and the moved bytes are checked again: a write that
    /// landed after the first check is put back and the delete is a 409.
    pub fn delete(&self, path: &Path, version: &str) -> Result<(), FileError> {
        let _guard = self.lock.lock().unwrap_or_else(|p| p.into_inner());
        let expect = Expect::Version(version.to_owned());
        check(path, &expect)?;
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let aside = path.with_file_name(format!(".{name}.zoa-deleting-{}", std::process::id()));
        std::fs::rename(path, &aside)?;
        match check(&aside, &expect) {
            Ok(()) => Ok(std::fs::remove_file(&aside)?),
            Err(e) => {
                // Put it back unless something new took its place; never replace that.
                if !files::occupied(path) {
                    std::fs::rename(&aside, path)?;
                }
                Err(e)
            }
        }
    }
}

fn check(path: &Path, expect: &Expect) -> Result<(), FileError> {
    let disk = disk_version(path)?;
    match (expect, disk) {
        (Expect::Absent, None) => Ok(()),
        (Expect::Absent, Some(_)) => Err(FileError::Exists),
        (Expect::Version(v), Some(d)) if *v == d => Ok(()),
        (Expect::Version(_), disk) => Err(FileError::Stale { disk }),
    }
}

/// `kind` and `id` of a definition's text, when it parses far enough.
pub(super) fn kind_and_id(text: &str) -> (Option<String>, Option<String>) {
    let Ok(table) = text.parse::<toml::Table>() else {
        // Fall back to the lines themselves, so a file with a syntax error
        // further down still lists under its kind.
        let find = |key: &str| {
            text.lines().find_map(|l| {
                let rest = l.trim().strip_prefix(key)?.trim_start().strip_prefix('=')?;
                Some(rest.trim().trim_matches('"').to_owned())
            })
        };
        return (find("kind"), find("id"));
    };
    let get = |k: &str| table.get(k).and_then(|v| v.as_str()).map(str::to_owned);
    (get("kind"), get("id"))
}

/// The kind and id `text` declares, checked with `validate`'s rules
/// ([`zoa_anim_assets::defs::check_kind_and_id`]; text that does not parse is
/// read from its `key = "value"` lines), and of kind `kind` when one is given:
/// what every write endpoint checks before it writes. Returns `(kind, id)`.
pub fn checked_declaration(text: &str, kind: Option<&str>) -> Result<(&'static str, String), String> {
    let (k, i) = kind_and_id(text);
    let (found, id) = zoa_anim_assets::defs::check_kind_and_id(k.as_deref(), i.as_deref())?;
    match kind {
        Some(want) if found != want => Err(format!("the file is a `{found}` definition, not a `{want}`")),
        _ => Ok((found, id)),
    }
}

/// `text` with its top-level `id` set to `id`, formatting and comments kept.
pub fn with_id(text: &str, id: &str) -> Result<String, String> {
    let mut doc: toml_edit::DocumentMut = text.parse().map_err(|e: toml_edit::TomlError| e.message().to_owned())?;
    if !doc.contains_key("id") {
        return Err("the file has no top-level `id`".into());
    }
    let decor = doc["id"].as_value().map(|v| v.decor().clone());
    let mut value = toml_edit::Value::from(id);
    if let Some(d) = decor {
        *value.decor_mut() = d;
    }
    doc["id"] = toml_edit::Item::Value(value);
    Ok(doc.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn saves_refuse_stale_versions_and_creation_never_overwrites() {
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("a.toml");
        let w = Writer::default();
        let v1 = w.save(&p, b"one", &Expect::Absent).unwrap();
        assert!(matches!(w.save(&p, b"x", &Expect::Absent), Err(FileError::Exists)));
        let v2 = w.save(&p, b"two", &Expect::Version(v1.clone())).unwrap();
        assert!(
            matches!(w.save(&p, b"three", &Expect::Version(v1.clone())), Err(FileError::Stale { disk: Some(d) }) if d == v2)
        );
        std::fs::write(&p, "edited elsewhere").unwrap();
        assert!(matches!(w.delete(&p, &v2), Err(FileError::Stale { .. })));
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "edited elsewhere");
        let v3 = version_of(b"edited elsewhere");
        w.delete(&p, &v3).unwrap();
        assert!(matches!(w.save(&p, b"x", &Expect::Version(v3)), Err(FileError::Stale { disk: None })));
        // No temporary sibling is left behind.
        assert_eq!(std::fs::read_dir(t.path()).unwrap().count(), 0);
    }

    #[test]
    fn a_write_landing_between_the_check_and_the_rename_is_a_conflict_not_lost() {
        let t = zoa_test_support::paths::temp_dir("serve-race");
        let p = t.path().join("a.toml");
        let w = Writer::default();
        let v1 = w.save(&p, b"one", &Expect::Absent).unwrap();
        // Another program writes after the first check, before the rename.
        let r = w.save_meddled(&p, b"mine", &Expect::Version(v1.clone()), || std::fs::write(&p, "theirs").unwrap());
        assert!(matches!(r, Err(FileError::Stale { disk: Some(ref d) }) if *d == version_of(b"theirs")), "{r:?}");
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "theirs", "their edit is kept");
        // A new file that appears meanwhile is not replaced either.
        let q = t.path().join("sub/b.toml");
        let r = w.save_meddled(&q, b"mine", &Expect::Absent, || {
            std::fs::write(&q, "theirs").unwrap();
        });
        assert!(matches!(r, Err(FileError::Exists)), "{r:?}");
        assert_eq!(std::fs::read_to_string(&q).unwrap(), "theirs");
        // A refused save leaves no temporary sibling and creates no folder.
        let r = w.save(&t.path().join("x/y/c.toml"), b"c", &Expect::Version(v1));
        assert!(matches!(r, Err(FileError::Stale { disk: None })), "{r:?}");
        assert!(!t.path().join("x").exists());
        let mut names: Vec<_> = std::fs::read_dir(t.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        names.sort();
        assert_eq!(names, ["a.toml", "sub"]);
        assert_eq!(std::fs::read_dir(t.path().join("sub")).unwrap().count(), 1);
    }

    #[test]
    fn ids_are_replaced_in_place() {
        let text = "# keep me\nkind = \"clip\"\nid = \"walk\"   # the id\nsource = \"m.glb\"\n";
        assert_eq!(
            with_id(text, "walk_copy").unwrap(),
            "# keep me\nkind = \"clip\"\nid = \"walk_copy\"   # the id\nsource = \"m.glb\"\n"
        );
        assert!(with_id("kind = \"clip\"\n", "x").is_err());
        assert!(with_id("id = ", "x").is_err());
    }
}

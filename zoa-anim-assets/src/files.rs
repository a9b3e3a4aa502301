//! The one guarded file reader every loader goes through, and the
//! all-or-nothing writer every multi-file output goes through.
//!
//! # Reading rules
//!
//! - **Regular files only.** A FIFO, a device, a socket or a folder is an
//!   error naming the path and what it is ([`AssetError::NotAFile`]). The
//!   check is made before any byte is read, and the file is opened without
//!   blocking (`O_NONBLOCK` on Unix) and checked again on the open handle, so
//!   a FIFO swapped in between cannot hang the reader.
//! - **A size cap per kind** ([`FileKind::max_bytes`]): a larger file is
//!   refused from its metadata before anything is allocated, and at most
//!   cap + 1 bytes are ever read (a file growing meanwhile is still refused).
//! - **Symlink policy.** A symbolic link to a file is followed (the rules
//!   apply to its target). Folder walks never follow symlinked folders (so a
//!   link cycle cannot hang them). glTF buffer URIs must resolve, after
//!   following links, inside the folder tree of the glTF file (see
//!   [`crate::gltf`]), unless the caller opts out.
//! - **Errors never echo file bytes**: they name the path, the kind and the
//!   rule, never the content.
//!
//! # Budgets (bytes)
//!
//! | Kind | Cap |
//! |------|-----|
//! | definition file (`*.toml` in a folder) | [`MAX_DEFINITION_BYTES`] = 4 MiB |
//! | glTF / GLB model | [`MAX_MODEL_BYTES`] = 256 MiB |
//! | glTF external buffer (`.bin`) | [`MAX_BUFFER_BYTES`] = 256 MiB |
//! | sound file (WAV, Ogg) | [`MAX_SOUND_BYTES`] = 64 MiB |
//! | small TOML inputs (mix file, sound script) | [`MAX_SMALL_TEXT_BYTES`] = 4 MiB |
//! | scan cache | [`MAX_CACHE_BYTES`] = 64 MiB |
//! | baked character (`zoa-anim bake`) | [`MAX_BAKED_BYTES`] = 256 MiB |
//!
//! # Writing rule
//!
//! [`write_all_or_nothing`] writes every file to a temporary sibling
//! (`.<name>.zoa-tmp-<pid>`) first and renames them into place only once all
//! were written, so a failure (a target that is a folder, a full disk)
//! leaves every target as it was. Without `force` it refuses, before writing
//! anything, when any target exists — a dangling symlink counts as existing,
//! and a symlinked target is replaced by the new file, never followed.

use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use crate::AssetError;

/// Largest definition file read (same as [`crate::defs::MAX_FILE_BYTES`]).
pub const MAX_DEFINITION_BYTES: u64 = 4 << 20;
/// Largest `.glb` / `.gltf` file read.
pub const MAX_MODEL_BYTES: u64 = 256 << 20;
/// Largest external glTF buffer read (bytes past a buffer's `byteLength` are never read).
pub const MAX_BUFFER_BYTES: u64 = 256 << 20;
/// Largest sound file read.
pub const MAX_SOUND_BYTES: u64 = 64 << 20;
/// Largest small TOML input read (a `pose` mix file, a `sound render` script).
pub const MAX_SMALL_TEXT_BYTES: u64 = 4 << 20;
/// Largest scan cache read; a larger cache is ignored (and rebuilt).
pub const MAX_CACHE_BYTES: u64 = 64 << 20;
/// Cap of a baked character file (`zoa-anim bake`).
pub const MAX_BAKED_BYTES: u64 = 256 << 20;

/// What a file is, which sets its size cap and names it in errors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum FileKind {
    /// A definition file of a definition folder.
    Definition,
    /// A glTF or GLB model.
    Model,
    /// An external glTF buffer.
    Buffer,
    /// A sound file.
    Sound,
    /// A small TOML input (mix file, sound script).
    SmallText,
    /// The scan cache.
    Cache,
    /// A baked character file.
    Baked,
}

impl FileKind {
    /// The size cap in bytes (see the module table).
    #[must_use]
    pub const fn max_bytes(self) -> u64 {
        match self {
            FileKind::Definition => MAX_DEFINITION_BYTES,
            FileKind::Model => MAX_MODEL_BYTES,
            FileKind::Buffer => MAX_BUFFER_BYTES,
            FileKind::Sound => MAX_SOUND_BYTES,
            FileKind::SmallText => MAX_SMALL_TEXT_BYTES,
            FileKind::Cache => MAX_CACHE_BYTES,
            FileKind::Baked => MAX_BAKED_BYTES,
        }
    }

    /// The name used in messages.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            FileKind::Definition => "definition",
            FileKind::Model => "model",
            FileKind::Buffer => "glTF buffer",
            FileKind::Sound => "sound",
            FileKind::SmallText => "input",
            FileKind::Cache => "scan cache",
            FileKind::Baked => "baked character",
        }
    }
}

/// What a path that is not a regular file is (`a FIFO`, `a folder`, …).
fn describe(ty: &std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if ty.is_fifo() {
            return "a FIFO";
        }
        if ty.is_socket() {
            return "a socket";
        }
        if ty.is_char_device() || ty.is_block_device() {
            return "a device";
        }
    }
    if ty.is_dir() { "a folder" } else { "not a regular file" }
}

fn io(path: &Path, source: std::io::Error) -> AssetError {
    AssetError::Io { path: path.to_path_buf(), source }
}

/// Opens `path` for reading when it is a regular file (following links),
/// without ever blocking on a FIFO or device.
pub fn open_regular(path: &Path) -> Result<File, AssetError> {
    let meta = std::fs::metadata(path).map_err(|e| io(path, e))?;
    if !meta.is_file() {
        return Err(AssetError::NotAFile { path: path.to_path_buf(), what: describe(&meta.file_type()) });
    }
    let mut options = OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options.open(path).map_err(|e| io(path, e))?;
    let meta = file.metadata().map_err(|e| io(path, e))?;
    if !meta.is_file() {
        return Err(AssetError::NotAFile { path: path.to_path_buf(), what: describe(&meta.file_type()) });
    }
    Ok(file)
}

/// Reads a whole file of `kind` (see the module rules).
///
/// # Errors
/// [`AssetError::Io`], [`AssetError::NotAFile`] or [`AssetError::FileTooLarge`].
pub fn read(path: &Path, kind: FileKind) -> Result<Vec<u8>, AssetError> {
    let max = kind.max_bytes();
    let file = open_regular(path)?;
    let size = file.metadata().map_err(|e| io(path, e))?.len();
    if size > max {
        return Err(AssetError::FileTooLarge { path: path.to_path_buf(), kind: kind.name(), size, max });
    }
    let mut bytes = Vec::with_capacity(size as usize);
    file.take(max + 1).read_to_end(&mut bytes).map_err(|e| io(path, e))?;
    if bytes.len() as u64 > max {
        return Err(AssetError::FileTooLarge { path: path.to_path_buf(), kind: kind.name(), size: max + 1, max });
    }
    Ok(bytes)
}

/// Reads a whole UTF-8 text file of `kind`.
///
/// # Errors
/// As [`read`]; a file that is not UTF-8 is [`AssetError::NotUtf8`] (with
/// the byte offset, never the bytes).
pub fn read_to_string(path: &Path, kind: FileKind) -> Result<String, AssetError> {
    let bytes = read(path, kind)?;
    String::from_utf8(bytes)
        .map_err(|e| AssetError::NotUtf8 { path: path.to_path_buf(), offset: e.utf8_error().valid_up_to() })
}

/// Reads at most `limit` bytes from the start of a regular file (a glTF
/// buffer whose file is longer than its `byteLength`). `limit` above the
/// cap of `kind` is refused before anything is read.
///
/// # Errors
/// As [`read`].
pub fn read_prefix(path: &Path, kind: FileKind, limit: u64) -> Result<Vec<u8>, AssetError> {
    let max = kind.max_bytes();
    if limit > max {
        return Err(AssetError::FileTooLarge { path: path.to_path_buf(), kind: kind.name(), size: limit, max });
    }
    let file = open_regular(path)?;
    let size = file.metadata().map_err(|e| io(path, e))?.len();
    let mut bytes = Vec::with_capacity(size.min(limit) as usize);
    file.take(limit).read_to_end(&mut bytes).map_err(|e| io(path, e))?;
    Ok(bytes)
}

/// Whether something (a file, a folder, a dangling or live symlink) is at `path`.
#[must_use]
pub fn occupied(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok()
}

/// A temporary sibling of `target` in the same folder (so a rename is atomic).
fn temp_sibling(target: &Path, n: usize) -> PathBuf {
    let name = target.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    target.with_file_name(format!(".{name}.zoa-tmp-{}-{n}", std::process::id()))
}

/// Writes every `(path, bytes)` or none (see the module's writing rule).
/// Parent folders are created. Returns the paths written, in order.
///
/// # Errors
/// [`AssetError::WouldOverwrite`] (without `force`, before writing anything)
/// or [`AssetError::Io`] naming the file that failed; on error no target was
/// changed and every temporary file and created folder was removed.
pub fn write_all_or_nothing(files: &[(PathBuf, Vec<u8>)], force: bool) -> Result<Vec<PathBuf>, AssetError> {
    write_all_or_nothing_checked(files, force, || Ok::<(), AssetError>(()))
}

/// [`write_all_or_nothing`] with a last check: once every temporary sibling
/// is written, `check` runs immediately before the first rename, and an
/// error from it leaves every target as it was (temporaries and created
/// folders removed). A caller that must not replace a file changed by
/// someone else re-reads it there: the window in which another program's
/// write can be lost shrinks from the whole write to one `rename` call.
///
/// # Errors
/// As [`write_all_or_nothing`], or `check`'s error.
pub fn write_all_or_nothing_checked<E: From<AssetError>>(
    files: &[(PathBuf, Vec<u8>)],
    force: bool,
    check: impl FnOnce() -> Result<(), E>,
) -> Result<Vec<PathBuf>, E> {
    // A set, not a scan of the earlier paths: 20k files stay linear.
    let mut seen = std::collections::HashSet::with_capacity(files.len());
    for (path, _) in files {
        if !seen.insert(path) {
            return Err(io(path, std::io::Error::other("the same file is written twice")).into());
        }
        if let Ok(meta) = std::fs::symlink_metadata(path) {
            if meta.is_dir() {
                return Err(io(path, std::io::Error::other("is a folder; a file cannot replace it")).into());
            }
            if !force {
                return Err(AssetError::WouldOverwrite { path: path.clone() }.into());
            }
        }
    }
    let mut staged = Staged::default();
    for (n, (path, bytes)) in files.iter().enumerate() {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            staged.create_folders(dir)?;
        }
        let temp = temp_sibling(path, n);
        let written = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&temp)
            .and_then(|mut f| f.write_all(bytes).and_then(|()| f.sync_all()));
        if let Err(e) = written {
            let _ = std::fs::remove_file(&temp);
            return Err(io(path, e).into());
        }
        staged.temps.push(temp);
    }
    // Every file is on disk; a target that appeared meanwhile is refused
    // (without force) before any rename.
    if !force && let Some((path, _)) = files.iter().find(|(p, _)| occupied(p)) {
        return Err(AssetError::WouldOverwrite { path: path.clone() }.into());
    }
    check()?;
    for (i, ((path, _), temp)) in files.iter().zip(&staged.temps).enumerate() {
        if let Err(e) = std::fs::rename(temp, path) {
            staged.temps.drain(..i);
            return Err(io(path, e).into());
        }
    }
    staged.commit();
    Ok(files.iter().map(|(p, _)| p.clone()).collect())
}

/// What a write has put on disk so far; removed on drop unless committed.
#[derive(Debug, Default)]
struct Staged {
    temps: Vec<PathBuf>,
    /// Folders this write created, outermost first.
    folders: Vec<PathBuf>,
}

impl Staged {
    /// Creates `dir` and every missing ancestor, remembering each.
    fn create_folders(&mut self, dir: &Path) -> Result<(), AssetError> {
        let mut missing = Vec::new();
        let mut at = Some(dir);
        while let Some(d) = at.filter(|d| !d.as_os_str().is_empty() && !occupied(d)) {
            missing.push(d.to_path_buf());
            at = d.parent();
        }
        for d in missing.into_iter().rev() {
            std::fs::create_dir(&d).map_err(|e| io(&d, e))?;
            self.folders.push(d);
        }
        Ok(())
    }

    fn commit(mut self) {
        self.temps.clear();
        self.folders.clear();
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        for t in &self.temps {
            let _ = std::fs::remove_file(t);
        }
        for d in self.folders.iter().rev() {
            let _ = std::fs::remove_dir(d);
        }
    }
}

/// Writes one file all-or-nothing (see [`write_all_or_nothing`]).
///
/// # Errors
/// As [`write_all_or_nothing`].
pub fn write_file(path: &Path, bytes: &[u8], force: bool) -> Result<(), AssetError> {
    write_all_or_nothing(&[(path.to_path_buf(), bytes.to_vec())], force).map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp() -> (tempfile::TempDir, PathBuf) {
        let t = tempfile::tempdir().unwrap();
        let p = t.path().to_path_buf();
        (t, p)
    }

    #[test]
    fn reads_regular_files_and_refuses_folders_and_oversized_files() {
        let (_t, dir) = temp();
        let f = dir.join("a.toml");
        std::fs::write(&f, b"kind = 1").unwrap();
        assert_eq!(read(&f, FileKind::Definition).unwrap(), b"kind = 1");
        let err = read(&dir, FileKind::Definition).unwrap_err();
        assert!(matches!(err, AssetError::NotAFile { what: "a folder", .. }), "{err}");
        let big = dir.join("big.toml");
        std::fs::File::create(&big).unwrap().set_len(MAX_DEFINITION_BYTES + 1).unwrap();
        let err = read(&big, FileKind::Definition).unwrap_err();
        assert!(matches!(err, AssetError::FileTooLarge { .. }), "{err}");
        assert!(read_prefix(&big, FileKind::Buffer, 3).unwrap() == [0, 0, 0]);
        let err = read_prefix(&big, FileKind::Buffer, MAX_BUFFER_BYTES + 1).unwrap_err();
        assert!(matches!(err, AssetError::FileTooLarge { .. }), "{err}");
    }

    #[test]
    fn non_utf8_text_names_the_offset_not_the_bytes() {
        let (_t, dir) = temp();
        let f = dir.join("a.toml");
        std::fs::write(&f, b"ab\xffsecret").unwrap();
        let err = read_to_string(&f, FileKind::SmallText).unwrap_err();
        let text = err.to_string();
        assert!(text.contains("offset 2") && !text.contains("secret"), "{text}");
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_is_refused_without_blocking() {
        let (_t, dir) = temp();
        let fifo = dir.join("x.toml");
        let status = std::process::Command::new("mkfifo").arg(&fifo).status();
        if !status.is_ok_and(|s| s.success()) {
            eprintln!("note: mkfifo unavailable; skipped");
            return;
        }
        let err = read(&fifo, FileKind::Definition).unwrap_err();
        assert!(matches!(err, AssetError::NotAFile { what: "a FIFO", .. }), "{err}");
    }

    #[test]
    fn writes_all_or_nothing_and_never_overwrites_without_force() {
        let (_t, dir) = temp();
        let a = dir.join("a.txt");
        let blocker = dir.join("b.txt");
        std::fs::create_dir_all(&blocker).unwrap();
        std::fs::write(&a, b"old").unwrap();
        // b.txt is a folder: nothing is written, a keeps its content.
        let err =
            write_all_or_nothing(&[(a.clone(), b"new".to_vec()), (blocker.clone(), b"x".to_vec())], true).unwrap_err();
        assert!(err.to_string().contains("b.txt"), "{err}");
        assert_eq!(std::fs::read(&a).unwrap(), b"old");
        // Without force an existing file is refused up front.
        let c = dir.join("c.txt");
        let err = write_all_or_nothing(&[(c.clone(), b"c".to_vec()), (a.clone(), b"new".to_vec())], false).unwrap_err();
        assert!(matches!(err, AssetError::WouldOverwrite { .. }), "{err}");
        assert!(!c.exists());
        // With force both land; no temporary file is left behind.
        write_all_or_nothing(&[(c.clone(), b"c".to_vec()), (a.clone(), b"new".to_vec())], true).unwrap();
        assert_eq!(std::fs::read(&a).unwrap(), b"new");
        let names: Vec<String> =
            std::fs::read_dir(&dir).unwrap().flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect();
        assert!(names.iter().all(|n| !n.contains("zoa-tmp")), "{names:?}");
    }

    #[cfg(unix)]
    #[test]
    fn a_symlinked_target_is_replaced_never_followed() {
        let (_t, dir) = temp();
        let outside = dir.join("outside.txt");
        std::fs::write(&outside, b"precious").unwrap();
        let out = dir.join("out");
        std::fs::create_dir_all(&out).unwrap();
        let link = out.join("capture.json");
        std::os::unix::fs::symlink(&outside, &link).unwrap();
        let dangling = out.join("frames.png");
        std::os::unix::fs::symlink(dir.join("nowhere.png"), &dangling).unwrap();
        assert!(matches!(write_file(&dangling, b"x", false), Err(AssetError::WouldOverwrite { .. })));
        assert!(!dir.join("nowhere.png").exists());
        write_file(&link, b"{}", true).unwrap();
        assert_eq!(std::fs::read(&outside).unwrap(), b"precious");
        assert!(!std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
    }
}

//! The folders the Workbench may touch, and the only way a path from a
//! request becomes a path on disk.
//!
//! A request names a file by a *virtual path*: a root label, a slash, then a
//! path relative to that root (`defs/bindings/rifle.toml`,
//! `assets/humanoid.glb`). Labels are `defs` for `--defs` and `assets`,
//! `assets2`, … for each `--assets` folder in order.
//!
//! Rules (each refused with a [`PathError`], never silently fixed):
//! - components are plain names: no empty component, no `.` or `..`, no
//!   leading `.` (hidden files, and the save's temporary siblings), no `\`,
//!   no NUL, no drive or root prefix;
//! - the canonical path (symlinks resolved) must stay inside the root's
//!   canonical folder, so a symlink that leads out is refused;
//! - writes go to `--defs` only (the asset folders are read-only here), never
//!   through a symlink, and new files are created only under existing
//!   folders inside the root or folders this module creates there.
//!
//! The checks run before every open, but a local user who can swap a folder
//! for a symlink between the check and the open is outside the threat model
//! (the server guards against web pages, not against other local accounts).

use std::fmt;
use std::path::{Component, Path, PathBuf};

/// Why a virtual path was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathError {
    /// The path as the request gave it.
    pub path: String,
    /// What is wrong with it.
    pub reason: String,
}

impl fmt::Display for PathError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "path `{}` refused: {}", self.path, self.reason)
    }
}

impl std::error::Error for PathError {}

fn refuse(path: &str, reason: impl Into<String>) -> PathError {
    PathError { path: path.to_owned(), reason: reason.into() }
}

/// One folder the server may read (and, for `--defs`, write).
#[derive(Debug, Clone)]
pub struct Root {
    /// `defs`, `assets`, `assets2`, …
    pub label: String,
    /// The folder as the user gave it (for display).
    pub given: PathBuf,
    /// Its canonical form (every check compares against this).
    pub dir: PathBuf,
    /// Whether the server writes here (only `--defs`).
    pub writable: bool,
}

/// A checked path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    /// Index of the root in [`Roots::list`].
    pub root: usize,
    /// Path relative to the root as written (`/`-joined components); what the
    /// definition loader calls the file.
    pub rel: PathBuf,
    /// The path on disk (the root's canonical folder joined with `rel`).
    pub abs: PathBuf,
}

/// Every root, `defs` first.
#[derive(Debug, Clone)]
pub struct Roots {
    /// `list[0]` is `--defs`.
    pub list: Vec<Root>,
}

impl Roots {
    /// Canonicalizes the folders; each must exist and be a folder.
    pub fn new(defs: &Path, assets: &[PathBuf]) -> Result<Roots, String> {
        let mut list = Vec::new();
        for (i, given) in std::iter::once(defs).chain(assets.iter().map(PathBuf::as_path)).enumerate() {
            let dir =
                std::fs::canonicalize(given).map_err(|e| format!("`{}` cannot be reached: {e}", given.display()))?;
            if !dir.is_dir() {
                return Err(format!("`{}` is not a folder", given.display()));
            }
            let label = match i {
                0 => "defs".to_owned(),
                1 => "assets".to_owned(),
                n => format!("assets{n}"),
            };
            list.push(Root { label, given: given.to_path_buf(), dir, writable: i == 0 });
        }
        Ok(Roots { list })
    }

    /// The `--defs` root.
    pub fn defs(&self) -> &Root {
        &self.list[0]
    }

    /// Splits and checks the components of `vpath` (nothing is read).
    fn parse(&self, vpath: &str) -> Result<(usize, PathBuf), PathError> {
        if vpath.contains('\0') || vpath.contains('\\') {
            return Err(refuse(vpath, "NUL and `\\` are not allowed"));
        }
        let (label, rest) = vpath.split_once('/').unwrap_or((vpath, ""));
        let Some(root) = self.list.iter().position(|r| r.label == label) else {
            let labels: Vec<&str> = self.list.iter().map(|r| r.label.as_str()).collect();
            return Err(refuse(vpath, format!("it must start with one of: {}", labels.join(", "))));
        };
        let mut rel = PathBuf::new();
        if !rest.is_empty() {
            for part in rest.split('/') {
                if part.is_empty() || part == "." || part == ".." || part.starts_with('.') {
                    return Err(refuse(vpath, format!("component `{part}` is not a plain name")));
                }
                let mut comps = Path::new(part).components();
                if !matches!((comps.next(), comps.next()), (Some(Component::Normal(_)), None)) {
                    return Err(refuse(vpath, format!("component `{part}` is not a plain name")));
                }
                rel.push(part);
            }
        }
        Ok((root, rel))
    }

    /// An existing file or folder inside a root (symlinks allowed when they
    /// stay inside the same root).
    pub fn existing(&self, vpath: &str) -> Result<Resolved, PathError> {
        let (root, rel) = self.parse(vpath)?;
        let base = &self.list[root].dir;
        let abs = base.join(&rel);
        let canon =
            std::fs::canonicalize(&abs).map_err(|e| refuse(vpath, format!("it cannot be reached ({})", e.kind())))?;
        if !canon.starts_with(base) {
            return Err(refuse(vpath, "it leads outside its root folder (a symlink escape)"));
        }
        Ok(Resolved { root, rel, abs })
    }

    /// An existing regular file inside a root.
    pub fn existing_file(&self, vpath: &str) -> Result<Resolved, PathError> {
        let r = self.existing(vpath)?;
        match std::fs::metadata(&r.abs) {
            Ok(m) if m.is_file() => Ok(r),
            Ok(_) => Err(refuse(vpath, "it is not a regular file")),
            Err(e) => Err(refuse(vpath, format!("it cannot be reached ({})", e.kind()))),
        }
    }

    /// A file in `--defs` to write: it may exist (then it must be a regular
    /// file, not a symlink) or not (then its folder must be inside the root).
    /// `.toml` only. Nothing is created here: missing folders are created by
    /// the writer, after its checks pass ([`super::files::Writer::save`]).
    pub fn writable_toml(&self, vpath: &str) -> Result<Resolved, PathError> {
        let (root, rel) = self.parse(vpath)?;
        if !self.list[root].writable {
            return Err(refuse(vpath, "only files under `defs/` can be written"));
        }
        if rel.extension().is_none_or(|e| e != "toml") {
            return Err(refuse(vpath, "definition files end in `.toml`"));
        }
        let base = &self.list[root].dir;
        let abs = base.join(&rel);
        match std::fs::symlink_metadata(&abs) {
            Ok(m) if m.file_type().is_symlink() => return Err(refuse(vpath, "it is a symlink; edit its target")),
            Ok(m) if !m.is_file() => return Err(refuse(vpath, "it is not a regular file")),
            _ => {}
        }
        // Walk the folders from the root down: each must be a real folder
        // inside the root; from the first missing one on, nothing is there yet.
        let mut dir = base.clone();
        if let Some(parent) = rel.parent() {
            for part in parent.components() {
                dir.push(part);
                match std::fs::symlink_metadata(&dir) {
                    Ok(m) if m.is_dir() => {}
                    Ok(m) if m.file_type().is_symlink() => {
                        let canon = std::fs::canonicalize(&dir)
                            .map_err(|e| refuse(vpath, format!("its folder cannot be reached ({})", e.kind())))?;
                        if !canon.starts_with(base) || !canon.is_dir() {
                            return Err(refuse(vpath, "its folder leads outside the root (a symlink escape)"));
                        }
                    }
                    Ok(_) => return Err(refuse(vpath, "a component of its folder is a file")),
                    Err(_) => break,
                }
            }
        }
        Ok(Resolved { root, rel, abs })
    }

    /// The path relative to `--defs` of a definition file that may not exist
    /// yet (nothing on disk is touched): for validating unsaved buffers.
    pub fn defs_toml(&self, vpath: &str) -> Result<PathBuf, PathError> {
        let (root, rel) = self.parse(vpath)?;
        if root != 0 || rel.extension().is_none_or(|e| e != "toml") {
            return Err(refuse(vpath, "definition files are `.toml` files under `defs/`"));
        }
        // Whatever part exists must resolve inside the root (no symlink out).
        let base = &self.list[root].dir;
        let mut probe = base.join(&rel);
        loop {
            if std::fs::symlink_metadata(&probe).is_ok() {
                let canon = std::fs::canonicalize(&probe)
                    .map_err(|e| refuse(vpath, format!("it cannot be reached ({})", e.kind())))?;
                if !canon.starts_with(base) {
                    return Err(refuse(vpath, "it leads outside its root folder (a symlink escape)"));
                }
                break;
            }
            if !probe.pop() || probe == *base {
                break;
            }
        }
        Ok(rel)
    }

    /// The virtual path of a file on disk, when it lies inside a root.
    pub fn to_virtual(&self, path: &Path) -> Option<String> {
        let canon = std::fs::canonicalize(path).ok()?;
        self.list.iter().find_map(|r| {
            let rel = canon.strip_prefix(&r.dir).ok()?;
            Some(virtual_of(&r.label, rel))
        })
    }

    /// Whether `path` (resolved) lies inside some root.
    pub fn contains(&self, path: &Path) -> bool {
        self.to_virtual(path).is_some()
    }
}

/// `label/a/b` from a label and a relative path.
pub fn virtual_of(label: &str, rel: &Path) -> String {
    let mut s = label.to_owned();
    for c in rel.components() {
        s.push('/');
        s.push_str(&c.as_os_str().to_string_lossy());
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roots() -> (tempfile::TempDir, Roots) {
        let t = tempfile::tempdir().unwrap();
        let defs = t.path().join("defs");
        let assets = t.path().join("assets");
        std::fs::create_dir_all(defs.join("sub")).unwrap();
        std::fs::create_dir_all(&assets).unwrap();
        std::fs::write(defs.join("sub/a.toml"), "x").unwrap();
        std::fs::write(assets.join("m.glb"), "x").unwrap();
        std::fs::write(t.path().join("secret.toml"), "s").unwrap();
        let r = Roots::new(&defs, &[assets]).unwrap();
        (t, r)
    }

    #[test]
    fn plain_paths_resolve_inside_their_root() {
        let (_t, r) = roots();
        let a = r.existing_file("defs/sub/a.toml").unwrap();
        assert_eq!((a.root, a.rel.as_path()), (0, Path::new("sub/a.toml")));
        assert_eq!(r.existing_file("assets/m.glb").unwrap().root, 1);
        assert_eq!(r.to_virtual(&a.abs).as_deref(), Some("defs/sub/a.toml"));
    }

    #[test]
    fn traversal_and_odd_components_are_refused() {
        let (_t, r) = roots();
        for bad in [
            "defs/../secret.toml",
            "defs/sub/../../secret.toml",
            "/etc/passwd",
            "defs//a.toml",
            "defs/./sub/a.toml",
            "defs/.hidden.toml",
            "defs/sub\\a.toml",
            "other/a.toml",
            "defs/a\0.toml",
        ] {
            assert!(r.existing(bad).is_err(), "{bad}");
            assert!(r.writable_toml(bad).is_err(), "{bad}");
        }
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_that_leave_the_root_are_refused() {
        let (t, r) = roots();
        let defs = t.path().join("defs");
        std::os::unix::fs::symlink(t.path().join("secret.toml"), defs.join("link.toml")).unwrap();
        std::os::unix::fs::symlink(t.path(), defs.join("up")).unwrap();
        std::os::unix::fs::symlink(defs.join("sub/a.toml"), defs.join("inner.toml")).unwrap();
        assert!(r.existing("defs/link.toml").unwrap_err().reason.contains("symlink escape"));
        assert!(r.existing("defs/up/secret.toml").is_err());
        assert!(r.writable_toml("defs/up/new.toml").unwrap_err().reason.contains("outside"));
        // A link inside the root reads, but is never written through.
        assert!(r.existing_file("defs/inner.toml").is_ok());
        assert!(r.writable_toml("defs/inner.toml").unwrap_err().reason.contains("symlink"));
    }

    #[test]
    fn writes_stay_in_defs_and_checking_one_creates_nothing() {
        let (t, r) = roots();
        assert!(r.writable_toml("assets/new.toml").unwrap_err().reason.contains("defs/"));
        assert!(r.writable_toml("defs/new.txt").is_err());
        let w = r.writable_toml("defs/x/y/new.toml").unwrap();
        assert!(!t.path().join("defs/x").exists(), "the writer creates folders, after its checks");
        assert_eq!(w.rel, Path::new("x/y/new.toml"));
    }
}

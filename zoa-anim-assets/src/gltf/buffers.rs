//! Buffer resolution without the `gltf` crate's `import` feature: the GLB
//! BIN chunk, `data:` base64 URIs, and files relative to the glTF's folder.
//!
//! Only buffers that a needed accessor reads are resolved, so a missing
//! texture-only `.bin` does not stop an animation import. Every resolved
//! buffer is proven to hold at least its declared `byteLength`, which the
//! accessor checks rely on.
//!
//! # Confinement
//!
//! An external buffer URI is percent-decoded first, then must be a relative
//! path that stays inside the glTF file's folder tree: no absolute path, no
//! `..` that climbs above the folder, and (after following symlinks) a real
//! path under the folder's real path. The file must be a regular file (a
//! FIFO or `/dev/zero` is refused without being opened for reading), and at
//! most `byteLength` bytes (capped at [`crate::files::MAX_BUFFER_BYTES`]) are
//! read. [`BufferAccess::Anywhere`] lifts the folder rule for callers that
//! opt in; the other rules always hold.

use std::borrow::Cow;
use std::path::Path;

use gltf::json;

use super::Problems;

/// Where external glTF buffers may be read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BufferAccess {
    /// Only inside the glTF file's folder tree (the default).
    #[default]
    FolderTree,
    /// Any relative or absolute path the URI names (opt-in; files are still
    /// regular-file and size checked).
    Anywhere,
}

/// Resolves `root.buffers[i]` for every `needed[i]`; the others stay empty.
pub(crate) fn resolve<'a>(
    root: &json::Root,
    needed: &[bool],
    bin: Option<&'a [u8]>,
    base_dir: Option<&Path>,
    access: BufferAccess,
    problems: &mut Problems,
) -> Vec<Cow<'a, [u8]>> {
    let mut out = Vec::with_capacity(root.buffers.len());
    for (i, buffer) in root.buffers.iter().enumerate() {
        if !needed.get(i).copied().unwrap_or(false) {
            out.push(Cow::Borrowed(&[][..]));
            continue;
        }
        let element = match &buffer.uri {
            Some(uri) if uri.starts_with("data:") => format!("buffer {i}"),
            Some(uri) => format!("buffer {i} ({uri:?})"),
            None => format!("buffer {i}"),
        };
        let declared = buffer.byte_length.0;
        let data = match load(i, buffer.uri.as_deref(), declared, bin, base_dir, access) {
            Ok(data) => data,
            Err(reason) => {
                problems.push(element, reason);
                out.push(Cow::Borrowed(&[][..]));
                continue;
            }
        };
        if (data.len() as u64) < declared {
            problems.push(element, format!("byteLength is {declared} but only {} bytes are available", data.len()));
            out.push(Cow::Borrowed(&[][..]));
        } else {
            out.push(data);
        }
    }
    out
}

fn load<'a>(
    index: usize,
    uri: Option<&str>,
    declared: u64,
    bin: Option<&'a [u8]>,
    base_dir: Option<&Path>,
    access: BufferAccess,
) -> Result<Cow<'a, [u8]>, String> {
    let Some(uri) = uri else {
        return match (index, bin) {
            (0, Some(bin)) => Ok(Cow::Borrowed(bin)),
            (0, None) => Err("has no uri and the file has no GLB BIN chunk".into()),
            _ => Err("has no uri but only buffer 0 may refer to the GLB BIN chunk".into()),
        };
    };
    if let Some(rest) = uri.strip_prefix("data:") {
        let (header, payload) = rest.split_once(',').ok_or("data URI has no ',' before its payload")?;
        if !header.ends_with(";base64") {
            return Err("data URI is not base64-encoded (only ';base64,' data URIs are supported)".into());
        }
        return decode_base64(payload).map(Cow::Owned);
    }
    if has_scheme(uri) {
        return Err("URI scheme is not supported (only data: URIs and relative paths)".into());
    }
    let decoded = percent_decode(uri)?;
    let relative = Path::new(&decoded);
    let absolute = relative.is_absolute() || decoded.starts_with('/') || decoded.starts_with('\\');
    if absolute && access == BufferAccess::FolderTree {
        return Err("URI is an absolute path; glTF buffer URIs must be relative to the glTF's folder".into());
    }
    if access == BufferAccess::FolderTree && climbs_out(relative) {
        return Err("URI climbs above the glTF's folder with `..`; buffers must lie in its folder tree".into());
    }
    let base =
        base_dir.ok_or("refers to an external file but the glTF was loaded from memory without a base folder")?;
    let path = base.join(relative);
    if access == BufferAccess::FolderTree {
        // Symlinks may point anywhere: compare real paths.
        let real_base = std::fs::canonicalize(if base.as_os_str().is_empty() { Path::new(".") } else { base })
            .map_err(|e| format!("cannot resolve the glTF's folder: {e}"))?;
        let real = std::fs::canonicalize(&path).map_err(|e| format!("cannot open the buffer file: {e}"))?;
        if !real.starts_with(&real_base) {
            return Err("URI resolves (through a symlink) outside the glTF's folder tree".into());
        }
    }
    let data = crate::files::read_prefix(&path, crate::files::FileKind::Buffer, declared)
        .map_err(|e| buffer_read_reason(&e))?;
    Ok(Cow::Owned(data))
}

/// A read failure as a problem reason (the element already names the URI).
fn buffer_read_reason(e: &crate::AssetError) -> String {
    match e {
        crate::AssetError::Io { source, .. } => format!("cannot read the buffer file: {source}"),
        crate::AssetError::NotAFile { what, .. } => format!("the buffer file is {what}, not a regular file"),
        crate::AssetError::FileTooLarge { max, .. } => {
            format!("byteLength is over the {} MiB limit for external buffers", max >> 20)
        }
        other => other.to_string(),
    }
}

/// Whether a relative path's `..` segments take it above its starting
/// folder (segments split at `/` and `\\` on every platform, so a
/// Windows-style URI is judged the same everywhere).
fn climbs_out(relative: &Path) -> bool {
    let text = relative.to_string_lossy();
    let mut depth: i64 = 0;
    for part in text.split(['/', '\\']) {
        match part {
            ".." => depth -= 1,
            "" | "." => {}
            _ => depth += 1,
        }
        if depth < 0 {
            return true;
        }
    }
    false
}

/// RFC 3986 scheme: ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) ":" before any '/'.
fn has_scheme(uri: &str) -> bool {
    let Some(colon) = uri.find(':') else { return false };
    let scheme = &uri[..colon];
    !scheme.is_empty()
        && scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
}

/// Decodes `%XX` escapes; the result must be UTF-8 (gltf 1.4.1 panics when it is not).
pub(crate) fn percent_decode(uri: &str) -> Result<String, String> {
    let bytes = uri.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = bytes
                .get(i + 1..i + 3)
                .filter(|h| h.iter().all(u8::is_ascii_hexdigit))
                .and_then(|h| std::str::from_utf8(h).ok());
            let value = hex.and_then(|h| u8::from_str_radix(h, 16).ok()).ok_or_else(|| {
                format!("URI has a malformed percent escape at byte {i} (expected %XX with two hex digits)")
            })?;
            out.push(value);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out)
        .map_err(|e| format!("URI is not valid UTF-8 after percent-decoding (byte {})", e.utf8_error().valid_up_to()))
}

/// Standard or URL-safe base64, padding optional.
pub(crate) fn decode_base64(text: &str) -> Result<Vec<u8>, String> {
    let trimmed = text.trim_end_matches('=');
    if text.len() - trimmed.len() > 2 {
        return Err("base64 payload has more than two '=' padding characters".into());
    }
    let mut out = Vec::with_capacity(trimmed.len() / 4 * 3 + 3);
    let mut acc: u32 = 0;
    let mut bits = 0u32;
    for (i, c) in trimmed.bytes().enumerate() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            _ => return Err(format!("base64 payload has an invalid character {:?} at position {i}", char::from(c))),
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    if bits >= 6 {
        return Err("base64 payload has a dangling character at its end".into());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_round_trips_known_vectors() {
        assert_eq!(decode_base64("").unwrap(), b"");
        assert_eq!(decode_base64("Zg==").unwrap(), b"f");
        assert_eq!(decode_base64("Zm8=").unwrap(), b"fo");
        assert_eq!(decode_base64("Zm9v").unwrap(), b"foo");
        assert_eq!(decode_base64("Zm9vYmFy").unwrap(), b"foobar");
        assert_eq!(decode_base64("AACAPw==").unwrap(), 1.0f32.to_le_bytes());
        assert_eq!(decode_base64("-_8").unwrap(), decode_base64("+/8").unwrap());
        assert!(decode_base64("Zm9v!").is_err());
        assert!(decode_base64("Z").is_err());
        assert!(decode_base64("Zg===").is_err());
    }

    #[test]
    fn percent_decoding_checks_escapes_and_utf8() {
        assert_eq!(percent_decode("a%20b.bin").unwrap(), "a b.bin");
        assert_eq!(percent_decode("%C3%A9.bin").unwrap(), "é.bin");
        assert!(percent_decode("%FF.bin").unwrap_err().contains("not valid UTF-8"));
        assert!(percent_decode("%4").unwrap_err().contains("malformed percent escape"));
        assert!(percent_decode("%zz").is_err());
        assert!(percent_decode("%+5").is_err());
    }

    #[test]
    fn climbing_out_is_detected_after_decoding() {
        assert!(climbs_out(Path::new("../x.bin")));
        assert!(climbs_out(Path::new("a/../../x.bin")));
        assert!(climbs_out(Path::new(&percent_decode("%2e%2e/%2E%2E/etc/passwd").unwrap())));
        assert!(!climbs_out(Path::new("a/../x.bin")));
        assert!(!climbs_out(Path::new("./bin/x.bin")));
    }

    #[test]
    fn schemes_are_recognised() {
        assert!(has_scheme("http://x/y.bin"));
        assert!(has_scheme("file:y.bin"));
        assert!(!has_scheme("y.bin"));
        assert!(!has_scheme("dir/y:1.bin"));
    }
}

//! The GLB container: header and chunk checks done here, before any parser
//! sees the bytes (gltf 1.4.1 underflows on a header length below 12).
//!
//! Layout (glTF 2.0 §4.4): a 12-byte header `magic "glTF" | version u32 |
//! length u32`, then chunks `length u32 | type u32 | data`, the first one
//! `JSON`, an optional second one `BIN\0`; unknown chunk types are skipped.

use crate::AssetError;

/// The parts of a glTF file.
#[derive(Debug)]
pub(crate) struct Parts<'a> {
    /// The JSON document.
    pub json: &'a [u8],
    /// The GLB binary chunk, when the file is a GLB that has one.
    pub bin: Option<&'a [u8]>,
}

const HEADER: usize = 12;
const CHUNK_HEADER: usize = 8;
const JSON: [u8; 4] = *b"JSON";
const BIN: [u8; 4] = *b"BIN\0";

fn u32_at(bytes: &[u8], at: usize) -> Option<u32> {
    let b = bytes.get(at..at.checked_add(4)?)?;
    Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

fn chunk_name(ty: [u8; 4]) -> String {
    ty.iter().map(|&b| if b.is_ascii_graphic() { char::from(b) } else { '.' }).collect()
}

/// Splits `bytes` into JSON and BIN. A file is treated as GLB when it starts
/// with the magic `glTF` or its name ends in `.glb`; anything else is JSON.
pub(crate) fn split<'a>(bytes: &'a [u8], file: &str) -> Result<Parts<'a>, AssetError> {
    let named_glb = file.rsplit('.').next().is_some_and(|ext| ext.eq_ignore_ascii_case("glb"));
    if !bytes.starts_with(b"glTF") {
        if named_glb {
            return Err(AssetError::gltf(
                file,
                "GLB header",
                "magic is not \"glTF\" (67 6c 54 46); the file is not a GLB",
            ));
        }
        return Ok(Parts { json: bytes, bin: None });
    }
    let length = header_length(bytes, file)?;
    let mut json = None;
    let mut bin = None;
    let mut pos = HEADER;
    let mut index = 0usize;
    while pos < length {
        let element = format!("GLB chunk {index}");
        if length - pos < CHUNK_HEADER {
            return Err(AssetError::gltf(
                file,
                element,
                format!("{} stray byte(s) at offset {pos}, too few for a chunk header", length - pos),
            ));
        }
        let chunk_len = u32_at(bytes, pos).unwrap_or(0) as usize;
        let ty = [bytes[pos + 4], bytes[pos + 5], bytes[pos + 6], bytes[pos + 7]];
        let start = pos + CHUNK_HEADER;
        let left = length - start;
        if chunk_len > left {
            return Err(AssetError::gltf(
                file,
                element,
                format!(
                    "{} chunk length {chunk_len} runs past the end of the file ({left} bytes left)",
                    chunk_name(ty)
                ),
            ));
        }
        let data = &bytes[start..start + chunk_len];
        match (index, ty) {
            (0, JSON) => json = Some(data),
            (0, _) => {
                return Err(AssetError::gltf(
                    file,
                    element,
                    format!("first chunk is {:?}, expected JSON", chunk_name(ty)),
                ));
            }
            (1, BIN) => bin = Some(data),
            (_, JSON | BIN) => {
                return Err(AssetError::gltf(
                    file,
                    element,
                    format!("unexpected {} chunk (JSON must be chunk 0 and BIN chunk 1)", chunk_name(ty)),
                ));
            }
            // glTF 2.0 §4.4.3: unknown chunk types are ignored.
            _ => {}
        }
        pos = start + chunk_len;
        index += 1;
    }
    match json {
        Some(json) if !json.is_empty() => Ok(Parts { json, bin }),
        Some(_) => Err(AssetError::gltf(file, "GLB chunk 0", "JSON chunk is empty")),
        None => Err(AssetError::gltf(file, "GLB header", "no JSON chunk")),
    }
}

/// The checked GLB header of `bytes` (which start with the magic): version 2
/// and a length field equal to the file's length, which it returns.
fn header_length(bytes: &[u8], file: &str) -> Result<usize, AssetError> {
    let err = |reason: String| AssetError::gltf(file, "GLB header", reason);
    if bytes.len() < HEADER {
        return Err(err(format!("file is {} bytes, shorter than the {HEADER}-byte header", bytes.len())));
    }
    let version = u32_at(bytes, 4).unwrap_or(0);
    if version != 2 {
        return Err(err(format!("version is {version}, only version 2 is supported")));
    }
    let length = u32_at(bytes, 8).unwrap_or(0) as usize;
    if length < HEADER {
        return Err(err(format!("length field is {length}, smaller than the {HEADER}-byte header")));
    }
    if length > bytes.len() {
        return Err(err(format!("length field says {length} bytes but the file has {} (truncated)", bytes.len())));
    }
    if length < bytes.len() {
        return Err(err(format!(
            "length field says {length} bytes but the file has {} ({} bytes of trailing data)",
            bytes.len(),
            bytes.len() - length
        )));
    }
    Ok(length)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn glb(json: &[u8], bin: Option<&[u8]>) -> Vec<u8> {
        let mut out = b"glTF".to_vec();
        out.extend(2u32.to_le_bytes());
        out.extend(0u32.to_le_bytes());
        out.extend((json.len() as u32).to_le_bytes());
        out.extend(JSON);
        out.extend(json);
        if let Some(bin) = bin {
            out.extend((bin.len() as u32).to_le_bytes());
            out.extend(BIN);
            out.extend(bin);
        }
        let len = out.len() as u32;
        out[8..12].copy_from_slice(&len.to_le_bytes());
        out
    }

    fn reason(bytes: &[u8]) -> String {
        split(bytes, "t.glb").unwrap_err().to_string()
    }

    #[test]
    fn splits_json_and_bin() {
        let bytes = glb(b"{}  ", Some(&[1, 2, 3, 4]));
        let parts = split(&bytes, "t.glb").unwrap();
        assert_eq!(parts.json, b"{}  ");
        assert_eq!(parts.bin, Some(&[1u8, 2, 3, 4][..]));
    }

    #[test]
    fn json_files_pass_through() {
        let parts = split(b"{\"asset\":{}}", "t.gltf").unwrap();
        assert_eq!(parts.json, b"{\"asset\":{}}");
        assert!(parts.bin.is_none());
    }

    #[test]
    fn header_problems_are_named() {
        assert!(reason(b"glTF\x02\x00").contains("shorter than the 12-byte header"));
        assert!(reason(b"nope").contains("magic is not \"glTF\""));
        let mut v1 = glb(b"{}", None);
        v1[4] = 1;
        assert!(reason(&v1).contains("version is 1"));
        let mut short = glb(b"{}", None);
        short[8..12].copy_from_slice(&4u32.to_le_bytes());
        assert!(reason(&short).contains("length field is 4, smaller than the 12-byte header"));
        let mut long = glb(b"{}", None);
        long[8..12].copy_from_slice(&1000u32.to_le_bytes());
        assert!(reason(&long).contains("(truncated)"));
        let mut trailing = glb(b"{}", None);
        trailing.push(0);
        assert!(reason(&trailing).contains("trailing data"));
    }

    #[test]
    fn chunk_problems_are_named() {
        let mut bad_len = glb(b"{}", None);
        bad_len[12..16].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(reason(&bad_len).contains("GLB chunk 0: JSON chunk length 4294967295 runs past the end"));
        let mut first_bin = glb(b"{}", None);
        first_bin[16..20].copy_from_slice(&BIN);
        assert!(reason(&first_bin).contains("expected JSON"));
        let mut stray = glb(b"{}", None);
        stray.extend([0, 0, 0]);
        let len = stray.len() as u32;
        stray[8..12].copy_from_slice(&len.to_le_bytes());
        assert!(reason(&stray).contains("3 stray byte(s)"));
        assert!(reason(&glb(b"", None)).contains("JSON chunk is empty"));
        let only_header = glb(b"", None)[..12].to_vec();
        let mut only_header = only_header;
        only_header[8..12].copy_from_slice(&12u32.to_le_bytes());
        assert!(reason(&only_header).contains("no JSON chunk"));
    }

    #[test]
    fn unknown_chunks_are_skipped() {
        let mut bytes = glb(b"{}", Some(&[9; 4]));
        bytes.extend(4u32.to_le_bytes());
        bytes.extend(*b"XTRA");
        bytes.extend([0; 4]);
        let len = bytes.len() as u32;
        bytes[8..12].copy_from_slice(&len.to_le_bytes());
        let parts = split(&bytes, "t.glb").unwrap();
        assert_eq!(parts.bin, Some(&[9u8; 4][..]));
    }
}

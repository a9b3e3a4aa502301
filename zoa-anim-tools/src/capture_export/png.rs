//! A small PNG writer for palette images: 8-bit indexed colour, one IDAT
//! chunk compressed with fixed-Huffman deflate that codes byte runs as
//! distance-1 matches. Charts are mostly long runs of one colour, so this
//! simple scheme already shrinks them 20–50×, with no dependency.

/// CRC-32 (ISO 3309, as PNG chunks use), bitwise table built on the fly.
fn crc32(parts: &[&[u8]]) -> u32 {
    let mut table = [0u32; 256];
    for (n, slot) in table.iter_mut().enumerate() {
        let mut c = n as u32;
        for _ in 0..8 {
            c = if c & 1 != 0 { 0xEDB8_8320 ^ (c >> 1) } else { c >> 1 };
        }
        *slot = c;
    }
    let mut crc = 0xFFFF_FFFFu32;
    for part in parts {
        for &b in *part {
            crc = table[((crc ^ u32::from(b)) & 0xFF) as usize] ^ (crc >> 8);
        }
    }
    crc ^ 0xFFFF_FFFF
}

fn adler32(data: &[u8]) -> u32 {
    let (mut a, mut b) = (1u32, 0u32);
    for chunk in data.chunks(5552) {
        for &x in chunk {
            a += u32::from(x);
            b += a;
        }
        a %= 65521;
        b %= 65521;
    }
    (b << 16) | a
}

/// LSB-first bit writer (deflate's bit order).
struct Bits {
    out: Vec<u8>,
    acc: u64,
    n: u32,
}

impl Bits {
    fn put(&mut self, value: u32, count: u32) {
        self.acc |= u64::from(value) << self.n;
        self.n += count;
        while self.n >= 8 {
            self.out.push(self.acc as u8);
            self.acc >>= 8;
            self.n -= 8;
        }
    }
    /// A Huffman code, which deflate stores most-significant bit first.
    fn code(&mut self, code: u32, len: u32) {
        let reversed = code.reverse_bits() >> (32 - len);
        self.put(reversed, len);
    }
    fn finish(mut self) -> Vec<u8> {
        if self.n > 0 {
            self.out.push(self.acc as u8);
        }
        self.out
    }
}

fn literal(bits: &mut Bits, sym: u32) {
    match sym {
        0..=143 => bits.code(0x30 + sym, 8),
        144..=255 => bits.code(0x190 + sym - 144, 9),
        256..=279 => bits.code(sym - 256, 7),
        _ => bits.code(0xC0 + sym - 280, 8),
    }
}

const LENGTH_BASE: [u16; 29] =
    [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258];
const LENGTH_EXTRA: [u8; 29] = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0];

/// A zlib stream of `data`: one fixed-Huffman block, runs as distance-1 matches.
pub(crate) fn zlib(data: &[u8]) -> Vec<u8> {
    let mut bits = Bits { out: vec![0x78, 0x01], acc: 0, n: 0 };
    bits.put(1, 1); // final block
    bits.put(1, 2); // fixed Huffman
    let mut i = 0;
    while i < data.len() {
        let mut run = 0;
        if i > 0 {
            while i + run < data.len() && run < 258 && data[i + run] == data[i - 1] {
                run += 1;
            }
        }
        if run >= 3 {
            let code = LENGTH_BASE.iter().rposition(|&b| usize::from(b) <= run).unwrap_or(0);
            literal(&mut bits, 257 + code as u32);
            bits.put((run - usize::from(LENGTH_BASE[code])) as u32, u32::from(LENGTH_EXTRA[code]));
            bits.code(0, 5); // distance code 0 = distance 1
            i += run;
        } else {
            literal(&mut bits, u32::from(data[i]));
            i += 1;
        }
    }
    literal(&mut bits, 256);
    let mut out = bits.finish();
    out.extend_from_slice(&adler32(data).to_be_bytes());
    out
}

fn chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
    out.extend_from_slice(&(data.len() as u32).to_be_bytes());
    out.extend_from_slice(kind);
    out.extend_from_slice(data);
    out.extend_from_slice(&crc32(&[kind, data]).to_be_bytes());
}

/// Encodes a `width × height` image of palette indices (row-major) as PNG.
///
/// # Panics
/// When `pixels.len() != width * height`, the palette is empty or longer
/// than 256, or a size is 0.
pub(crate) fn encode_indexed(width: u32, height: u32, pixels: &[u8], palette: &[[u8; 3]]) -> Vec<u8> {
    assert!(width > 0 && height > 0 && pixels.len() == width as usize * height as usize);
    assert!(!palette.is_empty() && palette.len() <= 256);
    let mut raw = Vec::with_capacity(pixels.len() + height as usize);
    for row in pixels.chunks(width as usize) {
        raw.push(0); // filter: none
        raw.extend_from_slice(row);
    }
    let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
    let mut ihdr = Vec::with_capacity(13);
    ihdr.extend_from_slice(&width.to_be_bytes());
    ihdr.extend_from_slice(&height.to_be_bytes());
    ihdr.extend_from_slice(&[8, 3, 0, 0, 0]); // 8-bit, indexed colour, deflate, adaptive filter, no interlace
    chunk(&mut out, b"IHDR", &ihdr);
    let plte: Vec<u8> = palette.iter().flatten().copied().collect();
    chunk(&mut out, b"PLTE", &plte);
    chunk(&mut out, b"IDAT", &zlib(&raw));
    chunk(&mut out, b"IEND", &[]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc_and_adler_match_known_values() {
        assert_eq!(crc32(&[b"123456789"]), 0xCBF4_3926);
        assert_eq!(adler32(b"Wikipedia"), 0x11E6_0398);
    }

    /// Decodes the fixed-Huffman stream back (a minimal inflater for the subset we write).
    fn inflate_fixed(z: &[u8]) -> Vec<u8> {
        let data = &z[2..z.len() - 4];
        let mut pos = 0usize;
        let mut bit = |n: u32| -> u32 {
            let mut v = 0;
            for k in 0..n {
                let b = (data[pos / 8] >> (pos % 8)) & 1;
                v |= u32::from(b) << k;
                pos += 1;
            }
            v
        };
        assert_eq!(bit(3), 0b011, "final fixed block");
        let mut out: Vec<u8> = Vec::new();
        loop {
            // Read a fixed-Huffman symbol MSB-first.
            let mut code = 0u32;
            let mut len = 0;
            let sym = loop {
                code = (code << 1) | bit(1);
                len += 1;
                match len {
                    7 if code <= 0x17 => break code + 256,
                    8 if (0x30..=0xBF).contains(&code) => break code - 0x30,
                    8 if (0xC0..=0xC7).contains(&code) => break code - 0xC0 + 280,
                    9 if (0x190..=0x1FF).contains(&code) => break code - 0x190 + 144,
                    _ if len > 9 => panic!("bad code"),
                    _ => {}
                }
            };
            match sym {
                0..=255 => out.push(sym as u8),
                256 => break,
                _ => {
                    let i = (sym - 257) as usize;
                    let run = usize::from(LENGTH_BASE[i]) + bit(u32::from(LENGTH_EXTRA[i])) as usize;
                    let mut d = 0u32;
                    for _ in 0..5 {
                        d = (d << 1) | bit(1);
                    }
                    assert_eq!(d, 0, "distance 1");
                    for _ in 0..run {
                        out.push(*out.last().unwrap());
                    }
                }
            }
        }
        assert_eq!(u32::from_be_bytes(z[z.len() - 4..].try_into().unwrap()), adler32(&out));
        out
    }

    #[test]
    fn deflate_round_trips_runs_and_literals() {
        let mut data = vec![7u8; 1000];
        data.extend(0..=255u8);
        data.extend([1, 1, 2, 2, 2, 3, 3, 3, 3]);
        data.extend(std::iter::repeat_n(200u8, 259));
        let z = zlib(&data);
        assert!(z.len() < data.len() / 2);
        assert_eq!(inflate_fixed(&z), data);
    }

    #[test]
    fn png_has_signature_header_and_end() {
        let png = encode_indexed(3, 2, &[0, 1, 0, 1, 0, 1], &[[0, 0, 0], [255, 255, 255]]);
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
        assert_eq!(&png[12..16], b"IHDR");
        assert_eq!(u32::from_be_bytes(png[16..20].try_into().unwrap()), 3);
        assert_eq!(u32::from_be_bytes(png[20..24].try_into().unwrap()), 2);
        assert_eq!(&png[png.len() - 8..png.len() - 4], b"IEND");
    }
}

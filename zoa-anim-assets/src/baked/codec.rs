//! Little-endian primitives of the baked format: a growing writer and a
//! checked cursor that never reads past its bytes and never allocates more
//! than the bytes left could describe; variable-length integers; and the
//! bit streams packed tracks use.

use super::BakedProblem;

/// Appends little-endian values.
#[derive(Debug, Default)]
pub(super) struct Writer {
    pub bytes: Vec<u8>,
}

impl Writer {
    pub fn u8(&mut self, v: u8) {
        self.bytes.push(v);
    }
    pub fn u32(&mut self, v: u32) {
        self.bytes.extend_from_slice(&v.to_le_bytes());
    }
    pub fn u64(&mut self, v: u64) {
        self.bytes.extend_from_slice(&v.to_le_bytes());
    }
    pub fn f32(&mut self, v: f32) {
        self.bytes.extend_from_slice(&v.to_le_bytes());
    }
    /// A count (`u32`); counts above `u32::MAX` cannot come from validated core data.
    pub fn len(&mut self, n: usize) {
        self.u32(u32::try_from(n).unwrap_or(u32::MAX));
    }
    pub fn str(&mut self, s: &str) {
        self.len(s.len());
        self.bytes.extend_from_slice(s.as_bytes());
    }
    pub fn opt_str(&mut self, s: Option<&str>) {
        match s {
            None => self.u8(0),
            Some(s) => {
                self.u8(1);
                self.str(s);
            }
        }
    }
    /// An unsigned LEB128 integer: seven bits a byte, low bits first, the
    /// top bit set on every byte but the last (one byte below 128).
    pub fn varint(&mut self, mut v: u32) {
        while v >= 0x80 {
            self.u8((v & 0x7f) as u8 | 0x80);
            v >>= 7;
        }
        self.u8(v as u8);
    }
    /// A count as a [`Writer::varint`].
    pub fn varlen(&mut self, n: usize) {
        self.varint(u32::try_from(n).unwrap_or(u32::MAX));
    }
    pub fn f32s(&mut self, v: &[f32]) {
        self.len(v.len());
        for x in v {
            self.f32(*x);
        }
    }
}

/// Reads little-endian values from a slice, checking every length.
#[derive(Debug)]
pub(super) struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
    /// Offset of `bytes[0]` in the file, for messages.
    base: usize,
}

impl<'a> Cursor<'a> {
    pub fn new(bytes: &'a [u8], base: usize) -> Cursor<'a> {
        Cursor { bytes, at: 0, base }
    }
    pub fn offset(&self) -> usize {
        self.base + self.at
    }
    pub fn remaining(&self) -> usize {
        self.bytes.len() - self.at
    }
    pub fn corrupt(&self, what: impl Into<String>) -> BakedProblem {
        BakedProblem::Corrupt { offset: self.offset() as u64, what: what.into() }
    }
    pub fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8], BakedProblem> {
        if n > self.remaining() {
            return Err(self.corrupt(format!("{what}: needs {n} bytes, {} left", self.remaining())));
        }
        let s = &self.bytes[self.at..self.at + n];
        self.at += n;
        Ok(s)
    }
    fn array<const N: usize>(&mut self, what: &str) -> Result<[u8; N], BakedProblem> {
        let s = self.take(N, what)?;
        let mut a = [0; N];
        a.copy_from_slice(s);
        Ok(a)
    }
    pub fn u8(&mut self, what: &str) -> Result<u8, BakedProblem> {
        Ok(self.array::<1>(what)?[0])
    }
    pub fn u32(&mut self, what: &str) -> Result<u32, BakedProblem> {
        Ok(u32::from_le_bytes(self.array(what)?))
    }
    pub fn u64(&mut self, what: &str) -> Result<u64, BakedProblem> {
        Ok(u64::from_le_bytes(self.array(what)?))
    }
    pub fn f32(&mut self, what: &str) -> Result<f32, BakedProblem> {
        Ok(f32::from_le_bytes(self.array(what)?))
    }
    /// A [`Writer::varint`] (at most five bytes, within `u32`).
    pub fn varint(&mut self, what: &str) -> Result<u32, BakedProblem> {
        let mut v = 0u64;
        for shift in (0..35).step_by(7) {
            let b = self.u8(what)?;
            v |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return u32::try_from(v).map_err(|_| self.corrupt(format!("{what}: {v} is past u32")));
            }
        }
        Err(self.corrupt(format!("{what}: a variable-length integer longer than five bytes")))
    }
    /// A finite `f32`.
    pub fn finite(&mut self, what: &str) -> Result<f32, BakedProblem> {
        let v = self.f32(what)?;
        if v.is_finite() { Ok(v) } else { Err(self.corrupt(format!("{what}: not a finite number"))) }
    }
    /// A count of items of at least `min_bytes` each (every item must fit in
    /// the bytes left, so nothing is allocated for items that are not there),
    /// at most `max`.
    pub fn count(&mut self, what: &str, min_bytes: usize, max: usize) -> Result<usize, BakedProblem> {
        let n = self.u32(what)? as usize;
        if n > max {
            return Err(self.corrupt(format!("{what}: {n} is over the budget of {max}")));
        }
        if n.saturating_mul(min_bytes.max(1)) > self.remaining() {
            return Err(self.corrupt(format!(
                "{what}: {n} items need at least {} bytes, {} left",
                n.saturating_mul(min_bytes.max(1)),
                self.remaining()
            )));
        }
        Ok(n)
    }
    pub fn str(&mut self, what: &str) -> Result<String, BakedProblem> {
        let n = self.count(what, 1, usize::MAX)?;
        let at = self.offset();
        let s = self.take(n, what)?;
        String::from_utf8(s.to_vec())
            .map_err(|_| BakedProblem::Corrupt { offset: at as u64, what: format!("{what}: not UTF-8") })
    }
    pub fn opt_str(&mut self, what: &str) -> Result<Option<String>, BakedProblem> {
        match self.u8(what)? {
            0 => Ok(None),
            1 => self.str(what).map(Some),
            t => Err(self.corrupt(format!("{what}: presence flag {t} (0 or 1)"))),
        }
    }
    pub fn f32s(&mut self, what: &str, max: usize) -> Result<Vec<f32>, BakedProblem> {
        let n = self.count(what, 4, max)?;
        (0..n).map(|_| self.finite(what)).collect()
    }
    pub fn end(&self, what: &str) -> Result<(), BakedProblem> {
        if self.remaining() == 0 {
            Ok(())
        } else {
            Err(self.corrupt(format!("{what}: {} unread bytes at the end", self.remaining())))
        }
    }
}

/// Bits needed to write `v` (0 for 0).
pub(super) fn bit_width(v: u64) -> u8 {
    (64 - v.leading_zeros()) as u8
}

/// Packs values of up to 32 bits each, low bits first.
#[derive(Debug, Default)]
pub(super) struct BitWriter {
    bytes: Vec<u8>,
    pending: u64,
    filled: u32,
}

impl BitWriter {
    /// Appends the low `bits` bits of `v` (`v` must fit; `bits` at most 32).
    pub fn put(&mut self, v: u64, bits: u8) {
        debug_assert!(bits <= 32 && bit_width(v) <= bits, "{v} on {bits} bits");
        self.pending |= (v & ((1u64 << bits) - 1)) << self.filled;
        self.filled += u32::from(bits);
        while self.filled >= 8 {
            self.bytes.push(self.pending as u8);
            self.pending >>= 8;
            self.filled -= 8;
        }
    }
    /// The bytes, the last one padded with zero bits.
    pub fn finish(mut self) -> Vec<u8> {
        if self.filled > 0 {
            self.bytes.push(self.pending as u8);
        }
        self.bytes
    }
}

/// Reads what a [`BitWriter`] wrote, never past its bytes.
#[derive(Debug)]
pub(super) struct BitReader<'a> {
    bytes: &'a [u8],
    bit: usize,
}

impl<'a> BitReader<'a> {
    pub fn new(bytes: &'a [u8]) -> BitReader<'a> {
        BitReader { bytes, bit: 0 }
    }
    /// The next `bits` bits (at most 32), or `None` past the end.
    pub fn get(&mut self, bits: u8) -> Option<u64> {
        debug_assert!(bits <= 32);
        let end = self.bit + usize::from(bits);
        if end > self.bytes.len() * 8 {
            return None;
        }
        let (first, shift) = (self.bit / 8, self.bit % 8);
        let mut word = [0u8; 8];
        let take = (self.bytes.len() - first).min(8);
        word[..take].copy_from_slice(&self.bytes[first..first + take]);
        self.bit = end;
        Some((u64::from_le_bytes(word) >> shift) & ((1u64 << bits) - 1))
    }
    /// Bits not read yet.
    pub fn unread(&self) -> usize {
        self.bytes.len() * 8 - self.bit
    }
}

/// FNV-1a, 64 bits: the payload checksum (detects corruption, not tampering).
pub(super) fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_round_trip_and_refuse_overlong_or_oversized_ones() {
        for v in [0u32, 1, 127, 128, 300, 16_383, 16_384, u32::MAX] {
            let mut w = Writer::default();
            w.varint(v);
            assert_eq!(w.bytes.len(), 1 + (bit_width(u64::from(v)).max(1) as usize - 1) / 7, "{v}");
            let mut r = Cursor::new(&w.bytes, 0);
            assert_eq!(r.varint("v").unwrap(), v);
            r.end("v").unwrap();
        }
        assert!(Cursor::new(&[0xff, 0xff, 0xff, 0xff, 0x1f], 0).varint("v").is_err());
        assert!(Cursor::new(&[0x80; 6], 0).varint("v").is_err());
        assert!(Cursor::new(&[0x80], 0).varint("v").is_err());
    }

    #[test]
    fn bit_streams_round_trip_every_width_and_stop_at_their_end() {
        let values: Vec<(u64, u8)> =
            (0..=32u8).map(|b| (if b == 0 { 0 } else { (1u64 << b) - 1 - u64::from(b) % 2 }, b)).collect();
        let mut w = BitWriter::default();
        values.iter().for_each(|(v, b)| w.put(*v, *b));
        let bytes = w.finish();
        let total: usize = values.iter().map(|(_, b)| usize::from(*b)).sum();
        assert_eq!(bytes.len(), total.div_ceil(8));
        let mut r = BitReader::new(&bytes);
        for (v, b) in &values {
            assert_eq!(r.get(*b), Some(*v), "{b} bits");
        }
        assert!(r.unread() < 8);
        assert_eq!(r.get(8), None);
    }
}

//! Little-endian primitives of the baked format: a growing writer and a
//! checked cursor that never reads past its bytes and never allocates more
//! than the bytes left could describe.

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
    pub fn u16(&mut self, v: u16) {
        self.bytes.extend_from_slice(&v.to_le_bytes());
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
    pub fn u16(&mut self, what: &str) -> Result<u16, BakedProblem> {
        Ok(u16::from_le_bytes(self.array(what)?))
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

/// FNV-1a, 64 bits: the payload checksum (detects corruption, not tampering).
pub(super) fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

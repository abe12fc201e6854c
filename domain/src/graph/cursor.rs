//! Bounds-checked reading of the small caches' little-endian layouts (`documents.bin`,
//! `outputs.bin`): each ends with the [`checksum`] of all before it, and starts with a magic.

use super::checksum::checksum;

/// The checksum's length, at the end.
pub(crate) const TRAILER_LEN: usize = 8;

/// The bytes after `magic` and before the 8-byte checksum that ends `bytes`, when that
/// checksum holds; `None` for anything else (cut, damaged, another format).
pub(crate) fn checked_body<'a>(bytes: &'a [u8], magic: &[u8]) -> Option<Cursor<'a>> {
    let body_len = bytes.len().checked_sub(TRAILER_LEN)?;
    let (body, sum) = bytes.split_at(body_len);
    if checksum(body) != u64::from_le_bytes(sum.try_into().ok()?) {
        return None;
    }
    Some(Cursor(body.strip_prefix(magic)?))
}

/// A cursor over bytes; every read is bounds-checked, and `None` once they run out.
pub(crate) struct Cursor<'a>(&'a [u8]);

impl<'a> Cursor<'a> {
    pub fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let (head, rest) = self.0.split_at_checked(n)?;
        self.0 = rest;
        Some(head)
    }

    pub fn array<const N: usize>(&mut self) -> Option<[u8; N]> {
        self.take(N)?.try_into().ok()
    }

    pub fn byte(&mut self) -> Option<u8> {
        Some(self.array::<1>()?[0])
    }

    pub fn u32(&mut self) -> Option<u32> {
        self.array().map(u32::from_le_bytes)
    }

    pub fn u64(&mut self) -> Option<u64> {
        self.array().map(u64::from_le_bytes)
    }

    pub fn u128(&mut self) -> Option<u128> {
        self.array().map(u128::from_le_bytes)
    }

    /// A `u32` length, then that many bytes.
    pub fn sized(&mut self) -> Option<&'a [u8]> {
        let n = usize::try_from(self.u32()?).ok()?;
        self.take(n)
    }

    /// Whether every byte was read.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// Asserts that `decodes` says no to `bytes` with any one byte altered, and cut to any length.
#[cfg(test)]
pub(crate) fn assert_every_damage_is_refused(bytes: &[u8], decodes: impl Fn(&[u8]) -> bool) {
    for i in 0..bytes.len() {
        let mut bad = bytes.to_vec();
        bad[i] ^= 0x10;
        assert!(!decodes(&bad), "byte {i} flipped");
    }
    for n in 0..bytes.len() {
        assert!(!decodes(&bytes[..n]), "cut to {n}");
    }
}

//! The checksum of the caches and the search sidecar, and of the generated JSON they name: a
//! fast 64-bit sum against a damaged file (xxHash64's round on four lanes, then a final mix).
//! Not a defence against a crafted file: each decoder's checks are.

/// A fast 64-bit checksum against a damaged file (xxHash64's round on four lanes, then a
/// final mix). Not a defence against a crafted file: the decoder's checks are.
pub fn checksum(bytes: &[u8]) -> u64 {
    let mut sum = Checksum::default();
    sum.update(bytes);
    sum.finish()
}

const P1: u64 = 0x9E37_79B1_85EB_CA87;
const P2: u64 = 0xC2B2_AE3D_27D4_EB4F;
const P3: u64 = 0x1656_67B1_9E37_79F9;

fn round(acc: u64, w: u64) -> u64 {
    acc.wrapping_add(w.wrapping_mul(P2)).rotate_left(31).wrapping_mul(P1)
}

fn word(b: &[u8]) -> u64 {
    u64::from_le_bytes(b.try_into().unwrap_or_default())
}

/// [`checksum`] of bytes given in pieces of any size (it is a `Write`).
#[derive(Debug, Clone)]
pub struct Checksum {
    lanes: [u64; 4],
    /// The bytes of a block not yet whole.
    pending: [u8; 32],
    pending_len: usize,
    /// Bytes taken in all.
    pub len: u64,
}

impl Default for Checksum {
    fn default() -> Self {
        Checksum { lanes: [P1.wrapping_add(P2), P2, 0, P1.wrapping_neg()], pending: [0; 32], pending_len: 0, len: 0 }
    }
}

impl Checksum {
    fn block(&mut self, block: &[u8]) {
        for (i, lane) in self.lanes.iter_mut().enumerate() {
            *lane = round(*lane, word(&block[8 * i..8 * i + 8]));
        }
    }

    pub fn update(&mut self, mut bytes: &[u8]) {
        self.len += bytes.len() as u64;
        if self.pending_len > 0 {
            let take = (32 - self.pending_len).min(bytes.len());
            self.pending[self.pending_len..self.pending_len + take].copy_from_slice(&bytes[..take]);
            self.pending_len += take;
            bytes = &bytes[take..];
            if self.pending_len < 32 {
                return;
            }
            let block = self.pending;
            self.block(&block);
            self.pending_len = 0;
        }
        let mut blocks = bytes.chunks_exact(32);
        for block in &mut blocks {
            self.block(block);
        }
        let rest = blocks.remainder();
        self.pending[..rest.len()].copy_from_slice(rest);
        self.pending_len = rest.len();
    }

    pub fn finish(&self) -> u64 {
        let [a, b, c, d] = self.lanes;
        let mut h = a.rotate_left(1) ^ b.rotate_left(7) ^ c.rotate_left(12) ^ d.rotate_left(18);
        h = h.wrapping_add(self.len);
        let rest = &self.pending[..self.pending_len];
        let mut words = rest.chunks_exact(8);
        for w in &mut words {
            h = (h ^ round(0, word(w))).rotate_left(27).wrapping_mul(P1).wrapping_add(P3);
        }
        for &b in words.remainder() {
            h = (h ^ u64::from(b).wrapping_mul(P3)).rotate_left(11).wrapping_mul(P1);
        }
        h ^= h >> 33;
        h = h.wrapping_mul(P2);
        h ^= h >> 29;
        h = h.wrapping_mul(P3);
        h ^ (h >> 32)
    }
}

impl std::io::Write for Checksum {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.update(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A reader or writer that passes bytes on and keeps their [`Checksum`] (and count).
pub struct Summed<T> {
    pub inner: T,
    pub sum: Checksum,
}

impl<T> std::fmt::Debug for Summed<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Summed").field("sum", &self.sum).finish_non_exhaustive()
    }
}

impl<T> Summed<T> {
    pub fn new(inner: T) -> Self {
        Summed { inner, sum: Checksum::default() }
    }
}

impl<W: std::io::Write> std::io::Write for Summed<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.sum.update(&buf[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

impl<R: std::io::Read> std::io::Read for Summed<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.sum.update(&buf[..n]);
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The checksum of sidecars already written: the same function, given whole or in pieces.
    #[test]
    fn the_checksum_is_pinned() {
        let bytes: Vec<u8> = (0..1000u32).map(|i| (i * 7 % 251) as u8).collect();
        assert_eq!(checksum(&bytes), PINNED);
    }

    // Computed by the whole-slice function of format 1, before the streaming one replaced it.
    const PINNED: u64 = 9_961_540_869_367_114_544;

    proptest::proptest! {
        #[test]
        fn a_checksum_in_pieces_is_the_checksum_of_the_whole(
            bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..300),
            cuts in proptest::collection::vec(0usize..300, 0..8),
        ) {
            let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c.min(bytes.len())).collect();
            cuts.sort_unstable();
            let mut sum = Checksum::default();
            let mut at = 0;
            for c in cuts.into_iter().chain([bytes.len()]) {
                sum.update(&bytes[at..c]);
                at = c;
            }
            proptest::prop_assert_eq!(sum.len, bytes.len() as u64);
            proptest::prop_assert_eq!(sum.finish(), checksum(&bytes));
        }
    }
}

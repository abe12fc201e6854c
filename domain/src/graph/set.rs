//! The generation marker of `.generated/` (`set.bin`): which `graph.json` and
//! `search-index.json` the last `graph index` wrote together, each by length and [`checksum`]
//! of its bytes, so that a reader can tell a set from one run from a set mixed from two.
//!
//! The two JSON files are 2.3.0's format, byte for byte, so neither can name the other; and
//! they are two files, so putting a new pair in place is two renames. A run renames the graph
//! first, then the search index, and writes this marker only once both are in place, never
//! removing the one before meanwhile. A reader compares what it loaded with the marker:
//! - both files are the ones listed: one set;
//! - the graph is not the one listed but the search index is: the state a run leaves between
//!   its two renames (a new graph beside the old search index), or a graph copied in: mixed,
//!   refused;
//! - otherwise the marker cannot tell, and the reader falls back to comparing the files'
//!   contents: neither listed is a run between its last rename and its marker, or files another
//!   program wrote (VitaeContext 2.3.0 writes no marker); the graph listed and the search index
//!   not is the second rename of a run whose graph came out unchanged (a record's text edited),
//!   or a search index copied in.
//!
//! Content, not file stamps: a `touch`, a `chmod` or a copy that keeps the bytes is the same
//! file. A marker that is missing, damaged (its checksum is its last 8 bytes) or of another
//! format cannot tell either.
//!
//! Layout, little-endian: `MAGIC`; for the graph, then the search index, a byte 0 (absent) or 1
//! followed by the length (u64) and checksum (u64); then the checksum of all before it.

use super::checksum::{Checksum, checksum};
use super::cursor::checked_body;

/// The marker's name in `.generated/`.
pub const SET_FILE: &str = "set.bin";
const MAGIC: &[u8; 16] = b"vitaecontext-se1";

/// A file's bytes, named by length and [`checksum`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Piece {
    pub len: u64,
    pub sum: u64,
}

impl Piece {
    pub fn of(bytes: &[u8]) -> Piece {
        Piece { len: bytes.len() as u64, sum: checksum(bytes) }
    }

    /// The piece a [`Checksum`] fed with every byte of a file names.
    pub fn summed(sum: &Checksum) -> Piece {
        Piece { len: sum.len, sum: sum.finish() }
    }
}

/// The pair one run wrote (`None`: it wrote no such file).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Marker {
    pub graph: Option<Piece>,
    pub search: Option<Piece>,
}

/// What the marker says of the files a reader holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Written together by one run.
    OneSet,
    /// A graph from another run than the search index beside it.
    Mixed,
    /// The marker cannot tell: compare the contents.
    Unknown,
}

pub fn encode(marker: &Marker) -> Vec<u8> {
    let mut out = MAGIC.to_vec();
    for piece in [marker.graph, marker.search] {
        match piece {
            None => out.push(0),
            Some(p) => {
                out.push(1);
                out.extend_from_slice(&p.len.to_le_bytes());
                out.extend_from_slice(&p.sum.to_le_bytes());
            }
        }
    }
    let sum = checksum(&out);
    out.extend_from_slice(&sum.to_le_bytes());
    out
}

/// The marker in `bytes`; `None` for anything damaged, cut or of another format.
pub fn decode(bytes: &[u8]) -> Option<Marker> {
    let mut c = checked_body(bytes, MAGIC)?;
    let mut piece = || match c.byte()? {
        0 => Some(None),
        1 => Some(Some(Piece { len: c.u64()?, sum: c.u64()? })),
        _ => None,
    };
    let (graph, search) = (piece()?, piece()?);
    c.is_empty().then_some(Marker { graph, search })
}

/// What `marker` (`None`: none could be read) says of a reader's `graph` and `search` (`None`:
/// that file is absent).
pub fn verdict(marker: Option<&Marker>, graph: Option<Piece>, search: Option<Piece>) -> Verdict {
    let Some(m) = marker else { return Verdict::Unknown };
    match (graph == m.graph, search == m.search) {
        (true, true) => Verdict::OneSet,
        (false, true) => Verdict::Mixed,
        _ => Verdict::Unknown,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(bytes: &str) -> Option<Piece> {
        Some(Piece::of(bytes.as_bytes()))
    }

    #[test]
    fn a_marker_reads_back_and_any_damage_is_no_marker() {
        for m in [Marker { graph: p("g"), search: p("s") }, Marker { graph: None, search: p("s") }] {
            let bytes = encode(&m);
            assert_eq!(decode(&bytes), Some(m));
            for i in 0..bytes.len() {
                let mut bad = bytes.clone();
                bad[i] ^= 1;
                assert_eq!(decode(&bad), None, "byte {i} flipped");
                assert_eq!(decode(&bytes[..i]), None, "cut at {i}");
            }
        }
    }

    /// Every state a run passes through, renaming the graph then the search index and writing
    /// the marker last, reads as one set or as unknown, except a new graph beside the old
    /// search index.
    #[test]
    fn the_states_of_a_run_read_as_the_rename_order_allows() {
        let old = Marker { graph: p("g0"), search: p("s0") };
        assert_eq!(verdict(Some(&old), p("g0"), p("s0")), Verdict::OneSet);
        assert_eq!(verdict(Some(&old), p("g1"), p("s0")), Verdict::Mixed, "killed between the renames");
        assert_eq!(verdict(Some(&old), None, p("s0")), Verdict::Mixed, "an invalid run killed between its removals");
        assert_eq!(verdict(Some(&old), p("g1"), p("s1")), Verdict::Unknown, "renamed, marker not yet written");
        assert_eq!(verdict(Some(&old), p("g0"), p("s1")), Verdict::Unknown, "the same graph, a new search index");
        let new = Marker { graph: p("g1"), search: p("s1") };
        assert_eq!(verdict(Some(&new), p("g1"), p("s1")), Verdict::OneSet);
        assert_eq!(verdict(None, p("g1"), p("s0")), Verdict::Unknown, "no marker (2.3.0's files)");
    }
}

//! Where each document of `search-index.json` lies (`.generated/documents.bin`), so that the
//! next `graph index` copies the documents of unchanged records from the file it replaces
//! instead of rendering them again (at 100,000 records rendering is about half the CPU of a
//! run after one edit).
//!
//! A document's bytes are a function of its record's path and bytes (and of this build's
//! parser and renderer): each span names the record by path and SHA-256, and a document is
//! copied only for a record with that path and digest now. The file names the JSON by length
//! and stamp (inode, modification and change times, as the set left it): a JSON written or
//! touched since has another stamp, and then no span is used. Like the manifest it is a cache:
//! one that is missing, of another version or damaged (its checksum is its last 8 bytes) is
//! ignored, and deleting it is always safe.
//!
//! Layout, little-endian: `MAGIC`; the parser version (u32); the JSON's length (u64) and stamp
//! (u128); the count (u32); per document in id order its record's path (u32 length, UTF-8),
//! SHA-256 (32 bytes), and the document's start and length in the JSON (u64 each: from its
//! `{` to its `}`, the separator before it not included); then the checksum of all before it.

use super::checksum::Checksum;
use super::cursor::checked_body;
use super::manifest::PARSE_VERSION;

/// The file's name in `.generated/`.
pub const SPANS_FILE: &str = "documents.bin";
/// Names the format and the renderer: a document rendered another way is not copied. Bump it
/// with any change to what [`super::index::write_document`] writes (the parser's changes
/// bump `PARSE_VERSION`, which the header also holds): an incremental run and a full run of
/// one build cannot tell a stale copy from a fresh rendering, so no test would. `ds2`: a
/// `null` tag no longer adds the term "null".
pub(crate) const MAGIC: &[u8; 16] = b"vitaecontext-ds2";

/// The JSON a span file describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Json {
    pub len: u64,
    pub stamp: u128,
}

/// One document's place in the JSON, and the record it was rendered from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span<'a> {
    pub path: &'a str,
    pub sha256: &'a [u8; 32],
    pub start: u64,
    pub len: u64,
}

/// Writes the span file of `count` documents to `out`, in pieces.
pub fn write<'a>(
    json: Json,
    count: usize,
    spans: impl Iterator<Item = Span<'a>>,
    out: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    const PIECE: usize = 1 << 20;
    let mut sum = Checksum::default();
    let mut buf = Vec::with_capacity(PIECE + 4096);
    buf.extend_from_slice(MAGIC);
    buf.extend_from_slice(&PARSE_VERSION.to_le_bytes());
    buf.extend_from_slice(&json.len.to_le_bytes());
    buf.extend_from_slice(&json.stamp.to_le_bytes());
    buf.extend_from_slice(&u32::try_from(count).map_err(std::io::Error::other)?.to_le_bytes());
    let mut written = 0;
    for s in spans {
        written += 1;
        buf.extend_from_slice(&u32::try_from(s.path.len()).map_err(std::io::Error::other)?.to_le_bytes());
        buf.extend_from_slice(s.path.as_bytes());
        buf.extend_from_slice(s.sha256);
        buf.extend_from_slice(&s.start.to_le_bytes());
        buf.extend_from_slice(&s.len.to_le_bytes());
        if buf.len() >= PIECE {
            sum.update(&buf);
            out.write_all(&buf)?;
            buf.clear();
        }
    }
    if written != count {
        // Without its checksum the file is ignored by the next run, never misread.
        return Err(std::io::Error::other(format!("{written} document spans given for {count}")));
    }
    sum.update(&buf);
    buf.extend_from_slice(&sum.finish().to_le_bytes());
    out.write_all(&buf)
}

/// The JSON a span file describes and each span in it, or `None` for anything that is not one
/// whole span file of this version. Never panics.
pub fn decode(bytes: &[u8]) -> Option<(Json, Vec<Span<'_>>)> {
    let mut r = checked_body(bytes, MAGIC)?;
    if r.u32()? != PARSE_VERSION {
        return None;
    }
    let json = Json { len: r.u64()?, stamp: r.u128()? };
    let count = r.u32()? as usize;
    // Each span takes at least 52 bytes: a crafted count reserves no more than the bytes allow.
    let mut spans = Vec::with_capacity(count.min(bytes.len() / 52));
    // Documents follow one another in the JSON, each after the last and all within it: spans
    // that overlap or run past it were not written by a run, and would have a run read about
    // the records' count times the JSON's length (found in review: 5 s for 1,000 records).
    let mut end = 0;
    for _ in 0..count {
        let path = std::str::from_utf8(r.sized()?).ok()?;
        let sha256 = r.take(32)?.try_into().ok()?;
        let (start, len) = (r.u64()?, r.u64()?);
        end = start.checked_add(len).filter(|&e| start >= end && e <= json.len)?;
        spans.push(Span { path, sha256, start, len });
    }
    r.is_empty().then_some((json, spans))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::checksum::checksum;
    use crate::graph::cursor::TRAILER_LEN;

    fn encoded(json: Json, spans: &[Span<'_>]) -> Vec<u8> {
        let mut out = Vec::new();
        write(json, spans.len(), spans.iter().copied(), &mut out).expect("a Vec takes every write");
        out
    }

    const SHA: [u8; 32] = [7; 32];
    const JSON: Json = Json { len: 12_345, stamp: u128::MAX - 3 };

    fn sample() -> Vec<Span<'static>> {
        vec![
            Span { path: "projects/a/project.md", sha256: &SHA, start: 80, len: 1000 },
            Span { path: "roles/é.md", sha256: &[0; 32], start: 1086, len: 7 },
        ]
    }

    /// Spans that overlap, come back, or run past the JSON are none a run wrote: refused.
    #[test]
    fn spans_out_of_order_or_past_the_json_are_refused() {
        let [a, b] = [sample()[0], sample()[1]];
        for (spans, why) in [
            (vec![b, a], "backwards"),
            (vec![a, Span { start: 1079, ..b }], "overlapping"),
            (vec![a, a], "the same twice"),
            (vec![a, Span { start: JSON.len - 6, ..b }], "past the end"),
            (vec![Span { start: u64::MAX, len: 2, ..a }], "overflowing"),
        ] {
            assert_eq!(decode(&encoded(JSON, &spans)), None, "{why}");
        }
        let touching = vec![a, Span { start: a.start + a.len, ..b }, Span { start: JSON.len - 1, len: 1, ..b }];
        assert_eq!(decode(&encoded(JSON, &touching)), Some((JSON, touching.clone())), "end to end, to the last byte");
    }

    #[test]
    fn spans_round_trip() {
        let bytes = encoded(JSON, &sample());
        assert_eq!(decode(&bytes), Some((JSON, sample())));
        assert_eq!(decode(&encoded(JSON, &[])), Some((JSON, vec![])));
    }

    #[test]
    fn an_altered_or_cut_file_is_ignored() {
        let bytes = encoded(JSON, &sample());
        crate::graph::cursor::assert_every_damage_is_refused(&bytes, |b| decode(b).is_some());
        let mut other = bytes[..bytes.len() - TRAILER_LEN].to_vec();
        other[16..20].copy_from_slice(&(PARSE_VERSION + 1).to_le_bytes());
        other.extend_from_slice(&checksum(&other).to_le_bytes());
        assert_eq!(decode(&other), None, "another parser's spans, correctly summed");
    }

    #[test]
    fn a_short_list_is_an_error_and_leaves_no_valid_file() {
        let mut out = Vec::new();
        assert!(write(JSON, 3, sample().into_iter(), &mut out).is_err());
        assert_eq!(decode(&out), None);
    }

    proptest::proptest! {
        /// Crafted bodies with a valid checksum: no panic, no huge allocation.
        #[test]
        fn decoding_crafted_bytes_never_panics(body in proptest::collection::vec(proptest::num::u8::ANY, 0..300)) {
            let mut bytes = MAGIC.to_vec();
            bytes.extend_from_slice(&PARSE_VERSION.to_le_bytes());
            bytes.extend_from_slice(&body);
            let sum = checksum(&bytes);
            bytes.extend_from_slice(&sum.to_le_bytes());
            let _ = decode(&bytes);
        }
    }
}

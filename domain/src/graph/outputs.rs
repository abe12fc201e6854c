//! What the last `graph index` left in `.generated/` (`.generated/outputs.bin`), so that a
//! rerun with nothing changed writes nothing: at 100,000 records a rerun rewrote and synced
//! 530 MB of outputs and caches that came out byte-identical (and `mcp --watch` does such a
//! rerun each time the server starts).
//!
//! It is written last, once the JSON, the sidecar and the span file are in place and the
//! manifest describes the records they were made from, and lists each of those files by
//! length and stamp (inode, modification and change times) as they were then, with the
//! number of nodes and the SHA-256 of the diagnostics written. A rerun writes no output only
//! when every record is the manifest's (found by its stamp, or by its digest when the file was
//! touched or modified close to the last run), every file listed has the same length and stamp
//! (or is still absent), and the validation comes out with the same diagnostics (it also
//! looks at link targets that are not records). When a record file was touched, the manifest
//! is written again (with the file's new stamp), then this list, the same but for the
//! manifest's entry and checksum. An edit, a removal, a copy or a `touch` of a generated file
//! gives it another stamp (the change time cannot be set back), and then the run writes as
//! before.
//!
//! Like the other caches it is never the contract: one that is missing, of another build's
//! formats or damaged (its checksum is its last 8 bytes) is ignored, and the run writes
//! everything. Every run that writes the set removes it first, in the set.
//!
//! Layout, little-endian: `MAGIC`; the formats it vouches for ([`formats`]: a u32 length and
//! the bytes); the node count (u64); the diagnostics' SHA-256 (32 bytes); the manifest's own
//! checksum (u64, its last 8 bytes); the count of files
//! (u32); per file its name (u32 length, UTF-8), then 0 (absent) or 1 and its length (u64) and
//! stamp (u128); then the checksum of all before it.

use super::checksum::checksum;
use super::cursor::checked_body;
use super::manifest::PARSE_VERSION;
use super::sidecar;
use super::spans;

/// The file's name in `.generated/`.
pub const OUTPUTS_FILE: &str = "outputs.bin";
const MAGIC: &[u8; 16] = b"vitaecontext-ou1";
/// The version of what `graph index` renders into `graph.json` and `diagnostics.json`. Bump it
/// with any change to their rendering (a change to the search documents bumps the span file's
/// magic, the parser's `PARSE_VERSION`, the sidecar's its format version, all vouched for
/// too): files rendered by an older build are then written again rather than kept.
pub const RENDER_VERSION: u32 = 1;
/// The most files listed: a crafted count reserves no more.
const MAX_FILES: usize = 64;

/// A file as a run left it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Left {
    pub len: u64,
    pub stamp: u128,
}

/// What a run left in `.generated/`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outputs {
    /// The nodes of the graph written.
    pub nodes: u64,
    /// The SHA-256 of the `diagnostics.json` written.
    pub diagnostics_sha256: [u8; 32],
    /// The checksum that ends the manifest of the records the files were made from: a
    /// manifest rewritten since (by a run whose set failed) describes other records even where
    /// its stamp came back (its inode reused within one tick of a coarse clock).
    pub manifest_checksum: u64,
    /// Each file by name, as it was once written (`None`: absent).
    pub files: Vec<(String, Option<Left>)>,
}

/// The formats a list vouches for: this build's parser, renderers, search sidecar and the
/// package's version. A list written by a build with any of them different is ignored.
fn formats() -> Vec<u8> {
    let mut f = Vec::new();
    f.extend_from_slice(&PARSE_VERSION.to_le_bytes());
    f.extend_from_slice(&RENDER_VERSION.to_le_bytes());
    f.extend_from_slice(spans::MAGIC);
    f.extend_from_slice(&sidecar::MAGIC);
    f.extend_from_slice(&sidecar::FORMAT_VERSION.to_le_bytes());
    f.extend_from_slice(env!("CARGO_PKG_VERSION").as_bytes());
    f
}

pub fn encode(outputs: &Outputs) -> Vec<u8> {
    let mut out = MAGIC.to_vec();
    let put_u32 = |out: &mut Vec<u8>, n: usize| {
        out.extend_from_slice(&u32::try_from(n).expect("short strings and lists").to_le_bytes());
    };
    let formats = formats();
    put_u32(&mut out, formats.len());
    out.extend_from_slice(&formats);
    out.extend_from_slice(&outputs.nodes.to_le_bytes());
    out.extend_from_slice(&outputs.diagnostics_sha256);
    out.extend_from_slice(&outputs.manifest_checksum.to_le_bytes());
    put_u32(&mut out, outputs.files.len());
    for (name, left) in &outputs.files {
        put_u32(&mut out, name.len());
        out.extend_from_slice(name.as_bytes());
        match left {
            Some(left) => {
                out.push(1);
                out.extend_from_slice(&left.len.to_le_bytes());
                out.extend_from_slice(&left.stamp.to_le_bytes());
            }
            None => out.push(0),
        }
    }
    out.extend_from_slice(&checksum(&out).to_le_bytes());
    out
}

/// The list, or `None` for anything that is not one whole list written by a build of these
/// formats. Never panics.
pub fn decode(bytes: &[u8]) -> Option<Outputs> {
    let mut r = checked_body(bytes, MAGIC)?;
    if r.sized()? != formats().as_slice() {
        return None;
    }
    let (nodes, diagnostics_sha256, manifest_checksum) = (r.u64()?, r.array()?, r.u64()?);
    let count = usize::try_from(r.u32()?).ok()?;
    if count > MAX_FILES {
        return None;
    }
    let mut files = Vec::with_capacity(count);
    for _ in 0..count {
        let name = std::str::from_utf8(r.sized()?).ok()?.to_owned();
        let left = match r.byte()? {
            0 => None,
            1 => Some(Left { len: r.u64()?, stamp: r.u128()? }),
            _ => return None,
        };
        files.push((name, left));
    }
    r.is_empty().then_some(Outputs { nodes, diagnostics_sha256, manifest_checksum, files })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::cursor::TRAILER_LEN;

    fn sample() -> Outputs {
        Outputs {
            nodes: 100_000,
            diagnostics_sha256: [9; 32],
            manifest_checksum: u64::MAX - 1,
            files: vec![
                ("graph.json".into(), Some(Left { len: 31_915_362, stamp: u128::MAX - 5 })),
                ("documents.bin".into(), None),
                ("é.bin".into(), Some(Left { len: 0, stamp: 0 })),
            ],
        }
    }

    #[test]
    fn outputs_round_trip() {
        assert_eq!(decode(&encode(&sample())), Some(sample()));
        let none = Outputs { nodes: 0, diagnostics_sha256: [0; 32], manifest_checksum: 0, files: vec![] };
        assert_eq!(decode(&encode(&none)), Some(none));
    }

    #[test]
    fn an_altered_or_cut_list_is_ignored() {
        crate::graph::cursor::assert_every_damage_is_refused(&encode(&sample()), |b| decode(b).is_some());
    }

    /// Files rendered by a build with another renderer or parser are not vouched for, even in
    /// a list whose checksum holds.
    #[test]
    fn a_list_of_other_formats_is_ignored() {
        let bytes = encode(&sample());
        let at = MAGIC.len() + 4 + 4; // the renderer's version, after the parser's
        let mut other = bytes[..bytes.len() - TRAILER_LEN].to_vec();
        other[at..at + 4].copy_from_slice(&(RENDER_VERSION + 1).to_le_bytes());
        other.extend_from_slice(&checksum(&other).to_le_bytes());
        assert_eq!(decode(&other), None);
    }

    proptest::proptest! {
        /// Crafted bodies with a valid checksum: no panic, no huge allocation.
        #[test]
        fn decoding_crafted_bytes_never_panics(body in proptest::collection::vec(proptest::num::u8::ANY, 0..300)) {
            let mut bytes = MAGIC.to_vec();
            let formats = formats();
            bytes.extend_from_slice(&(formats.len() as u32).to_le_bytes());
            bytes.extend_from_slice(&formats);
            bytes.extend_from_slice(&body);
            let sum = checksum(&bytes);
            bytes.extend_from_slice(&sum.to_le_bytes());
            let _ = decode(&bytes);
        }
    }
}

//! The search-index sidecar (`.generated/search-index.bin`): the [`Searcher`]'s flat layout
//! written by `graph index` beside `search-index.json`, so the server can answer its first
//! search without parsing hundreds of megabytes of JSON. The JSON stays the contract: the
//! sidecar names the JSON it was built from (length and [`checksum`]) and is used only while
//! that holds; a sidecar that is missing, stale or corrupt is ignored, never trusted. It also
//! keeps the stamp (inode, mtime, ctime) the JSON had once written: a server trusts the sidecar
//! before summing the JSON only when the JSON still has that stamp; otherwise it sums first.
//!
//! The JSON is named by the same checksum as the body, not by a SHA-256 (format 4): the name
//! tells the sidecar of one JSON from that of another, against accidents (a JSON rewritten by
//! VitaeContext 2.3.0, a graph copied or restored), and anyone who can write `.generated/` can
//! write a sidecar to match any digest. Summing 219 MB of JSON at 100,000 records took a
//! SHA-256 0.12 s of CPU in every `graph index` and in the server's check; the checksum takes
//! a tenth of that.
//!
//! Format, version 8, every integer little-endian:
//!
//! | bytes | field |
//! | --- | --- |
//! | 8 | magic `VCSIDX\r\n` (the CR LF catches a text-mode copy) |
//! | 4 | format version, `8` |
//! | 4 | reserved, `0` |
//! | 8 | byte length of the `search-index.json` it was built from |
//! | 8 | [`checksum`] of that `search-index.json` |
//! | 16 | that `search-index.json`'s stamp once written (`ports::fs::Metadata::stamp`), u128 |
//! | 8 | byte length of the body |
//! | … | body: the searcher's layout |
//! | 8 | checksum of the header and the body ([`checksum`]) |
//! | … | the text area: every document's plain text, in id order, to the end of the file |
//!
//! The checksum follows the body (version 2 had it in the header) so that the body is laid
//! out once, checksummed as it is written: at 100,000 records a second pass over its 150 MB
//! took 0.1 s of a 2.4 s `graph index`. It covers the header too (version 5 summed the body
//! alone), so that the header of one sidecar, which names its JSON, does not pass with the
//! body of another (a file spliced in a black-box review answered from the other graph).
//!
//! The texts follow the checked part (version 3 had them in the body), so that a server reads
//! only the header and body at its first search ([`decode_file`]), 40 % of the file at 10,000
//! records: a text is read when a hit's excerpt or a grounding look-up needs it, and checked
//! then against its own checksum, which the body holds.
//!
//! The body: u32 document count `n`, u32 tag count, u32 term count, a reserved u32 `0`, the f64
//! average document length (version 8; version 7 had an f32, version 6 nothing), u64 posting
//! count;
//! then a string table of the documents (four strings each: id, type, title, path; in id
//! order); `n + 1` u64 offsets of their texts in the text area (from 0 to its length); a u64
//! [`checksum`] of each text; `n + 1` u32 tag ranges; a kind byte per tag (0 string, 1 boolean, 2 null); a string
//! table of the tags (text and lower-cased text each); a string table of the terms (byte
//! order); an f64 idf per term; `terms + 1` u64 posting ranges; the postings, `(u32 document,
//! u32 count and flags)` each (version 7 held the weight: see below); a u32 length per
//! document; a u32 haystack start per document; a u64 haystack length and the
//! haystack (`id \0 path \0` of each document, lower-cased). A string table is `count + 1` u64
//! offsets from 0, then the bytes. Decoding checks every count against the bytes there are,
//! every range, order and string ([`Searcher::from_body`]) before the searcher is used.
//!
//! A posting holds the term's count in the document and its title and tag flags, not its
//! weight, which the searcher computes once when it loads the layout: a weight depends on the
//! average document length, which any edit changes, so `graph index` could not keep the
//! postings of unchanged records ([`decode_previous`], [`SearcherBuilder::layout_with`]); it
//! counted their terms again, 0.4 s of CPU after one edit at 100,000 records. A change to
//! what [`Prepared::add`] makes of a document bumps [`FORMAT_VERSION`], so that no posting
//! counted the old way is taken.

use super::checksum::{Summed, checksum};
use super::index::{Document, DocumentView};
use super::search::{Corrupt, DocStrings, Layout, Prepared, Previous, ReadAt, Searcher, SearcherBuilder, Texts};

pub const MAGIC: [u8; 8] = *b"VCSIDX\r\n";
pub const FORMAT_VERSION: u32 = 8;
/// The fixed header before the body.
pub const HEADER_LEN: usize = 56;
/// The checksum after the body.
pub const TRAILER_LEN: usize = 8;

/// What the sidecar says about the JSON it was built from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Source {
    pub json_len: u64,
    /// The JSON's [`checksum`].
    pub json_sum: u64,
    /// The JSON's stamp when the sidecar was written: while the JSON has it, it is the file
    /// the sidecar was made beside (a copy or an edit has another).
    pub json_stamp: u128,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SidecarError {
    #[error("not a search-index sidecar (no magic number)")]
    Magic,
    #[error("sidecar format version {0}, this build reads {FORMAT_VERSION}")]
    Version(u32),
    #[error("the sidecar is truncated or longer than its body and texts")]
    Length,
    #[error("the sidecar cannot be read: {0}")]
    Read(String),
    #[error("the sidecar's checksum does not match its header and body")]
    Checksum,
    #[error("{0}")]
    Corrupt(#[from] Corrupt),
}

/// Builds a sidecar from the documents `graph index` writes, in the order it writes them.
#[derive(Debug, Default)]
pub struct SidecarBuilder(SearcherBuilder);

impl SidecarBuilder {
    /// See [`SearcherBuilder::borrowing`]: the documents' strings are given back to
    /// [`SidecarBuilder::layout`] and [`SidecarLayout::write`].
    pub fn borrowing(docs: usize) -> Self {
        SidecarBuilder(SearcherBuilder::borrowing(docs))
    }

    pub fn add(&mut self, d: &Document) {
        self.0.add(d);
    }

    /// See [`SearcherBuilder::taken`].
    pub fn taken(&self) -> usize {
        self.0.taken()
    }

    /// [`SidecarBuilder::add`] for a run of documents, in two halves: [`Prepared::add`] on any
    /// thread, then `push` of their views in the same order.
    pub fn push<'a>(&mut self, docs: impl IntoIterator<Item = DocumentView<'a>>, p: &Prepared) {
        self.0.push(docs, p);
    }

    /// The sidecar's bytes, naming the JSON it stands beside (a builder that holds its
    /// documents' strings).
    pub fn finish(self, json: Source) -> Vec<u8> {
        assert!(!self.0.is_borrowing(), "a borrowing builder is laid out with its strings");
        let none = |_: usize, _: usize| -> &[u8] { &[] };
        let mut out = Vec::new();
        self.layout(&none).write(json, &none, &mut out).expect("a Vec takes every write");
        out
    }

    /// See [`SearcherBuilder::layout`].
    pub fn layout(self, strings: &DocStrings<'_>) -> SidecarLayout {
        SidecarLayout(self.0.layout(strings))
    }

    /// See [`SearcherBuilder::layout_with`].
    pub fn layout_with(
        self,
        strings: &DocStrings<'_>,
        previous: Option<Previous>,
        recount: &dyn Fn(usize, &mut Prepared),
    ) -> SidecarLayout {
        SidecarLayout(self.0.layout_with(strings, previous, recount))
    }
}

/// A sidecar ready to be written ([`SidecarBuilder::layout`]).
#[derive(Debug)]
pub struct SidecarLayout(Layout);

impl SidecarLayout {
    /// Writes the sidecar, naming the JSON it stands beside, to `out` in pieces, never held
    /// whole (150 MB at 100,000 records): the header and the body are checksummed as they
    /// are written, the checksum follows them, then the texts.
    pub fn write(&self, json: Source, strings: &DocStrings<'_>, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        let mut header = Vec::with_capacity(HEADER_LEN);
        header.extend_from_slice(&MAGIC);
        header.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
        header.extend_from_slice(&0u32.to_le_bytes());
        header.extend_from_slice(&json.json_len.to_le_bytes());
        header.extend_from_slice(&json.json_sum.to_le_bytes());
        header.extend_from_slice(&json.json_stamp.to_le_bytes());
        header.extend_from_slice(&(self.0.len(strings) as u64).to_le_bytes());
        let mut body = Summed::new(&mut *out);
        std::io::Write::write_all(&mut body, &header)?;
        self.0.write(&mut body, strings)?;
        debug_assert_eq!(body.sum.len, (HEADER_LEN + self.0.len(strings)) as u64);
        let sum = body.sum.finish();
        out.write_all(&sum.to_le_bytes())?;
        self.0.write_texts(out, strings)
    }
}

/// The JSON a sidecar names, from its header alone (no checksum, no body checked): lets a
/// caller see that a sidecar is stale before checking the rest.
pub fn source(bytes: &[u8]) -> Result<Source, SidecarError> {
    let header = bytes.get(..HEADER_LEN).ok_or(SidecarError::Length)?;
    if header[..8] != MAGIC {
        return Err(SidecarError::Magic);
    }
    let version = u32::from_le_bytes(header[8..12].try_into().unwrap_or_default());
    if version != FORMAT_VERSION || header[12..16] != [0; 4] {
        return Err(SidecarError::Version(version));
    }
    let json_len = u64::from_le_bytes(header[16..24].try_into().unwrap_or_default());
    let json_sum = u64::from_le_bytes(header[24..32].try_into().unwrap_or_default());
    let json_stamp = u128::from_le_bytes(header[32..48].try_into().unwrap_or_default());
    Ok(Source { json_len, json_sum, json_stamp })
}

/// How much longer than its JSON a sidecar's body may be: its fixed parts, with room to spare.
const MAX_BODY_BEYOND_JSON: u64 = 1 << 20;

/// Where the body ends (the checksum starts) in a sidecar of `file_len` bytes whose header is
/// `header`: checked to leave room for the checksum.
fn body_end(header: &[u8], file_len: u64) -> Result<u64, SidecarError> {
    let body_len = u64::from_le_bytes(header[48..56].try_into().unwrap_or_default());
    // Every string and posting of the body is in the JSON it names, in more bytes there (a
    // posting takes 8, its `"term": n,` line at least 16): a longer body is none a run wrote,
    // and is refused before it is read and held (found in review: a crafted length had 1 GB
    // held before the checksum failed). The callers have checked that length against the JSON.
    let json_len = u64::from_le_bytes(header[16..24].try_into().unwrap_or_default());
    if body_len > json_len.saturating_add(MAX_BODY_BEYOND_JSON) {
        return Err(SidecarError::Length);
    }
    let end = body_len.checked_add(HEADER_LEN as u64).ok_or(SidecarError::Length)?;
    if end.checked_add(TRAILER_LEN as u64).is_none_or(|e| e > file_len) {
        return Err(SidecarError::Length);
    }
    Ok(end)
}

/// Checks the checksum of the header and the body: `checked` holds them, then the checksum.
fn check_sum(checked: &[u8]) -> Result<(), SidecarError> {
    let end = checked.len() - TRAILER_LEN;
    let sum = u64::from_le_bytes(checked[end..].try_into().unwrap_or_default());
    if checksum(&checked[..end]) != sum {
        return Err(SidecarError::Checksum);
    }
    Ok(())
}

/// A searcher from a sidecar's bytes, and the JSON it names: header, length, checksum and
/// every structure checked, each text when read. Takes the bytes so the searcher holds them
/// without a copy.
pub fn decode(bytes: Vec<u8>) -> Result<(Searcher, Source), SidecarError> {
    let src = source(&bytes)?;
    let end = body_end(&bytes, bytes.len() as u64)? as usize;
    check_sum(&bytes[..end + TRAILER_LEN])?;
    let texts = Texts::Inline(end + TRAILER_LEN..bytes.len());
    Ok((Searcher::from_body(bytes, HEADER_LEN..end, texts)?, src))
}

/// [`decode`] of a sidecar file of `file_len` bytes, reading only its header and body: the
/// searcher keeps `file` to read each text when it is asked for (see the module's notes).
pub fn decode_file(file: Box<dyn ReadAt>, file_len: u64) -> Result<(Searcher, Source), SidecarError> {
    let (bytes, body, texts, src) = read_checked(file, file_len)?;
    Ok((Searcher::from_body(bytes, body, texts)?, src))
}

/// A sidecar file's header and body, read and checked against the checksum: the bytes, where
/// the body lies in them, the texts left in the file, and the JSON the header names.
fn read_checked(
    file: Box<dyn ReadAt>,
    file_len: u64,
) -> Result<(Vec<u8>, std::ops::Range<usize>, Texts, Source), SidecarError> {
    let read = |buf: &mut [u8], at: u64| file.read_exact_at(buf, at).map_err(|e| SidecarError::Read(e.to_string()));
    let mut header = [0; HEADER_LEN];
    if file_len < HEADER_LEN as u64 {
        return Err(SidecarError::Length);
    }
    read(&mut header, 0)?;
    let src = source(&header)?;
    let end = body_end(&header, file_len)?;
    let checked_len = usize::try_from(end + TRAILER_LEN as u64).map_err(|_| SidecarError::Length)?;
    let mut bytes = vec![0; checked_len];
    bytes[..HEADER_LEN].copy_from_slice(&header);
    read(&mut bytes[HEADER_LEN..], HEADER_LEN as u64)?;
    check_sum(&bytes)?;
    let start = end + TRAILER_LEN as u64;
    let texts = Texts::File { file, start, len: file_len - start };
    Ok((bytes, HEADER_LEN..end as usize, texts, src))
}

/// The previous index a sidecar file of `file_len` bytes holds, for `graph index` to take the
/// terms of unchanged documents from ([`Previous`]): header and body read and checked as by
/// [`decode_file`], the texts left unread.
pub fn decode_previous(file: Box<dyn ReadAt>, file_len: u64) -> Result<(Previous, Source), SidecarError> {
    let (bytes, body, texts, src) = read_checked(file, file_len)?;
    Ok((Previous::from_body(bytes, body, texts)?, src))
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::graph::index::{Tag, term_counts};
    use crate::graph::search::Query;

    fn doc(id: &str, title: &str, text: &str) -> Document {
        Document {
            id: id.into(),
            kind: "Project".into(),
            title: title.into(),
            path: format!("projects/{}.md", &id[8..]),
            text: text.into(),
            tags: vec![Tag::Str("Rust".into()), Tag::Bool(false), Tag::Null],
            terms: term_counts(&format!("{title} rust false null {text}")),
        }
    }

    /// The bytes of a sidecar of fixed documents, pinned to what format 1 wrote before its
    /// writer streamed (computed by that build): reader and writer share the layout code, so a
    /// change to it would still round-trip and pass the other tests; this one fails instead.
    /// An intended change bumps `FORMAT_VERSION` and these numbers. Format 3 moved the
    /// checksum of format 2 after the body, not a byte of the body. Format 4 moved the texts
    /// (48 bytes) after the checksum and added their offsets and checksums to the body, 24 bytes
    /// more in all: 3 offsets and 2 checksums (40 bytes), 2 string offsets fewer (16). Format 5
    /// names the JSON by an 8-byte checksum, not a 32-byte SHA-256: a header 24 bytes shorter.
    /// Format 6 sums the header with the body: the same bytes but the version and the checksum.
    /// Format 7 writes the average document length where format 6 had a reserved `0`. Format 8
    /// holds each posting's count and flags rather than its weight (the same 8 bytes), the
    /// average length as an f64 after a reserved `0` (8 bytes more) and each document's length
    /// (4 bytes each, 8 more).
    /// A body length past what the JSON named could hold is refused from the header, before
    /// anything is read (found in review: a crafted 1 GiB length had 1 GB held first).
    #[test]
    fn a_body_longer_than_its_json_allows_is_refused_unread() {
        let header = |json_len: u64, body_len: u64| {
            let mut h = [0u8; HEADER_LEN];
            h[16..24].copy_from_slice(&json_len.to_le_bytes());
            h[48..56].copy_from_slice(&body_len.to_le_bytes());
            h
        };
        let json = 5_000_000;
        let most = json + MAX_BODY_BEYOND_JSON;
        assert_eq!(body_end(&header(json, most), u64::MAX), Ok(most + HEADER_LEN as u64));
        assert_eq!(body_end(&header(json, most + 1), u64::MAX), Err(SidecarError::Length));
        assert_eq!(body_end(&header(0, 1 << 30), u64::MAX), Err(SidecarError::Length));
    }

    #[test]
    fn the_layout_is_pinned() {
        let mut b = SidecarBuilder::default();
        for d in [
            doc("project:b", "Build-cache warden", "Audits caches. node.js, Ünïcode"),
            doc("project:a", "Étude", "naïve café CI"),
        ] {
            b.add(&d);
        }
        let bytes = b.finish(Source { json_len: 5, json_sum: 7, json_stamp: 3 });
        let body = &bytes[HEADER_LEN..body_end(&bytes, bytes.len() as u64).unwrap() as usize];
        assert_eq!(bytes.len() - body.len(), HEADER_LEN + TRAILER_LEN + 48, "the texts follow the checksum");
        assert_eq!((bytes.len(), checksum(body)), (1354, 11_783_564_319_547_946_151));
        assert_eq!(checksum(&bytes), 11_205_273_197_272_986_882);
        let texts = &bytes[HEADER_LEN + body.len() + TRAILER_LEN..];
        assert_eq!(texts, "naïve café CIAudits caches. node.js, Ünïcode".as_bytes(), "in id order");
    }

    fn sidecar() -> Vec<u8> {
        let mut b = SidecarBuilder::default();
        for d in [doc("project:b", "Build-cache warden", "Audits caches. node.js"), doc("project:a", "Lens", "CI logs")]
        {
            b.add(&d);
        }
        b.finish(Source { json_len: 1234, json_sum: 7, json_stamp: u128::MAX - 5 })
    }

    /// Rewrites the checksum, so that a change reaches the structural checks.
    fn resum(mut bytes: Vec<u8>) -> Vec<u8> {
        if bytes.len() >= HEADER_LEN
            && let Ok(end) = body_end(&bytes, bytes.len() as u64)
        {
            let end = end as usize;
            let sum = checksum(&bytes[..end]);
            bytes[end..end + TRAILER_LEN].copy_from_slice(&sum.to_le_bytes());
        }
        bytes
    }

    /// Decoding must never panic; whatever decodes must answer queries without panicking.
    /// Whole in memory and read from a file alike.
    fn exercise(bytes: Vec<u8>) -> Result<(), SidecarError> {
        let len = bytes.len() as u64;
        let file = Box::new(Shared(std::sync::Arc::new(Counted { bytes: bytes.clone().into(), ..Default::default() })));
        let from_file = decode_file(file, len);
        let (s, _) = decode(bytes)?;
        let (f, _) = from_file.expect("decoded from a file as in memory");
        for s in [s, f] {
            for text in [Some("rust"), Some("cache"), Some("a"), None] {
                let _ = s.search(&Query { text, tag: Some("rust"), ..Default::default() });
            }
            let _ = s.document("project:a");
        }
        Ok(())
    }

    #[test]
    fn a_sidecar_round_trips() {
        let (s, src) = decode(sidecar()).expect("decodes");
        assert_eq!(src, Source { json_len: 1234, json_sum: 7, json_stamp: u128::MAX - 5 });
        assert_eq!(s.len(), 2);
        let r = s.search(&Query { text: Some("cache"), ..Default::default() });
        assert_eq!(r.records[0].id, "project:b");
        assert_eq!(r.records[0].tags, [Tag::Str("Rust".into()), Tag::Bool(false), Tag::Null]);
        assert_eq!(s.document("project:a").map(|d| d.text.into_owned()).as_deref(), Some("CI logs"));
    }

    #[test]
    fn damaged_sidecars_are_refused() {
        let good = sidecar();
        let mut magic = good.clone();
        magic[0] ^= 1;
        assert_eq!(decode(magic).err(), Some(SidecarError::Magic));
        let mut version = good.clone();
        version[8] = 1;
        assert_eq!(decode(version.clone()).err(), Some(SidecarError::Version(1)), "version 1 had no stamp");
        version[8] = 2;
        assert_eq!(decode(version.clone()).err(), Some(SidecarError::Version(2)), "version 2 had its checksum first");
        version[8] = 4;
        assert_eq!(
            decode(version.clone()).err(),
            Some(SidecarError::Version(4)),
            "version 4 named its JSON by SHA-256"
        );
        version[8] = 5;
        assert_eq!(decode(version.clone()).err(), Some(SidecarError::Version(5)), "version 5 summed the body alone");
        version[8] = 6;
        assert_eq!(decode(version.clone()).err(), Some(SidecarError::Version(6)), "version 6 had no average length");
        version[8] = 7;
        assert_eq!(decode(version).err(), Some(SidecarError::Version(7)), "version 7 held weights, not counts");
        assert_eq!(decode(good[..HEADER_LEN - 1].to_vec()).err(), Some(SidecarError::Length));
        let end = body_end(&good, good.len() as u64).unwrap() as usize;
        assert_eq!(decode(good[..end + TRAILER_LEN - 1].to_vec()).err(), Some(SidecarError::Length));
        // Cut in the texts: their offsets run past the end.
        assert!(matches!(decode(good[..good.len() - 1].to_vec()), Err(SidecarError::Corrupt(_))));
        let mut flipped = good.clone();
        flipped[end - 1] ^= 0x20;
        assert_eq!(decode(flipped).err(), Some(SidecarError::Checksum));
        // Another JSON's name (its length, checksum or stamp), as in the header of another
        // sidecar spliced onto this body: refused, not taken for the other JSON's searcher.
        for at in [16, 24, 32, 47] {
            let mut renamed = good.clone();
            renamed[at] ^= 1;
            assert_eq!(decode(renamed).err(), Some(SidecarError::Checksum), "byte {at} of the header");
        }
        // Absurd counts with a valid checksum: refused by the structure checks, with nothing
        // allocated by the count.
        for (at, value) in [(0usize, u32::MAX), (4, u32::MAX), (8, u32::MAX)] {
            let mut absurd = good.clone();
            absurd[HEADER_LEN + at..HEADER_LEN + at + 4].copy_from_slice(&value.to_le_bytes());
            assert!(matches!(decode(resum(absurd)), Err(SidecarError::Corrupt(_))), "count at {at}");
        }
        // Every weight is computed with the average length: what is not a length (NaN,
        // infinite, negative, under 1) is damage. So is a reserved field that is not 0.
        for value in [f64::NAN.to_bits(), f64::INFINITY.to_bits(), (-3.0f64).to_bits(), 0, 0.5f64.to_bits()] {
            let mut odd = good.clone();
            odd[HEADER_LEN + 16..HEADER_LEN + 24].copy_from_slice(&value.to_le_bytes());
            assert!(matches!(decode(resum(odd)), Err(SidecarError::Corrupt(_))), "average length bits {value:#x}");
        }
        let mut reserved = good.clone();
        reserved[HEADER_LEN + 12] = 1;
        assert!(matches!(decode(resum(reserved)), Err(SidecarError::Corrupt(_))));
        let mut postings = good.clone();
        postings[HEADER_LEN + 24..HEADER_LEN + 32].copy_from_slice(&u64::MAX.to_le_bytes());
        assert!(matches!(decode(resum(postings)), Err(SidecarError::Corrupt(_))));
    }

    /// A file read through [`ReadAt`], counting the bytes read; its bytes may change.
    #[derive(Default)]
    struct Counted {
        bytes: std::sync::Mutex<Vec<u8>>,
        read: std::sync::atomic::AtomicUsize,
    }

    struct Shared(std::sync::Arc<Counted>);

    impl ReadAt for Shared {
        fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
            let bytes = self.0.bytes.lock().unwrap();
            let at = offset as usize;
            let src = bytes.get(at..at + buf.len()).ok_or(std::io::ErrorKind::UnexpectedEof)?;
            buf.copy_from_slice(src);
            self.0.read.fetch_add(buf.len(), std::sync::atomic::Ordering::Relaxed);
            Ok(())
        }
    }

    fn opened(bytes: Vec<u8>) -> (Searcher, std::sync::Arc<Counted>) {
        let len = bytes.len() as u64;
        let file = std::sync::Arc::new(Counted { bytes: bytes.into(), ..Counted::default() });
        let (s, _) = decode_file(Box::new(Shared(std::sync::Arc::clone(&file))), len).expect("decodes");
        (s, file)
    }

    /// The server's first search reads the header and body, not the texts (60 % of the file at
    /// 10,000 records): a text is read when a hit or a look-up needs it, and only that text.
    #[test]
    fn a_sidecar_file_reads_a_text_only_when_it_is_needed() {
        let bytes = sidecar();
        let checked = body_end(&bytes, bytes.len() as u64).unwrap() as usize + TRAILER_LEN;
        let (s, file) = opened(bytes);
        let read = || file.read.load(std::sync::atomic::Ordering::Relaxed);
        assert_eq!(read(), checked, "the header, body and checksum; no text");
        let r = s.search(&Query { text: Some("warden"), ..Default::default() });
        assert_eq!(r.records[0].excerpt, "Audits caches. node.js");
        assert_eq!(read(), checked + "Audits caches. node.js".len(), "the one hit's text");
        assert_eq!(s.document("project:a").map(|d| d.text.into_owned()).as_deref(), Some("CI logs"));
        assert!(!s.is_damaged());
    }

    /// A text changed after the searcher was loaded (the file damaged, or rewritten in place) is
    /// never served: the hit has no excerpt, the look-up finds nothing, and the searcher says
    /// it is damaged, so that its holder loads another. So for a whole sidecar decoded in
    /// memory whose text was damaged before.
    #[test]
    fn a_damaged_text_is_never_served() {
        let good = sidecar();
        let last = good.len() - 1;
        let (s, file) = opened(good.clone());
        file.bytes.lock().unwrap()[last] ^= 0x20;
        let mut damaged = good;
        damaged[last] ^= 0x20;
        let (in_memory, _) = decode(damaged).expect("the body is whole");
        for s in [&s, &in_memory] {
            assert!(!s.is_damaged());
            let r = s.search(&Query { text: Some("warden"), ..Default::default() });
            assert_eq!(r.records[0].id, "project:b");
            assert_eq!(r.records[0].excerpt, "", "a text that fails its checksum");
            assert!(s.is_damaged());
            assert_eq!(s.document("project:b"), None);
            assert_eq!(s.document("project:a").map(|d| d.text.into_owned()).as_deref(), Some("CI logs"));
        }
        // A file cut short under the searcher: the text cannot be read.
        let (s, file) = opened(sidecar());
        file.bytes.lock().unwrap().truncate(last);
        assert_eq!(s.document("project:b"), None);
        assert!(s.is_damaged());
    }

    /// A file of `len` bytes: `prefix`, then zeros (a sparse file), counting the bytes read.
    struct Sparse {
        prefix: Vec<u8>,
        len: u64,
        read: std::sync::Arc<std::sync::atomic::AtomicU64>,
    }

    impl ReadAt for Sparse {
        fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
            if offset + buf.len() as u64 > self.len {
                return Err(std::io::ErrorKind::UnexpectedEof.into());
            }
            for (k, b) in buf.iter_mut().enumerate() {
                *b = self.prefix.get(offset as usize + k).copied().unwrap_or(0);
            }
            self.read.fetch_add(buf.len() as u64, std::sync::atomic::Ordering::Relaxed);
            Ok(())
        }
    }

    /// Found in review: a sidecar whose last text claims hundreds of MB (a sparse file, cheap
    /// to make) made each search that hit it read and hold them all. No text longer than a
    /// record's plain text can be is read: it is damage, and the searcher says so.
    #[test]
    fn a_text_longer_than_any_record_is_not_read() {
        let good = sidecar();
        let end = body_end(&good, good.len() as u64).unwrap() as usize;
        let mut prefix = good.clone();
        // The documents' string table (4 strings each, 2 documents) ends with its byte length;
        // the text offsets follow the strings.
        let strings = HEADER_LEN + crate::graph::search::HEAD_LEN + 8 * 8;
        let ends = strings + 8 + u64::from_le_bytes(prefix[strings..strings + 8].try_into().unwrap()) as usize;
        let second = u64::from_le_bytes(prefix[ends + 8..ends + 16].try_into().unwrap());
        let huge = second + 3 * crate::graph::MAX_RECORD_BYTES + 1;
        prefix[ends + 16..ends + 24].copy_from_slice(&huge.to_le_bytes());
        let prefix = resum(prefix);
        let read = std::sync::Arc::default();
        let len = (end + TRAILER_LEN) as u64 + huge;
        let file = Sparse { prefix, len, read: std::sync::Arc::clone(&read) };
        let (s, _) = decode_file(Box::new(file), len).expect("offsets within the file");
        let before = read.load(std::sync::atomic::Ordering::Relaxed);
        let r = s.search(&Query { text: Some("warden"), ..Default::default() });
        assert_eq!((r.records[0].id.as_str(), r.records[0].excerpt.as_str()), ("project:b", ""));
        assert!(s.is_damaged());
        assert_eq!(read.load(std::sync::atomic::Ordering::Relaxed), before, "nothing read");
        assert_eq!(s.document("project:a").map(|d| d.text.into_owned()).as_deref(), Some("CI logs"));
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(512))]
        // Any bytes changed, with the checksum made to match, are refused or answer queries:
        // never a panic, never an out-of-bounds read.
        #[test]
        fn a_crafted_sidecar_never_panics(edits in proptest::collection::vec((0usize..4096, proptest::prelude::any::<u8>()), 1..6), cut in 0usize..4096) {
            let mut bytes = sidecar();
            for (at, b) in edits {
                let at = HEADER_LEN + at % (bytes.len() - HEADER_LEN);
                bytes[at] = b;
            }
            let _ = exercise(resum(bytes.clone()));
            bytes.truncate(bytes.len().saturating_sub(cut % 64));
            let _ = exercise(resum(bytes));
        }
    }

    /// A document of the merge test: one of a few ids, with one of a few texts and tags.
    fn variant(slug: usize, v: usize) -> Document {
        const WORDS: [&str; 6] = ["rust", "cache", "build-cache", "node.js", "Étude", "kafka"];
        let text: Vec<&str> = (0..1 + v % 5).map(|k| WORDS[(slug + v * 3 + k) % WORDS.len()]).collect();
        let mut d = doc(&format!("project:p{slug}"), &format!("Title {} {}", v % 3, WORDS[v % 6]), &text.join(" "));
        d.tags = (0..v % 3).map(|k| Tag::Str(WORDS[(v + k) % 6].to_owned())).collect();
        d.terms = term_counts(&format!(
            "{} {} {}",
            d.title,
            d.tags.iter().map(Tag::text).collect::<Vec<_>>().join(" "),
            d.text
        ));
        d
    }

    fn sidecar_of(docs: &[Document]) -> Vec<u8> {
        let mut b = SidecarBuilder::default();
        for d in docs {
            b.add(d);
        }
        b.finish(Source { json_len: 1, json_sum: 2, json_stamp: 3 })
    }

    proptest::proptest! {
        /// Documents taken from a previous index (their terms and lengths read there, not
        /// counted again) give the very bytes of a sidecar made from every document anew,
        /// whatever was added, removed or changed around them.
        #[test]
        fn terms_taken_from_a_previous_index_lay_out_the_same_bytes(
            before in proptest::collection::vec(proptest::option::of(0usize..9), 8),
            after in proptest::collection::vec(proptest::option::of(0usize..9), 8),
            shift in 0usize..4,
            reversed: bool,
        ) {
            let docs = |vs: &[Option<usize>]| -> Vec<Document> {
                vs.iter().enumerate().filter_map(|(slug, v)| Some(variant(slug, (*v)?))).collect()
            };
            let (old, new) = (docs(&before), docs(&after));
            let bytes = sidecar_of(&old);
            let len = bytes.len() as u64;
            let file = Box::new(Shared(std::sync::Arc::new(Counted { bytes: bytes.into(), ..Default::default() })));
            let (previous, _) = decode_previous(file, len).expect("a sidecar just written");
            let mut b = SidecarBuilder::default();
            let mut copied = 0;
            // Added out of id order, documents said to be the previous index's are counted
            // again (their postings could not be merged in order).
            let order: Vec<usize> = if reversed { (0..new.len()).rev().collect() } else { (0..new.len()).collect() };
            for d in order.iter().map(|&i| &new[i]) {
                let mut p = Prepared::default();
                match old.iter().position(|o| o == d) {
                    Some(k) => {
                        proptest::prop_assert_eq!(previous.id_and_path(k), (d.id.as_str(), d.path.as_str()));
                        // Shifted, some are said to be where another document is, or past the
                        // end: the terms of all are counted again.
                        p.add_copied(&d.view(), (k + shift % 3) as u32);
                        copied += 1;
                    }
                    None => p.add(&d.view(), d.terms.iter()),
                }
                b.push([d.view()], &p);
            }
            let none = |_: usize, _: usize| -> &[u8] { &[] };
            let mut merged = Vec::new();
            let json = Source { json_len: 1, json_sum: 2, json_stamp: 3 };
            let recount = |i: usize, p: &mut Prepared| p.add(&new[order[i]].view(), new[order[i]].terms.iter());
            // 3: no previous index at all (a sidecar that did not read).
            let previous = (shift < 3).then_some(previous);
            b.layout_with(&none, previous, &recount).write(json, &none, &mut merged).unwrap();
            proptest::prop_assert!(merged == sidecar_of(&new), "{} of {} documents taken, shifted by {}", copied, new.len(), shift);
        }
    }
}

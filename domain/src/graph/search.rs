//! Ranked search over the search index: BM25 on the indexed terms, title and tag matches
//! weighted up, id and path substrings matching too.

use std::borrow::Cow;
use std::collections::HashMap;

use aho_corasick::{AhoCorasick, MatchKind};

use super::MAX_RECORD_BYTES;
use super::checksum::checksum;
use super::index::{Document, DocumentView, SearchIndex, Tag, each_token, lowercase, tokens};
use super::record_type::RecordType;

const K1: f64 = 1.2;
const B: f64 = 0.75;
/// Extra weight (times the term's idf) of a query term found in the title, and in a tag.
const TITLE_BOOST: f64 = 1.5;
const TAG_BOOST: f64 = 1.0;
/// Weight of a query term found inside a record's id or path.
const ID_PATH_WEIGHT: f64 = 0.5;
pub const MAX_RESULTS: usize = 20;
/// Distinct query terms considered; a longer query is cut (each term costs a scan of the
/// id/path haystack).
pub const MAX_QUERY_TERMS: usize = 64;
pub const EXCERPT_CHARS: usize = 320;
/// The longest text read from a sidecar file: a record is at most [`MAX_RECORD_BYTES`], and its
/// plain text at most three times that (each byte that is not UTF-8 read as U+FFFD, 3 bytes).
/// A longer one is damage.
const MAX_TEXT_BYTES: u64 = 3 * MAX_RECORD_BYTES;
/// The layout's fixed head: the document, tag and term counts, a reserved `0`, the average
/// document length (f64) and the posting count.
pub(crate) const HEAD_LEN: usize = 32;

/// A search index ready to answer queries, held as one flat little-endian byte layout (the
/// body of the sidecar file, see [`crate::graph::sidecar`]): the documents' strings in one
/// arena, a sorted term table searched by binary search, each term's postings as contiguous
/// `(u32 document, f32 weight)` pairs, and every id and path in one lower-cased haystack for
/// substring matching. Built from the JSON or read from the sidecar, it is the same bytes, so
/// both answer alike; a load validates every offset and count once ([`Searcher::from_body`]),
/// after which no access can go out of bounds.
///
/// The documents' plain texts are apart ([`Texts`]): only the excerpts of a search's hits and
/// the grounding check's look-ups read them, so a searcher from the sidecar reads each one
/// from the file when asked, checked against its checksum, rather than all of them at load.
#[derive(Debug)]
pub struct Searcher {
    blob: Vec<u8>,
    /// Documents, in id order, so "by score then id" is "by score then index".
    n: usize,
    /// Four strings per document: id, type, title, path.
    docs: StrTable,
    /// `n + 1` u64: document i's text is bytes `text_ends[i]..text_ends[i + 1]` of `texts`.
    text_ends: usize,
    /// u64 per document: the [`checksum`] of its text.
    text_sums: usize,
    texts: Texts,
    /// A text did not match its checksum (or could not be read): the searcher answered without
    /// it, and should be replaced ([`Searcher::is_damaged`]).
    damaged: std::sync::atomic::AtomicBool,
    /// `n + 1` u32: document i's tags are `tag_first[i]..tag_first[i + 1]`.
    tag_first: usize,
    /// One byte per tag: 0 string, 1 boolean, 2 null.
    tag_kind: usize,
    /// Two strings per tag: its text (`Tag::text`) and that text lower-cased.
    tags: StrTable,
    /// Terms in byte order.
    terms: StrTable,
    /// f64 per term.
    idf: usize,
    /// `terms + 1` u64: term k's postings are `post[k]..post[k + 1]`.
    post: usize,
    /// `(u32 doc, f32 weight)` pairs: the BM25 term-frequency part plus the title and tag
    /// boosts, computed when the layout is loaded from each posting's count and flags, which
    /// the layout holds (a [`Previous`] keeps those). A query adds `idf * weight`.
    postings: usize,
    /// u32 per document: where its part of the haystack starts.
    starts: usize,
    /// `id \0 path \0` of every document, lower-cased, in document order.
    haystack: std::ops::Range<usize>,
    /// Each document's type as a number, so that a type filter reads one array rather than a
    /// string per document spread over the blob (at 100,000 documents those cache misses
    /// took 20 ms a search).
    kinds: Kinds,
    /// The scores and needle marks of the last search, reused (zeroed) by the next one.
    scratch: std::sync::Mutex<Scratch>,
    /// What byte pairs and triples the haystack holds, to skip the scan for a needle in no id
    /// or path (0.2 ms a needle at 100,000 documents).
    grams: Grams,
    /// Each lower-cased tag's documents, in order, made at the first search filtered by a tag
    /// ([`Searcher::tag_docs`]).
    tag_docs: std::sync::OnceLock<HashMap<Box<[u8]>, Vec<u32>>>,
    /// The average document length the weights were computed with (pending documents' are
    /// computed with it too).
    avg_len: f64,
    /// u32 per document: its length (number of terms).
    lens: usize,
    /// The documents in byte order of their paths, made at the first search with pending
    /// records ([`Searcher::documents_at`]).
    by_path: std::sync::OnceLock<Vec<u32>>,
}

/// A query's filters, resolved once: its type's number (`Some(None)`: a type no document has)
/// and a bit per document for its tag.
struct Filter {
    kind: Option<Option<u32>>,
    tagged: Option<Vec<u64>>,
}

impl Filter {
    fn is_some(&self) -> bool {
        self.kind.is_some() || self.tagged.is_some()
    }
}

/// Which byte pairs, and which byte triples (hashed, so some are present by collision), occur
/// anywhere in a text: a needle with a pair or triple that does not occur is not in the text.
/// A needle that passes may still be absent; the scan decides.
#[derive(Debug)]
struct Grams {
    pairs: Vec<u64>,
    triples: Vec<u64>,
}

impl Grams {
    const PAIR_BITS: usize = 1 << 16;
    const TRIPLE_BITS: usize = 1 << 18;

    /// The bit of the triple whose bytes are `x`'s low three.
    fn triple(x: u32) -> usize {
        ((x & 0xFF_FFFF).wrapping_mul(0x9E37_79B1) >> (32 - 18)) as usize
    }

    /// The bit of the pair whose bytes are `x`'s low two.
    fn pair(x: u32) -> usize {
        (x & 0xFFFF) as usize
    }

    /// The grams of `text`, in one pass that shifts each byte into the last three (10 ms for
    /// the 4 MB of ids and paths of 100,000 documents).
    fn of(text: &[u8]) -> Grams {
        let mut g = Grams { pairs: vec![0; Self::PAIR_BITS / 64], triples: vec![0; Self::TRIPLE_BITS / 64] };
        let set = |bits: &mut [u64], b: usize| bits[b / 64] |= 1 << (b % 64);
        let mut x = 0u32;
        for (i, &b) in text.iter().enumerate() {
            x = x << 8 | u32::from(b);
            if i >= 1 {
                set(&mut g.pairs, Self::pair(x));
            }
            if i >= 2 {
                set(&mut g.triples, Self::triple(x));
            }
        }
        g
    }

    fn may_hold(&self, needle: &[u8]) -> bool {
        let has = |bits: &[u64], b: usize| bits[b / 64] & (1 << (b % 64)) != 0;
        let mut x = 0u32;
        needle.iter().enumerate().all(|(i, &b)| {
            x = x << 8 | u32::from(b);
            (i < 1 || has(&self.pairs, Self::pair(x))) && (i < 2 || has(&self.triples, Self::triple(x)))
        })
    }
}

/// The documents' types: `of[i]` is document `i`'s index in `names`.
#[derive(Debug, Default)]
struct Kinds {
    names: Vec<Box<[u8]>>,
    of: Vec<u32>,
}

impl Kinds {
    /// Adds document `i`'s type (documents in order). Documents of a type are together (ids
    /// start with it), so the last type is tried before the map.
    fn push(&mut self, kind: &[u8], map: &mut HashMap<Box<[u8]>, u32>) {
        let k = match self.of.last() {
            Some(&last) if *self.names[last as usize] == *kind => last,
            _ => *map.entry(kind.into()).or_insert_with(|| {
                self.names.push(kind.into());
                (self.names.len() - 1) as u32
            }),
        };
        self.of.push(k);
    }

    /// The number of type `kind`, if any document has it.
    fn find(&self, kind: &str) -> Option<u32> {
        self.names.iter().position(|n| **n == *kind.as_bytes()).map(|k| k as u32)
    }
}

/// Per-document buffers of one search, kept between searches.
#[derive(Debug, Default)]
struct Scratch {
    scores: Vec<f64>,
    last_needle: Vec<u16>,
}

/// A table of `count` strings in the blob: `count + 1` u64 offsets (the first 0), then the bytes.
#[derive(Debug, Clone, Copy, Default)]
struct StrTable {
    offs: usize,
    count: usize,
    bytes: usize,
}

fn le_u32(blob: &[u8], at: usize) -> u32 {
    blob.get(at..at + 4).and_then(|b| b.try_into().ok()).map_or(0, u32::from_le_bytes)
}

fn le_u64(blob: &[u8], at: usize) -> u64 {
    blob.get(at..at + 8).and_then(|b| b.try_into().ok()).map_or(0, u64::from_le_bytes)
}

impl StrTable {
    fn range(&self, blob: &[u8], i: usize) -> std::ops::Range<usize> {
        let at = self.offs + 8 * i;
        let (a, b) = (le_u64(blob, at) as usize, le_u64(blob, at + 8) as usize);
        self.bytes + a..self.bytes + b
    }

    fn bytes<'a>(&self, blob: &'a [u8], i: usize) -> &'a [u8] {
        blob.get(self.range(blob, i)).unwrap_or_default()
    }

    /// Validated as UTF-8 when the searcher was loaded.
    fn str<'a>(&self, blob: &'a [u8], i: usize) -> &'a str {
        std::str::from_utf8(self.bytes(blob, i)).unwrap_or_default()
    }

    /// The index of `key`, the table being sorted.
    fn find(&self, blob: &[u8], key: &[u8]) -> Option<usize> {
        let (mut lo, mut hi) = (0, self.count);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match self.bytes(blob, mid).cmp(key) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Some(mid),
            }
        }
        None
    }
}

/// Why a body cannot be a [`Searcher`]: the first inconsistency found.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the search structures are inconsistent: {0}")]
pub struct Corrupt(pub &'static str);

/// Reads a body front to back, every length checked against what is left.
struct Reader<'a> {
    blob: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn take(&mut self, len: Option<usize>, what: &'static str) -> Result<usize, Corrupt> {
        let start = self.at;
        let end = len.and_then(|l| start.checked_add(l)).filter(|&e| e <= self.blob.len()).ok_or(Corrupt(what))?;
        self.at = end;
        Ok(start)
    }

    fn u32(&mut self, what: &'static str) -> Result<u32, Corrupt> {
        let at = self.take(Some(4), what)?;
        Ok(le_u32(self.blob, at))
    }

    fn u64(&mut self, what: &'static str) -> Result<u64, Corrupt> {
        let at = self.take(Some(8), what)?;
        Ok(le_u64(self.blob, at))
    }

    fn array(&mut self, count: usize, width: usize, what: &'static str) -> Result<usize, Corrupt> {
        self.take(count.checked_mul(width), what)
    }

    /// A string table of `count` strings: offsets non-decreasing from 0, every string UTF-8.
    fn table(&mut self, count: usize, what: &'static str) -> Result<StrTable, Corrupt> {
        let offs = self.array(count.checked_add(1).ok_or(Corrupt(what))?, 8, what)?;
        let len = le_u64(self.blob, offs + 8 * count);
        let bytes = self.take(usize::try_from(len).ok(), what)?;
        let t = StrTable { offs, count, bytes };
        let mut prev = 0;
        for i in 0..count {
            let (a, b) = (le_u64(self.blob, offs + 8 * i), le_u64(self.blob, offs + 8 * i + 8));
            if a != prev || b < a || b > len {
                return Err(Corrupt(what));
            }
            prev = b;
            std::str::from_utf8(t.bytes(self.blob, i)).map_err(|_| Corrupt(what))?;
        }
        if count == 0 && len != 0 || le_u64(self.blob, offs) != 0 {
            return Err(Corrupt(what));
        }
        Ok(t)
    }

    /// `count` u32 or u64 values, non-decreasing from 0 to `last`.
    fn bounds(&mut self, count: usize, width: usize, last: u64, what: &'static str) -> Result<usize, Corrupt> {
        let at = self.array(count, width, what)?;
        let get = |i: usize| {
            if width == 4 { u64::from(le_u32(self.blob, at + 4 * i)) } else { le_u64(self.blob, at + 8 * i) }
        };
        let mut prev = 0;
        for i in 0..count {
            let v = get(i);
            if v < prev || (i == 0 && v != 0) {
                return Err(Corrupt(what));
            }
            prev = v;
        }
        if count > 0 && prev != last {
            return Err(Corrupt(what));
        }
        Ok(at)
    }
}

/// A record as the index holds it.
#[derive(Debug, Clone, PartialEq)]
pub struct DocumentText<'a> {
    pub id: &'a str,
    pub title: &'a str,
    pub path: &'a str,
    /// Read from the sidecar file when the searcher came from it.
    pub text: Cow<'a, str>,
}

/// A file read at any offset, moving no position (several threads may read it at once).
pub trait ReadAt: Send + Sync {
    /// Fills `buf` from the bytes at `offset`; an error when the file ends first.
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> std::io::Result<()>;
}

/// Where a searcher's document texts are, one after the other in id order.
pub enum Texts {
    /// In the searcher's own bytes, at this range.
    Inline(std::ops::Range<usize>),
    /// In bytes of their own.
    Owned(Vec<u8>),
    /// In a file, `len` bytes from `start` (the sidecar's text area).
    File { file: Box<dyn ReadAt>, start: u64, len: u64 },
}

impl Texts {
    fn len(&self) -> u64 {
        match self {
            Texts::Inline(r) => r.len() as u64,
            Texts::Owned(t) => t.len() as u64,
            Texts::File { len, .. } => *len,
        }
    }
}

impl std::fmt::Debug for Texts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Texts::Inline(r) => f.debug_tuple("Inline").field(r).finish(),
            Texts::Owned(t) => f.debug_tuple("Owned").field(&t.len()).finish(),
            Texts::File { start, len, .. } => f.debug_struct("File").field("start", start).field("len", len).finish(),
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    pub id: String,
    pub kind: String,
    pub title: String,
    pub path: String,
    pub tags: Vec<Tag>,
    pub score: f64,
    pub excerpt: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Results {
    pub match_count: usize,
    pub records: Vec<Hit>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown record type {0:?}: expected one of {types}", types = RecordType::names())]
pub struct UnknownType(pub String);

/// A record type given in any case (`project`, `Project`), as the index's PascalCase name.
pub fn parse_type(t: &str) -> Result<String, UnknownType> {
    let lower = t.to_lowercase();
    RecordType::parse(&lower).map(|r| r.pascal_name().to_owned()).ok_or_else(|| UnknownType(t.to_owned()))
}

/// What to look for; every part is optional.
#[derive(Debug, Clone, Default)]
pub struct Query<'a> {
    pub text: Option<&'a str>,
    /// PascalCase, from [`parse_type`].
    pub kind: Option<&'a str>,
    pub tag: Option<&'a str>,
}

/// A term and, for a compound term (`build-cache`, `node.js`), its parts, so that a query for
/// `cache` finds `build-cache`.
fn expand(term: &str) -> impl Iterator<Item = &str> {
    std::iter::once(term).chain(parts(term))
}

/// The parts of a compound term, none for a simple one; a part can come twice (`a-a`).
fn parts(term: &str) -> impl Iterator<Item = &str> {
    term.split(['-', '.']).filter(move |p| !p.is_empty() && *p != term)
}

/// The expanded tokens of `lower` (lower-cased already), sorted, each once.
fn expanded_tokens(lower: &str) -> Vec<&str> {
    let mut out = Vec::new();
    each_token(lower, |t| out.extend(expand(t)));
    out.sort_unstable();
    out.dedup();
    out
}

/// Sorts `(term, count)` pairs by term (unless they are already in strict order, as a
/// document's terms are) and sums the counts of a term given more than once.
fn merge_counts(v: &mut Vec<(&str, u32)>) {
    if !v.windows(2).all(|w| w[0].0 < w[1].0) {
        v.sort_unstable_by(|a, b| a.0.cmp(b.0));
        v.dedup_by(|next, kept| {
            let same = next.0 == kept.0;
            if same {
                kept.1 += next.1;
            }
            same
        });
    }
}

#[cfg(test)]
fn expand_all(terms: Vec<String>) -> Vec<String> {
    let mut out: Vec<String> = terms.iter().flat_map(|t| expand(t).map(str::to_owned)).collect();
    out.sort();
    out.dedup();
    out
}

/// One document's weight inputs for one term, until every document is in and the average
/// length is known: the term, and its count with the title and tag flags in the top two bits
/// (8 bytes, not 12: at 100,000 records there are millions).
#[derive(Debug, Clone, Copy)]
struct Entry {
    term: u32,
    tf_flags: u32,
}

impl Entry {
    const IN_TITLE: u32 = 1 << 31;
    const IN_TAG: u32 = 1 << 30;

    /// A count past 2^30 - 1 (a term more than a billion times in one document, far past any
    /// record the reader accepts) is held at that.
    fn new(term: u32, tf: u32, in_title: bool, in_tag: bool) -> Entry {
        let flags = if in_title { Self::IN_TITLE } else { 0 } | if in_tag { Self::IN_TAG } else { 0 };
        Entry { term, tf_flags: tf.min(Self::IN_TAG - 1) | flags }
    }

    fn tf(self) -> u32 {
        self.tf_flags & (Self::IN_TAG - 1)
    }

    fn in_title(self) -> bool {
        self.tf_flags & Self::IN_TITLE != 0
    }

    fn in_tag(self) -> bool {
        self.tf_flags & Self::IN_TAG != 0
    }
}

/// Entries in chunks of a fixed size: growing never copies them nor holds twice their size.
#[derive(Debug, Default)]
struct Entries {
    chunks: Vec<Vec<Entry>>,
    len: usize,
    /// Chunks freed by [`Entries::release_before`], from the first.
    released: usize,
}

impl Entries {
    const CHUNK: usize = 1 << 20;

    fn push(&mut self, e: Entry) {
        if self.len.is_multiple_of(Self::CHUNK) {
            self.chunks.push(Vec::with_capacity(Self::CHUNK));
        }
        if let Some(last) = self.chunks.last_mut() {
            last.push(e);
        }
        self.len += 1;
    }

    /// Entry `k`. Panics for an entry of a released chunk.
    fn get(&self, k: usize) -> Entry {
        self.chunks[k / Self::CHUNK][k % Self::CHUNK]
    }

    /// Frees every chunk whose entries all come before entry `k`: none of them is read again.
    fn release_before(&mut self, k: usize) {
        while self.released < k / Self::CHUNK {
            self.chunks[self.released] = Vec::new();
            self.released += 1;
        }
    }
}

/// Builds a [`Searcher`] one document at a time. Each document's strings go into flat arenas
/// (unless the caller keeps them: [`SearcherBuilder::borrowing`]) and its terms are folded
/// into interned term ids as they arrive, so loading an index never
/// holds every document's term strings at once (with serde, see [`deserialize`]). The same
/// builder writes the sidecar ([`crate::graph::sidecar`]).
#[derive(Debug, Default)]
pub struct SearcherBuilder {
    docs: DocParts,
    lens: Vec<f64>,
    vocab: Vocab,
    /// Every document's entries, one after the other; `bounds[i]..bounds[i + 1]` are doc i's.
    entries: Entries,
    bounds: Vec<usize>,
    /// The documents added as a previous index's, unchanged ([`Prepared::add_copied`]): each
    /// one's number here and there.
    copied: Vec<(u32, u32)>,
    /// Per document (by the order they were added in), where its entries start and end when
    /// they were added after all the others ([`SearcherBuilder::recount`]); empty otherwise.
    late: Vec<Option<(usize, usize)>>,
}

/// A document's five strings (id, type, title, path, text) by the order it was added in, for
/// a builder that does not hold them ([`SearcherBuilder::borrowing`]).
pub type DocStrings<'s> = dyn Fn(usize, usize) -> &'s [u8] + 's;

/// The documents' strings and tags, as added (by the order they were added in).
#[derive(Debug, Default)]
struct DocParts {
    /// Four strings per document (id, type, title, path), and where each ends; empty for a
    /// builder made [`SearcherBuilder::borrowing`].
    bytes: Vec<u8>,
    ends: Vec<u64>,
    /// The documents' texts, apart: in id order, they are the searcher's texts as they stand
    /// ([`SearcherBuilder::finish`] keeps them rather than copy them).
    texts: Vec<u8>,
    text_ends: Vec<u64>,
    /// The documents' strings are the caller's, given back when the layout is made.
    borrowing: bool,
    /// Where each document's tags start in `tag_kind`.
    tag_first: Vec<u32>,
    tag_kind: Vec<u8>,
    /// Two strings per tag (its text and that lower-cased), and where each ends.
    tag_bytes: Vec<u8>,
    tag_ends: Vec<u64>,
}

impl DocParts {
    /// String `f` of document `i`, from `strings` when the caller holds them.
    fn field<'a, 's: 'a>(&'a self, strings: &DocStrings<'s>, i: usize, f: usize) -> &'a [u8] {
        match f {
            _ if self.borrowing => strings(i, f),
            4 => nth(&self.texts, &self.text_ends, i),
            _ => nth(&self.bytes, &self.ends, 4 * i + f),
        }
    }

    fn tags_of(&self, i: usize) -> std::ops::Range<usize> {
        self.tag_first[i] as usize..self.tag_first.get(i + 1).map_or(self.tag_kind.len(), |&b| b as usize)
    }

    /// Tag `t`'s text and its lower-cased text.
    fn tag(&self, t: usize) -> [&[u8]; 2] {
        [nth(&self.tag_bytes, &self.tag_ends, 2 * t), nth(&self.tag_bytes, &self.tag_ends, 2 * t + 1)]
    }
}

fn push_str(bytes: &mut Vec<u8>, ends: &mut Vec<u64>, s: &[u8]) {
    bytes.extend_from_slice(s);
    ends.push(bytes.len() as u64);
}

fn nth<'a>(bytes: &'a [u8], ends: &[u64], i: usize) -> &'a [u8] {
    let a = if i == 0 { 0 } else { ends[i - 1] as usize };
    &bytes[a..ends[i] as usize]
}

/// Writes a string table: `count + 1` offsets from 0, then the strings' bytes.
fn write_table<'a>(out: &mut Sink<'_>, items: impl Iterator<Item = &'a [u8]> + Clone) -> std::io::Result<()> {
    let mut off = 0u64;
    out.put(&off.to_le_bytes())?;
    for s in items.clone() {
        off += s.len() as u64;
        out.put(&off.to_le_bytes())?;
    }
    for s in items {
        out.put(s)?;
    }
    Ok(())
}

/// A writer fed in small pieces, passed on in pieces of [`Sink::PIECE`] bytes.
struct Sink<'w> {
    out: &'w mut dyn std::io::Write,
    buf: Vec<u8>,
    /// Bytes taken in all.
    taken: usize,
}

impl<'w> Sink<'w> {
    const PIECE: usize = 64 * 1024;

    fn new(out: &'w mut dyn std::io::Write) -> Self {
        Sink { out, buf: Vec::with_capacity(Self::PIECE), taken: 0 }
    }

    fn put(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.taken += bytes.len();
        if self.buf.len() + bytes.len() > Self::PIECE {
            self.out.write_all(&self.buf)?;
            self.buf.clear();
        }
        if bytes.len() > Self::PIECE {
            return self.out.write_all(bytes);
        }
        self.buf.extend_from_slice(bytes);
        Ok(())
    }

    fn done(self) -> std::io::Result<()> {
        self.out.write_all(&self.buf)
    }
}

/// A hasher for keys that are hashes already ([`Vocab`]'s table, keyed by [`term_hash`]).
#[derive(Debug, Default, Clone, Copy)]
struct Prehashed(u64);

impl std::hash::Hasher for Prehashed {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

/// The hash a term is interned by, computed where the term is prepared.
fn term_hash(term: &[u8]) -> u64 {
    use std::hash::BuildHasher;
    foldhash::fast::FixedState::default().hash_one(term)
}

/// The builder's vocabulary: each distinct term once, numbered in order of arrival. A term is
/// found by its hash, computed off the builder's thread ([`Prepared`]), and one comparison of
/// bytes; a term whose hash an earlier, different term has is found by its bytes instead.
#[derive(Debug, Default)]
struct Vocab {
    /// Hash -> the first term with that hash.
    by_hash: HashMap<u64, u32, std::hash::BuildHasherDefault<Prehashed>>,
    /// Terms whose hash was taken by another term.
    collided: HashMap<Box<[u8]>, u32, foldhash::fast::FixedState>,
    /// The terms, by id, and where each ends.
    bytes: Vec<u8>,
    ends: Vec<u64>,
}

impl Vocab {
    /// The id of `term`, whose [`term_hash`] is `hash`; a new id for a term not seen before.
    fn intern(&mut self, hash: u64, term: &[u8]) -> u32 {
        use std::collections::hash_map::Entry as Slot;
        let next = self.ends.len() as u32;
        match self.by_hash.entry(hash) {
            Slot::Vacant(slot) => {
                slot.insert(next);
            }
            Slot::Occupied(slot) => {
                let id = *slot.get();
                if nth(&self.bytes, &self.ends, id as usize) == term {
                    return id;
                }
                match self.collided.entry(term.into()) {
                    Slot::Occupied(slot) => return *slot.get(),
                    Slot::Vacant(slot) => {
                        slot.insert(next);
                    }
                }
            }
        }
        push_str(&mut self.bytes, &mut self.ends, term);
        next
    }

    fn len(&self) -> usize {
        self.ends.len()
    }

    fn term(&self, id: u32) -> &[u8] {
        nth(&self.bytes, &self.ends, id as usize)
    }
}

/// A run of documents' shares of the builder's work that need nothing shared: each one's
/// terms (compound terms expanded) with their counts, title and tag flags and hashes, its
/// length and its tags' texts, in a few flat arenas (no allocation per term). Made on any
/// thread ([`Prepared::add`]), pushed in the same order ([`SearcherBuilder::push`]), so that the
/// builder's serial work per term is a probe of a table keyed by a number and one comparison.
#[derive(Debug, Default)]
pub struct Prepared {
    /// The terms' bytes, one after the other.
    term_bytes: Vec<u8>,
    terms: Vec<PreparedTerm>,
    /// Per document: where its terms end in `terms`, and its length; or, for a document whose
    /// terms are a previous index's ([`Prepared::add_copied`]), its number there.
    docs: Vec<(usize, f64)>,
    copied: Vec<(usize, u32)>,
    /// Two strings per tag (its text and that lower-cased), and where each ends.
    tag_bytes: Vec<u8>,
    tag_ends: Vec<u64>,
}

#[derive(Debug, Clone, Copy)]
struct PreparedTerm {
    hash: u64,
    /// Where the term ends in `term_bytes`; it starts where the one before it ends.
    end: usize,
    tf: u32,
    in_title: bool,
    in_tag: bool,
}

impl Prepared {
    /// Prepares document `d`, whose term counts are `terms` (in any order; a term given twice
    /// counts twice). A change to what it makes of a document bumps the sidecar's format
    /// version: `graph index` takes unchanged documents' postings from the sidecar in place.
    pub fn add<'t>(&mut self, d: &DocumentView<'_>, terms: impl IntoIterator<Item = (&'t str, u32)>) {
        let mut whole: Vec<(&str, u32)> = terms.into_iter().collect();
        let len = whole.iter().fold(0.0, |len, &(_, n)| len + f64::from(n));
        merge_counts(&mut whole);
        let mut split: Vec<(&str, u32)> = Vec::new();
        for &(t, n) in &whole {
            if t.bytes().any(|b| b == b'-' || b == b'.') {
                split.extend(parts(t).map(|p| (p, n)));
            }
        }
        merge_counts(&mut split);
        let title = lowercase(d.title);
        let title_terms = expanded_tokens(&title);
        let tag_lower = self.add_tags(d);
        let tag_lower = lowercase(&tag_lower);
        let tag_terms = expanded_tokens(&tag_lower);
        // The whole terms and their parts, both in order, merged; the title's and tags' terms
        // are walked alongside.
        let (mut w, mut s, mut ti, mut gi) = (0, 0, 0, 0);
        loop {
            let (term, tf) = match (whole.get(w), split.get(s)) {
                (Some(&(a, m)), Some(&(b, n))) => match a.cmp(b) {
                    std::cmp::Ordering::Less => {
                        w += 1;
                        (a, m)
                    }
                    std::cmp::Ordering::Greater => {
                        s += 1;
                        (b, n)
                    }
                    std::cmp::Ordering::Equal => {
                        (w, s) = (w + 1, s + 1);
                        (a, m + n)
                    }
                },
                (Some(&one), None) => {
                    w += 1;
                    one
                }
                (None, Some(&one)) => {
                    s += 1;
                    one
                }
                (None, None) => break,
            };
            while title_terms.get(ti).is_some_and(|&t| t < term) {
                ti += 1;
            }
            while tag_terms.get(gi).is_some_and(|&t| t < term) {
                gi += 1;
            }
            self.term_bytes.extend_from_slice(term.as_bytes());
            self.terms.push(PreparedTerm {
                hash: term_hash(term.as_bytes()),
                end: self.term_bytes.len(),
                tf,
                in_title: title_terms.get(ti) == Some(&term),
                in_tag: tag_terms.get(gi) == Some(&term),
            });
        }
        self.docs.push((self.terms.len(), len));
    }

    /// Prepares document `d` as document `old` of `previous`, unchanged since: its terms and
    /// length are taken from there when the builder is laid out ([`SearcherBuilder::layout_with`]),
    /// not counted again. Its tags are prepared as [`Prepared::add`] prepares them.
    pub fn add_copied(&mut self, d: &DocumentView<'_>, old: u32) {
        self.add_tags(d);
        self.copied.push((self.docs.len(), old));
        self.docs.push((self.terms.len(), 0.0));
    }

    /// Pushes the text and lower-cased text of each of `d`'s tags; returns the lower-cased
    /// texts joined by spaces (their terms are its tokens).
    fn add_tags(&mut self, d: &DocumentView<'_>) -> String {
        let mut tag_lower = String::new();
        for (k, tag) in d.tags.iter().enumerate() {
            let text = match tag {
                Tag::Str(s) => s.as_str(),
                Tag::Bool(true) => "true",
                Tag::Bool(false) => "false",
                Tag::Null => "null",
            };
            push_str(&mut self.tag_bytes, &mut self.tag_ends, text.as_bytes());
            if k > 0 {
                tag_lower.push(' ');
            }
            let from = tag_lower.len();
            if text.is_ascii() {
                tag_lower.push_str(text);
                tag_lower[from..].make_ascii_lowercase();
            } else {
                tag_lower.push_str(&text.to_lowercase());
            }
            push_str(&mut self.tag_bytes, &mut self.tag_ends, &tag_lower.as_bytes()[from..]);
        }
        tag_lower
    }

    /// Empties it, keeping its buffers for the next run of documents.
    pub fn clear(&mut self) {
        self.term_bytes.clear();
        self.terms.clear();
        self.docs.clear();
        self.copied.clear();
        self.tag_bytes.clear();
        self.tag_ends.clear();
    }

    /// The documents prepared.
    pub fn len(&self) -> usize {
        self.docs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.docs.is_empty()
    }
}

impl SearcherBuilder {
    /// A builder for `docs` documents that keeps none of their five strings: the caller still
    /// holds them (`graph index`'s records) and gives them back to [`SearcherBuilder::layout`]
    /// and [`Layout::write`], so they are never in memory twice.
    pub fn borrowing(docs: usize) -> Self {
        SearcherBuilder {
            docs: DocParts { borrowing: true, tag_first: Vec::with_capacity(docs), ..DocParts::default() },
            lens: Vec::with_capacity(docs),
            bounds: Vec::with_capacity(docs + 1),
            ..Self::default()
        }
    }

    /// The documents added as a previous index's ([`Prepared::add_copied`]).
    pub fn taken(&self) -> usize {
        self.copied.len()
    }

    /// Whether it keeps no strings ([`SearcherBuilder::borrowing`]).
    pub fn is_borrowing(&self) -> bool {
        self.docs.borrowing
    }

    pub fn add(&mut self, d: &Document) {
        let mut p = Prepared::default();
        p.add(&d.view(), d.terms.iter());
        self.push([d.view()], &p);
    }

    /// Adds documents `docs`, prepared in the same order by [`Prepared::add`].
    pub fn push<'a>(&mut self, docs: impl IntoIterator<Item = DocumentView<'a>>, p: &Prepared) {
        if self.bounds.is_empty() {
            self.bounds.push(0);
        }
        let mut docs = docs.into_iter();
        let (mut first_term, mut term_start, mut tag) = (0, 0, 0);
        let first = self.lens.len();
        self.copied.extend(p.copied.iter().map(|&(k, old)| ((first + k) as u32, old)));
        for &(terms_end, len) in &p.docs {
            let d = docs.next().expect("a view of each prepared document");
            for t in &p.terms[first_term..terms_end] {
                let term = self.vocab.intern(t.hash, &p.term_bytes[term_start..t.end]);
                term_start = t.end;
                self.entries.push(Entry::new(term, t.tf, t.in_title, t.in_tag));
            }
            first_term = terms_end;
            self.bounds.push(self.entries.len);
            self.lens.push(len);
            let docs = &mut self.docs;
            if !docs.borrowing {
                let [strings @ .., text] = d.strings();
                for s in strings {
                    push_str(&mut docs.bytes, &mut docs.ends, s.as_bytes());
                }
                push_str(&mut docs.texts, &mut docs.text_ends, text.as_bytes());
            }
            docs.tag_first.push(docs.tag_kind.len() as u32);
            for t in d.tags {
                docs.tag_kind.push(match t {
                    Tag::Str(_) => TAG_STR,
                    Tag::Bool(_) => TAG_BOOL,
                    Tag::Null => TAG_NULL,
                });
                for _ in 0..2 {
                    push_str(&mut docs.tag_bytes, &mut docs.tag_ends, nth(&p.tag_bytes, &p.tag_ends, tag));
                    tag += 1;
                }
            }
        }
        assert!(docs.next().is_none(), "a prepared document for each view");
    }

    pub fn finish(self) -> Searcher {
        assert!(!self.docs.borrowing, "a borrowing builder is laid out with its strings");
        let none = |_: usize, _: usize| -> &[u8] { &[] };
        let mut layout = self.layout(&none);
        // Allocated once at its size, not grown by doubling. Documents added in id order (an
        // index file's are) have their texts as the searcher holds them: kept, not copied
        // after the body (at 100,000 records, 92 MB held twice while the body was written).
        let in_order = layout.order.iter().enumerate().all(|(i, &old)| i == old);
        let body = layout.len(&none);
        let mut blob = Vec::with_capacity(body + if in_order { 0 } else { layout.texts_len(&none) });
        layout.write(&mut blob, &none).expect("a Vec takes every write");
        let texts = if in_order {
            Texts::Owned(std::mem::take(&mut layout.docs.texts))
        } else {
            layout.write_texts(&mut blob, &none).expect("a Vec takes every write");
            Texts::Inline(body..blob.len())
        };
        drop(layout);
        Searcher::from_body(blob, 0..body, texts).expect("the builder writes a consistent body")
    }

    /// Everything the searcher's flat layout (the sidecar's body; its format is described
    /// there) needs besides the documents' strings: made once, written as often as asked
    /// ([`Layout::write`]). `strings` gives them for a [`SearcherBuilder::borrowing`] builder
    /// (ignored otherwise).
    pub fn layout(self, strings: &DocStrings<'_>) -> Layout {
        assert!(self.copied.is_empty(), "documents added as a previous index's are laid out by `layout_with`");
        self.layout_with(strings, None, &|_, _| {})
    }

    /// String `f` of document `i` (see [`DocParts::field`]).
    fn field<'a, 's: 'a>(&'a self, strings: &DocStrings<'s>, i: usize, f: usize) -> &'a [u8] {
        self.docs.field(strings, i, f)
    }

    /// Counts the terms of the documents added as a previous index's after all, in the
    /// previous index's stead: each one's entries added after every other document's (the
    /// layout reads a document's entries by its bounds, wherever they lie).
    fn recount(&mut self, recount: &dyn Fn(usize, &mut Prepared)) {
        let mut p = Prepared::default();
        let mut late = vec![None; self.lens.len()];
        for (i, _) in std::mem::take(&mut self.copied) {
            p.clear();
            recount(i as usize, &mut p);
            let (terms_end, len) = p.docs[0];
            let start = self.entries.len;
            let mut term_start = 0;
            for t in &p.terms[..terms_end] {
                let term = self.vocab.intern(t.hash, &p.term_bytes[term_start..t.end]);
                term_start = t.end;
                self.entries.push(Entry::new(term, t.tf, t.in_title, t.in_tag));
            }
            self.lens[i as usize] = len;
            late[i as usize] = Some((start, self.entries.len));
        }
        self.late = late;
    }

    /// [`SearcherBuilder::layout`], the terms of the documents added as `previous`'s
    /// ([`Prepared::add_copied`]) taken from there: the same layout as had their terms been
    /// counted again. The layout keeps it, to read the postings it takes as it is written.
    ///
    /// Each such document must be there under its number, with its id and path; otherwise
    /// (or with no `previous`) the terms of every one of them are counted after all, by
    /// `recount`, which prepares document `i` ([`Prepared::add`]) as it was added.
    pub fn layout_with(
        mut self,
        strings: &DocStrings<'_>,
        previous: Option<Previous>,
        recount: &dyn Fn(usize, &mut Prepared),
    ) -> Layout {
        // Each one there as told, and in the same order there as here (by id): its postings,
        // taken in the previous index's order, are then in this one's.
        let has_them = |p: &Previous| {
            let in_order = self.copied.windows(2).all(|w| {
                w[0].1 < w[1].1 && self.field(strings, w[0].0 as usize, 0) < self.field(strings, w[1].0 as usize, 0)
            });
            in_order
                && self.copied.iter().all(|&(i, old)| {
                    let (i, old) = (i as usize, old as usize);
                    old < p.len() && {
                        let (id, path) = p.id_and_path(old);
                        id.as_bytes() == self.field(strings, i, 0) && path.as_bytes() == self.field(strings, i, 3)
                    }
                })
        };
        let previous = previous.filter(|p| !self.copied.is_empty() && has_them(p));
        if previous.is_none() && !self.copied.is_empty() {
            self.recount(recount);
        }
        let SearcherBuilder { docs, mut lens, mut vocab, entries, bounds, copied, late } = self;
        let n = lens.len();
        let mut text_sums = Vec::new();
        if let Some(p) = &previous {
            text_sums.resize(n, None);
            for &(i, old) in &copied {
                lens[i as usize] = f64::from(p.len_of(old as usize));
                text_sums[i as usize] = Some(p.text_sum(old as usize));
            }
        }
        let field = |i: usize, f: usize| docs.field(strings, i, f);
        // Documents in id order (stable, as a sort of the whole list was).
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by(|&a, &b| field(a, 0).cmp(field(b, 0)));
        let nf = n as f64;
        let avg_len = if n == 0 { 1.0 } else { (order.iter().map(|&i| lens[i]).sum::<f64>() / nf).max(1.0) };
        // Exact capacities: postings are most of a loaded index.
        let mut df = vec![0u32; vocab.len()];
        for k in 0..entries.len {
            df[entries.get(k).term as usize] += 1;
        }
        // The previous index's postings of the documents taken from it, under their places
        // here: its terms that some such document has are interned (the others are gone). They
        // are read from it as the layout is written, merged with the others', never copied.
        let taken = previous.map(|p| {
            let mut place = vec![0u32; n];
            for (at, &i) in order.iter().enumerate() {
                place[i] = at as u32;
            }
            let copied: Vec<(u32, u32)> = copied.iter().map(|&(i, old)| (place[i as usize], old)).collect();
            let merged = p.postings_of(&copied, n, &mut vocab);
            let mut of_id = vec![u32::MAX; vocab.len()];
            for (t, &id) in merged.ids.iter().enumerate().filter(|(_, id)| **id != u32::MAX) {
                of_id[id as usize] = t as u32;
            }
            Taken { previous: p, merged, of_id }
        });
        df.resize(vocab.len(), 0);
        let mut lists: Vec<Vec<(u32, u32)>> = df.iter().map(|&k| Vec::with_capacity(k as usize)).collect();
        drop(df);
        // Documents added in id order (an index being written adds them so) have their entries
        // read front to back: each chunk is freed once read, so the postings do not grow
        // beside every entry still held (38 MB of each at 100,000 records).
        let mut entries = entries;
        let front_to_back = order.iter().enumerate().all(|(i, &old)| i == old);
        for (i, &old) in order.iter().enumerate() {
            if front_to_back {
                entries.release_before(bounds[old]);
            }
            let later = late.get(old).copied().flatten().map_or(0..0, |(a, b)| a..b);
            for k in (bounds[old]..bounds[old + 1]).chain(later) {
                let e = entries.get(k);
                lists[e.term as usize].push((i as u32, e.tf_flags));
            }
        }
        drop(entries);
        let lens = order.iter().map(|&i| stored_len(lens[i])).collect();
        let mut terms: Vec<u32> = (0..vocab.len() as u32).collect();
        terms.sort_unstable_by(|&a, &b| vocab.term(a).cmp(vocab.term(b)));
        let lower = |b: &[u8]| std::str::from_utf8(b).unwrap_or_default().to_lowercase();
        let mut haystack = Vec::new();
        let mut starts = Vec::with_capacity(n);
        for &i in &order {
            starts.push(haystack.len() as u32);
            haystack.extend(lower(field(i, 0)).bytes());
            haystack.push(0);
            haystack.extend(lower(field(i, 3)).bytes());
            haystack.push(0);
        }
        Layout { docs, vocab, order, lists, taken, lens, text_sums, terms, starts, haystack, avg_len }
    }
}

/// A previous index's layout, as its sidecar holds it (each posting's count and flags, not its
/// weight): `graph index` takes from it the terms of the documents unchanged since, rather
/// than count them again in the JSON it copies them from (at 100,000 records, 0.4 s of CPU in
/// a run after one edit). Read from the sidecar ([`crate::graph::sidecar::decode_previous`]),
/// every structure checked as for a search.
#[derive(Debug)]
pub struct Previous(Searcher);

/// Two runs of postings in document order, merged (no document is in both).
struct Merge<A: Iterator<Item = (u32, u32)>, B: Iterator<Item = (u32, u32)>> {
    a: std::iter::Peekable<A>,
    b: std::iter::Peekable<B>,
}

impl<A: Iterator<Item = (u32, u32)>, B: Iterator<Item = (u32, u32)>> Iterator for Merge<A, B> {
    type Item = (u32, u32);

    fn next(&mut self) -> Option<(u32, u32)> {
        match (self.a.peek(), self.b.peek()) {
            (Some(x), Some(y)) if y.0 < x.0 => self.b.next(),
            (Some(_), _) => self.a.next(),
            (None, _) => self.b.next(),
        }
    }
}

/// A previous index and what a layout takes from it.
#[derive(Debug)]
pub struct Taken {
    previous: Previous,
    merged: Merged,
    /// Per term id here, the term's number in the previous index (`u32::MAX`: none).
    of_id: Vec<u32>,
}

impl Taken {
    /// Term `id`'s postings taken: `(document here, count and flags)`, in document order.
    fn postings(&self, id: u32) -> impl Iterator<Item = (u32, u32)> + '_ {
        let t = self.of_id.get(id as usize).copied().unwrap_or(u32::MAX);
        let list = if t == u32::MAX { &[][..] } else { self.previous.postings(t as usize) };
        list.chunks_exact(8).filter_map(|p| {
            let i = self.merged.new_of_old[le_u32(p, 0) as usize];
            (i != u32::MAX).then(|| (i, le_u32(p, 4)))
        })
    }

    /// How many postings of term `id` are taken.
    fn count(&self, id: u32) -> usize {
        let t = self.of_id.get(id as usize).copied().unwrap_or(u32::MAX);
        if t == u32::MAX { 0 } else { self.merged.counts[t as usize] as usize }
    }
}

/// The previous index's postings of the documents taken from it ([`Previous::postings_of`]).
#[derive(Debug)]
struct Merged {
    /// Per document of the previous index, its number in this one (`u32::MAX`: not taken).
    new_of_old: Vec<u32>,
    /// Per term of the previous index, its id in this one's vocabulary (`u32::MAX`: no
    /// document taken has it), and the postings taken.
    ids: Vec<u32>,
    counts: Vec<u32>,
}

impl Previous {
    /// The previous index at `body` in `blob` (see [`Searcher::from_body`]; its postings left
    /// as counts and flags).
    pub(crate) fn from_body(blob: Vec<u8>, body: std::ops::Range<usize>, texts: Texts) -> Result<Previous, Corrupt> {
        Searcher::from_layout(blob, body, texts, false).map(Previous)
    }

    /// Its documents.
    pub fn len(&self) -> usize {
        self.0.n
    }

    pub fn is_empty(&self) -> bool {
        self.0.n == 0
    }

    /// Document `k`'s id and path.
    pub fn id_and_path(&self, k: usize) -> (&str, &str) {
        (self.0.field(k, 0), self.0.field(k, 3))
    }

    /// The checksum of document `k`'s text.
    fn text_sum(&self, k: usize) -> u64 {
        le_u64(&self.0.blob, self.0.text_sums + 8 * k)
    }

    fn len_of(&self, k: usize) -> u32 {
        le_u32(&self.0.blob, self.0.lens + 4 * k)
    }

    fn n_terms(&self) -> usize {
        self.0.terms.count
    }

    /// Term `t`'s postings, 8 bytes each: `(document, count and flags)`.
    fn postings(&self, t: usize) -> &[u8] {
        let s = &self.0;
        let (a, b) = (le_u64(&s.blob, s.post + 8 * t) as usize, le_u64(&s.blob, s.post + 8 * t + 8) as usize);
        &s.blob[s.postings + 8 * a..s.postings + 8 * b]
    }

    /// The postings of documents `copied` (`(number here, number there)`; numbers here below
    /// `n`), counted per term, each term that has some interned into `vocab`.
    fn postings_of(&self, copied: &[(u32, u32)], n: usize, vocab: &mut Vocab) -> Merged {
        let mut new_of_old = vec![u32::MAX; self.len()];
        for &(i, old) in copied {
            assert!((i as usize) < n && (old as usize) < self.len(), "a document of both indexes");
            new_of_old[old as usize] = i;
        }
        let (mut ids, mut counts) = (vec![u32::MAX; self.n_terms()], vec![0; self.n_terms()]);
        for t in 0..self.n_terms() {
            let count =
                self.postings(t).chunks_exact(8).filter(|p| new_of_old[le_u32(p, 0) as usize] != u32::MAX).count();
            if count > 0 {
                let term = self.0.terms.bytes(&self.0.blob, t);
                ids[t] = vocab.intern(term_hash(term), term);
                counts[t] = count as u32;
            }
        }
        Merged { new_of_old, ids, counts }
    }
}

/// A document's length as the layout holds it: its number of terms, at most `u32::MAX` (far
/// past any record the reader accepts).
fn stored_len(len: f64) -> u32 {
    len.min(f64::from(u32::MAX)) as u32
}

/// Turns each posting's `(document, count and flags)`, as the layout holds it, into the
/// `(document, weight)` a search adds up, in place; `lens` holds each document's length. False
/// for a posting of no document.
fn weigh_postings(postings: &mut [u8], lens: &[u8], avg_len: f64) -> bool {
    // Each document's length part once (a division each), then one division per posting.
    let norms: Vec<f64> = lens.chunks_exact(4).map(|l| norm(f64::from(le_u32(l, 0)), avg_len)).collect();
    for p in postings.chunks_exact_mut(8) {
        let Some(&norm) = norms.get(le_u32(p, 0) as usize) else { return false };
        let e = Entry { term: 0, tf_flags: le_u32(p, 4) };
        let w = weight_with(e.tf(), norm, e.in_title(), e.in_tag());
        p[4..].copy_from_slice(&w.to_bits().to_le_bytes());
    }
    true
}

/// A posting's weight: the BM25 term-frequency part of a term counted `tf` times in a document
/// of `len` terms (the average being `avg_len`), plus the title and tag boosts; held as an f32.
fn weight(tf: u32, len: f64, avg_len: f64, in_title: bool, in_tag: bool) -> f32 {
    weight_with(tf, norm(len, avg_len), in_title, in_tag)
}

/// The part of [`weight`] that depends on the document's length alone.
fn norm(len: f64, avg_len: f64) -> f64 {
    K1 * (1.0 - B + B * len / avg_len)
}

/// [`weight`], the document's [`norm`] given.
fn weight_with(tf: u32, norm: f64, in_title: bool, in_tag: bool) -> f32 {
    let tf = f64::from(tf);
    let mut w = tf * (K1 + 1.0) / (tf + norm);
    if in_title {
        w += TITLE_BOOST;
    }
    if in_tag {
        w += TAG_BOOST;
    }
    w as f32
}

/// A [`SearcherBuilder`] laid out but for the documents' strings of a borrowing builder: the
/// postings in their final order, the terms sorted, the haystack made.
#[derive(Debug)]
pub struct Layout {
    docs: DocParts,
    vocab: Vocab,
    /// The documents (by the order they were added) in id order.
    order: Vec<usize>,
    /// Per term id, its `(document, count and flags)` postings ([`Entry::tf_flags`]), but for
    /// those `taken` from a previous index.
    lists: Vec<Vec<(u32, u32)>>,
    taken: Option<Taken>,
    /// Each document's length, in id order.
    lens: Vec<u32>,
    /// Per document (by the order they were added in), the checksum of its text when a
    /// previous index had it (its text unchanged since): not computed again.
    text_sums: Vec<Option<u64>>,
    /// Term ids in byte order of their terms.
    terms: Vec<u32>,
    starts: Vec<u32>,
    haystack: Vec<u8>,
    /// The average document length the weights are computed with.
    avg_len: f64,
}

impl Layout {
    /// The length of what [`Layout::write`] writes, from the parts' sizes alone.
    pub fn len(&self, strings: &DocStrings<'_>) -> usize {
        let Layout { docs, vocab, order, terms, starts, haystack, lens, .. } = self;
        let (n, n_tags, n_terms) = (order.len(), docs.tag_kind.len(), terms.len());
        let doc_strings: usize =
            (0..n).flat_map(|i| (0..4).map(move |f| (i, f))).map(|(i, f)| docs.field(strings, i, f).len()).sum();
        let tag_strings: usize = (0..n_tags).flat_map(|t| docs.tag(t)).map(<[u8]>::len).sum();
        let term_strings: usize = terms.iter().map(|&id| vocab.term(id).len()).sum();
        let n_postings: usize = terms.iter().map(|&id| self.df(id)).sum();
        HEAD_LEN
            + (8 * (4 * n + 1) + doc_strings)
            + 8 * (n + 1)
            + 8 * n
            + 4 * (n + 1)
            + n_tags
            + (8 * (2 * n_tags + 1) + tag_strings)
            + (8 * (n_terms + 1) + term_strings)
            + 8 * n_terms
            + 8 * (n_terms + 1)
            + 8 * n_postings
            + 4 * lens.len()
            + 4 * starts.len()
            + 8
            + haystack.len()
    }

    /// Term `id`'s number of postings: its own and those taken from a previous index.
    fn df(&self, id: u32) -> usize {
        self.lists[id as usize].len() + self.taken.as_ref().map_or(0, |t| t.count(id))
    }

    /// The length of what [`Layout::write_texts`] writes.
    pub fn texts_len(&self, strings: &DocStrings<'_>) -> usize {
        (0..self.order.len()).map(|i| self.docs.field(strings, i, 4).len()).sum()
    }

    /// Writes the documents' texts, in id order, one after the other: what the body's text
    /// offsets point into.
    pub fn write_texts(&self, out: &mut dyn std::io::Write, strings: &DocStrings<'_>) -> std::io::Result<()> {
        // Handed over as they lie, many at a time (copied into pieces first, they were a
        // fifth of what writing the sidecar took at 100,000 records).
        for run in self.order.chunks(1024) {
            let mut slices: Vec<std::io::IoSlice<'_>> = run
                .iter()
                .map(|&i| self.docs.field(strings, i, 4))
                .filter(|t| !t.is_empty())
                .map(std::io::IoSlice::new)
                .collect();
            let mut slices = &mut slices[..];
            while !slices.is_empty() {
                match out.write_vectored(slices) {
                    Ok(0) => return Err(std::io::ErrorKind::WriteZero.into()),
                    Ok(n) => std::io::IoSlice::advance_slices(&mut slices, n),
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(e) => return Err(e),
                }
            }
        }
        Ok(())
    }

    /// Writes the flat layout to `out` in pieces; it is never held whole. `strings` as given
    /// to [`SearcherBuilder::layout`].
    pub fn write(&self, out: &mut dyn std::io::Write, strings: &DocStrings<'_>) -> std::io::Result<()> {
        let Layout { docs, vocab, order, lists, taken, lens, text_sums, terms, starts, haystack, avg_len } = self;
        let n = order.len();
        let field = |i: usize, f: usize| docs.field(strings, i, f);
        let n_postings: usize = terms.iter().map(|&id| self.df(id)).sum();
        let mut out = Sink::new(out);
        for count in [n, docs.tag_kind.len(), terms.len(), 0] {
            out.put(&(count as u32).to_le_bytes())?;
        }
        out.put(&avg_len.to_bits().to_le_bytes())?;
        out.put(&(n_postings as u64).to_le_bytes())?;
        write_table(&mut out, order.iter().flat_map(|&i| (0..4).map(move |f| field(i, f))))?;
        let mut end = 0u64;
        out.put(&end.to_le_bytes())?;
        for &i in order {
            end += field(i, 4).len() as u64;
            out.put(&end.to_le_bytes())?;
        }
        for &i in order {
            let sum = text_sums.get(i).copied().flatten().unwrap_or_else(|| checksum(field(i, 4)));
            out.put(&sum.to_le_bytes())?;
        }
        let mut first = 0u32;
        out.put(&first.to_le_bytes())?;
        for &i in order {
            first += docs.tags_of(i).len() as u32;
            out.put(&first.to_le_bytes())?;
        }
        for &i in order {
            for t in docs.tags_of(i) {
                out.put(&[docs.tag_kind[t]])?;
            }
        }
        write_table(&mut out, order.iter().flat_map(|&i| docs.tags_of(i)).flat_map(|t| docs.tag(t)))?;
        write_table(&mut out, terms.iter().map(|&id| vocab.term(id)))?;
        let nf = n as f64;
        for &id in terms {
            let df = self.df(id) as f64;
            let idf = (1.0 + (nf - df + 0.5) / (df + 0.5)).ln();
            out.put(&idf.to_le_bytes())?;
        }
        let mut at = 0u64;
        out.put(&at.to_le_bytes())?;
        for &id in terms {
            at += self.df(id) as u64;
            out.put(&at.to_le_bytes())?;
        }
        // In pieces of a few thousand postings: one call of `put` per posting was most of
        // the time this took (0.1 s at 100,000 records). Each term's postings taken from a
        // previous index are merged with its others by document.
        let mut piece = Vec::with_capacity(Sink::PIECE);
        for &id in terms {
            let own = lists[id as usize].iter().copied().peekable();
            let postings = Merge { a: taken.iter().flat_map(|t| t.postings(id)).peekable(), b: own };
            for (doc, tf_flags) in postings {
                piece.extend_from_slice(&doc.to_le_bytes());
                piece.extend_from_slice(&tf_flags.to_le_bytes());
                if piece.len() + 8 > Sink::PIECE {
                    out.put(&piece)?;
                    piece.clear();
                }
            }
        }
        out.put(&piece)?;
        piece.clear();
        for len in lens {
            piece.extend_from_slice(&len.to_le_bytes());
        }
        for start in starts {
            piece.extend_from_slice(&start.to_le_bytes());
        }
        out.put(&piece)?;
        out.put(&(haystack.len() as u64).to_le_bytes())?;
        out.put(haystack)?;
        debug_assert_eq!(out.taken, self.len(strings), "Layout::len counts what write writes");
        out.done()
    }
}

/// Reads a search index file (the shape of [`SearchIndex`]) straight into a [`Searcher`], one
/// document at a time.
pub fn deserialize<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Searcher, D::Error> {
    #[derive(serde::Deserialize)]
    struct File {
        #[allow(dead_code, reason = "required by the format, not used by search")]
        version: String,
        #[allow(dead_code, reason = "required by the format, not used by search")]
        algorithm: String,
        #[serde(deserialize_with = "documents")]
        documents: SearcherBuilder,
    }
    fn documents<'de, D: serde::Deserializer<'de>>(d: D) -> Result<SearcherBuilder, D::Error> {
        struct Docs;
        impl<'de> serde::de::Visitor<'de> for Docs {
            type Value = SearcherBuilder;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a list of documents")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<SearcherBuilder, A::Error> {
                let mut b = SearcherBuilder::default();
                while let Some(doc) = seq.next_element::<Document>()? {
                    b.add(&doc);
                }
                Ok(b)
            }
        }
        d.deserialize_seq(Docs)
    }
    let file: File = serde::Deserialize::deserialize(d)?;
    Ok(file.documents.finish())
}

const TAG_STR: u8 = 0;
const TAG_BOOL: u8 = 1;
const TAG_NULL: u8 = 2;

impl Searcher {
    pub fn new(index: SearchIndex) -> Self {
        let mut b = SearcherBuilder::default();
        for d in &index.documents {
            b.add(d);
        }
        b.finish()
    }

    /// A searcher over the layout at `body` in `blob`, whose texts are `texts`: every count,
    /// offset and string checked (the texts' offsets against their length; each text against
    /// its checksum when read): anything inconsistent is an error, never a panic or an
    /// allocation sized by the bytes.
    pub fn from_body(blob: Vec<u8>, body: std::ops::Range<usize>, texts: Texts) -> Result<Searcher, Corrupt> {
        Self::from_layout(blob, body, texts, true)
    }

    /// [`Searcher::from_body`]; `weigh` false leaves the postings as the layout holds them,
    /// counts and flags rather than weights (for [`Previous`], never to search with).
    fn from_layout(
        mut blob: Vec<u8>,
        body: std::ops::Range<usize>,
        texts: Texts,
        weigh: bool,
    ) -> Result<Searcher, Corrupt> {
        let in_blob = |r: &std::ops::Range<usize>| r.start <= r.end && r.end <= blob.len();
        if !in_blob(&body) || matches!(&texts, Texts::Inline(t) if !in_blob(t)) {
            return Err(Corrupt("body or texts out of bounds"));
        }
        let mut r = Reader { blob: &blob[..body.end], at: body.start };
        let n = r.u32("document count")? as usize;
        let n_tags = r.u32("tag count")? as usize;
        let n_terms = r.u32("term count")? as usize;
        if r.u32("reserved")? != 0 {
            return Err(Corrupt("reserved"));
        }
        // Every weight is computed with it: anything but a length is damage.
        let avg_len = f64::from_bits(r.u64("average length")?);
        if !(avg_len.is_finite() && avg_len >= 1.0) {
            return Err(Corrupt("average length"));
        }
        let n_postings = usize::try_from(r.u64("posting count")?).map_err(|_| Corrupt("posting count"))?;
        let docs = r.table(n.checked_mul(4).ok_or(Corrupt("documents"))?, "documents")?;
        let text_ends = r.bounds(n + 1, 8, texts.len(), "text offsets")?;
        let text_sums = r.array(n, 8, "text checksums")?;
        // With the order checked, each type is read while its document's id is in the cache.
        // Not for a previous index, which is never searched.
        let mut kinds = Kinds { names: Vec::new(), of: Vec::with_capacity(if weigh { n } else { 0 }) };
        let mut kind_map: HashMap<Box<[u8]>, u32> = HashMap::new();
        for i in (0..n).filter(|_| weigh) {
            if i > 0 && docs.bytes(&blob, 4 * (i - 1)) > docs.bytes(&blob, 4 * i) {
                return Err(Corrupt("documents out of id order"));
            }
            kinds.push(docs.bytes(&blob, 4 * i + 1), &mut kind_map);
        }
        let tag_first = r.bounds(n + 1, 4, n_tags as u64, "tag ranges")?;
        let tag_kind = r.array(n_tags, 1, "tag kinds")?;
        if blob[tag_kind..tag_kind + n_tags].iter().any(|&k| k > TAG_NULL) {
            return Err(Corrupt("tag kinds"));
        }
        let tags = r.table(n_tags.checked_mul(2).ok_or(Corrupt("tags"))?, "tags")?;
        let terms = r.table(n_terms, "terms")?;
        for k in 1..n_terms {
            if terms.bytes(&blob, k - 1) >= terms.bytes(&blob, k) {
                return Err(Corrupt("terms out of order"));
            }
        }
        let idf = r.array(n_terms, 8, "idf")?;
        let post = r.bounds(n_terms + 1, 8, n_postings as u64, "posting ranges")?;
        let postings = r.array(n_postings, 8, "postings")?;
        let lens = r.array(n, 4, "document lengths")?;
        let starts = r.array(n, 4, "haystack starts")?;
        let hay_len = r.u64("haystack length")?;
        let hay = r.take(usize::try_from(hay_len).ok(), "haystack")?;
        let haystack = hay..hay + hay_len as usize;
        if r.at != body.end {
            return Err(Corrupt("trailing bytes"));
        }
        // The haystack's grams are made on a second core while the postings are checked and
        // weighed (at 100,000 documents a sidecar loads in 56-78 ms, as version 7's did).
        let (head, tail) = blob.split_at_mut(lens);
        let (grams, postings_ok) = std::thread::scope(|s| {
            let hay = if weigh { &tail[haystack.start - lens..haystack.end - lens] } else { &[] };
            let grams = s.spawn(|| Grams::of(hay));
            let lens = &tail[..4 * n];
            let postings = &mut head[postings..postings + 8 * n_postings];
            let ok = if weigh {
                weigh_postings(postings, lens, avg_len)
            } else {
                !postings.chunks_exact(8).any(|p| le_u32(p, 0) as usize >= n)
            };
            (grams.join().expect("the grams of the haystack"), ok)
        });
        if !postings_ok {
            return Err(Corrupt("posting of no document"));
        }
        // Every position in the haystack must belong to a document: the first starts at 0.
        let mut prev = 0;
        for i in 0..n {
            let s = u64::from(le_u32(&blob, starts + 4 * i));
            if s < prev || s > hay_len || (i == 0 && s != 0) {
                return Err(Corrupt("haystack starts"));
            }
            prev = s;
        }
        if n == 0 && hay_len != 0 {
            return Err(Corrupt("haystack without documents"));
        }
        let scratch = std::sync::Mutex::default();
        Ok(Searcher {
            blob,
            n,
            docs,
            text_ends,
            text_sums,
            texts,
            damaged: std::sync::atomic::AtomicBool::new(false),
            tag_first,
            tag_kind,
            tags,
            terms,
            idf,
            post,
            postings,
            starts,
            haystack,
            kinds,
            scratch,
            grams,
            tag_docs: std::sync::OnceLock::new(),
            avg_len,
            lens,
            by_path: std::sync::OnceLock::new(),
        })
    }

    /// The flat layout's bytes (with whatever preceded it in the file read), and the texts
    /// when they are apart.
    pub fn heap_bytes(&self) -> usize {
        self.blob.capacity() + if let Texts::Owned(t) = &self.texts { t.capacity() } else { 0 }
    }

    fn field(&self, i: usize, f: usize) -> &str {
        self.docs.str(&self.blob, 4 * i + f)
    }

    /// Document `i`'s plain text, read and checked against its checksum; `None`, the searcher
    /// marked damaged, when it cannot be read or does not match.
    fn text(&self, i: usize) -> Option<Cow<'_, str>> {
        let (a, b) = (le_u64(&self.blob, self.text_ends + 8 * i), le_u64(&self.blob, self.text_ends + 8 * i + 8));
        let read = || -> Option<Cow<'_, [u8]>> {
            match &self.texts {
                // Offsets checked at load: `a <= b <= len`.
                Texts::Inline(r) => self.blob.get(r.start + a as usize..r.start + b as usize).map(Cow::Borrowed),
                Texts::Owned(t) => t.get(a as usize..b as usize).map(Cow::Borrowed),
                // Found in review: a crafted sidecar with a text of hundreds of MB (sparse, so
                // cheap to make) made every search that hit it read and hold that much.
                Texts::File { .. } if b - a > MAX_TEXT_BYTES => None,
                Texts::File { file, start, .. } => {
                    let mut buf = vec![0; usize::try_from(b - a).ok()?];
                    file.read_exact_at(&mut buf, start + a).ok()?;
                    Some(Cow::Owned(buf))
                }
            }
        };
        let checked =
            read().filter(|t| checksum(t) == le_u64(&self.blob, self.text_sums + 8 * i)).and_then(|t| match t {
                Cow::Borrowed(t) => std::str::from_utf8(t).ok().map(Cow::Borrowed),
                Cow::Owned(t) => String::from_utf8(t).ok().map(Cow::Owned),
            });
        if checked.is_none() {
            self.damaged.store(true, std::sync::atomic::Ordering::Relaxed);
        }
        checked
    }

    /// Whether a text failed its check: the answers given lacked it (an empty excerpt, a record
    /// not found by id), and the searcher should be loaded again.
    pub fn is_damaged(&self) -> bool {
        self.damaged.load(std::sync::atomic::Ordering::Relaxed)
    }

    fn tag_range(&self, i: usize) -> std::ops::Range<usize> {
        le_u32(&self.blob, self.tag_first + 4 * i) as usize..le_u32(&self.blob, self.tag_first + 4 * i + 4) as usize
    }

    fn tags_of(&self, i: usize) -> Vec<Tag> {
        self.tag_range(i)
            .map(|k| {
                let text = self.tags.str(&self.blob, 2 * k);
                match self.blob.get(self.tag_kind + k) {
                    Some(&TAG_STR) => Tag::Str(text.to_owned()),
                    Some(&TAG_BOOL) => Tag::Bool(text == "true"),
                    _ => Tag::Null,
                }
            })
            .collect()
    }

    /// A record's title, path and plain text, by id (for checking facts against it); `None`
    /// too when its text fails its check ([`Searcher::is_damaged`]).
    pub fn document(&self, id: &str) -> Option<DocumentText<'_>> {
        let (mut lo, mut hi) = (0, self.n);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match self.docs.bytes(&self.blob, 4 * mid).cmp(id.as_bytes()) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => {
                    return Some(DocumentText {
                        id: self.field(mid, 0),
                        title: self.field(mid, 2),
                        path: self.field(mid, 3),
                        text: self.text(mid)?,
                    });
                }
            }
        }
        None
    }

    pub fn len(&self) -> usize {
        self.n
    }

    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// Whether document `i` passes the filters.
    fn passes(&self, i: usize, filter: &Filter) -> bool {
        filter.kind.is_none_or(|k| Some(self.kinds.of[i]) == k)
            && filter.tagged.as_ref().is_none_or(|bits| bits[i / 64] >> (i % 64) & 1 == 1)
    }

    /// The filters of `q`, its `tag` lower-cased.
    fn filter(&self, q: &Query<'_>, tag: Option<&str>) -> Filter {
        let tagged = tag.map(|t| {
            let mut bits = vec![0u64; self.n.div_ceil(64)];
            for &d in self.tag_docs().get(t.as_bytes()).map_or(&[][..], Vec::as_slice) {
                bits[d as usize / 64] |= 1 << (d % 64);
            }
            bits
        });
        Filter { kind: q.kind.map(|k| self.kinds.find(k)), tagged }
    }

    /// Each lower-cased tag's documents, in order: made once, at the first search filtered by
    /// a tag, so that each such search marks the tag's documents rather than compare every
    /// document's tags with it (1.5-2 ms at 100,000 documents).
    fn tag_docs(&self) -> &HashMap<Box<[u8]>, Vec<u32>> {
        self.tag_docs.get_or_init(|| {
            let mut map: HashMap<Box<[u8]>, Vec<u32>> = HashMap::new();
            for i in 0..self.n {
                let d = i as u32;
                for k in self.tag_range(i) {
                    let tag = self.tags.bytes(&self.blob, 2 * k + 1);
                    match map.get_mut(tag) {
                        // A tag given twice (or two that lower-case alike) lists it once.
                        Some(docs) if docs.last() == Some(&d) => {}
                        Some(docs) => docs.push(d),
                        None => {
                            map.insert(tag.into(), vec![d]);
                        }
                    }
                }
            }
            map
        })
    }

    /// The postings of `term`: its idf and its `(doc, weight)` pairs as 8-byte chunks.
    fn postings(&self, term: &str) -> Option<(f64, &[u8])> {
        let k = self.terms.find(&self.blob, term.as_bytes())?;
        let idf = f64::from_bits(le_u64(&self.blob, self.idf + 8 * k));
        let (a, b) =
            (le_u64(&self.blob, self.post + 8 * k) as usize, le_u64(&self.blob, self.post + 8 * k + 8) as usize);
        Some((idf, self.blob.get(self.postings + 8 * a..self.postings + 8 * b).unwrap_or_default()))
    }

    /// Where document `i`'s part of the haystack starts.
    fn start(&self, i: usize) -> usize {
        le_u32(&self.blob, self.starts + 4 * i) as usize
    }

    /// The document whose part of the haystack holds byte `pos`, at or after document `from`
    /// (whose part starts at or before `pos`): found by steps that double from `from`, then
    /// halving, so that a scan of the haystack front to back costs the log of each gap.
    fn doc_from(&self, from: usize, pos: usize) -> usize {
        let (mut lo, mut step) = (from, 1);
        let mut hi = from + 1;
        while hi < self.n && self.start(hi) <= pos {
            lo = hi;
            step *= 2;
            hi = lo + step;
        }
        // The last document in lo..hi whose part starts at or before pos; lo's does.
        let mut hi = hi.min(self.n);
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if self.start(mid) <= pos { lo = mid } else { hi = mid }
        }
        lo
    }

    pub fn search(&self, q: &Query<'_>) -> Results {
        self.search_with(q, &Pending::default())
    }

    /// The index's documents at record path `path` or below it as a folder (`path/...`): one
    /// for a record's path, unless the index is of an invalid graph written by hand.
    fn documents_at<'a>(&'a self, path: &'a str) -> impl Iterator<Item = usize> + 'a {
        let by_path = self.by_path.get_or_init(|| {
            let mut order: Vec<u32> = (0..self.n as u32).collect();
            order.sort_by(|&a, &b| self.field(a as usize, 3).cmp(self.field(b as usize, 3)));
            order
        });
        // In byte order, the paths that start with `path` follow it in one run (`path`,
        // `path-x`, `path/a`, `path0`...): those that are it or lie below it are picked out.
        let first = by_path.partition_point(|&i| self.field(i as usize, 3) < path);
        by_path[first..].iter().map(|&i| i as usize).take_while(move |&i| self.field(i, 3).starts_with(path)).filter(
            move |&i| {
                let p = self.field(i, 3);
                p.len() == path.len() || p.as_bytes()[path.len()] == b'/'
            },
        )
    }

    /// [`Searcher::search`] over the documents as `pending` says they now are: its paths'
    /// documents in the index hidden, its documents searched beside the index's.
    pub fn search_with(&self, q: &Query<'_>, pending: &Pending) -> Results {
        let tag = q.tag.map(str::to_lowercase);
        let tag = tag.as_deref();
        let filter = self.filter(q, tag);
        let mut late = pending::Late::new(self, pending, q.kind, tag);
        let text = q.text.map(str::trim).filter(|t| !t.is_empty());
        let Some(text) = text else {
            let matching: Vec<usize> = (0..self.n).filter(|&i| !late.hides(i) && self.passes(i, &filter)).collect();
            // Both lists are in id order: merged, the first MAX_RESULTS.
            let mut listed: Vec<(&str, Option<usize>, usize)> =
                matching.iter().take(MAX_RESULTS).map(|&i| (self.field(i, 0), None, i)).collect();
            let pending: Vec<usize> = late.passing().map(|(j, _)| j).collect();
            listed.extend(pending.iter().map(|&j| (late.id(j), Some(j), j)));
            listed.sort_by(|a, b| a.0.cmp(b.0));
            let none = Needles::none();
            return Results {
                match_count: matching.len() + pending.len(),
                records: listed
                    .iter()
                    .take(MAX_RESULTS)
                    .map(|&(_, from, i)| match from {
                        Some(j) => late.hit(j, 0.0, &none),
                        None => self.hit(i, 0.0, &none),
                    })
                    .collect(),
            };
        };
        let mut terms = tokens(text);
        terms.sort();
        terms.dedup();
        terms.truncate(MAX_QUERY_TERMS);
        // The buffers of the last search, unless another search holds them now.
        let mut kept = self.scratch.try_lock().ok();
        let mut own = Scratch::default();
        let Scratch { scores, last_needle } = kept.as_deref_mut().unwrap_or(&mut own);
        scores.clear();
        scores.resize(self.n, 0.0);
        let scores = &mut scores[..];
        for term in &terms {
            let postings = self.postings(term);
            // With records pending, the idf is counted again over the documents as they are.
            let idf = match postings {
                Some((idf, _)) if late.is_empty() => Some(idf),
                _ => late.idf(term, postings.map_or(&[][..], |(_, p)| p)),
            };
            let Some(idf) = idf else { continue };
            late.score(term, idf);
            if let Some((_, entries)) = postings {
                for e in entries.chunks_exact(8) {
                    let (d, w) = (le_u32(e, 0), f32::from_bits(le_u32(e, 4)));
                    if let Some(s) = scores.get_mut(d as usize) {
                        *s += idf * f64::from(w);
                    }
                }
            }
        }
        // Ids and paths match by substring: each query term, or the whole query when it has
        // none; a document counts once per needle.
        let lower = text.to_lowercase();
        let needles: Vec<&str> =
            if terms.is_empty() { vec![lower.as_str()] } else { terms.iter().map(String::as_str).collect() };
        late.needles(&needles);
        last_needle.clear();
        last_needle.resize(if needles.is_empty() { 0 } else { self.n }, u16::MAX);
        let haystack = self.blob.get(self.haystack.clone()).unwrap_or_default();
        let scanned = |n: &&str| !n.is_empty() && !n.contains('\0') && self.grams.may_hold(n.as_bytes());
        // Once a needle is found in a document's part, the scan goes on from the next part: a
        // match cannot span a part's `\0`, and a document counts once per needle. Found
        // measuring: a query term such as `3` occurs hundreds of thousands of times in 100,000
        // ids and paths, and a binary search for each occurrence's document made that search
        // take 7 ms.
        for (k, needle) in needles.iter().enumerate().filter(|(_, n)| scanned(n)) {
            let finder = memchr::memmem::Finder::new(needle.as_bytes());
            let (mut at, mut doc) = (0, 0);
            while let Some(found) = haystack.get(at..).and_then(|rest| finder.find(rest)) {
                doc = self.doc_from(doc, at + found);
                if last_needle[doc] != k as u16 {
                    last_needle[doc] = k as u16;
                    scores[doc] += ID_PATH_WEIGHT;
                }
                at = if doc + 1 < self.n { self.start(doc + 1) } else { haystack.len() }.max(at + found + 1);
            }
        }
        // The best MAX_RESULTS by score then id, kept sorted while every match is counted: one
        // pass over the dense scores. Documents come in id order, so once the list is full a
        // score at or under its last one ranks after it: most are refused by that comparison.
        let order = |a: &(u32, f64), b: &(u32, f64)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
        let filtered = filter.is_some() || !late.is_empty();
        let mut match_count = 0;
        let mut ranked: Vec<(u32, f64)> = Vec::with_capacity(MAX_RESULTS + 1);
        let mut floor = 0.0;
        for (d, &s) in scores.iter().enumerate() {
            if s.is_nan() || s <= 0.0 || (filtered && (late.hides(d) || !self.passes(d, &filter))) {
                continue;
            }
            match_count += 1;
            if s <= floor {
                continue;
            }
            let c = (d as u32, s);
            let at = ranked.partition_point(|x| order(x, &c).is_lt());
            ranked.insert(at, c);
            ranked.truncate(MAX_RESULTS);
            if ranked.len() == MAX_RESULTS {
                floor = ranked[MAX_RESULTS - 1].1;
            }
        }
        let finder = Needles::new(&needles);
        // The pending documents ranked in, by score then id.
        let mut all: Vec<(&str, f64, Option<usize>, usize)> =
            ranked.iter().map(|&(i, s)| (self.field(i as usize, 0), s, None, i as usize)).collect();
        for (j, s) in late.passing().filter(|&(_, s)| !s.is_nan() && s > 0.0) {
            match_count += 1;
            all.push((late.id(j), s, Some(j), j));
        }
        if all.len() > ranked.len() {
            all.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(b.0)));
        }
        let records = all
            .iter()
            .take(MAX_RESULTS)
            .map(|&(_, s, from, i)| match from {
                Some(j) => late.hit(j, s, &finder),
                None => self.hit(i, s, &finder),
            })
            .collect();
        Results { match_count, records }
    }

    fn hit(&self, i: usize, score: f64, needles: &Needles) -> Hit {
        Hit {
            id: self.field(i, 0).to_owned(),
            kind: self.field(i, 1).to_owned(),
            title: self.field(i, 2).to_owned(),
            path: self.field(i, 3).to_owned(),
            tags: self.tags_of(i),
            score: Hit::rounded(score),
            excerpt: self.text(i).map_or_else(String::new, |t| excerpt_with(&t, needles, &mut 0)),
        }
    }
}

impl Hit {
    /// A score as answers give it: four decimals.
    fn rounded(score: f64) -> f64 {
        (score * 10_000.0).round() / 10_000.0
    }

    /// The hit of document `d`, held as a value (a pending record's, or the reference
    /// searcher's).
    fn of(d: DocumentView<'_>, score: f64, needles: &Needles) -> Hit {
        Hit {
            id: d.id.to_owned(),
            kind: d.kind.to_owned(),
            title: d.title.to_owned(),
            path: d.path.to_owned(),
            tags: d.tags.to_vec(),
            score: Hit::rounded(score),
            excerpt: excerpt_with(d.text, needles, &mut 0),
        }
    }
}

/// The needles of one query, compiled once into one automaton: finding the first occurrence of
/// any of them is one pass over a text, whatever their number.
#[derive(Debug)]
pub struct Needles(Option<AhoCorasick>);

impl Needles {
    pub fn new(needles: &[&str]) -> Self {
        // Each needle is cut to its first NEEDLE_BYTES: the automaton's construction grows with
        // the square of a term that overlaps itself (40,000 `x`: 5 s, found in review, with
        // every request slot held by a few such searches), and the first occurrence of a prefix
        // still places the excerpt.
        let needles: Vec<&str> =
            needles.iter().map(|n| cut_at_char(n, NEEDLE_BYTES)).filter(|n| !n.is_empty()).collect();
        if needles.is_empty() {
            return Needles::none();
        }
        // Leftmost semantics: the match reported is the one that starts first.
        let ac = AhoCorasick::builder().match_kind(MatchKind::LeftmostFirst).build(&needles);
        Needles(Some(ac.expect("64 query terms of at most one frame compile into an automaton")))
    }

    pub fn none() -> Self {
        Needles(None)
    }

    /// The byte offset in `lower` where the first occurrence of any needle starts.
    fn first(&self, lower: &[u8]) -> Option<usize> {
        self.0.as_ref()?.find(lower).map(|m| m.start())
    }
}

/// The longest needle placed in an excerpt, in bytes; a longer term is looked for by its start.
const NEEDLE_BYTES: usize = 64;

/// `s` cut to at most `max` bytes, at a char boundary.
fn cut_at_char(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// About [`EXCERPT_CHARS`] characters of `text` around the first occurrence of any needle
/// (case-insensitive), or its start; `…` marks a cut.
pub fn excerpt(text: &str, needles: &[&str]) -> String {
    excerpt_with(text, &Needles::new(needles), &mut 0)
}

/// [`excerpt`] with the needles compiled once. Every step is a single pass over `text` (or its
/// lower-cased copy); `work` is increased by the bytes each pass visits, so a test can show
/// that the cost grows with the text, not with the text times the needles.
fn excerpt_with(text: &str, needles: &Needles, work: &mut usize) -> String {
    *work += text.len();
    let total = text.chars().count();
    if total <= EXCERPT_CHARS {
        return text.to_owned();
    }
    // Lower-cased char by char (the first char of each lower case), so char positions in the
    // copy are char positions in the text.
    let first_hit = if text.is_ascii() {
        *work += text.len();
        let lower = text.to_ascii_lowercase();
        *work += text.len();
        needles.first(lower.as_bytes())
    } else {
        let lower: String = text.chars().map(|c| c.to_lowercase().next().unwrap_or(c)).collect();
        *work += text.len() + lower.len();
        needles.first(lower.as_bytes()).map(|at| {
            *work += at;
            lower[..at].chars().count()
        })
    };
    let start = match first_hit {
        Some(pos) => pos.saturating_sub(EXCERPT_CHARS / 3).min(total - EXCERPT_CHARS),
        None => 0,
    };
    let end = (start + EXCERPT_CHARS).min(total);
    let byte_at = |char_index: usize| text.char_indices().nth(char_index).map_or(text.len(), |(b, _)| b);
    let (from, to) = (byte_at(start), byte_at(end));
    *work += from + to;
    let mut out = String::with_capacity(to - from + 6);
    if start > 0 {
        out.push('…');
    }
    out.push_str(&text[from..to]);
    if end < total {
        out.push('…');
    }
    out
}

#[path = "search_pending.rs"]
mod pending;
pub use pending::Pending;

#[cfg(test)]
#[path = "search_reference.rs"]
mod reference;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::index::term_counts;

    fn doc(id: &str, title: &str, tags: &[&str], text: &str) -> Document {
        let tags: Vec<Tag> = tags.iter().map(|t| Tag::Str((*t).into())).collect();
        let tag_text: Vec<String> = tags.iter().map(Tag::text).collect();
        Document {
            id: id.into(),
            kind: RecordType::parse(id.split(':').next().unwrap()).unwrap().pascal_name().into(),
            title: title.into(),
            path: format!("{}/{}.md", id.split(':').next().unwrap(), id.split(':').nth(1).unwrap()),
            text: text.into(),
            tags,
            terms: term_counts(&format!("{title} {} {text}", tag_text.join(" "))),
        }
    }

    fn searcher() -> Searcher {
        Searcher::new(searcher_index())
    }

    fn searcher_index() -> SearchIndex {
        SearchIndex {
            version: "2.0.0".into(),
            algorithm: "lexical-term-frequency".into(),
            documents: vec![
                doc(
                    "project:cachewarden",
                    "cachewarden",
                    &["rust", "build"],
                    "Audits remote build caches written in Rust.",
                ),
                doc("project:lens", "pipeline lens", &["ci"], "Profiles CI logs. Mentions rust once."),
                doc(
                    "experience:tideline",
                    "Tideline platform",
                    &["rust"],
                    "Led the CI rebuild with Bazel and Rust and Rust.",
                ),
                doc("publication:flaky", "Flaky tests", &[], "A paper about flaky tests in CI."),
            ],
        }
    }

    fn ids(r: &Results) -> Vec<&str> {
        r.records.iter().map(|h| h.id.as_str()).collect()
    }

    #[test]
    fn title_and_tag_matches_rank_above_body_mentions() {
        let s = searcher();
        let r = s.search(&Query { text: Some("rust"), ..Default::default() });
        assert_eq!(r.match_count, 3);
        assert_eq!(ids(&r)[2], "project:lens", "a body mention alone ranks last: {:?}", ids(&r));
        let r = s.search(&Query { text: Some("flaky"), ..Default::default() });
        assert_eq!(ids(&r), ["publication:flaky"]);
    }

    #[test]
    fn compound_terms_match_their_parts() {
        let s = searcher();
        let r = s.search(&Query { text: Some("cache"), ..Default::default() });
        assert_eq!(ids(&r)[0], "project:cachewarden");
    }

    #[test]
    fn filters_and_listing_without_a_query() {
        let s = searcher();
        let r = s.search(&Query { kind: Some("Project"), ..Default::default() });
        assert_eq!(ids(&r), ["project:cachewarden", "project:lens"]);
        let r = s.search(&Query { tag: Some("RUST"), ..Default::default() });
        assert_eq!(ids(&r), ["experience:tideline", "project:cachewarden"]);
        let r = s.search(&Query { text: Some("rust"), kind: Some("Experience"), ..Default::default() });
        assert_eq!(ids(&r), ["experience:tideline"]);
    }

    #[test]
    fn ids_and_paths_match_by_substring() {
        let s = searcher();
        let r = s.search(&Query { text: Some("tideline"), ..Default::default() });
        assert_eq!(ids(&r)[0], "experience:tideline");
        let r = s.search(&Query { text: Some("warden"), ..Default::default() });
        assert_eq!(ids(&r), ["project:cachewarden"]);
        let r = s.search(&Query { text: Some("::"), ..Default::default() });
        assert_eq!(r.match_count, 0);
    }

    /// Guards the cap that keeps a pathological query fast (its timing is in the graph bench).
    #[test]
    fn a_huge_query_uses_only_its_first_max_query_terms_distinct_terms() {
        let mut index = searcher_index();
        index.documents.push(doc("project:zulu", "zulu", &[], "The last term in sorted order."));
        let s = Searcher::new(index);
        let search = |text: &str| s.search(&Query { text: Some(text), ..Default::default() });
        // Distinct terms in sorted order: "flaky", then the fillers, then "zulu"; repeats count once.
        let fillers: Vec<String> = (0..100_000).map(|i| format!("y{i:06}")).collect();
        let huge = format!("zulu flaky {} flaky {}", fillers.join(" "), fillers[..10].join(" "));
        let cut = format!("flaky {}", fillers[..MAX_QUERY_TERMS - 1].join(" "));
        let r = search(&huge);
        assert_eq!(r, search(&cut), "the huge query must answer exactly as its first {MAX_QUERY_TERMS} terms");
        assert_eq!(ids(&r), ["publication:flaky"]);
        let kept = search("flaky zulu");
        let mut both = ids(&kept);
        both.sort_unstable();
        assert_eq!(both, ["project:zulu", "publication:flaky"], "zulu matches when it is kept");
    }

    #[test]
    fn types_parse_in_any_case() {
        assert_eq!(parse_type("project").unwrap(), "Project");
        assert_eq!(parse_type("Publication").unwrap(), "Publication");
        assert!(parse_type("talk").is_err());
    }

    /// The excerpt as it was computed before it became one pass: per needle, a scan of every
    /// window of the lower-cased chars. Kept as the reference the fast one must equal.
    fn reference_excerpt(text: &str, needles: &[&str]) -> String {
        let chars: Vec<char> = text.chars().collect();
        if chars.len() <= EXCERPT_CHARS {
            return text.to_owned();
        }
        let lower: Vec<char> = chars.iter().map(|c| c.to_lowercase().next().unwrap_or(*c)).collect();
        let first_hit = needles
            .iter()
            .filter(|n| !n.is_empty())
            .filter_map(|n| {
                let n: Vec<char> = n.chars().collect();
                lower.windows(n.len()).position(|w| w == n.as_slice())
            })
            .min();
        let start = match first_hit {
            Some(pos) => pos.saturating_sub(EXCERPT_CHARS / 3).min(chars.len() - EXCERPT_CHARS),
            None => 0,
        };
        let end = (start + EXCERPT_CHARS).min(chars.len());
        let mut out = String::new();
        if start > 0 {
            out.push('…');
        }
        out.extend(&chars[start..end]);
        if end < chars.len() {
            out.push('…');
        }
        out
    }

    proptest::proptest! {
        // The prefilter of the id and path scan never refuses a needle that is there.
        #[test]
        fn grams_hold_every_part_of_their_text(text in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..300), a in 0usize..300, len in 0usize..40) {
            let g = Grams::of(&text);
            let a = a.min(text.len());
            let part = &text[a..(a + len).min(text.len())];
            proptest::prop_assert!(g.may_hold(part), "{:?} in {:?}", part, text);
        }
    }

    #[test]
    fn grams_refuse_a_needle_with_a_pair_or_triple_in_no_id_or_path() {
        let g = Grams::of(b"project:cachewarden\0projects/cachewarden/project.md\0");
        assert!(g.may_hold(b"cachewarden") && g.may_hold(b"warden") && g.may_hold(b"s/c") && g.may_hold(b"x"));
        // `ku`, `qa` and `ru` are pairs of none of its bytes.
        assert!(!g.may_hold(b"kubernetes") && !g.may_hold(b"qa") && !g.may_hold(b"rust"));
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
        // The one-pass excerpt equals the per-needle reference, on ASCII and on text whose
        // lower case changes length (İ, ẞ, Σ) or is several chars.
        #[test]
        fn one_pass_excerpts_equal_the_reference(
            text in "([a-zA-Z .\\-]|İ|ẞ|Σ|é|🦀|ǅ){0,900}",
            needles in proptest::collection::vec("([a-z.\\-]|i̇|ß|σ|é|🦀|ǆ){0,4}", 0..6),
        ) {
            let needles: Vec<&str> = needles.iter().map(String::as_str).collect();
            proptest::prop_assert_eq!(excerpt(&text, &needles), reference_excerpt(&text, &needles));
        }
    }

    #[test]
    fn excerpts_equal_the_reference_on_long_records() {
        let text =
            format!("{} Rust and Bazel {} ÉTÉ {}", "lorem ipsum ".repeat(300), "x".repeat(500), "y ".repeat(400));
        for needles in [&["bazel"][..], &["rust", "bazel"], &["été"], &["zzz", "y y"], &[], &["x"]] {
            assert_eq!(excerpt(&text, needles), reference_excerpt(&text, needles), "{needles:?}");
        }
    }

    // Regression: a 64-term query over 20 records of ~4 MB took 28-30 s, because each term
    // scanned every window of each record. The work must grow with the text, not with the text
    // times the terms: measured in bytes visited, not in time.
    #[test]
    fn excerpt_work_is_linear_in_the_text_and_independent_of_the_terms() {
        let terms: Vec<String> = (0..MAX_QUERY_TERMS).map(|i| format!("absent{i}")).collect();
        let many: Vec<&str> = terms.iter().map(String::as_str).collect();
        let work = |len: usize, needles: &[&str]| {
            let text = format!("{}needle", "ab ".repeat(len / 3));
            let mut work = 0;
            let mut all: Vec<&str> = needles.to_vec();
            all.push("needle");
            let e = excerpt_with(&text, &Needles::new(&all), &mut work);
            assert!(e.contains("needle"));
            (work, text.len())
        };
        let (one, len) = work(300_000, &[]);
        let (sixty_four, _) = work(300_000, &many);
        assert_eq!(sixty_four, one, "64 terms cost what one costs");
        assert!(one <= 6 * len, "{one} bytes visited for a text of {len}");
        let (four_times, len4) = work(1_200_000, &many);
        assert!(four_times <= 6 * len4, "{four_times} bytes visited for a text of {len4}");
    }

    /// A term longer than the needles kept is found by its start (cut at a char boundary): the
    /// automaton of a long self-overlapping term took seconds to build (40,000 `x`: 5 s).
    #[test]
    fn a_long_term_is_found_by_its_start() {
        let long = "é".repeat(20_000);
        assert_eq!(cut_at_char(&long, NEEDLE_BYTES).len(), NEEDLE_BYTES);
        assert_eq!(cut_at_char("xé", 2), "x", "never inside a char");
        let text = format!("{} {long} {}", "a".repeat(1000), "b".repeat(1000));
        let e = excerpt(&text, &[long.as_str(), "x".repeat(40_000).as_str()]);
        assert!(e.starts_with('…') && e.contains("éé"), "centred on the long term: {e}");
    }

    #[test]
    fn excerpts_center_on_the_first_hit() {
        let text = format!("{} needle {}", "a".repeat(1000), "b".repeat(1000));
        let e = excerpt(&text, &["needle"]);
        assert!(e.starts_with('…') && e.ends_with('…') && e.contains("needle"));
        assert_eq!(e.chars().count(), EXCERPT_CHARS + 2);
    }

    /// Documents drawn from a small vocabulary so that terms, compounds, tags and ids collide.
    fn arb_documents() -> impl proptest::strategy::Strategy<Value = Vec<Document>> {
        use proptest::prelude::*;
        // Parts that are terms too (`cache`, `node`) and a part twice (`x-x`).
        let word = prop::sample::select(vec![
            "rust",
            "go",
            "build-cache",
            "node.js",
            "ci",
            "C++",
            "Été",
            "İstanbul",
            "x",
            "cache",
            "node",
            "x-x",
        ]);
        let kind = prop::sample::select(vec!["project", "experience", "publication", "award"]);
        let tag = prop_oneof![
            word.clone().prop_map(|w| Tag::Str(w.to_uppercase())),
            any::<bool>().prop_map(Tag::Bool),
            Just(Tag::Null),
        ];
        let one = (
            kind,
            "[a-z0-9-]{1,6}",
            prop::collection::vec(word.clone(), 0..4),
            prop::collection::vec(tag, 0..3),
            prop::collection::vec(word, 0..30),
        );
        prop::collection::vec(one, 0..12).prop_map(|docs| {
            docs.into_iter()
                .map(|(kind, slug, title, tags, text)| {
                    let mut d = doc(&format!("{kind}:{slug}"), &title.join(" "), &[], &text.join(" "));
                    let tag_text: Vec<String> = tags.iter().map(Tag::text).collect();
                    d.terms = term_counts(&format!("{} {} {}", d.title, tag_text.join(" "), d.text));
                    d.tags = tags;
                    d
                })
                .collect()
        })
    }

    /// The scan of ids and paths goes on from the next document's part once a needle is found
    /// in one: a needle at the very start of each part, and one many times in a part, still
    /// count each document once, as the reference counts them.
    #[test]
    fn each_document_whose_id_or_path_holds_a_needle_counts_once() {
        let docs: Vec<Document> = ["project:aa", "project:ab", "project:b1b1b1", "project:zz"]
            .iter()
            .map(|id| Document { path: format!("p/{}.md", &id[8..]), ..doc(id, "T", &[], "x") })
            .collect();
        let reference = reference::Searcher::new(docs.clone());
        let flat = Searcher::new(SearchIndex { version: "2.0.0".into(), algorithm: "x".into(), documents: docs });
        for text in ["project", "b1", "a", "zz", "md", "p z"] {
            let q = Query { text: Some(text), ..Default::default() };
            assert_eq!(flat.search(&q), reference.search(&q), "{text}");
        }
        assert_eq!(flat.search(&Query { text: Some("project"), ..Default::default() }).match_count, 4);
    }

    fn queries() -> Vec<Query<'static>> {
        let mut out = Vec::new();
        for text in [
            None,
            Some("rust"),
            Some("cache"),
            Some("build-cache node"),
            Some("c++ été"),
            Some("İstanbul"),
            Some("project"),
            Some("-"),
            // In many ids and paths, some more than once: each found by the scan's skips.
            Some("o"),
            Some("1 e"),
            Some("true null"),
        ] {
            // A type no document has (`Thesis`) filters everything out.
            for kind in [None, Some("Project"), Some("Award"), Some("Thesis")] {
                for tag in [None, Some("rust"), Some("TRUE"), Some("null")] {
                    out.push(Query { text, kind, tag });
                }
            }
        }
        out
    }

    // Two terms with one hash must stay two terms: the builder finds terms by a 64-bit hash
    // and must not merge the rare pair that shares one.
    #[test]
    fn terms_that_share_a_hash_stay_apart() {
        let mut v = Vocab::default();
        assert_eq!(v.intern(7, b"rust"), 0);
        assert_eq!(v.intern(7, b"go"), 1);
        assert_eq!(v.intern(7, b"ci"), 2);
        assert_eq!(v.intern(8, b"node"), 3);
        assert_eq!([v.intern(7, b"go"), v.intern(7, b"rust"), v.intern(7, b"ci"), v.intern(8, b"node")], [1, 0, 2, 3]);
        assert_eq!(v.len(), 4);
        assert_eq!([v.term(0), v.term(1), v.term(2), v.term(3)], [&b"rust"[..], b"go", b"ci", b"node"]);
    }

    /// Entries keep their order and fields across chunk boundaries, and the packed count
    /// holds every count a record can reach (and saturates past that, never spilling into
    /// the flags).
    #[test]
    fn entries_keep_what_was_pushed_across_chunks() {
        let mut entries = Entries::default();
        let total = 2 * Entries::CHUNK + 3;
        for k in 0..total as u32 {
            entries.push(Entry::new(k, k % 1000, k % 3 == 0, k % 5 == 0));
        }
        assert_eq!((entries.len, entries.chunks.len()), (total, 3));
        for k in [0, Entries::CHUNK - 1, Entries::CHUNK, 2 * Entries::CHUNK + 2] {
            let e = entries.get(k);
            let k32 = k as u32;
            assert_eq!(
                (e.term, e.tf(), e.in_title(), e.in_tag()),
                (k32, k32 % 1000, k32.is_multiple_of(3), k32.is_multiple_of(5))
            );
        }
        // Released front to back: a chunk goes only once every entry in it is behind.
        entries.release_before(Entries::CHUNK - 1);
        assert_eq!(entries.chunks.iter().map(Vec::capacity).filter(|&c| c == 0).count(), 0);
        entries.release_before(2 * Entries::CHUNK + 1);
        let freed: Vec<bool> = entries.chunks.iter().map(|c| c.capacity() == 0).collect();
        assert_eq!(freed, [true, true, false]);
        assert_eq!(entries.get(2 * Entries::CHUNK + 2).term, 2 * Entries::CHUNK as u32 + 2);
        let big = Entry::new(1, u32::MAX, false, true);
        assert_eq!((big.tf(), big.in_title(), big.in_tag()), ((1 << 30) - 1, false, true));
        assert_eq!(Entry::new(1, 16 << 20, true, false).tf(), 16 << 20, "a 16 MiB record's count");
    }

    fn searcher_of(docs: &[Document]) -> Searcher {
        Searcher::new(SearchIndex { version: "2.0.0".into(), algorithm: "x".into(), documents: docs.to_vec() })
    }

    /// Pending records answer exactly as an index of the records as they now are, when the
    /// average length is unchanged (a record edited into one of the same length, a new one
    /// in place of a removed one of the same length): idf counted again, weights as the index
    /// computes them, ranks merged by score then id, filters, listing and excerpts alike.
    #[test]
    fn pending_records_answer_as_an_index_of_them_would() {
        let base = vec![
            doc("project:a", "Build cache", &["rust"], "rust build-cache for ci pipelines"),
            doc("project:b", "Go service", &["go"], "go service with a cache layer"),
            doc("project:c", "Node tools", &["node"], "node.js tools and rust bindings"),
            doc("award:d", "Rust prize", &["rust"], "prize for rust work in ci"),
        ];
        // b edited (as many terms as before), d removed, e new (as many terms as d had).
        let b2 = doc("project:b", "Go service", &["go"], "go rust service cache layer now");
        let e = doc("project:e", "Rust prize", &["rust"], "prize for rust work in go");
        let now = vec![base[0].clone(), b2.clone(), base[2].clone(), e.clone()];
        let pending = Pending::new([
            ("project/b.md".to_owned(), Some(b2)),
            ("award/d.md".to_owned(), None),
            ("project/e.md".to_owned(), Some(e)),
        ]);
        let (before, after) = (searcher_of(&base), searcher_of(&now));
        assert_eq!(before.avg_len, after.avg_len, "the test's premise");
        for q in queries() {
            assert_eq!(before.search_with(&q, &pending), after.search(&q), "{q:?}");
        }
        let q = Query { text: Some("rust"), ..Default::default() };
        assert!(before.search_with(&q, &pending).records.iter().any(|h| h.id == "project:b"), "the edit is found");
        assert_eq!(before.search_with(&q, &Pending::default()), before.search(&q), "nothing pending");
    }

    /// A folder moved away hides every record below it, and only those (not `projects/a-b`
    /// beside `projects/a`).
    #[test]
    fn a_pending_folder_hides_what_lies_below_it() {
        let docs: Vec<Document> =
            ["projects/a/p.md", "projects/a/q/r.md", "projects/a-b/p.md", "projects/a0.md", "projects/b.md"]
                .iter()
                .enumerate()
                .map(|(k, path)| Document { path: (*path).into(), ..doc(&format!("project:d{k}"), "T", &[], "word") })
                .collect();
        let s = searcher_of(&docs);
        let q = Query { text: Some("word"), ..Default::default() };
        let ids = |p: &Pending| s.search_with(&q, p).records.into_iter().map(|h| h.id).collect::<Vec<_>>();
        assert_eq!(
            ids(&Pending::new([("projects/a".to_owned(), None::<Document>)])),
            ["project:d2", "project:d3", "project:d4"]
        );
        assert_eq!(ids(&Pending::new([("projects/a/p.md".to_owned(), None::<Document>)])).len(), 4);
        assert_eq!(ids(&Pending::new([("projects".to_owned(), None::<Document>)])), Vec::<String>::new());
        let p = Pending::new([("projects/a".to_owned(), None::<Document>)]);
        assert!(p.hides("projects/a/q/r.md") && p.hides("projects/a") && !p.hides("projects/a-b/p.md"));
    }

    /// A sidecar records the average length (pending documents' weights need it); one of an
    /// earlier build, with 0 there, still loads and answers.
    #[test]
    fn a_sidecar_keeps_the_average_length() {
        let docs = vec![doc("project:a", "A", &[], "one two three"), doc("project:b", "B", &[], "one")];
        let mut b = crate::graph::sidecar::SidecarBuilder::default();
        for d in &docs {
            b.add(d);
        }
        let source = crate::graph::sidecar::Source { json_len: 1, json_sum: 2, json_stamp: 3 };
        let (decoded, _) = crate::graph::sidecar::decode(b.finish(source)).expect("decodes");
        assert_eq!(decoded.avg_len, searcher_of(&docs).avg_len);
        assert!(decoded.avg_len >= 1.0);
        let pending = Pending::new([("project/c.md".to_owned(), Some(doc("project:c", "C", &[], "one")))]);
        let q = Query { text: Some("one"), ..Default::default() };
        assert_eq!(decoded.search_with(&q, &pending).match_count, 3);
        let unknown = Searcher { avg_len: 0.0, ..searcher_of(&docs) };
        assert_eq!(unknown.search_with(&q, &pending).match_count, 3, "an unknown average still ranks them");
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(48))]
        /// Whatever changed, pending records match the records an index of the graph as it now
        /// is would match (the same count, and the same records listed without a query); only
        /// scores may differ, by the average length the index's weights were computed with.
        #[test]
        fn pending_records_match_what_a_new_index_would(
            base in arb_documents(),
            changed in arb_documents(),
            removed in proptest::collection::vec(proptest::bool::ANY, 12),
        ) {
            let unique = |docs: Vec<Document>| {
                let mut seen = std::collections::HashSet::new();
                docs.into_iter().filter(|d| seen.insert(d.path.clone())).collect::<Vec<_>>()
            };
            let (base, changed) = (unique(base), unique(changed));
            let mut pending = Vec::new();
            let mut now: Vec<Document> = Vec::new();
            for (k, d) in base.iter().enumerate() {
                if changed.iter().any(|c| c.path == d.path) {
                    continue;
                }
                if removed[k] {
                    pending.push((d.path.clone(), None));
                } else {
                    now.push(d.clone());
                }
            }
            for c in &changed {
                pending.push((c.path.clone(), Some(c.clone())));
                now.push(c.clone());
            }
            let pending = Pending::new(pending);
            let (before, after) = (searcher_of(&base), searcher_of(&now));
            for q in queries() {
                let (got, want) = (before.search_with(&q, &pending), after.search(&q));
                proptest::prop_assert_eq!(got.match_count, want.match_count, "{:?}", q);
                let ids = |r: &Results| {
                    let mut v: Vec<String> = r.records.iter().map(|h| h.id.clone()).collect();
                    v.sort();
                    v
                };
                if want.match_count <= MAX_RESULTS {
                    proptest::prop_assert_eq!(ids(&got), ids(&want), "{:?}", q);
                }
                if q.text.is_none() {
                    proptest::prop_assert_eq!(&got, &want, "{:?}", q);
                }
            }
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(96))]
        // The flat searcher, built from the documents or decoded from a sidecar of them, answers
        // exactly as the searcher it replaced (per-document strings, a HashMap of postings).
        #[test]
        fn the_flat_searcher_answers_like_the_reference(docs in arb_documents()) {
            let reference = reference::Searcher::new(docs.clone());
            let flat = Searcher::new(SearchIndex { version: "2.0.0".into(), algorithm: "x".into(), documents: docs.clone() });
            let mut b = crate::graph::sidecar::SidecarBuilder::default();
            for d in &docs {
                b.add(d);
            }
            let (decoded, src) = crate::graph::sidecar::decode(b.finish(crate::graph::sidecar::Source {
                json_len: 7,
                json_sum: 9,
                json_stamp: 11,
            })).expect("decodes");
            proptest::prop_assert_eq!(src.json_len, 7);
            for q in queries() {
                let want = reference.search(&q);
                proptest::prop_assert_eq!(&flat.search(&q), &want, "{:?}", q);
                proptest::prop_assert_eq!(&decoded.search(&q), &want, "{:?}", q);
            }
            for d in docs.iter().filter(|d| docs.iter().filter(|e| e.id == d.id).count() == 1) {
                let want = Some(DocumentText { id: &d.id, title: &d.title, path: &d.path, text: d.text.as_str().into() });
                proptest::prop_assert_eq!(flat.document(&d.id), want.clone());
                proptest::prop_assert_eq!(decoded.document(&d.id), want);
            }
            proptest::prop_assert_eq!(flat.document("project:absent!"), None);
            proptest::prop_assert_eq!(flat.len(), docs.len());
            // Added in id order, as an index file has them, the texts are kept where they were
            // gathered rather than copied after the body: the same answers, the same texts.
            let mut in_order = docs.clone();
            in_order.sort_by(|a, b| a.id.cmp(&b.id));
            let kept = Searcher::new(SearchIndex { version: "2.0.0".into(), algorithm: "x".into(), documents: in_order });
            proptest::prop_assert!(matches!(kept.texts, Texts::Owned(_)), "{:?}", kept.texts);
            let sorted = docs.windows(2).all(|w| w[0].id <= w[1].id);
            proptest::prop_assert_eq!(matches!(flat.texts, Texts::Owned(_)), sorted, "{:?}", flat.texts);
            for q in queries() {
                proptest::prop_assert_eq!(&kept.search(&q), &reference.search(&q), "{:?}", q);
            }
            for d in docs.iter().filter(|d| docs.iter().filter(|e| e.id == d.id).count() == 1) {
                let want = Some(DocumentText { id: &d.id, title: &d.title, path: &d.path, text: d.text.as_str().into() });
                proptest::prop_assert_eq!(kept.document(&d.id), want);
            }
            // Terms out of order and given twice (as a hand-edited JSON file can have them):
            // counted as the reference counts them.
            let mut unsorted = docs.clone();
            for d in &mut unsorted {
                d.terms.0.reverse();
                if let Some(t) = d.terms.0.first().cloned() {
                    d.terms.0.push(t);
                }
            }
            let reference = reference::Searcher::new(unsorted.clone());
            let flat = Searcher::new(SearchIndex { version: "2.0.0".into(), algorithm: "x".into(), documents: unsorted });
            for q in queries() {
                proptest::prop_assert_eq!(&flat.search(&q), &reference.search(&q), "{:?}", q);
            }
        }
    }
}

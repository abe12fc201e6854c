//! The incremental-index manifest (`.generated/manifest.bin`): for each file read, its size,
//! stamp (mtime and inode), modification time, SHA-256 and the record parsed from it, so that a
//! later `graph index` parses only the files that changed.
//!
//! It is a cache, never a source of truth: a file whose length, stamp or digest differs is read
//! and parsed again, and a manifest that is missing, of another version, truncated or damaged
//! (its own checksum, [`super::checksum::checksum`], is its last 8 bytes) is ignored and the run reads
//! everything. Deleting it is always safe.
//!
//! The checksum guards against accidents (a torn or damaged file), as a SHA-256 of the file
//! would: anyone who can craft the manifest can recompute either, and the decoder's bounds
//! checks are what hold against a crafted one. It costs a tenth of a SHA-256 (120 MB at
//! 100,000 records is summed on every incremental run, read and written).
//!
//! Layout, little-endian: `MAGIC`, the parser's version, the guidance's fingerprint
//! ([`guidance_fingerprint`]), the root and the entry count, then per entry its fields in the
//! order of [`Seen`] and [`Record`], then the checksum. Strings are a `u32` length and UTF-8 bytes; a front-matter value is a tag byte
//! (0 string, 1 boolean, 2 null, 3 list) and its payload.

use std::borrow::Borrow;

use super::MAX_RECORD_BYTES;
use super::checksum::Checksum;
use super::frontmatter::{Attributes, FmValue};
use super::index::Record;
use super::new_record::{guidance_fingerprint, template_line};
use super::page::Page;

/// The file's name in `.generated/`.
pub const MANIFEST_FILE: &str = "manifest.bin";
/// Names the format and its layout version; another layout is ignored, not misread.
const MAGIC: &[u8; 16] = b"vitaecontext-mf5";
/// The checksum after the entries.
const TRAILER_LEN: u64 = 8;
/// The version of what a manifest caches: the parsed page, its plain text and the guidance
/// line it holds. Bump it with any change to `Page::parse`, the front-matter grammar,
/// `plain_text` or how `template_line_in` picks a line (a change to the guidance itself
/// changes its fingerprint, which the header carries), so that records cached by an older
/// parser are parsed again, never served as they were.
pub const PARSE_VERSION: u32 = 2;

/// The fewest bytes an entry takes: its length, stamp, time flag and digest, then a record
/// with an empty path, no front matter, no key lines, no links, flags, an empty text and its
/// guidance line.
const MIN_ENTRY_BYTES: u64 = 8 + 16 + 1 + 32 + 4 + 1 + 4 + 4 + 1 + 4 + 2;
/// The most entries [`decode_from`] has room made for at once (more are still decoded).
pub const MAX_RESERVED: usize = 1 << 20;

/// The longest entry decoded: a record's text is at most [`MAX_RECORD_BYTES`] and what is kept
/// of its front matter, key lines and links is drawn from that text, with room to spare. A
/// longer one is damage (the manifest is then not used), never read on to the file's end.
const MAX_ENTRY_BYTES: u64 = 8 * MAX_RECORD_BYTES;

/// What was seen of one file when it was read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Seen {
    pub len: u64,
    pub stamp: u128,
    /// Nanoseconds since the epoch, when the filesystem gives one and the file was not
    /// modified close to the run that read it (see [`Seen::settled`]).
    pub modified_ns: Option<i64>,
    pub sha256: [u8; 32],
}

/// How close to a run's start a file may have been modified and still be trusted by its stamp:
/// a file changed again within one timestamp tick of being read keeps its stamp (and maybe its
/// length). Two seconds covers the coarsest clocks (FAT); such files are checked by content.
pub const RACY_NS: i64 = 2_000_000_000;

impl Seen {
    /// Whether a file may have changed since it was seen without its stamp changing: it was
    /// modified within [`RACY_NS`] of `written_ns`, the manifest file's own modification time
    /// (on the filesystem's clock, like the file's, as git compares with its index file), or
    /// either time is unknown. Such a file is checked by content, not trusted by its stamp
    /// ("racily clean", as git calls it).
    pub fn racy(&self, written_ns: Option<i64>) -> bool {
        match (self.modified_ns, written_ns) {
            (Some(m), Some(w)) => m >= w.saturating_sub(RACY_NS),
            _ => true,
        }
    }

    /// What a run that started at `started_ns` (the system's clock) records of a file it read:
    /// a file modified within [`RACY_NS`] of that start (or after it) is recorded with no
    /// modification time, so the next run checks it by content. The manifest's own time
    /// ([`Seen::racy`]) cannot tell: it is written at the run's end, seconds after the read at
    /// 100,000 records, and a write in the read's timestamp tick leaves length and stamp as
    /// they were (a filesystem with one-second times shows it).
    ///
    /// The start is on the system's clock and the file's time on the filesystem's: where the
    /// filesystem's runs ahead, files modified within that lead are checked by content until
    /// it has passed (reading them, never a stale record). With no start time (a clock before
    /// 1970), nothing is changed and the manifest's time alone decides, as before.
    pub fn settled(mut self, started_ns: Option<i64>) -> Seen {
        if started_ns.is_some() && self.racy(started_ns) {
            self.modified_ns = None;
        }
        self
    }
}

/// A decoded manifest: the root it describes, and each file it read, in path order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Manifest {
    /// The VitaeGraph root (canonical) whose files it lists: a manifest copied beside
    /// another graph is not that graph's.
    pub root: String,
    pub entries: Vec<(Seen, Record)>,
}

/// One file's entry as given to [`write`]: what was seen of it, its page, the page's plain
/// text and the guidance line the text holds (a [`Record`]'s parts, which `graph index`
/// holds apart).
pub type EntryParts<'a, P> = (&'a Seen, P, &'a str, Option<u16>);

/// The manifest of `root`, with `entries` in path order.
pub fn encode<'a, P: Borrow<Page>>(root: &str, entries: impl ExactSizeIterator<Item = EntryParts<'a, P>>) -> Vec<u8> {
    let mut out = Vec::new();
    write(root, entries.len(), entries, &mut out).expect("writing to memory cannot fail");
    out
}

/// [`encode`] of `count` entries, written to `out` in pieces of about 1 MiB as it is made: a
/// 100,000-record manifest is never held whole. Pages given by value are dropped as soon as
/// they are written. Fails, having written a manifest that will not decode, when `entries`
/// does not hold `count` entries.
pub fn write<'a, P: Borrow<Page>>(
    root: &str,
    count: usize,
    entries: impl Iterator<Item = EntryParts<'a, P>>,
    out: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    const PIECE: usize = 1 << 20;
    let mut hash = Checksum::default();
    let mut buf = Vec::with_capacity(PIECE + 64 * 1024);
    let mut flush = |buf: &mut Vec<u8>, out: &mut dyn std::io::Write| {
        hash.update(&buf[..]);
        let done = out.write_all(buf);
        buf.clear();
        done
    };
    buf.extend_from_slice(MAGIC);
    buf.extend_from_slice(&PARSE_VERSION.to_le_bytes());
    buf.extend_from_slice(&guidance_fingerprint().to_le_bytes());
    put_str(&mut buf, root);
    put_u32(&mut buf, count);
    let mut written = 0;
    for (e, page, text, template) in entries {
        written += 1;
        buf.extend_from_slice(&e.len.to_le_bytes());
        buf.extend_from_slice(&e.stamp.to_le_bytes());
        match e.modified_ns {
            Some(ns) => {
                buf.push(1);
                buf.extend_from_slice(&ns.to_le_bytes());
            }
            None => buf.push(0),
        }
        buf.extend_from_slice(&e.sha256);
        put_record(&mut buf, page.borrow(), text, template);
        if buf.len() >= PIECE {
            flush(&mut buf, out)?;
        }
    }
    if written != count {
        // Without its checksum the manifest is ignored by the next run, never misread.
        return Err(std::io::Error::other(format!("{written} manifest entries given for {count}")));
    }
    flush(&mut buf, out)?;
    out.write_all(&hash.finish().to_le_bytes())
}

/// The entries of a manifest, or `None` for anything that is not one whole manifest of this
/// version (layout and parser). Never panics; a crafted count makes room for no more entries
/// than the bytes present could hold (see [`decode_from`]).
pub fn decode(bytes: &[u8]) -> Option<Manifest> {
    let mut entries = Vec::new();
    let root = decode_from(&mut &bytes[..], bytes.len() as u64, &mut entries)?;
    Some(Manifest { root, entries })
}

/// Where [`decode_from`] puts the entries it decodes.
pub trait Entries {
    /// Room for `n` more entries, before they come.
    fn reserve(&mut self, n: usize);
    fn push(&mut self, seen: Seen, record: Record);
}

impl Entries for Vec<(Seen, Record)> {
    fn reserve(&mut self, n: usize) {
        self.reserve_exact(n);
    }

    fn push(&mut self, seen: Seen, record: Record) {
        Vec::push(self, (seen, record));
    }
}

/// [`decode`] of the `len` bytes `input` gives, read in pieces of about 1 MiB, each entry
/// put `into` the caller's list as soon as it is decoded: neither the file (120 MB at 100,000 records)
/// nor a list of its entries is ever held. Returns the root the manifest names. Its checksum
/// can only be checked at the end, so on `None` the caller must drop what `into` was given.
///
/// `into` is first told how many entries follow, to make room for them at once (a list
/// grown by doubling held 29 MB for 100,000 entries, a third of it spare, and both its old
/// and new buffers while it grew). A crafted count is cut to what the file's length can hold
/// and to [`MAX_RESERVED`]; beyond that, entries are still decoded as they come.
pub fn decode_from(input: &mut dyn std::io::Read, len: u64, into: &mut impl Entries) -> Option<String> {
    use std::io::Read;
    let body_len = len.checked_sub(TRAILER_LEN)?;
    let mut body =
        Pieces { input: input.take(body_len), buf: Vec::new(), at: 0, hash: Checksum::default(), done: false };
    let (root, n) = body
        .next(|r| {
            r.0 = r.0.strip_prefix(MAGIC.as_slice())?;
            let version = u32::from_le_bytes(r.array()?);
            let guidance = u64::from_le_bytes(r.array()?);
            Some((version, guidance, r.str()?, r.len()?))
        })
        .and_then(|(version, guidance, root, n)| {
            (version == PARSE_VERSION && guidance == guidance_fingerprint()).then_some((root, n))
        })?;
    let fits = usize::try_from(body_len / MIN_ENTRY_BYTES).unwrap_or(usize::MAX);
    into.reserve(n.min(fits).min(MAX_RESERVED));
    for _ in 0..n {
        let (seen, record) = body.next(|r| {
            let len = u64::from_le_bytes(r.array()?);
            let stamp = u128::from_le_bytes(r.array()?);
            let modified_ns = match r.byte()? {
                0 => None,
                1 => Some(i64::from_le_bytes(r.array()?)),
                _ => return None,
            };
            let sha256 = r.array()?;
            Some((Seen { len, stamp, modified_ns, sha256 }, r.record()?))
        })?;
        into.push(seen, record);
    }
    // Nothing may follow the last entry: a byte more fails the decode at once, so a file
    // grown by junk (zeros after a crash, say) is neither read to its end nor held.
    loop {
        if body.at != body.buf.len() {
            return None;
        }
        if body.done {
            break;
        }
        body.fill().ok()?;
    }
    let mut sum = [0u8; TRAILER_LEN as usize];
    body.input.into_inner().read_exact(&mut sum).ok()?;
    (body.hash.finish() == u64::from_le_bytes(sum)).then_some(root)
}

/// A manifest's body read in pieces and summed as it is read, for [`decode_from`].
struct Pieces<'a> {
    input: std::io::Take<&'a mut dyn std::io::Read>,
    /// Bytes read; those before `at` are decoded.
    buf: Vec<u8>,
    at: usize,
    hash: Checksum,
    /// The whole body has been read.
    done: bool,
}

impl Pieces<'_> {
    const PIECE: usize = 1 << 20;

    /// One item decoded by `parse` from the bytes after `at`. While `parse` fails and more of
    /// the body is left, more is read and it is tried again from the item's start: an item cut
    /// by a piece's end needs the next one (a damaged one fails at the body's end, or once it
    /// would be longer than [`MAX_ENTRY_BYTES`]).
    fn next<T>(&mut self, mut parse: impl FnMut(&mut Reader<'_>) -> Option<T>) -> Option<T> {
        loop {
            let mut r = Reader(&self.buf[self.at..]);
            if let Some(item) = parse(&mut r) {
                self.at = self.buf.len() - r.0.len();
                return Some(item);
            }
            if self.done || (self.buf.len() - self.at) as u64 > MAX_ENTRY_BYTES {
                return None;
            }
            self.fill().ok()?;
        }
    }

    /// Reads more after the bytes not yet decoded (moved to the front): a piece, or as many
    /// bytes as are waiting when that is more. An item longer than a piece is tried again at
    /// twice its length each time, so its tries cost about what reading it does (a piece at a
    /// time, a crafted 256 MiB entry took 47 s).
    fn fill(&mut self) -> std::io::Result<()> {
        use std::io::Read;
        self.buf.drain(..self.at);
        self.at = 0;
        let start = self.buf.len();
        let want = Self::PIECE.max(start);
        self.buf.resize(start + want, 0);
        let mut got = 0;
        while got < want {
            match self.input.read(&mut self.buf[start + got..]) {
                Ok(0) => break,
                Ok(n) => got += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        self.buf.truncate(start + got);
        self.hash.update(&self.buf[start..]);
        self.done = got < want;
        Ok(())
    }
}

fn put_u32(out: &mut Vec<u8>, n: usize) {
    out.extend_from_slice(&u32::try_from(n).expect("fewer than 2^32 items").to_le_bytes());
}

fn put_str(out: &mut Vec<u8>, s: &str) {
    put_u32(out, s.len());
    out.extend_from_slice(s.as_bytes());
}

fn put_value(out: &mut Vec<u8>, v: &FmValue) {
    match v {
        FmValue::Str(s) => {
            out.push(0);
            put_str(out, s);
        }
        FmValue::Bool(b) => out.extend_from_slice(&[1, u8::from(*b)]),
        FmValue::Null => out.push(2),
        FmValue::List(items) => {
            out.push(3);
            put_u32(out, items.len());
            for i in items {
                put_value(out, i);
            }
        }
    }
}

fn put_record(out: &mut Vec<u8>, p: &Page, text: &str, template: Option<u16>) {
    put_str(out, &p.path);
    match &p.attributes {
        Some(a) => {
            out.push(1);
            put_u32(out, a.entries().len());
            for (k, v) in a.entries() {
                put_str(out, k);
                put_value(out, v);
            }
        }
        None => out.push(0),
    }
    put_u32(out, p.key_lines.len());
    for &line in &p.key_lines {
        put_u32(out, line as usize);
    }
    put_u32(out, p.links.len());
    for l in &p.links {
        put_str(out, l);
    }
    out.push(u8::from(p.too_large) | u8::from(p.unclosed_front_matter) << 1);
    put_str(out, text);
    // 0 for none, else the line's number plus one.
    out.extend_from_slice(&template.map_or(0, |line| line.saturating_add(1)).to_le_bytes());
}

/// A cursor over the manifest's bytes; every read is bounds-checked.
struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let (head, rest) = self.0.split_at_checked(n)?;
        self.0 = rest;
        Some(head)
    }

    fn array<const N: usize>(&mut self) -> Option<[u8; N]> {
        self.take(N)?.try_into().ok()
    }

    fn byte(&mut self) -> Option<u8> {
        Some(self.array::<1>()?[0])
    }

    /// A count, refused when the bytes left could not hold that many items of one byte each.
    /// Collections sized by it reserve at most [`Reader::RESERVED`] items up front and grow
    /// with the items actually decoded.
    fn len(&mut self) -> Option<usize> {
        let n = usize::try_from(u32::from_le_bytes(self.array()?)).ok()?;
        (n <= self.0.len()).then_some(n)
    }

    const RESERVED: usize = 64;

    fn vec<T>(n: usize) -> Vec<T> {
        Vec::with_capacity(n.min(Self::RESERVED))
    }

    fn str(&mut self) -> Option<String> {
        let n = self.len()?;
        String::from_utf8(self.take(n)?.to_vec()).ok()
    }

    fn value(&mut self, depth: u8) -> Option<FmValue> {
        Some(match self.byte()? {
            0 => FmValue::Str(self.str()?),
            1 => FmValue::Bool(match self.byte()? {
                0 => false,
                1 => true,
                _ => return None,
            }),
            2 => FmValue::Null,
            // The grammar nests no list in a list; one level of room, no deeper.
            3 if depth < 2 => {
                let n = self.len()?;
                let mut items = Self::vec(n);
                for _ in 0..n {
                    items.push(self.value(depth + 1)?);
                }
                FmValue::List(items)
            }
            _ => return None,
        })
    }

    fn record(&mut self) -> Option<Record> {
        let path = self.str()?;
        let attributes = match self.byte()? {
            0 => None,
            1 => {
                let n = self.len()?;
                let mut entries = Self::vec(n);
                for _ in 0..n {
                    entries.push((self.str()?, self.value(0)?));
                }
                Some(Attributes::from_entries(entries))
            }
            _ => return None,
        };
        let n = self.len()?;
        let mut key_lines = Self::vec(n);
        for _ in 0..n {
            key_lines.push(u32::from_le_bytes(self.array()?));
        }
        let n = self.len()?;
        let mut links = Self::vec(n);
        for _ in 0..n {
            links.push(self.str()?);
        }
        let flags = self.byte()?;
        if flags > 3 {
            return None;
        }
        let text = self.str()?;
        let template = match u16::from_le_bytes(self.array()?) {
            0 => None,
            // A number that names no line of this build's guidance is damage.
            n => {
                template_line(n - 1)?;
                Some(n - 1)
            }
        };
        let page = Page {
            path,
            attributes,
            key_lines,
            links,
            too_large: flags & 1 != 0,
            unclosed_front_matter: flags & 2 != 0,
        };
        Some(Record { page, text, template })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::checksum::checksum;

    fn entry(path: &str, text: &str) -> (Seen, Record) {
        let record = Record::parse(path, text);
        (Seen { len: text.len() as u64, stamp: 7 << 70, modified_ns: Some(-3), sha256: [9; 32] }, record)
    }

    /// A reader that gives a few bytes at a time, as a pipe or a slow disk may.
    struct Trickle<'a>(&'a [u8], usize);

    impl std::io::Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = self.1.min(buf.len()).min(self.0.len());
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }

    /// A manifest of several pieces (over 2 MiB: entries cut by the 1 MiB pieces' ends, one entry
    /// larger than a piece) decodes to what was encoded, read whole or a few bytes at a time;
    /// a byte changed anywhere, or a byte missing, and it is refused.
    #[test]
    fn a_manifest_read_in_pieces_decodes_whole() {
        let mut entries: Vec<(Seen, Record)> = (0..900)
            .map(|i| {
                entry(&format!("p/{i:04}.md"), &format!("---\nid: project:p{i}\n---\n{}", "word ".repeat(200 + i % 97)))
            })
            .collect();
        entries.push(entry("q/huge.md", &"long ".repeat(240_000)));
        let m = Manifest { root: "/g".into(), entries };
        let bytes = encoded(&m);
        assert!(bytes.len() > 2 << 20, "{} bytes", bytes.len());
        assert_eq!(decode(&bytes), Some(m.clone()));
        for step in [7, 4096] {
            let mut got = Vec::new();
            let root = decode_from(&mut Trickle(&bytes, step), bytes.len() as u64, &mut got);
            assert_eq!(root.as_deref(), Some("/g"), "{step} bytes at a time");
            assert_eq!(got.capacity(), m.entries.len(), "room made for every entry at once");
            assert_eq!(got, m.entries, "{step} bytes at a time");
        }
        for at in [20, (1 << 20) + 1, bytes.len() - 33, bytes.len() - 1] {
            let mut altered = bytes.clone();
            altered[at] ^= 0x20;
            assert_eq!(decode(&altered), None, "byte {at} changed");
        }
        assert_eq!(decode(&bytes[..bytes.len() - 1]), None, "a byte short");
        let mut longer = bytes.clone();
        longer.push(0);
        assert_eq!(decode(&longer), None, "a byte more");
    }

    /// The smallest entry there can be takes [`MIN_ENTRY_BYTES`], and a count larger than
    /// the bytes after it could hold makes room for no more than they could.
    #[test]
    fn a_crafted_count_makes_room_only_for_what_the_file_can_hold() {
        let seen = Seen { len: 0, stamp: 0, modified_ns: None, sha256: [0; 32] };
        let empty = Page { path: String::new(), ..Page::parse("", "") };
        let mut one = Vec::new();
        write("/g", 1, std::iter::once((&seen, &empty, "", None)), &mut one).unwrap();
        let mut none = Vec::new();
        write("/g", 0, std::iter::empty::<EntryParts<'_, &Page>>(), &mut none).unwrap();
        assert_eq!((one.len() - none.len()) as u64, MIN_ENTRY_BYTES);

        // The count field follows the magic, the parser version, the guidance's fingerprint
        // and the root ("/g"). A count over the bytes after it is refused as it is read; this
        // one is as large as passes.
        let at = MAGIC.len() + 4 + 8 + 4 + 2;
        let mut crafted = one.clone();
        let most = u32::try_from(one.len() - at - 4 - TRAILER_LEN as usize).unwrap();
        crafted[at..at + 4].copy_from_slice(&most.to_le_bytes());
        let mut got = Vec::new();
        let decoded = decode_from(&mut &crafted[..], crafted.len() as u64, &mut got);
        assert_eq!(decoded, None, "a count the entries do not fill is refused");
        assert_eq!(got.len(), 1, "the one entry there was decoded");
        let room = got.capacity() as u64;
        assert!((1..=crafted.len() as u64 / MIN_ENTRY_BYTES).contains(&room), "room for {room} entries");
    }

    /// `left` zero bytes, counting those given.
    struct Zeros {
        left: u64,
        given: u64,
    }

    impl std::io::Read for Zeros {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = buf.len().min(usize::try_from(self.left).unwrap_or(usize::MAX));
            buf[..n].fill(0);
            self.left -= n as u64;
            self.given += n as u64;
            Ok(n)
        }
    }

    /// Junk after the last entry (a file grown by zeros after a crash), or an entry longer than
    /// any record makes (a crafted count of key lines), fails the decode without the rest of
    /// the file being read or held. Found in review: 512 MiB of zeros after a manifest held
    /// 1 GB, and a crafted 256 MiB entry took 47 s, each piece more tried from its start.
    #[test]
    fn junk_or_an_overlong_entry_fails_without_reading_on() {
        const JUNK: u64 = 1 << 30;
        let bytes = encoded(&sample());
        let body = &bytes[..bytes.len() - TRAILER_LEN as usize];
        let mut input = std::io::Read::chain(body, Zeros { left: JUNK + TRAILER_LEN, given: 0 });
        let mut got = Vec::new();
        assert_eq!(decode_from(&mut input, body.len() as u64 + JUNK + TRAILER_LEN, &mut got), None);
        let read = input.into_inner().1.given;
        assert!(read <= 1 << 20, "{read} bytes of junk read");

        // One entry whose key lines are counted as 2^30 (4 GiB of them), then zeros.
        let seen = Seen { len: 0, stamp: 0, modified_ns: None, sha256: [0; 32] };
        let empty = Page { path: String::new(), ..Page::parse("", "") };
        let mut one = Vec::new();
        write("/g", 1, std::iter::once((&seen, &empty, "", None)), &mut one).unwrap();
        // The entry's start, then its seen (8 + 16 + 1 + 32), its path ("") and no front matter.
        let key_lines = MAGIC.len() + 4 + 8 + 4 + 2 + 4 + 57 + 4 + 1;
        let mut head = one[..key_lines].to_vec();
        head.extend_from_slice(&(1u32 << 30).to_le_bytes());
        let mut input = std::io::Read::chain(&head[..], Zeros { left: JUNK, given: 0 });
        assert_eq!(decode_from(&mut input, head.len() as u64 + JUNK, &mut Vec::new()), None);
        let read = input.into_inner().1.given;
        assert!(read <= 2 * MAX_ENTRY_BYTES, "{read} bytes read for one entry");
    }

    /// A caller that gives fewer or more entries than it announced gets an error, and what
    /// was written does not decode: the next run reads every record, never a short list.
    #[test]
    fn a_miscounted_write_fails_and_leaves_no_manifest() {
        let m = sample();
        let entries = || m.entries.iter().map(|(s, r)| (s, &r.page, r.text.as_str(), r.template));
        for count in [m.entries.len() - 1, m.entries.len() + 1] {
            let mut out = Vec::new();
            assert!(write(&m.root, count, entries(), &mut out).is_err(), "{count} announced");
            assert_eq!(decode(&out), None);
        }
        let mut out = Vec::new();
        write(&m.root, m.entries.len(), entries(), &mut out).unwrap();
        assert_eq!(decode(&out), Some(m.clone()), "the right count round-trips");
    }

    fn encoded(m: &Manifest) -> Vec<u8> {
        encode(&m.root, m.entries.iter().map(|(s, r)| (s, &r.page, r.text.as_str(), r.template)))
    }

    fn sample() -> Manifest {
        let mut none = entry("big.md", "");
        none.0.modified_ns = None;
        Manifest {
            root: "/home/a/vitaegraph".into(),
            entries: vec![
                entry(
                    "projects/a/project.md",
                    "---\ntype: project\nid: project:a\ntitle: A: b\ntags: [x, true, null]\nrelated_records:\n  - award:b\nk: false\n---\n# A\nSee [b](../b.md) ![i](i.png) é\n",
                ),
                entry("index.md", "# Index\n"),
                entry("awards/b.md", "---\nid: award:b\n"),
                entry(
                    "projects/c/project.md",
                    "---\nid: project:c\n---\nThe decisions and the work that were yours.\n",
                ),
                none,
            ],
        }
    }

    #[test]
    fn entries_round_trip() {
        let m = sample();
        assert!(m.entries.iter().any(|(_, r)| r.template.is_some()), "a record left as `graph add` wrote it");
        assert_eq!(decode(&encoded(&m)), Some(m));
        let empty = Manifest { root: String::new(), entries: Vec::new() };
        assert_eq!(decode(&encoded(&empty)), Some(empty));
    }

    #[test]
    fn files_modified_near_the_manifest_are_racy() {
        let seen = |m| Seen { len: 0, stamp: 0, modified_ns: m, sha256: [0; 32] };
        let written = Some(10 * RACY_NS);
        assert!(seen(None).racy(written), "no time: always checked by content");
        assert!(seen(Some(0)).racy(None), "no time for the manifest either");
        assert!(seen(Some(9 * RACY_NS)).racy(written));
        assert!(seen(Some(10 * RACY_NS + 5)).racy(written));
        assert!(!seen(Some(9 * RACY_NS - 1)).racy(written));
    }

    /// Regression: a manifest of one layout decoded under another only failed by luck; now
    /// the layout and the parser's version are in the header.
    /// A file modified within 2 s of the run's start, or after it, is recorded with no time;
    /// one modified before keeps it; with no start time known, every file keeps its own.
    #[test]
    fn files_modified_near_the_run_are_recorded_with_no_time() {
        let at = |s: i64| Seen { len: 1, stamp: 1, modified_ns: Some(s * 1_000_000_000), sha256: [0; 32] };
        let start = Some(100 * 1_000_000_000);
        assert_eq!(at(97).settled(start).modified_ns, Some(97_000_000_000));
        assert_eq!(at(99).settled(start).modified_ns, None, "a second before the start");
        assert_eq!(at(130).settled(start).modified_ns, None, "after the start (a clock ahead)");
        assert_eq!(at(99).settled(None).modified_ns, Some(99_000_000_000), "no start time: as read");
    }

    #[test]
    fn another_parser_version_is_ignored() {
        let m = sample();
        let mut bytes = encoded(&m);
        bytes.truncate(bytes.len() - 8);
        bytes[16..20].copy_from_slice(&(PARSE_VERSION + 1).to_le_bytes());
        bytes.extend_from_slice(&checksum(&bytes).to_le_bytes());
        assert_eq!(decode(&bytes), None);
    }

    /// The guidance lines are kept by number: a manifest written with other guidance (another
    /// build's `graph add`) is not read, and a number that names no line is damage.
    #[test]
    fn other_guidance_or_a_line_it_lacks_is_ignored() {
        let resummed = |mut bytes: Vec<u8>| {
            bytes.truncate(bytes.len() - 8);
            let sum = checksum(&bytes);
            bytes.extend_from_slice(&sum.to_le_bytes());
            bytes
        };
        let mut other = encoded(&sample());
        other[20..28].copy_from_slice(&(guidance_fingerprint() ^ 1).to_le_bytes());
        assert_eq!(decode(&resummed(other)), None, "another guidance");
        let last =
            Manifest { root: "/g".into(), entries: vec![entry("a.md", "The decisions and the work that were yours.")] };
        assert!(last.entries[0].1.template.is_some());
        let mut bytes = encoded(&last);
        // The entry's guidance line is its last two bytes, before the checksum.
        let at = bytes.len() - 8 - 2;
        bytes[at..at + 2].copy_from_slice(&u16::MAX.to_le_bytes());
        assert_eq!(decode(&resummed(bytes)), None, "a line the guidance does not have");
    }

    /// Any byte changed, any truncation, another version: ignored, never misread or a panic.
    #[test]
    fn an_altered_manifest_is_ignored() {
        let bytes = encoded(&sample());
        for i in (0..bytes.len()).step_by(7) {
            let mut bad = bytes.clone();
            bad[i] ^= 0x20;
            assert_eq!(decode(&bad), None, "byte {i} flipped");
        }
        for n in [0, 10, 47, bytes.len() - 1] {
            assert_eq!(decode(&bytes[..n]), None, "truncated to {n}");
        }
        let mut other = bytes[..bytes.len() - 8].to_vec();
        other[15] = b'4';
        other.extend_from_slice(&checksum(&other).to_le_bytes());
        assert_eq!(decode(&other), None, "the previous layout, correctly summed");
    }

    proptest::proptest! {
        /// Crafted bodies with a valid checksum (the checksum guards against accidents, the
        /// bounds checks against everything else): no panic, no huge allocation.
        #[test]
        fn decoding_crafted_bytes_never_panics(body in proptest::collection::vec(proptest::num::u8::ANY, 0..300)) {
            let mut bytes = MAGIC.to_vec();
            bytes.extend_from_slice(&body);
            let sum = checksum(&bytes);
            bytes.extend_from_slice(&sum.to_le_bytes());
            let _ = decode(&bytes);
        }
    }
}

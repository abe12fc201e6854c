//! Reading a VitaeGraph's records: the walk below the root, each file read beneath it, and
//! the manifest of the last run that spares parsing what did not change.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use domain::graph::index::Record;
use domain::graph::manifest::{self, Entries as _, MANIFEST_FILE, Seen};
use domain::graph::{GENERATED_DIR, MAX_RECORD_BYTES, Page};
use ports::Clock;
use ports::fs::{FileKind, FileSystem, FsError, FsErrorKind, HeldRoot, Metadata, WalkBeneath};
use sha2::{Digest, Sha256};

use super::shared::{GraphError, Progress};

/// Every `.md` file below `root` (not under `.generated/`), parsed and made ready to index
/// ([`Record`]: the body kept only as plain text), in path order, on every core.
///
/// Each file is read with `read_beneath`: from a handle on the root, following no symlink, so a
/// record (or a folder above it) swapped for a symlink after the walk fails to open instead of
/// putting an outside file's text into the index. A symlinked record that stays inside the root
/// keeps its own path as the record path and is read at the path it resolved to; one that
/// leads outside (or nowhere) is reported through `progress.skipped` and left out. A file whose path below the root is not
/// UTF-8 cannot be named by a record path: it is reported through `progress.skipped` and left
/// out.
pub fn read_records(
    fs: &dyn FileSystem,
    clock: &dyn Clock,
    root: &Path,
    progress: &dyn Progress,
) -> Result<Vec<Record>, GraphError> {
    let Reading { pages, texts, templates, .. } = read(fs, clock, root, progress, Caches::Ignore, || None)?;
    let records = pages.into_iter().zip(texts).zip(templates);
    Ok(records.map(|((page, text), template)| Record { page, text, template }).collect())
}

/// The records of a run, each in two parts (its page and its plain text: `graph index` drops
/// the pages long before the texts), and for the manifest what was seen of each file (`None`
/// for a file over the size cap, which is not cached); all in path order.
#[derive(Debug)]
pub struct Reading {
    pub pages: Vec<Page>,
    pub texts: Vec<String>,
    /// The guidance line each text holds ([`Record::template`]).
    pub templates: Vec<Option<u16>>,
    pub seen: Vec<Option<Seen>>,
    /// Files parsed in this run; the others came from the manifest.
    pub parsed: usize,
    /// Whether the manifest would say what the previous one says (every file found as it
    /// was, none gone): then it need not be written again.
    pub unchanged: bool,
    /// Whether every record is the one the previous manifest holds (none gone, none new, none
    /// parsed), though some file's metadata may have changed (touched, or checked by content
    /// since it was modified close to the last run): then the outputs made from that manifest's
    /// records are still this run's, and only the manifest is written again.
    pub records_as_before: bool,
}

/// The previous run's manifest, ready to hand out its records (each at most once).
///
/// A list in path order, searched by halves, not a map: the manifest is written in the walk's
/// order, so it needs no sorting, and no path is copied as a key (a map's table and keys took
/// 36 MB at 100,000 records, hashing every path twice).
pub(super) struct Previous {
    /// The manifest file's modification time: the reference for "racily clean".
    written_ns: Option<i64>,
    /// Every entry's path, one after another: entry `i`'s ends at `ends[i]`.
    names: String,
    ends: Vec<usize>,
    /// What was seen of each file, and its record until taken; in byte order of `names`.
    pub(super) entries: Vec<(Seen, Mutex<Option<Record>>)>,
}

impl Previous {
    /// An empty list, to push a manifest's entries to as they are decoded.
    pub(super) fn new(written_ns: Option<i64>) -> Previous {
        Previous { written_ns, names: String::new(), ends: Vec::new(), entries: Vec::new() }
    }

    /// The list in byte order of its paths, the walk's (see [`markdown_files`]), which a
    /// manifest is in already; one in another order (written by hand) is sorted, and of two
    /// entries for one path the first is kept.
    pub(super) fn in_order(self) -> Previous {
        if self.is_in_order() {
            return self;
        }
        let n = self.entries.len();
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by(|&a, &b| self.name(a).cmp(self.name(b)));
        order.dedup_by(|b, a| self.name(*a) == self.name(*b));
        let mut sorted = Previous::new(self.written_ns);
        sorted.reserve(order.len());
        let mut entries: Vec<_> = self.entries.into_iter().map(Some).collect();
        for i in order {
            if let Some((seen, record)) = entries[i].take()
                && let Some(record) = record.into_inner().unwrap_or_else(|p| p.into_inner())
            {
                sorted.push(seen, record);
            }
        }
        sorted
    }

    /// Whether the list is in the order [`Previous::get`] searches, each path once.
    pub(super) fn is_in_order(&self) -> bool {
        (1..self.entries.len()).all(|i| self.name(i - 1) < self.name(i))
    }

    pub(super) fn name(&self, i: usize) -> &str {
        &self.names[if i == 0 { 0 } else { self.ends[i - 1] }..self.ends[i]]
    }

    /// What the manifest says of `path`.
    pub(super) fn get(&self, path: &str) -> Option<&(Seen, Mutex<Option<Record>>)> {
        let (mut lo, mut hi) = (0, self.entries.len());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match self.name(mid).cmp(path) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return self.entries.get(mid),
            }
        }
        None
    }

    /// The cached record of `path` when `fits` accepts what was seen of it.
    pub(super) fn take(&self, path: &str, fits: impl FnOnce(&Seen) -> bool) -> Option<Record> {
        let (seen, record) = self.get(path)?;
        if !fits(seen) {
            return None;
        }
        record.lock().unwrap_or_else(|p| p.into_inner()).take()
    }
}

impl manifest::Entries for Previous {
    fn reserve(&mut self, n: usize) {
        self.ends.reserve_exact(n);
        self.entries.reserve_exact(n);
    }

    fn push(&mut self, seen: Seen, record: Record) {
        self.names.push_str(&record.page.path);
        self.ends.push(self.names.len());
        self.entries.push((seen, Mutex::new(Some(record))));
    }
}

/// Reads and parses the graph's files. With a previous manifest, a file is parsed only when it
/// changed: one whose length and stamp are as recorded (and not racily clean) is not even read,
/// and one whose bytes have the recorded SHA-256 is read but not parsed.
///
/// `previous` loads that manifest; it runs on a thread of its own while the root is walked
/// (at 100,000 records each takes about 0.3 s, and neither needs the other). With
/// [`Caches::Ignore`] there is none to compare with.
pub(super) fn read(
    fs: &dyn FileSystem,
    clock: &dyn Clock,
    root: &Path,
    progress: &dyn Progress,
    caches: Caches,
    previous: impl FnOnce() -> Option<Previous> + Send,
) -> Result<Reading, GraphError> {
    match fs.metadata(root) {
        Ok(m) if m.kind == ports::fs::FileKind::Dir => {}
        Ok(_) => return Err(GraphError::NotADir(root.to_path_buf())),
        Err(e) if e.kind == FsErrorKind::NotFound => return Err(GraphError::NoRoot(root.to_path_buf())),
        Err(e) => return Err(e.into()),
    }
    // One handle on the root for every record read, taken before the walk: the records are
    // read from the folder that was there when the run began, not from one put in its place
    // while it ran (the walk and the writes still name the root by its path).
    let held = fs.hold_root(root).map_err(|e| match e.kind {
        FsErrorKind::NotFound => GraphError::NoRoot(root.to_path_buf()),
        FsErrorKind::NotADirectory => GraphError::NotADir(root.to_path_buf()),
        _ => e.into(),
    })?;
    // Each file's record path, the path below the root to read (they differ for a symlink),
    // and what the walk saw of it.
    let mut files: Vec<(&str, &Path, Option<&Metadata>)> = Vec::new();
    let t0 = clock.monotonic();
    // With a manifest to compare with, the walk takes each file's metadata as it lists it
    // (by name, in its folder's handle): at 100,000 records a stat by path afterwards took
    // 0.3 s more. Without one (`--full`, `graph validate`), no metadata is taken: found
    // measuring, a `--full` run stated every file for a manifest it then did not read.
    let stat = caches == Caches::Use && held.metadata_beneath(&Path::new(GENERATED_DIR).join(MANIFEST_FILE)).is_ok();
    let (walked, previous) = std::thread::scope(|s| {
        let previous = s.spawn(|| {
            let previous = previous();
            (previous, clock.monotonic())
        });
        let walked = markdown_files(fs, &*held, root, stat);
        let t1 = clock.monotonic();
        let (previous, t2) = previous.join().expect("the manifest reader panicked");
        tracing::debug!(walk = ?(t1 - t0), manifest = ?(t2 - t0), "graph: walked the root and read the manifest");
        (walked, previous)
    });
    let walked = walked?;
    let previous = previous.as_ref();
    for (path, why) in &walked.skipped {
        progress.skipped(path, why);
    }
    for (path, read, meta) in &walked.files {
        let rel = path.strip_prefix(root).unwrap_or(path);
        match rel.to_str() {
            Some(name) => files.push((name, read.as_deref().unwrap_or(rel), meta.as_ref())),
            None => progress.skipped(path, "its name is not valid UTF-8, so no record path can name it"),
        }
    }
    let total = files.len();
    let start = clock.monotonic();
    // Before any file is read: a file modified after this (or just before) is not trusted by
    // its stamp next time.
    let started_ns =
        clock.now().duration_since(std::time::UNIX_EPOCH).ok().and_then(|d| i64::try_from(d.as_nanos()).ok());
    tracing::debug!(files = total, "graph: walked the root");
    let done = AtomicUsize::new(0);
    let parsed = AtomicUsize::new(0);
    let same_as_before = AtomicUsize::new(0);
    let from_before = AtomicUsize::new(0);
    let read_one =
        |&(name, rel, walked): &(&str, &Path, Option<&Metadata>)| -> Result<Option<(Record, Option<Seen>)>, GraphError> {
            let n = done.fetch_add(1, Ordering::Relaxed) + 1;
            if n.is_multiple_of(5000) {
                progress.update(n, total, clock.monotonic().saturating_sub(start));
            }
            if let Some(prev) = previous {
                // Unchanged by its stamp: not read at all. The metadata is reached beneath the
                // root with no symlink followed, as the read reaches the file (by the walk, in the
                // folder's handle, or else by its path), so a file the read would refuse is not
                // served from the cache either.
                let meta = walked.copied().map_or_else(|| held.metadata_beneath(rel), Ok);
                if let Ok(meta) = meta {
                    let same = |s: &Seen| s.len == meta.len && s.stamp == meta.stamp && !s.racy(prev.written_ns);
                    if meta.kind == ports::fs::FileKind::File
                        && let Some((seen, _)) = prev.get(name).filter(|(s, _)| same(s))
                        && let Some(record) = prev.take(name, |_| true)
                    {
                        same_as_before.fetch_add(1, Ordering::Relaxed);
                        from_before.fetch_add(1, Ordering::Relaxed);
                        return Ok(Some((record, Some(*seen))));
                    }
                }
            }
            // A file over the cap is a finding about that file (`record_too_large`), not a failed run.
            let (bytes, meta) = match held.read_beneath(rel, MAX_RECORD_BYTES) {
                Ok(read) => read,
                Err(e) if e.kind == FsErrorKind::TooLarge => {
                    parsed.fetch_add(1, Ordering::Relaxed);
                    return Ok(Some((Record::oversized(name), None)));
                }
                // Removed (or renamed away by an editor) since the walk: as if the walk had not
                // seen it; a watch sees the change and indexes again.
                Err(e) if e.kind == FsErrorKind::NotFound => {
                    progress.skipped(&root.join(rel), "it was removed while the graph was being read");
                    return Ok(None);
                }
                // Found by the walk (folder by folder) but not openable by its path: a path
                // longer than the system allows (PATH_MAX) fails this one file, not the run.
                Err(e) if e.kind == FsErrorKind::InvalidPath => {
                    progress.skipped(&root.join(rel), &format!("it cannot be opened by its path ({})", e.detail));
                    return Ok(None);
                }
                Err(e) => return Err(e.into()),
            };
            // A NUL byte is no text a person wrote: such a file is left out, and said so, by
            // `graph index` and `graph validate` alike, and the server serves what the index
            // holds (found in review: indexed and searchable, then "not found" when read).
            if bytes.contains(&0) {
                progress.skipped(&root.join(rel), "it holds a NUL byte, so it is not a text record");
                return Ok(None);
            }
            let sha256: [u8; 32] = Sha256::digest(&bytes).into();
            let seen = Seen { len: meta.len, stamp: meta.stamp, modified_ns: meta.modified_ns, sha256 }.settled(started_ns);
            // Touched but not changed: the same bytes parse to the same record.
            if let Some(record) = previous.and_then(|p| p.take(name, |s| s.sha256 == sha256)) {
                if previous.is_some_and(|p| p.get(name).is_some_and(|(s, _)| *s == seen)) {
                    same_as_before.fetch_add(1, Ordering::Relaxed);
                }
                from_before.fetch_add(1, Ordering::Relaxed);
                return Ok(Some((record, Some(seen))));
            }
            parsed.fetch_add(1, Ordering::Relaxed);
            let record = match std::str::from_utf8(&bytes) {
                Ok(text) => Record::parse(name, text),
                Err(_) => Record::parse(name, &String::from_utf8_lossy(&bytes)),
            };
            Ok(Some((record, Some(seen))))
        };
    let results = parallel_map(&files, read_one);
    let took = clock.monotonic().saturating_sub(start);
    if total >= 5000 {
        progress.update(total, total, took);
    }
    tracing::debug!(files = total, parsed = parsed.load(Ordering::Relaxed), read = ?took, "graph: read the files");
    let mut pages = Vec::with_capacity(total);
    let mut texts = Vec::with_capacity(total);
    let mut templates = Vec::with_capacity(total);
    let mut seen = Vec::with_capacity(total);
    for r in results {
        if let Some((record, s)) = r? {
            pages.push(record.page);
            texts.push(record.text);
            templates.push(record.template);
            seen.push(s);
        }
    }
    // Each record is taken from the previous manifest at most once, by its name: as many taken
    // as it holds and as were read is the same records.
    let all_of = |n: usize| previous.is_some_and(|p| p.entries.len() == pages.len() && n == pages.len());
    let unchanged = all_of(same_as_before.into_inner());
    let records_as_before = all_of(from_before.into_inner());
    Ok(Reading { pages, texts, templates, seen, parsed: parsed.into_inner(), unchanged, records_as_before })
}

/// The threads work is spread over: every core, at most 8.
pub(super) fn threads() -> usize {
    std::thread::available_parallelism().map_or(2, |n| n.get()).clamp(1, 8)
}

/// Threads reading and parsing records. Reading is bound by the disk when the page cache is
/// cold, and a disk answers many requests in flight faster than two: 16 readers index a cold
/// 10k-record graph in 1.2 s where 2 took 1.45-1.6 s, and cost nothing measurable warm.
const READERS: usize = 16;

/// `items.iter().map(f)` on [`READERS`] threads. Threads take batches of 64 items from a
/// shared counter, so a few large records do not leave one thread working alone; the results
/// come in the items' order, each batch freed once taken (at 100,000 records a list of all
/// the results beside what the caller makes of them held 25 MB more at once). A page of
/// code, so no pool (no rayon) for one parallel map.
fn parallel_map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> impl Iterator<Item = R> {
    const BATCH: usize = 64;
    let next = AtomicUsize::new(0);
    let batches: Vec<Vec<(usize, Vec<R>)>> = std::thread::scope(|s| {
        let work = || {
            let mut mine = Vec::new();
            loop {
                let at = next.fetch_add(BATCH, Ordering::Relaxed);
                if at >= items.len() {
                    return mine;
                }
                mine.push((at, items[at..(at + BATCH).min(items.len())].iter().map(&f).collect()));
            }
        };
        let wanted = items.len().div_ceil(BATCH).min(READERS);
        let helpers: Vec<_> = (1..wanted).map(|_| s.spawn(work)).collect();
        let mut all = vec![work()];
        all.extend(helpers.into_iter().map(|h| h.join().expect("a worker thread panicked")));
        all
    });
    let mut batches: Vec<(usize, Vec<R>)> = batches.into_iter().flatten().collect();
    batches.sort_unstable_by_key(|(at, _)| *at);
    batches.into_iter().flat_map(|(_, r)| r)
}

/// What the walk found: the Markdown files to read, and the paths it passed over.
pub(super) struct Walked {
    /// Each file's own path (absolute, as walked: a symlink's own path) and, for a symlink,
    /// the symlink-free path below the root that it resolves to, to read instead, and the
    /// metadata the walk took of a file in a folder (when asked for); sorted by the first.
    pub(super) files: Vec<(PathBuf, Option<PathBuf>, Option<Metadata>)>,
    /// Symlinks passed over, and why (each a warning).
    skipped: Vec<(PathBuf, String)>,
}

/// Every `.md` file below `root` except under `.generated/`, sorted by bytes: regular files,
/// and symlinks that resolve (by the confinement rule) to a regular `.md` file inside the root.
/// Other symlinks named `*.md`, and symlinked folders (never followed), are passed over with a
/// reason. Each top-level folder is walked on its own thread, beneath the held root (with each
/// file's metadata when `stat`). Names are the entries' own (`OsString`), so a name that is
/// not UTF-8 is found, not mangled.
pub(super) fn markdown_files(
    fs: &dyn FileSystem,
    held: &dyn HeldRoot,
    root: &Path,
    stat: bool,
) -> Result<Walked, GraphError> {
    let is_md = |p: &Path| p.extension().is_some_and(|e| e == "md");
    let entries = fs.read_dir(root)?;
    let mut files: Vec<(PathBuf, Option<Metadata>)> = entries
        .iter()
        .filter(|e| e.kind == FileKind::File)
        .map(|e| (root.join(&e.name), None))
        .filter(|(f, _)| is_md(f))
        .collect();
    let mut links: Vec<PathBuf> = entries
        .iter()
        .filter(|e| e.kind == FileKind::Symlink && e.name != GENERATED_DIR)
        .map(|e| root.join(&e.name))
        .collect();
    let dirs: Vec<&Path> = entries
        .iter()
        .filter(|e| e.kind == FileKind::Dir && e.name != GENERATED_DIR)
        .map(|e| Path::new(&e.name))
        .collect();
    let walked: Vec<Result<WalkBeneath, FsError>> = std::thread::scope(|s| {
        let handles: Vec<_> =
            dirs.iter().map(|d| s.spawn(move || held.walk_beneath(d, &[GENERATED_DIR], stat))).collect();
        handles.into_iter().map(|h| h.join().expect("walker thread")).collect()
    });
    for w in walked {
        let w = w?;
        files.extend(w.files.into_iter().filter(|(f, _)| is_md(f)));
        links.extend(w.symlinks);
    }
    let mut found = Walked { files: files.into_iter().map(|(f, meta)| (f, None, meta)).collect(), skipped: Vec::new() };
    if !links.is_empty() {
        // The confinement walk compares against the canonical root (a symlinked root works).
        let canonical = fs.canonicalize(root)?;
        let walked: std::collections::HashSet<PathBuf> = found.files.iter().map(|(f, _, _)| f.clone()).collect();
        for link in links {
            match linked_record(fs, root, &canonical, &link) {
                // The same file twice would be the same id twice: it is read once, by its name.
                Ok(Some(read)) if walked.contains(&root.join(&read)) => found.skipped.push((
                    link,
                    format!("it is a symlink to {}, which is indexed under its own path", read.display()),
                )),
                Ok(Some(read)) => found.files.push((link, Some(read), None)),
                Ok(None) => {}
                Err(why) => found.skipped.push((link, why.to_owned())),
            }
        }
    }
    found.files.sort_by(|a, b| a.0.as_os_str().as_encoded_bytes().cmp(b.0.as_os_str().as_encoded_bytes()));
    Ok(found)
}

/// A symlink met by the walk: `Some(path below the root to read)` when it is a record that
/// stays inside the root, `None` when it is no concern of the graph (a link to a non-Markdown
/// file), and why it was passed over otherwise.
fn linked_record(
    fs: &dyn FileSystem,
    root: &Path,
    canonical: &Path,
    link: &Path,
) -> Result<Option<PathBuf>, &'static str> {
    use domain::graph::confine::{self, Deny};
    if link.extension().is_none_or(|e| e != "md") {
        // Only a folder matters here: the records in it would be missed without a word.
        return match fs.metadata(link) {
            Ok(m) if m.kind == ports::fs::FileKind::Dir => Err(
                "a symlinked folder is not followed, so no record in it is indexed; move the records into a real folder below the root",
            ),
            _ => Ok(None),
        };
    }
    let rel = link.strip_prefix(root).ok().and_then(Path::to_str);
    let rel = rel.ok_or("its name is not valid UTF-8, so no record path can name it")?;
    match confine::resolve(&ports::fs::ConfineView(fs), canonical, rel) {
        // The walk passes over every folder named `.generated`, at any depth: so does a link.
        Ok(c)
            if c.relative().extension().is_some_and(|e| e == "md")
                && !c.relative().iter().any(|name| name == GENERATED_DIR) =>
        {
            Ok(Some(c.relative().to_path_buf()))
        }
        Ok(_) => Err("it is a symlink to a file that is not a Markdown record (or lies in a .generated/ folder)"),
        Err(Deny::Escapes) => Err(
            "it is a symlink that leads outside the VitaeGraph root; only symlinks that stay inside the root are indexed",
        ),
        Err(Deny::Missing) => Err("it is a dangling symlink: nothing is at its target"),
        Err(Deny::Loop) => Err("it is a symlink loop"),
        Err(Deny::NotAFile) => Err("it is a symlink to something that is not a regular file"),
        Err(Deny::NotRelative) => Err("it is a symlink whose target cannot be followed (a name that is not UTF-8)"),
        Err(Deny::Unreadable) => Err("it is a symlink whose target cannot be looked at (permission denied)"),
    }
}

/// The text of the page with record path `path` (a symlink in it that stays inside the root
/// resolved, as the walk does), to show a finding's source; `None` when it cannot be read.
pub fn page_text(fs: &dyn FileSystem, root: &Path, path: &str) -> Option<String> {
    let (bytes, _) = match fs.read_beneath(root, Path::new(path), MAX_RECORD_BYTES) {
        Ok(read) => read,
        Err(e) if e.kind == FsErrorKind::Loop => {
            let canonical = fs.canonicalize(root).ok()?;
            let confined = domain::graph::confine::resolve(&ports::fs::ConfineView(fs), &canonical, path).ok()?;
            fs.read_beneath(root, confined.relative(), MAX_RECORD_BYTES).ok()?
        }
        Err(_) => return None,
    };
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

/// The largest manifest read: the records' text and front matter, a few hundred MB at most.
pub(super) const MAX_MANIFEST_BYTES: u64 = 1 << 31;

/// The previous run's manifest of this root (`identity`: the canonical root), when there is a
/// whole one of this version.
pub(super) fn previous_manifest(fs: &dyn FileSystem, root: &Path, identity: &str) -> Option<Previous> {
    let rel = Path::new(GENERATED_DIR).join(MANIFEST_FILE);
    let (mut file, meta) = fs.open_beneath(root, &rel).ok()?;
    if meta.len > MAX_MANIFEST_BYTES {
        tracing::info!("graph index: the manifest is larger than any this version writes; reading every record");
        return None;
    }
    // Decoded as it is read, each entry straight into the list: at 100,000 records the 120 MB
    // file is never held beside the records.
    let mut previous = Previous::new(meta.modified_ns);
    let named = manifest::decode_from(&mut file, meta.len, &mut previous);
    match named {
        Some(root) if root == identity => Some(previous.in_order()),
        Some(_) => {
            tracing::info!("graph index: the manifest describes another root; reading every record");
            None
        }
        None => {
            tracing::info!("graph index: the manifest is not one this version wrote whole; reading every record");
            None
        }
    }
}

/// Whether a run trusts the caches the last run left in `.generated/`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Caches {
    /// Parse only the records the manifest does not vouch for, copy the documents the span
    /// file locates, write nothing when the list of outputs says nothing changed.
    Use,
    /// Read none of them (`graph index --full`): every record parsed, every document rendered,
    /// every file written, and the caches written anew. The outputs are the same as with
    /// [`Caches::Use`] unless a cache vouches for what no longer holds: a crafted one, or a
    /// filesystem whose stamps do not change with the content.
    Ignore,
}

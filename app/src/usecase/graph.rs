//! VitaeGraph use cases over the filesystem port: read, validate, index.

use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use domain::graph::index::{self, Diagnostics, Plan, Record};
use domain::graph::manifest::{self, Entries as _, MANIFEST_FILE, Seen};
use domain::graph::new_record::NewRecord;
use domain::graph::outputs::{self, OUTPUTS_FILE, Outputs};
use domain::graph::search::Prepared;
use domain::graph::set;
use domain::graph::sidecar::{Checksum, SidecarBuilder, SidecarLayout, Source as SidecarSource};
use domain::graph::spans::{self, SPANS_FILE};
use domain::graph::{
    DIAGNOSTICS_FILE, GENERATED_DIR, GRAPH_FILE, GraphValidation, MAX_RECORD_BYTES, Page, RecordType,
    SEARCH_INDEX_FILE, SEARCH_SIDECAR_FILE,
};
use ports::Clock;
use ports::fs::{
    Change, FileKind, FileSystem, FsError, FsErrorKind, HeldDir, HeldRoot, Metadata, OpenFile, WalkBeneath,
};
use sha2::{Digest, Sha256};

/// Reports progress of long work (stderr for the CLI, nothing in tests).
pub trait Progress: Sync {
    fn update(&self, done: usize, total: usize, elapsed: Duration);

    /// A file that was passed over, and why; the work goes on without it.
    fn skipped(&self, _path: &Path, _why: &str) {}

    /// Another index of the same graph is under way: this one waits for it to finish.
    fn waiting(&self, _root: &Path) {}
}

#[derive(Debug, thiserror::Error)]
pub enum GraphError {
    // The hint names the root: pasted without it, `graph init` made the default graph
    // instead (found in review).
    #[error(
        "the VitaeGraph root {} does not exist; create it with `vitaecontext graph init --root {}`",
        .0.display(),
        domain::clients::shell_quote(&.0.display().to_string())
    )]
    NoRoot(PathBuf),
    #[error("the VitaeGraph root {} is not a folder", .0.display())]
    NotADir(PathBuf),
    /// A folder the command would write in is not a plain folder below the root: a symlink
    /// (which could lead anywhere: writing there would put files into, or remove them from, a
    /// folder that is not the graph's) or a file.
    #[error("refusing to write in {}: {why}", .path.display())]
    NotAPlainFolder { path: PathBuf, why: String },
    /// A folder holds the name of an output file: no run makes one, and no set of outputs can
    /// land while it is there.
    #[error("{} is a folder, where `graph index` writes a file; move or remove the folder, then index again", .0.display())]
    OutputIsFolder(PathBuf),
    /// `graph add` of an id a record already has.
    #[error("{id} is already the id of {path}; nothing was written")]
    DuplicateId { id: String, path: String },
    /// `graph add --parent` of an id no record has.
    #[error("no record has the id {parent}, given as --parent; nothing was written")]
    NoParent { parent: String },
    #[error("{0}")]
    Fs(#[from] FsError),
}

/// Checks that the folder `dir` (below `root`) and every folder between them that exists is a
/// plain folder, not a symlink nor a file; what does not exist yet is created as plain folders.
/// A graph copied from elsewhere may hold a `.generated` or a record folder that is a symlink
/// to another place: `graph index` would write there (and, for an invalid graph, remove index
/// files from there), and `graph add` would create a record there. Even a symlink that stays
/// inside the root is refused: the walk never enters a symlinked folder (a record added
/// through one would not be indexed) and the manifest is read without following symlinks (an
/// index written through one would never be incremental). The check names paths, like the
/// writes after it: a folder swapped for a symlink in between is not caught (ARCHITECTURE.md).
fn plain_folders(fs: &dyn FileSystem, root: &Path, dir: &Path) -> Result<(), GraphError> {
    let below = dir.strip_prefix(root).unwrap_or(dir);
    let mut at = root.to_path_buf();
    for name in below.components() {
        at.push(name);
        let why = match fs.symlink_metadata(&at) {
            Err(e) if e.kind == FsErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(e.into()),
            Ok(m) if m.kind == FileKind::Dir => continue,
            Ok(m) if m.kind == FileKind::Symlink => match fs.read_link(&at) {
                Ok(target) => format!(
                    "it is a symlink to {}; make it a plain folder inside the VitaeGraph root",
                    target.display()
                ),
                Err(_) => "it is a symlink; make it a plain folder inside the VitaeGraph root".to_owned(),
            },
            Ok(_) => "it is a file, not a folder".to_owned(),
        };
        return Err(GraphError::NotAPlainFolder { path: at, why });
    }
    Ok(())
}

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
    let Reading { pages, texts, .. } = read(fs, clock, root, progress, Caches::Ignore, || None)?;
    Ok(pages.into_iter().zip(texts).map(|(page, text)| Record { page, text }).collect())
}

/// The records of a run, each in two parts (its page and its plain text: `graph index` drops
/// the pages long before the texts), and for the manifest what was seen of each file (`None`
/// for a file over the size cap, which is not cached); all in path order.
#[derive(Debug)]
pub struct Reading {
    pub pages: Vec<Page>,
    pub texts: Vec<String>,
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
struct Previous {
    /// The manifest file's modification time: the reference for "racily clean".
    written_ns: Option<i64>,
    /// Every entry's path, one after another: entry `i`'s ends at `ends[i]`.
    names: String,
    ends: Vec<usize>,
    /// What was seen of each file, and its record until taken; in byte order of `names`.
    entries: Vec<(Seen, Mutex<Option<Record>>)>,
}

impl Previous {
    /// An empty list, to push a manifest's entries to as they are decoded.
    fn new(written_ns: Option<i64>) -> Previous {
        Previous { written_ns, names: String::new(), ends: Vec::new(), entries: Vec::new() }
    }

    /// The list in byte order of its paths, the walk's (see [`markdown_files`]), which a
    /// manifest is in already; one in another order (written by hand) is sorted, and of two
    /// entries for one path the first is kept.
    fn in_order(self) -> Previous {
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
    fn is_in_order(&self) -> bool {
        (1..self.entries.len()).all(|i| self.name(i - 1) < self.name(i))
    }

    fn name(&self, i: usize) -> &str {
        &self.names[if i == 0 { 0 } else { self.ends[i - 1] }..self.ends[i]]
    }

    /// What the manifest says of `path`.
    fn get(&self, path: &str) -> Option<&(Seen, Mutex<Option<Record>>)> {
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
    fn take(&self, path: &str, fits: impl FnOnce(&Seen) -> bool) -> Option<Record> {
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
fn read(
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
    let mut seen = Vec::with_capacity(total);
    for r in results {
        if let Some((record, s)) = r? {
            pages.push(record.page);
            texts.push(record.text);
            seen.push(s);
        }
    }
    // Each record is taken from the previous manifest at most once, by its name: as many taken
    // as it holds and as were read is the same records.
    let all_of = |n: usize| previous.is_some_and(|p| p.entries.len() == pages.len() && n == pages.len());
    let unchanged = all_of(same_as_before.into_inner());
    let records_as_before = all_of(from_before.into_inner());
    Ok(Reading { pages, texts, seen, parsed: parsed.into_inner(), unchanged, records_as_before })
}

/// The threads work is spread over: every core, at most 8.
fn threads() -> usize {
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
struct Walked {
    /// Each file's own path (absolute, as walked: a symlink's own path) and, for a symlink,
    /// the symlink-free path below the root that it resolves to, to read instead, and the
    /// metadata the walk took of a file in a folder (when asked for); sorted by the first.
    files: Vec<(PathBuf, Option<PathBuf>, Option<Metadata>)>,
    /// Symlinks passed over, and why (each a warning).
    skipped: Vec<(PathBuf, String)>,
}

/// Every `.md` file below `root` except under `.generated/`, sorted by bytes: regular files,
/// and symlinks that resolve (by the confinement rule) to a regular `.md` file inside the root.
/// Other symlinks named `*.md`, and symlinked folders (never followed), are passed over with a
/// reason. Each top-level folder is walked on its own thread, beneath the held root (with each
/// file's metadata when `stat`). Names are the entries' own (`OsString`), so a name that is
/// not UTF-8 is found, not mangled.
fn markdown_files(fs: &dyn FileSystem, held: &dyn HeldRoot, root: &Path, stat: bool) -> Result<Walked, GraphError> {
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

/// [`validate_pages`] of records read with their texts, with the guidance `graph add` wrote
/// and nobody replaced reported as an error (see [`template_errors`]).
pub fn validate_records(fs: &dyn FileSystem, root: &Path, records: &[Record]) -> GraphValidation {
    let v = validate_pages(fs, root, records);
    template_errors(v, records.iter().map(|r| (r.page.path.as_str(), r.text.as_str())))
}

/// `v` with a `template_text` error for each record whose text still holds the guidance that
/// `graph add` writes (found in review: it was validated, indexed and served as the person's
/// facts): like a Career Context placeholder, it makes the graph invalid until replaced.
pub fn template_errors<'a>(
    mut v: GraphValidation,
    records: impl Iterator<Item = (&'a str, &'a str)>,
) -> GraphValidation {
    for (path, text) in records {
        if let Some(line) = domain::graph::new_record::template_text_in(text) {
            v.errors.push(domain::graph::GraphDiagnostic {
                code: domain::graph::GraphCode::TemplateText,
                path: path.to_owned(),
                message: format!("Template text from `graph add` not replaced: {line:?}"),
                line: None,
                other: None,
                note: None,
            });
            v.valid = false;
        }
    }
    v
}

pub fn validate_pages<P: std::borrow::Borrow<Page>>(fs: &dyn FileSystem, root: &Path, pages: &[P]) -> GraphValidation {
    // A link to a record just read needs no stat (at 100,000 records, one stat per link was
    // most of the validation); any other target is looked up on disk.
    // The pages come sorted by path from a walk, so a target is found by a binary search: a
    // set of every path cost 2 MB and 10 ms at 100,000 records, most graphs having few links.
    fn path<P: std::borrow::Borrow<Page>>(p: &P) -> &str {
        p.borrow().path.as_str()
    }
    let sorted = pages.is_sorted_by(|a, b| path(a) < path(b));
    let set: HashSet<&str> = if sorted { HashSet::new() } else { pages.iter().map(path::<P>).collect() };
    let read = |rel: &str| {
        if sorted { pages.binary_search_by(|p| path(p).cmp(rel)).is_ok() } else { set.contains(rel) }
    };
    let exists =
        |p: &Path| p.strip_prefix(root).ok().and_then(Path::to_str).is_some_and(read) || fs.metadata(p).is_ok();
    domain::graph::validate(root, pages, &exists)
}

/// JSON as VitaeContext 2.x writes it: 2-space indentation and one final newline.
pub fn json_bytes<T: serde::Serialize>(value: &T) -> Vec<u8> {
    let mut bytes = serde_json::to_vec_pretty(value).expect("generated data always serialises");
    bytes.push(b'\n');
    bytes
}

#[derive(Debug)]
pub struct Indexed {
    pub validation: GraphValidation,
    pub nodes: usize,
    pub generated: PathBuf,
    /// Files parsed in this run (all of them without a usable manifest).
    pub parsed: usize,
    /// Files read in all.
    pub files: usize,
    /// Search documents copied from the previous `search-index.json`, not rendered.
    pub copied: usize,
    /// Whether the run wrote its outputs: a rerun with no record changed, whose outputs are as
    /// the last run left them, writes none ([`outputs`]), and nothing at all unless a record
    /// file was touched (then the manifest and the list of outputs alone).
    pub written: bool,
}

/// What `index` writes, in `.generated/` (the manifest aside, which is a cache). The sidecar
/// is written after the others, so that its mtime is never older than the JSON's (the server
/// checks that).
pub const GENERATED_FILES: [&str; 4] = [GRAPH_FILE, SEARCH_INDEX_FILE, SEARCH_SIDECAR_FILE, DIAGNOSTICS_FILE];

/// The largest manifest read: the records' text and front matter, a few hundred MB at most.
const MAX_MANIFEST_BYTES: u64 = 1 << 31;

/// The previous run's manifest of this root (`identity`: the canonical root), when there is a
/// whole one of this version.
fn previous_manifest(fs: &dyn FileSystem, root: &Path, identity: &str) -> Option<Previous> {
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

/// The largest span file read for `nodes` records: 52 bytes of each entry and its path (at
/// most 4 KiB), and the header. A damaged one is refused before it is read whole.
fn max_spans_bytes(nodes: usize) -> u64 {
    64 + nodes as u64 * (52 + 4096)
}

/// The largest document copied: a record's text escaped (at most 6 bytes a byte) and its
/// terms (each at most 2 bytes of text and 14 of layout), with room to spare. A span longer
/// than this is not one this build wrote, and is not read (a crafted one could otherwise ask
/// for the whole JSON at once).
const MAX_DOCUMENT_BYTES: u64 = 16 * MAX_RECORD_BYTES;

/// The most bytes one read of a run of copied documents takes: the run stops there.
const MAX_RUN_BYTES: u64 = 8 << 20;

/// The documents of the `search-index.json` in place that can be copied into the new one:
/// what the previous run's span file says of them, for the records unchanged since (by path
/// and SHA-256), while that JSON is the one the span file describes (length and stamp).
pub struct Splice {
    /// The JSON in place, held open: it stays readable once the new one replaces it.
    json: OpenFile,
    /// Per node of the plan, where its document lies in that JSON (start and length).
    spans: Vec<Option<(u64, u64)>>,
}

/// Whether a span is one to read: inside a JSON of `json_len` bytes, and no longer than a
/// document can be.
fn readable(span: &spans::Span<'_>, json_len: u64) -> bool {
    span.len <= MAX_DOCUMENT_BYTES && span.start.checked_add(span.len).is_some_and(|end| end <= json_len)
}

/// The [`Splice`] for `plan` (made from the records that `seen` describes, in their order),
/// when the previous run left a span file for the JSON in place.
fn previous_spans(fs: &dyn FileSystem, root: &Path, plan: &Plan<'_>, seen: &[Option<Seen>]) -> Option<Splice> {
    let dir = Path::new(GENERATED_DIR);
    let (bytes, _) = fs.read_beneath(root, &dir.join(SPANS_FILE), max_spans_bytes(plan.graph.nodes.len())).ok()?;
    let Some((json, old)) = spans::decode(&bytes) else {
        tracing::info!("graph index: {SPANS_FILE} is not one this version wrote whole; rendering every document");
        return None;
    };
    let (file, meta) = fs.open_beneath(root, &dir.join(SEARCH_INDEX_FILE)).ok()?;
    if meta.len != json.len || meta.stamp != json.stamp {
        tracing::debug!("graph index: {SEARCH_INDEX_FILE} is not the one {SPANS_FILE} describes");
        return None;
    }
    // The span file lists the documents in the previous plan's order, which is this one's (by
    // id) for every record that kept its id: each is looked for at the node after the one last
    // found, and in a map of every node's path (made at the first miss, after a record was
    // added, removed or given another id) only when it is not there.
    let nodes = &plan.graph.nodes;
    let mut node_of: Option<HashMap<&str, usize>> = None;
    let mut next = 0;
    let mut spans = vec![None; nodes.len()];
    for span in old {
        let i = match nodes.get(next) {
            Some(n) if n.path == span.path => next,
            _ => {
                let node_of = node_of
                    .get_or_insert_with(|| nodes.iter().enumerate().map(|(i, n)| (n.path.as_str(), i)).collect());
                let Some(&i) = node_of.get(span.path) else { continue };
                i
            }
        };
        next = i + 1;
        let unchanged = seen.get(plan.records[i]).copied().flatten().is_some_and(|s| s.sha256 == *span.sha256);
        if unchanged && readable(&span, json.len) {
            spans[i] = Some((span.start, span.len));
        }
    }
    Some(Splice { json: file, spans })
}

/// Validates and writes `.generated/`; a failed validation removes the stale graph and search
/// index and writes only the diagnostics. The files change together or not at all
/// ([`FileSystem::write_atomic_set`]): a failure (a full disk) leaves the previous set whole.
/// The graph goes first, so that while the renames run a reader sees either no graph (the
/// invalid case) or a graph whose search index follows a few renames later, never a search
/// index for records the graph no longer has for longer than that.
///
/// Incremental: `.generated/manifest.bin` lets the next run parse only the records that
/// changed; the output is byte-identical to a run without it. It is written apart from the
/// set, on its own thread: it describes the files as read, not the outputs, so it is right
/// whether or not the set lands, and a manifest that cannot be written fails nothing.
///
/// The search index is streamed into its temporary file document by document, rendered on
/// every core ([`write_search_index`]): memory holds the records' plain text, not the file.
pub fn index(
    fs: &dyn FileSystem,
    clock: &dyn Clock,
    root: &Path,
    progress: &dyn Progress,
) -> Result<Indexed, GraphError> {
    index_with(fs, clock, root, progress, Caches::Use)
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

/// [`index`], trusting the caches or not.
pub fn index_with(
    fs: &dyn FileSystem,
    clock: &dyn Clock,
    root: &Path,
    progress: &dyn Progress,
    caches: Caches,
) -> Result<Indexed, GraphError> {
    let t0 = clock.monotonic();
    let trusted = caches == Caches::Use;
    let turn = take_turn(fs, root, progress);
    outputs_free(fs, root)?;
    // The canonical root names the graph the manifest describes (a manifest copied beside
    // another graph is ignored).
    let identity = fs.canonicalize(root).map(|c| c.to_string_lossy().into_owned()).unwrap_or_default();
    let Reading { pages, texts, seen, parsed, unchanged, records_as_before } =
        read(fs, clock, root, progress, caches, || trusted.then(|| previous_manifest(fs, root, &identity)).flatten())?;
    let t1 = clock.monotonic();
    let files = pages.len();
    let generated = root.join(GENERATED_DIR);
    plain_folders(fs, root, &generated)?;
    fs.create_dir_all(&generated)?;
    // Every write and removal below goes through this handle on the folder checked above: a
    // `.generated` renamed or swapped for a symlink from now on cannot redirect them.
    let out = fs.open_dir_beneath(root, Path::new(GENERATED_DIR))?;
    let out = &*out;
    if turn.is_some() {
        remove_leftovers(out);
    }
    let [graph_path, search_path, sidecar_path, diagnostics_path] = GENERATED_FILES.map(Path::new);
    let spans_path = Path::new(SPANS_FILE);
    // The caches beside the set that a folder holds the name of (no run makes one): there is
    // no old cache to remove there and no new one is written, rather than fail the run.
    let outputs_path = Path::new(OUTPUTS_FILE);
    let caches = caches_free(out, &[sidecar_path, spans_path, outputs_path]);
    // No record changed since a run whose outputs are all still as it left them: they are what
    // this run would write, unless the validation, which also looks at link targets that are
    // not records, now says otherwise. A file only touched, or one checked by content because
    // it was modified close to that run, changes the manifest alone: it is written again, and
    // the list of outputs with it (at 100,000 records, 120 MB instead of 530).
    let kept = if records_as_before { kept_outputs(fs, root) } else { None };
    let validated = match kept {
        Some(kept) => {
            let validation = template_errors(
                validate_pages(fs, root, &pages),
                pages.iter().map(|p| p.path.as_str()).zip(texts.iter().map(String::as_str)),
            );
            let diagnostics = json_bytes(&Diagnostics::of(&validation));
            if validation.valid && <[u8; 32]>::from(Sha256::digest(&diagnostics)) == kept.diagnostics_sha256 {
                let nodes = usize::try_from(kept.nodes).unwrap_or(usize::MAX);
                if !unchanged {
                    // Until the new list is in place, the one there names the old manifest:
                    // a run stopped between the two writes everything next time.
                    match write_manifest(out, &identity, &seen, pages, &texts) {
                        Ok(()) => list_outputs(out, naming_the_new_manifest(fs, root, kept)),
                        Err(e) => tracing::warn!(
                            "the index manifest was not written ({e}); the next `graph index` reads again the files it checked"
                        ),
                    }
                }
                tracing::debug!("graph index: no record changed since the last run; no output written");
                return Ok(Indexed { validation, nodes, generated, parsed, files, copied: nodes, written: false });
            }
            Some(validation)
        }
        None => None,
    };
    // Validated while the plan's edges are made, then the plan's nodes: made while the graph
    // was validated, the nodes' strings (40 MB at 100,000 records) sat beside validation's
    // maps (17 MB), and that was the run's peak, 247-253 MB; this way 235-240 MB, for about
    // 0.08 s more (validation, 0.15-0.2 s, no longer beside the whole plan).
    // The plan borrows the texts only: after this, nothing but the manifest needs the pages.
    // The documents of the JSON in place that can be copied are found with the plan.
    let (plan, validation) = Plan::split_after(&pages, &texts, || {
        validated.unwrap_or_else(|| {
            template_errors(
                validate_pages(fs, root, &pages),
                pages.iter().map(|p| p.path.as_str()).zip(texts.iter().map(String::as_str)),
            )
        })
    });
    let splice = if trusted { previous_spans(fs, root, &plan, &seen) } else { None };
    let t2 = clock.monotonic();
    tracing::debug!(records = files, parsed, read = ?(t1 - t0), validate_and_plan = ?(t2 - t1), "graph index: read, validated and planned");
    std::thread::scope(|s| {
        // The manifest describes the files as read, whatever the outputs: it is written on a
        // thread of its own while the graph is written, apart from their set, so that a
        // manifest that cannot be written costs the next run speed, not this run's index. It
        // takes the pages and drops each once written, so that they are gone (about 90 MB at
        // 100,000 records) before the search sidecar is laid out. It is a cache that checks
        // itself, so it is not synced to the disk; an unchanged one is not rewritten.
        let manifest_written = if unchanged {
            drop(pages);
            None
        } else {
            let (seen, texts, identity) = (&seen, &texts, &identity);
            // Said once the JSON set is written: a run that fails says why, once (found in
            // review: a folder the user may not write in gave this warning, then the error).
            Some(s.spawn(move || write_manifest(out, identity, seen, pages, texts)))
        };
        let diagnostics = json_bytes(&Diagnostics::of(&validation));
        let done = |nodes, copied| Indexed {
            validation: validation.clone(),
            nodes,
            generated: generated.clone(),
            parsed,
            files,
            copied,
            written: true,
        };
        // The list of what the last run left goes first: a run that changes the set leaves
        // none until its own outputs are all in place.
        let removed_caches = caches.iter().map(|c| Change::Remove(c));
        if !validation.valid {
            let mut set = vec![Change::Remove(graph_path), Change::Remove(search_path)];
            set.extend(removed_caches);
            set.push(Change::Write(diagnostics_path, &diagnostics));
            out.write_atomic_set(&set)?;
            mark_set(out, None, None);
            return Ok(done(0, 0));
        }
        // The graph's length and checksum as written, for the generation marker.
        let graph_piece = Mutex::new(None);
        let graph = |out: &mut dyn Write| {
            let mut out = Summing { out, sum: Checksum::default() };
            index::write_graph(&plan.graph, &mut out)?;
            *graph_piece.lock().unwrap_or_else(|p| p.into_inner()) = Some(set::Piece::summed(&out.sum));
            Ok(())
        };
        let search_piece = Mutex::new(None);
        // The sidecar is made while the search index streams, laid out on a thread of its own
        // once the stream ends (while the set is synced and renamed, and the old files'
        // blocks freed: 0.1 s at 100,000 records), and written once the set is in place: the
        // set removes the old one, so no reader pairs the new JSON with it, and a sidecar
        // that cannot be written costs only speed (the server reads the JSON).
        let manifest_written = Mutex::new(manifest_written);
        let laying_out = Mutex::new(None);
        let copied = AtomicUsize::new(0);
        let search = |out: &mut dyn Write| {
            let parts = write_search_index(&plan, splice.as_ref(), out)?;
            copied.store(parts.copied, Ordering::Relaxed);
            *search_piece.lock().unwrap_or_else(|p| p.into_inner()) = Some(parts.json_piece());
            let manifest_written = manifest_written.lock().unwrap_or_else(|p| p.into_inner()).take();
            let laid = s.spawn(move || {
                // The pages go with the manifest (usually written well before the JSON):
                // waited for here, so that they are gone when the sidecar's postings are made.
                let manifest_current = manifest_written.is_none_or(|written| {
                    let written = written.join().expect("the manifest writer panicked");
                    if let Err(e) = &written {
                        tracing::warn!("the index manifest was not written ({e}); the next `graph index` parses again what changed since the one before");
                    }
                    written.is_ok()
                });
                (parts.lay_out(), manifest_current)
            });
            *laying_out.lock().unwrap_or_else(|p| p.into_inner()) = Some(laid);
            Ok(())
        };
        let mut set = vec![Change::Stream(graph_path, &graph), Change::Stream(search_path, &search)];
        set.extend(removed_caches);
        set.push(Change::Write(diagnostics_path, &diagnostics));
        out.write_atomic_set(&set)?;
        let piece = |m: Mutex<Option<set::Piece>>| m.into_inner().unwrap_or_else(|p| p.into_inner());
        mark_set(out, piece(graph_piece), piece(search_piece));
        // The JSON it was copied from is gone: its handle goes too.
        drop(splice);
        let t3 = clock.monotonic();
        tracing::debug!(set = ?(t3 - t2), "graph index: JSON written");
        let indexed = done(plan.graph.nodes.len(), copied.load(Ordering::Relaxed));
        if let Some(laid) = laying_out.into_inner().unwrap_or_else(|p| p.into_inner()) {
            let (laid, manifest_current) = laid.join().expect("the sidecar's layout panicked");
            // Written in pieces, its strings read from the plan and the texts: never held whole.
            // It keeps the JSON's stamp as the set left it, which the server compares before
            // trusting the sidecar without hashing the JSON first (none: it always hashes).
            let json = Path::new(GENERATED_DIR).join(SEARCH_INDEX_FILE);
            let stamp = fs.metadata_beneath(root, &json).map_or(0, |m| m.stamp);
            let (write, spans) = laid.writers(stamp, &seen);
            let written: Vec<Change<'_>> = caches
                .iter()
                .filter(|&&c| c != outputs_path)
                .map(|&c| if c == sidecar_path { Change::Cache(c, &write) } else { Change::Cache(c, &spans) })
                .collect();
            match out.write_atomic_set(&written) {
                Err(e) => tracing::warn!(
                    "the search sidecar was not written ({e}); the server will read search-index.json instead"
                ),
                // Everything is in place, and the manifest describes the records it was made
                // from: the next run with nothing changed may keep it all.
                Ok(()) if manifest_current && caches.contains(&outputs_path) => {
                    list_outputs(out, left_outputs(fs, root, indexed.nodes, Sha256::digest(&diagnostics).into()));
                }
                Ok(()) => {}
            }
        }
        tracing::debug!(sidecar = ?(clock.monotonic() - t3), "graph index: sidecar written");
        Ok(indexed)
    })
}

/// Writes the manifest of the files as this run read them, taking the pages: each is dropped
/// once written. A cache that checks itself: not synced to the disk.
fn write_manifest(
    out: &dyn HeldDir,
    identity: &str,
    seen: &[Option<Seen>],
    pages: Vec<Page>,
    texts: &[String],
) -> Result<(), FsError> {
    let pages = Mutex::new(Some(pages));
    let manifest = |out: &mut dyn Write| {
        let pages = pages.lock().unwrap_or_else(|p| p.into_inner()).take();
        let pages = pages.ok_or_else(|| std::io::Error::other("the manifest is written once"))?;
        let count = seen.iter().flatten().count();
        let entries = seen.iter().zip(pages).zip(texts);
        let entries = entries.filter_map(|((s, page), text)| Some((s.as_ref()?, page, text.as_str())));
        manifest::write(identity, count, entries, out)
    };
    out.write_atomic_set(&[Change::Cache(Path::new(MANIFEST_FILE), &manifest)])
}

/// Writes the generation marker ([`set`]) naming the graph and search index a run has just
/// put in place. The marker before it stays until then: a reader pairs it with whatever the
/// renames left. One that cannot be written leaves the old, which then tells nothing of the
/// new pair (the reader compares their contents), and is said in the log.
fn mark_set(out: &dyn HeldDir, graph: Option<set::Piece>, search: Option<set::Piece>) {
    let bytes = set::encode(&set::Marker { graph, search });
    if let Err(e) = out.write_atomic_set(&[Change::Write(Path::new(set::SET_FILE), &bytes)]) {
        tracing::warn!(
            "{} was not written ({e}); the server compares the index files' contents instead",
            set::SET_FILE
        );
    }
}

/// Writes `listed` as the list of what is in `.generated/` (`OUTPUTS_FILE`), for the next run
/// to compare with; a list that could not be made (`None`) or written costs the next run speed
/// only.
fn list_outputs(out: &dyn HeldDir, listed: Option<Outputs>) {
    if let Some(bytes) = listed.as_ref().map(outputs::encode)
        && let Err(e) = out.write_atomic_set(&[Change::Write(Path::new(OUTPUTS_FILE), &bytes)])
    {
        tracing::debug!("{OUTPUTS_FILE} was not written ({e}); the next run writes everything");
    }
}

/// `kept`, the list this run checked the outputs against, naming the manifest now in place
/// instead of the one it named: the other files are not looked at again, so nothing written
/// to them since the check is vouched for.
fn naming_the_new_manifest(fs: &dyn FileSystem, root: &Path, mut kept: Outputs) -> Option<Outputs> {
    let manifest = left_now(fs, root, MANIFEST_FILE).ok()?;
    let (_, left) = kept.files.iter_mut().find(|(name, _)| name == MANIFEST_FILE)?;
    *left = manifest;
    kept.manifest_checksum = manifest_checksum(fs, root)?;
    Some(kept)
}

/// The files of `.generated/` that a run with nothing changed keeps only while each is as the
/// last run left it: the outputs, the generation marker, the caches, and the manifest that
/// says nothing changed.
const KEPT: [&str; 7] =
    [GRAPH_FILE, SEARCH_INDEX_FILE, DIAGNOSTICS_FILE, set::SET_FILE, SEARCH_SIDECAR_FILE, SPANS_FILE, MANIFEST_FILE];

/// How `.generated/NAME` is now: absent (`None`), or a regular file's length and stamp; `Err`
/// for anything else (a folder, a symlink, an error), which is never kept.
fn left_now(fs: &dyn FileSystem, root: &Path, name: &str) -> Result<Option<outputs::Left>, ()> {
    match fs.metadata_beneath(root, &Path::new(GENERATED_DIR).join(name)) {
        Ok(m) if m.kind == FileKind::File => Ok(Some(outputs::Left { len: m.len, stamp: m.stamp })),
        Err(e) if e.kind == FsErrorKind::NotFound => Ok(None),
        _ => Err(()),
    }
}

/// The checksum that ends `.generated/manifest.bin` (of everything before it).
fn manifest_checksum(fs: &dyn FileSystem, root: &Path) -> Option<u64> {
    let (file, meta) = fs.open_beneath(root, &Path::new(GENERATED_DIR).join(MANIFEST_FILE)).ok()?;
    let mut sum = [0; 8];
    file.read_exact_at(&mut sum, meta.len.checked_sub(8)?).ok()?;
    Some(u64::from_le_bytes(sum))
}

/// What this run leaves in `.generated/`, for the next run to compare with; `None` when a file
/// is neither a regular file nor absent.
fn left_outputs(fs: &dyn FileSystem, root: &Path, nodes: usize, diagnostics_sha256: [u8; 32]) -> Option<Outputs> {
    let files =
        KEPT.iter().map(|&name| Some((name.to_owned(), left_now(fs, root, name).ok()?))).collect::<Option<_>>()?;
    let manifest_checksum = manifest_checksum(fs, root)?;
    Some(Outputs { nodes: nodes as u64, diagnostics_sha256, manifest_checksum, files })
}

/// The last run's list of what it left in `.generated/`, when every file on it is still as it
/// was left (same length and stamp, or still absent).
///
/// The caches are not synced: after a crash one may hold zeros where its bytes were, with its
/// stamp intact (XFS does that). The server and the next run ignore such a cache by its
/// checksum, but a run that kept it would leave the server without its sidecar until a record
/// changed, so the sidecar's header must still name the JSON beside it (its 56-byte header read).
fn kept_outputs(fs: &dyn FileSystem, root: &Path) -> Option<Outputs> {
    let generated = Path::new(GENERATED_DIR);
    let (bytes, _) = fs.read_beneath(root, &generated.join(OUTPUTS_FILE), 64 * 1024).ok()?;
    let listed = outputs::decode(&bytes)?;
    let names_kept = listed.files.iter().map(|(name, _)| name.as_str()).eq(KEPT);
    let as_left = || listed.files.iter().all(|(name, left)| left_now(fs, root, name) == Ok(*left));
    let sidecar_names_the_json = || {
        let (_, json) = listed.files.iter().find(|(name, _)| name == SEARCH_INDEX_FILE)?;
        let json = (*json)?;
        let (file, _) = fs.open_beneath(root, &generated.join(SEARCH_SIDECAR_FILE)).ok()?;
        let mut header = [0; domain::graph::sidecar::HEADER_LEN];
        file.read_exact_at(&mut header, 0).ok()?;
        let named = domain::graph::sidecar::source(&header).ok()?;
        (named.json_len == json.len && named.json_stamp == json.stamp).then_some(())
    };
    let same_manifest = || manifest_checksum(fs, root) == Some(listed.manifest_checksum);
    (names_kept && as_left() && same_manifest() && sidecar_names_the_json().is_some()).then_some(listed)
}

/// Fails when a folder holds the name of an output of `graph index` (`graph.json`,
/// `search-index.json`, `diagnostics.json`): checked before the records are read, so that
/// such a run fails in a moment, naming the folder, rather than after reading every record
/// with "is a directory". A folder made later still fails the set, which changes nothing.
fn outputs_free(fs: &dyn FileSystem, root: &Path) -> Result<(), GraphError> {
    let generated = root.join(GENERATED_DIR);
    for name in [GRAPH_FILE, SEARCH_INDEX_FILE, DIAGNOSTICS_FILE] {
        let path = generated.join(name);
        if fs.symlink_metadata(&path).is_ok_and(|m| m.kind == FileKind::Dir) {
            return Err(GraphError::OutputIsFolder(path));
        }
    }
    Ok(())
}

/// Those of the cache files `names` (in `.generated/`) whose name no folder holds; each that
/// one does is named in a warning.
fn caches_free<'n>(generated: &dyn HeldDir, names: &[&'n Path]) -> Vec<&'n Path> {
    let folders: Vec<std::ffi::OsString> = generated
        .read_dir()
        .map(|entries| entries.into_iter().filter(|e| e.kind == FileKind::Dir).map(|e| e.name).collect())
        .unwrap_or_default();
    let (free, taken): (Vec<&Path>, Vec<&Path>) =
        names.iter().partition(|name| !folders.iter().any(|f| f.as_os_str() == name.as_os_str()));
    for name in taken {
        tracing::warn!(
            "{} is a folder, so that cache is not written (the index is, a little slower); remove the folder",
            generated.path().join(name).display()
        );
    }
    free
}

/// Removes the temporaries and kept names that an index run killed while writing (Ctrl-C, a
/// full disk's OOM killer) left in `.generated/`: at 100,000 records they are hundreds of MB,
/// and each interrupted run would add more. Only while this run holds the root's lock: every
/// writer of `.generated/` is an index run, so none of them is under way.
fn remove_leftovers(generated: &dyn HeldDir) {
    let Ok(entries) = generated.read_dir() else { return };
    let leftovers = entries.iter().filter(|e| e.kind == FileKind::File && ports::fs::is_set_leftover(&e.name));
    let removed = leftovers.filter(|e| generated.remove_file(&e.name).is_ok()).count();
    if removed > 0 {
        let at = generated.path().display();
        tracing::info!("removed {removed} temporary file(s) that an interrupted run left in {at}");
    }
}

/// An exclusive lock on the graph's root for one index run. Indexers of one graph take turns
/// (`graph index` beside `mcp --watch`, or two of either): two runs at once would interleave
/// their writes of `.generated/`, one run's `graph.json` beside the other's search index. Where
/// the filesystem cannot lock, the run goes on without (a missing root is reported by the read).
fn take_turn(fs: &dyn FileSystem, root: &Path, progress: &dyn Progress) -> Option<ports::fs::DirLock> {
    // A server asking whether an index is under way (`dir_locked`) holds the lock for an
    // instant: a few quick tries tell that from another index, before saying it waits.
    let mut tries = 0;
    let waited = loop {
        match fs.lock_dir(root, false) {
            Ok(Some(lock)) => return Some(lock),
            Ok(None) if tries < 5 => {
                tries += 1;
                std::thread::sleep(Duration::from_millis(2));
            }
            Ok(None) => {
                progress.waiting(root);
                break fs.lock_dir(root, true);
            }
            Err(e) => break Err(e),
        }
    };
    waited.unwrap_or_else(|e| {
        tracing::debug!("indexing {} without a lock: {e}", root.display());
        None
    })
}

/// The search sidecar's parts, built from the documents of a `search-index.json` as they were
/// written (their strings left in the plan they came from, which it holds), and what names
/// that JSON.
pub struct Unfinished<'p> {
    written: Written<'p>,
    builder: SidecarBuilder,
    /// Documents copied from the previous JSON.
    pub copied: usize,
}

/// A `search-index.json` as written: the plan its documents came from, its length and
/// [`checksum`](domain::graph::sidecar::checksum), and where each document lies in it (start and length, from its `{` to its `}`).
struct Written<'p> {
    plan: &'p Plan<'p>,
    json_len: u64,
    json_sum: u64,
    spans: Vec<(u64, u64)>,
}

impl<'p> Unfinished<'p> {
    /// The `search-index.json` written, by length and checksum.
    pub fn json_piece(&self) -> set::Piece {
        set::Piece { len: self.written.json_len, sum: self.written.json_sum }
    }

    /// Lays the sidecar out (its postings in their final order), reading the documents'
    /// strings from the plan again: document `i` of the builder is node `i` of the plan.
    pub fn lay_out(self) -> LaidOut<'p> {
        let Unfinished { written, builder, .. } = self;
        let plan = written.plan;
        let layout = builder.layout(&|i: usize, f: usize| plan.view(i).strings()[f].as_bytes());
        LaidOut { written, layout }
    }
}

/// A sidecar laid out, waiting for the stamp of its JSON once in place.
pub struct LaidOut<'p> {
    written: Written<'p>,
    layout: SidecarLayout,
}

impl<'p> LaidOut<'p> {
    /// What writes the sidecar, and what writes the span file ([`spans`]), both naming their
    /// JSON by `json_stamp` too. `seen` describes the records the plan was made from, in their
    /// order: a node whose record has no digest (none has, in a valid graph) is left out of
    /// the span file, so never copied.
    #[allow(clippy::type_complexity)]
    pub fn writers<'a>(
        self,
        json_stamp: u128,
        seen: &'a [Option<Seen>],
    ) -> (impl Fn(&mut dyn Write) -> std::io::Result<()> + 'a, impl Fn(&mut dyn Write) -> std::io::Result<()> + 'a)
    where
        'p: 'a,
    {
        let LaidOut { written: Written { plan, json_len, json_sum, spans }, layout } = self;
        let strings = move |i: usize, f: usize| plan.view(i).strings()[f].as_bytes();
        let json = SidecarSource { json_len, json_sum, json_stamp };
        let sidecar = move |out: &mut dyn Write| layout.write(json, &strings, out);
        let digest = move |i: usize| seen.get(plan.records[i]).and_then(Option::as_ref).map(|s| &s.sha256);
        let span_file = move |out: &mut dyn Write| {
            let listed = (0..spans.len()).filter(|&i| digest(i).is_some());
            let entries = listed.clone().filter_map(|i| {
                let (start, len) = spans[i];
                Some(spans::Span { path: &plan.graph.nodes[i].path, sha256: digest(i)?, start, len })
            });
            spans::write(spans::Json { len: json_len, stamp: json_stamp }, listed.count(), entries, out)
        };
        (sidecar, span_file)
    }
}

/// Writes `search-index.json` for the plan: documents rendered in batches on every core and
/// written in id order as they come, so at most a few batches are held at once. Returns the
/// search sidecar's parts, built from the same documents, naming the bytes written.
///
/// With a [`Splice`], the documents of unchanged records are copied from the JSON in place
/// rather than rendered (their terms read from the copy), in runs that lie one after another
/// there; a copy that does not read as its node's document is rendered instead.
pub fn write_search_index<'p>(
    plan: &'p Plan<'p>,
    splice: Option<&Splice>,
    out: &mut dyn Write,
) -> std::io::Result<Unfinished<'p>> {
    stream_search_index(plan, splice, out, true)
}

/// The bytes of [`write_search_index`], rendered the same way, without the sidecar's work:
/// for `doctor`, which compares them with the file on disk.
pub fn write_search_json(plan: &Plan<'_>, out: &mut dyn Write) -> std::io::Result<()> {
    stream_search_index(plan, None, out, false).map(drop)
}

/// [`write_search_index`]; with `sidecar` false, no term is prepared or interned for a sidecar
/// and the builder returned is empty.
fn stream_search_index<'p>(
    plan: &'p Plan<'p>,
    splice: Option<&Splice>,
    out: &mut dyn Write,
    sidecar: bool,
) -> std::io::Result<Unfinished<'p>> {
    use std::sync::mpsc;
    const BATCH: usize = 256;
    let n = plan.graph.nodes.len();
    let mut out = Summing { out, sum: Checksum::default() };
    let mut head = Vec::new();
    index::write_search_head(&mut head, n == 0);
    out.write_all(&head)?;
    let batches = n.div_ceil(BATCH);
    let next = AtomicUsize::new(0);
    // Renderers stay at most WINDOW batches ahead of the writer (`due`), so the batches held
    // waiting for an earlier one are bounded; `stop` releases them when the writer fails.
    const WINDOW: usize = 8;
    let due_shared = AtomicUsize::new(0);
    let stop = std::sync::atomic::AtomicBool::new(false);
    // Written buffers, and the sidecar's prepared runs once pushed, go back to the renderers,
    // which reuse them (no fresh pages per batch).
    let (give_back, pool) = mpsc::channel::<Vec<u8>>();
    let pool = Mutex::new(pool);
    let (give_back_prepared, prepared_pool) = mpsc::channel::<Prepared>();
    let prepared_pool = Mutex::new(prepared_pool);
    let copied = AtomicUsize::new(0);
    let mut spans: Vec<(u64, u64)> = Vec::with_capacity(n);
    let sidecar = std::thread::scope(|s| {
        let workers = threads().min(batches);
        let (tx, rx) = mpsc::sync_channel::<(usize, Vec<u8>, Prepared, Placed)>(workers * 2);
        for _ in 0..workers {
            let (tx, next, pool, prepared_pool, due_shared, stop, copied) =
                (tx.clone(), &next, &pool, &prepared_pool, &due_shared, &stop, &copied);
            s.spawn(move || {
                let mut terms = index::TermCounts::default();
                let mut scratch = Vec::new();
                loop {
                    let b = next.fetch_add(1, Ordering::Relaxed);
                    if b >= batches {
                        return;
                    }
                    while b >= due_shared.load(Ordering::Acquire) + WINDOW {
                        if stop.load(Ordering::Acquire) {
                            return;
                        }
                        std::thread::sleep(std::time::Duration::from_micros(100));
                    }
                    let reused = pool.lock().unwrap_or_else(|p| p.into_inner()).try_recv();
                    let mut buf = reused.unwrap_or_else(|_| Vec::with_capacity(BATCH * 3 * 1024));
                    buf.clear();
                    // Each document's share of the sidecar's work is done here too, in parallel,
                    // from the terms just counted; the builder reads the rest from the plan.
                    let reused = prepared_pool.lock().unwrap_or_else(|p| p.into_inner()).try_recv();
                    let mut prepared = reused.unwrap_or_default();
                    prepared.clear();
                    let mut placed = Vec::with_capacity(BATCH);
                    let mut batch = Filling {
                        buf: &mut buf,
                        terms: &mut terms,
                        prepared: sidecar.then_some(&mut prepared),
                        placed: &mut placed,
                        scratch: &mut scratch,
                    };
                    let end = ((b + 1) * BATCH).min(n);
                    let mut i = b * BATCH;
                    while i < end {
                        let k = splice.map_or(0, |sp| batch.copy_run(plan, sp, i, end));
                        if k > 0 {
                            copied.fetch_add(k, Ordering::Relaxed);
                            i += k;
                        } else {
                            batch.render(plan, i);
                            i += 1;
                        }
                    }
                    if tx.send((b, buf, prepared, placed)).is_err() {
                        return; // the writer failed and stopped listening
                    }
                }
            });
        }
        drop(tx);
        // The sidecar is built on a thread of its own from the documents in written order, so
        // the writer only writes; it interns the terms prepared with each batch (the documents'
        // strings stay in the plan, read again when the sidecar is written).
        let (docs_tx, docs_rx) = mpsc::sync_channel::<(usize, Prepared)>(WINDOW);
        let builder = s.spawn(move || {
            let mut b = if sidecar { SidecarBuilder::borrowing(n) } else { SidecarBuilder::default() };
            let mut pushed = 0;
            for (batch, prepared) in docs_rx.iter().filter(|_| sidecar) {
                let first = batch * BATCH;
                // The sidecar reads document `i`'s strings from node `i`: pushed in order.
                debug_assert_eq!(first, pushed, "batches reach the sidecar in order");
                pushed += prepared.len();
                b.push((first..first + prepared.len()).map(|i| plan.view(i)), &prepared);
                let _ = give_back_prepared.send(prepared);
            }
            b
        });
        // Batches arrive in any order; each is written as soon as all before it are.
        let mut waiting = std::collections::BTreeMap::new();
        let mut due = 0;
        let written = (|| {
            for (b, buf, prepared, placed) in rx {
                waiting.insert(b, (buf, prepared, placed));
                while let Some((buf, prepared, placed)) = waiting.remove(&due) {
                    spans.extend(placed.into_iter().map(|(at, len)| (out.sum.len + at as u64, len)));
                    out.write_all(&buf)?;
                    let _ = give_back.send(buf);
                    let _ = docs_tx.send((due, prepared));
                    due += 1;
                    due_shared.store(due, Ordering::Release);
                }
            }
            Ok::<(), std::io::Error>(())
        })();
        if written.is_err() {
            stop.store(true, Ordering::Release);
        }
        drop(docs_tx);
        written?;
        Ok::<SidecarBuilder, std::io::Error>(builder.join().expect("the sidecar builder panicked"))
    })?;
    let mut tail = Vec::new();
    index::write_search_tail(&mut tail, n == 0);
    out.write_all(&tail)?;
    let copied = copied.into_inner();
    tracing::debug!(documents = n, copied, "graph index: search index written");
    debug_assert_eq!(spans.len(), n, "a span for every document");
    let json = Written { plan, json_len: out.sum.len, json_sum: out.sum.finish(), spans };
    Ok(Unfinished { written: json, builder: sidecar, copied })
}

/// Each document's place in its batch's buffer: start (of its `{`) and length.
type Placed = Vec<(usize, u64)>;

/// A batch of `search-index.json` being made by a worker: its bytes, its documents' terms for
/// the sidecar and where each document lies in the bytes.
struct Filling<'b> {
    buf: &'b mut Vec<u8>,
    terms: &'b mut index::TermCounts,
    /// None when no sidecar is made.
    prepared: Option<&'b mut Prepared>,
    placed: &'b mut Placed,
    scratch: &'b mut Vec<u8>,
}

impl Filling<'_> {
    /// Renders node `i`'s document.
    fn render(&mut self, plan: &Plan<'_>, i: usize) {
        let at = self.buf.len() + index::document_separator(i == 0).len();
        index::write_document(plan, i, i == 0, self.buf, self.terms);
        if let Some(prepared) = self.prepared.as_deref_mut() {
            prepared.add(&plan.view(i), self.terms.iter());
        }
        self.placed.push((at, (self.buf.len() - at) as u64));
    }

    /// Copies the documents of nodes `i..` (before `end`) that lie one after another in the
    /// JSON in place, with one read, and returns how many. None when node `i` has no span or
    /// the read fails; the run stops before a copy that does not read as its node's document
    /// (the caller renders that one).
    fn copy_run(&mut self, plan: &Plan<'_>, splice: &Splice, i: usize, end: usize) -> usize {
        let between = index::document_separator(false).len() as u64;
        let Some((start, len)) = splice.spans[i] else { return 0 };
        let mut stop = start + len;
        let mut j = i + 1;
        while j < end
            && let Some((next, len)) = splice.spans[j]
            && next == stop + between
            && next + len - start <= MAX_RUN_BYTES
        {
            stop = next + len;
            j += 1;
        }
        let before = self.buf.len();
        self.buf.extend_from_slice(index::document_separator(i == 0));
        let at = self.buf.len();
        let Ok(total) = usize::try_from(stop - start) else {
            self.buf.truncate(before);
            return 0;
        };
        self.buf.resize(at + total, 0);
        if splice.json.read_exact_at(&mut self.buf[at..], start).is_err() {
            self.buf.truncate(before);
            return 0;
        }
        for k in i..j {
            let (from, len) = splice.spans[k].unwrap_or_default();
            let doc_at = at + (from - start) as usize;
            let doc = &self.buf[doc_at..doc_at + len as usize];
            if !(index::is_document_of(plan, k, doc, self.scratch) && self.terms.read_rendered(doc)) {
                self.buf.truncate(if k == i { before } else { doc_at - between as usize });
                return k - i;
            }
            if let Some(prepared) = self.prepared.as_deref_mut() {
                prepared.add(&plan.view(k), self.terms.iter());
            }
            self.placed.push((doc_at, len));
        }
        j - i
    }
}

/// A writer that passes bytes on and keeps their count and checksum.
struct Summing<'a> {
    out: &'a mut dyn Write,
    sum: Checksum,
}

impl Write for Summing<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.out.write(buf)?;
        self.sum.update(&buf[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}

/// What `graph init` did, part by part.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct InitReport {
    /// Folders and files that did not exist and were created.
    pub created: Vec<PathBuf>,
    /// Parts that existed and were left as they were.
    pub kept: Vec<PathBuf>,
    /// Starter files replaced (with `--force`), each with the backup of what was there.
    pub replaced: Vec<(PathBuf, PathBuf)>,
}

/// `graph init`: creates whatever is missing of the layout (the root, the record folders,
/// `VITAEGRAPH.md`, `index.md`), owner-only, and never replaces anything: with `force` the two
/// starter files are rewritten, each after a backup of the file that was there
/// (`<name>.vitaecontext-backup-<UTC time>`). Safe to run on a graph full of records.
pub fn init(fs: &dyn FileSystem, clock: &dyn Clock, root: &Path, force: bool) -> Result<InitReport, FsError> {
    let mut report = InitReport::default();
    for dir in std::iter::once(root.to_path_buf())
        .chain(RecordType::directories().chain([GENERATED_DIR]).map(|d| root.join(d)))
    {
        match fs.metadata(&dir) {
            Ok(_) => report.kept.push(dir),
            Err(e) if e.kind == FsErrorKind::NotFound => {
                fs.create_private_dir_all(&dir)?;
                report.created.push(dir);
            }
            Err(e) => return Err(e),
        }
    }
    for (name, text) in [("VITAEGRAPH.md", VITAEGRAPH_MD), ("index.md", INDEX_MD)] {
        let path = root.join(name);
        match fs.write_new(&path, text.as_bytes()) {
            Ok(()) => report.created.push(path),
            Err(e) if e.kind == FsErrorKind::AlreadyExists && force => {
                // A symlink is left alone: backing it up would copy whatever it leads to
                // (outside the root, maybe) into the graph, and replacing it is not asked for.
                if fs.symlink_metadata(&path)?.kind == ports::fs::FileKind::Symlink {
                    report.kept.push(path);
                    continue;
                }
                let old = fs.read(&path, MAX_RECORD_BYTES)?;
                if old == text.as_bytes() {
                    report.kept.push(path);
                    continue;
                }
                let backup = crate::usecase::write_backup(fs, clock, &path, &old)?;
                fs.write_atomic(&path, text.as_bytes())?;
                report.replaced.push((path, backup));
            }
            Err(e) if e.kind == FsErrorKind::AlreadyExists => report.kept.push(path),
            Err(e) => return Err(e),
        }
    }
    Ok(report)
}

/// `graph add`: writes a new record at its canonical path (folders created owner-only); never
/// replaces a file that is there. Returns the absolute path written.
/// Checks that `record` can join the graph at `root` as it is: its id is no record's, and its
/// parent, if any, is one's. `graph validate` would report either (`duplicate_id`,
/// `missing_parent_reference`), so `graph add` refuses to write such a record. Reads the
/// records as `graph index` does, from its manifest where that vouches for them.
pub fn check_new_record(
    fs: &dyn FileSystem,
    clock: &dyn Clock,
    root: &Path,
    record: &NewRecord,
    progress: &dyn Progress,
) -> Result<(), GraphError> {
    // The records the manifest vouches for are taken from it, as `graph index` takes them: at
    // 100,000 records, parsing every file took 2.3 s warm and 20 s cold for one new record.
    let identity = fs.canonicalize(root).map(|c| c.to_string_lossy().into_owned()).unwrap_or_default();
    let Reading { pages, .. } =
        read(fs, clock, root, progress, Caches::Use, || previous_manifest(fs, root, &identity))?;
    let id_of = |p: &Page| p.id().and_then(domain::graph::frontmatter::FmValue::as_str).map(str::to_owned);
    let id = record.id();
    if let Some(there) = pages.iter().find(|p| id_of(p).as_deref() == Some(id.as_str())) {
        return Err(GraphError::DuplicateId { id, path: there.path.clone() });
    }
    if let Some(parent) = &record.parent
        && !pages.iter().any(|p| id_of(p).as_deref() == Some(parent.as_str()))
    {
        return Err(GraphError::NoParent { parent: parent.clone() });
    }
    Ok(())
}

pub fn add(fs: &dyn FileSystem, root: &Path, record: &NewRecord) -> Result<PathBuf, GraphError> {
    match fs.metadata(root) {
        Ok(m) if m.kind == ports::fs::FileKind::Dir => {}
        Ok(_) => return Err(GraphError::NotADir(root.to_path_buf())),
        Err(e) if e.kind == FsErrorKind::NotFound => return Err(GraphError::NoRoot(root.to_path_buf())),
        Err(e) => return Err(e.into()),
    }
    let path = root.join(record.path());
    let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else {
        return Err(FsError::new(FsErrorKind::InvalidPath, &path, "not a record path").into());
    };
    plain_folders(fs, root, dir)?;
    // Every record path has a folder (`projects/<slug>/project.md`, `awards/<slug>.md`). The
    // one just below the root is made by its path (a symlink put there is not followed by
    // `mkdir`); each deeper one, and the record, through a handle on its parent reached from
    // the root with no symlink followed: a folder swapped for a symlink after the check fails
    // that open, so nothing is made or written on the other side.
    let relative = dir.strip_prefix(root).unwrap_or(dir);
    let mut names = relative.iter();
    let first = names.next().ok_or_else(|| FsError::new(FsErrorKind::InvalidPath, &path, "not a record path"))?;
    fs.create_private_dir_all(&root.join(first))?;
    let mut made = PathBuf::from(first);
    for name in names {
        fs.open_dir_beneath(root, &made)?.create_private_dir(name)?;
        made.push(name);
    }
    fs.open_dir_beneath(root, relative)?.write_new(name, record.text().as_bytes())?;
    Ok(path)
}

pub const VITAEGRAPH_MD: &str = "\
# VitaeGraph

This folder is a VitaeGraph: your career as small, linked Markdown records that vitaecontext
validates, indexes and serves to your AI assistant. Keep it private, outside any git repository.

## Records

One file per record, in its folder:

| record | file |
| --- | --- |
| project | `projects/<slug>/project.md` |
| role or position | `experience/<slug>/experience.md` |
| degree | `education/<slug>/education.md` |
| thesis | `education/<slug>/thesis.md` |
| course | `education/<slug>/courses/<slug>.md` |
| certification | `certifications/<slug>.md` |
| award | `awards/<slug>.md` |
| publication | `publications/<slug>.md` |

Each record starts with front matter:

```markdown
---
type: project
id: project:my-project
title: My project
visibility: private
parent: experience:my-employer
related_records: [publication:my-paper]
tags: [rust, cli]
---

# My project

What it is, what you did, and the results, with numbers.
```

`id` is `type:slug` in lower case. A course or thesis needs `parent:` set to its education record.

## Indexing

Run `vitaecontext graph validate` to check the records and `vitaecontext graph index` to write
the index in `.generated/` (do not edit those files by hand).
";

pub const INDEX_MD: &str = "\
# Index

The entry page of this VitaeGraph. Link the records you want a person (or an assistant) to find
first, with relative Markdown links to their files; links are checked when the graph is
validated.
";

#[cfg(test)]
mod tests {
    use super::*;
    use fs_memory::MemoryFs;

    /// No progress output.
    struct Quiet;

    impl Progress for Quiet {
        fn update(&self, _: usize, _: usize, _: Duration) {}
    }

    struct FixedClock;

    impl Clock for FixedClock {
        /// A day after the epoch: long after any file the in-memory filesystem writes in a
        /// test (its clock moves a second per write from the epoch), so none is racily clean.
        fn now(&self) -> std::time::SystemTime {
            std::time::UNIX_EPOCH + Duration::from_secs(86_400)
        }
        fn monotonic(&self) -> Duration {
            Duration::ZERO
        }
    }

    fn graph(fs: &MemoryFs, root: &Path) {
        init(fs, &FixedClock, root, false).unwrap();
        fs.create_dir_all(&root.join("projects/a")).unwrap();
        fs.write_atomic(
            &root.join("projects/a/project.md"),
            b"---\ntype: project\nid: project:a\ntitle: A\ntags: [z, b]\n---\n# A\nText 2024.\n",
        )
        .unwrap();
    }

    fn read(fs: &MemoryFs, p: &Path) -> Option<Vec<u8>> {
        fs.read(p, u64::MAX).ok()
    }

    /// A graph copied from elsewhere may hold a `.generated` that is a symlink to another
    /// folder: the index would be written there, and an invalid graph's stale files removed
    /// from it. Refused, with nothing written or removed there; so is a symlink that stays
    /// inside (the manifest is read without following symlinks, so such an index would never
    /// be incremental), a dangling one, and a file in its place.
    #[test]
    fn the_index_is_never_written_through_a_symlink_or_into_a_file() {
        let valid: &[u8] = b"---\ntype: project\nid: project:a\ntitle: A\n---\n";
        let link = |target: &'static str| move |fs: &MemoryFs, at: &Path| fs.symlink(target, at).unwrap();
        let file = |fs: &MemoryFs, at: &Path| fs.write_atomic(at, b"x").unwrap();
        type Make<'a> = &'a dyn Fn(&MemoryFs, &Path);
        let cases: [(&str, Make); 4] = [
            ("outside", &link("/elsewhere")),
            ("inside", &link("index-files")),
            ("dangling", &link("/elsewhere/new")),
            ("a file", &file),
        ];
        for (what, make) in cases {
            let fs = MemoryFs::new();
            let root = Path::new("/g");
            fs.create_dir_all(&root.join("index-files")).unwrap();
            fs.create_dir_all(&root.join("projects/a")).unwrap();
            fs.create_dir_all(Path::new("/elsewhere")).unwrap();
            fs.write_atomic(Path::new("/elsewhere/graph.json"), b"someone else's").unwrap();
            make(&fs, &root.join(GENERATED_DIR));
            // Valid or not, nothing is written: the check comes before the graph is read.
            for next in [valid, b"no front matter"] {
                fs.write_atomic(&root.join("projects/a/project.md"), next).unwrap();
                match index(&fs, &FixedClock, root, &Quiet) {
                    Err(GraphError::NotAPlainFolder { path, .. }) => {
                        assert_eq!(path, root.join(GENERATED_DIR), "{what}")
                    }
                    other => panic!("{what}: {other:?}"),
                }
                let names: Vec<_> = fs.read_dir(Path::new("/elsewhere")).unwrap().into_iter().map(|e| e.name).collect();
                assert_eq!(names, ["graph.json"], "{what}: nothing written or removed there");
                assert_eq!(read(&fs, Path::new("/elsewhere/graph.json")).unwrap(), b"someone else's");
                assert!(fs.read_dir(&root.join("index-files")).unwrap().is_empty(), "{what}: nor inside");
            }
        }
    }

    /// A run killed while it wrote (Ctrl-C at 100,000 records) leaves its temporaries in
    /// `.generated/`; the next run removes them, and nothing else: not a file of another name,
    /// not a folder, not a leftover in a record's folder (no index run writes there).
    #[test]
    fn an_index_removes_what_an_interrupted_run_left_in_generated() {
        let fs = MemoryFs::new();
        let root = Path::new("/g");
        fs.create_dir_all(&root.join("projects/a")).unwrap();
        fs.write_atomic(&root.join("projects/a/project.md"), b"---\ntype: project\nid: project:a\ntitle: A\n---\n")
            .unwrap();
        index(&fs, &FixedClock, root, &Quiet).unwrap();
        let dir = root.join(GENERATED_DIR);
        let names = |dir: &Path| {
            let mut names: Vec<_> =
                fs.read_dir(dir).unwrap().into_iter().map(|e| e.name.into_string().unwrap()).collect();
            names.sort();
            names
        };
        let clean = names(&dir);
        let leftovers = [".vitaecontext-Mw4sWH.tmp", ".vitaecontext-ORpupy.old", ".vitaecontext-17.tmp"];
        let others =
            [".vitaecontext-notes.txt", "vitaecontext-Mw4sWH.tmp", ".vitaecontext-a.b.tmp", ".vitaecontext-.tmp"];
        for name in leftovers.iter().chain(&others) {
            fs.write_atomic(&dir.join(name), b"half a file").unwrap();
        }
        fs.create_dir_all(&dir.join(".vitaecontext-folder.tmp")).unwrap();
        fs.write_atomic(&root.join("projects/a/.vitaecontext-Xy12ab.tmp"), b"not ours to sweep").unwrap();
        index(&fs, &FixedClock, root, &Quiet).unwrap();
        let mut expected: Vec<String> = clean.iter().cloned().chain(others.map(String::from)).collect();
        expected.push(".vitaecontext-folder.tmp".into());
        expected.sort();
        assert_eq!(names(&dir), expected);
        assert!(read(&fs, &root.join("projects/a/.vitaecontext-Xy12ab.tmp")).is_some());
    }

    /// Found in review: `graph init --force` backed up a symlinked `VITAEGRAPH.md` by copying
    /// what it led to (outside the root) into the graph, then replaced the link. A symlinked
    /// starter file is now kept as it is.
    #[test]
    fn init_force_leaves_a_symlinked_starter_file_alone() {
        let fs = MemoryFs::new();
        let root = Path::new("/g");
        fs.create_dir_all(root).unwrap();
        fs.create_dir_all(Path::new("/elsewhere")).unwrap();
        fs.write_atomic(Path::new("/elsewhere/secret.md"), b"not the graph's").unwrap();
        fs.symlink("/elsewhere/secret.md", &root.join("VITAEGRAPH.md")).unwrap();
        let report = init(&fs, &FixedClock, root, true).unwrap();
        assert!(report.kept.contains(&root.join("VITAEGRAPH.md")), "{report:?}");
        assert!(report.replaced.is_empty(), "{report:?}");
        assert_eq!(fs.symlink_metadata(&root.join("VITAEGRAPH.md")).unwrap().kind, ports::fs::FileKind::Symlink);
        let names: Vec<_> =
            fs.read_dir(root).unwrap().into_iter().map(|e| e.name.to_string_lossy().into_owned()).collect();
        assert!(!names.iter().any(|n| n.contains("backup")), "no copy of the target: {names:?}");
        assert_eq!(read(&fs, Path::new("/elsewhere/secret.md")).unwrap(), b"not the graph's");
    }

    #[test]
    fn a_record_is_never_added_through_a_symlink() {
        use domain::graph::new_record::NewRecord;
        for target in ["/elsewhere", "inside", "/nowhere"] {
            let fs = MemoryFs::new();
            let root = Path::new("/g");
            fs.create_dir_all(&root.join("inside")).unwrap();
            fs.create_dir_all(Path::new("/elsewhere")).unwrap();
            fs.symlink(target, &root.join("projects")).unwrap();
            let record = NewRecord::new(RecordType::Project, "evil", None, None, &[]).unwrap();
            match add(&fs, root, &record) {
                Err(GraphError::NotAPlainFolder { path, why }) => {
                    assert_eq!(path, root.join("projects"));
                    assert!(why.contains(target), "{why}");
                }
                other => panic!("{target}: {other:?}"),
            }
            assert!(fs.read_dir(Path::new("/elsewhere")).unwrap().is_empty(), "nothing created there");
            assert!(fs.read_dir(&root.join("inside")).unwrap().is_empty(), "nor inside");
            let record = NewRecord::new(RecordType::Award, "fine", None, None, &[]).unwrap();
            assert!(add(&fs, root, &record).is_ok(), "other folders are unaffected");
        }
    }

    /// The sidecar and the span file name the stamp the JSON has once the set put it in place
    /// (on a real filesystem too, where the rename changes its change time): with any other, a
    /// server would hash the whole JSON before its first answer, and the next run would copy
    /// no document.
    #[test]
    fn the_caches_name_the_stamp_the_json_has_once_in_place() {
        let check = |fs: &dyn FileSystem, root: &Path| {
            let generated = root.join(GENERATED_DIR);
            let json = fs.metadata(&generated.join(SEARCH_INDEX_FILE)).unwrap();
            let sidecar = fs.read(&generated.join(domain::graph::SEARCH_SIDECAR_FILE), u64::MAX).unwrap();
            let named = domain::graph::sidecar::source(&sidecar).unwrap();
            assert_eq!((named.json_stamp, named.json_len), (json.stamp, json.len));
            assert_ne!(json.stamp, 0);
            assert!(domain::graph::sidecar::decode(sidecar).is_ok(), "the sidecar checks out whole");
            let spans = fs.read(&generated.join(SPANS_FILE), u64::MAX).unwrap();
            // After its magic (16 bytes), parser version (4) and the JSON's length (8).
            assert_eq!(&spans[28..44], &json.stamp.to_le_bytes(), "the span file names it too");
        };
        let memory = MemoryFs::new();
        graph_of(&memory, Path::new("/g"), 5);
        index(&memory, &FixedClock, Path::new("/g"), &Quiet).unwrap();
        check(&memory, Path::new("/g"));
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("g");
        let real = fs_std::StdFs;
        init(&real, &FixedClock, &root, false).unwrap();
        for i in 0..5 {
            let text = format!("---\ntype: project\nid: project:p{i}\ntitle: P{i}\n---\nBody {i}.\n");
            real.create_dir_all(&root.join(format!("projects/p{i}"))).unwrap();
            real.write_atomic(&root.join(format!("projects/p{i}/project.md")), text.as_bytes()).unwrap();
        }
        index(&real, &FixedClock, &root, &Quiet).unwrap();
        check(&real, &root);
        let names: Vec<_> =
            std::fs::read_dir(root.join(GENERATED_DIR)).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names.len(), 8, "no temporary is left: {names:?}");
        let listed = real.read(&root.join(GENERATED_DIR).join(OUTPUTS_FILE), u64::MAX).unwrap();
        let listed = outputs::decode(&listed).expect("the list of what was left decodes");
        let json = real.metadata(&root.join(GENERATED_DIR).join(SEARCH_INDEX_FILE)).unwrap();
        assert!(
            listed
                .files
                .contains(&(SEARCH_INDEX_FILE.into(), Some(outputs::Left { len: json.len, stamp: json.stamp })))
        );
        assert!(
            !index(&real, &FixedClock, &root, &Quiet).unwrap().written,
            "a rerun on a real filesystem keeps it all"
        );
    }

    /// The sidecar `graph index` streams (documents pushed batch by batch from the render
    /// threads, strings read back from the plan) is the one built from the documents as
    /// values, over several batches and a partial last one.
    #[test]
    fn the_streamed_sidecar_is_the_one_built_from_the_documents() {
        let records: Vec<Record> = (0..600)
            .map(|i| {
                let text = format!(
                    "---\nid: project:p{i:03}\ntype: project\ntitle: Project {i} build-cache\ntags: [rust, t{}]\n---\n# P{i}\n\nWorked on node.js {} and Ünïcode.\n",
                    i % 7,
                    "latency ".repeat(i % 5)
                );
                Record::parse(&format!("projects/p{i:03}/project.md"), &text)
            })
            .collect();
        let plan = Plan::new(&records);
        let mut json = Vec::new();
        let write = write_search_index(&plan, None, &mut json).unwrap().lay_out().writers(42, &[]).0;
        let mut streamed = Vec::new();
        write(&mut streamed).unwrap();
        let mut reference = SidecarBuilder::default();
        for i in 0..plan.graph.nodes.len() {
            reference.add(&plan.document(i));
        }
        let json_sum = domain::graph::sidecar::checksum(&json);
        let reference = reference.finish(SidecarSource { json_len: json.len() as u64, json_sum, json_stamp: 42 });
        assert_eq!(plan.graph.nodes.len(), 600);
        assert!(streamed == reference, "the streamed sidecar differs from the reference");
    }

    #[test]
    fn reruns_are_byte_identical() {
        let fs = MemoryFs::new();
        let root = Path::new("/g");
        graph(&fs, root);
        index(&fs, &FixedClock, root, &Quiet).unwrap();
        let first: Vec<_> = [GRAPH_FILE, SEARCH_INDEX_FILE, DIAGNOSTICS_FILE]
            .iter()
            .map(|f| read(&fs, &root.join(GENERATED_DIR).join(f)).unwrap())
            .collect();
        index(&fs, &FixedClock, root, &Quiet).unwrap();
        for (f, before) in [GRAPH_FILE, SEARCH_INDEX_FILE, DIAGNOSTICS_FILE].iter().zip(&first) {
            assert_eq!(&read(&fs, &root.join(GENERATED_DIR).join(f)).unwrap(), before, "{f}");
        }
        assert!(String::from_utf8_lossy(&first[0]).ends_with("}\n"));
    }

    #[test]
    fn a_failing_write_leaves_the_old_index_intact() {
        let fs = MemoryFs::new();
        let root = Path::new("/g");
        graph(&fs, root);
        index(&fs, &FixedClock, root, &Quiet).unwrap();
        let search = root.join(GENERATED_DIR).join(SEARCH_INDEX_FILE);
        let old = read(&fs, &search).unwrap();
        fs.write_atomic(
            &root.join("projects/a/project.md"),
            b"---\ntype: project\nid: project:a\ntitle: Changed\n---\n",
        )
        .unwrap();
        let before = generated_state(&fs, root);
        fs.fail_writes_to(&search);
        assert!(index(&fs, &FixedClock, root, &Quiet).is_err(), "a full disk is reported");
        assert_eq!(read(&fs, &search).unwrap(), old, "the old search index is whole, not torn");
        assert_eq!(generated_state(&fs, root), before, "no new graph beside the old search index");
        fs.heal_writes_to(&search);
        index(&fs, &FixedClock, root, &Quiet).unwrap();
        assert!(String::from_utf8_lossy(&read(&fs, &search).unwrap()).contains("Changed"));
    }

    /// The generated files (absent ones as `None`; the manifest aside), and every name in
    /// `.generated/` that is neither one of them nor the manifest.
    fn generated_state(fs: &MemoryFs, root: &Path) -> (Vec<Option<Vec<u8>>>, Vec<String>) {
        let dir = root.join(GENERATED_DIR);
        let files = GENERATED_FILES.iter().map(|f| read(fs, &dir.join(f))).collect();
        let others = fs
            .read_dir(&dir)
            .unwrap()
            .into_iter()
            .map(|e| e.name.to_string_lossy().into_owned())
            .filter(|n| !WRITTEN.contains(&n.as_str()))
            .collect();
        (files, others)
    }

    /// Every file `index` writes: the set, the generation marker, the sidecar and span file
    /// after it, the list of what it left after them, and the manifest apart.
    const WRITTEN: [&str; 8] = [
        GRAPH_FILE,
        SEARCH_INDEX_FILE,
        SEARCH_SIDECAR_FILE,
        DIAGNOSTICS_FILE,
        MANIFEST_FILE,
        SPANS_FILE,
        OUTPUTS_FILE,
        set::SET_FILE,
    ];

    /// Regression: on a nearly full disk the new graph.json landed beside the old search index
    /// and diagnostics, and the server served records that search could not find. Every step
    /// of the set write, failing for any of the three files, from a valid index to a changed
    /// valid graph and to an invalid one, must leave the previous three files byte-identical
    /// and no temporary behind.
    #[test]
    fn a_failure_at_any_step_leaves_the_previous_set_whole() {
        use fs_memory::SetStep;
        let changed: &[u8] = b"---\ntype: project\nid: project:a\ntitle: Changed\n---\n";
        for next in [changed, b"no front matter"] {
            for step in SetStep::ALL {
                for file in WRITTEN {
                    let fs = MemoryFs::new();
                    let root = Path::new("/g");
                    graph(&fs, root);
                    index(&fs, &FixedClock, root, &Quiet).unwrap();
                    let before = generated_state(&fs, root);
                    assert!(before.0.iter().all(Option::is_some) && before.1.is_empty());
                    let manifest_path = root.join(GENERATED_DIR).join(MANIFEST_FILE);
                    let manifest_before = read(&fs, &manifest_path).expect("a manifest");
                    fs.write_atomic(&root.join("projects/a/project.md"), next).unwrap();
                    let target = root.join(GENERATED_DIR).join(file);
                    fs.fail_set_step(step, &target);
                    let failed = index(&fs, &FixedClock, root, &Quiet).is_err();
                    let after = generated_state(&fs, root);
                    if file == MANIFEST_FILE {
                        // A cache written apart: its failure fails nothing and leaves the old one.
                        assert!(!failed, "{step:?} on the manifest: the index is written all the same");
                        assert_eq!(after.0[0].is_some(), next == changed, "{step:?}: the new set landed");
                        assert!(after.1.is_empty(), "{step:?}: no temporary behind: {:?}", after.1);
                        let manifest_after = read(&fs, &manifest_path);
                        assert_eq!(
                            manifest_after.as_ref(),
                            Some(&manifest_before),
                            "{step:?}: the old manifest is whole"
                        );
                        fs.heal_set_steps();
                        continue;
                    }
                    // An invalid graph writes no graph or search index: there is no temporary
                    // to fail for them, only their kept names and their removal. The set only
                    // removes the sidecar, the span file and the list of what was left
                    // (written after the set), likewise.
                    let after_the_set = [SEARCH_SIDECAR_FILE, SPANS_FILE, OUTPUTS_FILE].contains(&file);
                    // The marker is written on its own once the set is in place: failing it
                    // fails nothing (the server then compares the files' contents).
                    let reaches = file != set::SET_FILE
                        && ((next == changed && !after_the_set)
                            || file == DIAGNOSTICS_FILE
                            || matches!(step, SetStep::Keep | SetStep::Apply));
                    assert_eq!(failed, reaches, "{step:?} on {file}: the failure is reported");
                    if reaches {
                        assert_eq!(after, before, "{step:?} on {file}: the previous set is untouched");
                    }
                    fs.heal_set_steps();
                    index(&fs, &FixedClock, root, &Quiet).unwrap();
                    let healed = generated_state(&fs, root);
                    assert!(healed.1.is_empty(), "no temporary behind: {:?}", healed.1);
                    assert_eq!(healed.0[0].is_some(), next == changed, "graph.json matches the graph's validity");
                }
            }
        }
    }

    /// The generation marker names the pair each run put in place, and only once it is in
    /// place: a run whose set failed leaves the marker naming the pair still there.
    #[test]
    fn the_marker_names_the_pair_in_place() {
        let fs = MemoryFs::new();
        let root = Path::new("/g");
        graph(&fs, root);
        let dir = root.join(GENERATED_DIR);
        let verdict = || {
            let marker = read(&fs, &dir.join(set::SET_FILE)).and_then(|b| set::decode(&b));
            let piece = |f: &str| read(&fs, &dir.join(f)).map(|b| set::Piece::of(&b));
            (marker, set::verdict(marker.as_ref(), piece(GRAPH_FILE), piece(SEARCH_INDEX_FILE)))
        };
        index(&fs, &FixedClock, root, &Quiet).unwrap();
        let (first, said) = verdict();
        assert_eq!(said, set::Verdict::OneSet);
        fs.write_atomic(&root.join("projects/a/project.md"), b"---\ntype: project\nid: project:a\ntitle: New\n---\n")
            .unwrap();
        fs.fail_set_step(fs_memory::SetStep::Apply, dir.join(SEARCH_INDEX_FILE));
        assert!(index(&fs, &FixedClock, root, &Quiet).is_err());
        assert_eq!(verdict(), (first, set::Verdict::OneSet), "a failed set leaves the marker as it was");
        fs.heal_set_steps();
        index(&fs, &FixedClock, root, &Quiet).unwrap();
        let (second, said) = verdict();
        assert_eq!(said, set::Verdict::OneSet);
        assert_ne!(second, first);
        fs.write_atomic(&root.join("projects/a/project.md"), b"no front matter").unwrap();
        index(&fs, &FixedClock, root, &Quiet).unwrap();
        assert_eq!(verdict().0, Some(set::Marker { graph: None, search: None }), "an invalid run names no pair");
    }

    #[test]
    fn an_invalid_graph_removes_the_stale_index_and_writes_diagnostics() {
        let fs = MemoryFs::new();
        let root = Path::new("/g");
        graph(&fs, root);
        index(&fs, &FixedClock, root, &Quiet).unwrap();
        fs.write_atomic(&root.join("projects/a/project.md"), b"no front matter").unwrap();
        let done = index(&fs, &FixedClock, root, &Quiet).unwrap();
        assert!(!done.validation.valid);
        assert!(read(&fs, &root.join(GENERATED_DIR).join(GRAPH_FILE)).is_none());
        assert!(read(&fs, &root.join(GENERATED_DIR).join(SEARCH_INDEX_FILE)).is_none());
        let diag = String::from_utf8(read(&fs, &root.join(GENERATED_DIR).join(DIAGNOSTICS_FILE)).unwrap()).unwrap();
        assert!(diag.contains("missing_frontmatter") && diag.contains("\"valid\": false"));
    }

    /// Regression: indexing read records up to 8 MiB while the server served only 4 MiB; one
    /// cap now holds, and a file over it is a finding about that file.
    #[test]
    fn a_record_over_the_cap_is_an_error_about_that_file() {
        let fs = MemoryFs::new();
        let root = Path::new("/g");
        graph(&fs, root);
        index(&fs, &FixedClock, root, &Quiet).unwrap();
        let mut big = b"---\ntype: project\nid: project:big\ntitle: Big\n---\n".to_vec();
        big.resize(usize::try_from(MAX_RECORD_BYTES).unwrap() + 1, b'x');
        fs.create_dir_all(&root.join("projects/big")).unwrap();
        fs.write_atomic(&root.join("projects/big/project.md"), &big).unwrap();
        let done = index(&fs, &FixedClock, root, &Quiet).unwrap();
        assert!(!done.validation.valid);
        let codes: Vec<(&str, &str)> =
            done.validation.errors.iter().map(|d| (d.code.as_str(), d.path.as_str())).collect();
        assert_eq!(codes, [("record_too_large", "projects/big/project.md")]);
        assert!(read(&fs, &root.join(GENERATED_DIR).join(GRAPH_FILE)).is_none());
        let diag = String::from_utf8(read(&fs, &root.join(GENERATED_DIR).join(DIAGNOSTICS_FILE)).unwrap()).unwrap();
        assert!(diag.contains("\"code\": \"record_too_large\"") && diag.contains("\"records\": 1"), "{diag}");
        big.truncate(usize::try_from(MAX_RECORD_BYTES).unwrap());
        fs.write_atomic(&root.join("projects/big/project.md"), &big).unwrap();
        assert!(index(&fs, &FixedClock, root, &Quiet).unwrap().validation.valid, "exactly the cap is accepted");
    }

    /// The generated files and the span file, the JSON's stamp in the sidecar and the span
    /// file zeroed (with the checksums that cover it): it names the file the run wrote (another
    /// on every run and filesystem); every other byte must be the same.
    fn generated(fs: &MemoryFs, root: &Path) -> Vec<Option<Vec<u8>>> {
        let read = |f: &&str| {
            let mut bytes = read(fs, &root.join(GENERATED_DIR).join(f))?;
            if *f == SEARCH_SIDECAR_FILE && bytes.len() >= domain::graph::sidecar::HEADER_LEN {
                // The checksum that follows the body sums the stamp too: zeroed with it when
                // it holds, so that a sidecar that does not decode differs from a full run's.
                if domain::graph::sidecar::decode(bytes.clone()).is_ok() {
                    let body = u64::from_le_bytes(bytes[48..56].try_into().unwrap());
                    let sum = domain::graph::sidecar::HEADER_LEN + usize::try_from(body).unwrap();
                    bytes[sum..sum + domain::graph::sidecar::TRAILER_LEN].fill(0);
                }
                bytes[32..48].fill(0);
            }
            if *f == SPANS_FILE && bytes.len() >= 52 {
                bytes[28..44].fill(0);
                let end = bytes.len() - 8;
                bytes[end..].fill(0);
            }
            Some(bytes)
        };
        GENERATED_FILES.iter().chain(&[SPANS_FILE]).map(read).collect()
    }

    /// Record texts the edits choose from: valid records, links, a parent, a duplicate id, one
    /// without front matter, and one over the size cap.
    fn variant(slug: usize, v: usize) -> Vec<u8> {
        let id = format!("project:p{slug}");
        match v {
            0 => format!("---\ntype: project\nid: {id}\ntitle: P{slug}\ntags: [rust, x{v}]\n---\n# P\nRust and Bazel.\n"),
            1 => format!("---\ntype: project\nid: {id}\ntitle: Other {slug}\n---\nSee [a](../p0/project.md).\n"),
            2 => format!("---\ntype: project\nid: {id}\ntitle: Child\nparent: project:p0\nrelated_records: [project:p1]\n---\nText\n"),
            3 => "---\ntype: project\nid: project:p0\ntitle: Same id\n---\n".to_string(),
            4 => "no front matter".to_string(),
            // Variant 0's front matter and another body: the same id, type, title and path.
            5 => format!("---\ntype: project\nid: {id}\ntitle: P{slug}\ntags: [rust, x0]\n---\n# P\nGo and Make.\n"),
            // A link to a file that is not a record: valid only while it is there (`Edit::Asset`).
            6 => format!("---\ntype: project\nid: {id}\ntitle: P{slug}\n---\nSee [the CV](../../cv.pdf).\n"),
            _ => {
                let mut big = format!("---\ntype: project\nid: {id}\ntitle: Big\n---\n").into_bytes();
                big.resize(usize::try_from(MAX_RECORD_BYTES).unwrap() + 1, b'x');
                return big;
            }
        }
        .into_bytes()
    }

    #[derive(Debug, Clone)]
    enum Edit {
        Write(usize, usize),
        Touch(usize),
        Delete(usize),
        DropManifest,
        CorruptManifest,
        DropSpans,
        CorruptSpans,
        /// `search-index.json` rewritten with the same bytes: another stamp.
        TouchJson,
        /// `WRITTEN[file]` removed, or rewritten with the same bytes (another stamp).
        DropGenerated(usize),
        TouchGenerated(usize),
        /// The file that variant 6 links to, created (`true`) or removed: no record changes,
        /// the validation does.
        Asset(bool),
        /// An index run in which one step of writing one file fails (`WRITTEN[file]`,
        /// `SetStep::ALL[step]`): the set fails while the manifest lands, or the reverse.
        FailedRun(usize, usize),
    }

    /// A graph (see [`graph`]) with `records` more records, each in its first variant.
    fn graph_of(fs: &MemoryFs, root: &Path, records: usize) {
        graph(fs, root);
        for slug in 0..records {
            apply(fs, root, &Edit::Write(slug, 0));
        }
    }

    fn apply(fs: &MemoryFs, root: &Path, edit: &Edit) {
        let file = |slug: usize| root.join(format!("projects/p{slug}/project.md"));
        match *edit {
            Edit::Write(slug, v) => {
                fs.create_dir_all(file(slug).parent().unwrap()).unwrap();
                fs.write_atomic(&file(slug), &variant(slug, v)).unwrap();
            }
            Edit::Touch(slug) => {
                if let Some(old) = read(fs, &file(slug)) {
                    fs.write_atomic(&file(slug), &old).unwrap();
                }
            }
            Edit::Delete(slug) => {
                let _ = fs.write_atomic_set(&[Change::Remove(&file(slug))]);
            }
            Edit::FailedRun(file, step) => {
                fs.fail_set_step(fs_memory::SetStep::ALL[step], root.join(GENERATED_DIR).join(WRITTEN[file]));
                let _ = index(fs, &FixedClock, root, &Quiet);
                fs.heal_set_steps();
            }
            Edit::DropManifest => {
                let _ = fs.write_atomic_set(&[Change::Remove(&root.join(GENERATED_DIR).join(MANIFEST_FILE))]);
            }
            Edit::CorruptManifest | Edit::CorruptSpans => {
                let name = if matches!(edit, Edit::CorruptManifest) { MANIFEST_FILE } else { SPANS_FILE };
                let m = root.join(GENERATED_DIR).join(name);
                if let Some(mut bytes) = read(fs, &m) {
                    let at = bytes.len() / 2;
                    bytes[at] ^= 1;
                    fs.write_atomic(&m, &bytes).unwrap();
                }
            }
            Edit::DropSpans => {
                let _ = fs.write_atomic_set(&[Change::Remove(&root.join(GENERATED_DIR).join(SPANS_FILE))]);
            }
            Edit::TouchJson => apply(fs, root, &Edit::TouchGenerated(1)),
            Edit::DropGenerated(k) => {
                let _ = fs.write_atomic_set(&[Change::Remove(&root.join(GENERATED_DIR).join(WRITTEN[k]))]);
            }
            Edit::TouchGenerated(k) => {
                let path = root.join(GENERATED_DIR).join(WRITTEN[k]);
                if let Some(bytes) = read(fs, &path) {
                    fs.write_atomic(&path, &bytes).unwrap();
                }
            }
            Edit::Asset(true) => fs.write_atomic(&root.join("cv.pdf"), b"%PDF").unwrap(),
            Edit::Asset(false) => {
                let _ = fs.write_atomic_set(&[Change::Remove(&root.join("cv.pdf"))]);
            }
        }
    }

    fn edit() -> impl proptest::strategy::Strategy<Value = Edit> {
        use proptest::prelude::*;
        prop_oneof![
            6 => (0usize..5, 0usize..8).prop_map(|(s, v)| Edit::Write(s, v)),
            2 => (0usize..5).prop_map(Edit::Touch),
            2 => (0usize..5).prop_map(Edit::Delete),
            1 => Just(Edit::DropManifest),
            1 => Just(Edit::CorruptManifest),
            1 => Just(Edit::DropSpans),
            1 => Just(Edit::CorruptSpans),
            1 => Just(Edit::TouchJson),
            2 => (0..WRITTEN.len()).prop_map(Edit::DropGenerated),
            2 => (0..WRITTEN.len()).prop_map(Edit::TouchGenerated),
            2 => proptest::bool::ANY.prop_map(Edit::Asset),
            2 => (0..WRITTEN.len(), 0..fs_memory::SetStep::ALL.len()).prop_map(|(f, st)| Edit::FailedRun(f, st)),
        ]
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(48))]
        /// After any sequence of edits, an incremental index (with the manifest and the span
        /// file of the runs before) leaves exactly the bytes a full index (with neither)
        /// writes, whether it writes them or finds them already there (nothing changed). The
        /// in-memory clock moves one second per write, so files both trusted by their stamp
        /// and racily clean occur.
        #[test]
        fn an_incremental_index_equals_a_full_one(edits in proptest::collection::vec(edit(), 1..14)) {
            let clock: &dyn Clock = &FixedClock;
            let (inc, full) = (MemoryFs::new(), MemoryFs::new());
            let root = Path::new("/g");
            for fs in [&inc, &full] {
                graph(fs, root);
                index(fs, clock, root, &Quiet).unwrap();
            }
            for e in &edits {
                apply(&inc, root, e);
                apply(&full, root, e);
                apply(&full, root, &Edit::DropManifest);
                apply(&full, root, &Edit::DropSpans);
                let a = index(&inc, clock, root, &Quiet).unwrap();
                let b = index(&full, clock, root, &Quiet).unwrap();
                proptest::prop_assert_eq!(&a.validation, &b.validation, "after {:?}", e);
                proptest::prop_assert!(generated(&inc, root) == generated(&full, root), "files differ after {:?}", e);
            }
        }
    }

    /// Each file of `.generated/` with its stamp: any write or removal changes this.
    fn stamps(fs: &MemoryFs, root: &Path) -> Vec<(String, u128, u64)> {
        let dir = root.join(GENERATED_DIR);
        let mut all: Vec<_> = fs
            .read_dir(&dir)
            .unwrap()
            .into_iter()
            .map(|e| {
                let m = fs.metadata(&dir.join(&e.name)).unwrap();
                (e.name.to_string_lossy().into_owned(), m.stamp, m.len)
            })
            .collect();
        all.sort();
        all
    }

    /// A rerun with nothing changed writes nothing (at 100,000 records it rewrote 530 MB of
    /// identical files); any output or cache removed or rewritten since (another stamp), or a
    /// record changed, and it writes them all as a full run would.
    #[test]
    fn a_rerun_with_nothing_changed_writes_nothing() {
        let fs = MemoryFs::new();
        let root = Path::new("/g");
        graph_of(&fs, root, 3);
        let first = index(&fs, &FixedClock, root, &Quiet).unwrap();
        assert!(first.written && first.validation.valid);
        let full = generated(&fs, root);
        let before = stamps(&fs, root);
        assert!(before.iter().any(|(name, ..)| name == OUTPUTS_FILE), "{before:?}");
        let again = index(&fs, &FixedClock, root, &Quiet).unwrap();
        assert!(!again.written, "nothing changed: nothing written");
        assert_eq!((again.nodes, again.parsed, &again.validation), (first.nodes, 0, &first.validation));
        assert_eq!(stamps(&fs, root), before, "no file of .generated/ was written or removed");
        for (k, name) in WRITTEN.iter().enumerate() {
            for disturb in [Edit::DropGenerated(k), Edit::TouchGenerated(k)] {
                apply(&fs, root, &disturb);
                let done = index(&fs, &FixedClock, root, &Quiet).unwrap();
                // The list itself, rewritten with the same bytes, still vouches for the rest.
                let same_list = *name == OUTPUTS_FILE && matches!(disturb, Edit::TouchGenerated(_));
                assert_eq!(done.written, !same_list, "{disturb:?} ({name}): written again");
                assert_eq!(generated(&fs, root), full, "{disturb:?} ({name}): as a full run writes");
                let kept = stamps(&fs, root);
                assert!(!index(&fs, &FixedClock, root, &Quiet).unwrap().written, "{disturb:?}: then kept");
                assert_eq!(stamps(&fs, root), kept);
            }
        }
        // A sidecar zero-filled with its stamp kept (a crash, on a filesystem that does that).
        let sidecar = root.join(GENERATED_DIR).join(SEARCH_SIDECAR_FILE);
        let zeros = vec![0; read(&fs, &sidecar).unwrap().len()];
        fs.overwrite_in_the_same_tick(&sidecar, &zeros).unwrap();
        assert!(index(&fs, &FixedClock, root, &Quiet).unwrap().written, "a torn sidecar is made again");
        assert_eq!(generated(&fs, root), full);
        apply(&fs, root, &Edit::Touch(1));
        assert!(!index(&fs, &FixedClock, root, &Quiet).unwrap().written, "a record rewritten with the same bytes");
        assert_eq!(generated(&fs, root), full);
        apply(&fs, root, &Edit::Write(1, 1));
        assert!(index(&fs, &FixedClock, root, &Quiet).unwrap().written, "a record changed");
    }

    /// Regression (found in review, on ext2's one-second times): a run whose set failed still
    /// rewrites the manifest, and the new one can take the old one's inode, length and second,
    /// so its stamp comes back. The list of what was left named the manifest by stamp only, and
    /// every later run kept outputs made from other records.
    #[test]
    fn a_manifest_rewritten_since_with_its_stamp_back_is_not_trusted() {
        let history = |fs: &MemoryFs, root: &Path| {
            graph_of(fs, root, 3);
            index(fs, &FixedClock, root, &Quiet).unwrap();
            // The same length, another title.
            let changed = String::from_utf8(variant(1, 0)).unwrap().replace("title: P1", "title: Q1");
            fs.write_atomic(&root.join("projects/p1/project.md"), changed.as_bytes()).unwrap();
        };
        let root = Path::new("/g");
        let (fs, other) = (MemoryFs::new(), MemoryFs::new());
        history(&fs, root);
        history(&other, root);
        // The manifest of the edited records (the in-memory stamps follow the same writes).
        index(&other, &FixedClock, root, &Quiet).unwrap();
        let manifest_path = root.join(GENERATED_DIR).join(MANIFEST_FILE);
        let edited = read(&other, &manifest_path).unwrap();
        fs.overwrite_in_the_same_tick(&manifest_path, &edited).unwrap();
        let done = index(&fs, &FixedClock, root, &Quiet).unwrap();
        assert_eq!(done.parsed, 0, "the manifest describes the records as they are");
        assert!(done.written, "the outputs were made from other records");
        assert_eq!(generated(&fs, root), generated(&other, root));
    }

    /// A link to a file that is not a record is checked on every run, kept or not: the same
    /// records can make an invalid graph and a valid one again.
    #[test]
    fn a_rerun_checks_links_to_files_that_are_not_records() {
        let fs = MemoryFs::new();
        let root = Path::new("/g");
        graph_of(&fs, root, 2);
        apply(&fs, root, &Edit::Write(1, 6));
        apply(&fs, root, &Edit::Asset(true));
        assert!(index(&fs, &FixedClock, root, &Quiet).unwrap().validation.valid);
        let full = generated(&fs, root);
        assert!(!index(&fs, &FixedClock, root, &Quiet).unwrap().written);
        apply(&fs, root, &Edit::Asset(false));
        let broken = index(&fs, &FixedClock, root, &Quiet).unwrap();
        assert!(broken.written && !broken.validation.valid, "the link is broken now");
        assert!(read(&fs, &root.join(GENERATED_DIR).join(GRAPH_FILE)).is_none());
        assert!(index(&fs, &FixedClock, root, &Quiet).unwrap().written, "an invalid graph is written every run");
        apply(&fs, root, &Edit::Asset(true));
        let mended = index(&fs, &FixedClock, root, &Quiet).unwrap();
        assert!(mended.written && mended.validation.valid);
        assert_eq!(generated(&fs, root), full);
    }

    /// The manifest is written in the order it is searched in (bytes, the walk's), so a run
    /// never sorts it: names that differ by a byte below `/` (`a-b`, `a.b`, a file `b.md` beside
    /// a folder `b`) included.
    #[test]
    fn the_manifest_is_written_in_the_order_it_is_searched_in() {
        let fs = MemoryFs::new();
        let root = Path::new("/g");
        graph(&fs, root);
        for slug in ["a", "a-b", "a.b", "a b", "b", "é"] {
            let dir = root.join("projects").join(slug);
            fs.create_dir_all(&dir).unwrap();
            let id = format!("project:{}", slug.replace(['.', ' '], "-").replace('é', "e"));
            let text = format!("---\ntype: project\nid: {id}x\ntitle: T\n---\nText\n");
            fs.write_atomic(&dir.join("project.md"), text.as_bytes()).unwrap();
        }
        fs.write_atomic(&root.join("projects/b.md"), b"# Notes\n").unwrap();
        // Valid or not (a page in a record folder needs front matter), the files are cached.
        index(&fs, &FixedClock, root, &Quiet).unwrap();
        let bytes = read(&fs, &root.join(GENERATED_DIR).join(MANIFEST_FILE)).expect("a manifest");
        let mut previous = Previous::new(None);
        manifest::decode_from(&mut &bytes[..], bytes.len() as u64, &mut previous).expect("decodes");
        let names: Vec<&str> = (0..previous.entries.len()).map(|i| previous.name(i)).collect();
        assert!(names.contains(&"projects/a-b/project.md") && names.contains(&"projects/b.md"), "{names:?}");
        assert!(previous.is_in_order(), "{names:?}");
    }

    /// A manifest whose entries are out of order (written by hand, or walked elsewhere), one
    /// path twice: every path is still found, the first entry for it kept.
    #[test]
    fn a_manifest_in_any_order_finds_every_path() {
        let seen = |len| Seen { len, stamp: 0, modified_ns: None, sha256: [0; 32] };
        let mut previous = Previous::new(None);
        // One path with a NUL where `a/z.md` has its `/` (no file has one: a crafted manifest).
        for (k, path) in ["b/x.md", "a-c/y.md", "a/z.md", "b/x.md", "a.md", "a\0z.md"].into_iter().enumerate() {
            previous.push(seen(k as u64), Record::parse(path, "# Page\n"));
        }
        let previous = previous.in_order();
        let names: Vec<&str> = (0..previous.entries.len()).map(|i| previous.name(i)).collect();
        assert_eq!(names, ["a\0z.md", "a-c/y.md", "a.md", "a/z.md", "b/x.md"], "in the walk's order, once each");
        for (path, len) in [("a.md", 4), ("a/z.md", 2), ("a-c/y.md", 1), ("b/x.md", 0), ("a\0z.md", 5)] {
            let (s, record) = previous.get(path).expect(path);
            assert_eq!(s.len, len, "{path}");
            assert_eq!(previous.take(path, |_| true).map(|r| r.page.path), Some(path.to_string()));
            assert!(record.lock().unwrap().is_none(), "taken once");
        }
        assert!(previous.get("a").is_none() && previous.get("c.md").is_none() && previous.get("").is_none());
    }

    /// The in-memory clock moves a second per write: three writes elsewhere put the records
    /// written so far more than 2 s before the next manifest, so that none is racily clean
    /// (each is trusted by its stamp).
    fn let_three_seconds_pass(fs: &MemoryFs) {
        for n in 0..3 {
            fs.write_atomic(Path::new("/elsewhere"), &[n]).unwrap();
        }
    }

    /// Editing one record of many parses that record only; the rest come from the manifest.
    #[test]
    fn a_second_run_parses_only_what_changed() {
        let fs = MemoryFs::new();
        let root = Path::new("/g");
        graph_of(&fs, root, 20);
        let_three_seconds_pass(&fs);
        let first = index(&fs, &FixedClock, root, &Quiet).unwrap();
        assert_eq!((first.parsed, first.files), (23, 23), "the first run parses everything");
        let manifest = root.join(GENERATED_DIR).join(MANIFEST_FILE);
        let written = fs.metadata(&manifest).unwrap().stamp;
        let again = index(&fs, &FixedClock, root, &Quiet).unwrap();
        assert_eq!(again.parsed, 0, "nothing changed, nothing parsed");
        assert_eq!(fs.metadata(&manifest).unwrap().stamp, written, "an unchanged manifest is not rewritten");
        apply(&fs, root, &Edit::Write(7, 1));
        apply(&fs, root, &Edit::Touch(8));
        let reads = fs.reads();
        let edited = index(&fs, &FixedClock, root, &Quiet).unwrap();
        assert_eq!(edited.parsed, 1, "one edited record parsed; the touched one is read but not parsed");
        let read = fs.reads() - reads;
        assert_eq!(
            read, 6,
            "the manifest, the span file and the JSON in place, the edited and the touched record, and the new \
             manifest's checksum (for the list of what was left)"
        );
        assert_eq!((edited.nodes, edited.copied), (21, 20), "every document but the edited one is copied");
        let touched = index(&fs, &FixedClock, root, &Quiet).unwrap();
        assert_eq!(touched.copied, 21, "an unchanged graph copies every document");
        // A record added among the others (by id) and one removed: the documents after them
        // are found as well as those before.
        apply(&fs, root, &Edit::Write(20, 0));
        let added = index(&fs, &FixedClock, root, &Quiet).unwrap();
        assert_eq!((added.nodes, added.copied), (22, 21), "every document but the new one is copied");
        apply(&fs, root, &Edit::Delete(5));
        let removed = index(&fs, &FixedClock, root, &Quiet).unwrap();
        assert_eq!((removed.nodes, removed.copied), (21, 21), "every document left is copied");
        apply(&fs, root, &Edit::TouchJson);
        assert_eq!(index(&fs, &FixedClock, root, &Quiet).unwrap().copied, 0, "a JSON touched since is not copied from");
        assert_eq!(index(&fs, &FixedClock, root, &Quiet).unwrap().copied, 21, "the run after copies again");
        apply(&fs, root, &Edit::CorruptSpans);
        assert_eq!(index(&fs, &FixedClock, root, &Quiet).unwrap().copied, 0, "a damaged span file is ignored");
        apply(&fs, root, &Edit::CorruptManifest);
        assert_eq!(index(&fs, &FixedClock, root, &Quiet).unwrap().parsed, 23, "a corrupt manifest is ignored");
    }

    /// A record file written again with the same bytes (an editor's save, a checkout): no
    /// record changed, so no output is written again, only the manifest, which has the file's
    /// new stamp, and the list of outputs that names it. Every output was rewritten before.
    #[test]
    fn a_touched_record_rewrites_the_manifest_alone() {
        let fs = MemoryFs::new();
        let root = Path::new("/g");
        graph_of(&fs, root, 5);
        let_three_seconds_pass(&fs);
        index(&fs, &FixedClock, root, &Quiet).unwrap();
        let reads = fs.reads();
        index(&fs, &FixedClock, root, &Quiet).unwrap();
        let nothing_read = fs.reads() - reads;
        let stamps = |names: &[&str]| -> Vec<u128> {
            names.iter().map(|n| fs.metadata(&root.join(GENERATED_DIR).join(n)).unwrap().stamp).collect()
        };
        let outputs = [GRAPH_FILE, SEARCH_INDEX_FILE, DIAGNOSTICS_FILE, SEARCH_SIDECAR_FILE, SPANS_FILE];
        let caches = [MANIFEST_FILE, OUTPUTS_FILE];
        let (made, listed) = (stamps(&outputs), stamps(&caches));
        apply(&fs, root, &Edit::Touch(2));
        let_three_seconds_pass(&fs);
        let touched = index(&fs, &FixedClock, root, &Quiet).unwrap();
        assert_eq!((touched.parsed, touched.written), (0, false), "read, found as it was");
        assert_eq!(stamps(&outputs), made, "no output is written again");
        let relisted = stamps(&caches);
        assert!(relisted.iter().zip(&listed).all(|(now, before)| now != before), "the manifest and its list are");
        let reads = fs.reads();
        let again = index(&fs, &FixedClock, root, &Quiet).unwrap();
        assert_eq!((again.parsed, again.written), (0, false));
        assert_eq!(fs.reads() - reads, nothing_read, "no record is read: the reads of a run with nothing changed");
        assert_eq!(stamps(&caches), relisted, "the record is trusted by its new stamp: nothing is written");
    }

    /// Found in review: a manifest that vouches for a record the file no longer holds (edited
    /// by hand, or on a filesystem whose file times do not follow the content) is trusted by
    /// every rerun, which then writes nothing; `doctor` finds the index stale and says to run
    /// `graph index`. `--full` reads no cache, so it writes what the records hold.
    #[test]
    fn a_full_run_trusts_no_cache() {
        let fs = MemoryFs::new();
        let root = Path::new("/g");
        graph_of(&fs, root, 3);
        let_three_seconds_pass(&fs);
        index(&fs, &FixedClock, root, &Quiet).unwrap();
        let truth = generated(&fs, root);
        // The manifest says p1 holds another title; its file is as it was.
        let manifest_path = root.join(GENERATED_DIR).join(MANIFEST_FILE);
        let mut m = manifest::decode(&read(&fs, &manifest_path).unwrap()).unwrap();
        let (_, record) = m.entries.iter_mut().find(|(_, r)| r.page.path == "projects/p1/project.md").unwrap();
        let forged = String::from_utf8(variant(1, 0)).unwrap().replace("title: P1", "title: Forged");
        *record = Record::parse("projects/p1/project.md", &forged);
        let bytes = manifest::encode(&m.root, m.entries.iter().map(|(s, r)| (s, &r.page, r.text.as_str())));
        fs.write_atomic(&manifest_path, &bytes).unwrap();
        let trusted = index(&fs, &FixedClock, root, &Quiet).unwrap();
        assert_eq!(trusted.parsed, 0, "the manifest vouches for every record");
        let graph = read(&fs, &root.join(GENERATED_DIR).join(GRAPH_FILE)).unwrap();
        assert!(String::from_utf8(graph).unwrap().contains("Forged"), "the rerun served what the manifest said");

        let full = index_with(&fs, &FixedClock, root, &Quiet, Caches::Ignore).unwrap();
        assert_eq!(
            (full.parsed, full.copied, full.written),
            (6, 0, true),
            "every file parsed, every document rendered"
        );
        assert_eq!(generated(&fs, root), truth, "what the records hold");
        let again = index(&fs, &FixedClock, root, &Quiet).unwrap();
        assert_eq!((again.parsed, again.written), (0, false), "the caches written anew vouch for the records");
        assert_eq!(generated(&fs, root), truth);
    }

    /// Found in review: a folder at a cache's name (the span file, the search sidecar) failed
    /// every run with "is a directory", leaving the index stale. A cache is never worth a run:
    /// the folder is left alone, that cache is not written, and the index is, valid or not.
    #[test]
    fn a_folder_at_a_cache_name_fails_no_run() {
        let fs = MemoryFs::new();
        let root = Path::new("/g");
        graph_of(&fs, root, 3);
        index(&fs, &FixedClock, root, &Quiet).unwrap();
        let generated = root.join(GENERATED_DIR);
        for cache in [SPANS_FILE, SEARCH_SIDECAR_FILE] {
            fs.write_atomic_set(&[Change::Remove(&generated.join(cache))]).unwrap();
            fs.create_dir_all(&generated.join(cache)).unwrap();
        }
        apply(&fs, root, &Edit::Write(1, 5));
        let done = index(&fs, &FixedClock, root, &Quiet).unwrap();
        assert!(done.validation.valid);
        let json = read(&fs, &generated.join(SEARCH_INDEX_FILE)).unwrap();
        assert!(String::from_utf8(json).unwrap().contains("Go and Make."), "the index follows the edit");
        for cache in [SPANS_FILE, SEARCH_SIDECAR_FILE] {
            assert_eq!(fs.metadata(&generated.join(cache)).unwrap().kind, FileKind::Dir, "{cache} left alone");
        }
        apply(&fs, root, &Edit::Write(2, 3));
        let invalid = index(&fs, &FixedClock, root, &Quiet).unwrap();
        assert!(!invalid.validation.valid, "a duplicate id");
        assert!(read(&fs, &generated.join(SEARCH_INDEX_FILE)).is_none(), "the stale index is removed");
    }

    /// A folder at an output's name fails the run at once, naming the folder, where it used
    /// to fail after reading every record with "is a directory". Nothing is written: the other
    /// outputs stay those of the last run, and the next run once the folder is gone is whole.
    #[test]
    fn a_folder_at_an_output_name_fails_the_run_before_reading() {
        for output in [GRAPH_FILE, SEARCH_INDEX_FILE, DIAGNOSTICS_FILE] {
            let fs = MemoryFs::new();
            let root = Path::new("/g");
            graph_of(&fs, root, 3);
            index(&fs, &FixedClock, root, &Quiet).unwrap();
            let generated = root.join(GENERATED_DIR);
            let before: Vec<_> = GENERATED_FILES.iter().map(|f| read(&fs, &generated.join(f))).collect();
            apply(&fs, root, &Edit::Write(1, 5));
            let folder = generated.join(output);
            fs.write_atomic_set(&[Change::Remove(&folder)]).unwrap();
            fs.create_dir_all(&folder).unwrap();
            let e = index(&fs, &FixedClock, root, &Panicky).unwrap_err();
            assert!(matches!(&e, GraphError::OutputIsFolder(p) if *p == folder), "{output}: {e}");
            assert!(e.to_string().contains("move or remove the folder"), "{e}");
            for (f, was) in GENERATED_FILES.iter().zip(&before).filter(|(f, _)| **f != output) {
                assert_eq!(&read(&fs, &generated.join(f)), was, "{output}: {f} untouched");
            }
        }
    }

    /// Progress that fails the test when any record is read.
    struct Panicky;

    impl Progress for Panicky {
        fn update(&self, done: usize, total: usize, _: Duration) {
            panic!("{done} of {total} records read before the run failed");
        }
    }

    /// A clock at a second of the in-memory filesystem's time (which moves a second a write).
    struct AtSecond(u64);

    impl Clock for AtSecond {
        fn now(&self) -> std::time::SystemTime {
            std::time::UNIX_EPOCH + Duration::from_secs(self.0)
        }
        fn monotonic(&self) -> Duration {
            Duration::ZERO
        }
    }

    /// Regression (found in review): a record written, read by a run and written again in the
    /// same tick of a coarse clock (same length, same stamp) was trusted by that stamp for
    /// good, since the run's manifest, the reference for "racily clean", landed seconds after
    /// the read. A file modified so close to its run is recorded with no time: the next run
    /// reads it.
    #[test]
    fn a_write_in_the_tick_of_the_read_is_seen_by_the_next_run() {
        let fs = MemoryFs::new();
        let root = Path::new("/g");
        graph_of(&fs, root, 3);
        let record = root.join("projects/p1/project.md");
        apply(&fs, root, &Edit::Write(1, 0));
        let second = |ns: Option<i64>| u64::try_from(ns.unwrap() / 1_000_000_000).unwrap();
        let written = second(fs.metadata(&record).unwrap().modified_ns);
        let_three_seconds_pass(&fs);
        // The run starts a second after the record was written; its manifest lands later still.
        index(&fs, &AtSecond(written + 1), root, &Quiet).unwrap();
        let manifest = fs.metadata(&root.join(GENERATED_DIR).join(MANIFEST_FILE)).unwrap();
        assert!(second(manifest.modified_ns) > written + 2, "the record is not racy by the manifest's time");
        let old = String::from_utf8(read(&fs, &record).unwrap()).unwrap();
        fs.overwrite_in_the_same_tick(&record, old.replace("Bazel", "Cargo").as_bytes()).unwrap();
        let later = AtSecond(written + 1000);
        let next = index(&fs, &later, root, &Quiet).unwrap();
        assert_eq!(next.parsed, 1, "the record written in the read's tick is read and parsed again");
        let json = read(&fs, &root.join(GENERATED_DIR).join(SEARCH_INDEX_FILE)).unwrap();
        assert!(String::from_utf8(json).unwrap().contains("Rust and Cargo."), "the search index has the new text");
        assert_eq!(index(&fs, &later, root, &Quiet).unwrap().parsed, 0, "long after, its stamp is trusted again");
    }

    /// Regression (found in review): a crafted span file could name a span as long as the
    /// JSON in place (a sparse file of 64 GiB), and the copy allocated that much before
    /// looking at it.
    #[test]
    fn a_span_longer_than_a_document_can_be_is_not_read() {
        let span = |start, len| spans::Span { path: "p.md", sha256: &[0; 32], start, len };
        let huge = 1 << 40;
        assert!(readable(&span(10, MAX_DOCUMENT_BYTES), huge));
        assert!(!readable(&span(10, MAX_DOCUMENT_BYTES + 1), huge), "longer than any document");
        assert!(!readable(&span(10, 100), 109), "past the JSON's end");
        assert!(!readable(&span(u64::MAX, 2), huge), "an overflowing end");
    }

    /// A record whose body changed and nothing else (the same id, type, title and path, so
    /// its old document reads as its node's): its document is rendered, never copied.
    #[test]
    fn a_document_is_copied_only_for_an_unchanged_record() {
        let fs = MemoryFs::new();
        let root = Path::new("/g");
        graph_of(&fs, root, 5);
        let first = index(&fs, &FixedClock, root, &Quiet).unwrap();
        assert!(first.validation.valid, "{:?}", first.validation);
        apply(&fs, root, &Edit::Write(2, 5));
        let edited = index(&fs, &FixedClock, root, &Quiet).unwrap();
        assert_eq!(edited.copied, edited.nodes - 1, "all but the edited record's document are copied");
        let incremental = generated(&fs, root);
        let search = String::from_utf8(incremental[1].clone().unwrap()).unwrap();
        assert!(search.contains("Go and Make."), "the new body is indexed");
        apply(&fs, root, &Edit::DropManifest);
        apply(&fs, root, &Edit::DropSpans);
        let full = index(&fs, &FixedClock, root, &Quiet).unwrap();
        assert_eq!(full.copied, 0);
        assert!(generated(&fs, root) == incremental, "the incremental files are the full run's");
    }

    /// Keeps the paths and reasons `skipped` was told.
    #[derive(Default)]
    struct Skips(std::sync::Mutex<Vec<(PathBuf, String)>>);

    impl Progress for Skips {
        fn update(&self, _: usize, _: usize, _: Duration) {}
        fn skipped(&self, path: &Path, why: &str) {
            self.0.lock().unwrap().push((path.to_path_buf(), why.to_owned()));
        }
    }

    /// A record with a NUL byte is left out of what validate and index read, with a warning;
    /// one that is not UTF-8 is read as 2.x reads it (U+FFFD), as the server then serves it.
    #[test]
    fn a_record_with_a_nul_byte_is_left_out_and_said_so() {
        let fs = MemoryFs::new();
        let root = Path::new("/g");
        graph(&fs, root);
        fs.create_dir_all(&root.join("notes")).unwrap();
        fs.write_atomic(&root.join("notes/binary.md"), b"# Bin\nhas a \0 byte\n").unwrap();
        fs.write_atomic(&root.join("notes/latin1.md"), b"# Caf\xe9\n").unwrap();
        let skips = Skips::default();
        let records = read_records(&fs, &FixedClock, root, &skips).unwrap();
        let paths: Vec<&str> = records.iter().map(|r| r.page.path.as_str()).collect();
        assert!(!paths.contains(&"notes/binary.md") && paths.contains(&"notes/latin1.md"), "{paths:?}");
        let skipped = skips.0.into_inner().unwrap();
        assert_eq!(skipped.len(), 1, "{skipped:?}");
        assert!(skipped[0].0.ends_with("notes/binary.md") && skipped[0].1.contains("NUL byte"), "{skipped:?}");
    }

    /// Regression (issue 11): a symlinked record was left out without a word. One that stays
    /// inside the root is read under its own path; the others are warnings, never read.
    #[test]
    fn symlinked_records_inside_the_root_are_read_under_their_own_path_and_others_are_warned() {
        let fs = MemoryFs::new();
        let root = Path::new("/g");
        graph(&fs, root);
        fs.create_dir_all(Path::new("/outside/folder")).unwrap();
        fs.write_atomic(Path::new("/outside/secret.md"), b"---\ntype: award\nid: award:secret\ntitle: S\n---\n")
            .unwrap();
        fs.write_atomic(Path::new("/outside/folder/x.md"), b"x").unwrap();
        fs.create_dir_all(&root.join("notes")).unwrap();
        fs.write_atomic(&root.join("notes/draft.md"), b"# Draft\nPlain page.\n").unwrap();
        fs.symlink("draft.md", &root.join("notes/latest.md")).unwrap();
        fs.symlink("../../outside/secret.md", &root.join("awards/relative-escape.md")).unwrap();
        fs.symlink("/outside/secret.md", &root.join("awards/absolute-escape.md")).unwrap();
        fs.symlink("gone.md", &root.join("awards/dangling.md")).unwrap();
        fs.symlink("../projects", &root.join("awards/folder.md")).unwrap();
        fs.symlink("/outside/folder", &root.join("linked-folder")).unwrap();
        fs.symlink("../projects/a/project.md", &root.join("notes/copy.txt")).unwrap();
        let skips = Skips::default();
        let records = read_records(&fs, &FixedClock, root, &skips).unwrap();
        let paths: Vec<&str> = records.iter().map(|r| r.page.path.as_str()).collect();
        assert_eq!(paths, ["VITAEGRAPH.md", "index.md", "notes/draft.md", "projects/a/project.md"]);
        let skipped = skips.0.into_inner().unwrap();
        let why = |p: &str| skipped.iter().find(|(s, _)| s == &root.join(p)).map(|(_, w)| w.as_str());
        assert!(why("awards/relative-escape.md").unwrap().contains("outside the VitaeGraph root"), "{skipped:?}");
        assert!(why("awards/absolute-escape.md").unwrap().contains("outside the VitaeGraph root"), "{skipped:?}");
        assert!(why("awards/dangling.md").unwrap().contains("dangling"), "{skipped:?}");
        assert!(why("awards/folder.md").unwrap().contains("not a regular file"), "{skipped:?}");
        assert!(why("linked-folder").unwrap().contains("symlinked folder is not followed"), "{skipped:?}");
        assert!(why("notes/latest.md").unwrap().contains("notes/draft.md, which is indexed under its own path"));
        assert_eq!(skipped.len(), 6, "a link to a file that is not Markdown is no concern: {skipped:?}");
        let done = index(&fs, &FixedClock, root, &Quiet).unwrap();
        assert!(done.validation.valid, "{:?}", done.validation.errors);
        let graph = String::from_utf8(read(&fs, &root.join(GENERATED_DIR).join(GRAPH_FILE)).unwrap()).unwrap();
        assert!(!graph.contains("secret"), "nothing from outside the root is indexed: {graph}");
    }

    /// Found in review: the walk passes over a `.generated` folder at any depth, but a symlink
    /// into a nested one was followed. A link into any `.generated` is passed over, with a word.
    #[test]
    fn a_symlink_into_any_generated_folder_is_not_followed() {
        let fs = MemoryFs::new();
        let root = Path::new("/g");
        graph(&fs, root);
        let hidden = b"---\ntype: project\nid: project:hidden\ntitle: H\n---\n";
        for dir in ["projects/.generated", ".generated"] {
            fs.create_dir_all(&root.join(dir)).unwrap();
            fs.write_atomic(&root.join(dir).join("hidden.md"), hidden).unwrap();
        }
        fs.create_dir_all(&root.join("notes")).unwrap();
        fs.symlink("../projects/.generated/hidden.md", &root.join("notes/nested.md")).unwrap();
        fs.symlink("../.generated/hidden.md", &root.join("notes/top.md")).unwrap();
        let skips = Skips::default();
        let records = read_records(&fs, &FixedClock, root, &skips).unwrap();
        assert!(records.iter().all(|r| !r.page.path.contains("hidden")), "neither is read");
        let skipped = skips.0.into_inner().unwrap();
        for link in ["notes/nested.md", "notes/top.md"] {
            let why = skipped.iter().find(|(s, _)| s == &root.join(link)).map(|(_, w)| w.as_str());
            assert!(why.is_some_and(|w| w.contains(".generated/ folder")), "{link}: {skipped:?}");
        }
    }

    /// A symlink to a record that is read under its own path too would be the same id twice
    /// (a failed graph): it is read once, under the file's own path, and the link is named.
    #[test]
    fn a_symlink_to_a_record_inside_the_root_is_read_once() {
        let fs = MemoryFs::new();
        let root = Path::new("/g");
        graph(&fs, root);
        fs.create_dir_all(&root.join("projects/b")).unwrap();
        fs.symlink("../a/project.md", &root.join("projects/b/project.md")).unwrap();
        let skips = Skips::default();
        let done = index(&fs, &FixedClock, root, &skips).unwrap();
        assert!(done.validation.valid, "{:?}", done.validation.errors);
        assert_eq!(done.nodes, 1);
        let skipped = skips.0.into_inner().unwrap();
        assert_eq!(skipped.len(), 1, "{skipped:?}");
        assert_eq!(skipped[0].0, root.join("projects/b/project.md"));
        assert!(skipped[0].1.contains("projects/a/project.md, which is indexed under its own path"), "{skipped:?}");
    }

    #[test]
    fn init_creates_only_what_is_missing_and_force_keeps_a_backup() {
        let fs = MemoryFs::new();
        let root = Path::new("/g");
        fs.create_dir_all(&root.join("projects/a")).unwrap();
        fs.write_atomic(&root.join("index.md"), b"mine").unwrap();
        let report = init(&fs, &FixedClock, root, false).unwrap();
        assert_eq!(read(&fs, &root.join("index.md")).unwrap(), b"mine", "an existing file is kept");
        assert!(report.created.contains(&root.join("VITAEGRAPH.md")) && report.kept.contains(&root.join("index.md")));
        assert_eq!(fs.mode(&root.join("awards")).unwrap(), 0o700, "created folders are owner-only");
        let report = init(&fs, &FixedClock, root, true).unwrap();
        let (replaced, backup) = &report.replaced[0];
        assert_eq!(replaced, &root.join("index.md"));
        assert_eq!(backup, &root.join("index.md.vitaecontext-backup-19700102T000000Z"));
        assert_eq!(read(&fs, backup).unwrap(), b"mine", "--force keeps what it replaces");
        assert_eq!(read(&fs, &root.join("index.md")).unwrap(), INDEX_MD.as_bytes());
        assert!(init(&fs, &FixedClock, root, true).unwrap().replaced.is_empty(), "a starter file is not backed up");
    }
}

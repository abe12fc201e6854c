//! The VitaeGraph as the server sees it: the canonical root, and the generated index files,
//! loaded once and reloaded when they change on disk.
//!
//! Every file is reached through the confinement walk, so a `.generated/` or `graph.json` that
//! is a symlink leading outside the root is "not found", like a missing one. The walk's answer is
//! then opened with `read_beneath` (from a handle on the root, no symlink followed), and the
//! bytes and the metadata both come from that one open file: a folder swapped for a symlink
//! between the walk and the read makes the read fail, never leads outside.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use domain::graph::confine::{self, ConfinedPath, Deny};
use domain::graph::index::{Document, Graph};
use domain::graph::search::{Pending, Searcher};
use domain::graph::set::{self, Piece, SET_FILE};
use domain::graph::{
    DIAGNOSTICS_FILE, GRAPH_FILE, MAX_RECORD_BYTES, SEARCH_INDEX_FILE, SEARCH_SIDECAR_FILE, generated_path,
};
use domain::graph::{checksum, sidecar};
use ports::fs::{ConfineView, FileSystem, FsError, FsErrorKind, Metadata, OpenFile};
use sha2::{Digest, Sha256};

/// The largest generated file loaded (a 100,000-record search index is a few hundred MB).
pub(crate) const MAX_INDEX_BYTES: u64 = 2 * 1024 * 1024 * 1024;

/// Why the graph (or a record) cannot be served. Shown to clients only as "not found".
#[derive(Debug, thiserror::Error)]
pub enum Unavailable {
    #[error("no VitaeGraph root is configured")]
    NoRoot,
    #[error("the VitaeGraph root cannot be resolved: {0}")]
    Root(ports::fs::FsError),
    #[error("refused: {0}")]
    Denied(#[from] Deny),
    #[error("{0}")]
    Fs(#[from] ports::fs::FsError),
    #[error("the file is not valid JSON of the expected shape: {}", json_problem(.0))]
    Json(#[from] serde_json::Error),
    /// A load that failed on these same bytes before (same stamp and length): the same error,
    /// answered without reading the file again.
    #[error("{0}")]
    Remembered(Arc<Unavailable>),
}

/// A JSON error in words that quote nothing from the file: what kind of error, and where.
/// serde_json's own text repeats the value it refused, whatever its length (found in review:
/// a 100,000-character string made a 100 KB answer).
fn json_problem(e: &serde_json::Error) -> String {
    if e.line() == 0 {
        // One of ours (`serde::de::Error::custom`), about no place in the file.
        return e.to_string();
    }
    format!("{} at line {}, column {}", json_error_kind(e), e.line(), e.column())
}

/// What kind of JSON error `e` is, in words that quote nothing and give no place: what a client
/// is told (the place goes to the server's log).
pub fn json_error_kind(e: &serde_json::Error) -> &'static str {
    use serde_json::error::Category;
    match e.classify() {
        Category::Syntax => "a syntax error",
        Category::Eof => "it ends too early",
        Category::Data => "a value of the wrong type or shape",
        Category::Io => "a read error",
    }
}

impl Unavailable {
    /// Whether the file is simply not there (nor the root), as opposed to there but not
    /// usable: damaged, too large, a folder, refused by the confinement walk.
    pub fn is_missing(&self) -> bool {
        match self {
            Unavailable::NoRoot => true,
            Unavailable::Root(e) => e.kind != ports::fs::FsErrorKind::PermissionDenied,
            Unavailable::Fs(e) => matches!(e.kind, ports::fs::FsErrorKind::NotFound),
            Unavailable::Remembered(e) => e.is_missing(),
            Unavailable::Denied(d) => *d == Deny::Missing,
            Unavailable::Json(_) => false,
        }
    }

    /// Whether the user the server runs as may not look there (a folder it cannot search, a
    /// file it cannot read): indexing again cannot help, access given back does.
    pub fn is_denied(&self) -> bool {
        match self {
            Unavailable::Fs(e) | Unavailable::Root(e) => e.kind == ports::fs::FsErrorKind::PermissionDenied,
            Unavailable::Denied(d) => *d == Deny::Unreadable,
            Unavailable::Remembered(e) => e.is_denied(),
            Unavailable::NoRoot | Unavailable::Json(_) => false,
        }
    }

    /// Why, in words fit for a client: no path of the machine, and no place in the file (the
    /// contract sends parser detail to stderr; [`Unavailable`]'s `Display` keeps it for logs).
    pub fn reason(&self) -> String {
        if self.is_denied() {
            // One wording whether the folder or the file refused.
            return "permission denied".to_owned();
        }
        match self {
            Unavailable::NoRoot | Unavailable::Denied(_) => self.to_string(),
            Unavailable::Root(_) => "the VitaeGraph root cannot be resolved".to_owned(),
            Unavailable::Fs(e) => e.detail.clone(),
            Unavailable::Json(e) if e.line() == 0 => "it is not valid JSON of the expected shape".to_owned(),
            Unavailable::Json(e) => format!("it is not valid JSON of the expected shape ({})", json_error_kind(e)),
            Unavailable::Remembered(e) => e.reason(),
        }
    }
}

pub struct LoadedGraph {
    pub graph: Graph,
    pub by_id: HashMap<String, usize>,
    /// Ids in byte order, for completion.
    pub sorted_ids: Vec<String>,
    /// The file's length and checksum, compared with the generation marker.
    pub piece: Piece,
}

struct Cached<T> {
    stamp: u128,
    len: u64,
    digest: [u8; 32],
    value: Arc<T>,
}

/// The last load of one generated file: the value that parsed, and the error of a later
/// version that did not. A failed parse is remembered by stamp and length so that an invalid
/// file of gigabytes is read and hashed once, not on every request.
struct Slot<T> {
    loaded: Option<Cached<T>>,
    failed: Option<Failed>,
}

impl<T> Default for Slot<T> {
    fn default() -> Self {
        Self { loaded: None, failed: None }
    }
}

struct Failed {
    stamp: u128,
    len: u64,
    error: Arc<Unavailable>,
}

/// The searcher and what it was loaded from. The search index is known by the JSON's stamp and
/// length alone: no digest of the whole file comes before the first answer.
#[derive(Default)]
struct SearchSlot {
    loaded: Option<LoadedSearch>,
    failed: Option<Failed>,
    /// A JSON (stamp, length) whose sidecar failed the digest check: loaded from the JSON.
    distrusted: Option<(u128, u64)>,
}

struct LoadedSearch {
    stamp: u128,
    len: u64,
    value: Arc<Searcher>,
    /// The JSON's length and checksum (for a searcher from the sidecar, the checksum the
    /// sidecar names, which `verify` checks), compared with the generation marker.
    piece: Piece,
    /// For a searcher from the sidecar: the checksum of the JSON, compared with the one the
    /// sidecar names, on its own thread after the answer. `false` drops the searcher.
    verify: Option<Verify>,
}

/// A digest check that waits for the answer it follows: it starts when [`GraphStore::answered`]
/// (or a wait for its verdict) releases it, or after [`DIGEST_GRACE`], so that on a machine with
/// few cores it does not compete with the first search for a CPU.
struct Verify {
    thread: std::thread::JoinHandle<bool>,
    go: Option<std::sync::mpsc::SyncSender<()>>,
}

/// How long a digest check waits for the answer before it starts anyway.
const DIGEST_GRACE: std::time::Duration = std::time::Duration::from_millis(250);

impl SearchSlot {
    /// Takes the verdict of a finished digest check (with `wait`, of a running one): a
    /// searcher from a sidecar that does not match the JSON is dropped.
    fn settle(&mut self, wait: bool) {
        let Some(hit) = self.loaded.as_mut() else { return };
        let Some(ok) = hit.verify.take_if(|v| wait || v.thread.is_finished()).map(|mut v| {
            v.go.take();
            v.thread.join().unwrap_or(false)
        }) else {
            return;
        };
        if !ok {
            tracing::warn!("{SEARCH_SIDECAR_FILE} does not match {SEARCH_INDEX_FILE}: loading the JSON");
            self.distrusted = Some((hit.stamp, hit.len));
            self.loaded = None;
        }
    }
}

pub struct GraphStore {
    root: Option<PathBuf>,
    canonical: Mutex<Option<PathBuf>>,
    graph: Mutex<Slot<LoadedGraph>>,
    search: Mutex<SearchSlot>,
    verdict: Mutex<Option<Verdict>>,
    pending: Arc<PendingRecords>,
}

/// The most records pending at once, and the most text they may hold: past either, a change
/// is found once its index run lands (a burst of thousands is one index run anyway), and what
/// the server holds stays bounded.
pub const MAX_PENDING: usize = 1024;
pub const MAX_PENDING_BYTES: usize = 64 << 20;

/// Records changed since the index on disk (`mcp --watch`): read as soon as their change is
/// reported and searched beside the index ([`Searcher::search_with`]) until an index run that
/// read them has landed. Each read is numbered before it starts ([`PendingRecords::reserve`]):
/// an index run marked after number `n` was taken reads the files no earlier than read `n`
/// began, so it settles it ([`PendingRecords::mark`], [`PendingRecords::settle`]); a read
/// that a run settled before it was put is dropped.
#[derive(Debug, Default)]
pub struct PendingRecords {
    state: Mutex<PendingState>,
}

#[derive(Debug, Default)]
struct PendingState {
    /// The last number handed out.
    reserved: u64,
    /// The mark of the last index run that settled.
    settled: u64,
    by_path: std::collections::BTreeMap<String, (u64, Option<Arc<Document>>)>,
    /// The texts' bytes of the documents in `by_path`.
    bytes: usize,
    /// Changes of `by_path`, so that a snapshot made outside the lock is kept only if none
    /// came after it.
    version: u64,
    snapshot: Arc<Pending>,
}

impl PendingState {
    fn remove(&mut self, path: &str) {
        if let Some((_, Some(d))) = self.by_path.remove(path) {
            self.bytes -= d.text.len();
        }
    }
}

impl PendingRecords {
    /// What is pending now, for one search.
    pub fn snapshot(&self) -> Arc<Pending> {
        Arc::clone(&lock(&self.state).snapshot)
    }

    /// The number of a read about to start.
    pub fn reserve(&self) -> u64 {
        let mut st = lock(&self.state);
        st.reserved += 1;
        st.reserved
    }

    /// The records read `read` (numbered by [`PendingRecords::reserve`]) found, each path's
    /// document (`None`: removed, or not a record search lists; for a folder, every record
    /// below it is gone). A path new past [`MAX_PENDING`], or a document past
    /// [`MAX_PENDING_BYTES`], is left to the index run; so is the whole read when a run that
    /// started after it began has settled already. How many were taken.
    pub fn put(&self, read: u64, changes: Vec<(String, Option<Document>)>) -> usize {
        let mut st = lock(&self.state);
        if read <= st.settled {
            return 0;
        }
        let mut taken = 0;
        for (path, doc) in changes {
            // A later read of a path replaces an earlier one, never the other way round.
            if st.by_path.get(&path).is_some_and(|(n, _)| *n > read) {
                continue;
            }
            let size = doc.as_ref().map_or(0, |d| d.text.len());
            let new = !st.by_path.contains_key(&path);
            if (new && st.by_path.len() >= MAX_PENDING) || st.bytes + size > MAX_PENDING_BYTES {
                continue;
            }
            if doc.is_none() {
                // Gone as a folder: what was read below it before is gone with it.
                let below = format!("{path}/");
                let under: Vec<String> = st
                    .by_path
                    .range(below.clone()..)
                    .take_while(|(p, _)| p.starts_with(&below))
                    .filter(|(_, (n, _))| *n <= read)
                    .map(|(p, _)| p.clone())
                    .collect();
                under.iter().for_each(|p| st.remove(p));
            }
            st.remove(&path);
            st.bytes += size;
            st.by_path.insert(path, (read, doc.map(Arc::new)));
            taken += 1;
        }
        if taken > 0 {
            self.publish(st);
        }
        taken
    }

    /// Makes the snapshot of `st` outside the lock (preparing a thousand documents' terms is
    /// not done while searches wait for the lock), kept unless another change came meanwhile.
    fn publish(&self, mut st: std::sync::MutexGuard<'_, PendingState>) {
        st.version += 1;
        let version = st.version;
        let entries: Vec<(String, Option<Arc<Document>>)> =
            st.by_path.iter().map(|(p, (_, d))| (p.clone(), d.clone())).collect();
        drop(st);
        let made = Arc::new(Pending::new(entries));
        let mut st = lock(&self.state);
        if st.version == version {
            st.snapshot = made;
        }
    }

    /// Where an index run that starts now stands: every read numbered until now, it reads the
    /// files no earlier than that read began.
    pub fn mark(&self) -> u64 {
        lock(&self.state).reserved
    }

    /// An index run marked `mark` has landed: what was read by then is in the files.
    pub fn settle(&self, mark: u64) {
        let mut st = lock(&self.state);
        st.settled = st.settled.max(mark);
        let before = st.by_path.len();
        let gone: Vec<String> = st.by_path.iter().filter(|(_, (n, _))| *n <= mark).map(|(p, _)| p.clone()).collect();
        gone.iter().for_each(|p| st.remove(p));
        if st.by_path.len() != before {
            self.publish(st);
        }
    }

    /// Live indexing has ended: nothing is pending (the folder at the root's path may be
    /// another now).
    pub fn clear(&self) {
        let mut st = lock(&self.state);
        st.settled = st.reserved;
        st.by_path.clear();
        st.bytes = 0;
        self.publish(st);
    }

    /// How many records are pending.
    pub fn count(&self) -> usize {
        lock(&self.state).by_path.len()
    }
}

/// What [`GraphStore::invalid_errors`] last found, and the stamp and length of the
/// `diagnostics.json` it read.
#[derive(Debug, Clone, Copy)]
struct Verdict {
    read: (u128, u64),
    invalid_errors: Option<usize>,
}

impl std::fmt::Debug for GraphStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GraphStore").field("root", &self.root).finish_non_exhaustive()
    }
}

/// How long a search with no searcher loaded waits for an index run under way to write the
/// sidecar of the JSON it has written, before loading that JSON instead.
const SIDECAR_WAIT: Duration = Duration::from_secs(1);

/// Whether `graph index` (in this process or another) is writing the generated files of the
/// graph at `root` now: it holds the root's lock ([`FileSystem::lock_dir`]) from before it
/// reads the records until its last file is in place, the search sidecar landing a moment
/// after the JSON. Where the filesystem cannot tell, as if no run were under way.
fn indexing(fs: &dyn FileSystem, root: &std::path::Path) -> bool {
    fs.dir_locked(root).unwrap_or(false)
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl GraphStore {
    pub fn new(root: Option<PathBuf>) -> Self {
        Self {
            root,
            canonical: Mutex::new(None),
            graph: Mutex::default(),
            search: Mutex::default(),
            verdict: Mutex::new(None),
            pending: Arc::default(),
        }
    }

    /// The records changed since the index, which `mcp --watch` reads as they change.
    pub fn pending_records(&self) -> &Arc<PendingRecords> {
        &self.pending
    }

    /// What is pending now ([`PendingRecords::snapshot`]).
    pub fn pending(&self) -> Arc<Pending> {
        self.pending.snapshot()
    }

    /// The root with every symlink resolved, computed once (a symlinked root works).
    pub fn canonical_root(&self, fs: &dyn FileSystem) -> Result<PathBuf, Unavailable> {
        let mut c = lock(&self.canonical);
        if let Some(root) = c.as_ref() {
            return Ok(root.clone());
        }
        let root = self.root.as_ref().ok_or(Unavailable::NoRoot)?;
        let canonical = fs.canonicalize(root).map_err(Unavailable::Root)?;
        *c = Some(canonical.clone());
        Ok(canonical)
    }

    /// The canonical root and a stored path under it, confined (symlinks that stay inside
    /// resolved; none left).
    pub fn confined(&self, fs: &dyn FileSystem, stored: &str) -> Result<(PathBuf, ConfinedPath), Unavailable> {
        let root = self.canonical_root(fs)?;
        let path = confine::resolve(&ConfineView(fs), &root, stored)?;
        Ok((root, path))
    }

    fn load<T>(
        &self,
        fs: &dyn FileSystem,
        cache: &Mutex<Slot<T>>,
        stored: &str,
        parse: impl FnOnce(Vec<u8>) -> Result<T, Unavailable>,
    ) -> Result<Arc<T>, Unavailable> {
        let (root, path) = self.confined(fs, stored)?;
        let mut guard = lock(cache);
        let c = &mut *guard;
        // A hit only ever returns what an earlier confined read gave, so checking the stamp
        // needs no more than the same handle-based walk.
        let seen = fs.metadata_beneath(&root, path.relative())?;
        if let Some(hit) = c.loaded.as_ref().filter(|h| h.stamp == seen.stamp && h.len == seen.len) {
            return Ok(Arc::clone(&hit.value));
        }
        if let Some(failed) = c.failed.as_ref().filter(|f| f.stamp == seen.stamp && f.len == seen.len) {
            return Err(Unavailable::Remembered(Arc::clone(&failed.error)));
        }
        let (bytes, meta) = fs.read_beneath(&root, path.relative(), MAX_INDEX_BYTES)?;
        let digest: [u8; 32] = Sha256::digest(&bytes).into();
        // Rewritten with the same bytes (a rerun of `graph index`): keep the parsed value.
        if let Some(hit) = c.loaded.as_mut().filter(|h| h.digest == digest) {
            hit.stamp = meta.stamp;
            hit.len = meta.len;
            let value = Arc::clone(&hit.value);
            c.failed = None;
            return Ok(value);
        }
        tracing::info!(file = stored, bytes = bytes.len(), "loading the VitaeGraph index");
        // The value it replaces goes first (a request under way keeps its own): at 100,000
        // records, `mcp --watch` held both while loading each new index.
        c.loaded = None;
        match parse(bytes) {
            Ok(value) => {
                let value = Arc::new(value);
                c.loaded = Some(Cached { stamp: meta.stamp, len: meta.len, digest, value: Arc::clone(&value) });
                c.failed = None;
                Ok(value)
            }
            Err(error) => {
                // Once per version of the file: later requests answer the remembered error.
                tracing::warn!(file = stored, "cannot be loaded: {error}");
                let error = Arc::new(error);
                c.failed = Some(Failed { stamp: meta.stamp, len: meta.len, error: Arc::clone(&error) });
                Err(Unavailable::Remembered(error))
            }
        }
    }

    /// The stamp and length of `graph.json` now (`None` when it cannot be reached), without
    /// reading it: lets the watcher tell whether it changed while it was being loaded.
    pub fn stamp(&self, fs: &dyn FileSystem) -> Option<(u128, u64)> {
        let (root, path) = self.confined(fs, &generated_path(GRAPH_FILE)).ok()?;
        fs.metadata_beneath(&root, path.relative()).ok().map(|m| (m.stamp, m.len))
    }

    /// How many errors `diagnostics.json` lists when it says the graph is invalid (`None`
    /// when it says valid, or cannot be read as diagnostics): why an index run left no graph
    /// or search index.
    ///
    /// Asked on every search and resource read that finds no index, so the file is read once
    /// per version (its stamp and length), as it streams, counting the errors without keeping
    /// them: found in review, a crafted 72 MB file parsed whole on each read took seconds and
    /// gigabytes.
    pub fn invalid_errors(&self, fs: &dyn FileSystem) -> Option<usize> {
        let (root, path) = self.confined(fs, &generated_path(DIAGNOSTICS_FILE)).ok()?;
        let now = fs.metadata_beneath(&root, path.relative()).ok()?;
        if let Some(v) = *lock(&self.verdict)
            && v.read == (now.stamp, now.len)
        {
            return v.invalid_errors;
        }
        // Keyed by the file opened: one replaced since the look above is read next time.
        let (file, meta) = fs.open_beneath(&root, path.relative()).ok()?;
        let invalid_errors = diagnostics_verdict(std::io::BufReader::new(std::io::Read::take(file, MAX_INDEX_BYTES)));
        *lock(&self.verdict) = Some(Verdict { read: (meta.stamp, meta.len), invalid_errors });
        invalid_errors
    }

    /// The SHA-256 of `graph.json` as it is now (`None` when it cannot be read), without
    /// parsing it: a baseline that tells a rewrite with the same bytes from a change. Read in
    /// pieces, never held whole: `mcp --watch` takes it at start, beside its first answers, and
    /// a 30 MB buffer (at 100,000 records) was 30 MB more of the server's peak and its page
    /// faults.
    pub fn digest_now(&self, fs: &dyn FileSystem) -> Option<[u8; 32]> {
        use std::io::Read;
        let (root, path) = self.confined(fs, &generated_path(GRAPH_FILE)).ok()?;
        let (file, meta) = fs.open_beneath(&root, path.relative()).ok()?;
        if meta.len > MAX_INDEX_BYTES {
            return None;
        }
        let mut file = file.take(MAX_INDEX_BYTES + 1);
        let mut hash = Sha256::new();
        let mut piece = vec![0; 256 * 1024];
        let mut read = 0;
        loop {
            match file.read(&mut piece) {
                Ok(0) => break,
                Ok(n) => {
                    hash.update(&piece[..n]);
                    read += n as u64;
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => return None,
            }
        }
        (read <= MAX_INDEX_BYTES).then(|| hash.finalize().into())
    }

    /// The SHA-256 of the `graph.json` bytes the loaded graph was parsed from.
    pub fn loaded_digest(&self) -> Option<[u8; 32]> {
        lock(&self.graph).loaded.as_ref().map(|c| c.digest)
    }

    pub fn graph(&self, fs: &dyn FileSystem) -> Result<Arc<LoadedGraph>, Unavailable> {
        self.load(fs, &self.graph, &generated_path(GRAPH_FILE), |bytes| {
            let raw = String::from_utf8(bytes)
                .map_err(|e| Unavailable::Json(serde::de::Error::custom(format!("{GRAPH_FILE} is not UTF-8: {e}"))))?;
            let graph: Graph = serde_json::from_str(&raw)?;
            let by_id = graph.nodes.iter().enumerate().map(|(i, n)| (n.id.clone(), i)).collect();
            let mut sorted_ids: Vec<String> = graph.nodes.iter().map(|n| n.id.clone()).collect();
            sorted_ids.sort();
            let piece = Piece::of(raw.as_bytes());
            Ok(LoadedGraph { graph, by_id, sorted_ids, piece })
        })
    }

    /// The text of `graph.json`, for `vitaegraph://index`: read when asked rather than held (at
    /// 100,000 records, tens of MB a server kept for a resource rarely read), and served only
    /// as the file the loaded graph was parsed from (same length and checksum), so it is
    /// always a graph that parsed; a file replaced in between is loaded, then read again.
    pub fn graph_text(&self, fs: &dyn FileSystem) -> Result<String, Unavailable> {
        for _ in 0..3 {
            let loaded = self.graph(fs)?;
            let (root, path) = self.confined(fs, &generated_path(GRAPH_FILE))?;
            let (bytes, _) = fs.read_beneath(&root, path.relative(), MAX_INDEX_BYTES)?;
            if Piece::of(&bytes) == loaded.piece {
                return String::from_utf8(bytes).map_err(|e| {
                    Unavailable::Json(serde::de::Error::custom(format!("{GRAPH_FILE} is not UTF-8: {e}")))
                });
            }
        }
        Err(Unavailable::Fs(FsError::new(
            FsErrorKind::Other,
            std::path::Path::new(GRAPH_FILE),
            "it kept changing while it was read; ask again",
        )))
    }

    /// The searcher for `search-index.json`: from its sidecar when the sidecar names the
    /// JSON's current length, is not older than it and is whole (checksum and structure), the
    /// JSON's checksum then checked against the sidecar's on another thread, after the answer;
    /// otherwise streamed from the JSON. A sidecar is never trusted beyond that: a mismatch
    /// drops the searcher and the next request loads the JSON.
    pub fn searcher(&self, fs: &dyn FileSystem) -> Result<Arc<Searcher>, Unavailable> {
        self.searcher_waiting(fs, true)
    }

    /// [`GraphStore::searcher`]; `wait`: with nothing loaded, a JSON found without its sidecar
    /// while an index run holds the lock is looked at again once the run ends ([`SIDECAR_WAIT`]
    /// at most), rather than loaded.
    fn searcher_waiting(&self, fs: &dyn FileSystem, wait: bool) -> Result<Arc<Searcher>, Unavailable> {
        let stored = generated_path(SEARCH_INDEX_FILE);
        let (root, path) = self.confined(fs, &stored)?;
        let mut guard = lock(&self.search);
        let c = &mut *guard;
        let seen = fs.metadata_beneath(&root, path.relative())?;
        c.settle(false);
        if let Some(hit) = c.loaded.take_if(|h| h.value.is_damaged()) {
            tracing::warn!(
                "texts in .generated/{SEARCH_SIDECAR_FILE} do not match their checksums: answering from \
                 {SEARCH_INDEX_FILE} instead (`vitaecontext graph index --full` writes the sidecar again)"
            );
            c.distrusted = Some((hit.stamp, hit.len));
        }
        if let Some(hit) = c.loaded.as_ref().filter(|h| h.stamp == seen.stamp && h.len == seen.len) {
            return Ok(Arc::clone(&hit.value));
        }
        if let Some(failed) = c.failed.as_ref().filter(|f| f.stamp == seen.stamp && f.len == seen.len) {
            return Err(Unavailable::Remembered(Arc::clone(&failed.error)));
        }
        let (mut json, mut meta) = fs.open_beneath(&root, path.relative())?;
        // The searcher it replaces goes first (a search under way keeps its own), unless an
        // index run is writing, when it may be served below: at 100,000 records, `mcp --watch`
        // held both while loading each new index (a peak 70 MB higher).
        if !indexing(fs, &root) {
            c.loaded = None;
        }
        if c.distrusted != Some((meta.stamp, meta.len)) {
            match self.sidecar_searcher(fs, &meta) {
                // The JSON the sidecar was written beside, untouched since: answered from at
                // once, its checksum checked after.
                Ok((searcher, named)) if named.json_stamp == meta.stamp => {
                    match verify_after(json, named.json_sum) {
                        Some(verify) => {
                            let value = Arc::new(searcher);
                            let verify = Some(verify);
                            c.loaded = Some(LoadedSearch {
                                stamp: meta.stamp,
                                len: meta.len,
                                value: Arc::clone(&value),
                                piece: Piece { len: meta.len, sum: named.json_sum },
                                verify,
                            });
                            c.failed = None;
                            return Ok(value);
                        }
                        // Unverifiable, so not used: the JSON, opened again.
                        None => (json, meta) = fs.open_beneath(&root, path.relative())?,
                    }
                }
                // Another file (a copied graph, a touched JSON, or another JSON of the same
                // length): trusted only once the JSON's checksum agrees, before any answer.
                Ok((searcher, named)) => {
                    if checksum_of(&mut json) == Some(named.json_sum) {
                        let value = Arc::new(searcher);
                        c.loaded = Some(LoadedSearch {
                            stamp: meta.stamp,
                            len: meta.len,
                            value: Arc::clone(&value),
                            piece: Piece { len: meta.len, sum: named.json_sum },
                            verify: None,
                        });
                        c.failed = None;
                        return Ok(value);
                    }
                    tracing::debug!("{SEARCH_SIDECAR_FILE} not used: built from another {SEARCH_INDEX_FILE}");
                    (json, meta) = fs.open_beneath(&root, path.relative())?;
                }
                Err(why) => tracing::debug!("{SEARCH_SIDECAR_FILE} not used: {why}"),
            }
        }
        // No sidecar for this JSON. While an index run holds the root's lock, that is most
        // likely the moment between its JSON and its sidecar: the searcher loaded before is
        // served rather than the JSON loaded (seconds and hundreds of MB at 100,000 records);
        // the first request after the run loads its sidecar.
        if let Some(hit) = c.loaded.as_ref().filter(|_| indexing(fs, &root)) {
            tracing::debug!("an index is being written: serving the search index loaded before");
            return Ok(Arc::clone(&hit.value));
        }
        // Nothing loaded (`mcp --watch` releases a replaced searcher once its run has landed,
        // and the next run may have written its JSON before any search came): the run's
        // sidecar follows its JSON within moments (0.2-0.4 s at 100,000 records), so it is
        // waited for a little. Found measuring: a search in that moment loaded the JSON, 2.3 s
        // and 150 MB more at 100,000 records.
        if wait && indexing(fs, &root) {
            drop(guard);
            drop(json);
            let start = std::time::Instant::now();
            while indexing(fs, &root) && start.elapsed() < SIDECAR_WAIT {
                std::thread::sleep(Duration::from_millis(10));
            }
            return self.searcher_waiting(fs, false);
        }
        tracing::info!(file = stored, bytes = meta.len, "loading the VitaeGraph search index");
        // Read a window at a time, one document after another (`search_json`): neither the
        // file nor a list of its documents is ever held whole.
        let full_path = root.join(path.relative());
        let parsed = check_len(&full_path, meta.len).and_then(|()| {
            // Summed as it is read, for the generation marker.
            let mut summed = checksum::Summed::new(std::io::Read::take(&mut json, MAX_INDEX_BYTES));
            let read = crate::search_json::read_builder(&mut summed);
            // A read that failed is said as one, not as a file of the wrong shape.
            let read = read.map_err(|e| match e.is_io() {
                true => Unavailable::Fs(FsError::new(FsErrorKind::Other, &full_path, e.to_string())),
                false => Unavailable::Json(e),
            });
            let searcher = read?.finish();
            // What the reader left unread (after the last document) is summed too.
            std::io::copy(&mut summed, &mut std::io::sink())
                .map_err(|e| Unavailable::Fs(FsError::new(FsErrorKind::Other, &full_path, e.to_string())))?;
            Ok((searcher, Piece::summed(&summed.sum)))
        });
        match parsed {
            Ok((searcher, piece)) => {
                let value = Arc::new(searcher);
                c.loaded = Some(LoadedSearch {
                    stamp: meta.stamp,
                    len: meta.len,
                    value: Arc::clone(&value),
                    piece,
                    verify: None,
                });
                c.failed = None;
                Ok(value)
            }
            Err(error) => {
                // Once per version of the file: later requests answer the remembered error.
                tracing::warn!(file = stored, "cannot be loaded: {error}");
                let error = Arc::new(error);
                c.failed = Some(Failed { stamp: meta.stamp, len: meta.len, error: Arc::clone(&error) });
                Err(Unavailable::Remembered(error))
            }
        }
    }

    /// What `answer` makes of the searcher; when a text it read failed its check (a damaged
    /// sidecar), made once more from the searcher loaded again, from the JSON: an answer never
    /// lacks a text because of a damaged sidecar.
    pub fn with_searcher<R>(&self, fs: &dyn FileSystem, answer: impl Fn(&Searcher) -> R) -> Result<R, Unavailable> {
        let searcher = self.searcher(fs)?;
        let made = answer(&searcher);
        if !searcher.is_damaged() {
            return Ok(made);
        }
        Ok(answer(&*self.searcher(fs)?))
    }

    /// The searcher in the sidecar beside a JSON with metadata `json`, and the JSON checksum it
    /// names; why not, otherwise. Confined like every other read. Its header and body are
    /// read; the searcher keeps the file open to read each text when asked (a file replaced
    /// meanwhile leaves this one as it was; one changed in place fails the texts' checks).
    fn sidecar_searcher(&self, fs: &dyn FileSystem, json: &Metadata) -> Result<(Searcher, sidecar::Source), String> {
        let (root, path) = self.confined(fs, &generated_path(SEARCH_SIDECAR_FILE)).map_err(|e| e.to_string())?;
        let (file, meta) = fs.open_beneath(&root, path.relative()).map_err(|e| e.to_string())?;
        if meta.kind != ports::fs::FileKind::File {
            return Err("not a regular file".to_owned());
        }
        if meta.len > MAX_INDEX_BYTES {
            return Err(format!("larger than {MAX_INDEX_BYTES} bytes"));
        }
        if meta.modified_ns < json.modified_ns {
            return Err(format!("older than {SEARCH_INDEX_FILE}"));
        }
        let mut header = [0; sidecar::HEADER_LEN];
        file.read_exact_at(&mut header, 0).map_err(|e| format!("its header cannot be read ({e})"))?;
        let named = sidecar::source(&header).map_err(|e| e.to_string())?;
        if named.json_len != json.len {
            return Err(format!("built from a {SEARCH_INDEX_FILE} of {} bytes, not {}", named.json_len, json.len));
        }
        let start = std::time::Instant::now();
        let (searcher, named) = sidecar::decode_file(Box::new(Sidecar(file)), meta.len).map_err(|e| e.to_string())?;
        tracing::debug!(bytes = meta.len, decode = ?start.elapsed(), "search index from {SEARCH_SIDECAR_FILE}");
        Ok((searcher, named))
    }

    /// Drops the loaded searcher when `search-index.json` is no longer the file it was loaded
    /// from and no index run is writing: its memory and its open sidecar go now rather than
    /// at the next search (found in review: at 100,000 records an idle server held 70 MB and
    /// a replaced 150 MB sidecar for as long as no search came). The server's file watcher
    /// calls it on each look.
    pub fn release_stale_searcher(&self, fs: &dyn FileSystem) {
        let Some(loaded) = lock(&self.search).loaded.as_ref().map(|h| (h.stamp, h.len)) else { return };
        let Ok(root) = self.canonical_root(fs) else { return };
        let now = self
            .confined(fs, &generated_path(SEARCH_INDEX_FILE))
            .ok()
            .and_then(|(root, path)| fs.metadata_beneath(&root, path.relative()).ok())
            .map(|m| (m.stamp, m.len));
        // While a run writes, the searcher loaded before is what the next search serves.
        if now == Some(loaded) || indexing(fs, &root) {
            return;
        }
        let mut c = lock(&self.search);
        if c.loaded.take_if(|h| Some((h.stamp, h.len)) != now).is_some() {
            tracing::debug!("{SEARCH_INDEX_FILE} changed: the search index loaded before is released");
        }
    }

    /// What the generation marker in `.generated/` says of `graph` (`None`: there is no
    /// `graph.json`) beside the search index loaded last ([`set`]).
    pub fn set_verdict(&self, fs: &dyn FileSystem, graph: Option<&LoadedGraph>) -> set::Verdict {
        const MAX_MARKER_BYTES: u64 = 4096;
        let marker = self
            .confined(fs, &generated_path(SET_FILE))
            .ok()
            .and_then(|(root, path)| fs.read_beneath(&root, path.relative(), MAX_MARKER_BYTES).ok())
            .and_then(|(bytes, _)| set::decode(&bytes));
        let search = lock(&self.search).loaded.as_ref().map(|h| h.piece);
        set::verdict(marker.as_ref(), graph.map(|g| g.piece), search)
    }

    /// Whether `graph index` is writing the generated files now.
    pub fn indexing(&self, fs: &dyn FileSystem) -> bool {
        self.canonical_root(fs).is_ok_and(|root| indexing(fs, &root))
    }

    /// Says an answer from the searcher was made: a digest check waiting for it may start.
    pub fn answered(&self) {
        if let Some(v) = lock(&self.search).loaded.as_mut().and_then(|h| h.verify.as_mut()) {
            v.go.take();
        }
    }

    /// Waits for the digest check of a searcher loaded from the sidecar, if one is running
    /// (tests; the server never waits).
    #[cfg(test)]
    fn settle(&self) {
        lock(&self.search).settle(true);
    }

    /// Reads a record's file: confined, opened beneath the root with no symlink followed, a
    /// regular file within the size cap, no NUL byte, valid UTF-8.
    pub fn read_record(&self, fs: &dyn FileSystem, stored_path: &str) -> Result<String, RecordError> {
        let (root, path) = self.confined(fs, stored_path).map_err(RecordError::Unavailable)?;
        let (bytes, _) = fs
            .read_beneath(&root, path.relative(), MAX_RECORD_BYTES)
            .map_err(|e| RecordError::Unavailable(e.into()))?;
        if bytes.contains(&0) {
            return Err(RecordError::Binary);
        }
        // Served as the index read it: bytes that are not UTF-8 become U+FFFD, as VitaeContext
        // 2.x reads a record (a Latin-1 file was searchable but "not found" when read).
        Ok(String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()))
    }
}

/// The open sidecar a searcher reads its texts from.
/// An open sidecar file, read where its layout says.
pub(crate) struct Sidecar(pub(crate) OpenFile);

impl domain::graph::search::ReadAt for Sidecar {
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
        self.0.read_exact_at(buf, offset)
    }
}

/// Refuses an index file larger than `MAX_INDEX_BYTES` when opened (one that grows past it
/// while read is cut there, and fails to parse).
fn check_len(path: &std::path::Path, len: u64) -> Result<(), Unavailable> {
    if len > MAX_INDEX_BYTES {
        return Err(Unavailable::Fs(FsError::new(
            FsErrorKind::TooLarge,
            path,
            format!("file is larger than {MAX_INDEX_BYTES} bytes"),
        )));
    }
    Ok(())
}

/// The [`checksum::checksum`] of what is left to read in `file`, read in 1 MiB pieces; `None` on
/// a read error.
fn checksum_of(file: &mut OpenFile) -> Option<u64> {
    let mut sum = checksum::Checksum::default();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        match std::io::Read::read(file, &mut buf) {
            Ok(0) => return Some(sum.finish()),
            Ok(k) => sum.update(&buf[..k]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return None,
        }
    }
}

/// Sums the opened JSON on its own thread, in 1 MiB reads (never the whole file in memory),
/// and tells whether it is the one the sidecar was built from. It starts once released (see
/// [`Verify`]).
fn verify_after(mut json: OpenFile, want: u64) -> Option<Verify> {
    let (go, released) = std::sync::mpsc::sync_channel::<()>(1);
    let check = move || {
        // A send, a drop of the sender or the grace period: all mean "start".
        let _ = released.recv_timeout(DIGEST_GRACE);
        checksum_of(&mut json) == Some(want)
    };
    let thread = std::thread::Builder::new().name("search-index digest".into());
    match thread.spawn(check) {
        Ok(thread) => Some(Verify { thread, go: Some(go) }),
        Err(e) => {
            tracing::warn!("no thread to check {SEARCH_INDEX_FILE} after answering ({e}); the sidecar is not used");
            None
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    #[error("{0}")]
    Unavailable(Unavailable),
    #[error("the record contains a NUL byte")]
    Binary,
}

/// The error count of a `diagnostics.json` that says `"valid": false`, read from `input`
/// without keeping the findings; `None` for one that says valid, or is not diagnostics (not
/// JSON, `valid` not a boolean, `errors` not a list).
fn diagnostics_verdict(input: impl std::io::Read) -> Option<usize> {
    use serde::de::{Deserialize, Deserializer, IgnoredAny, SeqAccess, Visitor};

    /// A list's length, its items skipped.
    #[derive(Default)]
    struct Count(usize);

    impl<'de> Deserialize<'de> for Count {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            struct Counting;
            impl<'de> Visitor<'de> for Counting {
                type Value = Count;
                fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                    f.write_str("a list")
                }
                fn visit_seq<A: SeqAccess<'de>>(self, mut items: A) -> Result<Count, A::Error> {
                    let mut n = 0;
                    while items.next_element::<IgnoredAny>()?.is_some() {
                        n += 1;
                    }
                    Ok(Count(n))
                }
            }
            d.deserialize_seq(Counting)
        }
    }

    #[derive(serde::Deserialize)]
    struct Said {
        valid: bool,
        #[serde(default)]
        errors: Count,
    }

    let v: Said = serde_json::from_reader(input).ok()?;
    (!v.valid).then_some(v.errors.0)
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use fs_memory::MemoryFs;

    use super::*;

    /// The sidecar `graph index` writes for `documents`, naming `json` (with stamp
    /// `json_stamp`) as the JSON beside it.
    fn sidecar_for<'a>(
        documents: impl IntoIterator<Item = &'a domain::graph::index::Document>,
        json: &[u8],
        json_stamp: u128,
    ) -> Vec<u8> {
        let mut b = domain::graph::sidecar::SidecarBuilder::default();
        for d in documents {
            b.add(d);
        }
        b.finish(sidecar::Source { json_len: json.len() as u64, json_sum: checksum::checksum(json), json_stamp })
    }

    /// The stamp of the file at `path`, as a sidecar written beside it records.
    fn stamp(fs: &MemoryFs, path: &str) -> u128 {
        fs.metadata(Path::new(path)).unwrap().stamp
    }

    /// The digest taken of graph.json, read in pieces, is the SHA-256 of its bytes, whatever
    /// its length; no file, no digest.
    #[test]
    fn the_digest_read_in_pieces_is_the_files_sha256() {
        let fs = MemoryFs::new();
        let root = Path::new("/g");
        let file = root.join(".generated/graph.json");
        fs.create_dir_all(file.parent().unwrap()).unwrap();
        let store = GraphStore::new(Some(root.to_path_buf()));
        assert_eq!(store.digest_now(&fs), None);
        for len in [0, 1, 256 * 1024, 256 * 1024 + 1, 700_001] {
            let bytes: Vec<u8> = (0..len).map(|i| (i * 7 % 251) as u8).collect();
            fs.write_atomic(&file, &bytes).unwrap();
            assert_eq!(store.digest_now(&fs), Some(Sha256::digest(&bytes).into()), "{len} bytes");
        }
    }

    /// Found in review: every search and resource read that found no index parsed the whole
    /// `diagnostics.json` to say whether the graph is invalid; a crafted 72 MB one took
    /// seconds and gigabytes a read. It is read once per version, its findings counted, not
    /// kept; anything that is not diagnostics says nothing.
    #[test]
    fn diagnostics_are_read_once_per_version_and_only_counted() {
        let fs = MemoryFs::new();
        let root = Path::new("/g");
        let file = root.join(".generated/diagnostics.json");
        fs.create_dir_all(file.parent().unwrap()).unwrap();
        let store = GraphStore::new(Some(root.to_path_buf()));
        let finding = r#"{"code":"duplicate_id","path":"a.md","message":"m"}"#;
        let invalid =
            format!(r#"{{"version":"2.0.0","valid":false,"records":3,"errors":[{finding},{finding}],"warnings":[]}}"#);
        fs.write_atomic(&file, invalid.as_bytes()).unwrap();
        assert_eq!(store.invalid_errors(&fs), Some(2));
        let reads = fs.reads();
        assert_eq!(store.invalid_errors(&fs), Some(2));
        assert_eq!(fs.reads(), reads, "the same file is not read again");
        let cases: [(&str, Option<usize>); 7] = [
            (r#"{"valid":false,"errors":[]}"#, Some(0)),
            (r#"{"valid":false}"#, Some(0)),
            (r#"{"valid":true,"errors":[1]}"#, None),
            (r#"{"valid":"false","errors":[1]}"#, None),
            (r#"{"valid":false,"errors":{}}"#, None),
            (r#"{"valid":false,"errors":[[[[1]]]]} trailing"#, None),
            ("not json", None),
        ];
        for (text, want) in cases {
            fs.write_atomic(&file, text.as_bytes()).unwrap();
            assert_eq!(store.invalid_errors(&fs), want, "{text}");
        }
    }

    // The search index is streamed into the searcher document by document; it must answer
    // exactly as one built from the whole parsed file (files from 2.x list ids out of order).
    #[test]
    fn a_streamed_search_index_answers_like_a_parsed_one() {
        use domain::graph::index::{Document, SearchIndex, Tag, term_counts};
        use domain::graph::search::Query;
        let doc = |id: &str, title: &str, text: &str| Document {
            id: id.into(),
            kind: "Project".into(),
            title: title.into(),
            path: format!("projects/{id}.md"),
            text: text.into(),
            tags: vec![Tag::Str("rust".into()), Tag::Bool(true)],
            terms: term_counts(&format!("{title} rust {text}")),
        };
        let index = SearchIndex {
            version: "2.0.0".into(),
            algorithm: "lexical-term-frequency".into(),
            documents: vec![
                doc("project:zeta", "Build-cache warden", "Audits remote build caches. node.js and Rust."),
                doc("project:alpha", "Pipeline lens", "Profiles CI logs; mentions cache once."),
                doc("project:mid", "Rust rust rust", &"long text about latency ".repeat(40)),
            ],
        };
        let fs = MemoryFs::new();
        let root = Path::new("/g");
        fs.create_dir_all(&root.join(".generated")).unwrap();
        fs.write_atomic(&root.join(".generated/search-index.json"), &serde_json::to_vec(&index).unwrap()).unwrap();
        let store = GraphStore::new(Some(root.to_path_buf()));
        let streamed = store.searcher(&fs).expect("loads");
        let parsed = Searcher::new(index);
        for text in [Some("rust"), Some("cache"), Some("latency warden"), Some("zeta"), Some("true"), None] {
            let q = Query { text, ..Default::default() };
            assert_eq!(streamed.search(&q), parsed.search(&q), "{text:?}");
        }
        fs.write_atomic(&root.join(".generated/search-index.json"), br#"{"version":"2","documents":[]}"#).unwrap();
        assert!(store.searcher(&fs).is_err(), "a file without `algorithm` is refused as before");
    }

    // Regression: an invalid graph.json of gigabytes was read and hashed again on every request.
    #[test]
    fn an_unchanged_invalid_index_is_read_once() {
        let fs = MemoryFs::new();
        let root = Path::new("/g");
        fs.create_dir_all(&root.join(".generated")).unwrap();
        let file = root.join(".generated/graph.json");
        fs.write_atomic(&file, b"{ not json").unwrap();
        let store = GraphStore::new(Some(root.to_path_buf()));
        let first = store.graph(&fs).err().expect("invalid JSON is refused").to_string();
        for _ in 0..3 {
            let again = store.graph(&fs).err().expect("still refused").to_string();
            assert_eq!(again, first, "the same error each time");
        }
        assert_eq!(fs.reads(), 1, "an unchanged invalid file is read once");

        // A new version is read again, and once valid it is served.
        fs.write_atomic(&file, br#"{"version":"2.0.0","source":"x","nodes":[],"edges":[]}"#).unwrap();
        assert!(store.graph(&fs).is_ok());
        assert_eq!(fs.reads(), 2);
        assert!(store.graph(&fs).is_ok());
        assert_eq!(fs.reads(), 2, "a valid file is not read again either");
    }

    /// Regression: at 100,000 records a search made while `graph index` wrote its files found
    /// the new `search-index.json` before its sidecar and loaded the JSON: seconds and
    /// hundreds of MB, several times per edit under `mcp --watch`. While an index holds the
    /// root's lock, a JSON without its sidecar is not loaded: the searcher loaded before is
    /// served, and the run's sidecar is used once the run ends.
    #[test]
    fn a_json_without_its_sidecar_is_not_loaded_while_an_index_is_written() {
        let fs = MemoryFs::new();
        let store = store_with(&fs);
        let before = sample_index(&["kafka streams"]);
        fs.write_atomic(Path::new(JSON), &crate::usecase::graph::json_bytes(&before)).unwrap();
        let old = store.searcher(&fs).unwrap();

        let run = fs.lock_dir(Path::new("/g"), false).unwrap().expect("no other index");
        let after = sample_index(&["bazel caches"]);
        let json = crate::usecase::graph::json_bytes(&after);
        fs.write_atomic(Path::new(JSON), &json).unwrap();
        let reads = fs.reads();
        assert!(Arc::ptr_eq(&store.searcher(&fs).unwrap(), &old), "the searcher loaded before");
        // The sidecar was looked for (one read that failed); the JSON was not read.
        assert_eq!(fs.reads() - reads, 1, "the JSON is not loaded while the run writes");

        fs.write_atomic(Path::new(BIN), &sidecar_for(&after.documents, &json, stamp(&fs, JSON))).unwrap();
        drop(run);
        assert_eq!(ids(&store.searcher(&fs).unwrap(), "bazel"), ["project:p0"], "the run's index, once it ended");
    }

    /// Found in review: serving the old searcher for as long as any run held the lock skipped
    /// a whole newer index (JSON and sidecar) left by the run before, under `--watch` for as
    /// long as edits kept coming. A JSON whose sidecar is there is loaded, lock or not; so is
    /// graph.json, which has no sidecar to wait for.
    #[test]
    fn a_whole_newer_index_is_loaded_while_the_next_run_holds_the_lock() {
        let fs = MemoryFs::new();
        let store = store_with(&fs);
        let graph = Path::new("/g/.generated/graph.json");
        let g = |source: &str| format!(r#"{{"version":"2.0.0","source":"{source}","nodes":[],"edges":[]}}"#);
        fs.write_atomic(graph, g("run 1").as_bytes()).unwrap();
        fs.write_atomic(Path::new(JSON), &crate::usecase::graph::json_bytes(&sample_index(&["kafka"]))).unwrap();
        let _ = (store.graph(&fs).unwrap(), store.searcher(&fs).unwrap());
        // Run 2 lands whole, and no request comes before run 3 takes the lock.
        let index = sample_index(&["bazel"]);
        let json = crate::usecase::graph::json_bytes(&index);
        fs.write_atomic(graph, g("run 2").as_bytes()).unwrap();
        fs.write_atomic(Path::new(JSON), &json).unwrap();
        fs.write_atomic(Path::new(BIN), &sidecar_for(&index.documents, &json, stamp(&fs, JSON))).unwrap();
        let _run = fs.lock_dir(Path::new("/g"), false).unwrap().expect("run 3");
        assert_eq!(store.graph(&fs).unwrap().graph.source, "run 2");
        assert_eq!(ids(&store.searcher(&fs).unwrap(), "bazel"), ["project:p0"], "run 2's search index");
    }

    #[test]
    fn with_nothing_loaded_the_files_there_are_loaded_even_during_an_index() {
        let fs = MemoryFs::new();
        let store = store_with(&fs);
        fs.write_atomic(Path::new(JSON), &crate::usecase::graph::json_bytes(&sample_index(&["kafka"]))).unwrap();
        let _run = fs.lock_dir(Path::new("/g"), false).unwrap().expect("no other index");
        assert_eq!(ids(&store.searcher(&fs).unwrap(), "kafka"), ["project:p0"], "served rather than nothing");
    }

    /// Found measuring `mcp --watch` at 100,000 records: with nothing loaded (the searcher
    /// before was released when its run landed), a search between the next run's JSON and its
    /// sidecar loaded the JSON (2.3 s, 150 MB more). It waits for the run to end and loads the
    /// run's sidecar.
    #[test]
    fn with_nothing_loaded_a_json_waits_a_moment_for_its_sidecar() {
        let fs = MemoryFs::new();
        let store = store_with(&fs);
        let run = fs.lock_dir(Path::new("/g"), false).unwrap().expect("no other index");
        let index = sample_index(&["bazel caches"]);
        let json = crate::usecase::graph::json_bytes(&index);
        fs.write_atomic(Path::new(JSON), &json).unwrap();
        let start = std::time::Instant::now();
        let searcher = std::thread::scope(|s| {
            s.spawn(|| {
                std::thread::sleep(Duration::from_millis(150));
                fs.write_atomic(Path::new(BIN), &sidecar_for(&index.documents, &json, stamp(&fs, JSON))).unwrap();
                drop(run);
            });
            store.searcher(&fs).unwrap()
        });
        assert!(start.elapsed() >= Duration::from_millis(150), "answered once the run ended");
        assert_eq!(ids(&searcher, "bazel"), ["project:p0"]);
        let from_sidecar = lock(&store.search).loaded.as_ref().is_some_and(|h| h.verify.is_some());
        assert!(from_sidecar, "loaded from the run's sidecar, not from the JSON");
    }

    fn sample_index(texts: &[&str]) -> domain::graph::SearchIndex {
        use domain::graph::index::{Document, Tag, term_counts};
        let documents = texts
            .iter()
            .enumerate()
            .map(|(i, text)| Document {
                id: format!("project:p{i}"),
                kind: "Project".into(),
                title: format!("Project {i}"),
                path: format!("projects/p{i}.md"),
                text: (*text).into(),
                tags: vec![Tag::Str("rust".into())],
                terms: term_counts(&format!("Project {i} rust {text}")),
            })
            .collect();
        domain::graph::SearchIndex { version: "2.0.0".into(), algorithm: "lexical-term-frequency".into(), documents }
    }

    const JSON: &str = "/g/.generated/search-index.json";
    const BIN: &str = "/g/.generated/search-index.bin";

    fn store_with(fs: &MemoryFs) -> GraphStore {
        fs.create_dir_all(Path::new("/g/.generated")).unwrap();
        GraphStore::new(Some(PathBuf::from("/g")))
    }

    fn ids(s: &Searcher, text: &str) -> Vec<String> {
        let q = domain::graph::search::Query { text: Some(text), ..Default::default() };
        s.search(&q).records.into_iter().map(|h| h.id).collect()
    }

    // The sidecar answers first; the JSON's digest, checked after, decides whether it stays.
    #[test]
    fn a_sidecar_that_names_another_json_is_dropped_after_the_digest_check() {
        let fs = MemoryFs::new();
        let store = store_with(&fs);
        let index = sample_index(&["kafka streams", "bazel caches"]);
        let json = crate::usecase::graph::json_bytes(&index);
        fs.write_atomic(Path::new(JSON), &json).unwrap();
        // Same length, other documents, other digest: only the digest can tell.
        let other = sample_index(&["bazel streams", "kafka caches"]);
        let other_json = crate::usecase::graph::json_bytes(&other);
        assert_eq!(json.len(), other_json.len());
        let sidecar = sidecar_for(&other.documents, &other_json, stamp(&fs, JSON));
        fs.write_atomic(Path::new(BIN), &sidecar).unwrap();
        let first = store.searcher(&fs).unwrap();
        assert_eq!(ids(&first, "kafka"), ["project:p1"], "the sidecar answered first");
        store.settle();
        let next = store.searcher(&fs).unwrap();
        assert_eq!(ids(&next, "kafka"), ["project:p0"], "then the JSON, once the digest disagreed");
        assert!(Arc::ptr_eq(&next, &store.searcher(&fs).unwrap()), "and it stays loaded");
    }

    // Found in review: a sidecar beside another JSON of the same length (copied from another
    // machine, say) answered the first searches, until the digest check after them. A sidecar
    // whose JSON no longer has the stamp it recorded is trusted only once the JSON's digest
    // agrees, before any answer.
    #[test]
    fn a_sidecar_beside_a_json_it_was_not_written_beside_is_hashed_before_it_answers() {
        let index = sample_index(&["kafka streams", "bazel caches"]);
        let json = crate::usecase::graph::json_bytes(&index);
        let other = sample_index(&["bazel streams", "kafka caches"]);
        let other_json = crate::usecase::graph::json_bytes(&other);
        assert_eq!(json.len(), other_json.len());
        // Another graph's sidecar, written beside a JSON of the same length.
        let fs = MemoryFs::new();
        let store = store_with(&fs);
        fs.write_atomic(Path::new(JSON), &json).unwrap();
        let foreign = sidecar_for(&other.documents, &other_json, stamp(&fs, JSON) + 1);
        fs.write_atomic(Path::new(BIN), &foreign).unwrap();
        for _ in 0..3 {
            assert_eq!(ids(&store.searcher(&fs).unwrap(), "kafka"), ["project:p0"], "the JSON answers, first too");
        }
        // A sidecar that names this JSON's digest under another stamp (a copied graph) is used,
        // after the digest: here it holds other documents, so its answer shows it was used.
        let fs = MemoryFs::new();
        let store = store_with(&fs);
        fs.write_atomic(Path::new(JSON), &json).unwrap();
        let copied = sidecar_for(&other.documents, &json, stamp(&fs, JSON) + 1);
        fs.write_atomic(Path::new(BIN), &copied).unwrap();
        assert_eq!(ids(&store.searcher(&fs).unwrap(), "kafka"), ["project:p1"], "the sidecar, once hashed");
    }

    #[test]
    fn a_good_sidecar_answers_like_the_json_and_stays() {
        let fs = MemoryFs::new();
        let store = store_with(&fs);
        let index = sample_index(&["kafka streams", "bazel caches", "rust rust"]);
        let json = crate::usecase::graph::json_bytes(&index);
        fs.write_atomic(Path::new(JSON), &json).unwrap();
        fs.write_atomic(Path::new(BIN), &sidecar_for(&index.documents, &json, stamp(&fs, JSON))).unwrap();
        let from_sidecar = store.searcher(&fs).unwrap();
        let reads = fs.reads();
        store.settle();
        assert!(Arc::ptr_eq(&from_sidecar, &store.searcher(&fs).unwrap()), "the digest agreed: kept");
        assert_eq!(fs.reads(), reads, "and nothing read again");
        let parsed = Searcher::new(index);
        for text in ["kafka", "rust", "p1", "caches streams"] {
            assert_eq!(ids(&from_sidecar, text), ids(&parsed, text), "{text}");
        }
    }

    /// A graph of two records whose sidecar has the last text (`bazel caches`) damaged.
    fn with_a_damaged_text() -> (MemoryFs, GraphStore) {
        let index = sample_index(&["kafka streams", "bazel caches"]);
        let json = crate::usecase::graph::json_bytes(&index);
        let mut damaged = sidecar_for(&index.documents, &json, 0);
        let last = damaged.len() - 1;
        damaged[last] ^= 1;
        let fs = MemoryFs::new();
        let store = store_with(&fs);
        fs.write_atomic(Path::new(JSON), &json).unwrap();
        fs.write_atomic(Path::new(BIN), &damaged).unwrap();
        (fs, store)
    }

    /// The sidecar's texts are read when a hit needs one, each checked then: a damaged one is
    /// never served. The answer is made again from the JSON, and the JSON serves from then on.
    #[test]
    fn a_sidecar_text_that_fails_its_check_is_answered_from_the_json() {
        let query = domain::graph::search::Query { text: Some("caches"), ..Default::default() };
        let excerpts = |r: domain::graph::search::Results| r.records.into_iter().map(|h| h.excerpt).collect::<Vec<_>>();

        let (fs, store) = with_a_damaged_text();
        let first = store.searcher(&fs).unwrap();
        assert_eq!(excerpts(first.search(&query)), [""], "the sidecar, its damaged text left out");
        assert!(first.is_damaged());
        let next = store.searcher(&fs).unwrap();
        assert!(!Arc::ptr_eq(&first, &next), "dropped");
        assert_eq!(excerpts(next.search(&query)), ["bazel caches"], "the JSON");
        assert!(Arc::ptr_eq(&next, &store.searcher(&fs).unwrap()), "and it stays loaded");

        let (fs, store) = with_a_damaged_text();
        let answer = store.with_searcher(&fs, |s| s.search(&query)).unwrap();
        assert_eq!(excerpts(answer), ["bazel caches"], "made again, in the same request");
    }

    /// A searcher whose JSON was replaced is released by the watcher's next look, not held
    /// until the next search; while an index run holds the lock it stays, to be served.
    #[test]
    fn a_searcher_of_a_replaced_index_is_released() {
        let fs = MemoryFs::new();
        let store = store_with(&fs);
        let index = sample_index(&["kafka streams"]);
        let json = crate::usecase::graph::json_bytes(&index);
        fs.write_atomic(Path::new(JSON), &json).unwrap();
        fs.write_atomic(Path::new(BIN), &sidecar_for(&index.documents, &json, stamp(&fs, JSON))).unwrap();
        let held = store.searcher(&fs).unwrap();
        store.release_stale_searcher(&fs);
        assert_eq!(Arc::strong_count(&held), 2, "unchanged: kept");
        let newer = crate::usecase::graph::json_bytes(&sample_index(&["bazel caches"]));
        fs.write_atomic(Path::new(JSON), &newer).unwrap();
        let run = fs.lock_dir(Path::new("/g"), false).unwrap().expect("no other index");
        store.release_stale_searcher(&fs);
        assert_eq!(Arc::strong_count(&held), 2, "kept while a run writes");
        drop(run);
        store.release_stale_searcher(&fs);
        assert_eq!(Arc::strong_count(&held), 1, "released");
        assert_eq!(ids(&store.searcher(&fs).unwrap(), "bazel"), ["project:p0"], "the new index at the next search");
    }

    /// Found in review: an answer made again after a damaged text, when the JSON cannot be
    /// loaded either (removed meanwhile), must not read as if the records were searched.
    #[test]
    fn an_answer_made_again_without_any_index_says_so() {
        use crate::usecase::grounding::Files;
        let (fs, store) = with_a_damaged_text();
        let mut files = Files { searcher: Some(store.searcher(&fs).unwrap()), ..Files::default() };
        fs.remove_file(Path::new(JSON)).unwrap();
        let query = domain::graph::search::Query { text: Some("caches"), ..Default::default() };
        let hits = files.answer(&store, &fs, |f| f.searcher.as_ref().map(|s| s.search(&query).records.len()));
        assert_eq!(hits, None, "answered again, without the graph");
        assert!(files.notes.iter().any(|n| n.contains("the detailed records were not searched")), "{:?}", files.notes);
    }

    // A sidecar that is damaged, older than the JSON or built for another length is ignored.
    #[test]
    fn a_corrupt_or_stale_sidecar_is_ignored() {
        let index = sample_index(&["kafka streams", "bazel caches"]);
        let json = crate::usecase::graph::json_bytes(&index);
        let good = sidecar_for(&index.documents, &json, 0);
        let other = sample_index(&["bazel streams", "kafka caches"]);
        let lying = sidecar_for(&other.documents, &json, 0);
        let mut flipped = lying.clone();
        flipped[sidecar::HEADER_LEN + 30] ^= 1;
        let mut truncated = lying.clone();
        truncated.truncate(lying.len() - 9);
        let mut version = lying.clone();
        version[8] = 9;
        // VitaeContext 2.3.0 rewrites the JSON (same documents, compact) and leaves the sidecar.
        let compact = serde_json::to_vec(&index).unwrap();
        let cases: [(&str, &[u8], &[u8], bool); 5] = [
            ("flipped", &flipped, &json, false),
            ("truncated", &truncated, &json, false),
            ("version", &version, &json, false),
            ("other length", &lying, &compact, true),
            ("older", &lying, &json, true),
        ];
        for (what, sidecar, json, json_after) in cases {
            let fs = MemoryFs::new();
            let store = store_with(&fs);
            if json_after {
                fs.write_atomic(Path::new(BIN), sidecar).unwrap();
                fs.write_atomic(Path::new(JSON), json).unwrap();
            } else {
                fs.write_atomic(Path::new(JSON), json).unwrap();
                fs.write_atomic(Path::new(BIN), sidecar).unwrap();
            }
            assert_eq!(ids(&store.searcher(&fs).unwrap(), "kafka"), ["project:p0"], "{what}: the JSON answers");
        }
        // No JSON: nothing is served, whatever the sidecar.
        let fs = MemoryFs::new();
        let store = store_with(&fs);
        fs.write_atomic(Path::new(BIN), &good).unwrap();
        assert!(store.searcher(&fs).is_err(), "the JSON is the contract");
    }
}

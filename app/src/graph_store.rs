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

use domain::graph::confine::{self, ConfinedPath, Deny};
use domain::graph::index::Graph;
use domain::graph::search::Searcher;
use domain::graph::{GRAPH_FILE, MAX_RECORD_BYTES, SEARCH_INDEX_FILE, generated_path};
use ports::fs::{ConfineView, FileSystem};
use sha2::{Digest, Sha256};

/// The largest generated file loaded (a 100,000-record search index is a few hundred MB).
const MAX_INDEX_BYTES: u64 = 2 * 1024 * 1024 * 1024;

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
    #[error("the file is not valid JSON of the expected shape: {0}")]
    Json(#[from] serde_json::Error),
}

pub struct LoadedGraph {
    /// The file's text, served as `vitaegraph://index`.
    pub raw: String,
    pub graph: Graph,
    pub by_id: HashMap<String, usize>,
    /// Ids in byte order, for completion.
    pub sorted_ids: Vec<String>,
}

struct Cached<T> {
    stamp: u128,
    len: u64,
    digest: [u8; 32],
    value: Arc<T>,
}

pub struct GraphStore {
    root: Option<PathBuf>,
    canonical: Mutex<Option<PathBuf>>,
    graph: Mutex<Option<Cached<LoadedGraph>>>,
    search: Mutex<Option<Cached<Searcher>>>,
}

impl std::fmt::Debug for GraphStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GraphStore").field("root", &self.root).finish_non_exhaustive()
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl GraphStore {
    pub fn new(root: Option<PathBuf>) -> Self {
        Self { root, canonical: Mutex::new(None), graph: Mutex::new(None), search: Mutex::new(None) }
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
        cache: &Mutex<Option<Cached<T>>>,
        stored: &str,
        parse: impl FnOnce(Vec<u8>) -> Result<T, Unavailable>,
    ) -> Result<Arc<T>, Unavailable> {
        let (root, path) = self.confined(fs, stored)?;
        let mut c = lock(cache);
        // A hit only ever returns what an earlier confined read gave, so checking the stamp
        // needs no more than the same handle-based walk.
        let seen = fs.metadata_beneath(&root, path.relative())?;
        if let Some(hit) = c.as_ref().filter(|h| h.stamp == seen.stamp && h.len == seen.len) {
            return Ok(Arc::clone(&hit.value));
        }
        let (bytes, meta) = fs.read_beneath(&root, path.relative(), MAX_INDEX_BYTES)?;
        let digest: [u8; 32] = Sha256::digest(&bytes).into();
        // Rewritten with the same bytes (a rerun of `graph index`): keep the parsed value.
        if let Some(hit) = c.as_mut().filter(|h| h.digest == digest) {
            hit.stamp = meta.stamp;
            hit.len = meta.len;
            return Ok(Arc::clone(&hit.value));
        }
        tracing::info!(file = stored, bytes = bytes.len(), "loading the VitaeGraph index");
        let value = Arc::new(parse(bytes)?);
        *c = Some(Cached { stamp: meta.stamp, len: meta.len, digest, value: Arc::clone(&value) });
        Ok(value)
    }

    pub fn graph(&self, fs: &dyn FileSystem) -> Result<Arc<LoadedGraph>, Unavailable> {
        self.load(fs, &self.graph, &generated_path(GRAPH_FILE), |bytes| {
            let raw = String::from_utf8(bytes)
                .map_err(|e| Unavailable::Json(serde::de::Error::custom(format!("{GRAPH_FILE} is not UTF-8: {e}"))))?;
            let graph: Graph = serde_json::from_str(&raw)?;
            let by_id = graph.nodes.iter().enumerate().map(|(i, n)| (n.id.clone(), i)).collect();
            let mut sorted_ids: Vec<String> = graph.nodes.iter().map(|n| n.id.clone()).collect();
            sorted_ids.sort();
            Ok(LoadedGraph { raw, graph, by_id, sorted_ids })
        })
    }

    pub fn searcher(&self, fs: &dyn FileSystem) -> Result<Arc<Searcher>, Unavailable> {
        self.load(fs, &self.search, &generated_path(SEARCH_INDEX_FILE), |bytes| {
            Ok(Searcher::new(serde_json::from_slice(&bytes)?))
        })
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
        String::from_utf8(bytes).map_err(|_| RecordError::NotUtf8)
    }
}

#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    #[error("{0}")]
    Unavailable(Unavailable),
    #[error("the record contains a NUL byte")]
    Binary,
    #[error("the record is not valid UTF-8")]
    NotUtf8,
}

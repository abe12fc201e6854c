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
    /// A load that failed on these same bytes before (same stamp and length): the same error,
    /// answered without reading the file again.
    #[error("{0}")]
    Remembered(Arc<Unavailable>),
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

pub struct GraphStore {
    root: Option<PathBuf>,
    canonical: Mutex<Option<PathBuf>>,
    graph: Mutex<Slot<LoadedGraph>>,
    search: Mutex<Slot<Searcher>>,
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
        Self { root, canonical: Mutex::new(None), graph: Mutex::default(), search: Mutex::default() }
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
        match parse(bytes) {
            Ok(value) => {
                let value = Arc::new(value);
                c.loaded = Some(Cached { stamp: meta.stamp, len: meta.len, digest, value: Arc::clone(&value) });
                c.failed = None;
                Ok(value)
            }
            Err(error) => {
                let error = Arc::new(error);
                c.failed = Some(Failed { stamp: meta.stamp, len: meta.len, error: Arc::clone(&error) });
                Err(Unavailable::Remembered(error))
            }
        }
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
            // Streamed into the searcher one document at a time (no full document list).
            let mut de = serde_json::Deserializer::from_slice(&bytes);
            let searcher = domain::graph::search::deserialize(&mut de)?;
            de.end()?;
            Ok(searcher)
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

#[cfg(test)]
mod tests {
    use std::path::Path;

    use fs_memory::MemoryFs;

    use super::*;

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
}

//! Whether the records changed since the index in `.generated/` was written: what `mcp`
//! without `--watch` says beside its search results rather than serve a stale index silently.
//!
//! The index was written from the records as they were when its files were last written:
//! `graph.json`, or the manifest a run with no output rewrites after a record was only touched.
//! A record file modified after the later of the two, whose bytes are not what the run saw,
//! changed (or was added) since; a record `graph.json` lists that is no longer there was
//! removed. A record moved in with an old modification time (`mv`, `cp -p`) and not listed is
//! not seen: its folder's listing is all that changed.

use std::collections::HashSet;
use std::path::Path;

use domain::graph::index::Record;
use domain::graph::manifest::{self, MANIFEST_FILE, Seen};
use domain::graph::{GENERATED_DIR, GRAPH_FILE, MAX_RECORD_BYTES};
use ports::fs::FileSystem;
use sha2::{Digest, Sha256};
use std::collections::HashMap;

use super::read::markdown_files;

/// What changed among the records since the index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stale {
    pub changed: usize,
    pub added: usize,
    pub removed: usize,
    /// One of them (the first in path order), as a path below the root.
    pub example: String,
}

impl Stale {
    /// In words, for a person or a model.
    pub fn reason(&self) -> String {
        let mut parts = Vec::new();
        for (n, what) in [(self.changed, "changed"), (self.added, "added"), (self.removed, "removed")] {
            if n > 0 {
                parts.push(format!("{n} record file(s) {what}"));
            }
        }
        format!(
            "{} since the index was written (for one, {}); these results come from the index as it was",
            parts.join(", "),
            self.example
        )
    }
}

/// What changed below `root` since its index, whose `graph.json` lists the record paths
/// `indexed`; `None` when nothing did, or when it cannot be told (no index, no file times).
///
/// A file modified since is compared with what the index run's manifest saw of it (length and
/// stamp, else its SHA-256): a copy or a checkout of the graph gives every file a new time and
/// changes nothing. Without a manifest of this root (an index VitaeContext 2.3.0 wrote, or one
/// copied from elsewhere), a listed file cannot be told changed and is not counted; an unlisted
/// one below a folder is counted as added (the root's own pages, `VITAEGRAPH.md` and
/// `index.md`, are no records).
pub fn since_index<'a>(fs: &dyn FileSystem, root: &Path, indexed: impl Iterator<Item = &'a str>) -> Option<Stale> {
    let generated = root.join(GENERATED_DIR);
    let written =
        [GRAPH_FILE, MANIFEST_FILE].iter().filter_map(|f| fs.metadata(&generated.join(f)).ok()?.modified_ns).max()?;
    let held = fs.hold_root(root).ok()?;
    let walked = markdown_files(fs, &*held, root, true).ok()?;
    let indexed: HashSet<&str> = indexed.collect();
    let mut seen = HashSet::new();
    let mut newer = Vec::new();
    for (path, _, meta) in &walked.files {
        let Some(rel) = path.strip_prefix(root).ok().and_then(Path::to_str) else { continue };
        let listed = indexed.get(rel).copied();
        seen.extend(listed);
        let meta = match meta {
            Some(m) => *m,
            None => match fs.metadata(path) {
                Ok(m) => m,
                Err(_) => continue,
            },
        };
        if meta.modified_ns.is_some_and(|m| m > written) {
            newer.push((rel, meta, listed.is_some()));
        }
    }
    let mut gone: Vec<&str> = indexed.difference(&seen).copied().collect();
    gone.sort_unstable();
    // Read only when some file is newer than the index (the manifest of a large graph is
    // tens of MB), keeping what it saw of those files alone: each record decoded is dropped.
    let manifest = if newer.is_empty() { None } else { seen_of(fs, root, newer.iter().map(|n| n.0)) };
    let (mut changed, mut added, mut example) = (0, 0, None);
    for (rel, meta, listed) in newer {
        let differs = match &manifest {
            Some(manifest) => match manifest.get(rel) {
                Some(was) if was.len == meta.len && was.stamp == meta.stamp => false,
                Some(was) => fs
                    .read_beneath(root, Path::new(rel), MAX_RECORD_BYTES)
                    .map_or(true, |(bytes, _)| <[u8; 32]>::from(Sha256::digest(&bytes)) != was.sha256),
                None => true,
            },
            None => !listed && rel.contains('/'),
        };
        if !differs {
            continue;
        }
        if listed {
            changed += 1;
        } else {
            added += 1;
        }
        example.get_or_insert_with(|| rel.to_owned());
    }
    let removed = gone.len();
    let example = example.or_else(|| gone.first().map(|g| (*g).to_owned()))?;
    Some(Stale { changed, added, removed, example })
}

/// What the manifest of this root saw of the files `wanted`, by path; `None` without a whole
/// manifest of this root.
fn seen_of<'a>(
    fs: &dyn FileSystem,
    root: &Path,
    wanted: impl Iterator<Item = &'a str>,
) -> Option<HashMap<String, Seen>> {
    struct Wanted<'w> {
        wanted: HashSet<&'w str>,
        found: HashMap<String, Seen>,
    }
    impl manifest::Entries for Wanted<'_> {
        fn reserve(&mut self, _: usize) {}
        fn push(&mut self, seen: Seen, record: Record) {
            if self.wanted.contains(record.page.path.as_str()) {
                self.found.insert(record.page.path, seen);
            }
        }
    }
    let identity = fs.canonicalize(root).ok()?.to_string_lossy().into_owned();
    let (mut file, meta) = fs.open_beneath(root, &Path::new(GENERATED_DIR).join(MANIFEST_FILE)).ok()?;
    // As `graph index` reads it: a larger one is none this version wrote (found in review: a
    // 2.5 GiB one held 4.2 GB of the server's memory at each search).
    if meta.len > super::read::MAX_MANIFEST_BYTES {
        return None;
    }
    let mut into = Wanted { wanted: wanted.collect(), found: HashMap::new() };
    (manifest::decode_from(&mut file, meta.len, &mut into)? == identity).then_some(into.found)
}

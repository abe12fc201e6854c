//! The server's quick path (`mcp --watch`): records whose change the watcher reports are read
//! within milliseconds and searched beside the index on disk ([`PendingRecords`]), while the
//! debounced index run that writes them into `.generated/` follows (seconds at 100,000
//! records). Nothing here writes a file.

use std::collections::HashSet;
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, mpsc};
use std::time::{Duration, Instant};

use domain::graph::index::{Document, Plan, Record};
use domain::graph::{GENERATED_DIR, MAX_RECORD_BYTES};
use ports::fs::{FileKind, FileSystem, FsErrorKind};
use ports::watch::WatchEvent;

use crate::graph_store::PendingRecords;

/// The changes of a burst are read once they have been quiet this long: an editor's save (a
/// write, a rename, an attribute change) is a few events a few milliseconds apart.
pub const QUIET: Duration = Duration::from_millis(20);
/// ...or this long after the first, while changes keep coming.
pub const MAX_WAIT: Duration = Duration::from_millis(100);

/// How long [`follow`] waits, with the index runs' batches closing after `index`: well
/// before them, so that the run a change starts finds it pending and settles it. (A change
/// read after that run started stays pending, read as it now is, until the next run.)
pub fn timings(index: super::Timings) -> super::Timings {
    super::Timings { quiet: QUIET.min(index.quiet / 4), max_wait: MAX_WAIT.min(index.quiet / 2) }
}
/// A burst of more paths than this (a checkout, a script) is left to the index run: reading
/// them here would only delay it.
pub const MAX_BURST: usize = 256;

/// The path of `path` (absolute, below `root`) as a record path would name it, if the index
/// walks there: outside every `.generated/` folder, UTF-8, not the root itself.
fn record_path(root: &Path, path: &Path) -> Option<(String, PathBuf)> {
    let rel = path.strip_prefix(root).ok()?;
    let mut names = Vec::new();
    for c in rel.components() {
        match c {
            Component::Normal(n) if n != GENERATED_DIR => names.push(n.to_str()?),
            _ => return None,
        }
    }
    (!names.is_empty()).then(|| (names.join("/"), rel.to_path_buf()))
}

/// What each of `paths` holds now, as the index would read it: a `.md` file's search document,
/// or `None` for a record that is gone (or one the index would leave out or search cannot
/// list: a NUL byte, no id, over the size cap). A path the index resolves otherwise (a
/// symlink, a folder now in its place, one that cannot be read) is left to the index run. A
/// path that is not a `.md` file and is gone is a folder removed or moved away, whose
/// records are gone with it (`None` too: [`Pending`] hides what lies below it).
///
/// [`Pending`]: domain::graph::search::Pending
pub fn read_changes<'p>(
    fs: &dyn FileSystem,
    root: &Path,
    paths: impl IntoIterator<Item = &'p Path>,
) -> Vec<(String, Option<Document>)> {
    let mut out = Vec::new();
    for path in paths {
        let Some((name, rel)) = record_path(root, path) else { continue };
        if rel.extension().is_none_or(|e| e != "md") {
            if fs.symlink_metadata(path).is_err_and(|e| e.kind == FsErrorKind::NotFound) {
                out.push((name, None));
            }
            continue;
        }
        let doc = match fs.read_beneath(root, &rel, MAX_RECORD_BYTES) {
            Ok((bytes, _)) if bytes.contains(&0) => None,
            Ok((bytes, _)) => {
                let record = Record::parse(&name, &String::from_utf8_lossy(&bytes));
                let plan = Plan::new(std::slice::from_ref(&record));
                (!plan.graph.nodes.is_empty()).then(|| plan.document(0))
            }
            Err(e) if matches!(e.kind, FsErrorKind::NotFound | FsErrorKind::TooLarge) => None,
            Err(_) => continue,
        };
        out.push((name, doc));
    }
    out
}

/// Adds to `paths` the files in the folders among them (below `root`, not the root itself): a
/// folder made (or moved in) is watched only once its event has arrived, and the record
/// written into it just after it was made is often reported by nothing else (one record per
/// folder is the canonical layout). Symlinks are not followed, `.generated/` is not entered.
/// `false` once past [`MAX_BURST`] entries of any kind. A folder swapped for a symlink while
/// it is listed may have the link's target listed: only names, since each record is then read
/// with `read_beneath`, which refuses a path through a symlink.
fn add_folders(fs: &dyn FileSystem, root: &Path, paths: &mut HashSet<PathBuf>) -> bool {
    let mut folders: Vec<PathBuf> = paths
        .iter()
        .filter(|p| record_path(root, p).is_some())
        .filter(|p| fs.symlink_metadata(p).is_ok_and(|m| m.kind == FileKind::Dir))
        .cloned()
        .collect();
    let mut entries_seen = 0;
    while let Some(dir) = folders.pop() {
        let Ok(entries) = fs.read_dir(&dir) else { continue };
        for e in entries {
            entries_seen += 1;
            if entries_seen > MAX_BURST {
                return false;
            }
            match e.kind {
                FileKind::Dir if e.name != GENERATED_DIR => folders.push(dir.join(&e.name)),
                FileKind::File => {
                    paths.insert(dir.join(&e.name));
                }
                _ => {}
            }
            if paths.len() > MAX_BURST {
                return false;
            }
        }
    }
    true
}

/// Reads the records the watcher reports changed below `root` into `pending`, one burst at a
/// time (closed as [`timings`] says), until the event source closes (the watch ended).
pub fn follow(
    fs: Arc<dyn FileSystem>,
    root: PathBuf,
    events: mpsc::Receiver<WatchEvent>,
    pending: Arc<PendingRecords>,
    wait: super::Timings,
) {
    let generated = root.join(GENERATED_DIR);
    let add = |paths: &mut HashSet<PathBuf>, e: WatchEvent| {
        if let WatchEvent::Changed(changed) = e {
            paths.extend(changed.into_iter().filter(|p| !p.starts_with(&generated)));
        }
    };
    loop {
        let Ok(first) = events.recv() else { return };
        let mut paths = HashSet::new();
        add(&mut paths, first);
        let start = Instant::now();
        loop {
            let left = wait.max_wait.saturating_sub(start.elapsed());
            if left.is_zero() {
                break;
            }
            match events.recv_timeout(wait.quiet.min(left)) {
                Ok(e) => add(&mut paths, e),
                Err(mpsc::RecvTimeoutError::Timeout) => break,
                Err(mpsc::RecvTimeoutError::Disconnected) => return,
            }
        }
        if paths.is_empty() || paths.len() > MAX_BURST {
            continue;
        }
        // Numbered before anything is looked at: an index run marked after this reads no
        // earlier than this read.
        let number = pending.reserve();
        if !add_folders(&*fs, &root, &mut paths) {
            continue;
        }
        let read = Instant::now();
        let changes = read_changes(&*fs, &root, paths.iter().map(PathBuf::as_path));
        let (count, taken) = (changes.len(), pending.put(number, changes));
        tracing::debug!(
            records = count,
            taken,
            pending = pending.count(),
            read = ?read.elapsed(),
            "VitaeGraph: changed records searchable"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fs_memory::MemoryFs;

    fn write(fs: &MemoryFs, path: &str, text: &str) {
        let path = Path::new(path);
        fs.create_dir_all(path.parent().unwrap()).unwrap();
        fs.write_atomic(path, text.as_bytes()).unwrap();
    }

    /// A record is read as the index reads it; a removed one, one without an id and one with a
    /// NUL byte are pending as gone; what the index would not read as a record is not pending.
    #[test]
    fn changed_paths_are_read_as_the_index_reads_them() {
        let fs = MemoryFs::new();
        let root = Path::new("/g");
        write(
            &fs,
            "/g/projects/a.md",
            "---\nid: project:a\ntype: project\ntitle: Alpha\ntags: [rust]\n---\nBuilt **alpha**.\n",
        );
        write(&fs, "/g/projects/noid.md", "---\ntitle: No id\n---\ntext\n");
        write(&fs, "/g/projects/nul.md", "---\nid: project:n\n---\na\0b\n");
        write(&fs, "/g/.generated/x.md", "---\nid: project:x\n---\n");
        write(&fs, "/g/projects/notes.txt", "not a record");
        let paths: Vec<PathBuf> = [
            "/g/projects/a.md",
            "/g/projects/noid.md",
            "/g/projects/nul.md",
            "/g/projects/gone.md",
            "/g/.generated/x.md",
            "/g/projects/notes.txt",
            "/g/moved-away",
            "/g",
            "/elsewhere/b.md",
        ]
        .iter()
        .map(PathBuf::from)
        .collect();
        let got = read_changes(&fs, root, paths.iter().map(PathBuf::as_path));
        let names: Vec<(&str, Option<&str>)> =
            got.iter().map(|(p, d)| (p.as_str(), d.as_ref().map(|d| d.id.as_str()))).collect();
        assert_eq!(
            names,
            [
                ("projects/a.md", Some("project:a")),
                ("projects/noid.md", None),
                ("projects/nul.md", None),
                ("projects/gone.md", None),
                ("moved-away", None)
            ]
        );
        let a = got[0].1.as_ref().unwrap();
        let record = Record::parse(
            "projects/a.md",
            &String::from_utf8_lossy(&fs.read(Path::new("/g/projects/a.md"), 1 << 20).unwrap()),
        );
        assert_eq!(a, &Plan::new(std::slice::from_ref(&record)).document(0), "the index's document");
        assert_eq!((a.kind.as_str(), a.title.as_str()), ("Project", "Alpha"));
    }

    /// A folder reported made brings the files in it (their own events may have come before
    /// the folder was watched); past the burst's cap, nothing is read.
    #[test]
    fn a_new_folder_brings_its_records() {
        let fs = MemoryFs::new();
        write(&fs, "/g/projects/new/project.md", "---\nid: project:new\n---\n");
        write(&fs, "/g/projects/new/deeper/x.md", "---\nid: project:x\n---\n");
        write(&fs, "/g/projects/new/.generated/y.md", "---\nid: project:y\n---\n");
        let mut paths: HashSet<PathBuf> = [PathBuf::from("/g/projects/new")].into();
        assert!(add_folders(&fs, Path::new("/g"), &mut paths));
        let mut got: Vec<_> = paths.iter().filter(|p| p.extension().is_some()).cloned().collect();
        got.sort();
        assert_eq!(got, [PathBuf::from("/g/projects/new/deeper/x.md"), PathBuf::from("/g/projects/new/project.md")]);
        for k in 0..MAX_BURST {
            write(&fs, &format!("/g/many/{k}.md"), "x");
        }
        let mut paths: HashSet<PathBuf> = [PathBuf::from("/g/many"), PathBuf::from("/g/other.md")].into();
        assert!(!add_folders(&fs, Path::new("/g"), &mut paths), "past the cap");
        // Empty folders count too; the root itself is not walked.
        for k in 0..=MAX_BURST {
            fs.create_dir_all(Path::new(&format!("/g/empty/{k}"))).unwrap();
        }
        let mut paths: HashSet<PathBuf> = [PathBuf::from("/g/empty")].into();
        assert!(!add_folders(&fs, Path::new("/g"), &mut paths), "folders count");
        let mut paths: HashSet<PathBuf> = [PathBuf::from("/g")].into();
        assert!(add_folders(&fs, Path::new("/g"), &mut paths) && paths.len() == 1, "the root is not walked");
    }

    /// Reads are settled by the index run marked after they began, never by one marked
    /// before; a read put after a later run settled is dropped (that run read the files no
    /// earlier); a later read of a path wins over an earlier one put after it; a folder gone
    /// drops what was read below it; paths past the cap are left to the index; ending live
    /// indexing clears everything.
    #[test]
    fn an_index_run_settles_what_was_read_before_it_was_marked() {
        use crate::graph_store::MAX_PENDING;
        let doc = |id: &str| {
            let record = Record::parse("p/x.md", &format!("---\nid: {id}\n---\nText.\n"));
            Some(Plan::new(std::slice::from_ref(&record)).document(0))
        };
        let pending = PendingRecords::default();
        let a = pending.reserve();
        pending.put(a, vec![("a.md".into(), None)]);
        let mark = pending.mark();
        let b = pending.reserve();
        pending.put(b, vec![("b.md".into(), None)]);
        pending.settle(mark);
        assert_eq!(pending.count(), 1, "b began after the run was marked");
        assert_eq!(pending.snapshot().len(), 1);
        let late = pending.reserve();
        let mark = pending.mark();
        pending.settle(mark);
        assert_eq!(pending.put(late, vec![("c.md".into(), None)]), 0, "settled before it was put");
        assert_eq!(pending.count(), 0);
        assert!(pending.snapshot().is_empty());
        let (older, newer) = (pending.reserve(), pending.reserve());
        pending.put(newer, vec![("p/x.md".into(), doc("project:new"))]);
        pending.put(older, vec![("p/x.md".into(), doc("project:old"))]);
        assert!(pending.snapshot().document("project:new").is_some(), "the later read stays");
        let gone = pending.reserve();
        pending.put(gone, vec![("p".into(), None)]);
        assert_eq!(pending.count(), 1, "the folder's records went with it");
        assert!(pending.snapshot().hides("p/x.md"));
        let n = pending.reserve();
        let many: Vec<(String, Option<Document>)> = (0..MAX_PENDING + 5).map(|k| (format!("{k}.md"), None)).collect();
        assert_eq!(pending.put(n, many), MAX_PENDING - 1);
        let n = pending.reserve();
        assert_eq!(pending.put(n, vec![("0.md".into(), None)]), 1, "a path already pending is updated");
        pending.clear();
        assert!(pending.count() == 0 && pending.snapshot().is_empty());
        assert_eq!(pending.put(n, vec![("0.md".into(), None)]), 0, "a read from before the end is dropped");
    }
}

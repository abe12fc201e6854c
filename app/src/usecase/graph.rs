//! VitaeGraph use cases over the filesystem port: read, validate, index.

use std::path::{Path, PathBuf};
use std::time::Duration;

use domain::graph::index::{self, Diagnostics};
use domain::graph::new_record::NewRecord;
use domain::graph::{
    DIAGNOSTICS_FILE, GENERATED_DIR, GRAPH_FILE, GraphValidation, MAX_RECORD_BYTES, Page, RecordType,
    SEARCH_INDEX_FILE, SEARCH_SIDECAR_FILE,
};
use ports::Clock;
use ports::fs::{Change, FileSystem, FsError, FsErrorKind};

/// Reports progress of long work (stderr for the CLI, nothing in tests).
pub trait Progress: Sync {
    fn update(&self, done: usize, total: usize, elapsed: Duration);

    /// A file that was passed over, and why; the work goes on without it.
    fn skipped(&self, _path: &Path, _why: &str) {}
}

#[derive(Debug, thiserror::Error)]
pub enum GraphError {
    #[error("the VitaeGraph root {} does not exist; create it with `vitaecontext graph init`", .0.display())]
    NoRoot(PathBuf),
    #[error("the VitaeGraph root {} is not a folder", .0.display())]
    NotADir(PathBuf),
    #[error("{0}")]
    Fs(#[from] FsError),
}

/// Every `.md` file below `root` (not under `.generated/`), parsed, in path order, on every core.
///
/// Each file is read with `read_beneath`: from a handle on the root, following no symlink, so a
/// record (or a folder above it) swapped for a symlink after the walk fails to open instead of
/// putting an outside file's text into the index. A file whose path below the root is not
/// UTF-8 cannot be named by a record path: it is reported through `progress.skipped` and left
/// out.
pub fn read_pages(
    fs: &dyn FileSystem,
    clock: &dyn Clock,
    root: &Path,
    progress: &dyn Progress,
) -> Result<Vec<Page>, GraphError> {
    match fs.metadata(root) {
        Ok(m) if m.kind == ports::fs::FileKind::Dir => {}
        Ok(_) => return Err(GraphError::NotADir(root.to_path_buf())),
        Err(e) if e.kind == FsErrorKind::NotFound => return Err(GraphError::NoRoot(root.to_path_buf())),
        Err(e) => return Err(e.into()),
    }
    let mut files: Vec<(&str, &Path)> = Vec::new();
    let walked = markdown_files(fs, root)?;
    for path in &walked {
        let rel = path.strip_prefix(root).unwrap_or(path);
        match rel.to_str() {
            Some(name) => files.push((name, rel)),
            None => progress.skipped(path, "its name is not valid UTF-8, so no record path can name it"),
        }
    }
    let total = files.len();
    let start = clock.monotonic();
    tracing::debug!(files = total, "graph: walked the root");
    let done = std::sync::atomic::AtomicUsize::new(0);
    let parse = |(name, rel): &(&str, &Path)| -> Result<Page, GraphError> {
        // A file over the cap is a finding about that file (`record_too_large`), not a failed run.
        let page = match fs.read_beneath(root, rel, MAX_RECORD_BYTES) {
            Ok((bytes, _)) => Page::parse(name, &String::from_utf8_lossy(&bytes)),
            Err(e) if e.kind == FsErrorKind::TooLarge => Page::oversized(name),
            Err(e) => return Err(e.into()),
        };
        let n = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
        if n % 5000 == 0 {
            progress.update(n, total, clock.monotonic().saturating_sub(start));
        }
        Ok(page)
    };
    // One contiguous run of files per thread, joined in order: records are small and alike, so
    // equal runs balance well enough, and it needs no pool (no rayon) for one parallel map.
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get()).clamp(1, 8);
    let run = total.div_ceil(threads).max(1);
    let pages: Vec<Result<Page, GraphError>> = std::thread::scope(|s| {
        let parse = &parse;
        let handles: Vec<_> =
            files.chunks(run).map(|c| s.spawn(move || c.iter().map(parse).collect::<Vec<_>>())).collect();
        handles.into_iter().flat_map(|h| h.join().expect("a parser thread panicked")).collect()
    });
    if total >= 5000 {
        progress.update(total, total, clock.monotonic().saturating_sub(start));
    }
    pages.into_iter().collect()
}

/// Every `.md` regular file below `root` except under `.generated/`, sorted by bytes. Each
/// top-level folder is walked on its own thread. Names are the entries' own (`OsString`), so a
/// name that is not UTF-8 is found, not mangled.
fn markdown_files(fs: &dyn FileSystem, root: &Path) -> Result<Vec<PathBuf>, GraphError> {
    use ports::fs::FileKind;
    let is_md = |p: &PathBuf| p.extension().is_some_and(|e| e == "md");
    let entries = fs.read_dir(root)?;
    let mut files: Vec<PathBuf> =
        entries.iter().filter(|e| e.kind == FileKind::File).map(|e| root.join(&e.name)).filter(is_md).collect();
    let dirs: Vec<PathBuf> = entries
        .iter()
        .filter(|e| e.kind == FileKind::Dir && e.name != GENERATED_DIR)
        .map(|e| root.join(&e.name))
        .collect();
    let walked: Vec<Result<Vec<PathBuf>, FsError>> = std::thread::scope(|s| {
        let handles: Vec<_> = dirs.iter().map(|d| s.spawn(move || fs.walk_files(d, &[GENERATED_DIR]))).collect();
        handles.into_iter().map(|h| h.join().expect("walker thread")).collect()
    });
    for w in walked {
        files.extend(w?.into_iter().filter(is_md));
    }
    files.sort_by(|a, b| a.as_os_str().as_encoded_bytes().cmp(b.as_os_str().as_encoded_bytes()));
    Ok(files)
}

pub fn validate_pages(fs: &dyn FileSystem, root: &Path, pages: &[Page]) -> GraphValidation {
    domain::graph::validate(root, pages, &|p: &Path| fs.metadata(p).is_ok())
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
}

/// What `index` writes, in `.generated/`. The sidecar follows the search index it is built
/// from, so that its mtime is never older than the JSON's (the server checks that).
pub const GENERATED_FILES: [&str; 4] = [GRAPH_FILE, SEARCH_INDEX_FILE, SEARCH_SIDECAR_FILE, DIAGNOSTICS_FILE];

/// The search-index sidecar for `documents` (in the order they are written to the JSON),
/// naming `json`, the exact bytes of the `search-index.json` written beside it.
pub fn sidecar_for<'a>(documents: impl IntoIterator<Item = &'a index::Document>, json: &[u8]) -> Vec<u8> {
    use sha2::Digest;
    let mut b = domain::graph::sidecar::SidecarBuilder::default();
    for d in documents {
        b.add(d);
    }
    b.finish(json.len() as u64, sha2::Sha256::digest(json).into())
}

/// Validates and writes `.generated/`; a failed validation removes the stale graph and search
/// index (and its sidecar) and writes only the diagnostics. The files change together or not at all
/// ([`FileSystem::write_atomic_set`]): a failure (a full disk) leaves the previous set whole.
/// The graph goes first, so that while the renames run a reader sees either no graph (the
/// invalid case) or a graph whose search index follows a few renames later, never a search
/// index for records the graph no longer has for longer than that.
pub fn index(
    fs: &dyn FileSystem,
    clock: &dyn Clock,
    root: &Path,
    progress: &dyn Progress,
) -> Result<Indexed, GraphError> {
    let t0 = clock.monotonic();
    let pages = read_pages(fs, clock, root, progress)?;
    let t1 = clock.monotonic();
    let validation = validate_pages(fs, root, &pages);
    let t2 = clock.monotonic();
    tracing::debug!(pages = pages.len(), read = ?(t1 - t0), validate = ?(t2 - t1), "graph index: read and validated");
    let generated = root.join(GENERATED_DIR);
    fs.create_dir_all(&generated)?;
    let [graph_path, search_path, sidecar_path, diagnostics_path] = GENERATED_FILES.map(|f| generated.join(f));
    let diagnostics = json_bytes(&Diagnostics::of(&validation));
    if !validation.valid {
        fs.write_atomic_set(&[
            Change::Remove(&graph_path),
            Change::Remove(&search_path),
            Change::Remove(&sidecar_path),
            Change::Write(&diagnostics_path, &diagnostics),
        ])?;
        return Ok(Indexed { validation, nodes: 0, generated });
    }
    let t3 = clock.monotonic();
    let (graph, search) = index::build(&pages);
    let t4 = clock.monotonic();
    let (graph_bytes, search_bytes) = std::thread::scope(|s| {
        let g = s.spawn(|| json_bytes(&graph));
        let i = json_bytes(&search);
        (g.join().expect("serialiser thread"), i)
    });
    let sidecar = sidecar_for(&search.documents, &search_bytes);
    let t5 = clock.monotonic();
    fs.write_atomic_set(&[
        Change::Write(&graph_path, &graph_bytes),
        Change::Write(&search_path, &search_bytes),
        Change::Write(&sidecar_path, &sidecar),
        Change::Write(&diagnostics_path, &diagnostics),
    ])?;
    let t6 = clock.monotonic();
    tracing::debug!(build = ?(t4 - t3), serialise = ?(t5 - t4), write = ?(t6 - t5), "graph index: built and written");
    Ok(Indexed { validation, nodes: graph.nodes.len(), generated })
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
pub fn add(fs: &dyn FileSystem, root: &Path, record: &NewRecord) -> Result<PathBuf, GraphError> {
    match fs.metadata(root) {
        Ok(m) if m.kind == ports::fs::FileKind::Dir => {}
        Ok(_) => return Err(GraphError::NotADir(root.to_path_buf())),
        Err(e) if e.kind == FsErrorKind::NotFound => return Err(GraphError::NoRoot(root.to_path_buf())),
        Err(e) => return Err(e.into()),
    }
    let path = root.join(record.path());
    if let Some(dir) = path.parent() {
        fs.create_private_dir_all(dir)?;
    }
    fs.write_new(&path, record.text().as_bytes())?;
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
        fn now(&self) -> std::time::SystemTime {
            std::time::UNIX_EPOCH
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

    #[test]
    fn reruns_are_byte_identical() {
        let fs = MemoryFs::new();
        let root = Path::new("/g");
        graph(&fs, root);
        index(&fs, &FixedClock, root, &Quiet).unwrap();
        let first: Vec<_> =
            GENERATED_FILES.iter().map(|f| read(&fs, &root.join(GENERATED_DIR).join(f)).unwrap()).collect();
        index(&fs, &FixedClock, root, &Quiet).unwrap();
        for (f, before) in GENERATED_FILES.iter().zip(&first) {
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

    /// The generated files (absent ones as `None`) and every other name in `.generated/`.
    fn generated_state(fs: &MemoryFs, root: &Path) -> (Vec<Option<Vec<u8>>>, Vec<String>) {
        let dir = root.join(GENERATED_DIR);
        let files = GENERATED_FILES.iter().map(|f| read(fs, &dir.join(f))).collect();
        let others = fs
            .read_dir(&dir)
            .unwrap()
            .into_iter()
            .map(|e| e.name.to_string_lossy().into_owned())
            .filter(|n| !GENERATED_FILES.contains(&n.as_str()))
            .collect();
        (files, others)
    }

    /// Regression: on a nearly full disk the new graph.json landed beside the old search index
    /// and diagnostics, and the server served records that search could not find. Every step
    /// of the set write, failing for any of the files, from a valid index to a changed
    /// valid graph and to an invalid one, must leave the previous files byte-identical
    /// and no temporary behind.
    #[test]
    fn a_failure_at_any_step_leaves_the_previous_set_whole() {
        use fs_memory::SetStep;
        let changed: &[u8] = b"---\ntype: project\nid: project:a\ntitle: Changed\n---\n";
        for next in [changed, b"no front matter"] {
            for step in SetStep::ALL {
                for file in GENERATED_FILES {
                    let fs = MemoryFs::new();
                    let root = Path::new("/g");
                    graph(&fs, root);
                    index(&fs, &FixedClock, root, &Quiet).unwrap();
                    let before = generated_state(&fs, root);
                    assert!(before.0.iter().all(Option::is_some) && before.1.is_empty());
                    fs.write_atomic(&root.join("projects/a/project.md"), next).unwrap();
                    let target = root.join(GENERATED_DIR).join(file);
                    fs.fail_set_step(step, &target);
                    let failed = index(&fs, &FixedClock, root, &Quiet).is_err();
                    let after = generated_state(&fs, root);
                    // An invalid graph writes no graph or search index: there is no temporary
                    // to fail for them, only their kept names and their removal.
                    let reaches =
                        next == changed || file == "diagnostics.json" || matches!(step, SetStep::Keep | SetStep::Apply);
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
        assert!(read(&fs, &root.join(GENERATED_DIR).join(SEARCH_SIDECAR_FILE)).is_none(), "no sidecar left behind");
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
        assert_eq!(backup, &root.join("index.md.vitaecontext-backup-19700101T000000Z"));
        assert_eq!(read(&fs, backup).unwrap(), b"mine", "--force keeps what it replaces");
        assert_eq!(read(&fs, &root.join("index.md")).unwrap(), INDEX_MD.as_bytes());
        assert!(init(&fs, &FixedClock, root, true).unwrap().replaced.is_empty(), "a starter file is not backed up");
    }
}

//! VitaeGraph use cases over the filesystem port: read, validate, index.

use std::path::{Path, PathBuf};
use std::time::Duration;

use domain::graph::index::{self, Diagnostics};
use domain::graph::{GraphValidation, Page};
use ports::Clock;
use ports::fs::{FileSystem, FsError, FsErrorKind};

/// The largest record file read while indexing.
pub const MAX_PAGE_BYTES: u64 = 8 * 1024 * 1024;
pub const GENERATED: &str = ".generated";

/// Reports progress of long work (stderr for the CLI, nothing in tests).
pub trait Progress: Sync {
    fn update(&self, done: usize, total: usize, elapsed: Duration);
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

/// Every `.md` file below `root` (not under `.generated/`), parsed, in path order. Both cores
/// read and parse: each thread takes every second file.
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
    let files = markdown_files(fs, root)?;
    let total = files.len();
    let start = clock.monotonic();
    tracing::debug!(files = total, "graph: walked the root");
    let done = std::sync::atomic::AtomicUsize::new(0);
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get()).clamp(1, 8);
    let parse = |path: &PathBuf| -> Result<Page, GraphError> {
        let bytes = fs.read(path, MAX_PAGE_BYTES)?;
        let rel = path.strip_prefix(root).unwrap_or(path).to_string_lossy().replace('\\', "/");
        let page = Page::parse(&rel, &String::from_utf8_lossy(&bytes));
        let n = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
        if n % 5000 == 0 {
            progress.update(n, total, clock.monotonic().saturating_sub(start));
        }
        Ok(page)
    };
    let mut slots: Vec<Option<Result<Page, GraphError>>> = (0..total).map(|_| None).collect();
    std::thread::scope(|scope| {
        let chunks: Vec<Vec<(usize, &PathBuf)>> =
            (0..threads).map(|t| files.iter().enumerate().skip(t).step_by(threads).collect()).collect();
        let handles: Vec<_> = chunks
            .into_iter()
            .map(|chunk| scope.spawn(move || chunk.into_iter().map(|(i, p)| (i, parse(p))).collect::<Vec<_>>()))
            .collect();
        for h in handles {
            for (i, r) in h.join().expect("a parser thread panicked") {
                slots[i] = Some(r);
            }
        }
    });
    if total >= 5000 {
        progress.update(total, total, clock.monotonic().saturating_sub(start));
    }
    slots.into_iter().map(|s| s.expect("every file parsed")).collect()
}

/// Every `.md` regular file below `root` except under `.generated/`, sorted by bytes. Each
/// top-level folder is walked on its own thread.
fn markdown_files(fs: &dyn FileSystem, root: &Path) -> Result<Vec<PathBuf>, GraphError> {
    use ports::fs::FileKind;
    let is_md = |p: &PathBuf| p.extension().is_some_and(|e| e == "md");
    let entries = fs.read_dir(root)?;
    let mut files: Vec<PathBuf> =
        entries.iter().filter(|e| e.kind == FileKind::File).map(|e| root.join(&e.name)).filter(is_md).collect();
    let dirs: Vec<PathBuf> =
        entries.iter().filter(|e| e.kind == FileKind::Dir && e.name != GENERATED).map(|e| root.join(&e.name)).collect();
    let walked: Vec<Result<Vec<PathBuf>, FsError>> = std::thread::scope(|s| {
        let handles: Vec<_> = dirs.iter().map(|d| s.spawn(move || fs.walk_files(d, &[GENERATED]))).collect();
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

/// Validates and writes `.generated/`; a failed validation removes the stale graph and search
/// index and writes only the diagnostics.
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
    let generated = root.join(GENERATED);
    fs.create_dir_all(&generated)?;
    let diagnostics = json_bytes(&Diagnostics::of(&validation));
    if !validation.valid {
        for stale in ["graph.json", "search-index.json"] {
            match fs.remove_file(&generated.join(stale)) {
                Ok(()) => {}
                Err(e) if e.kind == FsErrorKind::NotFound => {}
                Err(e) => return Err(e.into()),
            }
        }
        fs.write_atomic(&generated.join("diagnostics.json"), &diagnostics)?;
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
    let t5 = clock.monotonic();
    // Each file is written atomically on its own; their syncs overlap.
    let (graph_written, search_written) = std::thread::scope(|s| {
        let g = s.spawn(|| fs.write_atomic(&generated.join("graph.json"), &graph_bytes));
        let i = fs.write_atomic(&generated.join("search-index.json"), &search_bytes);
        (g.join().expect("writer thread"), i)
    });
    graph_written?;
    search_written?;
    fs.write_atomic(&generated.join("diagnostics.json"), &diagnostics)?;
    let t6 = clock.monotonic();
    tracing::debug!(build = ?(t4 - t3), serialise = ?(t5 - t4), write = ?(t6 - t5), "graph index: built and written");
    let nodes = graph.nodes.len();
    // Freeing a few million small allocations takes tens of milliseconds, and the command ends
    // right after this: let the OS reclaim them with the process.
    std::mem::forget((pages, graph, search, graph_bytes, search_bytes));
    Ok(Indexed { validation, nodes, generated })
}

/// `graph init`: the layout, `VITAEGRAPH.md` and `index.md`.
pub fn init(fs: &dyn FileSystem, root: &Path, force: bool) -> Result<(), InitError> {
    if let Ok(entries) = fs.read_dir(root) {
        if !entries.is_empty() && !force {
            return Err(InitError::NotEmpty(root.to_path_buf()));
        }
    }
    for dir in ["projects", "experience", "education", "certifications", "awards", "publications", GENERATED] {
        fs.create_dir_all(&root.join(dir))?;
    }
    for (name, text) in [("VITAEGRAPH.md", VITAEGRAPH_MD), ("index.md", INDEX_MD)] {
        let path = root.join(name);
        if force { fs.write_atomic(&path, text.as_bytes()) } else { fs.write_new(&path, text.as_bytes()) }?;
    }
    Ok(())
}

#[derive(Debug, thiserror::Error)]
pub enum InitError {
    #[error("{} is not empty; nothing was written", .0.display())]
    NotEmpty(PathBuf),
    #[error("{0}")]
    Fs(#[from] FsError),
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
        fn monotonic(&self) -> Duration {
            Duration::ZERO
        }
    }

    fn graph(fs: &MemoryFs, root: &Path) {
        init(fs, root, false).unwrap();
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
        let first: Vec<_> = ["graph.json", "search-index.json", "diagnostics.json"]
            .iter()
            .map(|f| read(&fs, &root.join(GENERATED).join(f)).unwrap())
            .collect();
        index(&fs, &FixedClock, root, &Quiet).unwrap();
        for (f, before) in ["graph.json", "search-index.json", "diagnostics.json"].iter().zip(&first) {
            assert_eq!(&read(&fs, &root.join(GENERATED).join(f)).unwrap(), before, "{f}");
        }
        assert!(String::from_utf8_lossy(&first[0]).ends_with("}\n"));
    }

    #[test]
    fn a_failing_write_leaves_the_old_index_intact() {
        let fs = MemoryFs::new();
        let root = Path::new("/g");
        graph(&fs, root);
        index(&fs, &FixedClock, root, &Quiet).unwrap();
        let search = root.join(GENERATED).join("search-index.json");
        let old = read(&fs, &search).unwrap();
        fs.write_atomic(
            &root.join("projects/a/project.md"),
            b"---\ntype: project\nid: project:a\ntitle: Changed\n---\n",
        )
        .unwrap();
        fs.fail_writes_to(&search);
        assert!(index(&fs, &FixedClock, root, &Quiet).is_err(), "a full disk is reported");
        assert_eq!(read(&fs, &search).unwrap(), old, "the old search index is whole, not torn");
        fs.heal_writes_to(&search);
        index(&fs, &FixedClock, root, &Quiet).unwrap();
        assert!(String::from_utf8_lossy(&read(&fs, &search).unwrap()).contains("Changed"));
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
        assert!(read(&fs, &root.join(GENERATED).join("graph.json")).is_none());
        assert!(read(&fs, &root.join(GENERATED).join("search-index.json")).is_none());
        let diag = String::from_utf8(read(&fs, &root.join(GENERATED).join("diagnostics.json")).unwrap()).unwrap();
        assert!(diag.contains("missing_frontmatter") && diag.contains("\"valid\": false"));
    }

    #[test]
    fn init_refuses_a_non_empty_folder() {
        let fs = MemoryFs::new();
        let root = Path::new("/g");
        fs.create_dir_all(root).unwrap();
        fs.write_atomic(&root.join("notes.txt"), b"x").unwrap();
        assert!(matches!(init(&fs, root, false), Err(InitError::NotEmpty(_))));
        init(&fs, root, true).unwrap();
        assert!(read(&fs, &root.join("VITAEGRAPH.md")).is_some());
    }
}

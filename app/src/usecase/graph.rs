//! VitaeGraph use cases over the filesystem port: read, validate, index.

use std::path::{Path, PathBuf};
use std::time::Duration;

use domain::graph::index::{self, Diagnostics};
use domain::graph::{GraphValidation, Page};
use ports::Clock;
use ports::fs::{Change, FileSystem, FsError, FsErrorKind};

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

/// What `index` writes, in `.generated/`.
pub const GENERATED_FILES: [&str; 3] = ["graph.json", "search-index.json", "diagnostics.json"];

/// Validates and writes `.generated/`; a failed validation removes the stale graph and search
/// index and writes only the diagnostics. The three files change together or not at all
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
    let generated = root.join(GENERATED);
    fs.create_dir_all(&generated)?;
    let [graph_path, search_path, diagnostics_path] = GENERATED_FILES.map(|f| generated.join(f));
    let diagnostics = json_bytes(&Diagnostics::of(&validation));
    if !validation.valid {
        fs.write_atomic_set(&[
            Change::Remove(&graph_path),
            Change::Remove(&search_path),
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
    let t5 = clock.monotonic();
    fs.write_atomic_set(&[
        Change::Write(&graph_path, &graph_bytes),
        Change::Write(&search_path, &search_bytes),
        Change::Write(&diagnostics_path, &diagnostics),
    ])?;
    let t6 = clock.monotonic();
    tracing::debug!(build = ?(t4 - t3), serialise = ?(t5 - t4), write = ?(t6 - t5), "graph index: built and written");
    Ok(Indexed { validation, nodes: graph.nodes.len(), generated })
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
        fn now(&self) -> std::time::SystemTime {
            std::time::UNIX_EPOCH
        }
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
        let before = generated_state(&fs, root);
        fs.fail_writes_to(&search);
        assert!(index(&fs, &FixedClock, root, &Quiet).is_err(), "a full disk is reported");
        assert_eq!(read(&fs, &search).unwrap(), old, "the old search index is whole, not torn");
        assert_eq!(generated_state(&fs, root), before, "no new graph beside the old search index");
        fs.heal_writes_to(&search);
        index(&fs, &FixedClock, root, &Quiet).unwrap();
        assert!(String::from_utf8_lossy(&read(&fs, &search).unwrap()).contains("Changed"));
    }

    /// The three generated files (absent ones as `None`) and every other name in `.generated/`.
    fn generated_state(fs: &MemoryFs, root: &Path) -> (Vec<Option<Vec<u8>>>, Vec<String>) {
        let dir = root.join(GENERATED);
        let files = GENERATED_FILES.iter().map(|f| read(fs, &dir.join(f))).collect();
        let others = fs
            .read_dir(&dir)
            .unwrap()
            .into_iter()
            .map(|e| e.name)
            .filter(|n| !GENERATED_FILES.contains(&n.as_str()))
            .collect();
        (files, others)
    }

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
                for file in GENERATED_FILES {
                    let fs = MemoryFs::new();
                    let root = Path::new("/g");
                    graph(&fs, root);
                    index(&fs, &FixedClock, root, &Quiet).unwrap();
                    let before = generated_state(&fs, root);
                    assert!(before.0.iter().all(Option::is_some) && before.1.is_empty());
                    fs.write_atomic(&root.join("projects/a/project.md"), next).unwrap();
                    let target = root.join(GENERATED).join(file);
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

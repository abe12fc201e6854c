//! `graph init`: the layout of a new VitaeGraph and its starter files.

use std::path::{Path, PathBuf};

use domain::graph::{GENERATED_DIR, MAX_RECORD_BYTES, RecordType};
use ports::Clock;
use ports::fs::{FileSystem, FsError, FsErrorKind};

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

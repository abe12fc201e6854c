//! What the VitaeGraph use cases share: the error they answer, how they report progress, and
//! the check that a folder they write in is a plain one.

use std::path::{Path, PathBuf};
use std::time::Duration;

use ports::fs::{FileKind, FileSystem, FsError, FsErrorKind};

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
    /// An index run in another process (`mcp --watch` indexes in a child) failed, saying
    /// this, or could not be run.
    #[error("{0}")]
    Reported(String),
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
pub(super) fn plain_folders(fs: &dyn FileSystem, root: &Path, dir: &Path) -> Result<(), GraphError> {
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

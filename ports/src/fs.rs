//! The filesystem port.
//!
//! Every path is absolute. Operations that follow symlinks say so; the rest act on the link
//! itself, so that confinement rules can inspect a path one component at a time. Both adapters
//! (the real one and the in-memory one) must agree on every operation here, which a property
//! test in `tests/` checks.
//!
//! Reads that must stay inside a root (records, the generated index) go through
//! [`FileSystem::read_beneath`]: opened from a handle on the root, component by component, with no
//! symlink followed anywhere below it, and read through that one handle. Nothing is checked by
//! path and then opened again by path.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

/// What [`FileSystem::walk`] found below a root, each list sorted by bytes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Walk {
    /// Every regular file.
    pub files: Vec<PathBuf>,
    /// Every symlink, not followed, whatever it points at (a file, a folder, nothing).
    pub symlinks: Vec<PathBuf>,
}

/// What kind of object a path names, without following a final symlink.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FileKind {
    File,
    Dir,
    Symlink,
    /// A FIFO, socket or device: never read by vitaecontext.
    Other,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Metadata {
    pub kind: FileKind,
    /// Size in bytes for a regular file; unspecified for anything else.
    pub len: u64,
    /// A stamp that changes when the file's content is replaced or its metadata changes
    /// (mtime and ctime in nanoseconds, device and inode, where the platform has them). Only
    /// compared for equality. Caches keep it (the manifest, the search sidecar): a build that
    /// computed it otherwise would only make them miss.
    pub stamp: u128,
    /// Last modification, in nanoseconds since the epoch, where the filesystem keeps one. With
    /// the stamp it tells whether a file may have changed within one timestamp tick of a read
    /// (a "racily clean" file, which the incremental index checks by content).
    pub modified_ns: Option<i64>,
}

/// A file opened by [`FileSystem::open_beneath`], read later through this handle (on another
/// thread if need be), whatever happens to its name meanwhile.
pub type OpenFile = Box<dyn OpenRead>;

/// An open file: read in order (`Read`), or at any offset ([`OpenRead::read_exact_at`], which
/// moves no position, so several threads may read one handle at once).
pub trait OpenRead: std::io::Read + Send + Sync {
    /// Fills `buf` from the bytes at `offset`; `UnexpectedEof` when the file ends first.
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> std::io::Result<()>;
}

impl OpenRead for std::fs::File {
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
        std::os::unix::fs::FileExt::read_exact_at(self, buf, offset)
    }
}

impl OpenRead for std::io::Cursor<Vec<u8>> {
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
        let bytes = self.get_ref();
        let at = usize::try_from(offset).ok();
        match at.and_then(|at| bytes.get(at..at.checked_add(buf.len())?)) {
            Some(src) => {
                buf.copy_from_slice(src);
                Ok(())
            }
            None => Err(std::io::ErrorKind::UnexpectedEof.into()),
        }
    }
}

/// A root folder opened once for many reads below it ([`FileSystem::hold_root`]): each call
/// is [`FileSystem::read_beneath`] or [`FileSystem::metadata_beneath`] on the held root, with
/// the same walk below it and the same refusals.
pub trait HeldRoot: Send + Sync {
    fn read_beneath(&self, relative: &Path, max_bytes: u64) -> Result<(Vec<u8>, Metadata), FsError>;
    fn metadata_beneath(&self, relative: &Path) -> Result<Metadata, FsError>;

    /// [`FileSystem::walk`] of the folder `relative` below the held root, reached and walked
    /// without following any symlink (a folder swapped for one is not entered). With `stat`,
    /// each regular file comes with the metadata [`HeldRoot::metadata_beneath`] gives for it,
    /// taken as it is listed (`None` when it went before it could be); paths are the root's
    /// path joined with the path below it.
    fn walk_beneath(&self, relative: &Path, skip_dirs: &[&str], stat: bool) -> Result<WalkBeneath, FsError>;

    /// [`HeldRoot::walk_beneath`] that gives up once it has found more than `max_entries`
    /// files and symlinks: `None` then, so a folder of a million files costs what its first
    /// `max_entries` cost, not a listing of all of them. The default walks everything first.
    fn walk_beneath_at_most(
        &self,
        relative: &Path,
        skip_dirs: &[&str],
        stat: bool,
        max_entries: usize,
    ) -> Result<Option<WalkBeneath>, FsError> {
        let walk = self.walk_beneath(relative, skip_dirs, stat)?;
        Ok((walk.files.len() + walk.symlinks.len() <= max_entries).then_some(walk))
    }
}

/// What [`HeldRoot::walk_beneath`] found, sorted by path.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct WalkBeneath {
    /// Every regular file, with its metadata when asked for.
    pub files: Vec<(PathBuf, Option<Metadata>)>,
    /// Every symlink, not followed.
    pub symlinks: Vec<PathBuf>,
}

impl WalkBeneath {
    /// Sorts both lists by the paths' bytes.
    pub fn sort(&mut self) {
        self.files.sort_by(|a, b| a.0.as_os_str().as_encoded_bytes().cmp(b.0.as_os_str().as_encoded_bytes()));
        self.symlinks.sort_by(|a, b| a.as_os_str().as_encoded_bytes().cmp(b.as_os_str().as_encoded_bytes()));
    }
}

/// A folder opened once by [`FileSystem::open_dir_beneath`], for changes that must land in it:
/// each is made by name in that very folder, whatever is renamed, moved or swapped for a
/// symlink on its path after it was opened (a `graph index` writes `.generated/` this way, so
/// a `.generated` replaced by a symlink in the middle of a run does not send its files, or its
/// removals, somewhere else).
pub trait HeldDir: Send + Sync {
    /// The folder's path when it was opened, for messages.
    fn path(&self) -> &Path;

    /// [`FileSystem::write_atomic_set`] in this folder: each change's path is one plain name
    /// (else `InvalidPath`), and every temporary and kept name is made in this folder too.
    fn write_atomic_set(&self, changes: &[Change<'_>]) -> Result<(), FsError>;

    /// [`FileSystem::write_new`] of the file `name` in this folder: a complete new file, or
    /// `AlreadyExists` when anything is at that name.
    fn write_new(&self, name: &OsStr, bytes: &[u8]) -> Result<(), FsError>;

    /// Makes the owner-only folder `name` in this folder, unless a folder is already there;
    /// anything else at that name (a symlink included) is `NotADirectory`.
    fn create_private_dir(&self, name: &OsStr) -> Result<(), FsError>;

    /// The folder's entries, as [`FileSystem::read_dir`] gives them.
    fn read_dir(&self) -> Result<Vec<DirEntry>, FsError>;

    /// Removes the file or symlink `name` of this folder (`IsADirectory` for a folder).
    fn remove_file(&self, name: &OsStr) -> Result<(), FsError>;
}

/// The default [`HeldRoot`]: the root resolved by its path on every call.
struct RootByPath<'a, F: ?Sized> {
    fs: &'a F,
    root: PathBuf,
}

impl<F: FileSystem + ?Sized> HeldRoot for RootByPath<'_, F> {
    fn read_beneath(&self, relative: &Path, max_bytes: u64) -> Result<(Vec<u8>, Metadata), FsError> {
        self.fs.read_beneath(&self.root, relative, max_bytes)
    }

    fn metadata_beneath(&self, relative: &Path) -> Result<Metadata, FsError> {
        self.fs.metadata_beneath(&self.root, relative)
    }

    fn walk_beneath(&self, relative: &Path, skip_dirs: &[&str], stat: bool) -> Result<WalkBeneath, FsError> {
        let walk = self.fs.walk(&self.root.join(relative), skip_dirs)?;
        let meta = |f: &Path| {
            let below = f.strip_prefix(&self.root).ok()?;
            self.metadata_beneath(below).ok()
        };
        let files = walk.files.into_iter().map(|f| {
            let m = if stat { meta(&f) } else { None };
            (f, m)
        });
        let mut found = WalkBeneath { files: files.collect(), symlinks: walk.symlinks };
        found.sort();
        Ok(found)
    }
}

/// An exclusive lock on a folder, taken by [`FileSystem::lock_dir`]; released when dropped.
pub struct DirLock(#[allow(dead_code, reason = "held for its drop, which releases the lock")] Box<dyn Send + Sync>);

impl DirLock {
    /// A lock held for as long as `holder` lives.
    pub fn new(holder: impl Send + Sync + 'static) -> Self {
        DirLock(Box::new(holder))
    }
}

impl std::fmt::Debug for DirLock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("DirLock")
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirEntry {
    /// The entry's own name, byte for byte (it need not be UTF-8).
    pub name: OsString,
    pub kind: FileKind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FsErrorKind {
    NotFound,
    PermissionDenied,
    AlreadyExists,
    NotADirectory,
    IsADirectory,
    /// Too many levels of symbolic links (a loop).
    Loop,
    /// The file is larger than the caller's cap.
    TooLarge,
    /// A FIFO, socket or device where a regular file was needed.
    NotAFile,
    /// The path is not absolute, or names something that cannot be used this way.
    InvalidPath,
    Other,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}: {}", path.display(), detail)]
pub struct FsError {
    pub kind: FsErrorKind,
    pub path: PathBuf,
    pub detail: String,
}

impl FsError {
    pub fn new(kind: FsErrorKind, path: impl Into<PathBuf>, detail: impl Into<String>) -> Self {
        Self { kind, path: path.into(), detail: detail.into() }
    }
}

/// Writes a file's content into the writer it is given. Called once per set, on any thread,
/// while the set is staged; an error fails the set like a failed write.
pub type Content<'a> = &'a (dyn Fn(&mut dyn std::io::Write) -> std::io::Result<()> + Sync);

/// One change of a [`FileSystem::write_atomic_set`].
#[derive(Clone, Copy)]
pub enum Change<'a> {
    /// Replace or create the file with these bytes.
    Write(&'a Path, &'a [u8]),
    /// Replace or create the file with what the function writes: content too large to hold in
    /// memory (a search index of 100,000 records) goes to the temporary file as it is made.
    Stream(&'a Path, Content<'a>),
    /// As `Stream`, for a file that only saves work and checks itself (a cache): renamed into
    /// place like the others, but not synced to the disk first. After a crash it may be old or
    /// torn, never a half-written name; its own checksum tells, and a torn one is ignored.
    Cache(&'a Path, Content<'a>),
    /// Remove the file if it is there (a missing file is not an error).
    Remove(&'a Path),
}

impl std::fmt::Debug for Change<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Change::Write(p, b) => f.debug_tuple("Write").field(p).field(&b.len()).finish(),
            Change::Stream(p, _) => f.debug_tuple("Stream").field(p).finish(),
            Change::Cache(p, _) => f.debug_tuple("Cache").field(p).finish(),
            Change::Remove(p) => f.debug_tuple("Remove").field(p).finish(),
        }
    }
}

impl<'a> Change<'a> {
    pub fn path(&self) -> &'a Path {
        match self {
            Change::Write(p, _) | Change::Stream(p, _) | Change::Cache(p, _) | Change::Remove(p) => p,
        }
    }

    /// Writes the content of a `Write`, `Stream` or `Cache` change; a `Remove` writes nothing.
    pub fn write_content(&self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        match self {
            Change::Write(_, bytes) => out.write_all(bytes),
            Change::Stream(_, content) | Change::Cache(_, content) => content(out),
            Change::Remove(_) => Ok(()),
        }
    }

    /// The same change, made at `path` instead.
    pub fn at<'b>(&self, path: &'b Path) -> Change<'b>
    where
        'a: 'b,
    {
        match *self {
            Change::Write(_, bytes) => Change::Write(path, bytes),
            Change::Stream(_, content) => Change::Stream(path, content),
            Change::Cache(_, content) => Change::Cache(path, content),
            Change::Remove(_) => Change::Remove(path),
        }
    }
}

pub trait FileSystem: Send + Sync {
    /// Reads a regular file, following symlinks, refusing more than `max_bytes`
    /// (`FsErrorKind::TooLarge`) and anything that is not a regular file.
    fn read(&self, path: &Path, max_bytes: u64) -> Result<Vec<u8>, FsError>;

    /// Reads the regular file at `relative` below the folder `root`, at most `max_bytes`, and
    /// returns its bytes with the metadata of the very file read.
    ///
    /// `root` is configuration and is opened by its path (a symlinked root works). Below it,
    /// every component is resolved from the folder handle before it and **no symlink is
    /// followed, not even one that stays inside**: a symlink anywhere in `relative` is `Loop`.
    /// Callers that allow inside symlinks resolve them first (`domain::graph::confine`) and
    /// pass the physical path. `relative` must be plain names only (see [`beneath_names`]).
    /// Errors: `NotFound`, `NotADirectory` (a file where a folder must be), `Loop`,
    /// `IsADirectory`, `NotAFile` (FIFO, socket, device), `TooLarge`, `InvalidPath`.
    fn read_beneath(&self, root: &Path, relative: &Path, max_bytes: u64) -> Result<(Vec<u8>, Metadata), FsError>;

    /// The metadata [`FileSystem::read_beneath`] would return for the same arguments, reached the
    /// same way and refusing the same things, without reading and without a size cap (a cache
    /// can tell whether the file changed).
    fn metadata_beneath(&self, root: &Path, relative: &Path) -> Result<Metadata, FsError>;

    /// Opens the regular file [`FileSystem::read_beneath`] would read, reached the same way and
    /// refusing the same things, and returns a handle on it with its metadata: the caller
    /// reads it when it chooses (a digest checked after an answer). The default reads the whole
    /// file now.
    fn open_beneath(&self, root: &Path, relative: &Path) -> Result<(OpenFile, Metadata), FsError> {
        let (bytes, meta) = self.read_beneath(root, relative, u64::MAX)?;
        Ok((Box::new(std::io::Cursor::new(bytes)), meta))
    }

    /// `root` opened now for many reads below it (a whole graph's records): one handle on the
    /// folder instead of one resolution of its path per file. A root renamed or replaced after
    /// this call is not seen by the reads: one run reads one folder. Errors as `read_beneath`
    /// gives for the root (a root that is not a folder is `NotADirectory`). The default checks
    /// the root now and resolves it by its path on every call.
    fn hold_root<'a>(&'a self, root: &Path) -> Result<Box<dyn HeldRoot + 'a>, FsError> {
        if self.metadata(root)?.kind != FileKind::Dir {
            return Err(FsError::new(FsErrorKind::NotADirectory, root, "not a directory"));
        }
        Ok(Box::new(RootByPath { fs: self, root: root.to_path_buf() }))
    }

    /// The folder at `relative` below `root`, reached as [`FileSystem::read_beneath`] reaches a
    /// file (no symlink followed below the root: one anywhere in `relative` is `Loop`), opened
    /// for the changes of a [`HeldDir`]. `NotADirectory` when it is not a folder.
    fn open_dir_beneath<'a>(&'a self, root: &Path, relative: &Path) -> Result<Box<dyn HeldDir + 'a>, FsError>;

    /// Metadata, following symlinks.
    fn metadata(&self, path: &Path) -> Result<Metadata, FsError>;

    /// Metadata of the path itself (a symlink is reported as a symlink).
    fn symlink_metadata(&self, path: &Path) -> Result<Metadata, FsError>;

    /// The target of a symlink, as stored.
    fn read_link(&self, path: &Path) -> Result<PathBuf, FsError>;

    /// The absolute path with every symlink, `.` and `..` resolved; the path must exist.
    fn canonicalize(&self, path: &Path) -> Result<PathBuf, FsError>;

    /// The entries of a directory (following symlinks to reach it), sorted by name bytes.
    /// Entry kinds do not follow symlinks.
    fn read_dir(&self, path: &Path) -> Result<Vec<DirEntry>, FsError>;

    /// Every regular file and every symlink below `root`, as absolute paths sorted by bytes,
    /// without following symlinks below the root (a symlink is reported, never entered);
    /// directories named in `skip_dirs` are not entered. `root` itself is followed: a root that
    /// is (or leads to) a regular file is the one file found.
    fn walk(&self, root: &Path, skip_dirs: &[&str]) -> Result<Walk, FsError>;

    /// The regular files of [`FileSystem::walk`].
    fn walk_files(&self, root: &Path, skip_dirs: &[&str]) -> Result<Vec<PathBuf>, FsError> {
        self.walk(root, skip_dirs).map(|w| w.files)
    }

    /// Creates a directory and its missing parents.
    fn create_dir_all(&self, path: &Path) -> Result<(), FsError>;

    /// Replaces (or creates) a file so that a reader sees either the old content or the new,
    /// never a mix: write a temporary file beside it, flush it, rename it over the target. The
    /// new file keeps the replaced one's permissions. Refused, with nothing written: a folder
    /// (`IsADirectory`), a FIFO, socket or device (`NotAFile`), a read-only file
    /// (`PermissionDenied`); a symlink is judged by what it leads to.
    fn write_atomic(&self, path: &Path, bytes: &[u8]) -> Result<(), FsError>;

    /// [`FileSystem::write_atomic`] only if the file still holds `expected` when it is about to
    /// be replaced; `Ok(false)`, with nothing written, when another program changed it since it
    /// was read (a lost update otherwise: `register` merged into a config that an editor was
    /// saving, and 326 of its 1,240 entries vanished). `expected` is at most `limit` bytes. The
    /// default reads, compares and writes; an adapter may stage the new file first, so that the
    /// compare comes right before the rename.
    fn replace_if_unchanged(&self, path: &Path, expected: &[u8], bytes: &[u8], limit: u64) -> Result<bool, FsError> {
        if self.read(path, limit)? != expected {
            return Ok(false);
        }
        self.write_atomic(path, bytes).map(|()| true)
    }

    /// Applies several changes as one: either all of them happen or, when any step fails,
    /// none does and the error is returned. In order:
    /// 1. stage: each `Write` goes to a temporary file beside its target, written and synced;
    /// 2. keep: each target that exists gets a second name beside it (a hard link), so it can
    ///    be put back;
    /// 3. apply, in the order given: rename each temporary over its target, remove each
    ///    `Remove` target; then sync the folders;
    /// 4. drop the kept names.
    ///
    /// A failure in 1 or 2 touches no target; a failure in 3 puts back every target already
    /// changed, from its kept name (or removes it when it did not exist). Temporaries and kept
    /// names never remain. A reader may see some targets changed and others not while 3 runs
    /// (a few renames), never a torn file. The paths must be distinct.
    fn write_atomic_set(&self, changes: &[Change<'_>]) -> Result<(), FsError>;

    /// [`FileSystem::write_atomic_set`] of changes each given with a root, its path relative
    /// to that root (as [`beneath_names`] takes it), in any folder below it. Each folder is
    /// reached from one handle on its root without following any symlink below the root (one
    /// on the way is `Loop`, a file `NotADirectory`, a folder not there `NotFound`) and held
    /// open while the set runs: a folder swapped for a symlink after a caller looked at it
    /// fails the set before any target changes, and one swapped later cannot redirect what is
    /// made, renamed or removed in it. Every folder must exist; a root is configuration and
    /// followed if it is a symlink (a file at the root's own level is made in it).
    fn write_atomic_set_beneath(&self, changes: &[(&Path, Change<'_>)]) -> Result<(), FsError>;

    /// Makes the folder `relative` below `root` and each missing one on the way, owner-only
    /// (0700), as [`FileSystem::open_dir_beneath`] reaches them: the first below the root by
    /// its path (`mkdir` follows no symlink at the name it makes, and one already there fails
    /// the next open), each deeper one by name through a handle on its parent. A symlink on
    /// the way, made before or during the call, is an error (`Loop`, `NotADirectory`, or
    /// `AlreadyExists` for a dangling one at the first level): nothing is made on its other
    /// side.
    fn create_private_dir_beneath(&self, root: &Path, relative: &Path) -> Result<(), FsError> {
        let names = beneath_names(relative)?;
        let (first, deeper) = names.split_first().expect("beneath_names gives at least one name");
        self.create_private_dir_all(&root.join(first))?;
        let mut made = PathBuf::from(first);
        for name in deeper {
            self.open_dir_beneath(root, &made)?.create_private_dir(name)?;
            made.push(name);
        }
        // The last one, reached as its files will be: a symlink there is refused now.
        self.open_dir_beneath(root, &made).map(drop)
    }

    /// Creates a new file atomically (a temporary file beside it, then linked into place only if
    /// nothing is at `path`); fails with `AlreadyExists` when anything is there.
    fn write_new(&self, path: &Path, bytes: &[u8]) -> Result<(), FsError>;

    /// Creates a directory and its missing parents, readable only by the owner (0700 on Unix).
    fn create_private_dir_all(&self, path: &Path) -> Result<(), FsError>;

    /// Removes a file or a symlink (not a directory).
    fn remove_file(&self, path: &Path) -> Result<(), FsError>;

    /// Removes an empty folder (`rmdir`): a folder with anything in it is `Other`, a symlink or
    /// a file `NotADirectory`. Undoing what an install made, and nothing more: never recursive.
    fn remove_dir(&self, path: &Path) -> Result<(), FsError>;

    /// The permission bits (`0o7777` of the mode), following symlinks.
    fn mode(&self, path: &Path) -> Result<u32, FsError>;

    /// Sets the permission bits, following symlinks.
    fn set_mode(&self, path: &Path, mode: u32) -> Result<(), FsError>;

    /// An exclusive advisory lock on the folder `path` (between processes: `flock` on Unix),
    /// held until the guard drops. With `wait` false, `Ok(None)` when another holder has it.
    fn lock_dir(&self, path: &Path, wait: bool) -> Result<Option<DirLock>, FsError>;

    /// Whether a [`FileSystem::lock_dir`] lock on the folder `path` is held now, by this
    /// process or another. A probe: when the folder is free it is locked shared for an instant
    /// (a `lock_dir` without `wait` made in that instant answers `None`).
    fn dir_locked(&self, path: &Path) -> Result<bool, FsError>;
}

/// How an adapter names what [`FileSystem::write_atomic_set`] makes beside a target: a
/// temporary is `.vitaecontext-XXXX.tmp`, a kept second name of the old target
/// `.vitaecontext-XXXX.old`, `XXXX` being ASCII letters and digits. A set removes both before it
/// returns; only a process that was killed in the middle leaves them behind.
pub const SET_FILE_PREFIX: &str = ".vitaecontext-";
pub const SET_TEMP_SUFFIX: &str = ".tmp";
pub const SET_KEPT_SUFFIX: &str = ".old";

/// Whether `name` is a name [`SET_FILE_PREFIX`] describes: what an interrupted set left.
pub fn is_set_leftover(name: &OsStr) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let Some(rest) = name.as_bytes().strip_prefix(SET_FILE_PREFIX.as_bytes()) else { return false };
    let middle =
        rest.strip_suffix(SET_TEMP_SUFFIX.as_bytes()).or_else(|| rest.strip_suffix(SET_KEPT_SUFFIX.as_bytes()));
    middle.is_some_and(|m| !m.is_empty() && m.len() <= 32 && m.iter().all(u8::is_ascii_alphanumeric))
}

/// The names of a path given to [`FileSystem::read_beneath`]: relative, at least one name, and
/// nothing but names: no `.`, `..`, empty part or trailing `/` (checked on the bytes, since
/// `Path::components` would quietly drop some of them). Shared by both adapters so that they
/// refuse the same inputs.
pub fn beneath_names(relative: &Path) -> Result<Vec<&OsStr>, FsError> {
    use std::os::unix::ffi::OsStrExt;
    let bytes = relative.as_os_str().as_bytes();
    let names: Vec<&OsStr> = bytes.split(|b| *b == b'/').map(OsStr::from_bytes).collect();
    if bytes.is_empty() || names.iter().any(|n| n.is_empty() || *n == "." || *n == "..") {
        return Err(FsError::new(FsErrorKind::InvalidPath, relative, "not a plain relative path"));
    }
    Ok(names)
}

/// Any [`FileSystem`] seen through the two questions path confinement asks.
#[derive(Clone, Copy)]
pub struct ConfineView<'a>(pub &'a dyn FileSystem);

impl std::fmt::Debug for ConfineView<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ConfineView")
    }
}

impl domain::graph::confine::FsView for ConfineView<'_> {
    fn kind(&self, path: &Path) -> Option<domain::graph::confine::Kind> {
        use domain::graph::confine::Kind;
        match self.0.symlink_metadata(path) {
            Ok(m) => Some(match m.kind {
                FileKind::File => Kind::File,
                FileKind::Dir => Kind::Dir,
                FileKind::Symlink => Kind::Symlink,
                FileKind::Other => Kind::Other,
            }),
            Err(e) if e.kind == FsErrorKind::PermissionDenied => Some(Kind::Denied),
            Err(_) => None,
        }
    }

    fn link_target(&self, path: &Path) -> Option<PathBuf> {
        self.0.read_link(path).ok()
    }
}

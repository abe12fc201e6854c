//! The filesystem port on the machine's real filesystem.
//!
//! Reads never block on FIFOs (they are opened non-blocking and refused as non-regular), writes
//! go through a temporary file and a rename, and errors keep the path they concern.
//!
//! Confined reads (`read_beneath`) are opened from a handle on the root with `openat2`
//! (`RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS`) where the kernel has it, and one `openat` per
//! component with `O_NOFOLLOW` where it does not, then read through the final handle. The
//! syscalls come from `rustix`: safe wrappers (this crate forbids `unsafe`), already in the
//! tree through `tempfile`, and it has `openat2` and `ResolveFlags` where std has neither.

#![forbid(unsafe_code)]

mod held_dir;
mod sync_behind;

use std::ffi::OsStr;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use ports::fs::{
    Change, DirEntry, FileKind, FileSystem, FsError, FsErrorKind, HeldDir, HeldRoot, Metadata, SET_FILE_PREFIX,
    SET_KEPT_SUFFIX, SET_TEMP_SUFFIX, Walk, WalkBeneath, beneath_names,
};
use rustix::fd::OwnedFd;
use rustix::fs::{AtFlags, CWD, FileType, Mode, OFlags, ResolveFlags};
use rustix::io::Errno;

/// The real filesystem. Stateless: every call goes to the OS.
#[derive(Debug, Default, Clone, Copy)]
pub struct StdFs;

impl StdFs {
    pub fn new() -> Self {
        Self
    }
}

fn kind_of(ft: fs::FileType) -> FileKind {
    if ft.is_symlink() {
        FileKind::Symlink
    } else if ft.is_dir() {
        FileKind::Dir
    } else if ft.is_file() {
        FileKind::File
    } else {
        FileKind::Other
    }
}

fn meta_of(m: &fs::Metadata) -> Metadata {
    let mtime_ns = (m.mtime() as i128) * 1_000_000_000 + m.mtime_nsec() as i128;
    let ctime_ns = (m.ctime() as i128) * 1_000_000_000 + m.ctime_nsec() as i128;
    stamped(kind_of(m.file_type()), m.len(), m.dev(), m.ino(), mtime_ns, ctime_ns)
}

/// [`meta_of`] from a `stat` made by name (`statat`): the same metadata, stamp included.
fn meta_of_stat(st: &rustix::fs::Stat) -> Metadata {
    let kind = match FileType::from_raw_mode(st.st_mode) {
        FileType::RegularFile => FileKind::File,
        FileType::Directory => FileKind::Dir,
        FileType::Symlink => FileKind::Symlink,
        _ => FileKind::Other,
    };
    let ns = |secs, nsecs| i128::from(secs) * 1_000_000_000 + i128::from(nsecs);
    let (mtime_ns, ctime_ns) = (ns(st.st_mtime, st.st_mtime_nsec), ns(st.st_ctime, st.st_ctime_nsec));
    let len = u64::try_from(st.st_size).unwrap_or_default();
    // `stat`'s field types differ between targets; these are the ones `MetadataExt` gives.
    #[allow(clippy::useless_conversion, reason = "u64 on some targets, not on all")]
    let (dev, ino) = (u64::from(st.st_dev), u64::from(st.st_ino));
    stamped(kind, len, dev, ino, mtime_ns, ctime_ns)
}

fn stamped(kind: FileKind, len: u64, dev: u64, ino: u64, mtime_ns: i128, ctime_ns: i128) -> Metadata {
    use std::hash::{Hash, Hasher};
    // Device, inode, mtime and ctime, mixed into 128 bits (two fixed-key SipHashes, stable
    // within a build; a new build that mixes differently only costs one cache miss). ctime
    // catches what mtime misses: an mtime set back (`touch -d`, `rsync -a`), a chmod.
    let part = |salt: u8| {
        let mut h = std::hash::DefaultHasher::new();
        (salt, dev, ino, mtime_ns, ctime_ns).hash(&mut h);
        h.finish()
    };
    let stamp = (u128::from(part(1)) << 64) | u128::from(part(2));
    let modified_ns = i64::try_from(mtime_ns).ok();
    Metadata { kind, len, stamp, modified_ns }
}

fn err(path: &Path, e: io::Error) -> FsError {
    let kind = match e.raw_os_error() {
        Some(libc::ENOENT) => FsErrorKind::NotFound,
        Some(libc::EACCES) | Some(libc::EPERM) => FsErrorKind::PermissionDenied,
        Some(libc::EEXIST) => FsErrorKind::AlreadyExists,
        Some(libc::ENOTDIR) => FsErrorKind::NotADirectory,
        Some(libc::EISDIR) => FsErrorKind::IsADirectory,
        Some(libc::ELOOP) => FsErrorKind::Loop,
        // A path over PATH_MAX (or a name over NAME_MAX): no call can open it by that path.
        Some(libc::EINVAL) | Some(libc::ENAMETOOLONG) => FsErrorKind::InvalidPath,
        // Opening a socket: it is not a file.
        Some(libc::ENXIO) => FsErrorKind::NotAFile,
        _ => match e.kind() {
            io::ErrorKind::NotFound => FsErrorKind::NotFound,
            io::ErrorKind::PermissionDenied => FsErrorKind::PermissionDenied,
            io::ErrorKind::AlreadyExists => FsErrorKind::AlreadyExists,
            _ => FsErrorKind::Other,
        },
    };
    FsError::new(kind, path, e.to_string())
}

fn require_absolute(path: &Path) -> Result<(), FsError> {
    if path.is_absolute() { Ok(()) } else { Err(FsError::new(FsErrorKind::InvalidPath, path, "path is not absolute")) }
}

/// Reads an opened file after checking what it is, at most `max_bytes`.
fn read_opened(path: &Path, mut file: File, max_bytes: u64) -> Result<(Vec<u8>, Metadata), FsError> {
    let meta = file.metadata().map_err(|e| err(path, e))?;
    let m = meta_of(&meta);
    match m.kind {
        FileKind::File => {}
        FileKind::Dir => return Err(FsError::new(FsErrorKind::IsADirectory, path, "is a directory")),
        _ => return Err(FsError::new(FsErrorKind::NotAFile, path, "not a regular file")),
    }
    if m.len > max_bytes {
        return Err(too_large(path, max_bytes));
    }
    // One byte more than the file holds, so that a file read whole as it was when checked
    // takes one `read`, short of the buffer, rather than a second one that reads nothing (at
    // 100,000 records, 100,000 calls fewer). A file that grew since fills the buffer, which
    // grows; the cap plus one byte is the most ever read.
    let limit = usize::try_from(max_bytes.saturating_add(1)).unwrap_or(usize::MAX);
    let mut bytes = vec![0; (m.len as usize).saturating_add(1).min(limit)];
    let mut filled = 0;
    loop {
        if filled == bytes.len() {
            if filled >= limit {
                return Err(too_large(path, max_bytes));
            }
            bytes.resize(filled.saturating_mul(2).clamp(filled + 1, limit), 0);
        }
        match file.read(&mut bytes[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(err(path, e)),
        }
        // Short of the buffer at the length the file had when checked: its end, as a read
        // that returns nothing would say (a regular file reads short only there).
        if filled as u64 == m.len && filled < bytes.len() {
            break;
        }
    }
    bytes.truncate(filled);
    if filled as u64 > max_bytes {
        return Err(too_large(path, max_bytes));
    }
    Ok((bytes, m))
}

/// How `read_beneath` walks below the root. Both are exact; the second is for kernels without
/// `openat2` (before 5.6, or a sandbox that filters it), and tests run both.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Beneath {
    Openat2,
    /// Chosen by the tests only; at run time the walk falls to it when `openat2` is missing.
    #[cfg_attr(not(test), expect(dead_code, reason = "named by the tests; reached as the fallback"))]
    PerComponent,
}

/// Set once `openat2` answered ENOSYS: later reads go straight to the per-component walk.
static NO_OPENAT2: AtomicBool = AtomicBool::new(false);

/// Opens `relative` below `root` for reading without following any symlink below the root.
/// The returned file is the one to fstat and read: nothing is opened again by path.
fn open_beneath(root: &Path, relative: &Path, how: Beneath) -> Result<File, FsError> {
    open_below(&open_root_for(root, relative)?, root, relative, how)
}

/// The root opened for one read of `relative`: a bad `relative` is reported as such before
/// the root is looked at, whatever the root is.
fn open_root_for(root: &Path, relative: &Path) -> Result<OwnedFd, FsError> {
    require_absolute(root)?;
    beneath_names(relative)?;
    open_root(root)
}

/// A handle on the root folder, for walks below it. The root is configuration: opened by its
/// path, following a symlinked root.
fn open_root(root: &Path) -> Result<OwnedFd, FsError> {
    require_absolute(root)?;
    rustix::fs::openat(CWD, root, OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC, Mode::empty())
        .map_err(|e| err(root, e.into()))
}

/// [`open_beneath`] from a handle on the root already open (`root` names it in errors).
fn open_below(root_fd: &OwnedFd, root: &Path, relative: &Path, how: Beneath) -> Result<File, FsError> {
    // O_NONBLOCK: a FIFO is opened without waiting for a writer, then refused by its fstat.
    let file_flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC;
    open_below_with(root_fd, root, relative, how, file_flags).map(File::from)
}

/// [`open_below`] with the flags of the last open (`O_NOFOLLOW` among them).
fn open_below_with(
    root_fd: &OwnedFd,
    root: &Path,
    relative: &Path,
    how: Beneath,
    file_flags: OFlags,
) -> Result<OwnedFd, FsError> {
    let names = beneath_names(relative)?;
    let full = root.join(relative);
    let fail = |e: Errno| err(&full, e.into());
    if how == Beneath::Openat2 && !NO_OPENAT2.load(Ordering::Relaxed) {
        let resolve = ResolveFlags::BENEATH | ResolveFlags::NO_SYMLINKS;
        // EAGAIN is the kernel declining to prove a `..` safe during a rename; there is no `..`
        // here, but a retry through the per-component walk is exact anyway.
        match rustix::fs::openat2(root_fd, relative, file_flags, Mode::empty(), resolve) {
            Ok(fd) => return Ok(fd),
            Err(Errno::NOSYS) => NO_OPENAT2.store(true, Ordering::Relaxed),
            // ENOTDIR may be a symlink met with O_DIRECTORY: the walk below tells which.
            Err(Errno::PERM | Errno::AGAIN | Errno::NOTDIR) => {}
            Err(e) => return Err(fail(e)),
        }
    }
    let mut below: Option<OwnedFd> = None;
    let (last, folders) = names.split_last().expect("beneath_names gives at least one name");
    for name in folders {
        let flags = OFlags::PATH | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let dir = below.as_ref().unwrap_or(root_fd);
        let next = rustix::fs::openat(dir, *name, flags, Mode::empty())
            .map_err(|e| symlink_is_loop(dir, name, e))
            .map_err(fail)?;
        below = Some(next);
    }
    let dir = below.as_ref().unwrap_or(root_fd);
    rustix::fs::openat(dir, *last, file_flags, Mode::empty()).map_err(|e| symlink_is_loop(dir, last, e)).map_err(fail)
}

/// `O_NOFOLLOW | O_DIRECTORY` on a symlink fails with ENOTDIR; report it as the symlink it is
/// (ELOOP, as `openat2` says), so both walks give the same error.
fn symlink_is_loop(dir: &OwnedFd, name: &std::ffi::OsStr, e: Errno) -> Errno {
    let is_link = |st: rustix::fs::Stat| FileType::from_raw_mode(st.st_mode) == FileType::Symlink;
    if e == Errno::NOTDIR && rustix::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW).is_ok_and(is_link) {
        Errno::LOOP
    } else {
        e
    }
}

fn read_beneath_with(
    root: &Path,
    relative: &Path,
    max_bytes: u64,
    how: Beneath,
) -> Result<(Vec<u8>, Metadata), FsError> {
    let file = open_beneath(root, relative, how)?;
    read_opened(&root.join(relative), file, max_bytes)
}

fn metadata_beneath_with(root: &Path, relative: &Path, how: Beneath) -> Result<Metadata, FsError> {
    stat_below(&open_root_for(root, relative)?, root, relative, how)
}

/// The metadata [`opened_below`] gives, from a handle that does not open the file (`O_PATH`:
/// no open of the file itself, so about a third cheaper for the 100,000 stats of an
/// incremental index). With `O_NOFOLLOW`, a final symlink is handed back as itself: it is
/// refused as `Loop`, as the read refuses it.
fn stat_below(root_fd: &OwnedFd, root: &Path, relative: &Path, how: Beneath) -> Result<Metadata, FsError> {
    let path = root.join(relative);
    let flags = OFlags::PATH | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    let fd = open_below_with(root_fd, root, relative, how, flags)?;
    let m = meta_of(&File::from(fd).metadata().map_err(|e| err(&path, e))?);
    match m.kind {
        FileKind::File => Ok(m),
        FileKind::Dir => Err(FsError::new(FsErrorKind::IsADirectory, path, "is a directory")),
        FileKind::Symlink => Err(FsError::new(FsErrorKind::Loop, path, "a symlink below the root")),
        _ => Err(FsError::new(FsErrorKind::NotAFile, path, "not a regular file")),
    }
}

/// A regular file opened beneath the root, with its metadata.
fn opened_beneath(root: &Path, relative: &Path, how: Beneath) -> Result<(File, Metadata), FsError> {
    opened_below(&open_root_for(root, relative)?, root, relative, how)
}

/// [`opened_beneath`] from a handle on the root already open.
fn opened_below(root_fd: &OwnedFd, root: &Path, relative: &Path, how: Beneath) -> Result<(File, Metadata), FsError> {
    let path = root.join(relative);
    let file = open_below(root_fd, root, relative, how)?;
    let m = meta_of(&file.metadata().map_err(|e| err(&path, e))?);
    match m.kind {
        FileKind::File => Ok((file, m)),
        FileKind::Dir => Err(FsError::new(FsErrorKind::IsADirectory, path, "is a directory")),
        _ => Err(FsError::new(FsErrorKind::NotAFile, path, "not a regular file")),
    }
}

/// The folder `relative` below `root`, opened (for listing, syncing and the `*at` calls of
/// a [`HeldDir`]) the way [`open_below`] opens a file: no symlink followed below the root.
fn open_dir_beneath(root: &Path, relative: &Path, how: Beneath) -> Result<held_dir::OpenDir, FsError> {
    open_dir_below(&open_root_for(root, relative)?, root, relative, how)
}

/// [`open_dir_beneath`] from a handle on the root already open (`root` names it in errors).
fn open_dir_below(root_fd: &OwnedFd, root: &Path, relative: &Path, how: Beneath) -> Result<held_dir::OpenDir, FsError> {
    let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    let fd = match open_below_with(root_fd, root, relative, how, flags) {
        // A folder one may write and enter but not list (mode 0300): an `O_PATH` handle still
        // makes, links and renames by name in it (its listing and sync fail, as they would).
        Err(e) if e.kind == FsErrorKind::PermissionDenied => {
            let flags = OFlags::PATH | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
            open_below_with(root_fd, root, relative, how, flags).map_err(|_| e)?
        }
        other => other?,
    };
    Ok(held_dir::OpenDir::new(fd, root.join(relative)))
}

/// [`FileSystem::write_atomic_set_beneath`]: each folder of the set opened once, from one
/// handle on its root, then the set made through them all.
fn write_atomic_set_beneath(changes: &[(&Path, Change<'_>)], how: Beneath) -> Result<(), FsError> {
    // The root and folder of each change (an empty folder: the root) and its name there.
    let mut places: Vec<(&Path, PathBuf, &OsStr)> = Vec::with_capacity(changes.len());
    for (root, change) in changes {
        require_absolute(root)?;
        let names = beneath_names(change.path())?;
        let (name, folder) = names.split_last().expect("beneath_names gives at least one name");
        places.push((root, folder.iter().collect(), name));
    }
    let mut roots: Vec<(&Path, OwnedFd)> = Vec::new();
    let mut held: Vec<(&Path, &Path, held_dir::OpenDir)> = Vec::new();
    for (root, folder, _) in &places {
        if held.iter().any(|(r, f, _)| r == root && f == folder) {
            continue;
        }
        let dir = if folder.as_os_str().is_empty() {
            let open =
                |how: OFlags| rustix::fs::openat(CWD, *root, how | OFlags::DIRECTORY | OFlags::CLOEXEC, Mode::empty());
            // As `open_dir_below`: a folder one may write and enter but not list gets an `O_PATH` handle.
            let fd = match open(OFlags::RDONLY) {
                Err(Errno::ACCESS) => open(OFlags::PATH),
                other => other,
            }
            .map_err(|e| err(root, e.into()))?;
            held_dir::OpenDir::new(fd, root.to_path_buf())
        } else {
            if !roots.iter().any(|(r, _)| r == root) {
                roots.push((root, open_root(root)?));
            }
            let (_, root_fd) = roots.iter().find(|(r, _)| r == root).expect("opened above");
            open_dir_below(root_fd, root, folder, how)?
        };
        held.push((root, folder, dir));
    }
    let targets: Vec<held_dir::Target<'_, '_>> = places
        .iter()
        .zip(changes)
        .map(|((root, folder, name), (_, change))| {
            let (.., dir) = held.iter().find(|(r, f, _)| r == root && f == folder).expect("each folder is held above");
            (dir, *name, change)
        })
        .collect();
    held_dir::write_set(&targets)
}

/// A root held open for a run's reads ([`FileSystem::hold_root`]): one handle instead of one
/// `openat` of the root's path (and its `close`) per file.
struct OpenRoot {
    fd: OwnedFd,
    root: PathBuf,
    how: Beneath,
}

impl OpenRoot {
    fn new(root: &Path, how: Beneath) -> Result<OpenRoot, FsError> {
        Ok(OpenRoot { fd: open_root(root)?, root: root.to_path_buf(), how })
    }
}

impl HeldRoot for OpenRoot {
    fn read_beneath(&self, relative: &Path, max_bytes: u64) -> Result<(Vec<u8>, Metadata), FsError> {
        let file = open_below(&self.fd, &self.root, relative, self.how)?;
        read_opened(&self.root.join(relative), file, max_bytes)
    }

    fn metadata_beneath(&self, relative: &Path) -> Result<Metadata, FsError> {
        stat_below(&self.fd, &self.root, relative, self.how)
    }

    fn walk_beneath(&self, relative: &Path, skip_dirs: &[&str], stat: bool) -> Result<WalkBeneath, FsError> {
        Ok(walk_below(&self.fd, &self.root, relative, self.how, skip_dirs, stat, usize::MAX)?.unwrap_or_default())
    }

    fn walk_beneath_at_most(
        &self,
        relative: &Path,
        skip_dirs: &[&str],
        stat: bool,
        max_entries: usize,
    ) -> Result<Option<WalkBeneath>, FsError> {
        walk_below(&self.fd, &self.root, relative, self.how, skip_dirs, stat, max_entries)
    }
}

/// [`HeldRoot::walk_beneath`] from a handle on the root. Every folder is opened by its name in
/// its parent's handle, refusing a symlink (`O_NOFOLLOW`), and each file's metadata is taken
/// by name in its folder's handle without following it: nothing is reached by a path, so a
/// folder swapped for a symlink meanwhile is not entered. Iterative: the open folders are a
/// stack on the heap (one handle per level), however deep the tree.
fn walk_below(
    root_fd: &OwnedFd,
    root: &Path,
    relative: &Path,
    how: Beneath,
    skip_dirs: &[&str],
    stat: bool,
    max_entries: usize,
) -> Result<Option<WalkBeneath>, FsError> {
    let dir_flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    let top = root.join(relative);
    let fd = open_below_with(root_fd, root, relative, how, dir_flags)?;
    let open = |fd: OwnedFd, path: &Path| rustix::fs::Dir::new(fd).map_err(|e| err(path, e.into()));
    let mut stack = vec![(open(fd, &top)?, top)];
    let mut found = WalkBeneath::default();
    while let Some((dir, path)) = stack.last_mut() {
        let Some(entry) = dir.read() else {
            stack.pop();
            continue;
        };
        let entry = entry.map_err(|e| err(path, e.into()))?;
        let name = <std::ffi::OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(entry.file_name().to_bytes());
        if name == "." || name == ".." {
            continue;
        }
        if found.files.len() + found.symlinks.len() > max_entries {
            return Ok(None);
        }
        let dir_fd = dir.fd().map_err(|e| err(path, e.into()))?;
        let mut kind = entry.file_type();
        if kind == FileType::Unknown {
            match rustix::fs::statat(dir_fd, name, AtFlags::SYMLINK_NOFOLLOW) {
                Ok(st) => kind = FileType::from_raw_mode(st.st_mode),
                Err(Errno::NOENT) => continue,
                Err(e) => return Err(err(&path.join(name), e.into())),
            }
        }
        match kind {
            FileType::Directory if skip_dirs.iter().any(|s| name == *s) => {}
            FileType::Directory => match rustix::fs::openat(dir_fd, name, dir_flags, Mode::empty()) {
                Ok(sub) => {
                    let sub_path = path.join(name);
                    let sub = open(sub, &sub_path)?;
                    stack.push((sub, sub_path));
                }
                // Removed, or replaced by a symlink or a file, since it was listed: not entered.
                Err(Errno::NOENT | Errno::LOOP | Errno::NOTDIR) => {}
                Err(e) => return Err(err(&path.join(name), e.into())),
            },
            FileType::RegularFile => {
                let meta = stat
                    .then(|| rustix::fs::statat(dir_fd, name, AtFlags::SYMLINK_NOFOLLOW).ok())
                    .flatten()
                    .map(|st| meta_of_stat(&st))
                    .filter(|m| m.kind == FileKind::File);
                found.files.push((path.join(name), meta));
            }
            FileType::Symlink => found.symlinks.push(path.join(name)),
            _ => {}
        }
    }
    if found.files.len() + found.symlinks.len() > max_entries {
        return Ok(None);
    }
    found.sort();
    Ok(Some(found))
}

/// Writes `bytes` to a synced temporary file in the folder of `path`, ready to be moved there.
fn staged(path: &Path, bytes: &[u8]) -> Result<tempfile::NamedTempFile, FsError> {
    staged_with(path, &|out: &mut dyn io::Write| out.write_all(bytes), Durable::Synced)
}

/// Whether a staged file is synced to the disk before it is renamed into place.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Durable {
    Synced,
    /// A cache that checks itself (`Change::Cache`): not synced.
    Cache,
}

/// A temporary file beside `path` holding what `content` writes (synced when `durable`).
fn staged_with(
    path: &Path,
    content: &dyn Fn(&mut dyn io::Write) -> io::Result<()>,
    durable: Durable,
) -> Result<tempfile::NamedTempFile, FsError> {
    require_absolute(path)?;
    let dir = path.parent().ok_or_else(|| FsError::new(FsErrorKind::InvalidPath, path, "no parent folder"))?;
    // tempfile wraps its errors and drops the errno; look at the folder first so a missing
    // folder, a file in the way or a symlink loop is reported as what it is.
    let dir_meta = fs::metadata(dir).map_err(|e| err(dir, e))?;
    if !dir_meta.is_dir() {
        return Err(FsError::new(FsErrorKind::NotADirectory, path, "parent is not a directory"));
    }
    let dir = physical(dir)?;
    let mut tmp =
        tempfile::Builder::new().prefix(SET_FILE_PREFIX).suffix(SET_TEMP_SUFFIX).tempfile_in(&dir).map_err(|e| {
            // tempfile's message names its random file; the folder is what a person can act on
            // (found in review, as in `held_dir`).
            let e = err(&dir, io::Error::from(e.kind()));
            FsError::new(e.kind, e.path, format!("cannot create a file in this folder: {}", e.detail))
        })?;
    let written = match durable {
        Durable::Synced => sync_behind::write_synced(tmp.as_file_mut(), content),
        Durable::Cache => content(&mut tmp),
    };
    written.map_err(|e| err(path, e))?;
    Ok(tmp)
}

/// The permission bits of the file `write_atomic` replaces at `path`, to give the new one
/// (`None` when nothing is there). What a symlink there leads to is what is looked at. Refused:
/// a FIFO, socket or device (as root, `context init -o /dev/null --force` replaced the device
/// with a file) and a read-only file (someone made it so; a config a tool manages often is).
fn replaced_mode(path: &Path) -> Result<Option<u32>, FsError> {
    use std::os::unix::fs::PermissionsExt;
    match fs::metadata(path) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        // A symlink that leads nowhere (a loop, a file taken for a folder...): the link itself
        // is what is replaced, as before.
        Err(_) if fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) => Ok(None),
        Err(e) => Err(err(path, e)),
        Ok(m) if m.is_dir() => Err(FsError::new(FsErrorKind::IsADirectory, path, "is a directory")),
        Ok(m) if !m.is_file() => Err(FsError::new(
            FsErrorKind::NotAFile,
            path,
            "is a FIFO, socket or device, not a regular file; it was not replaced",
        )),
        Ok(m) if m.permissions().mode() & 0o222 == 0 => Err(FsError::new(
            FsErrorKind::PermissionDenied,
            path,
            "is read-only; it was not replaced (make it writable first, for example with chmod u+w, if it should change)",
        )),
        // The set-user-id, set-group-id and sticky bits are not carried to new content.
        Ok(m) => Ok(Some(m.permissions().mode() & 0o777)),
    }
}

/// Makes a rename durable; a filesystem that cannot sync a folder is not an error.
fn sync_parent(path: &Path) {
    if let Some(d) = path.parent().and_then(|dir| File::open(dir).ok()) {
        let _ = d.sync_all();
    }
}

/// A second name beside an existing `path` (a hard link), removed when dropped; `None` when
/// nothing is at `path`.
fn kept(path: &Path) -> Result<Option<tempfile::TempPath>, FsError> {
    match fs::symlink_metadata(path) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(err(path, e)),
        Ok(m) if m.is_dir() => Err(FsError::new(FsErrorKind::IsADirectory, path, "is a directory")),
        Ok(_) => {
            let dir = path.parent().ok_or_else(|| FsError::new(FsErrorKind::InvalidPath, path, "no parent folder"))?;
            let link = tempfile::Builder::new()
                .prefix(SET_FILE_PREFIX)
                .suffix(SET_KEPT_SUFFIX)
                .make_in(physical(dir)?, |name| fs::hard_link(path, name))
                .map_err(|e| err(path, e))?;
            Ok(Some(link.into_temp_path()))
        }
    }
}

/// The folder `dir` names, every symlink resolved: where a set's temporary and kept names are
/// made, so that they are reached (renamed, removed) by a path that no change of the set can
/// redirect, such as a symlink on the way that the set itself replaces or removes.
fn physical(dir: &Path) -> Result<PathBuf, FsError> {
    fs::canonicalize(dir).map_err(|e| err(dir, e))
}

fn too_large(path: &Path, max_bytes: u64) -> FsError {
    FsError::new(FsErrorKind::TooLarge, path, format!("file is larger than {max_bytes} bytes"))
}

impl FileSystem for StdFs {
    fn read(&self, path: &Path, max_bytes: u64) -> Result<Vec<u8>, FsError> {
        require_absolute(path)?;
        let file = OpenOptions::new().read(true).custom_flags(libc::O_NONBLOCK).open(path).map_err(|e| err(path, e))?;
        read_opened(path, file, max_bytes).map(|(bytes, _)| bytes)
    }

    fn read_beneath(&self, root: &Path, relative: &Path, max_bytes: u64) -> Result<(Vec<u8>, Metadata), FsError> {
        read_beneath_with(root, relative, max_bytes, Beneath::Openat2)
    }

    fn metadata_beneath(&self, root: &Path, relative: &Path) -> Result<Metadata, FsError> {
        metadata_beneath_with(root, relative, Beneath::Openat2)
    }

    fn hold_root<'a>(&'a self, root: &Path) -> Result<Box<dyn HeldRoot + 'a>, FsError> {
        Ok(Box::new(OpenRoot::new(root, Beneath::Openat2)?))
    }

    fn open_dir_beneath<'a>(&'a self, root: &Path, relative: &Path) -> Result<Box<dyn HeldDir + 'a>, FsError> {
        Ok(Box::new(open_dir_beneath(root, relative, Beneath::Openat2)?))
    }

    fn open_beneath(&self, root: &Path, relative: &Path) -> Result<(ports::fs::OpenFile, Metadata), FsError> {
        let (file, m) = opened_beneath(root, relative, Beneath::Openat2)?;
        Ok((Box::new(file), m))
    }

    fn metadata(&self, path: &Path) -> Result<Metadata, FsError> {
        require_absolute(path)?;
        fs::metadata(path).map(|m| meta_of(&m)).map_err(|e| err(path, e))
    }

    fn symlink_metadata(&self, path: &Path) -> Result<Metadata, FsError> {
        require_absolute(path)?;
        fs::symlink_metadata(path).map(|m| meta_of(&m)).map_err(|e| err(path, e))
    }

    fn read_link(&self, path: &Path) -> Result<PathBuf, FsError> {
        require_absolute(path)?;
        fs::read_link(path).map_err(|e| err(path, e))
    }

    fn canonicalize(&self, path: &Path) -> Result<PathBuf, FsError> {
        require_absolute(path)?;
        fs::canonicalize(path).map_err(|e| err(path, e))
    }

    fn read_dir(&self, path: &Path) -> Result<Vec<DirEntry>, FsError> {
        require_absolute(path)?;
        let mut entries = Vec::new();
        for entry in fs::read_dir(path).map_err(|e| err(path, e))? {
            let entry = entry.map_err(|e| err(path, e))?;
            let kind = entry.file_type().map(kind_of).map_err(|e| err(&entry.path(), e))?;
            entries.push(DirEntry { name: entry.file_name(), kind });
        }
        entries.sort_by(|a, b| a.name.as_encoded_bytes().cmp(b.name.as_encoded_bytes()));
        Ok(entries)
    }

    fn walk(&self, root: &Path, skip_dirs: &[&str]) -> Result<Walk, FsError> {
        require_absolute(root)?;
        match self.metadata(root)?.kind {
            FileKind::Dir => {}
            FileKind::File => return Ok(Walk { files: vec![root.to_path_buf()], symlinks: Vec::new() }),
            _ => return Ok(Walk::default()),
        }
        let mut walk = Walk::default();
        let walker = walkdir::WalkDir::new(root).follow_links(false).follow_root_links(true);
        let walker = walker.into_iter().filter_entry(|e| {
            e.depth() == 0 || !(e.file_type().is_dir() && skip_dirs.iter().any(|s| e.file_name() == *s))
        });
        for entry in walker {
            let entry = entry.map_err(|e| {
                let path = e.path().unwrap_or(root).to_path_buf();
                match e.into_io_error() {
                    Some(io) => err(&path, io),
                    None => FsError::new(FsErrorKind::Loop, path, "filesystem loop"),
                }
            })?;
            if entry.file_type().is_file() {
                walk.files.push(entry.into_path());
            } else if entry.depth() > 0 && entry.file_type().is_symlink() {
                walk.symlinks.push(entry.into_path());
            }
        }
        for list in [&mut walk.files, &mut walk.symlinks] {
            list.sort_by(|a, b| a.as_os_str().as_encoded_bytes().cmp(b.as_os_str().as_encoded_bytes()));
        }
        Ok(walk)
    }

    fn create_dir_all(&self, path: &Path) -> Result<(), FsError> {
        require_absolute(path)?;
        fs::create_dir_all(path).map_err(|e| err(path, e))
    }

    fn write_atomic(&self, path: &Path, bytes: &[u8]) -> Result<(), FsError> {
        let mode = replaced_mode(path)?;
        let tmp = staged(path, bytes)?;
        if let Some(mode) = mode {
            use std::os::unix::fs::PermissionsExt;
            // Best effort, as the folder's sync: a filesystem that refuses chmod (vfat, CIFS)
            // still gets the file, with the mode it gives new files.
            let _ = tmp.as_file().set_permissions(fs::Permissions::from_mode(mode));
        }
        // On failure the temporary file is removed when it drops: nothing half-written stays.
        tmp.persist(path).map_err(|e| err(path, e.error))?;
        sync_parent(path);
        Ok(())
    }

    fn replace_if_unchanged(&self, path: &Path, expected: &[u8], bytes: &[u8], limit: u64) -> Result<bool, FsError> {
        let mode = replaced_mode(path)?;
        // Staged (written and synced) first: the compare is then the last step before the
        // rename, microseconds before it rather than the length of a write and a sync.
        let tmp = staged(path, bytes)?;
        if let Some(mode) = mode {
            use std::os::unix::fs::PermissionsExt;
            let _ = tmp.as_file().set_permissions(fs::Permissions::from_mode(mode));
        }
        if self.read(path, limit)? != expected {
            return Ok(false);
        }
        tmp.persist(path).map_err(|e| err(path, e.error))?;
        sync_parent(path);
        Ok(true)
    }

    fn write_atomic_set(&self, changes: &[Change<'_>]) -> Result<(), FsError> {
        // Temporaries and kept names are removed when they drop, on every return path.
        for change in changes {
            require_absolute(change.path())?;
        }
        // Each file is written and synced on its own thread, so the syncs overlap.
        let staging: Vec<Result<Option<tempfile::NamedTempFile>, FsError>> = std::thread::scope(|scope| {
            let threads: Vec<_> = changes
                .iter()
                .map(|change| {
                    scope.spawn(move || match change {
                        Change::Write(path, _) | Change::Stream(path, _) => {
                            staged_with(path, &|out: &mut dyn io::Write| change.write_content(out), Durable::Synced)
                                .map(Some)
                        }
                        Change::Cache(path, _) => {
                            staged_with(path, &|out: &mut dyn io::Write| change.write_content(out), Durable::Cache)
                                .map(Some)
                        }
                        Change::Remove(_) => Ok(None),
                    })
                })
                .collect();
            threads.into_iter().map(|t| t.join().expect("staging thread")).collect()
        });
        let mut temps = staging.into_iter().collect::<Result<Vec<_>, _>>()?;
        let mut keep = Vec::with_capacity(changes.len());
        for change in changes {
            keep.push(kept(change.path())?);
        }
        let mut applied = 0;
        let mut failure = None;
        for (change, temp) in changes.iter().zip(&mut temps) {
            let done = match (change, temp.take()) {
                (Change::Write(path, _) | Change::Stream(path, _) | Change::Cache(path, _), Some(temp)) => {
                    temp.persist(path).map(drop).map_err(|e| err(path, e.error))
                }
                (Change::Remove(path), _) => match fs::remove_file(path) {
                    Err(e) if e.kind() != io::ErrorKind::NotFound => Err(err(path, e)),
                    _ => Ok(()),
                },
                (Change::Write(path, _) | Change::Stream(path, _) | Change::Cache(path, _), None) => {
                    Err(FsError::new(FsErrorKind::Other, path, "not staged"))
                }
            };
            if let Err(e) = done {
                failure = Some(e);
                break;
            }
            applied += 1;
        }
        if let Some(e) = failure {
            // Put back what was changed, last first.
            let mut unrestored = Vec::new();
            for (change, old) in changes[..applied].iter().zip(&mut keep).rev() {
                let path = change.path();
                let restored = match old.take() {
                    Some(old) => old.persist(path).map_err(|e| e.error),
                    None => fs::remove_file(path)
                        .or_else(|e| if e.kind() == io::ErrorKind::NotFound { Ok(()) } else { Err(e) }),
                };
                if restored.is_err() {
                    unrestored.push(path.display().to_string());
                }
            }
            for change in changes {
                sync_parent(change.path());
            }
            return Err(if unrestored.is_empty() {
                e
            } else {
                FsError::new(e.kind, e.path, format!("{}; could not put back {}", e.detail, unrestored.join(", ")))
            });
        }
        let mut synced: Vec<&Path> = Vec::new();
        for change in changes {
            let dir = change.path().parent().unwrap_or(change.path());
            if !synced.contains(&dir) {
                sync_parent(change.path());
                synced.push(dir);
            }
        }
        Ok(())
    }

    fn write_atomic_set_beneath(&self, changes: &[(&Path, Change<'_>)]) -> Result<(), FsError> {
        write_atomic_set_beneath(changes, Beneath::Openat2)
    }

    fn write_new(&self, path: &Path, bytes: &[u8]) -> Result<(), FsError> {
        let tmp = staged(path, bytes)?;
        tmp.persist_noclobber(path).map_err(|e| err(path, e.error))?;
        sync_parent(path);
        Ok(())
    }

    fn create_private_dir_all(&self, path: &Path) -> Result<(), FsError> {
        use std::os::unix::fs::DirBuilderExt;
        require_absolute(path)?;
        fs::DirBuilder::new().recursive(true).mode(0o700).create(path).map_err(|e| err(path, e))
    }

    fn remove_file(&self, path: &Path) -> Result<(), FsError> {
        require_absolute(path)?;
        fs::remove_file(path).map_err(|e| err(path, e))
    }

    fn remove_dir(&self, path: &Path) -> Result<(), FsError> {
        require_absolute(path)?;
        fs::remove_dir(path).map_err(|e| err(path, e))
    }

    fn mode(&self, path: &Path) -> Result<u32, FsError> {
        use std::os::unix::fs::PermissionsExt;
        require_absolute(path)?;
        fs::metadata(path).map(|m| m.permissions().mode() & 0o7777).map_err(|e| err(path, e))
    }

    fn set_mode(&self, path: &Path, mode: u32) -> Result<(), FsError> {
        use std::os::unix::fs::PermissionsExt;
        require_absolute(path)?;
        fs::set_permissions(path, fs::Permissions::from_mode(mode)).map_err(|e| err(path, e))
    }

    fn lock_dir(&self, path: &Path, wait: bool) -> Result<Option<ports::fs::DirLock>, FsError> {
        require_absolute(path)?;
        // `flock` on the folder itself: no lock file to leave behind, and the kernel drops the
        // lock with the process, however it ends.
        let dir = File::open(path).map_err(|e| err(path, e))?;
        if !dir.metadata().map_err(|e| err(path, e))?.is_dir() {
            return Err(FsError::new(FsErrorKind::NotADirectory, path, "not a directory"));
        }
        use rustix::fs::FlockOperation::{LockExclusive, NonBlockingLockExclusive};
        match rustix::fs::flock(&dir, if wait { LockExclusive } else { NonBlockingLockExclusive }) {
            Ok(()) => Ok(Some(ports::fs::DirLock::new(dir))),
            Err(Errno::WOULDBLOCK) if !wait => Ok(None),
            Err(e) => Err(err(path, e.into())),
        }
    }

    fn dir_locked(&self, path: &Path) -> Result<bool, FsError> {
        require_absolute(path)?;
        let dir = File::open(path).map_err(|e| err(path, e))?;
        if !dir.metadata().map_err(|e| err(path, e))?.is_dir() {
            return Err(FsError::new(FsErrorKind::NotADirectory, path, "not a directory"));
        }
        // Shared: two probes never see each other. Closing the folder drops the lock.
        match rustix::fs::flock(&dir, rustix::fs::FlockOperation::NonBlockingLockShared) {
            Ok(()) => Ok(false),
            Err(Errno::WOULDBLOCK) => Ok(true),
            Err(e) => Err(err(path, e.into())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsStr;

    /// A file that cannot be made in a folder is an error about the folder, not about
    /// tempfile's random name (found in review). `/proc` refuses new files even to root.
    #[test]
    fn a_write_where_no_file_can_be_made_names_the_folder() {
        let e = StdFs.write_atomic(Path::new("/proc/vitaecontext-test"), b"x").unwrap_err();
        assert_eq!(e.path, Path::new("/proc"), "{e}");
        assert!(e.detail.starts_with("cannot create a file in this folder: ") && !e.detail.contains(".tmp"), "{e}");
    }

    /// A replace planned from what was read happens only if the file still holds it; a file
    /// changed since is left as the other program wrote it, with no temporary behind.
    #[test]
    fn a_replace_if_unchanged_leaves_a_changed_file_alone() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join("mcp.json");
        fs::write(&config, b"read").unwrap();
        fs::set_permissions(&config, fs::Permissions::from_mode(0o640)).unwrap();
        fs::write(&config, b"saved by an editor").unwrap();
        assert!(!StdFs.replace_if_unchanged(&config, b"read", b"merged", 1024).unwrap());
        assert_eq!(fs::read(&config).unwrap(), b"saved by an editor");
        assert!(StdFs.replace_if_unchanged(&config, b"saved by an editor", b"merged", 1024).unwrap());
        assert_eq!(fs::read(&config).unwrap(), b"merged");
        assert_eq!(fs::metadata(&config).unwrap().permissions().mode() & 0o777, 0o640);
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1, "no temporary left");
    }

    #[test]
    fn fifo_is_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("pipe");
        let status = std::process::Command::new("mkfifo").arg(&fifo).status().unwrap();
        assert!(status.success());
        let e = StdFs.read(&fifo, 1024).unwrap_err();
        assert_eq!(e.kind, FsErrorKind::NotAFile, "{e}");
    }

    /// What a replace finds decides: a file keeps its permissions; a read-only file, a FIFO
    /// (even through a symlink) and a device are never replaced (as root, `--force` made
    /// /dev/null a file, found in review).
    #[test]
    fn a_replace_keeps_the_mode_and_refuses_what_is_not_a_writable_file() {
        use std::os::unix::fs::{FileTypeExt, PermissionsExt};
        let dir = tempfile::tempdir().unwrap();
        let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
        let shared = dir.path().join("shared.json");
        fs::write(&shared, b"old").unwrap();
        fs::set_permissions(&shared, fs::Permissions::from_mode(0o664)).unwrap();
        StdFs.write_atomic(&shared, b"new").unwrap();
        assert_eq!((fs::read(&shared).unwrap(), mode(&shared)), (b"new".to_vec(), 0o664));
        fs::set_permissions(&shared, fs::Permissions::from_mode(0o444)).unwrap();
        assert_eq!(StdFs.write_atomic(&shared, b"newer").unwrap_err().kind, FsErrorKind::PermissionDenied);
        assert_eq!(fs::read(&shared).unwrap(), b"new");
        let fifo = dir.path().join("pipe");
        assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&fifo, &link).unwrap();
        for p in [&fifo, &link] {
            assert_eq!(StdFs.write_atomic(p, b"x").unwrap_err().kind, FsErrorKind::NotAFile, "{}", p.display());
        }
        assert!(
            fs::metadata(&fifo).unwrap().file_type().is_fifo() && fs::symlink_metadata(&link).unwrap().is_symlink()
        );
        let new = dir.path().join("new.md");
        StdFs.write_atomic(&new, b"x").unwrap();
        assert_eq!(mode(&new), 0o600, "a new file is private");
    }

    #[test]
    fn read_is_capped() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("big");
        fs::write(&f, vec![b'x'; 2048]).unwrap();
        assert_eq!(StdFs.read(&f, 2047).unwrap_err().kind, FsErrorKind::TooLarge);
        assert_eq!(StdFs.read(&f, 2048).unwrap().len(), 2048);
    }

    /// What a read returns is the file's bytes, whatever its length said: a file longer than
    /// its length (one that grew after it was taken, or one of `/proc`, whose length is 0) is
    /// read to its end, within the cap.
    #[test]
    fn a_read_takes_the_whole_file_whatever_its_length_said() {
        let dir = tempfile::tempdir().unwrap();
        for len in [0, 1, 4095, 4096, 70_000] {
            let f = dir.path().join(format!("f{len}"));
            let content: Vec<u8> = (0..len).map(|i| (i % 251) as u8).collect();
            fs::write(&f, &content).unwrap();
            assert_eq!(StdFs.read(&f, 1 << 20).unwrap(), content, "{len} bytes");
            assert_eq!(StdFs.read(&f, len as u64).unwrap(), content, "{len} bytes, at the cap");
        }
        if Path::new("/proc/self/status").exists() {
            let status = Path::new("/proc/self/status");
            assert!(String::from_utf8_lossy(&StdFs.read(status, 1 << 20).unwrap()).contains("VmRSS"));
            assert_eq!(StdFs.read(status, 100).unwrap_err().kind, FsErrorKind::TooLarge, "capped past its length");
        }
    }

    fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> =
            fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
        v.sort();
        v
    }

    #[test]
    fn a_set_changes_together_or_not_at_all() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b, gone) = (dir.path().join("a"), dir.path().join("b"), dir.path().join("gone"));
        fs::write(&a, "old a").unwrap();
        fs::write(&gone, "x").unwrap();
        StdFs
            .write_atomic_set(&[Change::Write(&a, b"new a"), Change::Write(&b, b"new b"), Change::Remove(&gone)])
            .unwrap();
        assert_eq!(names(dir.path()), ["a", "b"]);
        assert_eq!(fs::read(&a).unwrap(), b"new a");
        // A removal of a missing file is not an error.
        StdFs.write_atomic_set(&[Change::Remove(&gone)]).unwrap();
        // Staging fails for the second file (its folder is a file): nothing changes.
        let under_file = a.join("x");
        let e = StdFs.write_atomic_set(&[Change::Write(&b, b"newer"), Change::Write(&under_file, b"y")]).unwrap_err();
        assert_eq!(e.kind, FsErrorKind::NotADirectory, "{e}");
        // Keeping fails (a folder where a file should be replaced): nothing changes.
        fs::create_dir(dir.path().join("d")).unwrap();
        let d = dir.path().join("d");
        let e = StdFs.write_atomic_set(&[Change::Remove(&a), Change::Write(&d, b"z")]).unwrap_err();
        assert_eq!(e.kind, FsErrorKind::IsADirectory, "{e}");
        assert_eq!(names(dir.path()), ["a", "b", "d"], "no temporary or kept name behind");
        assert_eq!((fs::read(&a).unwrap(), fs::read(&b).unwrap()), (b"new a".to_vec(), b"new b".to_vec()));
    }

    /// What a set makes beside its targets is what an index run removes as an interrupted
    /// run's leftovers (`ports::fs::is_set_leftover`), and nothing a set makes is missed.
    #[test]
    fn what_a_set_makes_beside_a_target_is_named_as_a_leftover() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a");
        fs::write(&a, "old").unwrap();
        let temp = staged_with(&a, &|out| out.write_all(b"new"), Durable::Cache).unwrap();
        let kept = kept(&a).unwrap().unwrap();
        for made in [temp.path(), &*kept] {
            assert!(ports::fs::is_set_leftover(made.file_name().unwrap()), "{}", made.display());
        }
        assert!(!ports::fs::is_set_leftover(a.file_name().unwrap()));
    }

    /// The files a set replaced are removed after it returns, but always before the folder
    /// is let go: no kept name is left behind.
    #[test]
    fn the_files_a_set_replaced_are_gone_once_the_folder_is_let_go() {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir_all(dir.path().join("gen")).unwrap();
        for name in ["a", "b"] {
            fs::write(dir.path().join("gen").join(name), vec![b'x'; 1 << 20]).unwrap();
        }
        for _ in 0..20 {
            let held = open_dir_beneath(dir.path(), Path::new("gen"), Beneath::Openat2).unwrap();
            held.write_atomic_set(&[Change::Write(Path::new("a"), b"new"), Change::Write(Path::new("b"), b"new")])
                .unwrap();
            held.write_atomic_set(&[Change::Write(Path::new("a"), &[b'y'; 1 << 20])]).unwrap();
            drop(held);
            assert_eq!(names(&dir.path().join("gen")), ["a", "b"]);
        }
    }

    /// What a held folder writes, removes and lists stays in the folder it opened, when that
    /// folder is then renamed and a symlink to another folder is put in its place: the other
    /// folder's files are neither replaced nor removed, and nothing is left beside them.
    #[test]
    fn a_held_folder_swapped_for_a_symlink_keeps_its_changes() {
        for how in BOTH {
            let dir = tempfile::tempdir().unwrap();
            let (root, outside) = (dir.path().join("root"), dir.path().join("outside"));
            fs::create_dir_all(root.join("gen")).unwrap();
            fs::create_dir_all(&outside).unwrap();
            for name in ["graph.json", "gone", ".vitaecontext-AbC123.tmp"] {
                fs::write(outside.join(name), "someone else's").unwrap();
                fs::write(root.join("gen").join(name), "ours").unwrap();
            }
            let held = open_dir_beneath(&root, Path::new("gen"), how).unwrap();
            fs::rename(root.join("gen"), root.join("moved")).unwrap();
            std::os::unix::fs::symlink(&outside, root.join("gen")).unwrap();
            held.write_atomic_set(&[Change::Write(Path::new("graph.json"), b"new"), Change::Remove(Path::new("gone"))])
                .unwrap();
            held.remove_file(OsStr::new(".vitaecontext-AbC123.tmp")).unwrap();
            held.write_new(OsStr::new("record.md"), b"a new record").unwrap();
            let e = held.write_new(OsStr::new("record.md"), b"again").unwrap_err();
            assert_eq!(e.kind, FsErrorKind::AlreadyExists, "{how:?}");
            held.create_private_dir(OsStr::new("slug")).unwrap();
            held.create_private_dir(OsStr::new("slug")).unwrap();
            // Listed through the handle, which waits for the old graph.json's removal.
            let listed: Vec<_> = held.read_dir().unwrap().into_iter().map(|e| e.name).collect();
            assert_eq!(listed, ["graph.json", "record.md", "slug"], "{how:?}: the held folder is listed");
            assert_eq!(names(&outside), [".vitaecontext-AbC123.tmp", "gone", "graph.json"], "{how:?}");
            for name in names(&outside) {
                assert_eq!(fs::read_to_string(outside.join(name)).unwrap(), "someone else's", "{how:?}");
            }
            assert_eq!(
                names(&root.join("moved")),
                ["graph.json", "record.md", "slug"],
                "{how:?}: the changes, and nothing else"
            );
            assert!(root.join("moved/slug").is_dir(), "{how:?}");
            assert_eq!(fs::read_to_string(root.join("moved/graph.json")).unwrap(), "new");
            assert_eq!(fs::read_to_string(root.join("moved/record.md")).unwrap(), "a new record");
            let listed: Vec<_> = held.read_dir().unwrap().into_iter().map(|e| e.name).collect();
            assert_eq!(listed, ["graph.json", "record.md", "slug"], "{how:?}: the held folder is listed");
            // Opened now, the symlink is refused.
            let e = open_dir_beneath(&root, Path::new("gen"), how).err().unwrap();
            assert_eq!(e.kind, FsErrorKind::Loop, "{how:?}: {e}");
        }
    }

    /// A set beneath a root lands in every folder it names, the root's own included; a folder
    /// on the way that is a symlink (or missing) fails it before any target changes, and
    /// nothing is made on the symlink's other side.
    #[test]
    fn a_set_beneath_a_root_spans_its_folders_and_follows_no_symlink() {
        for how in BOTH {
            let dir = tempfile::tempdir().unwrap();
            let (root, outside) = (dir.path().join("root"), dir.path().join("outside"));
            fs::create_dir_all(root.join("skill/refs")).unwrap();
            fs::create_dir_all(&outside).unwrap();
            fs::write(root.join("skill/gone.md"), "old").unwrap();
            fs::write(root.join("skill/SKILL.md"), "old").unwrap();
            let context = dir.path().join("career.md");
            let r = root.as_path();
            write_atomic_set_beneath(
                &[
                    (r, Change::Write(Path::new("top.md"), b"top")),
                    (r, Change::Write(Path::new("skill/SKILL.md"), b"new")),
                    (dir.path(), Change::Write(Path::new("career.md"), b"career")),
                    (r, Change::Write(Path::new("skill/refs/list.md"), b"list")),
                    (r, Change::Remove(Path::new("skill/gone.md"))),
                ],
                how,
            )
            .unwrap();
            assert_eq!(fs::read_to_string(&context).unwrap(), "career", "{how:?}: a second root");
            assert_eq!(fs::read_to_string(root.join("top.md")).unwrap(), "top");
            assert_eq!(fs::read_to_string(root.join("skill/SKILL.md")).unwrap(), "new");
            assert_eq!(fs::read_to_string(root.join("skill/refs/list.md")).unwrap(), "list");
            assert_eq!(names(&root.join("skill")), ["SKILL.md", "refs"], "{how:?}: removed, nothing left beside");
            // `refs` swapped for a symlink to a folder outside: the set fails whole.
            fs::rename(root.join("skill/refs"), root.join("moved")).unwrap();
            std::os::unix::fs::symlink(&outside, root.join("skill/refs")).unwrap();
            let set = [
                (r, Change::Write(Path::new("skill/SKILL.md"), b"newer")),
                (r, Change::Write(Path::new("skill/refs/list.md"), b"x")),
            ];
            let e = write_atomic_set_beneath(&set, how).unwrap_err();
            assert_eq!(e.kind, FsErrorKind::Loop, "{how:?}: {e}");
            assert_eq!(fs::read_to_string(root.join("skill/SKILL.md")).unwrap(), "new", "{how:?}: no target changed");
            assert!(names(&outside).is_empty(), "{how:?}: nothing made on the other side");
            let e = write_atomic_set_beneath(&[(r, Change::Write(Path::new("none/a.md"), b"x"))], how).unwrap_err();
            assert_eq!(e.kind, FsErrorKind::NotFound, "{how:?}: {e}");
            for bad in ["../x", "/abs", "a/../b", ""] {
                let e = write_atomic_set_beneath(&[(r, Change::Write(Path::new(bad), b"x"))], how).unwrap_err();
                assert_eq!(e.kind, FsErrorKind::InvalidPath, "{how:?}: {bad}");
            }
        }
    }

    const BOTH: [Beneath; 2] = [Beneath::Openat2, Beneath::PerComponent];

    /// `root/a/b/f` ("inside"), `outside/f` ("SECRET"), and symlinks at every level.
    fn tree() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("root");
        fs::create_dir_all(root.join("a/b")).unwrap();
        fs::create_dir_all(dir.path().join("outside/b")).unwrap();
        fs::write(root.join("a/b/f"), "inside").unwrap();
        fs::write(dir.path().join("outside/f"), "SECRET").unwrap();
        fs::write(dir.path().join("outside/b/f"), "SECRET").unwrap();
        std::os::unix::fs::symlink(dir.path().join("outside/f"), root.join("a/b/out")).unwrap();
        std::os::unix::fs::symlink("f", root.join("a/b/in")).unwrap();
        std::os::unix::fs::symlink(dir.path().join("outside"), root.join("a/dirout")).unwrap();
        std::os::unix::fs::symlink("b", root.join("a/dirin")).unwrap();
        fs::write(root.join("a/file"), "x").unwrap();
        (dir, root)
    }

    /// `read_beneath` by the root's path, on one walk.
    struct ByPath(PathBuf, Beneath);

    impl HeldRoot for ByPath {
        fn read_beneath(&self, relative: &Path, max_bytes: u64) -> Result<(Vec<u8>, Metadata), FsError> {
            read_beneath_with(&self.0, relative, max_bytes, self.1)
        }

        fn metadata_beneath(&self, relative: &Path) -> Result<Metadata, FsError> {
            metadata_beneath_with(&self.0, relative, self.1)
        }

        fn walk_beneath(&self, relative: &Path, skip_dirs: &[&str], stat: bool) -> Result<WalkBeneath, FsError> {
            Ok(walk_below(&open_root(&self.0)?, &self.0, relative, self.1, skip_dirs, stat, usize::MAX)?
                .unwrap_or_default())
        }

        fn walk_beneath_at_most(
            &self,
            relative: &Path,
            skip_dirs: &[&str],
            stat: bool,
            max_entries: usize,
        ) -> Result<Option<WalkBeneath>, FsError> {
            walk_below(&open_root(&self.0)?, &self.0, relative, self.1, skip_dirs, stat, max_entries)
        }
    }

    /// Every way to read below `root`: by its path and from a held handle, on either walk.
    fn readers(root: &Path) -> Vec<(String, Box<dyn HeldRoot>)> {
        let mut all: Vec<(String, Box<dyn HeldRoot>)> = Vec::new();
        for how in BOTH {
            all.push((format!("{how:?} by path"), Box::new(ByPath(root.to_path_buf(), how))));
            all.push((format!("{how:?} held"), Box::new(OpenRoot::new(root, how).unwrap())));
        }
        all
    }

    /// The walk beneath a held root finds what the walk by path finds, and each file's
    /// metadata is the one `metadata_beneath` gives (the stamp the incremental index compares).
    #[test]
    fn a_walk_beneath_finds_what_a_walk_finds_with_the_same_metadata() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("root");
        for d in ["top/a/b/c", "top/.generated/x", "top/empty", "outside"] {
            let base = if d == "outside" { dir.path() } else { root.as_path() };
            fs::create_dir_all(base.join(d)).unwrap();
        }
        for f in ["top/one.md", "top/a/two.md", "top/a/b/c/three.txt", "top/.generated/x/skipped.md", "outside/o.md"] {
            let base = if f.starts_with("outside") { dir.path() } else { root.as_path() };
            fs::write(base.join(f), f).unwrap();
        }
        std::os::unix::fs::symlink(dir.path().join("outside"), root.join("top/a/linked-dir")).unwrap();
        std::os::unix::fs::symlink("one.md", root.join("top/link.md")).unwrap();
        let by_path = StdFs.walk(&root.join("top"), &[".generated"]).unwrap();
        for (name, held) in readers(&root) {
            for stat in [false, true] {
                let walk = held.walk_beneath(Path::new("top"), &[".generated"], stat).unwrap();
                let files: Vec<_> = walk.files.iter().map(|(f, _)| f.clone()).collect();
                assert_eq!(files, by_path.files, "{name}");
                assert_eq!(walk.symlinks, by_path.symlinks, "{name}");
                for (f, meta) in &walk.files {
                    let expected = stat.then(|| held.metadata_beneath(f.strip_prefix(&root).unwrap()).unwrap());
                    assert_eq!(*meta, expected, "{name}: {}", f.display());
                }
            }
        }
        let swapped = readers(&root).remove(1).1;
        fs::remove_dir_all(root.join("top/a")).unwrap();
        std::os::unix::fs::symlink(dir.path().join("outside"), root.join("top/a")).unwrap();
        let walk = swapped.walk_beneath(Path::new("top"), &[".generated"], true).unwrap();
        let files: Vec<_> = walk.files.iter().map(|(f, _)| f.file_name().unwrap().to_owned()).collect();
        assert_eq!(files, ["one.md"], "a folder replaced by a symlink is not entered");
        assert!(swapped.walk_beneath(Path::new("top/a"), &[], true).is_err(), "nor walked from");
    }

    #[test]
    fn a_walk_beneath_at_most_gives_up_past_its_limit_and_is_whole_within_it() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("root");
        fs::create_dir_all(root.join("top/a")).unwrap();
        for f in ["top/one", "top/a/two", "top/a/three"] {
            fs::write(root.join(f), f).unwrap();
        }
        std::os::unix::fs::symlink("one", root.join("top/link")).unwrap();
        for (name, held) in readers(&root) {
            let whole = held.walk_beneath(Path::new("top"), &[], true).unwrap();
            let at_most = |n| held.walk_beneath_at_most(Path::new("top"), &[], true, n).unwrap();
            assert_eq!(at_most(4), Some(whole.clone()), "{name}: four entries fit in four");
            assert_eq!(at_most(100), Some(whole), "{name}");
            assert_eq!(at_most(3), None, "{name}: a file and a symlink more than three");
            assert_eq!(at_most(0), None, "{name}");
        }
    }

    #[test]
    fn read_beneath_follows_no_symlink_on_either_walk() {
        let (_dir, root) = tree();
        for (how, reader) in readers(&root) {
            let read = |rel: &str| reader.read_beneath(Path::new(rel), 100);
            let kind = |rel: &str| read(rel).unwrap_err().kind;
            let (bytes, meta) = read("a/b/f").unwrap();
            assert_eq!((bytes.as_slice(), meta.kind, meta.len), (&b"inside"[..], FileKind::File, 6), "{how:?}");
            assert_eq!(kind("a/b/out"), FsErrorKind::Loop, "{how:?}: a final symlink out");
            assert_eq!(kind("a/b/in"), FsErrorKind::Loop, "{how:?}: even a final symlink that stays inside");
            assert_eq!(kind("a/dirout/f"), FsErrorKind::Loop, "{how:?}: a folder symlink out");
            assert_eq!(kind("a/dirin/f"), FsErrorKind::Loop, "{how:?}: a folder symlink inside");
            assert_eq!(kind("a/file/f"), FsErrorKind::NotADirectory, "{how:?}");
            assert_eq!(kind("a/none"), FsErrorKind::NotFound, "{how:?}");
            assert_eq!(kind("a/b"), FsErrorKind::IsADirectory, "{how:?}");
            assert_eq!(kind("../outside/f"), FsErrorKind::InvalidPath, "{how:?}");
            assert_eq!(kind("a/./b/f"), FsErrorKind::InvalidPath, "{how:?}");
            assert_eq!(reader.read_beneath(Path::new("a/b/f"), 5).unwrap_err().kind, FsErrorKind::TooLarge);
            assert_eq!(reader.metadata_beneath(Path::new("a/b/f")).unwrap(), meta, "{how:?}");
            assert_eq!(reader.metadata_beneath(Path::new("a/dirout/f")).unwrap_err().kind, FsErrorKind::Loop);
        }
    }

    /// A held root is the folder that was there when it was taken: a graph swapped in under
    /// the same path mid-run is not read half from one folder, half from the other.
    #[test]
    fn a_held_root_reads_the_folder_it_was_taken_on() {
        let (dir, root) = tree();
        let held = StdFs.hold_root(&root).unwrap();
        fs::rename(&root, dir.path().join("moved")).unwrap();
        fs::create_dir_all(root.join("a/b")).unwrap();
        fs::write(root.join("a/b/f"), "another").unwrap();
        assert_eq!(held.read_beneath(Path::new("a/b/f"), 100).unwrap().0, b"inside");
        assert_eq!(StdFs.read_beneath(&root, Path::new("a/b/f"), 100).unwrap().0, b"another");
        let gone = StdFs.hold_root(&dir.path().join("nothing")).err().map(|e| e.kind);
        assert_eq!(gone, Some(FsErrorKind::NotFound));
        assert_eq!(StdFs.hold_root(Path::new("relative")).err().map(|e| e.kind), Some(FsErrorKind::InvalidPath));
    }

    #[test]
    fn read_beneath_refuses_a_fifo_without_blocking() {
        let (_dir, root) = tree();
        let status = std::process::Command::new("mkfifo").arg(root.join("a/pipe")).status().unwrap();
        assert!(status.success());
        for (how, reader) in readers(&root) {
            let e = reader.read_beneath(Path::new("a/pipe"), 100).unwrap_err();
            assert_eq!(e.kind, FsErrorKind::NotAFile, "{how:?}: {e}");
        }
    }

    /// Regression: a folder on the path swapped for a symlink to an outside folder while reads
    /// run (renameat2 RENAME_EXCHANGE in a loop) must never yield the outside bytes.
    #[test]
    fn read_beneath_survives_a_folder_swap_race_on_either_walk() {
        use rustix::fs::{RenameFlags, renameat_with};
        let (dir, root) = tree();
        let decoy = dir.path().join("decoy");
        std::os::unix::fs::symlink(dir.path().join("outside"), &decoy).unwrap();
        for (how, reader) in readers(&root) {
            let stop = std::sync::Arc::new(AtomicBool::new(false));
            let (s, inside, d) = (std::sync::Arc::clone(&stop), root.join("a"), decoy.clone());
            let swapper = std::thread::spawn(move || {
                let mut n = 0u64;
                while !s.load(Ordering::Relaxed) || n % 2 == 1 {
                    renameat_with(CWD, &inside, CWD, &d, RenameFlags::EXCHANGE).unwrap();
                    n += 1;
                }
                n
            });
            let (mut served, mut leaked) = (0, 0);
            let start = std::time::Instant::now();
            for _ in 0..20_000 {
                if start.elapsed() > std::time::Duration::from_secs(2) {
                    break;
                }
                if let Ok((bytes, _)) = reader.read_beneath(Path::new("a/b/f"), 100) {
                    served += 1;
                    if bytes != b"inside" {
                        leaked += bytes.len();
                    }
                }
            }
            stop.store(true, Ordering::Relaxed);
            let swaps = swapper.join().unwrap();
            assert!(swaps > 100 && served > 0, "{how:?}: the race did not run ({swaps} swaps, {served} reads)");
            assert_eq!(leaked, 0, "{how:?}: outside bytes were read");
        }
    }
}

/// The clock port on the system clock (lives with the other std-backed adapter).
#[derive(Debug)]
pub struct SystemClock {
    origin: std::time::Instant,
}

impl Default for SystemClock {
    fn default() -> Self {
        Self { origin: std::time::Instant::now() }
    }
}

impl ports::Clock for SystemClock {
    fn now(&self) -> std::time::SystemTime {
        std::time::SystemTime::now()
    }

    fn monotonic(&self) -> std::time::Duration {
        self.origin.elapsed()
    }
}

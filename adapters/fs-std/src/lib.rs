//! The filesystem port on the machine's real filesystem.
//!
//! Reads never block on FIFOs (they are opened non-blocking and refused as non-regular), writes
//! go through a temporary file and a rename, and errors keep the path they concern.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use ports::fs::{Change, DirEntry, FileKind, FileSystem, FsError, FsErrorKind, Metadata};

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
    let stamp = ((m.ino() as u128) << 64) ^ (mtime_ns as u128) ^ ((m.dev() as u128) << 96);
    Metadata { kind: kind_of(m.file_type()), len: m.len(), stamp }
}

fn err(path: &Path, e: io::Error) -> FsError {
    let kind = match e.raw_os_error() {
        Some(libc::ENOENT) => FsErrorKind::NotFound,
        Some(libc::EACCES) | Some(libc::EPERM) => FsErrorKind::PermissionDenied,
        Some(libc::EEXIST) => FsErrorKind::AlreadyExists,
        Some(libc::ENOTDIR) => FsErrorKind::NotADirectory,
        Some(libc::EISDIR) => FsErrorKind::IsADirectory,
        Some(libc::ELOOP) => FsErrorKind::Loop,
        Some(libc::EINVAL) => FsErrorKind::InvalidPath,
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
    let mut bytes = Vec::with_capacity(m.len as usize);
    // The file may grow after the check: never read more than the cap plus one byte.
    file.by_ref().take(max_bytes + 1).read_to_end(&mut bytes).map_err(|e| err(path, e))?;
    if bytes.len() as u64 > max_bytes {
        return Err(too_large(path, max_bytes));
    }
    Ok((bytes, m))
}

/// Writes `bytes` to a synced temporary file in the folder of `path`, ready to be moved there.
fn staged(path: &Path, bytes: &[u8]) -> Result<tempfile::NamedTempFile, FsError> {
    use std::io::Write;
    require_absolute(path)?;
    let dir = path.parent().ok_or_else(|| FsError::new(FsErrorKind::InvalidPath, path, "no parent folder"))?;
    // tempfile wraps its errors and drops the errno; look at the folder first so a missing
    // folder, a file in the way or a symlink loop is reported as what it is.
    let dir_meta = fs::metadata(dir).map_err(|e| err(dir, e))?;
    if !dir_meta.is_dir() {
        return Err(FsError::new(FsErrorKind::NotADirectory, path, "parent is not a directory"));
    }
    let mut tmp =
        tempfile::Builder::new().prefix(".vitaecontext-").suffix(".tmp").tempfile_in(dir).map_err(|e| err(dir, e))?;
    tmp.write_all(bytes).map_err(|e| err(path, e))?;
    tmp.as_file().sync_all().map_err(|e| err(path, e))?;
    Ok(tmp)
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
                .prefix(".vitaecontext-")
                .suffix(".old")
                .make_in(dir, |name| fs::hard_link(path, name))
                .map_err(|e| err(path, e))?;
            Ok(Some(link.into_temp_path()))
        }
    }
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

    fn read_nofollow(&self, path: &Path, max_bytes: u64, expected: &Metadata) -> Result<Vec<u8>, FsError> {
        require_absolute(path)?;
        let file = OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
            .open(path)
            .map_err(|e| err(path, e))?;
        let (bytes, opened) = read_opened(path, file, max_bytes)?;
        if opened.stamp != expected.stamp {
            return Err(FsError::new(FsErrorKind::Other, path, "file changed between check and open"));
        }
        Ok(bytes)
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
            entries.push(DirEntry { name: entry.file_name().to_string_lossy().into_owned(), kind });
        }
        entries.sort_by(|a, b| a.name.as_bytes().cmp(b.name.as_bytes()));
        Ok(entries)
    }

    fn walk_files(&self, root: &Path, skip_dirs: &[&str]) -> Result<Vec<PathBuf>, FsError> {
        require_absolute(root)?;
        match self.metadata(root)?.kind {
            FileKind::Dir => {}
            FileKind::File => return Ok(vec![root.to_path_buf()]),
            _ => return Ok(Vec::new()),
        }
        let mut files = Vec::new();
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
                files.push(entry.into_path());
            }
        }
        files.sort_by(|a, b| a.as_os_str().as_encoded_bytes().cmp(b.as_os_str().as_encoded_bytes()));
        Ok(files)
    }

    fn create_dir_all(&self, path: &Path) -> Result<(), FsError> {
        require_absolute(path)?;
        fs::create_dir_all(path).map_err(|e| err(path, e))
    }

    fn write_atomic(&self, path: &Path, bytes: &[u8]) -> Result<(), FsError> {
        let tmp = staged(path, bytes)?;
        // On failure the temporary file is removed when it drops: nothing half-written stays.
        tmp.persist(path).map_err(|e| err(path, e.error))?;
        sync_parent(path);
        Ok(())
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
                        Change::Write(path, bytes) => staged(path, bytes).map(Some),
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
                (Change::Write(path, _), Some(temp)) => temp.persist(path).map(drop).map_err(|e| err(path, e.error)),
                (Change::Remove(path), _) => match fs::remove_file(path) {
                    Err(e) if e.kind() != io::ErrorKind::NotFound => Err(err(path, e)),
                    _ => Ok(()),
                },
                (Change::Write(path, _), None) => Err(FsError::new(FsErrorKind::Other, path, "not staged")),
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
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fifo_is_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("pipe");
        let status = std::process::Command::new("mkfifo").arg(&fifo).status().unwrap();
        assert!(status.success());
        let e = StdFs.read(&fifo, 1024).unwrap_err();
        assert_eq!(e.kind, FsErrorKind::NotAFile, "{e}");
    }

    #[test]
    fn read_is_capped() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("big");
        fs::write(&f, vec![b'x'; 2048]).unwrap();
        assert_eq!(StdFs.read(&f, 2047).unwrap_err().kind, FsErrorKind::TooLarge);
        assert_eq!(StdFs.read(&f, 2048).unwrap().len(), 2048);
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

    #[test]
    fn read_nofollow_refuses_a_final_symlink_and_a_swapped_file() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real");
        fs::write(&real, "a").unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        let checked = StdFs.metadata(&real).unwrap();
        assert_eq!(StdFs.read_nofollow(&link, 10, &checked).unwrap_err().kind, FsErrorKind::Loop);
        assert_eq!(StdFs.read_nofollow(&real, 10, &checked).unwrap(), b"a");
        // Replace the checked file by another one: the read must notice.
        StdFs.write_atomic(&real, b"b").unwrap();
        assert!(StdFs.read_nofollow(&real, 10, &checked).is_err());
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

//! A folder opened once, for writes that must land in it ([`HeldDir`]): every temporary,
//! rename, hard link and removal is made with the `*at` calls on the folder's own handle, so a
//! folder renamed, or swapped for a symlink, after it was opened cannot redirect them.

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::hash::{BuildHasher, Hasher};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::thread::JoinHandle;

use ports::fs::{
    Change, DirEntry, FileKind, FsError, FsErrorKind, HeldDir, SET_FILE_PREFIX, SET_KEPT_SUFFIX, SET_TEMP_SUFFIX,
    beneath_names,
};
use rustix::fd::OwnedFd;
use rustix::fs::{AtFlags, FileType, Mode, OFlags};
use rustix::io::Errno;

use super::{Durable, err};
use crate::sync_behind::write_synced;

/// A folder held open by its handle (`O_RDONLY | O_DIRECTORY`, so it can be listed and synced).
pub(crate) struct OpenDir {
    pub(crate) fd: OwnedFd,
    pub(crate) path: PathBuf,
    /// Threads removing the old files a set replaced: freeing their blocks takes a while (66 ms
    /// for 400 MB on ext4), and nothing after a set needs to wait for it (the next set's
    /// names are its own), but they are waited for before the folder is listed or let go: no
    /// kept name outlives its holder, and none is listed.
    removing: Mutex<Vec<JoinHandle<()>>>,
}

impl OpenDir {
    pub(crate) fn new(fd: OwnedFd, path: PathBuf) -> Self {
        OpenDir { fd, path, removing: Mutex::new(Vec::new()) }
    }

    /// Removes `names` from the folder on a thread of its own (here, if none can be made).
    fn remove_later(&self, names: Vec<OsString>) {
        let remove = |fd: &OwnedFd, names: Vec<OsString>| {
            for name in names {
                let _ = rustix::fs::unlinkat(fd, &name, AtFlags::empty());
            }
        };
        if names.is_empty() {
            return;
        }
        let Ok(fd) = self.fd.try_clone() else { return remove(&self.fd, names) };
        // The names are sent once the thread runs: if it cannot be made, they are still here.
        let (send, names_sent) = std::sync::mpsc::channel();
        let thread = std::thread::Builder::new().spawn(move || {
            if let Ok(names) = names_sent.recv() {
                remove(&fd, names);
            }
        });
        match thread {
            Ok(thread) => {
                let _ = send.send(names);
                self.removing.lock().unwrap_or_else(|p| p.into_inner()).push(thread);
            }
            Err(_) => remove(&self.fd, names),
        }
    }
}

impl OpenDir {
    /// Waits for the removals under way: what the folder holds is then what its sets left.
    fn settle(&self) {
        let threads = std::mem::take(&mut *self.removing.lock().unwrap_or_else(|p| p.into_inner()));
        for thread in threads {
            let _ = thread.join();
        }
    }
}

impl Drop for OpenDir {
    fn drop(&mut self) {
        self.settle();
    }
}

/// A name a set made in the folder (a temporary or a kept old target): removed when dropped,
/// unless it was taken (renamed over its target).
struct Made<'d> {
    dir: &'d OpenDir,
    name: Option<OsString>,
}

impl Made<'_> {
    fn name(&self) -> &OsStr {
        self.name.as_deref().unwrap_or_default()
    }

    /// Renames the made name over `target`; it is no longer this guard's to remove.
    fn rename_to(&mut self, target: &OsStr) -> Result<(), Errno> {
        rustix::fs::renameat(&self.dir.fd, self.name(), &self.dir.fd, target)?;
        self.name = None;
        Ok(())
    }
}

impl Drop for Made<'_> {
    fn drop(&mut self) {
        if let Some(name) = self.name.take() {
            let _ = rustix::fs::unlinkat(&self.dir.fd, &name, AtFlags::empty());
        }
    }
}

impl OpenDir {
    fn error(&self, name: &OsStr, e: Errno) -> FsError {
        err(&self.path.join(name), e.into())
    }

    /// A fresh name `.vitaecontext-XXXXXX{suffix}` in the folder, made by `make` (which fails
    /// with EEXIST when the name is taken; another is tried).
    fn fresh<T>(&self, suffix: &str, make: impl Fn(&OsStr) -> Result<T, Errno>) -> Result<(Made<'_>, T), FsError> {
        const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
        let mut last = Errno::EXIST;
        for attempt in 0u64..64 {
            // Each RandomState is seeded afresh: names differ across threads and processes.
            let mut h = std::collections::hash_map::RandomState::new().build_hasher();
            h.write_u64(attempt);
            let mut bits = h.finish();
            let mut name = SET_FILE_PREFIX.as_bytes().to_vec();
            for _ in 0..6 {
                name.push(ALPHABET[(bits % ALPHABET.len() as u64) as usize]);
                bits /= ALPHABET.len() as u64;
            }
            name.extend_from_slice(suffix.as_bytes());
            let name = OsStr::from_bytes(&name);
            match make(name) {
                Ok(value) => return Ok((Made { dir: self, name: Some(name.to_owned()) }, value)),
                Err(Errno::EXIST) => last = Errno::EXIST,
                // Named by the folder: the random name means nothing to the person, and the
                // cause (a folder they may not write in, a full disk) is the folder's.
                Err(e) => {
                    let e = err(&self.path, e.into());
                    return Err(FsError::new(
                        e.kind,
                        e.path,
                        format!("cannot create a file in this folder: {}", e.detail),
                    ));
                }
            }
        }
        Err(self.error(OsStr::new(SET_FILE_PREFIX), last))
    }

    /// A temporary file in the folder holding what `content` writes (synced when `durable`).
    fn stage(&self, target: &OsStr, change: &Change<'_>, durable: Durable) -> Result<Made<'_>, FsError> {
        let flags = OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let (made, fd) =
            self.fresh(SET_TEMP_SUFFIX, |name| rustix::fs::openat(&self.fd, name, flags, Mode::from_raw_mode(0o600)))?;
        let mut file = File::from(fd);
        let target_path = self.path.join(target);
        let written = match durable {
            Durable::Synced => write_synced(&mut file, |out| change.write_content(out)),
            Durable::Cache => change.write_content(&mut file),
        };
        written.map_err(|e| err(&target_path, e))?;
        Ok(made)
    }

    /// A second name (a hard link) for the file at `target`, to put it back if the set fails;
    /// `None` when nothing is there.
    fn keep(&self, target: &OsStr) -> Result<Option<Made<'_>>, FsError> {
        match rustix::fs::statat(&self.fd, target, AtFlags::SYMLINK_NOFOLLOW) {
            Err(Errno::NOENT) => Ok(None),
            Err(e) => Err(self.error(target, e)),
            Ok(st) if FileType::from_raw_mode(st.st_mode) == FileType::Directory => {
                Err(FsError::new(FsErrorKind::IsADirectory, self.path.join(target), "is a directory"))
            }
            Ok(_) => {
                let link = |name: &OsStr| rustix::fs::linkat(&self.fd, target, &self.fd, name, AtFlags::empty());
                Ok(Some(self.fresh(SET_KEPT_SUFFIX, link)?.0))
            }
        }
    }

    fn unlink(&self, name: &OsStr) -> Result<(), Errno> {
        match rustix::fs::unlinkat(&self.fd, name, AtFlags::empty()) {
            Err(Errno::NOENT) => Ok(()),
            other => other,
        }
    }
}

/// The one plain name a change of a held folder's set must have.
fn name_of<'c>(change: &Change<'c>) -> Result<&'c OsStr, FsError> {
    match beneath_names(change.path())?.as_slice() {
        [name] => Ok(name),
        _ => Err(FsError::new(FsErrorKind::InvalidPath, change.path(), "not a name in the folder")),
    }
}

/// `name` when it is one plain name (no `/`, not `.` or `..`).
fn plain_name<'n>(dir: &Path, name: &'n OsStr) -> Result<&'n OsStr, FsError> {
    match beneath_names(Path::new(name))?.as_slice() {
        [name] => Ok(name),
        _ => Err(FsError::new(FsErrorKind::InvalidPath, dir.join(name), "not a name in the folder")),
    }
}

impl HeldDir for OpenDir {
    fn path(&self) -> &Path {
        &self.path
    }

    fn write_atomic_set(&self, changes: &[Change<'_>]) -> Result<(), FsError> {
        let names = changes.iter().map(name_of).collect::<Result<Vec<_>, _>>()?;
        let targets: Vec<Target<'_, '_>> =
            changes.iter().zip(names).map(|(change, name)| (self, name, change)).collect();
        write_set(&targets)
    }

    fn write_new(&self, name: &OsStr, bytes: &[u8]) -> Result<(), FsError> {
        let name = plain_name(&self.path, name)?;
        let temp = self.stage(name, &Change::Write(Path::new(name), bytes), Durable::Synced)?;
        // A second name for the complete file, made only where nothing is: then the temporary
        // goes (its guard drops).
        rustix::fs::linkat(&self.fd, temp.name(), &self.fd, name, AtFlags::empty()).map_err(|e| self.error(name, e))?;
        let _ = rustix::fs::fsync(&self.fd);
        Ok(())
    }

    fn create_private_dir(&self, name: &OsStr) -> Result<(), FsError> {
        let name = plain_name(&self.path, name)?;
        match rustix::fs::mkdirat(&self.fd, name, Mode::from_raw_mode(0o700)) {
            Err(Errno::EXIST) => match rustix::fs::statat(&self.fd, name, AtFlags::SYMLINK_NOFOLLOW) {
                Ok(st) if FileType::from_raw_mode(st.st_mode) == FileType::Directory => Ok(()),
                Ok(_) => {
                    Err(FsError::new(FsErrorKind::NotADirectory, self.path.join(name), "exists and is not a folder"))
                }
                Err(e) => Err(self.error(name, e)),
            },
            done => done.map_err(|e| self.error(name, e)),
        }
    }

    fn read_dir(&self) -> Result<Vec<DirEntry>, FsError> {
        self.settle();
        let fail = |e: Errno| err(&self.path, e.into());
        let mut entries = Vec::new();
        for entry in rustix::fs::Dir::read_from(&self.fd).map_err(fail)? {
            let entry = entry.map_err(fail)?;
            let name = OsStr::from_bytes(entry.file_name().to_bytes());
            if name == "." || name == ".." {
                continue;
            }
            let kind = match entry.file_type() {
                FileType::RegularFile => FileKind::File,
                FileType::Directory => FileKind::Dir,
                FileType::Symlink => FileKind::Symlink,
                FileType::Unknown => match rustix::fs::statat(&self.fd, name, AtFlags::SYMLINK_NOFOLLOW) {
                    Ok(st) => kind_of(FileType::from_raw_mode(st.st_mode)),
                    Err(e) => return Err(self.error(name, e)),
                },
                other => kind_of(other),
            };
            entries.push(DirEntry { name: name.to_owned(), kind });
        }
        entries.sort_by(|a, b| a.name.as_bytes().cmp(b.name.as_bytes()));
        Ok(entries)
    }

    fn remove_file(&self, name: &OsStr) -> Result<(), FsError> {
        let name = plain_name(&self.path, name)?;
        rustix::fs::unlinkat(&self.fd, name, AtFlags::empty()).map_err(|e| match e {
            Errno::ISDIR => FsError::new(FsErrorKind::IsADirectory, self.path.join(name), "is a directory"),
            e => self.error(name, e),
        })
    }
}

/// One change of a set made through held folders: the folder, the plain name in it, the change.
pub(crate) type Target<'d, 'c> = (&'d OpenDir, &'d OsStr, &'d Change<'c>);

/// [`HeldDir::write_atomic_set`] across the held folders that `targets` name (the port's order
/// of steps, and its rollback, over all of them): what `FileSystem::write_atomic_set_beneath`
/// and a single folder's set both run.
pub(crate) fn write_set(targets: &[Target<'_, '_>]) -> Result<(), FsError> {
    // Each file is written (and synced) on its own thread, so the syncs overlap. Whatever
    // is made is removed when its guard drops, on every return path.
    let staging: Vec<Result<Option<Made<'_>>, FsError>> = std::thread::scope(|scope| {
        let threads: Vec<_> = targets
            .iter()
            .map(|&(dir, name, change)| {
                scope.spawn(move || match change {
                    Change::Write(..) | Change::Stream(..) => dir.stage(name, change, Durable::Synced).map(Some),
                    Change::Cache(..) => dir.stage(name, change, Durable::Cache).map(Some),
                    Change::Remove(_) => Ok(None),
                })
            })
            .collect();
        threads.into_iter().map(|t| t.join().expect("staging thread")).collect()
    });
    let mut temps = staging.into_iter().collect::<Result<Vec<_>, _>>()?;
    let mut kept = targets.iter().map(|&(dir, name, _)| dir.keep(name)).collect::<Result<Vec<_>, _>>()?;
    let mut applied = 0;
    let mut failure = None;
    for (&(dir, name, _), temp) in targets.iter().zip(&mut temps) {
        let done = match temp {
            Some(temp) => temp.rename_to(name),
            None => dir.unlink(name),
        };
        if let Err(e) = done {
            failure = Some(dir.error(name, e));
            break;
        }
        applied += 1;
    }
    // Each folder once, in the order first met.
    let mut dirs: Vec<&OpenDir> = Vec::new();
    for &(dir, ..) in targets {
        if !dirs.iter().any(|d| std::ptr::eq(*d, dir)) {
            dirs.push(dir);
        }
    }
    if let Some(e) = failure {
        // Put back what was changed, last first.
        let mut unrestored = Vec::new();
        for (&(dir, name, _), old) in targets[..applied].iter().zip(&mut kept).rev() {
            let restored = match old {
                Some(old) => old.rename_to(name),
                None => dir.unlink(name),
            };
            if restored.is_err() {
                unrestored.push(dir.path.join(name).display().to_string());
            }
        }
        for dir in &dirs {
            let _ = rustix::fs::fsync(&dir.fd);
        }
        return Err(if unrestored.is_empty() {
            e
        } else {
            FsError::new(e.kind, e.path, format!("{}; could not put back {}", e.detail, unrestored.join(", ")))
        });
    }
    // The renames made durable; a filesystem that cannot sync a folder is not an error.
    for dir in &dirs {
        let _ = rustix::fs::fsync(&dir.fd);
    }
    // The old files' second names go while the caller goes on (see `removing`), each from its
    // own folder.
    for dir in dirs {
        let names = targets
            .iter()
            .zip(&mut kept)
            .filter(|((d, ..), _)| std::ptr::eq(*d, dir))
            .filter_map(|(_, made)| made.as_mut().and_then(|m| m.name.take()))
            .collect();
        dir.remove_later(names);
    }
    Ok(())
}

fn kind_of(t: FileType) -> FileKind {
    match t {
        FileType::RegularFile => FileKind::File,
        FileType::Directory => FileKind::Dir,
        FileType::Symlink => FileKind::Symlink,
        _ => FileKind::Other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a held folder's set makes (temporaries, kept names) is what an index run removes
    /// as an interrupted run's leftovers, and two names made in a row differ.
    #[test]
    fn what_a_held_folder_makes_is_named_as_a_leftover() {
        let dir = tempfile::tempdir().unwrap();
        let held = crate::open_dir_beneath(
            dir.path().parent().unwrap(),
            dir.path().file_name().unwrap().as_ref(),
            crate::Beneath::Openat2,
        )
        .unwrap();
        let touch = |name: &OsStr| {
            let flags = OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::CLOEXEC;
            rustix::fs::openat(&held.fd, name, flags, Mode::from_raw_mode(0o600)).map(drop)
        };
        let (a, ()) = held.fresh(SET_TEMP_SUFFIX, touch).unwrap();
        let (b, ()) = held.fresh(SET_KEPT_SUFFIX, touch).unwrap();
        let (c, ()) = held.fresh(SET_TEMP_SUFFIX, touch).unwrap();
        for made in [&a, &b, &c] {
            assert!(ports::fs::is_set_leftover(made.name()), "{:?}", made.name());
        }
        assert_ne!(a.name(), c.name());
        drop((a, b, c));
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0, "each made name is removed when dropped");
    }

    /// A file that cannot be made in the folder is an error about the folder, not about a
    /// random temporary name (found in review: `.generated/.vitaecontext-0T5RM4.tmp: Permission
    /// denied` for a folder the user may not write in). Shown here with a folder removed while
    /// held, which fails the same way for root.
    #[test]
    fn a_file_that_cannot_be_made_names_the_folder() {
        let base = tempfile::tempdir().unwrap();
        std::fs::create_dir(base.path().join("out")).unwrap();
        let held = crate::open_dir_beneath(base.path(), Path::new("out"), crate::Beneath::Openat2).unwrap();
        std::fs::remove_dir(base.path().join("out")).unwrap();
        let e = held.write_atomic_set(&[Change::Write(Path::new("graph.json"), b"{}")]).unwrap_err();
        assert_eq!(e.path, base.path().join("out"));
        assert!(e.detail.starts_with("cannot create a file in this folder: "), "{}", e.detail);
    }
}

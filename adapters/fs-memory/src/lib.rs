//! The filesystem port in memory.
//!
//! It models what confinement rules care about: directories, regular files, symlinks (relative
//! and absolute, dangling, looping) and "other" objects such as FIFOs. Paths resolve the way
//! Linux resolves them, one component at a time, so that a rule proven here holds on the real
//! filesystem too; a property test in `tests/` runs the same operations on both and compares.
//! Writes can be made to fail on purpose, to show that a failing write loses nothing.
//! `read_beneath` is modelled as the real adapter does it: the root resolved like any path, then
//! one name at a time from there, refusing every symlink. A folder whose mode has no `x` bit
//! denies looking up anything in it, one with no `r` bit listing it, and one with no `w` bit
//! making or removing a name in it, as they do to a user other than root.

#![forbid(unsafe_code)]

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::{OsStr, OsString};
use std::path::{Component, Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use ports::fs::{
    Change, DirEntry, FileKind, FileSystem, FsError, FsErrorKind, HeldDir, Metadata, SET_FILE_PREFIX, SET_KEPT_SUFFIX,
    SET_TEMP_SUFFIX, Walk, beneath_names,
};

/// Linux gives up after 40 symlinks in one resolution.
const MAX_SYMLINK_HOPS: usize = 40;

#[derive(Debug, Clone)]
enum Node {
    Dir,
    File { bytes: Vec<u8>, stamp: u128 },
    Symlink(PathBuf),
    Other,
}

impl Node {
    fn kind(&self) -> FileKind {
        match self {
            Node::Dir => FileKind::Dir,
            Node::File { .. } => FileKind::File,
            Node::Symlink(_) => FileKind::Symlink,
            Node::Other => FileKind::Other,
        }
    }

    fn metadata(&self) -> Metadata {
        match self {
            Node::File { bytes, stamp } => {
                // The stamp counts writes; as a time, the in-memory clock moves one second per
                // write (so "modified long before" and "just before" can both be modelled).
                let modified_ns = i64::try_from(*stamp).ok().and_then(|s| s.checked_mul(1_000_000_000));
                Metadata { kind: FileKind::File, len: bytes.len() as u64, stamp: *stamp, modified_ns }
            }
            Node::Symlink(target) => {
                Metadata { kind: FileKind::Symlink, len: target.as_os_str().len() as u64, stamp: 0, modified_ns: None }
            }
            other => Metadata { kind: other.kind(), len: 0, stamp: 0, modified_ns: None },
        }
    }
}

#[derive(Debug, Default)]
struct State {
    /// Keyed by physical path: no symlink in any parent component.
    nodes: BTreeMap<PathBuf, Node>,
    next_stamp: u128,
    /// Writes to these (physical or requested) paths fail with an injected error.
    failing_writes: BTreeSet<PathBuf>,
    /// Permission bits set explicitly, by physical path. The rest have the defaults of the real
    /// adapter: 0755 for folders (umask 022), 0600 for files (written through `tempfile`).
    modes: BTreeMap<PathBuf, u32>,
    /// Steps of `write_atomic_set` that fail for a target (as requested).
    failing_steps: BTreeSet<(SetStep, PathBuf)>,
    /// Edits another program makes, one at each of the next `write_new` calls, before it: a
    /// file saved between a read and the replace that was planned from it.
    edits_at_write_new: Vec<(PathBuf, Vec<u8>)>,
    swaps_at_next_write: Vec<(PathBuf, PathBuf)>,
    /// Folders those swaps moved aside (from, to): a held folder follows its own there.
    moved: Vec<(PathBuf, PathBuf)>,
}

/// A step of [`FileSystem::write_atomic_set`] for one target, which a test can make fail.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SetStep {
    /// Creating the temporary file beside the target.
    CreateTemp,
    /// Writing and syncing the temporary file (also failed by `fail_writes_to(target)`).
    WriteTemp,
    /// Giving the existing target a second name so it can be put back.
    Keep,
    /// Renaming the temporary over the target, or removing the target.
    Apply,
}

impl SetStep {
    pub const ALL: [SetStep; 4] = [SetStep::CreateTemp, SetStep::WriteTemp, SetStep::Keep, SetStep::Apply];
}

/// An in-memory filesystem. Starts with an empty root directory `/`.
#[derive(Debug)]
pub struct MemoryFs {
    state: Mutex<State>,
    /// Whole-file reads (`read`, `read_beneath`) and listings (`read_dir`) so far, so a test can
    /// prove what a cache saves.
    reads: AtomicUsize,
    lists: AtomicUsize,
    /// Folders locked by [`FileSystem::lock_dir`], shared with the guards that release them.
    locked: std::sync::Arc<Locks>,
}

/// The folders locked, and the condition a waiting `lock_dir` sleeps on.
#[derive(Debug, Default)]
struct Locks {
    held: Mutex<BTreeSet<PathBuf>>,
    released: std::sync::Condvar,
}

/// Releases its folder when dropped.
struct Held(std::sync::Arc<Locks>, PathBuf);

impl Drop for Held {
    fn drop(&mut self) {
        self.0.held.lock().unwrap_or_else(|p| p.into_inner()).remove(&self.1);
        self.0.released.notify_all();
    }
}

impl Default for MemoryFs {
    fn default() -> Self {
        Self::new()
    }
}

fn not_found(path: &Path) -> FsError {
    FsError::new(FsErrorKind::NotFound, path, "no such file or directory")
}

fn require_absolute(path: &Path) -> Result<(), FsError> {
    if path.is_absolute() { Ok(()) } else { Err(FsError::new(FsErrorKind::InvalidPath, path, "path is not absolute")) }
}

fn components(path: &Path) -> Vec<OsString> {
    path.components()
        .filter_map(|c| match c {
            Component::Normal(n) => Some(n.to_os_string()),
            Component::ParentDir => Some(OsString::from("..")),
            Component::CurDir => Some(OsString::from(".")),
            Component::RootDir | Component::Prefix(_) => None,
        })
        .collect()
}

impl State {
    /// Resolves `path` to a physical path. With `follow_last` a final symlink is followed; with
    /// `must_exist == false` a missing final component resolves to where it would be created.
    fn resolve(&self, path: &Path, follow_last: bool, must_exist: bool) -> Result<PathBuf, FsError> {
        require_absolute(path)?;
        let mut pending: Vec<OsString> = components(path);
        pending.reverse();
        let mut cur = PathBuf::from("/");
        let mut hops = 0;
        while let Some(c) = pending.pop() {
            if c == "." {
                continue;
            }
            if c == ".." {
                cur.pop();
                continue;
            }
            self.searchable(&cur, path)?;
            let next = cur.join(&c);
            let is_last = pending.is_empty();
            match self.nodes.get(&next) {
                None if is_last && !must_exist => return Ok(next),
                None => return Err(not_found(path)),
                Some(Node::Symlink(target)) if !is_last || follow_last => {
                    hops += 1;
                    if hops > MAX_SYMLINK_HOPS {
                        return Err(FsError::new(FsErrorKind::Loop, path, "too many levels of symbolic links"));
                    }
                    if target.as_os_str().is_empty() {
                        return Err(not_found(path));
                    }
                    if target.is_absolute() {
                        cur = PathBuf::from("/");
                    }
                    let mut t = components(target);
                    t.reverse();
                    pending.extend(t);
                }
                Some(Node::File { .. } | Node::Other) if !is_last => {
                    return Err(FsError::new(FsErrorKind::NotADirectory, path, "not a directory"));
                }
                Some(_) => cur = next,
            }
        }
        Ok(cur)
    }

    /// A name is looked up in folder `dir` only if its mode lets it be searched (an `x` bit),
    /// as for a user other than root: `chmod 000` on a folder makes what lies in it
    /// `PermissionDenied`, not missing.
    fn searchable(&self, dir: &Path, path: &Path) -> Result<(), FsError> {
        match self.modes.get(dir) {
            Some(mode) if mode & 0o111 == 0 => {
                Err(FsError::new(FsErrorKind::PermissionDenied, path, "Permission denied (os error 13)"))
            }
            _ => Ok(()),
        }
    }

    fn node(&self, path: &Path, follow_last: bool) -> Result<(PathBuf, &Node), FsError> {
        let p = self.resolve(path, follow_last, true)?;
        let node = self.nodes.get(&p).ok_or_else(|| not_found(path))?;
        Ok((p, node))
    }

    /// Where a new entry named by the last component of `path` goes: the parent is resolved
    /// (following symlinks) and must be a directory; the last component is not followed.
    fn entry_slot(&self, path: &Path) -> Result<PathBuf, FsError> {
        let name = match path.components().next_back() {
            Some(Component::Normal(n)) => n.to_os_string(),
            _ => return Err(FsError::new(FsErrorKind::AlreadyExists, path, "file exists")),
        };
        let parent = path.parent().ok_or_else(|| FsError::new(FsErrorKind::AlreadyExists, path, "file exists"))?;
        let (pp, node) = self.node(parent, true)?;
        if !matches!(node, Node::Dir) {
            return Err(FsError::new(FsErrorKind::NotADirectory, path, "not a directory"));
        }
        // Making or removing a name needs the folder searchable and writable.
        self.searchable(&pp, path)?;
        if self.modes.get(&pp).is_some_and(|mode| mode & 0o222 == 0) {
            return Err(FsError::new(FsErrorKind::PermissionDenied, path, "Permission denied (os error 13)"));
        }
        Ok(pp.join(name))
    }

    fn mkdir(&mut self, path: &Path) -> Result<(), FsError> {
        let slot = self.entry_slot(path)?;
        if self.nodes.contains_key(&slot) {
            return Err(FsError::new(FsErrorKind::AlreadyExists, path, "file exists"));
        }
        self.nodes.insert(slot, Node::Dir);
        Ok(())
    }

    /// The node `relative` names below the folder `root`, walked one name at a time from the
    /// root's physical path with no symlink followed (what `openat2` with `RESOLVE_BENEATH |
    /// RESOLVE_NO_SYMLINKS` does), checked to be a regular file.
    fn beneath(&self, root: &Path, relative: &Path) -> Result<(&[u8], Metadata), FsError> {
        let full = root.join(relative);
        match self.beneath_node(root, relative)?.1 {
            node @ Node::File { bytes, .. } => Ok((bytes, node.metadata())),
            Node::Dir => Err(FsError::new(FsErrorKind::IsADirectory, &full, "is a directory")),
            Node::Symlink(_) => Err(FsError::new(FsErrorKind::Loop, &full, "a symlink below the root")),
            Node::Other => Err(FsError::new(FsErrorKind::NotAFile, &full, "not a regular file")),
        }
    }

    /// The node at `relative` below `root` and its physical path, reached without following a
    /// symlink below the root (one on the way is `Loop`; the node itself may be one).
    fn beneath_node(&self, root: &Path, relative: &Path) -> Result<(PathBuf, &Node), FsError> {
        let names = beneath_names(relative)?;
        let full = root.join(relative);
        let (mut cur, node) = self.node(root, true)?;
        if !matches!(node, Node::Dir) {
            return Err(FsError::new(FsErrorKind::NotADirectory, root, "not a directory"));
        }
        let (last, folders) = names.split_last().expect("beneath_names gives at least one name");
        for name in folders {
            self.searchable(&cur, &full)?;
            cur.push(name);
            match self.nodes.get(&cur) {
                None => return Err(not_found(&full)),
                Some(Node::Dir) => {}
                Some(Node::Symlink(_)) => {
                    return Err(FsError::new(FsErrorKind::Loop, &full, "a symlink below the root"));
                }
                Some(Node::File { .. } | Node::Other) => {
                    return Err(FsError::new(FsErrorKind::NotADirectory, &full, "not a directory"));
                }
            }
        }
        self.searchable(&cur, &full)?;
        cur.push(last);
        match self.nodes.get(&cur) {
            None => Err(not_found(&full)),
            Some(node) => Ok((cur, node)),
        }
    }

    fn is_dir(&self, path: &Path) -> bool {
        matches!(self.node(path, true), Ok((_, Node::Dir)))
    }

    /// The same steps as `std::fs::create_dir_all`, so that errors agree with the real one.
    fn create_dir_all(&mut self, path: &Path) -> Result<(), FsError> {
        if path == Path::new("/") {
            return Ok(());
        }
        match self.mkdir(path) {
            Ok(()) => return Ok(()),
            Err(e) if e.kind == FsErrorKind::NotFound => {}
            Err(_) if self.is_dir(path) => return Ok(()),
            Err(e) => return Err(e),
        }
        match path.parent() {
            Some(p) => self.create_dir_all(p)?,
            None => return Err(FsError::new(FsErrorKind::Other, path, "failed to create whole tree")),
        }
        match self.mkdir(path) {
            Ok(()) => Ok(()),
            Err(_) if self.is_dir(path) => Ok(()),
            Err(e) => Err(e),
        }
    }

    fn check_fault(&self, requested: &Path, physical: &Path) -> Result<(), FsError> {
        if self.failing_writes.contains(requested) || self.failing_writes.contains(physical) {
            return Err(FsError::new(FsErrorKind::Other, requested, "injected fault: no space left on device"));
        }
        Ok(())
    }

    fn check_step(&self, step: SetStep, target: &Path) -> Result<(), FsError> {
        if self.failing_steps.contains(&(step, target.to_path_buf())) {
            return Err(FsError::new(FsErrorKind::Other, target, format!("injected fault at {step:?}")));
        }
        Ok(())
    }

    /// A fresh name beside `slot`, as tempfile would pick.
    fn fresh_beside(&mut self, slot: &Path, suffix: &str) -> PathBuf {
        let n = self.stamp();
        slot.with_file_name(format!("{SET_FILE_PREFIX}{n}{suffix}"))
    }

    /// Where a removal acts: `None` when a folder on the way is missing (nothing to remove).
    fn removal_slot(&self, path: &Path) -> Result<Option<PathBuf>, FsError> {
        match self.entry_slot(path) {
            Err(e) if e.kind == FsErrorKind::NotFound => Ok(None),
            slot => slot.map(Some),
        }
    }

    /// Steps 1 to 3 of `write_atomic_set`, each path resolved when the real filesystem would
    /// resolve it; every temporary and kept name created is recorded in `made` so the caller
    /// removes what remains, whatever happened.
    fn write_set(&mut self, changes: &[Change<'_>], made: &mut Vec<PathBuf>) -> Result<(), FsError> {
        let mut temps = Vec::with_capacity(changes.len());
        for change in changes {
            let (Change::Write(path, _) | Change::Stream(path, _) | Change::Cache(path, _)) = change else {
                temps.push(None);
                continue;
            };
            let slot = self.entry_slot(path)?;
            self.check_step(SetStep::CreateTemp, path)?;
            let temp = self.fresh_beside(&slot, SET_TEMP_SUFFIX);
            let stamp = self.stamp();
            self.nodes.insert(temp.clone(), Node::File { bytes: Vec::new(), stamp });
            made.push(temp.clone());
            self.check_step(SetStep::WriteTemp, path)?;
            self.check_fault(path, &slot)?;
            let mut bytes = Vec::new();
            change.write_content(&mut bytes).map_err(|e| FsError::new(FsErrorKind::Other, *path, e.to_string()))?;
            self.nodes.insert(temp.clone(), Node::File { bytes, stamp });
            temps.push(Some(temp));
        }
        let mut kept = Vec::with_capacity(changes.len());
        for change in changes {
            let Some(slot) = self.removal_slot(change.path())? else {
                kept.push(None);
                continue;
            };
            match self.nodes.get(&slot).cloned() {
                None => kept.push(None),
                Some(Node::Dir) => {
                    return Err(FsError::new(FsErrorKind::IsADirectory, change.path(), "is a directory"));
                }
                Some(node) => {
                    self.check_step(SetStep::Keep, change.path())?;
                    let name = self.fresh_beside(&slot, SET_KEPT_SUFFIX);
                    self.nodes.insert(name.clone(), node);
                    made.push(name.clone());
                    kept.push(Some(name));
                }
            }
        }
        // The slot each applied change acted on, to put it back.
        let mut applied: Vec<(Option<PathBuf>, Option<&PathBuf>)> = Vec::new();
        let mut failure = None;
        for ((change, temp), old) in changes.iter().zip(&temps).zip(&kept) {
            let slot = self.check_step(SetStep::Apply, change.path()).and_then(|()| match (change, temp) {
                (Change::Write(path, _) | Change::Stream(path, _) | Change::Cache(path, _), Some(temp)) => {
                    let slot = self.entry_slot(path)?;
                    if let Some(Node::Dir) = self.nodes.get(&slot) {
                        return Err(FsError::new(FsErrorKind::IsADirectory, *path, "is a directory"));
                    }
                    let node = self.nodes.remove(temp).ok_or_else(|| not_found(temp))?;
                    self.nodes.insert(slot.clone(), node);
                    Ok(Some(slot))
                }
                (_, _) => {
                    let slot = self.removal_slot(change.path())?;
                    if let Some(slot) = &slot {
                        if let Some(Node::Dir) = self.nodes.get(slot) {
                            return Err(FsError::new(FsErrorKind::IsADirectory, change.path(), "is a directory"));
                        }
                        self.nodes.remove(slot);
                    }
                    Ok(slot)
                }
            });
            match slot {
                Ok(slot) => applied.push((slot, old.as_ref())),
                Err(e) => {
                    failure = Some(e);
                    break;
                }
            }
        }
        let Some(e) = failure else { return Ok(()) };
        // Put back what was changed, last first, each path resolved again as the real adapter
        // renames and removes by path: where a change replaced a symlink that a later path went
        // through, that path no longer resolves and stays as it is (as on disk).
        for ((slot, old), change) in applied.into_iter().zip(changes).rev() {
            if slot.is_none() {
                continue;
            }
            let Ok(slot) = self.entry_slot(change.path()) else { continue };
            match old.and_then(|k| self.nodes.remove(k)) {
                Some(node) => {
                    self.nodes.insert(slot, node);
                }
                None if !matches!(self.nodes.get(&slot), Some(Node::Dir)) => {
                    self.nodes.remove(&slot);
                }
                None => {}
            }
        }
        Err(e)
    }

    fn stamp(&mut self) -> u128 {
        self.next_stamp += 1;
        self.next_stamp
    }
}

impl MemoryFs {
    pub fn new() -> Self {
        let mut nodes = BTreeMap::new();
        nodes.insert(PathBuf::from("/"), Node::Dir);
        Self {
            state: Mutex::new(State {
                nodes,
                next_stamp: 0,
                failing_writes: BTreeSet::new(),
                modes: BTreeMap::new(),
                failing_steps: BTreeSet::new(),
                edits_at_write_new: Vec::new(),
                swaps_at_next_write: Vec::new(),
                moved: Vec::new(),
            }),
            reads: AtomicUsize::new(0),
            lists: AtomicUsize::new(0),
            locked: std::sync::Arc::default(),
        }
    }

    /// How many whole-file reads (`read`, `read_beneath`) were made so far.
    pub fn reads(&self) -> usize {
        self.reads.load(Ordering::SeqCst)
    }

    /// How many folders were listed (`read_dir`) so far.
    pub fn lists(&self) -> usize {
        self.lists.load(Ordering::SeqCst)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        // A panic while holding the lock cannot leave the map half-updated (every update is one
        // insert or remove), so a poisoned lock is still consistent.
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Replaces the bytes of the file at `path` and keeps its stamp: a write that a
    /// filesystem with coarse times cannot see, made in the same tick as the one before.
    pub fn overwrite_in_the_same_tick(&self, path: &Path, bytes: &[u8]) -> Result<(), FsError> {
        let mut s = self.lock();
        let slot = s.entry_slot(path)?;
        match s.nodes.get_mut(&slot) {
            Some(Node::File { bytes: old, .. }) => {
                *old = bytes.to_vec();
                Ok(())
            }
            _ => Err(FsError::new(FsErrorKind::NotFound, path, "no such file")),
        }
    }

    /// Creates a symlink at `link` pointing to `target` (stored as given, not resolved).
    pub fn symlink(&self, target: impl Into<PathBuf>, link: &Path) -> Result<(), FsError> {
        let mut s = self.lock();
        let slot = s.entry_slot(link)?;
        if s.nodes.contains_key(&slot) {
            return Err(FsError::new(FsErrorKind::AlreadyExists, link, "file exists"));
        }
        s.nodes.insert(slot, Node::Symlink(target.into()));
        Ok(())
    }

    /// Creates a FIFO-like object that is neither a file nor a directory.
    pub fn make_special(&self, path: &Path) -> Result<(), FsError> {
        let mut s = self.lock();
        let slot = s.entry_slot(path)?;
        if s.nodes.contains_key(&slot) {
            return Err(FsError::new(FsErrorKind::AlreadyExists, path, "file exists"));
        }
        s.nodes.insert(slot, Node::Other);
        Ok(())
    }

    /// At each of the next `write_new` calls (a backup, say), another program first replaces
    /// `path` with `bytes`: one edit per call, in the order given.
    pub fn edit_at_next_write_new(&self, path: impl Into<PathBuf>, bytes: &[u8]) {
        self.lock().edits_at_write_new.push((path.into(), bytes.to_vec()));
    }

    /// Before the next file write (`write_new`, `write_atomic_set`, `write_atomic_set_beneath`,
    /// and a held folder's, which go through them), another program puts a symlink to
    /// `target` at `link`, moving the folder there, if any, to `<link>.moved` first: a race
    /// between what a caller looked at, or the folders it made, and what it then writes.
    pub fn swap_for_symlink_at_next_write(&self, target: impl Into<PathBuf>, link: impl Into<PathBuf>) {
        self.lock().swaps_at_next_write.push((target.into(), link.into()));
    }

    /// What [`MemoryFs::swap_for_symlink_at_next_write`] set up, done now.
    fn before_write(&self) {
        let swaps = std::mem::take(&mut self.lock().swaps_at_next_write);
        for (target, link) in swaps {
            let mut s = self.lock();
            let mut aside = link.clone().into_os_string();
            aside.push(".moved");
            let aside = PathBuf::from(aside);
            let moved: Vec<PathBuf> = s.nodes.keys().filter(|k| k.starts_with(&link)).cloned().collect();
            if !moved.is_empty() {
                s.moved.push((link.clone(), aside.clone()));
            }
            for from in moved {
                let to = aside.join(from.strip_prefix(&link).expect("below the link"));
                let node = s.nodes.remove(&from).expect("listed above");
                s.nodes.insert(to, node);
            }
            drop(s);
            self.symlink(target, &link).expect("the symlink set up to appear at the next write");
        }
    }

    /// [`FileSystem::write_atomic_set`], once any change due before it is made.
    fn write_set(&self, changes: &[Change<'_>]) -> Result<(), FsError> {
        for change in changes {
            require_absolute(change.path())?;
        }
        let mut s = self.lock();
        let mut made = Vec::new();
        let result = s.write_set(changes, &mut made);
        for name in made {
            s.nodes.remove(&name);
        }
        result
    }

    /// Makes every later write to `path` fail, as a full disk would.
    pub fn fail_writes_to(&self, path: impl Into<PathBuf>) {
        self.lock().failing_writes.insert(path.into());
    }

    /// Makes `step` of every later `write_atomic_set` fail for the target `path`.
    pub fn fail_set_step(&self, step: SetStep, path: impl Into<PathBuf>) {
        self.lock().failing_steps.insert((step, path.into()));
    }

    /// Lets every step of `write_atomic_set` succeed again.
    pub fn heal_set_steps(&self) {
        self.lock().failing_steps.clear();
    }

    /// Lets writes to `path` succeed again.
    pub fn heal_writes_to(&self, path: &Path) {
        self.lock().failing_writes.remove(path);
    }
}

/// A folder of a [`MemoryFs`] opened by `open_dir_beneath`. The memory model has no handles,
/// so it acts on the folder's physical path at the time it was opened; its tests do not rename
/// folders under a held one (the real adapter's tests do).
struct MemoryDir<'a> {
    fs: &'a MemoryFs,
    physical: PathBuf,
    path: PathBuf,
}

impl MemoryDir<'_> {
    /// Where the folder is now: where it was opened, unless a swap moved it aside (a handle
    /// follows its folder; see [`MemoryFs::swap_for_symlink_at_next_write`]).
    fn here(&self) -> PathBuf {
        let s = self.fs.lock();
        match s.moved.iter().rev().find(|(from, _)| self.physical.starts_with(from)) {
            Some((from, to)) => to.join(self.physical.strip_prefix(from).expect("found by its prefix")),
            None => self.physical.clone(),
        }
    }

    fn name<'p>(&self, path: &'p Path) -> Result<&'p OsStr, FsError> {
        match beneath_names(path)?.as_slice() {
            [name] => Ok(name),
            _ => Err(FsError::new(FsErrorKind::InvalidPath, self.path.join(path), "not a name in the folder")),
        }
    }
}

impl HeldDir for MemoryDir<'_> {
    fn path(&self) -> &Path {
        &self.path
    }

    fn write_atomic_set(&self, changes: &[Change<'_>]) -> Result<(), FsError> {
        // A swap due at this write comes first: the folder's place is then looked up.
        self.fs.before_write();
        let paths =
            changes.iter().map(|c| Ok(self.here().join(self.name(c.path())?))).collect::<Result<Vec<_>, FsError>>()?;
        let changes: Vec<Change<'_>> = changes.iter().zip(&paths).map(|(c, p)| c.at(p)).collect();
        self.fs.write_atomic_set(&changes)
    }

    fn write_new(&self, name: &OsStr, bytes: &[u8]) -> Result<(), FsError> {
        self.fs.before_write();
        self.fs.write_new(&self.here().join(self.name(Path::new(name))?), bytes)
    }

    fn create_private_dir(&self, name: &OsStr) -> Result<(), FsError> {
        let name = self.name(Path::new(name))?;
        let physical = self.here().join(name);
        let mut s = self.fs.lock();
        match s.mkdir(&physical) {
            Ok(()) => {
                s.modes.insert(physical, 0o700);
                Ok(())
            }
            Err(e) if e.kind == FsErrorKind::AlreadyExists => match s.nodes.get(&physical) {
                Some(Node::Dir) => Ok(()),
                _ => Err(FsError::new(FsErrorKind::NotADirectory, self.path.join(name), "exists and is not a folder")),
            },
            Err(e) => Err(e),
        }
    }

    fn read_dir(&self) -> Result<Vec<DirEntry>, FsError> {
        self.fs.read_dir(&self.here())
    }

    fn remove_file(&self, name: &OsStr) -> Result<(), FsError> {
        self.fs.remove_file(&self.here().join(self.name(Path::new(name))?))
    }
}

impl FileSystem for MemoryFs {
    fn read(&self, path: &Path, max_bytes: u64) -> Result<Vec<u8>, FsError> {
        self.reads.fetch_add(1, Ordering::SeqCst);
        let s = self.lock();
        match s.node(path, true)?.1 {
            Node::File { bytes, .. } if bytes.len() as u64 > max_bytes => {
                Err(FsError::new(FsErrorKind::TooLarge, path, format!("file is larger than {max_bytes} bytes")))
            }
            Node::File { bytes, .. } => Ok(bytes.clone()),
            Node::Dir => Err(FsError::new(FsErrorKind::IsADirectory, path, "is a directory")),
            _ => Err(FsError::new(FsErrorKind::NotAFile, path, "not a regular file")),
        }
    }

    fn read_beneath(&self, root: &Path, relative: &Path, max_bytes: u64) -> Result<(Vec<u8>, Metadata), FsError> {
        self.reads.fetch_add(1, Ordering::SeqCst);
        require_absolute(root)?;
        let s = self.lock();
        let (bytes, meta) = s.beneath(root, relative)?;
        if bytes.len() as u64 > max_bytes {
            let detail = format!("file is larger than {max_bytes} bytes");
            return Err(FsError::new(FsErrorKind::TooLarge, root.join(relative), detail));
        }
        Ok((bytes.to_vec(), meta))
    }

    fn metadata_beneath(&self, root: &Path, relative: &Path) -> Result<Metadata, FsError> {
        require_absolute(root)?;
        Ok(self.lock().beneath(root, relative)?.1)
    }

    fn open_dir_beneath<'a>(&'a self, root: &Path, relative: &Path) -> Result<Box<dyn HeldDir + 'a>, FsError> {
        require_absolute(root)?;
        let full = root.join(relative);
        let s = self.lock();
        match s.beneath_node(root, relative)? {
            (physical, Node::Dir) => Ok(Box::new(MemoryDir { fs: self, physical, path: full })),
            (_, Node::Symlink(_)) => Err(FsError::new(FsErrorKind::Loop, &full, "a symlink below the root")),
            _ => Err(FsError::new(FsErrorKind::NotADirectory, &full, "not a directory")),
        }
    }

    fn metadata(&self, path: &Path) -> Result<Metadata, FsError> {
        Ok(self.lock().node(path, true)?.1.metadata())
    }

    fn symlink_metadata(&self, path: &Path) -> Result<Metadata, FsError> {
        Ok(self.lock().node(path, false)?.1.metadata())
    }

    fn read_link(&self, path: &Path) -> Result<PathBuf, FsError> {
        match self.lock().node(path, false)?.1 {
            Node::Symlink(t) => Ok(t.clone()),
            _ => Err(FsError::new(FsErrorKind::InvalidPath, path, "not a symlink")),
        }
    }

    fn canonicalize(&self, path: &Path) -> Result<PathBuf, FsError> {
        Ok(self.lock().node(path, true)?.0)
    }

    fn read_dir(&self, path: &Path) -> Result<Vec<DirEntry>, FsError> {
        self.lists.fetch_add(1, Ordering::SeqCst);
        let s = self.lock();
        let (dir, node) = s.node(path, true)?;
        if !matches!(node, Node::Dir) {
            return Err(FsError::new(FsErrorKind::NotADirectory, path, "not a directory"));
        }
        if s.modes.get(&dir).is_some_and(|mode| mode & 0o444 == 0) {
            return Err(FsError::new(FsErrorKind::PermissionDenied, path, "Permission denied (os error 13)"));
        }
        let mut entries: Vec<DirEntry> = s
            .nodes
            .range(dir.clone()..)
            .skip(1)
            .take_while(|(p, _)| p.starts_with(&dir))
            .filter(|(p, _)| p.parent() == Some(dir.as_path()))
            .map(|(p, n)| DirEntry {
                name: p.file_name().map(|n| n.to_os_string()).unwrap_or_default(),
                kind: n.kind(),
            })
            .collect();
        entries.sort_by(|a, b| a.name.as_encoded_bytes().cmp(b.name.as_encoded_bytes()));
        Ok(entries)
    }

    fn walk(&self, root: &Path, skip_dirs: &[&str]) -> Result<Walk, FsError> {
        let s = self.lock();
        let (phys, node) = s.node(root, true)?;
        if !matches!(node, Node::Dir) {
            return match node {
                Node::File { .. } => Ok(Walk { files: vec![root.to_path_buf()], symlinks: Vec::new() }),
                _ => Ok(Walk::default()),
            };
        }
        let mut walk = Walk::default();
        for (p, n) in s.nodes.range(phys.clone()..).take_while(|(p, _)| p.starts_with(&phys)) {
            let list = match n {
                Node::File { .. } => &mut walk.files,
                Node::Symlink(_) => &mut walk.symlinks,
                Node::Dir | Node::Other => continue,
            };
            let Ok(rel) = p.strip_prefix(&phys) else { continue };
            let dirs = rel.parent().map(components).unwrap_or_default();
            if !dirs.iter().any(|d| skip_dirs.iter().any(|s| d == *s)) {
                list.push(root.join(rel));
            }
        }
        for list in [&mut walk.files, &mut walk.symlinks] {
            list.sort_by(|a, b| a.as_os_str().as_encoded_bytes().cmp(b.as_os_str().as_encoded_bytes()));
        }
        Ok(walk)
    }

    fn create_dir_all(&self, path: &Path) -> Result<(), FsError> {
        require_absolute(path)?;
        self.lock().create_dir_all(path)
    }

    fn write_atomic(&self, path: &Path, bytes: &[u8]) -> Result<(), FsError> {
        require_absolute(path)?;
        let mut s = self.lock();
        let slot = s.entry_slot(path)?;
        s.check_fault(path, &slot)?;
        if let Some(Node::Dir) = s.nodes.get(&slot) {
            return Err(FsError::new(FsErrorKind::IsADirectory, path, "is a directory"));
        }
        // As the real adapter, judged by what a symlink there leads to (a dangling one or a
        // loop is replaced): a folder, a FIFO or device and a read-only file are refused, and
        // the new file gets the replaced one's mode.
        let target = s.resolve(path, true, true).ok();
        match target.as_ref().and_then(|t| s.nodes.get(t)) {
            Some(Node::Dir) => return Err(FsError::new(FsErrorKind::IsADirectory, path, "is a directory")),
            Some(Node::Other) => {
                return Err(FsError::new(
                    FsErrorKind::NotAFile,
                    path,
                    "is a FIFO, socket or device, not a regular file",
                ));
            }
            _ => {}
        }
        let mode = target.as_ref().filter(|t| s.nodes.contains_key(*t)).and_then(|t| s.modes.get(t).copied());
        if mode.is_some_and(|mode| mode & 0o222 == 0) {
            return Err(FsError::new(FsErrorKind::PermissionDenied, path, "is read-only; it was not replaced"));
        }
        match mode {
            Some(mode) => s.modes.insert(slot.clone(), mode & 0o777),
            None => s.modes.remove(&slot),
        };
        let stamp = s.stamp();
        s.nodes.insert(slot, Node::File { bytes: bytes.to_vec(), stamp });
        Ok(())
    }

    fn write_atomic_set(&self, changes: &[Change<'_>]) -> Result<(), FsError> {
        self.before_write();
        self.write_set(changes)
    }

    fn write_atomic_set_beneath(&self, changes: &[(&Path, Change<'_>)]) -> Result<(), FsError> {
        self.before_write();
        // Each change at the physical path of its folder, reached as `open_dir_beneath` reaches
        // it (no symlink below the root), a root itself followed.
        // Every path is checked before any folder is looked for, as on disk.
        let mut places = Vec::with_capacity(changes.len());
        for &(root, ref change) in changes {
            require_absolute(root)?;
            let names = beneath_names(change.path())?;
            let (name, folder) = names.split_last().expect("beneath_names gives at least one name");
            places.push((root, folder.iter().collect::<PathBuf>(), *name));
        }
        let mut paths = Vec::with_capacity(changes.len());
        for (root, folder, name) in places {
            let s = self.lock();
            let (physical, node) =
                if folder.as_os_str().is_empty() { s.node(root, true)? } else { s.beneath_node(root, &folder)? };
            match node {
                Node::Dir => paths.push(physical.join(name)),
                Node::Symlink(_) => {
                    return Err(FsError::new(FsErrorKind::Loop, root.join(&folder), "a symlink below the root"));
                }
                _ => return Err(FsError::new(FsErrorKind::NotADirectory, root.join(&folder), "not a directory")),
            }
        }
        let changes: Vec<Change<'_>> = changes.iter().zip(&paths).map(|((_, c), p)| c.at(p)).collect();
        self.write_set(&changes)
    }

    fn write_new(&self, path: &Path, bytes: &[u8]) -> Result<(), FsError> {
        self.before_write();
        require_absolute(path)?;
        let edit = {
            let mut s = self.lock();
            (!s.edits_at_write_new.is_empty()).then(|| s.edits_at_write_new.remove(0))
        };
        if let Some((other, content)) = edit {
            self.write_atomic(&other, &content)?;
        }
        let mut s = self.lock();
        let slot = s.entry_slot(path)?;
        if s.nodes.contains_key(&slot) {
            return Err(FsError::new(FsErrorKind::AlreadyExists, path, "file exists"));
        }
        s.check_fault(path, &slot)?;
        let stamp = s.stamp();
        s.nodes.insert(slot, Node::File { bytes: bytes.to_vec(), stamp });
        Ok(())
    }

    fn create_private_dir_all(&self, path: &Path) -> Result<(), FsError> {
        require_absolute(path)?;
        let mut s = self.lock();
        // Like `DirBuilder::mode(0o700).recursive(true)`: only the folders created get 0700.
        let missing: Vec<PathBuf> =
            path.ancestors().filter(|a| s.resolve(a, true, true).is_err()).map(Path::to_path_buf).collect();
        s.create_dir_all(path)?;
        for dir in missing {
            if let Ok(physical) = s.resolve(&dir, true, true) {
                s.modes.insert(physical, 0o700);
            }
        }
        Ok(())
    }

    fn mode(&self, path: &Path) -> Result<u32, FsError> {
        let s = self.lock();
        let (physical, node) = s.node(path, true)?;
        let default = if matches!(node, Node::Dir) { 0o755 } else { 0o600 };
        Ok(s.modes.get(&physical).copied().unwrap_or(default))
    }

    fn set_mode(&self, path: &Path, mode: u32) -> Result<(), FsError> {
        let mut s = self.lock();
        let (physical, _) = s.node(path, true)?;
        s.modes.insert(physical, mode & 0o7777);
        Ok(())
    }

    fn lock_dir(&self, path: &Path, wait: bool) -> Result<Option<ports::fs::DirLock>, FsError> {
        if self.metadata(path)?.kind != FileKind::Dir {
            return Err(FsError::new(FsErrorKind::NotADirectory, path, "not a directory"));
        }
        let physical = self.canonicalize(path)?;
        let mut held = self.locked.held.lock().unwrap_or_else(|p| p.into_inner());
        while held.contains(&physical) {
            if !wait {
                return Ok(None);
            }
            held = self.locked.released.wait(held).unwrap_or_else(|p| p.into_inner());
        }
        held.insert(physical.clone());
        Ok(Some(ports::fs::DirLock::new(Held(std::sync::Arc::clone(&self.locked), physical))))
    }

    fn dir_locked(&self, path: &Path) -> Result<bool, FsError> {
        if self.metadata(path)?.kind != FileKind::Dir {
            return Err(FsError::new(FsErrorKind::NotADirectory, path, "not a directory"));
        }
        let physical = self.canonicalize(path)?;
        Ok(self.locked.held.lock().unwrap_or_else(|p| p.into_inner()).contains(&physical))
    }

    fn remove_file(&self, path: &Path) -> Result<(), FsError> {
        require_absolute(path)?;
        let mut s = self.lock();
        let slot = s.entry_slot(path)?;
        match s.nodes.get(&slot) {
            None => Err(not_found(path)),
            Some(Node::Dir) => Err(FsError::new(FsErrorKind::IsADirectory, path, "is a directory")),
            Some(_) => {
                s.nodes.remove(&slot);
                s.modes.remove(&slot);
                Ok(())
            }
        }
    }

    fn remove_dir(&self, path: &Path) -> Result<(), FsError> {
        require_absolute(path)?;
        let mut s = self.lock();
        let slot = s.entry_slot(path)?;
        match s.nodes.get(&slot) {
            None => Err(not_found(path)),
            Some(Node::Dir) => {
                if s.nodes.keys().any(|k| k.parent() == Some(slot.as_path())) {
                    return Err(FsError::new(FsErrorKind::Other, path, "Directory not empty (os error 39)"));
                }
                s.nodes.remove(&slot);
                s.modes.remove(&slot);
                Ok(())
            }
            Some(_) => Err(FsError::new(FsErrorKind::NotADirectory, path, "Not a directory (os error 20)")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> PathBuf {
        PathBuf::from(s)
    }

    #[test]
    fn symlinks_resolve_like_linux() {
        let fs = MemoryFs::new();
        fs.create_dir_all(&p("/a/b")).unwrap();
        fs.write_atomic(&p("/a/b/f"), b"x").unwrap();
        fs.symlink("b", &p("/a/rel")).unwrap();
        fs.symlink("/a/b/f", &p("/abs")).unwrap();
        // `..` after a symlink climbs from the link's target, not from the link.
        fs.symlink("/a/b", &p("/up")).unwrap();
        assert_eq!(fs.canonicalize(&p("/a/rel/f")).unwrap(), p("/a/b/f"));
        assert_eq!(fs.canonicalize(&p("/abs")).unwrap(), p("/a/b/f"));
        assert_eq!(fs.canonicalize(&p("/up/..")).unwrap(), p("/a"));
        assert_eq!(fs.symlink_metadata(&p("/abs")).unwrap().kind, FileKind::Symlink);
        assert_eq!(fs.metadata(&p("/abs")).unwrap().kind, FileKind::File);
    }

    #[test]
    fn loops_are_reported() {
        let fs = MemoryFs::new();
        fs.symlink("/l2", &p("/l1")).unwrap();
        fs.symlink("/l1", &p("/l2")).unwrap();
        assert_eq!(fs.read(&p("/l1"), 10).unwrap_err().kind, FsErrorKind::Loop);
    }

    #[test]
    fn injected_write_fault_keeps_old_content() {
        let fs = MemoryFs::new();
        fs.write_atomic(&p("/index.json"), b"old").unwrap();
        fs.fail_writes_to("/index.json");
        assert!(fs.write_atomic(&p("/index.json"), b"new").is_err());
        assert_eq!(fs.read(&p("/index.json"), 100).unwrap(), b"old");
        fs.heal_writes_to(&p("/index.json"));
        fs.write_atomic(&p("/index.json"), b"new").unwrap();
        assert_eq!(fs.read(&p("/index.json"), 100).unwrap(), b"new");
    }

    #[test]
    fn an_injected_fault_at_any_step_of_a_set_changes_nothing() {
        for step in SetStep::ALL {
            for failing in ["/d/a", "/d/b", "/d/c"] {
                let fs = MemoryFs::new();
                fs.create_dir_all(&p("/d")).unwrap();
                fs.write_atomic(&p("/d/a"), b"old a").unwrap();
                fs.write_atomic(&p("/d/b"), b"old b").unwrap();
                let before = fs.read_dir(&p("/d")).unwrap();
                fs.fail_set_step(step, failing);
                let set =
                    [Change::Write(&p("/d/a"), b"new a"), Change::Remove(&p("/d/b")), Change::Write(&p("/d/c"), b"c")];
                // Removals have no temporary, and /d/c nothing to keep: those steps cannot fail.
                let reachable = !matches!(
                    (step, failing),
                    (SetStep::CreateTemp | SetStep::WriteTemp, "/d/b") | (SetStep::Keep, "/d/c")
                );
                assert_eq!(fs.write_atomic_set(&set).is_err(), reachable, "{step:?} on {failing}");
                if reachable {
                    assert_eq!(fs.read_dir(&p("/d")).unwrap(), before, "{step:?} on {failing}: names");
                    assert_eq!(fs.read(&p("/d/a"), 99).unwrap(), b"old a");
                    assert_eq!(fs.read(&p("/d/b"), 99).unwrap(), b"old b");
                }
            }
        }
    }

    #[test]
    fn walk_skips_named_dirs_and_does_not_follow_links() {
        let fs = MemoryFs::new();
        fs.create_dir_all(&p("/g/.generated")).unwrap();
        fs.create_dir_all(&p("/g/projects/x")).unwrap();
        fs.create_dir_all(&p("/outside")).unwrap();
        fs.write_atomic(&p("/g/.generated/graph.json"), b"{}").unwrap();
        fs.write_atomic(&p("/g/projects/x/project.md"), b"x").unwrap();
        fs.write_atomic(&p("/outside/secret.md"), b"s").unwrap();
        fs.symlink("/outside", &p("/g/linked")).unwrap();
        fs.symlink("../x/project.md", &p("/g/projects/y.md")).unwrap();
        fs.symlink("/nowhere", &p("/g/.generated/dangling")).unwrap();
        let walk = fs.walk(&p("/g"), &[".generated"]).unwrap();
        assert_eq!(walk.files, vec![p("/g/projects/x/project.md")]);
        assert_eq!(walk.symlinks, vec![p("/g/linked"), p("/g/projects/y.md")], "reported, not entered");
        assert_eq!(fs.walk_files(&p("/g"), &[".generated"]).unwrap(), walk.files);
    }
}

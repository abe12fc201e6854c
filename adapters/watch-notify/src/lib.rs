//! The watch port with the `notify` crate: inotify on Linux, FSEvents on macOS.
//!
//! notify's recursive mode adds a watch for every folder created after the start, so records
//! in new folders are seen. Reads are not changes: an index run opens every folder and many
//! records, so the kernel is asked for no open or close-after-read events at all
//! ([`WATCHED`]), which keeps a run from filling inotify's queue with its own reads (at
//! 100,000 records it overflowed, and the overflow made `--watch` index again, forever).
//! What still arrives is translated here: access times are not changes either; an error or a
//! "rescan" flag (a queue overflow) is [`WatchEvent::Lost`].
//!
//! A folder the user may not read cannot be watched: notify reports it and goes on without it,
//! for good. Such a folder is watched once its metadata changes (`chmod`, `chown`: reported by
//! its parent's watch) and the watch can be added ([`Unwatched`]; found in review: a
//! `.generated/` unreadable at the start was never watched again, so its index removed later
//! was never made again).

#![forbid(unsafe_code)]

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, mpsc};

use notify::event::{AccessKind, AccessMode, EventKind, EventKindMask, MetadataKind, ModifyKind};
use notify::{Config, RecommendedWatcher, RecursiveMode, Watcher as _};
use ports::watch::{WatchError, WatchErrorKind, WatchEvent, WatchSink, Watcher, Watching};

/// Watches folders with the platform's recommended backend.
#[derive(Debug, Default, Clone, Copy)]
pub struct NotifyWatcher;

/// Keeps the watch alive; the thread that adds watches to folders readable again holds it
/// too, and ends when it is dropped (the handler, and its sender, go with the watcher).
struct Guard(Arc<Mutex<Option<RecommendedWatcher>>>);

impl Watching for Guard {}

impl Drop for Guard {
    fn drop(&mut self) {
        drop(self.0.lock().unwrap_or_else(|p| p.into_inner()).take());
    }
}

/// The folders notify could not watch (permission denied), each watched again once an event
/// says its metadata changed.
#[derive(Debug, Default)]
struct Unwatched(Mutex<HashSet<PathBuf>>);

impl Unwatched {
    /// Notes the folders of a failure to watch; whether it was one.
    fn failed(&self, e: &notify::Error) -> bool {
        let denied = matches!(&e.kind, notify::ErrorKind::Io(io) if io.kind() == std::io::ErrorKind::PermissionDenied);
        if denied {
            self.0.lock().unwrap_or_else(|p| p.into_inner()).extend(e.paths.iter().cloned());
        }
        denied
    }

    /// The unwatched folders at or below a folder whose metadata `event` says changed: to try
    /// watching again (a parent given its `x` bit back makes the folders in it reachable,
    /// found in review).
    fn due(&self, event: &notify::Event) -> Vec<PathBuf> {
        if !matches!(event.kind, EventKind::Modify(ModifyKind::Metadata(_))) {
            return Vec::new();
        }
        let unwatched = self.0.lock().unwrap_or_else(|p| p.into_inner());
        unwatched.iter().filter(|u| event.paths.iter().any(|p| u.starts_with(p))).cloned().collect()
    }

    /// A folder now watched.
    fn watched(&self, path: &Path) {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).remove(path);
    }
}

/// The events asked for: creations, removals, renames, writes, metadata, and the close of a
/// file opened for writing; not opens, nor closes after reading.
const WATCHED: EventKindMask = EventKindMask::CREATE
    .union(EventKindMask::REMOVE)
    .union(EventKindMask::MODIFY_DATA)
    .union(EventKindMask::MODIFY_META)
    .union(EventKindMask::MODIFY_NAME)
    .union(EventKindMask::ACCESS_CLOSE);

/// Whether an event of this kind means a file's content, name or existence may have changed.
fn is_change(kind: &EventKind) -> bool {
    match kind {
        EventKind::Access(AccessKind::Close(AccessMode::Write)) => true,
        EventKind::Access(_) => false,
        EventKind::Modify(ModifyKind::Metadata(MetadataKind::AccessTime)) => false,
        _ => true,
    }
}

/// What stood in the way of a watch, for the help shown with it.
fn kind_of(e: &notify::Error) -> WatchErrorKind {
    match &e.kind {
        notify::ErrorKind::MaxFilesWatch => WatchErrorKind::Limit,
        notify::ErrorKind::Io(io) if io.kind() == std::io::ErrorKind::PermissionDenied => WatchErrorKind::Denied,
        _ => WatchErrorKind::Other,
    }
}

/// The device and inode of the folder at `path` (a symlink followed), which say whether it is
/// still the folder that was watched.
fn identity(path: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

impl Watcher for NotifyWatcher {
    fn watch(&self, root: &Path, sink: WatchSink) -> Result<Box<dyn Watching>, WatchError> {
        let fail =
            |e: notify::Error| WatchError { path: root.to_path_buf(), message: e.to_string(), kind: kind_of(&e) };
        // An event about the root itself (its move or removal, inotify's *_SELF) is when it
        // may have been replaced at its path; its identity then says.
        let watched = root.to_path_buf();
        let was = identity(root);
        let unwatched = Arc::new(Unwatched::default());
        // Watches are added on a thread of their own: adding one waits for notify's event loop,
        // which runs this handler.
        let (rewatch, due) = mpsc::channel::<PathBuf>();
        let noted = Arc::clone(&unwatched);
        let handler = move |res: notify::Result<notify::Event>| match res {
            Ok(event) if event.need_rescan() => sink(WatchEvent::Lost("the watcher missed events".into())),
            Ok(event) if event.paths.contains(&watched) && identity(&watched) != was => {
                sink(WatchEvent::Replaced);
            }
            Ok(event) if is_change(&event.kind) => {
                for path in noted.due(&event) {
                    let _ = rewatch.send(path);
                }
                sink(WatchEvent::Changed(event.paths));
            }
            Ok(_) => {}
            Err(e) => {
                noted.failed(&e);
                sink(WatchEvent::Lost(e.to_string()));
            }
        };
        // A symlinked folder below the root is not followed (the root itself is, when it is a
        // link), as the index does not follow one: followed, a link to `.generated/` made the
        // index's own writes look like changes (a re-index, forever), and a link to `/` set
        // hundreds of thousands of watches outside the root before the first index.
        let config = Config::default().with_event_kinds(WATCHED).with_follow_symlinks(false);
        let mut watcher = RecommendedWatcher::new(handler, config).map_err(fail)?;
        watcher.watch(root, RecursiveMode::Recursive).map_err(fail)?;
        let watcher = Arc::new(Mutex::new(Some(watcher)));
        let adding = Arc::clone(&watcher);
        std::thread::Builder::new()
            .name("watch-readable-again".into())
            .spawn(move || {
                for path in due {
                    let mut watcher = adding.lock().unwrap_or_else(|p| p.into_inner());
                    let Some(watcher) = watcher.as_mut() else { return };
                    // Still unreadable: notify reports it again, and it stays noted.
                    if watcher.watch(&path, RecursiveMode::Recursive).is_ok() {
                        unwatched.watched(&path);
                    }
                }
            })
            .map_err(|e| WatchError {
                path: root.to_path_buf(),
                message: format!("could not start a thread: {e}"),
                kind: WatchErrorKind::Other,
            })?;
        Ok(Box::new(Guard(watcher)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;
    use std::time::{Duration, Instant};

    /// Waits up to `wait` for an event naming `path`.
    fn saw_within(rx: &mpsc::Receiver<WatchEvent>, path: &Path, wait: Duration) -> bool {
        let deadline = Instant::now() + wait;
        while let Some(left) = deadline.checked_duration_since(Instant::now()) {
            match rx.recv_timeout(left) {
                Ok(WatchEvent::Changed(paths)) if paths.iter().any(|p| p == path) => return true,
                Ok(_) => {}
                Err(_) => return false,
            }
        }
        false
    }

    /// A folder notify could not watch for want of permission is tried again when its
    /// metadata changes, and only then; other failures and events are not.
    #[test]
    fn a_folder_that_could_not_be_watched_is_due_when_its_mode_changes() {
        use notify::event::{CreateKind, DataChange};
        let unwatched = Unwatched::default();
        let folder = PathBuf::from("/g/.generated");
        let denied =
            notify::Error::io(std::io::Error::from(std::io::ErrorKind::PermissionDenied)).add_path(folder.clone());
        let gone = notify::Error::path_not_found().add_path(PathBuf::from("/g/gone"));
        assert!(unwatched.failed(&denied) && !unwatched.failed(&gone));
        let event = |kind: EventKind, path: &Path| notify::Event::new(kind).add_path(path.to_path_buf());
        let chmod = EventKind::Modify(ModifyKind::Metadata(MetadataKind::Permissions));
        assert_eq!(unwatched.due(&event(chmod, &folder)), vec![folder.clone()]);
        assert!(unwatched.due(&event(chmod, Path::new("/g/gone"))).is_empty(), "not a permission failure");
        assert!(unwatched.due(&event(chmod, Path::new("/g/projects"))).is_empty(), "watched already");
        assert!(unwatched.due(&event(chmod, Path::new("/g/.gen"))).is_empty(), "a name is not a path prefix");
        assert_eq!(unwatched.due(&event(chmod, Path::new("/g"))), vec![folder.clone()], "reachable again");
        let write = EventKind::Modify(ModifyKind::Data(DataChange::Any));
        assert!(unwatched.due(&event(write, &folder)).is_empty(), "only a metadata change");
        assert!(unwatched.due(&event(EventKind::Create(CreateKind::Folder), &folder)).is_empty());
        unwatched.watched(&folder);
        assert!(unwatched.due(&event(chmod, &folder)).is_empty(), "watched now");
    }

    /// The watch limit, and only it, is named as the limit (found in review: a root the user
    /// may not read got the hint about `fs.inotify.max_user_watches`).
    #[test]
    fn a_failed_watch_says_what_stood_in_its_way() {
        let denied = notify::Error::io(std::io::Error::from(std::io::ErrorKind::PermissionDenied));
        assert_eq!(kind_of(&denied), WatchErrorKind::Denied);
        assert_eq!(kind_of(&notify::Error::new(notify::ErrorKind::MaxFilesWatch)), WatchErrorKind::Limit);
        assert_eq!(kind_of(&notify::Error::path_not_found()), WatchErrorKind::Other);
    }

    #[test]
    fn a_file_in_a_folder_created_after_the_start_is_reported() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let (tx, rx) = mpsc::channel();
        let _guard = NotifyWatcher.watch(&root, Box::new(move |e| drop(tx.send(e)))).unwrap();
        std::fs::create_dir(root.join("new")).unwrap();
        // Generous: the machine may be loaded.
        assert!(saw_within(&rx, &root.join("new"), Duration::from_secs(10)));
        // The new folder's watch is added when its creation is handled; a write racing that is
        // missed, so write until one is seen.
        let file = root.join("new/record.md");
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            std::fs::write(&file, "text").unwrap();
            if saw_within(&rx, &file, Duration::from_millis(500)) {
                break;
            }
            assert!(Instant::now() < deadline, "no event for {}", file.display());
        }
    }

    /// Found in review: the watch followed symlinked folders, out of the root and into its
    /// own `.generated/` (whose writes then came back as changes under the link's path).
    /// Changes behind a symlinked folder are not reported; those in the root are.
    #[test]
    fn a_symlinked_folder_is_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().canonicalize().unwrap();
        let (root, outside) = (base.join("root"), base.join("outside"));
        std::fs::create_dir_all(root.join("inside")).unwrap();
        std::fs::create_dir(&outside).unwrap();
        std::os::unix::fs::symlink(&outside, root.join("link")).unwrap();
        let (tx, rx) = mpsc::channel();
        let _guard = NotifyWatcher.watch(&root, Box::new(move |e| drop(tx.send(e)))).unwrap();
        std::fs::write(outside.join("record.md"), "text").unwrap();
        let seen_through_link = saw_within(&rx, &root.join("link/record.md"), Duration::from_secs(1));
        assert!(!seen_through_link, "a change behind a symlinked folder is not reported");
        let inside = root.join("inside/record.md");
        std::fs::write(&inside, "text").unwrap();
        assert!(saw_within(&rx, &inside, Duration::from_secs(10)), "a change in the root is");
    }

    /// Found in review: a root moved away and another folder put at its path went on being
    /// watched where it went, so edits at the path were never seen. Its move is reported as
    /// [`WatchEvent::Replaced`].
    #[test]
    fn a_root_replaced_at_its_path_is_reported() {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().canonicalize().unwrap();
        let root = base.join("root");
        std::fs::create_dir(&root).unwrap();
        let (tx, rx) = mpsc::channel();
        let _guard = NotifyWatcher.watch(&root, Box::new(move |e| drop(tx.send(e)))).unwrap();
        std::fs::rename(&root, base.join("old")).unwrap();
        std::fs::create_dir(&root).unwrap();
        let deadline = Instant::now() + Duration::from_secs(10);
        while let Some(left) = deadline.checked_duration_since(Instant::now()) {
            match rx.recv_timeout(left) {
                Ok(WatchEvent::Replaced) => return,
                Ok(_) => {}
                Err(_) => break,
            }
        }
        panic!("no Replaced event");
    }

    /// Regression: notify 8 asked inotify for every open; an index run opens every folder it
    /// walks and many records, so at 100,000 records its own reads overflowed the kernel's
    /// queue, and the overflow made `--watch` index again, forever. The kernel's record of the
    /// watches (`/proc/self/fdinfo` of the inotify descriptor) shows what was asked for.
    #[cfg(target_os = "linux")]
    #[test]
    fn the_kernel_is_asked_for_no_open_or_read_events() {
        const IN_OPEN: u32 = 0x20;
        const IN_CLOSE_NOWRITE: u32 = 0x10;
        // What a change to a record can be: written, closed after writing, its metadata
        // changed (touch, chmod), created, deleted, renamed away or into place.
        let changes = [
            ("IN_MODIFY", 0x2),
            ("IN_ATTRIB", 0x4),
            ("IN_CLOSE_WRITE", 0x8),
            ("IN_MOVED_FROM", 0x40),
            ("IN_MOVED_TO", 0x80),
            ("IN_CREATE", 0x100),
            ("IN_DELETE", 0x200),
        ];
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir(root.join("projects")).unwrap();
        let _guard = NotifyWatcher.watch(&root, Box::new(|_| {})).unwrap();
        // Every `inotify wd:... mask:HEX` line of every inotify descriptor of this process
        // (other tests may watch too: each of their watches must pass as well).
        let masks: Vec<u32> = std::fs::read_dir("/proc/self/fd")
            .unwrap()
            .flatten()
            .filter(|fd| std::fs::read_link(fd.path()).is_ok_and(|l| l.to_string_lossy().contains("inotify")))
            .filter_map(|fd| {
                std::fs::read_to_string(format!("/proc/self/fdinfo/{}", fd.file_name().to_string_lossy())).ok()
            })
            .flat_map(|info| {
                info.lines()
                    .filter_map(|l| l.strip_prefix("inotify wd:"))
                    .filter_map(|l| l.split_whitespace().find_map(|f| f.strip_prefix("mask:")))
                    .map(|m| u32::from_str_radix(m, 16).unwrap())
                    .collect::<Vec<_>>()
            })
            .collect();
        assert!(masks.len() >= 2, "the root and its folder are watched: {masks:x?}");
        for mask in masks {
            assert_eq!(mask & (IN_OPEN | IN_CLOSE_NOWRITE), 0, "a watch asks for reads: {mask:#x}");
            for (name, bit) in changes {
                assert_ne!(mask & bit, 0, "a watch does not ask for {name}: {mask:#x}");
            }
        }
    }

    #[test]
    fn reading_a_file_is_not_a_change() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let file = root.join("record.md");
        std::fs::write(&file, "text").unwrap();
        let (tx, rx) = mpsc::channel();
        let _guard = NotifyWatcher.watch(&root, Box::new(move |e| drop(tx.send(e)))).unwrap();
        for _ in 0..10 {
            std::fs::read(&file).unwrap();
        }
        // A write after the reads is a marker: every event before it came from the reads.
        let marker = root.join("marker");
        std::fs::write(&marker, "x").unwrap();
        match rx.recv_timeout(Duration::from_secs(10)) {
            Ok(WatchEvent::Changed(paths)) if paths == [marker] => {}
            Ok(other) => panic!("a read was reported: {other:?}"),
            Err(e) => panic!("the marker was not reported: {e}"),
        }
    }
}

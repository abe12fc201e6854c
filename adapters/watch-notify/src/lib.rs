//! The watch port with the `notify` crate: inotify on Linux, FSEvents on macOS.
//!
//! notify's recursive mode adds a watch for every folder created after the start, so records
//! in new folders are seen. Its vocabulary is translated here: reads (open, close after read,
//! access time) are not changes, since indexing reads every record and would otherwise wake the
//! watcher it serves; an error or a "rescan" flag (a queue overflow) is [`WatchEvent::Lost`].

use std::path::Path;

use notify::event::{AccessKind, AccessMode, EventKind, MetadataKind, ModifyKind};
use notify::{RecommendedWatcher, RecursiveMode, Watcher as _};
use ports::watch::{WatchError, WatchEvent, WatchSink, Watcher, Watching};

/// Watches folders with the platform's recommended backend.
#[derive(Debug, Default, Clone, Copy)]
pub struct NotifyWatcher;

struct Guard(#[allow(dead_code, reason = "held only to keep the watch alive")] RecommendedWatcher);

impl Watching for Guard {}

/// Whether an event of this kind means a file's content, name or existence may have changed.
fn is_change(kind: &EventKind) -> bool {
    match kind {
        EventKind::Access(AccessKind::Close(AccessMode::Write)) => true,
        EventKind::Access(_) => false,
        EventKind::Modify(ModifyKind::Metadata(MetadataKind::AccessTime)) => false,
        _ => true,
    }
}

impl Watcher for NotifyWatcher {
    fn watch(&self, root: &Path, sink: WatchSink) -> Result<Box<dyn Watching>, WatchError> {
        let fail = |e: notify::Error| WatchError { path: root.to_path_buf(), message: e.to_string() };
        let mut watcher = notify::recommended_watcher(move |res: notify::Result<notify::Event>| match res {
            Ok(event) if event.need_rescan() => sink(WatchEvent::Lost("the watcher missed events".into())),
            Ok(event) if is_change(&event.kind) => sink(WatchEvent::Changed(event.paths)),
            Ok(_) => {}
            Err(e) => sink(WatchEvent::Lost(e.to_string())),
        })
        .map_err(fail)?;
        watcher.watch(root, RecursiveMode::Recursive).map_err(fail)?;
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

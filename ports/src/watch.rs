//! The watch port: being told that something below a folder changed.
//!
//! The port only reports; it does not decide what matters. Filtering (the generated folder the
//! index writes into) and debouncing are the application's, so they can be tested without a
//! real filesystem.

use std::path::{Path, PathBuf};

/// What a watcher reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WatchEvent {
    /// These paths (absolute, below the watched folder) were created, changed, renamed or removed.
    Changed(Vec<PathBuf>),
    /// The watcher lost track (a queue overflowed, a folder could not be watched): anything may
    /// have changed. The text says what happened, for a log line.
    Lost(String),
    /// The watched folder is no longer the one at its path (moved, removed, or another put in
    /// its place): nothing put at the path is watched, so nothing more will be reported.
    Replaced,
}

/// Receives events on the watcher's own thread; it must not block for long.
pub type WatchSink = Box<dyn Fn(WatchEvent) + Send + Sync>;

#[derive(Debug, thiserror::Error)]
#[error("cannot watch {}: {message}", path.display())]
pub struct WatchError {
    pub path: PathBuf,
    pub message: String,
    pub kind: WatchErrorKind,
}

/// What stood in the way of a watch, for the help shown with it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WatchErrorKind {
    /// The OS's limit on watches (`fs.inotify.max_user_watches` on Linux).
    Limit,
    /// The user may not read the folder.
    Denied,
    Other,
}

/// Dropping it stops the watch.
pub trait Watching: Send {}

pub trait Watcher: Send + Sync {
    /// Watches `root` and every folder below it, including folders created later, and hands
    /// each event to `sink` until the returned guard is dropped.
    fn watch(&self, root: &Path, sink: WatchSink) -> Result<Box<dyn Watching>, WatchError>;
}

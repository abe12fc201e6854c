//! Live indexing: watch events in, one re-index per debounced batch out.
//!
//! The watcher (the `ports::watch` port) reports every change; saving one file can be a
//! handful of events, and a checkout or a script writing a thousand records is a thousand. A
//! batch closes once [`Timings::quiet`] passes without a new change, or [`Timings::max_wait`]
//! after its first change, whichever is sooner: a burst is one re-index, and a constant stream
//! still re-indexes regularly. Changes under the root's `.generated/` are ignored (the index
//! writes there), except that an output of the last index found removed there is made again.
//! The logic here is pure over an [`Events`] source and a [`Clock`], so it is
//! tested with a scripted source and a fake clock.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, mpsc};
use std::time::Duration;

use domain::graph::{DIAGNOSTICS_FILE, GRAPH_FILE, SEARCH_INDEX_FILE};
use ports::Clock;
use ports::fs::{FileKind, FileSystem, FsErrorKind};
use ports::watch::{WatchError, WatchEvent, Watcher, Watching};

use super::graph::{self, GraphError, Indexed, Progress};
use crate::graph_store::PendingRecords;

/// How long the debouncer waits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timings {
    /// A batch closes when this long passes with no new change.
    pub quiet: Duration,
    /// ...or this long after its first change, even while changes keep coming.
    pub max_wait: Duration,
}

/// 200 ms covers an editor's save (write, rename, attribute change: a few ms apart) and a
/// script writing files in a loop, while a single edit still starts its re-index soon.
pub const QUIET: Duration = Duration::from_millis(200);
/// Bounds how stale the index gets under a constant stream of changes.
pub const MAX_WAIT: Duration = Duration::from_secs(1);

impl Default for Timings {
    fn default() -> Self {
        Self { quiet: QUIET, max_wait: MAX_WAIT }
    }
}

/// What a wait on the event source gives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Received {
    Event(WatchEvent),
    /// The wait's timeout passed with nothing received.
    Timeout,
    /// Stop watching: Ctrl-C, the server ending, or the source closed.
    Stop,
}

/// Where events come from: a channel fed by the watcher in the program, a script in tests.
pub trait Events {
    /// The next event; waits at most `timeout`, or until one arrives when it is `None`.
    fn recv(&mut self, timeout: Option<Duration>) -> Received;
}

/// What the watcher's sink and a stop request send into the loop's channel.
pub type Message = Received;

impl Events for mpsc::Receiver<Message> {
    fn recv(&mut self, timeout: Option<Duration>) -> Received {
        match timeout {
            None => mpsc::Receiver::recv(self).unwrap_or(Received::Stop),
            Some(t) => match self.recv_timeout(t) {
                Ok(m) => m,
                Err(mpsc::RecvTimeoutError::Timeout) => Received::Timeout,
                Err(mpsc::RecvTimeoutError::Disconnected) => Received::Stop,
            },
        }
    }
}

/// One debounced batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Batch {
    /// How many paths changed (saving a file is several events for one path; a lost-track
    /// event counts as one).
    pub changes: usize,
    /// The watched root is no longer the folder at its path ([`WatchEvent::Replaced`]).
    pub replaced: bool,
    /// No record changed, but the index is made again: see [`Remake`].
    pub remake: Option<Remake>,
    /// A path that is not a record (`*.md`) changed: a folder, most likely, created, renamed or
    /// removed. See [`SETTLE`].
    pub moved: bool,
}

/// After a batch in which folders may have moved, the index is made again at these delays
/// (each after the one before), unless changes come first. The watcher re-adds a watch for
/// each folder renamed, and until it has, what happens inside that folder is not reported:
/// found in review, an edit made a few seconds after 3,000 folders were renamed on a 10k graph
/// was never indexed (notify re-added the watches for 6 to 11 s). An index that finds nothing
/// changed costs a walk (0.1 s at 10k records) and writes nothing.
pub const SETTLE: [Duration; 5] = [
    Duration::from_secs(1),
    Duration::from_secs(2),
    Duration::from_secs(4),
    Duration::from_secs(8),
    Duration::from_secs(16),
];

/// Why the index is made again with no record changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Remake {
    /// An output the last index left in `.generated/` is gone (the folder or a file in it
    /// removed or moved away, or replaced by a folder or a symlink).
    Removed,
    /// The last index failed, and the outputs or the generated folder are not as it left
    /// them: its mode changed (access given back), say.
    Retry,
    /// Folders moved a while ago: changes inside them may have gone unreported ([`SETTLE`]).
    Settle,
}

/// The changes of a batch being gathered: distinct paths, so one save counts once.
#[derive(Default)]
struct Gathered {
    paths: HashSet<PathBuf>,
    unnamed: usize,
    replaced: bool,
    /// An event named the generated folder itself or one of the index's outputs in it.
    outputs_touched: bool,
    /// Lost-track events: the first is logged, the others counted (a watch started with
    /// 2,000 folders it could not read logged 2,000 lines, found in review).
    lost: usize,
}

/// The files in `.generated/` whose removal is looked at: the index's outputs.
const OUTPUTS: [&str; 3] = [GRAPH_FILE, SEARCH_INDEX_FILE, DIAGNOSTICS_FILE];

impl Gathered {
    /// Adds what matters of `event` (paths outside `ignored`, the generated folder); whether
    /// anything did. A path seen before still counts as activity: it is still being written.
    /// An event for the generated folder or an output in it is noted apart.
    fn add(&mut self, event: WatchEvent, ignored: &Path) -> bool {
        match event {
            WatchEvent::Changed(paths) if paths.is_empty() => self.unnamed += 1,
            WatchEvent::Changed(paths) => {
                let mut any = false;
                for p in paths {
                    if !p.starts_with(ignored) {
                        self.paths.insert(p);
                        any = true;
                    } else if p == ignored
                        || p.parent() == Some(ignored) && p.file_name().is_some_and(|n| OUTPUTS.iter().any(|o| n == *o))
                    {
                        self.outputs_touched = true;
                    }
                }
                return any;
            }
            WatchEvent::Lost(why) => {
                if self.lost == 0 {
                    tracing::warn!("the VitaeGraph watcher lost track of changes ({why}); re-indexing");
                }
                self.lost += 1;
                self.unnamed += 1;
            }
            WatchEvent::Replaced => self.replaced = true,
        }
        true
    }

    fn batch(&self) -> Batch {
        if self.lost > 1 {
            tracing::warn!("the VitaeGraph watcher lost track {} more time(s) in the same burst", self.lost - 1);
        }
        let moved = self.lost > 0 || self.paths.iter().any(|p| p.extension().is_none_or(|e| e != "md"));
        Batch { changes: self.count(), replaced: self.replaced, remake: None, moved }
    }

    fn count(&self) -> usize {
        self.paths.len() + self.unnamed
    }
}

/// Waits for the next batch of changes outside `ignored`; `None` when told to stop (a batch
/// being gathered is then dropped: nobody is left to serve it).
///
/// Events for the index's outputs (`ignored` itself, or an output in it) start no batch: most
/// are the index's own writes. Once they have been quiet for [`Timings::quiet`], `remake`
/// says whether the index is to be made again all the same (an output the last index left is
/// gone, say); if so, that is a batch of its own ([`Batch::remake`]), so that deleting
/// `.generated/` while watching makes it again.
///
/// With `settle_at`, a batch of its own ([`Remake::Settle`]) comes at that time if no change
/// comes first.
pub fn next_batch(
    events: &mut dyn Events,
    clock: &dyn Clock,
    timings: Timings,
    ignored: &Path,
    remake: &dyn Fn() -> Option<Remake>,
    settle_at: Option<Duration>,
) -> Option<Batch> {
    let mut gathered = Gathered::default();
    // When the outputs are looked at, once their events have been quiet.
    let mut look_at: Option<Duration> = None;
    loop {
        let now = clock.monotonic();
        if settle_at.is_some_and(|at| now >= at) {
            return Some(Batch { changes: 0, replaced: false, remake: Some(Remake::Settle), moved: false });
        }
        let wake = match (look_at, settle_at) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        match events.recv(wake.map(|at| at.saturating_sub(now))) {
            Received::Event(e) => {
                if gathered.add(e, ignored) {
                    break;
                }
                if std::mem::take(&mut gathered.outputs_touched) {
                    look_at = Some(clock.monotonic() + timings.quiet);
                }
            }
            Received::Timeout => {
                if look_at.is_some_and(|at| clock.monotonic() >= at) {
                    look_at = None;
                    if let Some(why) = remake() {
                        return Some(Batch { changes: 0, replaced: false, remake: Some(why), moved: false });
                    }
                }
            }
            Received::Stop => return None,
        }
    }
    // Nothing more will come from the folder that was watched: no waiting for the burst.
    if gathered.replaced {
        return Some(gathered.batch());
    }
    let first = clock.monotonic();
    let mut last = first;
    loop {
        let close_at = (last + timings.quiet).min(first + timings.max_wait);
        let now = clock.monotonic();
        if now >= close_at || gathered.replaced {
            return Some(gathered.batch());
        }
        match events.recv(Some(close_at - now)) {
            Received::Event(e) => {
                if gathered.add(e, ignored) {
                    last = clock.monotonic();
                }
            }
            Received::Timeout => {}
            Received::Stop => return None,
        }
    }
}

/// What started an index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Trigger {
    /// The first index, when the watch starts.
    Start,
    /// A batch of this many changed paths.
    Changes(usize),
    /// An output the last index left in `.generated/` was removed.
    IndexRemoved,
    /// The last index failed, and `.generated/` changed since (access given back, say).
    Retry,
    /// Folders moved a while ago ([`SETTLE`]).
    Settle,
}

/// One re-index, for the edge to report.
#[derive(Debug)]
pub struct Reindex {
    pub trigger: Trigger,
    pub result: Result<Indexed, GraphError>,
    pub took: Duration,
}

/// The outputs the watch expects in `.generated/`: finding one removed makes it index again.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Expected {
    /// A valid graph's `graph.json`, `search-index.json` and `diagnostics.json`; expected too
    /// before any index has succeeded (the first may have failed because the folder was
    /// removed while it ran).
    #[default]
    Index,
    /// An invalid graph's `diagnostics.json` only (the other outputs were removed).
    Diagnostics,
}

impl Expected {
    /// What is expected after an index with `result`: a failed index writes nothing (a set is
    /// written whole or not at all), so what was expected still is.
    pub fn after(self, result: &Result<Indexed, GraphError>) -> Expected {
        match result {
            Ok(done) if done.validation.valid => Expected::Index,
            Ok(_) => Expected::Diagnostics,
            Err(_) => self,
        }
    }

    fn outputs(self) -> &'static [&'static str] {
        match self {
            Expected::Diagnostics => &[DIAGNOSTICS_FILE],
            Expected::Index => &OUTPUTS,
        }
    }

    /// How those outputs and `generated` itself are now: each output's kind, `None` when
    /// absent (or unreadable), and the folder's mode, stamp and modification time.
    fn state(self, fs: &dyn FileSystem, generated: &Path) -> Left {
        let outputs =
            self.outputs().iter().map(|name| fs.symlink_metadata(&generated.join(name)).ok().map(|m| m.kind)).collect();
        let meta = fs.symlink_metadata(generated).ok();
        Left {
            outputs,
            mode: fs.mode(generated).ok(),
            stamp: meta.as_ref().map(|m| m.stamp),
            modified_ns: meta.and_then(|m| m.modified_ns),
        }
    }

    /// Whether one of those outputs is not in `generated` as a file: removed, or replaced by
    /// a folder or a symlink (the re-index then says what is wrong, or puts the file back).
    fn removed_from(self, fs: &dyn FileSystem, generated: &Path) -> bool {
        self.outputs().iter().any(|name| match fs.symlink_metadata(&generated.join(name)) {
            Ok(m) => m.kind != FileKind::File,
            Err(e) => e.kind == FsErrorKind::NotFound,
        })
    }
}

/// The index's outputs and their folder as a failed index left them: only a change to them
/// (or to a record) tries again.
#[derive(Debug, Clone)]
struct Left {
    outputs: Vec<Option<FileKind>>,
    mode: Option<u32>,
    stamp: Option<u128>,
    modified_ns: Option<i64>,
}

impl Left {
    /// Whether `now` differs in what access or the outputs depend on: an output's kind, the
    /// folder's mode, or its metadata alone (its change time moved, its modification time did
    /// not: a `chown`, found in review). A name made or removed in the folder moves both and
    /// is not a change here: a failed run of another watcher does that, and two failing
    /// watchers of one graph would otherwise take turns for ever.
    fn differs(&self, now: &Left) -> bool {
        self.outputs != now.outputs
            || self.mode != now.mode
            || (self.stamp != now.stamp && self.modified_ns == now.modified_ns)
    }
}

/// The folder whose changes are ignored: where `graph::index` writes.
pub fn generated_dir(root: &Path) -> PathBuf {
    root.join(domain::graph::GENERATED_DIR)
}

/// Re-indexes `root` (with `index`) once per batch until told to stop, handing each outcome to
/// `report`. The first full index is the caller's (it reports it its own way): `expected` is
/// what it left, and `first_failed` whether it failed. A failed re-index (an invalid graph, an unreadable file) is reported and the watch goes on:
/// the next edit may fix it. A removed index is made again once: if that fails, a removal
/// starts nothing more until the outputs are otherwise than the failure left them (the folder
/// in a file's place moved away, say), an index succeeds or a record changes. Any failed index
/// whose outputs are in place is tried again once the outputs or `.generated/` itself change
/// (its mode: access given back, found in review); a failure whose outputs are gone is the
/// removal's case. A failed index writes nothing (a set lands whole or not at all), so a
/// failure that keeps touching the outputs cannot become a loop.
#[allow(clippy::too_many_arguments)]
fn reindex_with(
    fs: &dyn FileSystem,
    clock: &dyn Clock,
    root: &Path,
    events: &mut dyn Events,
    timings: Timings,
    (mut expected, first_failed): (Expected, bool),
    index: &mut dyn FnMut() -> Result<Indexed, GraphError>,
    report: &mut dyn FnMut(Reindex),
) -> Ended {
    let ignored = generated_dir(root);
    // After a failed index: the outputs and their folder as it left them.
    let failed = |failed: bool, remade: bool, expected: Expected| {
        (failed && (remade || !expected.removed_from(fs, &ignored))).then(|| expected.state(fs, &ignored))
    };
    let mut failed_with = failed(first_failed, false, expected);
    // The next settling index ([`SETTLE`]): when, and which delay of the list it is.
    let mut settle: Option<(Duration, usize)> = None;
    while let Some(batch) = next_batch(
        events,
        clock,
        timings,
        &ignored,
        &|| {
            let removed = expected.removed_from(fs, &ignored).then_some(Remake::Removed);
            match &failed_with {
                None => removed,
                Some(was) if was.differs(&expected.state(fs, &ignored)) => removed.or(Some(Remake::Retry)),
                Some(_) => None,
            }
        },
        settle.map(|(at, _)| at),
    ) {
        if batch.replaced {
            tracing::warn!(
                "{} is no longer the folder that was watched (moved, removed or replaced); live indexing stops",
                root.display()
            );
            return Ended::RootGone;
        }
        let start = clock.monotonic();
        let result = index();
        let gone = matches!(result, Err(GraphError::NoRoot(_)));
        expected = expected.after(&result);
        failed_with = failed(result.is_err(), batch.remake.is_some(), expected);
        let trigger = match batch.remake {
            Some(Remake::Removed) => Trigger::IndexRemoved,
            Some(Remake::Retry) => Trigger::Retry,
            Some(Remake::Settle) => Trigger::Settle,
            None => Trigger::Changes(batch.changes),
        };
        let done = clock.monotonic();
        settle = match (batch.moved, batch.remake, settle) {
            (true, _, _) => Some((done + SETTLE[0], 0)),
            (_, Some(Remake::Settle), Some((_, k))) => SETTLE.get(k + 1).map(|d| (done + *d, k + 1)),
            (_, _, kept) => kept,
        };
        report(Reindex { trigger, result, took: clock.monotonic().saturating_sub(start) });
        if gone {
            return Ended::RootGone;
        }
    }
    Ended::Stopped
}

/// Why live indexing ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    /// A [`Stopper`] asked, or the watcher went away.
    Stopped,
    /// The root is no longer at its path (moved or removed), or another folder was put there:
    /// what is watched is the folder that was there, so nothing at the path would be indexed.
    RootGone,
}

/// Live indexing running on its own thread (indexing blocks: it reads every record and uses
/// every core, so it never runs on an async runtime's workers).
pub struct Live {
    stop: Stopper,
    thread: std::thread::JoinHandle<Ended>,
    /// The watch, when [`start`] set it up; [`start_in_background`]'s thread holds its own.
    _watching: Option<Box<dyn Watching>>,
}

impl std::fmt::Debug for Live {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Live").finish_non_exhaustive()
    }
}

/// Asks a [`Live`] to stop; a re-index under way finishes first, so `.generated/` is never
/// left with staged temporaries. A stop asked while the watch is still being set up
/// ([`start_in_background`]) starts no index.
#[derive(Debug, Clone)]
pub struct Stopper {
    tx: mpsc::Sender<Message>,
    stopped: Arc<AtomicBool>,
}

impl Stopper {
    pub fn stop(&self) {
        self.stopped.store(true, Ordering::SeqCst);
        // Already stopped: nothing to do.
        let _ = self.tx.send(Received::Stop);
    }

    fn stopped(&self) -> bool {
        self.stopped.load(Ordering::SeqCst)
    }
}

impl Live {
    pub fn stopper(&self) -> Stopper {
        self.stop.clone()
    }

    /// Waits until a [`Stopper`] has stopped it, or the root is gone.
    pub fn join(self) -> Ended {
        self.thread.join().unwrap_or_else(|_| {
            tracing::error!("the VitaeGraph watch thread panicked");
            Ended::Stopped
        })
    }

    /// Stops it and waits for the re-index under way, if any.
    pub fn stop(self) -> Ended {
        self.stop.stop();
        self.join()
    }
}

/// What [`start`] needs besides the watcher.
pub struct LiveIndex {
    pub fs: Arc<dyn FileSystem>,
    pub clock: Arc<dyn Clock>,
    pub root: PathBuf,
    pub timings: Timings,
    pub progress: Box<dyn Progress + Send>,
    /// Called after every index: the first ([`Trigger::Start`]), then one per batch.
    pub report: Box<dyn FnMut(Reindex) + Send>,
    /// A server's records changed since the index: with it, each change is read into it at
    /// once ([`pending::follow`], [`start_in_background`] only), and each index run that
    /// lands settles what it read.
    pub pending: Option<Arc<PendingRecords>>,
    /// What makes each index, when not `graph::index` in this process (the server runs it in
    /// a child process).
    pub index: Option<Indexer>,
}

/// Makes one index of the watched root.
pub type Indexer = Box<dyn Fn() -> Result<Indexed, GraphError> + Send>;

impl std::fmt::Debug for LiveIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LiveIndex").field("root", &self.root).field("timings", &self.timings).finish_non_exhaustive()
    }
}

/// The channel the watcher's sink and a [`Stopper`] feed.
fn channel() -> (Stopper, mpsc::Receiver<Message>) {
    let (tx, rx) = mpsc::channel::<Message>();
    (Stopper { tx, stopped: Arc::new(AtomicBool::new(false)) }, rx)
}

/// The sink that hands the watcher's events to the loop, and to `also` (the pending records'
/// reader) when there is one.
fn sink(stop: &Stopper, also: Option<mpsc::Sender<WatchEvent>>) -> ports::watch::WatchSink {
    let sink = stop.tx.clone();
    Box::new(move |event| {
        // A reader that has ended needs nothing more; neither does a loop that has.
        if let Some(also) = &also {
            let _ = also.send(event.clone());
        }
        let _ = sink.send(Received::Event(event));
    })
}

/// The first index, then one per batch until stopped. Each index run that succeeds settles the
/// pending records put before it started: it read them as they were then, or later.
fn run(live: LiveIndex, mut rx: mpsc::Receiver<Message>) -> Ended {
    let LiveIndex { fs, clock, root, timings, progress, mut report, pending, index: indexer } = live;
    let mut index = || {
        let mark = pending.as_ref().map(|p| p.mark());
        let result = match &indexer {
            Some(made) => made(),
            None => graph::index(&*fs, &*clock, &root, &*progress),
        };
        if let (Some(p), Some(mark), Ok(_)) = (&pending, mark, &result) {
            p.settle(mark);
        }
        result
    };
    let start = clock.monotonic();
    let result = index();
    let (expected, failed) = (Expected::default().after(&result), result.is_err());
    report(Reindex { trigger: Trigger::Start, result, took: clock.monotonic().saturating_sub(start) });
    let ended = reindex_with(&*fs, &*clock, &root, &mut rx, timings, (expected, failed), &mut index, &mut *report);
    // What was read from the folder watched is no one's now: the folder at the root's path
    // may be another.
    if let Some(p) = &pending {
        p.clear();
    }
    ended
}

fn spawn(
    path: &Path,
    body: impl FnOnce() -> Ended + Send + 'static,
) -> Result<std::thread::JoinHandle<Ended>, WatchError> {
    std::thread::Builder::new().name("graph-watch".into()).spawn(body).map_err(|e| WatchError {
        path: path.to_path_buf(),
        message: format!("could not start a thread: {e}"),
        kind: ports::watch::WatchErrorKind::Other,
    })
}

/// Starts watching `root`, then indexes it once and again after every batch of changes, on a
/// thread of its own. The watch starts before the first index, so an edit made while it runs
/// is not missed. Returns once the watch is set up (its error is the caller's to report:
/// `graph index --watch` says how to raise the system's limit).
pub fn start(watcher: &dyn Watcher, live: LiveIndex) -> Result<Live, WatchError> {
    let (stop, rx) = channel();
    let watching = watcher.watch(&live.root, sink(&stop, None))?;
    let path = live.root.clone();
    let thread = spawn(&path, move || run(live, rx))?;
    Ok(Live { stop, thread, _watching: Some(watching) })
}

/// [`start`] for a server, which must answer at once: the watch is set up on the thread too
/// (a recursive watch adds one per folder, 1.3 s at 100,000 records, found when `initialize`
/// waited for it), then `before_first` runs there, then the first index. Until the watch is
/// set up, requests are served from the index on disk. A watch that cannot be set up is
/// handed to `failed` on the thread, and nothing is indexed, as when [`start`] fails; a stop
/// asked meanwhile starts no index.
///
/// `background` runs first on that thread, before the watch is set up: the server waits there
/// for its first answer to be out (see `mcp/first_answer.rs`), so that setting the watch up
/// and the first index do not take turns with it on the cores. The pending records' reader is
/// started at once: it only waits for the watch's events.
pub fn start_in_background(
    watcher: Arc<dyn Watcher>,
    live: LiveIndex,
    background: Box<dyn FnOnce() + Send>,
    before_first: Box<dyn FnOnce() + Send>,
    failed: Box<dyn FnOnce(WatchError) + Send>,
) -> Result<Live, WatchError> {
    let (stop, rx) = channel();
    let (stopper, path) = (stop.clone(), live.root.clone());
    // The pending records' reader, on a thread of its own: an edit is searchable while an
    // index run is under way, not only once it has finished.
    let also = match &live.pending {
        Some(pending) => {
            let (tx, events) = mpsc::channel();
            let (fs, root, pending) = (Arc::clone(&live.fs), live.root.clone(), Arc::clone(pending));
            let wait = pending::timings(live.timings);
            std::thread::Builder::new()
                .name("graph-pending".into())
                .spawn(move || pending::follow(fs, root, events, pending, wait))
                .map_err(|e| WatchError {
                    path: path.clone(),
                    message: format!("could not start a thread: {e}"),
                    kind: ports::watch::WatchErrorKind::Other,
                })?;
            Some(tx)
        }
        None => None,
    };
    let thread = spawn(&path, move || {
        background();
        let watching = match watcher.watch(&live.root, sink(&stopper, also)) {
            Ok(w) => w,
            Err(e) => {
                failed(e);
                return Ended::Stopped;
            }
        };
        tracing::info!("VitaeGraph: watching {} for changes", live.root.display());
        if stopper.stopped() {
            return Ended::Stopped;
        }
        before_first();
        let ended = run(live, rx);
        drop(watching);
        ended
    })?;
    Ok(Live { stop, thread, _watching: None })
}

pub mod pending;

#[cfg(test)]
mod tests;

//! `mcp --watch`: the server keeps the VitaeGraph's index current while it serves.
//!
//! Indexing runs on a thread of its own (never on the runtime's two workers, which answer
//! requests) and reports through tracing on stderr only: stdout carries JSON-RPC frames. The
//! `GraphStore` sees new generated files by their stamps on the next request; before that, a
//! changed record is searched from the store's pending records, which a second thread fills as
//! changes are reported (`usecase::watch::pending`). Clients are told through the file
//! poller, asked to look at once after each index, so `resources/updated` for
//! `vitaegraph://index` (and `resources/list_changed`) are sent once, by the one component
//! that decides what changed.

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use ports::watch::{WatchError, Watcher};

use super::methods::{CheckNow, Taken};
use crate::graph_store::PendingRecords;
use crate::usecase::graph::{self, GraphError, Indexed, Progress, Summary};
use crate::usecase::watch::{self, Indexer, Live, LiveIndex, Reindex, Timings, Trigger};

/// Skipped files go to the log; progress does not.
struct Log;

impl Progress for Log {
    fn update(&self, _: usize, _: usize, _: Duration) {}

    fn skipped(&self, path: &std::path::Path, why: &str) {
        tracing::warn!("graph index: skipped {}: {why}", path.display());
    }

    fn waiting(&self, root: &std::path::Path) {
        tracing::info!("graph index: waiting for another index of {} to finish", root.display());
    }
}

fn log(r: &Reindex) {
    let trigger = match r.trigger {
        Trigger::Start => "at start".to_string(),
        Trigger::Changes(n) => format!("after {n} change(s)"),
        Trigger::IndexRemoved => "after its index was removed".to_string(),
        Trigger::Retry => "after .generated/ changed since the failed index".to_string(),
        Trigger::Settle => "to catch changes inside folders that moved".to_string(),
    };
    match &r.result {
        Ok(done) if done.validation.valid => {
            let kept = if done.written { "" } else { " (already current: no output written)" };
            tracing::info!("VitaeGraph indexed {trigger}: {} node(s) in {:.1?}{kept}", done.nodes, r.took);
        }
        Ok(done) => tracing::warn!(
            "VitaeGraph index {trigger}: invalid, {} error(s), {} warning(s); search serves no records until \
             they are fixed (run `vitaecontext graph validate` to see them)",
            done.validation.errors.len(),
            done.validation.warnings.len()
        ),
        // Live indexing ends there (`watch::Ended::RootGone`): what is watched is the folder
        // that was at the path.
        Err(e @ GraphError::NoRoot(_)) => tracing::warn!(
            "VitaeGraph index {trigger} failed: {e}; it was moved or removed, so the server stops following \
             changes (restart it once the graph is back)"
        ),
        Err(e) => tracing::warn!("VitaeGraph index {trigger} failed: {e}"),
    }
}

/// The program to run `graph index` with: this very binary (Linux's `/proc/self/exe` still
/// names it when an upgrade has replaced the file at its path, whose caches' formats may
/// differ), else its path.
fn this_program() -> Option<PathBuf> {
    let proc = Path::new("/proc/self/exe");
    if proc.exists() {
        return Some(proc.to_path_buf());
    }
    std::env::current_exe().ok()
}

/// Makes each index in a child process, `vitaecontext graph index --summary-json`: the run's
/// memory (its peak is hundreds of MB at 100,000 records, and an allocator keeps much of it
/// once freed) is the child's and goes back to the system when it ends, and a crash in it is
/// not the server's. The child has a process group of its own, so a Ctrl-C at the terminal
/// reaches the server, which lets the run finish, and not the run itself; its stdout is the
/// summary (never the server's stdout, which carries JSON-RPC only), its stderr goes to the
/// server's log. Where no child can be started, the index is made in this process.
fn in_child(root: PathBuf) -> Indexer {
    let program = this_program();
    Box::new(move || {
        let Some(program) = &program else { return in_process(&root) };
        let mut command = std::process::Command::new(program);
        command
            .args(["graph", "index", "--summary-json", "--root"])
            .arg(&root)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        let mut child = match command.spawn() {
            Ok(child) => child,
            Err(e) => {
                tracing::warn!("could not start {} to index ({e}): indexing in the server", program.display());
                return in_process(&root);
            }
        };
        tracing::debug!(pid = child.id(), "graph index: running in a child process");
        let forward = child.stderr.take().map(|stderr| std::thread::spawn(move || forward_log(stderr)));
        let mut said = String::new();
        if let Some(mut stdout) = child.stdout.take() {
            let _ = stdout.read_to_string(&mut said);
        }
        let status = child.wait();
        if let Some(forward) = forward {
            let _ = forward.join();
        }
        match said.lines().last().map(serde_json::from_str::<Summary>) {
            Some(Ok(summary)) => summary.into_result(&root),
            _ => Err(GraphError::Reported(format!(
                "the index process ended ({}) without saying how the run went",
                status.map_or_else(|e| e.to_string(), |s| s.to_string())
            ))),
        }
    })
}

/// The child's stderr into the server's log, line by line: its progress at debug, anything
/// else (a skipped file, a warning of its own) as a warning, as if the server had said it.
/// Read as bytes to its end whatever they hold, so the child never blocks on a full pipe.
fn forward_log(stderr: impl Read) {
    let mut reader = BufReader::new(stderr);
    let mut line = Vec::new();
    loop {
        line.clear();
        match reader.read_until(b'\n', &mut line) {
            Ok(0) => return,
            Ok(_) => {
                let text = String::from_utf8_lossy(&line);
                let text = text.trim_end();
                if text.is_empty() {
                    continue;
                }
                let text = text.strip_prefix("graph: ").unwrap_or(text);
                if text.contains(" files read (") {
                    tracing::debug!("graph index: {text}");
                } else {
                    tracing::warn!("graph index: {text}");
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => {
                let _ = std::io::copy(&mut reader, &mut std::io::sink());
                return;
            }
        }
    }
}

fn in_process(root: &Path) -> Result<Indexed, GraphError> {
    graph::index(&fs_std::StdFs::new(), &fs_std::SystemClock::default(), root, &Log)
}

/// Starts live indexing of `root` in the background and returns at once: `initialize` is not
/// held up by the watch being set up, nor by the first index (requests meanwhile are served
/// from the index on disk). That index waits for `taken` (the poller's look at graph.json
/// before it). `None` (with a warning) when no thread could be started; a watch that cannot be
/// set up is a warning too, and the server then serves whatever index is there.
pub fn start(
    watcher: Arc<dyn Watcher>,
    fs: fs_std::StdFs,
    root: PathBuf,
    timings: Timings,
    check_now: Option<(CheckNow, Taken)>,
    pending: Arc<PendingRecords>,
    first: Arc<super::first_answer::FirstAnswer>,
) -> Option<Live> {
    let (check_now, taken) = check_now.unzip();
    let root_for_child = root.clone();
    let report = move |r: Reindex| {
        log(&r);
        if let Some(check) = &check_now {
            check.check();
        }
    };
    let live = LiveIndex {
        fs: Arc::new(fs),
        clock: Arc::new(fs_std::SystemClock::default()),
        root,
        timings,
        progress: Box::new(Log),
        report: Box::new(report),
        pending: Some(pending),
        index: Some(in_child(root_for_child)),
    };
    let warn = |e: &WatchError| tracing::warn!("--watch: the index will not follow changes: {e}");
    watch::start_in_background(
        watcher,
        live,
        Box::new(move || first.wait(super::first_answer::FirstAnswer::MAX_WAIT)),
        Box::new(move || taken.into_iter().for_each(Taken::wait)),
        Box::new(move |e| warn(&e)),
    )
    .inspect_err(warn)
    .ok()
}

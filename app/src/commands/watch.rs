//! `vitaecontext graph index --watch`: index, then re-index after every batch of changes until
//! Ctrl-C, one line on stderr per index.

use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;

use ports::Clock;
use ports::fs::{FileKind, FileSystem, FsErrorKind};
use ports::watch::{WatchErrorKind, Watcher};

use super::graph::{graph_failure, render_findings, root};
use super::{Failure, Outcome, err};
use crate::sources::Sources;
use crate::usecase::graph::{GraphError, Progress};
use crate::usecase::watch::{self as usecase, Ended, LiveIndex, Reindex, Stopper, Timings, Trigger};

/// Re-indexes report skipped files only: a progress line every 5,000 files on every edit would
/// drown the one line that matters.
struct Skips;

impl Progress for Skips {
    fn update(&self, _: usize, _: usize, _: std::time::Duration) {}

    fn skipped(&self, path: &Path, why: &str) {
        err(&format!("warning: skipped {}: {why}\n", path.display()));
    }

    fn waiting(&self, root: &Path) {
        err(&format!("graph: waiting for another index of {} to finish\n", root.display()));
    }
}

pub fn index(
    fs: Arc<dyn FileSystem>,
    clock: Arc<dyn Clock>,
    watcher: &dyn Watcher,
    sources: &Sources,
    timings: Timings,
) -> Outcome {
    let root = root(sources)?;
    match fs.metadata(&root) {
        Err(e) if e.kind == FsErrorKind::NotFound => return Err(graph_failure(GraphError::NoRoot(root))),
        Ok(m) if m.kind != FileKind::Dir => return Err(graph_failure(GraphError::NotADir(root))),
        _ => {}
    }
    let report = {
        let (fs, root) = (Arc::clone(&fs), root.clone());
        // Findings are shown in full at start and when the graph is invalid; a valid re-index
        // only counts its warnings, so a graph with many stays one line per edit.
        move |r: Reindex| {
            // A settling index that found nothing to write says nothing: it is a check.
            if r.trigger == Trigger::Settle && r.result.as_ref().is_ok_and(|d| !d.written && d.validation.valid) {
                return;
            }
            if let Ok(done) = &r.result
                && (r.trigger == Trigger::Start || !done.validation.valid)
                && !(done.validation.errors.is_empty() && done.validation.warnings.is_empty())
            {
                err(&render_findings(&*fs, &root, &done.validation));
            }
            err(&format!("{}\n", describe(&r)));
        }
    };
    let live = usecase::start(
        watcher,
        LiveIndex {
            fs,
            clock,
            root: root.clone(),
            timings,
            progress: Box::new(Skips),
            report: Box::new(report),
            pending: None,
            index: None,
        },
    )
    .map_err(|e| {
        Failure::failed(match e.kind {
            WatchErrorKind::Limit => miette::miette!(
                help = "the system's limit on watched folders was reached: on Linux, raise fs.inotify.max_user_watches \
                        (sysctl)",
                "{e}"
            ),
            // Found in review: a root the user may not read got the watch-limit hint.
            WatchErrorKind::Denied => {
                miette::miette!(help = "give your user read and search access to the folder (chmod u+rx)", "{e}")
            }
            WatchErrorKind::Other => miette::miette!("{e}"),
        })
    })?;
    err(&format!("graph: watching {} for changes (Ctrl-C to stop)\n", root.display()));
    stop_on_signal(live.stopper());
    match live.join() {
        Ended::Stopped => {
            err("graph: stopped watching\n");
            Ok(ExitCode::SUCCESS)
        }
        // What is watched is the folder that was at the path: nothing put there later would
        // ever be indexed, so the watch ends rather than go on silently.
        Ended::RootGone => Err(Failure::failed(miette::miette!(
            help = "run `vitaecontext graph index --watch` again once the graph is back at its path",
            "stopped watching: the VitaeGraph root {} was moved, removed or replaced",
            root.display()
        ))),
    }
}

/// The one line said about an index: what triggered it, what came of it, how long it took.
pub fn describe(r: &Reindex) -> String {
    let what = match r.trigger {
        Trigger::Start => "graph: indexed at start".to_string(),
        Trigger::Changes(1) => "graph: re-indexed after 1 change".to_string(),
        Trigger::Changes(n) => format!("graph: re-indexed after {n} changes"),
        Trigger::IndexRemoved => "graph: re-indexed after its index was removed".to_string(),
        Trigger::Retry => "graph: re-indexed after .generated/ changed since the failed index".to_string(),
        Trigger::Settle => "graph: re-indexed to catch changes inside folders that moved".to_string(),
    };
    let took = format!("{:.1?}", r.took);
    match &r.result {
        Ok(done) if done.validation.valid => {
            let warnings = match done.validation.warnings.len() {
                0 => String::new(),
                n => format!(", {n} warning(s)"),
            };
            let kept = if done.written { "" } else { " (already current: no output written)" };
            format!("{what}: {} node(s){warnings} in {took}{kept}", done.nodes)
        }
        Ok(done) => format!(
            "{what}: invalid, {} error(s), {} warning(s); wrote only {} ({took}); still watching",
            done.validation.errors.len(),
            done.validation.warnings.len(),
            done.generated.join(domain::graph::DIAGNOSTICS_FILE).display()
        ),
        // The watch ends there (see `index`).
        Err(e @ GraphError::NoRoot(_)) => format!("{what}: failed: {e} ({took})"),
        Err(e) => format!("{what}: failed: {e} ({took}); still watching"),
    }
}

/// The first Ctrl-C (or SIGTERM) stops after the re-index under way (so `.generated/` is
/// left whole); a second one quits at once.
fn stop_on_signal(stopper: Stopper) {
    let spawned = std::thread::Builder::new().name("signals".into()).spawn(move || {
        let Ok(runtime) = tokio::runtime::Builder::new_current_thread().enable_all().build() else {
            return;
        };
        runtime.block_on(async {
            let mut signals = crate::signals::Signals::listen();
            let signal = signals.next().await;
            err(&format!("graph: stopping ({signal} again to quit at once)\n"));
            stopper.stop();
            signals.quit_on_next().await;
        });
    });
    if let Err(e) = spawned {
        tracing::warn!("Ctrl-C will end the watch abruptly: {e}");
    }
}

//! Logs go to stderr, never stdout: stdout belongs to the protocol.

use std::io::IsTerminal;

use tracing_subscriber::EnvFilter;

use crate::cli::LogLevel;

/// The target of the one line the server logs at start (what it serves, chosen by which rule):
/// shown at the default level, which otherwise keeps to warnings and errors.
pub const STARTUP: &str = "vitaecontext::startup";

/// How many log lines wait for stderr before new ones are dropped (in [`Delivery::Lossy`]).
const QUEUED_LINES: usize = 4096;

/// How long a line waits for room in a full queue before it is dropped, while the writer is
/// still making progress; once a wait ran out, lines are dropped at once until it writes again.
const PATIENCE: std::time::Duration = std::time::Duration::from_millis(50);

/// How the log reaches stderr.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Delivery {
    /// Written by the thread that logs: a command's lines stay in order with its reports.
    Direct,
    /// Queued for a writer thread, and dropped (then counted on stderr) when the queue is
    /// full: the server must never stop answering because nobody reads its stderr (found in
    /// review: a client that piped stderr and never read it got no more answers once 64 KB of
    /// warnings about refused reads had filled the pipe).
    Lossy,
}

static QUEUE: std::sync::OnceLock<std::sync::mpsc::SyncSender<Vec<u8>>> = std::sync::OnceLock::new();
static DROPPED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
static WRITTEN: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
static QUEUED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
/// `WRITTEN` plus one when a wait for room ran out (0: the writer keeps up).
static STALLED_AT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// One log line's writer in [`Delivery::Lossy`]: the line is queued whole, or dropped.
struct Queued(Vec<u8>);

impl std::io::Write for Queued {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Drop for Queued {
    fn drop(&mut self) {
        use std::sync::atomic::Ordering::SeqCst;
        let line = std::mem::take(&mut self.0);
        if line.is_empty() {
            return;
        }
        let Some(queue) = QUEUE.get() else { return };
        let mut line = match queue.try_send(line) {
            Ok(()) => {
                QUEUED.fetch_add(1, SeqCst);
                return;
            }
            Err(std::sync::mpsc::TrySendError::Full(line)) => line,
            Err(std::sync::mpsc::TrySendError::Disconnected(_)) => return,
        };
        // A burst faster than stderr takes it (thousands of warnings at start-up, stderr a
        // file): wait a little. A stderr nobody reads: wait once, then drop until it moves
        // (found in review: a burst lost lines although stderr was a file).
        let stalled = STALLED_AT.load(SeqCst);
        if stalled == 0 || WRITTEN.load(SeqCst) + 1 > stalled {
            let start = std::time::Instant::now();
            while start.elapsed() < PATIENCE {
                std::thread::sleep(std::time::Duration::from_millis(1));
                match queue.try_send(line) {
                    Ok(()) => {
                        QUEUED.fetch_add(1, SeqCst);
                        STALLED_AT.store(0, SeqCst);
                        return;
                    }
                    Err(std::sync::mpsc::TrySendError::Full(back)) => line = back,
                    Err(std::sync::mpsc::TrySendError::Disconnected(_)) => return,
                }
            }
            STALLED_AT.store(WRITTEN.load(SeqCst) + 1, SeqCst);
        }
        drop(line);
        DROPPED.fetch_add(1, SeqCst);
    }
}

/// Starts the writer thread of [`Delivery::Lossy`].
fn start_writer() {
    use std::io::Write;
    use std::sync::atomic::Ordering::SeqCst;
    let (tx, rx) = std::sync::mpsc::sync_channel::<Vec<u8>>(QUEUED_LINES);
    if QUEUE.set(tx).is_err() {
        return;
    }
    let _ = std::thread::Builder::new().name("stderr-log".into()).spawn(move || {
        let mut err = std::io::stderr();
        for line in rx {
            let dropped = DROPPED.swap(0, SeqCst);
            if dropped > 0 {
                let _ = writeln!(err, "({dropped} log line(s) dropped: stderr was not read fast enough)");
            }
            let _ = err.write_all(&line);
            WRITTEN.fetch_add(1, SeqCst);
        }
    });
}

/// Waits, at most `patience`, for the queued log lines to be written (at exit).
pub fn flush(patience: std::time::Duration) {
    use std::sync::atomic::Ordering::SeqCst;
    let start = std::time::Instant::now();
    while WRITTEN.load(SeqCst) < QUEUED.load(SeqCst) && start.elapsed() < patience {
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
}

/// `--log-level` wins over `RUST_LOG`; with neither, warnings and errors only, plus the
/// start-up line.
pub fn init(level: Option<LogLevel>, delivery: Delivery) {
    let filter = match level {
        Some(level) => EnvFilter::new(match level {
            LogLevel::Off => "off",
            LogLevel::Error => "error",
            LogLevel::Warn => "warn",
            LogLevel::Info => "info",
            LogLevel::Debug => "debug",
            LogLevel::Trace => "trace",
        }),
        None => EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(format!("warn,{STARTUP}=info"))),
    };
    let fmt =
        tracing_subscriber::fmt().with_env_filter(filter).with_ansi(std::io::stderr().is_terminal()).with_target(false);
    let _ = match delivery {
        Delivery::Direct => fmt.with_writer(std::io::stderr).try_init(),
        Delivery::Lossy => {
            start_writer();
            fmt.with_writer(|| Queued(Vec::new())).try_init()
        }
    };
}

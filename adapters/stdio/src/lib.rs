//! The transport port over byte streams (stdin and stdout for `vitaecontext mcp`).
//!
//! Framing is newline-delimited and done on raw bytes, so a line of invalid UTF-8 is one bad
//! frame, not a dead reader. Reading and writing each run on a dedicated OS thread: blocking
//! stdin must not hold up the async runtime, and the process can exit while a read is pending.

mod framer;

use std::io::{Read, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use async_trait::async_trait;
use ports::transport::{Frame, FrameSink, FrameSource, SinkClosed};
use tokio::sync::{mpsc, oneshot, watch};

use framer::LineFramer;

/// The default cap on one frame: 10 MiB.
pub const DEFAULT_MAX_FRAME_BYTES: usize = 10 * 1024 * 1024;

/// How many decoded frames may wait for the server before the reader stops reading.
const READ_AHEAD_FRAMES: usize = 256;

/// Frames read from a byte stream by a background thread.
#[derive(Debug)]
pub struct StreamSource {
    rx: mpsc::Receiver<Frame>,
}

impl StreamSource {
    /// Starts reading `input` on its own thread, splitting it into frames of at most
    /// `max_frame_bytes`.
    pub fn spawn<R: Read + Send + 'static>(input: R, max_frame_bytes: usize) -> Self {
        let (tx, rx) = mpsc::channel(READ_AHEAD_FRAMES);
        std::thread::Builder::new()
            .name("vitaecontext-reader".into())
            .spawn(move || read_loop(input, max_frame_bytes, &tx))
            .expect("the OS refused to start the reader thread");
        Self { rx }
    }
}

fn read_loop<R: Read>(mut input: R, max_frame_bytes: usize, tx: &mpsc::Sender<Frame>) {
    let mut framer = LineFramer::new(max_frame_bytes);
    let mut buf = vec![0u8; 64 * 1024];
    let mut frames = Vec::new();
    loop {
        let n = match input.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            // A read error ends input just like EOF: the server then finishes what it owes.
            Err(_) => break,
        };
        framer.push(&buf[..n], &mut frames);
        for frame in frames.drain(..) {
            if tx.blocking_send(frame).is_err() {
                return;
            }
        }
    }
    if let Some(frame) = framer.finish() {
        let _ = tx.blocking_send(frame);
    }
}

#[async_trait]
impl FrameSource for StreamSource {
    async fn next_frame(&mut self) -> Option<Frame> {
        self.rx.recv().await
    }
}

enum Command {
    Frame(Vec<u8>),
    Flush(oneshot::Sender<Result<(), SinkClosed>>),
}

/// Frames written to a byte stream by a background thread, each whole and flushed.
#[derive(Debug)]
pub struct StreamSink {
    tx: mpsc::UnboundedSender<Command>,
    closed: Arc<AtomicBool>,
    closed_rx: watch::Receiver<bool>,
}

impl std::fmt::Debug for Command {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Command::Frame(b) => write!(f, "Frame({} bytes)", b.len()),
            Command::Flush(_) => f.write_str("Flush"),
        }
    }
}

impl StreamSink {
    pub fn spawn<W: Write + Send + 'static>(output: W) -> Self {
        let (tx, rx) = mpsc::unbounded_channel();
        let closed = Arc::new(AtomicBool::new(false));
        let (closed_tx, closed_rx) = watch::channel(false);
        let flag = Arc::clone(&closed);
        std::thread::Builder::new()
            .name("vitaecontext-writer".into())
            .spawn(move || {
                write_loop(output, rx);
                flag.store(true, Ordering::SeqCst);
                let _ = closed_tx.send(true);
            })
            .expect("the OS refused to start the writer thread");
        Self { tx, closed, closed_rx }
    }
}

/// Writes until the output fails or every sender is gone. On failure, pending flush requests
/// are answered with `SinkClosed` as their senders drop.
fn write_loop<W: Write>(mut output: W, mut rx: mpsc::UnboundedReceiver<Command>) {
    while let Some(cmd) = rx.blocking_recv() {
        match cmd {
            Command::Frame(mut bytes) => {
                bytes.push(b'\n');
                // One write_all of the whole line: frames never interleave or split.
                if output.write_all(&bytes).and_then(|()| output.flush()).is_err() {
                    return;
                }
            }
            Command::Flush(done) => {
                let _ = done.send(output.flush().map_err(|_| SinkClosed));
            }
        }
    }
}

#[async_trait]
impl FrameSink for StreamSink {
    async fn send(&self, frame: Vec<u8>) -> Result<(), SinkClosed> {
        if self.closed.load(Ordering::SeqCst) {
            return Err(SinkClosed);
        }
        self.tx.send(Command::Frame(frame)).map_err(|_| SinkClosed)
    }

    async fn flush(&self) -> Result<(), SinkClosed> {
        let (done_tx, done_rx) = oneshot::channel();
        self.tx.send(Command::Flush(done_tx)).map_err(|_| SinkClosed)?;
        done_rx.await.unwrap_or(Err(SinkClosed))
    }

    async fn closed(&self) {
        let mut rx = self.closed_rx.clone();
        let _ = rx.wait_for(|closed| *closed).await;
    }
}

/// The transport of `vitaecontext mcp`: frames from stdin, frames to stdout.
pub fn stdio(max_frame_bytes: usize) -> (StreamSource, StreamSink) {
    (StreamSource::spawn(std::io::stdin(), max_frame_bytes), StreamSink::spawn(std::io::stdout()))
}

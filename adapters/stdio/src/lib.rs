//! The transport port over byte streams (stdin and stdout for `vitaecontext mcp`).
//!
//! Framing is newline-delimited and done on raw bytes, so a line of invalid UTF-8 is one bad
//! frame, not a dead reader. Reading and writing each run on a dedicated OS thread: blocking
//! stdin must not hold up the async runtime, and the process can exit while a read is pending.
//!
//! Both directions are bounded. The reader stops reading when [`READ_AHEAD_FRAMES`] frames wait
//! for the server; the sink holds at most [`DEFAULT_QUEUE_BYTES`] of frames for the writer, and
//! `send` waits for room, so a client that does not read its stdout slows the server down
//! instead of growing its memory.

#![forbid(unsafe_code)]

mod framer;

use std::io::{Read, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use async_trait::async_trait;
use ports::transport::{Frame, FrameSink, FrameSource, SinkClosed};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc, oneshot, watch};

use framer::LineFramer;

/// The default cap on one frame: 10 MiB.
pub const DEFAULT_MAX_FRAME_BYTES: usize = 10 * 1024 * 1024;

/// How many decoded frames may wait for the server before the reader stops reading.
pub const READ_AHEAD_FRAMES: usize = 256;

/// How many bytes of frames may wait for the writer: 4 MiB. A larger frame waits until the queue
/// is empty and then goes alone, so the queue holds at most this or one frame.
pub const DEFAULT_QUEUE_BYTES: usize = 4 * 1024 * 1024;

/// What a queued frame costs beside its bytes (its buffer and the queue's bookkeeping), so that
/// a flood of tiny frames is bounded too.
const FRAME_OVERHEAD: usize = 128;

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
    /// A frame and its share of the queue, returned once it is written.
    Frame(Vec<u8>, OwnedSemaphorePermit),
    Flush(oneshot::Sender<Result<(), SinkClosed>>),
}

/// Frames written to a byte stream by a background thread, each whole and flushed.
#[derive(Debug)]
pub struct StreamSink {
    tx: mpsc::UnboundedSender<Command>,
    /// Room in the queue, in bytes; closed when the writer stops.
    room: Arc<Semaphore>,
    queue_bytes: usize,
    closed: Arc<AtomicBool>,
    closed_rx: watch::Receiver<bool>,
}

impl std::fmt::Debug for Command {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Command::Frame(b, _) => write!(f, "Frame({} bytes)", b.len()),
            Command::Flush(_) => f.write_str("Flush"),
        }
    }
}

impl StreamSink {
    pub fn spawn<W: Write + Send + 'static>(output: W) -> Self {
        Self::with_queue_bytes(output, DEFAULT_QUEUE_BYTES)
    }

    /// Like [`StreamSink::spawn`], with room for `queue_bytes` of waiting frames (at most
    /// `u32::MAX`).
    pub fn with_queue_bytes<W: Write + Send + 'static>(output: W, queue_bytes: usize) -> Self {
        let queue_bytes = queue_bytes.clamp(1, u32::MAX as usize);
        let (tx, rx) = mpsc::unbounded_channel();
        let room = Arc::new(Semaphore::new(queue_bytes));
        let closed = Arc::new(AtomicBool::new(false));
        let (closed_tx, closed_rx) = watch::channel(false);
        let flag = Arc::clone(&closed);
        let writer_room = Arc::clone(&room);
        std::thread::Builder::new()
            .name("vitaecontext-writer".into())
            .spawn(move || {
                write_loop(output, rx);
                flag.store(true, Ordering::SeqCst);
                // Wakes any `send` waiting for room: nothing will be written any more.
                writer_room.close();
                let _ = closed_tx.send(true);
            })
            .expect("the OS refused to start the writer thread");
        Self { tx, room, queue_bytes, closed, closed_rx }
    }
}

/// Writes until the output fails or every sender is gone. On failure, pending flush requests
/// are answered with `SinkClosed` as their senders drop.
fn write_loop<W: Write>(mut output: W, mut rx: mpsc::UnboundedReceiver<Command>) {
    while let Some(cmd) = rx.blocking_recv() {
        match cmd {
            Command::Frame(mut bytes, room) => {
                bytes.push(b'\n');
                // One write_all of the whole line: frames never interleave or split.
                if output.write_all(&bytes).and_then(|()| output.flush()).is_err() {
                    return;
                }
                drop(bytes);
                drop(room);
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
        // Wait for room; a frame larger than the whole queue waits for all of it.
        let cost = (frame.len() + FRAME_OVERHEAD).min(self.queue_bytes) as u32;
        let room = Arc::clone(&self.room).acquire_many_owned(cost).await.map_err(|_| SinkClosed)?;
        self.tx.send(Command::Frame(frame, room)).map_err(|_| SinkClosed)
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

#[cfg(test)]
mod tests {
    use std::sync::Mutex;
    use std::sync::mpsc as std_mpsc;
    use std::time::Duration;

    use super::*;

    /// An output that blocks its first write until the gate's sender is dropped.
    struct Gated {
        gate: Option<std_mpsc::Receiver<()>>,
        written: Arc<Mutex<Vec<u8>>>,
    }

    impl Write for Gated {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            if let Some(gate) = self.gate.take() {
                let _ = gate.recv();
            }
            self.written.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    // Regression: with stdout not read, queued frames grew without bound (1.95 GB for 200,000
    // pings); `send` must wait once the queue is full.
    #[tokio::test]
    async fn send_waits_when_the_output_is_not_read() {
        const QUEUE: usize = 64 * 1024;
        let (open, gate) = std_mpsc::channel::<()>();
        let written = Arc::new(Mutex::new(Vec::new()));
        let sink = StreamSink::with_queue_bytes(Gated { gate: Some(gate), written: Arc::clone(&written) }, QUEUE);
        let frame = vec![b'x'; 1024];
        let mut queued = 0;
        while queued < 10_000 {
            match tokio::time::timeout(Duration::from_millis(200), sink.send(frame.clone())).await {
                Ok(result) => result.expect("the sink is open"),
                Err(_) => break,
            }
            queued += 1;
        }
        // The one frame held by the blocked write, plus what fits in the queue.
        let most = QUEUE / (frame.len() + FRAME_OVERHEAD) + 1;
        assert!(queued <= most, "{queued} frames queued, at most {most} fit");
        drop(open);
        sink.flush().await.expect("flushed");
        assert_eq!(written.lock().unwrap().len(), queued * (frame.len() + 1), "every queued frame is written");
        // Room came back: sending works again.
        sink.send(frame).await.expect("room after the writer caught up");
    }

    #[tokio::test]
    async fn a_frame_larger_than_the_queue_still_goes_alone() {
        let written = Arc::new(Mutex::new(Vec::new()));
        let (open, gate) = std_mpsc::channel::<()>();
        drop(open);
        let sink = StreamSink::with_queue_bytes(Gated { gate: Some(gate), written: Arc::clone(&written) }, 1024);
        sink.send(vec![b'y'; 10_000]).await.expect("sent");
        sink.send(vec![b'z'; 10]).await.expect("sent");
        sink.flush().await.expect("flushed");
        assert_eq!(written.lock().unwrap().len(), 10_001 + 11);
    }
}

//! The server's first answer, which its background work waits for.
//!
//! A server started with `--watch` sets up a recursive watch (50,000 folders at 100,000
//! records), hashes graph.json and starts an index run, and any server polls its files: all of
//! it was started before the first request was read, and on two cores it took turns with the
//! answer to `initialize`, which came 4 ms after the spawn as a rule but 7-19 ms in about one
//! start in ten (measured at 100,000 records). The background threads now wait until the
//! first frame is written ([`Announcing`]), or [`FirstAnswer::MAX_WAIT`] when no request
//! comes, then start; requests meanwhile are served as before, from the files on disk.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use ports::transport::{FrameSink, SinkClosed};

/// Opened once the server's first frame is out (see [`Announcing`]).
#[derive(Debug, Default)]
pub struct FirstAnswer {
    opened: Mutex<bool>,
    changed: Condvar,
}

impl FirstAnswer {
    /// How long background work waits for a first request to be answered before it starts
    /// anyway (a client that connects and waits, or sends nothing).
    pub const MAX_WAIT: Duration = Duration::from_millis(100);

    pub fn open(&self) {
        *self.opened.lock().unwrap_or_else(|p| p.into_inner()) = true;
        self.changed.notify_all();
    }

    /// Returns once opened, or after `at_most`.
    pub fn wait(&self, at_most: Duration) {
        let deadline = Instant::now() + at_most;
        let mut opened = self.opened.lock().unwrap_or_else(|p| p.into_inner());
        while !*opened {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return;
            }
            opened = self.changed.wait_timeout(opened, left).unwrap_or_else(|p| p.into_inner()).0;
        }
    }
}

/// A sink that opens `first` once its first frame has been written and flushed.
#[derive(Debug)]
pub struct Announcing<S: ?Sized> {
    first: Arc<FirstAnswer>,
    announced: AtomicBool,
    inner: Arc<S>,
}

impl<S: ?Sized> Announcing<S> {
    pub fn new(inner: Arc<S>, first: Arc<FirstAnswer>) -> Self {
        Announcing { first, announced: AtomicBool::new(false), inner }
    }
}

#[async_trait]
impl<S: FrameSink + ?Sized> FrameSink for Announcing<S> {
    async fn send(&self, frame: Vec<u8>) -> Result<(), SinkClosed> {
        let sent = self.inner.send(frame).await;
        if !self.announced.swap(true, Ordering::AcqRel) {
            // Out, not only queued: the background starts once the client has its answer.
            let _ = self.inner.flush().await;
            self.first.open();
        }
        sent
    }

    async fn flush(&self) -> Result<(), SinkClosed> {
        self.inner.flush().await
    }

    async fn closed(&self) {
        self.inner.closed().await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A sink whose frames are written when flushed: what was written, in order.
    #[derive(Debug, Default)]
    struct Recording {
        queued: Mutex<Vec<Vec<u8>>>,
        written: Mutex<Vec<Vec<u8>>>,
    }

    #[async_trait]
    impl FrameSink for Recording {
        async fn send(&self, frame: Vec<u8>) -> Result<(), SinkClosed> {
            self.queued.lock().unwrap().push(frame);
            Ok(())
        }
        async fn flush(&self) -> Result<(), SinkClosed> {
            let queued = std::mem::take(&mut *self.queued.lock().unwrap());
            self.written.lock().unwrap().extend(queued);
            Ok(())
        }
        async fn closed(&self) {
            std::future::pending::<()>().await;
        }
    }

    /// Waiting ends at the first frame, once it is written, and not before; with none, after
    /// the wait given.
    #[tokio::test]
    async fn background_work_waits_for_the_first_frame_written_or_its_time() {
        let first = Arc::new(FirstAnswer::default());
        let inner = Arc::new(Recording::default());
        let sink = Announcing::new(Arc::clone(&inner), Arc::clone(&first));
        let started = Instant::now();
        first.wait(Duration::from_millis(50));
        assert!(started.elapsed() >= Duration::from_millis(50), "nothing sent: the whole wait");
        let waiter = {
            let (first, inner) = (Arc::clone(&first), Arc::clone(&inner));
            std::thread::spawn(move || {
                first.wait(Duration::from_secs(30));
                inner.written.lock().unwrap().clone()
            })
        };
        std::thread::sleep(Duration::from_millis(20));
        assert!(!waiter.is_finished(), "still waiting before any frame");
        sink.send(b"{\"id\":1}".to_vec()).await.unwrap();
        let written = waiter.join().unwrap();
        assert_eq!(written, [b"{\"id\":1}".to_vec()], "woken once the first answer was written");
        sink.send(b"{\"id\":2}".to_vec()).await.unwrap();
        assert_eq!(inner.queued.lock().unwrap().len(), 1, "later frames are not flushed one by one");
        let again = Instant::now();
        first.wait(Duration::from_secs(30));
        assert!(again.elapsed() < Duration::from_secs(1), "open stays open");
    }
}

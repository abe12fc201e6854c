//! The transport port: frames in, frames out.
//!
//! A frame is one JSON-RPC message as raw bytes. The transport does the framing (and its
//! limits); the protocol layer does the parsing.

use async_trait::async_trait;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Frame {
    /// One message, without its line terminator. Not necessarily valid UTF-8 or JSON.
    Message(Vec<u8>),
    /// A message longer than the transport's cap; its bytes were discarded. `len` is how many
    /// bytes had arrived when the cap was crossed.
    TooLong { len: usize, limit: usize },
}

#[async_trait]
pub trait FrameSource: Send {
    /// The next frame, or `None` at end of input.
    async fn next_frame(&mut self) -> Option<Frame>;
}

/// The peer stopped reading (for stdio: stdout was closed).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the peer closed the output channel")]
pub struct SinkClosed;

#[async_trait]
pub trait FrameSink: Send + Sync {
    /// Sends one whole frame and flushes it.
    async fn send(&self, frame: Vec<u8>) -> Result<(), SinkClosed>;
    /// Waits until every frame sent so far has been written and flushed.
    async fn flush(&self) -> Result<(), SinkClosed>;
    /// Resolves once the peer has stopped reading; the server then stops too.
    async fn closed(&self);
}

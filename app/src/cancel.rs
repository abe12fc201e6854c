//! The cancel flag of the MCP request that the current thread of the blocking pool is working
//! on: set by the server around each request's work, read by the use cases that loop long
//! (check, match), which hand it to the domain as [`domain::grounding::Sources::cancel`].

use std::cell::RefCell;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

thread_local! {
    static CURRENT: RefCell<Option<Arc<AtomicBool>>> = const { RefCell::new(None) };
}

/// Runs `work` with `flag` as the current request's cancel flag on this thread.
pub fn running<R>(flag: Arc<AtomicBool>, work: impl FnOnce() -> R) -> R {
    /// Clears the flag however `work` ends (a panic included): a pool thread is reused.
    struct Reset;
    impl Drop for Reset {
        fn drop(&mut self) {
            CURRENT.with(|c| c.borrow_mut().take());
        }
    }
    CURRENT.with(|c| *c.borrow_mut() = Some(flag));
    let _reset = Reset;
    work()
}

/// The current request's cancel flag, when this thread works for one.
pub fn current() -> Option<Arc<AtomicBool>> {
    CURRENT.with(|c| c.borrow().clone())
}

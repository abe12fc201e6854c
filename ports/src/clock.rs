//! The clock port: the only way the application measures time.

use std::time::Duration;

pub trait Clock: Send + Sync {
    /// Time since an arbitrary fixed origin that never goes backwards, for durations.
    fn monotonic(&self) -> Duration;
}

//! The clock port: the only way the application learns the time.

use std::time::{Duration, SystemTime};

pub trait Clock: Send + Sync {
    /// Wall-clock time, for names a person reads (backups: `index.md.backup-<UTC time>`).
    fn now(&self) -> SystemTime;
    /// Time since an arbitrary fixed origin that never goes backwards, for durations.
    fn monotonic(&self) -> Duration;
}

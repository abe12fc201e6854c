//! The scheduling priority of the server's background threads.

/// How much lower than the thread's own a background thread's priority is made (a nice value
/// of 10, from 0).
const LOWER_BY: i32 = 10;

/// Lowers the calling thread's scheduling priority by [`LOWER_BY`] nice levels, for work done
/// in the background of a server that answers requests: on Linux a nice value belongs to a
/// thread, and the threads and processes it starts inherit it, so the watch thread of
/// `mcp --watch`, the notify thread it starts and each index run's child process yield the
/// cores to the threads that answer. A nice value is system-wide: they yield to any other
/// program's work too.
///
/// Found measuring `mcp --watch` at 100,000 records on two cores: `initialize` came 4 ms after
/// the spawn as a rule, but 10-18 ms in about one start in twelve, while the watch set up
/// 50,000 folders beside it.
///
/// Elsewhere the value is the whole process's, so nothing is changed. Best effort: a thread
/// whose priority cannot be changed runs as it was.
pub fn lower_this_thread() {
    #[cfg(target_os = "linux")]
    {
        let tid = rustix::thread::gettid();
        if let Ok(now) = rustix::process::getpriority_process(Some(tid)) {
            let _ = rustix::process::setpriority_process(Some(tid), (now + LOWER_BY).min(19));
        }
    }
}

/// The calling thread's nice value, where a thread has its own (Linux).
pub fn this_threads_nice() -> Option<i32> {
    #[cfg(target_os = "linux")]
    {
        rustix::process::getpriority_process(Some(rustix::thread::gettid())).ok()
    }
    #[cfg(not(target_os = "linux"))]
    {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The thread that asks is lowered, and the threads it starts inherit it; the others are
    /// not.
    #[test]
    #[cfg(target_os = "linux")]
    fn a_lowered_thread_and_what_it_starts_run_lower_and_no_other() {
        let before = this_threads_nice().unwrap();
        let (own, started) = std::thread::spawn(|| {
            lower_this_thread();
            let started = std::thread::spawn(this_threads_nice).join().unwrap();
            (this_threads_nice(), started)
        })
        .join()
        .unwrap();
        let lowered = Some((before + LOWER_BY).min(19));
        assert_eq!(own, lowered);
        assert_eq!(started, lowered, "inherited");
        assert_eq!(this_threads_nice(), Some(before), "the caller's own thread is as it was");
    }
}

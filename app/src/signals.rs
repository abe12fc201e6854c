//! The signals that ask a long-running command (`mcp`, `graph index --watch`) to stop:
//! Ctrl-C (SIGINT) and SIGTERM (what `kill`, systemd and most clients send). Either stops
//! after the index under way, so `.generated/` is not left with staged temporaries; a second
//! one quits at once.

/// Waits for SIGINT or SIGTERM; returns the one that came. Where a handler cannot be
/// installed, it waits for the other, or forever.
pub async fn stop_asked() -> &'static str {
    let interrupt = async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let terminate = async {
            match signal(SignalKind::terminate()) {
                Ok(mut s) => drop(s.recv().await),
                Err(_) => std::future::pending::<()>().await,
            }
        };
        tokio::select! {
            () = interrupt => "Ctrl-C",
            () = terminate => "SIGTERM",
        }
    }
    #[cfg(not(unix))]
    {
        interrupt.await;
        "Ctrl-C"
    }
}

/// Once stopping (after a first signal, or the end of the server's input): quits at once on
/// the next signal, with 128 + that signal's number as a shell reports a process it killed
/// (130 for Ctrl-C, 143 for SIGTERM).
pub async fn quit_on_second() {
    std::process::exit(exit_code(stop_asked().await));
}

/// The exit status for quitting on the signal [`stop_asked`] named.
fn exit_code(signal: &str) -> i32 {
    match signal {
        "SIGTERM" => 128 + 15,
        _ => 128 + 2,
    }
}

#[cfg(test)]
mod tests {
    /// Found in review: a second SIGTERM exited 130, the status of a Ctrl-C.
    #[test]
    fn a_second_signal_exits_with_its_own_status() {
        assert_eq!(super::exit_code("SIGTERM"), 143);
        assert_eq!(super::exit_code("Ctrl-C"), 130);
    }
}

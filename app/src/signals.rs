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

/// Once stopping (after a first signal, or the end of the server's input): quits at once,
/// with 128 + SIGINT's number as a shell does, on the next signal.
pub async fn quit_on_second() {
    stop_asked().await;
    std::process::exit(130);
}

//! The signals that ask a long-running command (`mcp`, `graph index --watch`) to stop:
//! Ctrl-C (SIGINT) and SIGTERM (what `kill`, systemd and most clients send). Either stops
//! after the index under way, so `.generated/` is not left with staged temporaries; a second
//! one quits at once.

/// The stop signals, heard from [`Signals::listen`] on: a signal that comes while nothing
/// awaits it (between the first and the wait for a second) is kept for the next
/// [`Signals::next`]. Found in review: a listener made anew for the second signal missed one
/// sent just after the server's input closed, and the process went on to finish its index.
/// Two sent at the same instant, before the first is handled, are one (the system keeps one
/// pending signal of a kind).
#[derive(Debug)]
pub struct Signals {
    #[cfg(unix)]
    interrupt: Option<tokio::signal::unix::Signal>,
    #[cfg(unix)]
    terminate: Option<tokio::signal::unix::Signal>,
}

impl Signals {
    /// Starts listening; inside a tokio runtime. A kind whose handler cannot be installed is
    /// never heard.
    pub fn listen() -> Self {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            Signals { interrupt: signal(SignalKind::interrupt()).ok(), terminate: signal(SignalKind::terminate()).ok() }
        }
        #[cfg(not(unix))]
        Signals {}
    }

    /// Waits for SIGINT or SIGTERM; returns the one that came.
    pub async fn next(&mut self) -> &'static str {
        #[cfg(unix)]
        {
            async fn heard(signal: &mut Option<tokio::signal::unix::Signal>) {
                let came = match signal {
                    Some(s) => s.recv().await.is_some(),
                    None => false,
                };
                if !came {
                    std::future::pending::<()>().await;
                }
            }
            let Signals { interrupt, terminate } = self;
            tokio::select! {
                () = heard(interrupt) => "Ctrl-C",
                () = heard(terminate) => "SIGTERM",
            }
        }
        #[cfg(not(unix))]
        {
            if tokio::signal::ctrl_c().await.is_err() {
                std::future::pending::<()>().await;
            }
            "Ctrl-C"
        }
    }

    /// Once stopping (after a first signal, or the end of the server's input): quits at once
    /// on the next signal, with 128 + that signal's number as a shell reports a process it
    /// killed (130 for Ctrl-C, 143 for SIGTERM).
    pub async fn quit_on_next(mut self) {
        std::process::exit(exit_code(self.next().await));
    }
}

/// The exit status for quitting on the signal [`Signals::next`] named.
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

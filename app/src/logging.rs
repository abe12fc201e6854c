//! Logs go to stderr, never stdout: stdout belongs to the protocol.

use std::io::IsTerminal;

use tracing_subscriber::EnvFilter;

use crate::cli::LogLevel;

/// The target of the one line the server logs at start (what it serves, chosen by which rule):
/// shown at the default level, which otherwise keeps to warnings and errors.
pub const STARTUP: &str = "vitaecontext::startup";

/// `--log-level` wins over `RUST_LOG`; with neither, warnings and errors only, plus the
/// start-up line.
pub fn init(level: Option<LogLevel>) {
    let filter = match level {
        Some(level) => EnvFilter::new(match level {
            LogLevel::Off => "off",
            LogLevel::Error => "error",
            LogLevel::Warn => "warn",
            LogLevel::Info => "info",
            LogLevel::Debug => "debug",
            LogLevel::Trace => "trace",
        }),
        None => EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(format!("warn,{STARTUP}=info"))),
    };
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .with_target(false)
        .try_init();
}

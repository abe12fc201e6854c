//! Logs go to stderr, never stdout: stdout belongs to the protocol.

use std::io::IsTerminal;

use tracing_subscriber::EnvFilter;

use crate::cli::LogLevel;

/// `--log-level` wins over `RUST_LOG`; with neither, warnings and errors only.
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
        None => EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("warn")),
    };
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .with_target(false)
        .try_init();
}

//! `vitaecontext`: parse arguments, build adapters, run, map the outcome to an exit code.

mod cli;
mod logging;
mod mcp;

use std::process::ExitCode;
use std::sync::Arc;

use clap::Parser;
use miette::{IntoDiagnostic, WrapErr};

use cli::{Cli, Command, McpArgs};

fn main() -> ExitCode {
    let cli = Cli::parse();
    logging::init(cli.log_level);
    match run(cli) {
        Ok(code) => code,
        Err(report) => {
            use std::io::Write;
            let _ = writeln!(std::io::stderr(), "{report:?}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> miette::Result<ExitCode> {
    match cli.command {
        Command::Mcp(args) => serve_stdio(args),
    }
}

fn serve_stdio(args: McpArgs) -> miette::Result<ExitCode> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .into_diagnostic()
        .wrap_err("could not start the async runtime")?;
    tracing::info!(context = ?args.context, root = ?args.root, "starting the MCP server on stdio");
    let (source, sink) = stdio::stdio(args.max_frame_bytes);
    let methods = Arc::new(mcp::methods::Methods::new());
    let ended = runtime.block_on(mcp::serve(source, Arc::new(sink), methods));
    tracing::info!(?ended, "MCP server stopped");
    // The reader thread may still be blocked on stdin; it must not keep the process alive.
    runtime.shutdown_background();
    Ok(ExitCode::SUCCESS)
}

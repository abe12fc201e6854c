//! One integration test binary: the built `vitaecontext` driven from outside, plus the adapters.

mod career_cli;
mod career_mcp;
mod cli;
mod clients;
mod fs_model;
mod lifecycle;
mod prompts_wiki;
mod protocol_errors;
mod transport;
mod util;

//! One integration test binary: the built `vitaecontext` driven from outside, plus the adapters.

mod career_cli;
mod career_mcp;
mod cli;
mod clients;
mod confine_model;
mod fs_model;
mod graph_cli;
mod graph_mcp;
mod lifecycle;
mod prompts_wiki;
mod protocol_errors;
mod skills_cli;
mod transport;
mod util;

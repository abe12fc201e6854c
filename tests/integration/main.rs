//! One integration test binary: the built `vitaecontext` driven from outside, plus the adapters.

mod backpressure;
mod career_cli;
mod career_mcp;
mod cli;
mod clients;
mod confine_model;
mod confine_race;
mod doctor_cli;
mod eras;
mod first_hour;
mod fs_model;
mod graph_cli;
mod graph_mcp;
mod graph_names;
mod grounding;
mod grounding_corpus;
mod lifecycle;
mod prompts_wiki;
mod protocol_errors;
mod register_cli;
mod setup_cli;
mod skills_cli;
mod skills_mcp;
mod transport;
mod util;
mod watch;

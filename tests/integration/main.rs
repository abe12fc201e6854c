//! One integration test binary: the built `vitaecontext` driven from outside, plus the adapters.

mod cli;
mod clients;
mod fs_model;
mod lifecycle;
mod protocol_errors;
mod transport;
mod util;

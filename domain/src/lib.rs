//! The pure rules of vitaecontext: values in, values and typed errors out.
//!
//! Nothing here touches the filesystem, the environment, the clock or the wire. Adapters feed it
//! bytes and plain values; the `app` crate turns its results into JSON-RPC.

#![forbid(unsafe_code)]

pub mod career;
pub mod clients;
pub mod doctor;
pub mod graph;
pub mod grounding;
pub mod portable;
pub mod prompts;
pub mod skills;
mod steps;
pub mod text;
pub mod wiki;

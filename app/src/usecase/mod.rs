//! Use cases: one per concept, over the ports, called from every edge (CLI commands, MCP
//! methods). Named so as not to collide with `domain::graph` and `commands::graph`.

pub mod career;
pub mod graph;
pub mod skills;

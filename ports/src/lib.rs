//! Port traits: what the application needs from the world, named by role.
//!
//! Adapters in `adapters/` implement them with a technology (std + walkdir, memory, stdio).
//! The traits speak in plain values so that the domain and the application never depend on
//! which adapter is plugged in.

#![forbid(unsafe_code)]

pub mod clock;
pub mod fs;
pub mod transport;
pub mod watch;

pub use clock::Clock;

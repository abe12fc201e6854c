//! The Career Context: one curated Markdown file, the source of truth about a career.
//!
//! Parsing and validation follow VitaeContext 2.3.0 to the line (`formats.md` section 1);
//! packets cut the file to a surface; selection decides which file is meant.

pub mod packet;
pub mod quickref;
pub mod scan;
pub mod select;
pub mod validate;

pub use packet::{InvalidContext, Packet, Surface, packet};
pub use select::{Rule, Selection, SelectionInput, select};
pub use validate::{Code, Diagnostic, FileFacts, Severity, Shown, Validation, validate};

#[cfg(test)]
mod tests;

/// The starter file `vitaecontext context init` writes: every required section, guidance
/// comments, and placeholders that fail validation until the person replaces them.
pub const STARTER: &str = include_str!("starter.md");

//! Installing skills from elsewhere (`skills install | sync | update | uninstall | outdated`):
//! the rules, without the fetching and the writing, which the app does.
//!
//! - `source`: the source syntax (`github:`, `git+`, `npm:`, a folder) and its text form.
//! - `tree`: the skills a fetched source holds ([`tree::collect`]), validated, with safe names
//!   ([`tree::RelPath`]) and bounded sizes.
//! - `hidden`: hidden Unicode controls (bidi, zero-width, tags), refused in skill text.
//! - `digest`: SHA-256 per file and per set, npm's integrity strings.
//! - `lock`: `skills-lock.json` (stable bytes) and skill-central's `lock.json`.
//! - `plan`: file-level differences (an update, an edit on disk), and version order.
//!
//! **Invariant:** every path this module hands the app to write is a [`tree::RelPath`] (plain
//! names, no `..`), so that an installed file lands inside its skill's place whatever the
//! source or the lock says.

pub mod digest;
pub mod hidden;
pub mod lock;
pub mod plan;
pub mod source;
pub mod tree;

#[cfg(test)]
mod tests;

pub use digest::{FileDigests, check_integrity, set_digest, sha256_hex};
pub use lock::{LOCK_FILE, Lock, LockEntry, LockError, SkillCentralEntry, parse_skill_central_lock};
pub use plan::{Drift, FileChange, compare, drift, newer_versions};
pub use source::{Source, SourceError, SourceKind};
pub use tree::{Found, RelPath, Tree, TreeProblem, collect};

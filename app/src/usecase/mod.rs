//! Use cases: one per concept, over the ports, called from every edge (CLI commands, MCP
//! methods). Named so as not to collide with `domain::graph` and `commands::graph`.

pub mod career;
pub mod doctor;
pub mod graph;
pub mod grounding;
pub mod register;
pub mod setup;
pub mod skills;
pub mod watch;

use std::path::{Path, PathBuf};

use ports::Clock;
use ports::fs::{FileSystem, FsError, FsErrorKind};

/// Keeps `bytes` (what is about to be replaced at `target`) in a new file beside it:
/// `<name>.vitaecontext-backup-<UTC time to the second>` (for example
/// `index.md.vitaecontext-backup-20261130T204500Z`), then `-2`, `-3`... within the same second.
/// Never overwrites; backups sort by age. Every command that replaces a person's file goes
/// through here.
pub fn write_backup(fs: &dyn FileSystem, clock: &dyn Clock, target: &Path, bytes: &[u8]) -> Result<PathBuf, FsError> {
    let stamp: String = humantime::format_rfc3339_seconds(clock.now())
        .to_string()
        .chars()
        .filter(|c| !matches!(c, '-' | ':'))
        .collect();
    let mut base = target.file_name().unwrap_or_default().to_os_string();
    base.push(format!(".vitaecontext-backup-{stamp}"));
    let mut last = None;
    for n in 1..=20 {
        let mut name = base.clone();
        if n > 1 {
            name.push(format!("-{n}"));
        }
        let candidate = target.with_file_name(name);
        match fs.write_new(&candidate, bytes) {
            Ok(()) => return Ok(candidate),
            Err(e) if e.kind == FsErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap_or_else(|| FsError::new(FsErrorKind::AlreadyExists, target, "too many backups this second")))
}

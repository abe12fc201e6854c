//! Use cases: one per concept, over the ports, called from every edge (CLI commands, MCP
//! methods). Named so as not to collide with `domain::graph` and `commands::graph`.

pub mod career;
pub mod graph;
pub mod grounding;
pub mod setup;

use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// Where a file about to be replaced is kept: `<name>.backup-<UTC time, to the second>` beside
/// it (`index.md.backup-20261130T204500Z`), so a replaced file is never lost and backups sort by
/// age.
pub fn backup_path(path: &Path, now: SystemTime) -> PathBuf {
    let stamp: String =
        humantime::format_rfc3339_seconds(now).to_string().chars().filter(|c| !matches!(c, '-' | ':')).collect();
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".backup-{stamp}"));
    path.with_file_name(name)
}

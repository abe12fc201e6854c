//! Use cases: one per concept, over the ports, called from every edge (CLI commands, MCP
//! methods). Named so as not to collide with `domain::graph` and `commands::graph`.

pub mod agent_skills;
pub mod career;
pub mod doctor;
pub mod graph;
pub mod grounding;
pub mod portable;
pub mod register;
pub mod setup;
pub mod skills;
pub mod skills_install;
pub mod watch;

use std::path::{Path, PathBuf};

use ports::Clock;
use ports::fs::{FileSystem, FsError, FsErrorKind};

/// How many backups of one file are kept: the oldest beyond this are removed when a new one is
/// written (README, "Backups").
pub const BACKUPS_KEPT: usize = 10;

/// Keeps `bytes` (what is about to be replaced at `target`) in a new file beside it:
/// `<name>.vitaecontext-backup-<UTC time to the second>` (for example
/// `index.md.vitaecontext-backup-20261130T204500Z`), then `-2`, `-3`... within the same second,
/// with no limit (twenty in one second was an error). Never overwrites; then removes the
/// oldest backups of `target` beyond [`BACKUPS_KEPT`]. Every command that replaces a person's
/// file goes through here.
pub fn write_backup(fs: &dyn FileSystem, clock: &dyn Clock, target: &Path, bytes: &[u8]) -> Result<PathBuf, FsError> {
    let stamp: String = humantime::format_rfc3339_seconds(clock.now())
        .to_string()
        .chars()
        .filter(|c| !matches!(c, '-' | ':'))
        .collect();
    let mut base = target.file_name().unwrap_or_default().to_os_string();
    base.push(format!(".vitaecontext-backup-{stamp}"));
    // After the last of this second, not in a gap the pruning left: a new backup always sorts
    // newest.
    let mut n = backups_of(fs, target)
        .iter()
        .filter_map(|p| backup_key(target, p))
        .filter(|(s, _)| *s == stamp)
        .map(|(_, n)| n + 1)
        .max()
        .unwrap_or(1);
    let written = loop {
        let mut name = base.clone();
        if n > 1 {
            name.push(format!("-{n}"));
        }
        let candidate = target.with_file_name(name);
        match fs.write_new(&candidate, bytes) {
            Ok(()) => break candidate,
            Err(e) if e.kind == FsErrorKind::AlreadyExists => n += 1,
            Err(e) => return Err(e),
        }
    };
    prune_backups(fs, target, BACKUPS_KEPT);
    Ok(written)
}

/// The time stamp and number of a backup of `target` (`...-backup-20261130T204500Z-3`: 3;
/// without a number: 1), or `None` for any other file.
fn backup_key(target: &Path, backup: &Path) -> Option<(String, u64)> {
    let prefix = format!("{}.vitaecontext-backup-", target.file_name()?.to_str()?);
    let rest = backup.file_name()?.to_str()?.strip_prefix(&prefix)?;
    match rest.split_once('-') {
        Some((stamp, n)) => Some((stamp.to_owned(), n.parse().ok()?)),
        None => Some((rest.to_owned(), 1)),
    }
}

/// The backups of `target` beside it, oldest first: by their time, then their `-N`.
pub fn backups_of(fs: &dyn FileSystem, target: &Path) -> Vec<PathBuf> {
    let Some(dir) = target.parent() else { return Vec::new() };
    let Ok(entries) = fs.read_dir(dir) else { return Vec::new() };
    let mut found: Vec<((String, u64), PathBuf)> = entries
        .into_iter()
        .filter_map(|e| {
            let path = dir.join(&e.name);
            Some((backup_key(target, &path)?, path))
        })
        .collect();
    found.sort();
    found.into_iter().map(|(_, p)| p).collect()
}

/// Removes the oldest backups of `target` beyond `keep` (best effort: a backup that cannot be
/// removed stays).
fn prune_backups(fs: &dyn FileSystem, target: &Path, keep: usize) {
    let all = backups_of(fs, target);
    for old in &all[..all.len().saturating_sub(keep)] {
        let _ = fs.remove_file(old);
    }
}

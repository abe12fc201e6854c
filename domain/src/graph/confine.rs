//! ID -> path resolution that never leaves the VitaeGraph root.
//!
//! A stored record path is walked one component at a time from the canonical root. Symlinks are
//! followed only while every step stays inside the root: an absolute target must name the root
//! as written, and `..` may never climb above it, so nothing outside the root is even looked at.
//! The walk itself is pure over [`FsView`]; the filesystem port implements it.
//!
//! This is the policy: which stored paths may be read, and what physical path they name. The
//! answer holds no symlink, so the adapter opens it from a handle on the root refusing every
//! symlink (`FileSystem::read_beneath`): a folder swapped for a symlink after this walk makes
//! the open fail instead of leading outside.

use std::path::{Component, Path, PathBuf};

/// What a path is, without following a final symlink.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    File,
    Dir,
    Symlink,
    Other,
    /// Something may be there, but a folder on the way cannot be searched (permission).
    Denied,
}

/// The two questions confinement asks of a filesystem.
pub trait FsView {
    /// The kind of `path` itself (a symlink is a symlink); `None` when nothing is there.
    fn kind(&self, path: &Path) -> Option<Kind>;
    /// A symlink's target as stored.
    fn link_target(&self, path: &Path) -> Option<PathBuf>;
}

/// Why a path was refused. None of these is shown to a client beyond "not found".
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Deny {
    #[error("the stored path is not a plain relative path")]
    NotRelative,
    #[error("the path leads outside the root")]
    Escapes,
    #[error("nothing is there")]
    Missing,
    #[error("too many symlinks (a loop)")]
    Loop,
    #[error("not a regular file")]
    NotAFile,
    /// A folder on the way cannot be searched: unlike [`Deny::Missing`], something may be
    /// there, and saying "not found" would send the person looking for a file that exists.
    #[error("permission denied")]
    Unreadable,
}

/// A path proven to lie inside the root, with no symlink in it (when it was resolved).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfinedPath {
    path: PathBuf,
    /// `path` below the root: plain names only, at least one.
    relative: PathBuf,
}

impl ConfinedPath {
    pub fn as_path(&self) -> &Path {
        &self.path
    }

    /// The path below the root, to open relative to a handle on the root without following
    /// any symlink.
    pub fn relative(&self) -> &Path {
        &self.relative
    }
}

const MAX_HOPS: usize = 40;

/// A stored path must be relative, `/`-separated names only: no `.`, `..`, empty parts,
/// backslashes or NUL.
pub fn check_stored(stored: &str) -> Result<Vec<&str>, Deny> {
    if stored.is_empty() || stored.starts_with('/') || stored.contains('\\') || stored.contains('\0') {
        return Err(Deny::NotRelative);
    }
    let parts: Vec<&str> = stored.split('/').collect();
    if parts.iter().any(|p| p.is_empty() || *p == "." || *p == "..") {
        return Err(Deny::NotRelative);
    }
    Ok(parts)
}

/// Resolves `stored` (relative) under `root`, which must already be canonical.
pub fn resolve(view: &dyn FsView, root: &Path, stored: &str) -> Result<ConfinedPath, Deny> {
    let parts = check_stored(stored)?;
    let mut pending: Vec<String> = parts.iter().rev().map(|p| (*p).to_owned()).collect();
    let mut cur = root.to_path_buf();
    let mut hops = 0;
    while let Some(name) = pending.pop() {
        if name == "." {
            continue;
        }
        if name == ".." {
            if cur == root {
                return Err(Deny::Escapes);
            }
            cur.pop();
            continue;
        }
        let next = cur.join(&name);
        match view.kind(&next).ok_or(Deny::Missing)? {
            Kind::Symlink => {
                hops += 1;
                if hops > MAX_HOPS {
                    return Err(Deny::Loop);
                }
                let target = view.link_target(&next).ok_or(Deny::Missing)?;
                let rest: Vec<String> = if target.is_absolute() {
                    // Only a target written as a path under the root is followed.
                    let inside = target.strip_prefix(root).map_err(|_| Deny::Escapes)?;
                    cur = root.to_path_buf();
                    names(inside)?
                } else {
                    names(&target)?
                };
                if rest.is_empty() && !target.is_absolute() {
                    return Err(Deny::Missing);
                }
                pending.extend(rest.into_iter().rev());
            }
            Kind::Dir if pending.is_empty() => return Err(Deny::NotAFile),
            Kind::Dir => cur = next,
            Kind::File if pending.is_empty() => cur = next,
            Kind::File => return Err(Deny::Missing),
            Kind::Other => return Err(Deny::NotAFile),
            Kind::Denied => return Err(Deny::Unreadable),
        }
    }
    match view.kind(&cur) {
        Some(Kind::File) if cur.starts_with(root) && cur != root => {
            let relative = cur.strip_prefix(root).map_err(|_| Deny::Escapes)?.to_path_buf();
            Ok(ConfinedPath { path: cur, relative })
        }
        Some(Kind::File) => Err(Deny::Escapes),
        Some(Kind::Denied) => Err(Deny::Unreadable),
        Some(_) => Err(Deny::NotAFile),
        None => Err(Deny::Missing),
    }
}

fn names(p: &Path) -> Result<Vec<String>, Deny> {
    p.components()
        .filter_map(|c| match c {
            Component::Normal(n) => Some(n.to_str().map(str::to_owned).ok_or(Deny::NotRelative)),
            Component::ParentDir => Some(Ok("..".into())),
            Component::CurDir | Component::RootDir | Component::Prefix(_) => None,
        })
        .collect()
}

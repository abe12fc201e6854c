//! `vitaecontext init`: the first-time set-up of `~/.vitaecontext/`, which never overwrites.

use std::path::{Path, PathBuf};

use domain::career::select::{CANONICAL_NAME, DEFAULT_DIR};
use domain::career::{Rule, STARTER, Selection};
use ports::Clock;
use ports::fs::{FileKind, FileSystem, FsError, FsErrorKind};

use super::career;
use super::graph::{self, InitReport};
use crate::sources::Sources;

/// What happened to the Career Context.
#[derive(Debug, PartialEq, Eq)]
pub enum ContextSetup {
    /// A starter file was written here.
    Created(PathBuf),
    /// The file the server would serve already exists; it was left alone.
    Existing(PathBuf, Rule),
    /// Several candidate files exist: nothing was written, the person must choose.
    Ambiguous(Vec<PathBuf>),
}

#[derive(Debug)]
pub struct SetupReport {
    /// `~/.vitaecontext/`.
    pub dir: PathBuf,
    pub dir_created: bool,
    /// The folder existed with permissions wider than owner-only: its old mode.
    pub tightened_from: Option<u32>,
    pub context: ContextSetup,
    pub graph_root: PathBuf,
    pub graph: InitReport,
}

#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    #[error("HOME is not set, so ~/.vitaecontext/ cannot be found")]
    NoHome,
    #[error("{} exists but is not a folder", .0.display())]
    NotAFolder(PathBuf),
    #[error("{0}")]
    Fs(#[from] FsError),
}

/// Creates `~/.vitaecontext/` (owner-only; tightened when it is wider), a starter Career Context
/// unless the server already finds one, and the VitaeGraph layout (only what is missing).
pub fn init(fs: &dyn FileSystem, clock: &dyn Clock, sources: &Sources) -> Result<SetupReport, SetupError> {
    let home = sources.home.as_deref().ok_or(SetupError::NoHome)?;
    let dir = home.join(DEFAULT_DIR);
    let (dir_created, tightened_from) = private_dir(fs, &dir)?;
    let context = match career::select(fs, sources) {
        Selection::Selected { path, rule } if fs.metadata(&path).is_ok() => ContextSetup::Existing(path, rule),
        // A file named by --context or the environment that does not exist yet is created there.
        Selection::Selected { path, .. } => create_starter(fs, &path)?,
        Selection::Ambiguous { candidates } => ContextSetup::Ambiguous(candidates),
        Selection::Missing { .. } => create_starter(fs, &dir.join(CANONICAL_NAME))?,
    };
    let graph_root = sources.graph_root().unwrap_or_else(|| dir.join("vitaegraph"));
    let graph = graph::init(fs, clock, &graph_root, false)?;
    Ok(SetupReport { dir, dir_created, tightened_from, context, graph_root, graph })
}

/// Makes `dir` exist, readable by its owner only; returns (created, old mode if tightened).
fn private_dir(fs: &dyn FileSystem, dir: &Path) -> Result<(bool, Option<u32>), SetupError> {
    match fs.metadata(dir) {
        Ok(m) if m.kind != FileKind::Dir => Err(SetupError::NotAFolder(dir.to_path_buf())),
        Ok(_) => {
            let mode = fs.mode(dir)?;
            if mode & 0o077 != 0 {
                fs.set_mode(dir, mode & 0o700)?;
                return Ok((false, Some(mode)));
            }
            Ok((false, None))
        }
        Err(e) if e.kind == FsErrorKind::NotFound => {
            fs.create_private_dir_all(dir)?;
            Ok((true, None))
        }
        Err(e) => Err(e.into()),
    }
}

fn create_starter(fs: &dyn FileSystem, path: &Path) -> Result<ContextSetup, SetupError> {
    if let Some(parent) = path.parent() {
        fs.create_private_dir_all(parent)?;
    }
    fs.write_new(path, STARTER.as_bytes())?;
    Ok(ContextSetup::Created(path.to_path_buf()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use fs_memory::MemoryFs;

    struct Epoch;

    impl Clock for Epoch {
        fn now(&self) -> std::time::SystemTime {
            std::time::UNIX_EPOCH
        }
        fn monotonic(&self) -> std::time::Duration {
            std::time::Duration::ZERO
        }
    }

    fn sources() -> Sources {
        Sources { home: Some("/home/p".into()), cwd: "/".into(), ..Default::default() }
    }

    #[test]
    fn a_fresh_home_gets_everything_owner_only() {
        let fs = MemoryFs::new();
        fs.create_dir_all(Path::new("/home/p")).unwrap();
        let r = init(&fs, &Epoch, &sources()).unwrap();
        assert!(r.dir_created);
        assert_eq!(r.context, ContextSetup::Created("/home/p/.vitaecontext/career-context.md".into()));
        assert_eq!(fs.mode(Path::new("/home/p/.vitaecontext")).unwrap(), 0o700);
        assert_eq!(fs.mode(Path::new("/home/p/.vitaecontext/vitaegraph/projects")).unwrap(), 0o700);
        assert!(fs.metadata(Path::new("/home/p/.vitaecontext/vitaegraph/VITAEGRAPH.md")).is_ok());
    }

    #[test]
    fn an_existing_setup_is_never_overwritten_and_a_wide_folder_is_tightened() {
        let fs = MemoryFs::new();
        let dir = Path::new("/home/p/.vitaecontext");
        fs.create_dir_all(dir).unwrap();
        fs.set_mode(dir, 0o755).unwrap();
        fs.write_atomic(&dir.join("me-career-context.md"), b"mine").unwrap();
        let r = init(&fs, &Epoch, &sources()).unwrap();
        assert_eq!(r.tightened_from, Some(0o755));
        assert_eq!(fs.mode(dir).unwrap(), 0o700);
        assert_eq!(r.context, ContextSetup::Existing(dir.join("me-career-context.md"), Rule::OnlyCandidate));
        assert!(fs.metadata(&dir.join(CANONICAL_NAME)).is_err(), "no starter shadows the person's own file");
        fs.write_atomic(&dir.join("other.context.md"), b"x").unwrap();
        assert!(matches!(init(&fs, &Epoch, &sources()).unwrap().context, ContextSetup::Ambiguous(c) if c.len() == 2));
        let again = init(&fs, &Epoch, &sources()).unwrap();
        assert!(again.graph.created.is_empty() && again.tightened_from.is_none());
    }
}

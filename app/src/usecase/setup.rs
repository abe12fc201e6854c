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
    #[error(
        "{} exists but is not a folder; move it out of the way, then run `vitaecontext init` again (nothing was changed)",
        .0.display()
    )]
    NotAFolder(PathBuf),
    #[error(
        "{} exists but is not a file; move it out of the way, then run `vitaecontext init` again (nothing was changed)",
        .0.display()
    )]
    NotAFile(PathBuf),
    #[error("{0}")]
    Fs(#[from] FsError),
}

/// Creates `~/.vitaecontext/` (owner-only; tightened when it is wider), a starter Career Context
/// unless the server already finds one, and the VitaeGraph layout (only what is missing).
pub fn init(fs: &dyn FileSystem, clock: &dyn Clock, sources: &Sources) -> Result<SetupReport, SetupError> {
    let home = sources.home.as_deref().ok_or(SetupError::NoHome)?;
    let dir = home.join(DEFAULT_DIR);
    let graph_root = sources.graph_root().unwrap_or_else(|| dir.join("vitaegraph"));
    // What would stop the set-up half-way is refused before anything is changed (found in
    // review: a file at the graph's place failed the run after the Career Context was
    // written and the folder tightened, and neither was said).
    let kind = |p: &Path| fs.metadata(p).ok().map(|m| m.kind);
    if kind(&dir).is_some_and(|k| k != FileKind::Dir) {
        return Err(SetupError::NotAFolder(dir));
    }
    if kind(&graph_root).is_some_and(|k| k != FileKind::Dir) {
        return Err(SetupError::NotAFolder(graph_root));
    }
    let selection = career::select(fs, sources);
    let starter = match &selection {
        Selection::Selected { path, .. } if fs.metadata(path).is_err() => Some(path.clone()),
        Selection::Missing { .. } => Some(dir.join(CANONICAL_NAME)),
        _ => None,
    };
    if let Some(starter) = &starter
        && let Ok(m) = fs.symlink_metadata(starter)
        && m.kind != FileKind::File
    {
        return Err(SetupError::NotAFile(starter.clone()));
    }
    let (dir_created, tightened_from) = private_dir(fs, &dir)?;
    let context = match (selection, starter) {
        // A file named by --context or the environment that does not exist yet is created there.
        (_, Some(path)) => create_starter(fs, &path)?,
        (Selection::Selected { path, rule }, None) => ContextSetup::Existing(path, rule),
        (Selection::Ambiguous { candidates }, None) => ContextSetup::Ambiguous(candidates),
        (Selection::Missing { .. }, None) => unreachable!("a missing file always has a starter path"),
    };
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
                // Only the group's and others' bits go: a sticky or setgid bit stays (found in
                // review: a `~/.vitaecontext` linked to a shared folder lost its sticky bit).
                fs.set_mode(dir, mode & 0o7700)?;
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
        // Only the group's and others' bits go; the sticky bit stays.
        fs.set_mode(dir, 0o1777).unwrap();
        assert_eq!(init(&fs, &Epoch, &sources()).unwrap().tightened_from, Some(0o1777));
        assert_eq!(fs.mode(dir).unwrap(), 0o1700);
    }

    /// Found in review: these failed half-way, after writing the Career Context or tightening
    /// the folder, and said neither.
    #[test]
    fn what_would_stop_the_setup_half_way_is_refused_before_any_change() {
        let fs = MemoryFs::new();
        let dir = Path::new("/home/p/.vitaecontext");
        fs.create_dir_all(dir).unwrap();
        fs.set_mode(dir, 0o755).unwrap();
        fs.write_atomic(&dir.join("vitaegraph"), b"not a folder").unwrap();
        assert!(matches!(init(&fs, &Epoch, &sources()), Err(SetupError::NotAFolder(p)) if p == dir.join("vitaegraph")));
        fs.remove_file(&dir.join("vitaegraph")).unwrap();
        fs.create_dir_all(&dir.join(CANONICAL_NAME)).unwrap();
        assert!(matches!(init(&fs, &Epoch, &sources()), Err(SetupError::NotAFile(p)) if p == dir.join(CANONICAL_NAME)));
        assert_eq!(fs.mode(dir).unwrap(), 0o755, "nothing was changed");
        assert!(fs.metadata(&dir.join("vitaegraph")).is_err());
    }
}

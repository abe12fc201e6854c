//! `import linkedin | json-resume` and `export json-resume` over the filesystem port: where the
//! files go (the server's own selection of the Career Context and VitaeGraph root), the plan
//! against what is there (new, changed, unchanged, only in the person's files), and one
//! atomic set of writes. The rules are `domain::portable`'s; this reads and writes.

use std::path::{Path, PathBuf};

use domain::career::Selection;
use domain::career::select::{CANONICAL_NAME, DEFAULT_DIR};
use domain::graph::{GENERATED_DIR, MAX_RECORD_BYTES, RecordType};
use domain::portable::json_resume::{self, Resume};
use domain::portable::redact::{Class, Redact};
use domain::portable::{Career, ImportError, Imported, gather, merge, render};
use ports::Clock;
use ports::fs::{Change, FileKind, FileSystem, FsError, FsErrorKind};

use crate::sources::Sources;
use crate::usecase::career::{self, MAX_CONTEXT_BYTES};

/// The largest input read: a LinkedIn archive (the person's own files in it are small, the
/// messages beside them are not, and they are never inflated) or a `resume.json`.
pub const MAX_INPUT_BYTES: u64 = 256 * 1024 * 1024;

#[derive(Debug, thiserror::Error)]
pub enum PortableError {
    #[error(transparent)]
    Input(#[from] ImportError),
    #[error("{}: {}", .0.path.display(), .0.detail)]
    Fs(FsError),
    #[error("{0}")]
    Usage(String),
}

impl From<FsError> for PortableError {
    fn from(e: FsError) -> Self {
        PortableError::Fs(e)
    }
}

/// Where an import writes: the Career Context and the VitaeGraph root the server would serve.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    pub context: PathBuf,
    pub root: PathBuf,
}

/// `--context`, `$VITAECONTEXT_CAREER_CONTEXT`, the file the server finds, else
/// `~/.vitaecontext/career-context.md`; `--root`, `$VITAEGRAPH_ROOT`, else
/// `~/.vitaecontext/vitaegraph`. Two candidate files and no flag: refused, naming them.
pub fn target(fs: &dyn FileSystem, sources: &Sources) -> Result<Target, PortableError> {
    let context = match career::select(fs, sources) {
        Selection::Selected { path, .. } => path,
        Selection::Missing { .. } => sources
            .home
            .as_ref()
            .map(|h| h.join(DEFAULT_DIR).join(CANONICAL_NAME))
            .ok_or_else(|| PortableError::Usage("HOME is not set: pass --context FILE and --root DIR".into()))?,
        Selection::Ambiguous { candidates } => {
            return Err(PortableError::Usage(format!(
                "several Career Context files could be yours ({}); pass --context FILE to say which",
                candidates.iter().map(|c| c.display().to_string()).collect::<Vec<_>>().join(", ")
            )));
        }
    };
    let root = sources.graph_root().ok_or_else(|| PortableError::Usage("HOME is not set: pass --root DIR".into()))?;
    Ok(Target { context, root })
}

/// Reads the input file whole (at most [`MAX_INPUT_BYTES`]), as the person named it.
pub fn read_input(fs: &dyn FileSystem, path: &Path) -> Result<Vec<u8>, PortableError> {
    fs.read(path, MAX_INPUT_BYTES).map_err(|e| match e.kind {
        FsErrorKind::TooLarge => PortableError::Input(ImportError::TooLarge {
            file: path.display().to_string(),
            reason: format!("it is over {} MiB", MAX_INPUT_BYTES >> 20),
        }),
        _ => PortableError::Fs(e),
    })
}

/// What becomes of one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    New,
    Changed,
    Unchanged,
}

impl State {
    pub fn word(self) -> &'static str {
        match self {
            State::New => "new",
            State::Changed => "changed",
            State::Unchanged => "unchanged",
        }
    }
}

#[derive(Debug, Clone)]
pub struct Planned {
    pub path: PathBuf,
    pub state: State,
    pub old: Option<String>,
    pub new: String,
}

/// The import's plan against the files there.
#[derive(Debug, Clone)]
pub struct Plan {
    pub target: Target,
    pub files: Vec<Planned>,
    /// Records of the graph the import did not produce (kept as they are).
    pub only_yours: Vec<PathBuf>,
    /// Records that exist but have no front matter to lay the import over: left as they are.
    pub left_alone: Vec<PathBuf>,
    /// What the Career Context still needs from the person once written.
    pub to_fill: Vec<String>,
    /// The root has no `VITAEGRAPH.md` yet: `graph init` makes the layout first.
    pub layout_missing: bool,
    pub facts: usize,
}

impl Plan {
    /// Whether any file the plan touches exists: then it is written only with `--write`.
    pub fn touches_existing(&self) -> bool {
        self.files.iter().any(|f| f.old.is_some())
    }

    pub fn count(&self, state: State) -> usize {
        self.files.iter().filter(|f| f.state == state).count()
    }
}

/// Reads a file that may not be there: `None` when it is missing. A symlink below the root, or
/// anything but a regular file, is refused: the import writes only plain files it can see.
fn existing(fs: &dyn FileSystem, path: &Path, max: u64) -> Result<Option<String>, PortableError> {
    match fs.symlink_metadata(path) {
        Err(e) if matches!(e.kind, FsErrorKind::NotFound) => return Ok(None),
        Err(e) => return Err(e.into()),
        Ok(m) if m.kind != FileKind::File => {
            return Err(PortableError::Usage(format!(
                "{} is not a plain file (a symlink, a folder or a device); the import writes only plain files. Move it away and run the import again",
                path.display()
            )));
        }
        Ok(_) => {}
    }
    let bytes = fs.read(path, max)?;
    Ok(Some(String::from_utf8_lossy(&bytes).into_owned()))
}

/// No folder between the root and `path` may be a symlink: said plainly before anything is
/// written (the writes refuse one anyway, through `FileSystem::write_atomic_set_beneath`).
fn check_folders(fs: &dyn FileSystem, root: &Path, path: &Path) -> Result<(), PortableError> {
    let Ok(rel) = path.strip_prefix(root) else { return Ok(()) };
    let mut at = root.to_path_buf();
    let parts: Vec<_> = rel.components().collect();
    for c in &parts[..parts.len().saturating_sub(1)] {
        at.push(c);
        if let Ok(m) = fs.symlink_metadata(&at)
            && m.kind != FileKind::Dir
        {
            return Err(PortableError::Usage(format!(
                "{} is not a plain folder (a symlink or a file); the import does not write through it",
                at.display()
            )));
        }
    }
    Ok(())
}

/// The plan of an import: the Career Context and each record, new, changed or unchanged.
pub fn plan(fs: &dyn FileSystem, target: &Target, imported: &Imported, origin: &str) -> Result<Plan, PortableError> {
    let career = &imported.career;
    let rendered = render::render(career, origin);
    let ids = render::record_ids(career);
    let mut files = Vec::new();
    let context_text = match existing(fs, &target.context, MAX_CONTEXT_BYTES)? {
        None => {
            files.push(Planned {
                path: target.context.clone(),
                state: State::New,
                old: None,
                new: rendered.context.clone(),
            });
            rendered.context.clone()
        }
        Some(old) => {
            let merged = merge::merge_context(&old, career, &ids);
            let state = if merged == old { State::Unchanged } else { State::Changed };
            files.push(Planned { path: target.context.clone(), state, old: Some(old), new: merged.clone() });
            merged
        }
    };
    let mut left_alone = Vec::new();
    for r in &rendered.records {
        let path = target.root.join(&r.path);
        check_folders(fs, &target.root, &path)?;
        match existing(fs, &path, MAX_RECORD_BYTES)? {
            None => files.push(Planned { path, state: State::New, old: None, new: r.text.clone() }),
            Some(old) => match merge::merge_record(&old, &r.text) {
                Some(merged) => {
                    let state = if merged == old { State::Unchanged } else { State::Changed };
                    files.push(Planned { path, state, old: Some(old), new: merged });
                }
                None => left_alone.push(path),
            },
        }
    }
    let produced: Vec<&Path> = files.iter().map(|f| f.path.as_path()).collect();
    let only_yours = record_files(fs, &target.root)
        .into_iter()
        .filter(|p| !produced.contains(&p.as_path()) && !left_alone.contains(p))
        .collect();
    let v = domain::career::validate(&context_text, domain::career::FileFacts::default());
    // The FILL IN markers say what the import could not know; any other error (in a file the
    // person had) is named by its line.
    let mut to_fill = render::to_fill(&context_text);
    let covered = ["missing_scope_declaration", "missing_verified_facts", "missing_quick_field"];
    for d in &v.errors {
        if !covered.contains(&d.code.as_str()) || !context_text.contains(render::FILL_IN) {
            to_fill.push(format!("line {}: {}", d.line, d.message));
        }
    }
    let layout_missing = fs.symlink_metadata(&target.root.join("VITAEGRAPH.md")).is_err();
    Ok(Plan {
        target: target.clone(),
        files,
        only_yours,
        left_alone,
        to_fill,
        layout_missing,
        facts: career.fact_count(),
    })
}

/// The record files below the root (the six folders an import writes into), sorted.
pub fn record_files(fs: &dyn FileSystem, root: &Path) -> Vec<PathBuf> {
    let Ok(walk) = fs.walk(root, &[GENERATED_DIR]) else { return Vec::new() };
    let dirs: Vec<&str> = [
        RecordType::Experience,
        RecordType::Education,
        RecordType::Project,
        RecordType::Certification,
        RecordType::Award,
        RecordType::Publication,
    ]
    .map(RecordType::directory)
    .to_vec();
    walk.files
        .into_iter()
        .filter(|p| {
            p.extension().is_some_and(|e| e == "md")
                && p.strip_prefix(root)
                    .ok()
                    .and_then(|r| r.components().next())
                    .is_some_and(|c| dirs.iter().any(|d| c.as_os_str() == *d))
                && !p.components().any(|c| c.as_os_str() == "courses")
                && p.file_name().is_none_or(|n| n != "thesis.md")
        })
        .collect()
}

/// Writes the plan's new and changed files as one set (all or nothing), after making the
/// graph's layout (`graph init`, which creates only what is missing) and the folders.
pub fn apply(fs: &dyn FileSystem, clock: &dyn Clock, plan: &Plan) -> Result<usize, PortableError> {
    let writes: Vec<&Planned> = plan.files.iter().filter(|f| f.state != State::Unchanged).collect();
    if writes.is_empty() {
        return Ok(0);
    }
    if let Some(dir) = plan.target.context.parent() {
        fs.create_private_dir_all(dir)?;
    }
    crate::usecase::graph::init(fs, clock, &plan.target.root, false)?;
    // A file below the root goes through folders reached from it with no symlink followed, and
    // made that way: one made a symlink since the plan looked fails the import whole, and
    // nothing lands on its other side. The Career Context's folder is configuration, followed.
    let root = plan.target.root.as_path();
    let mut changes = Vec::with_capacity(writes.len());
    for f in &writes {
        let (base, relative) = match (f.path.strip_prefix(root), f.path.parent(), f.path.file_name()) {
            (Ok(relative), ..) => (root, relative),
            (Err(_), Some(parent), Some(name)) => (parent, Path::new(name)),
            _ => return Err(FsError::new(FsErrorKind::InvalidPath, &f.path, "not a file's path").into()),
        };
        if let Some(folder) = relative.parent().filter(|p| !p.as_os_str().is_empty()) {
            // Looked at first for the message; what is made below does not rely on it.
            check_folders(fs, root, &f.path)?;
            fs.create_private_dir_beneath(base, folder)?;
        }
        changes.push((base, Change::Write(relative, f.new.as_bytes())));
    }
    fs.write_atomic_set_beneath(&changes)?;
    Ok(writes.len())
}

/// The career the person's files hold, as the export reads it: the Career Context selected as
/// the server selects it (when there is one) and every record below the root (symlinks not
/// followed, a file over the record cap skipped).
pub fn gather(fs: &dyn FileSystem, sources: &Sources) -> Result<(Career, Gathered), PortableError> {
    let mut g = Gathered::default();
    let context = match career::select(fs, sources) {
        Selection::Selected { path, .. } => match career::read_text(fs, &path) {
            Ok(text) => {
                g.context = Some(path.clone());
                Some((text, career::file_name(&path)))
            }
            Err(career::LoadError::NotFound(_)) => None,
            Err(e) => return Err(PortableError::Usage(e.to_string())),
        },
        Selection::Ambiguous { candidates } => {
            return Err(PortableError::Usage(format!(
                "several Career Context files could be yours ({}); pass --context FILE",
                candidates.iter().map(|c| c.display().to_string()).collect::<Vec<_>>().join(", ")
            )));
        }
        Selection::Missing { .. } => None,
    };
    let mut records = Vec::new();
    if let Some(root) = sources.graph_root()
        && fs.metadata(&root).is_ok_and(|m| m.kind == FileKind::Dir)
    {
        for path in record_files(fs, &root) {
            let Ok(rel) = path.strip_prefix(&root) else { continue };
            match fs.read_beneath(&root, rel, MAX_RECORD_BYTES) {
                Ok((bytes, _)) => {
                    if let Ok(text) = String::from_utf8(bytes) {
                        records.push((rel.to_string_lossy().into_owned(), text));
                    }
                }
                Err(e) => tracing::warn!("{} not exported: {}", path.display(), e.detail),
            }
        }
        g.root = Some(root);
    }
    g.records = records.len();
    let career = gather::gather(context.as_ref().map(|(t, n)| (t.as_str(), n.as_str())), &records);
    Ok((career, g))
}

/// Where the export's facts came from.
#[derive(Debug, Default)]
pub struct Gathered {
    pub context: Option<PathBuf>,
    pub root: Option<PathBuf>,
    pub records: usize,
    /// Private records left out.
    pub private_left_out: usize,
}

/// The JSON Resume of the person's files: private records left out unless `include_private`,
/// the redacted classes' fields left out.
pub fn export(
    fs: &dyn FileSystem,
    sources: &Sources,
    include_private: bool,
    redact: &Redact,
) -> Result<(Resume, Gathered), PortableError> {
    let (mut career, mut g) = gather(fs, sources)?;
    if !include_private {
        let before = career.entries.len();
        career.entries.retain(|e| !e.private);
        g.private_left_out = before - career.entries.len();
    }
    if redact.classes().contains(&Class::Contact) {
        career.person.email = None;
        career.person.phone = None;
    }
    Ok((json_resume::from_career(&career), g))
}

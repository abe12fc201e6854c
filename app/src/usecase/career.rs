//! The Career Context use cases over the filesystem port: select, load, validate, packet.
//!
//! [`ContextCache::current`] is the one way the server gets "the current Career Context":
//! select, read, parse and validate, or a notice saying why there is none. The resource, both
//! tools, every prompt and completion call it.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use domain::career::{self, Diagnostic, FileFacts, Selection, Surface, Validation};
use ports::fs::{FileSystem, FsErrorKind};
use serde_json::{Value, json};

use crate::sources::Sources;

/// The largest Career Context read (a real one is a few tens of KiB).
pub const MAX_CONTEXT_BYTES: u64 = 16 * 1024 * 1024;

/// A Career Context read from disk and validated.
#[derive(Debug)]
pub struct Loaded {
    pub path: PathBuf,
    pub text: String,
    pub validation: Validation,
    /// What is left out of the packets and the file as shared (`--redact`; none by default).
    pub redact: domain::portable::redact::Redact,
    /// The fact model `check` reads, built on first use and kept with this version of the
    /// file (a `Loaded` is cached per version, so every check of it shares one model).
    facts: std::sync::OnceLock<std::sync::Arc<domain::grounding::facts::FactModel>>,
}

impl Loaded {
    /// The file's text as it is shared (the `career-context://current` resource): the redacted
    /// classes' QUICK REFERENCE keys and labelled lines left out; the file itself when none is.
    pub fn shared_text(&self) -> std::borrow::Cow<'_, str> {
        if self.redact.is_off() {
            std::borrow::Cow::Borrowed(&self.text)
        } else {
            self.redact.packet(&self.text).into()
        }
    }

    /// The file's fact model, built once (`file_name` is cited as the evidence's file).
    pub fn facts(&self, file_name: &str) -> std::sync::Arc<domain::grounding::facts::FactModel> {
        self.facts
            .get_or_init(|| std::sync::Arc::new(domain::grounding::facts::FactModel::of_context(file_name, &self.text)))
            .clone()
    }
}

#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("Career Context file does not exist: {}", .0.display())]
    NotFound(PathBuf),
    #[error("Career Context path is not a file: {}", .0.display())]
    NotAFile(PathBuf),
    #[error("Career Context file is larger than {} MiB: {}", MAX_CONTEXT_BYTES / 1024 / 1024, .0.display())]
    TooLarge(PathBuf),
    #[error("Career Context file could not be read: {0}")]
    Unreadable(ports::fs::FsError),
}

pub fn select(fs: &dyn FileSystem, sources: &Sources) -> Selection {
    career::select(&sources.selection_input(fs))
}

/// Reads the file as text; invalid UTF-8 becomes U+FFFD, as VitaeContext 2.x reads it.
pub fn read_text(fs: &dyn FileSystem, path: &Path) -> Result<String, LoadError> {
    match fs.read(path, MAX_CONTEXT_BYTES) {
        // Valid UTF-8 is taken as it is: no second copy of a 16 MiB file.
        Ok(bytes) => {
            Ok(String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()))
        }
        Err(e) => Err(match e.kind {
            FsErrorKind::NotFound | FsErrorKind::NotADirectory => LoadError::NotFound(path.to_path_buf()),
            FsErrorKind::IsADirectory | FsErrorKind::NotAFile => LoadError::NotAFile(path.to_path_buf()),
            FsErrorKind::TooLarge => LoadError::TooLarge(path.to_path_buf()),
            _ => LoadError::Unreadable(e),
        }),
    }
}

/// Whether `path` lies inside a git work tree: some parent folder holds a `.git` entry.
pub fn in_git_worktree(fs: &dyn FileSystem, path: &Path) -> bool {
    path.ancestors().skip(1).any(|dir| fs.symlink_metadata(&dir.join(".git")).is_ok())
}

pub fn load(fs: &dyn FileSystem, path: &Path) -> Result<Loaded, LoadError> {
    let text = read_text(fs, path)?;
    let validation = career::validate(&text, FileFacts { in_git_worktree: in_git_worktree(fs, path) });
    Ok(Loaded { path: path.to_path_buf(), text, validation, redact: Default::default(), facts: Default::default() })
}

pub fn file_name(path: &Path) -> String {
    path.file_name().map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into_owned())
}

/// The notice shown in place of a Career Context when none is selected.
pub fn selection_notice(selection: &Selection) -> Option<String> {
    match selection {
        Selection::Selected { .. } => None,
        Selection::Missing { looked_in } => {
            let places: String = if looked_in.is_empty() {
                "- (no home folder is set, so ~/.vitaecontext/ could not be searched)\n".into()
            } else {
                looked_in.iter().map(|p| format!("- `{}`\n", p.display())).collect()
            };
            Some(format!(
                "# Career Context not found\n\n\
                 No Career Context file is selected, so there are no career facts to share yet.\n\n\
                 vitaecontext looked for:\n{places}\n\
                 To fix this, do one of:\n\
                 - run `vitaecontext context init` and fill in the starter file it writes to `~/.vitaecontext/career-context.md`;\n\
                 - start the server with `--context FILE` pointing at an existing Career Context;\n\
                 - set the `VITAECONTEXT_CAREER_CONTEXT` environment variable to that file.\n\n\
                 Until then, ask the person for the facts you need instead of guessing them.\n"
            ))
        }
        Selection::Ambiguous { candidates } => {
            let list: String = candidates.iter().map(|p| format!("- `{}`\n", p.display())).collect();
            Some(format!(
                "# Career Context not selected\n\n\
                 Several Career Context files were found in `~/.vitaecontext/`, and vitaecontext will not guess which one is meant:\n{list}\n\
                 To choose, do one of:\n\
                 - start the server with `--context FILE`;\n\
                 - set the `VITAECONTEXT_CAREER_CONTEXT` environment variable to the file;\n\
                 - rename the file you use to `~/.vitaecontext/career-context.md`.\n"
            ))
        }
    }
}

/// The notice for a selected file that cannot be read: what is wrong, and what to do about
/// that particular problem (a folder is not "created" with `context init`).
pub fn load_notice(path: &Path, error: &LoadError) -> String {
    let p = path.display();
    let fix = match error {
        LoadError::NotFound(_) => format!(
            "Create it with `vitaecontext context init --output {p}`, or point `--context` / \
             `VITAECONTEXT_CAREER_CONTEXT` at an existing Career Context."
        ),
        LoadError::NotAFile(_) => format!(
            "`{p}` is a folder (or another kind of non-file), not a Markdown file. Point `--context` / \
             `VITAECONTEXT_CAREER_CONTEXT` at the Career Context file itself, for example `{}`.",
            path.join(career::select::CANONICAL_NAME).display()
        ),
        LoadError::TooLarge(_) => "A Career Context is a curated summary of a few pages; split the rest into \
             VitaeGraph records."
            .into(),
        LoadError::Unreadable(_) => "Check that the file is readable by the user the server runs as.".into(),
    };
    format!("# Career Context unavailable\n\n{error}\n\nThe server was configured to use `{p}`. {fix}\n")
}

/// Why no Career Context is selected, in words for a person at a terminal: (what, what to do).
pub fn selection_problem(selection: &Selection) -> Option<(String, String)> {
    match selection {
        Selection::Selected { .. } => None,
        Selection::Missing { looked_in } => {
            let places: Vec<String> = looked_in.iter().map(|p| p.display().to_string()).collect();
            let what = if places.is_empty() {
                "No Career Context found: HOME is not set, so ~/.vitaecontext/ could not be searched".to_owned()
            } else {
                format!("No Career Context found (looked for {})", places.join(", "))
            };
            Some((
                what,
                "create one with `vitaecontext init`, or pass the file as FILE, or set VITAECONTEXT_CAREER_CONTEXT"
                    .into(),
            ))
        }
        Selection::Ambiguous { candidates } => {
            let list: Vec<String> = candidates.iter().map(|p| p.display().to_string()).collect();
            Some((
                format!("Several Career Context files in ~/.vitaecontext/ and none is chosen: {}", list.join(", ")),
                "pass the one you mean as FILE, set VITAECONTEXT_CAREER_CONTEXT, or rename it to \
                 ~/.vitaecontext/career-context.md"
                    .into(),
            ))
        }
    }
}

pub fn diagnostic_json(d: &Diagnostic) -> Value {
    json!({
        "code": d.code.as_str(),
        "line": d.line,
        "message": d.message,
        "severity": d.severity.as_str(),
        "column": d.column,
        "endColumn": d.end_column,
    })
}

/// `context validate --json`: `{schemaVersion: 2, valid, path, title, sectionNames, errors, warnings}`.
pub fn validation_json(loaded: &Loaded) -> Value {
    let v = &loaded.validation;
    json!({
        "schemaVersion": 2,
        "valid": v.valid,
        "path": loaded.path.display().to_string(),
        "title": v.title,
        "sectionNames": v.section_names(),
        "errors": v.errors.iter().map(diagnostic_json).collect::<Vec<_>>(),
        "warnings": v.warnings.iter().map(diagnostic_json).collect::<Vec<_>>(),
    })
}

/// A short list of the first errors with their lines, for tool results.
pub fn first_errors(v: &Validation, max: usize) -> String {
    let mut out: String = v
        .errors
        .iter()
        .take(max)
        .map(|d| format!("- line {}: [{}] {}\n", d.line, d.code.as_str(), d.message))
        .collect();
    if v.errors.len() > max {
        out.push_str(&format!("- ... and {} more\n", v.errors.len() - max));
    }
    out
}

/// The packet JSON of `context summary --json`.
pub fn packet_json(loaded: &Loaded, p: &career::Packet, output: Option<&Path>) -> Value {
    let mut v = json!({
        "schemaVersion": 2,
        "source": loaded.path.display().to_string(),
        "surface": p.surface.as_str(),
        "title": loaded.validation.title,
        "selectedSections": p.selected_sections,
        "content": p.content,
    });
    if let Some(o) = output {
        v["output"] = json!(o.display().to_string());
    }
    v
}

/// The notice for a selected file that does not validate: one wording everywhere.
pub fn invalid_notice(loaded: &Loaded) -> String {
    format!(
        "The Career Context at `{}` is not valid ({} error(s)), so no packet was produced. \
         Ask the person to fix these, or to run `vitaecontext context validate` for details:\n{}",
        loaded.path.display(),
        loaded.validation.errors.len(),
        first_errors(&loaded.validation, 10)
    )
}

/// The packet for `surface`, or (for an invalid file) the notice saying why there is none.
pub fn packet_of(loaded: &Loaded, surface: Surface) -> Result<String, String> {
    career::packet(&loaded.validation, &loaded.text, &file_name(&loaded.path), surface)
        .map(|p| loaded.redact.packet(&p.content))
        .map_err(|_| invalid_notice(loaded))
}

/// The current Career Context as the server sees it.
#[derive(Debug, Clone)]
pub enum Current {
    /// Selected, read and validated (valid or not).
    Loaded(Arc<Loaded>),
    /// None is usable (missing, ambiguous, unreadable): a notice saying why and what to do.
    Unavailable(String),
}

/// What identifies one version of the file: its path, stamp and length, and whether it lies
/// in a git work tree (a validation fact).
type Key = (PathBuf, u128, u64, bool);

/// The last Career Context loaded, kept while its file is unchanged, so that concurrent and
/// repeated requests share one parsed copy instead of each reading up to 16 MiB.
#[derive(Debug, Default)]
pub struct ContextCache {
    last: Mutex<Option<(Key, Arc<Loaded>)>>,
}

impl ContextCache {
    /// Selects, reads, parses and validates the current Career Context, or says why there is
    /// none. The file is read again only when its stamp or length changed; the lock is held
    /// while loading so that concurrent callers wait for one load and share it.
    pub fn current(&self, fs: &dyn FileSystem, sources: &Sources) -> Current {
        let path = match select(fs, sources) {
            Selection::Selected { path, .. } => path,
            other => return Current::Unavailable(selection_notice(&other).unwrap_or_default()),
        };
        let mut last = self.last.lock().unwrap_or_else(|p| p.into_inner());
        let key = fs.metadata(&path).ok().map(|m| (path.clone(), m.stamp, m.len, in_git_worktree(fs, &path)));
        if let (Some(key), Some((cached, loaded))) = (&key, last.as_ref())
            && key == cached
        {
            return Current::Loaded(Arc::clone(loaded));
        }
        match load(fs, &path) {
            Ok(mut loaded) => {
                loaded.redact = sources.redact.clone();
                let loaded = Arc::new(loaded);
                *last = key.map(|k| (k, Arc::clone(&loaded)));
                Current::Loaded(loaded)
            }
            Err(e) => {
                *last = None;
                Current::Unavailable(load_notice(&path, &e))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fs_memory::MemoryFs;
    use proptest::prelude::*;

    proptest! {
        // Any bytes at all, invalid UTF-8 included, load without a panic and give a packet or
        // a reason, never both.
        #[test]
        fn any_bytes_load_and_packet_or_explain(bytes in proptest::collection::vec(any::<u8>(), 0..600)) {
            let fs = MemoryFs::new();
            let path = Path::new("/home/p/ctx.md");
            fs.create_dir_all(Path::new("/home/p")).unwrap();
            fs.write_atomic(path, &bytes).unwrap();
            let loaded = load(&fs, path).unwrap();
            prop_assert_eq!(loaded.text.chars().count() > 0, !bytes.is_empty());
            let sources = Sources { context_flag: Some("/home/p/ctx.md".into()), cwd: "/".into(), ..Default::default() };
            let Current::Loaded(current) = ContextCache::default().current(&fs, &sources) else {
                return Err(TestCaseError::fail("a readable file is loaded"));
            };
            prop_assert_eq!(packet_of(&current, Surface::Cv).is_ok(), loaded.validation.valid);
        }
    }

    /// Found in review: `~/.vitaecontext` at 000 (for a user other than root) hid the file,
    /// and the answer was "No Career Context found", with advice to create one, which fails
    /// the same way. The file is now taken as there, and reading it says why.
    #[test]
    fn a_default_folder_that_cannot_be_searched_is_unreadable_not_missing() {
        let fs = MemoryFs::new();
        let dir = Path::new("/home/p/.vitaecontext");
        fs.create_dir_all(dir).unwrap();
        fs.write_atomic(&dir.join("career-context.md"), b"# A\n").unwrap();
        fs.set_mode(dir, 0o000).unwrap();
        let sources = Sources { home: Some("/home/p".into()), cwd: "/".into(), ..Default::default() };
        let Current::Unavailable(notice) = ContextCache::default().current(&fs, &sources) else {
            panic!("nothing can be read");
        };
        assert!(notice.contains("could not be read") && notice.contains("Permission denied"), "{notice}");
        assert!(!notice.contains("No Career Context found"), "{notice}");
        fs.set_mode(dir, 0o700).unwrap();
        assert!(matches!(ContextCache::default().current(&fs, &sources), Current::Loaded(_)));
    }

    #[test]
    fn an_unchanged_file_is_loaded_once_and_a_changed_one_again() {
        let fs = MemoryFs::new();
        let path = Path::new("/home/p/ctx.md");
        fs.create_dir_all(Path::new("/home/p")).unwrap();
        fs.write_atomic(path, b"# A\n").unwrap();
        let sources = Sources { context_flag: Some("/home/p/ctx.md".into()), cwd: "/".into(), ..Default::default() };
        let cache = ContextCache::default();
        let (Current::Loaded(a), Current::Loaded(b)) = (cache.current(&fs, &sources), cache.current(&fs, &sources))
        else {
            panic!("loaded")
        };
        assert!(Arc::ptr_eq(&a, &b), "the second request shares the first load");
        fs.write_atomic(path, b"# B\n").unwrap();
        let Current::Loaded(c) = cache.current(&fs, &sources) else { panic!("loaded") };
        assert_eq!(c.text, "# B\n", "an edited file is read again");
        fs.remove_file(path).unwrap();
        assert!(matches!(cache.current(&fs, &sources), Current::Unavailable(_)), "a removed file is not served");
    }

    #[test]
    fn a_fifo_or_a_folder_is_not_a_career_context() {
        let fs = MemoryFs::new();
        fs.create_dir_all(Path::new("/d")).unwrap();
        fs.make_special(Path::new("/d/pipe")).unwrap();
        assert!(matches!(load(&fs, Path::new("/d/pipe")), Err(LoadError::NotAFile(_))));
        assert!(matches!(load(&fs, Path::new("/d")), Err(LoadError::NotAFile(_))));
        assert!(matches!(load(&fs, Path::new("/d/none")), Err(LoadError::NotFound(_))));
    }
}

//! `vitaecontext context validate | summary | init`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use domain::career::{self, Selection, Surface};
use miette::miette;
use ports::Clock;
use ports::fs::{FileSystem, FsErrorKind};

use super::{Failure, Outcome, err, out, pretty};
use crate::report;
use crate::sources::Sources;
use crate::usecase::career::{self as usecase, LoadError, Loaded};

/// FILE if given, else the server's selection (said on stderr, with the rule that chose it).
fn resolve(fs: &dyn FileSystem, sources: &Sources, file: Option<&Path>) -> Result<PathBuf, Failure> {
    if let Some(f) = file {
        let raw = f.to_string_lossy();
        return Ok(career::select::expand_path(&raw, sources.home.as_deref(), &sources.cwd));
    }
    match usecase::select(fs, sources) {
        Selection::Selected { path, rule } => {
            err(&format!("Using {} ({})\n", path.display(), rule.describe()));
            Ok(path)
        }
        other => {
            let (what, help) = usecase::selection_problem(&other).unwrap_or_default();
            Err(Failure::usage(miette!(help = help, "{what}")))
        }
    }
}

fn load(fs: &dyn FileSystem, path: &Path) -> Result<Loaded, Failure> {
    usecase::load(fs, path).map_err(|e| {
        let help = match e {
            LoadError::NotFound(_) => "check the path, or create a starter file with `vitaecontext context init`",
            _ => "pass the path of a readable Markdown file",
        };
        Failure::usage(miette!(help = help, "{e}"))
    })
}

pub fn validate(fs: &dyn FileSystem, sources: &Sources, file: Option<&Path>, json: bool) -> Outcome {
    let path = resolve(fs, sources, file)?;
    let loaded = load(fs, &path)?;
    let v = &loaded.validation;
    if json {
        out(&format!("{}\n", pretty(&usecase::validation_json(&loaded))));
    } else {
        if loaded.text.trim().is_empty() {
            // Every finding below is "missing" (2.3.0's, at line 1): say the one thing to do.
            err(&format!(
                "{} is empty: `vitaecontext context init --output {} --force` writes a starter with every section\n\n",
                path.display(),
                super::shell_path(&path)
            ));
        }
        let findings = report::findings(&path.display().to_string(), &loaded.text, v);
        err(&report::render(&findings, 100, report::stderr_color()));
        if v.valid {
            let note =
                if v.warnings.is_empty() { String::new() } else { format!(" ({} warning(s))", v.warnings.len()) };
            out(&format!("Career Context valid: {}{note}\n", path.display()));
        } else {
            err(&format!(
                "Career Context invalid: {} error(s), {} warning(s) in {}\n",
                v.errors.len(),
                v.warnings.len(),
                path.display()
            ));
        }
    }
    Ok(if v.valid { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

/// Writes `bytes` to `path` atomically; refuses an existing file unless `force`. With
/// `backup` (a Career Context: the person's own writing), a file replaced with other bytes is
/// kept beside it first, as every command that replaces a person's file does; returns where.
pub(crate) fn write_output(
    fs: &dyn FileSystem,
    path: &Path,
    bytes: &[u8],
    force: bool,
    private_dir: bool,
    backup: Option<&dyn Clock>,
) -> Result<Option<PathBuf>, Failure> {
    if fs.metadata(path).is_ok_and(|m| m.kind == ports::fs::FileKind::Dir) {
        let example = if private_dir { "career-context.md" } else { "packet.md" };
        return Err(Failure::usage(miette!(
            help = format!("give the path of the file to write, for example {}", path.join(example).display()),
            "{} is a folder, not a file; nothing was written",
            path.display()
        )));
    }
    if let Some(dir) = path.parent() {
        let made = if private_dir { fs.create_private_dir_all(dir) } else { fs.create_dir_all(dir) };
        made.map_err(|e| Failure::failed(miette!("could not create the folder {}: {}", dir.display(), e.detail)))?;
    }
    let mut kept = None;
    if let (true, Some(clock)) = (force, backup)
        && fs.metadata(path).is_ok_and(|m| m.kind == ports::fs::FileKind::File)
    {
        let old = fs.read(path, usecase::MAX_CONTEXT_BYTES).map_err(|e| {
            Failure::failed(miette!(
                "could not read {} to keep a backup; nothing was written: {}",
                path.display(),
                e.detail
            ))
        })?;
        if old != bytes {
            let at = crate::usecase::write_backup(fs, clock, path, &old).map_err(|e| {
                Failure::failed(miette!("could not keep a backup of {}; nothing was written: {e}", path.display()))
            })?;
            kept = Some(at);
        }
    }
    let written = if force { fs.write_atomic(path, bytes) } else { fs.write_new(path, bytes) };
    if let (Err(_), Some(kept)) = (&written, &kept) {
        // Nothing was replaced (a read-only file, say): no backup of it is left either.
        let _ = fs.remove_file(kept);
    }
    written.map_err(|e| match e.kind {
        FsErrorKind::AlreadyExists => Failure::failed(miette!(
            help = "pass --force to replace it, or choose another path",
            "{} already exists; nothing was written",
            path.display()
        )),
        _ => Failure::failed(miette!("could not write {}: {}", path.display(), e.detail)),
    })?;
    Ok(kept)
}

pub struct SummaryArgs<'a> {
    pub file: Option<&'a Path>,
    pub surface: Surface,
    pub output: Option<&'a Path>,
    pub json: bool,
    pub force: bool,
}

pub fn summary(fs: &dyn FileSystem, sources: &Sources, a: SummaryArgs<'_>) -> Outcome {
    let path = resolve(fs, sources, a.file)?;
    let loaded = load(fs, &path)?;
    let packet =
        career::packet(&loaded.validation, &loaded.text, &usecase::file_name(&path), a.surface).map_err(|e| {
            Failure::failed(miette!(
                help = format!("run `vitaecontext context validate {}` to see each error", super::shell_path(&path)),
                "{e}"
            ))
        })?;
    let output =
        a.output.map(|o| career::select::expand_path(&o.to_string_lossy(), sources.home.as_deref(), &sources.cwd));
    if let Some(o) = &output {
        // The packet in place of the file it is cut from would lose the person's writing, and
        // `--force` is about replacing an old packet (found in review: it did, with no backup).
        if fs.canonicalize(o).is_ok_and(|o| fs.canonicalize(&path).is_ok_and(|p| p == o)) {
            return Err(Failure::usage(miette!(
                help = "write the packet to another file, for example cv-packet.md",
                "{} is the Career Context this packet is made from; nothing was written",
                o.display()
            )));
        }
        write_output(fs, o, packet.content.as_bytes(), a.force, false, None)?;
    }
    if a.json {
        out(&format!("{}\n", pretty(&usecase::packet_json(&loaded, &packet, output.as_deref()))));
    } else if let Some(o) = &output {
        out(&format!("Wrote the {} Career Context packet to {}\n", packet.surface, o.display()));
    } else {
        out(&packet.content);
    }
    Ok(ExitCode::SUCCESS)
}

pub fn init(
    fs: &dyn FileSystem,
    clock: &dyn Clock,
    sources: &Sources,
    output: Option<&Path>,
    force: bool,
    json: bool,
) -> Outcome {
    let path = match output {
        Some(o) => career::select::expand_path(&o.to_string_lossy(), sources.home.as_deref(), &sources.cwd),
        None => sources
            .home
            .as_ref()
            .map(|h| h.join(career::select::DEFAULT_DIR).join(career::select::CANONICAL_NAME))
            .ok_or_else(|| Failure::usage(miette!(help = "pass --output PATH", "HOME is not set")))?,
    };
    let backup = write_output(fs, &path, career::STARTER.as_bytes(), force, true, Some(clock))?;
    if json {
        let mut v = serde_json::json!({ "schemaVersion": 2, "path": path.display().to_string() });
        if let Some(b) = &backup {
            v["backup"] = serde_json::json!(b.display().to_string());
        }
        out(&format!("{}\n", pretty(&v)));
    } else {
        out(&format!("Initialized Career Context at {}\n", path.display()));
        if let Some(b) = &backup {
            out(&format!("The file it replaced is kept as {}\n", b.display()));
        }
        err(&format!(
            "Next: replace every [bracketed] placeholder with your own facts, then run\n  vitaecontext context validate {}\n",
            super::shell_path(&path)
        ));
    }
    Ok(ExitCode::SUCCESS)
}

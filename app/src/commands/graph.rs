//! `vitaecontext graph init | validate | index` (`index --watch` is in `watch.rs`).

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Mutex;
use std::time::Duration;

use miette::miette;
use ports::Clock;
use ports::fs::FileSystem;

use super::{Failure, Outcome, err, out};
use crate::report;
use crate::sources::Sources;
use crate::usecase::graph::{self as usecase, GraphError, Progress};

/// Progress lines on stderr, at most one a second (see [`Throttle`]).
#[derive(Default)]
struct Stderr {
    throttle: Mutex<Throttle>,
}

impl Progress for Stderr {
    fn update(&self, done: usize, total: usize, elapsed: Duration) {
        if self.throttle.lock().unwrap_or_else(|p| p.into_inner()).due(done, total, elapsed) {
            err(&format!("graph: {done}/{total} files read ({elapsed:.1?})\n"));
        }
    }

    fn skipped(&self, path: &Path, why: &str) {
        err(&format!("warning: skipped {}: {why}\n", path.display()));
    }

    fn waiting(&self, root: &Path) {
        err(&format!("graph: waiting for another index of {} to finish\n", root.display()));
    }
}

/// Which progress updates are shown. Updates come from many reader threads, so they can
/// arrive out of order, and at 100,000 records one came every 12 ms: a line is shown when a
/// second has passed since the last one and it counts more files, and the last update (all
/// files read) always is. A quick run says one line.
#[derive(Debug, Default)]
struct Throttle {
    shown: Option<(usize, Duration)>,
}

impl Throttle {
    const EVERY: Duration = Duration::from_secs(1);

    fn due(&mut self, done: usize, total: usize, elapsed: Duration) -> bool {
        let (last_done, last_at) = self.shown.unwrap_or((0, Duration::ZERO));
        let due = done > last_done && (done == total || elapsed >= last_at + Self::EVERY);
        if due {
            self.shown = Some((done, elapsed));
        }
        due
    }
}

/// `--root` (or its alias), then `$VITAEGRAPH_ROOT`, then `~/.vitaecontext/vitaegraph`.
pub(super) fn root(sources: &Sources) -> Result<PathBuf, Failure> {
    sources.graph_root().ok_or_else(|| Failure::usage(miette!(help = "pass --root DIR", "HOME is not set")))
}

pub(super) fn graph_failure(e: GraphError) -> Failure {
    match e {
        GraphError::NoRoot(_) | GraphError::NotADir(_) => Failure::usage(miette!(help = "pass --root DIR", "{e}")),
        GraphError::NotAPlainFolder { .. }
        | GraphError::OutputIsFolder(_)
        | GraphError::DuplicateId { .. }
        | GraphError::NoParent { .. }
        | GraphError::Fs(_)
        | GraphError::Reported(_) => Failure::failed(miette!("{e}")),
    }
}

/// Findings shown with their source lines; past this many, each is one line (the JSON modes
/// and `diagnostics.json` have them all). Rendering a snippet scans its file, so this keeps a
/// crafted graph with 100,000 findings from taking hours to print.
const MAX_FINDINGS_WITH_SOURCE: usize = 200;

pub(super) fn render_findings(fs: &dyn FileSystem, root: &Path, v: &domain::graph::GraphValidation) -> String {
    use std::collections::HashMap;
    use std::sync::Arc;
    // Each file is read once, and its text shared by all of its findings.
    let mut texts: HashMap<String, Option<Arc<str>>> = HashMap::new();
    let all = v.errors.iter().map(|d| (d, false)).chain(v.warnings.iter().map(|d| (d, true)));
    let mut text_of = |path: &str| -> Option<Arc<str>> {
        texts.entry(path.to_owned()).or_insert_with(|| usecase::page_text(fs, root, path).map(Arc::from)).clone()
    };
    let findings: Vec<_> = all
        .enumerate()
        .map(|(i, (d, warning))| {
            let shown = i < MAX_FINDINGS_WITH_SOURCE;
            let text = (shown && d.line.is_some()).then(|| text_of(&d.path)).flatten();
            let other = d.other.as_ref().filter(|o| shown && o.line.is_some()).and_then(|o| text_of(&o.path));
            report::graph_finding(d, warning, text, other)
        })
        .collect();
    report::render_all(&findings, 100, report::stderr_color())
}

pub fn init(fs: &dyn FileSystem, clock: &dyn Clock, sources: &Sources, force: bool) -> Outcome {
    let root = root(sources)?;
    let report = usecase::init(fs, clock, &root, force).map_err(|e| {
        Failure::failed(miette!(
            help = "check that the folder is yours and writable",
            "could not create the VitaeGraph: {e}"
        ))
    })?;
    out(&describe_init(&root, &report));
    // The example record only for a graph that has just been made: in one that was there,
    // `project:my-project` may be taken (found in review: the advice then failed).
    let add = if report.kept.is_empty() {
        format!("`vitaecontext graph add project my-project --title \"My project\"{}`", root_flag(sources))
    } else {
        format!("`vitaecontext graph add TYPE SLUG --title \"...\"{}` (see `graph add --help`)", root_flag(sources))
    };
    err(&format!("Next: add a record with {add}, then run `vitaecontext graph index{}`.\n", root_flag(sources)));
    Ok(ExitCode::SUCCESS)
}

/// ` --root DIR` when the root came from the flag (so a copied next step works as is).
fn root_flag(sources: &Sources) -> String {
    sources.root_flag.as_ref().map(|r| format!(" --root {}", super::shell_path(r))).unwrap_or_default()
}

/// What `graph init` did, one line per change, for a person.
pub fn describe_init(root: &Path, report: &usecase::InitReport) -> String {
    let mut text = if report.created.is_empty() && report.replaced.is_empty() {
        format!("VitaeGraph at {} already complete; nothing was changed\n", root.display())
    } else {
        format!("Initialized VitaeGraph at {}\n", root.display())
    };
    for p in &report.created {
        text.push_str(&format!("- created {}\n", p.display()));
    }
    for (p, backup) in &report.replaced {
        text.push_str(&format!("- replaced {} (the old file is kept as {})\n", p.display(), backup.display()));
    }
    text
}

/// What `graph add` was asked for, as the command line gave it.
#[derive(Debug)]
pub struct AddArgs<'a> {
    pub kind: domain::graph::RecordType,
    pub slug: &'a str,
    pub title: Option<&'a str>,
    pub parent: Option<&'a str>,
    pub tags: &'a [String],
}

pub fn add(fs: &dyn FileSystem, clock: &dyn Clock, sources: &Sources, a: AddArgs<'_>) -> Outcome {
    use domain::graph::new_record::NewRecord;
    let root = root(sources)?;
    let record = NewRecord::new(a.kind, a.slug, a.title, a.parent, a.tags)
        .map_err(|e| Failure::usage(miette!(help = "see `vitaecontext graph add --help`", "{e}")))?;
    let path = usecase::check_new_record(fs, clock, &root, &record, &Stderr::default())
        .and_then(|()| usecase::add(fs, &root, &record))
        .map_err(|e| match e {
            GraphError::Fs(f) if f.kind == ports::fs::FsErrorKind::AlreadyExists => Failure::failed(miette!(
                // A thesis is `thesis.md` in its degree's folder whatever its slug: another slug
                // cannot help there (found in review).
                help = if f.path.to_string_lossy().contains(a.slug) {
                    "choose another slug, or edit the file that is there".to_owned()
                } else {
                    format!(
                        "a {} record has this path whatever its slug, one per parent: edit the file that is there",
                        a.kind
                    )
                },
                "{} already exists; nothing was written",
                f.path.display()
            )),
            GraphError::NoRoot(_) => Failure::usage(miette!(
                help = format!("create it with `vitaecontext graph init{}`", root_flag(sources)),
                "{e}"
            )),
            GraphError::DuplicateId { .. } => {
                Failure::failed(miette!(help = "choose another slug; an id names one record in the whole graph", "{e}"))
            }
            GraphError::NoParent { ref parent } => {
                let (kind, slug) = parent.split_once(':').unwrap_or((parent.as_str(), ""));
                Failure::failed(miette!(
                    help = format!("add it first: `vitaecontext graph add {kind} {slug}{}`", root_flag(sources)),
                    "{e}"
                ))
            }
            other => graph_failure(other),
        })?;
    out(&format!("Created {} ({})\n", path.display(), record.id()));
    err(&format!(
        "Next: fill in {} with your facts (numbers, dates, outcomes), replacing every guidance line, then run \
         `vitaecontext graph index{}`; until they are replaced the VitaeGraph is invalid (template_text).\n",
        path.display(),
        root_flag(sources)
    ));
    Ok(ExitCode::SUCCESS)
}

pub fn validate(fs: &dyn FileSystem, clock: &dyn Clock, sources: &Sources, json: bool) -> Outcome {
    let root = root(sources)?;
    let pages = usecase::read_records(fs, clock, &root, &Stderr::default()).map_err(graph_failure)?;
    let v = usecase::validate_records(fs, &root, &pages);
    if json {
        let body = serde_json::json!({
            "version": domain::graph::index::VERSION,
            "valid": v.valid,
            "root": root.display().to_string(),
            "records": v.record_count,
            "errors": v.errors,
            "warnings": v.warnings,
        });
        out(&String::from_utf8_lossy(&usecase::json_bytes(&body)));
    } else {
        err(&render_findings(fs, &root, &v));
        if v.valid {
            out(&format!("VitaeGraph valid: {} record(s) at {}\n", v.record_count, root.display()));
        } else {
            err(&format!(
                "VitaeGraph invalid: {} error(s), {} warning(s) at {}\n",
                v.errors.len(),
                v.warnings.len(),
                root.display()
            ));
        }
    }
    Ok(if v.valid { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

/// `graph index --summary-json`: the outcome as one JSON line on stdout for the server that
/// started the run (`mcp --watch`), which says what it needs of it in its own log; progress
/// and skipped files go to stderr as ever. Exits 1 when the run failed (an invalid graph is a
/// run that succeeded: the server serves no records until it is fixed).
pub fn index_summary(fs: &dyn FileSystem, clock: &dyn Clock, sources: &Sources, full: bool) -> Outcome {
    let root = root(sources)?;
    let caches = if full { usecase::Caches::Ignore } else { usecase::Caches::Use };
    let result = usecase::index_with(fs, clock, &root, &Stderr::default(), caches);
    let line = serde_json::to_string(&usecase::Summary::of(&result)).expect("a summary serialises");
    out(&format!("{line}\n"));
    Ok(if result.is_ok() { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}

pub fn index(fs: &dyn FileSystem, clock: &dyn Clock, sources: &Sources, full: bool) -> Outcome {
    let root = root(sources)?;
    let start = clock.monotonic();
    let caches = if full { usecase::Caches::Ignore } else { usecase::Caches::Use };
    let done = usecase::index_with(fs, clock, &root, &Stderr::default(), caches).map_err(graph_failure)?;
    let v = &done.validation;
    if !v.valid {
        err(&render_findings(fs, &root, v));
        return Err(Failure::failed(miette!(
            help = "fix the errors above and run `vitaecontext graph index` again; the stale graph and search index were removed",
            "VitaeGraph validation failed with {} error(s); wrote only {}",
            v.errors.len(),
            done.generated.join(domain::graph::DIAGNOSTICS_FILE).display()
        )));
    }
    if !v.warnings.is_empty() {
        err(&render_findings(fs, &root, v));
    }
    // "The others" only where there are others: a first run parses and renders everything.
    let others =
        |done: usize, of: usize, why: &str| if done < of { format!("; the others {why}") } else { String::new() };
    let parsed = others(done.parsed, done.files, "were unchanged since the last run");
    let written = if done.written {
        let rendered = done.nodes - done.copied;
        let copied = others(rendered, done.nodes, "were copied from the last index");
        format!("- rendered: {rendered} of {} search document(s){copied}", done.nodes)
    } else {
        "- written: no output; no record changed and the generated files are as the last run left them".to_string()
    };
    out(&format!(
        "Indexed {} VitaeGraph node(s) in {:.1?}\n- generated: {}\n- parsed: {} of {} file(s){parsed}\n{written}\n",
        done.nodes,
        clock.monotonic().saturating_sub(start),
        done.generated.display(),
        done.parsed,
        done.files,
    ));
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_is_shown_once_a_second_in_order_and_at_the_end() {
        let ms = Duration::from_millis;
        let mut t = Throttle::default();
        // Every 5,000 files of 100,000, 12 ms apart, two arriving out of order.
        let mut shown = Vec::new();
        let updates = [(5_000, 12), (10_000, 24), (20_000, 1_000), (25_000, 1_500), (15_000, 2_100), (30_000, 2_110)];
        for (done, at) in updates {
            if t.due(done, 100_000, ms(at)) {
                shown.push(done);
            }
        }
        assert_eq!(shown, [20_000, 30_000], "a line a second, never an older count than the last");
        assert!(!t.due(35_000, 100_000, ms(3_109)));
        assert!(t.due(35_000, 100_000, ms(3_110)), "a second after the last line shown");
        assert!(t.due(100_000, 100_000, ms(3_111)), "the end, whenever it comes");
        assert!(!t.due(100_000, 100_000, ms(5_000)), "once");
        // A quick run: only the end.
        let mut quick = Throttle::default();
        let lines = (1..=20).filter(|&k| quick.due(k * 5_000, 100_000, ms(k as u64 * 12))).count();
        assert_eq!(lines, 1);
    }
}

//! `vitaecontext doctor`: the whole setup checked as the server would see it (the same
//! selection, loading, validation, indexing and skills code), every problem one finding.
//!
//! Nothing here prints or spawns: processes (a client's command run with `--version`, or
//! started for the live `initialize` check) are behind [`Probe`], implemented at the edge.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use domain::career::{Diagnostic, Rule, Selection, Severity, Validation};
use domain::clients::Env;
use domain::doctor::DoctorCode;
use domain::graph::confine::{self, Deny};
use domain::graph::index::{self, Diagnostics};
use domain::graph::{DIAGNOSTICS_FILE, GENERATED_DIR, GRAPH_FILE, GraphDiagnostic, SEARCH_INDEX_FILE};
use domain::skills::{Problem, SkillFormat};
use ports::Clock;
use ports::fs::{ConfineView, FileKind, FileSystem, FsError, FsErrorKind};
use serde_json::{Value, json};

use crate::sources::Sources;
use crate::usecase::{career, graph, register, skills};

/// The largest generated file read (as the server's `GraphStore` allows).
const MAX_GENERATED_BYTES: u64 = 2 * 1024 * 1024 * 1024;

/// The largest client config read to point at the entry.
const MAX_CLIENT_CONFIG_BYTES: u64 = 16 * 1024 * 1024;

/// At most this many record ids are named per kind of change in `index_stale`.
const NAMED_RECORDS: usize = 10;

/// One problem with the setup.
#[derive(Debug, Clone)]
pub struct DoctorFinding {
    /// Namespaced: `vitaecontext::context::missing_tldr`, `vitaecontext::client::stale_path`.
    pub code: String,
    pub severity: Severity,
    pub message: String,
    pub file: Option<PathBuf>,
    /// 1-based line in `file`, when the finding is about one.
    pub line: Option<usize>,
    pub help: String,
    /// What the renderer needs to show the place (through `report.rs`).
    pub source: Source,
}

/// Where a finding points, in the shape `report.rs` renders.
#[derive(Debug, Clone)]
pub enum Source {
    /// No place in a file.
    None,
    /// A byte span of the file's text, with the label under it.
    Text { text: Arc<str>, span: Range<usize>, label: String },
    /// A Career Context diagnostic (`report::context_finding`).
    Context { text: Arc<str>, validation: Arc<Validation>, diagnostic: Diagnostic },
    /// A VitaeGraph diagnostic (`report::graph_finding`), with the record's text when it has a
    /// line, and that of the other file it is about (a duplicate id's first record).
    Graph { diagnostic: GraphDiagnostic, text: Option<Arc<str>>, other_text: Option<Arc<str>> },
    /// A problem in a skill file or the skills config (`report::skill_finding`); `code` is the
    /// part after `vitaecontext::skills::`.
    Skill { text: Arc<str>, problem: Problem, code: &'static str },
}

impl DoctorFinding {
    fn new(code: DoctorCode, message: String, file: Option<PathBuf>) -> Self {
        DoctorFinding {
            code: code.as_str().to_owned(),
            severity: code.severity(),
            message,
            file,
            line: None,
            help: code.help().to_owned(),
            source: Source::None,
        }
    }

    fn with_help(mut self, help: String) -> Self {
        self.help = help;
        self
    }

    /// Points at `span` of `text` (the file's content), with `label` under it.
    fn at(mut self, text: &Arc<str>, span: Option<Range<usize>>, label: &str) -> Self {
        if let Some(span) = span {
            self.line = Some(text[..span.start].matches('\n').count() + 1);
            self.source = Source::Text { text: Arc::clone(text), span, label: label.to_owned() };
        }
        self
    }
}

/// Runs client commands: at the edge, since it spawns processes.
pub trait Probe {
    /// `COMMAND ARGS --version`'s first line, if it ran and answered within a few seconds
    /// (`ARGS`: a launcher's own, as in `npx -y vitaecontext@2.3.0 --version`).
    fn version(&self, command: &Path, args: &[String]) -> Option<String>;
    /// Starts `COMMAND ARGS`, sends one `initialize` request and checks that the answer (and
    /// everything else on stdout) is JSON-RPC. `Err` says what went wrong.
    fn initialize(&self, command: &Path, args: &[String]) -> Result<(), String>;
}

/// What `doctor` looks at besides the files.
#[derive(Debug)]
pub struct Inputs<'a> {
    pub sources: &'a Sources,
    pub env: &'a Env,
    /// The running binary, to compare with the clients' commands.
    pub exe: Option<PathBuf>,
    /// `$PATH`, for a client command given as a bare name.
    pub path_dirs: Vec<PathBuf>,
    /// Run the clients' commands (`--version`, then the live `initialize` check).
    pub live: bool,
}

/// Which Career Context the server would serve, and why.
#[derive(Debug, Clone, Default)]
pub struct ContextInfo {
    /// `selected`, `missing` or `ambiguous`.
    pub status: &'static str,
    pub path: Option<PathBuf>,
    pub rule: Option<&'static str>,
    pub candidates: Vec<PathBuf>,
    pub valid: Option<bool>,
}

/// Which VitaeGraph root the server would serve, and in what state.
#[derive(Debug, Clone, Default)]
pub struct GraphInfo {
    pub root: Option<PathBuf>,
    pub rule: &'static str,
    pub records: Option<usize>,
    pub valid: Option<bool>,
    /// `current`, `stale`, `missing` or `unknown` (no readable root).
    pub index: &'static str,
}

/// The skill layers and how many skills are served.
#[derive(Debug, Clone, Default)]
pub struct SkillsInfo {
    pub layers: Vec<(String, PathBuf, i64)>,
    pub served: usize,
}

/// A client whose config registers vitaecontext.
#[derive(Debug, Clone)]
pub struct ClientInfo {
    pub client: &'static str,
    pub config: PathBuf,
    pub command: String,
    pub args: Vec<String>,
    /// With `--live`: whether the command answered `initialize` (`None`: not run).
    pub live: Option<bool>,
    /// With `--live`: what `--version` printed (`None`: not run, or no answer).
    pub version: Option<String>,
}

/// What the server shares with an assistant, and what it holds back.
#[derive(Debug, Clone, Default)]
pub struct SharingInfo {
    /// The redact classes (`--redact`, `$VITAECONTEXT_REDACT`).
    pub redact: Vec<&'static str>,
    /// QUICK REFERENCE keys in every packet.
    pub shared_keys: Vec<String>,
    /// QUICK REFERENCE keys the redaction leaves out.
    pub redacted_keys: Vec<String>,
    /// Records marked `visibility: private` (paths below the root): flagged in search results
    /// and reads, left out of exports.
    pub private_records: Vec<String>,
}

#[derive(Debug, Clone, Default)]
pub struct Report {
    pub sharing: SharingInfo,
    pub context: ContextInfo,
    pub graph: GraphInfo,
    pub skills: SkillsInfo,
    pub clients: Vec<ClientInfo>,
    pub findings: Vec<DoctorFinding>,
}

impl Report {
    pub fn count(&self, severity: Severity) -> usize {
        self.findings.iter().filter(|f| f.severity == severity).count()
    }

    /// `--json`: the findings as data, the counts, and what was selected.
    pub fn json(&self) -> Value {
        let path = |p: &Option<PathBuf>| p.as_ref().map(|p| p.display().to_string());
        json!({
            // `line` is where a person sees the finding in the file; for a Career Context
            // finding `legacyLine` is the line VitaeContext 2.3.0 (and `context validate --json`)
            // gives it, which can differ (a QUICK REFERENCE value is reported at its block).
            "findings": self.findings.iter().map(|f| {
                let mut v = json!({
                    "code": f.code,
                    "severity": f.severity.as_str(),
                    "message": f.message,
                    "file": path(&f.file),
                    "line": f.line,
                    "help": f.help,
                });
                if let Source::Context { text, diagnostic, .. } = &f.source {
                    v["line"] = json!(crate::report::shown_line(text, diagnostic));
                    v["legacyLine"] = json!(diagnostic.line);
                }
                v
            }).collect::<Vec<_>>(),
            "errors": self.count(Severity::Error),
            "warnings": self.count(Severity::Warning),
            "context": {
                "status": self.context.status,
                "path": path(&self.context.path),
                "rule": self.context.rule,
                "candidates": self.context.candidates.iter().map(|p| p.display().to_string()).collect::<Vec<_>>(),
                "valid": self.context.valid,
            },
            "graph": {
                "root": path(&self.graph.root),
                "rule": self.graph.rule,
                "records": self.graph.records,
                "valid": self.graph.valid,
                "index": self.graph.index,
            },
            "skills": {
                "layers": self.skills.layers.iter().map(|(name, root, priority)| json!({
                    "name": name, "path": root.display().to_string(), "priority": priority,
                })).collect::<Vec<_>>(),
                "served": self.skills.served,
            },
            "sharing": {
                "redact": self.sharing.redact,
                "sharedKeys": self.sharing.shared_keys,
                "redactedKeys": self.sharing.redacted_keys,
                "privateRecords": self.sharing.private_records,
            },
            "clients": self.clients.iter().map(|c| json!({
                "client": c.client, "config": c.config.display().to_string(), "command": c.command, "args": c.args,
                "live": c.live, "version": c.version,
            })).collect::<Vec<_>>(),
        })
    }
}

/// Every check, in the order a person reads them: Career Context, VitaeGraph, skills, clients.
pub fn run(fs: &dyn FileSystem, clock: &dyn Clock, inputs: &Inputs<'_>, probe: &dyn Probe) -> Report {
    let mut report = Report::default();
    check_context(fs, inputs.sources, &mut report);
    check_graph(fs, clock, inputs.sources, &mut report);
    check_sharing(fs, inputs.sources, &mut report);
    check_skills(fs, inputs.sources, &mut report);
    check_installed_skills(fs, inputs.sources, &mut report);
    check_clients(fs, inputs, probe, &mut report);
    report
}

/// What is shared: the redact classes and the records marked private.
fn check_sharing(fs: &dyn FileSystem, sources: &Sources, report: &mut Report) {
    report.sharing.redact = sources.redact.classes().iter().map(|c| c.name()).collect();
    let Some(root) = sources.graph_root() else { return };
    for path in crate::usecase::portable::record_files(fs, &root) {
        let Ok(rel) = path.strip_prefix(&root) else { continue };
        if let Ok((bytes, _)) = fs.read_beneath(&root, rel, domain::graph::MAX_RECORD_BYTES)
            && domain::graph::frontmatter::is_private(&String::from_utf8_lossy(&bytes))
        {
            report.sharing.private_records.push(rel.to_string_lossy().into_owned());
        }
    }
}

fn check_context(fs: &dyn FileSystem, sources: &Sources, report: &mut Report) {
    let out = &mut report.findings;
    match career::select(fs, sources) {
        Selection::Selected { path, rule } => {
            report.context = ContextInfo {
                status: "selected",
                path: Some(path.clone()),
                rule: Some(rule.describe()),
                ..Default::default()
            };
            let loaded = match career::load(fs, &path) {
                Ok(loaded) => loaded,
                Err(e) => {
                    let how = if matches!(rule, Rule::Flag | Rule::Env) {
                        format!(" ({})", rule.describe())
                    } else {
                        String::new()
                    };
                    let mut f =
                        DoctorFinding::new(DoctorCode::ContextUnreadable, format!("{e}{how}"), Some(path.clone()));
                    // The file is the right one: give access back rather than pick another
                    // (found in review).
                    if matches!(&e, crate::usecase::career::LoadError::Unreadable(e) if e.kind == FsErrorKind::PermissionDenied)
                    {
                        f = f.with_help(format!(
                            "Give your user read access to it again: `chmod u+r {}`.",
                            domain::clients::shell_quote(&path.display().to_string())
                        ));
                    }
                    out.push(f);
                    return;
                }
            };
            report.context.valid = Some(loaded.validation.valid);
            for (key, _) in &loaded.validation.quick_reference.entries {
                match sources.redact.covers(key) {
                    Some(_) => report.sharing.redacted_keys.push(key.clone()),
                    None => report.sharing.shared_keys.push(key.clone()),
                }
            }
            let fill = domain::portable::render::to_fill(&loaded.text);
            if !fill.is_empty() {
                let line = loaded
                    .text
                    .lines()
                    .position(|l| l.trim_start().starts_with(domain::portable::render::FILL_IN))
                    .map(|i| i + 1);
                let mut f = DoctorFinding::new(
                    DoctorCode::ContextFillIn,
                    format!("left to fill in after an import: {}", fill.join(", ")),
                    Some(path.clone()),
                );
                f.line = line;
                out.push(f);
            }
            let text: Arc<str> = Arc::from(loaded.text.replace("\r\n", "\n"));
            let validation = Arc::new(loaded.validation);
            for d in validation.errors.iter().chain(&validation.warnings) {
                out.push(DoctorFinding {
                    code: format!("vitaecontext::context::{}", d.code.as_str()),
                    severity: d.severity,
                    message: d.message.clone(),
                    file: Some(path.clone()),
                    line: Some(d.line),
                    help: d.code.help().to_owned(),
                    source: Source::Context {
                        text: Arc::clone(&text),
                        validation: Arc::clone(&validation),
                        diagnostic: d.clone(),
                    },
                });
            }
            // Inside a git work tree is the validator's `tracked_workspace_path`: not repeated here.
            if let Ok(mode) = fs.mode(&path)
                && mode & 0o044 != 0
            {
                let p = path.display();
                out.push(
                    DoctorFinding::new(
                        DoctorCode::ContextReadableByOthers,
                        format!("{p} can be read by other users (mode {:03o})", mode & 0o777),
                        Some(path.clone()),
                    )
                    .with_help(format!("It holds personal data: make it private with `chmod 600 {p}`.")),
                );
            }
        }
        Selection::Missing { looked_in } => {
            report.context = ContextInfo { status: "missing", ..Default::default() };
            let places: Vec<String> = looked_in.iter().map(|p| p.display().to_string()).collect();
            let message = if places.is_empty() {
                "No Career Context found: HOME is not set, so ~/.vitaecontext/ could not be searched".to_owned()
            } else {
                format!("No Career Context found (looked for {})", places.join(", "))
            };
            out.push(DoctorFinding::new(DoctorCode::ContextNotFound, message, None));
        }
        Selection::Ambiguous { candidates } => {
            let list: Vec<String> = candidates.iter().map(|p| p.display().to_string()).collect();
            report.context = ContextInfo { status: "ambiguous", candidates, ..Default::default() };
            out.push(DoctorFinding::new(
                DoctorCode::ContextAmbiguous,
                format!("Several Career Context files in ~/.vitaecontext/ and none is chosen: {}", list.join(", ")),
                None,
            ));
        }
    }
}

/// Progress is not shown: doctor reports at the end. What the walk passed over is kept, to
/// become findings.
#[derive(Default)]
struct Quiet(std::sync::Mutex<Vec<(PathBuf, String)>>);

impl graph::Progress for Quiet {
    fn update(&self, _: usize, _: usize, _: std::time::Duration) {}

    fn skipped(&self, path: &Path, why: &str) {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).push((path.to_path_buf(), why.to_owned()));
    }
}

fn check_graph(fs: &dyn FileSystem, clock: &dyn Clock, sources: &Sources, report: &mut Report) {
    let before = report.findings.len();
    graph_findings(fs, clock, sources, report);
    // A root given by `--root` is given to the advice too: without it, `graph index` indexes
    // the default root (found in review: doctor kept warning after its advice was followed).
    if sources.root_flag.is_some()
        && let Some(root) = sources.graph_root()
    {
        let command =
            format!("`vitaecontext graph index --root {}", domain::clients::shell_quote(&root.to_string_lossy()));
        for finding in &mut report.findings[before..] {
            finding.help = finding.help.replace("`vitaecontext graph index", &command);
        }
    }
}

fn graph_findings(fs: &dyn FileSystem, clock: &dyn Clock, sources: &Sources, report: &mut Report) {
    let (rule, explicit) = match (&sources.root_flag, &sources.root_env) {
        (Some(_), _) => ("chosen by --root", true),
        (None, Some(_)) => ("chosen by VITAEGRAPH_ROOT", true),
        _ => ("the default ~/.vitaecontext/vitaegraph", false),
    };
    report.graph = GraphInfo { root: sources.graph_root(), rule, index: "unknown", ..Default::default() };
    let out = &mut report.findings;
    let Some(root) = sources.graph_root() else {
        out.push(DoctorFinding::new(DoctorCode::GraphNoRoot, "No VitaeGraph root: HOME is not set".into(), None));
        return;
    };
    let quiet = Quiet::default();
    let pages = match graph::read_records(fs, clock, &root, &quiet) {
        Ok(pages) => pages,
        Err(graph::GraphError::NoRoot(_)) if !explicit => {
            out.push(DoctorFinding::new(
                DoctorCode::GraphNotSetUp,
                format!("No VitaeGraph at {} ({rule}); the server runs without records", root.display()),
                None,
            ));
            return;
        }
        Err(e @ (graph::GraphError::NoRoot(_) | graph::GraphError::NotADir(_))) => {
            out.push(DoctorFinding::new(DoctorCode::GraphNoRoot, format!("{e} ({rule})"), Some(root)));
            return;
        }
        // A record or folder it cannot read: the root is there (found in review: this was
        // "no root", with help to create one).
        Err(e) => {
            let path = match &e {
                graph::GraphError::Fs(e) => e.path.clone(),
                _ => root.clone(),
            };
            out.push(DoctorFinding::new(DoctorCode::GraphUnreadable, format!("{e}"), Some(path)));
            return;
        }
    };
    for (path, why) in quiet.0.into_inner().unwrap_or_else(|p| p.into_inner()) {
        out.push(DoctorFinding::new(
            DoctorCode::GraphSymlinkSkipped,
            format!("skipped {}: {why}", path.display()),
            Some(path),
        ));
    }
    let v = graph::validate_records(fs, &root, &pages);
    report.graph.records = Some(v.record_count);
    report.graph.valid = Some(v.valid);
    let text_of = |path: &str| -> Option<Arc<str>> { graph::page_text(fs, &root, path).map(Arc::from) };
    for (d, severity) in
        v.errors.iter().map(|d| (d, Severity::Error)).chain(v.warnings.iter().map(|d| (d, Severity::Warning)))
    {
        out.push(DoctorFinding {
            code: format!("vitaecontext::graph::{}", d.code),
            severity,
            message: d.message.clone(),
            file: Some(root.join(&d.path)),
            line: d.line,
            help: d.code.help().to_owned(),
            source: Source::Graph {
                diagnostic: d.clone(),
                text: d.line.and_then(|_| text_of(&d.path)),
                other_text: d.other.as_ref().filter(|o| o.line.is_some()).and_then(|o| text_of(&o.path)),
            },
        });
    }

    // The generated files as `graph index` would write them now, compared with those on disk
    // as they are made, the files read in pieces: neither is held whole (at 100,000 records,
    // making both whole and hashing them took 5 s and 1.2 GB). A stale index is then looked
    // at record by record.
    let diagnostics = graph::json_bytes(&Diagnostics::of(&v));
    let canonical = fs.canonicalize(&root).unwrap_or_else(|_| root.clone());
    let generated = root.join(GENERATED_DIR);
    let absent = |e: &FsError| matches!(e.kind, FsErrorKind::NotFound | FsErrorKind::NotADirectory);
    let mut opened: BTreeMap<&str, Option<ports::fs::OpenFile>> = BTreeMap::new();
    for name in [GRAPH_FILE, SEARCH_INDEX_FILE, DIAGNOSTICS_FILE] {
        let rel = Path::new(GENERATED_DIR).join(name);
        match fs.open_beneath(&canonical, &rel) {
            // Capped as the server caps it: a larger file is not served.
            Ok((_, meta)) if meta.len > MAX_GENERATED_BYTES => {
                let detail = format!("file is larger than {MAX_GENERATED_BYTES} bytes");
                out.push(generated_unreadable(&generated, name, &FsError::new(FsErrorKind::TooLarge, &rel, detail)));
                return;
            }
            Ok((file, _)) => {
                opened.insert(name, Some(file));
            }
            Err(e) if absent(&e) => {
                opened.insert(name, None);
            }
            Err(e) => {
                out.push(generated_unreadable(&generated, name, &e));
                return;
            }
        }
    }
    if opened.values().all(Option::is_none) {
        report.graph.index = "missing";
        out.push(DoctorFinding::new(
            DoctorCode::GraphIndexMissing,
            format!("{} has no generated index, so the server lists and searches no records", root.display()),
            Some(generated),
        ));
        return;
    }
    let plan = v.valid.then(|| index::Plan::new(&pages));
    let graph_json = |out: &mut dyn std::io::Write| match &plan {
        Some(plan) => index::write_graph(&plan.graph, out),
        None => Err(std::io::Error::other("no graph.json for an invalid graph")),
    };
    let search_json = |out: &mut dyn std::io::Write| match &plan {
        Some(plan) => graph::write_search_json(plan, out),
        None => Err(std::io::Error::other("no search-index.json for an invalid graph")),
    };
    let diagnostics_json = |out: &mut dyn std::io::Write| out.write_all(&diagnostics);
    let expected: [(&str, bool, Making<'_>); 3] = [
        (GRAPH_FILE, plan.is_some(), &graph_json),
        (SEARCH_INDEX_FILE, plan.is_some(), &search_json),
        (DIAGNOSTICS_FILE, true, &diagnostics_json),
    ];
    let mut differ: Vec<&str> = Vec::new();
    for (name, made, write) in expected {
        let same = match (opened.get_mut(name).and_then(Option::take), made) {
            (Some(mut file), true) => same_bytes(&mut *file, write),
            (None, false) => Ok(true),
            _ => Ok(false),
        };
        match same {
            Ok(true) => {}
            Ok(false) => differ.push(name),
            Err(e) => {
                let e = FsError::new(FsErrorKind::Other, generated.join(name), e.to_string());
                out.push(generated_unreadable(&generated, name, &e));
                return;
            }
        }
    }
    // A record path is one the confined walk found inside the root, so its node needs no
    // resolving again, unless the server refuses it as a stored path (a `\` in a name, which
    // Linux allows; found in review).
    let walked: HashSet<&str> =
        pages.iter().map(|r| r.page.path.as_str()).filter(|p| confine::check_stored(p).is_ok()).collect();
    let stale = !differ.is_empty();
    if !stale {
        // The graph on disk is the one the records make: its node paths are the records'.
        report.graph.index = "current";
        if walked.len() == pages.len() {
            return;
        }
    }
    // The graph on disk is read whole (32 MB at 100,000 records), the search index streamed.
    let graph_rel = Path::new(GENERATED_DIR).join(GRAPH_FILE);
    let graph_bytes = match fs.read_beneath(&canonical, &graph_rel, MAX_GENERATED_BYTES) {
        Ok((bytes, _)) => Some(bytes),
        Err(e) if absent(&e) => None,
        Err(e) => return out.push(generated_unreadable(&generated, GRAPH_FILE, &e)),
    };
    let search_file = match fs.open_beneath(&canonical, &Path::new(GENERATED_DIR).join(SEARCH_INDEX_FILE)) {
        Ok((file, _)) if stale => Some(file),
        Ok(_) => None,
        Err(e) if absent(&e) => None,
        Err(e) => return out.push(generated_unreadable(&generated, SEARCH_INDEX_FILE, &e)),
    };
    if stale {
        report.graph.index = "stale";
    }
    // What the server would serve: the graph on disk, each node path confined to the root.
    let disk_graph = match &graph_bytes {
        Some(bytes) => match serde_json::from_slice::<domain::graph::Graph>(bytes) {
            Ok(g) => Some(g),
            Err(e) => {
                out.push(DoctorFinding::new(
                    DoctorCode::GraphIndexUnreadable,
                    format!("{} is not a valid graph: {e}", generated.join(GRAPH_FILE).display()),
                    Some(generated.join(GRAPH_FILE)),
                ));
                None
            }
        },
        None => None,
    };
    if stale && !v.valid {
        // Nothing is "removed": the records have errors, and indexing now would take the
        // served index away (found in review: every record was listed as removed, with the
        // advice to run `graph index`).
        out.push(
            DoctorFinding::new(
                DoctorCode::GraphIndexStale,
                "The generated index is stale, and the records have errors (above): `graph index` would now \
                 remove graph.json and search-index.json and write only diagnostics.json"
                    .into(),
                Some(generated.clone()),
            )
            .with_help(
                "Fix the errors above, then run `vitaecontext graph index`. Until then the server keeps serving \
                 the last index; indexing before would leave it no records to serve."
                    .into(),
            ),
        );
    } else if stale {
        let records = match changed_records(plan.as_ref(), disk_graph.as_ref(), search_file) {
            Ok(records) => records,
            Err(e) => {
                report.graph.index = "unknown";
                let e = FsError::new(FsErrorKind::Other, generated.join(SEARCH_INDEX_FILE), e.to_string());
                return out.push(generated_unreadable(&generated, SEARCH_INDEX_FILE, &e));
            }
        };
        out.push(DoctorFinding::new(
            DoctorCode::GraphIndexStale,
            format!(
                "The generated index is stale: {} differ{} from what `graph index` would write now{records}",
                differ.join(", "),
                if differ.len() == 1 { "s" } else { "" }
            ),
            Some(generated.clone()),
        ));
    }
    if let (Some(g), Some(bytes)) = (&disk_graph, &graph_bytes) {
        let text: Arc<str> = Arc::from(String::from_utf8_lossy(bytes).into_owned());
        // Only the node paths that are not a walked record's are resolved (at 100,000 records,
        // resolving every path of a stale graph took a second).
        for node in g.nodes.iter().filter(|n| !walked.contains(n.path.as_str())) {
            // Missing or not a file is the stale index's business; these two leave the root.
            if let Err(why @ (Deny::Escapes | Deny::NotRelative)) =
                confine::resolve(&ConfineView(fs), &canonical, &node.path)
            {
                let quoted = serde_json::to_string(&node.path).unwrap_or_default();
                let span = text.find(&format!("\"path\": {quoted}")).map(|i| {
                    let start = i + "\"path\": ".len();
                    start..start + quoted.len()
                });
                out.push(
                    DoctorFinding::new(
                        DoctorCode::GraphPathOutsideRoot,
                        format!("record {} has path {:?}: {why}", node.id, node.path),
                        Some(generated.join(GRAPH_FILE)),
                    )
                    .at(&text, span, "resolves outside the VitaeGraph root"),
                );
            }
        }
    }
}

/// The finding for a generated file (`name`, in `generated`) that cannot be opened or read.
fn generated_unreadable(generated: &Path, name: &str, e: &FsError) -> DoctorFinding {
    let file = generated.join(name);
    // `graph index` refuses to run while it is there: indexing again cannot help.
    if e.kind == FsErrorKind::IsADirectory {
        return DoctorFinding::new(
            DoctorCode::GraphIndexUnreadable,
            format!("{} is a folder, where `graph index` writes a file", file.display()),
            Some(file),
        )
        .with_help("Move or remove that folder, then run `vitaecontext graph index`.".to_owned());
    }
    // Neither the server nor `graph index` follows a link there: indexing again cannot help
    // (found in review: the advice was `graph index`, which refuses to write through it).
    if e.kind == FsErrorKind::Loop {
        return DoctorFinding::new(
            DoctorCode::GraphIndexUnreadable,
            format!(
                "{} or {name} in it is a symbolic link, which neither the server nor `graph index` follows",
                generated.display()
            ),
            Some(file),
        )
        .with_help(format!(
            "Put the folder itself at {} (or remove the link), then run `vitaecontext graph index`.",
            generated.display()
        ));
    }
    let finding = DoctorFinding::new(
        DoctorCode::GraphIndexUnreadable,
        format!("{} could not be read: {}", file.display(), e.detail),
        Some(file),
    );
    // Indexing again cannot help: the run writes there as the same user.
    if e.kind == FsErrorKind::PermissionDenied {
        finding.with_help(format!(
            "Give your user access to {0} and its files again (for example `chmod -R u+rwX {0}`, \
             or `sudo chown -R \"$USER\" {0}` if another user, such as root, owns them): the server, \
             run as you, cannot read them either.",
            generated.display()
        ))
    } else {
        finding
    }
}

/// What writes a generated file's bytes.
type Making<'a> = &'a dyn Fn(&mut dyn std::io::Write) -> std::io::Result<()>;

/// Whether `file`, read from where it is, holds exactly the bytes `write` makes. They are
/// compared as they are made, a piece at a time, and the making stops at the first that
/// differs. A file that ends first differs; one that cannot be read is an error.
fn same_bytes(file: &mut dyn std::io::Read, write: Making<'_>) -> std::io::Result<bool> {
    struct Comparing<'f> {
        file: &'f mut dyn std::io::Read,
        buf: Vec<u8>,
        /// Why the file could not be read, when it could not.
        failed: Option<std::io::Error>,
    }
    impl std::io::Write for Comparing<'_> {
        fn write(&mut self, made: &[u8]) -> std::io::Result<usize> {
            self.buf.resize(made.len(), 0);
            match self.file.read_exact(&mut self.buf) {
                Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => {}
                Err(e) => self.failed = Some(e),
                Ok(()) if self.buf == made => return Ok(made.len()),
                Ok(()) => {}
            }
            Err(std::io::Error::other("the bytes differ"))
        }

        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut cmp = Comparing { file, buf: Vec::new(), failed: None };
    if write(&mut cmp).is_err() {
        return cmp.failed.map_or(Ok(false), Err);
    }
    loop {
        match cmp.file.read(&mut [0]) {
            Ok(n) => return Ok(n == 0),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}

/// `; records added: a; removed: b; changed: c`, by id, from the plan of the fresh index
/// (none for an invalid graph) against the graph and search index on disk (empty when nothing
/// can be compared). A record has changed when its node or its document differs, or is on disk
/// without the other. The search index on disk is read a document at a time and each compared
/// with the one the plan makes; one that does not read as a search index counts as none, one
/// that cannot be read is an error.
fn changed_records(
    fresh: Option<&index::Plan<'_>>,
    disk_graph: Option<&domain::graph::Graph>,
    disk_search: Option<ports::fs::OpenFile>,
) -> std::io::Result<String> {
    /// What is on disk for one id, and whether any of it differs from the fresh index.
    #[derive(Default)]
    struct OnDisk {
        node: bool,
        document: bool,
        differs: bool,
    }
    let nodes = fresh.map_or(&[][..], |p| &p.graph.nodes[..]);
    let by_id: HashMap<&str, usize> = nodes.iter().enumerate().map(|(i, n)| (n.id.as_str(), i)).collect();
    let mut old: HashMap<String, OnDisk> = HashMap::new();
    for n in disk_graph.iter().flat_map(|g| &g.nodes) {
        let o = old.entry(n.id.clone()).or_default();
        o.node = true;
        o.differs |= by_id.get(n.id.as_str()).is_none_or(|&i| nodes[i] != *n);
    }
    let mut documents: Vec<(String, bool)> = Vec::new();
    if let Some(mut file) = disk_search {
        let same = |d: &index::Document| by_id.get(d.id.as_str()).zip(fresh).is_some_and(|(&i, p)| p.document(i) == *d);
        let read = crate::search_json::read_documents(&mut *file, &mut |d| {
            let same = same(&d);
            documents.push((d.id, same));
        });
        match read {
            Ok(()) => {}
            Err(e) if e.is_io() => return Err(e.into()),
            Err(_) => documents.clear(),
        }
    }
    for (id, same) in documents {
        let o = old.entry(id).or_default();
        o.document = true;
        o.differs |= !same;
    }
    let ids: BTreeSet<&str> = old.keys().map(String::as_str).chain(by_id.keys().copied()).collect();
    let (mut added, mut removed, mut changed) = (Vec::new(), Vec::new(), Vec::new());
    for id in ids {
        match (old.get(id), by_id.contains_key(id)) {
            (None, true) => added.push(id),
            (Some(_), false) => removed.push(id),
            (Some(o), true) if o.differs || !o.node || !o.document => changed.push(id),
            _ => {}
        }
    }
    let list = |what: &str, ids: &[&str]| -> Option<String> {
        if ids.is_empty() {
            return None;
        }
        let shown: Vec<&str> = ids.iter().take(NAMED_RECORDS).copied().collect();
        let more = ids.len().saturating_sub(NAMED_RECORDS);
        let more = if more > 0 { format!(" and {more} more") } else { String::new() };
        Some(format!("{what}: {}{more}", shown.join(", ")))
    };
    let parts: Vec<String> =
        [list("added", &added), list("removed", &removed), list("changed", &changed)].into_iter().flatten().collect();
    Ok(if parts.is_empty() { String::new() } else { format!("; records {}", parts.join("; ")) })
}

/// The byte span of the first `needle` in `text`.
fn span_of(text: &str, needle: &str) -> Option<Range<usize>> {
    if needle.is_empty() {
        return None;
    }
    text.find(needle).map(|i| i..i + needle.len())
}

/// The byte span of the first `{{ name }}` (spaces inside allowed) in `text`.
fn placeholder_span(text: &str, name: &str) -> Option<Range<usize>> {
    let mut from = 0;
    while let Some(i) = text[from..].find("{{") {
        let open = from + i;
        let after = &text[open + 2..];
        if let Some(close) = after.find("}}")
            && after[..close].trim_matches(|c| c == ' ' || c == '\t') == name
        {
            return Some(open..open + 2 + close + 2);
        }
        from = open + 1;
    }
    None
}

fn format_of(path: &Path) -> Option<SkillFormat> {
    SkillFormat::of_file_name(&path.file_name()?.to_string_lossy())
}

fn skill_text(fs: &dyn FileSystem, path: &Path) -> Option<Arc<str>> {
    skills::read_text(fs, path, skills::MAX_SKILL_BYTES).ok().map(Arc::from)
}

/// The short code of a skills finding, as `report::skill_finding` takes it.
fn short(code: DoctorCode) -> &'static str {
    code.as_str().trim_start_matches("vitaecontext::skills::")
}

fn check_skills(fs: &dyn FileSystem, sources: &Sources, report: &mut Report) {
    let out = &mut report.findings;
    let layers = match skills::resolve_layers(fs, &sources.skill_sources(fs)) {
        Ok(layers) => layers,
        Err(skills::ConfigError::Unreadable { path, detail }) => {
            out.push(DoctorFinding::new(
                DoctorCode::SkillsConfigInvalid,
                format!("the skills config {} could not be read: {detail}", path.display()),
                Some(path),
            ));
            return;
        }
        Err(skills::ConfigError::Invalid { path, text, problems }) => {
            let text: Arc<str> = Arc::from(text);
            for p in problems {
                out.push(skill_problem(DoctorCode::SkillsConfigInvalid, &path, &text, p));
            }
            return;
        }
    };
    report.skills.layers = layers.iter().map(|l| (l.name.clone(), l.root.clone(), l.priority)).collect();
    for l in &layers {
        if !fs.metadata(&l.root).is_ok_and(|m| m.kind == FileKind::Dir) {
            out.push(DoctorFinding::new(
                DoctorCode::SkillsLayerMissing,
                format!(
                    "skill layer {} (priority {}): the folder {} does not exist",
                    l.name,
                    l.priority,
                    l.root.display()
                ),
                Some(l.root.clone()),
            ));
        }
    }
    let set = skills::load(fs, &layers);
    report.skills.served = set.entries().len();
    // A missing layer folder is also a skip; it was reported above as `layer_missing`.
    let missing: BTreeSet<String> = layers
        .iter()
        .filter(|l| !fs.metadata(&l.root).is_ok_and(|m| m.kind == FileKind::Dir))
        .map(|l| l.root.display().to_string())
        .collect();
    for s in set.skipped().iter().filter(|s| !missing.contains(&s.file)) {
        let path = PathBuf::from(&s.file);
        let parsed = skill_text(fs, &path).and_then(|text| {
            let problems = domain::skills::parse_skill(format_of(&path)?, &text).err()?;
            Some((text, problems))
        });
        match parsed {
            Some((text, problems)) => {
                for p in problems {
                    let code = if p.message.starts_with("not valid YAML") {
                        DoctorCode::SkillsYamlSyntax
                    } else {
                        DoctorCode::SkillsInvalidSkill
                    };
                    out.push(skill_problem(code, &path, &text, p));
                }
            }
            None => {
                // Not refused by the parser: a folder that cannot be listed or a file that cannot
                // be read gets the help to give access back, not the one about a skill's fields.
                let denied = matches!(
                    skills::read_text(fs, &path, skills::MAX_SKILL_BYTES),
                    Err(e) if matches!(e.kind, FsErrorKind::PermissionDenied | FsErrorKind::IsADirectory)
                );
                let code = if denied { DoctorCode::SkillsUnreadable } else { DoctorCode::SkillsInvalidSkill };
                let mut f = DoctorFinding::new(code, s.to_string(), Some(path));
                f.line = s.line;
                out.push(f);
            }
        }
    }
    // One finding per conflict, at its first file (the message names them all): one per file
    // printed it twice and counted two errors (found in review).
    for c in set.conflicts() {
        let Some(origin) = c.files.first() else { continue };
        let path = PathBuf::from(&origin.file);
        let mut f = DoctorFinding::new(DoctorCode::SkillsConflict, c.to_string(), Some(path.clone()));
        if let Some(text) = skill_text(fs, &path) {
            f = f.at(&text, span_of(&text, &c.id), "defined here, and in the other file at the same priority");
        }
        out.push(f);
    }
    for r in set.refused() {
        let path = PathBuf::from(&r.origin.file);
        let mut f = DoctorFinding::new(DoctorCode::SkillsBuiltinId, r.to_string(), Some(path.clone()));
        if let Some(text) = skill_text(fs, &path) {
            f = f.at(&text, span_of(&text, &r.id), "one of the server's own prompts or tools");
        }
        out.push(f);
    }
    for e in set.entries() {
        let names = e.skill.undeclared_placeholders();
        if names.is_empty() {
            continue;
        }
        let path = PathBuf::from(&e.origin.file);
        let text = skill_text(fs, &path);
        for name in names {
            let mut f = DoctorFinding::new(
                DoctorCode::SkillsUnknownPlaceholder,
                super::skills::undeclared_placeholder(&e.skill.id, &name),
                Some(path.clone()),
            );
            if let Some(text) = &text {
                f = f.at(text, placeholder_span(text, &name), "no argument declares this");
            }
            out.push(f);
        }
    }
}

/// Installed skills (the person's lock and the lock of the project doctor runs in): each file
/// as the lock says, or a finding naming the ones that differ.
fn check_installed_skills(fs: &dyn FileSystem, sources: &Sources, report: &mut Report) {
    use super::skills_install as install;
    for (project, user) in [(false, true), (true, false)] {
        let Ok(scope) = install::scope(fs, sources, project, user) else { continue };
        if fs.metadata(&scope.lock_path).is_err() {
            continue;
        }
        let lock = match install::read_lock(fs, &scope) {
            Ok(lock) => lock,
            Err(r) => {
                report.findings.push(DoctorFinding::new(
                    DoctorCode::SkillsLockInvalid,
                    r.message,
                    Some(scope.lock_path.clone()),
                ));
                continue;
            }
        };
        for (id, entry) in &lock.skills {
            let found = install::drift_of(fs, &scope, id, entry);
            let message = match found {
                Ok(d) if d.is_empty() => continue,
                Ok(d) => {
                    let files: Vec<String> = d.iter().map(|(p, k)| format!("{p} ({})", k.as_str())).collect();
                    format!(
                        "installed skill {id} (layer {}, {}) differs from {}: {}",
                        entry.layer,
                        scope.resolve(&entry.path).display(),
                        scope.lock_path.display(),
                        files.join(", ")
                    )
                }
                Err(r) => format!("installed skill {id}: {}", r.message),
            };
            report.findings.push(DoctorFinding::new(
                DoctorCode::SkillsInstalledChanged,
                message,
                Some(scope.lock_path.clone()),
            ));
        }
    }
}

fn skill_problem(code: DoctorCode, path: &Path, text: &Arc<str>, p: Problem) -> DoctorFinding {
    let location = match p.line() {
        Some(line) => format!("{}:{line}", path.display()),
        None => path.display().to_string(),
    };
    DoctorFinding {
        code: code.as_str().to_owned(),
        severity: code.severity(),
        message: format!("{location}: {}", p.message),
        file: Some(path.to_path_buf()),
        line: p.line(),
        help: code.help().to_owned(),
        source: Source::Skill { text: Arc::clone(text), problem: p, code: short(code) },
    }
}

/// `vitaecontext register --client NAME` with the files an entry's arguments name, quoted:
/// `--context`, `--root`, `--skills-config` and every `--skills` layer (found in review: the
/// layers were dropped). A relative path is left out and said: `register` would read it from
/// the folder it runs in, not the one the client starts the server in.
fn register_again(name: &str, args: &[String]) -> String {
    let mut command = format!("vitaecontext register --client {name}");
    let mut relative = Vec::new();
    let mut add = |flag: &str, value: &str| {
        let path = value.split_once('=').filter(|_| flag == "--skills").map_or(value, |(dir, _)| dir);
        if path.starts_with('~') || Path::new(path).is_absolute() {
            command.push_str(&format!(" {flag} {}", domain::clients::shell_quote(value)));
        } else {
            relative.push(format!("{flag} {value}"));
        }
    };
    for (flag, names) in [
        ("--context", &["--context", "--context-path"][..]),
        ("--root", &["--root", "--vitaegraph"]),
        ("--skills-config", &["--skills-config"]),
    ] {
        if let Some(value) = domain::clients::flag_value(args, names) {
            add(flag, value);
        }
    }
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.strip_prefix("--skills=") {
            Some(value) => add("--skills", value),
            None if a == "--skills" => it.next().into_iter().for_each(|v| add("--skills", v)),
            None => {}
        }
    }
    if relative.is_empty() {
        format!("`{command}`")
    } else {
        format!("`{command}` (with absolute paths for what the entry gives as {})", relative.join(", "))
    }
}

/// Where a client's command lives: itself when absolute, else the first `$PATH` entry holding it.
fn locate(fs: &dyn FileSystem, command: &str, path_dirs: &[PathBuf]) -> Option<PathBuf> {
    let is_file = |p: &Path| fs.metadata(p).is_ok_and(|m| m.kind == FileKind::File);
    let p = Path::new(command);
    if p.is_absolute() {
        return is_file(p).then(|| p.to_path_buf());
    }
    if command.contains('/') || command.is_empty() {
        return None;
    }
    path_dirs.iter().map(|d| d.join(command)).find(|c| is_file(c))
}

fn check_clients(fs: &dyn FileSystem, inputs: &Inputs<'_>, probe: &dyn Probe, report: &mut Report) {
    let this = inputs.exe.as_ref().map(|e| fs.canonicalize(e).unwrap_or_else(|_| e.clone()));
    for status in register::status(fs, inputs.env) {
        let name = status.client.name();
        let Some(config) = status.path else { continue };
        let entry = match status.registration {
            register::Registration::Absent => continue,
            register::Registration::Unreadable(why) => {
                report.findings.push(
                    DoctorFinding::new(
                        DoctorCode::ClientConfigUnreadable,
                        format!("{name}: {} could not be read: {why}", config.display()),
                        Some(config.clone()),
                    )
                    // `register` reads it first too: for a permission error it fails the same
                    // way (found in review), so the help is to give access back.
                    .with_help(match fs.read(&config, u64::MAX) {
                        Err(e) if e.kind == FsErrorKind::PermissionDenied => format!(
                            "Give your user read and write access to {} again (chmod u+rw): `vitaecontext register` \
                             cannot edit it either.",
                            config.display()
                        ),
                        _ => DoctorCode::ClientConfigUnreadable.help().replace("NAME", name),
                    }),
                );
                continue;
            }
            register::Registration::Present(entry) => entry,
        };
        report.clients.push(ClientInfo {
            client: name,
            config: config.clone(),
            command: entry.command.clone(),
            args: entry.args.clone(),
            live: None,
            version: None,
        });
        let text: Option<Arc<str>> =
            fs.read(&config, MAX_CLIENT_CONFIG_BYTES).ok().map(|b| Arc::from(String::from_utf8_lossy(&b).into_owned()));
        // `register` again, with the files the entry names: without them the entry it writes
        // serves the default files (found in review).
        let again = register_again(name, &entry.args);
        // Where our entry starts in the file: what a label points at is looked for from there
        // on, not in another server's entry before it, nor at our own server name when the
        // command is the bare `vitaecontext` (both found in review).
        let entry_at = text.as_deref().map_or(0, |t| {
            [":", " :", "]"]
                .iter()
                .find_map(|end| {
                    let key = if *end == "]" { ".vitaecontext]".to_owned() } else { format!("\"vitaecontext\"{end}") };
                    t.find(&key).map(|at| at + key.len())
                })
                .unwrap_or(0)
        });
        let in_entry =
            move |t: &str, needle: &str| span_of(&t[entry_at..], needle).map(|r| r.start + entry_at..r.end + entry_at);
        let finding = |code: DoctorCode, message: String, label: &str| {
            let f = DoctorFinding::new(code, format!("{name}: {message}"), Some(config.clone()))
                .with_help(code.help().replace("`vitaecontext register --client NAME`", &again).replace("NAME", name));
            match &text {
                Some(t) => {
                    let quoted = serde_json::to_string(&entry.command).unwrap_or_default();
                    let span = in_entry(t, &quoted).or_else(|| in_entry(t, &entry.command));
                    f.at(t, span, label)
                }
                None => f,
            }
        };
        // The files this client's server is told to serve, by its arguments or its `env`: the
        // selection above is this shell's, which the client does not share (found in review: a
        // client pointed at a missing file passed, even with --live). A relative path depends
        // on the folder the client starts the server in, so it is not judged.
        let env = text.as_deref().and_then(|t| domain::clients::find_env(status.client, t).ok()).unwrap_or_default();
        for (what, flags, var, folder) in [
            ("Career Context", ["--context", "--context-path"], "VITAECONTEXT_CAREER_CONTEXT", false),
            ("VitaeGraph root", ["--root", "--vitaegraph"], "VITAEGRAPH_ROOT", true),
        ] {
            let named = domain::clients::flag_value(&entry.args, &flags)
                .or_else(|| env.iter().rev().find(|(k, _)| k == var).map(|(_, v)| v.as_str()));
            let Some(raw) = named.filter(|r| r.starts_with('~') || Path::new(r).is_absolute()) else { continue };
            let path = domain::career::select::expand_path(raw, inputs.env.home.as_deref(), Path::new("/"));
            let problem = match fs.metadata(&path) {
                Ok(m) if (m.kind == FileKind::Dir) == folder => {
                    // This shell finds no Career Context, but the client's server is told of
                    // one (found in review: the README's own `env` example got only "none
                    // found"): say how to check that file.
                    if !folder
                        && let Some(none) = report
                            .findings
                            .iter_mut()
                            .find(|f| f.code == DoctorCode::ContextNotFound.as_str() && !f.help.contains("entry names"))
                    {
                        let p = domain::clients::shell_quote(&path.display().to_string());
                        none.help = format!(
                            "The {name} entry names {}, which its server serves: run `vitaecontext doctor --context {p}` \
                             to check that file. Or: {}",
                            path.display(),
                            DoctorCode::ContextNotFound.help()
                        );
                    }
                    continue;
                }
                Ok(_) if folder => "is not a folder",
                Ok(_) => "is not a file",
                Err(e) if e.kind == FsErrorKind::NotFound => "does not exist",
                Err(_) => "cannot be reached",
            };
            let mut f = DoctorFinding::new(
                DoctorCode::ClientPathMissing,
                format!("{name}: the {what} its entry names, {}, {problem}", path.display()),
                Some(config.clone()),
            )
            // A command valid as printed that mends this entry (found in review: the help
            // proposed `register` with the same missing path): create what it names there,
            // or name another one (register keeps the entry's other paths).
            .with_help({
                let quoted = domain::clients::shell_quote(&path.display().to_string());
                let (create, flag, yours) = if folder {
                    (format!("vitaecontext graph init --root {quoted}"), "--root", "your VitaeGraph folder")
                } else {
                    (format!("vitaecontext context init --output {quoted}"), "--context", "your Career Context file")
                };
                format!(
                    "Create it where the entry looks: `{create}`. Or point the entry elsewhere: run `vitaecontext \
                     register --client {name}` with {flag} and {yours} (the entry's other paths are kept)."
                )
            });
            if let Some(t) = &text {
                let quoted = serde_json::to_string(raw).unwrap_or_default();
                f = f.at(t, in_entry(t, &quoted).or_else(|| in_entry(t, raw)), "named here");
            }
            report.findings.push(f);
        }
        let Some(command) = locate(fs, &entry.command, &inputs.path_dirs) else {
            // A bare name is looked for on PATH, not as a file (found in review: "does not
            // exist" for `vitaecontext` sent the person looking for a file of that name).
            let bare = !entry.command.contains('/');
            report.findings.push(finding(
                DoctorCode::ClientStalePath,
                if bare {
                    format!("the configured command {} is not found on PATH", entry.command)
                } else {
                    format!("the configured command {} does not exist", entry.command)
                },
                if bare { "not found on PATH" } else { "this file does not exist" },
            ));
            continue;
        };
        let canonical = fs.canonicalize(&command).unwrap_or_else(|_| command.clone());
        // `npx -y vitaecontext@2.3.0 mcp`, `uvx vitaecontext mcp`: the launcher is not this binary,
        // and is not foreign either; its version is asked through it.
        let launcher = domain::clients::install::launcher_entry(&entry.command, &entry.args);
        // A launcher's own arguments go before `--version` (`npx -y vitaecontext@2.3.0
        // --version`); any other entry's command is asked alone, as `COMMAND --version`.
        let before_mcp: Vec<String> = match &launcher {
            Some(_) => entry.args.iter().take_while(|a| *a != "mcp").cloned().collect(),
            None => Vec::new(),
        };
        let version = if inputs.live { probe.version(&command, &before_mcp) } else { None };
        if let Some(client) = report.clients.last_mut() {
            client.version.clone_from(&version);
        }
        let ours = env!("CARGO_PKG_VERSION");
        if let Some(l) = &launcher {
            if let Some(pinned) = l.version.as_deref().filter(|v| *v != ours) {
                report.findings.push(finding(
                    DoctorCode::ClientOtherBinary,
                    format!(
                        "the entry starts vitaecontext {pinned} through {}; this is vitaecontext {ours}",
                        l.launcher
                    ),
                    "another version than this one",
                ));
            }
        } else if this.as_ref().is_some_and(|t| *t != canonical) {
            let version = match version {
                Some(v) => format!(" (it says {v:?}; this is vitaecontext {ours})"),
                None => String::new(),
            };
            // A command that is no vitaecontext at all (`node`, `npx`, another server) is named
            // as foreign, not as another build of this one.
            let foreign = !canonical
                .file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.to_ascii_lowercase().starts_with("vitaecontext"));
            report.findings.push(finding(
                DoctorCode::ClientOtherBinary,
                if foreign {
                    format!(
                        "{} is a foreign command, not vitaecontext (the running binary is {})",
                        canonical.display(),
                        this.as_ref().map_or(String::new(), |t| t.display().to_string())
                    )
                } else {
                    format!(
                        "{} is not the running binary {}{version}",
                        canonical.display(),
                        this.as_ref().map_or(String::new(), |t| t.display().to_string())
                    )
                },
                if foreign { "a foreign command" } else { "another binary than this one" },
            ));
        }
        // Without --watch: a check must not start an index run in the person's VitaeGraph (the
        // probe stops the server right after its answer).
        let probe_args: Vec<String> = entry.args.iter().filter(|a| *a != "--watch").cloned().collect();
        let answered = inputs.live.then(|| probe.initialize(&command, &probe_args));
        if let Some(client) = report.clients.last_mut() {
            client.live = answered.as_ref().map(Result::is_ok);
        }
        if let Some(Err(why)) = answered {
            report.findings.push(finding(
                DoctorCode::ClientLiveFailed,
                format!("`{} {}` did not answer initialize: {why}", entry.command, entry.args.join(" ")),
                "started from here",
            ));
        }
    }
}

/// The fixtures are shared with the snapshot tests of `commands::doctor`.
#[cfg(test)]
pub mod tests;

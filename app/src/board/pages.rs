//! The board's pages, server-rendered with maud (templates checked at compile time; every
//! `(value)` is HTML-escaped). Landmarks (`header`, `nav`, `main`), a skip link, labels on
//! every control, and one layout that reflows on a narrow window (`assets/board.css`).

use std::collections::BTreeMap;
use std::path::Path;

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use domain::career::Severity;
use maud::{DOCTYPE, Markup, PreEscaped, html};
use serde_json::Value;

use super::{Board, markdown, shown};
use crate::usecase::{doctor, graph};

/// Which page the navigation marks as current.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Nav {
    Overview,
    Skills,
    Records,
    Check,
    None,
}

/// What the last re-index from the board did, shown on the overview.
#[derive(Debug, Clone)]
pub struct IndexNote {
    pub ok: bool,
    pub text: String,
}

/// The page around `body`.
pub fn layout(title: &str, nav: Nav, body: Markup) -> Markup {
    let link = |href: &str, label: &str, this: Nav| {
        html! {
            @if nav == this { a href=(href) aria-current="page" { (label) } } @else { a href=(href) { (label) } }
        }
    };
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) " · vitaecontext board" }
                link rel="stylesheet" href="/assets/board.css";
                script src="/assets/board.js" defer {}
            }
            body {
                a class="skip" href="#main" { "Skip to content" }
                header {
                    p class="brand" { "vitaecontext board" }
                    nav aria-label="Board" {
                        ul {
                            li { (link("/", "Overview", Nav::Overview)) }
                            li { (link("/skills", "Skills", Nav::Skills)) }
                            li { (link("/records", "Records", Nav::Records)) }
                            li { (link("/check", "Check", Nav::Check)) }
                        }
                    }
                }
                main id="main" tabindex="-1" {
                    h1 { (title) }
                    (body)
                }
                footer { p { "Served from this machine only; nothing on these pages is loaded from elsewhere." } }
            }
        }
    }
}

/// A page with `status`, a heading and one paragraph (refusals, errors, not found).
pub fn error_page(status: StatusCode, title: &str, text: &str) -> Response {
    (status, layout(title, Nav::None, html! { p class="problem" role="alert" { (text) } })).into_response()
}

fn severity(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
    }
}

/// No client command is run from the board (`doctor --live` does that in a terminal).
struct NoProbe;

impl doctor::Probe for NoProbe {
    fn version(&self, _: &Path, _: &[String]) -> Option<String> {
        None
    }
    fn initialize(&self, _: &Path, _: &[String]) -> Result<(), String> {
        Err("not run from the board".into())
    }
}

/// Runs `doctor` as the command does without `--live` (no client command is run).
pub fn doctor_report(b: &Board) -> doctor::Report {
    let env = crate::sources::client_env();
    let inputs = doctor::Inputs {
        sources: &b.sources,
        env: &env,
        exe: crate::sources::current_exe().ok(),
        path_dirs: crate::sources::path_dirs(),
        live: false,
    };
    doctor::run(&*b.fs, &*b.clock, &inputs, &NoProbe)
}

pub fn overview(b: &Board) -> Markup {
    let checked = b.checks.last();
    let report = &*checked.report;
    let note = b.last_index.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone();
    let (errors, warnings) = (report.count(Severity::Error), report.count(Severity::Warning));
    layout(
        "Overview",
        Nav::Overview,
        html! {
            section aria-labelledby="doctor-h" {
                h2 id="doctor-h" { "Setup check" }
                p { (errors) " error(s), " (warnings) " warning(s), as " code { "vitaecontext doctor" } " finds them." }
                p class="where" id="checked" {
                    "Checked " (checked.at.elapsed().as_secs()) " s ago, in " (checked.took.as_millis()) " ms. "
                    "Each view of this page starts a new check in the background when this one is over a second old: reload to see it."
                }
                @if report.findings.is_empty() {
                    p class="ok" { "Nothing to fix." }
                } @else {
                    ul class="findings" {
                        @for f in &report.findings {
                            li class=(severity(f.severity)) {
                                p {
                                    span class="badge" { (severity(f.severity)) }
                                    " " (f.message)
                                }
                                @if let Some(file) = &f.file {
                                    p class="where" { (shown(file)) @if let Some(line) = f.line { ":" (line) } }
                                }
                                p class="fix" { strong { "Fix: " } (f.help) }
                                p class="code" { (f.code) }
                            }
                        }
                    }
                }
            }
            (context_section(b))
            (graph_section(b, &report.graph, note.as_ref()))
            section aria-labelledby="clients-h" {
                h2 id="clients-h" { "Assistants" }
                @if report.clients.is_empty() {
                    p { "No assistant registers vitaecontext. Run " code { "vitaecontext register --client NAME" } "." }
                } @else {
                    table {
                        caption { "Assistants whose configuration runs vitaecontext" }
                        thead { tr { th scope="col" { "Assistant" } th scope="col" { "Configuration" } th scope="col" { "Runs" } } }
                        tbody {
                            @for c in &report.clients {
                                tr { td { (c.client) } td { (shown(&c.config)) } td { code { (c.command) " " (c.args.join(" ")) } } }
                            }
                        }
                    }
                }
            }
        },
    )
}

/// The Career Context with its diagnostics under the lines they are about.
fn context_section(b: &Board) -> Markup {
    use crate::usecase::career::Current;
    let current = b.served.career_context();
    html! {
        section aria-labelledby="context-h" {
            h2 id="context-h" { "Career Context" }
            @match &current {
                Current::Unavailable(notice) => { pre class="notice" { (notice) } }
                Current::Loaded(loaded) => {
                    @let v = &loaded.validation;
                    @let by_line = diagnostics_by_line(loaded);
                    p {
                        (shown(&loaded.path)) ": "
                        @if v.valid { span class="ok" { "valid" } } @else { span class="bad" { "invalid" } }
                        ", " (v.errors.len()) " error(s), " (v.warnings.len()) " warning(s)"
                    }
                    @if !by_line.is_empty() {
                        ol class="source" aria-label="The file with its diagnostics" {
                            @for (n, line) in loaded.text.lines().enumerate() {
                                @let here = by_line.get(&(n + 1));
                                @if here.is_some() || by_line.range(n.saturating_sub(1)..n + 4).next().is_some() {
                                    li value=(n + 1) class=[here.map(|_| "marked")] {
                                        code { (line) }
                                        @for d in here.into_iter().flatten() {
                                            div class={ "diag " (severity(d.severity)) } {
                                                span class="badge" { (severity(d.severity)) } " " (d.message)
                                                " (" code { (d.code.as_str()) } ")"
                                            }
                                        }
                                    }
                                }
                            }
                        }
                        @for (line, ds) in by_line.range(loaded.text.lines().count() + 1..) {
                            @for d in ds {
                                p class={ "diag " (severity(d.severity)) } { "Line " (line) ": " (d.message) }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// Each diagnostic by the line a person sees it at (as `doctor` shows it), in order.
fn diagnostics_by_line(loaded: &crate::usecase::career::Loaded) -> BTreeMap<usize, Vec<&domain::career::Diagnostic>> {
    let v = &loaded.validation;
    let mut by_line: BTreeMap<usize, Vec<&domain::career::Diagnostic>> = BTreeMap::new();
    for d in v.errors.iter().chain(v.warnings.iter()) {
        by_line.entry(crate::report::shown_line(&loaded.text, d)).or_default().push(d);
    }
    by_line
}

fn graph_section(b: &Board, info: &doctor::GraphInfo, note: Option<&IndexNote>) -> Markup {
    let loaded = b.served.graph().graph(b.served.fs());
    let mut per_type: BTreeMap<&str, usize> = BTreeMap::new();
    if let Ok(g) = &loaded {
        for n in &g.graph.nodes {
            *per_type.entry(&n.kind).or_default() += 1;
        }
    }
    html! {
        section aria-labelledby="graph-h" id="graph" {
            h2 id="graph-h" { "VitaeGraph" }
            @match &info.root {
                None => p { "No VitaeGraph root (HOME is not set; start the board with --root)." },
                Some(root) => {
                    p { (shown(root)) " (" (info.rule) ")" }
                    p {
                        "Index: " strong class=(if info.index == "current" { "ok" } else { "bad" }) { (info.index) }
                        @if let Some(valid) = info.valid { "; records " @if valid { "valid" } @else { "invalid" } }
                    }
                    @match &loaded {
                        Ok(g) => {
                            table {
                                caption { "Records per type (" (g.graph.nodes.len()) " indexed)" }
                                thead { tr { th scope="col" { "Type" } th scope="col" { "Records" } } }
                                tbody { @for (kind, n) in &per_type { tr { td { a href={ "/records?type=" (kind) } { (kind) } } td { (n) } } } }
                            }
                        }
                        Err(e) => p { "No index is loaded: " (e.reason()) "." },
                    }
                    form method="post" action="/reindex" {
                        button type="submit" id="reindex" { "Re-index" }
                        " runs " code { "vitaecontext graph index" } " on this folder."
                    }
                    @if let Some(n) = note {
                        p role="status" class=(if n.ok { "ok" } else { "bad" }) id="index-note" { (n.text) }
                    }
                }
            }
        }
    }
}

struct Quiet;
impl graph::Progress for Quiet {
    fn update(&self, _: usize, _: usize, _: std::time::Duration) {}
}

/// Runs `graph index` on the configured root, as the command does.
pub fn reindex(b: &Board) -> IndexNote {
    let Some(root) = b.sources.graph_root() else {
        return IndexNote { ok: false, text: "There is no VitaeGraph root to index (HOME is not set).".into() };
    };
    let started = std::time::Instant::now();
    match graph::index(&*b.fs, &*b.clock, &root, &Quiet) {
        Ok(done) if done.validation.valid => IndexNote {
            ok: true,
            text: format!(
                "Indexed {} record(s) in {} ms ({} read, {} parsed).",
                done.nodes,
                started.elapsed().as_millis(),
                done.files,
                done.parsed
            ),
        },
        Ok(done) => IndexNote {
            ok: false,
            text: format!(
                "The records are invalid ({} error(s)): only .generated/diagnostics.json was written.{} Run `vitaecontext graph validate --root {}` to see them all.",
                done.validation.errors.len(),
                done.validation.errors.first().map_or(String::new(), |d| format!(
                    " First: {}: {} ({}).",
                    d.path,
                    d.message,
                    d.code.as_str()
                )),
                root.display()
            ),
        },
        Err(e) => IndexNote { ok: false, text: format!("The index failed: {e}") },
    }
}

fn tag_text(t: &domain::graph::index::Tag) -> String {
    match t {
        domain::graph::index::Tag::Str(s) => s.clone(),
        domain::graph::index::Tag::Bool(b) => b.to_string(),
        domain::graph::index::Tag::Null => "null".into(),
    }
}

pub fn records(b: &Board, q: &str, kind: &str, tag: &str) -> Response {
    use domain::graph::search::{Query, parse_type};
    let kind_parsed = match (!kind.is_empty()).then(|| parse_type(kind)).transpose() {
        Ok(k) => k,
        Err(e) => return error_page(StatusCode::BAD_REQUEST, "Unknown record type", &e.to_string()),
    };
    let query = Query {
        text: (!q.trim().is_empty()).then_some(q),
        kind: kind_parsed.as_deref(),
        tag: (!tag.is_empty()).then_some(tag),
    };
    let found = b.served.graph().with_searcher(b.served.fs(), |s| s.search(&query));
    let types = domain::graph::record_type::RecordType::ALL;
    layout(
        "Records",
        Nav::Records,
        html! {
            form method="get" action="/records" role="search" class="search" {
                label for="q" { "Search your records" }
                input type="search" id="q" name="q" value=(q);
                label for="type" { "Type" }
                select id="type" name="type" {
                    option value="" { "any" }
                    @for t in types {
                        @let name = t.pascal_name();
                        option value=(name) selected[kind_parsed.as_deref() == Some(name)] { (name) }
                    }
                }
                label for="tag" { "Tag" }
                input type="text" id="tag" name="tag" value=(tag);
                button type="submit" { "Search" }
            }
            @match &found {
                Err(e) => p class="problem" { "The search index cannot be used: " (e.reason()) ". Re-index from the overview." },
                Ok(r) => {
                    p role="status" { (r.match_count) " record(s) match; the first " (r.records.len()) " by our ranking." }
                    ol class="hits" {
                        @for h in &r.records {
                            li {
                                a href={ "/records/view?id=" (urlencode(&h.id)) } { (h.title) }
                                " " span class="badge" { (h.kind) } " " code { (h.id) }
                                @if !h.tags.is_empty() { " " span class="tags" { (h.tags.iter().map(tag_text).collect::<Vec<_>>().join(", ")) } }
                                @if !h.excerpt.is_empty() { p class="excerpt" { (h.excerpt) } }
                            }
                        }
                    }
                }
            }
        },
    )
    .into_response()
}

/// Percent-encodes a query value.
pub fn urlencode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The folder part of a record path (`projects/x.md` -> `projects`).
fn resolve_relative(from: &str, target: &str) -> Option<String> {
    let mut parts: Vec<&str> = from.split('/').collect();
    parts.pop();
    for seg in target.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            s => parts.push(s),
        }
    }
    Some(parts.join("/"))
}

pub fn record(b: &Board, id: &str) -> Response {
    let fs = b.served.fs();
    let loaded = match b.served.graph().graph(fs) {
        Ok(g) => g,
        Err(e) => {
            return error_page(
                StatusCode::SERVICE_UNAVAILABLE,
                "No index",
                &format!("The VitaeGraph index cannot be read: {}. Re-index from the overview.", e.reason()),
            );
        }
    };
    let Some(&at) = loaded.by_id.get(id) else {
        return error_page(
            StatusCode::NOT_FOUND,
            "No such record",
            &format!("No record has the id {id:?} in the index."),
        );
    };
    let node = &loaded.graph.nodes[at];
    let text = match b.served.graph().read_record(fs, &node.path) {
        Ok(t) => t,
        Err(e) => {
            return error_page(
                StatusCode::UNPROCESSABLE_ENTITY,
                "The record cannot be read",
                &format!("{}: {e}", node.path),
            );
        }
    };
    let by_path: std::collections::HashMap<&str, &str> =
        loaded.graph.nodes.iter().map(|n| (n.path.as_str(), n.id.as_str())).collect();
    let (front, body) = split_front_matter(&text);
    let link = |target: &str| {
        let path = resolve_relative(&node.path, target)?;
        by_path.get(path.as_str()).map(|id| format!("/records/view?id={}", urlencode(id)))
    };
    let rendered = markdown::render(body, &link);
    let title = |id: &str| loaded.by_id.get(id).map_or(id.to_owned(), |&i| loaded.graph.nodes[i].label.clone());
    let out: Vec<_> = loaded.graph.edges.iter().filter(|e| e.source == node.id).collect();
    let inc: Vec<_> = loaded.graph.edges.iter().filter(|e| e.target == node.id).collect();
    let diagnostics = record_diagnostics(b, &node.path);
    layout(
        &node.label,
        Nav::Records,
        html! {
            p { span class="badge" { (node.kind) } " " code { (node.id) } " · " (node.path) }
            @if !diagnostics.is_empty() {
                section aria-labelledby="diag-h" {
                    h2 id="diag-h" { "Diagnostics" }
                    ul class="findings" {
                        @for (sev, code, message) in &diagnostics {
                            li class=(sev) { span class="badge" { (sev) } " " (message) " (" code { (code) } ")" }
                        }
                    }
                }
            }
            @if !out.is_empty() || !inc.is_empty() {
                section aria-labelledby="links-h" {
                    h2 id="links-h" { "Links" }
                    ul {
                        @for e in &out { li { (e.kind) " → " a href={ "/records/view?id=" (urlencode(&e.target)) } { (title(&e.target)) } } }
                        @for e in &inc { li { (e.kind) " ← " a href={ "/records/view?id=" (urlencode(&e.source)) } { (title(&e.source)) } } }
                    }
                }
            }
            @if let Some(front) = front {
                details { summary { "Front matter" } pre { (front) } }
            }
            article class="record" { (PreEscaped(rendered)) }
        },
    )
    .into_response()
}

/// `---\n...\n---\n` at the top, and the rest.
fn split_front_matter(text: &str) -> (Option<&str>, &str) {
    let Some(rest) = text.strip_prefix("---\n").or_else(|| text.strip_prefix("---\r\n")) else { return (None, text) };
    let mut at = 0;
    for line in rest.split_inclusive('\n') {
        if line.trim_end() == "---" {
            return (Some(&rest[..at]), &rest[at + line.len()..]);
        }
        at += line.len();
    }
    (None, text)
}

/// The findings of the last index run about `path`, from `.generated/diagnostics.json`.
fn record_diagnostics(b: &Board, path: &str) -> Vec<(String, String, String)> {
    let fs = b.served.fs();
    let Ok(root) = b.served.graph().canonical_root(fs) else { return Vec::new() };
    let rel = Path::new(domain::graph::GENERATED_DIR).join(domain::graph::DIAGNOSTICS_FILE);
    let Ok((bytes, _)) = fs.read_beneath(&root, &rel, 64 * 1024 * 1024) else { return Vec::new() };
    let Ok(v) = serde_json::from_slice::<Value>(&bytes) else { return Vec::new() };
    let mut out = Vec::new();
    for (key, sev) in [("errors", "error"), ("warnings", "warning")] {
        for d in v[key].as_array().into_iter().flatten() {
            if d["path"].as_str() == Some(path) {
                let s = |k: &str| d[k].as_str().unwrap_or_default().to_owned();
                out.push((sev.to_owned(), s("code"), s("message")));
            }
        }
    }
    out
}

pub fn check_form() -> Markup {
    layout("Check", Nav::Check, check_body("", "draft", None))
}

fn check_body(text: &str, kind: &str, results: Option<Markup>) -> Markup {
    html! {
        form method="post" action="/check" class="check" {
            fieldset {
                legend { "What is it?" }
                label { input type="radio" name="kind" value="draft" checked[kind != "posting"]; " A draft (CV, profile, cover letter): check its claims" }
                label { input type="radio" name="kind" value="posting" checked[kind == "posting"]; " A job posting: see what your files cover" }
            }
            label for="text" { "Paste it here" }
            textarea id="text" name="text" rows="12" required { (text) }
            button type="submit" id="check-submit" { "Check" }
        }
        @if let Some(r) = results { (r) }
    }
}

/// How a verdict sorts: the ones to fix first.
fn rank(status: &str) -> u8 {
    match status {
        "contradicted" => 0,
        "unsupported" => 1,
        "partly_supported" => 2,
        "supported" => 3,
        _ => 4,
    }
}

fn evidence_place(e: &Value) -> String {
    let file = e["file"].as_str().unwrap_or_default();
    match (e["record"].as_str(), e["line"].as_u64()) {
        (Some(id), _) => format!("record {id} ({file})"),
        (None, Some(line)) => format!("{file}:{line}"),
        (None, None) => file.to_owned(),
    }
}

pub fn check(b: &Board, text: &str, kind: &str) -> Response {
    use crate::usecase::grounding::{self, Files, MAX_DRAFT_BYTES};
    if text.trim().is_empty() {
        let page = layout(
            "Check",
            Nav::Check,
            check_body(
                text,
                kind,
                Some(html! { p class="problem" role="alert" { "Paste a draft or a job posting first." } }),
            ),
        );
        return (StatusCode::UNPROCESSABLE_ENTITY, page).into_response();
    }
    if text.len() > MAX_DRAFT_BYTES {
        return error_page(
            StatusCode::PAYLOAD_TOO_LARGE,
            "Too long",
            "A draft or posting may be at most 1 MiB, as for `vitaecontext check`.",
        );
    }
    if kind != "draft" && kind != "posting" {
        return error_page(StatusCode::BAD_REQUEST, "Unknown kind", "Choose a draft or a job posting.");
    }
    let fs = b.served.fs();
    let mut files = Files::gather(b.served.career_context(), b.served.graph(), fs);
    files.year_now = Some(grounding::year_now(&*b.clock));
    let results = if kind == "draft" {
        let claims = files.answer(b.served.graph(), fs, |f| f.check(text));
        draft_results(&grounding::claims_json(&claims), &files.notes)
    } else {
        let m = files.answer(b.served.graph(), fs, |f| f.match_job(text));
        posting_results(&grounding::job_json(&m), &files.notes)
    };
    layout("Check", Nav::Check, check_body(text, kind, Some(results))).into_response()
}

fn draft_results(v: &Value, notes: &[String]) -> Markup {
    let mut claims: Vec<&Value> = v["claims"].as_array().map(|a| a.iter().collect()).unwrap_or_default();
    claims.sort_by_key(|c| rank(c["status"].as_str().unwrap_or_default()));
    let counts = v["counts"].as_object().cloned().unwrap_or_default();
    html! {
        section aria-labelledby="results-h" class="results" {
            h2 id="results-h" { "Claims, the ones to fix first" }
            @for n in notes { p class="notice" { (n) } }
            p role="status" {
                @for (k, n) in &counts { span class={ "count v-" (k) } { (k.replace('_', " ")) ": " (n.as_u64().unwrap_or(0)) } " " }
            }
            ol class="claims" {
                @for c in claims {
                    @let status = c["status"].as_str().unwrap_or_default();
                    li class={ "claim v-" (status) } {
                        span class="badge" { (status.replace('_', " ")) }
                        " "
                        mark class={ "v-" (status) } tabindex="0" aria-describedby={ "why-" (c["line"]) "-" (rank(status)) } {
                            (c["text"].as_str().unwrap_or_default())
                        }
                        span class="line" { " (line " (c["line"]) ")" }
                        div class="why" role="tooltip" id={ "why-" (c["line"]) "-" (rank(status)) } {
                            @for a in c["assertions"].as_array().into_iter().flatten() {
                                @if a["status"] != "supported" || a["evidence"].is_object() {
                                    p { strong { (a["kind"].as_str().unwrap_or_default()) " " (a["status"].as_str().unwrap_or_default()) ": " } (a["explain"].as_str().unwrap_or_default()) }
                                }
                            }
                            @for f in c["facts"].as_array().into_iter().flatten() {
                                p {
                                    strong { (f["text"].as_str().unwrap_or_default()) }
                                    " " (f["status"].as_str().unwrap_or_default())
                                    @if let Some(found) = f["found"].as_str() { ", the files say " q { (found) } }
                                    @if f["evidence"].is_object() {
                                        " — " cite { (evidence_place(&f["evidence"])) } ": "
                                        q class="cited" { (f["evidence"]["excerpt"].as_str().unwrap_or_default()) }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

fn posting_results(v: &Value, notes: &[String]) -> Markup {
    let mut reqs: Vec<&Value> = v["requirements"].as_array().map(|a| a.iter().collect()).unwrap_or_default();
    reqs.sort_by_key(|r| r["level"].as_str() != Some("must_have"));
    html! {
        section aria-labelledby="results-h" class="results" {
            h2 id="results-h" { "Coverage of the posting's requirements" }
            @for n in notes { p class="notice" { (n) } }
            table class="coverage" {
                caption { "Each requirement, must-haves first, and what your files hold" }
                thead { tr { th scope="col" { "Requirement" } th scope="col" { "Level" } th scope="col" { "Coverage" } th scope="col" { "Evidence" } } }
                tbody {
                    @for r in reqs {
                        @let coverage = r["coverage"].as_str().unwrap_or_default();
                        tr class={ "cov-" (coverage) } {
                            td { (r["text"].as_str().unwrap_or_default()) }
                            td { (r["level"].as_str().unwrap_or_default().replace('_', " ")) }
                            td { span class="badge" { (coverage) } p class="explain" { (r["explanation"].as_str().unwrap_or_default()) } }
                            td {
                                @for e in r["evidence"].as_array().into_iter().flatten() {
                                    p { cite { (evidence_place(e)) } ": " (e["excerpt"].as_str().unwrap_or_default()) }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_links_resolve_from_the_records_folder() {
        assert_eq!(resolve_relative("projects/x.md", "../roles/y.md").as_deref(), Some("roles/y.md"));
        assert_eq!(resolve_relative("projects/x.md", "z.md").as_deref(), Some("projects/z.md"));
        assert_eq!(resolve_relative("x.md", "../../y.md"), None);
    }

    #[test]
    fn front_matter_is_split_from_the_body() {
        assert_eq!(split_front_matter("---\nid: a\n---\n# T\n"), (Some("id: a\n"), "# T\n"));
        assert_eq!(split_front_matter("# T\n"), (None, "# T\n"));
    }

    #[test]
    fn contradictions_sort_first() {
        let mut v = vec!["supported", "contradicted", "no_checkable_facts", "unsupported"];
        v.sort_by_key(|s| rank(s));
        assert_eq!(v, ["contradicted", "unsupported", "supported", "no_checkable_facts"]);
    }
}

//! Grounding use cases: gather the person's files as evidence (the current Career Context and
//! the VitaeGraph search index), run the domain's checks, and shape the answers (the JSON of
//! `--json` and `structuredContent`, the text a model acts on).

use std::sync::Arc;

use domain::career::Surface;
use domain::graph::search::{Pending, Searcher};
use domain::grounding::evidence::Origin;
use domain::grounding::job::{self, Coverage, JobMatch, Level};
use domain::grounding::typed::{Assertion, Verdict};
use domain::grounding::{self, Claim, ClaimStatus, Evidence, FactStatus};
use ports::fs::FileSystem;
use serde_json::{Map, Value, json};

use crate::graph_store::GraphStore;
use crate::usecase::career::{self, Current, Loaded};

/// The largest draft checked (a long CV is a few tens of KiB).
pub const MAX_DRAFT_BYTES: usize = 1024 * 1024;

/// The person's files as the checks read them, and what was missing.
#[derive(Debug, Default)]
pub struct Files {
    pub context: Option<Arc<Loaded>>,
    pub searcher: Option<Arc<Searcher>>,
    /// Records changed since the index (`mcp --watch` reads each change at once): read beside
    /// it, as `search_vitaegraph` reads them, so a claim an edit just supports is supported.
    pub pending: Option<Arc<Pending>>,
    /// Why a source is absent, in words (each a line of the answers).
    pub notes: Vec<String>,
    /// Why no Career Context was read, in a few words; `None` when one was.
    pub context_unread: Option<String>,
    /// The current year, for entries that run to the present (`2021-present` is five years in
    /// 2026).
    pub year_now: Option<i32>,
}

/// The calendar year (UTC) the clock is in.
pub fn year_now(clock: &dyn ports::Clock) -> i32 {
    humantime::format_rfc3339_seconds(clock.now()).to_string().get(..4).and_then(|y| y.parse().ok()).unwrap_or(2026)
}

impl Files {
    /// The current Career Context (any file that could be read, valid or not: its facts are the
    /// person's either way) and the VitaeGraph search index, if built.
    pub fn gather(current: Current, graph: &GraphStore, fs: &dyn FileSystem) -> Files {
        let mut files = Files::default();
        let context_missing = match current {
            Current::Loaded(l) => {
                files.context = Some(l);
                None
            }
            // The notice's heading, or for a file that was chosen but not read, the reason
            // under it ("file not found: PATH").
            Current::Unavailable(notice) => {
                let heading = notice.lines().find(|l| l.starts_with("# ")).map_or("not found", |l| &l[2..]);
                let reason = notice.lines().find(|l| !l.is_empty() && !l.starts_with('#'));
                Some(match reason {
                    Some(reason) if heading == "Career Context unavailable" => reason.to_owned(),
                    _ => heading.to_owned(),
                })
            }
        };
        match graph.searcher(fs) {
            Ok(s) => {
                files.searcher = Some(s);
                files.pending = Some(graph.pending());
            }
            Err(e) => tracing::debug!("no search index for grounding: {e}"),
        }
        files.notes.extend(match (context_missing.clone(), files.searcher.is_some()) {
            (None, true) => None,
            (Some(why), true) => {
                Some(format!("No Career Context was read ({why}), so only the VitaeGraph was searched."))
            }
            (None, false) => Some(
                "No VitaeGraph search index was found, so only the Career Context was searched (run `vitaecontext \
                 graph index` to include the detailed records)."
                    .to_owned(),
            ),
            // Found in review: the two notes above, together, said each source was the one
            // searched.
            (Some(why), false) => Some(format!(
                "No Career Context was read ({why}). No VitaeGraph search index was found either, so nothing was \
                 searched: no claim can be supported until one of them can be read."
            )),
        });
        files.context_unread = context_missing;
        files
    }

    /// Every claim of `draft`, checked against these files.
    pub fn check(&self, draft: &str) -> Vec<Claim> {
        let name = self.context.as_ref().map(|l| career::file_name(&l.path));
        let context = name.as_deref().zip(self.context.as_ref()).map(|(n, l)| (n, l.text.as_str()));
        let model = self.context.as_ref().map(|l| l.facts(name.as_deref().unwrap_or_default()));
        let cancel = crate::cancel::current();
        let sources = grounding::Sources {
            context,
            graph: self.searcher.as_deref(),
            pending: self.pending.as_deref(),
            year_now: self.year_now,
            cancel: cancel.as_deref(),
        };
        match model {
            Some(m) => grounding::check_with(draft, sources, &m),
            None => grounding::check(draft, sources),
        }
    }

    /// What `answer` makes of these files. When a text of the search sidecar failed its check
    /// meanwhile (the answer went without that record), the searcher is loaded again from
    /// `graph`, which then reads the JSON, and the answer is made again: found in review, a
    /// damaged sidecar made `check` call supported claims unsupported.
    pub fn answer<R>(&mut self, graph: &GraphStore, fs: &dyn FileSystem, answer: impl Fn(&Files) -> R) -> R {
        let made = answer(self);
        if !self.searcher.as_ref().is_some_and(|s| s.is_damaged()) {
            return made;
        }
        // The store said why on stderr when it dropped the searcher.
        self.searcher = graph.searcher(fs).ok();
        if self.searcher.is_none() {
            self.notes.push(
                "The VitaeGraph search index could not be loaded again after its sidecar failed a check, so the \
                 detailed records were not searched (run `vitaecontext graph index --full`)."
                    .to_owned(),
            );
        }
        answer(self)
    }
}

pub fn evidence_json(e: &Evidence) -> Value {
    let mut v = match &e.origin {
        Origin::Context { file, section } => json!({ "file": file, "section": section }),
        Origin::Record { id, path } => json!({ "record": id, "file": path }),
    };
    if let Some(line) = e.line {
        v["line"] = json!(line);
    }
    v["excerpt"] = json!(e.excerpt);
    v
}

fn evidence_place(e: &Evidence) -> String {
    match (&e.origin, e.line) {
        (Origin::Context { file, .. }, Some(line)) => format!("{file}:{line}"),
        (Origin::Context { file, section }, None) => format!("{file}, {section}"),
        (Origin::Record { id, .. }, _) => format!("record {id}"),
    }
}

/// `{"claims": [{"text", "line", "status", "facts": [{"text", "kind", "status", "evidence"}]}],
/// "counts": {...}}`: the `--json` output and the tool's `structuredContent`.
pub fn claims_json(claims: &[Claim]) -> Value {
    let claims_v: Vec<Value> = claims
        .iter()
        .map(|c| {
            let facts: Vec<Value> = c
                .facts
                .iter()
                .map(|f| {
                    let mut v = json!({ "text": f.text, "kind": f.kind.as_str(), "status": f.status.as_str() });
                    match &f.status {
                        FactStatus::Supported(e) => v["evidence"] = evidence_json(e),
                        FactStatus::Contradicted { evidence, found } => {
                            v["evidence"] = evidence_json(evidence);
                            v["found"] = json!(found);
                        }
                        FactStatus::Unsupported => v["evidence"] = Value::Null,
                    }
                    v
                })
                .collect();
            let assertions: Vec<Value> = c.assertions.iter().map(assertion_json).collect();
            json!({
                "text": c.text, "line": c.line, "status": c.status.as_str(), "facts": facts,
                "assertions": assertions,
            })
        })
        .collect();
    let mut counts = Map::new();
    for (s, n) in grounding::counts(claims) {
        counts.insert(s.as_str().into(), json!(n));
    }
    json!({ "claims": claims_v, "counts": counts })
}

/// One typed assertion: `{"kind", "text", "status", "explain", "evidence", "found"?}`.
fn assertion_json(a: &Assertion) -> Value {
    let mut v = json!({ "kind": a.kind.as_str(), "text": a.text, "status": a.verdict.as_str(), "explain": a.explain });
    match &a.verdict {
        Verdict::Supported(e) => v["evidence"] = evidence_json(e),
        Verdict::Contradicted { evidence, found } => {
            v["evidence"] = evidence_json(evidence);
            v["found"] = json!(found);
        }
        Verdict::Unsupported => v["evidence"] = Value::Null,
    }
    v
}

/// What an assertion needing attention is, in words: `title "Head of Department": a more
/// senior title than the files give: Deputy Head of Department at ... (cc.md:31)`.
pub fn assertion_problem(a: &Assertion) -> Option<String> {
    match &a.verdict {
        Verdict::Supported(_) => None,
        Verdict::Unsupported => Some(format!("{} {:?}: {}", a.kind.as_str().replace('_', " "), a.text, a.explain)),
        Verdict::Contradicted { evidence, .. } => Some(format!(
            "{} {:?}: {} ({})",
            a.kind.as_str().replace('_', " "),
            a.text,
            a.explain,
            evidence_place(evidence)
        )),
    }
}

/// One line of a claim for a person or a model: the claim, shortened to one line.
pub fn one_line(text: &str, max: usize) -> String {
    let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= max {
        flat
    } else {
        let mut s: String = flat.chars().take(max).collect();
        s.push('…');
        s
    }
}

/// What a fact needing attention is, in words: `"95%": your files say 88% (career-context.md:43)`.
pub fn fact_problem(f: &grounding::Fact) -> Option<String> {
    match &f.status {
        FactStatus::Supported(_) => None,
        FactStatus::Unsupported => Some(format!("{:?}: not found in the person's files", f.text)),
        FactStatus::Contradicted { evidence, found } => {
            Some(format!("{:?}: the files say {found:?} ({})", f.text, evidence_place(evidence)))
        }
    }
}

/// How every claim was read (`check --explain`): its verdict, each typed assertion with the
/// entity and value it was judged against, and each fact with where it was found or why not.
pub fn claims_explained(claims: &[Claim]) -> String {
    let mut out = String::from("How each claim was read:\n");
    for c in claims {
        out.push_str(&format!(
            "\nline {}: {} ({})\n",
            c.line,
            one_line(&c.text, 100),
            c.status.as_str().replace('_', " ")
        ));
        for a in &c.assertions {
            let verdict = match &a.verdict {
                Verdict::Supported(e) => format!("supported by {}", evidence_place(e)),
                Verdict::Contradicted { evidence, found } => {
                    format!("contradicted: the files say {found:?} ({})", evidence_place(evidence))
                }
                Verdict::Unsupported => "not found in the files".to_owned(),
            };
            out.push_str(&format!("  {} {:?}: {verdict}; {}\n", a.kind.as_str(), a.text, a.explain));
        }
        for f in &c.facts {
            let status = match &f.status {
                FactStatus::Supported(e) => format!("found at {}", evidence_place(e)),
                FactStatus::Unsupported => "not found in the files".to_owned(),
                FactStatus::Contradicted { evidence, found } => {
                    format!("the files say {found:?} ({})", evidence_place(evidence))
                }
            };
            out.push_str(&format!("  {} {:?}: {status}\n", f.kind.as_str(), f.text));
        }
        if c.assertions.is_empty() && c.facts.is_empty() {
            out.push_str("  no number, date, name or typed fact to check\n");
        }
    }
    out
}

/// The text a model acts on: contradicted and unsupported claims first, then the partly
/// supported, each with what to do; then the counts.
pub fn claims_text(claims: &[Claim], surface: Option<Surface>, notes: &[String]) -> String {
    let mut out = String::from("# Claim check\n\n");
    let counts: Vec<String> =
        grounding::counts(claims).iter().map(|(s, n)| format!("{n} {}", s.as_str().replace('_', " "))).collect();
    out.push_str(&format!("{}: {}.\n", domain::text::count(claims.len(), "claim"), counts.join(", ")));
    for n in notes {
        out.push_str(&format!("Note: {n}\n"));
    }
    for (title, statuses) in [
        ("Contradicted by the person's files", &[ClaimStatus::Contradicted][..]),
        ("Unsupported: no evidence in the person's files", &[ClaimStatus::Unsupported]),
        ("Partly supported", &[ClaimStatus::PartlySupported]),
    ] {
        let these: Vec<&Claim> = claims.iter().filter(|c| statuses.contains(&c.status)).collect();
        if these.is_empty() {
            continue;
        }
        out.push_str(&format!("\n## {title}\n\n"));
        for c in these {
            out.push_str(&format!("- Line {}: {}\n", c.line, one_line(&c.text, 160)));
            for p in c.assertions.iter().filter_map(assertion_problem) {
                out.push_str(&format!("  - {p}\n"));
            }
            // A fact an assertion already explained is not said twice.
            let explained = |f: &grounding::Fact| {
                c.assertions.iter().any(|a| {
                    !matches!(a.verdict, Verdict::Supported(_))
                        && f.span.start < a.span.end
                        && a.span.start < f.span.end
                })
            };
            for p in c.facts.iter().filter(|f| !explained(f)).filter_map(fact_problem) {
                out.push_str(&format!("  - {p}\n"));
            }
            out.push_str(&format!("  - What to do: {}.\n", grounding::advice(c)));
        }
    }
    let fine = claims.iter().filter(|c| c.status == ClaimStatus::Supported).count();
    let (fine, are) = (domain::text::count(fine, "claim"), if fine == 1 { "is" } else { "are" });
    out.push_str(&format!(
        "\n{fine} {are} supported by the person's files; claims without numbers, dates or names are not checked.\n"
    ));
    if let Some(s) = surface {
        out.push_str(&format!(
            "For wording and facts meant for this surface, read `get_career_context` with `for: {s}`.\n"
        ));
    }
    out.push_str(
        "Never fix a claim by inventing a new value: use the value the files give, soften the claim, or ask the person.\n",
    );
    out
}

impl Files {
    /// The coverage of a job posting's requirements by these files; keywords are measured
    /// against the `cv` packet, the text an assistant tailoring a CV already has.
    pub fn match_job(&self, posting: &str) -> JobMatch {
        let name = self.context.as_ref().map(|l| career::file_name(&l.path));
        let context = name.as_deref().zip(self.context.as_ref()).map(|(n, l)| (n, l.text.as_str()));
        let packet = self.context.as_ref().and_then(|l| career::packet_of(l, Surface::Cv).ok()).unwrap_or_default();
        job::match_job(
            posting,
            grounding::Sources {
                context,
                graph: self.searcher.as_deref(),
                pending: self.pending.as_deref(),
                year_now: self.year_now,
                cancel: crate::cancel::current().as_deref(),
            },
            &packet,
        )
    }
}

/// `{"requirements": [{"text", "line", "level", "coverage", "found", "missing", "evidence",
/// "explanation"}],
/// "keywords": [{"term", "evidence"}], "counts": {"must_have": {...}, "nice_to_have": {...}}}`.
pub fn job_json(m: &JobMatch) -> Value {
    let reqs: Vec<Value> = m
        .requirements
        .iter()
        .map(|r| {
            json!({
                "text": r.text, "line": r.line, "level": r.level.as_str(), "coverage": r.coverage.as_str(),
                "found": r.found, "missing": r.missing,
                "evidence": r.evidence.iter().map(evidence_json).collect::<Vec<_>>(),
                "explanation": r.explanation,
            })
        })
        .collect();
    let keywords: Vec<Value> =
        m.keywords.iter().map(|k| json!({ "term": k.term, "evidence": evidence_json(&k.evidence) })).collect();
    let mut counts = Map::new();
    for level in [Level::Must, Level::Nice] {
        let mut per = Map::new();
        for c in Coverage::ALL {
            let n = m.requirements.iter().filter(|r| r.level == level && r.coverage == c).count();
            per.insert(c.as_str().into(), json!(n));
        }
        counts.insert(level.as_str().into(), Value::Object(per));
    }
    json!({ "requirements": reqs, "keywords": keywords, "counts": counts })
}

fn evidence_id(e: &Evidence) -> String {
    match &e.origin {
        // The title line is in no section: no empty `()` after it (found in review).
        Origin::Context { file, section } => match (e.line, section.is_empty()) {
            (Some(l), false) => format!("{file}:{l} ({section})"),
            (Some(l), true) => format!("{file}:{l}"),
            (None, false) => format!("{file} ({section})"),
            (None, true) => file.clone(),
        },
        Origin::Record { id, .. } => id.clone(),
    }
}

/// The coverage table as Markdown, must-haves first; counts per class, no score.
pub fn job_text(m: &JobMatch, notes: &[String]) -> String {
    // Each block below starts with its blank line: one between blocks, whichever are present.
    let mut out = String::from("# Job posting coverage\n");
    if !notes.is_empty() {
        out.push('\n');
    }
    for n in notes {
        out.push_str(&format!("Note: {n}\n"));
    }
    if m.requirements.is_empty() {
        out.push_str(
            "\nNo requirements were found: the posting has no requirement list (headings such as \"Requirements\", \
             \"What you bring\", \"Nice to have\" with list items under them).\n",
        );
    }
    for level in [Level::Must, Level::Nice] {
        let these: Vec<_> = m.requirements.iter().filter(|r| r.level == level).collect();
        if these.is_empty() {
            continue;
        }
        let counts: Vec<String> = Coverage::ALL
            .iter()
            .map(|c| format!("{} {}", these.iter().filter(|r| r.coverage == *c).count(), c.as_str()))
            .collect();
        let title = if level == Level::Must { "Must-have" } else { "Nice-to-have" };
        out.push_str(&format!(
            "\n## {title} ({})\n\n| Line | Requirement | Coverage | Evidence | Not found | Compared |\n|---|---|---|---|---|---|\n",
            counts.join(", ")
        ));
        for r in these {
            let cell = |s: String| s.replace('|', "\\|");
            let ev: Vec<String> = r.evidence.iter().map(evidence_id).collect();
            out.push_str(&format!(
                "| {} | {} | {} | {} | {} | {} |\n",
                r.line,
                cell(one_line(r.text.trim_start_matches(['-', '*', '+', '•', ' ']), 100)),
                r.coverage.as_str(),
                cell(ev.join(", ")),
                cell(r.missing.join(", ")),
                cell(one_line(&r.explanation, 300))
            ));
        }
    }
    if !m.keywords.is_empty() {
        out.push_str("\n## Keywords the person's files support that the cv packet does not mention\n\n");
        for k in &m.keywords {
            out.push_str(&format!("- {} ({})\n", k.term, evidence_id(&k.evidence)));
        }
    }
    out.push_str(
        "\nCompared says what each verdict rests on: the alternative found (\"one of\" needs only one), the years, \
         language level (CEFR) or degree level asked against what the files hold, and the common words of job ads, \
         which cover nothing. Use only covered requirements as strengths; for partial and missing ones, ask the \
         person before claiming them. Read the cited records with vitaegraph://record/{id}.\n",
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evidence_in_no_section_has_no_empty_brackets() {
        let at = |section: &str, line| Evidence {
            origin: Origin::Context { file: "cc.md".into(), section: section.into() },
            line,
            excerpt: String::new(),
        };
        assert_eq!(evidence_id(&at("", Some(1))), "cc.md:1");
        assert_eq!(evidence_id(&at("SKILLS INDEX", Some(92))), "cc.md:92 (SKILLS INDEX)");
        assert_eq!(evidence_id(&at("", None)), "cc.md");
    }

    /// One blank line between blocks, whichever blocks there are (found in review: two after
    /// the title when there was no note).
    #[test]
    fn the_match_report_never_has_two_blank_lines_in_a_row() {
        let context = include_str!("../../../examples/career-context.md");
        let sources = |c| grounding::Sources {
            context: Some(("cc.md", c)),
            graph: None,
            pending: None,
            year_now: Some(2026),
            cancel: None,
        };
        for posting in ["We are a nice company.\n", "## Requirements\n\n- Rust\n- 20 years of COBOL\n"] {
            let m = domain::grounding::job::match_job(posting, sources(context), "");
            for notes in [vec![], vec!["a note".to_owned()]] {
                let text = job_text(&m, &notes);
                assert!(!text.contains("\n\n\n"), "{posting:?}, {} notes:\n{text}", notes.len());
                assert!(text.starts_with("# Job posting coverage\n\n") && text.ends_with(".\n"), "{text}");
            }
        }
    }
}

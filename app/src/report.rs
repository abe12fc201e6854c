//! Human-readable findings, rendered with miette: a namespaced code, the source line with a
//! label under the exact span, and a help line saying how to fix it.

use std::borrow::Cow;
use std::fmt;
use std::io::IsTerminal;

use domain::career::{Code, Diagnostic, Severity, Validation};
use std::sync::Arc;

use miette::{GraphicalReportHandler, GraphicalTheme, LabeledSpan, NamedSource, SourceSpan};

/// A file's source and a label under each of its spans.
type Place = (NamedSource<Arc<str>>, Vec<(SourceSpan, String)>);

/// One finding about one file, as miette wants it: a namespaced code, the message, a help
/// line, and (when the place is known) the source with a label under each span; findings about
/// a second file (the first record with a duplicate id) follow as related ones.
#[derive(Debug)]
pub struct Finding {
    code: String,
    message: String,
    help: Option<Cow<'static, str>>,
    severity: miette::Severity,
    /// The source is shared: many findings in one file hold one copy of its text.
    at: Option<Place>,
    related: Vec<Finding>,
}

impl Finding {
    /// The same finding as a warning (`warning`) or an error.
    pub fn with_severity(mut self, warning: bool) -> Self {
        self.severity = if warning { miette::Severity::Warning } else { miette::Severity::Error };
        self
    }
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Finding {}

impl miette::Diagnostic for Finding {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        (!self.code.is_empty()).then(|| Box::new(&self.code) as Box<dyn fmt::Display>)
    }
    fn severity(&self) -> Option<miette::Severity> {
        Some(self.severity)
    }
    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.help.as_ref().map(|h| Box::new(h) as Box<dyn fmt::Display>)
    }
    fn source_code(&self) -> Option<&dyn miette::SourceCode> {
        self.at.as_ref().map(|(s, _)| s as &dyn miette::SourceCode)
    }
    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        let (_, labels) = self.at.as_ref()?;
        Some(Box::new(labels.iter().map(|(span, label)| LabeledSpan::new_with_span(Some(label.clone()), *span))))
    }
    fn related<'a>(&'a self) -> Option<Box<dyn Iterator<Item = &'a dyn miette::Diagnostic> + 'a>> {
        (!self.related.is_empty())
            .then(|| Box::new(self.related.iter().map(|f| f as &dyn miette::Diagnostic)) as Box<dyn Iterator<Item = _>>)
    }
}

fn severity(s: Severity) -> miette::Severity {
    match s {
        Severity::Error => miette::Severity::Error,
        Severity::Warning => miette::Severity::Warning,
    }
}

/// What the label under the span says: what was expected, or what was found.
fn label(d: &Diagnostic, v: &Validation) -> String {
    match d.code {
        Code::H1Count => "expected exactly one `# Name - Descriptor` title".into(),
        Code::H1Descriptor => "expected `Full Name - Positioning descriptor`".into(),
        Code::MissingQuickReference => "expected a `## QUICK REFERENCE` section after this".into(),
        Code::QuickReferencePosition => "expected as the first H2".into(),
        // On the heading itself it is about the missing fence; other lines lie inside the block.
        Code::QuickReferenceYaml if is_quick_reference_heading(v, d.line) => {
            "expected a closed ```yaml fence right after this heading".into()
        }
        Code::QuickReferenceYaml => "not accepted in the flat QUICK REFERENCE YAML".into(),
        Code::MissingQuickField => "expected `name` and `positioning_summary` in this block".into(),
        Code::EmptyQuickValue => "a value in this block is empty or template text".into(),
        Code::MissingScopeDeclaration => "expected a short scope statement after this block".into(),
        Code::MissingSection | Code::MissingEvidenceHistory | Code::MissingVerifiedFacts => {
            "not found anywhere in this file".into()
        }
        Code::ConflictingVerifiedFact => "VERIFIED FACTS disagree with each other".into(),
        Code::MissingTldr => "expected a `TL;DR:` line in this entry".into(),
        Code::ReversedDateRange => "this range runs backwards".into(),
        Code::Placeholder => "template text".into(),
        Code::TrackedWorkspacePath => "this file is inside a git work tree".into(),
    }
}

fn is_quick_reference_heading(v: &Validation, line: usize) -> bool {
    v.sections.iter().any(|s| s.normalized == "quick reference" && s.line == line)
}

/// Byte offset in `text` of a 1-based (line, char column).
fn offset(line_starts: &[usize], text: &str, line: usize, column: usize) -> usize {
    let start = line_starts.get(line.saturating_sub(1)).copied().unwrap_or(text.len());
    let line_text = &text[start..];
    let line_text = &line_text[..line_text.find('\n').unwrap_or(line_text.len())];
    start + line_text.char_indices().nth(column.saturating_sub(1)).map_or(line_text.len(), |(i, _)| i)
}

pub fn findings(path: &str, content: &str, v: &Validation) -> Vec<Finding> {
    let text = content.replace("\r\n", "\n");
    let line_starts = line_starts(&text);
    let shared: Arc<str> = Arc::from(text.as_str());
    v.errors.iter().chain(&v.warnings).map(|d| finding_at(path, &shared, &line_starts, d, v)).collect()
}

/// A Career Context's text as its findings show it, made once for all of them (made for each,
/// `doctor` took time in the square of the file's length: 65 s for 16,000 findings).
pub struct ContextText {
    content: Arc<str>,
    text: Arc<str>,
    line_starts: Vec<usize>,
}

impl ContextText {
    pub fn new(content: &Arc<str>) -> ContextText {
        let text: Arc<str> = Arc::from(content.replace("\r\n", "\n").as_str());
        ContextText { content: Arc::clone(content), line_starts: line_starts(&text), text }
    }

    /// Whether this is the text of `content` (the same shared string).
    pub fn is_of(&self, content: &Arc<str>) -> bool {
        Arc::ptr_eq(&self.content, content)
    }
}

/// One Career Context diagnostic of `v` (the validation of `text`) as a finding.
pub fn context_finding(path: &str, text: &ContextText, d: &Diagnostic, v: &Validation) -> Finding {
    finding_at(path, &text.text, &text.line_starts, d, v)
}

/// The line a person sees a Career Context diagnostic at: the first place it marks, when the
/// domain knows it, else its line (which is VitaeContext 2.3.0's numbering).
pub fn shown_line(text: &str, d: &Diagnostic) -> usize {
    match &d.shown {
        Some(shown) if !shown.marks.is_empty() => {
            let first = shown.marks[0].0.start.min(text.len());
            text[..first].matches('\n').count() + 1
        }
        _ => d.line,
    }
}

fn line_starts(text: &str) -> Vec<usize> {
    std::iter::once(0).chain(text.match_indices('\n').map(|(i, _)| i + 1)).collect()
}

fn finding_at(path: &str, text: &Arc<str>, line_starts: &[usize], d: &Diagnostic, v: &Validation) -> Finding {
    let source = NamedSource::new(path, Arc::clone(text));
    // The exact places, when the domain knows them; else the columns of `line` (2.3.0's).
    let (line, labels, help) = match &d.shown {
        Some(shown) if !shown.marks.is_empty() => {
            let first = shown.marks[0].0.start.min(text.len());
            let line = line_starts.partition_point(|&s| s <= first).max(1);
            let labels = shown
                .marks
                .iter()
                .map(|(r, l)| (SourceSpan::from(r.start.min(text.len())..r.end.min(text.len())), l.clone()))
                .collect();
            let help = shown.help.clone().map_or(Cow::Borrowed(d.code.help()), Cow::Owned);
            (line, labels, help)
        }
        _ => {
            let a = offset(line_starts, text, d.line, d.column);
            let b = offset(line_starts, text, d.line, d.end_column).max(a);
            (d.line, vec![(SourceSpan::from(a..b), label(d, v))], Cow::Borrowed(d.code.help()))
        }
    };
    Finding {
        code: format!("vitaecontext::context::{}", d.code.as_str()),
        // The place shown can be more exact than the diagnostic's line, which is 2.3.0's (an
        // empty quick value is reported at the block's heading): both are said, so that the
        // text and `--json` never seem to disagree (found in review).
        message: if line == d.line {
            format!("{} (line {line})", d.message)
        } else {
            format!("{} (line {line}; --json gives line {}, where VitaeContext 2.3.0 reports it)", d.message, d.line)
        },
        help: Some(help),
        severity: severity(d.severity),
        at: Some((source, labels)),
        related: Vec::new(),
    }
}

/// Any other finding (`doctor`'s own): the code, the message, the help, and when known the
/// file's text with a label under `span` (byte offsets).
pub fn plain_finding(
    code: &str,
    warning: bool,
    message: String,
    help: String,
    at: Option<(&str, &str, std::ops::Range<usize>, &str)>,
) -> Finding {
    Finding {
        code: code.to_owned(),
        message,
        help: Some(Cow::Owned(help)),
        severity: if warning { miette::Severity::Warning } else { miette::Severity::Error },
        at: at.map(|(path, text, span, label)| {
            (NamedSource::new(path, Arc::from(text)), vec![(SourceSpan::from(span), label.to_owned())])
        }),
        related: Vec::new(),
    }
}

/// Whether to colour output on stderr: a terminal, and no NO_COLOR.
pub fn stderr_color() -> bool {
    std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none()
}

/// Whether to colour output on stdout (`doctor`'s report): a terminal, and no NO_COLOR.
pub fn stdout_color() -> bool {
    std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none()
}

/// Renders every finding, in order, as one text.
pub fn render(findings: &[Finding], width: usize, color: bool) -> String {
    render_all(findings, width, color)
}

/// A VitaeGraph finding: the file, and the front-matter line when one is known. `text` is the
/// file's text, shared between the findings of one file; `other_text` is the text of the other
/// file the finding is about (`d.other`: the first record with a duplicate id), when read.
pub fn graph_finding(
    d: &domain::graph::GraphDiagnostic,
    warning: bool,
    text: Option<Arc<str>>,
    other_text: Option<Arc<str>>,
) -> Finding {
    let located = |path: &str, line: Option<usize>| match line {
        Some(line) => format!("{path}:{line}"),
        None => path.to_owned(),
    };
    // A note says more than the code's help, which it would contradict (`add a --- line` then
    // `start the file with a --- block`; found in review).
    let mut help = Cow::Borrowed(d.note.unwrap_or(d.code.help()));
    let mut related = Vec::new();
    if let Some(other) = &d.other {
        let (here, there) = (located(&d.path, d.line), located(&other.path, other.line));
        help = Cow::Owned(format!("{here} and {there} use the same id. {}", d.code.help()));
        related.push(Finding {
            code: String::new(),
            message: format!("{there}: first used here"),
            help: None,
            severity: miette::Severity::Advice,
            at: line_label(&other.path, other.line, other_text, "first used here"),
            related: Vec::new(),
        });
    }
    Finding {
        code: format!("vitaecontext::graph::{}", d.code),
        message: format!("{}: {}", located(&d.path, d.line), d.message),
        help: Some(help),
        severity: if warning { miette::Severity::Warning } else { miette::Severity::Error },
        at: line_label(&d.path, d.line, text, "here"),
        related,
    }
}

/// The source of `path` with `label` under its whole line `line`, when both are known.
fn line_label(path: &str, line: Option<usize>, text: Option<Arc<str>>, label: &str) -> Option<Place> {
    let (line, text) = (line?, text?);
    let start: usize = text.split_inclusive('\n').take(line - 1).map(str::len).sum();
    let len = text[start.min(text.len())..].split('\n').next().map_or(0, |l| l.trim_end_matches('\r').len());
    Some((NamedSource::new(path, text), vec![(SourceSpan::from(start..start + len), label.into())]))
}

/// A problem in a skill file or a skills config: the file, the line, a label under the span.
pub fn skill_finding(
    path: &str,
    text: &str,
    p: &domain::skills::Problem,
    code: &str,
    help: impl Into<Cow<'static, str>>,
) -> Finding {
    let location = match p.line() {
        Some(line) => format!("{path}:{line}"),
        None => path.to_owned(),
    };
    Finding {
        code: format!("vitaecontext::skills::{code}"),
        message: format!("{location}: {}", p.message),
        help: Some(help.into()),
        severity: miette::Severity::Error,
        at: p.span.map(|s| {
            let end = if s.end > s.start { s.end } else { s.start };
            (NamedSource::new(path, Arc::from(text)), vec![(SourceSpan::from(s.start..end), p.label.clone())])
        }),
        related: Vec::new(),
    }
}

/// Renders any miette diagnostics, in order.
pub fn render_all<D: miette::Diagnostic>(items: &[D], width: usize, color: bool) -> String {
    let theme = if color { GraphicalTheme::unicode() } else { GraphicalTheme::unicode_nocolor() };
    // Not wrapped: a path or a command broken over two lines cannot be copied (found in review:
    // a suggested command was split mid-path). The terminal folds long lines for reading.
    let handler = GraphicalReportHandler::new_themed(theme).with_width(width).with_wrap_lines(false).with_links(false);
    let mut out = String::new();
    for (i, d) in items.iter().enumerate() {
        let _ = if i >= MAX_WITH_SOURCE || shows_a_long_line(d) {
            handler.render_report(&mut out, &Bare(d))
        } else {
            handler.render_report(&mut out, d)
        };
        out.push('\n');
    }
    if items.len() > MAX_WITH_SOURCE {
        out.push_str(&format!(
            "The {} findings after the first {MAX_WITH_SOURCE} are shown without their source lines; --json gives each \
             with its line.\n",
            items.len() - MAX_WITH_SOURCE
        ));
    }
    out
}

/// The findings rendered with their source lines. Each looks its lines up from the start of
/// its file, so a file with a finding on every line took time in the square of its length
/// (found in review: 16,000 findings of a 405 KB draft took 134 s, and 0.25 s with --json);
/// past this many, a finding is its message, code and help.
const MAX_WITH_SOURCE: usize = 200;

/// The longest source line a finding is shown with. miette's graphical handler panics on a
/// line of more than 65,535 characters ("Formatting argument out of range", found in review:
/// `context validate` and `doctor` crashed on a file with one 70,000-character line), and a
/// line that long is unreadable in a terminal anyway.
const MAX_SHOWN_LINE: usize = 4096;

/// Whether a label of `d` (or of a finding related to it) lies on, or next to, a line too long
/// to show (the handler shows one line of context around each label).
fn shows_a_long_line(d: &dyn miette::Diagnostic) -> bool {
    let long = d.source_code().zip(d.labels()).is_some_and(|(src, mut labels)| {
        labels.any(|l| {
            src.read_span(l.inner(), 1, 1)
                .map_or(true, |c| c.data().split(|&b| b == b'\n').any(|line| line.len() > MAX_SHOWN_LINE))
        })
    });
    long || d.related().is_some_and(|mut r| r.any(shows_a_long_line))
}

/// A finding without its source lines: its message (which names the line), code and help.
struct Bare<'a>(&'a dyn miette::Diagnostic);

impl fmt::Debug for Bare<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.0, f)
    }
}

impl fmt::Display for Bare<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self.0, f)
    }
}

impl std::error::Error for Bare<'_> {}

impl miette::Diagnostic for Bare<'_> {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.0.code()
    }

    fn severity(&self) -> Option<miette::Severity> {
        self.0.severity()
    }

    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.0.help()
    }
}

/// A claim of a draft that needs attention: a label under each unsupported or contradicted
/// fact (what the files say instead, when they say something), the advice as help.
#[derive(Debug)]
pub struct ClaimFinding {
    code: String,
    message: String,
    help: String,
    severity: miette::Severity,
    source: NamedSource<Arc<str>>,
    labels: Vec<(SourceSpan, String)>,
}

impl fmt::Display for ClaimFinding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ClaimFinding {}

impl miette::Diagnostic for ClaimFinding {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new(&self.code))
    }
    fn severity(&self) -> Option<miette::Severity> {
        Some(self.severity)
    }
    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new(&self.help))
    }
    fn source_code(&self) -> Option<&dyn miette::SourceCode> {
        Some(&self.source)
    }
    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        Some(Box::new(self.labels.iter().map(|(span, l)| LabeledSpan::new_with_span(Some(l.clone()), *span))))
    }
}

/// One finding per claim that is contradicted, unsupported or partly supported, in draft order.
pub fn claim_findings(path: &str, draft: &str, claims: &[domain::grounding::Claim]) -> Vec<ClaimFinding> {
    use domain::grounding::{ClaimStatus, FactStatus, advice};
    // One copy of the draft for every finding (a copy each was 6.5 GB of copying for 16,000
    // findings of a 405 KB draft).
    let draft: Arc<str> = Arc::from(draft);
    claims
        .iter()
        .filter(|c| {
            matches!(c.status, ClaimStatus::Contradicted | ClaimStatus::Unsupported | ClaimStatus::PartlySupported)
        })
        .map(|c| {
            let labels = c
                .facts
                .iter()
                .filter_map(|f| {
                    let label = match &f.status {
                        FactStatus::Supported(_) => return None,
                        FactStatus::Unsupported => "not found in your files".to_owned(),
                        FactStatus::Contradicted { found, evidence } => {
                            let at = match (&evidence.origin, evidence.line) {
                                (domain::grounding::evidence::Origin::Context { file, .. }, Some(l)) => {
                                    format!("{file}:{l}")
                                }
                                (domain::grounding::evidence::Origin::Context { file, section }, None) => {
                                    format!("{file}, {section}")
                                }
                                (domain::grounding::evidence::Origin::Record { id, .. }, _) => id.clone(),
                            };
                            format!("your files say {found} ({at})")
                        }
                    };
                    Some((SourceSpan::from(f.span.clone()), label))
                })
                .collect();
            let what = c.status.as_str().replace('_', " ");
            ClaimFinding {
                code: format!("vitaecontext::check::{}", c.status.as_str()),
                message: format!("line {}: claim is {what}", c.line),
                help: advice(c).to_owned(),
                severity: if c.status.is_problem() { miette::Severity::Error } else { miette::Severity::Warning },
                source: NamedSource::new(path, Arc::clone(&draft)),
                labels,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use domain::career::{FileFacts, validate};

    #[test]
    fn claim_findings_label_each_fact_with_what_the_files_say() {
        let context =
            "# Ada Lovelace - Analyst\n\n## PROFESSIONAL EXPERIENCE\n\n- Cut report time by 40% at Babbage Engines.\n";
        let draft = "- Cut report time by 60% at Babbage Engines.\n- Founded Acme Corp in 2012.\n";
        let claims = domain::grounding::check(
            draft,
            domain::grounding::Sources { context: Some(("career-context.md", context)), ..Default::default() },
        );
        insta::assert_snapshot!(render_all(&claim_findings("draft.md", draft, &claims), 100, false));
    }

    #[test]
    fn findings_render_with_code_label_and_help() {
        let text = "# Ada Lovelace\n\n## QUICK REFERENCE\n```yaml\nname: Ada\npositioning_summary: n/a\n```\nScope.\n\n<!-- VERIFIED FACTS: a=1 -->\n\n## GOALS AND TARGETING\nWorked 2020-2019 on [your project].\n\n## SKILLS INDEX\n\n### Analyst [ROLE]\n";
        let v = validate(text, FileFacts::default());
        let out = render(&findings("career-context.md", text, &v), 100, false);
        insta::assert_snapshot!(out);
    }

    /// A finding on (or next to) a line of 70,000 characters is rendered without its source
    /// lines: miette panics on a line over 65,535 (found in review: `context validate`
    /// crashed). One on a short line of the same file still shows its line.
    #[test]
    fn a_finding_by_a_very_long_line_is_shown_without_it() {
        let text = format!(
            "# A - B\n\n## QUICK REFERENCE\n```yaml\nname: A\npositioning_summary: B\n```\nScope.\n\n## GOALS AND TARGETING\n{} [your name]\n",
            "x".repeat(70_000)
        );
        let long = rendered(&text, Code::Placeholder);
        assert!(long.contains("(line 11)") && !long.contains("xxxx"), "{}", &long[..long.len().min(500)]);
        let short = rendered(&text, Code::MissingEvidenceHistory);
        assert!(short.contains("1 │ # A - B"), "{short}");
    }

    /// Issue 11: 2.3.0's `line` stays in JSON, but the rendering points at the exact place.
    /// Each case renders only the finding it is about.
    fn rendered(text: &str, code: Code) -> String {
        let v = validate(text, FileFacts::default());
        let shown = ContextText::new(&Arc::from(text));
        let f: Vec<Finding> = v
            .errors
            .iter()
            .filter(|d| d.code == code)
            .map(|d| context_finding("career-context.md", &shown, d, &v))
            .collect();
        assert!(!f.is_empty(), "{code:?} is reported");
        render(&f, 100, false)
    }

    const EXACT: &str = "# Ada Lovelace - Analyst\n\n## QUICK REFERENCE\n```yaml\nname: Ada\npositioning_summary: Analyst\ntarget_roles:\n  - Data lead\n  - TBD\nlocation: n/a\n```\nScope: all of it.\n\n<!-- VERIFIED FACTS: employer=Babbage, years=3,\n  Employer=Acme -->\n\n## EDUCATION\n\n### BSc [DEGREE]\nTL;DR: done.\n";

    #[test]
    fn an_empty_quick_value_is_labelled_on_its_own_line() {
        insta::assert_snapshot!(rendered(EXACT, Code::EmptyQuickValue));
    }

    #[test]
    fn conflicting_verified_facts_label_both_keys() {
        insta::assert_snapshot!(rendered(EXACT, Code::ConflictingVerifiedFact));
        // The places are those of the folded text even when the file has CRLF line endings.
        let crlf = EXACT.replace('\n', "\r\n");
        assert_eq!(rendered(&crlf, Code::ConflictingVerifiedFact), rendered(EXACT, Code::ConflictingVerifiedFact));
    }

    #[test]
    fn a_missing_section_points_where_it_would_go() {
        insta::assert_snapshot!(rendered(EXACT, Code::MissingSection));
    }

    /// The JSON keeps 2.3.0's line and columns: the exact places are for people only.
    #[test]
    fn the_exact_places_stay_out_of_the_json() {
        let v = validate(EXACT, FileFacts::default());
        for d in v.errors.iter().filter(|d| d.shown.is_some()) {
            let json = crate::usecase::career::diagnostic_json(d);
            let keys: Vec<&String> = json.as_object().unwrap().keys().collect();
            assert_eq!(keys, ["code", "line", "message", "severity", "column", "endColumn"], "{json}");
        }
        let lines: Vec<(Code, usize)> = v.errors.iter().map(|d| (d.code, d.line)).collect();
        assert!(lines.contains(&(Code::EmptyQuickValue, 3)) && lines.contains(&(Code::MissingSection, 1)), "{lines:?}");
        assert!(lines.contains(&(Code::ConflictingVerifiedFact, 1)), "{lines:?}");
    }

    /// The two kinds of `quick_reference_yaml` get their own labels, told apart by where they
    /// are (the heading, or a line inside the block), not by the message's wording.
    #[test]
    fn quick_reference_yaml_labels_follow_the_place() {
        let label_of = |text: &str| {
            let v = validate(text, FileFacts::default());
            render(&findings("c.md", text, &v), 100, false)
        };
        let missing = label_of("# Ada - Analyst\n\n## QUICK REFERENCE\nname: Ada\n\n## SKILLS INDEX\n");
        assert!(missing.contains("expected a closed ```yaml fence right after this heading"), "{missing}");
        let bad_line = label_of("# Ada - Analyst\n\n## QUICK REFERENCE\n```yaml\nnot yaml\n```\n");
        assert!(bad_line.contains("not accepted in the flat QUICK REFERENCE YAML"), "{bad_line}");
        assert!(!bad_line.contains("right after this heading"), "{bad_line}");
    }

    /// Issue 11: the duplicate-id message names the first file only (kept for 2.3.0's
    /// diagnostics.json); the rendering names both files and shows the first one's id line.
    #[test]
    fn a_duplicate_id_renders_both_files() {
        use domain::graph::Page;
        let record = "---\ntype: project\nid: project:a\ntitle: A\n---\n# A\n";
        let pages = [
            Page::parse("VITAEGRAPH.md", "# G\n"),
            Page::parse("index.md", "# I\n"),
            Page::parse("projects/a/project.md", record),
            Page::parse("projects/b/project.md", record),
        ];
        let v = domain::graph::validate(std::path::Path::new("/g"), &pages, &|_| true);
        assert_eq!(v.errors.len(), 1, "{:?}", v.errors);
        let d = &v.errors[0];
        assert_eq!(d.message, "Duplicate id project:a; first used in projects/a/project.md");
        let json = serde_json::to_string(d).unwrap();
        assert!(!json.contains("other") && !json.contains("line"), "the JSON shape is 2.3.0's: {json}");
        let finding = graph_finding(d, false, Some(Arc::from(record)), Some(Arc::from(record)));
        insta::assert_snapshot!(render_all(&[finding], 100, false));
    }

    #[test]
    fn skill_findings_render_with_a_label_under_the_value() {
        let text = "# my skill\nid: cv-helper\ntype: widget\nprompt: |\n  Hi\n";
        let problems = domain::skills::parse_skill(domain::skills::SkillFormat::Yaml, text).unwrap_err();
        let findings: Vec<_> = problems
            .iter()
            .map(|p| skill_finding("skills/cv-helper.yaml", text, p, "invalid_skill", "Use prompt or tool."))
            .collect();
        insta::assert_snapshot!(render_all(&findings, 100, false));
    }
}

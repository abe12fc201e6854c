//! The Career Context validator: the diagnostic codes of VitaeContext 2.3.0, on the same lines,
//! plus a column span for each.

use std::collections::HashMap;
use std::sync::LazyLock;

use regex::Regex;

use super::quickref::{self, QValue, QuickReference};
use super::scan::{Heading, Scan, tag};
use crate::text::{JS_SPACE_CLASS, ascii_ci, column_of, is_line_terminator, trim};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    Error,
    Warning,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

macro_rules! codes {
    ($($variant:ident => $name:literal, $help:literal;)*) => {
        /// Every diagnostic code a Career Context can raise.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Code { $($variant),* }

        impl Code {
            pub const ALL: &'static [Code] = &[$(Code::$variant),*];

            pub fn as_str(self) -> &'static str {
                match self { $(Code::$variant => $name),* }
            }

            /// How to fix it, in one sentence.
            pub fn help(self) -> &'static str {
                match self { $(Code::$variant => $help),* }
            }
        }
    };
}

codes! {
    H1Count => "h1_count", "Keep exactly one `# Name - Descriptor` title line; turn any other H1 into an H2 or lower.";
    H1Descriptor => "h1_descriptor", "Write the title as `# Full Name - Positioning descriptor` (a spaced -, – or —).";
    MissingQuickReference => "missing_quick_reference", "Add `## QUICK REFERENCE` right after the title, followed by a ```yaml block.";
    QuickReferencePosition => "quick_reference_position", "Move `## QUICK REFERENCE` so it is the first H2 of the file.";
    QuickReferenceYaml => "quick_reference_yaml", "Use flat YAML only: `key: value` at column 0, inline lists `[a, b]`, or a bare `key:` followed by `  - item` lines, inside a closed ```yaml fence.";
    MissingQuickField => "missing_quick_field", "Fill in both `name` and `positioning_summary` in the QUICK REFERENCE block.";
    EmptyQuickValue => "empty_quick_value", "Replace empty markers (n/a, none, TBD, TODO, -) and template placeholders with a real value, or remove the field.";
    MissingScopeDeclaration => "missing_scope_declaration", "After the QUICK REFERENCE block, add a sentence or two saying what this file covers and what it leaves out.";
    MissingSection => "missing_section", "Add the missing H2 section (for goals, `<!-- goals_declined: true -->` records that you chose not to state them).";
    MissingEvidenceHistory => "missing_evidence_history", "Tag at least one heading with a career-history tag such as [ROLE], [PROJECT] or [DEGREE].";
    MissingTldr => "missing_tldr", "Add a `TL;DR:` line to this entry summarising it in one sentence.";
    ReversedDateRange => "reversed_date_range", "Write the range from the earlier year to the later one.";
    MissingVerifiedFacts => "missing_verified_facts", "Add a `<!-- VERIFIED FACTS: key=value, ... -->` comment with the hard facts (dates, titles, numbers) you have checked.";
    ConflictingVerifiedFact => "conflicting_verified_fact", "Give each VERIFIED FACTS key one value; remove or correct the other.";
    Placeholder => "placeholder", "Replace the template text with your own facts, or delete the line.";
    TrackedWorkspacePath => "tracked_workspace_path", "Keep your personal Career Context outside version control, for example in ~/.vitaecontext/.";
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    pub code: Code,
    /// 1-based line.
    pub line: usize,
    /// 1-based column of the first character the finding is about (in characters).
    pub column: usize,
    /// 1-based column just after the last character it is about.
    pub end_column: usize,
    pub message: String,
    pub severity: Severity,
    /// Where a person is shown the finding, when that is more exact than `line` (which stays
    /// where VitaeContext 2.3.0 reports it, for JSON). Never serialised.
    pub shown: Option<Shown>,
}

/// The exact places a rendered finding points at: byte ranges of the text with CRLF folded to
/// LF (an empty range is a point, such as where a missing section would go), each with its
/// label, and a help line of its own when the code's general one is not enough.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Shown {
    pub marks: Vec<(std::ops::Range<usize>, String)>,
    pub help: Option<String>,
}

/// A top-level (H2) section.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section {
    pub title: String,
    pub normalized: String,
    pub line: usize,
    /// The heading and its body, trimmed: a span of the text as validated (see
    /// [`Validation::section_text`]), so that a 16 MiB file is not held twice.
    pub content: std::ops::Range<usize>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Validation {
    pub valid: bool,
    /// The H1 text when there is exactly one H1.
    pub title: Option<String>,
    pub quick_reference: QuickReference,
    pub sections: Vec<Section>,
    pub errors: Vec<Diagnostic>,
    pub warnings: Vec<Diagnostic>,
    /// The text with CRLF folded to LF, kept only when the file had a CRLF (section spans are
    /// of this text then, of the file as read otherwise).
    folded: Option<String>,
}

impl Validation {
    /// The text of section `s` of the file `text` this validation was made from.
    pub fn section_text<'t>(&'t self, text: &'t str, s: &Section) -> &'t str {
        self.folded.as_deref().unwrap_or(text).get(s.content.clone()).unwrap_or_default()
    }

    pub fn section_names(&self) -> Vec<&str> {
        self.sections.iter().map(|s| s.normalized.as_str()).collect()
    }
}

/// Facts about where the file lives, gathered by the caller.
#[derive(Debug, Clone, Copy, Default)]
pub struct FileFacts {
    /// The file lies inside a git work tree.
    pub in_git_worktree: bool,
}

const REQUIRED_SECTIONS: &[&str] = &["goals and targeting", "skills index"];
const HISTORY_TAGS: &[&str] =
    &["DEGREE", "COURSE", "PROJECT", "THESIS", "ROLE", "PAPER", "PREPRINT", "CERT", "COMPETITION", "AWARD"];
const TLDR_TAGS: &[&str] = &["PROJECT", "THESIS", "COMPETITION", "ROLE"];
const EMPTY_MARKERS: &[&str] = &["null", "n/a", "na", "none", "undefined", "tbd", "todo", "-"];

static PLACEHOLDER: LazyLock<Regex> = LazyLock::new(|| {
    let words = ["your", "replace", "add", "insert", "describe"].map(ascii_ci).join("|");
    let tags = ["name", "path", "role", "value"].map(ascii_ci).join("|");
    Regex::new(&format!(
        r"\[(?:{words})(?-u:\b)[^\]]*\]|<(?:{tags})[^>]*>|(?-u:\b){todo}(?-u:\b)|(?-u:\b){tbd}(?-u:\b)",
        todo = ascii_ci("todo"),
        tbd = ascii_ci("tbd"),
    ))
    .expect("placeholder pattern")
});

static DATE_RANGE: LazyLock<Regex> = LazyLock::new(|| {
    let s = JS_SPACE_CLASS;
    Regex::new(&format!(
        r"(?-u:\b)(19[0-9]{{2}}|20[0-9]{{2}}){s}*[-\u{{2013}}\u{{2014}}]{s}*(19[0-9]{{2}}|20[0-9]{{2}})(?-u:\b)"
    ))
    .expect("date range pattern")
});

static VERIFIED_FACTS: LazyLock<Regex> = LazyLock::new(|| {
    let s = JS_SPACE_CLASS;
    Regex::new(&format!(r"<!--{s}*{v} {f}:{s}*((?s:.)*?)-->", v = ascii_ci("verified"), f = ascii_ci("facts")))
        .expect("verified facts pattern")
});

static GOALS_DECLINED: LazyLock<Regex> = LazyLock::new(|| {
    let s = JS_SPACE_CLASS;
    Regex::new(&format!(r"<!--{s}*{g}:{s}*{t}{s}*-->", g = ascii_ci("goals_declined"), t = ascii_ci("true")))
        .expect("goals declined pattern")
});

static FICTIONAL: LazyLock<Regex> = LazyLock::new(|| {
    let s = JS_SPACE_CLASS;
    Regex::new(&format!(r"<!--{s}*{f} {e}:", f = ascii_ci("fictional"), e = ascii_ci("example"))).expect("fictional")
});

static HTML_COMMENT: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"<!--(?s:.)*?-->").expect("comment pattern"));

/// Whether the text is marked as fictional example data.
pub fn is_fictional_example(content: &str) -> bool {
    FICTIONAL.is_match(content)
}

/// `missing_quick_field`'s "present and non-empty" (`formats.md`): a falsy value, or an empty
/// list (`name: []`, or `name:` with no items), is empty. 2.3.0 misses the list case because an
/// empty JavaScript array is truthy.
fn is_filled(v: &QValue) -> bool {
    v.is_truthy() && !matches!(v, QValue::List(items) if items.is_empty())
}

/// Whether a string is template text (`[your ...]`, `<name>`, TODO, TBD, ...).
pub fn has_placeholder(s: &str) -> bool {
    PLACEHOLDER.is_match(s)
}

struct Collector<'a> {
    scan: &'a Scan<'a>,
    out: Vec<Diagnostic>,
}

impl Collector<'_> {
    fn at_span(&mut self, code: Code, line: usize, span: (usize, usize), message: String, severity: Severity) {
        let text = self.scan.lines.get(line - 1).copied().unwrap_or("");
        let column = column_of(text, span.0.min(text.len()));
        let end_column = column_of(text, span.1.min(text.len())).max(column);
        self.out.push(Diagnostic { code, line, column, end_column, message, severity, shown: None });
    }

    /// Points the finding just reported at its exact places.
    fn show(&mut self, shown: Shown) {
        if let Some(d) = self.out.last_mut() {
            d.shown = Some(shown);
        }
    }

    /// Byte offset of the start of the 0-based line `index` in the folded text (its end when
    /// past the last line).
    fn line_start(&self, index: usize) -> usize {
        self.scan.line_start(index)
    }

    /// A finding about a whole line (or the whole file, at line 1).
    fn at_line(&mut self, code: Code, line: usize, message: String) {
        let len = self.scan.lines.get(line - 1).map_or(0, |l| l.len());
        self.at_span(code, line, (0, len), message, Severity::Error);
    }

    fn at_heading(&mut self, code: Code, h: &Heading, message: String, severity: Severity) {
        self.at_span(code, h.line(), h.span, message, severity);
    }
}

/// Validates a Career Context. `content` is the file as read (CRLF is folded here).
pub fn validate(content: &str, facts: FileFacts) -> Validation {
    // Folded only when there is a CRLF: no second copy of a 16 MiB file that has none.
    let text: std::borrow::Cow<'_, str> =
        if content.contains("\r\n") { content.replace("\r\n", "\n").into() } else { content.into() };
    let scan = Scan::new(&text);
    let mut c = Collector { scan: &scan, out: Vec::new() };
    // An empty file gets 2.3.0's findings, every one at line 1 (formats.md: the same codes on
    // the same lines); the command line says first that the file is empty.
    let h1s: Vec<&Heading> = scan.headings.iter().filter(|h| h.level == 1).collect();

    if h1s.len() != 1 {
        let msg = format!("Career Context must contain exactly one H1; found {}", h1s.len());
        match h1s.first() {
            Some(h) => c.at_heading(Code::H1Count, h, msg, Severity::Error),
            None => c.at_line(Code::H1Count, 1, msg),
        }
    } else if !has_spaced_dash(&h1s[0].title) {
        c.at_heading(
            Code::H1Descriptor,
            h1s[0],
            "H1 must include a full name and positioning descriptor separated by a dash".into(),
            Severity::Error,
        );
    }

    let quick_heading = scan.headings.iter().find(|h| h.level == 2 && h.normalized == "quick reference");
    let mut quick = QuickReference::default();
    match quick_heading {
        None => {
            let line = h1s.first().map_or(1, |h| h.line());
            c.at_line(Code::MissingQuickReference, line, "Missing QUICK REFERENCE H2 section".into());
        }
        Some(qh) => {
            if scan.headings.iter().find(|h| h.level == 2).map(|h| h.index) != Some(qh.index) {
                c.at_heading(
                    Code::QuickReferencePosition,
                    qh,
                    "QUICK REFERENCE must be the first H2 after the title".into(),
                    Severity::Error,
                );
            }
            match yaml_block(&scan, qh) {
                None => c.at_heading(
                    Code::QuickReferenceYaml,
                    qh,
                    "QUICK REFERENCE must begin with a closed YAML fence".into(),
                    Severity::Error,
                ),
                Some((start, end)) => {
                    quick = quickref::parse(&scan.lines[start + 1..end].join("\n"));
                    for e in &quick.errors {
                        let line = start + e.line + 1;
                        let l = scan.lines[line - 1];
                        let lead = l.len() - crate::text::trim_start(l).len();
                        let span = (lead, lead + trim(&l[lead..]).len());
                        c.at_span(Code::QuickReferenceYaml, line, span, e.message.clone(), Severity::Error);
                    }
                    for field in ["name", "positioning_summary"] {
                        if !quick.get(field).is_some_and(is_filled) {
                            c.at_heading(
                                Code::MissingQuickField,
                                qh,
                                format!("QUICK REFERENCE is missing '{field}'"),
                                Severity::Error,
                            );
                        }
                    }
                    // Where each key is written, found once (a scan of the block for each
                    // empty value was quadratic in the number of keys).
                    let mut key_lines: Option<std::collections::HashMap<&str, usize>> = None;
                    for (key, value) in &quick.entries {
                        let entries = match value {
                            QValue::List(items) => items.iter().collect::<Vec<_>>(),
                            single => vec![single],
                        };
                        let empty = entries.iter().any(|v| match v {
                            QValue::Str(s) => {
                                EMPTY_MARKERS.iter().any(|m| trim(s).eq_ignore_ascii_case(m)) || has_placeholder(s)
                            }
                            _ => false,
                        });
                        if empty {
                            c.at_heading(
                                Code::EmptyQuickValue,
                                qh,
                                format!("QUICK REFERENCE field '{key}' contains an empty or placeholder value"),
                                Severity::Error,
                            );
                            let key_lines = key_lines.get_or_insert_with(|| key_lines_of(&scan.lines, start + 1..end));
                            if let Some((index, span)) =
                                key_lines.get(key.as_str()).and_then(|&at| empty_value_place(&scan.lines, at, end, key))
                            {
                                let at = c.line_start(index);
                                let label = format!("`{key}` is empty or template text");
                                c.show(Shown { marks: vec![(at + span.start..at + span.end, label)], help: None });
                            }
                        }
                    }
                    let next_h2 = scan.headings.iter().find(|h| h.level == 2 && h.index > qh.index);
                    let scope =
                        scan.lines[end + 1..next_h2.map_or(scan.lines.len(), |h| h.index).max(end + 1)].join("\n");
                    if trim(&HTML_COMMENT.replace_all(&scope, "")).is_empty() {
                        c.at_heading(
                            Code::MissingScopeDeclaration,
                            qh,
                            "Add a short scope declaration after QUICK REFERENCE".into(),
                            Severity::Error,
                        );
                    }
                }
            }
        }
    }

    let goals_declined = GOALS_DECLINED.is_match(content);
    for required in REQUIRED_SECTIONS {
        if *required == "goals and targeting" && goals_declined {
            continue;
        }
        if !scan.headings.iter().any(|h| h.level == 2 && h.normalized == *required) {
            c.at_line(Code::MissingSection, 1, format!("Missing required section: {required}"));
            let shown = missing_section_place(&c, &scan, required);
            c.show(shown);
        }
    }

    if !scan.headings.iter().any(|h| tag(&h.title).is_some_and(|t| HISTORY_TAGS.contains(&t))) {
        c.at_line(
            Code::MissingEvidenceHistory,
            1,
            "No career history found: tag at least one heading with [DEGREE], [COURSE], [PROJECT], [THESIS], [ROLE], [PAPER], [PREPRINT], [CERT], [COMPETITION] or [AWARD]".into(),
        );
    }

    for h in scan.headings.iter().filter(|h| h.level >= 3) {
        let Some(t) = tag(&h.title).filter(|t| TLDR_TAGS.contains(t)) else { continue };
        if !has_tldr(scan.section_text(h)) {
            c.at_heading(Code::MissingTldr, h, format!("{t} entry is missing a TL;DR field"), Severity::Warning);
        }
    }

    for (i, line) in scan.visible.iter().enumerate() {
        for m in DATE_RANGE.captures_iter(line) {
            let (a, b) = (&m[1], &m[2]);
            if a.parse::<u32>().unwrap_or(0) > b.parse::<u32>().unwrap_or(0) {
                let whole = m.get(0).expect("group 0");
                c.at_span(
                    Code::ReversedDateRange,
                    i + 1,
                    (whole.start(), whole.end()),
                    format!("Date range starts after it ends: {}", whole.as_str()),
                    Severity::Error,
                );
            }
        }
    }

    verified_facts(content, &mut c);

    for (i, line) in scan.visible.iter().enumerate() {
        let mut found = PLACEHOLDER.find_iter(line);
        if let Some(m) = found.next() {
            // One finding per line, as VitaeContext 2.3.0 counts them, marking every placeholder
            // on it: a line with two was shown with only the first to replace.
            c.at_span(
                Code::Placeholder,
                i + 1,
                (m.start(), m.end()),
                "Replace template placeholder text before using this Career Context".into(),
                Severity::Error,
            );
            let more: Vec<_> = found.collect();
            if !more.is_empty() {
                let at = c.line_start(i);
                let marks = std::iter::once(m)
                    .chain(more)
                    .map(|m| (at + m.start()..at + m.end(), "placeholder text to replace".to_owned()))
                    .collect();
                c.show(Shown { marks, help: None });
            }
        }
    }

    if facts.in_git_worktree && !is_fictional_example(content) {
        let len = scan.lines.first().map_or(0, |l| l.len());
        c.at_span(
            Code::TrackedWorkspacePath,
            1,
            (0, len),
            "This file is inside a Git workspace. Keep personal Career Context files out of commits and public repositories.".into(),
            Severity::Warning,
        );
    }

    let (mut errors, mut warnings): (Vec<_>, Vec<_>) = c.out.into_iter().partition(|d| d.severity == Severity::Error);
    let order = |a: &Diagnostic, b: &Diagnostic| a.line.cmp(&b.line).then_with(|| a.code.as_str().cmp(b.code.as_str()));
    errors.sort_by(order);
    warnings.sort_by(order);

    let sections = scan
        .headings
        .iter()
        .filter(|h| h.level == 2)
        .map(|h| Section {
            title: h.title.clone(),
            normalized: h.normalized.clone(),
            line: h.line(),
            content: {
                let t = scan.section_text(h);
                let start = t.as_ptr() as usize - text.as_ptr() as usize;
                start..start + t.len()
            },
        })
        .collect();

    let title = (h1s.len() == 1).then(|| h1s[0].title.clone());
    let folded = match text {
        std::borrow::Cow::Owned(folded) => Some(folded),
        std::borrow::Cow::Borrowed(_) => None,
    };
    Validation { valid: errors.is_empty(), title, quick_reference: quick, sections, errors, warnings, folded }
}

/// `\s[-–—]\s` somewhere in the title.
fn has_spaced_dash(title: &str) -> bool {
    let chars: Vec<char> = title.chars().collect();
    chars.windows(3).any(|w| {
        crate::text::is_js_space(w[0])
            && matches!(w[1], '-' | '\u{2013}' | '\u{2014}')
            && crate::text::is_js_space(w[2])
    })
}

/// `(?:^|\n)(?:\*\*)?TL;DR(?:\*\*)?:` case-insensitively.
fn has_tldr(section: &str) -> bool {
    section.split('\n').any(|line| {
        let l = line.strip_prefix("**").unwrap_or(line);
        l.len() >= 5 && l.is_char_boundary(5) && l[..5].eq_ignore_ascii_case("tl;dr") && {
            let rest = &l[5..];
            rest.starts_with(':') || rest.starts_with("**:")
        }
    })
}

/// The QUICK REFERENCE fence: (index of the opening ```yaml line, index of the closing ```).
fn yaml_block(scan: &Scan<'_>, qh: &Heading) -> Option<(usize, usize)> {
    let lines = &scan.lines;
    let mut start = qh.index + 1;
    while start < lines.len() && trim(lines[start]).is_empty() {
        start += 1;
    }
    let open = lines.get(start).map(|l| trim(l))?;
    if !(open.eq_ignore_ascii_case("```yaml") || open.eq_ignore_ascii_case("```yml")) {
        return None;
    }
    let end = (start + 1..lines.len()).find(|&i| trim(lines[i]) == "```")?;
    Some((start, end))
}

fn verified_facts(content: &str, c: &mut Collector<'_>) {
    // Places are found in `content` as read and shown in the folded text: each CRLF before an
    // offset is one byte fewer there.
    let folded = |offset: usize| offset - content[..offset].matches("\r\n").count();
    let place = |entry: &str| {
        let start = entry.as_ptr() as usize - content.as_ptr() as usize;
        folded(start)..folded(start + entry.len())
    };
    let mut any = false;
    let mut facts: HashMap<String, (String, std::ops::Range<usize>)> = HashMap::new();
    for m in VERIFIED_FACTS.captures_iter(content) {
        any = true;
        let body = m.get(1).expect("group 1").as_str();
        for entry in body.split([',', '\n']).map(trim).filter(|e| !e.is_empty()) {
            let Some((key, value)) = entry.split_once('=') else { continue };
            if key.is_empty() || value.is_empty() || value.chars().any(is_line_terminator) {
                continue;
            }
            let key = trim(key).to_lowercase();
            let value = trim(value).to_owned();
            let here = place(entry);
            if let Some((before, there)) = facts.get(&key).filter(|(v, _)| *v != value) {
                c.at_line(
                    Code::ConflictingVerifiedFact,
                    1,
                    format!("VERIFIED FACTS contains conflicting values for '{key}'"),
                );
                let marks = vec![
                    (there.clone(), format!("`{key}` is {before} here")),
                    (here.clone(), format!("and {value} here")),
                ];
                c.show(Shown { marks, help: None });
            }
            facts.insert(key, (value, here));
        }
    }
    if !any {
        c.at_line(Code::MissingVerifiedFacts, 1, "Add a VERIFIED FACTS comment for hard factual anchors".into());
    }
}

/// The H2 sections of the template, in its order: where a missing one would go.
const TEMPLATE_ORDER: &[&str] = &[
    "quick reference",
    "goals and targeting",
    "professional experience",
    "independent/open-source projects",
    "education",
    "research and publications",
    "skills index",
    "certifications and achievements",
    "languages",
    "extracurricular and leadership",
    "public profile snapshot",
    "output preferences",
];

/// Where the missing H2 `required` would go: after the last present section that comes before
/// it in the template's order (before the H2 that follows that section), else before the first
/// H2; at the end of the file when nothing follows.
fn missing_section_place(c: &Collector<'_>, scan: &Scan<'_>, required: &str) -> Shown {
    let rank = |name: &str| TEMPLATE_ORDER.iter().position(|n| *n == name);
    let wanted = rank(required).unwrap_or(TEMPLATE_ORDER.len());
    let h2s: Vec<&Heading> = scan.headings.iter().filter(|h| h.level == 2).collect();
    let after = h2s.iter().rposition(|h| rank(&h.normalized).is_some_and(|r| r < wanted));
    let next = match after {
        Some(i) => h2s.get(i + 1),
        None => h2s.first(),
    };
    let heading = format!("## {}", required.to_uppercase());
    let (at, label) = match next {
        Some(h) => (c.line_start(h.index), format!("add `{heading}` above this heading")),
        None => {
            // The end of the last line with text, so the label sits under it.
            let last = scan.lines.iter().rposition(|l| !trim(l).is_empty()).unwrap_or(0);
            (c.line_start(last) + scan.lines.get(last).map_or(0, |l| l.len()), format!("add `{heading}` after this"))
        }
    };
    let help = if required == "goals and targeting" {
        format!(
            "Add a `{heading}` section here (the template's place; any order is accepted), or `<!-- goals_declined: true -->` to record that you chose not to state goals."
        )
    } else {
        format!("Add a `{heading}` section here (the template's place; any order is accepted).")
    };
    Shown { marks: vec![(at..at, label)], help: Some(help) }
}

/// The line (0-based) of the QUICK REFERENCE entry `key` within `block` (line indexes) and the
/// byte range in it of the value that is empty or template text: the scalar or inline list
/// after `key:`, or the first `- item` under it that is.
/// The first line of `block` that writes each key (`key:` at the start of the line).
fn key_lines_of<'l>(lines: &[&'l str], block: std::ops::Range<usize>) -> std::collections::HashMap<&'l str, usize> {
    let mut out = std::collections::HashMap::new();
    for i in block {
        let line = lines[i];
        if line.starts_with([' ', '\t']) {
            continue;
        }
        if let Some(colon) = line.find(':') {
            let key = crate::text::trim_end(&line[..colon]);
            if !key.is_empty() {
                out.entry(key).or_insert(i);
            }
        }
    }
    out
}

/// Where the empty or template value of `key` is, its key written on line `key_line` of a
/// block that ends before line `end`.
fn empty_value_place(
    lines: &[&str],
    key_line: usize,
    end: usize,
    key: &str,
) -> Option<(usize, std::ops::Range<usize>)> {
    let is_empty_text = |s: &str| {
        let s = trim(s).trim_matches(['"', '\'']);
        EMPTY_MARKERS.iter().any(|m| trim(s).eq_ignore_ascii_case(m)) || has_placeholder(s)
    };
    let value_range = |line: &str, from: usize| {
        let rest = &line[from..];
        let lead = rest.len() - crate::text::trim_start(rest).len();
        let start = from + lead;
        start..start + trim(&line[start..]).len()
    };
    let line = lines[key_line];
    if !line.strip_prefix(key).is_some_and(|rest| crate::text::trim_start(rest).starts_with(':')) {
        return None;
    }
    let colon = line[key.len()..].find(':')? + key.len() + 1;
    let value = value_range(line, colon);
    if !value.is_empty() {
        return Some((key_line, value));
    }
    for (i, &l) in lines.iter().enumerate().take(end).skip(key_line + 1) {
        if !l.starts_with([' ', '\t']) && !trim(l).is_empty() {
            break;
        }
        let t = crate::text::trim_start(l);
        if let Some(item) = t.strip_prefix('-')
            && is_empty_text(item)
        {
            let dash = l.len() - t.len();
            return Some((i, value_range(l, dash + 1)));
        }
    }
    Some((key_line, 0..line.len()))
}

//! A draft split into claims (sentences and list items), and each claim's checkable facts.

use std::ops::Range;

use super::text::{Number, Word, fold, month_of, numbers, words};

/// One sentence or list item of a draft.
#[derive(Debug, Clone, PartialEq)]
pub struct ClaimText {
    /// Byte range in the draft.
    pub span: Range<usize>,
    /// 1-based line of the draft where the claim starts.
    pub line: usize,
}

/// What kind of fact a piece of a claim is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FactKind {
    /// A number with its unit (`88%`, `1,900 reruns`).
    Number,
    /// A year or a range of years (`2016`, `2021-2026`).
    Date,
    /// A name: an organisation, product, title, degree or technology (`Tideline Logistics`,
    /// `MSc Computer Science`, `Bazel`, `Node.js`).
    Name,
    /// An effect the claim credits to the work it reports, in an attached clause (`, halving
    /// unplanned extubations`, `resulting in fewer complaints`): listed only when the files
    /// say nothing of it.
    Outcome,
}

impl FactKind {
    pub fn as_str(self) -> &'static str {
        match self {
            FactKind::Number => "number",
            FactKind::Date => "date",
            FactKind::Name => "name",
            FactKind::Outcome => "outcome",
        }
    }
}

/// One checkable fact of a claim.
#[derive(Debug, Clone, PartialEq)]
pub struct FactText {
    pub kind: FactKind,
    /// Byte range in the draft.
    pub span: Range<usize>,
    /// For numbers: the value and unit; for dates: the years.
    pub numbers: Vec<Number>,
    /// For names: the folded words of the name; `optional_first` when its first word may be
    /// only a sentence-initial capital (`Led Bazel`: `Bazel` is enough).
    pub name: Vec<String>,
    pub optional_first: bool,
}

/// Splits a draft into claims: each list item and each sentence of a paragraph or heading.
/// Fenced code blocks, HTML comments and horizontal rules are skipped.
pub fn split(draft: &str) -> Vec<ClaimText> {
    let mut blocks: Vec<Range<usize>> = Vec::new();
    let mut current: Option<Range<usize>> = None;
    let mut in_fence = false;
    let mut in_comment = false;
    let mut offset = 0;
    for raw in draft.split_inclusive('\n') {
        let start = offset;
        offset += raw.len();
        let line = raw.trim_end_matches(['\n', '\r']);
        let trimmed = line.trim();
        let end = start + line.len();
        if in_comment {
            if trimmed.contains("-->") {
                in_comment = false;
            }
            continue;
        }
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            in_fence = !in_fence;
            blocks.extend(current.take());
            continue;
        }
        if in_fence {
            continue;
        }
        if trimmed.starts_with("<!--") {
            in_comment = !trimmed.contains("-->");
            blocks.extend(current.take());
            continue;
        }
        let is_rule = trimmed.len() >= 3 && trimmed.chars().all(|c| matches!(c, '-' | '*' | '_' | ' '));
        if trimmed.is_empty() || is_rule {
            blocks.extend(current.take());
            continue;
        }
        let lead = line.len() - line.trim_start().len();
        let item = list_marker(trimmed).is_some() || trimmed.starts_with('#') || trimmed.starts_with('|');
        if item || current.is_none() {
            blocks.extend(current.take());
            current = Some(start + lead..end);
        } else if let Some(c) = current.as_mut() {
            c.end = end;
        }
        if trimmed.starts_with('#') || trimmed.starts_with('|') {
            blocks.extend(current.take());
        }
    }
    blocks.extend(current.take());
    let line_starts: Vec<usize> = std::iter::once(0).chain(draft.match_indices('\n').map(|(i, _)| i + 1)).collect();
    let mut out = Vec::new();
    for b in blocks {
        for s in sentences(draft, b) {
            let line = line_starts.partition_point(|&l| l <= s.start);
            out.push(ClaimText { span: s, line });
        }
    }
    out
}

/// Whether a claim greets the reader (`Dear Hiring Manager,`).
pub fn is_salutation(text: &str) -> bool {
    let t = text.trim_start();
    t.starts_with("Dear ") && t.len() < 80
}

/// Whether a claim's text starts a list item (`- `, `* `, `1. `).
pub fn is_list_item(text: &str) -> bool {
    list_marker(text.trim_start()).is_some()
}

/// The marker of a list item (`- `, `* `, `+ `, `1. `, `1) `), if the line is one.
fn list_marker(trimmed: &str) -> Option<usize> {
    for m in ["- ", "* ", "+ ", "• "] {
        if trimmed.starts_with(m) {
            return Some(m.len());
        }
    }
    let digits = trimmed.chars().take_while(char::is_ascii_digit).count();
    if digits > 0 && digits < 4 && (trimmed[digits..].starts_with(". ") || trimmed[digits..].starts_with(") ")) {
        return Some(digits + 2);
    }
    None
}

/// The sentences of `block`: cut after `.`, `!` or `?` followed by white space and a capital
/// letter, a digit or a quote; abbreviations of one or two letters (`e.g.`, `Dr.`) do not cut.
fn sentences(draft: &str, block: Range<usize>) -> Vec<Range<usize>> {
    let text = &draft[block.clone()];
    let mut out = Vec::new();
    let mut start = 0;
    for (i, c) in text.char_indices() {
        if !matches!(c, '.' | '!' | '?') {
            continue;
        }
        let after = &text[i + 1..];
        let rest = after.trim_start();
        if after.len() == rest.len() || rest.is_empty() {
            continue;
        }
        if !rest.starts_with(|c: char| c.is_uppercase() || c.is_ascii_digit() || c == '"' || c == '*') {
            continue;
        }
        let word_before = text[start..i].rsplit(|c: char| !c.is_alphanumeric()).next().unwrap_or("");
        if c == '.'
            && (word_before.chars().count() <= 2 && word_before.chars().all(char::is_alphabetic))
            && !word_before.is_empty()
        {
            continue;
        }
        let s = start..i + 1;
        if !text[s.clone()].trim().is_empty() {
            out.push(block.start + s.start..block.start + s.end);
        }
        start = i + 1 + (after.len() - rest.len());
    }
    if !text[start..].trim().is_empty() {
        out.push(block.start + start..block.end);
    }
    out
}

const NAME_JOINERS: &[&str] = &["of", "for", "&", "de", "da"];
/// A capitalised word that names nothing a file would hold: a month ([`month_of`]) or one of
/// [`NOT_NAMES`].
fn not_a_name(word: &str) -> bool {
    let f = fold(word);
    NOT_NAMES.contains(&f.as_str()) || month_of(&f).is_some()
}

const NOT_NAMES: &[&str] = &[
    "i",
    "i'm",
    "i've",
    "i'd",
    "i'll",
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
    "present",
    "today",
    "now",
];

fn is_capitalised(w: &str) -> bool {
    w.chars().next().is_some_and(char::is_uppercase)
}

/// `Bazel`, `Go` (plain capitalised) as opposed to `PostgreSQL`, `CI`, `MSc` (inner capitals).
fn is_plain_capitalised(w: &str) -> bool {
    let mut cs = w.chars();
    cs.next().is_some_and(char::is_uppercase) && cs.all(|c| !c.is_uppercase())
}

/// A lower-case word that still names something: `node.js`, `k8s`, `p99`.
fn is_code_like(w: &str) -> bool {
    let has_alpha = w.chars().any(char::is_alphabetic);
    let has_digit = w.chars().any(|c| c.is_ascii_digit());
    has_alpha && (w.contains('.') || w.contains('+') || w.contains('#') || (has_digit && w.len() > 1))
}

/// The checkable facts of one claim of `draft`, in order.
pub fn facts(draft: &str, claim: &ClaimText) -> Vec<FactText> {
    let text = &draft[claim.span.clone()];
    let base = claim.span.start;
    // Markdown markers at the start of a claim are not words of it.
    let ws = words(text);
    let nums = numbers(text, &ws);
    let mut out: Vec<FactText> = Vec::new();
    // Numbers and dates; a year range (`2021-2026`, `2016 to 2018`) is one date fact.
    let mut i = 0;
    while i < nums.len() {
        let n = &nums[i];
        if n.year {
            let mut years = vec![n.clone()];
            let mut end = n.span.end;
            if let Some(m) = nums.get(i + 1).filter(|m| m.year) {
                let between = &text[n.span.end..m.span.start];
                let b = between.trim();
                if matches!(b, "-" | "–" | "—" | "to" | "until" | "through") {
                    years.push(m.clone());
                    end = m.span.end;
                    i += 1;
                }
            }
            out.push(fact(FactKind::Date, base + n.span.start..base + end, shift(&years, base), Vec::new(), false));
        } else {
            let mut end = n.span.end;
            if text[end..].starts_with('%') {
                end += 1;
            }
            out.push(fact(
                FactKind::Number,
                base + n.span.start..base + end,
                shift(std::slice::from_ref(n), base),
                Vec::new(),
                false,
            ));
        }
        i += 1;
    }
    // Names: runs of capitalised words (joined by `of`, `for`, `and`), and code-like words.
    let first_word = ws.iter().position(|w| !w.text.chars().all(|c| c.is_ascii_digit())).unwrap_or(usize::MAX);
    let mut k = 0;
    while k < ws.len() {
        let w = &ws[k];
        let capital = is_capitalised(w.text) && !not_a_name(w.text);
        if !capital {
            if is_code_like(w.text) && !w.text.chars().next().is_some_and(|c| c.is_ascii_digit()) {
                out.push(fact(
                    FactKind::Name,
                    base + w.span.start..base + w.span.end,
                    Vec::new(),
                    vec![fold(w.text)],
                    false,
                ));
            }
            k += 1;
            continue;
        }
        let start = k;
        let mut end = k;
        let mut j = k + 1;
        while j < ws.len() && !ws[j].after_break {
            let t = ws[j].text;
            if is_capitalised(t) && !not_a_name(t) {
                end = j;
                j += 1;
            } else if NAME_JOINERS.contains(&fold(t).as_str())
                && ws.get(j + 1).is_some_and(|n| !n.after_break && is_capitalised(n.text))
            {
                j += 1;
            } else if fold(t) == "of"
                && ws.get(j + 1).is_some_and(|n| !n.after_break && fold(n.text) == "the")
                && ws.get(j + 2).is_some_and(|n| !n.after_break && is_capitalised(n.text))
            {
                // `Engineer of the Year`, `Bank of the West`.
                j += 2;
            } else {
                break;
            }
        }
        let run = &ws[start..=end];
        let initial = start == first_word
            || ws[start].after_break && text[..ws[start].span.start].trim_end().ends_with(['.', '!', '?', ':']);
        let initial = initial || start == 0;
        let first_plain = is_plain_capitalised(run[0].text);
        if initial && first_plain && run.len() == 1 {
            // A lone capital at the start of a sentence is a sentence, not a name.
        } else {
            let name: Vec<String> = run.iter().map(|w| fold(w.text)).collect();
            let span = base + run[0].span.start..base + run[run.len() - 1].span.end;
            out.push(fact(FactKind::Name, span, Vec::new(), name, initial && first_plain));
        }
        k = end + 1;
    }
    out.sort_by_key(|f| f.span.start);
    out
}

fn shift(nums: &[Number], base: usize) -> Vec<Number> {
    nums.iter().map(|n| Number { span: base + n.span.start..base + n.span.end, ..n.clone() }).collect()
}

fn fact(kind: FactKind, span: Range<usize>, numbers: Vec<Number>, name: Vec<String>, optional_first: bool) -> FactText {
    FactText { kind, span, numbers, name, optional_first }
}

/// The words of a claim (for relevance), skipping nothing.
pub fn claim_words<'a>(draft: &'a str, claim: &ClaimText) -> Vec<Word<'a>> {
    words(&draft[claim.span.clone()])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn claims(d: &str) -> Vec<(&str, usize)> {
        split(d).into_iter().map(|c| (&d[c.span], c.line)).collect()
    }

    fn fact_texts(d: &str) -> Vec<(&str, FactKind)> {
        split(d).iter().flat_map(|c| facts(d, c)).map(|f| (&d[f.span], f.kind)).collect()
    }

    #[test]
    fn claims_are_sentences_and_list_items() {
        let d = "# Rowan Vale\n\nPlatform engineer. Led the CI rebuild at Tideline, e.g. Bazel.\nIt was fast.\n\n- One item\n  continued here.\n- Two\n\n```\ncode. Not A claim.\n```\n";
        assert_eq!(
            claims(d),
            [
                ("# Rowan Vale", 1),
                ("Platform engineer.", 3),
                ("Led the CI rebuild at Tideline, e.g. Bazel.", 3),
                ("It was fast.", 4),
                ("- One item\n  continued here.", 6),
                ("- Two", 8)
            ]
        );
    }

    #[test]
    fn facts_are_numbers_dates_and_names() {
        let d = "Senior Platform Engineer at Tideline Logistics (2021-2026): cut CI from 41 to 12 minutes, 88% hit rate with Bazel and Node.js.";
        assert_eq!(
            fact_texts(d),
            [
                ("Senior Platform Engineer", FactKind::Name),
                ("Tideline Logistics", FactKind::Name),
                ("2021-2026", FactKind::Date),
                ("CI", FactKind::Name),
                ("41", FactKind::Number),
                ("12", FactKind::Number),
                ("88%", FactKind::Number),
                ("Bazel", FactKind::Name),
                ("Node.js", FactKind::Name)
            ]
        );
        assert!(fact_texts("Led the rebuild. Mentored people.").is_empty());
        assert_eq!(fact_texts("Led Bazel adoption.")[0].0, "Led Bazel");
        assert_eq!(fact_texts("MSc Computer Science, University of Porto")[1].0, "University of Porto");
    }
}

//! Grounding: whether a draft's claims are backed by the person's own files, and which of a
//! job posting's requirements they cover. Deterministic and local: text in, findings out.
//!
//! A draft is split into claims (sentences and list items), each claim into checkable facts
//! (numbers, dates, names). A name is looked up anywhere in the files; a number or a date only
//! in the passages about the same thing (those sharing the most content words with the claim),
//! since `12` or `2019` occur somewhere in any long file. A number that differs from the one a
//! closely related passage gives in the same unit is a contradiction.

pub mod claims;
pub mod evidence;
pub mod job;
pub mod text;

use std::ops::Range;

pub use claims::FactKind;
use claims::{FactText, claim_words, facts, split};
use evidence::{EntryNames, GraphEvidence, Origin, Passage, RECORDS_PER_QUERY, context_passages};
use text::{fold, is_content, stem, stems_near, words};

use crate::graph::search::Searcher;

/// Where a fact was found: the passage's origin, the line (known for the Career Context), and
/// the line's text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Evidence {
    pub origin: Origin,
    pub line: Option<usize>,
    pub excerpt: String,
}

/// What the files say about one fact.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FactStatus {
    Supported(Evidence),
    /// A closely related passage states the same kind of quantity with another value: `found`.
    Contradicted {
        evidence: Evidence,
        found: String,
    },
    Unsupported,
}

impl FactStatus {
    pub fn as_str(&self) -> &'static str {
        match self {
            FactStatus::Supported(_) => "supported",
            FactStatus::Contradicted { .. } => "contradicted",
            FactStatus::Unsupported => "unsupported",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fact {
    pub kind: FactKind,
    pub text: String,
    /// Byte range in the draft.
    pub span: Range<usize>,
    pub status: FactStatus,
}

/// The verdict on one claim.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ClaimStatus {
    Contradicted,
    Unsupported,
    PartlySupported,
    Supported,
    NoCheckableFacts,
}

impl ClaimStatus {
    pub const ALL: [ClaimStatus; 5] = [
        ClaimStatus::Supported,
        ClaimStatus::PartlySupported,
        ClaimStatus::Unsupported,
        ClaimStatus::Contradicted,
        ClaimStatus::NoCheckableFacts,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ClaimStatus::Supported => "supported",
            ClaimStatus::PartlySupported => "partly_supported",
            ClaimStatus::Unsupported => "unsupported",
            ClaimStatus::Contradicted => "contradicted",
            ClaimStatus::NoCheckableFacts => "no_checkable_facts",
        }
    }

    /// Whether the claim needs the writer's attention (`vitaecontext check` exits 1).
    pub fn is_problem(self) -> bool {
        matches!(self, ClaimStatus::Unsupported | ClaimStatus::Contradicted)
    }

    fn of(facts: &[Fact]) -> ClaimStatus {
        if facts.is_empty() {
            return ClaimStatus::NoCheckableFacts;
        }
        if facts.iter().any(|f| matches!(f.status, FactStatus::Contradicted { .. })) {
            return ClaimStatus::Contradicted;
        }
        let found = facts.iter().filter(|f| matches!(f.status, FactStatus::Supported(_))).count();
        match found {
            0 => ClaimStatus::Unsupported,
            n if n == facts.len() => ClaimStatus::Supported,
            _ => ClaimStatus::PartlySupported,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Claim {
    pub text: String,
    /// Byte range in the draft.
    pub span: Range<usize>,
    /// 1-based line of the draft where the claim starts.
    pub line: usize,
    pub status: ClaimStatus,
    pub facts: Vec<Fact>,
}

/// The person's files, as the checker reads them.
#[derive(Debug, Default, Clone, Copy)]
pub struct Sources<'a> {
    /// The Career Context: file name and text.
    pub context: Option<(&'a str, &'a str)>,
    pub graph: Option<&'a Searcher>,
}

/// How many related passages a number or date is looked for in: the passages sharing the
/// most content words with the claim, all those within one word of the best (a tie is not
/// broken by file order), at least [`RELATED_MIN`] and at most [`RELATED_MAX`].
const RELATED_MIN: usize = 6;
const RELATED_MAX: usize = 24;
/// The content words a passage must share with a claim before it can contradict it.
const CONTRADICTION_OVERLAP: usize = 2;

/// Every claim of `draft` with its facts and verdict, in draft order.
pub fn check(draft: &str, sources: Sources<'_>) -> Vec<Claim> {
    let context = sources.context.map(|(file, text)| context_passages(file, text)).unwrap_or_default();
    let entries = sources.context.map(|(_, text)| EntryNames::new(text)).unwrap_or_default();
    let mut graph = sources.graph.map(GraphEvidence::new);
    split(draft)
        .into_iter()
        .map(|c| {
            let fact_texts = facts(draft, &c);
            let ws = claim_words(draft, &c);
            let stems: Vec<String> = {
                let mut s: Vec<String> = ws.iter().filter(|w| is_content(w.text)).map(|w| stem(w.text)).collect();
                s.sort();
                s.dedup();
                s
            };
            let record_ids = match (&mut graph, fact_texts.is_empty()) {
                (Some(g), false) => g.search(&draft[c.span.clone()], RECORDS_PER_QUERY),
                _ => Vec::new(),
            };
            let mut related: Vec<(usize, &Passage)> = context
                .iter()
                .chain(record_ids.iter().filter_map(|id| graph.as_ref().and_then(|g| g.get(id))))
                .map(|p| (stems.iter().filter(|s| p.stems.contains(*s)).count(), p))
                .filter(|(n, _)| *n > 0)
                .collect();
            related.sort_by_key(|r| std::cmp::Reverse(r.0));
            let best = related.first().map_or(0, |r| r.0);
            let close = related.iter().take_while(|r| r.0 + 1 >= best).count();
            related.truncate(close.clamp(RELATED_MIN, RELATED_MAX));
            // A passage that can contradict the claim is about what the claim names: when the
            // claim names entries of the Career Context, one of them.
            let named = entries.named_in(&ws.iter().map(|w| fold(w.text)).collect::<Vec<_>>());
            let related: Vec<Related> = related
                .into_iter()
                .map(|(overlap, p)| Related {
                    overlap,
                    same_subject: named.is_empty() || named.iter().any(|n| p.find_name(n).is_some()),
                    passage: p.clone(),
                })
                .collect();
            let claimed: Vec<f64> = fact_texts.iter().flat_map(|f| f.numbers.iter().map(|n| n.value)).collect();
            let in_claim = InClaim { ws: &ws, base: c.span.start, claimed: &claimed, related: &related };
            let mut facts: Vec<Fact> = fact_texts
                .iter()
                .map(|f| Fact {
                    kind: f.kind,
                    text: draft[f.span.clone()].to_owned(),
                    span: f.span.clone(),
                    status: judge(f, &in_claim, &context, graph.as_mut()),
                })
                .collect();
            // A contradiction needs the same subject: when a name of the claim is not in the
            // files, the passage with the other value is about something else, so the
            // differing number or date is unsupported, not contradicted.
            if facts.iter().any(|f| f.kind == FactKind::Name && f.status == FactStatus::Unsupported) {
                for f in &mut facts {
                    if matches!(f.status, FactStatus::Contradicted { .. }) {
                        f.status = FactStatus::Unsupported;
                    }
                }
            }
            Claim {
                text: draft[c.span.clone()].to_owned(),
                span: c.span,
                line: c.line,
                status: ClaimStatus::of(&facts),
                facts,
            }
        })
        .collect()
}

fn evidence(p: &Passage, at: usize) -> Evidence {
    evidence_at(p, at)
}

/// The evidence of a passage, at a byte offset of its text.
pub(crate) fn evidence_at(p: &Passage, at: usize) -> Evidence {
    Evidence { origin: p.origin.clone(), line: p.line_at(at), excerpt: p.excerpt(at) }
}

/// A passage related to a claim: how many content words they share, and whether it is about
/// what the claim names (see [`EntryNames`]).
struct Related {
    overlap: usize,
    same_subject: bool,
    passage: Passage,
}

/// The claim a fact is judged in.
struct InClaim<'a> {
    /// The claim's words, the claim starting at byte `base` of the draft.
    ws: &'a [text::Word<'a>],
    base: usize,
    /// Every number of the claim, so that a passage's number the claim also states is never
    /// the "other value" of a contradiction (`from 41 to 15 minutes` is not contradicted by 41).
    claimed: &'a [f64],
    related: &'a [Related],
}

fn judge(f: &FactText, claim: &InClaim<'_>, context: &[Passage], graph: Option<&mut GraphEvidence<'_>>) -> FactStatus {
    match f.kind {
        FactKind::Name => judge_name(f, context, graph),
        FactKind::Number => judge_number(f, claim, context),
        FactKind::Date => judge_date(f, claim.related),
    }
}

fn judge_name(f: &FactText, context: &[Passage], graph: Option<&mut GraphEvidence<'_>>) -> FactStatus {
    let mut forms: Vec<&[String]> = vec![&f.name];
    if f.optional_first && f.name.len() > 1 {
        forms.push(&f.name[1..]);
    }
    for form in &forms {
        if let Some((p, at)) = context.iter().find_map(|p| p.find_name(form).map(|at| (p, at))) {
            return FactStatus::Supported(evidence(p, at));
        }
    }
    if let Some(g) = graph {
        for form in &forms {
            let ids = g.search(&form.join(" "), RECORDS_PER_QUERY);
            for id in ids {
                if let Some(p) = g.get(&id)
                    && let Some(at) = p.find_name(form)
                {
                    return FactStatus::Supported(evidence(p, at));
                }
            }
        }
    }
    FactStatus::Unsupported
}

fn judge_number(f: &FactText, claim: &InClaim<'_>, context: &[Passage]) -> FactStatus {
    let InClaim { ws, base, claimed, related } = *claim;
    let Some(n) = f.numbers.first() else { return FactStatus::Unsupported };
    // Units must agree when both numbers have one (`12 engineers` is not `12 minutes`); a
    // percentage is only ever matched by a percentage.
    let unit_ok = |m: &text::Number| match (&n.unit, &m.unit) {
        (Some(a), Some(b)) => a == b,
        (Some(a), None) => a != "%",
        (None, Some(b)) => b != "%",
        (None, None) => true,
    };
    for Related { passage: p, .. } in related {
        if let Some(m) = p.numbers.iter().find(|m| !m.year && m.same_value(n) && unit_ok(m)) {
            return FactStatus::Supported(evidence(p, m.span.start));
        }
    }
    if n.unit.is_some() {
        for p in context {
            if let Some(m) = p.numbers.iter().find(|m| m.same_value(n) && m.unit == n.unit) {
                return FactStatus::Supported(evidence(p, m.span.start));
            }
        }
        // The other value must count the same thing: a word near it is near the claim's too.
        let unit = n.unit.as_deref();
        let near = stems_near(ws, n.span.start - base, unit);
        for r in related {
            if r.overlap < CONTRADICTION_OVERLAP || !r.same_subject {
                continue;
            }
            let p = &r.passage;
            let pws = words(&p.text);
            let other = |m: &&text::Number| {
                !m.year
                    && m.unit == n.unit
                    && !claimed.iter().any(|c| (c - m.value).abs() < 1e-9)
                    && !near.is_disjoint(&stems_near(&pws, m.span.start, unit))
            };
            if let Some(m) = p.numbers.iter().find(other) {
                return FactStatus::Contradicted { evidence: evidence(p, m.span.start), found: number_text(p, m) };
            }
        }
    }
    FactStatus::Unsupported
}

fn number_text(p: &Passage, m: &text::Number) -> String {
    let mut s = p.text[m.span.clone()].to_owned();
    if p.text[m.span.end..].starts_with('%') {
        s.push('%');
    } else if let Some(u) = &m.unit
        && let Some(w) = text::words(&p.text[m.span.end..]).first()
        && stem(w.text) == *u
    {
        s.push(' ');
        s.push_str(w.text);
    }
    s
}

fn judge_date(f: &FactText, related: &[Related]) -> FactStatus {
    let years: Vec<f64> = f.numbers.iter().map(|n| n.value).collect();
    for Related { passage: p, .. } in related {
        let found: Vec<&text::Number> =
            years.iter().filter_map(|y| p.numbers.iter().find(|m| m.year && m.value == *y)).collect();
        if found.len() == years.len() {
            return FactStatus::Supported(evidence(p, found[0].span.start));
        }
    }
    if let Some(Related { overlap, passage: p, .. }) = related.iter().find(|r| r.same_subject)
        && *overlap >= CONTRADICTION_OVERLAP
    {
        let theirs: Vec<&text::Number> = p.numbers.iter().filter(|m| m.year).collect();
        if let Some(first) = theirs.first() {
            let found = p.text[first.span.start..theirs[theirs.len().min(2) - 1].span.end].to_owned();
            return FactStatus::Contradicted { evidence: evidence(p, first.span.start), found };
        }
    }
    FactStatus::Unsupported
}

/// How many claims have each status, in [`ClaimStatus::ALL`] order.
pub fn counts(claims: &[Claim]) -> Vec<(ClaimStatus, usize)> {
    ClaimStatus::ALL.iter().map(|&s| (s, claims.iter().filter(|c| c.status == s).count())).collect()
}

/// What to do about a claim that needs attention, in words for the writer (a model or a person).
pub fn advice(claim: &Claim) -> &'static str {
    match claim.status {
        ClaimStatus::Contradicted => "correct the value to the one in the files, or remove it",
        ClaimStatus::Unsupported => "remove it, or ask the person whether it is true and add it to their files",
        ClaimStatus::PartlySupported => "soften or remove the unsupported part, or ask the person",
        ClaimStatus::Supported | ClaimStatus::NoCheckableFacts => "",
    }
}

#[cfg(test)]
pub(crate) mod tests;

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
pub mod facts;
pub mod job;
pub mod levels;
mod postings;
pub mod text;
pub mod typed;

use std::borrow::Cow;
use std::collections::hash_map::Entry;
use std::collections::{HashMap, HashSet};
use std::ops::Range;

use postings::Postings;

pub use claims::FactKind;
use claims::{FactText, claim_words, facts, split};
use evidence::{ContextPassages, EntryNames, GraphEvidence, Named, Origin, Passage, RECORDS_PER_QUERY};
use text::{fold, is_content, stem, stems_near, words};
// Words that make a claim about what the person wants, which the GOALS AND TARGETING section
// and the target QUICK REFERENCE keys may support (`Seeking a Staff Platform Engineer role`).
use typed::ASPIRATION;

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
    /// The claim read as typed assertions about the files' entities, each with its verdict.
    pub assertions: Vec<typed::Assertion>,
}

/// The person's files, as the checker reads them.
#[derive(Debug, Default, Clone, Copy)]
pub struct Sources<'a> {
    /// The Career Context: file name and text.
    pub context: Option<(&'a str, &'a str)>,
    pub graph: Option<&'a Searcher>,
    /// Records changed since the graph's index was made (a server with `--watch`), read
    /// beside it.
    pub pending: Option<&'a crate::graph::search::Pending>,
    /// The current year, for entries that run to the present; `None` reads it as the latest
    /// year the Career Context gives.
    pub year_now: Option<i32>,
    /// Set when the answer is no longer wanted (the client cancelled the request): the check
    /// and the match stop between claims, requirements and index passages, and return what
    /// they have, which nobody reads.
    pub cancel: Option<&'a std::sync::atomic::AtomicBool>,
}

impl Sources<'_> {
    /// Whether the answer is no longer wanted.
    pub fn cancelled(&self) -> bool {
        self.cancel.is_some_and(|c| c.load(std::sync::atomic::Ordering::Relaxed))
    }
}

/// How many related passages a number or date is looked for in: the passages sharing the
/// most content words with the claim, all those within one word of the best (a tie is not
/// broken by file order), at least [`RELATED_MIN`] and at most [`RELATED_MAX`].
const RELATED_MIN: usize = 6;
const RELATED_MAX: usize = 24;
/// The content words a passage must share with a claim before it can contradict it.
const CONTRADICTION_OVERLAP: usize = 2;

/// The Career Context's passages with the look-ups a claim needs, so that a claim costs what
/// its own words find, not a scan of the whole file (2,000 claims against a 2 MB file took 25 s
/// when each scanned every passage), and a passage is made only when a claim reads it (a 16 MiB
/// file held as passages took half a gigabyte).
struct Context<'a> {
    passages: ContextPassages<'a>,
    /// Whether each passage says what the person wants.
    goal: Vec<bool>,
    /// The passages (indices, ascending) holding each content stem, and each number (by unit
    /// and value).
    by_stem: HashMap<String, Postings>,
    by_number: HashMap<(Option<String>, u64), Postings>,
    /// The QUICK REFERENCE entries and VERIFIED FACTS with the stems of their words: a count
    /// reads those that name what it counts, without making every one for every claim.
    whole_person: Vec<(usize, Vec<String>)>,
}

impl<'a> Context<'a> {
    fn new(passages: ContextPassages<'a>, sources: &Sources<'_>) -> Self {
        let whole_person = passages
            .whole_person()
            .map(|i| (i, words(&passages.full_text(i)).iter().map(|w| stem(&fold(w.text))).collect()))
            .collect();
        let mut c =
            Context { goal: Vec::new(), by_stem: HashMap::new(), by_number: HashMap::new(), passages, whole_person };
        for i in 0..c.passages.len() {
            // A cancelled check leaves the index unfinished (its answer is not read).
            if i % 4096 == 0 && sources.cancelled() {
                c.goal.resize(c.passages.len(), false);
                break;
            }
            c.goal.push(c.passages.is_goal(i));
            let at = u32::try_from(i).unwrap_or(u32::MAX);
            let all = c.passages.len();
            let text = c.passages.full_text(i);
            let ws = words(&text);
            for w in ws.iter() {
                let s = index_key(w.text);
                if s.is_empty() {
                    continue;
                }
                match c.by_stem.get_mut(&s) {
                    Some(list) => list.push(at, all),
                    None => {
                        c.by_stem.insert(s, Postings::new(at));
                    }
                }
            }
            for n in text::numbers(&text, &ws) {
                match c.by_number.entry((n.unit, n.value.to_bits())) {
                    Entry::Occupied(mut e) => e.get_mut().push(at, all),
                    Entry::Vacant(e) => {
                        e.insert(Postings::new(at));
                    }
                }
            }
        }
        // A list grown by doubling holds up to half again its length unused: on a 16 MiB file
        // that was megabytes held while the claims were judged.
        c.by_stem.values_mut().chain(c.by_number.values_mut()).for_each(Postings::shrink);
        c
    }

    /// The passages of a posting list that a claim may read (`goals`: what the person wants),
    /// in file order.
    fn indices<'s>(&'s self, list: Option<&'s Postings>, goals: bool) -> impl Iterator<Item = usize> + 's {
        list.into_iter().flat_map(Postings::iter).map(|i| i as usize).filter(move |&i| goals || !self.goal[i])
    }
}

/// The key a word is indexed by: a content word's stem; a word too short to be one that may
/// still be a name (`CI`, `Go`) or a number (`4471920`) by itself, marked; nothing for a stop
/// word. So a name of any words is found without a scan.
fn index_key(w: &str) -> String {
    if is_content(w) && !w.chars().all(|c| c.is_ascii_digit() || c == ',' || c == '.') {
        return stem(w);
    }
    let f = fold(w);
    let short = f.chars().count() <= 2 && f.chars().all(char::is_alphanumeric);
    let number = f.chars().all(|c| c.is_ascii_digit());
    if (short || number) && !f.is_empty() { format!("w:{f}") } else { String::new() }
}

/// Every claim of `draft` with its facts and verdict, in draft order.
pub fn check(draft: &str, sources: Sources<'_>) -> Vec<Claim> {
    let model = sources.context.map(|(file, text)| facts::FactModel::of_context(file, text)).unwrap_or_default();
    check_with(draft, sources, &model)
}

/// [`check`] with the Career Context's fact model already built (it is built once per file
/// version and shared).
pub fn check_with(draft: &str, sources: Sources<'_>, model: &facts::FactModel) -> Vec<Claim> {
    let context = Context::new(
        ContextPassages::new(
            sources.context.map_or("", |(file, _)| file),
            sources.context.map_or("", |(_, text)| text),
        ),
        &sources,
    );
    let entries = sources.context.map(|(_, text)| EntryNames::new(text)).unwrap_or_default();
    let mut graph = sources.graph.map(|s| GraphEvidence::new(s, sources.pending));
    let year_now = sources.year_now.unwrap_or_else(|| {
        model.entities.iter().filter_map(|e| e.dates.start.max(e.dates.end_year(0))).max().unwrap_or(2000)
    });
    // The entity a heading of the draft is about, for the items and paragraphs under it; and
    // the one the previous sentence was about, for the next sentence of its paragraph.
    let mut under_heading: typed::Subject = None;
    let mut subject: typed::Subject = None;
    let mut last_end = 0;
    let mut counts: Vec<u16> = vec![0; context.passages.len()];
    let mut touched: Vec<u32> = Vec::new();
    split(draft)
        .into_iter()
        // A cancelled check stops between claims (a 1 MiB draft against a 16 MiB context ran
        // for minutes after its client gave up).
        .take_while(|_| !sources.cancelled())
        .map(|c| {
            let fact_texts = facts(draft, &c);
            let ws = claim_words(draft, &c);
            let claim_text = &draft[c.span.clone()];
            // A draft's H1 is its headline (`# Rowan Vale - Staff Platform Engineer`): it
            // positions the person for the role they want.
            let headline = claim_text.starts_with("# ");
            let aspiring = ws.iter().any(|w| ASPIRATION.contains(&fold(w.text).as_str()));
            // What the person wants supports only a claim about what they want (see
            // `Passage::goal`).
            let goals = headline || aspiring;
            // A new part of the draft (`## Education`) is about something else.
            if claim_text.starts_with("# ") || claim_text.starts_with("## ") {
                under_heading = None;
            }
            let stems: Vec<String> = {
                let mut s: Vec<String> = ws.iter().filter(|w| is_content(w.text)).map(|w| stem(w.text)).collect();
                s.sort();
                s.dedup();
                s
            };
            let record_ids = match &mut graph {
                Some(g) if !fact_texts.is_empty() => g.search(claim_text, RECORDS_PER_QUERY),
                _ => Vec::new(),
            };
            let typed_judge = typed::Judge {
                model,
                records: record_ids
                    .iter()
                    .filter_map(|id| graph.as_ref().and_then(|g| g.get(id)))
                    .filter_map(record_entity)
                    .collect(),
                year_now,
            };
            // A heading names its own subject; a list item or a new paragraph is about the
            // heading above it; a sentence goes on from the one before it.
            let heading = claim_text.starts_with('#');
            let same_paragraph =
                !draft[last_end.min(c.span.start)..c.span.start].contains("\n\n") && !claims::is_list_item(claim_text);
            let carried = match (heading, same_paragraph) {
                (true, _) => None,
                (false, true) => subject.take().or_else(|| under_heading.clone()),
                (false, false) => under_heading.clone(),
            };
            let (reading, next) = typed_judge.read(claim_text, c.span.start, &ws, &carried, headline || aspiring);
            if heading {
                under_heading = next.clone();
            }
            subject = next;
            last_end = c.span.end;
            // The passages sharing content words with the claim, found through the stems'
            // posting lists and counted in one array reused for every claim (a common word is
            // in every passage of a long file: no map, no sort of them all).
            touched.clear();
            for st in &stems {
                for i in context.by_stem.get(st.as_str()).into_iter().flat_map(Postings::iter) {
                    let n = &mut counts[i as usize];
                    if *n == 0 {
                        touched.push(i);
                    }
                    *n = n.saturating_add(1);
                }
            }
            let records: Vec<(usize, &Passage)> = record_ids
                .iter()
                .filter_map(|id| graph.as_ref().and_then(|g| g.get(id)))
                .map(|p| (stems.iter().filter(|s| p.stems.contains(*s)).count(), p))
                .filter(|(n, _)| *n > 0)
                .collect();
            // By count, highest first; in one count the file's passages in file order, then the
            // records: all those within one of the best, at least RELATED_MIN, at most
            // RELATED_MAX. Ranked before any is made, and only the passages kept are sorted.
            let allowed = |i: u32| goals || !context.goal[i as usize];
            let best = touched
                .iter()
                .filter(|&&i| allowed(i))
                .map(|&i| usize::from(counts[i as usize]))
                .chain(records.iter().map(|r| r.0))
                .max()
                .unwrap_or(0);
            let mut ranked: Vec<(usize, Result<u32, usize>)> = Vec::new();
            for level in (1..=best).rev() {
                let room = RELATED_MAX - ranked.len();
                if room == 0 || (level + 1 < best && ranked.len() >= RELATED_MIN) {
                    break;
                }
                let mut at: Vec<u32> = touched
                    .iter()
                    .copied()
                    .filter(|&i| usize::from(counts[i as usize]) == level && allowed(i))
                    .collect();
                if at.len() > room {
                    at.select_nth_unstable(room - 1);
                    at.truncate(room);
                }
                at.sort_unstable();
                ranked.extend(at.into_iter().map(|i| (level, Ok(i))));
                ranked.extend(records.iter().enumerate().filter(|(_, r)| r.0 == level).map(|(k, _)| (level, Err(k))));
            }
            for &i in &touched {
                counts[i as usize] = 0;
            }
            let close = ranked.iter().take_while(|r| r.0 + 1 >= best).count();
            ranked.truncate(close.clamp(RELATED_MIN, RELATED_MAX));
            let related: Vec<(usize, Cow<'_, Passage>)> = ranked
                .into_iter()
                .map(|(n, at)| match at {
                    Ok(i) => (n, Cow::Owned(context.passages.get(i as usize))),
                    Err(k) => (n, Cow::Owned(records[k].1.clone())),
                })
                .collect();
            // When the claim names entries of the Career Context, a passage of another entry
            // neither supports nor contradicts its numbers and dates (see [`Related`]). The
            // entry a claim is about only by being under its heading does not restrict them:
            // a draft's headings are not always the files' entries.
            let named = entries.named_in(&ws.iter().map(|w| fold(w.text)).collect::<Vec<_>>());
            let related: Vec<Related> = related
                .into_iter()
                .map(|(overlap, p)| {
                    let (same_subject, in_entry) = (named.covers(&p), p.in_entry);
                    Related { overlap, same_subject, may_support: same_subject || !in_entry, passage: p }
                })
                .collect();
            let mut claimed: Vec<f64> = fact_texts.iter().flat_map(|f| f.numbers.iter().map(|n| n.value)).collect();
            claimed.sort_by(f64::total_cmp);
            // Each name as the name lookup reads it: without a sentence-initial first word
            // (`My MSc` is `MSc`) when that may be only a capital.
            let names: Vec<&[String]> = fact_texts
                .iter()
                .filter(|f| f.kind == FactKind::Name)
                .map(|f| if f.optional_first && f.name.len() > 1 { &f.name[1..] } else { f.name.as_slice() })
                .collect();
            // The words inside each name, found by halves: words are in text order (a scan of
            // every fact for each word was quadratic on a long claim).
            let name_stems: HashSet<String> = fact_texts
                .iter()
                .filter(|f| f.kind == FactKind::Name)
                .flat_map(|f| {
                    let from = ws.partition_point(|w| c.span.start + w.span.start < f.span.start);
                    let to = ws.partition_point(|w| c.span.start + w.span.start < f.span.end);
                    ws[from..to].iter().map(|w| stem(w.text))
                })
                .collect();
            let in_claim = InClaim {
                names: &names,
                name_stems: &name_stems,
                claim_stems: &text::word_stems(&ws),
                text: &draft[c.span.clone()],
                ws: &ws,
                base: c.span.start,
                claimed: &claimed,
                related: &related,
                named: &named,
            };
            let mut facts: Vec<Fact> = fact_texts
                .iter()
                .map(|f| Fact {
                    kind: f.kind,
                    text: draft[f.span.clone()].to_owned(),
                    span: f.span.clone(),
                    status: judge(f, &in_claim, &context, goals, graph.as_mut()),
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
            // An effect credited to the work (`, halving unplanned extubations`) must be in what
            // the files say of it: an invented outcome on a true activity is the commonest
            // inflation, and it has no number or name of its own to be caught by.
            if let Some(o) = outcome(&ws)
                && facts.iter().any(|f| matches!(f.status, FactStatus::Supported(_)))
                && !related.iter().any(|r| {
                    // Half its content words in one passage about the same thing.
                    r.may_support
                        && 2 * o.stems.iter().filter(|s| r.passage.stems.contains(*s)).count() >= o.stems.len()
                })
            {
                let span = c.span.start + o.span.start..c.span.start + o.span.end;
                facts.push(Fact {
                    kind: FactKind::Outcome,
                    text: draft[span.clone()].to_owned(),
                    span,
                    status: FactStatus::Unsupported,
                });
            }
            // `Dear Hiring Manager,` greets the reader: nothing in it is about the person.
            // A claim about what the person wants names the employer or post they want: a name
            // the files lack there is no invented fact (`applying for the Project Manager role at
            // Greystone Build`).
            let applying = ws
                .iter()
                .any(|w| matches!(fold(w.text).as_str(), "applying" | "apply" | "application" | "seeking" | "seek"));
            if applying && !headline {
                facts.retain(|f| !(f.kind == FactKind::Name && f.status == FactStatus::Unsupported));
            }
            let salutation = claims::is_salutation(claim_text);
            if salutation {
                facts.clear();
            }
            let status = if salutation { ClaimStatus::NoCheckableFacts } else { apply(&reading, &mut facts) };
            Claim {
                text: claim_text.to_owned(),
                span: c.span,
                line: c.line,
                status,
                facts,
                assertions: if salutation { Vec::new() } else { reading.assertions },
            }
        })
        .collect()
}

/// The verbs of an effect, as a clause attached to what a claim reports starts with them
/// (`, halving ...`, `, cutting ...`).
const OUTCOME_VERBS: &[&str] = &[
    "halving",
    "doubling",
    "tripling",
    "quadrupling",
    "cutting",
    "reducing",
    "lowering",
    "decreasing",
    "shrinking",
    "slashing",
    "raising",
    "increasing",
    "improving",
    "boosting",
    "saving",
    "eliminating",
    "preventing",
];

/// An attached outcome clause of a claim's words: its span (from the verb to the clause's end,
/// in the claim) and the stems of its content words.
struct Outcome {
    span: Range<usize>,
    stems: Vec<String>,
}

/// The first outcome clause of `ws`: an [`OUTCOME_VERBS`] word right after a comma or other
/// clause break, or the words after `resulting in` / `leading to`, up to the next break. One
/// with no content word (`, halving it`) is none.
fn outcome(ws: &[text::Word<'_>]) -> Option<Outcome> {
    let start = (1..ws.len()).find_map(|i| {
        let w = fold(ws[i].text);
        if ws[i].after_break && OUTCOME_VERBS.contains(&w.as_str()) {
            return Some((i, i + 1));
        }
        let next = ws.get(i + 1).map(|n| fold(n.text));
        match (w.as_str(), next.as_deref()) {
            ("resulting", Some("in")) | ("leading", Some("to")) if !ws[i + 1].after_break => Some((i, i + 2)),
            _ => None,
        }
    })?;
    let (verb, object) = start;
    let end = (object..ws.len()).find(|&k| ws[k].after_break).unwrap_or(ws.len());
    let stems: Vec<String> = ws[object..end]
        .iter()
        .filter(|w| is_content(w.text) && !matches!(fold(w.text).as_str(), "by" | "from" | "half" | "times"))
        .map(|w| stem(w.text))
        .collect();
    if stems.is_empty() {
        return None;
    }
    Some(Outcome { span: ws[verb].span.start..ws[end - 1].span.end, stems })
}

/// A VitaeGraph record's passage as an entity (its kind from its id's prefix).
fn record_entity(p: &Passage) -> Option<facts::Entity> {
    let Origin::Record { id, path } = &p.origin else { return None };
    let kind = id.split(':').next()?;
    let title = p.text.get(..p.body.saturating_sub(1))?;
    facts::Entity::from_record(kind, id, path, title, p.text.get(p.body..)?)
}

/// The typed assertions' verdicts over the facts they cover, and the claim's verdict: any
/// contradicted assertion contradicts the claim; an invented entity (a job, degree or
/// credential whose employer, institution or name the files lack) makes it unsupported, not
/// partly supported.
fn apply(reading: &typed::Reading, facts: &mut [Fact]) -> ClaimStatus {
    use typed::{AssertionKind, Verdict};
    for a in &reading.assertions {
        for f in facts.iter_mut().filter(|f| f.span.start < a.span.end && a.span.start < f.span.end) {
            f.status = match &a.verdict {
                Verdict::Supported(e) => FactStatus::Supported(e.clone()),
                Verdict::Contradicted { evidence, found } => {
                    FactStatus::Contradicted { evidence: evidence.clone(), found: found.clone() }
                }
                Verdict::Unsupported => FactStatus::Unsupported,
            };
        }
    }
    // A name made of the words of entities the claim names (`Patient Safety Award of the
    // Eastmere Regional Health Board` for the award and its issuer) is theirs, unless an
    // assertion found it unsupported (a job at the school the person studied at).
    let refused = |f: &Fact| {
        reading
            .assertions
            .iter()
            .any(|a| a.verdict == Verdict::Unsupported && f.span.start < a.span.end && a.span.start < f.span.end)
    };
    for f in facts.iter_mut().filter(|f| f.kind == FactKind::Name && f.status == FactStatus::Unsupported && !refused(f))
    {
        let name: Vec<String> = words(&f.text).iter().map(|w| fold(w.text)).collect();
        if let Some(ev) = reading.covering(&name) {
            f.status = FactStatus::Supported(ev.clone());
        }
    }
    // A job at an organisation the files know only as something else (where the person
    // studied): its dates are not the degree's to contradict (a wrong title or a never_claim
    // still is).
    let other_contradiction = reading.assertions.iter().any(|a| {
        matches!(a.verdict, Verdict::Contradicted { .. })
            && !matches!(a.kind, AssertionKind::Dates | AssertionKind::Duration)
    });
    if !other_contradiction
        && reading.assertions.iter().any(|a| a.kind == AssertionKind::Employment && a.verdict == Verdict::Unsupported)
    {
        for f in facts.iter_mut().filter(|f| matches!(f.status, FactStatus::Contradicted { .. })) {
            f.status = FactStatus::Unsupported;
        }
        return ClaimStatus::Unsupported;
    }
    if reading.assertions.iter().any(|a| matches!(a.verdict, Verdict::Contradicted { .. }))
        || facts.iter().any(|f| matches!(f.status, FactStatus::Contradicted { .. }))
    {
        return ClaimStatus::Contradicted;
    }
    let invented_degree =
        reading.assertions.iter().any(|a| a.kind == AssertionKind::Degree && a.verdict == Verdict::Unsupported);
    let invented_name = reading.anchored
        && !reading.names_entity
        && facts.iter().any(|f| f.kind == FactKind::Name && f.status == FactStatus::Unsupported);
    if invented_degree || invented_name {
        return ClaimStatus::Unsupported;
    }
    if facts.is_empty() {
        return match reading.assertions.iter().all(|a| matches!(a.verdict, Verdict::Supported(_))) {
            true if !reading.assertions.is_empty() => ClaimStatus::Supported,
            _ if reading.assertions.is_empty() => ClaimStatus::NoCheckableFacts,
            _ => ClaimStatus::Unsupported,
        };
    }
    ClaimStatus::of(facts)
}

fn evidence(p: &Passage, at: usize) -> Evidence {
    evidence_at(p, at)
}

/// The evidence of a passage, at a byte offset of its text.
pub(crate) fn evidence_at(p: &Passage, at: usize) -> Evidence {
    Evidence { origin: p.origin.clone(), line: p.line_at(at), excerpt: p.excerpt(at) }
}

/// A passage related to a claim: how many content words they share, and whether it is about
/// what the claim names. When the claim names entries of the Career Context ([`EntryNames`]),
/// only a passage naming one of them is about the same thing (`same_subject`) and may
/// contradict it; one that is about no entry at all (the QUICK REFERENCE, the VERIFIED FACTS) may
/// still support it (`may_support`), but not one of another entry: Brightwave Health's dates do
/// not support a claim about Brightwave Analytics (found in review, with 40 such swaps passing).
struct Related<'p> {
    overlap: usize,
    same_subject: bool,
    may_support: bool,
    passage: Cow<'p, Passage>,
}

/// The claim a fact is judged in.
struct InClaim<'a> {
    /// The claim's text and words, the claim starting at byte `base` of the draft.
    text: &'a str,
    ws: &'a [text::Word<'a>],
    base: usize,
    /// Every number of the claim, so that a passage's number the claim also states is never
    /// the "other value" of a contradiction (`from 41 to 15 minutes` is not contradicted by 41).
    claimed: &'a [f64],

    related: &'a [Related<'a>],
    /// The Career Context entries the claim names.
    named: &'a Named<'a>,
    /// The claim's names (folded words) and the stems of their words.
    names: &'a [&'a [String]],
    name_stems: &'a HashSet<String>,
    /// The stems of the claim's words other than numbers and stop words, sorted.
    claim_stems: &'a [String],
}

/// How many bytes before a number are read for the words it is of ([`text::lead_stems`]).
const LEAD_WINDOW: usize = 200;
/// How many numbers on each side of one are looked at to tell whether it is in a list.
const LIST_LOOK: usize = 64;

/// The largest char boundary of `s` at or below `i`.
fn floor_char_boundary(s: &str, i: usize) -> usize {
    (0..=i.min(s.len())).rev().find(|&j| s.is_char_boundary(j)).unwrap_or(0)
}

impl InClaim<'_> {
    /// Whether the claim states `value` (by halves: `claimed` is sorted; a claim of 20,000
    /// numbers made scans of it quadratic).
    fn states(&self, value: f64) -> bool {
        let i = self.claimed.partition_point(|&c| c < value - 1e-9);
        self.claimed.get(i).is_some_and(|&c| (c - value).abs() < 1e-9)
    }

    /// Whether a passage may support a number or date of the claim (see [`Related`]).
    fn may_support(&self, p: &Passage) -> bool {
        !p.in_entry || self.named.covers(p)
    }
}

/// How `text` (whose words are `ws`) states its number at byte `at`: as a value, a bound
/// (`over 1,000`, `under 15 minutes`, `1,000+`) or an estimate (`about 60`). Found in review:
/// `over 1,000 stars` was "contradicted" by 1,300.
pub(crate) fn hedge_of(text: &str, ws: &[text::Word<'_>], at: usize) -> Hedge {
    let Some(i) = text::word_at(ws, at) else { return Hedge::Exact };
    let after = &text[ws[i].span.end..];
    let before = text[..at].trim_end();
    if after.starts_with('+') || after.starts_with("%+") || before.ends_with('>') {
        return Hedge::AtLeast;
    }
    if before.ends_with('<') {
        return Hedge::AtMost;
    }
    if before.ends_with('~') {
        return Hedge::About;
    }
    // A currency code between the hedge and the number (`roughly EUR 300k`) is passed over.
    let i = match ws.get(i.wrapping_sub(1)).map(|w| fold(w.text)) {
        Some(w) if matches!(w.as_str(), "eur" | "usd" | "gbp" | "chf" | "jpy" | "inr") => i - 1,
        _ => i,
    };
    let two: Vec<String> = ws[i.saturating_sub(2)..i].iter().map(|w| fold(w.text)).collect();
    let last = two.last().map_or("", String::as_str);
    let first = if two.len() == 2 { two[0].as_str() } else { "" };
    match (first, last) {
        ("more" | "greater", "than") | ("at", "least") | (_, "over" | "above" | "beyond" | "exceeding") => {
            Hedge::AtLeast
        }
        ("less" | "fewer", "than") | ("at", "most") | ("up", "to") | (_, "under" | "below") => Hedge::AtMost,
        (_, "about" | "around" | "approximately" | "roughly" | "nearly" | "almost" | "circa" | "approx" | "some") => {
            Hedge::About
        }
        _ => Hedge::Exact,
    }
}

/// How a claim states a number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Hedge {
    Exact,
    AtLeast,
    AtMost,
    /// Within a quarter of the value.
    About,
}

impl Hedge {
    /// Whether `found` in the files bears out `claimed` stated this way: equal; for a bound, on
    /// its side and within half of it again (`more than 100` for 120, not for 1,000); for an
    /// estimate, within a tenth.
    fn fits(self, claimed: f64, found: f64) -> bool {
        let same = (claimed - found).abs() < 1e-9;
        match self {
            Hedge::Exact => same,
            Hedge::AtLeast => same || (found > claimed && found <= claimed * 1.5),
            Hedge::AtMost => same || (found < claimed && found >= claimed * 0.5),
            Hedge::About => (claimed - found).abs() <= 0.1 * claimed.abs().max(found.abs()),
        }
    }

    /// Whether `found` in the files goes against `claimed` stated this way.
    fn contradicted_by(self, claimed: f64, found: f64) -> bool {
        match self {
            Hedge::Exact => true,
            Hedge::AtLeast => found < claimed,
            Hedge::AtMost => found > claimed,
            Hedge::About => (found - claimed).abs() > 0.25 * found.abs().max(claimed.abs()),
        }
    }
}

fn judge(
    f: &FactText,
    claim: &InClaim<'_>,
    context: &Context<'_>,
    goals: bool,
    graph: Option<&mut GraphEvidence<'_>>,
) -> FactStatus {
    match f.kind {
        FactKind::Name => judge_name(f, context, goals, graph),
        FactKind::Number => judge_number(f, claim, context, goals),
        FactKind::Date => judge_date(f, claim),
        // Never read from a claim's text: found by `outcome`, after the facts are judged.
        FactKind::Outcome => FactStatus::Unsupported,
    }
}

fn judge_name(f: &FactText, context: &Context<'_>, goals: bool, graph: Option<&mut GraphEvidence<'_>>) -> FactStatus {
    let mut forms: Vec<&[String]> = vec![&f.name];
    // `Aspiring Head of Science`: the wish is not part of the name.
    let wish = f.name.first().is_some_and(|w| ASPIRATION.contains(&w.as_str()));
    if (f.optional_first || wish) && f.name.len() > 1 {
        forms.push(&f.name[1..]);
    }
    for form in &forms {
        // The first passage in file order holding the name: among those holding the stem of
        // its first content word (only its words are read; the one found is made).
        // The passages holding every word of it: the posting lists of its words intersected,
        // the shortest first (`Works 123`: the number's few, not the thousands of `works`).
        let mut lists: Vec<&Postings> = Vec::new();
        for key in form.iter().map(|w| index_key(w)).filter(|k| !k.is_empty()) {
            match context.by_stem.get(&key) {
                Some(list) => lists.push(list),
                None => lists.clear(),
            }
            if lists.is_empty() {
                break;
            }
        }
        lists.sort_by_key(|l| l.len());
        let holding: Vec<usize> = lists
            .split_first()
            .into_iter()
            .flat_map(|(first, rest)| first.iter().filter(|&i| rest.iter().all(|l| l.contains(i))))
            .map(|i| i as usize)
            .filter(|&i| goals || !context.goal[i])
            .collect();
        if let Some((p, at)) = holding
            .into_iter()
            .find(|&i| context.passages.holds_name(i, form))
            .map(|i| context.passages.get(i))
            .and_then(|p| p.find_name(form).map(|at| (p, at)))
        {
            return FactStatus::Supported(evidence(&p, at));
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

fn judge_number(f: &FactText, claim: &InClaim<'_>, context: &Context<'_>, goals: bool) -> FactStatus {
    let InClaim { ws, base, related, .. } = *claim;
    let Some(n) = f.numbers.first() else { return FactStatus::Unsupported };
    // Units must agree when both numbers have one (`12 engineers` is not `12 minutes`); a
    // percentage is only ever matched by a percentage.
    // A size (`18-bed ICU`) bears out the same count written plainly (`18 beds`).
    let unit_ok = |m: &text::Number| match (&n.unit, &m.unit) {
        (Some(a), Some(b)) => a.trim_start_matches('-') == b.trim_start_matches('-'),
        (Some(a), None) => a != "%",
        (None, Some(b)) => b != "%",
        (None, None) => true,
    };
    // In a list of numbers of one unit (`Kafka (9 yrs), Rust (4 yrs), Terraform (5 yrs)`), the
    // one with the claim's value must be of something the claim names: found in review, `Rust
    // (5 years)` was supported by Terraform's five. A list item's number starts its clause
    // (`(4 yrs)`); a range (`50 to 400 engineers`, `8-12 TB`) or a change (`from 41 to 12
    // minutes`) is not a list. Only the few words before the number are read, so a long
    // passage costs no more (a review's 4,000 numbers in one paragraph took 61 s).
    let of_the_claim = |p: &Passage, m: &text::Number| {
        if m.unit.is_none() {
            return true;
        }
        let lo = floor_char_boundary(&p.text, m.span.start.saturating_sub(LEAD_WINDOW).max(p.body.min(m.span.start)));
        let window = &p.text[lo..m.span.end];
        let wws = words(window);
        if !wws.last().is_some_and(|w| w.after_break) {
            return true;
        }
        let i = p.numbers.partition_point(|k| k.span.start < m.span.start);
        let apart = |k: &text::Number| {
            let (a, b) =
                if k.span.start < m.span.start { (k.span.end, m.span.start) } else { (m.span.end, k.span.start) };
            b.saturating_sub(a) > 12
        };
        let other = |k: &&text::Number| !k.year && k.unit == m.unit && apart(k);
        let listed = p.numbers[..i].iter().rev().take(LIST_LOOK).any(|k| other(&k))
            || p.numbers[i + 1..].iter().take(LIST_LOOK).any(|k| other(&k));
        !listed
            || text::lead_stems(window, &wws, m.span.start - lo, 0)
                .iter()
                .any(|s| claim.claim_stems.binary_search(s).is_ok())
    };
    // How the claim states it: `over 40%` is met by 43%, `roughly EUR 300k` by 310,000.
    let claim_hedge = hedge_of(claim.text, ws, n.span.start - base);
    // What a percentage, an amount, a ratio or a time counts is in the words around it, not
    // in its unit: `30% of the codebase` is not `latency cut by 30%`. A count's unit says what
    // it counts (`12 nurses`).
    let measured = matches!(
        n.unit.as_deref(),
        None | Some("%" | "$" | "£" | "€" | "¥" | "₹" | "x" | "ms" | "s" | "min" | "h" | "day" | "week" | "month")
    );
    let claim_near: Vec<String> = if measured {
        let mut near = stems_near(claim.text, ws, n.span.start - base, n.unit.as_deref(), 0);
        near.retain(|s| !claim.name_stems.contains(s));
        near.into_iter().collect()
    } else {
        Vec::new()
    };
    let same_measure = |p: &Passage, m: &text::Number| {
        if claim_near.is_empty() {
            return true;
        }
        let pws = words(&p.text);
        let theirs = stems_near(&p.text, &pws, m.span.start, n.unit.as_deref(), p.body.min(m.span.start));
        theirs.is_empty() || claim_near.iter().any(|a| theirs.iter().any(|b| typed::same_word(a, b)))
    };
    // A count's noun may carry a word before it: `four hardware engineers` bears out `four
    // engineers`, and the other way round; a generic `units` stands for whatever the passage
    // counts (`60,000 units shipped` for `60,000 chargers shipped`). Two modifiers that differ
    // (`two junior engineers`, `two hardware engineers`) are still two counts.
    let count_unit = |u: &str| !measured && !u.starts_with('-') && !text::is_measure(u);
    let claim_nouns = match &n.unit {
        Some(u) if count_unit(u) => text::count_nouns(claim.text, ws, n.span.start - base),
        _ => Vec::new(),
    };
    let same_count = |p: &Passage, m: &text::Number| match (&n.unit, &m.unit) {
        (Some(a), Some(b)) if count_unit(a) && count_unit(b) => {
            a == "unit"
                || claim_nouns.contains(b)
                || text::count_nouns(&p.text, &words(&p.text), m.span.start).contains(a)
        }
        _ => false,
    };
    for Related { passage: p, .. } in related.iter().filter(|r| r.may_support) {
        // Bound against bound (`under five minutes` for `under three minutes`) is a value
        // copied wrong: only the same value bears it out.
        let hedge_against = |m: &text::Number| match claim_hedge {
            Hedge::Exact => Hedge::Exact,
            h if hedge_of(&p.text, &words(&p.text), m.span.start) == h => Hedge::Exact,
            h => h,
        };
        // `four` in `hired two of the four in 2022` has no unit: it supports `four graduate
        // engineers` only when the claim's noun is near it.
        let counted = |m: &text::Number| match (&n.unit, &m.unit) {
            (Some(u), None) if !measured => {
                let pws = words(&p.text);
                stems_near(&p.text, &pws, m.span.start, None, p.body.min(m.span.start))
                    .iter()
                    .any(|s| typed::same_word(s, u))
            }
            _ => true,
        };
        if let Some(m) = p.numbers.iter().find(|m| {
            !m.year
                && (unit_ok(m) || same_count(p, m))
                && counted(m)
                && hedge_against(m).fits(n.value, m.value)
                && of_the_claim(p, m)
                && same_measure(p, m)
        }) {
            return FactStatus::Supported(evidence(p, m.span.start));
        }
    }
    // A numeric QUICK REFERENCE key or VERIFIED FACT counts what its name says (`patents
    // granted: 1` for `1 granted patent`), however few words it shares with a long claim: each
    // of the claim's count nouns must be in it. Its one value, other than the claim's and not
    // within the claim's hedge, is the count the files give (`3 granted patents`).
    if !claim_nouns.is_empty() {
        let mut other: Option<(Passage, text::Number)> = None;
        let naming = context.whole_person.iter().filter(|(i, named)| {
            (goals || !context.goal[*i]) && claim_nouns.iter().all(|a| named.iter().any(|b| typed::same_word(a, b)))
        });
        for &(i, _) in naming {
            let p = context.passages.get(i);
            let values: Vec<&text::Number> = p.numbers.iter().filter(|m| !m.year && m.unit.is_none()).collect();
            if let Some(m) = values.iter().find(|m| claim_hedge.fits(n.value, m.value)) {
                return FactStatus::Supported(evidence(&p, m.span.start));
            }
            if let [m] = values[..]
                && other.is_none()
                && claim_hedge.contradicted_by(n.value, m.value)
            {
                other = Some((p.clone(), m.clone()));
            }
        }
        if let Some((p, m)) = other {
            return FactStatus::Contradicted { evidence: evidence(&p, m.span.start), found: number_text(&p, &m) };
        }
    }
    // `from 31% to 44% in three years` against `from 31% in 2021 to 44% in 2024`: the distance
    // between two years of a closely related passage.
    if n.unit.as_deref() == Some("year") {
        for Related { passage: p, overlap, .. } in related.iter().filter(|r| r.may_support && r.overlap >= 3) {
            let years: Vec<&text::Number> = p.numbers.iter().filter(|m| m.year && m.span.start >= p.body).collect();
            if let Some(pair) = years.windows(2).find(|w| (w[1].value - w[0].value - n.value).abs() < 1e-9) {
                let _ = overlap;
                return FactStatus::Supported(evidence(p, pair[0].span.start));
            }
        }
    }
    // `four years at Quillfeather Health` against its entry's `(2018-2022)`: a span of years
    // of the entry the claim names.
    if n.unit.as_deref() == Some("year") && !claim.named.entries.is_empty() {
        for Related { passage: p, .. } in related.iter().filter(|r| r.same_subject) {
            let years: Vec<&text::Number> = p.numbers.iter().filter(|m| m.year).collect();
            // A range of years (`2018-2022`, `2018 to 2022`), not two years that happen to be
            // neighbours (`Joined in 2018 ... promoted in 2020`; found in review).
            let range = |w: &[&text::Number]| {
                matches!(p.text[w[0].span.end..w[1].span.start].trim(), "-" | "–" | "—" | "to" | "until" | "through")
            };
            if let Some(pair) = years.windows(2).find(|w| range(w) && (w[1].value - w[0].value - n.value).abs() < 1e-9)
            {
                return FactStatus::Supported(evidence(p, pair[0].span.start));
            }
        }
    }
    if n.unit.is_some() {
        let same = context.by_number.get(&(n.unit.clone(), n.value.to_bits()));
        let candidates = context.indices(same, goals).filter(|&i| context.passages.may_support(i, claim.named));
        for p in candidates.map(|i| context.passages.get(i)).filter(|p| claim.may_support(p)) {
            let p = &p;
            if let Some(m) = p.numbers.iter().find(|m| m.same_value(n) && m.unit == n.unit && of_the_claim(p, m)) {
                return FactStatus::Supported(evidence(p, m.span.start));
            }
        }
        let hedge = hedge_of(claim.text, ws, n.span.start - base);
        // The other value must count the same thing: a word near it, in the passage's own
        // text (not its heading), is near the claim's too; the claim's names, which say whom
        // or what it is about and not what the number counts, are not such words (found in
        // review: `Hired three engineers at Tideline Logistics` was contradicted by Tideline's
        // 220-engineer monorepo).
        let unit = n.unit.as_deref();
        let mut near = stems_near(claim.text, ws, n.span.start - base, unit, 0);
        // A name between the number and its unit says what is counted (`3.1k GitHub stars`),
        // not whom the claim is about: it stays.
        let qualifier = text::word_at(ws, n.span.start - base)
            .and_then(|i| ws.get(i + 1))
            .filter(|w| w.text.starts_with(char::is_uppercase))
            .map(|w| stem(w.text));
        near.retain(|s| !claim.name_stems.contains(s) || qualifier.as_ref() == Some(s));
        // The word before a number: `from 41` starts a change, `to 12` ends it, `by 29` is its
        // size.
        let word_before = |ws: &[text::Word<'_>], at: usize| {
            text::word_at(ws, at).and_then(|i| i.checked_sub(1)).map(|i| fold(ws[i].text)).unwrap_or_default()
        };
        let claim_before = word_before(ws, n.span.start - base);
        let same = |a: f64, b: f64| (a - b).abs() < 1e-9;
        let claim_counts = text::count_nouns(claim.text, ws, n.span.start - base);
        // `from 52% to 75%` against `from 52% to 68%`: a change from the same start to another
        // end is the same change with a wrong end.
        if claim_before == "to"
            && let Some(start) = changed_from(claim.text, ws, n.span.start - base)
        {
            for r in related.iter().filter(|r| r.same_subject && r.may_support) {
                let p = &r.passage;
                let pws = words(&p.text);
                for (k, m) in p.numbers.iter().enumerate() {
                    if m.year || !same(m.value, start) || word_before(&pws, m.span.start) != "from" {
                        continue;
                    }
                    let end = p.numbers[k + 1..]
                        .iter()
                        .filter(|e| !e.year && e.unit == m.unit)
                        .take(1)
                        .find(|e| word_before(&pws, e.span.start) == "to");
                    if let Some(e) = end
                        && !same(e.value, n.value)
                        && (e.unit == n.unit || n.unit.is_none())
                    {
                        return FactStatus::Contradicted {
                            evidence: evidence(p, e.span.start),
                            found: number_text(p, e),
                        };
                    }
                }
            }
        }
        for r in related {
            // A claim with names is contradicted only by a passage with one of them (found in
            // review: `Cut CI time by 70%` was contradicted by the thesis's 60%).
            let p = &r.passage;
            if r.overlap < CONTRADICTION_OVERLAP
                || !r.same_subject
                || !(claim.names.is_empty() || claim.names.iter().any(|n| p.find_name(n).is_some()))
            {
                continue;
            }
            let pws = words(&p.text);
            // A count names what it counts in a few words, not always first (`eight
            // early-career teachers` against `six trainee and early-career teachers`): two of
            // them in common (`junior engineers` are not `hardware engineers`).
            let same_unit = |m: &text::Number| {
                m.unit == n.unit
                    || (!measured
                        && m.unit.is_some()
                        && n.unit.is_some()
                        && text::count_nouns(&p.text, &pws, m.span.start)
                            .iter()
                            .filter(|a| claim_counts.iter().any(|b| typed::same_word(a, b)))
                            .count()
                            >= 2)
            };
            for m in p.numbers.iter().filter(|m| !m.year && same_unit(m) && !claim.states(m.value)) {
                let Some(around) = text::near_span(&pws, m.span.start, p.body) else { continue };
                // The passage's numbers are in text order: those around `m` found by halves (a
                // scan of them all for each was quadratic on a paragraph of numbers; found in
                // review).
                let first = p.numbers.partition_point(|k| k.span.start < around.start);
                let last = p.numbers.partition_point(|k| k.span.start < around.end);
                let nearby: Vec<&text::Number> = p.numbers[first..last].iter().filter(|k| !k.year).collect();
                // The passage also states the claim's value beside it (`Mentored four engineers;
                // two were promoted` for `two engineers promoted`), or gives a range or a
                // change the claim shares no end of (`from 41 to 12 minutes` for `by 29
                // minutes`, `under 15 minutes`): no contradiction (found in review).
                let ranged = nearby.iter().filter(|k| k.unit == n.unit).count() >= 2
                    && !nearby.iter().any(|k| claim.states(k.value));
                // The claim gives the size of the change the passage gives the ends of, with or
                // without `by` (`dropped 820ms` against `from 900ms to 80ms`; found in review).
                let change = nearby.iter().filter(|k| k.unit == n.unit).any(|a| {
                    nearby.iter().filter(|k| k.unit == n.unit).any(|b| same((a.value - b.value).abs(), n.value))
                });
                if nearby.iter().any(|k| same(k.value, n.value)) || (ranged && claim_before == "by") || change {
                    break;
                }
                // The start of a change is not what a claim's end value is compared with
                // (`dropped to 15 minutes` against `from 41 to 12 minutes`: 12).
                if word_before(&pws, m.span.start) == "from" && claim_before != "from" {
                    continue;
                }
                // What a percentage or an amount counts must be shared by two words (`cut
                // medication errors by 50%` against `reduced medication errors by 43%`), not one
                // (`EUR 600,000 of new client work` is not `EUR 310,000 for a client`).
                let theirs = stems_near(&p.text, &pws, m.span.start, unit, p.body);
                let shared = near.iter().filter(|a| theirs.iter().any(|b| typed::same_word(a, b))).count();
                let money_or_share = matches!(unit, Some("%" | "$" | "£" | "€" | "¥" | "₹"));
                if shared >= if money_or_share { 2 } else { 1 } {
                    // Bound against bound (`under five` for `under three`) is a value copied
                    // wrong; a bound against a value is judged by what it allows.
                    let hedge = if hedge_of(&p.text, &pws, m.span.start) == hedge { Hedge::Exact } else { hedge };
                    if !hedge.contradicted_by(n.value, m.value) {
                        return FactStatus::Unsupported;
                    }
                    return FactStatus::Contradicted { evidence: evidence(p, m.span.start), found: number_text(p, m) };
                }
            }
        }
    }
    FactStatus::Unsupported
}

/// For a number after `to` in a change (`from four to nine engineers`), the value it changed
/// from.
fn changed_from(text: &str, ws: &[text::Word<'_>], at: usize) -> Option<f64> {
    let i = text::word_at(ws, at)?;
    let lo = i.saturating_sub(8);
    let from = (lo..i).rev().find(|&k| fold(ws[k].text) == "from")?;
    let nums = text::numbers(text, &ws[from..i]);
    nums.first().filter(|m| !m.year).map(|m| m.value)
}

fn number_text(p: &Passage, m: &text::Number) -> String {
    let mut s = p.text[m.span.clone()].to_owned();
    if let Some(c) =
        p.text[..m.span.start].chars().next_back().filter(|c| m.unit.as_deref() == Some(c.encode_utf8(&mut [0; 4])))
    {
        s.insert(0, c);
    }
    if p.text[m.span.end..].starts_with('%') {
        s.push('%');
    } else if let Some(u) = &m.unit {
        // The unit word, and the name before it that the unit passed over (`1,300 GitHub
        // stars`).
        let rest = &p.text[m.span.end..];
        let after = text::words(rest);
        let upto = after.iter().take(2).position(|w| text::unit_of(w.text).as_ref() == Some(u));
        if let Some(last) = upto.filter(|&i| i == 0 || after[0].text.starts_with(char::is_uppercase)) {
            s.push_str(&rest[..after[last].span.end]);
        }
    }
    s
}

fn judge_date(f: &FactText, claim: &InClaim<'_>) -> FactStatus {
    let related = claim.related;
    let years: Vec<f64> = f.numbers.iter().map(|n| n.value).collect();
    // The month the claim gives each year (`in June 2021`), if any. A passage with the same
    // years in the claim's months supports it first; else one that gives a year another month
    // contradicts it (found in review: `Joined Lanternfish Bank in June 2021` was supported
    // by `March 2021`); else the years alone support it.
    let months: Vec<Option<u8>> =
        f.numbers.iter().map(|n| text::month_before(claim.text, n.span.start - claim.base)).collect();
    let mut other_month: Option<FactStatus> = None;
    let mut years_only: Option<FactStatus> = None;
    for Related { passage: p, .. } in related.iter().filter(|r| r.may_support) {
        // The year in the passage's own text before one in its headings (which carry the
        // entry's dates, without months).
        let found: Vec<&text::Number> = years
            .iter()
            .filter_map(|y| {
                let mut same = p.numbers.iter().filter(|m| m.year && m.value == *y);
                let first = same.clone().next();
                same.find(|m| m.span.start >= p.body).or(first)
            })
            .collect();
        if found.len() != years.len() {
            continue;
        }
        if months.iter().all(Option::is_none) {
            return FactStatus::Supported(evidence(p, found[0].span.start));
        }
        let theirs: Vec<Option<u8>> = found.iter().map(|m| text::month_before(&p.text, m.span.start)).collect();
        if theirs.iter().zip(&months).all(|(t, c)| c.is_none() || t == c) {
            return FactStatus::Supported(evidence(p, found[0].span.start));
        }
        if let Some((m, _)) =
            found.iter().zip(theirs.iter().zip(&months)).find(|(_, (t, c))| c.is_some() && t.is_some() && t != c)
        {
            let start = text::month_word_before(&p.text, m.span.start).map_or(m.span.start, |(s, _)| s);
            other_month.get_or_insert_with(|| FactStatus::Contradicted {
                evidence: evidence(p, start),
                found: p.text[start..m.span.end].to_owned(),
            });
        } else {
            years_only.get_or_insert_with(|| FactStatus::Supported(evidence(p, found[0].span.start)));
        }
    }
    if let Some(status) = other_month.or(years_only) {
        return status;
    }
    // A year that differs from an entry's dates is contradicted by the typed assertions
    // ([`typed`]), which know which entry the claim names and what its dates are; a passage
    // that merely shares words with the claim is not that entry (a governor role at the same
    // school, another certificate of the same issuer).
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

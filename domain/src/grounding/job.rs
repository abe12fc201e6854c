//! A job posting's requirements, and which of them the person's files cover.
//!
//! Requirements are the list items (and sentences) under the posting's own requirement
//! headings: "Requirements", "What you bring", "Must have" are must-haves; "Nice to have",
//! "Bonus", "Preferred" are nice-to-haves; an item that says "a plus" or "preferred" is a
//! nice-to-have wherever it stands. Sections about the company, the role's duties or benefits
//! are not requirements. A posting without such headings has its list items read as
//! must-haves. Each requirement's key terms (names, and content words that are not generic
//! requirement wording) are looked up in the files: all found is `covered`, some `partial`,
//! none `missing`. No score is computed.

use std::collections::{BTreeMap, HashMap};

use super::claims::{ClaimText, FactKind, facts, split};
use super::evidence::{GraphEvidence, Origin, Passage, RECORDS_PER_QUERY, context_passages};
use super::text::{fold, is_content, stem, words};
use super::{Evidence, FactStatus, Sources};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    Must,
    Nice,
}

impl Level {
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Must => "must_have",
            Level::Nice => "nice_to_have",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Coverage {
    Covered,
    Partial,
    Missing,
}

impl Coverage {
    pub const ALL: [Coverage; 3] = [Coverage::Covered, Coverage::Partial, Coverage::Missing];
    pub fn as_str(self) -> &'static str {
        match self {
            Coverage::Covered => "covered",
            Coverage::Partial => "partial",
            Coverage::Missing => "missing",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Requirement {
    pub text: String,
    pub line: usize,
    pub level: Level,
    pub coverage: Coverage,
    pub found: Vec<String>,
    pub missing: Vec<String>,
    /// Where the found terms are, at most one entry per record or Career Context section.
    pub evidence: Vec<Evidence>,
}

/// A posting term the files support that the packet does not mention, with where it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Keyword {
    pub term: String,
    pub evidence: Evidence,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobMatch {
    pub requirements: Vec<Requirement>,
    pub keywords: Vec<Keyword>,
}

/// Words of requirement phrasing that say nothing about the person.
const GENERIC: &[&str] = &[
    // Wording of requirements written in prose (found in review: "We need deep expertise in
    // Spark ... is essential" left `need` and `essential` "not found").
    "need",
    "needs",
    "needed",
    "essential",
    "expected",
    "know",
    "fluent",
    "fluency",
    "experience",
    "experienced",
    "strong",
    "solid",
    "knowledge",
    "ability",
    "able",
    "skills",
    "skill",
    "understanding",
    "familiarity",
    "familiar",
    "proficiency",
    "proficient",
    "proven",
    "track",
    "record",
    "excellent",
    "good",
    "great",
    "deep",
    "hands",
    "plus",
    "bonus",
    "nice",
    "must",
    "required",
    "requirement",
    "requirements",
    "preferred",
    "ideally",
    "ideal",
    "candidate",
    "you",
    "your",
    "you've",
    "you're",
    "we",
    "our",
    "least",
    "minimum",
    "demonstrated",
    "comfortable",
    "background",
    "professional",
    "related",
    "relevant",
    "similar",
    "equivalent",
    "degree",
    "field",
    "including",
    "like",
    "well",
    "least",
    "someone",
    "want",
    "love",
    "passion",
    "passionate",
    "building",
    "build",
    "environment",
    "environments",
    "role",
    "company",
    "join",
    "looking",
    "expertise",
    "excellent",
    "effective",
    "effectively",
    "clear",
    "production",
    "large",
    "scale",
    "modern",
    "tools",
    "tooling",
    "technologies",
    "technology",
    "concepts",
    "practices",
    "systems",
    "system",
    "years",
    "year",
    "etc",
    "have",
    "has",
    "had",
    "would",
    "will",
    "should",
    "could",
    "worked",
    "working",
];

fn heading_level(line: &str) -> Option<Option<Level>> {
    let t = line.trim().trim_start_matches('#').trim().trim_matches('*').trim_end_matches(':').trim().to_lowercase();
    let is_heading = line.trim_start().starts_with('#')
        || (line.trim_end().ends_with(':') && t.split_whitespace().count() <= 8)
        || (line.trim().starts_with("**") && line.trim().ends_with("**"));
    if !is_heading || t.is_empty() {
        return None;
    }
    let nice = ["nice to have", "nice-to-have", "bonus", "preferred", "a plus", "desirable", "would be great", "extra"];
    let must = [
        "requirement",
        "must have",
        "must-have",
        "what you bring",
        "what you'll bring",
        "qualifications",
        "you have",
        "what we're looking for",
        "what we are looking for",
        "who you are",
        "required",
        "you should have",
        "skills",
        "about you",
        "minimum",
        // Lead-ins found in review, each of which left a posting with no requirement found:
        // "We are looking for:", "You will need:", "We need:", "We want:", "Ideal candidate:".
        // Whole phrases: "need" or "expect" alone also headed "What you can expect from us:"
        // (benefits) and "Everything you need to know:" (found in a second review).
        "looking for",
        "you will need",
        "you'll need",
        "we need",
        "we want",
        "ideal candidate",
        "what we expect",
        "we expect",
    ];
    if nice.iter().any(|k| t.contains(k)) {
        Some(Some(Level::Nice))
    } else if must.iter().any(|k| t.contains(k)) {
        Some(Some(Level::Must))
    } else {
        Some(None)
    }
}

fn says_nice(text: &str) -> bool {
    let t = text.to_lowercase();
    ["nice to have", "nice-to-have", "a plus", "is a bonus", "bonus:", "preferred", "ideally", "desirable"]
        .iter()
        .any(|k| t.contains(k))
}

/// The requirements of a posting: (text span, line, level).
pub fn requirements(posting: &str) -> Vec<(std::ops::Range<usize>, usize, Level)> {
    // The level of each line: the level of the heading it sits under (None: not requirements).
    let mut levels: Vec<Option<Option<Level>>> = Vec::new();
    let mut current: Option<Option<Level>> = None;
    let mut any_heading = false;
    for line in posting.split('\n') {
        if let Some(h) = heading_level(line) {
            any_heading |= h.is_some();
            current = Some(h);
            levels.push(None);
        } else {
            levels.push(current);
        }
    }
    let mut out = Vec::new();
    for c in split(posting) {
        let c = ClaimText { span: before_heading(posting, c.span), line: c.line };
        let text = &posting[c.span.clone()];
        let lvl = levels.get(c.line - 1).copied().flatten();
        let is_item = matches!(text.trim_start().chars().next(), Some('-' | '*' | '+' | '•'))
            || text.trim_start().starts_with(|ch: char| ch.is_ascii_digit()) && text.contains(". ");
        let level = match lvl {
            Some(Some(l)) => l,
            Some(None) => continue,
            None if !any_heading && is_item => Level::Must,
            None => continue,
        };
        if heading_level(text).is_some() {
            continue;
        }
        let level = if says_nice(text) { Level::Nice } else { level };
        out.push((c.span, c.line, level));
    }
    if out.is_empty() {
        // A posting written in prose (found in review: "You will have at least 12 years of
        // experience ... We need deep expertise in Spark and Databricks" gave "No requirements
        // were found"): its sentences that ask for something are its requirements.
        for c in split(posting) {
            let c = ClaimText { span: before_heading(posting, c.span), line: c.line };
            let text = &posting[c.span.clone()];
            if heading_level(text).is_none() && asks_for_something(text) {
                let level = if says_nice(text) { Level::Nice } else { Level::Must };
                out.push((c.span, c.line, level));
            }
        }
    }
    out
}

/// `span` up to the first of its lines after the first that is a heading. The splitter reads a
/// line without a bullet as the item above it going on, so "- Rust" and "Nice to have:" were
/// one item: dropped as a heading, or, when longer, given the heading's level (found in review:
/// "12+ years of experience in platform engineering" became nice to have).
fn before_heading(posting: &str, span: std::ops::Range<usize>) -> std::ops::Range<usize> {
    let mut end = span.start;
    for (i, line) in posting[span.clone()].split_inclusive('\n').enumerate() {
        if i > 0 && heading_level(line).is_some() {
            return span.start..span.start + posting[span.start..end].trim_end().len();
        }
        end += line.len();
    }
    span
}

/// Whether a sentence of a posting in prose asks something of the candidate: it speaks to
/// them, or says what is needed, required or a plus. A sentence about the company, its
/// customers or its benefits does not (found in review: "Harborview has 20 years of
/// experience", "annual bonus, 360-degree reviews", "Salary expected to be competitive" and
/// "No travel is required" were read as requirements).
fn asks_for_something(text: &str) -> bool {
    let t = format!(" {} ", text.to_lowercase());
    let asks = [
        " you have",
        " you will have",
        " you'll have",
        " you've ",
        " you should",
        " you must",
        " you bring",
        " you will bring",
        " you'll bring",
        " you need",
        " you will need",
        " you'll need",
        " you know",
        " you are ",
        " you're ",
        " your experience",
        " candidate",
        " we need ",
        " needs a ",
        " looking for ",
        " must ",
        " is required",
        " are required",
        " is essential",
        " are essential",
        " is expected",
        " are expected",
        " a plus",
        " nice to have",
        " ideally with",
        " ideally you",
    ]
    .iter()
    .any(|k| t.contains(k));
    let about_us = [" salary", " benefit", " we offer", " bonus", " perks", " holiday", " vacation", " pension"]
        .iter()
        .any(|k| t.contains(k));
    asks && !about_us && !t.trim_start().starts_with("no ")
}

/// The key terms of a requirement: names first (as written), then content words.
/// Terms joined by `or` or `/` (`Bazel or Buck`, `Rust/Go`) form one group: a requirement asks
/// for one of them. Returns (group, as written, folded words), in posting order.
fn key_terms(posting: &str, span: std::ops::Range<usize>, line: usize) -> Vec<(usize, String, Vec<String>)> {
    let claim = ClaimText { span: span.clone(), line };
    // (start, end, as written, folded words), sorted by position at the end.
    let mut terms: Vec<(usize, usize, String, Vec<String>)> = Vec::new();
    let mut covered: Vec<std::ops::Range<usize>> = Vec::new();
    for f in facts(posting, &claim) {
        if f.kind == FactKind::Name {
            let skip = usize::from(f.optional_first && f.name.len() > 1);
            let name = f.name[skip..].to_vec();
            let as_written: Vec<&str> = words(&posting[f.span.clone()]).iter().map(|w| w.text).collect();
            let shown = as_written.get(skip..).map_or_else(|| name.join(" "), |w| w.join(" "));
            if name.len() == 1 && GENERIC.contains(&name[0].as_str()) {
                continue;
            }
            covered.push(f.span.clone());
            terms.push((f.span.start, f.span.end, shown, name));
        }
    }
    // Looked up, not scanned, for each word: a requirement of many words was quadratic (found
    // in review: 96 KB took 33 s). A word is covered when a name's span holds it: the spans by
    // start, with the furthest end reached so far.
    covered.sort_by_key(|r| r.start);
    let reach: Vec<usize> = covered
        .iter()
        .scan(0, |m, r| {
            *m = r.end.max(*m);
            Some(*m)
        })
        .collect();
    let is_covered = |at: usize| {
        let i = covered.partition_point(|r| r.start <= at);
        i > 0 && reach[i - 1] > at
    };
    let mut single_stems: std::collections::HashSet<String> =
        terms.iter().filter(|t| t.3.len() == 1).map(|t| stem(&t.3[0])).collect();
    for w in words(&posting[span.clone()]) {
        let abs = span.start + w.span.start;
        if is_covered(abs) || !(is_content(w.text) || is_short_name(w.text)) {
            continue;
        }
        let f = fold(w.text);
        if GENERIC.contains(&f.as_str()) || !single_stems.insert(stem(&f)) {
            continue;
        }
        terms.push((abs, span.start + w.span.end, w.text.to_owned(), vec![f]));
    }
    terms.sort_by_key(|t| t.0);
    let mut out = Vec::with_capacity(terms.len());
    let mut group = 0;
    let mut prev_end: Option<usize> = None;
    for (start, end, shown, t) in terms {
        if let Some(pe) = prev_end {
            let between = posting.get(pe..start).unwrap_or("").trim().to_lowercase();
            if !matches!(between.as_str(), "or" | "/" | ", or" | "or a" | "or an") {
                group += 1;
            }
        }
        prev_end = Some(end);
        out.push((group, shown, t));
    }
    out
}

/// A name of one or two letters written with a capital (Go, R, AI, ML, QA): too short to be a
/// content word, but what a requirement asks for (found in review: "- Go" had no term, so it
/// was missing though the files say "Go (8 years)").
fn is_short_name(word: &str) -> bool {
    /// Words of one or two letters that start a sentence with a capital.
    const SHORT_WORDS: [&str; 26] = [
        "a", "i", "an", "am", "as", "at", "be", "by", "do", "he", "if", "in", "is", "it", "me", "my", "no", "of", "ok",
        "on", "or", "so", "to", "up", "us", "we",
    ];
    (1..=2).contains(&word.len())
        && word.chars().all(|c| c.is_ascii_alphabetic())
        && word.starts_with(|c: char| c.is_ascii_uppercase())
        && !SHORT_WORDS.contains(&word.to_ascii_lowercase().as_str())
}

/// Where a term is found: the first passage of the Career Context and the best record that
/// hold it (by stem for single words, by exact word sequence for names), so that a covered
/// requirement cites a record id whenever the VitaeGraph has one.
/// Where each stem is first written in `p`'s text.
fn first_stems(p: &Passage) -> HashMap<String, usize> {
    let mut first = HashMap::new();
    for w in words(&p.text) {
        first.entry(stem(w.text)).or_insert(w.span.start);
    }
    first
}

/// `context_first`: [`first_stems`] of each Career Context passage, made once per posting (a
/// scan of every passage for every term took 170 µs a term; found in review).
fn find_term(
    term: &[String],
    context: &[Passage],
    context_first: &[HashMap<String, usize>],
    graph: &mut Option<GraphEvidence<'_>>,
) -> Vec<Evidence> {
    let single = term.len() == 1;
    let s = if single { stem(&term[0]) } else { String::new() };
    let hit = |p: &Passage| -> Option<usize> {
        if single { words(&p.text).iter().find(|w| stem(w.text) == s).map(|w| w.span.start) } else { p.find_name(term) }
    };
    let mut found = Vec::new();
    let in_context = if single {
        context.iter().zip(context_first).find_map(|(p, first)| first.get(&s).map(|&at| (p, at)))
    } else {
        context.iter().find_map(|p| hit(p).map(|at| (p, at)))
    };
    if let Some((p, at)) = in_context {
        found.push(super::evidence_at(p, at));
    }
    if let Some(g) = graph.as_mut() {
        for id in g.search(&term.join(" "), RECORDS_PER_QUERY) {
            if let Some(p) = g.get(&id)
                && let Some(at) = hit(p)
            {
                found.push(super::evidence_at(p, at));
                break;
            }
        }
    }
    found
}

/// The coverage of each requirement of `posting`, and the supported keywords that `packet` (the
/// text the assistant already has) does not mention.
pub fn match_job(posting: &str, sources: Sources<'_>, packet: &str) -> JobMatch {
    // What the person wants covers no requirement (see `Passage::goal`).
    let context: Vec<Passage> = sources
        .context
        .map(|(file, text)| context_passages(file, text))
        .unwrap_or_default()
        .into_iter()
        .filter(|p| !p.goal)
        .collect();
    let context_first: Vec<HashMap<String, usize>> = context.iter().map(first_stems).collect();
    let mut graph = sources.graph.map(GraphEvidence::new);
    let packet_stems: std::collections::HashSet<String> = words(packet).iter().map(|w| stem(w.text)).collect();
    let packet_words: Vec<String> = words(packet).iter().map(|w| fold(w.text)).collect();
    let mut keywords: BTreeMap<String, Keyword> = BTreeMap::new();
    let mut reqs = Vec::new();
    for (span, line, level) in requirements(posting) {
        let mut found = Vec::new();
        let mut missing: Vec<(usize, String)> = Vec::new();
        let mut found_groups: Vec<usize> = Vec::new();
        let mut evidence: Vec<Evidence> = Vec::new();
        for (group, shown, term) in key_terms(posting, span.clone(), line) {
            let places = find_term(&term, &context, &context_first, &mut graph);
            match places.first().cloned() {
                Some(e) => {
                    let in_packet = if term.len() == 1 {
                        packet_stems.contains(&stem(&term[0]))
                    } else {
                        packet_words.windows(term.len()).any(|w| w == term.as_slice())
                    };
                    if !in_packet {
                        keywords.entry(shown.clone()).or_insert(Keyword { term: shown.clone(), evidence: e.clone() });
                    }
                    let key = |o: &Origin| match o {
                        Origin::Context { section, .. } => section.clone(),
                        Origin::Record { id, .. } => id.clone(),
                    };
                    for e in places {
                        if !evidence.iter().any(|x| key(&x.origin) == key(&e.origin)) {
                            evidence.push(e);
                        }
                    }
                    found.push(shown);
                    found_groups.push(group);
                }
                None => missing.push((group, shown)),
            }
        }
        // An alternative that is found covers its group: only wholly missing groups count.
        let found_groups: std::collections::HashSet<usize> = found_groups.into_iter().collect();
        let missing: Vec<String> =
            missing.into_iter().filter(|(g, _)| !found_groups.contains(g)).map(|(_, s)| s).collect();
        let coverage = match (found.len(), missing.len()) {
            (0, _) => Coverage::Missing,
            (_, 0) => Coverage::Covered,
            _ => Coverage::Partial,
        };
        reqs.push(Requirement {
            text: posting[span].trim().to_owned(),
            line,
            level,
            coverage,
            found,
            missing,
            evidence,
        });
    }
    for (i, contradicted) in years_contradicted(&reqs, sources) {
        let req = &mut reqs[i];
        if req.coverage == Coverage::Covered {
            req.coverage = Coverage::Partial;
        }
        req.missing.extend(contradicted);
    }
    JobMatch { requirements: reqs, keywords: keywords.into_values().collect() }
}

/// The years that requirements ask for and the files contradict, as `check` finds them, by
/// requirement: "12+ years of experience" against a Career Context that says eight was covered
/// by its words alone (found in review), and the report says to use covered requirements as
/// strengths. Only years: a requirement's other numbers (team sizes, scale) describe the role,
/// not the person.
fn years_contradicted(reqs: &[Requirement], sources: Sources<'_>) -> Vec<(usize, Vec<String>)> {
    let is_years = |t: &str| {
        let t = t.to_lowercase();
        t.contains("year") || t.contains("yr")
    };
    let asked: Vec<usize> = (0..reqs.len()).filter(|&i| is_years(&reqs[i].text)).collect();
    if asked.is_empty() {
        return Vec::new();
    }
    // One draft, one requirement a line, checked once.
    let draft: String = asked.iter().map(|&i| format!("- {}\n", reqs[i].text.replace(['\n', '\r'], " "))).collect();
    let mut out: Vec<(usize, Vec<String>)> = Vec::new();
    for claim in super::check(&draft, sources) {
        let Some(&i) = asked.get(claim.line - 1) else { continue };
        let contradicted: Vec<String> = claim
            .facts
            .iter()
            .filter_map(|f| match &f.status {
                FactStatus::Contradicted { found, .. } if is_years(found) => {
                    Some(format!("{} years (the files say {found})", f.text))
                }
                _ => None,
            })
            .collect();
        if !contradicted.is_empty() {
            out.push((i, contradicted));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const POSTING: &str = "\
# Staff Platform Engineer

About us: we ship parcels.

## What you'll do
- Own the build and CI strategy.

## Requirements
- Deep experience with Bazel or Buck and remote caching
- Kubernetes in production
- Experience with Kafka and Flink

## Nice to have
- Rust
- Published work on test reliability

## Benefits
- Remote-first
";

    #[test]
    fn requirements_follow_the_posting_structure() {
        let r: Vec<(&str, usize, Level)> =
            requirements(POSTING).into_iter().map(|(s, l, lv)| (POSTING[s].trim(), l, lv)).collect();
        assert_eq!(
            r,
            [
                ("- Deep experience with Bazel or Buck and remote caching", 9, Level::Must),
                ("- Kubernetes in production", 10, Level::Must),
                ("- Experience with Kafka and Flink", 11, Level::Must),
                ("- Rust", 14, Level::Nice),
                ("- Published work on test reliability", 15, Level::Nice),
            ]
        );
    }

    /// Plain-text postings that lead into their list with a sentence (found in review: none of
    /// these found a requirement).
    #[test]
    fn a_lead_in_line_heads_the_requirements() {
        for lead in
            ["We are looking for:", "You will need:", "We need:", "We want:", "Ideal candidate:", "What we expect:"]
        {
            let posting = format!("Platform team, Lisbon.\n\n{lead}\n\n- Bazel\n- COBOL\n");
            let found: Vec<Level> = requirements(&posting).into_iter().map(|r| r.2).collect();
            assert_eq!(found, [Level::Must, Level::Must], "{lead}");
        }
        // Benefits and practicalities are not requirements.
        for lead in ["What you can expect from us:", "Everything you need to know:"] {
            let posting = format!("## Requirements\n- Bazel\n\n{lead}\n\n- Equity\n- A conference budget\n");
            let found: Vec<String> = requirements(&posting).into_iter().map(|r| posting[r.0].to_owned()).collect();
            assert_eq!(found, ["- Bazel"], "{lead}");
        }
    }

    /// A posting in prose (found in review: "No requirements were found"): the sentences
    /// that ask for something, a plus or nice to have ones as nice-to-haves.
    #[test]
    fn a_posting_in_prose_has_its_asking_sentences_read() {
        let posting = "# Head of Data Platform - Calloway\n\nCalloway is hiring a Head of Data Platform to lead 4 teams. \
            You will have at least 12 years of experience building data platforms. We need deep expertise in Spark, \
            and experience with Airflow is essential. A PhD is a plus.\n\nNice to have: Vue.js.\n";
        let found: Vec<(String, Level)> =
            requirements(posting).into_iter().map(|(s, _, l)| (posting[s].trim().to_owned(), l)).collect();
        assert_eq!(
            found,
            [
                ("You will have at least 12 years of experience building data platforms.".to_owned(), Level::Must),
                ("We need deep expertise in Spark, and experience with Airflow is essential.".to_owned(), Level::Must),
                ("A PhD is a plus.".to_owned(), Level::Nice),
                ("Nice to have: Vue.js.".to_owned(), Level::Nice),
            ]
        );
        // Sentences about the company, its customers, its duties and its benefits are not
        // requirements (found in review).
        let company = "# Staff Platform Engineer - Harborview\n\nHarborview has 20 years of experience moving freight. \
            Our customers experience next-day delivery. We are ideally located in Lisbon. You will own our CI strategy. \
            You should know Bazel well. Experience with Rust is a plus. We offer an annual bonus and a 360-degree \
            feedback culture. No travel is required. Salary expected to be competitive.\n";
        let found: Vec<&str> = requirements(company).into_iter().map(|(s, _, _)| company[s].trim()).collect();
        assert_eq!(found, ["You should know Bazel well.", "Experience with Rust is a plus."]);
        let terms: Vec<String> =
            key_terms(posting, requirements(posting)[1].0.clone(), 3).into_iter().map(|t| t.1).collect();
        assert!(!terms.iter().any(|t| ["need", "essential", "expertise"].contains(&t.as_str())), "{terms:?}");
    }

    #[test]
    fn coverage_against_the_example_person() {
        let s = super::super::tests::example_searcher();
        let context = include_str!("../../../examples/career-context.md");
        let m = match_job(
            POSTING,
            Sources { context: Some(("career-context.md", context)), graph: Some(&s), year_now: None },
            "Rust",
        );
        let cov: Vec<(&str, Coverage)> = m.requirements.iter().map(|r| (r.text.as_str(), r.coverage)).collect();
        // `Bazel or Buck`: one alternative found covers the requirement.
        assert_eq!(cov[0].1, Coverage::Covered, "{m:#?}");
        assert_eq!(cov[1].1, Coverage::Covered);
        assert_eq!(cov[2].1, Coverage::Missing, "{:?}", m.requirements[2]);
        assert_eq!(cov[3].1, Coverage::Covered);
        assert!(m.keywords.iter().any(|k| k.term == "Bazel"), "{:?}", m.keywords);
        assert!(!m.keywords.iter().any(|k| k.term == "Rust"), "the packet mentions Rust");
    }

    /// Found by a newcomer's review on a short posting against the example person.
    #[test]
    fn a_heading_under_an_item_short_names_and_contradicted_years() {
        let posting = "Requirements:\n- Rust\nNice to have:\n- 12+ years of experience in platform engineering\n\
            Requirements:\n- Go\n- 5+ years of platform engineering\n";
        // A heading line right under an item ends the item: "- Rust" is kept, and the item under
        // "Nice to have:" is nice to have by its heading, not by the heading glued to it.
        let found: Vec<(&str, Level)> =
            requirements(posting).into_iter().map(|(s, _, l)| (posting[s].trim(), l)).collect();
        assert_eq!(
            found,
            [
                ("- Rust", Level::Must),
                ("- 12+ years of experience in platform engineering", Level::Nice),
                ("- Go", Level::Must),
                ("- 5+ years of platform engineering", Level::Must),
            ]
        );
        let s = super::super::tests::example_searcher();
        let context = include_str!("../../../examples/career-context.md");
        let m = match_job(
            posting,
            Sources { context: Some(("career-context.md", context)), graph: Some(&s), year_now: None },
            "",
        );
        let cov: Vec<(Coverage, &[String])> =
            m.requirements.iter().map(|r| (r.coverage, r.missing.as_slice())).collect();
        // "Go (8 years)" is in the files: a two-letter name is a term.
        assert_eq!(cov[2], (Coverage::Covered, &[][..]), "{:?}", m.requirements[2]);
        // The files say eight years: twelve is not covered; five is.
        assert_eq!(cov[1].0, Coverage::Partial, "{:?}", m.requirements[1]);
        assert_eq!(cov[1].1, ["12 years (the files say 8 years)"]);
        assert_eq!(cov[3].0, Coverage::Covered, "{:?}", m.requirements[3]);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 300, ..Default::default() })]
        /// Requirement extraction and coverage never panic, whatever the posting.
        #[test]
        fn never_panics_on_any_posting(posting in "(?s)[ -~\n\t–—’é%#*•:-]{0,300}|\\PC{0,200}") {
            let m = match_job(&posting, Sources { context: Some(("c.md", &posting)), graph: None, year_now: None }, &posting);
            for r in &m.requirements {
                proptest::prop_assert!(r.line >= 1);
            }
        }
    }
}

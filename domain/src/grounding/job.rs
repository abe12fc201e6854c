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
use super::levels::{self, Met};
use super::text::{Word, fold, is_content, is_number, root, stem, words};
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
    /// What was compared, for a person or a model to check: the alternatives found, the levels
    /// asked against those the files hold, with where ("asks 5+ years; files: 4 years
    /// (cc.md:12)"), and the common words left out.
    pub explanation: String,
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

/// Common words of job ads, folded and sorted (binary-searched): requirement wording (`need`,
/// `essential`, `experience`, `strong`), generic nouns (`team`, `people`, `work`, `company`,
/// `system`), verbs (`build`, `deliver`, `design`) and adjectives (`high`, `fast`, `small`,
/// `quality`). A word in this list says nothing a person's files could show: it is never a
/// term, so a requirement is not half covered because the files say `team` (found in review:
/// "Small device design" was partial for a nurse). What is left is a requirement's concepts:
/// names, and content words outside this list (`nursing`, `litigation`, `PCB`, `Kubernetes`).
/// Kept to vague words: a domain noun (`care`, `audit`, `contract`, `management`) stays out.
const COMMON: &[&str] = &[
    "abilities",
    "ability",
    "able",
    "above",
    "accredited",
    "achieve",
    "active",
    "additional",
    "advanced",
    "advantage",
    "advantageous",
    "alike",
    "also",
    "amount",
    "anyone",
    "applicant",
    "applicants",
    "application",
    "applications",
    "apply",
    "approach",
    "appropriate",
    "area",
    "areas",
    "ask",
    "aspect",
    "aspects",
    "attitude",
    "background",
    "below",
    "beneficial",
    "best",
    "better",
    "big",
    "bonus",
    "bring",
    "broad",
    "build",
    "building",
    "builds",
    "built",
    "business",
    "candidate",
    "candidates",
    "capable",
    "career",
    "challenge",
    "challenges",
    "clear",
    "colleague",
    "colleagues",
    "come",
    "comfortable",
    "committed",
    "companies",
    "company",
    "complex",
    "concept",
    "concepts",
    "confident",
    "considerable",
    "context",
    "contexts",
    "contribute",
    "could",
    "create",
    "culture",
    "curious",
    "current",
    "daily",
    "day",
    "days",
    "deep",
    "degree",
    "deliver",
    "delivering",
    "demonstrable",
    "demonstrated",
    "design",
    "designs",
    "desirable",
    "desired",
    "detail",
    "develop",
    "developing",
    "device",
    "devices",
    "different",
    "diverse",
    "diversity",
    "do",
    "doing",
    "dozens",
    "drive",
    "driven",
    "dynamic",
    "eager",
    "easy",
    "effective",
    "effectively",
    "efficient",
    "employee",
    "employees",
    "employer",
    "employers",
    "enjoy",
    "ensure",
    "enthusiastic",
    "entire",
    "environment",
    "environments",
    "equal",
    "equivalent",
    "essential",
    "etc",
    "everyone",
    "evidence",
    "example",
    "examples",
    "excellent",
    "exceptional",
    "existing",
    "expected",
    "experience",
    "experienced",
    "experiences",
    "expertise",
    "extensive",
    "familiar",
    "familiarity",
    "fast",
    "field",
    "fields",
    "first",
    "flexible",
    "fluency",
    "fluent",
    "focus",
    "friendly",
    "full",
    "general",
    "get",
    "give",
    "global",
    "goal",
    "goals",
    "good",
    "great",
    "group",
    "groups",
    "grow",
    "growth",
    "had",
    "hands",
    "happy",
    "hard",
    "has",
    "have",
    "having",
    "help",
    "helpful",
    "high",
    "higher",
    "highly",
    "hold",
    "holding",
    "hundreds",
    "ideal",
    "ideally",
    "impact",
    "important",
    "improve",
    "improvement",
    "including",
    "independent",
    "industry",
    "institution",
    "interest",
    "involved",
    "involving",
    "item",
    "items",
    "job",
    "jobs",
    "join",
    "keen",
    "keep",
    "key",
    "kind",
    "kinds",
    "know",
    "knowledge",
    "knows",
    "large",
    "latest",
    "lead",
    "learn",
    "least",
    "level",
    "levels",
    "life",
    "like",
    "live",
    "local",
    "long",
    "looking",
    "lot",
    "lots",
    "love",
    "low",
    "main",
    "major",
    "make",
    "making",
    "many",
    "meaning",
    "millions",
    "minimum",
    "mission",
    "modern",
    "motivated",
    "multiple",
    "must",
    "need",
    "needed",
    "needs",
    "new",
    "next",
    "nice",
    "number",
    "numbers",
    "open",
    "opportunities",
    "opportunity",
    "organisation",
    "organization",
    "our",
    "outstanding",
    "overall",
    "own",
    "part",
    "passion",
    "passionate",
    "people",
    "person",
    "piece",
    "pieces",
    "place",
    "plus",
    "position",
    "positive",
    "possible",
    "post-qualification",
    "post-qualified",
    "post-registration",
    "pqe",
    "practical",
    "practices",
    "preferably",
    "preferred",
    "previous",
    "proactive",
    "problem",
    "problems",
    "process",
    "processes",
    "product",
    "production",
    "products",
    "professional",
    "proficiency",
    "proficient",
    "proven",
    "provide",
    "quality",
    "quick",
    "quickly",
    "range",
    "ready",
    "real",
    "recent",
    "recently",
    "record",
    "reduce",
    "related",
    "relevant",
    "require",
    "required",
    "requirement",
    "requirements",
    "result",
    "results",
    "right",
    "robust",
    "role",
    "roles",
    "run",
    "running",
    "scale",
    "see",
    "seek",
    "seeking",
    "self",
    "sense",
    "serve",
    "setting",
    "settings",
    "several",
    "should",
    "side",
    "significant",
    "similar",
    "simple",
    "skill",
    "skills",
    "small",
    "smart",
    "solid",
    "solution",
    "solutions",
    "somebody",
    "someone",
    "speak",
    "specific",
    "spoken",
    "standard",
    "strong",
    "substantial",
    "success",
    "successful",
    "suitable",
    "superb",
    "support",
    "system",
    "systems",
    "take",
    "task",
    "tasks",
    "team",
    "teams",
    "technologies",
    "technology",
    "tens",
    "thing",
    "things",
    "thorough",
    "thousands",
    "thrive",
    "time",
    "times",
    "tool",
    "tooling",
    "tools",
    "top",
    "track",
    "true",
    "type",
    "types",
    "understand",
    "understanding",
    "unit",
    "units",
    "university",
    "use",
    "useful",
    "using",
    "variety",
    "various",
    "volume",
    "volumes",
    "want",
    "wanted",
    "way",
    "ways",
    "we",
    "welcome",
    "well",
    "whole",
    "wide",
    "will",
    "willing",
    "willingness",
    "work",
    "worked",
    "working",
    "workplace",
    "world",
    "would",
    "written",
    "year",
    "years",
    "you",
    "you'd",
    "you'll",
    "you're",
    "you've",
    "your",
];

/// Whether a folded word is one of the [`COMMON`] words of job ads (its singular, or every part
/// of a hyphenated word: `equal-opportunity`, `team-player`).
fn is_common(folded: &str) -> bool {
    let listed = |w: &str| COMMON.binary_search(&w).is_ok();
    // `designing`, `designed`, `builds`, `managing` (`manag` + `e`): the listed word's
    // inflections, and no other word that merely starts like it (`experiment`).
    let one = |w: &str| {
        listed(w)
            || ["'s", "s", "es", "ed", "d", "ing", "ly"].iter().any(|suffix| {
                w.strip_suffix(suffix).is_some_and(|s| s.len() >= 3 && (listed(s) || listed(&format!("{s}e"))))
            })
    };
    // `hands-on`, `in-depth`: a part that is a stop word says nothing either.
    one(folded) || (folded.contains('-') && folded.split('-').all(|p| p.is_empty() || one(p) || !is_content(p)))
}

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
    // Words alone, so that `bonus:` and `(preferred)` read like `a bonus` and `preferred`.
    let t: String = fold(text).chars().map(|c| if c.is_alphanumeric() || c == '\'' { c } else { ' ' }).collect();
    let t = format!(" {} ", t.split_whitespace().collect::<Vec<_>>().join(" "));
    let hedged = [
        " nice to have ",
        " a plus ",
        " a bonus ",
        " bonus ",
        " preferred ",
        " desirable ",
        " advantageous ",
        " an advantage ",
        " would be welcome ",
        " is welcome ",
        " are welcome ",
        " would help ",
        " it helps ",
        " helpful ",
        " useful ",
        " beneficial ",
        " would be great ",
        " would be good ",
        " would be nice ",
        " would be ideal ",
        " appreciated ",
        " not essential ",
    ];
    // `ideally` hedges the sentence only where it leads its first clause ("Ideally you will have ...", "You
    // will ideally have ..."): after the main ask it qualifies a must ("You will have handled
    // appeals, ideally as lead counsel.").
    let ws = words(text);
    let leads = ws.iter().take(4).enumerate().take_while(|(i, w)| *i == 0 || !w.after_break).any(|(_, w)| {
        let f = fold(w.text);
        f == "ideally" || f == "preferably"
    });
    hedged.iter().any(|k| t.contains(k)) || leads
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
        if is_requirement(posting, &c) {
            out.push((c.span, c.line, level));
        }
    }
    if out.is_empty() {
        // A posting written in prose (found in review: "You will have at least 12 years of
        // experience ... We need deep expertise in Spark and Databricks" gave "No requirements
        // were found"): its sentences that ask for something are its requirements.
        for c in split(posting) {
            let c = ClaimText { span: before_heading(posting, c.span), line: c.line };
            let text = &posting[c.span.clone()];
            if heading_level(text).is_none()
                && (asks_for_something(text) || opens_with_qualification(text))
                && is_requirement(posting, &c)
            {
                let level = if says_nice(text) { Level::Nice } else { Level::Must };
                out.push((c.span, c.line, level));
            }
        }
    }
    out
}

/// Whether a sentence or item asks something the files could show: it has a concept or names a
/// level ([`Asked::asks_anything`]), and is not the company speaking of itself ("We are an
/// equal-opportunity employer.", "Our team values kindness."). Found in review: such sentences
/// under a requirements heading were listed as missing requirements.
fn is_requirement(posting: &str, c: &ClaimText) -> bool {
    let text = &posting[c.span.clone()];
    !about_us(text)
        && !names_the_post(text)
        && !only_a_trait(text)
        && !a_trait_item(text)
        && analyse(posting, c.span.clone(), c.line).asks_anything()
}

/// Determiners and pronouns that start a sentence about someone other than the thing asked.
const NOT_A_SUBJECT: &[&str] = &[
    "we", "our", "us", "you", "your", "they", "their", "it", "its", "this", "that", "these", "those", "there", "he",
    "she", "i", "the", "no", "all", "every", "each", "here",
];

/// Whether a sentence names the post being hired rather than a qualification: "We are seeking
/// a Ward Sister to run our stroke unit", "... is hiring an Assistant Principal for its sixth
/// form" (a capitalised job title, then `to`, `for`, `in`, `who will` or the end). A title
/// followed by what the person must hold ("a Staff Nurse with five years in ICU") asks that;
/// a lower-case one ("a registered nurse with ...") is a qualification, as before.
fn names_the_post(text: &str) -> bool {
    let ws = words(text);
    let f: Vec<String> = ws.iter().map(|w| fold(w.text)).collect();
    let cue = (0..f.len()).find(|&i| {
        matches!(f[i].as_str(), "seeking" | "hiring" | "recruiting" | "appoint" | "recruit")
            || (f[i] == "looking" && f.get(i + 1).is_some_and(|n| n == "for"))
    });
    let Some(cue) = cue else { return false };
    let mut k = cue + if f[cue] == "looking" { 2 } else { 1 };
    if f.get(k).is_some_and(|w| matches!(w.as_str(), "a" | "an" | "the")) {
        k += 1;
    }
    // Up to two lower-case words before the title ("an experienced", "a permanent full-time").
    let mut skipped = 0;
    while skipped < 2 && ws.get(k).is_some_and(|w| w.text.starts_with(char::is_lowercase)) {
        k += 1;
        skipped += 1;
    }
    let start = k;
    while ws.get(k).is_some_and(|w| w.text.starts_with(char::is_uppercase) && (k == start || !w.after_break)) {
        k += 1;
    }
    let title = &ws[start..k];
    // A title has a word in title case (`Nurse`, `Headteacher`): `NMC`, `ICU` or a language
    // alone are what is asked.
    let titled =
        title.iter().any(|w| w.text.chars().skip(1).any(char::is_lowercase) && !levels::is_language(&fold(w.text)));
    if !titled {
        return false;
    }
    match (f.get(k).map(String::as_str), f.get(k + 1).map(String::as_str)) {
        (None, _) => true,
        (Some("with" | "holding" | "having"), _) => false,
        (Some("who" | "that"), next) => matches!(next, Some("will" | "can" | "would" | "wants" | "shares")),
        (Some("to" | "for" | "in" | "at" | "on" | "of" | "based" | "within" | "across" | "joining" | "and"), _) => true,
        // A lower-case word goes on with the noun: "a Python developer", "an ACCA accountant".
        _ => false,
    }
}

/// Whether a "we need someone ..." sentence asks only for a trait ("someone who keeps their
/// head in a crisis", "someone warm and funny", "someone with drive"): files could not show
/// it. It is a requirement when, after `someone`, it names something checkable: a name or
/// language (a capitalised word), a number, a degree, a qualification word ("someone with
/// experience of ...", "someone registered with ..."), or what they have done ("someone who
/// has led ...").
fn only_a_trait(text: &str) -> bool {
    let ws = words(text);
    let f: Vec<String> = ws.iter().map(|w| fold(w.text)).collect();
    let at = (0..f.len()).find(|&i| {
        matches!(f[i].as_str(), "someone" | "somebody")
            || (matches!(f[i].as_str(), "person" | "individual")
                && i > 0
                && matches!(f[i - 1].as_str(), "a" | "an")
                && f.get(i + 1).is_some_and(|n| matches!(n.as_str(), "who" | "with" | "that")))
    });
    let Some(at) = at else { return false };
    const CHECKABLE: &[&str] = &[
        "accred", "backgr", "certif", "charte", "command", "degree", "expert", "experi", "exposu", "famili", "fluenc",
        "fluent", "grasp", "knowle", "licenc", "licens", "profic", "qualif", "regist", "track", "traine", "traini",
        "unders", "year", "years",
    ];
    let checkable = |i: usize| {
        let w = ws[i].text;
        (w.starts_with(char::is_uppercase) && !NOT_A_SUBJECT.contains(&f[i].as_str()))
            || is_number(w)
            || levels::is_degree_word(w)
            || CHECKABLE.contains(&stem(w).as_str())
            // "who has led", "who has taught": done, not a trait.
            || (matches!(f[i].as_str(), "has" | "have")
                && f.get(i + 1).is_some_and(|n| n.ends_with("ed") || matches!(n.as_str(), "led" | "run" | "taught" | "built" | "held" | "written" | "done")))
    };
    !(at + 1..ws.len()).any(checkable)
}

/// Whether a short item names a personal quality rather than anything the files could show:
/// "Self-starter.", "Strong communicator.", "Excellent attention to detail.", "Essential: a
/// collaborative spirit.", "Passion for your subject.", "A commitment to our values." (found in
/// a held-out review: each was listed as a must-have, met or missing by chance). Its first
/// word, after a level label, articles and praise, is a quality; it names nothing and no
/// number. Words that also start a skill are not qualities here (`Energy storage`, `Drive
/// improvement`, `Resilience engineering`).
fn a_trait_item(text: &str) -> bool {
    const QUALITIES: &[&str] = &[
        "attention",
        "attitude",
        "can-do",
        "collaborative",
        "commitment",
        "committed",
        "communicator",
        "curiosity",
        "empathy",
        "enthusiasm",
        "enthusiastic",
        "flexibility",
        "humour",
        "initiative",
        "integrity",
        "motivated",
        "passion",
        "passionate",
        "self-motivated",
        "self-starter",
        "spirit",
        "team-player",
        "willingness",
    ];
    const PRAISE: &[&str] = &[
        "a",
        "an",
        "the",
        "strong",
        "excellent",
        "good",
        "great",
        "real",
        "genuine",
        "high",
        "outstanding",
        "exceptional",
        "proven",
        "true",
        "positive",
        "natural",
        "keen",
    ];
    let t = text.trim_start_matches(['-', '*', '+', '•', ' ']);
    // "Essential: ...", "Desirable: ...".
    let t = match t.split_once(':') {
        Some((label, rest)) if !label.trim().contains(' ') => rest,
        _ => t,
    };
    let ws = words(t);
    if ws.is_empty() || ws.len() > 8 || ws.iter().any(|w| is_number(w.text)) {
        return false;
    }
    if ws.iter().skip(1).any(|w| w.text.starts_with(char::is_uppercase)) {
        return false;
    }
    let first = ws.iter().map(|w| fold(w.text)).find(|f| !PRAISE.contains(&f.as_str()));
    first.is_some_and(|f| QUALITIES.contains(&f.as_str()))
}

/// Whether a sentence in prose opens with the qualification it asks for: "Ward experience in
/// oncology would be welcome.", "A background in audit is a plus.", "Spoken Welsh at B2 would
/// help.", "Three years' post-registration experience is desirable.", "An MSc in ...". Such a
/// sentence need not speak to the reader ("you") nor use a cue like "required".
fn opens_with_qualification(text: &str) -> bool {
    const QUALIFICATION: &[&str] = &[
        "experience",
        "background",
        "knowledge",
        "familiarity",
        "exposure",
        "track",
        "qualification",
        "qualifications",
        "degree",
        "accreditation",
        "certificate",
        "certification",
        "licence",
        "license",
        "registration",
        "fluency",
        "previous",
        "prior",
        "proven",
        "demonstrable",
        "demonstrated",
        "expertise",
        "understanding",
        "proficiency",
    ];
    let ws = words(text);
    let f: Vec<String> = ws.iter().map(|w| fold(w.text)).collect();
    let first = usize::from(f.first().is_some_and(|w| matches!(w.as_str(), "a" | "an" | "some" | "any")));
    if f.get(first).is_none_or(|w| NOT_A_SUBJECT.contains(&w.as_str())) {
        return false;
    }
    // "Experience the city": a word of the list leading an imperative is followed by a
    // determiner.
    if f.get(first + 1).is_some_and(|w| matches!(w.as_str(), "the" | "our" | "your" | "a" | "an" | "life")) {
        return false;
    }
    let years = ws.get(first).is_some_and(|w| is_number(w.text))
        && f.get(first + 1).is_some_and(|w| w.starts_with("year") || w.starts_with("yr"));
    years
        || (first..(first + 3).min(ws.len())).any(|i| {
            QUALIFICATION.contains(&f[i].as_str())
                || levels::is_degree_word(ws[i].text)
                || (ws[i].text.starts_with(char::is_uppercase) && levels::is_language(&f[i]))
        })
}

/// Whether a sentence speaks of the company rather than asking something of the candidate.
fn about_us(text: &str) -> bool {
    let t = format!(" {} ", fold(text.trim_start_matches(['-', '*', '+', '•', ' '])));
    let asks = [" need", " looking for", " seeking", " want", " expect", " require", " must ", " you ", " candidate"];
    let ours =
        [" we are ", " we're ", " our ", " we value", " we offer", " we believe", " we welcome", " we celebrate"];
    let policy =
        ["equal opportunit", "equal-opportunit", "regardless of", "committed to diversity", "we are committed"];
    policy.iter().any(|k| t.contains(k))
        || (ours.iter().any(|k| t.starts_with(k)) && !asks.iter().any(|k| t.contains(k)))
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
    // "You will also need", "you'll ideally have": the adverb does not change the ask.
    let t = format!(" {} ", text.to_lowercase()).replace(" also ", " ").replace(" ideally ", " ");
    // "It would help if you have ...", "It is an advantage if you speak ...".
    let hedged_if = t.split(" if you ").next().is_some_and(|before| {
        t.contains(" if you ")
            && [
                "help",
                "advantage",
                "great",
                "good",
                "useful",
                "welcome",
                "ideal",
                "desirable",
                "bonus",
                "plus",
                "nice",
            ]
            .iter()
            .any(|k| before.contains(k))
    });
    let asks = hedged_if
        || text.to_lowercase().contains("ideally with")
        || [
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
            " applicant",
            " post holder",
            " postholder",
            " post-holder",
            // Found in a held-out review, each a requirement missed in prose.
            " we ask for",
            " we require",
            " you speak",
            " would be welcome",
            " would help",
            " would be useful",
            " would be a bonus",
            " is a bonus",
            " is desirable",
            " an advantage",
        ]
        .iter()
        .any(|k| t.contains(k));
    // Benefits, unless experience of them is what is asked ("experience of salary budgets") or
    // the bonus is the candidate's ("... would be a bonus").
    let about_us = !t.contains("experience")
        && !t.contains(" be a bonus")
        && [" salary", " benefit", " we offer", " bonus", " perks", " holiday", " vacation", " pension"]
            .iter()
            .any(|k| t.contains(k));
    asks && !about_us && !t.trim_start().starts_with("no ")
}

/// The key terms of a requirement, in posting order: (group, as written, folded words). See
/// [`analyse`].
#[cfg(test)]
fn key_terms(posting: &str, span: std::ops::Range<usize>, line: usize) -> Vec<(usize, String, Vec<String>)> {
    analyse(posting, span, line).terms.into_iter().map(|t| (t.group, t.shown, t.words)).collect()
}

/// One concept of a requirement.
#[derive(Debug)]
struct Term {
    /// Terms of one group are alternatives, phrase by phrase: one phrase met meets the group
    /// ("motor drives or traction inverters" is two phrases, not four words).
    group: usize,
    /// Terms written next to each other, with nothing but a space or a hyphen between, are one
    /// phrase ("automotive EMC testing", "employment law").
    phrase: usize,
    /// Groups of one chunk are joined by prepositions or common words ("writing the
    /// curriculum for a key stage"); chunks by `and`, `with` or a list's commas, each asked.
    chunk: usize,
    /// A name (capitalised, an acronym, code-like), as opposed to a lower-case word.
    name: bool,
    /// A lower-case word after a name in its phrase ("SiC power", "NMC registration"): it
    /// says what the name is, so it is only looked for when the name is not found.
    descriptor: bool,
    /// Where it starts in the posting.
    at: usize,
    shown: String,
    words: Vec<String>,
}

/// The alternative of a requirement that asks only willingness (`..., or willingness to
/// complete one within two years`, `or be willing to train`, `or working towards it`), from its
/// `or` to the end of its clause.
fn willing_alternative(text: &str) -> Option<&str> {
    let lower = text.to_ascii_lowercase();
    let at = lower.match_indices("or ").map(|(i, _)| i).find(|&i| {
        (i == 0 || !lower.as_bytes()[i - 1].is_ascii_alphanumeric()) && {
            let rest = lower[i + 3..].trim_start_matches("a ").trim_start_matches("be ").trim_start_matches("show ");
            ["willingness to", "willing to", "commitment to work towards", "readiness to", "working towards"]
                .iter()
                .any(|cue| rest.starts_with(cue))
        }
    })?;
    let end = text[at..].find(['.', ';', '\n']).map_or(text.len(), |e| at + e);
    Some(text[at..end].trim_end())
}

/// What a requirement asks: its concepts grouped into alternatives, the common words it was
/// read without, and the levels it names.
#[derive(Debug, Default)]
struct Asked {
    terms: Vec<Term>,
    /// Common words of the requirement, left out of the comparison.
    generic: Vec<String>,
    years: Option<(f64, String)>,
    /// Where, in the posting, the years asked are written: the terms after it are what the
    /// years are of ("8+ years' PQE in employment law", not the "qualified solicitor" before).
    years_at: usize,
    degree: Option<u8>,
}

impl Asked {
    /// Whether the requirement asks for anything the files could show: a requirement without
    /// ("We need someone good.") is not one.
    fn asks_anything(&self) -> bool {
        !self.terms.is_empty() || self.years.is_some() || self.degree.is_some()
    }
}

/// How two neighbouring terms of a requirement are joined.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Link {
    /// `Kotlin or Swift`, `Bazel/Buck`, `Python and/or R`.
    Or,
    /// `Kafka and Flink`, `X with Y`, a clause break: both are asked.
    And,
    /// Words that are neither (`experience of writing the curriculum`): one thing asked,
    /// described in several words.
    Plain,
    /// `Rust, Go or C++`: the list's last joint says which.
    Comma,
}

/// How the text between two terms joins them.
fn link(gap: &str) -> Link {
    let g = fold(gap);
    if g.contains("and/or") {
        return Link::Or;
    }
    // A sentence or clause ends between them: a new thing is asked.
    if g.contains(';') || g.contains(". ") || g.contains('\n') && g.trim_start().starts_with(['-', '*', '•']) {
        return Link::And;
    }
    let ws: Vec<&str> = g.split(|c: char| !(c.is_alphanumeric() || c == '\'')).filter(|w| !w.is_empty()).collect();
    if ws.iter().any(|w| matches!(*w, "and" | "with" | "plus" | "including")) || g.contains('&') {
        Link::And
    } else if ws.iter().any(|w| matches!(*w, "or" | "either" | "nor")) || g.contains('/') {
        Link::Or
    } else if g.contains(',') && ws.iter().all(|w| is_common(w) || !is_content(w)) {
        Link::Comma
    } else if g.contains(',') {
        Link::And
    } else {
        Link::Plain
    }
}

/// A requirement's concepts (names first, as written, then content words that are not
/// [`COMMON`]), grouped: terms joined by `or` or `/` (`Bazel or Buck`, `Rust/Go`) are one group,
/// as are all items of a list whose last joint is `or` (`Rust, Go or C++`; `Nursing, Midwifery
/// or a related field`); a list joined by `and`, or by commas alone, asks for each. Degree words
/// and language levels are levels, compared apart ([`levels`]), not terms.
fn analyse(posting: &str, span: std::ops::Range<usize>, line: usize) -> Asked {
    let span = span.start..span.start + without_reason(&posting[span.clone()]).len();
    let claim = ClaimText { span: span.clone(), line };
    let text = &posting[span.clone()];
    let req_words = words(text);
    let has_language =
        req_words.iter().any(|w| w.text.starts_with(char::is_uppercase) && levels::is_language(&fold(w.text)));
    let level_word = |f: &str| has_language && levels::is_level_word(f);
    let mut generic: Vec<String> = Vec::new();
    // (start, end, as written, folded words), sorted by position at the end.
    let mut terms: Vec<(usize, usize, String, Vec<String>, bool)> = Vec::new();
    let mut covered: Vec<std::ops::Range<usize>> = Vec::new();
    for f in facts(posting, &claim) {
        if f.kind == FactKind::Name {
            covered.push(f.span.clone());
            let as_written: Vec<&str> = words(&posting[f.span.clone()]).iter().map(|w| w.text).collect();
            // A sentence's first word, and a degree word before a subject (`MSc Nursing`),
            // are not part of the name.
            // A sentence's first word is left out of a name only when it is a common word of job
            // ads ("Strong Python", "Experience with Kafka"): "Chartered Engineer" after
            // "Essential:" is the name asked, not "Engineer" (found in a held-out review).
            let mut skip = usize::from(
                f.optional_first
                    && f.name.len() > 1
                    && (is_common(&f.name[0]) || !is_content(&f.name[0]) || levels::is_level_word(&f.name[0])),
            );
            while as_written.get(skip).is_some_and(|w| levels::is_degree_word(w)) && skip < f.name.len() {
                skip += 1;
            }
            let name = f.name[skip..].to_vec();
            let concept = name.iter().any(|w| !is_common(w) && !level_word(w) && !levels::is_degree_word(w));
            if name.is_empty() || !concept {
                generic.extend(name.iter().filter(|w| is_common(w)).cloned());
                continue;
            }
            let shown = as_written.get(skip..).map_or_else(|| name.join(" "), |w| w.join(" "));
            terms.push((f.span.start, f.span.end, shown, name, true));
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
    // Verbs of what was done: terms only when the requirement asks nothing else ("You will
    // have shipped a product in volume").
    let mut verbs: Vec<(usize, usize, String, Vec<String>, bool)> = Vec::new();
    for (i, w) in req_words.iter().enumerate() {
        let abs = span.start + w.span.start;
        if is_covered(abs) || !(is_content(w.text) || is_short_name(w.text)) || is_number(w.text) {
            continue;
        }
        let f = fold(w.text);
        // `group or multi-claimant litigation`: a common word set against a concept by `or`
        // is that concept's alternative, not a word of job ads.
        let alternative = |other: Option<&Word<'_>>, or: Option<&Word<'_>>| {
            or.is_some_and(|o| fold(o.text) == "or")
                && other.is_some_and(|o| is_content(o.text) && !is_number(o.text) && !is_common(&fold(o.text)))
        };
        // After `or`, only a word that ends its phrase: in `legal directories or industry
        // awards` the alternative is the awards, `industry` only says which.
        let ends_phrase = req_words.get(i + 1).is_none_or(|n| n.after_break || !is_content(n.text));
        let set_against = alternative(req_words.get(i + 2), req_words.get(i + 1))
            || (i >= 2 && ends_phrase && alternative(req_words.get(i - 2), req_words.get(i - 1)));
        if is_common(&f) && !set_against {
            generic.push(f);
            continue;
        }
        if done_verb(&req_words, i) {
            verbs.push((abs, span.start + w.span.end, w.text.to_owned(), vec![f], false));
            continue;
        }
        if level_word(&f) || levels::is_degree_word(w.text) || !single_stems.insert(stem(&f)) {
            continue;
        }
        terms.push((abs, span.start + w.span.end, w.text.to_owned(), vec![f], is_short_name(w.text)));
    }
    if terms.is_empty() {
        terms = verbs;
    } else {
        generic.extend(verbs.into_iter().map(|v| v.3.concat()));
    }
    terms.sort_by_key(|t| t.0);
    let gaps: Vec<&str> = terms.windows(2).map(|w| posting.get(w[0].1..w[1].0).unwrap_or("")).collect();
    let mut links: Vec<Link> = gaps.iter().map(|g| link(g)).collect();
    // A list's commas take the joint that ends the list: from the last joint backwards.
    let tail = terms.last().map_or("", |t| posting.get(t.1..span.end).unwrap_or(""));
    let mut next = if fold(tail).trim_start_matches([',', ' ']).starts_with("or ") { Link::Or } else { Link::And };
    for l in links.iter_mut().rev() {
        if *l == Link::Comma {
            *l = next;
        }
        // Words inside one item do not say how the list is joined.
        if *l != Link::Plain {
            next = *l;
        }
    }
    let adjacent = |i: usize| links[i] == Link::Plain && gaps[i].chars().all(|c| c == ' ' || c == '-');
    let mut out = Vec::with_capacity(terms.len());
    let (mut group, mut phrase, mut chunk, mut named) = (0, 0, 0, false);
    for (i, (at, _, shown, t, name)) in terms.into_iter().enumerate() {
        if i > 0 && !adjacent(i - 1) {
            phrase += 1;
            named = false;
            match links[i - 1] {
                Link::Or => {}
                Link::Plain => group += 1,
                Link::And | Link::Comma => {
                    group += 1;
                    chunk += 1;
                }
            }
        }
        let descriptor = !name && named;
        named |= name;
        out.push(Term { group, phrase, chunk, name, descriptor, at, shown, words: t });
    }
    generic.sort();
    generic.dedup();
    let (years, years_at) = match levels::years_asked_at(text) {
        Some((n, shown, at)) => (Some((n, shown)), span.start + at),
        None => (None, span.end),
    };
    Asked { terms: out, generic, years, years_at, degree: levels::degree_asked(text) }
}

/// A requirement without the clause that says why it is asked ("Spoken French would be useful,
/// because many of our families are French-speaking", "Gujarati or Urdu, to support families
/// new to English", "a full driving licence, as the post covers our satellite unit"): the
/// reason names things nobody is asked to have (found in a held-out review: `families` and
/// `satellite` left such requirements partial).
fn without_reason(text: &str) -> &str {
    const REASONS: &[&str] = &[
        " because ",
        // `, as` starting a clause, not a role or a list ("..., as a band 7 nurse", "German,
        // as well as English").
        ", as the ",
        ", as many ",
        ", as several ",
        ", as most ",
        ", as some ",
        ", as we ",
        ", as our ",
        ", as this ",
        ", as it ",
        ", as they ",
        ", since ",
        " since we ",
        " since our ",
        ", so that ",
        ", so ",
        ", to support ",
        ", to help ",
        ", given ",
        ", which ",
        ", for our ",
        " for our ",
    ];
    let lower = text.to_ascii_lowercase();
    let cut = REASONS.iter().filter_map(|r| lower.find(r)).min().unwrap_or(text.len());
    &text[..cut]
}

/// Whether word `i` is the verb of "you will have shipped ...", "having taken ...": a past
/// participle after `have`. It says what was done, in the posting's words; the files say it in
/// theirs (`Took`, `Launched`), and the concept is its object.
fn done_verb(ws: &[Word<'_>], i: usize) -> bool {
    const IRREGULAR: &[&str] =
        &["taken", "taught", "built", "held", "written", "shown", "brought", "given", "grown", "driven", "chosen"];
    let f = fold(ws[i].text);
    i > 0
        && !ws[i].after_break
        && matches!(fold(ws[i - 1].text).as_str(), "have" | "has" | "had" | "having")
        && (f.ends_with("ed") || IRREGULAR.contains(&f.as_str()))
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
/// Each root ([`root`]) is kept too, as `~root`: a word of another form (`driver` for
/// `drives`) is looked for when no passage has the word's stem.
fn first_stems(p: &Passage) -> HashMap<String, usize> {
    let mut first = HashMap::new();
    for w in words(&p.text) {
        first.entry(stem(w.text)).or_insert(w.span.start);
        first.entry(format!("~{}", root(w.text))).or_insert(w.span.start);
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
    let r = if single { root(&term[0]) } else { String::new() };
    let hit = |p: &Passage| -> Option<usize> {
        if single {
            let ws = words(&p.text);
            let by = |f: &dyn Fn(&str) -> bool| ws.iter().find(|w| f(w.text)).map(|w| w.span.start);
            by(&|w| stem(w) == s).or_else(|| by(&|w| root(w) == r))
        } else {
            p.find_name(term)
        }
    };
    let mut found = Vec::new();
    let in_context = if single {
        let tilde = format!("~{r}");
        let by = |k: &str| context.iter().zip(context_first).find_map(|(p, first)| first.get(k).map(|&at| (p, at)));
        by(&s).or_else(|| by(&tilde))
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
    // Nor does the person's `never_claim` list: it says what they must not be credited with.
    let (never, context): (Vec<Passage>, Vec<Passage>) = sources
        .context
        .map(|(file, text)| context_passages(file, text))
        .unwrap_or_default()
        .into_iter()
        .filter(|p| !p.goal)
        .partition(|p| !never_claimed(p).is_empty());
    let never: Vec<(Vec<String>, String, Evidence)> = never.iter().flat_map(never_claimed).collect();
    let context_first: Vec<HashMap<String, usize>> = context.iter().map(first_stems).collect();
    let mut graph = sources.graph.map(|s| GraphEvidence::new(s, sources.pending));
    let packet_stems: std::collections::HashSet<String> = words(packet).iter().map(|w| stem(w.text)).collect();
    let packet_words: Vec<String> = words(packet).iter().map(|w| fold(w.text)).collect();
    let held = levels::Held::new(&context, sources.year_now);
    let mut keywords: BTreeMap<String, Keyword> = BTreeMap::new();
    let mut reqs = Vec::new();
    // The shortfall of years each requirement was given, replaced by a contradiction below.
    let mut years_short: Vec<Option<String>> = Vec::new();
    for (span, line, level) in requirements(posting) {
        // A cancelled match stops between requirements.
        if sources.cancelled() {
            break;
        }
        let asked = analyse(posting, span.clone(), line);
        let ws = words(&posting[span.clone()]);
        let mut term_met = Vec::with_capacity(asked.terms.len());
        let mut found = Vec::new();
        let mut short: Vec<String> = Vec::new();
        let mut notes: Vec<String> = Vec::new();
        let mut evidence: Vec<Evidence> = Vec::new();
        for term in &asked.terms {
            let places = find_term(&term.words, &context, &context_first, &mut graph);
            let mut m = Met::Missing;
            if let Some(e) = places.first().cloned() {
                let in_packet = if term.words.len() == 1 {
                    packet_stems.contains(&stem(&term.words[0]))
                } else {
                    packet_words.windows(term.words.len()).any(|w| w == term.words.as_slice())
                };
                if !in_packet {
                    keywords
                        .entry(term.shown.clone())
                        .or_insert(Keyword { term: term.shown.clone(), evidence: e.clone() });
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
                found.push(term.shown.clone());
                m = Met::Met;
            }
            if m == Met::Met
                && let Some((note, gap)) = language_level(term, &ws, &held)
            {
                notes.push(note);
                if let Some(gap) = gap {
                    m = Met::Short;
                    short.push(gap);
                }
            }
            term_met.push(m);
        }
        // A least count (`at least 1,500 chargeable hours`, `4 kW per litre or more`) against
        // the files' number of the same thing, in the Career Context or the records a search
        // for it finds; met, the words saying what is counted are met by it.
        let mut count_met = None;
        if asked.years.is_none()
            && let Some(count) = count_asked(&posting[span.clone()])
        {
            let ids = graph.as_mut().map(|g| g.search(&count.shown, RECORDS_PER_QUERY)).unwrap_or_default();
            let records: Vec<&Passage> = ids.iter().filter_map(|id| graph.as_ref()?.get(id)).collect();
            if let Some((held_n, e)) = count_held(&count, context.iter().chain(records)) {
                notes.push(format!("asks {}; files: {} ({})", count.shown, number_shown(held_n), levels::place(&e)));
                if held_n + 1e-9 < count.value {
                    short.push(format!("{} (files: {})", count.shown, number_shown(held_n)));
                    count_met = Some(Met::Short);
                } else {
                    count_met = Some(Met::Met);
                    let counted = |t: &Term| t.words.iter().all(|w| count.phrase.contains(&stem(w)));
                    for (_, m) in asked.terms.iter().zip(term_met.iter_mut()).filter(|(t, _)| counted(t)) {
                        *m = Met::Met;
                    }
                }
                if !evidence.iter().any(|x| levels::place(x) == levels::place(&e)) {
                    evidence.push(e);
                }
            }
        }
        let concepts = concepts(&asked.terms, &term_met);
        notes.extend(concepts.notes);
        let mut met = concepts.chunks;
        let subjects: Vec<Vec<String>> = asked
            .terms
            .iter()
            .filter(|t| !(t.words.len() == 1 && levels::is_language(&t.words[0])))
            .map(|t| t.words.clone())
            .collect();
        let mut years_gap = None;
        if let Some((n, shown)) = &asked.years {
            let m = match held.years(&years_subjects(&asked)) {
                Some((v, why)) => {
                    notes.push(format!("asks {shown}; files: {why}"));
                    if v + 1e-9 >= *n {
                        Met::Met
                    } else {
                        years_gap = Some(format!("{shown} (files: {v} years)"));
                        Met::Short
                    }
                }
                None => {
                    notes.push(format!("asks {shown}; the files give no years"));
                    years_gap = Some(shown.clone());
                    Met::Missing
                }
            };
            short.extend(years_gap.clone());
            met.push(m);
        }
        met.extend(count_met);
        let mut degree_met = None;
        if let Some(d) = asked.degree {
            let asks = format!("asks {} or above", levels::degree_name(d));
            let m = match held.degree(&subjects) {
                // A degree in another subject meets no part of a degree in this one.
                Some((l, shown, about)) => {
                    let m = match (about, l >= d) {
                        (false, _) => Met::Missing,
                        (true, true) => Met::Met,
                        // Below the level asked is not part of it ("a master's in education"
                        // for a BSc and a PGCE, "a PhD" for an MEng: missing), except a
                        // postgraduate certificate or diploma, the first part of a master's
                        // (a PGCE is a teaching qualification, not such a part).
                        (true, false) if d == 3 && context.iter().any(|p| postgraduate_award(&p.text)) => Met::Short,
                        (true, false) => Met::Missing,
                    };
                    let not_about = if about { "" } else { ", in another subject" };
                    notes.push(format!("{asks}; files: {} ({shown}{not_about})", levels::degree_name(l)));
                    if m != Met::Met {
                        short.push(format!(
                            "{} (files: {}{not_about})",
                            levels::degree_name(d),
                            levels::degree_name(l)
                        ));
                    }
                    m
                }
                None => {
                    notes.push(format!("{asks}; the files name no degree"));
                    short.push(levels::degree_name(d).to_owned());
                    Met::Missing
                }
            };
            degree_met = Some(m);
            met.push(m);
        }
        if !asked.generic.is_empty() {
            let shown: Vec<&str> = asked.generic.iter().take(8).map(String::as_str).collect();
            let more = if asked.generic.len() > 8 { ", …" } else { "" };
            notes.push(format!("common words not compared: {}{more}", shown.join(", ")));
        }
        // A degree asked at a level the files hold in no subject asked ("an LLM in employment
        // law", files with a history BA) is missing, whatever words of its subject the files
        // use elsewhere; a degree held below the level asked is partial at most.
        let degree_missing = degree_met == Some(Met::Missing) && asked.years.is_none();
        let coverage = if !met.is_empty() && met.iter().all(|m| *m == Met::Met) {
            Coverage::Covered
        } else if degree_missing || met.iter().all(|m| *m == Met::Missing) {
            Coverage::Missing
        } else {
            Coverage::Partial
        };
        let mut missing = concepts.missing;
        missing.extend(short);
        // `A leadership qualification, or willingness to complete one`: the second alternative
        // is the person's to offer, so nothing asked is out of reach.
        let coverage = match willing_alternative(&posting[span.clone()]) {
            Some(w) if coverage != Coverage::Covered => {
                notes.push(format!("met by its alternative \"{w}\", which the person can offer"));
                missing.clear();
                Coverage::Covered
            }
            _ => coverage,
        };
        // A requirement that names an item of `never_claim` is missing, whatever else matched.
        let coverage = match never_named(&posting[span.clone()], &never) {
            Some((shown, e)) => {
                notes.push(format!("never_claim lists {shown}"));
                missing.push(shown.clone());
                evidence.push(e.clone());
                Coverage::Missing
            }
            None => coverage,
        };
        let explanation = if notes.is_empty() {
            let n = asked.terms.len();
            match found.len() {
                0 => format!("none of {n} terms found"),
                f if f == n => format!("all {n} terms found"),
                f => format!("{f} of {n} terms found"),
            }
        } else {
            notes.join("; ")
        };
        years_short.push(years_gap);
        reqs.push(Requirement {
            text: posting[span].trim().to_owned(),
            line,
            level,
            coverage,
            found,
            missing,
            evidence,
            explanation,
        });
    }
    for (i, contradicted) in years_contradicted(&reqs, sources) {
        let req = &mut reqs[i];
        if req.coverage == Coverage::Covered {
            req.coverage = Coverage::Partial;
        }
        if let Some(gap) = &years_short[i] {
            req.missing.retain(|m| m != gap);
        }
        req.missing.extend(contradicted);
    }
    JobMatch { requirements: reqs, keywords: keywords.into_values().collect() }
}

/// A least number of something a requirement asks: "a team of at least eight lawyers",
/// "line management of 20+ staff", "a power density of 4 kW per litre or more".
struct CountAsked {
    value: f64,
    /// The number's unit (`kW`), when it has one.
    unit: Option<String>,
    /// What it counts: the stems of the words after it (`lawyer`), or its unit's.
    nouns: Vec<String>,
    /// The stems of every word of what it counts (`chargeable hours`: charge, hour): met by
    /// the number held, not by the words alone.
    phrase: Vec<String>,
    /// The stems of the requirement's other content words, to find the files' number of the
    /// same thing.
    about: Vec<String>,
    shown: String,
    /// What a rate is per (`litre` in `4 kW per litre`).
    per: Option<String>,
}

/// The word after `per` (or `/`) within three words after the number at byte `at`.
fn per_what(ws: &[Word<'_>], at: usize) -> Option<String> {
    let i = super::text::word_at(ws, at)?;
    let next = ws.iter().skip(i + 1).take(3).position(|w| fold(w.text) == "per")?;
    ws.get(i + 2 + next).map(|w| stem(&fold(w.text)))
}

/// Content stems of `text`, hyphenated words split (`line-manages`: line, manag).
fn part_stems(text: &str) -> Vec<String> {
    let mut out: Vec<String> = text
        .split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .filter(|w| is_content(w) && !is_number(w) && !is_common(&fold(w)))
        .map(stem)
        .collect();
    out.sort();
    out.dedup();
    out
}

/// The least number a requirement asks of something countable (not years, which
/// [`levels::years_asked_at`] reads, nor money or a share).
fn count_asked(requirement: &str) -> Option<CountAsked> {
    let text = without_reason(requirement);
    let ws = words(text);
    let bound = |n: &super::text::Number| {
        let rest = fold(&text[n.span.end..]);
        let before = fold(text[..n.span.start].trim_end());
        super::hedge_of(text, &ws, n.span.start) == super::Hedge::AtLeast
            || [" or more", " or above", " or higher", " or over"].iter().any(|k| rest.contains(k))
            || before.ends_with("minimum of")
            || before.ends_with("minimum")
    };
    let n = super::text::numbers(text, &ws).into_iter().find(|n| {
        !n.year && !matches!(n.unit.as_deref(), Some("year" | "%" | "$" | "£" | "€" | "¥" | "₹")) && bound(n)
    })?;
    let mut nouns = super::text::count_nouns(text, &ws, n.span.start);
    // `30 or more tribunal claims`: what is counted comes after the bound.
    if nouns.is_empty()
        && let Some(i) = super::text::word_at(&ws, n.span.start)
        && ws.get(i + 1).is_some_and(|w| fold(w.text) == "or")
        && let Some(bound) =
            ws.get(i + 2).filter(|w| matches!(fold(w.text).as_str(), "more" | "above" | "higher" | "over"))
    {
        nouns = super::text::count_nouns(text, &ws, bound.span.start);
    }
    let written = nouns.clone();
    // A measure (`4 kW per litre`) is compared with the same measure; a count's unit is only
    // the noun it counts (`teacher`), which files write in many ways.
    // `1,500 chargeable hours`: a measure after a word that describes it is the unit still.
    let unit = n
        .unit
        .filter(|u| super::text::is_measure(u))
        .or_else(|| nouns.iter().filter_map(|w| super::text::unit_of(w)).find(|u| super::text::is_measure(u)));
    if let Some(u) = &unit {
        nouns.retain(|w| super::text::unit_of(w).as_ref() != Some(u));
    }
    if let Some(u) = &unit {
        nouns.insert(0, u.clone());
    }
    nouns.retain(|w| !is_common(w));
    let mut phrase = nouns.clone();
    phrase.extend(written.into_iter().filter(|w| !is_common(w)));
    // What is counted is the measure, else a noun of the phrase, the last first (`chargeable
    // hours`: hours; `nursing staff`: staff, or nurses).
    let counted: Vec<String> = match &unit {
        Some(u) => vec![u.clone()],
        None => nouns.iter().rev().cloned().collect(),
    };
    let first = counted.first()?.clone();
    let about: Vec<String> = part_stems(text).into_iter().filter(|s| *s != first && !phrase.contains(s)).collect();
    // As asked: from the number to the end of its clause (`20+ staff`, `4 kW per litre or more`).
    let end = text[n.span.end..].find(['.', ',', ';', '(']).map_or(text.len(), |i| n.span.end + i);
    let as_written = text[n.span.start..end].trim();
    let shown = if text[n.span.end..].starts_with('+') {
        as_written.to_owned()
    } else {
        let bound = [" or more", " or above", " or higher", " or over"].iter().find(|b| as_written.contains(**b));
        format!("at least {}", bound.map_or(as_written.to_owned(), |b| as_written.replacen(b, "", 1)))
    };
    // A rate (`4 kW per litre`) is only the same rate (`3.2 kW per litre`, not `11 kW`).
    let per = per_what(&ws, n.span.start);
    Some(CountAsked { value: n.value, unit, nouns: counted, phrase, about, shown, per })
}

/// The files' number of what `count` counts: among Career Context passages stating a number
/// of it (its unit, or its noun within a few words), the one that shares most of the
/// requirement's other words (`staff line managed: 9` for "line management of 20+ staff", not
/// `trained 46 redeployed staff`); on a tie, the largest.
fn count_held<'p>(count: &CountAsked, context: impl IntoIterator<Item = &'p Passage>) -> Option<(f64, Evidence)> {
    let mut best: Option<(usize, f64, Evidence)> = None;
    for p in context {
        if !p.numbers.iter().any(|m| !m.year) {
            continue;
        }
        let pws = words(&p.text);
        for m in p.numbers.iter().filter(|m| !m.year) {
            let is_noun = |w: &str| {
                w.split('-').any(|part| count.nouns.iter().any(|n| super::typed::same_word(&stem(&fold(part)), n)))
            };
            let of_it = match (&count.unit, &m.unit) {
                (Some(a), b) => b.as_ref() == Some(a),
                (None, Some(u)) if super::text::is_measure(u) => false,
                (None, _) => {
                    // What it counts follows it (`nine staff nurses`), or names the QUICK
                    // REFERENCE key it is the value of (`staff line managed: 9`).
                    let after = super::text::count_nouns(&p.text, &pws, m.span.start);
                    let line_start = p.text[..m.span.start].rfind('\n').map_or(0, |i| i + 1);
                    let key = p.text[line_start..m.span.start].trim_end().strip_suffix(':');
                    after.iter().any(|w| is_noun(w)) || key.is_some_and(|k| words(k).iter().any(|w| is_noun(w.text)))
                }
            };
            if !of_it || count.per.as_ref().is_some_and(|per| per_what(&pws, m.span.start).as_ref() != Some(per)) {
                continue;
            }
            // The sentence holding the number: a record is one long passage, and `taught by
            // all 14 science teachers` is not the count of `line-manages four teachers` two
            // sentences on.
            let from = p.body.min(m.span.start);
            let start = p.text[from..m.span.start].rfind(['.', ';', '\n']).map_or(from, |i| from + i + 1);
            let end = p.text[m.span.end..].find(['.', ';', '\n']).map_or(p.text.len(), |i| m.span.end + i);
            let stems = part_stems(&p.text[start..end]);
            let shared = count.about.iter().filter(|a| stems.binary_search(a).is_ok()).count();
            if count.about.len() > 1 && shared == 0 {
                continue;
            }
            let better = match &best {
                None => true,
                Some((k, v, _)) => shared > *k || (shared == *k && m.value > *v),
            };
            if better {
                best = Some((shared, m.value, super::evidence_at(p, m.span.start)));
            }
        }
    }
    best.map(|(_, v, e)| (v, e))
}

fn number_shown(v: f64) -> String {
    if v.fract() == 0.0 { format!("{}", v as i64) } else { format!("{v}") }
}

/// Whether a passage names a postgraduate certificate or diploma (`PgCert Clinical
/// Leadership`, `Postgraduate Diploma in ...`), which is not a PGCE.
fn postgraduate_award(shown: &str) -> bool {
    let f = fold(shown);
    ["pgcert", "pg cert", "pgdip", "pg dip", "postgraduate certificate", "postgraduate diploma"]
        .iter()
        .any(|k| f.contains(k))
        && !words(&f).iter().any(|w| w.text == "pgce")
        && !f.contains("in education")
}

/// The items of a QUICK REFERENCE `never_claim` entry (`never_claim: [PhD, people management]`
/// or a block list), each as its folded words, as written, and where; none for any other
/// passage.
fn never_claimed(p: &Passage) -> Vec<(Vec<String>, String, Evidence)> {
    let body = &p.text[p.body..];
    let Some((key, value)) = body.split_once(':') else { return Vec::new() };
    if !matches!(fold(key.trim()).as_str(), "never claim" | "never claims" | "do not claim") {
        return Vec::new();
    }
    let value = value.trim().trim_start_matches('[').trim_end_matches(']');
    let items = value.split([',', '\n']).map(|i| i.trim().trim_start_matches("- ").trim_matches(['"', '\'', ' ']));
    items
        .filter(|i| !i.is_empty())
        .map(|i| {
            let at = p.text.find(i).unwrap_or(p.body);
            (words(i).iter().map(|w| fold(w.text)).collect(), i.to_owned(), super::evidence_at(p, at))
        })
        .filter(|(ws, _, _): &(Vec<String>, _, _)| !ws.is_empty())
        .collect()
}

/// The first `never_claim` item a requirement names: its words, in order, each in some form.
fn never_named<'n>(
    requirement: &str,
    never: &'n [(Vec<String>, String, Evidence)],
) -> Option<(&'n String, &'n Evidence)> {
    let asked: Vec<String> = words(without_reason(requirement)).iter().map(|w| fold(w.text)).collect();
    never.iter().find_map(|(item, shown, e)| {
        asked
            .windows(item.len())
            .any(|w| {
                // One word is matched by its stem (`partner`, not `partnership`); a phrase's
                // words in any form (`independent prescribing` for `independent prescriber`).
                w.iter()
                    .zip(item)
                    .all(|(a, b)| if item.len() == 1 { stem(a) == stem(b) } else { super::typed::same_word(a, b) })
            })
            .then_some((shown, e))
    })
}

/// How far a requirement's concepts are met, read from its terms' verdicts.
struct Concepts {
    /// One verdict per chunk (see [`Term::chunk`]).
    chunks: Vec<Met>,
    /// The terms that leave a chunk unmet, as written.
    missing: Vec<String>,
    notes: Vec<String>,
}

/// What a verdict counts for in a chunk's share of its groups met.
fn weight(m: Met) -> f64 {
    match m {
        Met::Met => 1.0,
        Met::Short => 0.5,
        Met::Missing => 0.0,
    }
}

/// The verdict of each chunk of a requirement from the verdicts of its terms (`term_met`, in
/// term order). A phrase is met when all its words are (a name's descriptors need not be when
/// the name is), short when some are; a group takes its best phrase. A chunk is met when every
/// group with a name in it is met and at least two thirds of its groups are (half for one
/// that is short): "experience of writing the curriculum for a key stage" is met by files that
/// rewrote a Key Stage 3 curriculum, while "employment law" stays short for files that only
/// say `law`, and a name asked ("ICU nursing") is never passed over. Missing when no group is
/// met at all. One pass over the terms, in order (chunks, groups and phrases are runs).
fn concepts(terms: &[Term], term_met: &[Met]) -> Concepts {
    let idx: Vec<usize> = (0..terms.len()).collect();
    let mut out = Concepts { chunks: Vec::new(), missing: Vec::new(), notes: Vec::new() };
    let mut tolerated: Vec<&str> = Vec::new();
    for chunk in idx.chunk_by(|&a, &b| terms[a].chunk == terms[b].chunk) {
        let (mut score, mut n, mut keys_met, mut any) = (0.0, 0usize, true, false);
        let mut alternatives_missing = false;
        let mut unmet: Vec<usize> = Vec::new();
        for group in chunk.chunk_by(|&a, &b| terms[a].group == terms[b].group) {
            let mut g = Met::Missing;
            let mut key = false;
            let phrases: Vec<&[usize]> = group.chunk_by(|&a, &b| terms[a].phrase == terms[b].phrase).collect();
            for ph in &phrases {
                let name_found = ph.iter().any(|&i| terms[i].name && term_met[i] == Met::Met);
                let counted = ph.iter().filter(|&&i| !(terms[i].descriptor && name_found)).map(|&i| term_met[i]);
                // A phrase with a word the files lack is another concept, not half of this one
                // (found in a held-out review: "paediatric critical care" is not half met by
                // adult critical care, nor "clinical coding" by clinical audit).
                let (all, any_missing) =
                    counted.fold((true, false), |(a, n), m| (a && m == Met::Met, n || m == Met::Missing));
                g = g.max(if all {
                    Met::Met
                } else if any_missing {
                    Met::Missing
                } else {
                    Met::Short
                });
                key |= ph.iter().any(|&i| terms[i].name);
            }
            if phrases.len() > 1 {
                out.notes.push(alternatives(terms, term_met, &phrases));
                // Alternatives say what is asked: none of them held, the chunk is not met
                // whatever words around them are ("able to teach A-level biology or physics"
                // for a chemistry teacher; "managing a ward or department budget").
                alternatives_missing |= g == Met::Missing;
            }
            if g != Met::Met {
                unmet.extend(group.iter().filter(|&&i| term_met[i] == Met::Missing && !terms[i].descriptor));
            }
            score += weight(g);
            n += 1;
            keys_met &= !key || g == Met::Met;
            any |= g != Met::Missing;
        }
        let any = any && !alternatives_missing;
        let c = if keys_met && !alternatives_missing && score * 3.0 >= 2.0 * n as f64 {
            tolerated.extend(unmet.iter().map(|&i| terms[i].shown.as_str()));
            Met::Met
        } else {
            out.missing.extend(unmet.iter().map(|&i| terms[i].shown.clone()));
            if any { Met::Short } else { Met::Missing }
        };
        out.chunks.push(c);
    }
    if !tolerated.is_empty() {
        let more = if tolerated.len() > 8 { ", …" } else { "" };
        let shown: Vec<&str> = tolerated.into_iter().take(8).collect();
        out.notes.push(format!("met without: {}{more}", shown.join(", ")));
    }
    out
}

/// "asks one of A, B: A found", for a group of alternative phrases.
fn alternatives(terms: &[Term], term_met: &[Met], phrases: &[&[usize]]) -> String {
    let more = if phrases.len() > 8 { ", …" } else { "" };
    let text = |ph: &[usize]| ph.iter().map(|&i| terms[i].shown.as_str()).collect::<Vec<_>>().join(" ");
    let shown: Vec<String> = phrases.iter().take(8).map(|ph| text(ph)).collect();
    let hit: Vec<String> = phrases
        .iter()
        .filter(|ph| ph.iter().any(|&i| term_met[i] != Met::Missing))
        .take(8)
        .map(|ph| text(ph))
        .collect();
    if hit.is_empty() {
        format!("asks one of {}{more}: none found", shown.join(", "))
    } else {
        format!("asks one of {}{more}: {} found", shown.join(", "), hit.join(", "))
    }
}

/// What the years a requirement asks are of: its phrases written after the number ("8+ years'
/// PQE in employment law": PQE, employment law), or all of them when none is; a phrase of
/// several words is looked for whole. Languages are not subjects.
fn years_subjects(asked: &Asked) -> Vec<Vec<String>> {
    let phrase_words = |after: usize| -> Vec<Vec<String>> {
        asked
            .terms
            .chunk_by(|a, b| a.phrase == b.phrase)
            .filter(|ph| ph[0].at >= after)
            .map(|ph| ph.iter().flat_map(|t| t.words.iter().cloned()).collect::<Vec<String>>())
            .filter(|w| !(w.len() == 1 && levels::is_language(&w[0])))
            .collect()
    };
    let after = phrase_words(asked.years_at);
    if after.is_empty() { phrase_words(0) } else { after }
}

/// The language level a requirement asks of `term` when it is a language with a level named
/// ("fluent French", "Spanish (B2)"), against the level the Career Context gives: the level
/// asked, what was compared, and the shortfall when the files give less or no level.
fn language_level(term: &Term, ws: &[Word<'_>], held: &levels::Held) -> Option<(String, Option<String>)> {
    let [lang] = term.words.as_slice() else { return None };
    if !levels::is_language(lang) {
        return None;
    }
    let at = ws.iter().position(|w| fold(w.text) == *lang)?;
    let (asked, asked_shown) = levels::language_level_asked(ws, at)?;
    let name = &term.shown;
    let asks = format!("asks {name} {} ({asked_shown})", levels::cefr_name(asked));
    let want = format!("{name} at {}", levels::cefr_name(asked));
    Some(match held.language(lang) {
        Some((Some(l), e)) => {
            let note = format!("{asks}; files: {name} {} ({})", levels::cefr_name(l), levels::place(e));
            (note, (l < asked).then(|| format!("{want} (files: {})", levels::cefr_name(l))))
        }
        Some((None, e)) => (
            format!("{asks}; files: {name} with no level ({})", levels::place(e)),
            Some(format!("{want} (files: no level)")),
        ),
        None => (format!("{asks}; the Career Context gives no level"), Some(format!("{want} (files: no level)"))),
    })
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
            Sources { context: Some(("career-context.md", context)), graph: Some(&s), ..Default::default() },
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
            Sources { context: Some(("career-context.md", context)), graph: Some(&s), ..Default::default() },
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

    /// A registered nurse: four years stated, French at B2, a BSc.
    const NURSE: &str = "\
# Amara Okafor - Registered nurse in acute medicine

## QUICK REFERENCE
```yaml
name: Amara Okafor
years_experience: 4
languages: [English (native), French (B2)]
```

## PROFESSIONAL EXPERIENCE

### Staff Nurse, Acute Medical Unit [ROLE] - Northgate General Hospital (2021-present)

- Led the ward's falls audit in 2024; falls fell by 30%.
- Trained six healthcare assistants in venepuncture and IV therapy.

### Healthcare Assistant [ROLE] - Riverside Care Home (2019-2021)

## EDUCATION

### BSc Nursing (Adult) [DEGREE] - University of Leeds (2016-2019)
";

    /// A solicitor: an LLB, Spanish and Portuguese given as list items, no years stated.
    const LAWYER: &str = "\
# Tomas Lindqvist - Commercial litigation solicitor

## PROFESSIONAL EXPERIENCE

### Associate Solicitor [ROLE] - Hartley Crane LLP (2019-2023)

- Ran commercial litigation and contract disputes in the High Court.

## EDUCATION

### LLB Law [DEGREE] - University of Bristol (2014-2017)

## LANGUAGES

- Portuguese: native
- Spanish: professional working proficiency
";

    /// A secondary-school teacher: two roles, no years stated.
    const TEACHER: &str = "\
# Grace Adeyemi - Secondary mathematics teacher

## PROFESSIONAL EXPERIENCE

### Maths Teacher [ROLE] - Hillcrest Academy (2015-2019)

- Teaching GCSE mathematics to mixed-ability classes.

### Head of Maths [ROLE] - Oakfield School (2019-2023)

- Led curriculum planning and teaching for a department of seven.

## EDUCATION

### BA Mathematics [DEGREE] - University of York (2011-2014)

### PGCE Secondary Mathematics [QUALIFICATION] - University of York (2014-2015)
";

    /// An electronics engineer whose files are full of common words.
    const ENGINEER: &str = "\
# Priya Raman - Electronics design engineer

## PROFESSIONAL EXPERIENCE

### Hardware Design Engineer [ROLE] - Voltaic Instruments (2019-2025)

- Designed small, high-quality battery-powered sensor devices in a fast team of four people.
- Laid out 6-layer PCBs in KiCad; brought EMC test failures down to zero.

## EDUCATION

### MEng Electronic Engineering [DEGREE] - University of Southampton (2014-2018)
";

    fn matched(posting: &str, context: &str) -> Vec<Requirement> {
        match_job(posting, Sources { context: Some(("cc.md", context)), graph: None, ..Default::default() }, "")
            .requirements
    }

    fn coverage(posting: &str, context: &str) -> Vec<(String, Coverage)> {
        matched(posting, context).into_iter().map(|r| (r.text, r.coverage)).collect()
    }

    fn example(posting: &str) -> Vec<Requirement> {
        let context = include_str!("../../../examples/career-context.md");
        matched(posting, context)
    }

    /// A quantity asked with a bound (`at least`, `a minimum of`, `or more` before what it
    /// counts) is compared with the files' numbers of what it counts, whatever word describes
    /// it (`chargeable hours` for `hours`): at or above the bound is covered, below it partial;
    /// a rate per something the files never state is another thing, missing.
    #[test]
    fn a_bounded_quantity_is_compared_with_the_numbers_held() {
        let context = "\
# Dana Reyes - Solicitor

## PROFESSIONAL EXPERIENCE

### Senior Associate [ROLE] - Calder LLP (2019-2025)

- Billed 1,650 hours in 2024.
- Designed a 3 kW charger with a power density of 2.5 kW per litre.
- Handled 40 tribunal claims a year.
";
        let got = coverage(
            "## Requirements\n- At least 1,500 chargeable hours a year\n- A minimum of 2,000 billable hours\n\
             - A charger of 2 kW per litre or more\n- A converter of 5 kW per kilogram or more\n\
             - 30 or more tribunal claims a year\n",
            context,
        );
        let cov: Vec<Coverage> = got.iter().map(|g| g.1).collect();
        assert_eq!(
            cov,
            [Coverage::Covered, Coverage::Partial, Coverage::Covered, Coverage::Missing, Coverage::Covered],
            "{got:#?}"
        );
        let m =
            matched("## Requirements\n- A minimum of 2,000 billable hours\n- 30 or more tribunal claims\n", context);
        assert!(m[0].explanation.contains("files: 1650"), "{}", m[0].explanation);
        assert!(m[1].explanation.contains("files: 40"), "{}", m[1].explanation);
    }

    /// A common word set against a concept by `or` (`group or multi-claimant litigation`) is
    /// that concept's alternative: held, it meets the requirement; a common word that only
    /// qualifies the alternative after `or` (`industry awards`) stays a common word.
    #[test]
    fn a_common_word_set_against_a_concept_is_an_alternative() {
        let context = "\
# Lee Hart - Employment solicitor

## PROFESSIONAL EXPERIENCE

### Senior Associate [ROLE] - Calder LLP (2019-2025)

- Defended employers in group litigation over equal pay.
- Listed in the Port Aubrey Legal Directory, 2024.
";
        let got = coverage(
            "## Requirements\n- Experience of group or multi-claimant litigation\n- Recognition in legal directories or industry awards\n",
            context,
        );
        assert_eq!(got[0].1, Coverage::Covered, "{got:#?}");
        assert_ne!(got[1].1, Coverage::Missing, "{got:#?}");
    }

    /// An alternative that asks only willingness (`or willingness to complete one`) is the
    /// person's to offer: the requirement is covered, and says so.
    #[test]
    fn a_willingness_alternative_covers_the_requirement() {
        for posting in [
            "## Requirements\n- A postgraduate leadership qualification, or willingness to complete one within two years\n",
            "## Requirements\n- Chartered status, or be willing to work towards it\n",
            "## Requirements\n- An MSc in oncology or a commitment to work towards one\n",
        ] {
            let m = matched(posting, NURSE);
            assert_eq!(m[0].coverage, Coverage::Covered, "{posting}: {:#?}", m[0]);
            assert!(m[0].explanation.contains("which the person can offer"), "{}", m[0].explanation);
        }
        let m = matched("## Requirements\n- A postgraduate leadership qualification\n", NURSE);
        assert_ne!(m[0].coverage, Coverage::Covered, "without the alternative: {:#?}", m[0]);
    }

    /// Years asked of a standing (`registration as an adult nurse for at least 12 years`) count
    /// from the year the files say it began (`registered in 2012`), not only the roles' years.
    #[test]
    fn years_of_a_standing_count_from_when_it_began() {
        let context = "\
# Ada Obi - Nurse

## QUICK REFERENCE

```yaml
registration: \"Registered Nurse (Adult), registered in 2012\"
```

## PROFESSIONAL EXPERIENCE

### Charge Nurse [ROLE] - Wyndhollow Hospital (2019-present)

- Leads shifts on an adult ICU.
";
        let posting = "## Requirements\n- Registration as an adult nurse for at least 12 years\n";
        let m = match_job(
            posting,
            Sources { context: Some(("cc.md", context)), graph: None, year_now: Some(2026), ..Default::default() },
            "",
        )
        .requirements;
        assert_eq!(m[0].coverage, Coverage::Covered, "{:#?}", m[0]);
        let m = match_job(
            &posting.replace("12", "16"),
            Sources { context: Some(("cc.md", context)), graph: None, year_now: Some(2026), ..Default::default() },
            "",
        )
        .requirements;
        assert_ne!(m[0].coverage, Coverage::Covered, "14 years is short of 16: {:#?}", m[0]);
    }

    /// "A or B" is met by either one, in every way a posting writes it: `or`, `/`, a list whose
    /// last joint is `or`, alternatives around a common word ("a nursing or midwifery degree").
    #[test]
    fn alternatives_are_met_by_either_one() {
        let got = coverage(
            "## Requirements\n- A nursing or midwifery degree\n- Midwifery or paediatrics\n- IV therapy, \
             chemotherapy or dialysis\n",
            NURSE,
        );
        assert_eq!(
            got.iter().map(|g| g.1).collect::<Vec<_>>(),
            [Coverage::Covered, Coverage::Missing, Coverage::Covered]
        );
        let m = example(
            "## Requirements\n- Kotlin or Swift\n- Rust, Go or C++\n- Bazel/Buck\n- Experience with Erlang, Elixir, or Go\n",
        );
        let cov: Vec<Coverage> = m.iter().map(|r| r.coverage).collect();
        assert_eq!(cov, [Coverage::Missing, Coverage::Covered, Coverage::Covered, Coverage::Covered], "{m:#?}");
        assert_eq!(m[1].missing, Vec::<String>::new());
        assert!(m[1].explanation.contains("asks one of Rust, Go, C++: Rust, Go found"), "{}", m[1].explanation);
        let got = coverage("## Requirements\n- PCB design in Altium or KiCad\n", ENGINEER);
        assert_eq!(got[0].1, Coverage::Covered);
    }

    /// "A and B" needs both: one of two is partial, and a list joined by commas alone asks for
    /// each item.
    #[test]
    fn conjunctions_need_every_part() {
        let m = example(
            "## Requirements\n- Bazel and Erlang\n- Kafka and Flink\n- Rust, Go, and Erlang\n- Go, Kubernetes\n",
        );
        let cov: Vec<(Coverage, &[String])> = m.iter().map(|r| (r.coverage, r.missing.as_slice())).collect();
        assert_eq!(cov[0], (Coverage::Partial, &["Erlang".to_owned()][..]), "{m:#?}");
        assert_eq!(cov[1].0, Coverage::Missing);
        assert_eq!(cov[2], (Coverage::Partial, &["Erlang".to_owned()][..]));
        assert_eq!(cov[3].0, Coverage::Covered);
        let got = coverage("## Requirements\n- Contract disputes and arbitration\n", LAWYER);
        assert_eq!(got[0].1, Coverage::Partial);
    }

    /// Found in review: a requirement was partial because the files say `design`, `device` or
    /// `team`. Common words of job ads are no terms: a requirement whose concepts are all
    /// missing is missing, whatever common words the files share with it.
    #[test]
    fn common_words_cover_nothing() {
        let m = matched(
            "## Requirements\n- Medical device design in a small, fast team\n- High quality work with people\n\
             - Designing devices for FDA approval\n",
            ENGINEER,
        );
        assert_eq!(m.len(), 2, "a requirement of common words only is none: {m:#?}");
        assert_eq!((m[0].coverage, m[0].found.as_slice()), (Coverage::Missing, &[][..]), "{:#?}", m[0]);
        assert_eq!(m[0].missing, ["Medical"]);
        assert!(m[0].explanation.contains("common words not compared: design, device, fast, small"), "{:#?}", m[0]);
        assert_eq!(m[1].coverage, Coverage::Missing, "{:#?}", m[1]);
        // A nurse's files say `team` and `led`; a teacher's `department`.
        let got = coverage("## Requirements\n- Team leadership in oncology\n", NURSE);
        assert_eq!(got[0].1, Coverage::Missing, "{got:?}");
        assert!(is_common("designing") && is_common("equal-opportunity") && !is_common("experiments"));
        assert!(COMMON.windows(2).all(|w| w[0] < w[1]), "COMMON is sorted for binary search");
    }

    /// Years asked are compared with the years held: `years_experience`, the spans of `[ROLE]`
    /// entries that mention the subject, and `X (N years)` in a skills list.
    #[test]
    fn years_are_compared_with_the_years_held() {
        let m = matched(
            "## Requirements\n- 5+ years of nursing experience\n- 3+ years of nursing\n- 3+ years in acute medicine\n",
            NURSE,
        );
        assert_eq!(m[0].coverage, Coverage::Partial, "{:#?}", m[0]);
        assert!(
            m[0].explanation.contains("asks 5+ years; files: 4 years in all (years_experience, cc.md:6)"),
            "{m:#?}"
        );
        assert_eq!(m[0].missing, ["5 years (the files say 4 years)"]);
        assert_eq!(m[1].coverage, Coverage::Covered, "{:#?}", m[1]);
        // The acute medicine role runs from 2021 to the latest year the files name (2024).
        assert_eq!(m[2].coverage, Coverage::Covered, "{:#?}", m[2]);
        assert!(m[2].explanation.contains("3 years in roles that mention it (cc.md:12)"), "{}", m[2].explanation);
        // Roles: 2015-2023 teaching, with no years stated.
        let m =
            matched("## Requirements\n- At least five years' teaching experience\n- 10+ years of teaching\n", TEACHER);
        assert_eq!(m[0].coverage, Coverage::Covered, "{:#?}", m[0]);
        assert_eq!(m[1].coverage, Coverage::Partial, "{:#?}", m[1]);
        assert!(m[1].explanation.contains("8 years"), "{}", m[1].explanation);
        // A skills list: Rust (5 years), Go (8 years).
        let m = example("## Requirements\n- 7+ years of Rust\n- 5+ years of Go\n");
        assert_eq!(m[0].coverage, Coverage::Partial, "{:#?}", m[0]);
        assert!(m[0].explanation.contains("files: 5 years"), "{}", m[0].explanation);
        assert_eq!(m[1].coverage, Coverage::Covered, "{:#?}", m[1]);
        // Nothing about years in the files: missing.
        let got = coverage("## Requirements\n- 5+ years of experience\n", "# Someone\n\nLikes walks.\n");
        assert_eq!(got[0].1, Coverage::Missing);
    }

    /// Language levels on the CEFR scale, words read as levels: French at B2 does not meet
    /// "fluent" (C1); native meets anything.
    #[test]
    fn language_levels_are_compared_on_the_cefr_scale() {
        let m = matched(
            "## Requirements\n- Fluent French\n- Native English\n- Conversational French\n- Fluent English and French\n\
             - German (B1)\n",
            NURSE,
        );
        let cov: Vec<Coverage> = m.iter().map(|r| r.coverage).collect();
        assert_eq!(
            cov,
            [Coverage::Partial, Coverage::Covered, Coverage::Covered, Coverage::Partial, Coverage::Missing],
            "{m:#?}"
        );
        assert!(
            m[0].explanation.contains("asks French C1 (Fluent); files: French B2 (cc.md:7)"),
            "{}",
            m[0].explanation
        );
        assert_eq!(m[0].missing, ["French at C1 (files: B2)"]);
        let got = coverage("## Requirements\n- Fluent Spanish\n- Fluent Portuguese\n- Spanish or Portuguese\n", LAWYER);
        assert_eq!(
            got.iter().map(|g| g.1).collect::<Vec<_>>(),
            [Coverage::Partial, Coverage::Covered, Coverage::Covered]
        );
        let m = example("## Requirements\n- Fluent Spanish\n- Fluent English\n");
        assert_eq!((m[0].coverage, m[1].coverage), (Coverage::Partial, Coverage::Covered), "{m:#?}");
    }

    /// Classes found in a held-out review of twelve postings (tests/grounding/README.md).
    #[test]
    fn held_out_classes() {
        // Qualities are not requirements; a reason clause asks nothing.
        let posting = "## Requirements\n- Self-starter.\n- Strong communicator.\n- Essential: a collaborative \
            spirit.\n- Passion for your subject.\n- French, because many of our families speak it.\n";
        let found: Vec<&str> = requirements(posting).into_iter().map(|(s, _, _)| posting[s].trim()).collect();
        assert_eq!(found, ["- French, because many of our families speak it."]);
        // `, as well as` adds to what is asked; `, as a ...` says in what role.
        let m = matched("## Requirements\n- Fluent French, as well as Portuguese.\n", NURSE);
        assert!(m[0].missing.iter().any(|x| x.contains("Portuguese")), "{m:#?}");
        // A skill that starts with a word a quality could (energy, drive, resilience) stays.
        let skills = "## Requirements\n- Energy storage systems experience.\n- Drive improvement in patient safety.\n\
            - Resilience engineering for payment systems.\n";
        assert_eq!(requirements(skills).len(), 3, "{:?}", requirements(skills));
        let m = matched(posting, NURSE);
        assert_eq!(m[0].coverage, Coverage::Covered, "{m:#?}");
        // Prose cues: "we ask for", "we require", "would be welcome", "you speak".
        let prose = "Northgate is a busy trust. We ask for a degree in nursing. We require NMC registration. \
            Audit experience would be welcome. Ideally you also speak some French.\n";
        assert_eq!(requirements(prose).len(), 4, "{:?}", requirements(prose));
        // A least count is compared with the files' count of the same thing.
        let m = matched(
            "## Requirements\n- Trained at least five healthcare assistants.\n- Trained 10+ healthcare assistants.\n",
            NURSE,
        );
        assert_eq!((m[0].coverage, m[1].coverage), (Coverage::Covered, Coverage::Partial), "{m:#?}");
        assert!(m[1].explanation.contains("asks 10+ healthcare assistants; files: 6"), "{}", m[1].explanation);
        // Alternatives none of which is held leave the chunk missing.
        let got = coverage("## Requirements\n- Able to teach biology or physics.\n", NURSE);
        assert_eq!(got[0].1, Coverage::Missing, "{got:?}");
        // A degree said not to be held is not held.
        let nurse = format!(
            "{NURSE}\n### PgCert Leadership [DEGREE] - University of Leeds (2022)\n\nDid not continue to the MSc.\n"
        );
        let m = matched("## Requirements\n- A master's degree in nursing or leadership\n", &nurse);
        assert_eq!(m[0].coverage, Coverage::Partial, "{m:#?}");
        // never_claim: a requirement that names an item is missing, citing the key.
        let nurse =
            NURSE.replace("years_experience: 4", "years_experience: 4\nnever_claim: [independent prescriber, MSc]");
        let m = matched("## Requirements\n- Independent prescribing qualification\n- NMC registration\n", &nurse);
        assert_eq!(m[0].coverage, Coverage::Missing, "{m:#?}");
        assert!(m[0].explanation.contains("never_claim lists independent prescriber"), "{}", m[0].explanation);
        assert_eq!(m[0].evidence.last().and_then(|e| e.line), Some(7));
    }

    /// Degree levels: diploma < bachelor < master < doctorate; the subject must be the one asked.
    #[test]
    fn degree_levels_are_compared() {
        let m = matched(
            "## Requirements\n- A master's degree in Law\n- A degree in Law or Politics\n- An LLM degree\n- A PhD in Chemistry\n",
            LAWYER,
        );
        let cov: Vec<Coverage> = m.iter().map(|r| r.coverage).collect();
        // A degree below the level asked is no part of it (two hand-labelled corpora agree).
        assert_eq!(cov, [Coverage::Missing, Coverage::Covered, Coverage::Missing, Coverage::Missing], "{m:#?}");
        assert!(
            m[0].explanation.contains("asks a master's degree or above; files: a bachelor's degree (LLB Law"),
            "{}",
            m[0].explanation
        );
        let got = coverage(
            "## Requirements\n- A bachelor's degree in Mathematics\n- A PGCE\n- MSc in Mathematics\n",
            TEACHER,
        );
        assert_eq!(
            got.iter().map(|g| g.1).collect::<Vec<_>>(),
            [Coverage::Covered, Coverage::Covered, Coverage::Missing]
        );
        let got = coverage("## Requirements\n- BSc or MSc in Electronic Engineering\n", ENGINEER);
        assert_eq!(got[0].1, Coverage::Covered);
        let m = example("## Requirements\n- A PhD is a plus\n- BSc in Computer Science\n");
        assert_eq!((m[0].coverage, m[1].coverage), (Coverage::Missing, Coverage::Covered), "{m:#?}");
    }

    /// Sentences that ask nothing the files could show, and the company speaking of itself, are
    /// no requirements; duties stay out.
    #[test]
    fn sentences_without_a_requirement_are_dropped() {
        let posting = "## Requirements\n- We need someone good.\n- We are an equal-opportunity employer.\n\
            - Excellent people skills\n- NMC registration\n- 3+ years of experience\n\n## What you'll do\n\
            - You will lead the ward's audit programme\n";
        let found: Vec<&str> = requirements(posting).into_iter().map(|(s, _, _)| posting[s].trim()).collect();
        assert_eq!(found, ["- NMC registration", "- 3+ years of experience"]);
        let prose = "Northgate is hiring. We need someone good. You should hold NMC registration. \
            Northgate is an equal opportunity employer and welcomes applicants regardless of background.\n";
        let found: Vec<&str> = requirements(prose).into_iter().map(|(s, _, _)| prose[s].trim()).collect();
        assert_eq!(found, ["You should hold NMC registration."]);
    }

    /// Class 1a: the opening that names the post is no requirement; a sentence that asks for
    /// a qualification through the same words is one.
    #[test]
    fn the_sentence_naming_the_post_is_not_a_requirement() {
        let prose = "Kestrel Health is looking for a Community Matron to lead our district nursing service. \
            Riverside Primary, with 420 pupils, is seeking an experienced Deputy Head for September. \
            We are hiring a Senior Power Electronics Engineer who will own our inverter platform. \
            We are looking for a registered nurse with at least three years of district nursing experience. \
            We are looking for a Staff Nurse with ICU experience.\n";
        let found: Vec<&str> = requirements(prose).into_iter().map(|(s, _, _)| prose[s].trim()).collect();
        assert_eq!(
            found,
            [
                "We are looking for a registered nurse with at least three years of district nursing experience.",
                "We are looking for a Staff Nurse with ICU experience."
            ]
        );
        assert!(names_the_post("Our firm is recruiting a Partner in its Leeds office."));
        assert!(!names_the_post("We are looking for an ACCA accountant to join us."));
        assert!(!names_the_post("We are looking for NMC registration."));
    }

    /// Class 1b: "we need someone ..." asks only a trait unless it names something checkable.
    #[test]
    fn someone_with_a_trait_is_not_a_requirement() {
        let prose = "We need someone who keeps a sense of humour on a night shift. We want someone patient and \
            kind. We need someone with warmth and grit. We need someone who enjoys a challenge in the classroom. \
            We need someone with experience of paediatric wards. We need someone fluent in Welsh. \
            We need someone who has led a ward audit. We need someone with 5 years in family law.\n";
        let found: Vec<&str> = requirements(prose).into_iter().map(|(s, _, _)| prose[s].trim()).collect();
        assert_eq!(
            found,
            [
                "We need someone with experience of paediatric wards.",
                "We need someone fluent in Welsh.",
                "We need someone who has led a ward audit.",
                "We need someone with 5 years in family law."
            ]
        );
    }

    /// Class 2: a prose requirement that opens with what it asks, with no cue word, is read;
    /// its level is nice only when its main ask is hedged.
    #[test]
    fn prose_requirements_open_with_what_they_ask() {
        let prose = "# Employment Solicitor - Marlow & Finch\n\nMarlow & Finch is a 40-lawyer firm in Bristol. \
            Experience of Employment Tribunal advocacy is essential. A background in pensions disputes would be \
            welcome. Prior secondment to an in-house team is an advantage. Mediation accreditation is desirable. \
            Written Italian at B2 would help. Two years' experience in a regulated sector is useful. \
            You will also need a current practising certificate. It would help if you have trained trainees. \
            You will have run multi-claimant cases, ideally as lead fee earner. Our offices are in Bristol.\n";
        let found: Vec<(&str, Level)> = requirements(prose).into_iter().map(|(s, _, l)| (prose[s].trim(), l)).collect();
        assert_eq!(
            found,
            [
                ("Experience of Employment Tribunal advocacy is essential.", Level::Must),
                ("A background in pensions disputes would be welcome.", Level::Nice),
                ("Prior secondment to an in-house team is an advantage.", Level::Nice),
                ("Mediation accreditation is desirable.", Level::Nice),
                ("Written Italian at B2 would help.", Level::Nice),
                ("Two years' experience in a regulated sector is useful.", Level::Nice),
                ("You will also need a current practising certificate.", Level::Must),
                ("It would help if you have trained trainees.", Level::Nice),
                ("You will have run multi-claimant cases, ideally as lead fee earner.", Level::Must),
            ]
        );
        assert!(says_nice("Ideally, you will have taught A-level physics."));
        assert!(!says_nice("A degree, ideally in physics."));
    }

    /// A power electronics engineer whose files name the concepts in other words and forms.
    const POWER: &str = "\
# Lena Brandt - Power electronics engineer

## PROFESSIONAL EXPERIENCE

### Senior Hardware Engineer [ROLE] - Voltra Mobility (2018-2025)

- Designed a 48 V motor driver board with GaN FETs for cargo e-bikes.
- Took the charger through automotive EMC testing and ISO 26262 functional safety.
- Shipped 45,000 units in 2024.
";

    /// A family solicitor: nine years qualified, four of them in family law, an LLB.
    const FAMILY: &str = "\
# Ruth Oyelaran - Family solicitor

## PROFESSIONAL EXPERIENCE

### Associate Solicitor, Family [ROLE] - Pell & Dace (2021-2025)

- Financial remedy and children cases in family law; published two articles in Family Law Week.
- Regular speaker at regional Resolution meetings.

### Solicitor, Commercial Litigation [ROLE] - Orme LLP (2016-2021)

- Contract disputes for manufacturers.

## EDUCATION

### LLB Law [DEGREE] - University of Leicester (2011-2014)
";

    /// Class 3: filler nouns, a name's descriptors and other word forms do not hold back a
    /// requirement whose concepts are in the files; two thirds of a chunk's groups carry it.
    #[test]
    fn coverage_reads_concepts_not_every_word() {
        let got = coverage(
            "## Requirements\n- Practical experience with SiC or GaN converters\n- Experience with motor drives or \
             solar inverters\n- You should have taken a design through automotive EMC testing and ISO 26262 functional \
             safety.\n- You should have shipped a product in volume, meaning thousands of units.\n- Experience with \
             SiC MOSFETs and traction inverters\n",
            POWER,
        );
        assert_eq!(
            got.iter().map(|g| g.1).collect::<Vec<_>>(),
            [Coverage::Covered, Coverage::Covered, Coverage::Covered, Coverage::Covered, Coverage::Missing],
            "{got:#?}"
        );
        let teacher = "# Sam Ode - Chemistry teacher\n\n## PROFESSIONAL EXPERIENCE\n\n### Head of Chemistry [ROLE] - \
            Fenwick Academy (2017-2024)\n\n- Rewrote the Key Stage 4 chemistry scheme of work.\n";
        let m = matched("## Requirements\n- Experience of writing a scheme of work for a key stage\n", teacher);
        assert_eq!(m[0].coverage, Coverage::Covered, "{m:#?}");
        assert!(m[0].explanation.contains("met without: writing"), "{}", m[0].explanation);
        // Alternatives are whole phrases; a name asked is never passed over.
        let m = matched(
            "## Requirements\n- Published work or a speaking record in family law\n- Experience in family \
             mediation and Collaborative Law\n",
            FAMILY,
        );
        // Family law is held, but neither family mediation nor Collaborative Law.
        assert_eq!((m[0].coverage, m[1].coverage), (Coverage::Covered, Coverage::Missing), "{m:#?}");
        // A phrase with a word the files lack is another concept: paediatric intensive care is
        // not half of adult intensive care.
        let got = coverage("## Requirements\n- Experience in paediatric intensive care\n", NURSE);
        assert_eq!(got[0].1, Coverage::Missing, "{got:?}");
    }

    /// Class 3, levels: years are of what follows the number, and a degree asked at a level the
    /// files lack is never covered.
    #[test]
    fn years_and_degrees_are_of_the_subject_asked() {
        let m = matched(
            "## Requirements\n- A solicitor with 6+ years' PQE in family law\n- 8+ years as a solicitor\n\
             - An LLM in family law\n- An MA in Criminology\n",
            FAMILY,
        );
        let cov: Vec<Coverage> = m.iter().map(|r| r.coverage).collect();
        assert_eq!(cov, [Coverage::Partial, Coverage::Covered, Coverage::Missing, Coverage::Missing], "{m:#?}");
        assert!(m[0].explanation.contains("asks 6+ years; files: 4 years in roles"), "{}", m[0].explanation);
        // A postgraduate certificate is below the master's asked.
        let nurse = "# Jo Reyes - Nurse educator\n\n## EDUCATION\n\n### BSc Nursing [DEGREE] - University of Hull \
            (2010-2013)\n\n### Postgraduate Certificate in Clinical Education [QUALIFICATION] - University of Hull \
            (2018-2019)\n";
        let m = matched("## Requirements\n- A master's degree in nursing or clinical education\n", nurse);
        assert_eq!(m[0].coverage, Coverage::Partial, "{m:#?}");
        assert!(m[0].explanation.contains("files: a bachelor's degree"), "{}", m[0].explanation);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 300, ..Default::default() })]
        /// Requirement extraction and coverage never panic, whatever the posting.
        #[test]
        fn never_panics_on_any_posting(posting in "(?s)[ -~\n\t–—’é%#*•:-]{0,300}|\\PC{0,200}") {
            let m = match_job(&posting, Sources { context: Some(("c.md", &posting)), graph: None, ..Default::default() }, &posting);
            for r in &m.requirements {
                proptest::prop_assert!(r.line >= 1);
            }
        }
    }
}

//! Levels that a job requirement asks for and the person's files hold, each on its own scale:
//! years of experience, language levels (CEFR) and degree levels. A requirement's words can be
//! in the files while its level is not ("fluent French" against French at B2, "a master's
//! degree" against a BSc), so a level is compared, not looked up.

use std::collections::{HashMap, HashSet};

use super::Evidence;
use super::evidence::{Origin, Passage};
use super::evidence_at;
use super::text::{Word, fold, is_content, lead_stems, numbers, root, stem, words};

/// Where a piece of evidence is, for an explanation: `file:line` or a record id.
pub fn place(e: &Evidence) -> String {
    match (&e.origin, e.line) {
        (Origin::Context { file, .. }, Some(l)) => format!("{file}:{l}"),
        (Origin::Context { file, .. }, None) => file.clone(),
        (Origin::Record { id, .. }, _) => id.clone(),
    }
}

/// How well the files meet one part of a requirement.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Met {
    Missing,
    /// Held, but below the level asked (or at a level the files do not state).
    Short,
    Met,
}

// ---------------------------------------------------------------------------------------------
// Years of experience

/// The years a requirement asks for: `5+ years`, `at least five years'`, `3-5 years` (the lower
/// end). Only numbers counted in years that are not calendar years.
pub fn years_asked(text: &str) -> Option<(f64, String)> {
    years_asked_at(text).map(|(n, shown, _)| (n, shown))
}

/// [`years_asked`], with the byte of `text` where the number ends.
pub fn years_asked_at(text: &str) -> Option<(f64, String, usize)> {
    let ws = words(text);
    let n = numbers(text, &ws).into_iter().find(|n| !n.year && n.unit.as_deref() == Some("year"))?;
    if !(0.5..=60.0).contains(&n.value) {
        return None;
    }
    let t = fold(text);
    let plus = text[n.span.end..].starts_with('+')
        || ["at least", "minimum", "more than", "over "].iter().any(|k| t.contains(k));
    Some((n.value, format!("{}{} years", n.value, if plus { "+" } else { "" }), n.span.end))
}

/// A `[ROLE]` entry of the Career Context: its years and the stems of everything written in it.
#[derive(Debug)]
struct Role {
    from: i32,
    /// `None`: to the present.
    to: Option<i32>,
    stems: HashSet<String>,
    /// The [`root`]s of its words, for a subject of several words written in another form
    /// ("acute medicine" in a role on an "Acute Medical Unit").
    roots: HashSet<String>,
    evidence: Evidence,
}

/// `N years` said of something in the files (`Rust (5 years)`, `eight years of nursing`).
#[derive(Debug)]
struct SaidYears {
    stems: Vec<String>,
    value: f64,
    evidence: Evidence,
}

// ---------------------------------------------------------------------------------------------
// Languages

/// Language names, folded and sorted (binary-searched): the one list that postings (`match`) and
/// claims and files (`check`) are read with.
const LANGUAGES: &[&str] = &[
    "afrikaans",
    "albanian",
    "amharic",
    "arabic",
    "basque",
    "bengali",
    "bulgarian",
    "cantonese",
    "catalan",
    "chinese",
    "croatian",
    "czech",
    "danish",
    "dutch",
    "english",
    "estonian",
    "farsi",
    "filipino",
    "finnish",
    "flemish",
    "french",
    "gaelic",
    "galician",
    "german",
    "greek",
    "gujarati",
    "hausa",
    "hebrew",
    "hindi",
    "hungarian",
    "icelandic",
    "igbo",
    "indonesian",
    "irish",
    "italian",
    "japanese",
    "korean",
    "latvian",
    "lithuanian",
    "luxembourgish",
    "malay",
    "maltese",
    "mandarin",
    "marathi",
    "norwegian",
    "persian",
    "polish",
    "portuguese",
    "punjabi",
    "romanian",
    "russian",
    "serbian",
    "slovak",
    "slovenian",
    "somali",
    "spanish",
    "swahili",
    "swedish",
    "tagalog",
    "tamil",
    "telugu",
    "thai",
    "turkish",
    "twi",
    "ukrainian",
    "urdu",
    "vietnamese",
    "welsh",
    "xhosa",
    "yoruba",
    "zulu",
];

pub fn is_language(folded: &str) -> bool {
    LANGUAGES.binary_search(&folded).is_ok()
}

/// CEFR levels, 1 (A1) to 6 (C2).
const CEFR: [&str; 6] = ["A1", "A2", "B1", "B2", "C1", "C2"];

pub fn cefr_name(level: u8) -> &'static str {
    CEFR.get(usize::from(level.clamp(1, 6)) - 1).copied().unwrap_or("C2")
}

/// Words and two-word phrases for a language level, read as the CEFR level they are usually
/// taken for: basic ~A2, conversational ~B1, professional working ~B2, fluent ~C1, native ~C2.
/// Two-word phrases are tried first ("full professional" is not "professional").
const LEVEL_PHRASES: &[(&str, &str, u8)] = &[
    ("full", "professional", 5),
    ("professional", "working", 4),
    ("limited", "working", 2),
    ("working", "knowledge", 3),
    ("upper", "intermediate", 4),
    ("mother", "tongue", 6),
    ("first", "language", 6),
];
const LEVEL_WORDS: &[(&str, u8)] = &[
    ("beginner", 1),
    ("basic", 2),
    ("elementary", 2),
    ("conversational", 3),
    ("intermediate", 3),
    ("working", 3),
    ("upper-intermediate", 4),
    ("business", 4),
    ("professional", 4),
    ("fluent", 5),
    ("fluently", 5),
    ("fluency", 5),
    ("advanced", 5),
    ("proficient", 5),
    ("bilingual", 6),
    ("native", 6),
    ("native-level", 6),
    ("native-like", 6),
    ("mother-tongue", 6),
];

/// Whether a folded word only says a language level (not a term to look up).
pub fn is_level_word(folded: &str) -> bool {
    CEFR.iter().any(|c| c.eq_ignore_ascii_case(folded))
        || LEVEL_WORDS.iter().any(|(w, _)| *w == folded)
        || LEVEL_PHRASES.iter().any(|(a, b, _)| *a == folded || *b == folded)
}

/// The level a language-level expression starting at word `i` states, and how many words it
/// takes.
fn level_at(ws: &[Word<'_>], i: usize) -> Option<(u8, usize)> {
    let f = fold(ws[i].text);
    if let Some(next) = ws.get(i + 1).map(|w| fold(w.text))
        && let Some((_, _, l)) = LEVEL_PHRASES.iter().find(|(a, b, _)| *a == f && *b == next)
    {
        return Some((*l, 2));
    }
    if let Some(c) = CEFR.iter().position(|c| c.eq_ignore_ascii_case(&f)) {
        return u8::try_from(c + 1).ok().map(|l| (l, 1));
    }
    LEVEL_WORDS.iter().find(|(w, _)| *w == f).map(|(_, l)| (*l, 1))
}

/// The first language level a text states (`C1`, `fluent`, `professional working
/// proficiency`), on the scale of [`CEFR`] (native is 6).
pub fn level_in(text: &str) -> Option<u8> {
    let ws = words(text);
    (0..ws.len()).find_map(|i| level_at(&ws, i)).map(|(l, _)| l)
}

/// How many words from a language name a level said of it may stand ("fluent in spoken and
/// written French"): further off, `working` or `business` are about something else.
const LEVEL_REACH: usize = 4;

/// The level asked of the language at word `at` of a requirement: the level expression nearest
/// to it ("native English and conversational Spanish"), within [`LEVEL_REACH`] words.
pub fn language_level_asked(ws: &[Word<'_>], at: usize) -> Option<(u8, String)> {
    let mut best: Option<(usize, u8, String)> = None;
    let mut i = at.saturating_sub(LEVEL_REACH);
    while i < ws.len() && i <= at + LEVEL_REACH {
        if let Some((l, n)) = level_at(ws, i) {
            let d = i.abs_diff(at);
            if best.as_ref().is_none_or(|b| d < b.0) {
                let shown = ws[i..i + n].iter().map(|w| w.text).collect::<Vec<_>>().join(" ");
                best = Some((d, l, shown));
            }
            i += n;
        } else {
            i += 1;
        }
    }
    best.map(|(_, l, s)| (l, s))
}

/// The level the files give the language at word `i` of a passage: a level expression right
/// after it (`French (C1)`, `Portuguese: native`, up to the next language named) or just before
/// it in its clause (`native French speaker`).
pub(crate) fn language_level_held(ws: &[Word<'_>], i: usize) -> Option<u8> {
    let mut j = i + 1;
    while j < ws.len() && j <= i + 5 {
        if is_language(&fold(ws[j].text)) {
            break;
        }
        if let Some((l, _)) = level_at(ws, j) {
            return Some(l);
        }
        j += 1;
    }
    if !ws[i].after_break {
        for j in (i.saturating_sub(2)..i).rev() {
            if let Some((l, _)) = level_at(ws, j) {
                return Some(l);
            }
            if ws[j].after_break {
                break;
            }
        }
    }
    None
}

// ---------------------------------------------------------------------------------------------
// Degrees

/// Degree levels: 1 diploma or associate, 2 bachelor, 3 master, 4 doctorate.
pub fn degree_name(level: u8) -> &'static str {
    match level {
        1 => "a diploma",
        2 => "a bachelor's degree",
        3 => "a master's degree",
        _ => "a doctorate",
    }
}

/// The degree level a word names, and whether the word names a degree only where a text is
/// about degrees (`MA`, `MS`, `BA` are also a state, milliseconds, an airline; `master` a
/// Scrum Master). Abbreviations count only when written with a capital.
pub(crate) fn degree_word(word: &str) -> Option<(u8, bool)> {
    let f: String = fold(word).chars().filter(|c| *c != '.').collect();
    let f = f.strip_suffix("'s").or_else(|| f.strip_suffix("s'")).unwrap_or(&f);
    let capital = word.starts_with(|c: char| c.is_uppercase());
    let level = match f {
        "diploma" => (1, false),
        "associate" | "associates" => (1, true),
        "bachelor" | "bachelors" | "undergraduate" => (2, false),
        "bsc" | "beng" | "llb" | "bba" if capital => (2, false),
        "ba" | "bs" | "bed" | "bfa" | "ab" if capital => (2, true),
        "masters" => (3, false),
        "master" | "postgraduate" => (3, true),
        "msc" | "meng" | "mba" | "mphil" | "mres" | "mchem" | "mphys" | "mmath" | "msci" | "jd" if capital => {
            (3, false)
        }
        "pgce" | "pgcert" | "pgdip" if capital => (2, false),
        "ma" | "ms" | "llm" | "med" | "mfa" if capital => (3, true),
        "phd" | "dphil" | "edd" if capital => (4, false),
        "doctorate" => (4, false),
        "doctoral" => (4, true),
        _ => return None,
    };
    Some(level)
}

/// Whether a folded word is part of naming a degree level (not a term to look up).
pub fn is_degree_word(word: &str) -> bool {
    degree_word(word).is_some()
}

/// Whether a text is about degrees, so that an ambiguous degree word in it names one.
pub(crate) fn about_degrees(folded: &str) -> bool {
    ["degree", "hons", "graduat", "[thesis]"].iter().any(|k| folded.contains(k))
}

/// The degree levels named in `ws` (`degree` alone, when it is not `360-degree` or `a degree
/// of`, is a bachelor's): (level, word index).
/// Whether word `i` is said not to be so: a negation among the few words before it, in its
/// sentence ("did not continue to the MSc", "never completed a PhD", "no degree").
pub(crate) fn negated_before(ws: &[Word<'_>], i: usize) -> bool {
    let mut k = i;
    while k > 0 && i - k < 8 && !ws[k].after_break {
        k -= 1;
        let f = fold(ws[k].text);
        if matches!(f.as_str(), "not" | "never" | "no" | "without" | "didn't" | "didnt" | "hasn't" | "haven't" | "nor")
        {
            return true;
        }
    }
    false
}

fn degrees_in(ws: &[Word<'_>], about: bool) -> Vec<(u8, usize)> {
    let mut out = Vec::new();
    let next = |i: usize| ws.get(i + 1).map(|n| fold(n.text)).unwrap_or_default();
    for (i, w) in ws.iter().enumerate() {
        if let Some((l, ambiguous)) = degree_word(w.text) {
            // "An LLM in employment law", "an MA": an abbreviation after an article or before
            // its subject names a degree (`MS Office`, `a Scrum Master` do not).
            let named = w.text.len() <= 4
                && ((i > 0 && matches!(fold(ws[i - 1].text).as_str(), "a" | "an")) || next(i) == "in");
            // A postgraduate certificate or diploma is below a master's.
            let l = if l == 3 && matches!(next(i).as_str(), "certificate" | "cert" | "diploma") { 2 } else { l };
            if about || !ambiguous || named {
                out.push((l, i));
            }
        } else if fold(w.text) == "degree" || fold(w.text) == "degrees" {
            let after_number = i > 0 && ws[i - 1].text.starts_with(|c: char| c.is_ascii_digit());
            let of = ws.get(i + 1).is_some_and(|n| fold(n.text) == "of");
            if !after_number && !of {
                out.push((2, i));
            }
        }
    }
    out
}

/// The lowest degree level a requirement names ("a bachelor's or master's": a bachelor's).
pub fn degree_asked(text: &str) -> Option<u8> {
    let ws = words(text);
    let found = degrees_in(&ws, about_degrees(&fold(text)));
    // `degree` next to a level word is that level, not a bachelor's on its own.
    let named: Vec<u8> = found.iter().filter(|(_, i)| !is_plain_degree(&ws, *i)).map(|d| d.0).collect();
    if named.is_empty() { found.first().map(|d| d.0) } else { named.into_iter().min() }
}

fn is_plain_degree(ws: &[Word<'_>], i: usize) -> bool {
    degree_word(ws[i].text).is_none()
}

/// A degree the files hold: its level, the stems of the passage that names it, and where.
#[derive(Debug)]
struct HeldDegree {
    level: u8,
    stems: HashSet<String>,
    shown: String,
    evidence: Evidence,
}

// ---------------------------------------------------------------------------------------------
// What the files hold

/// The levels the Career Context holds, read once per posting.
#[derive(Debug, Default)]
pub struct Held {
    /// `years_experience: N` in the QUICK REFERENCE.
    stated_total: Option<(f64, Evidence)>,
    roles: Vec<Role>,
    said: Vec<SaidYears>,
    /// The year "present" stands for: the current year when the caller gives it, else the
    /// latest calendar year the files name (a lower bound never credits years the person has
    /// not said).
    present: i32,
    /// Each language named (folded), with the highest level the files give it, and where.
    languages: HashMap<String, (Option<u8>, Evidence)>,
    degrees: Vec<HeldDegree>,
}

/// Words saying a standing began in the year after them (`registered in 2012`, `admitted:
/// 2017`, `qualified as a solicitor in 2014`): the years since then are years held of it.
const SINCE_CUES: &[&str] = &[
    "registered",
    "registration",
    "qualified",
    "admitted",
    "admitted_as_solicitor",
    "chartered",
    "licensed",
    "called",
];

/// Whether a Career Context passage is a QUICK REFERENCE `years_experience` entry (its `_` read
/// as spaces).
fn stated_years(p: &Passage) -> Option<&super::text::Number> {
    let body = fold(p.text.get(p.body..)?);
    let key = body.split(':').next()?.trim();
    matches!(key, "years experience" | "years of experience" | "experience years")
        .then(|| p.numbers.iter().find(|n| !n.year))
        .flatten()
}

impl Held {
    pub fn new(context: &[Passage], year_now: Option<i32>) -> Held {
        let mut held = Held { present: year_now.unwrap_or(0), ..Held::default() };
        let mut role_at: HashMap<usize, usize> = HashMap::new();
        let mut seen_degrees: HashSet<(u8, Option<usize>)> = HashSet::new();
        // `registered in 2012`, `admitted_as_solicitor: 2017`: a standing held since a year,
        // counted once the present year is known.
        let mut since: Vec<(i32, Vec<String>, Evidence)> = Vec::new();
        for p in context {
            held.present =
                held.present.max(p.numbers.iter().filter(|n| n.year).map(|n| n.value as i32).max().unwrap_or(0));
            let ws = words(&p.text);
            if held.stated_total.is_none()
                && let Some(n) = stated_years(p)
            {
                held.stated_total = Some((n.value, evidence_at(p, n.span.start)));
            }
            // A role's heading: `### Title [ROLE] - Employer (2016-2020)` or `(2021-present)`.
            if p.text.starts_with('#')
                && p.text.contains("[ROLE]")
                && let Some(&line) = p.entries.last()
                && let Some((from, to, at)) = span_of(&p.text, &p.numbers)
            {
                role_at.insert(line, held.roles.len());
                held.roles.push(Role {
                    from,
                    to,
                    stems: HashSet::new(),
                    roots: HashSet::new(),
                    evidence: evidence_at(p, at),
                });
            }
            for n in p.numbers.iter().filter(|n| !n.year && n.unit.as_deref() == Some("year")) {
                let mut stems = lead_stems(&p.text, &ws, n.span.start, p.body);
                // `eight years of nursing`: the words after `years of`, up to a break.
                if let Some(i) = super::text::word_at(&ws, n.span.start) {
                    let after = ws[i + 1..].iter().take(6);
                    for w in after.skip(1).take_while(|w| !w.after_break) {
                        stems.push(stem(w.text));
                    }
                }
                held.said.push(SaidYears { stems, value: n.value, evidence: evidence_at(p, n.span.start) });
            }
            if let Some(cue) = ws.iter().position(|w| SINCE_CUES.contains(&fold(w.text).as_str()))
                && let Some(y) = p.numbers.iter().find(|n| n.year && n.span.start > ws[cue].span.start)
            {
                let stems = ws.iter().filter(|w| is_content(w.text)).map(|w| stem(w.text)).collect();
                since.push((y.value as i32, stems, evidence_at(p, y.span.start)));
            }
            for (i, w) in ws.iter().enumerate() {
                let f = fold(w.text);
                if w.text.starts_with(char::is_uppercase) && is_language(&f) {
                    let level = language_level_held(&ws, i);
                    let e = held.languages.entry(f).or_insert((None, evidence_at(p, w.span.start)));
                    if level > e.0 {
                        *e = (level, evidence_at(p, w.span.start));
                    }
                }
            }
            let folded = fold(&p.text);
            let about = about_degrees(&folded) || section_about_degrees(p);
            // "Did not continue to the MSc", "never finished the PhD": a degree named as not
            // held is not held (found in a held-out review).
            let held_here = |&(_, i): &(u8, usize)| !negated_before(&ws, i);
            if let Some((level, i)) = degrees_in(&ws, about).into_iter().filter(held_here).max_by_key(|d| d.0) {
                let e = evidence_at(p, ws[i].span.start);
                if seen_degrees.insert((level, e.line)) {
                    held.degrees.push(HeldDegree {
                        level,
                        stems: p.stems.clone(),
                        shown: e.excerpt.clone(),
                        evidence: e,
                    });
                }
            }
        }
        for (year, stems, evidence) in since {
            if held.present > year {
                held.said.push(SaidYears { stems, value: f64::from(held.present - year), evidence });
            }
        }
        for p in context {
            for e in &p.entries {
                if let Some(&r) = role_at.get(e) {
                    held.roles[r].stems.extend(p.stems.iter().cloned());
                    held.roles[r].roots.extend(p.words.iter().map(|w| root(w)));
                }
            }
        }
        held
    }

    /// The years the files hold for a requirement about `subjects` (each a term's folded words):
    /// years said of one of them, or the years of the roles that mention one, capped by the
    /// stated total; else the stated total, else the span of all roles. With where they are.
    pub fn years(&self, subjects: &[Vec<String>]) -> Option<(f64, String)> {
        // Stemmed once; one-word subjects looked up, not scanned, for each passage that says
        // years (a requirement can have thousands of terms).
        let stemmed: Vec<Vec<String>> = subjects.iter().map(|t| t.iter().map(|w| stem(w)).collect()).collect();
        let singles: HashSet<&str> = stemmed.iter().filter(|t| t.len() == 1).map(|t| t[0].as_str()).collect();
        let multi: Vec<(&Vec<String>, Vec<String>)> = stemmed
            .iter()
            .zip(subjects)
            .filter(|(t, _)| t.len() > 1)
            .map(|(t, words)| (t, words.iter().map(|w| root(w)).collect()))
            .collect();
        let about = |stems: &HashSet<&str>, roots: Option<&HashSet<String>>| {
            let single = if singles.len() < stems.len() {
                singles.iter().any(|s| stems.contains(s))
            } else {
                stems.iter().any(|s| singles.contains(s))
            };
            single
                || multi.iter().any(|(t, r)| {
                    t.iter().zip(r).all(|(w, r)| stems.contains(w.as_str()) || roots.is_some_and(|rs| rs.contains(r)))
                })
        };
        let said = self
            .said
            .iter()
            .filter(|s| about(&s.stems.iter().map(String::as_str).collect(), None))
            .max_by(|a, b| a.value.total_cmp(&b.value));
        let roles: Vec<&Role> = self
            .roles
            .iter()
            .filter(|r| about(&r.stems.iter().map(String::as_str).collect(), Some(&r.roots)))
            .collect();
        let role_years = self.span_years(&roles);
        let cap = |v: f64| self.stated_total.as_ref().map_or(v, |(t, _)| v.min(*t));
        let subject = match (said, role_years) {
            (Some(s), Some((r, _))) if s.value >= cap(r) => {
                Some((s.value, format!("{} years ({})", s.value, place(&s.evidence))))
            }
            (_, Some((r, why))) => Some((cap(r), format!("{} years in roles that mention it ({why})", cap(r)))),
            (Some(s), None) => Some((s.value, format!("{} years ({})", s.value, place(&s.evidence)))),
            (None, None) => None,
        };
        if subject.is_some() {
            return subject;
        }
        if let Some((t, e)) = &self.stated_total {
            return Some((*t, format!("{t} years in all (years_experience, {})", place(e))));
        }
        let all: Vec<&Role> = self.roles.iter().collect();
        self.span_years(&all).map(|(y, why)| (y, format!("{y} years in all roles ({why})")))
    }

    /// The years a set of roles spans (overlaps counted once), and the headings they start at.
    fn span_years(&self, roles: &[&Role]) -> Option<(f64, String)> {
        if roles.is_empty() {
            return None;
        }
        let mut spans: Vec<(i32, i32)> =
            roles.iter().map(|r| (r.from, r.to.unwrap_or(self.present).max(r.from))).collect();
        spans.sort_unstable();
        let (mut total, mut cur): (i32, Option<(i32, i32)>) = (0, None);
        for (a, b) in spans {
            cur = match cur {
                Some((ca, cb)) if a <= cb => Some((ca, cb.max(b))),
                Some((ca, cb)) => {
                    total += cb - ca;
                    Some((a, b))
                }
                None => Some((a, b)),
            };
        }
        if let Some((a, b)) = cur {
            total += b - a;
        }
        let places: Vec<String> = roles.iter().take(4).map(|r| place(&r.evidence)).collect();
        Some((f64::from(total), places.join(", ")))
    }

    /// The level the files give a language (folded name): `None` when not named, `Some(None)`
    /// when named without a level.
    pub fn language(&self, folded: &str) -> Option<(Option<u8>, &Evidence)> {
        self.languages.get(folded).map(|(l, e)| (*l, e))
    }

    /// The best degree the files hold about `subjects` (any degree when there are none): its
    /// level, what it is and where; with whether it is about a subject asked.
    pub fn degree(&self, subjects: &[Vec<String>]) -> Option<(u8, String, bool)> {
        let about =
            |d: &HeldDegree| subjects.iter().any(|t| !t.is_empty() && t.iter().all(|w| d.stems.contains(&stem(w))));
        let show =
            |d: &HeldDegree| format!("{}, {}", d.shown.trim_start_matches(['#', ' ', '-', '*']), place(&d.evidence));
        // The first of the highest: an entry's heading comes before the VERIFIED FACTS.
        let best = |it: &mut dyn Iterator<Item = &HeldDegree>| {
            it.fold(None::<&HeldDegree>, |b, d| if b.is_some_and(|b| b.level >= d.level) { b } else { Some(d) })
                .map(|d| (d.level, show(d)))
        };
        if subjects.is_empty() {
            return best(&mut self.degrees.iter()).map(|(l, s)| (l, s, true));
        }
        if let Some((l, s)) = best(&mut self.degrees.iter().filter(|d| about(d))) {
            return Some((l, s, true));
        }
        best(&mut self.degrees.iter()).map(|(l, s)| (l, s, false))
    }
}

/// Whether a passage is in a section about education or qualifications.
fn section_about_degrees(p: &Passage) -> bool {
    match &p.origin {
        Origin::Context { section, .. } => {
            let s = section.to_lowercase();
            s.contains("educat") || s.contains("qualif") || s.contains("academic")
        }
        Origin::Record { .. } => false,
    }
}

/// The years of an entry heading (`(2016-2020)`, `(2021-present)`): from, to (None: present),
/// and where the span starts.
fn span_of(text: &str, nums: &[super::text::Number]) -> Option<(i32, Option<i32>, usize)> {
    let years: Vec<&super::text::Number> = nums.iter().filter(|n| n.year).collect();
    let first = years.first()?;
    let from = first.value as i32;
    let after = fold(text[first.span.end..].trim_start_matches([' ', '-', '–', '—']).trim_start());
    let after = after.strip_prefix("to ").unwrap_or(&after).trim_start();
    if ["present", "now", "current", "today", "date", "ongoing"].iter().any(|k| after.starts_with(k)) {
        return Some((from, None, first.span.start));
    }
    let to = years.get(1).map_or(from, |n| n.value as i32);
    Some((from, Some(to.max(from)), first.span.start))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_are_sorted_for_binary_search() {
        assert!(LANGUAGES.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn years_degrees_and_language_levels_asked() {
        assert_eq!(years_asked("5+ years of Rust"), Some((5.0, "5+ years".into())));
        assert_eq!(years_asked("at least five years' experience in ICU nursing").map(|y| y.0), Some(5.0));
        assert_eq!(years_asked("3-5 years in litigation").map(|y| y.0), Some(3.0));
        assert_eq!(years_asked("Graduated in 2019"), None);
        assert_eq!(degree_asked("A master's degree in Law"), Some(3));
        assert_eq!(degree_asked("a nursing or midwifery degree"), Some(2));
        assert_eq!(degree_asked("BSc or MSc in Physics"), Some(2));
        assert_eq!(degree_asked("PhD in Chemistry is a plus"), Some(4));
        assert_eq!(degree_asked("360-degree feedback and a high degree of autonomy"), None);
        assert_eq!(degree_asked("Experience with LLMs and MS Office"), None);
        let ws = words("Native English and conversational Spanish");
        assert_eq!(language_level_asked(&ws, 1).map(|l| l.0), Some(6));
        assert_eq!(language_level_asked(&ws, 4).map(|l| l.0), Some(3));
    }
}

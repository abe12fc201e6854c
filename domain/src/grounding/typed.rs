//! A claim read as typed assertions about entities of the [`FactModel`], and each judged
//! against the entity it is about.
//!
//! The assertions: a title held at an employer, the dates of an entry, a duration at an
//! employer, total years of experience, a degree (level, field, institution, year), a
//! certificate, award or paper with its year, a location, a language with its level, and a
//! `never_claim` item. A claim is about the entities it names by organisation or by name; a
//! claim that names none is about the entity of the claim before it in the same part of the
//! draft (`There I ...`, the bullets under a CV's role heading).
//!
//! Verdicts: supported when the entity carries every part, contradicted when it carries a
//! different value for the same attribute (the true value is cited), unsupported when no
//! entity matches (an invented employer, degree or certificate).

use std::collections::{HashMap, HashSet};
use std::ops::Range;

use super::Evidence;
use super::facts::{Dates, End, Entity, FactModel, Kind, year_of as year_word};
use super::text::{self, Word, fold, stem};

/// What an assertion is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AssertionKind {
    Title,
    Dates,
    Duration,
    Experience,
    Degree,
    Credential,
    Location,
    Language,
    NeverClaim,
    Employment,
}

impl AssertionKind {
    pub fn as_str(self) -> &'static str {
        match self {
            AssertionKind::Title => "title",
            AssertionKind::Dates => "dates",
            AssertionKind::Duration => "duration",
            AssertionKind::Experience => "total_experience",
            AssertionKind::Degree => "degree",
            AssertionKind::Credential => "credential",
            AssertionKind::Location => "location",
            AssertionKind::Language => "language",
            AssertionKind::NeverClaim => "never_claim",
            AssertionKind::Employment => "employment",
        }
    }
}

/// The verdict on one assertion.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    Supported(Evidence),
    /// The files give `found` for the same attribute.
    Contradicted {
        evidence: Evidence,
        found: String,
    },
    /// No entity of the files matches.
    Unsupported,
}

impl Verdict {
    pub fn as_str(&self) -> &'static str {
        match self {
            Verdict::Supported(_) => "supported",
            Verdict::Contradicted { .. } => "contradicted",
            Verdict::Unsupported => "unsupported",
        }
    }
}

/// One typed assertion of a claim.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Assertion {
    pub kind: AssertionKind,
    /// The words of the claim it was read from, and their byte range in the draft.
    pub text: String,
    pub span: Range<usize>,
    pub verdict: Verdict,
    /// How it was judged, in words: the entity, the attribute compared, the value found.
    pub explain: String,
}

/// The entity a claim is about, carried to the claims after it.
pub type Subject = Option<Entity>;

/// What reading one claim gave.
#[derive(Debug, Default)]
pub struct Reading {
    pub assertions: Vec<Assertion>,
    /// The claim asserts a job, degree or credential (so a name in it that the files lack is
    /// an invented entity, not a detail).
    pub anchored: bool,
    /// The claim names an entity of the files: a role or degree by its organisation, or any
    /// entry by its own name (an award body's name alone does not name its award).
    pub names_entity: bool,
    /// The words of each entity the claim names (title and organisation), with its evidence.
    pub named: Vec<(Vec<String>, Evidence)>,
}

impl Reading {
    /// The evidence of a named entity whose title and organisation hold every word of `name`
    /// (joining words aside).
    pub fn covering(&self, name: &[String]) -> Option<&Evidence> {
        self.named
            .iter()
            .find(|(words, _)| {
                name.iter()
                    .all(|w| matches!(w.as_str(), "of" | "the" | "for" | "at" | "&" | "and") || words.contains(w))
            })
            .map(|(_, e)| e)
    }
}

/// Role words that end a job title (singular: `engineers` counts people, not a title).
const HEADS: &[&str] = &[
    "engineer",
    "developer",
    "programmer",
    "nurse",
    "midwife",
    "sister",
    "matron",
    "practitioner",
    "manager",
    "director",
    "head",
    "lead",
    "teacher",
    "lecturer",
    "professor",
    "tutor",
    "instructor",
    "educator",
    "principal",
    "headteacher",
    "lawyer",
    "solicitor",
    "barrister",
    "attorney",
    "associate",
    "partner",
    "counsel",
    "paralegal",
    "clerk",
    "consultant",
    "analyst",
    "scientist",
    "researcher",
    "designer",
    "architect",
    "officer",
    "specialist",
    "coordinator",
    "administrator",
    "technician",
    "technologist",
    "assistant",
    "intern",
    "trainee",
    "apprentice",
    "founder",
    "co-founder",
    "cto",
    "ceo",
    "coo",
    "cfo",
    "vp",
    "president",
    "owner",
    "editor",
    "accountant",
    "auditor",
    "advisor",
    "adviser",
    "fellow",
    "physician",
    "surgeon",
    "pharmacist",
    "therapist",
    "coach",
    "supervisor",
    "chief",
    "executive",
    "tester",
    "operator",
    "mentor",
    "chef",
    "cook",
    "baker",
    "sommelier",
    "surveyor",
    "foreman",
    "electrician",
    "carpenter",
    "plumber",
    "inspector",
    "agent",
    "planner",
    "buyer",
    "worker",
    "receptionist",
    "caretaker",
    "dentist",
    "paramedic",
    "psychologist",
    "librarian",
    "producer",
    "journalist",
];

/// Seniority words and their rank (tenths): junior < plain (20) < senior < staff/lead <
/// principal < distinguished.
const SENIORITY: &[(&str, i32)] = &[
    ("junior", 10),
    ("trainee", 10),
    ("graduate", 10),
    ("intern", 10),
    ("apprentice", 10),
    ("assistant", 15),
    ("deputy", 15),
    ("associate", 15),
    ("vice", 15),
    ("acting", 18),
    ("senior", 30),
    ("sr", 30),
    ("staff", 40),
    ("lead", 40),
    ("chief", 45),
    ("principal", 50),
    ("distinguished", 60),
    ("fellow", 60),
];

fn seniority_word(w: &str) -> Option<i32> {
    SENIORITY.iter().find(|(s, _)| *s == w).map(|&(_, r)| r)
}

/// A job title as a claim or a file states it: its head role word, seniority and the other
/// words that say what kind (`platform`, `of mathematics`).
#[derive(Debug, Clone, PartialEq)]
struct Title {
    head: String,
    rank: i32,
    explicit_rank: bool,
    /// Written in title case (`Head of Science`), so a rank it leaves out is a claim of the
    /// plain title; a profession in lower case (`as a solicitor`) claims no rank.
    proper: bool,
    descriptors: Vec<String>,
}

impl Title {
    /// The title in folded words, when they hold a head role word.
    fn of(ws: &[String]) -> Option<Title> {
        let h = ws.iter().rposition(|w| is_head(w, ws))?;
        // `Head of Mathematics`: the head word is the last role word before `of`.
        let h = ws[..h]
            .iter()
            .position(|w| HEADS.contains(&w.as_str()) && !is_modifier_here(w, ws))
            .map_or(h, |i| if ws.get(i + 1).is_some_and(|n| n == "of" || n == "for") { i } else { h });
        let head = ws[h].clone();
        let mut rank = 20;
        let mut explicit = false;
        let mut descriptors = Vec::new();
        for (i, w) in ws.iter().enumerate() {
            if i == h {
                continue;
            }
            let staff_nurse = w == "staff" && matches!(head.as_str(), "nurse" | "midwife" | "officer" | "teacher");
            if let Some(r) = seniority_word(w).filter(|_| !staff_nurse) {
                // `Lead Nurse`: lead before a head is a rank; `Tech Lead` has lead as head.
                rank = if explicit { rank.max(r) } else { r };
                explicit = true;
            } else if text::is_content(w) {
                descriptors.push(w.clone());
            }
        }
        Some(Title { head, rank, explicit_rank: explicit, proper: false, descriptors })
    }
}

fn is_modifier_here(w: &str, ws: &[String]) -> bool {
    let i = ws.iter().position(|x| x == w).unwrap_or(0);
    seniority_word(w).is_some() && ws.get(i + 1).is_some_and(|n| HEADS.contains(&n.as_str()))
}

/// Whether a folded word is a title's head in `ws` (`lead` and `principal` are ranks before
/// another role word).
fn is_head(w: &str, ws: &[String]) -> bool {
    HEADS.contains(&w) && !is_modifier_here(w, ws)
}

/// How a claimed title fits an entity's title.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fit {
    Same,
    Inflated,
    OtherRole,
    OtherKind,
}

/// Whether two folded words are one word in two forms (`maths`/`mathematics`, `ICU`/`icu`).
pub(crate) fn same_word(a: &str, b: &str) -> bool {
    if a == b || stem(a) == stem(b) {
        return true;
    }
    let common = a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count();
    common >= 4
}

/// How `claimed` fits the title `held` (whose folded words are `held_words`). A descriptor the
/// held title lacks makes another title only when it is a word of some title in the files
/// (`vocabulary`): `Backend` when another role is a Backend Engineer, not `ICU` for a nurse
/// whose title does not say the ward.
fn fit(claimed: &Title, held: &Title, held_words: &[String], strict: bool, vocabulary: &Prepared) -> Fit {
    if claimed.head != held.head && !held_words.contains(&claimed.head) {
        return Fit::OtherRole;
    }
    if claimed.rank > held.rank && (claimed.explicit_rank || claimed.proper) {
        return Fit::Inflated;
    }
    if strict
        && claimed
            .descriptors
            .iter()
            .any(|d| !held_words.iter().any(|h| same_word(d, h)) && vocabulary.in_vocabulary(d))
    {
        return Fit::OtherKind;
    }
    Fit::Same
}

/// Words before a title that say the person held it.
const SELF_CUES: &[&str] = &[
    "as",
    "am",
    "was",
    "became",
    "become",
    "promoted",
    "appointed",
    "i'm",
    "role",
    "serving",
    "served",
    "worked",
    "working",
    "currently",
    "now",
    "is",
];

/// Words that make a claim about what the person wants rather than what they did.
pub const ASPIRATION: &[&str] = &[
    "seeking",
    "seek",
    "looking",
    "open",
    "want",
    "wants",
    "aspire",
    "aspiring",
    "target",
    "targeting",
    "next",
    "hoping",
    "interested",
    "goal",
    "goals",
    "pursue",
    "pursuing",
    "applying",
    "apply",
    "application",
    "ambition",
];

/// Words after a degree that are not its field (`MSc thesis`, `BSc (Hons) degree`).
const NOT_FIELD: &[&str] = &[
    "hons",
    "degree",
    "thesis",
    "dissertation",
    "programme",
    "program",
    "course",
    "student",
    "studies",
    "graduate",
    "first",
    "class",
    "distinction",
    "merit",
];

/// The level of a degree word as written (1 diploma, 2 bachelor, 3 master, 4 doctorate), the
/// one table [`super::levels`] reads postings with; an ambiguous one (`MA`, `master`,
/// `Associate`) only in a text about degrees.
fn degree_word(word: &str, about_degrees: bool) -> Option<u8> {
    super::levels::degree_word(word).filter(|(_, ambiguous)| !ambiguous || about_degrees).map(|(l, _)| l)
}

/// Words that say a claim is about a credential (a certificate, licence, award, patent or
/// publication).
const CREDENTIAL_CUES: &[&str] = &[
    "certified",
    "certificate",
    "certification",
    "certifications",
    "licence",
    "license",
    "licensed",
    "accredited",
    "accreditation",
    "award",
    "awarded",
    "prize",
    "winner",
    "won",
    "patent",
    "patents",
    "patented",
    "published",
    "publication",
    "paper",
    "fellowship",
    "qualified",
    "qualification",
    "chartered",
];

/// Roles held beside a job, whose dates are not the employer's: `a governor at Kingsholm`.
const SIDE_ROLES: &[&str] = &[
    "governor",
    "trustee",
    "volunteer",
    "volunteered",
    "member",
    "chair",
    "chaired",
    "ambassador",
    "judge",
    "examiner",
    "moderator",
    "committee",
    "board",
    "secretary",
    "treasurer",
];

/// Words after which a claim names a place the person is based in.
const PLACE_CUES: &[&[&str]] =
    &[&["based", "in"], &["living", "in"], &["live", "in"], &["lives", "in"], &["located", "in"], &["resident", "in"]];

/// The claim being read: its text, words and folded words.
struct Claim<'a> {
    text: &'a str,
    base: usize,
    ws: &'a [Word<'a>],
    folded: Vec<String>,
}

impl Claim<'_> {
    fn span(&self, from: usize, to: usize) -> Range<usize> {
        let to = to.max(from + 1).min(self.ws.len());
        self.base + self.ws[from].span.start..self.base + self.ws[to - 1].span.end
    }

    fn words_text(&self, from: usize, to: usize) -> String {
        let r = self.span(from, to);
        self.text[r.start - self.base..r.end - self.base].to_owned()
    }

    fn capitalised(&self, i: usize) -> bool {
        self.ws[i].text.starts_with(char::is_uppercase)
    }
}

fn find_seq(hay: &[String], needle: &[String]) -> Option<usize> {
    if needle.is_empty() || needle.len() > hay.len() {
        return None;
    }
    hay.windows(needle.len()).position(|w| w == needle)
}

/// Generic words an organisation's name may end with, that a claim may leave out.
const ORG_SUFFIXES: &[&str] =
    &["ltd", "limited", "llp", "plc", "inc", "gmbh", "ag", "sa", "bv", "nhs", "trust", "foundation", "group", "co"];

/// Where a claim names `e`: by its organisation (`true`) or its name.
fn mention(e: &Entity, c: &Claim<'_>) -> Option<(Range<usize>, bool)> {
    // A one-time entry is named by its own name first: the issuer is shared by its others.
    if !matches!(e.kind, Kind::Role | Kind::Degree)
        && let Some(by_name) = name_mention(e, c)
    {
        return Some((by_name, false));
    }
    if !e.org_words.is_empty() {
        let mut org: &[String] = &e.org_words;
        while org.len() > 1 && ORG_SUFFIXES.contains(&org[org.len() - 1].as_str()) {
            if let Some(i) = find_seq(&c.folded, org) {
                return Some((i..i + org.len(), true));
            }
            org = &org[..org.len() - 1];
        }
        if let Some(i) = find_seq(&c.folded, org)
            && org.iter().any(|w| text::is_content(w))
        {
            return Some((i..i + org.len(), true));
        }
    }
    None
}

/// Where a claim names `e` by its own name (not a role's or degree's: titles are shared).
fn name_mention(e: &Entity, c: &Claim<'_>) -> Option<Range<usize>> {
    // A number that identifies the entry (`patent NP 4471920`).
    if let Some(i) = e
        .title_words
        .iter()
        .chain(&e.org_words)
        .filter(|w| w.len() >= 5 && w.bytes().all(|b| b.is_ascii_digit()))
        .find_map(|w| c.folded.iter().position(|f| f == w))
    {
        return Some(i..i + 1);
    }
    let content: Vec<&String> = e.title_words.iter().filter(|w| text::is_content(w)).collect();
    if content.is_empty() {
        return None;
    }
    if let Some(i) = find_seq(&c.folded, &e.title_words) {
        return Some(i..i + e.title_words.len());
    }
    // A long name, all but one of its words: `the Lisbon Rust meetup` for `Lisbon Rust meetup
    // co-organiser`. Two words in common are not a name (`Chartered Science Teacher` is not
    // `Teacher of the Year (Science)`).
    if content.len() >= 3 {
        // In the name's order: `Science Teacher ... Eastmere` is not `Teacher of the Year
        // (Science), Eastmere Schools Awards`.
        let hits: Vec<usize> =
            content.iter().filter_map(|w| c.folded.iter().position(|f| same_word(f, w) && f.len() > 2)).collect();
        let in_order = hits.windows(2).all(|p| p[0] < p[1]);
        if in_order && hits.len() + 1 >= content.len() && hits.len() >= 3 {
            let (lo, hi) = (*hits.iter().min()?, *hits.iter().max()?);
            if hi - lo < content.len() + 4 {
                return Some(lo..hi + 1);
            }
        }
    }
    None
}

/// What every claim reads of a fact model, built once per model: a claim then costs what its
/// own words find, not a scan of every entry (2,000 claims against a 2 MB file).
#[derive(Debug, Clone, Default)]
pub struct Prepared {
    /// Each content word (and identifying number) of the entries' names and organisations:
    /// the entries (indices, ascending) that hold it.
    by_word: HashMap<String, Vec<u32>>,
    /// The roles, each with its title read.
    role_titles: Vec<(u32, Title)>,
    /// The roles at each organisation (its folded words).
    by_org: HashMap<Vec<String>, Vec<u32>>,
    /// The degrees, with their level and field.
    degrees: Vec<(u32, u8, Vec<String>)>,
    /// The words of role titles and target roles other than role words and ranks, by their
    /// first four letters ([`same_word`]).
    vocabulary: HashSet<String>,
    /// The places of the entries, folded.
    places: Vec<Vec<String>>,
}

fn prefix4(w: &str) -> String {
    w.chars().take(4).collect()
}

impl Prepared {
    pub fn of(model: &FactModel) -> Prepared {
        let mut p = Prepared::default();
        for (i, e) in model.entities.iter().enumerate() {
            let i = u32::try_from(i).unwrap_or(u32::MAX);
            for w in e.title_words.iter().chain(&e.org_words) {
                if text::is_content(w) || w.bytes().all(|b| b.is_ascii_digit()) && w.len() >= 5 {
                    let list = p.by_word.entry(w.clone()).or_default();
                    if list.last() != Some(&i) {
                        list.push(i);
                    }
                }
            }
            if e.kind == Kind::Role {
                if let Some(t) = Title::of(&e.title_words) {
                    p.role_titles.push((i, t));
                }
                if !e.org_words.is_empty() {
                    p.by_org.entry(e.org_words.clone()).or_default().push(i);
                }
            }
            if let Some(d) = degree_of(e) {
                p.degrees.push((i, d.0, d.1));
            }
            if let Some(place) = &e.place {
                p.places.push(text::words(place).iter().map(|w| fold(w.text)).collect());
            }
        }
        let words = model.roles().flat_map(|e| e.title_words.iter().cloned()).chain(
            model
                .person
                .targets
                .iter()
                .flat_map(|(t, _)| text::words(t).iter().map(|w| fold(w.text)).collect::<Vec<_>>()),
        );
        p.vocabulary = words
            .filter(|w| text::is_content(w) && !HEADS.contains(&w.as_str()) && seniority_word(w).is_none())
            .map(|w| prefix4(&w))
            .collect();
        p
    }

    /// Whether a word is a word of some title in the files ([`same_word`] by its prefix).
    fn in_vocabulary(&self, w: &str) -> bool {
        self.vocabulary.contains(&prefix4(w))
    }
}

/// A degree entry's level and field (`MSc Computer Science`: 3, computer science).
fn degree_of(e: &Entity) -> Option<(u8, Vec<String>)> {
    if e.kind != Kind::Degree {
        return None;
    }
    let ws = text::words(&e.title);
    let k = ws.iter().position(|w| degree_word(w.text, true).is_some())?;
    let field: Vec<String> = ws[k + 1..]
        .iter()
        .map(|w| fold(w.text))
        .filter(|w| text::is_content(w) && !NOT_FIELD.contains(&w.as_str()))
        .collect();
    Some((degree_word(ws[k].text, true)?, field))
}

/// Reads and judges the typed assertions of one claim.
#[derive(Debug)]
pub struct Judge<'m> {
    pub model: &'m FactModel,
    /// Entities of the VitaeGraph records the search found for this claim.
    pub records: Vec<Entity>,
    pub year_now: i32,
}

fn hedge_at(c: &Claim<'_>, i: usize) -> super::Hedge {
    super::hedge_of(c.text, c.ws, c.ws[i].span.start)
}

impl Judge<'_> {
    /// The entries that hold a word of the claim (by [`Prepared::by_word`]), and the records.
    fn candidates<'s>(&'s self, c: &Claim<'_>) -> Vec<&'s Entity> {
        let prep = self.model.prepared();
        let mut ids: Vec<u32> = c.folded.iter().filter_map(|w| prep.by_word.get(w)).flatten().copied().collect();
        ids.sort_unstable();
        ids.dedup();
        ids.iter().map(|&i| &self.model.entities[i as usize]).chain(&self.records).collect()
    }

    /// The roles at an organisation (its folded words), records included.
    fn roles_at(&self, org: &[String]) -> Vec<&Entity> {
        let prep = self.model.prepared();
        prep.by_org
            .get(org)
            .into_iter()
            .flatten()
            .map(|&i| &self.model.entities[i as usize])
            .chain(self.records.iter().filter(|r| r.kind == Kind::Role && r.org_words == org))
            .collect()
    }

    /// The typed assertions of a claim (`text` at byte `base` of the draft, its words `ws`),
    /// with the subject carried from the claim before; returns the new subject.
    pub fn read(
        &self,
        text: &str,
        base: usize,
        ws: &[Word<'_>],
        carried: &Subject,
        aspiration: bool,
    ) -> (Reading, Subject) {
        // `Halden's northern region` names Halden.
        let folded = ws
            .iter()
            .map(|w| {
                let f = fold(w.text);
                f.strip_suffix("'s").map_or_else(|| f.clone(), str::to_owned)
            })
            .collect();
        let c = Claim { text, base, ws, folded };
        let mut out = Reading::default();
        // The entities the claim names: by organisation first.
        let mut named: Vec<(&Entity, Range<usize>, bool)> =
            self.candidates(&c).into_iter().filter_map(|e| mention(e, &c).map(|(r, by_org)| (e, r, by_org))).collect();
        // A name inside a longer one names only the longer (`Rust meetup` in a claim naming
        // the `Lisbon Rust meetup`).
        let spans: Vec<Range<usize>> = named.iter().map(|n| n.1.clone()).collect();
        named.retain(|n| !spans.iter().any(|s| s.start <= n.1.start && s.end >= n.1.end && s.len() > n.1.len()));
        out.names_entity = named.iter().any(|(e, _, by_org)| !by_org || !e.kind_is_point());
        out.named = named
            .iter()
            .map(|(e, _, _)| (e.title_words.iter().chain(&e.org_words).cloned().collect(), e.evidence.clone()))
            .collect();
        // A claim naming an organisation the files do not have (`a season at Noma`), or a
        // credential none of theirs (`Michelin star awarded in 2024`), is not about the entry of
        // the claims before it.
        let elsewhere = (1..c.folded.len()).any(|i| {
            matches!(c.folded[i - 1].as_str(), "at" | "for" | "with" | "joined")
                && c.capitalised(i)
                && !c.ws[i].after_break
        });
        let credential = c.folded.iter().any(|w| CREDENTIAL_CUES.contains(&w.as_str()));
        let subject: Subject = match named.first() {
            Some((e, _, _)) => Some((*e).clone()),
            None if elsewhere || credential => None,
            None => carried.clone(),
        };
        let mut a = Vec::new();
        if !aspiration {
            self.titles(&c, &named, &subject, &mut a, &mut out.anchored);
        }
        self.degrees(&c, &mut a, &mut out.anchored);
        if !aspiration {
            self.dates(&c, &named, &subject, &mut a);
            self.durations(&c, &named, &subject, &mut a);
        }
        self.location(&c, &mut a);
        self.role_places(&c, &named, &mut a);
        self.employment(&c, &named, &mut a);
        self.languages(&c, &mut a);
        self.never_claim(&c, &mut a);
        if c.folded.iter().any(|w| CREDENTIAL_CUES.contains(&w.as_str())) && named.is_empty() {
            out.anchored = true;
        }
        out.assertions = a;
        // The subject goes on to the next claim only when this one is about one entity.
        let distinct = {
            let mut ids: Vec<&Evidence> = named.iter().map(|n| &n.0.evidence).collect();
            ids.dedup();
            ids.len()
        };
        let next = if distinct > 1 { None } else { subject };
        (out, next)
    }

    /// Title phrases the claim gives the person: `Senior Staff Nurse`, `Head of Mathematics`,
    /// `Tech Lead`; a role word in lower case only after `as a`, `I am a`, `became`,
    /// `promoted to` or a rank (`a senior nurse`), since `mentored a nurse` is about someone
    /// else.
    fn title_phrases(&self, c: &Claim<'_>) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        let n = c.folded.len();
        let mut i = 0;
        while i < n {
            let w = c.folded[i].as_str();
            if !is_head(w, &c.folded[i..(i + 2).min(n)]) {
                i += 1;
                continue;
            }
            // `Lead the migration`, `Coach new teachers`: a verb starting a bullet.
            if i == 0
                && c.folded.get(1).is_some_and(|x| !matches!(x.as_str(), "of" | "for" | "at"))
                && c.ws.get(1).is_some_and(|x| !x.after_break && x.text.starts_with(char::is_lowercase))
            {
                i += 1;
                continue;
            }
            let cap_ok = |k: usize| c.capitalised(k) && (k > 0 || c.capitalised(i));
            let mut from = i;
            while from > 0 && i - from < 4 && !c.ws[from].after_break {
                let k = from - 1;
                let p = c.folded[k].as_str();
                if seniority_word(p).is_some()
                    || (cap_ok(k)
                        && text::is_content(p)
                        && degree_word(c.ws[k].text, false).is_none()
                        && !SELF_CUES.contains(&p))
                {
                    from -= 1;
                } else {
                    break;
                }
            }
            // `Head of Mathematics`, `Director of Nursing`.
            let mut to = i + 1;
            if c.folded.get(to).is_some_and(|w| w == "of" || w == "for") && c.ws.get(to).is_some_and(|w| !w.after_break)
            {
                let mut j = to + 1;
                while j < n
                    && j < to + 4
                    && !c.ws[j].after_break
                    && (c.capitalised(j) || (j == to + 1 && c.folded[j] == "the"))
                {
                    j += 1;
                }
                if j > to + 1 {
                    to = j;
                }
            }
            // `Chartered Science Teacher`, `Certified Nurse Educator`: a credential, not a job.
            if (i.saturating_sub(3)..i).any(|k| {
                matches!(c.folded[k].as_str(), "chartered" | "certified" | "accredited" | "licensed" | "registered")
            }) {
                i += 1;
                continue;
            }
            // `Engineer of the Year`, `Teacher of the Month`: an award's name, not a title.
            if c.folded
                .get(i + 1..i + 4)
                .is_some_and(|w| w[0] == "of" && w[1] == "the" && matches!(w[2].as_str(), "year" | "month" | "week"))
            {
                i += 4;
                continue;
            }
            let has_rank = (from..to).any(|k| seniority_word(&c.folded[k]).is_some());
            let lead_in: Vec<&str> = c.folded[from.saturating_sub(3)..from].iter().map(String::as_str).collect();
            let about_self = from == 0 || lead_in.iter().any(|w| SELF_CUES.contains(w));
            let titled = c.capitalised(i)
                || (about_self
                    && (has_rank || from < i || lead_in.last().is_some_and(|w| matches!(*w, "a" | "an" | "as"))));
            if titled {
                out.push((from, to));
            }
            i = to;
        }
        out
    }

    fn titles(
        &self,
        c: &Claim<'_>,
        named: &[(&Entity, Range<usize>, bool)],
        subject: &Subject,
        a: &mut Vec<Assertion>,
        anchored: &mut bool,
    ) {
        let prep = self.model.prepared();
        let roles_named: Vec<&Entity> =
            named.iter().filter(|(e, _, by_org)| *by_org && e.kind == Kind::Role).map(|n| n.0).collect();
        for (from, to) in self.title_phrases(c) {
            let words = &c.folded[from..to];
            let Some(mut claimed) = Title::of(words) else { continue };
            claimed.proper = (from..to).filter(|&k| HEADS.contains(&c.folded[k].as_str())).all(|k| c.capitalised(k));
            // A title with a name right after it (`Staff Engineer, Stripe`) asserts a job.
            let org_after = (to < c.folded.len()).then(|| {
                let j = if matches!(c.folded[to].as_str(), "at" | "with" | "for") { to + 1 } else { to };
                j < c.folded.len() && c.capitalised(j)
            }) == Some(true);
            *anchored |= org_after || !roles_named.is_empty();
            let mut candidates: Vec<&Entity> = roles_named.clone();
            if candidates.is_empty()
                && let Some(s) = subject.as_ref().filter(|s| s.kind == Kind::Role)
                && !org_after
            {
                // The role's own org named elsewhere, or carried.
                candidates = if s.org_words.is_empty() { Vec::new() } else { self.roles_at(&s.org_words) };
                if candidates.is_empty() {
                    candidates.push(s);
                }
            }
            if org_after && candidates.is_empty() {
                // `Staff Engineer, Stripe`: a job at an employer the files lack is invented,
                // not another role's title inflated.
                continue;
            }
            let strict = !candidates.is_empty();
            // The roles compared: those at the employer named, else every role (their titles
            // read once per model).
            let fits: Vec<(Fit, &Entity)> = if strict {
                candidates
                    .iter()
                    .filter_map(|e| {
                        Title::of(&e.title_words).map(|t| (fit(&claimed, &t, &e.title_words, strict, prep), *e))
                    })
                    .collect()
            } else {
                prep.role_titles
                    .iter()
                    .map(|(i, t)| (&self.model.entities[*i as usize], t))
                    .map(|(e, t)| (fit(&claimed, t, &e.title_words, strict, prep), e))
                    .chain(self.records.iter().filter(|e| e.kind == Kind::Role).filter_map(|e| {
                        Title::of(&e.title_words).map(|t| (fit(&claimed, &t, &e.title_words, strict, prep), e))
                    }))
                    .collect()
            };
            let shown = c.words_text(from, to);
            let span = c.span(from, to);
            if let Some((_, e)) = fits.iter().find(|(f, _)| *f == Fit::Same) {
                a.push(Assertion {
                    kind: AssertionKind::Title,
                    text: shown,
                    span,
                    verdict: Verdict::Supported(e.evidence.clone()),
                    explain: format!("title held: {} ({})", e.shown(), e.read_as),
                });
                continue;
            }
            // A goal claimed as held.
            let target = self.model.person.targets.iter().find(|(t, _)| {
                let tw: Vec<String> = text::words(t).iter().map(|w| fold(w.text)).collect();
                Title::of(&tw).is_some_and(|tt| fit(&claimed, &tt, &tw, true, prep) == Fit::Same)
            });
            let wrong = if strict {
                fits.iter()
                    .find(|(f, _)| *f == Fit::Inflated)
                    .or_else(|| fits.iter().find(|(f, _)| *f == Fit::OtherKind))
                    .or(fits.first())
            } else {
                fits.iter().find(|(f, _)| *f == Fit::Inflated)
            };
            if let Some((how, e)) = wrong {
                let why = match how {
                    Fit::Inflated => "a more senior title than the files give",
                    Fit::OtherRole | Fit::OtherKind => "another title than the files give for this employer",
                    Fit::Same => "",
                };
                a.push(Assertion {
                    kind: AssertionKind::Title,
                    text: shown,
                    span,
                    verdict: Verdict::Contradicted { evidence: e.evidence.clone(), found: e.shown() },
                    explain: format!("{why}: {}", e.shown()),
                });
            } else if let Some((t, ev)) = target {
                a.push(Assertion {
                    kind: AssertionKind::Title,
                    text: shown,
                    span,
                    verdict: Verdict::Contradicted {
                        evidence: ev.clone(),
                        found: format!("{t} is a target role, not one held"),
                    },
                    explain: format!("the files list {t:?} among the roles the person wants, and no held role has it"),
                });
            }
        }
    }

    fn dates(&self, c: &Claim<'_>, named: &[(&Entity, Range<usize>, bool)], subject: &Subject, a: &mut Vec<Assertion>) {
        let found = self.dates_of(c, named, subject, a);
        a.extend(found);
    }

    fn dates_of(
        &self,
        c: &Claim<'_>,
        named: &[(&Entity, Range<usize>, bool)],
        subject: &Subject,
        a: &[Assertion],
    ) -> Vec<Assertion> {
        let mut out = Vec::new();
        let years: Vec<usize> = (0..c.ws.len()).filter(|&i| year_word(c.ws[i].text).is_some()).collect();
        if years.is_empty() {
            return out;
        }
        // The entity the years are about: one a title or degree of the claim was matched to,
        // else a role or degree named (an employer's award shares its name), the one named
        // nearest before the year first; else the subject.
        let matched: Vec<&Evidence> = a
            .iter()
            .filter(|x| matches!(x.kind, AssertionKind::Title | AssertionKind::Degree))
            .filter_map(|x| match &x.verdict {
                Verdict::Supported(e) | Verdict::Contradicted { evidence: e, .. } => Some(e),
                Verdict::Unsupported => None,
            })
            .collect();
        let credential = c.folded.iter().any(|w| CREDENTIAL_CUES.contains(&w.as_str()));
        // `served as a governor at Kingsholm since 2019`: a role beside the employment, whose
        // dates the files do not give.
        // A capitalised one inside a name (`Regional Health Board`) is the name's.
        let side_role = (0..c.folded.len()).any(|i| {
            SIDE_ROLES.contains(&c.folded[i].as_str()) && !(i > 0 && c.capitalised(i) && c.capitalised(i - 1))
        });
        // A degree the claim gives that the files lack: its year is not the other degrees'.
        let degree_claim = a.iter().any(|x| x.kind == AssertionKind::Degree);
        if a.iter().any(|x| x.kind == AssertionKind::Degree && x.verdict == Verdict::Unsupported) {
            return out;
        }
        // Groups of years: a range (`2016-2020`, `2021 to present`) or one year.
        let mut groups: Vec<(usize, usize)> = Vec::new();
        let mut k = 0;
        while k < years.len() {
            let y = years[k];
            let gap = |a: usize, b: usize| c.text[c.ws[a].span.end..c.ws[b].span.start].trim().to_lowercase();
            let joined = |a: usize, b: usize| {
                matches!(gap(a, b).as_str(), "-" | "–" | "—" | "to" | "until" | "through" | "till")
            };
            if k + 1 < years.len() && years[k + 1] == y + 1 && joined(y, y + 1) {
                groups.push((y, y + 2));
                k += 2;
            } else if y + 1 < c.ws.len() && is_present_word(&c.folded[y + 1]) && joined(y, y + 1) {
                groups.push((y, y + 2));
                k += 1;
            } else {
                groups.push((y, y + 1));
                k += 1;
            }
        }
        // A one-time entry (a certificate, paper) owns only the year nearest after its name:
        // `a paper in 2023 and a talk in 2024`.
        let mut taken: Vec<*const Entity> = Vec::new();
        for (from, to) in groups {
            // The nearest entry named; a one-time entry named only by its organisation (an
            // awarding body's other award, a school's other certificate) may bear the year out,
            // never contradict it.
            let owner = named
                .iter()
                .filter(|(e, _, _)| {
                    !(e.dates.is_empty() || e.kind_is_point() && taken.contains(&(*e as *const Entity)))
                })
                .min_by_key(|(e, r, _)| {
                    let span_kind = matches!(e.kind, Kind::Role | Kind::Degree) != credential;
                    // The entry whose dates the year bears out, if one of those named does
                    // (`NEBOSH in 2017 and the CITB course in 2016`); then the one named just
                    // before the year (`X in 2017`), then just after it (`In 2022 I presented X`).
                    let claimed = super::facts::dates_in(&c.text[c.ws[from].span.start..c.ws[to - 1].span.end]);
                    let before: Vec<&str> = c.folded[from.saturating_sub(3)..from].iter().map(String::as_str).collect();
                    let fits = dates_fit(e, &claimed, &before, self.year_now);
                    let distance = if r.end <= from { from - r.end } else { 2 + r.start.saturating_sub(to) };
                    (!matched.contains(&&e.evidence), !fits, !span_kind, distance)
                });
            // A certificate at a school where the person took a degree is not that degree.
            let weak = owner.is_some_and(|(e, _, by_org)| {
                *by_org
                    && ((e.kind_is_point() && e.kind != Kind::Degree)
                        || (credential && e.kind != Kind::Role && !degree_claim))
            });
            let owner = owner.map(|n| n.0);
            // The entry of the claims before (`There I ...`) may bear a year out, never
            // contradict it: a year outside its span is likely about something else.
            let carried = owner.is_none();
            let owner =
                owner.or(subject.as_ref().filter(|s| !s.dates.is_empty() && named.is_empty() && !s.kind_is_point()));
            // `I graduated in 2008`: the degrees, the one the year bears out, else the latest.
            let graduated = named.is_empty()
                && c.folded.iter().any(|w| matches!(w.as_str(), "graduated" | "graduating" | "graduation"));
            let owner = owner.or_else(|| {
                if !graduated {
                    return None;
                }
                let claimed = super::facts::dates_in(&c.text[c.ws[from].span.start..c.ws[to - 1].span.end]);
                let degrees: Vec<&Entity> = self
                    .model
                    .prepared()
                    .degrees
                    .iter()
                    .map(|(i, _, _)| &self.model.entities[*i as usize])
                    .filter(|e| !e.dates.is_empty())
                    .collect();
                degrees
                    .iter()
                    .find(|e| dates_fit(e, &claimed, &[], self.year_now))
                    .or_else(|| degrees.iter().max_by_key(|e| e.dates.end_year(self.year_now)))
                    .copied()
            });
            let Some(e) = owner.or_else(|| {
                // A claim that names no entry (`since 2016 in adult intensive care`): a role or
                // degree whose own words it shares, and whose dates bear the year out.
                if !named.is_empty() || degree_claim {
                    return None;
                }
                let claimed = super::facts::dates_in(&c.text[c.ws[from].span.start..c.ws[to - 1].span.end]);
                let before: Vec<&str> = c.folded[from.saturating_sub(3)..from].iter().map(String::as_str).collect();
                self.candidates(c).into_iter().find(|e| {
                    matches!(e.kind, Kind::Role | Kind::Degree)
                        && e.title_words.iter().chain(&e.org_words).any(|w| {
                            text::is_content(w)
                                && !HEADS.contains(&w.as_str())
                                && seniority_word(w).is_none()
                                && c.folded.iter().any(|x| x.len() > 3 && same_word(x, w))
                        })
                        && dates_fit(e, &claimed, &before, self.year_now)
                })
            }) else {
                continue;
            };
            let carried = !graduated && (carried || !named.iter().any(|n| std::ptr::eq(n.0, e)));
            if side_role {
                continue;
            }
            if e.kind_is_point() && e.kind != Kind::Degree {
                taken.push(e as *const Entity);
            }
            let claimed = super::facts::dates_in(&c.text[c.ws[from].span.start..c.ws[to - 1].span.end]);
            // A month the entry does not give is left to the passages, which may give it.
            let month = from.checked_sub(1).and_then(|m| text::month_of(&c.folded[m]));
            if month.is_some() && e.dates.start_month.is_none() {
                continue;
            }
            let cue = from.saturating_sub(3);
            let before: Vec<&str> = c.folded[cue..from].iter().map(String::as_str).collect();
            // `renewed in 2025`: a year the files do not date.
            if before.iter().any(|w| matches!(*w, "renewed" | "recertified" | "revalidated" | "updated")) {
                continue;
            }
            let mut ok = dates_fit(e, &claimed, &before, self.year_now);
            // At an employer with several roles (a promotion), `worked there since 2016` is
            // about the employment: the span of all its roles.
            let employment = (e.kind == Kind::Role && !e.org_words.is_empty()).then(|| {
                let at = self.roles_at(&e.org_words);
                let start = at.iter().filter_map(|r| r.dates.start).min();
                let end = if at.iter().any(|r| r.dates.end == Some(End::Present)) {
                    Some(End::Present)
                } else {
                    at.iter().filter_map(|r| r.dates.end_year(self.year_now)).max().map(End::Year)
                };
                Dates { start, start_month: None, end }
            });
            if !ok && let Some(span) = employment {
                let mut whole = e.clone();
                whole.dates = span;
                ok = dates_fit(&whole, &claimed, &before, self.year_now);
            }
            if (carried || weak) && !ok {
                continue;
            }
            if let (Some(m), Some(h)) = (month, e.dates.start_month)
                && claimed.start == e.dates.start
            {
                ok &= m == h;
            }
            let span = c.span(from, to);
            let shown = c.words_text(from, to);
            let verdict = if ok {
                Verdict::Supported(e.evidence.clone())
            } else {
                Verdict::Contradicted { evidence: e.evidence.clone(), found: e.dates.shown() }
            };
            let explain = format!("dates of {}: the files give {} ({})", e.shown(), e.dates.shown(), e.read_as);
            out.push(Assertion { kind: AssertionKind::Dates, text: shown, span, verdict, explain });
        }
        out
    }

    fn durations(
        &self,
        c: &Claim<'_>,
        named: &[(&Entity, Range<usize>, bool)],
        subject: &Subject,
        a: &mut Vec<Assertion>,
    ) {
        let mut nums = text::numbers(c.text, c.ws);
        // `over a decade`: ten years.
        for (i, w) in c.folded.iter().enumerate() {
            if w == "decade" && i > 0 && c.folded[i - 1] == "a" {
                nums.push(text::Number { value: 1.0, unit: None, year: false, span: c.ws[i - 1].span.clone() });
            }
        }
        for n in nums.iter().filter(|n| !n.year) {
            let Some(i) = text::word_at(c.ws, n.span.start) else { continue };
            let decade = c.folded.get(i + 1).is_some_and(|w| w == "decade" || w == "decades");
            if n.unit.as_deref() != Some("year") && !decade {
                continue;
            }
            let value = if decade { n.value * 10.0 } else { n.value };
            let hedge = hedge_at(c, i);
            let after: Vec<&str> = c.folded[i + 1..(i + 7).min(c.folded.len())].iter().map(String::as_str).collect();
            let before: Vec<&str> = c.folded[i.saturating_sub(2)..i].iter().map(String::as_str).collect();
            // `5 years of Rust`, `Rust (5 years)`: a skill's years are left to the passages.
            let total = after.iter().any(|w| matches!(*w, "experience" | "career" | "professional"))
                || before.contains(&"with") && named.is_empty();
            let matched: Vec<&Evidence> = a
                .iter()
                .filter(|x| x.kind == AssertionKind::Title)
                .filter_map(|x| match &x.verdict {
                    Verdict::Supported(e) | Verdict::Contradicted { evidence: e, .. } => Some(e),
                    Verdict::Unsupported => None,
                })
                .collect();
            let at_entity = named
                .iter()
                .filter(|(e, _, by_org)| *by_org && matches!(e.kind, Kind::Role | Kind::Degree))
                .min_by_key(|(e, r, _)| {
                    // Named just after the number (`five years ... at Harwick & Stone`), then
                    // the role the claim's title was matched to, then the nearest.
                    let after = r.start > i && r.start <= i + 8;
                    (!after, !matched.contains(&&e.evidence), r.start.abs_diff(i))
                })
                .map(|n| n.0)
                .or_else(|| {
                    subject.as_ref().filter(|s| {
                        s.kind == Kind::Role
                            && (before.contains(&"for") || after.first().is_some_and(|w| *w == "at" || *w == "there"))
                    })
                });
            let span = c.span(i, (i + 2).min(c.ws.len()));
            let shown = c.words_text(i, (i + 2).min(c.ws.len()));
            if let Some(e) = at_entity.filter(|_| !total || !named.is_empty()) {
                let (Some(start), Some(end)) = (e.dates.start, e.dates.end_year(self.year_now)) else { continue };
                let held = f64::from(end - start);
                let ok = duration_fits(hedge, value, held, 0.0);
                let verdict = if ok {
                    Verdict::Supported(e.evidence.clone())
                } else {
                    Verdict::Contradicted {
                        evidence: e.evidence.clone(),
                        found: format!("{} years ({})", end - start, e.dates.shown()),
                    }
                };
                let explain = format!("duration at {}: {} to {} is {} years", e.shown(), start, end, end - start);
                a.push(Assertion { kind: AssertionKind::Duration, text: shown, span, verdict, explain });
            } else if total {
                let (held, evidence, how) = match &self.model.person.years_experience {
                    Some((y, ev)) => (*y, ev.clone(), "QUICK REFERENCE years_experience".to_owned()),
                    None => {
                        let Some(first) =
                            self.model.roles().filter_map(|r| r.dates.start.map(|s| (s, r))).min_by_key(|(s, _)| *s)
                        else {
                            continue;
                        };
                        (
                            f64::from(self.year_now - first.0),
                            first.1.evidence.clone(),
                            format!("since the first role, {}", first.1.shown()),
                        )
                    }
                };
                let ok = duration_fits(hedge, value, held, 0.5);
                let verdict = if ok {
                    Verdict::Supported(evidence)
                } else {
                    Verdict::Contradicted { evidence, found: format!("{held} years") }
                };
                a.push(Assertion {
                    kind: AssertionKind::Experience,
                    text: shown,
                    span,
                    verdict,
                    explain: format!("total experience: {held} years ({how})"),
                });
            }
        }
    }

    fn degrees(&self, c: &Claim<'_>, a: &mut Vec<Assertion>, anchored: &mut bool) {
        let prep = self.model.prepared();
        let held: Vec<(&Entity, u8, Vec<String>)> = prep
            .degrees
            .iter()
            .map(|(i, d, f)| (&self.model.entities[*i as usize], *d, f.clone()))
            .chain(self.records.iter().filter_map(|e| degree_of(e).map(|(d, f)| (e, d, f))))
            .collect();
        // An ambiguous degree word (`MA`, `master`, `Associate`) names a degree only in a claim
        // about study.
        let about = super::levels::about_degrees(&fold(c.text))
            || c.folded
                .iter()
                .any(|w| matches!(w.as_str(), "university" | "college" | "institute" | "graduated" | "studied"));
        for i in 0..c.folded.len() {
            let Some(level) = degree_word(c.ws[i].text, about) else { continue };
            // `MA` or `BA` mid-sentence must be capitalised as degrees are.
            if c.ws[i].text.len() <= 3 && !c.ws[i].text.starts_with(char::is_uppercase) {
                continue;
            }
            // Field: the content words after it up to a break, `from`, `at` or a year.
            let mut j = i + 1;
            let mut field = Vec::new();
            while j < c.folded.len() && j < i + 7 {
                let w = c.folded[j].as_str();
                let gap = &c.text[c.ws[j - 1].span.end..c.ws[j].span.start];
                if (c.ws[j].after_break && !(j == i + 1 || matches!(w, "hons")))
                    || gap.contains(['[', '-', '–', '—', '|'])
                {
                    break;
                }
                if matches!(w, "from" | "at" | "with" | "and")
                    || year_word(w).is_some()
                    || degree_word(c.ws[j].text, about).is_some()
                {
                    break;
                }
                if text::is_content(w) && !NOT_FIELD.contains(&w) {
                    field.push(w.to_owned());
                }
                j += 1;
            }
            // An institution: a capitalised run with University, College, Institute, School,
            // or the words after `from`/`at` or after the comma.
            // The institution: a capitalised run after `from`, `at`, a comma or a dash (a
            // `[DEGREE]` tag passed over).
            let inst: Option<Vec<String>> = {
                let starts = (j..(j + 3).min(c.folded.len())).find(|&k| {
                    let gap = &c.text[c.ws[k - 1].span.end..c.ws[k].span.start];
                    let tag = gap.ends_with('[');
                    !tag && c.capitalised(k)
                        && year_word(&c.folded[k]).is_none()
                        && (gap.contains([',', '-', '–', '—', '|', ']'])
                            || matches!(c.folded[k - 1].as_str(), "from" | "at"))
                });
                starts.map(|s| {
                    let mut e = s;
                    while e < c.folded.len()
                        && e < s + 6
                        && (c.capitalised(e) || matches!(c.folded[e].as_str(), "of" | "de" | "the" | "and"))
                        && year_word(&c.folded[e]).is_none()
                        && !(e > s && c.ws[e].after_break)
                    {
                        e += 1;
                    }
                    c.folded[s..e].to_vec()
                })
            };
            let inst =
                inst.filter(|w| !(w.is_empty() || w.len() == 1 && degree_word(&w[0].to_uppercase(), true).is_some()));
            *anchored = true;
            let end = j.max(i + 1);
            let span = c.span(i, end);
            let shown = c.words_text(i, end);
            let by_inst: Vec<&(&Entity, u8, Vec<String>)> = match &inst {
                Some(iw) => held
                    .iter()
                    .filter(|(e, _, _)| {
                        !e.org_words.is_empty()
                            && (find_seq(iw, &e.org_words).is_some() || find_seq(&e.org_words, iw).is_some())
                    })
                    .collect(),
                None => Vec::new(),
            };
            let field_fits = |f: &[String]| field.iter().all(|w| f.iter().any(|h| same_word(w, h)));
            let same_level = |d: &u8| *d == level;
            // The year the claim gives the degree, if any.
            let year = (end..c.folded.len().min(end + 10)).find_map(|k| year_word(&c.folded[k]));
            let in_time = |e: &Entity| {
                year.is_none_or(|y| {
                    let (s, t) = (e.dates.start.unwrap_or(y), e.dates.end_year(self.year_now).unwrap_or(y));
                    (s..=t).contains(&y)
                })
            };
            let judged = if !by_inst.is_empty() && !by_inst.iter().any(|h| in_time(h.0)) {
                // Another time at the same institution: another degree, which the files lack.
                None
            } else if !by_inst.is_empty() {
                by_inst
                    .iter()
                    .find(|h| same_level(&h.1) && field_fits(&h.2))
                    .map(|h| (true, h.0))
                    .or_else(|| by_inst.first().map(|h| (false, h.0)))
            } else if inst.is_some() {
                // An institution no degree of the files is from.
                None
            } else {
                let same_field: Vec<_> = held.iter().filter(|h| !field.is_empty() && field_fits(&h.2)).collect();
                if let Some(h) = same_field.iter().find(|h| same_level(&h.1)) {
                    Some((true, h.0))
                } else if field.is_empty() {
                    match held.iter().find(|h| same_level(&h.1)) {
                        Some(h) => Some((true, h.0)),
                        // `a master's degree` when the highest held is a bachelor's.
                        None => held.iter().filter(|h| h.1 < level).max_by_key(|h| h.1).map(|h| (false, h.0)),
                    }
                } else {
                    same_field.first().map(|h| (false, h.0))
                }
            };
            let (verdict, explain) = match judged {
                Some((true, e)) => (Verdict::Supported(e.evidence.clone()), format!("degree held: {}", e.shown())),
                Some((false, e)) => (
                    Verdict::Contradicted { evidence: e.evidence.clone(), found: e.shown() },
                    format!("the files give another degree: {}", e.shown()),
                ),
                None => {
                    (Verdict::Unsupported, "no degree of the files matches its level, field and institution".to_owned())
                }
            };
            a.push(Assertion { kind: AssertionKind::Degree, text: shown, span, verdict, explain });
        }
    }

    fn location(&self, c: &Claim<'_>, a: &mut Vec<Assertion>) {
        let Some((loc, ev)) = &self.model.person.location else { return };
        let loc_words: Vec<String> = text::words(loc).iter().map(|w| fold(w.text)).collect();
        for cue in PLACE_CUES {
            let Some(i) = find_seq(&c.folded, &cue.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>()) else {
                continue;
            };
            let s = i + cue.len();
            let mut e = s;
            while e < c.folded.len() && e < s + 3 && c.capitalised(e) && !(e > s && c.ws[e].after_break) {
                e += 1;
            }
            if e == s {
                continue;
            }
            let place = &c.folded[s..e];
            let known = place.iter().all(|w| loc_words.contains(w))
                || self.model.prepared().places.iter().any(|p| find_seq(p, place).is_some());
            let verdict = if known {
                Verdict::Supported(ev.clone())
            } else {
                Verdict::Contradicted { evidence: ev.clone(), found: loc.clone() }
            };
            a.push(Assertion {
                kind: AssertionKind::Location,
                text: c.words_text(s, e),
                span: c.span(s, e),
                verdict,
                explain: format!("location: the files give {loc}"),
            });
        }
    }

    /// `Chef de Partie, Ostra, Madrid`: the city written right after an employer the files
    /// place elsewhere.
    fn role_places(&self, c: &Claim<'_>, named: &[(&Entity, Range<usize>, bool)], a: &mut Vec<Assertion>) {
        for (e, r, by_org) in named {
            let (true, Kind::Role, Some(place)) = (*by_org, e.kind, e.place.as_deref()) else { continue };
            let mut s = r.end;
            if c.folded.get(s).is_some_and(|w| w == "in") {
                s += 1;
            } else if !c.ws.get(s).is_some_and(|w| w.after_break && c.text[..w.span.start].trim_end().ends_with(',')) {
                continue;
            }
            let mut end = s;
            while end < c.folded.len()
                && end < s + 3
                && c.capitalised(end)
                && year_word(&c.folded[end]).is_none()
                && !(end > s && c.ws[end].after_break)
            {
                end += 1;
            }
            if end == s {
                continue;
            }
            let held: Vec<String> = text::words(place).iter().map(|w| fold(w.text)).collect();
            let claimed = &c.folded[s..end];
            let same = claimed.iter().any(|w| held.contains(w));
            let verdict = if same {
                Verdict::Supported(e.evidence.clone())
            } else {
                Verdict::Contradicted { evidence: e.evidence.clone(), found: place.to_owned() }
            };
            a.push(Assertion {
                kind: AssertionKind::Location,
                text: c.words_text(s, end),
                span: c.span(s, end),
                verdict,
                explain: format!("place of {}: the files give {place}", e.shown()),
            });
        }
    }

    /// `I also teach ... at Port Aubrey Law School`, `Worked at Halden`: the person working at
    /// the organisation named, which the files must hold as a role there (or a body the person
    /// serves). One they know only as where the person studied, was certified or published is
    /// an invented job.
    fn employment(&self, c: &Claim<'_>, named: &[(&Entity, Range<usize>, bool)], a: &mut Vec<Assertion>) {
        const VERBS: &[&str] = &[
            "teach",
            "teaches",
            "taught",
            "lecture",
            "lectures",
            "lectured",
            "tutor",
            "tutors",
            "tutored",
            "work",
            "works",
            "worked",
            "volunteer",
            "volunteers",
            "volunteered",
            "practise",
            "practises",
            "practised",
        ];
        let n = c.folded.len();
        // The verb is the person's: first in a bullet, or after `I` (`I also teach`).
        let Some(v) = (0..n).find(|&i| {
            VERBS.contains(&c.folded[i].as_str())
                && (i == 0 || c.folded[i.saturating_sub(2)..i].iter().any(|w| w == "i"))
        }) else {
            return;
        };
        let Some(at) = (v + 1..n).find(|&i| c.folded[i] == "at" && i + 1 < n && c.capitalised(i + 1)) else { return };
        let at_org: Vec<&Entity> =
            named.iter().filter(|(_, r, by_org)| *by_org && r.start == at + 1).map(|(e, _, _)| *e).collect();
        let Some(first) = at_org.first() else { return };
        let end = named.iter().filter(|(_, r, _)| r.start == at + 1).map(|(_, r, _)| r.end).max().unwrap_or(at + 2);
        let verdict = match at_org.iter().find(|e| matches!(e.kind, Kind::Role | Kind::Org)) {
            Some(role) => Verdict::Supported(role.evidence.clone()),
            None => Verdict::Unsupported,
        };
        let explain = match &verdict {
            Verdict::Supported(_) => {
                format!("work at {}: a role of the files", first.org.as_deref().unwrap_or_default())
            }
            _ => format!(
                "work at {}: the files hold it only as {} ({}), not as where the person works",
                first.org.as_deref().unwrap_or_default(),
                first.kind.as_str(),
                first.shown()
            ),
        };
        a.push(Assertion {
            kind: AssertionKind::Employment,
            text: c.words_text(v, end),
            span: c.span(v, end),
            verdict,
            explain,
        });
    }

    fn languages(&self, c: &Claim<'_>, a: &mut Vec<Assertion>) {
        let cues = [
            "speak",
            "speaks",
            "spoken",
            "fluent",
            "native",
            "language",
            "languages",
            "bilingual",
            "proficient",
            "proficiency",
            "conversational",
            "working",
        ];
        for i in 0..c.folded.len() {
            let w = c.folded[i].as_str();
            if !super::levels::is_language(w) || !c.capitalised(i) {
                continue;
            }
            // The clause the language is in.
            let mut s = i;
            while s > 0 && !c.ws[s].after_break {
                s -= 1;
            }
            let mut e = i + 1;
            while e < c.folded.len() && !c.ws[e].after_break {
                e += 1;
            }
            // `French (C1)`: the bracket right after is the level.
            if e < c.folded.len() && c.text[c.ws[e - 1].span.end..c.ws[e].span.start].contains('(') {
                e += 1;
                while e < c.folded.len() && !c.ws[e].after_break {
                    e += 1;
                }
            }
            let clause = c.text[c.ws[s].span.start..c.ws[e - 1].span.end].to_owned();
            // The level said of this language (`Polish at C1 level and basic German`: German is
            // basic), read as postings are.
            let level = super::levels::language_level_held(c.ws, i);
            let cued = level.is_some() || c.folded.iter().any(|w| cues.contains(&w.as_str()));
            if !cued {
                continue;
            }
            let held = self.model.person.languages.iter().find(|l| l.name == w);
            let (verdict, explain) = match held {
                None if self.model.person.languages.is_empty() => continue,
                None => (Verdict::Unsupported, format!("{} is not among the languages the files give", c.ws[i].text)),
                Some(l) => match (level, l.level) {
                    (Some(claimed), Some(has)) if claimed > has => (
                        Verdict::Contradicted { evidence: l.evidence.clone(), found: l.text.clone() },
                        format!("a higher level than the files give: {}", l.text),
                    ),
                    _ => (Verdict::Supported(l.evidence.clone()), format!("language: {}", l.text)),
                },
            };
            a.push(Assertion { kind: AssertionKind::Language, text: clause, span: c.span(s, e), verdict, explain });
        }
    }

    fn never_claim(&self, c: &Claim<'_>, a: &mut Vec<Assertion>) {
        for (item, shown, ev) in &self.model.person.never_claim {
            let stems: Vec<String> = item.iter().map(|w| stem(w)).collect();
            let claim_stems: Vec<String> = c.folded.iter().map(|w| stem(w)).collect();
            let Some((i, end)) = find_with_qualifiers(&claim_stems, &stems) else { continue };
            let negated = c.folded[i.saturating_sub(3)..i]
                .iter()
                .any(|w| matches!(w.as_str(), "no" | "not" | "never" | "without" | "non"));
            if negated {
                continue;
            }
            a.push(Assertion {
                kind: AssertionKind::NeverClaim,
                text: c.words_text(i, end),
                span: c.span(i, end),
                verdict: Verdict::Contradicted { evidence: ev.clone(), found: format!("never_claim lists {shown:?}") },
                explain: format!("QUICK REFERENCE never_claim: {shown}"),
            });
        }
    }
}

/// Where the words of `item` are in `words`, in order, with at most one word between two of
/// them (`independent prescriber` in "Independent Nurse Prescriber"; found in a corpus review):
/// the start and the end (exclusive) of the first such run.
fn find_with_qualifiers(words: &[String], item: &[String]) -> Option<(usize, usize)> {
    let first = item.first()?;
    (0..words.len()).filter(|&i| &words[i] == first).find_map(|i| {
        let mut at = i;
        for w in &item[1..] {
            at = (at + 1..(at + 3).min(words.len())).find(|&k| &words[k] == w)?;
        }
        Some((i, at + 1))
    })
}

fn is_present_word(w: &str) -> bool {
    matches!(w, "present" | "now" | "current" | "today" | "date")
}

/// Whether dates a claim gives fit an entity's: a range end by end, one year as a start
/// (`since`, `joined`), an end (`until`, `left`) or a year within the entity's span.
fn dates_fit(entity: &Entity, claimed: &Dates, before: &[&str], now: i32) -> bool {
    let held = entity.dates;
    let end_of = |d: &Dates| d.end_year(now);
    let ongoing = |d: &Dates| matches!(d.end, Some(End::Present)) || end_of(d).is_some_and(|y| y >= now);
    let ranged = claimed.start.is_some()
        && claimed.end.is_some()
        && (claimed.end != Some(End::Year(claimed.start.unwrap_or(0))));
    if ranged {
        let end_ok = match (claimed.end, held.end) {
            (Some(End::Present), _) => ongoing(&held),
            (Some(End::Year(y)), Some(End::Present)) => y >= now - 1,
            (Some(End::Year(y)), Some(End::Year(h))) => y == h,
            _ => true,
        };
        return claimed.start == held.start && end_ok;
    }
    let Some(y) = claimed.start else { return true };
    let is = |w: &[&str]| before.iter().any(|b| w.contains(b));
    let (s, e) = (held.start.unwrap_or(y), end_of(&held).unwrap_or(y));
    if is(&["since", "from", "joined", "started", "began", "hired", "appointed"]) {
        return held.start == Some(y);
    }
    if is(&["until", "left", "till", "ended", "through"]) {
        return end_of(&held) == Some(y);
    }
    if entity.kind_is_point() { y == s || y == e } else { (s..=e).contains(&y) }
}

impl Entity {
    /// Whether the entry happened at one time (a certificate, award, paper) rather than over a
    /// span.
    fn kind_is_point(&self) -> bool {
        matches!(self.kind, Kind::Cert | Kind::Award | Kind::Paper | Kind::Degree | Kind::Thesis)
    }
}

/// Whether a claimed duration stated with `hedge` fits the span `held` (with `tol` years of
/// slack, since a year range does not say the months).
fn duration_fits(hedge: super::Hedge, claimed: f64, held: f64, tol: f64) -> bool {
    use super::Hedge;
    match hedge {
        Hedge::Exact => (claimed - held).abs() <= tol,
        Hedge::AtLeast => held + tol >= claimed,
        Hedge::AtMost => held - tol <= claimed,
        Hedge::About => (claimed - held).abs() <= tol.max(0.25 * held),
    }
}

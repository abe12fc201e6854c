//! The fact model: what the person's files say, as entities with typed attributes.
//!
//! Each tagged entry of the Career Context (`### Title [ROLE] - Employer, City (2016-2020)`)
//! is an [`Entity`]: its kind, title, organisation, place and dates, with the line it was read
//! from. An untagged H3-H6 heading takes its kind from the H2 it sits under (`EXPERIENCE`,
//! `EDUCATION`...). Dates missing from a heading are read from the entry's first lines
//! (`Joined in March 2016, left in 2020`). The QUICK REFERENCE and VERIFIED FACTS give the
//! whole person's facts ([`Person`]): location, total years of experience, languages with
//! levels, and `never_claim`, the things the person must never be credited with. VitaeGraph
//! records become entities too ([`Entity::from_record`]), read when a search finds them.
//!
//! GOALS AND TARGETING says what the person wants: nothing in it is an entity.

use super::Evidence;
use super::evidence::Origin;
use super::text::{fold, month_of, words};
use crate::career::quickref::{QValue, parse_scalar};

/// What an entity is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Role,
    Degree,
    Course,
    Thesis,
    Project,
    Cert,
    Award,
    Paper,
    Org,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Role => "role",
            Kind::Degree => "degree",
            Kind::Course => "course",
            Kind::Thesis => "thesis",
            Kind::Project => "project",
            Kind::Cert => "certificate",
            Kind::Award => "award",
            Kind::Paper => "publication",
            Kind::Org => "organisation",
        }
    }

    /// The kind a Career Context tag names.
    fn of_tag(tag: &str) -> Option<Kind> {
        Some(match tag {
            "ROLE" => Kind::Role,
            "DEGREE" => Kind::Degree,
            "COURSE" => Kind::Course,
            "THESIS" => Kind::Thesis,
            "PROJECT" => Kind::Project,
            "CERT" => Kind::Cert,
            "AWARD" | "COMPETITION" | "PATENT" => Kind::Award,
            "PAPER" | "PREPRINT" => Kind::Paper,
            "ORG" => Kind::Org,
            _ => return None,
        })
    }

    /// The kind of an untagged entry, from the normalized name of the H2 it is under.
    fn of_section(section: &str) -> Option<Kind> {
        let s = section.to_lowercase();
        Some(if s.contains("experience") || s.contains("employment") || s.contains("career history") {
            Kind::Role
        } else if s.contains("education") {
            Kind::Degree
        } else if s.contains("certif") || s.contains("licen") {
            Kind::Cert
        } else if s.contains("award") || s.contains("honour") || s.contains("honor") || s.contains("patent") {
            Kind::Award
        } else if s.contains("publication") {
            Kind::Paper
        } else if s.contains("project") {
            Kind::Project
        } else {
            return None;
        })
    }

    /// The kind of a VitaeGraph record, from its type (the prefix of its id).
    fn of_record(kind: &str) -> Option<Kind> {
        Some(match kind {
            "experience" => Kind::Role,
            "education" => Kind::Degree,
            "course" => Kind::Course,
            "thesis" => Kind::Thesis,
            "project" => Kind::Project,
            "certification" => Kind::Cert,
            "award" => Kind::Award,
            "publication" => Kind::Paper,
            _ => return None,
        })
    }
}

/// The end of an entry's dates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum End {
    Year(i32),
    /// `present`, `now`, `current`, `today`.
    Present,
}

/// Dates as a file gives them: a start year (with its month when given) and an end.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Dates {
    pub start: Option<i32>,
    pub start_month: Option<u8>,
    pub end: Option<End>,
}

impl Dates {
    /// The dates as a reader writes them: `2016-2020`, `2021-present`, `2019`.
    pub fn shown(&self) -> String {
        match (self.start, self.end) {
            (Some(s), Some(End::Year(e))) if s == e => s.to_string(),
            (Some(s), Some(End::Year(e))) => format!("{s}-{e}"),
            (Some(s), Some(End::Present)) => format!("{s}-present"),
            (Some(s), None) => s.to_string(),
            (None, Some(End::Year(e))) => e.to_string(),
            (None, Some(End::Present)) => "present".into(),
            (None, None) => String::new(),
        }
    }

    pub fn end_year(&self, now: i32) -> Option<i32> {
        match self.end {
            Some(End::Year(y)) => Some(y),
            Some(End::Present) => Some(now),
            None => self.start,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.start.is_none() && self.end.is_none()
    }
}

/// One entry of the person's history.
#[derive(Debug, Clone)]
pub struct Entity {
    pub kind: Kind,
    /// The entry's name as written: a role's title, a degree (`MSc Computer Science`), a
    /// certificate's or paper's name.
    pub title: String,
    pub title_words: Vec<String>,
    /// The employer, institution, issuer or venue.
    pub org: Option<String>,
    pub org_words: Vec<String>,
    /// The place after the organisation (`Tideline Logistics, Lisbon`).
    pub place: Option<String>,
    pub dates: Dates,
    /// The heading line (or record) it was read from.
    pub evidence: Evidence,
    /// How it was read, for `--explain`: `tagged heading`, `heading under EXPERIENCE`, `record`.
    pub read_as: &'static str,
    /// For a Career Context entry, the 0-based line of its heading; the entries it is in.
    pub heading_line: Option<usize>,
    pub parents: Vec<usize>,
}

/// A language and the level the files give it (see [`level_of`]).
#[derive(Debug, Clone)]
pub struct Language {
    pub name: String,
    pub level: Option<u8>,
    pub text: String,
    pub evidence: Evidence,
}

/// What the files say about the whole person.
#[derive(Debug, Clone, Default)]
pub struct Person {
    pub location: Option<(String, Evidence)>,
    pub years_experience: Option<(f64, Evidence)>,
    pub languages: Vec<Language>,
    /// Each `never_claim` item: its folded words, as written, and where.
    pub never_claim: Vec<(Vec<String>, String, Evidence)>,
    /// The roles the person wants (QUICK REFERENCE keys starting with `target`): never held.
    pub targets: Vec<(String, Evidence)>,
}

/// The fact model of one Career Context.
#[derive(Debug, Clone, Default)]
pub struct FactModel {
    pub entities: Vec<Entity>,
    pub person: Person,
    /// The look-ups the claims read, built on first use ([`super::typed::Prepared`]).
    prepared: std::sync::OnceLock<super::typed::Prepared>,
}

/// The language level a text states, on the CEFR scale (A1-C2 are 1-6; native is 6): the
/// one reading of levels for postings, claims and files ([`super::levels::level_in`]).
pub fn level_of(text: &str) -> Option<u8> {
    super::levels::level_in(text)
}

/// Whether `phrase` occurs in `text` as whole words (both folded).
pub fn contains_phrase(text: &str, phrase: &str) -> bool {
    let mut from = 0;
    while let Some(i) = text[from..].find(phrase) {
        let at = from + i;
        let before_ok = !text[..at].chars().next_back().is_some_and(char::is_alphanumeric);
        let after_ok = !text[at + phrase.len()..].chars().next().is_some_and(char::is_alphanumeric);
        if before_ok && after_ok {
            return true;
        }
        from = at + phrase.len().max(1);
        while from < text.len() && !text.is_char_boundary(from) {
            from += 1;
        }
    }
    false
}

/// A calendar year written as a word (1950-2100).
pub(crate) fn year_of(w: &str) -> Option<i32> {
    (w.len() == 4 && w.bytes().all(|b| b.is_ascii_digit()))
        .then(|| w.parse().ok())
        .flatten()
        .filter(|y| (1950..=2100).contains(y))
}

fn is_present(w: &str) -> bool {
    matches!(fold(w).as_str(), "present" | "now" | "current" | "today" | "ongoing" | "date")
}

/// The dates a piece of text gives: the first range (`2016-2020`, `Mar 2016 - Jun 2020`,
/// `2021-present`, `2014 to 2019`), else its years (two or more: first to last; one: that year,
/// or from it to the present when the text says `since` or `present`).
pub fn dates_in(text: &str) -> Dates {
    let ws = words(text);
    let mut years: Vec<(usize, i32)> = Vec::new();
    for (i, w) in ws.iter().enumerate() {
        if let Some(y) = year_of(w.text) {
            years.push((i, y));
        }
    }
    let joined = |a: usize, b: usize| {
        matches!(
            text[ws[a].span.end..ws[b].span.start].trim().to_lowercase().as_str(),
            "-" | "–" | "—" | "to" | "until" | "through" | "till"
        )
    };
    let month = |i: usize| i.checked_sub(1).and_then(|j| month_of(&fold(ws[j].text)));
    for &(i, y) in &years {
        // `2016-2020`, or `Mar 2016 - Jun 2020` (a month between the dash and the year).
        let next = [i + 1, i + 2].into_iter().find(|&j| {
            ws.get(j).is_some_and(|w| year_of(w.text).is_some() || is_present(w.text))
                && (joined(i, j) || (j == i + 2 && month_of(&fold(ws[i + 1].text)).is_some() && joined(i, i + 1)))
        });
        if let Some(j) = next {
            let end = match year_of(ws[j].text) {
                Some(e) => End::Year(e),
                None => End::Present,
            };
            return Dates { start: Some(y), start_month: month(i), end: Some(end) };
        }
    }
    let lower = text.to_lowercase();
    match years.as_slice() {
        [] => Dates::default(),
        [(i, y)] => {
            let ongoing = contains_phrase(&lower, "since") || contains_phrase(&lower, "present");
            Dates {
                start: Some(*y),
                start_month: month(*i),
                end: Some(if ongoing { End::Present } else { End::Year(*y) }),
            }
        }
        [(i, first), .., (_, last)] => {
            Dates { start: Some(*first), start_month: month(*i), end: Some(End::Year(*last.max(first))) }
        }
    }
}

/// `(2016-2020)`-like parenthesised parts removed, and the dates they gave.
fn take_dates(s: &str) -> (String, Dates) {
    let mut out = String::new();
    let mut dates = Dates::default();
    let mut rest = s;
    while let Some(open) = rest.find('(') {
        let Some(close) = rest[open..].find(')') else { break };
        let inner = &rest[open + 1..open + close];
        let d = dates_in(inner);
        out.push_str(&rest[..open]);
        if d.is_empty() {
            out.push_str(&rest[open..=open + close]);
        } else if dates.is_empty() {
            dates = d;
        }
        rest = &rest[open + close + 1..];
    }
    out.push_str(rest);
    if dates.is_empty() {
        // `- Employer, 2016-2020` without brackets.
        let d = dates_in(&out);
        if !d.is_empty() {
            dates = d;
            let cut = out.find(|c: char| c.is_ascii_digit()).unwrap_or(out.len());
            out.truncate(cut);
        }
    }
    (out, dates)
}

/// The folded words of a name, a possessive `'s` dropped (`St Brannock's` and `Halden's region`
/// are read as claims read them).
fn folded_words(s: &str) -> Vec<String> {
    words(s)
        .iter()
        .map(|w| {
            let f = fold(w.text);
            f.strip_suffix("'s").map_or_else(|| f.clone(), str::to_owned)
        })
        .collect()
}

fn clean(s: &str) -> String {
    s.trim().trim_matches(|c: char| matches!(c, '-' | '–' | '—' | ',' | '|' | ':' | '*' | '_' | '@')).trim().to_owned()
}

/// `Employer, City` -> (employer, city); a leading `at ` is dropped.
fn org_and_place(after: &str) -> (Option<String>, Option<String>) {
    let a = clean(after);
    let a = a.strip_prefix("at ").unwrap_or(&a).trim().to_owned();
    if a.is_empty() {
        return (None, None);
    }
    match a.split_once(", ") {
        Some((org, place)) if !place.trim().is_empty() => (Some(clean(org)), Some(clean(place))),
        _ => (Some(a), None),
    }
}

impl Entity {
    fn new(
        kind: Kind,
        title: String,
        org: Option<String>,
        place: Option<String>,
        dates: Dates,
        evidence: Evidence,
    ) -> Self {
        let title_words = folded_words(&title);
        let org_words = org.as_deref().map(folded_words).unwrap_or_default();
        Entity {
            kind,
            title,
            title_words,
            org,
            org_words,
            place,
            dates,
            evidence,
            read_as: "tagged heading",
            heading_line: None,
            parents: Vec::new(),
        }
    }

    /// An entry from a Career Context heading: `Title [TAG] - Org, Place (dates)`, or an
    /// untagged one of a section's `kind`.
    fn from_heading(title: &str, kind: Kind, evidence: Evidence) -> Entity {
        let (name, after) = match title.find('[').zip(crate::career::scan::tag(title)) {
            Some((open, tag)) => {
                let at = title[open..].find(&format!("[{tag}]")).map_or(open, |i| open + i);
                (&title[..at], &title[at + tag.len() + 2..])
            }
            None => {
                [" - ", " – ", " — ", " | ", " at "].iter().find_map(|d| title.split_once(d)).unwrap_or((title, ""))
            }
        };
        let (name, d1) = take_dates(name);
        let (after, d2) = take_dates(after);
        let dates = if d2.is_empty() { d1 } else { d2 };
        let (mut org, mut place) = org_and_place(&after);
        let mut name = clean(&name);
        // `Title, Employer [ROLE] (2016-2020)`: the employer before the tag.
        if org.is_none()
            && matches!(kind, Kind::Role | Kind::Degree)
            && let Some((t, o)) = name.clone().split_once(", ")
        {
            name = clean(t);
            (org, place) = org_and_place(o);
        }
        Entity::new(kind, name, org, place, dates, evidence)
    }

    /// An entry from a VitaeGraph record: its type (`experience`), title and plain text.
    pub fn from_record(kind: &str, id: &str, path: &str, title: &str, text: &str) -> Option<Entity> {
        let kind = Kind::of_record(kind)?;
        let (name, org) = match kind {
            Kind::Role | Kind::Degree => match title.rsplit_once(", ").or_else(|| title.split_once(" at ")) {
                Some((t, o)) => (clean(t), Some(clean(o))),
                None => (clean(title), None),
            },
            _ => (clean(title), None),
        };
        let head: String = text.chars().take(300).collect();
        let evidence = Evidence {
            origin: Origin::Record { id: id.to_owned(), path: path.to_owned() },
            line: None,
            excerpt: head.chars().take(200).collect(),
        };
        let mut e = Entity::new(kind, name, org, None, dates_in(&head), evidence);
        e.read_as = "record";
        Some(e)
    }

    /// How the entry reads for a person: `Senior Platform Engineer at Tideline Logistics
    /// (2021-2026)`.
    pub fn shown(&self) -> String {
        let mut s = self.title.clone();
        if let Some(o) = &self.org {
            let joiner = if self.kind == Kind::Role { " at " } else { ", " };
            s.push_str(joiner);
            s.push_str(o);
        }
        if !self.dates.is_empty() {
            s.push_str(&format!(" ({})", self.dates.shown()));
        }
        s
    }
}

fn context_evidence(file: &str, section: &str, line_idx: usize, text: &str) -> Evidence {
    let excerpt: String = text.trim().chars().take(200).collect();
    Evidence {
        origin: Origin::Context { file: file.to_owned(), section: section.to_owned() },
        line: Some(line_idx + 1),
        excerpt,
    }
}

/// A QUICK REFERENCE or VERIFIED FACTS value, as text items.
fn items(v: &QValue) -> Vec<String> {
    match v {
        QValue::List(l) => l.iter().flat_map(items).collect(),
        QValue::Str(s) => vec![s.clone()],
        QValue::Num(n) => vec![n.to_string()],
        QValue::Bool(b) => vec![b.to_string()],
    }
}

impl FactModel {
    /// The fact model of a Career Context (`file` is its name, for citations).
    pub fn of_context(file: &str, text: &str) -> FactModel {
        let mut model = FactModel::default();
        let lines: Vec<&str> = text.split('\n').map(|l| l.trim_end_matches('\r')).collect();
        let mut in_fence = false;
        let mut section = String::new();
        let mut in_quick = false;
        let mut quick_key: Option<(String, usize)> = None;
        // Open entries by heading level, for parents; the entry whose body is being read.
        let mut open: Vec<(usize, usize)> = Vec::new();
        let mut body_of: Option<usize> = None;
        let mut body_lines = 0;
        let mut person_values: Vec<(String, String, usize)> = Vec::new();
        for (i, line) in lines.iter().enumerate() {
            let t = line.trim_start();
            if t.starts_with("```") || t.starts_with("~~~") {
                in_fence = !in_fence;
                continue;
            }
            if in_fence {
                if in_quick {
                    if let Some(item) = t.strip_prefix("- ").filter(|_| line.starts_with([' ', '\t'])) {
                        if let Some((k, _)) = &quick_key {
                            person_values.push((k.clone(), parse_item(item), i));
                        }
                    } else if !line.starts_with([' ', '\t'])
                        && let Some((k, v)) = line.split_once(':')
                        && !k.is_empty()
                        && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
                    {
                        quick_key = Some((k.to_ascii_lowercase(), i));
                        for item in items(&parse_scalar(v)) {
                            if !item.is_empty() {
                                person_values.push((k.to_ascii_lowercase(), item, i));
                            }
                        }
                    }
                }
                continue;
            }
            if let Some(rest) = t.strip_prefix("<!--")
                && let Some(facts) = rest.trim_start().strip_prefix("VERIFIED FACTS:")
            {
                for pair in facts.trim_end().trim_end_matches("-->").split([',', '\n']) {
                    if let Some((k, v)) = pair.split_once('=') {
                        person_values.push((k.trim().to_ascii_lowercase(), v.trim().to_owned(), i));
                    }
                }
                continue;
            }
            let level = t.chars().take_while(|&c| c == '#').count();
            if level > 0 && t[level..].starts_with(' ') && line.starts_with('#') {
                let title = t[level..].trim();
                body_of = None;
                if level <= 2 {
                    section = title.to_owned();
                    in_quick = crate::career::scan::normalize_heading(title) == "quick reference";
                    open.clear();
                    continue;
                }
                while open.last().is_some_and(|&(l, _)| l >= level) {
                    open.pop();
                }
                let norm = crate::career::scan::normalize_heading(&section);
                if norm == "goals and targeting" {
                    continue;
                }
                let tagged = crate::career::scan::tag(title).and_then(Kind::of_tag);
                let Some(kind) = tagged.or_else(|| Kind::of_section(&norm)) else { continue };
                let mut e = Entity::from_heading(title, kind, context_evidence(file, &section, i, t));
                if tagged.is_none() {
                    e.read_as = "untagged heading, kind from its section";
                }
                e.heading_line = Some(i);
                e.parents = open.iter().map(|&(_, k)| k).collect();
                // A thesis or course inherits its degree's institution.
                if e.org.is_none()
                    && let Some(&(_, p)) = open.last()
                {
                    e.org = model.entities[p].org.clone();
                    e.org_words = model.entities[p].org_words.clone();
                }
                let k = model.entities.len();
                model.entities.push(e);
                open.push((level, k));
                body_of = Some(k);
                body_lines = 0;
                continue;
            }
            // An entry without dates in its heading: its first lines (`Joined in March 2016,
            // left in 2020.`).
            if let Some(k) = body_of
                && !t.is_empty()
            {
                body_lines += 1;
                if body_lines > 3 {
                    body_of = None;
                } else if model.entities[k].dates.is_empty() {
                    let d = dates_in(t);
                    if !d.is_empty() {
                        model.entities[k].dates = d;
                        model.entities[k].read_as = "heading, dates from the entry's first lines";
                    }
                }
            }
            if crate::career::scan::normalize_heading(&section) == "languages"
                && let Some(item) = t.strip_prefix("- ").or_else(|| t.strip_prefix("* "))
            {
                person_values.push(("languages".into(), item.trim().to_owned(), i));
            }
        }
        for (key, value, i) in person_values {
            let ev = context_evidence(file, "QUICK REFERENCE", i, lines[i]);
            let key = key.replace('-', "_");
            match key.as_str() {
                "location" | "city" | "based_in" | "base" => {
                    model.person.location.get_or_insert((value, ev));
                }
                "years_experience" | "years_of_experience" | "experience_years" | "total_experience" => {
                    if let Some(n) = value.split_whitespace().next().and_then(|n| n.trim_end_matches('+').parse().ok())
                    {
                        model.person.years_experience.get_or_insert((n, ev));
                    }
                }
                "languages" | "language" | "spoken_languages" => {
                    let f = fold(&value);
                    let name =
                        words(&f).iter().map(|w| w.text).find(|w| super::levels::is_language(w)).map(str::to_owned);
                    if let Some(name) = name
                        && !model.person.languages.iter().any(|l| l.name == name && l.level.is_some())
                    {
                        model.person.languages.retain(|l| l.name != name);
                        model.person.languages.push(Language {
                            name,
                            level: level_of(&value),
                            text: value,
                            evidence: ev,
                        });
                    }
                }
                "never_claim" | "never_claims" | "do_not_claim" => {
                    let ws = folded_words(&value);
                    if !ws.is_empty() {
                        model.person.never_claim.push((ws, value, ev));
                    }
                }
                k if k.starts_with("target") && k.contains("role") || k == "target_title" || k == "target_titles" => {
                    model.person.targets.push((value, ev));
                }
                _ => {}
            }
        }
        model
    }

    /// The look-ups of this model that every claim reads, built once.
    pub fn prepared(&self) -> &super::typed::Prepared {
        self.prepared.get_or_init(|| super::typed::Prepared::of(self))
    }

    /// The role entities (each entry whose kind is [`Kind::Role`]).
    pub fn roles(&self) -> impl Iterator<Item = &Entity> {
        self.entities.iter().filter(|e| e.kind == Kind::Role)
    }
}

/// A `  - item` of the QUICK REFERENCE, its quotes removed.
fn parse_item(item: &str) -> String {
    match parse_scalar(item) {
        QValue::Str(s) => s,
        other => items(&other).join(", "),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CONTEXT: &str = "\
# Amara Okafor - Nurse
## QUICK REFERENCE
```yaml
name: Amara Okafor
location: Leeds, UK
years_experience: 12
languages: [English (native), French (B2)]
never_claim:
  - PhD
  - people management
```
## GOALS AND TARGETING
### Ward Manager [ROLE] - Nowhere Hospital (2027-2030)
## EXPERIENCE
### Senior Staff Nurse [ROLE] - St Brigid's Hospital, Leeds (2016-present)
TL;DR: ICU.
### Staff Nurse - Harrow General
Joined in March 2011, left in 2016.
## EDUCATION
### BSc (Hons) Nursing [DEGREE] - University of Leeds (2008-2011)
## LANGUAGES
- Yoruba: native
";

    #[test]
    fn entries_and_the_person_are_read() {
        let m = FactModel::of_context("cc.md", CONTEXT);
        let shown: Vec<String> = m.entities.iter().map(Entity::shown).collect();
        assert_eq!(
            shown,
            [
                "Senior Staff Nurse at St Brigid's Hospital (2016-present)",
                "Staff Nurse at Harrow General (2011-2016)",
                "BSc (Hons) Nursing, University of Leeds (2008-2011)",
            ]
        );
        assert_eq!(m.entities[0].place.as_deref(), Some("Leeds"));
        assert_eq!(m.entities[1].dates.start_month, Some(3));
        assert_eq!(m.person.location.as_ref().unwrap().0, "Leeds, UK");
        assert_eq!(m.person.years_experience.as_ref().unwrap().0, 12.0);
        let langs: Vec<(&str, Option<u8>)> = m.person.languages.iter().map(|l| (l.name.as_str(), l.level)).collect();
        assert_eq!(langs, [("english", Some(6)), ("french", Some(4)), ("yoruba", Some(6))]);
        assert_eq!(m.person.never_claim.len(), 2);
        assert_eq!(m.person.never_claim[1].0, ["people", "management"]);
    }

    #[test]
    fn dates_in_their_forms() {
        let d = |s| dates_in(s).shown();
        assert_eq!(d("(2016-2020)"), "2016-2020");
        assert_eq!(d("Mar 2016 – Jun 2020"), "2016-2020");
        assert_eq!(d("2021 to present"), "2021-present");
        assert_eq!(d("since 2019"), "2019-present");
        assert_eq!(d("in 2019"), "2019");
        assert_eq!(d("no dates"), "");
    }
}

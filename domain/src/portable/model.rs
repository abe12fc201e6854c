//! A career as the importers read it and the exporter writes it: the facts a LinkedIn archive
//! or a JSON Resume holds, each with where it came from.

use super::date::PartialDate;

/// Where a fact was read: the file and the row (a CSV's line of data, 1-based, the header
/// being row 1) or a JSON pointer (`/work/0`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Source {
    pub file: String,
    pub at: String,
}

impl Source {
    pub fn row(file: &str, row: u64) -> Self {
        Self { file: file.to_owned(), at: format!("row {row}") }
    }

    pub fn pointer(file: &str, pointer: String) -> Self {
        Self { file: file.to_owned(), at: pointer }
    }

    /// `Positions.csv row 3`, `resume.json /work/0`.
    pub fn cite(&self) -> String {
        format!("{} {}", self.file, self.at)
    }
}

/// The kinds of dated entries a career holds, each a Career Context tag and a record type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EntryKind {
    Role,
    Degree,
    Certification,
    Project,
    Award,
    Publication,
}

impl EntryKind {
    pub const ALL: [EntryKind; 6] = [
        EntryKind::Role,
        EntryKind::Degree,
        EntryKind::Certification,
        EntryKind::Project,
        EntryKind::Award,
        EntryKind::Publication,
    ];

    /// The Career Context heading tag.
    pub fn tag(self) -> &'static str {
        match self {
            EntryKind::Role => "ROLE",
            EntryKind::Degree => "DEGREE",
            EntryKind::Certification => "CERT",
            EntryKind::Project => "PROJECT",
            EntryKind::Award => "AWARD",
            EntryKind::Publication => "PAPER",
        }
    }

    /// The VitaeGraph record type.
    pub fn record_type(self) -> crate::graph::RecordType {
        use crate::graph::RecordType;
        match self {
            EntryKind::Role => RecordType::Experience,
            EntryKind::Degree => RecordType::Education,
            EntryKind::Certification => RecordType::Certification,
            EntryKind::Project => RecordType::Project,
            EntryKind::Award => RecordType::Award,
            EntryKind::Publication => RecordType::Publication,
        }
    }

    pub fn from_record_type(t: crate::graph::RecordType) -> Option<Self> {
        EntryKind::ALL.into_iter().find(|k| k.record_type() == t)
    }

    /// The Career Context H2 the import puts this kind under.
    pub fn section(self) -> &'static str {
        match self {
            EntryKind::Role => "Experience",
            EntryKind::Degree => "Education",
            EntryKind::Certification | EntryKind::Award => "Certifications and achievements",
            EntryKind::Project => "Projects",
            EntryKind::Publication => "Research and publications",
        }
    }

    /// What the organisation is called for this kind (front matter key `organization`).
    pub fn organization_word(self) -> &'static str {
        match self {
            EntryKind::Role => "at",
            EntryKind::Degree => "at",
            EntryKind::Certification => "issued by",
            EntryKind::Project => "for",
            EntryKind::Award => "from",
            EntryKind::Publication => "in",
        }
    }

    /// Whether the Career Context format asks a `TL;DR:` line of this kind's entries.
    pub fn wants_tldr(self) -> bool {
        matches!(self, EntryKind::Role | EntryKind::Project)
    }
}

/// One dated entry: a role, a degree, a certification, a project, an award, a publication.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub kind: EntryKind,
    /// Position, degree, certificate, project, award or publication name.
    pub title: String,
    /// Employer, school, issuer, client, awarder or publisher.
    pub organization: Option<String>,
    /// A degree's field of study.
    pub area: Option<String>,
    pub location: Option<String>,
    /// The start (for a one-date kind, its date).
    pub start: Option<PartialDate>,
    pub end: Option<PartialDate>,
    /// Ongoing: a role or project with a start and no end.
    pub current: bool,
    pub url: Option<String>,
    /// A degree's grade.
    pub score: Option<String>,
    pub summary: Option<String>,
    pub highlights: Vec<String>,
    pub source: Source,
    /// `visibility: private` in its record.
    pub private: bool,
}

impl Entry {
    pub fn new(kind: EntryKind, title: &str, source: Source) -> Self {
        Entry {
            kind,
            title: title.to_owned(),
            organization: None,
            area: None,
            location: None,
            start: None,
            end: None,
            current: false,
            url: None,
            score: None,
            summary: None,
            highlights: Vec::new(),
            source,
            private: false,
        }
    }

    /// The heading after the tag: `Senior Engineer - Acme (Jan 2020 – present)`.
    pub fn heading(&self) -> String {
        let mut h = self.title.clone();
        if let Some(a) = &self.area {
            h.push_str(" in ");
            h.push_str(a);
        }
        if let Some(o) = &self.organization {
            h.push_str(" - ");
            h.push_str(o);
        }
        if let Some(dates) = self.dates() {
            h.push_str(&format!(" ({dates})"));
        }
        h
    }

    /// `Jan 2020 – Mar 2023`, `Jan 2020 – present`, `2019`.
    pub fn dates(&self) -> Option<String> {
        match (self.start, self.end) {
            (Some(s), Some(e)) => Some(format!("{} \u{2013} {}", s.human(), e.human())),
            (Some(s), None) if self.current => Some(format!("{} \u{2013} present", s.human())),
            (Some(s), None) => Some(s.human()),
            (None, Some(e)) => Some(format!("until {}", e.human())),
            (None, None) => None,
        }
    }
}

/// A spoken language and how well.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Language {
    pub name: String,
    pub fluency: Option<String>,
    pub source: Source,
}

/// A skill, with a level and keywords when the source has them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skill {
    pub name: String,
    pub level: Option<String>,
    pub keywords: Vec<String>,
    pub source: Source,
}

/// A profile on another site (`GitHub`, `https://github.com/ada`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Profile {
    pub network: String,
    pub url: String,
}

/// The person: the QUICK REFERENCE's facts.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Person {
    pub name: String,
    /// The headline, written as `positioning_summary`.
    pub headline: Option<String>,
    pub summary: Option<String>,
    pub location: Option<String>,
    pub email: Option<String>,
    pub phone: Option<String>,
    pub url: Option<String>,
    pub profiles: Vec<Profile>,
    pub source: Source,
}

/// Everything an import read, or an export writes.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Career {
    pub person: Person,
    pub entries: Vec<Entry>,
    pub languages: Vec<Language>,
    pub skills: Vec<Skill>,
}

impl Career {
    /// How many facts it carries: the person's filled fields, each entry's filled fields, each
    /// language and skill (the number `import` reports).
    pub fn fact_count(&self) -> usize {
        let p = &self.person;
        let person = usize::from(!p.name.is_empty())
            + [&p.headline, &p.summary, &p.location, &p.email, &p.phone, &p.url].iter().filter(|f| f.is_some()).count()
            + p.profiles.len();
        let entries: usize = self
            .entries
            .iter()
            .map(|e| {
                1 + [&e.organization, &e.area, &e.location, &e.url, &e.score, &e.summary]
                    .iter()
                    .filter(|f| f.is_some())
                    .count()
                    + usize::from(e.start.is_some())
                    + usize::from(e.end.is_some() || e.current)
                    + e.highlights.len()
            })
            .sum();
        person + entries + self.languages.len() + self.skills.iter().map(|s| 1 + s.keywords.len()).sum::<usize>()
    }
}

/// A URL as JSON Resume's schema wants it (an absolute URI): `www.x.org` becomes
/// `https://www.x.org`; text with spaces is not a URL.
pub fn normalize_url(raw: &str) -> Option<String> {
    let t = raw.trim();
    if t.is_empty() || t.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return None;
    }
    let has_scheme = t.split_once(':').is_some_and(|(s, _)| {
        !s.is_empty()
            && s.starts_with(|c: char| c.is_ascii_alphabetic())
            && s.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
    });
    if has_scheme {
        Some(t.to_owned())
    } else if t.contains('.') {
        Some(format!("https://{t}"))
    } else {
        None
    }
}

/// Text as one tidy value: trimmed, `None` when empty.
pub fn filled(s: &str) -> Option<String> {
    let t = s.trim();
    (!t.is_empty()).then(|| t.to_owned())
}

/// One line: runs of white space (line breaks included) folded to one space.
pub fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

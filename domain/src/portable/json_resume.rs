//! JSON Resume (schema 1.0.0, <https://jsonresume.org/schema>): read into a career, written
//! from one. Read: every section the schema defines, checked against its types and date
//! pattern; `volunteer` entries become roles; `interests` and `references` (other people's
//! words about the person) are not imported and said so. Written: ISO dates (`YYYY`,
//! `YYYY-MM`, `YYYY-MM-DD`), absolute URLs, empty sections left out.

use serde::{Deserialize, Serialize};

use super::date::PartialDate;
use super::model::{Career, Entry, EntryKind, Language, Person, Profile, Skill, Source, filled};
use super::{ImportError, Imported, Skipped};

/// The schema the export names in `$schema`.
pub const SCHEMA_URL: &str = "https://raw.githubusercontent.com/jsonresume/resume-schema/v1.0.0/schema.json";

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Resume {
    #[serde(rename = "$schema", default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub basics: Option<Basics>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub work: Vec<Work>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub volunteer: Vec<Volunteer>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub education: Vec<Education>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub awards: Vec<Award>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub certificates: Vec<Certificate>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub publications: Vec<Publication>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skills: Vec<SkillJson>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub languages: Vec<LanguageJson>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub interests: Vec<Interest>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub references: Vec<Reference>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub projects: Vec<ProjectJson>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

type Text = Option<String>;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Basics {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Text,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Text,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image: Text,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub email: Text,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phone: Text,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Text,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Text,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub location: Option<Location>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub profiles: Vec<ProfileJson>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Location {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub address: Text,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub postal_code: Text,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub city: Text,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub country_code: Text,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub region: Text,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ProfileJson {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub network: Text,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub username: Text,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Text,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Work {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Text,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub location: Text,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Text,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub position: Text,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Text,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_date: Text,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_date: Text,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Text,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub highlights: Vec<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Volunteer {
    #[serde(default)]
    pub organization: Text,
    #[serde(default)]
    pub position: Text,
    #[serde(default)]
    pub url: Text,
    #[serde(default)]
    pub start_date: Text,
    #[serde(default)]
    pub end_date: Text,
    #[serde(default)]
    pub summary: Text,
    #[serde(default)]
    pub highlights: Vec<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Education {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub institution: Text,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Text,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub area: Text,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub study_type: Text,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_date: Text,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_date: Text,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score: Text,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub courses: Vec<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Award {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Text,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub date: Text,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub awarder: Text,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Text,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Certificate {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Text,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub date: Text,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Text,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub issuer: Text,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Publication {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Text,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub publisher: Text,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub release_date: Text,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Text,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Text,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SkillJson {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Text,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Text,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub keywords: Vec<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct LanguageJson {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub language: Text,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fluency: Text,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Interest {
    #[serde(default)]
    pub name: Text,
    #[serde(default)]
    pub keywords: Vec<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Reference {
    #[serde(default)]
    pub name: Text,
    #[serde(default)]
    pub reference: Text,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProjectJson {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Text,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Text,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub highlights: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub keywords: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_date: Text,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_date: Text,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Text,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub roles: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub entity: Text,
    #[serde(default, skip_serializing_if = "Option::is_none", rename = "type")]
    pub kind: Text,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Meta {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub canonical: Text,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Text,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_modified: Text,
}

/// Parses and checks a `resume.json`: JSON, the schema's types (a wrong type is named by its
/// JSON pointer), and its `iso8601` date pattern.
pub fn parse(file: &str, text: &str) -> Result<Resume, ImportError> {
    let mut de = serde_json::Deserializer::from_str(text);
    let resume: Resume = serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let pointer = pointer_of(&e.path().to_string());
        let inner = e.into_inner();
        if inner.is_syntax() || inner.is_eof() {
            ImportError::Json { file: file.to_owned(), line: inner.line(), reason: inner.to_string() }
        } else {
            ImportError::Schema { file: file.to_owned(), pointer, reason: strip_position(&inner.to_string()) }
        }
    })?;
    de.end().map_err(|e| ImportError::Json { file: file.to_owned(), line: e.line(), reason: e.to_string() })?;
    check_dates(file, &resume)?;
    Ok(resume)
}

fn strip_position(message: &str) -> String {
    message.split(" at line ").next().unwrap_or(message).to_owned()
}

/// `work[0].startDate` as a JSON pointer: `/work/0/startDate`.
fn pointer_of(path: &str) -> String {
    if path == "." {
        return String::new();
    }
    let mut out = String::new();
    for part in path.split('.') {
        let mut rest = part;
        while let Some(open) = rest.find('[') {
            let (name, after) = rest.split_at(open);
            if !name.is_empty() {
                out.push('/');
                out.push_str(name);
            }
            let close = after.find(']').unwrap_or(after.len());
            out.push('/');
            out.push_str(&after[1..close]);
            rest = after.get(close + 1..).unwrap_or("");
        }
        if !rest.is_empty() {
            out.push('/');
            out.push_str(rest);
        }
    }
    out
}

fn check_dates(file: &str, r: &Resume) -> Result<(), ImportError> {
    let mut dates: Vec<(String, &Text)> = Vec::new();
    for (i, w) in r.work.iter().enumerate() {
        dates.push((format!("/work/{i}/startDate"), &w.start_date));
        dates.push((format!("/work/{i}/endDate"), &w.end_date));
    }
    for (i, w) in r.volunteer.iter().enumerate() {
        dates.push((format!("/volunteer/{i}/startDate"), &w.start_date));
        dates.push((format!("/volunteer/{i}/endDate"), &w.end_date));
    }
    for (i, e) in r.education.iter().enumerate() {
        dates.push((format!("/education/{i}/startDate"), &e.start_date));
        dates.push((format!("/education/{i}/endDate"), &e.end_date));
    }
    for (i, a) in r.awards.iter().enumerate() {
        dates.push((format!("/awards/{i}/date"), &a.date));
    }
    for (i, c) in r.certificates.iter().enumerate() {
        dates.push((format!("/certificates/{i}/date"), &c.date));
    }
    for (i, p) in r.publications.iter().enumerate() {
        dates.push((format!("/publications/{i}/releaseDate"), &p.release_date));
    }
    for (i, p) in r.projects.iter().enumerate() {
        dates.push((format!("/projects/{i}/startDate"), &p.start_date));
        dates.push((format!("/projects/{i}/endDate"), &p.end_date));
    }
    let mut urls: Vec<(String, &Text)> = Vec::new();
    if let Some(b) = &r.basics {
        if let Some(e) = &b.email
            && !looks_like_email(e)
        {
            return Err(ImportError::Schema {
                file: file.to_owned(),
                pointer: "/basics/email".into(),
                reason: format!("{e:?} is not an email address"),
            });
        }
        urls.push(("/basics/url".into(), &b.url));
        for (i, p) in b.profiles.iter().enumerate() {
            urls.push((format!("/basics/profiles/{i}/url"), &p.url));
        }
    }
    urls.extend(r.work.iter().enumerate().map(|(i, w)| (format!("/work/{i}/url"), &w.url)));
    urls.extend(r.volunteer.iter().enumerate().map(|(i, w)| (format!("/volunteer/{i}/url"), &w.url)));
    urls.extend(r.education.iter().enumerate().map(|(i, w)| (format!("/education/{i}/url"), &w.url)));
    urls.extend(r.certificates.iter().enumerate().map(|(i, w)| (format!("/certificates/{i}/url"), &w.url)));
    urls.extend(r.publications.iter().enumerate().map(|(i, w)| (format!("/publications/{i}/url"), &w.url)));
    urls.extend(r.projects.iter().enumerate().map(|(i, w)| (format!("/projects/{i}/url"), &w.url)));
    for (pointer, value) in urls {
        if let Some(v) = value
            && !is_uri(v)
        {
            return Err(ImportError::Schema {
                file: file.to_owned(),
                pointer,
                reason: format!("{v:?} is not an absolute URL (the schema's `uri` format, e.g. https://example.org)"),
            });
        }
    }
    for (pointer, value) in dates {
        if let Some(v) = value
            && !matches_iso8601(v)
        {
            return Err(ImportError::Schema {
                file: file.to_owned(),
                pointer,
                reason: format!("{v:?} is not a date as the schema writes one: YYYY, YYYY-MM or YYYY-MM-DD"),
            });
        }
    }
    Ok(())
}

/// `local@domain.tld`, no white space: what the schema's `email` format accepts, roughly.
pub fn looks_like_email(s: &str) -> bool {
    let Some((local, domain)) = s.split_once('@') else { return false };
    !local.is_empty()
        && domain.contains('.')
        && !domain.starts_with('.')
        && !domain.ends_with('.')
        && !domain.contains('@')
        && !s.chars().any(|c| c.is_whitespace() || c.is_control())
}

/// `scheme:rest` with no white space: the schema's `uri` format.
fn is_uri(s: &str) -> bool {
    s.split_once(':').is_some_and(|(scheme, rest)| {
        scheme.starts_with(|c: char| c.is_ascii_alphabetic())
            && scheme.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
            && !rest.is_empty()
            && !s.chars().any(|c| c.is_whitespace() || c.is_control())
    })
}

/// The schema's `iso8601` pattern: `^([1-2][0-9]{3}-[0-1][0-9]-[0-3][0-9]|[1-2][0-9]{3}-[0-1][0-9]|[1-2][0-9]{3})$`.
fn matches_iso8601(v: &str) -> bool {
    let b = v.as_bytes();
    let year = |s: &[u8]| s.len() == 4 && matches!(s[0], b'1' | b'2') && s[1..].iter().all(u8::is_ascii_digit);
    let two = |s: &[u8], first: &[u8]| s.len() == 2 && first.contains(&s[0]) && s[1].is_ascii_digit();
    match b.len() {
        4 => year(b),
        7 => year(&b[..4]) && b[4] == b'-' && two(&b[5..7], b"01"),
        10 => year(&b[..4]) && b[4] == b'-' && two(&b[5..7], b"01") && b[7] == b'-' && two(&b[8..10], b"0123"),
        _ => false,
    }
}

/// A date the pattern accepts but no calendar has (`2020-19`) is kept out, with a warning.
fn date(file: &str, pointer: String, v: &Text, warnings: &mut Vec<String>) -> Option<PartialDate> {
    let v = v.as_deref()?;
    let d = PartialDate::parse_iso(v);
    if d.is_none() {
        warnings.push(format!("{file} {pointer}: {v:?} is no calendar date; left out"));
    }
    d
}

fn text(v: &Text) -> Option<String> {
    v.as_deref().and_then(filled)
}

/// Maps a checked resume to a career.
pub fn to_career(file: &str, r: &Resume, warnings: &mut Vec<String>) -> Career {
    let mut c = Career::default();
    if let Some(b) = &r.basics {
        c.person = Person {
            name: text(&b.name).unwrap_or_default(),
            headline: text(&b.label),
            summary: text(&b.summary),
            location: b.location.as_ref().and_then(|l| {
                let parts: Vec<String> = [&l.address, &l.city, &l.region, &l.postal_code, &l.country_code]
                    .into_iter()
                    .filter_map(text)
                    .collect();
                (!parts.is_empty()).then(|| parts.join(", "))
            }),
            email: text(&b.email),
            phone: text(&b.phone),
            url: text(&b.url),
            profiles: b
                .profiles
                .iter()
                .filter_map(|p| {
                    let network = text(&p.network).unwrap_or_else(|| "Profile".into());
                    let url = text(&p.url).or_else(|| text(&p.username))?;
                    Some(Profile { network, url })
                })
                .collect(),
            source: Source::pointer(file, "/basics".into()),
        };
    }
    let src = |pointer: String| Source::pointer(file, pointer);
    let mut push = |c: &mut Career, kind, title: Option<String>, pointer: String, fill: &mut dyn FnMut(&mut Entry)| {
        let Some(title) = title else {
            warnings.push(format!("{file} {pointer}: no name or title; left out"));
            return;
        };
        let mut e = Entry::new(kind, &title, src(pointer));
        fill(&mut e);
        c.entries.push(e);
    };
    let mut w2 = Vec::new();
    for (i, w) in r.work.iter().enumerate() {
        let p = format!("/work/{i}");
        let (s, e) = (
            date(file, format!("{p}/startDate"), &w.start_date, &mut w2),
            date(file, format!("{p}/endDate"), &w.end_date, &mut w2),
        );
        push(&mut c, EntryKind::Role, text(&w.position).or_else(|| text(&w.name)), p, &mut |x| {
            x.organization = text(&w.name).filter(|n| Some(n) != text(&w.position).as_ref());
            x.location = text(&w.location);
            x.url = text(&w.url);
            x.start = s;
            x.end = e;
            x.current = s.is_some() && e.is_none();
            x.summary = text(&w.summary).or_else(|| text(&w.description));
            x.highlights = w.highlights.iter().filter_map(|h| filled(h)).collect();
        });
    }
    for (i, w) in r.volunteer.iter().enumerate() {
        let p = format!("/volunteer/{i}");
        let (s, e) = (
            date(file, format!("{p}/startDate"), &w.start_date, &mut w2),
            date(file, format!("{p}/endDate"), &w.end_date, &mut w2),
        );
        push(&mut c, EntryKind::Role, text(&w.position).map(|t| format!("{t} (volunteer)")), p, &mut |x| {
            x.organization = text(&w.organization);
            x.url = text(&w.url);
            x.start = s;
            x.end = e;
            x.current = s.is_some() && e.is_none();
            x.summary = text(&w.summary);
            x.highlights = w.highlights.iter().filter_map(|h| filled(h)).collect();
        });
    }
    for (i, d) in r.education.iter().enumerate() {
        let p = format!("/education/{i}");
        let (s, e) = (
            date(file, format!("{p}/startDate"), &d.start_date, &mut w2),
            date(file, format!("{p}/endDate"), &d.end_date, &mut w2),
        );
        push(&mut c, EntryKind::Degree, text(&d.study_type).or_else(|| text(&d.institution)), p, &mut |x| {
            x.organization = text(&d.institution).filter(|n| Some(n) != text(&d.study_type).as_ref());
            x.area = text(&d.area);
            x.url = text(&d.url);
            x.start = s;
            x.end = e;
            x.score = text(&d.score);
            x.highlights = d.courses.iter().filter_map(|h| filled(h)).collect();
        });
    }
    for (i, a) in r.certificates.iter().enumerate() {
        let p = format!("/certificates/{i}");
        let s = date(file, format!("{p}/date"), &a.date, &mut w2);
        push(&mut c, EntryKind::Certification, text(&a.name), p, &mut |x| {
            x.organization = text(&a.issuer);
            x.url = text(&a.url);
            x.start = s;
        });
    }
    for (i, a) in r.awards.iter().enumerate() {
        let p = format!("/awards/{i}");
        let s = date(file, format!("{p}/date"), &a.date, &mut w2);
        push(&mut c, EntryKind::Award, text(&a.title), p, &mut |x| {
            x.organization = text(&a.awarder);
            x.start = s;
            x.summary = text(&a.summary);
        });
    }
    for (i, a) in r.publications.iter().enumerate() {
        let p = format!("/publications/{i}");
        let s = date(file, format!("{p}/releaseDate"), &a.release_date, &mut w2);
        push(&mut c, EntryKind::Publication, text(&a.name), p, &mut |x| {
            x.organization = text(&a.publisher);
            x.url = text(&a.url);
            x.start = s;
            x.summary = text(&a.summary);
        });
    }
    for (i, a) in r.projects.iter().enumerate() {
        let p = format!("/projects/{i}");
        let (s, e) = (
            date(file, format!("{p}/startDate"), &a.start_date, &mut w2),
            date(file, format!("{p}/endDate"), &a.end_date, &mut w2),
        );
        push(&mut c, EntryKind::Project, text(&a.name), p, &mut |x| {
            x.organization = text(&a.entity);
            x.url = text(&a.url);
            x.start = s;
            x.end = e;
            x.current = s.is_some() && e.is_none();
            x.summary = text(&a.description);
            x.highlights = a.highlights.iter().filter_map(|h| filled(h)).collect();
        });
    }
    warnings.append(&mut w2);
    for (i, l) in r.languages.iter().enumerate() {
        if let Some(name) = text(&l.language) {
            c.languages.push(Language { name, fluency: text(&l.fluency), source: src(format!("/languages/{i}")) });
        }
    }
    for (i, s) in r.skills.iter().enumerate() {
        if let Some(name) = text(&s.name) {
            c.skills.push(Skill {
                name,
                level: text(&s.level),
                keywords: s.keywords.iter().filter_map(|k| filled(k)).collect(),
                source: src(format!("/skills/{i}")),
            });
        }
    }
    c
}

/// Reads a `resume.json`: checked, then mapped; `interests` and `references` are listed as
/// not imported.
pub fn import(file: &str, text: &str) -> Result<Imported, ImportError> {
    let resume = parse(file, text)?;
    let mut warnings = Vec::new();
    let career = to_career(file, &resume, &mut warnings);
    let mut skipped = Vec::new();
    if !resume.references.is_empty() {
        skipped.push(Skipped { name: format!("references ({})", resume.references.len()), others_data: true });
    }
    if !resume.interests.is_empty() {
        skipped.push(Skipped { name: format!("interests ({})", resume.interests.len()), others_data: false });
    }
    Ok(Imported { career, read: vec![file.to_owned()], skipped, warnings })
}

fn some(s: &Option<String>) -> Text {
    s.clone()
}

fn iso(d: Option<PartialDate>) -> Text {
    d.map(|d| d.to_string())
}

/// A URL the schema's `uri` format accepts, or nothing.
fn url(s: &Option<String>) -> Text {
    s.as_deref().and_then(super::model::normalize_url)
}

/// The JSON Resume of a career. Dates are ISO; an ongoing entry has no `endDate`.
pub fn from_career(c: &Career) -> Resume {
    let p = &c.person;
    let mut r = Resume {
        schema: Some(SCHEMA_URL.into()),
        basics: Some(Basics {
            name: filled(&p.name),
            label: some(&p.headline),
            image: None,
            email: p.email.clone().filter(|e| looks_like_email(e)),
            phone: some(&p.phone),
            url: url(&p.url),
            summary: some(&p.summary),
            location: p.location.as_ref().map(|l| Location { city: Some(l.clone()), ..Location::default() }),
            profiles: p
                .profiles
                .iter()
                .filter_map(|pr| {
                    Some(ProfileJson {
                        network: Some(pr.network.clone()),
                        username: None,
                        url: Some(url(&Some(pr.url.clone()))?),
                    })
                })
                .collect(),
        }),
        ..Resume::default()
    };
    for e in &c.entries {
        match e.kind {
            EntryKind::Role => r.work.push(Work {
                name: some(&e.organization),
                location: some(&e.location),
                description: None,
                position: Some(e.title.clone()),
                url: url(&e.url),
                start_date: iso(e.start),
                end_date: iso(e.end),
                summary: some(&e.summary),
                highlights: e.highlights.clone(),
            }),
            EntryKind::Degree => r.education.push(Education {
                institution: some(&e.organization),
                url: url(&e.url),
                area: some(&e.area),
                study_type: Some(e.title.clone()),
                start_date: iso(e.start),
                end_date: iso(e.end),
                score: some(&e.score),
                courses: e.highlights.clone(),
            }),
            EntryKind::Certification => r.certificates.push(Certificate {
                name: Some(e.title.clone()),
                date: iso(e.start),
                url: url(&e.url),
                issuer: some(&e.organization),
            }),
            EntryKind::Award => r.awards.push(Award {
                title: Some(e.title.clone()),
                date: iso(e.start),
                awarder: some(&e.organization),
                summary: some(&e.summary),
            }),
            EntryKind::Publication => r.publications.push(Publication {
                name: Some(e.title.clone()),
                publisher: some(&e.organization),
                release_date: iso(e.start),
                url: url(&e.url),
                summary: some(&e.summary),
            }),
            EntryKind::Project => r.projects.push(ProjectJson {
                name: Some(e.title.clone()),
                description: some(&e.summary),
                highlights: e.highlights.clone(),
                start_date: iso(e.start),
                end_date: iso(e.end),
                url: url(&e.url),
                entity: some(&e.organization),
                ..ProjectJson::default()
            }),
        }
    }
    r.languages = c
        .languages
        .iter()
        .map(|l| LanguageJson { language: Some(l.name.clone()), fluency: l.fluency.clone() })
        .collect();
    r.skills = c
        .skills
        .iter()
        .map(|s| SkillJson { name: Some(s.name.clone()), level: s.level.clone(), keywords: s.keywords.clone() })
        .collect();
    r
}

/// The resume as 2-space indented JSON with a final newline.
pub fn to_json(r: &Resume) -> String {
    let mut s = serde_json::to_string_pretty(r).unwrap_or_else(|_| "{}".into());
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wrong_type_is_named_by_its_pointer() {
        let e = parse("resume.json", r#"{"work": [{"name": "Acme", "highlights": "one"}]}"#).unwrap_err();
        assert!(matches!(&e, ImportError::Schema { pointer, .. } if pointer == "/work/0/highlights"), "{e:?}");
    }

    #[test]
    fn a_date_outside_the_pattern_is_refused() {
        let e = parse("resume.json", r#"{"education": [{"institution": "X", "startDate": "Jan 2020"}]}"#).unwrap_err();
        assert!(matches!(&e, ImportError::Schema { pointer, .. } if pointer == "/education/0/startDate"), "{e:?}");
    }

    #[test]
    fn an_email_or_url_the_schema_refuses_is_named() {
        let e = parse("r.json", r#"{"basics": {"email": "not an email"}}"#).unwrap_err();
        assert!(matches!(&e, ImportError::Schema { pointer, .. } if pointer == "/basics/email"), "{e:?}");
        let e = parse("r.json", r#"{"projects": [{"name": "x", "url": "github.com/x"}]}"#).unwrap_err();
        assert!(matches!(&e, ImportError::Schema { pointer, .. } if pointer == "/projects/0/url"), "{e:?}");
    }

    #[test]
    fn broken_json_names_its_line() {
        let e = parse("resume.json", "{\n\"basics\": {\n").unwrap_err();
        assert!(matches!(&e, ImportError::Json { line: 3, .. }), "{e:?}");
    }

    #[test]
    fn the_pattern_is_the_schemas() {
        for ok in ["2020", "2020-01", "2020-01-31", "1999-19-39"] {
            assert!(matches_iso8601(ok), "{ok}");
        }
        for bad in ["20", "3020", "2020-1", "2020-21", "2020-01-41", "2020/01", "2020-01-01T00:00"] {
            assert!(!matches_iso8601(bad), "{bad}");
        }
    }
}

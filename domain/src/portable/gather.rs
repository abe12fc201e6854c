//! A career read back from the person's files, for `export json-resume`: the person from the
//! Career Context's QUICK REFERENCE (`name`, `positioning_summary`, `location`, `email`,
//! `phone`, `website` or `url`, `profiles` as `Network: URL` items, `languages` as
//! `Language (fluency)` items), the summary from its `Profile summary` section, skills from its
//! Skills Index (`- Name (level): keyword, keyword`; bold and comments dropped), and the dated
//! entries from the VitaeGraph's records (the front matter keys an import writes, see
//! [`super::render::RECORD_KEYS`]; a hand-written record gives its `title`, dates when it has
//! `start`/`end`, and its body's first paragraphs as the summary). Each record's
//! `visibility: private` is kept on its entry.

use super::date::PartialDate;
use super::model::{Career, Entry, EntryKind, Language, Profile, Skill, Source, filled};
use crate::career::quickref::QValue;
use crate::graph::frontmatter::FmValue;
use crate::graph::page::Page;

fn strip_comments(s: &str) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some(open) = rest.find("<!--") {
        out.push_str(&rest[..open]);
        match rest[open..].find("-->") {
            Some(close) => rest = &rest[open + close + 3..],
            None => {
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

fn q_text(v: &QValue) -> Option<String> {
    match v {
        QValue::Str(s) => filled(s),
        QValue::Num(_) | QValue::Bool(_) => filled(&v.to_json()),
        QValue::List(_) => None,
    }
}

fn q_list(v: &QValue) -> Vec<String> {
    match v {
        QValue::List(items) => items.iter().filter_map(q_text).collect(),
        other => q_text(other).into_iter().collect(),
    }
}

/// `English (Native or bilingual)` -> (`English`, `Native or bilingual`).
fn split_paren(s: &str) -> (String, Option<String>) {
    let t = s.trim();
    if t.ends_with(')')
        && let Some(open) = t.rfind(" (")
    {
        let inner = &t[open + 2..t.len() - 1];
        if !inner.contains(['(', ')']) {
            return (t[..open].trim().to_owned(), filled(inner));
        }
    }
    (t.to_owned(), None)
}

/// The Career Context's part of the career: the person, languages and skills.
pub fn from_context(text: &str, file_name: &str) -> Career {
    let v = crate::career::validate(text, crate::career::FileFacts::default());
    let mut c = Career::default();
    let q = &v.quick_reference;
    let get = |k: &str| q.get(k).and_then(q_text);
    let p = &mut c.person;
    p.name = get("name").unwrap_or_default();
    p.headline = get("positioning_summary");
    p.location = get("location");
    p.email = get("email");
    p.phone = get("phone");
    p.url = get("website").or_else(|| get("url"));
    p.source = Source::pointer(file_name, "QUICK REFERENCE".into());
    if let Some(list) = q.get("profiles") {
        for item in q_list(list) {
            if let Some((network, url)) = item.split_once(": ") {
                p.profiles.push(Profile { network: network.trim().to_owned(), url: url.trim().to_owned() });
            }
        }
    }
    if let Some(list) = q.get("languages") {
        for item in q_list(list) {
            let (name, fluency) = split_paren(&item);
            c.languages.push(Language { name, fluency, source: Source::pointer(file_name, "QUICK REFERENCE".into()) });
        }
    }
    for s in &v.sections {
        let body = v.section_text(text, s);
        let after_heading = body.split_once('\n').map_or("", |(_, b)| b);
        match s.normalized.as_str() {
            "profile summary" => {
                c.person.summary = filled(&super::render::body_text(&strip_comments(after_heading)));
            }
            "skills index" => {
                for (i, line) in after_heading.lines().enumerate() {
                    let Some(item) =
                        line.trim_start().strip_prefix("- ").or_else(|| line.trim_start().strip_prefix("* "))
                    else {
                        continue;
                    };
                    let item = strip_comments(item).replace(['*', '`'], "");
                    let (head, keywords) = match item.split_once(':') {
                        Some((h, k)) => (h.to_owned(), k.split(',').filter_map(filled).collect()),
                        None => (item.clone(), Vec::new()),
                    };
                    let (name, level) = split_paren(&head);
                    if let Some(name) = filled(&name) {
                        c.skills.push(Skill {
                            name,
                            level,
                            keywords,
                            source: Source::pointer(file_name, format!("line {}", s.line + 1 + i)),
                        });
                    }
                }
            }
            _ => {}
        }
    }
    c
}

fn attr(page: &Page, key: &str) -> Option<String> {
    page.attr(key).and_then(FmValue::as_str).and_then(filled)
}

/// One record as an entry, when it is of a kind the export carries (`None` for a course, a
/// thesis or a page without a type).
pub fn entry_from_record(path: &str, text: &str) -> Option<Entry> {
    let (page, body) = Page::parse_with_body(path, text);
    let kind = crate::graph::RecordType::parse(page.attr("type")?.as_str()?).and_then(EntryKind::from_record_type)?;
    let title = attr(&page, "name").or_else(|| attr(&page, "title"))?;
    let mut e = Entry::new(kind, &title, Source::pointer(path, String::new()));
    e.organization = attr(&page, "organization");
    e.area = attr(&page, "area");
    e.location = attr(&page, "location");
    e.start = attr(&page, "start").as_deref().and_then(PartialDate::parse_loose);
    e.end = attr(&page, "end").as_deref().and_then(PartialDate::parse_loose);
    e.current = page.attr("current").is_some_and(|v| *v == FmValue::Bool(true));
    e.url = attr(&page, "url");
    e.score = attr(&page, "score");
    e.private = page.attr("visibility").and_then(FmValue::as_str) == Some("private");
    let body = strip_comments(body);
    // The body after its `# title`, up to `## Highlights` (whose items are the highlights) or
    // any other H2.
    let mut summary = Vec::new();
    let mut in_highlights = false;
    let mut past_other = false;
    for line in body.lines() {
        if line.starts_with("# ") && summary.iter().all(|l: &&str| l.trim().is_empty()) && !in_highlights {
            continue;
        }
        if let Some(h) = line.strip_prefix("## ") {
            in_highlights = h.trim().eq_ignore_ascii_case("highlights");
            past_other = !in_highlights;
            continue;
        }
        if in_highlights {
            if let Some(item) = line.trim_start().strip_prefix("- ").and_then(filled) {
                e.highlights.push(item);
            }
        } else if !past_other {
            summary.push(line);
        }
    }
    e.summary = filled(&super::render::body_text(&summary.join("\n")));
    Some(e)
}

/// The career the files hold: the Career Context's part and one entry per record, by kind, then
/// the latest first.
pub fn gather(context: Option<(&str, &str)>, records: &[(String, String)]) -> Career {
    let mut c = match context {
        Some((text, name)) => from_context(text, name),
        None => Career::default(),
    };
    let mut entries: Vec<Entry> = records.iter().filter_map(|(path, text)| entry_from_record(path, text)).collect();
    entries.sort_by(|a, b| a.kind.cmp(&b.kind).then(b.start.cmp(&a.start)).then(a.title.cmp(&b.title)));
    c.entries = entries;
    c
}

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

/// `2016`, `Jan 2020 – present`, `2010-2014`: (start, end, current).
fn date_range(text: &str) -> Option<(Option<PartialDate>, Option<PartialDate>, bool)> {
    let t = text.trim();
    if let Some(d) = PartialDate::parse_loose(t) {
        return Some((Some(d), None, false));
    }
    for sep in [" \u{2013} ", " \u{2014} ", " - ", "\u{2013}", "\u{2014}", "-", " to "] {
        if let Some((a, b)) = t.split_once(sep) {
            let start = PartialDate::parse_loose(a)?;
            let b = b.trim();
            if ["present", "now", "current", "today"].contains(&b.to_ascii_lowercase().as_str()) {
                return Some((Some(start), None, true));
            }
            return PartialDate::parse_loose(b).map(|end| (Some(start), Some(end), false));
        }
    }
    None
}

/// The Career Context's tagged entries (`[ROLE]`, `[DEGREE]`, `[CERT]`, `[PROJECT]`, `[AWARD]`,
/// `[PAPER]`), read from headings as people write them: `Title [TAG] - Organisation (dates)` or
/// `[TAG] Title - Organisation (dates)`; the summary is the section's first paragraph.
pub fn entries_from_context(text: &str, file_name: &str) -> Vec<(Entry, Option<String>)> {
    let scan = crate::career::scan::Scan::new(text);
    let mut out = Vec::new();
    for h in &scan.headings {
        let Some(tag) = crate::career::scan::tag(&h.title) else { continue };
        let kind = match tag {
            "ROLE" => EntryKind::Role,
            "DEGREE" => EntryKind::Degree,
            "CERT" => EntryKind::Certification,
            "PROJECT" => EntryKind::Project,
            "AWARD" => EntryKind::Award,
            "PAPER" | "PREPRINT" => EntryKind::Publication,
            _ => continue,
        };
        let mut rest = h.title.replacen(&format!("[{tag}]"), "", 1).split_whitespace().collect::<Vec<_>>().join(" ");
        let mut dates = None;
        if rest.ends_with(')')
            && let Some(open) = rest.rfind('(')
        {
            dates = date_range(&rest[open + 1..rest.len() - 1]);
            if dates.is_some() {
                rest = rest[..open].trim().to_owned();
            }
        }
        let (title, org) = match rest
            .split_once(" - ")
            .or_else(|| rest.split_once(" \u{2014} "))
            .or_else(|| rest.split_once(" \u{2013} "))
        {
            Some((t, o)) => (t.trim().to_owned(), filled(o)),
            None => (rest.trim().to_owned(), None),
        };
        let Some(title) = filled(&title) else { continue };
        let section = scan.section_text(h);
        let body = section.split_once('\n').map_or("", |(_, b)| b);
        let record = body
            .find("record: ")
            .map(|i| body[i + 8..].split(|c: char| c.is_whitespace()).next().unwrap_or_default().to_owned());
        let mut e = Entry::new(kind, &title, Source::pointer(file_name, format!("line {}", h.line())));
        e.organization = org;
        if let Some((start, end, current)) = dates {
            e.start = start;
            e.end = end;
            e.current = current && matches!(kind, EntryKind::Role | EntryKind::Project);
        }
        // The first paragraph that is not a comment, a TL;DR line, a label or a list.
        let own = body.split("\n#").next().unwrap_or_default();
        let paragraph = strip_comments(own)
            .split("\n\n")
            .map(str::trim)
            .find(|p| {
                !p.is_empty()
                    && !p.starts_with("- ")
                    && !p.starts_with("* ")
                    && !p.to_ascii_lowercase().trim_start_matches(['*', '_']).starts_with("tl;dr")
                    && !p.starts_with("Location:")
                    && !p.starts_with("Link:")
                    && !p.starts_with("Grade:")
            })
            .map(str::to_owned);
        e.summary = paragraph.and_then(|p| filled(&super::render::body_text(&p)));
        out.push((e, record));
    }
    out
}

/// Whether a record entry already stands for a Career Context entry: the same kind, and the
/// same title (a record's title may add `at Organisation` or `: subtitle`).
fn same_entry(record: &Entry, record_title: &str, heading: &Entry) -> bool {
    let h = heading.title.to_lowercase();
    record.kind == heading.kind
        && [record.title.to_lowercase(), record_title.to_lowercase()].iter().any(|t| {
            t == &h
                || t.starts_with(&format!("{h} "))
                || t.starts_with(&format!("{h}:"))
                || t.starts_with(&format!("{h},"))
        })
}

/// The career the files hold: the Career Context's part, one entry per record, and the Career
/// Context's tagged entries no record stands for (by the record id in an import's source
/// comment, or by kind and title), by kind, then the latest first.
pub fn gather(context: Option<(&str, &str)>, records: &[(String, String)]) -> Career {
    let mut c = match context {
        Some((text, name)) => from_context(text, name),
        None => Career::default(),
    };
    let mut ids = Vec::new();
    let mut entries: Vec<Entry> = Vec::new();
    let mut titles = Vec::new();
    for (path, text) in records {
        if let Some(e) = entry_from_record(path, text) {
            let page = Page::parse(path, text);
            ids.push(page.id().and_then(FmValue::as_str).unwrap_or_default().to_owned());
            titles.push(attr(&page, "title").unwrap_or_default());
            entries.push(e);
        }
    }
    if let Some((text, name)) = context {
        for (e, record) in entries_from_context(text, name) {
            let by_id = record.is_some_and(|r| ids.contains(&r));
            let by_title = entries.iter().zip(&titles).any(|(r, t)| same_entry(r, t, &e));
            if !by_id && !by_title {
                entries.push(e);
                titles.push(String::new());
            }
        }
    }
    entries.sort_by(|a, b| a.kind.cmp(&b.kind).then(b.start.cmp(&a.start)).then(a.title.cmp(&b.title)));
    c.entries = entries;
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn career_context_entries_no_record_stands_for_are_exported_from_their_headings() {
        let text = "# A - B\n\n## Experience\n\n### Senior Engineer [ROLE] - Tideline (2021-2026)\n\nTL;DR: shipped.\n\nRan the build team.\n\n### [ROLE] Intern - Acme (Jun 2013 \u{2013} present)\n<!-- source: x · record: experience:acme-intern -->\n\n### [PROJECT] cachewarden\n\nAudits caches.\n";
        let found = entries_from_context(text, "c.md");
        let (role, _) = &found[0];
        assert_eq!((role.title.as_str(), role.organization.as_deref()), ("Senior Engineer", Some("Tideline")));
        assert_eq!(
            (role.start.map(|d| d.to_string()), role.end.map(|d| d.to_string())),
            (Some("2021".into()), Some("2026".into()))
        );
        assert_eq!(role.summary.as_deref(), Some("Ran the build team."));
        assert!(found[1].0.current);
        assert_eq!(found[1].1.as_deref(), Some("experience:acme-intern"));
        let record =
            "---\ntype: project\nid: project:cachewarden\ntitle: cachewarden: remote build-cache auditing\n---\n";
        let intern = "---\ntype: experience\nid: experience:acme-intern\ntitle: Intern\n---\n";
        let c = gather(
            Some((text, "c.md")),
            &[
                ("projects/cachewarden/project.md".into(), record.into()),
                ("experience/acme-intern/experience.md".into(), intern.into()),
            ],
        );
        let titles: Vec<&str> = c.entries.iter().map(|e| e.title.as_str()).collect();
        assert_eq!(titles, ["Senior Engineer", "Intern", "cachewarden: remote build-cache auditing"]);
    }
}

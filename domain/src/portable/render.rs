//! A career as files: a Career Context (formats.md section 1) and VitaeGraph records in the
//! canonical layout (section 3). What an import cannot know (the scope paragraph, the goals, a
//! `TL;DR:` line per role and project, the VERIFIED FACTS comment) is left as a `FILL IN`
//! comment that the validator then reports, so `context validate` and `doctor` say what is left.

use std::collections::BTreeSet;

use super::model::{Career, Entry};

/// A record file: its path below the root, its id and its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordFile {
    pub path: String,
    pub id: String,
    pub text: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rendered {
    pub context: String,
    pub records: Vec<RecordFile>,
}

/// The comment that starts every marker the person must replace.
pub const FILL_IN: &str = "<!-- FILL IN";

/// The marker comment naming an entry's source and record: `<!-- source: ... · record: id -->`.
pub fn source_comment(source: &str, id: Option<&str>) -> String {
    match id {
        Some(id) => format!("<!-- source: {source} · record: {id} -->"),
        None => format!("<!-- source: {source} -->"),
    }
}

/// Lower-case letters, digits and dashes, at most 60 characters; `fallback` when nothing is left.
pub fn slug(text: &str, fallback: &str) -> String {
    let mut s = String::new();
    for c in text.chars() {
        let c = fold_accent(c);
        if c.is_ascii_alphanumeric() {
            s.push(c.to_ascii_lowercase());
        } else if !s.is_empty() && !s.ends_with('-') {
            s.push('-');
        }
    }
    let mut s: String = s.trim_matches('-').chars().take(60).collect();
    while s.ends_with('-') {
        s.pop();
    }
    if s.is_empty() { fallback.to_owned() } else { s }
}

fn fold_accent(c: char) -> char {
    match c {
        'à' | 'á' | 'â' | 'ã' | 'ä' | 'å' | 'À' | 'Á' | 'Â' | 'Ã' | 'Ä' | 'Å' => 'a',
        'ç' | 'Ç' => 'c',
        'è' | 'é' | 'ê' | 'ë' | 'È' | 'É' | 'Ê' | 'Ë' => 'e',
        'ì' | 'í' | 'î' | 'ï' | 'Ì' | 'Í' | 'Î' | 'Ï' => 'i',
        'ñ' | 'Ñ' => 'n',
        'ò' | 'ó' | 'ô' | 'õ' | 'ö' | 'ø' | 'Ò' | 'Ó' | 'Ô' | 'Õ' | 'Ö' | 'Ø' => 'o',
        'ù' | 'ú' | 'û' | 'ü' | 'Ù' | 'Ú' | 'Û' | 'Ü' => 'u',
        'ý' | 'ÿ' | 'Ý' => 'y',
        'ß' => 's',
        other => other,
    }
}

/// A QUICK REFERENCE string value: quoted, with inner double quotes made single and the
/// value on one line.
fn yaml_string(s: &str) -> String {
    format!("\"{}\"", super::model::one_line(s))
}

/// A front matter value on one line, quoted when the flat grammar would read it otherwise.
pub fn fm_value(s: &str) -> String {
    let v = super::model::one_line(s);
    let risky = v.is_empty()
        || matches!(v.as_str(), "true" | "false" | "null")
        || v.starts_with(['"', '\'', '['])
        || v.ends_with(['"', '\'', ']']);
    if risky { format!("\"{v}\"") } else { v }
}

/// The ids (and paths) of the entries, unique, in entry order.
pub fn record_ids(career: &Career) -> Vec<(String, String)> {
    let mut used = BTreeSet::new();
    career
        .entries
        .iter()
        .map(|e| {
            let t = e.kind.record_type();
            let base = slug(
                &match &e.organization {
                    Some(o) => format!("{o} {}", e.title),
                    None => e.title.clone(),
                },
                t.as_str(),
            );
            let mut s = base.clone();
            let mut n = 2;
            while !used.insert(format!("{t}:{s}")) {
                s = format!("{base}-{n}");
                n += 1;
            }
            let path = match t.layout() {
                crate::graph::record_type::Layout::Nested(file) => format!("{}/{s}/{file}", t.directory()),
                _ => format!("{}/{s}.md", t.directory()),
            };
            (format!("{t}:{s}"), path)
        })
        .collect()
}

/// The front matter keys an import writes (besides `type`, `id` and `title`), in order.
pub const RECORD_KEYS: [&str; 11] =
    ["name", "organization", "area", "location", "start", "end", "current", "url", "score", "source", "tags"];

/// The record of one entry.
pub fn record_text(e: &Entry, id: &str) -> String {
    let t = e.kind.record_type();
    let mut fm = vec![format!("type: {t}"), format!("id: {id}"), format!("title: {}", fm_value(&display_title(e)))];
    let fields = [
        ("name", Some(e.title.clone())),
        ("organization", e.organization.clone()),
        ("area", e.area.clone()),
        ("location", e.location.clone()),
        ("start", e.start.map(|d| d.to_string())),
        ("end", e.end.map(|d| d.to_string())),
        ("current", e.current.then(|| "true".to_owned())),
        ("url", e.url.clone()),
        ("score", e.score.clone()),
        ("source", Some(e.source.cite())),
    ];
    for (k, v) in fields {
        if let Some(v) = v {
            fm.push(if k == "current" { format!("{k}: {v}") } else { format!("{k}: {}", fm_value(&v)) });
        }
    }
    fm.push("tags: [imported]".into());
    if e.private {
        fm.push("visibility: private".into());
    }
    let mut body = format!("---\n{}\n---\n\n# {}\n", fm.join("\n"), display_title(e));
    if let Some(s) = &e.summary {
        body.push('\n');
        body.push_str(&body_text(s));
        body.push('\n');
    }
    if !e.highlights.is_empty() {
        body.push_str("\n## Highlights\n\n");
        for h in &e.highlights {
            body.push_str(&format!("- {}\n", super::model::one_line(h)));
        }
    }
    body
}

/// Summary text as a Markdown body: lines trimmed, at most one blank line in a row.
pub fn body_text(s: &str) -> String {
    let mut out = Vec::new();
    for line in s.lines().map(str::trim) {
        if line.is_empty() && out.last().is_none_or(|l: &&str| l.is_empty()) {
            continue;
        }
        out.push(line);
    }
    while out.last().is_some_and(|l| l.is_empty()) {
        out.pop();
    }
    out.join("\n")
}

/// `Senior Engineer at Acme`, `MSc in Physics at ETH`, `AWS Architect issued by Amazon`.
pub fn display_title(e: &Entry) -> String {
    let mut t = super::model::one_line(&e.title);
    if let Some(a) = &e.area {
        t = format!("{t} in {}", super::model::one_line(a));
    }
    if let Some(o) = &e.organization {
        t = format!("{t} {} {}", e.kind.organization_word(), super::model::one_line(o));
    }
    t
}

/// One entry's block in the Career Context: the tagged H3, its source, its facts and the
/// markers for what the person adds.
pub fn entry_block(e: &Entry, id: Option<&str>) -> String {
    let mut b = format!(
        "### [{}] {}\n{}\n",
        e.kind.tag(),
        super::model::one_line(&e.heading()),
        source_comment(&e.source.cite(), id)
    );
    if let Some(l) = &e.location {
        b.push_str(&format!("\nLocation: {}\n", super::model::one_line(l)));
    }
    if let Some(u) = &e.url {
        b.push_str(&format!("\nLink: {u}\n"));
    }
    if let Some(s) = &e.score {
        b.push_str(&format!("\nGrade: {}\n", super::model::one_line(s)));
    }
    if let Some(s) = &e.summary {
        b.push('\n');
        b.push_str(&body_text(s));
        b.push('\n');
    }
    if !e.highlights.is_empty() {
        b.push('\n');
        for h in &e.highlights {
            b.push_str(&format!("- {}\n", super::model::one_line(h)));
        }
    }
    if e.kind.wants_tldr() {
        b.push_str(&format!(
            "\n{FILL_IN} (TL;DR): replace this comment with one line \"TL;DR: ...\" saying what you achieved here. -->\n"
        ));
    }
    b
}

/// The QUICK REFERENCE lines of a career, `key: value` in order.
pub fn quick_reference(c: &Career) -> Vec<(String, String)> {
    let p = &c.person;
    let mut q = Vec::new();
    if !p.name.is_empty() {
        q.push(("name".into(), yaml_string(&p.name)));
    }
    if let Some(h) = &p.headline {
        q.push(("positioning_summary".into(), yaml_string(h)));
    }
    for (k, v) in [("location", &p.location), ("email", &p.email), ("phone", &p.phone), ("website", &p.url)] {
        if let Some(v) = v {
            q.push((k.into(), yaml_string(v)));
        }
    }
    if !p.profiles.is_empty() {
        let items: Vec<String> = p
            .profiles
            .iter()
            .map(|pr| format!("  - {}", yaml_string(&format!("{}: {}", pr.network, pr.url))))
            .collect();
        q.push(("profiles".into(), format!("\n{}", items.join("\n"))));
    }
    if !c.languages.is_empty() {
        let items: Vec<String> = c
            .languages
            .iter()
            .map(|l| {
                let text = match &l.fluency {
                    Some(f) => format!("{} ({f})", l.name),
                    None => l.name.clone(),
                };
                format!("  - {}", yaml_string(&text))
            })
            .collect();
        q.push(("languages".into(), format!("\n{}", items.join("\n"))));
    }
    q
}

/// A Skills Index line: `- Rust (Expert): tokio, serde <!-- source: ... -->`.
pub fn skill_line(s: &super::model::Skill) -> String {
    let mut l = format!("- {}", super::model::one_line(&s.name));
    if let Some(level) = &s.level {
        l.push_str(&format!(" ({})", super::model::one_line(level)));
    }
    if !s.keywords.is_empty() {
        l.push_str(": ");
        l.push_str(&s.keywords.iter().map(|k| super::model::one_line(k)).collect::<Vec<_>>().join(", "));
    }
    l.push(' ');
    l.push_str(&source_comment(&s.source.cite(), None));
    l
}

/// The H2 sections entries go under, in the file's order.
pub const ENTRY_SECTIONS: [&str; 5] =
    ["Experience", "Education", "Certifications and achievements", "Projects", "Research and publications"];

/// Renders the Career Context and the records. `origin` says where it came from
/// (`LinkedIn archive Basic_LinkedInDataExport.zip`).
pub fn render(career: &Career, origin: &str) -> Rendered {
    let ids = record_ids(career);
    let p = &career.person;
    let name = if p.name.is_empty() { "Your name".to_owned() } else { super::model::one_line(&p.name) };
    let descriptor = p.headline.as_deref().map(super::model::one_line).unwrap_or_else(|| "Career Context".into());
    let mut t = format!(
        "# {name} - {descriptor}\n\n<!-- Imported by vitaecontext from {origin}. Each imported entry names its source file and row. -->\n\n## QUICK REFERENCE\n\n```yaml\n"
    );
    for (k, v) in quick_reference(career) {
        if v.starts_with('\n') {
            t.push_str(&format!("{k}:{v}\n"));
        } else {
            t.push_str(&format!("{k}: {v}\n"));
        }
    }
    if p.headline.is_none() {
        t.push_str(&format!("{FILL_IN} (positioning_summary): add a positioning_summary line, one sentence on who you are professionally. -->\n"));
    }
    t.push_str("```\n\n");
    t.push_str(&format!(
        "{FILL_IN} (scope): replace this comment with a paragraph saying what this file covers and what it is for (for example \"My work since 2015, for CVs and LinkedIn\"). The import cannot know it. -->\n\n"
    ));
    if let Some(s) = &p.summary {
        t.push_str(&format!("## Profile summary\n{}\n\n{}\n\n", source_comment(&p.source.cite(), None), body_text(s)));
    }
    t.push_str(&format!(
        "## Goals and targeting\n\n{FILL_IN} (goals): the roles, places and terms you are looking for next; or, to say you are not looking, put a goals_declined: true comment here. -->\n\n"
    ));
    for section in ENTRY_SECTIONS {
        let entries: Vec<(usize, &Entry)> =
            career.entries.iter().enumerate().filter(|(_, e)| e.kind.section() == section).collect();
        if entries.is_empty() {
            continue;
        }
        t.push_str(&format!("## {section}\n\n"));
        for (i, e) in entries {
            t.push_str(&entry_block(e, Some(&ids[i].0)));
            t.push('\n');
        }
    }
    t.push_str("## Skills Index\n\n");
    for s in &career.skills {
        t.push_str(&skill_line(s));
        t.push('\n');
    }
    if !career.skills.is_empty() {
        t.push('\n');
    }
    t.push_str(&format!(
        "{FILL_IN} (VERIFIED FACTS): once you have checked the entries above, add a comment that opens with the words VERIFIED FACTS and a colon, listing key=value facts you confirmed (current_title=..., years_experience=...). -->\n"
    ));
    let records = career
        .entries
        .iter()
        .zip(&ids)
        .map(|(e, (id, path))| RecordFile { path: path.clone(), id: id.clone(), text: record_text(e, id) })
        .collect();
    Rendered { context: t, records }
}

/// What the person must fill in before the Career Context validates, in words.
pub fn to_fill(context: &str) -> Vec<String> {
    context
        .lines()
        .filter_map(|l| {
            let rest = l.trim().strip_prefix(FILL_IN)?;
            let what = rest.trim_start().strip_prefix('(')?.split(')').next()?;
            Some(what.to_owned())
        })
        .fold(Vec::new(), |mut acc: Vec<(String, usize)>, w| {
            match acc.iter_mut().find(|(k, _)| *k == w) {
                Some((_, n)) => *n += 1,
                None => acc.push((w, 1)),
            }
            acc
        })
        .into_iter()
        .map(|(w, n)| if n > 1 { format!("{w} ({n} entries)") } else { w })
        .collect()
}

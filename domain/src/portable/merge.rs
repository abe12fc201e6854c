//! An import into files that exist: only additions, never a line of the person's changed.
//!
//! Career Context: each imported entry whose record id (in its source comment) or heading is
//! not in the file is added at the end of its H2 section (the section is added when missing);
//! QUICK REFERENCE keys the file lacks are added before its closing fence; skills the Skills
//! Index lacks are added to it. Records: the front matter keys the import writes replace those
//! in the file (never `id` or `type`: an id others link to stays), other keys and the whole
//! body are kept.

use super::model::Career;
use super::render::{self, RECORD_KEYS};
use crate::career::scan::{Scan, normalize_heading};

/// The Career Context with the career's missing parts added (the same text when nothing is
/// missing).
pub fn merge_context(existing: &str, career: &Career, ids: &[(String, String)]) -> String {
    let mut text = existing.replace("\r\n", "\n");
    if !text.ends_with('\n') {
        text.push('\n');
    }
    // QUICK REFERENCE keys.
    let v = crate::career::validate(&text, crate::career::FileFacts::default());
    let have: Vec<String> = v.quick_reference.entries.iter().map(|(k, _)| k.to_ascii_lowercase()).collect();
    let missing: Vec<String> = render::quick_reference(career)
        .into_iter()
        .filter(|(k, _)| !have.contains(k))
        .map(|(k, val)| if val.starts_with('\n') { format!("{k}:{val}") } else { format!("{k}: {val}") })
        .collect();
    if !missing.is_empty()
        && let Some(at) = quick_reference_close(&text)
    {
        text.insert_str(at, &format!("{}\n", missing.join("\n")));
    }
    // Entries, section by section.
    for (i, e) in career.entries.iter().enumerate() {
        let id = &ids[i].0;
        let heading = format!("[{}] {}", e.kind.tag(), super::model::one_line(&e.heading()));
        let known = text.contains(&format!("record: {id} -->"))
            || Scan::new(&text).headings.iter().any(|h| h.normalized == normalize_heading(&heading));
        if known {
            continue;
        }
        let block = render::entry_block(e, Some(id));
        text = insert_in_section(&text, e.kind.section(), &block);
    }
    // Skills.
    let index_text = section_body(&text, "skills index").unwrap_or_default().to_ascii_lowercase();
    let lines: Vec<String> = career
        .skills
        .iter()
        .filter(|s| !index_text.contains(&s.name.to_ascii_lowercase()))
        .map(render::skill_line)
        .collect();
    if !lines.is_empty() {
        text = insert_in_section(&text, "Skills Index", &format!("{}\n", lines.join("\n")));
    }
    text
}

/// The byte offset of the QUICK REFERENCE's closing fence line.
fn quick_reference_close(text: &str) -> Option<usize> {
    let scan = Scan::new(text);
    let h = scan.headings.iter().find(|h| h.level == 2 && h.normalized == "quick reference")?;
    let mut opened = false;
    for i in h.index + 1..scan.lines.len() {
        let l = scan.lines[i].trim();
        if !opened {
            if l.starts_with("```") {
                opened = true;
            } else if !l.is_empty() {
                return None;
            }
        } else if l == "```" {
            return Some(scan.line_start(i));
        }
    }
    None
}

fn section_body(text: &str, normalized: &str) -> Option<String> {
    let scan = Scan::new(text);
    let h = scan.headings.iter().find(|h| h.level == 2 && h.normalized == normalized)?;
    Some(scan.section_text(h).to_owned())
}

/// `block` added at the end of the H2 named `section` (made at the end of the file when
/// missing), followed by a blank line.
fn insert_in_section(text: &str, section: &str, block: &str) -> String {
    let scan = Scan::new(text);
    let wanted = normalize_heading(section);
    match scan.headings.iter().find(|h| h.level == 2 && h.normalized == wanted) {
        Some(h) => {
            let end = scan.section_end(h);
            let at = scan.line_start(end).min(text.len());
            let (before, after) = text.split_at(at);
            let sep = if before.ends_with("\n\n") { "" } else { "\n" };
            format!("{before}{sep}{block}\n{after}")
        }
        None => {
            let sep = if text.ends_with("\n\n") { "" } else { "\n" };
            format!("{text}{sep}## {section}\n\n{block}")
        }
    }
}

/// An existing record with the import's front matter keys laid over it (`id` and `type` kept),
/// its other keys and its body as they are. `None` when it has no front matter to lay over.
pub fn merge_record(existing: &str, imported: &str) -> Option<String> {
    let (old_fm, old_body) = split_front_matter(existing)?;
    let (new_fm, _) = split_front_matter(imported)?;
    let key_of = |line: &str| -> Option<String> {
        let (k, _) = line.split_once(':')?;
        (!k.is_empty() && k.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-'))
            .then(|| k.to_owned())
    };
    // `tags` is the person's to curate once the record exists; `id` and `type` never change.
    let owned = |k: &str| k == "title" || (RECORD_KEYS.contains(&k) && k != "tags");
    let old_keys: Vec<String> = old_fm.lines().filter_map(key_of).collect();
    let new_lines: Vec<(String, &str)> = new_fm.lines().filter_map(|l| Some((key_of(l)?, l))).collect();
    let mut out: Vec<String> = Vec::new();
    let mut skipping_items = false;
    let mut seen = Vec::new();
    for line in old_fm.lines() {
        if skipping_items && (line.starts_with(' ') || line.starts_with('\t')) {
            continue;
        }
        skipping_items = false;
        match key_of(line) {
            Some(k) if owned(&k) => {
                seen.push(k.clone());
                if let Some((_, l)) = new_lines.iter().find(|(nk, _)| *nk == k) {
                    out.push((*l).to_owned());
                }
                // A key the import no longer has (an end date removed) goes; its list items too.
                skipping_items = true;
            }
            _ => out.push(line.to_owned()),
        }
    }
    for (k, l) in &new_lines {
        if (owned(k) && !seen.contains(k)) || (!owned(k) && !old_keys.contains(k)) {
            out.push((*l).to_owned());
        }
    }
    Some(format!("---\n{}\n---\n{old_body}", out.join("\n")))
}

/// (`front matter lines`, `body`) of a record that opens with a `---` block.
fn split_front_matter(text: &str) -> Option<(&str, &str)> {
    let rest = text.strip_prefix("---\n")?;
    let end = rest
        .find("\n---\n")
        .map(|i| (i, i + 5))
        .or_else(|| rest.strip_suffix("\n---").map(|r| (r.len(), rest.len())))?;
    Some((&rest[..end.0], &rest[end.1..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_keeps_its_body_its_id_and_its_own_keys() {
        let old = "---\ntype: experience\nid: experience:acme\ntitle: Old\nvisibility: private\nend: 2020-01\ntags:\n  - mine\n---\n\nMy own words.\n";
        let new = "---\ntype: experience\nid: experience:acme-engineer\ntitle: Engineer at Acme\nname: Engineer\ncurrent: true\ntags: [imported]\n---\n\n# x\n";
        let merged = merge_record(old, new).unwrap();
        assert_eq!(
            merged,
            "---\ntype: experience\nid: experience:acme\ntitle: Engineer at Acme\nvisibility: private\ntags:\n  - mine\nname: Engineer\ncurrent: true\n---\n\nMy own words.\n"
        );
    }
}

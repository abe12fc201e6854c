//! A new record, as `vitaecontext graph add` writes it: valid front matter and a body skeleton
//! that says what a good record of its type holds, so nobody has to learn the layout first.

use super::RecordType;
use super::validate::is_valid_id;

/// What a person asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewRecord {
    pub kind: RecordType,
    pub slug: String,
    pub title: String,
    pub parent: Option<String>,
    pub tags: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NewRecordError {
    #[error(
        "{0:?} is not a valid slug: use lower-case letters, digits and dashes, starting with a letter or digit (for example `build-cache`)"
    )]
    Slug(String),
    #[error("a {kind} record needs --parent, the id of its {parent} record (for example `{parent}:msc-cs`)")]
    ParentMissing { kind: RecordType, parent: RecordType },
    #[error(
        "--parent {given:?} is not {} {parent} id; a {kind} record lives inside its {parent} record (`{parent}:<slug>`)", crate::text::article(.parent.as_str())
    )]
    ParentType { kind: RecordType, parent: RecordType, given: String },
    #[error("--parent {0:?} is not a record id (`type:slug`, for example `experience:acme`)")]
    ParentId(String),
    #[error("the title must be one line of text")]
    Title,
    #[error("tag {0:?} cannot be written in a front-matter list: leave out commas, brackets, quotes and line breaks")]
    Tag(String),
}

/// A character that ends a front matter line as 2.x reads it: a line break, or one of the
/// characters JavaScript's `.` does not match (U+2028, U+2029), or another control
/// character. Found in review: `--title $'Build\u2028Lead'` wrote a record 2.x's rules (and
/// ours) read with no title, and the next `graph index` removed the index.
fn breaks_a_line(c: char) -> bool {
    (c.is_control() && c != '\t') || matches!(c, '\u{2028}' | '\u{2029}' | '\u{85}')
}

impl NewRecord {
    /// Checks the request; `title` defaults to the slug in words (`build-cache` -> `Build cache`).
    pub fn new(
        kind: RecordType,
        slug: &str,
        title: Option<&str>,
        parent: Option<&str>,
        tags: &[String],
    ) -> Result<Self, NewRecordError> {
        if !is_valid_id(&format!("{kind}:{slug}")) {
            return Err(NewRecordError::Slug(slug.to_owned()));
        }
        match (kind.parent_type(), parent) {
            (Some(p), None) => return Err(NewRecordError::ParentMissing { kind, parent: p }),
            (Some(p), Some(given)) if !given.starts_with(&format!("{p}:")) || !is_valid_id(given) => {
                return Err(NewRecordError::ParentType { kind, parent: p, given: given.to_owned() });
            }
            (None, Some(given)) if !is_valid_id(given) => return Err(NewRecordError::ParentId(given.to_owned())),
            _ => {}
        }
        let title = match title {
            Some(t) if t.trim().is_empty() || t.chars().any(breaks_a_line) => return Err(NewRecordError::Title),
            Some(t) => t.trim().to_owned(),
            None => {
                let words = slug.replace('-', " ");
                let mut chars = words.chars();
                chars.next().map(|c| c.to_uppercase().chain(chars).collect()).unwrap_or_default()
            }
        };
        let tags: Vec<String> = tags.iter().map(|t| t.trim().to_owned()).filter(|t| !t.is_empty()).collect();
        if let Some(bad) =
            tags.iter().find(|t| t.contains([',', '[', ']', '"', '\'', '#']) || t.chars().any(breaks_a_line))
        {
            return Err(NewRecordError::Tag(bad.clone()));
        }
        Ok(Self { kind, slug: slug.to_owned(), title, parent: parent.map(str::to_owned), tags })
    }

    pub fn id(&self) -> String {
        format!("{}:{}", self.kind, self.slug)
    }

    /// Where it goes, relative to the root.
    pub fn path(&self) -> String {
        let parent_slug = self.parent.as_deref().and_then(|p| p.split_once(':')).map(|(_, s)| s);
        self.kind.canonical_path(&self.slug, parent_slug).expect("a checked record has the parent its layout needs")
    }

    /// The file: front matter, the title, and the skeleton of its type.
    pub fn text(&self) -> String {
        let mut fm = format!(
            "---\ntype: {}\nid: {}\ntitle: {}\nvisibility: private\n",
            self.kind,
            self.id(),
            front_matter_string(&self.title)
        );
        if let Some(p) = &self.parent {
            fm.push_str(&format!("parent: {p}\n"));
        }
        fm.push_str("related_records: []\n");
        fm.push_str(&format!("tags: [{}]\n---\n\n# {}\n\n", self.tags.join(", "), self.title));
        fm + skeleton(self.kind)
    }
}

/// `s` as a front-matter value that reads back as the string `s`: the flat grammar types
/// `true`, `false` and `null`, reads `[...]` as a list and removes one quote at each end, so
/// such a value is wrapped in double quotes (it has no escapes: the outer pair alone is taken
/// off, whatever is inside).
fn front_matter_string(s: &str) -> std::borrow::Cow<'_, str> {
    if matches!(s, "true" | "false" | "null")
        || s.starts_with(['"', '\''])
        || s.ends_with(['"', '\''])
        || (s.starts_with('[') && s.ends_with(']'))
    {
        std::borrow::Cow::Owned(format!("\"{s}\""))
    } else {
        std::borrow::Cow::Borrowed(s)
    }
}

/// The first sentence of the guidance `graph add` writes that `text` still holds: a record
/// left as written is no fact about the person (found in review: "TL;DR: What it is and the
/// result that matters most..." was validated, indexed and served as the person's facts).
/// [`template_line_in`], as the line itself.
pub fn template_text_in(text: &str) -> Option<&'static str> {
    template_line_in(text).and_then(template_line)
}

/// The guidance `graph add` writes, line by line, and one automaton over all of it.
struct Guidance {
    lines: Vec<&'static str>,
    automaton: aho_corasick::AhoCorasick,
    fingerprint: u64,
}

fn guidance() -> &'static Guidance {
    use std::sync::LazyLock;
    static GUIDANCE: LazyLock<Guidance> = LazyLock::new(|| {
        let lines: Vec<&'static str> = RecordType::ALL
            .iter()
            .flat_map(|k| skeleton(*k).lines())
            .map(|l| l.trim().trim_start_matches("- "))
            // Its guidance, not its headings (`## Context`, which a filled record keeps).
            .filter(|l| l.len() > 24 && !l.starts_with('#'))
            .collect();
        // A DFA: every text is scanned whole (almost none holds any guidance), and a DFA scans
        // about three times faster than the default NFA (found profiling an index after one
        // edit at 100,000 records, where the NFA's scan was 8 % of the run's CPU).
        let automaton = aho_corasick::AhoCorasick::builder()
            .kind(Some(aho_corasick::AhoCorasickKind::DFA))
            .build(&lines)
            .expect("the guidance lines make an automaton");
        assert!(lines.len() < usize::from(u16::MAX), "a guidance line's number and one more fit a u16");
        let fingerprint = super::checksum::checksum(lines.join("\n").as_bytes());
        Guidance { lines, automaton, fingerprint }
    });
    &GUIDANCE
}

/// Which line of the guidance `graph add` writes `text` still holds, by its number in the
/// guidance (see [`template_line`]): the first line, in the guidance's order, that the text
/// holds. Found once per record, when it is parsed ([`super::index::Record::parse`]), and kept
/// with it in the manifest: an index after one edit at 100,000 records scanned every text
/// again, 7 % of its CPU.
pub fn template_line_in(text: &str) -> Option<u16> {
    let Guidance { automaton, .. } = guidance();
    // Nothing found, the usual case, is told by one scan that stops at the first match; only a
    // text that holds some guidance is scanned again for every line it holds.
    if !automaton.is_match(text) {
        return None;
    }
    let first = automaton.find_overlapping_iter(text).map(|m| m.pattern().as_usize()).min()?;
    u16::try_from(first).ok()
}

/// The guidance line numbered `line` by [`template_line_in`]; `None` for a number that names
/// no line.
pub fn template_line(line: u16) -> Option<&'static str> {
    guidance().lines.get(usize::from(line)).copied()
}

/// Names the guidance, and so what [`template_line_in`]'s numbers mean: a manifest written by
/// a build whose guidance differs is not read ([`super::manifest`]).
pub fn guidance_fingerprint() -> u64 {
    guidance().fingerprint
}

/// What a good record of each type says; every line is meant to be replaced.
fn skeleton(kind: RecordType) -> &'static str {
    match kind {
        RecordType::Project => {
            "TL;DR: What it is and the result that matters most, in one sentence.\n\n\
             ## Context\n\nWho it was for, the problem, and your role (alone, lead, one of five...).\n\n\
             ## What I did\n\n- The decisions and the work that were yours.\n\n\
             ## Results\n\n- Outcomes with numbers and dates (before -> after, users, time saved).\n\n\
             ## Stack\n\n- Languages, tools, platforms.\n\n\
             ## Links\n\n- Repository, demo, write-up (public ones only if visibility is public).\n"
        }
        RecordType::Experience => {
            "TL;DR: Your title, the organisation, the dates, and the result you are proudest of.\n\n\
             ## Role\n\n- Title, team, dates (YYYY-MM to YYYY-MM), location or remote.\n- Scope: what you owned.\n\n\
             ## Achievements\n\n- Each with a number: what changed, by how much, by when.\n\n\
             ## Tools\n\n- What you used every day.\n"
        }
        RecordType::Education => {
            "TL;DR: Degree, institution, years, and what you focused on.\n\n\
             ## Degree\n\n- Degree and field, institution, start and end year, grade if you cite it.\n\n\
             ## Focus\n\n- Specialisation, notable courses (add them as course records), the thesis (a thesis record).\n"
        }
        RecordType::Course => {
            "## Course\n\n- Name, code, term, grade if you cite it.\n\n\
             ## What I learned or built\n\n- Projects, techniques, results.\n"
        }
        RecordType::Thesis => {
            "TL;DR: The question, the method, and the finding, in one sentence.\n\n\
             ## Thesis\n\n- Title, supervisor, year, grade if you cite it.\n\n\
             ## Contribution\n\n- What is new, and the numbers that show it.\n\n\
             ## Links\n\n- PDF, code, data.\n"
        }
        RecordType::Certification => {
            "## Certification\n\n- Name, issuer, date earned, expiry if any, credential id or link.\n\n\
             ## What it covers\n\n- The skills it attests.\n"
        }
        RecordType::Award => {
            "## Award\n\n- Name, who gave it, date.\n\n\
             ## What it was for\n\n- The work it recognised, and how selective it was (1 of 200...).\n"
        }
        RecordType::Publication => {
            "## Publication\n\n- Title, authors (your position), venue, date, DOI or link.\n\n\
             ## Summary\n\n- The question, the method, the result, and your part in it.\n"
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::Page;
    use crate::graph::frontmatter::FmValue;

    /// What `graph add` writes is found as template text for every type, once per record,
    /// and a record filled in with the person's facts (headings kept) is not.
    #[test]
    fn the_guidance_of_every_type_is_found_until_replaced() {
        for kind in RecordType::ALL {
            let parent = kind.parent_type().map(|p| format!("{p}:msc-cs"));
            let r = NewRecord::new(*kind, "x", None, parent.as_deref(), &[]).unwrap();
            let plain = crate::graph::index::plain_text(&r.text());
            assert!(template_text_in(&plain).is_some(), "{kind}: {plain}");
        }
        let filled = "## Context\n\nFor a bank, alone.\n\n## Results\n\n- Cut builds from 41 to 12 minutes.\n";
        assert_eq!(template_text_in(&crate::graph::index::plain_text(filled)), None);
    }

    /// The automaton answers as a `contains` per guidance line, in the guidance's order, did:
    /// whichever lines a text holds, in whatever order, the first line of the guidance.
    #[test]
    fn the_guidance_found_is_the_first_line_a_text_holds() {
        let reference = |text: &str| {
            RecordType::ALL
                .iter()
                .flat_map(|k| skeleton(*k).lines())
                .map(|l| l.trim().trim_start_matches("- "))
                .find(|l| l.len() > 24 && !l.starts_with('#') && text.contains(l))
        };
        let lines: Vec<&str> = RecordType::ALL
            .iter()
            .flat_map(|k| skeleton(*k).lines())
            .map(|l| l.trim().trim_start_matches("- "))
            .filter(|l| !l.is_empty())
            .collect();
        let mut texts = vec![String::new(), "nothing of it".to_owned()];
        for (i, a) in lines.iter().enumerate() {
            texts.push(format!("before {a} after"));
            // A line cut short is not the line.
            texts.push(a[..a.len() / 2].to_owned());
            for b in lines.iter().skip(i + 1).step_by(3) {
                texts.push(format!("{b}\n{a}"));
                texts.push(format!("{a}{b}"));
            }
        }
        for text in &texts {
            assert_eq!(template_text_in(text), reference(text), "{text:?}");
        }
    }

    #[test]
    fn every_type_writes_a_record_the_parser_reads_back() {
        for kind in RecordType::ALL {
            let parent = kind.parent_type().map(|p| format!("{p}:msc-cs"));
            let r = NewRecord::new(
                *kind,
                "build-cache",
                Some("Rust: the hard parts"),
                parent.as_deref(),
                &["rust".into(), " ci ".into()],
            )
            .unwrap();
            let page = Page::parse(&r.path(), &r.text());
            assert_eq!(page.attr("id").and_then(FmValue::as_str), Some(r.id().as_str()), "{kind}");
            assert_eq!(page.attr("type").and_then(FmValue::as_str), Some(kind.as_str()));
            assert_eq!(page.attr("title").and_then(FmValue::as_str), Some("Rust: the hard parts"));
            assert_eq!(page.attr("parent").and_then(FmValue::as_str), parent.as_deref());
            assert!(kind.is_canonical_path(&r.path()), "{}", r.path());
        }
    }

    #[test]
    fn a_title_or_tag_that_breaks_a_line_is_refused() {
        for bad in ["Build\u{2028}Lead", "Build\u{2029}Lead", "a\nb", "a\rb", "a\u{85}b", "bell\u{7}"] {
            assert!(NewRecord::new(RecordType::Award, "a", Some(bad), None, &[]).is_err(), "{bad:?}");
            assert!(NewRecord::new(RecordType::Award, "a", None, None, &[bad.to_owned()]).is_err(), "{bad:?}");
        }
    }

    /// A title the flat grammar would type or unquote is written so that it reads back as
    /// written (found in review: `--title true` made a record with no title).
    #[test]
    fn any_one_line_title_reads_back_as_written() {
        for title in [
            "true",
            "false",
            "null",
            "'single'",
            "\"Quoted\" title",
            "ends with '",
            "\"",
            "x: y",
            "~",
            "[WIP]",
            "[Draft] Thing [v2]",
            "[",
            "a [b]",
        ] {
            let r = NewRecord::new(RecordType::Award, "a", Some(title), None, &[]).unwrap();
            let page = Page::parse(&r.path(), &r.text());
            assert_eq!(page.attr("title").and_then(FmValue::as_str), Some(title), "{}", r.text());
        }
    }

    #[test]
    fn bad_requests_are_refused_with_what_to_do() {
        let no = |r: Result<NewRecord, NewRecordError>| r.unwrap_err();
        assert!(matches!(
            no(NewRecord::new(RecordType::Project, "Bad Slug", None, None, &[])),
            NewRecordError::Slug(_)
        ));
        assert!(matches!(
            no(NewRecord::new(RecordType::Course, "db", None, None, &[])),
            NewRecordError::ParentMissing { .. }
        ));
        assert!(matches!(
            no(NewRecord::new(RecordType::Thesis, "t", None, Some("project:x"), &[])),
            NewRecordError::ParentType { .. }
        ));
        assert!(matches!(
            no(NewRecord::new(RecordType::Project, "x", None, Some("nope"), &[])),
            NewRecordError::ParentId(_)
        ));
        assert!(matches!(no(NewRecord::new(RecordType::Project, "x", Some("a\nb"), None, &[])), NewRecordError::Title));
        assert!(matches!(
            no(NewRecord::new(RecordType::Project, "x", None, None, &["a,b".into()])),
            NewRecordError::Tag(_)
        ));
        let r = NewRecord::new(RecordType::Project, "build-cache", None, None, &[]).unwrap();
        assert_eq!((r.title.as_str(), r.path().as_str()), ("Build cache", "projects/build-cache/project.md"));
    }
}

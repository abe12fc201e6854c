//! Reading a Career Context as lines, headings and sections, with fenced code hidden.

use crate::text::{is_js_space, is_line_terminator, trim, trim_start};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Heading {
    pub level: usize,
    /// The heading text, trimmed.
    pub title: String,
    /// Lower-cased, without `` ` * _ ``, white space folded.
    pub normalized: String,
    /// 0-based line index.
    pub index: usize,
    /// Byte range of the title within its line (for labels).
    pub span: (usize, usize),
}

impl Heading {
    pub fn line(&self) -> usize {
        self.index + 1
    }
}

/// The first `[UPPERCASE]` tag in a heading, if any.
pub fn tag(title: &str) -> Option<&str> {
    let mut rest = title;
    while let Some(open) = rest.find('[') {
        let after = &rest[open + 1..];
        let len = after.bytes().take_while(u8::is_ascii_uppercase).count();
        if len > 0 && after.as_bytes().get(len) == Some(&b']') {
            return Some(&after[..len]);
        }
        rest = after;
    }
    None
}

pub fn normalize_heading(title: &str) -> String {
    let stripped: String = title.chars().filter(|c| !matches!(c, '`' | '*' | '_')).collect();
    let mut folded = String::with_capacity(stripped.len());
    let mut in_space = false;
    for c in trim(&stripped).chars() {
        if is_js_space(c) {
            if !in_space {
                folded.push(' ');
            }
            in_space = true;
        } else {
            folded.push(c);
            in_space = false;
        }
    }
    folded.to_lowercase()
}

/// `^(#{1,6})\s+(.+?)\s*$` on one line, as JavaScript's backtracking would resolve it:
/// returns (level, byte range of the captured title).
fn heading(line: &str) -> Option<(usize, (usize, usize))> {
    let hashes = line.bytes().take_while(|b| *b == b'#').count();
    if !(1..=6).contains(&hashes) {
        return None;
    }
    let s = &line[hashes..];
    if !s.starts_with(is_js_space) {
        return None;
    }
    let body = trim_start(s);
    let base = line.len() - body.len();
    if !body.is_empty() {
        let title = body.trim_end_matches(is_js_space);
        if title.chars().any(is_line_terminator) {
            return None;
        }
        return Some((hashes, (base, base + title.len())));
    }
    // Only white space after the hashes: `\s+` gives back characters so that `.+?` takes one.
    let chars: Vec<(usize, char)> = s.char_indices().collect();
    chars
        .iter()
        .skip(1)
        .rev()
        .find(|(_, c)| !is_line_terminator(*c))
        .map(|(i, c)| (hashes, (hashes + i, hashes + i + c.len_utf8())))
}

/// A document split into lines, with the lines inside fenced code blocks blanked.
#[derive(Debug)]
pub struct Scan<'a> {
    /// The text the lines were split from.
    text: &'a str,
    pub lines: Vec<&'a str>,
    /// `lines`, except fence lines and fenced content are empty.
    pub visible: Vec<&'a str>,
    pub headings: Vec<Heading>,
    /// For each heading (same order), the line index where its section ends.
    ends: Vec<usize>,
}

impl<'a> Scan<'a> {
    /// `text` must already have CRLF folded to LF.
    pub fn new(text: &'a str) -> Self {
        let lines: Vec<&str> = text.split('\n').collect();
        let mut visible = Vec::with_capacity(lines.len());
        let mut fence: Option<char> = None;
        for line in &lines {
            let t = trim_start(line);
            let marker = if t.starts_with("```") {
                Some('`')
            } else if t.starts_with("~~~") {
                Some('~')
            } else {
                None
            };
            match (marker, fence) {
                (Some(m), None) => {
                    fence = Some(m);
                    visible.push("");
                }
                (Some(m), Some(f)) => {
                    if m == f {
                        fence = None;
                    }
                    visible.push("");
                }
                (None, Some(_)) => visible.push(""),
                (None, None) => visible.push(*line),
            }
        }
        let headings = visible
            .iter()
            .enumerate()
            .filter_map(|(index, line)| {
                let (level, (a, b)) = heading(line)?;
                let title = trim(&line[a..b]).to_owned();
                Some(Heading { level, normalized: normalize_heading(&title), title, index, span: (a, b) })
            })
            .collect::<Vec<Heading>>();
        // One pass with a stack of open sections: a heading closes every open section of the
        // same or a deeper level.
        let mut ends = vec![lines.len(); headings.len()];
        let mut open: Vec<usize> = Vec::new();
        for (i, h) in headings.iter().enumerate() {
            while let Some(&top) = open.last() {
                if headings[top].level < h.level {
                    break;
                }
                ends[top] = h.index;
                open.pop();
            }
            open.push(i);
        }
        Scan { text, lines, visible, headings, ends }
    }

    /// Index (into `lines`) where the section of `h` ends: the next heading of the same or a
    /// higher level, or the end.
    pub fn section_end(&self, h: &Heading) -> usize {
        match self.headings.binary_search_by_key(&h.index, |c| c.index) {
            Ok(i) => self.ends[i],
            Err(_) => self.lines.len(),
        }
    }

    /// The section's text: its heading line through the line before the next heading of the
    /// same or a higher level, trimmed.
    pub fn section_content(&self, h: &Heading) -> String {
        self.section_text(h).to_owned()
    }

    /// The byte offset of the start of the 0-based line `index` (the text's end when past the
    /// last line), in constant time: a sum of the lengths before it was quadratic over a
    /// file's findings (10,000 empty QUICK REFERENCE values took seconds).
    pub fn line_start(&self, index: usize) -> usize {
        match self.lines.get(index) {
            Some(l) => l.as_ptr() as usize - self.text.as_ptr() as usize,
            None => self.text.len(),
        }
    }

    /// The heading's section, trimmed, as a slice of the scanned text: its lines are
    /// consecutive slices of one string, so the run from the first to the last is the same text
    /// their join would build (a 16 MiB section was copied twice).
    pub fn section_text(&self, h: &Heading) -> &'a str {
        let lines = &self.lines[h.index..self.section_end(h)];
        let (Some(first), Some(last)) = (lines.first(), lines.last()) else { return "" };
        let at = |l: &str| l.as_ptr() as usize - self.text.as_ptr() as usize;
        trim(&self.text[at(first)..at(last) + last.len()])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headings_follow_the_javascript_pattern() {
        assert_eq!(heading("## Title  "), Some((2, (3, 8))));
        assert_eq!(heading("####### seven"), None);
        assert_eq!(heading("##nospace"), None);
        assert_eq!(heading("## "), None);
        // Two trailing spaces: `.+?` takes the last one, so it is a heading with an empty title.
        assert_eq!(heading("##  "), Some((2, (3, 4))));
        assert_eq!(heading("## a\u{2028}b"), None);
    }

    #[test]
    fn fenced_lines_are_hidden_until_the_same_fence_closes() {
        let s = Scan::new("# A - b\n```md\n# not a heading\n~~~\n## still code\n```\n## Real");
        let titles: Vec<&str> = s.headings.iter().map(|h| h.title.as_str()).collect();
        assert_eq!(titles, ["A - b", "Real"]);
    }

    #[test]
    fn tags_and_normalized_names() {
        assert_eq!(tag("Lead engineer [ROLE] at [ORG]"), Some("ROLE"));
        assert_eq!(tag("[a] [Bad] [OK]"), Some("OK"));
        assert_eq!(tag("none"), None);
        assert_eq!(normalize_heading("  **Skills   Index** "), "skills index");
        assert_eq!(normalize_heading("`Goals_and`  Targeting"), "goalsand targeting");
    }
}

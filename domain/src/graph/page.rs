//! A Markdown file of the VitaeGraph as read: front matter, key lines, links.

use std::collections::HashMap;

use super::frontmatter::{self, Attributes, FmValue};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page {
    /// Relative to the root, `/`-separated.
    pub path: String,
    pub attributes: Option<Attributes>,
    /// 1-based line of each front-matter key, in the order of the attributes' entries (for
    /// diagnostics people read). A record is at most [`super::MAX_RECORD_BYTES`], so a line
    /// number fits in 32 bits; a graph holds 100,000 of these for a whole index run.
    pub key_lines: Vec<u32>,
    /// Link targets (`[text](target)`, images included), trimmed.
    pub links: Vec<String>,
    /// The file is over [`super::MAX_RECORD_BYTES`] and was not read: the validator reports
    /// `record_too_large` for it and nothing else.
    pub too_large: bool,
    /// The file opens a front-matter block on line 1 and never closes it.
    pub unclosed_front_matter: bool,
}

impl Page {
    pub fn parse(path: &str, content: &str) -> Page {
        Self::parse_with_body(path, content).0
    }

    /// The page and its body (`content` after the front matter), borrowed: the page keeps no
    /// copy of it, since an index keeps only the body's plain text.
    pub fn parse_with_body<'c>(path: &str, content: &'c str) -> (Page, &'c str) {
        let (attributes, body) = match frontmatter::parse(content) {
            Some((a, end)) => (Some(a), &content[end..]),
            None => (None, content),
        };
        let front = &content[..content.len() - body.len()];
        let key_lines = match &attributes {
            Some(a) => {
                // The first line `key:` of each key, in one pass: keys hold no `:`, so a line
                // starts with `key:` exactly when the text before its first `:` is the key.
                let mut first_line: HashMap<&str, u32> = HashMap::new();
                for (i, line) in (1..).zip(front.lines()) {
                    crate::steps::add(line.len() + 1);
                    if let Some(colon) = line.find(':') {
                        first_line.entry(&line[..colon]).or_insert(i);
                    }
                }
                a.entries().iter().map(|(k, _)| first_line.get(k.as_str()).copied().unwrap_or(1)).collect()
            }
            None => Vec::new(),
        };
        let links = super::links::targets(content).into_iter().map(|t| crate::text::trim(t).to_owned()).collect();
        // Opened, and no later line starts a closing fence.
        let unclosed_front_matter = attributes.is_none()
            && (body.starts_with("---\n") || body.starts_with("---\r\n") || body == "---")
            && !body.lines().skip(1).any(|l| l.starts_with("---"));
        let page =
            Page { path: path.to_owned(), attributes, key_lines, links, too_large: false, unclosed_front_matter };
        (page, body)
    }

    /// A file that was not read because it is over [`super::MAX_RECORD_BYTES`].
    pub fn oversized(path: &str) -> Page {
        Page {
            path: path.to_owned(),
            attributes: None,
            key_lines: Vec::new(),
            links: Vec::new(),
            too_large: true,
            unclosed_front_matter: false,
        }
    }

    pub fn attr(&self, key: &str) -> Option<&FmValue> {
        self.attributes.as_ref().and_then(|a| a.get(key))
    }

    /// The record id when the page has a truthy one.
    pub fn id(&self) -> Option<&FmValue> {
        self.attr("id").filter(|v| v.is_truthy())
    }

    /// The line of a front-matter key (`key_lines` is in the order of the attributes).
    pub fn line_of(&self, key: &str) -> Option<usize> {
        let i = self.attributes.as_ref()?.position(key)?;
        self.key_lines.get(i).map(|&line| line as usize)
    }

    pub fn first_dir(&self) -> &str {
        self.path.split('/').next().unwrap_or("")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_and_key_lines() {
        let p = Page::parse("index.md", "Intro\n# The Graph  \nmore [a](b.md) ![img](pic.png)");
        assert_eq!(p.links, ["b.md", "pic.png"]);
        let (r, body) = Page::parse_with_body("projects/x/project.md", "---\nid: project:x\ntitle: X\n---\n# Other\n");
        assert_eq!(r.attr("title"), Some(&FmValue::Str("X".into())));
        assert_eq!(r.line_of("title"), Some(3));
        assert_eq!(body, "# Other\n");
    }

    #[test]
    fn key_lines_name_the_first_line_of_each_key() {
        let p = Page::parse("a.md", "---\nid: a:b\ntags:\n  - x\nid: c:d\nnot a key\ntitle: T: u\n---\nid: body\n");
        let keys: Vec<&str> = p.attributes.as_ref().unwrap().entries().iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, ["id", "tags", "title"]);
        assert_eq!(p.key_lines, [2, 3, 7]);
        assert_eq!(p.line_of("title"), Some(7));
        assert_eq!(p.line_of("absent"), None);
    }

    /// Front matter of `n` lines made of `line(i)`, then a body.
    fn record(n: usize, line: impl Fn(usize) -> String) -> String {
        let mut s = String::from("---\n");
        for i in 0..n {
            s.push_str(&line(i));
            s.push('\n');
        }
        s + "---\n# T\n"
    }

    /// Regression: 100,000 distinct front-matter keys took 64 s to index, each key searched for
    /// among all the earlier ones (and its line among all the lines).
    #[test]
    fn parsing_does_work_linear_in_the_record_size() {
        let shapes: [(&str, &dyn Fn(usize) -> String); 5] = [
            ("distinct keys", &|i| format!("k{i}: v")),
            ("one repeated key", &|_| "k: v".to_string()),
            ("list items", &|i| if i == 0 { "tags:".to_string() } else { format!("  - t{i}") }),
            ("brackets", &|_| "[[[[[[[[".to_string()),
            ("open links", &|_| "[a](![a](".to_string()),
        ];
        for (name, line) in shapes {
            let (small, large) = (record(2_000, line), record(8_000, line));
            let ((), small_steps) = crate::steps::count(|| drop(Page::parse("a.md", &small)));
            let ((), large_steps) = crate::steps::count(|| drop(Page::parse("a.md", &large)));
            let growth = large_steps as f64 / small_steps as f64;
            let size_growth = large.len() as f64 / small.len() as f64;
            assert!(growth <= size_growth * 1.1, "{name}: work grew {growth:.1}x for {size_growth:.1}x the input");
        }
    }
}

//! A Markdown file of the VitaeGraph as read: front matter, body, title, links.

use std::collections::HashMap;
use std::sync::LazyLock;

use regex::Regex;

use super::frontmatter::{self, Attributes, FmValue};
use crate::text::JS_SPACE_CLASS;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page {
    /// Relative to the root, `/`-separated.
    pub path: String,
    pub attributes: Option<Attributes>,
    pub body: String,
    /// 1-based line of each front-matter key, in the order of the attributes' entries (for
    /// diagnostics people read).
    pub key_lines: Vec<usize>,
    /// `title` from the front matter, else the body's first `# ` heading.
    pub title: Option<FmValue>,
    /// Link targets (`[text](target)`, images included), trimmed.
    pub links: Vec<String>,
    /// The file is over [`super::MAX_RECORD_BYTES`] and was not read: the validator reports
    /// `record_too_large` for it and nothing else.
    pub too_large: bool,
    /// The file opens a front-matter block on line 1 and never closes it.
    pub unclosed_front_matter: bool,
}

static HEADING: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(r"(?mR)^#{s}+([^\n\r\u{{2028}}\u{{2029}}]+)$", s = JS_SPACE_CLASS)).expect("heading pattern")
});

impl Page {
    pub fn parse(path: &str, content: &str) -> Page {
        let (attributes, body) = match frontmatter::parse(content) {
            Some((a, end)) => (Some(a), content[end..].to_owned()),
            None => (None, content.to_owned()),
        };
        let title = match attributes.as_ref().and_then(|a| a.get("title")) {
            Some(FmValue::Null) | None => {
                HEADING.captures(&body).map(|c| FmValue::Str(crate::text::trim(&c[1]).to_owned()))
            }
            Some(t) => Some(t.clone()),
        };
        let front = &content[..content.len() - body.len()];
        let key_lines = match &attributes {
            Some(a) => {
                // The first line `key:` of each key, in one pass: keys hold no `:`, so a line
                // starts with `key:` exactly when the text before its first `:` is the key.
                let mut first_line: HashMap<&str, usize> = HashMap::new();
                for (i, line) in front.lines().enumerate() {
                    crate::steps::add(line.len() + 1);
                    if let Some(colon) = line.find(':') {
                        first_line.entry(&line[..colon]).or_insert(i + 1);
                    }
                }
                a.entries().iter().map(|(k, _)| first_line.get(k.as_str()).copied().unwrap_or(1)).collect()
            }
            None => Vec::new(),
        };
        let links = super::links::targets(content).into_iter().map(|t| crate::text::trim(t).to_owned()).collect();
        let unclosed_front_matter =
            attributes.is_none() && (body.starts_with("---\n") || body.starts_with("---\r\n") || body == "---");
        Page {
            path: path.to_owned(),
            attributes,
            body,
            key_lines,
            title,
            links,
            too_large: false,
            unclosed_front_matter,
        }
    }

    /// A file that was not read because it is over [`super::MAX_RECORD_BYTES`].
    pub fn oversized(path: &str) -> Page {
        Page {
            path: path.to_owned(),
            attributes: None,
            body: String::new(),
            key_lines: Vec::new(),
            title: None,
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
        self.key_lines.get(i).copied()
    }

    pub fn first_dir(&self) -> &str {
        self.path.split('/').next().unwrap_or("")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn title_falls_back_to_the_first_h1() {
        let p = Page::parse("index.md", "Intro\n# The Graph  \nmore [a](b.md) ![img](pic.png)");
        assert_eq!(p.title, Some(FmValue::Str("The Graph".into())));
        assert_eq!(p.links, ["b.md", "pic.png"]);
        let r = Page::parse("projects/x/project.md", "---\nid: project:x\ntitle: X\n---\n# Other\n");
        assert_eq!(r.title, Some(FmValue::Str("X".into())));
        assert_eq!(r.line_of("title"), Some(3));
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

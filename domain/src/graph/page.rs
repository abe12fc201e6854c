//! A Markdown file of the VitaeGraph as read: front matter, body, title, links.

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
    /// 1-based line of each front-matter key (for diagnostics people read).
    pub key_lines: Vec<(String, usize)>,
    /// `title` from the front matter, else the body's first `# ` heading.
    pub title: Option<FmValue>,
    /// Link targets (`[text](target)`, images included), trimmed.
    pub links: Vec<String>,
    /// The file is over [`super::MAX_RECORD_BYTES`] and was not read: the validator reports
    /// `record_too_large` for it and nothing else.
    pub too_large: bool,
}

static HEADING: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(r"(?mR)^#{s}+([^\n\r\u{{2028}}\u{{2029}}]+)$", s = JS_SPACE_CLASS)).expect("heading pattern")
});

static LINK: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"!?\[[^\]]*\]\(([^)]+)\)").expect("link pattern"));

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
        let front_lines: Vec<&str> = content[..content.len() - body.len()].lines().collect();
        let key_lines = match &attributes {
            Some(a) => a
                .entries
                .iter()
                .map(|(k, _)| {
                    let line = front_lines
                        .iter()
                        .position(|l| l.strip_prefix(k.as_str()).is_some_and(|r| r.starts_with(':')))
                        .map_or(1, |i| i + 1);
                    (k.clone(), line)
                })
                .collect(),
            None => Vec::new(),
        };
        let links = LINK.captures_iter(content).map(|c| crate::text::trim(&c[1]).to_owned()).collect();
        Page { path: path.to_owned(), attributes, body, key_lines, title, links, too_large: false }
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
        }
    }

    pub fn attr(&self, key: &str) -> Option<&FmValue> {
        self.attributes.as_ref().and_then(|a| a.get(key))
    }

    /// The record id when the page has a truthy one.
    pub fn id(&self) -> Option<&FmValue> {
        self.attr("id").filter(|v| v.is_truthy())
    }

    pub fn line_of(&self, key: &str) -> Option<usize> {
        self.key_lines.iter().find(|(k, _)| k == key).map(|(_, l)| *l)
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
}

//! The generated files: `graph.json`, `search-index.json` and `diagnostics.json`, built from
//! validated pages. Every "sorted" is by Unicode code point (UTF-8 byte order), so the output is
//! the same on every machine; VitaeContext 2.x used locale-aware comparison, which agrees on
//! ordinary data.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use regex::Regex;
use serde::{Deserialize, Serialize};

use super::frontmatter::FmValue;
use super::page::Page;
use super::validate::{GraphDiagnostic, GraphValidation};
use crate::career::text::JS_SPACE_CLASS;

pub const VERSION: &str = "2.0.0";

/// A tag or list item as written to JSON: strings, and the booleans/null the grammar types.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Tag {
    Str(String),
    Bool(bool),
    Null,
}

impl Tag {
    fn from_fm(v: &FmValue) -> Tag {
        match v {
            FmValue::Str(s) => Tag::Str(s.clone()),
            FmValue::Bool(b) => Tag::Bool(*b),
            FmValue::Null => Tag::Null,
            FmValue::List(_) => Tag::Str(v.js_string()),
        }
    }

    /// The text a sort compares and a search matches (`String(value)`).
    pub fn text(&self) -> String {
        match self {
            Tag::Str(s) => s.clone(),
            Tag::Bool(b) => b.to_string(),
            Tag::Null => "null".into(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Node {
    pub id: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub label: String,
    pub path: String,
    pub parent: Option<String>,
    pub tags: Vec<Tag>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Edge {
    pub source: String,
    pub target: String,
    #[serde(rename = "type")]
    pub kind: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Graph {
    pub version: String,
    pub source: String,
    pub nodes: Vec<Node>,
    pub edges: Vec<Edge>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Document {
    pub id: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub title: String,
    pub path: String,
    pub text: String,
    pub tags: Vec<Tag>,
    pub terms: BTreeMap<String, u32>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SearchIndex {
    pub version: String,
    pub algorithm: String,
    pub documents: Vec<Document>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Diagnostics {
    pub version: &'static str,
    pub valid: bool,
    pub records: usize,
    pub errors: Vec<GraphDiagnostic>,
    pub warnings: Vec<GraphDiagnostic>,
}

impl Diagnostics {
    pub fn of(v: &GraphValidation) -> Self {
        Diagnostics {
            version: VERSION,
            valid: v.valid,
            records: v.record_count,
            errors: v.errors.clone(),
            warnings: v.warnings.clone(),
        }
    }
}

/// `project` -> `Project`, `some-type_x` -> `SomeTypeX`.
pub fn pascal_case(t: &str) -> String {
    t.split(|c: char| c == '-' || c == '_' || crate::career::text::is_js_space(c))
        .map(|part| {
            let mut chars = part.chars();
            match chars.next() {
                Some(first) => first.to_uppercase().collect::<String>() + chars.as_str(),
                None => String::new(),
            }
        })
        .collect()
}

static FENCED: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"```(?s:.)*?```").expect("fence"));
static IMAGE: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"!\[[^\]]*\]\([^)]+\)").expect("image"));
static LINK: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\[([^\]]+)\]\([^)]+\)").expect("link"));
static PUNCT: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"[#>*_`|~-]").expect("punct"));
static SPACES: LazyLock<Regex> = LazyLock::new(|| Regex::new(&format!("{JS_SPACE_CLASS}+")).expect("spaces"));
static TOKEN: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"[a-z0-9][a-z0-9+.#-]*").expect("token"));

/// A record body as plain text. Only the leading front matter was stripped (by the parser);
/// unlike 2.x, text between two `---` rules in the body is kept.
pub fn plain_text(body: &str) -> String {
    let s = FENCED.replace_all(body, " ");
    let s = IMAGE.replace_all(&s, " ");
    let s = LINK.replace_all(&s, "$1");
    let s = PUNCT.replace_all(&s, " ");
    let s = SPACES.replace_all(&s, " ");
    crate::career::text::trim(&s).to_owned()
}

/// Lower-cased tokens `[a-z0-9][a-z0-9+.#-]*`, in order.
pub fn tokens(text: &str) -> Vec<String> {
    let lower = text.to_lowercase();
    TOKEN.find_iter(&lower).map(|m| m.as_str().to_owned()).collect()
}

pub fn term_counts(text: &str) -> BTreeMap<String, u32> {
    let mut terms = BTreeMap::new();
    for t in tokens(text) {
        *terms.entry(t).or_insert(0) += 1;
    }
    terms
}

fn sorted_tags(page: &Page) -> Vec<Tag> {
    let mut tags: Vec<Tag> = FmValue::as_list(page.attr("tags")).iter().map(Tag::from_fm).collect();
    tags.sort_by_key(Tag::text);
    tags
}

/// The graph and search index of a valid graph (`pages` are its pages, in path order).
pub fn build(pages: &[Page]) -> (Graph, SearchIndex) {
    let mut records: Vec<&Page> = pages.iter().filter(|p| p.id().and_then(FmValue::as_str).is_some()).collect();
    records.sort_by(|a, b| a.id().and_then(FmValue::as_str).cmp(&b.id().and_then(FmValue::as_str)));
    let str_of = |p: &Page, k: &str| p.attr(k).map(FmValue::js_string).unwrap_or_default();
    let nodes: Vec<Node> = records
        .iter()
        .map(|r| Node {
            id: str_of(r, "id"),
            kind: pascal_case(&str_of(r, "type")),
            label: str_of(r, "title"),
            path: r.path.clone(),
            parent: r.attr("parent").filter(|p| !matches!(p, FmValue::Null)).map(FmValue::js_string),
            tags: sorted_tags(r),
        })
        .collect();
    let mut edges = Vec::new();
    for r in &records {
        let id = str_of(r, "id");
        if let Some(parent) = r.attr("parent").filter(|p| p.is_truthy()) {
            edges.push(Edge { source: parent.js_string(), target: id.clone(), kind: "CONTAINS".into() });
        }
        for target in FmValue::as_list(r.attr("related_records")) {
            edges.push(Edge { source: id.clone(), target: target.js_string(), kind: "RELATED_TO".into() });
        }
    }
    edges.sort_by(|a, b| (&a.source, &a.target, &a.kind).cmp(&(&b.source, &b.target, &b.kind)));
    let documents = records
        .iter()
        .zip(&nodes)
        .map(|(r, n)| {
            let text = plain_text(&r.body);
            let tag_text: Vec<String> = n.tags.iter().map(Tag::text).collect();
            let terms = term_counts(&format!("{} {} {}", n.label, tag_text.join(" "), text));
            Document {
                id: n.id.clone(),
                kind: n.kind.clone(),
                title: n.label.clone(),
                path: n.path.clone(),
                text,
                tags: n.tags.clone(),
                terms,
            }
        })
        .collect();
    (
        Graph { version: VERSION.into(), source: "vitaegraph".into(), nodes, edges },
        SearchIndex { version: VERSION.into(), algorithm: "lexical-term-frequency".into(), documents },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_text_follows_the_format() {
        let t = plain_text(
            "# Title\n\nSee [the docs](x.md) and ![alt](i.png).\n```rust\ncode\n```\n> quote *bold* a-b\n---\nkept\n---\n",
        );
        assert_eq!(t, "Title See the docs and . quote bold a b kept");
    }

    #[test]
    fn terms_are_lowercase_counts_in_byte_order() {
        let t = term_counts("Rust rust C++ c# 2024 node.js");
        let keys: Vec<&str> = t.keys().map(String::as_str).collect();
        assert_eq!(keys, ["2024", "c#", "c++", "node.js", "rust"]);
        assert_eq!(t["rust"], 2);
    }

    #[test]
    fn pascal_case_types() {
        assert_eq!(pascal_case("project"), "Project");
        assert_eq!(pascal_case("some-type_x"), "SomeTypeX");
    }
}

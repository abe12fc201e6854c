//! The generated files: `graph.json`, `search-index.json` and `diagnostics.json`, built from
//! validated pages. Every "sorted" is by Unicode code point (UTF-8 byte order), so the output is
//! the same on every machine; VitaeContext 2.x used locale-aware comparison, which agrees on
//! ordinary data.

use serde::{Deserialize, Serialize};

use super::frontmatter::FmValue;
use super::page::Page;
use super::record_type::RecordType;
use super::validate::{GraphDiagnostic, GraphValidation};

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
    pub terms: Terms,
}

/// Term counts, sorted by term (byte order), written as a JSON object.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Terms(pub Vec<(String, u32)>);

impl Terms {
    pub fn get(&self, term: &str) -> Option<u32> {
        self.0.binary_search_by(|(t, _)| t.as_str().cmp(term)).ok().map(|i| self.0[i].1)
    }

    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.0.iter().map(|(t, _)| t.as_str())
    }

    pub fn iter(&self) -> impl Iterator<Item = (&str, u32)> {
        self.0.iter().map(|(t, c)| (t.as_str(), *c))
    }
}

impl Serialize for Terms {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (t, c) in &self.0 {
            map.serialize_entry(t, c)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for Terms {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Terms;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an object of term counts")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut m: A) -> Result<Terms, A::Error> {
                let mut v: Vec<(String, u32)> = Vec::with_capacity(m.size_hint().unwrap_or(0));
                while let Some(entry) = m.next_entry()? {
                    v.push(entry);
                }
                // Files from 2.x list integer-like terms first: restore byte order.
                if !v.windows(2).all(|w| w[0].0 <= w[1].0) {
                    v.sort_by(|a, b| a.0.cmp(&b.0));
                }
                Ok(Terms(v))
            }
        }
        d.deserialize_map(V)
    }
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

/// Removes ```...``` spans (the shortest, leftmost first), each replaced by one space.
fn strip_fences(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    while let Some(a) = s[i..].find("```").map(|a| a + i) {
        let Some(b) = s[a + 3..].find("```").map(|b| b + a + 3) else { break };
        out.push_str(&s[i..a]);
        out.push(' ');
        i = b + 3;
    }
    out.push_str(&s[i..]);
    out
}

/// A record body as plain text: fenced code, images and link targets dropped, Markdown
/// punctuation `# > * _ ` | ~ -` replaced by spaces, white space folded. Only the leading front
/// matter was stripped (by the parser); unlike 2.x, text between two `---` rules is kept.
pub fn plain_text(body: &str) -> String {
    let s = super::links::strip(&strip_fences(body));
    let mut out = String::with_capacity(s.len());
    let mut pending_space = false;
    if s.is_ascii() {
        let mut bytes = Vec::with_capacity(s.len());
        for &b in s.as_bytes() {
            let b = if matches!(b, b'#' | b'>' | b'*' | b'_' | b'`' | b'|' | b'~' | b'-') { b' ' } else { b };
            if matches!(b, b'\t' | b'\n' | 0x0B | 0x0C | b'\r' | b' ') {
                pending_space = !bytes.is_empty();
            } else {
                if pending_space {
                    bytes.push(b' ');
                    pending_space = false;
                }
                bytes.push(b);
            }
        }
        return String::from_utf8(bytes).expect("ASCII in, ASCII out");
    }
    for c in s.chars() {
        let c = if matches!(c, '#' | '>' | '*' | '_' | '`' | '|' | '~' | '-') { ' ' } else { c };
        if crate::text::is_js_space(c) {
            pending_space = !out.is_empty();
        } else {
            if pending_space {
                out.push(' ');
                pending_space = false;
            }
            out.push(c);
        }
    }
    out
}

fn is_token_start(b: u8) -> bool {
    b.is_ascii_lowercase() || b.is_ascii_digit()
}

fn is_token_byte(b: u8) -> bool {
    is_token_start(b) || matches!(b, b'+' | b'.' | b'#' | b'-')
}

/// Calls `f` with each token `[a-z0-9][a-z0-9+.#-]*` of `lower` (already lower-cased).
fn each_token<'a>(lower: &'a str, mut f: impl FnMut(&'a str)) {
    let b = lower.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if is_token_start(b[i]) {
            let start = i;
            while i < b.len() && is_token_byte(b[i]) {
                i += 1;
            }
            f(&lower[start..i]);
        } else {
            i += 1;
        }
    }
}

/// Lower-cased tokens `[a-z0-9][a-z0-9+.#-]*`, in order.
pub fn tokens(text: &str) -> Vec<String> {
    let lower = lowercase(text);
    let mut out = Vec::new();
    each_token(&lower, |t| out.push(t.to_owned()));
    out
}

/// Lower case as JavaScript's `toLowerCase`, without the Unicode tables for ASCII text.
fn lowercase(text: &str) -> String {
    if text.is_ascii() { text.to_ascii_lowercase() } else { text.to_lowercase() }
}

pub fn term_counts(text: &str) -> Terms {
    let lower = lowercase(text);
    let mut all: Vec<&str> = Vec::new();
    each_token(&lower, |t| all.push(t));
    all.sort_unstable();
    let mut out: Vec<(String, u32)> = Vec::new();
    for t in all {
        match out.last_mut() {
            Some((last, n)) if last == t => *n += 1,
            _ => out.push((t.to_owned(), 1)),
        }
    }
    Terms(out)
}

fn sorted_tags(page: &Page) -> Vec<Tag> {
    let mut tags: Vec<Tag> = FmValue::as_list(page.attr("tags")).iter().map(Tag::from_fm).collect();
    tags.sort_by_key(Tag::text);
    tags
}

/// A node's `type`: the record type's PascalCase name. A valid graph (the only kind indexed)
/// has no other type; anything else is written as found.
fn node_type(t: &str) -> String {
    RecordType::parse(t).map_or_else(|| t.to_owned(), |t| t.pascal_name().to_owned())
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
            kind: node_type(&str_of(r, "type")),
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
    let document = |(r, n): (&&Page, &Node)| {
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
    };
    // Documents are independent: build them on two threads, keeping their order.
    let half = records.len() / 2;
    let documents = std::thread::scope(|scope| {
        let second = scope.spawn(|| records[half..].iter().zip(&nodes[half..]).map(document).collect::<Vec<_>>());
        let mut first: Vec<Document> = records[..half].iter().zip(&nodes[..half]).map(document).collect();
        first.extend(second.join().expect("document builder thread"));
        first
    });
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
        let keys: Vec<&str> = t.keys().collect();
        assert_eq!(keys, ["2024", "c#", "c++", "node.js", "rust"]);
        assert_eq!(t.get("rust"), Some(2));
    }

    /// The format's rules written as regexes, as 2.x applies them (an oracle for the scanner).
    fn plain_text_by_regex(body: &str) -> String {
        use regex::Regex;
        use std::sync::LazyLock;
        static RULES: LazyLock<[(Regex, &str); 5]> = LazyLock::new(|| {
            [
                (Regex::new(r"```(?s:.)*?```").unwrap(), " "),
                (Regex::new(r"!\[[^\]]*\]\([^)]+\)").unwrap(), " "),
                (Regex::new(r"\[([^\]]+)\]\([^)]+\)").unwrap(), "$1"),
                (Regex::new(r"[#>*_`|~-]").unwrap(), " "),
                (Regex::new(&format!("{}+", crate::text::JS_SPACE_CLASS)).unwrap(), " "),
            ]
        });
        let mut s = body.to_owned();
        for (re, with) in RULES.iter() {
            s = re.replace_all(&s, *with).into_owned();
        }
        crate::text::trim(&s).to_owned()
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 2000, ..Default::default() })]
        #[test]
        fn the_scanner_equals_the_regex_rules(body in "[a-z\\[\\]()!`#>*_|~ \n\u{a0}\u{3000}-]{0,80}") {
            proptest::prop_assert_eq!(plain_text(&body), plain_text_by_regex(&body));
        }

        /// Long runs of the characters that once made link stripping quadratic.
        #[test]
        fn the_scanner_equals_the_regex_rules_on_bracket_runs(
            parts in proptest::collection::vec(("[\\[\\]()!`a -]", 1usize..40), 0..12)
        ) {
            let body: String = parts.iter().map(|(c, n)| c.repeat(*n)).collect();
            proptest::prop_assert_eq!(plain_text(&body), plain_text_by_regex(&body));
        }

        #[test]
        fn tokens_equal_the_regex(text in "[a-zA-Z0-9+.#\\- \u{130}\u{212a}é]{0,60}") {
            static TOKEN: std::sync::LazyLock<regex::Regex> =
                std::sync::LazyLock::new(|| regex::Regex::new(r"[a-z0-9][a-z0-9+.#-]*").unwrap());
            let re = &*TOKEN;
            let lower = text.to_lowercase();
            let expected: Vec<String> = re.find_iter(&lower).map(|m| m.as_str().to_owned()).collect();
            proptest::prop_assert_eq!(tokens(&text), expected);
        }
    }

    #[test]
    fn node_types_are_pascal_case() {
        assert_eq!(node_type("project"), "Project");
        assert_eq!(node_type("certification"), "Certification");
    }
}

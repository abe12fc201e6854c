//! The generated files: `graph.json`, `search-index.json` and `diagnostics.json`, built from
//! validated pages. Every "sorted" is by Unicode code point (UTF-8 byte order), so the output is
//! the same on every machine; VitaeContext 2.x used locale-aware comparison, which agrees on
//! ordinary data.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

use super::frontmatter::FmValue;
use super::page::Page;
use super::record_type::RecordType;
use super::validate::{GraphDiagnostic, GraphValidation};
pub use crate::text::push_json_string;

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
    /// A record type's name, shared by every node of that type (a graph holds 100,000 nodes).
    #[serde(rename = "type")]
    pub kind: Cow<'static, str>,
    pub label: String,
    pub path: String,
    pub parent: Option<String>,
    pub tags: Vec<Tag>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Edge {
    pub source: String,
    pub target: String,
    /// `CONTAINS` or `RELATED_TO`, shared by every edge of that type.
    #[serde(rename = "type")]
    pub kind: Cow<'static, str>,
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

impl Document {
    pub fn view(&self) -> DocumentView<'_> {
        DocumentView {
            id: &self.id,
            kind: &self.kind,
            title: &self.title,
            path: &self.path,
            text: &self.text,
            tags: &self.tags,
        }
    }
}

/// A search document's strings, borrowed from a [`Document`] or a [`Plan`]: what the search
/// builder reads (and keeps, unless it borrows them), so that `graph index` hands it the
/// plan's strings instead of a clone of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DocumentView<'a> {
    pub id: &'a str,
    pub kind: &'a str,
    pub title: &'a str,
    pub path: &'a str,
    pub text: &'a str,
    pub tags: &'a [Tag],
}

impl<'a> DocumentView<'a> {
    /// Its five strings in the search layout's order: id, type, title, path, text.
    pub fn strings(&self) -> [&'a str; 5] {
        [self.id, self.kind, self.title, self.path, self.text]
    }
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

/// Removes ```...``` spans (the shortest, leftmost first), each replaced by one space (text
/// without one is returned as it is).
fn strip_fences(s: &str) -> Cow<'_, str> {
    let fence = |from: usize| memchr::memmem::find(&s.as_bytes()[from..], b"```").map(|a| a + from);
    let Some(first) = fence(0) else { return Cow::Borrowed(s) };
    if fence(first + 3).is_none() {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    while let Some(a) = fence(i) {
        let Some(b) = fence(a + 3) else { break };
        out.push_str(&s[i..a]);
        out.push(' ');
        i = b + 3;
    }
    out.push_str(&s[i..]);
    Cow::Owned(out)
}

/// A record body as plain text: fenced code, images and link targets dropped, Markdown
/// punctuation `# > * _ ` | ~ -` replaced by spaces, white space folded. Only the leading front
/// matter was stripped (by the parser); unlike 2.x, text between two `---` rules is kept.
pub fn plain_text(body: &str) -> String {
    const SPACE_OR_DROPPED: [bool; 256] = {
        let mut t = [false; 256];
        let bytes = b"#>*_`|~-\t\n\x0B\x0C\r ";
        let mut i = 0;
        while i < bytes.len() {
            t[bytes[i] as usize] = true;
            i += 1;
        }
        t
    };
    let no_fences = strip_fences(body);
    let s = super::links::strip(&no_fences);
    let mut pending_space = false;
    if s.is_ascii() {
        let mut bytes = Vec::with_capacity(s.len());
        for &b in s.as_bytes() {
            // The punctuation dropped and the white space folded are both spaces here.
            if SPACE_OR_DROPPED[usize::from(b)] {
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
    let mut out = String::with_capacity(s.len());
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
pub(crate) fn each_token<'a>(lower: &'a str, mut f: impl FnMut(&'a str)) {
    each_token_at(lower.as_bytes(), |start, end| f(&lower[start..end]));
}

/// [`each_token`], giving where each token starts and ends.
fn each_token_at(b: &[u8], mut f: impl FnMut(usize, usize)) {
    let mut i = 0;
    while i < b.len() {
        if is_token_start(b[i]) {
            let start = i;
            while i < b.len() && is_token_byte(b[i]) {
                i += 1;
            }
            f(start, i);
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
pub(crate) fn lowercase(text: &str) -> String {
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
fn node_type(t: &str) -> Cow<'static, str> {
    RecordType::parse(t).map_or_else(|| Cow::Owned(t.to_owned()), |t| Cow::Borrowed(t.pascal_name()))
}

/// A page ready to be indexed: the page without its body, and the body's plain text, which is
/// all the index keeps of it, so a graph of 100,000 records is held as text, not as Markdown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    pub page: Page,
    /// [`plain_text`] of the body.
    pub text: String,
    /// The line of the guidance `graph add` writes that the text still holds
    /// ([`super::new_record::template_line_in`]): found once, when the record is parsed, and
    /// kept with it in the manifest, so an index run scans only the texts it parsed.
    pub template: Option<u16>,
}

impl Record {
    /// The record of the file at `path` (relative to the root) holding `content`.
    pub fn parse(path: &str, content: &str) -> Record {
        let (page, body) = Page::parse_with_body(path, content);
        let mut text = plain_text(body);
        // Kept for the whole run (100,000 of them at scale): no spare capacity.
        text.shrink_to_fit();
        let template = super::new_record::template_line_in(&text);
        Record { page, text, template }
    }

    /// A file over [`super::MAX_RECORD_BYTES`], which was not read.
    pub fn oversized(path: &str) -> Record {
        Record { page: Page::oversized(path), text: String::new(), template: None }
    }
}

impl std::borrow::Borrow<Page> for Record {
    fn borrow(&self) -> &Page {
        &self.page
    }
}

/// The records of a valid graph in id order, with their nodes and the edges: everything the
/// two generated files hold except the search documents, which are rendered from it one by one
/// ([`write_document`]) so that no list of every document is ever held.
#[derive(Debug)]
pub struct Plan<'a> {
    pub graph: Graph,
    /// The text of each node's record, in the order of `graph.nodes`.
    pub texts: Vec<&'a str>,
    /// Each node's record: its place in the records the plan was made from.
    pub records: Vec<usize>,
}

impl<'a> Plan<'a> {
    /// `records` are the graph's records in path order (pages without an id are left out).
    pub fn new(records: &'a [Record]) -> Self {
        Self::of(records.iter().map(|r| (&r.page, r.text.as_str())), || ()).0
    }

    /// [`Plan::new`] for records held as two lists, `pages` and their `texts` (in the same
    /// order): the plan borrows the texts only, so the pages may be dropped once it is made.
    pub fn split<P: std::borrow::Borrow<Page>>(pages: &[P], texts: &'a [String]) -> Self {
        Self::split_after(pages, texts, || ()).0
    }

    /// [`Plan::split`], with `first` (a graph's validation) done before the nodes are made and
    /// while the edges are: the nodes' strings are most of a plan, and made beside what
    /// `first` holds, they made an index run's peak (at 100,000 records, 40 MB beside 17).
    pub fn split_after<P: std::borrow::Borrow<Page>, R>(
        pages: &[P],
        texts: &'a [String],
        first: impl FnOnce() -> R,
    ) -> (Self, R) {
        assert_eq!(pages.len(), texts.len(), "a text for every page");
        Self::of(pages.iter().map(|p| p.borrow()).zip(texts.iter().map(String::as_str)), first)
    }

    fn of<'p, R>(records: impl Iterator<Item = (&'p Page, &'a str)>, first: impl FnOnce() -> R) -> (Self, R) {
        // Each id looked up once, not in every comparison (a front-matter lookup each).
        let mut with_id: Vec<(&Page, &str, usize, &str)> = records
            .enumerate()
            .filter_map(|(k, (page, text))| Some((page, text, k, page.id().and_then(FmValue::as_str)?)))
            .collect();
        // Stable, as 2.x's sort: two records with one id (an invalid graph) keep path order.
        with_id.sort_by(|a, b| a.3.cmp(b.3));
        let str_of = |p: &Page, k: &str| p.attr(k).map(FmValue::js_string).unwrap_or_default();
        // The edges are made on a second thread while `first` runs and the nodes are made:
        // each is about half of a plan's time (0.1 s at 100,000 records), and neither needs the
        // other (an edge names its record by the id `with_id` holds, the string its node's id
        // is made from).
        let (nodes, edges, first) = std::thread::scope(|s| {
            let edges = s.spawn(|| {
                let mut edges = Vec::new();
                for &(page, _, _, id) in &with_id {
                    if let Some(parent) = page.attr("parent").filter(|p| p.is_truthy()) {
                        edges.push(Edge {
                            source: parent.js_string(),
                            target: id.to_owned(),
                            kind: Cow::Borrowed("CONTAINS"),
                        });
                    }
                    for target in FmValue::as_list(page.attr("related_records")) {
                        edges.push(Edge {
                            source: id.to_owned(),
                            target: target.js_string(),
                            kind: Cow::Borrowed("RELATED_TO"),
                        });
                    }
                }
                // In place (a stable sort holds half the list again: 7 MB at 100,000
                // records); edges that compare equal are equal, so the order is the same.
                edges.sort_unstable_by(|a, b| (&a.source, &a.target, &a.kind).cmp(&(&b.source, &b.target, &b.kind)));
                edges
            });
            let first = first();
            let nodes: Vec<Node> = with_id
                .iter()
                .map(|(page, _, _, _)| Node {
                    id: str_of(page, "id"),
                    kind: node_type(&str_of(page, "type")),
                    label: str_of(page, "title"),
                    path: page.path.clone(),
                    parent: page.attr("parent").filter(|p| !matches!(p, FmValue::Null)).map(FmValue::js_string),
                    tags: sorted_tags(page),
                })
                .collect();
            (nodes, edges.join().expect("the edge builder panicked"), first)
        });
        let texts = with_id.iter().map(|(_, text, _, _)| *text).collect();
        let records = with_id.iter().map(|(_, _, k, _)| *k).collect();
        let plan = Plan {
            graph: Graph { version: VERSION.into(), source: "vitaegraph".into(), nodes, edges },
            texts,
            records,
        };
        (plan, first)
    }

    /// The search document of node `i`, its strings borrowed (no terms: [`write_document`]
    /// counts them).
    pub fn view(&self, i: usize) -> DocumentView<'_> {
        let n = &self.graph.nodes[i];
        DocumentView { id: &n.id, kind: &n.kind, title: &n.label, path: &n.path, text: self.texts[i], tags: &n.tags }
    }

    /// The search document of node `i`, as a value.
    pub fn document(&self, i: usize) -> Document {
        let n = &self.graph.nodes[i];
        let text = self.texts[i];
        Document {
            id: n.id.clone(),
            kind: n.kind.to_string(),
            title: n.label.clone(),
            path: n.path.clone(),
            text: text.to_owned(),
            tags: n.tags.clone(),
            terms: term_counts(&terms_source(n, text)),
        }
    }
}

/// The text a document's terms are counted in: title, tags and text.
fn terms_source(n: &Node, text: &str) -> String {
    let mut s = String::with_capacity(n.label.len() + text.len() + 2 + n.tags.len() * 8);
    push_terms_source(&mut s, n, text);
    s
}

fn push_terms_source(s: &mut String, n: &Node, text: &str) {
    s.push_str(&n.label);
    s.push(' ');
    for (i, t) in n.tags.iter().enumerate() {
        if i > 0 {
            s.push(' ');
        }
        match t {
            Tag::Str(t) => s.push_str(t),
            Tag::Bool(b) => s.push_str(if *b { "true" } else { "false" }),
            // 2.x joins the tags with `Array.prototype.join`, which writes null as nothing
            // (found in review: a `null` tag gave every such record the term "null").
            Tag::Null => {}
        }
    }
    s.push(' ');
    s.push_str(text);
}

/// The graph and search index of a valid graph, as values (`records` in path order). The
/// files are written by [`write_graph`] and the `write_search_*` functions, which give the
/// bytes `serde_json`'s pretty printer gives for these values.
pub fn build(records: &[Record]) -> (Graph, SearchIndex) {
    let plan = Plan::new(records);
    let documents = (0..plan.graph.nodes.len()).map(|i| plan.document(i)).collect();
    (plan.graph, SearchIndex { version: VERSION.into(), algorithm: "lexical-term-frequency".into(), documents })
}

fn push_tag(out: &mut Vec<u8>, t: &Tag) {
    match t {
        Tag::Str(s) => push_json_string(out, s),
        Tag::Bool(true) => out.extend_from_slice(b"true"),
        Tag::Bool(false) => out.extend_from_slice(b"false"),
        Tag::Null => out.extend_from_slice(b"null"),
    }
}

/// A pretty-printed array of `items` whose elements sit at `indent` spaces, or `[]`.
fn push_array<T>(out: &mut Vec<u8>, items: &[T], indent: &[u8], mut item: impl FnMut(&mut Vec<u8>, &T)) {
    if items.is_empty() {
        out.extend_from_slice(b"[]");
        return;
    }
    out.push(b'[');
    for (i, t) in items.iter().enumerate() {
        out.extend_from_slice(if i == 0 { b"\n" } else { b",\n" });
        out.extend_from_slice(indent);
        item(out, t);
    }
    out.push(b'\n');
    out.extend_from_slice(&indent[2..]);
    out.push(b']');
}

fn push_field(out: &mut Vec<u8>, indent: &[u8], key: &str, first: bool) {
    out.extend_from_slice(if first { b"\n" } else { b",\n" });
    out.extend_from_slice(indent);
    push_json_string(out, key);
    out.extend_from_slice(b": ");
}

const IN2: &[u8] = b"  ";
const IN4: &[u8] = b"    ";
const IN6: &[u8] = b"      ";
const IN8: &[u8] = b"        ";

/// `graph.json`: the bytes of `serde_json::to_vec_pretty(graph)` and a final newline, handed
/// to `w` in pieces of about 64 KiB (at 100,000 records the file is ~30 MB, never held whole).
/// Bump [`super::outputs::RENDER_VERSION`] with any change to what it writes.
pub fn write_graph(graph: &Graph, w: &mut dyn std::io::Write) -> std::io::Result<()> {
    write_graph_in_pieces(graph, w, 1 << 16)
}

/// [`write_graph`], writing whenever a node or an edge brings the pending bytes to `piece`.
fn write_graph_in_pieces(graph: &Graph, w: &mut dyn std::io::Write, piece: usize) -> std::io::Result<()> {
    let mut out = Vec::with_capacity(piece.saturating_add(4096).min(1 << 20));
    let mut failed = None;
    let mut spill = |out: &mut Vec<u8>| {
        if out.len() >= piece {
            if failed.is_none() {
                failed = w.write_all(out).err();
            }
            out.clear();
        }
    };
    out.push(b'{');
    push_field(&mut out, IN2, "version", true);
    push_json_string(&mut out, &graph.version);
    push_field(&mut out, IN2, "source", false);
    push_json_string(&mut out, &graph.source);
    push_field(&mut out, IN2, "nodes", false);
    push_array(&mut out, &graph.nodes, IN4, |out, n| {
        out.push(b'{');
        push_field(out, IN6, "id", true);
        push_json_string(out, &n.id);
        push_field(out, IN6, "type", false);
        push_json_string(out, &n.kind);
        push_field(out, IN6, "label", false);
        push_json_string(out, &n.label);
        push_field(out, IN6, "path", false);
        push_json_string(out, &n.path);
        push_field(out, IN6, "parent", false);
        match &n.parent {
            Some(p) => push_json_string(out, p),
            None => out.extend_from_slice(b"null"),
        }
        push_field(out, IN6, "tags", false);
        push_array(out, &n.tags, IN8, push_tag);
        out.extend_from_slice(b"\n    }");
        spill(out);
    });
    push_field(&mut out, IN2, "edges", false);
    push_array(&mut out, &graph.edges, IN4, |out, e| {
        out.push(b'{');
        push_field(out, IN6, "source", true);
        push_json_string(out, &e.source);
        push_field(out, IN6, "target", false);
        push_json_string(out, &e.target);
        push_field(out, IN6, "type", false);
        push_json_string(out, &e.kind);
        out.extend_from_slice(b"\n    }");
        spill(out);
    });
    out.extend_from_slice(b"\n}\n");
    match failed {
        Some(e) => Err(e),
        None => w.write_all(&out),
    }
}

/// The start of `search-index.json`, up to its first document; `empty` when it has none.
pub fn write_search_head(out: &mut Vec<u8>, empty: bool) {
    out.extend_from_slice(b"{\n  \"version\": ");
    push_json_string(out, VERSION);
    out.extend_from_slice(b",\n  \"algorithm\": \"lexical-term-frequency\",\n  \"documents\": ");
    out.extend_from_slice(if empty { b"[]" } else { b"[" });
}

/// The end of `search-index.json`, after its last document.
pub fn write_search_tail(out: &mut Vec<u8>, empty: bool) {
    out.extend_from_slice(if empty { b"\n}\n" } else { b"\n  ]\n}\n" });
}

/// A distinct token of a document: its first 16 bytes as a big-endian number, where one
/// occurrence starts and ends, its count, and its slot in [`TermCounts`]' table.
type Distinct = (u128, usize, usize, u32, usize);

/// One document's term counts in byte order, as [`write_document`] counts them. Kept from one
/// document to the next, so that counting allocates nothing once its buffers have grown, and
/// read in place by the search builder ([`crate::graph::search::Prepared::add`]).
#[derive(Debug, Default)]
pub struct TermCounts {
    /// The lower-cased text the terms are counted in; the terms are ranges of it.
    lower: String,
    distinct: Vec<Distinct>,
    /// An open-addressed table of the distinct tokens (an index into `distinct` plus one; 0
    /// is free), a power of two at least twice as long as `distinct`; all free between uses.
    slots: Vec<u32>,
    /// Each distinct term, where one occurrence of it starts and ends, and its count.
    counts: Vec<(usize, usize, u32)>,
}

impl TermCounts {
    /// Counts the terms of `lower` into `counts`: each token is counted in a hash table of
    /// the distinct ones, then those are sorted. A token is known by its first 16 bytes as a
    /// number, then by the rest: a token has no zero byte, so two tokens of at most 16 bytes
    /// with one head are one token, and only when either is longer are their bytes compared.
    /// Sorting every token took 7 % of a `graph index` (123 tokens a document, 47 distinct, in
    /// the benchmark's graphs); most comparisons are one integer comparison, not a call to
    /// memcmp (which comparing every pair of equal heads made 4 %).
    fn count(&mut self) {
        let TermCounts { lower, distinct, slots, counts } = self;
        let bytes = lower.as_bytes();
        let long = |a: usize, b: usize| b - a > 16;
        let rest = |a: usize, b: usize| &bytes[a + 16.min(b - a)..b];
        distinct.clear();
        if slots.is_empty() {
            slots.resize(256, 0);
        }
        each_token_at(bytes, |a, b| {
            let mut head = [0u8; 16];
            let n = (b - a).min(16);
            head[..n].copy_from_slice(&bytes[a..a + n]);
            let head = u128::from_be_bytes(head);
            if 2 * (distinct.len() + 1) > slots.len() {
                grow(slots, distinct);
            }
            let mask = slots.len() - 1;
            let mut at = slot_of(head, b - a, mask);
            loop {
                match slots[at] {
                    0 => {
                        distinct.push((head, a, b, 1, at));
                        slots[at] = u32::try_from(distinct.len()).expect("fewer than 2^32 tokens");
                        break;
                    }
                    k => {
                        let d = &mut distinct[k as usize - 1];
                        if d.0 == head && (!(long(a, b) || long(d.1, d.2)) || rest(a, b) == rest(d.1, d.2)) {
                            d.3 = d.3.saturating_add(1);
                            break;
                        }
                        at = (at + 1) & mask;
                    }
                }
            }
        });
        for d in distinct.iter() {
            slots[d.4] = 0;
        }
        let tail = |x: &Distinct, y: &Distinct| {
            if long(x.1, x.2) || long(y.1, y.2) {
                rest(x.1, x.2).cmp(rest(y.1, y.2))
            } else {
                std::cmp::Ordering::Equal
            }
        };
        distinct.sort_unstable_by(|x, y| x.0.cmp(&y.0).then_with(|| tail(x, y)));
        counts.clear();
        counts.extend(distinct.iter().map(|&(_, a, b, n, _)| (a, b, n)));
    }

    /// Takes the terms of a rendered document (`doc`, from its `{` to its `}`, as
    /// [`write_document`] wrote it) in place of counting them again: false, with nothing
    /// taken, when its terms do not read as [`write_document`] writes them (each a token with a
    /// count of at least 1). Their order is not checked: the sidecar adds counts in any order.
    pub fn read_rendered(&mut self, doc: &[u8]) -> bool {
        let read = self.read_terms(doc).is_some();
        if !read {
            self.lower.clear();
            self.counts.clear();
        }
        read
    }

    fn read_terms(&mut self, doc: &[u8]) -> Option<()> {
        const FIELD: &[u8] = b",\n      \"terms\": ";
        const ENTRY: &[u8] = b"\n        \"";
        const CLOSE: &[u8] = b"\n      }";
        let body = doc.strip_suffix(b"\n    }")?;
        // The terms field is the last one: found from the end, over its own lines only (a
        // term's line is indented deeper than a field's), not searched for in the text.
        let mut field = None;
        for at in memchr::memrchr_iter(b'\n', body) {
            let line = &body[at..];
            if !(line.starts_with(ENTRY) || line == CLOSE) {
                field = at.checked_sub(1).filter(|&f| body[f..].starts_with(FIELD));
                break;
            }
        }
        let object = &body[field? + FIELD.len()..];
        let TermCounts { lower, counts, .. } = self;
        counts.clear();
        let mut bytes = std::mem::take(lower).into_bytes();
        bytes.clear();
        if object != b"{}" {
            let mut rest = object.strip_prefix(b"{")?.strip_suffix(CLOSE)?;
            while !rest.is_empty() {
                if !counts.is_empty() {
                    rest = rest.strip_prefix(b",")?;
                }
                let r = rest.strip_prefix(ENTRY)?;
                let close = memchr::memchr(b'"', r)?;
                let term = &r[..close];
                if !term.first().is_some_and(|&c| is_token_start(c)) || !term.iter().all(|&c| is_token_byte(c)) {
                    return None;
                }
                let r = r[close..].strip_prefix(b"\": ")?;
                let digits = r.iter().take_while(|c| c.is_ascii_digit()).count();
                if !(1..=9).contains(&digits) || r[0] == b'0' {
                    return None;
                }
                let count = r[..digits].iter().fold(0u32, |n, d| n * 10 + u32::from(d - b'0'));
                counts.push((bytes.len(), bytes.len() + term.len(), count));
                bytes.extend_from_slice(term);
                rest = &r[digits..];
            }
            // No terms are written `{}`, never as an object with no entries.
            if counts.is_empty() {
                return None;
            }
        }
        // Token bytes are ASCII: one check of them all.
        *lower = String::from_utf8(bytes).ok()?;
        Some(())
    }

    /// The terms in byte order, each once, with their counts.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&str, u32)> + '_ {
        self.counts.iter().map(|&(a, b, n)| (&self.lower[a..b], n))
    }
}

/// The slot of a token with `head` and `len` bytes in a table of `mask + 1` slots (a power of
/// two): the top bits of a Fibonacci hash, which depend on every bit of the folded head (the
/// bits just above the lowest did not: found in review, `build` and `built` shared a slot).
fn slot_of(head: u128, len: usize, mask: usize) -> usize {
    let folded = (head as u64) ^ ((head >> 64) as u64).rotate_left(29) ^ len as u64;
    (folded.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - mask.count_ones())) as usize
}

/// Doubles `slots` and places `distinct` in it again.
fn grow(slots: &mut Vec<u32>, distinct: &mut [Distinct]) {
    let size = slots.len() * 2;
    slots.clear();
    slots.resize(size, 0);
    let mask = size - 1;
    for (k, d) in distinct.iter_mut().enumerate() {
        let mut at = slot_of(d.0, d.2 - d.1, mask);
        while slots[at] != 0 {
            at = (at + 1) & mask;
        }
        slots[at] = u32::try_from(k + 1).expect("fewer than 2^32 tokens");
        d.4 = at;
    }
}

/// Whether `doc`, a document copied from a previous `search-index.json`, reads as node `i`'s:
/// one whole document, whose id, type, title and path are the node's, in [`write_document`]'s
/// layout. A check against a copy gone wrong (a damaged span file, one misread); what makes a
/// copy right is that its record is unchanged. It does not hold against a span file crafted
/// to point at another version of the same record's document (that takes a write to
/// `.generated/`, which could as well write the index itself; see ARCHITECTURE.md).
/// `scratch` is a buffer to reuse.
pub fn is_document_of(plan: &Plan<'_>, i: usize, doc: &[u8], scratch: &mut Vec<u8>) -> bool {
    let n = &plan.graph.nodes[i];
    scratch.clear();
    push_document_head(scratch, n);
    // One document, whole: its closing line (`}` at four spaces) is its last, and its first
    // (every other line is indented deeper, and a string holds no raw line break).
    const CLOSE: &[u8] = b"\n    }";
    doc.starts_with(scratch) && memchr::memmem::find(doc, CLOSE) == Some(doc.len().wrapping_sub(CLOSE.len()))
}

/// The separator before a document in `search-index.json` (`first` for the first one): a
/// document's bytes, and its span, start after it.
pub fn document_separator(first: bool) -> &'static [u8] {
    if first { b"\n    " } else { b",\n    " }
}

/// A search document of node `n` up to its text: `{`, its id, type, title and path, and the
/// text's key (what [`write_document`] writes first, and [`is_document_of`] looks for).
fn push_document_head(out: &mut Vec<u8>, n: &Node) {
    out.push(b'{');
    push_field(out, IN6, "id", true);
    push_json_string(out, &n.id);
    push_field(out, IN6, "type", false);
    push_json_string(out, &n.kind);
    push_field(out, IN6, "title", false);
    push_json_string(out, &n.label);
    push_field(out, IN6, "path", false);
    push_json_string(out, &n.path);
    push_field(out, IN6, "text", false);
}

/// Document `i` of the plan, as `search-index.json` holds it (preceded by its separator;
/// `first` for the first document). A change to what it writes bumps the span file's magic
/// (`spans::MAGIC`), so that no document rendered the old way is copied. Its terms are counted here, once, on whichever thread
/// renders the document, and left in `terms` for the search sidecar.
pub fn write_document(plan: &Plan<'_>, i: usize, first: bool, out: &mut Vec<u8>, terms: &mut TermCounts) {
    let n = &plan.graph.nodes[i];
    let text = plan.texts[i];
    out.extend_from_slice(document_separator(first));
    push_document_head(out, n);
    push_json_string(out, text);
    push_field(out, IN6, "tags", false);
    push_array(out, &n.tags, IN8, push_tag);
    push_field(out, IN6, "terms", false);
    let lower = &mut terms.lower;
    lower.clear();
    push_terms_source(lower, n, text);
    // `lowercase`, in place where it can be.
    if lower.is_ascii() {
        lower.make_ascii_lowercase();
    } else {
        *lower = lower.to_lowercase();
    }
    terms.count();
    if terms.counts.is_empty() {
        out.extend_from_slice(b"{}");
    } else {
        out.push(b'{');
        for (k, &(a, b, count)) in terms.counts.iter().enumerate() {
            push_field(out, IN8, &terms.lower[a..b], k == 0);
            let mut digits = [0u8; 10];
            let mut count = count;
            let mut at = digits.len();
            loop {
                at -= 1;
                digits[at] = b'0' + (count % 10) as u8;
                count /= 10;
                if count == 0 {
                    break;
                }
            }
            out.extend_from_slice(&digits[at..]);
        }
        out.extend_from_slice(b"\n      }");
    }
    out.extend_from_slice(b"\n    }");
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

    /// 2.x joins the tags into the terms' text with `join(" ")`, which writes null as nothing.
    #[test]
    fn a_null_tag_adds_no_term() {
        let r = Record::parse(
            "projects/a/project.md",
            "---\ntype: project\nid: project:a\ntitle: A\ntags:\n  - null\n  - x\n---\nBody\n",
        );
        let (graph, search) = build(&[r]);
        assert_eq!(graph.nodes[0].tags, [Tag::Null, Tag::Str("x".into())]);
        let terms: Vec<&str> = search.documents[0].terms.keys().collect();
        assert_eq!(terms, ["a", "body", "x"]);
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

    /// The streamed files, rendered from fragments, next to `serde_json`'s pretty printing of the
    /// same values: the reference for byte-identical output. The search sidecar is built as
    /// `graph index` builds it (the counted terms prepared in runs of documents, the strings
    /// read from the plan) and must be the bytes of one built from the documents as values.
    fn streamed(records: &[Record]) -> (Vec<u8>, Vec<u8>) {
        use crate::graph::search::Prepared;
        use crate::graph::sidecar::SidecarBuilder;
        let plan = Plan::new(records);
        // Pieces of one byte: every node and edge is its own write.
        let mut graph = Vec::new();
        write_graph_in_pieces(&plan.graph, &mut graph, 1).expect("a Vec takes every write");
        let n = plan.graph.nodes.len();
        let mut search = Vec::new();
        write_search_head(&mut search, n == 0);
        let mut terms = TermCounts::default();
        let (mut streamed, mut reference) = (SidecarBuilder::borrowing(n), SidecarBuilder::default());
        let mut prepared = Prepared::default();
        let mut starts = Vec::new();
        for run in (0..n).collect::<Vec<_>>().chunks(3) {
            prepared.clear();
            for &i in run {
                let before = search.len() + document_separator(i == 0).len();
                starts.push(before);
                write_document(&plan, i, i == 0, &mut search, &mut terms);
                let doc = &search[before..];
                let mut again = TermCounts::default();
                assert!(again.read_rendered(doc), "a rendered document's terms read back");
                assert!(again.iter().eq(terms.iter()), "as they were counted");
                assert!(is_document_of(&plan, i, doc, &mut Vec::new()), "a document is its node's");
                assert!(!is_document_of(&plan, i, &doc[..doc.len() - 1], &mut Vec::new()), "a cut one is not");
                if i > 0 {
                    let two = &search[starts[i - 1]..];
                    assert!(!is_document_of(&plan, i - 1, two, &mut Vec::new()), "two documents are not one");
                }
                if n > 1 {
                    let other = (i + 1) % n;
                    let same = plan.view(other).strings()[..4] == plan.view(i).strings()[..4];
                    assert_eq!(is_document_of(&plan, other, doc, &mut Vec::new()), same, "not another node's");
                }
                let d = plan.document(i);
                assert_eq!(plan.view(i), d.view(), "the view is the document rendered");
                assert!(terms.iter().eq(d.terms.iter()), "the counts are the document's terms");
                prepared.add(&plan.view(i), terms.iter());
                reference.add(&d);
            }
            streamed.push(run.iter().map(|&i| plan.view(i)), &prepared);
        }
        let strings = |i: usize, f: usize| plan.view(i).strings()[f].as_bytes();
        let mut borrowed = Vec::new();
        let layout = streamed.layout(&strings);
        let json = crate::graph::sidecar::Source { json_len: 1, json_sum: 2, json_stamp: 3 };
        layout.write(json, &strings, &mut borrowed).expect("a Vec takes every write");
        assert!(borrowed == reference.finish(json), "the streamed sidecar is the reference's");
        write_search_tail(&mut search, n == 0);
        (graph, search)
    }

    fn pretty<T: Serialize>(v: &T) -> Vec<u8> {
        let mut b = serde_json::to_vec_pretty(v).unwrap();
        b.push(b'\n');
        b
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(200))]
        /// Any records (odd characters, control characters, quotes, empty tags, booleans and
        /// nulls in lists, no records at all): the fragments give serde_json's bytes.
        #[test]
        fn streamed_files_equal_serde_pretty_printing(
            records in proptest::collection::vec(
                (
                    "[a-z]{1,3}",
                    "[a-zA-Z0-9 \"\\\\\u{1}\u{8}\u{c}\u{1f}\u{7f}é🦀:#-]{0,12}",
                    proptest::collection::vec("[a-zA-Z\"\\\\ ]{0,5}|true|false|null", 0..4),
                    proptest::option::of("[a-z]{1,3}"),
                    "[a-zA-Z0-9 .#+\\-\"\\\\\t\n\r\u{0}\u{2028}é]{0,80}",
                    proptest::bool::ANY,
                ),
                0..8,
            )
        ) {
            let records: Vec<Record> = records
                .iter()
                .enumerate()
                .map(|(i, (slug, title, tags, parent, body, has_id))| {
                    let id = if *has_id { format!("id: project:{slug}\n") } else { String::new() };
                    let parent = parent.as_ref().map(|p| format!("parent: project:{p}\n")).unwrap_or_default();
                    let tags = tags.iter().map(|t| format!("  - {t}\n")).collect::<String>();
                    let text = format!(
                        "---\ntype: project\n{id}title: {title}\n{parent}related_records: [award:{slug}]\ntags:\n{tags}---\n{body}"
                    );
                    Record::parse(&format!("projects/{i}/project.md"), &text)
                })
                .collect();
            let (graph, search) = build(&records);
            let (graph_bytes, search_bytes) = streamed(&records);
            proptest::prop_assert_eq!(String::from_utf8(graph_bytes).unwrap(), String::from_utf8(pretty(&graph)).unwrap());
            proptest::prop_assert_eq!(String::from_utf8(search_bytes).unwrap(), String::from_utf8(pretty(&search)).unwrap());
        }
    }

    proptest::proptest! {
        /// Tokens that share their first 8 or 16 bytes, or are prefixes of each other around
        /// the 16-byte head: counted as the reference counts them, in byte order.
        #[test]
        fn the_counting_sort_equals_the_reference(words in proptest::collection::vec(
            "(abcdefghijklmnop|abcdefgh|abcdefghijklmno)(|q|qr|r|p|pq|0)(|[a-c]{1,3})", 0..40,
        )) {
            let text = words.join(" ");
            let mut terms = TermCounts { lower: text.clone(), ..TermCounts::default() };
            terms.count();
            let expected = term_counts(&text);
            proptest::prop_assert!(terms.iter().eq(expected.iter()), "{:?} vs {:?}", terms.iter().collect::<Vec<_>>(), expected);
        }

        /// Documents of up to hundreds of distinct terms (the table grows past its first 256
        /// slots) counted one after another with one `TermCounts`: each counted as the
        /// reference counts it, nothing left over from the one before.
        #[test]
        fn many_distinct_terms_are_counted_as_the_reference_counts_them(docs in proptest::collection::vec(
            proptest::collection::vec("[a-e]{1,3}[0-9]{0,2}|abcdefghijklmnop[a-c]{0,2}", 0..600), 1..4,
        )) {
            let mut terms = TermCounts::default();
            for words in docs {
                let text = words.join(" ");
                terms.lower.clone_from(&text);
                terms.count();
                let expected = term_counts(&text);
                proptest::prop_assert!(terms.iter().eq(expected.iter()), "{:?} vs {:?}", terms.iter().collect::<Vec<_>>(), expected);
            }
        }
    }

    #[test]
    fn rendered_terms_that_write_document_would_not_write_are_refused() {
        let doc = |terms: &str| format!("{{\n      \"id\": \"x\",\n      \"terms\": {terms}\n    }}");
        let entry = |t: &str, n: &str| format!("\n        \"{t}\": {n}");
        let object = |entries: &[String]| format!("{{{}\n      }}", entries.join(","));
        let mut terms = TermCounts::default();
        assert!(terms.read_rendered(doc("{}").as_bytes()));
        assert_eq!(terms.iter().count(), 0);
        let good = doc(&object(&[entry("a", "2"), entry("b#", "10")]));
        assert!(terms.read_rendered(good.as_bytes()));
        assert_eq!(terms.iter().collect::<Vec<_>>(), [("a", 2), ("b#", 10)]);
        let unordered = doc(&object(&[entry("b", "1"), entry("a", "3")]));
        assert!(terms.read_rendered(unordered.as_bytes()), "the sidecar adds counts in any order");
        assert_eq!(terms.iter().collect::<Vec<_>>(), [("b", 1), ("a", 3)]);
        let text = "{\n      \"text\": \"a\\n        \\\"x\\\": 1\",\n      \"terms\": {}\n    }";
        assert!(terms.read_rendered(text.as_bytes()), "{text}");
        assert_eq!(terms.iter().count(), 0, "nothing read from the text");
        for bad in [
            doc(&object(&[entry("a", "0")])),
            doc(&object(&[entry("a", "01")])),
            doc(&object(&[entry("a", "")])),
            doc(&object(&[entry("a", "99999999999")])),
            doc(&object(&[entry("A", "1")])),
            doc(&object(&[entry("-a", "1")])),
            doc(&object(&[entry("", "1")])),
            doc(&object(&[entry("a b", "1")])),
            doc(&object(&[entry("a", "1 ")])),
            doc(&object(&[])),
            doc("{ }"),
            good[..good.len() - 1].to_owned(),
            good.replace("\"terms\"", "\"term\""),
        ] {
            assert!(!terms.read_rendered(bad.as_bytes()), "{bad}");
            assert_eq!(terms.iter().count(), 0, "nothing taken from {bad}");
        }
    }

    #[test]
    fn an_empty_graph_streams_as_serde_prints_it() {
        let (graph, search) = build(&[]);
        assert_eq!(streamed(&[]), (pretty(&graph), pretty(&search)));
    }

    #[test]
    fn node_types_are_pascal_case() {
        assert_eq!(node_type("project"), "Project");
        assert_eq!(node_type("certification"), "Certification");
    }
}

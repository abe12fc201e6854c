//! YAML (and JSON, which YAML 1.2 contains) into a small tree that keeps the byte span and line
//! of every node, so that a finding can be labelled under the exact text it is about.

use saphyr::{LoadableYamlNode, MarkedYamlOwned, ScalarOwned, YamlDataOwned};

/// A JSON-like value: what a skill's `inputSchema` and a tool call's arguments are made of.
/// The domain's own type, so that it never sees the wire's.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    String(String),
    Array(Vec<Value>),
    /// Keys in the order written.
    Object(Vec<(String, Value)>),
}

impl Value {
    /// The name skill-central's messages use for this value's JSON type (`typeof`, arrays apart).
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Bool(_) => "boolean",
            Value::Int(_) | Value::Float(_) => "number",
            Value::String(_) => "string",
            Value::Array(_) => "array",
            Value::Object(_) => "object",
        }
    }

    pub fn get(&self, key: &str) -> Option<&Value> {
        match self {
            Value::Object(pairs) => pairs.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    /// Compact JSON text (strings escaped as JSON does).
    pub fn to_json(&self) -> String {
        let mut out = String::new();
        self.write_json(&mut out, None, 0);
        out
    }

    /// JSON text indented by two spaces, as `JSON.stringify(v, null, 2)` writes it.
    pub fn to_json_pretty(&self) -> String {
        let mut out = String::new();
        self.write_json(&mut out, Some(2), 0);
        out
    }

    fn write_json(&self, out: &mut String, indent: Option<usize>, depth: usize) {
        let newline = |out: &mut String, depth: usize| {
            if let Some(n) = indent {
                out.push('\n');
                out.extend(std::iter::repeat_n(' ', n * depth));
            }
        };
        match self {
            Value::Null => out.push_str("null"),
            Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Value::Int(i) => out.push_str(&i.to_string()),
            Value::Float(f) if f.is_finite() => out.push_str(&crate::text::js_number(*f)),
            Value::Float(_) => out.push_str("null"),
            Value::String(s) => out.push_str(&crate::text::json_string(s)),
            Value::Array(items) if items.is_empty() => out.push_str("[]"),
            Value::Array(items) => {
                out.push('[');
                for (i, v) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    newline(out, depth + 1);
                    v.write_json(out, indent, depth + 1);
                }
                newline(out, depth);
                out.push(']');
            }
            Value::Object(pairs) if pairs.is_empty() => out.push_str("{}"),
            Value::Object(pairs) => {
                out.push('{');
                for (i, (k, v)) in pairs.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    newline(out, depth + 1);
                    out.push_str(&crate::text::json_string(k));
                    out.push(':');
                    if indent.is_some() {
                        out.push(' ');
                    }
                    v.write_json(out, indent, depth + 1);
                }
                newline(out, depth);
                out.push('}');
            }
        }
    }
}

/// Where a node is: a byte range of the source and its 1-based line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Span {
    pub start: usize,
    pub end: usize,
    pub line: usize,
}

/// A parsed node with its place in the source. Mapping entries keep the key's span too.
#[derive(Debug, Clone)]
pub struct Node {
    pub span: Span,
    pub kind: NodeKind,
}

#[derive(Debug, Clone)]
pub enum NodeKind {
    Scalar(Value),
    Seq(Vec<Node>),
    Map(Vec<(String, Span, Node)>),
}

impl Node {
    pub fn get(&self, key: &str) -> Option<(&Span, &Node)> {
        match &self.kind {
            NodeKind::Map(entries) => entries.iter().find(|(k, _, _)| k == key).map(|(_, s, n)| (s, n)),
            _ => None,
        }
    }

    /// The value without spans.
    pub fn to_value(&self) -> Value {
        match &self.kind {
            NodeKind::Scalar(v) => v.clone(),
            NodeKind::Seq(items) => Value::Array(items.iter().map(Node::to_value).collect()),
            NodeKind::Map(entries) => {
                Value::Object(entries.iter().map(|(k, _, v)| (k.clone(), v.to_value())).collect())
            }
        }
    }

    /// The span of this node, or for a collection the parser gave none, of its first key or
    /// item.
    pub fn place(&self) -> Span {
        match &self.kind {
            NodeKind::Map(entries) if self.span == Span::default() => {
                entries.first().map(|(_, s, _)| *s).unwrap_or_default()
            }
            NodeKind::Seq(items) if self.span == Span::default() => items.first().map(Node::place).unwrap_or_default(),
            _ => self.span,
        }
    }
}

/// A YAML syntax error: the parser's words and where it stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError {
    pub message: String,
    pub span: Span,
}

/// Char index -> byte offset for one source text (identity for ASCII).
struct Offsets<'a> {
    text: &'a str,
    ascii: bool,
    table: Vec<usize>,
}

impl<'a> Offsets<'a> {
    fn new(text: &'a str) -> Self {
        let ascii = text.is_ascii();
        let table = if ascii { Vec::new() } else { text.char_indices().map(|(i, _)| i).collect() };
        Offsets { text, ascii, table }
    }

    fn byte(&self, char_index: usize) -> usize {
        if self.ascii {
            char_index.min(self.text.len())
        } else {
            self.table.get(char_index).copied().unwrap_or(self.text.len())
        }
    }

    fn span(&self, from: &saphyr::Marker, to: &saphyr::Marker, base: usize, line_base: usize) -> Span {
        if from.line() == 0 {
            return Span::default();
        }
        let start = self.byte(from.index());
        let end = self.byte(to.index()).max(start);
        Span { start: start + base, end: end + base, line: from.line() + line_base }
    }
}

/// Parses one YAML (or JSON) document. `base` and `line_base` shift spans when `text` is a part
/// of a larger file (SKILL.md front matter). An empty document is `Ok(None)`.
pub fn parse(text: &str, base: usize, line_base: usize) -> Result<Option<Node>, SyntaxError> {
    let offsets = Offsets::new(text);
    if let Err((at, why)) = aliases_fit(text) {
        let at_byte = offsets.byte(at.index());
        let message = match why {
            TooLarge::Values => format!(
                "its aliases expand to more than {MAX_EXPANDED_NODES} values (a skill has a few dozen); write the values out"
            ),
            TooLarge::Bytes => format!(
                "its aliases expand to more than {} KiB of text (a skill has a few KiB); write the values out",
                MAX_EXPANDED_BYTES / 1024
            ),
        };
        return Err(SyntaxError {
            message,
            span: Span { start: at_byte + base, end: at_byte + base, line: at.line().max(1) + line_base },
        });
    }
    let docs = MarkedYamlOwned::load_from_str(text).map_err(|e| {
        let m = e.marker();
        let at = offsets.byte(m.index());
        SyntaxError {
            message: e.info().to_owned(),
            span: Span { start: at + base, end: at + base, line: m.line().max(1) + line_base },
        }
    })?;
    match docs.len() {
        0 => Ok(None),
        1 => Ok(Some(convert(&docs[0], &offsets, base, line_base, 0)?)),
        n => {
            // The parser gives a mapping no span: the second document is named by its first key
            // (a file's line 0 was reported for the usual `---` between two mappings).
            let second = match convert(&docs[1], &offsets, base, line_base, 0) {
                Ok(node) => node.place(),
                Err(e) => e.span,
            };
            let second = if second.line == 0 { Span { start: base, end: base, line: 1 + line_base } } else { second };
            Err(SyntaxError { message: format!("expected one YAML document, found {n}"), span: second })
        }
    }
}

/// The most values a file's aliases may add once expanded.
pub const MAX_EXPANDED_NODES: usize = 100_000;

/// The most bytes of text a file's aliases may add once expanded: one large anchored value
/// aliased many times is a bomb of few values (a 100 KB skill file took 1.6 GB).
pub const MAX_EXPANDED_BYTES: usize = 1024 * 1024;

/// What an alias adds: values and bytes of scalar text.
#[derive(Clone, Copy, Default)]
struct Expanded {
    values: usize,
    bytes: usize,
}

impl Expanded {
    fn add(&mut self, other: Expanded) {
        self.values = self.values.saturating_add(other.values);
        self.bytes = self.bytes.saturating_add(other.bytes);
    }
}

/// Why a file's aliases are refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TooLarge {
    Values,
    Bytes,
}

/// Counts the values and bytes `text` holds with every alias expanded, from the parser's
/// events alone (nothing is built), and stops at the alias that takes it past
/// [`MAX_EXPANDED_NODES`] or [`MAX_EXPANDED_BYTES`]: the loader copies an anchored value for
/// each alias, so ten levels of ten aliases each, in 700 bytes, were 10^10 values. A syntax
/// error ends the count: the loader reports it.
fn aliases_fit(text: &str) -> Result<(), (saphyr::Marker, TooLarge)> {
    use saphyr_parser::{Event, Parser};
    // The size of each anchored collection being read: its anchor id and its size so far.
    let mut open: Vec<(usize, Expanded)> = Vec::new();
    let mut sizes: std::collections::HashMap<usize, Expanded> = std::collections::HashMap::new();
    // What the aliases add, expanded: a collection's size is its own value plus its members'.
    // Values written out are bounded by the file's size and not counted (a long plain list is
    // no bomb; found in review).
    let mut added = Expanded::default();
    for event in Parser::new_from_str(text) {
        let Ok((event, span)) = event else { return Ok(()) };
        let (anchor, size) = match event {
            Event::SequenceStart(anchor, _) | Event::MappingStart(anchor, _) => {
                open.push((anchor, Expanded { values: 1, bytes: 0 }));
                continue;
            }
            // Counted value by value: only passed on to the collection around it.
            Event::SequenceEnd | Event::MappingEnd => match open.pop() {
                Some(done) => done,
                None => continue,
            },
            Event::Scalar(value, _, anchor, _) => (anchor, Expanded { values: 1, bytes: value.len() }),
            Event::Alias(id) => {
                let size = sizes.get(&id).copied().unwrap_or(Expanded { values: 1, bytes: 0 });
                added.add(size);
                if added.values > MAX_EXPANDED_NODES {
                    return Err((span.start, TooLarge::Values));
                }
                if added.bytes > MAX_EXPANDED_BYTES {
                    return Err((span.start, TooLarge::Bytes));
                }
                (0, size)
            }
            _ => continue,
        };
        if anchor != 0 {
            sizes.insert(anchor, size);
        }
        if let Some((_, total)) = open.last_mut() {
            total.add(size);
        }
    }
    Ok(())
}

/// Deeper nesting than this is refused rather than recursed into.
const MAX_DEPTH: usize = 64;

fn convert(n: &MarkedYamlOwned, o: &Offsets, base: usize, lb: usize, depth: usize) -> Result<Node, SyntaxError> {
    let span = o.span(&n.span.start, &n.span.end, base, lb);
    if depth > MAX_DEPTH {
        return Err(SyntaxError { message: format!("nested deeper than {MAX_DEPTH} levels"), span });
    }
    let kind = match &n.data {
        YamlDataOwned::Value(s) => NodeKind::Scalar(match s {
            ScalarOwned::Null => Value::Null,
            ScalarOwned::Boolean(b) => Value::Bool(*b),
            ScalarOwned::Integer(i) => Value::Int(*i),
            ScalarOwned::FloatingPoint(f) => Value::Float(f.into_inner()),
            ScalarOwned::String(s) => Value::String(s.clone()),
        }),
        YamlDataOwned::Representation(s, _, _) => NodeKind::Scalar(Value::String(s.clone())),
        YamlDataOwned::Sequence(items) => {
            NodeKind::Seq(items.iter().map(|i| convert(i, o, base, lb, depth + 1)).collect::<Result<_, _>>()?)
        }
        YamlDataOwned::Mapping(map) => {
            let mut entries = Vec::with_capacity(map.len());
            for (k, v) in map {
                let key_span = o.span(&k.span.start, &k.span.end, base, lb);
                let key = match &k.data {
                    YamlDataOwned::Value(ScalarOwned::String(s)) => s.clone(),
                    YamlDataOwned::Value(ScalarOwned::Integer(i)) => i.to_string(),
                    YamlDataOwned::Value(ScalarOwned::Boolean(b)) => b.to_string(),
                    YamlDataOwned::Value(ScalarOwned::Null) => "null".into(),
                    YamlDataOwned::Value(ScalarOwned::FloatingPoint(f)) => crate::text::js_number(f.into_inner()),
                    YamlDataOwned::Representation(s, _, _) => s.clone(),
                    _ => {
                        return Err(SyntaxError {
                            message: "a mapping key must be a plain value".into(),
                            span: key_span,
                        });
                    }
                };
                entries.push((key, key_span, convert(v, o, base, lb, depth + 1)?));
            }
            NodeKind::Map(entries)
        }
        YamlDataOwned::Tagged(_, inner) => return convert(inner, o, base, lb, depth),
        YamlDataOwned::Alias(_) | YamlDataOwned::BadValue => {
            return Err(SyntaxError { message: "unresolved alias or invalid value".into(), span });
        }
    };
    Ok(Node { span, kind })
}

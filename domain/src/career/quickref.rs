//! The QUICK REFERENCE block: a deliberately small, flat YAML dialect.
//!
//! `key: value` at column 0, scalars (booleans, numbers, quoted or bare strings), inline lists
//! `[a, b]`, or a key with no value followed by `  - item` lines. Anything else is an error at
//! its own line, never a guess: this is what VitaeContext 2.x accepts, and files written for it
//! must read the same here.

use crate::text::{is_js_space, is_line_terminator, js_number, strip_quotes, trim, trim_start};

/// A QUICK REFERENCE value as JavaScript would hold it.
#[derive(Debug, Clone, PartialEq)]
pub enum QValue {
    Str(String),
    Num(f64),
    Bool(bool),
    List(Vec<QValue>),
}

impl QValue {
    /// JavaScript truthiness: what `!value` is false for. An empty list is truthy.
    pub fn is_truthy(&self) -> bool {
        match self {
            QValue::Str(s) => !s.is_empty(),
            QValue::Num(n) => *n != 0.0 && !n.is_nan(),
            QValue::Bool(b) => *b,
            QValue::List(_) => true,
        }
    }

    /// `JSON.stringify` of the value (an infinite number, such as `1e400`, is `null`).
    pub fn to_json(&self) -> String {
        match self {
            QValue::Str(s) => json_string(s),
            QValue::Num(n) if !n.is_finite() => "null".into(),
            QValue::Num(n) => js_number(*n),
            QValue::Bool(b) => b.to_string(),
            QValue::List(items) => format!("[{}]", items.iter().map(QValue::to_json).collect::<Vec<_>>().join(",")),
        }
    }

    /// The packet's YAML rendering: strings JSON-quoted, lists inline with JSON items, a lone
    /// number as `String(n)` writes it (`Infinity` for `1e400`, where JSON has only `null`).
    pub fn to_packet_yaml(&self) -> String {
        match self {
            QValue::Num(n) => js_number(*n),
            QValue::List(items) => {
                format!("[{}]", items.iter().map(QValue::to_json).collect::<Vec<_>>().join(", "))
            }
            other => other.to_json(),
        }
    }
}

pub use crate::text::json_string;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct YamlError {
    /// 1-based line within the YAML block.
    pub line: usize,
    pub message: String,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct QuickReference {
    /// Keys in file order.
    pub entries: Vec<(String, QValue)>,
    pub errors: Vec<YamlError>,
}

impl QuickReference {
    pub fn get(&self, key: &str) -> Option<&QValue> {
        self.entries.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }
}

fn is_number(s: &str) -> bool {
    let digits = s.strip_prefix('-').unwrap_or(s);
    let (int, frac) = match digits.split_once('.') {
        Some((i, f)) => (i, Some(f)),
        None => (digits, None),
    };
    let all_digits = |p: &str| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit());
    all_digits(int) && frac.is_none_or(all_digits)
}

pub fn parse_scalar(value: &str) -> QValue {
    let t = trim(value);
    if t.starts_with('[') && t.ends_with(']') && t.len() >= 2 {
        let inner = trim(&t[1..t.len() - 1]);
        if inner.is_empty() {
            return QValue::List(Vec::new());
        }
        return QValue::List(inner.split(',').map(|e| QValue::Str(strip_quotes(trim(e)).to_owned())).collect());
    }
    if t.eq_ignore_ascii_case("true") {
        return QValue::Bool(true);
    }
    if t.eq_ignore_ascii_case("false") {
        return QValue::Bool(false);
    }
    if is_number(t)
        && let Ok(n) = t.parse::<f64>()
    {
        return QValue::Num(n);
    }
    QValue::Str(strip_quotes(t).to_owned())
}

/// `^([A-Za-z][A-Za-z0-9_-]*):(?:\s*(.*))?$` -> (key, raw value).
fn key_line(raw: &str) -> Option<(&str, &str)> {
    let colon = raw.find(':')?;
    let key = &raw[..colon];
    let mut chars = key.chars();
    if !chars.next().is_some_and(|c| c.is_ascii_alphabetic()) {
        return None;
    }
    if !chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') {
        return None;
    }
    let value = trim_start(&raw[colon + 1..]);
    if value.chars().any(is_line_terminator) {
        return None;
    }
    Some((key, value))
}

/// `^\s{2,}-\s+(.+)$` -> the captured item text.
pub(crate) fn list_item(line: &str) -> Option<&str> {
    crate::text::list_item(line, 2)
}

/// `^\s+\S`
fn is_continuation(line: &str) -> bool {
    let t = trim_start(line);
    t.len() < line.len() && !t.is_empty()
}

pub fn parse(block: &str) -> QuickReference {
    let lines: Vec<&str> = block.split('\n').collect();
    let mut q = QuickReference::default();
    // Looked up, not scanned: 100,000 keys took 13.7 s with a scan of those before each.
    let mut seen: std::collections::HashSet<&str> = std::collections::HashSet::new();
    let mut i = 0;
    while i < lines.len() {
        let raw = lines[i];
        if trim(raw).is_empty() || trim_start(raw).starts_with('#') {
            i += 1;
            continue;
        }
        if raw.starts_with(is_js_space) {
            q.errors.push(YamlError {
                line: i + 1,
                message: "Unexpected indentation; QUICK REFERENCE supports flat values and flat arrays only".into(),
            });
            i += 1;
            continue;
        }
        let Some((key, raw_value)) = key_line(raw) else {
            q.errors.push(YamlError { line: i + 1, message: "Invalid QUICK REFERENCE YAML entry".into() });
            i += 1;
            continue;
        };
        if !seen.insert(key) {
            q.errors.push(YamlError { line: i + 1, message: format!("Duplicate QUICK REFERENCE field: {key}") });
            i += 1;
            continue;
        }
        let key = key.to_owned();
        if !trim(raw_value).is_empty() {
            let mut value = trim(raw_value).to_owned();
            let quote = value.chars().next().filter(|c| *c == '"' || *c == '\'');
            if let Some(quote) = quote {
                while !value.ends_with(quote) && i + 1 < lines.len() && is_continuation(lines[i + 1]) {
                    i += 1;
                    value.push(' ');
                    value.push_str(trim(lines[i]));
                }
            }
            q.entries.push((key, parse_scalar(&value)));
            i += 1;
            continue;
        }
        let mut items = Vec::new();
        while i + 1 < lines.len() {
            let Some(item) = list_item(lines[i + 1]) else { break };
            items.push(parse_scalar(item));
            i += 1;
        }
        if items.is_empty() {
            q.errors.push(YamlError { line: i + 1, message: format!("QUICK REFERENCE field '{key}' has no value") });
        }
        q.entries.push((key, QValue::List(items)));
        i += 1;
    }
    q
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &str) -> QValue {
        QValue::Str(v.into())
    }

    #[test]
    fn scalars_and_lists() {
        let q = parse(
            "name: Ada Lovelace\nyears: 12\nremote: TRUE\nratio: -1.50\nquoted: \"a: b\"\ntags: [rust, 'go', \"c\"]\nempty: []\nroles:\n  - Engineer\n  - 2024\n",
        );
        assert!(q.errors.is_empty(), "{:?}", q.errors);
        assert_eq!(q.get("name"), Some(&s("Ada Lovelace")));
        assert_eq!(q.get("years"), Some(&QValue::Num(12.0)));
        assert_eq!(q.get("remote"), Some(&QValue::Bool(true)));
        assert_eq!(q.get("ratio"), Some(&QValue::Num(-1.5)));
        assert_eq!(q.get("quoted"), Some(&s("a: b")));
        assert_eq!(q.get("tags"), Some(&QValue::List(vec![s("rust"), s("go"), s("c")])));
        assert_eq!(q.get("empty"), Some(&QValue::List(vec![])));
        assert_eq!(q.get("roles"), Some(&QValue::List(vec![s("Engineer"), QValue::Num(2024.0)])));
    }

    #[test]
    fn quoted_values_continue_on_indented_lines() {
        let q = parse("summary: \"builds tools\n  for people\"\nnext: 1");
        assert_eq!(q.get("summary"), Some(&s("builds tools for people")));
        assert!(q.errors.is_empty());
    }

    #[test]
    fn errors_are_reported_at_their_own_line() {
        let q = parse("name:\n  nested: value\n# comment\nname: again\nnot a key\n9lives: x");
        let lines: Vec<(usize, &str)> = q.errors.iter().map(|e| (e.line, e.message.as_str())).collect();
        assert_eq!(
            lines,
            vec![
                (1, "QUICK REFERENCE field 'name' has no value"),
                (2, "Unexpected indentation; QUICK REFERENCE supports flat values and flat arrays only"),
                (4, "Duplicate QUICK REFERENCE field: name"),
                (5, "Invalid QUICK REFERENCE YAML entry"),
                (6, "Invalid QUICK REFERENCE YAML entry"),
            ]
        );
        // An empty list is still a value in JavaScript's eyes.
        assert!(q.get("name").unwrap().is_truthy());
    }

    #[test]
    fn list_items_follow_the_regex_backtracking() {
        assert_eq!(list_item("  - a"), Some("a"));
        assert_eq!(list_item(" - a"), None);
        assert_eq!(list_item("  -a"), None);
        assert_eq!(list_item("  -  "), Some(" "));
        assert_eq!(list_item("  - "), None);
    }

    #[test]
    fn packet_rendering() {
        assert_eq!(
            QValue::List(vec![s("a"), QValue::Num(2024.0), QValue::Bool(true)]).to_packet_yaml(),
            "[\"a\", 2024, true]"
        );
        assert_eq!(s("say \"hi\"\n").to_packet_yaml(), "\"say \\\"hi\\\"\\n\"");
        // `1e400` as 2.x writes it: `String(n)` alone, `JSON.stringify` in a list.
        assert_eq!(QValue::Num(f64::INFINITY).to_packet_yaml(), "Infinity");
        assert_eq!(QValue::List(vec![QValue::Num(f64::NEG_INFINITY)]).to_packet_yaml(), "[null]");
    }
}

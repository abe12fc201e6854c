//! Record front matter: a leading `---` block read with a forgiving flat grammar.
//!
//! `key: value` lines (`true`, `false`, `null` typed, one pair of surrounding quotes removed),
//! inline lists `[a, b]` (empty and false items dropped), or a key with an empty value followed
//! by indented `- item` lines. Other lines are ignored. This is VitaeContext 2.x's grammar, so a
//! title like `Rust: the hard parts` works unquoted.

use std::collections::HashMap;

use crate::text::{is_js_space, is_line_terminator};

/// A front-matter value as JavaScript would hold it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FmValue {
    Str(String),
    Bool(bool),
    Null,
    List(Vec<FmValue>),
}

impl FmValue {
    pub fn as_str(&self) -> Option<&str> {
        match self {
            FmValue::Str(s) => Some(s),
            _ => None,
        }
    }

    /// JavaScript truthiness (an empty list is truthy).
    pub fn is_truthy(&self) -> bool {
        match self {
            FmValue::Str(s) => !s.is_empty(),
            FmValue::Bool(b) => *b,
            FmValue::Null => false,
            FmValue::List(_) => true,
        }
    }

    /// `String(value)` in JavaScript (lists join their items with commas).
    pub fn js_string(&self) -> String {
        match self {
            FmValue::Str(s) => s.clone(),
            FmValue::Bool(b) => b.to_string(),
            FmValue::Null => "null".into(),
            FmValue::List(items) => items
                .iter()
                .map(|i| match i {
                    // Array.prototype.join writes null as an empty string.
                    FmValue::Null => String::new(),
                    other => other.js_string(),
                })
                .collect::<Vec<_>>()
                .join(","),
        }
    }

    /// `asList`: absent, null and "" are empty; a list is itself; anything else is one item.
    pub fn as_list(value: Option<&FmValue>) -> Vec<FmValue> {
        match value {
            None | Some(FmValue::Null) => Vec::new(),
            Some(FmValue::Str(s)) if s.is_empty() => Vec::new(),
            Some(FmValue::List(items)) => items.clone(),
            Some(other) => vec![other.clone()],
        }
    }
}

/// Keys in first-insertion order; a repeated key keeps its place and takes the later value.
/// Keys are found through a map, so a block of 100,000 distinct keys reads in linear time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attributes {
    entries: Vec<(String, FmValue)>,
    /// Where each key is in `entries`, once there are more than [`Attributes::SCANNED`] keys.
    /// Boxed: a record's handful of keys never needs it, and a graph holds 100,000 records.
    #[allow(clippy::box_collection, reason = "8 bytes in every record instead of a map's 48")]
    index: Option<Box<HashMap<String, usize>>>,
    /// Where each of [`KNOWN_KEYS`] is in `entries` ([`ABSENT`]: not there), while there are
    /// fewer than [`ABSENT`] entries. Every index run looks these up in every record, many
    /// times; compared with each key's string, that was a cache miss per look-up (at 100,000
    /// records, the largest part of validating them).
    known: [u8; KNOWN_KEYS.len()],
}

/// The keys every part of an index run asks each record for.
const KNOWN_KEYS: [&str; 6] = ["id", "type", "title", "parent", "tags", "related_records"];
const ABSENT: u8 = u8::MAX;

/// `key`'s place in [`KNOWN_KEYS`]: inlined, a literal key folds to a constant.
#[inline(always)]
fn known_slot(key: &str) -> Option<usize> {
    match key {
        "id" => Some(0),
        "type" => Some(1),
        "title" => Some(2),
        "parent" => Some(3),
        "tags" => Some(4),
        "related_records" => Some(5),
        _ => None,
    }
}

impl Default for Attributes {
    fn default() -> Self {
        Attributes { entries: Vec::new(), index: None, known: [ABSENT; KNOWN_KEYS.len()] }
    }
}

impl Attributes {
    /// Attributes holding these entries (distinct keys, as [`Attributes::entries`] gives them).
    /// A record's handful of distinct keys (a manifest's, always) are kept as given, in their
    /// vector: set one by one, every key was copied and the vector grown to spare capacity
    /// (31 MB at once while a 100,000-record manifest was decoded).
    pub fn from_entries(entries: Vec<(String, FmValue)>) -> Self {
        let distinct = |(i, (k, _)): (usize, &(String, FmValue))| entries[..i].iter().all(|(seen, _)| seen != k);
        if entries.len() <= Self::SCANNED && entries.iter().enumerate().all(distinct) {
            let mut known = [ABSENT; KNOWN_KEYS.len()];
            for (i, (k, _)) in entries.iter().enumerate() {
                if let Some(slot) = known_slot(k) {
                    known[slot] = i as u8;
                }
            }
            return Attributes { entries, index: None, known };
        }
        let mut a = Attributes::default();
        for (k, v) in entries {
            a.set(&k, v);
        }
        a.shrink();
        a
    }

    /// The keys and values, in first-insertion order.
    pub fn entries(&self) -> &[(String, FmValue)] {
        &self.entries
    }

    /// The position of a key in [`Attributes::entries`]. A record's few keys are scanned; the
    /// map is built only for a block of more than [`Attributes::SCANNED`] keys.
    #[inline]
    pub fn position(&self, key: &str) -> Option<usize> {
        crate::steps::add(1);
        if let Some(slot) = known_slot(key)
            && self.entries.len() < usize::from(ABSENT)
        {
            let at = self.known[slot];
            return (at != ABSENT).then_some(usize::from(at));
        }
        if self.entries.len() <= Self::SCANNED {
            return self.entries.iter().position(|(k, _)| k == key);
        }
        self.index.as_ref()?.get(key).copied()
    }

    /// Up to this many keys, a key is found by a scan (faster than hashing for a record's
    /// handful of keys).
    const SCANNED: usize = 16;

    pub fn get(&self, key: &str) -> Option<&FmValue> {
        self.position(key).map(|i| &self.entries[i].1)
    }

    pub fn str(&self, key: &str) -> Option<&str> {
        self.get(key).and_then(FmValue::as_str)
    }

    fn set(&mut self, key: &str, value: FmValue) {
        match self.position(key) {
            Some(i) => self.entries[i].1 = value,
            None => {
                self.entries.push((key.to_owned(), value));
                if let Some(slot) = known_slot(key)
                    && self.entries.len() <= usize::from(ABSENT)
                {
                    self.known[slot] = (self.entries.len() - 1) as u8;
                }
                if self.entries.len() == Self::SCANNED + 1 {
                    let index = self.entries.iter().enumerate().map(|(i, (k, _))| (k.clone(), i)).collect();
                    self.index = Some(Box::new(index));
                } else if let Some(index) = &mut self.index {
                    index.insert(key.to_owned(), self.entries.len() - 1);
                }
            }
        }
    }

    /// Drops the spare capacity pushing left: a graph holds its records' attributes for a
    /// whole index run (100,000 of them at scale).
    fn shrink(&mut self) {
        self.entries.shrink_to_fit();
        for (_, value) in &mut self.entries {
            if let FmValue::List(items) = value {
                items.shrink_to_fit();
            }
        }
    }

    fn push_item(&mut self, key: &str, item: FmValue) {
        if let Some(i) = self.position(key)
            && let FmValue::List(items) = &mut self.entries[i].1
        {
            items.push(item);
        }
    }
}

fn scalar(value: &str) -> FmValue {
    let t = crate::text::trim(value);
    match t {
        "true" => FmValue::Bool(true),
        "false" => FmValue::Bool(false),
        "null" => FmValue::Null,
        _ => FmValue::Str(crate::text::strip_quotes(t).to_owned()),
    }
}

/// `^---\r?\n([\s\S]*?)\r?\n---\r?\n?`: (the block's text, bytes consumed).
fn block(content: &str) -> Option<(&str, usize)> {
    let rest = content.strip_prefix("---")?;
    let first = if rest.starts_with("\r\n") {
        2
    } else if rest.starts_with('\n') {
        1
    } else {
        return None;
    };
    let inner_start = 3 + first;
    let bytes = content.as_bytes();
    // The lazy group ends at the first "\n---" (optionally "\r\n---") followed by a newline or
    // the end of the text... but `\r?\n?` after `---` always matches, so any "\n---" ends it.
    let mut i = inner_start;
    while i < bytes.len() {
        if bytes[i] == b'\n' && content[i + 1..].starts_with("---") {
            let inner_end = if i > inner_start && bytes[i - 1] == b'\r' { i - 1 } else { i };
            let mut end = i + 4;
            if content[end..].starts_with("\r\n") {
                end += 2;
            } else if content[end..].starts_with('\n') {
                end += 1;
            }
            return Some((&content[inner_start..inner_end], end));
        }
        i += 1;
    }
    // An empty block: "---\n---".
    None
}

/// `^([a-z][a-z0-9_-]*):\s*(.*)$` -> (key, value).
fn field(line: &str) -> Option<(&str, &str)> {
    let colon = line.find(':')?;
    let key = &line[..colon];
    let mut chars = key.chars();
    if !chars.next().is_some_and(|c| c.is_ascii_lowercase()) {
        return None;
    }
    if !chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '-') {
        return None;
    }
    let value = line[colon + 1..].trim_start_matches(is_js_space);
    if value.chars().any(is_line_terminator) {
        return None;
    }
    Some((key, value))
}

/// `^\s+-\s+(.+)$` -> the item text.
fn list_item(line: &str) -> Option<&str> {
    crate::text::list_item(line, 1)
}

/// Whether a record says `visibility: private`: it may inform advice, never be published.
pub fn is_private(content: &str) -> bool {
    parse(content).is_some_and(|(a, _)| a.str("visibility") == Some("private"))
}

/// The front matter and where the body starts; `None` when the text has no leading block.
pub fn parse(content: &str) -> Option<(Attributes, usize)> {
    let (inner, consumed) = block(content)?;
    let mut attrs = Attributes::default();
    let mut current: Option<String> = None;
    for raw in inner.split('\n') {
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        if let (Some(item), Some(key)) = (list_item(line), current.as_deref()) {
            attrs.push_item(key, scalar(item));
            continue;
        }
        let Some((key, value)) = field(line) else { continue };
        if value.is_empty() {
            attrs.set(key, FmValue::List(Vec::new()));
            current = Some(key.to_owned());
        } else if value.starts_with('[') && value.ends_with(']') && value.len() >= 2 {
            let items = value[1..value.len() - 1].split(',').map(scalar).filter(FmValue::is_truthy).collect();
            attrs.set(key, FmValue::List(items));
            current = None;
        } else {
            attrs.set(key, scalar(value));
            current = None;
        }
    }
    attrs.shrink();
    Some((attrs, consumed))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &str) -> FmValue {
        FmValue::Str(v.into())
    }

    #[test]
    fn flat_fields_lists_and_unquoted_colons() {
        let (a, end) = parse("---\ntype: project\nid: project:x\ntitle: Rust: the hard parts\nstatus: \"active\"\nvisibility: null\ndraft: true\ntags:\n  - rust\n  - 'cli'\nrelated_records: [a:b, , false, true]\nIgnored Line\nUPPER: no\n---\n# Body\n").unwrap();
        assert_eq!(a.get("title"), Some(&s("Rust: the hard parts")));
        assert_eq!(a.get("status"), Some(&s("active")));
        assert_eq!(a.get("visibility"), Some(&FmValue::Null));
        assert_eq!(a.get("draft"), Some(&FmValue::Bool(true)));
        assert_eq!(a.get("tags"), Some(&FmValue::List(vec![s("rust"), s("cli")])));
        assert_eq!(a.get("related_records"), Some(&FmValue::List(vec![s("a:b"), FmValue::Bool(true)])));
        assert_eq!(a.get("UPPER"), None);
        assert_eq!(
            &"---\ntype: project\nid: project:x\ntitle: Rust: the hard parts\nstatus: \"active\"\nvisibility: null\ndraft: true\ntags:\n  - rust\n  - 'cli'\nrelated_records: [a:b, , false, true]\nIgnored Line\nUPPER: no\n---\n# Body\n"
                [end..],
            "# Body\n"
        );
    }

    #[test]
    fn crlf_and_missing_blocks() {
        let (a, _) = parse("---\r\nid: x:y\r\n---\r\nbody").unwrap();
        assert_eq!(a.str("id"), Some("x:y"));
        assert!(parse("no front matter").is_none());
        assert!(parse("---\nid: x:y\n").is_none(), "an unclosed block is no front matter");
        assert!(parse(" ---\nid: a\n---\n").is_none());
    }

    #[test]
    fn a_repeated_key_keeps_its_place() {
        let (a, _) = parse("---\nid: a:b\ntitle: one\nid: c:d\n---\n").unwrap();
        assert_eq!(a.entries[0], ("id".to_string(), s("c:d")));
    }

    /// Entries as a manifest gives them back are the attributes that parsing made, lookups
    /// included, whether the keys are few or many, distinct or (in a crafted manifest) not.
    #[test]
    fn attributes_from_entries_are_the_parsed_ones() {
        for keys in [1, 6, Attributes::SCANNED, Attributes::SCANNED + 1, 40] {
            let block: String = (0..keys).map(|i| format!("k{i}: v{i}\n")).collect();
            let (parsed, _) = parse(&format!("---\n{block}---\n")).unwrap();
            let rebuilt = Attributes::from_entries(parsed.entries().to_vec());
            assert_eq!(rebuilt, parsed, "{keys} keys");
            assert_eq!(rebuilt.str(&format!("k{}", keys - 1)), Some(format!("v{}", keys - 1).as_str()));
            assert_eq!(rebuilt.get("absent"), None);
        }
        let repeated = vec![("id".to_string(), s("a:b")), ("title".to_string(), s("t")), ("id".to_string(), s("c:d"))];
        let (parsed, _) = parse("---\nid: a:b\ntitle: t\nid: c:d\n---\n").unwrap();
        assert_eq!(Attributes::from_entries(repeated), parsed);
    }

    use proptest::prelude::*;

    proptest::proptest! {
        /// The keys every run asks for are found where a scan of the entries finds them,
        /// whatever the block: few keys or past what the slots hold, repeated or not, built by
        /// parsing or from a manifest's entries.
        #[test]
        fn known_keys_are_found_where_a_scan_finds_them(
            keys in proptest::collection::vec(
                proptest::prop_oneof![
                    proptest::sample::select(KNOWN_KEYS.to_vec()).prop_map(str::to_owned),
                    (0..400usize).prop_map(|i| format!("k{i}")),
                ],
                1..600,
            )
        ) {
            let block: String = keys.iter().enumerate().map(|(i, k)| format!("{k}: v{i}\n")).collect();
            let (parsed, _) = parse(&format!("---\n{block}---\n")).unwrap();
            let rebuilt = Attributes::from_entries(parsed.entries().to_vec());
            for a in [&parsed, &rebuilt] {
                for key in KNOWN_KEYS.iter().copied().chain(["k0", "absent"]) {
                    let scanned = a.entries().iter().position(|(k, _)| k == key);
                    prop_assert_eq!(a.position(key), scanned, "{} in {} entries", key, a.entries().len());
                }
            }
        }
    }
}

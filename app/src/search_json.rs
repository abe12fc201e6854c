//! `search-index.json` read into a searcher one document at a time, from a window of the file
//! rather than the whole of it (and, for `doctor`'s look at a stale index, handed over one
//! document at a time).
//!
//! The server reads this file when there is no usable sidecar (a graph indexed by VitaeContext
//! 2.3.0 has none). Held whole, a 100,000-record file is 219 MB beside the searcher being built
//! from it; serde_json's reader over a stream holds nothing but reads each byte through a call
//! and was 0.3-0.6 s slower there. Here the file is read in pieces: the outer object is walked
//! by hand, each value's extent found by a scan (strings skipped with `memchr`), and each
//! value, a document above all, parsed from its bytes by serde_json, which checks it whole.
//! What the file must be is what `search::deserialize` asks: an object with string `version`
//! and `algorithm`, a `documents` array of documents, each field once, other fields any JSON
//! value, nothing after the object but whitespace. A test holds both to the same verdict on
//! every file tried.

use std::io::Read;

use domain::graph::index::Document;
use domain::graph::search::SearcherBuilder;
use serde::de::{Error as _, IgnoredAny};

/// The bytes read at a time; a value longer than the window grows it.
const WINDOW: usize = 4 << 20;

/// The documents of the search index `file` holds, as [`domain::graph::search::deserialize`]
/// reads them.
pub fn read_builder(file: &mut dyn Read) -> Result<SearcherBuilder, serde_json::Error> {
    read_with_window(file, WINDOW)
}

/// Gives `each` document of the search index `file` holds, in the file's order, one at a time;
/// fails, perhaps after some, where [`read_builder`] fails.
pub fn read_documents(file: &mut dyn Read, each: &mut dyn FnMut(Document)) -> Result<(), serde_json::Error> {
    each_document(file, WINDOW, each)
}

fn read_with_window(file: &mut dyn Read, window: usize) -> Result<SearcherBuilder, serde_json::Error> {
    let mut b = SearcherBuilder::default();
    each_document(file, window, &mut |d| b.add(&d))?;
    Ok(b)
}

fn each_document(file: &mut dyn Read, window: usize, each: &mut dyn FnMut(Document)) -> Result<(), serde_json::Error> {
    let mut w = Window { file, buf: Vec::with_capacity(window), at: 0, before: 0, eof: false, window };
    w.skip_ws()?;
    w.expect(b'{', "the file to open an object")?;
    let (mut version, mut algorithm, mut documents) = (false, false, false);
    w.skip_ws()?;
    if w.peek()? == Some(b'}') {
        w.at += 1;
    } else {
        loop {
            let key: String = w.value("a field name")?;
            w.skip_ws()?;
            w.expect(b':', "a `:` after a field name")?;
            w.skip_ws()?;
            let once = |seen: &mut bool, name: &str| {
                if std::mem::replace(seen, true) {
                    return Err(serde_json::Error::custom(format!("duplicate field `{name}`")));
                }
                Ok(())
            };
            match key.as_str() {
                "version" => {
                    once(&mut version, "version")?;
                    w.value::<String>("`version`")?;
                }
                "algorithm" => {
                    once(&mut algorithm, "algorithm")?;
                    w.value::<String>("`algorithm`")?;
                }
                "documents" => {
                    if std::mem::replace(&mut documents, true) {
                        return Err(serde_json::Error::custom("duplicate field `documents`"));
                    }
                    w.documents(each)?;
                }
                _ => {
                    w.value::<IgnoredAny>("a field's value")?;
                }
            }
            if !w.another(b'}', "a `,` or `}` after a field")? {
                break;
            }
        }
    }
    w.skip_ws()?;
    if w.peek()?.is_some() {
        return Err(w.syntax("nothing after the object"));
    }
    for (present, name) in [(version, "version"), (algorithm, "algorithm"), (documents, "documents")] {
        if !present {
            return Err(serde_json::Error::custom(format!("missing field `{name}`")));
        }
    }
    Ok(())
}

/// A window on the file: `buf[at..]` is read and not yet taken; `before` bytes of the file
/// came before `buf[0]`.
struct Window<'r> {
    file: &'r mut dyn Read,
    buf: Vec<u8>,
    at: usize,
    before: u64,
    eof: bool,
    window: usize,
}

impl Window<'_> {
    /// Reads more of the file after what is in the window, dropping what was taken; false at
    /// the end of the file.
    fn more(&mut self) -> Result<bool, serde_json::Error> {
        if self.eof {
            return Ok(false);
        }
        if self.at > 0 {
            self.buf.drain(..self.at);
            self.before += self.at as u64;
            self.at = 0;
        }
        // A value longer than the window: room for as much again.
        let room = self.window.max(self.buf.len());
        let start = self.buf.len();
        self.buf.resize(start + room, 0);
        let read = loop {
            match self.file.read(&mut self.buf[start..]) {
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                other => break other,
            }
        };
        let n = read.map_err(|e| {
            self.buf.truncate(start);
            serde_json::Error::io(e)
        })?;
        self.buf.truncate(start + n);
        self.eof = n == 0;
        Ok(n > 0)
    }

    fn peek(&mut self) -> Result<Option<u8>, serde_json::Error> {
        while self.at == self.buf.len() {
            if !self.more()? {
                return Ok(None);
            }
        }
        Ok(Some(self.buf[self.at]))
    }

    fn skip_ws(&mut self) -> Result<(), serde_json::Error> {
        while let Some(c) = self.peek()? {
            if !matches!(c, b' ' | b'\n' | b'\r' | b'\t') {
                break;
            }
            self.at += 1;
        }
        Ok(())
    }

    fn expect(&mut self, byte: u8, wanted: &str) -> Result<(), serde_json::Error> {
        if self.peek()? != Some(byte) {
            return Err(self.syntax(wanted));
        }
        self.at += 1;
        Ok(())
    }

    /// After an item of an object or array: true past a `,` (and the space after it), false
    /// past the `close` that ends it.
    fn another(&mut self, close: u8, wanted: &str) -> Result<bool, serde_json::Error> {
        self.skip_ws()?;
        match self.peek()? {
            Some(b',') => {
                self.at += 1;
                self.skip_ws()?;
                Ok(true)
            }
            Some(c) if c == close => {
                self.at += 1;
                Ok(false)
            }
            _ => Err(self.syntax(wanted)),
        }
    }

    /// An error at the window's place: the byte of the file, never its content.
    fn syntax(&self, wanted: &str) -> serde_json::Error {
        let place = self.before + self.at as u64;
        let found = if self.at == self.buf.len() { "the file ends" } else { "found something else" };
        serde_json::Error::custom(format!("expected {wanted} at byte {place}; {found}"))
    }

    /// The value starting at the window's place, parsed by serde_json from its bytes.
    fn value<T: serde::de::DeserializeOwned>(&mut self, what: &str) -> Result<T, serde_json::Error> {
        let end = loop {
            if let Some(len) = extent(&self.buf[self.at..]) {
                break self.at + len;
            }
            if !self.more()? {
                return Err(self.syntax(&format!("{what} to end")));
            }
        };
        let parsed = serde_json::from_slice(&self.buf[self.at..end]).map_err(|e| {
            // Said by kind and place: serde_json's own words can quote the file.
            let kind = crate::graph_store::json_error_kind(&e);
            serde_json::Error::custom(format!("{kind} in {what} at byte {}", self.before + self.at as u64))
        })?;
        self.at = end;
        Ok(parsed)
    }

    /// The `documents` array, each document added to a builder as it is parsed.
    fn documents(&mut self, each: &mut dyn FnMut(Document)) -> Result<(), serde_json::Error> {
        self.expect(b'[', "`documents` to be an array")?;
        self.skip_ws()?;
        if self.peek()? == Some(b']') {
            self.at += 1;
            return Ok(());
        }
        loop {
            each(self.value("a document")?);
            if !self.another(b']', "a `,` or `]` after a document")? {
                return Ok(());
            }
        }
    }
}

/// The length of the JSON value that `bytes` starts with, found without parsing it (serde_json
/// checks it after); `None` when `bytes` ends before it does. Strings are skipped with memchr;
/// an object or array ends at the bracket that brings the depth back to zero.
fn extent(bytes: &[u8]) -> Option<usize> {
    match *bytes.first()? {
        b'"' => string_end(bytes, 1).map(|e| e + 1),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut i = 0;
            while i < bytes.len() {
                match bytes[i] {
                    b'"' => i = string_end(bytes, i + 1)?,
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(i + 1);
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
            None
        }
        // A number, `true`, `false`, `null` (or a mistake): up to what follows a value.
        _ => bytes.iter().position(|c| matches!(c, b',' | b'}' | b']' | b' ' | b'\n' | b'\r' | b'\t' | b'"')),
    }
}

/// Where the string whose contents start at `from` closes (its `"`), escapes skipped.
fn string_end(bytes: &[u8], from: usize) -> Option<usize> {
    let mut i = from;
    loop {
        let j = i + memchr::memchr2(b'"', b'\\', bytes.get(i..)?)?;
        if bytes[j] == b'"' {
            return Some(j);
        }
        i = j + 2;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use domain::graph::index::{SearchIndex, Tag, Terms};
    use domain::graph::search::{Query, Searcher};

    fn doc(i: usize, text: &str) -> Document {
        Document {
            id: format!("project:p-{i:04}"),
            kind: "project".into(),
            title: format!("Project {i} \"quoted\" \\ {{braces}} [brackets]"),
            path: format!("projects/p-{i}/project.md"),
            text: text.into(),
            tags: vec![Tag::Str("rust".into()), Tag::Bool(true), Tag::Null],
            terms: Terms(vec![("rust".into(), 2), (format!("word{}", i % 7), 1), ("é\"}".into(), 1)]),
        }
    }

    fn index(n: usize) -> SearchIndex {
        let texts = ["plain words here", "a \"quote\" and } and ] inside", "back\\slash\\\"", "ünïcode ✓ \u{1}"];
        SearchIndex {
            version: "2.0.0".into(),
            algorithm: "lexical-term-frequency".into(),
            documents: (0..n).map(|i| doc(i, texts[i % texts.len()])).collect(),
        }
    }

    /// serde_json's verdict on the whole file, the reference.
    fn whole(bytes: &[u8]) -> Result<Searcher, serde_json::Error> {
        let mut de = serde_json::Deserializer::from_slice(bytes);
        let s = domain::graph::search::deserialize(&mut de)?;
        de.end()?;
        Ok(s)
    }

    fn streamed(bytes: &[u8], window: usize) -> Result<Searcher, serde_json::Error> {
        read_with_window(&mut &bytes[..], window).map(SearcherBuilder::finish)
    }

    fn same_answers(a: &Searcher, b: &Searcher, n: usize) {
        for text in ["rust", "word3", "project", "quote", "p-0003", "é"] {
            let q = Query { text: Some(text), ..Query::default() };
            assert_eq!(a.search(&q), b.search(&q), "{q:?}");
        }
        let q = Query { tag: Some("rust"), kind: Some("Project"), ..Query::default() };
        assert_eq!(a.search(&q), b.search(&q), "{q:?}");
        for i in 0..n {
            let id = format!("project:p-{i:04}");
            assert_eq!(a.document(&id), b.document(&id), "{id}");
        }
        assert_eq!(a.len(), b.len());
    }

    /// Pretty (as 2.x writes it) and compact, read through windows from one byte (every value
    /// split across reads) to larger than the file: the searcher serde_json makes of the whole.
    #[test]
    fn a_streamed_index_answers_as_the_whole_file_does() {
        for n in [0, 1, 3, 40] {
            let idx = index(n);
            for bytes in [serde_json::to_vec_pretty(&idx).unwrap(), serde_json::to_vec(&idx).unwrap()] {
                let reference = whole(&bytes).unwrap();
                for window in [1, 2, 7, 64, 1 << 20] {
                    let s = streamed(&bytes, window).unwrap_or_else(|e| panic!("{n} docs, window {window}: {e}"));
                    same_answers(&s, &reference, n);
                }
            }
        }
    }

    /// The same verdict as serde_json on the whole file, for files made wrong on purpose and
    /// for every prefix of a good one (each a file cut short).
    #[test]
    fn a_file_is_refused_exactly_when_serde_refuses_it() {
        let good = String::from_utf8(serde_json::to_vec_pretty(&index(2)).unwrap()).unwrap();
        let mut cases: Vec<String> = vec![
            good.replacen("\"version\"", "\"vers\\u0069on\"", 1),
            good.replacen("{", "{\"extra\": [1, {\"a\": \"}\"}], ", 1),
            good.replacen("{", "{\"version\": \"1\", ", 1),
            good.replacen("{", "{\"documents\": [], ", 1),
            good.replacen("\"algorithm\": \"lexical-term-frequency\",", "", 1),
            good.replacen("\"version\": \"2.0.0\"", "\"version\": 2", 1),
            good.replacen("\"documents\": [", "\"documents\": {", 1),
            good.replacen("\"type\": \"project\"", "\"type\": 3", 1),
            good.replacen("\"id\"", "\"idd\"", 1),
            good.clone() + "  \n",
            good.clone() + "x",
            good.clone() + "{}",
            format!("  {good}"),
            "{}".into(),
            "[]".into(),
            "".into(),
            "{\"version\":\"1\",\"algorithm\":\"a\",\"documents\":[]}".into(),
            "{\"version\":\"1\",\"algorithm\":\"a\",\"documents\":[],}".into(),
            "{\"version\":\"1\",\"algorithm\":\"a\",\"documents\":[1]}".into(),
            "{\"version\":\"1\",\"algorithm\":\"a\",\"documents\":[] \"x\":1}".into(),
            "{\"version\":\"1\",\"algorithm\":\"a\",\"documents\":[],\"n\":-1.5e3,\"t\":true,\"z\":null}".into(),
            "{\"version\":\"1\",\"algorithm\":\"a\",\"documents\":[],\"n\":tru}".into(),
            "{\"version\":\"1\" \"algorithm\":\"a\",\"documents\":[]}".into(),
        ];
        cases.extend((0..good.len()).filter(|&k| good.is_char_boundary(k)).map(|k| good[..k].to_string()));
        for case in &cases {
            let want = whole(case.as_bytes()).map(|_| ());
            for window in [1, 5, 1 << 20] {
                let got = streamed(case.as_bytes(), window).map(|_| ());
                assert_eq!(got.is_ok(), want.is_ok(), "window {window}: {case:?}: streamed {got:?}, whole {want:?}");
            }
        }
    }

    /// What a refusal says names a place in the file, never its content.
    #[test]
    fn a_refusal_quotes_nothing_of_the_file() {
        let secret = "SECRET-VALUE-".repeat(100);
        let file =
            format!("{{\"version\":\"1\",\"algorithm\":\"a\",\"documents\":[{{\"id\":\"{secret}\",\"type\":1}}]}}");
        let e = streamed(file.as_bytes(), 64).unwrap_err().to_string();
        assert!(e.contains("a value of the wrong type or shape in a document at byte 44"), "{e}");
        assert!(!e.contains("SECRET"), "{e}");
    }

    /// A read error is an error, not a file cut short that happens to parse.
    #[test]
    fn a_read_error_fails_the_load() {
        struct Failing(usize);
        impl Read for Failing {
            fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
                if self.0 == 0 {
                    return Err(std::io::Error::other("disk on fire"));
                }
                self.0 -= 1;
                buf[0] = b' ';
                Ok(1)
            }
        }
        let e = read_with_window(&mut Failing(3), 8).expect_err("fails");
        assert!(e.is_io(), "{e}");
    }
}

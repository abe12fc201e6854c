//! Ranked search over the search index: BM25 on the indexed terms, title and tag matches
//! weighted up, id and path substrings matching too.

use std::collections::HashMap;

use aho_corasick::{AhoCorasick, MatchKind};

use super::index::{Document, SearchIndex, Tag, tokens};
use super::record_type::RecordType;

const K1: f64 = 1.2;
const B: f64 = 0.75;
/// Extra weight (times the term's idf) of a query term found in the title, and in a tag.
const TITLE_BOOST: f64 = 1.5;
const TAG_BOOST: f64 = 1.0;
/// Weight of a query term found inside a record's id or path.
const ID_PATH_WEIGHT: f64 = 0.5;
pub const MAX_RESULTS: usize = 20;
/// Distinct query terms considered; a longer query is cut (each term costs a scan of the
/// id/path haystack).
pub const MAX_QUERY_TERMS: usize = 64;
pub const EXCERPT_CHARS: usize = 320;

#[derive(Debug)]
struct Doc {
    id: String,
    kind: String,
    title: String,
    path: String,
    text: String,
    tags: Vec<Tag>,
    tag_lower: Vec<String>,
}

/// The documents containing one term, with each document's weight for it: the BM25
/// term-frequency part plus the title and tag boosts. A query adds `idf * weight`.
#[derive(Debug)]
struct Posting {
    idf: f64,
    entries: Vec<(u32, f32)>,
}

/// A search index ready to answer queries: postings per term with precomputed weights, and
/// every id and path in one lower-cased haystack for substring matching.
#[derive(Debug)]
pub struct Searcher {
    /// In id order, so "by score then id" is "by score then index".
    docs: Vec<Doc>,
    postings: HashMap<String, Posting>,
    /// `id \0 path \0` of every document, lower-cased, in document order.
    haystack: Vec<u8>,
    /// Where each document's part of the haystack starts.
    starts: Vec<u32>,
}

/// A record as the index holds it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DocumentText<'a> {
    pub id: &'a str,
    pub title: &'a str,
    pub path: &'a str,
    pub text: &'a str,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    pub id: String,
    pub kind: String,
    pub title: String,
    pub path: String,
    pub tags: Vec<Tag>,
    pub score: f64,
    pub excerpt: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Results {
    pub match_count: usize,
    pub records: Vec<Hit>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown record type {0:?}: expected one of {types}", types = RecordType::names())]
pub struct UnknownType(pub String);

/// A record type given in any case (`project`, `Project`), as the index's PascalCase name.
pub fn parse_type(t: &str) -> Result<String, UnknownType> {
    let lower = t.to_lowercase();
    RecordType::parse(&lower).map(|r| r.pascal_name().to_owned()).ok_or_else(|| UnknownType(t.to_owned()))
}

/// What to look for; every part is optional.
#[derive(Debug, Clone, Default)]
pub struct Query<'a> {
    pub text: Option<&'a str>,
    /// PascalCase, from [`parse_type`].
    pub kind: Option<&'a str>,
    pub tag: Option<&'a str>,
}

/// A term and, for a compound term (`build-cache`, `node.js`), its parts, so that a query for
/// `cache` finds `build-cache`.
fn expand(term: &str) -> impl Iterator<Item = &str> {
    let parts = term.split(['-', '.']).filter(move |p| !p.is_empty() && *p != term);
    std::iter::once(term).chain(parts)
}

fn expand_all(terms: Vec<String>) -> Vec<String> {
    let mut out: Vec<String> = terms.iter().flat_map(|t| expand(t).map(str::to_owned)).collect();
    out.sort();
    out.dedup();
    out
}

/// One document's weight inputs for one term, until every document is in and the average
/// length is known.
#[derive(Debug, Clone, Copy)]
struct Entry {
    term: u32,
    tf: u32,
    in_title: bool,
    in_tag: bool,
}

/// Builds a [`Searcher`] one document at a time. Each document's term map is folded into
/// interned term ids as it arrives and then dropped, so loading an index never holds every
/// document's term strings at once (with serde, see [`deserialize`]).
#[derive(Debug, Default)]
pub struct SearcherBuilder {
    docs: Vec<Doc>,
    lens: Vec<f64>,
    vocab: HashMap<Box<str>, u32>,
    /// Every document's entries, one after the other; `bounds[i]..bounds[i + 1]` are doc i's.
    entries: Vec<Entry>,
    bounds: Vec<usize>,
}

impl SearcherBuilder {
    pub fn add(&mut self, d: Document) {
        if self.bounds.is_empty() {
            self.bounds.push(0);
        }
        let mut counts: HashMap<&str, u32> = HashMap::new();
        let mut len = 0.0;
        for (term, count) in d.terms.iter() {
            len += f64::from(count);
            for t in expand(term) {
                *counts.entry(t).or_insert(0) += count;
            }
        }
        let title_terms = expand_all(tokens(&d.title));
        let tag_lower: Vec<String> = d.tags.iter().map(|t| t.text().to_lowercase()).collect();
        let tag_terms = expand_all(tokens(&tag_lower.join(" ")));
        let has = |terms: &[String], t: &str| terms.binary_search_by(|x| x.as_str().cmp(t)).is_ok();
        for (t, tf) in counts {
            let next = self.vocab.len() as u32;
            let term = *self.vocab.entry(t.into()).or_insert(next);
            self.entries.push(Entry { term, tf, in_title: has(&title_terms, t), in_tag: has(&tag_terms, t) });
        }
        self.bounds.push(self.entries.len());
        self.lens.push(len);
        let Document { id, kind, title, path, text, tags, terms: _ } = d;
        self.docs.push(Doc { id, kind, title, path, text, tags, tag_lower });
    }

    pub fn finish(self) -> Searcher {
        let SearcherBuilder { docs, lens, vocab, entries, bounds } = self;
        // Documents in id order (stable, as a sort of the whole list was).
        let mut order: Vec<usize> = (0..docs.len()).collect();
        order.sort_by(|&a, &b| docs[a].id.cmp(&docs[b].id));
        let n = docs.len() as f64;
        let avg_len = if docs.is_empty() { 1.0 } else { (order.iter().map(|&i| lens[i]).sum::<f64>() / n).max(1.0) };
        // Exact capacities: postings are most of a loaded index.
        let mut df = vec![0u32; vocab.len()];
        for e in &entries {
            df[e.term as usize] += 1;
        }
        let mut lists: Vec<Vec<(u32, f32)>> = df.iter().map(|&k| Vec::with_capacity(k as usize)).collect();
        for (i, &old) in order.iter().enumerate() {
            let len = lens[old];
            for e in &entries[bounds[old]..bounds[old + 1]] {
                let tf = f64::from(e.tf);
                let mut w = tf * (K1 + 1.0) / (tf + K1 * (1.0 - B + B * len / avg_len));
                if e.in_title {
                    w += TITLE_BOOST;
                }
                if e.in_tag {
                    w += TAG_BOOST;
                }
                lists[e.term as usize].push((i as u32, w as f32));
            }
        }
        drop(entries);
        let mut postings: HashMap<String, Posting> = HashMap::with_capacity(vocab.len());
        for (term, id) in vocab {
            let entries = std::mem::take(&mut lists[id as usize]);
            let df = entries.len() as f64;
            let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
            postings.insert(term.into_string(), Posting { idf, entries });
        }
        let mut slots: Vec<Option<Doc>> = docs.into_iter().map(Some).collect();
        let docs: Vec<Doc> = order.iter().map(|&i| slots[i].take().expect("each document once")).collect();
        let mut haystack = Vec::new();
        let mut starts = Vec::with_capacity(docs.len());
        for d in &docs {
            starts.push(haystack.len() as u32);
            haystack.extend(d.id.to_lowercase().bytes());
            haystack.push(0);
            haystack.extend(d.path.to_lowercase().bytes());
            haystack.push(0);
        }
        haystack.shrink_to_fit();
        Searcher { docs, postings, haystack, starts }
    }
}

/// Reads a search index file (the shape of [`SearchIndex`]) straight into a [`Searcher`], one
/// document at a time.
pub fn deserialize<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Searcher, D::Error> {
    #[derive(serde::Deserialize)]
    struct File {
        #[allow(dead_code, reason = "required by the format, not used by search")]
        version: String,
        #[allow(dead_code, reason = "required by the format, not used by search")]
        algorithm: String,
        #[serde(deserialize_with = "documents")]
        documents: SearcherBuilder,
    }
    fn documents<'de, D: serde::Deserializer<'de>>(d: D) -> Result<SearcherBuilder, D::Error> {
        struct Docs;
        impl<'de> serde::de::Visitor<'de> for Docs {
            type Value = SearcherBuilder;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a list of documents")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<SearcherBuilder, A::Error> {
                let mut b = SearcherBuilder::default();
                while let Some(doc) = seq.next_element::<Document>()? {
                    b.add(doc);
                }
                Ok(b)
            }
        }
        d.deserialize_seq(Docs)
    }
    let file: File = serde::Deserialize::deserialize(d)?;
    Ok(file.documents.finish())
}

impl Searcher {
    pub fn new(index: SearchIndex) -> Self {
        let mut b = SearcherBuilder::default();
        for d in index.documents {
            b.add(d);
        }
        b.finish()
    }

    /// A record's title, path and plain text, by id (for checking facts against it).
    pub fn document(&self, id: &str) -> Option<DocumentText<'_>> {
        let i = self.docs.binary_search_by(|d| d.id.as_str().cmp(id)).ok()?;
        let d = &self.docs[i];
        Some(DocumentText { id: &d.id, title: &d.title, path: &d.path, text: &d.text })
    }

    pub fn len(&self) -> usize {
        self.docs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.docs.is_empty()
    }

    fn passes(&self, d: &Doc, q: &Query<'_>, tag: Option<&str>) -> bool {
        q.kind.is_none_or(|k| d.kind == k) && tag.is_none_or(|t| d.tag_lower.iter().any(|x| x == t))
    }

    pub fn search(&self, q: &Query<'_>) -> Results {
        let tag = q.tag.map(str::to_lowercase);
        let tag = tag.as_deref();
        let text = q.text.map(str::trim).filter(|t| !t.is_empty());
        let Some(text) = text else {
            let matching: Vec<usize> = (0..self.docs.len()).filter(|&i| self.passes(&self.docs[i], q, tag)).collect();
            return Results {
                match_count: matching.len(),
                records: matching.iter().take(MAX_RESULTS).map(|&i| self.hit(i, 0.0, &Needles::none())).collect(),
            };
        };
        let mut terms = tokens(text);
        terms.sort();
        terms.dedup();
        terms.truncate(MAX_QUERY_TERMS);
        let mut scores = vec![0.0f64; self.docs.len()];
        let mut touched: Vec<u32> = Vec::new();
        for term in &terms {
            if let Some(p) = self.postings.get(term) {
                for &(doc, w) in &p.entries {
                    let s = &mut scores[doc as usize];
                    if *s == 0.0 {
                        touched.push(doc);
                    }
                    *s += p.idf * f64::from(w);
                }
            }
        }
        // Ids and paths match by substring: each query term, or the whole query when it has
        // none; a document counts once per needle.
        let lower = text.to_lowercase();
        let needles: Vec<&str> =
            if terms.is_empty() { vec![lower.as_str()] } else { terms.iter().map(String::as_str).collect() };
        let mut last_needle = vec![u16::MAX; if needles.is_empty() { 0 } else { self.docs.len() }];
        for (k, needle) in needles.iter().enumerate().filter(|(_, n)| !n.is_empty() && !n.contains('\0')) {
            for pos in memchr::memmem::find_iter(&self.haystack, needle.as_bytes()) {
                let doc = self.starts.partition_point(|&s| s as usize <= pos) - 1;
                if last_needle[doc] != k as u16 {
                    last_needle[doc] = k as u16;
                    if scores[doc] == 0.0 {
                        touched.push(doc as u32);
                    }
                    scores[doc] += ID_PATH_WEIGHT;
                }
            }
        }
        let mut ranked: Vec<(u32, f64)> = touched
            .into_iter()
            .map(|d| (d, scores[d as usize]))
            .filter(|&(d, s)| s > 0.0 && self.passes(&self.docs[d as usize], q, tag))
            .collect();
        let match_count = ranked.len();
        let order = |a: &(u32, f64), b: &(u32, f64)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
        if ranked.len() > MAX_RESULTS {
            ranked.select_nth_unstable_by(MAX_RESULTS - 1, order);
            ranked.truncate(MAX_RESULTS);
        }
        ranked.sort_by(order);
        let finder = Needles::new(&needles);
        let records = ranked.iter().map(|&(i, s)| self.hit(i as usize, s, &finder)).collect();
        Results { match_count, records }
    }

    fn hit(&self, i: usize, score: f64, needles: &Needles) -> Hit {
        let d = &self.docs[i];
        Hit {
            id: d.id.clone(),
            kind: d.kind.clone(),
            title: d.title.clone(),
            path: d.path.clone(),
            tags: d.tags.clone(),
            score: (score * 10_000.0).round() / 10_000.0,
            excerpt: excerpt_with(&d.text, needles, &mut 0),
        }
    }
}

/// The needles of one query, compiled once into one automaton: finding the first occurrence of
/// any of them is one pass over a text, whatever their number.
#[derive(Debug)]
pub struct Needles(Option<AhoCorasick>);

impl Needles {
    pub fn new(needles: &[&str]) -> Self {
        let needles: Vec<&str> = needles.iter().copied().filter(|n| !n.is_empty()).collect();
        if needles.is_empty() {
            return Needles::none();
        }
        // Leftmost semantics: the match reported is the one that starts first.
        let ac = AhoCorasick::builder().match_kind(MatchKind::LeftmostFirst).build(&needles);
        Needles(Some(ac.expect("64 query terms of at most one frame compile into an automaton")))
    }

    pub fn none() -> Self {
        Needles(None)
    }

    /// The byte offset in `lower` where the first occurrence of any needle starts.
    fn first(&self, lower: &[u8]) -> Option<usize> {
        self.0.as_ref()?.find(lower).map(|m| m.start())
    }
}

/// About [`EXCERPT_CHARS`] characters of `text` around the first occurrence of any needle
/// (case-insensitive), or its start; `…` marks a cut.
pub fn excerpt(text: &str, needles: &[&str]) -> String {
    excerpt_with(text, &Needles::new(needles), &mut 0)
}

/// [`excerpt`] with the needles compiled once. Every step is a single pass over `text` (or its
/// lower-cased copy); `work` is increased by the bytes each pass visits, so a test can show
/// that the cost grows with the text, not with the text times the needles.
fn excerpt_with(text: &str, needles: &Needles, work: &mut usize) -> String {
    *work += text.len();
    let total = text.chars().count();
    if total <= EXCERPT_CHARS {
        return text.to_owned();
    }
    // Lower-cased char by char (the first char of each lower case), so char positions in the
    // copy are char positions in the text.
    let first_hit = if text.is_ascii() {
        *work += text.len();
        let lower = text.to_ascii_lowercase();
        *work += text.len();
        needles.first(lower.as_bytes())
    } else {
        let lower: String = text.chars().map(|c| c.to_lowercase().next().unwrap_or(c)).collect();
        *work += text.len() + lower.len();
        needles.first(lower.as_bytes()).map(|at| {
            *work += at;
            lower[..at].chars().count()
        })
    };
    let start = match first_hit {
        Some(pos) => pos.saturating_sub(EXCERPT_CHARS / 3).min(total - EXCERPT_CHARS),
        None => 0,
    };
    let end = (start + EXCERPT_CHARS).min(total);
    let byte_at = |char_index: usize| text.char_indices().nth(char_index).map_or(text.len(), |(b, _)| b);
    let (from, to) = (byte_at(start), byte_at(end));
    *work += from + to;
    let mut out = String::with_capacity(to - from + 6);
    if start > 0 {
        out.push('…');
    }
    out.push_str(&text[from..to]);
    if end < total {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::index::term_counts;

    fn doc(id: &str, title: &str, tags: &[&str], text: &str) -> Document {
        let tags: Vec<Tag> = tags.iter().map(|t| Tag::Str((*t).into())).collect();
        let tag_text: Vec<String> = tags.iter().map(Tag::text).collect();
        Document {
            id: id.into(),
            kind: RecordType::parse(id.split(':').next().unwrap()).unwrap().pascal_name().into(),
            title: title.into(),
            path: format!("{}/{}.md", id.split(':').next().unwrap(), id.split(':').nth(1).unwrap()),
            text: text.into(),
            tags,
            terms: term_counts(&format!("{title} {} {text}", tag_text.join(" "))),
        }
    }

    fn searcher() -> Searcher {
        Searcher::new(searcher_index())
    }

    fn searcher_index() -> SearchIndex {
        SearchIndex {
            version: "2.0.0".into(),
            algorithm: "lexical-term-frequency".into(),
            documents: vec![
                doc(
                    "project:cachewarden",
                    "cachewarden",
                    &["rust", "build"],
                    "Audits remote build caches written in Rust.",
                ),
                doc("project:lens", "pipeline lens", &["ci"], "Profiles CI logs. Mentions rust once."),
                doc(
                    "experience:tideline",
                    "Tideline platform",
                    &["rust"],
                    "Led the CI rebuild with Bazel and Rust and Rust.",
                ),
                doc("publication:flaky", "Flaky tests", &[], "A paper about flaky tests in CI."),
            ],
        }
    }

    fn ids(r: &Results) -> Vec<&str> {
        r.records.iter().map(|h| h.id.as_str()).collect()
    }

    #[test]
    fn title_and_tag_matches_rank_above_body_mentions() {
        let s = searcher();
        let r = s.search(&Query { text: Some("rust"), ..Default::default() });
        assert_eq!(r.match_count, 3);
        assert_eq!(ids(&r)[2], "project:lens", "a body mention alone ranks last: {:?}", ids(&r));
        let r = s.search(&Query { text: Some("flaky"), ..Default::default() });
        assert_eq!(ids(&r), ["publication:flaky"]);
    }

    #[test]
    fn compound_terms_match_their_parts() {
        let s = searcher();
        let r = s.search(&Query { text: Some("cache"), ..Default::default() });
        assert_eq!(ids(&r)[0], "project:cachewarden");
    }

    #[test]
    fn filters_and_listing_without_a_query() {
        let s = searcher();
        let r = s.search(&Query { kind: Some("Project"), ..Default::default() });
        assert_eq!(ids(&r), ["project:cachewarden", "project:lens"]);
        let r = s.search(&Query { tag: Some("RUST"), ..Default::default() });
        assert_eq!(ids(&r), ["experience:tideline", "project:cachewarden"]);
        let r = s.search(&Query { text: Some("rust"), kind: Some("Experience"), ..Default::default() });
        assert_eq!(ids(&r), ["experience:tideline"]);
    }

    #[test]
    fn ids_and_paths_match_by_substring() {
        let s = searcher();
        let r = s.search(&Query { text: Some("tideline"), ..Default::default() });
        assert_eq!(ids(&r)[0], "experience:tideline");
        let r = s.search(&Query { text: Some("warden"), ..Default::default() });
        assert_eq!(ids(&r), ["project:cachewarden"]);
        let r = s.search(&Query { text: Some("::"), ..Default::default() });
        assert_eq!(r.match_count, 0);
    }

    /// Guards the cap that keeps a pathological query fast (its timing is in the graph bench).
    #[test]
    fn a_huge_query_uses_only_its_first_max_query_terms_distinct_terms() {
        let mut index = searcher_index();
        index.documents.push(doc("project:zulu", "zulu", &[], "The last term in sorted order."));
        let s = Searcher::new(index);
        let search = |text: &str| s.search(&Query { text: Some(text), ..Default::default() });
        // Distinct terms in sorted order: "flaky", then the fillers, then "zulu"; repeats count once.
        let fillers: Vec<String> = (0..100_000).map(|i| format!("y{i:06}")).collect();
        let huge = format!("zulu flaky {} flaky {}", fillers.join(" "), fillers[..10].join(" "));
        let cut = format!("flaky {}", fillers[..MAX_QUERY_TERMS - 1].join(" "));
        let r = search(&huge);
        assert_eq!(r, search(&cut), "the huge query must answer exactly as its first {MAX_QUERY_TERMS} terms");
        assert_eq!(ids(&r), ["publication:flaky"]);
        let kept = search("flaky zulu");
        let mut both = ids(&kept);
        both.sort_unstable();
        assert_eq!(both, ["project:zulu", "publication:flaky"], "zulu matches when it is kept");
    }

    #[test]
    fn types_parse_in_any_case() {
        assert_eq!(parse_type("project").unwrap(), "Project");
        assert_eq!(parse_type("Publication").unwrap(), "Publication");
        assert!(parse_type("talk").is_err());
    }

    /// The excerpt as it was computed before it became one pass: per needle, a scan of every
    /// window of the lower-cased chars. Kept as the reference the fast one must equal.
    fn reference_excerpt(text: &str, needles: &[&str]) -> String {
        let chars: Vec<char> = text.chars().collect();
        if chars.len() <= EXCERPT_CHARS {
            return text.to_owned();
        }
        let lower: Vec<char> = chars.iter().map(|c| c.to_lowercase().next().unwrap_or(*c)).collect();
        let first_hit = needles
            .iter()
            .filter(|n| !n.is_empty())
            .filter_map(|n| {
                let n: Vec<char> = n.chars().collect();
                lower.windows(n.len()).position(|w| w == n.as_slice())
            })
            .min();
        let start = match first_hit {
            Some(pos) => pos.saturating_sub(EXCERPT_CHARS / 3).min(chars.len() - EXCERPT_CHARS),
            None => 0,
        };
        let end = (start + EXCERPT_CHARS).min(chars.len());
        let mut out = String::new();
        if start > 0 {
            out.push('…');
        }
        out.extend(&chars[start..end]);
        if end < chars.len() {
            out.push('…');
        }
        out
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
        // The one-pass excerpt equals the per-needle reference, on ASCII and on text whose
        // lower case changes length (İ, ẞ, Σ) or is several chars.
        #[test]
        fn one_pass_excerpts_equal_the_reference(
            text in "([a-zA-Z .\\-]|İ|ẞ|Σ|é|🦀|ǅ){0,900}",
            needles in proptest::collection::vec("([a-z.\\-]|i̇|ß|σ|é|🦀|ǆ){0,4}", 0..6),
        ) {
            let needles: Vec<&str> = needles.iter().map(String::as_str).collect();
            proptest::prop_assert_eq!(excerpt(&text, &needles), reference_excerpt(&text, &needles));
        }
    }

    #[test]
    fn excerpts_equal_the_reference_on_long_records() {
        let text =
            format!("{} Rust and Bazel {} ÉTÉ {}", "lorem ipsum ".repeat(300), "x".repeat(500), "y ".repeat(400));
        for needles in [&["bazel"][..], &["rust", "bazel"], &["été"], &["zzz", "y y"], &[], &["x"]] {
            assert_eq!(excerpt(&text, needles), reference_excerpt(&text, needles), "{needles:?}");
        }
    }

    // Regression: a 64-term query over 20 records of ~4 MB took 28-30 s, because each term
    // scanned every window of each record. The work must grow with the text, not with the text
    // times the terms: measured in bytes visited, not in time.
    #[test]
    fn excerpt_work_is_linear_in_the_text_and_independent_of_the_terms() {
        let terms: Vec<String> = (0..MAX_QUERY_TERMS).map(|i| format!("absent{i}")).collect();
        let many: Vec<&str> = terms.iter().map(String::as_str).collect();
        let work = |len: usize, needles: &[&str]| {
            let text = format!("{}needle", "ab ".repeat(len / 3));
            let mut work = 0;
            let mut all: Vec<&str> = needles.to_vec();
            all.push("needle");
            let e = excerpt_with(&text, &Needles::new(&all), &mut work);
            assert!(e.contains("needle"));
            (work, text.len())
        };
        let (one, len) = work(300_000, &[]);
        let (sixty_four, _) = work(300_000, &many);
        assert_eq!(sixty_four, one, "64 terms cost what one costs");
        assert!(one <= 6 * len, "{one} bytes visited for a text of {len}");
        let (four_times, len4) = work(1_200_000, &many);
        assert!(four_times <= 6 * len4, "{four_times} bytes visited for a text of {len4}");
    }

    #[test]
    fn excerpts_center_on_the_first_hit() {
        let text = format!("{} needle {}", "a".repeat(1000), "b".repeat(1000));
        let e = excerpt(&text, &["needle"]);
        assert!(e.starts_with('…') && e.ends_with('…') && e.contains("needle"));
        assert_eq!(e.chars().count(), EXCERPT_CHARS + 2);
    }
}

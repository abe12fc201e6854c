//! Ranked search over the search index: BM25 on the indexed terms, title and tag matches
//! weighted up, id and path substrings matching too.

use std::collections::HashMap;

use super::index::{SearchIndex, Tag, tokens};
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

impl Searcher {
    pub fn new(index: SearchIndex) -> Self {
        let mut documents = index.documents;
        documents.sort_by(|a, b| a.id.cmp(&b.id));
        // First pass: per-document term counts (compound terms expanded) and lengths.
        let mut per_doc: Vec<(Vec<(String, u32)>, f64)> = Vec::with_capacity(documents.len());
        for d in &documents {
            let mut counts: HashMap<&str, u32> = HashMap::new();
            let mut len = 0.0;
            for (term, count) in d.terms.iter() {
                len += f64::from(count);
                for t in expand(term) {
                    *counts.entry(t).or_insert(0) += count;
                }
            }
            per_doc.push((counts.into_iter().map(|(t, c)| (t.to_owned(), c)).collect(), len));
        }
        let n = documents.len() as f64;
        let avg_len = if per_doc.is_empty() { 1.0 } else { (per_doc.iter().map(|p| p.1).sum::<f64>() / n).max(1.0) };
        let mut postings: HashMap<String, Posting> = HashMap::new();
        let mut docs = Vec::with_capacity(documents.len());
        let mut haystack = Vec::new();
        let mut starts = Vec::with_capacity(documents.len());
        for (i, (d, (counts, len))) in documents.into_iter().zip(per_doc).enumerate() {
            let title_terms = expand_all(tokens(&d.title));
            let tag_lower: Vec<String> = d.tags.iter().map(|t| t.text().to_lowercase()).collect();
            let tag_terms = expand_all(tokens(&tag_lower.join(" ")));
            for (term, tf) in counts {
                let tf = f64::from(tf);
                let mut w = tf * (K1 + 1.0) / (tf + K1 * (1.0 - B + B * len / avg_len));
                if title_terms.binary_search(&term).is_ok() {
                    w += TITLE_BOOST;
                }
                if tag_terms.binary_search(&term).is_ok() {
                    w += TAG_BOOST;
                }
                postings
                    .entry(term)
                    .or_insert_with(|| Posting { idf: 0.0, entries: Vec::new() })
                    .entries
                    .push((i as u32, w as f32));
            }
            starts.push(haystack.len() as u32);
            haystack.extend(d.id.to_lowercase().bytes());
            haystack.push(0);
            haystack.extend(d.path.to_lowercase().bytes());
            haystack.push(0);
            docs.push(Doc {
                id: d.id,
                kind: d.kind,
                title: d.title,
                path: d.path,
                text: d.text,
                tags: d.tags,
                tag_lower,
            });
        }
        for p in postings.values_mut() {
            let df = p.entries.len() as f64;
            p.idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
        }
        Searcher { docs, postings, haystack, starts }
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
                records: matching.iter().take(MAX_RESULTS).map(|&i| self.hit(i, 0.0, &[])).collect(),
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
        let records = ranked.iter().map(|&(i, s)| self.hit(i as usize, s, &needles)).collect();
        Results { match_count, records }
    }

    fn hit(&self, i: usize, score: f64, needles: &[&str]) -> Hit {
        let d = &self.docs[i];
        Hit {
            id: d.id.clone(),
            kind: d.kind.clone(),
            title: d.title.clone(),
            path: d.path.clone(),
            tags: d.tags.clone(),
            score: (score * 10_000.0).round() / 10_000.0,
            excerpt: excerpt(&d.text, needles),
        }
    }
}

/// About [`EXCERPT_CHARS`] characters of `text` around the first occurrence of any needle
/// (case-insensitive), or its start; `…` marks a cut.
pub fn excerpt(text: &str, needles: &[&str]) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::index::{Document, term_counts};

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

    #[test]
    fn excerpts_center_on_the_first_hit() {
        let text = format!("{} needle {}", "a".repeat(1000), "b".repeat(1000));
        let e = excerpt(&text, &["needle"]);
        assert!(e.starts_with('…') && e.ends_with('…') && e.contains("needle"));
        assert_eq!(e.chars().count(), EXCERPT_CHARS + 2);
    }
}

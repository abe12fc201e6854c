//! The searcher as it was before its flat layout (a `Vec` of documents with their own strings
//! and a `HashMap` of postings), kept as the reference the flat one must answer exactly like.

use std::collections::HashMap;

use super::super::index::{Document, DocumentView, Tag, tokens};
use super::{
    B, Hit, ID_PATH_WEIGHT, K1, MAX_QUERY_TERMS, MAX_RESULTS, Needles, Query, Results, TAG_BOOST, TITLE_BOOST, expand,
    expand_all,
};

/// One document's weight inputs for one term (unpacked: the flat builder packs its own).
#[derive(Debug, Clone, Copy)]
struct Entry {
    term: u32,
    tf: u32,
    in_title: bool,
    in_tag: bool,
}

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

/// Builds a [`Searcher`] one document at a time. Each document's term map is folded into
/// interned term ids as it arrives and then dropped, so loading an index never holds every
/// document's term strings at once (with serde, see [`deserialize`]).
#[derive(Debug, Default)]
pub struct RefBuilder {
    docs: Vec<Doc>,
    lens: Vec<f64>,
    vocab: HashMap<Box<str>, u32>,
    /// Every document's entries, one after the other; `bounds[i]..bounds[i + 1]` are doc i's.
    entries: Vec<Entry>,
    bounds: Vec<usize>,
}

impl RefBuilder {
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
        let RefBuilder { docs, lens, vocab, entries, bounds } = self;
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

impl Searcher {
    pub fn new(documents: Vec<Document>) -> Self {
        let mut b = RefBuilder::default();
        for d in documents {
            b.add(d);
        }
        b.finish()
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
        let view =
            DocumentView { id: &d.id, kind: &d.kind, title: &d.title, path: &d.path, text: &d.text, tags: &d.tags };
        Hit::of(view, score, needles)
    }
}

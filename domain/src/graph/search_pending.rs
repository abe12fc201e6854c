//! Records changed since a searcher's index was written, searched together with it
//! ([`Searcher::search_with`]): `mcp --watch` finds an edit in milliseconds, before the index
//! run that makes it part of the files (seconds at 100,000 records) has finished.
//!
//! Each changed path hides the index's document at that path; a changed record that has an id
//! brings its new document. Scores are BM25 as the index computes them, with the idf of each
//! query term counted again over the documents as they now are (the index's document count
//! and document frequency, less the hidden documents', plus the pending ones'). Only the
//! average document length is the last index's: the precomputed weights of the index's
//! documents use it, so a pending document's weight uses it too. The index run that follows
//! replaces the whole answer, so a score may move in its last digits then.

use std::sync::Arc;

use super::{Document, Hit, ID_PATH_WEIGHT, Needles, Prepared, Searcher, weight};

/// What changed since the index: per record path, its document now, or `None` for a record
/// removed (or one search cannot list: no id). Each path hides the index's documents at it and
/// below it as a folder (a folder moved away is one path, `projects/old`). At most one entry
/// per path, in path order. The documents' terms are prepared once, when it is made, not at
/// every search.
#[derive(Debug, Default)]
pub struct Pending {
    changes: Vec<(String, Option<Arc<Document>>)>,
    /// The documents of `changes`, in that order.
    docs: Vec<Arc<Document>>,
    /// Their terms, prepared as the index prepares them.
    prepared: Prepared,
    /// Where each document's prepared terms start (the last entry ends them all).
    starts: Vec<usize>,
    /// Where each prepared term starts in `prepared.term_bytes`.
    term_starts: Vec<usize>,
}

impl Pending {
    /// From `changes`, one per path (a path given twice keeps its last).
    pub fn new<D: Into<Arc<Document>>>(changes: impl IntoIterator<Item = (String, Option<D>)>) -> Pending {
        let mut changes: Vec<(String, Option<Arc<Document>>)> =
            changes.into_iter().map(|(p, d)| (p, d.map(Into::into))).collect();
        // Stable: of two entries for one path, the later stays last, and is kept.
        changes.sort_by(|a, b| a.0.cmp(&b.0));
        changes.reverse();
        changes.dedup_by(|later, kept| later.0 == kept.0);
        changes.reverse();
        let docs: Vec<Arc<Document>> = changes.iter().filter_map(|(_, d)| d.clone()).collect();
        let mut prepared = Prepared::default();
        let mut starts = Vec::with_capacity(docs.len() + 1);
        for d in &docs {
            starts.push(prepared.terms.len());
            prepared.add(&d.view(), d.terms.iter());
        }
        starts.push(prepared.terms.len());
        let mut term_starts = Vec::with_capacity(prepared.terms.len());
        let mut at = 0;
        for t in &prepared.terms {
            term_starts.push(at);
            at = t.end;
        }
        Pending { changes, docs, prepared, starts, term_starts }
    }

    pub fn is_empty(&self) -> bool {
        self.changes.is_empty()
    }

    pub fn len(&self) -> usize {
        self.changes.len()
    }

    /// The pending documents.
    pub fn documents(&self) -> impl Iterator<Item = &Document> {
        self.docs.iter().map(|d| &**d)
    }

    /// The pending document with id `id`.
    pub fn document(&self, id: &str) -> Option<&Document> {
        self.documents().find(|d| d.id == id)
    }

    /// Whether the index's document at record path `path` is hidden: a path pending is it, or
    /// a folder above it.
    pub fn hides(&self, path: &str) -> bool {
        self.changes
            .iter()
            .any(|(p, _)| path.strip_prefix(p.as_str()).is_some_and(|rest| rest.is_empty() || rest.starts_with('/')))
    }
}

/// A [`Pending`] resolved against one searcher for one query's filters.
pub(super) struct Late<'p> {
    pending: &'p Pending,
    /// One bit per document of the searcher: hidden by a pending path.
    hidden: Vec<u64>,
    hidden_count: usize,
    passes: Vec<bool>,
    pub(super) scores: Vec<f64>,
    /// Documents searched: the index's, less the hidden, plus the pending.
    n: f64,
    avg_len: f64,
}

impl<'p> Late<'p> {
    pub(super) fn new(s: &Searcher, pending: &'p Pending, kind: Option<&str>, tag: Option<&str>) -> Late<'p> {
        let mut hidden = Vec::new();
        let mut hidden_count = 0;
        if !pending.is_empty() {
            hidden = vec![0u64; s.n.div_ceil(64)];
            for (path, _) in &pending.changes {
                for i in s.documents_at(path) {
                    if hidden[i / 64] >> (i % 64) & 1 == 0 {
                        hidden[i / 64] |= 1 << (i % 64);
                        hidden_count += 1;
                    }
                }
            }
        }
        let passes = pending
            .docs
            .iter()
            .map(|d| {
                kind.is_none_or(|k| d.kind == k)
                    && tag.is_none_or(|t| d.tags.iter().any(|g| g.text().to_lowercase() == t))
            })
            .collect();
        let n = (s.n - hidden_count + pending.docs.len()) as f64;
        Late { pending, hidden, hidden_count, scores: vec![0.0; pending.docs.len()], passes, n, avg_len: s.avg_len }
    }

    /// Whether nothing is pending: the index's own idf applies.
    pub(super) fn is_empty(&self) -> bool {
        self.pending.docs.is_empty() && self.hidden_count == 0
    }

    pub(super) fn hides(&self, i: usize) -> bool {
        self.hidden.get(i / 64).is_some_and(|w| w >> (i % 64) & 1 == 1)
    }

    /// Pending document `j`'s prepared term `term`, if it has it (a document's prepared terms
    /// are in byte order).
    fn term(&self, j: usize, term: &str) -> Option<usize> {
        let p = self.pending;
        let (mut lo, mut hi) = (p.starts[j], p.starts[j + 1]);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match p.prepared.term_bytes[p.term_starts[mid]..p.prepared.terms[mid].end].cmp(term.as_bytes()) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Some(mid),
            }
        }
        None
    }

    /// The idf of `term` over the documents as they now are, given its postings in the index
    /// (8-byte `(doc, weight)` chunks); `None` when no document has it.
    pub(super) fn idf(&self, term: &str, postings: &[u8]) -> Option<f64> {
        let in_index = postings.len() / 8;
        let hidden = if self.hidden_count == 0 {
            0
        } else {
            postings.chunks_exact(8).filter(|p| self.hides(super::le_u32(p, 0) as usize)).count()
        };
        let pending = (0..self.pending.docs.len()).filter(|&j| self.term(j, term).is_some()).count();
        let df = (in_index - hidden + pending) as f64;
        (df > 0.0).then(|| (1.0 + (self.n - df + 0.5) / (df + 0.5)).ln())
    }

    /// Adds `idf` times each pending document's weight for `term`: the weight the index
    /// would have precomputed for it (stored as an `f32`).
    pub(super) fn score(&mut self, term: &str, idf: f64) {
        for j in 0..self.pending.docs.len() {
            let Some(k) = self.term(j, term) else { continue };
            let t = self.pending.prepared.terms[k];
            let len = self.pending.prepared.docs[j].1;
            // A sidecar that did not say its average length: the document is taken as being
            // of average length.
            let avg = if self.avg_len > 0.0 { self.avg_len } else { len.max(1.0) };
            self.scores[j] += idf * f64::from(weight(t.tf, len, avg, t.in_title, t.in_tag));
        }
    }

    /// Adds the id and path weight once per needle found in a pending document's id or path,
    /// as the index's haystack scan does.
    pub(super) fn needles(&mut self, needles: &[&str]) {
        for (j, d) in self.pending.docs.iter().enumerate() {
            let (id, path) = (d.id.to_lowercase(), d.path.to_lowercase());
            for n in needles.iter().filter(|n| !n.is_empty() && !n.contains('\0')) {
                if id.contains(n) || path.contains(n) {
                    self.scores[j] += ID_PATH_WEIGHT;
                }
            }
        }
    }

    /// The pending documents that pass the query's filters, with their scores.
    pub(super) fn passing(&self) -> impl Iterator<Item = (usize, f64)> + '_ {
        (0..self.pending.docs.len()).filter(|&j| self.passes[j]).map(|j| (j, self.scores[j]))
    }

    pub(super) fn id(&self, j: usize) -> &'p str {
        &self.pending.docs[j].id
    }

    pub(super) fn hit(&self, j: usize, score: f64, needles: &Needles) -> Hit {
        Hit::of(self.pending.docs[j].view(), score, needles)
    }
}

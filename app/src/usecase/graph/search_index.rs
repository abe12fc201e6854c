//! `search-index.json` streamed document by document, and the search sidecar laid out from
//! what was written.

use std::collections::HashMap;
use std::io::Write;
use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use domain::graph::checksum::Summed;
use domain::graph::index::{self, Plan};
use domain::graph::manifest::Seen;
use domain::graph::search::Prepared;
use domain::graph::set;
use domain::graph::sidecar::{self, SidecarBuilder, SidecarLayout, Source as SidecarSource};
use domain::graph::spans::{self, SPANS_FILE};
use domain::graph::{GENERATED_DIR, MAX_RECORD_BYTES, SEARCH_INDEX_FILE, SEARCH_SIDECAR_FILE};
use ports::fs::{FileSystem, OpenFile};

use super::read::threads;

/// The search sidecar's parts, built from the documents of a `search-index.json` as they were
/// written (their strings left in the plan they came from, which it holds), and what names
/// that JSON.
pub struct Unfinished<'p> {
    written: Written<'p>,
    builder: SidecarBuilder,
    /// The sidecar beside the JSON the documents were copied from (held open: the set removes
    /// it), and its length: their terms are taken from the index it holds.
    previous: Option<(OpenFile, u64)>,
    /// Documents copied from the previous JSON.
    pub copied: usize,
}

/// A `search-index.json` as written: the plan its documents came from, its length and
/// [`checksum`](domain::graph::checksum::checksum), and where each document lies in it (start and length, from its `{` to its `}`).
struct Written<'p> {
    plan: &'p Plan<'p>,
    json_len: u64,
    json_sum: u64,
    spans: Vec<(u64, u64)>,
}

impl<'p> Unfinished<'p> {
    /// The `search-index.json` written, by length and checksum.
    pub fn json_piece(&self) -> set::Piece {
        set::Piece { len: self.written.json_len, sum: self.written.json_sum }
    }

    /// Lays the sidecar out (its postings in their final order), reading the documents'
    /// strings from the plan again: document `i` of the builder is node `i` of the plan.
    pub fn lay_out(self) -> LaidOut<'p> {
        let Unfinished { written, builder, previous, .. } = self;
        let plan = written.plan;
        // Read now, once the records' pages are gone (at 100,000 records, 60 MB read while
        // they were held was the run's peak).
        let previous = previous.and_then(|(file, len)| {
            sidecar::decode_previous(Box::new(crate::graph_store::Sidecar(file)), len)
                .inspect_err(|e| {
                    tracing::debug!("graph index: {SEARCH_SIDECAR_FILE} not read ({e}); counting terms again")
                })
                .ok()
                .map(|(previous, _)| previous)
        });
        // What the previous index does not have as the documents were told it has them is
        // counted as a document rendered anew is (found in no test: a span file and a sidecar
        // of one run that disagree).
        let recount = |i: usize, p: &mut Prepared| {
            let mut terms = index::TermCounts::default();
            index::write_document(plan, i, i == 0, &mut Vec::new(), &mut terms);
            p.add(&plan.view(i), terms.iter());
        };
        let layout =
            builder.layout_with(&|i: usize, f: usize| plan.view(i).strings()[f].as_bytes(), previous, &recount);
        LaidOut { written, layout }
    }
}

/// A sidecar laid out, waiting for the stamp of its JSON once in place.
pub struct LaidOut<'p> {
    written: Written<'p>,
    layout: SidecarLayout,
}

impl<'p> LaidOut<'p> {
    /// What writes the sidecar, and what writes the span file ([`spans`]), both naming their
    /// JSON by `json_stamp` too. `seen` describes the records the plan was made from, in their
    /// order: a node whose record has no digest (none has, in a valid graph) is left out of
    /// the span file, so never copied.
    #[allow(clippy::type_complexity)]
    pub fn writers<'a>(
        self,
        json_stamp: u128,
        seen: &'a [Option<Seen>],
    ) -> (impl Fn(&mut dyn Write) -> std::io::Result<()> + 'a, impl Fn(&mut dyn Write) -> std::io::Result<()> + 'a)
    where
        'p: 'a,
    {
        let LaidOut { written: Written { plan, json_len, json_sum, spans }, layout } = self;
        let strings = move |i: usize, f: usize| plan.view(i).strings()[f].as_bytes();
        let json = SidecarSource { json_len, json_sum, json_stamp };
        let sidecar = move |out: &mut dyn Write| layout.write(json, &strings, out);
        let digest = move |i: usize| seen.get(plan.records[i]).and_then(Option::as_ref).map(|s| &s.sha256);
        let span_file = move |out: &mut dyn Write| {
            let listed = (0..spans.len()).filter(|&i| digest(i).is_some());
            let entries = listed.clone().filter_map(|i| {
                let (start, len) = spans[i];
                Some(spans::Span { path: &plan.graph.nodes[i].path, sha256: digest(i)?, start, len })
            });
            spans::write(spans::Json { len: json_len, stamp: json_stamp }, listed.count(), entries, out)
        };
        (sidecar, span_file)
    }
}

/// Writes `search-index.json` for the plan: documents rendered in batches on every core and
/// written in id order as they come, so at most a few batches are held at once. Returns the
/// search sidecar's parts, built from the same documents, naming the bytes written.
///
/// With a [`Splice`], the documents of unchanged records are copied from the JSON in place
/// rather than rendered, in runs that lie one after another there; a copy that does not read
/// as its node's document is rendered instead. A copied document's terms are taken from the
/// index in `previous`, the sidecar beside that JSON (held open, and its length), when the
/// span file says where it is there ([`Splice::old`]), and read from the copy otherwise.
pub fn write_search_index<'p>(
    plan: &'p Plan<'p>,
    splice: Option<&Splice>,
    previous: Option<(OpenFile, u64)>,
    out: &mut dyn Write,
) -> std::io::Result<Unfinished<'p>> {
    let mut unfinished = stream_search_index(plan, splice, out, true)?;
    unfinished.previous = previous;
    Ok(unfinished)
}

/// The bytes of [`write_search_index`], rendered the same way, without the sidecar's work:
/// for `doctor`, which compares them with the file on disk.
pub fn write_search_json(plan: &Plan<'_>, out: &mut dyn Write) -> std::io::Result<()> {
    stream_search_index(plan, None, out, false).map(drop)
}

/// [`write_search_index`]; with `sidecar` false, no term is prepared or interned for a sidecar
/// and the builder returned is empty.
fn stream_search_index<'p>(
    plan: &'p Plan<'p>,
    splice: Option<&Splice>,
    out: &mut dyn Write,
    sidecar: bool,
) -> std::io::Result<Unfinished<'p>> {
    use std::sync::mpsc;
    const BATCH: usize = 256;
    let n = plan.graph.nodes.len();
    let mut out = Summed::new(out);
    let mut head = Vec::new();
    index::write_search_head(&mut head, n == 0);
    out.write_all(&head)?;
    let batches = n.div_ceil(BATCH);
    let next = AtomicUsize::new(0);
    // Renderers stay at most WINDOW batches ahead of the writer (`due`), so the batches held
    // waiting for an earlier one are bounded; `stop` releases them when the writer fails.
    const WINDOW: usize = 8;
    let due_shared = AtomicUsize::new(0);
    let stop = std::sync::atomic::AtomicBool::new(false);
    // Written buffers, and the sidecar's prepared runs once pushed, go back to the renderers,
    // which reuse them (no fresh pages per batch).
    let (give_back, pool) = mpsc::channel::<Vec<u8>>();
    let pool = Mutex::new(pool);
    let (give_back_prepared, prepared_pool) = mpsc::channel::<Prepared>();
    let prepared_pool = Mutex::new(prepared_pool);
    let copied = AtomicUsize::new(0);
    let mut spans: Vec<(u64, u64)> = Vec::with_capacity(n);
    let sidecar = std::thread::scope(|s| {
        let workers = threads().min(batches);
        let (tx, rx) = mpsc::sync_channel::<(usize, Vec<u8>, Prepared, Placed)>(workers * 2);
        for _ in 0..workers {
            let (tx, next, pool, prepared_pool, due_shared, stop, copied) =
                (tx.clone(), &next, &pool, &prepared_pool, &due_shared, &stop, &copied);
            s.spawn(move || {
                let mut terms = index::TermCounts::default();
                let mut scratch = Vec::new();
                loop {
                    let b = next.fetch_add(1, Ordering::Relaxed);
                    if b >= batches {
                        return;
                    }
                    while b >= due_shared.load(Ordering::Acquire) + WINDOW {
                        if stop.load(Ordering::Acquire) {
                            return;
                        }
                        std::thread::sleep(std::time::Duration::from_micros(100));
                    }
                    let reused = pool.lock().unwrap_or_else(|p| p.into_inner()).try_recv();
                    let mut buf = reused.unwrap_or_else(|_| Vec::with_capacity(BATCH * 3 * 1024));
                    buf.clear();
                    // Each document's share of the sidecar's work is done here too, in parallel,
                    // from the terms just counted; the builder reads the rest from the plan.
                    let reused = prepared_pool.lock().unwrap_or_else(|p| p.into_inner()).try_recv();
                    let mut prepared = reused.unwrap_or_default();
                    prepared.clear();
                    let mut placed = Vec::with_capacity(BATCH);
                    let mut batch = Filling {
                        buf: &mut buf,
                        terms: &mut terms,
                        prepared: sidecar.then_some(&mut prepared),
                        placed: &mut placed,
                        scratch: &mut scratch,
                    };
                    let end = ((b + 1) * BATCH).min(n);
                    let mut i = b * BATCH;
                    while i < end {
                        let k = splice.map_or(0, |sp| batch.copy_run(plan, sp, i, end));
                        if k > 0 {
                            copied.fetch_add(k, Ordering::Relaxed);
                            i += k;
                        } else {
                            batch.render(plan, i);
                            i += 1;
                        }
                    }
                    if tx.send((b, buf, prepared, placed)).is_err() {
                        return; // the writer failed and stopped listening
                    }
                }
            });
        }
        drop(tx);
        // The sidecar is built on a thread of its own from the documents in written order, so
        // the writer only writes; it interns the terms prepared with each batch (the documents'
        // strings stay in the plan, read again when the sidecar is written).
        let (docs_tx, docs_rx) = mpsc::sync_channel::<(usize, Prepared)>(WINDOW);
        let builder = s.spawn(move || {
            let mut b = if sidecar { SidecarBuilder::borrowing(n) } else { SidecarBuilder::default() };
            let mut pushed = 0;
            for (batch, prepared) in docs_rx.iter().filter(|_| sidecar) {
                let first = batch * BATCH;
                // The sidecar reads document `i`'s strings from node `i`: pushed in order.
                debug_assert_eq!(first, pushed, "batches reach the sidecar in order");
                pushed += prepared.len();
                b.push((first..first + prepared.len()).map(|i| plan.view(i)), &prepared);
                let _ = give_back_prepared.send(prepared);
            }
            b
        });
        // Batches arrive in any order; each is written as soon as all before it are.
        let mut waiting = std::collections::BTreeMap::new();
        let mut due = 0;
        let written = (|| {
            for (b, buf, prepared, placed) in rx {
                waiting.insert(b, (buf, prepared, placed));
                while let Some((buf, prepared, placed)) = waiting.remove(&due) {
                    spans.extend(placed.into_iter().map(|(at, len)| (out.sum.len + at as u64, len)));
                    out.write_all(&buf)?;
                    let _ = give_back.send(buf);
                    let _ = docs_tx.send((due, prepared));
                    due += 1;
                    due_shared.store(due, Ordering::Release);
                }
            }
            Ok::<(), std::io::Error>(())
        })();
        if written.is_err() {
            stop.store(true, Ordering::Release);
        }
        drop(docs_tx);
        written?;
        Ok::<SidecarBuilder, std::io::Error>(builder.join().expect("the sidecar builder panicked"))
    })?;
    let mut tail = Vec::new();
    index::write_search_tail(&mut tail, n == 0);
    out.write_all(&tail)?;
    let copied = copied.into_inner();
    tracing::debug!(documents = n, copied, terms_taken = sidecar.taken(), "graph index: search index written");
    debug_assert_eq!(spans.len(), n, "a span for every document");
    let json = Written { plan, json_len: out.sum.len, json_sum: out.sum.finish(), spans };
    Ok(Unfinished { written: json, builder: sidecar, previous: None, copied })
}

/// Each document's place in its batch's buffer: start (of its `{`) and length.
type Placed = Vec<(usize, u64)>;

/// A batch of `search-index.json` being made by a worker: its bytes, its documents' terms for
/// the sidecar and where each document lies in the bytes.
struct Filling<'b> {
    buf: &'b mut Vec<u8>,
    terms: &'b mut index::TermCounts,
    /// None when no sidecar is made.
    prepared: Option<&'b mut Prepared>,
    placed: &'b mut Placed,
    scratch: &'b mut Vec<u8>,
}

impl Filling<'_> {
    /// Renders node `i`'s document.
    fn render(&mut self, plan: &Plan<'_>, i: usize) {
        let at = self.buf.len() + index::document_separator(i == 0).len();
        index::write_document(plan, i, i == 0, self.buf, self.terms);
        if let Some(prepared) = self.prepared.as_deref_mut() {
            prepared.add(&plan.view(i), self.terms.iter());
        }
        self.placed.push((at, (self.buf.len() - at) as u64));
    }

    /// Copies the documents of nodes `i..` (before `end`) that lie one after another in the
    /// JSON in place, with one read, and returns how many. None when node `i` has no span or
    /// the read fails; the run stops before a copy that does not read as its node's document
    /// (the caller renders that one).
    fn copy_run(&mut self, plan: &Plan<'_>, splice: &Splice, i: usize, end: usize) -> usize {
        let between = index::document_separator(false).len() as u64;
        let Some((start, len)) = splice.spans[i] else { return 0 };
        let mut stop = start + len;
        let mut j = i + 1;
        while j < end
            && let Some((next, len)) = splice.spans[j]
            && next == stop + between
            && next + len - start <= MAX_RUN_BYTES
        {
            stop = next + len;
            j += 1;
        }
        let before = self.buf.len();
        self.buf.extend_from_slice(index::document_separator(i == 0));
        let at = self.buf.len();
        let Ok(total) = usize::try_from(stop - start) else {
            self.buf.truncate(before);
            return 0;
        };
        self.buf.resize(at + total, 0);
        if splice.json.read_exact_at(&mut self.buf[at..], start).is_err() {
            self.buf.truncate(before);
            return 0;
        }
        for k in i..j {
            let (from, len) = splice.spans[k].unwrap_or_default();
            let doc_at = at + (from - start) as usize;
            let doc = &self.buf[doc_at..doc_at + len as usize];
            let old = splice.old.get(k).copied().filter(|&o| o != NOT_THERE && self.prepared.is_some());
            // The terms are read from the copy unless the previous index has them. Reading them
            // also checked the copy's terms field; with the previous index only its head and
            // closing line are checked (damage inside a copy that keeps the JSON's length and
            // stamp went unseen in its text already).
            if !(index::is_document_of(plan, k, doc, self.scratch) && (old.is_some() || self.terms.read_rendered(doc)))
            {
                self.buf.truncate(if k == i { before } else { doc_at - between as usize });
                return k - i;
            }
            if let Some(prepared) = self.prepared.as_deref_mut() {
                match old {
                    Some(old) => prepared.add_copied(&plan.view(k), old),
                    None => prepared.add(&plan.view(k), self.terms.iter()),
                }
            }
            self.placed.push((doc_at, len));
        }
        j - i
    }
}

/// The largest span file read for `nodes` records: 52 bytes of each entry and its path (at
/// most 4 KiB), and the header. A damaged one is refused before it is read whole.
fn max_spans_bytes(nodes: usize) -> u64 {
    64 + nodes as u64 * (52 + 4096)
}

/// The largest document copied: a record's text escaped (at most 6 bytes a byte) and its
/// terms (each at most 2 bytes of text and 14 of layout), with room to spare. A span longer
/// than this is not one this build wrote, and is not read (a crafted one could otherwise ask
/// for the whole JSON at once).
pub(super) const MAX_DOCUMENT_BYTES: u64 = 16 * MAX_RECORD_BYTES;

/// The most bytes one read of a run of copied documents takes: the run stops there.
pub(super) const MAX_RUN_BYTES: u64 = 8 << 20;

/// The documents of the `search-index.json` in place that can be copied into the new one:
/// what the previous run's span file says of them, for the records unchanged since (by path
/// and SHA-256), while that JSON is the one the span file describes (length and stamp).
pub struct Splice {
    /// The JSON in place, held open: it stays readable once the new one replaces it.
    pub(super) json: OpenFile,
    /// Per node of the plan, where its document lies in that JSON (start and length).
    pub(super) spans: Vec<Option<(u64, u64)>>,
    /// Per node of the plan with a span, its document's number in that JSON, which is its
    /// number in the index beside it ([`NOT_THERE`] for the others); empty without one.
    pub(super) old: Vec<u32>,
    /// The sidecar beside that JSON, held open, and its length, when its header names that
    /// JSON (length and stamp). What it holds is read and checked when the sidecar is laid
    /// out ([`Unfinished::lay_out`]).
    pub(super) sidecar: Option<(OpenFile, u64)>,
}

/// In [`Splice::old`]: a node whose document is not in the previous index.
const NOT_THERE: u32 = u32::MAX;

/// Whether a span is one to read: inside a JSON of `json_len` bytes, and no longer than a
/// document can be.
pub(super) fn readable(span: &spans::Span<'_>, json_len: u64) -> bool {
    span.len <= MAX_DOCUMENT_BYTES && span.start.checked_add(span.len).is_some_and(|end| end <= json_len)
}

/// The [`Splice`] for `plan` (made from the records that `seen` describes, in their order),
/// when the previous run left a span file for the JSON in place.
pub(super) fn previous_spans(
    fs: &dyn FileSystem,
    root: &Path,
    plan: &Plan<'_>,
    seen: &[Option<Seen>],
) -> Option<Splice> {
    let dir = Path::new(GENERATED_DIR);
    let (bytes, _) = fs.read_beneath(root, &dir.join(SPANS_FILE), max_spans_bytes(plan.graph.nodes.len())).ok()?;
    let Some((json, old)) = spans::decode(&bytes) else {
        tracing::info!("graph index: {SPANS_FILE} is not one this version wrote whole; rendering every document");
        return None;
    };
    let (file, meta) = fs.open_beneath(root, &dir.join(SEARCH_INDEX_FILE)).ok()?;
    if meta.len != json.len || meta.stamp != json.stamp {
        tracing::debug!("graph index: {SEARCH_INDEX_FILE} is not the one {SPANS_FILE} describes");
        return None;
    }
    // The span file lists the documents in the previous plan's order, which is this one's (by
    // id) for every record that kept its id: each is looked for at the node after the one last
    // found, and in a map of every node's path (made at the first miss, after a record was
    // added, removed or given another id) only when it is not there.
    let nodes = &plan.graph.nodes;
    let mut node_of: Option<HashMap<&str, usize>> = None;
    let mut next = 0;
    let mut spans = vec![None; nodes.len()];
    let mut old_of = vec![NOT_THERE; nodes.len()];
    for (k, span) in old.into_iter().enumerate() {
        let i = match nodes.get(next) {
            Some(n) if n.path == span.path => next,
            _ => {
                let node_of = node_of
                    .get_or_insert_with(|| nodes.iter().enumerate().map(|(i, n)| (n.path.as_str(), i)).collect());
                let Some(&i) = node_of.get(span.path) else { continue };
                i
            }
        };
        next = i + 1;
        let unchanged = seen.get(plan.records[i]).copied().flatten().is_some_and(|s| s.sha256 == *span.sha256);
        if unchanged && readable(&span, json.len) {
            spans[i] = Some((span.start, span.len));
            old_of[i] = u32::try_from(k).unwrap_or(NOT_THERE);
        }
    }
    let sidecar = sidecar_beside(fs, root, &meta);
    let old = if sidecar.is_some() { old_of } else { Vec::new() };
    Some(Splice { json: file, spans, old, sidecar })
}

/// The sidecar beside the JSON in place (`json`), held open, and its length, when its header
/// names that JSON by length and stamp.
fn sidecar_beside(fs: &dyn FileSystem, root: &Path, json: &ports::fs::Metadata) -> Option<(OpenFile, u64)> {
    let (file, meta) = fs.open_beneath(root, &Path::new(GENERATED_DIR).join(SEARCH_SIDECAR_FILE)).ok()?;
    if meta.kind != ports::fs::FileKind::File || meta.len > crate::graph_store::MAX_INDEX_BYTES {
        return None;
    }
    let mut header = [0; sidecar::HEADER_LEN];
    file.read_exact_at(&mut header, 0).ok()?;
    let named = sidecar::source(&header).ok()?;
    let beside = named.json_len == json.len && named.json_stamp == json.stamp;
    if !beside {
        tracing::debug!("graph index: {SEARCH_SIDECAR_FILE} is not the one beside {SEARCH_INDEX_FILE}");
    }
    beside.then_some((file, meta.len))
}
